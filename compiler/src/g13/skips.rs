//! `jmp_exec_none` only where it pays: the jump over an `if` arm (or to the end of an
//! `else` arm) saves the arm's time when no thread of the SIMD group runs it, and costs a
//! jump every time. Running an arm with no active thread is harmless: every instruction
//! writes only active threads' registers and memory, and the exec-mask instructions are
//! meant to run on inactive threads. So a jump over an arm cheaper than a jump is worth,
//! given how rarely a whole group skips, is dropped.
//!
//! The cost model is Mesa's (agx_opt_jmp_none): a jump costs as much as 19 ordinary
//! instructions, a device load 10, a texture operation 50, and a whole group skips an arm
//! about half the time, so a jump stays only over arms costing 38 or more.

use std::collections::HashMap;

use hw::isa::*;

use super::Item;

/// A jump's cost in ordinary instructions.
const JUMP_COST: u32 = 19;
/// One over the chance that no thread of a group runs an arm.
const INVERSE_SKIP_CHANCE: u32 = 2;

fn cost(i: &Item) -> u32 {
    match i {
        Item::Label(_) => 0,
        Item::Op(Instr::DeviceMem(m)) if !m.store => 10,
        Item::Op(Instr::Texture(_)) => 50,
        Item::Op(_) | Item::Jump { .. } => 1,
    }
}

/// Drops the `jmp_exec_none`s whose skipped code costs less than the jump is worth. A
/// `stop` in between keeps the jump: the threads the jump would skip past it must not stop.
pub(crate) fn drop_cheap_skips(items: &mut Vec<Item>) {
    let labels: HashMap<u32, usize> = items
        .iter()
        .enumerate()
        .filter_map(|(k, i)| match i {
            Item::Label(l) => Some((*l, k)),
            _ => None,
        })
        .collect();
    let mut drop = vec![false; items.len()];
    for (k, i) in items.iter().enumerate() {
        let Item::Jump {
            cond: JumpCond::None,
            target,
        } = i
        else {
            continue;
        };
        let Some(&end) = labels.get(target) else {
            continue;
        };
        if end <= k {
            continue;
        }
        let skipped = &items[k + 1..end];
        if skipped.contains(&Item::Op(Instr::Stop)) {
            continue;
        }
        let c: u32 = skipped.iter().map(cost).sum();
        drop[k] = c < JUMP_COST * INVERSE_SKIP_CHANCE;
    }
    let mut k = 0;
    items.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(n: u32) -> Item {
        Item::Op(Instr::MovImm(MovImm {
            dst: Reg {
                half: 2,
                size: Size::S32,
            }
            .into(),
            imm: n,
        }))
    }

    fn skip(target: u32) -> Item {
        Item::Jump {
            cond: JumpCond::None,
            target,
        }
    }

    #[test]
    fn short_arms_lose_their_jump_long_ones_and_stops_keep_it() {
        let mut short = vec![skip(0), op(1), op(2), Item::Label(0)];
        drop_cheap_skips(&mut short);
        assert_eq!(short, vec![op(1), op(2), Item::Label(0)]);

        let mut long = vec![skip(0)];
        long.extend((0..38).map(op));
        long.push(Item::Label(0));
        let before = long.clone();
        drop_cheap_skips(&mut long);
        assert_eq!(long, before);

        let mut stops = vec![skip(0), op(1), Item::Op(Instr::Stop), Item::Label(0)];
        let before = stops.clone();
        drop_cheap_skips(&mut stops);
        assert_eq!(stops, before);

        // Loops jump back when any thread is active: not a skip.
        let mut back = vec![
            Item::Label(0),
            op(1),
            Item::Jump {
                cond: JumpCond::Any,
                target: 0,
            },
        ];
        let before = back.clone();
        drop_cheap_skips(&mut back);
        assert_eq!(back, before);
    }
}
