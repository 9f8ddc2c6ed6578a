//! Binning primitives into 32x32-pixel tiles: the data model of what the tiler writes into
//! the tiled vertex buffer (per tile, the primitives that touch it, in submission order).

use super::coverage::SampleCount;
use super::setup::Triangle;
use super::{RasterError, Rect, SUBPIXEL_ONE};

/// Tile edge in pixels.
pub const TILE_SIZE: u32 = 32;

/// How a triangle is assigned to tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinMode {
    /// Every tile its pixel bounding box touches.
    BoundingBox,
    /// Only tiles in which it covers at least one sample.
    Exact,
}

/// Byte cost of tiler output. These are model parameters, not hardware facts: the real TVB
/// layout is undocumented, and the heap accounting that uses this comes later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TvbCostModel {
    /// Once per primitive, for its vertex data.
    pub bytes_per_primitive: u64,
    /// Once per tile the primitive is listed in.
    pub bytes_per_tile_entry: u64,
}

impl Default for TvbCostModel {
    fn default() -> Self {
        TvbCostModel {
            bytes_per_primitive: 64,
            bytes_per_tile_entry: 4,
        }
    }
}

impl TvbCostModel {
    pub fn primitive_bytes(&self, tiles: usize) -> u64 {
        self.bytes_per_primitive + self.bytes_per_tile_entry * tiles as u64
    }
}

/// The framebuffer's tile grid with a list of primitive indices per tile.
#[derive(Debug, Clone)]
pub struct TileBins {
    pub width: u32,
    pub height: u32,
    pub tiles_x: u32,
    pub tiles_y: u32,
    lists: Vec<Vec<u32>>,
}

impl TileBins {
    pub fn new(width: u32, height: u32) -> Result<Self, RasterError> {
        if width == 0 || height == 0 || width > 16384 || height > 16384 {
            return Err(RasterError::InvalidFramebuffer(width, height));
        }
        let tiles_x = width.div_ceil(TILE_SIZE);
        let tiles_y = height.div_ceil(TILE_SIZE);
        Ok(TileBins {
            width,
            height,
            tiles_x,
            tiles_y,
            lists: vec![Vec::new(); (tiles_x * tiles_y) as usize],
        })
    }

    pub fn tile_rect(&self, tx: u32, ty: u32) -> Rect {
        let x = tx * TILE_SIZE;
        let y = ty * TILE_SIZE;
        Rect::new(
            x,
            y,
            TILE_SIZE.min(self.width - x),
            TILE_SIZE.min(self.height - y),
        )
    }

    /// Primitive indices listed in tile (tx, ty), in submission order.
    pub fn list(&self, tx: u32, ty: u32) -> &[u32] {
        if tx >= self.tiles_x || ty >= self.tiles_y {
            return &[];
        }
        &self.lists[(ty * self.tiles_x + tx) as usize]
    }

    /// Bins one triangle under `scissor` and returns the number of tiles it was listed in.
    /// Indices must be pushed in submission order.
    pub fn push_triangle(
        &mut self,
        index: u32,
        tri: &Triangle,
        samples: SampleCount,
        scissor: &Rect,
        mode: BinMode,
    ) -> usize {
        let fb = Rect::new(0, 0, self.width, self.height);
        let area = tri.pixel_bounds(&scissor.intersect(&fb));
        if area.is_empty() {
            return 0;
        }
        let mut count = 0;
        for ty in area.y / TILE_SIZE..=(area.y_end() - 1) / TILE_SIZE {
            for tx in area.x / TILE_SIZE..=(area.x_end() - 1) / TILE_SIZE {
                let r = self.tile_rect(tx, ty).intersect(&area);
                let hit = match mode {
                    BinMode::BoundingBox => !r.is_empty(),
                    BinMode::Exact => touches(tri, samples, &r),
                };
                if hit {
                    self.lists[(ty * self.tiles_x + tx) as usize].push(index);
                    count += 1;
                }
            }
        }
        count
    }
}

/// Whether the triangle covers a sample of rectangle r. The rectangle spanned by the sample
/// positions is tested against each edge first: one edge outside at all four corners rejects
/// it, all edges inside at all corners accepts it; only the undecided rest (tiles along the
/// triangle's corners and edges) is searched sample by sample.
pub fn touches(tri: &Triangle, samples: SampleCount, r: &Rect) -> bool {
    if r.is_empty() {
        return false;
    }
    let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
    for s in 0..samples.count() {
        let (ox, oy) = samples.offset(s);
        lo = (lo.0.min(ox), lo.1.min(oy));
        hi = (hi.0.max(ox), hi.1.max(oy));
    }
    let x0 = r.x as i64 * SUBPIXEL_ONE + lo.0;
    let y0 = r.y as i64 * SUBPIXEL_ONE + lo.1;
    let x1 = (r.x_end() as i64 - 1) * SUBPIXEL_ONE + hi.0;
    let y1 = (r.y_end() as i64 - 1) * SUBPIXEL_ONE + hi.1;
    let corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)];
    let mut all_in = true;
    for e in &tri.edges {
        let inside = corners
            .iter()
            .filter(|(x, y)| e.eval(*x, *y) >= e.bias)
            .count();
        if inside == 0 {
            return false;
        }
        all_in &= inside == 4;
    }
    if all_in {
        return true;
    }
    tri.covers_any(samples, r)
}
