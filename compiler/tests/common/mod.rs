//! Helpers shared by the compiler's integration tests.

#![allow(dead_code, unused_imports)]

mod glslang;
mod spirv_as;
pub mod usc;

pub use glslang::glslang;
pub use glslang::glslang_env;
pub use glslang::glslang_stage;
pub use spirv_as::spirv_as;
