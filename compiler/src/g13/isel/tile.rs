//! Instruction selection for the tile programs (docs/render-abi.md section 2): background
//! programs clear a target or load it from its attachment, end-of-tile programs write it to
//! its attachment. They have no IR: they are built here from the same tilebuffer format
//! conversions fragment outputs use.
//!
//! `texture` and `image_write` take register runs wider than a virtual register (four
//! 32-bit texel components, two or three coordinates), so those runs are preloaded-style
//! fixed registers: the allocator places them at fixed halves for the whole program and
//! everything else around them.

use hw::g13::tilebuffer::{ColourFormat, TibFormat};
use hw::isa::*;

use super::tib::Element;
use super::{Sel, VProgram};
use crate::g13::vreg;
use crate::ir::Shader;
use crate::CompileError;

/// Halves of the fixed runs: the texel (four 32-bit components), then the coordinates
/// (x, y as one 64-bit register, the sample index after them).
const TEXEL_HALF: u16 = 8;
const COORD_HALF: u16 = 16;
const SAMPLE_HALF: u16 = 20;

/// One target of a tile program.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TileTargetOp {
    pub colour: ColourFormat,
    pub format: TibFormat,
    pub offset: u16,
    pub op: TileOp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TileOp {
    Nothing,
    /// Clear to the value in uniform halves from this one (4 x 32 bits).
    Clear {
        uniform_half: u16,
    },
    Load {
        texture: u8,
    },
    Store {
        texture: u8,
    },
    /// Average of the samples, written to a single-sample image.
    Resolve {
        texture: u8,
    },
    /// A target kept in memory: the clear value (uniform halves from `uniform_half`)
    /// written to every sample of the pixel through PBE descriptor `texture`.
    ClearImage {
        uniform_half: u16,
        texture: u8,
    },
    /// A multisampled target kept in memory: the average of its samples read through
    /// texture descriptor `source`, written through single-sample PBE descriptor `texture`.
    ResolveImage {
        source: u8,
        texture: u8,
    },
}

struct Runs {
    texel: [u16; 2],
    coords: u16,
    sample: u16,
}

impl Sel<'_> {
    fn fixed(&mut self, half: u16, size: Size) -> Result<u16, CompileError> {
        let id = self.new_vreg(size, true)?;
        self.vregs[id as usize].fixed = Some(half);
        Ok(id)
    }

    fn texel_reg(r: &Runs, k: usize) -> Reg {
        vreg(r.texel[k / 2], 2 * (k % 2) as u16, Size::S32)
    }

    fn tile_target(
        &mut self,
        t: &TileTargetOp,
        runs: &Runs,
        samples: u32,
    ) -> Result<(), CompileError> {
        let multisampled = samples > 1;
        let dim = if multisampled {
            TexDim::D2Ms
        } else {
            TexDim::D2
        };
        let coords = vreg(runs.coords, 0, Size::S32);
        let per_sample: Vec<Small> = if multisampled {
            (0..samples).map(|s| Small::Imm(1 << s)).collect()
        } else {
            vec![Small::Imm(0xff)]
        };
        match t.op {
            TileOp::Nothing => {}
            TileOp::Clear { uniform_half } => {
                let mut vals = [Reg::r32(0); 4];
                for (k, v) in vals.iter_mut().enumerate() {
                    let r = self.t32()?;
                    let u = Reg {
                        half: uniform_half + 2 * k as u16,
                        size: Size::S32,
                    };
                    self.copy(r, Operand::Uniform(u));
                    *v = r;
                }
                let elems = self.tib_pack(t.colour, t.format, vals)?;
                self.tile_access(true, t.offset, &elems, Small::Imm(0xff), 0xf)?;
            }
            TileOp::Load { texture } => {
                for (s, which) in per_sample.iter().enumerate() {
                    if multisampled {
                        let r = vreg(runs.sample, 0, Size::S32);
                        self.emit(Instr::MovImm(MovImm {
                            dst: r.into(),
                            imm: s as u32,
                        }));
                    }
                    self.emit(Instr::Texture(Texture {
                        load: true,
                        dst: Self::texel_reg(runs, 0),
                        coords,
                        lod_mode: LodMode::Auto,
                        lod: Operand::Imm(0),
                        texture: TexIndex::Imm(texture),
                        sampler: Small::Imm(0),
                        dim,
                        mask: 0xf,
                        shadow: false,
                        offset: false,
                        extra: None,
                        gather: None,
                        query_lod: false,
                        wait_slot: 0,
                    }));
                    // Copies out of the run, so the conversion can use any register.
                    let mut vals = [Reg::r32(0); 4];
                    for (k, v) in vals.iter_mut().enumerate() {
                        let r = self.t32()?;
                        self.copy(r, Operand::Reg(Self::texel_reg(runs, k)));
                        *v = r;
                    }
                    let elems = self.tib_pack_stored(t.colour, t.format, vals)?;
                    self.tile_access(true, t.offset, &elems, *which, 0xf)?;
                }
            }
            TileOp::Store { texture } => {
                for (s, which) in per_sample.iter().enumerate() {
                    let elems: Vec<Element> = self.tib_elements(t.colour, t.format, true)?;
                    self.tile_access(false, t.offset, &elems, *which, 0xf)?;
                    let vals = self.tib_unpack_stored(t.colour, t.format, &elems)?;
                    for (k, v) in vals.iter().enumerate() {
                        self.copy(Self::texel_reg(runs, k), Operand::Reg(*v));
                    }
                    if multisampled {
                        let r = vreg(runs.sample, 0, Size::S32);
                        self.emit(Instr::MovImm(MovImm {
                            dst: r.into(),
                            imm: s as u32,
                        }));
                    }
                    self.emit(Instr::ImageWrite(ImageWrite {
                        src: Self::texel_reg(runs, 0),
                        coords,
                        lod: Small::Imm(0),
                        texture: TexIndex::Imm(texture),
                        dim,
                        coherent: false,
                    }));
                }
            }
            TileOp::ClearImage {
                uniform_half,
                texture,
            } => {
                for k in 0..4 {
                    let u = Reg {
                        half: uniform_half + 2 * k as u16,
                        size: Size::S32,
                    };
                    self.copy(Self::texel_reg(runs, k), Operand::Uniform(u));
                }
                for s in 0..samples {
                    if multisampled {
                        let r = vreg(runs.sample, 0, Size::S32);
                        self.emit(Instr::MovImm(MovImm {
                            dst: r.into(),
                            imm: s,
                        }));
                    }
                    self.emit(Instr::ImageWrite(ImageWrite {
                        src: Self::texel_reg(runs, 0),
                        coords,
                        lod: Small::Imm(0),
                        texture: TexIndex::Imm(texture),
                        dim,
                        coherent: false,
                    }));
                }
            }
            TileOp::ResolveImage { source, texture } => {
                let vals = self.resolve_from_image(t, runs, source, samples)?;
                for (k, v) in vals.iter().enumerate() {
                    self.copy(Self::texel_reg(runs, k), Operand::Reg(*v));
                }
                self.emit(Instr::ImageWrite(ImageWrite {
                    src: Self::texel_reg(runs, 0),
                    coords,
                    lod: Small::Imm(0),
                    texture: TexIndex::Imm(texture),
                    dim: TexDim::D2,
                    coherent: false,
                }));
            }
            TileOp::Resolve { texture } => {
                let vals = self.resolve_value(t, samples)?;
                for (k, v) in vals.iter().enumerate() {
                    self.copy(Self::texel_reg(runs, k), Operand::Reg(*v));
                }
                self.emit(Instr::ImageWrite(ImageWrite {
                    src: Self::texel_reg(runs, 0),
                    coords,
                    lod: Small::Imm(0),
                    texture: TexIndex::Imm(texture),
                    dim: TexDim::D2,
                    coherent: false,
                }));
            }
        }
        Ok(())
    }

    /// The value a resolve of a target kept in memory writes: the mean of the samples read
    /// through texture descriptor `source` (the descriptors convert sRGB both ways, so the
    /// mean is taken in linear space), sample 0 for integer formats.
    fn resolve_from_image(
        &mut self,
        t: &TileTargetOp,
        runs: &Runs,
        source: u8,
        samples: u32,
    ) -> Result<[Reg; 4], CompileError> {
        let integer = super::tib::is_integer(t.colour);
        let n = if integer { 1 } else { samples.max(1) };
        let coords = vreg(runs.coords, 0, Size::S32);
        let mut sum: Option<[Reg; 4]> = None;
        for s in 0..n {
            self.emit(Instr::MovImm(MovImm {
                dst: vreg(runs.sample, 0, Size::S32).into(),
                imm: s,
            }));
            self.emit(Instr::Texture(Texture {
                load: true,
                dst: Self::texel_reg(runs, 0),
                coords,
                lod_mode: LodMode::Auto,
                lod: Operand::Imm(0),
                texture: TexIndex::Imm(source),
                sampler: Small::Imm(0),
                dim: TexDim::D2Ms,
                mask: 0xf,
                shadow: false,
                offset: false,
                extra: None,
                gather: None,
                query_lod: false,
                wait_slot: 0,
            }));
            let mut vals = [Reg::r32(0); 4];
            for (k, v) in vals.iter_mut().enumerate() {
                let r = self.t32()?;
                self.copy(r, Operand::Reg(Self::texel_reg(runs, k)));
                *v = r;
            }
            sum = Some(match sum {
                None => vals,
                Some(acc) => {
                    let mut out = acc;
                    for (o, v) in out.iter_mut().zip(vals) {
                        *o = self.fadd_r(Operand::Reg(*o), Operand::Reg(v))?;
                    }
                    out
                }
            });
        }
        let mut vals =
            sum.ok_or_else(|| CompileError::Unsupported("a resolve of no samples".into()))?;
        if n > 1 {
            let scale = self.fconst(1.0 / n as f32)?;
            for v in vals.iter_mut() {
                *v = self.fmul_r(Operand::Reg(*v), scale)?;
            }
        }
        Ok(vals)
    }

    /// The value a resolve writes for target `t`, as memory is to hold it: the mean of the
    /// samples in linear space for float and normalised formats (sRGB decoded, averaged,
    /// re-encoded), sample 0 for integer formats.
    fn resolve_value(&mut self, t: &TileTargetOp, samples: u32) -> Result<[Reg; 4], CompileError> {
        let integer = super::tib::is_integer(t.colour);
        let n = if integer { 1 } else { samples.max(1) };
        let mut sum: Option<[Reg; 4]> = None;
        for s in 0..n {
            let which = if samples > 1 {
                Small::Imm(1 << s)
            } else {
                Small::Imm(0xff)
            };
            let elems: Vec<Element> = self.tib_elements(t.colour, t.format, true)?;
            self.tile_access(false, t.offset, &elems, which, 0xf)?;
            let vals = if integer {
                self.tib_unpack_stored(t.colour, t.format, &elems)?
            } else {
                self.tib_unpack(t.colour, t.format, &elems)?
            };
            sum = Some(match sum {
                None => vals,
                Some(acc) => {
                    let mut out = acc;
                    for (o, v) in out.iter_mut().zip(vals) {
                        *o = self.fadd_r(Operand::Reg(*o), Operand::Reg(v))?;
                    }
                    out
                }
            });
        }
        let mut vals =
            sum.ok_or_else(|| CompileError::Unsupported("a resolve of no samples".into()))?;
        if n > 1 {
            let scale = self.fconst(1.0 / n as f32)?;
            for v in vals.iter_mut() {
                *v = self.fmul_r(Operand::Reg(*v), scale)?;
            }
        }
        if t.format == TibFormat::Srgba8 {
            for v in vals.iter_mut().take(3) {
                *v = self.srgb_encode(*v)?;
            }
        }
        Ok(vals)
    }
}

/// The `block_image_store` format of a tilebuffer format, `None` for the two the block store
/// has no format code for in agx4's model (11:11:10 and 9:9:9:5 floats).
fn block_format(t: TibFormat) -> Option<MemFormat> {
    Some(match t {
        TibFormat::I8 => MemFormat::I8,
        TibFormat::I16 => MemFormat::I16,
        TibFormat::I32 => MemFormat::I32,
        TibFormat::F16 => MemFormat::F16,
        TibFormat::U8Norm => MemFormat::U8Norm,
        TibFormat::S8Norm => MemFormat::S8Norm,
        TibFormat::U16Norm => MemFormat::U16Norm,
        TibFormat::S16Norm => MemFormat::S16Norm,
        TibFormat::Rgb10A2 => MemFormat::RGB10A2,
        TibFormat::Srgba8 => MemFormat::SRGBA8,
        TibFormat::Rg11B10F | TibFormat::Rgb9E5 => return None,
    })
}

/// An end-of-tile program that only stores targets, each through one `block_image_store`
/// (the tile in one instruction, as Mesa's end-of-tile programs do), or `None` when some
/// target needs per-pixel work (resolves, targets kept in memory, formats without a block
/// store code).
fn select_block_stores(
    targets: &[TileTargetOp],
    samples: u32,
) -> Result<Option<VProgram>, CompileError> {
    let mut stores = Vec::new();
    for t in targets {
        match t.op {
            TileOp::Nothing => {}
            TileOp::Store { texture } => match block_format(t.format) {
                Some(f) => stores.push((f, t.offset, texture)),
                None => return Ok(None),
            },
            _ => return Ok(None),
        }
    }
    if stores.is_empty() {
        return Ok(None);
    }
    let empty = Shader::default();
    let mut s = Sel::new(&empty, None);
    let dim = if samples > 1 {
        TexDim::D2Ms
    } else {
        TexDim::D2
    };
    for (format, offset, texture) in stores {
        let r = s.t32()?;
        s.emit(Instr::MovImm(MovImm {
            dst: r.into(),
            imm: u32::from(offset),
        }));
        s.emit(Instr::BlockImageStore(BlockImageStore {
            format,
            offset: r,
            texture: TexIndex::Imm(texture),
            dim,
        }));
    }
    s.emit(Instr::Stop);
    Ok(Some(s.finish()))
}

/// Selects a tile program over `targets` for a tilebuffer of `samples` samples per pixel.
pub(crate) fn select_tile_program(
    targets: &[TileTargetOp],
    samples: u32,
) -> Result<VProgram, CompileError> {
    if let Some(p) = select_block_stores(targets, samples)? {
        return Ok(p);
    }
    let empty = Shader::default();
    let mut s = Sel::new(&empty, None);
    let runs = Runs {
        texel: [
            s.fixed(TEXEL_HALF, Size::S64)?,
            s.fixed(TEXEL_HALF + 4, Size::S64)?,
        ],
        coords: s.fixed(COORD_HALF, Size::S64)?,
        sample: s.fixed(SAMPLE_HALF, Size::S32)?,
    };
    let needs_pixel = targets.iter().any(|t| {
        matches!(
            t.op,
            TileOp::Load { .. }
                | TileOp::Store { .. }
                | TileOp::Resolve { .. }
                | TileOp::ClearImage { .. }
                | TileOp::ResolveImage { .. }
        )
    });
    if needs_pixel {
        for (part, sr) in [
            (0, SpecialReg::THREAD_POSITION_IN_GRID_X),
            (2, SpecialReg::THREAD_POSITION_IN_GRID_Y),
        ] {
            s.emit(Instr::GetSr(GetSr {
                dst: vreg(runs.coords, part, Size::S32).into(),
                sr,
            }));
        }
    }
    for t in targets {
        s.tile_target(t, &runs, samples)?;
    }
    // The runs are read as a whole by `texture` / `image_write`, which the allocator sees
    // as a use of their first register only: one last write to each keeps all of them
    // reserved to the end. (Programs without texture traffic never name them, so the
    // allocator leaves those halves free.)
    let ends: &[u16] = if needs_pixel {
        &[runs.texel[0], runs.texel[1], runs.coords, runs.sample]
    } else {
        &[]
    };
    for &id in ends {
        s.emit(Instr::MovImm(MovImm {
            dst: vreg(id, 0, Size::S32).into(),
            imm: 0,
        }));
    }
    s.emit(Instr::Stop);
    Ok(s.finish())
}
