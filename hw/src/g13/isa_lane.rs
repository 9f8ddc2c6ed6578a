//! Cross-thread ALU encodings: the ballots and the shuffles. Both follow the generic ALU
//! layout (destination at bit 7, sources at 16 and 28, their extension bits at 44, 42, 40),
//! per Mesa's agx_opcodes.py / agx_pack.c.

use super::bits::{fit, get, put, Encoded};
use super::error::{EncodeError, Problem};
use super::isa_alu::{fcond_code, fcond_from, icond_code, icond_from};
use super::operand_codec::*;
use crate::isa::*;

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
