//! ASTC LDR decoding of one 2D block (footprints 4x4 to 12x12), following the ASTC chapter
//! of the Khronos Data Format Specification, to what Vulkan samples:
//!
//! * every texel's 16-bit interpolation result C per channel (endpoints widened to 16 bits:
//!   `e << 8 | e` for UNORM, `e << 8 | 0x80` for sRGB), or the error colour;
//! * UNORM formats read C as FP16 (`decode_float16`, the only mode Vulkan has without
//!   VK_EXT_astc_decode_mode): 1.0 for 65535, otherwise C / 65536 rounded toward zero;
//! * sRGB formats read the top 8 bits of C (the sRGB EOTF is the caller's).
//!
//! Illegal encodings (the specification's list) and void-extent blocks are handled here
//! too; an HDR endpoint mode makes only its own partition's texels the error colour. No
//! input panics: every bit pattern decodes to colours or the error colour.
//!
//! * [`ise`]: integer sequences (bits, trits, quints) and unquantisation.
//! * [`endpoints`]: colour endpoint modes.

mod endpoints;
mod ise;
#[cfg(test)]
mod tests;

use ise::Range;

/// The most texels of a 2D block (12x12).
pub const MAX_TEXELS: usize = 144;

/// The error colour, opaque magenta, in every operation and decode mode Vulkan uses.
pub const ERROR_COLOUR: [f32; 4] = [1.0, 0.0, 1.0, 1.0];

/// One decoded texel: C for R, G, B, A, or `None` for the error colour.
pub type Texel16 = Option<[u16; 4]>;

/// The weight grid and plane count of a block mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockMode {
    width: u32,
    height: u32,
    dual: bool,
    range: Range,
}

/// Bits `off .. off + n` (n <= 32) of a block, 0 beyond bit 127.
fn bits(block: u128, off: u32, n: u32) -> u32 {
    if off >= 128 || n == 0 {
        return 0;
    }
    ((block >> off) & ((1u128 << n) - 1)) as u32
}

/// The weight grid of the 11-bit block mode `mode`, `None` for a reserved one (a void-extent
/// mode is recognised before this).
fn block_mode(mode: u32) -> Option<BlockMode> {
    let a = (mode >> 5) & 3;
    let mut dual = (mode >> 10) & 1 != 0;
    let mut high_precision = (mode >> 9) & 1;
    let (width, height, r);
    if mode & 3 != 0 {
        r = ((mode >> 4) & 1) | ((mode & 3) << 1);
        let b = (mode >> 7) & 3;
        (width, height) = match (mode >> 2) & 3 {
            0 => (b + 4, a + 2),
            1 => (b + 8, a + 2),
            2 => (a + 2, b + 8),
            _ if mode & 0x100 != 0 => ((b & 1) + 2, a + 2),
            _ => (a + 2, (b & 1) + 6),
        };
    } else {
        r = ((mode >> 4) & 1) | (((mode >> 2) & 3) << 1);
        if (mode >> 2) & 3 == 0 {
            return None;
        }
        let b = (mode >> 9) & 3;
        (width, height) = match (mode >> 7) & 3 {
            0 => (12, a + 2),
            1 => (a + 2, 12),
            2 => {
                // Bits 9 and 10 are the grid height here, so no dual plane or high range.
                dual = false;
                high_precision = 0;
                (a + 6, b + 6)
            }
            _ => match a {
                0 => (6, 10),
                1 => (10, 6),
                _ => return None,
            },
        };
    }
    // r is 2..=7 here; with the precision bit it picks one of twelve weight ranges.
    const LEVELS: [u32; 12] = [2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32];
    let levels = LEVELS[(r as usize).checked_sub(2)? + 6 * high_precision as usize];
    Some(BlockMode {
        width,
        height,
        dual,
        range: Range::of_levels(levels)?,
    })
}

/// The specification's partition hash of a 10-bit seed.
fn hash52(seed: u32) -> u32 {
    let mut p = seed;
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// The partition (0..count) of texel (x, y) for partition index `seed` (2D: z is 0).
/// Blocks of fewer than 31 texels double their coordinates so that their patterns are as
/// varied as a large block's.
fn partition(seed: u32, x: u32, y: u32, count: u32, small: bool) -> usize {
    let (x, y) = if small { (x << 1, y << 1) } else { (x, y) };
    let seed = seed + 1024 * (count - 1);
    let rnum = hash52(seed);
    // Twelve 4-bit multipliers, squared, of which 2D uses the first eight.
    let nib = |shift: u32| {
        let n = rnum.rotate_right(shift) & 0xf;
        n * n
    };
    let sh_a = if seed & 2 != 0 { 4 } else { 5 };
    let sh_b = if count == 3 { 6 } else { 5 };
    let (sh1, sh2) = if seed & 1 != 0 {
        (sh_a, sh_b)
    } else {
        (sh_b, sh_a)
    };
    let m = |i: u32, sh: u32| nib(4 * i) >> sh;
    let lane = |mx: u32, my: u32, add: u32| (mx * x + my * y + add) & 0x3f;
    let a = lane(m(0, sh1), m(1, sh2), rnum >> 14);
    let b = lane(m(2, sh1), m(3, sh2), rnum >> 10);
    let c = if count >= 3 {
        lane(m(4, sh1), m(5, sh2), rnum >> 6)
    } else {
        0
    };
    let d = if count >= 4 {
        lane(m(6, sh1), m(7, sh2), rnum >> 2)
    } else {
        0
    };
    if a >= b && a >= c && a >= d {
        0
    } else if b >= c && b >= d {
        1
    } else if c >= d {
        2
    } else {
        3
    }
}

/// The weight of texel (s, t) in a `w` x `h` block from a grid of `gw` x `gh` values (of
/// `planes` interleaved planes), plane `plane`: bilinear infill in the specification's
/// fixed point.
#[allow(clippy::too_many_arguments)]
fn infill(
    grid: &[u32],
    gw: u32,
    gh: u32,
    planes: u32,
    plane: u32,
    w: u32,
    h: u32,
    s: u32,
    t: u32,
) -> u32 {
    let ds = (1024 + w / 2) / (w - 1);
    let dt = (1024 + h / 2) / (h - 1);
    let gs = (ds * s * (gw - 1) + 32) >> 6;
    let gt = (dt * t * (gh - 1) + 32) >> 6;
    let (js, fs) = (gs >> 4, gs & 0xf);
    let (jt, ft) = (gt >> 4, gt & 0xf);
    let w11 = (fs * ft + 8) >> 4;
    let w10 = ft - w11;
    let w01 = fs - w11;
    let w00 = 16 + w11 - fs - ft;
    // A grid point past the last row or column has weight 0 (at the edge f is 0).
    let at = |x: u32, y: u32| {
        if x < gw && y < gh {
            grid.get(((y * gw + x) * planes + plane) as usize)
                .copied()
                .unwrap_or(0)
        } else {
            0
        }
    };
    (at(js, jt) * w00 + at(js + 1, jt) * w01 + at(js, jt + 1) * w10 + at(js + 1, jt + 1) * w11 + 8)
        >> 4
}

/// Decodes the block `bytes` of a `w` x `h` footprint into `out` (row-major, the first
/// w * h entries). `srgb` selects the sRGB endpoint widening.
pub fn decode(bytes: &[u8; 16], w: u32, h: u32, srgb: bool, out: &mut [Texel16; MAX_TEXELS]) {
    let n = (w * h) as usize;
    if !(2..=12).contains(&w) || !(2..=12).contains(&h) {
        out.fill(None);
        return;
    }
    let block = u128::from_le_bytes(*bytes);
    match decode_inner(block, w, h, srgb, &mut out[..n]) {
        Ok(()) => {}
        Err(Illegal) => out[..n].fill(None),
    }
}

/// An illegal encoding: every texel is the error colour.
struct Illegal;

fn decode_inner(
    block: u128,
    w: u32,
    h: u32,
    srgb: bool,
    out: &mut [Texel16],
) -> Result<(), Illegal> {
    let mode = bits(block, 0, 11);
    if mode & 0x1ff == 0x1fc {
        let c = void_extent(block)?;
        out.fill(Some(c));
        return Ok(());
    }
    let bm = block_mode(mode).ok_or(Illegal)?;
    let planes = 1 + u32::from(bm.dual);
    let weight_count = bm.width * bm.height * planes;
    if weight_count > 64 || bm.width > w || bm.height > h {
        return Err(Illegal);
    }
    let weight_bits = bm.range.sequence_bits(weight_count);
    if !(24..=96).contains(&weight_bits) {
        return Err(Illegal);
    }
    let partitions = bits(block, 11, 2) + 1;
    if bm.dual && partitions == 4 {
        return Err(Illegal);
    }

    // Endpoint modes. Several partitions either share bits 25..29's mode, or take a class
    // from bits 23..25 plus per-partition class offsets and low bits, the part beyond bit 28
    // stored just below the weights.
    let mut cems = [0u32; 4];
    let mut extra_bits = 0;
    let colour_start;
    if partitions == 1 {
        cems[0] = bits(block, 13, 4);
        colour_start = 17;
    } else {
        colour_start = 29;
        let selector = bits(block, 23, 2);
        if selector == 0 {
            cems.fill(bits(block, 25, 4));
        } else {
            extra_bits = 3 * partitions - 4;
            let high = bits(block, 128 - weight_bits - extra_bits, extra_bits);
            let encoded = bits(block, 25, 4) | (high << 4);
            let p = partitions;
            for (i, cem) in cems.iter_mut().take(p as usize).enumerate() {
                let i = i as u32;
                let class = selector - 1 + ((encoded >> i) & 1);
                *cem = class * 4 + ((encoded >> (p + 2 * i)) & 3);
            }
        }
    }
    let cems = &cems[..partitions as usize];
    let value_count: u32 = cems.iter().map(|&c| endpoints::value_count(c)).sum();
    if value_count > 18 {
        return Err(Illegal);
    }
    let ccs_bits = if bm.dual { 2 } else { 0 };
    let colour_bits = 128i64
        - i64::from(colour_start)
        - i64::from(weight_bits)
        - i64::from(extra_bits)
        - i64::from(ccs_bits);
    // Below 13/5 bits a value, the colours would need a range smaller than 0..5.
    if colour_bits < i64::from((13 * value_count).div_ceil(5)) {
        return Err(Illegal);
    }
    let colour_bits = colour_bits as u32;
    let colour_range = colour_range(colour_bits, value_count).ok_or(Illegal)?;
    let ccs = bits(block, 128 - weight_bits - extra_bits - ccs_bits, ccs_bits);

    // Colour values and endpoints.
    let mut values = [ise::Value::default(); 18];
    let values = &mut values[..value_count as usize];
    ise::decode(
        block,
        colour_start,
        colour_range.sequence_bits(value_count),
        colour_range,
        values,
    );
    let mut colours = [0u32; 18];
    for (c, &v) in colours.iter_mut().zip(values.iter()) {
        *c = ise::unquantise_colour(colour_range, v);
    }
    let mut ends: [Option<([u8; 4], [u8; 4])>; 4] = [None; 4];
    let mut at = 0;
    for (p, &cem) in cems.iter().enumerate() {
        let k = endpoints::value_count(cem) as usize;
        ends[p] = if endpoints::is_hdr(cem) {
            None
        } else {
            endpoints::decode(cem, &colours[at..at + k])
        };
        at += k;
    }

    // Weights: a sequence read from bit 127 downward, so from bit 0 of the reversed block.
    let mut raw = [ise::Value::default(); 64];
    let raw = &mut raw[..weight_count as usize];
    ise::decode(block.reverse_bits(), 0, weight_bits, bm.range, raw);
    let mut grid = [0u32; 64];
    for (g, &v) in grid.iter_mut().zip(raw.iter()) {
        *g = ise::unquantise_weight(bm.range, v);
    }

    let seed = bits(block, 13, 10);
    let small = w * h < 31;
    for t in 0..h {
        for s in 0..w {
            let p = if partitions == 1 {
                0
            } else {
                partition(seed, s, t, partitions, small)
            };
            let texel = &mut out[(t * w + s) as usize];
            let Some((e0, e1)) = ends[p] else {
                *texel = None;
                continue;
            };
            let weight = |plane| infill(&grid, bm.width, bm.height, planes, plane, w, h, s, t);
            let w0 = weight(0);
            let w1 = if bm.dual { weight(1) } else { w0 };
            let mut c = [0u16; 4];
            for ch in 0..4 {
                let wt = if bm.dual && ch as u32 == ccs { w1 } else { w0 };
                c[ch] = interpolate(e0[ch], e1[ch], wt, srgb);
            }
            *texel = Some(c);
        }
    }
    Ok(())
}

/// The largest colour range whose sequence of `count` values fits in `bits`.
fn colour_range(bits: u32, count: u32) -> Option<Range> {
    const LEVELS: [u32; 17] = [
        256, 192, 160, 128, 96, 80, 64, 48, 40, 32, 24, 20, 16, 12, 10, 8, 6,
    ];
    LEVELS
        .iter()
        .filter_map(|&l| Range::of_levels(l))
        .find(|r| r.sequence_bits(count) <= bits)
}

/// C for one channel: the endpoints widened to 16 bits and blended by weight `wt` (0..=64).
fn interpolate(e0: u8, e1: u8, wt: u32, srgb: bool) -> u16 {
    let widen = |e: u8| {
        let e = u32::from(e);
        (e << 8) | if srgb { 0x80 } else { e }
    };
    let c = (widen(e0) * (64 - wt) + widen(e1) * wt + 32) / 64;
    c as u16
}

/// The colour of a void-extent block: its UNORM16 colour, or an illegal encoding (HDR in
/// the LDR profile, reserved bits 10 and 11 not set, an extent whose low end is not below
/// its high end unless all four coordinates are all ones).
fn void_extent(block: u128) -> Result<[u16; 4], Illegal> {
    if bits(block, 9, 1) != 0 || bits(block, 10, 2) != 3 {
        return Err(Illegal);
    }
    let (s0, s1) = (bits(block, 12, 13), bits(block, 25, 13));
    let (t0, t1) = (bits(block, 38, 13), bits(block, 51, 13));
    let all_ones = [s0, s1, t0, t1].iter().all(|&v| v == 0x1fff);
    if !all_ones && (s0 >= s1 || t0 >= t1) {
        return Err(Illegal);
    }
    Ok(std::array::from_fn(|i| {
        bits(block, 64 + 16 * i as u32, 16) as u16
    }))
}

/// A UNORM format's channel value: C as FP16, 65535 being 1.0 and the rest C / 65536
/// rounded toward zero to 11 significant bits.
pub fn unorm_value(c: u16) -> f32 {
    if c == u16::MAX {
        return 1.0;
    }
    // C / 65536 is exact in f32 (16 significant bits); dropping the 13 low bits of the f32
    // significand truncates it to FP16's 11. Values below FP16's normal range (C < 4) have
    // at most two significant bits, which FP16's subnormals hold exactly.
    let f = f32::from(c) / 65536.0;
    f32::from_bits(f.to_bits() & !0x1fff)
}

/// An sRGB format's (still encoded) channel value: the top 8 bits of C.
pub fn srgb_value(c: u16) -> f32 {
    f32::from((c >> 8) as u8) / 255.0
}

/// The channel values of a decoded texel, before the sRGB EOTF.
pub fn texel_value(t: Texel16, srgb: bool) -> [f32; 4] {
    match t {
        None => ERROR_COLOUR,
        Some(c) => c.map(if srgb { srgb_value } else { unorm_value }),
    }
}
