#version 450
// Pixel-rate shading of a multisampled input attachment: the sample read is x mod 4.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS prev;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    // v_col is white: the product is exact.
    o = subpassLoad(prev, int(gl_FragCoord.x) & 3) * v_col;
}
