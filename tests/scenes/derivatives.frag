#version 450
// Fine derivatives of gl_FragCoord.x * gl_FragCoord.y, which are the other coordinate of the
// pixel (+ 0.5) whatever the quad's coverage, taken in a branch every invocation takes; and
// the width of a varying that is linear on screen (w = 1), the same everywhere.
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    float f = gl_FragCoord.x * gl_FragCoord.y;
    vec2 d = vec2(0.0);
    if (gl_FragCoord.x >= 0.0) {
        d = vec2(dFdxFine(f), dFdyFine(f));
    }
    o = vec4(d / 64.0, fwidth(v_col.r) * 8.0, 1.0);
}
