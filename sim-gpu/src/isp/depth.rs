//! Depth formats, their stored encodings, and the depth test state.

use super::compare::CompareOp;
use hw::g13::control::descriptors::ZlsFormat;

/// A depth attachment format the ZLS unit can load and store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthFormat {
    /// `VK_FORMAT_D16_UNORM`: 16-bit normalized fixed point.
    D16Unorm,
    /// `VK_FORMAT_D32_SFLOAT`: IEEE single precision.
    D32Sfloat,
}

impl DepthFormat {
    /// Bytes of one sample in memory.
    pub fn bytes(self) -> u32 {
        match self {
            DepthFormat::D16Unorm => 2,
            DepthFormat::D32Sfloat => 4,
        }
    }

    pub fn from_zls(f: ZlsFormat) -> DepthFormat {
        match f {
            ZlsFormat::U16 => DepthFormat::D16Unorm,
            ZlsFormat::F32 => DepthFormat::D32Sfloat,
        }
    }

    pub fn zls_format(self) -> ZlsFormat {
        match self {
            DepthFormat::D16Unorm => ZlsFormat::U16,
            DepthFormat::D32Sfloat => ZlsFormat::F32,
        }
    }

    /// The stored form of depth `z`: the unorm integer for D16, the float's bits for D32.
    /// D32 keeps values outside [0, 1] (as with VK_EXT_depth_range_unrestricted); for D16
    /// Vulkan leaves them undefined and the conversion clamps.
    pub fn encode(self, z: f32) -> u32 {
        match self {
            DepthFormat::D16Unorm => unorm16_from_float(z).into(),
            DepthFormat::D32Sfloat => z.to_bits(),
        }
    }

    /// The depth value of a stored word (the inverse of [`DepthFormat::encode`] on its range).
    pub fn decode(self, raw: u32) -> f32 {
        match self {
            DepthFormat::D16Unorm => float_from_unorm16(raw as u16),
            DepthFormat::D32Sfloat => f32::from_bits(raw),
        }
    }

    /// The depth comparison on stored forms: integers for D16 (Vulkan converts the fragment's
    /// depth to the attachment format before comparing), floats for D32.
    pub fn compare(self, op: CompareOp, incoming: u32, stored: u32) -> bool {
        match self {
            DepthFormat::D16Unorm => op.test(incoming as u16, stored as u16),
            DepthFormat::D32Sfloat => op.test(f32::from_bits(incoming), f32::from_bits(stored)),
        }
    }

    /// Little-endian bytes of a stored word, `bytes()` long.
    pub(super) fn write_le(self, raw: u32, out: &mut [u8]) {
        let b = raw.to_le_bytes();
        out.copy_from_slice(&b[..self.bytes() as usize]);
    }

    pub(super) fn read_le(self, b: &[u8]) -> u32 {
        let mut w = [0u8; 4];
        w[..b.len()].copy_from_slice(b);
        u32::from_le_bytes(w)
    }
}

/// Vulkan's float to 16-bit unorm conversion: clamp to [0, 1], scale by 65535, round to
/// nearest. The product of an f32 and 65535 is exact in f64, so rounding it there is exact.
/// The only f32 exactly halfway between two codes is 0.5 (32767.5); half-away-from-zero and
/// half-to-even both give 32768. NaN converts to 0.
pub fn unorm16_from_float(z: f32) -> u16 {
    if z.is_nan() {
        return 0;
    }
    // Constant bounds and a NaN-free input: clamp cannot panic here.
    let c = f64::from(z).clamp(0.0, 1.0);
    // `(c * 65535.0).round()` without the libm call the baseline x86-64 target makes: the
    // product has at most 40 significant bits below 2^16, so adding 0.5 is exact, and
    // truncating the non-negative sum is rounding half away from zero.
    (c * 65535.0 + 0.5) as u16
}

/// The depth a 16-bit unorm code stands for.
pub fn float_from_unorm16(v: u16) -> f32 {
    (f64::from(v) / 65535.0) as f32
}

/// The viewport's depth range, `[minDepth, maxDepth]` (either order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthRange {
    pub min_depth: f32,
    pub max_depth: f32,
}

impl DepthRange {
    /// `z` clamped to `[min(n, f), max(n, f)]`, as depth clamping does.
    pub fn clamp(&self, z: f32) -> f32 {
        let lo = self.min_depth.min(self.max_depth);
        let hi = self.min_depth.max(self.max_depth);
        if z < lo {
            lo
        } else if z > hi {
            hi
        } else {
            z
        }
    }
}

/// Depth test state of a draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DepthState {
    pub test_enable: bool,
    pub write_enable: bool,
    pub compare_op: CompareOp,
    /// `Some(viewport range)` when depth clamping is enabled.
    pub clamp: Option<DepthRange>,
}

impl DepthState {
    /// Depth testing off: every sample passes and nothing is written.
    pub const DISABLED: DepthState = DepthState {
        test_enable: false,
        write_enable: false,
        compare_op: CompareOp::Always,
        clamp: None,
    };
}
