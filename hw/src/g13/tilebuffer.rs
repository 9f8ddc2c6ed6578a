//! G13 tilebuffer layout: where each colour render target lives in tile memory.
//!
//! Facts from Mesa's asahi tilebuffer code and format table (public): the tile memory holds a
//! fixed number of bytes per sample for every pixel of a tile; render targets are packed into
//! that sample in attachment order, each naturally aligned to its tilebuffer format's unit; a
//! sample is at most 64 bytes and a whole tile at most 32 KiB - 1 bytes, checked against the
//! smallest tile (16x16) so a target that fits there fits at some tile size. Targets that do
//! not fit are spilled (the shaders read and write them in memory instead). The tile size is
//! then the largest of 32x32, 32x16, 16x16 whose bytes stay under the budget.

use super::control::SharedLayout;
use std::fmt;

/// Most colour attachments a subpass may have; the API limit, not an architectural one.
pub const MAX_RENDER_TARGETS: usize = 8;

/// Largest sample allocation; more needs spilling.
pub const MAX_BYTES_PER_SAMPLE: u32 = 64;

/// Tile memory budget per tile (all samples of all pixels).
pub const MAX_BYTES_PER_TILE: u32 = 32768 - 1;

/// Sample allocations are rounded to this; it is also the unit of the USC sample stride.
pub const SAMPLE_GRANULE: u32 = 8;

/// The smallest tile the hardware supports, in pixels.
const MIN_TILE_PIXELS: u32 = 16 * 16;

/// The formats the tile memory stores pixels in (what the shader's tile loads and stores
/// convert to and from).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TibFormat {
    I8,
    I16,
    I32,
    F16,
    U8Norm,
    S8Norm,
    U16Norm,
    S16Norm,
    /// One 32-bit word holding 10:10:10:2 UNORM.
    Rgb10A2,
    /// One 32-bit word holding four sRGB-encoded bytes, whatever the logical channel count.
    Srgba8,
    /// One 32-bit word holding 11:11:10 floats.
    Rg11B10F,
    /// One 32-bit word holding a shared-exponent 9:9:9:5 float.
    Rgb9E5,
}

impl TibFormat {
    /// Bytes of one stored unit: one channel, or the whole pixel for the packed formats.
    /// It is also the alignment the target needs inside the sample.
    pub fn unit_bytes(self) -> u32 {
        match self {
            TibFormat::I8 | TibFormat::U8Norm | TibFormat::S8Norm => 1,
            TibFormat::I16 | TibFormat::F16 | TibFormat::U16Norm | TibFormat::S16Norm => 2,
            TibFormat::I32
            | TibFormat::Rgb10A2
            | TibFormat::Srgba8
            | TibFormat::Rg11B10F
            | TibFormat::Rgb9E5 => 4,
        }
    }

    /// Whether one unit holds every channel of the pixel (so the target's size is one unit).
    pub fn holds_whole_pixel(self) -> bool {
        matches!(
            self,
            TibFormat::Rgb10A2 | TibFormat::Srgba8 | TibFormat::Rg11B10F | TibFormat::Rgb9E5
        )
    }

    /// Whether tile stores can write a channel subset. Stores of the bit-packed formats are
    /// all-or-nothing, so colour write masks need another path for them.
    pub fn supports_channel_mask(self) -> bool {
        !matches!(
            self,
            TibFormat::Rgb10A2 | TibFormat::Rg11B10F | TibFormat::Rgb9E5
        )
    }
}

/// How the channels of a plain (one size per channel) format are interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numeric {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Float,
    Srgb,
}

/// A colour attachment's format as the API sees it, in generation-neutral terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColourFormat {
    /// `channels` (1..=4, counting padding channels such as X8) of `bits` (8, 16 or 32) each;
    /// B, G, R, A orderings are the same here.
    Plain {
        channels: u8,
        bits: u8,
        numeric: Numeric,
    },
    R5G6B5Unorm,
    R5G5B5A1Unorm,
    R4G4B4A4Unorm,
    Rgb10A2Unorm,
    Rgb10A2Uint,
    Rg11B10Float,
    Rgb9E5Float,
}

impl ColourFormat {
    /// Channels of the logical format, padding included.
    pub fn channels(self) -> u32 {
        match self {
            ColourFormat::Plain { channels, .. } => channels.into(),
            ColourFormat::R5G6B5Unorm | ColourFormat::Rg11B10Float => 3,
            ColourFormat::R5G5B5A1Unorm
            | ColourFormat::R4G4B4A4Unorm
            | ColourFormat::Rgb10A2Unorm
            | ColourFormat::Rgb10A2Uint
            | ColourFormat::Rgb9E5Float => 4,
        }
    }

    /// The tile memory format the hardware renders this format through, or `None` when the
    /// format is not renderable (e.g. 8-bit floats, 32-bit normalised, 10:10:10:2 SINT).
    pub fn tib_format(self) -> Option<TibFormat> {
        use Numeric as N;
        use TibFormat as T;
        Some(match self {
            ColourFormat::Plain {
                channels,
                bits,
                numeric,
            } => {
                if !(1..=4).contains(&channels) {
                    return None;
                }
                match (bits, numeric) {
                    (8, N::Unorm) => T::U8Norm,
                    (8, N::Snorm) => T::S8Norm,
                    (8, N::Uint | N::Sint) => T::I8,
                    (8, N::Srgb) => T::Srgba8,
                    (16, N::Unorm) => T::U16Norm,
                    (16, N::Snorm) => T::S16Norm,
                    (16, N::Uint | N::Sint) => T::I16,
                    (16, N::Float) => T::F16,
                    (32, N::Uint | N::Sint | N::Float) => T::I32,
                    _ => return None,
                }
            }
            // The small packed UNORM formats blend and store through half floats.
            ColourFormat::R5G6B5Unorm
            | ColourFormat::R5G5B5A1Unorm
            | ColourFormat::R4G4B4A4Unorm => T::F16,
            ColourFormat::Rgb10A2Unorm => T::Rgb10A2,
            // Integer 10:10:10:2 is widened to 16-bit integers per channel.
            ColourFormat::Rgb10A2Uint => T::I16,
            ColourFormat::Rg11B10Float => T::Rg11B10F,
            ColourFormat::Rgb9E5Float => T::Rgb9E5,
        })
    }
}

/// Tile dimensions in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileSize {
    pub width: u32,
    pub height: u32,
}

impl TileSize {
    pub const T32X32: TileSize = TileSize {
        width: 32,
        height: 32,
    };
    pub const T32X16: TileSize = TileSize {
        width: 32,
        height: 16,
    };
    pub const T16X16: TileSize = TileSize {
        width: 16,
        height: 16,
    };

    pub fn pixels(self) -> u32 {
        self.width * self.height
    }

    /// The USC Shared layout value for tile-shaped shared memory of this size.
    pub fn shared_layout(self) -> SharedLayout {
        match (self.width, self.height) {
            (32, 32) => SharedLayout::Tile32x32,
            (32, 16) => SharedLayout::Tile32x16,
            _ => SharedLayout::Tile16x16,
        }
    }

    /// The largest tile whose pixels fit the budget at `bytes_per_pixel`. Any layout this
    /// module builds fits at 16x16 (targets are admitted only if they do), so the fallback
    /// is never over budget for such layouts.
    fn largest_for(bytes_per_pixel: u32) -> TileSize {
        [TileSize::T32X32, TileSize::T32X16]
            .into_iter()
            .find(|t| bytes_per_pixel * t.pixels() <= MAX_BYTES_PER_TILE)
            .unwrap_or(TileSize::T16X16)
    }
}

/// Where a render target's pixels live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// In tile memory at `offset_bytes` inside every sample, `size_bytes` long.
    Tile { offset_bytes: u32, size_bytes: u32 },
    /// In memory: shaders read and write the attachment image directly.
    Spilled,
}

/// One colour render target of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub format: ColourFormat,
    pub tib_format: TibFormat,
    pub placement: Placement,
}

/// Errors building a layout. They are API misuse or unsupported formats, never hardware faults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TilebufferError {
    TooManyTargets(usize),
    BadSampleCount(u32),
    NotRenderable { target: usize, format: ColourFormat },
}

impl fmt::Display for TilebufferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TilebufferError::TooManyTargets(n) => {
                write!(
                    f,
                    "{n} colour targets; at most {MAX_RENDER_TARGETS} are supported"
                )
            }
            TilebufferError::BadSampleCount(n) => {
                write!(
                    f,
                    "{n} samples per pixel; the tilebuffer supports 1, 2 or 4"
                )
            }
            TilebufferError::NotRenderable { target, format } => {
                write!(
                    f,
                    "render target {target} has format {format:?}, which is not renderable"
                )
            }
        }
    }
}

impl std::error::Error for TilebufferError {}

/// The tilebuffer parameters of a render command (`drm_asahi_cmd_render`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderTileParams {
    pub utile_width_px: u8,
    pub utile_height_px: u8,
    pub samples: u8,
    pub sample_size_bytes: u8,
}

/// The field values of the USC Shared word for fragment-stage programs (fragment shaders,
/// background and end-of-tile programs) that access this tilebuffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UscSharedTile {
    pub layout: SharedLayout,
    pub sample_count: u32,
    pub sample_stride_in_8_bytes: u32,
    pub bytes_per_threadgroup: u32,
}

/// A complete tilebuffer layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TilebufferLayout {
    /// Indexed by colour attachment; `None` is an unused attachment slot, which takes no space.
    pub targets: Vec<Option<Target>>,
    pub samples: u32,
    /// Bytes of one sample of one pixel, a multiple of [`SAMPLE_GRANULE`]. Spilled targets do
    /// not count.
    pub sample_size_bytes: u32,
    pub tile: TileSize,
}

impl TilebufferLayout {
    /// Lays out `formats` (one per colour attachment, `None` for unused slots) at `samples`
    /// samples per pixel.
    pub fn build(
        formats: &[Option<ColourFormat>],
        samples: u32,
    ) -> Result<TilebufferLayout, TilebufferError> {
        if formats.len() > MAX_RENDER_TARGETS {
            return Err(TilebufferError::TooManyTargets(formats.len()));
        }
        if !matches!(samples, 1 | 2 | 4) {
            return Err(TilebufferError::BadSampleCount(samples));
        }
        let mut targets = Vec::with_capacity(formats.len());
        let mut end = 0u32;
        for (i, format) in formats.iter().enumerate() {
            let Some(format) = *format else {
                targets.push(None);
                continue;
            };
            let tib_format = format
                .tib_format()
                .ok_or(TilebufferError::NotRenderable { target: i, format })?;
            let unit = tib_format.unit_bytes();
            let size = if tib_format.holds_whole_pixel() {
                unit
            } else {
                unit * format.channels()
            };
            let offset = end.next_multiple_of(unit);
            let new_end = offset + size;
            // Checked at the smallest tile so that some tile size always fits. A target that
            // does not fit is skipped rather than ending the layout: later, smaller targets
            // may still fit.
            let fits = new_end <= MAX_BYTES_PER_SAMPLE
                && new_end.next_multiple_of(SAMPLE_GRANULE) * MIN_TILE_PIXELS * samples
                    <= MAX_BYTES_PER_TILE;
            let placement = if fits {
                end = new_end;
                Placement::Tile {
                    offset_bytes: offset,
                    size_bytes: size,
                }
            } else {
                Placement::Spilled
            };
            targets.push(Some(Target {
                format,
                tib_format,
                placement,
            }));
        }
        // A multisampled tile must allocate something even with no targets in it.
        if samples > 1 {
            end = end.max(1);
        }
        let sample_size_bytes = end.next_multiple_of(SAMPLE_GRANULE);
        let tile = TileSize::largest_for(sample_size_bytes * samples);
        Ok(TilebufferLayout {
            targets,
            samples,
            sample_size_bytes,
            tile,
        })
    }

    /// Tile memory of one tile, all samples included.
    pub fn total_bytes(&self) -> u32 {
        self.sample_size_bytes * self.samples * self.tile.pixels()
    }

    /// Indices of the targets that live in memory instead of tile memory.
    pub fn spilled(&self) -> Vec<usize> {
        self.targets
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                matches!(
                    t,
                    Some(Target {
                        placement: Placement::Spilled,
                        ..
                    })
                )
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub fn render_params(&self) -> RenderTileParams {
        // Every value is bounded by the constants above (tile <= 32, samples <= 4,
        // sample size <= 64), so the narrowing cannot lose bits.
        RenderTileParams {
            utile_width_px: self.tile.width as u8,
            utile_height_px: self.tile.height as u8,
            samples: self.samples as u8,
            sample_size_bytes: self.sample_size_bytes as u8,
        }
    }

    pub fn usc_shared(&self) -> UscSharedTile {
        UscSharedTile {
            layout: self.tile.shared_layout(),
            sample_count: self.samples,
            sample_stride_in_8_bytes: self.sample_size_bytes / SAMPLE_GRANULE,
            bytes_per_threadgroup: self.total_bytes(),
        }
    }
}

#[cfg(test)]
mod tests;
