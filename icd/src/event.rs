//! VkEvent: one word of GPU memory, written by the host or (through a fill) by the GPU.

use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use ash::vk;

pub const EVENT_RESET: u32 = 0;
pub const EVENT_SET: u32 = 1;

pub struct Event {
    /// Shared with the queue, which reads it to wait for the event (cmd_buffer::barrier).
    pub bo: std::sync::Arc<Bo>,
}
object!(Event, vk::Event);

impl Event {
    pub fn va(&self) -> u64 {
        self.bo.va
    }
}

pub unsafe extern "system" fn create_event(
    device: vk::Device,
    _p_create_info: *const vk::EventCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_event: *mut vk::Event,
) -> vk::Result {
    guard("vkCreateEvent", || {
        // SAFETY: `device` is vkCreateEvent's device parameter, which valid usage requires to be a
        // live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // Cached memory: the host polls it.
        let bo = Bo::new(dev, 4, Place::Heap, true)?;
        bo.write(0, &EVENT_RESET.to_le_bytes())?;
        let bo = std::sync::Arc::new(bo);
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { Event { bo }.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pEvent is writable.
        unsafe { *p_event = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_event(
    _device: vk::Device,
    event: vk::Event,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyEvent", (), || {
        // SAFETY: Vulkan valid usage: `event` is VK_NULL_HANDLE or a live event made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Event::take(event) })
    })
}

/// Writes `value` to an event's word, from the host.
///
/// # Safety
/// `device` must be `VK_NULL_HANDLE` or a live device made by this driver, and `event`
/// `VK_NULL_HANDLE` or a live event made by this driver; neither may be destroyed during the
/// call. The `device` and `event` of vkSetEvent or vkResetEvent are such handles (Vulkan valid
/// usage).
unsafe fn write(device: vk::Device, event: vk::Event, value: u32) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller: `device` is null or a live device made by this driver
    // that outlives the call.
    let dev = unsafe { Device::get(device) }?;
    if dev.is_lost() {
        return Err(vk::Result::ERROR_DEVICE_LOST);
    }
    // SAFETY: guaranteed by the caller: `event` is null or a live event made by this driver that
    // outlives the call.
    unsafe { Event::from_handle(event) }
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .bo
        .write(0, &value.to_le_bytes())
}

pub unsafe extern "system" fn set_event(device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkSetEvent", || {
        // SAFETY: `device` and `event` are vkSetEvent's device and event parameters, which valid
        // usage requires to be a live device made by this driver and a live event made from it.
        unsafe { write(device, event, EVENT_SET) }
    })
}

pub unsafe extern "system" fn reset_event(device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkResetEvent", || {
        // SAFETY: `device` and `event` are vkResetEvent's device and event parameters, which
        // valid usage requires to be a live device made by this driver and a live event made from
        // it.
        unsafe { write(device, event, EVENT_RESET) }
    })
}

pub unsafe extern "system" fn get_event_status(device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkGetEventStatus", || {
        // SAFETY: `device` is vkGetEventStatus's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        if dev.is_lost() {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // SAFETY: Vulkan valid usage: `event` is a live event made by this driver.
        let e = unsafe { Event::from_handle(event) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        match e.bo.read_u32(0)? {
            EVENT_RESET => Err(vk::Result::EVENT_RESET),
            _ => Err(vk::Result::EVENT_SET),
        }
    })
}
