//! Registers a launch fills before a shader's first instruction.
//!
//! A vertex launch gives each lane its vertex index and its instance (docs/render-abi.md
//! section 3; Mesa's asahi driver reads them from the same registers).

use crate::isa::Reg;

/// The vertex index, as Vulkan's `VertexIndex` sees it.
pub const VERTEX_INDEX: Reg = Reg::r32(5);

/// The instance, counted from 0.
pub const INSTANCE: Reg = Reg::r32(6);
