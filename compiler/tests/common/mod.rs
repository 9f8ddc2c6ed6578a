//! Helpers shared by the compiler's integration tests.

#![allow(dead_code)]

mod glslang;

pub use glslang::glslang;
