#version 450
// An output block whose members carry their own locations and components (the fragment
// shader declares the same slots in another order), and an output array written at
// dynamic indices.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) out Block {
    layout(location = 3, component = 1) float g;
    layout(location = 3, component = 2) vec2 ba;
    layout(location = 1) flat vec3 f;
    float r;
} o;
layout(location = 4) out vec4 arr[3];
void main() {
    gl_Position = pos;
    o.r = col.r;
    o.g = col.g;
    o.ba = col.ba;
    o.f = col.rgb * 0.5;
    for (int i = 0; i < 3; i++) {
        arr[i] = col * float(i + 1) * 0.25;
    }
}
