//! The render pipeline: the VDM stream walk (state, PPP updates, draws), primitive assembly,
//! vertex shading, clipping and setup, the tiler with its TVB budget, and per-tile fragment
//! work (background program, depth/stencil, fragment shaders, end-of-tile program, ZLS).
//!
//! [`execute`] runs one render command; `docs/render-abi.md` is the contract it follows.

mod assembly;
mod budget;
mod fragment;
mod pass;
mod pipeline;
mod planes;
mod prim_store;
mod primitive;
mod programs;
mod tiles;
mod unfilled;
mod vertex;
mod walker;

pub use assembly::{assemble, fetch_index, AssembledPrimitive, ProvokingVertex, Shape};
pub use budget::{RenderStats, TvbBudget, TvbFull, UnlimitedTvb};
pub use pipeline::{execute, execute_on, walk_only};
pub use walker::{
    draw_params, walk_vdm_stream, DrawCall, DrawParams, DrawSink, IndexSource, PipelineState,
    WalkStats,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_render;
#[cfg(test)]
mod tests_unfilled;
