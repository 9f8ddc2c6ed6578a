#version 450
// The depth of a depth input attachment, as red.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput depth;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    // v_col is white.
    o = vec4(subpassLoad(depth).x, 0.0, 0.0, 1.0) * v_col;
}
