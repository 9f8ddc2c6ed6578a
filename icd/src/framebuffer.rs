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

#[derive(Clone, Debug)]
pub struct Framebuffer {
    /// One view per attachment of the render pass it was made for, in attachment order;
    /// empty for an imageless framebuffer, whose views come with each render pass begin.
    pub attachments: Vec<vk::ImageView>,
    /// VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT.
    pub imageless: bool,
    /// The render pass's attachment count.
    pub attachment_count: usize,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
}
object!(Framebuffer, vk::Framebuffer);

/// Checks a create info and returns the render pass's attachment count.
///
/// # Safety
/// `info.render_pass` must be `VK_NULL_HANDLE` or a live render pass made by this driver,
/// `info`'s pNext chain null or a valid chain of Vulkan structures, and each of `views`
/// `VK_NULL_HANDLE` or a live image view made by this driver; none may be destroyed during the
/// call. vkCreateFramebuffer's create info and its pAttachments are such (Vulkan valid usage).
unsafe fn check(
    info: &vk::FramebufferCreateInfo<'_>,
    views: &[vk::ImageView],
) -> Result<usize, String> {
    let imageless = info.flags.contains(vk::FramebufferCreateFlags::IMAGELESS);
    if !(info.flags & !vk::FramebufferCreateFlags::IMAGELESS).is_empty() {
        return Err(format!("flags {:?} are not supported", info.flags));
    }
    // SAFETY: guaranteed by the caller: `info.render_pass` is null or a live render pass made by
    // this driver.
    let pass = unsafe { RenderPass::from_handle(info.render_pass) }
        .ok_or("renderPass is VK_NULL_HANDLE")?;
    let count = pass.attachments.len();
    if imageless {
        // SAFETY: guaranteed by the caller: the pNext chain is valid.
        let infos = unsafe {
            handle::find_in_chain::<vk::FramebufferAttachmentsCreateInfo<'_>>(info.p_next)
        }
        .ok_or("an imageless framebuffer without VkFramebufferAttachmentsCreateInfo")?;
        if infos.attachment_image_info_count as usize != count {
            return Err(format!(
                "{} attachment image infos for a render pass with {count}",
                infos.attachment_image_info_count
            ));
        }
    } else {
        if views.len() != count {
            return Err(format!(
                "{} attachments for a render pass with {count}",
                views.len()
            ));
        }
        if let Some(i) = views
            .iter()
            // SAFETY: guaranteed by the caller: each of `views` is null (caught here) or a live
            // image view made by this driver.
            .position(|&v| unsafe { ImageView::from_handle(v) }.is_none())
        {
            return Err(format!("attachment {i} is VK_NULL_HANDLE"));
        }
    }
    let in_range = |v: u32, max: u32| (1..=max).contains(&v);
    if !in_range(info.width, MAX_WIDTH)
        || !in_range(info.height, MAX_HEIGHT)
        || !in_range(info.layers, MAX_LAYERS)
    {
        return Err(format!(
            "size {}x{}x{} is outside 1..={MAX_WIDTH}x{MAX_HEIGHT}x{MAX_LAYERS}",
            info.width, info.height, info.layers
        ));
    }
    Ok(count)
}

pub unsafe extern "system" fn create_framebuffer(
    device: vk::Device,
    p_create_info: *const vk::FramebufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_framebuffer: *mut vk::Framebuffer,
) -> vk::Result {
    guard("vkCreateFramebuffer", || {
        // SAFETY: `device` is vkCreateFramebuffer's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        let imageless = info.flags.contains(vk::FramebufferCreateFlags::IMAGELESS);
        // An imageless framebuffer's pAttachments is ignored.
        let views = if imageless {
            &[]
        } else {
            // SAFETY: valid usage: pAttachments holds attachmentCount image view handles.
            unsafe { handle::slice(info.p_attachments, info.attachment_count) }
        };
        // SAFETY: `info` is vkCreateFramebuffer's create info, whose renderPass valid usage
        // requires to be a live render pass made by this driver and whose pNext chain to be
        // valid; `views` is its pAttachments (or empty when imageless), each of which valid usage
        // requires to be a live image view made by this driver.
        let attachment_count = unsafe { check(info, views) }.map_err(|why| {
            eprintln!("agx4: vkCreateFramebuffer: invalid create info ({why}); returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        let fb = Framebuffer {
            attachments: views.to_vec(),
            imageless,
            attachment_count,
            width: info.width,
            height: info.height,
            layers: info.layers,
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle = unsafe { fb.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pFramebuffer is writable.
        unsafe { *p_framebuffer = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_framebuffer(
    _device: vk::Device,
    fb: vk::Framebuffer,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyFramebuffer", (), || {
        // SAFETY: Vulkan valid usage: `fb` is VK_NULL_HANDLE or a live framebuffer made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Framebuffer::take(fb) })
    })
}
