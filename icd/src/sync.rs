//! VkFence and VkSemaphore (binary and timeline), each one DRM syncobj.

use crate::device::Device;
use crate::entry::guard;
use crate::handle::{self, object, Object};
use crate::kmd;
use ash::vk;
use kmd_iface::uapi::*;

pub struct Fence {
    pub syncobj: u32,
}
object!(Fence, vk::Fence);

pub struct Semaphore {
    pub syncobj: u32,
    pub timeline: bool,
}
object!(Semaphore, vk::Semaphore);

/// Maps a failed wait: a timeout is `timeout_result`, anything else loses the device.
fn wait_error(dev: &Device, errno: i32, timeout_result: vk::Result) -> vk::Result {
    if errno == libc::ETIME {
        timeout_result
    } else {
        eprintln!("agx4: syncobj wait failed: errno {errno}");
        dev.lost.store(true, std::sync::atomic::Ordering::Release);
        vk::Result::ERROR_DEVICE_LOST
    }
}

pub unsafe extern "system" fn create_fence(
    device_h: vk::Device,
    p_create_info: *const vk::FenceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_fence: *mut vk::Fence,
) -> vk::Result {
    guard("vkCreateFence", || {
        let dev = Device::get(device_h)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let signaled = info.flags.contains(vk::FenceCreateFlags::SIGNALED);
        let syncobj = kmd::syncobj_create(dev.kmd.as_ref(), signaled)
            .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            Fence { syncobj }.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
        }?;
        // SAFETY: valid usage: pFence is writable.
        unsafe { *p_fence = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_fence(
    device_h: vk::Device,
    fence: vk::Fence,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    crate::entry::guard_or("vkDestroyFence", (), || {
        if let (Ok(dev), Some(f)) = (Device::get(device_h), Fence::take(fence)) {
            let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), f.syncobj);
        }
    })
}

/// The syncobjs behind an array of fence handles.
///
/// # Safety
/// `p_fences` must hold `count` fence handles.
unsafe fn fence_syncobjs(count: u32, p_fences: *const vk::Fence) -> Result<Vec<u32>, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let fences = unsafe { handle::slice(p_fences, count) };
    fences
        .iter()
        .map(|&f| {
            Fence::from_handle(f)
                .map(|f| f.syncobj)
                .ok_or(vk::Result::ERROR_UNKNOWN)
        })
        .collect()
}

pub unsafe extern "system" fn reset_fences(
    device_h: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
) -> vk::Result {
    guard("vkResetFences", || {
        let dev = Device::get(device_h)?;
        // SAFETY: valid usage: pFences holds `count` fences.
        let handles = unsafe { fence_syncobjs(count, p_fences)? };
        kmd::syncobj_reset(dev.kmd.as_ref(), &handles)
            .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
    })
}

pub unsafe extern "system" fn get_fence_status(
    device_h: vk::Device,
    fence: vk::Fence,
) -> vk::Result {
    guard("vkGetFenceStatus", || {
        let dev = Device::get(device_h)?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        let f = Fence::from_handle(fence).ok_or(vk::Result::ERROR_UNKNOWN)?;
        kmd::syncobj_wait(
            dev.kmd.as_ref(),
            &[f.syncobj],
            0,
            DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
        )
        .map(|_| ())
        .map_err(|e| wait_error(dev, e, vk::Result::NOT_READY))
    })
}

pub unsafe extern "system" fn wait_for_fences(
    device_h: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
    wait_all: vk::Bool32,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitForFences", || {
        let dev = Device::get(device_h)?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: valid usage: pFences holds `count` fences.
        let handles = unsafe { fence_syncobjs(count, p_fences)? };
        let mut flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
        if wait_all != vk::FALSE {
            flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
        }
        kmd::syncobj_wait(dev.kmd.as_ref(), &handles, kmd::deadline(timeout), flags)
            .map(|_| ())
            .map_err(|e| wait_error(dev, e, vk::Result::TIMEOUT))
    })
}

pub unsafe extern "system" fn create_semaphore(
    device_h: vk::Device,
    p_create_info: *const vk::SemaphoreCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_semaphore: *mut vk::Semaphore,
) -> vk::Result {
    guard("vkCreateSemaphore", || {
        let dev = Device::get(device_h)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure with a valid chain.
        let type_info = unsafe {
            handle::find_in_chain::<vk::SemaphoreTypeCreateInfo>((*p_create_info).p_next)
        };
        let (timeline, initial) = match type_info {
            Some(t) if t.semaphore_type == vk::SemaphoreType::TIMELINE => (true, t.initial_value),
            _ => (false, 0),
        };
        let k = dev.kmd.as_ref();
        let syncobj =
            kmd::syncobj_create(k, false).map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        if timeline {
            // A timeline starts signalled at its initial value (point 0 included).
            if let Err(_e) = kmd::syncobj_timeline_signal(k, &[syncobj], &[initial]) {
                let _ = kmd::syncobj_destroy(k, syncobj);
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            }
        }
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            Semaphore { syncobj, timeline }
                .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
        }?;
        // SAFETY: valid usage: pSemaphore is writable.
        unsafe { *p_semaphore = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_semaphore(
    device_h: vk::Device,
    semaphore: vk::Semaphore,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    crate::entry::guard_or("vkDestroySemaphore", (), || {
        if let (Ok(dev), Some(s)) = (Device::get(device_h), Semaphore::take(semaphore)) {
            let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), s.syncobj);
        }
    })
}

pub unsafe extern "system" fn get_semaphore_counter_value(
    device_h: vk::Device,
    semaphore: vk::Semaphore,
    p_value: *mut u64,
) -> vk::Result {
    guard("vkGetSemaphoreCounterValue", || {
        let dev = Device::get(device_h)?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        let s = Semaphore::from_handle(semaphore).ok_or(vk::Result::ERROR_UNKNOWN)?;
        let value = kmd::syncobj_query(dev.kmd.as_ref(), s.syncobj)
            .map_err(|_| vk::Result::ERROR_DEVICE_LOST)?;
        // SAFETY: valid usage: pValue is writable.
        unsafe { *p_value = value };
        Ok(())
    })
}

pub unsafe extern "system" fn wait_semaphores(
    device_h: vk::Device,
    p_wait_info: *const vk::SemaphoreWaitInfo<'_>,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitSemaphores", || {
        let dev = Device::get(device_h)?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: valid usage: pWaitInfo is valid, its arrays hold semaphore_count entries.
        let (info, sems, values) = unsafe {
            let info = &*p_wait_info;
            (
                info,
                handle::slice(info.p_semaphores, info.semaphore_count),
                handle::slice(info.p_values, info.semaphore_count),
            )
        };
        let handles = sems
            .iter()
            .map(|&s| {
                Semaphore::from_handle(s)
                    .map(|s| s.syncobj)
                    .ok_or(vk::Result::ERROR_UNKNOWN)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
        if !info.flags.contains(vk::SemaphoreWaitFlags::ANY) {
            flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
        }
        kmd::syncobj_timeline_wait(
            dev.kmd.as_ref(),
            &handles,
            values,
            kmd::deadline(timeout),
            flags,
        )
        .map(|_| ())
        .map_err(|e| wait_error(dev, e, vk::Result::TIMEOUT))
    })
}

pub unsafe extern "system" fn signal_semaphore(
    device_h: vk::Device,
    p_signal_info: *const vk::SemaphoreSignalInfo<'_>,
) -> vk::Result {
    guard("vkSignalSemaphore", || {
        let dev = Device::get(device_h)?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: valid usage: pSignalInfo points to a valid structure.
        let info = unsafe { &*p_signal_info };
        let s = Semaphore::from_handle(info.semaphore).ok_or(vk::Result::ERROR_UNKNOWN)?;
        kmd::syncobj_timeline_signal(dev.kmd.as_ref(), &[s.syncobj], &[info.value])
            .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)
    })
}
