//! Cross-thread ALU encodings: the ballots, the shuffles and the SIMD / quad reductions. Both follow the generic ALU
//! layout (destination at bit 7, sources at 16 and 28, their extension bits at 44, 42, 40),
//! per Mesa's agx_opcodes.py / agx_pack.c.

use super::bits::{fit, get, put, Encoded};
use super::isa_alu::{fcond_code, fcond_from, icond_code, icond_from};
use super::operand_codec::*;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

/// Bits 0..7 of `fcmp_ballot` / `icmp_ballot`.
const FCMP_BALLOT: u64 = 0x22;
const ICMP_BALLOT: u64 = 0x32;
/// Bit 48 of a ballot: set for the whole SIMD group, clear for the quad form.
const BALLOT_SIMD_BIT: u32 = 48;
/// Bits 0..8 of every shuffle.
const SHUFFLE: u64 = 0x6f;
/// Bit 26 of a shuffle: set for the whole SIMD group, clear for the quad forms.
const SHUFFLE_SIMD_BIT: u32 = 26;

fn src(
    cx: &Ctx,
    b: &mut u128,
    name: &'static str,
    o: Operand,
    at: u32,
    ext: u32,
) -> Result<(), EncodeError> {
    let f = enc_src(cx, name, o, Hint::None, SRC32)?;
    put_src(b, at, ext, SRC32, f);
    Ok(())
}

fn dec(b: u128, at: u32, ext: u32) -> Result<Operand, &'static str> {
    Ok(dec_src(get_src(b, at, ext, SRC32), SRC32)?.0)
}

pub(crate) fn ballot(i: &Ballot) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "ballot" };
    let (op, code) = match i.cond {
        Cond::Int(c) => (ICMP_BALLOT, icond_code(c)),
        Cond::Float(c) => (FCMP_BALLOT, fcond_code(c)),
    };
    let mut b: u128 = op.into();
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    src(&cx, &mut b, "a", i.a, 16, 42)?;
    src(&cx, &mut b, "b", i.b, 28, 40)?;
    put(&mut b, 47, 1, u64::from(i.invert));
    put(&mut b, BALLOT_SIMD_BIT, 1, 1);
    put(&mut b, 61, 3, code);
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_ballot(b: u128) -> Result<Instr, &'static str> {
    if get(b, BALLOT_SIMD_BIT, 1) == 0 {
        return Err("quad ballots are not modelled");
    }
    let code = get(b, 61, 3);
    let cond = if u64::from(get(b, 0, 7)) == ICMP_BALLOT {
        Cond::Int(icond_from(code).ok_or("unknown integer condition")?)
    } else {
        Cond::Float(fcond_from(code).ok_or("unknown float condition")?)
    };
    Ok(Instr::Ballot(Ballot {
        dst: get_dst(b, 44, false),
        cond,
        invert: get(b, 47, 1) != 0,
        a: dec(b, 16, 42)?,
        b: dec(b, 28, 40)?,
    }))
}

pub(crate) fn shuffle(i: &Shuffle) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "shuffle" };
    // Mesa's encoding fixes bit 7 (the destination's cache hint) at zero for shuffles.
    if i.dst.cache {
        return Err(cx.err("dst", Problem::ModifierNotEncodable("cache")));
    }
    let mut b: u128 = SHUFFLE.into();
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    src(&cx, &mut b, "a", i.a, 16, 42)?;
    src(&cx, &mut b, "index", i.index, 28, 40)?;
    put(&mut b, SHUFFLE_SIMD_BIT, 1, u64::from(!i.quad));
    let mode = match i.mode {
        ShuffleMode::Index => 0,
        ShuffleMode::Xor => 1,
    };
    put(&mut b, 38, 2, mode);
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_shuffle(b: u128) -> Result<Instr, &'static str> {
    let mode = match get(b, 38, 2) {
        0 => ShuffleMode::Index,
        1 => ShuffleMode::Xor,
        _ => return Err("shuffle_up / shuffle_down are not modelled"),
    };
    Ok(Instr::Shuffle(Shuffle {
        dst: get_dst(b, 44, false),
        a: dec(b, 16, 42)?,
        index: dec(b, 28, 40)?,
        mode,
        quad: get(b, SHUFFLE_SIMD_BIT, 1) == 0,
    }))
}

/// Mesa's `simd_op` codes.
fn simd_op_code(op: SimdOp) -> u64 {
    match op {
        SimdOp::And => 0b00000,
        SimdOp::FAdd => 0b00001,
        SimdOp::Or => 0b00010,
        SimdOp::FMul => 0b00011,
        SimdOp::Xor => 0b00100,
        SimdOp::FMin => 0b00101,
        SimdOp::FMax => 0b00111,
        SimdOp::IAdd => 0b10000,
        SimdOp::SMin => 0b10100,
        SimdOp::SMax => 0b10110,
        SimdOp::UMin => 0b11100,
        SimdOp::UMax => 0b11110,
    }
}

const SIMD_OPS: [SimdOp; 12] = [
    SimdOp::And,
    SimdOp::FAdd,
    SimdOp::Or,
    SimdOp::FMul,
    SimdOp::Xor,
    SimdOp::FMin,
    SimdOp::FMax,
    SimdOp::IAdd,
    SimdOp::SMin,
    SimdOp::SMax,
    SimdOp::UMin,
    SimdOp::UMax,
];

/// Bits 29..31 of the reductions: quad_reduce, simd_reduce, quad_prefix, simd_prefix.
fn reduce_kind_code(k: ReduceKind) -> u64 {
    match k {
        ReduceKind::QuadReduce => 0,
        ReduceKind::SimdReduce => 1,
        ReduceKind::QuadPrefix => 2,
        ReduceKind::SimdPrefix => 3,
    }
}

/// The reductions share the shuffles' first byte and set bit 15.
const REDUCE_BIT: u32 = 15;

pub(crate) fn simd_reduce(i: &SimdReduce) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "simd_reduce",
    };
    if i.dst.cache {
        return Err(cx.err("dst", Problem::ModifierNotEncodable("cache")));
    }
    let mut b: u128 = SHUFFLE.into();
    put(&mut b, REDUCE_BIT, 1, 1);
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    src(&cx, &mut b, "a", i.a, 16, 42)?;
    let op = simd_op_code(i.op);
    put(&mut b, 28, 1, op & 1);
    put(&mut b, 38, 3, (op >> 1) & 7);
    put(&mut b, 47, 1, op >> 4);
    put(&mut b, 29, 2, reduce_kind_code(i.kind));
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_simd_reduce(b: u128) -> Result<Instr, &'static str> {
    let code = u64::from(get(b, 28, 1) | get(b, 38, 3) << 1 | get(b, 47, 1) << 4);
    let op = SIMD_OPS
        .into_iter()
        .find(|&o| simd_op_code(o) == code)
        .ok_or("unknown simd_op")?;
    let kind = [
        ReduceKind::QuadReduce,
        ReduceKind::SimdReduce,
        ReduceKind::QuadPrefix,
        ReduceKind::SimdPrefix,
    ][get(b, 29, 2) as usize];
    Ok(Instr::SimdReduce(SimdReduce {
        dst: get_dst(b, 44, false),
        a: dec(b, 16, 42)?,
        op,
        kind,
    }))
}
