//! One AGX instruction as host vector code over a chunk of eight lanes.
//!
//! Each arm decides first whether it can express the instruction exactly as the interpreter
//! (`usc::group`) executes it, and returns [`Unsupported`] before it emits anything when it
//! cannot; the region planner asks this of every instruction, so these arms are the one home
//! of what the translator covers. Semantics follow the interpreter's (`SimdGroup::step_alu`,
//! and `usc::graphics` for `iter`) bit for bit: the differential tests (`usc::jit::tests`)
//! hold them to it.

use super::chunk::{lanes32, lanes_of_two, split, Chunk, UniformRead};
use crate::usc::float::float_immediate;
use crate::usc::memops;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types::*, InstBuilder, MemFlagsData, Value};
use hw::isa::*;

/// The instruction has a form the translator does not cover; the interpreter runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported;

type R<T> = Result<T, Unsupported>;

/// A 32-bit-per-lane value of the chunk: lanes 0-3 and 4-7.
type V32 = [Value; 2];

/// Emits `i` into the chunk. Control instructions (`jump`, `stop`) and no-ops only count.
pub fn emit(c: &mut Chunk, i: &Instr) -> R<()> {
    match i {
        Instr::MovImm(x) => {
            let r = x.dst.reg;
            match r.size {
                Size::S16 => {
                    let v = c.const16(x.imm as u16);
                    c.issue();
                    c.write16(r.half, v);
                }
                Size::S32 => {
                    let v = c.const32(x.imm);
                    c.issue();
                    c.write32(r.half, v);
                }
                Size::S64 => {
                    let v = c.const32(x.imm);
                    let z = c.const32(0);
                    c.issue();
                    c.write32(r.half, v);
                    c.write32(r.half + 2, z);
                }
            }
        }
        Instr::IAdd(x) if x.dst.reg.size == Size::S64 => {
            // 64-bit sums never saturate (the interpreter saturates 32 bits or fewer).
            c.issue();
            let a = int64(c, &x.a);
            let b = int64(c, &x.b);
            let b = shl64_small(c, b, x.shift);
            let [lo, hi] = add_or_sub64(c, a, b, x.negate_b);
            c.write32(x.dst.reg.half, lo);
            c.write32(x.dst.reg.half + 2, hi);
        }
        Instr::IAdd(x) => {
            let bits = x.dst.reg.size.bits();
            if bits > 32 || (x.saturate && x.shift == 0) {
                return Err(Unsupported);
            }
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            let b = shl_small(c, b, x.shift);
            let r = add_or_sub(c, a, b, x.negate_b);
            write_int(c, x.dst.reg, r);
        }
        Instr::IMAdd(x) => {
            let bits = x.dst.reg.size.bits();
            if bits > 32 || (x.saturate && x.shift == 0) {
                return Err(Unsupported);
            }
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            let k = int32(c, &x.c);
            let k = shl_small(c, k, x.shift);
            let p = lanes2(c, a, b, |c, a, b| c.b.ins().imul(a, b));
            let r = add_or_sub(c, p, k, x.negate_c);
            write_int(c, x.dst.reg, r);
        }
        Instr::Bitop(x) => {
            if x.dst.reg.size.bits() > 32 {
                return Err(Unsupported);
            }
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            let t = x.table & 0xf;
            let r = lanes2(c, a, b, |c, a, b| truth_table(c, t, a, b));
            // An and with a constant below 2^31 leaves every lane's top bit clear.
            let small = |s: &ISrc| imm_of(s).is_ok_and(|k| (k as u32) < 1 << 31);
            if t == 0b1000 && (small(&x.a) || small(&x.b)) {
                r.iter().for_each(|&v| c.mark_nonneg(v));
            }
            write_int(c, x.dst.reg, r);
        }
        Instr::Shift(x) => shift(c, x)?,
        Instr::Convert(x) => convert(c, x)?,
        Instr::FArith(x) => {
            if x.dst.reg.size != Size::S32 {
                return Err(Unsupported);
            }
            float_ok(x.a.op)?;
            float_ok(x.b.op)?;
            if x.op == FOp::MAdd {
                float_ok(x.c.op)?;
            }
            c.issue();
            let a = fsrc_arith(c, &x.a);
            let b = fsrc_arith(c, &x.b);
            let k = if x.op == FOp::MAdd {
                Some(fsrc_arith(c, &x.c))
            } else {
                None
            };
            let mut r = [a[0]; 2];
            for l in 0..2 {
                let fa = to_f(c, a[l]);
                let fb = to_f(c, b[l]);
                let f = match (x.op, k) {
                    (FOp::Add, _) => c.b.ins().fadd(fa, fb),
                    (FOp::Mul, _) => c.b.ins().fmul(fa, fb),
                    (FOp::MAdd, Some(k)) => {
                        let fk = to_f(c, k[l]);
                        c.b.ins().fma(fa, fb, fk)
                    }
                    (FOp::MAdd, None) => unreachable!("MAdd reads C"),
                };
                r[l] = f;
            }
            write_arith(c, x.dst.reg.half, r, x.saturate);
        }
        Instr::GetSr(x) => {
            let (Some(k), Some((ctx, lane0))) = (super::sr_slot(x.sr), c.fragment) else {
                return Err(Unsupported);
            };
            if x.dst.reg.size != Size::S32 {
                return Err(Unsupported);
            }
            c.issue();
            let f = MemFlagsData::trusted().with_readonly().with_can_move();
            let rows = c.b.ins().load(
                I64,
                f,
                ctx,
                std::mem::offset_of!(super::Ctx, specials) as i32,
            );
            let at = 4 * (k * SIMD_WIDTH + lane0);
            let lo = c.b.ins().load(I32X4, f, rows, at as i32);
            let hi = c.b.ins().load(I32X4, f, rows, at as i32 + 16);
            c.write32(x.dst.reg.half, [lo, hi]);
        }
        Instr::DeviceMem(_) => {
            let (Some(x), Some((ctx, _))) = (memops::uniform_load(i), c.fragment) else {
                return Err(Unsupported);
            };
            let k = c.preloads;
            c.preloads += 1;
            c.issue();
            let f = MemFlagsData::trusted().with_readonly().with_can_move();
            let words = c.b.ins().load(
                I64,
                f,
                ctx,
                std::mem::offset_of!(super::Ctx, preloaded) as i32,
            );
            for e in 0..x.mask.count_ones() as u16 {
                let at = 4 * (4 * k as i32 + i32::from(e));
                let w = c.b.ins().load(I32, f, words, at);
                let v = c.splat32(w);
                c.write32(x.reg.half + 2 * e, v);
            }
        }
        Instr::Iter(x) => {
            let Some((ctx, lane0)) = c.fragment else {
                return Err(Unsupported);
            };
            if x.interp != Interpolation::Center || x.dst.size != Size::S32 {
                return Err(Unsupported);
            }
            c.issue();
            iter(c, x, ctx, lane0);
        }
        Instr::FUnary(x) if matches!(x.op, FUnaryOp::Dfdx | FUnaryOp::Dfdy) => {
            if x.dst.reg.size != Size::S32 {
                return Err(Unsupported);
            }
            float_ok(x.src.op)?;
            c.issue();
            // Every lane of the quad is read, active or not: blend pending writes first.
            c.settle();
            let a = fsrc_arith(c, &x.src);
            // A quad is four consecutive lanes, one I32X4 (`isa::quad_lane`): each lane's
            // pair across the axis differs in lane bit 0 (x) or 1 (y), and the difference is
            // the member with that bit set minus the one with it clear.
            let (hi, lo) = if x.op == FUnaryOp::Dfdx {
                ([1, 1, 3, 3], [0, 0, 2, 2])
            } else {
                ([2, 3, 2, 3], [0, 1, 0, 1])
            };
            let mut r = [a[0]; 2];
            for l in 0..2 {
                let h = lanes32(c.b, a[l], hi);
                let w = lanes32(c.b, a[l], lo);
                let (h, w) = (to_f(c, h), to_f(c, w));
                r[l] = c.b.ins().fsub(h, w);
            }
            write_arith(c, x.dst.reg.half, r, x.saturate);
        }
        Instr::FUnary(x) => {
            if x.dst.reg.size != Size::S32
                || !matches!(
                    x.op,
                    FUnaryOp::Floor
                        | FUnaryOp::Ceil
                        | FUnaryOp::Trunc
                        | FUnaryOp::Rint
                        | FUnaryOp::Rcp
                        | FUnaryOp::Rsqrt
                )
            {
                return Err(Unsupported);
            }
            float_ok(x.src.op)?;
            c.issue();
            let a = fsrc(c, &x.src);
            let mut r = [a[0]; 2];
            for l in 0..2 {
                let f = to_f(c, a[l]);
                let rounded = match x.op {
                    FUnaryOp::Floor => Some(c.b.ins().floor(f)),
                    FUnaryOp::Ceil => Some(c.b.ins().ceil(f)),
                    FUnaryOp::Trunc => Some(c.b.ins().trunc(f)),
                    FUnaryOp::Rint => Some(c.b.ins().nearest(f)),
                    _ => None,
                };
                let f = match x.op {
                    // The interpreter's rounding (the host's libm) returns a NaN as it came,
                    // signalling ones included; the vector instructions would quiet them.
                    _ if rounded.is_some() => {
                        let nan = c.b.ins().fcmp(FloatCC::Unordered, f, f);
                        fselect(c, nan, f, rounded.unwrap_or(f))
                    }
                    FUnaryOp::Rcp => {
                        let one = fconst_splat(c, 1.0);
                        c.b.ins().fdiv(one, f)
                    }
                    _ => {
                        let one = fconst_splat(c, 1.0);
                        let s = c.b.ins().sqrt(f);
                        c.b.ins().fdiv(one, s)
                    }
                };
                r[l] = f32_out(c, f, x.saturate);
            }
            c.write32_flushed(x.dst.reg.half, r, true);
        }
        Instr::CmpSel(x) => {
            if x.dst.reg.size.bits() > 32 {
                return Err(Unsupported);
            }
            cond_ok(x.cond, x.a, x.b)?;
            c.issue();
            let m = compare(c, x.cond, x.a, x.b);
            let xv = raw32(c, x.x);
            let yv = raw32(c, x.y);
            let r = [
                c.b.ins().bitselect(m[0], xv[0], yv[0]),
                c.b.ins().bitselect(m[1], xv[1], yv[1]),
            ];
            write_int(c, x.dst.reg, r);
        }
        Instr::ExecCmp(x) => {
            cond_ok(x.cond, x.a, x.b)?;
            c.issue();
            // It reads every lane's operands and counter.
            c.settle();
            if c.r0l_known_zero() {
                // Every lane is active with a zero counter: `if` keeps the lanes where the
                // condition holds; `while` and `else` leave a zero counter alone when their
                // `n` is zero, else `while` keeps the lanes where it holds and `else` none.
                let stay = match x.op {
                    ExecOp::If => Some(holds_everywhere(c, x)),
                    ExecOp::While | ExecOp::Else if x.n == 0 => None,
                    ExecOp::While => Some(holds_everywhere(c, x)),
                    ExecOp::Else => Some(c.b.ins().iconst(I8, 0)),
                };
                if let Some(stay) = stay {
                    c.stay_or_bail(stay);
                }
                return Ok(());
            }
            let m = compare(c, x.cond, x.a, x.b);
            let holds = c.b.ins().snarrow(m[0], m[1]);
            let holds = if x.invert {
                c.b.ins().bnot(holds)
            } else {
                holds
            };
            let v = c.row(0);
            let n = c.const16(u16::from(x.n));
            let one = c.const16(1);
            // `!cond` as 0 or 1.
            let not_cond = c.b.ins().band_not(one, holds);
            let nv = match x.op {
                ExecOp::If => {
                    let zero = c.const16(0);
                    let nz = c.b.ins().icmp(IntCC::NotEqual, v, zero);
                    let up = c.b.ins().iadd(v, n);
                    c.b.ins().bitselect(nz, up, not_cond)
                }
                ExecOp::Else => {
                    let zero = c.const16(0);
                    let z = c.b.ins().icmp(IntCC::Equal, v, zero);
                    let is1 = c.b.ins().icmp(IntCC::Equal, v, one);
                    let inner = c.b.ins().bitselect(is1, not_cond, v);
                    c.b.ins().bitselect(z, n, inner)
                }
                ExecOp::While => {
                    let ge = c.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, v, n);
                    let other = c.b.ins().band_not(n, holds);
                    c.b.ins().bitselect(ge, v, other)
                }
            };
            exec_counter(c, nv);
        }
        Instr::PopExec(p) => {
            c.issue();
            if c.r0l_known_zero() {
                // Popping a zero counter leaves it zero.
                return Ok(());
            }
            c.settle();
            let v = c.row(0);
            let n = c.const16(u16::from(p.n));
            let nv = c.b.ins().usub_sat(v, n);
            exec_counter(c, nv);
        }
        Instr::TileMem(x) => super::tile::emit(c, x)?,
        Instr::StVary(x) => super::vary::emit(c, x)?,
        Instr::Jump(_) | Instr::Stop | Instr::Wait(_) | Instr::MemoryBarrier => c.issue(),
        _ => return Err(Unsupported),
    }
    Ok(())
}

/// Writes an exec-mask instruction's new counters `nv` (I16X8) to `r0l` in every lane and
/// updates the exec mask; a full chunk instead leaves unless every lane stays active.
fn exec_counter(c: &mut Chunk, nv: Value) {
    if c.is_full() {
        let zero = c.const16(0);
        let stay = c.b.ins().icmp(IntCC::Equal, nv, zero);
        let stay = c.b.ins().vall_true(stay);
        c.stay_or_bail(stay);
        c.set_r0l_zero();
        return;
    }
    let alive = c.alive;
    c.write16_masked(0, nv, alive);
    c.update_exec();
}

/// `iter` at pixel centres, as `usc::graphics` evaluates it: per lane, in double precision,
/// `(a * x + b * y) + c` of each component's plane, divided by the `w` plane's value when
/// perspective-correct, rounded once to single precision (no flush), a NaN as the default
/// NaN. Lanes are in `F64X2` pairs.
fn iter(c: &mut Chunk, x: &Iter, ctx: Value, lane0: usize) {
    use super::Ctx;
    use std::mem::offset_of;
    let f = MemFlagsData::trusted().with_readonly().with_can_move();
    let planes = c.b.ins().load(I64, f, ctx, offset_of!(Ctx, planes) as i32);
    let centres = c.b.ins().load(I64, f, ctx, offset_of!(Ctx, centres) as i32);
    let pair = |c: &mut Chunk, axis: usize, j: usize| {
        let at = 8 * (axis * SIMD_WIDTH + lane0 + 2 * j);
        c.b.ins().load(F64X2, f, centres, at as i32)
    };
    let xs: Vec<Value> = (0..4).map(|j| pair(c, 0, j)).collect();
    let ys: Vec<Value> = (0..4).map(|j| pair(c, 1, j)).collect();
    // The plane in `slot` of each pair's quad, evaluated at the four pairs of lanes.
    let eval = |c: &mut Chunk, slot: u32| -> Vec<Value> {
        let term = |c: &mut Chunk, k: usize, j: usize| {
            let quad = (lane0 + 2 * j) / QUAD_LANES;
            let at = 8 * ((3 * slot as usize + k) * (SIMD_WIDTH / QUAD_LANES) + quad);
            let v = c.b.ins().load(F64, f, planes, at as i32);
            c.b.ins().splat(F64X2, v)
        };
        (0..4)
            .map(|j| {
                let (a, b, k) = (term(c, 0, j), term(c, 1, j), term(c, 2, j));
                let ax = c.b.ins().fmul(a, xs[j]);
                let by = c.b.ins().fmul(b, ys[j]);
                let s = c.b.ins().fadd(ax, by);
                c.b.ins().fadd(s, k)
            })
            .collect()
    };
    let w = x.perspective_w.map(|w| eval(c, u32::from(w)));
    for k in 0..u16::from(x.channels) {
        let mut v = eval(c, u32::from(x.cf) + u32::from(k));
        if let Some(w) = &w {
            for j in 0..4 {
                v[j] = c.b.ins().fdiv(v[j], w[j]);
            }
        }
        // Each pair rounds to the low half of an F32X4; two pairs make four lanes.
        let narrow: Vec<Value> = v.iter().map(|&p| c.b.ins().fvdemote(p)).collect();
        let mut r = [narrow[0]; 2];
        for (h, out) in r.iter_mut().enumerate() {
            let lo = c.b.ins().bitcast(I32X4, MemFlagsData::new(), narrow[2 * h]);
            let hi =
                c.b.ins()
                    .bitcast(I32X4, MemFlagsData::new(), narrow[2 * h + 1]);
            let four = lanes_of_two(c.b, lo, hi);
            let four = c.b.ins().bitcast(F32X4, MemFlagsData::new(), four);
            let four = default_nan(c, four);
            *out = c.b.ins().bitcast(I32X4, MemFlagsData::new(), four);
        }
        c.write32(x.dst.half + 2 * k, r);
    }
}

/// Applies `f` to lanes 0-3 and 4-7.
fn lanes2(c: &mut Chunk, a: V32, b: V32, f: impl Fn(&mut Chunk, Value, Value) -> Value) -> V32 {
    [f(c, a[0], b[0]), f(c, a[1], b[1])]
}

/// `a + b`, or `a - b` when `negate` (integer sources read whole: every covered result
/// depends only on the low 32 bits of each extended source).
fn add_or_sub(c: &mut Chunk, a: V32, b: V32, negate: bool) -> V32 {
    lanes2(c, a, b, |c, a, b| {
        if negate {
            c.b.ins().isub(a, b)
        } else {
            c.b.ins().iadd(a, b)
        }
    })
}

fn map2(c: &mut Chunk, a: V32, f: impl Fn(&mut Chunk, Value) -> Value) -> V32 {
    [f(c, a[0]), f(c, a[1])]
}

/// A float operand of 32 bits (or an immediate); halves need the f16 conversion.
fn float_ok(o: Operand) -> R<()> {
    match o {
        Operand::Reg(r) | Operand::Uniform(r) if r.size == Size::S16 => Err(Unsupported),
        _ => Ok(()),
    }
}

fn cond_ok(cond: Cond, a: Operand, b: Operand) -> R<()> {
    match cond {
        Cond::Int(_) => {
            for o in [a, b] {
                if let Operand::Reg(r) | Operand::Uniform(r) = o {
                    if r.size == Size::S64 {
                        return Err(Unsupported);
                    }
                }
            }
            Ok(())
        }
        Cond::Float(_) => {
            float_ok(a)?;
            float_ok(b)
        }
    }
}

/// The low 32 bits of an operand zero-extended from its width (`lanes::read`).
fn raw32(c: &mut Chunk, o: Operand) -> V32 {
    ext32(c, o, false)
}

/// The low 32 bits of an integer source extended from its width (`lanes::read_int`).
fn int32(c: &mut Chunk, s: &ISrc) -> V32 {
    ext32(c, s.op, s.sign_extend)
}

fn ext32(c: &mut Chunk, o: Operand, signed: bool) -> V32 {
    match o {
        Operand::Reg(r) => match r.size {
            Size::S16 => {
                let row = c.row(r.half);
                if signed {
                    [c.b.ins().swiden_low(row), c.b.ins().swiden_high(row)]
                } else {
                    [c.b.ins().uwiden_low(row), c.b.ins().uwiden_high(row)]
                }
            }
            _ => c.reg32(r.half),
        },
        Operand::Uniform(r) => c.uniform(match r.size {
            Size::S16 if signed => UniformRead::Sext16(r.half),
            Size::S16 => UniformRead::Zext16(r.half),
            _ => UniformRead::W32(r.half),
        }),
        Operand::Imm(v) => c.const32(v),
    }
}

/// An integer source extended to 64 bits, as its low and high words.
fn int64(c: &mut Chunk, s: &ISrc) -> [V32; 2] {
    match s.op {
        Operand::Reg(r) if r.size == Size::S64 => [c.reg32(r.half), c.reg32(r.half + 2)],
        Operand::Uniform(r) if r.size == Size::S64 => [
            c.uniform(UniformRead::W32(r.half)),
            c.uniform(UniformRead::W32(r.half + 2)),
        ],
        Operand::Imm(_) => {
            let v = imm_of(s).unwrap_or(0);
            [c.const32(v as u32), c.const32((v >> 32) as u32)]
        }
        _ => {
            let lo = int32(c, s);
            let hi = if s.sign_extend {
                map2(c, lo, |c, x| sshrk(c, x, 31))
            } else {
                c.const32(0)
            };
            [lo, hi]
        }
    }
}

/// The 64-bit `shl` of the interpreter on a word pair: shifts of 5 or more give 0.
fn shl64_small(c: &mut Chunk, [lo, hi]: [V32; 2], s: u8) -> [V32; 2] {
    match s {
        0 => [lo, hi],
        1..=4 => {
            let s = i64::from(s);
            let carried = map2(c, lo, |c, x| ushrk(c, x, 32 - s));
            let hi = map2(c, hi, |c, x| shlk(c, x, s));
            let hi = lanes2(c, hi, carried, |c, h, k| c.b.ins().bor(h, k));
            [map2(c, lo, |c, x| shlk(c, x, s)), hi]
        }
        _ => [c.const32(0), c.const32(0)],
    }
}

/// `a + b` or `a - b` on word pairs, wrapping at 64 bits.
fn add_or_sub64(c: &mut Chunk, [alo, ahi]: [V32; 2], [blo, bhi]: [V32; 2], negate: bool) -> V32x2 {
    use cranelift_codegen::ir::condcodes::IntCC;
    let lo = add_or_sub(c, alo, blo, negate);
    // All ones in lanes whose low word carried (or borrowed).
    let carry = if negate {
        lanes2(c, alo, blo, |c, a, b| {
            c.b.ins().icmp(IntCC::UnsignedLessThan, a, b)
        })
    } else {
        lanes2(c, lo, alo, |c, l, a| {
            c.b.ins().icmp(IntCC::UnsignedLessThan, l, a)
        })
    };
    let hi = add_or_sub(c, ahi, bhi, negate);
    // Adding the carry subtracts all ones; a borrow adds them.
    let hi = add_or_sub(c, hi, carry, !negate);
    [lo, hi]
}

type V32x2 = [V32; 2];

/// `shl` of the interpreter: shifts of 5 or more give 0.
fn shl_small(c: &mut Chunk, v: V32, s: u8) -> V32 {
    match s {
        0 => v,
        1..=4 => map2(c, v, |c, x| shlk(c, x, i64::from(s))),
        _ => c.const32(0),
    }
}

/// Writes the low bits of a 32-bit result to a 16- or 32-bit register.
fn write_int(c: &mut Chunk, r: Reg, v: V32) {
    match r.size {
        Size::S16 => {
            let (lo, _) = split(c.b, v);
            c.write16(r.half, lo);
        }
        _ => c.write32(r.half, v),
    }
}

fn truth_table(c: &mut Chunk, t: u8, a: Value, b: Value) -> Value {
    match t {
        0b1000 => c.b.ins().band(a, b),
        0b1110 => c.b.ins().bor(a, b),
        0b0110 => c.b.ins().bxor(a, b),
        _ => {
            let mut acc: Option<Value> = None;
            for bit in 0..4 {
                if t >> bit & 1 == 0 {
                    continue;
                }
                let term = match bit {
                    0 => {
                        let o = c.b.ins().bor(a, b);
                        c.b.ins().bnot(o)
                    }
                    1 => c.b.ins().band_not(a, b),
                    2 => c.b.ins().band_not(b, a),
                    _ => c.b.ins().band(a, b),
                };
                acc = Some(match acc {
                    Some(x) => c.b.ins().bor(x, term),
                    None => term,
                });
            }
            match acc {
                Some(x) => x,
                None => c.b.ins().bxor(a, a),
            }
        }
    }
}

/// A compile-time shift amount: an immediate operand.
fn imm_of(s: &ISrc) -> R<u64> {
    match s.op {
        Operand::Imm(v) => Ok(if s.sign_extend {
            i64::from(v as i32) as u64
        } else {
            u64::from(v)
        }),
        _ => Err(Unsupported),
    }
}

/// True when an integer source extends to 64 bits with a zero high word.
fn high_word_zero(s: &ISrc) -> bool {
    match s.op {
        Operand::Reg(r) | Operand::Uniform(r) => match r.size {
            Size::S16 => !s.sign_extend,
            Size::S32 => !s.sign_extend,
            Size::S64 => false,
        },
        Operand::Imm(_) => !s.sign_extend,
    }
}

fn shift(c: &mut Chunk, x: &Shift) -> R<()> {
    if x.dst.reg.size.bits() > 32 {
        return Err(Unsupported);
    }
    let mask: u64 = if x.mask_bits == 0 || x.mask_bits >= 32 {
        0xffff_ffff
    } else {
        (1u64 << x.mask_bits) - 1
    };
    let mask32 = mask as u32;
    let r = match x.op {
        ShiftOp::Bfi | ShiftOp::Bfeil | ShiftOp::Extr if imm_of(&x.c).is_err() => {
            if x.op == ShiftOp::Bfeil && !high_word_zero(&x.b) {
                return Err(Unsupported);
            }
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            let amount = int32(c, &x.c);
            per_lane(c, [a, b, amount], |c, [a, b, amount]| {
                variable_shift(c, x.op, mask32, a, b, amount)
            })
        }
        ShiftOp::Bfi => {
            let s = imm_of(&x.c)? & 0x7f;
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            let keep = !(if s >= 64 { 0 } else { mask << s }) as u32;
            let ins = if s >= 32 { 0 } else { mask32 };
            map_pair(c, a, b, |c, a, b| {
                let a = andk(c, a, i64::from(keep));
                if ins == 0 {
                    return a;
                }
                let b = andk(c, b, i64::from(ins));
                let b = shlk(c, b, s as i64);
                c.b.ins().bor(a, b)
            })
        }
        ShiftOp::Bfeil => {
            let s = imm_of(&x.c)? & 0x7f;
            if !high_word_zero(&x.b) {
                return Err(Unsupported);
            }
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            map_pair(c, a, b, |c, a, b| {
                let a = andk(c, a, i64::from(!mask32));
                if s >= 32 {
                    return a;
                }
                let b = ushrk(c, b, s as i64);
                // The shift already cleared the bits above the field when it is that wide.
                let b = andk(c, b, i64::from(mask32 | !(u32::MAX >> s)));
                if mask32 == u32::MAX {
                    return b;
                }
                c.b.ins().bor(a, b)
            })
        }
        ShiftOp::Extr => {
            let s = imm_of(&x.c)? & 0x7f;
            c.issue();
            let a = int32(c, &x.a);
            let b = int32(c, &x.b);
            map_pair(c, a, b, |c, a, b| {
                let v = match s {
                    0 => a,
                    1..=31 => {
                        let lo = ushrk(c, a, s as i64);
                        let hi = shlk(c, b, 32 - s as i64);
                        c.b.ins().bor(lo, hi)
                    }
                    32 => b,
                    33..=63 => ushrk(c, b, s as i64 - 32),
                    _ => c.b.ins().bxor(a, a),
                };
                andk(c, v, i64::from(mask32))
            })
        }
        ShiftOp::Asr => {
            let s = imm_of(&x.b)? & 0x7f;
            if matches!(x.a.op, Operand::Reg(r) | Operand::Uniform(r) if r.size == Size::S64) {
                return Err(Unsupported);
            }
            c.issue();
            // The raw A sign-extended from its own width.
            let a = ext32(c, x.a.op, true);
            map2(c, a, |c, a| sshrk(c, a, s.min(31) as i64))
        }
        ShiftOp::Shlhi | ShiftOp::Shrhi => return Err(Unsupported),
    };
    write_int(c, x.dst.reg, r);
    Ok(())
}

/// `f` on each lane's words as scalars (`I32`), for what vector instructions cannot say: a
/// vector shift takes one amount for all its lanes.
fn per_lane<const N: usize>(
    c: &mut Chunk,
    v: [V32; N],
    f: impl Fn(&mut Chunk, [Value; N]) -> Value,
) -> V32 {
    let mut out = v[0];
    for (h, acc) in out.iter_mut().enumerate() {
        for i in 0..4u8 {
            let words = v.map(|w| c.b.ins().extractlane(w[h], i));
            let r = f(c, words);
            *acc = c.b.ins().insertlane(*acc, r, i);
        }
    }
    out
}

/// One lane of `bfi`, `bfeil` (B zero above 32 bits) or `extr` with the amount `c & 0x7f`
/// known only at run time, on 32-bit words as the interpreter's 64-bit forms leave them.
fn variable_shift(
    c: &mut Chunk,
    op: ShiftOp,
    mask: u32,
    a: Value,
    b: Value,
    amount: Value,
) -> Value {
    use cranelift_codegen::ir::condcodes::IntCC;
    let fb = &mut *c.b;
    macro_rules! ins {
        () => {
            fb.ins()
        };
    }
    let s = ins!().band_imm_u(amount, 0x7f);
    let mask = ins!().iconst(I32, i64::from(mask));
    let zero = ins!().iconst(I32, 0);
    // Host shifts take the amount modulo the width; the interpreter's give 0 beyond it.
    let narrow = ins!().icmp_imm_u(IntCC::UnsignedLessThan, s, 32);
    match op {
        ShiftOp::Bfi => {
            let field = ins!().ishl(mask, s);
            let keep = ins!().bnot(field);
            let ones = ins!().iconst(I32, i64::from(u32::MAX));
            let keep = ins!().select(narrow, keep, ones);
            let kept = ins!().band(a, keep);
            let bits = ins!().band(b, mask);
            let moved = ins!().ishl(bits, s);
            let moved = ins!().select(narrow, moved, zero);
            ins!().bor(kept, moved)
        }
        ShiftOp::Bfeil => {
            let kept = ins!().band_not(a, mask);
            let moved = ins!().ushr(b, s);
            let moved = ins!().band(moved, mask);
            let moved = ins!().select(narrow, moved, zero);
            ins!().bor(kept, moved)
        }
        _ => {
            let lo = ins!().uextend(I64, a);
            let hi = ins!().uextend(I64, b);
            let hi = ins!().ishl_imm_u(hi, 32);
            let pair = ins!().bor(hi, lo);
            let s64 = ins!().uextend(I64, s);
            let moved = ins!().ushr(pair, s64);
            let moved = ins!().ireduce(I32, moved);
            let inside = ins!().icmp_imm_u(IntCC::UnsignedLessThan, s, 64);
            let moved = ins!().select(inside, moved, zero);
            ins!().band(moved, mask)
        }
    }
}

fn map_pair(c: &mut Chunk, a: V32, b: V32, f: impl Fn(&mut Chunk, Value, Value) -> Value) -> V32 {
    lanes2(c, a, b, f)
}

fn convert(c: &mut Chunk, x: &Convert) -> R<()> {
    if x.dst.reg.size != Size::S32 {
        return Err(Unsupported);
    }
    match x.op {
        ConvertOp::U32ToF
        | ConvertOp::S32ToF
        | ConvertOp::U16ToF
        | ConvertOp::S16ToF
        | ConvertOp::U8ToF
        | ConvertOp::S8ToF => {
            if x.round != Round::NearestEven {
                return Err(Unsupported);
            }
            c.issue();
            let v = raw32(c, x.src.op);
            let r = map2(c, v, |c, v| match x.op {
                // A value with its top bit clear converts the same either way, and the
                // signed conversion is one host instruction, the unsigned a sequence.
                ConvertOp::U32ToF if c.is_nonneg(v) => c.b.ins().fcvt_from_sint(F32X4, v),
                ConvertOp::U32ToF => c.b.ins().fcvt_from_uint(F32X4, v),
                ConvertOp::S32ToF => c.b.ins().fcvt_from_sint(F32X4, v),
                ConvertOp::U16ToF | ConvertOp::U8ToF => {
                    let m = if x.op == ConvertOp::U16ToF {
                        0xffff
                    } else {
                        0xff
                    };
                    let v = andk(c, v, m);
                    c.b.ins().fcvt_from_sint(F32X4, v)
                }
                _ => {
                    let k = if x.op == ConvertOp::S16ToF { 16 } else { 24 };
                    let v = shlk(c, v, k);
                    let v = sshrk(c, v, k);
                    c.b.ins().fcvt_from_sint(F32X4, v)
                }
            });
            let r = map2(c, r, |c, f| {
                c.b.ins().bitcast(I32X4, MemFlagsData::new(), f)
            });
            // The float of an integer is never denormal.
            c.write32_flushed(x.dst.reg.half, r, true);
        }
        ConvertOp::FToU32 | ConvertOp::FToS32 => {
            float_ok(x.src.op)?;
            c.issue();
            let v = float_bits(c, x.src.op);
            let r = map2(c, v, |c, v| {
                let f = to_f(c, v);
                let f = match x.round {
                    Round::NearestEven => c.b.ins().nearest(f),
                    Round::TowardZero => f,
                };
                if x.op == ConvertOp::FToU32 {
                    c.b.ins().fcvt_to_uint_sat(I32X4, f)
                } else {
                    c.b.ins().fcvt_to_sint_sat(I32X4, f)
                }
            });
            c.write32(x.dst.reg.half, r);
        }
        _ => return Err(Unsupported),
    }
    Ok(())
}

fn to_f(c: &mut Chunk, v: Value) -> Value {
    c.b.ins().bitcast(F32X4, MemFlagsData::new(), v)
}

fn fconst_splat(c: &mut Chunk, x: f32) -> Value {
    let k = c.b.ins().f32const(x);
    c.b.ins().splat(F32X4, k)
}

/// A 32-bit float operand as lane bits, flushed as `read_float_op` flushes it.
fn float_bits(c: &mut Chunk, o: Operand) -> V32 {
    if let Operand::Imm(v) = o {
        return c.const32(float_immediate(v as u8).to_bits());
    }
    if let Operand::Reg(r) = o {
        if r.size != Size::S16 {
            let (v, flushed) = c.reg32_flushed(r.half);
            if flushed {
                return v;
            }
        }
    }
    let v = raw32(c, o);
    map2(c, v, ftz)
}

/// A 32-bit float operand as float arithmetic and comparisons read it: where the host
/// flushes operands itself ([`super::daz`]), neither flushed nor made canonical.
fn float_bits_arith(c: &mut Chunk, o: Operand) -> V32 {
    if !c.lazy_floats {
        return float_bits(c, o);
    }
    match o {
        Operand::Imm(v) => c.const32(float_immediate(v as u8).to_bits()),
        Operand::Reg(r) if r.size != Size::S16 => c.reg32_arith(r.half),
        _ => raw32(c, o),
    }
}

/// A float source with its modifiers, as lane bits.
fn fsrc(c: &mut Chunk, s: &FSrc) -> V32 {
    let v = float_bits(c, s.op);
    modifiers(c, s, v)
}

/// As [`fsrc`], for float arithmetic ([`float_bits_arith`]). The modifiers touch only the
/// sign bit, so they commute with the flush and the default NaN made later.
fn fsrc_arith(c: &mut Chunk, s: &FSrc) -> V32 {
    let v = float_bits_arith(c, s.op);
    modifiers(c, s, v)
}

fn modifiers(c: &mut Chunk, s: &FSrc, mut v: V32) -> V32 {
    if s.abs {
        v = map2(c, v, |c, x| andk(c, x, 0x7fff_ffff));
    }
    if s.neg {
        v = map2(c, v, |c, x| xork(c, x, 0x8000_0000u32 as i64));
    }
    v
}

/// Writes the results `f` (F32X4) of float arithmetic: left for later to make canonical
/// ([`Chunk::write32_raw`]) where the chunk may, else made canonical now.
fn write_arith(c: &mut Chunk, half: u16, f: V32, saturate: bool) {
    if c.lazy_floats && !saturate {
        let r = map2(c, f, |c, f| {
            c.b.ins().bitcast(I32X4, MemFlagsData::new(), f)
        });
        c.write32_raw(half, r);
    } else {
        let r = map2(c, f, |c, f| f32_arith_out(c, f, saturate));
        c.write32_flushed(half, r, true);
    }
}

/// An arithmetic result's lane bits (`I32X4`) as the register holds them: flushed, and a NaN
/// as the default NaN (what [`f32_arith_out`] makes of it unsaturated).
pub(super) fn canonical(c: &mut Chunk, v: Value) -> Value {
    let f = to_f(c, v);
    f32_arith_out(c, f, false)
}

/// Denormal lanes keep only their sign (`float::ftz`).
fn ftz(c: &mut Chunk, x: Value) -> Value {
    if !hw::g13::float_mode::F32_FLUSHES_DENORMALS {
        return x;
    }
    let e = andk(c, x, 0x7f80_0000);
    let zero = c.const32(0)[0];
    let den = c.b.ins().icmp(IntCC::Equal, e, zero);
    // All but the sign bit where denormal: one constant fewer than selecting `x & sign`,
    // which matters in loops that hold their constants in registers.
    let clear = c.b.ins().ushr_imm_s(den, 1);
    c.b.ins().band_not(x, clear)
}

/// `f` (F32X4) with every NaN lane the default NaN (`float_mode::F32_DEFAULT_NAN`).
fn default_nan(c: &mut Chunk, f: Value) -> Value {
    let nan = c.b.ins().fcmp(FloatCC::Unordered, f, f);
    let bits = c.const32(hw::g13::float_mode::F32_DEFAULT_NAN)[0];
    let d = c.b.ins().bitcast(F32X4, MemFlagsData::new(), bits);
    fselect(c, nan, d, f)
}

/// `a` where the lane mask `m` (I32X4, from a float compare) is set, else `b` (both F32X4).
pub(super) fn fselect(c: &mut Chunk, m: Value, a: Value, b: Value) -> Value {
    let m = c.b.ins().bitcast(F32X4, MemFlagsData::new(), m);
    c.b.ins().bitselect(m, a, b)
}

/// An arithmetic result as register bits: a NaN as the default NaN, then as [`f32_out`].
/// Saturation turns a NaN into 0 anyway; otherwise the NaN test runs beside the flush
/// rather than before it (a NaN is never flushed, a denormal is no NaN), which shortens the
/// chain of a value a loop carries from pass to pass.
fn f32_arith_out(c: &mut Chunk, f: Value, saturate: bool) -> Value {
    if saturate {
        return f32_out(c, f, true);
    }
    let nan = c.b.ins().fcmp(FloatCC::Unordered, f, f);
    let v = f32_out(c, f, false);
    let d = c.const32(hw::g13::float_mode::F32_DEFAULT_NAN)[0];
    c.b.ins().bitselect(nan, d, v)
}

/// A single-precision result as register bits: saturated when asked (NaN to 0, then
/// clamped as `f32::clamp` does, so -0 stays -0), then flushed. The clamp compares the bits
/// as integers, so a denormal result is clamped by its value even where the host treats
/// denormal operands as zero ([`super::daz`]).
fn f32_out(c: &mut Chunk, f: Value, saturate: bool) -> Value {
    let v = c.b.ins().bitcast(I32X4, MemFlagsData::new(), f);
    let v = if saturate {
        let nan = c.b.ins().fcmp(FloatCC::Unordered, f, f);
        // Ordered floats of one sign order as their bits: above 1.0 as signed integers
        // above its bits, below zero (but not -0) as negative integers other than -0's.
        let one = c.const32(1.0f32.to_bits())[0];
        let zero = c.const32(0)[0];
        let minus_zero = c.const32(0x8000_0000)[0];
        let above = c.b.ins().icmp(IntCC::SignedGreaterThan, v, one);
        let v = c.b.ins().bitselect(above, one, v);
        let negative = c.b.ins().icmp(IntCC::SignedLessThan, v, zero);
        let is_minus_zero = c.b.ins().icmp(IntCC::Equal, v, minus_zero);
        let below = c.b.ins().band_not(negative, is_minus_zero);
        let to_zero = c.b.ins().bor(below, nan);
        c.b.ins().bitselect(to_zero, zero, v)
    } else {
        v
    };
    ftz(c, v)
}

/// A condition in every lane of the chunk, as I32X4 masks.
fn compare(c: &mut Chunk, cond: Cond, a: Operand, b: Operand) -> V32 {
    match cond {
        Cond::Int(ic) => {
            let signed = matches!(ic, ICond::SLt | ICond::SGt);
            let av = ext_signed_cmp(c, a, signed);
            let bv = ext_signed_cmp(c, b, signed);
            let cc = match ic {
                ICond::UEq | ICond::SEq => IntCC::Equal,
                ICond::ULt => IntCC::UnsignedLessThan,
                ICond::UGt => IntCC::UnsignedGreaterThan,
                ICond::SLt => IntCC::SignedLessThan,
                ICond::SGt => IntCC::SignedGreaterThan,
            };
            lanes2(c, av, bv, |c, x, y| c.b.ins().icmp(cc, x, y))
        }
        Cond::Float(fc) => {
            let av = float_bits_arith(c, a);
            let bv = float_bits_arith(c, b);
            lanes2(c, av, bv, |c, x, y| {
                let x = to_f(c, x);
                let y = to_f(c, y);
                match fc {
                    FCond::Eq => c.b.ins().fcmp(FloatCC::Equal, x, y),
                    FCond::Lt => c.b.ins().fcmp(FloatCC::LessThan, x, y),
                    FCond::Gt => c.b.ins().fcmp(FloatCC::GreaterThan, x, y),
                    FCond::Ge => c.b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, y),
                    FCond::Le => c.b.ins().fcmp(FloatCC::LessThanOrEqual, x, y),
                    FCond::LtN | FCond::GtN => {
                        let cc = if fc == FCond::LtN {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThan
                        };
                        let x_ord = c.b.ins().fcmp(FloatCC::Ordered, x, x);
                        let y_nan = c.b.ins().fcmp(FloatCC::Unordered, y, y);
                        let r = c.b.ins().fcmp(cc, x, y);
                        let r = c.b.ins().bor(y_nan, r);
                        c.b.ins().band(x_ord, r)
                    }
                }
            })
        }
    }
}

/// Whether an exec-mask instruction's condition holds in all eight lanes (I8). An integer
/// condition is tested through its complement, which holds in no lane: Cranelift's
/// complements of `ult`, `ugt`, `slt` and `sgt` take one instruction fewer than they do.
fn holds_everywhere(c: &mut Chunk, x: &ExecCmp) -> Value {
    let (cond, invert) = match x.cond {
        Cond::Int(ic) => {
            let complement = match ic {
                ICond::ULt => Some(IntCC::UnsignedGreaterThanOrEqual),
                ICond::UGt => Some(IntCC::UnsignedLessThanOrEqual),
                ICond::SLt => Some(IntCC::SignedGreaterThanOrEqual),
                ICond::SGt => Some(IntCC::SignedLessThanOrEqual),
                ICond::UEq | ICond::SEq => None,
            };
            match complement {
                Some(cc) if !x.invert => {
                    let signed = matches!(ic, ICond::SLt | ICond::SGt);
                    let av = ext_signed_cmp(c, x.a, signed);
                    let bv = ext_signed_cmp(c, x.b, signed);
                    let fails = lanes2(c, av, bv, |c, p, q| c.b.ins().icmp(cc, p, q));
                    return none_set(c, fails);
                }
                _ => (x.cond, x.invert),
            }
        }
        Cond::Float(_) => (x.cond, x.invert),
    };
    let m = compare(c, cond, x.a, x.b);
    if invert {
        none_set(c, m)
    } else {
        let both = c.b.ins().band(m[0], m[1]);
        c.b.ins().vall_true(both)
    }
}

/// Whether no lane of the mask pair `m` is set (I8).
fn none_set(c: &mut Chunk, m: V32) -> Value {
    let either = c.b.ins().bor(m[0], m[1]);
    let any = c.b.ins().vany_true(either);
    c.b.ins().bxor_imm_u(any, 1)
}

/// A compare operand: raw, sign-extended from its width for the signed conditions.
fn ext_signed_cmp(c: &mut Chunk, o: Operand, signed: bool) -> V32 {
    ext32(c, o, signed)
}

/// `x & k` in every lane (`x` itself for an all-ones `k`: Cranelift keeps vector ands with
/// an all-ones constant).
pub(super) fn andk(c: &mut Chunk, x: Value, k: impl Into<i64>) -> Value {
    let k = k.into() as u32;
    if k == u32::MAX {
        return x;
    }
    let k_small = k < 1 << 31;
    let k = c.const32(k)[0];
    let r = c.b.ins().band(x, k);
    if k_small {
        c.mark_nonneg(r);
    }
    r
}

fn xork(c: &mut Chunk, x: Value, k: impl Into<i64>) -> Value {
    let k = c.const32(k.into() as u32)[0];
    c.b.ins().bxor(x, k)
}

fn shift_amount(c: &mut Chunk, s: impl Into<i64>) -> Value {
    c.b.ins().iconst(I32, s.into())
}

pub(super) fn shlk(c: &mut Chunk, x: Value, s: impl Into<i64>) -> Value {
    let s = shift_amount(c, s);
    c.b.ins().ishl(x, s)
}

pub(super) fn ushrk(c: &mut Chunk, x: Value, s: impl Into<i64>) -> Value {
    let s = s.into();
    let amount = shift_amount(c, s);
    let r = c.b.ins().ushr(x, amount);
    if (1..32).contains(&s) {
        c.mark_nonneg(r);
    }
    r
}

pub(super) fn sshrk(c: &mut Chunk, x: Value, s: impl Into<i64>) -> Value {
    let s = shift_amount(c, s);
    c.b.ins().sshr(x, s)
}
