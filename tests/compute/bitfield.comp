#version 450
// bitfieldExtract (signed and unsigned) and bitfieldInsert with data-dependent fields.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i], y = b[i];
    int off = int(y % 32u);
    int bits = int((y >> 8) % uint(33 - off));
    o[i * 3] = bitfieldExtract(x, off, bits);
    o[i * 3 + 1] = uint(bitfieldExtract(int(x), off, bits));
    o[i * 3 + 2] = bitfieldInsert(x, y ^ 0xa5a5a5a5u, off, bits);
}
