//! Buffer device addresses (Vulkan 1.2, VK_KHR_buffer_device_address). Every memory object is
//! bound at a fixed GPU address for its lifetime and a bound buffer sits at an offset in it,
//! so a buffer's device address is simply where it was bound: no allocation flag changes
//! anything, and shaders reach it through physical storage buffer pointers.
//!
//! Capture and replay is not offered: the VA allocator places memory first fit and cannot
//! promise an address again, so the opaque capture addresses say nothing (0 for buffers,
//! whose addresses come from their memory; the memory's own address for memory objects, which
//! valid usage only lets an application read with the capture-replay feature).

use ash::vk;
use std::sync::atomic::Ordering;

use crate::buffer::Buffer;
use crate::entry::guard_or;
use crate::handle::Object;

/// vkGetBufferDeviceAddress: the address the buffer was bound at.
pub unsafe extern "system" fn get_buffer_device_address(
    _device: vk::Device,
    p_info: *const vk::BufferDeviceAddressInfo<'_>,
) -> vk::DeviceAddress {
    guard_or("vkGetBufferDeviceAddress", 0, || {
        // SAFETY: valid usage: pInfo points to a valid structure.
        let info = unsafe { &*p_info };
        // SAFETY: Vulkan valid usage: `info.buffer` is a live buffer made by this driver.
        unsafe { Buffer::from_handle(info.buffer) }.map_or(0, |b| b.va.load(Ordering::Acquire))
    })
}

/// vkGetBufferOpaqueCaptureAddress: buffers reserve no address of their own.
pub unsafe extern "system" fn get_buffer_opaque_capture_address(
    _device: vk::Device,
    _p_info: *const vk::BufferDeviceAddressInfo<'_>,
) -> u64 {
    0
}

/// vkGetDeviceMemoryOpaqueCaptureAddress: the memory's GPU address.
pub unsafe extern "system" fn get_device_memory_opaque_capture_address(
    _device: vk::Device,
    p_info: *const vk::DeviceMemoryOpaqueCaptureAddressInfo<'_>,
) -> u64 {
    guard_or("vkGetDeviceMemoryOpaqueCaptureAddress", 0, || {
        // SAFETY: valid usage: pInfo points to a valid structure.
        let info = unsafe { &*p_info };
        // SAFETY: `info.memory` is the memory of vkGetDeviceMemoryOpaqueCaptureAddress's info,
        // which valid usage requires to be a live memory object made by this driver.
        unsafe { crate::memory::get(info.memory) }.map_or(0, |m| m.va)
    })
}
