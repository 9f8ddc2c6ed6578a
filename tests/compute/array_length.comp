#version 450
// OpArrayLength on whole buffers and on descriptors with smaller ranges.
layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer A { uvec4 hdr; vec4 d[]; } a;
layout(std430, binding = 1) readonly buffer B { uvec4 hdr; vec4 d[]; } b;
layout(std430, binding = 2) readonly buffer C { uint x[]; } c;
layout(std430, binding = 3) writeonly buffer O { uint o[]; };
void main() {
    o[0] = uint(a.d.length());
    o[1] = uint(b.d.length());
    o[2] = uint(c.x.length());
    o[3] = uint(o.length());
}
