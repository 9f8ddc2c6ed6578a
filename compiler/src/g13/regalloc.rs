//! Register allocation over 16-bit halves: linear scan over the linearized structured program.
//!
//! A virtual register's live range runs from its first to its last appearance in program
//! order, then grows over loops: a value defined before a loop and read inside it must
//! survive the whole loop (the back edge reads it again), and a register written more than
//! once (a `Var`) is kept over every loop it appears in. Both arms of an `if` run one after
//! the other under different exec masks, so program order is also the order of effects: a
//! range that spans an `if` keeps its register through both arms, as it must.
//!
//! Fixed registers (`VregInfo::fixed`: what the launch preloads, and the register runs of the
//! tile programs) are live from entry, placed before anything else at their physical halves
//! and never spilled or coalesced.
//!
//! 32-bit values take an even half, 64-bit values a half divisible by four; `r0l` (half 0) is
//! the exec nesting counter and is not handed out in programs with control flow. When registers run out, the range with
//! the farthest end is spilled to the stack (after the IR's scratch area): every instruction
//! touching it gets a fresh short-lived register, filled by `stack_load` before and written
//! back by `stack_store` after, and allocation runs again.

use hw::isa::*;

use super::regs::{visit, Access};
use super::{vreg, Item, VProgram, VregInfo, NESTING_VREG};
use crate::CompileError;

/// Why an item of the allocated program is there: the verifier in the tests checks the
/// allocation against it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Origin {
    /// An item of the input, with its virtual registers.
    Input(Item),
    /// A spill store of virtual register `vreg` (an input id), from its half `part` on, at
    /// stack byte `offset` (which already includes the part).
    Spill { vreg: u16, part: u16, offset: u32 },
    /// A fill of virtual register `vreg` from stack byte `offset`.
    Fill { vreg: u16, offset: u32 },
}

#[derive(Debug, Clone)]
pub(crate) struct Allocation {
    pub items: Vec<Item>,
    /// Parallel to `items`; read by the allocation verifier in the tests.
    #[cfg_attr(not(test), allow(dead_code))]
    pub origins: Vec<Origin>,
    pub gpr_halves: u32,
    pub scratch_bytes: u32,
    pub spills: u32,
    pub fills: u32,
}

#[derive(Debug, Clone, Copy)]
enum Tag {
    /// An input item, before coalescing renamed its registers.
    Input(Item),
    Spill {
        vreg: u16,
        part: u16,
        offset: u32,
    },
    Fill {
        vreg: u16,
        offset: u32,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Interval {
    pub start: usize,
    pub end: usize,
    /// The range begins with a plain write by an ALU instruction, which reads its sources
    /// before writing: it may take the register of a source whose range ends there.
    reuse: bool,
}

const MAX_ROUNDS: usize = 64;

pub(crate) fn allocate(prog: &VProgram, budget: u16) -> Result<Allocation, CompileError> {
    let budget = budget.min(GPR_HALVES);
    let (renamed, mut vregs) = super::coalesce::coalesce(&prog.items, &prog.vregs);
    let mut work: Vec<(Item, Tag)> = renamed
        .into_iter()
        .zip(&prog.items)
        .map(|(i, &orig)| (i, Tag::Input(orig)))
        .collect();
    super::hoist::hoist_constants(&mut work, &vregs, budget);
    let mut spillable: Vec<bool> = vregs.iter().map(|v| v.fixed.is_none()).collect();
    spillable[NESTING_VREG as usize] = false;
    let mut slot: Vec<Option<u32>> = vec![None; vregs.len()];
    let mut stack_end = prog.scratch_base;

    for _ in 0..MAX_ROUNDS {
        let items: Vec<Item> = work.iter().map(|w| w.0).collect();
        let intervals = live_ranges(&items, &vregs);
        match linear_scan(&intervals, &vregs, &spillable, budget)? {
            Scan::Assigned(base) => {
                return Ok(finish(&work, &base, stack_end));
            }
            Scan::Spill(spilled) => {
                for &s in &spilled {
                    if slot[s as usize].is_none() {
                        let bytes = u32::from(vregs[s as usize].size.halves()) * 2;
                        stack_end = stack_end.div_ceil(bytes) * bytes;
                        slot[s as usize] = Some(stack_end);
                        stack_end += bytes;
                    }
                }
                if stack_end > i16::MAX as u32 {
                    return Err(CompileError::Limit(
                        "spill area exceeds the stack offset range".into(),
                    ));
                }
                work = insert_spill_code(&work, &spilled, &slot, &mut vregs, &mut spillable)?;
            }
        }
    }
    Err(CompileError::Limit(
        "register allocation did not converge".into(),
    ))
}

fn id_part(r: &Reg) -> (u16, u16) {
    (r.half / 4, r.half % 4)
}

/// First and last position of every virtual register, grown over loops.
pub(crate) fn live_ranges(work: &[Item], vregs: &[VregInfo]) -> Vec<Option<Interval>> {
    let mut iv: Vec<Option<Interval>> = vec![None; vregs.len()];
    let mut label_pos = std::collections::HashMap::new();
    let mut loops = Vec::new();
    for (pos, item) in work.iter().enumerate() {
        match item {
            Item::Op(i) => {
                let alu = !is_memory(i);
                let mut i = *i;
                visit(&mut i, &mut |r, access, _| {
                    let (id, _) = id_part(r);
                    let e = &mut iv[id as usize];
                    *e = Some(match *e {
                        None => Interval {
                            start: pos,
                            end: pos,
                            reuse: alu && access == Access::Def,
                        },
                        Some(x) => Interval {
                            end: x.end.max(pos),
                            ..x
                        },
                    });
                });
            }
            Item::Label(l) => {
                label_pos.insert(*l, pos);
            }
            Item::Jump { target, .. } => {
                if let Some(&head) = label_pos.get(target) {
                    loops.push((head, pos));
                }
            }
        }
    }
    // Preloaded registers hold their value from entry on.
    for (id, e) in iv.iter_mut().enumerate() {
        if let (Some(x), Some(_)) = (e.as_mut(), vregs[id].fixed) {
            x.start = 0;
            x.reuse = false;
        }
    }
    // Inner loops first, so growth over an inner loop is seen by the loops around it.
    loops.sort_by_key(|&(h, e)| e - h);
    for &(head, back) in &loops {
        for (id, e) in iv.iter_mut().enumerate() {
            let Some(x) = e else { continue };
            if vregs[id].multi_def {
                if x.start <= back && x.end >= head {
                    if head < x.start {
                        x.start = head;
                        x.reuse = false;
                    }
                    x.end = x.end.max(back);
                }
            } else if x.start < head && x.end >= head && x.end < back {
                x.end = back;
            }
        }
    }
    iv
}

fn is_memory(i: &Instr) -> bool {
    matches!(
        i,
        Instr::DeviceMem(_)
            | Instr::ThreadgroupMem(_)
            | Instr::StackMem(_)
            | Instr::Atomic(_)
            | Instr::ThreadgroupAtomic(_)
    )
}

fn align_of(size: Size) -> u16 {
    size.halves()
}

/// Outcome of one linear-scan round.
enum Scan {
    /// A base half for every live virtual register.
    Assigned(Vec<Option<u16>>),
    /// Registers to spill before trying again.
    Spill(Vec<u16>),
}

fn linear_scan(
    iv: &[Option<Interval>],
    vregs: &[VregInfo],
    spillable: &[bool],
    budget: u16,
) -> Result<Scan, CompileError> {
    let mut order: Vec<u16> = (0..iv.len() as u16)
        .filter(|&id| id != NESTING_VREG && iv[id as usize].is_some())
        .collect();
    // Preloaded registers first: nothing may take their halves before they are placed.
    order.sort_by_key(|&id| {
        (
            iv[id as usize].map(|x| x.start),
            vregs[id as usize].fixed.is_none(),
            id,
        )
    });

    let mut free = vec![true; budget as usize];
    // r0l belongs to the nesting counter in programs with control flow (which all set it).
    if iv[NESTING_VREG as usize].is_some() {
        if let Some(f) = free.first_mut() {
            *f = false;
        }
    }
    let mut base: Vec<Option<u16>> = vec![None; iv.len()];
    let mut active: Vec<u16> = Vec::new();
    let mut spilled: Vec<u16> = Vec::new();

    let release = |free: &mut Vec<bool>, b: u16, size: Size| {
        for h in b..b + size.halves() {
            free[h as usize] = true;
        }
    };

    for id in order {
        let cur = iv[id as usize].expect("filtered");
        active.retain(|&a| {
            let x = iv[a as usize].expect("active has a range");
            if x.end < cur.start || (cur.reuse && x.end == cur.start) {
                release(
                    &mut free,
                    base[a as usize].expect("active has a register"),
                    vregs[a as usize].size,
                );
                false
            } else {
                true
            }
        });
        let size = vregs[id as usize].size;
        if let Some(b) = vregs[id as usize].fixed {
            let halves = b..b + size.halves();
            if b % align_of(size) != 0
                || b + size.halves() > budget
                || !halves.clone().all(|h| free[h as usize])
            {
                return Err(CompileError::Internal(format!(
                    "preloaded register at half {b} cannot be placed"
                )));
            }
            for h in halves {
                free[h as usize] = false;
            }
            base[id as usize] = Some(b);
            active.push(id);
            continue;
        }
        loop {
            let step = align_of(size);
            let found = (0..budget).step_by(step as usize).find(|&b| {
                b + size.halves() <= budget && (b..b + size.halves()).all(|h| free[h as usize])
            });
            if let Some(b) = found {
                for h in b..b + size.halves() {
                    free[h as usize] = false;
                }
                base[id as usize] = Some(b);
                active.push(id);
                break;
            }
            // Out of registers: spill whichever spillable range ends last.
            let victim = active
                .iter()
                .copied()
                .chain(std::iter::once(id))
                .filter(|&v| spillable[v as usize])
                .max_by_key(|&v| (iv[v as usize].expect("live").end, v));
            match victim {
                None => {
                    return Err(CompileError::Limit(format!(
                        "{budget} register halves are too few for this shader"
                    )))
                }
                Some(v) if v == id => {
                    spilled.push(id);
                    break;
                }
                Some(v) => {
                    active.retain(|&a| a != v);
                    release(
                        &mut free,
                        base[v as usize].expect("active"),
                        vregs[v as usize].size,
                    );
                    base[v as usize] = None;
                    spilled.push(v);
                }
            }
        }
    }
    if spilled.is_empty() {
        Ok(Scan::Assigned(base))
    } else {
        Ok(Scan::Spill(spilled))
    }
}

fn stack_access(store: bool, r: Reg, offset: u32) -> Instr {
    let (reg, format, mask) = match r.size {
        Size::S16 => (r, MemFormat::I16, 0b1),
        Size::S32 => (r, MemFormat::I32, 0b1),
        Size::S64 => (
            Reg {
                half: r.half,
                size: Size::S32,
            },
            MemFormat::I32,
            0b11,
        ),
    };
    Instr::StackMem(StackMem {
        store,
        reg,
        offset: Index::Imm(offset as i16),
        format,
        mask,
        wait_slot: 0,
    })
}

/// How one instruction touches one spilled register.
#[derive(Debug, Clone, Copy)]
struct Touch {
    id: u16,
    /// The input register (before coalescing) first read and the one written.
    read: Option<u16>,
    written_input: u16,
    /// First half and width written.
    written: Option<(u16, u16)>,
}

fn insert_spill_code(
    work: &[(Item, Tag)],
    spilled: &[u16],
    slot: &[Option<u32>],
    vregs: &mut Vec<VregInfo>,
    spillable: &mut Vec<bool>,
) -> Result<Vec<(Item, Tag)>, CompileError> {
    let mut is_spilled = vec![false; vregs.len()];
    for &s in spilled {
        is_spilled[s as usize] = true;
    }
    let mut out = Vec::with_capacity(work.len() * 2);
    for &(item, tag) in work {
        let Item::Op(mut instr) = item else {
            out.push((item, tag));
            continue;
        };
        // Which spilled registers this instruction touches: (id, read, written part and
        // width). A partial write stores just that part back, so it needs no fill.
        let mut touched: Vec<Touch> = Vec::new();
        let mut input_ids = Vec::new();
        if let Tag::Input(Item::Op(mut orig)) = tag {
            visit(&mut orig, &mut |r, _, _| input_ids.push(r.half / 4));
        }
        let mut operand = 0;
        visit(&mut instr, &mut |r, access, width| {
            let (id, part) = id_part(r);
            let input = input_ids.get(operand).copied().unwrap_or(id);
            operand += 1;
            if !is_spilled[id as usize] {
                return;
            }
            let t = match touched.iter().position(|t| t.id == id) {
                Some(k) => &mut touched[k],
                None => {
                    touched.push(Touch {
                        id,
                        read: None,
                        written_input: input,
                        written: None,
                    });
                    touched.last_mut().expect("just pushed")
                }
            };
            match access {
                Access::Use => {
                    t.read.get_or_insert(input);
                }
                Access::Def => {
                    t.written = Some((part, width));
                    t.written_input = input;
                }
            }
        });
        if touched.is_empty() {
            out.push((item, tag));
            continue;
        }
        let mut fresh = Vec::new();
        for &Touch { id, .. } in &touched {
            if vregs.len() >= (u16::MAX as usize) / 4 {
                return Err(CompileError::Limit(
                    "too many registers after spilling".into(),
                ));
            }
            vregs.push(VregInfo {
                size: vregs[id as usize].size,
                multi_def: false,
                fixed: None,
            });
            spillable.push(false);
            fresh.push(vregs.len() as u16 - 1);
        }
        for (k, &Touch { id, read, .. }) in touched.iter().enumerate() {
            if let Some(input) = read {
                let offset = slot[id as usize].expect("spilled registers have a slot");
                let size = vregs[id as usize].size;
                out.push((
                    Item::Op(stack_access(false, vreg(fresh[k], 0, size), offset)),
                    Tag::Fill {
                        vreg: input,
                        offset,
                    },
                ));
            }
        }
        visit(&mut instr, &mut |r, _, _| {
            let (id, part) = id_part(r);
            if let Some(k) = touched.iter().position(|t| t.id == id) {
                r.half = fresh[k] * 4 + part;
            }
        });
        out.push((Item::Op(instr), tag));
        for (
            k,
            &Touch {
                id,
                written,
                written_input,
                ..
            },
        ) in touched.iter().enumerate()
        {
            if let Some((part, width)) = written {
                let offset =
                    slot[id as usize].expect("spilled registers have a slot") + u32::from(part) * 2;
                let size = match width {
                    1 => Size::S16,
                    2 => Size::S32,
                    _ => Size::S64,
                };
                out.push((
                    Item::Op(stack_access(true, vreg(fresh[k], part, size), offset)),
                    Tag::Spill {
                        vreg: written_input,
                        part,
                        offset,
                    },
                ));
            }
        }
    }
    Ok(out)
}

fn finish(work: &[(Item, Tag)], base: &[Option<u16>], stack_end: u32) -> Allocation {
    let mut items = Vec::with_capacity(work.len());
    let mut origins = Vec::with_capacity(work.len());
    let mut top = 0u32;
    let (mut spills, mut fills) = (0, 0);
    for &(item, tag) in work {
        let origin = match tag {
            Tag::Input(orig) => Origin::Input(orig),
            Tag::Spill { vreg, part, offset } => {
                spills += 1;
                Origin::Spill { vreg, part, offset }
            }
            Tag::Fill { vreg, offset } => {
                fills += 1;
                Origin::Fill { vreg, offset }
            }
        };
        let mut p = item;
        if let Item::Op(i) = &mut p {
            if super::regs::touches_nesting(i) {
                top = top.max(1);
            }
            visit(i, &mut |r, _, width| {
                let (id, part) = id_part(r);
                let b = if id == NESTING_VREG {
                    0
                } else {
                    base[id as usize].unwrap_or(0)
                };
                r.half = b + part;
                top = top.max(u32::from(r.half) + u32::from(width));
            });
        }
        items.push(p);
        origins.push(origin);
    }
    Allocation {
        items,
        origins,
        gpr_halves: top,
        scratch_bytes: stack_end,
        spills,
        fills,
    }
}
