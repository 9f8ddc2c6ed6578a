//! Input attachment reads (`subpassLoad`, docs/render-abi.md section 4).
//!
//! An input attachment that is also a colour attachment of the subpass (a feedback loop) is
//! read from its tilebuffer target with `ld_tile`: the tilebuffer holds the attachment's
//! current value (the load op, clears and earlier draws of the render command), which memory
//! does not have until the end-of-tile program stores it. Every other input attachment is
//! read from memory by the texture unit (earlier subpasses stored it there). A multisampled
//! one is a 2D multisampled texture load whose third coordinate is the sample, or a tile
//! read of that sample alone.
//!
//! The multisampled texture load takes x, y and the sample in three consecutive registers:
//! the words of one 128-bit register. The components of one attachment a block reads at one
//! sample are one load (`attachment_runs`).

use std::collections::HashMap;

use hw::isa::*;

use super::component_runs::ComponentRuns;
use super::tib::{element_layout, half_float_unorm_bits, is_integer, Element};
use super::{internal, unsupported, Sel};
use crate::g13::{vreg, word};
use crate::graphics_api::InputAttachmentSource;
use crate::ir::{Inst, Op, Scalar, Stage, Value};
use crate::{abi, CompileError};

impl Sel<'_> {
    /// Component `component` of input attachment `index` at the fragment's pixel (and
    /// `sample`, for a multisampled one) into `d`.
    pub(super) fn input_attachment(
        &mut self,
        d: Value,
        index: u32,
        component: u8,
        sample: Option<Value>,
    ) -> Result<(), CompileError> {
        let t = self.stage_is(Stage::Fragment, "LoadInputAttachment")?;
        if self.vals.get(d.0 as usize).is_some_and(Option::is_some) {
            // Loaded with the rest of its run.
            return Ok(());
        }
        if index >= abi::MAX_INPUT_ATTACHMENTS || component > 3 {
            return Err(unsupported(format!(
                "input attachment {index} component {component}"
            )));
        }
        let integer = self.ty(d)?.scalar == Scalar::I32;
        let source = t
            .outputs
            .inputs
            .get(index as usize)
            .copied()
            .unwrap_or_default();
        match source {
            InputAttachmentSource::Tile { location } => {
                self.input_from_tile(d, location, component, sample)
            }
            InputAttachmentSource::Memory => {
                let texture = abi::INPUT_ATTACHMENT_TEXTURE_BASE + index;
                self.input_from_memory(d, texture, component, sample)
            }
            // Depth reads as a float, stencil as an integer: the type says which aspect.
            InputAttachmentSource::DepthStencil => {
                let base = if integer {
                    abi::INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE
                } else {
                    abi::INPUT_ATTACHMENT_TEXTURE_BASE
                };
                self.input_from_memory(d, base + index, component, sample)
            }
        }
    }

    /// A texture load through texture state register `texture` of one component, or of the
    /// components of `d`'s run (`attachment_runs`), into consecutive registers.
    fn input_from_memory(
        &mut self,
        d: Value,
        texture: u32,
        component: u8,
        sample: Option<Value>,
    ) -> Result<(), CompileError> {
        let texture = u8::try_from(texture)
            .map_err(|_| internal(format!("texture state register {texture}")))?;
        // x, y and, multisampled, the sample: the words of one register.
        let (coords, dim) = match sample {
            None => (self.new_words(2)?, TexDim::D2),
            Some(s) => {
                let coords = self.new_words(3)?;
                let s = self.iop(s)?;
                self.copy(word(coords, 2), s);
                (coords, TexDim::D2Ms)
            }
        };
        // The pixel, as the x, y pair a 2D texture load takes.
        for (k, sr) in [
            (0, SpecialReg::THREAD_POSITION_IN_GRID_X),
            (1, SpecialReg::THREAD_POSITION_IN_GRID_Y),
        ] {
            self.emit(Instr::GetSr(GetSr {
                dst: word(coords, k).into(),
                sr,
            }));
        }
        let (r, mask) = match self.attachment_runs.get(&d).cloned() {
            Some(run) => self.run_destination(&run)?,
            None => (self.def32(d)?, 1 << component),
        };
        self.emit(Instr::Texture(Texture {
            load: true,
            dst: r,
            coords: vreg(coords, 0, Size::S32),
            lod_mode: LodMode::Auto,
            lod: Operand::Imm(0),
            texture: TexIndex::Imm(texture),
            sampler: Small::Imm(0),
            dim,
            mask,
            shadow: false,
            offset: false,
            extra: None,
            gather: None,
            query_lod: false,
            wait_slot: 0,
        }));
        Ok(())
    }

    /// Component `component` of colour target `location` as the tilebuffer holds it for
    /// the fragment's pixel, converted as a texture load of the attachment would be.
    fn input_from_tile(
        &mut self,
        d: Value,
        location: u32,
        component: u8,
        sample: Option<Value>,
    ) -> Result<(), CompileError> {
        let t = self.target("LoadInputAttachment")?;
        let c = *t.outputs.find(location).ok_or_else(|| {
            internal(format!(
                "input attachment read from colour target {location}, which is not bound"
            ))
        })?;
        // A load reads the lowest sample of the set: sample 0 of a single-sampled pixel.
        let samples = match sample {
            None => Small::Imm(0xff),
            Some(s) => match self.const_of(s) {
                Some(k) if k < 8 => Small::Imm(1 << k),
                _ => {
                    let s = self.iop(s)?;
                    let bit = self.t32()?;
                    self.shl(bit, Operand::Imm(1), s);
                    Small::Reg(Reg {
                        half: bit.half,
                        size: Size::S16,
                    })
                }
            },
        };
        let (n, format) = element_layout(c.colour, c.format);
        // The bit-packed formats are one element holding every channel.
        let packed = !c.format.supports_channel_mask();
        let r = self.def32(d)?;
        if !packed && component >= n {
            // A channel the format lacks reads as a texture load's: 0, alpha 1.
            let one = if is_integer(c.colour) {
                1
            } else {
                1.0f32.to_bits()
            };
            let v = if component == 3 { one } else { 0 };
            self.emit(Instr::MovImm(MovImm {
                dst: r.into(),
                imm: v,
            }));
            return Ok(());
        }
        let index = if packed { 0 } else { component };
        let elems = [Element {
            index,
            format,
            reg: self.t32()?,
        }];
        self.tile_access(false, c.offset, &elems, samples, 1 << index)?;
        let vals = self.tib_unpack(c.colour, c.format, &elems)?;
        let mut v = vals[usize::from(component)];
        // Packed UNORM formats held as half floats: the attachment holds the value quantised
        // to the channel's width, as memory would after a store.
        if let Some(bits) = half_float_unorm_bits(c.colour) {
            let b = bits[usize::from(component)];
            if b != 0 {
                let max = ((1u32 << b) - 1) as f32;
                let q = self.norm_to_int(v, false, max)?;
                v = self.int_to_norm(q, false, max)?;
            }
        }
        self.copy(r, Operand::Reg(v));
        Ok(())
    }
}

/// The input attachment reads of a block that one texture load can do: two to four
/// components of one attachment, at one sample, read from memory with one type (depth and
/// stencil are read through different texture state). By the first one's result: the
/// components and their results, lowest component first.
pub(super) fn attachment_runs(
    sh: &crate::ir::Shader,
    sources: &[InputAttachmentSource],
    insts: &[Inst],
) -> HashMap<Value, Vec<(u8, Value)>> {
    let mut runs = ComponentRuns::new();
    for i in insts {
        let (
            Op::LoadInputAttachment {
                index,
                component,
                sample,
            },
            Some(d),
        ) = (&i.op, i.dst)
        else {
            continue;
        };
        let source = sources.get(*index as usize).copied().unwrap_or_default();
        if matches!(source, InputAttachmentSource::Tile { .. }) || *component > 3 {
            continue;
        }
        runs.add((*index, *sample, sh.ty(d).scalar), *component, d);
    }
    runs.finish()
}
