//! Driver-owned GPU memory: a GEM object bound at a VA the device picks (in the general heap
//! or in the 4 GiB shader window) and mapped for the CPU for its whole life.
//!
//! Descriptor pools, pipelines' code, command buffers' upload memory, events and query pools
//! are all made of these.

use crate::device::Device;
use crate::memory::PAGE_SIZE;
use crate::va::VaAllocator;
use ash::vk;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::sync::{Arc, Mutex};

/// Which part of the VM a buffer object lives in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// The general heap.
    Heap,
    /// The shader window: required for anything the hardware names by a 32-bit USC offset
    /// (shader code, USC words).
    Usc,
}

pub struct Bo {
    kmd: Arc<dyn Kmd>,
    vm_id: u32,
    va_pool: Arc<Mutex<VaAllocator>>,
    pub gem: u32,
    pub va: u64,
    /// Bytes bound and mapped (whole pages).
    pub size: u64,
    ptr: *mut u8,
}

// SAFETY: `ptr` is a shared mapping of GPU memory that lives as long as the Bo; all access
// goes through bounds-checked copies, and concurrent writes to it are the GPU-memory races the
// Vulkan valid usage rules already forbid.
unsafe impl Send for Bo {}
// SAFETY: as above.
unsafe impl Sync for Bo {}

impl Bo {
    /// A zeroed, mapped buffer object of at least `size` bytes.
    pub fn new(dev: &Device, size: u64, place: Place, cached: bool) -> Result<Bo, vk::Result> {
        let va_pool = match place {
            Place::Heap => dev.heap_va.clone(),
            Place::Usc => dev.usc_va.clone(),
        };
        Bo::new_in(dev.kmd.clone(), dev.vm_id, va_pool, size, cached)
    }

    /// [`Bo::new`] for a VM whose `Device` does not exist yet (the device's own buffers,
    /// made while it is being created): the VA comes from `va_pool`.
    pub fn new_in(
        kmd: Arc<dyn Kmd>,
        vm_id: u32,
        va_pool: Arc<Mutex<VaAllocator>>,
        size: u64,
        cached: bool,
    ) -> Result<Bo, vk::Result> {
        let oom = vk::Result::ERROR_OUT_OF_DEVICE_MEMORY;
        let size = size.max(1).checked_add(PAGE_SIZE - 1).ok_or(oom)? & !(PAGE_SIZE - 1);
        let flags = DRM_ASAHI_GEM_VM_PRIVATE | if cached { DRM_ASAHI_GEM_WRITEBACK } else { 0 };
        let mut create = drm_asahi_gem_create {
            size,
            flags,
            vm_id,
            handle: 0,
            pad: 0,
        };
        kmd.gem_create(&mut create).map_err(|_| oom)?;
        let gem = create.handle;
        let close = |kmd: &dyn Kmd| {
            let _ = kmd.gem_close(&drm_gem_close {
                handle: gem,
                pad: 0,
            });
        };
        let Some(va) = va_pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(size, PAGE_SIZE)
        else {
            close(kmd.as_ref());
            return Err(oom);
        };
        let release_va = || {
            va_pool
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .free(va, size)
        };
        let op = drm_asahi_gem_bind_op {
            flags: DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE,
            handle: gem,
            offset: 0,
            range: size,
            addr: va,
        };
        if crate::kmd::vm_bind(kmd.as_ref(), vm_id, &[op]).is_err() {
            release_va();
            close(kmd.as_ref());
            return Err(oom);
        }
        let mut mmap = drm_asahi_gem_mmap_offset {
            handle: gem,
            flags: 0,
            offset: 0,
        };
        let ptr = kmd
            .gem_mmap_offset(&mut mmap)
            .and_then(|_| kmd.mmap(mmap.offset, size as usize));
        let ptr = match ptr {
            Ok(p) => p,
            Err(_) => {
                let unbind = drm_asahi_gem_bind_op {
                    flags: DRM_ASAHI_BIND_UNBIND,
                    handle: 0,
                    offset: 0,
                    range: size,
                    addr: va,
                };
                let _ = crate::kmd::vm_bind(kmd.as_ref(), vm_id, &[unbind]);
                release_va();
                close(kmd.as_ref());
                return Err(oom);
            }
        };
        Ok(Bo {
            kmd,
            vm_id,
            va_pool,
            gem,
            va,
            size,
            ptr,
        })
    }

    fn check(&self, offset: u64, len: usize) -> bool {
        offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.size)
    }

    /// The host address of `len` mapped bytes at `offset`; `None` past the mapping. The
    /// pointer stays valid for as long as this Bo lives.
    pub fn host_range(&self, offset: u64, len: u64) -> Option<*mut u8> {
        let len = usize::try_from(len).ok()?;
        // SAFETY: the range is inside the live mapping of `size` bytes (checked first).
        self.check(offset, len)
            .then(|| unsafe { self.ptr.add(offset as usize) })
    }

    /// Copies `bytes` to byte `offset`; out-of-range writes are refused.
    pub fn write(&self, offset: u64, bytes: &[u8]) -> Result<(), vk::Result> {
        if !self.check(offset, bytes.len()) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: the range is inside the live mapping of `size` bytes (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.ptr.add(offset as usize),
                bytes.len(),
            )
        };
        Ok(())
    }

    /// Zeroes `len` bytes at `offset`; an out-of-range request is refused.
    pub fn zero(&self, offset: u64, len: usize) -> Result<(), vk::Result> {
        if !self.check(offset, len) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: the range is inside the live mapping of `size` bytes (checked above).
        unsafe { std::ptr::write_bytes(self.ptr.add(offset as usize), 0, len) };
        Ok(())
    }

    /// Copies bytes at `offset` into `out`; out-of-range reads are refused.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), vk::Result> {
        if !self.check(offset, out.len()) {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: the range is inside the live mapping of `size` bytes (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.ptr.add(offset as usize),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }

    /// Whether the bytes at `offset` are `bytes` (false when the range is outside).
    pub fn holds(&self, offset: u64, bytes: &[u8]) -> bool {
        if !self.check(offset, bytes.len()) {
            return false;
        }
        // SAFETY: the range is inside the live mapping of `size` bytes (checked above), and
        // the slice lives only for the comparison.
        let here =
            unsafe { std::slice::from_raw_parts(self.ptr.add(offset as usize), bytes.len()) };
        here == bytes
    }

    pub fn read_u64(&self, offset: u64) -> Result<u64, vk::Result> {
        let mut b = [0u8; 8];
        self.read(offset, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn read_u32(&self, offset: u64) -> Result<u32, vk::Result> {
        let mut b = [0u8; 4];
        self.read(offset, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
}

impl Drop for Bo {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`size` is exactly the mapping made in `new`, and the Bo is its only user.
        let _ = unsafe { self.kmd.munmap(self.ptr, self.size as usize) };
        let op = drm_asahi_gem_bind_op {
            flags: DRM_ASAHI_BIND_UNBIND,
            handle: 0,
            offset: 0,
            range: self.size,
            addr: self.va,
        };
        let _ = crate::kmd::vm_bind(self.kmd.as_ref(), self.vm_id, &[op]);
        self.va_pool
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .free(self.va, self.size);
        let _ = self.kmd.gem_close(&drm_gem_close {
            handle: self.gem,
            pad: 0,
        });
    }
}
