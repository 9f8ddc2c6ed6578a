#version 450
// ivec4/uvec4 arithmetic with swizzles.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { ivec4 a[]; };
layout(std430, binding = 1) writeonly buffer O { ivec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 v = a[i];
    ivec4 w = v.wzyx * ivec4(1, -2, 3, -4) + v.yyxx;
    uvec4 u = uvec4(v) >> uvec4(1, 2, 3, 4);
    o[i * 2] = w;
    o[i * 2 + 1] = ivec4(u) - v.xxxx;
}
