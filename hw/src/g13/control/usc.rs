//! USC words: the per-launch shader state a CDM launch's `pipeline` address points at.

use super::bits::{at, bad, need, Field, Modifier};
use crate::{WordError, WordSource};

/// Tags (byte 0 of every USC word).
mod tag {
    pub const PRESHADER: u8 = 0x38;
    pub const FRAGMENT_PROPERTIES: u8 = 0x58;
    pub const NO_PRESHADER: u8 = 0x88;
    pub const SHADER: u8 = 0x0d;
    pub const UNIFORM: u8 = 0x1d;
    pub const UNIFORM_HIGH: u8 = 0x3d;
    pub const SHARED: u8 = 0x4d;
    pub const REGISTERS: u8 = 0x8d;
    pub const SAMPLER: u8 = 0x9d;
    pub const TEXTURE: u8 = 0xdd;
}

const TAG: Field = Field::new("tag", 0, 8);

mod uniform {
    use super::*;
    pub const START: Field = Field::new("start (halves)", 8, 8);
    pub const SIZE: Field = Field::with("size (halves)", 20, 6, Modifier::Groups(1));
    pub const BUFFER: Field = Field::with("buffer", 26, 38, Modifier::Shr(2));
}

mod shared {
    use super::*;
    pub const USES: Field = Field::new("uses shared memory", 8, 1);
    pub const LAYOUT: Field = Field::new("layout", 10, 6);
    pub const SAMPLE_COUNT: Field = Field::with("sample count", 16, 2, Modifier::Log2);
    pub const SAMPLE_STRIDE: Field = Field::new("sample stride in 8 bytes", 20, 4);
    pub const BYTES: Field = Field::with("bytes per threadgroup", 24, 8, Modifier::Groups(256));
}

mod shader {
    use super::*;
    pub const LOADS_VARYINGS: Field = Field::new("loads varyings", 8, 1);
    pub const UNK2: Field = Field::new("unk 2", 10, 6);
    pub const CODE: Field = Field::new("code", 16, 32);
}

mod registers {
    use super::*;
    pub const COUNT: Field = Field::with("register count", 8, 5, Modifier::Groups(8));
    pub const SPILL: Field = Field::new("spill size", 18, 4);
    pub const UNK4: Field = Field::new("unk 4", 24, 8);
}

mod table {
    use super::*;
    pub const START: Field = Field::new("start", 8, 8);
    pub const COUNT: Field = Field::new("count", 20, 7);
    pub const BUFFER: Field = Field::with("buffer", 27, 36, Modifier::Shr(3));
}

mod fragment {
    use super::*;
    pub const EARLY_Z: Field = Field::new("early-z testing", 8, 1);
}

mod preshader {
    use super::*;
    pub const UNK: Field = Field::new("unk", 8, 24);
    pub const CODE: Field = Field::new("code", 32, 32);
    /// The only value the description allows in the unknown field.
    pub const UNK_VALUE: u64 = 0xc0_8000;
}

/// Shared-memory layout of a USC Shared word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedLayout {
    /// Plain threadgroup memory (vertex and compute shaders).
    VertexCompute,
    /// Tile-shaped image blocks.
    Tile32x32,
    Tile32x16,
    Tile16x16,
}

impl SharedLayout {
    fn bits(self) -> u64 {
        match self {
            SharedLayout::VertexCompute => 0x24,
            SharedLayout::Tile32x32 => 0x2f,
            SharedLayout::Tile32x16 => 0x3f,
            SharedLayout::Tile16x16 => 0x36,
        }
    }

    fn from_bits(v: u64) -> Result<SharedLayout, WordError> {
        Ok(match v {
            0x24 => SharedLayout::VertexCompute,
            0x2f => SharedLayout::Tile32x32,
            0x3f => SharedLayout::Tile32x16,
            0x36 => SharedLayout::Tile16x16,
            _ => return Err(bad(format!("shared layout {v:#x} is not defined"))),
        })
    }
}

/// Stack (spill) bytes per thread for the 4-bit `spill size` field of USC Registers.
///
/// agx4's encoding, following the bucket Mesa writes: 0 means no stack; `s` in 1..=15 means
/// `16 << s` bytes per thread (32 bytes up to 512 KiB).
pub const fn stack_bytes_for_spill_size(s: u32) -> u32 {
    match s {
        0 => 0,
        1..=15 => 16u32 << s,
        _ => 16u32 << 15,
    }
}

/// The most stack a launch can give a thread: the largest `spill size`'s.
pub const MAX_STACK_BYTES: u32 = stack_bytes_for_spill_size(15);

/// The smallest `spill size` field value whose stack holds `bytes` per thread, or `None` when
/// no encoding is large enough.
pub fn spill_size_for_stack_bytes(bytes: u32) -> Option<u32> {
    (0..16).find(|&s| stack_bytes_for_spill_size(s) >= bytes)
}

/// One USC word. Sizes in halves round up to the field's groups on packing, and a size of 0
/// is not representable (it reads back as one group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UscWord {
    /// Preload `size_halves` (1..=64) halves from `buffer` (4-byte aligned) into the uniform
    /// file from half `start_halves` (0..=255).
    Uniform {
        start_halves: u32,
        size_halves: u32,
        buffer: u64,
    },
    /// As `Uniform`, for uniform halves 256..=511: `start_halves` is relative to 256.
    UniformHigh {
        start_halves: u32,
        size_halves: u32,
        buffer: u64,
    },
    /// Threadgroup memory. `bytes_per_threadgroup` is a multiple of 256 up to 65536. Fragment
    /// stage programs also give the tilebuffer's samples per pixel (1, 2 or 4) and bytes per
    /// sample (a multiple of 8 up to 120); other stages give 1 and 0.
    Shared {
        uses_shared: bool,
        layout: SharedLayout,
        bytes_per_threadgroup: u32,
        sample_count: u32,
        sample_stride_bytes: u32,
    },
    /// Load `count` texture (or PBE) descriptors of 24 bytes from `buffer` (8-byte aligned)
    /// into texture state registers `start ..`.
    Texture { start: u32, count: u32, buffer: u64 },
    /// Load `count` sampler descriptors of 8 bytes from `buffer` into sampler state
    /// registers `start ..`.
    Sampler { start: u32, count: u32, buffer: u64 },
    /// Fragment shaders: `early_z` is false when the shader discards or writes depth, so the
    /// depth/stencil test runs after it.
    FragmentProperties { early_z: bool },
    /// The shader: `code` is its offset from `usc_exec_base`.
    Shader { code: u32, loads_varyings: bool },
    /// Registers used (halves, a multiple of 8 up to 256) and the stack size, see
    /// [`stack_bytes_for_spill_size`].
    Registers { count_halves: u32, spill_size: u32 },
    /// Ends the word sequence: no preshader.
    NoPreshader,
    /// Ends the word sequence: run the preshader at `code` (offset from `usc_exec_base`) once
    /// before the shader.
    Preshader { code: u32 },
}

impl UscWord {
    /// The Registers word of a shader using `gpr_halves` register halves: the count as the
    /// word holds it, rounded up to its groups of 8 (at least one group).
    pub fn registers(gpr_halves: u32, spill_size: u32) -> UscWord {
        UscWord::Registers {
            count_halves: registers::COUNT.stored(gpr_halves.into()) as u32,
            spill_size,
        }
    }

    /// The Shared word of a vertex or compute launch with `bytes` of threadgroup memory
    /// (a multiple of 256; 0 for none).
    pub fn vertex_compute_shared(bytes: u32) -> UscWord {
        UscWord::Shared {
            uses_shared: bytes > 0,
            layout: SharedLayout::VertexCompute,
            bytes_per_threadgroup: bytes,
            sample_count: 1,
            sample_stride_bytes: 0,
        }
    }

    /// Bytes of the word with this tag, or `None` for an unknown tag.
    fn size_for_tag(t: u8) -> Option<usize> {
        Some(match t {
            tag::UNIFORM | tag::UNIFORM_HIGH | tag::TEXTURE | tag::SAMPLER | tag::PRESHADER => 8,
            tag::SHARED | tag::REGISTERS | tag::FRAGMENT_PROPERTIES => 4,
            tag::SHADER => 6,
            tag::NO_PRESHADER => 2,
            _ => return None,
        })
    }

    /// Whether this word ends a sequence.
    pub fn ends_sequence(&self) -> bool {
        matches!(self, UscWord::NoPreshader | UscWord::Preshader { .. })
    }

    pub fn pack(&self, out: &mut Vec<u8>) {
        let mut b = [0u8; 8];
        let (t, n) = match *self {
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
                uniform::START.put(&mut b, start_halves.into());
                uniform::SIZE.put(&mut b, size_halves.into());
                uniform::BUFFER.put(&mut b, buffer);
                let t = if matches!(self, UscWord::Uniform { .. }) {
                    tag::UNIFORM
                } else {
                    tag::UNIFORM_HIGH
                };
                (t, 8)
            }
            UscWord::Shared {
                uses_shared,
                layout,
                bytes_per_threadgroup,
                sample_count,
                sample_stride_bytes,
            } => {
                shared::USES.put(&mut b, uses_shared.into());
                shared::LAYOUT.put(&mut b, layout.bits());
                shared::SAMPLE_COUNT.put(&mut b, sample_count.max(1).into());
                shared::SAMPLE_STRIDE.put(&mut b, (sample_stride_bytes / 8).into());
                shared::BYTES.put(&mut b, bytes_per_threadgroup.into());
                (tag::SHARED, 4)
            }
            UscWord::Texture {
                start,
                count,
                buffer,
            }
            | UscWord::Sampler {
                start,
                count,
                buffer,
            } => {
                table::START.put(&mut b, start.into());
                table::COUNT.put(&mut b, count.into());
                table::BUFFER.put(&mut b, buffer);
                let t = if matches!(self, UscWord::Texture { .. }) {
                    tag::TEXTURE
                } else {
                    tag::SAMPLER
                };
                (t, 8)
            }
            UscWord::FragmentProperties { early_z } => {
                fragment::EARLY_Z.put(&mut b, early_z.into());
                (tag::FRAGMENT_PROPERTIES, 4)
            }
            UscWord::Shader {
                code,
                loads_varyings,
            } => {
                shader::LOADS_VARYINGS.put(&mut b, loads_varyings.into());
                // Mesa writes 3 here for every non-fragment shader.
                shader::UNK2.put(&mut b, 3);
                shader::CODE.put(&mut b, code.into());
                (tag::SHADER, 6)
            }
            UscWord::Registers {
                count_halves,
                spill_size,
            } => {
                registers::COUNT.put(&mut b, count_halves.into());
                registers::SPILL.put(&mut b, spill_size.into());
                // Mesa always writes 1 here.
                registers::UNK4.put(&mut b, 1);
                (tag::REGISTERS, 4)
            }
            UscWord::NoPreshader => (tag::NO_PRESHADER, 2),
            UscWord::Preshader { code } => {
                preshader::UNK.put(&mut b, preshader::UNK_VALUE);
                preshader::CODE.put(&mut b, code.into());
                (tag::PRESHADER, 8)
            }
        };
        TAG.put(&mut b, t.into());
        // Copies of a constant size, which compile to moves rather than calls: every draw
        // packs a dozen words.
        match n {
            8 => out.extend_from_slice(&b),
            4 => out.extend_from_slice(&b[..4]),
            _ => out.extend_from_slice(&b[..n]),
        }
    }

    /// Unpack one word from the start of `b`; returns it and its size.
    pub fn unpack(b: &[u8]) -> Result<(UscWord, usize), WordError> {
        need(b, 1, "USC word")?;
        let t = b[0];
        let n = Self::size_for_tag(t)
            .ok_or_else(|| bad(format!("USC word tag {t:#x} is not defined")))?;
        need(b, n, "USC word")?;
        let w = match t {
            tag::UNIFORM | tag::UNIFORM_HIGH => {
                let start_halves = uniform::START.get(b) as u32;
                let size_halves = uniform::SIZE.get(b) as u32;
                let buffer = uniform::BUFFER.get(b);
                if t == tag::UNIFORM {
                    UscWord::Uniform {
                        start_halves,
                        size_halves,
                        buffer,
                    }
                } else {
                    UscWord::UniformHigh {
                        start_halves,
                        size_halves,
                        buffer,
                    }
                }
            }
            tag::SHARED => UscWord::Shared {
                uses_shared: shared::USES.get(b) != 0,
                layout: SharedLayout::from_bits(shared::LAYOUT.get(b))?,
                bytes_per_threadgroup: shared::BYTES.get(b) as u32,
                sample_count: shared::SAMPLE_COUNT.get(b) as u32,
                sample_stride_bytes: shared::SAMPLE_STRIDE.get(b) as u32 * 8,
            },
            tag::SHADER => UscWord::Shader {
                code: shader::CODE.get(b) as u32,
                loads_varyings: shader::LOADS_VARYINGS.get(b) != 0,
            },
            tag::REGISTERS => UscWord::Registers {
                count_halves: registers::COUNT.get(b) as u32,
                spill_size: registers::SPILL.get(b) as u32,
            },
            tag::NO_PRESHADER => UscWord::NoPreshader,
            tag::PRESHADER => {
                if preshader::UNK.get(b) != preshader::UNK_VALUE {
                    return Err(bad("USC preshader word: unknown field is not 0xc08000"));
                }
                UscWord::Preshader {
                    code: preshader::CODE.get(b) as u32,
                }
            }
            tag::TEXTURE | tag::SAMPLER => {
                let (start, count, buffer) = (
                    table::START.get(b) as u32,
                    table::COUNT.get(b) as u32,
                    table::BUFFER.get(b),
                );
                if t == tag::TEXTURE {
                    UscWord::Texture {
                        start,
                        count,
                        buffer,
                    }
                } else {
                    UscWord::Sampler {
                        start,
                        count,
                        buffer,
                    }
                }
            }
            _ => UscWord::FragmentProperties {
                early_z: fragment::EARLY_Z.get(b) != 0,
            },
        };
        Ok((w, n))
    }

    /// Read the word at `va`; returns it and its size in bytes.
    pub fn read<M: WordSource + ?Sized>(mem: &M, va: u64) -> Result<(UscWord, u64), M::Error> {
        let mut t = [0u8; 1];
        mem.read_words(va, &mut t)?;
        let n = Self::size_for_tag(t[0])
            .ok_or_else(|| at(va)(bad(format!("USC word tag {:#x} is not defined", t[0]))))?;
        let mut b = [0u8; 8];
        mem.read_words(va, &mut b[..n])?;
        let (w, n) = Self::unpack(&b[..n]).map_err(at(va))?;
        Ok((w, n as u64))
    }
}

/// Append Uniform / Uniform High words that preload `size_halves` halves from `buffer` into
/// the uniform file from `start_halves`, split into pieces of at most 64 halves (and at the
/// 256-half boundary between the two word kinds). An empty range appends nothing.
pub fn pack_uniform_range(start_halves: u32, size_halves: u32, buffer: u64, out: &mut Vec<u8>) {
    let mut done = 0;
    while done < size_halves {
        let start = start_halves + done;
        let limit = if start < 256 { 256 - start } else { 64 };
        let n = (size_halves - done).min(64).min(limit);
        let addr = buffer + u64::from(done) * 2;
        let w = if start < 256 {
            UscWord::Uniform {
                start_halves: start,
                size_halves: n,
                buffer: addr,
            }
        } else {
            UscWord::UniformHigh {
                start_halves: start - 256,
                size_halves: n,
                buffer: addr,
            }
        };
        w.pack(out);
        done += n;
    }
}
