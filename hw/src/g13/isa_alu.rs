//! Integer ALU encodings: mov_imm, get_sr, iadd, imadd, bitop, the shift/bitfield group,
//! integer unary ops, convert and the compare-selects.

use super::bits::{fit, get, put, Encoded};
use super::operand_codec::*;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

fn no_sx(cx: &Ctx, name: &'static str, s: ISrc) -> Result<(), EncodeError> {
    if s.sign_extend {
        return Err(cx.err(name, Problem::ModifierNotEncodable("sign_extend")));
    }
    Ok(())
}

fn isrc(
    bits: u128,
    at: u32,
    ext: u32,
    kind: SrcKind,
    sx_at: Option<u32>,
) -> Result<ISrc, &'static str> {
    let (op, hint) = dec_src(get_src(bits, at, ext, kind), kind)?;
    let sign_extend = sx_at.is_some_and(|b| get(bits, b, 1) != 0);
    Ok(ISrc {
        op,
        sign_extend,
        hint,
    })
}

fn put_isrc(
    cx: &Ctx,
    bits: &mut u128,
    name: &'static str,
    s: ISrc,
    at: u32,
    ext: u32,
    kind: SrcKind,
) -> Result<(), EncodeError> {
    let f = enc_src(cx, name, s.op, s.hint, kind)?;
    put_src(bits, at, ext, kind, f);
    Ok(())
}

pub(crate) fn mov_imm(i: &MovImm, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "mov_imm" };
    let mut b: u128 = 0x62;
    match i.dst.reg.size {
        Size::S16 => {
            let v = cx.imm("imm", i64::from(i.imm), 0, 0xffff)?;
            put_dst(&cx, &mut b, 44, i.dst, false, false)?;
            put(&mut b, 16, 16, v);
            Ok(fit(b, 4, 6, 15, force_long))
        }
        Size::S32 => {
            put_dst(&cx, &mut b, 60, i.dst, true, false)?;
            put(&mut b, 16, 32, u64::from(i.imm));
            Ok(fit(b, 6, 8, 15, force_long))
        }
        Size::S64 => Err(cx.err("dst", Problem::WidthNotAllowed(64))),
    }
}

pub(crate) fn dec_mov_imm(b: u128) -> Result<Instr, &'static str> {
    let wide = get(b, 8, 1) != 0;
    let (dst, imm) = if wide {
        (get_dst(b, 60, false), get(b, 16, 32))
    } else {
        (get_dst(b, 44, false), get(b, 16, 16))
    };
    Ok(Instr::MovImm(MovImm { dst, imm }))
}

pub(crate) fn get_sr(i: &GetSr) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "get_sr" };
    let mut b: u128 = 0x72;
    put_dst(&cx, &mut b, 28, i.dst, true, false)?;
    put(&mut b, 16, 6, u64::from(i.sr.0 & 0x3f));
    put(&mut b, 26, 2, u64::from(i.sr.0 >> 6));
    Ok(fit(b, 4, 4, 15, false))
}

pub(crate) fn dec_get_sr(b: u128) -> Result<Instr, &'static str> {
    let sr = SpecialReg((get(b, 16, 6) | get(b, 26, 2) << 6) as u8);
    Ok(Instr::GetSr(GetSr {
        dst: get_dst(b, 28, false),
        sr,
    }))
}

fn put_shift(cx: &Ctx, b: &mut u128, shift: u8) -> Result<(), EncodeError> {
    // Mesa never emits shifts above 4; the field has room for 7 but larger values are untested.
    let s = cx.imm("shift", i64::from(shift), 0, 4)?;
    put(b, 39, 1, s & 1);
    put(b, 52, 2, s >> 1);
    Ok(())
}

fn get_shift(b: u128) -> u8 {
    (get(b, 39, 1) | get(b, 52, 2) << 1) as u8
}

pub(crate) fn iadd(i: &IAdd) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "iadd" };
    let mut b: u128 = 0x0e;
    put(&mut b, 6, 1, u64::from(i.saturate));
    put_dst(&cx, &mut b, 44, i.dst, true, true)?;
    put_isrc(&cx, &mut b, "a", i.a, 16, 42, SRC64)?;
    put(&mut b, 26, 1, u64::from(i.a.sign_extend));
    put(&mut b, 27, 1, u64::from(i.negate_b));
    put_isrc(&cx, &mut b, "b", i.b, 28, 40, SRC64)?;
    put(&mut b, 38, 1, u64::from(i.b.sign_extend));
    put_shift(&cx, &mut b, i.shift)?;
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_iadd(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::IAdd(IAdd {
        dst: get_dst(b, 44, true),
        a: isrc(b, 16, 42, SRC64, Some(26))?,
        b: isrc(b, 28, 40, SRC64, Some(38))?,
        negate_b: get(b, 27, 1) != 0,
        shift: get_shift(b),
        saturate: get(b, 6, 1) != 0,
    }))
}

pub(crate) fn imadd(i: &IMAdd) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "imadd" };
    let mut b: u128 = 0x1e;
    put(&mut b, 6, 1, u64::from(i.saturate));
    put_dst(&cx, &mut b, 60, i.dst, true, true)?;
    put_isrc(&cx, &mut b, "a", i.a, 16, 58, SRC32)?;
    put(&mut b, 26, 1, u64::from(i.a.sign_extend));
    put(&mut b, 27, 1, u64::from(i.negate_c));
    put_isrc(&cx, &mut b, "b", i.b, 28, 56, SRC32)?;
    put(&mut b, 38, 1, u64::from(i.b.sign_extend));
    put_isrc(&cx, &mut b, "c", i.c, 40, 54, SRC64)?;
    put(&mut b, 50, 1, u64::from(i.c.sign_extend));
    put_shift(&cx, &mut b, i.shift)?;
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_imadd(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::IMAdd(IMAdd {
        dst: get_dst(b, 60, true),
        a: isrc(b, 16, 58, SRC32, Some(26))?,
        b: isrc(b, 28, 56, SRC32, Some(38))?,
        c: isrc(b, 40, 54, SRC64, Some(50))?,
        negate_c: get(b, 27, 1) != 0,
        shift: get_shift(b),
        saturate: get(b, 6, 1) != 0,
    }))
}

/// The model's table is the hardware's: bit `(b << 1) | a` of `table` lands in truth-table bit
/// tt0..tt3 (bits 26, 27, 38, 39), so AND = 0b1000, OR = 0b1110, XOR = 0b0110, NOT A = 0b0101
/// exactly as Mesa's agx_bitop tables use them.
pub(crate) fn bitop(i: &Bitop) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "bitop" };
    let mut b: u128 = 0x7e;
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    no_sx(&cx, "a", i.a)?;
    no_sx(&cx, "b", i.b)?;
    put_isrc(&cx, &mut b, "a", i.a, 16, 42, SRC32)?;
    put_isrc(&cx, &mut b, "b", i.b, 28, 40, SRC32)?;
    let t = cx.imm("table", i64::from(i.table), 0, 15)?;
    put(&mut b, 26, 2, t & 3);
    put(&mut b, 38, 2, t >> 2);
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_bitop(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::Bitop(Bitop {
        dst: get_dst(b, 44, false),
        a: isrc(b, 16, 42, SRC32, None)?,
        b: isrc(b, 28, 40, SRC32, None)?,
        table: (get(b, 26, 2) | get(b, 38, 2) << 2) as u8,
    }))
}

/// (bit 15, bits 27..26) selecting each shift-group operation.
fn shift_code(op: ShiftOp) -> (u64, u64) {
    match op {
        ShiftOp::Bfi => (0, 0),
        ShiftOp::Bfeil => (1, 0),
        ShiftOp::Extr => (0, 1),
        ShiftOp::Asr => (1, 1),
        ShiftOp::Shlhi => (0, 2),
        ShiftOp::Shrhi => (1, 2),
    }
}

pub(crate) fn shift(i: &Shift) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "shift" };
    let (hi, code) = shift_code(i.op);
    let mut b: u128 = 0x2e;
    put(&mut b, 15, 1, hi);
    put(&mut b, 26, 2, code);
    put_dst(&cx, &mut b, 60, i.dst, true, false)?;
    no_sx(&cx, "a", i.a)?;
    no_sx(&cx, "b", i.b)?;
    no_sx(&cx, "c", i.c)?;
    put_isrc(&cx, &mut b, "a", i.a, 16, 58, SRC32)?;
    put_isrc(&cx, &mut b, "b", i.b, 28, 56, SRC32)?;
    if i.op == ShiftOp::Asr {
        // asr has no third source or mask field.
        if i.c != ISrc::new(Operand::Imm(0)) {
            return Err(cx.err("c", Problem::KindNotAllowed("third source on asr")));
        }
        if i.mask_bits != 0 {
            return Err(cx.err("mask_bits", Problem::KindNotAllowed("mask on asr")));
        }
    } else {
        put_isrc(&cx, &mut b, "c", i.c, 40, 54, SRC32)?;
        let m = cx.imm("mask_bits", i64::from(i.mask_bits), 0, 31)?;
        put(&mut b, 38, 2, m & 3);
        put(&mut b, 50, 2, (m >> 2) & 3);
        put(&mut b, 63, 1, m >> 4);
    }
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_shift(b: u128) -> Result<Instr, &'static str> {
    let op = match (get(b, 15, 1), get(b, 26, 2)) {
        (0, 0) => ShiftOp::Bfi,
        (1, 0) => ShiftOp::Bfeil,
        (0, 1) => ShiftOp::Extr,
        (1, 1) => ShiftOp::Asr,
        (0, 2) => ShiftOp::Shlhi,
        (1, 2) => ShiftOp::Shrhi,
        _ => return Err("asrh is not modelled"),
    };
    let (c, mask_bits) = if op == ShiftOp::Asr {
        (ISrc::new(Operand::Imm(0)), 0)
    } else {
        let m = get(b, 38, 2) | get(b, 50, 2) << 2 | get(b, 63, 1) << 4;
        (isrc(b, 40, 54, SRC32, None)?, m as u8)
    };
    Ok(Instr::Shift(Shift {
        op,
        dst: get_dst(b, 60, false),
        a: isrc(b, 16, 58, SRC32, None)?,
        b: isrc(b, 28, 56, SRC32, None)?,
        c,
        mask_bits,
    }))
}

pub(crate) fn iunary(i: &IUnary) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "iunary" };
    let code = match i.op {
        IUnaryOp::BitReverse => 1,
        IUnaryOp::PopCount => 2,
        IUnaryOp::FindFirstSet => 3,
    };
    let mut b: u128 = 0x3e;
    put(&mut b, 26, 2, code);
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    no_sx(&cx, "src", i.src)?;
    put_isrc(&cx, &mut b, "src", i.src, 16, 42, SRC32)?;
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_iunary(b: u128) -> Result<Instr, &'static str> {
    let op = match get(b, 26, 2) {
        1 => IUnaryOp::BitReverse,
        2 => IUnaryOp::PopCount,
        3 => IUnaryOp::FindFirstSet,
        _ => return Err("interleave is not modelled"),
    };
    Ok(Instr::IUnary(IUnary {
        op,
        dst: get_dst(b, 44, false),
        src: isrc(b, 16, 42, SRC32, None)?,
    }))
}

fn convert_mode(op: ConvertOp) -> u64 {
    match op {
        ConvertOp::U8ToF => 0,
        ConvertOp::S8ToF => 1,
        ConvertOp::FToU16 => 4,
        ConvertOp::FToS16 => 5,
        ConvertOp::U16ToF => 6,
        ConvertOp::S16ToF => 7,
        ConvertOp::FToU32 => 8,
        ConvertOp::FToS32 => 9,
        ConvertOp::U32ToF => 10,
        ConvertOp::S32ToF => 11,
    }
}

const CONVERT_OPS: [ConvertOp; 10] = [
    ConvertOp::U8ToF,
    ConvertOp::S8ToF,
    ConvertOp::FToU16,
    ConvertOp::FToS16,
    ConvertOp::U16ToF,
    ConvertOp::S16ToF,
    ConvertOp::FToU32,
    ConvertOp::FToS32,
    ConvertOp::U32ToF,
    ConvertOp::S32ToF,
];

pub(crate) fn convert(i: &Convert) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "convert" };
    let mut b: u128 = 0x3e | 1 << 15;
    put(&mut b, 16, 6, convert_mode(i.op));
    put(
        &mut b,
        26,
        2,
        if i.round == Round::NearestEven { 1 } else { 0 },
    );
    put_dst(&cx, &mut b, 44, i.dst, true, false)?;
    no_sx(&cx, "src", i.src)?;
    put_isrc(&cx, &mut b, "src", i.src, 28, 40, SRC32)?;
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_convert(b: u128) -> Result<Instr, &'static str> {
    let mode = u64::from(get(b, 16, 6));
    let op = CONVERT_OPS
        .into_iter()
        .find(|&o| convert_mode(o) == mode)
        .ok_or("unknown convert mode")?;
    let round = match get(b, 26, 2) {
        0 => Round::TowardZero,
        1 => Round::NearestEven,
        _ => return Err("unknown rounding mode"),
    };
    Ok(Instr::Convert(Convert {
        op,
        dst: get_dst(b, 44, false),
        src: isrc(b, 28, 40, SRC32, None)?,
        round,
    }))
}

pub(crate) fn icond_code(c: ICond) -> u64 {
    match c {
        ICond::UEq => 0,
        ICond::ULt => 1,
        ICond::UGt => 2,
        ICond::SEq => 4,
        ICond::SLt => 5,
        ICond::SGt => 6,
    }
}

/// Mesa's agx_fcond numbering (applegpu's names agree; its pseudocode swaps 5 and 6).
pub(crate) fn fcond_code(c: FCond) -> u64 {
    match c {
        FCond::Eq => 0,
        FCond::Lt => 1,
        FCond::Gt => 2,
        FCond::LtN => 3,
        FCond::Ge => 5,
        FCond::Le => 6,
        FCond::GtN => 7,
    }
}

pub(crate) fn icond_from(v: u32) -> Option<ICond> {
    [
        ICond::UEq,
        ICond::ULt,
        ICond::UGt,
        ICond::SEq,
        ICond::SLt,
        ICond::SGt,
    ]
    .into_iter()
    .find(|&c| icond_code(c) == u64::from(v))
}

pub(crate) fn fcond_from(v: u32) -> Option<FCond> {
    [
        FCond::Eq,
        FCond::Lt,
        FCond::Gt,
        FCond::LtN,
        FCond::Ge,
        FCond::Le,
        FCond::GtN,
    ]
    .into_iter()
    .find(|&c| fcond_code(c) == u64::from(v))
}

pub(crate) fn cmpsel(i: &CmpSel, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "cmpsel" };
    let (op, code) = match i.cond {
        Cond::Int(c) => (0x12, icond_code(c)),
        Cond::Float(c) => (0x02, fcond_code(c)),
    };
    let mut b: u128 = op;
    put_dst(&cx, &mut b, 76, i.dst, true, false)?;
    let a = enc_src(&cx, "a", i.a, Hint::None, SRC32)?;
    put_src(&mut b, 16, 74, SRC32, a);
    let bb = enc_src(&cx, "b", i.b, Hint::None, SRC32)?;
    put_src(&mut b, 28, 72, SRC32, bb);
    let x = enc_cmpsel_src(&cx, "x", i.x, i.dst.reg.size)?;
    put(&mut b, 40, 6, u64::from(x.value));
    put(&mut b, 46, 3, u64::from(x.ty));
    put(&mut b, 70, 2, u64::from(x.ext));
    let y = enc_cmpsel_src(&cx, "y", i.y, i.dst.reg.size)?;
    put(&mut b, 52, 6, u64::from(y.value));
    put(&mut b, 58, 3, u64::from(y.ty));
    put(&mut b, 68, 2, u64::from(y.ext));
    put(&mut b, 61, 3, code);
    Ok(fit(b, 8, 10, 15, force_long))
}

pub(crate) fn dec_cmpsel(b: u128) -> Result<Instr, &'static str> {
    let code = get(b, 61, 3);
    let cond = if get(b, 0, 7) == 0x12 {
        Cond::Int(icond_from(code).ok_or("unknown integer condition")?)
    } else {
        Cond::Float(fcond_from(code).ok_or("unknown float condition")?)
    };
    let dst = get_dst(b, 76, false);
    let sel = |at: u32, ext: u32| {
        let f = SrcField {
            value: get(b, at, 6),
            ty: get(b, at + 6, 3),
            ext: get(b, ext, 2),
        };
        dec_cmpsel_src(f, dst.reg.size)
    };
    let (a, _) = dec_src(get_src(b, 16, 74, SRC32), SRC32)?;
    let (bb, _) = dec_src(get_src(b, 28, 72, SRC32), SRC32)?;
    Ok(Instr::CmpSel(CmpSel {
        cond,
        dst,
        a,
        b: bb,
        x: sel(40, 70)?,
        y: sel(52, 68)?,
    }))
}
