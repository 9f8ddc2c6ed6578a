#version 450
// Inputs initialised by vkCmdFillBuffer and vkCmdUpdateBuffer.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer B { uint b[]; };
layout(std430, binding = 2) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] += a[i] * 2u + b[i];
}
