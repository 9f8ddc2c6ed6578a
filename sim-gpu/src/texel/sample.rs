//! Filtered reads: coordinate wrapping, nearest and linear filters, mip selection, border
//! colours and depth comparison, on top of a texel fetch.
//!
//! Vulkan's texel filtering rules, with these **agx4** readings where the hardware is not
//! documented:
//! * border colours replace the texel before the descriptor swizzle (Mesa works around RGBA4
//!   opaque black, which only makes sense if the hardware swizzles the border); a `Custom`
//!   border comes in channel order from the caller (`Extent::custom_border`);
//! * a depth comparison compares channel 0 and yields (result, 0, 0, 1) before the swizzle,
//!   each tap compared before filtering;
//! * cube maps pick the face by the major axis. Linear filters (and gathers) of a sampler
//!   with `Seamful cube maps` clear take the texels of the footprint that fall off the face
//!   from the adjacent face, by Vulkan's cube map edge rules; a texel off both edges (a
//!   corner) is the mean of the three texels that meet there. With the bit set, each face
//!   clamps at its edge (the behaviour of `VK_EXT_non_seamless_cube_map`);
//! * integer formats are always filtered with nearest texels and the nearest level.

use super::format::Texel;
use hw::g13::control::descriptors::{
    lod_from_fixed, BorderColour, CompareFunc, Filter, MipFilter, Sampler, Wrap,
};

/// The shape of a sample's coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// x (and an array layer).
    D1,
    /// x, y (and an array layer).
    D2,
    /// x, y, z, all filtered.
    D3,
    /// A direction x, y, z (and a cube layer).
    Cube,
}

/// One lane's sample request.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub shape: Shape,
    pub coords: [f32; 3],
    /// Array layer (cube arrays: the cube index).
    pub layer: u32,
    /// Level of detail before the sampler's clamps.
    pub lod: f32,
    /// Texel offsets added after scaling (from the packed offset operand).
    pub offset: [i32; 3],
    /// Depth reference for shadow samplers.
    pub compare: Option<f32>,
}

/// What the image looks like to the filter.
#[derive(Debug, Clone, Copy)]
pub struct Extent {
    /// Levels of the view.
    pub levels: u32,
    /// Layers (non-3D) of the view.
    pub layers: u32,
    /// Integer texel type: no filtering, integer border colours.
    pub integer: bool,
    /// UNORM depth: the compare reference is clamped to 0..=1 first.
    pub unorm: bool,
    /// The channels of a `Custom` border colour (before the swizzle), from the sampler heap.
    pub custom_border: Option<Texel>,
}

/// The border colour `b` for an image like `ext`.
pub fn border(b: BorderColour, ext: &Extent) -> Result<Texel, &'static str> {
    let integer = ext.integer;
    let (rgb, a) = match b {
        BorderColour::TransparentBlack => (0, 0),
        BorderColour::OpaqueBlack => (0, 1),
        BorderColour::OpaqueWhite => (1, 1),
        BorderColour::Custom => {
            return ext
                .custom_border
                .ok_or("custom border colours outside the sampler heap")
        }
    };
    Ok(if integer {
        Texel::Int([rgb, rgb, rgb, a])
    } else {
        let (rgb, a) = (rgb as f32, a as f32);
        Texel::Float([rgb, rgb, rgb, a])
    })
}

/// `x.floor()`, exactly (the sign of zero and NaN included), without the libm call the
/// baseline x86-64 target makes for it: every lane's filter floors its coordinates.
#[inline]
pub fn floor(x: f32) -> f32 {
    // From 2^23 on every f32 is an integer; NaN and the infinities go there too.
    if x.is_nan() || x.abs() >= 8_388_608.0 {
        return x;
    }
    let t = x as i32 as f32;
    if t > x {
        t - 1.0
    } else {
        t.copysign(x)
    }
}

/// `floor(x) as i64` (saturating; NaN gives 0) without forming the float floor: the
/// truncation, one less where it rounded up.
#[inline]
pub fn floor_i64(x: f32) -> i64 {
    let t = x as i64;
    // Below i64::MIN the truncation saturated already.
    t - i64::from(t as f32 > x && t != i64::MIN)
}

/// `x.ceil()`, exactly, as [`floor`].
#[inline]
pub fn ceil(x: f32) -> f32 {
    -floor(-x)
}

/// Texel index `i` of an axis of `size` texels under `mode`; `None` selects the border.
#[inline(always)]
pub fn wrap(i: i64, size: i64, mode: Wrap) -> Option<i64> {
    // Every mode keeps an index inside the axis (most are), so the division is skipped.
    if (0..size).contains(&i) {
        return Some(i);
    }
    wrap_outside(i, size, mode)
}

/// [`wrap`] of an index outside the axis.
#[inline(never)]
fn wrap_outside(i: i64, size: i64, mode: Wrap) -> Option<i64> {
    match mode {
        Wrap::Repeat => Some(i.rem_euclid(size)),
        Wrap::MirroredRepeat => {
            let p = i.rem_euclid(2 * size);
            Some(if p < size { p } else { 2 * size - 1 - p })
        }
        Wrap::ClampToEdge => Some(i.clamp(0, size - 1)),
        Wrap::ClampToBorder | Wrap::ClampGl => None,
        Wrap::MirroredClampToEdge => Some(if i < 0 { -1 - i } else { i }.min(size - 1)),
    }
}

fn compare(f: CompareFunc, reference: f32, d: f32) -> bool {
    match f {
        CompareFunc::Lequal => reference <= d,
        CompareFunc::Gequal => reference >= d,
        CompareFunc::Less => reference < d,
        CompareFunc::Greater => reference > d,
        CompareFunc::Equal => reference == d,
        CompareFunc::NotEqual => reference != d,
        CompareFunc::Always => true,
        CompareFunc::Never => false,
    }
}

/// Cube face (+X, -X, +Y, -Y, +Z, -Z = 0..6) and its s, t in 0..=1.
pub fn cube_face(d: [f32; 3]) -> (u32, f32, f32) {
    let [x, y, z] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    if ma == 0.0 {
        return (face, 0.5, 0.5);
    }
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// How face `face` (as [`cube_face`] numbers them) makes its coordinates: sc and tc as
/// (direction axis, sign), and the major axis.
fn face_axes(face: u32) -> ([(usize, f32); 2], usize) {
    match face {
        0 => ([(2, -1.0), (1, -1.0)], 0),
        1 => ([(2, 1.0), (1, -1.0)], 0),
        2 => ([(0, 1.0), (2, 1.0)], 1),
        3 => ([(0, 1.0), (2, -1.0)], 1),
        4 => ([(0, 1.0), (1, -1.0)], 2),
        _ => ([(0, -1.0), (1, -1.0)], 2),
    }
}

/// The derivative of the face coordinates (s, t in 0..=1) for a derivative `dd` of the
/// direction `d`, on the face `d` selects: with s = (sc / |ma| + 1) / 2,
/// ds = (dsc / |ma| - sc * d|ma| / ma^2) / 2 (Vulkan's cube map derivative rule, with the
/// sign of the major axis carried through d|ma|).
pub fn cube_face_derivative(d: [f32; 3], dd: [f32; 3]) -> [f32; 2] {
    let (face, _, _) = cube_face(d);
    let (st, m) = face_axes(face);
    let ma = d[m].abs();
    if ma == 0.0 {
        return [0.0; 2];
    }
    let dma = d[m].signum() * dd[m];
    st.map(|(a, sign)| 0.5 * (sign * dd[a] / ma - sign * d[a] * dma / (ma * ma)))
}

/// The texel fetch a sample is built on: (x, y, z, view level) inside the level, z being the
/// layer or slice. The filter is generic over it (and over `Size`), so that the texture
/// unit's fetch is inlined into the filter that runs for every lane.
pub trait Fetch<E>: FnMut(i64, i64, i64, u32) -> Result<Texel, E> {}
impl<E, F: FnMut(i64, i64, i64, u32) -> Result<Texel, E> + ?Sized> Fetch<E> for F {}

/// A view level's width, height and depth (depth: 3D slices).
pub trait Size: Fn(u32) -> [u32; 3] {}
impl<Z: Fn(u32) -> [u32; 3] + ?Sized> Size for Z {}

/// Errors of a sample: the fetch's, or a sampler state the model does not handle.
#[derive(Debug)]
pub enum SampleError<E> {
    Fetch(E),
    Unmodelled(&'static str),
}

/// The filter and the view levels (with their weights, one or two) a sample at level of
/// detail `lod` (before the sampler's clamps) reads, for a view of `ext.levels` > 0 levels.
pub fn select(s: &Sampler, ext: &Extent, lod: f32) -> Result<(Filter, Levels), &'static str> {
    let q = (ext.levels - 1) as f32;
    let lod = lod
        .max(lod_from_fixed(s.min_lod))
        .min(lod_from_fixed(s.max_lod));
    let lod = if lod.is_nan() { 0.0 } else { lod };
    let mut filter = if lod <= 0.0 { s.magnify } else { s.minify };
    let mut mip = if s.pixel_coordinates {
        MipFilter::None
    } else {
        s.mip_filter
    };
    if ext.integer {
        filter = Filter::Nearest;
        if mip == MipFilter::Linear {
            mip = MipFilter::Nearest;
        }
    }
    if filter == Filter::Bicubic {
        return Err("bicubic filtering");
    }
    let d = lod.clamp(0.0, q);
    let none = (0, 0.0);
    let levels = match mip {
        MipFilter::None => Few::of(&[(0, 1.0)], none),
        MipFilter::Nearest => Few::of(&[((ceil(d + 0.5) - 1.0).clamp(0.0, q) as u32, 1.0)], none),
        MipFilter::Linear => {
            let hi = floor(d);
            let lo = (hi + 1.0).min(q);
            let t = d - hi;
            if t == 0.0 || lo == hi {
                Few::of(&[(hi as u32, 1.0)], none)
            } else {
                Few::of(&[(hi as u32, 1.0 - t), (lo as u32, t)], none)
            }
        }
    };
    Ok((filter, levels))
}

/// Whether [`select`] gives the same filter and levels at every LOD, so a sample need not
/// work its LOD out: a sampler clamping the LOD to at most 0 (how applications ask for no
/// mipmapping) always magnifies level 0; one filter over a single level is the same at
/// any LOD.
pub fn lod_free(s: &Sampler, ext: &Extent) -> bool {
    let one_level = ext.levels == 1 || s.pixel_coordinates || s.mip_filter == MipFilter::None;
    let one_filter = s.magnify == s.minify || ext.integer;
    lod_from_fixed(s.max_lod) <= 0.0 || (one_level && one_filter)
}

/// The levels a sample reads and their weights.
pub type Levels = Few<(u32, f32), 2>;

/// Samples one lane. `size(level)` gives the view level's width, height and depth (depth:
/// 3D slices).
pub fn sample<E>(
    s: &Sampler,
    ext: Extent,
    req: &Request,
    size: &(impl Size + ?Sized),
    fetch: &mut (impl Fetch<E> + ?Sized),
) -> Result<Texel, SampleError<E>> {
    if ext.levels == 0 {
        return Ok(Texel::Float([0.0; 4]));
    }
    let (filter, levels) = select(s, &ext, req.lod).map_err(SampleError::Unmodelled)?;
    let mut acc: Option<Texel> = None;
    for &(level, weight) in levels.iter() {
        let t = sample_level(s, ext, req, level, filter, size, fetch)?;
        acc = Some(accumulate(acc, t, weight));
    }
    Ok(canonical(acc.unwrap_or(Texel::Float([0.0; 4]))))
}

/// A sample with its NaN components made the canonical quiet NaN (**agx4**): which NaN
/// comes out of filter arithmetic depends on the order of the operands, which the host
/// compiler may swap, so a sample does not keep NaN signs or payloads.
pub fn canonical(t: Texel) -> Texel {
    match t {
        Texel::Float(f) => Texel::Float(canonical_floats(f)),
        t => t,
    }
}

/// [`canonical`] of a float texel.
#[inline]
pub fn canonical_floats(f: [f32; 4]) -> [f32; 4] {
    f.map(|v| if v.is_nan() { f32::NAN } else { v })
}

/// An LOD query's pair for a lane whose LOD (bias and shader minimum included) is `lod`:
/// the level mip selection reads, relative to the view's base level, then `lod` itself.
/// The level is the LOD after the sampler's min/max clamp, clamped to the view's levels
/// (0 when the sampler does not mipmap) and, for nearest mipmapping, rounded to the level
/// read: Vulkan's `d_l - level_base`, which is why a sampler with `maxLod` 0.25 (how
/// applications ask for "no mipmapping") reports level 0. **agx4** reading: Mesa hands the
/// instruction's two results to `textureQueryLod` unchanged, so they are taken to be
/// Vulkan's pair.
pub fn query_lod(s: &Sampler, ext: Extent, lod: f32) -> [f32; 2] {
    let clamped = lod
        .max(lod_from_fixed(s.min_lod))
        .min(lod_from_fixed(s.max_lod));
    let clamped = if clamped.is_nan() { 0.0 } else { clamped };
    let q = ext.levels.saturating_sub(1) as f32;
    let level = match s.mip_filter {
        _ if s.pixel_coordinates => 0.0,
        MipFilter::None => 0.0,
        // Vulkan's nearest(d) = ceil(d + 0.5) - 1: halves round down.
        MipFilter::Nearest => (clamped.clamp(0.0, q) + 0.5).ceil() - 1.0,
        MipFilter::Linear => clamped.clamp(0.0, q),
    };
    [level, lod]
}

/// A level's texel weighted into a sample: `t` scaled by the first level's weight, or
/// `acc + weight * t` for the second.
pub fn accumulate(acc: Option<Texel>, t: Texel, weight: f32) -> Texel {
    match (acc, t) {
        (None, Texel::Float(f)) => Texel::Float(accumulate_floats(None, f, weight)),
        (None, t) => t,
        (Some(Texel::Float(a)), Texel::Float(b)) => {
            Texel::Float(accumulate_floats(Some(a), b, weight))
        }
        (Some(a), _) => a,
    }
}

/// [`accumulate`] of float texels.
#[inline]
pub fn accumulate_floats(acc: Option<[f32; 4]>, t: [f32; 4], weight: f32) -> [f32; 4] {
    match acc {
        None if weight != 1.0 => t.map(|x| x * weight),
        None => t,
        Some(a) => std::array::from_fn(|i| a[i] + weight * t[i]),
    }
}

/// Up to `N` items kept in place: footprints and mip levels are built for every lane of
/// every texture instruction, where heap vectors cost more than the filtering.
#[derive(Debug, Clone, Copy)]
pub struct Few<T: Copy, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> Few<T, N> {
    fn new(fill: T) -> Self {
        Few {
            items: [fill; N],
            len: 0,
        }
    }

    fn of(items: &[T], fill: T) -> Self {
        let mut f = Few::new(fill);
        for &i in items {
            f.push(i);
        }
        f
    }

    fn push(&mut self, item: T) {
        self.items[self.len] = item;
        self.len += 1;
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for Few<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}

/// The taps of one axis: (texel index, `None` for the border; weight).
pub type AxisTaps = Few<(Option<i64>, f32), 2>;

/// The taps along one axis of `size` texels for coordinate `c` (normalised unless the
/// sampler takes pixel coordinates), wrapped by `mode`.
#[inline]
pub fn axis_taps(
    s: &Sampler,
    c: f32,
    size: u32,
    offset: i32,
    filter: Filter,
    mode: Wrap,
) -> AxisTaps {
    taps(axis_coord(s, c, size, mode), size, offset, filter, mode)
}

/// The one tap of a nearest filter along an axis, as [`axis_taps`] makes it with no offset.
#[inline(always)]
pub fn nearest_tap(s: &Sampler, c: f32, size: u32, mode: Wrap) -> Option<i64> {
    nearest_index(axis_coord(s, c, size, mode), i64::from(size), 0, mode)
}

/// Coordinate `c` of an axis of `size` texels in texels.
#[inline]
fn axis_coord(s: &Sampler, c: f32, size: u32, mode: Wrap) -> f32 {
    let c = if mode == Wrap::ClampGl && !s.pixel_coordinates {
        c.clamp(0.0, 1.0)
    } else {
        c
    };
    let u = if s.pixel_coordinates {
        c
    } else {
        c * size as f32
    };
    if u.is_nan() {
        0.0
    } else {
        u
    }
}

/// The texel a nearest filter reads at `u` texels along an axis of `size`.
#[inline]
fn nearest_index(u: f32, size: i64, offset: i32, mode: Wrap) -> Option<i64> {
    wrap(floor_i64(u).wrapping_add(i64::from(offset)), size, mode)
}

/// One axis: taps (texel index, weight).
fn taps(u: f32, size: u32, offset: i32, filter: Filter, mode: Wrap) -> AxisTaps {
    let size = i64::from(size);
    let none = (None, 0.0);
    match filter {
        Filter::Linear => {
            let v = u - 0.5;
            let i0 = floor(v);
            let a = v - i0;
            // Infinite coordinates saturate to the ends of i64; the texel index wraps
            // around there instead of overflowing.
            let i0 = (i0 as i64).wrapping_add(i64::from(offset));
            Few::of(
                &[
                    (wrap(i0, size, mode), 1.0 - a),
                    (wrap(i0.wrapping_add(1), size, mode), a),
                ],
                none,
            )
        }
        _ => Few::of(&[(nearest_index(u, size, offset, mode), 1.0)], none),
    }
}

/// Where one tap of a filter footprint reads.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    /// The texel (x, y, z with z the layer or 3D slice).
    Texel([i64; 3]),
    /// The sampler's border colour.
    Border,
    /// A seamless cube map corner: the mean of the three texels that meet there.
    Corner([[i64; 3]; 3]),
}

/// One tap of a filter footprint and its weight.
type Tap = (At, f32);

/// The taps of a footprint: at most 2 x 2 x 2 (trilinear in one level of a 3D image).
type Taps = Few<Tap, 8>;

const NO_TAP: Tap = (At::Border, 0.0);

/// The taps of a footprint, listed (seamless cube maps) or as the product of each axis's
/// taps, which are enumerated without building the list: most filters read one tap, and
/// the list is large (its corner taps hold three texels).
enum Footprint {
    Listed(Box<Taps>),
    Axes([AxisTaps; 3]),
}

impl Footprint {
    fn len(&self) -> usize {
        match self {
            Footprint::Listed(t) => t.len(),
            Footprint::Axes(a) => a[0].len() * a[1].len() * a[2].len(),
        }
    }

    /// Tap `k`, x slowest and z fastest.
    fn get(&self, k: usize) -> Tap {
        match self {
            Footprint::Listed(t) => t[k],
            Footprint::Axes(a) => {
                let (n1, n2) = (a[1].len(), a[2].len());
                Footprint::tap(a[0][k / (n1 * n2)], a[1][k / n2 % n1], a[2][k % n2])
            }
        }
    }

    /// The tap of one axis tap each.
    #[inline]
    fn tap(
        (x, wx): (Option<i64>, f32),
        (y, wy): (Option<i64>, f32),
        (z, wz): (Option<i64>, f32),
    ) -> Tap {
        let at = match (x, y, z) {
            (Some(x), Some(y), Some(z)) => At::Texel([x, y, z]),
            _ => At::Border,
        };
        (at, wx * wy * wz)
    }
}

/// The texels `filter` reads at view level `level`, x slowest and z fastest.
#[inline]
fn footprint(
    s: &Sampler,
    ext: Extent,
    req: &Request,
    level: u32,
    filter: Filter,
    size: &(impl Size + ?Sized),
) -> Footprint {
    let [w, h, dz] = size(level);
    if req.shape == Shape::Cube && !s.seamful_cube_maps && filter == Filter::Linear && w == h {
        return Footprint::Listed(Box::new(seamless_cube_footprint(s, ext, req, w)));
    }
    let (axes, coords, layer, wraps) = match req.shape {
        Shape::D1 => (1, [req.coords[0], 0.0, 0.0], req.layer, s.wrap),
        Shape::D2 => (2, req.coords, req.layer, s.wrap),
        Shape::D3 => (3, req.coords, 0, s.wrap),
        Shape::Cube => {
            let (face, sc, tc) = cube_face(req.coords);
            (
                2,
                [sc, tc, 0.0],
                req.layer.saturating_mul(6).saturating_add(face),
                [Wrap::ClampToEdge; 3],
            )
        }
    };
    let layer = if req.shape == Shape::D3 {
        0
    } else {
        i64::from(layer.min(ext.layers.saturating_sub(1)))
    };
    let dims = [w, h, dz];
    let mut per_axis = [AxisTaps::new((None, 0.0)); 3];
    for (a, axis) in per_axis.iter_mut().enumerate() {
        if a >= axes {
            let fixed = if a == 2 { layer } else { 0 };
            axis.push((Some(fixed), 1.0));
            continue;
        }
        *axis = axis_taps(s, coords[a], dims[a], req.offset[a], filter, wraps[a]);
    }
    Footprint::Axes(per_axis)
}

/// The texel of one tap, compared with the reference when the sampler compares.
fn tap_texel<E>(
    s: &Sampler,
    ext: Extent,
    req: &Request,
    at: At,
    level: u32,
    fetch: &mut (impl Fetch<E> + ?Sized),
) -> Result<Texel, SampleError<E>> {
    let t = match at {
        At::Texel([x, y, z]) => fetch(x, y, z, level).map_err(SampleError::Fetch)?,
        At::Border => border(s.border_colour, &ext).map_err(SampleError::Unmodelled)?,
        At::Corner(texels) => {
            // Each of the three is compared first, as any other tap.
            let mut three = Vec::with_capacity(3);
            for t in texels {
                three.push(tap_texel(s, ext, req, At::Texel(t), level, fetch)?);
            }
            return Ok(mean(&three));
        }
    };
    let reference = req
        .compare
        .map(|r| if ext.unorm { r.clamp(0.0, 1.0) } else { r });
    Ok(match (s.compare_enable, t, reference) {
        (true, Texel::Float(f), Some(r)) => {
            let pass = compare(s.compare_func, r, f[0]);
            Texel::Float([f32::from(u8::from(pass)), 0.0, 0.0, 1.0])
        }
        (_, t, _) => t,
    })
}

/// The component-wise mean of texels of one kind (integers round toward zero).
fn mean(texels: &[Texel]) -> Texel {
    let n = texels.len().max(1);
    match texels.first() {
        Some(Texel::Int(_)) => Texel::Int(std::array::from_fn(|c| {
            let sum: i64 = texels
                .iter()
                .map(|t| match t {
                    Texel::Int(v) => i64::from(v[c] as i32),
                    Texel::Float(_) => 0,
                })
                .sum();
            (sum / n as i64) as u32
        })),
        _ => Texel::Float(std::array::from_fn(|c| {
            texels
                .iter()
                .map(|t| match t {
                    Texel::Float(f) => f[c],
                    Texel::Int(_) => 0.0,
                })
                .sum::<f32>()
                / n as f32
        })),
    }
}

/// The face a cube texel's direction (in doubled texel units, see [`cube_texel`]) points at:
/// the axis of largest magnitude and its sign.
fn face_of(d: [i64; 3]) -> u32 {
    let m = (0..3).max_by_key(|&a| (d[a].abs(), 2 - a)).unwrap_or(0);
    2 * m as u32 + u32::from(d[m] < 0)
}

/// Texel (i, j) of face `face` of an `n` x `n` cube level, where i and j may lie one texel
/// off the face: the texel itself, the adjacent face's texel across an edge, or the three
/// texels of a corner. Works on the direction to the texel's centre in doubled texel units
/// (the major axis at n, face coordinate k at 2k + 1 - n): one texel off an edge, the edge
/// axis grows to n + 1 and becomes the major axis of the adjacent face, whose texel along
/// the old major axis is its edge texel, and whose other coordinate keeps its texel.
fn cube_texel(face: u32, i: i64, j: i64, n: i64, cube: i64) -> At {
    let inside = |k: i64| (0..n).contains(&k);
    let edge = |face: u32, i: i64, j: i64| -> [i64; 3] {
        let (st, m) = face_axes(face);
        let mut d = [0i64; 3];
        d[m] = if face.is_multiple_of(2) { n } else { -n };
        // Face coordinate sc = sign * d[axis], so d[axis] = sign * sc.
        d[st[0].0] = st[0].1 as i64 * (2 * i + 1 - n);
        d[st[1].0] = st[1].1 as i64 * (2 * j + 1 - n);
        let f = face_of(d);
        let (st, _) = face_axes(f);
        let texel = |(axis, sign): (usize, f32)| {
            (sign as i64 * d[axis] + n - 1)
                .div_euclid(2)
                .clamp(0, n - 1)
        };
        [texel(st[0]), texel(st[1]), 6 * cube + i64::from(f)]
    };
    match (inside(i), inside(j)) {
        (true, true) => At::Texel([i, j, 6 * cube + i64::from(face)]),
        (false, false) => {
            let (ci, cj) = (i.clamp(0, n - 1), j.clamp(0, n - 1));
            At::Corner([edge(face, ci, cj), edge(face, i, cj), edge(face, ci, j)])
        }
        _ => At::Texel(edge(face, i, j)),
    }
}

/// The bilinear footprint of a seamless cube map sample on an `n` x `n` level, in the order
/// [`footprint`] lists taps: (i0, j0), (i0, j1), (i1, j0), (i1, j1).
fn seamless_cube_footprint(s: &Sampler, ext: Extent, req: &Request, n: u32) -> Taps {
    let (face, sc, tc) = cube_face(req.coords);
    let cubes = (ext.layers / 6).max(1);
    let cube = i64::from(req.layer.min(cubes - 1));
    let n = i64::from(n);
    let axis = |c: f32| -> (i64, f32) {
        let u = if s.pixel_coordinates { c } else { c * n as f32 };
        let v = if u.is_nan() { 0.0 } else { u } - 0.5;
        let i0 = floor(v);
        // Never more than one texel off the face.
        ((i0 as i64).clamp(-1, n - 1), v - i0)
    };
    let (i0, a) = axis(sc);
    let (j0, b) = axis(tc);
    let mut out = Taps::new(NO_TAP);
    for (i, wi) in [(i0, 1.0 - a), (i0 + 1, a)] {
        for (j, wj) in [(j0, 1.0 - b), (j0 + 1, b)] {
            out.push((cube_texel(face, i, j, n, cube), wi * wj));
        }
    }
    out
}

fn sample_level<E>(
    s: &Sampler,
    ext: Extent,
    req: &Request,
    level: u32,
    filter: Filter,
    size: &(impl Size + ?Sized),
    fetch: &mut (impl Fetch<E> + ?Sized),
) -> Result<Texel, SampleError<E>> {
    let taps = footprint(s, ext, req, level, filter, size);
    if let Footprint::Axes([ax, ay, az]) = &taps {
        if ax.len() == 1 && ay.len() == 1 && az.len() == 1 {
            return tap_texel(
                s,
                ext,
                req,
                Footprint::tap(ax[0], ay[0], az[0]).0,
                level,
                fetch,
            );
        }
    }
    if taps.len() == 1 {
        return tap_texel(s, ext, req, taps.get(0).0, level, fetch);
    }
    let mut acc = [0.0f32; 4];
    let mut add = |(at, weight): Tap| -> Result<Option<Texel>, SampleError<E>> {
        match tap_texel(s, ext, req, at, level, fetch)? {
            Texel::Float(f) => {
                for (a, v) in acc.iter_mut().zip(f) {
                    *a += weight * v;
                }
                Ok(None)
            }
            // Integer texels are never filtered (see `sample`); keep the first tap.
            t => Ok(Some(t)),
        }
    };
    match &taps {
        Footprint::Listed(t) => {
            for &tap in t.iter() {
                if let Some(t) = add(tap)? {
                    return Ok(t);
                }
            }
        }
        // The product of the axes in `Footprint::get`'s order, without its divisions.
        Footprint::Axes([ax, ay, az]) => {
            for &x in ax.iter() {
                for &y in ay.iter() {
                    for &z in az.iter() {
                        if let Some(t) = add(Footprint::tap(x, y, z))? {
                            return Ok(t);
                        }
                    }
                }
            }
        }
    }
    Ok(Texel::Float(acc))
}

/// The four texels a gather reads at the view's base level, in Vulkan's order: (i0, j1),
/// (i1, j1), (i1, j0), (i0, j0). Each is compared with the reference when the sampler
/// compares. Only 2D and cube shapes gather.
pub fn gather<E>(
    s: &Sampler,
    ext: Extent,
    req: &Request,
    size: &(impl Size + ?Sized),
    fetch: &mut (impl Fetch<E> + ?Sized),
) -> Result<[Texel; 4], SampleError<E>> {
    if !matches!(req.shape, Shape::D2 | Shape::Cube) {
        return Err(SampleError::Unmodelled("gathers of 1D or 3D textures"));
    }
    let taps = footprint(s, ext, req, 0, Filter::Linear, size);
    // The footprint lists (i0, j0), (i0, j1), (i1, j0), (i1, j1).
    let mut out = [Texel::Float([0.0; 4]); 4];
    for (slot, k) in [1usize, 3, 2, 0].into_iter().enumerate() {
        out[slot] = tap_texel(s, ext, req, taps.get(k).0, 0, fetch)?;
    }
    Ok(out)
}
