#version 450
// Signed division with negative operands (OpSDiv truncates toward zero) and the truncated
// remainder built from it. GLSL leaves % undefined for negative operands (glslang emits
// OpSMod; lavapipe 22.3 computes a truncated remainder there), so % only sees magnitudes.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    o[i * 3] = x / y;
    o[i * 3 + 1] = abs(x) % abs(y);
    o[i * 3 + 2] = x - y * (x / y);
}
