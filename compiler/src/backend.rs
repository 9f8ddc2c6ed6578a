//! The interface a generation's back end implements: generation-neutral IR in, that
//! generation's machine code out. [`Target::backend`] picks one; what every AGX generation
//! shares (the frontend, the IR passes, the preamble split) stays outside it.
//!
//! It covers compute shaders, which are what a new generation's back end is asked for first
//! (docs/generations.md). Graphics stages still reach `g13` by name.

use crate::api::{ComputeBinary, Target};
use crate::ir::Shader;
use crate::passes::preamble::Area;
use crate::CompileError;

pub(crate) trait Backend: Sync {
    /// A compute shader as it is: every value computed in the shader (meta shaders).
    fn compile(&self, shader: &Shader) -> Result<ComputeBinary, CompileError>;

    /// A compute shader whose constant descriptor words the launch preloads into uniforms.
    fn compile_with_preloads(&self, shader: &Shader) -> Result<ComputeBinary, CompileError>;

    /// A compute shader split into a `preamble`, run once per launch, and the `main` shader
    /// that reads its results from uniforms. `None` when this back end cannot launch that
    /// preamble, so the caller compiles the shader whole.
    fn compile_with_preamble(
        &self,
        main: &Shader,
        preamble: &Shader,
    ) -> Result<Option<ComputeBinary>, CompileError>;

    /// The uniforms a compute preamble may write its results to.
    fn preamble_area(&self) -> Area;
}

impl Target {
    /// The back end that makes this target's machine code.
    pub(crate) fn backend(self) -> &'static dyn Backend {
        match self {
            Target::G13 => &crate::g13::BACKEND,
        }
    }
}
