#version 450
// atomicCompSwap without spinning: exactly one invocation per slot claims it; a compare
// that can never match returns the old value and leaves it.
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer F { uint flags[8]; uint wins[8]; uint losses[8]; };
layout(std430, binding = 1) buffer C { uint fixed_vals[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = i % 8u;
    uint old = atomicCompSwap(flags[k], 0u, 1u);
    if (old == 0u) atomicAdd(wins[k], 1u); else atomicAdd(losses[k], 1u);
    o[i] = atomicCompSwap(fixed_vals[i], 12345u, 7u);
}
