#version 450
// while loop: Collatz step counts.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i] % 1000u + 1u;
    uint steps = 0u;
    while (x != 1u) {
        x = (x % 2u == 0u) ? x / 2u : 3u * x + 1u;
        steps++;
    }
    o[i] = steps;
}
