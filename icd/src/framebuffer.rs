//! VkFramebuffer: the image views a render pass's attachments are bound to, and the size the
//! render command's framebuffer fields will carry.
//!
//! As with render passes, invalid create info is undefined behaviour and the command may only
//! fail with out-of-memory codes; what later code would index or dereference (the attachment
//! count against the render pass, null views, sizes outside the reported limits) is refused
//! with VK_ERROR_OUT_OF_HOST_MEMORY and a stderr message.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::image_view::ImageView;
use crate::render_pass::RenderPass;
use ash::vk;

/// The limits the device reports (`maxFramebufferWidth/Height/Layers`).
pub const MAX_WIDTH: u32 = 16384;
pub const MAX_HEIGHT: u32 = 16384;
pub const MAX_LAYERS: u32 = 2048;

// Read at render pass begin once graphics lands.
#[allow(dead_code)]
#[derive(Debug)]
pub struct Framebuffer {
    /// One view per attachment of the render pass it was made for, in attachment order.
    pub attachments: Vec<vk::ImageView>,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
}
object!(Framebuffer, vk::Framebuffer);

fn check(info: &vk::FramebufferCreateInfo<'_>, views: &[vk::ImageView]) -> Result<(), String> {
    if !info.flags.is_empty() {
        // Imageless framebuffers come from an extension (core in 1.2) agx4 does not offer.
        return Err(format!("flags {:?} are not supported", info.flags));
    }
    let pass = RenderPass::from_handle(info.render_pass).ok_or("renderPass is VK_NULL_HANDLE")?;
    if views.len() != pass.attachments.len() {
        return Err(format!("{} attachments for a render pass with {}", views.len(), pass.attachments.len()));
    }
    if let Some(i) = views.iter().position(|&v| ImageView::from_handle(v).is_none()) {
        return Err(format!("attachment {i} is VK_NULL_HANDLE"));
    }
    let in_range = |v: u32, max: u32| (1..=max).contains(&v);
    if !in_range(info.width, MAX_WIDTH) || !in_range(info.height, MAX_HEIGHT) || !in_range(info.layers, MAX_LAYERS) {
        return Err(format!("size {}x{}x{} is outside 1..={MAX_WIDTH}x{MAX_HEIGHT}x{MAX_LAYERS}", info.width, info.height, info.layers));
    }
    Ok(())
}

pub unsafe extern "system" fn create_framebuffer(
    device: vk::Device,
    p_create_info: *const vk::FramebufferCreateInfo<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_framebuffer: *mut vk::Framebuffer,
) -> vk::Result {
    guard("vkCreateFramebuffer", || {
        Device::get(device)?;
        // SAFETY: valid usage: pCreateInfo is valid and pAttachments holds attachmentCount views.
        let info = unsafe { &*p_create_info };
        // SAFETY: as above.
        let views = unsafe { handle::slice(info.p_attachments, info.attachment_count) };
        check(info, views).map_err(|why| {
            eprintln!("agx4: vkCreateFramebuffer: invalid create info ({why}); returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        let fb = Framebuffer { attachments: views.to_vec(), width: info.width, height: info.height, layers: info.layers };
        // SAFETY: valid usage: pFramebuffer is writable.
        unsafe { *p_framebuffer = fb.into_handle() };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_framebuffer(_device: vk::Device, fb: vk::Framebuffer, _p_allocator: *const vk::AllocationCallbacks<'_>) {
    guard_or("vkDestroyFramebuffer", (), || drop(Framebuffer::take(fb)))
}
