//! Layout and encoding: place every instruction, resolve branch labels to byte offsets
//! (relative to the branch's own address), and encode through `hw::g13`.

use std::collections::HashMap;

use hw::isa::*;

use super::Item;
use crate::CompileError;

#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub code: Vec<u8>,
    pub instructions: u32,
}

fn enc_err(i: &Instr, e: impl std::fmt::Display) -> CompileError {
    CompileError::Internal(format!("cannot encode {i:?}: {e}"))
}

/// The instruction an item stands for, with a placeholder offset for branches.
fn as_instr(item: &Item) -> Option<Instr> {
    match item {
        Item::Op(i) => Some(*i),
        Item::Label(_) => None,
        Item::Jump { cond, .. } => Some(Instr::Jump(Jump {
            cond: *cond,
            offset: 0,
        })),
    }
}

pub(crate) fn encode_program(items: &[Item]) -> Result<Encoded, CompileError> {
    // Pass 1: addresses. A jump's length does not depend on its offset.
    let mut addr = Vec::with_capacity(items.len());
    let mut labels = HashMap::new();
    let mut at = 0usize;
    for item in items {
        addr.push(at);
        if let Item::Label(l) = item {
            labels.insert(*l, at);
        }
        if let Some(i) = as_instr(item) {
            at += hw::g13::encoded_len(&i).map_err(|e| enc_err(&i, e))?;
        }
    }
    // Pass 2: bytes.
    let mut code = Vec::with_capacity(at);
    let mut instructions = 0;
    for (k, item) in items.iter().enumerate() {
        let instr = match item {
            Item::Label(_) => continue,
            Item::Op(i) => *i,
            Item::Jump { cond, target } => {
                let to = labels.get(target).ok_or_else(|| {
                    CompileError::Internal(format!("branch to unknown label {target}"))
                })?;
                let offset = i32::try_from(*to as i64 - addr[k] as i64)
                    .map_err(|_| CompileError::Limit("branch offset out of range".into()))?;
                Instr::Jump(Jump {
                    cond: *cond,
                    offset,
                })
            }
        };
        debug_assert_eq!(code.len(), addr[k]);
        hw::g13::encode(&instr, &mut code).map_err(|e| enc_err(&instr, e))?;
        instructions += 1;
    }
    Ok(Encoded { code, instructions })
}
