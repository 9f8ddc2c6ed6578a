//! Memory encodings: device, threadgroup and stack loads/stores, the two atomics, and
//! `uniform_store` (a variant of the device store).
//!
//! Device, uniform and stack accesses carry their length bit at bit 47 and always need the
//! long form (the element mask lives in the last two bytes). agx4 emits the same constant
//! "unknown" bits Mesa emits and accepts nothing else when decoding.

use super::bits::{fit, get, put, Encoded};
use super::operand_codec::Ctx;
use crate::isa::*;
use crate::isa::{EncodeError, Problem};

const FORMATS: [(MemFormat, u64); 10] = [
    (MemFormat::I8, 0),
    (MemFormat::I16, 1),
    (MemFormat::I32, 2),
    (MemFormat::F16, 3),
    (MemFormat::U8Norm, 4),
    (MemFormat::S8Norm, 5),
    (MemFormat::U16Norm, 6),
    (MemFormat::S16Norm, 7),
    (MemFormat::RGB10A2, 8),
    (MemFormat::SRGBA8, 10),
];

pub(crate) fn format_code(f: MemFormat) -> u64 {
    FORMATS.iter().find(|(g, _)| *g == f).map_or(0, |(_, c)| *c)
}

pub(crate) fn format_from(code: u32) -> Result<MemFormat, &'static str> {
    FORMATS
        .iter()
        .find(|(_, c)| *c == u64::from(code))
        .map(|(f, _)| *f)
        .ok_or("unmodelled memory format")
}

fn mask_ok(cx: &Ctx, mask: u8) -> Result<u64, EncodeError> {
    cx.imm("mask", i64::from(mask), 1, 15)
}

/// The register vector: popcount(mask) consecutive registers; (half index, 32-bit flag).
fn data_reg(cx: &Ctx, r: Reg, mask: u8, format: MemFormat) -> Result<(u64, u64), EncodeError> {
    let wide = match r.size {
        Size::S16 if format == MemFormat::I32 => {
            return Err(cx.err("reg", Problem::WidthNotAllowed(16)));
        }
        Size::S16 => 0,
        Size::S32 => 1,
        Size::S64 => return Err(cx.err("reg", Problem::WidthNotAllowed(64))),
    };
    let count = mask.count_ones() as u16;
    let last = Reg {
        half: r.half + r.size.halves() * count.saturating_sub(1),
        size: r.size,
    };
    cx.reg("reg", r, GPR_HALVES)?;
    cx.reg("reg", last, GPR_HALVES)?;
    Ok((u64::from(r.half), wide))
}

fn reg_from(half: u32, wide: u32) -> Reg {
    Reg {
        half: half as u16,
        size: if wide != 0 { Size::S32 } else { Size::S16 },
    }
}

/// 64-bit base address of device accesses: (half index, uniform flag); at most 8 bits.
fn device_base(cx: &Ctx, op: Operand) -> Result<(u64, u64), EncodeError> {
    let (r, uniform) = match op {
        Operand::Reg(r) => (r, 0),
        Operand::Uniform(r) => (r, 1),
        Operand::Imm(_) => return Err(cx.err("base", Problem::KindNotAllowed("immediate base"))),
    };
    if r.size != Size::S64 {
        return Err(cx.err("base", Problem::WidthNotAllowed(r.size.bits())));
    }
    cx.reg("base", r, MEMORY_BASE_UNIFORM_HALVES)?;
    Ok((u64::from(r.half), uniform))
}

fn put_device_base(b: &mut u128, (half, uniform): (u64, u64)) {
    put(b, 16, 4, half & 0xf);
    put(b, 36, 4, half >> 4);
    put(b, 27, 1, uniform);
}

fn get_device_base(b: u128) -> Operand {
    let r = Reg {
        half: (get(b, 16, 4) | get(b, 36, 4) << 4) as u16,
        size: Size::S64,
    };
    if get(b, 27, 1) != 0 {
        Operand::Uniform(r)
    } else {
        Operand::Reg(r)
    }
}

/// Index of device, stack and atomic accesses: a 32-bit register or a 16-bit immediate.
fn put_device_index(cx: &Ctx, b: &mut u128, idx: Index) -> Result<(), EncodeError> {
    let (v, imm) = match idx {
        Index::Reg(r) => {
            if r.size != Size::S32 {
                return Err(cx.err("index", Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg("index", r, GPR_HALVES)?;
            (u64::from(r.half), 0)
        }
        Index::Imm(v) => (u64::from(v as u16), 1),
    };
    put(b, 20, 4, v & 0xf);
    put(b, 32, 4, (v >> 4) & 0xf);
    put(b, 56, 8, v >> 8);
    put(b, 24, 1, imm);
    Ok(())
}

fn get_device_index(b: u128) -> Index {
    let v = get(b, 20, 4) | get(b, 32, 4) << 4 | get(b, 56, 8) << 8;
    if get(b, 24, 1) != 0 {
        Index::Imm(v as u16 as i16)
    } else {
        Index::Reg(Reg {
            half: v as u16,
            size: Size::S32,
        })
    }
}

fn slot(cx: &Ctx, s: u8) -> Result<u64, EncodeError> {
    cx.imm("wait_slot", i64::from(s), 0, 1)
}

pub(crate) fn device(i: &DeviceMem) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.store {
            "device_store"
        } else {
            "device_load"
        },
    };
    let mut b: u128 = 0x05 | u128::from(i.store) << 6;
    let f = format_code(i.format);
    put(&mut b, 7, 3, f & 7);
    put(&mut b, 48, 1, f >> 3);
    let (r, wide) = data_reg(&cx, i.reg, i.mask, i.format)?;
    put(&mut b, 10, 6, r & 0x3f);
    put(&mut b, 40, 2, r >> 6);
    put(&mut b, 49, 1, wide);
    put_device_base(&mut b, device_base(&cx, i.base)?);
    put_device_index(&cx, &mut b, i.index)?;
    put(&mut b, 25, 1, u64::from(i.index_unsigned));
    put(&mut b, 26, 1, 1);
    put(&mut b, 30, 1, slot(&cx, i.wait_slot)?);
    put(&mut b, 42, 2, cx.imm("shift", i64::from(i.shift), 0, 3)?);
    put(&mut b, 46, 1, 1);
    put(&mut b, 52, 4, mask_ok(&cx, i.mask)?);
    Ok(fit(b, 6, 8, 47, true))
}

pub(crate) fn dec_device(b: u128) -> Result<Instr, &'static str> {
    // Opcode 0x45 is shared with `uniform_store`, which sets bits 28 and 29: device accesses
    // leave both clear.
    if get(b, 28, 2) == 0b11 {
        return Ok(dec_uniform_store(b));
    }
    Ok(Instr::DeviceMem(DeviceMem {
        store: get(b, 6, 1) != 0,
        reg: reg_from(get(b, 10, 6) | get(b, 40, 2) << 6, get(b, 49, 1)),
        base: get_device_base(b),
        index: get_device_index(b),
        index_unsigned: get(b, 25, 1) != 0,
        shift: get(b, 42, 2) as u8,
        format: format_from(get(b, 7, 3) | get(b, 48, 1) << 3)?,
        mask: get(b, 52, 4) as u8,
        wait_slot: get(b, 30, 1) as u8,
    }))
}

/// `uniform_store`: the device store opcode with format I16, no base (bits 16..20 and
/// 36..40 clear), bit 25 clear and bits 26..30 set (where a device access has its index
/// signedness, a set bit, its base's uniform flag and two clear bits), no shift, no
/// scoreboard, and bits 44..47 clear (a device access sets bit 46). Data register and index are placed as for device memory; the index
/// counts uniform halves.
pub(crate) fn uniform_store(i: &UniformStore) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "uniform_store",
    };
    if i.reg.size != Size::S16 {
        return Err(cx.err("reg", Problem::WidthNotAllowed(i.reg.size.bits())));
    }
    let mut b: u128 = 0x45;
    let f = format_code(MemFormat::I16);
    put(&mut b, 7, 3, f & 7);
    put(&mut b, 48, 1, f >> 3);
    let (r, wide) = data_reg(&cx, i.reg, i.mask, MemFormat::I16)?;
    put(&mut b, 10, 6, r & 0x3f);
    put(&mut b, 40, 2, r >> 6);
    put(&mut b, 49, 1, wide);
    if let Index::Imm(v) = i.index {
        cx.imm("index", i64::from(v), 0, i64::from(UNIFORM_HALVES) - 1)?;
    }
    put_device_index(&cx, &mut b, i.index)?;
    put(&mut b, 26, 1, 1);
    put(&mut b, 27, 1, 1);
    put(&mut b, 28, 2, 0b11);
    put(&mut b, 52, 4, mask_ok(&cx, i.mask)?);
    Ok(fit(b, 6, 8, 47, true))
}

/// The fields of a `uniform_store`; whatever else is set fails the decoder's re-encoding.
fn dec_uniform_store(b: u128) -> Instr {
    Instr::UniformStore(UniformStore {
        reg: Reg::r16((get(b, 10, 6) | get(b, 40, 2) << 6) as u16),
        index: get_device_index(b),
        mask: get(b, 52, 4) as u8,
    })
}

pub(crate) fn stack(i: &StackMem) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.store { "stack_store" } else { "stack_load" },
    };
    let mut b: u128 = 0x35 | u128::from(i.store) << 7;
    let f = format_code(i.format);
    put(&mut b, 8, 2, f & 3);
    put(&mut b, 50, 2, f >> 2);
    let (r, wide) = data_reg(&cx, i.reg, i.mask, i.format)?;
    put(&mut b, 10, 6, r & 0x3f);
    put(&mut b, 40, 2, r >> 6);
    put(&mut b, 49, 1, wide);
    put_device_index(&cx, &mut b, i.offset)?;
    put(&mut b, 26, 1, 1);
    put(&mut b, 30, 1, slot(&cx, i.wait_slot)?);
    put(&mut b, 46, 1, 1);
    put(&mut b, 52, 4, mask_ok(&cx, i.mask)?);
    Ok(fit(b, 6, 8, 47, true))
}

pub(crate) fn dec_stack(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::StackMem(StackMem {
        store: get(b, 7, 1) != 0,
        reg: reg_from(get(b, 10, 6) | get(b, 40, 2) << 6, get(b, 49, 1)),
        offset: get_device_index(b),
        format: format_from(get(b, 8, 2) | get(b, 50, 2) << 2)?,
        mask: get(b, 52, 4) as u8,
        wait_slot: get(b, 30, 1) as u8,
    }))
}

/// Threadgroup base: a 16-bit register, a 16-bit uniform, or the immediate 0.
fn put_tg_base(cx: &Ctx, b: &mut u128, op: Operand) -> Result<(), EncodeError> {
    let (v, t) = match op {
        Operand::Imm(0) => (0, 2),
        Operand::Imm(v) => {
            let p = Problem::ImmediateOutOfRange {
                value: i64::from(v),
                min: 0,
                max: 0,
            };
            return Err(cx.err("base", p));
        }
        Operand::Reg(r) | Operand::Uniform(r) if r.size != Size::S16 => {
            return Err(cx.err("base", Problem::WidthNotAllowed(r.size.bits())));
        }
        Operand::Reg(r) => {
            cx.reg("base", r, GPR_HALVES)?;
            (u64::from(r.half), 0)
        }
        Operand::Uniform(r) => {
            cx.reg("base", r, UNIFORM_HALVES)?;
            (u64::from(r.half) & 0xff, 1 | (u64::from(r.half) >> 8) << 1)
        }
    };
    put(b, 16, 6, v & 0x3f);
    put(b, 58, 2, v >> 6);
    put(b, 22, 2, t);
    Ok(())
}

fn get_tg_base(b: u128) -> Operand {
    let v = get(b, 16, 6) | get(b, 58, 2) << 6;
    match get(b, 22, 2) {
        0 => Operand::Reg(Reg::r16(v as u16)),
        2 => Operand::Imm(v),
        t => Operand::Uniform(Reg::r16((v | (t >> 1) << 8) as u16)),
    }
}

/// Threadgroup index: a 16-bit register or a 16-bit immediate.
fn put_tg_index(cx: &Ctx, b: &mut u128, idx: Index) -> Result<(), EncodeError> {
    let (v, imm) = match idx {
        Index::Reg(r) => {
            if r.size != Size::S16 {
                return Err(cx.err("index", Problem::WidthNotAllowed(r.size.bits())));
            }
            cx.reg("index", r, GPR_HALVES)?;
            (u64::from(r.half), 0)
        }
        Index::Imm(v) => (u64::from(v as u16), 1),
    };
    put(b, 28, 6, v & 0x3f);
    put(b, 48, 10, v >> 6);
    put(b, 34, 1, imm);
    Ok(())
}

fn get_tg_index(b: u128) -> Index {
    let v = get(b, 28, 6) | get(b, 48, 10) << 6;
    if get(b, 34, 1) != 0 {
        Index::Imm(v as u16 as i16)
    } else {
        Index::Reg(Reg::r16(v as u16))
    }
}

fn no_slot(cx: &Ctx, s: u8) -> Result<(), EncodeError> {
    // Threadgroup memory has no scoreboard field: results are ready in order.
    cx.imm("wait_slot", i64::from(s), 0, 0).map(|_| ())
}

pub(crate) fn threadgroup(i: &ThreadgroupMem, force_long: bool) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: if i.store {
            "threadgroup_store"
        } else {
            "threadgroup_load"
        },
    };
    no_slot(&cx, i.wait_slot)?;
    let mut b: u128 = if i.store { 0x29 } else { 0x69 };
    let (r, wide) = data_reg(&cx, i.reg, i.mask, i.format)?;
    put(&mut b, 8, 1, wide);
    put(&mut b, 9, 6, r & 0x3f);
    put(&mut b, 60, 2, r >> 6);
    put_tg_base(&cx, &mut b, i.base)?;
    put(&mut b, 24, 4, format_code(i.format));
    put_tg_index(&cx, &mut b, i.index)?;
    put(&mut b, 36, 4, mask_ok(&cx, i.mask)?);
    Ok(fit(b, 6, 8, 15, force_long))
}

pub(crate) fn dec_threadgroup(b: u128) -> Result<Instr, &'static str> {
    Ok(Instr::ThreadgroupMem(ThreadgroupMem {
        store: get(b, 6, 1) == 0,
        reg: reg_from(get(b, 9, 6) | get(b, 60, 2) << 6, get(b, 8, 1)),
        base: get_tg_base(b),
        index: get_tg_index(b),
        format: format_from(get(b, 24, 4))?,
        mask: get(b, 36, 4) as u8,
        wait_slot: 0,
    }))
}

const ATOMIC_OPS: [AtomicOp; 11] = [
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Xchg,
    AtomicOp::CmpXchg,
    AtomicOp::UMin,
    AtomicOp::SMin,
    AtomicOp::UMax,
    AtomicOp::SMax,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
];

fn atomic_code(op: AtomicOp) -> u64 {
    ATOMIC_OPS.iter().position(|&o| o == op).unwrap_or(0) as u64
}

fn atomic_from(code: u32) -> Result<AtomicOp, &'static str> {
    ATOMIC_OPS
        .get(code as usize)
        .copied()
        .ok_or("unknown atomic operation")
}

/// Source register: 32-bit, or the 64-bit compare/new pair of a compare-exchange.
fn atomic_src(cx: &Ctx, op: AtomicOp, r: Reg) -> Result<u64, EncodeError> {
    let want = if op == AtomicOp::CmpXchg {
        Size::S64
    } else {
        Size::S32
    };
    if r.size != want {
        return Err(cx.err("src", Problem::WidthNotAllowed(r.size.bits())));
    }
    cx.reg("src", r, GPR_HALVES)?;
    Ok(u64::from(r.half))
}

fn atomic_src_from(op: AtomicOp, half: u32) -> Reg {
    let size = if op == AtomicOp::CmpXchg {
        Size::S64
    } else {
        Size::S32
    };
    Reg {
        half: half as u16,
        size,
    }
}

pub(crate) fn atomic(i: &Atomic) -> Result<Encoded, EncodeError> {
    let cx = Ctx { instr: "atomic" };
    let mut b: u128 = 0x15;
    put(&mut b, 6, 4, atomic_code(i.op));
    if let Some(d) = i.dst {
        if d.size != Size::S32 {
            return Err(cx.err("dst", Problem::WidthNotAllowed(d.size.bits())));
        }
        cx.reg("dst", d, GPR_HALVES)?;
        put(&mut b, 10, 6, u64::from(d.half) & 0x3f);
        put(&mut b, 40, 2, u64::from(d.half) >> 6);
        put(&mut b, 47, 1, 1);
    }
    put_device_base(&mut b, device_base(&cx, i.base)?);
    put_device_index(&cx, &mut b, i.index)?;
    put(&mut b, 26, 1, 1);
    put(&mut b, 30, 1, slot(&cx, i.wait_slot)?);
    put(&mut b, 31, 1, 1);
    put(&mut b, 44, 1, 1);
    put(&mut b, 46, 1, 1);
    put(&mut b, 48, 8, atomic_src(&cx, i.op, i.src)?);
    Ok(fit(b, 8, 8, 15, false))
}

pub(crate) fn dec_atomic(b: u128) -> Result<Instr, &'static str> {
    let op = atomic_from(get(b, 6, 4))?;
    let dst = (get(b, 47, 1) != 0).then(|| Reg {
        half: (get(b, 10, 6) | get(b, 40, 2) << 6) as u16,
        size: Size::S32,
    });
    Ok(Instr::Atomic(Atomic {
        op,
        dst,
        src: atomic_src_from(op, get(b, 48, 8)),
        base: get_device_base(b),
        index: get_device_index(b),
        wait_slot: get(b, 30, 1) as u8,
    }))
}

pub(crate) fn threadgroup_atomic(
    i: &ThreadgroupAtomic,
    force_long: bool,
) -> Result<Encoded, EncodeError> {
    let cx = Ctx {
        instr: "threadgroup_atomic",
    };
    no_slot(&cx, i.wait_slot)?;
    let mut b: u128 = 0x19;
    if let Some(d) = i.dst {
        if d.size != Size::S32 {
            return Err(cx.err("dst", Problem::WidthNotAllowed(d.size.bits())));
        }
        cx.reg("dst", d, GPR_HALVES)?;
        put(&mut b, 8, 1, 1);
        put(&mut b, 9, 6, u64::from(d.half) & 0x3f);
        put(&mut b, 60, 2, u64::from(d.half) >> 6);
        put(&mut b, 38, 1, 1);
    }
    put_tg_base(&cx, &mut b, i.base)?;
    put(&mut b, 24, 4, atomic_code(i.op));
    put_tg_index(&cx, &mut b, i.index)?;
    put(&mut b, 36, 1, 1);
    put(&mut b, 47, 1, 1);
    put(&mut b, 64, 8, atomic_src(&cx, i.op, i.src)?);
    Ok(fit(b, 6, 10, 15, force_long))
}

pub(crate) fn dec_threadgroup_atomic(b: u128) -> Result<Instr, &'static str> {
    let op = atomic_from(get(b, 24, 4))?;
    let dst = (get(b, 38, 1) != 0).then(|| Reg {
        half: (get(b, 9, 6) | get(b, 60, 2) << 6) as u16,
        size: Size::S32,
    });
    Ok(Instr::ThreadgroupAtomic(ThreadgroupAtomic {
        op,
        dst,
        src: atomic_src_from(op, get(b, 64, 8)),
        base: get_tg_base(b),
        index: get_tg_index(b),
        wait_slot: 0,
    }))
}
