//! The AGX shader instruction set as decoded values: one struct per machine instruction.
//!
//! This is the contract between three users that never talk to each other directly: the
//! compiler back end builds these values, a generation's encoder turns them into bytes
//! (`crate::g13::encode`), and the simulated USC decodes bytes back into them
//! (`crate::g13::decode`) and executes them (`sim_gpu::usc`). The disassembler prints them.
//!
//! Names and semantics follow dougallj/applegpu (applegpu.py), which documents each G13
//! instruction's fields and pseudocode. Only the part of the ISA that agx4 uses or executes is
//! modelled; an encoding outside it decodes to an error, never to a guess.
//!
//! Registers are numbered in 16-bit halves: `r3` (32-bit) is halves 6 and 7, `r3l` is half 6
//! and `r3h` is half 7. Uniform registers (`u`) are numbered the same way.

mod codec;
pub mod disasm;
mod instr;
mod operand;

pub use codec::{Codec, DecodeError, EncodeError, Problem};
pub use instr::*;
pub use operand::*;

/// Number of lanes in a SIMD group.
pub const SIMD_WIDTH: usize = 32;

/// Lanes per quad: lanes 4q .. 4q + 4 of a SIMD group form quad q (applegpu's quad shuffles
/// and ballots work on these groups of four).
pub const QUAD_LANES: usize = 4;

/// Where the pixel (x, y) sits inside the quad that shades its 2x2 block (the block whose
/// top-left pixel has even coordinates): 0 top left, 1 top right, 2 bottom left, 3 bottom
/// right, the quad-group thread order Metal documents for fragment functions. Bit 0 of the
/// index is the horizontal neighbour, bit 1 the vertical one, which is what `dfdx` / `dfdy`
/// difference.
pub fn quad_lane(x: u32, y: u32) -> usize {
    (x & 1) as usize | ((y & 1) as usize) << 1
}

/// The pixel of quad lane `k` (0..4) relative to the block's top-left pixel: the inverse of
/// [`quad_lane`].
pub fn quad_pixel(k: usize) -> [u32; 2] {
    [(k & 1) as u32, (k >> 1 & 1) as u32]
}

/// General-purpose register file size per thread, in 16-bit halves (r0..r127).
pub const GPR_HALVES: u16 = 256;

/// Uniform register file size, in 16-bit halves (u0..u255 as 32-bit).
pub const UNIFORM_HALVES: u16 = 512;

/// Uniform halves a device memory instruction can name as its 64-bit base: the base field
/// has 8 bits.
pub const MEMORY_BASE_UNIFORM_HALVES: u16 = 256;
