//! Workgroup variables with an OpConstantNull initializer
//! (VK_KHR_zero_initialize_workgroup_memory, core in Vulkan 1.3).
//!
//! Workgroup memory is shared, so the initializer cannot be a store each invocation makes
//! for itself: a slow invocation would zero what a fast one already wrote. The invocations
//! share the zeroing instead (invocation i clears words i, i + n, i + 2n, ... of each
//! zero-initialized range, n being the workgroup size) and meet at a workgroup barrier
//! before the entry point's own code runs.

use rspirv::dr::{Module, Operand};
use spirv::{Op, StorageClass};

use super::constants::CVal;
use super::module::{invalid, result_id, SpvType};
use super::translate::Tr;
use super::values::{Base, Entry, Ptr};
use crate::ir::{self, BinOp, CmpOp, Constant, Node, Space, SysVal, Type};
use crate::CompileError;

/// Whether a constant is all zeros (OpConstantNull, or a composite of zeros).
fn is_zero(c: &CVal) -> bool {
    match c {
        CVal::Scalar(v) => *v == 0,
        CVal::Comp(cs) => cs.iter().all(is_zero),
    }
}

impl<'m> Tr<'m> {
    /// Byte ranges [start, end) of the Workgroup variables of this entry point that have an
    /// initializer. Vulkan allows only OpConstantNull there.
    pub(super) fn zeroed_workgroup_ranges(
        &self,
        m: &Module,
    ) -> Result<Vec<(u32, u32)>, CompileError> {
        let mut out = Vec::new();
        for inst in &m.types_global_values {
            if inst.class.opcode != Op::Variable || inst.operands.len() < 2 {
                continue;
            }
            let Some(SpvType::Pointer {
                sc: StorageClass::Workgroup,
                pointee,
            }) = inst.result_type.and_then(|t| self.l.types.get(&t))
            else {
                continue;
            };
            let Some(Operand::IdRef(init)) = inst.operands.get(1) else {
                return Err(invalid("bad initializer"));
            };
            match self.consts.get(init) {
                Some((_, c)) if is_zero(c) => {}
                _ => return Err(invalid("Workgroup variable initializer other than null")),
            }
            let rid = result_id(inst)?;
            let Some(Entry::Ptr(Ptr::Mem {
                base: Base::Shared,
                off,
                ..
            })) = self.globals.get(&rid)
            else {
                continue;
            };
            let size = self.l.size(*pointee, None, 0)?;
            out.push((*off, off + size.next_multiple_of(4)));
        }
        out.sort_unstable();
        // Adjacent variables are cleared by one loop.
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for (s, e) in out {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Ok(merged)
    }

    /// Emits the shared zeroing of `ranges` and the barrier after it.
    pub(super) fn zero_workgroup_memory(
        &mut self,
        ranges: &[(u32, u32)],
    ) -> Result<(), CompileError> {
        if ranges.is_empty() {
            return Ok(());
        }
        let n: u32 = self.sh.local_size.iter().product();
        let index = self.emit(Type::I32, ir::Op::SysVal(SysVal::LocalInvocationIndex))?;
        let four = self.u32c(4)?;
        let first = self.bin(BinOp::IMul, index, four)?;
        let step = self.u32c(4 * n)?;
        let zero = self.u32c(0)?;
        for &(start, end) in ranges {
            let var = self.sh.new_var(Type::I32);
            let s = self.u32c(start)?;
            let a0 = self.bin(BinOp::IAdd, first, s)?;
            self.effect(ir::Op::StoreVar(var, a0))?;
            let outer = std::mem::take(&mut self.cur);
            let a = self.emit(Type::I32, ir::Op::LoadVar(var))?;
            let e = self.emit(Type::I32, ir::Op::Const(Constant(vec![u64::from(end)])))?;
            let done = self.cmp(CmpOp::UGe, a, e)?;
            self.cur.push(Node::If {
                cond: done,
                then_body: vec![Node::Break],
                else_body: Vec::new(),
            });
            self.effect(ir::Op::Store {
                space: Space::Shared,
                addr: a,
                value: zero,
                align: 4,
            })?;
            let next = self.bin(BinOp::IAdd, a, step)?;
            self.effect(ir::Op::StoreVar(var, next))?;
            let body = std::mem::replace(&mut self.cur, outer);
            self.cur.push(Node::Loop { body });
        }
        self.effect(ir::Op::WorkgroupBarrier)
    }
}
