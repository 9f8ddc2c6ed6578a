#version 450
// Functions calling functions, returning structs and writing out vectors.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
struct Pair { int lo; int hi; };
Pair minmax(int x, int y) { return Pair(min(x, y), max(x, y)); }
int span(Pair p) { return p.hi - p.lo; }
void stats(int x, int y, int z, out ivec2 lohi, out int total) {
    Pair p = minmax(x, y);
    Pair q = minmax(p.hi, z);
    Pair r = minmax(p.lo, q.lo);
    lohi = ivec2(r.lo, q.hi);
    total = span(p) + span(q) + span(r);
}
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec2 lh;
    int t;
    stats(a[i * 3], a[i * 3 + 1], a[i * 3 + 2], lh, t);
    o[i * 3] = lh.x;
    o[i * 3 + 1] = lh.y;
    o[i * 3 + 2] = t;
}
