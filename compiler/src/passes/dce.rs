//! Dead code elimination: instructions without effects whose results are unused, stores to
//! variables nobody reads, code after Break/Continue/Return, empty blocks and empty Ifs.

use std::collections::HashSet;

use crate::ir::{has_side_effects, validate::op_operands, Node, Op, Shader, Value, Var};
use crate::CompileError;

use super::for_each_inst;

fn used_values(nodes: &[Node], used: &mut HashSet<Value>) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    used.extend(op_operands(&i.op));
                }
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                used.insert(*cond);
                used_values(then_body, used);
                used_values(else_body, used);
            }
            Node::Loop { body } => used_values(body, used),
            _ => {}
        }
    }
}

fn sweep(nodes: &mut Vec<Node>, used: &HashSet<Value>, read: &HashSet<Var>) -> bool {
    let mut changed = false;
    if let Some(p) = nodes
        .iter()
        .position(|n| matches!(n, Node::Break | Node::Continue | Node::Return))
    {
        if p + 1 < nodes.len() {
            nodes.truncate(p + 1);
            changed = true;
        }
    }
    for n in nodes.iter_mut() {
        match n {
            Node::Block(insts) => {
                let before = insts.len();
                insts.retain(|i| match (&i.op, i.dst) {
                    (Op::StoreVar(v, _), _) => read.contains(v),
                    (op, Some(d)) => has_side_effects(op) || used.contains(&d),
                    _ => true,
                });
                changed |= insts.len() != before;
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                changed |= sweep(then_body, used, read);
                changed |= sweep(else_body, used, read);
            }
            Node::Loop { body } => changed |= sweep(body, used, read),
            _ => {}
        }
    }
    let before = nodes.len();
    nodes.retain(|n| match n {
        Node::Block(b) => !b.is_empty(),
        Node::If {
            then_body,
            else_body,
            ..
        } => !(then_body.is_empty() && else_body.is_empty()),
        _ => true,
    });
    changed || nodes.len() != before
}

pub fn dce(sh: &mut Shader) -> Result<(), CompileError> {
    for _ in 0..64 {
        let mut used = HashSet::new();
        used_values(&sh.body, &mut used);
        let mut read = HashSet::new();
        for_each_inst(&sh.body, &mut |i| {
            if let Op::LoadVar(v) = i.op {
                read.insert(v);
            }
        });
        if !sweep(&mut sh.body, &used, &read) {
            break;
        }
    }
    Ok(())
}
