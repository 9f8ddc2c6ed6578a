//! Layered rendering: multiview passes (VK_KHR_multiview) broadcasting draws and clears to the
//! layers of their view mask, a framebuffer of several layers cleared by LOAD_OP_CLEAR and
//! vkCmdClearAttachments, one face of a cube-compatible image rendered through a 2D view, and one
//! depth slice of a mip level of a 3D image rendered through a 2D view (2D_ARRAY_COMPATIBLE).

use super::super::frame::{
    bytes_of, c8, clear_color, clear_depth, codes, color_att, depth_att, layers, Frame, Pipe, R, V,
};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{draw_tri, flat_tri, Interp};
use super::super::run::{Out, Scene};
use super::{D32, RGBA8};
use ash::vk;

const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
/// How far multiview.vert moves geometry per view index, in pixels of a 64-pixel frame.
pub const VIEW_SHIFT: u32 = 16;

const COLOR_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw() | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const CLEARED_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    COLOR_USAGE.as_raw() | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);
const DEPTH_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const NO_FLAGS: vk::ImageCreateFlags = vk::ImageCreateFlags::empty();

/// A multiview pass into an RGBA8 image of `n` layers.
fn multiview(n: u32) -> Needs {
    Needs::new()
        .color(RGBA8)
        .extension(ash::khr::multiview::NAME)
        .feature(Feature::Multiview)
        .layered(RGBA8, CLEARED_USAGE, NO_FLAGS, n)
}

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "multiview_depth",
            size: 64,
            needs: || {
                multiview(2)
                    .depth(D32)
                    .layered(D32, DEPTH_USAGE, NO_FLAGS, 2)
            },
            run: multiview_depth,
        },
        Scene {
            name: "multiview_mask_clear",
            size: 64,
            needs: || multiview(3),
            run: multiview_mask_clear,
        },
        Scene {
            name: "multiview_subpass_masks",
            size: 64,
            needs: || multiview(2),
            run: multiview_subpass_masks,
        },
        Scene {
            name: "layered_clear",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .layered(RGBA8, COLOR_USAGE, NO_FLAGS, 3)
                    .framebuffer_layers(3)
            },
            run: layered_clear,
        },
        Scene {
            name: "cube_face",
            size: 64,
            needs: || {
                Needs::new().color(RGBA8).layered(
                    RGBA8,
                    CLEARED_USAGE,
                    vk::ImageCreateFlags::CUBE_COMPATIBLE,
                    6,
                )
            },
            run: cube_face,
        },
        Scene {
            name: "slice_of_3d_level",
            size: 32,
            needs: || Needs::new().color(RGBA8),
            run: slice_of_3d_level,
        },
    ]
}

/// A layout transition (or, with equal layouts, a memory dependency) of some layers.
#[allow(clippy::too_many_arguments)]
fn barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    base: u32,
    count: u32,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src: vk::AccessFlags,
    dst: vk::AccessFlags,
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(layers(aspect, base, count))
}

fn pipeline_barrier(
    f: &Frame,
    cb: vk::CommandBuffer,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    barriers: &[vk::ImageMemoryBarrier],
) {
    // SAFETY: recording command buffer outside a render pass; the images are alive.
    unsafe {
        f.d.cmd_pipeline_barrier(
            cb,
            src,
            dst,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            barriers,
        )
    };
}

/// Clears layer `i` of `image` (in TRANSFER_DST_OPTIMAL) to `colors[i]`.
fn clear_layers(f: &Frame, cb: vk::CommandBuffer, image: vk::Image, colors: &[[f32; 4]]) {
    for (i, &c) in colors.iter().enumerate() {
        // SAFETY: recording outside a render pass; the image has TRANSFER_DST usage.
        unsafe {
            f.d.cmd_clear_color_image(
                cb,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue { float32: c },
                &[layers(vk::ImageAspectFlags::COLOR, i as u32, 1)],
            )
        };
    }
}

/// The colour multiview.frag writes for `c` in view `view`.
pub fn view_swizzle(c: [f64; 4], view: u32) -> [f64; 4] {
    match view {
        0 => c,
        1 => [c[1], c[2], c[0], c[3]],
        _ => [c[2], c[0], c[1], c[3]],
    }
}

/// A multiview render pass over one colour (and optionally one depth) attachment.
fn multiview_pass(
    f: &mut Frame,
    color: vk::AttachmentDescription,
    depth: Option<vk::AttachmentDescription>,
    view_mask: u32,
) -> R<vk::RenderPass> {
    let mut atts = vec![color];
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let dref = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let mut sub = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref);
    if let Some(d) = depth {
        atts.push(d);
        sub = sub.depth_stencil_attachment(&dref);
    }
    let subs = [sub];
    let masks = [view_mask];
    let mut mv = vk::RenderPassMultiviewCreateInfo::default()
        .view_masks(&masks)
        .correlation_masks(&masks);
    f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .push_next(&mut mv),
    )
}

/// View mask 0b11 over two-layer colour and depth images: a near quad then a far one that the
/// depth test must hide where they overlap; each view moves both and writes its own channel
/// order, and each layer is checked against its own expectation.
fn multiview_depth(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(RGBA8, w, h, 2, COLOR_USAGE, ONE, NO_FLAGS)?;
    let dimg = f.image_layers(D32, w, h, 2, DEPTH_USAGE, ONE, NO_FLAGS)?;
    let arr = vk::ImageViewType::TYPE_2D_ARRAY;
    let cv = f.view_of(img, RGBA8, vk::ImageAspectFlags::COLOR, arr, 0, 2)?;
    let dv = f.view_of(dimg, D32, vk::ImageAspectFlags::DEPTH, arr, 0, 2)?;
    let color = color_att(
        RGBA8,
        ONE,
        vk::AttachmentLoadOp::CLEAR,
        vk::ImageLayout::UNDEFINED,
    );
    let depth = depth_att(D32, ONE, vk::AttachmentLoadOp::CLEAR);
    let rp = multiview_pass(f, color, Some(depth), 0b11)?;
    let fb = f.framebuffer(rp, &[cv, dv])?;
    let pipe = f.pipeline(
        &Pipe {
            vs: "multiview.vert",
            fs: "multiview.frag",
            depth: Some((true, true, vk::CompareOp::LESS)),
            ..Pipe::default()
        },
        rp,
    )?;
    let (near_c, far_c) = (c8(200, 40, 10, 255), c8(20, 90, 230, 255));
    let near = [4u32, 8, 28, 40];
    let far = [16u32, 20, 44, 56];
    let (near_z, far_z) = (0.25f32, 0.625f32);
    let quad = |f: &Frame, r: [u32; 4], z, c| f.rect_w(r.map(|v| v as f32), z, c, true);
    let mut verts = quad(f, near, near_z, near_c);
    verts.extend(quad(f, far, far_z, far_c));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_depth(1.0, 0)]);
        f.draw(cb, pipe, vb, verts.len() as u32);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let mut outs = Vec::new();
    for view in 0..2u32 {
        let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let gc = f.read_layer(
            &format!("color{view}"),
            img,
            RGBA8,
            vk::ImageAspectFlags::COLOR,
            src,
            view,
        )?;
        let gd = f.read_layer(
            &format!("depth{view}"),
            dimg,
            D32,
            vk::ImageAspectFlags::DEPTH,
            src,
            view,
        )?;
        let dx = VIEW_SHIFT * view;
        let mut wc = Image::new(&format!("color{view}"), w, h, RGBA8, codes(BG));
        let mut wd = Image::new(&format!("depth{view}"), w, h, D32, [1.0, 0.0, 0.0, 0.0]);
        // Far first, near over it: the depth test keeps the near quad where both cover.
        for (r, c, z) in [(far, far_c, far_z), (near, near_c, near_z)] {
            wc.fill(
                r[0] + dx,
                r[1],
                r[2] + dx,
                r[3],
                view_swizzle(codes(c), view),
            );
            wd.fill(r[0] + dx, r[1], r[2] + dx, r[3], [z as f64, 0.0, 0.0, 0.0]);
        }
        outs.push(Out::new(gc, Some(wc), Tol::EXACT));
        outs.push(Out::new(gd, Some(wd), Tol::EXACT));
    }
    Ok(outs)
}

/// View mask 0b101 over a three-layer image whose layers were first cleared to three colours by
/// vkCmdClearColorImage: LOAD_OP_CLEAR, a draw, a vkCmdClearAttachments rectangle and another
/// draw reach layers 0 and 2 only; layer 1 keeps its earlier colour.
fn multiview_mask_clear(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(RGBA8, w, h, 3, CLEARED_USAGE, ONE, NO_FLAGS)?;
    let arr = vk::ImageViewType::TYPE_2D_ARRAY;
    let cv = f.view_of(img, RGBA8, vk::ImageAspectFlags::COLOR, arr, 0, 3)?;
    // The image stays in COLOR_ATTACHMENT_OPTIMAL through the pass, so no layout transition
    // can touch the layer outside the view mask.
    let att = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let mut color = color_att(RGBA8, ONE, vk::AttachmentLoadOp::CLEAR, att);
    color.final_layout = att;
    let rp = multiview_pass(f, color, None, 0b101)?;
    let fb = f.framebuffer(rp, &[cv])?;
    let pipe = f.pipeline(
        &Pipe {
            vs: "multiview.vert",
            fs: "multiview.frag",
            ..Pipe::default()
        },
        rp,
    )?;
    let before = [
        c8(90, 90, 90, 255),
        c8(10, 200, 30, 255),
        c8(60, 0, 120, 255),
    ];
    let pass_bg = c8(0, 0, 40, 255);
    let first = ([4u32, 4, 28, 28], c8(255, 128, 0, 255));
    let second = ([2u32, 40, 22, 60], c8(250, 250, 0, 255));
    let cleared = ([8u32, 16, 48, 28], c8(30, 60, 250, 255));
    let quad =
        |f: &Frame, (r, c): ([u32; 4], [f32; 4])| f.rect_w(r.map(|v| v as f32), 0.5, c, true);
    let mut verts: Vec<V> = quad(f, first);
    verts.extend(quad(f, second));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let color_rw = vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE;
    f.submit(|cb| {
        let aspect = vk::ImageAspectFlags::COLOR;
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            &[barrier(
                img,
                aspect,
                0,
                3,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::AccessFlags::empty(),
                vk::AccessFlags::TRANSFER_WRITE,
            )],
        );
        clear_layers(f, cb, img, &before);
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            &[barrier(
                img,
                aspect,
                0,
                3,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                att,
                vk::AccessFlags::TRANSFER_WRITE,
                color_rw,
            )],
        );
        f.begin(cb, rp, fb, &[clear_color(pass_bg)]);
        let (r, c) = cleared;
        // SAFETY: recording inside the pass; pipeline and buffer alive. With multiview the
        // rectangle names layer 0 only and is broadcast to every view of the mask.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_draw(cb, 6, 1, 0, 0);
            f.d.cmd_clear_attachments(
                cb,
                &[vk::ClearAttachment {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    color_attachment: 0,
                    clear_value: clear_color(c),
                }],
                &[vk::ClearRect {
                    rect: vk::Rect2D {
                        offset: vk::Offset2D {
                            x: r[0] as i32,
                            y: r[1] as i32,
                        },
                        extent: vk::Extent2D {
                            width: r[2] - r[0],
                            height: r[3] - r[1],
                        },
                    },
                    base_array_layer: 0,
                    layer_count: 1,
                }],
            );
            f.d.cmd_draw(cb, 6, 1, 6, 0);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let mut outs = Vec::new();
    for layer in 0..3u32 {
        let label = format!("layer{layer}");
        let got = f.read_layer(&label, img, RGBA8, vk::ImageAspectFlags::COLOR, att, layer)?;
        let want = if layer == 1 {
            Image::new(&label, w, h, RGBA8, codes(before[1]))
        } else {
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
            want
        };
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}

/// Two subpasses of one multiview pass, view masks 0b01 and 0b10, over a partial render area
/// of a two-layer image cleared beforehand: each view's LOAD_OP_CLEAR runs in the first
/// subpass whose mask holds it (view 1's in subpass 1, inside the area only), and each
/// subpass draws into its own view.
fn multiview_subpass_masks(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(RGBA8, w, h, 2, CLEARED_USAGE, ONE, NO_FLAGS)?;
    let arr = vk::ImageViewType::TYPE_2D_ARRAY;
    let cv = f.view_of(img, RGBA8, vk::ImageAspectFlags::COLOR, arr, 0, 2)?;
    let att = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let mut color = color_att(RGBA8, ONE, vk::AttachmentLoadOp::CLEAR, att);
    color.final_layout = att;
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: att,
    }];
    let sub = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref);
    let (subs, masks) = ([sub, sub], [0b01u32, 0b10]);
    let mut mv = vk::RenderPassMultiviewCreateInfo::default().view_masks(&masks);
    let atts = [color];
    let out = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
    let deps = [vk::SubpassDependency {
        src_subpass: 0,
        dst_subpass: 1,
        src_stage_mask: out,
        dst_stage_mask: out,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dependency_flags: vk::DependencyFlags::empty(),
    }];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps)
            .push_next(&mut mv),
    )?;
    let fb = f.framebuffer(rp, &[cv])?;
    let pipes = [0u32, 1].map(|subpass| {
        f.pipeline(
            &Pipe {
                vs: "multiview.vert",
                fs: "multiview.frag",
                subpass,
                ..Pipe::default()
            },
            rp,
        )
    });
    let [p0, p1] = pipes;
    let (p0, p1) = (p0?, p1?);
    let before = [c8(90, 90, 90, 255), c8(10, 200, 30, 255)];
    let pass_bg = c8(0, 0, 40, 255);
    // Not a whole number of 32-pixel tiles: the load op is drawn as a clear of the area.
    let area = [0u32, 0, 40, 64];
    let quads = [
        ([4u32, 4, 28, 28], c8(255, 128, 0, 255)),
        ([2u32, 36, 12, 60], c8(250, 250, 0, 255)),
    ];
    let mut verts: Vec<V> = Vec::new();
    for (r, c) in quads {
        verts.extend(f.rect_w(r.map(|v| v as f32), 0.5, c, true));
    }
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let color_rw = vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE;
    f.submit(|cb| {
        let aspect = vk::ImageAspectFlags::COLOR;
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            &[barrier(
                img,
                aspect,
                0,
                2,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::AccessFlags::empty(),
                vk::AccessFlags::TRANSFER_WRITE,
            )],
        );
        clear_layers(f, cb, img, &before);
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            &[barrier(
                img,
                aspect,
                0,
                2,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                att,
                vk::AccessFlags::TRANSFER_WRITE,
                color_rw,
            )],
        );
        let clears = [clear_color(pass_bg)];
        let info = vk::RenderPassBeginInfo::default()
            .render_pass(rp)
            .framebuffer(fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D {
                    width: area[2],
                    height: area[3],
                },
            })
            .clear_values(&clears);
        // SAFETY: recording; the pass, framebuffer, pipelines and buffer are alive.
        unsafe {
            f.d.cmd_begin_render_pass(cb, &info, vk::SubpassContents::INLINE);
            f.full_viewport(cb);
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, p0);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_draw(cb, 6, 1, 0, 0);
            f.d.cmd_next_subpass(cb, vk::SubpassContents::INLINE);
            f.full_viewport(cb);
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, p1);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_draw(cb, 6, 1, 6, 0);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let mut outs = Vec::new();
    for view in 0..2u32 {
        let label = format!("layer{view}");
        let got = f.read_layer(&label, img, RGBA8, vk::ImageAspectFlags::COLOR, att, view)?;
        let mut want = Image::new(&label, w, h, RGBA8, codes(before[view as usize]));
        want.fill(area[0], area[1], area[2], area[3], codes(pass_bg));
        let (r, c) = quads[view as usize];
        let dx = VIEW_SHIFT * view;
        let right = (r[2] + dx).min(area[2]);
        want.fill(r[0] + dx, r[1], right, r[3], view_swizzle(codes(c), view));
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}

/// A framebuffer of three layers over a 2D_ARRAY view, no multiview: LOAD_OP_CLEAR clears every
/// layer, a draw (no gl_Layer) lands on layer 0 only, and vkCmdClearAttachments with layers 1
/// and 2 clears a rectangle of those two.
fn layered_clear(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(RGBA8, w, h, 3, COLOR_USAGE, ONE, NO_FLAGS)?;
    let arr = vk::ImageViewType::TYPE_2D_ARRAY;
    let cv = f.view_of(img, RGBA8, vk::ImageAspectFlags::COLOR, arr, 0, 3)?;
    let rp = f.simple_pass(&[RGBA8], None, ONE)?;
    let views = [cv];
    let fb = f.framebuffer_info(
        &vk::FramebufferCreateInfo::default()
            .render_pass(rp)
            .attachments(&views)
            .width(w)
            .height(h)
            .layers(3),
    )?;
    let pipe = f.pipeline(&Pipe::default(), rp)?;
    let bg = c8(20, 20, 20, 255);
    let (drawn, drawn_c) = ([8u32, 8, 40, 40], c8(255, 0, 128, 255));
    let (cleared, cleared_c) = ([24u32, 28, 56, 52], c8(0, 255, 64, 255));
    let verts = f.rect_w(drawn.map(|v| v as f32), 0.5, drawn_c, true);
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(bg)]);
        f.draw(cb, pipe, vb, 6);
        // SAFETY: recording inside the pass; layers 1..3 exist in the framebuffer.
        unsafe {
            f.d.cmd_clear_attachments(
                cb,
                &[vk::ClearAttachment {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    color_attachment: 0,
                    clear_value: clear_color(cleared_c),
                }],
                &[vk::ClearRect {
                    rect: vk::Rect2D {
                        offset: vk::Offset2D {
                            x: cleared[0] as i32,
                            y: cleared[1] as i32,
                        },
                        extent: vk::Extent2D {
                            width: cleared[2] - cleared[0],
                            height: cleared[3] - cleared[1],
                        },
                    },
                    base_array_layer: 1,
                    layer_count: 2,
                }],
            );
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let mut outs = Vec::new();
    for layer in 0..3u32 {
        let label = format!("layer{layer}");
        let got = f.read_layer(
            &label,
            img,
            RGBA8,
            vk::ImageAspectFlags::COLOR,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            layer,
        )?;
        let mut want = Image::new(&label, w, h, RGBA8, codes(bg));
        let (r, c) = if layer == 0 {
            (drawn, drawn_c)
        } else {
            (cleared, cleared_c)
        };
        want.fill(r[0], r[1], r[2], r[3], codes(c));
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}

/// A cube-compatible image of six layers, each face cleared to its own colour by
/// vkCmdClearColorImage; a pass loads face 4 through a 2D view of that layer and draws a
/// triangle on it. A CUBE view of all six faces is made too (and destroyed with the frame).
fn cube_face(f: &mut Frame) -> R<Vec<Out>> {
    const FACE: u32 = 4;
    let (w, h) = (f.w, f.h);
    let img = f.image_layers(
        RGBA8,
        w,
        h,
        6,
        CLEARED_USAGE,
        ONE,
        vk::ImageCreateFlags::CUBE_COMPATIBLE,
    )?;
    let aspect = vk::ImageAspectFlags::COLOR;
    f.view_of(img, RGBA8, aspect, vk::ImageViewType::CUBE, 0, 6)?;
    let face = f.view_of(img, RGBA8, aspect, vk::ImageViewType::TYPE_2D, FACE, 1)?;
    let att = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let rp = {
        let atts = [color_att(RGBA8, ONE, vk::AttachmentLoadOp::LOAD, att)];
        let cref = [vk::AttachmentReference {
            attachment: 0,
            layout: att,
        }];
        let subs = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&cref)];
        f.render_pass(
            &vk::RenderPassCreateInfo::default()
                .attachments(&atts)
                .subpasses(&subs),
        )?
    };
    let fb = f.framebuffer(rp, &[face])?;
    let pipe = f.pipeline(&Pipe::default(), rp)?;
    let faces = [
        c8(255, 0, 0, 255),
        c8(0, 255, 0, 255),
        c8(0, 0, 255, 255),
        c8(255, 255, 0, 255),
        c8(0, 255, 255, 255),
        c8(255, 0, 255, 255),
    ];
    let tri_c = c8(40, 80, 160, 255);
    let tri = [[5.0, 3.0], [60.0, 21.5], [17.25, 59.0]];
    let verts: Vec<V> = tri
        .iter()
        .map(|p: &[f64; 2]| f.v(p[0] as f32, p[1] as f32, 0.5, tri_c))
        .collect();
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            &[barrier(
                img,
                aspect,
                0,
                6,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::AccessFlags::empty(),
                vk::AccessFlags::TRANSFER_WRITE,
            )],
        );
        clear_layers(f, cb, img, &faces);
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            &[barrier(
                img,
                aspect,
                FACE,
                1,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                att,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            )],
        );
        f.begin(cb, rp, fb, &[]);
        f.draw(cb, pipe, vb, 3);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let mut outs = Vec::new();
    for (i, &c) in faces.iter().enumerate() {
        let layer = i as u32;
        let label = format!("face{layer}");
        // The pass left face 4 in TRANSFER_SRC_OPTIMAL; the others stay where the clears left them.
        let layout = if layer == FACE {
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL
        } else {
            vk::ImageLayout::TRANSFER_DST_OPTIMAL
        };
        let got = f.read_layer(&label, img, RGBA8, aspect, layout, layer)?;
        let mut want = Image::new(&label, w, h, RGBA8, codes(c));
        if layer == FACE {
            draw_tri(
                &mut want,
                &flat_tri(tri, tri_c.map(|v| v as f64)),
                Interp::Flat,
            );
        }
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}

/// A 64x64x4 3D image of two levels (2D_ARRAY_COMPATIBLE): vkCmdClearColorImage clears level 0
/// and level 1 (32x32x2) to colours of their own; a pass loads depth slice 1 of level 1 through
/// a 2D view and draws a triangle on it. Slice 0 of level 1 and the last slice of level 0 keep
/// their clear colours: the clear of level 1 covers its two slices only, and the view lands on
/// the slice it names.
fn slice_of_3d_level(f: &mut Frame) -> R<Vec<Out>> {
    const LEVEL: u32 = 1;
    const SLICE: u32 = 1;
    let (w, h) = (2 * f.w, 2 * f.h);
    let img = f.image_3d(
        RGBA8,
        vk::Extent3D {
            width: w,
            height: h,
            depth: 4,
        },
        2,
        CLEARED_USAGE,
        vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE,
    )?;
    let aspect = vk::ImageAspectFlags::COLOR;
    let level = |l: u32| vk::ImageSubresourceRange {
        base_mip_level: l,
        level_count: 1,
        ..layers(aspect, 0, 1)
    };
    let info = vk::ImageViewCreateInfo::default()
        .image(img)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(RGBA8)
        .subresource_range(vk::ImageSubresourceRange {
            base_mip_level: LEVEL,
            ..layers(aspect, SLICE, 1)
        });
    let slice = f.view_from(&info)?;
    let att = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let rp = {
        let atts = [color_att(RGBA8, ONE, vk::AttachmentLoadOp::LOAD, att)];
        let cref = [vk::AttachmentReference {
            attachment: 0,
            layout: att,
        }];
        let subs = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&cref)];
        f.render_pass(
            &vk::RenderPassCreateInfo::default()
                .attachments(&atts)
                .subpasses(&subs),
        )?
    };
    let fb = f.framebuffer(rp, &[slice])?;
    let pipe = f.pipeline(&Pipe::default(), rp)?;
    let (c0, c1) = (c8(200, 60, 20, 255), c8(30, 90, 210, 255));
    let tri_c = c8(250, 240, 40, 255);
    let tri = [[3.0, 2.0], [29.5, 11.25], [9.75, 30.0]];
    let verts: Vec<V> = tri
        .iter()
        .map(|p: &[f64; 2]| f.v(p[0] as f32, p[1] as f32, 0.5, tri_c))
        .collect();
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        let mut to_dst = barrier(
            img,
            aspect,
            0,
            1,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::AccessFlags::empty(),
            vk::AccessFlags::TRANSFER_WRITE,
        );
        to_dst.subresource_range.level_count = 2;
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            &[to_dst],
        );
        for (l, c) in [(0, c0), (LEVEL, c1)] {
            // SAFETY: recording outside a render pass; the image has TRANSFER_DST usage.
            unsafe {
                f.d.cmd_clear_color_image(
                    cb,
                    img,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &vk::ClearColorValue { float32: c },
                    &[level(l)],
                )
            };
        }
        let mut to_att = barrier(
            img,
            aspect,
            0,
            1,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            att,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        );
        to_att.subresource_range = level(LEVEL);
        pipeline_barrier(
            f,
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            &[to_att],
        );
        f.begin(cb, rp, fb, &[]);
        f.draw(cb, pipe, vb, 3);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    let mut outs = Vec::new();
    // The pass left level 1 in TRANSFER_SRC_OPTIMAL (its final layout); level 0 stays where the
    // clear left it.
    let top = f.read_slice("level0_slice3", img, RGBA8, dst, (w, h), 0, 3)?;
    let want = Image::new("level0_slice3", w, h, RGBA8, codes(c0));
    outs.push(Out::new(top, Some(want), Tol::EXACT));
    for z in 0..2 {
        let label = format!("level1_slice{z}");
        let got = f.read_slice(&label, img, RGBA8, src, (w, h), LEVEL, z)?;
        let mut want = Image::new(&label, f.w, f.h, RGBA8, codes(c1));
        if z == SLICE {
            draw_tri(
                &mut want,
                &flat_tri(tri, tri_c.map(|v| v as f64)),
                Interp::Flat,
            );
        }
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}
