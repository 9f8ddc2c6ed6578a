#version 450
// Reads a uniform buffer at indices taken from a storage buffer.
layout(local_size_x = 16) in;
layout(std140, binding = 0) uniform T { vec4 table[16]; uvec4 salt; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = table[idx[i] & 15u];
    o[i] = v.x + v.y * 2.0 + v.z * 4.0 + v.w * 8.0 + float(salt[i % 4u]);
}
