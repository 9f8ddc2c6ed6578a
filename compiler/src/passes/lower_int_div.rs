//! 32-bit integer division and remainder without a divide instruction. A constant divisor
//! becomes a multiply by its "magic" reciprocal and a shift (Granlund and Montgomery's
//! method, exact for every 32-bit dividend, [`magic`]). Any other divisor gets a float
//! reciprocal estimate, one Newton-Raphson step in fixed point with `UMulHigh`, then two
//! correction steps that make quotient and remainder exact. Signed forms work on magnitudes.
//! Also expands IAbs and ISign, which the back ends do not take.

use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Inst, Op, Scalar, Shader, Type, UnOp, Value};
use crate::CompileError;

use super::{const_of, defs, rewrite, urange, Out};

/// How to divide by the constant `d` (not 0): `q = umulhi(n, m) >> shift`, or, when the
/// reciprocal needs 33 bits (`wide`), `t = umulhi(n, m); q = (((n - t) >> 1) + t) >> shift`
/// with `m` its low 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Magic {
    pub m: u32,
    pub shift: u32,
    pub wide: bool,
}

/// The magic reciprocal of `d` (2 or more, not a power of two). With `p = 32 + l` and
/// `m = ceil(2^p / d)`, the product `n * m / 2^p` is `n / d` plus `n * e / (d * 2^p)` where
/// `e = m * d - 2^p < d`; when `e <= 2^l` that excess stays below `1 / d` for every
/// `n < 2^32`, so the floor is exact. The smallest such `l` with `m < 2^32` gives one multiply
/// and one shift; `l = ceil(log2 d)` always qualifies, with a 33-bit `m` in the worst case.
pub(crate) fn magic(d: u32) -> Magic {
    let ceil_log2 = 32 - (d - 1).leading_zeros();
    for l in 0..=ceil_log2 {
        let p = 32 + l;
        let m = (1u128 << p).div_ceil(u128::from(d));
        let e = m * u128::from(d) - (1u128 << p);
        if e <= 1u128 << l && m < 1u128 << 32 {
            return Magic {
                m: m as u32,
                shift: l,
                wide: false,
            };
        }
    }
    // m = ceil(2^(32 + l) / d) lies in [2^32, 2^33): the add-and-halve form computes
    // floor(n * m / 2^(32 + l)) without the 33rd bit.
    let l = ceil_log2;
    let m = (1u128 << (32 + l)).div_ceil(u128::from(d));
    Magic {
        m: (m - (1u128 << 32)) as u32,
        shift: l - 1,
        wide: true,
    }
}

struct E<'a> {
    sh: &'a mut Shader,
    out: &'a mut Out,
    /// The magnitude of the divisor of the operation being lowered, when it is a constant.
    konst: Option<u32>,
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

    /// Unsigned quotient and remainder by the constant `d` (not 0).
    fn udivmod_const(&mut self, n: Value, d: u32) -> (Value, Value) {
        let dv = self.c(d);
        let q = if d.is_power_of_two() {
            let k = self.c(d.trailing_zeros());
            self.b(BinOp::UShr, n, k)
        } else {
            let mg = magic(d);
            let m = self.c(mg.m);
            let t = self.b(BinOp::UMulHigh, n, m);
            let t = if mg.wide {
                let one = self.c(1);
                let diff = self.b(BinOp::ISub, n, t);
                let half = self.b(BinOp::UShr, diff, one);
                self.b(BinOp::IAdd, half, t)
            } else {
                t
            };
            let k = self.c(mg.shift);
            self.b(BinOp::UShr, t, k)
        };
        let qd = self.b(BinOp::IMul, q, dv);
        let rem = self.b(BinOp::ISub, n, qd);
        (q, rem)
    }

    /// Unsigned quotient and remainder.
    fn udivmod(&mut self, n: Value, d: Value) -> (Value, Value) {
        if let Some(k) = self.konst.filter(|&k| k != 0) {
            return self.udivmod_const(n, k);
        }
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

    /// [`Self::abs`] of an operand, which is its own magnitude when it is already an
    /// absolute value (`|INT_MIN|` is INT_MIN, whose bits are the magnitude 2^31).
    /// [`Self::magnitude`], or `x` itself and no sign when it is known `nonneg`.
    fn magnitude_unless(&mut self, nonneg: bool, x: Value, is_abs: bool) -> (Value, Option<Value>) {
        if nonneg {
            return (x, None);
        }
        let (m, neg) = self.magnitude(x, is_abs);
        (m, Some(neg))
    }

    fn magnitude(&mut self, x: Value, is_abs: bool) -> (Value, Value) {
        if !is_abs {
            return self.abs(x);
        }
        let z = self.c(0);
        (x, self.cmp(CmpOp::SLt, x, z))
    }
}

pub fn lower_int_div(sh: &mut Shader) -> Result<(), CompileError> {
    let d = defs(sh);
    let defs_before = d.clone();
    let konst = |v: Value| -> Option<u32> {
        let c = const_of(&d, v)?;
        (c.len() == 1).then(|| c[0] as u32)
    };
    // Definitions as they were before this pass rewrote any.
    let is_abs = |v: Value| matches!(d.get(&v), Some(Op::Unary(UnOp::IAbs, _)));
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
        let divisor = match inst.op {
            Op::Binary(BinOp::UDiv | BinOp::UMod, _, d) => konst(d),
            Op::Binary(BinOp::SDiv | BinOp::SRem | BinOp::SMod, _, d) => {
                konst(d).map(|k| (k as i32).unsigned_abs())
            }
            _ => None,
        };
        let mut e = E {
            sh,
            out,
            konst: divisor,
        };
        // A dividend that is never negative needs no sign of its own; over a positive
        // constant divisor, the signed forms are the unsigned ones.
        let (nonneg, unsigned) = match inst.op {
            Op::Binary(BinOp::SDiv | BinOp::SRem | BinOp::SMod, n, d) => {
                let nonneg = urange(e.sh, &defs_before, n).1 <= 0x7fff_ffff;
                (nonneg, nonneg && konst(d).is_some_and(|k| (k as i32) > 0))
            }
            _ => (false, false),
        };
        let r = match inst.op {
            Op::Binary(BinOp::UDiv, n, d) => e.udivmod(n, d).0,
            Op::Binary(BinOp::UMod, n, d) => e.udivmod(n, d).1,
            Op::Binary(BinOp::SDiv, n, d) if unsigned => e.udivmod(n, d).0,
            Op::Binary(BinOp::SRem | BinOp::SMod, n, d) if unsigned => e.udivmod(n, d).1,
            Op::Binary(BinOp::SDiv, n, d) => {
                let (an, nn) = e.magnitude_unless(nonneg, n, is_abs(n));
                let (ad, dn) = e.magnitude(d, is_abs(d));
                let q = e.udivmod(an, ad).0;
                let flip = match nn {
                    Some(nn) => e.op(Type::BOOL, Op::Binary(BinOp::Xor, nn, dn)),
                    None => dn,
                };
                let nq = e.neg(q);
                e.sel(flip, nq, q)
            }
            Op::Binary(b @ (BinOp::SRem | BinOp::SMod), n, d) => {
                let (an, nn) = e.magnitude_unless(nonneg, n, is_abs(n));
                let (ad, dn) = e.magnitude(d, is_abs(d));
                let r = e.udivmod(an, ad).1;
                // The remainder takes the dividend's sign (a remainder of magnitudes is below
                // 2^31, so never negative as a signed value).
                let r = match nn {
                    Some(nn) => {
                        let nr = e.neg(r);
                        e.sel(nn, nr, r)
                    }
                    None => r,
                };
                if b == BinOp::SRem {
                    r
                } else {
                    // Take the divisor's sign: add it when the remainder is nonzero with the
                    // other sign.
                    let z = e.c(0);
                    let nz = e.cmp(CmpOp::INe, r, z);
                    let differ = match nn {
                        Some(_) => {
                            let rn = e.cmp(CmpOp::SLt, r, z);
                            e.op(Type::BOOL, Op::Binary(BinOp::Xor, rn, dn))
                        }
                        None => dn,
                    };
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
