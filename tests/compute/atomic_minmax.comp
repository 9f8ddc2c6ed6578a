#version 450
// atomicMin/atomicMax on signed and unsigned storage words.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) buffer R { int smin[8]; int smax[8]; uint umin[8]; uint umax[8]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int v = a[i];
    uint k = i % 8u;
    atomicMin(smin[k], v);
    atomicMax(smax[k], v);
    atomicMin(umin[k], uint(v));
    atomicMax(umax[k], uint(v));
}
