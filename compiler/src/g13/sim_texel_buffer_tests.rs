//! GLSL compute shaders that read and write texel buffers (docs/render-abi.md section 7.1),
//! compiled and run on the simulated USC with the buffer views' descriptors in set memory as
//! the ICD writes them (`hw::g13::image_desc::buffer`).

use hw::g13::image_desc::buffer::TexelBufferDesc;
use hw::g13::image_desc::pixel_format;
use hw::gpu::usc::{run_workgroups, FlatMemory, LaunchState, Program};
use hw::gpu::GpuMemory;

use super::tests::glslang;
use crate::{
    abi, BindingLayout, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout, Target,
};

const SET: u64 = 0x80_0000;
const OUT: u64 = 0x10_0000;
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
    let b = |binding, kind, offset| BindingLayout {
        binding,
        kind,
        count: 1,
        offset,
    };
    ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: vec![
                b(0, DescriptorKind::StorageBuffer, 0),
                b(1, DescriptorKind::UniformTexelBuffer, 16),
                b(2, DescriptorKind::StorageTexelBuffer, 48),
            ],
        })],
        push_constant_size: 0,
    }
}

const HEADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer B { uint u[64]; };
layout(set = 0, binding = 1) uniform usamplerBuffer tb;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer sb;
";

fn words(n: usize, f: impl Fn(usize) -> u32) -> Vec<u8> {
    (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
}

/// Memory with the two views (words `3i + 1` and `1000 + i`, then 0x5555_5555 past their
/// counts) and their descriptors.
fn world() -> FlatMemory {
    let mut mem = FlatMemory::new();
    mem.map(SET, vec![0; 0x100]);
    mem.map(OUT, vec![0; OUT_BYTES]);
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&OUT.to_le_bytes());
    d[8..12].copy_from_slice(&(OUT_BYTES as u32).to_le_bytes());
    mem.write(SET, &d).unwrap();
    let fill = |count: u32, f: fn(usize) -> u32| {
        words(MAPPED / 4, move |i| {
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
    let spirv = glslang(&format!("{HEADER}{body}")).expect("glslang");
    let bin = crate::compile_compute(&ComputeRequest {
        spirv: &spirv,
        entry_point: "main",
        specialization: &[],
        layout: &layout(),
        target: Target::G13,
    })
    .expect("compile");
    let mut at = 0;
    let mut code = Vec::new();
    while at < bin.code.len() {
        let (i, len) = hw::g13::decode(&bin.code[at..]).expect("decode");
        code.push((at as u32, i));
        at += len;
    }
    let prog = Program::new(0, code).expect("program");
    let mut launch = LaunchState::new([1, 1, 1], [1, 1, 1]);
    let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
    let o = abi::set_address_offset(0) as usize;
    root[o..o + 8].copy_from_slice(&SET.to_le_bytes());
    for (h, c) in root.chunks(2).enumerate() {
        launch.uniforms[h] = u16::from_le_bytes([c[0], c[1]]);
    }
    launch.stack_bytes = bin.scratch_bytes;
    run_workgroups(&prog, &launch, mem).expect("run");
    let mut out = vec![0u8; OUT_BYTES];
    mem.read(OUT, &mut out).unwrap();
    out.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
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
    let w: Vec<u32> = b
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[1029], 77);
    // Stores past the count are dropped.
    assert_eq!(w[1030], 0x5555_5555);
    assert_eq!(w[4000], 0x5555_5555);
}
