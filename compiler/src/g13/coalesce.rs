//! Copy coalescing before register allocation: a copy `d = s` whose two values never need to
//! differ gets one virtual register for both, so the allocator gives them one physical
//! register and the copy becomes `r = r`, which is dropped after allocation.
//!
//! Two shapes matter, both from `Var` traffic: a load `t = v` where `v` is not written while
//! `t` is live (then `t` is `v`), and a store `v = t` where `t` was computed just before, at
//! the same exec level, while `v`'s old value was no longer read (then `t` is computed
//! straight into `v`). Live ranges are the allocator's (linear, grown over loops), so a
//! merge never extends a lifetime past what the allocator already accounts for.
//!
//! Items keep their positions; only register ids change, so the caller can pair every item
//! with the input item it came from.

use hw::isa::*;

use super::regalloc::live_ranges;
use super::regs::{touches_nesting, visit, Access};
use super::{Item, VregInfo, NESTING_VREG};

/// `d = s` as a whole-register copy between two different virtual registers of one size.
fn as_copy(item: &Item, vregs: &[VregInfo]) -> Option<(u16, u16)> {
    let Item::Op(Instr::IAdd(x)) = item else {
        return None;
    };
    let (Operand::Reg(s), Operand::Imm(0)) = (x.a.op, x.b.op) else {
        return None;
    };
    let d = x.dst.reg;
    if x.negate_b || x.shift != 0 || x.saturate || x.a.sign_extend || x.b.sign_extend {
        return None;
    }
    let (did, sid) = (d.half / 4, s.half / 4);
    let whole = |r: Reg, id: u16| {
        r.half.is_multiple_of(4) && vregs.get(id as usize).is_some_and(|v| v.size == r.size)
    };
    if did == sid || did == NESTING_VREG || sid == NESTING_VREG || d.size != s.size {
        return None;
    }
    // A preloaded register keeps its physical home only until it is copied out.
    let fixed = |id: u16| vregs.get(id as usize).is_some_and(|v| v.fixed.is_some());
    if fixed(did) || fixed(sid) {
        return None;
    }
    (whole(d, did) && whole(s, sid)).then_some((did, sid))
}

/// For every position, which virtual registers it reads and writes.
fn accesses(item: &Item) -> Vec<(u16, Access)> {
    let mut out = Vec::new();
    if let Item::Op(i) = item {
        let mut i = *i;
        visit(&mut i, &mut |r, a, _| out.push((r.half / 4, a)));
    }
    out
}

fn is_alu(item: &Item) -> bool {
    matches!(item, Item::Op(i) if !matches!(i,
        Instr::DeviceMem(_)
            | Instr::ThreadgroupMem(_)
            | Instr::StackMem(_)
            | Instr::Atomic(_)
            | Instr::ThreadgroupAtomic(_)))
}

fn changes_exec(item: &Item) -> bool {
    match item {
        Item::Op(i) => touches_nesting(i) || matches!(i, Instr::Stop),
        Item::Label(_) | Item::Jump { .. } => true,
    }
}

fn rename(items: &mut [Item], from: u16, to: u16) {
    for item in items.iter_mut() {
        if let Item::Op(i) = item {
            visit(i, &mut |r, _, _| {
                if r.half / 4 == from {
                    r.half = to * 4 + r.half % 4;
                }
            });
        }
    }
}

/// The items with coalesced registers renamed, and the register table to go with them.
pub(crate) fn coalesce(items: &[Item], vregs: &[VregInfo]) -> (Vec<Item>, Vec<VregInfo>) {
    let mut items = items.to_vec();
    let mut vregs = vregs.to_vec();
    let copies: Vec<usize> = (0..items.len())
        .filter(|&c| as_copy(&items[c], &vregs).is_some())
        .collect();
    for c in copies {
        // Earlier merges may have renamed this copy's registers.
        let Some((d, s)) = as_copy(&items[c], &vregs) else {
            continue;
        };
        let acc: Vec<Vec<(u16, Access)>> = items.iter().map(accesses).collect();
        let iv = live_ranges(&items, &vregs);
        let defs_of = |id: u16| -> Vec<usize> {
            (0..items.len())
                .filter(|&p| acc[p].contains(&(id, Access::Def)))
                .collect()
        };
        let defined_in = |id: u16, lo: usize, hi: usize| -> bool {
            // (lo, hi]
            defs_of(id).iter().any(|&p| p > lo && p <= hi)
        };
        let merged = if !vregs[d as usize].multi_def && defs_of(d) == [c] {
            // `d` is a second name for `s` as long as `s` keeps its value.
            let end = iv[d as usize].map_or(c, |x| x.end);
            (!defined_in(s, c, end)).then_some((d, s))
        } else {
            None
        };
        let merged = merged.or_else(|| {
            if vregs[s as usize].multi_def {
                return None;
            }
            let sdefs = defs_of(s);
            let first = *sdefs.first()?;
            if first >= c || sdefs.iter().any(|&p| p >= c) {
                return None;
            }
            if (first..=c).any(|p| changes_exec(&items[p])) {
                return None;
            }
            // `d`'s old value must be dead from `s`'s definition to the copy.
            let touched_between = (first + 1..c).any(|p| acc[p].iter().any(|&(id, _)| id == d));
            let at_first = acc[first].iter().any(|&(id, _)| id == d);
            if touched_between
                || (at_first && (sdefs.len() > 1 || !is_alu(&items[first])))
                || acc[first].contains(&(d, Access::Def))
            {
                return None;
            }
            // `s`'s later reads must still find its value in `d`.
            let end = iv[s as usize].map_or(c, |x| x.end);
            (!defined_in(d, c, end)).then_some((s, d))
        });
        if let Some((from, to)) = merged {
            rename(&mut items, from, to);
            let md = vregs[from as usize].multi_def || vregs[to as usize].multi_def;
            vregs[to as usize].multi_def = md;
        }
    }
    (items, vregs)
}

/// Whether `item` is a whole-register copy of a register onto itself, as coalescing leaves
/// copies after allocation.
pub(crate) fn is_self_copy(item: &Item) -> bool {
    let Item::Op(Instr::IAdd(x)) = item else {
        return false;
    };
    matches!(x.a.op, Operand::Reg(s) if s == x.dst.reg)
        && x.b.op == Operand::Imm(0)
        && !x.negate_b
        && x.shift == 0
        && !x.saturate
        && !x.a.sign_extend
}
