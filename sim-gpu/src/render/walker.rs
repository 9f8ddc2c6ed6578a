//! The VDM: walks a render command's vertex control stream and hands each draw, with the
//! state in force when it was issued, to the next stage.
//!
//! State blocks and PPP updates are incremental: a word that is present replaces the one
//! before it, a word that is absent leaves it alone. So the walker keeps one merged copy of
//! each and gives every draw a snapshot of both.
//!
//! An indexed draw's buffer address is where its indices start: for a direct draw the driver
//! has already folded the first index into it (Mesa's drivers do), so only indirect draws carry
//! a first index, read with the rest of the `VkDraw[Indexed]IndirectCommand` at the indirect
//! address. Neither kind of Index List block carries a first instance; an indirect one reads it
//! from memory and passes it on, since that is where the hardware finds it, but what the
//! vertex shader sees as its instance index is up to the stage that runs it.
//!
//! Links, barriers and terminate follow the CDM walker's rules: one return address, a barrier
//! with its return bit goes back to it, a stream longer than [`MAX_BLOCKS`] blocks or one that
//! reaches the same link twice in the same state faults.

use crate::{Fault, GpuMemory, RenderCommand, MAX_BLOCKS};
use hw::g13::control::ppp::PppUpdate;
use hw::g13::control::vdm::{IndexList, IndexSize, Primitive, VdmBarrier, VdmBlock, VdmState};
use std::collections::HashSet;

fn bad(va: u64, why: impl Into<String>) -> Fault {
    Fault::BadControlWord {
        va,
        reason: why.into(),
    }
}

/// The state in force for a draw: the merged VDM State words and the merged PPP state.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PipelineState {
    pub vertex: VdmState,
    pub ppp: PppUpdate,
}

/// Where a draw's indices come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexSource {
    /// Address of index 0 of the draw's range (before `first_index`).
    pub buffer: u64,
    pub size: IndexSize,
    /// Bytes readable from `buffer`; `None` when the block gave no size (no bound).
    pub bound_bytes: Option<u32>,
    /// Indices to skip from `buffer`: 0 for direct draws, `firstIndex` for indirect ones.
    pub first_index: u32,
}

/// What to draw, with indirect arguments already read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawParams {
    pub primitive: Primitive,
    /// The block's restart enable ([`crate::render::assemble`] applies it to indexed
    /// draws of every topology).
    pub restart_enable: bool,
    pub indices: Option<IndexSource>,
    /// Vertices (non-indexed) or indices (indexed).
    pub count: u32,
    pub instances: u32,
    /// First vertex of a non-indexed draw.
    pub first_vertex: u32,
    /// Added to every index of an indexed draw (`vertexOffset`).
    pub base_vertex: i32,
    /// From the indirect arguments; direct draws carry none and get 0.
    pub first_instance: u32,
    /// Address of the arguments this draw was read from, if indirect.
    pub indirect: Option<u64>,
}

/// One draw as the VDM issues it.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawCall {
    /// Address of the Index List block.
    pub va: u64,
    pub state: PipelineState,
    pub params: DrawParams,
}

/// The stage after the VDM: vertex shading, raster and tiling implement this.
pub trait DrawSink {
    fn draw(&mut self, draw: &DrawCall, mem: &mut dyn GpuMemory) -> Result<(), Fault>;

    /// A VDM barrier between draws. Draws reach the sink one after another, so nothing is
    /// outstanding; a sink that caches shader code may want the USC invalidate bit.
    fn barrier(&mut self, _barrier: &VdmBarrier) -> Result<(), Fault> {
        Ok(())
    }
}

/// What a walk saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    pub blocks: u64,
    pub draws: u64,
    pub ppp_updates: u64,
}

/// Walk the render command's VDM stream from its base to its terminate block.
pub fn walk_vdm_stream(
    cmd: &RenderCommand,
    mem: &mut dyn GpuMemory,
    sink: &mut dyn DrawSink,
) -> Result<WalkStats, Fault> {
    let mut stats = WalkStats::default();
    let mut state = PipelineState::default();
    let mut va = cmd.vdm_ctrl_stream_base;
    let mut ret: Option<u64> = None;
    let mut links_seen = HashSet::new();
    for _ in 0..MAX_BLOCKS {
        let (block, size) = VdmBlock::read(mem, va)?;
        stats.blocks += 1;
        let next = va.wrapping_add(size);
        match block {
            VdmBlock::State(s) => {
                state.vertex.apply(&s);
                va = next;
            }
            VdmBlock::Ppp(p) => {
                let (u, _) = PppUpdate::read(mem, p.pointer, p.size_words)?;
                state.ppp.apply(u);
                stats.ppp_updates += 1;
                va = next;
            }
            VdmBlock::IndexList(l) => {
                let params = draw_params(&l, va, mem)?;
                let call = DrawCall {
                    va,
                    state: state.clone(),
                    params,
                };
                sink.draw(&call, mem)?;
                stats.draws += 1;
                va = next;
            }
            VdmBlock::Barrier(b) => {
                sink.barrier(&b)?;
                va = if b.returns {
                    ret.take()
                        .ok_or_else(|| bad(va, "barrier returns with no return address"))?
                } else {
                    next
                };
            }
            VdmBlock::Link(link) => {
                if !links_seen.insert((va, ret)) {
                    return Err(bad(va, "control stream loops"));
                }
                if link.with_return {
                    if ret.is_some() {
                        return Err(bad(va, "nested stream link with return (one level only)"));
                    }
                    ret = Some(next);
                }
                va = link.target;
            }
            VdmBlock::Terminate => return Ok(stats),
        }
    }
    Err(bad(
        va,
        format!("control stream longer than {MAX_BLOCKS} blocks"),
    ))
}

/// The draw an Index List block describes, reading indirect arguments from memory.
pub fn draw_params(l: &IndexList, va: u64, mem: &dyn GpuMemory) -> Result<DrawParams, Fault> {
    let mut p = DrawParams {
        primitive: l.primitive,
        restart_enable: l.restart_enable,
        indices: l.index_buffer.map(|buffer| IndexSource {
            buffer,
            size: l.index_size,
            bound_bytes: l.index_buffer_size,
            first_index: 0,
        }),
        count: 0,
        instances: 0,
        first_vertex: 0,
        base_vertex: 0,
        first_instance: 0,
        indirect: l.indirect,
    };
    if let Some(args) = l.indirect {
        if l.count.is_some() || l.instances.is_some() || l.start.is_some() {
            // Which would win is not known; Mesa never writes both.
            return Err(Fault::Unimplemented(
                "index list with both indirect and direct draw arguments",
            ));
        }
        let word = |i: u64| mem.read_u32(args.wrapping_add(4 * i));
        p.count = word(0)?;
        p.instances = word(1)?;
        if let Some(ix) = &mut p.indices {
            // VkDrawIndexedIndirectCommand: count, instances, first index, vertex offset,
            // first instance.
            ix.first_index = word(2)?;
            p.base_vertex = word(3)? as i32;
            p.first_instance = word(4)?;
        } else {
            // VkDrawIndirectCommand: count, instances, first vertex, first instance.
            p.first_vertex = word(2)?;
            p.first_instance = word(3)?;
        }
        return Ok(p);
    }
    p.count = l
        .count
        .ok_or_else(|| bad(va, "direct draw without a count word"))?;
    p.instances = l
        .instances
        .ok_or_else(|| bad(va, "direct draw without an instance count word"))?;
    let start = l.start.unwrap_or(0);
    if p.indices.is_some() {
        p.base_vertex = start as i32;
    } else {
        p.first_vertex = start;
    }
    Ok(p)
}
