#version 450
// Tree reduction in shared memory, one sum per workgroup of 128.
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
shared uint s[128];
void main() {
    uint l = gl_LocalInvocationID.x;
    s[l] = a[gl_GlobalInvocationID.x];
    barrier();
    for (uint stride = 64u; stride > 0u; stride >>= 1) {
        if (l < stride) s[l] += s[l + stride];
        barrier();
    }
    if (l == 0u) o[gl_WorkGroupID.x] = s[0];
}
