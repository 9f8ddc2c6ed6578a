//! A decoded shader: its instructions in address order, branch targets resolved, every
//! register operand checked against the register files, so execution never indexes out of
//! range.

use crate::Fault;
use hw::isa::*;

/// A shader ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// GPU address of offset 0 (for fault reports; 0 for hand-built programs).
    pub base: u64,
    pub(super) instrs: Vec<Instr>,
    pub(super) offsets: Vec<u32>,
    /// For a `Jump` at index i, the index of its target, or `NO_TARGET` when the target is
    /// not the start of an instruction of this program.
    pub(super) targets: Vec<u32>,
    /// The host-code translation, made the first time the program runs on the JIT.
    pub(super) jit: super::jit::JitSlot,
}

pub(super) const NO_TARGET: u32 = u32::MAX;

fn bad(base: u64, off: u32, why: impl Into<String>) -> Fault {
    Fault::Shader {
        pc: base.wrapping_add(u64::from(off)),
        reason: why.into(),
    }
}

impl Program {
    /// Build from `(byte offset, instruction)` pairs in increasing offset order.
    pub fn new(base: u64, code: Vec<(u32, Instr)>) -> Result<Program, Fault> {
        let mut instrs = Vec::with_capacity(code.len());
        let mut offsets = Vec::with_capacity(code.len());
        for (off, i) in code {
            if offsets.last().is_some_and(|&o| o >= off) {
                return Err(bad(base, off, "instruction offsets are not increasing"));
            }
            check_registers(&i).map_err(|why| bad(base, off, why))?;
            offsets.push(off);
            instrs.push(i);
        }
        let targets = instrs
            .iter()
            .zip(&offsets)
            .map(|(i, &off)| match i {
                Instr::Jump(j) => {
                    let t = i64::from(off) + i64::from(j.offset);
                    u32::try_from(t)
                        .ok()
                        .and_then(|t| offsets.binary_search(&t).ok())
                        .map_or(NO_TARGET, |x| x as u32)
                }
                _ => NO_TARGET,
            })
            .collect();
        Ok(Program {
            base,
            instrs,
            offsets,
            targets,
            jit: Default::default(),
        })
    }

    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }

    /// The instructions, in address order.
    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    pub(super) fn pc(&self, index: usize) -> u64 {
        self.base.wrapping_add(u64::from(
            self.offsets.get(index).copied().unwrap_or(u32::MAX),
        ))
    }
}

fn reg_ok(r: Reg, files: u16) -> Result<(), String> {
    if !r.half.is_multiple_of(r.size.halves().min(2)) {
        return Err(format!(
            "register half {} is misaligned for its size",
            r.half
        ));
    }
    if u32::from(r.half) + u32::from(r.size.halves()) > u32::from(files) {
        return Err(format!(
            "register half {} outside the register file",
            r.half
        ));
    }
    Ok(())
}

fn op_ok(o: Operand) -> Result<(), String> {
    match o {
        Operand::Reg(r) => reg_ok(r, GPR_HALVES),
        Operand::Uniform(r) => reg_ok(r, UNIFORM_HALVES),
        Operand::Imm(_) => Ok(()),
    }
}

fn dst_ok(d: Reg) -> Result<(), String> {
    reg_ok(d, GPR_HALVES)
}

/// A memory instruction's register run: `mask`'s elements, each `step` halves.
fn run_ok(reg: Reg, mask: u8, format: MemFormat) -> Result<(), String> {
    if mask == 0 || mask > 0xf {
        return Err(format!(
            "memory mask {mask:#x} selects no element or more than four"
        ));
    }
    let step = elem_halves(reg, format).ok_or("memory format does not fit the register size")?;
    let end = u32::from(reg.half) + u32::from(step) * mask.count_ones();
    if end > u32::from(GPR_HALVES) {
        return Err("memory registers run past the register file".into());
    }
    Ok(())
}

/// Halves each element occupies in the register run.
pub(super) fn elem_halves(reg: Reg, format: MemFormat) -> Option<u16> {
    match (reg.size, format.bytes()) {
        (Size::S16, 1 | 2) => Some(1),
        (Size::S32, _) | (Size::S64, _) => Some(2),
        _ => None,
    }
}

/// A register that must be a 16-bit half (the data run of `uniform_store`).
fn half_ok(r: Reg) -> Result<(), String> {
    if r.size != Size::S16 {
        return Err(format!(
            "{}-bit register where 16 bits are required",
            r.size.bits()
        ));
    }
    Ok(())
}

fn index_ok(i: Index) -> Result<(), String> {
    match i {
        Index::Reg(r) => dst_ok(r),
        Index::Imm(_) => Ok(()),
    }
}

fn check_registers(i: &Instr) -> Result<(), String> {
    match i {
        Instr::MovImm(m) => dst_ok(m.dst.reg),
        Instr::GetSr(g) => dst_ok(g.dst.reg),
        Instr::IAdd(x) => [dst_ok(x.dst.reg), op_ok(x.a.op), op_ok(x.b.op)]
            .into_iter()
            .collect(),
        Instr::IMAdd(x) => [
            dst_ok(x.dst.reg),
            op_ok(x.a.op),
            op_ok(x.b.op),
            op_ok(x.c.op),
        ]
        .into_iter()
        .collect(),
        Instr::SimdReduce(x) => [dst_ok(x.dst.reg), op_ok(x.a)].into_iter().collect(),
        Instr::Ballot(x) => [dst_ok(x.dst.reg), op_ok(x.a), op_ok(x.b)]
            .into_iter()
            .collect(),
        Instr::Shuffle(x) => [dst_ok(x.dst.reg), op_ok(x.a), op_ok(x.index)]
            .into_iter()
            .collect(),
        Instr::Bitop(x) => [dst_ok(x.dst.reg), op_ok(x.a.op), op_ok(x.b.op)]
            .into_iter()
            .collect(),
        Instr::Shift(x) => [
            dst_ok(x.dst.reg),
            op_ok(x.a.op),
            op_ok(x.b.op),
            op_ok(x.c.op),
        ]
        .into_iter()
        .collect(),
        Instr::IUnary(x) => [dst_ok(x.dst.reg), op_ok(x.src.op)].into_iter().collect(),
        Instr::Convert(x) => [dst_ok(x.dst.reg), op_ok(x.src.op)].into_iter().collect(),
        Instr::FArith(x) => [
            dst_ok(x.dst.reg),
            op_ok(x.a.op),
            op_ok(x.b.op),
            op_ok(x.c.op),
        ]
        .into_iter()
        .collect(),
        Instr::FUnary(x) => [dst_ok(x.dst.reg), op_ok(x.src.op)].into_iter().collect(),
        Instr::CmpSel(x) => [
            dst_ok(x.dst.reg),
            op_ok(x.a),
            op_ok(x.b),
            op_ok(x.x),
            op_ok(x.y),
        ]
        .into_iter()
        .collect(),
        Instr::ExecCmp(x) => [op_ok(x.a), op_ok(x.b)].into_iter().collect(),
        Instr::DeviceMem(x) => [
            run_ok(x.reg, x.mask, x.format),
            op_ok(x.base),
            index_ok(x.index),
        ]
        .into_iter()
        .collect(),
        Instr::ThreadgroupMem(x) => [
            run_ok(x.reg, x.mask, x.format),
            op_ok(x.base),
            index_ok(x.index),
        ]
        .into_iter()
        .collect(),
        Instr::StackMem(x) => [run_ok(x.reg, x.mask, x.format), index_ok(x.offset)]
            .into_iter()
            .collect(),
        Instr::UniformStore(x) => [
            half_ok(x.reg),
            run_ok(x.reg, x.mask, MemFormat::I16),
            index_ok(x.index),
        ]
        .into_iter()
        .collect(),
        Instr::Atomic(x) => [
            x.dst.map_or(Ok(()), dst_ok),
            dst_ok(x.src),
            op_ok(x.base),
            index_ok(x.index),
            cmpxchg_ok(x.op, x.src),
        ]
        .into_iter()
        .collect(),
        Instr::ThreadgroupAtomic(x) => [
            x.dst.map_or(Ok(()), dst_ok),
            dst_ok(x.src),
            op_ok(x.base),
            index_ok(x.index),
            cmpxchg_ok(x.op, x.src),
        ]
        .into_iter()
        .collect(),
        Instr::Iter(x) => {
            let f = if x.dst.size == Size::S16 {
                MemFormat::I16
            } else {
                MemFormat::I32
            };
            run_ok(x.dst, (1u8 << x.channels) - 1, f)
        }
        Instr::LdCf(x) => dst_ok(Reg {
            half: x.dst.half + 6 * u16::from(x.channels) - 2,
            size: Size::S32,
        }),
        Instr::StVary(x) => dst_ok(x.src),
        Instr::TileMem(x) => run_ok(x.reg, x.mask, x.format),
        Instr::ZsEmit(x) => dst_ok(x.src),
        Instr::BlockImageStore(x) => dst_ok(x.offset),
        // Texture and image instructions fault when run; their registers are not checked here.
        Instr::Texture(_)
        | Instr::ImageWrite(_)
        | Instr::SampleMask(_)
        | Instr::PopExec(_)
        | Instr::Jump(_)
        | Instr::Wait(_)
        | Instr::ThreadgroupBarrier
        | Instr::MemoryBarrier
        | Instr::Stop => Ok(()),
    }
}

fn cmpxchg_ok(op: AtomicOp, src: Reg) -> Result<(), String> {
    if op == AtomicOp::CmpXchg && src.size != Size::S64 {
        return Err("compare-and-exchange needs a 64-bit source pair".into());
    }
    Ok(())
}
