#version 450
// mix with boolean selectors, ternaries on scalars and vectors.
layout(local_size_x = 8, local_size_y = 2) in;
layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) readonly buffer B { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer O { vec4 o[]; };
layout(std430, binding = 3) writeonly buffer P { int p[]; };
void main() {
    uint i = gl_LocalInvocationIndex + gl_WorkGroupID.x * 16u;
    vec4 x = a[i], y = b[i];
    bvec4 gt = greaterThan(x, y);
    o[i * 2] = mix(x, y, gt);
    o[i * 2 + 1] = mix(vec4(-1.0), x, bvec4(x.x > 0.0)) + (any(gt) ? vec4(100.0) : vec4(0.0));
    int s = x.x < y.x ? int(x.x) : -int(y.x);
    p[i] = all(gt) ? 1000 : (s > 0 ? s : 7);
}
