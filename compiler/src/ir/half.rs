//! IEEE half-precision bits for the interpreter and constant folding: conversions to and
//! from single precision, rounding to nearest even (the rounding G13's float ALU uses, see
//! `hw::g13::float_mode`), denormals kept.

/// The value of half `h` as an f32 (exact: every half is a single).
pub fn to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    match e {
        0 => sign * m * 2f32.powi(-24),
        0x1f if m == 0.0 => sign * f32::INFINITY,
        0x1f => f32::from_bits(0x7fc0_0000 | u32::from(h & 0x3ff) << 13),
        _ => sign * (1024.0 + m) * 2f32.powi(e - 25),
    }
}

/// `x` rounded to the nearest half, ties to even; too large rounds to infinity.
pub fn from_f64(x: f64) -> u16 {
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    // In units of the last place at the exponent of `a` (the denormal one below 2^-14).
    let e = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-14);
    let mut n = (a / 2f64.powi(e - 10)).round_ties_even() as u64;
    let mut exp = e;
    if n >= 2048 {
        n /= 2;
        exp += 1;
    }
    if exp > 15 {
        return sign | 0x7c00;
    }
    if n < 1024 {
        sign | n as u16
    } else {
        sign | ((exp + 15) as u16) << 10 | (n as u16 & 0x3ff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rounding() {
        for h in [
            0u16, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xc000, 0x7bff, 0x7c00, 0xfc00,
        ] {
            assert_eq!(from_f64(f64::from(to_f32(h))), h, "{h:#x}");
        }
        assert_eq!(from_f64(65520.0), 0x7c00);
        assert_eq!(from_f64(65519.0), 0x7bff);
        // 1 + 2^-11 is halfway between 1 and its successor: ties to even.
        assert_eq!(from_f64(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(from_f64(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(from_f64(2f64.powi(-25)), 0);
        assert_eq!(from_f64(1.5 * 2f64.powi(-24)), 2);
        assert!(to_f32(0x7e00).is_nan());
    }
}
