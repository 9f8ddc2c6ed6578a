//! Copy propagation: uses of `Copy(x)` become uses of `x`, and lanes taken from `Vector` or
//! `Insert` results become the inserted scalars.

use std::collections::HashMap;

use crate::ir::{Node, Op, Shader, Value};
use crate::CompileError;

use super::{defs, substitute};

pub fn copy_prop(sh: &mut Shader) -> Result<(), CompileError> {
    let d = defs(sh);
    let mut map: HashMap<Value, Value> = HashMap::new();
    for (v, op) in &d {
        let target = match op {
            Op::Copy(x) => Some(*x),
            Op::Extract(src, i) => match d.get(src) {
                Some(Op::Vector(parts)) => parts.get(*i as usize).copied(),
                Some(Op::Insert(_, j, x)) if j == i => Some(*x),
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = target {
            if t != *v {
                map.insert(*v, t);
            }
        }
    }
    substitute(&mut sh.body, &map);
    remove_copies(&mut sh.body);
    Ok(())
}

fn remove_copies(nodes: &mut [Node]) {
    for n in nodes {
        match n {
            Node::Block(insts) => insts.retain(|i| !matches!(i.op, Op::Copy(_))),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                remove_copies(then_body);
                remove_copies(else_body);
            }
            Node::Loop { body } => remove_copies(body),
            _ => {}
        }
    }
}
