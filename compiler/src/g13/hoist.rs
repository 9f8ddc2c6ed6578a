//! Loop-invariant constants: a `mov_imm` into a temporary inside a loop runs on every
//! iteration; moved in front of the loop it runs once, at the price of a register held over
//! the whole loop. Constants are moved only while the loop's register pressure leaves room,
//! so under pressure they stay rematerialized where they are used.

use hw::isa::*;

use super::regalloc::live_ranges;
use super::regs::{visit, Access};
use super::{Item, VregInfo, NESTING_VREG};

/// Halves kept free of hoisted constants for alignment and the allocator's slack.
const MARGIN: u32 = 32;

fn loops(items: &[Item]) -> Vec<(u32, usize, usize)> {
    let mut at = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (p, item) in items.iter().enumerate() {
        match item {
            Item::Label(l) => {
                at.insert(*l, p);
            }
            Item::Jump { target, .. } => {
                if let Some(&h) = at.get(target) {
                    out.push((*target, h, p));
                }
            }
            Item::Op(_) => {}
        }
    }
    out
}

/// Moves constants out of loops, innermost loops first. `T` travels with each item.
pub(crate) fn hoist_constants<T: Copy>(work: &mut Vec<(Item, T)>, vregs: &[VregInfo], budget: u16) {
    let items: Vec<Item> = work.iter().map(|w| w.0).collect();
    let mut order = loops(&items);
    order.sort_by_key(|&(_, h, b)| b - h);
    let mut done = std::collections::HashSet::new();
    for (label, _, _) in order {
        if !done.insert(label) {
            continue;
        }
        let items: Vec<Item> = work.iter().map(|w| w.0).collect();
        // Positions move as constants leave loops; find this loop again.
        let Some(&(_, head, back)) = loops(&items).iter().find(|l| l.0 == label) else {
            continue;
        };
        let mut defs = vec![0u32; vregs.len()];
        for item in &items {
            if let Item::Op(i) = item {
                let mut i = *i;
                visit(&mut i, &mut |r, a, _| {
                    if a == Access::Def {
                        defs[(r.half / 4) as usize] += 1;
                    }
                });
            }
        }
        let iv = live_ranges(&items, vregs);
        let mut pressure = 0u32;
        for p in head..=back {
            let live: u32 = iv
                .iter()
                .enumerate()
                .filter(|(_, x)| x.is_some_and(|x| x.start <= p && x.end >= p))
                .map(|(id, _)| u32::from(vregs[id].placed_halves()))
                .sum();
            pressure = pressure.max(live);
        }
        let mut moved = Vec::new();
        for (p, item) in items.iter().enumerate().take(back).skip(head + 1) {
            let Item::Op(Instr::MovImm(m)) = *item else {
                continue;
            };
            let id = m.dst.reg.half / 4;
            let info = vregs[id as usize];
            let halves = u32::from(info.size.halves());
            if id == NESTING_VREG
                || info.multi_def
                || defs[id as usize] != 1
                || !m.dst.reg.half.is_multiple_of(4)
                || m.dst.reg.size != info.size
                || pressure + halves + MARGIN > u32::from(budget)
            {
                continue;
            }
            pressure += halves;
            moved.push(p);
        }
        if moved.is_empty() {
            continue;
        }
        let mut next = Vec::with_capacity(work.len());
        next.extend_from_slice(&work[..head]);
        next.extend(moved.iter().map(|&p| work[p]));
        next.extend(
            (head..work.len())
                .filter(|p| !moved.contains(p))
                .map(|p| work[p]),
        );
        *work = next;
    }
}
