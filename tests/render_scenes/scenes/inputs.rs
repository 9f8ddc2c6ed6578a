//! Input attachments beyond a colour attachment read in a later subpass: feedback loops (a
//! subpass reads the colour attachment it renders to, single-sampled and per sample), a
//! multisampled input attachment read at a chosen sample, and depth/stencil input
//! attachments (read in a later subpass, and read by the subpass that renders them).

use super::super::frame::{
    bytes_of, c8, clear_color, clear_depth, codes, color_att, depth_att, Frame, Pipe, R, V,
};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::passes::{msaa_triangle, want_resolved, BG};
use super::{D32, D32S8, RGBA8};
use ash::vk;

const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const GENERAL: vk::ImageLayout = vk::ImageLayout::GENERAL;
const COLOR_OPT: vk::ImageLayout = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
const INPUT: vk::ImageUsageFlags = vk::ImageUsageFlags::INPUT_ATTACHMENT;

pub fn scenes() -> Vec<Scene> {
    let ms_input = || {
        Needs::new()
            .input(RGBA8)
            .msaa(RGBA8, vk::ImageUsageFlags::COLOR_ATTACHMENT | INPUT, X4)
    };
    vec![
        Scene {
            name: "input_feedback",
            size: 64,
            needs: || Needs::new().input(RGBA8),
            run: input_feedback,
        },
        Scene {
            name: "input_feedback_msaa4",
            size: 64,
            needs: || {
                Needs::new()
                    .input(RGBA8)
                    .msaa(RGBA8, vk::ImageUsageFlags::COLOR_ATTACHMENT | INPUT, X4)
                    .feature(Feature::SampleRateShading)
            },
            run: input_feedback_msaa,
        },
        Scene {
            name: "input_msaa4_sample",
            size: 64,
            needs: ms_input,
            run: input_msaa_sample,
        },
        Scene {
            name: "input_depth_stencil",
            size: 64,
            needs: || ds_input(D32S8),
            run: input_depth_stencil,
        },
        Scene {
            name: "input_depth_feedback",
            size: 64,
            needs: || ds_input(D32),
            run: input_depth_feedback,
        },
    ]
}

/// A colour attachment that is read as an input attachment, and depth/stencil format `f`
/// as an attachment that is an input attachment too.
fn ds_input(f: vk::Format) -> Needs {
    Needs::new().input(RGBA8).transfer(
        f,
        vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | INPUT | vk::ImageUsageFlags::TRANSFER_SRC,
    )
}

/// A descriptor set of input attachments, one binding per (view, layout), and a pipeline
/// layout with it as set 0.
fn input_set(
    f: &mut Frame,
    views: &[(vk::ImageView, vk::ImageLayout)],
) -> R<(vk::PipelineLayout, vk::DescriptorSet)> {
    let bindings: Vec<_> = (0..views.len() as u32)
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::INPUT_ATTACHMENT)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        })
        .collect();
    let sl = f.set_layout(&bindings)?;
    let layout = f.layout(&[sl], 0)?;
    let set = f.descriptor_set(
        sl,
        &[vk::DescriptorPoolSize {
            ty: vk::DescriptorType::INPUT_ATTACHMENT,
            descriptor_count: views.len() as u32,
        }],
    )?;
    let infos: Vec<[vk::DescriptorImageInfo; 1]> = views
        .iter()
        .map(|&(image_view, image_layout)| {
            [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view,
                image_layout,
            }]
        })
        .collect();
    let writes: Vec<_> = infos
        .iter()
        .enumerate()
        .map(|(b, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b as u32)
                .descriptor_type(vk::DescriptorType::INPUT_ATTACHMENT)
                .image_info(info)
        })
        .collect();
    // SAFETY: valid set and views.
    unsafe { f.d.update_descriptor_sets(&writes, &[]) };
    Ok((layout, set))
}

fn bind_set(f: &Frame, cb: vk::CommandBuffer, layout: vk::PipelineLayout, set: vk::DescriptorSet) {
    // SAFETY: recording; the set and layout are alive.
    unsafe {
        f.d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::GRAPHICS, layout, 0, &[set], &[])
    };
}

/// A subpass dependency from `src` (stages, access) to input attachment reads, by region.
fn input_dependency(
    src_subpass: u32,
    dst_subpass: u32,
    src_stage_mask: vk::PipelineStageFlags,
    src_access_mask: vk::AccessFlags,
) -> vk::SubpassDependency {
    vk::SubpassDependency {
        src_subpass,
        dst_subpass,
        src_stage_mask,
        dst_stage_mask: vk::PipelineStageFlags::FRAGMENT_SHADER,
        src_access_mask,
        dst_access_mask: vk::AccessFlags::INPUT_ATTACHMENT_READ,
        dependency_flags: vk::DependencyFlags::BY_REGION,
    }
}

/// The barrier of a subpass self-dependency: earlier writes become visible to input
/// attachment reads of later draws.
fn self_barrier(
    f: &Frame,
    cb: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
) {
    let b = [vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(vk::AccessFlags::INPUT_ATTACHMENT_READ)];
    // SAFETY: recording inside a subpass whose self-dependency covers the barrier.
    unsafe {
        f.d.cmd_pipeline_barrier(
            cb,
            src_stage,
            vk::PipelineStageFlags::FRAGMENT_SHADER,
            vk::DependencyFlags::BY_REGION,
            &b,
            &[],
            &[],
        )
    };
}

fn clear_rect(x: i32, y: i32, w: u32, h: u32) -> vk::ClearRect {
    vk::ClearRect {
        rect: vk::Rect2D {
            offset: vk::Offset2D { x, y },
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        },
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// One subpass renders two quads and clears a rectangle of its colour attachment, then
/// (after a self-dependency barrier) reads the attachment as an input attachment in a draw
/// over the whole frame that writes it back swizzled.
fn input_feedback(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, INPUT, ONE)?;
    let atts = [color_att(
        RGBA8,
        ONE,
        vk::AttachmentLoadOp::CLEAR,
        vk::ImageLayout::UNDEFINED,
    )];
    let general = [vk::AttachmentReference {
        attachment: 0,
        layout: GENERAL,
    }];
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&general)
        .input_attachments(&general)];
    let deps = [input_dependency(
        0,
        0,
        vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
    )];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[av])?;
    let (layout, set) = input_set(f, &[(av, GENERAL)])?;
    let p0 = f.pipeline(&Pipe::default(), rp)?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read.frag",
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let rects = [
        (4.0, 4.0, 40.0, 40.0, c8(10, 20, 30, 255)),
        (24.0, 30.0, 60.0, 60.0, c8(250, 128, 3, 200)),
    ];
    let v0: Vec<V> = rects
        .iter()
        .flat_map(|&(x0, y0, x1, y1, c)| f.rect(x0, y0, x1, y1, 0.5, c))
        .collect();
    let v1 = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, [1.0; 4]);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    let bg = c8(0, 0, 40, 255);
    let cleared = c8(90, 200, 60, 255);
    let clear = [vk::ClearAttachment {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        color_attachment: 0,
        clear_value: clear_color(cleared),
    }];
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(bg)]);
        f.draw(cb, p0, vb0, v0.len() as u32);
        // SAFETY: recording inside the pass; attachment 0 is bound.
        unsafe {
            f.d.cmd_clear_attachments(cb, &clear, &[clear_rect(36, 6, 20, 16)]);
        }
        self_barrier(
            f,
            cb,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        );
        bind_set(f, cb, layout, set);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        a,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = Image::new("color", f.w, f.h, RGBA8, codes(bg));
    for &(x0, y0, x1, y1, c) in &rects {
        want.fill(x0 as u32, y0 as u32, x1 as u32, y1 as u32, codes(c));
    }
    want.fill(36, 6, 56, 22, codes(cleared));
    for p in want.px.iter_mut() {
        *p = [p[1], p[2], p[0], p[3]];
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// A 4x attachment gets a triangle, then a per-sample draw over the frame reads each sample
/// of it (a feedback loop) and writes it back swizzled; the resolve shows the mean.
fn input_feedback_msaa(f: &mut Frame) -> R<Vec<Out>> {
    let (_ms, msv) = f.target(RGBA8, INPUT, X4)?;
    let (res, resv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let atts = [
        color_att(
            RGBA8,
            X4,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
        ),
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::DONT_CARE,
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let general = [vk::AttachmentReference {
        attachment: 0,
        layout: GENERAL,
    }];
    let resolve = [vk::AttachmentReference {
        attachment: 1,
        layout: COLOR_OPT,
    }];
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&general)
        .input_attachments(&general)
        .resolve_attachments(&resolve)];
    let deps = [input_dependency(
        0,
        0,
        vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
    )];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[msv, resv])?;
    let (layout, set) = input_set(f, &[(msv, GENERAL)])?;
    let p0 = f.pipeline(
        &Pipe {
            samples: X4,
            ..Pipe::default()
        },
        rp,
    )?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read_ms.frag",
            samples: X4,
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let col = c8(200, 90, 30, 255);
    let (v0, tri) = msaa_triangle(f, col);
    let v1 = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, [1.0; 4]);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_color(BG)]);
        f.draw(cb, p0, vb0, 3);
        self_barrier(
            f,
            cb,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        );
        bind_set(f, cb, layout, set);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "resolved",
        res,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    // BG swizzled is BG.
    let swizzled = [col[1], col[2], col[0], col[3]].map(f64::from);
    let want = want_resolved(f, &tri, |_| swizzled);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Subpass 0 draws a triangle into a 4x attachment; subpass 1 reads sample x mod 4 of each
/// pixel of it (pixel-rate shading) into a single-sample attachment.
fn input_msaa_sample(f: &mut Frame) -> R<Vec<Out>> {
    let (_ms, msv) = f.target(RGBA8, INPUT, X4)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let atts = [
        color_att(
            RGBA8,
            X4,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
        ),
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::DONT_CARE,
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let c0 = [vk::AttachmentReference {
        attachment: 0,
        layout: COLOR_OPT,
    }];
    let in0 = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let c1 = [vk::AttachmentReference {
        attachment: 1,
        layout: COLOR_OPT,
    }];
    let subs = [
        vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&c0),
        vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .input_attachments(&in0)
            .color_attachments(&c1),
    ];
    let deps = [input_dependency(
        0,
        1,
        vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
    )];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[msv, bv])?;
    let (layout, set) = input_set(f, &[(msv, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)])?;
    let p0 = f.pipeline(
        &Pipe {
            samples: X4,
            ..Pipe::default()
        },
        rp,
    )?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read_sample.frag",
            subpass: 1,
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let col = c8(30, 160, 220, 255);
    let (v0, tri) = msaa_triangle(f, col);
    let v1 = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, [1.0; 4]);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_color(BG)]);
        f.draw(cb, p0, vb0, 3);
        // SAFETY: recording inside the pass; the set and layout are alive.
        unsafe { f.d.cmd_next_subpass(cb, vk::SubpassContents::INLINE) };
        bind_set(f, cb, layout, set);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        b,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = Image::new("color", f.w, f.h, RGBA8, codes(BG));
    for y in 0..f.h {
        for x in 0..f.w {
            let s = SAMPLES_4X[(x & 3) as usize];
            match cover(&tri, [f64::from(x) + s[0], f64::from(y) + s[1]]) {
                Cover::In(_) => want.set(x, y, codes(col)),
                Cover::Out => {}
                Cover::Edge => want.ignore(x, y),
            }
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// A depth/stencil image that is also an input attachment, its view of every aspect and one
/// view per aspect (for descriptors, which name one aspect).
fn ds_input_target(
    f: &mut Frame,
    format: vk::Format,
) -> R<(vk::Image, vk::ImageView, Vec<vk::ImageView>)> {
    let usage =
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | INPUT | vk::ImageUsageFlags::TRANSFER_SRC;
    let (w, h) = (f.w, f.h);
    let img = f.image_full(format, w, h, usage, ONE)?;
    let mut aspects = vec![vk::ImageAspectFlags::DEPTH];
    if format == D32S8 {
        aspects.push(vk::ImageAspectFlags::STENCIL);
    }
    let all = aspects
        .iter()
        .fold(vk::ImageAspectFlags::empty(), |a, b| a | *b);
    let view = f.view(img, format, all)?;
    let mut per_aspect = Vec::new();
    for a in aspects {
        per_aspect.push(f.view(img, format, a)?);
    }
    Ok((img, view, per_aspect))
}

fn replace(reference: u32) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: vk::StencilOp::REPLACE,
        pass_op: vk::StencilOp::REPLACE,
        depth_fail_op: vk::StencilOp::REPLACE,
        compare_op: vk::CompareOp::ALWAYS,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference,
    }
}

/// Subpass 0 draws two depth-only quads (depth and stencil replaced); subpass 1 reads the
/// depth/stencil attachment as an input attachment, depth and stencil through two views of
/// one input attachment index, into a colour attachment.
fn input_depth_stencil(f: &mut Frame) -> R<Vec<Out>> {
    let (_ds, dsv, aspect_views) = ds_input_target(f, D32S8)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let read_only = vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL;
    let atts = [
        depth_att(D32S8, ONE, vk::AttachmentLoadOp::CLEAR),
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::DONT_CARE,
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let d0 = vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let in0 = [vk::AttachmentReference {
        attachment: 0,
        layout: read_only,
    }];
    let c1 = [vk::AttachmentReference {
        attachment: 1,
        layout: COLOR_OPT,
    }];
    let subs = [
        vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .depth_stencil_attachment(&d0),
        vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .input_attachments(&in0)
            .color_attachments(&c1),
    ];
    let deps = [input_dependency(
        0,
        1,
        vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
        vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
    )];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[dsv, bv])?;
    let (layout, set) = input_set(
        f,
        &[(aspect_views[0], read_only), (aspect_views[1], read_only)],
    )?;
    let depth_only = |reference| Pipe {
        fs: "",
        blends: vec![],
        depth: Some((true, true, vk::CompareOp::ALWAYS)),
        stencil: Some((replace(reference), replace(reference))),
        ..Pipe::default()
    };
    let pa = f.pipeline(&depth_only(40), rp)?;
    let pb = f.pipeline(&depth_only(200), rp)?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read_depth.frag",
            subpass: 1,
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let va = f.rect(4.0, 4.0, 40.0, 40.0, 0.2, [1.0; 4]);
    let vb = f.rect(24.0, 30.0, 60.0, 60.0, 0.6, [1.0; 4]);
    let v1 = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, [1.0; 4]);
    let bufa = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&va))?;
    let bufb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&vb))?;
    let buf1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_depth(1.0, 7), clear_color(BG)]);
        f.draw(cb, pa, bufa, 6);
        f.draw(cb, pb, bufb, 6);
        // SAFETY: recording inside the pass.
        unsafe { f.d.cmd_next_subpass(cb, vk::SubpassContents::INLINE) };
        bind_set(f, cb, layout, set);
        f.draw(cb, p1, buf1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        b,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let px = |d: f64, s: f64| [(d * 255.0).round(), s, 0.0, 255.0];
    let mut want = Image::new("color", f.w, f.h, RGBA8, px(1.0, 7.0));
    want.fill(4, 4, 40, 40, px(0.2, 40.0));
    want.fill(24, 30, 60, 60, px(0.6, 200.0));
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// One subpass renders depth (its load op clears it, a quad writes it, vkCmdClearAttachments
/// clears a rectangle of it) and, after a self-dependency barrier, reads it as an input
/// attachment into its colour attachment.
fn input_depth_feedback(f: &mut Frame) -> R<Vec<Out>> {
    let (_d, dv, _) = ds_input_target(f, D32)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let mut d_att = depth_att(D32, ONE, vk::AttachmentLoadOp::CLEAR);
    d_att.final_layout = GENERAL;
    let atts = [
        d_att,
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let d0 = vk::AttachmentReference {
        attachment: 0,
        layout: GENERAL,
    };
    let c1 = [vk::AttachmentReference {
        attachment: 1,
        layout: COLOR_OPT,
    }];
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .input_attachments(std::slice::from_ref(&d0))
        .color_attachments(&c1)
        .depth_stencil_attachment(&d0)];
    let deps = [input_dependency(
        0,
        0,
        vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
        vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
    )];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[dv, bv])?;
    let (layout, set) = input_set(f, &[(dv, GENERAL)])?;
    let p0 = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::ALWAYS)),
            ..Pipe::default()
        },
        rp,
    )?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read_depth_only.frag",
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let v0 = f.rect(4.0, 4.0, 40.0, 40.0, 0.2, c8(255, 255, 255, 255));
    let v1 = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, [1.0; 4]);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    let clear = [vk::ClearAttachment {
        aspect_mask: vk::ImageAspectFlags::DEPTH,
        color_attachment: 0,
        clear_value: clear_depth(0.6, 0),
    }];
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_depth(0.4, 0), clear_color(BG)]);
        f.draw(cb, p0, vb0, 6);
        // SAFETY: recording inside the pass; the depth attachment is bound.
        unsafe {
            f.d.cmd_clear_attachments(cb, &clear, &[clear_rect(24, 30, 36, 30)])
        };
        self_barrier(
            f,
            cb,
            vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
            vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
        );
        bind_set(f, cb, layout, set);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        b,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let px = |d: f64| [(d * 255.0).round(), 0.0, 0.0, 255.0];
    let mut want = Image::new("color", f.w, f.h, RGBA8, px(0.4));
    want.fill(4, 4, 40, 40, px(0.2));
    want.fill(24, 30, 60, 60, px(0.6));
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
