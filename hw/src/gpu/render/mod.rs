//! The front half of the render pipeline, up to the point where vertices need shading: the
//! VDM stream walk (state, PPP updates, draws) and primitive assembly. Shader execution, raster
//! and tiling come after, behind [`DrawSink`].

mod assembly;
mod walker;

pub use assembly::{assemble, fetch_index, AssembledPrimitive, ProvokingVertex, Shape};
pub use walker::{
    draw_params, walk_vdm_stream, DrawCall, DrawParams, DrawSink, IndexSource, PipelineState,
    WalkStats,
};

#[cfg(test)]
mod tests;
