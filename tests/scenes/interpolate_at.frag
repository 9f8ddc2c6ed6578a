#version 450
// interpolateAtOffset and interpolateAtSample of inputs that change by about a radian per
// pixel; sin / cos keep points a fraction of a pixel apart visibly different.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    float a = interpolateAtOffset(v_col.r, vec2(0.3125, -0.25));
    float b = interpolateAtSample(v_col.g, 3);
    o = vec4(0.5 + 0.5 * sin(a), 0.5 + 0.5 * cos(b), 0.0, 1.0);
}
