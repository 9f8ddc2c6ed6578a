//! Fragment shader invocations of pipeline statistics queries: AGX has no counter the UAPI
//! lets the driver read, so the shader counts itself. On entry, every invocation that is not
//! a helper adds 1 to the u64 counter whose address the draw's root table holds at
//! `abi::FRAGMENT_INVOCATIONS_COUNTER_OFFSET` (0: no query counts this draw, and nothing is
//! added). The add is a 32-bit atomic on the low word; the invocation that wraps it (old
//! value all ones) carries 1 into the high word, so the u64 is exact once the draw is done.
//!
//! Counting on entry counts every invocation the hardware runs, whatever it then discards;
//! fragments killed by early depth/stencil tests run no shader and are not counted.
//! Helpers are left out: they are not invocations the application's primitives asked for.
//!
//! The ICD compiles the counting into the fragment binary only; the pipeline's
//! `writes_memory` (which picks late tests) describes the application's shader, so the
//! counter never changes where the depth test runs.

use crate::abi::FRAGMENT_INVOCATIONS_COUNTER_OFFSET;
use crate::ir::{
    AtomicOp, BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Shader, Space, SysVal, Type, Value,
};
use crate::CompileError;

struct Emit<'a> {
    sh: &'a mut Shader,
    insts: Vec<Inst>,
}

impl Emit<'_> {
    fn def(&mut self, ty: Type, op: Op) -> Value {
        let v = self.sh.new_value(ty);
        self.insts.push(Inst { dst: Some(v), op });
        v
    }

    fn konst(&mut self, ty: Type, bits: u64) -> Value {
        self.def(ty, Op::Const(Constant(vec![bits])))
    }

    fn root(&mut self, ty: Type, offset: u32, align: u32) -> Value {
        let addr = self.konst(Type::I32, u64::from(offset));
        self.def(
            ty,
            Op::Load {
                space: Space::Root,
                addr,
                align,
            },
        )
    }

    fn add_one(&mut self, addr: Value) -> Value {
        let one = self.konst(Type::I32, 1);
        self.def(
            Type::I32,
            Op::Atomic {
                space: Space::Global,
                op: AtomicOp::Add,
                addr,
                value: one,
                cmp: None,
            },
        )
    }

    fn take(&mut self) -> Node {
        Node::Block(std::mem::take(&mut self.insts))
    }
}

pub fn count_fragment_invocations(sh: &mut Shader) -> Result<(), CompileError> {
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    // if (counter != 0) { if (!helper) { old = atomic_add(lo, 1); if (old == ~0) hi += 1 } }
    let low = e.root(Type::I32, FRAGMENT_INVOCATIONS_COUNTER_OFFSET, 4);
    let high = e.root(Type::I32, FRAGMENT_INVOCATIONS_COUNTER_OFFSET + 4, 4);
    let either = e.def(Type::I32, Op::Binary(BinOp::Or, low, high));
    let zero = e.konst(Type::I32, 0);
    let counting = e.def(Type::BOOL, Op::Cmp(CmpOp::INe, either, zero));
    let head = e.take();

    let helper = e.def(Type::I32, Op::SysVal(SysVal::HelperInvocation));
    let zero = e.konst(Type::I32, 0);
    let live = e.def(Type::BOOL, Op::Cmp(CmpOp::IEq, helper, zero));
    let check = e.take();

    let addr = e.root(Type::I64, FRAGMENT_INVOCATIONS_COUNTER_OFFSET, 8);
    let old = e.add_one(addr);
    let all_ones = e.konst(Type::I32, u64::from(u32::MAX));
    let wrapped = e.def(Type::BOOL, Op::Cmp(CmpOp::IEq, old, all_ones));
    let count = e.take();

    let four = e.konst(Type::I32, 4);
    let four = e.def(Type::I64, Op::Conv(ConvOp::UToU, four));
    let high_addr = e.def(Type::I64, Op::Binary(BinOp::IAdd, addr, four));
    e.add_one(high_addr);
    let carry = e.take();

    let prologue = vec![
        head,
        Node::If {
            cond: counting,
            then_body: vec![
                check,
                Node::If {
                    cond: live,
                    then_body: vec![
                        count,
                        Node::If {
                            cond: wrapped,
                            then_body: vec![carry],
                            else_body: vec![],
                        },
                    ],
                    else_body: vec![],
                },
            ],
            else_body: vec![],
        },
    ];
    sh.body.splice(0..0, prologue);
    Ok(())
}
