//! VkPipelineLayout: the sets and push constants, as the compiler's ResourceLayout.

use crate::descriptor_set_layout::DescriptorSetLayout;
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;
use compiler::abi::{MAX_PUSH_CONSTANTS_SIZE, MAX_SETS};

pub struct PipelineLayout {
    pub resources: compiler::ResourceLayout,
    /// The set layouts, by set number (push descriptors are laid out by them).
    pub set_layouts: Vec<Option<std::sync::Arc<crate::descriptor_set_layout::SetLayoutInfo>>>,
}
object!(PipelineLayout, vk::PipelineLayout);

pub unsafe extern "system" fn create_pipeline_layout(
    device: vk::Device,
    p_create_info: *const vk::PipelineLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_layout: *mut vk::PipelineLayout,
) -> vk::Result {
    guard("vkCreatePipelineLayout", || {
        // SAFETY: `device` is vkCreatePipelineLayout's device parameter, which valid usage requires
        // to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo is valid and its arrays hold their counts.
        let (sets, ranges) = unsafe {
            let info = &*p_create_info;
            (
                handle::slice(info.p_set_layouts, info.set_layout_count),
                handle::slice(info.p_push_constant_ranges, info.push_constant_range_count),
            )
        };
        // The limits report MAX_SETS and MAX_PUSH_CONSTANTS_SIZE; valid usage keeps to them.
        if sets.len() > MAX_SETS as usize {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        let push_constant_size = ranges
            .iter()
            .map(|r| r.offset.saturating_add(r.size))
            .max()
            .unwrap_or(0);
        if push_constant_size > MAX_PUSH_CONSTANTS_SIZE {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        let set_layouts: Vec<_> = sets
            .iter()
            // SAFETY: Vulkan valid usage: each of `pSetLayouts` is VK_NULL_HANDLE or a live
            // descriptor set layout made by this driver.
            .map(|&s| unsafe { DescriptorSetLayout::from_handle(s) }.map(|l| l.info.clone()))
            .collect();
        let sets = set_layouts
            .iter()
            .map(|l| l.as_ref().map(|l| l.to_compiler()))
            .collect();
        let resources = compiler::ResourceLayout {
            sets,
            push_constant_size,
            buffer_robustness: dev.buffer_robustness,
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe {
            PipelineLayout {
                resources,
                set_layouts,
            }
            .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
        }?;
        // SAFETY: valid usage: pPipelineLayout is writable.
        unsafe { *p_layout = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_pipeline_layout(
    _device: vk::Device,
    layout: vk::PipelineLayout,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyPipelineLayout", (), || {
        // SAFETY: Vulkan valid usage: `layout` is VK_NULL_HANDLE or a live pipeline layout made
        // by this driver, and this destroy command is its last use.
        drop(unsafe { PipelineLayout::take(layout) })
    })
}
