#version 450
// Each sample gets its own colour, which forces per-sample shading.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
const vec4 table[4] = vec4[4](
    vec4(1.0, 0.0, 0.0, 1.0), vec4(0.0, 1.0, 0.0, 1.0),
    vec4(0.0, 0.0, 1.0, 1.0), vec4(1.0, 1.0, 1.0, 1.0));
void main() {
    // v_col is white: the product is exact.
    o = table[gl_SampleID & 3] * v_col;
}
