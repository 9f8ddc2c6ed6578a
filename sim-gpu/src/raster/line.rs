//! Line segments. agx4 reports `strictLines = VK_FALSE` (as Mesa hk does), so the default
//! line rasterization mode draws non-strict lines: a parallelogram whose two long edges are
//! the segment moved by half the width along the minor axis, and whose two short edges are
//! parallel to the minor axis through the endpoints. It is rasterized as two triangles with
//! the polygon fill rule, so strips that continue along the same major axis share their end
//! edge exactly and cover each sample once.

use super::coverage::{Barycentrics, SampleCount};
use super::setup::{SetupState, Triangle};
use super::viewport::WindowVertex;
use super::{RasterError, Rect, SUBPIXEL_ONE};

/// A set-up non-strict line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub ends: [WindowVertex; 2],
    pub halves: [Triangle; 2],
    /// Every sample of a pixel is covered when the pixel centre is (Bresenham lines under
    /// multisampling); otherwise each sample is tested on its own.
    pub whole_pixels: bool,
}

/// Clamps a requested width to the device's `lineWidthRange` (agx4 reports [1, 1]).
pub fn clamp_width(width: f32, range: [f32; 2]) -> f32 {
    if width.is_nan() {
        return range[0];
    }
    width.clamp(range[0], range[1])
}

impl Line {
    /// `None` for a zero-length segment, which produces no fragments.
    pub fn setup(ends: [WindowVertex; 2], width: f32) -> Result<Option<Line>, RasterError> {
        if !(width.is_finite() && width > 0.0) {
            return Err(RasterError::CoordinateOutOfRange(width as f64));
        }
        let (a, b) = (ends[0], ends[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        if dx == 0 && dy == 0 {
            return Ok(None);
        }
        let half = ((width as f64 * SUBPIXEL_ONE as f64) / 2.0).round() as i64;
        let (ox, oy) = if dx.abs() >= dy.abs() {
            (0, half)
        } else {
            (half, 0)
        };
        let shift = |v: &WindowVertex, s: i64| WindowVertex {
            x: v.x + s * ox,
            y: v.y + s * oy,
            ..*v
        };
        let c = [shift(&a, -1), shift(&b, -1), shift(&b, 1), shift(&a, 1)];
        let state = SetupState::default();
        let (Some(t0), Some(t1)) = (
            Triangle::setup([c[0], c[1], c[2]], &state)?,
            Triangle::setup([c[0], c[2], c[3]], &state)?,
        ) else {
            return Ok(None);
        };
        Ok(Some(Line {
            ends,
            halves: [t0, t1],
            whole_pixels: false,
        }))
    }

    /// The same line, covering whole pixels or single samples.
    pub fn with_whole_pixels(self, whole_pixels: bool) -> Line {
        Line {
            whole_pixels,
            ..self
        }
    }

    pub fn sample_mask(&self, x: u32, y: u32, samples: SampleCount) -> u32 {
        let test = |s| self.halves[0].sample_mask(x, y, s) | self.halves[1].sample_mask(x, y, s);
        if !self.whole_pixels {
            return test(samples);
        }
        if test(SampleCount::One) != 0 {
            (1 << samples.count()) - 1
        } else {
            0
        }
    }

    /// Calls `f(x, y, mask)` for every pixel with covered samples (the two halves never both
    /// cover a sample, so masks are merged per pixel).
    pub fn rasterize(
        &self,
        samples: SampleCount,
        scissor: &Rect,
        mut f: impl FnMut(u32, u32, u32),
    ) {
        let b0 = self.halves[0].pixel_bounds(scissor);
        let b1 = self.halves[1].pixel_bounds(scissor);
        let x0 = b0.x.min(b1.x);
        let y0 = b0.y.min(b1.y);
        let r = Rect::new(
            x0,
            y0,
            b0.x_end().max(b1.x_end()) - x0,
            b0.y_end().max(b1.y_end()) - y0,
        );
        for y in r.y..r.y_end() {
            for x in r.x..r.x_end() {
                let m = self.sample_mask(x, y, samples);
                if m != 0 {
                    f(x, y, m);
                }
            }
        }
    }

    /// Position along the segment (0 at the first end, 1 at the second) of subpixel point p,
    /// by projection onto the segment.
    pub fn t_at(&self, px: i64, py: i64) -> f32 {
        let (a, b) = (self.ends[0], self.ends[1]);
        let (dx, dy) = ((b.x - a.x) as f64, (b.y - a.y) as f64);
        let t = ((px - a.x) as f64 * dx + (py - a.y) as f64 * dy) / (dx * dx + dy * dy);
        t.clamp(0.0, 1.0) as f32
    }

    /// Weights over the two ends (third weight zero).
    pub fn barycentrics(&self, px: i64, py: i64) -> Barycentrics {
        let t = self.t_at(px, py);
        let (w0, w1) = ((1.0 - t) * self.ends[0].inv_w, t * self.ends[1].inv_w);
        let sum = w0 + w1;
        let perspective = if sum != 0.0 && sum.is_finite() {
            [w0 / sum, w1 / sum, 0.0]
        } else {
            [1.0 - t, t, 0.0]
        };
        Barycentrics {
            linear: [1.0 - t, t, 0.0],
            perspective,
        }
    }

    pub fn depth(&self, px: i64, py: i64) -> f32 {
        let t = self.t_at(px, py);
        self.ends[0].z + t * (self.ends[1].z - self.ends[0].z)
    }
}
