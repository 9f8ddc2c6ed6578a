#version 450
// Float add, sub, mul, div, negate.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i], y = b[i];
    o[i * 5 + 0] = x + y;
    o[i * 5 + 1] = x - y;
    o[i * 5 + 2] = x * y;
    o[i * 5 + 3] = x / y;
    o[i * 5 + 4] = -x;
}
