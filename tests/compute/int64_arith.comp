#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit integer add/sub/mul, bit operations, variable shifts, comparisons and uvec2 bitcasts.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint64_t a[]; };
layout(std430, binding = 1) readonly buffer B { uint64_t b[]; };
layout(std430, binding = 2) writeonly buffer O { uint64_t o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[i], y = b[i];
    int64_t sx = int64_t(x), sy = int64_t(y);
    uint s = uint(y) & 63u;
    o[i * 10u + 0u] = x + y;
    o[i * 10u + 1u] = x - y;
    o[i * 10u + 2u] = x * y;
    o[i * 10u + 3u] = (x & y) | (~x ^ (y << 7));
    o[i * 10u + 4u] = x << s;
    o[i * 10u + 5u] = x >> s;
    o[i * 10u + 6u] = uint64_t(sx >> s);
    o[i * 10u + 7u] = uint64_t(x < y) | (uint64_t(sx < sy) << 1) | (uint64_t(x == y) << 2)
        | (uint64_t(sx >= sy) << 3) | (uint64_t(x <= (y >> 1)) << 4);
    uvec2 p = unpackUint2x32(x);
    o[i * 10u + 8u] = packUint2x32(uvec2(p.y ^ 0x5a5a5a5au, p.x));
    o[i * 10u + 9u] = uint64_t(-sx + min(sx, sy)) + max(x, y);
}
