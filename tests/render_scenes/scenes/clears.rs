//! Clears: a render pass's LOAD_OP_CLEAR in several colour formats, and vkCmdClearColorImage
//! (a transfer, no attachment needed).

use super::super::frame::{range, Frame, R};
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use ash::vk;

pub fn scenes() -> Vec<Scene> {
    macro_rules! clear {
        ($name:literal, $run:ident, $fmt:expr) => {
            Scene {
                name: $name,
                size: 64,
                needs: || Needs::new().color($fmt),
                run: $run,
            }
        };
    }
    vec![
        clear!("clear_rgba8_unorm", clear_rgba8, vk::Format::R8G8B8A8_UNORM),
        clear!("clear_bgra8_unorm", clear_bgra8, vk::Format::B8G8R8A8_UNORM),
        clear!("clear_rgba8_srgb", clear_srgb, vk::Format::R8G8B8A8_SRGB),
        clear!("clear_r8_unorm", clear_r8, vk::Format::R8_UNORM),
        clear!(
            "clear_rgba16_sfloat",
            clear_f16,
            vk::Format::R16G16B16A16_SFLOAT
        ),
        clear!(
            "clear_rgba32_uint",
            clear_u32,
            vk::Format::R32G32B32A32_UINT
        ),
        clear!(
            "clear_a2b10g10r10_unorm",
            clear_1010102,
            vk::Format::A2B10G10R10_UNORM_PACK32
        ),
        Scene {
            name: "clear_color_image",
            size: 64,
            needs: || {
                let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
                Needs::new()
                    .transfer(
                        vk::Format::R8G8B8A8_UNORM,
                        vk::FormatFeatureFlags::empty(),
                        usage,
                    )
                    .transfer(
                        vk::Format::R32G32B32A32_UINT,
                        vk::FormatFeatureFlags::empty(),
                        usage,
                    )
            },
            run: clear_color_image,
        },
    ]
}

/// Clears a target of `format` to `value` in a render pass and reads it back.
fn clear_pass(
    f: &mut Frame,
    format: vk::Format,
    value: vk::ClearColorValue,
    want: [f64; 4],
    tol: Tol,
) -> R<Vec<Out>> {
    let (img, view) = f.target(
        format,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let rp = f.simple_pass(&[format], None, vk::SampleCountFlags::TYPE_1)?;
    let fb = f.framebuffer(rp, &[view])?;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[vk::ClearValue { color: value }]);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let got = f.read(
        "color",
        img,
        format,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let want = Image::new("color", f.w, f.h, format, want);
    Ok(vec![Out::new(got, Some(want), tol)])
}

fn floats(c: [f32; 4]) -> vk::ClearColorValue {
    vk::ClearColorValue { float32: c }
}

fn clear_rgba8(f: &mut Frame) -> R<Vec<Out>> {
    clear_pass(
        f,
        vk::Format::R8G8B8A8_UNORM,
        floats([0.1, 0.8, 0.25, 1.0]),
        [26.0, 204.0, 64.0, 255.0],
        Tol::UNORM8,
    )
}

fn clear_bgra8(f: &mut Frame) -> R<Vec<Out>> {
    // Decoded back to R, G, B, A order: the swizzle must not show.
    clear_pass(
        f,
        vk::Format::B8G8R8A8_UNORM,
        floats([0.1, 0.8, 0.25, 0.6]),
        [26.0, 204.0, 64.0, 153.0],
        Tol::UNORM8,
    )
}

fn srgb_encode(l: f64) -> f64 {
    let s = if l <= 0.0031308 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round()
}

fn clear_srgb(f: &mut Frame) -> R<Vec<Out>> {
    let c = [0.5f32, 0.04, 0.002, 0.5];
    let want = [
        srgb_encode(0.5),
        srgb_encode(0.04),
        srgb_encode(0.002),
        128.0,
    ];
    // Alpha is linear: 0.5 * 255 = 127.5 may round either way, like any UNORM8 conversion.
    clear_pass(f, vk::Format::R8G8B8A8_SRGB, floats(c), want, Tol::UNORM8)
}

fn clear_r8(f: &mut Frame) -> R<Vec<Out>> {
    clear_pass(
        f,
        vk::Format::R8_UNORM,
        floats([77.0 / 255.0, 1.0, 1.0, 1.0]),
        [77.0, 0.0, 0.0, 0.0],
        Tol::UNORM8,
    )
}

fn clear_f16(f: &mut Frame) -> R<Vec<Out>> {
    // Values exactly representable in half precision.
    clear_pass(
        f,
        vk::Format::R16G16B16A16_SFLOAT,
        floats([0.25, -2.5, 1000.0, 0.125]),
        [0.25, -2.5, 1000.0, 0.125],
        Tol::EXACT,
    )
}

fn clear_u32(f: &mut Frame) -> R<Vec<Out>> {
    let v = vk::ClearColorValue {
        uint32: [1, 0xdead_beef, 7, 0xffff_ffff],
    };
    clear_pass(
        f,
        vk::Format::R32G32B32A32_UINT,
        v,
        [1.0, 0xdead_beefu32 as f64, 7.0, 0xffff_ffffu32 as f64],
        Tol::EXACT,
    )
}

fn clear_1010102(f: &mut Frame) -> R<Vec<Out>> {
    let c = [100.0 / 1023.0, 1.0, 0.0, 2.0 / 3.0];
    clear_pass(
        f,
        vk::Format::A2B10G10R10_UNORM_PACK32,
        floats(c),
        [100.0, 1023.0, 0.0, 2.0],
        Tol::UNORM8,
    )
}

/// vkCmdClearColorImage on two images (UNORM and UINT), read back whole.
fn clear_color_image(f: &mut Frame) -> R<Vec<Out>> {
    let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    let (w, h) = (f.w, f.h);
    let a = f.image_full(
        vk::Format::R8G8B8A8_UNORM,
        w,
        h,
        usage,
        vk::SampleCountFlags::TYPE_1,
    )?;
    let b = f.image_full(
        vk::Format::R32G32B32A32_UINT,
        w,
        h,
        usage,
        vk::SampleCountFlags::TYPE_1,
    )?;
    let to_dst = |img| {
        vk::ImageMemoryBarrier::default()
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(img)
            .subresource_range(range(vk::ImageAspectFlags::COLOR))
    };
    let barriers = [to_dst(a), to_dst(b)];
    f.submit(|cb| {
        // SAFETY: recording; images alive, in TRANSFER_DST_OPTIMAL after the barrier.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barriers,
            );
            let r = [range(vk::ImageAspectFlags::COLOR)];
            f.d.cmd_clear_color_image(
                cb,
                a,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue {
                    float32: [0.2, 0.4, 0.6, 0.8],
                },
                &r,
            );
            f.d.cmd_clear_color_image(
                cb,
                b,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue {
                    uint32: [9, 0x8000_0000, 65536, 3],
                },
                &r,
            );
        }
    })?;
    let ga = f.read(
        "unorm",
        a,
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let gb = f.read(
        "uint",
        b,
        vk::Format::R32G32B32A32_UINT,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    )?;
    let wa = Image::new(
        "unorm",
        w,
        h,
        vk::Format::R8G8B8A8_UNORM,
        [51.0, 102.0, 153.0, 204.0],
    );
    let wb = Image::new(
        "uint",
        w,
        h,
        vk::Format::R32G32B32A32_UINT,
        [9.0, 2147483648.0, 65536.0, 3.0],
    );
    Ok(vec![
        Out::new(ga, Some(wa), Tol::UNORM8),
        Out::new(gb, Some(wb), Tol::EXACT),
    ])
}
