//! Draws with a geometry shader (docs/geometry.md). AGX has no geometry stage: each draw
//! becomes two draws in the render command. The geometry draw runs the pipeline's merged
//! vertex and geometry program (compiler `geometry_pipeline`) as a point list of
//! (primitives x GS invocations) vertices per instance with rasterization discarded; every
//! invocation writes its output vertices as records and its strips as an index list, in a
//! region of its own. The rasterization draw then runs the pass-through vertex shader over
//! that index list with primitive restart, in the geometry shader's output topology, and
//! the pipeline's fragment shader and fixed-function state as usual.
//!
//! The rasterization draw reads what the geometry draw wrote in the same render command;
//! the simulator runs a stream's draws in order. Real G13 may overlap the vertex work of
//! consecutive draws, and whether that needs a barrier between them is not checked yet.

use super::dispatch::meta_launch;
use super::draw::{draw_capture, draw_raster, CaptureDraw, DrawKind, RasterDraw};
use super::Recording;
use crate::device::Device;
use crate::pipeline_graphics::{GraphicsPipeline, VertexProgram};
use crate::topology::Topology;
use ash::vk;
use compiler::abi;
use compiler::ir::{InputPrimitive, OutputPrimitive};
use compiler::meta::{geometry_args, Meta};

/// The most bytes one draw's output vertex records and index list may take.
const MAX_OUTPUT_BYTES: u64 = 1 << 30;

/// The output space of an indirect draw, whose size is not known when it is recorded: the
/// GPU cuts the draw down to what fits (Meta::GeometryDrawArgs).
const INDIRECT_OUTPUT_BYTES: u64 = 256 << 10;

/// How the draw's topology gives the geometry shader its input primitives: vertices per
/// primitive, vertex step between primitives, order bits (`abi::XFB_ORDER_SWAP_ODD`,
/// `abi::XFB_ORDER_FAN`, `abi::GEOMETRY_ORDER_STRIP_ADJACENCY`), and (skip, divide) such
/// that `count` vertices make `max(count - skip, 0) / divide` primitives. A pipeline's
/// topology class must match its geometry shader's input, so the adjacency topologies
/// (which `Topology` names by their plain class) follow from that input.
pub fn decomposition(p: Topology, input: InputPrimitive) -> Option<(u32, u32, u32, u32, u32)> {
    use InputPrimitive as I;
    Some(match (input, p) {
        (I::Points, Topology::Points) => (1, 1, 0, 0, 1),
        (I::Lines, Topology::Lines) => (2, 2, 0, 0, 2),
        (I::Lines, Topology::LineStrip) => (2, 1, 0, 1, 1),
        (I::Triangles, Topology::Triangles) => (3, 3, 0, 0, 3),
        (I::Triangles, Topology::TriangleStrip) => (3, 1, abi::XFB_ORDER_SWAP_ODD, 2, 1),
        (I::Triangles, Topology::TriangleFan) => (3, 1, abi::XFB_ORDER_FAN, 2, 1),
        (I::LinesAdjacency, Topology::Lines) => (4, 4, 0, 0, 4),
        (I::LinesAdjacency, Topology::LineStrip) => (4, 1, 0, 3, 1),
        (I::TrianglesAdjacency, Topology::Triangles) => (6, 6, 0, 0, 6),
        (I::TrianglesAdjacency, Topology::TriangleStrip) => {
            (6, 2, abi::GEOMETRY_ORDER_STRIP_ADJACENCY, 4, 2)
        }
        _ => return None,
    })
}

fn output_primitive(o: OutputPrimitive) -> Topology {
    match o {
        OutputPrimitive::Points => Topology::Points,
        OutputPrimitive::LineStrip => Topology::LineStrip,
        OutputPrimitive::TriangleStrip => Topology::TriangleStrip,
    }
}

fn put(t: &mut [u8], at: u32, bytes: &[u8]) {
    let at = (at - abi::XFB_PARAMS_OFFSET) as usize;
    t[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Records a draw with pipeline `p`, which has a geometry shader, into every stream draws
/// go to; `vertex` holds the geometry draw's program and the pass-through vertex shader.
pub fn draw(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
) -> Result<(), vk::Result> {
    let Some(code) = &vertex.geometry else {
        return Err(vk::Result::ERROR_UNKNOWN);
    };
    let g = &code.binary;
    let fx = super::dynamic_state::resolve(&p.fixed, rec.gfx());
    let Some((n, step, order, skip, divide)) = decomposition(fx.primitive, g.input) else {
        eprintln!(
            "agx4: a draw of {:?} primitives with a geometry shader taking {:?}",
            fx.primitive, g.input
        );
        return Err(vk::Result::ERROR_UNKNOWN);
    };
    let last_vertex = if fx.provoking_last {
        abi::GEOMETRY_ORDER_LAST_VERTEX
    } else {
        0
    };
    let bound_index = |rec: &Recording| -> Result<(u64, u32), vk::Result> {
        let (addr, _, size) = rec.gfx().index.ok_or(vk::Result::ERROR_UNKNOWN)?;
        Ok((addr, size.bytes()))
    };
    // Primitives per instance, instances, first vertex or vertex offset, first index, the
    // index buffer; an indirect draw's come from the GPU, which also writes the two draws'
    // arguments.
    let (prims, instances, base, first_index, count, index, indirect) = match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            ..
        } => (
            count.saturating_sub(skip) / divide,
            instances,
            first_vertex,
            0,
            count,
            None,
            None,
        ),
        DrawKind::Indexed {
            count,
            instances,
            first_index,
            vertex_offset,
            ..
        } => (
            count.saturating_sub(skip) / divide,
            instances,
            vertex_offset as u32,
            first_index,
            count,
            Some(bound_index(rec)?),
            None,
        ),
        DrawKind::Indirect { args, indexed, .. } => {
            let index = if indexed {
                Some(bound_index(rec)?)
            } else {
                None
            };
            (0, 0, 0, 0, 0, index, Some((args, indexed)))
        }
    };
    if indirect.is_none() && (prims == 0 || instances == 0) {
        return Ok(());
    }
    let too_big = vk::Result::ERROR_OUT_OF_DEVICE_MEMORY;
    let per_record = u64::from(g.max_vertices) * (u64::from(g.stride.max(4)) + 8);
    let invocations = match (indirect, rec.known_args) {
        // Arguments the CPU wrote: room for the largest draw.
        (Some(_), Some((count, instances))) => {
            let prims = count.saturating_sub(skip) / divide;
            (u64::from(prims) * u64::from(g.invocations) * u64::from(instances))
                .max(u64::from(g.invocations))
        }
        // Room for what fits in INDIRECT_OUTPUT_BYTES, at least one primitive.
        (Some(_), None) => (INDIRECT_OUTPUT_BYTES / per_record).max(u64::from(g.invocations)),
        (None, _) => {
            u64::from(prims.checked_mul(g.invocations).ok_or(too_big)?) * u64::from(instances)
        }
    };
    let records = invocations * u64::from(g.max_vertices);
    let record_bytes = records * u64::from(g.stride.max(4));
    let indices = u32::try_from(records * 2).map_err(|_| too_big)?;
    if record_bytes + u64::from(indices) * 4 > MAX_OUTPUT_BYTES {
        eprintln!("agx4: a geometry shader draw would write more than {MAX_OUTPUT_BYTES} bytes");
        return Err(too_big);
    }
    let record_buf = rec.upload.alloc(dev, record_bytes, 16)?;
    let index_buf = rec.upload.alloc(dev, u64::from(indices) * 4, 16)?;
    // The geometry draw's VkDrawIndirectCommand, then the rasterization draw's
    // VkDrawIndexedIndirectCommand.
    let draw_args = match indirect {
        Some(_) => Some(rec.upload.alloc(dev, 36, 16)?.va),
        None => None,
    };

    let mut params = vec![0u8; (abi::GEOMETRY_ROOT_TABLE_SIZE - abi::XFB_PARAMS_OFFSET) as usize];
    // The words the prologue reads, as the transform feedback capture draw has them.
    for (at, v) in [
        (abi::XFB_VERTS_PER_PRIM, n),
        (abi::XFB_PRIMS_PER_INSTANCE, prims),
        (abi::XFB_INSTANCES, instances),
        (abi::XFB_BASE_VERTEX, base),
        (abi::XFB_INDEX_SIZE, index.map_or(0, |i| i.1)),
        (abi::XFB_PRIM_STEP, step),
        (abi::XFB_ORDER, order | last_vertex),
        (abi::XFB_FIRST_INDEX, first_index),
        (abi::XFB_RESTART, u32::from(index.is_some() && fx.restart)),
        (abi::XFB_INDEX_COUNT, count),
    ] {
        put(&mut params, at, &v.to_le_bytes());
    }
    let (_, no_query) = super::xfb::zero_words(dev, rec)?;
    type Flag = vk::QueryPipelineStatisticFlags;
    let statistics = [
        (
            abi::GEOMETRY_STAT_INVOCATIONS_ADDRESS,
            Flag::GEOMETRY_SHADER_INVOCATIONS,
        ),
        (
            abi::GEOMETRY_STAT_PRIMITIVES_ADDRESS,
            Flag::GEOMETRY_SHADER_PRIMITIVES,
        ),
        (
            abi::GEOMETRY_STAT_CLIPPING_INVOCATIONS_ADDRESS,
            Flag::CLIPPING_INVOCATIONS,
        ),
        (
            abi::GEOMETRY_STAT_CLIPPING_PRIMITIVES_ADDRESS,
            Flag::CLIPPING_PRIMITIVES,
        ),
    ];
    for (at, bit) in statistics {
        // A generated geometry shader (adjacency without one) is no geometry stage of the
        // pipeline's; the clipper still sees what it emits.
        let stage = matches!(
            bit,
            Flag::GEOMETRY_SHADER_INVOCATIONS | Flag::GEOMETRY_SHADER_PRIMITIVES
        );
        let counter = if stage && g.generated {
            0
        } else {
            super::statistics::shader_counter(dev, rec, bit)?
        };
        put(&mut params, at, &counter.to_le_bytes());
    }
    for (at, v) in [
        (
            abi::GEOMETRY_PRIMGEN_ADDRESS,
            rec.primgen.unwrap_or(no_query),
        ),
        (abi::XFB_INDEX_ADDRESS, index.map_or(0, |i| i.0)),
        (abi::GEOMETRY_RECORD_ADDRESS, record_buf.va),
        (abi::GEOMETRY_INDEX_ADDRESS, index_buf.va),
    ] {
        put(&mut params, at, &v.to_le_bytes());
    }
    let mut geometry_draw = CaptureDraw {
        binary: &g.program,
        code: code.code,
        stack_bytes: code.stack_bytes,
        params: params.clone(),
        count: prims * g.invocations,
        instances,
        indirect: draw_args,
    };
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // A geometry shader that writes gl_Layer renders every layer of the framebuffer: each
    // layer's render command gets both draws, and its rasterization draw keeps the
    // primitives of its layer.
    let streams: Vec<(usize, u32)> = if g.writes_layer && rs.view_mask == 0 {
        (0..rs.fb.layers.max(1))
            .map(|l| (rs.stream_for(l), l))
            .collect()
    } else {
        rs.targets
            .iter()
            .map(|&t| (t, rs.streams[t].layer))
            .collect()
    };
    let mut first = true;
    for (t, layer) in streams {
        rec.render
            .as_mut()
            .ok_or(vk::Result::ERROR_UNKNOWN)?
            .current = t;
        let mut raster = RasterDraw {
            params: params.clone(),
            primitive: output_primitive(g.output),
            index: index_buf.va,
            count: indices,
            indirect: draw_args.map(|a| a + 16),
        };
        put(
            &mut raster.params,
            abi::GEOMETRY_LAYER,
            &layer.to_le_bytes(),
        );
        let root = draw_capture(dev, rec, p, vertex, kind, &geometry_draw)?;
        if let (Some((args, indexed)), Some(out), Some(root)) = (indirect, draw_args, root) {
            // The GPU turns the draw's arguments into the two draws' and the geometry
            // draw's root words; compute inside a render pass runs before the render
            // command.
            let mut push = [0u8; geometry_args::SIZE as usize];
            for (at, v) in [
                (geometry_args::SKIP, skip),
                (geometry_args::DIVIDE, divide),
                (geometry_args::INDEXED, u32::from(indexed)),
                (geometry_args::INVOCATIONS, g.invocations),
                (geometry_args::MAX_VERTICES, g.max_vertices),
                (
                    geometry_args::CAPACITY,
                    u32::try_from(invocations).map_err(|_| too_big)?,
                ),
            ] {
                push[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
            }
            let words = root.va + u64::from(abi::XFB_DRAW_OFFSET);
            rec.barrier_pending = true;
            meta_launch(
                dev,
                rec,
                Meta::GeometryDrawArgs,
                &push,
                1,
                &[(args, 20), (out, 36), (words, 64)],
            )?;
            rec.barrier_pending = true;
        }
        if first {
            // Transform feedback captures the emitted primitives once, from the index list.
            let list = match draw_args {
                Some(a) => DrawKind::Indirect {
                    args: a + 16,
                    indexed: true,
                    draw_index: 0,
                },
                None => DrawKind::Indexed {
                    count: indices,
                    instances: 1,
                    first_index: 0,
                    vertex_offset: 0,
                    first_instance: 0,
                },
            };
            super::xfb::capture_with(
                dev,
                rec,
                p,
                vertex,
                list,
                raster.primitive,
                true,
                Some((index_buf.va, 4)),
                &[(abi::GEOMETRY_RECORD_ADDRESS, record_buf.va)],
            )?;
        }
        first = false;
        draw_raster(dev, rec, p, vertex, kind, &raster)?;
        // Every layer's or view's geometry draw emits the same primitives: the queries
        // count them once.
        put(
            &mut geometry_draw.params,
            abi::GEOMETRY_PRIMGEN_ADDRESS,
            &no_query.to_le_bytes(),
        );
        for (at, _) in statistics {
            put(&mut geometry_draw.params, at, &0u64.to_le_bytes());
        }
    }
    Ok(())
}
