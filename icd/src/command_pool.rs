//! VkCommandPool: owns its command buffers, so destroying or resetting it reaches them all.

use crate::cmd_buffer::CommandBuffer;
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;
use std::sync::Mutex;

pub struct CommandPool {
    buffers: Mutex<Vec<vk::CommandBuffer>>,
}
object!(CommandPool, vk::CommandPool);

impl CommandPool {
    fn buffers(&self) -> std::sync::MutexGuard<'_, Vec<vk::CommandBuffer>> {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub unsafe extern "system" fn create_command_pool(
    device: vk::Device,
    p_create_info: *const vk::CommandPoolCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pool: *mut vk::CommandPool,
) -> vk::Result {
    guard("vkCreateCommandPool", || {
        // SAFETY: `device` is vkCreateCommandPool's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid.
        let info = unsafe { &*p_create_info };
        if info.queue_family_index != 0
            || info.flags.contains(vk::CommandPoolCreateFlags::PROTECTED)
        {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        let pool = CommandPool {
            buffers: Mutex::new(Vec::new()),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { pool.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pCommandPool is writable.
        unsafe { *p_pool = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_command_pool(
    _device: vk::Device,
    pool: vk::CommandPool,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyCommandPool", (), || {
        // SAFETY: Vulkan valid usage: `commandPool` is VK_NULL_HANDLE or a live command pool
        // made by this driver, and this destroy command is its last use.
        if let Some(pool) = unsafe { CommandPool::take(pool) } {
            for cb in pool.buffers().drain(..) {
                // SAFETY: the pool's list holds its live command buffers, made by `into_handle`
                // when allocated and removed when freed; each is drained once, and valid usage
                // forbids using them once their pool is destroyed.
                drop(unsafe { CommandBuffer::take(cb) });
            }
        }
    })
}

pub unsafe extern "system" fn reset_command_pool(
    _device: vk::Device,
    pool: vk::CommandPool,
    _flags: vk::CommandPoolResetFlags,
) -> vk::Result {
    guard("vkResetCommandPool", || {
        // SAFETY: Vulkan valid usage: `commandPool` is a live command pool made by this driver.
        let pool = unsafe { CommandPool::from_handle(pool) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        for &cb in pool.buffers().iter() {
            // SAFETY: the pool's list holds its live command buffers (made when allocated,
            // removed when freed), and the list stays locked meanwhile.
            if let Some(cb) = unsafe { CommandBuffer::from_handle(cb) } {
                cb.lock()?.reset();
            }
        }
        Ok(())
    })
}

/// vkTrimCommandPool (VK_KHR_maintenance1): a pool keeps no memory of its own beyond its
/// command buffers' recordings, so there is nothing to return.
pub unsafe extern "system" fn trim_command_pool(
    _device: vk::Device,
    _pool: vk::CommandPool,
    _flags: vk::CommandPoolTrimFlags,
) {
}

pub unsafe extern "system" fn allocate_command_buffers(
    device: vk::Device,
    p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
    p_buffers: *mut vk::CommandBuffer,
) -> vk::Result {
    guard("vkAllocateCommandBuffers", || {
        // SAFETY: `device` is vkAllocateCommandBuffers's device parameter, which valid usage
        // requires to be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pAllocateInfo is valid; pCommandBuffers has room for the count.
        let info = unsafe { &*p_allocate_info };
        // SAFETY: as above.
        let out = unsafe {
            std::slice::from_raw_parts_mut(p_buffers, info.command_buffer_count as usize)
        };
        // SAFETY: Vulkan valid usage: `info.command_pool` is a live command pool made by this
        // driver.
        let pool = unsafe { CommandPool::from_handle(info.command_pool) }
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut list = pool.buffers();
        for slot in out.iter_mut() {
            let cb = CommandBuffer::new(device, info.level).into_handle();
            list.push(cb);
            *slot = cb;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn free_command_buffers(
    _device: vk::Device,
    pool: vk::CommandPool,
    count: u32,
    p_buffers: *const vk::CommandBuffer,
) {
    guard_or("vkFreeCommandBuffers", (), || {
        // SAFETY: Vulkan valid usage: `commandPool` is a live command pool made by this driver.
        let Some(pool) = (unsafe { CommandPool::from_handle(pool) }) else {
            return;
        };
        // SAFETY: valid usage: pCommandBuffers holds `count` handles (some may be null).
        let buffers = unsafe { handle::slice(p_buffers, count) };
        let mut list = pool.buffers();
        for &cb in buffers.iter().filter(|b| **b != vk::CommandBuffer::null()) {
            list.retain(|&x| x != cb);
            // SAFETY: Vulkan valid usage: each non-null entry of `pCommandBuffers` is a live
            // command buffer of this pool, made by this driver, and this free command is its
            // last use (it is no longer in the pool's list either).
            drop(unsafe { CommandBuffer::take(cb) });
        }
    })
}
