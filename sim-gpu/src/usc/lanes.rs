//! Whole-group operand access. An operand's kind and width are looked at once per
//! instruction; the 32 lanes then move as plain arrays the compiler can vectorise, instead of
//! every lane matching on the operand again.

use super::float::{f16_to_f32, float_immediate, ftz};
use hw::isa::*;

const LANES: usize = SIMD_WIDTH;

/// One 64-bit value per lane.
pub type Lanes = [u64; LANES];

/// Register file row `half` (all lanes). `Program` checked every register against the file.
#[inline(always)]
fn row(regs: &[u16], half: usize) -> &[u16] {
    &regs[half * LANES..][..LANES]
}

/// The 32-bit register at `half` in every lane.
#[inline(always)]
pub fn read_row32(regs: &[u16], half: usize) -> [u32; LANES] {
    let (lo, hi) = (row(regs, half), row(regs, half + 1));
    std::array::from_fn(|l| u32::from(lo[l]) | u32::from(hi[l]) << 16)
}

/// A register's value in every lane, zero-extended.
#[inline(always)]
pub fn read_reg(regs: &[u16], r: Reg) -> Lanes {
    let h = usize::from(r.half);
    let mut out = [0u64; LANES];
    // One loop per width, so each is a straight widening copy.
    match r.size {
        Size::S16 => {
            for (o, &a) in out.iter_mut().zip(row(regs, h)) {
                *o = u64::from(a);
            }
        }
        Size::S32 => {
            let (lo, hi) = (row(regs, h), row(regs, h + 1));
            for ((o, &a), &b) in out.iter_mut().zip(lo).zip(hi) {
                *o = u64::from(a) | u64::from(b) << 16;
            }
        }
        Size::S64 => {
            for i in 0..4 {
                for (o, &a) in out.iter_mut().zip(row(regs, h + i)) {
                    *o |= u64::from(a) << (16 * i);
                }
            }
        }
    }
    out
}

/// An operand in every lane, with its width in bits.
#[inline(always)]
pub fn read(regs: &[u16], o: Operand, uniforms: &[u16]) -> (Lanes, u32) {
    match o {
        Operand::Reg(r) => (read_reg(regs, r), r.size.bits()),
        Operand::Uniform(r) => ([super::group::uniform(uniforms, r); LANES], r.size.bits()),
        Operand::Imm(v) => ([u64::from(v); LANES], 32),
    }
}

/// An integer source in every lane, sign-extended from its width when asked.
#[inline(always)]
pub fn read_int(regs: &[u16], s: &ISrc, uniforms: &[u16]) -> Lanes {
    let (mut v, bits) = read(regs, s.op, uniforms);
    if s.sign_extend && bits < 64 {
        let k = 64 - bits;
        for x in &mut v {
            *x = (((*x << k) as i64) >> k) as u64;
        }
    }
    v
}

/// A float operand in every lane as f32: immediates through the 8-bit table, halves exactly,
/// singles flushed.
#[inline]
pub fn read_float_op(regs: &[u16], o: Operand, uniforms: &[u16]) -> [f32; LANES] {
    if let Operand::Imm(v) = o {
        return [float_immediate(v as u8); LANES];
    }
    let (v, bits) = read(regs, o, uniforms);
    let mut out = [0f32; LANES];
    if bits == 16 {
        for (o, &x) in out.iter_mut().zip(&v) {
            *o = f16_to_f32(x as u16);
        }
    } else {
        for (o, &x) in out.iter_mut().zip(&v) {
            *o = ftz(f32::from_bits(x as u32));
        }
    }
    out
}

/// A float source with its modifiers applied.
#[inline]
pub fn read_float(regs: &[u16], s: &FSrc, uniforms: &[u16]) -> [f32; LANES] {
    let mut v = read_float_op(regs, s.op, uniforms);
    if s.abs {
        for x in &mut v {
            *x = x.abs();
        }
    }
    if s.neg {
        for x in &mut v {
            *x = -*x;
        }
    }
    v
}

/// Write `v` to register `r` in the lanes of `mask`.
#[inline]
pub fn write(regs: &mut [u16], r: Reg, v: &Lanes, mask: u32) {
    let h = usize::from(r.half);
    if mask == u32::MAX && r.size == Size::S32 {
        // The common case, fully active and 32-bit, as one pass over both halves.
        let (lo, hi) = regs[h * LANES..][..2 * LANES].split_at_mut(LANES);
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(v) {
            *l = x as u16;
            *h = (x >> 16) as u16;
        }
        return;
    }
    // Partly active groups (a fragment launch of a small primitive) are common, so the
    // masked case is a per-lane blend the compiler vectorises rather than a branch per lane.
    let keep: [u16; LANES] = std::array::from_fn(|l| u16::from(mask >> l & 1 == 0).wrapping_neg());
    for i in 0..usize::from(r.size.halves()) {
        let dst = &mut regs[(h + i) * LANES..][..LANES];
        let shift = 16 * i;
        if mask == u32::MAX {
            for (d, &x) in dst.iter_mut().zip(v) {
                *d = (x >> shift) as u16;
            }
        } else {
            for ((d, &x), &k) in dst.iter_mut().zip(v).zip(&keep) {
                *d = (*d & k) | ((x >> shift) as u16 & !k);
            }
        }
    }
}
