#version 450
// Shifts (arithmetic for int, logical for uint) and bitwise logic.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i], y = b[i];
    uint s = y % 32u;
    o[i * 7] = x << s;
    o[i * 7 + 1] = x >> s;
    o[i * 7 + 2] = uint(int(x) >> int(s));
    o[i * 7 + 3] = ~x;
    o[i * 7 + 4] = x & y;
    o[i * 7 + 5] = x | y;
    o[i * 7 + 6] = x ^ (y << 3);
}
