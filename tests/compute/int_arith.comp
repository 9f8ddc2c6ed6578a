#version 450
// Signed integer arithmetic with wrap-around.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    o[i * 6 + 0] = x + y;
    o[i * 6 + 1] = x - y;
    o[i * 6 + 2] = x * y;
    o[i * 6 + 3] = -x;
    o[i * 6 + 4] = x * 3 - y * 7;
    o[i * 6 + 5] = (x + y) * (x - y);
}
