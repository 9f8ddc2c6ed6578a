//! Block-compressed texels: a texel fetch of a BC, ETC2/EAC or ASTC image decodes the block
//! holding the texel (the format rules are the Khronos Data Format Specification's).
//!
//! * BC1-BC7 (`bcdec_rs`): BC1, BC2, BC3 and BC7 as UNORM8; BC4 and BC5 in float, UNORM or
//!   SNORM (the crate interpolates the endpoints in float, as the specification does); BC6H
//!   as half floats (signed or unsigned layout), widened exactly to f32.
//! * ETC2 RGB8, RGB8A1 and RGBA8 (`texture2ddecoder`): UNORM8, which is all these formats
//!   hold; RGB8A1's transparent texels are made (0, 0, 0, 0), as the specification says (the
//!   crate leaves their colour).
//! * EAC R11 and RG11: decoded here, to 11 bits (the crate only gives 8): UNORM v / 2047,
//!   SNORM v / 1023 (-1023..=1023).
//! * ASTC LDR: agx4's own decoder ([`astc`](super::astc)), because Vulkan wants UNORM ASTC
//!   at FP16 precision from 16-bit interpolation (an 8-bit decode is off by up to a step of
//!   1/255), and sRGB ASTC from differently widened endpoints. Illegal encodings give the
//!   error colour, magenta (1, 0, 1, 1).
//!
//! The sRGB transfer function (`srgb`, colour channels only) is applied after the block
//! decode by [`texel`]; the decode itself knows only whether the view is sRGB (for ASTC). Channels a format lacks read as 0 and alpha as 1 before the
//! descriptor swizzle (which makes the RGB-only formats' alpha one).
//!
//! The decoded blocks of the last few fetches are kept per thread, keyed by the layout, type
//! and block bytes (read from memory on every fetch, so writes are always seen): a bilinear
//! quad mostly reads one block, and decoding an ASTC 12x12 block 16 times over would
//! dominate the fetch.

use super::minifloat::f16_to_f32;
use super::srgb;
use super::Texel;
use hw::g13::control::descriptors::{Channels, TextureType};
use hw::g13::image_desc::channels_block;
use std::cell::RefCell;
use std::rc::Rc;

/// The most texels of a block (ASTC 12x12).
const MAX_TEXELS: usize = super::astc::MAX_TEXELS;

/// One decoded block: texel (x, y) is `texels[y * width + x]`, in hardware channel order,
/// before sRGB decoding.
#[derive(Debug, Clone)]
pub struct DecodedBlock {
    pub width: u32,
    pub height: u32,
    pub texels: [[f32; 4]; MAX_TEXELS],
}

fn unorm8(v: u8) -> f32 {
    f32::from(v) / 255.0
}

/// Checks the texture type a block layout is read with: the combinations Mesa's format table
/// uses.
fn check_type(c: Channels, ty: TextureType) -> Result<(), String> {
    use Channels::*;
    let ok = match c {
        Bc4 | Bc5 | EacR11 | EacRg11 => matches!(ty, TextureType::Unorm | TextureType::Snorm),
        Bc6h | Bc6hUfloat => ty == TextureType::Float,
        _ => ty == TextureType::Unorm,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{c:?} with type {ty:?}"))
    }
}

/// Decodes one block of layout `c` read as `ty`, for a linear (not sRGB) view. `bytes` holds
/// at least the block's bytes (8 or 16).
pub fn decode_block(c: Channels, ty: TextureType, bytes: &[u8]) -> Result<DecodedBlock, String> {
    decode_block_as(c, ty, false, bytes)
}

/// Decodes one block of layout `c` read as `ty`; `srgb` when the view decodes sRGB, which
/// changes ASTC's decode itself (8-bit results from differently widened endpoints), not
/// only the transfer function applied afterwards.
pub fn decode_block_as(
    c: Channels,
    ty: TextureType,
    srgb: bool,
    bytes: &[u8],
) -> Result<DecodedBlock, String> {
    use Channels::*;
    let b = channels_block(c).ok_or_else(|| format!("channel layout {c:?} is not modelled"))?;
    check_type(c, ty)?;
    let n = b.bytes as usize;
    if bytes.len() < n {
        return Err(format!("{c:?} block of {} bytes", bytes.len()));
    }
    let bytes = &bytes[..n];
    let mut out = DecodedBlock {
        width: b.width,
        height: b.height,
        texels: [[0.0, 0.0, 0.0, 1.0]; MAX_TEXELS],
    };
    let signed = ty == TextureType::Snorm;
    let t = &mut out.texels;
    match c {
        Bc1 | Bc2 | Bc3 | Bc7 => {
            let mut rgba = [0u8; 64];
            match c {
                Bc1 => bcdec_rs::bc1(bytes, &mut rgba, 16),
                Bc2 => bcdec_rs::bc2(bytes, &mut rgba, 16),
                Bc3 => bcdec_rs::bc3(bytes, &mut rgba, 16),
                _ => bcdec_rs::bc7(bytes, &mut rgba, 16),
            }
            for (i, px) in rgba.chunks_exact(4).enumerate() {
                t[i] = [unorm8(px[0]), unorm8(px[1]), unorm8(px[2]), unorm8(px[3])];
            }
        }
        Bc4 => {
            let mut r = [0f32; 16];
            bcdec_rs::bc4_float(bytes, &mut r, 4, signed);
            for (i, &v) in r.iter().enumerate() {
                t[i][0] = v;
            }
        }
        Bc5 => {
            let mut rg = [0f32; 32];
            bcdec_rs::bc5_float(bytes, &mut rg, 8, signed);
            for (i, px) in rg.chunks_exact(2).enumerate() {
                t[i][0] = px[0];
                t[i][1] = px[1];
            }
        }
        Bc6h | Bc6hUfloat => {
            let mut rgb = [0u16; 48];
            bcdec_rs::bc6h_half(bytes, &mut rgb, 12, c == Bc6h);
            for (i, px) in rgb.chunks_exact(3).enumerate() {
                t[i] = [f16_to_f32(px[0]), f16_to_f32(px[1]), f16_to_f32(px[2]), 1.0];
            }
        }
        Etc2Rgb8 | Etc2Rgb8A1 | Etc2Rgba8 => {
            let mut px = [0u32; 16];
            match c {
                Etc2Rgb8 => texture2ddecoder::decode_etc2_rgb_block(bytes, &mut px),
                Etc2Rgb8A1 => texture2ddecoder::decode_etc2_rgba1_block(bytes, &mut px),
                _ => texture2ddecoder::decode_etc2_rgba8_block(bytes, &mut px),
            }
            for (i, &p) in px.iter().enumerate() {
                t[i] = bgra8(p);
                // A punch-through transparent texel is (0, 0, 0, 0) (the specification);
                // texture2ddecoder clears only its alpha.
                if c == Etc2Rgb8A1 && t[i][3] == 0.0 {
                    t[i] = [0.0; 4];
                }
            }
        }
        EacR11 | EacRg11 => {
            let channels = if c == EacR11 { 1 } else { 2 };
            for ch in 0..channels {
                let half: [u8; 8] = bytes[8 * ch..8 * ch + 8].try_into().unwrap_or([0; 8]);
                for (i, v) in eac11(half, signed).into_iter().enumerate() {
                    t[i][ch] = v;
                }
            }
        }
        _ => astc(
            bytes,
            b.width,
            b.height,
            srgb && ty == TextureType::Unorm,
            t,
        ),
    }
    Ok(out)
}

/// A texel of texture2ddecoder's output: B, G, R, A from the low byte.
fn bgra8(p: u32) -> [f32; 4] {
    let [b, g, r, a] = p.to_le_bytes();
    [unorm8(r), unorm8(g), unorm8(b), unorm8(a)]
}

/// EAC modifier tables (the same as ETC2's alpha tables).
const EAC_MODIFIERS: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// One 64-bit EAC channel block, texels in row-major order. The block is big-endian: base
/// codeword (8 bits), multiplier (4), table (4), then 16 3-bit indices, texel a (0, 0)
/// first and the texels in column-major order. Unsigned: clamp(base * 8 + 4 + m * mul * 8,
/// 0, 2047); signed: clamp(base * 8 + m * mul * 8, -1023, 1023) with base -128 read as -127;
/// a zero multiplier uses m itself (not scaled by 8).
fn eac11(block: [u8; 8], signed: bool) -> [f32; 16] {
    let bits = u64::from_be_bytes(block);
    let mul = ((bits >> 52) & 0xf) as i32;
    let table = &EAC_MODIFIERS[((bits >> 48) & 0xf) as usize];
    let mut out = [0f32; 16];
    for i in 0..16 {
        let m = table[((bits >> (45 - 3 * i)) & 7) as usize];
        let step = if mul == 0 { m } else { m * mul * 8 };
        // Index i is texel (i / 4, i % 4): column-major.
        let (x, y) = (i / 4, i % 4);
        out[y * 4 + x] = if signed {
            let base = i32::from((bits >> 56) as u8 as i8).max(-127);
            (base * 8 + step).clamp(-1023, 1023) as f32 / 1023.0
        } else {
            let base = ((bits >> 56) & 0xff) as i32;
            (base * 8 + 4 + step).clamp(0, 2047) as f32 / 2047.0
        };
    }
    out
}

/// Decodes an ASTC LDR block into `t` (row-major, `w` x `h`): FP16 values of C for UNORM,
/// its top 8 bits for sRGB (see [`astc`](super::astc)).
fn astc(bytes: &[u8], w: u32, h: u32, srgb: bool, t: &mut [[f32; 4]; MAX_TEXELS]) {
    let mut block = [0u8; 16];
    block.copy_from_slice(&bytes[..16]);
    let mut texels = [None; MAX_TEXELS];
    super::astc::decode(&block, w, h, srgb, &mut texels);
    let n = (w * h) as usize;
    for (out, &c) in t[..n].iter_mut().zip(texels.iter()) {
        *out = super::astc::texel_value(c, srgb);
    }
}

type CacheKey = (Channels, TextureType, bool, [u8; 16]);

/// Decoded blocks each thread keeps (most recent first).
const CACHED_BLOCKS: usize = 8;

thread_local! {
    static BLOCKS: RefCell<Vec<(CacheKey, Rc<DecodedBlock>)>> = const { RefCell::new(Vec::new()) };
    static DECODES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Blocks this thread has decoded (cache misses), for checking that the cache works.
pub fn decodes() -> u64 {
    DECODES.with(|d| d.get())
}

/// The decoded block of `bytes`, from this thread's recent decodes when it is there.
pub fn cached_block(
    c: Channels,
    ty: TextureType,
    srgb: bool,
    bytes: &[u8],
) -> Result<Rc<DecodedBlock>, String> {
    let mut key_bytes = [0u8; 16];
    let n = bytes.len().min(16);
    key_bytes[..n].copy_from_slice(&bytes[..n]);
    let key = (c, ty, srgb, key_bytes);
    let hit = BLOCKS.with(|b| {
        let mut b = b.borrow_mut();
        let i = b.iter().position(|(k, _)| *k == key)?;
        let e = b.remove(i);
        let d = e.1.clone();
        b.insert(0, e);
        Some(d)
    });
    if let Some(d) = hit {
        return Ok(d);
    }
    let d = Rc::new(decode_block_as(c, ty, srgb, bytes)?);
    DECODES.with(|n| n.set(n.get() + 1));
    BLOCKS.with(|b| {
        let mut b = b.borrow_mut();
        b.truncate(CACHED_BLOCKS - 1);
        b.insert(0, (key, d.clone()));
    });
    Ok(d)
}

/// Texel (`x`, `y`) (inside the block) of the block in `bytes`, sRGB-decoded when `srgb`.
pub fn texel(
    c: Channels,
    ty: TextureType,
    srgb_decode: bool,
    bytes: &[u8],
    x: u32,
    y: u32,
) -> Result<Texel, String> {
    let d = cached_block(c, ty, srgb_decode, bytes)?;
    let mut v = d.texels[((y % d.height) * d.width + x % d.width) as usize];
    if srgb_decode && ty == TextureType::Unorm {
        for ch in &mut v[..3] {
            *ch = srgb::to_linear(*ch);
        }
    }
    Ok(Texel::Float(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// Random blocks of every layout and type decode without a panic to finite values (the
    /// ASTC decoder's own, stricter fuzzing is in `astc::tests`).
    #[test]
    fn random_blocks_decode_without_panics() {
        use Channels::*;
        use TextureType::{Float, Snorm, Unorm};
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut cases = vec![
            (Bc1, Unorm),
            (Bc2, Unorm),
            (Bc3, Unorm),
            (Bc4, Unorm),
            (Bc4, Snorm),
            (Bc5, Unorm),
            (Bc5, Snorm),
            (Bc6h, Float),
            (Bc6hUfloat, Float),
            (Bc7, Unorm),
            (Etc2Rgb8, Unorm),
            (Etc2Rgb8A1, Unorm),
            (Etc2Rgba8, Unorm),
            (EacR11, Unorm),
            (EacR11, Snorm),
            (EacRg11, Unorm),
            (EacRg11, Snorm),
        ];
        for bits in 0x60..=0x6d {
            cases.push((Channels::from_bits(bits).unwrap(), Unorm));
        }
        for (c, ty) in cases {
            for i in 0..3000 {
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&xorshift(&mut seed).to_le_bytes());
                bytes[8..].copy_from_slice(&xorshift(&mut seed).to_le_bytes());
                let d = decode_block_as(c, ty, i % 2 == 1, &bytes).unwrap();
                let n = (d.width * d.height) as usize;
                // Every format's values are finite (BC6H's halves stop at 0x7bff).
                for t in &d.texels[..n] {
                    assert!(t.iter().all(|v| v.is_finite()), "{c:?} {t:?}");
                }
            }
        }
        // Wrong types and short blocks are errors, not panics.
        assert!(decode_block(Bc7, Snorm, &[0; 16]).is_err());
        assert!(decode_block(Bc6h, Unorm, &[0; 16]).is_err());
        assert!(decode_block(Bc1, Unorm, &[0; 4]).is_err());
        assert!(decode_block(R8G8B8A8, Unorm, &[0; 16]).is_err());
    }

    /// The EAC decoder agrees with texture2ddecoder's ETC2 alpha decoder, which reads the
    /// same table, multiplier and index layout into 8 bits (clamp(base + m * mul, 0, 255)),
    /// to within the 8-bit rounding. (The crate's own EAC decoder reads the index bits
    /// little-endian, against the specification's big-endian word, which is why agx4
    /// decodes EAC itself.)
    #[test]
    fn eac_agrees_with_etc2_alpha() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        for _ in 0..500 {
            let mut block = xorshift(&mut seed).to_le_bytes();
            // A non-zero multiplier (ETC2 alpha gives the base alone for zero).
            block[1] |= 0x10;
            let mine = eac11(block, false);
            let mut theirs = [0u32; 16];
            texture2ddecoder::decode_etc2_a8_block(&block, &mut theirs);
            for i in 0..16 {
                let a = f32::from((theirs[i] >> 24) as u8) / 255.0;
                assert!((mine[i] - a).abs() <= 1.5 / 255.0, "{block:02x?} texel {i}");
            }
        }
    }
}
