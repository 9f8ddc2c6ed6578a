//! Secondary command buffers that continue a render pass instance
//! (`VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT`).
//!
//! Such a secondary records its draws as a primary would, into one VDM stream fragment per
//! layer or view of the subpass its inheritance info names (render pass and subpass, or
//! `VkCommandBufferInheritanceRenderingInfo`). Everything a draw needs that the subpass
//! determines is in the secondary's own memory when it ends: root tables, USC words, the PPP
//! update, the Index List, the first-instance copies of indirect draws. What only the render
//! pass instance determines is left out of the draw's PPP update and kept beside the
//! fragment (draw.rs `LateState`): the scissor, clipped to the render area and framebuffer
//! only the primary knows; the indices of the draw's scissor and depth-bias entries, which
//! live in the arrays of the render command the draw ends up in; and the occlusion query it
//! counts into, which for an inherited query is the one the primary has active.
//!
//! vkCmdExecuteCommands splices the fragments into the primary's open render commands: it
//! copies each fragment's VDM blocks (which point into the secondary's memory) and puts a
//! small PPP update with the draw's late words before each Index List. PPP state is
//! incremental, so the two updates together are the draw's whole state. A secondary is
//! never changed by being executed, so it can be executed any number of times, in several
//! primaries at once.
//!
//! Secondaries inherit no bindings or dynamic state, and they start from defaults here as in
//! any command buffer; the primary's state after vkCmdExecuteCommands is undefined, so it is
//! left as it was.

use super::draw::{self, LateDraw};
use super::render::{RenderState, Stream};
use super::{rendering, Recording};
use crate::device::Device;
use crate::framebuffer::{Framebuffer, MAX_HEIGHT, MAX_LAYERS, MAX_WIDTH};
use crate::handle::{self, Object};
use crate::pipeline_graphics::subpass_tilebuffer;
use crate::render_pass::RenderPass;
use ash::vk;

/// Opens the inherited subpass of a secondary command buffer begun with RENDER_PASS_CONTINUE.
///
/// # Safety
/// `info` must be valid per Vulkan's valid usage, with valid pointers and pNext chains.
pub unsafe fn begin(
    dev: &Device,
    rec: &mut Recording,
    info: &vk::CommandBufferBeginInfo<'_>,
) -> Result<(), vk::Result> {
    if !info
        .flags
        .contains(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
    {
        return Ok(());
    }
    // SAFETY: guaranteed by the caller: a secondary's inheritance info is valid.
    let inheritance = unsafe { info.p_inheritance_info.as_ref() }.ok_or_else(|| {
        eprintln!("agx4: vkBeginCommandBuffer: RENDER_PASS_CONTINUE without inheritance info");
        vk::Result::ERROR_UNKNOWN
    })?;
    let (pass, subpass, fb) = if inheritance.render_pass != vk::RenderPass::null() {
        // SAFETY: guaranteed by the caller: the inheritance info's `framebuffer` is
        // VK_NULL_HANDLE or a live framebuffer made by this driver.
        let fb = unsafe { Framebuffer::from_handle(inheritance.framebuffer) }.cloned();
        (inheritance.render_pass, inheritance.subpass, fb)
    } else {
        // SAFETY: guaranteed by the caller.
        let rendering = unsafe {
            handle::find_in_chain::<vk::CommandBufferInheritanceRenderingInfo<'_>>(
                inheritance.p_next,
            )
        }
        .ok_or_else(|| {
            eprintln!("agx4: vkBeginCommandBuffer: RENDER_PASS_CONTINUE without a render pass or VkCommandBufferInheritanceRenderingInfo");
            vk::Result::ERROR_UNKNOWN
        })?;
        // SAFETY: guaranteed by the caller.
        (
            unsafe { rendering::inherited_pass(dev, rendering) }?,
            0,
            None,
        )
    };
    // SAFETY: `pass` is the inheritance info's `renderPass`, a live render pass made by this
    // driver by the caller's guarantee, or the device's own pass from `inherited_pass`, which
    // lives as long as the device.
    let rp = unsafe { RenderPass::from_handle(pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let sp = rp
        .subpasses
        .get(subpass as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    // Without an inherited framebuffer the size is the largest there can be: it only places
    // vkCmdClearAttachments' rectangles, which a viewport of the same size maps back.
    let fb = fb.unwrap_or(Framebuffer {
        attachments: Vec::new(),
        imageless: true,
        attachment_count: rp.attachments.len(),
        width: MAX_WIDTH,
        height: MAX_HEIGHT,
        layers: MAX_LAYERS,
    });
    let (streams, targets) = if sp.view_mask != 0 {
        let streams: Vec<Stream> = (0..32)
            .filter(|v| sp.view_mask >> v & 1 == 1)
            .map(|v| Stream::new(v, false))
            .collect();
        let targets = (0..streams.len()).collect();
        (streams, targets)
    } else {
        (vec![Stream::new(0, false)], vec![0])
    };
    let extent = vk::Extent2D {
        width: fb.width,
        height: fb.height,
    };
    rec.render = Some(Box::new(RenderState {
        pass,
        subpass,
        area: vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent,
        },
        fb,
        clears: Vec::new(),
        tilebuffer: subpass_tilebuffer(rp, subpass)?,
        view_mask: sp.view_mask,
        streams,
        targets,
        current: 0,
        timestamps: Vec::new(),
        suspending: false,
        resuming: false,
        inherited: true,
        // The primary's render command has its own size; these only bound the clears.
        size: extent,
        reach: extent,
    }));
    Ok(())
}

/// Executes secondary `s`, which continues the open subpass, inside the primary `rec`.
pub fn execute(dev: &Device, rec: &mut Recording, s: &Recording) -> Result<(), vk::Result> {
    let srs = s.render.as_deref().filter(|r| r.inherited).ok_or_else(|| {
        eprintln!("agx4: vkCmdExecuteCommands: inside a render pass instance, a secondary must be begun with RENDER_PASS_CONTINUE");
        vk::Result::ERROR_UNKNOWN
    })?;
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // A secondary that records nothing into the tiles does not depend on their layout (in a
    // subpass without attachments, it may not know the sample count).
    let wrote = srs.streams.iter().any(Stream::wrote);
    if wrote {
        super::render::adopt_samples(rs, &srs.tilebuffer)?;
    }
    if (wrote && srs.tilebuffer != rs.tilebuffer)
        || srs.view_mask != rs.view_mask
        || srs.subpass != rs.subpass
    {
        eprintln!(
            "agx4: vkCmdExecuteCommands: the secondary was recorded for an incompatible subpass"
        );
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    // Its compute work (first-instance copies) runs before the render commands that read it.
    rec.close_segment(None)?;
    rec.segments.extend_from_slice(&s.segments);
    // Its counts for an inherited pipeline statistics query.
    super::statistics::execute(dev, rec, s)?;
    for f in &srs.streams {
        splice(dev, rec, f)?;
    }
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    rs.timestamps.extend_from_slice(&srs.timestamps);
    rec.gfx_mut()
        .occlusion
        .add_pending(s.gfx().occlusion.pending());
    Ok(())
}

/// Appends stream fragment `f` to the primary's stream of the same layer or view, each draw
/// completed by a PPP update with its late words.
fn splice(dev: &Device, rec: &mut Recording, f: &Stream) -> Result<(), vk::Result> {
    if f.draws == 0 {
        return Ok(());
    }
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // A secondary that did not know the framebuffer recorded layered geometry draws for
    // every layer there may be; the primary keeps those of its framebuffer's layers.
    if rs.view_mask == 0 && f.layer >= rs.fb.layers.max(1) {
        return Ok(());
    }
    // A layer the primary has no render command for yet (a secondary's vkCmdClearAttachments
    // of a layered framebuffer) gets one that loads what is there.
    rs.current = rs.stream_for(f.layer);
    let mut from = 0;
    let graphics = dev.emitter()?.graphics;
    for &LateDraw { at, state, query } in &f.late {
        let query = query.or(rec.gfx().occlusion.active());
        let late = draw::resolve_late(rec, &state, query)?;
        let upload = &mut rec.upload;
        let stream = rec
            .render
            .as_mut()
            .ok_or(vk::Result::ERROR_UNKNOWN)?
            .stream()?;
        let mut push = |b: &mut Vec<u8>| upload.push(dev, b, 64);
        let block = graphics.late_block(&late, &mut stream.words(), &mut push)?;
        let blocks = f.vdm.get(from..at).ok_or(vk::Result::ERROR_UNKNOWN)?;
        stream.vdm.extend_from_slice(blocks);
        stream.vdm.extend_from_slice(&block);
        from = at;
    }
    let stream = rec
        .render
        .as_mut()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .stream()?;
    let rest = f.vdm.get(from..).ok_or(vk::Result::ERROR_UNKNOWN)?;
    stream.vdm.extend_from_slice(rest);
    stream.draws += f.draws;
    // The secondary's draws left state the primary did not track.
    stream.emitted = None;
    stream.repeatable = None;
    Ok(())
}
