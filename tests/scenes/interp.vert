#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) smooth out vec4 v_smooth;
layout(location = 1) noperspective out vec4 v_linear;
layout(location = 2) flat out vec4 v_flat;
void main() {
    gl_Position = pos;
    v_smooth = col;
    v_linear = col;
    v_flat = col;
}
