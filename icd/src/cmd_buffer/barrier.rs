//! Dependencies, events and timestamp queries.
//!
//! The queue runs commands in order, so every dependency becomes a CDM barrier before the
//! next launch. Events live in GPU memory: the GPU sets and resets them with a one-word fill.
//! A timestamp ends the current hardware command; the firmware writes the command's end time
//! into the query pool's timestamp buffer.

use super::dispatch::meta_launch;
use super::record;
use super::transfer::fill_words;
use super::LiveCommandBuffer;
use crate::buffer::Buffer;
use crate::event::{Event, EVENT_RESET, EVENT_SET};
use crate::handle::Object;
use crate::query_pool::{QueryKind, QueryPool};
use ash::vk;
use compiler::meta::{query, Meta};
use kmd_iface::uapi::drm_asahi_timestamp;
use std::sync::atomic::Ordering;

#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn cmd_pipeline_barrier(
    cb: vk::CommandBuffer,
    _src: vk::PipelineStageFlags,
    _dst: vk::PipelineStageFlags,
    flags: vk::DependencyFlags,
    _memory_count: u32,
    _p_memory: *const vk::MemoryBarrier<'_>,
    _buffer_count: u32,
    _p_buffer: *const vk::BufferMemoryBarrier<'_>,
    _image_count: u32,
    _p_image: *const vk::ImageMemoryBarrier<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdPipelineBarrier", cb, |dev, rec| {
        rec.barrier_pending = true;
        super::render::barrier(
            dev,
            rec,
            flags.contains(vk::DependencyFlags::FEEDBACK_LOOP_EXT),
        )
    })
}

/// Records a write of `value` to `event`'s word, for `name`.
///
/// # Safety
/// `cb` must be a live command buffer made by this driver, and `event` `VK_NULL_HANDLE` or a
/// live event made by this driver, neither destroyed during the call. The commandBuffer and
/// event of vkCmdSetEvent, vkCmdResetEvent, vkCmdSetEvent2 or vkCmdResetEvent2 are such
/// handles (Vulkan valid usage).
unsafe fn set_event(cb: vk::CommandBuffer, name: &'static str, event: vk::Event, value: u32) {
    // SAFETY: guaranteed by the caller.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record(name, cb, |dev, rec| {
        // SAFETY: guaranteed by the caller: `event` is null or a live event made by this driver
        // that outlives the call.
        let event = unsafe { Event::from_handle(event) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // The event changes after the work before it.
        rec.barrier_pending = true;
        fill_words(dev, rec, event.va(), 1, value)
    })
}

pub unsafe extern "system" fn cmd_set_event(
    cb: vk::CommandBuffer,
    event: vk::Event,
    _stages: vk::PipelineStageFlags,
) {
    // SAFETY: `cb` and `event` are vkCmdSetEvent's commandBuffer and event, which valid usage
    // requires to be a live command buffer and a live event made by this driver.
    unsafe { set_event(cb, "vkCmdSetEvent", event, EVENT_SET) }
}

pub unsafe extern "system" fn cmd_reset_event(
    cb: vk::CommandBuffer,
    event: vk::Event,
    _stages: vk::PipelineStageFlags,
) {
    // SAFETY: `cb` and `event` are vkCmdResetEvent's commandBuffer and event, which valid usage
    // requires to be a live command buffer and a live event made by this driver.
    unsafe { set_event(cb, "vkCmdResetEvent", event, EVENT_RESET) }
}

/// vkCmdWaitEvents: inside a render pass the events were set earlier in this queue (valid
/// usage forbids waiting there for a host vkSetEvent), so the in-order queue's barrier is the
/// wait. Outside one, the command buffer ends its hardware command there and the queue
/// waits for the events (`HwCommand::WaitEvents`), which also covers events the host sets
/// after submission.
///
/// # Safety
/// `cb` must be a live command buffer made by this driver, and each of `events`
/// `VK_NULL_HANDLE` or a live event made by this driver, none destroyed during the call. The
/// commandBuffer and pEvents of vkCmdWaitEvents or vkCmdWaitEvents2 are such handles (Vulkan
/// valid usage).
unsafe fn wait_events(cb: vk::CommandBuffer, name: &'static str, events: &[vk::Event]) {
    // SAFETY: guaranteed by the caller.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record(name, cb, |_, rec| {
        rec.barrier_pending = true;
        if rec.render.is_some() {
            return Ok(());
        }
        let bos = events
            .iter()
            .map(|&e| {
                // SAFETY: guaranteed by the caller: each of `events` is null or a live event made
                // by this driver that outlives the call.
                unsafe { Event::from_handle(e) }
                    .map(|e| e.bo.clone())
                    .ok_or(vk::Result::ERROR_UNKNOWN)
            })
            .collect::<Result<Vec<_>, _>>()?;
        rec.close_segment(None)?;
        rec.segments.push(super::HwCommand::WaitEvents(bos));
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn cmd_wait_events(
    cb: vk::CommandBuffer,
    event_count: u32,
    p_events: *const vk::Event,
    _src: vk::PipelineStageFlags,
    _dst: vk::PipelineStageFlags,
    _memory_count: u32,
    _p_memory: *const vk::MemoryBarrier<'_>,
    _buffer_count: u32,
    _p_buffer: *const vk::BufferMemoryBarrier<'_>,
    _image_count: u32,
    _p_image: *const vk::ImageMemoryBarrier<'_>,
) {
    // SAFETY: valid usage: `cb` is vkCmdWaitEvents's live command buffer, and its pEvents holds
    // eventCount handles, each a live event made by this driver.
    unsafe {
        wait_events(
            cb,
            "vkCmdWaitEvents",
            crate::handle::slice(p_events, event_count),
        )
    }
}

pub unsafe extern "system" fn cmd_write_timestamp(
    cb: vk::CommandBuffer,
    _stage: vk::PipelineStageFlags,
    pool: vk::QueryPool,
    query: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdWriteTimestamp", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: `queryPool` is a live query pool made by this driver.
        let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        if query >= pool.count || pool.kind != QueryKind::Timestamp {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let stamp = drm_asahi_timestamp {
            handle: pool.object,
            offset: query * 8,
        };
        // Inside a render pass the stamp is written when the render command ends; in a
        // multiview subpass it fills one query per view.
        if let Some(rs) = rec.render.as_mut() {
            let views = rs.query_count();
            if query.checked_add(views).is_none_or(|end| end > pool.count) {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            rs.timestamps
                .extend((0..views).map(|v| drm_asahi_timestamp {
                    handle: pool.object,
                    offset: (query + v) * 8,
                }));
            return Ok(());
        }
        // The command needs a stream even when nothing was recorded before the timestamp.
        rec.open_segment(dev)?;
        rec.close_segment(Some(stamp))
    })
}

pub unsafe extern "system" fn cmd_reset_query_pool(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdResetQueryPool", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: `queryPool` is a live query pool made by this driver.
        let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        if first.checked_add(count).is_none_or(|end| end > pool.count) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        if pool.kind != QueryKind::Timestamp {
            return super::query::reset(dev, rec, pool, first, count);
        }
        // A zero timestamp means "not available".
        rec.barrier_pending = true;
        fill_words(
            dev,
            rec,
            pool.va() + u64::from(first) * 8,
            u64::from(count) * 2,
            0,
        )?;
        rec.barrier_pending = true;
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn cmd_copy_query_pool_results(
    cb: vk::CommandBuffer,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    dst: vk::Buffer,
    dst_offset: vk::DeviceSize,
    stride: vk::DeviceSize,
    flags: vk::QueryResultFlags,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdCopyQueryPoolResults", cb, |dev, rec| {
        // SAFETY: Vulkan valid usage: vkCmdCopyQueryPoolResults's `queryPool` is a live query
        // pool made by this driver.
        let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: Vulkan valid usage: vkCmdCopyQueryPoolResults's `dstBuffer` is a live buffer
        // made by this driver.
        let dst = unsafe { Buffer::from_handle(dst) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        if first.checked_add(count).is_none_or(|end| end > pool.count) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        if pool.kind != QueryKind::Timestamp {
            return super::query::copy(
                dev, rec, pool, first, count, dst, dst_offset, stride, flags,
            );
        }
        let kind = Meta::QueryCopy {
            wide: flags.contains(vk::QueryResultFlags::TYPE_64),
            availability: flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY),
            partial: flags.contains(vk::QueryResultFlags::PARTIAL),
        };
        let stride32 = u32::try_from(stride).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
        let mut push = [0u8; query::SIZE as usize];
        let mut put =
            |at: u32, b: &[u8]| push[at as usize..at as usize + b.len()].copy_from_slice(b);
        put(query::STRIDE, &stride32.to_le_bytes());
        put(query::COUNT, &count.to_le_bytes());
        // The destination range: `count` strides, the last one only as long as its results.
        let per_query = if kind_is_wide(flags) { 8 } else { 4 }
            * if flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY) {
                2
            } else {
                1
            };
        let dst_bytes = if count == 0 {
            0
        } else {
            u64::from(count - 1) * stride + per_query
        };
        let buffers = [
            (pool.va() + u64::from(first) * 8, u64::from(count) * 8),
            (dst.va.load(Ordering::Acquire) + dst_offset, dst_bytes),
        ];
        // Timestamps are written when their command ends, so earlier commands' values are
        // in memory once this one starts (WAIT is implied); the barrier orders the copy
        // after launches of the current command.
        rec.barrier_pending = true;
        meta_launch(dev, rec, kind, &push, count, &buffers)
    })
}

fn kind_is_wide(flags: vk::QueryResultFlags) -> bool {
    flags.contains(vk::QueryResultFlags::TYPE_64)
}

// VK_KHR_synchronization2: the same operations; stage and access masks do not matter to an
// in-order queue that barriers every dependency.

pub unsafe extern "system" fn cmd_pipeline_barrier2(
    cb: vk::CommandBuffer,
    p_dependency: *const vk::DependencyInfo<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdPipelineBarrier2", cb, |dev, rec| {
        rec.barrier_pending = true;
        // SAFETY: valid usage: pDependencyInfo is valid.
        let flags = unsafe { (*p_dependency).dependency_flags };
        super::render::barrier(
            dev,
            rec,
            flags.contains(vk::DependencyFlags::FEEDBACK_LOOP_EXT),
        )
    })
}

pub unsafe extern "system" fn cmd_set_event2(
    cb: vk::CommandBuffer,
    event: vk::Event,
    _p_dependency: *const vk::DependencyInfo<'_>,
) {
    // SAFETY: `cb` and `event` are vkCmdSetEvent2's commandBuffer and event, which valid usage
    // requires to be a live command buffer and a live event made by this driver.
    unsafe { set_event(cb, "vkCmdSetEvent2", event, EVENT_SET) }
}

pub unsafe extern "system" fn cmd_reset_event2(
    cb: vk::CommandBuffer,
    event: vk::Event,
    _stages: vk::PipelineStageFlags2,
) {
    // SAFETY: `cb` and `event` are vkCmdResetEvent2's commandBuffer and event, which valid usage
    // requires to be a live command buffer and a live event made by this driver.
    unsafe { set_event(cb, "vkCmdResetEvent2", event, EVENT_RESET) }
}

pub unsafe extern "system" fn cmd_wait_events2(
    cb: vk::CommandBuffer,
    count: u32,
    p_events: *const vk::Event,
    _p_dependencies: *const vk::DependencyInfo<'_>,
) {
    // SAFETY: valid usage: `cb` is vkCmdWaitEvents2's live command buffer, and its pEvents holds
    // eventCount handles, each a live event made by this driver.
    unsafe {
        wait_events(
            cb,
            "vkCmdWaitEvents2",
            crate::handle::slice(p_events, count),
        )
    }
}

pub unsafe extern "system" fn cmd_write_timestamp2(
    cb: vk::CommandBuffer,
    _stage: vk::PipelineStageFlags2,
    pool: vk::QueryPool,
    query: u32,
) {
    // SAFETY: the same contract as vkCmdWriteTimestamp.
    unsafe { cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, query) }
}
