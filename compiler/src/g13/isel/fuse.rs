//! Integer additions that absorb the operation feeding them: `a + (x << k)` is one `iadd`
//! (its B source has a shift), `x * y + c` and `x * y - c` one `imadd`. The absorbed shift or
//! multiply must have no other use, so it emits nothing of its own.

use std::collections::{HashMap, HashSet};

use crate::ir::{BinOp, Op, Shader, Type, Value};
use crate::passes::{for_each_inst, use_counts};

/// What a 32-bit `IAdd` or `ISub` becomes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Fused {
    /// `a + (x << shift)`, or `a - (x << shift)` with `negate`.
    ShiftAdd {
        a: Value,
        x: Value,
        shift: u8,
        negate: bool,
    },
    /// `x * y + c`, or `x * y - c` with `negate`.
    MulAdd {
        x: Value,
        y: Value,
        c: Value,
        negate: bool,
    },
}

#[derive(Default)]
pub(super) struct Fusions {
    /// By the addition's result.
    pub adds: HashMap<Value, Fused>,
    /// Shifts and multiplies an addition absorbed.
    pub absorbed: HashSet<Value>,
}

/// The hardware's `iadd` shifts B by at most 4.
const MAX_ADD_SHIFT: u64 = 4;

pub(super) fn find(shader: &Shader) -> Fusions {
    let mut consts: HashMap<Value, u64> = HashMap::new();
    let mut binops: HashMap<Value, (BinOp, Value, Value)> = HashMap::new();
    let mut adds = Vec::new();
    for_each_inst(&shader.body, &mut |i| {
        let Some(d) = i.dst else { return };
        match &i.op {
            Op::Const(c) if c.0.len() == 1 => {
                consts.insert(d, c.0[0]);
            }
            Op::Binary(op, a, b) => {
                binops.insert(d, (*op, *a, *b));
                if matches!(op, BinOp::IAdd | BinOp::ISub) && shader.ty(d) == Type::I32 {
                    adds.push((d, *op, *a, *b));
                }
            }
            _ => {}
        }
    });
    let uses = use_counts(&shader.body);
    let single = |v: Value| uses.get(&v) == Some(&1);
    let mut f = Fusions::default();
    for (d, op, a, b) in adds {
        let shifted = |v: Value| match binops.get(&v) {
            Some(&(BinOp::Shl, x, k)) if single(v) => consts
                .get(&k)
                .filter(|&&k| (1..=MAX_ADD_SHIFT).contains(&k))
                .map(|&k| (x, k as u8)),
            _ => None,
        };
        let product = |v: Value| match binops.get(&v) {
            Some(&(BinOp::IMul, x, y)) if single(v) => Some((x, y)),
            _ => None,
        };
        let sub = op == BinOp::ISub;
        let found = if let Some((x, shift)) = shifted(b) {
            Some((
                b,
                Fused::ShiftAdd {
                    a,
                    x,
                    shift,
                    negate: sub,
                },
            ))
        } else if let Some((x, shift)) = shifted(a).filter(|_| !sub) {
            Some((
                a,
                Fused::ShiftAdd {
                    a: b,
                    x,
                    shift,
                    negate: false,
                },
            ))
        } else if let Some((x, y)) = product(a) {
            Some((
                a,
                Fused::MulAdd {
                    x,
                    y,
                    c: b,
                    negate: sub,
                },
            ))
        } else if let Some((x, y)) = product(b).filter(|_| !sub) {
            Some((
                b,
                Fused::MulAdd {
                    x,
                    y,
                    c: a,
                    negate: false,
                },
            ))
        } else {
            None
        };
        if let Some((inner, fused)) = found {
            f.adds.insert(d, fused);
            f.absorbed.insert(inner);
        }
    }
    f
}
