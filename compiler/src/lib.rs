//! SPIR-V to AGX machine code.
//!
//! The pipeline: [`frontend`] parses SPIR-V (rspirv) into [`ir`], the generation-neutral
//! [`passes`] run over it (one pass per file), and a generation's back end ([`g13`], reached
//! through `backend::Backend` for compute shaders) selects `hw::isa` instructions, allocates
//! registers and encodes them with `hw`'s encoder.
//!
//! `AGX4_COMPILER_DEBUG` (comma-separated) turns on diagnostics on stderr:
//! `ir` prints the IR after every pass (and validates it), `stats` prints one line of
//! statistics per compiled shader, `asm` prints the final disassembly.

pub mod abi;
mod api;
mod backend;
pub mod debug;
pub mod frontend;
pub mod g13;
mod geometry_pipeline;
mod graphics_api;
pub mod ir;
pub mod meta;
pub mod meta_image;
pub mod passes;
pub mod reflect;

pub use api::*;
pub use geometry_pipeline::GeometryBinary;
pub use graphics_api::*;
