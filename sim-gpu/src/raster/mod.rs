//! Geometry and rasterization core of the simulated GPU: clipping, viewport transform,
//! triangle setup, per-sample coverage, tile binning, lines and points.
//!
//! This is a library of pure functions over primitives; the control streams that feed it and
//! the shaders that consume its output live elsewhere. All coverage decisions are made on
//! integers (window coordinates snapped to [`SUBPIXEL_BITS`] fractional bits) so that shared
//! edges are decided identically from both sides.

pub mod bin;
pub mod clip;
pub mod coverage;
pub mod line;
pub mod point;
pub mod setup;
pub mod viewport;

#[cfg(test)]
mod tests;

/// Fractional bits of window coordinates. AGX's Vulkan drivers report
/// `subPixelPrecisionBits = 8` (Mesa hk, and agx4's physical device), so vertices snap to a
/// 1/256-pixel grid.
pub const SUBPIXEL_BITS: u32 = 8;
/// One pixel in fixed-point units.
pub const SUBPIXEL_ONE: i64 = 1 << SUBPIXEL_BITS;

/// Largest window coordinate magnitude (pixels) accepted after the viewport transform. Vulkan's
/// `viewportBoundsRange` is [-32768, 32767]; twice that keeps every edge product far below
/// 2^63 while leaving margin for rounding.
pub const MAX_WINDOW_COORD: f64 = 65536.0;

/// Why a primitive could not be processed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RasterError {
    #[error("window coordinate {0} is not finite or outside the supported range")]
    CoordinateOutOfRange(f64),
    #[error("unsupported sample count {0}")]
    UnsupportedSampleCount(u32),
    #[error("invalid viewport: {0}")]
    InvalidViewport(&'static str),
    #[error("invalid framebuffer size {0}x{1}")]
    InvalidFramebuffer(u32, u32),
}

/// An axis-aligned pixel rectangle (scissor, render area, tile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub const fn new(x: u32, y: u32, width: u32, height: u32) -> Self {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// Exclusive end in x, saturating so huge scissors cannot wrap.
    pub fn x_end(&self) -> u32 {
        self.x.saturating_add(self.width)
    }

    pub fn y_end(&self) -> u32 {
        self.y.saturating_add(self.height)
    }

    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x && x < self.x_end() && y >= self.y && y < self.y_end()
    }

    pub fn intersect(&self, other: &Rect) -> Rect {
        let x0 = self.x.max(other.x);
        let y0 = self.y.max(other.y);
        let x1 = self.x_end().min(other.x_end());
        let y1 = self.y_end().min(other.y_end());
        Rect::new(x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0))
    }

    pub fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }
}
