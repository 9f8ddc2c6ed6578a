#version 450
// std140 uniform block: vec3 followed by a packed float, float[4] at 16-byte stride, mat4.
layout(local_size_x = 1) in;
layout(std140, binding = 0) uniform U {
    vec3 a;      // offset 0
    float b;     // offset 12, packed after the vec3
    float arr[4];// offset 16, stride 16
    mat4 m;      // offset 80, column-major
    vec4 v;      // offset 144
    uvec2 u;     // offset 160
};
layout(std430, binding = 1) writeonly buffer O { float o[]; };
void main() {
    vec3 ab = a * b;
    o[0] = ab.x; o[1] = ab.y; o[2] = ab.z;
    o[3] = arr[0] + arr[1] * 10.0 + arr[2] * 100.0 + arr[3] * 1000.0;
    vec4 mv = m * v;
    o[4] = mv.x; o[5] = mv.y; o[6] = mv.z; o[7] = mv.w;
    o[8] = float(u.x + u.y);
    o[9] = m[2][1];
}
