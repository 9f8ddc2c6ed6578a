//! `st_vary` as host code: a vertex group's outputs into its UVS records
//! (`VertexContext::uvs`, [`Ctx::uvs_slots`] words per lane), which the executor hands a
//! region only when every slot the region writes exists ([`super::Region::vary_slots`]).

use super::chunk::Chunk;
use super::emit::Unsupported;
use super::Ctx;
use cranelift_codegen::ir::{types::*, InstBuilder, MemFlagsData};
use hw::isa::*;
use std::mem::offset_of;

/// The UVS slot `x` writes, when the translator covers its form: an immediate slot and a
/// 32-bit source (the interpreter's `step_graphics` takes the others).
pub fn slot(x: &StVary) -> Option<u32> {
    match x.index {
        Small::Imm(slot) if x.src.size == Size::S32 => Some(u32::from(slot)),
        _ => None,
    }
}

/// Emits `x` into the chunk, whose context is `ctx` from lane `lane0`.
pub fn emit(c: &mut Chunk, x: &StVary) -> Result<(), Unsupported> {
    let (Some(slot), Some((ctx, lane0))) = (slot(x), c.fragment) else {
        return Err(Unsupported);
    };
    // A loop pass in a full chunk may be run again from its inputs (`Chunk::new_full`): a
    // store must not happen twice.
    if c.is_full() {
        return Err(Unsupported);
    }
    c.issue();
    let v = c.reg32(x.src.half);
    let f = MemFlagsData::trusted();
    let uvs = c.b.ins().load(I64, f, ctx, offset_of!(Ctx, uvs) as i32);
    let slots = c.b.ins().uload32(f, ctx, offset_of!(Ctx, uvs_slots) as i32);
    let stride = c.b.ins().ishl_imm_s(slots, 2);
    let first = c.b.ins().imul_imm_s(stride, lane0 as i64);
    let mut at = c.b.ins().iadd(uvs, first);
    // Each lane writes back what its record held where it is inactive: no branches.
    for l in 0..8u8 {
        let bit = c.b.ins().band_imm_s(c.bits, 1 << l);
        let new = c.b.ins().extractlane(v[usize::from(l / 4)], l % 4);
        let offset = 4 * slot as i32;
        let old = c.b.ins().load(I32, f, at, offset);
        let word = c.b.ins().select(bit, new, old);
        c.b.ins().store(f, word, at, offset);
        at = c.b.ins().iadd(at, stride);
    }
    if x.last {
        let finished = offset_of!(Ctx, finished) as i32;
        let old = c.b.ins().load(I32, f, ctx, finished);
        let bits = c.b.ins().ishl_imm_s(c.bits, lane0 as i64);
        let now = c.b.ins().bor(old, bits);
        c.b.ins().store(f, now, ctx, finished);
    }
    Ok(())
}
