//! Background and end-of-tile programs for G13 (docs/render-abi.md section 2): selection in
//! `isel::tile`, then the usual allocation, waits and encoding.

use super::isel::{select_tile_program, TileOp, TileTargetOp};
use super::{compile_vprog, encode, Options};
use crate::CompileError;

pub(crate) use super::isel::{TileOp as Op, TileTargetOp as Target};

/// A compiled tile program: code, registers in halves, uniform halves read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compiled {
    pub code: Vec<u8>,
    pub gpr_halves: u32,
    pub uniform_halves: u32,
}

pub(crate) fn compile_tile_program(
    targets: &[TileTargetOp],
    samples: u32,
) -> Result<Compiled, CompileError> {
    if !matches!(samples, 1 | 2 | 4) {
        return Err(CompileError::Unsupported(format!(
            "{samples} samples per pixel in a tile program"
        )));
    }
    let uniform_halves = targets
        .iter()
        .filter_map(|t| match t.op {
            TileOp::Clear { uniform_half } | TileOp::ClearImage { uniform_half, .. } => {
                Some(u32::from(uniform_half) + 8)
            }
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let vprog = select_tile_program(targets, samples)?;
    let c = compile_vprog(&vprog, Options::default())?;
    if c.scratch_bytes != 0 {
        return Err(CompileError::Limit(
            "a tile program spilled registers".into(),
        ));
    }
    let encoded = encode::encode_program(&c.items)?;
    Ok(Compiled {
        code: encoded.code,
        gpr_halves: c.gpr_halves,
        uniform_halves,
    })
}
