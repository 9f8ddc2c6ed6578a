//! Where the texels of an image described by a texture or PBE descriptor live.
//!
//! The texture unit rebuilds the image's ail layout from the descriptor (**agx4** reading, see
//! `g13::image_desc`): width, height, texel size (from the channel layout), sample count
//! (multisampled dimensions only), depth or layer count, the whole mip chain when "unk
//! mipmapped" is set (texture) or `levels` (PBE), and "page-aligned layers" for the layer
//! stride. Linear images are rows of `stride` bytes; linear arrays take their layer count and
//! stride from the extension word. The descriptor's address is layer 0 of the view; levels
//! are counted from the view's first level (texture) or the PBE's level.
//!
//! Block-compressed images (texture descriptors only) are twiddled ail layouts of blocks
//! (`g13::layout`); an address is that of the block holding the texel, and `bytes` is the
//! block's size. The PBE does not write them, and ail has no linear ones.

use super::format::texel_bytes;
use hw::g13::control::descriptors::{
    Layout as HwLayout, Pbe, SampleCount, Texture, TextureDimension,
};
use hw::g13::image_desc::{channels_block, linear_array_from_extension};
use hw::g13::layout::{full_chain, Layout, Tiling, TwiddledLevel, Usage, PAGE_SIZE};

/// An image's addressing, shared by texture reads and PBE writes.
#[derive(Debug, Clone)]
pub struct Surface {
    pub base: u64,
    pub width: u32,
    pub height: u32,
    /// Array layers, or 3D slices at level 0.
    pub depth: u32,
    pub is_3d: bool,
    pub samples: u32,
    /// Bytes of a texel, or of a block.
    pub bytes: u32,
    /// Texels per block across and down: (1, 1) unless block-compressed.
    pub block: (u32, u32),
    /// Levels that may be addressed, counted from `first_level`.
    pub levels: u32,
    pub first_level: u32,
    kind: Kind,
}

/// [`Surface::level_address`].
#[derive(Debug, Clone, Copy)]
pub struct LevelAddress {
    base: u64,
    w: u32,
    h: u32,
    rule: Rule,
}

#[derive(Debug, Clone, Copy)]
enum Rule {
    Linear {
        stride: u64,
        bytes: u64,
    },
    /// The level's numbering, and the bytes of an element.
    Twiddled(TwiddledLevel, u64),
}

impl LevelAddress {
    /// [`Surface::address`] of texel (x, y) of layer 0, sample 0, at the level.
    #[inline]
    pub fn at(&self, x: i64, y: i64) -> Option<u64> {
        if x < 0 || y < 0 || x >= i64::from(self.w) || y >= i64::from(self.h) {
            return None;
        }
        let (x, y) = (x as u32, y as u32);
        Some(
            self.base
                + match self.rule {
                    Rule::Linear { stride, bytes } => u64::from(y) * stride + u64::from(x) * bytes,
                    Rule::Twiddled(t, element) => t.element(x, y) * element,
                },
        )
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Linear { stride: u64, layer_stride: u64 },
    Twiddled(Layout),
}

fn samples_of(dim: TextureDimension, count: SampleCount) -> u32 {
    match dim {
        TextureDimension::D2Multisampled | TextureDimension::D2ArrayMultisampled => match count {
            SampleCount::Two => 2,
            SampleCount::Four => 4,
        },
        _ => 1,
    }
}

#[allow(clippy::too_many_arguments)]
fn twiddled(
    w: u32,
    h: u32,
    depth: u32,
    levels: u32,
    block: (u32, u32),
    bytes: u32,
    samples: u32,
    page_aligned: bool,
) -> Result<Layout, String> {
    let mut l = Layout::with_blocks(
        w,
        h,
        depth,
        levels,
        block,
        bytes,
        Tiling::Twiddled,
        samples,
        Usage::default(),
    )
    .map_err(|e| e.to_string())?;
    let end = *l.level_offsets.last().unwrap_or(&0);
    l.page_aligned_layers = page_aligned;
    l.layer_stride = if page_aligned {
        end.next_multiple_of(PAGE_SIZE)
    } else {
        end
    };
    l.size = l.layer_stride * u64::from(depth);
    Ok(l)
}

fn minify(x: u32, l: u32) -> u32 {
    (x >> l).max(1)
}

impl Surface {
    /// The image a texture descriptor reads. `None` for a null descriptor.
    pub fn from_texture(t: &Texture) -> Result<Option<Surface>, String> {
        if t.null || t.layout == HwLayout::Null {
            return Ok(None);
        }
        if t.compression != 0 || t.compressed_1 || t.layout == HwLayout::Compressed {
            return Err("compressed images are not modelled".into());
        }
        let (bytes, block) = match channels_block(t.channels) {
            Some(b) => (b.bytes, (b.width, b.height)),
            None => (
                texel_bytes(t.channels)
                    .ok_or_else(|| format!("channel layout {:?} is not modelled", t.channels))?,
                (1, 1),
            ),
        };
        if block != (1, 1) && t.layout == HwLayout::Linear {
            return Err(format!("linear {:?} image (ail has none)", t.channels));
        }
        if t.last_level < t.first_level {
            return Err(format!(
                "last level {} is below first level {}",
                t.last_level, t.first_level
            ));
        }
        let samples = samples_of(t.dimension, t.samples);
        let is_3d = t.dimension == TextureDimension::D3;
        let (kind, depth, chain) = match t.layout {
            HwLayout::Linear => {
                let (depth, layer_stride) = if t.extended {
                    linear_array_from_extension(t.extension)
                } else {
                    (1, 0)
                };
                if samples != 1 {
                    return Err("linear images have one sample".into());
                }
                let stride = u64::from(t.stride);
                (
                    Kind::Linear {
                        stride,
                        layer_stride,
                    },
                    depth,
                    1,
                )
            }
            _ => {
                // Cube descriptors count cubes; the faces are consecutive layers.
                let faces = match t.dimension {
                    TextureDimension::Cube | TextureDimension::CubeArray => t.depth * 6,
                    _ => t.depth,
                };
                // The levels the layout allocated, by the layout's own rule: a 3D
                // descriptor's depth is the image's (3D views cover every slice).
                let chain = if t.unk_mipmapped {
                    full_chain(t.width, t.height, if is_3d { t.depth } else { 1 })
                } else {
                    1
                };
                let l = twiddled(
                    t.width,
                    t.height,
                    faces,
                    chain,
                    block,
                    bytes,
                    samples,
                    t.page_aligned_layers,
                )?;
                (Kind::Twiddled(l), faces, chain)
            }
        };
        let levels = (t.last_level - t.first_level + 1).min(chain.saturating_sub(t.first_level));
        Ok(Some(Surface {
            base: t.address,
            width: t.width,
            height: t.height,
            depth,
            is_3d,
            samples,
            bytes,
            block,
            levels,
            first_level: t.first_level,
            kind,
        }))
    }

    /// The image a PBE descriptor writes; `None` for the null layout (**agx4**: writes
    /// through it are dropped).
    pub fn from_pbe(p: &Pbe) -> Result<Option<Surface>, String> {
        if p.layout == HwLayout::Null {
            return Ok(None);
        }
        if p.compressed_1 || p.layout == HwLayout::Compressed {
            return Err("compressed images are not modelled".into());
        }
        if p.rotate_90 || p.flip_vertical {
            return Err("rotated or flipped PBE stores are not modelled".into());
        }
        let bytes = texel_bytes(p.channels)
            .ok_or_else(|| format!("channel layout {:?} is not modelled", p.channels))?;
        let samples = samples_of(p.dimension, p.samples);
        let is_3d = p.dimension == TextureDimension::D3;
        let (kind, depth, chain) = match p.layout {
            HwLayout::Linear => {
                let (depth, layer_stride) = if p.extended {
                    linear_array_from_extension(p.extension)
                } else {
                    (1, 0)
                };
                if samples != 1 {
                    return Err("linear images have one sample".into());
                }
                let stride = u64::from(p.stride);
                (
                    Kind::Linear {
                        stride,
                        layer_stride,
                    },
                    depth,
                    1,
                )
            }
            _ => {
                let l = twiddled(
                    p.width,
                    p.height,
                    p.layers,
                    p.levels,
                    (1, 1),
                    bytes,
                    samples,
                    p.page_aligned_layers,
                )?;
                let chain = l.levels;
                (Kind::Twiddled(l), p.layers, chain)
            }
        };
        Ok(Some(Surface {
            base: p.buffer,
            width: p.width,
            height: p.height,
            depth,
            is_3d,
            samples,
            bytes,
            block: (1, 1),
            levels: chain.saturating_sub(p.level),
            first_level: p.level,
            kind,
        }))
    }

    /// Width, height and depth (layers, or slices for 3D) of view level `level`.
    pub fn extent(&self, level: u32) -> [u32; 3] {
        let l = self.first_level + level;
        let d = if self.is_3d {
            minify(self.depth, l)
        } else {
            self.depth
        };
        [minify(self.width, l), minify(self.height, l), d]
    }

    /// Whether texels are stored twiddled (Morton order inside power-of-two tiles), so that
    /// a writer walking an aligned square in Morton order meets consecutive addresses.
    pub fn twiddled(&self) -> bool {
        matches!(self.kind, Kind::Twiddled(_))
    }

    /// Address of texel (x, y) of layer 0 at view level 0 when the `side` x `side` square
    /// from there is consecutive texels in Morton order (`Layout::morton_square`): a writer
    /// walking it in that order can write it as one run.
    pub fn morton_square(&self, x: u32, y: u32, side: u32) -> Option<u64> {
        match &self.kind {
            Kind::Twiddled(l) => l
                .morton_square(x, y, 0, self.first_level, side)
                .map(|off| self.base + off),
            Kind::Linear { .. } => None,
        }
    }

    /// The addressing of layer 0, sample 0 of view level `level` of an uncompressed
    /// image, worked out once for a unit that reads many of its texels; `None` for other
    /// images and levels.
    pub fn level_address(&self, level: u32) -> Option<LevelAddress> {
        if level >= self.levels || self.block != (1, 1) {
            return None;
        }
        let [mut w, mut h, _] = self.extent(level);
        let (base, rule) = match &self.kind {
            Kind::Linear { stride, .. } => (
                self.base,
                Rule::Linear {
                    stride: *stride,
                    bytes: u64::from(self.bytes),
                },
            ),
            Kind::Twiddled(l) => {
                let at = self.first_level + level;
                let offset = *l.level_offsets.get(at as usize)?;
                // `Layout::offset_of` refuses pixels outside its own level too.
                let (lw, lh) = l.level_extent(at);
                (w, h) = (w.min(lw), h.min(lh));
                let element = u64::from(l.element_bytes());
                (
                    self.base + offset,
                    Rule::Twiddled(l.twiddled_level(at), element),
                )
            }
        };
        Some(LevelAddress { base, w, h, rule })
    }

    /// Address of sample `sample` of texel (x, y) of layer or slice `z` at view level
    /// `level` (of the block holding it, for block-compressed images); `None` outside the
    /// image.
    pub fn address(&self, x: i64, y: i64, z: i64, level: u32, sample: u32) -> Option<u64> {
        if level >= self.levels || sample >= self.samples {
            return None;
        }
        let [w, h, d] = self.extent(level);
        if x < 0 || y < 0 || z < 0 || x >= i64::from(w) || y >= i64::from(h) || z >= i64::from(d) {
            return None;
        }
        let (x, y, z) = (x as u32, y as u32, z as u32);
        let off = match &self.kind {
            Kind::Linear {
                stride,
                layer_stride,
            } => u64::from(z) * layer_stride + u64::from(y) * stride + u64::from(x * self.bytes),
            Kind::Twiddled(l) => l
                .offset_of(x, y, z, self.first_level + level, sample)
                .ok()?,
        };
        Some(self.base + off)
    }
}
