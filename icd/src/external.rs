//! What agx4 can share with other APIs and processes (Vulkan 1.1 external memory, fences and
//! semaphores). No handle type is exportable or importable yet, so every query answers with
//! no features and no compatible types.

use crate::entry::guard_or;
use ash::vk;

pub unsafe extern "system" fn get_external_buffer_properties(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
    p_properties: *mut vk::ExternalBufferProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalBufferProperties", (), || {
        // SAFETY: valid usage: pExternalBufferProperties is writable.
        unsafe {
            (*p_properties).external_memory_properties = vk::ExternalMemoryProperties::default()
        };
    })
}

pub unsafe extern "system" fn get_external_fence_properties(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_properties: *mut vk::ExternalFenceProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalFenceProperties", (), || {
        // SAFETY: valid usage: pExternalFenceProperties is writable.
        unsafe {
            let p = &mut *p_properties;
            p.export_from_imported_handle_types = vk::ExternalFenceHandleTypeFlags::empty();
            p.compatible_handle_types = vk::ExternalFenceHandleTypeFlags::empty();
            p.external_fence_features = vk::ExternalFenceFeatureFlags::empty();
        }
    })
}

pub unsafe extern "system" fn get_external_semaphore_properties(
    _physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_properties: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalSemaphoreProperties", (), || {
        // SAFETY: valid usage: pExternalSemaphoreProperties is writable.
        unsafe {
            let p = &mut *p_properties;
            p.export_from_imported_handle_types = vk::ExternalSemaphoreHandleTypeFlags::empty();
            p.compatible_handle_types = vk::ExternalSemaphoreHandleTypeFlags::empty();
            p.external_semaphore_features = vk::ExternalSemaphoreFeatureFlags::empty();
        }
    })
}
