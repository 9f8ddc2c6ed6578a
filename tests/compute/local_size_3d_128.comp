#version 450
// Local size 8x4x4 = 128: local index and IDs must agree.
layout(local_size_x = 8, local_size_y = 4, local_size_z = 4) in;
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
void main() {
    uvec3 l = gl_LocalInvocationID;
    uint flat_id = gl_WorkGroupID.y * 128u + gl_LocalInvocationIndex;
    o[flat_id] = (l.x | (l.y << 8) | (l.z << 16)) ^ (gl_LocalInvocationIndex << 24);
}
