#version 450
// Keeps 4x4 checkerboard cells only.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (((p.x ^ p.y) & 4) != 0) {
        discard;
    }
    o = v_col;
}
