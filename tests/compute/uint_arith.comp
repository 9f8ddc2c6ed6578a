#version 450
// Unsigned arithmetic, wrapping on overflow.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i], y = b[i];
    o[i * 5 + 0] = x + y;
    o[i * 5 + 1] = x - y;
    o[i * 5 + 2] = x * y;
    o[i * 5 + 3] = x * y + 0x9e3779b9u;
    o[i * 5 + 4] = max(x, y) - min(x, y);
}
