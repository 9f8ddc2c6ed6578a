//! Removes instructions whose results nothing reads, after instruction selection: selection
//! emits each IR operation where it stands, and some results end up unused once an address
//! or a comparison has been folded into the instruction that needed it (an offset's shift
//! whose value the load indexes with directly, say).
//!
//! Only side-effect-free ALU instructions go, and only when every register they write is a
//! virtual register no instruction reads: not the nesting counter, not a fixed register (an
//! instruction may read a fixed run as a whole while naming only its first register), not a
//! register written again after a read.

use hw::isa::Instr;

use super::regs::{visit, Access};
use super::{Item, VProgram, NESTING_VREG};

fn pure(i: &Instr) -> bool {
    matches!(
        i,
        Instr::MovImm(_)
            | Instr::GetSr(_)
            | Instr::IAdd(_)
            | Instr::IMAdd(_)
            | Instr::Bitop(_)
            | Instr::Shift(_)
            | Instr::IUnary(_)
            | Instr::Convert(_)
            | Instr::FArith(_)
            | Instr::FUnary(_)
            | Instr::CmpSel(_)
    )
}

pub(crate) fn remove_dead_defs(p: &mut VProgram) {
    loop {
        let mut read = vec![false; p.vregs.len()];
        for item in &p.items {
            if let Item::Op(i) = item {
                let mut i = *i;
                // A read of several registers at once (a memory instruction's data) reads
                // every id it covers: the upper half of a 128-bit register has its own.
                visit(&mut i, &mut |r, access, width| {
                    if access == Access::Use {
                        for id in r.half / 4..=(r.half + width.max(1) - 1) / 4 {
                            if let Some(x) = read.get_mut(usize::from(id)) {
                                *x = true;
                            }
                        }
                    }
                });
            }
        }
        let removable = |id: u16| {
            id != NESTING_VREG
                && !read[usize::from(id)]
                && p.vregs
                    .get(usize::from(id))
                    .is_some_and(|v| v.fixed.is_none() && !v.multi_def)
        };
        let before = p.items.len();
        p.items.retain(|item| {
            let Item::Op(i) = item else {
                return true;
            };
            if !pure(i) {
                return true;
            }
            let mut i = *i;
            let mut dead = true;
            let mut defs = 0;
            visit(&mut i, &mut |r, access, _| {
                if access == Access::Def {
                    defs += 1;
                    dead &= removable(r.half / 4);
                }
            });
            !(dead && defs > 0)
        });
        if p.items.len() == before {
            return;
        }
    }
}
