#version 450
// Nested loops whose inner trip count depends on the outer index and the data.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = a[i];
    uint acc = 1u;
    for (uint p = 0u; p < v % 7u; p++) {
        uint q = 0u;
        while (q < (p + v) % 5u) {
            acc = acc * 3u + p * q + 1u;
            q++;
        }
    }
    o[i] = acc;
}
