//! G13 control words: the CDM (compute data master) control stream and the USC words a launch
//! points at. Layouts come from Mesa's genxml description (`cmdbuf.xml`), written down here
//! once as tables of [`bits::Field`]s; the same tables pack (the ICD) and unpack (the simulated
//! GPU), so the two sides cannot disagree about a bit.
//!
//! A CDM stream is a sequence of blocks, each starting with a 32-bit word whose bits 29..31
//! give its type: a launch (words 0 and 1, the grid or indirect address, the local size), a
//! barrier, a link to another stream segment (optionally with one return address), a return,
//! or a terminate.
//!
//! A launch's `pipeline` points at a sequence of USC words, each starting with an 8-bit tag:
//! uniform preloads, shared-memory setup, the shader, its register count, and finally a
//! preshader word. The preshader word (`Preshader` or `NoPreshader`) always ends the sequence
//! for compute, as Mesa writes it; a reader stops there.

pub mod bits;
mod cdm;
pub mod descriptors;
pub mod ppp;
mod usc;
pub mod vdm;

pub use cdm::*;
pub use usc::*;

#[cfg(test)]
mod flat;
#[cfg(test)]
mod graphics_tests;
#[cfg(test)]
mod tests;
