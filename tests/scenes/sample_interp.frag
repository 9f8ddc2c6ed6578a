#version 450
// A `sample` input is taken at each sample's position. Red and green change by about a
// radian per pixel, and sin/cos of them keep the four samples' average away from the value
// at the pixel centre, so per-pixel interpolation would show in the resolved image.
layout(location = 0) sample in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(0.5 + 0.5 * sin(v_col.r), 0.5 + 0.5 * cos(v_col.g), 0.0, 1.0);
}
