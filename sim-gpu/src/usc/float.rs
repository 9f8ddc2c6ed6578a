//! Float conversions the USC applies at its register boundaries: half precision, 32-bit
//! flush-to-zero (applegpu: 32-bit sources and results flush denormals, 16-bit ones keep
//! them), the 8-bit float immediate table and round-toward-zero narrowing.

/// Flush a 32-bit denormal to a zero of the same sign (`g13::float_mode`).
pub fn ftz(x: f32) -> f32 {
    if hw::g13::float_mode::F32_FLUSHES_DENORMALS && x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// The value of an 8-bit float immediate: sign, 3-bit exponent, 4-bit fraction; exponent 0
/// is `fraction / 64`, otherwise `(16 + fraction) * 2^(exponent - 7)`.
pub fn float_immediate(n: u8) -> f32 {
    let sign = if n & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((n >> 4) & 7);
    let f = f32::from(n & 0xf);
    if e == 0 {
        sign * f / 64.0
    } else {
        sign * (16.0 + f) * 2f32.powi(e - 7)
    }
}

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => sign * m * 2f32.powi(-24),
        0x1f if m == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        _ => sign * (1024.0 + m) * 2f32.powi(e - 25),
    }
}

/// Rounding of a narrowing conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    NearestEven,
    TowardZero,
}

/// Round `x` to half precision (denormals kept, overflow to infinity or, toward zero, to the
/// largest finite half).
pub fn f64_to_f16(x: f64, r: Rounding) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // Scale into units of the smallest denormal (2^-24) at the exponent of `a`.
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let e = e.max(-14);
    let ulp = 2f64.powi(e - 10);
    let q = a / ulp;
    let mut n = match r {
        Rounding::NearestEven => q.round_ties_even(),
        Rounding::TowardZero => q.trunc(),
    } as u64;
    let mut exp = e;
    if n >= 2048 {
        n /= 2;
        exp += 1;
    }
    if exp > 15 {
        return match r {
            Rounding::NearestEven => sign | 0x7c00,
            Rounding::TowardZero => sign | 0x7bff,
        };
    }
    if n < 1024 {
        // Denormal (exp == -14).
        sign | n as u16
    } else {
        sign | (((exp + 15) as u16) << 10) | (n as u16 & 0x3ff)
    }
}

/// Round `x` to single precision.
pub fn f64_to_f32(x: f64, r: Rounding) -> f32 {
    let y = x as f32;
    if r == Rounding::NearestEven || x.is_nan() {
        return y;
    }
    if y.is_infinite() && x.is_finite() {
        return f32::MAX.copysign(y);
    }
    if f64::from(y).abs() > x.abs() {
        // One ulp toward zero (the bit pattern is sign and magnitude).
        f32::from_bits(y.to_bits() - 1)
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f64_to_f16(1.0, Rounding::NearestEven), 0x3c00);
        assert_eq!(f64_to_f16(65504.0, Rounding::NearestEven), 0x7bff);
        assert_eq!(f64_to_f16(1e6, Rounding::NearestEven), 0x7c00);
        assert_eq!(f64_to_f16(2f64.powi(-24), Rounding::NearestEven), 1);
        // 1 + 2^-11 is halfway between 1 and the next half: ties to even.
        assert_eq!(
            f64_to_f16(1.0 + 2f64.powi(-11), Rounding::NearestEven),
            0x3c00
        );
        assert_eq!(
            f64_to_f16(1.0 + 3.0 * 2f64.powi(-11), Rounding::NearestEven),
            0x3c02
        );
        // 1.999 * 1024 = 2046.98: truncates to mantissa 1022.
        assert_eq!(f64_to_f16(-1.999, Rounding::TowardZero), 0xbffe);
    }

    #[test]
    fn immediates_and_flush() {
        assert_eq!(float_immediate(0x00), 0.0);
        assert_eq!(float_immediate(0x70), 2.0f32.powi(4) * 2f32.powi(0));
        assert_eq!(float_immediate(0x30), 1.0);
        assert_eq!(float_immediate(0xb8), -1.5);
        assert_eq!(ftz(f32::from_bits(1)), 0.0);
        assert_eq!(ftz(-f32::from_bits(5)).to_bits(), 0x8000_0000);
    }

    #[test]
    fn toward_zero_narrowing() {
        let x = 16_777_217.0f64; // 2^24 + 1: not a single.
        assert_eq!(f64_to_f32(x, Rounding::TowardZero), 16_777_216.0);
        assert_eq!(f64_to_f32(-x, Rounding::TowardZero), -16_777_216.0);
        assert_eq!(
            f64_to_f32(16_777_219.0, Rounding::NearestEven),
            16_777_220.0
        );
    }
}
