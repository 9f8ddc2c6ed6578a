//! Scoreboarding: device and stack memory instructions, device atomics and texture reads
//! complete asynchronously, each on one of two scoreboard slots; a `wait` on a slot blocks until every
//! message issued on it has completed. Threadgroup memory instructions have no slot and
//! complete in order, so they need no waits.
//!
//! Before an instruction reads or overwrites a register a pending load writes, the pass waits
//! on that load's slot. A slot holds at most [`MAX_PENDING`] messages (Mesa's limit), so an
//! instruction that would exceed it waits first. Barriers wait for everything outstanding
//! (stores included), and so do loop heads and back edges. Every other control-flow point
//! (forward labels and branches, exec-mask changes) waits for the slots whose loads write
//! registers, so no register is in flight across a control-flow edge. Stores may stay in
//! flight across one (they read their sources when issued), up to half a slot's limit: the
//! stores carried over an edge may still be pending on a path that skips a later wait, so
//! they stay counted after every wait (`Slot::carried`), and the count this one pass over the
//! program keeps is never less than what is pending on any path. `stop` needs no wait: the
//! messages complete without the thread (Mesa does not wait in the exit block either).

use hw::isa::*;

use super::regs::{set_wait_slot, visit, Access};
use super::Item;

/// Scoreboard slots.
const SLOTS: usize = 2;

/// Messages one slot may have outstanding.
const MAX_PENDING: u32 = 8;

#[derive(Default)]
struct Slot {
    /// Register ranges (first half, halves) that pending loads on this slot write.
    writes: Vec<(u16, u16)>,
    pending: u32,
    /// The most stores ever carried across a control-flow edge without a wait: a wait on
    /// one path does not complete them on another, so no wait counts below it.
    carried: u32,
}

/// Whether the instruction completes asynchronously on a scoreboard slot.
fn is_async(i: &Instr) -> bool {
    matches!(
        i,
        Instr::DeviceMem(_) | Instr::StackMem(_) | Instr::Atomic(_) | Instr::Texture(_)
    )
}

fn is_fence(i: &Instr) -> bool {
    matches!(
        i,
        Instr::ExecCmp(_)
            | Instr::PopExec(_)
            | Instr::Jump(_)
            | Instr::ThreadgroupBarrier
            | Instr::MemoryBarrier
    )
}

fn overlaps(a: (u16, u16), b: (u16, u16)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

fn wait(slots: &mut [Slot; SLOTS], which: [bool; SLOTS], out: &mut Vec<Item>) {
    for (s, slot) in slots.iter_mut().enumerate() {
        if which[s] {
            out.push(Item::Op(Instr::Wait(Wait { slot: s as u8 })));
            slot.writes.clear();
            slot.pending = slot.carried;
        }
    }
}

/// At a forward control-flow point: the slots to wait for (those whose loads write registers,
/// and those with too many stores to carry), the others' stores counted as carried.
fn at_edge(slots: &mut [Slot; SLOTS]) -> [bool; SLOTS] {
    std::array::from_fn(|s| {
        let slot = &mut slots[s];
        let wait = !slot.writes.is_empty() || slot.pending > MAX_PENDING / 2;
        if !wait {
            slot.carried = slot.carried.max(slot.pending);
        }
        wait && slot.pending > 0
    })
}

fn busy(slots: &[Slot; SLOTS]) -> [bool; SLOTS] {
    std::array::from_fn(|s| slots[s].pending > 0)
}

/// Labels some later jump goes back to: loop heads.
fn loop_heads(items: &[Item]) -> std::collections::HashSet<u32> {
    let mut seen = std::collections::HashSet::new();
    let mut heads = std::collections::HashSet::new();
    for item in items {
        match *item {
            Item::Label(l) => {
                seen.insert(l);
            }
            Item::Jump { target, .. } if seen.contains(&target) => {
                heads.insert(target);
            }
            _ => {}
        }
    }
    heads
}

pub(crate) fn insert_waits(items: &[Item]) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len() + items.len() / 4);
    let mut slots: [Slot; SLOTS] = Default::default();
    let mut last = 0usize;
    let heads = loop_heads(items);
    for &item in items {
        let Item::Op(mut instr) = item else {
            let looping = match item {
                Item::Label(l) => heads.contains(&l),
                Item::Jump { target, .. } => heads.contains(&target),
                Item::Op(_) => false,
            };
            let which = if looping {
                busy(&slots)
            } else {
                at_edge(&mut slots)
            };
            wait(&mut slots, which, &mut out);
            out.push(item);
            continue;
        };
        if is_fence(&instr) {
            let barrier = matches!(instr, Instr::ThreadgroupBarrier | Instr::MemoryBarrier);
            let which = if barrier {
                busy(&slots)
            } else {
                at_edge(&mut slots)
            };
            wait(&mut slots, which, &mut out);
            out.push(item);
            continue;
        }
        let mut touched = Vec::new();
        let mut defs = Vec::new();
        visit(&mut instr, &mut |r, access, width| {
            touched.push((r.half, width));
            if access == Access::Def {
                defs.push((r.half, width));
            }
        });
        let mut need: [bool; SLOTS] = std::array::from_fn(|s| {
            slots[s]
                .writes
                .iter()
                .any(|&w| touched.iter().any(|&t| overlaps(w, t)))
        });
        let slot = if is_async(&instr) {
            // A free slot if there is one, else the one not used last.
            let s = (0..SLOTS)
                .find(|&s| slots[s].pending == 0 && !need[s])
                .unwrap_or((last + 1) % SLOTS);
            if slots[s].pending >= MAX_PENDING {
                need[s] = true;
            }
            Some(s)
        } else {
            None
        };
        wait(&mut slots, need, &mut out);
        if let Some(s) = slot {
            set_wait_slot(&mut instr, s as u8);
            slots[s].writes.extend(defs);
            slots[s].pending += 1;
            last = s;
        }
        out.push(Item::Op(instr));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(store: bool, reg: u16) -> Item {
        Item::Op(Instr::DeviceMem(DeviceMem {
            store,
            reg: Reg::r32(reg),
            base: Operand::Uniform(Reg {
                half: 8,
                size: Size::S64,
            }),
            index: Index::Imm(0),
            index_unsigned: true,
            shift: 0,
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }))
    }

    fn pop() -> Item {
        Item::Op(Instr::PopExec(PopExec { n: 1 }))
    }

    fn waits_before(items: &[Item], at: usize) -> usize {
        let out = insert_waits(items);
        let target = items[at];
        let p = out.iter().position(|i| *i == target).expect("item kept");
        out[..p]
            .iter()
            .rev()
            .take_while(|i| matches!(i, Item::Op(Instr::Wait(_))))
            .count()
    }

    /// A store may stay in flight over an exec-mask change, a load may not.
    #[test]
    fn forward_edges_wait_for_loads_only() {
        assert_eq!(waits_before(&[mem(true, 2), pop()], 1), 0);
        assert_eq!(waits_before(&[mem(false, 2), pop()], 1), 1);
        assert_eq!(waits_before(&[mem(true, 2), Item::Label(1)], 1), 0);
    }

    /// Loop heads and back edges wait for stores too.
    #[test]
    fn loops_wait_for_everything() {
        let back = Item::Jump {
            cond: JumpCond::Any,
            target: 1,
        };
        let items = [Item::Label(1), mem(true, 2), back];
        assert_eq!(waits_before(&items, 2), 1);
        let items = [mem(true, 2), Item::Label(1), mem(true, 4), back];
        assert_eq!(waits_before(&items, 1), 1);
    }

    /// Stores carried over an edge still count after a later wait on their slot.
    #[test]
    fn carried_stores_count_after_waits() {
        let mut items = vec![mem(true, 2); 6];
        items.push(pop());
        // A load and a read of its result: a wait on its slot.
        items.push(mem(false, 10));
        items.push(Item::Op(Instr::IAdd(IAdd {
            dst: Reg::r32(12).into(),
            a: ISrc::new(Operand::Reg(Reg::r32(10))),
            b: ISrc::new(Operand::Imm(0)),
            negate_b: false,
            shift: 0,
            saturate: false,
        })));
        let before = items.len();
        items.extend(vec![mem(true, 2); 12]);
        let out = insert_waits(&items);
        let waits_after_read = out
            .iter()
            .skip_while(|i| !matches!(i, Item::Op(Instr::IAdd(_))))
            .filter(|i| matches!(i, Item::Op(Instr::Wait(_))))
            .count();
        // Six more stores per slot on top of three: each slot reaches the limit once. Were
        // the load's slot counted from zero after its wait, only the other one would.
        assert_eq!(
            waits_after_read, 2,
            "12 stores after {before} items, 3 carried per slot"
        );
    }
}
