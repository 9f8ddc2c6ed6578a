//! Where each pixel of an AGX image lives: the address rules of Mesa's `ail` layout library,
//! restated for agx4.
//!
//! Two layouts are modelled:
//! - linear: rows of `stride` bytes (128-byte aligned by default), one level, no samples;
//! - twiddled (GPU-tiled): each level is cut into tiles whose size depends on the bytes per
//!   element (1 B: 128x128 ... 64 B: 16x16), tiles are stored in row-major order and the
//!   elements inside a tile in Morton order (x bits on even positions, y bits on odd ones).
//!   Levels follow each other, each 128-byte aligned. Levels that cover at least one whole
//!   tile are padded tile grids; from the first level that does not, each level takes a
//!   power-of-two rectangle of elements (halving per level) and uses one square tile as wide
//!   as the power of two above its smaller side.
//!   Every array layer (or 3D slice) holds the whole mip chain; layers are page (16 KiB)
//!   aligned when ail says so.
//!
//! Samples of a pixel are stored together: an element is `bytes_per_block * samples` bytes
//! and sample `s` is at `s * bytes_per_block` inside it. The compressed (metadata) layout is
//! not modelled.
//!
//! Block-compressed formats (BC, ETC2/EAC, ASTC) are placed in units of blocks, as ail does
//! through `util_format_get_nblocks*`: an element is one block, a level is
//! ceil(width / block width) x ceil(height / block height) elements, and the level count
//! still follows the pixel extent. Where ail treats them differently from 1x1 formats:
//! - the level at which the small power-of-two chain starts is found by minifying the pixel
//!   extent rounded up to whole blocks and counting its blocks again;
//! - a padded large level (odd tile count at this level) has one more element in its row
//!   stride;
//! - the small chain rounds level 0's block counts up to powers of two and then halves them
//!   (1x1 formats minify first and round up per level), and its tile is the power of two
//!   above the smaller of those halved counts.
//!
//! ail has no linear or multisampled block-compressed layout (it asserts), so neither is
//! accepted here.

use std::fmt;

/// Cache line: every level and the total size are aligned to it.
pub const CACHELINE: u64 = 0x80;
/// GPU page size used for page-aligned layers.
pub const PAGE_SIZE: u64 = 0x4000;
/// Most mip levels an image can have.
pub const MAX_LEVELS: u32 = 16;

/// Why a layout cannot be made, or a coordinate has no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// A dimension, level count, sample count or element size ail does not accept.
    Invalid(String),
    /// A coordinate outside the image.
    OutOfBounds(String),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::Invalid(s) => write!(f, "invalid image layout: {s}"),
            LayoutError::OutOfBounds(s) => write!(f, "coordinate outside the image: {s}"),
        }
    }
}

impl std::error::Error for LayoutError {}

fn invalid<T>(s: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::Invalid(s.into()))
}

/// How an image is arranged in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tiling {
    /// Row-major rows; `stride` in bytes (a multiple of 16), or `None` for the minimum
    /// 128-byte aligned stride.
    Linear { stride: Option<u32> },
    /// GPU tiles in Morton order.
    Twiddled,
}

/// Uses that change where layers start (ail's page-aligned-layer rule) or how many levels
/// each layer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub depth_stencil: bool,
    /// Storage image: layers always start on a page.
    pub writeable_image: bool,
    /// Render target: layers of a layered image start on a page.
    pub renderable: bool,
    /// A 3D image (ail's `mipmapped_z`): its depth halves with each level too, so its mip
    /// chain runs down the largest of width, height and depth ([`full_chain`]).
    pub mipmapped_z: bool,
}

/// Levels a mip-mapped layer holds: the whole chain down to 1x1(x1) of the largest of
/// `width`, `height` and `depth` (1 for anything but a 3D image). The layout allocates this
/// many and the texture unit rebuilds the layer stride from it, as a texture descriptor
/// carries no level count; both must count depth for 3D images, or every slice past the
/// first is read from the wrong place when depth is the largest dimension.
pub fn full_chain(width: u32, height: u32, depth: u32) -> u32 {
    32 - width.max(height).max(depth).max(1).leading_zeros()
}

/// A tile size in elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    pub width: u32,
    pub height: u32,
}

/// The largest tile for an element of `bytes` bytes (a power of two from 1 to 64): tiles
/// hold 16 KiB, and are twice as wide as high when the element count is not a square.
pub fn max_tile(bytes: u32) -> Option<Tile> {
    let (width, height) = match bytes {
        1 => (128, 128),
        2 => (128, 64),
        4 => (64, 64),
        8 => (64, 32),
        16 => (32, 32),
        32 => (32, 16),
        64 => (16, 16),
        _ => return None,
    };
    Some(Tile { width, height })
}

/// The low 16 bits of `x` spread to the even bit positions. Every simulated texel address
/// goes through this, so it moves bits in groups rather than one at a time.
fn spread(x: u32) -> u64 {
    let mut v = u64::from(x & 0xffff);
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    v = (v | (v << 1)) & 0x5555_5555;
    v
}

/// Dimension `x` at mip level `l`.
fn minify(x: u32, l: u32) -> u32 {
    (x >> l).max(1)
}

/// The address layout of one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    /// Array layers or 3D slices.
    pub layers: u32,
    /// Levels allocated: 1, or the full chain down to 1x1 when more than one was asked for
    /// (ail always allocates the full chain).
    pub levels: u32,
    pub bytes_per_block: u32,
    /// Texels per block across and down: 1x1 for uncompressed formats.
    pub block_width: u32,
    pub block_height: u32,
    pub samples: u32,
    pub tiling: Tiling,
    /// Linear only: the row stride in bytes.
    pub linear_stride: u32,
    /// Byte offset of each level inside a layer, plus the end of the last level.
    pub level_offsets: Vec<u64>,
    /// Twiddled only: tile size of each level, in elements.
    pub tiles: Vec<Tile>,
    /// Twiddled only: width in elements of each level (its tile row is this many elements
    /// rounded up to whole tiles).
    pub stride_el: Vec<u32>,
    pub page_aligned_layers: bool,
    pub layer_stride: u64,
    pub size: u64,
}

/// How a twiddled level numbers its elements: power-of-two tiles in rows, Morton order
/// inside a tile (`Layout::twiddled_level`).
#[derive(Debug, Clone, Copy)]
pub struct TwiddledLevel {
    /// log2 of the tile's width and height, in elements.
    tw: u32,
    th: u32,
    /// Tiles in a row of the level.
    per_row: u32,
}

impl TwiddledLevel {
    /// The number of element (`x`, `y`) (in blocks) of the level.
    #[inline]
    pub fn element(&self, x: u32, y: u32) -> u64 {
        let (tw, th) = (self.tw, self.th);
        let tile = u64::from((y >> th) * self.per_row + (x >> tw));
        let inner = spread(x & ((1 << tw) - 1)) | (spread(y & ((1 << th) - 1)) << 1);
        (tile << (tw + th)) + inner
    }
}

impl Layout {
    /// A layout for an ordinary sampled image (no usage that forces page-aligned layers).
    pub fn new(
        width: u32,
        height: u32,
        layers: u32,
        levels: u32,
        bytes_per_block: u32,
        tiling: Tiling,
        samples: u32,
    ) -> Result<Layout, LayoutError> {
        Layout::with_usage(
            width,
            height,
            layers,
            levels,
            bytes_per_block,
            tiling,
            samples,
            Usage::default(),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn with_usage(
        width: u32,
        height: u32,
        layers: u32,
        levels: u32,
        bytes_per_block: u32,
        tiling: Tiling,
        samples: u32,
        usage: Usage,
    ) -> Result<Layout, LayoutError> {
        Layout::with_blocks(
            width,
            height,
            layers,
            levels,
            (1, 1),
            bytes_per_block,
            tiling,
            samples,
            usage,
        )
    }

    /// A layout for an image of `block` (width, height) texel blocks of `bytes_per_block`
    /// bytes each; (1, 1) for uncompressed formats. Width and height are in texels.
    #[allow(clippy::too_many_arguments)]
    pub fn with_blocks(
        width: u32,
        height: u32,
        layers: u32,
        levels: u32,
        block: (u32, u32),
        bytes_per_block: u32,
        tiling: Tiling,
        samples: u32,
        usage: Usage,
    ) -> Result<Layout, LayoutError> {
        let (block_width, block_height) = block;
        if !(1..=12).contains(&block_width) || !(1..=12).contains(&block_height) {
            return invalid(format!("{block_width}x{block_height} blocks"));
        }
        let compressed = block != (1, 1);
        if compressed && (samples != 1 || matches!(tiling, Tiling::Linear { .. })) {
            return invalid("block-compressed images are twiddled and single-sampled");
        }
        if width == 0 || height == 0 || layers == 0 || levels == 0 {
            return invalid("width, height, layers and levels must be at least 1");
        }
        if width > 16384 || height > 16384 || levels > MAX_LEVELS {
            return invalid(format!(
                "{width}x{height} with {levels} levels is too large"
            ));
        }
        if !matches!(samples, 1 | 2 | 4) {
            return invalid(format!("{samples} samples"));
        }
        if !bytes_per_block.is_power_of_two() || bytes_per_block > 16 {
            return invalid(format!("{bytes_per_block} bytes per block"));
        }
        // A mip-mapped image gets the whole chain (counting a 3D image's depth: its slices
        // are laid out like layers, so the levels past its width and height chain are 1x1
        // levels of each slice). A PBE descriptor states its level count, which is the
        // layout's, so a larger count than the chain is kept.
        let depth = if usage.mipmapped_z { layers } else { 1 };
        let levels = if levels > 1 {
            full_chain(width, height, depth).max(levels)
        } else {
            1
        };
        let mut l = Layout {
            width,
            height,
            layers,
            levels,
            bytes_per_block,
            block_width,
            block_height,
            samples,
            tiling,
            linear_stride: 0,
            level_offsets: Vec::new(),
            tiles: Vec::new(),
            stride_el: Vec::new(),
            page_aligned_layers: false,
            layer_stride: 0,
            size: 0,
        };
        match tiling {
            Tiling::Linear { stride } => l.init_linear(stride)?,
            Tiling::Twiddled => l.init_twiddled(usage)?,
        }
        l.size = l.size.next_multiple_of(CACHELINE);
        Ok(l)
    }

    fn init_linear(&mut self, stride: Option<u32>) -> Result<(), LayoutError> {
        if self.levels != 1 || self.samples != 1 {
            return invalid("linear images have one level and one sample");
        }
        let min = u64::from(self.width) * u64::from(self.bytes_per_block);
        let stride = match stride {
            Some(s) if s % 16 != 0 => {
                return invalid(format!("linear stride {s} is not a multiple of 16"))
            }
            Some(s) if u64::from(s) < min => {
                return invalid(format!("linear stride {s} is below {min}"))
            }
            Some(s) => u64::from(s),
            None => min.next_multiple_of(CACHELINE),
        };
        self.linear_stride = stride as u32;
        self.layer_stride = (stride * u64::from(self.height)).next_multiple_of(CACHELINE);
        self.level_offsets = vec![0, self.layer_stride];
        self.size = self.layer_stride * u64::from(self.layers);
        Ok(())
    }

    /// Bytes of one element: all samples of one pixel.
    /// The element numbering of twiddled level `level` (< `levels`), for a unit that
    /// addresses many of its elements.
    pub fn twiddled_level(&self, level: u32) -> TwiddledLevel {
        let t = self.tiles[level as usize];
        debug_assert!(t.width.is_power_of_two() && t.height.is_power_of_two());
        let (tw, th) = (t.width.trailing_zeros(), t.height.trailing_zeros());
        TwiddledLevel {
            tw,
            th,
            per_row: (self.stride_el[level as usize] + t.width - 1) >> tw,
        }
    }

    pub fn element_bytes(&self) -> u32 {
        self.bytes_per_block * self.samples
    }

    fn init_twiddled(&mut self, usage: Usage) -> Result<(), LayoutError> {
        let block = self.element_bytes();
        let max = max_tile(block).ok_or(LayoutError::Invalid(format!("{block}-byte elements")))?;
        let (w, h) = (self.width, self.height);
        let (bw, bh) = (self.block_width, self.block_height);
        let compressed = (bw, bh) != (1, 1);
        let (w_el, h_el) = (w.div_ceil(bw), h.div_ceil(bh));
        let stx = w_el.div_ceil(max.width);
        let sty = h_el.div_ceil(max.height);
        let area = stx * sty;

        // Levels that still cover at least one whole tile are stored as padded tile grids.
        // ail minifies the pixel extent rounded up to whole blocks and counts blocks again
        // (for 1x1 blocks this is simply the minified extent).
        let mut full_tile_levels = 0;
        let (mut pw, mut ph) = (bw * w_el, bh * h_el);
        while pw.div_ceil(bw) >= max.width && ph.div_ceil(bh) >= max.height {
            pw = minify(pw, 1);
            ph = minify(ph, 1);
            full_tile_levels += 1;
        }

        let mut offset = 0u64;
        let block = u64::from(block);
        for l in 0..full_tile_levels.min(self.levels) {
            let mut tiles = area >> (2 * l);
            let low = (1u32 << l) - 1;
            let pad_left = stx & low != 0;
            let pad_bottom = sty & low != 0;
            if pad_left {
                tiles += sty >> l;
            }
            if pad_bottom {
                tiles += stx >> l;
            }
            if pad_left && pad_bottom {
                tiles += 1;
            }
            let elements = u64::from(tiles) * u64::from(max.width * max.height);
            self.level_offsets.push(offset);
            offset = (offset + block * elements).next_multiple_of(CACHELINE);
            // ail pads the row stride of compressed levels by one block here.
            let pad = u32::from(compressed && pad_left);
            self.stride_el.push(minify(w, l).div_ceil(bw) + pad);
            self.tiles.push(max);
        }

        // Smaller levels: power-of-two extents halving from the first small level, each one
        // square tile of the smaller extent of the level. Compressed formats round level 0's
        // block counts up before minifying (ail: "round then minify").
        let (mut pot_w, mut pot_h) = if compressed {
            (
                minify(w_el.next_power_of_two(), full_tile_levels),
                minify(h_el.next_power_of_two(), full_tile_levels),
            )
        } else {
            (
                minify(w, full_tile_levels).next_power_of_two(),
                minify(h, full_tile_levels).next_power_of_two(),
            )
        };
        for l in full_tile_levels..self.levels {
            self.level_offsets.push(offset);
            offset =
                (offset + block * u64::from(pot_w) * u64::from(pot_h)).next_multiple_of(CACHELINE);
            let t = if compressed {
                pot_w.min(pot_h).next_power_of_two()
            } else {
                minify(w.min(h), l).next_power_of_two()
            };
            self.tiles.push(Tile {
                width: t,
                height: t,
            });
            self.stride_el.push(minify(w, l).div_ceil(bw));
            pot_w = minify(pot_w, 1);
            pot_h = minify(pot_h, 1);
        }
        self.level_offsets.push(offset);

        let mut page = self.levels != 1 && offset > PAGE_SIZE;
        if self.layers == 1 && !usage.depth_stencil {
            page = false;
        }
        page |= usage.writeable_image;
        page |= usage.renderable && self.layers > 1;
        self.page_aligned_layers = page;
        self.layer_stride = if page {
            offset.next_multiple_of(PAGE_SIZE)
        } else {
            offset
        };
        self.size = self.layer_stride * u64::from(self.layers);
        Ok(())
    }

    /// Width and height of `level` in pixels.
    pub fn level_extent(&self, level: u32) -> (u32, u32) {
        (minify(self.width, level), minify(self.height, level))
    }

    /// Width and height of `level` in blocks (pixels for uncompressed formats): what copies
    /// of compressed images count in.
    pub fn level_blocks(&self, level: u32) -> (u32, u32) {
        let (w, h) = self.level_extent(level);
        (w.div_ceil(self.block_width), h.div_ceil(self.block_height))
    }

    /// Whether texels are stored in blocks larger than one texel.
    pub fn is_block_compressed(&self) -> bool {
        (self.block_width, self.block_height) != (1, 1)
    }

    /// Byte offset of level `level` inside a layer.
    pub fn level_offset(&self, level: u32) -> Option<u64> {
        if level < self.levels {
            self.level_offsets.get(level as usize).copied()
        } else {
            None
        }
    }

    /// Byte offset of pixel (`x`, `y`) of `layer` at `level` when the `side` x `side` square
    /// from there holds consecutive elements in Morton order (x in the low bit), as a
    /// writer walking the square in that order can use: a twiddled single-sample layout of
    /// 1x1 blocks, the square aligned to its side, inside one tile and inside the level.
    /// Inside a tile an element's index is the tile's base plus the interleaved bits of x
    /// and y within it, and aligning the square keeps its own bits apart from the corner's.
    pub fn morton_square(&self, x: u32, y: u32, layer: u32, level: u32, side: u32) -> Option<u64> {
        let fits = |t: &Tile| side <= t.width && side <= t.height;
        let (lw, lh) = self.level_extent(level);
        let ok = matches!(self.tiling, Tiling::Twiddled)
            && (self.block_width, self.block_height, self.samples) == (1, 1, 1)
            && side.is_power_of_two()
            && x.is_multiple_of(side)
            && y.is_multiple_of(side)
            && self.tiles.get(level as usize).is_some_and(fits)
            && x.checked_add(side).is_some_and(|e| e <= lw)
            && y.checked_add(side).is_some_and(|e| e <= lh);
        if !ok {
            return None;
        }
        self.offset_of(x, y, layer, level, 0).ok()
    }

    /// Byte offset, from the image base, of sample `sample` of pixel (`x`, `y`) of `layer`
    /// (or 3D slice) at mip `level`; for block-compressed formats, of the block holding that
    /// pixel.
    pub fn offset_of(
        &self,
        x: u32,
        y: u32,
        layer: u32,
        level: u32,
        sample: u32,
    ) -> Result<u64, LayoutError> {
        let (lw, lh) = self.level_extent(level);
        if level >= self.levels
            || x >= lw
            || y >= lh
            || layer >= self.layers
            || sample >= self.samples
        {
            return Err(LayoutError::OutOfBounds(format!(
                "pixel ({x}, {y}) layer {layer} level {level} sample {sample} of a {}x{} image \
                 with {} layers, {} levels, {} samples",
                self.width, self.height, self.layers, self.levels, self.samples
            )));
        }
        let base = u64::from(layer) * self.layer_stride + self.level_offsets[level as usize];
        let bpp = u64::from(self.bytes_per_block);
        // Every texel a simulated texture unit or PBE touches comes through here, so the
        // common cases avoid integer division: 1x1 blocks, and tiles (always powers of two)
        // by shifts and masks.
        let (x, y) = if (self.block_width, self.block_height) == (1, 1) {
            (x, y)
        } else {
            (x / self.block_width, y / self.block_height)
        };
        match self.tiling {
            Tiling::Linear { .. } => {
                Ok(base + u64::from(y) * u64::from(self.linear_stride) + u64::from(x) * bpp)
            }
            Tiling::Twiddled => {
                let element = self.twiddled_level(level).element(x, y);
                Ok(base + element * u64::from(self.element_bytes()) + u64::from(sample) * bpp)
            }
        }
    }
}

#[cfg(test)]
mod tests;
