//! Conversions and bitcasts that involve 8- and 16-bit types (OpFConvert, OpUConvert,
//! OpSConvert between every width, the FPRoundingMode decoration, OpBitcast between one wide
//! lane and several narrow ones).

use spirv::{Decoration, FPRoundingMode, Word};

use super::module::{invalid, unsupported};
use super::translate::Tr;
use crate::ir::{self, BinOp, CmpOp, ConvOp, Scalar, Type, UnOp, Value};
use crate::CompileError;

fn is_int(s: Scalar) -> bool {
    matches!(s, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
}

impl Tr<'_> {
    /// OpUConvert / OpSConvert of `x` to `rt` (integers of any two widths, same lanes).
    pub(super) fn int_convert(
        &mut self,
        x: Value,
        rt: Type,
        signed: bool,
    ) -> Result<Value, CompileError> {
        let xt = self.sh.ty(x);
        if !is_int(xt.scalar) || !is_int(rt.scalar) {
            return Err(invalid("OpUConvert / OpSConvert between non-integer types"));
        }
        if xt.scalar == rt.scalar {
            return self.emit(rt, ir::Op::Copy(x));
        }
        let c = if signed { ConvOp::SToS } else { ConvOp::UToU };
        self.emit(rt, ir::Op::Conv(c, x))
    }

    /// OpFConvert of `x` to `rt`, rounding as the result's FPRoundingMode decoration says
    /// (to nearest even without one, as the hardware does).
    pub(super) fn float_convert(
        &mut self,
        result: Word,
        x: Value,
        rt: Type,
    ) -> Result<Value, CompileError> {
        let xt = self.sh.ty(x);
        if !xt.scalar.is_float() || !rt.scalar.is_float() {
            return Err(invalid("OpFConvert between non-float types"));
        }
        if xt.scalar == rt.scalar {
            return self.emit(rt, ir::Op::Copy(x));
        }
        let mode = self
            .decos
            .get(result, Decoration::FPRoundingMode)
            .and_then(|v| v.first())
            .map(|&m| FPRoundingMode::from_u32(m).ok_or_else(|| invalid("bad FPRoundingMode")))
            .transpose()?;
        let nearest = self.emit(rt, ir::Op::Conv(ConvOp::FToF, x))?;
        // Widening is exact: the mode changes nothing.
        if rt.scalar.bits() > xt.scalar.bits() {
            return Ok(nearest);
        }
        match mode {
            None | Some(FPRoundingMode::RTE) => Ok(nearest),
            Some(FPRoundingMode::RTZ) => self.toward_zero(x, nearest),
            Some(m) => Err(unsupported(format!("OpFConvert rounding {m:?}"))),
        }
    }

    /// The narrowing `nearest` of `x` turned into round-toward-zero: when rounding to
    /// nearest went up in magnitude, the next value toward zero is the bit pattern one less
    /// (floats are sign and magnitude); that also turns an overflow to infinity into the
    /// largest finite value. NaNs and exact results compare false and stay.
    fn toward_zero(&mut self, x: Value, nearest: Value) -> Result<Value, CompileError> {
        let (xt, nt) = (self.sh.ty(x), self.sh.ty(nearest));
        let back = self.emit(xt, ir::Op::Conv(ConvOp::FToF, nearest))?;
        let back_abs = self.emit(xt, ir::Op::Unary(UnOp::FAbs, back))?;
        let x_abs = self.emit(xt, ir::Op::Unary(UnOp::FAbs, x))?;
        let bt = Type::vec(Scalar::Bool, xt.lanes);
        let went_up = self.emit(bt, ir::Op::Cmp(CmpOp::FOGt, back_abs, x_abs))?;
        let it = Type::vec(Scalar::I16, nt.lanes);
        if nt.scalar != Scalar::F16 {
            return Err(unsupported("round toward zero to this float width"));
        }
        let bits = self.emit(it, ir::Op::Conv(ConvOp::Bitcast, nearest))?;
        let one = self.konst(it, vec![1; it.lanes as usize])?;
        let less = self.emit(it, ir::Op::Binary(BinOp::ISub, bits, one))?;
        let picked = self.emit(it, ir::Op::Select(went_up, less, bits))?;
        self.emit(nt, ir::Op::Conv(ConvOp::Bitcast, picked))
    }

    /// Whether a conversion is between halves and 64-bit integers, which `lower_int64`
    /// builds only for singles.
    pub(super) fn half_and_64(&self, xt: Type, rt: Type) -> bool {
        let pair = [xt.scalar, rt.scalar];
        pair.contains(&Scalar::F16) && pair.contains(&Scalar::I64)
    }

    /// A conversion between halves and 64-bit integers through singles. Exact both ways: a
    /// half is a single, and a 64-bit integer whose magnitude is below 2^24 is one too, while
    /// any larger one rounds to a single at or above 65520 and so to the same infinity
    /// (or, converted to an integer, saturates) as directly.
    pub(super) fn convert_via_single(
        &mut self,
        op: spirv::Op,
        x: Value,
        rt: Type,
    ) -> Result<Value, CompileError> {
        let single = Type::vec(Scalar::F32, rt.lanes);
        let c = match op {
            spirv::Op::ConvertFToU => ConvOp::FToU,
            spirv::Op::ConvertFToS => ConvOp::FToS,
            spirv::Op::ConvertSToF => ConvOp::SToF,
            _ => ConvOp::UToF,
        };
        if self.sh.ty(x).scalar == Scalar::F16 {
            let s = self.emit(single, ir::Op::Conv(ConvOp::FToF, x))?;
            self.emit(rt, ir::Op::Conv(c, s))
        } else {
            let s = self.emit(single, ir::Op::Conv(c, x))?;
            self.emit(rt, ir::Op::Conv(ConvOp::FToF, s))
        }
    }

    /// OpBitcast between lanes of different widths where neither side is 64-bit: each wide
    /// lane holds `ratio` narrow lanes, the lowest-numbered in its low bits.
    pub(super) fn bitcast_narrow(&mut self, x: Value, rt: Type) -> Result<Value, CompileError> {
        let xt = self.sh.ty(x);
        let (xb, rb) = (xt.scalar.bits(), rt.scalar.bits());
        if xb * u32::from(xt.lanes) != rb * u32::from(rt.lanes) || xb == 64 || rb == 64 {
            return Err(unsupported(format!("OpBitcast from {xt:?} to {rt:?}")));
        }
        let int = |bits: u32| match bits {
            8 => Scalar::I8,
            16 => Scalar::I16,
            _ => Scalar::I32,
        };
        let lanes: Vec<Value> = (0..xt.lanes)
            .map(|i| self.lane(x, i))
            .collect::<Result<_, _>>()?;
        let mut ints = Vec::new();
        for l in lanes {
            let it = Type::scalar(int(xb));
            ints.push(if xt.scalar.is_float() {
                self.emit(it, ir::Op::Conv(ConvOp::Bitcast, l))?
            } else {
                l
            });
        }
        let wide_t = Type::scalar(int(rb.max(xb)));
        let mut out = Vec::new();
        if xb < rb {
            let ratio = (rb / xb) as usize;
            for group in ints.chunks(ratio) {
                let mut acc: Option<Value> = None;
                for (k, &part) in group.iter().enumerate() {
                    let w = self.emit(wide_t, ir::Op::Conv(ConvOp::UToU, part))?;
                    let w = if k == 0 {
                        w
                    } else {
                        let s = self.konst(wide_t, vec![(k as u64) * u64::from(xb)])?;
                        self.emit(wide_t, ir::Op::Binary(BinOp::Shl, w, s))?
                    };
                    acc = Some(match acc {
                        None => w,
                        Some(a) => self.emit(wide_t, ir::Op::Binary(BinOp::Or, a, w))?,
                    });
                }
                out.push(acc.ok_or_else(|| invalid("empty bitcast"))?);
            }
        } else {
            let ratio = xb / rb;
            let nt = Type::scalar(int(rb));
            for w in ints {
                for k in 0..ratio {
                    let shifted = if k == 0 {
                        w
                    } else {
                        let s = self.konst(wide_t, vec![u64::from(k * rb)])?;
                        self.emit(wide_t, ir::Op::Binary(BinOp::UShr, w, s))?
                    };
                    out.push(self.emit(nt, ir::Op::Conv(ConvOp::UToU, shifted))?);
                }
            }
        }
        let st = Type::scalar(rt.scalar);
        for v in &mut out {
            if rt.scalar.is_float() {
                *v = self.emit(st, ir::Op::Conv(ConvOp::Bitcast, *v))?;
            }
        }
        if out.len() == 1 {
            return Ok(out[0]);
        }
        self.emit(rt, ir::Op::Vector(out))
    }
}
