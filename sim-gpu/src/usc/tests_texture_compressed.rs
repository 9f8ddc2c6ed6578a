//! Block-compressed images through the texture unit: blocks written into GPU memory at the
//! ail block layout's addresses, read by `texture` loads and samples through descriptors
//! from `g13::image_desc`. Every expected texel is worked out by hand, in the comments, from
//! the format rules of the Khronos Data Format Specification (and the ASTC specification).

use super::*;
use crate::texel::minifloat::f16_to_f32;
use hw::g13::layout::Usage;

const BC1_RGB: i32 = 131;
const BC1_RGBA: i32 = 133;
const BC1_RGBA_SRGB: i32 = 134;
const BC2: i32 = 135;
const BC3: i32 = 137;
const BC4: i32 = 139;
const BC4_SNORM: i32 = 140;
const BC5_SNORM: i32 = 142;
const BC6H_UFLOAT: i32 = 143;
const BC6H_SFLOAT: i32 = 144;
const BC7: i32 = 145;
const ETC2_RGB8: i32 = 147;
const ETC2_RGB8A1: i32 = 149;
const ETC2_RGBA8: i32 = 151;
const EAC_R11: i32 = 153;
const EAC_R11_SNORM: i32 = 154;
const EAC_RG11: i32 = 155;
const ASTC_4X4: i32 = 157;
const ASTC_12X12_SRGB: i32 = 184;

/// An image of `vk` format, `w` x `h` texels (one level, or the full chain when `levels` is
/// more than one), with `blocks` = (x, y, level, bytes) written at the block holding texel
/// (x, y).
fn image(
    vk: i32,
    w: u32,
    h: u32,
    levels: u32,
    blocks: &[(u32, u32, u32, &[u8])],
) -> (FlatMemory, TextureState) {
    let f = pixel_format(vk).unwrap();
    let layout = Layout::with_blocks(
        w,
        h,
        1,
        levels,
        f.block_dims(),
        f.bytes_per_block().unwrap(),
        Tiling::Twiddled,
        1,
        Usage::default(),
    )
    .unwrap();
    let mut m = memory(&layout);
    for &(x, y, level, b) in blocks {
        put(&mut m, &layout, [x, y, 0, level, 0], b);
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: f,
        dimension: Dim::D2,
    };
    let levels = layout.levels;
    let s = SamplerDesc {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..SamplerDesc::default()
    };
    let st = state(
        vec![texture_descriptor(&img, 0, levels, 0, 1).unwrap()],
        vec![sampler_descriptor(&s)],
    );
    (m, st)
}

/// Loads the texels at `at` of an image of `blocks`, one single-lane run per texel.
fn load(
    vk: i32,
    w: u32,
    h: u32,
    blocks: &[(u32, u32, u32, &[u8])],
    at: &[(u32, u32)],
) -> Vec<[f32; 4]> {
    let (mut m, st) = image(vk, w, h, 1, blocks);
    let mut out = Vec::new();
    for &(x, y) in at {
        let body = vec![
            mov(Reg::r32(4), x),
            mov(Reg::r32(5), y),
            Instr::Texture(tex(true, TexDim::D2)),
        ];
        run(body, 1, st.clone(), &mut m).unwrap();
        out.push(outf(&m, 0));
    }
    out
}

/// Loads all texels of a 4x4 image of one block, row-major.
fn load_block(vk: i32, block: &[u8]) -> Vec<[f32; 4]> {
    let at: Vec<(u32, u32)> = (0..16).map(|i| (i % 4, i / 4)).collect();
    load(vk, 4, 4, &[(0, 0, 0, block)], &at)
}

fn u8s(v: [u32; 4]) -> [f32; 4] {
    v.map(|c| c as f32 / 255.0)
}

fn near(a: [f32; 4], b: [f32; 4], tol: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// A little-endian bit writer for building BC6H, BC7 and ASTC blocks.
struct Bits(u128, u32);

impl Bits {
    fn new() -> Bits {
        Bits(0, 0)
    }
    fn put(&mut self, n: u32, v: u32) -> &mut Bits {
        self.0 |= (u128::from(v) & ((1u128 << n) - 1)) << self.1;
        self.1 += n;
        self
    }
    fn bytes(&self) -> [u8; 16] {
        self.0.to_le_bytes()
    }
}

/// BC1: red 0xf800 and blue 0x001f; c0 > c1 gives four colours: c0, c1, (2c0 + c1) / 3,
/// (c0 + 2c1) / 3 (170 and 85 in 8 bits). Index word 0xe4 per row: indices 0, 1, 2, 3
/// across.
const BC1_4_COLOUR: [u8; 8] = [0x00, 0xf8, 0x1f, 0x00, 0xe4, 0xe4, 0xe4, 0xe4];
/// BC1 with c0 <= c1 (blue, red): three colours and index 3 transparent black.
const BC1_3_COLOUR: [u8; 8] = [0x1f, 0x00, 0x00, 0xf8, 0xe4, 0xe4, 0xe4, 0xe4];

#[test]
fn bc1_four_and_three_colour_blocks() {
    let t = load_block(BC1_RGBA, &BC1_4_COLOUR);
    for y in 0..4 {
        assert_eq!(t[4 * y], [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t[4 * y + 1], [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(t[4 * y + 2], u8s([170, 0, 85, 255]));
        assert_eq!(t[4 * y + 3], u8s([85, 0, 170, 255]));
    }
    // Three-colour mode: index 2 is the mean of blue and red, index 3 transparent black;
    // BC1_RGB reads that texel's alpha as one (the swizzle), BC1_RGBA as zero.
    let t = load_block(BC1_RGBA, &BC1_3_COLOUR);
    assert_eq!(t[0], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(t[1], [1.0, 0.0, 0.0, 1.0]);
    assert!(near(t[2], [0.5, 0.0, 0.5, 1.0], 1.0 / 255.0), "{:?}", t[2]);
    assert_eq!(t[3], [0.0; 4]);
    let t = load_block(BC1_RGB, &BC1_3_COLOUR);
    assert_eq!(t[3], [0.0, 0.0, 0.0, 1.0]);
    // sRGB: decoded after the block decode, colour channels only.
    let t = load_block(BC1_RGBA_SRGB, &BC1_4_COLOUR);
    let s = crate::texel::srgb::to_linear(170.0 / 255.0);
    let l = crate::texel::srgb::to_linear(85.0 / 255.0);
    assert_eq!(t[2], [s, 0.0, l, 1.0]);
}

#[test]
fn bc2_and_bc3_alpha() {
    // BC2: explicit 4-bit alpha, texel i in nibble i: 0x0, 0xf, 0x8, ... -> v * 17 / 255.
    let mut b = [0u8; 16];
    b[0] = 0xf0;
    b[1] = 0x08;
    b[8..].copy_from_slice(&BC1_4_COLOUR);
    let t = load_block(BC2, &b);
    assert_eq!(t[0], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(t[1], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(t[2][3], 136.0 / 255.0);
    // BC3: alpha endpoints 200 > 100 (eight-value mode); 3-bit indices from byte 2: texel 0
    // index 0 (200), texel 1 index 1 (100), texel 2 index 7 ((200 + 6 * 100) / 7 = 114 in
    // 8 bits), the rest 0.
    let mut b = [0u8; 16];
    b[0] = 200;
    b[1] = 100;
    let idx: u64 = 1 << 3 | 7 << 6;
    b[2..8].copy_from_slice(&idx.to_le_bytes()[..6]);
    b[8..].copy_from_slice(&BC1_4_COLOUR);
    let t = load_block(BC3, &b);
    assert_eq!(t[0][3], 200.0 / 255.0);
    assert_eq!(t[1][3], 100.0 / 255.0);
    assert!((t[2][3] - 800.0 / 7.0 / 255.0).abs() <= 1.0 / 255.0);
    assert_eq!(t[5][3], 200.0 / 255.0);
}

#[test]
fn bc4_bc5_unorm_and_snorm_in_float() {
    // Endpoints 255 > 0: texel 0 index 0 (1.0), texel 1 index 1 (0.0), texel 2 index 2
    // (6/7), texel 3 index 7 (1/7); interpolated in float, not 8 bits.
    let idx: u64 = 1 << 3 | 2 << 6 | 7 << 9;
    let mut b = [0u8; 8];
    b[0] = 255;
    b[2..8].copy_from_slice(&idx.to_le_bytes()[..6]);
    let t = load_block(BC4, &b);
    assert_eq!(t[0], [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[1], [0.0, 0.0, 0.0, 1.0]);
    assert!((t[2][0] - 6.0 / 7.0).abs() < 1e-6);
    assert!((t[3][0] - 1.0 / 7.0).abs() < 1e-6);
    // SNORM: endpoints 127 (1.0) and -128, read as -127 (-1.0); 127 > -128 so eight values:
    // index 2 is (6 - 1) / 7.
    let mut s = b;
    s[0] = 127;
    s[1] = 0x80;
    let t = load_block(BC4_SNORM, &s);
    assert_eq!(t[0][0], 1.0);
    assert_eq!(t[1][0], -1.0);
    assert!((t[2][0] - 5.0 / 7.0).abs() < 1e-6);
    // BC5 SNORM: red as above, green a constant 64 / 127; blue 0 and alpha 1 (swizzle).
    let mut rg = [0u8; 16];
    rg[..8].copy_from_slice(&s);
    rg[8] = 64;
    rg[9] = 64;
    let t = load_block(BC5_SNORM, &rg);
    assert_eq!(t[0], [1.0, 64.0 / 127.0, 0.0, 1.0]);
    assert_eq!(t[1], [-1.0, 64.0 / 127.0, 0.0, 1.0]);
}

/// BC6H mode 11 (mode bits 00011): one region, 10-bit endpoints stored directly, 4-bit
/// indices (texel 0's anchor index has 3 bits). Endpoints (495, 0, 495) and (0, 495, 0);
/// texel 1 index 15 (the second endpoint), the rest 0.
fn bc6h_block() -> [u8; 16] {
    let mut b = Bits::new();
    b.put(5, 0b00011);
    for v in [495, 0, 495, 0, 495, 0] {
        b.put(10, v);
    }
    b.put(3, 0).put(4, 15);
    b.bytes()
}

#[test]
fn bc6h_half_float_results() {
    // Unsigned: 10-bit 495 unquantises to (495 << 16 | 0x8000) >> 10 = 31712, and
    // 31712 * 31 >> 6 = 15360 = 0x3c00, half 1.0; 0 stays 0.
    let t = load_block(BC6H_UFLOAT, &bc6h_block());
    assert_eq!(t[0], [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(t[1], [0.0, 1.0, 0.0, 1.0]);
    // Signed: ((495 << 15) + 0x4000) >> 9 = 31712, 31712 * 31 >> 5 = 30721 = 0x7801, half
    // 32800: the result is a half float, not an 8-bit value.
    let t = load_block(BC6H_SFLOAT, &bc6h_block());
    assert_eq!(t[0], [f16_to_f32(0x7801), 0.0, f16_to_f32(0x7801), 1.0]);
    assert_eq!(t[0][0], 32800.0);
}

#[test]
fn bc7_mode_6_and_reserved_mode() {
    // Mode 6 (bit 6 set): one subset, 7-bit RGBA endpoints plus a p-bit each (endpoint =
    // c << 1 | p), 4-bit indices (anchor 3 bits). e0 = (255, 1, 1, 255), e1 = (1, 255, 1,
    // 255); texel 1 index 15 gives e1 exactly.
    let mut b = Bits::new();
    b.put(7, 1 << 6);
    for v in [127, 0, 0, 127, 0, 0, 127, 127] {
        b.put(7, v);
    }
    b.put(1, 1).put(1, 1).put(3, 0).put(4, 15);
    let t = load_block(BC7, &b.bytes());
    assert_eq!(t[0], u8s([255, 1, 1, 255]));
    assert_eq!(t[1], u8s([1, 255, 1, 255]));
    // A first byte of zero is the reserved mode 8: every texel is transparent black.
    let t = load_block(BC7, &[0u8; 16]);
    assert!(t.iter().all(|&v| v == [0.0; 4]));
}

/// ETC2 differential block: base R 31 with dR -1 (30), G 0 with dG +3, B 16 with dB 0;
/// 5-bit to 8-bit: 255, 0, 132 and 247, 24, 132. Both tables 1 (modifiers 5, 17), no flip
/// (left and right 2x4 halves). Texel a (0, 0) index 1 (+17), the rest index 0 (+5).
const ETC2_DIFF: [u8; 8] = [0xff, 0x03, 0x80, 0x26, 0, 0, 0, 0x01];

#[test]
fn etc2_individual_and_differential_blocks() {
    // Individual: left (8, 8, 8) -> 136, right (15, 0, 0) -> (255, 0, 0), table 0 (+2, +8),
    // every index 0 (+2).
    let b = [0x8f, 0x80, 0x80, 0x00, 0, 0, 0, 0];
    let t = load_block(ETC2_RGB8, &b);
    assert_eq!(t[0], u8s([138, 138, 138, 255]));
    assert_eq!(t[4 * 3 + 1], u8s([138, 138, 138, 255]));
    assert_eq!(t[2], u8s([255, 2, 2, 255]));
    assert_eq!(t[4 * 2 + 3], u8s([255, 2, 2, 255]));
    let t = load_block(ETC2_RGB8, &ETC2_DIFF);
    assert_eq!(t[0], u8s([255, 17, 149, 255]));
    assert_eq!(t[4], u8s([255, 5, 137, 255]));
    assert_eq!(t[3], u8s([252, 29, 137, 255]));
}

#[test]
fn etc2_planar_block() {
    // Differential reading: R 8 + 1 and G 0 + 1 are in range, B 0 - 4 is not: planar mode.
    // O = (32, 64, 32) -> (130, 129, 130) (6/7/6 bits widened by repeating the top bits),
    // H = (36, 64, 32) -> (146, 129, 130), V = O. Texel (x, y) is
    // (x (H - O) + y (V - O) + 4 O + 2) >> 2: red (16 x + 522) >> 2.
    let b = [0x41, 0x01, 0x04, 0x4a, 0x81, 0x04, 0x10, 0x20];
    let t = load_block(ETC2_RGB8, &b);
    assert_eq!(t[0], u8s([130, 129, 130, 255]));
    assert_eq!(t[1], u8s([134, 129, 130, 255]));
    assert_eq!(t[3], u8s([142, 129, 130, 255]));
    assert_eq!(t[15], u8s([142, 129, 130, 255]));
}

#[test]
fn etc2_t_mode_block() {
    // Differential reading: R 31 + 1 overflows: T mode. Colour 1 = (R1a R1b = 0b1101, 0, 0)
    // -> (221, 0, 0); colour 2 = (4, 8, 12) -> (68, 136, 204); distance index 0b01 << 1 | 0
    // = 2 (11). Paint colours: c1, c2 + 11, c2, c2 - 11. Texels a, b, c, d (column 0) get
    // indices 0, 1, 2, 3; the rest 0.
    let b = [0xf9, 0x00, 0x48, 0xc6, 0x00, 0x0c, 0x00, 0x0a];
    let t = load_block(ETC2_RGB8, &b);
    assert_eq!(t[0], u8s([221, 0, 0, 255]));
    assert_eq!(t[4], u8s([79, 147, 215, 255]));
    assert_eq!(t[8], u8s([68, 136, 204, 255]));
    assert_eq!(t[12], u8s([57, 125, 193, 255]));
    assert_eq!(t[1], u8s([221, 0, 0, 255]));
}

#[test]
fn etc2_punchthrough_and_alpha() {
    // RGB8A1 with the opaque bit (the differential bit's place) clear: index 0 is the base
    // colour unmodified, index 2 transparent black. Texel b (0, 1) gets index 2 (its MSB is
    // bit 17).
    let mut b = ETC2_DIFF;
    b[3] &= !0x02;
    b[5] = 0x02;
    // The opaque bit is clear, so the differential mode is still chosen by the table bits:
    // ETC2 RGB8A1 always decodes in differential (or T/H/planar) mode.
    let t = load_block(ETC2_RGB8A1, &b);
    assert_eq!(t[0], u8s([255, 17, 149, 255]));
    assert_eq!(t[4], [0.0; 4]);
    assert_eq!(t[1], u8s([255, 0, 132, 255]));
    assert_eq!(t[3], u8s([247, 24, 132, 255]));
    // RGBA8: an 8-byte alpha block first, base 128, multiplier 1, table 13, every index 0
    // (-1): alpha 127.
    let mut rgba = [0u8; 16];
    rgba[0] = 128;
    rgba[1] = 0x1d;
    rgba[8..].copy_from_slice(&ETC2_DIFF);
    let t = load_block(ETC2_RGBA8, &rgba);
    assert_eq!(t[0], u8s([255, 17, 149, 127]));
}

/// EAC: base 128, multiplier 1, table 13 (-1, -2, -3, -10, 0, 1, 2, 9); texel a index 0,
/// texel b (0, 1) index 7, the rest 0.
/// (Texel a's index is bits 47..45 of the big-endian word, b's 44..42: byte 2 bits 4..2.)
const EAC: [u8; 8] = [128, 0x1d, 0x1c, 0, 0, 0, 0, 0];

#[test]
fn eac_r11_and_rg11_keep_eleven_bits() {
    // Unsigned: 128 * 8 + 4 - 1 * 8 = 1020; index 7: 1028 + 9 * 8 = 1100; / 2047.
    let t = load_block(EAC_R11, &EAC);
    assert_eq!(t[0], [1020.0 / 2047.0, 0.0, 0.0, 1.0]);
    assert_eq!(t[4], [1100.0 / 2047.0, 0.0, 0.0, 1.0]);
    // Multiplier 0: the modifier itself, unscaled: 1028 - 1 and 1028 + 9.
    let mut m0 = EAC;
    m0[1] = 0x0d;
    let t = load_block(EAC_R11, &m0);
    assert_eq!(t[0][0], 1027.0 / 2047.0);
    assert_eq!(t[4][0], 1037.0 / 2047.0);
    // Signed: base -128 reads as -127: -1016 - 8 = -1024, clamped to -1023 (-1.0); index 7:
    // -1016 + 72 = -944.
    let t = load_block(EAC_R11_SNORM, &EAC);
    assert_eq!(t[0][0], -1.0);
    assert_eq!(t[4][0], -944.0 / 1023.0);
    // RG11: two channel blocks.
    let mut rg = [0u8; 16];
    rg[..8].copy_from_slice(&EAC);
    rg[8..].copy_from_slice(&m0);
    let t = load_block(EAC_RG11, &rg);
    assert_eq!(t[4], [1100.0 / 2047.0, 1037.0 / 2047.0, 0.0, 1.0]);
}

/// ASTC void-extent block (LDR, extent all ones) of colour (0xffff, 0x8000, 0, 0xffff).
fn astc_void_extent(hdr: bool) -> [u8; 16] {
    let mut b = Bits::new();
    b.put(9, 0x1fc).put(1, u32::from(hdr)).put(2, 3);
    b.put(26, 0x3ff_ffff).put(26, 0x3ff_ffff);
    b.put(16, 0xffff).put(16, 0x8000).put(16, 0).put(16, 0xffff);
    b.bytes()
}

#[test]
fn astc_void_extent_and_error_colour() {
    // UNORM ASTC reads C as FP16 (Vulkan's decode_float16): 0x8000 is exactly 0.5, where
    // an 8-bit decode gave 128 / 255.
    let t = load_block(ASTC_4X4, &astc_void_extent(false));
    assert!(t.iter().all(|&v| v == [1.0, 0.5, 0.0, 1.0]), "{:?}", t[0]);
    let magenta = [1.0, 0.0, 1.0, 1.0];
    // An HDR void extent is an error in the LDR profile; block mode 0 is reserved.
    assert!(load_block(ASTC_4X4, &astc_void_extent(true))
        .iter()
        .all(|&v| v == magenta));
    assert!(load_block(ASTC_4X4, &[0u8; 16])
        .iter()
        .all(|&v| v == magenta));
    // A 12x12 sRGB block: texel (11, 11) of the first block of a 14x13 image, and the
    // second block row's texel (13, 12) reads its own (zero, reserved: magenta) block.
    let b = astc_void_extent(false);
    let t = load(
        ASTC_12X12_SRGB,
        14,
        13,
        &[(0, 0, 0, &b)],
        &[(11, 11), (13, 12)],
    );
    let g = crate::texel::srgb::to_linear(128.0 / 255.0);
    assert_eq!(t[0], [1.0, g, 0.0, 1.0]);
    assert_eq!(t[1], magenta);
}

#[test]
fn astc_ordinary_block() {
    // Block mode 0x42: a 4x4 weight grid of 4 levels (2 bits each, 32 bits), one plane;
    // one partition, endpoint mode 8 (LDR RGB direct). 128 - 17 - 32 = 79 bits leave room
    // for six 8-bit endpoint values: (0, 255, 0, 255, 0, 255), so e0 black and e1 white.
    // Weights are read from bit 127 down: texel 0 weight 0, texel 1 weight 1 (21/64), the
    // rest 3 (64/64).
    let mut b = Bits::new();
    b.put(11, 0x42).put(2, 0).put(4, 8);
    for v in [0, 255, 0, 255, 0, 255] {
        b.put(8, v);
    }
    let mut block = b.0;
    // Stream bit j is block bit 127 - j; weight i is stream bits 2i (low), 2i + 1.
    for i in 0..16 {
        let w = match i {
            0 => 0,
            1 => 1,
            _ => 3,
        };
        for k in 0..2 {
            if (w >> k) & 1 != 0 {
                block |= 1u128 << (127 - (2 * i + k));
            }
        }
    }
    let t = load_block(ASTC_4X4, &block.to_le_bytes());
    assert_eq!(t[0], [0.0, 0.0, 0.0, 1.0]);
    // C = (0xffff * 21 + 32) / 64 = 21504, read as 21504 / 65536 (exact in FP16), not
    // rounded to 8 bits.
    assert_eq!(t[1], [0.328125, 0.328125, 0.328125, 1.0]);
    for v in &t[2..] {
        assert_eq!(*v, [1.0; 4]);
    }
}

#[test]
fn astc_6x6_block_with_a_3x3_weight_grid() {
    // Block mode 0x3bf: a 3x3 grid of 32-level weights (5 bits, 45 bits), one plane; one
    // partition of endpoint mode 8, endpoints black and white (8-bit values: 128 - 17 - 45
    // leaves 66 bits). Grid weight (0, 0) is 0, the rest 31 (64). The 6x6 texels take
    // weights by the specification's infill: Ds = (1024 + 3) / 5 = 205, gs = (205 s * 2 +
    // 32) >> 6: s = 1 gives grid 0 + 6/16. Texel (1, 0): (64 * 6 + 8) >> 4 = 24, C =
    // (65535 * 24 + 32) / 64 = 24576 (0.375); texel (1, 1): weights 6, 4, 4, 2 -> (64 * 10
    // + 8) >> 4 = 40, C = 40959, which FP16 holds only to 11 significant bits, rounded
    // toward zero: 40928 / 65536; texel (5, 5) is grid point (2, 2): white.
    let mut b = Bits::new();
    b.put(11, 0x3bf).put(2, 0).put(4, 8);
    for v in [0, 255, 0, 255, 0, 255] {
        b.put(8, v);
    }
    let mut block = b.0;
    for i in 1..9 {
        for k in 0..5 {
            block |= 1u128 << (127 - (5 * i + k));
        }
    }
    let at = [(0, 0), (1, 0), (0, 1), (1, 1), (5, 5)];
    let t = load(165, 6, 6, &[(0, 0, 0, &block.to_le_bytes())], &at);
    let grey = |v: f32| [v, v, v, 1.0];
    assert_eq!(t[0], grey(0.0));
    assert_eq!(t[1], grey(0.375));
    assert_eq!(t[2], grey(0.375));
    assert_eq!(t[3], grey(40928.0 / 65536.0));
    assert_eq!(t[4], [1.0; 4]);
}

#[test]
fn sample_bc1_filters_across_blocks_and_levels() {
    // 8x8 BC1 with two levels: level 0 is 2x2 blocks, solid red (0xf800 both endpoints) on
    // the left, solid blue on the right; level 1 (4x4) is one solid green block.
    let red = [0x00, 0xf8, 0x00, 0xf8, 0, 0, 0, 0];
    let blue = [0x1f, 0x00, 0x1f, 0x00, 0, 0, 0, 0];
    let green = [0xe0, 0x07, 0xe0, 0x07, 0, 0, 0, 0];
    let blocks: [(u32, u32, u32, &[u8]); 5] = [
        (0, 0, 0, &red),
        (0, 4, 0, &red),
        (4, 0, 0, &blue),
        (4, 4, 0, &blue),
        (0, 0, 1, &green),
    ];
    let (mut m, st) = image(BC1_RGB, 8, 8, 2, &blocks);
    let at = |m: &mut FlatMemory, u: f32, lod: u16| {
        let body = vec![
            movf(Reg::r32(4), u),
            movf(Reg::r32(5), 0.5),
            mov(Reg::r16(32), u32::from(lod)),
            Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
        ];
        run(body, 1, st.clone(), m).unwrap();
        outf(m, 0)
    };
    // u = 0.5 is the edge between texels 3 and 4: half red, half blue.
    assert!(near(at(&mut m, 0.5, 0), [0.5, 0.0, 0.5, 1.0], 1e-6));
    assert_eq!(at(&mut m, 0.25, 0), [1.0, 0.0, 0.0, 1.0]);
    // LOD 1.0 (half 0x3c00), nearest level: green.
    assert_eq!(at(&mut m, 0.5, 0x3c00), [0.0, 1.0, 0.0, 1.0]);
}

#[test]
fn a_block_is_decoded_once_for_all_its_texels() {
    // 16 lanes load the 16 texels of one ASTC 4x4 block (bytes no other test uses): one
    // decode, the other 15 fetches hit this thread's cache.
    let mut block = astc_void_extent(false);
    block[8..].copy_from_slice(&[0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
    let (mut m, st) = image(ASTC_4X4, 4, 4, 1, &[(0, 0, 0, &block)]);
    // Lane i reads (i % 4, i / 4): r5 = (lane >> 2) & 3, r4 = lane & 3 (AND table 0b1000).
    let body = vec![
        lane_index(Reg::r32(4)),
        Instr::Shift(Shift {
            op: ShiftOp::Bfeil,
            dst: Dst::from(Reg::r32(5)),
            a: ISrc::new(Operand::Imm(0)),
            b: ISrc::new(Operand::Reg(Reg::r32(4))),
            c: ISrc::new(Operand::Imm(2)),
            mask_bits: 2,
        }),
        Instr::Bitop(Bitop {
            dst: Dst::from(Reg::r32(4)),
            a: ISrc::new(Operand::Reg(Reg::r32(4))),
            b: ISrc::new(Operand::Imm(3)),
            table: 0b1000,
        }),
        Instr::Texture(tex(true, TexDim::D2)),
    ];
    let before = crate::texel::compressed::decodes();
    run(body, 16, st, &mut m).unwrap();
    assert_eq!(crate::texel::compressed::decodes() - before, 1);
    // Colour (0x3412, 0x7856, 0xbc9a, 0xf0de), each / 65536 rounded toward zero to FP16's
    // 11 significant bits.
    let want = [0x3410, 0x7850, 0xbc80, 0xf0c0].map(|c| c as f32 / 65536.0);
    for lane in 0..16 {
        assert_eq!(outf(&m, lane), want, "lane {lane}");
    }
}
