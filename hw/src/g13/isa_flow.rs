//! Control flow and synchronisation: the exec-mask compares, pop_exec, jumps, wait and the
//! fixed two-byte instructions.

use super::bits::{fit, get, put, Encoded};
use super::isa_alu::{fcond_code, fcond_from, icond_code, icond_from};
use super::operand_codec::*;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

const STOP: u128 = 0x0088;
const THREADGROUP_BARRIER: u128 = 0x0068;
/// Mesa's `memory_barrier` (fields a=1, b=2, c=9); its other barrier variants are unmodelled.
const MEMORY_BARRIER: u128 = 0x96f5;

pub(crate) fn stop() -> Encoded {
    Encoded { bits: STOP, len: 2 }
}

pub(crate) fn threadgroup_barrier() -> Encoded {
    Encoded {
        bits: THREADGROUP_BARRIER,
        len: 2,
    }
}

pub(crate) fn memory_barrier() -> Encoded {
    Encoded {
        bits: MEMORY_BARRIER,
        len: 2,
    }
}

pub(crate) fn dec_fixed(b: u128) -> Result<Instr, &'static str> {
    match b {
        STOP => Ok(Instr::Stop),
        THREADGROUP_BARRIER => Ok(Instr::ThreadgroupBarrier),
        MEMORY_BARRIER => Ok(Instr::MemoryBarrier),
        _ => Err("unmodelled fixed instruction"),
    }
}

pub(crate) fn exec_cmp(i: &ExecCmp) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "exec_cmp" };
    let (base, code) = match i.cond {
        Cond::Int(c) => (0x52u128, icond_code(c)),
        Cond::Float(c) => (0x42u128, fcond_code(c)),
    };
    let op = match i.op {
        ExecOp::If => 0,
        ExecOp::Else => 1,
        ExecOp::While => 2,
    };
    let mut b = base;
    put(&mut b, 9, 2, op);
    put(&mut b, 8, 1, u64::from(i.invert));
    put(&mut b, 11, 2, cx.imm("n", i64::from(i.n), 0, 3)?);
    put(&mut b, 13, 3, code);
    let a = enc_src(&cx, "a", i.a, Hint::None, SRC32)?;
    put_src(&mut b, 16, 42, SRC32, a);
    let bb = enc_src(&cx, "b", i.b, Hint::None, SRC32)?;
    put_src(&mut b, 28, 40, SRC32, bb);
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn pop_exec(i: &PopExec) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "pop_exec" };
    let mut b: u128 = 0x52 | 3 << 9;
    put(&mut b, 11, 2, cx.imm("n", i64::from(i.n), 0, 3)?);
    Ok(fit(b, 6, 6, 15, false))
}

pub(crate) fn dec_exec(b: u128) -> Result<Instr, &'static str> {
    let n = get(b, 11, 2) as u8;
    let op = match get(b, 9, 2) {
        0 => ExecOp::If,
        1 => ExecOp::Else,
        2 => ExecOp::While,
        _ => return Ok(Instr::PopExec(PopExec { n })),
    };
    let code = get(b, 13, 3);
    let cond = if get(b, 0, 7) == 0x52 {
        Cond::Int(icond_from(code).ok_or("unknown integer condition")?)
    } else {
        Cond::Float(fcond_from(code).ok_or("unknown float condition")?)
    };
    let (a, _) = dec_src(get_src(b, 16, 42, SRC32), SRC32)?;
    let (bb, _) = dec_src(get_src(b, 28, 40, SRC32), SRC32)?;
    Ok(Instr::ExecCmp(ExecCmp {
        op,
        cond,
        invert: get(b, 8, 1) != 0,
        a,
        b: bb,
        n,
    }))
}

pub(crate) fn jump(i: &Jump) -> Encoded {
    let base: u128 = match i.cond {
        JumpCond::Any => 0xc000,
        JumpCond::None => 0xc020,
    };
    Encoded {
        bits: base | u128::from(i.offset as u32) << 16,
        len: 6,
    }
}

pub(crate) fn dec_jump(b: u128) -> Instr {
    let cond = if get(b, 0, 16) == 0xc000 {
        JumpCond::Any
    } else {
        JumpCond::None
    };
    Instr::Jump(Jump {
        cond,
        offset: get(b, 16, 32) as i32,
    })
}

pub(crate) fn wait(i: &Wait) -> Result<Encoded, EncodeError> {
    if i.slot > 1 {
        let p = Problem::ImmediateOutOfRange {
            value: i64::from(i.slot),
            min: 0,
            max: 1,
        };
        return Err(EncodeError::new("wait", "slot", p));
    }
    Ok(Encoded {
        bits: 0x38 | u128::from(i.slot) << 8,
        len: 2,
    })
}

pub(crate) fn dec_wait(b: u128) -> Instr {
    Instr::Wait(Wait {
        slot: get(b, 8, 1) as u8,
    })
}
