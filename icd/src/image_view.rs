//! VkImageView: the image, view type, format and subresource range, kept for the descriptor
//! and attachment work that will read them.

use crate::entry::{guard, guard_or};
use crate::handle::{object, Object};
use crate::image::Image;
use ash::vk;

// Read by descriptors and attachments once graphics lands.
#[allow(dead_code)]
pub struct ImageView {
    pub image: vk::Image,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub components: vk::ComponentMapping,
    pub range: vk::ImageSubresourceRange,
}
object!(ImageView, vk::ImageView);

pub unsafe extern "system" fn create_image_view(
    device: vk::Device,
    p_create_info: *const vk::ImageViewCreateInfo<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::ImageView,
) -> vk::Result {
    guard("vkCreateImageView", || {
        crate::device::Device::get(device)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let image = Image::from_handle(info.image).ok_or(vk::Result::ERROR_UNKNOWN)?;
        let r = info.subresource_range;
        let levels = if r.level_count == vk::REMAINING_MIP_LEVELS { image.levels.saturating_sub(r.base_mip_level) } else { r.level_count };
        let layers = if r.layer_count == vk::REMAINING_ARRAY_LAYERS { image.layers.saturating_sub(r.base_array_layer) } else { r.layer_count };
        if crate::format::get(info.format).is_none() || r.base_mip_level + levels > image.levels || r.base_array_layer + layers > image.layers {
            return Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
        }
        let view = ImageView {
            image: info.image,
            view_type: info.view_type,
            format: info.format,
            components: info.components,
            range: vk::ImageSubresourceRange { level_count: levels, layer_count: layers, ..r },
        };
        // SAFETY: valid usage: pView is writable.
        unsafe { *p_view = view.into_handle() };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_image_view(_device: vk::Device, view: vk::ImageView, _p_allocator: *const vk::AllocationCallbacks<'_>) {
    guard_or("vkDestroyImageView", (), || drop(ImageView::take(view)))
}
