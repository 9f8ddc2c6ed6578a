//! Keeps every access to threadgroup memory and to the per-invocation stack inside the area
//! the shader declared. SPIR-V leaves an out-of-bounds index into a Function, Private or
//! Workgroup array undefined, and GLSL promises that it never interrupts the program (piglit's
//! glsl-array-bounds tests index a local array with -2), but an access outside its area faults
//! on the GPU and loses the device. So an address not known to be inside (a constant, or a
//! value whose bounds `urange` finds, such as an offset from the local invocation id) is
//! clamped with one unsigned minimum: a negative offset wraps to a large one and lands on the
//! last element, other variables may be read or written, as both specifications allow.

use std::collections::HashMap;

use crate::ir::{BinOp, CmpOp, Constant, Inst, Node, Op, Scalar, Shader, Space, Type, Value};
use crate::CompileError;

use super::{const_of, defs, rewrite, urange_knowing};

pub fn bound_local(sh: &mut Shader) -> Result<(), CompileError> {
    let defs = defs(sh);
    // Whether each access, in the order `rewrite` visits them, is known to be inside its
    // area, also from the comparisons of the branches it is in (`if (x > 0) t[x - 1]`).
    let mut inside = Vec::new();
    decide(sh, &defs, &sh.body, &mut HashMap::new(), &mut inside);
    let mut decisions = inside.into_iter();
    rewrite(sh, &mut |sh, mut inst, out| {
        if let Some((_, bytes, area)) = access(sh, &inst) {
            let inside = decisions.next().unwrap_or(false);
            if let (false, Some(addr)) = (inside, address(&mut inst.op)) {
                let last = area.saturating_sub(bytes);
                let limit = out.def(sh, Type::I32, Op::Const(Constant(vec![last.into()])));
                *addr = out.def(sh, Type::I32, Op::Binary(BinOp::UMin, *addr, limit));
            }
        }
        out.inst(inst);
        Ok(())
    })
}

/// A load, store or atomic of threadgroup memory or the stack: its address, the bytes it
/// covers and the size of its area.
fn access(sh: &Shader, inst: &Inst) -> Option<(Value, u32, u32)> {
    let (space, addr, ty) = match &inst.op {
        Op::Load { space, addr, .. } => (*space, *addr, sh.ty(inst.dst?)),
        Op::Store {
            space, addr, value, ..
        }
        | Op::Atomic {
            space, addr, value, ..
        } => (*space, *addr, sh.ty(*value)),
        _ => return None,
    };
    let area = match space {
        Space::Shared => sh.shared_size,
        Space::Scratch => sh.scratch_size,
        _ => return None,
    };
    Some((addr, access_bytes(ty), area))
}

fn address(op: &mut Op) -> Option<&mut Value> {
    match op {
        Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Atomic { addr, .. } => Some(addr),
        _ => None,
    }
}

/// Walks `nodes` as `rewrite` does, deciding for each access whether it is inside its area,
/// with `known` the ranges the enclosing branches' comparisons give values.
fn decide(
    sh: &Shader,
    defs: &HashMap<Value, Op>,
    nodes: &[Node],
    known: &mut HashMap<Value, (u64, u64)>,
    out: &mut Vec<bool>,
) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for (addr, bytes, area) in insts.iter().filter_map(|i| access(sh, i)) {
                    let last = u64::from(area.saturating_sub(bytes));
                    let inside = const_of(defs, addr)
                        .and_then(|c| c.first())
                        .is_some_and(|&a| a <= last)
                        || (bytes <= area && urange_knowing(sh, defs, known, addr).1 <= last);
                    out.push(inside);
                }
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                for (body, taken) in [(then_body, true), (else_body, false)] {
                    let saved = known.clone();
                    if let Some((v, (lo, hi))) = branch_fact(defs, *cond, taken) {
                        let r = known.entry(v).or_insert((0, 0xffff_ffff));
                        *r = (r.0.max(lo), r.1.min(hi));
                    }
                    decide(sh, defs, body, known, out);
                    *known = saved;
                }
            }
            Node::Loop { body } => decide(sh, defs, body, known, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// What a branch taken (or not) on `cond` says about a 32-bit value: an unsigned comparison
/// with a constant bounds it.
fn branch_fact(defs: &HashMap<Value, Op>, cond: Value, taken: bool) -> Option<(Value, (u64, u64))> {
    const MAX: u64 = 0xffff_ffff;
    let Some(&Op::Cmp(op, a, b)) = defs.get(&cond) else {
        return None;
    };
    let konst = |v: Value| match const_of(defs, v) {
        Some(&[c]) => Some(c & MAX),
        _ => None,
    };
    // As `x op c`, swapping the comparison when the constant is on the left.
    let (x, op, c) = match (konst(a), konst(b)) {
        (None, Some(c)) => (a, op, c),
        (Some(c), None) => {
            let swapped = match op {
                CmpOp::ULt => CmpOp::UGt,
                CmpOp::ULe => CmpOp::UGe,
                CmpOp::UGt => CmpOp::ULt,
                CmpOp::UGe => CmpOp::ULe,
                other => other,
            };
            (b, swapped, c)
        }
        _ => return None,
    };
    // The comparison that holds on this side of the branch.
    let holds = match (op, taken) {
        (CmpOp::ULt, true) | (CmpOp::UGe, false) => CmpOp::ULt,
        (CmpOp::ULe, true) | (CmpOp::UGt, false) => CmpOp::ULe,
        (CmpOp::UGt, true) | (CmpOp::ULe, false) => CmpOp::UGt,
        (CmpOp::UGe, true) | (CmpOp::ULt, false) => CmpOp::UGe,
        (CmpOp::INe, true) | (CmpOp::IEq, false) if c == 0 => CmpOp::UGt,
        (CmpOp::IEq, true) => CmpOp::IEq,
        _ => return None,
    };
    let range = match holds {
        CmpOp::ULt => (0, c.checked_sub(1)?),
        CmpOp::ULe => (0, c),
        CmpOp::UGt => (c.checked_add(1).filter(|&l| l <= MAX)?, MAX),
        CmpOp::UGe => (c, MAX),
        _ => (c, c),
    };
    Some((x, range))
}

/// Bytes one access of `ty` covers.
fn access_bytes(ty: Type) -> u32 {
    let lane = match ty.scalar {
        Scalar::Bool | Scalar::I8 => 1,
        s => s.bits() / 8,
    };
    lane * u32::from(ty.lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Inst, Node, Value};

    fn shader_with(space: Space, addr_op: Op) -> (Shader, Value) {
        let mut sh = Shader {
            scratch_size: 64,
            shared_size: 128,
            ..Default::default()
        };
        let a = sh.new_value(Type::I32);
        let d = sh.new_value(Type::F32);
        sh.body = vec![Node::Block(vec![
            Inst {
                dst: Some(a),
                op: addr_op,
            },
            Inst {
                dst: Some(d),
                op: Op::Load {
                    space,
                    addr: a,
                    align: 4,
                },
            },
        ])];
        (sh, a)
    }

    fn load_addr(sh: &Shader) -> (Value, Vec<Inst>) {
        let Node::Block(insts) = &sh.body[0] else {
            panic!("one block expected");
        };
        let addr = insts
            .iter()
            .find_map(|i| match i.op {
                Op::Load { addr, .. } => Some(addr),
                _ => None,
            })
            .expect("the load stays");
        (addr, insts.clone())
    }

    #[test]
    fn dynamic_scratch_offset_is_clamped_to_the_last_word() {
        let (mut sh, a) = shader_with(
            Space::Scratch,
            Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
        );
        bound_local(&mut sh).unwrap();
        let (addr, insts) = load_addr(&sh);
        assert_ne!(addr, a, "the load must read through the clamp");
        let clamp = insts.iter().find(|i| i.dst == Some(addr)).unwrap();
        let Op::Binary(BinOp::UMin, x, limit) = clamp.op else {
            panic!("an unsigned minimum expected, got {:?}", clamp.op);
        };
        assert_eq!(x, a);
        let k = insts.iter().find(|i| i.dst == Some(limit)).unwrap();
        assert_eq!(k.op, Op::Const(Constant(vec![60])));
    }

    /// An offset bounded by the workgroup size: left alone when every invocation's is inside.
    #[test]
    fn offsets_bounded_by_the_workgroup_size_are_left_alone_when_inside() {
        for (threads, clamped) in [(125, false), (126, true)] {
            let (mut sh, a) = shader_with(
                Space::Shared,
                Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
            );
            sh.local_size = [threads, 1, 1];
            bound_local(&mut sh).unwrap();
            assert_eq!(load_addr(&sh).0 != a, clamped, "{threads} invocations");
        }
    }

    #[test]
    fn constant_offsets_inside_are_left_alone_and_outside_are_clamped() {
        let (mut sh, a) = shader_with(Space::Shared, Op::Const(Constant(vec![124])));
        bound_local(&mut sh).unwrap();
        assert_eq!(load_addr(&sh).0, a);
        let (mut sh, a) = shader_with(Space::Shared, Op::Const(Constant(vec![0xffff_fff8])));
        bound_local(&mut sh).unwrap();
        assert_ne!(load_addr(&sh).0, a);
    }

    /// `if (x > 0) t[x - 1]` and `if (x < 3) t[x + 1]` for a local id x of 0..3 stay inside a
    /// four-element array; the same accesses outside the branches, or under the opposite
    /// comparisons, could leave it.
    #[test]
    fn branch_comparisons_bound_the_offsets_under_them() {
        use crate::ir::SysVal;
        let cases = [
            (BinOp::ISub, CmpOp::UGt, 0, true, false),
            (BinOp::ISub, CmpOp::UGt, 0, false, true),
            (BinOp::ISub, CmpOp::ULt, 1, true, true),
            (BinOp::IAdd, CmpOp::ULt, 3, true, false),
            (BinOp::IAdd, CmpOp::UGe, 3, false, false),
            (BinOp::IAdd, CmpOp::UGe, 3, true, true),
        ];
        for (step, cmp, limit, then, clamped) in cases {
            let mut sh = Shader {
                shared_size: 16,
                local_size: [4, 1, 1],
                ..Default::default()
            };
            let x = sh.new_value(Type::I32);
            let (one, k, four) = (
                sh.new_value(Type::I32),
                sh.new_value(Type::I32),
                sh.new_value(Type::I32),
            );
            let (cond, index, addr, d) = (
                sh.new_value(Type::BOOL),
                sh.new_value(Type::I32),
                sh.new_value(Type::I32),
                sh.new_value(Type::I32),
            );
            let def = |dst, op| Inst { dst: Some(dst), op };
            let load = vec![Node::Block(vec![
                def(index, Op::Binary(step, x, one)),
                def(addr, Op::Binary(BinOp::IMul, index, four)),
                def(
                    d,
                    Op::Load {
                        space: Space::Shared,
                        addr,
                        align: 4,
                    },
                ),
            ])];
            let (then_body, else_body) = if then {
                (load, Vec::new())
            } else {
                (Vec::new(), load)
            };
            sh.body = vec![
                Node::Block(vec![
                    def(x, Op::SysVal(SysVal::LocalInvocationId(0))),
                    def(one, Op::Const(Constant(vec![1]))),
                    def(k, Op::Const(Constant(vec![limit]))),
                    def(four, Op::Const(Constant(vec![4]))),
                    def(cond, Op::Cmp(cmp, x, k)),
                ]),
                Node::If {
                    cond,
                    then_body,
                    else_body,
                },
            ];
            bound_local(&mut sh).unwrap();
            let mut read_at = None;
            crate::passes::for_each_inst(&sh.body, &mut |i| {
                if let Op::Load { addr, .. } = i.op {
                    read_at = Some(addr);
                }
            });
            assert_eq!(
                read_at != Some(addr),
                clamped,
                "{step:?} 1 under {cmp:?} {limit} ({})",
                if then { "then" } else { "else" }
            );
        }
    }

    #[test]
    fn global_accesses_are_not_touched() {
        let (mut sh, a) = shader_with(
            Space::Global,
            Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
        );
        bound_local(&mut sh).unwrap();
        assert_eq!(load_addr(&sh).0, a);
    }
}
