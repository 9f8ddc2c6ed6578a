#version 450
// One stage of a three-dispatch chain; each stage reads what other workgroups wrote before.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint stage; } pc;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 1) buffer B { uint b[]; };
layout(std430, binding = 2) buffer C { uint c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = a.length();
    if (pc.stage == 0u) {
        b[i] = a[i] * 3u + 1u;
    } else if (pc.stage == 1u) {
        c[i] = b[i] + b[(i + 65u) % n];
    } else {
        a[i] = c[n - 1u - i] ^ c[i];
    }
}
