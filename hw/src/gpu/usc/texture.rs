//! The texture unit and the PBE as the USC reaches them: `texture` (sample and load) through
//! texture and sampler descriptors, and `image_write` through PBE descriptors. The descriptors
//! are the launch's texture and sampler state registers, loaded by USC Texture and Sampler
//! words.

use super::group::SimdGroup;
use super::program::Program;
use crate::gpu::{Fault, GpuMemory};
use crate::isa::*;

/// Bytes of a texture or PBE descriptor.
pub const TEXTURE_DESCRIPTOR_BYTES: usize = 24;
/// Bytes of a sampler descriptor.
pub const SAMPLER_DESCRIPTOR_BYTES: usize = 8;

/// A launch's texture and sampler state registers, indexed by register number.
#[derive(Debug, Clone, Default)]
pub struct TextureState {
    pub textures: Vec<[u8; TEXTURE_DESCRIPTOR_BYTES]>,
    pub samplers: Vec<[u8; SAMPLER_DESCRIPTOR_BYTES]>,
}

/// Runs a `texture` or `image_write` instruction for every active lane and advances the pc.
/// Returns false if the instruction at `idx` is neither.
pub fn step_texture(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    state: &TextureState,
    mem: &mut dyn GpuMemory,
) -> Result<bool, Fault> {
    let _ = (g, state, mem);
    match prog.instrs[idx] {
        Instr::Texture(x) => Err(Fault::Unimplemented(if x.load {
            "texture_load (texture descriptors are not modelled by the USC yet)"
        } else {
            "texture_sample (samplers and texture descriptors are not modelled yet)"
        })),
        Instr::ImageWrite(_) => Err(Fault::Unimplemented(
            "image_write (PBE descriptors are not modelled by the USC yet)",
        )),
        _ => Ok(false),
    }
}
