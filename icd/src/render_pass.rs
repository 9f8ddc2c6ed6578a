//! VkRenderPass: attachments, subpasses and dependencies, checked and copied into an owned form
//! that the graphics work (tilebuffer layout, background and end-of-tile programs) reads.
//!
//! Invalid create info is undefined behaviour in Vulkan, and vkCreateRenderPass may only fail
//! with VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_OUT_OF_DEVICE_MEMORY. The driver still checks
//! everything that later code would index or trust (attachment indices, subpass indices,
//! counts), because a bad index found at draw time would be a crash or a wrong GPU address.
//! Such input gets VK_ERROR_OUT_OF_HOST_MEMORY, the least surprising result the spec allows,
//! and a message on stderr naming the actual problem.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;

/// The limit the device reports as `maxColorAttachments`.
pub const MAX_COLOR_ATTACHMENTS: usize = 8;

/// The granularity vkGetRenderAreaGranularity reports. Tiles are 32x32, 32x16 or 16x16
/// pixels depending on the tilebuffer's bytes per pixel (`hw::g13::tilebuffer`); 32x32 is a
/// multiple of all three, so a render area aligned to it never starts or ends inside a tile,
/// whichever size the render pass ends up with. Finer areas still work: they only cost a
/// partially covered tile at each edge.
pub const RENDER_AREA_GRANULARITY: vk::Extent2D = vk::Extent2D { width: 32, height: 32 };

// The fields are read by the graphics work (render pass begin, pipelines); only the tests and
// vkCreateFramebuffer read them so far.
#[allow(dead_code)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub format: vk::Format,
    /// One of 1, 2, 4, ... as the `VkSampleCountFlagBits` value.
    pub samples: u32,
    pub load_op: vk::AttachmentLoadOp,
    pub store_op: vk::AttachmentStoreOp,
    pub stencil_load_op: vk::AttachmentLoadOp,
    pub stencil_store_op: vk::AttachmentStoreOp,
    pub initial_layout: vk::ImageLayout,
    pub final_layout: vk::ImageLayout,
    pub may_alias: bool,
}

/// A subpass's use of an attachment; `index` is always in range.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachmentRef {
    pub index: u32,
    pub layout: vk::ImageLayout,
}

#[allow(dead_code)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subpass {
    /// `None` where the application wrote VK_ATTACHMENT_UNUSED.
    pub inputs: Vec<Option<AttachmentRef>>,
    pub colours: Vec<Option<AttachmentRef>>,
    /// Empty, or one entry per colour attachment.
    pub resolves: Vec<Option<AttachmentRef>>,
    pub depth_stencil: Option<AttachmentRef>,
    pub preserve: Vec<u32>,
}

/// A subpass index in a dependency: a subpass of this render pass, or the work outside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubpassRef {
    External,
    Index(u32),
}

#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub src: SubpassRef,
    pub dst: SubpassRef,
    pub src_stages: vk::PipelineStageFlags,
    pub dst_stages: vk::PipelineStageFlags,
    pub src_access: vk::AccessFlags,
    pub dst_access: vk::AccessFlags,
    pub by_region: bool,
}

#[allow(dead_code)]
#[derive(Debug)]
pub struct RenderPass {
    pub attachments: Vec<Attachment>,
    pub subpasses: Vec<Subpass>,
    pub dependencies: Vec<Dependency>,
    /// Background and end-of-tile programs compiled for instances of this pass.
    pub tile_programs: crate::cmd_buffer::render::TileCache,
    /// Pipelines of vkCmdClearAttachments for parts of the render area.
    pub clear_pipelines: crate::cmd_buffer::clear::ClearPipelines,
}
object!(RenderPass, vk::RenderPass);

/// Why a create info was refused. Reported on stderr; the application sees OUT_OF_HOST_MEMORY.
#[derive(Debug, PartialEq, Eq)]
pub struct Invalid(pub String);

fn invalid<T>(msg: String) -> Result<T, Invalid> {
    Err(Invalid(msg))
}

fn attachment_ref(r: &vk::AttachmentReference, count: usize, what: &str) -> Result<Option<AttachmentRef>, Invalid> {
    if r.attachment == vk::ATTACHMENT_UNUSED {
        return Ok(None);
    }
    if r.attachment as usize >= count {
        return invalid(format!("{what} refers to attachment {} but the render pass has {count}", r.attachment));
    }
    Ok(Some(AttachmentRef { index: r.attachment, layout: r.layout }))
}

fn refs(list: &[vk::AttachmentReference], count: usize, what: &str) -> Result<Vec<Option<AttachmentRef>>, Invalid> {
    list.iter().enumerate().map(|(i, r)| attachment_ref(r, count, &format!("{what}[{i}]"))).collect()
}

fn subpass_ref(index: u32, subpass_count: usize, what: &str) -> Result<SubpassRef, Invalid> {
    if index == vk::SUBPASS_EXTERNAL {
        Ok(SubpassRef::External)
    } else if (index as usize) < subpass_count {
        Ok(SubpassRef::Index(index))
    } else {
        invalid(format!("{what} is subpass {index} but the render pass has {subpass_count}"))
    }
}

impl RenderPass {
    /// Checks and copies a create info.
    ///
    /// # Safety
    /// The arrays `info` points at must hold their counts (Vulkan's valid usage).
    pub unsafe fn from_info(info: &vk::RenderPassCreateInfo<'_>) -> Result<RenderPass, Invalid> {
        if !info.flags.is_empty() {
            // Every render pass flag comes from an extension agx4 does not offer.
            return invalid(format!("flags {:?} are not supported", info.flags));
        }
        // SAFETY: guaranteed by the caller.
        let (atts, subs, deps) = unsafe {
            (
                handle::slice(info.p_attachments, info.attachment_count),
                handle::slice(info.p_subpasses, info.subpass_count),
                handle::slice(info.p_dependencies, info.dependency_count),
            )
        };
        if subs.is_empty() {
            return invalid("subpassCount is 0".into());
        }
        let attachments = atts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if a.format == vk::Format::UNDEFINED {
                    return invalid(format!("attachment {i} has format VK_FORMAT_UNDEFINED"));
                }
                let samples = a.samples.as_raw();
                if samples == 0 || !samples.is_power_of_two() || samples > 64 {
                    return invalid(format!("attachment {i} has sample count flags {samples:#x}"));
                }
                Ok(Attachment {
                    format: a.format,
                    samples,
                    load_op: a.load_op,
                    store_op: a.store_op,
                    stencil_load_op: a.stencil_load_op,
                    stencil_store_op: a.stencil_store_op,
                    initial_layout: a.initial_layout,
                    final_layout: a.final_layout,
                    may_alias: a.flags.contains(vk::AttachmentDescriptionFlags::MAY_ALIAS),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let n = attachments.len();
        let mut subpasses = Vec::with_capacity(subs.len());
        for (s, d) in subs.iter().enumerate() {
            if d.pipeline_bind_point != vk::PipelineBindPoint::GRAPHICS {
                return invalid(format!("subpass {s} has bind point {:?}", d.pipeline_bind_point));
            }
            if d.color_attachment_count as usize > MAX_COLOR_ATTACHMENTS {
                return invalid(format!("subpass {s} has {} colour attachments (max {MAX_COLOR_ATTACHMENTS})", d.color_attachment_count));
            }
            // SAFETY: guaranteed by the caller; pResolveAttachments, when not null, has
            // colorAttachmentCount entries.
            let (inputs, colours, resolves, preserve) = unsafe {
                (
                    handle::slice(d.p_input_attachments, d.input_attachment_count),
                    handle::slice(d.p_color_attachments, d.color_attachment_count),
                    handle::slice(d.p_resolve_attachments, d.color_attachment_count),
                    handle::slice(d.p_preserve_attachments, d.preserve_attachment_count),
                )
            };
            let depth_stencil = match d.p_depth_stencil_attachment.is_null() {
                true => None,
                // SAFETY: guaranteed by the caller: a non-null pointer is one valid reference.
                false => attachment_ref(unsafe { &*d.p_depth_stencil_attachment }, n, &format!("subpass {s} depth/stencil"))?,
            };
            let preserve = preserve
                .iter()
                .map(|&p| match (p as usize) < n {
                    true => Ok(p),
                    false => invalid(format!("subpass {s} preserves attachment {p} but the render pass has {n}")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            subpasses.push(Subpass {
                inputs: refs(inputs, n, &format!("subpass {s} input"))?,
                colours: refs(colours, n, &format!("subpass {s} colour"))?,
                resolves: refs(resolves, n, &format!("subpass {s} resolve"))?,
                depth_stencil,
                preserve,
            });
        }
        let dependencies = deps
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let src = subpass_ref(d.src_subpass, subs.len(), &format!("dependency {i} source"))?;
                let dst = subpass_ref(d.dst_subpass, subs.len(), &format!("dependency {i} destination"))?;
                if src == SubpassRef::External && dst == SubpassRef::External {
                    return invalid(format!("dependency {i} has both ends external"));
                }
                Ok(Dependency {
                    src,
                    dst,
                    src_stages: d.src_stage_mask,
                    dst_stages: d.dst_stage_mask,
                    src_access: d.src_access_mask,
                    dst_access: d.dst_access_mask,
                    by_region: d.dependency_flags.contains(vk::DependencyFlags::BY_REGION),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RenderPass { attachments, subpasses, dependencies, tile_programs: Default::default(), clear_pipelines: Default::default() })
    }
}

pub unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo<'_>,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    guard("vkCreateRenderPass", || {
        Device::get(device)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure whose arrays hold their
        // counts.
        let pass = unsafe { RenderPass::from_info(&*p_create_info) }.map_err(|Invalid(why)| {
            eprintln!("agx4: vkCreateRenderPass: invalid create info ({why}); returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        // SAFETY: valid usage: pRenderPass is writable.
        unsafe { *p_render_pass = pass.into_handle() };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_render_pass(_device: vk::Device, pass: vk::RenderPass, _p_allocator: *const vk::AllocationCallbacks<'_>) {
    guard_or("vkDestroyRenderPass", (), || drop(RenderPass::take(pass)))
}

pub unsafe extern "system" fn get_render_area_granularity(_device: vk::Device, _pass: vk::RenderPass, p_granularity: *mut vk::Extent2D) {
    guard_or("vkGetRenderAreaGranularity", (), || {
        // SAFETY: valid usage: pGranularity is writable.
        unsafe { *p_granularity = RENDER_AREA_GRANULARITY };
    })
}

#[cfg(test)]
mod tests;
