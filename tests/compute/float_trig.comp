#version 450
// sin and cos on [-pi, pi].
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i * 2] = sin(x[i]);
    o[i * 2 + 1] = cos(x[i]);
}
