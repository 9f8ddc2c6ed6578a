//! The 8-bit float immediate of ALU float sources (applegpu `decode_float_immediate`):
//! sign bit 7, a 3-bit exponent in bits 6..4 and a 4-bit fraction. Exponent 0 is a
//! denormal-like range `f / 64`; otherwise the value is `(16 + f) * 2^(e - 7)`. Every value is
//! exact in both f16 and f32, so one table serves both widths.

/// The value an 8-bit float immediate stands for.
pub fn float_imm_value(code: u8) -> f32 {
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((code >> 4) & 7);
    let f = f32::from(code & 0xf);
    let magnitude = if e == 0 {
        f / 64.0
    } else {
        (16.0 + f) * 2f32.powi(e - 7)
    };
    sign * magnitude
}

/// The f32 bit pattern of an 8-bit float immediate.
pub fn float_imm_to_bits(code: u8) -> u32 {
    float_imm_value(code).to_bits()
}

/// The 8-bit immediate whose value has exactly these f32 bits, if one exists. `-0.0` maps to
/// 0x80 and `+0.0` to 0x00.
pub fn float_imm_from_bits(bits: u32) -> Option<u8> {
    (0..=255u8).find(|&c| float_imm_to_bits(c) == bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Hand-computed from the format: 0x30 = (16+0)*2^(3-7) = 1.0, 0x20 = 0.5,
        // 0x40 = 2.0, 0xb0 = -1.0, 0x01 = 1/64, 0x7f = 31.0.
        assert_eq!(float_imm_from_bits(1.0f32.to_bits()), Some(0x30));
        assert_eq!(float_imm_from_bits(0.5f32.to_bits()), Some(0x20));
        assert_eq!(float_imm_from_bits(2.0f32.to_bits()), Some(0x40));
        assert_eq!(float_imm_from_bits((-1.0f32).to_bits()), Some(0xb0));
        assert_eq!(float_imm_from_bits((1.0f32 / 64.0).to_bits()), Some(0x01));
        assert_eq!(float_imm_from_bits(31.0f32.to_bits()), Some(0x7f));
        assert_eq!(float_imm_from_bits(0.0f32.to_bits()), Some(0x00));
        assert_eq!(float_imm_from_bits((-0.0f32).to_bits()), Some(0x80));
        assert_eq!(float_imm_from_bits(32.0f32.to_bits()), None);
        assert_eq!(float_imm_from_bits(0.1f32.to_bits()), None);
        assert_eq!(float_imm_from_bits(f32::NAN.to_bits()), None);
    }

    #[test]
    fn every_code_round_trips() {
        for c in 0..=255u8 {
            assert_eq!(
                float_imm_from_bits(float_imm_to_bits(c)),
                Some(c),
                "code {c:#x}"
            );
        }
    }
}
