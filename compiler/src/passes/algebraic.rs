//! Algebraic simplification: identities (x+0, x*1, x<<0, x|0, ...), absorbing elements for
//! integers (x*0, x&0), strength reduction of multiplication, unsigned division and modulo,
//! and floored signed modulo by powers of two, selects whose arms agree or whose condition
//! is constant, unsigned comparisons with 0 that always hold or never do, unsigned clamps
//! that the operand's bounds show never clamp, right shifts that the operand's bounds
//! show leave nothing, conversions to float of widened integers, comparisons of a
//! fragment's position that its sign decides, and selects on the `or` or `and` of two
//! comparisons as two selects.

use std::collections::HashMap;

use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Op, Scalar, Shader, SysVal, Type, UnOp, Value};
use crate::CompileError;

use super::{const_of, defs, urange};

fn splat_of(d: &HashMap<Value, Op>, v: Value) -> Option<u64> {
    let c = const_of(d, v)?;
    let first = *c.first()?;
    c.iter().all(|x| *x == first).then_some(first)
}

/// The simpler operation `op` can become, if any.
fn simplify(sh: &Shader, d: &HashMap<Value, Op>, op: &Op, dst: Value) -> Option<Op> {
    let ty = sh.ty(dst);
    let lanes = ty.lanes as usize;
    let int = matches!(ty.scalar, Scalar::I32 | Scalar::I64);
    let ones = if ty.scalar == Scalar::I64 {
        u64::MAX
    } else {
        0xffff_ffff
    };
    let zero_const = || Op::Const(Constant(vec![0; lanes]));
    // A 64-bit operand that is a widened constant, as addresses carry offsets.
    let c64 = |v: Value| match d.get(&v) {
        Some(Op::Conv(ConvOp::UToU | ConvOp::SToS, x)) => splat_of(d, *x),
        _ => splat_of(d, v),
    };
    match op {
        Op::Binary(b, x, y) => {
            let (cx, cy) = if ty.scalar == Scalar::I64 {
                (c64(*x), c64(*y))
            } else {
                (splat_of(d, *x), splat_of(d, *y))
            };
            match b {
                BinOp::IAdd | BinOp::Or | BinOp::Xor if cy == Some(0) => Some(Op::Copy(*x)),
                BinOp::IAdd | BinOp::Or | BinOp::Xor if cx == Some(0) && sh.ty(*x) == sh.ty(*y) => {
                    Some(Op::Copy(*y))
                }
                BinOp::ISub | BinOp::Shl | BinOp::UShr | BinOp::SShr if cy == Some(0) => {
                    Some(Op::Copy(*x))
                }
                BinOp::IMul if int && cy == Some(1) => Some(Op::Copy(*x)),
                BinOp::IMul if int && cx == Some(1) => Some(Op::Copy(*y)),
                BinOp::IMul | BinOp::And if int && (cx == Some(0) || cy == Some(0)) => {
                    Some(zero_const())
                }
                BinOp::And if cy == Some(ones) => Some(Op::Copy(*x)),
                BinOp::And if cx == Some(ones) => Some(Op::Copy(*y)),
                BinOp::IMul
                    if ty.scalar == Scalar::I32 && cy.is_some_and(|c| c.is_power_of_two()) =>
                {
                    let sh_amt = cy.unwrap_or(1).trailing_zeros() as u64;
                    Some(Op::Binary(BinOp::Shl, *x, Value(u32::MAX - sh_amt as u32)))
                }
                BinOp::UDiv
                    if ty.scalar == Scalar::I32 && cy.is_some_and(|c| c.is_power_of_two()) =>
                {
                    let sh_amt = cy.unwrap_or(1).trailing_zeros() as u64;
                    Some(Op::Binary(BinOp::UShr, *x, Value(u32::MAX - sh_amt as u32)))
                }
                BinOp::UMod
                    if ty.scalar == Scalar::I32 && cy.is_some_and(|c| c.is_power_of_two()) =>
                {
                    Some(Op::Binary(
                        BinOp::And,
                        *x,
                        Value(u32::MAX - 64 - (cy.unwrap_or(1).trailing_zeros())),
                    ))
                }
                // The floored remainder by a positive power of two, in two's complement.
                BinOp::SMod
                    if ty.scalar == Scalar::I32
                        && cy.is_some_and(|c| c.is_power_of_two() && c < 1 << 31) =>
                {
                    Some(Op::Binary(
                        BinOp::And,
                        *x,
                        Value(u32::MAX - 64 - (cy.unwrap_or(1).trailing_zeros())),
                    ))
                }
                BinOp::FMul if cy == Some(1.0f32.to_bits() as u64) => Some(Op::Copy(*x)),
                BinOp::FMul if cx == Some(1.0f32.to_bits() as u64) => Some(Op::Copy(*y)),
                BinOp::FAdd if cy == Some(0x8000_0000) => Some(Op::Copy(*x)),
                BinOp::FSub if cy == Some(0) => Some(Op::Copy(*x)),
                // A clamp that never clamps.
                BinOp::UMin if ty == Type::I32 && urange(sh, d, *x).1 <= urange(sh, d, *y).0 => {
                    Some(Op::Copy(*x))
                }
                BinOp::UMax if ty == Type::I32 && urange(sh, d, *x).0 >= urange(sh, d, *y).1 => {
                    Some(Op::Copy(*x))
                }
                // A shift that moves every bit the operand may have out (the carry between
                // the words of a small 64-bit value shifted left).
                BinOp::UShr
                    if ty == Type::I32
                        && cy.is_some_and(|k| k < 32 && urange(sh, d, *x).1 >> k == 0) =>
                {
                    Some(zero_const())
                }
                BinOp::And | BinOp::Or | BinOp::UMin | BinOp::UMax | BinOp::SMin | BinOp::SMax
                    if x == y =>
                {
                    Some(Op::Copy(*x))
                }
                _ => None,
            }
        }
        Op::Select(_, a, b) if a == b => Some(Op::Copy(*a)),
        // Arms that are the same constant (a 64-bit select's high words, split by
        // lower_int64, before CSE has merged the constants).
        Op::Select(_, a, b)
            if splat_of(d, *a).is_some()
                && splat_of(d, *a) == splat_of(d, *b)
                && sh.ty(*a) == sh.ty(*b) =>
        {
            Some(Op::Copy(*a))
        }
        Op::Select(c, a, b) => match splat_of(d, *c) {
            Some(0) => Some(Op::Copy(*b)),
            Some(_) => Some(Op::Copy(*a)),
            None => None,
        },
        // A fragment's framebuffer position is never negative (nor NaN): compared with a
        // constant below it, the answer is known.
        Op::Cmp(op @ (CmpOp::FOGe | CmpOp::FOGt | CmpOp::FOLt | CmpOp::FOLe), x, y)
            if matches!(d.get(x), Some(Op::SysVal(SysVal::FragCoord(0 | 1)))) =>
        {
            let c = f32::from_bits(splat_of(d, *y)? as u32);
            let above = match op {
                CmpOp::FOGe | CmpOp::FOLt => c <= 0.0,
                _ => c < 0.0,
            };
            let holds = matches!(op, CmpOp::FOGe | CmpOp::FOGt);
            above.then(|| Op::Const(Constant(vec![u64::from(holds); lanes])))
        }
        // Nothing is below 0 unsigned (OpArrayLength's clamp of a size less a header).
        Op::Cmp(CmpOp::ULt, _, y) if splat_of(d, *y) == Some(0) => Some(zero_const()),
        Op::Cmp(CmpOp::UGt, x, _) if splat_of(d, *x) == Some(0) => Some(zero_const()),
        Op::Cmp(CmpOp::UGe, _, y) if splat_of(d, *y) == Some(0) => {
            Some(Op::Const(Constant(vec![1; lanes])))
        }
        Op::Conv(ConvOp::Bitcast, x) if sh.ty(*x) == ty => Some(Op::Copy(*x)),
        // The float of a widened integer is the float of the narrow one.
        Op::Conv(op @ (ConvOp::UToF | ConvOp::SToF), y) => match d.get(y) {
            Some(&Op::Conv(ext @ (ConvOp::UToU | ConvOp::SToS), x))
                if (ext == ConvOp::UToU) == (*op == ConvOp::UToF)
                    && sh.ty(x).scalar.bits() < sh.ty(*y).scalar.bits() =>
            {
                Some(Op::Conv(*op, x))
            }
            _ => None,
        },
        Op::Unary(UnOp::Not | UnOp::INeg | UnOp::FNeg, x) => match d.get(x) {
            Some(Op::Unary(u2, y))
                if Some(u2)
                    == match op {
                        Op::Unary(u, _) => Some(u),
                        _ => None,
                    } =>
            {
                Some(Op::Copy(*y))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Strength-reduced operations name their new constant operand with a placeholder value
/// (`u32::MAX - k`: shift amount k, or `u32::MAX - 64 - k`: mask of k low bits) that the
/// rewrite turns into a fresh constant in front of the instruction.
fn placeholder(v: Value) -> Option<u64> {
    let k = u32::MAX - v.0;
    if k < 64 {
        Some(k as u64)
    } else if k < 128 {
        Some((1u64 << (k - 64)) - 1)
    } else {
        None
    }
}

pub fn algebraic(sh: &mut Shader) -> Result<(), CompileError> {
    let d = defs(sh);
    let uses = super::use_counts(&sh.body);
    let is_cmp = |v: Value| matches!(d.get(&v), Some(Op::Cmp(..)));
    super::rewrite(sh, &mut |sh, mut inst, out| {
        // A select on `a || b` or `a && b` of two comparisons is two selects that each
        // compare for themselves (`icmpsel`, `fcmpsel`): the boolean operation and the
        // booleans it combines go.
        if let (Some(dst), Op::Select(c, x, y)) = (inst.dst, inst.op.clone()) {
            if let Some(&Op::Binary(op @ (BinOp::Or | BinOp::And), a, b)) = d.get(&c) {
                if uses.get(&c) == Some(&1) && is_cmp(a) && is_cmp(b) && sh.ty(c).lanes == 1 {
                    let t = sh.ty(dst);
                    inst.op = if op == BinOp::Or {
                        let inner = out.def(sh, t, Op::Select(b, x, y));
                        Op::Select(a, x, inner)
                    } else {
                        let inner = out.def(sh, t, Op::Select(b, x, y));
                        Op::Select(a, inner, y)
                    };
                }
            }
        }
        if let Some(dst) = inst.dst {
            if let Some(mut new) = simplify(sh, &d, &inst.op, dst) {
                if let Op::Binary(_, _, y) = &mut new {
                    if let Some(c) = placeholder(*y) {
                        let lanes = sh.ty(dst).lanes as usize;
                        let t = sh.ty(dst);
                        *y = out.def(sh, t, Op::Const(Constant(vec![c; lanes])));
                    }
                }
                inst.op = new;
            }
        }
        out.inst(inst);
        Ok(())
    })
}
