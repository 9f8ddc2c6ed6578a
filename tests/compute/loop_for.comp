#version 450
// for loop with a per-lane trip count.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = a[i] % 40u;
    uint s = 0u;
    for (uint j = 0u; j < n; j++) {
        s += (j * j) ^ i;
    }
    o[i] = s;
}
