#version 450
// Specialisation constants: the local size, a multiplier, an offset and an output base.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint MULT = 1u;
layout(constant_id = 2) const int OFFS = 0;
layout(constant_id = 3) const uint BASE = 0u;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
layout(std430, binding = 2) writeonly buffer S { uint sizes[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[BASE + i] = a[i] * int(MULT) + OFFS;
    sizes[BASE + i] = gl_WorkGroupSize.x * 1000u + gl_LocalInvocationID.x;
}
