//! The Vulkan 1.3 copy commands (VK_KHR_copy_commands2): the same operations as their 1.0
//! forms, with regions that are extensible structures. No structure that may extend a region
//! is supported, so each region converts to its 1.0 form.

use super::{blit, image_transfer, transfer};
use crate::handle;
use ash::vk;

/// The regions of a *2 command, converted. Valid usage: `p` holds `count` structures.
unsafe fn regions<T, U>(p: *const T, count: u32, f: impl Fn(&T) -> U) -> Vec<U> {
    // SAFETY: guaranteed by the caller.
    unsafe { handle::slice(p, count) }.iter().map(f).collect()
}

pub unsafe extern "system" fn cmd_copy_buffer2(
    cb: vk::CommandBuffer,
    p_info: *const vk::CopyBufferInfo2<'_>,
) {
    // SAFETY: valid usage: pCopyBufferInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkBufferCopy2 structures.
    let r = unsafe {
        regions(i.p_regions, i.region_count, |r| vk::BufferCopy {
            src_offset: r.src_offset,
            dst_offset: r.dst_offset,
            size: r.size,
        })
    };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe { transfer::cmd_copy_buffer(cb, i.src_buffer, i.dst_buffer, r.len() as u32, r.as_ptr()) }
}

fn image_copy(r: &vk::ImageCopy2<'_>) -> vk::ImageCopy {
    vk::ImageCopy {
        src_subresource: r.src_subresource,
        src_offset: r.src_offset,
        dst_subresource: r.dst_subresource,
        dst_offset: r.dst_offset,
        extent: r.extent,
    }
}

pub unsafe extern "system" fn cmd_copy_image2(
    cb: vk::CommandBuffer,
    p_info: *const vk::CopyImageInfo2<'_>,
) {
    // SAFETY: valid usage: pCopyImageInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkImageCopy2 structures.
    let r = unsafe { regions(i.p_regions, i.region_count, image_copy) };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe {
        image_transfer::cmd_copy_image(
            cb,
            i.src_image,
            i.src_image_layout,
            i.dst_image,
            i.dst_image_layout,
            r.len() as u32,
            r.as_ptr(),
        )
    }
}

fn buffer_image_copy(r: &vk::BufferImageCopy2<'_>) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: r.buffer_offset,
        buffer_row_length: r.buffer_row_length,
        buffer_image_height: r.buffer_image_height,
        image_subresource: r.image_subresource,
        image_offset: r.image_offset,
        image_extent: r.image_extent,
    }
}

pub unsafe extern "system" fn cmd_copy_buffer_to_image2(
    cb: vk::CommandBuffer,
    p_info: *const vk::CopyBufferToImageInfo2<'_>,
) {
    // SAFETY: valid usage: pCopyBufferToImageInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkBufferImageCopy2 structures.
    let r = unsafe { regions(i.p_regions, i.region_count, buffer_image_copy) };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe {
        image_transfer::cmd_copy_buffer_to_image(
            cb,
            i.src_buffer,
            i.dst_image,
            i.dst_image_layout,
            r.len() as u32,
            r.as_ptr(),
        )
    }
}

pub unsafe extern "system" fn cmd_copy_image_to_buffer2(
    cb: vk::CommandBuffer,
    p_info: *const vk::CopyImageToBufferInfo2<'_>,
) {
    // SAFETY: valid usage: pCopyImageToBufferInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkBufferImageCopy2 structures.
    let r = unsafe { regions(i.p_regions, i.region_count, buffer_image_copy) };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe {
        image_transfer::cmd_copy_image_to_buffer(
            cb,
            i.src_image,
            i.src_image_layout,
            i.dst_buffer,
            r.len() as u32,
            r.as_ptr(),
        )
    }
}

pub unsafe extern "system" fn cmd_blit_image2(
    cb: vk::CommandBuffer,
    p_info: *const vk::BlitImageInfo2<'_>,
) {
    // SAFETY: valid usage: pBlitImageInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkImageBlit2 structures.
    let r = unsafe {
        regions(i.p_regions, i.region_count, |r| vk::ImageBlit {
            src_subresource: r.src_subresource,
            src_offsets: r.src_offsets,
            dst_subresource: r.dst_subresource,
            dst_offsets: r.dst_offsets,
        })
    };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe {
        blit::cmd_blit_image(
            cb,
            i.src_image,
            i.src_image_layout,
            i.dst_image,
            i.dst_image_layout,
            r.len() as u32,
            r.as_ptr(),
            i.filter,
        )
    }
}

pub unsafe extern "system" fn cmd_resolve_image2(
    cb: vk::CommandBuffer,
    p_info: *const vk::ResolveImageInfo2<'_>,
) {
    // SAFETY: valid usage: pResolveImageInfo is valid with regionCount regions.
    let i = unsafe { &*p_info };
    // SAFETY: valid usage: pRegions holds regionCount valid VkImageResolve2 structures.
    let r = unsafe {
        regions(i.p_regions, i.region_count, |r| vk::ImageResolve {
            src_subresource: r.src_subresource,
            src_offset: r.src_offset,
            dst_subresource: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
        })
    };
    // SAFETY: the converted regions are `r.len()` valid structures.
    unsafe {
        blit::cmd_resolve_image(
            cb,
            i.src_image,
            i.src_image_layout,
            i.dst_image,
            i.dst_image_layout,
            r.len() as u32,
            r.as_ptr(),
        )
    }
}
