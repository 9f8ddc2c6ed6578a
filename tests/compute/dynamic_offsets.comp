#version 450
// Storage and uniform buffers bound with dynamic offsets.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer In { uint v[]; } src;
layout(std140, binding = 1) uniform U { uvec4 k[4]; };
layout(std430, binding = 2) buffer Out { uint v[]; } dst;
void main() {
    uint i = gl_GlobalInvocationID.x;
    dst.v[i] = src.v[i] * 2u + k[i % 4u].x + k[i % 4u].w + uint(src.v.length());
}
