#version 450
// atomicAnd/Or/Xor: set and clear one bit per invocation, xor everything together.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) buffer R { uint ors[4]; uint ands[4]; uint x; uint sum_old; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    atomicOr(ors[i / 32u], 1u << (i % 32u));
    if ((a[i] & 1u) != 0u) atomicAnd(ands[i / 32u], ~(1u << (i % 32u)));
    atomicXor(x, a[i]);
    // Whatever order the others ran in, the returned word never has this invocation's bit.
    uint before = atomicOr(ors[2u + i / 32u], 1u << (i % 32u));
    if ((before & (1u << (i % 32u))) == 0u) atomicAdd(sum_old, 1u);
}
