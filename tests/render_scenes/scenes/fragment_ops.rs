//! Fragment-shader operations over the quad and the pixel's samples: fine derivatives at
//! triangle edges (where a quad's other pixels are helpers), interpolateAtOffset /
//! interpolateAtSample on a 4x target, and gl_SampleMask / gl_SampleMaskIn.

use super::super::frame::{Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::raster::{cover, Cover, SAMPLES_4X};
use super::super::run::{Out, Scene};
use super::passes::{render_and_resolve, BG};
use super::{draw_rgba8, want_rgba8, RGBA8};
use ash::vk;

const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "fine_derivatives_at_edges",
            size: 64,
            needs: || Needs::new().color(RGBA8),
            run: derivatives,
        },
        Scene {
            name: "msaa4_interpolate_at_offset_and_sample",
            size: 64,
            needs: || {
                msaa4()
                    // InterpolationFunction needs sampleRateShading.
                    .feature(Feature::SampleRateShading)
            },
            run: interpolate_at,
        },
        Scene {
            name: "msaa4_sample_mask_output",
            size: 64,
            needs: msaa4,
            run: sample_mask_output,
        },
    ]
}

fn msaa4() -> Needs {
    Needs::new().color(RGBA8).msaa(
        RGBA8,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        X4,
    )
}

/// A triangle with edges at odd slopes, so many quads are partly covered.
const TRI: [[f64; 2]; 3] = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];

fn triangle(f: &Frame, vals: [[f32; 2]; 3]) -> Vec<V> {
    TRI.iter()
        .zip(vals)
        .map(|(p, [r, g])| f.v(p[0] as f32, p[1] as f32, 0.5, [r, g, 0.0, 1.0]))
        .collect()
}

/// The plane (a, b, c) through the triangle's vertices with values `vals`: a varying with
/// w = 1 is a*x + b*y + c everywhere on screen.
fn plane(vals: [f64; 3]) -> [f64; 3] {
    let [p0, p1, p2] = TRI;
    let (e1, e2) = (
        [p1[0] - p0[0], p1[1] - p0[1]],
        [p2[0] - p0[0], p2[1] - p0[1]],
    );
    let (d1, d2) = (vals[1] - vals[0], vals[2] - vals[0]);
    let det = e1[0] * e2[1] - e2[0] * e1[1];
    let a = (d1 * e2[1] - d2 * e1[1]) / det;
    let b = (e1[0] * d2 - e2[0] * d1) / det;
    [a, b, vals[0] - a * p0[0] - b * p0[1]]
}

fn at(p: [f64; 3], x: f64, y: f64) -> f64 {
    p[0] * x + p[1] * y + p[2]
}

fn derivatives(f: &mut Frame) -> R<Vec<Out>> {
    let reds = [0.0, 1.0, 0.5];
    let verts = triangle(f, reds.map(|r| [r, 0.0]));
    let pipe = Pipe {
        fs: "derivatives.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&pipe, &verts)])?;
    let [a, b, _] = plane(reds.map(f64::from));
    let width = (a.abs() + b.abs()) * 8.0;
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            match cover(&TRI, [f64::from(x) + 0.5, f64::from(y) + 0.5]) {
                Cover::In(_) => {
                    let c = [
                        (f64::from(y) + 0.5) / 64.0,
                        (f64::from(x) + 0.5) / 64.0,
                        width,
                    ];
                    want.set(x, y, [c[0], c[1], c[2], 1.0].map(|v| (v * 255.0).round()));
                }
                Cover::Out => {}
                Cover::Edge => want.ignore(x, y),
            }
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// The resolved expectation: per pixel the average over its four samples of `col(x, y)`
/// where the primitive covers the sample and `keep(x, y, sample)`, else the background.
fn want_resolved(
    f: &Frame,
    col: impl Fn(u32, u32, u32) -> [f64; 4],
    keep: impl Fn(u32, u32, usize) -> bool,
) -> super::super::image::Image {
    let bg = BG.map(f64::from);
    let mut want = want_rgba8(f, BG);
    for y in 0..f.h {
        for x in 0..f.w {
            let mut covered = 0u32;
            let mut edge = false;
            for (i, s) in SAMPLES_4X.iter().enumerate() {
                match cover(&TRI, [f64::from(x) + s[0], f64::from(y) + s[1]]) {
                    Cover::In(_) => covered |= 1 << i,
                    Cover::Out => {}
                    Cover::Edge => edge = true,
                }
            }
            if edge {
                want.ignore(x, y);
                continue;
            }
            let mut sum = [0.0; 4];
            for i in 0..4 {
                let c = if covered & (1 << i) != 0 && keep(x, y, i) {
                    col(x, y, covered)
                } else {
                    bg
                };
                for k in 0..4 {
                    sum[k] += c[k] / 4.0;
                }
            }
            want.set(x, y, sum.map(|v| (v * 255.0).round()));
        }
    }
    want
}

fn interpolate_at(f: &mut Frame) -> R<Vec<Out>> {
    let vals: [[f32; 2]; 3] = [[0.0, 0.0], [40.0, 6.0], [12.0, 50.0]];
    let verts = triangle(f, vals);
    let pipe = Pipe {
        fs: "interpolate_at.frag",
        samples: X4,
        ..Pipe::default()
    };
    let got = render_and_resolve(f, &pipe, &verts)?;
    let red = plane(vals.map(|v| f64::from(v[0])));
    let green = plane(vals.map(|v| f64::from(v[1])));
    let [sx, sy] = SAMPLES_4X[3];
    let want = want_resolved(
        f,
        |x, y, _| {
            let (x, y) = (f64::from(x), f64::from(y));
            let r = at(red, x + 0.5 + 0.3125, y + 0.5 - 0.25);
            let g = at(green, x + sx, y + sy);
            [0.5 + 0.5 * r.sin(), 0.5 + 0.5 * g.cos(), 0.0, 1.0]
        },
        |_, _, _| true,
    );
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

fn sample_mask_output(f: &mut Frame) -> R<Vec<Out>> {
    let verts = triangle(f, [[0.0, 0.75]; 3]);
    let pipe = Pipe {
        fs: "sample_mask_out.frag",
        samples: X4,
        ..Pipe::default()
    };
    let got = render_and_resolve(f, &pipe, &verts)?;
    let want = want_resolved(
        f,
        |_, _, covered| [f64::from(covered.count_ones()) / 4.0, 0.75, 0.0, 1.0],
        |x, y, i| i == ((x + 2 * y) & 3) as usize || i == 3,
    );
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
