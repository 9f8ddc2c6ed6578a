#version 450
// The slots io_blocks.vert writes, as an input block laid out by member locations, and an
// input array read at a dynamic index (a third of the width each).
layout(location = 1) in Inputs {
    flat vec3 f;
    float r;
    layout(location = 3, component = 1) float g;
    layout(location = 3, component = 2) vec2 ba;
} v;
layout(location = 4) in vec4 arr[3];
layout(location = 0) out vec4 o;
void main() {
    int i = min(int(gl_FragCoord.x) / 22, 2);
    o = vec4(v.r - v.f.x, v.g - v.f.y, v.ba.x - v.f.z, v.ba.y) * 0.5 + arr[i] * 0.5;
}
