//! Memory instructions of one SIMD group: device memory through [`GpuMemory`], the
//! workgroup's threadgroup memory, per-thread stack, atomics on both, and a preshader's
//! `uniform_store`. Loads complete before the next instruction, so `wait` has nothing to
//! wait for.

use super::graphics::{step_graphics, GraphicsContext};
use super::group::{sext, SimdGroup};
use super::lanes::Lanes;
use super::program::{elem_halves, Program};
use super::texture::{step_texture, TextureState};
use crate::{Fault, GpuMemory};
use hw::isa::*;

const LANES: usize = SIMD_WIDTH;

/// The memories a group reaches besides its registers.
pub struct MemCtx<'a> {
    pub device: &'a mut dyn GpuMemory,
    pub shared: &'a mut [u8],
    pub stack_bytes: u32,
    pub uniforms: &'a [u16],
    /// Fragment/vertex state of a graphics launch; `None` for compute.
    pub graphics: Option<&'a mut GraphicsContext>,
    /// A preshader's pending writes to the uniform file, `(half, value)` in order; `None`
    /// outside a preshader, where `uniform_store` faults. `uniforms` stays borrowed while a
    /// group steps, so `uniform_store` only queues its halves here: the preshader's loop
    /// ([`super::run_preshader`]) applies them after each instruction.
    pub uniform_stores: Option<&'a mut Vec<(usize, u16)>>,
}

fn shader_fault(prog: &Program, idx: usize, why: impl Into<String>) -> Fault {
    Fault::Shader {
        pc: prog.pc(idx),
        reason: why.into(),
    }
}

fn format_ok(f: MemFormat) -> Result<u32, Fault> {
    match f {
        MemFormat::I8 | MemFormat::I16 | MemFormat::I32 | MemFormat::F16 => Ok(f.bytes()),
        _ => Err(Fault::Unimplemented(
            "USC memory access with a normalised or packed format",
        )),
    }
}

fn index_value(g: &SimdGroup, i: Index, unsigned: bool, lane: usize) -> i64 {
    match i {
        Index::Imm(v) => i64::from(v),
        Index::Reg(r) => {
            let v = g.reg(r, lane);
            if unsigned {
                (v & 0xffff_ffff) as i64
            } else {
                sext(v & 0xffff_ffff, 32)
            }
        }
    }
}

/// Memory bytes <-> register value for one element (little-endian; the element sizes as
/// single moves, since every lane of every load and store goes through here).
fn to_reg(bytes: &[u8]) -> u64 {
    match *bytes {
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        _ => bytes
            .iter()
            .rev()
            .fold(0u64, |a, &b| (a << 8) | u64::from(b)),
    }
}

fn from_reg(v: u64, out: &mut [u8]) {
    match out.len() {
        1 => out[0] = v as u8,
        2 => out.copy_from_slice(&(v as u16).to_le_bytes()),
        4 => out.copy_from_slice(&(v as u32).to_le_bytes()),
        _ => {
            for (i, b) in out.iter_mut().enumerate() {
                *b = (v >> (8 * i)) as u8;
            }
        }
    }
}

fn elem_reg(reg: Reg, k: u16, step: u16) -> Reg {
    Reg {
        half: reg.half + k * step,
        size: if step == 1 { Size::S16 } else { Size::S32 },
    }
}

fn local<'m>(
    mem: &'m mut [u8],
    addr: i64,
    n: u32,
    what: &str,
    prog: &Program,
    idx: usize,
) -> Result<&'m mut [u8], Fault> {
    let len = mem.len() as i64;
    if addr < 0 || addr + i64::from(n) > len {
        return Err(shader_fault(
            prog,
            idx,
            format!("{what} access at byte {addr} outside its {len} bytes"),
        ));
    }
    Ok(&mut mem[addr as usize..addr as usize + n as usize])
}

fn atomic_apply(op: AtomicOp, old: u32, v: u64) -> u32 {
    let x = v as u32;
    match op {
        AtomicOp::Add => old.wrapping_add(x),
        AtomicOp::Sub => old.wrapping_sub(x),
        AtomicOp::Xchg => x,
        AtomicOp::CmpXchg => {
            if old == x {
                (v >> 32) as u32
            } else {
                old
            }
        }
        AtomicOp::UMin => old.min(x),
        AtomicOp::SMin => (old as i32).min(x as i32) as u32,
        AtomicOp::UMax => old.max(x),
        AtomicOp::SMax => (old as i32).max(x as i32) as u32,
        AtomicOp::And => old & x,
        AtomicOp::Or => old | x,
        AtomicOp::Xor => old ^ x,
    }
}

/// Execute the memory instruction at the group's pc and advance it.
pub fn step_mem(g: &mut SimdGroup, prog: &Program, m: &mut MemCtx<'_>) -> Result<(), Fault> {
    let idx = g.pc;
    if step_graphics(g, prog, idx, m.graphics.as_deref_mut())? {
        return Ok(());
    }
    if let Instr::BlockImageStore(x) = prog.instrs[idx] {
        let Some(gfx) = m.graphics.as_deref() else {
            return Err(super::texture::fault(
                prog,
                idx,
                "block_image_store outside a graphics launch",
            ));
        };
        super::block_store::step_block_store(g, prog, idx, &x, gfx, m.uniforms, &mut *m.device)?;
        g.pc += 1;
        return Ok(());
    }
    if matches!(prog.instrs[idx], Instr::Texture(_) | Instr::ImageWrite(_)) {
        let state = match m.graphics.as_deref() {
            Some(gfx) => &gfx.textures,
            None => &TextureState::default(),
        };
        // Helper lanes of a fragment quad never change device memory, image writes included
        // (the hardware predicates them, as it does plain stores below).
        let helpers = m
            .graphics
            .as_deref()
            .and_then(|c| c.fragment.as_ref())
            .map_or(0, |f| f.helpers());
        if step_texture(g, prog, idx, state, helpers, m.uniforms, &mut *m.device)? {
            return Ok(());
        }
    }
    let instr = prog.instrs[idx];
    g.pc += 1;
    if let Instr::UniformStore(x) = instr {
        return uniform_store(g, prog, idx, &x, m);
    }
    let mut lanes = g.exec;
    // Helper lanes of a fragment quad never change device memory (Mesa: the hardware
    // predicates their stores).
    let writes_device = match instr {
        Instr::DeviceMem(x) => x.store,
        Instr::Atomic(_) => true,
        _ => false,
    };
    if writes_device {
        if let Some(f) = m.graphics.as_deref().and_then(|c| c.fragment.as_ref()) {
            lanes &= !f.helpers();
        }
    }
    if let Instr::DeviceMem(x) = instr {
        if device_run(g, &x, lanes, m)? {
            return Ok(());
        }
    }
    // The address a device load last read whole, and its bytes.
    let mut last: Option<u64> = None;
    let mut whole = [0u8; 16];
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        match instr {
            Instr::DeviceMem(x) => {
                let size = format_ok(x.format)?;
                let step = elem_halves(x.reg, x.format).unwrap_or(2);
                let (base, _) = g.operand(x.base, l, m.uniforms);
                let off = index_value(g, x.index, x.index_unsigned, l)
                    << if x.shift == 3 { 2 } else { x.shift };
                // A load of consecutive elements reads them in one access, and a lane loading
                // where the previous one did takes those bytes again (a load changes no
                // memory). If the access faults, the element-wise path below finds the
                // faulting element, as it always did.
                let run = x.mask.checked_shr(x.mask.trailing_zeros()).unwrap_or(0);
                if !x.store && run != 0 && run & (run + 1) == 0 {
                    let first = i64::from(x.mask.trailing_zeros());
                    let n = x.mask.count_ones() as usize;
                    let size = size as usize;
                    let at = base.wrapping_add(((off + first) * size as i64) as u64)
                        & !(size as u64 - 1);
                    let bytes = &mut whole[..n * size];
                    if last == Some(at) || m.device.read(at, bytes).is_ok() {
                        last = Some(at);
                        for (k, e) in bytes.chunks_exact(size).enumerate() {
                            g.set_reg(elem_reg(x.reg, k as u16, step), l, to_reg(e));
                        }
                        continue;
                    }
                    last = None;
                }
                let mut k = 0;
                for e in 0..4i64 {
                    if x.mask & (1 << e) == 0 {
                        continue;
                    }
                    let addr = base.wrapping_add(((off + e) * i64::from(size)) as u64)
                        & !(u64::from(size) - 1);
                    let r = elem_reg(x.reg, k, step);
                    let mut buf = [0u8; 4];
                    let b = &mut buf[..size as usize];
                    if x.store {
                        from_reg(g.reg(r, l), b);
                        m.device.write(addr, b)?;
                    } else {
                        m.device.read(addr, b)?;
                        g.set_reg(r, l, to_reg(b));
                    }
                    k += 1;
                }
            }
            Instr::ThreadgroupMem(x) => {
                let size = format_ok(x.format)?;
                let step = elem_halves(x.reg, x.format).unwrap_or(2);
                let (base, bits) = g.operand(x.base, l, m.uniforms);
                let base = if matches!(x.base, Operand::Imm(_)) {
                    base as i64
                } else {
                    (base & mask16(bits)) as i64
                };
                let index = match x.index {
                    Index::Imm(v) => i64::from(v),
                    Index::Reg(r) => (g.reg(r, l) & 0xffff) as i64,
                };
                let mut k = 0;
                for e in 0..4i64 {
                    if x.mask & (1 << e) == 0 {
                        continue;
                    }
                    let addr = base + (index + e) * i64::from(size);
                    let r = elem_reg(x.reg, k, step);
                    let cell = local(m.shared, addr, size, "threadgroup memory", prog, idx)?;
                    if x.store {
                        from_reg(g.reg(r, l), cell);
                    } else {
                        let v = to_reg(cell);
                        g.set_reg(r, l, v);
                    }
                    k += 1;
                }
            }
            Instr::StackMem(x) => {
                let size = format_ok(x.format)?;
                let step = elem_halves(x.reg, x.format).unwrap_or(2);
                let per = m.stack_bytes as usize;
                if g.stack.len() != per * LANES {
                    g.stack = vec![0; per * LANES];
                }
                let offset = match x.offset {
                    Index::Imm(v) => i64::from(v),
                    Index::Reg(r) => (g.reg(r, l) & 0xffff_ffff) as i64,
                };
                let mut k = 0;
                for e in 0..4i64 {
                    if x.mask & (1 << e) == 0 {
                        continue;
                    }
                    let addr = offset + e * i64::from(size);
                    let r = elem_reg(x.reg, k, step);
                    if addr < 0 || addr + i64::from(size) > per as i64 {
                        return Err(shader_fault(
                            prog,
                            idx,
                            format!("stack access at byte {addr} outside its {per} bytes"),
                        ));
                    }
                    let at = l * per + addr as usize;
                    let range = at..at + size as usize;
                    if x.store {
                        let v = g.reg(r, l);
                        from_reg(v, &mut g.stack[range]);
                    } else {
                        let v = to_reg(&g.stack[range]);
                        g.set_reg(r, l, v);
                    }
                    k += 1;
                }
            }
            Instr::Atomic(x) => {
                let (base, _) = g.operand(x.base, l, m.uniforms);
                let addr = base.wrapping_add((index_value(g, x.index, false, l) * 4) as u64);
                let v = g.reg(x.src, l);
                let old = m.device.read_u32(addr)?;
                let new = atomic_apply(x.op, old, v);
                if new != old || x.op != AtomicOp::CmpXchg {
                    m.device.write_u32(addr, new)?;
                }
                if let Some(d) = x.dst {
                    g.set_reg(d, l, u64::from(old));
                }
            }
            Instr::ThreadgroupAtomic(x) => {
                let (base, bits) = g.operand(x.base, l, m.uniforms);
                let base = if matches!(x.base, Operand::Imm(_)) {
                    base as i64
                } else {
                    (base & mask16(bits)) as i64
                };
                let index = match x.index {
                    Index::Imm(v) => i64::from(v),
                    Index::Reg(r) => (g.reg(r, l) & 0xffff) as i64,
                };
                let v = g.reg(x.src, l);
                let cell = local(
                    m.shared,
                    base + index * 4,
                    4,
                    "threadgroup memory",
                    prog,
                    idx,
                )?;
                let old = to_reg(cell) as u32;
                from_reg(u64::from(atomic_apply(x.op, old, v)), cell);
                if let Some(d) = x.dst {
                    g.set_reg(d, l, u64::from(old));
                }
            }
            _ => {
                return Err(Fault::Internal(
                    "non-memory instruction reached the memory unit",
                ))
            }
        }
    }
    Ok(())
}

/// A device load or store of consecutive elements (the usual mask) for all of `lanes` at
/// once: the lanes' addresses, then one [`GpuMemory::gather`] or [`GpuMemory::scatter`].
/// A lane's run of elements is one access: the elements are aligned to their size, so a page
/// edge inside the run falls between two of them, and a store faults where the element-wise
/// path would, with the same bytes written before it. `Ok(false)` leaves the instruction to
/// the element-wise path: other masks, and a load that faults (which that path reports at
/// its element, with the registers of the lanes before it already written).
fn device_run(
    g: &mut SimdGroup,
    x: &DeviceMem,
    lanes: u32,
    m: &mut MemCtx<'_>,
) -> Result<bool, Fault> {
    let size = format_ok(x.format)? as usize;
    let run = x.mask.checked_shr(x.mask.trailing_zeros()).unwrap_or(0);
    if lanes == 0 || run == 0 || run & (run + 1) != 0 {
        return Ok(false);
    }
    let n = x.mask.count_ones() as usize;
    let step = elem_halves(x.reg, x.format).unwrap_or(2);
    let (base, _) = g.lanes(x.base, m.uniforms);
    let index: Lanes = match x.index {
        Index::Imm(v) => [i64::from(v) as u64; LANES],
        Index::Reg(r) => {
            let (mut v, _) = g.lanes(Operand::Reg(r), m.uniforms);
            for i in &mut v {
                *i = if x.index_unsigned {
                    *i & 0xffff_ffff
                } else {
                    sext(*i & 0xffff_ffff, 32) as u64
                };
            }
            v
        }
    };
    let address = |l: usize| run_address(x, base[l], index[l]);
    let uniform = !matches!(x.base, Operand::Reg(_)) && matches!(x.index, Index::Imm(_));
    if !x.store && uniform {
        // Every lane loads the same bytes (a descriptor, a push constant): read them once.
        let mut buf = [0u8; 16];
        let bytes = &mut buf[..n * size];
        if m.device
            .read(address(lanes.trailing_zeros() as usize), bytes)
            .is_err()
        {
            return Ok(false);
        }
        for (e, b) in bytes.chunks_exact(size).enumerate() {
            g.write_lanes(elem_reg(x.reg, e as u16, step), &[to_reg(b); LANES], lanes);
        }
        return Ok(true);
    }
    let mut addrs = [0u64; LANES];
    let mut order = [0usize; LANES];
    let mut k = 0;
    let mut rest = lanes;
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        addrs[k] = address(l);
        order[k] = l;
        k += 1;
    }
    let mut buf = [0u8; LANES * 16];
    let bytes = &mut buf[..k * n * size];
    let stride = n * size;
    let elements = (0..n).map(|e| (e * size, elem_reg(x.reg, e as u16, step)));
    if x.store {
        for (at, r) in elements {
            let (v, _) = g.lanes(Operand::Reg(r), m.uniforms);
            for (slot, &l) in bytes.chunks_exact_mut(stride).zip(&order[..k]) {
                from_reg(v[l], &mut slot[at..at + size]);
            }
        }
        m.device.scatter(&addrs[..k], bytes)?;
    } else {
        if m.device.gather(&addrs[..k], bytes).is_err() {
            return Ok(false);
        }
        for (at, r) in elements {
            let mut v = [0u64; LANES];
            for (slot, &l) in bytes.chunks_exact(stride).zip(&order[..k]) {
                v[l] = to_reg(&slot[at..at + size]);
            }
            g.write_lanes(r, &v, lanes);
        }
    }
    Ok(true)
}

/// Where a lane's run of consecutive elements (a contiguous `x.mask`) starts, for its base
/// and its index (already extended as `x.index_unsigned` says).
pub fn run_address(x: &DeviceMem, base: u64, index: u64) -> u64 {
    let size = u64::from(x.format.bytes());
    let shift = if x.shift == 3 { 2 } else { x.shift };
    let first = i64::from(x.mask.trailing_zeros());
    let off = (index as i64) << shift;
    base.wrapping_add(((off + first) * size as i64) as u64) & !(size - 1)
}

/// A device load every lane makes from the same address, known before the group runs: a
/// uniform or immediate base and an immediate index, loading a run of 32-bit elements into
/// 32-bit registers (descriptors, push constants, uniform buffers). The translator reads
/// its words before a region runs ([`super::jit`]).
pub fn uniform_load(i: &Instr) -> Option<&DeviceMem> {
    let Instr::DeviceMem(x) = i else {
        return None;
    };
    let run = x.mask.checked_shr(x.mask.trailing_zeros()).unwrap_or(0);
    let uniform = !matches!(x.base, Operand::Reg(_)) && matches!(x.index, Index::Imm(_));
    (!x.store
        && uniform
        && run != 0
        && run & (run + 1) == 0
        && x.format == MemFormat::I32
        && x.reg.size == Size::S32)
        .then_some(x)
}

/// `uniform_store`: queues the halves of the lowest active lane (a preshader runs only lane
/// 0) for the uniform file. With no lane active nothing is written.
fn uniform_store(
    g: &SimdGroup,
    prog: &Program,
    idx: usize,
    x: &UniformStore,
    m: &mut MemCtx<'_>,
) -> Result<(), Fault> {
    let Some(out) = m.uniform_stores.as_deref_mut() else {
        return Err(shader_fault(
            prog,
            idx,
            "uniform_store outside a preshader (only a preshader writes the uniform file)",
        ));
    };
    if g.exec == 0 {
        return Ok(());
    }
    let l = g.exec.trailing_zeros() as usize;
    let index = match x.index {
        Index::Imm(v) => i64::from(v),
        Index::Reg(r) => sext(g.reg(r, l) & 0xffff_ffff, 32),
    };
    // Halves index .. index + (highest mask bit + 1) are addressed, gaps included.
    let extent = i64::from(u8::BITS - x.mask.leading_zeros());
    if index < 0 || index + extent > i64::from(UNIFORM_HALVES) {
        return Err(shader_fault(
            prog,
            idx,
            format!(
                "uniform_store to halves {index}..{} outside the {UNIFORM_HALVES}-half uniform file",
                index + extent
            ),
        ));
    }
    let mut k = 0;
    for i in 0..4 {
        if x.mask & (1 << i) != 0 {
            let v = g.reg(Reg::r16(x.reg.half + k), l) as u16;
            out.push((index as usize + i, v));
            k += 1;
        }
    }
    Ok(())
}

fn mask16(bits: u32) -> u64 {
    if bits >= 32 {
        0xffff_ffff
    } else {
        0xffff
    }
}
