//! The vertex stage: runs a draw's vertex shader once per (vertex, instance) its primitives
//! use, 32 at a time, and keeps each vertex's UVS record.
//!
//! Preloaded registers (docs/render-abi.md section 3): r5 = the vertex index as Vulkan's
//! `VertexIndex` sees it, r6 = the instance counted from 0.

use super::assembly::AssembledPrimitive;
use super::programs::Loaded;
use crate::gpu::usc::{self, GraphicsContext, LaunchState, Preload, VertexContext};
use crate::gpu::{Fault, GpuMemory};
use crate::isa::{Reg, SIMD_WIDTH};
use std::collections::HashMap;

/// The UVS records of a draw's shaded vertices.
pub struct ShadedVertices {
    slots: usize,
    index: HashMap<(u32, u32), usize>,
    uvs: Vec<u32>,
}

impl ShadedVertices {
    /// Records of vertices 0, 1, ... of instance 0, as if shaded.
    #[cfg(test)]
    pub fn from_records(slots: usize, records: &[Vec<u32>]) -> ShadedVertices {
        ShadedVertices {
            slots,
            index: (0..records.len()).map(|i| ((i as u32, 0), i)).collect(),
            uvs: records.iter().flat_map(|r| r.iter().copied()).collect(),
        }
    }

    /// The record of vertex `v` of instance `instance`; every vertex a primitive of the draw
    /// uses has one.
    pub fn record(&self, v: u32, instance: u32) -> Result<&[u32], Fault> {
        let i = *self
            .index
            .get(&(v, instance))
            .ok_or(Fault::Internal("vertex used by a primitive was not shaded"))?;
        Ok(&self.uvs[i * self.slots..][..self.slots])
    }
}

/// Shades the vertices `prims` use, in order of first use.
pub fn shade(
    vs: &Loaded,
    slots: u32,
    prims: &[AssembledPrimitive],
    mem: &mut dyn GpuMemory,
) -> Result<ShadedVertices, Fault> {
    let mut order = Vec::new();
    let mut index = HashMap::new();
    for p in prims {
        for &v in p.vertices() {
            let key = (v, p.instance);
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(key) {
                e.insert(order.len());
                order.push(key);
            }
        }
    }
    let s = slots as usize;
    let mut uvs = vec![0u32; order.len() * s];
    let mut gfx = GraphicsContext {
        textures: vs.words.textures.clone(),
        fragment: None,
        vertex: None,
    };
    for (chunk_no, chunk) in order.chunks(SIMD_WIDTH).enumerate() {
        let n = chunk.len() as u32;
        let mut launch = LaunchState::new([n, 1, 1], [n, 1, 1]);
        launch.uniforms = vs.words.uniforms.clone();
        launch.stack_bytes = vs.words.stack_bytes;
        launch.shared_bytes = vs.words.shared_bytes;
        launch.preloads = vec![
            Preload {
                reg: Reg::r32(5),
                values: chunk.iter().map(|k| k.0).collect(),
            },
            Preload {
                reg: Reg::r32(6),
                values: chunk.iter().map(|k| k.1).collect(),
            },
        ];
        gfx.vertex = Some(VertexContext::new(slots));
        usc::run_graphics(&vs.program, &launch, mem, &mut gfx)?;
        let out = gfx
            .vertex
            .take()
            .ok_or(Fault::Internal("vertex context lost"))?;
        let base = chunk_no * SIMD_WIDTH * s;
        let len = chunk.len() * s;
        uvs[base..base + len].copy_from_slice(&out.uvs[..len]);
    }
    Ok(ShadedVertices {
        slots: s,
        index,
        uvs,
    })
}
