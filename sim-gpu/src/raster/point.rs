//! Points: squares of the point size centred on the vertex. Samples on the left and top
//! sides are inside and on the right and bottom sides outside, the same ownership the
//! triangle fill rule gives, so abutting points cover each sample once.

use super::coverage::{sample_point, SampleCount};
use super::viewport::{snap, WindowVertex};
use super::{RasterError, Rect, SUBPIXEL_ONE};

/// Clamps a shader-written point size to the device's `pointSizeRange` (agx4 reports [1, 1]).
pub fn clamp_size(size: f32, range: [f32; 2]) -> f32 {
    if size.is_nan() {
        return range[0];
    }
    size.clamp(range[0], range[1])
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub centre: WindowVertex,
    /// Square bounds in subpixels: [x0, x1) x [y0, y1).
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl Point {
    pub fn setup(centre: WindowVertex, size: f32) -> Result<Point, RasterError> {
        if !(size.is_finite() && size > 0.0) {
            return Err(RasterError::CoordinateOutOfRange(size as f64));
        }
        let half = snap(size as f64 / 2.0)?;
        Ok(Point {
            centre,
            x0: centre.x - half,
            y0: centre.y - half,
            x1: centre.x + half,
            y1: centre.y + half,
        })
    }

    pub fn covers(&self, px: i64, py: i64) -> bool {
        px >= self.x0 && px < self.x1 && py >= self.y0 && py < self.y1
    }

    pub fn sample_mask(&self, x: u32, y: u32, samples: SampleCount) -> u32 {
        let mut m = 0;
        for s in 0..samples.count() {
            let (px, py) = sample_point(x, y, samples, s);
            if self.covers(px, py) {
                m |= 1 << s;
            }
        }
        m
    }

    pub fn rasterize(
        &self,
        samples: SampleCount,
        scissor: &Rect,
        mut f: impl FnMut(u32, u32, u32),
    ) {
        let one = SUBPIXEL_ONE;
        let x0 = (self.x0 - (one - 1)).div_euclid(one).max(scissor.x as i64);
        let y0 = (self.y0 - (one - 1)).div_euclid(one).max(scissor.y as i64);
        let x1 = (self.x1.div_euclid(one) + 1).min(scissor.x_end() as i64);
        let y1 = (self.y1.div_euclid(one) + 1).min(scissor.y_end() as i64);
        for y in y0..y1 {
            for x in x0..x1 {
                let m = self.sample_mask(x as u32, y as u32, samples);
                if m != 0 {
                    f(x as u32, y as u32, m);
                }
            }
        }
    }

    /// `PointCoord` at subpixel point p: (0, 0) at the top-left corner, (1, 1) at the
    /// bottom-right.
    pub fn coord(&self, px: i64, py: i64) -> [f32; 2] {
        let size = (self.x1 - self.x0) as f32;
        [(px - self.x0) as f32 / size, (py - self.y0) as f32 / size]
    }
}
