//! Paired loads: two 32-bit device loads of one block, 4 bytes apart from the same base, are
//! one `device_load` of two elements (mask `xy`) into a 64-bit register whose halves are the
//! two results. Scalarized vectors and structures load this way in half the instructions.
//!
//! The pair is loaded where the lower one was: nothing between the two may write memory,
//! and the upper one's address is never needed (it is the next element).

use std::collections::HashMap;

use crate::ir::{has_side_effects, BinOp, ConvOp, Inst, Op, Scalar, Shader, Space, Value};
use crate::passes::for_each_inst;

/// Addresses as base plus a constant: from every 64-bit `IAdd` of a widened constant.
pub(super) struct Addresses {
    sums: HashMap<Value, (Value, Value)>,
    widened: HashMap<Value, u64>,
    root_loads: Vec<Value>,
}

impl Addresses {
    pub(super) fn new(shader: &Shader) -> Addresses {
        let mut consts = HashMap::new();
        let mut a = Addresses {
            sums: HashMap::new(),
            widened: HashMap::new(),
            root_loads: Vec::new(),
        };
        for_each_inst(&shader.body, &mut |i| {
            let Some(d) = i.dst else { return };
            match &i.op {
                Op::Const(c) if c.0.len() == 1 => {
                    consts.insert(d, c.0[0]);
                }
                Op::Conv(ConvOp::UToU, x) if shader.ty(d).scalar == Scalar::I64 => {
                    if let Some(&c) = consts.get(x) {
                        a.widened.insert(d, c & 0xffff_ffff);
                    }
                }
                Op::Binary(BinOp::IAdd, x, y) if shader.ty(d).scalar == Scalar::I64 => {
                    a.sums.insert(d, (*x, *y));
                }
                Op::Load {
                    space: Space::Root, ..
                } => a.root_loads.push(d),
                _ => {}
            }
        });
        a
    }

    /// `addr` as (base, constant byte offset).
    fn split(&self, mut addr: Value) -> (Value, u64) {
        let mut offset = 0u64;
        for _ in 0..16 {
            let Some(&(x, y)) = self.sums.get(&addr) else {
                break;
            };
            if let Some(&c) = self.widened.get(&y) {
                (addr, offset) = (x, offset.wrapping_add(c));
            } else if let Some(&c) = self.widened.get(&x) {
                (addr, offset) = (y, offset.wrapping_add(c));
            } else {
                break;
            }
        }
        (addr, offset)
    }
}

/// The pairs of a block's loads, by the lower load's result: the upper load's result.
pub(super) fn find(shader: &Shader, addrs: &Addresses, insts: &[Inst]) -> HashMap<Value, Value> {
    let mut pairs = HashMap::new();
    // Candidate lower loads since the last memory write, by (base, offset).
    let mut open: HashMap<(Value, u64), Value> = HashMap::new();
    let mut taken: Vec<Value> = Vec::new();
    for i in insts {
        match (&i.op, i.dst) {
            (
                Op::Load {
                    space: Space::Global,
                    addr,
                    ..
                },
                Some(d),
            ) if matches!(shader.ty(d).scalar, Scalar::I32 | Scalar::F32)
                && shader.ty(d).is_scalar() =>
            {
                let (base, offset) = addrs.split(*addr);
                // Descriptor words from set memory become uniform preloads instead.
                if addrs.root_loads.contains(&base) {
                    continue;
                }
                if let Some(lo) = offset
                    .checked_sub(4)
                    .and_then(|o| open.get(&(base, o)).copied())
                {
                    if !taken.contains(&lo) {
                        pairs.insert(lo, d);
                        taken.extend([lo, d]);
                        continue;
                    }
                }
                open.insert((base, offset), d);
            }
            (Op::StoreVar(..), _) => {}
            (op, _) if has_side_effects(op) => open.clear(),
            _ => {}
        }
    }
    pairs
}
