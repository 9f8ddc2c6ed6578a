//! A CPU reference for triangles, written from the Vulkan rules and independent of both
//! drivers: coverage of a sample point by edge functions, facing by the sign of the area term,
//! and attribute interpolation (perspective-correct, linear, flat). A sample that lies on an
//! edge (within 1e-4 pixels) is reported as such, and scenes mark its pixel as don't-care
//! instead of guessing the tie-break.

use super::image::Image;

/// The standard sample positions of 4x multisampling, from the Vulkan spec's table.
pub const SAMPLES_4X: [[f64; 2]; 4] = [
    [0.375, 0.125],
    [0.875, 0.375],
    [0.125, 0.625],
    [0.625, 0.875],
];

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cover {
    /// Inside, with screen-space barycentric weights.
    In([f64; 3]),
    Out,
    /// On an edge: either answer is plausible.
    Edge,
}

fn orient(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// Whether point `p` (framebuffer pixels) is inside triangle `v`.
pub fn cover(v: &[[f64; 2]; 3], p: [f64; 2]) -> Cover {
    let area = orient(v[0], v[1], v[2]);
    if area.abs() < 1e-12 {
        return Cover::Out;
    }
    let mut b = [0.0; 3];
    let mut on_edge = false;
    for (i, bi) in b.iter_mut().enumerate() {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let e = orient(v[j], v[k], p) / area;
        let len = ((v[k][0] - v[j][0]).powi(2) + (v[k][1] - v[j][1]).powi(2)).sqrt();
        // Distance from p to edge j-k, signed towards the inside.
        let dist = e * area.abs() / len;
        if dist < -1e-4 {
            return Cover::Out;
        }
        if dist <= 1e-4 {
            on_edge = true;
        }
        *bi = e;
    }
    if on_edge {
        Cover::Edge
    } else {
        Cover::In(b)
    }
}

/// Vulkan's signed area term `a` in framebuffer coordinates: positive is counter-clockwise.
pub fn area(v: &[[f64; 2]; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        let j = (i + 1) % 3;
        s += v[i][0] * v[j][1] - v[j][0] * v[i][1];
    }
    -0.5 * s
}

/// How a colour varies across a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Interp {
    Smooth,
    NoPerspective,
    /// The provoking (first) vertex's value.
    Flat,
}

/// One vertex of the reference: framebuffer position, clip w, and a colour in 0..=1.
#[derive(Clone, Copy, Debug)]
pub struct RV {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub col: [f64; 4],
}

/// Interpolated colour at barycentric `b`.
pub fn interpolate(v: &[RV; 3], b: [f64; 3], how: Interp) -> [f64; 4] {
    let mut out = [0.0; 4];
    match how {
        Interp::Flat => out = v[0].col,
        Interp::NoPerspective => {
            for (c, o) in out.iter_mut().enumerate() {
                *o = (0..3).map(|i| b[i] * v[i].col[c]).sum();
            }
        }
        Interp::Smooth => {
            let denom: f64 = (0..3).map(|i| b[i] / v[i].w).sum();
            for (c, o) in out.iter_mut().enumerate() {
                *o = (0..3).map(|i| b[i] * v[i].col[c] / v[i].w).sum::<f64>() / denom;
            }
        }
    }
    out
}

/// UNORM8 codes of a 0..=1 colour.
pub fn unorm8(c: [f64; 4]) -> [f64; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round())
}

/// Draws triangle `v` into an UNORM8 expectation, single-sampled at pixel centres; pixels whose
/// centre is on an edge become don't-care.
pub fn draw_tri(img: &mut Image, v: &[RV; 3], how: Interp) {
    let pos = [[v[0].x, v[0].y], [v[1].x, v[1].y], [v[2].x, v[2].y]];
    for y in 0..img.h {
        for x in 0..img.w {
            match cover(&pos, [x as f64 + 0.5, y as f64 + 0.5]) {
                Cover::In(b) => {
                    let i = (y * img.w + x) as usize;
                    img.px[i] = unorm8(interpolate(v, b, how));
                    img.dont_care[i] = false;
                }
                Cover::Edge => img.ignore(x, y),
                Cover::Out => {}
            }
        }
    }
}

/// Flat-coloured reference vertices from pixel positions.
pub fn flat_tri(p: [[f64; 2]; 3], col: [f64; 4]) -> [RV; 3] {
    p.map(|[x, y]| RV { x, y, w: 1.0, col })
}
