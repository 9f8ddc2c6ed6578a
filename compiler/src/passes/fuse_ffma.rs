//! Floating-point contraction: `FAdd(FMul(a, b), c)` becomes `FFma(a, b, c)`, one rounding
//! instead of two, as SPIR-V allows unless a result carries `NoContraction`. The front end
//! clears `Shader::contract` for a module with any `NoContraction` decoration, so such a
//! module is left alone entirely.
//!
//! Only a product used by nothing else and defined in the same node list as the sum (so run
//! exactly as often) is fused: then the multiply dies (one instruction fewer) and no work
//! moves into a loop or branch.
//! The pass runs before `lower_float` and `lower_int64`, whose own float sequences are
//! written for the rounding they state.

use std::collections::HashMap;

use crate::ir::{BinOp, Node, Op, Scalar, Shader, Value};
use crate::CompileError;

use super::use_counts;

/// Fuses within one node list: a product defined in any block of the list may join a sum in
/// a later block of the same list, since both run equally often (nested lists get their own
/// products, so no multiply moves into a loop or branch).
fn fuse_list(sh: &Shader, nodes: &mut [Node], uses: &HashMap<Value, u32>) {
    // Single-use products defined so far in this list: their factors and (block, position).
    let mut products: HashMap<Value, (Value, Value, usize, usize)> = HashMap::new();
    let mut dead: Vec<(usize, usize)> = Vec::new();
    for (block, n) in nodes.iter_mut().enumerate() {
        let insts = match n {
            Node::Block(insts) => insts,
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                fuse_list(sh, then_body, uses);
                fuse_list(sh, else_body, uses);
                continue;
            }
            Node::Loop { body } => {
                fuse_list(sh, body, uses);
                continue;
            }
            _ => continue,
        };
        for (at, inst) in insts.iter_mut().enumerate() {
            let Some(dst) = inst.dst else {
                continue;
            };
            // 32-bit only: half precision has too few bits for the expansions of the
            // GLSL.std.450 functions (asinh, say) to meet their bounds with one rounding
            // fewer in some places and not others.
            let float = sh.ty(dst).scalar == Scalar::F32;
            match inst.op {
                Op::Binary(BinOp::FMul, a, b) if float && uses.get(&dst) == Some(&1) => {
                    products.insert(dst, (a, b, block, at));
                }
                Op::Binary(BinOp::FAdd, x, y) if float => {
                    // Either side may be the product; the left one when both are.
                    let fused = [(x, y), (y, x)].into_iter().find_map(|(p, c)| {
                        let &(a, b, pb, pa) = products.get(&p)?;
                        let same = sh.ty(p) == sh.ty(dst) && sh.ty(c) == sh.ty(dst);
                        same.then_some((p, a, b, c, pb, pa))
                    });
                    if let Some((p, a, b, c, pb, pa)) = fused {
                        inst.op = Op::FFma(a, b, c);
                        products.remove(&p);
                        dead.push((pb, pa));
                    }
                }
                _ => {}
            }
        }
    }
    dead.sort_unstable();
    for (block, at) in dead.into_iter().rev() {
        if let Some(Node::Block(insts)) = nodes.get_mut(block) {
            insts.remove(at);
        }
    }
}

pub fn fuse_ffma(sh: &mut Shader) -> Result<(), CompileError> {
    if !sh.contract {
        return Ok(());
    }
    let uses = use_counts(&sh.body);
    let mut body = std::mem::take(&mut sh.body);
    fuse_list(sh, &mut body, &uses);
    sh.body = body;
    Ok(())
}
