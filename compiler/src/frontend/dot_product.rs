//! Integer dot products (SPV_KHR_integer_dot_product, core in SPIR-V 1.6): OpSDot, OpUDot,
//! OpSUDot and their AccSat forms, on vectors or on 4x8-bit vectors packed in a 32-bit
//! integer. AGX has no dot-product instruction, so they become multiplies and adds.
//!
//! The plain forms keep the low bits of the exact result, which is what wrapping arithmetic
//! in the result's width gives. The AccSat forms saturate the exact dot product plus the
//! accumulator once, at the end: the sum is kept in 64 bits (every product of components
//! up to 32 bits is exact there) together with a count of how often it wrapped, which is
//! enough to know on which side of the result's range the exact value lies.

use rspirv::dr::{Instruction, Operand};
use spirv::Op;

use super::module::{id, invalid, result_type, unsupported};
use super::translate::{FnState, Tr};
use crate::ir::{self, BinOp, CmpOp, ConvOp, Scalar, Type, Value};
use crate::CompileError;

/// Whether `op` is one of the six integer dot-product instructions.
pub(super) fn is_integer_dot(op: Op) -> bool {
    matches!(
        op,
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat
    )
}

impl<'m> Tr<'m> {
    pub(super) fn integer_dot(
        &mut self,
        fs: &FnState<'m>,
        inst: &'m Instruction,
    ) -> Result<Value, CompileError> {
        let op = inst.class.opcode;
        // Signedness of the first and second vector; the result is signed when the first is.
        let (a_signed, b_signed) = match op {
            Op::SDot | Op::SDotAccSat => (true, true),
            Op::UDot | Op::UDotAccSat => (false, false),
            _ => (true, false),
        };
        let sat = matches!(op, Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
        let rt = self.l.ir_type(result_type(inst)?)?;
        if rt.lanes != 1 || matches!(rt.scalar, Scalar::Bool) || rt.scalar.is_float() {
            return Err(invalid(format!("{op:?} result is not an integer scalar")));
        }
        let packed = matches!(inst.operands.last(), Some(Operand::PackedVectorFormat(_)));
        let a = self.simple(fs, id(inst, 0)?)?;
        let b = self.simple(fs, id(inst, 1)?)?;
        let (at, bt) = (self.sh.ty(a), self.sh.ty(b));
        if at.lanes != bt.lanes || at.scalar.bits() != bt.scalar.bits() {
            return Err(invalid(format!("{op:?} operands of different shapes")));
        }
        let comp_bits = if packed {
            if at != Type::I32 {
                return Err(invalid(format!(
                    "{op:?} packed operand is not a 32-bit integer"
                )));
            }
            8
        } else {
            at.scalar.bits()
        };
        if comp_bits > rt.scalar.bits() {
            return Err(invalid(format!(
                "{op:?} result narrower than its components"
            )));
        }
        if !sat {
            let xs = self.dot_components(a, packed, a_signed, rt)?;
            let ys = self.dot_components(b, packed, b_signed, rt)?;
            return self.wrapping_dot(&xs, &ys);
        }
        if comp_bits > 32 {
            return Err(unsupported(format!("{op:?} of 64-bit components")));
        }
        let acc = self.simple(fs, id(inst, 2)?)?;
        if self.sh.ty(acc) != rt {
            return Err(invalid(format!("{op:?} accumulator of another type")));
        }
        let xs = self.dot_components(a, packed, a_signed, Type::I64)?;
        let ys = self.dot_components(b, packed, b_signed, Type::I64)?;
        let mut addends = Vec::new();
        for (x, y) in xs.iter().zip(&ys) {
            addends.push(self.bin(BinOp::IMul, *x, *y)?);
        }
        addends.push(self.extend(acc, a_signed, Type::I64)?);
        self.saturating_sum(&addends, a_signed, rt)
    }

    /// The components of a dot-product operand, each extended (or, for a narrower result,
    /// truncated) to `to`.
    fn dot_components(
        &mut self,
        v: Value,
        packed: bool,
        signed: bool,
        to: Type,
    ) -> Result<Vec<Value>, CompileError> {
        let mut out = Vec::new();
        if packed {
            // Component i is bits 8i..8i+8: shift it to the top, then back down with the
            // component's extension.
            for i in 0..4 {
                let up = self.u32c(24 - 8 * i)?;
                let hi = self.bin(BinOp::Shl, v, up)?;
                let down = self.u32c(24)?;
                let shr = if signed { BinOp::SShr } else { BinOp::UShr };
                let c = self.bin(shr, hi, down)?;
                out.push(self.extend(c, signed, to)?);
            }
            return Ok(out);
        }
        let t = self.sh.ty(v);
        for i in 0..t.lanes {
            let c = self.lane(v, i)?;
            out.push(self.extend(c, signed, to)?);
        }
        Ok(out)
    }

    /// `v` sign- or zero-extended (or truncated) to the integer type `to`.
    fn extend(&mut self, v: Value, signed: bool, to: Type) -> Result<Value, CompileError> {
        if self.sh.ty(v) == to {
            return Ok(v);
        }
        let c = if signed { ConvOp::SToS } else { ConvOp::UToU };
        self.emit(to, ir::Op::Conv(c, v))
    }

    /// Σ x_i * y_i in the operands' own type, wrapping.
    fn wrapping_dot(&mut self, xs: &[Value], ys: &[Value]) -> Result<Value, CompileError> {
        let mut acc: Option<Value> = None;
        for (x, y) in xs.iter().zip(ys) {
            let p = self.bin(BinOp::IMul, *x, *y)?;
            acc = Some(match acc {
                None => p,
                Some(a) => self.bin(BinOp::IAdd, a, p)?,
            });
        }
        acc.ok_or_else(|| invalid("dot product of empty vectors"))
    }

    /// The exact sum of 64-bit `addends` (signed or unsigned), saturated to the range of
    /// `rt`. The sum wraps in 64 bits; `wraps` counts +1 for each wrap past the top of the
    /// 64-bit range and -1 for each past the bottom, so a non-zero count means the exact sum
    /// lies beyond the 64-bit range, on that side.
    fn saturating_sum(
        &mut self,
        addends: &[Value],
        signed: bool,
        rt: Type,
    ) -> Result<Value, CompileError> {
        let (&first, rest) = addends
            .split_first()
            .ok_or_else(|| invalid("dot product of empty vectors"))?;
        let zero64 = self.konst(Type::I64, vec![0])?;
        let mut wraps = self.u32c(0)?;
        let mut sum = first;
        for &x in rest {
            let r = self.bin(BinOp::IAdd, sum, x)?;
            if signed {
                // Adding x >= 0 wrapped iff the sum went down; adding x < 0 iff it went up.
                let nonneg = self.cmp(CmpOp::SGe, x, zero64)?;
                let neg = self.cmp(CmpOp::SLt, x, zero64)?;
                let down = self.cmp(CmpOp::SLt, r, sum)?;
                let up = self.cmp(CmpOp::SGt, r, sum)?;
                let over = self.bin(BinOp::And, nonneg, down)?;
                let under = self.bin(BinOp::And, neg, up)?;
                let over = self.emit(Type::I32, ir::Op::Conv(ConvOp::BoolToInt, over))?;
                let under = self.emit(Type::I32, ir::Op::Conv(ConvOp::BoolToInt, under))?;
                wraps = self.bin(BinOp::IAdd, wraps, over)?;
                wraps = self.bin(BinOp::ISub, wraps, under)?;
            } else {
                let carry = self.cmp(CmpOp::ULt, r, sum)?;
                let carry = self.emit(Type::I32, ir::Op::Conv(ConvOp::BoolToInt, carry))?;
                wraps = self.bin(BinOp::IAdd, wraps, carry)?;
            }
            sum = r;
        }
        let bits = rt.scalar.bits();
        let zero32 = self.u32c(0)?;
        let out = if signed {
            let max = (1u64 << (bits - 1)) - 1;
            let min = (max as i64).wrapping_neg().wrapping_sub(1) as u64;
            let hi = self.konst(Type::I64, vec![max])?;
            let lo = self.konst(Type::I64, vec![min])?;
            let above = self.cmp(CmpOp::SGt, sum, hi)?;
            let v = self.emit(Type::I64, ir::Op::Select(above, hi, sum))?;
            let below = self.cmp(CmpOp::SLt, v, lo)?;
            let v = self.emit(Type::I64, ir::Op::Select(below, lo, v))?;
            let past_top = self.cmp(CmpOp::SGt, wraps, zero32)?;
            let past_bottom = self.cmp(CmpOp::SLt, wraps, zero32)?;
            let v = self.emit(Type::I64, ir::Op::Select(past_top, hi, v))?;
            self.emit(Type::I64, ir::Op::Select(past_bottom, lo, v))?
        } else {
            let max = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let hi = self.konst(Type::I64, vec![max])?;
            let above = self.cmp(CmpOp::UGt, sum, hi)?;
            let v = self.emit(Type::I64, ir::Op::Select(above, hi, sum))?;
            let wrapped = self.cmp(CmpOp::INe, wraps, zero32)?;
            self.emit(Type::I64, ir::Op::Select(wrapped, hi, v))?
        };
        if rt.scalar == Scalar::I64 {
            return Ok(out);
        }
        self.emit(rt, ir::Op::Conv(ConvOp::UToU, out))
    }
}
