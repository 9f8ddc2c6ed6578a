//! Constant folding with the interpreter's own evaluation, and Ifs on constant conditions
//! replaced by the arm they take.

use std::collections::HashMap;

use crate::ir::{interp::eval_pure, Constant, Node, Op, Scalar, Shader, Value};
use crate::CompileError;

fn foldable(op: &Op) -> bool {
    op.is_arithmetic()
        || matches!(
            op,
            Op::Vector(_) | Op::Extract(..) | Op::Insert(..) | Op::Copy(_)
        )
}

fn fold(sh: &mut Shader, nodes: Vec<Node>, consts: &mut HashMap<Value, Vec<u64>>) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::Block(mut insts) => {
                for i in &mut insts {
                    let Some(d) = i.dst else { continue };
                    if let Op::Const(c) = &i.op {
                        consts.insert(d, c.0.clone());
                        continue;
                    }
                    let ty = sh.ty(d);
                    // Addresses stay computed: the back end form has no 64-bit constants.
                    if !foldable(&i.op) || ty.scalar == Scalar::I64 {
                        continue;
                    }
                    if let Some(v) = eval_pure(sh, &i.op, ty, &|v| consts.get(&v).cloned()) {
                        consts.insert(d, v.clone());
                        i.op = Op::Const(Constant(v));
                    }
                }
                out.push(Node::Block(insts));
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                if let Some(c) = consts.get(&cond).map(|c| c[0]) {
                    let arm = if c != 0 { then_body } else { else_body };
                    out.extend(fold(sh, arm, consts));
                } else {
                    let then_body = fold(sh, then_body, consts);
                    let else_body = fold(sh, else_body, consts);
                    out.push(Node::If {
                        cond,
                        then_body,
                        else_body,
                    });
                }
            }
            Node::Loop { body } => {
                let body = fold(sh, body, consts);
                out.push(Node::Loop { body });
            }
            other => out.push(other),
        }
    }
    out
}

pub fn const_fold(sh: &mut Shader) -> Result<(), CompileError> {
    let body = std::mem::take(&mut sh.body);
    let mut consts = HashMap::new();
    sh.body = fold(sh, body, &mut consts);
    Ok(())
}
