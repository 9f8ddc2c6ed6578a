#version 450
// Hillis-Steele inclusive prefix sum over 64 elements, double-buffered in shared memory.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
shared uint buf[2][64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint src = 0u;
    buf[0][l] = a[gl_GlobalInvocationID.x];
    barrier();
    for (uint off = 1u; off < 64u; off <<= 1) {
        uint v = buf[src][l];
        if (l >= off) v += buf[src][l - off];
        buf[1u - src][l] = v;
        barrier();
        src = 1u - src;
    }
    o[gl_GlobalInvocationID.x] = buf[src][l];
}
