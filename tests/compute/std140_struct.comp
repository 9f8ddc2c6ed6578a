#version 450
// std140 arrays of structs (stride rounded to 16), ivec3 followed by int, then a vec2.
layout(local_size_x = 4) in;
struct S { vec2 p; float w; };
layout(std140, binding = 0) uniform U {
    S s[3];      // offset 0, stride 16
    ivec3 iv;    // offset 48
    int k;       // offset 60
    vec2 tail;   // offset 64
};
layout(std430, binding = 1) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    if (i < 3u) {
        o[i] = s[i].p.x * s[i].w + s[i].p.y;
    } else {
        o[3] = float(iv.x + iv.y * 2 + iv.z * 3 + k);
        o[4] = tail.x - tail.y;
    }
}
