//! Which registers an instruction reads and writes, so every pass walks operands the same way.

use hw::isa::*;

/// How an instruction touches a register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Use,
    Def,
}

/// Calls `f` on every general-purpose register operand of `i` with its access and its width
/// in halves (memory instructions move several registers at once). Uses come before defs, so
/// a caller that checks reads and then applies writes sees them in execution order. Uniform
/// registers are not visited.
pub(crate) fn visit(i: &mut Instr, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
    fn op(o: &mut Operand, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        if let Operand::Reg(r) = o {
            let h = r.size.halves();
            f(r, Access::Use, h);
        }
    }
    fn dst(d: &mut Dst, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        let h = d.reg.size.halves();
        f(&mut d.reg, Access::Def, h);
    }
    fn index(x: &mut Index, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        if let Index::Reg(r) = x {
            let h = r.size.halves();
            f(r, Access::Use, h);
        }
    }
    fn data(store: bool, r: &mut Reg, mask: u8, f: &mut dyn FnMut(&mut Reg, Access, u16)) {
        let h = r.size.halves() * mask.count_ones() as u16;
        f(r, if store { Access::Use } else { Access::Def }, h);
    }
    match i {
        Instr::MovImm(m) => dst(&mut m.dst, f),
        Instr::GetSr(g) => dst(&mut g.dst, f),
        Instr::IAdd(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            dst(&mut x.dst, f);
        }
        Instr::IMAdd(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            op(&mut x.c.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Bitop(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Shift(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            op(&mut x.c.op, f);
            dst(&mut x.dst, f);
        }
        Instr::IUnary(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::Convert(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::FArith(x) => {
            op(&mut x.a.op, f);
            op(&mut x.b.op, f);
            if x.op == FOp::MAdd {
                op(&mut x.c.op, f);
            }
            dst(&mut x.dst, f);
        }
        Instr::FUnary(x) => {
            op(&mut x.src.op, f);
            dst(&mut x.dst, f);
        }
        Instr::CmpSel(x) => {
            op(&mut x.a, f);
            op(&mut x.b, f);
            op(&mut x.x, f);
            op(&mut x.y, f);
            dst(&mut x.dst, f);
        }
        Instr::ExecCmp(x) => {
            op(&mut x.a, f);
            op(&mut x.b, f);
        }
        Instr::DeviceMem(m) => {
            op(&mut m.base, f);
            index(&mut m.index, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::ThreadgroupMem(m) => {
            op(&mut m.base, f);
            index(&mut m.index, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::StackMem(m) => {
            index(&mut m.offset, f);
            data(m.store, &mut m.reg, m.mask, f);
        }
        Instr::Atomic(a) => {
            op(&mut a.base, f);
            index(&mut a.index, f);
            let h = a.src.size.halves();
            f(&mut a.src, Access::Use, h);
            if let Some(d) = &mut a.dst {
                let h = d.size.halves();
                f(d, Access::Def, h);
            }
        }
        Instr::ThreadgroupAtomic(a) => {
            op(&mut a.base, f);
            index(&mut a.index, f);
            let h = a.src.size.halves();
            f(&mut a.src, Access::Use, h);
            if let Some(d) = &mut a.dst {
                let h = d.size.halves();
                f(d, Access::Def, h);
            }
        }
        Instr::PopExec(_)
        | Instr::Jump(_)
        | Instr::Wait(_)
        | Instr::ThreadgroupBarrier
        | Instr::MemoryBarrier
        | Instr::Stop => {}
    }
}

/// Whether the instruction reads or writes `r0l` implicitly (the exec-mask instructions).
pub(crate) fn touches_nesting(i: &Instr) -> bool {
    matches!(i, Instr::ExecCmp(_) | Instr::PopExec(_))
}

/// Sets the scoreboard slot of an asynchronous memory instruction.
pub(crate) fn set_wait_slot(i: &mut Instr, slot: u8) {
    match i {
        Instr::DeviceMem(m) => m.wait_slot = slot,
        Instr::StackMem(m) => m.wait_slot = slot,
        Instr::Atomic(a) => a.wait_slot = slot,
        _ => {}
    }
}
