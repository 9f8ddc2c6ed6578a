//! The SIMD-group and quad reductions (`simd_reduce`, `simd_prefix`, `quad_reduce`,
//! `quad_prefix`; semantics on `isa::SimdReduce`).

use super::float::{f64_to_f16, ftz, Rounding};
use super::group::{bits_to_float, sext};
use super::lanes::Lanes;
use hw::isa::{ReduceKind, SimdOp, QUAD_LANES, SIMD_WIDTH};

/// The identity of `op` at `bits` width, as register bits.
fn identity(op: SimdOp, bits: u32) -> u64 {
    let ones = (1u64 << bits) - 1;
    let float = |x: f32| {
        if bits == 16 {
            u64::from(f64_to_f16(f64::from(x), Rounding::NearestEven))
        } else {
            u64::from(x.to_bits())
        }
    };
    match op {
        SimdOp::IAdd | SimdOp::Or | SimdOp::Xor | SimdOp::UMax => 0,
        SimdOp::And | SimdOp::UMin => ones,
        SimdOp::SMin => ones >> 1,
        SimdOp::SMax => (ones >> 1) + 1,
        SimdOp::FAdd => float(0.0),
        SimdOp::FMul => float(1.0),
        SimdOp::FMin => float(f32::INFINITY),
        SimdOp::FMax => float(f32::NEG_INFINITY),
    }
}

/// `op` on two register values of `bits` width.
fn apply(op: SimdOp, a: u64, b: u64, bits: u32) -> u64 {
    let ones = (1u64 << bits) - 1;
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let f = |x: f32| {
        if bits == 16 {
            u64::from(f64_to_f16(f64::from(x), Rounding::NearestEven))
        } else {
            u64::from(ftz(x).to_bits())
        }
    };
    let (fa, fb) = (bits_to_float(a, bits), bits_to_float(b, bits));
    match op {
        SimdOp::And => a & b,
        SimdOp::Or => a | b,
        SimdOp::Xor => a ^ b,
        SimdOp::IAdd => a.wrapping_add(b) & ones,
        SimdOp::UMin => a.min(b),
        SimdOp::UMax => a.max(b),
        SimdOp::SMin => (sa.min(sb) as u64) & ones,
        SimdOp::SMax => (sa.max(sb) as u64) & ones,
        SimdOp::FAdd => f(fa + fb),
        SimdOp::FMul => f(fa * fb),
        // A NaN operand is ignored, as `fcmpsel ltn / gtn` ignore it.
        SimdOp::FMin => f(if fb.is_nan() || fa < fb { fa } else { fb }),
        SimdOp::FMax => f(if fb.is_nan() || fa > fb { fa } else { fb }),
    }
}

/// The result of each lane in `exec` (the others are 0 and not written by the caller).
pub fn reduce(op: SimdOp, kind: ReduceKind, a: &Lanes, bits: u32, exec: u32) -> Lanes {
    let ones = (1u64 << bits) - 1;
    let mut out: Lanes = [0; SIMD_WIDTH];
    for (l, o) in out.iter_mut().enumerate() {
        if exec >> l & 1 == 0 {
            continue;
        }
        let quad = l & !(QUAD_LANES - 1);
        let lanes = match kind {
            ReduceKind::SimdReduce => 0..SIMD_WIDTH,
            ReduceKind::SimdPrefix => 0..l,
            ReduceKind::QuadReduce => quad..quad + QUAD_LANES,
            ReduceKind::QuadPrefix => quad..l,
        };
        *o = lanes
            .filter(|&k| exec >> k & 1 != 0)
            .fold(identity(op, bits), |acc, k| {
                apply(op, acc, a[k] & ones, bits)
            });
    }
    out
}
