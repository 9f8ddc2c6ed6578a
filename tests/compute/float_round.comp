#version 450
// floor, ceil, fract, mod, trunc on positive and negative values.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float a = x[i];
    o[i * 5] = floor(a);
    o[i * 5 + 1] = ceil(a);
    o[i * 5 + 2] = fract(a);
    o[i * 5 + 3] = mod(a, y[i]);
    o[i * 5 + 4] = trunc(a);
}
