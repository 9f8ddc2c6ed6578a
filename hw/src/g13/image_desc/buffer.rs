//! Texel buffer descriptors (docs/render-abi.md section 7.1): a buffer view is a linear 2D
//! texture [`TEXEL_BUFFER_WIDTH`] texels wide, element `i` at texel
//! (`i mod TEXEL_BUFFER_WIDTH`, `i / TEXEL_BUFFER_WIDTH`), with the view's element count in
//! the software word at bits 128..159 (cmdbuf.xml `Buffer size (sw)`) of both the texture
//! and the PBE descriptor. `Extended` stays clear, so the hardware never reads that word;
//! shaders read it to bounds-check elements and to answer size queries.
//!
//! **agx4**: Mesa's hk lays buffer views out the same way (a 1024-wide linear 2D texture),
//! which is what makes the 16384-row limit of the descriptors give 2^24 elements.

use super::{channels_bytes, LayoutError, PixelFormat};
use crate::g13::control::bits::Field;
use crate::g13::control::descriptors::{
    Channel, Layout as HwLayout, Pbe, SampleCount, Texture, TextureDimension,
};

/// Texels per row of a buffer view's texture.
pub const TEXEL_BUFFER_WIDTH: u32 = 1024;

/// Rows the descriptors' 14-bit height field holds.
const MAX_ROWS: u32 = 1 << 14;

/// The most elements a buffer view may have: full rows up to the height limit.
pub const MAX_TEXEL_BUFFER_ELEMENTS: u32 = TEXEL_BUFFER_WIDTH * MAX_ROWS;

/// The element count, in both the texture and the PBE descriptor of a texel buffer.
pub const ELEMENT_COUNT: Field = Field::new("buffer size (sw)", 128, 32);

/// Where a view's element `i` is in its texture: (x, y).
pub fn element_texel(i: u32) -> (u32, u32) {
    (i % TEXEL_BUFFER_WIDTH, i / TEXEL_BUFFER_WIDTH)
}

/// A buffer view as its descriptors describe it.
#[derive(Debug, Clone, Copy)]
pub struct TexelBufferDesc {
    /// GPU address of element 0 (16-byte aligned).
    pub base: u64,
    /// Elements in the view (1..=[`MAX_TEXEL_BUFFER_ELEMENTS`]).
    pub elements: u32,
    pub format: PixelFormat,
}

fn invalid<T>(s: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::Invalid(s.into()))
}

impl TexelBufferDesc {
    /// (texel bytes, rows) after checking the view can be described.
    fn check(&self) -> Result<(u32, u32), LayoutError> {
        let bytes = channels_bytes(self.format.channels).ok_or_else(|| {
            LayoutError::Invalid(format!(
                "{:?} is not a texel buffer format",
                self.format.channels
            ))
        })?;
        if self.elements == 0 || self.elements > MAX_TEXEL_BUFFER_ELEMENTS {
            return invalid(format!("a texel buffer of {} elements", self.elements));
        }
        if !self.base.is_multiple_of(16) {
            return invalid(format!(
                "texel buffer base {:#x} is not 16-byte aligned",
                self.base
            ));
        }
        Ok((bytes, self.elements.div_ceil(TEXEL_BUFFER_WIDTH)))
    }

    /// The texture descriptor (loads and size queries).
    pub fn texture_descriptor(&self) -> Result<[u8; 24], LayoutError> {
        let (bytes, rows) = self.check()?;
        let f = self.format;
        Ok(Texture {
            dimension: TextureDimension::D2,
            layout: HwLayout::Linear,
            channels: f.channels,
            texture_type: f.texture_type,
            swizzle: f.swizzle,
            width: TEXEL_BUFFER_WIDTH,
            height: rows,
            first_level: 0,
            last_level: 0,
            samples: SampleCount::Two,
            address: self.base,
            unk_mipmapped: false,
            compressed_1: false,
            null: false,
            compression: 0,
            srgb: f.srgb,
            srgb_2_channel: f.srgb && super::channels_count(f.channels) == Some(2),
            stride: TEXEL_BUFFER_WIDTH * bytes,
            depth: 1,
            page_aligned_layers: false,
            extended: false,
            extension: u64::from(self.elements),
        }
        .pack())
    }

    /// The PBE descriptor (stores of storage texel buffers).
    pub fn pbe_descriptor(&self) -> Result<[u8; 24], LayoutError> {
        let (bytes, rows) = self.check()?;
        let f = self.format;
        // Memory channel j receives the shader component whose format swizzle reads it.
        let hw = [Channel::R, Channel::G, Channel::B, Channel::A];
        let mut swizzle = hw;
        for (j, slot) in swizzle.iter_mut().enumerate() {
            *slot = f
                .swizzle
                .iter()
                .position(|&s| s == hw[j])
                .map_or(Channel::R, |c| hw[c]);
        }
        Pbe {
            dimension: TextureDimension::D2,
            layout: HwLayout::Linear,
            channels: f.channels,
            texture_type: f.texture_type,
            swizzle,
            width: TEXEL_BUFFER_WIDTH,
            height: rows,
            unk_52: false,
            rotate_90: false,
            flip_vertical: false,
            samples: SampleCount::Two,
            unk_mipmapped: false,
            compressed_1: false,
            buffer: self.base,
            level: 0,
            levels: 1,
            layers: 1,
            stride: TEXEL_BUFFER_WIDTH * bytes,
            page_aligned_layers: false,
            srgb: f.srgb,
            extended: false,
            extension: u64::from(self.elements),
        }
        .pack()
        .map_err(|e| LayoutError::Invalid(format!("texel buffer PBE descriptor: {e}")))
    }
}

/// The element count a texel buffer's texture or PBE descriptor holds.
pub fn element_count(descriptor: &[u8; 24]) -> u32 {
    ELEMENT_COUNT.get(descriptor) as u32
}

#[cfg(test)]
mod tests {
    use super::super::pixel_format;
    use super::*;

    fn word(b: &[u8], i: usize) -> u64 {
        u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
    }

    fn view(vk_format: i32, elements: u32) -> TexelBufferDesc {
        TexelBufferDesc {
            base: 0x12_3450,
            elements,
            format: pixel_format(vk_format).unwrap(),
        }
    }

    #[test]
    fn texture_is_a_linear_2d_texture_1024_wide() {
        // R32G32B32A32_SFLOAT, 2500 elements: three rows of 16 KiB.
        let d = view(109, 2500).texture_descriptor().unwrap();
        let t = Texture::unpack(&d).unwrap();
        assert_eq!(t.layout, HwLayout::Linear);
        assert_eq!(t.dimension, TextureDimension::D2);
        assert_eq!((t.width, t.height, t.stride), (1024, 3, 16384));
        assert_eq!(t.address, 0x12_3450);
        assert!(!t.extended);
        // Width 1023 at bits 28..42, height 2 at 42..56 (cmdbuf.xml, stored minus one).
        assert_eq!((word(&d, 0) >> 28) & 0x3fff, 1023);
        assert_eq!((word(&d, 0) >> 42) & 0x3fff, 2);
        // The element count is the whole low word of bytes 16..24.
        assert_eq!(word(&d, 2), 2500);
        assert_eq!(element_count(&d), 2500);
    }

    #[test]
    fn pbe_carries_the_count_and_inverts_the_swizzle() {
        // B8G8R8A8_UNORM: memory channel 0 is blue, shader component 2.
        let d = view(44, 7).pbe_descriptor().unwrap();
        let p = Pbe::unpack(&d).unwrap();
        assert_eq!(p.layout, HwLayout::Linear);
        assert_eq!((p.width, p.height, p.stride), (1024, 1, 4096));
        assert_eq!(p.buffer, 0x12_3450);
        assert_eq!(p.swizzle, [Channel::B, Channel::G, Channel::R, Channel::A]);
        assert!(!p.extended);
        assert_eq!(element_count(&d), 7);
    }

    #[test]
    fn limits() {
        assert_eq!(MAX_TEXEL_BUFFER_ELEMENTS, 1 << 24);
        let full = view(13, MAX_TEXEL_BUFFER_ELEMENTS)
            .texture_descriptor()
            .unwrap();
        assert_eq!(Texture::unpack(&full).unwrap().height, 16384);
        assert!(view(13, MAX_TEXEL_BUFFER_ELEMENTS + 1)
            .texture_descriptor()
            .is_err());
        assert!(view(13, 0).pbe_descriptor().is_err());
        let mut unaligned = view(13, 4);
        unaligned.base += 4;
        assert!(unaligned.texture_descriptor().is_err());
        // Block-compressed formats are not texel buffer formats.
        assert!(view(131, 4).texture_descriptor().is_err());
        assert_eq!(element_texel(1023), (1023, 0));
        assert_eq!(element_texel(1024 * 5 + 3), (3, 5));
    }
}
