//! VkQueryPool: timestamps, occlusion, transform feedback, primitives generated and pipeline
//! statistics queries, all in GPU memory. Primitives generated pools are laid out as
//! occlusion pools are; transform feedback and pipeline statistics pools likewise, with one
//! value array per result value.
//!
//! Timestamp pools are a buffer the firmware writes command timestamps into, bound with
//! GEM_BIND_OBJECT and mapped in the VM so GPU resets and copies reach it. Each query is a
//! u64; 0 means "not available" (resets write 0; the clock is never 0).
//!
//! Occlusion pools hold `count` u64 sample counters (the render command's occlusion result
//! array) followed by `count + 1` u64 availability words whose upper halves are the flags
//! and whose lower halves stay 0. Seen from the start of that array an entry reads as
//! "nonzero exactly when available, value 0"; seen from 4 bytes in, it reads as the u64
//! 1 or 0. cmd_buffer::query uses both views to copy results with the query-copy shader.

use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use ash::vk;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::sync::Arc;
use std::time::Duration;

/// The occlusion query word holds a 15-bit index.
pub const MAX_OCCLUSION_QUERIES: u32 = 1 << 15;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryKind {
    Timestamp,
    Occlusion,
    /// VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT: primitives written, primitives needed.
    TransformFeedback,
    /// VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT: one counter, laid out like occlusion's.
    PrimitivesGenerated,
    /// VK_QUERY_TYPE_PIPELINE_STATISTICS: one counter array per statistic the pool counts,
    /// in the order of their bits (the order results are written in), then availability as
    /// for occlusion (cmd_buffer/statistics.rs).
    PipelineStatistics,
}

pub struct QueryPool {
    kmd: Arc<dyn Kmd>,
    bo: Bo,
    /// The GEM_BIND_OBJECT handle timestamps name (unused by occlusion pools).
    pub object: u32,
    pub count: u32,
    pub kind: QueryKind,
    /// The statistics a pipeline statistics pool counts (empty for other kinds).
    pub statistics: vk::QueryPipelineStatisticFlags,
}
object!(QueryPool, vk::QueryPool);

impl QueryPool {
    /// The results: timestamps, or occlusion sample counters.
    pub fn va(&self) -> u64 {
        self.bo.va
    }

    /// Occlusion pools: the availability words (see the module comment).
    /// Arrays of one u64 per query, one per result value: counts of occlusion queries;
    /// primitives written, then primitives needed of transform feedback queries. The
    /// availability entries follow them.
    pub fn value_arrays(&self) -> u32 {
        match self.kind {
            QueryKind::TransformFeedback => 2,
            QueryKind::PipelineStatistics => self.statistics.as_raw().count_ones(),
            _ => 1,
        }
    }

    pub fn availability_va(&self) -> u64 {
        self.bo.va + u64::from(self.value_arrays() * self.count) * 8
    }

    fn available(&self, query: u32) -> Result<bool, vk::Result> {
        match self.kind {
            QueryKind::Timestamp => Ok(self.bo.read_u64(u64::from(query) * 8)? != 0),
            QueryKind::Occlusion
            | QueryKind::TransformFeedback
            | QueryKind::PrimitivesGenerated
            | QueryKind::PipelineStatistics => Ok(self
                .bo
                .read_u64(u64::from(self.value_arrays() * self.count + query) * 8)?
                >> 32
                != 0),
        }
    }
}

impl Drop for QueryPool {
    fn drop(&mut self) {
        if self.kind != QueryKind::Timestamp {
            return;
        }
        let mut args = drm_asahi_gem_bind_object {
            op: DRM_ASAHI_BIND_OBJECT_OP_UNBIND,
            object_handle: self.object,
            ..Default::default()
        };
        let _ = self.kmd.gem_bind_object(&mut args);
    }
}

pub unsafe extern "system" fn create_query_pool(
    device: vk::Device,
    p_create_info: *const vk::QueryPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pool: *mut vk::QueryPool,
) -> vk::Result {
    guard("vkCreateQueryPool", || {
        // SAFETY: `device` is vkCreateQueryPool's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid.
        let info = unsafe { &*p_create_info };
        if info.query_type == vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT {
            let bo = Bo::new(
                dev,
                (3 * u64::from(info.query_count) + 1) * 8,
                Place::Heap,
                true,
            )?;
            let pool = QueryPool {
                kmd: dev.kmd.clone(),
                bo,
                object: 0,
                count: info.query_count,
                kind: QueryKind::TransformFeedback,
                statistics: vk::QueryPipelineStatisticFlags::empty(),
            };
            // SAFETY: valid usage: pAllocator is null or valid callbacks.
            let handle =
                unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
            // SAFETY: valid usage: pQueryPool is writable.
            unsafe { *p_pool = handle };
            return Ok(());
        }
        if info.query_type == vk::QueryType::OCCLUSION
            || info.query_type == vk::QueryType::PRIMITIVES_GENERATED_EXT
        {
            let kind = if info.query_type == vk::QueryType::OCCLUSION {
                QueryKind::Occlusion
            } else {
                QueryKind::PrimitivesGenerated
            };
            if kind == QueryKind::Occlusion && info.query_count > MAX_OCCLUSION_QUERIES {
                eprintln!(
                    "agx4: occlusion query pools hold at most {MAX_OCCLUSION_QUERIES} queries"
                );
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
            let bo = Bo::new(
                dev,
                (2 * u64::from(info.query_count) + 1) * 8,
                Place::Heap,
                true,
            )?;
            let pool = QueryPool {
                kmd: dev.kmd.clone(),
                bo,
                object: 0,
                count: info.query_count,
                kind,
                statistics: vk::QueryPipelineStatisticFlags::empty(),
            };
            // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
            let handle =
                unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
            // SAFETY: valid usage: pQueryPool is writable.
            unsafe { *p_pool = handle };
            return Ok(());
        }
        if info.query_type == vk::QueryType::PIPELINE_STATISTICS {
            let statistics = info.pipeline_statistics;
            if statistics.is_empty() {
                eprintln!("agx4: a pipeline statistics query pool counts no statistic");
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            let values = u64::from(statistics.as_raw().count_ones());
            // The values, the availability entries, and one more word for the 4-byte-offset
            // view of the last availability entry (cmd_buffer/query.rs copy).
            let bo = Bo::new(
                dev,
                ((values + 1) * u64::from(info.query_count) + 1) * 8,
                Place::Heap,
                true,
            )?;
            let pool = QueryPool {
                kmd: dev.kmd.clone(),
                bo,
                object: 0,
                count: info.query_count,
                kind: QueryKind::PipelineStatistics,
                statistics,
            };
            // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
            let handle =
                unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
            // SAFETY: valid usage: pQueryPool is writable.
            unsafe { *p_pool = handle };
            return Ok(());
        }
        if info.query_type != vk::QueryType::TIMESTAMP {
            eprintln!("agx4: {:?} queries are not supported yet", info.query_type);
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        let bo = Bo::new(
            dev,
            u64::from(info.query_count.max(1)) * 8,
            Place::Heap,
            true,
        )?;
        let mut args = drm_asahi_gem_bind_object {
            op: DRM_ASAHI_BIND_OBJECT_OP_BIND,
            flags: DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS,
            handle: bo.gem,
            offset: 0,
            range: bo.size,
            ..Default::default()
        };
        dev.kmd.gem_bind_object(&mut args).map_err(|e| {
            eprintln!("agx4: GEM_BIND_OBJECT for timestamps failed: errno {e}");
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        })?;
        let pool = QueryPool {
            kmd: dev.kmd.clone(),
            bo,
            object: args.object_handle,
            count: info.query_count,
            kind: QueryKind::Timestamp,
            statistics: vk::QueryPipelineStatisticFlags::empty(),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pQueryPool is writable.
        unsafe { *p_pool = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_query_pool(
    _device: vk::Device,
    pool: vk::QueryPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyQueryPool", (), || {
        // SAFETY: Vulkan valid usage: `queryPool` is VK_NULL_HANDLE or a live query pool made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { QueryPool::take(pool) })
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn get_query_pool_results(
    device: vk::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
    data_size: usize,
    p_data: *mut std::ffi::c_void,
    stride: vk::DeviceSize,
    flags: vk::QueryResultFlags,
) -> vk::Result {
    guard("vkGetQueryPoolResults", || {
        // SAFETY: `device` is vkGetQueryPoolResults's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: Vulkan valid usage: `queryPool` is a live query pool made by this driver.
        let pool = unsafe { QueryPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        if first.checked_add(count).is_none_or(|end| end > pool.count) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let wide = flags.contains(vk::QueryResultFlags::TYPE_64);
        let word = if wide { 8 } else { 4 };
        let with_availability = flags.contains(vk::QueryResultFlags::WITH_AVAILABILITY);
        // SAFETY: valid usage: pData holds dataSize bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(p_data as *mut u8, data_size) };
        let mut result = Ok(());
        for i in 0..count {
            let q = first + i;
            let mut available = pool.available(q)?;
            while !available && flags.contains(vk::QueryResultFlags::WAIT) {
                if dev.is_lost() {
                    return Err(vk::Result::ERROR_DEVICE_LOST);
                }
                std::thread::sleep(Duration::from_micros(100));
                available = pool.available(q)?;
            }
            let values: Vec<u64> = (0..pool.value_arrays())
                .map(|a| pool.bo.read_u64(u64::from(a * pool.count + q) * 8))
                .collect::<Result<_, _>>()?;
            let base = (u64::from(i) * stride) as usize;
            let mut put = |slot: usize, v: u64| -> Result<(), vk::Result> {
                let bytes = v.to_le_bytes();
                let dst = out
                    .get_mut(base + slot * word..base + (slot + 1) * word)
                    .ok_or(vk::Result::ERROR_UNKNOWN)?;
                dst.copy_from_slice(&bytes[..word]);
                Ok(())
            };
            if available || flags.contains(vk::QueryResultFlags::PARTIAL) {
                for (slot, v) in values.iter().enumerate() {
                    put(slot, *v)?;
                }
            }
            if with_availability {
                put(values.len(), u64::from(available))?;
            }
            if !available {
                result = Err(vk::Result::NOT_READY);
            }
        }
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        result
    })
}

/// vkResetQueryPool (VK_EXT_host_query_reset): the host writes what vkCmdResetQueryPool's
/// fills write, zeros over the queries' values (and, for occlusion pools, their availability
/// words). Valid usage keeps the GPU away from these queries meanwhile.
pub unsafe extern "system" fn reset_query_pool(
    device: vk::Device,
    pool: vk::QueryPool,
    first: u32,
    count: u32,
) {
    guard_or("vkResetQueryPool", (), || {
        // SAFETY: `device` is vkResetQueryPool's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let Ok(_) = (unsafe { Device::get(device) }) else {
            return;
        };
        // SAFETY: Vulkan valid usage: `queryPool` is a live query pool made by this driver.
        let Some(pool) = (unsafe { QueryPool::from_handle(pool) }) else {
            return;
        };
        if first.checked_add(count).is_none_or(|end| end > pool.count) {
            eprintln!(
                "agx4: vkResetQueryPool: queries {first}+{count} of a pool of {}",
                pool.count
            );
            return;
        }
        let zeros = vec![0u8; count as usize * 8];
        let mut result = pool.bo.write(u64::from(first) * 8, &zeros);
        if pool.kind != QueryKind::Timestamp {
            // The other value arrays and the availability entries.
            for a in 1..=pool.value_arrays() {
                result = result
                    .and_then(|_| pool.bo.write(u64::from(a * pool.count + first) * 8, &zeros));
            }
        }
        if let Err(e) = result {
            eprintln!("agx4: vkResetQueryPool: {e:?}");
        }
    })
}
