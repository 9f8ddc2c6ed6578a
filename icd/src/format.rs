//! The colour formats agx4 makes images of, with their texel sizes, and the packing of clear
//! colours into texels. Transfers copy bytes, so a format matters only for its size and for
//! clears.

use ash::vk;
use compiler::{AttribComponent, VertexFormat};
use hw::g13::control::descriptors::{Channels, TextureType};
use hw::g13::image_desc::{pixel_format, PixelFormat};
use hw::g13::tilebuffer::{ColourFormat, Numeric};

/// How a format's channels are encoded, for packing clear colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Sfloat,
    /// sRGB-encoded UNORM.
    Srgb,
    /// Packed formats with their own bit layouts.
    Packed(Packed),
    /// Depth or stencil: one plane, no colour clears.
    DepthStencil,
    /// Block-compressed (BC, ETC2/EAC, ASTC LDR): `bytes` per block of `block` texels. Only
    /// sampled and copied: the PBE writes texels, never blocks.
    Compressed {
        bytes: u32,
        block: (u32, u32),
    },
}

/// How the fields of a packed format read as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PackedNumeric {
    Unorm,
    Uint,
    /// Unsigned floats with a 5-bit exponent (the 11- and 10-bit ones).
    Ufloat,
    /// Unsigned 9-bit mantissas sharing the 5-bit exponent in bits 27..32 (E5B9G9R9).
    SharedExponent,
}

/// A packed format: the texel size and, for R, G, B and A in that order, the bit offset and
/// width of its field in the little-endian texel (width 0: the format lacks the channel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Packed {
    bytes: u32,
    fields: [(u32, u32); 4],
    numeric: PackedNumeric,
}

impl Packed {
    /// Bits of each of R, G, B, A (0 when absent).
    fn widths(&self) -> [u32; 4] {
        self.fields.map(|(_, w)| w)
    }
}

/// The packed formats agx4 knows.
fn packed(format: vk::Format) -> Option<Packed> {
    use vk::Format as F;
    use PackedNumeric as N;
    let p = |bytes, fields, numeric| {
        Some(Packed {
            bytes,
            fields,
            numeric,
        })
    };
    match format {
        F::R4G4B4A4_UNORM_PACK16 => p(2, [(12, 4), (8, 4), (4, 4), (0, 4)], N::Unorm),
        F::B4G4R4A4_UNORM_PACK16 => p(2, [(4, 4), (8, 4), (12, 4), (0, 4)], N::Unorm),
        // VK_EXT_4444_formats (core in Vulkan 1.3): alpha in the top nibble.
        F::A4R4G4B4_UNORM_PACK16 => p(2, [(8, 4), (4, 4), (0, 4), (12, 4)], N::Unorm),
        F::A4B4G4R4_UNORM_PACK16 => p(2, [(0, 4), (4, 4), (8, 4), (12, 4)], N::Unorm),
        F::R5G6B5_UNORM_PACK16 => p(2, [(11, 5), (5, 6), (0, 5), (0, 0)], N::Unorm),
        F::B5G6R5_UNORM_PACK16 => p(2, [(0, 5), (5, 6), (11, 5), (0, 0)], N::Unorm),
        F::A1R5G5B5_UNORM_PACK16 => p(2, [(10, 5), (5, 5), (0, 5), (15, 1)], N::Unorm),
        F::A2R10G10B10_UNORM_PACK32 => p(4, [(20, 10), (10, 10), (0, 10), (30, 2)], N::Unorm),
        F::A2B10G10R10_UNORM_PACK32 => p(4, [(0, 10), (10, 10), (20, 10), (30, 2)], N::Unorm),
        F::A2B10G10R10_UINT_PACK32 => p(4, [(0, 10), (10, 10), (20, 10), (30, 2)], N::Uint),
        F::B10G11R11_UFLOAT_PACK32 => p(4, [(0, 11), (11, 11), (22, 10), (0, 0)], N::Ufloat),
        F::E5B9G9R9_UFLOAT_PACK32 => p(4, [(0, 9), (9, 9), (18, 9), (0, 0)], N::SharedExponent),
        _ => None,
    }
}

/// A format: channel count, bits per channel, encoding, and whether it is stored B, G, R, A.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    channels: u32,
    bits: u32,
    kind: Kind,
    bgra: bool,
}

impl Format {
    pub fn bytes_per_texel(&self) -> u32 {
        match self.kind {
            Kind::Packed(p) => p.bytes,
            Kind::Compressed { bytes, .. } => bytes,
            _ => self.channels * self.bits / 8,
        }
    }

    /// Texels of one block (width, height): (1, 1) unless block-compressed. Transfers and
    /// layouts count in blocks, so `bytes_per_texel` is then the bytes of one block.
    pub fn block(&self) -> (u32, u32) {
        match self.kind {
            Kind::Compressed { block, .. } => block,
            _ => (1, 1),
        }
    }

    pub fn is_compressed(&self) -> bool {
        matches!(self.kind, Kind::Compressed { .. })
    }
}

/// The block-compressed formats agx4 offers (BC1-7, ETC2/EAC and the 2D ASTC LDR footprints:
/// VkFormat 131 to 184), with the block size from the hardware format table. The simulated
/// texture unit decodes UNORM ASTC at FP16 precision, as Vulkan requires without
/// VK_EXT_astc_decode_mode (hw gpu::texel::astc).
fn compressed(format: vk::Format) -> Option<Format> {
    if !(131..=184).contains(&format.as_raw()) {
        return None;
    }
    let p = pixel_format(format.as_raw())?;
    Some(Format {
        channels: 4,
        bits: 0,
        kind: Kind::Compressed {
            bytes: p.bytes_per_block()?,
            block: p.block_dims(),
        },
        bgra: false,
    })
}

/// The supported formats, or `None`.
pub fn get(format: vk::Format) -> Option<Format> {
    use vk::Format as F;
    let f = |channels, bits, kind| {
        Some(Format {
            channels,
            bits,
            kind,
            bgra: false,
        })
    };
    if let Some(p) = packed(format) {
        let channels = p.widths().iter().filter(|&&w| w != 0).count() as u32;
        return f(channels, 0, Kind::Packed(p));
    }
    if let Some(c) = compressed(format) {
        return Some(c);
    }
    match format {
        F::R8_UNORM => f(1, 8, Kind::Unorm),
        F::R8_SNORM => f(1, 8, Kind::Snorm),
        F::R8_UINT => f(1, 8, Kind::Uint),
        F::R8_SINT => f(1, 8, Kind::Sint),
        F::R8_SRGB => f(1, 8, Kind::Srgb),
        F::R8G8_UNORM => f(2, 8, Kind::Unorm),
        F::R8G8_SNORM => f(2, 8, Kind::Snorm),
        F::R8G8_UINT => f(2, 8, Kind::Uint),
        F::R8G8_SINT => f(2, 8, Kind::Sint),
        F::R8G8_SRGB => f(2, 8, Kind::Srgb),
        F::R8G8B8A8_UNORM => f(4, 8, Kind::Unorm),
        F::R8G8B8A8_SNORM => f(4, 8, Kind::Snorm),
        F::R8G8B8A8_UINT => f(4, 8, Kind::Uint),
        F::R8G8B8A8_SINT => f(4, 8, Kind::Sint),
        F::R8G8B8A8_SRGB => f(4, 8, Kind::Srgb),
        // Packed into a little-endian word, A8B8G8R8 is R8G8B8A8 byte for byte.
        F::A8B8G8R8_UNORM_PACK32 => f(4, 8, Kind::Unorm),
        F::A8B8G8R8_SNORM_PACK32 => f(4, 8, Kind::Snorm),
        F::A8B8G8R8_UINT_PACK32 => f(4, 8, Kind::Uint),
        F::A8B8G8R8_SINT_PACK32 => f(4, 8, Kind::Sint),
        F::A8B8G8R8_SRGB_PACK32 => f(4, 8, Kind::Srgb),
        F::B8G8R8A8_UNORM => Some(Format {
            channels: 4,
            bits: 8,
            kind: Kind::Unorm,
            bgra: true,
        }),
        F::B8G8R8A8_SRGB => Some(Format {
            channels: 4,
            bits: 8,
            kind: Kind::Srgb,
            bgra: true,
        }),
        F::R16_UNORM => f(1, 16, Kind::Unorm),
        F::R16_SNORM => f(1, 16, Kind::Snorm),
        F::R16_UINT => f(1, 16, Kind::Uint),
        F::R16_SINT => f(1, 16, Kind::Sint),
        F::R16_SFLOAT => f(1, 16, Kind::Sfloat),
        F::R16G16_UNORM => f(2, 16, Kind::Unorm),
        F::R16G16_SNORM => f(2, 16, Kind::Snorm),
        F::R16G16_UINT => f(2, 16, Kind::Uint),
        F::R16G16_SINT => f(2, 16, Kind::Sint),
        F::R16G16_SFLOAT => f(2, 16, Kind::Sfloat),
        F::R16G16B16A16_UNORM => f(4, 16, Kind::Unorm),
        F::R16G16B16A16_SNORM => f(4, 16, Kind::Snorm),
        F::R16G16B16A16_UINT => f(4, 16, Kind::Uint),
        F::R16G16B16A16_SINT => f(4, 16, Kind::Sint),
        F::R16G16B16A16_SFLOAT => f(4, 16, Kind::Sfloat),
        F::R32_UINT => f(1, 32, Kind::Uint),
        F::R32_SINT => f(1, 32, Kind::Sint),
        F::R32_SFLOAT => f(1, 32, Kind::Sfloat),
        F::R32G32_UINT => f(2, 32, Kind::Uint),
        F::R32G32_SINT => f(2, 32, Kind::Sint),
        F::R32G32_SFLOAT => f(2, 32, Kind::Sfloat),
        F::R32G32B32A32_UINT => f(4, 32, Kind::Uint),
        F::R32G32B32A32_SINT => f(4, 32, Kind::Sint),
        F::R32G32B32A32_SFLOAT => f(4, 32, Kind::Sfloat),
        F::D16_UNORM => f(1, 16, Kind::DepthStencil),
        F::D32_SFLOAT => f(1, 32, Kind::DepthStencil),
        F::S8_UINT => f(1, 8, Kind::DepthStencil),
        // The depth plane; the stencil plane is the image's second (image.rs).
        F::D32_SFLOAT_S8_UINT => f(1, 32, Kind::DepthStencil),
        _ => None,
    }
}

/// Whether the texture unit reads images of `format` with `tiling`: the formats agx4 makes
/// images of that have a hardware pixel format (`hw::g13::image_desc::pixel_format`), and
/// D32_SFLOAT_S8_UINT, whose views read one aspect, each with its own plane's format. Linear
/// images (2D, one level, one layer) are sampled for uncompressed colour formats only:
/// depth/stencil and block-compressed images are never linear.
pub fn sampleable(format: vk::Format, tiling: vk::ImageTiling) -> bool {
    let Some(f) = get(format) else {
        return false;
    };
    let depth_stencil = f.kind == Kind::DepthStencil;
    if tiling != vk::ImageTiling::OPTIMAL && (depth_stencil || f.is_compressed()) {
        return false;
    }
    format == vk::Format::D32_SFLOAT_S8_UINT || pixel_format(format.as_raw()).is_some()
}

/// Whether images of `format` with `tiling` may be storage images: the texture unit reads
/// them (loads, through the texture descriptor) and the PBE writes them (`image_write`,
/// through the PBE descriptor), both in the format's own encoding. That is every plain UNORM,
/// SNORM, UINT, SINT and SFLOAT format of one, two or four channels, and the packed
/// A2B10G10R10 UNORM/UINT and B10G11R11 float ones (Vulkan's mandatory and extended storage
/// formats). sRGB formats are not: Vulkan gives storage images no sRGB conversion, while the
/// hardware's sRGB bit would convert. Linear images (2D, one level, one layer) are written
/// row by row through the same descriptors' stride.
pub fn storage(format: vk::Format, tiling: vk::ImageTiling) -> bool {
    let Some(f) = get(format) else {
        return false;
    };
    if !matches!(tiling, vk::ImageTiling::OPTIMAL | vk::ImageTiling::LINEAR)
        || pixel_format(format.as_raw()).is_none_or(|p| p.srgb)
    {
        return false;
    }
    match f.kind {
        Kind::Unorm | Kind::Snorm | Kind::Uint | Kind::Sint | Kind::Sfloat => !f.bgra,
        Kind::Packed(_) => matches!(
            format,
            vk::Format::A2B10G10R10_UNORM_PACK32
                | vk::Format::A2B10G10R10_UINT_PACK32
                | vk::Format::B10G11R11_UFLOAT_PACK32
        ),
        Kind::Srgb | Kind::DepthStencil | Kind::Compressed { .. } => false,
    }
}

/// Whether storage images (optimal tiling) and storage texel buffers of `format` take atomics:
/// the 32-bit integer formats, whose texels the shader reaches with global atomics
/// (docs/render-abi.md 7.2). Float atomics (VK_EXT_shader_atomic_float) are not offered.
pub fn storage_atomic(format: vk::Format) -> bool {
    matches!(format, vk::Format::R32_UINT | vk::Format::R32_SINT)
}

/// Whether sampled images of `format` may be filtered linearly: every sampled format whose
/// texels are not integers (the filter takes integer formats' nearest texel only), depth
/// included; not stencil.
pub fn linear_filterable(format: vk::Format) -> bool {
    use hw::g13::control::descriptors::TextureType as T;
    if format == vk::Format::D32_SFLOAT_S8_UINT {
        return true;
    }
    get(format).is_some()
        && pixel_format(format.as_raw())
            .is_some_and(|p| !matches!(p.texture_type, T::Uint | T::Sint))
}

/// Every format agx4 knows: the core formats (raw values 1 to 184) and the extension formats
/// (VK_EXT_4444_formats) that `get` accepts.
pub fn all() -> impl Iterator<Item = vk::Format> {
    (1..=184)
        .chain([1_000_340_000, 1_000_340_001])
        .map(vk::Format::from_raw)
        .filter(|&f| get(f).is_some())
}

/// Whether `format` is one of the packed formats (its own bit layout, not whole bytes per
/// channel).
pub fn is_packed(format: vk::Format) -> bool {
    packed(format).is_some()
}

/// Whether a view of `view` format may see an image of `image` format created with
/// VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT: both in one of Vulkan's format compatibility classes.
/// Every uncompressed colour format agx4 knows falls in the class of its texel size, while
/// each depth/stencil format is a class of its own. Images are laid out by texel size alone
/// (`hw::g13::layout`), so compatible formats address the same bytes.
pub fn view_compatible(image: vk::Format, view: vk::Format) -> bool {
    match (get(image), get(view)) {
        _ if image == view => get(image).is_some(),
        // Each compressed class is one UNORM/SRGB (or UNORM/SNORM, UFLOAT/SFLOAT) pair, and
        // the pairs are neighbours in VkFormat's numbering, starting at 131.
        (Some(i), Some(v)) if i.is_compressed() || v.is_compressed() => {
            i.is_compressed()
                && v.is_compressed()
                && (image.as_raw() - 131) / 2 == (view.as_raw() - 131) / 2
        }
        (Some(i), Some(v)) => {
            i.kind != Kind::DepthStencil
                && v.kind != Kind::DepthStencil
                && i.bytes_per_texel() == v.bytes_per_texel()
        }
        _ => false,
    }
}

/// How a colour attachment of `format` is rendered: its generation-neutral format, the
/// descriptor channel layout and numeric type, and the pixel format its texture and PBE
/// descriptors use. `None` for formats agx4 does not render to.
#[derive(Clone, Copy, Debug)]
pub struct Renderable {
    pub colour: ColourFormat,
    pub texture_type: TextureType,
    /// How texture and PBE descriptors see it.
    pub pixel: PixelFormat,
}

impl Renderable {
    /// Shaders may blend into it (normalised and float formats).
    pub fn blendable(&self) -> bool {
        !matches!(self.texture_type, TextureType::Uint | TextureType::Sint)
    }
}

/// The colour formats agx4 renders to (see [`Renderable`]).
pub fn renderable(format: vk::Format) -> Option<Renderable> {
    let f = get(format)?;
    let (numeric, texture_type) = match f.kind {
        Kind::Unorm => (Numeric::Unorm, TextureType::Unorm),
        Kind::Snorm => (Numeric::Snorm, TextureType::Snorm),
        Kind::Uint => (Numeric::Uint, TextureType::Uint),
        Kind::Sint => (Numeric::Sint, TextureType::Sint),
        Kind::Sfloat => (Numeric::Float, TextureType::Float),
        Kind::Packed(p) => return renderable_packed(format, p),
        // The tilebuffer holds sRGB as four encoded bytes; one- and two-channel sRGB
        // targets are not tested, so only the four-channel ones are offered.
        Kind::Srgb if f.channels == 4 => (Numeric::Srgb, TextureType::Unorm),
        Kind::Srgb | Kind::DepthStencil | Kind::Compressed { .. } => return None,
    };
    let channels = match (f.channels, f.bits) {
        (1, 8) => Channels::R8,
        (2, 8) => Channels::R8G8,
        (4, 8) => Channels::R8G8B8A8,
        (1, 16) => Channels::R16,
        (2, 16) => Channels::R16G16,
        (4, 16) => Channels::R16G16B16A16,
        (1, 32) => Channels::R32,
        (2, 32) => Channels::R32G32,
        (4, 32) => Channels::R32G32B32A32,
        _ => return None,
    };
    let colour = ColourFormat::Plain {
        channels: f.channels as u8,
        bits: f.bits as u8,
        numeric,
    };
    colour.tib_format()?;
    let pixel = pixel_format(format.as_raw())?;
    if pixel.channels != channels {
        return None;
    }
    Some(Renderable {
        colour,
        texture_type,
        pixel,
    })
}

/// The packed colour formats agx4 renders to, by their fields. The tilebuffer format each
/// goes through is Mesa's choice (`ColourFormat::tib_format`): the 16-bit ones as half
/// floats, 10:10:10:2 UNORM and 11:11:10 float natively, 10:10:10:2 UINT as 16-bit
/// integers; the PBE then stores the format's own layout, its channel order being the pixel
/// format's swizzle. Layouts the PBE has no channel layout for (alpha in the low bit, as in
/// R5G5B5A1_UNORM_PACK16) are not renderable.
fn renderable_packed(format: vk::Format, p: Packed) -> Option<Renderable> {
    use PackedNumeric as N;
    let (colour, channels) = match (p.numeric, p.widths()) {
        (N::Unorm, [5, 6, 5, 0]) => (ColourFormat::R5G6B5Unorm, Channels::R5G6B5),
        (N::Unorm, [5, 5, 5, 1]) => (ColourFormat::R5G5B5A1Unorm, Channels::R5G5B5A1),
        (N::Unorm, [4, 4, 4, 4]) => (ColourFormat::R4G4B4A4Unorm, Channels::R4G4B4A4),
        (N::Unorm, [10, 10, 10, 2]) => (ColourFormat::Rgb10A2Unorm, Channels::R10G10B10A2),
        (N::Uint, [10, 10, 10, 2]) => (ColourFormat::Rgb10A2Uint, Channels::R10G10B10A2),
        (N::Ufloat, [11, 11, 10, 0]) => (ColourFormat::Rg11B10Float, Channels::R11G11B10),
        _ => return None,
    };
    // R4G4B4A4_UNORM_PACK16 and the alpha-first 4444 formats differ from B4G4R4A4 only in
    // their swizzle, but the reference renderer the scenes compare against has no
    // attachments of them (Vulkan requires none): untested, not offered.
    if matches!(
        format,
        vk::Format::R4G4B4A4_UNORM_PACK16
            | vk::Format::A4R4G4B4_UNORM_PACK16
            | vk::Format::A4B4G4R4_UNORM_PACK16
    ) {
        return None;
    }
    colour.tib_format()?;
    let pixel = pixel_format(format.as_raw())?;
    if pixel.channels != channels {
        return None;
    }
    Some(Renderable {
        colour,
        texture_type: pixel.texture_type,
        pixel,
    })
}

/// Bits of R, G, B, A of the packed UNORM formats the tilebuffer holds as half floats, whose
/// clear colours are quantised before they reach it: blending then reads the destination the
/// stored format would hold, as it does after a load.
fn half_float_packed_bits(c: ColourFormat) -> Option<[u32; 4]> {
    match c {
        ColourFormat::R5G6B5Unorm => Some([5, 6, 5, 0]),
        ColourFormat::R5G5B5A1Unorm => Some([5, 5, 5, 1]),
        ColourFormat::R4G4B4A4Unorm => Some([4, 4, 4, 4]),
        _ => None,
    }
}

/// How a depth plane stores a depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthFormat {
    Unorm16,
    Float32,
}

impl DepthFormat {
    /// The texel that stores depth `d` (clamped to [0, 1]): UNORM16 rounds to nearest.
    pub fn texel(self, d: f32) -> u32 {
        let d = d.clamp(0.0, 1.0);
        match self {
            DepthFormat::Unorm16 => (d * 65535.0).round() as u32,
            DepthFormat::Float32 => d.to_bits(),
        }
    }
}

/// The depth/stencil attachment formats, by their first plane: depth, or stencil.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthStencil {
    Depth(DepthFormat),
    Stencil,
}

/// The aspects of a depth/stencil attachment format: the depth plane's format, if any,
/// and whether it has stencil. D32_SFLOAT_S8_UINT is its depth plane for
/// [`depth_stencil`], with the stencil in a second plane (image.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aspects {
    pub depth: Option<DepthFormat>,
    pub stencil: bool,
}

pub fn aspects(format: vk::Format) -> Option<Aspects> {
    match format {
        vk::Format::D32_SFLOAT_S8_UINT => Some(Aspects {
            depth: Some(DepthFormat::Float32),
            stencil: true,
        }),
        f => match depth_stencil(f)? {
            DepthStencil::Depth(z) => Some(Aspects {
                depth: Some(z),
                stencil: false,
            }),
            DepthStencil::Stencil => Some(Aspects {
                depth: None,
                stencil: true,
            }),
        },
    }
}

pub fn depth_stencil(format: vk::Format) -> Option<DepthStencil> {
    match format {
        vk::Format::D16_UNORM => Some(DepthStencil::Depth(DepthFormat::Unorm16)),
        vk::Format::D32_SFLOAT => Some(DepthStencil::Depth(DepthFormat::Float32)),
        vk::Format::S8_UINT => Some(DepthStencil::Stencil),
        vk::Format::D32_SFLOAT_S8_UINT => Some(DepthStencil::Depth(DepthFormat::Float32)),
        _ => None,
    }
}

/// The vertex attribute format the compiler fetches for `format`, or `None` for formats
/// agx4 cannot fetch.
pub fn vertex_format(format: vk::Format) -> Option<VertexFormat> {
    use compiler::PackedNumeric as P;
    use vk::Format as F;
    use AttribComponent as C;
    let packed = |numeric, bgra| Some(VertexFormat::Packed1010102 { numeric, bgra });
    let plain = |comp, count| {
        Some(VertexFormat::Plain {
            comp,
            count,
            bgra: false,
        })
    };
    match format {
        F::R32_SFLOAT => plain(C::F32, 1),
        F::R32G32_SFLOAT => plain(C::F32, 2),
        F::R32G32B32_SFLOAT => plain(C::F32, 3),
        F::R32G32B32A32_SFLOAT => plain(C::F32, 4),
        F::R32_UINT => plain(C::U32, 1),
        F::R32G32_UINT => plain(C::U32, 2),
        F::R32G32B32_UINT => plain(C::U32, 3),
        F::R32G32B32A32_UINT => plain(C::U32, 4),
        F::R32_SINT => plain(C::S32, 1),
        F::R32G32_SINT => plain(C::S32, 2),
        F::R32G32B32_SINT => plain(C::S32, 3),
        F::R32G32B32A32_SINT => plain(C::S32, 4),
        F::R16_SFLOAT => plain(C::F16, 1),
        F::R16G16_SFLOAT => plain(C::F16, 2),
        F::R16G16B16_SFLOAT => plain(C::F16, 3),
        F::R16G16B16A16_SFLOAT => plain(C::F16, 4),
        F::R8_UNORM => plain(C::Unorm8, 1),
        F::R8G8_UNORM => plain(C::Unorm8, 2),
        F::R8G8B8_UNORM => plain(C::Unorm8, 3),
        F::R8G8B8A8_UNORM => plain(C::Unorm8, 4),
        F::B8G8R8A8_UNORM => Some(VertexFormat::Plain {
            comp: C::Unorm8,
            count: 4,
            bgra: true,
        }),
        F::R8_SNORM => plain(C::Snorm8, 1),
        F::R8G8_SNORM => plain(C::Snorm8, 2),
        F::R8G8B8_SNORM => plain(C::Snorm8, 3),
        F::R8G8B8A8_SNORM => plain(C::Snorm8, 4),
        // A8B8G8R8 packed in a little-endian word is R8G8B8A8 byte for byte.
        F::A8B8G8R8_UNORM_PACK32 => plain(C::Unorm8, 4),
        F::A8B8G8R8_SNORM_PACK32 => plain(C::Snorm8, 4),
        F::A8B8G8R8_UINT_PACK32 => plain(C::Uint8, 4),
        F::A8B8G8R8_SINT_PACK32 => plain(C::Sint8, 4),
        F::R8_UINT => plain(C::Uint8, 1),
        F::R8G8_UINT => plain(C::Uint8, 2),
        F::R8G8B8_UINT => plain(C::Uint8, 3),
        F::R8G8B8A8_UINT => plain(C::Uint8, 4),
        F::R8_SINT => plain(C::Sint8, 1),
        F::R8G8_SINT => plain(C::Sint8, 2),
        F::R8G8B8_SINT => plain(C::Sint8, 3),
        F::R8G8B8A8_SINT => plain(C::Sint8, 4),
        F::R8_USCALED => plain(C::Uscaled8, 1),
        F::R8G8_USCALED => plain(C::Uscaled8, 2),
        F::R8G8B8_USCALED => plain(C::Uscaled8, 3),
        F::R8G8B8A8_USCALED => plain(C::Uscaled8, 4),
        F::R8_SSCALED => plain(C::Sscaled8, 1),
        F::R8G8_SSCALED => plain(C::Sscaled8, 2),
        F::R8G8B8_SSCALED => plain(C::Sscaled8, 3),
        F::R8G8B8A8_SSCALED => plain(C::Sscaled8, 4),
        F::R16_UNORM => plain(C::Unorm16, 1),
        F::R16G16_UNORM => plain(C::Unorm16, 2),
        F::R16G16B16_UNORM => plain(C::Unorm16, 3),
        F::R16G16B16A16_UNORM => plain(C::Unorm16, 4),
        F::R16_SNORM => plain(C::Snorm16, 1),
        F::R16G16_SNORM => plain(C::Snorm16, 2),
        F::R16G16B16_SNORM => plain(C::Snorm16, 3),
        F::R16G16B16A16_SNORM => plain(C::Snorm16, 4),
        F::R16_UINT => plain(C::Uint16, 1),
        F::R16G16_UINT => plain(C::Uint16, 2),
        F::R16G16B16_UINT => plain(C::Uint16, 3),
        F::R16G16B16A16_UINT => plain(C::Uint16, 4),
        F::R16_SINT => plain(C::Sint16, 1),
        F::R16G16_SINT => plain(C::Sint16, 2),
        F::R16G16B16_SINT => plain(C::Sint16, 3),
        F::R16G16B16A16_SINT => plain(C::Sint16, 4),
        F::R16_USCALED => plain(C::Uscaled16, 1),
        F::R16G16_USCALED => plain(C::Uscaled16, 2),
        F::R16G16B16_USCALED => plain(C::Uscaled16, 3),
        F::R16G16B16A16_USCALED => plain(C::Uscaled16, 4),
        F::R16_SSCALED => plain(C::Sscaled16, 1),
        F::R16G16_SSCALED => plain(C::Sscaled16, 2),
        F::R16G16B16_SSCALED => plain(C::Sscaled16, 3),
        F::R16G16B16A16_SSCALED => plain(C::Sscaled16, 4),
        F::A2B10G10R10_UNORM_PACK32 => packed(P::Unorm, false),
        F::A2B10G10R10_SNORM_PACK32 => packed(P::Snorm, false),
        F::A2B10G10R10_UINT_PACK32 => packed(P::Uint, false),
        F::A2B10G10R10_SINT_PACK32 => packed(P::Sint, false),
        F::A2B10G10R10_USCALED_PACK32 => packed(P::Uscaled, false),
        F::A2B10G10R10_SSCALED_PACK32 => packed(P::Sscaled, false),
        F::A2R10G10B10_UNORM_PACK32 => packed(P::Unorm, true),
        F::A2R10G10B10_SNORM_PACK32 => packed(P::Snorm, true),
        F::A2R10G10B10_UINT_PACK32 => packed(P::Uint, true),
        F::A2R10G10B10_SINT_PACK32 => packed(P::Sint, true),
        F::A2R10G10B10_USCALED_PACK32 => packed(P::Uscaled, true),
        F::A2R10G10B10_SSCALED_PACK32 => packed(P::Sscaled, true),
        _ => None,
    }
}

/// The clear colour of a render target as the background program's uniforms want it: four
/// 32-bit words, floats for normalised and float formats, integers for integer formats
/// (docs/render-abi.md section 2). Out-of-range values are clamped to what the format holds.
pub fn clear_words(r: &Renderable, value: &vk::ClearColorValue) -> [u32; 4] {
    // SAFETY: every member of the union is plain data of the same 16 bytes.
    let (f, u, i) = unsafe { (value.float32, value.uint32, value.int32) };
    let mut out = [0u32; 4];
    let quantise = half_float_packed_bits(r.colour);
    for c in 0..4 {
        out[c] = match r.texture_type {
            TextureType::Unorm if quantise.is_some_and(|b| b[c] != 0) => {
                let max = quantise.map_or(1, |b| (1u32 << b[c]) - 1) as f32;
                (norm(f[c], 0.0, max) as f32 / max).to_bits()
            }
            TextureType::Unorm => f[c].clamp(0.0, 1.0).to_bits(),
            TextureType::Snorm => f[c].clamp(-1.0, 1.0).to_bits(),
            // 10:10:10:2 UINT goes through 16-bit tile integers, which would keep the low
            // bits of a larger value; saturate it as the PBE would.
            TextureType::Uint if r.colour == ColourFormat::Rgb10A2Uint => {
                u[c].min(if c == 3 { 3 } else { 1023 })
            }
            TextureType::Uint | TextureType::Sint => {
                if r.texture_type == TextureType::Uint {
                    u[c]
                } else {
                    i[c] as u32
                }
            }
            _ => f[c].to_bits(),
        };
    }
    out
}

/// IEEE half from a float, rounding to nearest even (infinities and NaN kept).
pub fn f32_to_f16(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // Normal halves keep 10 mantissa bits; subnormal ones fewer, with the implicit one shifted in.
    let (full, shift, base) = if e <= 0 {
        if e < -10 {
            return sign;
        }
        (man | 0x80_0000, (14 - e) as u32, 0u32)
    } else {
        (man, 13, (e as u32) << 10)
    };
    let kept = full >> shift;
    let rest = full & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round = u32::from(rest > half || (rest == half && kept & 1 == 1));
    sign | (base + kept + round) as u16
}

/// An unsigned float with a 5-bit exponent and `mantissa` bits (the 11- and 10-bit floats of
/// B10G11R11_UFLOAT_PACK32) from a float: negative values and -0 become 0, NaN stays NaN,
/// values beyond the largest finite one become infinity, the rest round to nearest even.
/// An E5B9G9R9 texel of `rgb`, by the Vulkan specification's "RGB to Shared Exponent
/// Conversion" (9-bit mantissas, exponent bias 15, largest exponent 31).
fn shared_exponent(rgb: [f32; 3]) -> u32 {
    const N: i32 = 9;
    const B: i32 = 15;
    let max = (((1 << N) - 1) as f32 / (1 << N) as f32) * 2f32.powi(31 - B);
    // NaN clamps to 0 (f32::max returns the number).
    let c = rgb.map(|v| v.max(0.0).min(max));
    let max_c = c[0].max(c[1]).max(c[2]);
    let floor_log2 = if max_c > 0.0 {
        max_c.log2().floor() as i32
    } else {
        -B - 1
    };
    let mut exp = floor_log2.max(-B - 1) + 1 + B;
    let scale = |e: i32| 2f32.powi(e - B - N);
    let max_s = (max_c / scale(exp) + 0.5).floor() as i32;
    if max_s >= 1 << N {
        exp += 1;
    }
    let [r, g, b] = c.map(|v| (v / scale(exp) + 0.5).floor() as u32);
    (exp as u32) << 27 | b << 18 | g << 9 | r
}

fn f32_to_ufloat(v: f32, mantissa: u32) -> u32 {
    let inf = 0x1f << mantissa;
    if v.is_nan() {
        return inf | 1;
    }
    if v <= 0.0 {
        return 0;
    }
    // The half-float conversion rounds to 10 mantissa bits; rounding that again would round
    // twice, so round from the f32 bits directly.
    let b = v.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    if exp >= 0x1f {
        return inf;
    }
    let man = b & 0x7f_ffff;
    let (full, shift, base) = if exp <= 0 {
        // Subnormal: the implicit one joins the mantissa, shifted further right.
        let shift = (23 - mantissa as i32 + 1 - exp) as u32;
        if shift > 24 {
            return 0;
        }
        (man | 0x80_0000, shift, 0)
    } else {
        (man, 23 - mantissa, (exp as u32) << mantissa)
    };
    let kept = full >> shift;
    let rest = full & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let round = u32::from(rest > half || (rest == half && kept & 1 == 1));
    // A carry out of the mantissa steps the exponent, up to infinity: the encoding is ordered.
    (base + kept + round).min(inf)
}

/// `c` in [lo, 1] scaled to `max` and rounded to the nearest integer (Vulkan's UNORM/SNORM
/// conversion).
fn norm(c: f32, lo: f32, max: f32) -> i64 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(lo, 1.0) };
    (c * max).round() as i64
}

/// Linear `c` to the sRGB encoding, both in [0, 1] (the standard transfer function).
fn srgb_encode(c: f32) -> f32 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// The clear colour `value` as one texel of `format`, or `None` for formats whose clears are
/// not implemented (depth/stencil).
pub fn pack_clear(format: &Format, value: &vk::ClearColorValue) -> Option<Vec<u8>> {
    // SAFETY: every member of the union is plain data of the same 16 bytes.
    let (f, u, i) = unsafe { (value.float32, value.uint32, value.int32) };
    let mut out = Vec::new();
    match format.kind {
        Kind::DepthStencil | Kind::Compressed { .. } => return None,
        Kind::Packed(p) if p.numeric == PackedNumeric::SharedExponent => {
            out.extend_from_slice(&shared_exponent([f[0], f[1], f[2]]).to_le_bytes());
        }
        Kind::Packed(p) => {
            let mut word = 0u32;
            for (c, &(at, width)) in p.fields.iter().enumerate() {
                if width == 0 {
                    continue;
                }
                let max = (1u32 << width) - 1;
                let v = match p.numeric {
                    PackedNumeric::Unorm => norm(f[c], 0.0, max as f32) as u32,
                    // Integer clears keep the low bits of the value, as for plain formats.
                    PackedNumeric::Uint => u[c] & max,
                    PackedNumeric::Ufloat => f32_to_ufloat(f[c], width - 5),
                    PackedNumeric::SharedExponent => unreachable!("packed above"),
                };
                word |= v << at;
            }
            out.extend_from_slice(&word.to_le_bytes()[..p.bytes as usize]);
        }
        kind => {
            let order: [usize; 4] = if format.bgra {
                [2, 1, 0, 3]
            } else {
                [0, 1, 2, 3]
            };
            for &c in &order[..format.channels as usize] {
                let bits = format.bits;
                let max = ((1u64 << (bits - 1)) * 2 - 1) as f32;
                let v: u64 = match kind {
                    Kind::Unorm => norm(f[c], 0.0, max) as u64,
                    Kind::Srgb if c < 3 => norm(srgb_encode(f[c]), 0.0, max) as u64,
                    Kind::Srgb => norm(f[c], 0.0, max) as u64,
                    Kind::Snorm => norm(f[c], -1.0, ((1u64 << (bits - 1)) - 1) as f32) as u64,
                    // Integer clears keep the low bits of the value, as a store of it would.
                    Kind::Uint => u64::from(u[c]),
                    Kind::Sint => i[c] as u64,
                    Kind::Sfloat if bits == 16 => u64::from(f32_to_f16(f[c])),
                    Kind::Sfloat => u64::from(f[c].to_bits()),
                    _ => return None,
                };
                out.extend_from_slice(&v.to_le_bytes()[..bits as usize / 8]);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clear(format: vk::Format, value: vk::ClearColorValue) -> Vec<u8> {
        pack_clear(&get(format).unwrap(), &value).unwrap()
    }

    #[test]
    fn view_compatibility_classes() {
        use vk::Format as F;
        // The 32-bit class holds four-byte colour formats whatever their channels.
        assert!(view_compatible(F::R8G8B8A8_UNORM, F::R32_UINT));
        assert!(view_compatible(F::R8G8B8A8_UNORM, F::B8G8R8A8_SRGB));
        assert!(view_compatible(
            F::A2B10G10R10_UNORM_PACK32,
            F::R16G16_SFLOAT
        ));
        assert!(view_compatible(F::R5G6B5_UNORM_PACK16, F::R8G8_UINT));
        assert!(!view_compatible(F::R8G8B8A8_UNORM, F::R16G16B16A16_UNORM));
        assert!(!view_compatible(F::R8_UNORM, F::R16_UNORM));
        // Depth/stencil formats are each alone in their class.
        assert!(view_compatible(F::D32_SFLOAT, F::D32_SFLOAT));
        assert!(!view_compatible(F::D32_SFLOAT, F::R32_SFLOAT));
        assert!(!view_compatible(F::R32_UINT, F::D32_SFLOAT));
        assert!(!view_compatible(F::D16_UNORM, F::R16_UNORM));
        assert!(!view_compatible(F::UNDEFINED, F::UNDEFINED));
    }

    #[test]
    fn sizes() {
        for (f, n) in [
            (vk::Format::R8_UNORM, 1),
            (vk::Format::R5G6B5_UNORM_PACK16, 2),
            (vk::Format::R8G8B8A8_SRGB, 4),
            (vk::Format::A2B10G10R10_UNORM_PACK32, 4),
            (vk::Format::R16G16B16A16_SFLOAT, 8),
            (vk::Format::R32G32B32A32_UINT, 16),
        ] {
            assert_eq!(get(f).unwrap().bytes_per_texel(), n, "{f:?}");
        }
        assert!(get(vk::Format::D24_UNORM_S8_UINT).is_none());
        assert!(renderable(vk::Format::D32_SFLOAT).is_none());
    }

    #[test]
    fn clear_packing() {
        let fl = |v: [f32; 4]| vk::ClearColorValue { float32: v };
        assert_eq!(
            clear(vk::Format::R8G8B8A8_UNORM, fl([1.0, 0.5, 0.0, 2.0])),
            [255, 128, 0, 255]
        );
        assert_eq!(
            clear(vk::Format::B8G8R8A8_UNORM, fl([1.0, 0.5, 0.0, 0.2])),
            [0, 128, 255, 51]
        );
        assert_eq!(
            clear(vk::Format::R8_SNORM, fl([-1.0, 0.0, 0.0, 0.0])),
            [0x81]
        );
        assert_eq!(
            clear(vk::Format::R16_SFLOAT, fl([1.0, 0.0, 0.0, 0.0])),
            [0x00, 0x3c]
        );
        assert_eq!(
            clear(vk::Format::R16_SFLOAT, fl([-2.5, 0.0, 0.0, 0.0])),
            0xc100u16.to_le_bytes()
        );
        assert_eq!(
            clear(vk::Format::R16_SFLOAT, fl([65504.0, 0.0, 0.0, 0.0])),
            0x7bffu16.to_le_bytes()
        );
        assert_eq!(
            clear(vk::Format::R16_SFLOAT, fl([1e-7, 0.0, 0.0, 0.0])),
            0x0002u16.to_le_bytes()
        );
        assert_eq!(
            clear(vk::Format::R5G6B5_UNORM_PACK16, fl([1.0, 0.0, 1.0, 0.0])),
            0xf81fu16.to_le_bytes()
        );
        assert_eq!(
            clear(
                vk::Format::A2B10G10R10_UNORM_PACK32,
                fl([1.0, 0.0, 0.0, 1.0])
            ),
            0xc000_03ffu32.to_le_bytes()
        );
        let u = vk::ClearColorValue {
            uint32: [0x1234_5678, 7, 0, 0],
        };
        assert_eq!(clear(vk::Format::R16G16_UINT, u), [0x78, 0x56, 7, 0]);
        let i = vk::ClearColorValue {
            int32: [-2, 3, 0, 0],
        };
        assert_eq!(
            clear(vk::Format::R32G32_SINT, i),
            [0xfe, 0xff, 0xff, 0xff, 3, 0, 0, 0]
        );
        // 0.5 linear is 0.7354 encoded: 187.5 rounds to 188; alpha is not encoded.
        assert_eq!(
            clear(vk::Format::R8G8B8A8_SRGB, fl([0.5, 1.0, 0.0, 0.5])),
            [188, 255, 0, 128]
        );
        assert_eq!(
            clear(vk::Format::B8G8R8A8_SRGB, fl([0.0, 0.002, 0.5, 1.0])),
            [188, 7, 0, 255]
        );
    }

    #[test]
    fn shared_exponent_clears() {
        use vk::Format as F;
        let e5 = |v: [f32; 4]| {
            let f = get(F::E5B9G9R9_UFLOAT_PACK32).unwrap();
            let b = pack_clear(&f, &vk::ClearColorValue { float32: v }).unwrap();
            u32::from_le_bytes(b.try_into().unwrap())
        };
        // 1.0 is 256 * 2^(16 - 15 - 9): exponent 16, red mantissa 256.
        assert_eq!(e5([1.0, 0.0, 0.0, 0.0]), 16 << 27 | 256);
        // The largest channel sets the exponent: 0.5 -> 2^-1 = 256 * 2^(15-15-9); 0.25 and
        // 0.125 share it as 128 and 64. Alpha is ignored.
        assert_eq!(
            e5([0.25, 0.5, 0.125, 7.0]),
            15 << 27 | 64 << 18 | 256 << 9 | 128
        );
        // Rounding the largest mantissa up to 512 moves to the next exponent: 511.75 / 512.
        assert_eq!(e5([0.999_5, 0.0, 0.0, 0.0]), 16 << 27 | 256);
        // Negative values and NaN clamp to 0; huge ones to the largest value, 511 * 2^7.
        assert_eq!(e5([-1.0, f32::NAN, 0.0, 0.0]), 0);
        assert_eq!(e5([1e30, 0.0, 0.0, 0.0]), 31 << 27 | 511);
    }

    #[test]
    fn packed_clear_packing() {
        use vk::Format as F;
        let fl = |v: [f32; 4]| vk::ClearColorValue { float32: v };
        // Red in the top nibble of R4G4B4A4, in the second nibble of B4G4R4A4.
        assert_eq!(
            clear(F::R4G4B4A4_UNORM_PACK16, fl([1.0, 0.0, 0.0, 0.0])),
            0xf000u16.to_le_bytes()
        );
        assert_eq!(
            clear(F::B4G4R4A4_UNORM_PACK16, fl([1.0, 0.0, 0.0, 0.0])),
            0x00f0u16.to_le_bytes()
        );
        assert_eq!(
            clear(F::B4G4R4A4_UNORM_PACK16, fl([0.0, 0.0, 0.0, 1.0])),
            0x000fu16.to_le_bytes()
        );
        // B5G6R5 has red in the low bits; A1R5G5B5 alpha in bit 15 and blue in the low bits.
        assert_eq!(
            clear(F::B5G6R5_UNORM_PACK16, fl([1.0, 0.0, 0.0, 0.0])),
            0x001fu16.to_le_bytes()
        );
        assert_eq!(
            clear(F::A1R5G5B5_UNORM_PACK16, fl([0.0, 0.0, 1.0, 1.0])),
            0x801fu16.to_le_bytes()
        );
        assert_eq!(
            clear(F::A1R5G5B5_UNORM_PACK16, fl([1.0, 0.0, 0.0, 0.4])),
            0x7c00u16.to_le_bytes()
        );
        assert_eq!(
            clear(F::A2R10G10B10_UNORM_PACK32, fl([1.0, 0.0, 0.0, 1.0])),
            0xfff0_0000u32.to_le_bytes()
        );
        let u = vk::ClearColorValue {
            uint32: [5, 1023, 1024, 2],
        };
        assert_eq!(
            clear(F::A2B10G10R10_UINT_PACK32, u),
            (5u32 | 1023 << 10 | 2 << 30).to_le_bytes()
        );
        // 1.0 is exponent 15 (bias 15), mantissa 0, in each of the 11-, 11- and 10-bit floats.
        let one = 15u32 << 6 | (15 << 6) << 11 | (15 << 5) << 22;
        assert_eq!(
            clear(F::B10G11R11_UFLOAT_PACK32, fl([1.0, 1.0, 1.0, 0.0])),
            one.to_le_bytes()
        );
        assert_eq!(
            clear(F::B10G11R11_UFLOAT_PACK32, fl([-2.0, 0.0, 0.0, 0.0])),
            [0; 4]
        );
    }

    #[test]
    fn unsigned_small_floats() {
        assert_eq!(f32_to_ufloat(1.0, 6), 15 << 6);
        assert_eq!(f32_to_ufloat(0.5 + 1.0 / 128.0, 6), 14 << 6 | 1);
        // Halfway between mantissas 1 and 2 of exponent 14: ties to even.
        assert_eq!(f32_to_ufloat(0.5 + 3.0 / 256.0, 6), 14 << 6 | 2);
        // The largest finite 11-bit float is 65024; far beyond it is infinity.
        assert_eq!(f32_to_ufloat(65024.0, 6), 30 << 6 | 63);
        assert_eq!(f32_to_ufloat(1e9, 6), 31 << 6);
        assert_eq!(f32_to_ufloat(f32::NAN, 5) >> 5, 31);
        assert_ne!(f32_to_ufloat(f32::NAN, 5) & 31, 0);
        // Denormals: the 10-bit float steps by 2^-14 / 2^5 = 2^-19 below 2^-14.
        assert_eq!(f32_to_ufloat(2f32.powi(-19), 5), 1);
        assert_eq!(f32_to_ufloat(3.0 * 2f32.powi(-19), 5), 3);
        assert_eq!(f32_to_ufloat(2f32.powi(-14), 6), 1 << 6);
    }

    #[test]
    fn packed_attachments() {
        use vk::Format as F;
        let r = |f| renderable(f).map(|r| r.colour);
        assert_eq!(r(F::R5G6B5_UNORM_PACK16), Some(ColourFormat::R5G6B5Unorm));
        assert_eq!(r(F::B5G6R5_UNORM_PACK16), Some(ColourFormat::R5G6B5Unorm));
        assert_eq!(
            r(F::B4G4R4A4_UNORM_PACK16),
            Some(ColourFormat::R4G4B4A4Unorm)
        );
        assert_eq!(
            r(F::A1R5G5B5_UNORM_PACK16),
            Some(ColourFormat::R5G5B5A1Unorm)
        );
        assert_eq!(
            r(F::A2R10G10B10_UNORM_PACK32),
            Some(ColourFormat::Rgb10A2Unorm)
        );
        assert_eq!(
            r(F::A2B10G10R10_UINT_PACK32),
            Some(ColourFormat::Rgb10A2Uint)
        );
        assert_eq!(
            r(F::B10G11R11_UFLOAT_PACK32),
            Some(ColourFormat::Rg11B10Float)
        );
        assert!(!renderable(F::A2B10G10R10_UINT_PACK32).unwrap().blendable());
        // No PBE layout has alpha in the low bit; R4G4B4A4 is not tested against a reference.
        assert!(renderable(F::R5G5B5A1_UNORM_PACK16).is_none());
        assert!(renderable(F::R4G4B4A4_UNORM_PACK16).is_none());
        assert!(renderable(F::E5B9G9R9_UFLOAT_PACK32).is_none());
        // Clears of half-float-backed formats reach the tilebuffer quantised: 0.5 is 15.5/31,
        // which rounds to 16/31; 6-bit green keeps 0.5 as 31.5/63 -> 32/63.
        let w = clear_words(
            &renderable(F::R5G6B5_UNORM_PACK16).unwrap(),
            &vk::ClearColorValue {
                float32: [0.5, 0.5, 2.0, 0.3],
            },
        );
        assert_eq!(
            w[..3],
            [
                (16.0f32 / 31.0).to_bits(),
                (32.0f32 / 63.0).to_bits(),
                1.0f32.to_bits()
            ]
        );
        let w = clear_words(
            &renderable(F::A2B10G10R10_UINT_PACK32).unwrap(),
            &vk::ClearColorValue {
                uint32: [7, 5000, 1023, 9],
            },
        );
        assert_eq!(w, [7, 1023, 1023, 3]);
    }

    #[test]
    fn render_and_vertex_formats() {
        let r = renderable(vk::Format::R8G8B8A8_UNORM).unwrap();
        assert!(r.blendable());
        assert_eq!(
            r.colour,
            ColourFormat::Plain {
                channels: 4,
                bits: 8,
                numeric: Numeric::Unorm
            }
        );
        assert!(!renderable(vk::Format::R32_UINT).unwrap().blendable());
        let srgb = renderable(vk::Format::R8G8B8A8_SRGB).unwrap();
        assert!(srgb.blendable());
        assert_eq!(
            srgb.colour,
            ColourFormat::Plain {
                channels: 4,
                bits: 8,
                numeric: Numeric::Srgb
            }
        );
        assert!(renderable(vk::Format::B8G8R8A8_SRGB).is_some());
        assert!(renderable(vk::Format::R8_SRGB).is_none());
        assert!(renderable(vk::Format::D16_UNORM).is_none());
        assert_eq!(
            vertex_format(vk::Format::R32G32B32_SFLOAT),
            Some(VertexFormat::Plain {
                comp: AttribComponent::F32,
                count: 3,
                bgra: false
            })
        );
        assert_eq!(
            vertex_format(vk::Format::B8G8R8A8_UNORM),
            Some(VertexFormat::Plain {
                comp: AttribComponent::Unorm8,
                count: 4,
                bgra: true
            })
        );
        assert!(vertex_format(vk::Format::R64_SFLOAT).is_none());
        assert_eq!(
            aspects(vk::Format::D32_SFLOAT_S8_UINT),
            Some(Aspects {
                depth: Some(DepthFormat::Float32),
                stencil: true
            })
        );
        assert_eq!(
            aspects(vk::Format::S8_UINT),
            Some(Aspects {
                depth: None,
                stencil: true
            })
        );
    }

    #[test]
    fn clear_words_are_shader_values() {
        let unorm = renderable(vk::Format::R8G8B8A8_UNORM).unwrap();
        let w = clear_words(
            &unorm,
            &vk::ClearColorValue {
                float32: [0.5, 2.0, -1.0, 1.0],
            },
        );
        assert_eq!(
            w,
            [
                0.5f32.to_bits(),
                1.0f32.to_bits(),
                0.0f32.to_bits(),
                1.0f32.to_bits()
            ]
        );
        let sint = renderable(vk::Format::R16G16_SINT).unwrap();
        assert_eq!(
            clear_words(
                &sint,
                &vk::ClearColorValue {
                    int32: [-3, 4, 0, 0]
                }
            ),
            [(-3i32) as u32, 4, 0, 0]
        );
    }
}
