#version 450
// The interpolated colour as unsigned integers, rounded: flat-coloured draws of whole
// numbers give those numbers exactly.
layout(location = 0) in vec4 v_col;
layout(location = 0) out uvec4 o;
void main() {
    o = uvec4(round(v_col));
}
