//! Transfers on multisampled images: vkCmdClearColorImage and vkCmdCopyImage between 4x
//! images (elements of 16, 32 and 64 bytes: every sample of a pixel moves together), read
//! back through vkCmdResolveImage; and vkCmdClearDepthStencilImage of a 4x depth image,
//! checked by a depth-tested draw that must pass or fail on every sample alike.
//!
//! Every sample of a pixel holds the same value here, so resolves are exact: a copy or clear
//! that reached only some samples shows up as an average, not as a rounding difference.

use super::super::frame::{bytes_of, c8, clear_color, codes, color_att, range, Frame, Pipe, R};
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{want_rgba8, D32, RGBA8};
use ash::vk;

const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const RGBA16F: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
const RGBA32F: vk::Format = vk::Format::R32G32B32A32_SFLOAT;

/// Usage of the multisampled colour images: cleared, copied to and from, resolved.
const MS_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw()
        | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);

/// The same without attachment usage: a multisampled image that is only transferred (the
/// CTS's resolve_image no_cab cases).
const MS_TRANSFER_ONLY: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::TRANSFER_SRC.as_raw() | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);
/// Usage of the 4x depth image: cleared by a transfer, then loaded by a render pass.
const DEPTH_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);

/// A copy-and-resolve format: the resolve destination needs COLOR_ATTACHMENT, the copies
/// TRANSFER_SRC/DST, and the images four samples.
fn copy_needs(f: vk::Format, usage: vk::ImageUsageFlags) -> Needs {
    Needs::new()
        .transfer(
            f,
            vk::FormatFeatureFlags::COLOR_ATTACHMENT
                | vk::FormatFeatureFlags::TRANSFER_SRC
                | vk::FormatFeatureFlags::TRANSFER_DST,
            usage,
        )
        .msaa(f, usage, X4)
}

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "msaa4_clear_copy_rgba8",
            size: 64,
            needs: || copy_needs(RGBA8, MS_USAGE),
            run: clear_copy_rgba8,
        },
        Scene {
            name: "msaa4_clear_copy_rgba16f",
            size: 64,
            needs: || copy_needs(RGBA16F, MS_USAGE),
            run: clear_copy_rgba16f,
        },
        Scene {
            name: "msaa4_clear_copy_rgba32f",
            size: 64,
            needs: || copy_needs(RGBA32F, MS_TRANSFER_ONLY),
            run: clear_copy_rgba32f,
        },
        Scene {
            name: "msaa4_clear_depth_image",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32)
                    .transfer(D32, vk::FormatFeatureFlags::TRANSFER_DST, DEPTH_USAGE)
                    .msaa(
                        RGBA8,
                        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                        X4,
                    )
                    .msaa(D32, DEPTH_USAGE, X4)
            },
            run: clear_depth_image,
        },
    ]
}

/// The first copy: A's (5,3) 21x17 to B's (30,20). Odd offsets and sizes, crossing tiles.
const COPY_AB: ([i32; 2], [u32; 2], [i32; 2]) = ([5, 3], [21, 17], [30, 20]);
/// The second: B's (25,15) 19x13, which straddles the corner of what the first copy wrote
/// (so a wrong source offset moves the boundary), to C's (7,44).
const COPY_BC: ([i32; 2], [u32; 2], [i32; 2]) = ([25, 15], [19, 13], [7, 44]);

fn barrier(
    img: vk::Image,
    aspect: vk::ImageAspectFlags,
    (src, old): (vk::AccessFlags, vk::ImageLayout),
    (dst, new): (vk::AccessFlags, vk::ImageLayout),
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img)
        .subresource_range(range(aspect))
}

fn color_layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn copy_region((src, size, dst): ([i32; 2], [u32; 2], [i32; 2])) -> vk::ImageCopy {
    vk::ImageCopy {
        src_subresource: color_layers(),
        src_offset: vk::Offset3D {
            x: src[0],
            y: src[1],
            z: 0,
        },
        dst_subresource: color_layers(),
        dst_offset: vk::Offset3D {
            x: dst[0],
            y: dst[1],
            z: 0,
        },
        extent: vk::Extent3D {
            width: size[0],
            height: size[1],
            depth: 1,
        },
    }
}

/// The CPU side of a vkCmdCopyImage region between two frame-sized images.
fn copy_cpu(src: &Image, dst: &mut Image, (s, size, d): ([i32; 2], [u32; 2], [i32; 2])) {
    for y in 0..size[1] {
        for x in 0..size[0] {
            let v = src.at(s[0] as u32 + x, s[1] as u32 + y);
            dst.set(d[0] as u32 + x, d[1] as u32 + y, v);
        }
    }
}

fn clear_copy_rgba8(f: &mut Frame) -> R<Vec<Out>> {
    let (x, y, z) = (
        c8(200, 40, 90, 255),
        c8(12, 230, 7, 128),
        c8(60, 61, 250, 3),
    );
    clear_copy(
        f,
        RGBA8,
        MS_USAGE,
        [x, y, z],
        [codes(x), codes(y), codes(z)],
    )
}

fn clear_copy_rgba16f(f: &mut Frame) -> R<Vec<Out>> {
    // Exact in half precision, signs and exponents varied.
    let c = [
        [0.25, -1.5, 1000.0, 1.0],
        [3.0, 0.125, -0.0625, 0.5],
        [-2.75, 64.0, 0.375, 7.0],
    ];
    clear_copy(f, RGBA16F, MS_USAGE, c, c.map(|v| v.map(f64::from)))
}

/// Without attachment usage.
fn clear_copy_rgba32f(f: &mut Frame) -> R<Vec<Out>> {
    // Not representable in half precision, so a path that narrows to 16 bits shows.
    let c = [
        [0.1, -3.3, 100000.5, 1.0],
        [1.0e-3, 0.7, -12345.678, 0.25],
        [2.0e7, -0.3, 0.333_333_34, 42.0],
    ];
    clear_copy(f, RGBA32F, MS_TRANSFER_ONLY, c, c.map(|v| v.map(f64::from)))
}

/// Three 4x images A, B, C cleared by vkCmdClearColorImage to `clears`; A's COPY_AB region
/// copied into B, then B's COPY_BC region into C; B and C resolved to single-sample images and
/// read back. `want` is what each clear value reads back as.
fn clear_copy(
    f: &mut Frame,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    clears: [[f32; 4]; 3],
    want: [[f64; 4]; 3],
) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let ms: Vec<vk::Image> = (0..3)
        .map(|_| f.image_full(format, w, h, usage, X4))
        .collect::<R<_>>()?;
    let (a, b, c) = (ms[0], ms[1], ms[2]);
    let (rb, _) = f.target(format, vk::ImageUsageFlags::TRANSFER_DST, ONE)?;
    let (rc, _) = f.target(format, vk::ImageUsageFlags::TRANSFER_DST, ONE)?;
    let col = vk::ImageAspectFlags::COLOR;
    let none = vk::AccessFlags::empty();
    let (tw, tr) = (
        vk::AccessFlags::TRANSFER_WRITE,
        vk::AccessFlags::TRANSFER_READ,
    );
    let (undef, tdst, tsrc) = (
        vk::ImageLayout::UNDEFINED,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );
    let resolve = vk::ImageResolve {
        src_subresource: color_layers(),
        dst_subresource: color_layers(),
        extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        ..Default::default()
    };
    let d = f.d;
    let transfer = vk::PipelineStageFlags::TRANSFER;
    let stage = |cb, from, barriers: &[vk::ImageMemoryBarrier]| {
        // SAFETY: recording command buffer; the barriers name live images.
        unsafe {
            d.cmd_pipeline_barrier(
                cb,
                from,
                transfer,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                barriers,
            )
        }
    };
    f.submit(|cb| {
        let fresh: Vec<_> = [a, b, c, rb, rc]
            .iter()
            .map(|&i| barrier(i, col, (none, undef), (tw, tdst)))
            .collect();
        stage(cb, vk::PipelineStageFlags::TOP_OF_PIPE, &fresh);
        // SAFETY: recording; images alive and in TRANSFER_DST_OPTIMAL.
        unsafe {
            for (img, value) in [(a, clears[0]), (b, clears[1]), (c, clears[2])] {
                d.cmd_clear_color_image(cb, img, tdst, &clear_color(value).color, &[range(col)]);
            }
        }
        stage(
            cb,
            transfer,
            &[
                barrier(a, col, (tw, tdst), (tr, tsrc)),
                barrier(b, col, (tw, tdst), (tw, tdst)),
                barrier(c, col, (tw, tdst), (tw, tdst)),
            ],
        );
        // SAFETY: recording; A in TRANSFER_SRC, B in TRANSFER_DST, both 4x of one format.
        unsafe { d.cmd_copy_image(cb, a, tsrc, b, tdst, &[copy_region(COPY_AB)]) };
        stage(cb, transfer, &[barrier(b, col, (tw, tdst), (tr, tsrc))]);
        // SAFETY: as above, B now the source and C the destination.
        unsafe { d.cmd_copy_image(cb, b, tsrc, c, tdst, &[copy_region(COPY_BC)]) };
        stage(cb, transfer, &[barrier(c, col, (tw, tdst), (tr, tsrc))]);
        // SAFETY: recording; 4x sources in TRANSFER_SRC, single-sample destinations in
        // TRANSFER_DST, same format and size.
        unsafe {
            d.cmd_resolve_image(cb, b, tsrc, rb, tdst, &[resolve]);
            d.cmd_resolve_image(cb, c, tsrc, rc, tdst, &[resolve]);
        }
    })?;
    let gb = f.read("b", rb, format, col, tdst)?;
    let gc = f.read("c", rc, format, col, tdst)?;
    let wa = Image::new("a", w, h, format, want[0]);
    let mut wb = Image::new("b", w, h, format, want[1]);
    let mut wc = Image::new("c", w, h, format, want[2]);
    copy_cpu(&wa, &mut wb, COPY_AB);
    copy_cpu(&wb, &mut wc, COPY_BC);
    Ok(vec![
        Out::new(gb, Some(wb), Tol::EXACT),
        Out::new(gc, Some(wc), Tol::EXACT),
    ])
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const CLEAR_DEPTH: f32 = 0.25;

/// A 4x depth image cleared to 0.25 by vkCmdClearDepthStencilImage and loaded by a pass
/// (whose 4x colour resolves in the pass): a quad at 0.2 over the left half must pass LESS on
/// every sample, one at 0.3 over the right half on none. A sample the clear missed would make
/// its pixels averages of the quad and the background.
fn clear_depth_image(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let (_ms, ms_view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), X4)?;
    let (res, res_view) = f.target(RGBA8, vk::ImageUsageFlags::empty(), ONE)?;
    let depth = f.image_full(D32, w, h, DEPTH_USAGE, X4)?;
    let dview = f.view(depth, D32, vk::ImageAspectFlags::DEPTH)?;
    let ds_layout = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
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
        vk::AttachmentDescription {
            format: D32,
            samples: X4,
            load_op: vk::AttachmentLoadOp::LOAD,
            store_op: vk::AttachmentStoreOp::DONT_CARE,
            stencil_load_op: vk::AttachmentLoadOp::DONT_CARE,
            stencil_store_op: vk::AttachmentStoreOp::DONT_CARE,
            initial_layout: ds_layout,
            final_layout: ds_layout,
            ..Default::default()
        },
    ];
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let rref = [vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let dref = vk::AttachmentReference {
        attachment: 2,
        layout: ds_layout,
    };
    let subs = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref)
        .resolve_attachments(&rref)
        .depth_stencil_attachment(&dref)];
    let rp = f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs),
    )?;
    let fb = f.framebuffer(rp, &[ms_view, res_view, dview])?;
    let pipe = f.pipeline(
        &Pipe {
            samples: X4,
            depth: Some((true, true, vk::CompareOp::LESS)),
            ..Pipe::default()
        },
        rp,
    )?;
    let (red, green) = (c8(255, 0, 0, 255), c8(0, 255, 0, 255));
    let half = w as f32 / 2.0;
    let mut verts = f.rect(0.0, 0.0, half, h as f32, 0.2, red);
    verts.extend(f.rect(half, 0.0, w as f32, h as f32, 0.3, green));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let dep = vk::ImageAspectFlags::DEPTH;
    let tw = vk::AccessFlags::TRANSFER_WRITE;
    let to_dst = barrier(
        depth,
        dep,
        (vk::AccessFlags::empty(), vk::ImageLayout::UNDEFINED),
        (tw, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
    );
    let to_att = barrier(
        depth,
        dep,
        (tw, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
        (
            vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
            ds_layout,
        ),
    );
    let value = vk::ClearDepthStencilValue {
        depth: CLEAR_DEPTH,
        stencil: 0,
    };
    f.submit(|cb| {
        // SAFETY: recording; the depth image is alive, cleared in TRANSFER_DST and moved to
        // the attachment layout the pass expects before the pass begins.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            f.d.cmd_clear_depth_stencil_image(
                cb,
                depth,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &value,
                &[range(dep)],
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS
                    | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_att],
            );
        }
        f.begin(cb, rp, fb, &[clear_color(BG), clear_color(BG)]);
        f.draw(cb, pipe, vb, verts.len() as u32);
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
    let mut want = want_rgba8(f, BG);
    // The near quad passes where 0.2 < the cleared depth; the far one where 0.3 < it.
    if 0.2 < CLEAR_DEPTH {
        want.fill(0, 0, w / 2, h, codes(red));
    }
    if 0.3 < CLEAR_DEPTH {
        want.fill(w / 2, 0, w, h, codes(green));
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
