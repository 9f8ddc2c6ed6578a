//! Perspective divide and the Vulkan viewport transform, ending in window coordinates
//! snapped to the subpixel grid.

use super::{RasterError, MAX_WINDOW_COORD, SUBPIXEL_ONE};

/// `VkViewport`. A negative height flips y (VK_KHR_maintenance1 semantics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl Viewport {
    pub fn new(x: f32, y: f32, width: f32, height: f32) -> Self {
        Viewport {
            x,
            y,
            width,
            height,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }

    fn check(&self) -> Result<(), RasterError> {
        let all = [
            self.x,
            self.y,
            self.width,
            self.height,
            self.min_depth,
            self.max_depth,
        ];
        if all.iter().any(|v| !v.is_finite()) {
            return Err(RasterError::InvalidViewport("non-finite field"));
        }
        if self.width <= 0.0 {
            return Err(RasterError::InvalidViewport("width must be positive"));
        }
        if self.height == 0.0 {
            return Err(RasterError::InvalidViewport("height must be non-zero"));
        }
        Ok(())
    }

    /// The depth range a depth-clamped fragment is clamped to (min/max may be reversed).
    pub fn depth_bounds(&self) -> (f32, f32) {
        (
            self.min_depth.min(self.max_depth),
            self.min_depth.max(self.max_depth),
        )
    }
}

/// A vertex in window space, as triangle setup consumes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowVertex {
    /// x and y in 1/[`SUBPIXEL_ONE`] pixel units.
    pub x: i64,
    pub y: i64,
    /// Viewport-transformed depth z_f.
    pub z: f32,
    /// 1 / w_c, for perspective-correct interpolation.
    pub inv_w: f32,
}

impl WindowVertex {
    /// Builds a vertex directly from window coordinates in pixels (tests, lines, points).
    pub fn from_pixels(x: f64, y: f64, z: f32, inv_w: f32) -> Result<Self, RasterError> {
        Ok(WindowVertex {
            x: snap(x)?,
            y: snap(y)?,
            z,
            inv_w,
        })
    }

    pub fn x_pixels(&self) -> f64 {
        self.x as f64 / SUBPIXEL_ONE as f64
    }

    pub fn y_pixels(&self) -> f64 {
        self.y as f64 / SUBPIXEL_ONE as f64
    }
}

/// Rounds a window coordinate to the nearest subpixel (ties away from zero).
pub fn snap(v: f64) -> Result<i64, RasterError> {
    if !v.is_finite() || v.abs() > MAX_WINDOW_COORD {
        return Err(RasterError::CoordinateOutOfRange(v));
    }
    Ok(round_half_away(v * SUBPIXEL_ONE as f64))
}

/// `s.round() as i64` for |s| < 2^52, without the libm call the baseline x86-64 target makes
/// for `round`: the truncation and the fraction it left, which subtracting an integer of the
/// same sign from `s` gives exactly.
fn round_half_away(s: f64) -> i64 {
    let t = s as i64;
    let frac = s - t as f64;
    t + i64::from(frac >= 0.5) - i64::from(frac <= -0.5)
}

/// Perspective divide then viewport transform of a clip-space position.
pub fn to_window(pos: [f32; 4], vp: &Viewport) -> Result<WindowVertex, RasterError> {
    vp.check()?;
    let w = pos[3];
    if !(w.is_finite() && w != 0.0) {
        return Err(RasterError::CoordinateOutOfRange(w as f64));
    }
    let inv_w = 1.0 / w;
    let (xd, yd, zd) = (pos[0] * inv_w, pos[1] * inv_w, pos[2] * inv_w);
    let ox = vp.x + vp.width * 0.5;
    let oy = vp.y + vp.height * 0.5;
    // Computed in f64 so the only rounding that matters is the subpixel snap.
    let xf = 0.5 * vp.width as f64 * xd as f64 + ox as f64;
    let yf = 0.5 * vp.height as f64 * yd as f64 + oy as f64;
    let zf = (vp.max_depth - vp.min_depth) * zd + vp.min_depth;
    Ok(WindowVertex {
        x: snap(xf)?,
        y: snap(yf)?,
        z: zf,
        inv_w,
    })
}

#[cfg(test)]
mod rounding_tests {
    /// `round_half_away` is `round` on snapped window coordinates: ties both ways, values
    /// just beside them, zeros, and the whole coordinate range.
    #[test]
    fn snapping_rounds_as_round_does() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.499_999_999_999_999_94,
        ];
        let mut rng = hw::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            let seed = rng.next();
            let k = (seed % (2 * 65536 * 256)) as f64 - 65536.0 * 256.0;
            xs.push(k + 0.5);
            xs.push(f64::from_bits(0x3fe0_0000_0000_0000 ^ (seed & 1)) + k);
            xs.push((seed as i64 as f64) / 1.0e5 % 1.7e7);
        }
        for x in xs {
            assert_eq!(super::round_half_away(x), x.round() as i64, "{x:e}");
        }
    }
}
