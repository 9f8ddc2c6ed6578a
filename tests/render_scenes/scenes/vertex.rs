//! Vertex attribute formats: SNORM16 and FLOAT16 positions, UNORM8 and FLOAT16 colours,
//! UINT colours read as integers, and packed 10:10:10:2 colours (A2B10G10R10 and
//! A2R10G10B10, normalised and scaled).

use super::super::frame::{bytes_of, Frame, Pipe, R};
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{want_rgba8, RGBA8};
use ash::vk;
use vk::Format as F;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "vertex_snorm16_unorm8_half",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .vertex(F::R16G16_SNORM)
                    .vertex(F::R8G8B8A8_UNORM)
                    .vertex(F::R16G16_SFLOAT)
                    .vertex(F::R16G16B16A16_SFLOAT)
            },
            run: snorm_unorm_half,
        },
        Scene {
            name: "vertex_uint",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .vertex(F::R32G32_SFLOAT)
                    .vertex(F::R8G8B8A8_UINT)
            },
            run: vertex_uint,
        },
        Scene {
            name: "vertex_a2b10g10r10",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .vertex(F::R32G32_SFLOAT)
                    .vertex(F::A2B10G10R10_UNORM_PACK32)
            },
            run: vertex_1010102,
        },
        Scene {
            name: "vertex_a2r10g10b10",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .vertex(F::R32G32_SFLOAT)
                    .vertex(F::A2R10G10B10_UNORM_PACK32)
            },
            run: vertex_a2r10g10b10,
        },
        Scene {
            name: "vertex_1010102_scaled",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .vertex(F::R32G32_SFLOAT)
                    .vertex(F::A2R10G10B10_USCALED_PACK32)
                    .vertex(F::A2B10G10R10_SSCALED_PACK32)
            },
            run: vertex_1010102_scaled,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// IEEE half from f32 (round to nearest even; the values used are normal and in range).
fn half(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    if v == 0.0 {
        return sign;
    }
    let mant = b & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// Pixel corners of a quad as two triangles (counter-clockwise).
fn quad_corners(x0: f32, y0: f32, x1: f32, y1: f32) -> [(f32, f32); 6] {
    [(x0, y0), (x0, y1), (x1, y1), (x0, y0), (x1, y1), (x1, y0)]
}

/// Quad A: positions R16G16_SNORM, colours R8G8B8A8_UNORM (both in one interleaved binding).
/// Quad B: positions R16G16_SFLOAT, colours R16G16B16A16_SFLOAT (two bindings).
fn snorm_unorm_half(f: &mut Frame) -> R<Vec<Out>> {
    let col_a = [200u8, 17, 99, 255];
    let mut a: Vec<u8> = Vec::new();
    for (x, y) in quad_corners(4.0, 4.0, 36.0, 28.0) {
        let [nx, ny] = f.ndc(x, y);
        // SNORM16: the nearest code; edges land within 1/32767 of a pixel corner, far from
        // any pixel centre.
        for n in [nx, ny] {
            a.extend(((n * 32767.0).round() as i16).to_le_bytes());
        }
        a.extend(col_a);
    }
    let pa = Pipe {
        bindings: vec![(8, vk::VertexInputRate::VERTEX)],
        attrs: vec![(0, 0, F::R16G16_SNORM, 0), (1, 0, F::R8G8B8A8_UNORM, 4)],
        ..Pipe::default()
    };
    let col_b = [0.25f32, 0.5, 1.0, 1.0];
    let mut pos_b: Vec<u16> = Vec::new();
    let mut col_bh: Vec<u16> = Vec::new();
    for (x, y) in quad_corners(20.0, 34.0, 60.0, 60.0) {
        let [nx, ny] = f.ndc(x, y);
        pos_b.extend([half(nx), half(ny)]);
        col_bh.extend(col_b.map(half));
    }
    let pb = Pipe {
        bindings: vec![
            (4, vk::VertexInputRate::VERTEX),
            (8, vk::VertexInputRate::VERTEX),
        ],
        attrs: vec![
            (0, 0, F::R16G16_SFLOAT, 0),
            (1, 1, F::R16G16B16A16_SFLOAT, 0),
        ],
        ..Pipe::default()
    };
    let got = draw_two_bindings(
        f,
        &[
            (&pa, vec![a]),
            (&pb, vec![bytes_of(&pos_b), bytes_of(&col_bh)]),
        ],
        6,
    )?;
    let mut want = want_rgba8(f, BG);
    want.fill(4, 4, 36, 28, col_a.map(|c| c as f64));
    // 0.25 * 255 = 63.75 -> 64; 0.5 * 255 = 127.5 may round either way (UNORM8 tolerance).
    want.fill(20, 34, 60, 60, [64.0, 128.0, 255.0, 255.0]);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Draws each pipe with its vertex bindings (one buffer per binding), `n` vertices each.
fn draw_two_bindings(
    f: &mut Frame,
    draws: &[(&Pipe, Vec<Vec<u8>>)],
    n: u32,
) -> R<super::super::image::Image> {
    let t = super::rgba8_target(f)?;
    let mut bound = Vec::new();
    for (p, bufs) in draws {
        let pipe = f.pipeline(p, t.rp)?;
        let mut vbs = Vec::new();
        for b in bufs {
            vbs.push(f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, b)?);
        }
        bound.push((pipe, vbs));
    }
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[super::super::frame::clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            for (pipe, vbs) in &bound {
                f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, *pipe);
                f.d.cmd_bind_vertex_buffers(cb, 0, vbs, &vec![0; vbs.len()]);
                f.d.cmd_draw(cb, n, 1, 0, 0);
            }
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )
}

/// Positions as two floats; per-vertex colour `col` encoded by `enc` into 4 bytes.
/// A pixel rectangle (x0, y0, x1, y1) and its 8-bit colour.
type ColouredRect = ((f32, f32, f32, f32), [u8; 4]);

fn quads_with(f: &Frame, rects: &[ColouredRect], enc: impl Fn([u8; 4]) -> [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    for &((x0, y0, x1, y1), c) in rects {
        for (x, y) in quad_corners(x0, y0, x1, y1) {
            let [nx, ny] = f.ndc(x, y);
            out.extend(nx.to_le_bytes());
            out.extend(ny.to_le_bytes());
            out.extend(enc(c));
        }
    }
    out
}

const RECTS: [ColouredRect; 3] = [
    ((2.0, 2.0, 30.0, 30.0), [255, 1, 128, 255]),
    ((34.0, 2.0, 62.0, 40.0), [3, 254, 77, 200]),
    ((8.0, 36.0, 50.0, 62.0), [90, 90, 255, 0]),
];

fn vertex_uint(f: &mut Frame) -> R<Vec<Out>> {
    let data = quads_with(f, &RECTS, |c| c);
    let p = Pipe {
        vs: "uint_attr.vert",
        bindings: vec![(12, vk::VertexInputRate::VERTEX)],
        attrs: vec![(0, 0, F::R32G32_SFLOAT, 0), (1, 0, F::R8G8B8A8_UINT, 8)],
        ..Pipe::default()
    };
    let got = draw_two_bindings(f, &[(&p, vec![data])], 18)?;
    let mut want = want_rgba8(f, BG);
    for ((x0, y0, x1, y1), c) in RECTS {
        want.fill(
            x0 as u32,
            y0 as u32,
            x1 as u32,
            y1 as u32,
            c.map(|v| v as f64),
        );
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

fn vertex_1010102(f: &mut Frame) -> R<Vec<Out>> {
    // 10-bit channels k/1023 (k = 4 * code), alpha 2 bits (code / 85).
    let enc = |c: [u8; 4]| {
        let (r, g, b, a) = (
            c[0] as u32 * 4,
            c[1] as u32 * 4,
            c[2] as u32 * 4,
            c[3] as u32 / 85,
        );
        (r | (g << 10) | (b << 20) | (a << 30)).to_le_bytes()
    };
    let data = quads_with(f, &RECTS, enc);
    let p = Pipe {
        bindings: vec![(12, vk::VertexInputRate::VERTEX)],
        attrs: vec![
            (0, 0, F::R32G32_SFLOAT, 0),
            (1, 0, F::A2B10G10R10_UNORM_PACK32, 8),
        ],
        ..Pipe::default()
    };
    let got = draw_two_bindings(f, &[(&p, vec![data])], 18)?;
    let mut want = want_rgba8(f, BG);
    for ((x0, y0, x1, y1), c) in RECTS {
        let v = [0, 1, 2].map(|k| (c[k] as f64 * 4.0 / 1023.0 * 255.0).round());
        let a = ((c[3] as u32 / 85) as f64 / 3.0 * 255.0).round();
        want.fill(
            x0 as u32,
            y0 as u32,
            x1 as u32,
            y1 as u32,
            [v[0], v[1], v[2], a],
        );
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// As `vertex_1010102` with blue in the low bits (A2R10G10B10_UNORM).
fn vertex_a2r10g10b10(f: &mut Frame) -> R<Vec<Out>> {
    let enc = |c: [u8; 4]| {
        let (r, g, b, a) = (
            c[0] as u32 * 4,
            c[1] as u32 * 4,
            c[2] as u32 * 4,
            c[3] as u32 / 85,
        );
        (b | (g << 10) | (r << 20) | (a << 30)).to_le_bytes()
    };
    let data = quads_with(f, &RECTS, enc);
    let p = Pipe {
        bindings: vec![(12, vk::VertexInputRate::VERTEX)],
        attrs: vec![
            (0, 0, F::R32G32_SFLOAT, 0),
            (1, 0, F::A2R10G10B10_UNORM_PACK32, 8),
        ],
        ..Pipe::default()
    };
    let got = draw_two_bindings(f, &[(&p, vec![data])], 18)?;
    let mut want = want_rgba8(f, BG);
    for ((x0, y0, x1, y1), c) in RECTS {
        let v = [0, 1, 2].map(|k| (c[k] as f64 * 4.0 / 1023.0 * 255.0).round());
        let a = ((c[3] as u32 / 85) as f64 / 3.0 * 255.0).round();
        want.fill(
            x0 as u32,
            y0 as u32,
            x1 as u32,
            y1 as u32,
            [v[0], v[1], v[2], a],
        );
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Scaled packed colours: integers read as floats, which the UNORM8 target clamps to [0, 1].
/// Channels hold 0 or 1 (a code above 127) and alpha 1, so the clamp changes nothing; quad
/// set A is A2R10G10B10_USCALED, set B A2B10G10R10_SSCALED with -1 for the zero channels
/// (clamped to 0), which shows the sign extension as well.
fn vertex_1010102_scaled(f: &mut Frame) -> R<Vec<Out>> {
    let bit = |v: u8| u32::from(v > 127);
    let uscaled = |c: [u8; 4]| {
        let (r, g, b) = (bit(c[0]), bit(c[1]), bit(c[2]));
        (b | (g << 10) | (r << 20) | (1 << 30)).to_le_bytes()
    };
    // -1 in 10 bits is 0x3ff.
    let s10 = |v: u8| -> u32 {
        if v > 127 {
            1
        } else {
            0x3ff
        }
    };
    let sscaled = |c: [u8; 4]| {
        let (r, g, b) = (s10(c[0]), s10(c[1]), s10(c[2]));
        (r | (g << 10) | (b << 20) | (1 << 30)).to_le_bytes()
    };
    let pa = Pipe {
        bindings: vec![(12, vk::VertexInputRate::VERTEX)],
        attrs: vec![
            (0, 0, F::R32G32_SFLOAT, 0),
            (1, 0, F::A2R10G10B10_USCALED_PACK32, 8),
        ],
        ..Pipe::default()
    };
    let pb = Pipe {
        bindings: vec![(12, vk::VertexInputRate::VERTEX)],
        attrs: vec![
            (0, 0, F::R32G32_SFLOAT, 0),
            (1, 0, F::A2B10G10R10_SSCALED_PACK32, 8),
        ],
        ..Pipe::default()
    };
    // Set A covers the left half of each rectangle, set B the right half.
    let halves = |left: bool| -> [ColouredRect; 3] {
        RECTS.map(|((x0, y0, x1, y1), c)| {
            let mid = (x0 + x1) / 2.0;
            if left {
                ((x0, y0, mid, y1), c)
            } else {
                ((mid, y0, x1, y1), c)
            }
        })
    };
    let a = quads_with(f, &halves(true), uscaled);
    let b = quads_with(f, &halves(false), sscaled);
    let got = draw_two_bindings(f, &[(&pa, vec![a]), (&pb, vec![b])], 18)?;
    let mut want = want_rgba8(f, BG);
    for side in [true, false] {
        for ((x0, y0, x1, y1), c) in halves(side) {
            let v = [0, 1, 2].map(|k| if c[k] > 127 { 255.0 } else { 0.0 });
            want.fill(
                x0 as u32,
                y0 as u32,
                x1 as u32,
                y1 as u32,
                [v[0], v[1], v[2], 255.0],
            );
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
