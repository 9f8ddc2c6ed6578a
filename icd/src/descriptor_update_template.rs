//! VkDescriptorUpdateTemplate (VK_KHR_descriptor_update_template): a list of where in the
//! application's data each descriptor of an update sits. vkUpdateDescriptorSetWithTemplate
//! reads them and writes each one as vkUpdateDescriptorSets would.
//!
//! Templates of type PUSH_DESCRIPTORS (VK_KHR_push_descriptor) are applied by
//! vkCmdPushDescriptorSetWithTemplateKHR (cmd_buffer/push_descriptor.rs). Descriptor types are
//! those layouts accept (descriptor_set_layout.rs); an inline uniform block entry is one run of
//! bytes.

use crate::descriptor_pool::{self, DescriptorSet, SetMemory};
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;

pub struct DescriptorUpdateTemplate {
    entries: Vec<vk::DescriptorUpdateTemplateEntry>,
    /// For push descriptor templates: the bind point, pipeline layout and set they push.
    pub push: Option<(vk::PipelineBindPoint, vk::PipelineLayout, u32)>,
}

impl DescriptorUpdateTemplate {
    /// Writes every descriptor the template names, read from `data`, into `set`.
    ///
    /// # Safety
    /// `data` must hold every descriptor the template names.
    pub unsafe fn apply(&self, set: &impl SetMemory, data: *const u8) -> Result<(), vk::Result> {
        for entry in &self.entries {
            if entry.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK {
                // One run of bytes: dstArrayElement is a byte offset, descriptorCount a byte
                // count, and the stride is ignored.
                // SAFETY: guaranteed by the caller: the bytes are at `offset`.
                let bytes =
                    unsafe { handle::slice(data.add(entry.offset), entry.descriptor_count) };
                descriptor_pool::write_inline(
                    set,
                    entry.dst_binding,
                    entry.dst_array_element,
                    bytes,
                )?;
                continue;
            }
            for i in 0..entry.descriptor_count {
                // SAFETY: guaranteed by the caller.
                unsafe { write_one(set, entry, i, data) }?;
            }
        }
        Ok(())
    }
}
object!(DescriptorUpdateTemplate, vk::DescriptorUpdateTemplate);

pub unsafe extern "system" fn create_descriptor_update_template(
    device: vk::Device,
    p_create_info: *const vk::DescriptorUpdateTemplateCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_template: *mut vk::DescriptorUpdateTemplate,
) -> vk::Result {
    guard("vkCreateDescriptorUpdateTemplate", || {
        // SAFETY: `device` is vkCreateDescriptorUpdateTemplate's device parameter, which valid
        // usage requires to be a live device made by this driver.
        unsafe { crate::device::Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let push = match info.template_type {
            vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET => None,
            vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR => {
                Some((info.pipeline_bind_point, info.pipeline_layout, info.set))
            }
            t => {
                // The command may only fail with out-of-memory codes.
                eprintln!(
                    "agx4: vkCreateDescriptorUpdateTemplate: template type {t:?} is not \
                     supported; returning VK_ERROR_OUT_OF_HOST_MEMORY"
                );
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            }
        };
        // SAFETY: valid usage: pDescriptorUpdateEntries holds descriptorUpdateEntryCount entries.
        let entries = unsafe {
            handle::slice(
                info.p_descriptor_update_entries,
                info.descriptor_update_entry_count,
            )
        }
        .to_vec();
        let template = DescriptorUpdateTemplate { entries, push };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { template.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pDescriptorUpdateTemplate is writable.
        unsafe { *p_template = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_descriptor_update_template(
    _device: vk::Device,
    template: vk::DescriptorUpdateTemplate,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyDescriptorUpdateTemplate", (), || {
        // SAFETY: Vulkan valid usage: `descriptorUpdateTemplate` is VK_NULL_HANDLE or a live
        // template made by this driver, and this destroy command is its last use.
        drop(unsafe { DescriptorUpdateTemplate::take(template) })
    })
}

/// Writes descriptor `i` of `entry`, read from the application's `data`.
///
/// # Safety
/// `data` must hold the structure the entry's type names at `offset + i * stride`, valid as
/// a descriptor write of that type for `set` (its handles VK_NULL_HANDLE or live objects
/// made by this driver).
unsafe fn write_one(
    set: &impl SetMemory,
    entry: &vk::DescriptorUpdateTemplateEntry,
    i: u32,
    data: *const u8,
) -> Result<(), vk::Result> {
    use vk::DescriptorType as T;
    let at = entry
        .offset
        .checked_add(i as usize * entry.stride)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: guaranteed by the caller; the application's data need not be aligned.
    let p = unsafe { data.add(at) };
    let mut w = vk::WriteDescriptorSet {
        dst_binding: entry.dst_binding,
        dst_array_element: entry.dst_array_element + i,
        descriptor_count: 1,
        descriptor_type: entry.descriptor_type,
        ..Default::default()
    };
    match entry.descriptor_type {
        T::SAMPLER
        | T::COMBINED_IMAGE_SAMPLER
        | T::SAMPLED_IMAGE
        | T::STORAGE_IMAGE
        | T::INPUT_ATTACHMENT => {
            // SAFETY: as above: a VkDescriptorImageInfo is there.
            let info = unsafe { std::ptr::read_unaligned(p as *const vk::DescriptorImageInfo) };
            w.p_image_info = &info;
            // SAFETY: guaranteed by the caller: `w` is a valid write for `set`.
            unsafe { descriptor_pool::write(set, &w) }
        }
        T::STORAGE_BUFFER
        | T::UNIFORM_BUFFER
        | T::STORAGE_BUFFER_DYNAMIC
        | T::UNIFORM_BUFFER_DYNAMIC => {
            // SAFETY: as above: a VkDescriptorBufferInfo is there.
            let info = unsafe { std::ptr::read_unaligned(p as *const vk::DescriptorBufferInfo) };
            w.p_buffer_info = &info;
            // SAFETY: guaranteed by the caller: `w` is a valid write for `set`.
            unsafe { descriptor_pool::write(set, &w) }
        }
        T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => {
            // SAFETY: as above: a VkBufferView is there.
            let view = unsafe { std::ptr::read_unaligned(p as *const vk::BufferView) };
            w.p_texel_buffer_view = &view;
            // SAFETY: guaranteed by the caller: `w` is a valid write for `set`.
            unsafe { descriptor_pool::write(set, &w) }
        }
        _ => Err(vk::Result::ERROR_FEATURE_NOT_PRESENT),
    }
}

pub unsafe extern "system" fn update_descriptor_set_with_template(
    _device: vk::Device,
    set: vk::DescriptorSet,
    template: vk::DescriptorUpdateTemplate,
    p_data: *const std::ffi::c_void,
) {
    guard_or("vkUpdateDescriptorSetWithTemplate", (), || {
        // SAFETY: Vulkan valid usage: `descriptorSet` and `descriptorUpdateTemplate` are a live
        // descriptor set and template made by this driver.
        let (set, t) = unsafe {
            (
                DescriptorSet::from_handle(set),
                DescriptorUpdateTemplate::from_handle(template),
            )
        };
        let (Some(set), Some(t)) = (set, t) else {
            return;
        };
        // SAFETY: valid usage: pData holds every descriptor the template names.
        if let Err(e) = unsafe { t.apply(set, p_data as *const u8) } {
            eprintln!("agx4: vkUpdateDescriptorSetWithTemplate: a write failed ({e:?})");
        }
    })
}
