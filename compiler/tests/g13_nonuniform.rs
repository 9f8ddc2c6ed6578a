//! Descriptor indexing in the front end (SPV_EXT_descriptor_indexing): a runtime-sized array
//! of storage buffers indexed with a different, non-uniform index in each lane. Each lane
//! reads its own buffer descriptor, so the NonUniform mark needs no lowering.

mod common;

use common::usc::{as_u32, run};

const SRC: &str = "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, std430) buffer In { uint v[]; } ins[];
layout(set = 0, binding = 3, std430) buffer Out { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    o[i] = ins[nonuniformEXT(i % 3u)].v[i];
}
";

#[test]
fn each_lane_reads_the_buffer_its_own_index_names() {
    // The harness lays bindings out 16 bytes apart, so element k of binding 0's array is the
    // descriptor of buffer k.
    let input = |k: u32| common::usc::u32s(&(0..32).map(|j| 100 * k + j).collect::<Vec<_>>());
    let r = run(
        SRC,
        &[input(0), input(1), input(2), vec![0; 128]],
        [1, 1, 1],
        &[],
    )
    .expect("glslang");
    let want: Vec<u32> = (0..32).map(|i| 100 * (i % 3) + i).collect();
    assert_eq!(as_u32(&r[3]), want);
}
