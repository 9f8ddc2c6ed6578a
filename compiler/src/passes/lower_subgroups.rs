//! Subgroup operations the G13 back end has no single instruction for, in terms of the ones it
//! has (`Ballot` and `LaneRead` with an immediate lane, see `g13::isel::subgroup`):
//!
//! * a lane read of an I64 reads its two 32-bit halves;
//! * a lane read from a lane computed at run time reads each of the 32 lanes and keeps the
//!   one whose number matches (the hardware's register-indexed shuffle needs the whole quad
//!   to agree on the low index bits, inactive threads included);
//! * a reduction or scan of 16- or 32-bit values with an operation the hardware reduces
//!   (`hw::isa::SimdOp`: not IMul) stays for the back end when it spans the subgroup or is a
//!   cluster of 4 (a quad); an inclusive scan becomes the exclusive one (`simd_prefix`)
//!   folded with the invocation's own value, as Mesa does;
//! * a Bool reduction or scan is a ballot: And is "no selected invocation is false", Or
//!   "some selected invocation is true", Xor the parity of the true ones;
//! * any other cluster reads the cluster's lanes with xor shuffles (lane ^ 0 .. lane ^ (c-1))
//!   and folds in the active ones;
//! * what is left (IMul, 64-bit values) reads each of the 32 lanes and folds in the ones its
//!   mask selects: the active invocations (a ballot of true) of the invocation's cluster, or
//!   those numbered up to (inclusive scan) or below (exclusive scan) it.
//!
//! Inactive invocations never contribute, whatever their registers hold.

use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, Inst, LaneRead, Op, Reduction, Scalar, Scan, Shader, SysVal,
    Type, UnOp, Value, SUBGROUP_SIZE,
};
use crate::CompileError;

use super::{rewrite, Out};

fn konst(sh: &mut Shader, out: &mut Out, ty: Type, bits: u64) -> Value {
    out.def(sh, ty, Op::Const(Constant(vec![bits])))
}

fn lane_read(sh: &mut Shader, out: &mut Out, l: LaneRead, v: Value) -> Value {
    let ty = sh.ty(v);
    if ty == Type::I64 {
        let lo = out.def(sh, Type::I32, Op::Conv(ConvOp::UToU, v));
        let c32 = konst(sh, out, Type::I32, 32);
        let hi64 = out.def(sh, Type::I64, Op::Binary(BinOp::UShr, v, c32));
        let hi = out.def(sh, Type::I32, Op::Conv(ConvOp::UToU, hi64));
        let lo = lane_read(sh, out, l, lo);
        let hi = lane_read(sh, out, l, hi);
        let lo = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, lo));
        let hi = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, hi));
        let hi = out.def(sh, Type::I64, Op::Binary(BinOp::Shl, hi, c32));
        return out.def(sh, Type::I64, Op::Binary(BinOp::Or, lo, hi));
    }
    let LaneRead::Dynamic(i) = l else {
        return out.def(sh, ty, Op::LaneRead(l, v));
    };
    let mut r = out.def(sh, ty, Op::LaneRead(LaneRead::Lane(0), v));
    for k in 1..SUBGROUP_SIZE {
        let x = out.def(sh, ty, Op::LaneRead(LaneRead::Lane(k as u8), v));
        let kc = konst(sh, out, Type::I32, u64::from(k));
        let is_k = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::IEq, i, kc));
        r = out.def(sh, ty, Op::Select(is_k, x, r));
    }
    r
}

/// The identity of `op` on `ty`, as constant bits.
fn identity(op: BinOp, ty: Type) -> Result<u64, CompileError> {
    let bits = ty.scalar.bits();
    let ones = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // Float identities at the value's width: 0, 1 and the infinities are exact in both.
    let f = |x: f32| match ty.scalar {
        Scalar::F16 => Some(u64::from(crate::ir::half::from_f64(f64::from(x)))),
        Scalar::F32 => Some(u64::from(x.to_bits())),
        _ => None,
    };
    let float = match op {
        BinOp::FAdd => f(0.0),
        BinOp::FMul => f(1.0),
        BinOp::FMin => f(f32::INFINITY),
        BinOp::FMax => f(f32::NEG_INFINITY),
        _ => None,
    };
    Ok(match (op, float) {
        (_, Some(bits)) => bits,
        (BinOp::IAdd | BinOp::Or | BinOp::Xor | BinOp::UMax, _) => 0,
        (BinOp::IMul, _) => 1,
        (BinOp::And | BinOp::UMin, _) => ones,
        (BinOp::SMin, _) => ones >> 1,
        (BinOp::SMax, _) => (ones >> 1) + 1,
        _ => {
            return Err(CompileError::Unsupported(format!(
                "subgroup {op:?} of {ty:?}"
            )))
        }
    })
}

/// Whether the back end reduces `op` on `ty` in hardware (`simd_reduce` and friends).
pub fn hardware_reduces(op: BinOp, ty: Type) -> bool {
    let int = matches!(
        op,
        BinOp::IAdd
            | BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::SMin
            | BinOp::SMax
            | BinOp::UMin
            | BinOp::UMax
    );
    let float = matches!(op, BinOp::FAdd | BinOp::FMul | BinOp::FMin | BinOp::FMax);
    // The hardware forms take 16- or 32-bit registers (Mesa's agx_compile reduces 16-bit
    // values directly). 8-bit values sit zero-extended in halves, which a signed minimum or
    // an add's carry into bit 8 would misread, so they take the generic path.
    let int_ty = ty == Type::I32 || ty == Type::scalar(Scalar::I16);
    let float_ty = ty == Type::F32 || ty == Type::scalar(Scalar::F16);
    (int_ty && int) || (float_ty && float)
}

fn reduce(sh: &mut Shader, out: &mut Out, r: Reduction, v: Value) -> Result<Value, CompileError> {
    let ty = sh.ty(v);
    let t = konst(sh, out, Type::BOOL, 1);
    let active = out.def(sh, Type::I32, Op::Ballot(t));
    let me = out.def(sh, Type::I32, Op::SysVal(SysVal::SubgroupLocalInvocationId));
    let one = konst(sh, out, Type::I32, 1);
    let zero = konst(sh, out, Type::I32, 0);
    if r.scan == Scan::Reduce && u32::from(r.cluster) < SUBGROUP_SIZE && ty != Type::BOOL {
        // The cluster's lanes are me ^ 0 .. me ^ (cluster - 1).
        let mut acc = konst(sh, out, ty, identity(r.op, ty)?);
        for d in 0..r.cluster {
            let x = lane_read(sh, out, LaneRead::Xor(d), v);
            let dc = konst(sh, out, Type::I32, u64::from(d));
            let src = out.def(sh, Type::I32, Op::Binary(BinOp::Xor, me, dc));
            let s = out.def(sh, Type::I32, Op::Binary(BinOp::UShr, active, src));
            let b = out.def(sh, Type::I32, Op::Binary(BinOp::And, s, one));
            let take = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::INe, b, zero));
            let folded = out.def(sh, ty, Op::Binary(r.op, acc, x));
            acc = out.def(sh, ty, Op::Select(take, folded, acc));
        }
        return Ok(acc);
    }
    // The invocations this one's result folds in, as a mask.
    let span = match r.scan {
        Scan::Reduce if u32::from(r.cluster) >= SUBGROUP_SIZE => None,
        Scan::Reduce => {
            let c = u64::from(r.cluster);
            let low = konst(sh, out, Type::I32, !(c - 1) & 0xffff_ffff);
            let base = out.def(sh, Type::I32, Op::Binary(BinOp::And, me, low));
            let bits = konst(sh, out, Type::I32, (1 << c) - 1);
            Some(out.def(sh, Type::I32, Op::Binary(BinOp::Shl, bits, base)))
        }
        Scan::Inclusive | Scan::Exclusive => {
            // 2 << 31 wraps to 0 and 0 - 1 is every bit: invocation 31's inclusive span.
            let first = konst(
                sh,
                out,
                Type::I32,
                if r.scan == Scan::Inclusive { 2 } else { 1 },
            );
            let s = out.def(sh, Type::I32, Op::Binary(BinOp::Shl, first, me));
            Some(out.def(sh, Type::I32, Op::Binary(BinOp::ISub, s, one)))
        }
    };
    let mask = match span {
        Some(s) => out.def(sh, Type::I32, Op::Binary(BinOp::And, active, s)),
        None => active,
    };
    if ty == Type::BOOL {
        let selected = |sh: &mut Shader, out: &mut Out, b: Value| {
            let m = out.def(sh, Type::I32, Op::Ballot(b));
            out.def(sh, Type::I32, Op::Binary(BinOp::And, m, mask))
        };
        return Ok(match r.op {
            BinOp::And => {
                let f = out.def(sh, Type::BOOL, Op::Unary(UnOp::Not, v));
                let m = selected(sh, out, f);
                out.def(sh, Type::BOOL, Op::Cmp(CmpOp::IEq, m, zero))
            }
            BinOp::Or => {
                let m = selected(sh, out, v);
                out.def(sh, Type::BOOL, Op::Cmp(CmpOp::INe, m, zero))
            }
            BinOp::Xor => {
                let m = selected(sh, out, v);
                let n = out.def(sh, Type::I32, Op::Unary(UnOp::BitCount, m));
                let p = out.def(sh, Type::I32, Op::Binary(BinOp::And, n, one));
                out.def(sh, Type::BOOL, Op::Cmp(CmpOp::INe, p, zero))
            }
            op => {
                return Err(CompileError::Unsupported(format!(
                    "subgroup {op:?} of booleans"
                )))
            }
        });
    }
    let mut acc = konst(sh, out, ty, identity(r.op, ty)?);
    for k in 0..SUBGROUP_SIZE {
        let x = lane_read(sh, out, LaneRead::Lane(k as u8), v);
        let bit = konst(sh, out, Type::I32, 1 << k);
        let m = out.def(sh, Type::I32, Op::Binary(BinOp::And, mask, bit));
        let take = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::INe, m, zero));
        let folded = out.def(sh, ty, Op::Binary(r.op, acc, x));
        acc = out.def(sh, ty, Op::Select(take, folded, acc));
    }
    Ok(acc)
}

pub fn lower_subgroups(sh: &mut Shader) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        let r = match (inst.dst, &inst.op) {
            (Some(_), Op::LaneRead(l, v))
                if matches!(l, LaneRead::Dynamic(_)) || sh.ty(*v) == Type::I64 =>
            {
                lane_read(sh, out, *l, *v)
            }
            (Some(_), Op::Reduce(r, v)) if hardware_reduces(r.op, sh.ty(*v)) => {
                match (r.scan, r.cluster) {
                    (Scan::Reduce, 4 | 32) | (Scan::Exclusive, _) => {
                        out.inst(inst);
                        return Ok(());
                    }
                    (Scan::Inclusive, _) => {
                        let ex = Reduction {
                            scan: Scan::Exclusive,
                            ..*r
                        };
                        let ty = sh.ty(*v);
                        let e = out.def(sh, ty, Op::Reduce(ex, *v));
                        out.def(sh, ty, Op::Binary(r.op, e, *v))
                    }
                    _ => reduce(sh, out, *r, *v)?,
                }
            }
            (Some(_), Op::Reduce(r, v)) => reduce(sh, out, *r, *v)?,
            _ => {
                out.inst(inst);
                return Ok(());
            }
        };
        out.inst(Inst {
            dst: inst.dst,
            op: Op::Copy(r),
        });
        Ok(())
    })
}
