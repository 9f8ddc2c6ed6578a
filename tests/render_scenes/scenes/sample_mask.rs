//! A static `pSampleMask` with 4x MSAA and a depth attachment: a triangle drawn with a mask
//! that drops samples, then a full-frame rectangle behind it with every sample. Samples the
//! mask dropped must have been left without colour and without depth, so the rectangle
//! shows through them; the resolved pixel is the average of the two colours by sample.
//! Alpha to coverage drops samples the same way, in proportion to the alpha written.

use super::super::frame::{c8, Frame, Pipe, R, V};
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::passes::render_resolved;
use super::{want_rgba8, D32, RGBA8};
use ash::vk;

const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const DEPTH_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
);

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "msaa4_sample_mask_0101",
            size: 64,
            needs,
            run: |f| masked_scene(f, 0b0101),
        },
        Scene {
            name: "msaa4_sample_mask_0001",
            size: 64,
            needs,
            run: |f| masked_scene(f, 0b0001),
        },
        Scene {
            name: "msaa4_alpha_to_coverage",
            size: 64,
            needs,
            run: alpha_to_coverage,
        },
    ]
}

fn needs() -> Needs {
    Needs::new()
        .color(RGBA8)
        .depth(D32)
        .msaa(
            RGBA8,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            X4,
        )
        .msaa(D32, DEPTH_USAGE, X4)
}

const FRONT: [u8; 4] = [255, 32, 0, 255];
const BACK: [u8; 4] = [0, 96, 255, 255];

fn masked_scene(f: &mut Frame, mask: u32) -> R<Vec<Out>> {
    let tri = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];
    let [r, g, b, a] = FRONT;
    let front: Vec<V> = tri
        .iter()
        .map(|q: &[f64; 2]| f.v(q[0] as f32, q[1] as f32, 0.25, c8(r, g, b, a)))
        .collect();
    let [r, g, b, a] = BACK;
    let back = f.rect(0.0, 0.0, f.w as f32, f.h as f32, 0.75, c8(r, g, b, a));
    let depth = Some((true, true, vk::CompareOp::LESS));
    let masked = Pipe {
        samples: X4,
        sample_mask: Some(mask),
        depth,
        ..Pipe::default()
    };
    let full = Pipe {
        samples: X4,
        depth,
        ..Pipe::default()
    };
    let got = render_resolved(f, Some(D32), &[(&masked, &front), (&full, &back)])?;
    // Each sample shows the triangle where it covers it and the mask keeps it, else the
    // rectangle (the masked samples' depth stayed at the clear value 1.0).
    let (front, back) = (FRONT.map(f64::from), BACK.map(f64::from));
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            let mut sum = [0.0; 4];
            let mut edge = false;
            for (i, s) in SAMPLES_4X.iter().enumerate() {
                let c = match cover(&tri, [x as f64 + s[0], y as f64 + s[1]]) {
                    Cover::In(_) if mask & (1 << i) != 0 => front,
                    Cover::In(_) | Cover::Out => back,
                    Cover::Edge => {
                        edge = true;
                        back
                    }
                };
                for k in 0..4 {
                    sum[k] += c[k] / 4.0;
                }
            }
            if edge {
                want.ignore(x, y);
            } else {
                want.set(x, y, sum.map(|v: f64| v.round()));
            }
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Five bands drawn with alpha to coverage in front of a full-frame rectangle, their alphas
/// 0, 1/4, 1/2, 3/4 and 1: a band of alpha k/4 keeps k of the four samples (which ones is the
/// implementation's choice, so only the resolved average is checked), and the rectangle shows
/// in the others. Alpha-to-coverage's alphas are exact multiples of 1/4, so any rounding rule
/// the spec allows gives these counts.
fn alpha_to_coverage(f: &mut Frame) -> R<Vec<Out>> {
    const BANDS: u32 = 5;
    let front_rgb = [1.0f32, 0.5, 0.0];
    let band_w = f.w / BANDS;
    let mut front = Vec::new();
    for k in 0..BANDS {
        let alpha = k as f32 / 4.0;
        let x0 = (k * band_w) as f32;
        let c = [front_rgb[0], front_rgb[1], front_rgb[2], alpha];
        front.extend(f.rect(x0, 0.0, x0 + band_w as f32, f.h as f32, 0.25, c));
    }
    let [r, g, b, a] = BACK;
    let back = f.rect(0.0, 0.0, f.w as f32, f.h as f32, 0.75, c8(r, g, b, a));
    let depth = Some((true, true, vk::CompareOp::LESS));
    let covered = Pipe {
        samples: X4,
        alpha_to_coverage: true,
        depth,
        ..Pipe::default()
    };
    let full = Pipe {
        samples: X4,
        depth,
        ..Pipe::default()
    };
    let got = render_resolved(f, Some(D32), &[(&covered, &front), (&full, &back)])?;
    let back = BACK.map(f64::from);
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            let k = x / band_w;
            let c = if k < BANDS {
                let kept = f64::from(k) / 4.0;
                let fc = [front_rgb[0], front_rgb[1], front_rgb[2], k as f32 / 4.0]
                    .map(|v| (f64::from(v) * 255.0).round());
                std::array::from_fn(|i| (kept * fc[i] + (1.0 - kept) * back[i]).round())
            } else {
                back
            };
            want.set(x, y, c);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
