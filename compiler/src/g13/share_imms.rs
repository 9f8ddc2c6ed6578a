//! Shares immediates between nearby instructions, after instruction selection: selection
//! materializes a constant where each use needs it (a scale per colour channel, a mask per
//! fetched attribute), so a straight run of code often loads the same value several times.
//! A `mov_imm` of a value an earlier one in the same run already holds, at the same width,
//! is dropped and its readers read the earlier register.
//!
//! A run ends at every label, branch and exec-mask change: an immediate written under a
//! narrower mask holds its value only in the lanes that were active, so it may serve only
//! code that runs under the same mask. Only single-definition virtual registers take part,
//! and an earlier register serves only within `WINDOW` items, so a shared constant never
//! lives long enough to crowd the register file.

use hw::isa::Instr;

use super::regs::visit;
use super::{Item, VProgram, NESTING_VREG};

/// Items after its definition within which an immediate's register is reused.
const WINDOW: usize = 48;

/// Whether `item` ends a straight run of code under one exec mask.
fn ends_run(item: &Item) -> bool {
    match item {
        Item::Label(_) | Item::Jump { .. } => true,
        Item::Op(i) => matches!(
            i,
            Instr::ExecCmp(_)
                | Instr::PopExec(_)
                | Instr::Jump(_)
                | Instr::Stop
                | Instr::SampleMask(_)
        ),
    }
}

pub(crate) fn share_immediates(p: &mut VProgram) {
    // The register of each dropped mov_imm, and the register that replaces it.
    let mut rename: Vec<Option<u16>> = vec![None; p.vregs.len()];
    // Immediates of the current run: (value, width, vreg, item index).
    let mut live: Vec<(u32, hw::isa::Size, u16, usize)> = Vec::new();
    let mut drop = vec![false; p.items.len()];
    for (at, item) in p.items.iter().enumerate() {
        if ends_run(item) {
            live.clear();
            continue;
        }
        let Item::Op(Instr::MovImm(m)) = item else {
            continue;
        };
        let r = m.dst.reg;
        let id = r.half / 4;
        let shareable = r.half % 4 == 0
            && id != NESTING_VREG
            && p.vregs.get(usize::from(id)).is_some_and(|v| {
                v.fixed.is_none() && !v.multi_def && v.size == r.size && v.wide == super::Wide::No
            });
        if !shareable {
            continue;
        }
        live.retain(|l| at - l.3 <= WINDOW);
        match live.iter().find(|l| l.0 == m.imm && l.1 == r.size) {
            Some(l) => {
                rename[usize::from(id)] = Some(l.2);
                drop[at] = true;
            }
            None => live.push((m.imm, r.size, id, at)),
        }
    }
    if !drop.contains(&true) {
        return;
    }
    let mut at = 0;
    p.items.retain(|_| {
        at += 1;
        !drop[at - 1]
    });
    for item in &mut p.items {
        if let Item::Op(i) = item {
            visit(i, &mut |r, _, _| {
                if let Some(Some(to)) = rename.get(usize::from(r.half / 4)) {
                    r.half = to * 4 + r.half % 4;
                }
            });
        }
    }
}
