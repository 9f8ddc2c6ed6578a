//! Per-sample coverage, scissor, depth and barycentric interpolation of set-up triangles.

use super::setup::Triangle;
use super::{RasterError, Rect, SUBPIXEL_BITS, SUBPIXEL_ONE};

/// Sample locations are programmed in 1/16 pixel (Mesa hk packs PPP_MULTISAMPLECTL as one
/// nibble per coordinate; `sampleLocationSubPixelBits = 4`).
pub const SAMPLE_LOCATION_BITS: u32 = 4;

/// Standard locations in 1/16 pixel. They equal Vulkan's standard sample locations and what
/// Mesa hk programs by default (0x88, 0x44cc, 0xeaa26e26 decoded nibble by nibble).
const LOCATIONS_1: [(i64, i64); 1] = [(8, 8)];
const LOCATIONS_2: [(i64, i64); 2] = [(12, 12), (4, 4)];
const LOCATIONS_4: [(i64, i64); 4] = [(6, 2), (14, 6), (2, 10), (10, 14)];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SampleCount {
    #[default]
    One,
    Two,
    Four,
}

impl SampleCount {
    pub fn from_count(n: u32) -> Result<Self, RasterError> {
        match n {
            1 => Ok(SampleCount::One),
            2 => Ok(SampleCount::Two),
            4 => Ok(SampleCount::Four),
            _ => Err(RasterError::UnsupportedSampleCount(n)),
        }
    }

    pub fn count(self) -> usize {
        self.locations().len()
    }

    /// Locations in 1/16 pixel from the pixel's top-left corner.
    pub fn locations(self) -> &'static [(i64, i64)] {
        match self {
            SampleCount::One => &LOCATIONS_1,
            SampleCount::Two => &LOCATIONS_2,
            SampleCount::Four => &LOCATIONS_4,
        }
    }

    /// Offset of sample `s` inside a pixel, in subpixels.
    pub fn offset(self, s: usize) -> (i64, i64) {
        let shift = SUBPIXEL_BITS - SAMPLE_LOCATION_BITS;
        let (x, y) = self.locations()[s];
        (x << shift, y << shift)
    }
}

/// The subpixel position of sample `s` of pixel (x, y).
pub fn sample_point(x: u32, y: u32, samples: SampleCount, s: usize) -> (i64, i64) {
    let (ox, oy) = samples.offset(s);
    (x as i64 * SUBPIXEL_ONE + ox, y as i64 * SUBPIXEL_ONE + oy)
}

/// The subpixel position of the centre of pixel (x, y).
pub fn pixel_centre(x: u32, y: u32) -> (i64, i64) {
    let half = SUBPIXEL_ONE / 2;
    (
        x as i64 * SUBPIXEL_ONE + half,
        y as i64 * SUBPIXEL_ONE + half,
    )
}

/// Interpolation weights over the triangle's vertices in submission order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Barycentrics {
    /// Linear in window space (`NoPerspective`).
    pub linear: [f32; 3],
    /// Perspective-correct (weights divided by w, renormalised).
    pub perspective: [f32; 3],
}

/// `Edge::eval` of the edge `[ax, ay, dx, dy]` at (px, py), in f64 (exact for what setup
/// accepts; see [`Triangle::pixel_depths`]).
#[inline(always)]
pub(super) fn edge_f64(&[ax, ay, dx, dy]: &[f64; 4], px: f64, py: f64) -> f64 {
    dx * (py - ay) - dy * (px - ax)
}

fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

impl Triangle {
    /// Whether the subpixel point p is covered, fill rule included.
    #[inline]
    pub fn covers(&self, px: i64, py: i64) -> bool {
        self.edges.iter().all(|e| e.eval(px, py) >= e.bias)
    }

    /// Covered samples of pixel (x, y) as a bit mask (bit s = sample s); the scissor is not
    /// applied here.
    pub fn sample_mask(&self, x: u32, y: u32, samples: SampleCount) -> u32 {
        let mut mask = 0;
        for s in 0..samples.count() {
            let (px, py) = sample_point(x, y, samples, s);
            if self.covers(px, py) {
                mask |= 1 << s;
            }
        }
        mask
    }

    /// Pixels whose samples may be covered, limited to `clip`.
    pub fn pixel_bounds(&self, clip: &Rect) -> Rect {
        // A pixel's samples lie in [x, x + 1) pixels, so pixel x can only be touched when
        // x * ONE <= max and x * ONE + ONE - 1 >= min.
        let x0 = floor_div(self.min.0 - (SUBPIXEL_ONE - 1), SUBPIXEL_ONE).max(clip.x as i64);
        let y0 = floor_div(self.min.1 - (SUBPIXEL_ONE - 1), SUBPIXEL_ONE).max(clip.y as i64);
        let x1 = (floor_div(self.max.0, SUBPIXEL_ONE) + 1).min(clip.x_end() as i64);
        let y1 = (floor_div(self.max.1, SUBPIXEL_ONE) + 1).min(clip.y_end() as i64);
        if x1 <= x0 || y1 <= y0 {
            return Rect::new(clip.x, clip.y, 0, 0);
        }
        Rect::new(x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32)
    }

    /// Calls `f(x, y, mask)` for every pixel of `scissor` with at least one covered sample,
    /// in row-major order.
    pub fn rasterize(
        &self,
        samples: SampleCount,
        scissor: &Rect,
        mut f: impl FnMut(u32, u32, u32),
    ) {
        self.scan(samples, scissor, |x, y, m| {
            f(x, y, m);
            true
        });
    }

    /// Whether some sample of `scissor` is covered; stops at the first covered pixel.
    pub fn covers_any(&self, samples: SampleCount, scissor: &Rect) -> bool {
        !self.scan(samples, scissor, |_, _, _| false)
    }

    /// [`Triangle::rasterize`] while `f` returns true; false when `f` stopped it.
    fn scan(
        &self,
        samples: SampleCount,
        scissor: &Rect,
        mut f: impl FnMut(u32, u32, u32) -> bool,
    ) -> bool {
        let r = self.pixel_bounds(scissor);
        if r.is_empty() {
            return true;
        }
        let n = samples.count();
        // Edge values relative to the pixel origin for each sample, so the inner loop only adds.
        let mut sample_step = [[0i64; 3]; 4];
        for (s, steps) in sample_step.iter_mut().enumerate().take(n) {
            let (ox, oy) = samples.offset(s);
            for (k, e) in self.edges.iter().enumerate() {
                steps[k] = e.step(ox, oy) - e.bias;
            }
        }
        let step_x: [i64; 3] = core::array::from_fn(|k| self.edges[k].step(SUBPIXEL_ONE, 0));
        for y in r.y..r.y_end() {
            let (ox, oy) = (r.x as i64 * SUBPIXEL_ONE, y as i64 * SUBPIXEL_ONE);
            let mut base: [i64; 3] = core::array::from_fn(|k| self.edges[k].eval(ox, oy));
            for x in r.x..r.x_end() {
                let mut mask = 0;
                for (s, steps) in sample_step.iter().enumerate().take(n) {
                    if base[0] + steps[0] >= 0 && base[1] + steps[1] >= 0 && base[2] + steps[2] >= 0
                    {
                        mask |= 1 << s;
                    }
                }
                if mask != 0 && !f(x, y, mask) {
                    return false;
                }
                for k in 0..3 {
                    base[k] += step_x[k];
                }
            }
        }
        true
    }

    /// Window-space weights of the oriented vertices at subpixel point p (may be outside).
    fn oriented_linear(&self, px: i64, py: i64) -> [f64; 3] {
        let a = self.area2 as f64;
        core::array::from_fn(|k| self.edges[k].eval(px, py) as f64 / a)
    }

    /// Barycentrics at subpixel point p (a sample position or a pixel centre).
    pub fn barycentrics(&self, px: i64, py: i64) -> Barycentrics {
        let o = self.oriented_linear(px, py);
        let mut linear = [0.0f64; 3];
        for k in 0..3 {
            linear[self.order[k]] = o[k];
        }
        let mut persp = [0.0f64; 3];
        let mut sum = 0.0;
        for i in 0..3 {
            persp[i] = linear[i] * self.verts[i].inv_w as f64;
            sum += persp[i];
        }
        let perspective = if sum != 0.0 && sum.is_finite() {
            persp.map(|p| (p / sum) as f32)
        } else {
            linear.map(|l| l as f32)
        };
        Barycentrics {
            linear: linear.map(|l| l as f32),
            perspective,
        }
    }

    /// [`Triangle::depth`] without clamping at the point `offset` (in subpixels) into each
    /// pixel of `pixels` (x, y, ...), into `out`, bit for bit.
    ///
    /// The edge values are computed in f64 rather than i64 so that the loop has no integer
    /// multiplies and its divisions can overlap: setup bounds vertices to
    /// `MAX_WINDOW_COORD` (2^24 subpixels), so every difference is below 2^25, every
    /// product below 2^50 and every edge value below 2^51, all exact in f64's 53 bits: each
    /// edge value is the same integer `Edge::eval` gives.
    pub fn pixel_depths(&self, pixels: &[(u32, u32, u32)], offset: (i64, i64), out: &mut [f32]) {
        let one = SUBPIXEL_ONE as f64;
        let (ox, oy) = (offset.0 as f64, offset.1 as f64);
        let a = self.area2 as f64;
        let e: [[f64; 4]; 3] = self
            .edges
            .map(|e| [e.ax as f64, e.ay as f64, e.dx as f64, e.dy as f64]);
        let z: [f64; 3] = self.order.map(|i| self.verts[i].z as f64);
        for (d, &(x, y, _)) in out.iter_mut().zip(pixels) {
            let px = f64::from(x) * one + ox;
            let py = f64::from(y) * one + oy;
            let o: [f64; 3] = core::array::from_fn(|k| edge_f64(&e[k], px, py) / a);
            let sum: f64 = o.iter().zip(z).map(|(b, z)| b * z).sum();
            *d = sum as f32;
        }
    }

    /// Depth at subpixel point p: the viewport z interpolated linearly in window space (the
    /// plane of z_c/w_c through the three vertices). With depth clamp the result is clamped
    /// to `clamp` (the viewport's depth bounds).
    pub fn depth(&self, px: i64, py: i64, clamp: Option<(f32, f32)>) -> f32 {
        let o = self.oriented_linear(px, py);
        let z: f64 = o
            .iter()
            .zip(self.order)
            .map(|(b, i)| b * self.verts[i].z as f64)
            .sum();
        let z = z as f32;
        match clamp {
            Some((lo, hi)) => z.clamp(lo, hi),
            None => z,
        }
    }
}
