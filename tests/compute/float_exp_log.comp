#version 450
// sqrt, inversesqrt, exp2, log2, pow.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float a = x[i], b = y[i];
    o[i * 5] = sqrt(a);
    o[i * 5 + 1] = inversesqrt(a);
    o[i * 5 + 2] = exp2(b);
    o[i * 5 + 3] = log2(a);
    o[i * 5 + 4] = pow(a, b);
}
