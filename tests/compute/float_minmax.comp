#version 450
// min, max, clamp, abs, sign and fma.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float a = x[i], b = y[i];
    o[i * 6] = min(a, b);
    o[i * 6 + 1] = max(a, b);
    o[i * 6 + 2] = clamp(a, -2.0, 3.5);
    o[i * 6 + 3] = abs(a);
    o[i * 6 + 4] = sign(a);
    o[i * 6 + 5] = fma(abs(a), abs(b), 1.0);
}
