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
};

/// G13's emitter.
pub struct G13;
