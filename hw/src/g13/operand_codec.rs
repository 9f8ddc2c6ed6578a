//! Register, uniform and immediate operand fields shared by the ALU encodings.
//!
//! A source occupies a 6-bit value, a 3- or 4-bit type and a 2-bit extension holding the value's
//! high bits elsewhere in the word. Type 0 is an 8-bit immediate; `01xx` a uniform (bit 0 is the
//! uniform's ninth bit, bit 1 selects 32 bits); otherwise bits 1..0 are the cache/discard hint
//! (never 0 for a register) and bits 3..2 the width (00 = 16, 10 = 32, 11 = 64).

use super::bits::{get, put};
use crate::isa::{Dst, Hint, Operand, Reg, Size, GPR_HALVES, UNIFORM_HALVES};
use crate::isa::{EncodeError, Problem};

/// How wide a source's type field is and which widths it takes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SrcKind {
    /// 4 for most sources, 3 for 16-bit float sources (no width bit: always 16).
    pub type_bits: u32,
    pub allow32: bool,
    pub allow64: bool,
}

pub(crate) const SRC16: SrcKind = SrcKind {
    type_bits: 3,
    allow32: false,
    allow64: false,
};
pub(crate) const SRC32: SrcKind = SrcKind {
    type_bits: 4,
    allow32: true,
    allow64: false,
};
pub(crate) const SRC64: SrcKind = SrcKind {
    type_bits: 4,
    allow32: true,
    allow64: true,
};

pub(crate) struct Ctx {
    pub instr: &'static str,
}

impl Ctx {
    pub fn err(&self, operand: &'static str, problem: Problem) -> EncodeError {
        EncodeError::new(self.instr, operand, problem)
    }

    /// Checks a general register fits below `limit` halves with its natural alignment.
    pub fn reg(&self, operand: &'static str, r: Reg, limit: u16) -> Result<(), EncodeError> {
        if r.half >= limit || r.half + r.size.halves() > limit {
            return Err(self.err(
                operand,
                Problem::RegisterTooHigh {
                    half: r.half,
                    limit,
                },
            ));
        }
        if r.size != Size::S16 && !r.half.is_multiple_of(2) {
            return Err(self.err(operand, Problem::Misaligned { half: r.half }));
        }
        Ok(())
    }

    pub fn imm(
        &self,
        operand: &'static str,
        v: i64,
        min: i64,
        max: i64,
    ) -> Result<u64, EncodeError> {
        if v < min || v > max {
            return Err(self.err(operand, Problem::ImmediateOutOfRange { value: v, min, max }));
        }
        Ok(v as u64)
    }
}

fn hint_bits(h: Hint) -> u32 {
    match h {
        Hint::None => 1,
        Hint::Cache => 2,
        Hint::Discard => 3,
    }
}

fn hint_from(bits: u32) -> Hint {
    match bits & 3 {
        2 => Hint::Cache,
        3 => Hint::Discard,
        _ => Hint::None,
    }
}

/// A source as (value with type above it, extension bits).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SrcField {
    pub value: u32,
    pub ty: u32,
    pub ext: u32,
}

pub(crate) fn enc_src(
    cx: &Ctx,
    name: &'static str,
    op: Operand,
    hint: Hint,
    kind: SrcKind,
) -> Result<SrcField, EncodeError> {
    let width_ok = |s: Size| match s {
        Size::S16 => true,
        Size::S32 => kind.allow32,
        Size::S64 => kind.allow64,
    };
    match op {
        Operand::Imm(v) => {
            if hint != Hint::None {
                return Err(cx.err(name, Problem::ModifierNotEncodable("hint on immediate")));
            }
            let v = cx.imm(name, i64::from(v), 0, 255)? as u32;
            Ok(SrcField {
                value: v & 0x3f,
                ty: 0,
                ext: v >> 6,
            })
        }
        Operand::Uniform(r) => {
            if hint != Hint::None {
                return Err(cx.err(name, Problem::ModifierNotEncodable("hint on uniform")));
            }
            if r.size == Size::S64 || !width_ok(r.size) {
                return Err(cx.err(name, Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg(name, r, UNIFORM_HALVES)?;
            let wide = u32::from(r.size == Size::S32) << 1;
            let h = u32::from(r.half);
            Ok(SrcField {
                value: h & 0x3f,
                ty: 0b0100 | wide | (h >> 8),
                ext: (h >> 6) & 3,
            })
        }
        Operand::Reg(r) => {
            if !width_ok(r.size) {
                return Err(cx.err(name, Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg(name, r, GPR_HALVES)?;
            let width = match r.size {
                Size::S16 => 0,
                Size::S32 => 0b10,
                Size::S64 => 0b11,
            };
            let h = u32::from(r.half);
            Ok(SrcField {
                value: h & 0x3f,
                ty: hint_bits(hint) | width << 2,
                ext: h >> 6,
            })
        }
    }
}

pub(crate) fn dec_src(f: SrcField, kind: SrcKind) -> Result<(Operand, Hint), &'static str> {
    let full = f.value | f.ext << 6;
    if f.ty == 0 {
        return Ok((Operand::Imm(full), Hint::None));
    }
    if f.ty & 0b1100 == 0b0100 {
        let half = (full | (f.ty & 1) << 8) as u16;
        let size = if f.ty & 2 != 0 { Size::S32 } else { Size::S16 };
        return Ok((Operand::Uniform(Reg { half, size }), Hint::None));
    }
    if f.ty & 3 == 0 {
        return Err("register source without a hint");
    }
    let size = match f.ty >> 2 {
        0 => Size::S16,
        2 if kind.allow32 => Size::S32,
        3 if kind.allow64 => Size::S64,
        _ => return Err("source width not valid here"),
    };
    Ok((
        Operand::Reg(Reg {
            half: full as u16,
            size,
        }),
        hint_from(f.ty),
    ))
}

/// Places a source: value at `at`, type right above it, extension at `ext_at`.
pub(crate) fn put_src(bits: &mut u128, at: u32, ext_at: u32, kind: SrcKind, f: SrcField) {
    put(bits, at, 6, u64::from(f.value));
    put(bits, at + 6, kind.type_bits, u64::from(f.ty));
    put(bits, ext_at, 2, u64::from(f.ext));
}

pub(crate) fn get_src(bits: u128, at: u32, ext_at: u32, kind: SrcKind) -> SrcField {
    SrcField {
        value: get(bits, at, 6),
        ty: get(bits, at + 6, kind.type_bits),
        ext: get(bits, ext_at, 2),
    }
}

/// Destination: type at bit 7 (cache, 32-bit), 6-bit value at bit 9, extension at `ext_at`.
/// A 64-bit destination sets the low value bit of its (even) half index.
pub(crate) fn put_dst(
    cx: &Ctx,
    bits: &mut u128,
    ext_at: u32,
    d: Dst,
    allow32: bool,
    allow64: bool,
) -> Result<(), EncodeError> {
    let r = d.reg;
    match r.size {
        Size::S32 if !allow32 => return Err(cx.err("dst", Problem::WidthNotAllowed(32))),
        Size::S64 if !allow64 => return Err(cx.err("dst", Problem::WidthNotAllowed(64))),
        _ => {}
    }
    cx.reg("dst", r, GPR_HALVES)?;
    let h = u64::from(r.half) | u64::from(r.size == Size::S64);
    let t = u64::from(d.cache) | u64::from(r.size != Size::S16) << 1;
    put(bits, 7, 2, t);
    put(bits, 9, 6, h & 0x3f);
    put(bits, ext_at, 2, h >> 6);
    Ok(())
}

pub(crate) fn get_dst(bits: u128, ext_at: u32, allow64: bool) -> Dst {
    let t = get(bits, 7, 2);
    let v = (get(bits, 9, 6) | get(bits, ext_at, 2) << 6) as u16;
    let reg = if t & 2 == 0 {
        Reg {
            half: v,
            size: Size::S16,
        }
    } else if v & 1 != 0 && allow64 {
        Reg {
            half: v & !1,
            size: Size::S64,
        }
    } else {
        Reg {
            half: v,
            size: Size::S32,
        }
    };
    Dst {
        reg,
        cache: t & 1 != 0,
    }
}

/// The selected values of a compare-and-select: 3-bit type (100 = immediate, 11u = uniform,
/// else a hint) and a width that must equal the destination's.
pub(crate) fn enc_cmpsel_src(
    cx: &Ctx,
    name: &'static str,
    op: Operand,
    dst: Size,
) -> Result<SrcField, EncodeError> {
    let same = |r: Reg| {
        if r.size == dst {
            Ok(())
        } else {
            Err(cx.err(name, Problem::WidthNotAllowed(r.size.bits())))
        }
    };
    match op {
        Operand::Imm(v) => {
            let v = cx.imm(name, i64::from(v), 0, 255)? as u32;
            Ok(SrcField {
                value: v & 0x3f,
                ty: 0b100,
                ext: v >> 6,
            })
        }
        Operand::Uniform(r) => {
            same(r)?;
            cx.reg(name, r, UNIFORM_HALVES)?;
            let h = u32::from(r.half);
            Ok(SrcField {
                value: h & 0x3f,
                ty: 0b110 | (h >> 8),
                ext: (h >> 6) & 3,
            })
        }
        Operand::Reg(r) => {
            same(r)?;
            cx.reg(name, r, GPR_HALVES)?;
            let h = u32::from(r.half);
            Ok(SrcField {
                value: h & 0x3f,
                ty: 1,
                ext: h >> 6,
            })
        }
    }
}

pub(crate) fn dec_cmpsel_src(f: SrcField, dst: Size) -> Result<Operand, &'static str> {
    let full = f.value | f.ext << 6;
    match f.ty {
        0b100 => Ok(Operand::Imm(full)),
        0b110 | 0b111 => Ok(Operand::Uniform(Reg {
            half: (full | (f.ty & 1) << 8) as u16,
            size: dst,
        })),
        1 => Ok(Operand::Reg(Reg {
            half: full as u16,
            size: dst,
        })),
        _ => Err("unmodelled compare-select source type"),
    }
}
