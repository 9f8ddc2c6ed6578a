//! VkBuffer: a size until bound, then a GPU address inside a memory object.

use crate::device::Device;
use crate::entry::guard;
use crate::handle::{self, object, Object};
use crate::memory::{self, ALL_MEMORY_TYPES};
use ash::vk;
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffers start on 16-byte boundaries: the strictest offset alignment the limits promise.
const BUFFER_ALIGNMENT: u64 = 16;

pub struct Buffer {
    pub size: u64,
    /// GPU address once bound, 0 before.
    pub va: AtomicU64,
}
object!(Buffer, vk::Buffer);

pub unsafe extern "system" fn create_buffer(
    device: vk::Device,
    p_create_info: *const vk::BufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_buffer: *mut vk::Buffer,
) -> vk::Result {
    guard("vkCreateBuffer", || {
        // SAFETY: `device` is vkCreateBuffer's device parameter, which valid usage requires to be a
        // live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        // No memory object could hold it, and its aligned size would not fit 64 bits: the
        // spec's answer is an out-of-memory error (as Mesa's drivers give).
        if info.size > dev.heap_size() {
            eprintln!(
                "agx4: vkCreateBuffer: {} bytes is more than the {}-byte heap",
                info.size,
                dev.heap_size()
            );
            return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        }
        // Sparse binding is not advertised, so its flags cannot be honoured.
        if !info.flags.is_empty() {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        let buffer = Buffer {
            size: info.size,
            va: AtomicU64::new(0),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { buffer.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pBuffer is writable.
        unsafe { *p_buffer = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_buffer(
    _device: vk::Device,
    buffer: vk::Buffer,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    crate::entry::guard_or("vkDestroyBuffer", (), || {
        // SAFETY: Vulkan valid usage: `buffer` is VK_NULL_HANDLE or a live buffer made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Buffer::take(buffer) })
    })
}

/// What a buffer of `size` bytes needs.
fn requirements(size: u64) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: size.saturating_add(BUFFER_ALIGNMENT - 1) & !(BUFFER_ALIGNMENT - 1),
        alignment: BUFFER_ALIGNMENT,
        memory_type_bits: ALL_MEMORY_TYPES,
    }
}

pub unsafe extern "system" fn get_buffer_memory_requirements(
    _device: vk::Device,
    buffer: vk::Buffer,
    p_requirements: *mut vk::MemoryRequirements,
) {
    crate::entry::guard_or("vkGetBufferMemoryRequirements", (), || {
        // SAFETY: Vulkan valid usage: `buffer` is a live buffer made by this driver.
        let Some(buf) = (unsafe { Buffer::from_handle(buffer) }) else {
            return;
        };
        // SAFETY: valid usage: pMemoryRequirements is writable.
        unsafe { *p_requirements = requirements(buf.size) };
    })
}

pub unsafe extern "system" fn get_buffer_memory_requirements2(
    _device: vk::Device,
    p_info: *const vk::BufferMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    crate::entry::guard_or("vkGetBufferMemoryRequirements2", (), || {
        // SAFETY: valid usage: pInfo is valid, and its `buffer` a live buffer made by this driver.
        let Some(buf) = (unsafe { Buffer::from_handle((*p_info).buffer) }) else {
            return;
        };
        // SAFETY: valid usage: pMemoryRequirements is writable, with a valid pNext chain.
        unsafe { crate::memory::write_requirements2(p_requirements, requirements(buf.size)) };
    })
}

/// VkDeviceBufferMemoryRequirements (maintenance4): a buffer's needs depend on its size only.
pub unsafe extern "system" fn get_device_buffer_memory_requirements(
    _device: vk::Device,
    p_info: *const vk::DeviceBufferMemoryRequirements<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    crate::entry::guard_or("vkGetDeviceBufferMemoryRequirements", (), || {
        // SAFETY: valid usage: pInfo and its pCreateInfo are valid.
        let size = unsafe { (*(*p_info).p_create_info).size };
        // SAFETY: valid usage: pMemoryRequirements is writable, with a valid pNext chain.
        unsafe { crate::memory::write_requirements2(p_requirements, requirements(size)) };
    })
}

/// Binds `memory` at `offset` to `buffer`.
///
/// # Safety
/// `buffer` must be `VK_NULL_HANDLE` or a live buffer made by this driver, and `memory`
/// `VK_NULL_HANDLE` or a live memory object made by this driver; neither may be destroyed
/// during the call. The buffer and memory of vkBindBufferMemory, or of a vkBindBufferMemory2
/// bind info, are such handles (Vulkan valid usage).
unsafe fn bind(
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller: `buffer` is null or a live buffer made by this driver
    // that outlives the call.
    let buf = unsafe { Buffer::from_handle(buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: guaranteed by the caller: `memory` is null or a live memory object made by this
    // driver that outlives the call.
    let mem = unsafe { memory::get(memory) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // Valid usage guarantees this; checking keeps a bad call from reaching the GPU.
    if !offset.is_multiple_of(BUFFER_ALIGNMENT)
        || offset
            .checked_add(buf.size)
            .is_none_or(|end| end > mem.size)
    {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    buf.va.store(mem.va + offset, Ordering::Release);
    Ok(())
}

pub unsafe extern "system" fn bind_buffer_memory(
    device: vk::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    guard("vkBindBufferMemory", || {
        // SAFETY: `device` is vkBindBufferMemory's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: `buffer` and `memory` are vkBindBufferMemory's buffer and memory parameters,
        // which valid usage requires to be a live buffer and a live memory object made by this
        // driver.
        unsafe { bind(buffer, memory, offset) }
    })
}

/// vkBindBufferMemory2 (VK_KHR_bind_memory2). A device group's device indices can only name
/// the one device of agx4's groups.
pub unsafe extern "system" fn bind_buffer_memory2(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindBufferMemoryInfo<'_>,
) -> vk::Result {
    guard("vkBindBufferMemory2", || {
        // SAFETY: `device` is vkBindBufferMemory2's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pBindInfos holds `count` structures with valid pNext chains.
        for info in unsafe { handle::slice(p_infos, count) } {
            // SAFETY: as above.
            if let Some(g) = unsafe {
                handle::find_in_chain::<vk::BindBufferMemoryDeviceGroupInfo<'_>>(info.p_next)
            } {
                // SAFETY: valid usage: pDeviceIndices holds deviceIndexCount indices.
                if unsafe { handle::slice(g.p_device_indices, g.device_index_count) }
                    .iter()
                    .any(|&d| d != 0)
                {
                    return Err(vk::Result::ERROR_UNKNOWN);
                }
            }
            // SAFETY: `info.buffer` and `info.memory` are those of a vkBindBufferMemory2 bind
            // info, which valid usage requires to be a live buffer and a live memory object made
            // by this driver.
            unsafe { bind(info.buffer, info.memory, info.memory_offset) }?;
        }
        Ok(())
    })
}
