//! Render-pass extensions, each through its KHR entry points (agx4 is a Vulkan 1.0 device):
//! VK_KHR_create_renderpass2 (two subpasses, an input attachment, a 4x resolve),
//! VK_KHR_depth_stencil_resolve (a 4x depth buffer resolved with SAMPLE_ZERO),
//! VK_KHR_dynamic_rendering (CLEAR then LOAD, and an AVERAGE resolve), VK_KHR_imageless_framebuffer
//! (one framebuffer over two images), and the depthClamp feature.

use super::super::frame::{
    bytes_of, c8, clear_color, clear_depth, codes, layers, Frame, Pipe, Rendering, R, V,
};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::{want_rgba8, D32, D32S8, RGBA8};
use ash::vk;

const RGBA8UI: vk::Format = vk::Format::R8G8B8A8_UINT;
const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const COLOR_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw() | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const DEPTH_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);
const SRC: vk::ImageLayout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
const COLOR_OPT: vk::ImageLayout = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
const DEPTH_OPT: vk::ImageLayout = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "renderpass2_input_resolve",
            size: 64,
            needs: || {
                Needs::new()
                    .input(RGBA8)
                    .msaa(RGBA8, COLOR_USAGE, X4)
                    .extension(ash::khr::create_renderpass2::NAME)
            },
            run: renderpass2_input_resolve,
        },
        Scene {
            name: "depth_resolve_sample_zero",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32)
                    .msaa(RGBA8, COLOR_USAGE, X4)
                    .msaa(D32, DEPTH_USAGE, X4)
                    .extension(ash::khr::depth_stencil_resolve::NAME)
            },
            run: depth_resolve_sample_zero,
        },
        Scene {
            name: "stencil_resolve_depth_cleared",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32S8)
                    .msaa(D32S8, DEPTH_USAGE, X4)
                    .extension(ash::khr::depth_stencil_resolve::NAME)
                    .independent_resolve_none()
            },
            run: stencil_resolve_depth_cleared,
        },
        Scene {
            name: "dynamic_rendering",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32)
                    .msaa(RGBA8, COLOR_USAGE, X4)
                    .extension(ash::khr::dynamic_rendering::NAME)
                    .feature(Feature::DynamicRendering)
            },
            run: dynamic_rendering,
        },
        Scene {
            name: "dynamic_rendering_integer_resolve",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8UI)
                    .msaa(RGBA8UI, COLOR_USAGE, X4)
                    .extension(ash::khr::dynamic_rendering::NAME)
                    .feature(Feature::DynamicRendering)
            },
            run: dynamic_rendering_integer_resolve,
        },
        Scene {
            name: "imageless_framebuffer",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .extension(ash::khr::imageless_framebuffer::NAME)
                    .feature(Feature::ImagelessFramebuffer)
            },
            run: imageless_framebuffer,
        },
        Scene {
            name: "depth_clamp",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32)
                    .feature(Feature::DepthClamp)
            },
            run: depth_clamp,
        },
    ]
}

fn att2(
    format: vk::Format,
    samples: vk::SampleCountFlags,
    load: vk::AttachmentLoadOp,
    final_layout: vk::ImageLayout,
) -> vk::AttachmentDescription2<'static> {
    vk::AttachmentDescription2::default()
        .format(format)
        .samples(samples)
        .load_op(load)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(vk::ImageLayout::UNDEFINED)
        .final_layout(final_layout)
}

fn ref2(
    attachment: u32,
    layout: vk::ImageLayout,
    aspect: vk::ImageAspectFlags,
) -> vk::AttachmentReference2<'static> {
    vk::AttachmentReference2::default()
        .attachment(attachment)
        .layout(layout)
        .aspect_mask(aspect)
}

fn whole(f: &Frame) -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: f.w,
            height: f.h,
        },
    }
}

/// A triangle with edges at odd slopes, so many pixels are partly covered.
fn odd_triangle(f: &Frame, z: f32, col: [f32; 4], p: [[f64; 2]; 3]) -> Vec<V> {
    p.iter()
        .map(|q| f.v(q[0] as f32, q[1] as f32, z, col))
        .collect()
}

const TRI: [[f64; 2]; 3] = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];

/// The 4x-resolved expectation of triangles drawn over BG with a LESS depth test: each sample
/// takes the colour (0..=1) of the nearest triangle covering it. `tris` are (corners, depth,
/// colour at pixel x, y). Pixels with a sample on any edge are don't-care.
type Tri<'a> = ([[f64; 2]; 3], f64, &'a dyn Fn(u32, u32) -> [f64; 4]);

fn want_resolved(f: &Frame, label: &str, tris: &[Tri]) -> Image {
    let mut want = want_rgba8(f, BG);
    want.label = label.into();
    for y in 0..f.h {
        for x in 0..f.w {
            let mut sum = [0.0; 4];
            let mut edge = false;
            for s in SAMPLES_4X {
                let p = [x as f64 + s[0], y as f64 + s[1]];
                let mut best: (f64, [f64; 4]) = (f64::INFINITY, BG.map(|v| v as f64));
                for (corners, z, col) in tris {
                    match cover(corners, p) {
                        Cover::In(_) if *z < best.0 => best = (*z, col(x, y)),
                        Cover::Edge => edge = true,
                        _ => {}
                    }
                }
                for (acc, v) in sum.iter_mut().zip(best.1) {
                    *acc += v / 4.0;
                }
            }
            if edge {
                want.ignore(x, y);
            } else {
                want.set(x, y, sum.map(|v| (v * 255.0).round()));
            }
        }
    }
    want
}

/// vkCreateRenderPass2KHR with two subpasses: the first draws two quads into a single-sample
/// attachment; the second reads it as an input attachment (subpass_read.frag swizzles it) while
/// drawing a triangle into a 4x attachment resolved into a third. Begun, advanced and ended
/// with the *2KHR commands.
fn renderpass2_input_resolve(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, vk::ImageUsageFlags::INPUT_ATTACHMENT, ONE)?;
    let (_ms, msv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let (res, resv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let color = vk::ImageAspectFlags::COLOR;
    let atts = [
        att2(RGBA8, ONE, vk::AttachmentLoadOp::CLEAR, SRC),
        att2(RGBA8, X4, vk::AttachmentLoadOp::CLEAR, SRC),
        att2(RGBA8, ONE, vk::AttachmentLoadOp::DONT_CARE, SRC),
    ];
    let c0 = [ref2(0, COLOR_OPT, color)];
    let in1 = [ref2(0, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, color)];
    let c1 = [ref2(1, COLOR_OPT, color)];
    let r1 = [ref2(2, COLOR_OPT, color)];
    let subs = [
        vk::SubpassDescription2::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&c0),
        vk::SubpassDescription2::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .input_attachments(&in1)
            .color_attachments(&c1)
            .resolve_attachments(&r1),
    ];
    let deps = [vk::SubpassDependency2::default()
        .src_subpass(0)
        .dst_subpass(1)
        .src_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
        .dst_stage_mask(vk::PipelineStageFlags::FRAGMENT_SHADER)
        .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
        .dst_access_mask(vk::AccessFlags::INPUT_ATTACHMENT_READ)
        .dependency_flags(vk::DependencyFlags::BY_REGION)];
    let rp = f.render_pass2(
        &vk::RenderPassCreateInfo2::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[av, msv, resv])?;
    let binding = [vk::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(vk::DescriptorType::INPUT_ATTACHMENT)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
    let sl = f.set_layout(&binding)?;
    let layout = f.layout(&[sl], 0)?;
    let set = f.descriptor_set(
        sl,
        &[vk::DescriptorPoolSize {
            ty: vk::DescriptorType::INPUT_ATTACHMENT,
            descriptor_count: 1,
        }],
    )?;
    let info = [vk::DescriptorImageInfo {
        sampler: vk::Sampler::null(),
        image_view: av,
        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::INPUT_ATTACHMENT)
        .image_info(&info);
    // SAFETY: valid set and view.
    unsafe { f.d.update_descriptor_sets(&[write], &[]) };
    let p0 = f.pipeline(&Pipe::default(), rp)?;
    let p1 = f.pipeline(
        &Pipe {
            fs: "subpass_read.frag",
            subpass: 1,
            samples: X4,
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let rects = [
        ([4u32, 4, 40, 40], c8(10, 20, 30, 255)),
        ([24u32, 30, 60, 60], c8(250, 128, 3, 200)),
    ];
    let v0: Vec<V> = rects
        .iter()
        .flat_map(|&(r, c)| f.rect_w(r.map(|v| v as f32), 0.5, c, true))
        .collect();
    let v1 = odd_triangle(f, 0.5, [1.0; 4], TRI);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    let bg = c8(0, 0, 40, 255);
    let rp2 = f
        .gpu
        .rp2
        .as_ref()
        .ok_or("VK_KHR_create_renderpass2 is not enabled")?;
    let clears = [clear_color(bg), clear_color(BG), clear_color(BG)];
    let begin = vk::RenderPassBeginInfo::default()
        .render_pass(rp)
        .framebuffer(fb)
        .render_area(whole(f))
        .clear_values(&clears);
    let inline = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
    let end = vk::SubpassEndInfo::default();
    f.submit(|cb| {
        // SAFETY: recording; the pass, framebuffer, set and buffers are alive.
        unsafe { rp2.cmd_begin_render_pass2(cb, &begin, &inline) };
        f.full_viewport(cb);
        f.draw(cb, p0, vb0, v0.len() as u32);
        // SAFETY: as above, in subpass 0 of a two-subpass pass.
        unsafe {
            rp2.cmd_next_subpass2(cb, &inline, &end);
            f.d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                0,
                &[set],
                &[],
            );
        }
        f.draw(cb, p1, vb1, 3);
        // SAFETY: as above, in the last subpass.
        unsafe { rp2.cmd_end_render_pass2(cb, &end) };
    })?;
    let color = vk::ImageAspectFlags::COLOR;
    let ga = f.read("first", a, RGBA8, color, SRC)?;
    let gr = f.read("resolved", res, RGBA8, color, SRC)?;
    let mut wa = Image::new("first", f.w, f.h, RGBA8, codes(bg));
    for &(r, c) in &rects {
        wa.fill(r[0], r[1], r[2], r[3], codes(c));
    }
    let first = wa.clone();
    let swizzled = |x, y| {
        let p = first.at(x, y).map(|v| v / 255.0);
        [p[1], p[2], p[0], p[3]]
    };
    let wr = want_resolved(f, "resolved", &[(TRI, 0.5, &swizzled)]);
    Ok(vec![
        Out::new(ga, Some(wa), Tol::EXACT),
        Out::new(gr, Some(wr), Tol::UNORM8),
    ])
}

/// A 4x colour and a 4x D32 attachment (not stored), each with a single-sample resolve
/// attachment in the same subpass (VkSubpassDescriptionDepthStencilResolve, depth mode
/// SAMPLE_ZERO): two
/// overlapping triangles at constant depths. The resolved depth is sample 0's (at 0.375,
/// 0.125 in the pixel), exact; the resolved colour the average of the four samples.
fn depth_resolve_sample_zero(f: &mut Frame) -> R<Vec<Out>> {
    let (_ms, msv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let (res, resv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (_dms, dmsv) = f.depth_target(D32, X4)?;
    let (dres, dresv) = f.depth_target(D32, ONE)?;
    let color = vk::ImageAspectFlags::COLOR;
    let depth = vk::ImageAspectFlags::DEPTH;
    // The 4x depth is not stored (its store op is DONT_CARE): the resolve reads it anyway.
    let mut depth_ms = att2(D32, X4, vk::AttachmentLoadOp::CLEAR, SRC);
    depth_ms.store_op = vk::AttachmentStoreOp::DONT_CARE;
    depth_ms.stencil_store_op = vk::AttachmentStoreOp::DONT_CARE;
    let atts = [
        att2(RGBA8, X4, vk::AttachmentLoadOp::CLEAR, SRC),
        att2(RGBA8, ONE, vk::AttachmentLoadOp::DONT_CARE, SRC),
        depth_ms,
        att2(D32, ONE, vk::AttachmentLoadOp::DONT_CARE, SRC),
    ];
    let c = [ref2(0, COLOR_OPT, color)];
    let r = [ref2(1, COLOR_OPT, color)];
    let d = ref2(2, DEPTH_OPT, depth);
    let dr = ref2(3, DEPTH_OPT, depth);
    let mut ds_resolve = vk::SubpassDescriptionDepthStencilResolve::default()
        .depth_resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
        .stencil_resolve_mode(vk::ResolveModeFlags::NONE)
        .depth_stencil_resolve_attachment(&dr);
    let subs = [vk::SubpassDescription2::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&c)
        .resolve_attachments(&r)
        .depth_stencil_attachment(&d)
        .push_next(&mut ds_resolve)];
    let rp = f.render_pass2(
        &vk::RenderPassCreateInfo2::default()
            .attachments(&atts)
            .subpasses(&subs),
    )?;
    let fb = f.framebuffer(rp, &[msv, resv, dmsv, dresv])?;
    let pipe = f.pipeline(
        &Pipe {
            samples: X4,
            depth: Some((true, true, vk::CompareOp::LESS)),
            ..Pipe::default()
        },
        rp,
    )?;
    let (far_c, near_c) = (c8(0, 0, 255, 255), c8(255, 0, 0, 255));
    let far_tri = [[60.0, 2.5], [40.25, 61.0], [1.5, 30.0]];
    let (far_z, near_z) = (0.75f32, 0.25f32);
    let mut verts = odd_triangle(f, far_z, far_c, far_tri);
    verts.extend(odd_triangle(f, near_z, near_c, TRI));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let rp2 = f
        .gpu
        .rp2
        .as_ref()
        .ok_or("VK_KHR_create_renderpass2 is not enabled")?;
    let clears = [
        clear_color(BG),
        clear_color(BG),
        clear_depth(1.0, 0),
        clear_depth(1.0, 0),
    ];
    let begin = vk::RenderPassBeginInfo::default()
        .render_pass(rp)
        .framebuffer(fb)
        .render_area(whole(f))
        .clear_values(&clears);
    let inline = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
    f.submit(|cb| {
        // SAFETY: recording; the pass, framebuffer and buffer are alive.
        unsafe { rp2.cmd_begin_render_pass2(cb, &begin, &inline) };
        f.full_viewport(cb);
        f.draw(cb, pipe, vb, 6);
        // SAFETY: as above, in the pass's only subpass.
        unsafe { rp2.cmd_end_render_pass2(cb, &vk::SubpassEndInfo::default()) };
    })?;
    let gc = f.read("color", res, RGBA8, color, SRC)?;
    let gd = f.read("depth", dres, D32, depth, SRC)?;
    let (fc, nc) = (far_c.map(|v| v as f64), near_c.map(|v| v as f64));
    let far_col = |_, _| fc;
    let near_col = |_, _| nc;
    let tris: [Tri; 2] = [
        (far_tri, far_z as f64, &far_col),
        (TRI, near_z as f64, &near_col),
    ];
    let wc = want_resolved(f, "color", &tris);
    let mut wd = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    let s0 = SAMPLES_4X[0];
    for y in 0..f.h {
        for x in 0..f.w {
            let p = [x as f64 + s0[0], y as f64 + s0[1]];
            let mut z = 1.0f64;
            for (corners, tz, _) in &tris {
                match cover(corners, p) {
                    Cover::In(_) => z = z.min(*tz),
                    Cover::Edge => wd.ignore(x, y),
                    Cover::Out => {}
                }
            }
            wd.set(x, y, [z, 0.0, 0.0, 0.0]);
        }
    }
    Ok(vec![
        Out::new(gc, Some(wc), Tol::UNORM8),
        Out::new(gd, Some(wd), Tol::EXACT),
    ])
}

/// A 4x D32S8 attachment resolved into a single-sample D32S8 one with stencil mode
/// SAMPLE_ZERO and depth mode NONE: the resolve attachment's depth gets what its own load op
/// gives it (a clear to 0.625), its stencil sample 0's value (a triangle that replaces the
/// cleared 7 with 0x5a).
fn stencil_resolve_depth_cleared(f: &mut Frame) -> R<Vec<Out>> {
    let (_ms, msv) = f.depth_target(D32S8, X4)?;
    let (res, resv) = f.depth_target(D32S8, ONE)?;
    let both = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
    let mut ms = att2(D32S8, X4, vk::AttachmentLoadOp::CLEAR, SRC);
    ms.stencil_load_op = vk::AttachmentLoadOp::CLEAR;
    let mut resolved = att2(D32S8, ONE, vk::AttachmentLoadOp::CLEAR, SRC);
    resolved.stencil_store_op = vk::AttachmentStoreOp::STORE;
    let atts = [ms, resolved];
    let d = ref2(0, DEPTH_OPT, both);
    let dr = ref2(1, DEPTH_OPT, both);
    let mut ds_resolve = vk::SubpassDescriptionDepthStencilResolve::default()
        .depth_resolve_mode(vk::ResolveModeFlags::NONE)
        .stencil_resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
        .depth_stencil_resolve_attachment(&dr);
    let subs = [vk::SubpassDescription2::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .depth_stencil_attachment(&d)
        .push_next(&mut ds_resolve)];
    let rp = f.render_pass2(
        &vk::RenderPassCreateInfo2::default()
            .attachments(&atts)
            .subpasses(&subs),
    )?;
    let fb = f.framebuffer(rp, &[msv, resv])?;
    let replace = vk::StencilOpState {
        fail_op: vk::StencilOp::KEEP,
        pass_op: vk::StencilOp::REPLACE,
        depth_fail_op: vk::StencilOp::KEEP,
        compare_op: vk::CompareOp::ALWAYS,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference: 0x5a,
    };
    let pipe = f.pipeline(
        &Pipe {
            fs: "",
            samples: X4,
            depth: Some((true, true, vk::CompareOp::ALWAYS)),
            stencil: Some((replace, replace)),
            ..Pipe::default()
        },
        rp,
    )?;
    let verts = odd_triangle(f, 0.25, c8(255, 0, 0, 255), TRI);
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let rp2 = f
        .gpu
        .rp2
        .as_ref()
        .ok_or("VK_KHR_create_renderpass2 is not enabled")?;
    let clears = [clear_depth(1.0, 7), clear_depth(0.625, 3)];
    let begin = vk::RenderPassBeginInfo::default()
        .render_pass(rp)
        .framebuffer(fb)
        .render_area(whole(f))
        .clear_values(&clears);
    let inline = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
    f.submit(|cb| {
        // SAFETY: recording; the pass, framebuffer and buffer are alive.
        unsafe { rp2.cmd_begin_render_pass2(cb, &begin, &inline) };
        f.full_viewport(cb);
        f.draw(cb, pipe, vb, 3);
        // SAFETY: as above, in the pass's only subpass.
        unsafe { rp2.cmd_end_render_pass2(cb, &vk::SubpassEndInfo::default()) };
    })?;
    let size = (f.w, f.h);
    let gd = f.read_level(
        "depth",
        res,
        (D32S8, D32),
        vk::ImageAspectFlags::DEPTH,
        SRC,
        size,
        0,
    )?;
    let gs = f.read(
        "stencil",
        res,
        vk::Format::S8_UINT,
        vk::ImageAspectFlags::STENCIL,
        SRC,
    )?;
    let wd = Image::new("depth", f.w, f.h, D32, [0.625, 0.0, 0.0, 0.0]);
    let mut ws = Image::new(
        "stencil",
        f.w,
        f.h,
        vk::Format::S8_UINT,
        [7.0, 0.0, 0.0, 0.0],
    );
    let s0 = SAMPLES_4X[0];
    for y in 0..f.h {
        for x in 0..f.w {
            match cover(&TRI, [x as f64 + s0[0], y as f64 + s0[1]]) {
                Cover::In(_) => ws.set(x, y, [90.0, 0.0, 0.0, 0.0]),
                Cover::Edge => ws.ignore(x, y),
                Cover::Out => {}
            }
        }
    }
    Ok(vec![
        Out::new(gd, Some(wd), Tol::EXACT),
        Out::new(gs, Some(ws), Tol::EXACT),
    ])
}

#[allow(clippy::too_many_arguments)]
fn image_barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
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
        .subresource_range(layers(aspect, 0, 1))
}

/// Three vkCmdBeginRenderingKHR/vkCmdEndRenderingKHR instances with pipelines made for
/// VkPipelineRenderingCreateInfoKHR (no render pass): colour and depth cleared and stored
/// around a near quad; both loaded for a farther quad the loaded depth must hide in part; a
/// 4x colour attachment resolved (AVERAGE) into a single-sample image, by an instance split
/// into a suspended part that clears and draws and a resumed part that neither clears again
/// nor drops the samples before the resolve. Layouts are moved by explicit barriers.
fn dynamic_rendering(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (dimg, dview) = f.depth_target(D32, ONE)?;
    let (ms, msv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let (res, resv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let none = vk::RenderPass::null();
    let p_depth = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::LESS)),
            rendering: Some(Rendering {
                colors: vec![RGBA8],
                depth: D32,
                view_mask: 0,
            }),
            ..Pipe::default()
        },
        none,
    )?;
    let p_msaa = f.pipeline(
        &Pipe {
            samples: X4,
            rendering: Some(Rendering {
                colors: vec![RGBA8],
                depth: vk::Format::UNDEFINED,
                view_mask: 0,
            }),
            ..Pipe::default()
        },
        none,
    )?;
    let (red, blue) = (c8(255, 0, 0, 255), c8(0, 0, 255, 255));
    let near = f.rect(4.0, 4.0, 40.0, 40.0, 0.25, red);
    let far = f.rect(20.0, 20.0, 60.0, 60.0, 0.5, blue);
    let white = c8(255, 255, 255, 255);
    let tri = odd_triangle(f, 0.5, white, TRI);
    let vb_near = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&near))?;
    let vb_far = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&far))?;
    let vb_tri = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&tri))?;
    let dr = f
        .gpu
        .dynamic_rendering
        .as_ref()
        .ok_or("VK_KHR_dynamic_rendering is not enabled")?;
    let color = vk::ImageAspectFlags::COLOR;
    let depth = vk::ImageAspectFlags::DEPTH;
    let color_att = |v, load, clear: [f32; 4]| {
        vk::RenderingAttachmentInfo::default()
            .image_view(v)
            .image_layout(COLOR_OPT)
            .load_op(load)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(clear_color(clear))
    };
    let depth_att = |load| {
        vk::RenderingAttachmentInfo::default()
            .image_view(dview)
            .image_layout(DEPTH_OPT)
            .load_op(load)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(clear_depth(1.0, 0))
    };
    let clear_c = [color_att(view, vk::AttachmentLoadOp::CLEAR, BG)];
    let clear_d = depth_att(vk::AttachmentLoadOp::CLEAR);
    let load_c = [color_att(view, vk::AttachmentLoadOp::LOAD, BG)];
    let load_d = depth_att(vk::AttachmentLoadOp::LOAD);
    let msaa_c = [color_att(msv, vk::AttachmentLoadOp::CLEAR, BG)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .resolve_mode(vk::ResolveModeFlags::AVERAGE)
        .resolve_image_view(resv)
        .resolve_image_layout(COLOR_OPT)];
    let area = whole(f);
    let first = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&clear_c)
        .depth_attachment(&clear_d);
    let second = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&load_c)
        .depth_attachment(&load_d);
    let third = vk::RenderingInfo::default()
        .render_area(area)
        .layer_count(1)
        .color_attachments(&msaa_c);
    let third_suspended = third.flags(vk::RenderingFlags::SUSPENDING);
    let third_resumed = third.flags(vk::RenderingFlags::RESUMING);
    let undefined = vk::ImageLayout::UNDEFINED;
    let color_w = vk::AccessFlags::COLOR_ATTACHMENT_WRITE;
    let color_rw = vk::AccessFlags::COLOR_ATTACHMENT_READ | color_w;
    let depth_w = vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE;
    let depth_rw = vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ | depth_w;
    let stages = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
        | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
        | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS;
    let none_access = vk::AccessFlags::empty();
    let to_attachments = [
        image_barrier(img, color, undefined, COLOR_OPT, none_access, color_rw),
        image_barrier(dimg, depth, undefined, DEPTH_OPT, none_access, depth_rw),
        image_barrier(ms, color, undefined, COLOR_OPT, none_access, color_rw),
        image_barrier(res, color, undefined, COLOR_OPT, none_access, color_rw),
    ];
    let between = [
        image_barrier(img, color, COLOR_OPT, COLOR_OPT, color_w, color_rw),
        image_barrier(dimg, depth, DEPTH_OPT, DEPTH_OPT, depth_w, depth_rw),
    ];
    f.submit(|cb| {
        // SAFETY: recording; every image, view, pipeline and buffer is alive; each rendering
        // instance is begun and ended in this command buffer.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_attachments,
            );
            dr.cmd_begin_rendering(cb, &first);
            f.full_viewport(cb);
            f.draw(cb, p_depth, vb_near, 6);
            dr.cmd_end_rendering(cb);
            f.d.cmd_pipeline_barrier(
                cb,
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &between,
            );
            dr.cmd_begin_rendering(cb, &second);
            f.full_viewport(cb);
            f.draw(cb, p_depth, vb_far, 6);
            dr.cmd_end_rendering(cb);
            dr.cmd_begin_rendering(cb, &third_suspended);
            f.full_viewport(cb);
            f.draw(cb, p_msaa, vb_tri, 3);
            dr.cmd_end_rendering(cb);
            dr.cmd_begin_rendering(cb, &third_resumed);
            dr.cmd_end_rendering(cb);
        }
    })?;
    let gc = f.read("color", img, RGBA8, color, COLOR_OPT)?;
    let gd = f.read("depth", dimg, D32, depth, DEPTH_OPT)?;
    let gr = f.read("resolved", res, RGBA8, color, COLOR_OPT)?;
    let mut wc = want_rgba8(f, BG);
    let mut wd = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    wc.fill(20, 20, 60, 60, codes(blue));
    wd.fill(20, 20, 60, 60, [0.5, 0.0, 0.0, 0.0]);
    wc.fill(4, 4, 40, 40, codes(red));
    wd.fill(4, 4, 40, 40, [0.25, 0.0, 0.0, 0.0]);
    let white_col = |_, _| [1.0; 4];
    let wr = want_resolved(f, "resolved", &[(TRI, 0.5, &white_col)]);
    Ok(vec![
        Out::new(gc, Some(wc), Tol::EXACT),
        Out::new(gd, Some(wd), Tol::EXACT),
        Out::new(gr, Some(wr), Tol::UNORM8),
    ])
}

/// One framebuffer made with VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT (attachments described by
/// VkFramebufferAttachmentsCreateInfo) renders two passes into two different images, whose
/// views are given at vkCmdBeginRenderPass by VkRenderPassAttachmentBeginInfo.
fn imageless_framebuffer(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let rp = f.simple_pass(&[RGBA8], None, ONE)?;
    let formats = [RGBA8];
    let images = [vk::FramebufferAttachmentImageInfo::default()
        .usage(COLOR_USAGE)
        .width(f.w)
        .height(f.h)
        .layer_count(1)
        .view_formats(&formats)];
    let mut attachments =
        vk::FramebufferAttachmentsCreateInfo::default().attachment_image_infos(&images);
    let fb = f.framebuffer_info(
        &vk::FramebufferCreateInfo::default()
            .flags(vk::FramebufferCreateFlags::IMAGELESS)
            .render_pass(rp)
            .attachment_count(1)
            .width(f.w)
            .height(f.h)
            .layers(1)
            .push_next(&mut attachments),
    )?;
    let pipe = f.pipeline(&Pipe::default(), rp)?;
    let (bg_a, rect_a) = (c8(10, 20, 30, 255), c8(255, 0, 0, 255));
    let (bg_b, rect_b) = (c8(200, 200, 200, 255), c8(0, 160, 0, 255));
    let va = f.rect(4.0, 4.0, 36.0, 30.0, 0.5, rect_a);
    let vb_ = f.rect(20.0, 24.0, 60.0, 60.0, 0.5, rect_b);
    let buf_a = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&va))?;
    let buf_b = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&vb_))?;
    let area = whole(f);
    f.submit(|cb| {
        for (view, bg, buf) in [(av, bg_a, buf_a), (bv, bg_b, buf_b)] {
            let views = [view];
            let mut given = vk::RenderPassAttachmentBeginInfo::default().attachments(&views);
            let clears = [clear_color(bg)];
            let begin = vk::RenderPassBeginInfo::default()
                .render_pass(rp)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clears)
                .push_next(&mut given);
            // SAFETY: recording; the pass, framebuffer, view and buffer are alive, and the view
            // matches the framebuffer's attachment description.
            unsafe {
                f.d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE)
            };
            f.full_viewport(cb);
            f.draw(cb, pipe, buf, 6);
            // SAFETY: recording, inside the pass begun above.
            unsafe { f.d.cmd_end_render_pass(cb) };
        }
    })?;
    let color = vk::ImageAspectFlags::COLOR;
    let ga = f.read("first", a, RGBA8, color, SRC)?;
    let gb = f.read("second", b, RGBA8, color, SRC)?;
    let mut wa = Image::new("first", f.w, f.h, RGBA8, codes(bg_a));
    wa.fill(4, 4, 36, 30, codes(rect_a));
    let mut wb = Image::new("second", f.w, f.h, RGBA8, codes(bg_b));
    wb.fill(20, 24, 60, 60, codes(rect_b));
    Ok(vec![
        Out::new(ga, Some(wa), Tol::EXACT),
        Out::new(gb, Some(wb), Tol::EXACT),
    ])
}

/// depthClampEnable with a viewport depth range of 0.25..0.75: quads at clip-space z 1.5 and
/// -0.5 (outside 0..1, so clipped away without clamping) are drawn, their depth clamped to
/// 0.75 and 0.25, and one at z 0.5 lands at 0.5; the LESS test orders them by clamped depth.
fn depth_clamp(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (dimg, dview) = f.depth_target(D32, ONE)?;
    let rp = f.simple_pass(&[RGBA8], Some(D32), ONE)?;
    let fb = f.framebuffer(rp, &[view, dview])?;
    let pipe = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::LESS)),
            depth_clamp: true,
            ..Pipe::default()
        },
        rp,
    )?;
    let (min_depth, max_depth) = (0.25f32, 0.75f32);
    // (rectangle, clip z, colour), drawn in this order.
    let quads = [
        ([8u32, 8, 40, 40], 1.5f32, c8(255, 0, 0, 255)),
        ([24u32, 16, 56, 48], 0.5, c8(0, 255, 0, 255)),
        ([16u32, 28, 48, 60], -0.5, c8(0, 0, 255, 255)),
    ];
    let verts: Vec<V> = quads
        .iter()
        .flat_map(|&(r, z, c)| f.rect_w(r.map(|v| v as f32), z, c, true))
        .collect();
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let (w, h) = (f.w as f32, f.h as f32);
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_depth(1.0, 0)]);
        let vp = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: w,
            height: h,
            min_depth,
            max_depth,
        };
        // SAFETY: recording inside the pass begun above.
        unsafe { f.d.cmd_set_viewport(cb, 0, &[vp]) };
        f.draw(cb, pipe, vb, verts.len() as u32);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let gc = f.read("color", img, RGBA8, vk::ImageAspectFlags::COLOR, SRC)?;
    let gd = f.read("depth", dimg, D32, vk::ImageAspectFlags::DEPTH, SRC)?;
    let mut wc = want_rgba8(f, BG);
    let mut wd = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    let (lo, hi) = (min_depth as f64, max_depth as f64);
    for y in 0..f.h {
        for x in 0..f.w {
            let mut best: Option<(f64, [f32; 4])> = None;
            for &(r, z, c) in &quads {
                let inside = (r[0]..r[2]).contains(&x) && (r[1]..r[3]).contains(&y);
                // The viewport transform, then the clamp to the viewport's depth range.
                let depth = (lo + z as f64 * (hi - lo)).clamp(lo, hi);
                if inside && best.is_none_or(|(d, _)| depth < d) {
                    best = Some((depth, c));
                }
            }
            if let Some((d, c)) = best {
                wc.set(x, y, codes(c));
                wd.set(x, y, [d, 0.0, 0.0, 0.0]);
            }
        }
    }
    Ok(vec![
        Out::new(gc, Some(wc), Tol::EXACT),
        Out::new(gd, Some(wd), Tol::EXACT),
    ])
}

/// A 4x integer attachment cleared by its load op and resolved by a dynamic rendering
/// instance with VK_RESOLVE_MODE_SAMPLE_ZERO_BIT, the one resolve mode the spec allows for
/// integer formats (the CTS's multisample_resolve *_uint/_sint cases).
fn dynamic_rendering_integer_resolve(f: &mut Frame) -> R<Vec<Out>> {
    let (ms, msv) = f.target(RGBA8UI, vk::ImageUsageFlags::empty(), X4)?;
    let (res, resv) = f.target(RGBA8UI, vk::ImageUsageFlags::empty(), ONE)?;
    let dr = f
        .gpu
        .dynamic_rendering
        .as_ref()
        .ok_or("VK_KHR_dynamic_rendering is not enabled")?;
    let colour = vk::ImageAspectFlags::COLOR;
    let clear = vk::ClearValue {
        color: vk::ClearColorValue {
            uint32: [7, 200, 0, 255],
        },
    };
    let att = [vk::RenderingAttachmentInfo::default()
        .image_view(msv)
        .image_layout(COLOR_OPT)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(clear)
        .resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
        .resolve_image_view(resv)
        .resolve_image_layout(COLOR_OPT)];
    let info = vk::RenderingInfo::default()
        .render_area(whole(f))
        .layer_count(1)
        .color_attachments(&att);
    let rw = vk::AccessFlags::COLOR_ATTACHMENT_READ | vk::AccessFlags::COLOR_ATTACHMENT_WRITE;
    let undefined = vk::ImageLayout::UNDEFINED;
    let none = vk::AccessFlags::empty();
    let to_attachments = [
        image_barrier(ms, colour, undefined, COLOR_OPT, none, rw),
        image_barrier(res, colour, undefined, COLOR_OPT, none, rw),
    ];
    f.submit(|cb| {
        // SAFETY: recording; the images and views are alive; the rendering instance is begun
        // and ended in this command buffer.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_attachments,
            );
            dr.cmd_begin_rendering(cb, &info);
            dr.cmd_end_rendering(cb);
        }
    })?;
    let got = f.read("resolved", res, RGBA8UI, colour, COLOR_OPT)?;
    let want = Image::new("resolved", f.w, f.h, RGBA8UI, [7.0, 200.0, 0.0, 255.0]);
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
