//! Instruction words as little-endian bit strings, and the opcode table that tells the
//! decoder which family and length rule a byte sequence follows.

use super::{isa_alu, isa_float, isa_flow, isa_gfx, isa_lane, isa_mem, isa_tex};
use crate::isa::DecodeError;
use crate::isa::Instr;

/// Bits of an encoded instruction (bit 0 is the low bit of the first byte) and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Encoded {
    pub bits: u128,
    pub len: usize,
}

impl Encoded {
    pub fn append_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.bits.to_le_bytes()[..self.len]);
    }
}

/// Writes `value` into `size` bits at `start`. Callers range-check first; extra bits are
/// dropped so a missed check corrupts nothing outside the field.
pub(crate) fn put(bits: &mut u128, start: u32, size: u32, value: u64) {
    let mask = (1u128 << size) - 1;
    *bits = (*bits & !(mask << start)) | ((u128::from(value) & mask) << start);
}

pub(crate) fn get(bits: u128, start: u32, size: u32) -> u32 {
    ((bits >> start) & ((1u128 << size) - 1)) as u32
}

/// Picks the short form when nothing lives past it, else sets the length bit.
pub(crate) fn fit(bits: u128, short: usize, long: usize, lbit: u32, force_long: bool) -> Encoded {
    if short == long {
        return Encoded { bits, len: short };
    }
    if !force_long && bits >> (short * 8) == 0 {
        Encoded { bits, len: short }
    } else {
        Encoded {
            bits: bits | (1u128 << lbit),
            len: long,
        }
    }
}

pub(crate) fn read(bytes: &[u8], len: usize) -> u128 {
    let mut buf = [0u8; 16];
    buf[..len].copy_from_slice(&bytes[..len]);
    u128::from_le_bytes(buf)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    MovImm,
    GetSr,
    IAdd,
    IMAdd,
    Bitop,
    Shift,
    IUnary,
    Convert,
    CmpSel,
    Ballot,
    Shuffle,
    SimdReduce,
    FArith,
    FUnary,
    ExecCmp,
    Jump,
    Wait,
    Fixed,
    Device,
    Threadgroup,
    Stack,
    Atomic,
    ThreadgroupAtomic,
    Iterate,
    StVary,
    Tile,
    Coverage,
    Texture,
    ImageWrite,
    BlockStore,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub family: Family,
    pub short: usize,
    pub long: usize,
    pub lbit: u32,
}

fn shape(family: Family, short: usize, long: usize, lbit: u32) -> Shape {
    Shape {
        family,
        short,
        long,
        lbit,
    }
}

/// Identifies the instruction family from its first two bytes.
pub(crate) fn classify(bytes: &[u8]) -> Result<Shape, DecodeError> {
    if bytes.len() < 2 {
        return Err(DecodeError::Truncated {
            needed: 2,
            available: bytes.len(),
        });
    }
    let h = u16::from_le_bytes([bytes[0], bytes[1]]);
    let b0 = bytes[0];
    use Family::*;
    let s = match h {
        0x0088 | 0x0068 | 0x96f5 => Some(shape(Fixed, 2, 2, 15)),
        0xc000 | 0xc020 => Some(shape(Jump, 6, 6, 15)),
        _ => None,
    };
    if let Some(s) = s {
        return Ok(s);
    }
    let s = match b0 {
        0x38 => Some(shape(Wait, 2, 2, 15)),
        0x35 | 0xb5 => Some(shape(Stack, 6, 8, 47)),
        0x41 | 0xc1 => Some(shape(Coverage, 4, 4, 15)),
        0x31 | 0x71 => Some(shape(Texture, 8, 12, 15)),
        0xf1 => Some(shape(ImageWrite, 6, 8, 15)),
        0xb1 => Some(shape(BlockStore, 6, 10, 15)),
        _ => None,
    }
    .or(match b0 & 0x7f {
        0x62 if h & 0x100 != 0 => Some(shape(MovImm, 6, 8, 15)),
        0x62 => Some(shape(MovImm, 4, 6, 15)),
        0x72 => Some(shape(GetSr, 4, 4, 15)),
        0x3e if h & 0x8000 != 0 => Some(shape(Convert, 6, 6, 15)),
        0x3e => Some(shape(IUnary, 6, 6, 15)),
        0x7e => Some(shape(Bitop, 6, 6, 15)),
        0x2e => Some(shape(Shift, 8, 8, 15)),
        0x12 | 0x02 => Some(shape(CmpSel, 8, 10, 15)),
        0x32 | 0x22 => Some(shape(Ballot, 8, 8, 15)),
        0x6f if h & 0x8000 == 0 => Some(shape(Shuffle, 6, 6, 15)),
        0x6f => Some(shape(SimdReduce, 6, 6, 15)),
        0x52 | 0x42 => Some(shape(ExecCmp, 6, 6, 15)),
        0x05 | 0x45 => Some(shape(Device, 6, 8, 47)),
        0x69 | 0x29 => Some(shape(Threadgroup, 6, 8, 15)),
        0x11 => Some(shape(StVary, 4, 4, 15)),
        0x49 | 0x09 => Some(shape(Tile, 8, 8, 15)),
        _ => None,
    })
    .or(match b0 & 0x3f {
        0x0e => Some(shape(IAdd, 8, 8, 15)),
        0x1e => Some(shape(IMAdd, 8, 8, 15)),
        0x2a | 0x26 | 0x1a | 0x16 => Some(shape(FArith, 4, 6, 15)),
        0x3a | 0x36 => Some(shape(FArith, 6, 8, 15)),
        0x0a => Some(shape(FUnary, 4, 6, 15)),
        0x15 => Some(shape(Atomic, 8, 8, 15)),
        0x19 => Some(shape(ThreadgroupAtomic, 6, 10, 15)),
        0x21 => Some(shape(Iterate, 4, 8, 15)),
        _ => None,
    });
    s.ok_or_else(|| DecodeError::Unknown {
        bytes: bytes[..2].to_vec(),
    })
}

impl Shape {
    pub fn is_extensible(&self) -> bool {
        self.short != self.long
    }

    /// Length of the instruction at the start of `bytes`, checking that it is all there.
    pub fn length(&self, bytes: &[u8]) -> Result<usize, DecodeError> {
        let need = |n: usize| {
            if bytes.len() < n {
                Err(DecodeError::Truncated {
                    needed: n,
                    available: bytes.len(),
                })
            } else {
                Ok(())
            }
        };
        need(self.short)?;
        let len = if self.is_extensible() && get(read(bytes, self.short), self.lbit, 1) != 0 {
            self.long
        } else {
            self.short
        };
        need(len)?;
        Ok(len)
    }

    pub fn decode(&self, raw: u128, bytes: &[u8], len: usize) -> Result<Instr, DecodeError> {
        use Family::*;
        let r = match self.family {
            MovImm => isa_alu::dec_mov_imm(raw),
            GetSr => isa_alu::dec_get_sr(raw),
            IAdd => isa_alu::dec_iadd(raw),
            IMAdd => isa_alu::dec_imadd(raw),
            Bitop => isa_alu::dec_bitop(raw),
            Shift => isa_alu::dec_shift(raw),
            IUnary => isa_alu::dec_iunary(raw),
            Convert => isa_alu::dec_convert(raw),
            CmpSel => isa_alu::dec_cmpsel(raw),
            Ballot => isa_lane::dec_ballot(raw),
            Shuffle => isa_lane::dec_shuffle(raw),
            SimdReduce => isa_lane::dec_simd_reduce(raw),
            FArith => isa_float::dec_farith(raw),
            FUnary => isa_float::dec_funary(raw),
            ExecCmp => isa_flow::dec_exec(raw),
            Jump => Ok(isa_flow::dec_jump(raw)),
            Wait => Ok(isa_flow::dec_wait(raw)),
            Fixed => isa_flow::dec_fixed(raw),
            Device => isa_mem::dec_device(raw),
            Threadgroup => isa_mem::dec_threadgroup(raw),
            Stack => isa_mem::dec_stack(raw),
            Atomic => isa_mem::dec_atomic(raw),
            ThreadgroupAtomic => isa_mem::dec_threadgroup_atomic(raw),
            Iterate => isa_gfx::dec_iter(raw),
            StVary => isa_gfx::dec_st_vary(raw),
            Tile => isa_gfx::dec_tile(raw),
            Coverage => isa_gfx::dec_coverage(raw),
            Texture => isa_tex::dec_texture(raw),
            ImageWrite => isa_tex::dec_image_write(raw),
            BlockStore => isa_tex::dec_block_image_store(raw),
        };
        r.map_err(|reason| DecodeError::Unmodelled {
            bytes: bytes[..len].to_vec(),
            reason: reason.to_string(),
        })
    }
}
