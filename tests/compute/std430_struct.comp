#version 450
// std430 structs: vec3 then float in 16 bytes, an array of vec3 at stride 16, a trailing uint.
layout(local_size_x = 8) in;
struct T { vec3 p; float w; vec3 arr[2]; uint tag; };   // 64 bytes
struct R { vec3 q; uint tag2; };                         // 16 bytes
layout(std430, binding = 0) readonly buffer In { T t[]; };
layout(std430, binding = 1) writeonly buffer Out { R r[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    T x = t[i];
    r[i].q = x.p * x.w + x.arr[0] - x.arr[1];
    r[i].tag2 = x.tag * 2u + 1u;
}
