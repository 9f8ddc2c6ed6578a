//! Texture and image encodings: `texture_sample`, `texture_load` and `image_write`.
//!
//! Field positions follow Mesa's agx_pack.c (the TEXTURE_SAMPLE/TEXTURE_LOAD and IMAGE_WRITE
//! cases and their operand helpers), checked against applegpu's
//! TextureLoadSampleBaseInstructionDesc and ImageWriteBlockInstructionDesc. Texture words
//! carry their high register bits in a trailing 32-bit extension present only when non-zero;
//! image writes drop their last two bytes the same way. Unnamed control bits are emitted with
//! Mesa's constant values (q3 = 0xc, image coherency 0x9/0xf) and nothing else decodes.

use super::bits::{fit, get, put, Encoded};
use super::operand_codec::Ctx;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

const DIMS: [TexDim; 9] = [
    TexDim::D1,
    TexDim::D1Array,
    TexDim::D2,
    TexDim::D2Array,
    TexDim::D2Ms,
    TexDim::D3,
    TexDim::Cube,
    TexDim::CubeArray,
    TexDim::D2MsArray,
];

fn dim_code(d: TexDim) -> u64 {
    DIMS.iter().position(|&x| x == d).unwrap_or(0) as u64
}

fn dim_from(code: u32) -> Result<TexDim, &'static str> {
    DIMS.get(code as usize)
        .copied()
        .ok_or("unknown texture dimension")
}

fn reg_of(cx: &Ctx, name: &'static str, r: Reg, sizes: &[Size]) -> Result<u64, EncodeError> {
    if !sizes.contains(&r.size) {
        return Err(cx.err(name, Problem::WidthNotAllowed(r.size.bits())));
    }
    cx.reg(name, r, GPR_HALVES)?;
    Ok(u64::from(r.half))
}

/// Texture operand: (value, Tt, bindless base >> 2).
fn texture(cx: &Ctx, t: TexIndex) -> Result<(u64, u64, u64), EncodeError> {
    match t {
        TexIndex::Imm(n) => Ok((u64::from(n), 0, 0)),
        TexIndex::Reg(r) => Ok((reg_of(cx, "texture", r, &[Size::S16])?, 1, 0)),
        TexIndex::Bindless { base, index } => {
            if base % 4 != 0 || base >= 128 {
                let p = Problem::ImmediateOutOfRange {
                    value: i64::from(base),
                    min: 0,
                    max: 124,
                };
                return Err(cx.err("bindless base", p));
            }
            Ok((
                reg_of(cx, "texture", index, &[Size::S32])?,
                3,
                u64::from(base / 4),
            ))
        }
    }
}

fn texture_from(v: u32, tt: u32, u: u32) -> Result<TexIndex, &'static str> {
    match tt {
        0 => Ok(TexIndex::Imm(v as u8)),
        1 => Ok(TexIndex::Reg(Reg::r16(v as u16))),
        3 => Ok(TexIndex::Bindless {
            base: (u * 4) as u16,
            index: Reg {
                half: v as u16,
                size: Size::S32,
            },
        }),
        _ => Err("texture operand type 2 is not known"),
    }
}

/// (register-form code, uniform-form code) of each LOD mode, from Mesa's agx_lod_mode.
fn lod_codes(m: LodMode) -> (u64, Option<u64>) {
    match m {
        LodMode::Auto => (0, None),
        LodMode::AutoBias => (5, Some(1)),
        LodMode::Min => (6, Some(2)),
        LodMode::Grad => (4, None),
        LodMode::GradMin => (12, None),
        LodMode::AutoBiasMin => (13, Some(9)),
    }
}

const LOD_MODES: [LodMode; 6] = [
    LodMode::Auto,
    LodMode::AutoBias,
    LodMode::Min,
    LodMode::Grad,
    LodMode::GradMin,
    LodMode::AutoBiasMin,
];

fn lod_width(m: LodMode) -> Size {
    match m {
        LodMode::Grad | LodMode::GradMin => Size::S32,
        _ => Size::S16,
    }
}

/// LOD operand: (mode code, value).
fn lod(cx: &Ctx, m: LodMode, op: Operand) -> Result<(u64, u64), EncodeError> {
    let (reg_code, uni_code) = lod_codes(m);
    match (m, op) {
        (LodMode::Auto, Operand::Imm(0)) => Ok((0, 0)),
        (LodMode::Auto, _) => {
            Err(cx.err("lod", Problem::KindNotAllowed("LOD operand with auto LOD")))
        }
        (_, Operand::Imm(_)) => Err(cx.err("lod", Problem::KindNotAllowed("immediate LOD"))),
        (_, Operand::Reg(r)) => Ok((reg_code, reg_of(cx, "lod", r, &[lod_width(m)])?)),
        (_, Operand::Uniform(r)) => {
            let code =
                uni_code.ok_or(cx.err("lod", Problem::KindNotAllowed("uniform gradient")))?;
            if r.size != Size::S16 {
                return Err(cx.err("lod", Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg("lod", r, 256)?;
            Ok((code, u64::from(r.half)))
        }
    }
}

fn lod_from(code: u32, v: u32) -> Result<(LodMode, Operand), &'static str> {
    for m in LOD_MODES {
        let (reg_code, uni_code) = lod_codes(m);
        if m == LodMode::Auto && code == 0 {
            return Ok((m, Operand::Imm(v)));
        }
        if u64::from(code) == reg_code {
            let r = Reg {
                half: v as u16,
                size: lod_width(m),
            };
            return Ok((m, Operand::Reg(r)));
        }
        if Some(u64::from(code)) == uni_code {
            return Ok((m, Operand::Uniform(Reg::r16(v as u16))));
        }
    }
    Err("unknown LOD mode")
}

pub(crate) fn texture_op(i: &Texture, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.load {
            "texture_load"
        } else {
            "texture_sample"
        },
    };
    let mut b: u128 = if i.load { 0x71 } else { 0x31 };
    let r = reg_of(&cx, "dst", i.dst, &[Size::S16, Size::S32])?;
    let last = Reg {
        half: i.dst.half + i.dst.size.halves() * (i.mask.count_ones() as u16).saturating_sub(1),
        size: i.dst.size,
    };
    cx.reg("dst", last, GPR_HALVES)?;
    put(&mut b, 8, 1, u64::from(i.dst.size == Size::S32));
    put(&mut b, 9, 6, r & 0x3f);
    put(&mut b, 72, 2, r >> 6);
    let c = reg_of(&cx, "coords", i.coords, &[Size::S32])?;
    put(&mut b, 16, 6, c & 0x3f);
    put(&mut b, 74, 2, c >> 6);
    put(&mut b, 23, 1, u64::from(i.shadow));
    let (mode, d) = lod(&cx, i.lod_mode, i.lod)?;
    put(&mut b, 24, 6, d & 0x3f);
    put(&mut b, 76, 2, d >> 6);
    put(&mut b, 52, 4, mode);
    put(&mut b, 30, 2, if i.query_lod { 2 } else { 0 });
    let (t, tt, u) = texture(&cx, i.texture)?;
    put(&mut b, 32, 6, t & 0x3f);
    put(&mut b, 78, 2, t >> 6);
    put(&mut b, 38, 2, tt);
    put(&mut b, 64, 5, u);
    let (s, s_reg) = match i.sampler {
        Small::Imm(v) => (u64::from(v), 0),
        Small::Reg(r) => (reg_of(&cx, "sampler", r, &[Size::S16])?, 1),
    };
    put(&mut b, 56, 6, s & 0x3f);
    put(&mut b, 62, 1, s_reg);
    put(&mut b, 92, 2, s >> 6);
    let dim = dim_code(i.dim);
    put(&mut b, 40, 3, dim & 7);
    put(&mut b, 71, 1, dim >> 3);
    put(&mut b, 43, 4, 0xc);
    put(&mut b, 48, 4, cx.imm("mask", i.mask.into(), 1, 15)?);
    put(
        &mut b,
        63,
        1,
        cx.imm("wait_slot", i.wait_slot.into(), 0, 1)?,
    );
    if i.extra.is_some() != (i.shadow || i.offset) {
        let p = Problem::KindNotAllowed("extra register without shadow/offset (or the reverse)");
        return Err(cx.err("extra", p));
    }
    if let Some(o) = i.extra {
        let o = reg_of(&cx, "extra", o, &[Size::S32])?;
        put(&mut b, 80, 6, o & 0x3f);
        put(&mut b, 94, 2, o >> 6);
    }
    put(&mut b, 91, 1, u64::from(i.offset));
    if let Some(g) = i.gather {
        put(&mut b, 87, 3, (cx.imm("gather", g.into(), 0, 3)? << 1) | 1);
    }
    Ok(fit(b, 8, 12, 15, force_long))
}

pub(crate) fn dec_texture(b: u128) -> Result<Instr, &'static str> {
    let (lod_mode, lod) = lod_from(get(b, 52, 4), get(b, 24, 6) | get(b, 76, 2) << 6)?;
    let shadow = get(b, 23, 1) != 0;
    let offset = get(b, 91, 1) != 0;
    let gather = match get(b, 87, 3) {
        0 => None,
        g if g & 1 == 1 => Some((g >> 1) as u8),
        _ => return Err("unknown gather code"),
    };
    let sampler_v = get(b, 56, 6) | get(b, 92, 2) << 6;
    Ok(Instr::Texture(Texture {
        load: get(b, 6, 1) != 0,
        dst: Reg {
            half: (get(b, 9, 6) | get(b, 72, 2) << 6) as u16,
            size: if get(b, 8, 1) != 0 {
                Size::S32
            } else {
                Size::S16
            },
        },
        coords: Reg {
            half: (get(b, 16, 6) | get(b, 74, 2) << 6) as u16,
            size: Size::S32,
        },
        lod_mode,
        lod,
        texture: texture_from(
            get(b, 32, 6) | get(b, 78, 2) << 6,
            get(b, 38, 2),
            get(b, 64, 5),
        )?,
        sampler: if get(b, 62, 1) != 0 {
            Small::Reg(Reg::r16(sampler_v as u16))
        } else {
            Small::Imm(sampler_v as u8)
        },
        dim: dim_from(get(b, 40, 3) | get(b, 71, 1) << 3)?,
        mask: get(b, 48, 4) as u8,
        shadow,
        offset,
        extra: (shadow || offset).then(|| Reg {
            half: (get(b, 80, 6) | get(b, 94, 2) << 6) as u16,
            size: Size::S32,
        }),
        gather,
        query_lod: get(b, 30, 2) == 2,
        wait_slot: get(b, 63, 1) as u8,
    }))
}

/// The texture operand of the PBE writes (`image_write`, `block_image_store`): low bits at
/// 32, its type at 38, the bindless base at 48, the two high bits at `hi` (62 or 78).
fn pbe_texture(b: u128, hi: u32) -> Result<TexIndex, &'static str> {
    texture_from(
        get(b, 32, 6) | get(b, hi, 2) << 6,
        get(b, 38, 2),
        get(b, 48, 5),
    )
}

/// The dimension of the PBE writes: three bits at 40, the fourth at 55.
fn pbe_dim(b: u128) -> Result<TexDim, &'static str> {
    dim_from(get(b, 40, 3) | get(b, 55, 1) << 3)
}

pub(crate) fn image_write(i: &ImageWrite, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "image_write",
    };
    let mut b: u128 = 0xf1 | 1 << 23;
    let r = reg_of(&cx, "src", i.src, &[Size::S16, Size::S32])?;
    let last = Reg {
        half: i.src.half + 3 * i.src.size.halves(),
        size: i.src.size,
    };
    cx.reg("src", last, GPR_HALVES)?;
    put(&mut b, 8, 1, u64::from(i.src.size == Size::S32));
    put(&mut b, 9, 6, r & 0x3f);
    put(&mut b, 56, 2, r >> 6);
    let c = reg_of(&cx, "coords", i.coords, &[Size::S32])?;
    put(&mut b, 16, 6, c & 0x3f);
    put(&mut b, 58, 2, c >> 6);
    let (d, d_imm) = match i.lod {
        Small::Imm(v) => (u64::from(v), 1),
        Small::Reg(r) => (reg_of(&cx, "lod", r, &[Size::S16])?, 0),
    };
    put(&mut b, 24, 6, d & 0x3f);
    put(&mut b, 60, 2, d >> 6);
    put(&mut b, 31, 1, d_imm);
    let (t, tt, u) = texture(&cx, i.texture)?;
    put(&mut b, 32, 6, t & 0x3f);
    put(&mut b, 62, 2, t >> 6);
    put(&mut b, 38, 2, tt);
    put(&mut b, 48, 5, u);
    let dim = dim_code(i.dim);
    put(&mut b, 40, 3, dim & 7);
    // applegpu's image_write_block keeps the dimension's high bit at 55.
    put(&mut b, 55, 1, dim >> 3);
    put(&mut b, 43, 4, if i.coherent { 0xf } else { 0x9 });
    Ok(fit(b, 6, 8, 15, force_long))
}

pub(crate) fn dec_image_write(b: u128) -> Result<Instr, &'static str> {
    let coherent = match get(b, 43, 4) {
        0xf => true,
        0x9 => false,
        _ => return Err("unmodelled image_write cache control"),
    };
    let d = get(b, 24, 6) | get(b, 60, 2) << 6;
    Ok(Instr::ImageWrite(ImageWrite {
        src: Reg {
            half: (get(b, 9, 6) | get(b, 56, 2) << 6) as u16,
            size: if get(b, 8, 1) != 0 {
                Size::S32
            } else {
                Size::S16
            },
        },
        coords: Reg {
            half: (get(b, 16, 6) | get(b, 58, 2) << 6) as u16,
            size: Size::S32,
        },
        lod: if get(b, 31, 1) != 0 {
            Small::Imm(d as u8)
        } else {
            Small::Reg(Reg::r16(d as u16))
        },
        texture: pbe_texture(b, 62)?,
        dim: pbe_dim(b)?,
        coherent,
    }))
}

/// `block_image_store`, always in its 10-byte form (Mesa sets the length bit and a constant
/// bit in the last two bytes). Mesa's constant control bits are emitted as they are: the
/// immediate-LOD flag (31), cache control 9 (43..47) and bit 67.
pub(crate) fn block_image_store(
    i: &BlockImageStore,
    force_long: bool,
) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "block_image_store",
    };
    let mut b: u128 = 0xb1 | 1 << 31 | 1 << 67;
    let f = super::isa_mem::format_code(i.format);
    put(&mut b, 8, 1, f & 1);
    put(&mut b, 64, 3, f >> 1);
    let r = reg_of(&cx, "offset", i.offset, &[Size::S32])?;
    put(&mut b, 9, 6, r & 0x3f);
    put(&mut b, 56, 2, r >> 6);
    let (t, tt, u) = texture(&cx, i.texture)?;
    put(&mut b, 32, 6, t & 0x3f);
    put(&mut b, 78, 2, t >> 6);
    put(&mut b, 38, 2, tt);
    put(&mut b, 48, 5, u);
    if !matches!(i.dim, TexDim::D2 | TexDim::D2Ms) {
        return Err(cx.err(
            "dim",
            Problem::KindNotAllowed("a block store of other than one 2D layer"),
        ));
    }
    let dim = dim_code(i.dim);
    put(&mut b, 40, 3, dim & 7);
    put(&mut b, 55, 1, dim >> 3);
    put(&mut b, 43, 4, 0x9);
    Ok(fit(b, 6, 10, 15, force_long))
}

/// Decodes `block_image_store`; any bit the model does not know (explicit coordinates, a
/// layer register, another cache control) makes it unmodelled rather than lost.
pub(crate) fn dec_block_image_store(b: u128) -> Result<Instr, &'static str> {
    let i = BlockImageStore {
        format: super::isa_mem::format_from(get(b, 8, 1) | get(b, 64, 3) << 1)?,
        offset: Reg {
            half: (get(b, 9, 6) | get(b, 56, 2) << 6) as u16,
            size: Size::S32,
        },
        texture: pbe_texture(b, 78)?,
        dim: pbe_dim(b)?,
    };
    match block_image_store(&i, true) {
        Ok(e) if e.bits == b => Ok(Instr::BlockImageStore(i)),
        _ => Err("block_image_store with coordinates, a layer or control bits agx4 does not model"),
    }
}
