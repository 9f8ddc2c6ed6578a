//! `block_image_store`: the PBE writing a whole tile of the tile memory to an image in one
//! instruction (docs/render-abi.md section 2). The tile's elements are read as `ld_tile`
//! would give them to a shader, then written as `image_write` writes a texel, so a block
//! store and a per-pixel load-and-write loop leave the same bytes in memory.

use super::graphics::GraphicsContext;
use super::group::SimdGroup;
use super::program::Program;
use super::texture::{fault, BoundPbe, Descriptors};
use crate::texel::format;
use crate::texel::minifloat::f16_to_f32;
use crate::{Fault, GpuMemory};
use hw::g13::control::descriptors::{Channel, Channels, TextureType};
use hw::isa::*;

/// Channels an element run of `format` holds when the image has `channels` of them: the
/// packed formats hold the whole pixel in one unit.
fn elements(format: MemFormat, channels: usize) -> usize {
    match format {
        MemFormat::RGB10A2 => 1,
        _ => channels,
    }
}

/// The shader-side value of one pixel's elements (`src`, little-endian), as `ld_tile` and
/// the end-of-tile unpacking give it: f32 bits for float and normalised formats (an sRGB
/// element stays encoded: the PBE of an sRGB target is a plain UNORM view), integers
/// (sign-extended for SINT images) for integer ones; missing channels read (0, 0, 0, 1).
fn tile_value(format: MemFormat, ty: TextureType, src: &[u8], n: usize) -> [u32; 4] {
    let integer = format::is_integer(ty);
    let mut out = [0, 0, 0, if integer { 1 } else { 1.0f32.to_bits() }];
    let unit = format.bytes() as usize;
    let raw = |k: usize| {
        src[k * unit..(k + 1) * unit]
            .iter()
            .rev()
            .fold(0u32, |a, &b| a << 8 | u32::from(b))
    };
    let bits = 8 * unit as u32;
    match format {
        MemFormat::I8 | MemFormat::I16 | MemFormat::I32 => {
            for (k, o) in out.iter_mut().enumerate().take(n) {
                let v = raw(k);
                *o = if ty == TextureType::Sint && bits < 32 {
                    (((v << (32 - bits)) as i32) >> (32 - bits)) as u32
                } else {
                    v
                };
            }
        }
        MemFormat::F16 => {
            for (k, o) in out.iter_mut().enumerate().take(n) {
                *o = f16_to_f32(raw(k) as u16).to_bits();
            }
        }
        MemFormat::U8Norm | MemFormat::U16Norm | MemFormat::SRGBA8 => {
            for (k, o) in out.iter_mut().enumerate().take(n) {
                *o = format::norm_to_float(raw(k), bits, false).to_bits();
            }
        }
        MemFormat::S8Norm | MemFormat::S16Norm => {
            for (k, o) in out.iter_mut().enumerate().take(n) {
                *o = format::norm_to_float(raw(k), bits, true).to_bits();
            }
        }
        MemFormat::RGB10A2 => {
            let w = raw(0);
            for (k, o) in out.iter_mut().enumerate() {
                let width = if k == 3 { 2 } else { 10 };
                let q = (w >> (10 * k)) & ((1 << width) - 1);
                *o = format::norm_to_float(q, width, false).to_bits();
            }
        }
    }
    out
}

/// How one pixel's elements become one texel of the image.
struct Conversion {
    format: MemFormat,
    channels: Channels,
    ty: TextureType,
    srgb: bool,
    swizzle: [Channel; 4],
    /// Elements per pixel in the tile.
    elements: usize,
    texel_bytes: usize,
    /// When the conversion gives every element's bits back unchanged, the element each
    /// memory channel takes: the texel is then a byte copy.
    copy: Option<[usize; 4]>,
}

impl Conversion {
    fn new(
        format: MemFormat,
        channels: Channels,
        ty: TextureType,
        srgb: bool,
        swizzle: [Channel; 4],
    ) -> Option<Conversion> {
        let count = format::channel_count(channels)?;
        let texel_bytes = format::texel_bytes(channels)? as usize;
        let elements = elements(format, count);
        let same_bits = match (format, ty) {
            (MemFormat::I8 | MemFormat::I16 | MemFormat::I32, TextureType::Uint)
            | (MemFormat::I8 | MemFormat::I16 | MemFormat::I32, TextureType::Sint)
            | (MemFormat::I32, TextureType::Float) => true,
            (MemFormat::U8Norm | MemFormat::U16Norm | MemFormat::SRGBA8, TextureType::Unorm) => {
                !srgb
            }
            _ => false,
        };
        let mut copy = None;
        if same_bits && format::uniform_channel_bits(channels) == Some(8 * format.bytes()) {
            let mut plan = [0; 4];
            let from = swizzle.map(source);
            if from[..count].iter().all(|&k| k < elements) {
                plan[..count].copy_from_slice(&from[..count]);
                copy = Some(plan);
            }
        }
        Some(Conversion {
            format,
            channels,
            ty,
            srgb,
            swizzle,
            elements,
            texel_bytes,
            copy,
        })
    }

    /// The texel of the pixel whose elements start `src`, into `out` (`texel_bytes` long).
    fn texel(&self, src: &[u8], out: &mut [u8]) -> Result<(), String> {
        if let Some(plan) = self.copy {
            match self.format.bytes() {
                1 => permute::<1>(plan, src, out),
                2 => permute::<2>(plan, src, out),
                _ => permute::<4>(plan, src, out),
            }
            return Ok(());
        }
        let comp = tile_value(self.format, self.ty, src, self.elements);
        // Memory channel j receives the component the PBE swizzle names for it.
        let value = self.swizzle.map(|ch| comp[source(ch)]);
        format::encode(self.channels, self.ty, self.srgb, value, out)
    }
}

/// Memory channel j of `out` is element `plan[j]` of `src`, elements of `U` bytes (a
/// constant, so each move is a plain load and store rather than a copy call).
fn permute<const U: usize>(plan: [usize; 4], src: &[u8], out: &mut [u8]) {
    for (j, chunk) in out.chunks_exact_mut(U).enumerate() {
        let from: &[u8; U] = src[plan[j] * U..][..U].try_into().unwrap_or(&[0; U]);
        chunk.copy_from_slice(from);
    }
}

/// The component a swizzle channel names.
fn source(ch: Channel) -> usize {
    match ch {
        Channel::G => 1,
        Channel::B => 2,
        Channel::A => 3,
        _ => 0,
    }
}

/// Consecutive byte runs bound for memory, written as one access each.
struct Runs<'m> {
    mem: &'m mut dyn GpuMemory,
    start: u64,
    bytes: Vec<u8>,
}

impl Runs<'_> {
    fn put(&mut self, addr: u64, b: &[u8]) -> Result<(), Fault> {
        if addr != self.start.wrapping_add(self.bytes.len() as u64) {
            self.flush()?;
            self.start = addr;
        }
        self.bytes.extend_from_slice(b);
        Ok(())
    }

    /// `len` bytes bound for `addr` onwards, to be filled in place.
    fn claim(&mut self, addr: u64, len: usize) -> Result<&mut [u8], Fault> {
        if addr != self.start.wrapping_add(self.bytes.len() as u64) {
            self.flush()?;
            self.start = addr;
        }
        let at = self.bytes.len();
        self.bytes.resize(at + len, 0);
        Ok(&mut self.bytes[at..])
    }

    fn flush(&mut self) -> Result<(), Fault> {
        if !self.bytes.is_empty() {
            self.mem.write(self.start, &self.bytes)?;
            self.bytes.clear();
        }
        Ok(())
    }
}

/// The pixels of one Morton square of a tile of 8-bit RGBA elements, as words.
struct Words<'a> {
    /// The square's pixels (x, y) in the order the image stores them.
    order: &'a [[u8; 2]],
    /// Tile width, bytes per pixel, and the byte of the target in a pixel.
    tw: usize,
    stride: usize,
    offset: usize,
    tile: &'a [u8],
}

impl Words<'_> {
    /// Writes each pixel's word through `permute` (its bytes to the texel's channel order)
    /// into `run`, one word per pixel; `None` if the tile is short.
    #[inline]
    fn copy(&self, run: &mut [u8], permute: impl Fn(u32) -> u32) -> Option<()> {
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if self.order.len().is_multiple_of(4) {
            // Morton order walks 2x2 quads, x first: a quad's pixels are one address and
            // three fixed steps from it, read through one checked slice.
            let (pixel, row) = (self.stride, self.tw * self.stride);
            for (b, quad) in run.chunks_exact_mut(16).zip(self.order.chunks_exact(4)) {
                let [x, y] = quad[0];
                debug_assert_eq!(quad[3], [x + 1, y + 1]);
                let at = (usize::from(y) * self.tw + usize::from(x)) * pixel + self.offset;
                let q = self.tile.get(at..at + row + pixel + 4)?;
                let words = [
                    word(q),
                    word(&q[pixel..]),
                    word(&q[row..]),
                    word(&q[row + pixel..]),
                ];
                for (to, w) in b.chunks_exact_mut(4).zip(words) {
                    to.copy_from_slice(&permute(w).to_le_bytes());
                }
            }
            return Some(());
        }
        for (b, &[x, y]) in run.chunks_exact_mut(4).zip(self.order) {
            let at = (usize::from(y) * self.tw + usize::from(x)) * self.stride + self.offset;
            let src = self.tile.get(at..at + 4)?;
            let v = u32::from_le_bytes([src[0], src[1], src[2], src[3]]);
            b.copy_from_slice(&permute(v).to_le_bytes());
        }
        Some(())
    }
}

/// An RGBA8 word with its first and third bytes exchanged.
fn swap_red_blue(v: u32) -> u32 {
    v & 0xff00_ff00 | (v >> 16) & 0xff | (v & 0xff) << 16
}

/// Pixel `i` of a `tw` x `th` tile (powers of two) walked in Morton order inside squares of
/// the smaller side, the squares left to right then top to bottom: the order a twiddled
/// image's texels follow in memory, so the stores of a tile coalesce into long runs.
fn morton_xy(i: u32, tw: u32, th: u32) -> [u32; 2] {
    let side = tw.min(th);
    let inner = i & (side * side - 1);
    let square = i / (side * side);
    let compact = |mut v: u32| {
        v &= 0x5555_5555;
        v = (v | (v >> 1)) & 0x3333_3333;
        v = (v | (v >> 2)) & 0x0f0f_0f0f;
        v = (v | (v >> 4)) & 0x00ff_00ff;
        (v | (v >> 8)) & 0x0000_ffff
    };
    let per_row = tw / side;
    [
        compact(inner) + (square % per_row) * side,
        compact(inner >> 1) + (square / per_row) * side,
    ]
}

/// [`morton_xy`] for every pixel of a tile of one of the three tile sizes, computed once;
/// `None` for other sizes (which the render command refuses), walked row by row instead.
fn morton_order(tw: u32, th: u32) -> Option<&'static [[u8; 2]]> {
    use std::sync::OnceLock;
    static ORDERS: [OnceLock<Vec<[u8; 2]>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let k = match (tw, th) {
        (32, 32) => 0,
        (32, 16) => 1,
        (16, 16) => 2,
        _ => return None,
    };
    Some(ORDERS[k].get_or_init(|| {
        (0..tw * th)
            .map(|i| morton_xy(i, tw, th).map(|v| v as u8))
            .collect()
    }))
}

/// Runs the `block_image_store` at `idx` (the caller advances the pc). The offset and the
/// descriptor are read at the first active lane; a group with no active lane stores nothing.
pub fn step_block_store(
    g: &SimdGroup,
    prog: &Program,
    idx: usize,
    x: &BlockImageStore,
    gfx: &GraphicsContext,
    uniforms: &[u16],
    mem: &mut dyn GpuMemory,
) -> Result<(), Fault> {
    if g.exec == 0 {
        return Ok(());
    }
    let lane = g.exec.trailing_zeros() as usize;
    let f = gfx.fragment.as_ref().ok_or_else(|| {
        fault(
            prog,
            idx,
            "block_image_store outside a fragment-stage launch",
        )
    })?;
    let samples = match x.dim {
        TexDim::D2 if f.samples == 1 => 1,
        TexDim::D2Ms => f.samples,
        _ => {
            return Err(fault(
                prog,
                idx,
                format!(
                    "block_image_store of dimension {:?} from a {}-sample tile",
                    x.dim, f.samples
                ),
            ))
        }
    };
    let offset = g.reg(x.offset, lane) as u32;
    let bound = Descriptors::<BoundPbe>::new(x.texture, &gfx.textures, uniforms, prog, idx)
        .for_lane(g, lane, &*mem)?;
    let (p, Some(surf)) = (&bound.pbe, &bound.surface) else {
        return Ok(());
    };
    let conv = Conversion::new(x.format, p.channels, p.texture_type, p.srgb, p.swizzle)
        .ok_or_else(|| fault(prog, idx, format!("block_image_store to {:?}", p.channels)))?;
    let n = conv.elements;
    let unit = x.format.bytes();
    if offset + n as u32 * unit > f.bytes_per_sample {
        return Err(fault(
            prog,
            idx,
            format!(
                "block_image_store of {n} elements at tile byte {offset} past the {}-byte sample",
                f.bytes_per_sample
            ),
        ));
    }
    let (tw, th) = (f.tile_size[0], f.tile_size[1]);
    let stride = f.bytes_per_sample as usize;
    let texel = conv.texel_bytes;
    let mut out = Runs {
        mem,
        start: 0,
        bytes: Vec::with_capacity((tw * th) as usize * texel),
    };
    let mut buf = [0u8; 16];
    let order = if surf.twiddled() {
        morton_order(tw, th)
    } else {
        None
    };
    let record = |xx: u32, y: u32, s: u32| {
        (((y * tw + xx) * f.samples + s) as usize) * stride + offset as usize
    };
    // RGBA8 stored as itself or with R and B swapped (`Some(swap)`): the conversion's byte
    // copy as whole words, without the call per pixel.
    let word_plan = match conv.copy {
        Some(plan @ ([0, 1, 2, 3] | [2, 1, 0, 3])) if unit == 1 && texel == 4 && n == 4 => {
            Some(plan[0] == 2)
        }
        _ => None,
    };
    let convert = |at: usize, b: &mut [u8]| {
        conv.texel(&f.tilebuffer[at..], b)
            .map_err(|e| fault(prog, idx, format!("block_image_store: {e}")))
    };
    // `convert` for one pixel of an edge tile, through `word_plan` when there is one.
    let convert_one = |at: usize, b: &mut [u8]| match (word_plan, f.tilebuffer.get(at..at + 4)) {
        (Some(swap), Some(src)) => {
            let v = u32::from_le_bytes([src[0], src[1], src[2], src[3]]);
            let v = if swap { swap_red_blue(v) } else { v };
            b.copy_from_slice(&v.to_le_bytes());
            Ok(())
        }
        _ => convert(at, b),
    };
    // Single-sample pixels outside whole squares (the tiles along the image's right and
    // bottom edges) through the level's addressing, worked out once.
    let level = surf.level_address(0).filter(|_| samples == 1);
    // A twiddled image takes the tile in squares of its smaller side, each in Morton order;
    // a square whose texels are one run in memory is written without an address per pixel.
    let side = tw.min(th);
    let (squares, per_square) = match order {
        Some(_) => (tw * th / (side * side), (side * side) as usize),
        None => (1, (tw * th) as usize),
    };
    for sq in 0..squares as usize {
        let pixels = sq * per_square..(sq + 1) * per_square;
        if let (Some(o), 1) = (order, samples) {
            let [sx, sy] = o[pixels.start].map(u32::from);
            let (x0, y0) = (f.tile_origin[0] + sx, f.tile_origin[1] + sy);
            if let Some(addr) = surf.morton_square(x0, y0, side) {
                let run = out.claim(addr, per_square * texel)?;
                match word_plan {
                    Some(swap) => {
                        let words = Words {
                            order: &o[pixels],
                            tw: tw as usize,
                            stride,
                            offset: offset as usize,
                            tile: &f.tilebuffer,
                        };
                        let done = if swap {
                            words.copy(run, swap_red_blue)
                        } else {
                            words.copy(run, |v| v)
                        };
                        done.ok_or_else(|| fault(prog, idx, "block_image_store: short tile"))?;
                    }
                    None => {
                        for (i, b) in pixels.zip(run.chunks_exact_mut(texel)) {
                            let [xx, y] = o[i].map(u32::from);
                            convert(record(xx, y, 0), b)?;
                        }
                    }
                }
                continue;
            }
        }
        for i in pixels {
            let i = i as u32;
            let [xx, y] = match order {
                Some(o) => o[i as usize].map(u32::from),
                None => [i % tw, i / tw],
            };
            let (px, py) = (
                i64::from(f.tile_origin[0] + xx),
                i64::from(f.tile_origin[1] + y),
            );
            for s in 0..samples {
                let addr = match &level {
                    Some(l) => l.at(px, py),
                    None => surf.address(px, py, 0, 0, s),
                };
                let Some(addr) = addr else {
                    continue;
                };
                let b = &mut buf[..texel];
                convert_one(record(xx, y, s), b)?;
                out.put(addr, b)?;
            }
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Channel::{A, B, G, R};

    /// Element bytes to try: every byte value in every position for 8-bit elements, edge and
    /// scattered values for wider ones.
    fn inputs(unit: usize, elements: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut rng = hw::test_rng::Rng(0x9e37_79b9);
        let mut next = || rng.next() as u32;
        let edges: [u32; 8] = [0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff_ffff];
        for k in 0..elements {
            for v in 0..256u32 {
                let mut b: Vec<u8> = (0..unit * elements).map(|_| next() as u8).collect();
                let x = if unit == 1 {
                    v
                } else if v < 8 {
                    edges[v as usize]
                } else {
                    next()
                };
                b[k * unit..(k + 1) * unit].copy_from_slice(&x.to_le_bytes()[..unit]);
                out.push(b);
            }
        }
        out
    }

    #[test]
    fn byte_copies_give_what_the_conversion_gives() {
        use MemFormat as M;
        use TextureType as T;
        let cases = [
            (M::U8Norm, Channels::R8G8B8A8, T::Unorm, [R, G, B, A]),
            (M::U8Norm, Channels::R8G8B8A8, T::Unorm, [B, G, R, A]),
            (M::SRGBA8, Channels::R8G8B8A8, T::Unorm, [B, G, R, A]),
            (M::U8Norm, Channels::R8G8, T::Unorm, [R, G, R, R]),
            (M::I8, Channels::R8G8B8A8, T::Uint, [R, G, B, A]),
            (M::I8, Channels::R8, T::Sint, [R, R, R, R]),
            (M::U16Norm, Channels::R16G16B16A16, T::Unorm, [R, G, B, A]),
            (M::I16, Channels::R16G16, T::Sint, [R, G, R, R]),
            (M::I32, Channels::R32G32B32A32, T::Float, [R, G, B, A]),
            (M::I32, Channels::R32, T::Uint, [R, R, R, R]),
        ];
        for (format, channels, ty, swizzle) in cases {
            let fast = Conversion::new(format, channels, ty, false, swizzle).unwrap();
            assert!(
                fast.copy.is_some(),
                "{format:?} {channels:?} {ty:?} is a copy"
            );
            let slow = Conversion {
                copy: None,
                ..Conversion::new(format, channels, ty, false, swizzle).unwrap()
            };
            for src in inputs(format.bytes() as usize, fast.elements) {
                let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
                fast.texel(&src, &mut a[..fast.texel_bytes]).unwrap();
                slow.texel(&src, &mut b[..slow.texel_bytes]).unwrap();
                assert_eq!(
                    a, b,
                    "{format:?} {channels:?} {ty:?} {swizzle:?} from {src:?}"
                );
            }
        }
    }

    #[test]
    fn morton_walk_visits_every_pixel_once() {
        for (tw, th) in [(32, 32), (32, 16), (16, 16)] {
            let mut seen = vec![false; (tw * th) as usize];
            for i in 0..tw * th {
                let [x, y] = morton_xy(i, tw, th);
                assert!(x < tw && y < th);
                assert!(!std::mem::replace(&mut seen[(y * tw + x) as usize], true));
            }
        }
        // The first four pixels are the top-left 2x2 quad, x first.
        let quad: Vec<[u32; 2]> = (0..4).map(|i| morton_xy(i, 32, 32)).collect();
        assert_eq!(quad, [[0, 0], [1, 0], [0, 1], [1, 1]]);
    }

    #[test]
    fn conversions_that_change_bits_are_not_copies() {
        use MemFormat as M;
        use TextureType as T;
        let rgba = [R, G, B, A];
        // -128 reads as -1.0, which stores as -127; sRGB would be encoded twice; a half
        // float goes through f32; 8-bit elements do not fill 16-bit channels.
        for (format, channels, ty, srgb) in [
            (M::S8Norm, Channels::R8G8B8A8, T::Snorm, false),
            (M::SRGBA8, Channels::R8G8B8A8, T::Unorm, true),
            (M::F16, Channels::R16G16B16A16, T::Float, false),
            (M::U8Norm, Channels::R16G16B16A16, T::Unorm, false),
        ] {
            let c = Conversion::new(format, channels, ty, srgb, rgba).unwrap();
            assert!(
                c.copy.is_none(),
                "{format:?} {channels:?} {ty:?} srgb {srgb}"
            );
        }
    }
}
