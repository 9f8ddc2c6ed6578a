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

use super::regalloc::{grow, is_memory, loops_of, Interval};
use super::regs::{touches_nesting, visit, Access};
use super::{Item, VregInfo, NESTING_VREG};

/// `d = s` as a whole-register copy between two virtual registers of one size (the ids as
/// the item names them; the caller maps them through earlier merges).
pub(super) fn as_copy(item: &Item, vregs: &[VregInfo]) -> Option<(u16, u16)> {
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
    if d.size != s.size {
        return None;
    }
    (whole(d, did) && whole(s, sid)).then_some((did, sid))
}

fn is_alu(item: &Item) -> bool {
    matches!(item, Item::Op(i) if !is_memory(i))
}

fn changes_exec(item: &Item) -> bool {
    match item {
        Item::Op(i) => touches_nesting(i) || matches!(i, Instr::Stop),
        Item::Label(_) | Item::Jump { .. } => true,
    }
}

/// Where each virtual register is touched, kept up to date as registers merge, so each
/// copy is judged without walking the whole program again.
struct Touches {
    /// Per id: (position, access), in program order with reads before writes at one
    /// position, as `visit` reports them.
    at: Vec<Vec<(usize, Access)>>,
    loops: Vec<(usize, usize)>,
    /// Instructions up to each position that change the exec mask (prefix counts).
    exec_changes: Vec<usize>,
    alu: Vec<bool>,
}

impl Touches {
    fn new(items: &[Item], n: usize) -> Touches {
        let mut at = vec![Vec::new(); n];
        let mut exec_changes = Vec::with_capacity(items.len() + 1);
        exec_changes.push(0);
        for (p, item) in items.iter().enumerate() {
            if let Item::Op(i) = item {
                let mut i = *i;
                visit(&mut i, &mut |r, a, _| {
                    at[usize::from(r.half / 4)].push((p, a))
                });
            }
            let last = *exec_changes.last().expect("starts with 0");
            exec_changes.push(last + usize::from(changes_exec(item)));
        }
        Touches {
            at,
            loops: loops_of(items),
            exec_changes,
            alu: items.iter().map(is_alu).collect(),
        }
    }

    fn defs(&self, id: u16) -> Vec<usize> {
        let mut d: Vec<usize> = self.at[id as usize]
            .iter()
            .filter(|t| t.1 == Access::Def)
            .map(|t| t.0)
            .collect();
        d.dedup();
        d
    }

    /// Whether `id` is written in (lo, hi].
    fn defined_in(&self, id: u16, lo: usize, hi: usize) -> bool {
        self.at[id as usize]
            .iter()
            .any(|&(p, a)| a == Access::Def && p > lo && p <= hi)
    }

    /// The allocator's live range of `id` (as `regalloc::live_ranges` computes it).
    fn interval(&self, id: u16, info: &VregInfo) -> Option<Interval> {
        let at = &self.at[id as usize];
        let &(first, access) = at.first()?;
        let mut x = Interval {
            start: first,
            end: at.last().expect("not empty").0,
            reuse: self.alu[first] && access == Access::Def,
        };
        grow(&mut x, info, &self.loops);
        Some(x)
    }

    fn exec_changes_in(&self, lo: usize, hi: usize) -> bool {
        self.exec_changes[hi + 1] > self.exec_changes[lo]
    }

    fn merge(&mut self, from: u16, to: u16) {
        let moved = std::mem::take(&mut self.at[from as usize]);
        let into = &mut self.at[to as usize];
        into.extend(moved);
        // Reads before writes at one position, as `visit` reports them.
        into.sort_by_key(|&(p, a)| (p, a == Access::Def));
    }
}

fn find(alias: &mut [u16], id: u16) -> u16 {
    let mut r = id;
    while alias[r as usize] != r {
        r = alias[r as usize];
    }
    alias[id as usize] = r;
    r
}

/// The items with coalesced registers renamed, and the register table to go with them.
pub(crate) fn coalesce(items: &[Item], vregs: &[VregInfo]) -> (Vec<Item>, Vec<VregInfo>) {
    let mut items = items.to_vec();
    let mut vregs = vregs.to_vec();
    let mut t = Touches::new(&items, vregs.len());
    let mut alias: Vec<u16> = (0..vregs.len() as u16).collect();
    // A preloaded register keeps its physical home only until it is copied out; the ids of
    // a 128-bit register must stay consecutive.
    let fixed = |vregs: &[VregInfo], id: u16| {
        vregs[id as usize].fixed.is_some() || vregs[id as usize].wide != super::Wide::No
    };
    for c in 0..items.len() {
        let Some((d, s)) = as_copy(&items[c], &vregs) else {
            continue;
        };
        // Earlier merges may have renamed this copy's registers.
        let (d, s) = (find(&mut alias, d), find(&mut alias, s));
        if d == s || d == NESTING_VREG || s == NESTING_VREG || fixed(&vregs, d) || fixed(&vregs, s)
        {
            continue;
        }
        let merged = if !vregs[d as usize].multi_def && t.defs(d) == [c] {
            // `d` is a second name for `s` as long as `s` keeps its value.
            let end = t.interval(d, &vregs[d as usize]).map_or(c, |x| x.end);
            (!t.defined_in(s, c, end)).then_some((d, s))
        } else {
            None
        };
        let merged = merged.or_else(|| {
            if vregs[s as usize].multi_def {
                return None;
            }
            let sdefs = t.defs(s);
            let first = *sdefs.first()?;
            if first >= c || sdefs.iter().any(|&p| p >= c) {
                return None;
            }
            if t.exec_changes_in(first, c) {
                return None;
            }
            // `d`'s old value must be dead from `s`'s definition to the copy.
            let dat = &t.at[d as usize];
            let touched_between = dat.iter().any(|&(p, _)| p > first && p < c);
            let at_first = dat.iter().any(|&(p, _)| p == first);
            let def_at_first = dat.contains(&(first, Access::Def));
            if touched_between
                || (at_first && (sdefs.len() > 1 || !is_alu(&items[first])))
                || def_at_first
            {
                return None;
            }
            // `s`'s later reads must still find its value in `d`.
            let end = t.interval(s, &vregs[s as usize]).map_or(c, |x| x.end);
            (!t.defined_in(d, c, end)).then_some((s, d))
        });
        if let Some((from, to)) = merged {
            alias[from as usize] = to;
            t.merge(from, to);
            let md = vregs[from as usize].multi_def || vregs[to as usize].multi_def;
            vregs[to as usize].multi_def = md;
        }
    }
    for item in items.iter_mut() {
        if let Item::Op(i) = item {
            visit(i, &mut |r, _, _| {
                let to = find(&mut alias, r.half / 4);
                r.half = to * 4 + r.half % 4;
            });
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
