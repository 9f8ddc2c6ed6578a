#version 450
// An integer colour attribute: its 8-bit codes become the UNORM8 output exactly.
layout(location = 0) in vec4 pos;
layout(location = 1) in uvec4 col;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos;
    v_col = vec4(col) / 255.0;
}
