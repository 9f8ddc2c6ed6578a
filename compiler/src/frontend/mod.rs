//! SPIR-V -> agx4 IR.

use crate::{ir, CompileError, ComputeRequest};

pub fn check_module(_words: &[u32]) -> Result<(), CompileError> {
    Err(CompileError::Unsupported("the SPIR-V front end is not written yet".into()))
}

pub fn translate(_req: &ComputeRequest<'_>) -> Result<ir::Shader, CompileError> {
    Err(CompileError::Unsupported("the SPIR-V front end is not written yet".into()))
}
