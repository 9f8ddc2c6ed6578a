//! AGX hardware facts, one definition per generation.
//!
//! Everything that differs between GPU generations lives here behind one interface, so the
//! compiler, the ICD and the simulated kernel stay generation-neutral. Each generation says how
//! much of what it states is backed by public evidence ([`Generation::evidence`]).
//!
//! This crate knows nothing about the kernel interface or the simulated GPU: `kmd-iface` and
//! `sim-gpu` depend on it, never the other way round. Where its readers need GPU memory, they
//! take a [`WordSource`], and what they find wrong is a [`WordError`], which the simulated GPU
//! turns into its own faults.

pub mod g13;
pub mod g16;
mod generation;
mod identity;
pub mod isa;
#[cfg(any(test, feature = "test-rng"))]
#[doc(hidden)]
pub mod test_rng;
pub mod uat;
mod word;

pub use generation::{Evidence, Generation, Variant};
pub use identity::Identity;
pub use word::{WordError, WordSource};
