#version 450
// else-if chains on floats, divergent per lane, with integer results so no rounding matters.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float f = a[i];
    int r = 0;
    if (f < 0.0) {
        if (f < -10.0) {
            r = f < -50.0 ? -3 : -2;
        } else if (f < -1.0) {
            r = int(f) * 10;
        } else {
            r = -1;
        }
    } else {
        if (f > 10.0) {
            if (f > 50.0) { r = 3; } else { r = int(f) + 100; }
        } else {
            r = (f == 0.0) ? 555 : int(f * 2.0);
        }
    }
    o[i] = r;
}
