#version 450
// Points whose size is the colour's alpha x 255 (so a code is a size in pixels), drawn in
// the colour's opaque RGB.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos;
    gl_PointSize = col.a * 255.0;
    v_col = vec4(col.rgb, 1.0);
}
