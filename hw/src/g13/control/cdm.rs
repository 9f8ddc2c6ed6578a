//! CDM control stream blocks.

use super::bits::{at, bad, need, Field, Modifier};
use crate::{WordError, WordSource};

/// Block types (bits 29..31 of a block's first word).
const BLOCK_LAUNCH: u64 = 0;
const BLOCK_LINK: u64 = 1;
const BLOCK_TERMINATE: u64 = 2;
const BLOCK_BARRIER: u64 = 3;
const BLOCK_RETURN: u64 = 4;

const BLOCK_TYPE: Field = Field::new("block type", 29, 3);

/// CDM Launch Word 0.
mod word0 {
    use super::*;
    pub const UNIFORMS: Field = Field::with("uniform register count", 1, 3, Modifier::Groups(64));
    pub const TEXTURES: Field = Field::with("texture state count", 4, 5, Modifier::Groups(8));
    pub const SAMPLERS: Field = Field::new("sampler state count", 9, 3);
    pub const PRESHADER: Field =
        Field::with("preshader register count", 12, 4, Modifier::Groups(16));
    pub const MODE: Field = Field::new("mode", 27, 2);
}

/// CDM Launch Word 1.
const PIPELINE: Field = Field::with("pipeline", 6, 26, Modifier::Shr(6));

/// CDM Indirect: the address split into a high byte and a 4-byte-aligned low word.
const INDIRECT_HI: Field = Field::new("address hi", 0, 8);
const INDIRECT_LO: Field = Field::with("address lo", 34, 30, Modifier::Shr(2));

/// How a launch finds its grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdmMode {
    /// Global size (in threads) and local size follow the launch words.
    Direct,
    /// An indirect address of 3 x u32 global size (threads), then the local size.
    IndirectGlobal,
    /// An indirect address of 6 x u32 (global size, then local size); no local size word.
    IndirectLocal,
}

impl CdmMode {
    fn bits(self) -> u64 {
        match self {
            CdmMode::Direct => 0,
            CdmMode::IndirectGlobal => 1,
            CdmMode::IndirectLocal => 2,
        }
    }

    fn from_bits(v: u64) -> Result<CdmMode, WordError> {
        match v {
            0 => Ok(CdmMode::Direct),
            1 => Ok(CdmMode::IndirectGlobal),
            2 => Ok(CdmMode::IndirectLocal),
            _ => Err(bad(format!("CDM launch mode {v} is not defined"))),
        }
    }
}

/// Sampler-state counts the 3-bit `Sampler state register count` field can say; the field
/// holds this enum's value, not a count (Mesa writes 1, "4 compact").
pub mod sampler_states {
    pub const NONE: u32 = 0;
    pub const COMPACT_4: u32 = 1;
    pub const COMPACT_8: u32 = 2;
    pub const COMPACT_12: u32 = 3;
    pub const COMPACT_16: u32 = 4;
    pub const EXTENDED_8: u32 = 6;
    pub const EXTENDED_16: u32 = 7;
}

/// A compute launch: CDM Launch Words 0 and 1 and the grid words after them.
///
/// Count fields are stored in groups (uniforms by 64 halves, textures by 8, preshader
/// registers by 16 halves) and round up on packing; 0 is not representable and reads back as
/// one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdmLaunch {
    pub uniform_halves: u32,
    pub texture_states: u32,
    /// The raw "Sampler states" enum value, see [`sampler_states`].
    pub sampler_states: u32,
    pub preshader_halves: u32,
    pub mode: CdmMode,
    /// Where the USC words are, 64-byte aligned: a 32-bit USC address, i.e. an offset from the
    /// queue's `usc_exec_base`, as Mesa writes it (`agx_usc_addr`). Packing keeps the low 32
    /// bits, so a full GPU address in a 4 GiB-aligned USC window packs to the same value.
    pub pipeline: u64,
    /// Direct: grid size in threads.
    pub global_size: [u32; 3],
    /// Indirect modes: GPU address (4-byte aligned) of the indirect sizes.
    pub indirect: u64,
    /// Threads per workgroup (absent from the stream in `IndirectLocal` mode).
    pub local_size: [u32; 3],
}

fn put_xyz(out: &mut Vec<u8>, v: [u32; 3]) {
    for c in v {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

fn get_xyz(b: &[u8]) -> [u32; 3] {
    let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    [w(0), w(4), w(8)]
}

impl CdmLaunch {
    /// The preshader register count for a preshader using `gpr_halves` halves, as the word
    /// holds it: rounded up to its groups of 16.
    pub fn preshader_halves_for(gpr_halves: u32) -> u32 {
        word0::PRESHADER.stored(gpr_halves.into()) as u32
    }

    /// Bytes this launch occupies in the stream.
    pub fn size(mode: CdmMode) -> usize {
        match mode {
            CdmMode::Direct => 8 + 12 + 12,
            CdmMode::IndirectGlobal => 8 + 8 + 12,
            CdmMode::IndirectLocal => 8 + 8,
        }
    }

    pub fn pack(&self, out: &mut Vec<u8>) {
        let mut w = [0u8; 8];
        word0::UNIFORMS.put(&mut w, self.uniform_halves.into());
        word0::TEXTURES.put(&mut w, self.texture_states.into());
        word0::SAMPLERS.put(&mut w, self.sampler_states.into());
        word0::PRESHADER.put(&mut w, self.preshader_halves.into());
        word0::MODE.put(&mut w, self.mode.bits());
        BLOCK_TYPE.put(&mut w, BLOCK_LAUNCH);
        PIPELINE.put(&mut w[4..], self.pipeline);
        out.extend_from_slice(&w);
        match self.mode {
            CdmMode::Direct => put_xyz(out, self.global_size),
            CdmMode::IndirectGlobal | CdmMode::IndirectLocal => {
                let mut ind = [0u8; 8];
                INDIRECT_HI.put(&mut ind, self.indirect >> 32);
                INDIRECT_LO.put(&mut ind, self.indirect & 0xffff_ffff);
                out.extend_from_slice(&ind);
            }
        }
        if self.mode != CdmMode::IndirectLocal {
            put_xyz(out, self.local_size);
        }
    }

    pub fn unpack(b: &[u8]) -> Result<CdmLaunch, WordError> {
        need(b, 8, "CDM launch")?;
        if BLOCK_TYPE.get(b) != BLOCK_LAUNCH {
            return Err(bad("not a CDM launch block"));
        }
        let mode = CdmMode::from_bits(word0::MODE.get(b))?;
        let samplers = word0::SAMPLERS.get(b) as u32;
        if samplers == 5 {
            return Err(bad("sampler state count encoding 5 is not defined"));
        }
        need(b, Self::size(mode), "CDM launch")?;
        let mut l = CdmLaunch {
            uniform_halves: word0::UNIFORMS.get(b) as u32,
            texture_states: word0::TEXTURES.get(b) as u32,
            sampler_states: samplers,
            preshader_halves: word0::PRESHADER.get(b) as u32,
            mode,
            pipeline: PIPELINE.get(&b[4..8]),
            global_size: [0; 3],
            indirect: 0,
            local_size: [0; 3],
        };
        let rest = &b[8..];
        match mode {
            CdmMode::Direct => {
                l.global_size = get_xyz(rest);
                l.local_size = get_xyz(&rest[12..]);
            }
            CdmMode::IndirectGlobal | CdmMode::IndirectLocal => {
                l.indirect = (INDIRECT_HI.get(rest) << 32) | INDIRECT_LO.get(rest);
                if mode == CdmMode::IndirectGlobal {
                    l.local_size = get_xyz(&rest[8..]);
                }
            }
        }
        Ok(l)
    }
}

/// The flag bits of a CDM Barrier word that have a name in the public description.
const BARRIER_USC_INVAL: u32 = 3;
const BARRIER_RETURNS: u32 = 27;
/// Bits the description lists (0..20, 24, 26, 27) plus the block type; anything else set is
/// malformed.
const BARRIER_KNOWN: u32 = 0x001f_ffff | (1 << 24) | (1 << 26) | (1 << 27);

/// CDM Barrier: cache flushes and invalidations between launches. Only the USC cache
/// invalidate bit has a known meaning; the others are kept as a mask so a stream round-trips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CdmBarrier {
    pub usc_cache_invalidate: bool,
    /// Bit 27: as in the VDM barrier, the barrier also returns from a linked segment.
    pub returns: bool,
    /// The unnamed flag bits (0..20, 24, 26), at their word positions; bit 3 and 27 excluded.
    pub unknown: u32,
}

impl CdmBarrier {
    /// What Mesa writes after every G13 compute launch on a single-cluster GPU: flag bits 0..19
    /// (which include the USC cache invalidate).
    pub fn compute_to_compute() -> CdmBarrier {
        CdmBarrier {
            usc_cache_invalidate: true,
            returns: false,
            unknown: 0x000f_fff7,
        }
    }

    pub const SIZE: usize = 4;

    pub fn pack(&self) -> [u8; 4] {
        let mut w =
            self.unknown & BARRIER_KNOWN & !(1 << BARRIER_USC_INVAL) & !(1 << BARRIER_RETURNS);
        w |= u32::from(self.usc_cache_invalidate) << BARRIER_USC_INVAL;
        w |= u32::from(self.returns) << BARRIER_RETURNS;
        let mut b = w.to_le_bytes();
        BLOCK_TYPE.put(&mut b, BLOCK_BARRIER);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<CdmBarrier, WordError> {
        need(b, 4, "CDM barrier")?;
        if BLOCK_TYPE.get(b) != BLOCK_BARRIER {
            return Err(bad("not a CDM barrier block"));
        }
        let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & !(7 << 29);
        if w & !BARRIER_KNOWN != 0 {
            return Err(bad(format!(
                "CDM barrier sets undefined bits {:#x}",
                w & !BARRIER_KNOWN
            )));
        }
        Ok(CdmBarrier {
            usc_cache_invalidate: w & (1 << BARRIER_USC_INVAL) != 0,
            returns: w & (1 << BARRIER_RETURNS) != 0,
            unknown: w & !(1 << BARRIER_USC_INVAL) & !(1 << BARRIER_RETURNS),
        })
    }
}

const LINK_TARGET_HI: Field = Field::new("target hi", 0, 8);
const LINK_WITH_RETURN: Field = Field::new("with return", 28, 1);
const LINK_TARGET_LO: Field = Field::new("target lo", 32, 32);

/// CDM Stream Link: continue at `target` (a 40-bit address); with `with_return`, a later
/// Stream Return comes back to the block after this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdmStreamLink {
    pub target: u64,
    pub with_return: bool,
}

impl CdmStreamLink {
    pub const SIZE: usize = 8;

    pub fn pack(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        LINK_TARGET_HI.put(&mut b, self.target >> 32);
        LINK_WITH_RETURN.put(&mut b, self.with_return.into());
        BLOCK_TYPE.put(&mut b, BLOCK_LINK);
        LINK_TARGET_LO.put(&mut b, self.target & 0xffff_ffff);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<CdmStreamLink, WordError> {
        need(b, 8, "CDM stream link")?;
        if BLOCK_TYPE.get(b) != BLOCK_LINK {
            return Err(bad("not a CDM stream link block"));
        }
        Ok(CdmStreamLink {
            target: (LINK_TARGET_HI.get(b) << 32) | LINK_TARGET_LO.get(b),
            with_return: LINK_WITH_RETURN.get(b) != 0,
        })
    }
}

fn pack_bare(block: u64) -> [u8; 8] {
    let mut b = [0u8; 8];
    BLOCK_TYPE.put(&mut b, block);
    b
}

fn unpack_bare(b: &[u8], block: u64, what: &str) -> Result<(), WordError> {
    need(b, 8, what)?;
    if BLOCK_TYPE.get(b) != block {
        return Err(bad(format!("not a {what} block")));
    }
    Ok(())
}

/// CDM Stream Terminate: the end of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CdmStreamTerminate;

impl CdmStreamTerminate {
    pub const SIZE: usize = 8;
    pub fn pack(&self) -> [u8; 8] {
        pack_bare(BLOCK_TERMINATE)
    }
    pub fn unpack(b: &[u8]) -> Result<CdmStreamTerminate, WordError> {
        unpack_bare(b, BLOCK_TERMINATE, "CDM stream terminate").map(|()| CdmStreamTerminate)
    }
}

/// CDM Stream Return: go back to the block after the last linking-with-return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CdmStreamReturn;

impl CdmStreamReturn {
    pub const SIZE: usize = 8;
    pub fn pack(&self) -> [u8; 8] {
        pack_bare(BLOCK_RETURN)
    }
    pub fn unpack(b: &[u8]) -> Result<CdmStreamReturn, WordError> {
        unpack_bare(b, BLOCK_RETURN, "CDM stream return").map(|()| CdmStreamReturn)
    }
}

/// Any CDM block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CdmBlock {
    Launch(CdmLaunch),
    Barrier(CdmBarrier),
    Link(CdmStreamLink),
    Terminate,
    Return,
}

impl CdmBlock {
    /// Append the block's bytes.
    pub fn pack(&self, out: &mut Vec<u8>) {
        match self {
            CdmBlock::Launch(l) => l.pack(out),
            CdmBlock::Barrier(b) => out.extend_from_slice(&b.pack()),
            CdmBlock::Link(l) => out.extend_from_slice(&l.pack()),
            CdmBlock::Terminate => out.extend_from_slice(&CdmStreamTerminate.pack()),
            CdmBlock::Return => out.extend_from_slice(&CdmStreamReturn.pack()),
        }
    }

    /// The block's bytes.
    pub fn pack_vec(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.pack(&mut v);
        v
    }

    /// Read the block at `va`; returns it and its size in bytes.
    pub fn read<M: WordSource + ?Sized>(mem: &M, va: u64) -> Result<(CdmBlock, u64), M::Error> {
        let mut head = [0u8; 8];
        mem.read_words(va, &mut head[..4])?;
        let block = BLOCK_TYPE.get(&head);
        let fix = at(va);
        match block {
            BLOCK_LAUNCH => {
                mem.read_words(va.wrapping_add(4), &mut head[4..])?;
                let mode = CdmMode::from_bits(word0::MODE.get(&head)).map_err(&fix)?;
                let mut b = vec![0u8; CdmLaunch::size(mode)];
                mem.read_words(va, &mut b)?;
                let l = CdmLaunch::unpack(&b).map_err(&fix)?;
                Ok((CdmBlock::Launch(l), b.len() as u64))
            }
            BLOCK_BARRIER => {
                let b = CdmBarrier::unpack(&head[..4]).map_err(&fix)?;
                Ok((CdmBlock::Barrier(b), CdmBarrier::SIZE as u64))
            }
            BLOCK_LINK | BLOCK_TERMINATE | BLOCK_RETURN => {
                mem.read_words(va.wrapping_add(4), &mut head[4..])?;
                let blk = match block {
                    BLOCK_LINK => CdmBlock::Link(CdmStreamLink::unpack(&head).map_err(&fix)?),
                    BLOCK_TERMINATE => {
                        CdmStreamTerminate::unpack(&head).map_err(&fix)?;
                        CdmBlock::Terminate
                    }
                    _ => {
                        CdmStreamReturn::unpack(&head).map_err(&fix)?;
                        CdmBlock::Return
                    }
                };
                Ok((blk, 8))
            }
            other => Err(fix(bad(format!("CDM block type {other} is not defined"))).into()),
        }
    }
}
