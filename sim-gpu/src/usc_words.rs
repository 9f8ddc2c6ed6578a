//! Reading a program's USC words: the state every USC launch starts from, whether the CDM,
//! the VDM (vertex shaders), the PPP (fragment shaders) or the render's tile programs start
//! it.
//!
//! Words are read from the given address up to the word that ends the sequence. Uniform words
//! preload the uniform file; Texture and Sampler words load descriptors from memory into the
//! texture and sampler state registers; the Shared word gives threadgroup memory and, for
//! fragment-stage programs, the tilebuffer's samples per pixel and bytes per sample; the
//! Fragment Properties word says whether the depth/stencil test may run before the shader.
//! The word that ends the sequence may name a preshader, which whoever starts the launch
//! runs first.

use super::usc::texture::{TextureState, SAMPLER_DESCRIPTOR_BYTES, TEXTURE_DESCRIPTOR_BYTES};
use super::{Fault, GpuMemory};
use hw::g13::control::{stack_bytes_for_spill_size, UscWord};
use hw::isa::UNIFORM_HALVES;

/// Most USC words one program may have before its preshader word.
pub const MAX_USC_WORDS: usize = 1024;

/// Most texture or sampler state registers a program may load (the hardware's indices are
/// 8 bits wide).
const MAX_STATE_REGISTERS: u32 = 256;

/// Shader state gathered from a program's USC words.
#[derive(Debug, Clone)]
pub struct UscState {
    pub uniforms: Vec<u16>,
    /// Offset of the code from the USC exec base.
    pub code: Option<u32>,
    pub shared_bytes: u32,
    pub stack_bytes: u32,
    pub textures: TextureState,
    /// From the Shared word: tilebuffer samples per pixel and bytes per sample.
    pub sample_count: u32,
    pub sample_stride_bytes: u32,
    /// From the Fragment Properties word, when present.
    pub early_z: Option<bool>,
    /// From the Preshader word that ends the sequence: offset of the preshader's code from
    /// the USC exec base. The preshader runs once before the launch (see
    /// [`super::usc::run_preshader`]) and its uniform file replaces `uniforms`.
    pub preshader: Option<u32>,
}

fn bad(va: u64, why: impl Into<String>) -> Fault {
    Fault::BadControlWord {
        va,
        reason: why.into(),
    }
}

/// Reads the words at `va` (an absolute GPU address).
pub fn read_usc_words(mem: &dyn GpuMemory, va: u64) -> Result<UscState, Fault> {
    let mut s = UscState {
        uniforms: vec![0; usize::from(UNIFORM_HALVES)],
        code: None,
        shared_bytes: 0,
        stack_bytes: 0,
        textures: TextureState::default(),
        sample_count: 1,
        sample_stride_bytes: 0,
        early_z: None,
        preshader: None,
    };
    let mut va = va;
    for _ in 0..MAX_USC_WORDS {
        let (w, n) = UscWord::read(mem, va)?;
        match w {
            UscWord::Uniform {
                start_halves,
                size_halves,
                buffer,
            }
            | UscWord::UniformHigh {
                start_halves,
                size_halves,
                buffer,
            } => {
                let high = matches!(w, UscWord::UniformHigh { .. });
                let start = start_halves + if high { 256 } else { 0 };
                let end = (start + size_halves) as usize;
                if end > s.uniforms.len() {
                    return Err(bad(va, "uniform preload past the uniform file"));
                }
                let mut bytes = vec![0u8; size_halves as usize * 2];
                mem.read(buffer, &mut bytes)?;
                for (i, h) in bytes.chunks_exact(2).enumerate() {
                    s.uniforms[start as usize + i] = u16::from_le_bytes([h[0], h[1]]);
                }
            }
            UscWord::Shared {
                uses_shared,
                bytes_per_threadgroup,
                sample_count,
                sample_stride_bytes,
                ..
            } => {
                s.shared_bytes = if uses_shared {
                    bytes_per_threadgroup
                } else {
                    0
                };
                s.sample_count = sample_count;
                s.sample_stride_bytes = sample_stride_bytes;
            }
            UscWord::Texture {
                start,
                count,
                buffer,
            } => {
                let regs = load_state::<TEXTURE_DESCRIPTOR_BYTES>(mem, va, start, count, buffer)?;
                place(&mut s.textures.textures, start, regs);
            }
            UscWord::Sampler {
                start,
                count,
                buffer,
            } => {
                let regs = load_state::<SAMPLER_DESCRIPTOR_BYTES>(mem, va, start, count, buffer)?;
                place(&mut s.textures.samplers, start, regs);
            }
            UscWord::FragmentProperties { early_z } => s.early_z = Some(early_z),
            UscWord::Shader { code, .. } => s.code = Some(code),
            UscWord::Registers {
                count_halves,
                spill_size,
            } => {
                if count_halves > 256 {
                    return Err(bad(va, "register count above 256 halves"));
                }
                s.stack_bytes = stack_bytes_for_spill_size(spill_size);
            }
            UscWord::NoPreshader => return Ok(s),
            UscWord::Preshader { code } => {
                s.preshader = Some(code);
                return Ok(s);
            }
        }
        va = va.wrapping_add(n);
    }
    Err(bad(
        va,
        format!("no preshader word within {MAX_USC_WORDS} USC words"),
    ))
}

fn load_state<const N: usize>(
    mem: &dyn GpuMemory,
    va: u64,
    start: u32,
    count: u32,
    buffer: u64,
) -> Result<Vec<[u8; N]>, Fault> {
    if start + count > MAX_STATE_REGISTERS {
        return Err(bad(
            va,
            format!(
                "state registers {start}..{} past {MAX_STATE_REGISTERS}",
                start + count
            ),
        ));
    }
    let mut bytes = vec![0u8; count as usize * N];
    mem.read(buffer, &mut bytes)?;
    Ok(bytes
        .chunks_exact(N)
        .map(|c| {
            let mut d = [0u8; N];
            d.copy_from_slice(c);
            d
        })
        .collect())
}

fn place<const N: usize>(regs: &mut Vec<[u8; N]>, start: u32, new: Vec<[u8; N]>) {
    let end = start as usize + new.len();
    if regs.len() < end {
        regs.resize(end, [0; N]);
    }
    regs[start as usize..end].copy_from_slice(&new);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usc::FlatMemory;
    use hw::g13::control::SharedLayout;

    #[test]
    fn texture_sampler_shared_and_properties_words() {
        let mut w = Vec::new();
        UscWord::Texture {
            start: 2,
            count: 2,
            buffer: 0x4000,
        }
        .pack(&mut w);
        UscWord::Sampler {
            start: 1,
            count: 1,
            buffer: 0x5000,
        }
        .pack(&mut w);
        UscWord::Shared {
            uses_shared: false,
            layout: SharedLayout::Tile32x32,
            bytes_per_threadgroup: 256,
            sample_count: 4,
            sample_stride_bytes: 16,
        }
        .pack(&mut w);
        UscWord::FragmentProperties { early_z: false }.pack(&mut w);
        UscWord::Shader {
            code: 0x80,
            loads_varyings: true,
        }
        .pack(&mut w);
        UscWord::NoPreshader.pack(&mut w);
        let mut m = FlatMemory::new();
        m.map(0x1000, w);
        m.map(0x4000, (0..48u8).collect());
        m.map(0x5000, (100..108u8).collect());
        let s = read_usc_words(&m, 0x1000).expect("reads");
        assert_eq!(s.textures.textures.len(), 4);
        assert_eq!(s.textures.textures[0], [0; 24]);
        assert_eq!(s.textures.textures[2][0], 0);
        assert_eq!(s.textures.textures[3][0], 24);
        assert_eq!(s.textures.textures[3][23], 47);
        assert_eq!(s.textures.samplers.len(), 2);
        assert_eq!(
            s.textures.samplers[1],
            [100, 101, 102, 103, 104, 105, 106, 107]
        );
        assert_eq!((s.sample_count, s.sample_stride_bytes), (4, 16));
        assert_eq!(s.early_z, Some(false));
        assert_eq!(s.code, Some(0x80));
        assert_eq!(s.preshader, None);
    }

    #[test]
    fn preshader_word_ends_the_sequence() {
        let mut w = Vec::new();
        UscWord::Shader {
            code: 0x80,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::Preshader { code: 0x240 }.pack(&mut w);
        // Never read: the preshader word ends the sequence.
        w.extend_from_slice(&[0xff; 8]);
        let mut m = FlatMemory::new();
        m.map(0x1000, w);
        let s = read_usc_words(&m, 0x1000).expect("reads");
        assert_eq!((s.code, s.preshader), (Some(0x80), Some(0x240)));
    }
}
