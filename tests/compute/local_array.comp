#version 450
// A private float[16] written and read at data-dependent indices.
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { float base[]; };
layout(std430, binding = 1) readonly buffer I { uint idx[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float arr[16];
    for (int k = 0; k < 16; k++) arr[k] = float(k) + base[i];
    uint j = idx[i] & 15u;
    uint k = (idx[i] >> 4) & 15u;
    arr[k] = 99.0;
    o[i * 3] = arr[j];
    o[i * 3 + 1] = arr[(j * 7u) & 15u] + arr[k];
    float s = 0.0;
    for (int m = 0; m < 16; m++) s += arr[m];
    o[i * 3 + 2] = s;
}
