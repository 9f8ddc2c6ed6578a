#version 450
// gl_PointCoord as colour: one-pixel points are sampled at their centre, (0.5, 0.5).
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(gl_PointCoord, v_col.b, 1.0);
}
