#version 450
// Two UNORM targets with different blend states; the second gets the colour swizzled.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() {
    o0 = v_col;
    o1 = v_col.bgra;
}
