//! The G13 back end: instruction selection, register allocation, exec-mask lowering and
//! encoding through `hw`.

use crate::{ir::Shader, CompileError, ComputeBinary};

pub fn compile(_shader: &Shader) -> Result<ComputeBinary, CompileError> {
    Err(CompileError::Unsupported("the G13 back end is not written yet".into()))
}
