//! AGX hardware facts, one definition per generation, and the simulated GPU.
//!
//! Everything that differs between GPU generations lives here behind one interface, so the
//! compiler, the ICD and the simulated kernel stay generation-neutral. Each generation says how
//! much of what it states is backed by public evidence ([`Generation::evidence`]).
//!
//! This crate knows nothing about the kernel interface: `kmd-iface` depends on it, never the
//! other way round. The simulated firmware translates UAPI structs into the register-level
//! descriptions in [`gpu`] before the GPU model sees them.

pub mod g13;
mod generation;
pub mod gpu;
mod identity;
pub mod isa;
#[cfg(test)]
mod test_rng;
pub mod uat;

pub use generation::{Evidence, Generation, Variant};
pub use identity::Identity;
