//! One texel of each channel layout and number type, in hardware channel order (channel 0 in
//! the lowest bits of the element). Swizzles belong to the descriptors and are applied by the
//! callers.
//!
//! Conversions follow Vulkan's rules: UNORM v / (2^n - 1); SNORM max(v / (2^(n-1) - 1), -1);
//! encoding clamps, scales and rounds to nearest; sRGB applies to the colour channels (not
//! alpha); floats round to nearest even. Integer channels narrower than 32 bits saturate when
//! a wider value is stored (**agx4**: Vulkan leaves out-of-range integer stores undefined).

use super::{minifloat, srgb};
use hw::g13::control::descriptors::{Channels, TextureType};

/// Channel values of one texel, before the swizzle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Texel {
    /// UNORM, SNORM and float types.
    Float([f32; 4]),
    /// UINT and SINT types (SINT as two's complement bits).
    Int([u32; 4]),
}

impl Texel {
    /// Channel `c` as f32 bits or integer bits.
    pub fn bits(&self, c: usize) -> u32 {
        match self {
            Texel::Float(f) => f[c].to_bits(),
            Texel::Int(i) => i[c],
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Texel::Int(_))
    }
}

/// Whether a type's shader-side values are integers.
pub fn is_integer(t: TextureType) -> bool {
    matches!(t, TextureType::Uint | TextureType::Sint)
}

/// (bit offset, width) of each channel of a plain (non shared-exponent) layout.
fn fields(c: Channels) -> Option<&'static [(u32, u32)]> {
    use Channels::*;
    Some(match c {
        R8 => &[(0, 8)],
        R16 => &[(0, 16)],
        R32 => &[(0, 32)],
        R8G8 => &[(0, 8), (8, 8)],
        R16G16 => &[(0, 16), (16, 16)],
        R32G32 => &[(0, 32), (32, 32)],
        R5G6B5 => &[(0, 5), (5, 6), (11, 5)],
        R4G4B4A4 => &[(0, 4), (4, 4), (8, 4), (12, 4)],
        R5G5B5A1 => &[(0, 5), (5, 5), (10, 5), (15, 1)],
        R11G11B10 => &[(0, 11), (11, 11), (22, 10)],
        R10G10B10A2 => &[(0, 10), (10, 10), (20, 10), (30, 2)],
        R8G8B8A8 => &[(0, 8), (8, 8), (16, 8), (24, 8)],
        R16G16B16A16 => &[(0, 16), (16, 16), (32, 16), (48, 16)],
        R32G32B32A32 => &[(0, 32), (32, 32), (64, 32), (96, 32)],
        _ => return None,
    })
}

/// Bytes of one texel, for the layouts this module handles.
pub fn texel_bytes(c: Channels) -> Option<u32> {
    match c {
        Channels::R9G9B9E5 => Some(4),
        _ => fields(c).map(|f| {
            let (o, w) = f[f.len() - 1];
            (o + w) / 8
        }),
    }
}

/// The width of every channel of a layout whose channels are all one byte-aligned width, one
/// after another (R8G8B8A8, R16G16, R32 ...), else `None`.
pub fn uniform_channel_bits(c: Channels) -> Option<u32> {
    let f = fields(c)?;
    let w = f[0].1;
    let aligned = w % 8 == 0
        && f.iter()
            .enumerate()
            .all(|(k, &(o, fw))| fw == w && o == k as u32 * w);
    aligned.then_some(w)
}

/// Channels of a layout (3 for the shared-exponent one), or `None` if it is not modelled.
pub fn channel_count(c: Channels) -> Option<usize> {
    match c {
        Channels::R9G9B9E5 => Some(3),
        _ => fields(c).map(<[_]>::len),
    }
}

fn get_bits(b: &[u8], off: u32, w: u32) -> u32 {
    let mut v = 0u64;
    let first = (off / 8) as usize;
    let last = ((off + w).div_ceil(8)) as usize;
    for (i, byte) in b[first..last].iter().enumerate() {
        v |= u64::from(*byte) << (8 * i);
    }
    ((v >> (off % 8)) & ((1u64 << w) - 1)) as u32
}

/// Replaces bits `off .. off + w` of `b` with the low `w` bits of `v`, a byte at a time (the
/// image writes of every end-of-tile program come through here).
fn put_bits(b: &mut [u8], off: u32, w: u32, v: u32) {
    let first = (off / 8) as usize;
    let last = (off + w).div_ceil(8) as usize;
    let shift = off % 8;
    let mask = ((1u64 << w) - 1) << shift;
    let bits = (u64::from(v) << shift) & mask;
    for (i, byte) in b[first..last].iter_mut().enumerate() {
        let m = (mask >> (8 * i)) as u8;
        *byte = (*byte & !m) | ((bits >> (8 * i)) as u8 & m);
    }
}

fn sext(v: u32, w: u32) -> i32 {
    ((v << (32 - w)) as i32) >> (32 - w)
}

fn unorm_max(w: u32) -> f32 {
    ((1u64 << w) - 1) as f32
}

fn snorm_max(w: u32) -> f32 {
    ((1u64 << (w - 1)) - 1) as f32
}

/// Which channels sRGB decoding and encoding touch: the colour channels, and for 2-channel
/// layouts the second one only when `two_channel` says so.
fn srgb_channel(c: usize, count: usize, two_channel: bool) -> bool {
    c < 3 && (count != 2 || c == 0 || two_channel)
}

/// Decodes the texel in `bytes` (at least [`texel_bytes`] long). Channels the layout lacks
/// read as 0, alpha as 1.
/// Whether a format is 8-bit UNORM RGBA, linear: the commonest texel.
pub fn is_unorm8x4(channels: Channels, ty: TextureType, srgb: bool) -> bool {
    (channels, ty, srgb) == (Channels::R8G8B8A8, TextureType::Unorm, false)
}

/// [`decode`] of an 8-bit UNORM RGBA texel: the divisions `norm_to_float` makes.
#[inline]
pub fn unorm8x4(b: [u8; 4]) -> [f32; 4] {
    b.map(unorm8)
}

/// An 8-bit UNORM channel as a float: [`decode`]'s division.
#[inline]
pub fn unorm8(v: u8) -> f32 {
    f32::from(v) / unorm_max(8)
}

pub fn decode(
    channels: Channels,
    ty: TextureType,
    srgb: bool,
    srgb_two_channel: bool,
    bytes: &[u8],
) -> Result<Texel, String> {
    if channels == Channels::R9G9B9E5 {
        if ty != TextureType::Float {
            return Err(format!("R9G9B9E5 with type {ty:?}"));
        }
        let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let scale = 2f32.powi((v >> 27) as i32 - 15 - 9);
        let ch = |i: u32| ((v >> (9 * i)) & 0x1ff) as f32 * scale;
        return Ok(Texel::Float([ch(0), ch(1), ch(2), 1.0]));
    }
    // The commonest texel (8-bit UNORM RGBA, linear) without the general walk: the same
    // divisions `norm_to_float` makes.
    if is_unorm8x4(channels, ty, srgb) {
        return Ok(Texel::Float(unorm8x4([
            bytes[0], bytes[1], bytes[2], bytes[3],
        ])));
    }
    let f =
        fields(channels).ok_or_else(|| format!("channel layout {channels:?} is not modelled"))?;
    // At most four channels: a fixed array, so a texel fetch does not allocate.
    let mut raw_buf = [(0u32, 0u32); 4];
    for (r, &(o, w)) in raw_buf.iter_mut().zip(f) {
        *r = (get_bits(bytes, o, w), w);
    }
    let raw = &raw_buf[..f.len()];
    match ty {
        TextureType::Uint | TextureType::Sint => {
            let mut out = [0, 0, 0, 1];
            for (i, &(v, w)) in raw.iter().enumerate() {
                out[i] = if ty == TextureType::Sint {
                    sext(v, w) as u32
                } else {
                    v
                };
            }
            Ok(Texel::Int(out))
        }
        TextureType::Unorm | TextureType::Snorm | TextureType::Float => {
            let mut out = [0.0, 0.0, 0.0, 1.0];
            for (i, &(v, w)) in raw.iter().enumerate() {
                out[i] = match (ty, w) {
                    (TextureType::Unorm, _) => norm_to_float(v, w, false),
                    (TextureType::Snorm, _) => norm_to_float(v, w, true),
                    (_, 32) => f32::from_bits(v),
                    (_, 16) => minifloat::decode(v, 5, 10, true),
                    (_, 11) => minifloat::decode(v, 5, 6, false),
                    (_, 10) => minifloat::decode(v, 5, 5, false),
                    _ => return Err(format!("{channels:?} has no float form")),
                };
                if ty == TextureType::Unorm && srgb && srgb_channel(i, raw.len(), srgb_two_channel)
                {
                    out[i] = srgb::to_linear(out[i]);
                }
            }
            Ok(Texel::Float(out))
        }
        TextureType::Xr => Err("extended-range (XR) texels are not modelled".into()),
    }
}

/// A normalised integer of `w` bits as a float: the rule of texture reads, and of tile
/// accesses in a normalised format.
pub fn norm_to_float(v: u32, w: u32, signed: bool) -> f32 {
    if signed {
        (sext(v, w) as f32 / snorm_max(w)).max(-1.0)
    } else {
        v as f32 / unorm_max(w)
    }
}

/// A float as a normalised integer of `w` bits (clamped; NaN is 0; the low `w` bits of a
/// signed result): the rule of image stores, and of tile stores in a normalised format.
pub fn float_to_norm(v: f32, w: u32, signed: bool) -> u32 {
    if signed {
        encode_snorm(v, w)
    } else {
        encode_unorm(v, w)
    }
}

fn encode_unorm(v: f32, w: u32) -> u32 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    round_half_away(v * unorm_max(w)) as u32
}

fn encode_snorm(v: f32, w: u32) -> u32 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
    let q = round_half_away(v * snorm_max(w)) as i32;
    (q as u32) & (((1u64 << w) - 1) as u32)
}

/// `f32::round` (ties away from zero) for values of magnitude below 2^63, with integer
/// conversions: without SSE4.1 in the host baseline, `round` is a call into libm, and every
/// pixel an image store or a tile store writes goes through here.
fn round_half_away(x: f32) -> f32 {
    let t = x as i64 as f32;
    // Exact: `t` is `x` truncated, and a float minus its integer part loses nothing.
    let d = x - t;
    if d >= 0.5 {
        t + 1.0
    } else if d <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

fn shared_exponent(rgb: [f32; 3]) -> u32 {
    const N: i32 = 9;
    const B: i32 = 15;
    let max = (511.0 / 512.0) * 2f32.powi(31 - B);
    let c = rgb.map(|x| if x.is_nan() { 0.0 } else { x.clamp(0.0, max) });
    let maxc = c[0].max(c[1]).max(c[2]);
    let floor_log2 = if maxc > 0.0 {
        f64::from(maxc).log2().floor() as i32
    } else {
        -B - 1
    };
    let mut exp = floor_log2.max(-B - 1) + 1 + B;
    let maxs = (f64::from(maxc) / 2f64.powi(exp - B - N) + 0.5).floor() as u32;
    if maxs == 1 << N {
        exp += 1;
    }
    let q = |x: f32| ((f64::from(x) / 2f64.powi(exp - B - N) + 0.5).floor() as u32).min(511);
    q(c[0]) | (q(c[1]) << 9) | (q(c[2]) << 18) | ((exp as u32) << 27)
}

/// The bytes of a texel holding `value` (for float types the f32 bits of each channel, for
/// integer types the u32 or i32 bits). `out` must be [`texel_bytes`] long.
pub fn encode(
    channels: Channels,
    ty: TextureType,
    srgb: bool,
    value: [u32; 4],
    out: &mut [u8],
) -> Result<(), String> {
    let f32s = value.map(f32::from_bits);
    if channels == Channels::R9G9B9E5 {
        if ty != TextureType::Float {
            return Err(format!("R9G9B9E5 with type {ty:?}"));
        }
        out[..4].copy_from_slice(&shared_exponent([f32s[0], f32s[1], f32s[2]]).to_le_bytes());
        return Ok(());
    }
    let f =
        fields(channels).ok_or_else(|| format!("channel layout {channels:?} is not modelled"))?;
    for (i, &(o, w)) in f.iter().enumerate() {
        let bits = match ty {
            TextureType::Uint => {
                let max = ((1u64 << w) - 1) as u32;
                value[i].min(max)
            }
            TextureType::Sint => {
                let lo = -(1i64 << (w - 1));
                let hi = (1i64 << (w - 1)) - 1;
                (i64::from(value[i] as i32).clamp(lo, hi) as u32) & (((1u64 << w) - 1) as u32)
            }
            TextureType::Unorm => {
                let v = if srgb && srgb_channel(i, f.len(), true) {
                    srgb::from_linear(f32s[i])
                } else {
                    f32s[i]
                };
                encode_unorm(v, w)
            }
            TextureType::Snorm => encode_snorm(f32s[i], w),
            TextureType::Float => match w {
                32 => value[i],
                16 => minifloat::encode(f32s[i], 5, 10, true),
                11 => minifloat::encode(f32s[i], 5, 6, false),
                10 => minifloat::encode(f32s[i], 5, 5, false),
                _ => return Err(format!("{channels:?} has no float form")),
            },
            TextureType::Xr => return Err("extended-range (XR) texels are not modelled".into()),
        };
        put_bits(out, o, w, bits);
    }
    Ok(())
}

#[cfg(test)]
mod round_tests {
    #[test]
    fn round_half_away_is_f32_round_over_the_normalised_range() {
        // Zeros may come back with the other sign: the callers convert to integers.
        let mut x = 0.0f32;
        while x <= 4.3e9 {
            for v in [x, x.next_up(), x.next_down()] {
                for v in [v, -v] {
                    assert_eq!(super::round_half_away(v), v.round(), "{v}");
                }
            }
            x = if x < 300.0 { x + 0.125 } else { x * 1.001 };
        }
        for v in [
            0.5f32,
            1.5,
            2.5,
            -0.5,
            -2.5,
            0.49999997,
            254.5,
            65534.5,
            4294967295.0,
        ] {
            assert_eq!(super::round_half_away(v), v.round(), "{v}");
        }
    }
}
