//! Descriptor words checked against bit positions worked out by hand from cmdbuf.xml, and
//! format facts from Mesa's tables.

use super::*;
use crate::g13::layout::Tiling;

fn word(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
}

#[test]
fn common_formats() {
    use Channel::*;
    let rgba8 = pixel_format(37).unwrap();
    assert_eq!(rgba8.channels.bits(), 0x28);
    assert_eq!(rgba8.texture_type.bits(), 0);
    assert_eq!(rgba8.swizzle, [R, G, B, A]);
    assert!(!rgba8.srgb);
    let bgra_srgb = pixel_format(50).unwrap();
    assert_eq!(bgra_srgb.swizzle, [B, G, R, A]);
    assert!(bgra_srgb.srgb);
    let r16f = pixel_format(76).unwrap();
    assert_eq!((r16f.channels.bits(), r16f.texture_type.bits()), (0x09, 4));
    assert_eq!(r16f.swizzle, [R, Zero, Zero, One]);
    let rg32i = pixel_format(102).unwrap();
    assert_eq!(
        (rg32i.channels.bits(), rg32i.texture_type.bits()),
        (0x31, 3)
    );
    assert_eq!(pixel_format(122).unwrap().channels.bits(), 0x25);
    assert_eq!(pixel_format(123).unwrap().channels.bits(), 0x27);
    assert_eq!(pixel_format(64).unwrap().channels.bits(), 0x26);
    assert_eq!(pixel_format(4).unwrap().swizzle, [B, G, R, One]);
    assert_eq!(pixel_format(13).unwrap().texture_type, TextureType::Uint);
    assert_eq!(pixel_format(14).unwrap().texture_type, TextureType::Sint);
    assert_eq!(pixel_format(10).unwrap().texture_type, TextureType::Snorm);
    assert!(pixel_format(15).unwrap().srgb);
    // Scaled, 3-channel and 64-bit formats are not texel formats AGX reads.
    for f in [11, 23, 30, 84, 104, 110, 0, -1, 6, 7] {
        assert_eq!(pixel_format(f), None, "VkFormat {f}");
    }
    assert_eq!(pixel_format(124).unwrap().bytes_per_block(), Some(2));
    assert_eq!(pixel_format(126).unwrap().bytes_per_block(), Some(4));
    assert_eq!(pixel_format(127).unwrap().bytes_per_block(), Some(1));
    assert_eq!(pixel_format(109).unwrap().bytes_per_block(), Some(16));
}

#[test]
fn view_swizzle_composes_with_format_swizzle() {
    use Channel::*;
    let bgra = pixel_format(44).unwrap();
    // A view reading (A, R, One, Zero) of a BGRA image takes alpha from channel 3 and red from
    // channel 2.
    let v = bgra.with_view_swizzle([A, R, One, Zero]);
    assert_eq!(v.swizzle, [A, B, One, Zero]);
}

#[test]
fn texture_descriptor_of_twiddled_rgba8() {
    let layout = Layout::new(64, 32, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        base: 0x1_0000,
        layout: &layout,
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D2,
    };
    let d = texture_descriptor(&img, 0, 1, 0, 1).unwrap();
    let w0 =
        2 | (2 << 4) | (0x28 << 6) | (1 << 19) | (2 << 22) | (3 << 25) | (63 << 28) | (31 << 42);
    assert_eq!(word(&d, 0), w0);
    // Address >> 4 at bit 66; depth - 1 = 0 at bit 110.
    assert_eq!(word(&d, 1), 0x1000 << 2);
    assert_eq!(word(&d, 2), 0);
    let t = Texture::unpack(&d).unwrap();
    assert_eq!(
        (t.width, t.height, t.depth, t.address),
        (64, 32, 1, 0x1_0000)
    );
}

#[test]
fn texture_descriptor_view_range_of_mipmapped_array() {
    let layout = Layout::new(256, 256, 4, 9, 4, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        base: 0x40_0000,
        layout: &layout,
        format: pixel_format(43).unwrap(),
        dimension: TextureDimension::D2Array,
    };
    let t = Texture::unpack(&texture_descriptor(&img, 2, 3, 1, 2).unwrap()).unwrap();
    assert_eq!((t.first_level, t.last_level), (2, 4));
    assert_eq!(t.address, 0x40_0000 + layout.layer_stride);
    assert_eq!(t.depth, 2);
    assert!(t.unk_mipmapped && t.srgb && !t.srgb_2_channel);
    assert_eq!(t.page_aligned_layers, layout.page_aligned_layers);
    assert!(texture_descriptor(&img, 8, 2, 0, 1).is_err());
    assert!(texture_descriptor(&img, 0, 1, 3, 2).is_err());
    assert!(texture_descriptor(&img, 0, 0, 0, 1).is_err());
    let rg_srgb = ImageDesc {
        format: pixel_format(22).unwrap(),
        layout: &Layout::new(8, 8, 1, 1, 2, Tiling::Twiddled, 1).unwrap(),
        ..img
    };
    let t = Texture::unpack(&texture_descriptor(&rg_srgb, 0, 1, 0, 1).unwrap()).unwrap();
    assert!(t.srgb && t.srgb_2_channel);
}

#[test]
fn texture_descriptor_rejects_mismatched_texel_size() {
    let layout = Layout::new(8, 8, 1, 1, 2, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        base: 0,
        layout: &layout,
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D2,
    };
    assert!(texture_descriptor(&img, 0, 1, 0, 1).is_err());
    assert!(pbe_descriptor(&img, 0, 0).is_err());
}

#[test]
fn linear_texture_and_linear_array_extension() {
    let layout = Layout::new(20, 4, 3, 1, 4, Tiling::Linear { stride: Some(96) }, 1).unwrap();
    let img = ImageDesc {
        base: 0x8000,
        layout: &layout,
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D2Array,
    };
    // 96 * 4 = 384 bytes per layer, 128-aligned: 384.
    assert_eq!(layout.layer_stride, 384);
    let d = texture_descriptor(&img, 0, 1, 0, 3).unwrap();
    // Stride (96 - 16) >> 4 = 5 at bit 110, extended at 127.
    assert_eq!(word(&d, 1) >> 46, 5 | (1 << 17));
    assert_eq!(word(&d, 2), 2 | (((384 - 128) >> 7) << 11));
    assert_eq!(linear_array_from_extension(word(&d, 2)), (3, 384));
    let t = Texture::unpack(&d).unwrap();
    assert_eq!((t.stride, t.extended), (96, true));
}

#[test]
fn pbe_swizzle_is_the_inverse_of_the_format_swizzle() {
    use Channel::*;
    let layout = Layout::new(16, 16, 1, 1, 2, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        base: 0x2000,
        layout: &layout,
        // B4G4R4A4_UNORM_PACK16: channels (A, R, G, B) from the low nibble up.
        format: pixel_format(3).unwrap(),
        dimension: TextureDimension::D2,
    };
    let d = pbe_descriptor(&img, 0, 0).unwrap();
    let p = Pbe::unpack(&d).unwrap();
    assert_eq!(p.swizzle, [A, R, G, B]);
    // Channel 0 gets component 3 (A), 1 gets 0, 2 gets 1, 3 gets 2, at bits 16.. 2 bits each.
    assert_eq!((word(&d, 0) >> 16) & 0xff, 3 | (1 << 4) | (2 << 6));
    assert_eq!(p.buffer, 0x2000);
    assert_eq!((p.width, p.height, p.levels, p.layers), (16, 16, 1, 1));
}

#[test]
fn pbe_of_level_and_layer() {
    let layout = Layout::new(100, 60, 3, 2, 8, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        base: 0x100_0000,
        layout: &layout,
        format: pixel_format(97).unwrap(),
        dimension: TextureDimension::D2,
    };
    let p = Pbe::unpack(&pbe_descriptor(&img, 3, 2).unwrap()).unwrap();
    assert_eq!(p.level, 3);
    assert_eq!(p.levels, 7);
    assert_eq!(p.buffer, 0x100_0000 + 2 * layout.layer_stride);
    assert!(p.unk_mipmapped);
    assert!(pbe_descriptor(&img, 7, 0).is_err());
    assert!(pbe_descriptor(&img, 0, 3).is_err());
}

#[test]
fn multisampled_pbe_and_texture_sample_count() {
    let layout = Layout::new(32, 32, 1, 1, 4, Tiling::Twiddled, 4).unwrap();
    let img = ImageDesc {
        base: 0,
        layout: &layout,
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D2Multisampled,
    };
    let d = texture_descriptor(&img, 0, 1, 0, 1).unwrap();
    assert_eq!(word(&d, 1) & 1, 1);
    let p = pbe_descriptor(&img, 0, 0).unwrap();
    assert_eq!((word(&p, 0) >> 56) & 1, 1);
}

#[test]
fn sampler_bits() {
    let s = SamplerDesc {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        mip_filter: MipFilter::Linear,
        wrap: [Wrap::Repeat, Wrap::MirroredRepeat, Wrap::ClampToBorder],
        compare: Some(CompareFunc::Greater),
        min_lod: 0.5,
        max_lod: 3.0,
        max_anisotropy: 3,
        border: BorderColour::OpaqueWhite,
        unnormalized_coordinates: false,
        seamful_cube_maps: false,
    };
    let b = u64::from_le_bytes(sampler_descriptor(&s));
    let expect = 32
        | (192 << 10)
        | (2 << 20)
        | (1 << 23)
        | (1 << 25)
        | (2 << 27)
        | (1 << 29)
        | (2 << 32)
        | (3 << 35)
        | (3 << 39)
        | (1 << 42)
        | (2 << 55);
    assert_eq!(b, expect);
    let d = Sampler::unpack(&sampler_descriptor(&SamplerDesc::default())).unwrap();
    assert_eq!(d.max_lod, 14 * 64);
    assert!(!d.compare_enable);
}

#[test]
fn vulkan_enum_translation() {
    assert_eq!(wrap_from_vk(0), Some(Wrap::Repeat));
    assert_eq!(wrap_from_vk(4), Some(Wrap::MirroredClampToEdge));
    assert_eq!(compare_from_vk(3), Some(CompareFunc::Lequal));
    assert_eq!(compare_from_vk(6), Some(CompareFunc::Gequal));
    assert_eq!(border_from_vk(5), Some(BorderColour::OpaqueWhite));
    assert_eq!(border_from_vk(6), None);
    assert_eq!(view_channel_from_vk(0, Channel::B), Some(Channel::B));
    assert_eq!(view_channel_from_vk(2, Channel::B), Some(Channel::One));
    assert_eq!(filter_from_vk(2), None);
    assert_eq!(mip_filter_from_vk(1), Some(MipFilter::Linear));
}

#[test]
fn block_compressed_formats() {
    use crate::g13::layout::Usage;
    use Channel::{One, Zero, A, B, G, R};
    // Every Vulkan BC, ETC2, EAC and ASTC LDR format (131..=184) is mapped, with its block.
    let mut astc = 0;
    for vk in 131..=184 {
        let f = pixel_format(vk).unwrap_or_else(|| panic!("format {vk}"));
        let b = channels_block(f.channels).unwrap_or_else(|| panic!("format {vk}: no block"));
        assert_eq!(f.bytes_per_block(), Some(b.bytes));
        assert_eq!(f.block_dims(), (b.width, b.height));
        if f.channels.bits() >= 0x60 && f.channels.bits() <= 0x6d {
            astc += 1;
            assert_eq!(b.bytes, 16);
        }
    }
    assert_eq!(astc, 28);
    let bc1_rgb = pixel_format(131).unwrap();
    assert_eq!(
        (bc1_rgb.channels.bits(), bc1_rgb.swizzle),
        (0x74, [R, G, B, One])
    );
    assert_eq!(pixel_format(134).unwrap().swizzle, [R, G, B, A]);
    assert!(pixel_format(134).unwrap().srgb);
    assert_eq!(pixel_format(140).unwrap().texture_type, TextureType::Snorm);
    assert_eq!(pixel_format(142).unwrap().swizzle, [R, G, Zero, One]);
    assert_eq!(pixel_format(143).unwrap().channels.bits(), 0x7a);
    assert_eq!(pixel_format(144).unwrap().channels.bits(), 0x79);
    assert_eq!(pixel_format(144).unwrap().texture_type, TextureType::Float);
    assert_eq!(pixel_format(150).unwrap().channels.bits(), 0x5a);
    assert_eq!(pixel_format(154).unwrap().channels.bits(), 0x5b);
    assert_eq!(pixel_format(156).unwrap().texture_type, TextureType::Snorm);
    let astc_12x12_srgb = pixel_format(184).unwrap();
    assert_eq!(astc_12x12_srgb.channels.bits(), 0x6d);
    assert!(astc_12x12_srgb.srgb);
    assert_eq!(channels_block(astc_12x12_srgb.channels).unwrap().width, 12);
    // 157 + 2 * 5 (the sixth size, 8x5).
    let astc_8x5 = pixel_format(167).unwrap();
    assert_eq!((astc_8x5.block_dims(), astc_8x5.srgb), ((8, 5), false));
    assert_eq!(channels_block(Channels::EacR11).unwrap().bytes, 8);
    assert_eq!(channels_block(Channels::Etc2Rgba8).unwrap().bytes, 16);
    assert_eq!(channels_block(Channels::R8G8B8A8), None);

    // A descriptor over a block layout carries the texel extent; a 1x1 layout of the same
    // block bytes is refused.
    let f = pixel_format(145).unwrap();
    let layout = Layout::with_blocks(
        30,
        20,
        1,
        1,
        (4, 4),
        16,
        Tiling::Twiddled,
        1,
        Usage::default(),
    )
    .unwrap();
    let img = ImageDesc {
        base: 0x10000,
        layout: &layout,
        format: f,
        dimension: TextureDimension::D2,
    };
    let t = Texture::unpack(&texture_descriptor(&img, 0, 1, 0, 1).unwrap()).unwrap();
    assert_eq!((t.width, t.height, t.channels), (30, 20, Channels::Bc7));
    let flat = Layout::new(30, 20, 1, 1, 16, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        layout: &flat,
        ..img
    };
    assert!(texture_descriptor(&img, 0, 1, 0, 1).is_err());
    // The PBE does not write block-compressed images.
    let img = ImageDesc {
        layout: &layout,
        ..img
    };
    assert!(pbe_descriptor(&img, 0, 0).is_err());
}
