//! Primitives generated queries (VK_EXT_primitives_generated_query). AGX counts no
//! primitives, so while such a query is active every draw is followed by a launch of the
//! `PrimitivesGenerated` meta shader, which works out from the draw's arguments (and, with
//! primitive restart, its index buffer) how many primitives the draw makes and adds that to
//! the query's counter. The count depends only on the arguments, so it is right whatever
//! rasterization, transform feedback or the fragment shader do with the primitives.
//!
//! Compute launched inside a render pass runs before the render command; the arguments it
//! reads were written before the render pass began, as Vulkan requires of indirect buffers.

use super::dispatch::meta_launch;
use super::draw::DrawKind;
use super::xfb::decomposition;
use super::Recording;
use crate::device::Device;
use crate::pipeline_graphics::GraphicsPipeline;
use ash::vk;
use compiler::meta::{primgen, Meta};
use compiler::GeometryBinary;

/// Adds the primitives of the draw `kind` with pipeline `p` to the active query's counter
/// at `counter`.
pub fn count(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    kind: DrawKind,
    counter: u64,
) -> Result<(), vk::Result> {
    count_as(dev, rec, p, None, kind, counter, false)
}

/// Adds the primitives of the draw `kind` with pipeline `p` (and its geometry draw's
/// `geometry`, whose input topology the draw has), or with `vertices` its vertices (those
/// that are not restart indices), to the u64 counter at `counter`.
pub fn count_as(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    geometry: Option<&GeometryBinary>,
    kind: DrawKind,
    counter: u64,
    vertices: bool,
) -> Result<(), vk::Result> {
    let (push, [args, index]) = prepare(dev, rec, p, geometry, kind, vertices)?;
    launch(dev, rec, &push, &[args, index, (counter, 8)])
}

/// Launches the counting shader with `push` and its three bindings.
pub fn launch(
    dev: &Device,
    rec: &mut Recording,
    push: &[u8],
    buffers: &[Range],
) -> Result<(), vk::Result> {
    // Draws recorded earlier add to the same counter.
    rec.barrier_pending = true;
    meta_launch(dev, rec, Meta::PrimitivesGenerated, push, 1, buffers)?;
    rec.barrier_pending = true;
    Ok(())
}

/// A GPU address range: a meta shader's binding.
type Range = (u64, u64);

/// The push constants and the first two bindings (arguments, index buffer) of the counting
/// shader for draw `kind`; the counter is the third.
pub fn prepare(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    geometry: Option<&GeometryBinary>,
    kind: DrawKind,
    vertices: bool,
) -> Result<(Vec<u8>, [Range; 2]), vk::Result> {
    let fx = super::dynamic_state::resolve(&p.fixed, rec.gfx());
    // A geometry shader's input topology may have adjacency, which the pipeline's
    // primitive class does not tell; vertices are counted whatever primitives they make.
    let shape = match geometry {
        Some(g) => super::geometry::decomposition(fx.primitive, g.input),
        None => decomposition(fx.primitive),
    }
    .or(vertices.then_some((1, 1, 1, 0, 1)));
    let Some((n, step, _, skip, divide)) = shape else {
        eprintln!(
            "agx4: primitives generated queries of {:?} primitives are not implemented",
            fx.primitive
        );
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    };
    let words = |w: &[u32]| w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    let (args, indexed) = match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            first_instance,
        } => {
            let w = words(&[count, instances, first_vertex, first_instance]);
            ((rec.upload.push(dev, &w, 4)?, 16), false)
        }
        DrawKind::Indexed {
            count,
            instances,
            first_index,
            vertex_offset,
            first_instance,
        } => {
            let w = words(&[
                count,
                instances,
                first_index,
                vertex_offset as u32,
                first_instance,
            ]);
            ((rec.upload.push(dev, &w, 4)?, 20), true)
        }
        DrawKind::Indirect { args, indexed, .. } => {
            ((args, if indexed { 20 } else { 16 }), indexed)
        }
    };
    // Restart walks the index buffer from a word-aligned start; a binding is never empty.
    let (index, restart, index_bytes, index_offset) = match rec.gfx().index {
        Some((addr, bytes, size)) if indexed && fx.restart => {
            let (width, all_ones) = (size.bytes(), size.restart_index());
            let offset = addr & 3;
            let span = (bytes + offset).next_multiple_of(4).max(4);
            ((addr - offset, span), all_ones, width, offset as u32)
        }
        _ => ((args.0, 4), 0, 0, 0),
    };
    let mut push = vec![0u8; primgen::SIZE as usize];
    for (at, v) in [
        (primgen::SKIP, skip),
        (primgen::DIVIDE, divide),
        (primgen::INDEXED, u32::from(indexed)),
        (primgen::LIST, u32::from(step == n)),
        (primgen::RESTART, restart),
        (primgen::INDEX_BYTES, index_bytes),
        (primgen::INDEX_OFFSET, index_offset),
        (primgen::VERTICES, u32::from(vertices)),
    ] {
        push[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
    }
    Ok((push, [args, index]))
}

/// Begins primitives generated query `query` of `pool`: draws add to its counter.
pub fn begin_query(
    rec: &mut Recording,
    pool: &crate::query_pool::QueryPool,
    query: u32,
) -> Result<(), vk::Result> {
    if rec.primgen.is_some() {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    rec.primgen = Some(pool.va() + u64::from(query) * 8);
    Ok(())
}

pub fn end_query(rec: &mut Recording) -> Result<(), vk::Result> {
    rec.primgen
        .take()
        .map(|_| ())
        .ok_or(vk::Result::ERROR_UNKNOWN)
}
