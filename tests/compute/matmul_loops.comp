#version 450
// 4x4 integer matrix products with loops, one invocation per element.
layout(local_size_x = 4, local_size_y = 4) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer O { int o[]; };
void main() {
    uint m = gl_WorkGroupID.x;
    uint r = gl_LocalInvocationID.y, c = gl_LocalInvocationID.x;
    int s = 0;
    for (uint k = 0u; k < 4u; k++) s += a[m * 16u + r * 4u + k] * b[m * 16u + k * 4u + c];
    o[m * 16u + r * 4u + c] = s;
}
