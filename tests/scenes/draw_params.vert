#version 450
#extension GL_ARB_shader_draw_parameters : require
// The draw parameters as colour codes: red the base vertex, green the base instance, blue
// 100 x the draw index (alpha from the vertex colour, so the attribute is consumed).
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 col;
layout(location = 0) out vec4 v_col;
void main() {
    gl_Position = pos;
    v_col = vec4(float(gl_BaseVertexARB) / 255.0, float(gl_BaseInstanceARB) / 255.0,
                 float(gl_DrawIDARB * 100) / 255.0, col.a);
}
