//! What an instruction of agx4's instruction model (`crate::isa::Instr`, which the compiler
//! selects today for G13) would need on G16: the documented G16 forms that do its work, or the
//! operation for which the public sources document none. This is the report behind "which
//! shaders could run on G16, and what is missing" before G16 has a codec of its own.

use super::forms::{Form, FORMS};
use crate::isa::{ConvertOp, ExecOp, FOp, FUnaryOp, IUnaryOp, Instr, ShiftOp};

/// One thing an instruction needs on G16.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Form(&'static Form),
    /// An operation no public source gives a G16 encoding for.
    Missing(&'static str),
}

fn form(name: &str) -> Need {
    match FORMS.iter().find(|f| f.name == name) {
        Some(f) => Need::Form(f),
        // Every name below is in FORMS (tests.rs checks each instruction kind).
        None => Need::Missing("a form agx4's table lacks"),
    }
}

/// The G16 forms `i` needs.
pub fn needs(i: &Instr) -> Vec<Need> {
    use Need::Missing;
    let one = |n: Need| vec![n];
    match i {
        Instr::MovImm(m) if m.imm < 0x80 => one(form("mov_imm")),
        Instr::MovImm(_) => one(form("mov_imm32")),
        Instr::GetSr(_) => one(form("get_sr")),
        Instr::IAdd(a) if a.shift != 0 || a.saturate => {
            one(Missing("shifted or saturating integer add"))
        }
        Instr::IAdd(_) => one(form("iadd / isub")),
        Instr::IMAdd(a) if a.shift != 0 || a.saturate => {
            one(Missing("shifted or saturating integer multiply-add"))
        }
        Instr::IMAdd(_) => one(form("imad")),
        Instr::Bitop(_) => one(form("integer logic, any boolean function")),
        Instr::Shift(s) => one(match s.op {
            ShiftOp::Asr => form("ishr_imm"),
            ShiftOp::Bfeil => form("bitfield extract"),
            ShiftOp::Bfi => Missing("bitfield insert and shift left (bfi)"),
            ShiftOp::Extr => Missing("funnel shift (extr)"),
            ShiftOp::Shlhi | ShiftOp::Shrhi => Missing("64-bit high-half shifts (shlhi, shrhi)"),
        }),
        Instr::IUnary(u) => one(match u.op {
            IUnaryOp::BitReverse | IUnaryOp::PopCount | IUnaryOp::FindFirstSet => {
                form("bit count, reverse, find MSB")
            }
        }),
        Instr::Convert(c) => one(match c.op {
            ConvertOp::U32ToF | ConvertOp::S32ToF => form("i2f / u2f"),
            ConvertOp::FToU32 | ConvertOp::FToS32 => form("f2i / f2u"),
            ConvertOp::U16ToF | ConvertOp::S16ToF | ConvertOp::U8ToF | ConvertOp::S8ToF => {
                Missing("8- and 16-bit integer to float")
            }
            ConvertOp::FToU16 | ConvertOp::FToS16 => Missing("float to 16-bit integer"),
        }),
        Instr::FArith(f) => one(match (f.op, f.saturate) {
            (_, true) => form("falu2 saturate / abs / negate"),
            (FOp::Add | FOp::Mul, false) => form("falu2 (fadd, fmul, fsub)"),
            (FOp::MAdd, false) => form("fma"),
        }),
        Instr::FUnary(u) => one(match u.op {
            FUnaryOp::SinPt1 | FUnaryOp::SinPt2 => Missing("the sine reduction pieces"),
            FUnaryOp::Dfdx | FUnaryOp::Dfdy => form("derivative"),
            _ => form("fspecial (rcp, rsqrt, exp2, log2, rounding)"),
        }),
        Instr::CmpSel(_) => one(form("isel10 (compare and select)")),
        Instr::Ballot(_) => one(form("SIMD ballot")),
        Instr::Shuffle(_) => one(form("SIMD shuffle")),
        Instr::SimdReduce(_) => one(form("SIMD reduce / scan")),
        // G13 compares and updates the execution mask in one instruction; G16 compares into
        // a predicate bank, then pushes.
        Instr::ExecCmp(e) => vec![
            form("predicate compare"),
            match e.op {
                ExecOp::If => form("execution mask push"),
                ExecOp::Else => form("execution mask else"),
                ExecOp::While => form("loop push / loop mask update / break"),
            },
        ],
        Instr::PopExec(_) => one(form("execution mask pop")),
        Instr::Jump(_) => one(form("jump if any / no lane is active")),
        Instr::Wait(_) => one(form("scoreboard slot dependencies")),
        Instr::DeviceMem(m) if m.store => one(form("device store")),
        Instr::DeviceMem(_) => one(form("device load")),
        Instr::ThreadgroupMem(_) => one(Missing("threadgroup memory load and store")),
        Instr::StackMem(_) => one(Missing("stack load and store")),
        Instr::Atomic(_) => one(form("device atomic")),
        Instr::ThreadgroupAtomic(_) => one(Missing("threadgroup atomics")),
        Instr::UniformStore(_) => one(Missing("uniform store")),
        Instr::ThreadgroupBarrier => one(form("threadgroup barrier")),
        Instr::MemoryBarrier => one(form("device memory fence")),
        Instr::Stop => one(form("stop")),
        Instr::Iter(_) => one(form("iter (varying interpolation)")),
        Instr::LdCf(_) => one(Missing("coefficient register load")),
        Instr::StVary(_) => one(form("vary_store")),
        Instr::TileMem(t) if t.store => one(form("fragment colour store")),
        Instr::TileMem(_) => one(form("tile read")),
        Instr::SampleMask(_) | Instr::ZsEmit(_) => {
            one(form("fragment outputs (depth, sample mask, imageblocks)"))
        }
        Instr::Texture(_) => one(form("texture sample / read")),
        Instr::ImageWrite(_) => one(form("texture write")),
        Instr::BlockImageStore(_) => one(Missing("block image store")),
    }
}
