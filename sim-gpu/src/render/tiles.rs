//! Per-tile work of a render pass: the background (or partial background) program, the ZLS
//! load or clear, the tile's binned primitives, the end-of-tile (or partial end-of-tile)
//! program and the ZLS store.
//!
//! Tile programs run one lane per pixel of the tile, pixels of the tile outside the
//! framebuffer included (docs/render-abi.md section 2).
//!
//! Depth and stencil live in a [`ZsTile`], which always spans 32x32 pixels and whose ZLS
//! load and store move all of it (clipped to the image). With a smaller tile, a store would
//! write neighbouring pixels too; so before such a tile is cleared, the whole block is first
//! loaded from the image, and the store writes those pixels back unchanged.

use super::fragment;
use super::prim_store::PrimStore;
use super::programs::{Loaded, Programs};
use crate::isp::{clear_values, ZlsPlan, ZsImage, ZsTile};
use crate::raster::bin::TILE_SIZE;
use crate::raster::coverage::SampleCount;
use crate::raster::coverage::SAMPLE_LOCATION_BITS;
use crate::raster::Rect;
use crate::usc::{self, FragmentContext, GraphicsContext, LaunchState, MAX_SAMPLES};
use crate::{Fault, GpuMemory, RenderCommand, ZlsBuffer};
use hw::g13::layout::{Layout, Tiling, Usage};
use hw::isa::{Instr, Small, SIMD_WIDTH};

pub use super::fragment::{FragState, Visibility};

fn bad(why: impl Into<String>) -> Fault {
    Fault::BadControlWord {
        va: 0,
        reason: why.into(),
    }
}

/// A ZLS buffer with the layout the ZLS unit addresses it by.
pub struct ZlsImage {
    pub base: u64,
    pub layout: Layout,
}

/// Render-wide constants.
pub struct Target {
    pub width: u32,
    pub height: u32,
    pub tile_w: u32,
    pub tile_h: u32,
    pub tiles_x: u32,
    pub tiles_y: u32,
    pub samples: SampleCount,
    pub sample_bytes: u32,
    pub zls: ZlsPlan,
    pub clear_depth: u32,
    pub clear_stencil: u8,
    pub depth: Option<ZlsImage>,
    pub stencil: Option<ZlsImage>,
}

/// Which pass of the render a tile is in.
#[derive(Debug, Clone, Copy)]
pub struct Pass {
    /// The first pass starts from `bg` and the ZLS control word's loads; later ones from
    /// `partial_bg` and forced loads.
    pub first: bool,
    /// The last pass ends with `eot` and the ZLS control word's stores; earlier ones with
    /// `partial_eot` and forced stores.
    pub last: bool,
}

fn zls_image(b: &ZlsBuffer, cmd: &RenderCommand, bytes: u32) -> Result<Option<ZlsImage>, Fault> {
    if b.base == 0 {
        return Ok(None);
    }
    // agx4: the ZLS unit addresses level 0 of a twiddled image of the render's size and
    // sample count, starting at the buffer address (the render's depth dimensions are its
    // framebuffer size, as Mesa programs them).
    let layout = Layout::with_usage(
        cmd.width_px,
        cmd.height_px,
        1,
        1,
        bytes,
        Tiling::Twiddled,
        cmd.samples,
        Usage {
            depth_stencil: true,
            ..Usage::default()
        },
    )
    .map_err(|e| bad(format!("ZLS buffer: {e}")))?;
    Ok(Some(ZlsImage {
        base: b.base,
        layout,
    }))
}

impl Target {
    pub fn new(cmd: &RenderCommand) -> Result<Target, Fault> {
        let (w, h) = (cmd.width_px, cmd.height_px);
        if w == 0 || h == 0 || w > 16384 || h > 16384 {
            return Err(bad(format!("framebuffer of {w}x{h} pixels")));
        }
        if cmd.layers > 1 {
            return Err(Fault::Unimplemented("layered renders"));
        }
        let (tw, th) = (cmd.utile_width_px, cmd.utile_height_px);
        if !matches!((tw, th), (32, 32) | (32, 16) | (16, 16)) {
            return Err(bad(format!("tile size {tw}x{th}")));
        }
        let samples = SampleCount::from_count(cmd.samples)
            .map_err(|_| bad(format!("{} samples per pixel", cmd.samples)))?;
        if cmd.sample_size_bytes > 120 {
            return Err(bad(format!(
                "{} tilebuffer bytes per sample",
                cmd.sample_size_bytes
            )));
        }
        let zls = ZlsPlan::from_word(cmd.zls_ctrl)?;
        let (clear_depth, clear_stencil) =
            clear_values(zls.depth_format, cmd.isp_bgobjdepth, cmd.isp_bgobjvals)?;
        Ok(Target {
            width: w,
            height: h,
            tile_w: tw,
            tile_h: th,
            tiles_x: w.div_ceil(tw),
            tiles_y: h.div_ceil(th),
            samples,
            sample_bytes: cmd.sample_size_bytes,
            zls,
            clear_depth,
            clear_stencil,
            depth: zls_image(&cmd.depth, cmd, zls.depth_format.bytes())?,
            stencil: zls_image(&cmd.stencil, cmd, 1)?,
        })
    }

    pub fn tile_rect(&self, tx: u32, ty: u32) -> Rect {
        Rect::new(tx * self.tile_w, ty * self.tile_h, self.tile_w, self.tile_h)
    }

    pub fn sample_positions(&self) -> Vec<[f32; 2]> {
        self.samples
            .locations()
            .iter()
            .map(|&(x, y)| {
                let one = (1u32 << SAMPLE_LOCATION_BITS) as f32;
                [x as f32 / one, y as f32 / one]
            })
            .collect()
    }

    /// Refuses a fragment-stage program whose Shared word disagrees with the render's
    /// tilebuffer.
    pub fn check_tilebuffer(&self, p: &Loaded) -> Result<(), Fault> {
        let w = &p.words;
        if w.sample_count != self.samples.count() as u32
            || w.sample_stride_bytes != self.sample_bytes
        {
            return Err(bad(format!(
                "program's tilebuffer of {} samples x {} bytes, the render's is {} x {}",
                w.sample_count,
                w.sample_stride_bytes,
                self.samples.count(),
                self.sample_bytes
            )));
        }
        Ok(())
    }
}

/// A fragment context over the tile, with the tile's tilebuffer moved in.
pub fn fragment_context(t: &Target, origin: [u32; 2], tilebuffer: Vec<u8>) -> FragmentContext {
    let n = t.samples.count() as u32;
    FragmentContext {
        coefficients: Vec::new(),
        planes_per_primitive: 0,
        lane_primitive: [0; SIMD_WIDTH],
        tile_size: [t.tile_w, t.tile_h],
        samples: n,
        bytes_per_sample: t.sample_bytes,
        tilebuffer,
        tile_origin: origin,
        lane_pixels: [origin; SIMD_WIDTH],
        sample_positions: t.sample_positions(),
        coverage: [((1u16 << n) - 1) as u8; SIMD_WIDTH],
        input_coverage: [((1u16 << n) - 1) as u8; SIMD_WIDTH],
        depth: [[None; MAX_SAMPLES]; SIMD_WIDTH],
        stencil: [[None; MAX_SAMPLES]; SIMD_WIDTH],
        backfacing: 0,
    }
}

/// A launch of `lanes` lanes of fragment-stage program `p`. Its Shared word sizes the
/// tilebuffer (image blocks), which the fragment context holds, so the launch gets no
/// threadgroup memory.
pub fn launch_of(p: &Loaded, lanes: u32) -> LaunchState {
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    l.uniforms.clone_from(&p.words.uniforms);
    l.stack_bytes = p.words.stack_bytes;
    l
}

/// Resizes a launch made by [`launch_of`] to `lanes` lanes, so one launch state (and its
/// uniform file) serves every SIMD group of a program instead of being rebuilt per group.
pub fn set_lanes(l: &mut LaunchState, lanes: u32) {
    l.local_size = [lanes, 1, 1];
    l.grid_threads = [lanes, 1, 1];
}

/// Whether every SIMD group of a tile program does exactly what the first one does: its
/// instructions read nothing that differs between lanes or groups, change no tile memory and
/// write memory only through block stores, which write the same bytes however often they run
/// (Mesa's end-of-tile programs are of this kind). Running the first group alone then leaves
/// memory and the tile as running them all would.
fn same_in_every_group(p: &crate::usc::Program) -> bool {
    p.instrs().iter().all(|i| {
        matches!(
            i,
            Instr::MovImm(_) | Instr::BlockImageStore(_) | Instr::Wait(_) | Instr::Stop
        )
    })
}

/// Where every lane of a tile program writes the same bytes into its own pixel's records,
/// the (sample, first byte, bytes) it writes: a straight program of arithmetic on
/// immediates and uniforms (every register starts at zero in every lane, so registers
/// written from those are the same in every lane too) whose only effects are tile stores at
/// immediate sample sets (a background program that clears). Running one SIMD group and
/// copying those bytes of its first pixel to the others then leaves the tile as running
/// every group would: the lanes of a tile program cover all their samples.
fn replicated_stores(p: &crate::usc::Program, samples: u32) -> Option<Vec<(u32, u32, u32)>> {
    let all = (1u32 << samples) - 1;
    let mut out = Vec::new();
    for i in p.instrs() {
        match i {
            Instr::MovImm(_)
            | Instr::IAdd(_)
            | Instr::IMAdd(_)
            | Instr::Bitop(_)
            | Instr::Shift(_)
            | Instr::Convert(_)
            | Instr::FArith(_)
            | Instr::CmpSel(_)
            | Instr::Wait(_)
            | Instr::Stop => {}
            Instr::TileMem(x) if x.store && x.coords.is_none() => {
                let Small::Imm(set) = x.samples else {
                    return None;
                };
                let set = if set == 0xff {
                    all
                } else {
                    u32::from(set) & all
                };
                let size = x.format.bytes();
                for e in (0..4).filter(|e| x.mask & (1 << e) != 0) {
                    for s in (0..samples).filter(|s| set & (1 << s) != 0) {
                        out.push((s, u32::from(x.pixel_offset) + e * size, size));
                    }
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Runs a tile program over every pixel of the tile at `origin`.
fn run_tile_program(
    t: &Target,
    p: &Loaded,
    origin: [u32; 2],
    tilebuffer: &mut Vec<u8>,
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    t.check_tilebuffer(p)?;
    let mut gfx = GraphicsContext {
        textures: p.words.textures.clone(),
        fragment: Some(fragment_context(t, origin, std::mem::take(tilebuffer))),
        vertex: None,
    };
    let mut launch = launch_of(p, SIMD_WIDTH as u32);
    let pixels = t.tile_w * t.tile_h;
    let replicated = replicated_stores(&p.program, t.samples.count() as u32)
        .filter(|_| launch.preloads.is_empty() && pixels >= SIMD_WIDTH as u32);
    let n = if same_in_every_group(&p.program) || replicated.is_some() {
        SIMD_WIDTH as u32
    } else {
        pixels
    };
    let mut result = Ok(());
    // Tile widths are powers of two (`Target::new`): a shift and a mask, not a division
    // per lane.
    let (shift, mask) = (t.tile_w.trailing_zeros(), t.tile_w - 1);
    debug_assert!(t.tile_w.is_power_of_two());
    for start in (0..n).step_by(SIMD_WIDTH) {
        let lanes = (n - start).min(SIMD_WIDTH as u32);
        if let Some(f) = gfx.fragment.as_mut() {
            for l in 0..lanes {
                let i = start + l;
                f.lane_pixels[l as usize] = [origin[0] + (i & mask), origin[1] + (i >> shift)];
            }
        }
        set_lanes(&mut launch, lanes);
        if let Err(e) = usc::run_graphics(&p.program, &launch, mem, &mut gfx) {
            result = Err(e);
            break;
        }
    }
    if let Some(f) = gfx.fragment.take() {
        *tilebuffer = f.tilebuffer;
    }
    if let (Ok(()), Some(stores)) = (&result, replicated) {
        // The first group ran on pixels 0..32; pixel 0's written bytes go to the rest.
        let record = t.sample_bytes as usize;
        let pixel = t.samples.count() * record;
        let mut runs: Vec<(usize, usize)> = stores
            .iter()
            .map(|&(s, at, len)| (s as usize * record + at as usize, len as usize))
            .collect();
        runs.sort_unstable();
        runs.dedup();
        // Neighbouring runs (a clear stores each channel of a pixel on its own) as one.
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(runs.len());
        for (at, len) in runs {
            match merged.last_mut() {
                Some((a, l)) if *a + *l >= at => *l = (*l).max(at + len - *a),
                _ => merged.push((at, len)),
            }
        }
        for (from, len) in merged {
            let bytes: Vec<u8> = tilebuffer[from..from + len].to_vec();
            // Pixels 1.. of the tile; a run as long as the record starts it.
            let rest = tilebuffer[pixel..pixels as usize * pixel].chunks_exact_mut(pixel);
            match (bytes.as_slice(), pixel) {
                // The whole record of 4 or 8 bytes (one RGBA8 target, or two): one word per
                // pixel, not a copy call.
                (&[a, b, c, d], 4) => rest.for_each(|r| r.copy_from_slice(&[a, b, c, d])),
                (b8, 8) if b8.len() == 8 => {
                    let w: [u8; 8] = std::array::from_fn(|i| b8[i]);
                    rest.for_each(|r| r.copy_from_slice(&w))
                }
                (&[a, b, c, d], _) => {
                    // As one word: stored byte by byte, this loop was most of the program.
                    let w = u32::from_le_bytes([a, b, c, d]);
                    rest.for_each(|r| r[from..from + 4].copy_from_slice(&w.to_le_bytes()))
                }
                (b, _) => rest.for_each(|r| r[from..from + len].copy_from_slice(b)),
            }
        }
    }
    result
}

fn zs_image(z: &ZlsImage) -> ZsImage<'_> {
    ZsImage {
        base: z.base,
        layout: &z.layout,
        layer: 0,
    }
}

/// The tile's depth/stencil at the start of a pass.
fn zls_load(
    t: &Target,
    origin: [u32; 2],
    pass: Pass,
    mem: &dyn GpuMemory,
) -> Result<ZsTile, Fault> {
    let mut zs = ZsTile::new(t.samples.count() as u32, Some(t.zls.depth_format), true)?;
    let at = (origin[0], origin[1]);
    let partial_tile = t.tile_w < TILE_SIZE || t.tile_h < TILE_SIZE;
    let (load_z, load_s) = if pass.first {
        (t.zls.depth_load, t.zls.stencil_load)
    } else {
        (true, true)
    };
    match &t.depth {
        Some(img) if load_z || partial_tile => zs.load_depth(mem, &zs_image(img), at)?,
        _ => {}
    }
    match &t.stencil {
        Some(img) if load_s || partial_tile => zs.load_stencil(mem, &zs_image(img), at)?,
        _ => {}
    }
    let clear_z = !(load_z && t.depth.is_some());
    let clear_s = !(load_s && t.stencil.is_some());
    if (t.tile_w, t.tile_h) == (TILE_SIZE, TILE_SIZE) {
        // The whole tile: a plane is filled at once.
        if clear_z {
            zs.clear_depth_raw(t.clear_depth)?;
        }
        if clear_s {
            zs.clear_stencil(t.clear_stencil)?;
        }
    } else if clear_z || clear_s {
        let n = t.samples.count() as u32;
        for y in 0..t.tile_h {
            for x in 0..t.tile_w {
                for s in 0..n {
                    if clear_z {
                        zs.set_depth_raw(x, y, s, t.clear_depth)?;
                    }
                    if clear_s {
                        zs.set_stencil(x, y, s, t.clear_stencil)?;
                    }
                }
            }
        }
    }
    Ok(zs)
}

fn zls_store(
    t: &Target,
    zs: &ZsTile,
    origin: [u32; 2],
    pass: Pass,
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    let at = (origin[0], origin[1]);
    let (store_z, store_s) = if pass.last {
        (t.zls.depth_store, t.zls.stencil_store)
    } else {
        (true, true)
    };
    if let (true, Some(img)) = (store_z, &t.depth) {
        zs.store_depth(mem, &zs_image(img), at)?;
    }
    if let (true, Some(img)) = (store_s, &t.stencil) {
        zs.store_stencil(mem, &zs_image(img), at)?;
    }
    Ok(())
}

/// The tile programs of a render.
pub struct TilePrograms {
    pub bg: std::sync::Arc<Loaded>,
    pub eot: std::sync::Arc<Loaded>,
    pub partial_bg: Option<std::sync::Arc<Loaded>>,
    pub partial_eot: Option<std::sync::Arc<Loaded>>,
}

impl TilePrograms {
    pub fn load(
        cmd: &RenderCommand,
        programs: &mut Programs,
        mem: &mut dyn GpuMemory,
    ) -> Result<TilePrograms, Fault> {
        let opt = |p: &mut Programs, mem: &mut dyn GpuMemory, usc: u32| -> Result<_, Fault> {
            if usc == 0 {
                Ok(None)
            } else {
                p.load(mem, usc).map(Some)
            }
        };
        Ok(TilePrograms {
            bg: programs.load(mem, cmd.bg.usc)?,
            eot: programs.load(mem, cmd.eot.usc)?,
            partial_bg: opt(programs, mem, cmd.partial_bg.usc)?,
            partial_eot: opt(programs, mem, cmd.partial_eot.usc)?,
        })
    }
}

/// Everything a tile pass reads.
pub struct PassInput<'a> {
    pub target: &'a Target,
    pub programs: &'a TilePrograms,
    pub prims: &'a PrimStore,
    pub states: &'a [FragState],
}

/// How many primitives ahead of the one it shades a tile asks for a primitive's memory.
const PREFETCH_AHEAD: usize = 4;

/// Buffers a thread reuses from one tile of a pass to the next, so that a tile does not
/// allocate its tilebuffer and grow its pixel lists anew. Nothing in them carries over:
/// each tile starts from a zeroed tilebuffer and a fresh fragment launch.
#[derive(Default)]
pub struct TileScratch {
    fragment: fragment::Scratch,
    tilebuffer: Vec<u8>,
}

/// One tile through one pass, with the buffers of `reuse`. Returns the fragment shader
/// lanes run; occlusion counts go to `visibility`.
#[allow(clippy::too_many_arguments)]
pub fn run_tile(
    inp: &PassInput,
    tx: u32,
    ty: u32,
    list: &[u32],
    pass: Pass,
    mem: &mut dyn GpuMemory,
    visibility: &mut Visibility,
    reuse: &mut TileScratch,
) -> Result<u64, Fault> {
    let t = inp.target;
    let rect = t.tile_rect(tx, ty);
    let origin = [rect.x, rect.y];
    let mut tilebuffer = std::mem::take(&mut reuse.tilebuffer);
    tilebuffer.clear();
    tilebuffer.resize(
        (t.tile_w * t.tile_h) as usize * t.samples.count() * t.sample_bytes as usize,
        0,
    );
    let missing = |what| Fault::BadControlWord {
        va: 0,
        reason: format!("a partial render needs a {what} program"),
    };
    let bg = if pass.first {
        &inp.programs.bg
    } else {
        inp.programs
            .partial_bg
            .as_ref()
            .ok_or_else(|| missing("partial background"))?
    };
    run_tile_program(t, bg, origin, &mut tilebuffer, mem)?;
    let mut zs = zls_load(t, origin, pass, mem)?;
    let fb = Rect::new(0, 0, t.width, t.height);
    let area = rect.intersect(&fb);
    // One fragment context serves every primitive of the tile: building one (and moving the
    // tilebuffer in and out) per primitive cost more than shading a small primitive.
    let mut gfx = GraphicsContext {
        fragment: Some(fragment_context(t, origin, std::mem::take(&mut tilebuffer))),
        ..GraphicsContext::default()
    };
    let scratch = &mut reuse.fragment;
    scratch.begin_tile();
    let mut shade_all = || -> Result<u64, Fault> {
        let mut fragments = 0;
        let (mut ahead, mut at) = (inp.prims.cursor(), inp.prims.cursor());
        for (k, &i) in list.iter().enumerate() {
            if let Some(&next) = list.get(k + PREFETCH_AHEAD) {
                ahead.prefetch(next);
            }
            let prim = at
                .get(i)
                .ok_or(Fault::Internal("a binned primitive was released"))?;
            let state = &inp.states[prim.state as usize];
            fragments += fragment::shade(
                t, &area, origin, &mut zs, &mut gfx, prim, state, mem, visibility, scratch,
            )?;
        }
        fragment::finish(&mut gfx, mem, scratch)?;
        Ok(fragments)
    };
    let shaded = shade_all();
    if let Some(f) = gfx.fragment.take() {
        tilebuffer = f.tilebuffer;
    }
    let fragments = shaded?;
    let eot = if pass.last {
        &inp.programs.eot
    } else {
        inp.programs
            .partial_eot
            .as_ref()
            .ok_or_else(|| missing("partial end-of-tile"))?
    };
    run_tile_program(t, eot, origin, &mut tilebuffer, mem)?;
    zls_store(t, &zs, origin, pass, mem)?;
    reuse.tilebuffer = tilebuffer;
    Ok(fragments)
}
