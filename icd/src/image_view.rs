//! VkImageView: the image, view type, format, usage and subresource range, kept for the
//! descriptor and attachment work that reads them.
//!
//! A view's format is the image's unless the image is MUTABLE_FORMAT, when any format of its
//! compatibility class (narrowed by the image's VkImageFormatListCreateInfo) may be used;
//! attachments are rendered in the view's format. CUBE views take six layers of a
//! cube-compatible image. CUBE_ARRAY views need the imageCubeArray feature, which agx4 does not
//! offer, so they are refused.

use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::image::{Image, CUBE_FACES};
use ash::vk;

// Read by descriptors and attachments once graphics lands.
#[allow(dead_code)]
pub struct ImageView {
    pub image: vk::Image,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub components: vk::ComponentMapping,
    pub range: vk::ImageSubresourceRange,
    /// The image's usage, or the subset a VkImageViewUsageCreateInfo restricts the view to.
    pub usage: vk::ImageUsageFlags,
}
object!(ImageView, vk::ImageView);

/// Usages that make a view an attachment, which its format must then support.
const ATTACHMENT_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::INPUT_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw(),
);

/// The view `info` asks for, with its level and layer counts resolved, or why agx4 refuses it.
fn check(info: &vk::ImageViewCreateInfo<'_>, image: &Image) -> Result<ImageView, String> {
    let r = info.subresource_range;
    let levels = if r.level_count == vk::REMAINING_MIP_LEVELS {
        image.levels.saturating_sub(r.base_mip_level)
    } else {
        r.level_count
    };
    // A 2D or 2D array view of a 3D image (2D_ARRAY_COMPATIBLE) takes depth slices of one
    // level as its layers.
    let slices = image.is_3d()
        && matches!(
            info.view_type,
            vk::ImageViewType::TYPE_2D | vk::ImageViewType::TYPE_2D_ARRAY
        );
    let image_layers = if slices {
        if !image
            .flags
            .contains(vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE)
        {
            return Err("a 2D view of a 3D image that is not 2D_ARRAY_COMPATIBLE".into());
        }
        if levels != 1 {
            return Err(format!("a 2D view of {levels} levels of a 3D image"));
        }
        (image.extent.depth >> r.base_mip_level).max(1)
    } else {
        image.layers
    };
    let layers = if r.layer_count == vk::REMAINING_ARRAY_LAYERS {
        image_layers.saturating_sub(r.base_array_layer)
    } else {
        r.layer_count
    };
    if crate::format::get(info.format).is_none() {
        return Err(format!("format {:?} is not supported", info.format));
    }
    if levels == 0
        || layers == 0
        || r.base_mip_level
            .checked_add(levels)
            .is_none_or(|end| end > image.levels)
        || r.base_array_layer
            .checked_add(layers)
            .is_none_or(|end| end > image_layers)
    {
        return Err(format!(
            "levels {}+{levels} and layers {}+{layers} are outside the image's {} and {}",
            r.base_mip_level, r.base_array_layer, image.levels, image_layers
        ));
    }
    if info.format != image.vk_format {
        if !image.flags.contains(vk::ImageCreateFlags::MUTABLE_FORMAT) {
            return Err(format!(
                "format {:?} differs from the image's {:?}, which is not MUTABLE_FORMAT",
                info.format, image.vk_format
            ));
        }
        if !crate::format::view_compatible(image.vk_format, info.format) {
            return Err(format!(
                "format {:?} is not in the compatibility class of the image's {:?}",
                info.format, image.vk_format
            ));
        }
    }
    if !image.view_formats.is_empty() && !image.view_formats.contains(&info.format) {
        return Err(format!(
            "format {:?} is not in the image's format list",
            info.format
        ));
    }
    match info.view_type {
        vk::ImageViewType::CUBE => {
            if !image.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE) {
                return Err("a cube view of an image that is not CUBE_COMPATIBLE".into());
            }
            if layers != CUBE_FACES {
                return Err(format!(
                    "a cube view of {layers} layers (it takes {CUBE_FACES})"
                ));
            }
        }
        vk::ImageViewType::CUBE_ARRAY => {
            return Err(
                "cube array views need the imageCubeArray feature, which agx4 does not offer"
                    .into(),
            )
        }
        _ => {}
    }
    // SAFETY: valid usage: the pNext chain is valid.
    let usage =
        match unsafe { handle::find_in_chain::<vk::ImageViewUsageCreateInfo<'_>>(info.p_next) } {
            Some(u) if u.usage.is_empty() || !image.usage.contains(u.usage) => {
                return Err(format!(
                    "view usage {:?} is not a non-empty subset of the image's {:?}",
                    u.usage, image.usage
                ));
            }
            Some(u) => u.usage,
            None => image.usage,
        };
    // A view in another format than the image's must itself support the attachment usages it
    // keeps: rendering goes through the view's format.
    let attachment = usage & ATTACHMENT_USAGE;
    if info.format != image.vk_format
        && !crate::image::supported_usage(info.format, vk::ImageTiling::OPTIMAL)
            .contains(attachment)
    {
        return Err(format!(
            "format {:?} does not support the view's usage {attachment:?}",
            info.format
        ));
    }
    Ok(ImageView {
        image: info.image,
        view_type: info.view_type,
        format: info.format,
        components: info.components,
        range: vk::ImageSubresourceRange {
            level_count: levels,
            layer_count: layers,
            ..r
        },
        usage,
    })
}

pub unsafe extern "system" fn create_image_view(
    device: vk::Device,
    p_create_info: *const vk::ImageViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::ImageView,
) -> vk::Result {
    guard("vkCreateImageView", || {
        crate::device::Device::get(device)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let image = Image::from_handle(info.image).ok_or(vk::Result::ERROR_UNKNOWN)?;
        // Invalid create info is undefined behaviour, and the command may only fail with
        // out-of-memory codes: the least surprising of them, with the reason on stderr.
        let view = check(info, image).map_err(|why| {
            eprintln!("agx4: vkCreateImageView: {why}; returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { view.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pView is writable.
        unsafe { *p_view = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_image_view(
    _device: vk::Device,
    view: vk::ImageView,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyImageView", (), || drop(ImageView::take(view)))
}
