//! 8- and 16-bit operations the G13 ALU has no form for, done at a width it has.
//!
//! Halves use the ALU's 16-bit forms directly (add, multiply, fused multiply-add, min/max,
//! compares, floor/ceil/trunc/rint, rcp, rsqrt, exp2, log2, negate, abs, conversions), and
//! 16-bit integers its 16-bit integer forms (add, subtract, multiply, bitwise, shifts,
//! min/max, compares). What remains is built from several instructions anyway (division,
//! remainders, powers, trigonometry, square roots, sign, fract, bit searches): it runs on
//! 32-bit operands, exact conversions of the narrow ones, and its result is rounded (floats,
//! to nearest even) or truncated (integers) back, which is at least as accurate as a 16-bit
//! sequence would be. There is no 8-bit ALU: 8-bit operations run on 16-bit operands (or
//! 32-bit ones when 16 bits have no form either) and wrap to 8 bits, as SPIR-V defines.

use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Inst, Op, Scalar, Shader, Type, UnOp, Value};
use crate::CompileError;

use super::{rewrite, Out};

/// Whether the ALU computes `op` on 16-bit operands.
fn native16(op: &Op) -> bool {
    use BinOp::*;
    match op {
        Op::Binary(b, ..) => matches!(
            b,
            IAdd | ISub
                | IMul
                | And
                | Or
                | Xor
                | Shl
                | UShr
                | SShr
                | UMin
                | SMin
                | UMax
                | SMax
                | FAdd
                | FSub
                | FMul
                | FMin
                | FMax
        ),
        Op::Unary(u, _) => matches!(
            u,
            UnOp::INeg
                | UnOp::Not
                | UnOp::BitCount
                | UnOp::FNeg
                | UnOp::FAbs
                | UnOp::FFloor
                | UnOp::FCeil
                | UnOp::FTrunc
                | UnOp::FRoundEven
                | UnOp::FRsqrt
                | UnOp::FRcp
                | UnOp::FExp2
                | UnOp::FLog2
        ),
        Op::FFma(..) | Op::Cmp(..) => true,
        _ => false,
    }
}

/// Whether the operation reads its integer operands as signed.
fn signed(op: &Op) -> bool {
    match op {
        Op::Binary(b, ..) => matches!(
            b,
            BinOp::SDiv
                | BinOp::SRem
                | BinOp::SMod
                | BinOp::SMulHigh
                | BinOp::SShr
                | BinOp::SMin
                | BinOp::SMax
        ),
        Op::Unary(u, _) => matches!(u, UnOp::IAbs | UnOp::ISign | UnOp::SFindMsb),
        Op::Cmp(c, ..) => matches!(c, CmpOp::SLt | CmpOp::SLe | CmpOp::SGt | CmpOp::SGe),
        _ => false,
    }
}

/// The value operands of the operations this pass may widen.
fn operands(op: &Op) -> Option<Vec<Value>> {
    match op {
        Op::Unary(_, a) => Some(vec![*a]),
        Op::Binary(_, a, b) | Op::Cmp(_, a, b) => Some(vec![*a, *b]),
        Op::FFma(a, b, c) => Some(vec![*a, *b, *c]),
        _ => None,
    }
}

fn with_operands(op: &Op, v: &[Value]) -> Op {
    match op {
        Op::Unary(u, _) => Op::Unary(*u, v[0]),
        Op::Binary(b, ..) => Op::Binary(*b, v[0], v[1]),
        Op::Cmp(c, ..) => Op::Cmp(*c, v[0], v[1]),
        Op::FFma(..) => Op::FFma(v[0], v[1], v[2]),
        other => other.clone(),
    }
}

pub fn widen_small(sh: &mut Shader) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out: &mut Out| {
        let Some(args) = operands(&inst.op) else {
            out.inst(inst);
            return Ok(());
        };
        let from = sh.ty(args[0]).scalar;
        let narrow = matches!(from, Scalar::I8 | Scalar::I16 | Scalar::F16);
        let byte = from == Scalar::I8;
        // Shifts may take an amount of another width; the value decides.
        if !narrow || (!byte && native16(&inst.op)) {
            out.inst(inst);
            return Ok(());
        }
        let wide = match from {
            Scalar::F16 => Scalar::F32,
            Scalar::I8 if native16(&inst.op) => Scalar::I16,
            _ => Scalar::I32,
        };
        let conv_in = if from == Scalar::F16 {
            ConvOp::FToF
        } else if signed(&inst.op) {
            ConvOp::SToS
        } else {
            ConvOp::UToU
        };
        let wide_args: Vec<Value> = args
            .iter()
            .map(|&a| {
                let t = sh.ty(a);
                if t.scalar == from {
                    out.def(sh, Type::vec(wide, t.lanes), Op::Conv(conv_in, a))
                } else {
                    a
                }
            })
            .collect();
        let Some(dst) = inst.dst else {
            return Err(CompileError::Internal(
                "widen_small: operation without a result".into(),
            ));
        };
        let dt = sh.ty(dst);
        if let Op::Binary(high @ (BinOp::UMulHigh | BinOp::SMulHigh), ..) = inst.op {
            // The high half of a narrow product is bits w..2w of the whole product, which
            // 32 bits hold: the 32-bit high word would be its sign or zero.
            let t = Type::vec(Scalar::I32, dt.lanes);
            let lanes = usize::from(dt.lanes);
            let product = out.def(sh, t, Op::Binary(BinOp::IMul, wide_args[0], wide_args[1]));
            let bits = if byte { 8 } else { 16 };
            let by = out.def(sh, t, Op::Const(Constant(vec![bits; lanes])));
            let shift = if high == BinOp::SMulHigh {
                BinOp::SShr
            } else {
                BinOp::UShr
            };
            let r = out.def(sh, t, Op::Binary(shift, product, by));
            out.inst(Inst {
                dst: Some(dst),
                op: Op::Conv(ConvOp::UToU, r),
            });
            return Ok(());
        }
        let op = with_operands(&inst.op, &wide_args);
        if dt.scalar == Scalar::Bool {
            out.inst(Inst { dst: Some(dst), op });
            return Ok(());
        }
        let r = out.def(sh, Type::vec(wide, dt.lanes), op);
        let back = if dt.scalar == Scalar::F16 {
            ConvOp::FToF
        } else {
            ConvOp::UToU
        };
        out.inst(Inst {
            dst: Some(dst),
            op: Op::Conv(back, r),
        });
        Ok(())
    })
}
