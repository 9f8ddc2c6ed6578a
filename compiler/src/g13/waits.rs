//! Scoreboarding: device and stack memory instructions, device atomics and texture reads
//! complete asynchronously, each on one of two scoreboard slots; a `wait` on a slot blocks until every
//! message issued on it has completed. Threadgroup memory instructions have no slot and
//! complete in order, so they need no waits.
//!
//! Before an instruction reads or overwrites a register a pending load writes, the pass waits
//! on that load's slot. A slot holds at most [`MAX_PENDING`] messages (Mesa's limit), so an
//! instruction that would exceed it waits first. Barriers wait for everything outstanding
//! (stores included), and so does every control-flow point (labels, branches, exec-mask
//! changes), so nothing is in flight across a control-flow edge. `stop` needs no wait: the
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
            *slot = Slot::default();
        }
    }
}

fn busy(slots: &[Slot; SLOTS]) -> [bool; SLOTS] {
    std::array::from_fn(|s| slots[s].pending > 0)
}

pub(crate) fn insert_waits(items: &[Item]) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len() + items.len() / 4);
    let mut slots: [Slot; SLOTS] = Default::default();
    let mut last = 0usize;
    for &item in items {
        let Item::Op(mut instr) = item else {
            let all = busy(&slots);
            wait(&mut slots, all, &mut out);
            out.push(item);
            continue;
        };
        if is_fence(&instr) {
            let all = busy(&slots);
            wait(&mut slots, all, &mut out);
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
