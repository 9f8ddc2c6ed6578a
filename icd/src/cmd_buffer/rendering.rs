//! Dynamic rendering (VK_KHR_dynamic_rendering): vkCmdBeginRendering names its attachments
//! inline, so each instance runs as an instance of a one-subpass render pass made from that
//! description, on a framebuffer of the given views. The render passes are cached on the
//! device by description, so their tile programs are compiled once; pipelines made for
//! dynamic rendering describe the same pass from VkPipelineRenderingCreateInfo, which gives
//! the same tilebuffer layout.
//!
//! Suspended and resumed instances are one render pass instance split in parts: a
//! suspending part stores everything and resolves nothing, a resuming part loads everything.

use super::LiveCommandBuffer;
use super::{record, render, Recording};
use crate::device::Device;
use crate::format;
use crate::framebuffer::Framebuffer;
use crate::handle::{self, Object};
use crate::image::Image;
use crate::image_view::ImageView;
use crate::render_pass::{RenderPass, SubpassIn, DEPTH_STENCIL_RESOLVE_MODES};
use ash::vk;

/// One attachment of a dynamic render pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct AttachmentKey {
    format: vk::Format,
    samples: u32,
    load_op: vk::AttachmentLoadOp,
    store_op: vk::AttachmentStoreOp,
    stencil_load_op: vk::AttachmentLoadOp,
    stencil_store_op: vk::AttachmentStoreOp,
}

/// Everything a dynamic render pass is made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PassKey {
    /// Per colour slot: the attachment, and whether it has a resolve attachment.
    colours: Vec<Option<(AttachmentKey, bool)>>,
    depth_stencil: Option<AttachmentKey>,
    /// Depth and stencil resolve modes, when there is a resolve attachment.
    depth_stencil_resolve: Option<(vk::ResolveModeFlags, vk::ResolveModeFlags)>,
    view_mask: u32,
}

impl AttachmentKey {
    fn description(&self, samples: u32) -> vk::AttachmentDescription {
        vk::AttachmentDescription {
            flags: vk::AttachmentDescriptionFlags::empty(),
            format: self.format,
            samples: vk::SampleCountFlags::from_raw(samples),
            load_op: self.load_op,
            store_op: self.store_op,
            stencil_load_op: self.stencil_load_op,
            stencil_store_op: self.stencil_store_op,
            initial_layout: vk::ImageLayout::GENERAL,
            final_layout: vk::ImageLayout::GENERAL,
        }
    }

    /// An attachment only a pipeline's tilebuffer layout is computed from.
    fn for_pipeline(format: vk::Format, samples: u32) -> AttachmentKey {
        AttachmentKey {
            format,
            samples,
            load_op: vk::AttachmentLoadOp::DONT_CARE,
            store_op: vk::AttachmentStoreOp::DONT_CARE,
            stencil_load_op: vk::AttachmentLoadOp::DONT_CARE,
            stencil_store_op: vk::AttachmentStoreOp::DONT_CARE,
        }
    }
}

fn reference(attachment: u32, layout: vk::ImageLayout) -> vk::AttachmentReference {
    vk::AttachmentReference { attachment, layout }
}

impl PassKey {
    /// The render pass, with its attachments in the order [`Attachments::views`] lists them:
    /// colours, their resolves, depth/stencil, its resolve.
    fn build(&self) -> Result<RenderPass, vk::Result> {
        let mut atts = Vec::new();
        let mut colours = Vec::new();
        for c in &self.colours {
            match c {
                Some((a, _)) => {
                    colours.push(reference(
                        atts.len() as u32,
                        vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    ));
                    atts.push(a.description(a.samples));
                }
                None => colours.push(reference(vk::ATTACHMENT_UNUSED, vk::ImageLayout::UNDEFINED)),
            }
        }
        let mut resolves = Vec::new();
        if self.colours.iter().flatten().any(|c| c.1) {
            for c in &self.colours {
                match c {
                    Some((a, true)) => {
                        resolves.push(reference(
                            atts.len() as u32,
                            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                        ));
                        let resolve = AttachmentKey {
                            load_op: vk::AttachmentLoadOp::DONT_CARE,
                            store_op: vk::AttachmentStoreOp::STORE,
                            ..*a
                        };
                        atts.push(resolve.description(1));
                    }
                    _ => {
                        resolves.push(reference(vk::ATTACHMENT_UNUSED, vk::ImageLayout::UNDEFINED))
                    }
                }
            }
        }
        let mut depth_stencil = None;
        let mut depth_stencil_resolve = None;
        if let Some(ds) = &self.depth_stencil {
            depth_stencil = Some(reference(
                atts.len() as u32,
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            ));
            atts.push(ds.description(ds.samples));
            if let Some((depth, stencil)) = self.depth_stencil_resolve {
                depth_stencil_resolve = Some((
                    reference(
                        atts.len() as u32,
                        vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                    ),
                    depth,
                    stencil,
                ));
                let resolve = AttachmentKey {
                    load_op: vk::AttachmentLoadOp::DONT_CARE,
                    store_op: vk::AttachmentStoreOp::STORE,
                    stencil_load_op: vk::AttachmentLoadOp::DONT_CARE,
                    stencil_store_op: vk::AttachmentStoreOp::STORE,
                    ..*ds
                };
                atts.push(resolve.description(1));
            }
        }
        let subpass = SubpassIn {
            bind_point: vk::PipelineBindPoint::GRAPHICS,
            view_mask: self.view_mask,
            inputs: Vec::new(),
            colours,
            resolves,
            depth_stencil,
            depth_stencil_resolve,
            preserve: Vec::new(),
        };
        RenderPass::build(
            vk::RenderPassCreateFlags::empty(),
            &atts,
            vec![subpass],
            &[],
        )
        .map_err(|e| {
            eprintln!("agx4: dynamic rendering: {}", e.0);
            vk::Result::ERROR_UNKNOWN
        })
    }
}

/// The render pass a pipeline made for dynamic rendering is compiled against (subpass 0).
///
/// # Safety
/// `info` must be valid per Vulkan's valid usage, with a valid pNext chain.
pub unsafe fn pipeline_pass(
    info: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Result<RenderPass, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let rendering =
        unsafe { handle::find_in_chain::<vk::PipelineRenderingCreateInfo<'_>>(info.p_next) };
    // SAFETY: guaranteed by the caller: the multisample state is valid when rasterization is
    // enabled, and null or valid otherwise.
    let samples = unsafe { info.p_multisample_state.as_ref() }
        .map_or(1, |m| m.rasterization_samples.as_raw().max(1));
    let mut key = PassKey {
        colours: Vec::new(),
        depth_stencil: None,
        depth_stencil_resolve: None,
        view_mask: 0,
    };
    if let Some(r) = rendering {
        key.view_mask = r.view_mask;
        // SAFETY: guaranteed by the caller: pColorAttachmentFormats holds colorAttachmentCount.
        let formats =
            unsafe { handle::slice(r.p_color_attachment_formats, r.color_attachment_count) };
        key.colours = formats
            .iter()
            .map(|&f| {
                (f != vk::Format::UNDEFINED)
                    .then(|| (AttachmentKey::for_pipeline(f, samples), false))
            })
            .collect();
        let ds = depth_stencil_format(r.depth_attachment_format, r.stencil_attachment_format);
        key.depth_stencil =
            (ds != vk::Format::UNDEFINED).then(|| AttachmentKey::for_pipeline(ds, samples));
    }
    key.build()
}

/// The depth/stencil attachment format a pass made from dynamic rendering formats has: the
/// one format given, or the aspect of the combined D32_SFLOAT_S8_UINT the rendering uses (a
/// depth-only or stencil-only rendering has no test of the other aspect, whatever the
/// image's format; VkPipelineRenderingCreateInfo).
fn depth_stencil_format(depth: vk::Format, stencil: vk::Format) -> vk::Format {
    const UNDEFINED: vk::Format = vk::Format::UNDEFINED;
    const COMBINED: vk::Format = vk::Format::D32_SFLOAT_S8_UINT;
    match (depth, stencil) {
        (COMBINED, UNDEFINED) => vk::Format::D32_SFLOAT,
        (UNDEFINED, COMBINED) => vk::Format::S8_UINT,
        (UNDEFINED, s) => s,
        (d, _) => d,
    }
}

/// The device's render pass that a secondary command buffer continuing a dynamic rendering
/// instance described by `info` records subpass 0 of: the pass pipelines made for those
/// formats are compiled against, so it has their tilebuffer layout.
///
/// # Safety
/// `info` must be valid per Vulkan's valid usage.
pub unsafe fn inherited_pass(
    dev: &Device,
    info: &vk::CommandBufferInheritanceRenderingInfo<'_>,
) -> Result<vk::RenderPass, vk::Result> {
    let samples = info.rasterization_samples.as_raw().max(1);
    // SAFETY: guaranteed by the caller: pColorAttachmentFormats holds colorAttachmentCount.
    let formats =
        unsafe { handle::slice(info.p_color_attachment_formats, info.color_attachment_count) };
    let ds = depth_stencil_format(info.depth_attachment_format, info.stencil_attachment_format);
    let key = PassKey {
        colours: formats
            .iter()
            .map(|&f| {
                (f != vk::Format::UNDEFINED)
                    .then(|| (AttachmentKey::for_pipeline(f, samples), false))
            })
            .collect(),
        depth_stencil: (ds != vk::Format::UNDEFINED)
            .then(|| AttachmentKey::for_pipeline(ds, samples)),
        depth_stencil_resolve: None,
        view_mask: info.view_mask,
    };
    cached_pass(dev, key)
}

/// The attachments of one vkCmdBeginRendering, in render pass order.
struct Attachments {
    key: PassKey,
    views: Vec<vk::ImageView>,
    clears: Vec<vk::ClearValue>,
}

/// An attachment view of a dynamic render pass instance, and its image; `VK_ERROR_UNKNOWN`
/// for `VK_NULL_HANDLE`.
///
/// # Safety
/// `v` must be `VK_NULL_HANDLE` or a live image view made by this driver, and neither the view
/// nor its image may be destroyed while the returned references are in use. An attachment
/// view of vkCmdBeginRendering's rendering info is such a handle (Vulkan valid usage).
unsafe fn view<'a>(v: vk::ImageView) -> Result<(&'a ImageView, &'a Image), vk::Result> {
    // SAFETY: guaranteed by the caller: `v` is null or a live image view made by this driver
    // that outlives the returned reference.
    let view = unsafe { ImageView::from_handle(v) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `view.image` is the image the view was made from; a view may only be used while
    // its image lives (Vulkan object lifetime rules), and vkCmdBeginRendering is using it.
    let image = unsafe { Image::from_handle(view.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    Ok((view, image))
}

/// Load and store ops of one aspect: the application's, or for an aspect the instance does
/// not name (the stencil of a depth-only attachment info, say), ops that keep its contents.
fn ops(
    info: Option<&vk::RenderingAttachmentInfo<'_>>,
    resuming: bool,
    suspending: bool,
) -> (vk::AttachmentLoadOp, vk::AttachmentStoreOp) {
    let (mut load, mut store) = info.map_or(
        (vk::AttachmentLoadOp::LOAD, vk::AttachmentStoreOp::STORE),
        |i| (i.load_op, i.store_op),
    );
    if resuming {
        load = vk::AttachmentLoadOp::LOAD;
    }
    if suspending {
        store = vk::AttachmentStoreOp::STORE;
    }
    (load, store)
}

/// # Safety
/// `info` must be valid per Vulkan's valid usage.
unsafe fn attachments(
    info: &vk::RenderingInfo<'_>,
    resuming: bool,
    suspending: bool,
) -> Result<Attachments, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let colours = unsafe { handle::slice(info.p_color_attachments, info.color_attachment_count) };
    let mut out = Attachments {
        key: PassKey {
            colours: Vec::new(),
            depth_stencil: None,
            depth_stencil_resolve: None,
            view_mask: info.view_mask,
        },
        views: Vec::new(),
        clears: Vec::new(),
    };
    let mut resolve_views = Vec::new();
    for c in colours {
        if c.image_view == vk::ImageView::null() {
            out.key.colours.push(None);
            continue;
        }
        // SAFETY: `c.image_view` is the (non-null) imageView of one of vkCmdBeginRendering's
        // colour attachments, which valid usage requires to be a live image view made by this
        // driver.
        let (v, image) = unsafe { view(c.image_view) }?;
        let (load_op, store_op) = ops(Some(c), resuming, suspending);
        let key = AttachmentKey {
            format: v.format,
            samples: image.samples,
            load_op,
            store_op,
            stencil_load_op: vk::AttachmentLoadOp::DONT_CARE,
            stencil_store_op: vk::AttachmentStoreOp::DONT_CARE,
        };
        let resolve = c.resolve_mode != vk::ResolveModeFlags::NONE
            && c.resolve_image_view != vk::ImageView::null();
        if resolve {
            // The end-of-tile program resolves by averaging the samples of float and
            // normalized formats and takes sample 0 of integer ones: the one mode the spec
            // allows for each.
            let integer = format::renderable(v.format).is_some_and(|r| !r.blendable());
            let mode = if integer {
                vk::ResolveModeFlags::SAMPLE_ZERO
            } else {
                vk::ResolveModeFlags::AVERAGE
            };
            if c.resolve_mode != mode {
                eprintln!(
                    "agx4: vkCmdBeginRendering: colour resolve mode {:?} is not supported",
                    c.resolve_mode
                );
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
            resolve_views.push(c.resolve_image_view);
        }
        out.key.colours.push(Some((key, resolve && !suspending)));
        out.views.push(c.image_view);
        out.clears.push(c.clear_value);
    }
    if suspending {
        resolve_views.clear();
    }
    for r in resolve_views {
        out.views.push(r);
        out.clears.push(vk::ClearValue::default());
    }
    // SAFETY: guaranteed by the caller: the pointers are null or valid.
    let (depth, stencil) = unsafe {
        (
            info.p_depth_attachment.as_ref(),
            info.p_stencil_attachment.as_ref(),
        )
    };
    let depth = depth.filter(|d| d.image_view != vk::ImageView::null());
    let stencil = stencil.filter(|s| s.image_view != vk::ImageView::null());
    if let (Some(d), Some(s)) = (depth, stencil) {
        if d.image_view != s.image_view {
            eprintln!("agx4: vkCmdBeginRendering: different depth and stencil image views");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
    }
    if let Some(ds_view) = depth.or(stencil).map(|a| a.image_view) {
        // SAFETY: `ds_view` is the (non-null) imageView of vkCmdBeginRendering's depth or
        // stencil attachment, which valid usage requires to be a live image view made by this
        // driver.
        let (v, image) = unsafe { view(ds_view) }?;
        let (load_op, store_op) = ops(depth, resuming, suspending);
        let (stencil_load_op, stencil_store_op) = ops(stencil, resuming, suspending);
        out.key.depth_stencil = Some(AttachmentKey {
            format: v.format,
            samples: image.samples,
            load_op,
            store_op,
            stencil_load_op,
            stencil_store_op,
        });
        out.views.push(ds_view);
        let depth_value = depth.map_or(0.0, |d| {
            // SAFETY: a depth attachment's clear value is the depth_stencil member.
            unsafe { d.clear_value.depth_stencil.depth }
        });
        let stencil_value = stencil.map_or(0, |s| {
            // SAFETY: as above.
            unsafe { s.clear_value.depth_stencil.stencil }
        });
        out.clears.push(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: depth_value,
                stencil: stencil_value,
            },
        });
        let mode = |a: Option<&vk::RenderingAttachmentInfo<'_>>| {
            a.filter(|a| a.resolve_image_view != vk::ImageView::null())
                .map_or(vk::ResolveModeFlags::NONE, |a| a.resolve_mode)
        };
        let (dm, sm) = (mode(depth), mode(stencil));
        for m in [dm, sm] {
            if m != vk::ResolveModeFlags::NONE && !DEPTH_STENCIL_RESOLVE_MODES.contains(m) {
                eprintln!(
                    "agx4: vkCmdBeginRendering: depth/stencil resolve mode {m:?} is not supported"
                );
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
        }
        if (dm != vk::ResolveModeFlags::NONE || sm != vk::ResolveModeFlags::NONE) && !suspending {
            let resolve = [depth, stencil]
                .into_iter()
                .flatten()
                .find(|a| {
                    a.resolve_mode != vk::ResolveModeFlags::NONE
                        && a.resolve_image_view != vk::ImageView::null()
                })
                .map(|a| a.resolve_image_view);
            if let Some(r) = resolve {
                out.key.depth_stencil_resolve = Some((dm, sm));
                out.views.push(r);
                out.clears.push(vk::ClearValue::default());
            }
        }
    }
    Ok(out)
}

/// The size of the framebuffer a dynamic instance renders: the smallest attachment, or the
/// render area's far corner without attachments.
///
/// # Safety
/// Each of `views` must be `VK_NULL_HANDLE` or a live image view made by this driver, and
/// neither a view nor its image may be destroyed during the call. The attachment and resolve
/// views of vkCmdBeginRendering's rendering info are such handles (Vulkan valid usage).
unsafe fn framebuffer_size(
    views: &[vk::ImageView],
    area: vk::Rect2D,
) -> Result<(u32, u32), vk::Result> {
    let mut size: Option<(u32, u32)> = None;
    for &v in views {
        // SAFETY: guaranteed by the caller: `v` is null or a live image view made by this driver
        // that, with its image, outlives the call.
        let (v, image) = unsafe { view(v) }?;
        let level = v.range.base_mip_level;
        let (w, h) = (
            (image.extent.width >> level).max(1),
            (image.extent.height >> level).max(1),
        );
        size = Some(size.map_or((w, h), |(sw, sh)| (sw.min(w), sh.min(h))));
    }
    let far = |o: i32, e: u32| {
        (i64::from(o.max(0)) + i64::from(e)).clamp(1, i64::from(crate::framebuffer::MAX_WIDTH))
            as u32
    };
    Ok(size.unwrap_or((
        far(area.offset.x, area.extent.width),
        far(area.offset.y, area.extent.height),
    )))
}

/// The device's render pass for `key`, made on first use.
fn cached_pass(dev: &Device, key: PassKey) -> Result<vk::RenderPass, vk::Result> {
    let mut map = dev.dynamic_passes.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&p) = map.get(&key) {
        return Ok(p);
    }
    let pass = key.build()?.into_handle();
    map.insert(key, pass);
    Ok(pass)
}

/// Opens the dynamic rendering instance `info` describes.
///
/// # Safety
/// `info` and what it points at must be valid, and its image views live image views made by
/// this driver, kept alive while the command buffer records. vkCmdBeginRendering's
/// pRenderingInfo is such an info (Vulkan valid usage).
unsafe fn begin_rendering(
    dev: &Device,
    rec: &mut Recording,
    info: &vk::RenderingInfo<'_>,
) -> Result<(), vk::Result> {
    let resuming = info.flags.contains(vk::RenderingFlags::RESUMING);
    let suspending = info.flags.contains(vk::RenderingFlags::SUSPENDING);
    // SAFETY: guaranteed by the caller: `info` and what it points at are valid.
    let a = unsafe { attachments(info, resuming, suspending) }?;
    // SAFETY: `a.views` are the attachment and resolve image views `attachments` collected from
    // `info`, vkCmdBeginRendering's rendering info (as the look-up above relies on); valid usage
    // requires each to be a live image view made by this driver.
    let (width, height) = unsafe { framebuffer_size(&a.views, info.render_area) }?;
    let fb = Framebuffer {
        attachment_count: a.views.len(),
        attachments: a.views,
        imageless: false,
        width,
        height,
        layers: info.layer_count.max(1),
    };
    let pass = cached_pass(dev, a.key)?;
    // SAFETY: `pass` is the device's own render pass for these attachments, which lives as
    // long as the device; the views are live and kept alive while the command buffer records
    // (guaranteed by the caller).
    unsafe {
        render::begin(
            dev,
            rec,
            pass,
            fb,
            info.render_area,
            a.clears,
            render::Continuation {
                resuming,
                suspending,
            },
        )
    }
}

pub unsafe extern "system" fn cmd_begin_rendering(
    cb: vk::CommandBuffer,
    p_info: *const vk::RenderingInfo<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBeginRendering", cb, |dev, rec| {
        // SAFETY: valid usage: pRenderingInfo is valid, and so is what it points at; its image
        // views are live image views made by this driver, kept alive while the command buffer
        // records.
        unsafe { begin_rendering(dev, rec, &*p_info) }
    })
}

pub unsafe extern "system" fn cmd_end_rendering(cb: vk::CommandBuffer) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndRendering", cb, render::end)
}
