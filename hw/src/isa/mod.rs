//! The AGX shader instruction set as decoded values: one struct per machine instruction.
//!
//! This is the contract between three users that never talk to each other directly: the
//! compiler back end builds these values, a generation's encoder turns them into bytes
//! (`crate::g13::encode`), and the simulated USC decodes bytes back into them
//! (`crate::g13::decode`) and executes them (`crate::gpu::usc`). The disassembler prints them.
//!
//! Names and semantics follow dougallj/applegpu (applegpu.py), which documents each G13
//! instruction's fields and pseudocode. Only the part of the ISA that agx4 uses or executes is
//! modelled; an encoding outside it decodes to an error, never to a guess.
//!
//! Registers are numbered in 16-bit halves: `r3` (32-bit) is halves 6 and 7, `r3l` is half 6
//! and `r3h` is half 7. Uniform registers (`u`) are numbered the same way.

pub mod disasm;
mod instr;
mod operand;

pub use instr::*;
pub use operand::*;

/// Number of lanes in a SIMD group.
pub const SIMD_WIDTH: usize = 32;

/// General-purpose register file size per thread, in 16-bit halves (r0..r127).
pub const GPR_HALVES: u16 = 256;

/// Uniform register file size, in 16-bit halves (u0..u255 as 32-bit).
pub const UNIFORM_HALVES: u16 = 512;
