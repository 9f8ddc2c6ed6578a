//! Every primitive topology: points, lines, line strips, triangle lists, strips and fans (the
//! strips and fans indexed, with primitive restart), polygon mode LINE and wide lines.
//!
//! Lines are axis-aligned through pixel centres: there, Bresenham ("diamond exit") and
//! rectangle rasterisation agree on every pixel but the ends, so only the pixels at the ends
//! and at strip corners are don't-care.

use super::super::frame::{bytes_of, c8, clear_color, codes, Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{draw_tri, flat_tri};
use super::super::run::{Out, Scene};
use super::{draw_rgba8, rgba8_target, want_rgba8, RGBA8};
use ash::vk;

pub fn scenes() -> Vec<Scene> {
    let rgba8 = || Needs::new().color(RGBA8);
    vec![
        Scene {
            name: "point_list",
            size: 64,
            needs: rgba8,
            run: point_list,
        },
        Scene {
            name: "point_coord",
            size: 64,
            needs: rgba8,
            run: point_coord,
        },
        Scene {
            name: "line_list",
            size: 64,
            needs: rgba8,
            run: line_list,
        },
        Scene {
            name: "line_strip_restart",
            size: 64,
            needs: rgba8,
            run: line_strip_restart,
        },
        Scene {
            name: "triangle_list",
            size: 64,
            needs: rgba8,
            run: triangle_list,
        },
        Scene {
            name: "triangle_strip_restart",
            size: 64,
            needs: rgba8,
            run: triangle_strip_restart,
        },
        Scene {
            name: "triangle_fan_restart",
            size: 64,
            needs: rgba8,
            run: triangle_fan_restart,
        },
        Scene {
            name: "polygon_mode_line",
            size: 64,
            needs: || Needs::new().color(RGBA8).feature(Feature::FillModeNonSolid),
            run: polygon_mode_line,
        },
        Scene {
            name: "wide_lines",
            size: 64,
            needs: || Needs::new().color(RGBA8).feature(Feature::WideLines),
            run: wide_lines,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn point_list(f: &mut Frame) -> R<Vec<Out>> {
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for i in 0..97u32 {
        let (x, y) = ((i * 37) % 64, (i * 23 + i / 3) % 64);
        let c = c8((i * 40 % 256) as u8, 255 - (i * 3) as u8, 128, 255);
        verts.push(f.v(x as f32 + 0.5, y as f32 + 0.5, 0.5, c));
        want.set(x, y, codes(c));
    }
    let p = Pipe {
        topology: vk::PrimitiveTopology::POINT_LIST,
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// gl_PointCoord through its coefficient binding: at the centre of a one-pixel point it is
/// (0.5, 0.5).
fn point_coord(f: &mut Frame) -> R<Vec<Out>> {
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for i in 0..41u32 {
        let (x, y) = ((i * 29) % 64, (i * 17 + i / 5) % 64);
        let b = (i * 6) as u8;
        verts.push(f.v(x as f32 + 0.5, y as f32 + 0.5, 0.5, c8(0, 0, b, 255)));
        want.set(x, y, [127.5, 127.5, f64::from(b), 255.0]);
    }
    let p = Pipe {
        topology: vk::PrimitiveTopology::POINT_LIST,
        fs: "point_coord.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Expectation of an axis-aligned line between pixel-centre rows/columns, `width` pixels
/// thick; the two pixels at each end (and `width/2` around) are don't-care.
fn want_line(img: &mut Image, a: (u32, u32), b: (u32, u32), width: u32, c: [f64; 4]) {
    let half = width / 2;
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    let horizontal = y0 == y1;
    let (len0, len1) = if horizontal { (x0, x1) } else { (y0, y1) };
    for t in len0..len1 {
        for k in 0..width {
            let across = (if horizontal { y0 } else { x0 } + k).wrapping_sub(half);
            let (x, y) = if horizontal { (t, across) } else { (across, t) };
            if x >= img.w || y >= img.h {
                continue;
            }
            let end = t <= len0 + half || t + 1 + half >= len1;
            if end {
                img.ignore(x, y);
            } else {
                img.set(x, y, c);
            }
        }
    }
}

fn line_list(f: &mut Frame) -> R<Vec<Out>> {
    let lines = [
        ((2, 3), (60, 3)),
        ((5, 10), (40, 10)),
        ((50, 8), (50, 60)),
        ((10, 20), (10, 58)),
        ((20, 40), (47, 40)),
        ((30, 62), (30, 44)),
    ];
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for (i, &(a, b)) in lines.iter().enumerate() {
        let c = c8(255, (i * 40) as u8, 255 - (i * 30) as u8, 255);
        // Endpoints on pixel corners along the line, through pixel centres across it.
        let (ax, ay, bx, by) = if a.1 == b.1 {
            (a.0 as f32, a.1 as f32 + 0.5, b.0 as f32, b.1 as f32 + 0.5)
        } else {
            (a.0 as f32 + 0.5, a.1 as f32, b.0 as f32 + 0.5, b.1 as f32)
        };
        verts.push(f.v(ax, ay, 0.5, c));
        verts.push(f.v(bx, by, 0.5, c));
        want_line(&mut want, a, b, 1, codes(c));
    }
    let p = Pipe {
        topology: vk::PrimitiveTopology::LINE_LIST,
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Draws `verts` indexed by `idx` (16- or 32-bit) with primitive restart on.
fn draw_indexed_restart(
    f: &mut Frame,
    p: &Pipe,
    verts: &[V],
    idx: &[u32],
    ty: vk::IndexType,
) -> R<Image> {
    let t = rgba8_target(f)?;
    let pipe = f.pipeline(p, t.rp)?;
    let ib = match ty {
        vk::IndexType::UINT16 => bytes_of(&idx.iter().map(|&i| i as u16).collect::<Vec<_>>()),
        _ => bytes_of(idx),
    };
    let ib = f.buffer(vk::BufferUsageFlags::INDEX_BUFFER, &ib)?;
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(verts))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_bind_index_buffer(cb, ib, 0, ty);
            f.d.cmd_draw_indexed(cb, idx.len() as u32, 1, 0, 0, 0);
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

/// Two L-shaped strips separated by a restart; without the restart a diagonal segment would
/// join them across empty pixels.
fn line_strip_restart(f: &mut Frame) -> R<Vec<Out>> {
    let ca = c8(255, 255, 0, 255);
    let cb = c8(0, 255, 255, 255);
    // Strip A: (4,6) -> (40,6) -> (40,30); strip B: (60,40) -> (20,40) -> (20,60).
    let verts = vec![
        f.v(4.0, 6.5, 0.5, ca),
        f.v(40.5, 6.5, 0.5, ca),
        f.v(40.5, 30.0, 0.5, ca),
        f.v(60.0, 40.5, 0.5, cb),
        f.v(20.5, 40.5, 0.5, cb),
        f.v(20.5, 60.0, 0.5, cb),
    ];
    let idx = [0, 1, 2, 0xffff, 3, 4, 5];
    let p = Pipe {
        topology: vk::PrimitiveTopology::LINE_STRIP,
        restart: true,
        ..Pipe::default()
    };
    let got = draw_indexed_restart(f, &p, &verts, &idx, vk::IndexType::UINT16)?;
    let mut want = want_rgba8(f, BG);
    want_line(&mut want, (4, 6), (41, 6), 1, codes(ca));
    want_line(&mut want, (40, 6), (40, 30), 1, codes(ca));
    want_line(&mut want, (21, 40), (60, 40), 1, codes(cb));
    want_line(&mut want, (20, 40), (20, 60), 1, codes(cb));
    // The corners belong to both segments (either may cover them).
    want.ignore(40, 6);
    want.ignore(20, 40);
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

fn triangle_list(f: &mut Frame) -> R<Vec<Out>> {
    let tris = [
        (
            [[2.0, 2.0], [30.0, 4.5], [6.25, 28.0]],
            c8(255, 0, 128, 255),
        ),
        (
            [[62.0, 2.0], [60.0, 30.0], [34.5, 10.0]],
            c8(0, 255, 128, 255),
        ),
        (
            [[8.0, 62.0], [32.0, 34.0], [56.125, 61.5]],
            c8(128, 0, 255, 255),
        ),
    ];
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for (p, c) in tris {
        for q in p {
            verts.push(f.v(q[0] as f32, q[1] as f32, 0.5, c));
        }
        draw_tri(
            &mut want,
            &flat_tri(p, c.map(|v| v as f64)),
            super::super::raster::Interp::Flat,
        );
    }
    let got = draw_rgba8(f, BG, &[(&Pipe::default(), &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Triangles of a strip (or fan) as the reference sees them.
fn strip_tris(p: &[[f64; 2]], fan: bool) -> Vec<[[f64; 2]; 3]> {
    (0..p.len().saturating_sub(2))
        .map(|i| {
            if fan {
                [p[0], p[i + 1], p[i + 2]]
            } else {
                [p[i], p[i + 1], p[i + 2]]
            }
        })
        .collect()
}

fn triangle_strip_restart(f: &mut Frame) -> R<Vec<Out>> {
    let a: Vec<[f64; 2]> = vec![
        [4.0, 4.0],
        [4.0, 20.0],
        [20.0, 6.0],
        [24.0, 22.0],
        [40.0, 4.0],
        [44.0, 18.0],
    ];
    let b: Vec<[f64; 2]> = vec![
        [10.0, 60.0],
        [16.0, 36.0],
        [30.0, 58.0],
        [34.0, 34.0],
        [58.0, 60.0],
    ];
    strip_or_fan(
        f,
        &a,
        &b,
        vk::PrimitiveTopology::TRIANGLE_STRIP,
        vk::IndexType::UINT16,
    )
}

fn triangle_fan_restart(f: &mut Frame) -> R<Vec<Out>> {
    // Two fans around their first vertex: a hexagon-like shape and a quarter disc.
    let a: Vec<[f64; 2]> = vec![
        [20.0, 20.0],
        [34.0, 20.0],
        [28.0, 32.0],
        [14.0, 34.0],
        [6.0, 22.0],
        [10.0, 8.0],
        [26.0, 6.0],
        [34.0, 20.0],
    ];
    let b: Vec<[f64; 2]> = vec![
        [40.0, 60.0],
        [62.0, 60.0],
        [60.0, 48.0],
        [54.0, 40.0],
        [42.0, 36.0],
    ];
    strip_or_fan(
        f,
        &a,
        &b,
        vk::PrimitiveTopology::TRIANGLE_FAN,
        vk::IndexType::UINT32,
    )
}

fn strip_or_fan(
    f: &mut Frame,
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    topo: vk::PrimitiveTopology,
    ty: vk::IndexType,
) -> R<Vec<Out>> {
    let fan = topo == vk::PrimitiveTopology::TRIANGLE_FAN;
    let (ca, cb) = (c8(255, 160, 0, 255), c8(40, 90, 255, 255));
    let mut verts = Vec::new();
    let mut idx = Vec::new();
    let restart = if ty == vk::IndexType::UINT16 {
        0xffff
    } else {
        0xffff_ffff
    };
    // Stored in reverse, indexed forwards: the index buffer decides the order.
    let all: Vec<([f64; 2], [f32; 4])> = a
        .iter()
        .map(|&p| (p, ca))
        .chain(b.iter().map(|&p| (p, cb)))
        .collect();
    for (p, c) in all.iter().rev() {
        verts.push(f.v(p[0] as f32, p[1] as f32, 0.5, *c));
    }
    let n = all.len() as u32;
    idx.extend((0..a.len() as u32).map(|i| n - 1 - i));
    idx.push(restart);
    idx.extend((a.len() as u32..n).map(|i| n - 1 - i));
    let p = Pipe {
        topology: topo,
        restart: true,
        ..Pipe::default()
    };
    let got = draw_indexed_restart(f, &p, &verts, &idx, ty)?;
    let mut want = want_rgba8(f, BG);
    for (pts, c) in [(a, ca), (b, cb)] {
        let cf = c.map(|v| v as f64);
        let mut part = want_rgba8(f, BG);
        for t in strip_tris(pts, fan) {
            draw_tri(
                &mut part,
                &flat_tri(t, cf),
                super::super::raster::Interp::Flat,
            );
        }
        // Shared edges inside one strip are covered by one triangle or the other: both give
        // the same colour, so a pixel on an inner edge is don't-care only if it is covered by
        // no triangle for sure.
        merge_strip(&mut want, &part, pts, fan, codes(c));
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Copies `part` into `want`, clearing don't-care marks on pixels whose centre is strictly
/// inside the union of the strip's triangles (an inner shared edge is not a coverage question).
fn merge_strip(want: &mut Image, part: &Image, pts: &[[f64; 2]], fan: bool, col: [f64; 4]) {
    use super::super::raster::{cover, Cover};
    let tris = strip_tris(pts, fan);
    for y in 0..want.h {
        for x in 0..want.w {
            let i = (y * want.w + x) as usize;
            let c = [x as f64 + 0.5, y as f64 + 0.5];
            let any_in = tris.iter().any(|t| matches!(cover(t, c), Cover::In(_)));
            let edges = tris.iter().filter(|t| cover(t, c) == Cover::Edge).count();
            if any_in || edges >= 2 && inner_point(&tris, c) {
                want.px[i] = col;
                want.dont_care[i] = false;
            } else if part.dont_care[i] {
                want.dont_care[i] = true;
            }
        }
    }
}

/// A point on edges of two triangles is inside the union when a tiny step in every
/// direction stays covered.
fn inner_point(tris: &[[[f64; 2]; 3]], c: [f64; 2]) -> bool {
    use super::super::raster::{cover, Cover};
    let d = 1e-3;
    [
        [d, 0.0],
        [-d, 0.0],
        [0.0, d],
        [0.0, -d],
        [d, d],
        [-d, -d],
        [d, -d],
        [-d, d],
    ]
    .iter()
    .all(|o| {
        tris.iter()
            .any(|t| cover(t, [c[0] + o[0], c[1] + o[1]]) != Cover::Out)
    })
}

/// Quads in polygon mode LINE: their outline edges pass through pixel centres; the diagonal
/// of each quad is an edge too, so pixels near it are don't-care.
fn polygon_mode_line(f: &mut Frame) -> R<Vec<Out>> {
    let c = c8(255, 255, 255, 255);
    let quads = [(6, 6, 40, 24), (20, 34, 58, 58)];
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for &(x0, y0, x1, y1) in &quads {
        let q = |x: u32, y: u32| f.v(x as f32 + 0.5, y as f32 + 0.5, 0.5, c);
        verts.extend([
            q(x0, y0),
            q(x0, y1),
            q(x1, y1),
            q(x0, y0),
            q(x1, y1),
            q(x1, y0),
        ]);
        for (a, b) in [
            ((x0, y0), (x1, y0)),
            ((x0, y1), (x1, y1)),
            ((x0, y0), (x0, y1)),
            ((x1, y0), (x1, y1)),
        ] {
            want_line(
                &mut want,
                a,
                (
                    b.0.max(a.0 + (b.1 == a.1) as u32),
                    b.1.max(a.1 + (b.0 == a.0) as u32),
                ),
                1,
                codes(c),
            );
        }
        for y in y0..=y1 {
            for x in x0..=x1 {
                // Distance from the pixel centre to the diagonal (x0,y0)-(x1,y1), in pixels.
                let (dx, dy) = ((x1 - x0) as f64, (y1 - y0) as f64);
                let dist = ((x as f64 - x0 as f64) * dy - (y as f64 - y0 as f64) * dx).abs()
                    / (dx * dx + dy * dy).sqrt();
                if dist < 1.5 {
                    want.ignore(x, y);
                }
            }
        }
        for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)] {
            want.ignore(x, y);
        }
    }
    let p = Pipe {
        polygon: vk::PolygonMode::LINE,
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Lines three pixels wide, horizontal and vertical: both wide-line rules (parallelogram and
/// replicated Bresenham) cover the same three rows or columns away from the ends.
fn wide_lines(f: &mut Frame) -> R<Vec<Out>> {
    let lines = [
        ((4, 8), (60, 8)),
        ((4, 30), (44, 30)),
        ((54, 14), (54, 60)),
        ((12, 40), (12, 62)),
    ];
    let mut verts = Vec::new();
    let mut want = want_rgba8(f, BG);
    for (i, &(a, b)) in lines.iter().enumerate() {
        let c = c8(255 - (i * 50) as u8, 200, (i * 60) as u8, 255);
        let (ax, ay, bx, by) = if a.1 == b.1 {
            (a.0 as f32, a.1 as f32 + 0.5, b.0 as f32, b.1 as f32 + 0.5)
        } else {
            (a.0 as f32 + 0.5, a.1 as f32, b.0 as f32 + 0.5, b.1 as f32)
        };
        verts.push(f.v(ax, ay, 0.5, c));
        verts.push(f.v(bx, by, 0.5, c));
        want_line(&mut want, a, b, 3, codes(c));
    }
    let p = Pipe {
        topology: vk::PrimitiveTopology::LINE_LIST,
        line_width: 3.0,
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
