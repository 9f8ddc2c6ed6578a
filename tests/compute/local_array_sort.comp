#version 450
// Insertion sort in a private int[8]: dynamic indexing for reads and writes.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int v[8];
    for (int k = 0; k < 8; k++) v[k] = a[i * 8u + uint(k)];
    for (int k = 1; k < 8; k++) {
        int key = v[k];
        int j = k - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = key;
    }
    for (int k = 0; k < 8; k++) o[i * 8u + uint(k)] = v[k];
}
