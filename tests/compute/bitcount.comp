#version 450
// bitCount, findMSB (signed and unsigned), findLSB and bitfieldReverse.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i];
    o[i * 6] = bitCount(x);
    o[i * 6 + 1] = bitCount(int(x));
    o[i * 6 + 2] = findMSB(x);
    o[i * 6 + 3] = findMSB(int(x));
    o[i * 6 + 4] = findLSB(x);
    o[i * 6 + 5] = int(bitfieldReverse(x));
}
