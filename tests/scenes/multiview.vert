#version 450
#extension GL_EXT_multiview : require
// basic.vert with each view's geometry moved right by 0.5 in clip space per view index (a
// quarter of the framebuffer's width), so every layer shows where its view put it.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos + vec4(0.5 * float(gl_ViewIndex), 0.0, 0.0, 0.0);
    v_col = col;
}
