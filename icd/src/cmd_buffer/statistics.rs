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
//!   volume, zero or more otherwise). With a geometry shader the input assembly counts the
//!   draw's primitives in the shader's input topology (adjacency included), and the
//!   clipper sees the primitives the geometry shader emits instead (below).
//! - fragment shader invocations: the fragment shader adds to the counter itself
//!   (compiler `passes::count_fragment_invocations`); the draw's root table holds the
//!   counter's address.
//! - compute shader invocations: the `DispatchInvocations` meta shader after each dispatch,
//!   from the workgroup counts (read on the GPU for indirect dispatches).
//! - geometry shader invocations and primitives, and the clipping statistics of a pipeline
//!   with a geometry shader: the geometry draw's program counts them (docs/geometry.md,
//!   compiler `passes::lower_geometry_outputs`). Each of its invocations that has an input
//!   primitive (input primitives x GS invocations x instances, under primitive restart only
//!   those that exist, for indirect draws whatever the GPU reads) adds 1 to the
//!   invocations counter and the primitives it emitted to the other three; the geometry
//!   draw's root table holds the counters' addresses (`abi::GEOMETRY_STAT_*`). A pipeline
//!   without a geometry shader leaves the geometry counters at the zero of their reset, as
//!   the spec asks of stages a pipeline does not have; so does tessellation, which agx4
//!   does not have.
//! - the vertex shader of a pipeline with a geometry shader runs in the geometry draw once
//!   per corner of each input primitive; the statistic counts the draw's vertices as for
//!   any other pipeline, the invocations a GPU that reuses shared vertices would make.
//!
//! Availability is written as for primitives generated queries (query.rs), after the render
//! command that ran the query's last draws.
//!
//! Inherited queries: a secondary begun with `pipelineStatistics` in its inheritance info
//! does not know the counters it will count into. It keeps its draws' and dispatches'
//! counting launches without the counter (`Deferred`), and the primary that executes it
//! runs them with its active query's counters. Its shaders that count (fragment shaders, the
//! geometry draw's program) count into u64s of the secondary's own memory, one per
//! statistic (`Inherited::cells`), which the primary moves into its counters (or discards)
//! with the `DrainCounter` meta shader once the render commands that ran them are done,
//! once per subpass however often the secondary ran in it. The cell is the
//! secondary's, so two primaries running one SIMULTANEOUS_USE secondary at the same time on
//! the GPU would share it; agx4 has one queue, which runs submissions in order.

use super::dispatch::meta_launch;
use super::draw::DrawKind;
use super::Recording;
use crate::device::Device;
use crate::pipeline_graphics::{GraphicsPipeline, VertexProgram};
use crate::query_pool::QueryPool;
use ash::vk;
use compiler::meta::{dispatch_invocations, Meta};
use compiler::GeometryBinary;

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

/// The statistics of a draw that come from its arguments. With a geometry draw (`geometry`)
/// the clipping statistics come from what it emits instead (`shader_counter`).
fn from_draw(geometry: Option<&GeometryBinary>) -> impl Iterator<Item = (Flag, bool)> {
    let geometry = geometry.is_some();
    FROM_DRAW.into_iter().filter(move |&(bit, _)| {
        !(geometry && matches!(bit, Flag::CLIPPING_INVOCATIONS | Flag::CLIPPING_PRIMITIVES))
    })
}

/// Statistics the shaders count themselves, into a counter whose address their root table
/// holds: fragment shader invocations (every pipeline with a fragment stage), the rest
/// (pipelines with a geometry shader: the geometry draw's program).
const SHADER_COUNTED: [Flag; 5] = [
    Flag::FRAGMENT_SHADER_INVOCATIONS,
    Flag::GEOMETRY_SHADER_INVOCATIONS,
    Flag::GEOMETRY_SHADER_PRIMITIVES,
    Flag::CLIPPING_INVOCATIONS,
    Flag::CLIPPING_PRIMITIVES,
];

/// Adds the statistics of the draw `kind` with pipeline `p` to the active query's counters.
pub fn count_draw(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    geometry: Option<&GeometryBinary>,
    kind: DrawKind,
    active: Active,
) -> Result<(), vk::Result> {
    for (bit, vertices) in from_draw(geometry) {
        if let Some(counter) = active.counter(bit) {
            super::primgen::count_as(dev, rec, p, geometry, kind, counter, vertices)?;
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
    /// The u64 its shaders count each statistic of `SHADER_COUNTED` into, once a draw
    /// needed it.
    pub cells: Vec<(Flag, u64)>,
}

/// Counts the statistics of draw `kind` with pipeline `p`: into the active query, or for an
/// inheriting secondary, kept for its primary.
pub fn before_draw(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
) -> Result<(), vk::Result> {
    let geometry = vertex.geometry.as_ref().map(|g| &g.binary);
    if let Some(active) = rec.stats {
        return count_draw(dev, rec, p, geometry, kind, active);
    }
    let inherited = rec.stats_inherit.statistics;
    if inherited.is_empty() {
        return Ok(());
    }
    for (bit, vertices) in from_draw(geometry) {
        if inherited.contains(bit) {
            let (push, [args, index]) =
                super::primgen::prepare(dev, rec, p, geometry, kind, vertices)?;
            rec.stats_inherit.deferred.push(Deferred {
                bit,
                meta: Meta::PrimitivesGenerated,
                push,
                buffers: vec![args, index],
            });
        }
    }
    // The root table of the draw reads it without allocating (`fragment_counter`).
    shader_counter(dev, rec, Flag::FRAGMENT_SHADER_INVOCATIONS)?;
    Ok(())
}

/// The fragment shader invocations counter draws recorded now add to (0: none).
pub fn fragment_counter(rec: &Recording) -> u64 {
    let bit = Flag::FRAGMENT_SHADER_INVOCATIONS;
    match rec.stats {
        Some(a) => a.counter(bit).unwrap_or(0),
        None => cell(rec, bit).unwrap_or(0),
    }
}

fn cell(rec: &Recording, bit: Flag) -> Option<u64> {
    rec.stats_inherit
        .cells
        .iter()
        .find(|&&(b, _)| b == bit)
        .map(|&(_, c)| c)
}

/// The counter of statistic `bit` that shaders of draws recorded now add to: the active
/// query's, or for a secondary that inherits the statistic, its cell; 0 when nothing counts
/// it, and for statistics outside `SHADER_COUNTED`, which launches count (a shader adding to
/// them too would count twice).
pub fn shader_counter(dev: &Device, rec: &mut Recording, bit: Flag) -> Result<u64, vk::Result> {
    if !SHADER_COUNTED.contains(&bit) {
        return Ok(0);
    }
    if let Some(a) = rec.stats {
        return Ok(a.counter(bit).unwrap_or(0));
    }
    if !rec.stats_inherit.statistics.contains(bit) {
        return Ok(0);
    }
    if let Some(c) = cell(rec, bit) {
        return Ok(c);
    }
    let c = rec.upload.push(dev, &[0u8; 8], 8)?;
    rec.stats_inherit.cells.push((bit, c));
    Ok(c)
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
    for &(bit, cell) in &s.stats_inherit.cells {
        if rec.stats_drains.iter().any(|&(c, _)| c == cell) {
            continue;
        }
        let counter = match rec.stats.and_then(|a| a.counter(bit)) {
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
    rec.state_changed();
    Ok(())
}

pub fn end_query(rec: &mut Recording) -> Result<(), vk::Result> {
    rec.state_changed();
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
