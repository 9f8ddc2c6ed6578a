//! Paired loads: two 32-bit device loads of one block, 4 bytes apart from the same base, are
//! one `device_load` of two elements (mask `xy`) into a 64-bit register whose halves are the
//! two results. Scalarized vectors and structures load this way in half the instructions.
//!
//! The pair is loaded where the lower one was: nothing between the two may write memory,
//! and the upper one's address is never needed (it is the next element).

use std::collections::HashMap;

use crate::ir::{has_side_effects, BinOp, ConvOp, Inst, Op, Scalar, Shader, Space, Value};
use crate::passes::for_each_inst;

/// What two addresses must share to be a constant apart: a 64-bit base and, where offsets
/// are in range, a 32-bit variable offset added to it.
pub(super) type Base = (Value, Option<Value>);

/// Addresses as a base plus a constant: from 64-bit `IAdd`s of widened constants, and where
/// offsets are in range (a 32-bit offset that wraps is out of range anyway) from 32-bit
/// `IAdd`s of a constant inside the widened offset.
pub(super) struct Addresses {
    sums: HashMap<Value, (Value, Value)>,
    widened: HashMap<Value, u64>,
    /// 32-bit values widened to 64 bits, by the widened value.
    widened_values: HashMap<Value, Value>,
    /// 32-bit `x + constant`, by the result.
    offsets: HashMap<Value, (Value, u64)>,
    root_loads: Vec<Value>,
    /// 64-bit `x << 32`: high address words, whose sum with a widened low word is an
    /// address made of words (the low word may wrap), not a base plus an offset.
    high_words: Vec<Value>,
    in_range: bool,
}

impl Addresses {
    pub(super) fn new(shader: &Shader) -> Addresses {
        let mut consts = HashMap::new();
        let mut a = Addresses {
            sums: HashMap::new(),
            widened: HashMap::new(),
            widened_values: HashMap::new(),
            offsets: HashMap::new(),
            root_loads: Vec::new(),
            high_words: Vec::new(),
            in_range: shader.offsets_in_range,
        };
        for_each_inst(&shader.body, &mut |i| {
            let Some(d) = i.dst else { return };
            match &i.op {
                Op::Const(c) if c.0.len() == 1 => {
                    consts.insert(d, c.0[0]);
                }
                Op::Conv(ConvOp::UToU, x) if shader.ty(d).scalar == Scalar::I64 => {
                    match consts.get(x) {
                        Some(&c) => {
                            a.widened.insert(d, c & 0xffff_ffff);
                        }
                        None if shader.ty(*x) == crate::ir::Type::I32 => {
                            a.widened_values.insert(d, *x);
                        }
                        None => {}
                    }
                }
                Op::Binary(BinOp::IAdd, x, y) if shader.ty(d).scalar == Scalar::I64 => {
                    a.sums.insert(d, (*x, *y));
                }
                Op::Binary(BinOp::Shl, ..) if shader.ty(d).scalar == Scalar::I64 => {
                    a.high_words.push(d);
                }
                Op::Binary(BinOp::IAdd, x, y) if shader.ty(d) == crate::ir::Type::I32 => {
                    if let Some(&c) = consts.get(y) {
                        a.offsets.insert(d, (*x, c & 0xffff_ffff));
                    } else if let Some(&c) = consts.get(x) {
                        a.offsets.insert(d, (*y, c & 0xffff_ffff));
                    }
                }
                Op::Load {
                    space: Space::Root, ..
                } => a.root_loads.push(d),
                _ => {}
            }
        });
        a
    }

    /// `addr` as its base and a constant byte offset.
    fn split(&self, mut addr: Value) -> (Base, u64) {
        let mut offset = 0u64;
        for _ in 0..16 {
            let Some(&(x, y)) = self.sums.get(&addr) else {
                break;
            };
            if let Some(&c) = self.widened.get(&y) {
                (addr, offset) = (x, offset.wrapping_add(c));
            } else if let Some(&c) = self.widened.get(&x) {
                (addr, offset) = (y, offset.wrapping_add(c));
            } else if self.in_range {
                for (base, w) in [(x, y), (y, x)] {
                    if self.high_words.contains(&base) {
                        continue;
                    }
                    let Some(&v) = self.widened_values.get(&w) else {
                        continue;
                    };
                    let (v, c) = self.offsets.get(&v).copied().unwrap_or((v, 0));
                    return ((base, Some(v)), offset.wrapping_add(c));
                }
                break;
            } else {
                break;
            }
        }
        ((addr, None), offset)
    }

    /// Whether the address is in descriptor set memory (a set's address from the root table
    /// plus a constant), which shaders only read.
    fn in_set_memory(&self, base: Base) -> bool {
        base.1.is_none() && self.root_loads.contains(&base.0)
    }
}

/// Four 32-bit loads of one stretch (between memory writes) at consecutive words: one
/// `device_load` of four elements into a 128-bit register, where the first of them was.
#[derive(Debug, Clone, Copy)]
pub(super) struct LoadQuad {
    /// The results, by address.
    pub words: [Value; 4],
    /// The lowest word's address.
    pub addr: Value,
}

/// The paired loads of a block, by the lower load's result (the upper load's result), and
/// the runs of four, by the result of the first of their loads in the block.
pub(super) fn find(
    shader: &Shader,
    addrs: &Addresses,
    insts: &[Inst],
) -> (HashMap<Value, Value>, HashMap<Value, LoadQuad>) {
    let mut pairs = HashMap::new();
    // Each pair's lower result, upper result, base, lower offset, lower address and stretch.
    let mut found: Vec<(Value, Value, Base, u64, Value, usize)> = Vec::new();
    let mut stretch = 0;
    let mut addr_of: HashMap<Value, Value> = HashMap::new();
    // Candidate lower loads since the last memory write, by (base, offset).
    let mut open: HashMap<(Base, u64), Value> = HashMap::new();
    let mut taken: Vec<Value> = Vec::new();
    for i in insts {
        match (&i.op, i.dst) {
            (
                Op::Load {
                    space: Space::Global,
                    addr,
                    ..
                },
                Some(d),
            ) if matches!(shader.ty(d).scalar, Scalar::I32 | Scalar::F32)
                && shader.ty(d).is_scalar() =>
            {
                let (base, offset) = addrs.split(*addr);
                // Descriptor words from set memory become uniform preloads instead.
                if addrs.in_set_memory(base) {
                    continue;
                }
                addr_of.insert(d, *addr);
                if let Some(lo) = offset
                    .checked_sub(4)
                    .and_then(|o| open.get(&(base, o)).copied())
                {
                    if !taken.contains(&lo) {
                        pairs.insert(lo, d);
                        taken.extend([lo, d]);
                        found.push((lo, d, base, offset - 4, addr_of[&lo], stretch));
                        continue;
                    }
                }
                open.insert((base, offset), d);
            }
            (Op::StoreVar(..), _) => {}
            (op, _) if has_side_effects(op) => {
                open.clear();
                stretch += 1;
            }
            _ => {}
        }
    }
    // Pairs 8 bytes apart in one stretch; `found` is in program order of the lower loads,
    // and a pair's lower load comes before its upper, so `p.0` is the run's first load.
    let mut quads = HashMap::new();
    let mut used = vec![false; found.len()];
    for a in 0..found.len() {
        for b in a + 1..found.len() {
            let (p, q) = (found[a], found[b]);
            if used[a] || used[b] || p.2 != q.2 || p.5 != q.5 {
                continue;
            }
            // The lower pair first: the run is loaded at the lower pair's first load, where
            // the address of the other pair's loads may not be computed yet.
            if q.3 != p.3.wrapping_add(8) {
                continue;
            }
            let (low, high) = (p, q);
            used[a] = true;
            used[b] = true;
            pairs.remove(&p.0);
            pairs.remove(&q.0);
            quads.insert(
                p.0,
                LoadQuad {
                    words: [low.0, low.1, high.0, high.1],
                    addr: low.4,
                },
            );
        }
    }
    (pairs, quads)
}

/// Two 32-bit stores of one block, 4 bytes apart from one base, with no memory access
/// between them: one `device_store` of two elements when instruction selection computes the
/// two values straight into the halves of one 64-bit register (`parts`).
#[derive(Debug, Clone, Copy)]
pub(super) struct StorePair {
    /// Positions of the two stores in the block.
    pub first: usize,
    pub second: usize,
    /// Each store's address and value, for storing them late on their own.
    pub first_addr: Value,
    pub first_value: Value,
    pub second_addr: Value,
    pub second_value: Value,
    /// The values at the lower and upper address, and the lower address.
    pub lo: Value,
    pub hi: Value,
    pub lo_addr: Value,
    /// The 64-bit register the values are computed into, once one is.
    pub vreg: Option<u16>,
    /// The lower address as base and constant, and the stretch of the block (between other
    /// memory accesses) the pair sits in: two pairs 8 bytes apart in one stretch are a run
    /// of four words.
    base: Base,
    lo_offset: u64,
    stretch: usize,
    /// How many global stores of the block come before the pair's second.
    ordinal: usize,
}

/// Two store pairs of one stretch, 8 bytes apart: one `device_store` of four elements from
/// a 128-bit register, by the pairs' indices (lower address first).
#[derive(Debug, Clone, Copy)]
pub(super) struct StoreQuad {
    pub pairs: [usize; 2],
    /// The position of the last of the four stores, where the quad is stored.
    pub last: usize,
    /// The 128-bit register's lower id, once values are computed into it.
    pub vreg: Option<u16>,
}

/// The runs of four words among a block's store pairs.
pub(super) fn find_quads(pairs: &[StorePair]) -> Vec<StoreQuad> {
    let mut quads = Vec::new();
    let mut taken = vec![false; pairs.len()];
    for a in 0..pairs.len() {
        for b in a + 1..pairs.len() {
            let (p, q) = (&pairs[a], &pairs[b]);
            // Four stores in a row: no other store may move across them.
            if taken[a]
                || taken[b]
                || p.stretch != q.stretch
                || p.base != q.base
                || q.ordinal != p.ordinal + 2
            {
                continue;
            }
            let order = if q.lo_offset == p.lo_offset.wrapping_add(8) {
                [a, b]
            } else if p.lo_offset == q.lo_offset.wrapping_add(8) {
                [b, a]
            } else {
                continue;
            };
            taken[a] = true;
            taken[b] = true;
            quads.push(StoreQuad {
                pairs: order,
                last: p.second.max(q.second),
                vreg: None,
            });
        }
    }
    quads
}

fn pure(op: &Op) -> bool {
    op.is_arithmetic()
        || matches!(
            op,
            Op::Const(_)
                | Op::Copy(_)
                | Op::LoadVar(_)
                | Op::StoreVar(..)
                | Op::SysVal(_)
                | Op::LoadPreamble { .. }
        )
}

/// The store pairs of a block.
pub(super) fn find_stores(shader: &Shader, addrs: &Addresses, insts: &[Inst]) -> Vec<StorePair> {
    let mut pairs: Vec<StorePair> = Vec::new();
    // Stores since the last other memory access: (base, offset) -> (position, addr, value).
    let mut open: HashMap<(Base, u64), (usize, Value, Value)> = HashMap::new();
    let mut stretch = 0;
    // The previous global store (its position) and how many came before it.
    let mut prev: Option<usize> = None;
    let mut ordinal = 0;
    for (k, i) in insts.iter().enumerate() {
        match &i.op {
            Op::Store {
                space: Space::Global,
                addr,
                value,
                ..
            } => {
                let t = shader.ty(*value);
                let (base, offset) = addrs.split(*addr);
                let word = t.is_scalar() && matches!(t.scalar, Scalar::I32 | Scalar::F32);
                let partner = [
                    (offset.wrapping_sub(4), true),
                    (offset.wrapping_add(4), false),
                ]
                .into_iter()
                .find_map(|(o, below)| open.get(&(base, o)).map(|&p| (p, below)))
                // The first store waits for the second, so no store may sit between them:
                // it could write the same memory through another base.
                .filter(|((first, ..), _)| Some(*first) == prev);
                prev = Some(k);
                ordinal += 1;
                match partner {
                    Some(((first, first_addr, first_value), below)) if word => {
                        let (lo, hi, lo_addr, lo_offset) = if below {
                            (first_value, *value, first_addr, offset.wrapping_sub(4))
                        } else {
                            (*value, first_value, *addr, offset)
                        };
                        pairs.push(StorePair {
                            first,
                            second: k,
                            first_addr,
                            first_value,
                            second_addr: *addr,
                            second_value: *value,
                            lo,
                            hi,
                            lo_addr,
                            vreg: None,
                            base,
                            lo_offset,
                            stretch,
                            ordinal: ordinal - 1,
                        });
                        // Each store pairs once; a later one starts afresh.
                        open.clear();
                    }
                    _ if word => {
                        open.insert((base, offset), (k, *addr, *value));
                    }
                    _ => {
                        open.clear();
                        stretch += 1;
                    }
                }
            }
            // Only arithmetic may sit between a pair: the first store waits for the second.
            // Reads of the root table and of descriptor set memory, which no shader writes,
            // are arithmetic here.
            op if pure(op) => {}
            Op::Load {
                space: Space::Root, ..
            } => {}
            Op::Load {
                space: Space::Global,
                addr,
                ..
            } if addrs.in_set_memory(addrs.split(*addr).0) => {}
            _ => {
                open.clear();
                stretch += 1;
            }
        }
    }
    // A value in two pairs, or in both halves of one, cannot be computed into both.
    let mut seen: HashMap<Value, usize> = HashMap::new();
    for p in &pairs {
        *seen.entry(p.lo).or_insert(0) += 1;
        *seen.entry(p.hi).or_insert(0) += 1;
    }
    pairs.retain(|p| seen[&p.lo] == 1 && seen[&p.hi] == 1);
    pairs
}

/// Runs of 8- or 16-bit device loads of one block: two to four of one type from one base at
/// consecutive elements, in order, with no memory write between. One `device_load` of that
/// format loads a run (mask `x` to `xyzw`), each element zero-extended into a 16-bit half of
/// one 64-bit register; vertex attributes of 8- and 16-bit components load this way. By the
/// first load's result: the run's results.
pub(super) fn small_runs(
    shader: &Shader,
    addrs: &Addresses,
    insts: &[Inst],
) -> HashMap<Value, Vec<Value>> {
    // The run being extended: its base, next offset, element bytes and results.
    let mut open: Option<(Base, u64, u64, Vec<Value>)> = None;
    let mut runs = HashMap::new();
    let mut close = |open: &mut Option<(Base, u64, u64, Vec<Value>)>| {
        if let Some((_, _, _, vals)) = open.take() {
            if vals.len() >= 2 {
                runs.insert(vals[0], vals);
            }
        }
    };
    for i in insts {
        match (&i.op, i.dst) {
            (
                Op::Load {
                    space: Space::Global,
                    addr,
                    ..
                },
                Some(d),
            ) if matches!(shader.ty(d).scalar, Scalar::I8 | Scalar::I16)
                && shader.ty(d).is_scalar() =>
            {
                let bytes = u64::from(shader.ty(d).scalar.bits() / 8);
                let (base, offset) = addrs.split(*addr);
                match &mut open {
                    Some((b, next, n, vals))
                        if *b == base && *next == offset && *n == bytes && vals.len() < 4 =>
                    {
                        vals.push(d);
                        *next += bytes;
                    }
                    _ => {
                        close(&mut open);
                        open = Some((base, offset + bytes, bytes, vec![d]));
                    }
                }
            }
            (Op::StoreVar(..), _) => {}
            (op, _) if has_side_effects(op) => close(&mut open),
            _ => {}
        }
    }
    close(&mut open);
    runs
}
