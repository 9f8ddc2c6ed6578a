#version 450
// The fragment's depth as red (gl_FragCoord.z includes any depth bias); alpha from the
// vertex colour, so the vertex shader's output is consumed.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(gl_FragCoord.z, 0.0, 0.0, v_col.a);
}
