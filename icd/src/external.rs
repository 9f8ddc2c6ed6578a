//! What agx4 can share with other APIs, devices and processes (Vulkan 1.1 external memory,
//! fences and semaphores, by file descriptor).
//!
//! Memory goes out and comes in as a dma-buf (DRM PRIME): OPAQUE_FD and DMA_BUF are the same
//! fd here, so each can be exported from memory imported as the other. A dma-buf carries no
//! layout, so images other than linear ones are offered only as OPAQUE_FD, whose importer is
//! another agx4 device with the same driver UUID and so lays the image out the same way.
//! Semaphores and fences are DRM syncobjs: OPAQUE_FD is a syncobj fd (shared payload), SYNC_FD
//! a sync file (a copy of the current fence). A timeline semaphore has no sync file form.

use crate::entry::guard_or;
use crate::handle;
use ash::vk;

/// Memory handle types agx4 exports and imports.
pub const MEMORY_HANDLE_TYPES: vk::ExternalMemoryHandleTypeFlags =
    vk::ExternalMemoryHandleTypeFlags::from_raw(
        vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD.as_raw()
            | vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT.as_raw(),
    );

/// The answer for memory shared as `ty`; everything zero for a type agx4 does not handle.
pub fn memory_properties(ty: vk::ExternalMemoryHandleTypeFlags) -> vk::ExternalMemoryProperties {
    if ty.is_empty() || !MEMORY_HANDLE_TYPES.contains(ty) {
        return vk::ExternalMemoryProperties::default();
    }
    vk::ExternalMemoryProperties {
        external_memory_features: vk::ExternalMemoryFeatureFlags::EXPORTABLE
            | vk::ExternalMemoryFeatureFlags::IMPORTABLE,
        export_from_imported_handle_types: MEMORY_HANDLE_TYPES,
        compatible_handle_types: MEMORY_HANDLE_TYPES,
    }
}

/// The answer for an image of `tiling` shared as `ty`, or `None` if that cannot be shared.
pub fn image_memory_properties(
    ty: vk::ExternalMemoryHandleTypeFlags,
    tiling: vk::ImageTiling,
) -> Option<vk::ExternalMemoryProperties> {
    let p = memory_properties(ty);
    if p.external_memory_features.is_empty() {
        return None;
    }
    if tiling == vk::ImageTiling::LINEAR {
        return Some(p);
    }
    // An optimally tiled image travels only as OPAQUE_FD (see the module comment).
    (ty == vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD).then_some(vk::ExternalMemoryProperties {
        export_from_imported_handle_types: ty,
        compatible_handle_types: ty,
        ..p
    })
}

const SYNC_TYPES: vk::ExternalSemaphoreHandleTypeFlags =
    vk::ExternalSemaphoreHandleTypeFlags::from_raw(
        vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD.as_raw()
            | vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD.as_raw(),
    );

/// The semaphore handle types a semaphore of this kind can use.
pub fn semaphore_types(timeline: bool) -> vk::ExternalSemaphoreHandleTypeFlags {
    if timeline {
        vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD
    } else {
        SYNC_TYPES
    }
}

/// The fence handle types: a fence is a binary syncobj.
pub const FENCE_TYPES: vk::ExternalFenceHandleTypeFlags =
    vk::ExternalFenceHandleTypeFlags::from_raw(
        vk::ExternalFenceHandleTypeFlags::OPAQUE_FD.as_raw()
            | vk::ExternalFenceHandleTypeFlags::SYNC_FD.as_raw(),
    );

pub unsafe extern "system" fn get_external_buffer_properties(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
    p_properties: *mut vk::ExternalBufferProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalBufferProperties", (), || {
        // SAFETY: valid usage: pExternalBufferInfo is valid and pExternalBufferProperties is
        // writable.
        unsafe {
            (*p_properties).external_memory_properties = memory_properties((*p_info).handle_type)
        };
    })
}

pub unsafe extern "system" fn get_external_fence_properties(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
    p_properties: *mut vk::ExternalFenceProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalFenceProperties", (), || {
        // SAFETY: valid usage: pExternalFenceInfo is valid, pExternalFenceProperties writable.
        unsafe {
            let ty = (*p_info).handle_type;
            let ok = !ty.is_empty() && FENCE_TYPES.contains(ty);
            let p = &mut *p_properties;
            p.export_from_imported_handle_types = if ok { FENCE_TYPES } else { Default::default() };
            p.compatible_handle_types = p.export_from_imported_handle_types;
            p.external_fence_features = if ok {
                vk::ExternalFenceFeatureFlags::EXPORTABLE
                    | vk::ExternalFenceFeatureFlags::IMPORTABLE
            } else {
                vk::ExternalFenceFeatureFlags::empty()
            };
        }
    })
}

pub unsafe extern "system" fn get_external_semaphore_properties(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
    p_properties: *mut vk::ExternalSemaphoreProperties<'_>,
) {
    guard_or("vkGetPhysicalDeviceExternalSemaphoreProperties", (), || {
        // SAFETY: valid usage: pExternalSemaphoreInfo is valid with a valid pNext chain, and
        // pExternalSemaphoreProperties is writable.
        unsafe {
            let info = &*p_info;
            let timeline = handle::find_in_chain::<vk::SemaphoreTypeCreateInfo>(info.p_next)
                .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
            let types = semaphore_types(timeline);
            let ty = info.handle_type;
            let ok = !ty.is_empty() && types.contains(ty);
            let p = &mut *p_properties;
            p.export_from_imported_handle_types = if ok { types } else { Default::default() };
            p.compatible_handle_types = p.export_from_imported_handle_types;
            p.external_semaphore_features = if ok {
                vk::ExternalSemaphoreFeatureFlags::EXPORTABLE
                    | vk::ExternalSemaphoreFeatureFlags::IMPORTABLE
            } else {
                vk::ExternalSemaphoreFeatureFlags::empty()
            };
        }
    })
}
