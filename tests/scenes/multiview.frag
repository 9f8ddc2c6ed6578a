#version 450
#extension GL_EXT_multiview : require
// Each view writes its own channel order (view 0 as given, 1 rotated once, 2 twice), so a
// layer rendered with another view's index is told apart.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    if (gl_ViewIndex == 0) {
        o = v_col;
    } else if (gl_ViewIndex == 1) {
        o = v_col.gbra;
    } else {
        o = v_col.brga;
    }
}
