//! The sRGB transfer function (IEC 61966-2-1), as Vulkan defines the conversion.

/// Encoded sRGB value in 0..=1 to linear.
pub fn to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear value to encoded sRGB, clamped to 0..=1 first (NaN gives 0).
pub fn from_linear(l: f32) -> f32 {
    let l = if l.is_nan() { 0.0 } else { l.clamp(0.0, 1.0) };
    if l <= 0.0031308 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}
