#version 450
// return from inside a loop: linear search.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer T { uint table[32]; };
layout(std430, binding = 1) readonly buffer K { uint key[]; };
layout(std430, binding = 2) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    for (uint j = 0u; j < 32u; j++) {
        if (table[j] == key[i]) {
            o[i] = j;
            return;
        }
    }
    o[i] = 0xffffffffu;
}
