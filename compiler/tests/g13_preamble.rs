//! The uniform preamble (`passes::preamble`) on the simulated USC: what it takes out of the
//! main shader, that its results reach the main shader through the uniform file, and that
//! it never runs a load the shader would have skipped.

mod common;

use common::usc::{as_u32, run_spirv_kinds, u32s};
use compiler::abi;
use compiler::BufferRobustness::{Checked, Unchecked};
use compiler::DescriptorKind::{StorageBuffer, UniformBuffer};

fn floats(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn as_f32(b: &[u8]) -> Vec<f32> {
    as_u32(b).into_iter().map(f32::from_bits).collect()
}

/// Uniform-buffer words and the arithmetic on them and on push constants run once, in the
/// preamble; the main shader reads the results as uniforms and loads nothing from the UBO.
#[test]
fn uniform_buffer_values_come_from_the_preamble() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std140, set = 0, binding = 0) uniform U { vec4 scale; uint n; };
layout(std430, set = 0, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform P { float bias; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float f = scale.x * scale.y, g = bias * scale.z;
    if (i < n)
        o[i] = o[i] * f + g;
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    let mut ubo = floats(&[1.5, -2.0, 0.25, 9.0]);
    ubo.extend(u32s(&[50]));
    ubo.resize(32, 0);
    let o: Vec<f32> = (0..64).map(|k| k as f32 - 7.0).collect();
    let push = floats(&[3.0]);
    let (r, bin) = run_spirv_kinds(
        &spirv,
        (&[UniformBuffer, StorageBuffer], Unchecked),
        &[ubo, floats(&o)],
        [2, 1, 1],
        &push,
    );
    let want: Vec<f32> = o
        .iter()
        .enumerate()
        .map(|(k, &x)| {
            if k < 50 {
                x * (1.5 * -2.0) + 3.0 * 0.25
            } else {
                x
            }
        })
        .collect();
    assert_eq!(as_f32(&r[1]), want);

    let p = bin.preamble.expect("a preamble");
    assert!(p.result_halves >= 4, "{p:?}");
    assert!(bin.stats.preamble_instructions > 0);
    let main = decode(bin.main_code());
    // The UBO's address is at set offset 0: the main shader does not read through it.
    assert_eq!(main_loads(&bin), 1, "only o[i] is loaded: {main:?}");
    assert!(main
        .iter()
        .all(|i| !matches!(i, hw::isa::Instr::UniformStore(_))));
    let pre = decode(bin.preamble_code().expect("preamble code"));
    assert!(pre
        .iter()
        .any(|i| matches!(i, hw::isa::Instr::UniformStore(_))));
}

/// A uniform-buffer load that only some invocations reach, past the bound memory here (the
/// simulated memory faults if anything reads it), must not fault when the preamble runs it
/// for the whole launch.
#[test]
fn loads_behind_a_branch_never_read_past_the_range() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std140, set = 0, binding = 0) uniform U { uint n; uint pad[3]; uvec4 far[8]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i == 1000u)
        o[0] = far[7].w;
    o[i] = i * n + (n ^ 5u);
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    // Only the first 16 bytes of the block exist.
    let ubo = u32s(&[6, 0, 0, 0]);
    let (r, bin) = run_spirv_kinds(
        &spirv,
        (&[UniformBuffer, StorageBuffer], Unchecked),
        &[ubo, vec![0; 32 * 4]],
        [1, 1, 1],
        &[],
    );
    let want: Vec<u32> = (0..32).map(|i| i * 6 + (6 ^ 5)).collect();
    assert_eq!(as_u32(&r[1]), want);
    // `n ^ 5` is still worth computing once.
    assert!(bin.preamble.is_some());
}

/// Storage buffers are not read in the preamble: other invocations may write them.
#[test]
fn storage_buffer_loads_are_not_hoisted() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    a[i + 1u] = a[0] * 3u + i;
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    for robustness in [Unchecked, Checked] {
        let (r, bin) = run_spirv_kinds(
            &spirv,
            (&[StorageBuffer], robustness),
            &[u32s(&[7; 33])],
            [1, 1, 1],
            &[],
        );
        // With robustness, the range checks' arithmetic on the descriptor's size is uniform
        // and may move; the load may not.
        let pre = bin.preamble_code().map(decode).unwrap_or_default();
        assert!(
            !pre.iter()
                .any(|i| matches!(i, hw::isa::Instr::DeviceMem(_))),
            "{pre:?}"
        );
        let a = as_u32(&r[0]);
        assert_eq!(a[1], 21);
        assert_eq!(a[32], 7 * 3 + 31);
    }
}

/// With robustness the uniform buffer's loads are checked, under `if`s: the preamble reads
/// them behind its own range test, and the results are the same.
#[test]
fn checked_uniform_buffer_loads_give_the_same_results() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std140, set = 0, binding = 0) uniform U { uint k; uint m; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = i * (k + m) + (k ^ m);
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    for robustness in [Unchecked, Checked] {
        let (r, bin) = run_spirv_kinds(
            &spirv,
            (&[UniformBuffer, StorageBuffer], robustness),
            &[u32s(&[9, 4, 0, 0]), vec![0; 32 * 4]],
            [1, 1, 1],
            &[],
        );
        let want: Vec<u32> = (0..32).map(|i| i * 13 + (9 ^ 4)).collect();
        assert_eq!(as_u32(&r[1]), want, "{robustness:?}");
        // Checked or not, the words are read once, by the preamble (checked ones behind
        // its range test).
        let loads = main_loads(&bin);
        assert_eq!(loads, 0, "{robustness:?}");
    }
}

/// A uniform-buffer load behind a branch moves to the preamble with a range test: inside
/// the range it reads the word, so invocations that take the branch see it; past the range
/// (the 16 bytes that exist here) it reads a word that is always there instead.
#[test]
fn loads_behind_a_branch_are_range_tested_in_the_preamble() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std140, set = 0, binding = 0) uniform U { uint k; uint m; uint pad[2]; uvec4 far[8]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if ((i & 1u) == 1u)
        o[i] = m * 3u + i;
    else if (i == 1000u)
        o[i] = far[7].w;
    else
        o[i] = k;
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    let (r, bin) = run_spirv_kinds(
        &spirv,
        (&[UniformBuffer, StorageBuffer], Unchecked),
        &[u32s(&[6, 11, 0, 0]), vec![0; 32 * 4]],
        [1, 1, 1],
        &[],
    );
    let want: Vec<u32> = (0..32)
        .map(|i| if i & 1 == 1 { 33 + i } else { 6 })
        .collect();
    assert_eq!(as_u32(&r[1]), want);
    let loads = main_loads(&bin);
    assert_eq!(loads, 0, "the words come from the preamble");
}

/// The instructions of `code`.
fn decode(code: &[u8]) -> Vec<hw::isa::Instr> {
    common::usc::decode(code)
        .into_iter()
        .map(|(_, i)| i)
        .collect()
}

/// Device loads in the binary's main shader.
fn main_loads(bin: &compiler::ComputeBinary) -> usize {
    decode(bin.main_code())
        .iter()
        .filter(|i| matches!(i, hw::isa::Instr::DeviceMem(m) if !m.store))
        .count()
}

/// A storage buffer the shader only reads (readonly, not aliased) does not change during
/// the launch: its words at uniform offsets are read once, by the preamble. One that a
/// second variable of the same binding writes is read by every invocation.
#[test]
fn read_only_storage_buffers_are_read_in_the_preamble() {
    let read_only = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = i * a[0] + a[1] * 3u;
}
"#;
    let aliased = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 0) buffer W { uint w[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = i * a[0] + a[1] * 3u;
    w[i + 2u] = i;
}
"#;
    for (src, hoisted) in [(read_only, true), (aliased, false)] {
        let Some(spirv) = common::glslang(src) else {
            return;
        };
        let mut a = vec![5u32, 7];
        a.resize(34, 0);
        let (r, bin) = run_spirv_kinds(
            &spirv,
            (&[StorageBuffer, StorageBuffer], Unchecked),
            &[u32s(&a), vec![0; 32 * 4]],
            [1, 1, 1],
            &[],
        );
        let want: Vec<u32> = (0..32).map(|i| i * 5 + 21).collect();
        assert_eq!(as_u32(&r[1]), want);
        assert_eq!(main_loads(&bin) == 0, hoisted, "{src}");
    }
}

/// 64 words of hashed bits, the input of the vec4 tests.
fn hashed_words() -> Vec<u32> {
    (0..64u32)
        .map(|k| k.wrapping_mul(2_654_435_761) >> 7)
        .collect()
}

/// `src` run on `a` (storage buffer 0) and `out_words` zero words (storage buffer 1), one
/// workgroup, without and with robustness: each time, the robustness, the output words and
/// the binary. Nothing without glslang.
fn run_both_ways(
    src: &str,
    a: &[u32],
    out_words: usize,
) -> Vec<(
    compiler::BufferRobustness,
    Vec<u32>,
    compiler::ComputeBinary,
)> {
    let Some(spirv) = common::glslang(src) else {
        return Vec::new();
    };
    [Unchecked, Checked]
        .into_iter()
        .map(|robustness| {
            let (r, bin) = run_spirv_kinds(
                &spirv,
                (&[StorageBuffer, StorageBuffer], robustness),
                &[u32s(a), vec![0; out_words * 4]],
                [1, 1, 1],
                &[],
            );
            (robustness, as_u32(&r[1]), bin)
        })
        .collect()
}

/// A whole `vec4` access is one memory instruction of four words (a 128-bit register),
/// loads and stores alike, at the element's own address: the same results with and without
/// robustness.
#[test]
fn whole_vec4_accesses_move_four_words_at_once() {
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) readonly buffer A { ivec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { ivec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    ivec4 v = a[i];
    o[i * 2u] = v.wzyx * ivec4(1, -2, 3, -4) + v.yyxx;
    o[i * 2u + 1u] = v - v.xxxx;
}
"#;
    let a = hashed_words();
    for (robustness, o, bin) in run_both_ways(src, &a, 32 * 4) {
        for i in 0..16 {
            let v: Vec<i32> = a[4 * i..4 * i + 4].iter().map(|&x| x as i32).collect();
            let first = [
                v[3].wrapping_mul(1).wrapping_add(v[1]),
                v[2].wrapping_mul(-2).wrapping_add(v[1]),
                v[1].wrapping_mul(3).wrapping_add(v[0]),
                v[0].wrapping_mul(-4).wrapping_add(v[0]),
            ];
            let second = [0, v[1] - v[0], v[2] - v[0], v[3] - v[0]];
            let got: Vec<i32> = o[8 * i..8 * i + 8].iter().map(|&x| x as i32).collect();
            assert_eq!(&got[..4], &first, "{robustness:?} {i}");
            assert_eq!(&got[4..], &second, "{robustness:?} {i}");
        }
        if robustness == Unchecked {
            let quads = |store: bool| {
                decode(bin.main_code())
                    .iter()
                    .filter(|i| {
                        matches!(i, hw::isa::Instr::DeviceMem(m)
                            if m.store == store && m.mask == 0b1111)
                    })
                    .count()
            };
            assert_eq!((quads(false), quads(true)), (1, 2));
        }
    }
}

/// The second pair of a `vec4` read alone (`base + 16 * i + 8`) is made at a base the
/// preamble computes (`base + 8`, a 64-bit result below uniform half 256), with the index of
/// the element: the same results with and without robustness.
#[test]
fn second_pairs_share_the_index_through_a_rebased_address() {
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) readonly buffer A { ivec4 a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { ivec2 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = a[i].zw * ivec2(3, -5);
}
"#;
    let a = hashed_words();
    for (robustness, o, bin) in run_both_ways(src, &a, 16 * 2) {
        for i in 0..16 {
            let want = [
                (a[4 * i + 2] as i32).wrapping_mul(3),
                (a[4 * i + 3] as i32).wrapping_mul(-5),
            ];
            let got = [o[2 * i] as i32, o[2 * i + 1] as i32];
            assert_eq!(got, want, "{robustness:?} {i}");
        }
        if robustness == Unchecked {
            let p = bin.preamble.expect("a preamble");
            assert!(p.first_half < abi::PREAMBLE_UNIFORM_START, "{p:?}");
            let pre = decode(bin.preamble_code().expect("code"));
            assert!(pre
                .iter()
                .any(|i| matches!(i, hw::isa::Instr::UniformStore(u) if u.mask == 0b1111)));
        }
    }
}
