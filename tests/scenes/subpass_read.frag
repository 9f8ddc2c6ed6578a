#version 450
// Reads what the first subpass wrote at this pixel and writes it swizzled.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput prev;
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    // v_col is white: the product is exact.
    o = subpassLoad(prev).gbra * v_col;
}
