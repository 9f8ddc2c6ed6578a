//! GLSL.std.450 instructions that work on the bits of floats: Modf, Frexp and their struct
//! forms, Ldexp, the pack/unpack family, and half-precision rounding (shared with
//! OpQuantizeToF16). They are built from integer operations, so they see the exact bits even
//! where the USC's float arithmetic flushes 32-bit denormals.

use rspirv::dr::Instruction;

use super::module::{id, invalid, unsupported};
use super::translate::{FnState, Tr};
use super::values::FVal;
use crate::ir::{self, BinOp, CmpOp, ConvOp, Scalar, Type, UnOp, Value};
use crate::CompileError;

/// The bits of an f32 that is 65520 or more: rounds to infinity as a half.
const HALF_OVERFLOW: u32 = 0x477f_f000;
/// The bits of 2^-14, the smallest normal half.
const HALF_MIN_NORMAL: u32 = 0x3880_0000;

/// OpQuantizeToF16 on the bits of one f32, as [`Tr::quantize_to_f16`] computes it (for
/// OpSpecConstantOp).
pub(super) fn quantize_f16(bits: u32) -> u32 {
    let sign = bits & 0x8000_0000;
    let a = bits & 0x7fff_ffff;
    if a > 0x7f80_0000 {
        return bits;
    }
    let r = (a + 0xfff + ((a >> 13) & 1)) & !0x1fff;
    let r = if r < HALF_MIN_NORMAL {
        0
    } else if r >= 0x4780_0000 {
        0x7f80_0000
    } else {
        r
    };
    sign | r
}

impl<'m> Tr<'m> {
    /// An I32 constant with the lane count of `like`.
    pub(super) fn iconst_like(&mut self, like: Value, v: u32) -> Result<Value, CompileError> {
        let n = self.sh.ty(like).lanes;
        self.konst(Type::vec(Scalar::I32, n), vec![u64::from(v); n as usize])
    }

    fn ik(&mut self, op: BinOp, x: Value, k: u32) -> Result<Value, CompileError> {
        let c = self.iconst_like(x, k)?;
        self.bin(op, x, c)
    }

    fn conv_to(&mut self, s: Scalar, op: ConvOp, x: Value) -> Result<Value, CompileError> {
        let n = self.sh.ty(x).lanes;
        self.emit(Type::vec(s, n), ir::Op::Conv(op, x))
    }

    fn sel(&mut self, c: Value, a: Value, b: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(a);
        self.emit(t, ir::Op::Select(c, a, b))
    }

    fn float_arg(&self, x: Value, what: &str) -> Result<(), CompileError> {
        if self.sh.ty(x).scalar != Scalar::F32 {
            return Err(unsupported(format!("{what} of a non-32-bit float")));
        }
        Ok(())
    }

    /// Modf, ModfStruct, Frexp and FrexpStruct (35, 36, 51, 52): two results, the second one
    /// stored through the pointer operand or returned as the struct's second member.
    pub(super) fn glsl_split(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
        n: u32,
    ) -> Result<FVal, CompileError> {
        let x = self.simple(fs, id(inst, 2)?)?;
        // Halves: decomposed as the singles they convert to exactly (a half's denormals are
        // normal singles), the float parts rounded back exactly.
        let half = self.sh.ty(x).scalar == Scalar::F16;
        let xw = if half {
            self.conv_to(Scalar::F32, ConvOp::FToF, x)?
        } else {
            x
        };
        let (mut first, mut second) = if matches!(n, 35 | 36) {
            self.modf(xw)?
        } else {
            self.frexp(xw)?
        };
        if half {
            first = self.conv_to(Scalar::F16, ConvOp::FToF, first)?;
            if matches!(n, 35 | 36) {
                second = self.conv_to(Scalar::F16, ConvOp::FToF, second)?;
            }
        }
        if matches!(n, 36 | 52) {
            return Ok(FVal::C(vec![FVal::V(first), FVal::V(second)]));
        }
        let p = self.ptr(fs, id(inst, 3)?)?;
        self.store(&p, &FVal::V(second))?;
        Ok(FVal::V(first))
    }

    /// (fraction, whole number part), both with the sign of `x`.
    fn modf(&mut self, x: Value) -> Result<(Value, Value), CompileError> {
        self.float_arg(x, "modf")?;
        let whole = self.un(UnOp::FTrunc, x)?;
        let frac = self.bin(BinOp::FSub, x, whole)?;
        // x - trunc(x) is NaN for infinities, whose fraction is a zero of their sign.
        let a = self.un(UnOp::FAbs, x)?;
        let inf = self.fconst_like(x, f32::INFINITY)?;
        let is_inf = self.cmp(CmpOp::FOEq, a, inf)?;
        let xi = self.conv_to(Scalar::I32, ConvOp::Bitcast, x)?;
        let sign = self.ik(BinOp::And, xi, 0x8000_0000)?;
        let zero = self.conv_to(Scalar::F32, ConvOp::Bitcast, sign)?;
        let frac = self.sel(is_inf, zero, frac)?;
        Ok((frac, whole))
    }

    /// (significand in [0.5, 1) with the sign of `x`, exponent); zero gives (x, 0). Denormal
    /// inputs are decomposed exactly (their bits are read as integers).
    fn frexp(&mut self, x: Value) -> Result<(Value, Value), CompileError> {
        self.float_arg(x, "frexp")?;
        let bits = self.conv_to(Scalar::I32, ConvOp::Bitcast, x)?;
        let sign = self.ik(BinOp::And, bits, 0x8000_0000)?;
        let a = self.ik(BinOp::And, bits, 0x7fff_ffff)?;
        // A denormal's bits, read as an integer m, are m * 2^-149: convert m to a (normal)
        // float and take 149 more off its exponent.
        let min_normal = self.iconst_like(a, 0x0080_0000)?;
        let denormal = self.cmp(CmpOp::ULt, a, min_normal)?;
        let m = self.conv_to(Scalar::F32, ConvOp::UToF, a)?;
        let m = self.conv_to(Scalar::I32, ConvOp::Bitcast, m)?;
        let a = self.sel(denormal, m, a)?;
        let b_norm = self.iconst_like(a, 126)?;
        let b_den = self.iconst_like(a, 126 + 149)?;
        let bias = self.sel(denormal, b_den, b_norm)?;
        let e = self.ik(BinOp::UShr, a, 23)?;
        let e = self.bin(BinOp::ISub, e, bias)?;
        let f = self.ik(BinOp::And, a, 0x007f_ffff)?;
        let f = self.ik(BinOp::Or, f, 0x3f00_0000)?;
        let f = self.bin(BinOp::Or, f, sign)?;
        let f = self.conv_to(Scalar::F32, ConvOp::Bitcast, f)?;
        // Zeros, infinities and NaNs: the significand is x and the exponent 0.
        let abs = self.ik(BinOp::And, bits, 0x7fff_ffff)?;
        let z = self.iconst_like(abs, 0)?;
        let is_zero = self.cmp(CmpOp::IEq, abs, z)?;
        let inf = self.iconst_like(abs, 0x7f80_0000)?;
        let special = self.cmp(CmpOp::UGe, abs, inf)?;
        let keep = self.bin(BinOp::Or, is_zero, special)?;
        let f = self.sel(keep, x, f)?;
        let e = self.sel(keep, z, e)?;
        Ok((f, e))
    }

    /// x * 2^e, as three multiplications by exact powers of two so that every exponent whose
    /// result is a normal float is reached (a single factor covers only -126..=127).
    pub(super) fn ldexp(&mut self, x: Value, e: Value) -> Result<Value, CompileError> {
        // Narrow exponents are signed: sign-extended, they clamp as 32-bit ones do.
        let e = match self.sh.ty(e).scalar {
            Scalar::I8 | Scalar::I16 => self.conv_to(Scalar::I32, ConvOp::SToS, e)?,
            _ => e,
        };
        if self.sh.ty(x).scalar == Scalar::F16 {
            // Every half times a power of two is exact as a single; one rounding back.
            let xw = self.conv_to(Scalar::F32, ConvOp::FToF, x)?;
            let r = self.ldexp(xw, e)?;
            return self.conv_to(Scalar::F16, ConvOp::FToF, r);
        }
        self.float_arg(x, "ldexp")?;
        let t = self.sh.ty(e);
        if !matches!(t.scalar, Scalar::I32 | Scalar::I64) || t.lanes != self.sh.ty(x).lanes {
            return Err(invalid("ldexp exponent is not an integer of x's size"));
        }
        // Clamped to what three factors reach (and so to 32 bits) before anything else.
        let (lo, hi) = (-378i64, 381i64);
        let (lo, hi) = if t.scalar == Scalar::I64 {
            let n = t.lanes as usize;
            (
                self.konst(t, vec![lo as u64; n])?,
                self.konst(t, vec![hi as u64; n])?,
            )
        } else {
            (
                self.iconst_like(e, lo as u32)?,
                self.iconst_like(e, hi as u32)?,
            )
        };
        let e = self.bin(BinOp::SMax, e, lo)?;
        let e = self.bin(BinOp::SMin, e, hi)?;
        let mut rest = if t.scalar == Scalar::I64 {
            self.conv_to(Scalar::I32, ConvOp::SToS, e)?
        } else {
            e
        };
        let mut r = x;
        for _ in 0..3 {
            let lo = self.iconst_like(rest, (-126i32) as u32)?;
            let hi = self.iconst_like(rest, 127)?;
            let k = self.bin(BinOp::SMax, rest, lo)?;
            let k = self.bin(BinOp::SMin, k, hi)?;
            rest = self.bin(BinOp::ISub, rest, k)?;
            let p = self.ik(BinOp::IAdd, k, 127)?;
            let p = self.ik(BinOp::Shl, p, 23)?;
            let p = self.conv_to(Scalar::F32, ConvOp::Bitcast, p)?;
            r = self.bin(BinOp::FMul, r, p)?;
        }
        Ok(r)
    }

    /// The half-precision bits (in the low 16 bits of each I32 lane) nearest to `x`, ties to
    /// even; overflow gives infinity, NaN a quiet NaN, small values half denormals.
    pub(super) fn f32_to_f16_bits(&mut self, x: Value) -> Result<Value, CompileError> {
        let bits = self.conv_to(Scalar::I32, ConvOp::Bitcast, x)?;
        let sign = self.ik(BinOp::UShr, bits, 16)?;
        let sign = self.ik(BinOp::And, sign, 0x8000)?;
        let a = self.ik(BinOp::And, bits, 0x7fff_ffff)?;
        // Normal halves: rebias the exponent (127 -> 15) and round the 13 dropped bits.
        let odd = self.ik(BinOp::UShr, a, 13)?;
        let odd = self.ik(BinOp::And, odd, 1)?;
        let n = self.ik(BinOp::ISub, a, (127 - 15) << 23)?;
        let n = self.ik(BinOp::IAdd, n, 0xfff)?;
        let n = self.bin(BinOp::IAdd, n, odd)?;
        let normal = self.ik(BinOp::UShr, n, 13)?;
        // Denormal halves: |x| in units of 2^-24, rounded to even (exact float arithmetic:
        // the scale is a power of two and the result is below 1024).
        let ax = self.un(UnOp::FAbs, x)?;
        let k = self.fconst_like(x, 16_777_216.0)?;
        let s = self.bin(BinOp::FMul, ax, k)?;
        let s = self.un(UnOp::FRoundEven, s)?;
        let small = self.conv_to(Scalar::I32, ConvOp::FToU, s)?;
        let min_normal = self.iconst_like(a, HALF_MIN_NORMAL)?;
        let is_small = self.cmp(CmpOp::ULt, a, min_normal)?;
        let h = self.sel(is_small, small, normal)?;
        let over = self.iconst_like(a, HALF_OVERFLOW)?;
        let is_over = self.cmp(CmpOp::UGe, a, over)?;
        let inf = self.iconst_like(a, 0x7c00)?;
        let h = self.sel(is_over, inf, h)?;
        let nan_at = self.iconst_like(a, 0x7f80_0000)?;
        let is_nan = self.cmp(CmpOp::UGt, a, nan_at)?;
        let qnan = self.iconst_like(a, 0x7e00)?;
        let h = self.sel(is_nan, qnan, h)?;
        self.bin(BinOp::Or, h, sign)
    }

    /// The f32 value of half-precision bits (the low 16 bits of each I32 lane).
    fn f16_bits_to_f32(&mut self, h: Value) -> Result<Value, CompileError> {
        let h = self.ik(BinOp::And, h, 0xffff)?;
        let sign = self.ik(BinOp::And, h, 0x8000)?;
        let sign = self.ik(BinOp::Shl, sign, 16)?;
        let mag = self.ik(BinOp::And, h, 0x7fff)?;
        let e = self.ik(BinOp::UShr, mag, 10)?;
        let m = self.ik(BinOp::And, mag, 0x3ff)?;
        let normal = self.ik(BinOp::Shl, mag, 13)?;
        let normal = self.ik(BinOp::IAdd, normal, (127 - 15) << 23)?;
        let ms = self.ik(BinOp::Shl, m, 13)?;
        let special = self.ik(BinOp::Or, ms, 0x7f80_0000)?;
        // Denormals are m * 2^-24, a normal f32: exact through a float multiply.
        let mf = self.conv_to(Scalar::F32, ConvOp::UToF, m)?;
        let k = self.fconst_like(mf, 1.0 / 16_777_216.0)?;
        let sub = self.bin(BinOp::FMul, mf, k)?;
        let sub = self.conv_to(Scalar::I32, ConvOp::Bitcast, sub)?;
        let z = self.iconst_like(e, 0)?;
        let is_sub = self.cmp(CmpOp::IEq, e, z)?;
        let k31 = self.iconst_like(e, 31)?;
        let is_special = self.cmp(CmpOp::IEq, e, k31)?;
        let v = self.sel(is_special, special, normal)?;
        let v = self.sel(is_sub, sub, v)?;
        let v = self.bin(BinOp::Or, v, sign)?;
        self.conv_to(Scalar::F32, ConvOp::Bitcast, v)
    }

    /// OpQuantizeToF16: `x` rounded to the nearest half (ties to even) and back. Values too
    /// large become infinities; values below the smallest normal half become zeros of their
    /// sign (SPIR-V allows either zero); NaNs stay NaNs.
    pub(super) fn quantize_to_f16(&mut self, x: Value) -> Result<Value, CompileError> {
        self.float_arg(x, "OpQuantizeToF16")?;
        let bits = self.conv_to(Scalar::I32, ConvOp::Bitcast, x)?;
        let sign = self.ik(BinOp::And, bits, 0x8000_0000)?;
        let a = self.ik(BinOp::And, bits, 0x7fff_ffff)?;
        let odd = self.ik(BinOp::UShr, a, 13)?;
        let odd = self.ik(BinOp::And, odd, 1)?;
        let r = self.ik(BinOp::IAdd, a, 0xfff)?;
        let r = self.bin(BinOp::IAdd, r, odd)?;
        let r = self.ik(BinOp::And, r, !0x1fff)?;
        let min_normal = self.iconst_like(r, HALF_MIN_NORMAL)?;
        let small = self.cmp(CmpOp::ULt, r, min_normal)?;
        let z = self.iconst_like(r, 0)?;
        let r = self.sel(small, z, r)?;
        // 65520 and up round to 2^16, which has no half: infinity.
        let over = self.iconst_like(r, 0x4780_0000)?;
        let big = self.cmp(CmpOp::UGe, r, over)?;
        let inf = self.iconst_like(r, 0x7f80_0000)?;
        let r = self.sel(big, inf, r)?;
        let is_nan = self.cmp(CmpOp::UGt, a, inf)?;
        let r = self.sel(is_nan, a, r)?;
        let r = self.bin(BinOp::Or, r, sign)?;
        self.conv_to(Scalar::F32, ConvOp::Bitcast, r)
    }

    /// PackSnorm4x8 .. PackHalf2x16 (54..58): a float vector into one 32-bit integer.
    pub(super) fn glsl_pack(&mut self, n: u32, v: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(v);
        let want = if matches!(n, 54 | 55) { 4 } else { 2 };
        if t != Type::vec(Scalar::F32, want) {
            return Err(invalid(format!(
                "GLSL.std.450 pack instruction {n} of {t:?}"
            )));
        }
        let q = match n {
            58 => self.f32_to_f16_bits(v)?,
            _ => {
                let signed = matches!(n, 54 | 56);
                let scale = match n {
                    54 => 127.0,
                    55 => 255.0,
                    56 => 32767.0,
                    _ => 65535.0,
                };
                let lo = self.fconst_like(v, if signed { -1.0 } else { 0.0 })?;
                let hi = self.fconst_like(v, 1.0)?;
                let c = self.bin(BinOp::FMax, v, lo)?;
                let c = self.bin(BinOp::FMin, c, hi)?;
                let k = self.fconst_like(v, scale)?;
                let s = self.bin(BinOp::FMul, c, k)?;
                let s = self.un(UnOp::FRoundEven, s)?;
                let op = if signed { ConvOp::FToS } else { ConvOp::FToU };
                self.conv_to(Scalar::I32, op, s)?
            }
        };
        let bits = 32 / u32::from(want);
        let mut acc: Option<Value> = None;
        for i in 0..want {
            let l = self.lane(q, i)?;
            let l = self.ik(BinOp::And, l, (1u32 << bits).wrapping_sub(1))?;
            let l = self.ik(BinOp::Shl, l, bits * u32::from(i))?;
            acc = Some(match acc {
                None => l,
                Some(a) => self.bin(BinOp::Or, a, l)?,
            });
        }
        acc.ok_or_else(|| invalid("empty pack"))
    }

    /// UnpackSnorm2x16 .. UnpackUnorm4x8 (60..64): one 32-bit integer into a float vector.
    pub(super) fn glsl_unpack(&mut self, n: u32, p: Value) -> Result<Value, CompileError> {
        if self.sh.ty(p) != Type::I32 {
            return Err(invalid(format!(
                "GLSL.std.450 unpack instruction {n} of a non-32-bit integer"
            )));
        }
        let count: u8 = if matches!(n, 63 | 64) { 4 } else { 2 };
        let bits = 32 / u32::from(count);
        let mut lanes = Vec::new();
        for i in 0..count {
            let off = self.u32c(bits * u32::from(i))?;
            let w = self.u32c(bits)?;
            let signed = matches!(n, 60 | 63);
            let e = if signed {
                self.emit(Type::I32, ir::Op::SBitfieldExtract(p, off, w))?
            } else {
                self.emit(Type::I32, ir::Op::UBitfieldExtract(p, off, w))?
            };
            let f = match n {
                62 => self.f16_bits_to_f32(e)?,
                _ => {
                    let scale = match n {
                        60 => 32767.0,
                        61 => 65535.0,
                        63 => 127.0,
                        _ => 255.0,
                    };
                    let op = if signed { ConvOp::SToF } else { ConvOp::UToF };
                    let f = self.conv_to(Scalar::F32, op, e)?;
                    let q = self.exact_div(f, scale)?;
                    if signed {
                        // -128 / 127 (or -32768 / 32767) clamps to -1.
                        let m1 = self.fconst_like(q, -1.0)?;
                        self.bin(BinOp::FMax, q, m1)?
                    } else {
                        q
                    }
                }
            };
            lanes.push(f);
        }
        self.emit(Type::vec(Scalar::F32, count), ir::Op::Vector(lanes))
    }

    /// `x / d` for a constant `d`, correctly rounded for the small integers the unpack
    /// functions divide (one refinement step after the multiplication by 1/d).
    fn exact_div(&mut self, x: Value, d: f32) -> Result<Value, CompileError> {
        let r = self.fconst_like(x, 1.0 / d)?;
        let q = self.bin(BinOp::FMul, x, r)?;
        let nd = self.fconst_like(x, -d)?;
        let t = self.sh.ty(x);
        let res = self.emit(t, ir::Op::FFma(q, nd, x))?;
        self.emit(t, ir::Op::FFma(res, r, q))
    }
}

#[cfg(test)]
mod tests {
    use super::quantize_f16;

    #[test]
    fn quantize_constants() {
        let q = |x: f32| f32::from_bits(quantize_f16(x.to_bits()));
        assert_eq!(q(1.0), 1.0);
        assert_eq!(q(65519.9), 65504.0);
        assert_eq!(q(65520.0), f32::INFINITY);
        assert_eq!(q(-1.0e6), f32::NEG_INFINITY);
        assert_eq!(q(-1.0e-5).to_bits(), 0x8000_0000);
        assert_eq!(q(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(q(1.0 + 3.0 * 2f32.powi(-11)), 1.0 + 2f32.powi(-9));
        assert_eq!(q(1234.567), 1235.0);
        assert!(q(f32::NAN).is_nan());
    }
}
