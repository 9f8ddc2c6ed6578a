//! Occlusion queries: vkCmdBeginQuery, vkCmdEndQuery, and the occlusion side of
//! vkCmdResetQueryPool and vkCmdCopyQueryPoolResults. Begin and End hand transform feedback
//! queries to xfb.rs, primitives generated queries to primgen.rs and pipeline statistics
//! queries to statistics.rs; their counters are laid out and copied as occlusion counters
//! are.
//!
//! While a query is active every draw carries the PPP occlusion query word with the query's
//! index and a Fragment Control visibility mode (counting for precise queries, boolean
//! otherwise); the render command's `isp_oclqry_base` is the pool's counter array, so the GPU
//! adds passing samples straight into the pool. A render command therefore counts into one
//! pool only: draws of one render command that use two pools are refused. Availability is
//! written by a fill after the render command that ran the query's last draws, so it is set
//! only once the counts are final. Pool layout: query_pool.rs.

use super::dispatch::meta_launch;
use super::transfer::fill_words;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::emit::Visibility;
use crate::handle::Object;
use crate::query_pool::{QueryKind, QueryPool};
use ash::vk;
use compiler::meta::{query, Meta};
use std::sync::atomic::Ordering;

/// An active occlusion query: where its counter lives and how it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Active {
    results: u64,
    index: u32,
    precise: bool,
}

/// Per command buffer occlusion state (part of the graphics state).
#[derive(Clone, Debug, Default)]
pub struct OcclusionState {
    active: Option<Active>,
    /// The counter array the open render command's draws count into.
    render_base: Option<u64>,
    /// Availability words of queries ended inside the open render command.
    pending: Vec<u64>,
}

impl OcclusionState {
    /// The query draws recorded now count into.
    pub fn active(&self) -> Option<Active> {
        self.active
    }

    /// Availability words of queries ended inside the open render command.
    pub fn pending(&self) -> &[u64] {
        &self.pending
    }

    /// Adds availability words to write when the open render command ends.
    pub fn add_pending(&mut self, words: &[u64]) {
        self.pending.extend_from_slice(words);
    }
}

/// How a draw counts into `query`; binds the open render command to the query's pool.
pub fn draw_visibility(
    s: &mut OcclusionState,
    query: Option<Active>,
) -> Result<Visibility, vk::Result> {
    let Some(a) = query else {
        return Ok(Visibility::None);
    };
    if s.render_base.is_some_and(|b| b != a.results) {
        eprintln!("agx4: draws of one render command counting into two occlusion query pools are not supported");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    s.render_base = Some(a.results);
    Ok(match a.precise {
        true => Visibility::Counting(a.index),
        false => Visibility::Boolean(a.index),
    })
}

/// The `isp_oclqry_base` of the render command being closed.
pub fn render_results(rec: &mut Recording) -> u64 {
    rec.gfx_mut().occlusion.render_base.take().unwrap_or(0)
}

/// After a render command: marks the queries it ended available.
pub fn after_render(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    for word in std::mem::take(&mut rec.gfx_mut().occlusion.pending) {
        mark_available(dev, rec, word)?;
    }
    Ok(())
}

fn mark_available(dev: &Device, rec: &mut Recording, word: u64) -> Result<(), vk::Result> {
    rec.barrier_pending = true;
    fill_words(dev, rec, word, 1, 1)?;
    rec.barrier_pending = true;
    Ok(())
}

/// The upper half of query `q`'s availability entry.
fn flag_word(pool: &QueryPool, q: u32) -> u64 {
    pool.availability_va() + u64::from(q) * 8 + 4
}

/// `pool` if it is a query pool of `kind` holding `query`.
///
/// # Safety
/// `pool` must be `VK_NULL_HANDLE` or a live query pool made by this driver, and the pool must
/// not be destroyed while the returned reference is in use. The `queryPool` of
/// vkCmdBeginQuery or vkCmdEndQuery is such a handle (Vulkan valid usage).
unsafe fn pool_of<'a>(
    pool: vk::QueryPool,
    query: u32,
    kind: QueryKind,
) -> Result<Option<&'a QueryPool>, vk::Result> {
    // SAFETY: guaranteed by the caller: `pool` is null or a live query pool made by this driver
    // that outlives the returned reference.
    let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    if pool.kind != kind {
        return Ok(None);
    }
    if query >= pool.count {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    Ok(Some(pool))
}

/// vkCmdBeginQueryIndexedEXT: stream 0 is the only one (maxTransformFeedbackStreams 1).
pub unsafe extern "system" fn cmd_begin_query_indexed(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    query: u32,
    flags: vk::QueryControlFlags,
    index: u32,
) {
    if index != 0 {
        // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
        // command buffer made by this driver.
        let cb = unsafe { LiveCommandBuffer::new(cb) };
        record("vkCmdBeginQueryIndexedEXT", cb, |_, _| {
            Err(vk::Result::ERROR_FEATURE_NOT_PRESENT)
        });
        return;
    }
    // SAFETY: the same arguments, valid by the caller's valid usage.
    unsafe { cmd_begin_query(cb, pool, query, flags) }
}

/// vkCmdEndQueryIndexedEXT: stream 0 only.
pub unsafe extern "system" fn cmd_end_query_indexed(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    query: u32,
    index: u32,
) {
    if index != 0 {
        // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
        // command buffer made by this driver.
        let cb = unsafe { LiveCommandBuffer::new(cb) };
        record("vkCmdEndQueryIndexedEXT", cb, |_, _| {
            Err(vk::Result::ERROR_FEATURE_NOT_PRESENT)
        });
        return;
    }
    // SAFETY: the same arguments, valid by the caller's valid usage.
    unsafe { cmd_end_query(cb, pool, query) }
}

/// `pool`, which must be an occlusion query pool holding `query`.
///
/// # Safety
/// `pool` must be `VK_NULL_HANDLE` or a live query pool made by this driver, and the pool must
/// not be destroyed while the returned reference is in use. The `queryPool` of
/// vkCmdBeginQuery or vkCmdEndQuery is such a handle (Vulkan valid usage).
unsafe fn occlusion_pool<'a>(pool: vk::QueryPool, query: u32) -> Result<&'a QueryPool, vk::Result> {
    // SAFETY: guaranteed by the caller: `pool` is null or a live query pool made by this driver
    // that outlives the returned reference.
    let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    if pool.kind != QueryKind::Occlusion {
        eprintln!("agx4: only occlusion queries are begun and ended");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    if query >= pool.count {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    Ok(pool)
}

pub unsafe extern "system" fn cmd_begin_query(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    query: u32,
    flags: vk::QueryControlFlags,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBeginQuery", cb, |_, rec| {
        // SAFETY: `pool` is vkCmdBeginQuery's queryPool parameter, which valid usage requires
        // to be a live query pool made by this driver.
        if let Some(p) = unsafe { pool_of(pool, query, QueryKind::TransformFeedback) }? {
            return super::xfb::begin_query(rec, p, query);
        }
        // SAFETY: `pool` is vkCmdBeginQuery's queryPool parameter, which valid usage requires
        // to be a live query pool made by this driver.
        if let Some(p) = unsafe { pool_of(pool, query, QueryKind::PrimitivesGenerated) }? {
            return super::primgen::begin_query(rec, p, query);
        }
        // SAFETY: `pool` is vkCmdBeginQuery's queryPool parameter, which valid usage requires
        // to be a live query pool made by this driver.
        if let Some(p) = unsafe { pool_of(pool, query, QueryKind::PipelineStatistics) }? {
            return super::statistics::begin_query(rec, p, query);
        }
        // SAFETY: `pool` is vkCmdBeginQuery's queryPool parameter, which valid usage requires to
        // be a live query pool made by this driver.
        let pool = unsafe { occlusion_pool(pool, query) }?;
        if rec.gfx().occlusion.active.is_some() {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        rec.gfx_mut().occlusion.active = Some(Active {
            results: pool.va(),
            index: query,
            precise: flags.contains(vk::QueryControlFlags::PRECISE),
        });
        rec.state_changed();
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_end_query(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    query: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndQuery", cb, |dev, rec| {
        // SAFETY: `pool` is vkCmdEndQuery's queryPool parameter, which valid usage requires to
        // be a live query pool made by this driver.
        if let Some(p) = unsafe { pool_of(pool, query, QueryKind::PipelineStatistics) }? {
            super::statistics::end_query(rec)?;
            let Some(rs) = rec.render.as_ref() else {
                return mark_available(dev, rec, flag_word(p, query));
            };
            // As for occlusion queries: in a multiview subpass the query uses one index per
            // view; the first holds the counts of every view, the others stay zero.
            let views = rs.query_count();
            if query.checked_add(views).is_none_or(|end| end > p.count) {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            for v in 0..views {
                rec.gfx_mut()
                    .occlusion
                    .pending
                    .push(flag_word(p, query + v));
            }
            return Ok(());
        }
        // SAFETY: `pool` is vkCmdEndQuery's queryPool parameter, which valid usage requires to
        // be a live query pool made by this driver.
        let xfb = unsafe { pool_of(pool, query, QueryKind::TransformFeedback) }?;
        // SAFETY: `pool`, looked up again for the primitives-generated kind, is vkCmdEndQuery's
        // queryPool parameter, which valid usage requires to be a live query pool made by this
        // driver.
        let primgen = unsafe { pool_of(pool, query, QueryKind::PrimitivesGenerated) }?;
        if let Some(p) = xfb.or(primgen) {
            if xfb.is_some() {
                super::xfb::end_query(rec)?;
            } else {
                super::primgen::end_query(rec)?;
            }
            let word = flag_word(p, query);
            // The capture draws' counts are final once the render command ends.
            if rec.render.is_some() {
                rec.gfx_mut().occlusion.pending.push(word);
                return Ok(());
            }
            return mark_available(dev, rec, word);
        }
        // SAFETY: `pool` is vkCmdEndQuery's queryPool parameter, which valid usage requires to
        // be a live query pool made by this driver.
        let pool = unsafe { occlusion_pool(pool, query) }?;
        if rec.gfx_mut().occlusion.active.take().is_none() {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        rec.state_changed();
        let word = flag_word(pool, query);
        // Inside a render pass the counts are final when the render command ends; outside,
        // every render command that counted has been recorded already.
        if let Some(rs) = rec.render.as_ref() {
            // In a multiview subpass the query uses one index per view: the first holds the
            // count of every view, and the others (zero since their reset) become available
            // too.
            let views = rs.query_count();
            if query.checked_add(views).is_none_or(|end| end > pool.count) {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            for v in 0..views {
                rec.gfx_mut()
                    .occlusion
                    .pending
                    .push(flag_word(pool, query + v));
            }
            Ok(())
        } else {
            mark_available(dev, rec, word)
        }
    })
}

/// vkCmdResetQueryPool on an occlusion pool: zero counters and availability flags.
pub fn reset(
    dev: &Device,
    rec: &mut Recording,
    pool: &QueryPool,
    first: u32,
    count: u32,
) -> Result<(), vk::Result> {
    rec.barrier_pending = true;
    // Every value array, then the availability entries.
    for a in 0..=pool.value_arrays() {
        fill_words(
            dev,
            rec,
            pool.va() + u64::from(a * pool.count + first) * 8,
            u64::from(count) * 2,
            0,
        )?;
    }
    rec.barrier_pending = true;
    Ok(())
}

/// vkCmdCopyQueryPoolResults on an occlusion pool.
///
/// The query-copy shader treats a zero source as unavailable, which a zero count is not, so
/// the copy is composed of up to four of its launches over the pool's views. Without PARTIAL,
/// 32-bit zeros from the "0 when available" view go into each available query's value (both
/// halves of a 64-bit value), and then the counters only need writing where nonzero; with
/// PARTIAL every counter is written. WITH_AVAILABILITY copies the "1 or 0" view into the
/// availability slot. A counter is nonzero only after some draw passed, and copies come after the query ended,
/// so a nonzero counter belongs to an available query.
#[allow(clippy::too_many_arguments)]
pub fn copy(
    dev: &Device,
    rec: &mut Recording,
    pool: &QueryPool,
    first: u32,
    count: u32,
    dst: &Buffer,
    dst_offset: u64,
    stride: u64,
    flags: vk::QueryResultFlags,
) -> Result<(), vk::Result> {
    if count == 0 {
        return Ok(());
    }
    let wide = flags.contains(vk::QueryResultFlags::TYPE_64);
    let partial = flags.contains(vk::QueryResultFlags::PARTIAL);
    let value_bytes: u64 = if wide { 8 } else { 4 };
    let stride32 = u32::try_from(stride).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let mut push = [0u8; query::SIZE as usize];
    push[query::STRIDE as usize..][..4].copy_from_slice(&stride32.to_le_bytes());
    push[query::COUNT as usize..][..4].copy_from_slice(&count.to_le_bytes());
    let dst = dst.va.load(Ordering::Acquire) + dst_offset;
    let span = |at: u64, bytes: u64| (dst + at, u64::from(count - 1) * stride + bytes);
    let src_bytes = u64::from(count) * 8;
    let values = pool.value_arrays();
    let zero_when_available = (pool.availability_va() + u64::from(first) * 8, src_bytes);
    let one_or_zero = (pool.availability_va() + u64::from(first) * 8 + 4, src_bytes);
    let launch = |rec: &mut Recording, kind: Meta, src: (u64, u64), to: (u64, u64)| {
        rec.barrier_pending = true;
        meta_launch(dev, rec, kind, &push, count, &[src, to])
    };
    let narrow_if_available = Meta::QueryCopy {
        wide: false,
        availability: false,
        partial: false,
    };
    for a in 0..values {
        let at = u64::from(a) * value_bytes;
        let counters = (pool.va() + u64::from(a * pool.count + first) * 8, src_bytes);
        if !partial {
            launch(rec, narrow_if_available, zero_when_available, span(at, 4))?;
            if wide {
                launch(
                    rec,
                    narrow_if_available,
                    zero_when_available,
                    span(at + 4, 4),
                )?;
            }
        }
        launch(
            rec,
            Meta::QueryCopy {
                wide,
                availability: false,
                partial,
            },
            counters,
            span(at, value_bytes),
        )?;
    }
    let value_bytes = value_bytes * u64::from(values);
    if flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY) {
        launch(
            rec,
            Meta::QueryCopy {
                wide,
                availability: false,
                partial: true,
            },
            one_or_zero,
            span(value_bytes, value_bytes / u64::from(values)),
        )?;
    }
    rec.barrier_pending = true;
    Ok(())
}
