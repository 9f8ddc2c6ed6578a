#version 450
// A dynamically indexed local array (stack memory in a fragment shader): blue is an 8-step
// ramp over 8-pixel columns, inverted where the column index equals the row index.
layout(location = 0) flat in vec4 v_col;
layout(location = 0) out vec4 o;
void main() {
    float ramp[8];
    for (int k = 0; k < 8; k++) {
        ramp[k] = float(k) / 7.0;
    }
    int x = int(gl_FragCoord.x) / 8;
    int y = int(gl_FragCoord.y) / 8;
    ramp[y & 7] = 1.0 - ramp[y & 7];
    o = vec4(v_col.rg, ramp[x & 7], 1.0);
}
