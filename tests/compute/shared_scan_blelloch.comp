#version 450
// Blelloch exclusive scan: 32 invocations scan 64 elements (up-sweep, down-sweep).
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
shared uint t[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * 64u;
    t[2u * l] = a[base + 2u * l];
    t[2u * l + 1u] = a[base + 2u * l + 1u];
    uint off = 1u;
    for (uint d = 32u; d > 0u; d >>= 1) {
        barrier();
        if (l < d) {
            uint ai = off * (2u * l + 1u) - 1u;
            uint bi = off * (2u * l + 2u) - 1u;
            t[bi] += t[ai];
        }
        off <<= 1;
    }
    if (l == 0u) t[63] = 0u;
    for (uint d = 1u; d < 64u; d <<= 1) {
        off >>= 1;
        barrier();
        if (l < d) {
            uint ai = off * (2u * l + 1u) - 1u;
            uint bi = off * (2u * l + 2u) - 1u;
            uint x = t[ai];
            t[ai] = t[bi];
            t[bi] += x;
        }
    }
    barrier();
    o[base + 2u * l] = t[2u * l];
    o[base + 2u * l + 1u] = t[2u * l + 1u];
}
