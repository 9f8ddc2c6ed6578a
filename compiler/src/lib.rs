//! SPIR-V to AGX machine code. Empty for now: the crate exists so the workspace builds while
//! the compiler work has not started.
