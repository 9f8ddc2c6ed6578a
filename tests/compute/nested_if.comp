#version 450
// Three levels of if/else, divergent in every lane.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i];
    uint r;
    if ((x & 1u) != 0u) {
        if ((x & 2u) != 0u) {
            if ((x & 4u) != 0u) { r = x * 3u; } else { r = x + 100u; }
        } else {
            if (x > 1000u) { r = x - 1000u; } else { r = 7u; }
        }
    } else {
        if ((x & 6u) == 6u) {
            if (x % 5u == 0u) { r = 1u; } else { r = 2u + i; }
        } else {
            r = x / 2u;
            if (r > 50u) { r ^= 0xffu; }
        }
    }
    o[i] = r;
}
