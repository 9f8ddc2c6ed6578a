#version 450
// A colour target and an integer target with the pixel position.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out uvec4 o1;
void main() {
    o0 = v_col;
    o1 = uvec4(uint(gl_FragCoord.x), uint(gl_FragCoord.y), 7u, 0xdeadbeefu);
}
