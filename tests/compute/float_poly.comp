#version 450
// Horner evaluation of a cubic, where a driver may fuse multiply-adds.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float t = x[i];
    o[i] = ((0.25 * t - 1.5) * t + 2.0) * t - 0.75;
}
