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
//!
//! Inherited queries: a secondary begun with `pipelineStatistics` in its inheritance info
//! does not know the counters it will count into. It keeps its draws' and dispatches'
//! counting launches without the counter (`Deferred`), and the primary that executes it
//! runs them with its active query's counters. Its fragment shaders count into a u64 of the
//! secondary's own memory (`Inherited::cell`), which the primary moves into its counter
//! (or discards) with the `DrainCounter` meta shader once the render commands that ran
//! them are done, once per subpass however often the secondary ran in it. The cell is the
//! secondary's, so two primaries running one SIMULTANEOUS_USE secondary at the same time on
//! the GPU would share it; agx4 has one queue, which runs submissions in order.

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

/// A counting launch a secondary leaves to the primary that executes it: the counter of
/// statistic `bit` becomes the last binding.
#[derive(Clone, Debug)]
pub struct Deferred {
    bit: Flag,
    meta: Meta,
    push: Vec<u8>,
    buffers: Vec<(u64, u64)>,
}

/// What a secondary inheriting a pipeline statistics query keeps for its primary.
#[derive(Clone, Debug, Default)]
pub struct Inherited {
    /// The inheritance info's `pipelineStatistics`.
    pub statistics: Flag,
    pub deferred: Vec<Deferred>,
    /// The u64 its fragment shaders count into (0 until a draw needs it).
    pub cell: u64,
}

/// Counts the statistics of draw `kind` with pipeline `p`: into the active query, or for an
/// inheriting secondary, kept for its primary.
pub fn before_draw(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    kind: DrawKind,
) -> Result<(), vk::Result> {
    if let Some(active) = rec.stats {
        return count_draw(dev, rec, p, kind, active);
    }
    let inherited = rec.stats_inherit.statistics;
    if inherited.is_empty() {
        return Ok(());
    }
    for (bit, vertices) in FROM_DRAW {
        if inherited.contains(bit) {
            let (push, [args, index]) = super::primgen::prepare(dev, rec, p, kind, vertices)?;
            rec.stats_inherit.deferred.push(Deferred {
                bit,
                meta: Meta::PrimitivesGenerated,
                push,
                buffers: vec![args, index],
            });
        }
    }
    if inherited.contains(Flag::FRAGMENT_SHADER_INVOCATIONS) && rec.stats_inherit.cell == 0 {
        rec.stats_inherit.cell = rec.upload.push(dev, &[0u8; 8], 8)?;
    }
    Ok(())
}

/// The fragment shader invocations counter draws recorded now add to (0: none).
pub fn fragment_counter(rec: &Recording) -> u64 {
    match rec.stats {
        Some(a) => a.counter(Flag::FRAGMENT_SHADER_INVOCATIONS).unwrap_or(0),
        None => rec.stats_inherit.cell,
    }
}

/// vkCmdExecuteCommands: runs secondary `s`'s counting launches with `rec`'s active query and
/// arranges for its fragment counts to be moved after the subpass.
pub fn execute(dev: &Device, rec: &mut Recording, s: &Recording) -> Result<(), vk::Result> {
    for d in &s.stats_inherit.deferred {
        let Some(counter) = rec.stats.and_then(|a| a.counter(d.bit)) else {
            continue;
        };
        let mut buffers = d.buffers.clone();
        buffers.push((counter, 8));
        rec.barrier_pending = true;
        meta_launch(dev, rec, d.meta, &d.push, 1, &buffers)?;
        rec.barrier_pending = true;
    }
    let cell = s.stats_inherit.cell;
    if cell != 0 && !rec.stats_drains.iter().any(|&(c, _)| c == cell) {
        let counter = match rec
            .stats
            .and_then(|a| a.counter(Flag::FRAGMENT_SHADER_INVOCATIONS))
        {
            Some(c) => c,
            // No query takes the counts: they go to a scratch word.
            None => rec.upload.push(dev, &[0u8; 8], 8)?,
        };
        rec.stats_drains.push((cell, counter));
    }
    Ok(())
}

/// After the render commands of a subpass: moves the fragment counts of the inheriting
/// secondaries it ran into their queries.
pub fn after_render(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    for (cell, counter) in std::mem::take(&mut rec.stats_drains) {
        rec.barrier_pending = true;
        meta_launch(
            dev,
            rec,
            Meta::DrainCounter,
            &[],
            1,
            &[(cell, 8), (counter, 8)],
        )?;
        rec.barrier_pending = true;
    }
    Ok(())
}

/// Dispatches recorded now count compute shader invocations, or may for an inherited query.
pub fn counts_dispatches(rec: &Recording) -> bool {
    let bit = Flag::COMPUTE_SHADER_INVOCATIONS;
    match rec.stats {
        Some(a) => a.counter(bit).is_some(),
        None => rec.stats_inherit.statistics.contains(bit),
    }
}

/// Adds the invocations of a dispatch of `local` invocations per workgroup and the
/// workgroup counts at `groups` (a VkDispatchIndirectCommand) to the active query.
pub fn count_dispatch(
    dev: &Device,
    rec: &mut Recording,
    groups: u64,
    local: u32,
) -> Result<(), vk::Result> {
    let bit = Flag::COMPUTE_SHADER_INVOCATIONS;
    let mut push = vec![0u8; dispatch_invocations::SIZE as usize];
    let at = dispatch_invocations::LOCAL as usize;
    push[at..at + 4].copy_from_slice(&local.to_le_bytes());
    let Some(counter) = rec.stats.and_then(|a| a.counter(bit)) else {
        if rec.stats.is_none() && rec.stats_inherit.statistics.contains(bit) {
            rec.stats_inherit.deferred.push(Deferred {
                bit,
                meta: Meta::DispatchInvocations,
                push,
                buffers: vec![(groups, 12)],
            });
        }
        return Ok(());
    };
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
