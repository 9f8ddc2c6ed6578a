//! GLSL compute shaders that read and write texel buffers (docs/render-abi.md section 7.1),
//! compiled and run on the simulated USC with the buffer views' descriptors in set memory as
//! the ICD writes them (`hw::g13::image_desc::buffer`).

use hw::g13::image_desc::buffer::TexelBufferDesc;
use hw::g13::image_desc::pixel_format;
use sim_gpu::usc::FlatMemory;
use sim_gpu::GpuMemory;

use super::sim_harness::{bytes_of, memory, set0, words, Launch, SET};
use crate::{abi, DescriptorKind, ResourceLayout};

const UNIFORM_TB: u64 = 0x40_0000;
const STORAGE_TB: u64 = 0x60_0000;
const OUT_BYTES: usize = 256;
/// Bytes mapped behind each view: more than its elements, so a read past the count would
/// find data rather than fault.
const MAPPED: usize = 0x4000;

const R32_UINT: i32 = 98;

/// Elements of the two views.
const UNIFORM_ELEMENTS: u32 = 1500;
const STORAGE_ELEMENTS: u32 = 1030;

/// Set 0: the output buffer at 0, a uniform texel buffer at 16, a storage texel buffer at 48.
fn layout() -> ResourceLayout {
    set0(&[
        (0, DescriptorKind::StorageBuffer, 1, 0),
        (1, DescriptorKind::UniformTexelBuffer, 1, 16),
        (2, DescriptorKind::StorageTexelBuffer, 1, 48),
    ])
}

const HEADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint u[64]; };
layout(set = 0, binding = 1) uniform usamplerBuffer tb;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer sb;
";

/// Memory with the two views (words `3i + 1` and `1000 + i`, then 0x5555_5555 past their
/// counts) and their descriptors.
fn world() -> FlatMemory {
    let mut mem = memory(0x100, OUT_BYTES);
    let fill = |count: u32, f: fn(usize) -> u32| {
        bytes_of(MAPPED / 4, move |i| {
            if i < count as usize {
                f(i)
            } else {
                0x5555_5555
            }
        })
    };
    mem.map(UNIFORM_TB, fill(UNIFORM_ELEMENTS, |i| 3 * i as u32 + 1));
    mem.map(STORAGE_TB, fill(STORAGE_ELEMENTS, |i| 1000 + i as u32));
    let view = |base, elements| TexelBufferDesc {
        base,
        elements,
        format: pixel_format(R32_UINT).unwrap(),
    };
    let u = view(UNIFORM_TB, UNIFORM_ELEMENTS);
    mem.write(SET + 16, &u.texture_descriptor().unwrap())
        .unwrap();
    let s = view(STORAGE_TB, STORAGE_ELEMENTS);
    mem.write(SET + 48, &s.texture_descriptor().unwrap())
        .unwrap();
    mem.write(
        SET + 48 + u64::from(abi::STORAGE_PBE_OFFSET),
        &s.pbe_descriptor().unwrap(),
    )
    .unwrap();
    mem
}

/// Compiles and runs one invocation of `body`; returns the output buffer as words.
fn run(mem: &mut FlatMemory, body: &str) -> Vec<u32> {
    Launch {
        src: &format!("{HEADER}{body}"),
        layout: &layout(),
        invocations: 1,
        out_bytes: OUT_BYTES,
    }
    .run(mem)
}

#[test]
fn fetch_and_size_of_a_uniform_texel_buffer() {
    let mut mem = world();
    let out = run(
        &mut mem,
        "void main() {
             u[0] = uint(textureSize(tb));
             u[1] = texelFetch(tb, 0).x;
             u[2] = texelFetch(tb, 1027).x;
             u[3] = texelFetch(tb, 1499).x;
             uvec4 past = texelFetch(tb, 1500);
             u[4] = past.x;
             u[5] = past.w;
             u[6] = texelFetch(tb, -1).x;
             uvec4 inside = texelFetch(tb, 7);
             u[7] = inside.y;
             u[8] = inside.w;
         }",
    );
    // Element 1027 is texel (3, 1) of the second row; past the count reads the zero texel
    // (R32_UINT's swizzle makes alpha one), never the data behind the view.
    assert_eq!(out[..9], [1500, 1, 3082, 4498, 0, 1, 0, 0, 1]);
}

#[test]
fn load_store_and_size_of_a_storage_texel_buffer() {
    let mut mem = world();
    let out = run(
        &mut mem,
        "void main() {
             u[0] = uint(imageSize(sb));
             u[1] = imageLoad(sb, 5).x;
             imageStore(sb, 1029, uvec4(77u));
             imageStore(sb, 1030, uvec4(88u));
             imageStore(sb, 4000, uvec4(99u));
             u[2] = imageLoad(sb, 1029).x;
             u[3] = imageLoad(sb, 1030).x;
         }",
    );
    assert_eq!(out[..4], [1030, 1005, 77, 0]);
    let mut b = vec![0u8; MAPPED];
    mem.read(STORAGE_TB, &mut b).unwrap();
    let w = words(&b);
    assert_eq!(w[1029], 77);
    // Stores past the count are dropped.
    assert_eq!(w[1030], 0x5555_5555);
    assert_eq!(w[4000], 0x5555_5555);
}
