#version 450
// return from main in divergent code; skipped outputs keep the filled value.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i];
    if (x % 3u == 0u) return;
    o[i * 2] = x * 2u;
    if (x % 5u == 0u) {
        return;
    }
    o[i * 2 + 1] = x + 1u;
}
