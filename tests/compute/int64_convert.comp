#version 450
#extension GL_ARB_gpu_shader_int64 : require
// Conversions between 64-bit integers, 32-bit integers and floats; 64-bit push constants and
// a std430 struct whose 64-bit member sits at offset 8.
layout(local_size_x = 32) in;
struct E { uint tag; uint64_t v; };
layout(std430, binding = 0) readonly buffer A { uint64_t a[]; };
layout(std430, binding = 1) readonly buffer F { float f[]; };
layout(std430, binding = 2) writeonly buffer O { E o[]; };
layout(std430, binding = 3) writeonly buffer W { uint w[]; };
layout(push_constant) uniform P { uint pad; uint64_t k; int64_t m; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[i];
    int64_t sx = int64_t(x);
    float g = f[i];
    o[i * 4u + 0u] = E(i, uint64_t(int64_t(g)));
    o[i * 4u + 1u] = E(uint(x), uint64_t(abs(g)) + pc.k);
    o[i * 4u + 2u] = E(uint(x >> 32), uint64_t(int64_t(int(i) - 16) * pc.m));
    o[i * 4u + 3u] = E(i ^ 0xffu, uint64_t(uint(sx)) + uint64_t(i));
    w[i * 2u + 0u] = floatBitsToUint(float(x));
    w[i * 2u + 1u] = floatBitsToUint(float(sx));
}
