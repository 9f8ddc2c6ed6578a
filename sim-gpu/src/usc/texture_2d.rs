//! The texture unit's common sample a SIMD group at a time: `texture_sample` of a 2D view of
//! an uncompressed, non-integer image, one descriptor and one sampler for every lane, with
//! nearest or linear filters, any mip filter and wrap mode, a built-in border colour, an
//! explicit or implicit LOD, and no anisotropy, depth comparison, offsets, gathers or LOD
//! queries: the sample of a textured triangle.
//!
//! The lane-by-lane path (`texture::sample_lanes`) resolves the descriptor and sampler, builds
//! the filter's footprint and fetches its texels through the memory for every lane. Here the
//! descriptor, sampler and format are resolved once for the group, each tap's texel is read
//! through the image's read window and decoded once per address, and the per-lane arithmetic
//! is `texel::sample`'s own pieces (`select`, `axis_taps`, `accumulate`, `canonical`) in its
//! order, so the results are identical bit for bit. A sampler whose filter and level do not
//! depend on the LOD (`sample::lod_free`) skips the LOD; with a nearest filter in one level,
//! each lane reads its one texel through the level's addressing, worked out once
//! (`Surface::level_address`). A differential test runs both paths over random
//! images, samplers, coordinates and masks. Whatever falls outside, and every fault, goes to
//! the lane-by-lane path, which reports faults in lane order: nothing here writes registers
//! or memory.

use super::lanes::Lanes;
use super::texture::{
    footprint, sampler, sampler_key, Bound, Descriptors, Finish, Lod, Reader, TexOp,
};
use crate::texel::format::{self, Texel};
use crate::texel::image::{LevelAddress, Surface};
use crate::texel::minifloat::f16_to_f32;
use crate::texel::sample::{
    self, accumulate_floats, axis_taps, canonical_floats, select, Extent, Levels, Shape,
};
use crate::GpuMemory;
use hw::g13::control::descriptors::{BorderColour, Filter, Sampler, TextureType, Wrap};
use hw::isa::*;

const LANES: usize = SIMD_WIDTH;

/// Fills `out` with the results of `x` for every active lane, by destination slot, if the
/// instruction and the state it reaches are the common case and nothing faults; `false`
/// sends the instruction to the lane-by-lane path (`out` may hold some lanes' results).
pub(super) fn sample(op: &TexOp, out: &mut [Lanes; 4]) -> bool {
    sample_into(op, out).is_some()
}

fn sample_into(op: &TexOp, out: &mut [Lanes; 4]) -> Option<()> {
    let TexOp {
        g,
        prog,
        idx,
        x,
        state,
        uniforms,
        mem,
        rows,
    } = *op;
    let plain = !x.load
        && x.gather.is_none()
        && !x.query_lod
        && !x.shadow
        && !x.offset
        && x.dim == TexDim::D2
        && matches!(rows.lod_src, Lod::Implicit { .. } | Lod::Explicit(_));
    if !plain || g.exec == 0 {
        return None;
    }
    // One descriptor and one sampler for the whole group.
    let mut descriptors = Descriptors::<Bound>::new(x.texture, state, uniforms, prog, idx);
    let active = || (0..LANES).filter(|l| g.exec & (1 << l) != 0);
    let first = g.exec.trailing_zeros() as usize;
    let bound = descriptors.for_lane(g, first, mem).ok()?;
    let key = sampler_key(g, x.sampler, first, prog, idx).ok()?;
    // Lanes whose operands hold the first lane's index name its descriptor and sampler;
    // otherwise each lane is asked.
    let same = |r: Reg| {
        let (row, _) = g.lanes(Operand::Reg(r), uniforms);
        let differ = row
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, &v)| m | u32::from(v != row[first]) << l);
        differ & g.exec == 0
    };
    let uniform_texture = match x.texture {
        TexIndex::Imm(_) => true,
        TexIndex::Reg(r) => same(r),
        TexIndex::Bindless { index, .. } => same(Reg {
            half: index.half,
            size: Size::S32,
        }),
    };
    let uniform_sampler = match x.sampler {
        Small::Imm(_) => true,
        Small::Reg(r) => same(r),
    };
    if !(uniform_texture && uniform_sampler) {
        for lane in active().skip(1) {
            let b = descriptors.for_lane(g, lane, mem).ok()?;
            let k = sampler_key(g, x.sampler, lane, prog, idx).ok()?;
            if !std::rc::Rc::ptr_eq(&b, &bound) || k != key {
                return None;
            }
        }
    }
    let (s, custom) = sampler(key, state, mem, &mut Vec::new(), prog, idx).ok()?;
    let b = &*bound;
    let surf = b.surface.as_ref()?;
    let filters = |f: Filter| matches!(f, Filter::Nearest | Filter::Linear);
    let common = custom.is_none()
        && s.border_colour != BorderColour::Custom
        && s.max_anisotropy.max(1) == 1
        && !s.pixel_coordinates
        && filters(s.magnify)
        && filters(s.minify)
        && surf.block == (1, 1)
        && surf.samples == 1
        && surf.levels > 0
        && !format::is_integer(b.desc.texture_type);
    if !common {
        return None;
    }
    let ext = Extent {
        levels: surf.levels,
        layers: surf.depth,
        integer: false,
        unorm: b.desc.texture_type == TextureType::Unorm,
        custom_border: None,
    };
    // Float formats decode to float texels; the border of a float view is one too.
    let Texel::Float(border) = sample::border(s.border_colour, &ext).ok()? else {
        return None;
    };
    let mut texels = Texels::new(b, surf, mem);
    // A sampler that reads the same level with the same filter at every LOD (vkcube's) does
    // not need the lanes' LODs.
    let fixed = if sample::lod_free(&s, &ext) {
        Some(select(&s, &ext, 0.0).ok()?)
    } else {
        None
    };
    if let Some((Filter::Nearest, levels)) = fixed {
        if let [(level, 1.0)] = *levels {
            return nearest(op, &s, level, border, &mut texels, out);
        }
    }
    let finish = Finish::new(x, b.desc.swizzle);
    for lane in active() {
        let coords = [
            f32::from_bits(rows.coord(0, lane)),
            f32::from_bits(rows.coord(1, lane)),
            0.0,
        ];
        if let Some((filter, levels)) = fixed {
            let t = filtered(&s, surf, coords, filter, &levels, border, &mut texels)?;
            for (row, v) in out.iter_mut().zip(finish.floats(canonical_floats(t))) {
                row[lane] = v;
            }
            continue;
        }
        // The LOD exactly as `texture::sample_lane` makes it.
        let lod = match rows.lod_src {
            Lod::Implicit { bias, with_min } => {
                let ((dx, dy), bias, min) = rows.implicit(g, uniforms, lane, bias, with_min);
                let fp = footprint(Shape::D2, coords, dx, dy, surf.extent(0), &s);
                let lod = fp.lod + bias;
                min.map_or(lod, |m| lod.max(m))
            }
            Lod::Explicit(h) => f16_to_f32(h.get(g, uniforms, 0, lane)),
            _ => return None,
        };
        let (filter, levels) = select(&s, &ext, lod).ok()?;
        let t = filtered(&s, surf, coords, filter, &levels, border, &mut texels)?;
        for (row, v) in out.iter_mut().zip(finish.floats(canonical_floats(t))) {
            row[lane] = v;
        }
    }
    Some(())
}

/// One lane's filtered sample before the swizzle: `sample::sample` for one layer of a 2D
/// view, the levels, then per level the product of the two axes' taps, x slowest
/// (`sample_level`).
fn filtered(
    s: &Sampler,
    surf: &Surface,
    coords: [f32; 3],
    filter: Filter,
    levels: &Levels,
    border: [f32; 4],
    texels: &mut Texels,
) -> Option<[f32; 4]> {
    let mut acc: Option<[f32; 4]> = None;
    for &(level, weight) in levels.iter() {
        let [w, h, _] = surf.extent(level);
        let ax = axis_taps(s, coords[0], w, 0, filter, s.wrap[0]);
        let ay = axis_taps(s, coords[1], h, 0, filter, s.wrap[1]);
        let mut tap = |x: Option<i64>, y: Option<i64>| match (x, y) {
            (Some(x), Some(y)) => texels.get(x, y, level),
            _ => Some(border),
        };
        let t = if ax.len() == 1 && ay.len() == 1 {
            tap(ax[0].0, ay[0].0)?
        } else {
            let mut sum = [0f32; 4];
            for &(x, wx) in ax.iter() {
                for &(y, wy) in ay.iter() {
                    // The third axis is the layer, one tap of weight 1.
                    let weight = wx * wy * 1.0;
                    for (a, v) in sum.iter_mut().zip(tap(x, y)?) {
                        *a += weight * v;
                    }
                }
            }
            sum
        };
        acc = Some(accumulate_floats(acc, t, weight));
    }
    acc
}

/// Every lane's sample through a nearest filter in one level at weight 1: one texel each,
/// `filtered`'s texel made canonical, swizzled and converted.
fn nearest(
    op: &TexOp,
    s: &Sampler,
    level: u32,
    border: [f32; 4],
    texels: &mut Texels,
    out: &mut [Lanes; 4],
) -> Option<()> {
    let (g, x, rows) = (op.g, op.x, op.rows);
    let [w, h, _] = texels.surf.extent(level);
    let addr = texels.surf.level_address(level)?;
    let finish = Finish::new(x, texels.b.desc.swizzle);
    let border = finish.floats(canonical_floats(border));
    if texels.unorm8x4 && nearest_unorm8x4(op, s, [w, h], &addr, &finish, border, out).is_some() {
        return Some(());
    }
    for lane in (0..LANES).filter(|l| g.exec & (1 << l) != 0) {
        let u = f32::from_bits(rows.coord(0, lane));
        let v = f32::from_bits(rows.coord(1, lane));
        let r = match (
            sample::nearest_tap(s, u, w, s.wrap[0]),
            sample::nearest_tap(s, v, h, s.wrap[1]),
        ) {
            // Lanes rarely share a texel here (a quad's lanes do when the image is
            // magnified), so nothing is kept.
            (Some(x), Some(y)) => finish.floats(canonical_floats(texels.read(addr.at(x, y))?)),
            _ => border,
        };
        for (row, v) in out.iter_mut().zip(r) {
            row[lane] = v;
        }
    }
    Some(())
}

/// Lanes sampled by [`nearest_unorm8x4`], and those of them whose results were the texel's
/// bytes in order, so the tests can tell both ran.
#[cfg(test)]
pub(super) static UNORM8X4_LANES: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);
#[cfg(test)]
pub(super) static IN_ORDER_LANES: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

/// [`nearest`] for 8-bit UNORM RGBA texels when the level's texels lie in one read window
/// (a texture's level lies in one buffer object): each texel is one 4-byte load, and each
/// destination value a table entry for one of its bytes (`Finish::unorm8`). `None` when a
/// texel lies outside the window, before any fault: `nearest`'s own loop then redoes every
/// lane.
fn nearest_unorm8x4(
    op: &TexOp,
    s: &Sampler,
    [w, h]: [u32; 2],
    addr: &LevelAddress,
    finish: &Finish,
    border: [u64; 4],
    out: &mut [Lanes; 4],
) -> Option<()> {
    let (g, rows) = (op.g, op.rows);
    let window = op.mem.read_window(addr.at(0, 0)?)?;
    let unorm8 = finish.unorm8();
    // First every lane's texel address, then every load, then every conversion: the loads
    // of a group are independent, and a texture read once per frame mostly misses the
    // caches, so they are issued together rather than one per lane's arithmetic.
    let (us, vs) = (rows.coord_floats(0), rows.coord_floats(1));
    let (ax, ay) = (Axis::new(s, w, 0), Axis::new(s, h, 1));
    let mut at = [BORDER; LANES];
    let mut exec = g.exec;
    while exec != 0 {
        let lane = exec.trailing_zeros() as usize;
        exec &= exec - 1;
        if let (Some(x), Some(y)) = (ax.tap(us[lane]), ay.tap(vs[lane])) {
            // Outside the level: a zero texel, as `Texels::read` gives.
            at[lane] = addr.at(x, y).unwrap_or(ZERO);
        }
    }
    let mut texel = [[0u8; 4]; LANES];
    for (a, b) in at.iter().zip(texel.iter_mut()) {
        if *a < ZERO && !window.read(*a, b) {
            return None;
        }
    }
    // Each texel's results; when each slot shows its own byte, four table look-ups.
    let in_order = unorm8.in_order();
    match in_order {
        Some(table) => fill(g.exec, &at, &texel, border, out, |b| {
            b.map(|v| table[usize::from(v)])
        }),
        None => fill(g.exec, &at, &texel, border, out, |b| unorm8.values(b)),
    }
    #[cfg(test)]
    {
        use std::sync::atomic::Ordering::Relaxed;
        let n = u64::from(g.exec.count_ones());
        UNORM8X4_LANES.fetch_add(n, Relaxed);
        IN_ORDER_LANES.fetch_add(if in_order.is_some() { n } else { 0 }, Relaxed);
    }
    Some(())
}

/// The results of the lanes of `exec`: `border` where `at` is `BORDER`, else `values` of
/// the lane's texel bytes.
#[inline(always)]
fn fill(
    exec: u32,
    at: &[u64; LANES],
    texel: &[[u8; 4]; LANES],
    border: [u64; 4],
    out: &mut [Lanes; 4],
    values: impl Fn([u8; 4]) -> [u64; 4],
) {
    let mut exec = exec;
    while exec != 0 {
        let lane = exec.trailing_zeros() as usize;
        exec &= exec - 1;
        let r = if at[lane] == BORDER {
            border
        } else {
            values(texel[lane])
        };
        for (row, v) in out.iter_mut().zip(r) {
            row[lane] = v;
        }
    }
}

/// Markers in [`nearest_unorm8x4`]'s texel addresses, past any GPU address (descriptors
/// hold 40-bit ones): the border colour, and a zero texel outside the level.
const BORDER: u64 = u64::MAX;
const ZERO: u64 = u64::MAX - 1;

/// One axis of a nearest filter, for [`nearest_unorm8x4`]'s lanes.
struct Axis<'a> {
    s: &'a Sampler,
    size: u32,
    /// `size` as a float, or NaN when the sampler takes pixel coordinates, which the fast
    /// case of [`Axis::tap`] does not cover.
    scale: f32,
    mode: Wrap,
}

impl<'a> Axis<'a> {
    fn new(s: &'a Sampler, size: u32, axis: usize) -> Self {
        Axis {
            s,
            size,
            scale: if s.pixel_coordinates {
                f32::NAN
            } else {
                size as f32
            },
            mode: s.wrap[axis],
        }
    }

    /// `sample::nearest_tap`. A coordinate that lands inside the axis needs neither the
    /// wrap nor a floor: its texel is the truncation. That is every mode's result, ClampGl's
    /// too (its clamp to 0..1 changes no such coordinate).
    #[inline(always)]
    fn tap(&self, c: f32) -> Option<i64> {
        let u = c * self.scale;
        if (0.0..self.scale).contains(&u) {
            return Some(u as i64);
        }
        sample::nearest_tap(self.s, c, self.size, self.mode)
    }
}

/// The texels of one image for one instruction: read through the memory's read window and
/// decoded once per texel (lanes of a quad mostly read the same few).
struct Texels<'a> {
    b: &'a Bound,
    surf: &'a Surface,
    reader: Reader<'a>,
    /// Decoded texels, direct mapped by `Texels::key`; key 0 for an empty entry.
    kept: [(u64, [f32; 4]); 16],
    /// Whether texels are 8-bit UNORM RGBA (`format::unorm8x4`).
    unorm8x4: bool,
}

impl<'a> Texels<'a> {
    fn new(b: &'a Bound, surf: &'a Surface, mem: &'a dyn GpuMemory) -> Self {
        Texels {
            b,
            surf,
            reader: Reader::new(mem),
            kept: [(0, [0.0; 4]); 16],
            unorm8x4: format::is_unorm8x4(b.desc.channels, b.desc.texture_type, b.desc.srgb)
                && surf.bytes == 4,
        }
    }

    /// The cache key of (x, y, level), packed with bit 63 set, and its entry; `None` for
    /// coordinates too large to pack, which are not kept.
    #[inline]
    fn key(x: i64, y: i64, level: u32) -> Option<(u64, usize)> {
        let fits = (0..1 << 24).contains(&x) && (0..1 << 24).contains(&y) && level < 1 << 8;
        // Neighbouring texels land in different entries.
        let slot = ((x & 3) | (y & 3) << 2) as usize;
        fits.then(|| {
            (
                1 << 63 | u64::from(level) << 48 | (y as u64) << 24 | x as u64,
                slot,
            )
        })
    }

    /// The texel at (x, y) of layer 0 of view level `level`: a zero texel outside the
    /// image, as `texture::fetch`; `None` at a fault, or a format that does not decode to
    /// floats.
    fn get(&mut self, x: i64, y: i64, level: u32) -> Option<[f32; 4]> {
        let key = Self::key(x, y, level);
        if let Some((k, slot)) = key {
            if self.kept[slot].0 == k {
                return Some(self.kept[slot].1);
            }
        }
        let t = self.fetch(x, y, level)?;
        if let Some((k, slot)) = key {
            self.kept[slot] = (k, t);
        }
        Some(t)
    }

    /// The texel at (x, y) of level `level`, read and decoded.
    fn fetch(&mut self, x: i64, y: i64, level: u32) -> Option<[f32; 4]> {
        self.read(self.surf.address(x, y, 0, level, 0))
    }

    /// The texel at `addr`, read and decoded; a zero texel outside the image (`None`).
    #[inline]
    fn read(&mut self, addr: Option<u64>) -> Option<[f32; 4]> {
        let Some(addr) = addr else {
            return Some([0.0; 4]);
        };
        let d = &self.b.desc;
        if self.unorm8x4 {
            let mut b = [0u8; 4];
            self.reader.read(addr, &mut b).ok()?;
            return Some(format::unorm8x4(b));
        }
        let mut buf = [0u8; 16];
        let bytes = &mut buf[..self.surf.bytes as usize];
        self.reader.read(addr, bytes).ok()?;
        match format::decode(d.channels, d.texture_type, d.srgb, d.srgb_2_channel, bytes) {
            Ok(Texel::Float(t)) => Some(t),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "tests_texture_2d.rs"]
mod tests;
