#version 450
// Computes a VkDispatchIndirectCommand (at word 4) for a later vkCmdDispatchIndirect;
// binding 0 belongs to the shader dispatched indirectly.
layout(local_size_x = 1) in;
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) writeonly buffer C { uint c[]; };
void main() {
    c[4] = a[0] + 1u;
    c[5] = a[1] * 2u;
    c[6] = a[2];
}
