#version 450
// gl_SampleMask keeps sample (x + 2y) % 4 and sample 3 of pixel (x, y); red is the share of
// the pixel's samples gl_SampleMaskIn says the primitive covers.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    int x = int(gl_FragCoord.x), y = int(gl_FragCoord.y);
    gl_SampleMask[0] = (1 << ((x + 2 * y) & 3)) | 8;
    o = vec4(float(bitCount(gl_SampleMaskIn[0])) / 4.0, v_col.g, 0.0, 1.0);
}
