#version 450
// Samples the texture at v_col.xy (implicit LOD).
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    o = texture(tex, v_col.xy);
}
