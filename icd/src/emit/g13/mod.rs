//! G13's (M1's) command words: its compute control stream (`compute.rs`), its draws
//! (`draw.rs`), its render commands (`render.rs`) and its terms for Vulkan-level
//! fixed-function values (`state.rs`).

mod compute;
mod draw;
mod render;
mod state;

use super::Emitter;

pub static EMITTER: Emitter = Emitter {
    compute: &G13,
    graphics: &G13,
    render: &G13,
    max_stack_bytes: hw::g13::control::MAX_STACK_BYTES,
};

/// The USC word that loads the texture state table `t` into texture states from `start`.
fn texture_word(start: u32, t: super::StateTable) -> hw::g13::control::UscWord {
    hw::g13::control::UscWord::Texture {
        start,
        count: t.count,
        buffer: t.va,
    }
}

/// The USC Registers word of a program using `gpr_halves` registers and `stack_bytes` of
/// stack per thread (at most `MAX_STACK_BYTES`, which pipeline creation checks).
fn registers(gpr_halves: u32, stack_bytes: u32) -> hw::g13::control::UscWord {
    let spill = hw::g13::control::spill_size_for_stack_bytes(stack_bytes).unwrap_or(15);
    hw::g13::control::UscWord::registers(gpr_halves, spill)
}

/// G13's emitter.
pub struct G13;
