//! Vulkan 1.2's subgroup additions, compiled from GLSL and run on the simulated USC against a
//! CPU model of two subgroups of 32: arithmetic on 16-bit floats and integers
//! (shaderSubgroupExtendedTypes), which takes the hardware's 16-bit `simd_reduce` /
//! `simd_prefix` / `quad_reduce` forms or the generic lowering with 16-bit identities, and
//! OpGroupNonUniformBroadcast with an id that is not a constant (subgroupBroadcastDynamicId,
//! SPIR-V 1.5). As in `sim_subgroup_tests`, some operations run under divergent control
//! flow, where only the active invocations count.

use super::sim_harness::{memory, set0, Launch, OUT};
use crate::ir::half;
use crate::DescriptorKind;
use sim_gpu::GpuMemory;

const N: usize = 64;
const SLOTS: usize = 12;

const SRC16: &str = "#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_clustered : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : enable
#extension GL_EXT_shader_subgroup_extended_types_float16 : enable
#extension GL_EXT_shader_subgroup_extended_types_int16 : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint u[]; };
uint bits(float16_t x) { return uint(float16BitsToUint16(x)); }
void main() {
    uint i = gl_LocalInvocationIndex;
    uint o = i * 12u;
    // Halves, quarters and powers of two: every sum and product below is exact in a half,
    // so the order the hardware folds in does not change the result.
    float16_t h = float16_t(int(i % 7u) - 3) * float16_t(0.5);
    float16_t m = i % 5u == 0u ? float16_t(-2.0) : (i % 3u == 0u ? float16_t(0.5) : float16_t(1.0));
    int16_t s = int16_t(int(i * 37u % 101u) - 50);
    uint16_t w = uint16_t(5000u + i * 1000u);
    if (i % 3u != 0u) {
        u[o + 0] = bits(subgroupAdd(h));
        u[o + 1] = bits(subgroupInclusiveAdd(h));
        u[o + 2] = bits(subgroupExclusiveMin(h));
        u[o + 3] = bits(subgroupMax(h));
        u[o + 4] = bits(subgroupMul(m));
        u[o + 5] = bits(subgroupClusteredAdd(h, 8u));
        u[o + 6] = bits(subgroupClusteredMin(h, 4u));
        u[o + 7] = packFloat2x16(subgroupExclusiveMax(f16vec2(h, -h)));
        u[o + 8] = uint(uint16_t(subgroupMin(s)));
        u[o + 9] = uint(subgroupExclusiveAdd(w));
        u[o + 10] = uint(uint16_t(subgroupClusteredMax(s, 2u)));
        u[o + 11] = uint(uint16_t(subgroupMul(int16_t(i % 4u) - int16_t(2))));
    }
}
";

/// `x` as half bits (exact for every value the shader makes).
fn hb(x: f64) -> u32 {
    u32::from(half::from_f64(x))
}

/// The results of [`SRC16`], from a model of two subgroups of 32.
fn expected16() -> Vec<Option<u32>> {
    let h = |j: usize| ((j % 7) as f64 - 3.0) * 0.5;
    let m = |j: usize| match (j % 5, j % 3) {
        (0, _) => -2.0,
        (_, 0) => 0.5,
        _ => 1.0,
    };
    let s = |j: usize| ((j * 37 % 101) as i32 - 50) as i16;
    let w = |j: usize| (5000 + j * 1000) as u16;
    let mut e = vec![None; N * SLOTS];
    for i in (0..N).filter(|i| i % 3 != 0) {
        let sg = i / 32 * 32;
        let active: Vec<usize> = (sg..sg + 32).filter(|j| j % 3 != 0).collect();
        let below = || active.iter().copied().filter(move |&j| j < i);
        let cluster = |c: usize| active.iter().copied().filter(move |&j| j / c == i / c);
        let fmin = |a: f64, b: f64| a.min(b);
        let fmax = |a: f64, b: f64| a.max(b);
        let o = i * SLOTS;
        e[o] = Some(hb(active.iter().map(|&j| h(j)).sum()));
        e[o + 1] = Some(hb(below().map(h).sum::<f64>() + h(i)));
        e[o + 2] = Some(hb(below().map(h).fold(f64::INFINITY, fmin)));
        e[o + 3] = Some(hb(active
            .iter()
            .map(|&j| h(j))
            .fold(f64::NEG_INFINITY, fmax)));
        e[o + 4] = Some(hb(active.iter().map(|&j| m(j)).product()));
        e[o + 5] = Some(hb(cluster(8).map(h).sum()));
        e[o + 6] = Some(hb(cluster(4).map(h).fold(f64::INFINITY, fmin)));
        let lo = hb(below().map(h).fold(f64::NEG_INFINITY, fmax));
        let hi = hb(below().map(|j| -h(j)).fold(f64::NEG_INFINITY, fmax));
        e[o + 7] = Some(lo | hi << 16);
        e[o + 8] = active
            .iter()
            .map(|&j| s(j))
            .min()
            .map(|x| u32::from(x as u16));
        e[o + 9] = Some(u32::from(below().map(w).fold(0u16, u16::wrapping_add)));
        e[o + 10] = cluster(2).map(s).max().map(|x| u32::from(x as u16));
        let p = active
            .iter()
            .map(|&j| (j % 4) as i16 - 2)
            .fold(1i16, i16::wrapping_mul);
        e[o + 11] = Some(u32::from(p as u16));
    }
    e
}

fn check(got: &[u32], want: &[Option<u32>], slots: usize) {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(w) = w {
            assert_eq!(
                g,
                w,
                "invocation {} slot {}: {g:#x} != {w:#x}",
                k / slots,
                k % slots
            );
        }
    }
}

#[test]
fn sixteen_bit_subgroup_arithmetic_matches_a_model_of_the_subgroup() {
    let layout = set0(&[(0, DescriptorKind::StorageBuffer, 1, 0)]);
    let mut mem = memory(0x100, N * SLOTS * 4);
    let got = Launch {
        src: SRC16,
        layout: &layout,
        invocations: N as u32,
        out_bytes: N * SLOTS * 4,
    }
    .run(&mut mem);
    check(&got, &expected16(), SLOTS);
}

const BSLOTS: usize = 4;

/// Broadcasts whose invocation id is read from memory (dynamically uniform, not a
/// constant), of a 32-bit value, a half and a 64-bit value, also under divergence.
const SRC_BROADCAST: &str = "#version 450
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable
#extension GL_EXT_shader_subgroup_extended_types_float16 : enable
#extension GL_EXT_shader_subgroup_extended_types_int64 : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint u[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint o = 4u + i * 4u;
    // Words 0..2 hold the ids (the results start at word 4).
    uint a = u[0], b = u[1], c = u[2];
    uint x = i * 7u + 3u;
    u[o + 0] = subgroupBroadcast(x, a);
    u[o + 1] = uint(float16BitsToUint16(subgroupBroadcast(float16_t(x), b)));
    u[o + 2] = uint(subgroupBroadcast(uint64_t(x) << 33 | uint64_t(x), c) >> 32);
    if (i % 2u == 1u) {
        // The odd invocations only, and an id that is one of them.
        u[o + 3] = subgroupBroadcast(x ^ 0x55u, a | 1u);
    }
}
";

#[test]
fn broadcast_with_a_dynamic_id_reads_that_invocation() {
    let layout = set0(&[(0, DescriptorKind::StorageBuffer, 1, 0)]);
    let bytes = (4 + N * BSLOTS) * 4;
    for ids in [[5u32, 17, 30], [0, 31, 12], [22, 3, 9]] {
        let mut mem = memory(0x100, bytes);
        for (k, v) in ids.into_iter().enumerate() {
            mem.write_u32(OUT + 4 * k as u64, v).unwrap();
        }
        let got = Launch {
            src: SRC_BROADCAST,
            layout: &layout,
            invocations: N as u32,
            out_bytes: bytes,
        }
        .run_env("vulkan1.2", &mut mem);
        let x = |j: usize| (j * 7 + 3) as u32;
        let mut want = vec![None; 4 + N * BSLOTS];
        for i in 0..N {
            let sg = i / 32 * 32;
            let o = 4 + i * BSLOTS;
            let at = |k: u32| sg + k as usize;
            want[o] = Some(x(at(ids[0])));
            want[o + 1] = Some(hb(f64::from(x(at(ids[1])))));
            let c = u64::from(x(at(ids[2])));
            want[o + 2] = Some(((c << 33 | c) >> 32) as u32);
            if i % 2 == 1 {
                want[o + 3] = Some(x(at(ids[0] | 1)) ^ 0x55);
            }
        }
        check(&got, &want, BSLOTS);
    }
}
