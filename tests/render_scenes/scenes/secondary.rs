//! Secondary command buffers that continue a render pass instance (RENDER_PASS_CONTINUE):
//! several secondaries executed into one subpass, each with its own scissor, depth bias and
//! vkCmdClearAttachments, one without an inherited framebuffer and one executed twice; and a
//! multiview dynamic rendering instance whose draws (one indirect) and clear come from a
//! secondary inheriting VkCommandBufferInheritanceRenderingInfo.

use super::super::frame::{blend, bytes_of, c8, clear_color, clear_depth, codes, layers, Frame};
use super::super::frame::{Pipe, Rendering, R};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::layers::{view_swizzle, VIEW_SHIFT};
use super::{D32, RGBA8};
use ash::vk;

const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const COLOR_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw() | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const COLOR_OPT: vk::ImageLayout = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "secondary_render_pass",
            size: 64,
            needs: || Needs::new().color(RGBA8).blended(RGBA8).depth(D32),
            run: secondary_render_pass,
        },
        Scene {
            name: "secondary_dynamic_multiview",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .extension(ash::khr::multiview::NAME)
                    .feature(Feature::Multiview)
                    .extension(ash::khr::dynamic_rendering::NAME)
                    .feature(Feature::DynamicRendering)
                    .layered(RGBA8, COLOR_USAGE, vk::ImageCreateFlags::empty(), 2)
            },
            run: secondary_dynamic_multiview,
        },
    ]
}

fn rect(r: [u32; 4]) -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D {
            x: r[0] as i32,
            y: r[1] as i32,
        },
        extent: vk::Extent2D {
            width: r[2] - r[0],
            height: r[3] - r[1],
        },
    }
}

/// Clears colour attachment 0 over `r` on layer 0 (every view under multiview).
fn clear_rect(f: &Frame, cb: vk::CommandBuffer, r: [u32; 4], c: [f32; 4]) {
    // SAFETY: recording inside a render pass instance with a colour attachment 0.
    unsafe {
        f.d.cmd_clear_attachments(
            cb,
            &[vk::ClearAttachment {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                color_attachment: 0,
                clear_value: clear_color(c),
            }],
            &[vk::ClearRect {
                rect: rect(r),
                base_array_layer: 0,
                layer_count: 1,
            }],
        )
    };
}

/// One subpass of colour and depth whose contents are four executions of three secondaries:
/// A (with the framebuffer) draws red at depth 0.5 biased away, under a scissor; B (no
/// framebuffer) draws green at the same depth biased nearer under another scissor, so it wins
/// only with its own scissor and depth-bias entries, then clears a rectangle blue; C adds grey
/// and is executed twice.
fn secondary_render_pass(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (_dimg, dview) = f.depth_target(D32, ONE)?;
    let rp = f.simple_pass(&[RGBA8], Some(D32), ONE)?;
    let fb = f.framebuffer(rp, &[view, dview])?;
    let biased = |bias| Pipe {
        depth: Some((true, true, vk::CompareOp::LESS)),
        depth_bias: Some((bias, 0.0, 0.0)),
        ..Pipe::default()
    };
    let p_far = f.pipeline(&biased(1000.0), rp)?;
    let p_near = f.pipeline(&biased(-1000.0), rp)?;
    let one = vk::BlendFactor::ONE;
    let add = vk::BlendOp::ADD;
    let p_add = f.pipeline(
        &Pipe {
            blends: vec![blend(one, one, add, one, one, add)],
            ..Pipe::default()
        },
        rp,
    )?;
    let (red, green, blue) = (c8(255, 0, 0, 255), c8(0, 255, 0, 255), c8(0, 0, 255, 255));
    let grey = c8(40, 40, 40, 0);
    let (red_r, red_scissor) = ([8u32, 8, 56, 56], [0u32, 0, 40, 64]);
    let (green_r, green_scissor) = ([16u32, 16, 48, 48], [24u32, 0, 64, 64]);
    let blue_r = [4u32, 44, 20, 60];
    let grey_r = [50u32, 2, 62, 14];
    let quad = |f: &Frame, r: [u32; 4], c| f.rect_w(r.map(|v| v as f32), 0.5, c, true);
    let vb_red = f.buffer(
        vk::BufferUsageFlags::VERTEX_BUFFER,
        &bytes_of(&quad(f, red_r, red)),
    )?;
    let vb_green = f.buffer(
        vk::BufferUsageFlags::VERTEX_BUFFER,
        &bytes_of(&quad(f, green_r, green)),
    )?;
    let vb_grey = f.buffer(
        vk::BufferUsageFlags::VERTEX_BUFFER,
        &bytes_of(&quad(f, grey_r, grey)),
    )?;
    let with_fb = vk::CommandBufferInheritanceInfo::default()
        .render_pass(rp)
        .subpass(0)
        .framebuffer(fb);
    let without_fb = vk::CommandBufferInheritanceInfo::default()
        .render_pass(rp)
        .subpass(0);
    let scissored = |f: &Frame, cb, s: [u32; 4]| {
        f.viewport(cb, 0.0, 0.0, f.w as f32, f.h as f32);
        f.scissor(cb, s[0] as i32, s[1] as i32, s[2] - s[0], s[3] - s[1]);
    };
    let a = f.secondary(&with_fb, |f, cb| {
        scissored(f, cb, red_scissor);
        f.draw(cb, p_far, vb_red, 6);
    })?;
    let b = f.secondary(&without_fb, |f, cb| {
        scissored(f, cb, green_scissor);
        f.draw(cb, p_near, vb_green, 6);
        clear_rect(f, cb, blue_r, blue);
    })?;
    let c = f.secondary(&with_fb, |f, cb| {
        f.full_viewport(cb);
        f.draw(cb, p_add, vb_grey, 6);
    })?;
    let begin = vk::RenderPassBeginInfo::default()
        .render_pass(rp)
        .framebuffer(fb)
        .render_area(rect([0, 0, f.w, f.h]));
    let clears = [clear_color(BG), clear_depth(1.0, 0)];
    let begin = begin.clear_values(&clears);
    f.submit(|cb| {
        // SAFETY: recording; the pass, framebuffer and secondaries are alive and were
        // recorded for this subpass.
        unsafe {
            f.d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::SECONDARY_COMMAND_BUFFERS);
            f.d.cmd_execute_commands(cb, &[a, b, c, c]);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = Image::new("color", f.w, f.h, RGBA8, codes(BG));
    want.fill(red_r[0], red_r[1], red_scissor[2], red_r[3], codes(red));
    want.fill(
        green_scissor[0],
        green_r[1],
        green_r[2],
        green_r[3],
        codes(green),
    );
    want.fill(blue_r[0], blue_r[1], blue_r[2], blue_r[3], codes(blue));
    want.fill(
        grey_r[0],
        grey_r[1],
        grey_r[2],
        grey_r[3],
        [80.0, 80.0, 80.0, 255.0],
    );
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// View mask 0b11 over a two-layer image, begun with CONTENTS_SECONDARY_COMMAND_BUFFERS: a
/// secondary draws a quad, clears a rectangle (in every view) and draws a second quad
/// indirectly; each layer shows its view's shift and channel order.
fn secondary_dynamic_multiview(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(
        RGBA8,
        w,
        h,
        2,
        COLOR_USAGE,
        ONE,
        vk::ImageCreateFlags::empty(),
    )?;
    let arr = vk::ImageViewType::TYPE_2D_ARRAY;
    let cv = f.view_of(img, RGBA8, vk::ImageAspectFlags::COLOR, arr, 0, 2)?;
    let pipe = f.pipeline(
        &Pipe {
            vs: "multiview.vert",
            fs: "multiview.frag",
            rendering: Some(Rendering {
                colors: vec![RGBA8],
                depth: vk::Format::UNDEFINED,
                view_mask: 0b11,
            }),
            ..Pipe::default()
        },
        vk::RenderPass::null(),
    )?;
    let pass_bg = c8(0, 0, 40, 255);
    let first = ([4u32, 4, 28, 28], c8(255, 128, 0, 255));
    let second = ([2u32, 40, 22, 60], c8(250, 250, 0, 255));
    let cleared = ([8u32, 16, 48, 28], c8(30, 60, 250, 255));
    let quad =
        |f: &Frame, (r, c): ([u32; 4], [f32; 4])| f.rect_w(r.map(|v| v as f32), 0.5, c, true);
    let mut verts = quad(f, first);
    verts.extend(quad(f, second));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    // VkDrawIndirectCommand: the second quad.
    let args: [u32; 4] = [6, 1, 6, 0];
    let ib = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&args))?;
    let dr = f
        .gpu
        .dynamic_rendering
        .as_ref()
        .ok_or("VK_KHR_dynamic_rendering is not enabled")?;
    let formats = [RGBA8];
    let mut rendering = vk::CommandBufferInheritanceRenderingInfo::default()
        .color_attachment_formats(&formats)
        .view_mask(0b11)
        .rasterization_samples(ONE);
    let inheritance = vk::CommandBufferInheritanceInfo::default().push_next(&mut rendering);
    let s = f.secondary(&inheritance, |f, cb| {
        f.full_viewport(cb);
        f.draw(cb, pipe, vb, 6);
        clear_rect(f, cb, cleared.0, cleared.1);
        // SAFETY: recording inside the inherited instance; the buffer holds one command.
        unsafe { f.d.cmd_draw_indirect(cb, ib, 0, 1, 16) };
    })?;
    let atts = [vk::RenderingAttachmentInfo::default()
        .image_view(cv)
        .image_layout(COLOR_OPT)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(clear_color(pass_bg))];
    let info = vk::RenderingInfo::default()
        .flags(vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS)
        .render_area(rect([0, 0, w, h]))
        .layer_count(1)
        .view_mask(0b11)
        .color_attachments(&atts);
    let to_attachment = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::empty())
        .dst_access_mask(
            vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        )
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(COLOR_OPT)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img)
        .subresource_range(layers(vk::ImageAspectFlags::COLOR, 0, 2));
    f.submit(|cb| {
        // SAFETY: recording; the image, view and secondary are alive, and the secondary was
        // recorded for this instance's formats and view mask.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_attachment],
            );
            dr.cmd_begin_rendering(cb, &info);
            f.d.cmd_execute_commands(cb, &[s]);
            dr.cmd_end_rendering(cb);
        }
    })?;
    let mut outs = Vec::new();
    for layer in 0..2u32 {
        let label = format!("layer{layer}");
        let got = f.read_layer(
            &label,
            img,
            RGBA8,
            vk::ImageAspectFlags::COLOR,
            COLOR_OPT,
            layer,
        )?;
        let dx = VIEW_SHIFT * layer;
        let mut want = Image::new(&label, w, h, RGBA8, codes(pass_bg));
        let (r, c) = first;
        want.fill(
            r[0] + dx,
            r[1],
            r[2] + dx,
            r[3],
            view_swizzle(codes(c), layer),
        );
        let (r, c) = cleared;
        want.fill(r[0], r[1], r[2], r[3], codes(c));
        let (r, c) = second;
        want.fill(
            r[0] + dx,
            r[1],
            r[2] + dx,
            r[3],
            view_swizzle(codes(c), layer),
        );
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}
