//! VkDeviceMemory: one GEM object per allocation, bound into the device's VM at an address
//! the driver picks, and CPU-mapped through GEM_MMAP_OFFSET.

use crate::device::Device;
use crate::entry::guard;
use crate::handle::{self, object, Object};
use ash::vk;
use kmd_iface::uapi::*;
use std::sync::Mutex;

/// GPU pages are 16 KiB; binds and allocations are made of whole pages.
pub const PAGE_SIZE: u64 = 16384;

pub struct MemoryType {
    pub flags: vk::MemoryPropertyFlags,
    pub gem_flags: u32,
}

/// Unified memory, coherent both ways: one type mapped write-combined (best for CPU writes
/// the GPU reads), one mapped cached (best for reading results back).
pub const MEMORY_TYPES: [MemoryType; 2] = [
    MemoryType {
        flags: vk::MemoryPropertyFlags::from_raw(
            vk::MemoryPropertyFlags::DEVICE_LOCAL.as_raw()
                | vk::MemoryPropertyFlags::HOST_VISIBLE.as_raw()
                | vk::MemoryPropertyFlags::HOST_COHERENT.as_raw(),
        ),
        gem_flags: 0,
    },
    MemoryType {
        flags: vk::MemoryPropertyFlags::from_raw(
            vk::MemoryPropertyFlags::DEVICE_LOCAL.as_raw()
                | vk::MemoryPropertyFlags::HOST_VISIBLE.as_raw()
                | vk::MemoryPropertyFlags::HOST_COHERENT.as_raw()
                | vk::MemoryPropertyFlags::HOST_CACHED.as_raw(),
        ),
        gem_flags: DRM_ASAHI_GEM_WRITEBACK,
    },
];

/// Every memory type, as a `memoryTypeBits` mask.
pub const ALL_MEMORY_TYPES: u32 = (1 << MEMORY_TYPES.len()) - 1;

pub struct Memory {
    pub gem: u32,
    /// GPU address of the first byte.
    pub va: u64,
    /// Bytes requested by the application.
    pub size: u64,
    /// Bytes allocated and bound (whole pages).
    bound: u64,
    /// A shareable GEM object (exportable, or imported), counted in `Device::shared_gems`.
    shared: bool,
    /// CPU address of the whole object while mapped.
    mapping: Mutex<Option<usize>>,
}
object!(Memory, vk::DeviceMemory);

/// Where an allocation's GEM object comes from.
enum Source {
    /// A new object; `shareable` ones stay outside the VM's reservation so they can be
    /// exported (a VM-private object cannot be).
    New { shareable: bool },
    /// The dma-buf behind an fd the application hands over.
    Import { fd: i32 },
}

/// One more reference to a shareable GEM handle.
fn ref_shared(dev: &Device, gem: u32) {
    *lock(&dev.shared_gems).entry(gem).or_insert(0) += 1;
}

/// Drops a reference to a GEM handle (the only one if it is not shared); the handle is closed
/// with the last.
fn unref_gem(dev: &Device, gem: u32, shared: bool) {
    if shared {
        let mut refs = lock(&dev.shared_gems);
        match refs.get_mut(&gem) {
            Some(n) if *n > 1 => {
                *n -= 1;
                return;
            }
            _ => {
                refs.remove(&gem);
            }
        }
    }
    let _ = dev.kmd.gem_close(&drm_gem_close {
        handle: gem,
        pad: 0,
    });
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The size of the dma-buf behind `fd`, as Mesa learns it: its end offset.
fn dmabuf_size(fd: i32) -> Option<u64> {
    // SAFETY: lseek only moves the file offset of an fd the application handed over; a bad
    // fd gives -1.
    let end = unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
    // SAFETY: as above; put the offset back where importers expect it.
    unsafe { libc::lseek(fd, 0, libc::SEEK_SET) };
    u64::try_from(end).ok().filter(|&n| n > 0)
}

impl Memory {
    fn allocate(
        dev: &Device,
        size: u64,
        type_index: u32,
        source: Source,
    ) -> Result<Memory, vk::Result> {
        let ty = MEMORY_TYPES
            .get(type_index as usize)
            .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        let (gem, bound, shared) = match source {
            Source::New { shareable } => {
                let bound = size
                    .checked_add(PAGE_SIZE - 1)
                    .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?
                    & !(PAGE_SIZE - 1);
                let (flags, vm_id) = match shareable {
                    true => (ty.gem_flags, 0),
                    false => (ty.gem_flags | DRM_ASAHI_GEM_VM_PRIVATE, dev.vm_id),
                };
                let mut create = drm_asahi_gem_create {
                    size: bound,
                    flags,
                    vm_id,
                    handle: 0,
                    pad: 0,
                };
                dev.kmd
                    .gem_create(&mut create)
                    .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
                if shareable {
                    ref_shared(dev, create.handle);
                }
                (create.handle, bound, shareable)
            }
            Source::Import { fd } => {
                let bad = vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
                let mut args = drm_prime_handle {
                    handle: 0,
                    flags: 0,
                    fd,
                };
                dev.kmd.prime_fd_to_handle(&mut args).map_err(|_| bad)?;
                ref_shared(dev, args.handle);
                let bound = dmabuf_size(fd).filter(|&n| n >= size && n % PAGE_SIZE == 0);
                let Some(bound) = bound else {
                    unref_gem(dev, args.handle, true);
                    return Err(bad);
                };
                (args.handle, bound, true)
            }
        };
        let charge = match dev.charge_heap(bound) {
            Ok(c) => c,
            Err(e) => {
                unref_gem(dev, gem, shared);
                return Err(e);
            }
        };
        let Some(va) = dev.va_alloc(bound, PAGE_SIZE) else {
            unref_gem(dev, gem, shared);
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        };
        let op = drm_asahi_gem_bind_op {
            flags: DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE,
            handle: gem,
            offset: 0,
            range: bound,
            addr: va,
        };
        if crate::kmd::vm_bind(dev.kmd.as_ref(), dev.vm_id, &[op]).is_err() {
            dev.va_free(va, bound);
            unref_gem(dev, gem, shared);
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        charge.keep();
        Ok(Memory {
            gem,
            va,
            size,
            bound,
            shared,
            mapping: Mutex::new(None),
        })
    }

    fn release(self, dev: &Device) {
        if let Some(ptr) = self.mapping.into_inner().unwrap_or_else(|e| e.into_inner()) {
            // SAFETY: `ptr` is the mapping of `bound` bytes made in `map`; the application
            // may no longer use it once the memory is freed.
            let _ = unsafe { dev.kmd.munmap(ptr as *mut u8, self.bound as usize) };
        }
        let op = drm_asahi_gem_bind_op {
            flags: DRM_ASAHI_BIND_UNBIND,
            handle: 0,
            offset: 0,
            range: self.bound,
            addr: self.va,
        };
        let _ = crate::kmd::vm_bind(dev.kmd.as_ref(), dev.vm_id, &[op]);
        dev.va_free(self.va, self.bound);
        unref_gem(dev, self.gem, self.shared);
        dev.uncharge_heap(self.bound);
    }

    fn map(&self, dev: &Device) -> Result<*mut u8, vk::Result> {
        let mut mapping = self.mapping.lock().unwrap_or_else(|e| e.into_inner());
        if mapping.is_some() {
            return Err(vk::Result::ERROR_MEMORY_MAP_FAILED);
        }
        let mut args = drm_asahi_gem_mmap_offset {
            handle: self.gem,
            flags: 0,
            offset: 0,
        };
        dev.kmd
            .gem_mmap_offset(&mut args)
            .map_err(|_| vk::Result::ERROR_MEMORY_MAP_FAILED)?;
        let ptr = dev
            .kmd
            .mmap(args.offset, self.bound as usize)
            .map_err(|_| vk::Result::ERROR_MEMORY_MAP_FAILED)?;
        *mapping = Some(ptr as usize);
        Ok(ptr)
    }

    fn unmap(&self, dev: &Device) {
        let mut mapping = self.mapping.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ptr) = mapping.take() {
            // SAFETY: `ptr` is the mapping of `bound` bytes made in `map`; valid usage ends
            // the application's use of it at vkUnmapMemory.
            let _ = unsafe { dev.kmd.munmap(ptr as *mut u8, self.bound as usize) };
        }
    }
}

pub unsafe extern "system" fn allocate_memory(
    device_h: vk::Device,
    p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_memory: *mut vk::DeviceMemory,
) -> vk::Result {
    guard("vkAllocateMemory", || {
        // SAFETY: `device_h` is vkAllocateMemory's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pAllocateInfo points to a valid structure.
        let info = unsafe { &*p_allocate_info };
        // SAFETY: valid usage: the pNext chain is valid.
        let (export, import) = unsafe {
            (
                handle::find_in_chain::<vk::ExportMemoryAllocateInfo>(info.p_next),
                handle::find_in_chain::<vk::ImportMemoryFdInfoKHR>(info.p_next),
            )
        };
        let source = match import.filter(|i| !i.handle_type.is_empty()) {
            Some(i) if !crate::external::MEMORY_HANDLE_TYPES.contains(i.handle_type) => {
                return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
            }
            Some(i) => Source::Import { fd: i.fd },
            None => Source::New {
                shareable: export.is_some_and(|e| !e.handle_types.is_empty()),
            },
        };
        let import_fd = match source {
            Source::Import { fd } => Some(fd),
            Source::New { .. } => None,
        };
        let mem = Memory::allocate(dev, info.allocation_size, info.memory_type_index, source)?;
        if let Some(fd) = import_fd {
            // A successful import takes ownership of the fd.
            // SAFETY: the application handed the fd over; nothing else closes it.
            unsafe { libc::close(fd) };
        }
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe { mem.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pMemory is writable.
        unsafe { *p_memory = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn free_memory(
    device_h: vk::Device,
    memory: vk::DeviceMemory,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    crate::entry::guard_or("vkFreeMemory", (), || {
        if let (Ok(dev), Some(mem)) = (
            // SAFETY: `device_h` is vkFreeMemory's device parameter, which valid usage requires
            // to be a live device made by this driver.
            unsafe { Device::get(device_h) },
            // SAFETY: Vulkan valid usage: `memory` is VK_NULL_HANDLE or a live memory object made
            // by this driver, and this free command is its last use.
            unsafe { Memory::take(memory) },
        ) {
            mem.into_inner().release(dev);
        }
    })
}

pub unsafe extern "system" fn map_memory(
    device_h: vk::Device,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
    _size: vk::DeviceSize,
    _flags: vk::MemoryMapFlags,
    pp_data: *mut *mut std::ffi::c_void,
) -> vk::Result {
    guard("vkMapMemory", || {
        // SAFETY: `device_h` is vkMapMemory's device parameter, which valid usage requires to be a
        // live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: Vulkan valid usage: `memory` is a live memory object made by this driver.
        let mem =
            unsafe { Memory::from_handle(memory) }.ok_or(vk::Result::ERROR_MEMORY_MAP_FAILED)?;
        if offset >= mem.size {
            return Err(vk::Result::ERROR_MEMORY_MAP_FAILED);
        }
        let base = mem.map(dev)?;
        // SAFETY: offset < size <= bound, so the result stays inside the mapping; ppData is
        // writable per valid usage.
        unsafe { *pp_data = base.add(offset as usize).cast() };
        Ok(())
    })
}

pub unsafe extern "system" fn unmap_memory(device_h: vk::Device, memory: vk::DeviceMemory) {
    crate::entry::guard_or("vkUnmapMemory", (), || {
        if let (Ok(dev), Some(mem)) = (
            // SAFETY: `device_h` is vkUnmapMemory's device parameter, which valid usage requires
            // to be a live device made by this driver.
            unsafe { Device::get(device_h) },
            // SAFETY: Vulkan valid usage: `memory` is a live memory object made by this driver.
            unsafe { Memory::from_handle(memory) },
        ) {
            mem.unmap(dev);
        }
    })
}

// Every memory type is host-coherent: flushes and invalidations have nothing to do.
pub unsafe extern "system" fn flush_mapped_memory_ranges(
    device_h: vk::Device,
    _count: u32,
    _p_ranges: *const vk::MappedMemoryRange<'_>,
) -> vk::Result {
    guard("vkFlushMappedMemoryRanges", || {
        // SAFETY: `device_h` is vkFlushMappedMemoryRanges's device parameter, which valid usage
        // requires to be a live device made by this driver.
        unsafe { Device::get(device_h) }.map(|_| ())
    })
}

pub unsafe extern "system" fn invalidate_mapped_memory_ranges(
    device_h: vk::Device,
    _count: u32,
    _p_ranges: *const vk::MappedMemoryRange<'_>,
) -> vk::Result {
    guard("vkInvalidateMappedMemoryRanges", || {
        // SAFETY: `device_h` is vkInvalidateMappedMemoryRanges's device parameter, which valid
        // usage requires to be a live device made by this driver.
        unsafe { Device::get(device_h) }.map(|_| ())
    })
}

pub unsafe extern "system" fn get_device_memory_commitment(
    device_h: vk::Device,
    memory: vk::DeviceMemory,
    p_committed: *mut vk::DeviceSize,
) {
    crate::entry::guard_or("vkGetDeviceMemoryCommitment", (), || {
        // SAFETY: `device_h` is vkGetDeviceMemoryCommitment's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let _ = unsafe { Device::get(device_h) };
        // SAFETY: Vulkan valid usage: `memory` is a live memory object made by this driver.
        if let Some(mem) = unsafe { Memory::from_handle(memory) } {
            // SAFETY: valid usage: pCommittedMemoryInBytes is writable.
            unsafe { *p_committed = mem.bound };
        }
    })
}

/// The memory object behind a handle, for binding; `None` for `VK_NULL_HANDLE`.
///
/// # Safety
/// `memory` must be `VK_NULL_HANDLE` or a live memory object made by this driver, and it must
/// not be freed while the returned reference is in use. The `memory` of a buffer or image bind
/// info, or of vkGetDeviceMemoryOpaqueCaptureAddress's info, is such a handle (Vulkan valid
/// usage).
pub unsafe fn get<'a>(memory: vk::DeviceMemory) -> Option<&'a Memory> {
    // SAFETY: guaranteed by the caller: `memory` is null or a live memory object made by this
    // driver that outlives the returned reference.
    unsafe { Memory::from_handle(memory) }
}

/// Fills a VkMemoryRequirements2 and the structures chained to it.
///
/// # Safety
/// `out` is a writable VkMemoryRequirements2 with a valid pNext chain.
pub unsafe fn write_requirements2(
    out: *mut vk::MemoryRequirements2<'_>,
    r: vk::MemoryRequirements,
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        (*out).memory_requirements = r;
        for s in handle::chain_mut((*out).p_next) {
            if (*s).s_type == vk::StructureType::MEMORY_DEDICATED_REQUIREMENTS {
                // Every resource lives equally well in a shared allocation.
                let d = &mut *s.cast::<vk::MemoryDedicatedRequirements<'_>>();
                d.prefers_dedicated_allocation = vk::FALSE;
                d.requires_dedicated_allocation = vk::FALSE;
            }
        }
    }
}

pub unsafe extern "system" fn get_memory_fd(
    device_h: vk::Device,
    p_get_fd_info: *const vk::MemoryGetFdInfoKHR<'_>,
    p_fd: *mut i32,
) -> vk::Result {
    guard("vkGetMemoryFdKHR", || {
        // SAFETY: `device_h` is vkGetMemoryFdKHR's device parameter, which valid usage requires to
        // be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // SAFETY: valid usage: pGetFdInfo points to a valid structure.
        let info = unsafe { &*p_get_fd_info };
        // SAFETY: Vulkan valid usage: `info.memory` is a live memory object made by this driver.
        let mem = unsafe { Memory::from_handle(info.memory) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // Valid usage guarantees memory made for export; a private object cannot be.
        if !mem.shared || !crate::external::MEMORY_HANDLE_TYPES.contains(info.handle_type) {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        let mut args = drm_prime_handle {
            handle: mem.gem,
            flags: DRM_CLOEXEC | DRM_RDWR,
            fd: -1,
        };
        dev.kmd.prime_handle_to_fd(&mut args).map_err(|e| match e {
            libc::EMFILE | libc::ENFILE => vk::Result::ERROR_TOO_MANY_OBJECTS,
            _ => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        })?;
        // SAFETY: valid usage: pFd is writable.
        unsafe { *p_fd = args.fd };
        Ok(())
    })
}

pub unsafe extern "system" fn get_memory_fd_properties(
    device_h: vk::Device,
    handle_type: vk::ExternalMemoryHandleTypeFlags,
    fd: i32,
    p_properties: *mut vk::MemoryFdPropertiesKHR<'_>,
) -> vk::Result {
    guard("vkGetMemoryFdPropertiesKHR", || {
        // SAFETY: `device_h` is vkGetMemoryFdPropertiesKHR's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let dev = unsafe { Device::get(device_h) }?;
        // OPAQUE_FD is not asked about (valid usage); only a dma-buf is.
        if handle_type != vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT {
            return Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
        }
        // Whether the kernel takes the fd as a dma-buf is the test; the handle is dropped
        // again unless this device already holds it.
        let mut args = drm_prime_handle {
            handle: 0,
            flags: 0,
            fd,
        };
        dev.kmd
            .prime_fd_to_handle(&mut args)
            .map_err(|_| vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)?;
        if !lock(&dev.shared_gems).contains_key(&args.handle) {
            let _ = dev.kmd.gem_close(&drm_gem_close {
                handle: args.handle,
                pad: 0,
            });
        }
        // SAFETY: valid usage: pMemoryFdProperties is writable.
        unsafe { (*p_properties).memory_type_bits = ALL_MEMORY_TYPES };
        Ok(())
    })
}
