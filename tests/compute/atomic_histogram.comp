#version 450
// atomicAdd histogram into a storage buffer, plus a running total.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) buffer H { uint total; uint bins[16]; };
void main() {
    uint v = a[gl_GlobalInvocationID.x];
    atomicAdd(bins[v % 16u], 1u);
    atomicAdd(total, v & 0xffu);
}
