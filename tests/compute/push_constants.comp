#version 450
// Push constants with a vec4, uint, int, float and a mode selecting the output half.
layout(local_size_x = 16) in;
layout(push_constant) uniform P {
    vec4 scale;
    uint count;
    int offset;
    float bias;
    uint mode;
} pc;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) buffer O { float o[]; };
layout(std430, binding = 2) buffer Q { int q[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uint at = pc.mode * 64u + i;
    o[at] = a[i] * pc.scale[i % 4u] + pc.bias;
    q[at] = int(i) + pc.offset;
}
