//! Graphics encodings: varying interpolation (`iter`, `ldcf`), the vertex varying store
//! (`st_vary`), tilebuffer access (`ld_tile`, `st_tile`) and the coverage outputs
//! (`sample_mask`, `zs_emit`).
//!
//! Bit positions follow Mesa's agx_pack.c (the packing Mesa ships) cross-checked against
//! applegpu's IterateDesc, LdstTileDesc, SampleMaskInstructionDesc and ZSEmitInstructionDesc.
//! Fields neither source gives a meaning to (forwarding, elide, helper kill) are emitted as
//! zero, and the decoder rejects them through the re-encode check.

use super::bits::{fit, get, put, Encoded};
use super::operand_codec::Ctx;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

/// Destination of `iter`/`ldcf`/tile loads: bit 8 says 32-bit, the half index is split into
/// a low 6-bit field at 9 and a 2-bit extension at `hi`.
fn put_vreg(cx: &Ctx, b: &mut u128, r: Reg, hi: u32, allow16: bool) -> Result<(), EncodeError> {
    let wide = match r.size {
        Size::S16 if allow16 => 0,
        Size::S32 => 1,
        s => return Err(cx.err("reg", Problem::WidthNotAllowed(s.bits()))),
    };
    cx.reg("reg", r, GPR_HALVES)?;
    put(b, 8, 1, wide);
    put(b, 9, 6, u64::from(r.half) & 0x3f);
    put(b, hi, 2, u64::from(r.half) >> 6);
    Ok(())
}

fn get_vreg(b: u128, hi: u32) -> Reg {
    Reg {
        half: (get(b, 9, 6) | get(b, hi, 2) << 6) as u16,
        size: if get(b, 8, 1) != 0 {
            Size::S32
        } else {
            Size::S16
        },
    }
}

/// The last register of a run of `n` registers from `r` must still exist.
fn run_fits(cx: &Ctx, r: Reg, n: u16) -> Result<(), EncodeError> {
    let last = Reg {
        half: r.half + r.size.halves() * n.saturating_sub(1),
        size: r.size,
    };
    cx.reg("reg", last, GPR_HALVES)
}

fn channels(cx: &Ctx, n: u8) -> Result<u64, EncodeError> {
    cx.imm("channels", i64::from(n), 1, 4).map(|v| v & 3)
}

fn channels_from(code: u32) -> u8 {
    if code == 0 {
        4
    } else {
        code as u8
    }
}

/// A 16-bit register or 8-bit immediate: (value, is_register).
fn small(cx: &Ctx, name: &'static str, s: Small) -> Result<(u64, bool), EncodeError> {
    match s {
        Small::Imm(v) => Ok((u64::from(v), false)),
        Small::Reg(r) => {
            if r.size != Size::S16 {
                return Err(cx.err(name, Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg(name, r, GPR_HALVES)?;
            Ok((u64::from(r.half), true))
        }
    }
}

fn small_from(v: u32, is_reg: bool) -> Small {
    if is_reg {
        Small::Reg(Reg::r16(v as u16))
    } else {
        Small::Imm(v as u8)
    }
}

pub(crate) fn iter(i: &Iter) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.perspective_w.is_some() {
            "iterproj"
        } else {
            "iter"
        },
    };
    let mut b: u128 = 0x21 | u128::from(i.perspective_w.is_some()) << 6;
    put_vreg(&cx, &mut b, i.dst, 56, true)?;
    run_fits(&cx, i.dst, u16::from(i.channels))?;
    put(&mut b, 16, 6, u64::from(i.cf) & 0x3f);
    put(&mut b, 58, 2, u64::from(i.cf) >> 6);
    if let Some(w) = i.perspective_w {
        put(&mut b, 24, 6, u64::from(w) & 0x3f);
        put(&mut b, 60, 2, u64::from(w) >> 6);
    }
    put(&mut b, 30, 2, channels(&cx, i.channels)?);
    let (mode, sample) = match i.interp {
        Interpolation::Center => (0, 0),
        Interpolation::Centroid => (2, 0),
        Interpolation::Sample(s) => {
            let (v, reg) = small(&cx, "sample", s)?;
            (if reg { 3 } else { 1 }, v)
        }
    };
    put(&mut b, 32, 8, sample);
    put(&mut b, 48, 2, mode);
    Ok(fit(b, 4, 8, 15, false))
}

pub(crate) fn ldcf(i: &LdCf) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "ldcf" };
    let mut b: u128 = 0xa1;
    put_vreg(&cx, &mut b, i.dst, 56, false)?;
    run_fits(&cx, i.dst, 3 * u16::from(i.channels))?;
    put(&mut b, 16, 6, u64::from(i.cf) & 0x3f);
    put(&mut b, 58, 2, u64::from(i.cf) >> 6);
    put(&mut b, 30, 2, channels(&cx, i.channels)?);
    Ok(fit(b, 4, 8, 15, false))
}

/// `iter`, `iterproj` and `ldcf` share the 0x21 opcode; bits 6 and 7 pick the form.
pub(crate) fn dec_iter(b: u128) -> Result<Instr, &'static str> {
    if get(b, 23, 1) != 0 {
        return Err("register-indexed coefficient slot is not modelled");
    }
    let cf = (get(b, 16, 6) | get(b, 58, 2) << 6) as u8;
    let n = channels_from(get(b, 30, 2));
    match get(b, 6, 2) {
        0b10 => Ok(Instr::LdCf(LdCf {
            dst: get_vreg(b, 56),
            channels: n,
            cf,
        })),
        0b11 => Err("ldcf with the perspective bit is not a known form"),
        form => {
            let sample = get(b, 32, 8);
            let interp = match get(b, 48, 2) {
                0 => Interpolation::Center,
                2 => Interpolation::Centroid,
                1 => Interpolation::Sample(small_from(sample, false)),
                _ => Interpolation::Sample(small_from(sample, true)),
            };
            Ok(Instr::Iter(Iter {
                dst: get_vreg(b, 56),
                channels: n,
                cf,
                perspective_w: (form == 1).then(|| (get(b, 24, 6) | get(b, 60, 2) << 6) as u8),
                interp,
            }))
        }
    }
}

pub(crate) fn st_vary(i: &StVary) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "st_vary" };
    if i.src.size != Size::S32 {
        return Err(cx.err("src", Problem::WidthNotAllowed(i.src.size.bits())));
    }
    cx.reg("src", i.src, GPR_HALVES)?;
    let (idx, reg) = small(&cx, "index", i.index)?;
    let mut b: u128 = 0x11 | u128::from(i.last) << 7;
    put(&mut b, 9, 6, u64::from(i.src.half) & 0x3f);
    put(&mut b, 24, 2, u64::from(i.src.half) >> 6);
    put(&mut b, 16, 6, idx & 0x3f);
    put(&mut b, 26, 2, idx >> 6);
    put(&mut b, 23, 1, u64::from(!reg));
    // Mesa sets bit 31 on every st_vary without naming it.
    put(&mut b, 28, 4, 0x8);
    Ok(fit(b, 4, 4, 15, false))
}

pub(crate) fn dec_st_vary(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::StVary(StVary {
        src: Reg {
            half: (get(b, 9, 6) | get(b, 24, 2) << 6) as u16,
            size: Size::S32,
        },
        index: small_from(get(b, 16, 6) | get(b, 26, 2) << 6, get(b, 23, 1) == 0),
        last: get(b, 7, 1) != 0,
    }))
}

pub(crate) fn tile(i: &TileMem) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.store { "st_tile" } else { "ld_tile" },
    };
    let mut b: u128 = if i.store { 0x09 } else { 0x49 };
    put_vreg(&cx, &mut b, i.reg, 60, i.format != MemFormat::I32)?;
    run_fits(&cx, i.reg, i.mask.count_ones() as u16)?;
    let (s, s_reg) = small(&cx, "samples", i.samples)?;
    put(&mut b, 22, 1, u64::from(s_reg));
    put(&mut b, 42, 6, s & 0x3f);
    put(&mut b, 56, 2, s >> 6);
    put(&mut b, 24, 4, super::isa_mem::format_code(i.format));
    let off = cx.imm("pixel_offset", i.pixel_offset.into(), 0, 0x1ff)?;
    put(&mut b, 28, 7, off & 0x7f);
    put(&mut b, 40, 2, off >> 7);
    put(&mut b, 36, 4, cx.imm("mask", i.mask.into(), 1, 15)?);
    if let Some(c) = i.coords {
        if c.size != Size::S32 {
            return Err(cx.err("coords", Problem::WidthNotAllowed(c.size.bits())));
        }
        cx.reg("coords", c, GPR_HALVES)?;
        put(&mut b, 16, 6, u64::from(c.half) & 0x3f);
        put(&mut b, 58, 2, u64::from(c.half) >> 6);
        put(&mut b, 55, 1, 1);
    }
    // Mesa sets bit 35 on loads and on explicit-coordinate stores.
    put(&mut b, 35, 1, u64::from(!i.store || i.coords.is_some()));
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_tile(b: u128) -> Result<Instr, &'static str> {
    let coords = (get(b, 55, 1) != 0).then(|| Reg {
        half: (get(b, 16, 6) | get(b, 58, 2) << 6) as u16,
        size: Size::S32,
    });
    Ok(Instr::TileMem(TileMem {
        store: get(b, 6, 1) == 0,
        reg: get_vreg(b, 60),
        format: super::isa_mem::format_from(get(b, 24, 4))?,
        mask: get(b, 36, 4) as u8,
        pixel_offset: (get(b, 28, 7) | get(b, 40, 2) << 7) as u16,
        samples: small_from(get(b, 42, 6) | get(b, 56, 2) << 6, get(b, 22, 1) != 0),
        coords,
    }))
}

/// The sample-set source at bits 9/24 (bit 8 set for an immediate) shared by `sample_mask`
/// and `zs_emit`.
fn put_sample_set(cx: &Ctx, b: &mut u128, s: Small) -> Result<(), EncodeError> {
    let (v, reg) = small(cx, "samples", s)?;
    put(b, 8, 1, u64::from(!reg));
    put(b, 9, 6, v & 0x3f);
    put(b, 24, 2, v >> 6);
    Ok(())
}

fn get_sample_set(b: u128) -> Small {
    small_from(get(b, 9, 6) | get(b, 24, 2) << 6, get(b, 8, 1) == 0)
}

pub(crate) fn sample_mask(i: &SampleMask) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "sample_mask",
    };
    let mut b: u128 = 0xc1;
    put_sample_set(&cx, &mut b, i.targets)?;
    let (v, reg) = small(&cx, "live", i.live)?;
    put(&mut b, 16, 6, v & 0x3f);
    put(&mut b, 26, 2, v >> 6);
    put(&mut b, 23, 1, u64::from(!reg));
    Ok(fit(b, 4, 4, 15, false))
}

pub(crate) fn zs_emit(i: &ZsEmit) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "zs_emit" };
    if !i.depth && !i.stencil {
        return Err(cx.err("zs", Problem::KindNotAllowed("neither depth nor stencil")));
    }
    let want = if i.depth { Size::S32 } else { Size::S16 };
    if i.src.size != want {
        return Err(cx.err("src", Problem::WidthNotAllowed(i.src.size.bits())));
    }
    let halves = if i.depth && i.stencil {
        4
    } else {
        want.halves()
    };
    cx.reg("src", i.src, GPR_HALVES)?;
    cx.reg(
        "src",
        Reg {
            half: i.src.half + halves - 1,
            size: Size::S16,
        },
        GPR_HALVES,
    )?;
    let mut b: u128 = 0x41;
    put_sample_set(&cx, &mut b, i.samples)?;
    put(&mut b, 16, 6, u64::from(i.src.half) & 0x3f);
    put(&mut b, 26, 2, u64::from(i.src.half) >> 6);
    put(&mut b, 29, 1, u64::from(i.depth));
    put(&mut b, 30, 1, u64::from(i.stencil));
    Ok(fit(b, 4, 4, 15, false))
}

/// `sample_mask` (0xc1) and `zs_emit` (0x41) differ in bit 7.
pub(crate) fn dec_coverage(b: u128) -> Result<Instr, &'static str> {
    if get(b, 7, 1) != 0 {
        return Ok(Instr::SampleMask(SampleMask {
            targets: get_sample_set(b),
            live: small_from(get(b, 16, 6) | get(b, 26, 2) << 6, get(b, 23, 1) == 0),
        }));
    }
    let depth = get(b, 29, 1) != 0;
    let stencil = get(b, 30, 1) != 0;
    if !depth && !stencil {
        return Err("zs_emit writing neither depth nor stencil");
    }
    Ok(Instr::ZsEmit(ZsEmit {
        samples: get_sample_set(b),
        src: Reg {
            half: (get(b, 16, 6) | get(b, 26, 2) << 6) as u16,
            size: if depth { Size::S32 } else { Size::S16 },
        },
        depth,
        stencil,
    }))
}
