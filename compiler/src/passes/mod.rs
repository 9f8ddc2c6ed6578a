//! Generation-neutral passes, one per file. `run_all` leaves the IR in the form the back ends
//! accept (documented on `run_all`).

use crate::{ir::Shader, CompileError, ResourceLayout};

pub fn run_all(_shader: &mut Shader, _layout: &ResourceLayout) -> Result<(), CompileError> {
    Err(CompileError::Unsupported("the IR passes are not written yet".into()))
}
