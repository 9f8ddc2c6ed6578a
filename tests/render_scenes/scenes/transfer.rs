//! Copies and blits: buffer to image with a row pitch and offsets, image to image between
//! size-compatible formats, and vkCmdBlitImage with scaling, mirroring and format conversion.

use super::super::frame::{range, Frame, R};
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::RGBA8;
use ash::vk;

const TRANSFER: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::TRANSFER_SRC.as_raw() | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);
const R32UI: vk::Format = vk::Format::R32_UINT;
const BGRA8: vk::Format = vk::Format::B8G8R8A8_UNORM;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "copy_buffer_image",
            size: 64,
            needs: || Needs::new().transfer(RGBA8, vk::FormatFeatureFlags::empty(), TRANSFER),
            run: copy_buffer_image,
        },
        Scene {
            name: "copy_image",
            size: 64,
            needs: || {
                Needs::new()
                    .transfer(RGBA8, vk::FormatFeatureFlags::empty(), TRANSFER)
                    .transfer(R32UI, vk::FormatFeatureFlags::empty(), TRANSFER)
            },
            run: copy_image,
        },
        Scene {
            name: "blit_image",
            size: 64,
            needs: || {
                Needs::new()
                    .transfer(RGBA8, vk::FormatFeatureFlags::BLIT_SRC, TRANSFER)
                    .transfer(BGRA8, vk::FormatFeatureFlags::BLIT_DST, TRANSFER)
            },
            run: blit_image,
        },
    ]
}

fn pattern(w: u32, h: u32, seed: u32) -> Vec<u8> {
    (0..w * h * 4)
        .map(|i| ((i.wrapping_mul(2654435761) >> 13) ^ seed) as u8)
        .collect()
}

fn barrier(
    img: vk::Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .src_access_mask(if old == vk::ImageLayout::UNDEFINED {
            vk::AccessFlags::empty()
        } else {
            vk::AccessFlags::TRANSFER_WRITE
        })
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img)
        .subresource_range(range(vk::ImageAspectFlags::COLOR))
}

fn layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// An image of `format` filled from `bytes` (w*h texels, tightly packed), left in
/// TRANSFER_SRC_OPTIMAL.
fn uploaded(f: &mut Frame, format: vk::Format, w: u32, h: u32, bytes: &[u8]) -> R<vk::Image> {
    let img = f.image_full(format, w, h, TRANSFER, vk::SampleCountFlags::TYPE_1)?;
    let buf = f.buffer(vk::BufferUsageFlags::TRANSFER_SRC, bytes)?;
    let region = vk::BufferImageCopy {
        image_subresource: layers(),
        image_extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        ..Default::default()
    };
    f.submit(|cb| {
        // SAFETY: recording; image and buffer alive and large enough.
        unsafe {
            let b = barrier(
                img,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
            f.d.cmd_copy_buffer_to_image(
                cb,
                buf,
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
            let b = barrier(
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
        }
    })?;
    Ok(img)
}

/// A cleared image, then a 32x28 region from a buffer with a 48-texel row pitch and a
/// 5-row, 3-texel offset into the buffer, at image offset (8, 4).
fn copy_buffer_image(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let img = f.image_full(RGBA8, w, h, TRANSFER, vk::SampleCountFlags::TYPE_1)?;
    let src = pattern(48, 40, 0x5a);
    let buf = f.buffer(vk::BufferUsageFlags::TRANSFER_SRC, &src)?;
    let region = vk::BufferImageCopy {
        buffer_offset: ((5 * 48 + 3) * 4) as u64,
        buffer_row_length: 48,
        buffer_image_height: 0,
        image_subresource: layers(),
        image_offset: vk::Offset3D { x: 8, y: 4, z: 0 },
        image_extent: vk::Extent3D {
            width: 32,
            height: 28,
            depth: 1,
        },
    };
    f.submit(|cb| {
        // SAFETY: recording; image and buffer alive and large enough.
        unsafe {
            let b = barrier(
                img,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
            let c = vk::ClearColorValue {
                float32: [0.0, 0.0, 0.0, 1.0],
            };
            f.d.cmd_clear_color_image(
                cb,
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &c,
                &[range(vk::ImageAspectFlags::COLOR)],
            );
            let b = barrier(
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
            f.d.cmd_copy_buffer_to_image(
                cb,
                buf,
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
        }
    })?;
    let got = f.read(
        "color",
        img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let mut want = Image::new("color", w, h, RGBA8, [0.0, 0.0, 0.0, 255.0]);
    for y in 0..28u32 {
        for x in 0..32u32 {
            let o = (((5 + y) * 48 + 3 + x) * 4) as usize;
            want.set(
                8 + x,
                4 + y,
                [src[o], src[o + 1], src[o + 2], src[o + 3]].map(|v| v as f64),
            );
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// RGBA8 texels copied into an R32_UINT image (same texel size, bits kept) at an offset,
/// and a second region copied RGBA8 to RGBA8 within the source's own format.
fn copy_image(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let src_bytes = pattern(32, 32, 0xc3);
    let src = uploaded(f, RGBA8, 32, 32, &src_bytes)?;
    let dst = uploaded(f, R32UI, w, h, &vec![0u8; (w * h * 4) as usize])?;
    let dst2 = uploaded(f, RGBA8, w, h, &vec![0x40u8; (w * h * 4) as usize])?;
    let r1 = vk::ImageCopy {
        src_subresource: layers(),
        src_offset: vk::Offset3D { x: 4, y: 2, z: 0 },
        dst_subresource: layers(),
        dst_offset: vk::Offset3D { x: 30, y: 40, z: 0 },
        extent: vk::Extent3D {
            width: 24,
            height: 20,
            depth: 1,
        },
    };
    let r2 = vk::ImageCopy {
        dst_offset: vk::Offset3D { x: 0, y: 0, z: 0 },
        extent: vk::Extent3D {
            width: 28,
            height: 30,
            depth: 1,
        },
        ..r1
    };
    f.submit(|cb| {
        // SAFETY: recording; images alive; regions inside both images.
        unsafe {
            let bs = [
                barrier(
                    dst,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                ),
                barrier(
                    dst2,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                ),
            ];
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &bs,
            );
            f.d.cmd_copy_image(
                cb,
                src,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[r1],
            );
            f.d.cmd_copy_image(
                cb,
                src,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst2,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[r2],
            );
        }
    })?;
    let got = f.read(
        "uint",
        dst,
        R32UI,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let got2 = f.read(
        "rgba8",
        dst2,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let mut want = Image::new("uint", w, h, R32UI, [0.0; 4]);
    let mut want2 = Image::new("rgba8", w, h, RGBA8, [64.0; 4]);
    let texel = |x: u32, y: u32| {
        let o = ((y * 32 + x) * 4) as usize;
        [
            src_bytes[o],
            src_bytes[o + 1],
            src_bytes[o + 2],
            src_bytes[o + 3],
        ]
    };
    for y in 0..20 {
        for x in 0..24 {
            want.set(
                30 + x,
                40 + y,
                [
                    u32::from_le_bytes(texel(4 + x, 2 + y)) as f64,
                    0.0,
                    0.0,
                    0.0,
                ],
            );
        }
    }
    for y in 0..30 {
        for x in 0..28 {
            want2.set(x, y, texel(4 + x, 2 + y).map(|v| v as f64));
        }
    }
    Ok(vec![
        Out::new(got, Some(want), Tol::EXACT),
        Out::new(got2, Some(want2), Tol::EXACT),
    ])
}

/// A 16x16 RGBA8 source blitted NEAREST into a BGRA8 destination: scaled 2x into the top
/// left, and mirrored in x (destination offsets reversed) and 1:1 into the bottom right.
fn blit_image(f: &mut Frame) -> R<Vec<Out>> {
    let (w, h) = (f.w, f.h);
    let src_bytes = pattern(16, 16, 0x77);
    let src = uploaded(f, RGBA8, 16, 16, &src_bytes)?;
    let dst = uploaded(f, BGRA8, w, h, &vec![0u8; (w * h * 4) as usize])?;
    // Blit regions are boxes: z runs 0..1 for 2D images.
    let o = |x, y, z| vk::Offset3D { x, y, z };
    let scaled = vk::ImageBlit {
        src_subresource: layers(),
        src_offsets: [o(0, 0, 0), o(16, 16, 1)],
        dst_subresource: layers(),
        dst_offsets: [o(0, 0, 0), o(32, 32, 1)],
    };
    let mirrored = vk::ImageBlit {
        src_subresource: layers(),
        src_offsets: [o(0, 0, 0), o(16, 16, 1)],
        dst_subresource: layers(),
        dst_offsets: [o(60, 40, 0), o(44, 56, 1)],
    };
    f.submit(|cb| {
        // SAFETY: recording; images alive; regions inside both images.
        unsafe {
            let b = barrier(
                dst,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[b],
            );
            f.d.cmd_blit_image(
                cb,
                src,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[scaled, mirrored],
                vk::Filter::NEAREST,
            );
        }
    })?;
    let got = f.read(
        "color",
        dst,
        BGRA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let mut want = Image::new("color", w, h, BGRA8, [0.0; 4]);
    let texel = |x: u32, y: u32| {
        let o = ((y * 16 + x) * 4) as usize;
        [
            src_bytes[o],
            src_bytes[o + 1],
            src_bytes[o + 2],
            src_bytes[o + 3],
        ]
        .map(|v| v as f64)
    };
    for y in 0..32 {
        for x in 0..32 {
            want.set(x, y, texel(x / 2, y / 2));
        }
    }
    for y in 0..16 {
        for x in 0..16 {
            // Destination x runs from 60 down to 44: source column 0 lands at x = 59.
            want.set(59 - x, 40 + y, texel(x, y));
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
