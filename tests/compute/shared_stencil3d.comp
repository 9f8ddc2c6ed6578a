#version 450
// 3D local size 4x4x4: each invocation sums its in-tile neighbours through shared memory.
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
shared uint t[4][4][4];
void main() {
    uvec3 l = gl_LocalInvocationID;
    uvec3 g = gl_GlobalInvocationID;
    uvec3 ext = gl_NumWorkGroups * gl_WorkGroupSize;
    uint idx = (g.z * ext.y + g.y) * ext.x + g.x;
    t[l.z][l.y][l.x] = a[idx];
    barrier();
    uint s = t[l.z][l.y][l.x] * 6u;
    if (l.x > 0u) s += t[l.z][l.y][l.x - 1u];
    if (l.x < 3u) s += t[l.z][l.y][l.x + 1u];
    if (l.y > 0u) s += t[l.z][l.y - 1u][l.x];
    if (l.y < 3u) s += t[l.z][l.y + 1u][l.x];
    if (l.z > 0u) s += t[l.z - 1u][l.y][l.x];
    if (l.z < 3u) s += t[l.z + 1u][l.y][l.x];
    o[idx] = s;
}
