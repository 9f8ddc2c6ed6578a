//! Texel conversions against values worked out by hand, and the sampler's filters against
//! weights written out in the tests.

use super::format::{decode, encode, texel_bytes, Texel};
use super::minifloat::{self, f16_to_f32, f32_to_f16};
use super::sample::{self, cube_face, wrap, Extent, Request, Shape};
use super::srgb;
use hw::g13::control::descriptors::{
    BorderColour, Channels as C, CompareFunc, Filter, MipFilter, Sampler, TextureType as T, Wrap,
};

fn floats(t: Texel) -> [f32; 4] {
    match t {
        Texel::Float(f) => f,
        Texel::Int(i) => panic!("integer texel {i:?}"),
    }
}

fn ints(t: Texel) -> [u32; 4] {
    match t {
        Texel::Int(i) => i,
        Texel::Float(f) => panic!("float texel {f:?}"),
    }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6
}

fn enc(c: C, t: T, srgb: bool, v: [u32; 4]) -> Vec<u8> {
    let mut out = vec![0u8; texel_bytes(c).unwrap() as usize];
    encode(c, t, srgb, v, &mut out).unwrap();
    out
}

fn fv(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

#[test]
fn half_floats() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x7bff), 65504.0);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    assert!(f16_to_f32(0x7e00).is_nan());
    assert_eq!(f32_to_f16(1.0), 0x3c00);
    assert_eq!(f32_to_f16(-2.0), 0xc000);
    assert_eq!(f32_to_f16(0.1), 0x2e66);
    // Halfway between 65504 and 65536 rounds to even, past the largest finite half.
    assert_eq!(f32_to_f16(65520.0), 0x7c00);
    assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000);
    assert_eq!(f32_to_f16(3.0 * 2f32.powi(-25)), 0x0002);
    assert_eq!(f32_to_f16(2f32.powi(-14)), 0x0400);
    assert_eq!(f32_to_f16(f32::NAN) & 0x7c00, 0x7c00);
}

#[test]
fn small_unsigned_floats() {
    // 11-bit: 5 exponent bits, 6 mantissa bits; 10-bit: 5 and 5.
    assert_eq!(minifloat::encode(1.0, 5, 6, false), 15 << 6);
    assert_eq!(minifloat::encode(-3.0, 5, 6, false), 0);
    assert_eq!(minifloat::encode(1.5, 5, 5, false), (15 << 5) | 16);
    assert_eq!(minifloat::decode((16 << 6) | 32, 5, 6, false), 3.0);
}

#[test]
fn rgba8_unorm_snorm_srgb() {
    let t = floats(decode(C::R8G8B8A8, T::Unorm, false, false, &[0, 0x80, 0xff, 0x33]).unwrap());
    assert_eq!(t, [0.0, 128.0 / 255.0, 1.0, 51.0 / 255.0]);
    let s = floats(
        decode(
            C::R8G8B8A8,
            T::Snorm,
            false,
            false,
            &[0x81, 0x80, 0x40, 0x7f],
        )
        .unwrap(),
    );
    assert_eq!(s, [-1.0, -1.0, 64.0 / 127.0, 1.0]);
    // sRGB 0x80: ((128/255 + 0.055) / 1.055)^2.4; alpha stays linear.
    let g = floats(decode(C::R8G8B8A8, T::Unorm, true, false, &[0x80, 0, 0xff, 0x80]).unwrap());
    assert!(close(g[0], 0.215_860_5), "{}", g[0]);
    assert_eq!(g[2], 1.0);
    assert_eq!(g[3], 128.0 / 255.0);
    assert_eq!(
        enc(C::R8G8B8A8, T::Unorm, false, fv([1.0, 0.25, -3.0, 0.6])),
        [255, 64, 0, 153]
    );
    assert_eq!(
        enc(C::R8G8B8A8, T::Snorm, false, fv([-1.0, 0.5, 2.0, -0.25])),
        [0x81, 64, 127, 0xe0]
    );
    // sRGB encode of 0.5: 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357 -> 187.52 -> 188.
    assert_eq!(
        enc(C::R8G8B8A8, T::Unorm, true, fv([0.5, 0.0, 1.0, 0.5])),
        [188, 0, 255, 128]
    );
    assert!(close(srgb::to_linear(srgb::from_linear(0.3)), 0.3));
}

#[test]
fn two_channel_srgb_second_channel_follows_its_flag() {
    let with = floats(decode(C::R8G8, T::Unorm, true, true, &[0x80, 0x80]).unwrap());
    let without = floats(decode(C::R8G8, T::Unorm, true, false, &[0x80, 0x80]).unwrap());
    assert!(close(with[1], 0.215_860_5));
    assert_eq!(without[1], 128.0 / 255.0);
    assert_eq!(with[2..], [0.0, 1.0]);
}

#[test]
fn integers_saturate_and_sign_extend() {
    assert_eq!(
        enc(C::R8G8B8A8, T::Uint, false, [300, 7, 0, 255]),
        [255, 7, 0, 255]
    );
    let m200 = (-200i32) as u32;
    assert_eq!(
        enc(C::R8G8B8A8, T::Sint, false, [m200, 5, (-1i32) as u32, 127]),
        [0x80, 5, 0xff, 127]
    );
    let t = ints(decode(C::R16G16, T::Sint, false, false, &[0xfe, 0xff, 0x05, 0x00]).unwrap());
    assert_eq!(t, [(-2i32) as u32, 5, 0, 1]);
    let u = ints(decode(C::R32, T::Uint, false, false, &0xdead_beefu32.to_le_bytes()).unwrap());
    assert_eq!(u, [0xdead_beef, 0, 0, 1]);
    assert_eq!(enc(C::R16, T::Uint, false, [70000, 0, 0, 0]), [0xff, 0xff]);
}

#[test]
fn packed_16_bit_layouts() {
    // Channel 0 in the low bits.
    let t = floats(decode(C::R5G6B5, T::Unorm, false, false, &0xf800u16.to_le_bytes()).unwrap());
    assert_eq!(t, [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(
        enc(C::R5G6B5, T::Unorm, false, fv([1.0, 0.25, 0.0, 0.0])),
        (31u16 | (16 << 5)).to_le_bytes()
    );
    let t = floats(
        decode(
            C::R4G4B4A4,
            T::Unorm,
            false,
            false,
            &0x1234u16.to_le_bytes(),
        )
        .unwrap(),
    );
    assert_eq!(t, [4.0 / 15.0, 3.0 / 15.0, 2.0 / 15.0, 1.0 / 15.0]);
    assert_eq!(
        enc(C::R4G4B4A4, T::Unorm, false, fv([1.0, 0.0, 0.2, 1.0])),
        0xf30fu16.to_le_bytes()
    );
    let t = floats(
        decode(
            C::R5G5B5A1,
            T::Unorm,
            false,
            false,
            &0x8000u16.to_le_bytes(),
        )
        .unwrap(),
    );
    assert_eq!(t, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        enc(C::R5G5B5A1, T::Unorm, false, fv([0.0, 1.0, 0.0, 1.0])),
        (0x8000u16 | (31 << 5)).to_le_bytes()
    );
}

#[test]
fn packed_32_bit_layouts() {
    // 10:10:10:2 UNORM: 1023, 0.25 * 1023 = 255.75 -> 256, 0, alpha 1/3 * 3 = 1.
    let want = 1023u32 | (256 << 10) | (1 << 30);
    assert_eq!(
        enc(
            C::R10G10B10A2,
            T::Unorm,
            false,
            fv([1.0, 0.25, 0.0, 1.0 / 3.0])
        ),
        want.to_le_bytes()
    );
    let t = ints(
        decode(
            C::R10G10B10A2,
            T::Uint,
            false,
            false,
            &(5u32 | (1000 << 20) | (3 << 30)).to_le_bytes(),
        )
        .unwrap(),
    );
    assert_eq!(t, [5, 0, 1000, 3]);
    // 11:11:10 float: 1.0 = e15, 2.0 = e16, 0.5 (10-bit) = e14.
    let want = (15u32 << 6) | ((16 << 6) << 11) | ((14 << 5) << 22);
    assert_eq!(
        enc(C::R11G11B10, T::Float, false, fv([1.0, 2.0, 0.5, 0.0])),
        want.to_le_bytes()
    );
    let back = floats(decode(C::R11G11B10, T::Float, false, false, &want.to_le_bytes()).unwrap());
    assert_eq!(back, [1.0, 2.0, 0.5, 1.0]);
    // 9:9:9:5 shared exponent: max 1.0 gives exponent 16, mantissas 256, 128, 0.
    let want = 256u32 | (128 << 9) | (16 << 27);
    assert_eq!(
        enc(C::R9G9B9E5, T::Float, false, fv([1.0, 0.5, 0.0, 0.0])),
        want.to_le_bytes()
    );
    let back = floats(decode(C::R9G9B9E5, T::Float, false, false, &want.to_le_bytes()).unwrap());
    assert_eq!(back, [1.0, 0.5, 0.0, 1.0]);
    // 1023/1024 rounds the mantissa up to 512, which bumps the exponent.
    let e = u32::from_le_bytes(
        enc(C::R9G9B9E5, T::Float, false, fv([0.9995, 0.0, 0.0, 0.0]))
            .try_into()
            .unwrap(),
    );
    assert_eq!((e & 0x1ff, e >> 27), (256, 16));
}

#[test]
fn wide_float_and_half_layouts() {
    let v = [1.5f32, -0.0, 1e30, -7.25];
    let b = enc(C::R32G32B32A32, T::Float, false, fv(v));
    assert_eq!(
        floats(decode(C::R32G32B32A32, T::Float, false, false, &b).unwrap()),
        v
    );
    let b = enc(
        C::R16G16B16A16,
        T::Float,
        false,
        fv([1.0, -2.0, 0.5, 65504.0]),
    );
    assert_eq!(b, [0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b]);
    let b = enc(C::R16, T::Unorm, false, fv([0.5, 0.0, 0.0, 0.0]));
    assert_eq!(b, 32768u16.to_le_bytes());
    assert!(decode(C::R8, T::Float, false, false, &[0]).is_err());
    assert!(decode(C::Bc1, T::Unorm, false, false, &[0; 8]).is_err());
}

#[test]
fn wrap_modes() {
    assert_eq!(wrap(-1, 4, Wrap::Repeat), Some(3));
    assert_eq!(wrap(9, 4, Wrap::Repeat), Some(1));
    assert_eq!(wrap(-1, 4, Wrap::MirroredRepeat), Some(0));
    assert_eq!(wrap(4, 4, Wrap::MirroredRepeat), Some(3));
    assert_eq!(wrap(5, 4, Wrap::MirroredRepeat), Some(2));
    assert_eq!(wrap(-3, 4, Wrap::ClampToEdge), Some(0));
    assert_eq!(wrap(4, 4, Wrap::ClampToBorder), None);
    assert_eq!(wrap(3, 4, Wrap::ClampToBorder), Some(3));
    assert_eq!(wrap(-2, 4, Wrap::MirroredClampToEdge), Some(1));
    assert_eq!(wrap(9, 4, Wrap::MirroredClampToEdge), Some(3));
}

#[test]
fn cube_faces() {
    assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
    assert_eq!(cube_face([0.0, 0.0, -1.0]).0, 5);
    assert_eq!(cube_face([0.5, 1.0, 0.25]), (2, 0.75, 0.625));
    // -X: s from +z, t from -y.
    assert_eq!(cube_face([-2.0, 1.0, 1.0]), (1, 0.75, 0.25));
}

fn sampler(filter: Filter, mip: MipFilter, wrap: Wrap) -> Sampler {
    Sampler {
        min_lod: 0,
        max_lod: 14 * 64,
        max_anisotropy: 1,
        magnify: filter,
        minify: filter,
        mip_filter: mip,
        wrap: [wrap; 3],
        pixel_coordinates: false,
        compare_func: CompareFunc::Lequal,
        compare_enable: false,
        border_colour: BorderColour::TransparentBlack,
        seamful_cube_maps: false,
    }
}

#[test]
fn lod_queries_report_the_level_mip_selection_reads() {
    let ext = Extent {
        levels: 3,
        layers: 1,
        integer: false,
        unorm: false,
        custom_border: None,
    };
    // Nearest mipmapping reads level round(LOD), halves down; linear reads between two.
    let nearest = sampler(Filter::Linear, MipFilter::Nearest, Wrap::Repeat);
    assert_eq!(sample::query_lod(&nearest, ext, 0.5), [0.0, 0.5]);
    assert_eq!(sample::query_lod(&nearest, ext, 0.75), [1.0, 0.75]);
    assert_eq!(sample::query_lod(&nearest, ext, 5.0), [2.0, 5.0]);
    let linear = sampler(Filter::Linear, MipFilter::Linear, Wrap::Repeat);
    assert_eq!(sample::query_lod(&linear, ext, 0.75), [0.75, 0.75]);
    // "No mipmapping" as applications ask for it: nearest with maxLod 0.25 stays on level 0
    // of a view with more levels.
    let no_mips = Sampler {
        max_lod: 16,
        ..nearest
    };
    assert_eq!(sample::query_lod(&no_mips, ext, 0.43), [0.0, 0.43]);
    let none = sampler(Filter::Linear, MipFilter::None, Wrap::Repeat);
    assert_eq!(sample::query_lod(&none, ext, 1.5), [0.0, 1.5]);
}

/// A 4x4 image (3 levels 4, 2, 1) whose texel at (x, y, level) is (x, y, level, 1).
fn run(s: &Sampler, req: Request) -> [f32; 4] {
    let ext = Extent {
        levels: 3,
        layers: 1,
        integer: false,
        unorm: false,
        custom_border: None,
    };
    let size = |l: u32| [4 >> l, 4 >> l, 1];
    let mut fetch = |x: i64, y: i64, _z: i64, l: u32| -> Result<Texel, ()> {
        Ok(Texel::Float([x as f32, y as f32, l as f32, 1.0]))
    };
    floats(sample::sample(s, ext, &req, &size, &mut fetch).unwrap())
}

fn req(u: f32, v: f32, lod: f32) -> Request {
    Request {
        shape: Shape::D2,
        coords: [u, v, 0.0],
        layer: 0,
        lod,
        offset: [0; 3],
        compare: None,
    }
}

#[test]
fn bilinear_weights() {
    let s = sampler(Filter::Linear, MipFilter::None, Wrap::ClampToEdge);
    // u = 1.25 texels: taps 0 and 1 with weights 0.25 and 0.75; v = 2.0: taps 1, 2 at 0.5.
    let t = run(&s, req(1.25 / 4.0, 2.0 / 4.0, 0.0));
    assert_eq!(t, [0.75, 1.5, 0.0, 1.0]);
    // At the edge, clamping repeats texel 3.
    let t = run(&s, req(1.0, 1.0, 0.0));
    assert_eq!(t, [3.0, 3.0, 0.0, 1.0]);
}

#[test]
fn nearest_with_wraps_and_border() {
    let s = sampler(Filter::Nearest, MipFilter::None, Wrap::Repeat);
    assert_eq!(run(&s, req(-0.1, 0.3, 0.0))[..2], [3.0, 1.0]);
    let mut b = sampler(Filter::Nearest, MipFilter::None, Wrap::ClampToBorder);
    b.border_colour = BorderColour::OpaqueWhite;
    assert_eq!(run(&b, req(1.5, 0.5, 0.0)), [1.0; 4]);
    b.border_colour = BorderColour::OpaqueBlack;
    assert_eq!(run(&b, req(0.5, -0.01, 0.0)), [0.0, 0.0, 0.0, 1.0]);
    // Linear at the border blends half a texel of border.
    let mut lb = sampler(Filter::Linear, MipFilter::None, Wrap::ClampToBorder);
    lb.border_colour = BorderColour::TransparentBlack;
    let t = run(&lb, req(0.0, 0.5 / 4.0, 0.0));
    assert_eq!(t, [0.0, 0.0, 0.0, 0.5]);
}

#[test]
fn mip_selection_and_lod_clamps() {
    let n = sampler(Filter::Nearest, MipFilter::Nearest, Wrap::ClampToEdge);
    assert_eq!(run(&n, req(0.5, 0.5, 0.4))[2], 0.0);
    assert_eq!(run(&n, req(0.5, 0.5, 0.6))[2], 1.0);
    assert_eq!(run(&n, req(0.5, 0.5, 7.0))[2], 2.0);
    let l = sampler(Filter::Nearest, MipFilter::Linear, Wrap::ClampToEdge);
    assert_eq!(run(&l, req(0.5, 0.5, 1.25))[2], 1.25);
    // Level 1 of a 4x4 image is 2x2: (0.5, 0.5) is texel 1 there, 2 at level 0.
    assert_eq!(run(&l, req(0.5, 0.5, 0.5))[0], 0.5 * 2.0 + 0.5 * 1.0);
    let mut c = l;
    c.max_lod = 16; // 0.25
    assert_eq!(run(&c, req(0.5, 0.5, 3.0))[2], 0.25);
    c.min_lod = 128; // 2.0
    c.max_lod = 14 * 64;
    assert_eq!(run(&c, req(0.5, 0.5, 0.0))[2], 2.0);
    let none = sampler(Filter::Nearest, MipFilter::None, Wrap::ClampToEdge);
    assert_eq!(run(&none, req(0.5, 0.5, 2.0))[2], 0.0);
}

#[test]
fn depth_compare_per_tap() {
    let mut s = sampler(Filter::Linear, MipFilter::None, Wrap::ClampToEdge);
    s.compare_enable = true;
    s.compare_func = CompareFunc::Less;
    let ext = Extent {
        levels: 1,
        layers: 1,
        integer: false,
        unorm: true,
        custom_border: None,
    };
    let depth = [[0.2f32, 0.4], [0.6, 0.8]];
    let size = |_| [2, 2, 1];
    let mut fetch = |x: i64, y: i64, _z: i64, _l: u32| -> Result<Texel, ()> {
        Ok(Texel::Float([depth[y as usize][x as usize], 0.0, 0.0, 1.0]))
    };
    let mut r = req(0.5, 0.5, 0.0);
    r.compare = Some(0.5);
    let t = floats(sample::sample(&s, ext, &r, &size, &mut fetch).unwrap());
    assert_eq!(t, [0.5, 0.0, 0.0, 1.0]);
    // References above 1 clamp for UNORM depth: 1.0 < d fails everywhere.
    r.compare = Some(3.0);
    s.compare_func = CompareFunc::Lequal;
    let t = floats(sample::sample(&s, ext, &r, &size, &mut fetch).unwrap());
    assert_eq!(t[0], 0.0);
}

/// The format list in `usc::texture`'s header: every Vulkan format the descriptors map
/// decodes (so the ICD may advertise sampling for it): uncompressed ones a texel at a time,
/// block-compressed ones a block at a time (`compressed`); PVRTC and 4:2:2 do not.
#[test]
fn every_mapped_vulkan_format_decodes() {
    use hw::g13::image_desc::pixel_format;
    let extension_formats = [1_000_340_000, 1_000_340_001, 1_000_470_000, 1_000_470_001];
    let mut mapped = 0;
    for vk in (0..200).chain(extension_formats) {
        let Some(f) = pixel_format(vk) else { continue };
        mapped += 1;
        if f.block_dims() != (1, 1) {
            let b = super::compressed::decode_block(f.channels, f.texture_type, &[0; 16]);
            if let Err(e) = b {
                panic!("format {vk}: {e}");
            }
            continue;
        }
        let n = texel_bytes(f.channels).unwrap_or_else(|| panic!("format {vk}: no size"));
        let bytes = vec![0u8; n as usize];
        if let Err(e) = decode(f.channels, f.texture_type, f.srgb, false, &bytes) {
            panic!("format {vk}: {e}");
        }
    }
    assert!(mapped > 50 + 54, "{mapped} formats mapped");
    for c in [
        C::Bc1,
        C::Bc7,
        C::Etc2Rgb8,
        C::EacR11,
        C::Astc4x4,
        C::Pvrtc4bpp,
        C::Gbgr422,
    ] {
        // Not single texels: the block decoder takes the compressed ones.
        assert!(texel_bytes(c).is_none(), "{c:?}");
    }
    for c in [C::Pvrtc4bpp, C::Gbgr422] {
        assert!(
            super::compressed::decode_block(c, T::Unorm, &[0; 16]).is_err(),
            "{c:?}"
        );
    }
}

/// Bilinear sample of a cube of 2x2 faces whose texel (x, y) of face f is (x, y, f, 1).
fn cube_sample(seamful: bool, dir: [f32; 3]) -> [f32; 4] {
    let mut s = sampler(Filter::Linear, MipFilter::None, Wrap::ClampToEdge);
    s.seamful_cube_maps = seamful;
    let ext = Extent {
        levels: 1,
        layers: 6,
        integer: false,
        unorm: false,
        custom_border: None,
    };
    let size = |_| [2, 2, 1];
    let mut fetch = |x: i64, y: i64, z: i64, _| -> Result<Texel, ()> {
        Ok(Texel::Float([x as f32, y as f32, z as f32, 1.0]))
    };
    let req = Request {
        shape: Shape::Cube,
        coords: dir,
        ..req(0.0, 0.0, 0.0)
    };
    floats(sample::sample(&s, ext, &req, &size, &mut fetch).unwrap())
}

#[test]
fn seamless_cube_edges_and_corners() {
    // +X at s = 0, t = 0.5: half the footprint is +X's column 0, half +Z's column 1 (the +Z
    // edge at x = +1), same rows.
    assert_eq!(cube_sample(false, [1.0, 0.0, 1.0]), [0.5, 0.5, 2.0, 1.0]);
    // A seamful sampler clamps to +X's own edge.
    assert_eq!(cube_sample(true, [1.0, 0.0, 1.0]), [0.0, 0.5, 0.0, 1.0]);
    // +X's corner at s = t = 0: +X (0, 0), +Z (1, 0), +Y (1, 1), and the corner tap is the
    // mean of those three.
    let corner = [2.0 / 3.0, 1.0 / 3.0, 2.0, 1.0];
    let want: [f32; 4] = std::array::from_fn(|c| {
        0.25 * ([0.0, 0.0, 0.0, 1.0][c] + [1.0, 0.0, 4.0, 1.0][c] + [1.0, 1.0, 2.0, 1.0][c])
            + 0.25 * corner[c]
    });
    let got = cube_sample(false, [1.0, 1.0, 1.0]);
    assert!(
        got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
        "{got:?} vs {want:?}"
    );
    // +X at t = 1 (y = -1): its bottom row and -Y's row at x = +1, half each.
    let t = cube_sample(false, [1.0, -1.0, 0.0]);
    assert_eq!(t[2], 1.5, "{t:?}");
}

/// Every texel of every slice and level of a mip-mapped 3D image, as the texture unit
/// addresses it through the image's 3D texture descriptor, against the layout the driver
/// allocated and copies into.
fn assert_3d_descriptor_agrees_with_layout(layout: &hw::g13::layout::Layout) {
    use super::image::Surface;
    use hw::g13::control::descriptors::{Texture, TextureDimension};
    use hw::g13::image_desc::{pixel_format, texture_descriptor, ImageDesc};
    const BASE: u64 = 0x10_0000_0000;
    let desc = ImageDesc {
        base: BASE,
        layout,
        // VK_FORMAT_R8G8B8A8_UNORM
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D3,
    };
    let words = texture_descriptor(&desc, 0, layout.levels, 0, layout.layers).unwrap();
    let surface = Surface::from_texture(&Texture::unpack(&words).unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(surface.levels, layout.levels);
    for level in 0..layout.levels {
        let [w, h, d] = surface.extent(level);
        assert_eq!((w, h), layout.level_extent(level));
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let want = BASE + layout.offset_of(x, y, z, level, 0).unwrap();
                    let got = surface.address(x.into(), y.into(), z.into(), level, 0);
                    assert_eq!(
                        got,
                        Some(want),
                        "texel ({x}, {y}, {z}) of level {level} of a {}x{}x{} image",
                        layout.width,
                        layout.height,
                        layout.layers
                    );
                }
            }
        }
    }
}

#[test]
fn texture_unit_finds_the_slices_of_a_3d_image_deeper_than_wide() {
    use hw::g13::layout::{Layout, Tiling, Usage};
    let tw = Tiling::Twiddled;
    let z = Usage {
        mipmapped_z: true,
        ..Usage::default()
    };
    // Depth the largest dimension (CTS pipeline.*.image.*.view_type.3d.*.size.5x11x17 and
    // 8x16x32, full chains); then smaller than the chain of width and height, and a 3D
    // image asking for fewer levels than its depth has: the layout still allocates (and
    // the texture unit still counts) the whole chain.
    for (w, h, d, levels) in [
        (5, 11, 17, 5),
        (8, 16, 32, 6),
        (17, 11, 5, 5),
        (32, 16, 8, 6),
        (4, 4, 32, 4),
    ] {
        let l = Layout::with_blocks(w, h, d, levels, (1, 1), 4, tw, 1, z).unwrap();
        assert_eq!(
            l.levels,
            hw::g13::layout::full_chain(w, h, d),
            "{w}x{h}x{d}"
        );
        assert_3d_descriptor_agrees_with_layout(&l);
    }
}

/// 8-bit UNORM RGBA texels take a shorter path than other layouts; it must give what the
/// general rule gives (each byte over 255) for every byte in every channel, and sRGB and
/// two-byte layouts of the same bytes still take the general one.
#[test]
fn rgba8_unorm_texels_are_each_byte_over_255() {
    for v in 0..=255u8 {
        let bytes = [v, 255 - v, v ^ 0x5a, v / 3];
        let want = bytes.map(|b| super::format::norm_to_float(u32::from(b), 8, false));
        let got = floats(decode(C::R8G8B8A8, T::Unorm, false, false, &bytes).unwrap());
        assert_eq!(fv(got), fv(want), "bytes {bytes:?}");
        let srgb = floats(decode(C::R8G8B8A8, T::Unorm, true, false, &bytes).unwrap());
        assert_eq!(srgb[0].to_bits(), srgb::to_linear(want[0]).to_bits());
        let two = floats(decode(C::R8G8, T::Unorm, false, false, &bytes).unwrap());
        assert_eq!(fv(two), fv([want[0], want[1], 0.0, 1.0]));
    }
}

#[test]
fn floor_and_ceil_are_the_standard_library_s_bit_for_bit() {
    // Every 251st bit pattern (all exponents, both signs, NaNs), and the values around the
    // integers and the 2^23 edge where the fast path hands over.
    let mut values: Vec<f32> = (0..=u32::MAX / 251)
        .map(|i| f32::from_bits(i * 251))
        .collect();
    for k in -70i32..70 {
        let base = k as f32 * 0.25;
        values.extend([base, f32::from_bits(base.to_bits() + 1), -base]);
    }
    let edge = 8_388_608.0f32;
    for v in [
        edge,
        -edge,
        edge - 0.5,
        -(edge - 0.5),
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ] {
        values.push(v);
    }
    for v in values {
        let (f, c) = (sample::floor(v), sample::ceil(v));
        assert!(
            f.to_bits() == v.floor().to_bits() || (f.is_nan() && v.is_nan()),
            "floor({v:e}) = {f:e}, not {:e}",
            v.floor()
        );
        assert!(
            c.to_bits() == v.ceil().to_bits() || (c.is_nan() && v.is_nan()),
            "ceil({v:e}) = {c:e}, not {:e}",
            v.ceil()
        );
    }
}

/// `lod_free` samplers select the same filter and levels at every LOD, NaN and infinities
/// included, and the test finds samplers that are not LOD-free.
#[test]
fn lod_free_samplers_select_alike_at_every_lod() {
    let lods = [
        f32::NAN,
        f32::NEG_INFINITY,
        -3.0,
        -0.0,
        0.0,
        0.3,
        0.5,
        1.0,
        2.7,
        9.0,
        f32::INFINITY,
    ];
    let (mut free, mut not_free) = (0, 0);
    for mag in [Filter::Nearest, Filter::Linear] {
        for min in [Filter::Nearest, Filter::Linear] {
            for mip in [MipFilter::None, MipFilter::Nearest, MipFilter::Linear] {
                for (min_lod, max_lod) in [(0, 0), (0, 16), (64, 64), (0, 14 * 64)] {
                    for levels in [1, 2, 5] {
                        for integer in [false, true] {
                            let mut s = sampler(mag, mip, Wrap::Repeat);
                            s.minify = min;
                            s.min_lod = min_lod;
                            s.max_lod = max_lod;
                            let ext = Extent {
                                levels,
                                layers: 1,
                                integer,
                                unorm: false,
                                custom_border: None,
                            };
                            let at = |lod: f32| {
                                let (f, l) = sample::select(&s, &ext, lod).unwrap();
                                (f, l.to_vec())
                            };
                            let differs = lods.iter().any(|&lod| at(lod) != at(0.0));
                            if sample::lod_free(&s, &ext) {
                                free += 1;
                                assert!(!differs, "{s:?} {ext:?} is not LOD-free");
                            } else {
                                not_free += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        free > 50 && not_free > 50,
        "{free} LOD-free, {not_free} not"
    );
}

/// `Surface::level_address` addresses layer 0, sample 0 of a level as `Surface::address`
/// does, outside the level included, for linear and twiddled 2D images of several sizes,
/// formats, mip chains and views.
#[test]
fn level_addressing_agrees_with_surface_addresses() {
    use super::image::Surface;
    use hw::g13::control::descriptors::{Texture, TextureDimension};
    use hw::g13::image_desc::{pixel_format, texture_descriptor, ImageDesc};
    use hw::g13::layout::{Layout, Tiling};
    let mut checked = 0;
    // VkFormats R8G8B8A8_UNORM, R8_UNORM, R16G16B16A16_SFLOAT, R32G32B32A32_SFLOAT.
    for (vk, bytes) in [(37, 4), (9, 1), (97, 8), (109, 16)] {
        for (w, h, levels, linear) in [
            (1, 1, 1, false),
            (37, 19, 6, false),
            (64, 64, 7, false),
            (130, 3, 8, false),
            (33, 7, 1, true),
        ] {
            let tiling = if linear {
                Tiling::Linear { stride: None }
            } else {
                Tiling::Twiddled
            };
            let layout = Layout::new(w, h, 1, levels, bytes, tiling, 1).unwrap();
            let desc = ImageDesc {
                base: 0x10_0000,
                layout: &layout,
                format: pixel_format(vk).unwrap(),
                dimension: TextureDimension::D2,
            };
            for first in 0..levels {
                let words = texture_descriptor(&desc, first, levels - first, 0, 1).unwrap();
                let s = Surface::from_texture(&Texture::unpack(&words).unwrap())
                    .unwrap()
                    .unwrap();
                for level in 0..s.levels {
                    let a = s.level_address(level).unwrap();
                    let [lw, lh, _] = s.extent(level);
                    for y in -2..i64::from(lh) + 2 {
                        for x in -2..i64::from(lw) + 2 {
                            assert_eq!(
                                a.at(x, y),
                                s.address(x, y, 0, level, 0),
                                "({x}, {y}) of level {level} from {first} of {w}x{h} format {vk}"
                            );
                            checked += 1;
                        }
                    }
                }
                assert!(s.level_address(s.levels).is_none());
            }
        }
    }
    assert!(checked > 20_000, "{checked}");
}

/// `floor_i64` is `floor(x) as i64` everywhere: around zero and the integers, at the edges
/// of exact integers in f32, of i64, at the infinities and NaN.
#[test]
fn floor_to_integer_agrees_with_the_float_floor() {
    let mut xs = vec![
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        -8_388_609.0,
        9.223_372e18,
        -9.223_372e18,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
    ];
    let mut rng = hw::test_rng::Rng(0x1234_5678);
    for _ in 0..100_000 {
        let bits = rng.next() as u32;
        xs.push(f32::from_bits(bits));
        xs.push((bits % 2000) as f32 / 64.0 - 15.6);
    }
    for x in xs {
        assert_eq!(sample::floor_i64(x), sample::floor(x) as i64, "{x:e}");
    }
}
