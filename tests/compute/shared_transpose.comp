#version 450
// Transpose a 16x24 matrix (rows x columns) through an 8x8 shared tile.
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
const uint W = 24u, H = 16u;
shared uint tile[8][9];
void main() {
    uvec2 l = gl_LocalInvocationID.xy;
    uvec2 g = gl_GlobalInvocationID.xy;
    tile[l.y][l.x] = a[g.y * W + g.x];
    barrier();
    uint ox = gl_WorkGroupID.y * 8u + l.x;
    uint oy = gl_WorkGroupID.x * 8u + l.y;
    o[oy * H + ox] = tile[l.x][l.y];
}
