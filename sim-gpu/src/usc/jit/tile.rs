//! `st_tile` and `ld_tile` in translated code: the tilebuffer of a single-sample fragment
//! launch, reached through [`Ctx`]'s tile pointer and each lane's record offset.
//!
//! The executor runs a region with tile accesses only where the interpreter could not fault
//! on them: a single-sample tile, every live lane's pixel inside it, and the sample holding
//! every byte the region's accesses name ([`bytes_touched`]); elsewhere the interpreter runs
//! the code. Conversions are the interpreter's (`usc::graphics::tile_mem`) bit for bit.

use super::chunk::Chunk;
use super::emit::{andk, fselect, shlk, sshrk, ushrk, Unsupported};
use super::Ctx;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types::*, Endianness, InstBuilder, MemFlagsData, Value};
use hw::isa::*;
use std::mem::offset_of;

type V32 = [Value; 2];

/// One past the highest byte of a sample `x` may touch; 0 for an access the translator does
/// not cover.
pub fn bytes_touched(x: &TileMem) -> u32 {
    elements(x).map_or(0, |(elems, size)| {
        elems.iter().map(|e| e.0 + size).max().unwrap_or(0)
    })
}

/// The masked elements of `x` as (byte in the sample, register), and the element size, for
/// the forms the translator covers.
fn elements(x: &TileMem) -> Option<(Vec<(u32, Reg)>, u32)> {
    if x.coords.is_some() || !matches!(x.reg.size, Size::S16 | Size::S32) {
        return None;
    }
    let norm = norm_of(x.format);
    match x.format {
        MemFormat::I8 | MemFormat::I16 | MemFormat::I32 | MemFormat::F16 => {}
        // Conversions to and from halves (f16) stay with the interpreter.
        _ if norm.is_some() && x.reg.size == Size::S32 => {}
        _ => return None,
    }
    let size = x.format.bytes();
    let step = if x.reg.size == Size::S16 { 1 } else { 2 };
    let elems = (0..4u32)
        .filter(|e| x.mask & (1 << e) != 0)
        .enumerate()
        .map(|(k, e)| {
            let reg = Reg {
                half: x.reg.half + k as u16 * step,
                size: x.reg.size,
            };
            (u32::from(x.pixel_offset) + e * size, reg)
        })
        .collect();
    Some((elems, size))
}

/// Bits and signedness of a normalised format.
fn norm_of(f: MemFormat) -> Option<(u32, bool)> {
    match f {
        MemFormat::U8Norm => Some((8, false)),
        MemFormat::S8Norm => Some((8, true)),
        MemFormat::U16Norm => Some((16, false)),
        MemFormat::S16Norm => Some((16, true)),
        _ => None,
    }
}

/// Emits `x` into the chunk, whose fragment state is `ctx` (a [`Ctx`]) from lane `lane0`.
pub fn emit(c: &mut Chunk, x: &TileMem) -> Result<(), Unsupported> {
    let (elems, size) = elements(x).ok_or(Unsupported)?;
    let Some((ctx, lane0)) = c.fragment else {
        return Err(Unsupported);
    };
    // A loop pass in a full chunk may be run again from its inputs (`Chunk::new_full`): a
    // store must not happen twice.
    if x.store && c.is_full() {
        return Err(Unsupported);
    }
    // The sample set, for the one sample the executor allows: 0xff names every sample.
    let Small::Imm(set) = x.samples else {
        return Err(Unsupported);
    };
    c.issue();
    if set & 1 == 0 && set != 0xff {
        return Ok(());
    }
    let f = MemFlagsData::trusted().with_readonly().with_can_move();
    let tile = c.b.ins().load(I64, f, ctx, offset_of!(Ctx, tile) as i32);
    let records = c.b.ins().load(I64, f, ctx, offset_of!(Ctx, records) as i32);
    let pieces = pieces(&elems, size);
    if x.store {
        store(c, x, &elems, &pieces, [tile, records, ctx], lane0);
    } else {
        load(c, x, &elems, &pieces, [tile, records], lane0);
    }
    Ok(())
}

/// Runs of contiguous elements accessed as one: (first element, count, bytes), merging
/// neighbours of equal width while the result is 2 or 4 bytes wide.
fn pieces(elems: &[(u32, Reg)], size: u32) -> Vec<(usize, usize, u32)> {
    let mut p: Vec<(usize, usize, u32)> = (0..elems.len()).map(|k| (k, 1, size)).collect();
    loop {
        let mut merged = false;
        let mut out = Vec::with_capacity(p.len());
        let mut k = 0;
        while k < p.len() {
            let (first, n, w) = p[k];
            if let Some(&(next, m, w2)) = p.get(k + 1) {
                let contiguous = elems[next].0 == elems[first].0 + w;
                if contiguous && w == w2 && w < 4 {
                    out.push((first, n + m, 2 * w));
                    k += 2;
                    merged = true;
                    continue;
                }
            }
            out.push(p[k]);
            k += 1;
        }
        p = out;
        if !merged {
            return p;
        }
    }
}

/// The stores of the chunk's lanes that are active and still cover the sample.
fn store(
    c: &mut Chunk,
    x: &TileMem,
    elems: &[(u32, Reg)],
    pieces: &[(usize, usize, u32)],
    [tile, records, ctx]: [Value; 3],
    lane0: usize,
) {
    let size = x.format.bytes();
    let values: Vec<V32> = elems
        .iter()
        .map(|&(_, r)| {
            let v = match r.size {
                Size::S16 => {
                    let row = c.row(r.half);
                    [c.b.ins().uwiden_low(row), c.b.ins().uwiden_high(row)]
                }
                _ => c.reg32(r.half),
            };
            match norm_of(x.format) {
                Some((bits, signed)) => float_to_norm(c, v, bits, signed),
                None => v,
            }
        })
        .collect();
    // Each piece as one word per lane: its elements' bytes, lowest first.
    let words: Vec<V32> = pieces
        .iter()
        .map(|&(first, n, _)| {
            let mut w = values[first];
            for j in 1..n {
                let keep = ((1u64 << (8 * size * j as u32)) - 1) as i64;
                let v = values[first + j];
                for h in 0..2 {
                    let low = andk(c, w[h], keep);
                    let hi = shlk(c, v[h], 8 * size * j as u32);
                    w[h] = c.b.ins().bor(low, hi);
                }
            }
            w
        })
        .collect();
    // Lanes that store: active, with sample 0 still covered.
    let cover = {
        let f = MemFlagsData::trusted();
        let p =
            c.b.ins()
                .load(I64, f, ctx, offset_of!(Ctx, coverage) as i32);
        let bytes = c.b.ins().load(I64, f, p, lane0 as i32);
        let bytes = c.b.ins().scalar_to_vector(I64X2, bytes);
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        let bytes = c.b.ins().bitcast(I8X16, le, bytes);
        let one = c.b.ins().iconst(I8, 1);
        let one = c.b.ins().splat(I8X16, one);
        let low = c.b.ins().band(bytes, one);
        let set = c.b.ins().icmp(IntCC::Equal, low, one);
        c.b.ins().vhigh_bits(I32, set)
    };
    let storing = c.b.ins().band(c.bits, cover);
    // Each lane writes back what its record held where it does not store: no branches, so
    // the conversions stay in one block rather than being repeated in each lane's branch.
    let f = MemFlagsData::trusted();
    for l in 0..8 {
        let bit = c.b.ins().band_imm_s(storing, 1 << l);
        let rec = c.b.ins().uload32(f, records, 4 * (lane0 + l) as i32);
        let at = c.b.ins().iadd(tile, rec);
        for (&(first, _, bytes), w) in pieces.iter().zip(&words) {
            let v = c.b.ins().extractlane(w[l / 4], (l % 4) as u8);
            let off = elems[first].0 as i32;
            let old = match bytes {
                1 => c.b.ins().uload8(I32, f, at, off),
                2 => c.b.ins().uload16(I32, f, at, off),
                _ => c.b.ins().load(I32, f, at, off),
            };
            let v = c.b.ins().select(bit, v, old);
            match bytes {
                1 => c.b.ins().istore8(f, v, at, off),
                2 => c.b.ins().istore16(f, v, at, off),
                _ => c.b.ins().store(f, v, at, off),
            };
        }
    }
}

/// The loads of every lane (the executor gave each live lane a record, and the others a
/// harmless one); the register writes keep only the active lanes.
fn load(
    c: &mut Chunk,
    x: &TileMem,
    elems: &[(u32, Reg)],
    pieces: &[(usize, usize, u32)],
    [tile, records]: [Value; 2],
    lane0: usize,
) {
    let size = x.format.bytes();
    // The records never change during a region; the tilebuffer does (stores may come before
    // or after in the same region), so its loads are not marked read-only.
    let f = MemFlagsData::trusted();
    let fixed = f.with_readonly();
    let zero = c.const32(0);
    let mut words: Vec<V32> = vec![zero; pieces.len()];
    for l in 0..8 {
        let rec = c.b.ins().uload32(fixed, records, 4 * (lane0 + l) as i32);
        let at = c.b.ins().iadd(tile, rec);
        for (&(first, _, bytes), w) in pieces.iter().zip(words.iter_mut()) {
            let off = elems[first].0 as i32;
            let v = match bytes {
                1 => c.b.ins().uload8(I32, f, at, off),
                2 => c.b.ins().uload16(I32, f, at, off),
                _ => c.b.ins().load(I32, f, at, off),
            };
            w[l / 4] = c.b.ins().insertlane(w[l / 4], v, (l % 4) as u8);
        }
    }
    for (&(first, n, _), w) in pieces.iter().zip(&words) {
        for j in 0..n {
            let shift = 8 * size * j as u32;
            let mut v = w.map(|h| ushrk(c, h, shift));
            if size < 4 {
                let mask = ((1u64 << (8 * size)) - 1) as i64;
                v = v.map(|h| andk(c, h, mask));
            }
            let r = elems[first + j].1;
            if let Some((bits, signed)) = norm_of(x.format) {
                v = norm_to_float(c, v, bits, signed);
            }
            match r.size {
                Size::S16 => {
                    // Values of at most 16 bits, or the low half of a 32-bit element (as
                    // the interpreter's 16-bit register write keeps it).
                    let v = v.map(|h| andk(c, h, 0xffff));
                    let row = c.b.ins().unarrow(v[0], v[1]);
                    c.write16(r.half, row);
                }
                _ => c.write32(r.half, v),
            }
        }
    }
}

fn splat_f(c: &mut Chunk, x: f32) -> Value {
    let k = c.b.ins().f32const(x);
    c.b.ins().splat(F32X4, k)
}

/// `texel::format::float_to_norm` of each lane's float bits: NaN to 0, clamped, scaled,
/// rounded half away from zero; a signed result's low `bits` bits.
fn float_to_norm(c: &mut Chunk, v: V32, bits: u32, signed: bool) -> V32 {
    let (lo, max) = if signed {
        (-1.0, ((1u64 << (bits - 1)) - 1) as f32)
    } else {
        (0.0, ((1u64 << bits) - 1) as f32)
    };
    v.map(|h| {
        let x = c.b.ins().bitcast(F32X4, MemFlagsData::new(), h);
        let nan = c.b.ins().fcmp(FloatCC::Unordered, x, x);
        let zero = splat_f(c, 0.0);
        let x = fselect(c, nan, zero, x);
        // NaN is gone: a compare and a blend per bound clamp as `f32::clamp` does.
        let lo = splat_f(c, lo);
        let one = splat_f(c, 1.0);
        let below = c.b.ins().fcmp(FloatCC::LessThan, x, lo);
        let x = fselect(c, below, lo, x);
        let above = c.b.ins().fcmp(FloatCC::GreaterThan, x, one);
        let x = fselect(c, above, one, x);
        let scale = splat_f(c, max);
        let x = c.b.ins().fmul(x, scale);
        // Truncated, then one step away from zero where the part cut off is at least half.
        let i = c.b.ins().fcvt_to_sint_sat(I32X4, x);
        let t = c.b.ins().fcvt_from_sint(F32X4, i);
        let d = c.b.ins().fsub(x, t);
        let half = splat_f(c, 0.5);
        let up = c.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
        let neg_half = splat_f(c, -0.5);
        let down = c.b.ins().fcmp(FloatCC::LessThanOrEqual, d, neg_half);
        // A set compare lane is -1.
        let i = c.b.ins().isub(i, up);
        let i = c.b.ins().iadd(i, down);
        if signed {
            andk(c, i, ((1u64 << bits) - 1) as i64)
        } else {
            i
        }
    })
}

/// `texel::format::norm_to_float` of each lane's integer: as float bits.
fn norm_to_float(c: &mut Chunk, v: V32, bits: u32, signed: bool) -> V32 {
    v.map(|h| {
        let (x, max) = if signed {
            let s = i64::from(32 - bits);
            let up = shlk(c, h, s);
            let x = sshrk(c, up, s);
            (x, ((1u64 << (bits - 1)) - 1) as f32)
        } else {
            (h, ((1u64 << bits) - 1) as f32)
        };
        let f = c.b.ins().fcvt_from_sint(F32X4, x);
        let max = splat_f(c, max);
        let mut f = c.b.ins().fdiv(f, max);
        if signed {
            // No NaN here: `f32::max(-1.0)` is a compare and a blend.
            let m1 = splat_f(c, -1.0);
            let below = c.b.ins().fcmp(FloatCC::LessThan, f, m1);
            f = fselect(c, below, m1, f);
        }
        c.b.ins().bitcast(I32X4, MemFlagsData::new(), f)
    })
}
