#version 450
// Integer to float conversions, including values that must round.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i * 3 + 0] = float(a[i]);
    o[i * 3 + 1] = float(b[i]);
    o[i * 3 + 2] = float(a[i] >> 8);
}
