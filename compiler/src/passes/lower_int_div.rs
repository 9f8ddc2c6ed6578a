//! 32-bit integer division and remainder without a divide instruction: a float reciprocal
//! estimate of the divisor, one Newton-Raphson step in fixed point with `UMulHigh`, then two
//! correction steps that make quotient and remainder exact. Signed forms work on magnitudes.
//! Also expands IAbs and ISign, which the back ends do not take.

use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Inst, Op, Scalar, Shader, Type, UnOp, Value};
use crate::CompileError;

use super::{rewrite, Out};

struct E<'a> {
    sh: &'a mut Shader,
    out: &'a mut Out,
}

impl E<'_> {
    fn op(&mut self, t: Type, op: Op) -> Value {
        self.out.def(self.sh, t, op)
    }
    fn c(&mut self, v: u32) -> Value {
        self.op(Type::I32, Op::Const(Constant(vec![v as u64])))
    }
    fn b(&mut self, b: BinOp, x: Value, y: Value) -> Value {
        self.op(Type::I32, Op::Binary(b, x, y))
    }
    fn cmp(&mut self, c: CmpOp, x: Value, y: Value) -> Value {
        self.op(Type::BOOL, Op::Cmp(c, x, y))
    }
    fn sel(&mut self, c: Value, x: Value, y: Value) -> Value {
        let t = self.sh.ty(x);
        self.op(t, Op::Select(c, x, y))
    }
    fn neg(&mut self, x: Value) -> Value {
        self.op(Type::I32, Op::Unary(UnOp::INeg, x))
    }

    /// Unsigned quotient and remainder.
    fn udivmod(&mut self, n: Value, d: Value) -> (Value, Value) {
        let fd = self.op(Type::F32, Op::Conv(ConvOp::UToF, d));
        let r = self.op(Type::F32, Op::Unary(UnOp::FRcp, fd));
        // Just below 2^32, so the scaled estimate never exceeds the true 2^32/d.
        let scale = self.op(Type::F32, Op::Const(Constant(vec![0x4f7f_fffe])));
        let rs = self.op(Type::F32, Op::Binary(BinOp::FMul, r, scale));
        let z = self.op(Type::I32, Op::Conv(ConvOp::FToU, rs));
        let nd = self.neg(d);
        let e = self.b(BinOp::IMul, nd, z);
        let h = self.b(BinOp::UMulHigh, z, e);
        let z = self.b(BinOp::IAdd, z, h);
        let mut q = self.b(BinOp::UMulHigh, n, z);
        let qd = self.b(BinOp::IMul, q, d);
        let mut rem = self.b(BinOp::ISub, n, qd);
        let one = self.c(1);
        for _ in 0..2 {
            let ge = self.cmp(CmpOp::UGe, rem, d);
            let q1 = self.b(BinOp::IAdd, q, one);
            q = self.sel(ge, q1, q);
            let r1 = self.b(BinOp::ISub, rem, d);
            rem = self.sel(ge, r1, rem);
        }
        (q, rem)
    }

    fn abs(&mut self, x: Value) -> (Value, Value) {
        let z = self.c(0);
        let neg = self.cmp(CmpOp::SLt, x, z);
        let nx = self.neg(x);
        (self.sel(neg, nx, x), neg)
    }
}

pub fn lower_int_div(sh: &mut Shader) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        let Some(dst) = inst.dst else {
            out.inst(inst);
            return Ok(());
        };
        let t = sh.ty(dst);
        let relevant = matches!(
            inst.op,
            Op::Binary(
                BinOp::UDiv | BinOp::SDiv | BinOp::UMod | BinOp::SRem | BinOp::SMod,
                ..
            ) | Op::Unary(UnOp::IAbs | UnOp::ISign, _)
        );
        if !relevant {
            out.inst(inst);
            return Ok(());
        }
        if t != Type::I32 {
            return Err(CompileError::Unsupported(format!(
                "integer division on {:?}",
                t.scalar
            )));
        }
        let _ = Scalar::I32;
        let mut e = E { sh, out };
        let r = match inst.op {
            Op::Binary(BinOp::UDiv, n, d) => e.udivmod(n, d).0,
            Op::Binary(BinOp::UMod, n, d) => e.udivmod(n, d).1,
            Op::Binary(BinOp::SDiv, n, d) => {
                let (an, nn) = e.abs(n);
                let (ad, dn) = e.abs(d);
                let q = e.udivmod(an, ad).0;
                let flip = e.op(Type::BOOL, Op::Binary(BinOp::Xor, nn, dn));
                let nq = e.neg(q);
                e.sel(flip, nq, q)
            }
            Op::Binary(b @ (BinOp::SRem | BinOp::SMod), n, d) => {
                let (an, nn) = e.abs(n);
                let (ad, dn) = e.abs(d);
                let r = e.udivmod(an, ad).1;
                let nr = e.neg(r);
                let r = e.sel(nn, nr, r);
                if b == BinOp::SRem {
                    r
                } else {
                    // Take the divisor's sign: add it when the remainder is nonzero with the
                    // other sign.
                    let z = e.c(0);
                    let nz = e.cmp(CmpOp::INe, r, z);
                    let rn = e.cmp(CmpOp::SLt, r, z);
                    let differ = e.op(Type::BOOL, Op::Binary(BinOp::Xor, rn, dn));
                    let fix = e.op(Type::BOOL, Op::Binary(BinOp::And, nz, differ));
                    let rd = e.b(BinOp::IAdd, r, d);
                    e.sel(fix, rd, r)
                }
            }
            Op::Unary(UnOp::IAbs, x) => e.abs(x).0,
            Op::Unary(UnOp::ISign, x) => {
                let one = e.c(1);
                let m1 = e.c(u32::MAX);
                let lo = e.b(BinOp::SMin, x, one);
                e.b(BinOp::SMax, lo, m1)
            }
            _ => unreachable_op()?,
        };
        e.out.inst(Inst {
            dst: Some(dst),
            op: Op::Copy(r),
        });
        Ok(())
    })
}

fn unreachable_op() -> Result<Value, CompileError> {
    Err(CompileError::Internal(
        "lower_int_div: unexpected operation".into(),
    ))
}
