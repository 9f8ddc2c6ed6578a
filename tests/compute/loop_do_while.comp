#version 450
// do-while loop: decimal digit sum and digit count.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint x = a[i];
    uint s = 0u, n = 0u;
    do {
        s += x % 10u;
        x /= 10u;
        n++;
    } while (x != 0u);
    o[i * 2] = s;
    o[i * 2 + 1] = n;
}
