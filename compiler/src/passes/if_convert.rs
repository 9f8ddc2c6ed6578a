//! If-conversion: an `if` whose arms are short runs of arithmetic becomes straight-line
//! code. Both arms' arithmetic runs for every thread, and each variable an arm stores gets
//! `Select(cond, then value, else value)`. On a SIMD machine a divergent `if` runs both arms
//! anyway; without the branch the exec-mask instructions go, and the shorter code lets the
//! later passes (copy propagation, CSE) see across what was the branch.
//!
//! Only operations that cannot fault or observe anything are moved: no memory access, no
//! integer division (a zero divisor the branch guarded against), no derivative (helper
//! threads). Innermost `if`s go first, so a nest of small `if`s flattens whole.

use std::collections::HashMap;

use crate::ir::{BinOp, Inst, Node, Op, Scalar, Shader, SysVal, Type, UnOp, Value, Var};
use crate::CompileError;

use super::Out;

/// Arithmetic instructions an arm may hold: beyond this, running both arms costs more than
/// the branch saves. Constants, copies and variable accesses are not counted, nor are
/// comparisons, which the back end mostly makes inside the select or branch using them.
const MAX_ARM_COST: usize = 10;

pub fn if_convert(sh: &mut Shader) -> Result<(), CompileError> {
    // How many loads of each variable the shader has: a variable whose every load read a
    // store of the same arm needs no select.
    let mut loads: HashMap<Var, usize> = HashMap::new();
    super::for_each_inst(&sh.body, &mut |i| {
        if let Op::LoadVar(v) = i.op {
            *loads.entry(v).or_insert(0) += 1;
        }
    });
    let body = std::mem::take(&mut sh.body);
    sh.body = convert(sh, body, &mut loads);
    Ok(())
}

fn convert(sh: &mut Shader, nodes: Vec<Node>, loads: &mut HashMap<Var, usize>) -> Vec<Node> {
    let mut out = Out { nodes: Vec::new() };
    for n in nodes {
        match n {
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                let then_body = convert(sh, then_body, loads);
                let else_body = convert(sh, else_body, loads);
                match (arm(sh, &then_body), arm(sh, &else_body)) {
                    (Some(t), Some(e)) => flatten(sh, cond, t, e, loads, &mut out),
                    _ => out.node(Node::If {
                        cond,
                        then_body,
                        else_body,
                    }),
                }
            }
            Node::Loop { body } => {
                let body = convert(sh, body, loads);
                out.node(Node::Loop { body });
            }
            Node::Block(insts) => {
                for i in insts {
                    out.inst(i);
                }
            }
            other => out.node(other),
        }
    }
    out.nodes
}

/// The instructions of an arm that can run unconditionally: empty, or one block of
/// speculable, cheap instructions.
fn arm(sh: &Shader, nodes: &[Node]) -> Option<Vec<Inst>> {
    let insts = match nodes {
        [] => return Some(Vec::new()),
        [Node::Block(insts)] => insts,
        _ => return None,
    };
    let mut cost = 0;
    for i in insts {
        if !speculable(sh, &i.op) {
            return None;
        }
        if !matches!(
            i.op,
            Op::Const(_) | Op::Copy(_) | Op::LoadVar(_) | Op::StoreVar(..) | Op::Cmp(..)
        ) {
            cost += 1;
        }
    }
    (cost <= MAX_ARM_COST).then(|| insts.clone())
}

fn speculable(sh: &Shader, op: &Op) -> bool {
    // The back ends select 32-bit and smaller values only.
    let selectable = |t: Type| t.is_scalar() && t.scalar != Scalar::I64;
    match op {
        Op::Const(_) | Op::Copy(_) | Op::LoadVar(_) => true,
        // A register or uniform read; the helper flag is left where it is, as it changes at
        // a discard.
        Op::SysVal(s) => *s != SysVal::HelperInvocation,
        Op::StoreVar(v, _) => selectable(sh.var_types[v.0 as usize]),
        Op::Unary(u, _) => !matches!(u, UnOp::FDdx | UnOp::FDdy),
        Op::Binary(b, _, _) => !matches!(
            b,
            BinOp::UDiv | BinOp::SDiv | BinOp::UMod | BinOp::SRem | BinOp::SMod
        ),
        op => op.is_arithmetic(),
    }
}

/// What an arm leaves: its instructions with the variable stores taken out (a load of a
/// variable the arm stored reads the stored value), and the last value stored to each
/// variable, in first-store order.
fn speculate(arm: Vec<Inst>, loads: &mut HashMap<Var, usize>, out: &mut Out) -> Vec<(Var, Value)> {
    let mut stored: Vec<(Var, Value)> = Vec::new();
    for i in arm {
        match i.op {
            Op::StoreVar(v, x) => match stored.iter_mut().find(|(w, _)| *w == v) {
                Some(s) => s.1 = x,
                None => stored.push((v, x)),
            },
            Op::LoadVar(v) => match stored.iter().find(|(w, _)| *w == v) {
                Some(&(_, x)) => {
                    loads.entry(v).and_modify(|n| *n -= 1);
                    out.inst(Inst {
                        dst: i.dst,
                        op: Op::Copy(x),
                    })
                }
                None => out.inst(i),
            },
            _ => out.inst(i),
        }
    }
    stored
}

fn flatten(
    sh: &mut Shader,
    cond: Value,
    then_arm: Vec<Inst>,
    else_arm: Vec<Inst>,
    loads: &mut HashMap<Var, usize>,
    out: &mut Out,
) {
    let then_stores = speculate(then_arm, loads, out);
    let else_stores = speculate(else_arm, loads, out);
    // Variables nothing reads any more (each load read its arm's own store) are dropped.
    let read = |v: &Var| loads.get(v).is_some_and(|&n| n > 0);
    let mut vars: Vec<Var> = Vec::new();
    for &(v, _) in then_stores.iter().chain(&else_stores) {
        if !vars.contains(&v) && read(&v) {
            vars.push(v);
        }
    }
    let mut before: HashMap<Var, Value> = HashMap::new();
    let mut value = |sh: &mut Shader, out: &mut Out, stores: &[(Var, Value)], v: Var| {
        match stores.iter().find(|s| s.0 == v) {
            Some(&(_, x)) => x,
            // The arm left the variable as it was before the `if`.
            None => *before.entry(v).or_insert_with(|| {
                *loads.entry(v).or_insert(0) += 1;
                out.def(sh, sh.var_types[v.0 as usize], Op::LoadVar(v))
            }),
        }
    };
    for v in vars {
        let t = value(sh, out, &then_stores, v);
        let e = value(sh, out, &else_stores, v);
        let x = if t == e {
            t
        } else {
            out.def(sh, sh.var_types[v.0 as usize], Op::Select(cond, t, e))
        };
        out.effect(Op::StoreVar(v, x));
    }
}
