#version 450
// Unsigned division and modulo across the full 32-bit range.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i], y = b[i];
    o[i * 3] = x / y;
    o[i * 3 + 1] = x % y;
    o[i * 3 + 2] = x / 7u + x % 13u;
}
