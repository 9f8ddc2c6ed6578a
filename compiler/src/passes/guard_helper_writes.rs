//! Fragment shaders run per sample: device-memory writes go inside `if !helper`.
//!
//! G13 predicates a helper lane's plain stores and image writes itself, but its notion of a
//! helper is the pixel's: with sample shading, a lane whose own sample is not covered still
//! has other covered samples in its pixel, so the hardware lets its writes through (Mesa
//! guards them in the shader for that case too). `SysVal::HelperInvocation` is per sample
//! in a per-sample shader, so testing it here gives the Vulkan rule: helper invocations
//! have no side effects. An atomic's result flows out through a Var (0 for a helper, whose
//! result is undefined anyway).
//!
//! Runs after `run_all` (image atomics are global atomics by then) on per-sample fragment
//! shaders only.

use super::{rewrite, Out};
use crate::ir::{CmpOp, Constant, Inst, Node, Op, Shader, Space, SysVal, Type};
use crate::CompileError;

fn writes_memory(op: &Op) -> bool {
    matches!(
        op,
        Op::Store {
            space: Space::Global,
            ..
        } | Op::Atomic {
            space: Space::Global,
            ..
        } | Op::ImageStore(_)
            | Op::ImageAtomic(_)
    )
}

pub fn guard_helper_writes(sh: &mut Shader) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        if !writes_memory(&inst.op) {
            out.inst(inst);
            return Ok(());
        }
        guard(sh, out, inst);
        Ok(())
    })
}

fn guard(sh: &mut Shader, out: &mut Out, inst: Inst) {
    let helper = out.def(sh, Type::I32, Op::SysVal(SysVal::HelperInvocation));
    let zero = out.def(sh, Type::I32, Op::Const(Constant(vec![0])));
    let live = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::IEq, helper, zero));
    let Some(dst) = inst.dst else {
        out.node(Node::If {
            cond: live,
            then_body: vec![Node::Block(vec![inst])],
            else_body: vec![],
        });
        return;
    };
    let ty = sh.ty(dst);
    let var = sh.new_var(ty);
    let init = out.def(sh, ty, Op::Const(Constant(vec![0])));
    out.effect(Op::StoreVar(var, init));
    let inner = sh.new_value(ty);
    out.node(Node::If {
        cond: live,
        then_body: vec![Node::Block(vec![
            Inst {
                dst: Some(inner),
                op: inst.op,
            },
            Inst {
                dst: None,
                op: Op::StoreVar(var, inner),
            },
        ])],
        else_body: vec![],
    });
    out.inst(Inst {
        dst: Some(dst),
        op: Op::LoadVar(var),
    });
}
