#version 450
// Reinterpretation between int and uint, large floats to uint, and bool conversions.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer F { float f[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i];
    o[i * 6 + 0] = uint(x);
    o[i * 6 + 1] = uint(int(uint(x) >> 1));
    o[i * 6 + 2] = uint(f[i]);
    o[i * 6 + 3] = uint(x < 0) + uint(x == 0) * 2u;
    o[i * 6 + 4] = floatBitsToUint(float(x > 0));
    o[i * 6 + 5] = uint(bool(x & 1));
}
