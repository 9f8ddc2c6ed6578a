#version 450
// Position in clip space and a colour, passed through; points are one pixel.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos;
    gl_PointSize = 1.0;
    v_col = col;
}
