//! Render-pass structure: 4x MSAA with a resolve attachment, vkCmdResolveImage and per-sample
//! shading; multiple render targets (with independent blending); two subpasses joined by an
//! input attachment; LOAD_OP_LOAD across two passes; vkCmdClearAttachments.

use super::super::frame::{
    blend, bytes_of, c8, clear_color, clear_depth, codes, color_att, depth_att, opaque, range,
    Frame, Pipe, R, V,
};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::{want_rgba8, D32, RGBA8};
use ash::vk;

const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const RGBA32UI: vk::Format = vk::Format::R32G32B32A32_UINT;

pub fn scenes() -> Vec<Scene> {
    let msaa = || {
        Needs::new().color(RGBA8).msaa(
            RGBA8,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            X4,
        )
    };
    vec![
        Scene {
            name: "msaa4_resolve_attachment",
            size: 64,
            needs: msaa,
            run: msaa_resolve_attachment,
        },
        Scene {
            name: "msaa4_resolve_image",
            size: 64,
            needs: msaa,
            run: msaa_resolve_image,
        },
        Scene {
            name: "msaa4_sample_shading",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .msaa(
                        RGBA8,
                        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                        X4,
                    )
                    .feature(Feature::SampleRateShading)
            },
            run: msaa_sample_shading,
        },
        Scene {
            name: "mrt",
            size: 64,
            needs: || Needs::new().color(RGBA8).color(RGBA32UI),
            run: mrt,
        },
        Scene {
            name: "mrt_independent_blend",
            size: 64,
            needs: || {
                Needs::new()
                    .blended(RGBA8)
                    .feature(Feature::IndependentBlend)
            },
            run: mrt_independent_blend,
        },
        Scene {
            name: "subpass_input",
            size: 64,
            needs: || Needs::new().input(RGBA8),
            run: subpass_input,
        },
        Scene {
            name: "load_store",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: load_store,
        },
        Scene {
            name: "clear_attachments",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: clear_attachments,
        },
    ]
}

pub(super) const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A triangle with edges at odd slopes, so many pixels are partly covered.
pub(super) fn msaa_triangle(f: &Frame, col: [f32; 4]) -> (Vec<V>, [[f64; 2]; 3]) {
    let p = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];
    let v = p
        .iter()
        .map(|q| f.v(q[0] as f32, q[1] as f32, 0.5, col))
        .collect();
    (v, p)
}

/// The resolved expectation: per pixel, the average of the colours of its four samples;
/// `sample_col(i)` is what a covered sample i holds. Pixels with a sample on an edge are
/// don't-care.
pub(super) fn want_resolved(
    f: &Frame,
    tri: &[[f64; 2]; 3],
    sample_col: impl Fn(usize) -> [f64; 4],
) -> Image {
    let bg = BG.map(|v| v as f64);
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            let mut sum = [0.0; 4];
            let mut edge = false;
            for (i, s) in SAMPLES_4X.iter().enumerate() {
                let c = match cover(tri, [x as f64 + s[0], y as f64 + s[1]]) {
                    Cover::In(_) => sample_col(i),
                    Cover::Out => bg,
                    Cover::Edge => {
                        edge = true;
                        bg
                    }
                };
                for k in 0..4 {
                    sum[k] += c[k] / 4.0;
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

fn msaa_resolve_attachment(f: &mut Frame) -> R<Vec<Out>> {
    let (_ms, ms_view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let (res, res_view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
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
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let rref = [vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref)
        .resolve_attachments(&rref)];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs),
    )?;
    let fb = f.framebuffer(rp, &[ms_view, res_view])?;
    let col = c8(255, 255, 255, 255);
    let (verts, tri) = msaa_triangle(f, col);
    let pipe = f.pipeline(
        &Pipe {
            samples: X4,
            ..Pipe::default()
        },
        rp,
    )?;
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_color(BG)]);
        f.draw(cb, pipe, vb, 3);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        res,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let want = want_resolved(f, &tri, |_| [1.0; 4]);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Renders `pipe` with `verts` into a 4x target and resolves it with vkCmdResolveImage.
pub(super) fn render_and_resolve(f: &mut Frame, pipe: &Pipe, verts: &[V]) -> R<Image> {
    render_resolved(f, None, &[(pipe, verts)])
}

/// Draws into a 4x colour target (cleared to `BG`), and a 4x depth target of `depth` cleared
/// to 1.0 if given, resolves the colour with vkCmdResolveImage and reads the result.
pub(super) fn render_resolved(
    f: &mut Frame,
    depth: Option<vk::Format>,
    draws: &[(&Pipe, &[V])],
) -> R<Image> {
    let (ms, ms_view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let mut views = vec![ms_view];
    if let Some(d) = depth {
        views.push(f.depth_target(d, X4)?.1);
    }
    let (w, h) = (f.w, f.h);
    let dst = f.image_full(
        RGBA8,
        w,
        h,
        vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC,
        ONE,
    )?;
    let rp = f.simple_pass(&[RGBA8], depth, X4)?;
    let fb = f.framebuffer(rp, &views)?;
    let mut bound = Vec::new();
    for (p, verts) in draws {
        let pipe = f.pipeline(p, rp)?;
        let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(verts))?;
        bound.push((pipe, vb, verts.len() as u32));
    }
    let to_dst = vk::ImageMemoryBarrier::default()
        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(dst)
        .subresource_range(range(vk::ImageAspectFlags::COLOR));
    let src_ready = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
        .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(ms)
        .subresource_range(range(vk::ImageAspectFlags::COLOR));
    let sub = vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    };
    let region = vk::ImageResolve {
        src_subresource: sub,
        dst_subresource: sub,
        extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        ..Default::default()
    };
    f.submit(|cb| {
        f.begin(
            cb,
            rp,
            fb,
            &[clear_color(BG), clear_depth(1.0, 0)][..views.len()],
        );
        for &(pipe, vb, n) in &bound {
            f.draw(cb, pipe, vb, n);
        }
        // SAFETY: recording; the pass ends before the resolve; images alive.
        unsafe {
            f.d.cmd_end_render_pass(cb);
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst, src_ready],
            );
            f.d.cmd_resolve_image(
                cb,
                ms,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
        }
    })?;
    f.read(
        "color",
        dst,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )
}

fn msaa_resolve_image(f: &mut Frame) -> R<Vec<Out>> {
    let col = c8(255, 128, 0, 255);
    let (verts, tri) = msaa_triangle(f, col);
    // A sample mask that keeps every sample, as DXVK and Zink always pass one.
    let got = render_and_resolve(
        f,
        &Pipe {
            samples: X4,
            sample_mask: Some(u32::MAX),
            ..Pipe::default()
        },
        &verts,
    )?;
    let c = col.map(|v| v as f64);
    let want = want_resolved(f, &tri, |_| c);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

fn msaa_sample_shading(f: &mut Frame) -> R<Vec<Out>> {
    let (verts, tri) = msaa_triangle(f, [1.0; 4]);
    let pipe = Pipe {
        fs: "sample_id.frag",
        samples: X4,
        min_sample_shading: Some(1.0),
        ..Pipe::default()
    };
    let got = render_and_resolve(f, &pipe, &verts)?;
    // The colours of sample_id.frag's table.
    let table = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    let want = want_resolved(f, &tri, |i| table[i]);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

fn mrt(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (b, bv) = f.target(RGBA32UI, vk::ImageUsageFlags::empty(), ONE)?;
    let rp = f.simple_pass(&[RGBA8, RGBA32UI], None, ONE)?;
    let fb = f.framebuffer(rp, &[av, bv])?;
    let pipe = f.pipeline(
        &Pipe {
            fs: "mrt.frag",
            blends: vec![opaque(), opaque()],
            ..Pipe::default()
        },
        rp,
    )?;
    let rects = [
        (4.0, 4.0, 36.0, 30.0, c8(255, 0, 64, 255)),
        (20.0, 24.0, 60.0, 60.0, c8(0, 99, 255, 255)),
    ];
    let verts: Vec<V> = rects
        .iter()
        .flat_map(|&(x0, y0, x1, y1, c)| f.rect(x0, y0, x1, y1, 0.5, c))
        .collect();
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let uclear = vk::ClearValue {
        color: vk::ClearColorValue {
            uint32: [1, 2, 3, 4],
        },
    };
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), uclear]);
        f.draw(cb, pipe, vb, verts.len() as u32);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let ga = f.read(
        "color",
        a,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let gb = f.read(
        "uint",
        b,
        RGBA32UI,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut wa = want_rgba8(f, BG);
    let mut wb = Image::new("uint", f.w, f.h, RGBA32UI, [1.0, 2.0, 3.0, 4.0]);
    for &(x0, y0, x1, y1, c) in &rects {
        wa.fill(x0 as u32, y0 as u32, x1 as u32, y1 as u32, codes(c));
        for y in y0 as u32..y1 as u32 {
            for x in x0 as u32..x1 as u32 {
                wb.set(x, y, [x as f64, y as f64, 7.0, 0xdead_beefu32 as f64]);
            }
        }
    }
    Ok(vec![
        Out::new(ga, Some(wa), Tol::EXACT),
        Out::new(gb, Some(wb), Tol::EXACT),
    ])
}

fn mrt_independent_blend(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let rp = f.simple_pass(&[RGBA8, RGBA8], None, ONE)?;
    let fb = f.framebuffer(rp, &[av, bv])?;
    use vk::BlendFactor as B;
    let add = blend(
        B::ONE,
        B::ONE,
        vk::BlendOp::ADD,
        B::ONE,
        B::ONE,
        vk::BlendOp::ADD,
    );
    let masked = vk::PipelineColorBlendAttachmentState {
        color_write_mask: vk::ColorComponentFlags::R | vk::ColorComponentFlags::A,
        ..opaque()
    };
    let pipe = f.pipeline(
        &Pipe {
            fs: "mrt_blend.frag",
            blends: vec![add, masked],
            ..Pipe::default()
        },
        rp,
    )?;
    let src = c8(100, 50, 200, 255);
    let verts = f.rect(8.0, 8.0, 56.0, 40.0, 0.5, src);
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let (ca, cb_) = (c8(100, 220, 10, 0), c8(7, 8, 9, 10));
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(ca), clear_color(cb_)]);
        f.draw(cb, pipe, vb, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let ga = f.read(
        "color0",
        a,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let gb = f.read(
        "color1",
        b,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut wa = Image::new("color0", f.w, f.h, RGBA8, codes(ca));
    let mut wb = Image::new("color1", f.w, f.h, RGBA8, codes(cb_));
    let (s, da, db) = (codes(src), codes(ca), codes(cb_));
    wa.fill(
        8,
        8,
        56,
        40,
        [0, 1, 2, 3].map(|k| (s[k] + da[k]).min(255.0)),
    );
    // Output 1 is the source swizzled to B, G, R, A; only R and A are written.
    wb.fill(8, 8, 56, 40, [s[2], db[1], db[2], s[3]]);
    Ok(vec![
        Out::new(ga, Some(wa), Tol::EXACT),
        Out::new(gb, Some(wb), Tol::EXACT),
    ])
}

fn subpass_input(f: &mut Frame) -> R<Vec<Out>> {
    let (a, av) = f.target(RGBA8, vk::ImageUsageFlags::INPUT_ATTACHMENT, ONE)?;
    let (b, bv) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let atts = [
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
        ),
        color_att(
            RGBA8,
            ONE,
            vk::AttachmentLoadOp::CLEAR,
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let c0 = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let in0 = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let c1 = [vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
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
    let deps = [vk::SubpassDependency {
        src_subpass: 0,
        dst_subpass: 1,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::FRAGMENT_SHADER,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::INPUT_ATTACHMENT_READ,
        dependency_flags: vk::DependencyFlags::BY_REGION,
    }];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb = f.framebuffer(rp, &[av, bv])?;
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
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(bg), clear_color(BG)]);
        f.draw(cb, p0, vb0, v0.len() as u32);
        // SAFETY: recording inside the pass; set, layout and buffers alive.
        unsafe {
            f.d.cmd_next_subpass(cb, vk::SubpassContents::INLINE);
            f.d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                0,
                &[set],
                &[],
            );
        }
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let ga = f.read(
        "first",
        a,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let gb = f.read(
        "second",
        b,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut wa = Image::new("first", f.w, f.h, RGBA8, codes(bg));
    for &(x0, y0, x1, y1, c) in &rects {
        wa.fill(x0 as u32, y0 as u32, x1 as u32, y1 as u32, codes(c));
    }
    let mut wb = wa.clone();
    wb.label = "second".into();
    for p in wb.px.iter_mut() {
        *p = [p[1], p[2], p[0], p[3]];
    }
    Ok(vec![
        Out::new(ga, Some(wa), Tol::EXACT),
        Out::new(gb, Some(wb), Tol::EXACT),
    ])
}

/// Pass 1 clears colour and depth and draws a near quad; pass 2 loads both (LOAD_OP_LOAD) in
/// a later submission and draws a farther quad that the loaded depth must hide in part.
fn load_store(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (dimg, dview) = f.depth_target(D32, ONE)?;
    let rp1 = f.simple_pass(&[RGBA8], Some(D32), ONE)?;
    let mut c_load = color_att(
        RGBA8,
        ONE,
        vk::AttachmentLoadOp::LOAD,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );
    c_load.initial_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    let mut d_load = depth_att(D32, ONE, vk::AttachmentLoadOp::LOAD);
    d_load.stencil_load_op = vk::AttachmentLoadOp::DONT_CARE;
    d_load.stencil_store_op = vk::AttachmentStoreOp::DONT_CARE;
    d_load.initial_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    let atts = [c_load, d_load];
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let dref = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref)
        .depth_stencil_attachment(&dref)];
    let deps = [vk::SubpassDependency {
        src_subpass: vk::SUBPASS_EXTERNAL,
        dst_subpass: 0,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
        dst_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_READ
            | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ,
        dependency_flags: vk::DependencyFlags::empty(),
    }];
    let rp2 = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&deps),
    )?;
    let fb1 = f.framebuffer(rp1, &[view, dview])?;
    let fb2 = f.framebuffer(rp2, &[view, dview])?;
    let p = Pipe {
        depth: Some((true, true, vk::CompareOp::LESS)),
        ..Pipe::default()
    };
    let p1 = f.pipeline(&p, rp1)?;
    let p2 = f.pipeline(&p, rp2)?;
    let (red, blue) = (c8(255, 0, 0, 255), c8(0, 0, 255, 255));
    let near = f.rect(4.0, 4.0, 40.0, 40.0, 0.25, red);
    let far = f.rect(20.0, 20.0, 60.0, 60.0, 0.5, blue);
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&near))?;
    let vb2 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&far))?;
    f.submit(|cb| {
        f.begin(cb, rp1, fb1, &[clear_color(BG), clear_depth(1.0, 0)]);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    f.submit(|cb| {
        // Clear values are ignored by LOAD attachments.
        f.begin(cb, rp2, fb2, &[]);
        f.draw(cb, p2, vb2, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let gd = f.read(
        "depth",
        dimg,
        D32,
        vk::ImageAspectFlags::DEPTH,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    let mut wd = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    want.fill(20, 20, 60, 60, codes(blue));
    wd.fill(20, 20, 60, 60, [0.5, 0.0, 0.0, 0.0]);
    want.fill(4, 4, 40, 40, codes(red));
    wd.fill(4, 4, 40, 40, [0.25, 0.0, 0.0, 0.0]);
    Ok(vec![
        Out::new(got, Some(want), Tol::EXACT),
        Out::new(gd, Some(wd), Tol::EXACT),
    ])
}

fn clear_attachments(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let (_dimg, dview) = f.depth_target(D32, ONE)?;
    let rp = f.simple_pass(&[RGBA8], Some(D32), ONE)?;
    let fb = f.framebuffer(rp, &[view, dview])?;
    let p = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::LESS)),
            ..Pipe::default()
        },
        rp,
    )?;
    let (red, green, blue) = (c8(255, 0, 0, 255), c8(0, 255, 0, 255), c8(0, 0, 255, 255));
    let mut v = f.rect(0.0, 0.0, 32.0, 32.0, 0.1, red);
    v.extend(f.rect(0.0, 0.0, 64.0, 64.0, 0.5, blue));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v))?;
    let rect = |x, y, w, h| vk::ClearRect {
        rect: vk::Rect2D {
            offset: vk::Offset2D { x, y },
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        },
        base_array_layer: 0,
        layer_count: 1,
    };
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color(BG), clear_depth(0.25, 0)]);
        // SAFETY: recording inside the pass; buffers alive.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, p);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_draw(cb, 6, 1, 0, 0);
            let color = vk::ClearAttachment {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                color_attachment: 0,
                clear_value: clear_color(green),
            };
            let depth = vk::ClearAttachment {
                aspect_mask: vk::ImageAspectFlags::DEPTH,
                color_attachment: 0,
                clear_value: clear_depth(1.0, 0),
            };
            f.d.cmd_clear_attachments(cb, &[color], &[rect(8, 8, 16, 32)]);
            f.d.cmd_clear_attachments(cb, &[depth], &[rect(30, 10, 30, 40), rect(2, 50, 10, 10)]);
            f.d.cmd_draw(cb, 6, 1, 6, 0);
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
    let mut want = want_rgba8(f, BG);
    want.fill(0, 0, 32, 32, codes(red));
    want.fill(8, 8, 24, 40, codes(green));
    want.fill(30, 10, 60, 50, codes(blue));
    want.fill(2, 50, 12, 60, codes(blue));
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
