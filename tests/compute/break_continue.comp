#version 450
// continue and break with data-dependent conditions.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer L { uint lim[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = a.length();
    uint s = 0u;
    uint j;
    for (j = 0u; j < 64u; j++) {
        if (j % 3u == i % 3u) continue;
        s += a[(i + j) % n];
        if (s > lim[i]) break;
    }
    o[i * 2] = s;
    o[i * 2 + 1] = j;
}
