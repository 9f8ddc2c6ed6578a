//! Graphics state a SIMD group reaches besides memory: the fragment context (coefficient
//! registers, the tile's tilebuffer, lane pixel positions and coverage, depth/stencil
//! outputs) and the vertex context (the UVS output records). A render pipeline builds these
//! per SIMD group and reads the results back; compute launches have neither, and a graphics
//! instruction there faults naming the missing context.

use super::float::{f64_to_f16, Rounding};
use super::group::SimdGroup;
use super::program::Program;
use crate::{texel, Fault};
use hw::isa::*;

const LANES: usize = SIMD_WIDTH;

/// Most samples per pixel the model keeps outputs for.
pub const MAX_SAMPLES: usize = 8;

/// Plane equation of one varying component: value(x, y) = a*x + b*y + c.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Plane {
    pub a: f32,
    pub b: f32,
    pub c: f32,
}

/// Per-SIMD-group fragment state.
#[derive(Debug, Clone)]
pub struct FragmentContext {
    /// Coefficient registers of the primitives the group shades, `planes_per_primitive` for
    /// each in turn; lane L reads those of primitive `lane_primitive[L]`, indexed by cf slot.
    /// A group may shade quads of several primitives (see `render::fragment`).
    pub coefficients: Vec<Plane>,
    pub planes_per_primitive: usize,
    pub lane_primitive: [u8; LANES],
    /// Tile size in pixels; the tilebuffer holds `width * height * samples` records of
    /// `bytes_per_sample` bytes, pixel-major then sample.
    pub tile_size: [u32; 2],
    pub samples: u32,
    pub bytes_per_sample: u32,
    pub tilebuffer: Vec<u8>,
    /// Framebuffer position of the tile's top-left pixel.
    pub tile_origin: [u32; 2],
    /// Framebuffer pixel of each lane (the plane equations are in framebuffer space).
    pub lane_pixels: [[u32; 2]; LANES],
    /// Sample positions inside a pixel, in [0, 1), for sample-rate interpolation.
    pub sample_positions: Vec<[f32; 2]>,
    /// Covered samples of each lane; `sample_mask` clears discarded ones. A lane with none
    /// left is a helper.
    pub coverage: [u8; LANES],
    /// The samples the primitive covers in each lane's pixel, as rasterized (before any
    /// depth/stencil test or shader discard), for `get_sr` `INPUT_SAMPLE_MASK`.
    pub input_coverage: [u8; LANES],
    /// Depth and stencil written by `zs_emit`, per lane and sample.
    pub depth: [[Option<f32>; MAX_SAMPLES]; LANES],
    pub stencil: [[Option<u8>; MAX_SAMPLES]; LANES],
    /// Lanes whose primitive is back-facing (`get_sr` 62), a bit per lane.
    pub backfacing: u32,
}

impl FragmentContext {
    /// Lanes that are helpers: no covered sample left (never rasterized, failed the early
    /// depth/stencil test, or discarded).
    pub fn helpers(&self) -> u32 {
        let mut m = 0;
        for (l, &c) in self.coverage.iter().enumerate() {
            m |= u32::from(c == 0) << l;
        }
        m
    }

    /// One primitive's coefficient registers, for every lane.
    pub fn set_planes(&mut self, planes: &[Plane]) {
        self.coefficients.clear();
        self.coefficients.extend_from_slice(planes);
        self.planes_per_primitive = planes.len();
        self.lane_primitive = [0; LANES];
    }

    /// The plane in cf slot `slot` that lane `lane` reads, if loaded.
    pub fn plane(&self, lane: usize, slot: usize) -> Option<Plane> {
        if slot >= self.planes_per_primitive {
            return None;
        }
        let at = usize::from(self.lane_primitive[lane]) * self.planes_per_primitive + slot;
        self.coefficients.get(at).copied()
    }

    /// The coefficient registers translated `iter`s may read ([`FragmentContext::plane_rows`]):
    /// every slot of the primitives' when each lane names a primitive with planes and the
    /// four lanes of each quad name the same one (as the render pipeline packs them); 0
    /// otherwise, which leaves `iter`s to the interpreter.
    pub fn translated_planes(&self) -> usize {
        let n = self.planes_per_primitive;
        let mut last = 0;
        for q in self.lane_primitive.chunks_exact(QUAD_LANES) {
            if q.iter().any(|&p| p != q[0]) {
                return 0;
            }
            last = last.max(q[0]);
        }
        if (usize::from(last) + 1) * n <= self.coefficients.len() {
            n
        } else {
            0
        }
    }

    /// The planes of slots below `slots` as rows of quads, for translated `iter`s: row
    /// `3 * slot + k` holds component k (a, b, c) of each quad's plane, in double precision.
    /// The caller checked `slots <= translated_planes()`.
    pub fn plane_rows(&self, slots: usize, out: &mut Vec<f64>) {
        const QUADS: usize = LANES / QUAD_LANES;
        let base: [usize; QUADS] = std::array::from_fn(|q| {
            usize::from(self.lane_primitive[q * QUAD_LANES]) * self.planes_per_primitive
        });
        out.clear();
        out.resize(slots * 3 * QUADS, 0.0);
        for (q, &at) in base.iter().enumerate() {
            let planes = self.coefficients.get(at..at + slots).unwrap_or_default();
            for (rows, p) in out.chunks_exact_mut(3 * QUADS).zip(planes) {
                rows[q] = f64::from(p.a);
                rows[QUADS + q] = f64::from(p.b);
                rows[2 * QUADS + q] = f64::from(p.c);
            }
        }
    }

    /// A tile with zeroed tilebuffer, every lane at the tile origin and fully covered.
    pub fn new(tile_size: [u32; 2], samples: u32, bytes_per_sample: u32) -> FragmentContext {
        let n = tile_size[0] as usize * tile_size[1] as usize;
        FragmentContext {
            coefficients: Vec::new(),
            planes_per_primitive: 0,
            lane_primitive: [0; LANES],
            tile_size,
            samples,
            bytes_per_sample,
            tilebuffer: vec![0; n * samples as usize * bytes_per_sample as usize],
            tile_origin: [0, 0],
            lane_pixels: [[0, 0]; LANES],
            sample_positions: vec![[0.5, 0.5]; samples as usize],
            coverage: [((1u16 << samples.min(8)) - 1) as u8; LANES],
            input_coverage: [((1u16 << samples.min(8)) - 1) as u8; LANES],
            depth: [[None; MAX_SAMPLES]; LANES],
            stencil: [[None; MAX_SAMPLES]; LANES],
            backfacing: 0,
        }
    }
}

/// Per-SIMD-group vertex state: lane L's UVS record is `uvs[L * slots ..][.. slots]`.
#[derive(Debug, Clone)]
pub struct VertexContext {
    pub slots: u32,
    pub uvs: Vec<u32>,
    /// Lanes that executed a `st_vary` with `last` set.
    pub finished: u32,
}

impl VertexContext {
    pub fn new(slots: u32) -> VertexContext {
        VertexContext {
            slots,
            uvs: vec![0; LANES * slots as usize],
            finished: 0,
        }
    }
}

/// What a graphics launch hands the executor; either part may be absent.
#[derive(Debug, Clone, Default)]
pub struct GraphicsContext {
    /// Texture and sampler state registers (texture, image_write).
    pub textures: super::texture::TextureState,
    pub fragment: Option<FragmentContext>,
    pub vertex: Option<VertexContext>,
}

/// The set bits of a mask, lowest first (active lanes of an exec mask, samples of a set).
#[derive(Clone, Copy)]
struct ExecLanes(u32);

impl Iterator for ExecLanes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

fn fault(prog: &Program, idx: usize, why: impl Into<String>) -> Fault {
    Fault::Shader {
        pc: prog.pc(idx),
        reason: why.into(),
    }
}

fn small_value(g: &SimdGroup, s: Small, lane: usize) -> u32 {
    match s {
        Small::Imm(v) => u32::from(v),
        Small::Reg(r) => g.reg(r, lane) as u32,
    }
}

fn frag<'a>(
    gfx: Option<&'a mut GraphicsContext>,
    prog: &Program,
    idx: usize,
    name: &str,
) -> Result<&'a mut FragmentContext, Fault> {
    gfx.and_then(|g| g.fragment.as_mut())
        .ok_or_else(|| fault(prog, idx, format!("{name} needs a fragment context")))
}

fn plane(
    f: &FragmentContext,
    lane: usize,
    slot: u32,
    prog: &Program,
    idx: usize,
) -> Result<Plane, Fault> {
    f.plane(lane, slot as usize)
        .ok_or_else(|| fault(prog, idx, format!("coefficient slot {slot} is not loaded")))
}

/// Byte offset of (lane's pixel, sample) in the tilebuffer.
fn record(f: &FragmentContext, lane: usize, sample: u32) -> Option<usize> {
    let [px, py] = f.lane_pixels[lane];
    let x = px.checked_sub(f.tile_origin[0])?;
    let y = py.checked_sub(f.tile_origin[1])?;
    if x >= f.tile_size[0] || y >= f.tile_size[1] || sample >= f.samples {
        return None;
    }
    let pixel = (y * f.tile_size[0] + x) as usize;
    Some((pixel * f.samples as usize + sample as usize) * f.bytes_per_sample as usize)
}

/// Each lane's record in a single-sample tilebuffer, for translated tile accesses
/// ([`super::jit::Region::tile_bytes`]): `None` unless the tile has one sample and the lanes
/// of `alive` are at distinct pixels inside the tile. Translated code runs the group's lanes
/// in chunks of eight, each chunk through the whole region, so lanes sharing a pixel would
/// see each other's accesses in another order than the interpreter's. Other lanes get
/// record 0, which translated code may read but never writes.
pub fn tile_records(f: &FragmentContext, alive: u32) -> Option<[u32; LANES]> {
    // Every record of the tile must lie inside the buffer: translated code does not check.
    let records = f.tile_size[0] as usize * f.tile_size[1] as usize;
    if f.samples != 1 || records == 0 || f.tilebuffer.len() < records * f.bytes_per_sample as usize
    {
        return None;
    }
    let mut out = [0u32; LANES];
    // Pixels seen, as bits of the pixel index: tiles are at most 64 x 64.
    let mut seen = [0u64; 64];
    let ([ox, oy], [tw, th]) = (f.tile_origin, f.tile_size);
    for l in ExecLanes(alive) {
        // `record` of sample 0, from the pixel index: pixels left of or above the tile
        // wrap to indices past its size.
        let [px, py] = f.lane_pixels[l];
        let (x, y) = (px.wrapping_sub(ox), py.wrapping_sub(oy));
        if x >= tw || y >= th {
            return None;
        }
        let pixel = (y * tw + x) as usize;
        let at = pixel * f.bytes_per_sample as usize;
        let (word, bit) = (seen.get_mut(pixel / 64)?, 1u64 << (pixel % 64));
        if *word & bit != 0 {
            return None;
        }
        *word |= bit;
        out[l] = at as u32;
    }
    Some(out)
}

/// Where centroid interpolation evaluates for `lane`: the pixel centre when every sample is
/// covered (or none is, for helper lanes), else the first covered sample's position. Vulkan
/// asks only for a point inside both the pixel and the primitive; a covered sample is one.
fn centroid(f: &FragmentContext, lane: usize) -> [f32; 2] {
    let samples = f.samples.min(MAX_SAMPLES as u32) as usize;
    let all = ((1u32 << samples) - 1) as u8;
    let covered = f.coverage[lane] & all;
    if covered == all || covered == 0 {
        return [0.5, 0.5];
    }
    let first = covered.trailing_zeros() as usize;
    f.sample_positions.get(first).copied().unwrap_or([0.5, 0.5])
}

/// Runs one graphics instruction for every active lane. Returns false if `instr` is not one.
pub fn step_graphics(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    gfx: Option<&mut GraphicsContext>,
) -> Result<bool, Fault> {
    let instr = prog.instrs[idx];
    // The active lanes, walked from the exec mask without allocating: this runs for every
    // graphics instruction of every SIMD group.
    let lanes = ExecLanes(g.exec);
    match instr {
        Instr::Iter(x) => {
            let f = frag(gfx, prog, idx, "iter")?;
            for l in lanes {
                let [px, py] = f.lane_pixels[l];
                let [ox, oy] = match x.interp {
                    Interpolation::Center => [0.5, 0.5],
                    Interpolation::Centroid => centroid(f, l),
                    Interpolation::Sample(s) => {
                        let s = small_value(g, s, l);
                        *f.sample_positions.get(s as usize).ok_or_else(|| {
                            fault(
                                prog,
                                idx,
                                format!("iter at sample {s}, which does not exist"),
                            )
                        })?
                    }
                };
                let (fx, fy) = (f64::from(px) + f64::from(ox), f64::from(py) + f64::from(oy));
                let eval = |p: Plane| f64::from(p.a) * fx + f64::from(p.b) * fy + f64::from(p.c);
                let w = match x.perspective_w {
                    Some(w) => eval(plane(f, l, u32::from(w), prog, idx)?),
                    None => 1.0,
                };
                for k in 0..u16::from(x.channels) {
                    let v = eval(plane(f, l, u32::from(x.cf) + u32::from(k), prog, idx)?) / w;
                    let r = Reg {
                        half: x.dst.half + k * x.dst.size.halves(),
                        size: x.dst.size,
                    };
                    let bits = match x.dst.size {
                        Size::S16 => u64::from(f64_to_f16(v, Rounding::NearestEven)),
                        _ if v.is_nan() => u64::from(hw::g13::float_mode::F32_DEFAULT_NAN),
                        _ => u64::from((v as f32).to_bits()),
                    };
                    g.set_reg(r, l, bits);
                }
            }
        }
        Instr::LdCf(x) => {
            let f = frag(gfx, prog, idx, "ldcf")?;
            for l in lanes {
                for k in 0..u32::from(x.channels) {
                    let p = plane(f, l, u32::from(x.cf) + k, prog, idx)?;
                    for (i, v) in [p.a, p.b, p.c].into_iter().enumerate() {
                        let r = Reg::r32(x.dst.half / 2 + (3 * k) as u16 + i as u16);
                        g.set_reg(r, l, u64::from(v.to_bits()));
                    }
                }
            }
        }
        Instr::StVary(x) => {
            let v = gfx
                .and_then(|c| c.vertex.as_mut())
                .ok_or_else(|| fault(prog, idx, "st_vary needs a vertex context"))?;
            if let (Small::Imm(slot), true) = (x.index, g.exec != 0) {
                // One slot for every lane (the usual form): checked once, the source read
                // as a row.
                let slot = u32::from(slot);
                if slot >= v.slots {
                    return Err(fault(
                        prog,
                        idx,
                        format!("st_vary to UVS slot {slot} of {}", v.slots),
                    ));
                }
                let (values, _) = g.lanes(Operand::Reg(x.src), &[]);
                for l in lanes {
                    v.uvs[l * v.slots as usize + slot as usize] = values[l] as u32;
                }
                if x.last {
                    v.finished |= g.exec;
                }
                g.pc = idx + 1;
                return Ok(true);
            }
            for l in lanes {
                let slot = small_value(g, x.index, l);
                if slot >= v.slots {
                    return Err(fault(
                        prog,
                        idx,
                        format!("st_vary to UVS slot {slot} of {}", v.slots),
                    ));
                }
                v.uvs[l * v.slots as usize + slot as usize] = g.reg(x.src, l) as u32;
                if x.last {
                    v.finished |= 1 << l;
                }
            }
        }
        Instr::TileMem(x) => {
            let f = frag(gfx, prog, idx, if x.store { "st_tile" } else { "ld_tile" })?;
            tile_mem(g, prog, idx, &x, f, lanes)?;
        }
        Instr::GetSr(x) => {
            let f = frag(gfx, prog, idx, "get_sr of the coverage")?;
            for l in lanes {
                let c = u64::from(f.coverage[l]);
                let v = match x.sr {
                    SpecialReg::COVERAGE_MASK => c,
                    SpecialReg::IS_ACTIVE_THREAD => u64::from(c != 0),
                    _ => return Ok(false),
                };
                g.set_reg(x.dst.reg, l, v);
            }
        }
        Instr::SampleMask(x) => {
            let f = frag(gfx, prog, idx, "sample_mask")?;
            for l in lanes {
                let t = small_value(g, x.targets, l) as u8;
                let live = small_value(g, x.live, l) as u8;
                f.coverage[l] &= !(t & !live);
            }
        }
        Instr::ZsEmit(x) => {
            let f = frag(gfx, prog, idx, "zs_emit")?;
            for l in lanes {
                let set = small_value(g, x.samples, l);
                let depth = f32::from_bits(g.reg(Reg::r32(x.src.half / 2), l) as u32);
                let sreg = if x.depth { x.src.half + 2 } else { x.src.half };
                let stencil = g.reg(Reg::r16(sreg), l) as u8;
                for s in (0..MAX_SAMPLES).filter(|s| set & (1 << s) != 0) {
                    if x.depth {
                        f.depth[l][s] = Some(depth);
                    }
                    if x.stencil {
                        f.stencil[l][s] = Some(stencil);
                    }
                }
            }
        }
        _ => return Ok(false),
    }
    g.pc = idx + 1;
    Ok(true)
}

/// `ld_tile` / `st_tile` for the active lanes.
fn tile_mem(
    g: &mut SimdGroup,
    prog: &Program,
    idx: usize,
    x: &TileMem,
    f: &mut FragmentContext,
    lanes: ExecLanes,
) -> Result<(), Fault> {
    if x.coords.is_some() {
        return Err(Fault::Unimplemented(
            "ld_tile/st_tile with explicit coordinates",
        ));
    }
    let size = match x.format {
        MemFormat::I8
        | MemFormat::I16
        | MemFormat::I32
        | MemFormat::F16
        | MemFormat::U8Norm
        | MemFormat::S8Norm
        | MemFormat::U16Norm
        | MemFormat::S16Norm => x.format.bytes(),
        _ => {
            return Err(Fault::Unimplemented(
                "tilebuffer access with a packed format",
            ))
        }
    };
    // The normalised formats convert: a float register (f32, or f16 in a 16-bit one) to
    // the integer the tile holds, and back.
    let norm = match x.format {
        MemFormat::U8Norm => Some((8, false)),
        MemFormat::S8Norm => Some((8, true)),
        MemFormat::U16Norm => Some((16, false)),
        MemFormat::S16Norm => Some((16, true)),
        _ => None,
    };
    let step = if x.reg.size == Size::S16 { 1 } else { 2 };
    // The elements the mask selects, once for all lanes: (byte in the sample, register).
    // An element past the sample is a fault, raised at the first sample actually accessed.
    let mut elems = [(0usize, x.reg); 4];
    let mut count = 0;
    let mut past: Option<u32> = None;
    for e in 0..4u32 {
        if x.mask & (1 << e) == 0 {
            continue;
        }
        let at = u32::from(x.pixel_offset) + e * size;
        if at + size > f.bytes_per_sample {
            past.get_or_insert(at);
        }
        elems[count] = (
            at as usize,
            Reg {
                half: x.reg.half + count as u16 * step,
                size: x.reg.size,
            },
        );
        count += 1;
    }
    let elems = &elems[..count];
    let size = size as usize;
    // The last register value each element's conversion saw and what it gave: lanes storing
    // one value (a clear, a flat colour) convert it once.
    let mut last = [(u64::MAX, 0u64); 4];
    for l in lanes {
        let mut set = small_value(g, x.samples, l);
        if set == 0xff {
            set = (1 << f.samples) - 1;
        }
        // Stores write only the samples the lane still covers.
        if x.store {
            set &= u32::from(f.coverage[l]);
        }
        // Samples of the set that exist; a load reads only the first of them.
        let mut chosen = set & ((1u64 << f.samples) - 1) as u32;
        if !x.store {
            chosen &= chosen.wrapping_neg();
        }
        for s in ExecLanes(chosen).map(|s| s as u32) {
            let base = record(f, l, s).ok_or_else(|| {
                fault(
                    prog,
                    idx,
                    format!("lane {l} sample {s} is outside the tile"),
                )
            })?;
            if let Some(at) = past {
                return Err(fault(
                    prog,
                    idx,
                    format!(
                        "tile access at byte {at} of a {}-byte sample",
                        f.bytes_per_sample
                    ),
                ));
            }
            for (k, &(at, r)) in elems.iter().enumerate() {
                let bytes = &mut f.tilebuffer[base + at..][..size];
                if x.store {
                    let mut v = g.reg(r, l);
                    if let Some((bits, signed)) = norm {
                        let memo = &mut last[k];
                        if memo.0 != v {
                            let fl = match r.size {
                                Size::S16 => super::float::f16_to_f32(v as u16),
                                _ => f32::from_bits(v as u32),
                            };
                            let n = texel::format::float_to_norm(fl, bits, signed);
                            *memo = (v, u64::from(n));
                        }
                        v = memo.1;
                    }
                    // Sized moves, not a copy call per element.
                    match size {
                        1 => bytes[0] = v as u8,
                        2 => bytes.copy_from_slice(&(v as u16).to_le_bytes()),
                        _ => bytes.copy_from_slice(&(v as u32).to_le_bytes()),
                    }
                } else {
                    let mut v = match size {
                        1 => u64::from(bytes[0]),
                        2 => u64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
                        _ => {
                            u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
                        }
                    };
                    if let Some((bits, signed)) = norm {
                        let fl = texel::format::norm_to_float(v as u32, bits, signed);
                        v = match r.size {
                            Size::S16 => u64::from(texel::minifloat::f32_to_f16(fl)),
                            _ => u64::from(fl.to_bits()),
                        };
                    }
                    g.set_reg(r, l, v);
                }
            }
        }
    }
    Ok(())
}
