//! Colour targets that do not fit the tilebuffer (spilled; docs/render-abi.md section 4):
//! the fragment shader writes them to memory with `image_write` through the PBE descriptor
//! of the attachment and, to blend or to keep channels a write mask leaves, first reads the
//! destination through its texture descriptor (`abi::SPILLED_TARGET_TEXTURE_BASE`), as
//! Mesa's asahi driver does. Both descriptors convert between the shader-side values and
//! the attachment's format (sRGB too), so blending runs on the same values as for a
//! tilebuffer target.
//!
//! The hardware masks tilebuffer stores by the lane's coverage; memory writes are not
//! masked, so each sample is written only where `get_sr` `COVERAGE_MASK` (the coverage left
//! after the rasterizer, an early depth/stencil test and the shader's discards) has it. A
//! pixel-rate shader writes every covered sample with the same value, a per-sample shader
//! the sample it shades.
//!
//! The texel and the coordinates (x, y, sample) are the words of one register each.

use hw::g13::tilebuffer::Numeric;
use hw::isa::*;

use super::tib::{channels, is_integer, numeric};
use super::{unsupported, Sel, AND};
use crate::abi;
use crate::g13::exec::Test;
use crate::g13::graphics::ColourOutput;
use crate::g13::{vreg, word};
use crate::graphics_api::LogicOp;
use crate::CompileError;

impl Sel<'_> {
    /// Writes `src` (one register per channel; `None` channels were not written) to the
    /// spilled target `c` of a pass with `samples` samples per pixel.
    pub(super) fn write_spilled(
        &mut self,
        c: &ColourOutput,
        src: [Option<Reg>; 4],
        logic_op: Option<LogicOp>,
        samples: u32,
    ) -> Result<(), CompileError> {
        let n = channels(c.colour);
        let full = ((1u16 << n) - 1) as u8;
        let mask = c.blend.write_mask & full;
        if mask == 0 {
            return Ok(());
        }
        let logic_target = matches!(
            numeric(c.colour),
            Numeric::Unorm | Numeric::Snorm | Numeric::Uint | Numeric::Sint
        );
        if logic_op.is_some() && logic_target {
            return Err(unsupported(format!(
                "a logic op on colour target {}, which does not fit the tilebuffer",
                c.location
            )));
        }
        let int = is_integer(c.colour);
        let zero = self.imm_r(0)?;
        let one = if int {
            self.imm_r(1)?
        } else {
            self.imm_r(1.0f32.to_bits())?
        };
        let vals: [Reg; 4] =
            std::array::from_fn(|k| src[k].unwrap_or(if k == 3 { one } else { zero }));
        let blend = c.blend.enable && !int;
        let rmw = blend || mask != full;
        let src_vals = if blend {
            self.blend_source(c, vals)?
        } else {
            vals
        };
        let texture = abi::SPILLED_TARGET_TEXTURE_BASE + 2 * c.location;
        let (texture, pbe) = match (u8::try_from(texture), u8::try_from(texture + 1)) {
            (Ok(t), Ok(p)) => (t, p),
            _ => return Err(unsupported(format!("spilled colour target {}", c.location))),
        };
        let dim = if samples > 1 {
            TexDim::D2Ms
        } else {
            TexDim::D2
        };
        let coverage = self.t32()?;
        self.emit(Instr::GetSr(GetSr {
            dst: coverage.into(),
            sr: SpecialReg::COVERAGE_MASK,
        }));
        // (sample index, its coverage bit): the sample a per-sample shader shades, or every
        // sample of the pixel.
        let each: Vec<(Operand, Operand)> = match self.sample {
            Some(s) => vec![(Operand::Reg(s.index), Operand::Reg(s.bit))],
            None => (0..samples.max(1))
                .map(|s| (Operand::Imm(s), Operand::Imm(1 << s)))
                .collect(),
        };
        for (index, bit) in each {
            let covered = self.bitop_r(Operand::Reg(coverage), bit, AND)?;
            // Registers made inside the `if` are not reused past it.
            let marks = self.cache_marks();
            let frame = self.exec.if_begin(
                Test::nonzero(Operand::Reg(covered), false),
                false,
                &mut self.out,
            );
            // x, y and, multisampled, the sample: the words of one register.
            let coords = self.new_words(if samples > 1 { 3 } else { 2 })?;
            for (k, sr) in [
                (0, SpecialReg::THREAD_POSITION_IN_GRID_X),
                (1, SpecialReg::THREAD_POSITION_IN_GRID_Y),
            ] {
                self.emit(Instr::GetSr(GetSr {
                    dst: word(coords, k).into(),
                    sr,
                }));
            }
            if samples > 1 {
                self.copy(word(coords, 2), index);
            }
            let out = if rmw {
                let loaded = self.new_words(4)?;
                self.emit(Instr::Texture(Texture {
                    load: true,
                    dst: vreg(loaded, 0, Size::S32),
                    coords: vreg(coords, 0, Size::S32),
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
                let dst: [Reg; 4] = std::array::from_fn(|k| word(loaded, k));
                let mut res = if blend {
                    self.blend(c, src_vals, dst)?
                } else {
                    src_vals
                };
                for (k, r) in res.iter_mut().enumerate() {
                    if mask & (1 << k) == 0 {
                        *r = dst[k];
                    }
                }
                res
            } else {
                src_vals
            };
            let texel = self.new_words(4)?;
            for (k, v) in out.iter().enumerate() {
                self.copy(word(texel, k), Operand::Reg(*v));
            }
            self.emit(Instr::ImageWrite(ImageWrite {
                src: vreg(texel, 0, Size::S32),
                coords: vreg(coords, 0, Size::S32),
                lod: Small::Imm(0),
                texture: TexIndex::Imm(pbe),
                dim,
                coherent: false,
            }));
            self.exec.if_end(frame, &mut self.out);
            self.release_caches(marks);
        }
        Ok(())
    }
}
