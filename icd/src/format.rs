//! The colour formats agx4 makes images of, with their texel sizes, and the packing of clear
//! colours into texels. Transfers copy bytes, so a format matters only for its size and for
//! clears.

use ash::vk;

/// How a format's channels are encoded, for packing clear colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Sfloat,
    /// sRGB-encoded UNORM: packing a clear needs the transfer function (not done yet).
    Srgb,
    /// Packed formats with their own bit layouts.
    A2b10g10r10Unorm,
    R5g6b5Unorm,
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
            Kind::A2b10g10r10Unorm => 4,
            Kind::R5g6b5Unorm => 2,
            _ => self.channels * self.bits / 8,
        }
    }
}

/// The supported formats, or `None`.
pub fn get(format: vk::Format) -> Option<Format> {
    use vk::Format as F;
    let f = |channels, bits, kind| Some(Format { channels, bits, kind, bgra: false });
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
        F::B8G8R8A8_UNORM => Some(Format { channels: 4, bits: 8, kind: Kind::Unorm, bgra: true }),
        F::B8G8R8A8_SRGB => Some(Format { channels: 4, bits: 8, kind: Kind::Srgb, bgra: true }),
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
        F::A2B10G10R10_UNORM_PACK32 => f(4, 0, Kind::A2b10g10r10Unorm),
        F::R5G6B5_UNORM_PACK16 => f(3, 0, Kind::R5g6b5Unorm),
        _ => None,
    }
}

/// IEEE half from a float, rounding to nearest even (infinities and NaN kept).
fn f32_to_f16(v: f32) -> u16 {
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

/// `c` in [lo, 1] scaled to `max` and rounded to the nearest integer (Vulkan's UNORM/SNORM
/// conversion).
fn norm(c: f32, lo: f32, max: f32) -> i64 {
    let c = if c.is_nan() { 0.0 } else { c.clamp(lo, 1.0) };
    (c * max).round() as i64
}

/// The clear colour `value` as one texel of `format`, or `None` for formats whose clears are
/// not implemented (sRGB).
pub fn pack_clear(format: &Format, value: &vk::ClearColorValue) -> Option<Vec<u8>> {
    // SAFETY: every member of the union is plain data of the same 16 bytes.
    let (f, u, i) = unsafe { (value.float32, value.uint32, value.int32) };
    let mut out = Vec::new();
    match format.kind {
        Kind::Srgb => return None,
        Kind::A2b10g10r10Unorm => {
            let word = norm(f[0], 0.0, 1023.0) as u32
                | (norm(f[1], 0.0, 1023.0) as u32) << 10
                | (norm(f[2], 0.0, 1023.0) as u32) << 20
                | (norm(f[3], 0.0, 3.0) as u32) << 30;
            out.extend_from_slice(&word.to_le_bytes());
        }
        Kind::R5g6b5Unorm => {
            let word = (norm(f[2], 0.0, 31.0) as u16) | (norm(f[1], 0.0, 63.0) as u16) << 5 | (norm(f[0], 0.0, 31.0) as u16) << 11;
            out.extend_from_slice(&word.to_le_bytes());
        }
        kind => {
            let order: [usize; 4] = if format.bgra { [2, 1, 0, 3] } else { [0, 1, 2, 3] };
            for &c in &order[..format.channels as usize] {
                let bits = format.bits;
                let max = ((1u64 << (bits - 1)) * 2 - 1) as f32;
                let v: u64 = match kind {
                    Kind::Unorm => norm(f[c], 0.0, max) as u64,
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
        assert!(get(vk::Format::D32_SFLOAT).is_none());
    }

    #[test]
    fn clear_packing() {
        let fl = |v: [f32; 4]| vk::ClearColorValue { float32: v };
        assert_eq!(clear(vk::Format::R8G8B8A8_UNORM, fl([1.0, 0.5, 0.0, 2.0])), [255, 128, 0, 255]);
        assert_eq!(clear(vk::Format::B8G8R8A8_UNORM, fl([1.0, 0.5, 0.0, 0.2])), [0, 128, 255, 51]);
        assert_eq!(clear(vk::Format::R8_SNORM, fl([-1.0, 0.0, 0.0, 0.0])), [0x81]);
        assert_eq!(clear(vk::Format::R16_SFLOAT, fl([1.0, 0.0, 0.0, 0.0])), [0x00, 0x3c]);
        assert_eq!(clear(vk::Format::R16_SFLOAT, fl([-2.5, 0.0, 0.0, 0.0])), 0xc100u16.to_le_bytes());
        assert_eq!(clear(vk::Format::R16_SFLOAT, fl([65504.0, 0.0, 0.0, 0.0])), 0x7bffu16.to_le_bytes());
        assert_eq!(clear(vk::Format::R16_SFLOAT, fl([1e-7, 0.0, 0.0, 0.0])), 0x0002u16.to_le_bytes());
        assert_eq!(clear(vk::Format::R5G6B5_UNORM_PACK16, fl([1.0, 0.0, 1.0, 0.0])), 0xf81fu16.to_le_bytes());
        assert_eq!(clear(vk::Format::A2B10G10R10_UNORM_PACK32, fl([1.0, 0.0, 0.0, 1.0])), 0xc000_03ffu32.to_le_bytes());
        let u = vk::ClearColorValue { uint32: [0x1234_5678, 7, 0, 0] };
        assert_eq!(clear(vk::Format::R16G16_UINT, u), [0x78, 0x56, 7, 0]);
        let i = vk::ClearColorValue { int32: [-2, 3, 0, 0] };
        assert_eq!(clear(vk::Format::R32G32_SINT, i), [0xfe, 0xff, 0xff, 0xff, 3, 0, 0, 0]);
        assert!(pack_clear(&get(vk::Format::R8G8B8A8_SRGB).unwrap(), &fl([0.5; 4])).is_none());
    }
}
