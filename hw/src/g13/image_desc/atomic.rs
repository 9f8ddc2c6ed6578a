//! The software words of a storage view's PBE descriptor that let a shader find a texel's
//! address, and that address (docs/render-abi.md 7.2).
//!
//! G13 has no atomic image instruction: an atomic on a storage image is a global atomic on
//! the texel's address, which the shader computes from the PBE descriptor. The hardware
//! fields give the view's first layer at level 0 (`Buffer`), its level, level 0's extent and
//! the layer count; the rest of the twiddled layout (where the level starts, its tile size,
//! how far apart layers are) goes into bits 128..191, which the PBE leaves to software in the
//! twiddled layout while `Extended` is clear (cmdbuf.xml's `Level offset (sw)`,
//! `Tile width (sw)`, `Tile height (sw)`, `Layer stride (sw)`).
//!
//! Only 4-byte texels (R32 formats), single-sampled, twiddled images take atomics: that is
//! what Vulkan asks for (`STORAGE_IMAGE_ATOMIC` on R32_UINT/R32_SINT) and what the global
//! atomics operate on.

use super::super::control::bits::{Field, Modifier};
use super::super::control::descriptors::{
    image as common, pbe, Layout as HwLayout, TextureDimension,
};
use super::super::layout::{Layout, LayoutError, Tiling};
use super::ImageDesc;

/// Bytes of a texel that atomics reach.
pub const TEXEL_BYTES: u32 = 4;

/// Bytes from `Buffer` to the view's level, in units of 128 bytes.
pub const LEVEL_OFFSET: Field = Field::with("level offset (sw)", 128, 27, Modifier::Shr(7));
/// log2 of the level's tile width and height in texels.
pub const TILE_WIDTH_LOG2: Field = Field::new("tile width (sw)", 155, 3);
pub const TILE_HEIGHT_LOG2: Field = Field::new("tile height (sw)", 158, 3);
/// Bytes between array layers (or 3D slices), in units of 128 bytes.
pub const LAYER_STRIDE: Field = Field::with("layer stride (sw)", 161, 27, Modifier::Shr(7));
/// Storage texel buffers: the view's element count (docs/render-abi.md 7.1).
pub const BUFFER_ELEMENTS: Field = Field::new("buffer size (sw)", 128, 32);

fn invalid<T>(s: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::Invalid(s.into()))
}

/// `pbe` (a PBE descriptor of `img` storing `level`, as `pbe_descriptor_layers` packs it)
/// with the software words atomics read. Refused for layouts atomics do not take: not
/// twiddled, multisampled, or texels other than 4 bytes.
pub fn with_atomic_words(
    pbe: [u8; 24],
    img: &ImageDesc,
    level: u32,
) -> Result<[u8; 24], LayoutError> {
    let l: &Layout = img.layout;
    if l.tiling != Tiling::Twiddled || l.samples != 1 || l.bytes_per_block != TEXEL_BYTES {
        return invalid(format!(
            "atomics need a single-sampled twiddled image of {TEXEL_BYTES}-byte texels"
        ));
    }
    let offset = l
        .level_offset(level)
        .ok_or_else(|| LayoutError::Invalid(format!("level {level} of {}", l.levels)))?;
    let tile = l.tiles[level as usize];
    let mut b = pbe;
    if pbe::EXTENDED.get(&b) != 0 {
        return invalid("an extended PBE descriptor has no room for software words");
    }
    let words = [
        (LEVEL_OFFSET, offset),
        (TILE_WIDTH_LOG2, u64::from(tile.width.trailing_zeros())),
        (TILE_HEIGHT_LOG2, u64::from(tile.height.trailing_zeros())),
        (LAYER_STRIDE, l.layer_stride),
    ];
    if !tile.width.is_power_of_two() || !tile.height.is_power_of_two() {
        return invalid(format!("tile {}x{}", tile.width, tile.height));
    }
    for (f, v) in words {
        if !f.fits(v) {
            return invalid(format!("{} {v:#x} does not fit its field", f.name));
        }
        f.put(&mut b, v);
    }
    Ok(b)
}

/// The view extent atomics are bounded by at the PBE's level: width, height and layers (3D:
/// the level's slices).
fn level_extent(pbe_bytes: &[u8; 24]) -> [u32; 3] {
    let level = pbe::LEVEL.get(pbe_bytes) as u32;
    let minify = |x: u32| (x >> level).max(1);
    let count = |f: Field| f.get(pbe_bytes) as u32 + 1;
    let layers = count(pbe::LAYERS);
    let is_3d = common::DIMENSION.get(pbe_bytes) == TextureDimension::D3.bits();
    [
        minify(count(pbe::WIDTH)),
        minify(count(pbe::HEIGHT)),
        if is_3d { minify(layers) } else { layers },
    ]
}

/// x's bits on the even positions, y's on the odd ones (tiles are at most 128 wide).
fn morton(x: u32, y: u32) -> u64 {
    let mut m = 0u64;
    for bit in 0..8 {
        m |= u64::from((x >> bit) & 1) << (2 * bit);
        m |= u64::from((y >> bit) & 1) << (2 * bit + 1);
    }
    m
}

/// The address docs/render-abi.md 7.2 gives texel (`x`, `y`) of layer `layer` (array layer
/// relative to the view, cube face + 6 x cube, or 3D slice) through a storage image's PBE
/// descriptor with its software words, or `None` where an atomic does nothing: outside the
/// level's extent, or a descriptor that is not twiddled (the null descriptor among them).
pub fn texel_address(pbe_bytes: &[u8; 24], x: u32, y: u32, layer: u32) -> Option<u64> {
    if common::LAYOUT.get(pbe_bytes) != HwLayout::Twiddled.bits() {
        return None;
    }
    let [w, h, d] = level_extent(pbe_bytes);
    if x >= w || y >= h || layer >= d {
        return None;
    }
    let (tw_log2, th_log2) = (
        TILE_WIDTH_LOG2.get(pbe_bytes) as u32,
        TILE_HEIGHT_LOG2.get(pbe_bytes) as u32,
    );
    let tiles_per_row = w.div_ceil(1 << tw_log2);
    let tile = u64::from((y >> th_log2) * tiles_per_row + (x >> tw_log2));
    let inner = morton(x & ((1 << tw_log2) - 1), y & ((1 << th_log2) - 1));
    let element = (tile << (tw_log2 + th_log2)) + inner;
    Some(
        pbe::BUFFER.get(pbe_bytes)
            + LEVEL_OFFSET.get(pbe_bytes)
            + u64::from(layer) * LAYER_STRIDE.get(pbe_bytes)
            + element * u64::from(TEXEL_BYTES),
    )
}

/// The address of element `element` of a storage texel buffer through its PBE descriptor
/// (`Buffer` + 4 x element), or `None` at or past the element count.
pub fn buffer_element_address(pbe_bytes: &[u8; 24], element: u32) -> Option<u64> {
    (u64::from(element) < BUFFER_ELEMENTS.get(pbe_bytes))
        .then(|| pbe::BUFFER.get(pbe_bytes) + u64::from(element) * u64::from(TEXEL_BYTES))
}

#[cfg(test)]
mod tests;
