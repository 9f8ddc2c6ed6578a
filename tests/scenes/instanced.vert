#version 450
// Per-vertex position; per-instance offset (clip units) and colour.
layout(location = 0) in vec4 pos;
layout(location = 2) in vec2 offset;
layout(location = 3) in vec4 icol;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos + vec4(offset, 0.0, 0.0);
    v_col = icol;
}
