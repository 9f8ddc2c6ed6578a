//! Float ALU encodings: fadd, fmul, fmadd (16- and 32-bit opcodes) and the float unary group.
//! The 16-bit opcodes (applegpu/Mesa `hadd`, `hmul`, `hfma`) take only 16-bit operands, with
//! 3-bit source types and the abs/neg pair one bit lower. The 32-bit opcodes take 16- or
//! 32-bit sources and destinations in any mix (Mesa converts between f16 and f32 with them).
//! The encoder picks the 16-bit opcode exactly when every operand is 16-bit (or an
//! immediate), so a 32-bit opcode whose operands are all 16-bit is not agx4's encoding and
//! decodes to an error (re-encoding it would not give the same bits).

use super::bits::{fit, get, put, Encoded};
use super::operand_codec::*;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

fn put_fsrc(
    cx: &Ctx,
    b: &mut u128,
    name: &'static str,
    s: FSrc,
    at: u32,
    ext: u32,
    kind: SrcKind,
) -> Result<(), EncodeError> {
    let f = enc_src(cx, name, s.op, s.hint, kind)?;
    put_src(b, at, ext, kind, f);
    let m = u64::from(s.abs) | u64::from(s.neg) << 1;
    put(b, at + 6 + kind.type_bits, 2, m);
    Ok(())
}

fn get_fsrc(b: u128, at: u32, ext: u32, kind: SrcKind) -> Result<FSrc, &'static str> {
    let (op, hint) = dec_src(get_src(b, at, ext, kind), kind)?;
    let m = get(b, at + 6 + kind.type_bits, 2);
    Ok(FSrc {
        op,
        abs: m & 1 != 0,
        neg: m & 2 != 0,
        hint,
    })
}

fn opcode(op: FOp, half: bool) -> u128 {
    match (op, half) {
        (FOp::Add, false) => 0x2a,
        (FOp::Add, true) => 0x26,
        (FOp::Mul, false) => 0x1a,
        (FOp::Mul, true) => 0x16,
        (FOp::MAdd, false) => 0x3a,
        (FOp::MAdd, true) => 0x36,
    }
}

/// Whether the 16-bit opcode encodes `i`: a 16-bit destination and no 32-bit source.
fn all_16(i: &FArith) -> bool {
    let narrow = |s: &FSrc| match s.op {
        Operand::Reg(r) | Operand::Uniform(r) => r.size == Size::S16,
        Operand::Imm(_) => true,
    };
    let c_ok = i.op != FOp::MAdd || narrow(&i.c);
    i.dst.reg.size == Size::S16 && narrow(&i.a) && narrow(&i.b) && c_ok
}

pub(crate) fn farith(i: &FArith, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "farith" };
    if i.dst.reg.size == Size::S64 {
        return Err(cx.err("dst", Problem::WidthNotAllowed(64)));
    }
    let half = all_16(i);
    let kind = if half { SRC16 } else { SRC32 };
    let mut b = opcode(i.op, half);
    put(&mut b, 6, 1, u64::from(i.saturate));
    if i.op == FOp::MAdd {
        put_dst(&cx, &mut b, 60, i.dst, true, false)?;
        put_fsrc(&cx, &mut b, "a", i.a, 16, 58, kind)?;
        put_fsrc(&cx, &mut b, "b", i.b, 28, 56, kind)?;
        put_fsrc(&cx, &mut b, "c", i.c, 40, 54, kind)?;
        Ok(fit(b, 6, 8, 15, force_long))
    } else {
        put_dst(&cx, &mut b, 44, i.dst, true, false)?;
        put_fsrc(&cx, &mut b, "a", i.a, 16, 42, kind)?;
        put_fsrc(&cx, &mut b, "b", i.b, 28, 40, kind)?;
        Ok(fit(b, 4, 6, 15, force_long))
    }
}

pub(crate) fn dec_farith(b: u128) -> Result<Instr, &'static str> {
    let (op, half) = match get(b, 0, 6) {
        0x2a => (FOp::Add, false),
        0x26 => (FOp::Add, true),
        0x1a => (FOp::Mul, false),
        0x16 => (FOp::Mul, true),
        0x3a => (FOp::MAdd, false),
        _ => (FOp::MAdd, true),
    };
    let kind = if half { SRC16 } else { SRC32 };
    let saturate = get(b, 6, 1) != 0;
    let i = if op == FOp::MAdd {
        FArith {
            op,
            dst: get_dst(b, 60, false),
            a: get_fsrc(b, 16, 58, kind)?,
            b: get_fsrc(b, 28, 56, kind)?,
            c: get_fsrc(b, 40, 54, kind)?,
            saturate,
        }
    } else {
        FArith {
            op,
            dst: get_dst(b, 44, false),
            a: get_fsrc(b, 16, 42, kind)?,
            b: get_fsrc(b, 28, 40, kind)?,
            c: FSrc::new(Operand::Imm(0)),
            saturate,
        }
    };
    if half && i.dst.reg.size != Size::S16 {
        return Err("16-bit float opcode with a 32-bit destination");
    }
    if !half && all_16(&i) {
        return Err("32-bit float opcode with only 16-bit operands");
    }
    Ok(Instr::FArith(i))
}

fn funary_code(op: FUnaryOp) -> u64 {
    match op {
        FUnaryOp::Floor => 0b000000,
        FUnaryOp::Rcp => 0b001000,
        FUnaryOp::Rsqrt => 0b001001,
        FUnaryOp::SinPt1 => 0b001010,
        FUnaryOp::Log2 => 0b001100,
        FUnaryOp::Exp2 => 0b001101,
        FUnaryOp::SinPt2 => 0b001110,
        FUnaryOp::Ceil => 0b010000,
        FUnaryOp::Trunc => 0b100000,
        FUnaryOp::Rint => 0b110000,
        FUnaryOp::Dfdx => 0b000100,
        FUnaryOp::Dfdy => 0b000110,
    }
}

/// applegpu: bit 46 of `dfdx` / `dfdy` kills helper invocations after the instruction.
const DERIVATIVE_KILL_BIT: u32 = 46;

const FUNARY_OPS: [FUnaryOp; 12] = [
    FUnaryOp::Floor,
    FUnaryOp::Ceil,
    FUnaryOp::Trunc,
    FUnaryOp::Rint,
    FUnaryOp::Rcp,
    FUnaryOp::Rsqrt,
    FUnaryOp::SinPt1,
    FUnaryOp::SinPt2,
    FUnaryOp::Log2,
    FUnaryOp::Exp2,
    FUnaryOp::Dfdx,
    FUnaryOp::Dfdy,
];

pub(crate) fn funary(i: &FUnary, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "funary" };
    let mut b: u128 = 0x0a;
    put(&mut b, 6, 1, u64::from(i.saturate));
    put(&mut b, 28, 6, funary_code(i.op));
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    put_fsrc(&cx, &mut b, "src", i.src, 16, 42, SRC32)?;
    Ok(fit(b, 4, 6, 15, force_long))
}

pub(crate) fn dec_funary(b: u128) -> Result<Instr, &'static str> {
    let code = u64::from(get(b, 28, 6));
    let op = FUNARY_OPS
        .into_iter()
        .find(|&o| funary_code(o) == code)
        .ok_or("unmodelled float unary op")?;
    if get(b, DERIVATIVE_KILL_BIT, 1) != 0 {
        return Err("float unary op with bit 46 (helper kill) set");
    }
    Ok(Instr::FUnary(FUnary {
        op,
        dst: get_dst(b, 44, false),
        src: get_fsrc(b, 16, 42, SRC32)?,
        saturate: get(b, 6, 1) != 0,
    }))
}
