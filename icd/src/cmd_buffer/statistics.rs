//! Pipeline statistics queries (VK_QUERY_TYPE_PIPELINE_STATISTICS). The UAPI gives the driver
//! no hardware counter to read, so every statistic is counted by GPU work the driver adds,
//! into the pool's u64 counters (layout: query_pool.rs):
//!
//! - input assembly vertices and vertex shader invocations: the draw's vertices, times its
//!   instances (with primitive restart, the indices that are not the restart index): the
//!   `PrimitivesGenerated` meta shader in its vertex mode, after each draw (primgen.rs). The
//!   vertex shader runs once per such vertex; nothing shares results between them.
//! - input assembly primitives, clipping invocations and clipping primitives: the draw's
//!   primitives, the same shader in its primitive mode. Every primitive reaches the clipper;
//!   counting each once as clipping output is what the spec allows for a clipper whose
//!   output is not observable (one or more for a primitive with a vertex inside the clip
//!   volume, zero or more otherwise).
//! - fragment shader invocations: the fragment shader adds to the counter itself
//!   (compiler `passes::count_fragment_invocations`); the draw's root table holds the
//!   counter's address.
//! - compute shader invocations: the `DispatchInvocations` meta shader after each dispatch,
//!   from the workgroup counts (read on the GPU for indirect dispatches).
//! - geometry and tessellation statistics: agx4 has neither stage, so those counters keep
//!   the zero of their reset, as the spec asks of stages a pipeline does not have.
//!
//! Availability is written as for primitives generated queries (query.rs), after the render
//! command that ran the query's last draws.

use super::dispatch::meta_launch;
use super::draw::DrawKind;
use super::Recording;
use crate::device::Device;
use crate::pipeline_graphics::GraphicsPipeline;
use crate::query_pool::QueryPool;
use ash::vk;
use compiler::meta::{dispatch_invocations, Meta};

type Flag = vk::QueryPipelineStatisticFlags;

/// The active pipeline statistics query of a command buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Active {
    va: u64,
    count: u32,
    query: u32,
    statistics: Flag,
}

impl Active {
    /// The GPU address of `query`'s counter of statistic `bit`, if the pool counts it.
    pub fn counter(&self, bit: Flag) -> Option<u64> {
        if !self.statistics.contains(bit) {
            return None;
        }
        // Counters are in the order of their bits.
        let slot = (self.statistics.as_raw() & (bit.as_raw() - 1)).count_ones();
        Some(self.va + (u64::from(slot) * u64::from(self.count) + u64::from(self.query)) * 8)
    }
}

/// The statistics counted from a draw's arguments, and whether each counts vertices (else
/// primitives).
const FROM_DRAW: [(Flag, bool); 5] = [
    (Flag::INPUT_ASSEMBLY_VERTICES, true),
    (Flag::INPUT_ASSEMBLY_PRIMITIVES, false),
    (Flag::VERTEX_SHADER_INVOCATIONS, true),
    (Flag::CLIPPING_INVOCATIONS, false),
    (Flag::CLIPPING_PRIMITIVES, false),
];

/// Adds the statistics of the draw `kind` with pipeline `p` to the active query's counters.
pub fn count_draw(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    kind: DrawKind,
    active: Active,
) -> Result<(), vk::Result> {
    for (bit, vertices) in FROM_DRAW {
        if let Some(counter) = active.counter(bit) {
            super::primgen::count_as(dev, rec, p, kind, counter, vertices)?;
        }
    }
    Ok(())
}

/// The fragment shader invocations counter draws recorded now add to (0: none).
pub fn fragment_counter(rec: &Recording) -> u64 {
    rec.stats
        .and_then(|a| a.counter(Flag::FRAGMENT_SHADER_INVOCATIONS))
        .unwrap_or(0)
}

/// Adds the invocations of a dispatch of `local` invocations per workgroup and the
/// workgroup counts at `groups` (a VkDispatchIndirectCommand) to the active query.
pub fn count_dispatch(
    dev: &Device,
    rec: &mut Recording,
    groups: u64,
    local: u32,
) -> Result<(), vk::Result> {
    let Some(counter) = rec
        .stats
        .and_then(|a| a.counter(Flag::COMPUTE_SHADER_INVOCATIONS))
    else {
        return Ok(());
    };
    let mut push = [0u8; dispatch_invocations::SIZE as usize];
    let at = dispatch_invocations::LOCAL as usize;
    push[at..at + 4].copy_from_slice(&local.to_le_bytes());
    // Dispatches recorded earlier add to the same counter.
    rec.barrier_pending = true;
    meta_launch(
        dev,
        rec,
        Meta::DispatchInvocations,
        &push,
        1,
        &[(groups, 12), (counter, 8)],
    )?;
    rec.barrier_pending = true;
    Ok(())
}

/// Begins pipeline statistics query `query` of `pool`.
pub fn begin_query(rec: &mut Recording, pool: &QueryPool, query: u32) -> Result<(), vk::Result> {
    if rec.stats.is_some() {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    rec.stats = Some(Active {
        va: pool.va(),
        count: pool.count,
        query,
        statistics: pool.statistics,
    });
    // The fragment counter is in the draws' root tables.
    rec.gfx.dirty = true;
    Ok(())
}

pub fn end_query(rec: &mut Recording) -> Result<(), vk::Result> {
    rec.gfx.dirty = true;
    rec.stats
        .take()
        .map(|_| ())
        .ok_or(vk::Result::ERROR_UNKNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_follow_the_bit_order() {
        let a = Active {
            va: 0x1000,
            count: 4,
            query: 1,
            statistics: Flag::INPUT_ASSEMBLY_VERTICES
                | Flag::FRAGMENT_SHADER_INVOCATIONS
                | Flag::COMPUTE_SHADER_INVOCATIONS,
        };
        assert_eq!(a.counter(Flag::INPUT_ASSEMBLY_VERTICES), Some(0x1000 + 8));
        assert_eq!(
            a.counter(Flag::FRAGMENT_SHADER_INVOCATIONS),
            Some(0x1000 + (4 + 1) * 8)
        );
        assert_eq!(
            a.counter(Flag::COMPUTE_SHADER_INVOCATIONS),
            Some(0x1000 + (8 + 1) * 8)
        );
        assert_eq!(a.counter(Flag::VERTEX_SHADER_INVOCATIONS), None);
    }
}
