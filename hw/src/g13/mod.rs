//! G13 (Apple M1) machine code: encoder, decoder and length rules for [`crate::isa`].
//!
//! Field positions come from dougallj/applegpu and Mesa's asahi back end. An instruction is
//! built as one little-endian bit string in its long layout; extensible instructions drop to
//! their short form when every bit past the short length is zero, exactly as both references do.
//! The decoder parses fields and then re-encodes the result: anything that does not come back
//! bit-for-bit (reserved bits, hints agx4 does not model, non-canonical lengths) is rejected
//! rather than guessed at.

mod bits;
pub mod control;
mod float_imm;
pub mod float_mode;
pub mod image_desc;
mod isa_alu;
mod isa_float;
mod isa_flow;
mod isa_gfx;
mod isa_lane;
mod isa_mem;
mod isa_tex;
pub mod layout;
mod operand_codec;
pub mod points;
pub mod preload;
pub mod tilebuffer;
pub mod uvs;

#[cfg(test)]
mod tests;

pub use float_imm::{float_imm_from_bits, float_imm_to_bits, float_imm_value};

use crate::isa::{Codec, DecodeError, EncodeError, Instr};
use crate::Generation;
use bits::Encoded;

/// Longest instruction agx4 emits or decodes (long texture instructions).
pub const MAX_INSTR_LEN: usize = 12;

/// The G13 encoding as the generation-neutral code reaches it ([`Generation::codec`]). G13's
/// own code (its compiler back end, its tests) calls [`encode`] and [`decode`] directly.
pub static CODEC: G13Codec = G13Codec;

/// See [`CODEC`].
pub struct G13Codec;

impl Codec for G13Codec {
    fn generation(&self) -> Generation {
        Generation::G13
    }

    fn max_instr_len(&self) -> usize {
        MAX_INSTR_LEN
    }

    fn encode(&self, instr: &Instr, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        encode(instr, out)
    }

    fn encoded_len(&self, instr: &Instr) -> Result<usize, EncodeError> {
        encoded_len(instr)
    }

    fn decode(&self, bytes: &[u8]) -> Result<(Instr, usize), DecodeError> {
        decode(bytes)
    }
}

fn encode_bits(instr: &Instr, force_long: bool) -> Result<Encoded, EncodeError> {
    match instr {
        Instr::MovImm(i) => isa_alu::mov_imm(i, force_long),
        Instr::GetSr(i) => isa_alu::get_sr(i),
        Instr::IAdd(i) => isa_alu::iadd(i),
        Instr::IMAdd(i) => isa_alu::imadd(i),
        Instr::Bitop(i) => isa_alu::bitop(i),
        Instr::Shift(i) => isa_alu::shift(i),
        Instr::IUnary(i) => isa_alu::iunary(i),
        Instr::Convert(i) => isa_alu::convert(i),
        Instr::CmpSel(i) => isa_alu::cmpsel(i, force_long),
        Instr::Ballot(i) => isa_lane::ballot(i),
        Instr::Shuffle(i) => isa_lane::shuffle(i),
        Instr::SimdReduce(i) => isa_lane::simd_reduce(i),
        Instr::FArith(i) => isa_float::farith(i, force_long),
        Instr::FUnary(i) => isa_float::funary(i, force_long),
        Instr::ExecCmp(i) => isa_flow::exec_cmp(i),
        Instr::PopExec(i) => isa_flow::pop_exec(i),
        Instr::Jump(i) => Ok(isa_flow::jump(i)),
        Instr::Wait(i) => isa_flow::wait(i),
        Instr::ThreadgroupBarrier => Ok(isa_flow::threadgroup_barrier()),
        Instr::MemoryBarrier => Ok(isa_flow::memory_barrier()),
        Instr::Stop => Ok(isa_flow::stop()),
        Instr::DeviceMem(i) => isa_mem::device(i),
        Instr::ThreadgroupMem(i) => isa_mem::threadgroup(i, force_long),
        Instr::StackMem(i) => isa_mem::stack(i),
        Instr::Atomic(i) => isa_mem::atomic(i),
        Instr::ThreadgroupAtomic(i) => isa_mem::threadgroup_atomic(i, force_long),
        Instr::UniformStore(i) => isa_mem::uniform_store(i),
        Instr::Iter(i) => isa_gfx::iter(i).map(|e| long_if(e, force_long)),
        Instr::LdCf(i) => isa_gfx::ldcf(i).map(|e| long_if(e, force_long)),
        Instr::StVary(i) => isa_gfx::st_vary(i),
        Instr::TileMem(i) => isa_gfx::tile(i),
        Instr::SampleMask(i) => isa_gfx::sample_mask(i),
        Instr::ZsEmit(i) => isa_gfx::zs_emit(i),
        Instr::Texture(i) => isa_tex::texture_op(i, force_long),
        Instr::ImageWrite(i) => isa_tex::image_write(i, force_long),
        Instr::BlockImageStore(i) => isa_tex::block_image_store(i, force_long),
    }
}

/// `iter` and `ldcf` have a 4-byte short form; Mesa always emits the 8-byte one, so decoding
/// must be able to reproduce it.
fn long_if(e: Encoded, force_long: bool) -> Encoded {
    if force_long && e.len == 4 {
        bits::fit(e.bits, 4, 8, 15, true)
    } else {
        e
    }
}

/// Appends the machine code of `instr` to `out`, in its short form when the operands allow.
/// On error nothing is appended.
pub fn encode(instr: &Instr, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let e = encode_bits(instr, false)?;
    e.append_to(out);
    Ok(())
}

/// Byte length [`encode`] would produce. A jump's length never depends on its offset.
pub fn encoded_len(instr: &Instr) -> Result<usize, EncodeError> {
    Ok(encode_bits(instr, false)?.len)
}

/// Decodes the instruction at the start of `bytes`, returning it and its length in bytes.
pub fn decode(bytes: &[u8]) -> Result<(Instr, usize), DecodeError> {
    let shape = bits::classify(bytes)?;
    let len = shape.length(bytes)?;
    let raw = bits::read(bytes, len);
    let instr = shape.decode(raw, bytes, len)?;
    let force_long = shape.is_extensible() && len == shape.long;
    let again = encode_bits(&instr, force_long).map_err(|e| DecodeError::Unmodelled {
        bytes: bytes[..len].to_vec(),
        reason: format!("fields do not form a valid agx4 instruction ({e})"),
    })?;
    if again.len != len || again.bits != raw {
        return Err(DecodeError::Unmodelled {
            bytes: bytes[..len].to_vec(),
            reason: "bits outside the modelled fields are set".into(),
        });
    }
    Ok((instr, len))
}
