#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit unsigned and signed division and remainder (GLSL % on int64_t is OpSMod).
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint64_t a[]; };
layout(std430, binding = 1) readonly buffer B { uint64_t b[]; };
layout(std430, binding = 2) writeonly buffer O { uint64_t o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[i];
    // Divisors of every size, never 0 and never -1.
    uint64_t y = (b[i] >> (b[i] & 63ul)) | 2ul;
    int64_t sx = int64_t(x), sy = int64_t(y);
    if ((i & 1u) != 0u) sy = -sy;
    o[i * 4u + 0u] = x / y;
    o[i * 4u + 1u] = x % y;
    o[i * 4u + 2u] = uint64_t(sx / sy);
    // Both operands non-negative: lavapipe was seen to give OpSMod(1, -3) = 1 on int64 (SPIR-V
    // says -2), so mixed signs are left to the compiler's own tests.
    o[i * 4u + 3u] = uint64_t((sx & 0x7fffffffffffffffl) % abs(sy));
}
