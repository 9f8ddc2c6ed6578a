//! Graphics bindings, dynamic state and draws.
//!
//! A draw writes its own root table (docs/render-abi.md section 5), so the vertex and
//! fragment USC words that preload it are its own too. This file resolves the draw's state
//! into Vulkan-level values (`emit::DrawState`); the generation's emitter (`emit::Graphics`)
//! records the state words that differ from what the stream's last draw left, then the
//! draw's index list.
//!
//! A draw that repeats the stream's last one, recorded in the same state epoch (no binding,
//! dynamic state, push constant or query changed since: `Recording::gfx_mut` and friends
//! count the changes) with the same draw parameters, is its index list alone: the root
//! table, the USC words and the state of the draw before it all still hold.

use super::conditional::{guarded_copy, words_in_memory, Condition, Records};
use super::dynamic_state::Effective;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::emit::{
    DrawState, DrawTextures, FragmentLaunch, IndexBuffer, IndexList, Late, LateState, Rebind,
    StateTable, VertexLaunch,
};
use crate::handle::{self, Object};
use crate::pipeline::Pipeline;
use crate::pipeline_graphics::{
    DepthBiasState, GraphicsPipeline, VertexProgram, MAX_VERTEX_BINDINGS,
};
use crate::topology::{IndexSize, Topology};
use ash::vk;
use compiler::abi::{
    BASE_VERTEX_OFFSET, BLEND_CONSTANTS_OFFSET, DRAW_INDEX_OFFSET, FIRST_INSTANCE_OFFSET,
    FRAGMENT_INVOCATIONS_COUNTER_OFFSET, GRAPHICS_ROOT_TABLE_SIZE, MAX_SETS, ROOT_ADDRESS_OFFSET,
    VERTEX_BUFFERS_OFFSET, VERTEX_BUFFER_ENTRY_SIZE, VIEW_INDEX_OFFSET,
};
use std::sync::atomic::Ordering;

/// Graphics bindings and dynamic state of a command buffer.
#[derive(Clone, Debug)]
pub struct GfxState {
    pub pipeline: vk::Pipeline,
    pub sets: [u64; MAX_SETS as usize],
    /// Address of the bound offset and bytes readable from it, per binding.
    pub vertex_buffers: [(u64, u64); MAX_VERTEX_BINDINGS as usize],
    /// Address of the bound offset, bytes from it, and the index size.
    pub index: Option<(u64, u64, IndexSize)>,
    pub viewport: Option<vk::Viewport>,
    pub scissor: Option<vk::Rect2D>,
    pub line_width: f32,
    pub depth_bias: DepthBiasState,
    pub blend_constants: [f32; 4],
    /// Front, back.
    pub stencil_compare_mask: [u32; 2],
    pub stencil_write_mask: [u32; 2],
    pub stencil_reference: [u32; 2],
    /// The dynamic state of Vulkan 1.3's extended dynamic state commands.
    pub ext: super::dynamic_state::DynamicValues,
    /// vkCmdSetVertexInputEXT's layout and the vertex program last chosen for it.
    pub vertex_input: super::vertex_input::VertexInputState,
    /// The active occlusion query and what the open render command's draws count into.
    pub occlusion: super::query::OcclusionState,
}

impl Default for GfxState {
    fn default() -> GfxState {
        GfxState {
            pipeline: vk::Pipeline::null(),
            sets: [0; MAX_SETS as usize],
            vertex_buffers: [(0, 0); MAX_VERTEX_BINDINGS as usize],
            index: None,
            viewport: None,
            scissor: None,
            line_width: 1.0,
            depth_bias: DepthBiasState {
                constant: 0.0,
                clamp: 0.0,
                slope: 0.0,
            },
            blend_constants: [0.0; 4],
            stencil_compare_mask: [0xff; 2],
            stencil_write_mask: [0xff; 2],
            stencil_reference: [0; 2],
            ext: Default::default(),
            vertex_input: Default::default(),
            occlusion: Default::default(),
        }
    }
}

/// What one draw asks for.
#[derive(Clone, Copy, Debug)]
pub enum DrawKind {
    Direct {
        count: u32,
        instances: u32,
        first_vertex: u32,
        first_instance: u32,
    },
    Indexed {
        count: u32,
        instances: u32,
        first_index: u32,
        vertex_offset: i32,
        first_instance: u32,
    },
    Indirect {
        args: u64,
        indexed: bool,
        /// The draw's index within its multi-draw command (gl_DrawID).
        draw_index: u32,
    },
}

fn write(t: &mut [u8], at: u32, bytes: &[u8]) {
    let at = at as usize;
    t[at..at + bytes.len()].copy_from_slice(bytes);
}

/// What a draw's root table says about the draw itself (the shader draw parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DrawParams {
    base_vertex: i32,
    first_instance: u32,
    draw_index: u32,
}

/// The draw's root table: the compute part, draw parameters, blend constants and the vertex
/// buffer table, written into `t` (`GRAPHICS_ROOT_TABLE_SIZE` zero bytes at least).
fn root_table(t: &mut [u8], va: u64, rec: &Recording, fx: &Effective, d: DrawParams, view: u32) {
    let g = rec.gfx();
    let t = &mut t[..GRAPHICS_ROOT_TABLE_SIZE as usize];
    super::dispatch::fill_root_table(t, va, &g.sets, [0; 3], [0; 3], rec.push());
    write(t, BASE_VERTEX_OFFSET, &d.base_vertex.to_le_bytes());
    write(t, FIRST_INSTANCE_OFFSET, &d.first_instance.to_le_bytes());
    write(t, DRAW_INDEX_OFFSET, &d.draw_index.to_le_bytes());
    write(t, VIEW_INDEX_OFFSET, &view.to_le_bytes());
    write(
        t,
        FRAGMENT_INVOCATIONS_COUNTER_OFFSET,
        &super::statistics::fragment_counter(rec).to_le_bytes(),
    );
    for (i, c) in fx.blend_constants.iter().enumerate() {
        write(t, BLEND_CONSTANTS_OFFSET + 4 * i as u32, &c.to_le_bytes());
    }
    for (i, &(addr, size)) in g.vertex_buffers.iter().enumerate() {
        let at = VERTEX_BUFFERS_OFFSET + VERTEX_BUFFER_ENTRY_SIZE * i as u32;
        write(t, at, &addr.to_le_bytes());
        write(
            t,
            at + 8,
            &(size.min(u64::from(u32::MAX)) as u32).to_le_bytes(),
        );
        write(t, at + 12, &fx.strides[i].to_le_bytes());
    }
}

fn usc_offset(dev: &Device, va: u64) -> Result<u32, vk::Result> {
    u32::try_from(va - dev.usc_base).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
}

/// The scissor rectangle of a draw whose own scissor is `sc` (none: the whole framebuffer):
/// within the render area and the framebuffer; max is exclusive.
fn scissor_rect(area: vk::Rect2D, sc: Option<vk::Rect2D>, fb: (u32, u32)) -> [u32; 4] {
    let clampi = |v: i64, hi: u32| v.clamp(0, i64::from(hi)) as u32;
    let mut x0 = clampi(i64::from(area.offset.x), fb.0);
    let mut y0 = clampi(i64::from(area.offset.y), fb.1);
    let mut x1 = clampi(
        i64::from(area.offset.x) + i64::from(area.extent.width),
        fb.0,
    );
    let mut y1 = clampi(
        i64::from(area.offset.y) + i64::from(area.extent.height),
        fb.1,
    );
    if let Some(s) = sc {
        x0 = x0.max(clampi(i64::from(s.offset.x), fb.0));
        y0 = y0.max(clampi(i64::from(s.offset.y), fb.1));
        x1 = x1.min(clampi(
            i64::from(s.offset.x) + i64::from(s.extent.width),
            fb.0,
        ));
        y1 = y1.min(clampi(
            i64::from(s.offset.y) + i64::from(s.extent.height),
            fb.1,
        ));
    }
    if x1 <= x0 || y1 <= y0 {
        return [0, 0, 0, 0];
    }
    [x0, x1, y0, y1]
}

/// A draw of a secondary command buffer's stream fragment waiting for its [`LateState`]: the
/// part of its state that depends on the render pass instance it runs in, beyond what the
/// subpass says. The scissor is clipped to the render area and framebuffer, and the draw
/// counts into the occlusion query the executing primary has active when the secondary had
/// none (secondary.rs).
#[derive(Clone, Copy, Debug)]
pub struct LateDraw {
    /// Where in the fragment's VDM bytes the block with the late words goes (just before
    /// the draw's Index List).
    pub at: usize,
    pub state: LateState,
    /// The occlusion query the secondary had active for the draw; none: the one the
    /// executing primary has active (an inherited query), if any.
    pub query: Option<super::query::Active>,
}

/// Works out a draw's late state in the open render command: its scissor within the render
/// area and framebuffer, and how it counts into `query` (which binds the render command to
/// the query's pool).
pub fn resolve_late(
    rec: &mut Recording,
    state: &LateState,
    query: Option<super::query::Active>,
) -> Result<Late, vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let rect = scissor_rect(rs.area, state.scissor, (rs.fb.width, rs.fb.height));
    let visibility = super::query::draw_visibility(&mut rec.gfx_mut().occlusion, query)?;
    Ok(Late {
        state: *state,
        rect,
        visibility,
    })
}

/// What a stream's last draw left for a next draw that differs from it only in its counts
/// (`repeat`) or only in what its root table holds (`rebind`): it was recorded in state epoch
/// `epoch` and fixed-function epoch `ff_epoch` with draw parameters `params`, and nothing
/// else has been recorded into the stream since.
#[derive(Clone, Copy, Debug)]
pub struct Repeatable {
    epoch: u64,
    ff_epoch: u64,
    params: DrawParams,
    /// The draw was indexed (its VDM state has the index size's restart index).
    indexed: bool,
    primitive: Topology,
    restart: bool,
    vertex: VertexLaunch,
    fragment: Option<FragmentLaunch>,
    /// The root tables of the latest draws in this fixed-function epoch, latest first, with
    /// the words that load them: a draw that goes back to one of them reuses the words.
    bound: [Option<Bound>; 2],
}

/// A root table of a draw and the words that load it.
#[derive(Clone, Copy, Debug)]
struct Bound {
    root_va: u64,
    /// Offsets of the vertex and fragment USC words.
    vs_words: u32,
    fs_words: Option<u32>,
    /// What the emitter uploaded to point the stream's state at `fs_words`, once a draw in
    /// the fixed-function epoch needed it (`emit::Graphics::rebind`).
    ppp: Option<(u64, u32)>,
}

/// The draw parameters of a direct draw that draws something.
fn direct_params(kind: DrawKind) -> Option<DrawParams> {
    match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            first_instance,
        } if count > 0 && instances > 0 => Some(DrawParams {
            base_vertex: first_vertex as i32,
            first_instance,
            draw_index: 0,
        }),
        DrawKind::Indexed {
            count,
            instances,
            vertex_offset,
            first_instance,
            ..
        } if count > 0 && instances > 0 => Some(DrawParams {
            base_vertex: vertex_offset,
            first_instance,
            draw_index: 0,
        }),
        _ => None,
    }
}

/// Whether draws now are plain draws into one stream, which another draw in the same state
/// may repeat: no conditional rendering, no transform feedback, queries that count
/// primitives or invocations, or multiview.
fn repeatable(rec: &Recording) -> bool {
    rec.condition.is_none()
        && !rec.xfb.active()
        && rec.primgen.is_none()
        && rec.stats.is_none()
        && rec.stats_inherit.statistics.is_empty()
        && rec.render.as_ref().is_some_and(|rs| rs.targets.len() == 1)
}

/// Records direct draw `kind` as an index list alone when the stream's last draw was recorded
/// in the current state epoch with the same draw parameters: its root table, USC words and
/// fixed-function state are all still in force. Returns whether it did.
fn repeat(dev: &Device, rec: &mut Recording, kind: DrawKind) -> Result<bool, vk::Result> {
    let Some(params) = direct_params(kind) else {
        return Ok(false);
    };
    if !repeatable(rec) {
        return Ok(false);
    }
    let (epoch, index) = (rec.epoch(), rec.gfx().index);
    let Some(rs) = rec.render.as_mut() else {
        return Ok(false);
    };
    if rs.inherited {
        return Ok(false);
    }
    let s = rs.stream()?;
    let Some(last) = s.repeatable else {
        return Ok(false);
    };
    let indexed = matches!(kind, DrawKind::Indexed { .. });
    if last.epoch != epoch || last.params != params || last.indexed != indexed {
        return Ok(false);
    }
    let list = index_list(kind, last.primitive, last.restart, index)?;
    dev.emitter()?.graphics.index_list(&list, &mut s.vdm);
    s.draws += 1;
    Ok(true)
}

/// Records direct draw `kind` when the stream's last draw was recorded in the current
/// fixed-function epoch: only its root table differs (other descriptor sets, vertex buffers,
/// push constants or draw parameters), so the draw is a new root table, the USC words that
/// load it, the state words that point at those, and its index list. Returns whether
/// it did.
fn rebind(dev: &Device, rec: &mut Recording, kind: DrawKind) -> Result<bool, vk::Result> {
    let Some(params) = direct_params(kind) else {
        return Ok(false);
    };
    if !repeatable(rec) {
        return Ok(false);
    }
    let ff_epoch = rec.ff_epoch();
    let Some(rs) = rec.render.as_mut() else {
        return Ok(false);
    };
    if rs.inherited {
        return Ok(false);
    }
    let view = rs.view_index();
    let Some(last) = rs.stream()?.repeatable else {
        return Ok(false);
    };
    if last.ff_epoch != ff_epoch {
        return Ok(false);
    }
    // SAFETY: `rec.gfx().pipeline` is VK_NULL_HANDLE or the graphics pipeline vkCmdBindPipeline
    // bound to this recording. Destroying that pipeline would move the command buffer out of the
    // recording state, and valid usage requires the recording state for the draw being recorded.
    let p = unsafe { Pipeline::graphics(rec.gfx().pipeline) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let fx = super::dynamic_state::resolve(&p.fixed, rec.gfx());
    let mut table = [0u8; GRAPHICS_ROOT_TABLE_SIZE as usize];
    root_table(&mut table, 0, rec, &fx, params, view);
    let at = Some(ROOT_ADDRESS_OFFSET as usize);
    let root_va = rec.upload.push_shared(dev, &mut table, 16, at)?;
    let found = last.bound.iter().flatten().find(|b| b.root_va == root_va);
    let mut bound = match found {
        Some(&b) => b,
        None => Bound {
            root_va,
            vs_words: vertex_words(dev, rec, last.vertex, root_va)?,
            fs_words: match last.fragment {
                Some(f) => Some(fragment_words(
                    dev,
                    rec,
                    f,
                    DrawTextures::default(),
                    root_va,
                )?),
                None => None,
            },
            ppp: None,
        },
    };
    let index = rec.gfx().index;
    let indexed = matches!(kind, DrawKind::Indexed { .. });
    let epoch = rec.epoch();
    let graphics = dev.emitter()?.graphics;
    let rebind = Rebind {
        vertex_words: bound.vs_words,
        fragment_words: bound.fs_words,
        index: index.filter(|_| indexed).map(|i| i.2),
    };
    let upload = &mut rec.upload;
    let rs = rec
        .render
        .as_mut()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .stream()?;
    let mut push = |b: &mut Vec<u8>| upload.push_shared(dev, b, 64, None);
    if !graphics.rebind(&rebind, &mut rs.words(), &mut bound.ppp, &mut push)? {
        return Ok(false);
    }
    let list = index_list(kind, last.primitive, last.restart, index)?;
    graphics.index_list(&list, &mut rs.vdm);
    rs.draws += 1;
    let other = last
        .bound
        .into_iter()
        .flatten()
        .find(|b| b.root_va != root_va);
    rs.repeatable = Some(Repeatable {
        epoch,
        params,
        indexed,
        bound: [Some(bound), other],
        ..last
    });
    Ok(true)
}

/// The index list of direct or indirect draw `kind` with bound index buffer `index`.
fn index_list(
    kind: DrawKind,
    primitive: Topology,
    restart: bool,
    index: Option<(u64, u64, IndexSize)>,
) -> Result<IndexList, vk::Result> {
    Ok(match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            ..
        } => IndexList {
            primitive,
            restart: false,
            index: None,
            count: Some(count),
            instances: Some(instances),
            start: Some(first_vertex),
            indirect: None,
        },
        DrawKind::Indexed {
            count,
            instances,
            first_index,
            vertex_offset,
            ..
        } => {
            let (va, bytes, size) = index.ok_or(vk::Result::ERROR_UNKNOWN)?;
            let skip = u64::from(first_index) * u64::from(size.bytes());
            IndexList {
                primitive,
                restart,
                index: Some(IndexBuffer {
                    va: va + skip,
                    bytes: bytes.saturating_sub(skip),
                    size,
                }),
                count: Some(count),
                instances: Some(instances),
                start: Some(vertex_offset as u32),
                indirect: None,
            }
        }
        DrawKind::Indirect { args, indexed, .. } => {
            let index = match indexed {
                true => Some(index.ok_or(vk::Result::ERROR_UNKNOWN)?),
                false => None,
            };
            IndexList {
                primitive,
                restart: indexed && restart,
                index: index.map(|(va, bytes, size)| IndexBuffer { va, bytes, size }),
                count: None,
                instances: None,
                start: None,
                indirect: Some(args),
            }
        }
    })
}

/// Records one draw with the bound pipeline, under the conditional rendering in effect.
pub fn draw(dev: &Device, rec: &mut Recording, kind: DrawKind) -> Result<(), vk::Result> {
    if repeat(dev, rec, kind)? || rebind(dev, rec, kind)? {
        return Ok(());
    }
    let Some(c) = rec.condition else {
        return draw_unguarded(dev, rec, kind);
    };
    let known = match kind {
        DrawKind::Direct {
            count, instances, ..
        }
        | DrawKind::Indexed {
            count, instances, ..
        } => Some((count, instances)),
        DrawKind::Indirect { .. } => rec.known_args,
    };
    let kind = guard_draw(dev, rec, kind, c)?;
    let outer = std::mem::replace(&mut rec.known_args, known);
    let r = draw_unguarded(dev, rec, kind);
    rec.known_args = outer;
    r
}

/// Records one draw with the bound pipeline, whatever the conditional rendering.
fn draw_unguarded(dev: &Device, rec: &mut Recording, kind: DrawKind) -> Result<(), vk::Result> {
    // SAFETY: `rec.gfx().pipeline` is VK_NULL_HANDLE or the graphics pipeline
    // vkCmdBindPipeline bound to this recording; destroying that pipeline would move the
    // command buffer out of the recording state, which valid usage requires for this draw.
    let p = unsafe { Pipeline::graphics(rec.gfx().pipeline) }.ok_or_else(|| {
        eprintln!("agx4: draw without a bound graphics pipeline");
        vk::Result::ERROR_UNKNOWN
    })?;
    // The vertex program for the bound vertex input layout (the pipeline's own unless the
    // layout is dynamic), chosen once for the capture draw and every view.
    let vertex = super::vertex_input::program(dev, rec, p)?;
    // A geometry shader's primitives are captured and counted as it emits them; the
    // pipeline statistics of its input come from the draw's arguments, as for any draw.
    if vertex.geometry.is_some() {
        super::statistics::before_draw(dev, rec, p, &vertex, kind)?;
        return super::geometry::draw(dev, rec, p, &vertex, kind);
    }
    if rec.xfb.active() {
        super::xfb::capture(dev, rec, p, &vertex, kind)?;
    }
    if let Some(counter) = rec.primgen {
        super::primgen::count(dev, rec, p, kind, counter)?;
    }
    super::statistics::before_draw(dev, rec, p, &vertex, kind)?;
    draw_with(dev, rec, p, &vertex, kind)
}

/// Words of a VkDrawIndirectCommand or VkDrawIndexedIndirectCommand.
fn indirect_words(indexed: bool) -> u32 {
    if indexed {
        5
    } else {
        4
    }
}

/// `kind` as an indirect draw whose counts are zero unless condition `c` holds.
pub fn guard_draw(
    dev: &Device,
    rec: &mut Recording,
    kind: DrawKind,
    c: Condition,
) -> Result<DrawKind, vk::Result> {
    let draw_index = match kind {
        DrawKind::Indirect { draw_index, .. } => draw_index,
        _ => 0,
    };
    let (src, indexed) = match kind {
        DrawKind::Direct {
            count,
            instances,
            first_vertex,
            first_instance,
        } => (
            words_in_memory(dev, rec, &[count, instances, first_vertex, first_instance])?,
            false,
        ),
        DrawKind::Indexed {
            count,
            instances,
            first_index,
            vertex_offset,
            first_instance,
        } => (
            words_in_memory(
                dev,
                rec,
                &[
                    count,
                    instances,
                    first_index,
                    vertex_offset as u32,
                    first_instance,
                ],
            )?,
            true,
        ),
        DrawKind::Indirect { args, indexed, .. } => {
            ((args, u64::from(indirect_words(indexed)) * 4), indexed)
        }
    };
    let words = indirect_words(indexed);
    let records = Records {
        src,
        words,
        stride: words * 4,
        count: 1,
    };
    let args = guarded_copy(dev, rec, &records, Some(c), None)?;
    Ok(DrawKind::Indirect {
        args,
        indexed,
        draw_index,
    })
}

/// Records one draw with pipeline `p`, its vertex program `vertex` and the command buffer's
/// other state, into every stream draws go to (each view of a multiview subpass).
pub fn draw_with(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
) -> Result<(), vk::Result> {
    let targets = rec
        .render
        .as_ref()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .targets
        .len();
    for i in 0..targets {
        let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
        rs.current = *rs.targets.get(i).ok_or(vk::Result::ERROR_UNKNOWN)?;
        draw_one(dev, rec, p, vertex, kind, None, None)?;
    }
    Ok(())
}

/// A transform feedback capture draw (xfb.rs) recorded in place of the ordinary one: the
/// pipeline's capture variant as a point list of `count` vertices per instance, rasterization
/// discarded, with the capture words after the graphics root table.
pub struct CaptureDraw<'a> {
    pub binary: &'a compiler::StageBinary,
    pub code: u32,
    pub stack_bytes: u32,
    /// Root table bytes from `abi::XFB_PARAMS_OFFSET` to `abi::XFB_ROOT_TABLE_SIZE`.
    pub params: Vec<u8>,
    pub count: u32,
    pub instances: u32,
    /// The GPU writes the vertex count and instances here (a VkDrawIndirectCommand) instead.
    pub indirect: Option<u64>,
}

/// Records a capture draw into the current stream; returns its root table.
pub fn draw_capture(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
    cap: &CaptureDraw<'_>,
) -> Result<Option<super::upload::Alloc>, vk::Result> {
    draw_one(dev, rec, p, vertex, kind, Some(cap), None)
}

/// The rasterization draw of a pipeline with a geometry shader (geometry.rs): the
/// pipeline's pass-through vertex shader over the index list the geometry draw wrote, with
/// primitive restart, as one instance.
pub struct RasterDraw {
    /// Root table bytes from `abi::XFB_PARAMS_OFFSET` to `abi::GEOMETRY_ROOT_TABLE_SIZE`.
    pub params: Vec<u8>,
    /// The geometry shader's output topology.
    pub primitive: Topology,
    /// The index list: `count` 32-bit indices.
    pub index: u64,
    pub count: u32,
    /// The GPU writes the VkDrawIndexedIndirectCommand here instead.
    pub indirect: Option<u64>,
}

/// Records a geometry pipeline's rasterization draw into the current stream; `vertex`
/// holds the pass-through vertex shader.
pub fn draw_raster(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
    raster: &RasterDraw,
) -> Result<(), vk::Result> {
    draw_one(dev, rec, p, vertex, kind, None, Some(raster)).map(|_| ())
}

/// Uploads the vertex USC words of a draw (shared with an identical earlier draw's) and
/// returns their offset in the shader window.
fn vertex_words(
    dev: &Device,
    rec: &mut Recording,
    v: VertexLaunch,
    root_va: u64,
) -> Result<u32, vk::Result> {
    let mut w = dev.emitter()?.graphics.vertex_words(&v, root_va);
    usc_offset(dev, rec.upload.push_shared(dev, &mut w, 64, None)?)
}

/// Uploads the fragment USC words of a draw in the current render (shared with an identical
/// earlier draw's) and returns their offset in the shader window.
fn fragment_words(
    dev: &Device,
    rec: &mut Recording,
    f: FragmentLaunch,
    textures: DrawTextures,
    root_va: u64,
) -> Result<u32, vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let graphics = dev.emitter()?.graphics;
    let mut w = graphics.fragment_words(&f, &rs.tilebuffer, &textures, root_va);
    usc_offset(dev, rec.upload.push_shared(dev, &mut w, 64, None)?)
}

/// Records one draw into the current stream with vertex program `vertex` (a capture draw
/// with `cap`, which runs its own program instead; a geometry pipeline's rasterization draw
/// with `raster`); returns its root table when the GPU may still write to it (capture,
/// rasterization and indirect draws). The root table of any other draw is the same memory as
/// an identical earlier one's (`Upload::push_shared`).
fn draw_one(
    dev: &Device,
    rec: &mut Recording,
    p: &GraphicsPipeline,
    vertex: &VertexProgram,
    kind: DrawKind,
    cap: Option<&CaptureDraw<'_>>,
    raster: Option<&RasterDraw>,
) -> Result<Option<super::upload::Alloc>, vk::Result> {
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    super::render::adopt_samples(rs, &p.tilebuffer)?;
    if rs.tilebuffer != p.tilebuffer {
        eprintln!("agx4: the bound pipeline was made for a subpass with another tilebuffer layout");
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let fb = &rs.fb;
    let (fb_width, fb_height) = (fb.width, fb.height);
    let view = rs.view_index();
    let params = match kind {
        DrawKind::Direct {
            first_vertex,
            first_instance,
            ..
        } => DrawParams {
            base_vertex: first_vertex as i32,
            first_instance,
            draw_index: 0,
        },
        DrawKind::Indexed {
            vertex_offset,
            first_instance,
            ..
        } => DrawParams {
            base_vertex: vertex_offset,
            first_instance,
            draw_index: 0,
        },
        // The GPU copies the rest from the arguments below.
        DrawKind::Indirect { draw_index, .. } => DrawParams {
            base_vertex: 0,
            first_instance: 0,
            draw_index,
        },
    };
    match kind {
        DrawKind::Direct { count: 0, .. }
        | DrawKind::Direct { instances: 0, .. }
        | DrawKind::Indexed { count: 0, .. }
        | DrawKind::Indexed { instances: 0, .. } => return Ok(None),
        _ => {}
    }

    // Root table and the USC words that preload it.
    let root_size = match (cap, raster) {
        (Some(c), _) => GRAPHICS_ROOT_TABLE_SIZE as usize + c.params.len(),
        (None, Some(r)) => GRAPHICS_ROOT_TABLE_SIZE as usize + r.params.len(),
        (None, None) => GRAPHICS_ROOT_TABLE_SIZE as usize,
    };
    let mut fx = super::dynamic_state::resolve(&p.fixed, rec.gfx());
    let mut table = Vec::with_capacity(root_size);
    table.resize(GRAPHICS_ROOT_TABLE_SIZE as usize, 0);
    root_table(&mut table, 0, rec, &fx, params, view);
    if let Some(c) = cap {
        table.extend_from_slice(&c.params);
        fx.primitive = Topology::Points;
        fx.rasterizer_discard = true;
    }
    if let Some(r) = raster {
        table.extend_from_slice(&r.params);
        fx.primitive = r.primitive;
    }
    let written = cap.is_some() || raster.is_some() || matches!(kind, DrawKind::Indirect { .. });
    let (root_va, root) = if written {
        let root = rec.upload.alloc(dev, root_size as u64, 16)?;
        let at = ROOT_ADDRESS_OFFSET as usize;
        table[at..at + 8].copy_from_slice(&root.va.to_le_bytes());
        rec.upload.write(&root, 0, &table)?;
        (root.va, Some(root))
    } else {
        let at = Some(ROOT_ADDRESS_OFFSET as usize);
        (rec.upload.push_shared(dev, &mut table, 16, at)?, None)
    };
    if let DrawKind::Indirect { args, indexed, .. } = kind {
        // The base vertex (firstVertex or vertexOffset) and first instance are in the
        // arguments, which the GPU may still be writing: a copy that runs before the render
        // command puts them into the root table. They are adjacent there as in the arguments.
        let at = if indexed { 12 } else { 8 };
        rec.barrier_pending = true;
        super::transfer::copy_bytes(
            dev,
            rec,
            args + at,
            root_va + u64::from(BASE_VERTEX_OFFSET),
            8,
        )?;
    }
    let b = &p.binary;
    let (vs_bin, vs_code, vs_stack_bytes) = match cap {
        Some(c) => (c.binary, c.code, c.stack_bytes),
        None => (&vertex.binary, vertex.code, vertex.stack_bytes),
    };
    let vertex_launch = VertexLaunch {
        code: vs_code,
        uniform_halves: vs_bin.uniform_halves,
        gpr_halves: vs_bin.gpr_halves,
        stack_bytes: vs_stack_bytes,
        preamble: vs_bin.preamble,
    };
    let vs_words = vertex_words(dev, rec, vertex_launch, root_va)?;
    // The pipeline's own fragment program, unless state compiled into it is dynamic and the
    // draw's differs from the one that program was compiled for.
    let fragment = match (&b.fragment, p.fragment_code) {
        (Some(f), Some(code)) => {
            let mut prog = crate::pipeline_blend::FragmentProgram {
                code,
                gpr_halves: f.gpr_halves,
                uniform_halves: f.uniform_halves,
                stack_bytes: p.fragment_stack_bytes,
                discards: b.discards,
                preamble: f.preamble,
                launch_uniform_halves: f.launch_uniform_halves(),
            };
            if let Some(v) = &p.variants {
                let key = crate::pipeline_blend::resolve(
                    &p.fixed.dynamic,
                    &p.fixed.blend,
                    &rec.gfx().ext.blend,
                    v.present,
                    v.samples,
                );
                if key != v.base {
                    prog = v.get(dev, &key)?;
                }
            }
            Some(prog)
        }
        _ => None,
    };
    // A variant that kills samples (a dynamic sample mask or alpha to coverage) needs the
    // late depth/stencil test and a punch-through pass like a shader that discards.
    let discards = b.discards || fragment.is_some_and(|f| f.discards);
    let late_tests = b.late_tests() || (discards && !b.early_fragment_tests);
    // Input attachment and spilled target textures are uploaded per draw, so a draw reading
    // them is never repeated.
    let mut textures_per_draw = false;
    let fragment_launch = fragment.map(|prog| FragmentLaunch {
        prog,
        early_z: !late_tests,
        loads_varyings: p.cf_binding_count > 0,
    });
    let fs_words = match fragment_launch {
        Some(f) => {
            let inputs = if b.reads_input_attachments {
                super::render::input_textures(dev, rec, &p.inputs)?
            } else {
                None
            };
            let spilled = super::render::spilled_textures(dev, rec)?;
            textures_per_draw = inputs.is_some() || spilled.is_some();
            let table = |t: Option<(u64, u32)>| t.map(|(va, count)| StateTable { count, va });
            let textures = DrawTextures {
                input_attachments: table(inputs),
                spilled_targets: table(spilled),
            };
            Some((f.prog, fragment_words(dev, rec, f, textures, root_va)?))
        }
        None => None,
    };

    let vp = fx.viewport.unwrap_or(vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: fb_width as f32,
        height: fb_height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    });
    // The depth range fragments are clamped to: the viewport's when clamping, all of [0, 1]
    // otherwise (as Mesa's Honeykrisp sets it).
    let depth_range = if fx.depth_clamp {
        (
            vp.min_depth.min(vp.max_depth),
            vp.min_depth.max(vp.max_depth),
        )
    } else {
        (0.0, 1.0)
    };
    let late = LateState {
        scissor: fx.scissor,
        depth_range,
        depth_bias: fx.depth_bias,
        primitive: fx.primitive,
        stencil_test: fx.stencil.is_some(),
        rasterizer_discard: fx.rasterizer_discard,
        punch_through: discards || (b.writes_memory && !b.early_fragment_tests),
    };
    // A draw of a secondary command buffer continuing a render pass instance gets its late
    // words when a primary executes it; any other draw gets them now, with the rest.
    let query = rec.gfx().occlusion.active();
    let inherited = rec
        .render
        .as_ref()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .inherited;
    let resolved = match inherited {
        false => Some(resolve_late(rec, &late, query)?),
        true => None,
    };

    // The index buffer and the draw block.
    let bound_index = rec.gfx().index;
    let list = match (cap, kind) {
        (None, _) if raster.is_some() => {
            let r = raster.ok_or(vk::Result::ERROR_UNKNOWN)?;
            IndexList {
                primitive: r.primitive,
                restart: true,
                index: Some(IndexBuffer {
                    va: r.index,
                    bytes: u64::from(r.count) * 4,
                    size: IndexSize::U32,
                }),
                count: r.indirect.is_none().then_some(r.count),
                instances: r.indirect.is_none().then_some(1),
                start: r.indirect.is_none().then_some(0),
                indirect: r.indirect,
            }
        }
        (Some(c), _) => IndexList {
            primitive: Topology::Points,
            restart: false,
            index: None,
            count: c.indirect.is_none().then_some(c.count),
            instances: c.indirect.is_none().then_some(c.instances),
            start: c.indirect.is_none().then_some(0),
            indirect: c.indirect,
        },
        (None, kind) => index_list(kind, fx.primitive, fx.restart, bound_index)?,
    };
    let state = DrawState {
        fx: &fx,
        pipeline: p,
        viewport: vp,
        vertex: (vs_bin, vs_words),
        fragment: fs_words,
        list: &list,
        late: resolved,
    };
    // Read after everything this draw changed in the state (the occlusion query binding).
    let repeatable = match direct_params(kind) {
        Some(params)
            if cap.is_none()
                && raster.is_none()
                && !inherited
                && !textures_per_draw
                && repeatable(rec) =>
        {
            Some(Repeatable {
                epoch: rec.epoch(),
                ff_epoch: rec.ff_epoch(),
                params,
                indexed: matches!(kind, DrawKind::Indexed { .. }),
                primitive: fx.primitive,
                restart: fx.restart,
                vertex: vertex_launch,
                fragment: fragment_launch,
                bound: [
                    Some(Bound {
                        root_va,
                        vs_words,
                        fs_words: fs_words.map(|(_, w)| w),
                        ppp: None,
                    }),
                    None,
                ],
            })
        }
        _ => None,
    };
    let graphics = dev.emitter()?.graphics;
    let upload = &mut rec.upload;
    let rs = rec
        .render
        .as_mut()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .stream()?;
    rs.repeatable = repeatable;
    let mut push = |b: &mut Vec<u8>| upload.push_shared(dev, b, 64, None);
    graphics.draw_state(&state, &mut rs.words(), &mut push)?;
    if inherited {
        rs.late.push(LateDraw {
            at: rs.vdm.len(),
            state: late,
            query,
        });
    }
    graphics.index_list(&list, &mut rs.vdm);
    rs.draws += 1;
    Ok(root)
}

pub unsafe extern "system" fn cmd_draw(
    cb: vk::CommandBuffer,
    count: u32,
    instances: u32,
    first_vertex: u32,
    first_instance: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDraw", cb, |dev, rec| {
        draw(
            dev,
            rec,
            DrawKind::Direct {
                count,
                instances,
                first_vertex,
                first_instance,
            },
        )
    })
}

pub unsafe extern "system" fn cmd_draw_indexed(
    cb: vk::CommandBuffer,
    count: u32,
    instances: u32,
    first_index: u32,
    vertex_offset: i32,
    first_instance: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawIndexed", cb, |dev, rec| {
        draw(
            dev,
            rec,
            DrawKind::Indexed {
                count,
                instances,
                first_index,
                vertex_offset,
                first_instance,
            },
        )
    })
}

/// `count` indirect draws from `buffer`, `stride` bytes apart; with `count_va`, only as many
/// as the 32-bit word there says (vkCmdDraw*IndirectCount, `count` being the maximum).
///
/// # Safety
/// `buffer` must be `VK_NULL_HANDLE` or a live buffer made by this driver, not destroyed during
/// the call. The buffer of an indirect draw command is such a handle (Vulkan valid usage).
#[allow(clippy::too_many_arguments)]
unsafe fn draw_indirect(
    dev: &Device,
    rec: &mut Recording,
    buffer: vk::Buffer,
    offset: u64,
    count: u32,
    stride: u32,
    indexed: bool,
    count_va: Option<u64>,
) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller: `buffer` is null or a live buffer made by this driver
    // that outlives the call.
    let buf = unsafe { Buffer::from_handle(buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let base = buf.va.load(Ordering::Acquire) + offset;
    draw_records(dev, rec, base, count, stride, indexed, count_va)
}

/// `count` draws whose VkDraw(Indexed)IndirectCommand records are in GPU memory at `base`,
/// `stride` bytes apart; with `count_va`, only as many as the 32-bit word there says.
pub(super) fn draw_records(
    dev: &Device,
    rec: &mut Recording,
    mut base: u64,
    count: u32,
    mut stride: u32,
    indexed: bool,
    count_va: Option<u64>,
) -> Result<(), vk::Result> {
    let words = indirect_words(indexed);
    if count == 0 {
        return Ok(());
    }
    if count == 1 {
        // The stride of a single draw is not used and need not be valid.
        stride = words * 4;
    }
    if rec.condition.is_some() || count_va.is_some() {
        let records = Records {
            src: (
                base,
                u64::from(stride) * u64::from(count - 1) + u64::from(words) * 4,
            ),
            words,
            stride,
            count,
        };
        let condition = rec.condition;
        base = guarded_copy(dev, rec, &records, condition, count_va)?;
        stride = words * 4;
    }
    for i in 0..count {
        draw_unguarded(
            dev,
            rec,
            DrawKind::Indirect {
                args: base + u64::from(i) * u64::from(stride),
                indexed,
                draw_index: i,
            },
        )?;
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_draw_indirect(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    count: u32,
    stride: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawIndirect", cb, |dev, rec| {
        // SAFETY: `buffer` is vkCmdDrawIndirect's buffer parameter, which valid usage requires to
        // be a live buffer made by this driver.
        unsafe { draw_indirect(dev, rec, buffer, offset, count, stride, false, None) }
    })
}

pub unsafe extern "system" fn cmd_draw_indexed_indirect(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    count: u32,
    stride: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdDrawIndexedIndirect", cb, |dev, rec| {
        // SAFETY: `buffer` is vkCmdDrawIndexedIndirect's buffer parameter, which valid usage
        // requires to be a live buffer made by this driver.
        unsafe { draw_indirect(dev, rec, buffer, offset, count, stride, true, None) }
    })
}

/// vkCmdDrawIndirectCount and vkCmdDrawIndexedIndirectCount.
///
/// # Safety
/// `cb` must be a live command buffer made by this driver, and `buffer` and `count_buffer`
/// each `VK_NULL_HANDLE` or a live buffer made by this driver, none destroyed during the call.
/// The commandBuffer, buffer and countBuffer of vkCmdDrawIndirectCount or
/// vkCmdDrawIndexedIndirectCount are such handles (Vulkan valid usage).
#[allow(clippy::too_many_arguments)]
unsafe fn draw_indirect_count(
    name: &'static str,
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    count_buffer: vk::Buffer,
    count_offset: vk::DeviceSize,
    max_draws: u32,
    stride: u32,
    indexed: bool,
) {
    // SAFETY: guaranteed by the caller.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record(name, cb, |dev, rec| {
        // SAFETY: guaranteed by the caller: `count_buffer` is null or a live buffer made by this
        // driver that outlives the call.
        let counts =
            unsafe { Buffer::from_handle(count_buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let count_va = counts.va.load(Ordering::Acquire) + count_offset;
        // SAFETY: guaranteed by the caller: `buffer` is null or a live buffer made by this
        // driver that outlives the call.
        unsafe {
            draw_indirect(
                dev,
                rec,
                buffer,
                offset,
                max_draws,
                stride,
                indexed,
                Some(count_va),
            )
        }
    })
}

pub unsafe extern "system" fn cmd_draw_indirect_count(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    count_buffer: vk::Buffer,
    count_offset: vk::DeviceSize,
    max_draws: u32,
    stride: u32,
) {
    // SAFETY: `cb`, `buffer` and `count_buffer` are vkCmdDrawIndirectCount's commandBuffer,
    // buffer and countBuffer, which valid usage requires to be a live command buffer and live
    // buffers made by this driver.
    unsafe {
        draw_indirect_count(
            "vkCmdDrawIndirectCount",
            cb,
            buffer,
            offset,
            count_buffer,
            count_offset,
            max_draws,
            stride,
            false,
        )
    }
}

pub unsafe extern "system" fn cmd_draw_indexed_indirect_count(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    count_buffer: vk::Buffer,
    count_offset: vk::DeviceSize,
    max_draws: u32,
    stride: u32,
) {
    // SAFETY: `cb`, `buffer` and `count_buffer` are vkCmdDrawIndexedIndirectCount's
    // commandBuffer, buffer and countBuffer, which valid usage requires to be a live command
    // buffer and live buffers made by this driver.
    unsafe {
        draw_indirect_count(
            "vkCmdDrawIndexedIndirectCount",
            cb,
            buffer,
            offset,
            count_buffer,
            count_offset,
            max_draws,
            stride,
            true,
        )
    }
}

pub unsafe extern "system" fn cmd_bind_vertex_buffers(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindVertexBuffers", cb, |_, rec| {
        // SAFETY: valid usage: both arrays hold `count` entries.
        let (bufs, offsets) = unsafe {
            (
                handle::slice(p_buffers, count),
                handle::slice(p_offsets, count),
            )
        };
        for (i, (&b, &o)) in bufs.iter().zip(offsets).enumerate() {
            let slot = rec
                .bindings_mut()
                .vertex_buffers
                .get_mut(first as usize + i)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            // SAFETY: Vulkan valid usage: each of `pBuffers` is a live buffer made by this driver.
            let buf = unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
            *slot = (
                buf.va.load(Ordering::Acquire) + o,
                buf.size.saturating_sub(o),
            );
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_bind_index_buffer(
    cb: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: vk::DeviceSize,
    ty: vk::IndexType,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindIndexBuffer", cb, |_, rec| {
        // SAFETY: Vulkan valid usage: `buffer` is a live buffer made by this driver.
        let buf = unsafe { Buffer::from_handle(buffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // VK_EXT_index_type_uint8 among them: the VDM reads 8-bit indices natively.
        let size = IndexSize::of(ty).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
        rec.bindings_mut().index = Some((
            buf.va.load(Ordering::Acquire) + offset,
            buf.size.saturating_sub(offset),
            size,
        ));
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_viewport(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_viewports: *const vk::Viewport,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetViewport", cb, |_, rec| {
        // SAFETY: valid usage: the array holds `count` viewports.
        let vps = unsafe { handle::slice(p_viewports, count) };
        if first == 0 {
            rec.gfx_mut().viewport = vps.first().copied().or(rec.gfx().viewport);
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_scissor(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_scissors: *const vk::Rect2D,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetScissor", cb, |_, rec| {
        // SAFETY: valid usage: the array holds `count` rectangles.
        let rects = unsafe { handle::slice(p_scissors, count) };
        if first == 0 {
            rec.gfx_mut().scissor = rects.first().copied().or(rec.gfx().scissor);
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_line_width(cb: vk::CommandBuffer, width: f32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetLineWidth", cb, |_, rec| {
        rec.gfx_mut().line_width = width;
        Ok(())
    })
}

/// Stippled lines need one of the stippled*Lines features of VK_EXT_line_rasterization, which
/// agx4 does not offer; a pipeline may still make the stipple dynamic, so it is recorded as
/// nothing.
pub unsafe extern "system" fn cmd_set_line_stipple(
    cb: vk::CommandBuffer,
    _factor: u32,
    _pattern: u16,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetLineStippleEXT", cb, |_, _| Ok(()))
}

/// Depth bounds only matter to the depth bounds test, which needs the depthBounds feature
/// agx4 does not offer; valid usage still lets a pipeline make the state dynamic and a
/// command buffer set it, so it is recorded as nothing.
pub unsafe extern "system" fn cmd_set_depth_bounds(cb: vk::CommandBuffer, _min: f32, _max: f32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetDepthBounds", cb, |_, _| Ok(()))
}

pub unsafe extern "system" fn cmd_set_depth_bias(
    cb: vk::CommandBuffer,
    constant: f32,
    clamp: f32,
    slope: f32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetDepthBias", cb, |_, rec| {
        rec.gfx_mut().depth_bias = DepthBiasState {
            constant,
            clamp,
            slope,
        };
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_blend_constants(
    cb: vk::CommandBuffer,
    constants: *const [f32; 4],
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetBlendConstants", cb, |_, rec| {
        // SAFETY: valid usage: four floats.
        rec.gfx_mut().blend_constants = unsafe { *constants };
        Ok(())
    })
}

fn faces(mask: vk::StencilFaceFlags) -> impl Iterator<Item = usize> {
    [
        (vk::StencilFaceFlags::FRONT, 0),
        (vk::StencilFaceFlags::BACK, 1),
    ]
    .into_iter()
    .filter(move |(f, _)| mask.contains(*f))
    .map(|(_, i)| i)
}

pub unsafe extern "system" fn cmd_set_stencil_compare_mask(
    cb: vk::CommandBuffer,
    mask: vk::StencilFaceFlags,
    value: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetStencilCompareMask", cb, |_, rec| {
        for f in faces(mask) {
            rec.gfx_mut().stencil_compare_mask[f] = value & 0xff;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_stencil_write_mask(
    cb: vk::CommandBuffer,
    mask: vk::StencilFaceFlags,
    value: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetStencilWriteMask", cb, |_, rec| {
        for f in faces(mask) {
            rec.gfx_mut().stencil_write_mask[f] = value & 0xff;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_stencil_reference(
    cb: vk::CommandBuffer,
    mask: vk::StencilFaceFlags,
    value: u32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetStencilReference", cb, |_, rec| {
        for f in faces(mask) {
            rec.gfx_mut().stencil_reference[f] = value & 0xff;
        }
        Ok(())
    })
}
