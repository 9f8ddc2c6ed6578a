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
//! 32-bit values take an even half, 64-bit values a half divisible by four, and 128-bit
//! registers (two ids, [`Wide`]) eight halves from a half divisible by four, with one range
//! for both ids; `r0l` (half 0) is the exec nesting counter and is not handed out in
//! programs with control flow. When registers run out, the range with
//! the farthest end is spilled to the stack (after the IR's scratch area): every instruction
//! touching it gets a short-lived temporary, filled by `stack_load` before and written back
//! by `stack_store` after, and allocation runs again.
//!
//! Virtual register ids are scarce (`4 * id + part` must fit 16 bits), so spilling must not
//! spend one per rewritten instruction: temporaries of one size share a few ids, each id
//! with one live range per instruction it serves, and ids are renumbered densely every
//! round. Spilling then needs no more ids than it frees, and selection keeps a small reserve
//! ([`SPILL_RESERVE`]), so every program selection accepts can be allocated.

use hw::isa::*;

use super::regs::{visit, Access};
use super::{Item, VProgram, VregInfo, Wide, NESTING_VREG};
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
    pub reuse: bool,
}

/// Virtual register ids the `4 * id + part` numbering has room for.
pub(crate) const ID_SPACE: usize = (u16::MAX as usize) / 4 + 1;

/// Ids selection leaves for spill temporaries. Temporaries of one size share ids (see
/// [`insert_spill_code`]); an instruction touches at most a handful of registers of each
/// size, so twice that many per size always suffices with room to spare.
pub(crate) const SPILL_RESERVE: usize = 64;

pub(crate) fn allocate(prog: &VProgram, budget: u16) -> Result<Allocation, CompileError> {
    allocate_in(prog, budget, ID_SPACE)
}

/// [`allocate`] with `id_space` virtual register ids (tests shrink it to reach the limit with
/// small programs).
pub(crate) fn allocate_in(
    prog: &VProgram,
    budget: u16,
    id_space: usize,
) -> Result<Allocation, CompileError> {
    let budget = budget.min(GPR_HALVES);
    let (renamed, mut vregs) = super::coalesce::coalesce(&prog.items, &prog.vregs);
    let mut work: Vec<(Item, Tag)> = renamed
        .into_iter()
        .zip(&prog.items)
        .map(|(i, &orig)| (i, Tag::Input(orig)))
        .collect();
    super::hoist::hoist_constants(&mut work, &vregs, budget);
    // A 128-bit register spills whole, through its lower id.
    let mut spillable: Vec<bool> = vregs
        .iter()
        .map(|v| v.fixed.is_none() && v.wide != Wide::High)
        .collect();
    spillable[NESTING_VREG as usize] = false;
    let mut slot: Vec<Option<u32>> = vec![None; vregs.len()];
    let mut local = vec![false; vregs.len()];
    let mut stack_end = prog.scratch_base;

    // Every round either places every range or turns at least one spillable register into
    // non-spillable temporaries, so the rounds end.
    loop {
        // Ids that coalescing merged away and spilled registers that now live on the stack
        // are free again.
        compact(&mut work, &mut vregs, &mut spillable, &mut slot, &mut local);
        let items: Vec<Item> = work.iter().map(|w| w.0).collect();
        let ranges = ranges(&items, &vregs, &local);
        let hints = copy_hints(&items, &ranges, &vregs, &local);
        match linear_scan(&ranges, &hints, &vregs, &spillable, budget)? {
            Scan::Assigned(base) => {
                return Ok(finish(&work, &ranges, &base, &vregs, &local, stack_end));
            }
            Scan::Spill(spilled) => {
                for &s in &spilled {
                    if slot[s as usize].is_none() {
                        let bytes = u32::from(vregs[s as usize].placed_halves()) * 2;
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
                work = insert_spill_code(
                    &work,
                    &spilled,
                    &slot,
                    &mut Tables {
                        vregs: &mut vregs,
                        spillable: &mut spillable,
                        local: &mut local,
                    },
                    id_space,
                )?;
            }
        }
    }
}

/// Renumbers the virtual registers the work list still names densely from 0 (the nesting
/// counter keeps id 0), with their tables.
fn compact(
    work: &mut [(Item, Tag)],
    vregs: &mut Vec<VregInfo>,
    spillable: &mut Vec<bool>,
    slot: &mut Vec<Option<u32>>,
    local: &mut Vec<bool>,
) {
    let mut used = vec![false; vregs.len()];
    used[NESTING_VREG as usize] = true;
    for (item, _) in work.iter_mut() {
        if let Item::Op(i) = item {
            visit(i, &mut |r, _, _| used[usize::from(r.half / 4)] = true);
        }
    }
    // The two ids of a 128-bit register stay, and stay consecutive (renumbering keeps the
    // order).
    for id in 1..vregs.len() {
        if vregs[id].wide == Wide::High && (used[id] || used[id - 1]) {
            used[id] = true;
            used[id - 1] = true;
        }
    }
    if used.iter().all(|&u| u) {
        return;
    }
    let mut new_id = vec![u16::MAX; vregs.len()];
    for (next, (id, _)) in used.iter().enumerate().filter(|(_, &u)| u).enumerate() {
        new_id[id] = next as u16;
    }
    for (item, _) in work.iter_mut() {
        if let Item::Op(i) = item {
            visit(i, &mut |r, _, _| {
                let (id, part) = id_part(r);
                r.half = new_id[usize::from(id)] * 4 + part;
            });
        }
    }
    fn keep<T>(v: &mut Vec<T>, used: &[bool]) {
        let mut k = used.iter();
        v.retain(|_| *k.next().expect("one flag per id"));
    }
    keep(vregs, &used);
    keep(spillable, &used);
    keep(slot, &used);
    keep(local, &used);
}

fn id_part(r: &Reg) -> (u16, u16) {
    (r.half / 4, r.half % 4)
}

/// First and last position of every virtual register, grown over loops.
pub(crate) fn live_ranges(work: &[Item], vregs: &[VregInfo]) -> Vec<Option<Interval>> {
    let mut iv: Vec<Option<Interval>> = vec![None; vregs.len()];
    for (pos, item) in work.iter().enumerate() {
        if let Item::Op(i) = item {
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
    }
    // A 128-bit register's range covers both its ids, and belongs to the lower.
    for id in 1..vregs.len() {
        if vregs[id].wide == Wide::High {
            if let Some(hi) = iv[id].take() {
                iv[id - 1] = Some(match iv[id - 1] {
                    None => hi,
                    Some(lo) => Interval {
                        start: lo.start.min(hi.start),
                        end: lo.end.max(hi.end),
                        reuse: if lo.start <= hi.start {
                            lo.reuse
                        } else {
                            hi.reuse
                        },
                    },
                });
            }
        }
    }
    let loops = loops_of(work);
    for (id, e) in iv.iter_mut().enumerate() {
        if let Some(x) = e {
            grow(x, &vregs[id], &loops);
        }
    }
    iv
}

/// The loops of a program as (head, back edge) positions, inner loops first, so growth over
/// an inner loop is seen by the loops around it.
pub(crate) fn loops_of(work: &[Item]) -> Vec<(usize, usize)> {
    let mut label_pos = std::collections::HashMap::new();
    let mut loops = Vec::new();
    for (pos, item) in work.iter().enumerate() {
        match item {
            Item::Label(l) => {
                label_pos.insert(*l, pos);
            }
            Item::Jump { target, .. } => {
                if let Some(&head) = label_pos.get(target) {
                    loops.push((head, pos));
                }
            }
            Item::Op(_) => {}
        }
    }
    loops.sort_by_key(|&(h, e)| e - h);
    loops
}

/// Turns a register's first and last appearance into its live range: preloaded registers
/// hold their value from entry on, and ranges grow over the loops of [`loops_of`].
pub(crate) fn grow(x: &mut Interval, info: &VregInfo, loops: &[(usize, usize)]) {
    if info.fixed.is_some() {
        x.start = 0;
        x.reuse = false;
    }
    for &(head, back) in loops {
        if info.multi_def {
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

/// One live range to place: a whole virtual register, or one segment of a spill temporary.
#[derive(Debug, Clone, Copy)]
struct Range {
    id: u16,
    iv: Interval,
}

/// The live ranges of one allocation round. A spill temporary (`local`) is one id shared by
/// the short-lived registers of many rewritten instructions, so it has one range per
/// segment: each begins where the temporary is written without being read (a fill, or an
/// instruction that only writes it) and ends at its last touch before the next such write.
/// All its touches sit next to one instruction, with no label between, so loops never grow
/// them.
fn ranges(items: &[Item], vregs: &[VregInfo], local: &[bool]) -> Vec<Range> {
    let mut out: Vec<Range> = live_ranges(items, vregs)
        .into_iter()
        .enumerate()
        .filter(|&(id, _)| !local[id])
        .filter_map(|(id, iv)| iv.map(|iv| Range { id: id as u16, iv }))
        .collect();
    let mut open: Vec<Option<usize>> = vec![None; vregs.len()];
    let mut segments: Vec<Range> = Vec::new();
    for (pos, item) in items.iter().enumerate() {
        let Item::Op(i) = item else { continue };
        let alu = !is_memory(i);
        let mut touches: Vec<(u16, bool, bool)> = Vec::new();
        let mut i = *i;
        visit(&mut i, &mut |r, access, _| {
            let (id, _) = id_part(r);
            if !local[id as usize] {
                return;
            }
            // A 128-bit temporary's segments are its lower id's.
            let id = if vregs[id as usize].wide == Wide::High {
                id - 1
            } else {
                id
            };
            let k = match touches.iter().position(|t| t.0 == id) {
                Some(k) => k,
                None => {
                    touches.push((id, false, false));
                    touches.len() - 1
                }
            };
            match access {
                Access::Use => touches[k].1 = true,
                Access::Def => touches[k].2 = true,
            }
        });
        for (id, used, defined) in touches {
            let seg = &mut open[id as usize];
            match *seg {
                Some(k) if used || !defined => segments[k].iv.end = pos,
                _ => {
                    *seg = Some(segments.len());
                    segments.push(Range {
                        id,
                        iv: Interval {
                            start: pos,
                            end: pos,
                            reuse: alu && defined && !used,
                        },
                    });
                }
            }
        }
    }
    out.extend(segments);
    out
}

pub(crate) fn is_memory(i: &Instr) -> bool {
    matches!(
        i,
        Instr::DeviceMem(_)
            | Instr::ThreadgroupMem(_)
            | Instr::StackMem(_)
            | Instr::Atomic(_)
            | Instr::ThreadgroupAtomic(_)
            | Instr::UniformStore(_)
    )
}

/// A register's alignment in halves: its size, and 64 bits for a 128-bit register.
fn align_of(info: &VregInfo) -> u16 {
    info.placed_halves().min(4)
}

/// Outcome of one linear-scan round.
enum Scan {
    /// A base half for every range.
    Assigned(Vec<Option<u16>>),
    /// Registers to spill before trying again.
    Spill(Vec<u16>),
}

/// For each range that begins with a whole-register copy whose source's range ends there,
/// that source's range: taking its register makes the copy `r = r`, which `finish` drops.
/// (Coalescing merges most copies before allocation; this catches the ones it may not, such
/// as the copy of a preloaded register out of its fixed home.)
fn copy_hints(
    items: &[Item],
    ranges: &[Range],
    vregs: &[VregInfo],
    local: &[bool],
) -> Vec<Option<usize>> {
    let mut whole: Vec<Option<usize>> = vec![None; vregs.len()];
    for (r, range) in ranges.iter().enumerate() {
        if !local[range.id as usize] {
            whole[range.id as usize] = Some(r);
        }
    }
    let mut hints = vec![None; ranges.len()];
    for (pos, item) in items.iter().enumerate() {
        let Some((d, s)) = super::coalesce::as_copy(item, vregs) else {
            continue;
        };
        if let (Some(rd), Some(rs)) = (whole[d as usize], whole[s as usize]) {
            if ranges[rd].iv.start == pos
                && ranges[rs].iv.end == pos
                && vregs[d as usize].wide == Wide::No
            {
                hints[rd] = Some(rs);
            }
        }
    }
    hints
}

fn linear_scan(
    ranges: &[Range],
    hints: &[Option<usize>],
    vregs: &[VregInfo],
    spillable: &[bool],
    budget: u16,
) -> Result<Scan, CompileError> {
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&r| ranges[r].id != NESTING_VREG)
        .collect();
    // Preloaded registers first: nothing may take their halves before they are placed.
    order.sort_by_key(|&r| {
        let Range { id, iv } = ranges[r];
        (iv.start, vregs[id as usize].fixed.is_none(), id, r)
    });

    let mut free = vec![true; budget as usize];
    // r0l belongs to the nesting counter in programs with control flow (which all set it).
    if ranges.iter().any(|r| r.id == NESTING_VREG) {
        if let Some(f) = free.first_mut() {
            *f = false;
        }
    }
    // Indexed by range.
    let mut base: Vec<Option<u16>> = vec![None; ranges.len()];
    let mut active: Vec<usize> = Vec::new();
    let mut spilled: Vec<u16> = Vec::new();
    let halves_of = |r: usize| vregs[ranges[r].id as usize].placed_halves();

    let release = |free: &mut Vec<bool>, b: u16, halves: u16| {
        for h in b..b + halves {
            free[h as usize] = true;
        }
    };

    for cur_range in order {
        let Range { id, iv: cur } = ranges[cur_range];
        active.retain(|&a| {
            let x = ranges[a].iv;
            if x.end < cur.start || (cur.reuse && x.end == cur.start) {
                release(
                    &mut free,
                    base[a].expect("active has a register"),
                    halves_of(a),
                );
                false
            } else {
                true
            }
        });
        let info = &vregs[id as usize];
        let n = info.placed_halves();
        if let Some(b) = info.fixed {
            let halves = b..b + n;
            if b % align_of(info) != 0
                || b + n > budget
                || !halves.clone().all(|h| free[h as usize])
            {
                return Err(CompileError::Internal(format!(
                    "preloaded register at half {b} cannot be placed"
                )));
            }
            for h in halves {
                free[h as usize] = false;
            }
            base[cur_range] = Some(b);
            active.push(cur_range);
            continue;
        }
        if let Some(b) = hints[cur_range].and_then(|s| base[s]) {
            if cur.reuse
                && b % align_of(info) == 0
                && b + n <= budget
                && (b..b + n).all(|h| free[h as usize])
            {
                for h in b..b + n {
                    free[h as usize] = false;
                }
                base[cur_range] = Some(b);
                active.push(cur_range);
                continue;
            }
        }
        loop {
            let step = align_of(info);
            let found = (0..budget)
                .step_by(step as usize)
                .find(|&b| b + n <= budget && (b..b + n).all(|h| free[h as usize]));
            if let Some(b) = found {
                for h in b..b + n {
                    free[h as usize] = false;
                }
                base[cur_range] = Some(b);
                active.push(cur_range);
                break;
            }
            // Out of registers: spill whichever spillable range ends last. (Spill
            // temporaries are not spillable, so a spillable register is a whole range.)
            let victim = active
                .iter()
                .copied()
                .chain(std::iter::once(cur_range))
                .filter(|&r| spillable[ranges[r].id as usize])
                .max_by_key(|&r| (ranges[r].iv.end, ranges[r].id));
            match victim {
                None => {
                    return Err(CompileError::Limit(format!(
                        "{budget} register halves are too few for this shader"
                    )))
                }
                Some(r) if r == cur_range => {
                    spilled.push(id);
                    break;
                }
                Some(r) => {
                    active.retain(|&a| a != r);
                    release(&mut free, base[r].expect("active"), halves_of(r));
                    base[r] = None;
                    spilled.push(ranges[r].id);
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

/// A stack load or store of `halves` halves from register half `half` on.
fn stack_access(store: bool, half: u16, halves: u16, offset: u32) -> Instr {
    let (size, format, mask) = match halves {
        1 => (Size::S16, MemFormat::I16, 0b1),
        n => (Size::S32, MemFormat::I32, (1u8 << (n / 2)) - 1),
    };
    Instr::StackMem(StackMem {
        store,
        reg: Reg { half, size },
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

/// The per-id tables spill code adds temporaries to.
struct Tables<'a> {
    vregs: &'a mut Vec<VregInfo>,
    spillable: &'a mut Vec<bool>,
    local: &'a mut Vec<bool>,
}

/// Rewrites every instruction touching a spilled register to use a temporary, filled before
/// and stored after. Temporaries of one size share a few ids, since each lives only around
/// its instruction (see [`ranges`]): spilling therefore needs at most as many new ids as
/// one instruction touches registers, and it always fits in the id space a spill frees.
fn insert_spill_code(
    work: &[(Item, Tag)],
    spilled: &[u16],
    slot: &[Option<u32>],
    t: &mut Tables<'_>,
    id_space: usize,
) -> Result<Vec<(Item, Tag)>, CompileError> {
    let vregs = &mut *t.vregs;
    // A spilled register's id is free once all its touches are rewritten, and no other
    // temporary can take it at an instruction that touches it (those are `taken` below), so
    // it joins the temporaries at once.
    // A 128-bit register's upper id goes with its lower.
    let spilled: Vec<u16> = spilled
        .iter()
        .flat_map(|&s| {
            let wide = vregs[s as usize].wide == Wide::Low;
            std::iter::once(s).chain(wide.then_some(s + 1))
        })
        .collect();
    for &s in &spilled {
        t.local[s as usize] = true;
        t.spillable[s as usize] = false;
    }
    // Temporaries by their (lower) id: a 128-bit one is its pair of ids.
    let mut pool: Vec<u16> = (0..vregs.len() as u16)
        .filter(|&k| t.local[k as usize] && vregs[k as usize].wide != Wide::High)
        .collect();
    let mut is_spilled = vec![false; vregs.len()];
    for &s in &spilled {
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
            // The upper id of a 128-bit register is halves 4 to 7 of the lower (in the
            // input too: selection makes the two ids together, and nothing renames them).
            let (id, part, input) = if vregs[id as usize].wide == Wide::High {
                (id - 1, part + 4, input - 1)
            } else {
                (id, part, input)
            };
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
        // Temporaries this instruction already touches (from earlier rounds) stay apart.
        let mut taken: Vec<u16> = Vec::new();
        visit(&mut instr, &mut |r, _, _| taken.push(r.half / 4));
        let mut fresh = Vec::new();
        for &Touch { id, .. } in &touched {
            let size = vregs[id as usize].size;
            let wide = vregs[id as usize].wide;
            let ids = |k: u16| k..=k + u16::from(wide == Wide::Low);
            let reuse = pool.iter().copied().find(|&k| {
                let v = vregs[k as usize];
                v.size == size && v.wide == wide && !ids(k).any(|i| taken.contains(&i))
            });
            let temp = match reuse {
                Some(k) => k,
                None => {
                    let k = vregs.len() as u16;
                    if usize::from(*ids(k).end()) >= id_space {
                        return Err(CompileError::Limit(
                            "too many registers after spilling".into(),
                        ));
                    }
                    let parts: &[Wide] = match wide {
                        Wide::Low => &[Wide::Low, Wide::High],
                        _ => &[Wide::No],
                    };
                    for &part in parts {
                        vregs.push(VregInfo {
                            size,
                            multi_def: false,
                            fixed: None,
                            wide: part,
                        });
                        t.spillable.push(false);
                        t.local.push(true);
                    }
                    pool.push(k);
                    k
                }
            };
            taken.extend(ids(temp));
            fresh.push(temp);
        }
        for (k, &Touch { id, read, .. }) in touched.iter().enumerate() {
            if let Some(input) = read {
                let offset = slot[id as usize].expect("spilled registers have a slot");
                let halves = vregs[id as usize].placed_halves();
                out.push((
                    Item::Op(stack_access(false, fresh[k] * 4, halves, offset)),
                    Tag::Fill {
                        vreg: input,
                        offset,
                    },
                ));
            }
        }
        visit(&mut instr, &mut |r, _, _| {
            let (id, part) = id_part(r);
            let (id, part) = if is_spilled[id as usize] && vregs[id as usize].wide == Wide::High {
                (id - 1, part + 4)
            } else {
                (id, part)
            };
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
                out.push((
                    Item::Op(stack_access(true, fresh[k] * 4 + part, width, offset)),
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

fn finish(
    work: &[(Item, Tag)],
    ranges: &[Range],
    range_base: &[Option<u16>],
    vregs: &[VregInfo],
    local: &[bool],
    stack_end: u32,
) -> Allocation {
    // A whole register's base, and each temporary's segments (start, end, base) in order.
    let mut base: Vec<Option<u16>> = vec![None; local.len()];
    let mut segments: Vec<Vec<(usize, usize, u16)>> = vec![Vec::new(); local.len()];
    for (r, b) in ranges.iter().zip(range_base) {
        let Some(b) = *b else { continue };
        if local[r.id as usize] {
            segments[r.id as usize].push((r.iv.start, r.iv.end, b));
        } else {
            base[r.id as usize] = Some(b);
        }
    }
    for s in &mut segments {
        s.sort_unstable();
    }
    let mut items = Vec::with_capacity(work.len());
    let mut origins = Vec::with_capacity(work.len());
    let mut top = 0u32;
    let (mut spills, mut fills) = (0, 0);
    for (pos, &(item, tag)) in work.iter().enumerate() {
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
                // A 128-bit register's upper id sits 4 halves after its lower.
                let (id, part) = if vregs[id as usize].wide == Wide::High {
                    (id - 1, part + 4)
                } else {
                    (id, part)
                };
                let b = if id == NESTING_VREG {
                    0
                } else if local[id as usize] {
                    let segs = &segments[id as usize];
                    let k = segs.partition_point(|s| s.0 <= pos);
                    k.checked_sub(1)
                        .map(|k| segs[k])
                        .filter(|s| s.1 >= pos)
                        .map_or(0, |s| s.2)
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
