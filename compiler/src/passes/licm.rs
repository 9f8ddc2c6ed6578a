//! Loop-invariant code motion: arithmetic in a loop whose operands all come from outside
//! it (or from other such arithmetic) gives the same result on every iteration, so it runs
//! once, in front of the loop. A divisor's reciprocal, `i % 3` of an index the loop does not
//! change, and the like.
//!
//! Only arithmetic and constants move: no loads, since a store in the loop may change what
//! they read; no derivatives or subgroup operations, whose results depend on which
//! invocations run them. What moves out of an `if` inside the loop now runs for every
//! invocation that reaches the loop, which pure arithmetic allows (AGX arithmetic has no
//! traps). Inner loops go first, so what they hoist can leave the outer loop too. The values
//! moved stay live over the whole loop, the price of running them once.

use std::collections::HashSet;

use crate::ir::{Inst, Node, Op, Shader, UnOp, Value};
use crate::CompileError;

use super::map_operands;

pub fn licm(sh: &mut Shader) -> Result<(), CompileError> {
    let body = std::mem::take(&mut sh.body);
    sh.body = hoist_from_loops(body);
    Ok(())
}

fn movable(op: &Op) -> bool {
    match op {
        Op::Unary(UnOp::FDdx | UnOp::FDdy, _) => false,
        Op::Const(_) | Op::Copy(_) => true,
        op => op.is_arithmetic(),
    }
}

fn hoist_from_loops(nodes: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    for n in nodes {
        match n {
            Node::Loop { body } => {
                let mut body = hoist_from_loops(body);
                let hoisted = invariants(&mut body);
                if !hoisted.is_empty() {
                    match out.last_mut() {
                        Some(Node::Block(insts)) => insts.extend(hoisted),
                        _ => out.push(Node::Block(hoisted)),
                    }
                }
                out.push(Node::Loop { body });
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => out.push(Node::If {
                cond,
                then_body: hoist_from_loops(then_body),
                else_body: hoist_from_loops(else_body),
            }),
            other => out.push(other),
        }
    }
    out
}

/// Takes the loop-invariant instructions out of `body`, in an order that defines each value
/// before its uses.
fn invariants(body: &mut [Node]) -> Vec<Inst> {
    let mut inside = HashSet::new();
    defined_in(body, &mut inside);
    let mut hoisted = Vec::new();
    loop {
        let before = hoisted.len();
        take_invariants(body, &mut inside, &mut hoisted);
        if hoisted.len() == before {
            return hoisted;
        }
    }
}

fn defined_in(nodes: &[Node], out: &mut HashSet<Value>) {
    for n in nodes {
        match n {
            Node::Block(insts) => out.extend(insts.iter().filter_map(|i| i.dst)),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                defined_in(then_body, out);
                defined_in(else_body, out);
            }
            Node::Loop { body } => defined_in(body, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// One walk in program order: an instruction whose operands are all defined outside the loop
/// (or by an instruction taken before it) is taken.
fn take_invariants(nodes: &mut [Node], inside: &mut HashSet<Value>, out: &mut Vec<Inst>) {
    for n in nodes {
        match n {
            Node::Block(insts) => insts.retain(|i| {
                let Some(d) = i.dst else {
                    return true;
                };
                if !movable(&i.op) {
                    return true;
                }
                let mut invariant = true;
                let mut op = i.op.clone();
                map_operands(&mut op, &mut |v| {
                    invariant &= !inside.contains(&v);
                    v
                });
                if invariant {
                    inside.remove(&d);
                    out.push(i.clone());
                }
                !invariant
            }),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                take_invariants(then_body, inside, out);
                take_invariants(else_body, inside, out);
            }
            Node::Loop { body } => take_invariants(body, inside, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Constant, Type};

    /// In `loop { if .. { t = a * b; u = t + v } }`, with `a` and `b` from outside and `v`
    /// read from a variable each iteration, `t` moves in front of the loop and `u` stays.
    #[test]
    fn invariant_arithmetic_moves_in_front_of_the_loop_and_the_rest_stays() {
        let mut sh = Shader::default();
        let var = sh.new_var(Type::I32);
        let [a, b, t, v, u, c] = [(); 6].map(|_| sh.new_value(Type::I32));
        let cond = sh.new_value(Type::BOOL);
        let def = |dst, op| Inst { dst: Some(dst), op };
        sh.body = vec![
            Node::Block(vec![
                def(a, Op::Const(Constant(vec![3]))),
                def(
                    b,
                    Op::Load {
                        space: crate::ir::Space::Root,
                        addr: a,
                        align: 4,
                    },
                ),
                def(c, Op::Const(Constant(vec![1]))),
                def(cond, Op::Cmp(crate::ir::CmpOp::ULt, b, c)),
            ]),
            Node::Loop {
                body: vec![Node::If {
                    cond,
                    then_body: vec![Node::Block(vec![
                        def(t, Op::Binary(BinOp::IMul, a, b)),
                        def(v, Op::LoadVar(var)),
                        def(u, Op::Binary(BinOp::IAdd, t, v)),
                        Inst {
                            dst: None,
                            op: Op::StoreVar(var, u),
                        },
                    ])],
                    else_body: vec![Node::Break],
                }],
            },
        ];
        licm(&mut sh).unwrap();
        let Node::Block(front) = &sh.body[0] else {
            panic!("a block in front of the loop expected");
        };
        assert_eq!(
            front.last().and_then(|i| i.dst),
            Some(t),
            "t moves in front"
        );
        let mut in_loop = HashSet::new();
        defined_in(&sh.body[1..], &mut in_loop);
        assert!(!in_loop.contains(&t));
        assert!(in_loop.contains(&u) && in_loop.contains(&v), "u and v stay");
    }
}
