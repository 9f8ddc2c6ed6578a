#version 450
// Two dispatches ordered by an event: the second reverses and scales the first's output.
layout(local_size_x = 32) in;
layout(push_constant) uniform P { uint stage; } pc;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) buffer B { uint b[]; };
layout(std430, binding = 2) writeonly buffer C { uint c[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint n = a.length();
    if (pc.stage == 0u) b[i] = a[i] + i;
    else c[i] = b[n - 1u - i] * 5u;
}
