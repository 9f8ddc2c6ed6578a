#version 450
// Six RGBA32F targets: 96 bytes a pixel, more than the tilebuffer's 64, so the last ones
// live in memory. Each target gets the colour scaled by its own factor.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
void main() {
    o0 = v_col;
    o1 = v_col * 2.0;
    o2 = v_col * 3.0;
    o3 = v_col * 4.0;
    o4 = v_col * 5.0;
    o5 = v_col * 6.0;
}
