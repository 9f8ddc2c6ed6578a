//! GLSL compute shaders that reach memory through buffer device addresses
//! (GL_EXT_buffer_reference: SPIR-V physical storage buffer pointers), compiled and run on the
//! simulated USC. The addresses sit in the output buffer, as an application would put them in
//! a buffer or push constants.

use sim_gpu::usc::FlatMemory;
use sim_gpu::GpuMemory;

use super::sim_harness::{bytes_of, memory, set0, words, Launch, OUT};
use crate::DescriptorKind;

/// A region of words `100 + i` reached only by address.
const DATA: u64 = 0x30_0000;
const DATA_WORDS: usize = 256;
/// A linked list of three nodes {next, value} reached only by address.
const LIST: u64 = 0x38_0000;
const OUT_BYTES: usize = 512;

const HEADER: &str = "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 4) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Data { uint v[]; };
layout(buffer_reference) buffer Node;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Node { Node next; uint value; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Vec3s { uvec3 x[]; };
layout(set = 0, binding = 0) buffer B { Data d; Node head; uvec2 raw; uint u[]; };
";

/// Memory with DATA, a three-node list at LIST (values 7, 8, 9, the last `next` null), and
/// the output buffer's first words: DATA's address, the list's, DATA's again as a uvec2.
fn world() -> FlatMemory {
    let mut mem = memory(0x100, OUT_BYTES);
    mem.map(DATA, bytes_of(DATA_WORDS, |i| 100 + i as u32));
    let mut list = Vec::new();
    for k in 0..3u64 {
        let next = if k < 2 { LIST + 16 * (k + 1) } else { 0 };
        list.extend_from_slice(&next.to_le_bytes());
        list.extend_from_slice(&(7 + k as u32).to_le_bytes());
        list.extend_from_slice(&[0; 4]);
    }
    mem.map(LIST, list);
    mem.write(OUT, &DATA.to_le_bytes()).unwrap();
    mem.write(OUT + 8, &LIST.to_le_bytes()).unwrap();
    mem.write(OUT + 16, &DATA.to_le_bytes()).unwrap();
    mem
}

fn run(mem: &mut FlatMemory, body: &str) -> Vec<u32> {
    let out = Launch {
        src: &format!("{HEADER}{body}"),
        layout: &set0(&[(0, DescriptorKind::StorageBuffer, 1, 0)]),
        invocations: 4,
        out_bytes: OUT_BYTES,
    }
    .run(mem);
    // u[] starts after the two pointers and the uvec2.
    out[6..].to_vec()
}

fn data(mem: &FlatMemory) -> Vec<u32> {
    let mut b = vec![0u8; DATA_WORDS * 4];
    mem.read(DATA, &mut b).unwrap();
    words(&b)
}

#[test]
fn loads_stores_and_atomics_through_an_address() {
    let mut mem = world();
    let out = run(
        &mut mem,
        "void main() {
             uint i = gl_LocalInvocationID.x;
             u[i] = d.v[i * 3u + 1u];
             d.v[200u + i] = i * 11u;
             atomicAdd(d.v[250], i + 1u);
             // Pointer arithmetic: a Data 64 bytes further on.
             Data e = Data(uint64_t(d) + 64ul);
             u[4u + i] = e.v[i];
         }",
    );
    assert_eq!(out[..8], [101, 104, 107, 110, 116, 117, 118, 119]);
    let w = data(&mem);
    assert_eq!(w[200..204], [0, 11, 22, 33]);
    assert_eq!(w[250], 350 + 1 + 2 + 3 + 4);
}

#[test]
fn pointers_in_memory_and_in_phis() {
    let mut mem = world();
    let out = run(
        &mut mem,
        "void main() {
             uint i = gl_LocalInvocationID.x;
             // Walk the list: a pointer loaded from memory, carried around a loop.
             uint sum = 0u;
             uint n = 0u;
             for (Node p = head; uint64_t(p) != 0ul; p = p.next) {
                 sum += p.value;
                 n++;
             }
             u[i] = sum * 16u + n;
             // Store a pointer: the list's second node becomes the head.
             if (i == 0u) { head = head.next; }
         }",
    );
    assert_eq!(out[..4], [24 * 16 + 3; 4]);
    let mut b = [0u8; 8];
    mem.read(OUT + 8, &mut b).unwrap();
    assert_eq!(u64::from_le_bytes(b), LIST + 16);
}

#[test]
fn pointers_as_uvec2_and_indexed_pointers() {
    let mut mem = world();
    let out = run(
        &mut mem,
        "void main() {
             uint i = gl_LocalInvocationID.x;
             Data p = Data(raw);
             u[i] = p.v[i + 10u];
             uvec2 back = uvec2(d);
             u[4u + i] = back.x ^ uint(DATA_LO) | (back.y << 16);
             // A scalar-layout uvec3 array: 12-byte elements, most straddling 16 bytes.
             Vec3s s = Vec3s(uint64_t(d) + 4ul);
             u[8u + i] = s.x[i].y;
         }"
        .replace("DATA_LO", &format!("{}u", DATA as u32))
        .as_str(),
    );
    assert_eq!(out[..4], [110, 111, 112, 113]);
    assert_eq!(out[4..8], [0; 4]);
    // Element i of the vec3 view starts at byte 4 + 12 i: its y is word 2 + 3 i.
    assert_eq!(out[8..12], [102, 105, 108, 111]);
}
