//! VkFence and VkSemaphore (binary and timeline), each one DRM syncobj, plus the syncobj of
//! a temporarily imported payload while there is one.
//!
//! External handles (external.rs): OPAQUE_FD is a syncobj fd, which shares the syncobj itself;
//! SYNC_FD is a sync file, a copy of the current fence. Importing a sync file is always
//! temporary (the spec's rule); it goes into a new syncobj that stands in for the permanent
//! one until a wait on the semaphore, or a reset of the fence, restores the permanent one.

use crate::device::Device;
use crate::entry::guard;
use crate::handle::{self, object, Object};
use crate::kmd;
use ash::vk;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

pub struct Fence {
    /// The permanent payload (replaced by a permanent import).
    syncobj: AtomicU32,
    temporary: Mutex<Option<u32>>,
}
object!(Fence, vk::Fence);

pub struct Semaphore {
    /// The permanent payload (replaced by a permanent import).
    syncobj: AtomicU32,
    pub timeline: bool,
    temporary: Mutex<Option<u32>>,
}
object!(Semaphore, vk::Semaphore);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Fence {
    /// The syncobj operations act on: the temporary payload if there is one.
    pub fn active(&self) -> u32 {
        lock(&self.temporary).unwrap_or_else(|| self.syncobj.load(Ordering::Acquire))
    }
}

impl Semaphore {
    /// The syncobj operations act on: the temporary payload if there is one.
    pub fn active(&self) -> u32 {
        lock(&self.temporary).unwrap_or_else(|| self.syncobj.load(Ordering::Acquire))
    }

    /// The syncobj a wait operation waits on, and the temporary syncobj the wait consumes (the
    /// waiter destroys it once the wait is in the kernel's hands): a wait restores the
    /// permanent payload.
    pub fn take_for_wait(&self) -> (u32, Option<u32>) {
        match lock(&self.temporary).take() {
            Some(t) => (t, Some(t)),
            None => (self.syncobj.load(Ordering::Acquire), None),
        }
    }
}

/// Puts `new` in place as a temporary payload, destroying any earlier one.
fn set_temporary(kmd: &dyn Kmd, slot: &Mutex<Option<u32>>, new: u32) {
    if let Some(old) = lock(slot).replace(new) {
        let _ = kmd::syncobj_destroy(kmd, old);
    }
}

/// A new syncobj holding the fence of the sync file `fd` (-1: already signalled, as the spec
/// lets an exporter say).
fn syncobj_from_sync_file(kmd: &dyn Kmd, fd: i32) -> Result<u32, vk::Result> {
    let bad = vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
    let h = kmd::syncobj_create(kmd, fd == -1).map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    if fd != -1 {
        let mut args = drm_syncobj_handle {
            handle: h,
            flags: DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
            fd,
            pad: 0,
        };
        if kmd.syncobj_fd_to_handle(&mut args).is_err() {
            let _ = kmd::syncobj_destroy(kmd, h);
            return Err(bad);
        }
    }
    Ok(h)
}

/// A new handle for the syncobj behind the syncobj fd `fd`.
fn syncobj_from_fd(kmd: &dyn Kmd, fd: i32) -> Result<u32, vk::Result> {
    let mut args = drm_syncobj_handle {
        handle: 0,
        flags: 0,
        fd,
        pad: 0,
    };
    kmd.syncobj_fd_to_handle(&mut args)
        .map_err(|_| vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)?;
    Ok(args.handle)
}

/// How long a sync file export waits for the queue worker to hand the pending signal to the
/// kernel (valid usage promises one is pending).
const SUBMIT_WAIT_NS: u64 = 10_000_000_000;

/// An fd for `syncobj`: the syncobj itself, or a sync file of its current fence.
fn syncobj_to_fd(kmd: &dyn Kmd, syncobj: u32, sync_file: bool) -> Result<i32, vk::Result> {
    if sync_file {
        // The signal may still sit in a queue worker (queue.rs): a sync file needs the fence.
        let _ = kmd::syncobj_timeline_wait(
            kmd,
            &[syncobj],
            &[0],
            kmd::deadline(SUBMIT_WAIT_NS),
            DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE,
        );
    }
    let mut args = drm_syncobj_handle {
        handle: syncobj,
        flags: if sync_file {
            DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE
        } else {
            0
        },
        fd: -1,
        pad: 0,
    };
    kmd.syncobj_handle_to_fd(&mut args).map_err(|e| match e {
        libc::EMFILE | libc::ENFILE => vk::Result::ERROR_TOO_MANY_OBJECTS,
        _ => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
    })?;
    Ok(args.fd)
}

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
        // SAFETY: `device_h` is vkCreateFence's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let signaled = info.flags.contains(vk::FenceCreateFlags::SIGNALED);
        let syncobj = kmd::syncobj_create(dev.kmd.as_ref(), signaled)
            .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            Fence {
                syncobj: AtomicU32::new(syncobj),
                temporary: Mutex::new(None),
            }
            .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
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
        if let (Ok(dev), Some(f)) = (
            // SAFETY: `device_h` is vkDestroyFence's device parameter, which valid usage requires
            // to be a live device made by this driver.
            unsafe { Device::get(device_h) },
            // SAFETY: Vulkan valid usage: `fence` is VK_NULL_HANDLE or a live fence made by this
            // driver, and this destroy command is its last use.
            unsafe { Fence::take(fence) },
        ) {
            let f = f.into_inner();
            if let Some(t) = f.temporary.into_inner().unwrap_or_else(|e| e.into_inner()) {
                let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), t);
            }
            let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), f.syncobj.into_inner());
        }
    })
}

/// The syncobjs behind an array of fence handles.
///
/// # Safety
/// `p_fences` must hold `count` fence handles, each a live fence made by this driver.
unsafe fn fence_syncobjs(count: u32, p_fences: *const vk::Fence) -> Result<Vec<u32>, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let fences = unsafe { handle::slice(p_fences, count) };
    fences
        .iter()
        .map(|&f| {
            // SAFETY: guaranteed by the caller: `f` is a live fence made by this driver.
            unsafe { Fence::from_handle(f) }
                .map(|f| f.active())
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
        // SAFETY: `device_h` is vkResetFences's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // A reset first restores each fence's permanent payload.
        // SAFETY: valid usage: pFences holds `count` fences.
        for &f in unsafe { handle::slice(p_fences, count) } {
            // SAFETY: Vulkan valid usage: each of `pFences` is a live fence made by this driver.
            let fence = unsafe { Fence::from_handle(f) };
            if let Some(t) = fence.and_then(|f| lock(&f.temporary).take()) {
                let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), t);
            }
        }
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
        // SAFETY: `device_h` is vkGetFenceStatus's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: Vulkan valid usage: `fence` is a live fence made by this driver.
        let f = unsafe { Fence::from_handle(fence) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        kmd::syncobj_wait(
            dev.kmd.as_ref(),
            &[f.active()],
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
        // SAFETY: `device_h` is vkWaitForFences's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
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
        // SAFETY: `device_h` is vkCreateSemaphore's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
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
            Semaphore {
                syncobj: AtomicU32::new(syncobj),
                timeline,
                temporary: Mutex::new(None),
            }
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
        if let (Ok(dev), Some(s)) = (
            // SAFETY: `device_h` is vkDestroySemaphore's device parameter, which valid usage
            // requires to be a live device made by this driver.
            unsafe { Device::get(device_h) },
            // SAFETY: Vulkan valid usage: `semaphore` is VK_NULL_HANDLE or a live semaphore made
            // by this driver, and this destroy command is its last use.
            unsafe { Semaphore::take(semaphore) },
        ) {
            let s = s.into_inner();
            if let Some(t) = s.temporary.into_inner().unwrap_or_else(|e| e.into_inner()) {
                let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), t);
            }
            let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), s.syncobj.into_inner());
        }
    })
}

pub unsafe extern "system" fn get_semaphore_counter_value(
    device_h: vk::Device,
    semaphore: vk::Semaphore,
    p_value: *mut u64,
) -> vk::Result {
    guard("vkGetSemaphoreCounterValue", || {
        // SAFETY: `device_h` is vkGetSemaphoreCounterValue's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: Vulkan valid usage: `semaphore` is a live semaphore made by this driver.
        let s = unsafe { Semaphore::from_handle(semaphore) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let value = kmd::syncobj_query(dev.kmd.as_ref(), s.active())
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
        // SAFETY: `device_h` is vkWaitSemaphores's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
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
                // SAFETY: Vulkan valid usage: each of `pWaitInfo->pSemaphores` is a live
                // semaphore made by this driver.
                unsafe { Semaphore::from_handle(s) }
                    .map(|s| s.active())
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
        // SAFETY: `device_h` is vkSignalSemaphore's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: valid usage: pSignalInfo points to a valid structure.
        let info = unsafe { &*p_signal_info };
        // SAFETY: Vulkan valid usage: `info.semaphore` is a live semaphore made by this driver.
        let s =
            unsafe { Semaphore::from_handle(info.semaphore) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        kmd::syncobj_timeline_signal(dev.kmd.as_ref(), &[s.active()], &[info.value])
            .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)
    })
}

pub unsafe extern "system" fn get_semaphore_fd(
    device_h: vk::Device,
    p_get_fd_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
    p_fd: *mut i32,
) -> vk::Result {
    guard("vkGetSemaphoreFdKHR", || {
        // SAFETY: `device_h` is vkGetSemaphoreFdKHR's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pGetFdInfo points to a valid structure.
        let info = unsafe { &*p_get_fd_info };
        // SAFETY: Vulkan valid usage: `info.semaphore` is a live semaphore made by this driver.
        let s =
            unsafe { Semaphore::from_handle(info.semaphore) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let k = dev.kmd.as_ref();
        let fd = match info.handle_type {
            vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD => syncobj_to_fd(k, s.active(), false)?,
            vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD if !s.timeline => {
                // Copy transference: exporting acts as a wait, so the semaphore is unsignalled
                // afterwards and a temporary payload is released.
                let (h, temporary) = s.take_for_wait();
                let fd = syncobj_to_fd(k, h, true);
                match temporary {
                    Some(t) => {
                        let _ = kmd::syncobj_destroy(k, t);
                    }
                    None if fd.is_ok() => {
                        let _ = kmd::syncobj_reset(k, &[h]);
                    }
                    None => {}
                }
                fd?
            }
            _ => return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
        };
        // SAFETY: valid usage: pFd is writable.
        unsafe { *p_fd = fd };
        Ok(())
    })
}

pub unsafe extern "system" fn import_semaphore_fd(
    device_h: vk::Device,
    p_import_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
) -> vk::Result {
    guard("vkImportSemaphoreFdKHR", || {
        // SAFETY: `device_h` is vkImportSemaphoreFdKHR's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pImportSemaphoreFdInfo points to a valid structure.
        let info = unsafe { &*p_import_info };
        // SAFETY: Vulkan valid usage: `info.semaphore` is a live semaphore made by this driver.
        let s =
            unsafe { Semaphore::from_handle(info.semaphore) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let k = dev.kmd.as_ref();
        let temporary = info.flags.contains(vk::SemaphoreImportFlags::TEMPORARY);
        match info.handle_type {
            vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD => {
                let h = syncobj_from_fd(k, info.fd)?;
                if temporary {
                    set_temporary(k, &s.temporary, h);
                } else {
                    // The imported syncobj becomes the permanent payload (shared with the
                    // exporter); the old one goes.
                    let _ = kmd::syncobj_destroy(k, s.syncobj.swap(h, Ordering::AcqRel));
                }
            }
            vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD if !s.timeline => {
                // A sync file import is always temporary.
                let h = syncobj_from_sync_file(k, info.fd)?;
                set_temporary(k, &s.temporary, h);
            }
            _ => return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
        }
        // A successful import takes ownership of the fd.
        if info.fd >= 0 {
            // SAFETY: the application handed the fd over; nothing else closes it.
            unsafe { libc::close(info.fd) };
        }
        Ok(())
    })
}

pub unsafe extern "system" fn get_fence_fd(
    device_h: vk::Device,
    p_get_fd_info: *const vk::FenceGetFdInfoKHR<'_>,
    p_fd: *mut i32,
) -> vk::Result {
    guard("vkGetFenceFdKHR", || {
        // SAFETY: `device_h` is vkGetFenceFdKHR's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pGetFdInfo points to a valid structure.
        let info = unsafe { &*p_get_fd_info };
        // SAFETY: Vulkan valid usage: `info.fence` is a live fence made by this driver.
        let f = unsafe { Fence::from_handle(info.fence) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let k = dev.kmd.as_ref();
        let fd = match info.handle_type {
            vk::ExternalFenceHandleTypeFlags::OPAQUE_FD => syncobj_to_fd(k, f.active(), false)?,
            vk::ExternalFenceHandleTypeFlags::SYNC_FD => {
                // Copy transference: exporting resets the fence, restoring its permanent
                // payload first.
                let fd = syncobj_to_fd(k, f.active(), true)?;
                let temporary = lock(&f.temporary).take();
                match temporary {
                    Some(t) => {
                        let _ = kmd::syncobj_destroy(k, t);
                    }
                    None => {
                        let _ = kmd::syncobj_reset(k, &[f.active()]);
                    }
                }
                fd
            }
            _ => return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
        };
        // SAFETY: valid usage: pFd is writable.
        unsafe { *p_fd = fd };
        Ok(())
    })
}

pub unsafe extern "system" fn import_fence_fd(
    device_h: vk::Device,
    p_import_info: *const vk::ImportFenceFdInfoKHR<'_>,
) -> vk::Result {
    guard("vkImportFenceFdKHR", || {
        // SAFETY: `device_h` is vkImportFenceFdKHR's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pImportFenceFdInfo points to a valid structure.
        let info = unsafe { &*p_import_info };
        // SAFETY: Vulkan valid usage: `info.fence` is a live fence made by this driver.
        let f = unsafe { Fence::from_handle(info.fence) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let k = dev.kmd.as_ref();
        let temporary = info.flags.contains(vk::FenceImportFlags::TEMPORARY);
        match info.handle_type {
            vk::ExternalFenceHandleTypeFlags::OPAQUE_FD => {
                let h = syncobj_from_fd(k, info.fd)?;
                if temporary {
                    set_temporary(k, &f.temporary, h);
                } else {
                    let _ = kmd::syncobj_destroy(k, f.syncobj.swap(h, Ordering::AcqRel));
                }
            }
            vk::ExternalFenceHandleTypeFlags::SYNC_FD => {
                let h = syncobj_from_sync_file(k, info.fd)?;
                set_temporary(k, &f.temporary, h);
            }
            _ => return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
        }
        if info.fd >= 0 {
            // SAFETY: the application handed the fd over; nothing else closes it.
            unsafe { libc::close(info.fd) };
        }
        Ok(())
    })
}
