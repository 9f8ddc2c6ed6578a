//! Floats with few bits: `e` exponent bits, `m` mantissa bits, IEEE-style bias, subnormals,
//! infinities and NaN, with or without a sign bit above the exponent (half floats, and the
//! unsigned 11- and 10-bit floats of packed R11G11B10).

/// The value of `bits` (only the low `e + m (+ 1)` bits are read).
pub fn decode(bits: u32, e: u32, m: u32, signed: bool) -> f32 {
    let man = bits & ((1 << m) - 1);
    let exp = (bits >> m) & ((1 << e) - 1);
    let negative = signed && (bits >> (e + m)) & 1 != 0;
    let bias = (1i32 << (e - 1)) - 1;
    let max_exp = (1 << e) - 1;
    let mag = if exp == max_exp {
        if man == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if exp == 0 {
        f64::from(man) * 2f64.powi(1 - bias - m as i32)
    } else {
        (1.0 + f64::from(man) / f64::from(1u32 << m)) * 2f64.powi(exp as i32 - bias)
    };
    (if negative { -mag } else { mag }) as f32
}

/// `x` rounded to nearest, ties to even. Unsigned formats store negative values as 0.
/// Values past the largest finite one become infinity.
pub fn encode(x: f32, e: u32, m: u32, signed: bool) -> u32 {
    let max_exp = (1u32 << e) - 1;
    let sign = if signed && x.is_sign_negative() {
        1 << (e + m)
    } else {
        0
    };
    if x.is_nan() {
        return sign | (max_exp << m) | (1 << (m - 1));
    }
    if !signed && x <= 0.0 {
        return 0;
    }
    let a = f64::from(x.abs());
    let inf = sign | (max_exp << m);
    if a.is_infinite() {
        return inf;
    }
    let bias = (1i32 << (e - 1)) - 1;
    let min_normal = 2f64.powi(1 - bias);
    if a < min_normal {
        // Subnormal (rounding up to the smallest normal carries into the exponent field).
        let q = (a / 2f64.powi(1 - bias - m as i32)).round_ties_even() as u32;
        return sign | q;
    }
    let mut exp = a.log2().floor() as i32;
    // log2 may be off by one near powers of two.
    if 2f64.powi(exp) > a {
        exp -= 1;
    }
    if 2f64.powi(exp + 1) <= a {
        exp += 1;
    }
    let mut man = ((a / 2f64.powi(exp) - 1.0) * f64::from(1u32 << m)).round_ties_even() as u32;
    if man == 1 << m {
        man = 0;
        exp += 1;
    }
    if exp > bias {
        return inf;
    }
    sign | (((exp + bias) as u32) << m) | man
}

pub fn f16_to_f32(h: u16) -> f32 {
    decode(u32::from(h), 5, 10, true)
}

pub fn f32_to_f16(x: f32) -> u16 {
    encode(x, 5, 10, true) as u16
}
