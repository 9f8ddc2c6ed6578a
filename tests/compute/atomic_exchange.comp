#version 450
// atomicExchange chain on one word: the returned values and the final value together
// are a permutation of the initial value and every invocation's token.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { uint slot; uint got[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    got[i] = atomicExchange(slot, i + 1u);
}
