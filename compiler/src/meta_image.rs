//! Image meta shaders written directly as G13 machine code: the programs behind
//! vkCmdBlitImage, vkCmdResolveImage and vkCmdClearDepthStencilImage.
//!
//! They are small and fixed, so they skip the IR and use fixed registers. Every program runs
//! a 2D grid of [`LOCAL_SIZE`] workgroups, one invocation per destination pixel of a
//! `WIDTH` x `HEIGHT` rectangle (the launch rounds the grid up; invocations past the
//! rectangle are masked off), and ends with one `image_write` through the PBE descriptor in
//! texture state register 1 at (`DST_X0` + x, `DST_Y0` + y), level 0 of that descriptor.
//! Sources are read through the texture descriptor in texture state register 0 (and, for
//! blits, the sampler in sampler state register 0). The ICD gives each launch one level and
//! one layer (or 3D slice) of each image.
//!
//! Parameters are 32-bit uniforms, preloaded from a small buffer by a USC Uniform word; the
//! `uniforms` module gives their indices (uniform `u<i>` is halves `2i`, `2i + 1`).

use hw::isa::EncodeError;
use hw::isa::*;
use thiserror::Error;

/// Why a program could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MetaImageError {
    #[error("resolve of {0} samples")]
    Samples(u8),
    #[error("encoding: {0}")]
    Encode(#[from] EncodeError),
}

/// Threads per workgroup along x and y.
pub const LOCAL_SIZE: [u32; 3] = [8, 8, 1];

/// Which program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageMeta {
    /// Samples the source at the normalized coordinates
    /// (x * `SCALE_X` + `BIAS_X`, y * `SCALE_Y` + `BIAS_Y` [, `W`]) with an explicit LOD of 0
    /// and writes the filtered texel. `volume`: the source is a 3D texture and `W` is the
    /// normalized depth coordinate.
    Blit { volume: bool },
    /// Loads samples 0..`samples` of the multisampled source at (`SRC_X0` + x, `SRC_Y0` + y)
    /// and writes their average (`average`, float formats; multiplied by `INV_SAMPLES`) or
    /// sample 0 alone (integer formats).
    Resolve { samples: u8, average: bool },
    /// Writes the four 32-bit words `VALUE..VALUE + 4` (f32 or integers, as the PBE's format
    /// wants) to every pixel.
    Fill,
}

/// Uniform indices (32-bit) of the parameters.
pub mod uniforms {
    pub const WIDTH: u16 = 0;
    pub const HEIGHT: u16 = 1;
    pub const DST_X0: u16 = 2;
    pub const DST_Y0: u16 = 3;
    /// Blit: f32 step and offset of the normalized source coordinates per destination pixel.
    pub const SCALE_X: u16 = 4;
    pub const BIAS_X: u16 = 5;
    pub const SCALE_Y: u16 = 6;
    pub const BIAS_Y: u16 = 7;
    /// Blit from a 3D source: the normalized depth coordinate of this slice.
    pub const W: u16 = 8;
    /// Resolve: source corner, and 1 / samples as f32.
    pub const SRC_X0: u16 = 4;
    pub const SRC_Y0: u16 = 5;
    pub const INV_SAMPLES: u16 = 6;
    /// Fill: four words.
    pub const VALUE: u16 = 4;
    /// 32-bit uniforms every program may read.
    pub const COUNT: u16 = 9;
}

/// A program ready to upload: machine code ending in `stop`, and what the launch gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageProgram {
    pub code: Vec<u8>,
    /// Registers used, in 16-bit halves.
    pub gpr_halves: u32,
    /// Uniform halves to preload.
    pub uniform_halves: u32,
    pub local_size: [u32; 3],
}

// Fixed registers. r0l holds the exec-mask nesting counter and stays untouched.
const TID_X: Reg = Reg::r32(1);
const TID_Y: Reg = Reg::r32(2);
/// 16-bit LOD of the sample (f16 0.0), r3l.
const LOD: Reg = Reg::r16(6);
/// Source coordinates (f32 for samples, integers for loads): r4, r5, r6.
const SRC: u16 = 4;
/// Destination coordinates: r8, r9.
const DST: u16 = 8;
/// The texel written: r10..r13; r14..r17 hold further samples of a resolve.
const TEXEL: u16 = 10;
const TEMP: u16 = 14;
const GPR_HALVES: u32 = 36;

fn uni(i: u16) -> Operand {
    Operand::Uniform(Reg {
        half: 2 * i,
        size: Size::S32,
    })
}

fn reg(n: u16) -> Operand {
    Operand::Reg(Reg::r32(n))
}

fn iadd(dst: u16, a: Operand, b: Operand) -> Instr {
    Instr::IAdd(IAdd {
        dst: Reg::r32(dst).into(),
        a: a.into(),
        b: b.into(),
        negate_b: false,
        shift: 0,
        saturate: false,
    })
}

fn fop(op: FOp, dst: u16, a: Operand, b: Operand, c: Operand) -> Instr {
    Instr::FArith(FArith {
        op,
        dst: Reg::r32(dst).into(),
        a: a.into(),
        b: b.into(),
        c: c.into(),
        saturate: false,
    })
}

fn mov(dst: Reg, imm: u32) -> Instr {
    Instr::MovImm(MovImm {
        dst: dst.into(),
        imm,
    })
}

fn texture(load: bool, dim: TexDim) -> Texture {
    Texture {
        load,
        dst: Reg::r32(TEXEL),
        coords: Reg::r32(SRC),
        lod_mode: if load { LodMode::Auto } else { LodMode::Min },
        lod: if load {
            Operand::Imm(0)
        } else {
            Operand::Reg(LOD)
        },
        texture: TexIndex::Imm(0),
        sampler: Small::Imm(0),
        dim,
        mask: 0b1111,
        shadow: false,
        offset: false,
        extra: None,
        gather: None,
        query_lod: false,
        wait_slot: 0,
    }
}

/// The instructions of `kind`.
pub fn instructions(kind: ImageMeta) -> Result<Vec<Instr>, MetaImageError> {
    use uniforms as u;
    let mut p = vec![
        Instr::GetSr(GetSr {
            dst: TID_X.into(),
            sr: SpecialReg::THREAD_POSITION_IN_GRID_X,
        }),
        Instr::GetSr(GetSr {
            dst: TID_Y.into(),
            sr: SpecialReg::THREAD_POSITION_IN_GRID_Y,
        }),
    ];
    // Invocations of the rounded-up grid outside the rectangle go inactive.
    for (t, limit) in [(TID_X, u::WIDTH), (TID_Y, u::HEIGHT)] {
        p.push(Instr::ExecCmp(ExecCmp {
            op: ExecOp::If,
            cond: Cond::Int(ICond::ULt),
            invert: false,
            a: Operand::Reg(t),
            b: uni(limit),
            n: 1,
        }));
    }
    p.push(iadd(DST, Operand::Reg(TID_X), uni(u::DST_X0)));
    p.push(iadd(DST + 1, Operand::Reg(TID_Y), uni(u::DST_Y0)));
    let wait = Instr::Wait(Wait { slot: 0 });
    match kind {
        ImageMeta::Blit { volume } => {
            for (i, t) in [TID_X, TID_Y].into_iter().enumerate() {
                let r = SRC + i as u16;
                p.push(Instr::Convert(Convert {
                    op: ConvertOp::U32ToF,
                    dst: Reg::r32(r).into(),
                    src: Operand::Reg(t).into(),
                    round: Round::NearestEven,
                }));
                let (scale, bias) = if i == 0 {
                    (u::SCALE_X, u::BIAS_X)
                } else {
                    (u::SCALE_Y, u::BIAS_Y)
                };
                p.push(fop(FOp::MAdd, r, reg(r), uni(scale), uni(bias)));
            }
            if volume {
                p.push(iadd(SRC + 2, uni(u::W), Operand::Imm(0)));
            }
            p.push(mov(LOD, 0));
            p.push(Instr::Texture(texture(
                false,
                if volume { TexDim::D3 } else { TexDim::D2 },
            )));
            p.push(wait);
        }
        ImageMeta::Resolve { samples, average } => {
            if !matches!(samples, 2 | 4) {
                return Err(MetaImageError::Samples(samples));
            }
            p.push(iadd(SRC, Operand::Reg(TID_X), uni(u::SRC_X0)));
            p.push(iadd(SRC + 1, Operand::Reg(TID_Y), uni(u::SRC_Y0)));
            p.push(mov(Reg::r32(SRC + 2), 0));
            p.push(Instr::Texture(texture(true, TexDim::D2Ms)));
            p.push(wait);
            if average {
                for s in 1..u32::from(samples) {
                    p.push(mov(Reg::r32(SRC + 2), s));
                    p.push(Instr::Texture(Texture {
                        dst: Reg::r32(TEMP),
                        ..texture(true, TexDim::D2Ms)
                    }));
                    p.push(wait);
                    for c in 0..4 {
                        p.push(fop(
                            FOp::Add,
                            TEXEL + c,
                            reg(TEXEL + c),
                            reg(TEMP + c),
                            Operand::Imm(0),
                        ));
                    }
                }
                for c in 0..4 {
                    p.push(fop(
                        FOp::Mul,
                        TEXEL + c,
                        reg(TEXEL + c),
                        uni(u::INV_SAMPLES),
                        Operand::Imm(0),
                    ));
                }
            }
        }
        ImageMeta::Fill => {
            for c in 0..4 {
                p.push(iadd(TEXEL + c, uni(u::VALUE + c), Operand::Imm(0)));
            }
        }
    }
    p.push(Instr::ImageWrite(ImageWrite {
        src: Reg::r32(TEXEL),
        coords: Reg::r32(DST),
        lod: Small::Imm(0),
        texture: TexIndex::Imm(1),
        dim: TexDim::D2,
        coherent: false,
    }));
    p.push(Instr::Stop);
    Ok(p)
}

/// Encodes `kind` for G13.
pub fn build(kind: ImageMeta) -> Result<ImageProgram, MetaImageError> {
    let mut code = Vec::new();
    for i in instructions(kind)? {
        hw::g13::encode(&i, &mut code)?;
    }
    Ok(ImageProgram {
        code,
        gpr_halves: GPR_HALVES,
        uniform_halves: 2 * u32::from(uniforms::COUNT),
        local_size: LOCAL_SIZE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_encodes_and_decodes_back() {
        let kinds = [
            ImageMeta::Blit { volume: false },
            ImageMeta::Blit { volume: true },
            ImageMeta::Resolve {
                samples: 4,
                average: true,
            },
            ImageMeta::Resolve {
                samples: 2,
                average: false,
            },
            ImageMeta::Fill,
        ];
        for k in kinds {
            let want = instructions(k).unwrap();
            let prog = build(k).unwrap();
            let mut at = 0;
            let mut got = Vec::new();
            while at < prog.code.len() {
                let (i, n) = hw::g13::decode(&prog.code[at..]).unwrap();
                got.push(i);
                at += n;
            }
            assert_eq!(got, want, "{k:?}");
            assert_eq!(got.last(), Some(&Instr::Stop));
        }
    }

    #[test]
    fn bad_sample_count_is_an_error() {
        assert!(build(ImageMeta::Resolve {
            samples: 3,
            average: true
        })
        .is_err());
    }
}
