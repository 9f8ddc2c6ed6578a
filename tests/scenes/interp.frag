#version 450
// Red is interpolated perspective-correctly, green linearly in screen space, blue flat.
layout(location = 0) smooth in vec4 v_smooth;
layout(location = 1) noperspective in vec4 v_linear;
layout(location = 2) flat in vec4 v_flat;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(v_smooth.r, v_linear.g, v_flat.b, 1.0);
}
