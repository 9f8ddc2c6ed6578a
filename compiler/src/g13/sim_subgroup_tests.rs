//! GLSL compute shaders with subgroup operations, compiled and run on the simulated USC and
//! checked against a CPU model of the subgroup: 64 invocations (two subgroups of 32), some
//! operations under divergent control flow, where only the active invocations count.

use super::sim_harness::{memory, set0, Launch};
use crate::DescriptorKind;

const N: usize = 64;
const SLOTS: usize = 20;

const SRC: &str = "#version 450
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_vote : enable
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_clustered : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_KHR_shader_subgroup_shuffle_relative : enable
#extension GL_KHR_shader_subgroup_quad : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : enable
#extension GL_EXT_shader_subgroup_extended_types_int64 : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint u[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint x = i * 7u + 3u;
    uint o = i * 20u;
    u[o + 0] = gl_SubgroupInvocationID | (gl_SubgroupID << 8) | (gl_NumSubgroups << 16)
        | (gl_SubgroupSize << 24);
    if (i % 3u != 0u) {
        u[o + 1] = subgroupBallot(x % 2u == 1u).x;
        u[o + 2] = subgroupAdd(x);
        u[o + 3] = subgroupExclusiveAdd(x);
        u[o + 4] = subgroupInclusiveMax(x ^ 5u);
        u[o + 5] = subgroupElect() ? 1u : 0u;
        u[o + 6] = subgroupBroadcastFirst(x);
        u[o + 7] = subgroupClusteredAdd(x, 4u);
        u[o + 8] = (subgroupAll(x > 2u) ? 1u : 0u) | (subgroupAny(x == 10u) ? 2u : 0u)
            | (subgroupAllEqual(x / 1000u) ? 4u : 0u) | (subgroupAllEqual(x) ? 8u : 0u);
        u[o + 9] = uint(subgroupMul(int(x & 3u) - 2));
        u[o + 10] = subgroupBallotExclusiveBitCount(subgroupBallot(true))
            | (subgroupBallotFindMSB(subgroupBallot(true)) << 8)
            | (gl_SubgroupLtMask.x & 0xffu) << 16;
        u[o + 11] = uint(subgroupAdd(uint64_t(x) << 30) >> 20);
        u[o + 16] = subgroupClusteredAdd(x, 8u) + (subgroupClusteredMax(x, 2u) << 16);
        u[o + 17] = (subgroupAnd(x > 5u) ? 1u : 0u) | (subgroupOr(x == 17u) ? 2u : 0u)
            | (subgroupXor(x % 4u == 0u) ? 4u : 0u) | (subgroupInclusiveXor(x % 4u == 0u) ? 8u : 0u);
        u[o + 18] = uint(subgroupExclusiveMul(int(x % 3u) - 1));
    }
    u[o + 12] = subgroupShuffle(x, (i * 5u) % 32u);
    u[o + 13] = subgroupShuffleXor(x, 6u) + (subgroupShuffleDown(x, 1u) << 16);
    u[o + 14] = subgroupQuadSwapDiagonal(x) + (subgroupQuadBroadcast(x, 2u) << 16);
    u[o + 15] = floatBitsToUint(subgroupInclusiveAdd(float(x)));
}
";

/// The results the shader must give, from a model of two subgroups of 32.
fn expected() -> Vec<Option<u32>> {
    let x = |i: usize| (i * 7 + 3) as u32;
    let mut e = vec![None; N * SLOTS];
    for i in 0..N {
        let sg = i / 32 * 32;
        let lane = i % 32;
        let o = i * SLOTS;
        let members = sg..sg + 32;
        e[o] = Some(lane as u32 | (i as u32 / 32) << 8 | 2 << 16 | 32 << 24);
        if i % 3 != 0 {
            let active: Vec<usize> = members.clone().filter(|j| j % 3 != 0).collect();
            let ballot = |f: &dyn Fn(usize) -> bool| {
                active
                    .iter()
                    .filter(|&&j| f(j))
                    .fold(0u32, |m, &j| m | 1 << (j % 32))
            };
            e[o + 1] = Some(ballot(&|j| x(j) % 2 == 1));
            e[o + 2] = Some(active.iter().map(|&j| x(j)).fold(0, u32::wrapping_add));
            e[o + 3] = Some(active.iter().filter(|&&j| j < i).map(|&j| x(j)).sum());
            e[o + 4] = active.iter().filter(|&&j| j <= i).map(|&j| x(j) ^ 5).max();
            e[o + 5] = Some(u32::from(active[0] == i));
            e[o + 6] = Some(x(active[0]));
            e[o + 7] = Some(
                active
                    .iter()
                    .filter(|&&j| j / 4 == i / 4)
                    .map(|&j| x(j))
                    .sum(),
            );
            let all = active.iter().all(|&j| x(j) > 2);
            let any = active.iter().any(|&j| x(j) == 10);
            e[o + 8] = Some(u32::from(all) | u32::from(any) << 1 | 4);
            e[o + 9] = Some(
                active
                    .iter()
                    .map(|&j| (x(j) & 3) as i32 - 2)
                    .fold(1i32, i32::wrapping_mul) as u32,
            );
            let below = active.iter().filter(|&&j| j < i).count() as u32;
            let msb = (*active.last().unwrap() % 32) as u32;
            let lt = ((1u64 << lane) - 1) as u32 & 0xff;
            e[o + 10] = Some(below | msb << 8 | lt << 16);
            let s: u64 = active.iter().map(|&j| u64::from(x(j)) << 30).sum();
            e[o + 11] = Some((s >> 20) as u32);
            let cluster = |c: usize| {
                active
                    .iter()
                    .filter(move |&&j| j / c == i / c)
                    .map(|&j| x(j))
            };
            e[o + 16] = Some(cluster(8).sum::<u32>() + (cluster(2).max().unwrap() << 16));
            let and = active.iter().all(|&j| x(j) > 5);
            let or = active.iter().any(|&j| x(j) == 17);
            let xor = active.iter().filter(|&&j| x(j) % 4 == 0).count() % 2 == 1;
            let ixor = active.iter().filter(|&&j| j <= i && x(j) % 4 == 0).count() % 2 == 1;
            e[o + 17] = Some(
                u32::from(and) | u32::from(or) << 1 | u32::from(xor) << 2 | u32::from(ixor) << 3,
            );
            e[o + 18] = Some(
                active
                    .iter()
                    .filter(|&&j| j < i)
                    .map(|&j| (x(j) % 3) as i32 - 1)
                    .product::<i32>() as u32,
            );
        }
        e[o + 12] = Some(x(sg + (i * 5) % 32));
        let down = if lane < 31 {
            Some(x(i + 1) << 16)
        } else {
            None
        };
        e[o + 13] = down.map(|d| x(sg + (lane ^ 6)).wrapping_add(d));
        e[o + 14] = Some(x(i ^ 3) + (x((i & !3) + 2) << 16));
        let f: f32 = (sg..=i).map(|j| x(j) as f32).sum();
        e[o + 15] = Some(f.to_bits());
    }
    e
}

#[test]
fn subgroup_operations_match_a_model_of_the_subgroup() {
    let layout = set0(&[(0, DescriptorKind::StorageBuffer, 1, 0)]);
    let mut mem = memory(0x100, N * SLOTS * 4);
    let got = Launch {
        src: SRC,
        layout: &layout,
        invocations: N as u32,
        out_bytes: N * SLOTS * 4,
    }
    .run(&mut mem);
    let want = expected();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if let Some(w) = w {
            assert_eq!(g, w, "invocation {} slot {}", k / SLOTS, k % SLOTS);
        }
    }
}
