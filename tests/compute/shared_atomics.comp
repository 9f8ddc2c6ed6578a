#version 450
// Shared-memory atomics: per-group histogram, min, max and an exchange.
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
shared uint bins[8];
shared int lo;
shared int hi;
shared uint orbits;
void main() {
    uint l = gl_LocalInvocationID.x;
    if (l < 8u) bins[l] = 0u;
    if (l == 0u) { lo = 0x7fffffff; hi = int(0x80000000); orbits = 0u; }
    barrier();
    int v = a[gl_GlobalInvocationID.x];
    atomicAdd(bins[uint(v) % 8u], 1u);
    atomicMin(lo, v);
    atomicMax(hi, v);
    atomicOr(orbits, 1u << (uint(v) % 32u));
    barrier();
    uint base = gl_WorkGroupID.x * 11u;
    if (l < 8u) o[base + l] = int(bins[l]);
    if (l == 0u) { o[base + 8u] = lo; o[base + 9u] = hi; o[base + 10u] = int(orbits); }
}
