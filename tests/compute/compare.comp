#version 450
// Integer, unsigned and float comparisons packed into a bit mask.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    uint ux = uint(x), uy = uint(y);
    float fx = float(x % 8), fy = float(y % 8);
    uint m = 0u;
    m |= (x < y) ? 1u : 0u;
    m |= (x <= y) ? 2u : 0u;
    m |= (x == y) ? 4u : 0u;
    m |= (x != y) ? 8u : 0u;
    m |= (ux < uy) ? 16u : 0u;
    m |= (ux >= uy) ? 32u : 0u;
    m |= (fx < fy) ? 64u : 0u;
    m |= (fx >= fy) ? 128u : 0u;
    m |= (fx == fy) ? 256u : 0u;
    m |= (x > y) ? 512u : 0u;
    o[i] = m;
}
