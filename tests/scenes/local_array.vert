#version 450
// A dynamically indexed local array (stack memory in a vertex shader): the colour's red
// channel picks a palette entry, and the colour itself is written at a dynamic index.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) flat out vec4 v_col;
void main() {
    vec4 pal[4] = vec4[4](vec4(1, 0, 0, 1), vec4(0, 1, 0, 1), vec4(0, 0, 1, 1), vec4(1, 1, 0, 1));
    int i = int(col.r * 3.0 + 0.5);
    pal[(i + 2) & 3] = col;
    gl_Position = pos;
    v_col = pal[(i + 2) & 3] * 0.5 + pal[i] * 0.5;
}
