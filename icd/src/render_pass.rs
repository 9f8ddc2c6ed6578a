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

/// The limit the device reports as `maxMultiviewViewCount`: each view is its own render
/// command, so the count is not bound by the hardware; 8 is what most drivers offer.
pub const MAX_VIEWS: u32 = 8;

/// The granularity vkGetRenderAreaGranularity reports. Tiles are 32x32, 32x16 or 16x16
/// pixels depending on the tilebuffer's bytes per pixel (`hw::g13::tilebuffer`); 32x32 is a
/// multiple of all three, so a render area aligned to it never starts or ends inside a tile,
/// whichever size the render pass ends up with. Finer areas still work: they only cost a
/// partially covered tile at each edge.
pub const RENDER_AREA_GRANULARITY: vk::Extent2D = vk::Extent2D {
    width: 32,
    height: 32,
};

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
    /// Where the depth/stencil attachment is resolved to at the end of the subpass.
    pub depth_stencil_resolve: Option<DepthStencilResolve>,
    pub preserve: Vec<u32>,
    /// The views the subpass renders (multiview); 0 without multiview.
    pub view_mask: u32,
}

/// VkSubpassDescriptionDepthStencilResolve: the attachment and the mode per aspect (NONE for
/// an aspect not resolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthStencilResolve {
    pub attachment: AttachmentRef,
    pub depth_mode: vk::ResolveModeFlags,
    pub stencil_mode: vk::ResolveModeFlags,
}

/// The resolve modes agx4 does for depth and stencil: sample 0 copied.
pub const DEPTH_STENCIL_RESOLVE_MODES: vk::ResolveModeFlags = vk::ResolveModeFlags::SAMPLE_ZERO;

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

fn attachment_ref(
    r: &vk::AttachmentReference,
    count: usize,
    what: &str,
) -> Result<Option<AttachmentRef>, Invalid> {
    if r.attachment == vk::ATTACHMENT_UNUSED {
        return Ok(None);
    }
    if r.attachment as usize >= count {
        return invalid(format!(
            "{what} refers to attachment {} but the render pass has {count}",
            r.attachment
        ));
    }
    Ok(Some(AttachmentRef {
        index: r.attachment,
        layout: r.layout,
    }))
}

fn refs(
    list: &[vk::AttachmentReference],
    count: usize,
    what: &str,
) -> Result<Vec<Option<AttachmentRef>>, Invalid> {
    list.iter()
        .enumerate()
        .map(|(i, r)| attachment_ref(r, count, &format!("{what}[{i}]")))
        .collect()
}

fn subpass_ref(index: u32, subpass_count: usize, what: &str) -> Result<SubpassRef, Invalid> {
    if index == vk::SUBPASS_EXTERNAL {
        Ok(SubpassRef::External)
    } else if (index as usize) < subpass_count {
        Ok(SubpassRef::Index(index))
    } else {
        invalid(format!(
            "{what} is subpass {index} but the render pass has {subpass_count}"
        ))
    }
}

/// A subpass of either create info, with the references as version-1 references.
pub struct SubpassIn {
    pub bind_point: vk::PipelineBindPoint,
    pub view_mask: u32,
    pub inputs: Vec<vk::AttachmentReference>,
    pub colours: Vec<vk::AttachmentReference>,
    /// Empty, or one per colour attachment.
    pub resolves: Vec<vk::AttachmentReference>,
    pub depth_stencil: Option<vk::AttachmentReference>,
    /// (attachment, depth mode, stencil mode).
    pub depth_stencil_resolve: Option<(
        vk::AttachmentReference,
        vk::ResolveModeFlags,
        vk::ResolveModeFlags,
    )>,
    pub preserve: Vec<u32>,
}

/// A create info's attachments, subpasses and dependencies in version-1 form.
type Description = (
    Vec<vk::AttachmentDescription>,
    Vec<SubpassIn>,
    Vec<vk::SubpassDependency>,
);

fn reference2(r: &vk::AttachmentReference2<'_>) -> vk::AttachmentReference {
    vk::AttachmentReference {
        attachment: r.attachment,
        layout: r.layout,
    }
}

/// The arrays of a version-1 create info, with the multiview view masks of its pNext chain.
///
/// # Safety
/// The arrays `info` points at must hold their counts (Vulkan's valid usage).
unsafe fn from_info1(info: &vk::RenderPassCreateInfo<'_>) -> Result<Description, Invalid> {
    // SAFETY: guaranteed by the caller.
    let (atts, subs, deps) = unsafe {
        (
            handle::slice(info.p_attachments, info.attachment_count),
            handle::slice(info.p_subpasses, info.subpass_count),
            handle::slice(info.p_dependencies, info.dependency_count),
        )
    };
    // SAFETY: guaranteed by the caller: the pNext chain is valid.
    let multiview =
        unsafe { handle::find_in_chain::<vk::RenderPassMultiviewCreateInfo<'_>>(info.p_next) };
    // SAFETY: as above; pViewMasks holds subpassCount masks.
    let masks = multiview
        .map(|m| unsafe { handle::slice(m.p_view_masks, m.subpass_count) })
        .unwrap_or_default();
    if !masks.is_empty() && masks.len() != subs.len() {
        return invalid(format!(
            "{} view masks for {} subpasses",
            masks.len(),
            subs.len()
        ));
    }
    let mut subpasses = Vec::with_capacity(subs.len());
    for (s, d) in subs.iter().enumerate() {
        if d.color_attachment_count as usize > MAX_COLOR_ATTACHMENTS {
            return invalid(format!(
                "subpass {s} has {} colour attachments (max {MAX_COLOR_ATTACHMENTS})",
                d.color_attachment_count
            ));
        }
        // SAFETY: guaranteed by the caller; pResolveAttachments, when not null, has
        // colorAttachmentCount entries, and a non-null depth/stencil pointer is one reference.
        unsafe {
            subpasses.push(SubpassIn {
                bind_point: d.pipeline_bind_point,
                view_mask: masks.get(s).copied().unwrap_or(0),
                inputs: handle::slice(d.p_input_attachments, d.input_attachment_count).to_vec(),
                colours: handle::slice(d.p_color_attachments, d.color_attachment_count).to_vec(),
                resolves: handle::slice(d.p_resolve_attachments, d.color_attachment_count).to_vec(),
                depth_stencil: d.p_depth_stencil_attachment.as_ref().copied(),
                depth_stencil_resolve: None,
                preserve: handle::slice(d.p_preserve_attachments, d.preserve_attachment_count)
                    .to_vec(),
            });
        }
    }
    Ok((atts.to_vec(), subpasses, deps.to_vec()))
}

/// The arrays of a version-2 create info (VK_KHR_create_renderpass2), in version-1 form.
///
/// # Safety
/// The arrays `info` points at must hold their counts (Vulkan's valid usage).
unsafe fn from_info2(info: &vk::RenderPassCreateInfo2<'_>) -> Result<Description, Invalid> {
    // SAFETY: guaranteed by the caller.
    let (atts, subs, deps) = unsafe {
        (
            handle::slice(info.p_attachments, info.attachment_count),
            handle::slice(info.p_subpasses, info.subpass_count),
            handle::slice(info.p_dependencies, info.dependency_count),
        )
    };
    let attachments = atts
        .iter()
        .map(|a| vk::AttachmentDescription {
            flags: a.flags,
            format: a.format,
            samples: a.samples,
            load_op: a.load_op,
            store_op: a.store_op,
            stencil_load_op: a.stencil_load_op,
            stencil_store_op: a.stencil_store_op,
            initial_layout: a.initial_layout,
            final_layout: a.final_layout,
        })
        .collect();
    let mut subpasses = Vec::with_capacity(subs.len());
    for (s, d) in subs.iter().enumerate() {
        if d.color_attachment_count as usize > MAX_COLOR_ATTACHMENTS {
            return invalid(format!(
                "subpass {s} has {} colour attachments (max {MAX_COLOR_ATTACHMENTS})",
                d.color_attachment_count
            ));
        }
        // SAFETY: guaranteed by the caller, as for version 1; the pNext chain is valid.
        unsafe {
            let resolve =
                handle::find_in_chain::<vk::SubpassDescriptionDepthStencilResolve<'_>>(d.p_next)
                    .and_then(|r| {
                        r.p_depth_stencil_resolve_attachment
                            .as_ref()
                            .map(|a| (reference2(a), r.depth_resolve_mode, r.stencil_resolve_mode))
                    })
                    .filter(|(a, _, _)| a.attachment != vk::ATTACHMENT_UNUSED);
            subpasses.push(SubpassIn {
                bind_point: d.pipeline_bind_point,
                view_mask: d.view_mask,
                inputs: handle::slice(d.p_input_attachments, d.input_attachment_count)
                    .iter()
                    .map(reference2)
                    .collect(),
                colours: handle::slice(d.p_color_attachments, d.color_attachment_count)
                    .iter()
                    .map(reference2)
                    .collect(),
                resolves: handle::slice(d.p_resolve_attachments, d.color_attachment_count)
                    .iter()
                    .map(reference2)
                    .collect(),
                depth_stencil: d.p_depth_stencil_attachment.as_ref().map(reference2),
                depth_stencil_resolve: resolve,
                preserve: handle::slice(d.p_preserve_attachments, d.preserve_attachment_count)
                    .to_vec(),
            });
        }
    }
    let dependencies = deps
        .iter()
        .map(|d| vk::SubpassDependency {
            src_subpass: d.src_subpass,
            dst_subpass: d.dst_subpass,
            src_stage_mask: d.src_stage_mask,
            dst_stage_mask: d.dst_stage_mask,
            src_access_mask: d.src_access_mask,
            dst_access_mask: d.dst_access_mask,
            dependency_flags: d.dependency_flags,
        })
        .collect();
    Ok((attachments, subpasses, dependencies))
}

impl RenderPass {
    /// Checks and copies a create info.
    ///
    /// # Safety
    /// The arrays `info` points at must hold their counts (Vulkan's valid usage).
    pub unsafe fn from_info(info: &vk::RenderPassCreateInfo<'_>) -> Result<RenderPass, Invalid> {
        // SAFETY: guaranteed by the caller.
        let (atts, subs, deps) = unsafe { from_info1(info) }?;
        RenderPass::build(info.flags, &atts, subs, &deps)
    }

    /// Checks and copies a version-2 create info.
    ///
    /// # Safety
    /// The arrays `info` points at must hold their counts (Vulkan's valid usage).
    pub unsafe fn from_info2(info: &vk::RenderPassCreateInfo2<'_>) -> Result<RenderPass, Invalid> {
        // SAFETY: guaranteed by the caller.
        let (atts, subs, deps) = unsafe { from_info2(info) }?;
        RenderPass::build(info.flags, &atts, subs, &deps)
    }

    /// Checks a render pass description, whichever create info it came from.
    pub fn build(
        flags: vk::RenderPassCreateFlags,
        atts: &[vk::AttachmentDescription],
        subs: Vec<SubpassIn>,
        deps: &[vk::SubpassDependency],
    ) -> Result<RenderPass, Invalid> {
        if !flags.is_empty() {
            // Every render pass flag comes from an extension agx4 does not offer.
            return invalid(format!("flags {flags:?} are not supported"));
        }
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
                    return invalid(format!(
                        "attachment {i} has sample count flags {samples:#x}"
                    ));
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
        let multiview = subs.iter().any(|s| s.view_mask != 0);
        let mut subpasses = Vec::with_capacity(subs.len());
        for (s, d) in subs.iter().enumerate() {
            if d.bind_point != vk::PipelineBindPoint::GRAPHICS {
                return invalid(format!("subpass {s} has bind point {:?}", d.bind_point));
            }
            if multiview && d.view_mask == 0 {
                return invalid(format!(
                    "subpass {s} has view mask 0 in a multiview render pass"
                ));
            }
            if d.view_mask >> MAX_VIEWS != 0 {
                return invalid(format!(
                    "subpass {s} has view mask {:#x} (at most {MAX_VIEWS} views)",
                    d.view_mask
                ));
            }
            let depth_stencil = match &d.depth_stencil {
                None => None,
                Some(r) => attachment_ref(r, n, &format!("subpass {s} depth/stencil"))?,
            };
            let depth_stencil_resolve = match d.depth_stencil_resolve {
                None => None,
                Some((r, depth_mode, stencil_mode)) => {
                    for m in [depth_mode, stencil_mode] {
                        if !(m == vk::ResolveModeFlags::NONE
                            || DEPTH_STENCIL_RESOLVE_MODES.contains(m))
                        {
                            return invalid(format!(
                                "subpass {s} resolves depth/stencil with mode {m:?}"
                            ));
                        }
                    }
                    attachment_ref(&r, n, &format!("subpass {s} depth/stencil resolve"))?.map(
                        |attachment| DepthStencilResolve {
                            attachment,
                            depth_mode,
                            stencil_mode,
                        },
                    )
                }
            };
            let preserve = d
                .preserve
                .iter()
                .map(|&p| match (p as usize) < n {
                    true => Ok(p),
                    false => invalid(format!(
                        "subpass {s} preserves attachment {p} but the render pass has {n}"
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            subpasses.push(Subpass {
                inputs: refs(&d.inputs, n, &format!("subpass {s} input"))?,
                colours: refs(&d.colours, n, &format!("subpass {s} colour"))?,
                resolves: refs(&d.resolves, n, &format!("subpass {s} resolve"))?,
                depth_stencil,
                depth_stencil_resolve,
                preserve,
                view_mask: d.view_mask,
            });
        }
        let dependencies = deps
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let src =
                    subpass_ref(d.src_subpass, subs.len(), &format!("dependency {i} source"))?;
                let dst = subpass_ref(
                    d.dst_subpass,
                    subs.len(),
                    &format!("dependency {i} destination"),
                )?;
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
        Ok(RenderPass {
            attachments,
            subpasses,
            dependencies,
            tile_programs: Default::default(),
            clear_pipelines: Default::default(),
        })
    }
}

pub unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    guard("vkCreateRenderPass", || {
        // SAFETY: `device` is vkCreateRenderPass's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure whose arrays hold their
        // counts.
        let pass = unsafe { RenderPass::from_info(&*p_create_info) }.map_err(|Invalid(why)| {
            eprintln!("agx4: vkCreateRenderPass: invalid create info ({why}); returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { pass.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pRenderPass is writable.
        unsafe { *p_render_pass = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn create_render_pass2(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    guard("vkCreateRenderPass2", || {
        // SAFETY: `device` is vkCreateRenderPass2's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure whose arrays hold their
        // counts.
        let pass = unsafe { RenderPass::from_info2(&*p_create_info) }.map_err(|Invalid(why)| {
            eprintln!("agx4: vkCreateRenderPass2: invalid create info ({why}); returning VK_ERROR_OUT_OF_HOST_MEMORY");
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        })?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { pass.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pRenderPass is writable.
        unsafe { *p_render_pass = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_render_pass(
    _device: vk::Device,
    pass: vk::RenderPass,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyRenderPass", (), || {
        // SAFETY: Vulkan valid usage: `renderPass` is VK_NULL_HANDLE or a live render pass made
        // by this driver, and this destroy command is its last use.
        drop(unsafe { RenderPass::take(pass) })
    })
}

pub unsafe extern "system" fn get_render_area_granularity(
    _device: vk::Device,
    _pass: vk::RenderPass,
    p_granularity: *mut vk::Extent2D,
) {
    guard_or("vkGetRenderAreaGranularity", (), || {
        // SAFETY: valid usage: pGranularity is writable.
        unsafe { *p_granularity = RENDER_AREA_GRANULARITY };
    })
}

#[cfg(test)]
mod tests;
