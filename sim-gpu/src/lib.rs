//! The simulated GPU: what the hardware does with a command once the firmware starts it.
//!
//! The model sees only what real hardware sees: register values the firmware programs for the
//! command ([`ComputeCommand`], [`RenderCommand`]) and GPU memory reached through the VM
//! ([`GpuMemory`]). Nothing from the driver's Rust objects reaches it.
//!
//! It is its own crate so that Cargo keeps the driver and the compiler from reaching it: only
//! the simulated firmware (`kmd-iface`) depends on it. The facts it executes (encodings,
//! control words, layouts) come from `hw`.

mod cdm;
mod command;
mod exec;
pub mod isp;
mod memory;
pub mod pool;
pub mod raster;
pub mod render;
mod spare;
pub mod texel;
pub mod usc;
pub mod usc_words;

pub use cdm::{ComputeStats, MAX_BLOCKS};
pub use command::{BgEotProgram, ComputeCommand, HelperProgram, RenderCommand, ZlsBuffer};
pub use exec::{execute_compute, execute_render};
pub use memory::{copy_small, Access, Fault, GpuMemory, ReadWindow, SharedGpuMemory, SharedView};
pub use render::{RenderStats, TvbBudget, TvbFull};
pub(crate) use spare::Spare;
