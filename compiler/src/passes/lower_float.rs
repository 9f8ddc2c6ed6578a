//! Float operations the back ends do not take, built from ones they do: division through the
//! reciprocal, square root through the reciprocal square root, pow through exp2/log2, mod,
//! fract, sign, and atan2 as a polynomial on [0, 1] with octant fix-ups.

use crate::ir::{BinOp, CmpOp, Constant, Inst, Op, Shader, Type, UnOp, Value};
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
    fn c(&mut self, v: f32) -> Value {
        self.op(Type::F32, Op::Const(Constant(vec![v.to_bits() as u64])))
    }
    fn b(&mut self, b: BinOp, x: Value, y: Value) -> Value {
        self.op(Type::F32, Op::Binary(b, x, y))
    }
    fn u(&mut self, u: UnOp, x: Value) -> Value {
        self.op(Type::F32, Op::Unary(u, x))
    }
    fn cmp(&mut self, c: CmpOp, x: Value, y: Value) -> Value {
        self.op(Type::BOOL, Op::Cmp(c, x, y))
    }
    fn sel(&mut self, c: Value, x: Value, y: Value) -> Value {
        self.op(Type::F32, Op::Select(c, x, y))
    }
    fn div(&mut self, x: Value, y: Value) -> Value {
        let r = self.u(UnOp::FRcp, y);
        self.b(BinOp::FMul, x, r)
    }

    fn atan2(&mut self, y: Value, x: Value) -> Value {
        let ax = self.u(UnOp::FAbs, x);
        let ay = self.u(UnOp::FAbs, y);
        let hi = self.b(BinOp::FMax, ax, ay);
        let lo = self.b(BinOp::FMin, ax, ay);
        // The reciprocal of a magnitude of 2^126 or more is denormal, which f32 arithmetic
        // flushes to zero: scaling both by 1/4 first (exact, as a power of two) keeps lo/hi.
        let huge = self.c(2f32.powi(64));
        let is_huge = self.cmp(CmpOp::FOGe, hi, huge);
        let quarter = self.c(0.25);
        let one = self.c(1.0);
        let scale = self.sel(is_huge, quarter, one);
        let hi_scaled = self.b(BinOp::FMul, hi, scale);
        let lo_scaled = self.b(BinOp::FMul, lo, scale);
        let t = self.div(lo_scaled, hi_scaled);
        let zero = self.c(0.0);
        let both_zero = self.cmp(CmpOp::FOEq, hi, zero);
        let t = self.sel(both_zero, zero, t);
        let s = self.b(BinOp::FMul, t, t);
        // Minimax odd polynomial for atan on [0, 1] (absolute error about 1e-5 radians).
        let coeffs = [
            -0.013_480_47,
            0.057_477_314,
            -0.121_239_07,
            0.195_635_93,
            -0.332_994_6,
            0.999_995_6,
        ];
        let mut p = self.c(coeffs[0]);
        for k in &coeffs[1..] {
            let kc = self.c(*k);
            p = self.op(Type::F32, Op::FFma(p, s, kc));
        }
        let mut r = self.b(BinOp::FMul, p, t);
        let half_pi = self.c(std::f32::consts::FRAC_PI_2);
        let pi = self.c(std::f32::consts::PI);
        let steep = self.cmp(CmpOp::FOGt, ay, ax);
        let r2 = self.b(BinOp::FSub, half_pi, r);
        r = self.sel(steep, r2, r);
        let left = self.cmp(CmpOp::FOLt, x, zero);
        let r3 = self.b(BinOp::FSub, pi, r);
        r = self.sel(left, r3, r);
        // The sign bit of y picks the half plane, so -0 gives -pi like atan2 does.
        let yi = self.op(Type::I32, Op::Conv(crate::ir::ConvOp::Bitcast, y));
        let izero = self.op(Type::I32, Op::Const(Constant(vec![0])));
        let down = self.cmp(CmpOp::SLt, yi, izero);
        let r4 = self.u(UnOp::FNeg, r);
        self.sel(down, r4, r)
    }
}

pub fn lower_float(sh: &mut Shader) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        let Some(dst) = inst.dst else {
            out.inst(inst);
            return Ok(());
        };
        let relevant = matches!(
            inst.op,
            Op::Binary(BinOp::FDiv | BinOp::FMod | BinOp::FPow | BinOp::FAtan2, ..)
                | Op::Unary(UnOp::FSqrt | UnOp::FFract | UnOp::FSign, _)
        );
        if !relevant {
            out.inst(inst);
            return Ok(());
        }
        if sh.ty(dst) != Type::F32 {
            return Err(CompileError::Internal(
                "lower_float: non-scalar float operation".into(),
            ));
        }
        let mut e = E { sh, out };
        let r = match inst.op {
            Op::Binary(BinOp::FDiv, x, y) => e.div(x, y),
            Op::Binary(BinOp::FMod, x, y) => {
                let q = e.div(x, y);
                let f = e.u(UnOp::FFloor, q);
                let p = e.b(BinOp::FMul, y, f);
                e.b(BinOp::FSub, x, p)
            }
            Op::Binary(BinOp::FPow, x, y) => {
                let l = e.u(UnOp::FLog2, x);
                let m = e.b(BinOp::FMul, y, l);
                e.u(UnOp::FExp2, m)
            }
            Op::Binary(BinOp::FAtan2, y, x) => e.atan2(y, x),
            Op::Unary(UnOp::FSqrt, x) => {
                let rs = e.u(UnOp::FRsqrt, x);
                let m = e.b(BinOp::FMul, x, rs);
                // x * rsqrt(x) is NaN at 0 and +inf; sqrt gives x there.
                let zero = e.c(0.0);
                let inf = e.c(f32::INFINITY);
                let z = e.cmp(CmpOp::FOEq, x, zero);
                let i = e.cmp(CmpOp::FOEq, x, inf);
                let edge = e.op(Type::BOOL, Op::Binary(BinOp::Or, z, i));
                e.sel(edge, x, m)
            }
            Op::Unary(UnOp::FFract, x) => {
                let f = e.u(UnOp::FFloor, x);
                e.b(BinOp::FSub, x, f)
            }
            Op::Unary(UnOp::FSign, x) => {
                let zero = e.c(0.0);
                let one = e.c(1.0);
                let m1 = e.c(-1.0);
                let pos = e.cmp(CmpOp::FOGt, x, zero);
                let neg = e.cmp(CmpOp::FOLt, x, zero);
                let s = e.sel(neg, m1, x);
                e.sel(pos, one, s)
            }
            _ => {
                return Err(CompileError::Internal(
                    "lower_float: unexpected operation".into(),
                ))
            }
        };
        e.out.inst(Inst {
            dst: Some(dst),
            op: Op::Copy(r),
        });
        Ok(())
    })
}
