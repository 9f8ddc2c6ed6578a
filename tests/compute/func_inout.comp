#version 450
// Functions with inout and out parameters, called conditionally and in loops.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
void order(inout int x, inout int y) {
    if (x > y) { int t = x; x = y; y = t; }
}
void divmod(uint n, uint d, out uint q, out uint r) {
    q = n / d;
    r = n - q * d;
}
int bump(inout int acc, int v) {
    int old = acc;
    acc += v;
    return old;
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i * 2], y = a[i * 2 + 1];
    order(x, y);
    uint q, r;
    divmod(uint(y - x), 7u, q, r);
    int acc = 0;
    int last = 0;
    for (int k = 0; k < int(r) + 1; k++) {
        last = bump(acc, k * x);
    }
    o[i * 5 + 0] = x;
    o[i * 5 + 1] = y;
    o[i * 5 + 2] = int(q);
    o[i * 5 + 3] = acc;
    o[i * 5 + 4] = last;
}
