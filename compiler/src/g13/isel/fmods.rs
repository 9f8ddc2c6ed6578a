//! Float source modifiers: a negation or absolute value whose every use is a source of a
//! 32-bit float add, subtract, multiply or multiply-add is no instruction of its own. Each
//! use reads the value it modifies through the source's `abs` and `neg` flags, which the
//! hardware applies in that order, as `-|x|` and `|x|` and `-x` are built here.

use std::collections::{HashMap, HashSet};

use crate::ir::{BinOp, Op, Shader, Type, UnOp, Value};
use crate::passes::{for_each_inst, use_counts};

/// What an absorbed negation or absolute value reads: `neg(abs(base))` with the flags given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Modifier {
    pub base: Value,
    pub abs: bool,
    pub neg: bool,
}

pub(super) fn find(shader: &Shader) -> HashMap<Value, Modifier> {
    let mut mods: Vec<(Value, UnOp, Value)> = Vec::new();
    let mut taking: HashMap<Value, u32> = HashMap::new();
    for_each_inst(&shader.body, &mut |i| {
        let Some(d) = i.dst else { return };
        if shader.ty(d) != Type::F32 {
            return;
        }
        match i.op {
            Op::Unary(op @ (UnOp::FNeg | UnOp::FAbs), a) => mods.push((d, op, a)),
            Op::Binary(BinOp::FAdd | BinOp::FSub | BinOp::FMul, a, b) => {
                for v in [a, b] {
                    *taking.entry(v).or_default() += 1;
                }
            }
            Op::FFma(a, b, c) => {
                for v in [a, b, c] {
                    *taking.entry(v).or_default() += 1;
                }
            }
            _ => {}
        }
    });
    let uses = use_counts(&shader.body);
    // From the last modifier back, so a modifier's own users are settled first: one is
    // absorbed when every use takes a modifier, or is a modifier absorbed itself.
    let mut absorbed: HashSet<Value> = HashSet::new();
    for &(d, _, a) in mods.iter().rev() {
        if uses.get(&d).is_some_and(|&n| taking.get(&d) == Some(&n)) {
            absorbed.insert(d);
            *taking.entry(a).or_default() += 1;
        }
    }
    let mut out: HashMap<Value, Modifier> = HashMap::new();
    // Definitions come before uses, so a modifier of a modifier finds its operand resolved.
    for (d, op, a) in mods {
        if !absorbed.contains(&d) {
            continue;
        }
        let inner = out.get(&a).copied().unwrap_or(Modifier {
            base: a,
            abs: false,
            neg: false,
        });
        out.insert(
            d,
            match op {
                UnOp::FAbs => Modifier {
                    abs: true,
                    neg: false,
                    ..inner
                },
                _ => Modifier {
                    neg: !inner.neg,
                    ..inner
                },
            },
        );
    }
    out
}
