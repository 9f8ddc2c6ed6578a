//! Per-sample interpolation: a fragment shader with a `sample`-qualified input runs once per
//! sample of a 4x target, each run seeing the input at its own sample's position.

use super::super::frame::{Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::passes::{render_and_resolve, BG};
use super::{want_rgba8, RGBA8};
use ash::vk;

pub fn scenes() -> Vec<Scene> {
    vec![Scene {
        name: "msaa4_sample_interpolation",
        size: 64,
        needs: || {
            Needs::new()
                .color(RGBA8)
                .msaa(
                    RGBA8,
                    vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                    vk::SampleCountFlags::TYPE_4,
                )
                .feature(Feature::SampleRateShading)
        },
        run: sample_interpolation,
    }]
}

fn sample_interpolation(f: &mut Frame) -> R<Vec<Out>> {
    let tri = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];
    // Red and green per vertex; the shader takes sin / cos of them.
    let vals: [[f32; 2]; 3] = [[0.0, 0.0], [40.0, 6.0], [12.0, 50.0]];
    let verts: Vec<V> = tri
        .iter()
        .zip(vals)
        .map(|(p, [r, g])| f.v(p[0] as f32, p[1] as f32, 0.5, [r, g, 0.0, 1.0]))
        .collect();
    let pipe = Pipe {
        fs: "sample_interp.frag",
        samples: vk::SampleCountFlags::TYPE_4,
        ..Pipe::default()
    };
    let got = render_and_resolve(f, &pipe, &verts)?;
    // Per pixel, the mean of what the four samples hold: the shader's colour of the input
    // interpolated (w is 1: linearly in screen space) at each covered sample's position.
    let bg = BG.map(f64::from);
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            let mut sum = [0.0; 4];
            let mut edge = false;
            for s in SAMPLES_4X {
                let c = match cover(&tri, [x as f64 + s[0], y as f64 + s[1]]) {
                    Cover::In(b) => {
                        let at =
                            |k: usize| (0..3).map(|i| b[i] * f64::from(vals[i][k])).sum::<f64>();
                        [0.5 + 0.5 * at(0).sin(), 0.5 + 0.5 * at(1).cos(), 0.0, 1.0]
                    }
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
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
