//! Texture, PBE and sampler descriptors built from an image description: the one place where a
//! Vulkan format, an ail [`Layout`] and a view range become the 24- and 8-byte words the
//! texture unit and the PBE read.
//!
//! Facts (channel and type encodings, which pipe format each `VkFormat` is, how the view range
//! lands in the first/last level, address and depth fields) follow Mesa's asahi driver. The
//! rules below marked **agx4** are our readings where Mesa is silent or where agx4 chooses:
//!
//! * **agx4**: a texture descriptor carries no level count; the texture unit rebuilds the
//!   layer stride from width, height, "unk mipmapped" (set: the whole mip chain is allocated,
//!   as [`Layout`] always does for more than one level; for 3D descriptors the chain counts
//!   depth, [`super::layout::full_chain`]), depth, samples and "page-aligned layers". The
//!   simulator addresses texels exactly that way.
//! * **agx4**: the PBE "levels" field holds the levels the layout allocated
//!   ([`Layout::levels`], the full chain), not the application's level count, so the same
//!   rebuild gives the same layer stride.
//! * **agx4**: PBE swizzle entry *j* names the shader component stored into memory channel *j*
//!   (the inverse of the texture swizzle), which is how Mesa derives it from the format.
//! * **agx4**: writes through a PBE descriptor with the null layout are dropped.
//! * Cube views count cubes in the depth field (Mesa divides the face count by 6); the
//!   faces of cube `c` are layers `6c..6c+6`.
//! * Packed 16-bit formats are described by the pipe format Mesa maps each `VkFormat` to:
//!   hardware channel 0 is in the lowest bits of the element.
//! * The sampler has no LOD bias field on G13: shaders add `mipLodBias` themselves (Mesa
//!   turns every implicit-LOD sample into a biased one).
//! * End-of-tile stores take [`PixelFormat::linear`]: the tilebuffer already holds sRGB-encoded
//!   values.

use super::control::descriptors::{
    BorderColour, Channel, Channels, CompareFunc, Filter, Layout as HwLayout, MipFilter, Pbe,
    SampleCount, Sampler, Texture, TextureDimension, TextureType, Wrap,
};
use super::layout::{Layout, LayoutError, Tiling};

pub mod atomic;
pub mod buffer;

/// How texels of an image are stored and read: the hardware channel layout and number type,
/// the swizzle from hardware channels to the R, G, B, A a shader sees, and sRGB decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelFormat {
    pub channels: Channels,
    pub texture_type: TextureType,
    /// `swizzle[c]` is the hardware channel (or constant) giving shader component `c`.
    pub swizzle: [Channel; 4],
    pub srgb: bool,
}

/// Bytes of one texel of a channel layout (uncompressed layouts only).
pub fn channels_bytes(c: Channels) -> Option<u32> {
    use Channels::*;
    Some(match c {
        R8 => 1,
        R16 | R8G8 | R5G6B5 | R4G4B4A4 | A1R5G5B5 | R5G5B5A1 => 2,
        R32 | R16G16 | R11G11B10 | R10G10B10A2 | R9G9B9E5 | R8G8B8A8 => 4,
        R32G32 | R16G16B16A16 => 8,
        R32G32B32A32 => 16,
        _ => return None,
    })
}

/// A texel block of a block-compressed channel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Texels across and down.
    pub width: u32,
    pub height: u32,
    /// Bytes of one block.
    pub bytes: u32,
}

/// The block of a block-compressed channel layout (ETC2/EAC, ASTC, BC1-BC7), `None` for
/// uncompressed layouts and PVRTC (not block-addressed, not modelled). Sizes are those of
/// the formats' specifications (Khronos Data Format Specification), which Mesa's
/// `util_format` block sizes repeat: 8-byte 4x4 blocks for BC1, BC4, ETC2 RGB8/RGB8A1 and
/// EAC R11; 16-byte 4x4 blocks for the other BC and ETC2/EAC formats; every ASTC block is
/// 16 bytes.
pub fn channels_block(c: Channels) -> Option<Block> {
    use Channels::*;
    let b = |width, height, bytes| {
        Some(Block {
            width,
            height,
            bytes,
        })
    };
    match c {
        Bc1 | Bc4 | Etc2Rgb8 | Etc2Rgb8A1 | EacR11 => b(4, 4, 8),
        Bc2 | Bc3 | Bc5 | Bc6h | Bc6hUfloat | Bc7 | Etc2Rgba8 | EacRg11 => b(4, 4, 16),
        Astc4x4 => b(4, 4, 16),
        Astc5x4 => b(5, 4, 16),
        Astc5x5 => b(5, 5, 16),
        Astc6x5 => b(6, 5, 16),
        Astc6x6 => b(6, 6, 16),
        Astc8x5 => b(8, 5, 16),
        Astc8x6 => b(8, 6, 16),
        Astc8x8 => b(8, 8, 16),
        Astc10x5 => b(10, 5, 16),
        Astc10x6 => b(10, 6, 16),
        Astc10x8 => b(10, 8, 16),
        Astc10x10 => b(10, 10, 16),
        Astc12x10 => b(12, 10, 16),
        Astc12x12 => b(12, 12, 16),
        _ => None,
    }
}

/// Hardware channels stored per texel of a channel layout.
pub fn channels_count(c: Channels) -> Option<u32> {
    use Channels::*;
    Some(match c {
        R8 | R16 | R32 => 1,
        R8G8 | R16G16 | R32G32 => 2,
        R5G6B5 | R11G11B10 | R9G9B9E5 => 3,
        R4G4B4A4 | A1R5G5B5 | R5G5B5A1 | R10G10B10A2 | R8G8B8A8 | R16G16B16A16 | R32G32B32A32 => 4,
        _ => return None,
    })
}

impl PixelFormat {
    /// Bytes of one texel, or of one block of a block-compressed format.
    pub fn bytes_per_block(&self) -> Option<u32> {
        channels_bytes(self.channels).or_else(|| channels_block(self.channels).map(|b| b.bytes))
    }

    /// Texels per block across and down: (1, 1) for uncompressed formats.
    pub fn block_dims(&self) -> (u32, u32) {
        channels_block(self.channels).map_or((1, 1), |b| (b.width, b.height))
    }

    /// This format seen through a view's component mapping: `view[c]` names the component
    /// of the format's R, G, B, A (or a constant) that becomes component `c`.
    pub fn with_view_swizzle(&self, view: [Channel; 4]) -> PixelFormat {
        let pick = |v: Channel| match v {
            Channel::R => self.swizzle[0],
            Channel::G => self.swizzle[1],
            Channel::B => self.swizzle[2],
            Channel::A => self.swizzle[3],
            k => k,
        };
        PixelFormat {
            swizzle: [pick(view[0]), pick(view[1]), pick(view[2]), pick(view[3])],
            ..*self
        }
    }

    /// The same storage without sRGB decoding (end-of-tile stores: the tilebuffer already
    /// holds encoded values).
    pub fn linear(&self) -> PixelFormat {
        PixelFormat {
            srgb: false,
            ..*self
        }
    }
}

const fn fmt(channels: Channels, texture_type: TextureType, swizzle: [Channel; 4]) -> PixelFormat {
    PixelFormat {
        channels,
        texture_type,
        swizzle,
        srgb: false,
    }
}

const fn srgb(f: PixelFormat) -> PixelFormat {
    PixelFormat { srgb: true, ..f }
}

/// Swizzles by how many channels a format has, in hardware channel order.
mod sw {
    use super::Channel;
    use super::Channel::{One, Zero, A, B, G, R};
    pub const X: [Channel; 4] = [R, Zero, Zero, One];
    pub const XY: [Channel; 4] = [R, G, Zero, One];
    pub const XYZ: [Channel; 4] = [R, G, B, One];
    pub const XYZW: [Channel; 4] = [R, G, B, A];
    /// Blue in channel 0, red in channel 2.
    pub const ZYX: [Channel; 4] = [B, G, R, One];
    pub const ZYXW: [Channel; 4] = [B, G, R, A];
    /// Only alpha, from channel 0.
    pub const ALPHA: [Channel; 4] = [Zero, Zero, Zero, R];
}

/// The hardware format of a `VkFormat` (its numeric value), for the colour formats agx4
/// renders to and samples from, and the depth/stencil formats for sampling (depth reads as
/// (D, 0, 0, 1), stencil as (S, 0, 0, 1)). `None` for everything else.
pub fn pixel_format(vk_format_raw: i32) -> Option<PixelFormat> {
    use Channels as C;
    use TextureType::{Float, Sint, Snorm, Uint, Unorm};
    // Per 8-bit-per-channel family: UNORM, SNORM, (USCALED, SSCALED skipped), UINT, SINT, SRGB.
    let eight = |base: i32, ch: Channels, swz: [Channel; 4]| -> Option<PixelFormat> {
        match vk_format_raw - base {
            0 => Some(fmt(ch, Unorm, swz)),
            1 => Some(fmt(ch, Snorm, swz)),
            4 => Some(fmt(ch, Uint, swz)),
            5 => Some(fmt(ch, Sint, swz)),
            6 => Some(srgb(fmt(ch, Unorm, swz))),
            _ => None,
        }
    };
    // 16-bit families: UNORM, SNORM, (scaled skipped), UINT, SINT, SFLOAT.
    let sixteen = |base: i32, ch: Channels, swz: [Channel; 4]| -> Option<PixelFormat> {
        match vk_format_raw - base {
            0 => Some(fmt(ch, Unorm, swz)),
            1 => Some(fmt(ch, Snorm, swz)),
            4 => Some(fmt(ch, Uint, swz)),
            5 => Some(fmt(ch, Sint, swz)),
            6 => Some(fmt(ch, Float, swz)),
            _ => None,
        }
    };
    // 32-bit families: UINT, SINT, SFLOAT.
    let thirty_two = |base: i32, ch: Channels, swz: [Channel; 4]| -> Option<PixelFormat> {
        match vk_format_raw - base {
            0 => Some(fmt(ch, Uint, swz)),
            1 => Some(fmt(ch, Sint, swz)),
            2 => Some(fmt(ch, Float, swz)),
            _ => None,
        }
    };
    use Channel::{A, B, G, R};
    match vk_format_raw {
        // R4G4B4A4_UNORM_PACK16: red in the top nibble, alpha in the bottom one.
        2 => Some(fmt(C::R4G4B4A4, Unorm, [A, B, G, R])),
        // B4G4R4A4_UNORM_PACK16: alpha low, then red, green, blue.
        3 => Some(fmt(C::R4G4B4A4, Unorm, [G, B, A, R])),
        // R5G6B5_UNORM_PACK16: blue in the low bits.
        4 => Some(fmt(C::R5G6B5, Unorm, sw::ZYX)),
        5 => Some(fmt(C::R5G6B5, Unorm, sw::XYZ)),
        // A1R5G5B5_UNORM_PACK16: blue low, alpha in bit 15.
        8 => Some(fmt(C::R5G5B5A1, Unorm, sw::ZYXW)),
        9..=15 => eight(9, C::R8, sw::X),
        16..=22 => eight(16, C::R8G8, sw::XY),
        37..=43 => eight(37, C::R8G8B8A8, sw::XYZW),
        44..=50 => eight(44, C::R8G8B8A8, sw::ZYXW),
        51..=57 => eight(51, C::R8G8B8A8, sw::XYZW),
        // A2R10G10B10: blue in the low bits.
        58 => Some(fmt(C::R10G10B10A2, Unorm, sw::ZYXW)),
        62 => Some(fmt(C::R10G10B10A2, Uint, sw::ZYXW)),
        // A2B10G10R10: red in the low bits.
        64 => Some(fmt(C::R10G10B10A2, Unorm, sw::XYZW)),
        68 => Some(fmt(C::R10G10B10A2, Uint, sw::XYZW)),
        70..=76 => sixteen(70, C::R16, sw::X),
        77..=83 => sixteen(77, C::R16G16, sw::XY),
        91..=97 => sixteen(91, C::R16G16B16A16, sw::XYZW),
        98..=100 => thirty_two(98, C::R32, sw::X),
        101..=103 => thirty_two(101, C::R32G32, sw::XY),
        107..=109 => thirty_two(107, C::R32G32B32A32, sw::XYZW),
        // B10G11R11_UFLOAT_PACK32: red in the low 11 bits.
        122 => Some(fmt(C::R11G11B10, Float, sw::XYZ)),
        123 => Some(fmt(C::R9G9B9E5, Float, sw::XYZ)),
        // D16_UNORM, D32_SFLOAT, S8_UINT, read as (value, 0, 0, 1).
        124 => Some(fmt(C::R16, Unorm, sw::X)),
        126 => Some(fmt(C::R32, Float, sw::X)),
        127 => Some(fmt(C::R8, Uint, sw::X)),
        // Block-compressed formats, as Mesa's ail format table maps them. The hardware has
        // one BC1 layout: the RGB variants read alpha as one through the swizzle (the
        // decoded transparent texel is black, so this is Vulkan's opaque-black rule).
        131 => Some(fmt(C::Bc1, Unorm, sw::XYZ)),
        132 => Some(srgb(fmt(C::Bc1, Unorm, sw::XYZ))),
        133 => Some(fmt(C::Bc1, Unorm, sw::XYZW)),
        134 => Some(srgb(fmt(C::Bc1, Unorm, sw::XYZW))),
        135 => Some(fmt(C::Bc2, Unorm, sw::XYZW)),
        136 => Some(srgb(fmt(C::Bc2, Unorm, sw::XYZW))),
        137 => Some(fmt(C::Bc3, Unorm, sw::XYZW)),
        138 => Some(srgb(fmt(C::Bc3, Unorm, sw::XYZW))),
        139 => Some(fmt(C::Bc4, Unorm, sw::X)),
        140 => Some(fmt(C::Bc4, Snorm, sw::X)),
        141 => Some(fmt(C::Bc5, Unorm, sw::XY)),
        142 => Some(fmt(C::Bc5, Snorm, sw::XY)),
        // BC6H_UFLOAT has its own layout; BC6H (0x79) is the signed one.
        143 => Some(fmt(C::Bc6hUfloat, Float, sw::XYZ)),
        144 => Some(fmt(C::Bc6h, Float, sw::XYZ)),
        145 => Some(fmt(C::Bc7, Unorm, sw::XYZW)),
        146 => Some(srgb(fmt(C::Bc7, Unorm, sw::XYZW))),
        147 => Some(fmt(C::Etc2Rgb8, Unorm, sw::XYZ)),
        148 => Some(srgb(fmt(C::Etc2Rgb8, Unorm, sw::XYZ))),
        149 => Some(fmt(C::Etc2Rgb8A1, Unorm, sw::XYZW)),
        150 => Some(srgb(fmt(C::Etc2Rgb8A1, Unorm, sw::XYZW))),
        151 => Some(fmt(C::Etc2Rgba8, Unorm, sw::XYZW)),
        152 => Some(srgb(fmt(C::Etc2Rgba8, Unorm, sw::XYZW))),
        153 => Some(fmt(C::EacR11, Unorm, sw::X)),
        154 => Some(fmt(C::EacR11, Snorm, sw::X)),
        155 => Some(fmt(C::EacRg11, Unorm, sw::XY)),
        156 => Some(fmt(C::EacRg11, Snorm, sw::XY)),
        // ASTC LDR: UNORM and sRGB pairs in Vulkan's block-size order, which is also the
        // hardware's (0x60..=0x6d).
        157..=184 => {
            let i = (vk_format_raw - 157) as u32;
            let ch = Channels::from_bits(u64::from(0x60 + i / 2)).ok()?;
            let f = fmt(ch, Unorm, sw::XYZW);
            Some(if i % 2 == 1 { srgb(f) } else { f })
        }
        // VK_FORMAT_A4R4G4B4_UNORM_PACK16 (alpha top, blue low).
        1_000_340_000 => Some(fmt(C::R4G4B4A4, Unorm, [B, G, R, A])),
        // VK_FORMAT_A4B4G4R4_UNORM_PACK16 (alpha top, red low).
        1_000_340_001 => Some(fmt(C::R4G4B4A4, Unorm, sw::XYZW)),
        // VK_FORMAT_A1B5G5R5_UNORM_PACK16 (red low, alpha in bit 15).
        1_000_470_000 => Some(fmt(C::R5G5B5A1, Unorm, sw::XYZW)),
        // VK_FORMAT_A8_UNORM.
        1_000_470_001 => Some(fmt(C::R8, Unorm, sw::ALPHA)),
        _ => None,
    }
}

/// An image as the descriptors see it: where it is, how it is laid out, what its texels are
/// and how the texture unit should treat its coordinates. The sample count is the layout's.
#[derive(Debug, Clone, Copy)]
pub struct ImageDesc<'a> {
    /// GPU address of layer 0, level 0 (16-byte aligned).
    pub base: u64,
    pub layout: &'a Layout,
    pub format: PixelFormat,
    pub dimension: TextureDimension,
}

fn invalid<T>(s: impl Into<String>) -> Result<T, LayoutError> {
    Err(LayoutError::Invalid(s.into()))
}

fn hw_layout(l: &Layout) -> HwLayout {
    match l.tiling {
        Tiling::Linear { .. } => HwLayout::Linear,
        Tiling::Twiddled => HwLayout::Twiddled,
    }
}

fn sample_count(samples: u32) -> Result<SampleCount, LayoutError> {
    match samples {
        1 | 2 => Ok(SampleCount::Two),
        4 => Ok(SampleCount::Four),
        n => invalid(format!("{n} samples")),
    }
}

/// Extension word of a linear array: layer count minus one in bits 0..11, and the layer
/// stride minus 128 in units of 128 bytes in bits 11..38 (Mesa's `depth_linear` and
/// `layer_stride_linear`).
pub fn linear_array_extension(layers: u32, layer_stride: u64) -> Result<u64, LayoutError> {
    if layers == 0 || layers > 2048 {
        return invalid(format!("{layers} layers in a linear array"));
    }
    if layer_stride < 128
        || !layer_stride.is_multiple_of(128)
        || (layer_stride - 128) >> 7 >= 1 << 27
    {
        return invalid(format!("linear layer stride {layer_stride}"));
    }
    Ok(u64::from(layers - 1) | (((layer_stride - 128) >> 7) << 11))
}

/// Inverse of [`linear_array_extension`]: (layers, layer stride in bytes).
pub fn linear_array_from_extension(ext: u64) -> (u32, u64) {
    let layers = (ext & 0x7ff) as u32 + 1;
    let stride = ((ext >> 11) & ((1 << 27) - 1)) * 128 + 128;
    (layers, stride)
}

fn check_common(img: &ImageDesc) -> Result<u32, LayoutError> {
    let l = img.layout;
    let bpp = img.format.bytes_per_block().ok_or_else(|| {
        LayoutError::Invalid(format!("{:?} is not modelled", img.format.channels))
    })?;
    if bpp != l.bytes_per_block {
        return invalid(format!(
            "format has {bpp}-byte texels but the layout {}-byte ones",
            l.bytes_per_block
        ));
    }
    if img.format.block_dims() != (l.block_width, l.block_height) {
        return invalid(format!(
            "format has {:?} blocks but the layout {}x{} ones",
            img.format.block_dims(),
            l.block_width,
            l.block_height
        ));
    }
    if !img.base.is_multiple_of(16) {
        return invalid(format!("image base {:#x} is not 16-byte aligned", img.base));
    }
    Ok(bpp)
}

fn layer_base(img: &ImageDesc, first_layer: u32, layers: u32) -> Result<u64, LayoutError> {
    let l = img.layout;
    if layers == 0
        || first_layer
            .checked_add(layers)
            .is_none_or(|end| end > l.layers)
    {
        return invalid(format!(
            "layers {first_layer}..+{layers} of an image with {} layers",
            l.layers
        ));
    }
    Ok(img.base + u64::from(first_layer) * l.layer_stride)
}

/// A texture descriptor for levels `first_level..first_level + levels` and layers
/// `first_layer..first_layer + layers` (for 3D images, `layers` is the slice count; for cube
/// dimensions, the face count, a multiple of 6).
pub fn texture_descriptor(
    img: &ImageDesc,
    first_level: u32,
    levels: u32,
    first_layer: u32,
    layers: u32,
) -> Result<[u8; 24], LayoutError> {
    let l = img.layout;
    check_common(img)?;
    if levels == 0
        || first_level
            .checked_add(levels)
            .is_none_or(|end| end > l.levels)
    {
        return invalid(format!(
            "levels {first_level}..+{levels} of an image with {} levels",
            l.levels
        ));
    }
    let address = layer_base(img, first_layer, layers)?;
    let linear = matches!(l.tiling, Tiling::Linear { .. });
    let f = img.format;
    let two_channel = channels_count(f.channels) == Some(2);
    let mut t = Texture {
        dimension: img.dimension,
        layout: hw_layout(l),
        channels: f.channels,
        texture_type: f.texture_type,
        swizzle: f.swizzle,
        width: l.width,
        height: l.height,
        first_level,
        last_level: first_level + levels - 1,
        samples: sample_count(l.samples)?,
        address,
        unk_mipmapped: l.levels > 1,
        compressed_1: false,
        null: false,
        compression: 0,
        srgb: f.srgb,
        srgb_2_channel: f.srgb && two_channel,
        stride: 0,
        depth: 1,
        page_aligned_layers: false,
        extended: false,
        extension: 0,
    };
    if linear {
        if !(16..=(1 << 20)).contains(&l.linear_stride) {
            return invalid(format!("linear stride {}", l.linear_stride));
        }
        t.stride = l.linear_stride;
        if layers > 1 {
            t.extended = true;
            t.extension = linear_array_extension(layers, l.layer_stride)?;
        }
    } else {
        // Cube views count cubes, not faces (Mesa divides the layer count by 6).
        let cube = matches!(
            img.dimension,
            TextureDimension::Cube | TextureDimension::CubeArray
        );
        if cube && !layers.is_multiple_of(6) {
            return invalid(format!("a cube view of {layers} layers"));
        }
        let depth = if cube { layers / 6 } else { layers };
        if depth > 16384 {
            return invalid(format!("{layers} layers"));
        }
        t.depth = depth;
        t.page_aligned_layers = l.page_aligned_layers;
    }
    Ok(t.pack())
}

/// The texture descriptor of an unbound (null) view, as Mesa packs it: the null layout with
/// every component swizzled to zero, so reads give (0, 0, 0, 0).
pub fn null_texture_descriptor() -> [u8; 24] {
    Texture {
        dimension: TextureDimension::D2,
        layout: HwLayout::Null,
        channels: Channels::R8,
        texture_type: TextureType::Unorm,
        swizzle: [Channel::Zero; 4],
        width: 1,
        height: 1,
        first_level: 0,
        last_level: 0,
        samples: SampleCount::Two,
        address: 0,
        unk_mipmapped: false,
        compressed_1: false,
        null: true,
        compression: 0,
        srgb: false,
        srgb_2_channel: false,
        stride: 0,
        depth: 1,
        page_aligned_layers: false,
        extended: false,
        extension: 0,
    }
    .pack()
}

/// The PBE descriptor of an unbound storage image: the null layout; **agx4** drops writes
/// through it.
pub fn null_pbe_descriptor() -> [u8; 24] {
    let p = Pbe {
        dimension: TextureDimension::D2,
        layout: HwLayout::Null,
        channels: Channels::R8,
        texture_type: TextureType::Unorm,
        swizzle: [Channel::R, Channel::G, Channel::B, Channel::A],
        width: 1,
        height: 1,
        unk_52: false,
        rotate_90: false,
        flip_vertical: false,
        samples: SampleCount::Two,
        unk_mipmapped: false,
        compressed_1: false,
        buffer: 0,
        level: 0,
        levels: 1,
        layers: 1,
        stride: 0,
        page_aligned_layers: false,
        srgb: false,
        extended: false,
        extension: 0,
    };
    // The swizzle only names R, G, B and A, so packing cannot fail.
    p.pack().unwrap_or([0; 24])
}

/// A PBE descriptor storing level `level` of layer `layer`.
pub fn pbe_descriptor(img: &ImageDesc, level: u32, layer: u32) -> Result<[u8; 24], LayoutError> {
    pbe_descriptor_layers(img, level, layer, 1)
}

/// A PBE descriptor storing level `level` of layers `first_layer..first_layer + layers`
/// (`image_write` then picks the layer relative to `first_layer`).
pub fn pbe_descriptor_layers(
    img: &ImageDesc,
    level: u32,
    first_layer: u32,
    layers: u32,
) -> Result<[u8; 24], LayoutError> {
    let l = img.layout;
    check_common(img)?;
    // The PBE writes texels, never compressed blocks.
    if img.format.block_dims() != (1, 1) {
        return invalid(format!("a PBE for {:?} blocks", img.format.channels));
    }
    if level >= l.levels {
        return invalid(format!(
            "level {level} of an image with {} levels",
            l.levels
        ));
    }
    let buffer = layer_base(img, first_layer, layers)?;
    let f = img.format;
    // Memory channel j receives the shader component whose format swizzle reads channel j.
    let mut swizzle = [Channel::R; 4];
    let hw = [Channel::R, Channel::G, Channel::B, Channel::A];
    for (j, slot) in swizzle.iter_mut().enumerate() {
        if let Some(c) = f.swizzle.iter().position(|&s| s == hw[j]) {
            *slot = hw[c];
        }
    }
    let linear = matches!(l.tiling, Tiling::Linear { .. });
    let mut p = Pbe {
        dimension: img.dimension,
        layout: hw_layout(l),
        channels: f.channels,
        texture_type: f.texture_type,
        swizzle,
        width: l.width,
        height: l.height,
        unk_52: false,
        rotate_90: false,
        flip_vertical: false,
        samples: sample_count(l.samples)?,
        unk_mipmapped: l.levels > 1,
        compressed_1: false,
        buffer,
        level,
        levels: 1,
        layers: 1,
        stride: 0,
        page_aligned_layers: false,
        srgb: f.srgb,
        extended: false,
        extension: 0,
    };
    if linear {
        if !(4..=(1 << 21)).contains(&l.linear_stride) {
            return invalid(format!("linear stride {}", l.linear_stride));
        }
        p.stride = l.linear_stride;
        if layers > 1 {
            p.extended = true;
            p.extension = linear_array_extension(layers, l.layer_stride)?;
        }
    } else {
        if layers > 16384 {
            return invalid(format!("{layers} layers"));
        }
        p.levels = l.levels;
        p.layers = layers;
        p.page_aligned_layers = l.page_aligned_layers;
    }
    p.pack()
        .map_err(|e| LayoutError::Invalid(format!("PBE descriptor: {e}")))
}

/// What a sampler does, in Vulkan's terms (see the `from_vk_*` helpers for the enum values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerDesc {
    pub mag_filter: Filter,
    pub min_filter: Filter,
    pub mip_filter: MipFilter,
    /// U, V, W.
    pub wrap: [Wrap; 3],
    /// Shadow comparison, when enabled.
    pub compare: Option<CompareFunc>,
    pub min_lod: f32,
    pub max_lod: f32,
    /// 1 when anisotropy is off; rounded up to a power of two, at most 16.
    pub max_anisotropy: u32,
    pub border: BorderColour,
    pub unnormalized_coordinates: bool,
    pub seamful_cube_maps: bool,
}

impl Default for SamplerDesc {
    fn default() -> SamplerDesc {
        SamplerDesc {
            mag_filter: Filter::Nearest,
            min_filter: Filter::Nearest,
            mip_filter: MipFilter::Nearest,
            wrap: [Wrap::ClampToEdge; 3],
            compare: None,
            min_lod: 0.0,
            max_lod: 14.0,
            max_anisotropy: 1,
            border: BorderColour::TransparentBlack,
            unnormalized_coordinates: false,
            seamful_cube_maps: false,
        }
    }
}

/// An 8-byte sampler descriptor. Lod bias is not a sampler field on G13: the shader adds it.
pub fn sampler_descriptor(s: &SamplerDesc) -> [u8; 8] {
    let aniso = s.max_anisotropy.clamp(1, 16).next_power_of_two();
    Sampler {
        min_lod: super::control::descriptors::lod_to_fixed(s.min_lod),
        max_lod: super::control::descriptors::lod_to_fixed(s.max_lod),
        max_anisotropy: aniso,
        magnify: s.mag_filter,
        minify: s.min_filter,
        mip_filter: s.mip_filter,
        wrap: s.wrap,
        pixel_coordinates: s.unnormalized_coordinates,
        compare_func: s.compare.unwrap_or(CompareFunc::Lequal),
        compare_enable: s.compare.is_some(),
        border_colour: s.border,
        seamful_cube_maps: s.seamful_cube_maps,
    }
    .pack()
}

/// `VkFilter` (NEAREST 0, LINEAR 1).
pub fn filter_from_vk(v: i32) -> Option<Filter> {
    match v {
        0 => Some(Filter::Nearest),
        1 => Some(Filter::Linear),
        _ => None,
    }
}

/// `VkSamplerMipmapMode` (NEAREST 0, LINEAR 1).
pub fn mip_filter_from_vk(v: i32) -> Option<MipFilter> {
    match v {
        0 => Some(MipFilter::Nearest),
        1 => Some(MipFilter::Linear),
        _ => None,
    }
}

/// `VkSamplerAddressMode`.
pub fn wrap_from_vk(v: i32) -> Option<Wrap> {
    match v {
        0 => Some(Wrap::Repeat),
        1 => Some(Wrap::MirroredRepeat),
        2 => Some(Wrap::ClampToEdge),
        3 => Some(Wrap::ClampToBorder),
        4 => Some(Wrap::MirroredClampToEdge),
        _ => None,
    }
}

/// `VkCompareOp` for shadow samplers.
pub fn compare_from_vk(v: i32) -> Option<CompareFunc> {
    match v {
        0 => Some(CompareFunc::Never),
        1 => Some(CompareFunc::Less),
        2 => Some(CompareFunc::Equal),
        3 => Some(CompareFunc::Lequal),
        4 => Some(CompareFunc::Greater),
        5 => Some(CompareFunc::NotEqual),
        6 => Some(CompareFunc::Gequal),
        7 => Some(CompareFunc::Always),
        _ => None,
    }
}

/// `VkBorderColor` for the built-in colours (float and int alike); custom colours need the
/// extended sampler heap and return `None`.
pub fn border_from_vk(v: i32) -> Option<BorderColour> {
    match v {
        0 | 1 => Some(BorderColour::TransparentBlack),
        2 | 3 => Some(BorderColour::OpaqueBlack),
        4 | 5 => Some(BorderColour::OpaqueWhite),
        _ => None,
    }
}

/// `VkComponentSwizzle` of a view, with IDENTITY (0) meaning `identity`.
pub fn view_channel_from_vk(v: i32, identity: Channel) -> Option<Channel> {
    match v {
        0 => Some(identity),
        1 => Some(Channel::Zero),
        2 => Some(Channel::One),
        3 => Some(Channel::R),
        4 => Some(Channel::G),
        5 => Some(Channel::B),
        6 => Some(Channel::A),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
