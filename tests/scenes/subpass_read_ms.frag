#version 450
// Reads the sample being shaded of the multisampled input attachment (per-sample shading)
// and writes it swizzled.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS prev;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    o = subpassLoad(prev, gl_SampleID).gbra * v_col;
}
