#version 450
// Depth and stencil of one depth/stencil input attachment, through a depth view and a
// stencil view bound to the same input attachment index.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput depth;
layout(input_attachment_index = 0, set = 0, binding = 1) uniform usubpassInput stencil;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    // v_col is white.
    o = vec4(subpassLoad(depth).x, float(subpassLoad(stencil).x) / 255.0, 0.0, 1.0) * v_col;
}
