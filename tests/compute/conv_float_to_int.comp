#version 450
// Float to integer conversions: truncation toward zero, rounding, floor/ceil.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float f = a[i];
    o[i * 6 + 0] = int(f);
    o[i * 6 + 1] = int(uint(abs(f)));
    o[i * 6 + 2] = int(roundEven(f));
    o[i * 6 + 3] = int(floor(f));
    o[i * 6 + 4] = int(ceil(f));
    o[i * 6 + 5] = floatBitsToInt(trunc(f));
}
