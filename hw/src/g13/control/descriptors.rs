//! Memory descriptors the shaders and the tile hardware read: texture, PBE (pixel back end,
//! the store side of an image), sampler and border colour, scissor and depth-bias array
//! entries, coefficient-fetch bindings, and the ZLS (depth/stencil load/store) control word.
//!
//! Field positions are cmdbuf.xml's; where a range of bits means different things depending
//! on the layout (linear stride or mip/array extent), the struct holds the meaning and the
//! packer picks the encoding from the layout.

use super::bits::{bad, need, Field, Modifier};
use crate::WordError;

/// Declares a hardware enum with its bit values; `from_bits` refuses values the description
/// does not define.
macro_rules! hw_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $n:expr),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            pub fn bits(self) -> u64 {
                match self { $($name::$v => $n),+ }
            }

            pub fn from_bits(v: u64) -> Result<$name, WordError> {
                match v {
                    $(x if x == $n => Ok($name::$v),)+
                    _ => Err(bad(format!(concat!(stringify!($name), " value {} is not defined"), v))),
                }
            }
        }
    };
}
pub(crate) use hw_enum;

/// Store `value - 1` (the genxml `minus(1)` modifier, which the shared field table lacks).
pub(super) fn put_m1(f: Field, b: &mut [u8], value: u32) {
    f.put(b, u64::from(value.wrapping_sub(1)));
}

pub(super) fn get_m1(f: Field, b: &[u8]) -> u32 {
    f.get(b) as u32 + 1
}

#[inline(always)]
pub(super) fn put_bool(f: Field, b: &mut [u8], v: bool) {
    f.put(b, v.into());
}

#[inline(always)]
pub(super) fn get_bool(f: Field, b: &[u8]) -> bool {
    f.get(b) != 0
}

pub(super) fn put_f32(f: Field, b: &mut [u8], v: f32) {
    f.put(b, v.to_bits().into());
}

pub(super) fn get_f32(f: Field, b: &[u8]) -> f32 {
    f32::from_bits(f.get(b) as u32)
}

/// Bits set in `b` outside `fields` (only the first `len` bytes are checked).
pub(super) fn stray_bits(b: &[u8], len: usize, fields: &[Field]) -> Option<u32> {
    let mut known = vec![0u8; len];
    for f in fields {
        for i in f.start..f.start + f.width {
            if let Some(x) = known.get_mut((i / 8) as usize) {
                *x |= 1 << (i % 8);
            }
        }
    }
    (0..len * 8)
        .find(|&i| b[i / 8] & !known[i / 8] & (1 << (i % 8)) != 0)
        .map(|i| i as u32)
}

/// Fails when a bit outside `fields` is set: a word whose meaning agx4 cannot know.
pub(super) fn no_stray(
    b: &[u8],
    len: usize,
    fields: &[Field],
    what: &str,
) -> Result<(), WordError> {
    match stray_bits(b, len, fields) {
        Some(bit) => Err(bad(format!(
            "{what}: bit {bit} is set but has no known meaning"
        ))),
        None => Ok(()),
    }
}

hw_enum!(
    /// A swizzle source.
    Channel { R = 0, G = 1, B = 2, A = 3, One = 4, Zero = 5 }
);

hw_enum!(
    /// Depth and stencil test functions (fragment face and stencil words).
    ZsFunc { Never = 0, Less = 1, Equal = 2, Lequal = 3, Greater = 4, NotEqual = 5, Gequal = 6, Always = 7 }
);

hw_enum!(
    /// Shadow-sampler comparisons: note the order differs from [`ZsFunc`].
    CompareFunc { Lequal = 0, Gequal = 1, Less = 2, Greater = 3, Equal = 4, NotEqual = 5, Always = 6, Never = 7 }
);

hw_enum!(
    StencilOp { Keep = 0, Zero = 1, Replace = 2, IncrSat = 3, DecrSat = 4, Invert = 5, IncrWrap = 6, DecrWrap = 7 }
);

hw_enum!(
    /// Memory layout of an image.
    Layout { Linear = 0, Null = 1, Twiddled = 2, Compressed = 3 }
);

hw_enum!(
    /// Channel layouts of texels (the "Channels" enum). `R32G32B32Emulated` is Mesa's software
    /// value, never read by hardware.
    Channels {
        R8 = 0x00, R16 = 0x09, R8G8 = 0x0a, R5G6B5 = 0x0b, R4G4B4A4 = 0x0c, A1R5G5B5 = 0x0d,
        R5G5B5A1 = 0x0e, R32 = 0x21, R16G16 = 0x23, R11G11B10 = 0x25, R10G10B10A2 = 0x26,
        R9G9B9E5 = 0x27, R8G8B8A8 = 0x28, R32G32 = 0x31, R16G16B16A16 = 0x32,
        R32G32B32Emulated = 0x36, R32G32B32A32 = 0x38, Gbgr422 = 0x40, Bgrg422 = 0x41,
        Pvrtc2bpp = 0x50, Pvrtc4bpp = 0x51, Etc2Rgb8 = 0x58, Etc2Rgba8 = 0x59,
        Etc2Rgb8A1 = 0x5a, EacR11 = 0x5b, EacRg11 = 0x5c, Astc4x4 = 0x60, Astc5x4 = 0x61,
        Astc5x5 = 0x62, Astc6x5 = 0x63, Astc6x6 = 0x64, Astc8x5 = 0x65, Astc8x6 = 0x66,
        Astc8x8 = 0x67, Astc10x5 = 0x68, Astc10x6 = 0x69, Astc10x8 = 0x6a, Astc10x10 = 0x6b,
        Astc12x10 = 0x6c, Astc12x12 = 0x6d, Bc1 = 0x74, Bc2 = 0x75, Bc3 = 0x76, Bc4 = 0x77,
        Bc5 = 0x78, Bc6h = 0x79, Bc6hUfloat = 0x7a, Bc7 = 0x7b,
    }
);

hw_enum!(
    /// How channel bits are interpreted.
    TextureType { Unorm = 0, Snorm = 1, Uint = 2, Sint = 3, Float = 4, Xr = 5 }
);

hw_enum!(
    TextureDimension {
        D1 = 0, D1Array = 1, D2 = 2, D2Array = 3, D2Multisampled = 4, D3 = 5, Cube = 6,
        CubeArray = 7, D2ArrayMultisampled = 8,
    }
);

hw_enum!(
    /// Samples of a multisampled image (a 1-bit field: 2 or 4).
    SampleCount { Two = 0, Four = 1 }
);

hw_enum!(
    Wrap { ClampToEdge = 0, Repeat = 1, MirroredRepeat = 2, ClampToBorder = 3, ClampGl = 4, MirroredClampToEdge = 5 }
);

hw_enum!(MipFilter { None = 0, Nearest = 1, Linear = 2 });

hw_enum!(BorderColour { TransparentBlack = 0, OpaqueBlack = 1, OpaqueWhite = 2, Custom = 3 });

hw_enum!(Filter { Nearest = 0, Linear = 1, Bicubic = 2 });

hw_enum!(
    /// Interpolation of a coefficient-fetch binding.
    ShadeModel { FlatVertex0 = 0, FlatVertex2 = 2, Linear = 3, FlatVertex1 = 6, Perspective = 7 }
);

hw_enum!(
    CoefficientSource { Varying = 0, FragcoordZ = 1, PointCoord = 2, PrimitiveId = 3, BarycentricCoord = 5 }
);

hw_enum!(
    /// Depth buffer format of the ZLS control word.
    ZlsFormat { F32 = 0, U16 = 2 }
);

/// The texture and PBE fields shared by position.
pub mod image {
    use super::*;
    pub const DIMENSION: Field = Field::new("dimension", 0, 4);
    pub const LAYOUT: Field = Field::new("layout", 4, 2);
    pub const CHANNELS: Field = Field::new("channels", 6, 7);
    pub const TYPE: Field = Field::new("type", 13, 3);
}

/// Texture descriptor fields (shaders read some: `compiler::passes::lower_textures`).
pub mod texture {
    use super::*;
    pub const SWIZZLE: [Field; 4] = [
        Field::new("swizzle r", 16, 3),
        Field::new("swizzle g", 19, 3),
        Field::new("swizzle b", 22, 3),
        Field::new("swizzle a", 25, 3),
    ];
    pub const WIDTH: Field = Field::new("width", 28, 14);
    pub const HEIGHT: Field = Field::new("height", 42, 14);
    pub const FIRST_LEVEL: Field = Field::new("first level", 56, 4);
    pub const LAST_LEVEL: Field = Field::new("last level", 60, 4);
    pub const SAMPLES: Field = Field::new("samples", 64, 1);
    pub const ADDRESS: Field = Field::with("address", 66, 36, Modifier::Shr(4));
    pub const UNK_MIPMAPPED: Field = Field::new("unk mipmapped", 102, 1);
    pub const COMPRESSED_1: Field = Field::new("compressed 1", 103, 1);
    pub const NULL: Field = Field::new("null", 105, 1);
    pub const COMPRESSION: Field = Field::new("compression", 106, 2);
    pub const SRGB: Field = Field::new("srgb", 108, 1);
    pub const SRGB_2CH: Field = Field::new("srgb 2-channel", 109, 1);
    // The description gives 18 bits, overlapping page-aligned layers and extended; agx4
    // keeps the 16 that do not.
    pub const STRIDE: Field = Field::with("stride", 110, 16, Modifier::Shr(4));
    pub const DEPTH: Field = Field::new("depth", 110, 14);
    pub const PAGE_ALIGNED: Field = Field::new("page-aligned layers", 126, 1);
    pub const EXTENDED: Field = Field::new("extended", 127, 1);
    pub const EXTENSION: Field = Field::new("extension", 128, 64);
}

/// A texture descriptor (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Texture {
    pub dimension: TextureDimension,
    pub layout: Layout,
    pub channels: Channels,
    pub texture_type: TextureType,
    pub swizzle: [Channel; 4],
    pub width: u32,
    pub height: u32,
    pub first_level: u32,
    pub last_level: u32,
    pub samples: SampleCount,
    /// 16-byte aligned base address.
    pub address: u64,
    pub unk_mipmapped: bool,
    pub compressed_1: bool,
    pub null: bool,
    pub compression: u32,
    pub srgb: bool,
    pub srgb_2_channel: bool,
    /// Linear layout only: row stride in bytes, a multiple of 16 from 16; stored as
    /// `(stride - 16) >> 4`, as Mesa writes it.
    pub stride: u32,
    /// Other layouts: depth or layer count (1..=16384), stored minus one.
    pub depth: u32,
    pub page_aligned_layers: bool,
    pub extended: bool,
    /// Bytes 16..24: acceleration buffer (compressed), linear depth and layer stride, or
    /// software buffer metadata, depending on use; kept raw.
    pub extension: u64,
}

impl Texture {
    pub const SIZE: usize = 24;

    pub fn pack(&self) -> [u8; 24] {
        use texture::*;
        let mut b = [0u8; 24];
        image::DIMENSION.put(&mut b, self.dimension.bits());
        image::LAYOUT.put(&mut b, self.layout.bits());
        image::CHANNELS.put(&mut b, self.channels.bits());
        image::TYPE.put(&mut b, self.texture_type.bits());
        for (f, c) in SWIZZLE.iter().zip(self.swizzle) {
            f.put(&mut b, c.bits());
        }
        put_m1(WIDTH, &mut b, self.width);
        put_m1(HEIGHT, &mut b, self.height);
        FIRST_LEVEL.put(&mut b, self.first_level.into());
        LAST_LEVEL.put(&mut b, self.last_level.into());
        SAMPLES.put(&mut b, self.samples.bits());
        ADDRESS.put(&mut b, self.address);
        put_bool(UNK_MIPMAPPED, &mut b, self.unk_mipmapped);
        put_bool(COMPRESSED_1, &mut b, self.compressed_1);
        put_bool(NULL, &mut b, self.null);
        COMPRESSION.put(&mut b, self.compression.into());
        put_bool(SRGB, &mut b, self.srgb);
        put_bool(SRGB_2CH, &mut b, self.srgb_2_channel);
        if self.layout == Layout::Linear {
            STRIDE.put(&mut b, u64::from(self.stride.wrapping_sub(16)));
        } else {
            put_m1(DEPTH, &mut b, self.depth);
        }
        put_bool(PAGE_ALIGNED, &mut b, self.page_aligned_layers);
        put_bool(EXTENDED, &mut b, self.extended);
        EXTENSION.put(&mut b, self.extension);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Texture, WordError> {
        use texture::*;
        need(b, Self::SIZE, "texture descriptor")?;
        let layout = Layout::from_bits(image::LAYOUT.get(b))?;
        let linear = layout == Layout::Linear;
        let extent = if linear { STRIDE } else { DEPTH };
        let fields = [
            image::DIMENSION,
            image::LAYOUT,
            image::CHANNELS,
            image::TYPE,
            SWIZZLE[0],
            SWIZZLE[1],
            SWIZZLE[2],
            SWIZZLE[3],
            WIDTH,
            HEIGHT,
            FIRST_LEVEL,
            LAST_LEVEL,
            SAMPLES,
            ADDRESS,
            UNK_MIPMAPPED,
            COMPRESSED_1,
            NULL,
            COMPRESSION,
            SRGB,
            SRGB_2CH,
            extent,
            PAGE_ALIGNED,
            EXTENDED,
            EXTENSION,
        ];
        no_stray(b, Self::SIZE, &fields, "texture descriptor")?;
        let (stride, depth) = if linear {
            (STRIDE.get(b) as u32 + 16, 1)
        } else {
            (0, get_m1(DEPTH, b))
        };
        let sw = |i: usize| Channel::from_bits(SWIZZLE[i].get(b));
        Ok(Texture {
            dimension: TextureDimension::from_bits(image::DIMENSION.get(b))?,
            layout,
            channels: Channels::from_bits(image::CHANNELS.get(b))?,
            texture_type: TextureType::from_bits(image::TYPE.get(b))?,
            swizzle: [sw(0)?, sw(1)?, sw(2)?, sw(3)?],
            width: get_m1(WIDTH, b),
            height: get_m1(HEIGHT, b),
            first_level: FIRST_LEVEL.get(b) as u32,
            last_level: LAST_LEVEL.get(b) as u32,
            samples: SampleCount::from_bits(SAMPLES.get(b))?,
            address: ADDRESS.get(b),
            unk_mipmapped: get_bool(UNK_MIPMAPPED, b),
            compressed_1: get_bool(COMPRESSED_1, b),
            null: get_bool(NULL, b),
            compression: COMPRESSION.get(b) as u32,
            srgb: get_bool(SRGB, b),
            srgb_2_channel: get_bool(SRGB_2CH, b),
            stride,
            depth,
            page_aligned_layers: get_bool(PAGE_ALIGNED, b),
            extended: get_bool(EXTENDED, b),
            extension: EXTENSION.get(b),
        })
    }
}

/// PBE descriptor fields (shaders read some: `compiler::passes::lower_image_atomics`).
pub mod pbe {
    use super::*;
    pub const SWIZZLE: [Field; 4] = [
        Field::new("swizzle r", 16, 2),
        Field::new("swizzle g", 18, 2),
        Field::new("swizzle b", 20, 2),
        Field::new("swizzle a", 22, 2),
    ];
    pub const WIDTH: Field = Field::new("width", 24, 14);
    pub const HEIGHT: Field = Field::new("height", 38, 14);
    pub const UNK_52: Field = Field::new("unk 52", 52, 1);
    pub const ROTATE_90: Field = Field::new("rotate 90", 53, 1);
    pub const FLIP_VERTICAL: Field = Field::new("flip vertical", 54, 1);
    pub const SAMPLES: Field = Field::new("samples", 56, 1);
    pub const UNK_MIPMAPPED: Field = Field::new("unk mipmapped", 58, 1);
    pub const COMPRESSED_1: Field = Field::new("compressed 1", 59, 1);
    pub const BUFFER: Field = Field::with("buffer", 64, 36, Modifier::Shr(4));
    pub const LEVEL: Field = Field::new("level", 100, 4);
    pub const LEVELS: Field = Field::new("levels", 104, 4);
    pub const LAYERS: Field = Field::new("layers", 108, 14);
    pub const PAGE_ALIGNED: Field = Field::new("page-aligned layers", 124, 1);
    pub const SRGB: Field = Field::new("srgb", 125, 1);
    pub const EXTENDED: Field = Field::new("extended", 127, 1);
    pub const STRIDE: Field = Field::new("stride", 104, 21);
    pub const EXTENSION: Field = Field::new("extension", 128, 64);
}

/// A PBE descriptor (24 bytes): where and how an end-of-tile program stores a render target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pbe {
    pub dimension: TextureDimension,
    pub layout: Layout,
    pub channels: Channels,
    pub texture_type: TextureType,
    /// Only R, G, B, A are representable (2-bit fields).
    pub swizzle: [Channel; 4],
    pub width: u32,
    pub height: u32,
    pub unk_52: bool,
    pub rotate_90: bool,
    pub flip_vertical: bool,
    pub samples: SampleCount,
    pub unk_mipmapped: bool,
    pub compressed_1: bool,
    /// 16-byte aligned base address.
    pub buffer: u64,
    pub level: u32,
    /// Non-linear layouts: levels and layers (each stored minus one).
    pub levels: u32,
    pub layers: u32,
    /// Linear layout: row stride in bytes, stored as `stride - 4` over bits 104..124 (Mesa's
    /// convention; the description itself asks "off by 4?").
    pub stride: u32,
    pub page_aligned_layers: bool,
    pub srgb: bool,
    pub extended: bool,
    /// Bytes 16..24 (acceleration buffer, linear depth/layer stride, or software metadata).
    pub extension: u64,
}

impl Pbe {
    pub const SIZE: usize = 24;

    pub fn pack(&self) -> Result<[u8; 24], WordError> {
        use pbe::*;
        let mut b = [0u8; 24];
        image::DIMENSION.put(&mut b, self.dimension.bits());
        image::LAYOUT.put(&mut b, self.layout.bits());
        image::CHANNELS.put(&mut b, self.channels.bits());
        image::TYPE.put(&mut b, self.texture_type.bits());
        for (f, c) in SWIZZLE.iter().zip(self.swizzle) {
            if c.bits() > 3 {
                return Err(bad("PBE swizzle can only name R, G, B or A"));
            }
            f.put(&mut b, c.bits());
        }
        put_m1(WIDTH, &mut b, self.width);
        put_m1(HEIGHT, &mut b, self.height);
        put_bool(UNK_52, &mut b, self.unk_52);
        put_bool(ROTATE_90, &mut b, self.rotate_90);
        put_bool(FLIP_VERTICAL, &mut b, self.flip_vertical);
        SAMPLES.put(&mut b, self.samples.bits());
        put_bool(UNK_MIPMAPPED, &mut b, self.unk_mipmapped);
        put_bool(COMPRESSED_1, &mut b, self.compressed_1);
        BUFFER.put(&mut b, self.buffer);
        LEVEL.put(&mut b, self.level.into());
        if self.layout == Layout::Linear {
            STRIDE.put(&mut b, u64::from(self.stride.wrapping_sub(4)));
        } else {
            put_m1(LEVELS, &mut b, self.levels);
            put_m1(LAYERS, &mut b, self.layers);
            put_bool(PAGE_ALIGNED, &mut b, self.page_aligned_layers);
        }
        put_bool(SRGB, &mut b, self.srgb);
        put_bool(EXTENDED, &mut b, self.extended);
        EXTENSION.put(&mut b, self.extension);
        Ok(b)
    }

    pub fn unpack(b: &[u8]) -> Result<Pbe, WordError> {
        use pbe::*;
        need(b, Self::SIZE, "PBE descriptor")?;
        let layout = Layout::from_bits(image::LAYOUT.get(b))?;
        let fields = [
            image::DIMENSION,
            image::LAYOUT,
            image::CHANNELS,
            image::TYPE,
            SWIZZLE[0],
            SWIZZLE[1],
            SWIZZLE[2],
            SWIZZLE[3],
            WIDTH,
            HEIGHT,
            UNK_52,
            ROTATE_90,
            FLIP_VERTICAL,
            SAMPLES,
            UNK_MIPMAPPED,
            COMPRESSED_1,
            BUFFER,
            LEVEL,
            LEVELS,
            LAYERS,
            PAGE_ALIGNED,
            SRGB,
            EXTENDED,
            EXTENSION,
            STRIDE,
        ];
        no_stray(b, Self::SIZE, &fields, "PBE descriptor")?;
        let sw = |i: usize| Channel::from_bits(SWIZZLE[i].get(b));
        let linear = layout == Layout::Linear;
        Ok(Pbe {
            dimension: TextureDimension::from_bits(image::DIMENSION.get(b))?,
            layout,
            channels: Channels::from_bits(image::CHANNELS.get(b))?,
            texture_type: TextureType::from_bits(image::TYPE.get(b))?,
            swizzle: [sw(0)?, sw(1)?, sw(2)?, sw(3)?],
            width: get_m1(WIDTH, b),
            height: get_m1(HEIGHT, b),
            unk_52: get_bool(UNK_52, b),
            rotate_90: get_bool(ROTATE_90, b),
            flip_vertical: get_bool(FLIP_VERTICAL, b),
            samples: SampleCount::from_bits(SAMPLES.get(b))?,
            unk_mipmapped: get_bool(UNK_MIPMAPPED, b),
            compressed_1: get_bool(COMPRESSED_1, b),
            buffer: BUFFER.get(b),
            level: LEVEL.get(b) as u32,
            levels: if linear { 1 } else { get_m1(LEVELS, b) },
            layers: if linear { 1 } else { get_m1(LAYERS, b) },
            stride: if linear { STRIDE.get(b) as u32 + 4 } else { 0 },
            page_aligned_layers: !linear && get_bool(PAGE_ALIGNED, b),
            srgb: get_bool(SRGB, b),
            extended: get_bool(EXTENDED, b),
            extension: EXTENSION.get(b),
        })
    }
}

mod sampler {
    use super::*;
    pub const MIN_LOD: Field = Field::new("minimum lod", 0, 10);
    pub const MAX_LOD: Field = Field::new("maximum lod", 10, 10);
    pub const MAX_ANISO: Field = Field::with("maximum anisotropy", 20, 3, Modifier::Log2);
    pub const MAGNIFY: Field = Field::new("magnify", 23, 2);
    pub const MINIFY: Field = Field::new("minify", 25, 2);
    pub const MIP_FILTER: Field = Field::new("mip filter", 27, 2);
    pub const WRAP: [Field; 3] = [
        Field::new("wrap s", 29, 3),
        Field::new("wrap t", 32, 3),
        Field::new("wrap r", 35, 3),
    ];
    pub const PIXEL_COORDS: Field = Field::new("pixel coordinates", 38, 1);
    pub const COMPARE_FUNC: Field = Field::new("compare func", 39, 3);
    pub const COMPARE_ENABLE: Field = Field::new("compare enable", 42, 1);
    pub const BORDER: Field = Field::new("border colour", 55, 2);
    pub const SEAMFUL: Field = Field::new("seamful cube maps", 57, 1);
    pub const ALL: [Field; 14] = [
        MIN_LOD,
        MAX_LOD,
        MAX_ANISO,
        MAGNIFY,
        MINIFY,
        MIP_FILTER,
        WRAP[0],
        WRAP[1],
        WRAP[2],
        PIXEL_COORDS,
        COMPARE_FUNC,
        COMPARE_ENABLE,
        BORDER,
        SEAMFUL,
    ];
}

/// A level of detail in the sampler's unsigned 4.6 fixed point (0.0..=14.0 as Mesa clamps).
pub fn lod_to_fixed(lod: f32) -> u32 {
    (lod * 64.0).clamp(0.0, 14.0 * 64.0) as u32
}

pub fn lod_from_fixed(fixed: u32) -> f32 {
    fixed as f32 / 64.0
}

/// A sampler descriptor (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampler {
    /// 4.6 fixed point, see [`lod_to_fixed`].
    pub min_lod: u32,
    pub max_lod: u32,
    /// 1, 2, 4 ... 64, stored as log2.
    pub max_anisotropy: u32,
    pub magnify: Filter,
    pub minify: Filter,
    pub mip_filter: MipFilter,
    pub wrap: [Wrap; 3],
    pub pixel_coordinates: bool,
    pub compare_func: CompareFunc,
    pub compare_enable: bool,
    pub border_colour: BorderColour,
    pub seamful_cube_maps: bool,
}

impl Sampler {
    pub const SIZE: usize = 8;

    pub fn pack(&self) -> [u8; 8] {
        use sampler::*;
        let mut b = [0u8; 8];
        MIN_LOD.put(&mut b, self.min_lod.into());
        MAX_LOD.put(&mut b, self.max_lod.into());
        MAX_ANISO.put(&mut b, self.max_anisotropy.into());
        MAGNIFY.put(&mut b, self.magnify.bits());
        MINIFY.put(&mut b, self.minify.bits());
        MIP_FILTER.put(&mut b, self.mip_filter.bits());
        for (f, w) in WRAP.iter().zip(self.wrap) {
            f.put(&mut b, w.bits());
        }
        put_bool(PIXEL_COORDS, &mut b, self.pixel_coordinates);
        COMPARE_FUNC.put(&mut b, self.compare_func.bits());
        put_bool(COMPARE_ENABLE, &mut b, self.compare_enable);
        BORDER.put(&mut b, self.border_colour.bits());
        put_bool(SEAMFUL, &mut b, self.seamful_cube_maps);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Sampler, WordError> {
        use sampler::*;
        need(b, Self::SIZE, "sampler descriptor")?;
        no_stray(b, Self::SIZE, &ALL, "sampler descriptor")?;
        let w = |i: usize| Wrap::from_bits(WRAP[i].get(b));
        Ok(Sampler {
            min_lod: MIN_LOD.get(b) as u32,
            max_lod: MAX_LOD.get(b) as u32,
            max_anisotropy: MAX_ANISO.get(b) as u32,
            magnify: Filter::from_bits(MAGNIFY.get(b))?,
            minify: Filter::from_bits(MINIFY.get(b))?,
            mip_filter: MipFilter::from_bits(MIP_FILTER.get(b))?,
            wrap: [w(0)?, w(1)?, w(2)?],
            pixel_coordinates: get_bool(PIXEL_COORDS, b),
            compare_func: CompareFunc::from_bits(COMPARE_FUNC.get(b))?,
            compare_enable: get_bool(COMPARE_ENABLE, b),
            border_colour: BorderColour::from_bits(BORDER.get(b))?,
            seamful_cube_maps: get_bool(SEAMFUL, b),
        })
    }
}

/// A custom border colour: four raw 32-bit channels (16 bytes, after the sampler in extended
/// sampler heaps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Border {
    pub channels: [u32; 4],
}

impl Border {
    pub const SIZE: usize = 16;

    pub fn pack(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (i, c) in self.channels.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&c.to_le_bytes());
        }
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Border, WordError> {
        need(b, Self::SIZE, "border colour")?;
        let w = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        Ok(Border {
            channels: [w(0), w(1), w(2), w(3)],
        })
    }
}

mod scissor {
    use super::*;
    pub const MAX_X: Field = Field::new("max x", 0, 16);
    pub const MIN_X: Field = Field::new("min x", 16, 16);
    pub const MAX_Y: Field = Field::new("max y", 32, 16);
    pub const MIN_Y: Field = Field::new("min y", 48, 16);
    pub const MIN_Z: Field = Field::new("min z", 64, 32);
    pub const MAX_Z: Field = Field::new("max z", 96, 32);
}

/// One entry of the scissor array a render points at (16 bytes). Max is exclusive as Mesa
/// writes it (`x + width`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scissor {
    pub min_x: u32,
    pub max_x: u32,
    pub min_y: u32,
    pub max_y: u32,
    pub min_z: f32,
    pub max_z: f32,
}

impl Scissor {
    pub const SIZE: usize = 16;

    pub fn pack(&self) -> [u8; 16] {
        use scissor::*;
        let mut b = [0u8; 16];
        MAX_X.put(&mut b, self.max_x.into());
        MIN_X.put(&mut b, self.min_x.into());
        MAX_Y.put(&mut b, self.max_y.into());
        MIN_Y.put(&mut b, self.min_y.into());
        put_f32(MIN_Z, &mut b, self.min_z);
        put_f32(MAX_Z, &mut b, self.max_z);
        b
    }

    pub fn unpack(b: &[u8]) -> Result<Scissor, WordError> {
        use scissor::*;
        need(b, Self::SIZE, "scissor")?;
        Ok(Scissor {
            min_x: MIN_X.get(b) as u32,
            max_x: MAX_X.get(b) as u32,
            min_y: MIN_Y.get(b) as u32,
            max_y: MAX_Y.get(b) as u32,
            min_z: get_f32(MIN_Z, b),
            max_z: get_f32(MAX_Z, b),
        })
    }
}

/// One entry of the depth-bias array (12 bytes, unpadded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthBias {
    pub depth_bias: f32,
    pub slope_scale: f32,
    pub clamp: f32,
}

impl DepthBias {
    pub const SIZE: usize = 12;

    pub fn pack(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[0..4].copy_from_slice(&self.depth_bias.to_bits().to_le_bytes());
        b[4..8].copy_from_slice(&self.slope_scale.to_bits().to_le_bytes());
        b[8..12].copy_from_slice(&self.clamp.to_bits().to_le_bytes());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<DepthBias, WordError> {
        need(b, Self::SIZE, "depth bias")?;
        let f = |i: usize| {
            f32::from_bits(u32::from_le_bytes([
                b[4 * i],
                b[4 * i + 1],
                b[4 * i + 2],
                b[4 * i + 3],
            ]))
        };
        Ok(DepthBias {
            depth_bias: f(0),
            slope_scale: f(1),
            clamp: f(2),
        })
    }
}

const CFH_SLOTS: Field = Field::new("32-bit slots", 0, 8);
const CFH_REGS: Field = Field::new("coefficient registers", 8, 8);

/// The header before a fragment shader's coefficient-fetch bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfBindingHeader {
    pub slots: u32,
    pub coefficient_registers: u32,
}

impl CfBindingHeader {
    pub const SIZE: usize = 4;

    pub fn pack(&self) -> [u8; 4] {
        let mut b = [0u8; 4];
        CFH_SLOTS.put(&mut b, self.slots.into());
        CFH_REGS.put(&mut b, self.coefficient_registers.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<CfBindingHeader, WordError> {
        need(b, 4, "CF binding header")?;
        no_stray(b, 4, &[CFH_SLOTS, CFH_REGS], "CF binding header")?;
        Ok(CfBindingHeader {
            slots: CFH_SLOTS.get(b) as u32,
            coefficient_registers: CFH_REGS.get(b) as u32,
        })
    }
}

mod cf {
    use super::*;
    pub const COMPONENTS: Field = Field::new("components", 0, 2);
    pub const SHADE: Field = Field::new("shade model", 2, 3);
    pub const SOURCE: Field = Field::new("source", 5, 3);
    pub const BASE_SLOT: Field = Field::new("base slot", 8, 8);
    pub const BASE_COEFF: Field = Field::new("base coefficient register", 16, 8);
}

/// One coefficient-fetch binding: which varying slots feed which coefficient registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfBinding {
    /// 1..=4, stored minus one.
    pub components: u32,
    pub shade_model: ShadeModel,
    pub source: CoefficientSource,
    pub base_slot: u32,
    pub base_coefficient_register: u32,
}

impl CfBinding {
    pub const SIZE: usize = 4;

    pub fn pack(&self) -> [u8; 4] {
        use cf::*;
        let mut b = [0u8; 4];
        put_m1(COMPONENTS, &mut b, self.components);
        SHADE.put(&mut b, self.shade_model.bits());
        SOURCE.put(&mut b, self.source.bits());
        BASE_SLOT.put(&mut b, self.base_slot.into());
        BASE_COEFF.put(&mut b, self.base_coefficient_register.into());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<CfBinding, WordError> {
        use cf::*;
        need(b, 4, "CF binding")?;
        no_stray(
            b,
            4,
            &[COMPONENTS, SHADE, SOURCE, BASE_SLOT, BASE_COEFF],
            "CF binding",
        )?;
        Ok(CfBinding {
            components: get_m1(COMPONENTS, b),
            shade_model: ShadeModel::from_bits(SHADE.get(b))?,
            source: CoefficientSource::from_bits(SOURCE.get(b))?,
            base_slot: BASE_SLOT.get(b) as u32,
            base_coefficient_register: BASE_COEFF.get(b) as u32,
        })
    }
}

mod zls {
    use super::*;
    /// The single-bit flags, in [`super::ZlsControl::flags`] order.
    pub const FLAGS: [Field; 15] = [
        Field::new("unknown 0", 0, 1),
        Field::new("unknown 1", 1, 1),
        Field::new("z compress 1", 2, 1),
        Field::new("unknown 3", 3, 1),
        Field::new("s compress 1", 4, 1),
        Field::new("unknown 5", 5, 1),
        Field::new("z compress 2", 6, 1),
        Field::new("unknown 7", 7, 1),
        Field::new("s compress 2", 8, 1),
        Field::new("s load enable", 14, 1),
        Field::new("z load enable", 15, 1),
        Field::new("s store enable", 18, 1),
        Field::new("z store enable", 19, 1),
        Field::new("z resolve", 56, 1),
        Field::new("s resolve", 58, 1),
    ];
    pub const Z_FORMAT: Field = Field::new("z format", 25, 2);
}

/// ZLS Control (8 bytes): which depth/stencil buffers a render loads, stores and resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZlsControl {
    pub unknown_0: bool,
    pub unknown_1: bool,
    pub z_compress_1: bool,
    pub unknown_3: bool,
    pub s_compress_1: bool,
    pub unknown_5: bool,
    pub z_compress_2: bool,
    pub unknown_7: bool,
    pub s_compress_2: bool,
    pub s_load: bool,
    pub z_load: bool,
    pub s_store: bool,
    pub z_store: bool,
    pub z_resolve: bool,
    pub s_resolve: bool,
    pub z_format: ZlsFormat,
}

impl ZlsControl {
    pub const SIZE: usize = 8;

    /// A render that loads, stores and resolves nothing, uncompressed, with a depth plane of
    /// `z_format` if it had one: the word to update with what a render does.
    pub const fn nothing(z_format: ZlsFormat) -> ZlsControl {
        ZlsControl {
            unknown_0: false,
            unknown_1: false,
            z_compress_1: false,
            unknown_3: false,
            s_compress_1: false,
            unknown_5: false,
            z_compress_2: false,
            unknown_7: false,
            s_compress_2: false,
            s_load: false,
            z_load: false,
            s_store: false,
            z_store: false,
            z_resolve: false,
            s_resolve: false,
            z_format,
        }
    }

    fn flags(&self) -> [bool; 15] {
        [
            self.unknown_0,
            self.unknown_1,
            self.z_compress_1,
            self.unknown_3,
            self.s_compress_1,
            self.unknown_5,
            self.z_compress_2,
            self.unknown_7,
            self.s_compress_2,
            self.s_load,
            self.z_load,
            self.s_store,
            self.z_store,
            self.z_resolve,
            self.s_resolve,
        ]
    }

    pub fn pack(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        for (f, v) in zls::FLAGS.iter().zip(self.flags()) {
            put_bool(*f, &mut b, v);
        }
        zls::Z_FORMAT.put(&mut b, self.z_format.bits());
        b
    }

    pub fn unpack(b: &[u8]) -> Result<ZlsControl, WordError> {
        need(b, Self::SIZE, "ZLS control")?;
        let mut all = zls::FLAGS.to_vec();
        all.push(zls::Z_FORMAT);
        no_stray(b, Self::SIZE, &all, "ZLS control")?;
        let f = |i: usize| get_bool(zls::FLAGS[i], b);
        Ok(ZlsControl {
            unknown_0: f(0),
            unknown_1: f(1),
            z_compress_1: f(2),
            unknown_3: f(3),
            s_compress_1: f(4),
            unknown_5: f(5),
            z_compress_2: f(6),
            unknown_7: f(7),
            s_compress_2: f(8),
            s_load: f(9),
            z_load: f(10),
            s_store: f(11),
            z_store: f(12),
            z_resolve: f(13),
            s_resolve: f(14),
            z_format: ZlsFormat::from_bits(zls::Z_FORMAT.get(b))?,
        })
    }
}
