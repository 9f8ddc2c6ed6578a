#version 450
// Fetches texel (pixel mod size) of level 1, with the size from textureSize (v_col is white:
// the product is exact).
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    ivec2 size = textureSize(tex, 1);
    o = texelFetch(tex, ivec2(gl_FragCoord.xy) % size, 1) * v_col;
}
