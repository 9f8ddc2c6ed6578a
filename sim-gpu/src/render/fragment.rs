//! One primitive in one tile: coverage, the depth/stencil test before or after the fragment
//! shader, the shader over the covered pixels in 2x2 quads, eight quads (32 lanes) at a time,
//! and the occlusion query. Pixels of a quad that are not covered (or failed the early test)
//! run as helper lanes with no coverage: they write no colour, depth or memory and count in
//! no query, but their values feed the quad's derivatives.
//!
//! After an early test, quads of consecutive primitives of one shader share SIMD groups
//! ([`Pending`]): each lane reads its own primitive's coefficient registers and facing, no two
//! lanes of a group are at one pixel, and a pixel's primitives shade in order.
//!
//! With a late test (the shader discards or writes depth) the shader runs on every covered
//! pixel first; its tilebuffer writes to samples that then fail the test are undone from a
//! copy taken before it ran, so only passing samples change colour.

use super::primitive::RasterPrim;
use super::programs::Loaded;
use super::tiles::{launch_of, set_lanes, Target};
use crate::isp::{DepthFormat, Facing, ZsState, ZsTile};
use crate::raster::coverage::sample_point;
use crate::raster::Rect;
use crate::usc::{self, GraphicsContext, LaunchState};
use crate::{Fault, GpuMemory};
use hw::g13::control::descriptors::DepthBias;
use hw::g13::control::ppp::VisibilityMode;
use hw::isa::{quad_lane, quad_pixel, QUAD_LANES, SIMD_WIDTH};
use std::sync::Arc;

/// The fragment-stage state of one draw.
#[derive(Debug, Clone)]
pub struct FragState {
    pub fs: Option<Arc<Loaded>>,
    /// Test depth/stencil before the shader.
    pub early_z: bool,
    pub zs: ZsState,
    /// Scissor in framebuffer pixels (the whole framebuffer when disabled).
    pub scissor: Rect,
    pub bias: Option<DepthBias>,
    /// Coefficient registers the fragment shader's depth (`FragcoordZ`) planes go into: the
    /// depth bias moves them as it moves the depth tested, so gl_FragCoord.z includes it.
    pub depth_registers: Vec<usize>,
    /// Result slot address and how it counts.
    pub occlusion: Option<(u64, VisibilityMode)>,
}

/// The minimum resolvable depth difference of a primitive whose largest depth magnitude is
/// `z_max` (Vulkan's `r`: for float formats from the exponent of the primitive's largest
/// depth, so one value for the whole primitive).
fn depth_unit(format: DepthFormat, z_max: f32) -> f32 {
    match format {
        DepthFormat::D16Unorm => 1.0 / 65536.0,
        DepthFormat::D32Sfloat => {
            let e = if z_max == 0.0 {
                -126
            } else {
                ((z_max.abs().to_bits() >> 23) as i32) - 127
            };
            2f32.powi(e - 23)
        }
    }
}

/// The depth bias of a primitive: the slope and constant terms, limited by a non-zero clamp
/// (towards zero from whichever side the clamp's sign names). One offset for the whole
/// primitive, added to the depth tested and to the shader's depth planes.
fn bias_offset(prim: &RasterPrim, bias: Option<&DepthBias>, format: DepthFormat) -> f32 {
    let Some(b) = bias else { return 0.0 };
    let o = b.slope_scale * prim.depth_slope + b.depth_bias * depth_unit(format, prim.depth_max);
    if b.clamp > 0.0 {
        o.min(b.clamp)
    } else if b.clamp < 0.0 {
        o.max(b.clamp)
    } else {
        o
    }
}

/// Tests the samples of `mask` at pixel (x, y); returns those that pass.
#[allow(clippy::too_many_arguments)]
fn test_pixel(
    t: &Target,
    zs: &mut ZsTile,
    state: &FragState,
    prim: &RasterPrim,
    origin: [u32; 2],
    (x, y): (u32, u32),
    mask: u32,
    shader_depth: &[Option<f32>],
) -> Result<u32, Fault> {
    let facing = if prim.backfacing {
        Facing::Back
    } else {
        Facing::Front
    };
    let offset = bias_offset(prim, state.bias.as_ref(), t.zls.depth_format);
    let mut pass = 0;
    for s in 0..t.samples.count() {
        if mask & (1 << s) == 0 {
            continue;
        }
        let z = match shader_depth.get(s).copied().flatten() {
            Some(z) => z,
            None => {
                let (px, py) = sample_point(x, y, t.samples, s);
                prim.geom.depth(px, py) + offset
            }
        };
        let at = (x - origin[0], y - origin[1], s as u32);
        if zs.test(&state.zs, facing, at, z)? {
            pass |= 1 << s;
        }
    }
    Ok(pass)
}

/// Shades `prim` inside `area` (the tile within the framebuffer). `gfx` is the tile's context
/// from [`super::tiles::fragment_context`], holding its tilebuffer; it serves every primitive
/// of the tile. Returns the fragment shader lanes run; the samples that passed go to
/// `visibility` when the draw counts them.
#[allow(clippy::too_many_arguments)]
pub fn shade(
    t: &Target,
    area: &Rect,
    origin: [u32; 2],
    zs: &mut ZsTile,
    gfx: &mut GraphicsContext,
    prim: &RasterPrim,
    state: &FragState,
    mem: &mut dyn GpuMemory,
    visibility: &mut Visibility,
    scratch: &mut Scratch,
) -> Result<u64, Fault> {
    let region = area.intersect(&state.scissor);
    if region.is_empty() {
        return Ok(0);
    }
    let Scratch {
        pixels,
        raster,
        depths,
        launch,
        pending,
    } = scratch;
    pixels.clear();
    raster.clear();
    // Pushed to a local vector, whose length can stay in a register between pushes.
    let mut covered = std::mem::take(pixels);
    prim.geom
        .rasterize(t.samples, &region, |x, y, m| covered.push((x, y, m)));
    *pixels = covered;
    if pixels.is_empty() {
        return Ok(0);
    }
    let early = state.early_z || state.fs.is_none();
    let bias = bias_offset(prim, state.bias.as_ref(), t.zls.depth_format);
    let mut passed = 0u64;
    if early {
        // The rasterized coverage, which the quads' lanes see as their input coverage,
        // kept before the test overwrites the masks: one copy, not a push per pixel.
        raster.extend(pixels.iter().map(|p| p.2));
        match zs.depth_only(&state.zs).filter(|_| t.samples.count() == 1) {
            // One sample and no stencil test: `test_pixel` without its walk over samples.
            Some(mut d) => {
                // Every depth first: they are independent, and their divisions overlap.
                depths.clear();
                depths.resize(pixels.len(), 0.0);
                prim.geom.pixel_depths(pixels, t.samples.offset(0), depths);
                for (p, &z) in pixels.iter_mut().zip(depths.iter()) {
                    p.2 = u32::from(d.test((p.0 - origin[0], p.1 - origin[1]), z + bias)?);
                    passed += u64::from(p.2);
                }
            }
            None => {
                for p in pixels.iter_mut() {
                    p.2 = test_pixel(t, zs, state, prim, origin, (p.0, p.1), p.2, &[])?;
                    passed += u64::from(p.2.count_ones());
                }
            }
        }
    }
    let mut lanes_run = 0;
    if let Some(fs) = &state.fs {
        let quads = quads_of(pixels, if early { Some(raster) } else { None });
        // The tile's primitives mostly share their draw's shader: its launch state (with
        // its uniform file) is built once and refitted per group.
        let (launch, packs) = match launch {
            Some((of, l, packs)) if Arc::ptr_eq(of, fs) => (l, *packs),
            _ => {
                flush(pending, launch, gfx, mem)?;
                let packs = early_packable(&fs.program);
                let (_, l, _) =
                    launch.insert((fs.clone(), launch_of(fs, SIMD_WIDTH as u32), packs));
                (l, packs)
            }
        };
        if early && packs {
            for quad in &quads {
                lanes_run += u64::from(quad.live.iter().filter(|&&m| m != 0).count() as u32);
            }
            pending.queue(prim, state, bias, &quads, |p| {
                run_pending(p, fs, launch, gfx, mem)
            })?;
            return finish_primitive(state, passed, visibility, lanes_run);
        }
        // Whatever is pending shades first: this primitive's shading and late test are in
        // order after it.
        run_pending(pending, fs, launch, gfx, mem)?;
        let record = t.samples.count() * t.sample_bytes as usize;
        gfx.textures.clone_from(&fs.words.textures);
        // Each primitive starts from the lanes of a fresh context (`fragment_context`), as
        // if the context were built for it alone.
        {
            let f = gfx
                .fragment
                .as_mut()
                .ok_or(Fault::Internal("no fragment context"))?;
            f.lane_pixels = [origin; SIMD_WIDTH];
            f.coverage = [((1u16 << t.samples.count()) - 1) as u8; SIMD_WIDTH];
            f.input_coverage = f.coverage;
        }
        for chunk in quads.chunks(SIMD_WIDTH / QUAD_LANES) {
            let f = gfx
                .fragment
                .as_mut()
                .ok_or(Fault::Internal("fragment context lost"))?;
            f.set_planes(&prim.planes);
            if bias != 0.0 {
                for &r in &state.depth_registers {
                    if let Some(p) = f.coefficients.get_mut(r) {
                        p.c += bias;
                    }
                }
            }
            f.backfacing = if prim.backfacing { u32::MAX } else { 0 };
            // Only the late test reads what the shader exported.
            if !early {
                f.depth = Default::default();
                f.stencil = Default::default();
            }
            let mut saved = Vec::new();
            for (q, quad) in chunk.iter().enumerate() {
                for k in 0..QUAD_LANES {
                    let l = q * QUAD_LANES + k;
                    let [x, y] = quad.pixel(k);
                    f.lane_pixels[l] = [x, y];
                    f.coverage[l] = quad.live[k];
                    f.input_coverage[l] = quad.raster[k];
                    lanes_run += u64::from(quad.live[k] != 0);
                    if !early {
                        let at = pixel_offset(t, origin, x, y) * record;
                        saved.extend_from_slice(&f.tilebuffer[at..at + record]);
                    }
                }
            }
            let lanes = chunk.len() * QUAD_LANES;
            set_lanes(launch, lanes as u32);
            usc::run_graphics(&fs.program, launch, mem, gfx)?;
            if early {
                continue;
            }
            let f = gfx
                .fragment
                .as_mut()
                .ok_or(Fault::Internal("fragment context lost"))?;
            for l in 0..lanes {
                let covered = u32::from(f.coverage[l]);
                if covered == 0 {
                    continue;
                }
                if f.stencil[l].iter().any(Option::is_some) {
                    return Err(Fault::Unimplemented("stencil export from fragment shaders"));
                }
                let [x, y] = f.lane_pixels[l];
                let depth = f.depth[l];
                let pass = test_pixel(t, zs, state, prim, origin, (x, y), covered, &depth)?;
                passed += u64::from(pass.count_ones());
                let at = pixel_offset(t, origin, x, y) * record;
                for s in 0..t.samples.count() {
                    if covered & !pass & (1 << s) != 0 {
                        let b = s * t.sample_bytes as usize;
                        let n = t.sample_bytes as usize;
                        let src = &saved[l * record + b..][..n];
                        f.tilebuffer[at + b..at + b + n].copy_from_slice(src);
                    }
                }
            }
        }
    }
    finish_primitive(state, passed, visibility, lanes_run)
}

/// Counts a primitive's passing samples for its occlusion query; returns `lanes_run`.
fn finish_primitive(
    state: &FragState,
    passed: u64,
    visibility: &mut Visibility,
    lanes_run: u64,
) -> Result<u64, Fault> {
    if let Some((addr, mode)) = state.occlusion.filter(|_| passed > 0) {
        visibility.add(addr, mode, passed);
    }
    Ok(lanes_run)
}

/// Shades what is still pending; a tile calls it after its last primitive, before its
/// end-of-tile program reads the tilebuffer.
pub fn finish(
    gfx: &mut GraphicsContext,
    mem: &mut dyn GpuMemory,
    scratch: &mut Scratch,
) -> Result<(), Fault> {
    flush(&mut scratch.pending, &mut scratch.launch, gfx, mem)
}

fn flush(
    pending: &mut Pending,
    launch: &mut Option<(Arc<Loaded>, LaunchState, bool)>,
    gfx: &mut GraphicsContext,
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    match launch {
        Some((fs, l, _)) => run_pending(pending, fs, l, gfx, mem),
        None => Ok(()),
    }
}

/// Whether quads of different primitives may share a SIMD group of `p` after an early
/// depth/stencil test: it writes nothing but the tilebuffer and no lane reads past its quad,
/// so shading the primitives together on distinct pixels leaves what shading them one after
/// another does. A shader with device stores, atomics, image writes, threadgroup memory or
/// whole-group operations (ballots, reductions, shuffles beyond the quad) shades each
/// primitive in groups of its own, in order, as it always did.
fn early_packable(p: &crate::usc::Program) -> bool {
    use hw::isa::{Instr, Reach};
    p.instrs().iter().all(|i| {
        let whole_group = match i {
            Instr::Shuffle(s) => !s.quad,
            Instr::Ballot(_) | Instr::SimdReduce(_) => true,
            _ => false,
        };
        i.reach() == Reach::Own && !whole_group
    })
}

/// Buffers [`shade`] reuses from one primitive of a tile to the next.
#[derive(Default)]
pub struct Scratch {
    pixels: Vec<(u32, u32, u32)>,
    raster: Vec<u32>,
    /// The early depth test's incoming depths, one per pixel.
    depths: Vec<f32>,
    /// The launch state of the last fragment shader run, with that shader and whether it
    /// packs primitives ([`early_packable`]).
    launch: Option<(Arc<Loaded>, LaunchState, bool)>,
    /// Early-tested quads of that shader not yet shaded.
    pending: Pending,
}

impl Scratch {
    /// Forgets the last tile's launch and pending quads (a tile that faulted may leave
    /// some), keeping the buffers.
    pub fn begin_tile(&mut self) {
        self.launch = None;
        let p = &mut self.pending;
        p.quads.clear();
        p.planes.clear();
        p.backfacing.clear();
        p.per = 0;
    }
}

/// Quads of consecutive primitives of one shader, early-tested, waiting to fill a SIMD group.
/// Small primitives cover a quad or two of a tile, and a group of 32 lanes per primitive ran
/// mostly empty. Quads in one group cover distinct pixels, so no two lanes touch one
/// tilebuffer record; a quad at a pixel block already pending shades the pending ones first,
/// which keeps each pixel's primitives in order.
#[derive(Default)]
struct Pending {
    /// The quads, each with the index of its primitive among `backfacing`.
    quads: Vec<(Quad, u8)>,
    /// Each primitive's coefficient registers (depth bias applied), `per` each.
    planes: Vec<crate::usc::Plane>,
    per: usize,
    backfacing: Vec<bool>,
}

impl Pending {
    /// Adds the quads of `prim`, running the group (`run`) whenever it is full or a quad
    /// meets a pending one.
    fn queue(
        &mut self,
        prim: &RasterPrim,
        state: &FragState,
        bias: f32,
        quads: &[Quad],
        mut run: impl FnMut(&mut Pending) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        if !self.quads.is_empty() && self.per != prim.planes.len() {
            run(self)?;
        }
        let mut index = None;
        for quad in quads {
            let full = self.quads.len() == SIMD_WIDTH / QUAD_LANES;
            if full || self.quads.iter().any(|(q, _)| q.origin == quad.origin) {
                run(self)?;
                index = None;
            }
            let i = match index {
                Some(i) => i,
                None => {
                    let i = self.backfacing.len() as u8;
                    let at = self.planes.len();
                    self.planes.extend_from_slice(&prim.planes);
                    if bias != 0.0 {
                        for &r in &state.depth_registers {
                            if let Some(p) = self.planes[at..].get_mut(r) {
                                p.c += bias;
                            }
                        }
                    }
                    self.per = prim.planes.len();
                    self.backfacing.push(prim.backfacing);
                    index = Some(i);
                    i
                }
            };
            self.quads.push((*quad, i));
        }
        Ok(())
    }
}

/// SIMD groups that shaded quads of more than one primitive, so tests can tell they ran.
#[cfg(test)]
pub static GROUPS_OF_SEVERAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Shades the pending quads in one SIMD group of `fs` and empties the list.
fn run_pending(
    p: &mut Pending,
    fs: &Loaded,
    launch: &mut LaunchState,
    gfx: &mut GraphicsContext,
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    if p.quads.is_empty() {
        return Ok(());
    }
    gfx.textures.clone_from(&fs.words.textures);
    let f = gfx
        .fragment
        .as_mut()
        .ok_or(Fault::Internal("no fragment context"))?;
    f.coefficients.clear();
    f.coefficients.extend_from_slice(&p.planes);
    f.planes_per_primitive = p.per;
    f.backfacing = 0;
    // Lanes past the quads start as in a fresh context (`fragment_context`).
    f.lane_pixels = [f.tile_origin; SIMD_WIDTH];
    f.coverage = [((1u16 << f.samples.min(8)) - 1) as u8; SIMD_WIDTH];
    f.input_coverage = f.coverage;
    f.lane_primitive = [0; SIMD_WIDTH];
    for (q, (quad, prim)) in p.quads.iter().enumerate() {
        for k in 0..QUAD_LANES {
            let l = q * QUAD_LANES + k;
            f.lane_pixels[l] = quad.pixel(k);
            f.coverage[l] = quad.live[k];
            f.input_coverage[l] = quad.raster[k];
            f.lane_primitive[l] = *prim;
            f.backfacing |= u32::from(p.backfacing[usize::from(*prim)]) << l;
        }
    }
    set_lanes(launch, (p.quads.len() * QUAD_LANES) as u32);
    #[cfg(test)]
    if p.backfacing.len() > 1 {
        GROUPS_OF_SEVERAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    p.quads.clear();
    p.planes.clear();
    p.backfacing.clear();
    usc::run_graphics(&fs.program, launch, mem, gfx).map(|_| ())
}

/// The samples that passed the depth and stencil tests, per occlusion query result slot, as
/// the tiles of a pass count them. The pass writes them to memory at its end, so tiles that
/// run on different threads never update a slot at the same time.
#[derive(Debug, Default)]
pub struct Visibility(Vec<(u64, VisibilityMode, u64)>);

impl Visibility {
    fn add(&mut self, addr: u64, mode: VisibilityMode, passed: u64) {
        match self.0.iter_mut().find(|e| e.0 == addr && e.1 == mode) {
            Some(e) => e.2 = e.2.wrapping_add(passed),
            None => self.0.push((addr, mode, passed)),
        }
    }

    pub fn merge(&mut self, other: Visibility) {
        for (addr, mode, passed) in other.0 {
            self.add(addr, mode, passed);
        }
    }

    /// Adds the counts to (counting) or sets (boolean) their slots, in address order, so a
    /// slot that faults is the same one whichever thread counted what.
    pub fn write(mut self, mem: &mut dyn GpuMemory) -> Result<(), Fault> {
        self.0.sort_by_key(|e| e.0);
        for (addr, mode, passed) in self.0 {
            match mode {
                VisibilityMode::Counting => {
                    let v = mem.read_u64(addr)?;
                    mem.write_u64(addr, v.wrapping_add(passed))?;
                }
                VisibilityMode::Boolean => mem.write_u64(addr, 1)?,
                _ => {}
            }
        }
        Ok(())
    }
}

/// A 2x2 pixel block shaded by one quad of lanes (the block's top-left pixel has even
/// coordinates), its pixels in [`quad_lane`] order.
#[derive(Debug, Clone, Copy)]
struct Quad {
    origin: [u32; 2],
    /// Samples the primitive covers in each pixel.
    raster: [u8; QUAD_LANES],
    /// Samples still to shade (after an early test); a pixel with none is a helper.
    live: [u8; QUAD_LANES],
}

impl Quad {
    fn pixel(&self, k: usize) -> [u32; 2] {
        let [dx, dy] = quad_pixel(k);
        [self.origin[0] + dx, self.origin[1] + dy]
    }
}

/// The quads that shade `pixels` (covered pixels, row-major, with the samples
/// still live; `raster` gives their rasterized coverage when an early test changed it):
/// every 2x2 block with a live pixel, in row-major block order. The block's other pixels
/// run as helpers, so derivatives always see a whole quad, as on the hardware.
fn quads_of(pixels: &[(u32, u32, u32)], raster: Option<&[u32]>) -> Vec<Quad> {
    // A grid of the blocks the pixels span (a small primitive spans a few of a tile's).
    let (mut x0, mut x1) = (u32::MAX, 0);
    for p in pixels {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
    }
    let (Some(first), Some(last)) = (pixels.first(), pixels.last()) else {
        return Vec::new();
    };
    let (qx0, qy0) = (x0 / 2, first.1 / 2);
    let qw = (x1 / 2 - qx0 + 1) as usize;
    let qh = (last.1 / 2 - qy0 + 1) as usize;
    let mut grid = vec![
        Quad {
            origin: [0, 0],
            raster: [0; QUAD_LANES],
            live: [0; QUAD_LANES],
        };
        qw * qh
    ];
    for (i, &(x, y, m)) in pixels.iter().enumerate() {
        let q = &mut grid[(y / 2 - qy0) as usize * qw + (x / 2 - qx0) as usize];
        q.origin = [x & !1, y & !1];
        let k = quad_lane(x, y);
        q.live[k] = m as u8;
        q.raster[k] = raster.map_or(m, |r| r[i]) as u8;
    }
    grid.retain(|q| q.live.iter().any(|&m| m != 0));
    grid
}

fn pixel_offset(t: &Target, origin: [u32; 2], x: u32, y: u32) -> usize {
    ((y - origin[1]) * t.tile_w + (x - origin[0])) as usize
}
