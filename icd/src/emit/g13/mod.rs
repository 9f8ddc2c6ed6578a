//! G13's (M1's) command words: its compute control stream (`compute.rs`) and its terms for
//! Vulkan-level fixed-function values (`state.rs`).

mod compute;
pub(crate) mod state;

use super::Emitter;

pub static EMITTER: Emitter = Emitter { compute: &G13 };

/// G13's emitter.
pub struct G13;
