//! VkPrivateDataSlot (Vulkan 1.3): a 64-bit value per object, kept in the slot itself.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use ash::vk;
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct PrivateDataSlot {
    /// Values by (object type, object handle); objects never set read as 0.
    values: Mutex<HashMap<(i32, u64), u64>>,
}
object!(PrivateDataSlot, vk::PrivateDataSlot);

pub unsafe extern "system" fn create_private_data_slot(
    device: vk::Device,
    _p_create_info: *const vk::PrivateDataSlotCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_slot: *mut vk::PrivateDataSlot,
) -> vk::Result {
    guard("vkCreatePrivateDataSlot", || {
        // SAFETY: `device` is vkCreatePrivateDataSlot's device parameter, which valid usage
        // requires to be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            PrivateDataSlot::default()
                .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
        }?;
        // SAFETY: valid usage: pPrivateDataSlot is writable.
        unsafe { *p_slot = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_private_data_slot(
    _device: vk::Device,
    slot: vk::PrivateDataSlot,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyPrivateDataSlot", (), || {
        // SAFETY: Vulkan valid usage: `privateDataSlot` is VK_NULL_HANDLE or a live slot made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { PrivateDataSlot::take(slot) })
    })
}

pub unsafe extern "system" fn set_private_data(
    _device: vk::Device,
    object_type: vk::ObjectType,
    object_handle: u64,
    slot: vk::PrivateDataSlot,
    data: u64,
) -> vk::Result {
    guard("vkSetPrivateData", || {
        // SAFETY: Vulkan valid usage: `privateDataSlot` is a live slot made by this driver.
        let slot =
            unsafe { PrivateDataSlot::from_handle(slot) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let mut values = slot.values.lock().map_err(|_| vk::Result::ERROR_UNKNOWN)?;
        values
            .try_reserve(1)
            .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        values.insert((object_type.as_raw(), object_handle), data);
        Ok(())
    })
}

pub unsafe extern "system" fn get_private_data(
    _device: vk::Device,
    object_type: vk::ObjectType,
    object_handle: u64,
    slot: vk::PrivateDataSlot,
    p_data: *mut u64,
) {
    guard_or("vkGetPrivateData", (), || {
        // SAFETY: Vulkan valid usage: `privateDataSlot` is a live slot made by this driver.
        let value = unsafe { PrivateDataSlot::from_handle(slot) }
            .and_then(|s| {
                let values = s.values.lock().ok()?;
                values.get(&(object_type.as_raw(), object_handle)).copied()
            })
            .unwrap_or(0);
        // SAFETY: valid usage: pData is writable.
        unsafe { *p_data = value };
    })
}
