//! A render command from start to end: the VDM walk hands each draw to the `Renderer`, which
//! shades its vertices, sets up its primitives and bins them into tiles while reserving TVB
//! bytes. When the heap is full the binned primitives are rendered in a partial pass (every
//! tile: `bg` the first time or `partial_bg` later, the primitives, `partial_eot`, forced ZLS
//! store) and binning continues with empty bins. The final pass ends every tile with `eot`.
//!
//! Primitives are binned to every tile in which they cover a sample (after the scissor).

use super::assembly::{assemble, AssembledPrimitive, ProvokingVertex};
use super::budget::{RenderStats, TvbBudget, TvbFull};
use super::fragment::FragState;
use super::pass::run_pass;
use super::planes::Bindings;
use super::prim_store::{self, PrimStore};
use super::primitive::{setup_state, DrawSetup, Geometry, RasterPrim};
use super::programs::Programs;
use super::tiles::{Pass, PassInput, Target, TilePrograms};
use super::vertex;
use super::walker::{walk_vdm_stream, DrawCall, DrawSink};
use crate::isp::{CompareOp, DepthRange, DepthState, StencilFace, StencilState, ZsState};
use crate::pool::{self, Pool};
use crate::raster::bin::{touches, TvbCostModel};
use crate::raster::clip::ClipOptions;
use crate::raster::Rect;
use crate::usc::texture::SamplerHeap;
use crate::{Fault, GpuMemory, RenderCommand};
use hw::g13::control::descriptors::{CoefficientSource, DepthBias, Scissor, ZsFunc};
use hw::g13::control::ppp::{PolygonMode, PppUpdate, PppVertex, VisibilityMode};
use hw::g13::control::vdm::VdmVertex;
use hw::isa::Codec;
use std::sync::Mutex;
use std::time::Duration;

/// Largest vertex count times instance count of one draw the model accepts: its primitives
/// and vertices are held in memory at once.
const MAX_DRAW_VERTICES: u64 = 1 << 24;

fn bad(va: u64, why: impl Into<String>) -> Fault {
    Fault::BadControlWord {
        va,
        reason: why.into(),
    }
}

/// Runs a render command to completion.
pub fn execute(
    cmd: &RenderCommand,
    codec: &'static dyn Codec,
    mem: &mut dyn GpuMemory,
    tvb: &mut dyn TvbBudget,
) -> Result<RenderStats, Fault> {
    execute_on(cmd, codec, mem, tvb, Pool::host())
}

/// [`execute`] with vertices and tiles on up to `pool`'s threads (when `mem` can be shared
/// and the shaders allow it; see `pass` and `vertex`).
pub fn execute_on(
    cmd: &RenderCommand,
    codec: &'static dyn Codec,
    mem: &mut dyn GpuMemory,
    tvb: &mut dyn TvbBudget,
    pool: Pool,
) -> Result<RenderStats, Fault> {
    let target = Target::new(cmd)?;
    let heap = SamplerHeap {
        base: cmd.sampler_heap,
        count: cmd.sampler_count,
    };
    let mut programs = Programs::new(codec, cmd.usc_exec_base, heap, true);
    let tile_programs = TilePrograms::load(cmd, &mut programs, mem)?;
    let tiles = (target.tiles_x * target.tiles_y) as usize;
    let mut r = Renderer {
        cmd,
        target,
        programs,
        tile_programs,
        tvb,
        cost: TvbCostModel::default(),
        states: Vec::new(),
        prims: PrimStore::default(),
        bins: vec![Vec::new(); tiles],
        passes: 0,
        uses_depth: false,
        uses_stencil: false,
        stats: RenderStats::default(),
        pool,
    };
    walk_vdm_stream(cmd, mem, &mut r)?;
    r.pass(mem, true, u32::MAX)?;
    Ok(r.stats)
}

/// Parses a render command as [`execute`] does (its target, tile programs and VDM stream with
/// every state update and draw) without shading or rasterising anything: the no-execute mode
/// that measures the driver apart from the simulated GPU.
pub fn walk_only(
    cmd: &RenderCommand,
    codec: &'static dyn Codec,
    mem: &mut dyn GpuMemory,
) -> Result<RenderStats, Fault> {
    struct Count(u64);
    impl DrawSink for Count {
        fn draw(&mut self, _: &DrawCall, _: &mut dyn GpuMemory) -> Result<(), Fault> {
            self.0 += 1;
            Ok(())
        }
    }
    Target::new(cmd)?;
    let heap = SamplerHeap {
        base: cmd.sampler_heap,
        count: cmd.sampler_count,
    };
    let mut programs = Programs::new(codec, cmd.usc_exec_base, heap, false);
    TilePrograms::load(cmd, &mut programs, mem)?;
    let mut count = Count(0);
    walk_vdm_stream(cmd, mem, &mut count)?;
    Ok(RenderStats {
        draws: count.0,
        ..RenderStats::default()
    })
}

struct Renderer<'a> {
    cmd: &'a RenderCommand,
    target: Target,
    programs: Programs,
    tile_programs: TilePrograms,
    tvb: &'a mut dyn TvbBudget,
    cost: TvbCostModel,
    states: Vec<FragState>,
    prims: PrimStore,
    bins: Vec<Vec<u32>>,
    passes: u64,
    /// Some draw binned so far reads or writes depth (stencil), so a partial render must
    /// carry the values over through the depth (stencil) ZLS buffer.
    uses_depth: bool,
    uses_stencil: bool,
    stats: RenderStats,
    pool: Pool,
}

impl Renderer<'_> {
    /// Renders every tile with what is binned, then empties the bins and releases the
    /// primitives numbered below `keep`.
    fn pass(&mut self, mem: &mut dyn GpuMemory, last: bool, keep: u32) -> Result<(), Fault> {
        let pass = Pass {
            first: self.passes == 0,
            last,
        };
        let inp = PassInput {
            target: &self.target,
            programs: &self.tile_programs,
            prims: &self.prims,
            states: &self.states,
        };
        self.stats.fragments += run_pass(&inp, &self.bins, pass, mem, self.pool)?;
        self.passes += 1;
        self.prims.release_below(keep);
        for b in &mut self.bins {
            b.clear();
        }
        Ok(())
    }

    /// A partial render before primitive `next` is binned.
    fn partial_render(&mut self, mem: &mut dyn GpuMemory, next: u32) -> Result<(), Fault> {
        let t = &self.target;
        let lost = match (
            self.uses_depth && t.depth.is_none(),
            self.uses_stencil && t.stencil.is_none(),
        ) {
            (true, _) => Some("depth"),
            (_, true) => Some("stencil"),
            _ => None,
        };
        if let Some(what) = lost {
            return Err(Fault::BadControlWord {
                va: 0,
                reason: format!(
                    "the TVB heap overflowed in a render that uses {what} without a {what} ZLS \
                     buffer, so a partial render cannot keep its {what} values"
                ),
            });
        }
        self.pass(mem, false, next)?;
        self.stats.partial_renders += 1;
        self.tvb.flush_partial();
        Ok(())
    }

    /// Bins primitive `index` of the store into `tiles`, running a partial render first if
    /// the heap has no room.
    fn bin(&mut self, index: u32, tiles: &[u32], mem: &mut dyn GpuMemory) -> Result<(), Fault> {
        if tiles.is_empty() {
            return Ok(());
        }
        let bytes = self.cost.primitive_bytes(tiles.len());
        match self.tvb.reserve(bytes) {
            Ok(()) => {}
            Err(TvbFull::Full) => {
                self.partial_render(mem, index)?;
                self.tvb
                    .reserve(bytes)
                    .map_err(|e| bad(0, format!("TVB: {e}")))?;
            }
            Err(e) => return Err(bad(0, format!("TVB: {e}"))),
        }
        self.stats.tvb_bytes += bytes;
        let state = self
            .prims
            .get(index)
            .ok_or(Fault::Internal("a primitive to bin was released"))?
            .state;
        let zs = &self.states[state as usize].zs;
        let d = &zs.depth;
        self.uses_depth |= d.test_enable && (d.compare_op != CompareOp::Always || d.write_enable);
        self.uses_stencil |= zs.stencil.test_enable;
        for &t in tiles {
            self.bins[t as usize].push(index);
        }
        Ok(())
    }

    /// The fragment-stage state of a draw.
    fn frag_state(
        &mut self,
        ppp: &PppUpdate,
        mem: &mut dyn GpuMemory,
    ) -> Result<(FragState, Option<Bindings>), Fault> {
        let t = &self.target;
        let fc = ppp.fragment_control;
        let index = ppp.depth_bias_scissor.unwrap_or_default();
        let fb = Rect::new(0, 0, t.width, t.height);
        let mut scissor = fb;
        if fc.is_some_and(|c| c.scissor_enable) {
            let mut b = [0u8; Scissor::SIZE];
            mem.read(
                self.cmd
                    .isp_scissor_base
                    .wrapping_add(Scissor::SIZE as u64 * u64::from(index.scissor)),
                &mut b,
            )?;
            let s = Scissor::unpack(&b)?;
            let w = s.max_x.saturating_sub(s.min_x);
            let h = s.max_y.saturating_sub(s.min_y);
            scissor = Rect::new(s.min_x, s.min_y, w, h).intersect(&fb);
        }
        let mut bias = None;
        if fc.is_some_and(|c| c.depth_bias_enable) {
            let mut b = [0u8; DepthBias::SIZE];
            mem.read(
                self.cmd
                    .isp_dbias_base
                    .wrapping_add(DepthBias::SIZE as u64 * u64::from(index.depth_bias)),
                &mut b,
            )?;
            bias = Some(DepthBias::unpack(&b)?);
        }
        let clamp = match (ppp.cull, ppp.viewports.as_ref().and_then(|v| v.first())) {
            (Some(c), Some(vp)) if c.depth_clamp => Some(DepthRange {
                min_depth: vp.translate_z,
                max_depth: vp.translate_z + vp.scale_z,
            }),
            _ => None,
        };
        // Fragment Face 2 adds a second depth function that must also pass, and depth is
        // written unless both words disable it.
        let face2 = ppp.front_face_2;
        if face2.is_some_and(|f| f.depth_function != ZsFunc::Always) {
            return Err(Fault::Unimplemented(
                "a depth function in fragment face 2 other than always",
            ));
        }
        let depth = match ppp.front_face {
            Some(f) => DepthState {
                test_enable: true,
                write_enable: !(f.disable_depth_write
                    && face2.is_none_or(|f2| f2.disable_depth_write)),
                compare_op: CompareOp::from(f.depth_function),
                clamp,
            },
            None => DepthState {
                clamp,
                ..DepthState::DISABLED
            },
        };
        let stencil_face =
            |face: Option<hw::g13::control::ppp::FragmentFace>,
             st: Option<hw::g13::control::ppp::FragmentStencil>| {
                match st {
                    Some(s) => StencilFace {
                        fail_op: s.stencil_fail.into(),
                        pass_op: s.depth_pass.into(),
                        depth_fail_op: s.depth_fail.into(),
                        compare_op: CompareOp::from(s.compare),
                        compare_mask: s.read_mask as u8,
                        write_mask: s.write_mask as u8,
                        reference: face.map_or(0, |f| f.stencil_reference as u8),
                    },
                    None => StencilFace::KEEP_ALWAYS,
                }
            };
        let front = stencil_face(ppp.front_face, ppp.front_stencil);
        let back = if fc.is_some_and(|c| c.two_sided_stencil) {
            stencil_face(
                ppp.back_face.or(ppp.front_face),
                ppp.back_stencil.or(ppp.front_stencil),
            )
        } else {
            front
        };
        let stencil = StencilState {
            test_enable: fc.is_some_and(|c| c.stencil_test_enable),
            front,
            back,
        };
        // Back-facing primitives test depth with the back face word when it is given.
        if ppp
            .back_face
            .is_some_and(|b| Some(b.depth_function) != ppp.front_face.map(|f| f.depth_function))
        {
            return Err(Fault::Unimplemented(
                "different front and back depth functions",
            ));
        }
        let occlusion = match (ppp.occlusion_query, fc.map(|c| c.visibility_mode)) {
            (Some(q), Some(mode)) if mode != VisibilityMode::None => Some((
                self.cmd
                    .isp_oclqry_base
                    .wrapping_add(8 * u64::from(q.index)),
                mode,
            )),
            _ => None,
        };
        let (fs, bindings) = match &ppp.fragment_shader {
            Some(f) if f.pipeline != 0 => {
                let p = self.programs.load(mem, f.pipeline)?;
                t.check_tilebuffer(&p)?;
                let b = Bindings::read(
                    mem,
                    self.cmd
                        .usc_exec_base
                        .wrapping_add(u64::from(f.cf_bindings)),
                    f.cf_binding_count,
                )?;
                (Some(p), Some(b))
            }
            _ => (None, None),
        };
        let early_z = fs.as_ref().is_none_or(|p| p.words.early_z.unwrap_or(true));
        let depth_registers = bindings.as_ref().map_or(Vec::new(), |b| {
            b.list
                .iter()
                .filter(|c| c.source == CoefficientSource::FragcoordZ)
                .flat_map(|c| {
                    (0..c.components).map(move |k| (c.base_coefficient_register + k) as usize)
                })
                .collect()
        });
        Ok((
            FragState {
                fs,
                early_z,
                zs: ZsState { depth, stencil },
                scissor,
                bias,
                depth_registers,
                occlusion,
            },
            bindings,
        ))
    }
}

impl DrawSink for Renderer<'_> {
    fn draw(&mut self, draw: &DrawCall, mem: &mut dyn GpuMemory) -> Result<(), Fault> {
        self.stats.draws += 1;
        let va = draw.va;
        let vstate = &draw.state.vertex;
        let ppp = &draw.state.ppp;
        let vs_words = vstate
            .vertex_shader_word_1
            .ok_or_else(|| bad(va, "draw without a vertex shader"))?;
        let slots = vstate
            .vertex_outputs
            .ok_or_else(|| bad(va, "draw without a vertex outputs word"))?
            .count_1;
        if slots < 4 {
            return Err(bad(
                va,
                format!("UVS record of {slots} words holds no position"),
            ));
        }
        let provoking = match (
            ppp.cull.map(|c| c.flat_shading_vertex),
            vstate.vertex_unknown,
        ) {
            (Some(PppVertex::V0), _) => ProvokingVertex::First,
            (Some(PppVertex::V2), _) => ProvokingVertex::Last,
            (Some(PppVertex::V1), _) => {
                ProvokingVertex::from_vdm(draw.params.primitive, VdmVertex::V1)?
            }
            (None, Some(u)) => {
                ProvokingVertex::from_vdm(draw.params.primitive, u.flat_shading_control)?
            }
            (None, None) => ProvokingVertex::First,
        };
        let work = u64::from(draw.params.count) * u64::from(draw.params.instances);
        if work > MAX_DRAW_VERTICES {
            return Err(Fault::Unimplemented(
                "draws of more than 2^24 vertices times instances",
            ));
        }
        let mut prims: Vec<AssembledPrimitive> = Vec::new();
        assemble(
            &draw.params,
            vstate.restart_index,
            provoking,
            mem,
            &mut |p| {
                prims.push(p);
                Ok(())
            },
        )?;
        self.stats.primitives += prims.len() as u64;
        if prims.is_empty() {
            return Ok(());
        }
        let vs = self.programs.load(mem, vs_words.pipeline)?;
        let shaded = vertex::shade(&vs, slots, &prims, mem, self.pool)?;
        let discard = ppp.cull.is_some_and(|c| c.rasterizer_discard)
            || ppp.cull_2.is_some_and(|c| c.rasterizer_discard);
        if discard {
            return Ok(());
        }
        if ppp
            .output_select
            .is_some_and(|o| o.viewport_target || o.render_target)
        {
            return Err(Fault::Unimplemented(
                "viewport and layer selection by the vertex shader",
            ));
        }
        let viewport = *ppp
            .viewports
            .as_ref()
            .and_then(|v| v.first())
            .ok_or_else(|| bad(va, "draw without a viewport"))?;
        let (state, bindings) = self.frag_state(ppp, mem)?;
        let state_index = self.states.len() as u32;
        self.states.push(state);
        let cull = ppp.cull;
        let setup = DrawSetup {
            state: state_index,
            viewport,
            clip: ClipOptions {
                depth_clamp: cull.is_some_and(|c| !c.depth_clip),
            },
            clip_planes: ppp
                .output_select
                .map_or(0, |o| o.clip_distance_planes as u16),
            setup: setup_state(
                cull.is_some_and(|c| c.cull_front),
                cull.is_some_and(|c| c.cull_back),
                cull.is_none_or(|c| c.front_face_ccw),
            ),
            point_size: ppp.output_select.is_some_and(|o| o.point_size),
            line_width: ppp
                .front_face
                .map_or(1.0, |f| (f.line_width + 1) as f32 / 16.0),
            whole_pixel_lines: cull.is_some_and(|c| c.primitive_msaa),
            polygon_mode: ppp.front_face.map_or(PolygonMode::Fill, |f| f.polygon_mode),
            bindings: bindings.as_ref(),
        };
        // Setup and the tiles each primitive touches are independent per primitive, so they
        // run on the pool in batches; binning (TVB reservations, partial renders) stays in
        // primitive order, and a batch's fault is raised only once the primitives before
        // it are binned, as a serial loop would. A window of batches at a time is set up
        // and binned, so a huge draw never holds all its set-up primitives at once.
        let batches = prims.len().div_ceil(SETUP_BATCH);
        for window in (0..batches).step_by(SETUP_WINDOW) {
            let n = (batches - window).min(SETUP_WINDOW);
            let (target, states) = (&self.target, &self.states[..]);
            let results: Vec<Mutex<SetupBatch>> = (0..n).map(|_| Mutex::default()).collect();
            // A draw with a window after the first is long enough for helpers at once.
            let alone = if window == 0 {
                self.pool.alone
            } else {
                Duration::ZERO
            };
            pool::run(
                n as u64,
                self.pool.threads,
                alone,
                || (),
                |_, i| {
                    let first = (window + i as usize) * SETUP_BATCH;
                    let range = first..prims.len().min(first + SETUP_BATCH);
                    let batch = setup_batch(&setup, &prims, &shaded, range, target, states);
                    *results[i as usize]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = batch;
                    Ok(())
                },
                |_| {},
            )?;
            for r in results {
                let batch = r.into_inner().unwrap_or_else(|e| e.into_inner());
                let first = self.prims.append(batch.prims)?;
                let mut from = 0;
                for (k, &to) in batch.tile_ends.iter().enumerate() {
                    self.bin(first + k as u32, &batch.tiles[from..to as usize], mem)?;
                    from = to as usize;
                }
                if let Some(f) = batch.fault {
                    return Err(f);
                }
            }
        }
        Ok(())
    }
}

/// Primitives set up in one task of a draw's setup (fewer in tests, whose scenes are small,
/// so that they run several batches on several threads).
const SETUP_BATCH: usize = if cfg!(test) { 64 } else { 512 };
/// Batches set up before they are binned (in tests, few enough that a scene has several
/// windows).
const SETUP_WINDOW: usize = if cfg!(test) { 2 } else { 64 };

/// A batch of a draw's primitives, set up: what to bin, with the tiles each touches (those of
/// primitive `i` end at `tile_ends[i]` in `tiles`), and the fault that stopped the batch, if
/// one did.
#[derive(Default)]
struct SetupBatch {
    prims: Vec<RasterPrim>,
    tiles: Vec<u32>,
    tile_ends: Vec<u32>,
    fault: Option<Fault>,
}

fn setup_batch(
    setup: &DrawSetup,
    prims: &[AssembledPrimitive],
    shaded: &vertex::ShadedVertices,
    range: std::ops::Range<usize>,
    target: &Target,
    states: &[FragState],
) -> SetupBatch {
    let mut batch = SetupBatch {
        prims: prim_store::batch_vec(range.len()),
        tiles: Vec::with_capacity(range.len()),
        tile_ends: Vec::with_capacity(range.len()),
        fault: None,
    };
    for k in range {
        let p = &prims[k];
        // Set up straight into the batch (a primitive is hundreds of bytes to move); a
        // primitive that faults leaves nothing of itself behind.
        let before = batch.prims.len();
        let r = match shaded.primitive_records(k) {
            Some(recs) => setup.process_records(p, recs, &mut batch.prims),
            None => setup.process(p, shaded, &mut batch.prims),
        };
        if let Err(f) = r {
            batch.prims.truncate(before);
            batch.fault = Some(f);
            break;
        }
        for rp in &batch.prims[before..] {
            tiles_of(target, states, rp, &mut batch.tiles);
            batch.tile_ends.push(batch.tiles.len() as u32);
        }
    }
    batch
}

/// Appends to `out` the tiles the primitive covers a sample of.
fn tiles_of(t: &Target, states: &[FragState], p: &RasterPrim, out: &mut Vec<u32>) {
    let fb = Rect::new(0, 0, t.width, t.height);
    let area = fb.intersect(&states[p.state as usize].scissor);
    let bounds = match &p.geom {
        Geometry::Triangle(tri) => tri.pixel_bounds(&area),
        Geometry::Line(l) => {
            let (a, b) = (
                l.halves[0].pixel_bounds(&area),
                l.halves[1].pixel_bounds(&area),
            );
            let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
            let (x1, y1) = (a.x_end().max(b.x_end()), a.y_end().max(b.y_end()));
            Rect::new(x0, y0, x1 - x0, y1 - y0).intersect(&area)
        }
        Geometry::Point(pt) => {
            let one = crate::raster::SUBPIXEL_ONE;
            let x0 = pt.x0.div_euclid(one).max(0);
            let y0 = pt.y0.div_euclid(one).max(0);
            let x1 = (pt.x1.div_euclid(one) + 1).max(x0);
            let y1 = (pt.y1.div_euclid(one) + 1).max(y0);
            let clamp = |v: i64| v.min(i64::from(u32::MAX)) as u32;
            let r = Rect::new(clamp(x0), clamp(y0), clamp(x1 - x0), clamp(y1 - y0));
            r.intersect(&area)
        }
    };
    if bounds.is_empty() {
        return;
    }
    for ty in bounds.y / t.tile_h..=(bounds.y_end() - 1) / t.tile_h {
        for tx in bounds.x / t.tile_w..=(bounds.x_end() - 1) / t.tile_w {
            let r = t.tile_rect(tx, ty).intersect(&bounds);
            let hit = match &p.geom {
                Geometry::Triangle(tri) => touches(tri, t.samples, &r),
                Geometry::Line(l) => {
                    let mut any = false;
                    l.rasterize(t.samples, &r, |_, _, _| any = true);
                    any
                }
                Geometry::Point(pt) => {
                    let mut any = false;
                    pt.rasterize(t.samples, &r, |_, _, _| any = true);
                    any
                }
            };
            if hit {
                out.push(ty * t.tiles_x + tx);
            }
        }
    }
}
