//! A static `pSampleMask` with 4x MSAA and a depth attachment: a triangle drawn with a mask
//! that drops samples, then a full-frame rectangle behind it with every sample. Samples the
//! mask dropped must have been left without colour and without depth, so the rectangle
//! shows through them; the resolved pixel is the average of the two colours by sample.

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
