//! G16 (Apple M4) machine code, as far as public evidence reaches.
//!
//! G16's ISA is not G13's: its instructions are 2-byte parcels whose length follows from
//! byte 0 and group-specific later bits (`length.rs`), it has 96 32-bit registers, and loads,
//! texture reads and returning atomics publish their results into six scoreboard slots that
//! the first consumer names. The sources disagree on that last point (ADevWithAnIdea/agx-re
//! describes a hardware interlock, niklassheth/agx-re six software slots whose wrong use reads
//! zeros without a fault); agx4 models the stricter contract, the slots, so that its code is
//! right under both.
//!
//! Every form carries the class of its evidence and its source (`forms.rs`). agx4 emits only
//! forms run on an M4; the ones it encodes field by field are in `encode.rs`, each pinned to
//! byte strings the sources publish (`tests.rs`). The sources publish control streams,
//! descriptors and image layout for the A18 and say the M4's are identical, which nobody has
//! checked field by field; the launch programs exist only as captured binaries, and the
//! firmware interfaces not at all. Nothing here defines them yet.

pub mod encode;
pub mod evidence;
pub mod forms;
pub mod length;
pub mod needs;

#[cfg(test)]
mod tests;

/// General registers: 96 of 32 bits (192 16-bit halves).
pub const GPRS: u32 = 96;
/// SIMD group width.
pub const SIMD_WIDTH: u32 = 32;
/// Scoreboard slots a pending result can be published into (1 to 6; 0 is none).
pub const SCOREBOARD_SLOTS: u32 = 6;
/// Predicate banks a compare can write (p0 to p5).
pub const PREDICATE_BANKS: u32 = 6;
