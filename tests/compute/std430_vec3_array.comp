#version 450
// A runtime array of vec3 (stride 16 in std430) after a float, and its length().
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer In { float scale; vec3 v[]; };
layout(std430, binding = 1) writeonly buffer Len { uint len; };
layout(std430, binding = 2) writeonly buffer Out { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) len = uint(v.length());
    if (i < uint(v.length())) o[i] = dot(v[i], v[i]) * scale;
}
