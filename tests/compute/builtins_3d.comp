#version 450
// Every workgroup built-in, 16 words per invocation, placed by global ID in a 12x4x4 grid.
layout(local_size_x = 4, local_size_y = 2, local_size_z = 2) in;
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uvec3 g = gl_GlobalInvocationID;
    uint at = ((g.z * 4u + g.y) * 12u + g.x) * 16u;
    o[at + 0u] = g.x; o[at + 1u] = g.y; o[at + 2u] = g.z;
    o[at + 3u] = gl_LocalInvocationID.x; o[at + 4u] = gl_LocalInvocationID.y; o[at + 5u] = gl_LocalInvocationID.z;
    o[at + 6u] = gl_WorkGroupID.x; o[at + 7u] = gl_WorkGroupID.y; o[at + 8u] = gl_WorkGroupID.z;
    o[at + 9u] = gl_NumWorkGroups.x; o[at + 10u] = gl_NumWorkGroups.y; o[at + 11u] = gl_NumWorkGroups.z;
    o[at + 12u] = gl_LocalInvocationIndex;
    o[at + 13u] = gl_WorkGroupSize.x; o[at + 14u] = gl_WorkGroupSize.y; o[at + 15u] = gl_WorkGroupSize.z;
}
