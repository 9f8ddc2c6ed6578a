#version 450
// Each sample gets its own colour, which forces per-sample shading.
// Sample 0 red, 1 green, 2 blue, 3 white. Worked out from the index rather than read from a
// constant array: agx4 keeps dynamically indexed arrays in scratch memory, which its
// fragment shaders do not have yet.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    int id = gl_SampleID & 3;
    vec4 c = vec4(float(id == 0 || id == 3), float(id == 1 || id == 3),
                  float(id == 2 || id == 3), 1.0);
    // v_col is white: the product is exact.
    o = c * v_col;
}
