//! Tests against independently computed expectations: float references with their own
//! tie-breaking, pinned hand-worked cases, and mesh-wide coverage counts.

use super::bin::{touches, BinMode, TileBins, TvbCostModel, TILE_SIZE};
use super::clip::{
    clip_line, clip_line_user, clip_triangle, clip_triangle_user, point_visible,
    point_visible_user, triangle_inside, unclipped, ClipOptions, UserClip,
};
use super::coverage::{pixel_centre, SampleCount};
use super::line::{clamp_width, Line};
use super::point::{clamp_size, Point};
use super::setup::{CullMode, FrontFace, SetupState, Triangle};
use super::viewport::{to_window, Viewport, WindowVertex};
use super::{Rect, SUBPIXEL_ONE};

use hw::test_rng::Rng;

fn wv(x: f64, y: f64) -> WindowVertex {
    WindowVertex::from_pixels(x, y, 0.5, 1.0).unwrap()
}

/// Setup for vertices the tests know are in range.
fn setup(v: [WindowVertex; 3], st: &SetupState) -> Option<Triangle> {
    Triangle::setup(v, st).unwrap()
}

const NONE: SetupState = SetupState {
    front_face: FrontFace::CounterClockwise,
    cull_mode: CullMode::None,
};
const BIG: Rect = Rect::new(0, 0, 4096, 4096);

/// Reference coverage of a sample by float arithmetic (exact here: every value is a small
/// dyadic rational). Ownership of samples on an edge is decided geometrically: a horizontal
/// edge is owned when the third vertex lies below it, any other edge when the third vertex
/// lies to the right of the edge's line at that vertex's height.
fn reference_covers(v: [(f64, f64); 3], s: (f64, f64)) -> bool {
    let cross = |a: (f64, f64), b: (f64, f64), p: (f64, f64)| {
        (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
    };
    let area = cross(v[0], v[1], v[2]);
    if area == 0.0 {
        return false;
    }
    for i in 0..3 {
        let (a, b, c) = (v[i], v[(i + 1) % 3], v[(i + 2) % 3]);
        let e = cross(a, b, s) * area.signum();
        if e < 0.0 {
            return false;
        }
        if e == 0.0 {
            let owned = if a.1 == b.1 {
                c.1 > a.1
            } else {
                let line_x = a.0 + (c.1 - a.1) * (b.0 - a.0) / (b.1 - a.1);
                c.0 > line_x
            };
            if !owned {
                return false;
            }
        }
    }
    true
}

fn samples_f(samples: SampleCount, x: u32, y: u32) -> Vec<(f64, f64)> {
    samples
        .locations()
        .iter()
        .map(|(sx, sy)| (x as f64 + *sx as f64 / 16.0, y as f64 + *sy as f64 / 16.0))
        .collect()
}

/// A vertex coordinate in [0, range) pixels, on the 1/16 grid half of the time so that
/// samples land exactly on edges and vertices.
fn coord(rng: &mut Rng, range: u64) -> f64 {
    if rng.below(2) == 0 {
        rng.below(range * 16) as f64 / 16.0
    } else {
        rng.below(range * 256) as f64 / 256.0
    }
}

#[test]
fn coverage_matches_float_reference() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut covered_total = 0;
    for iter in 0..600 {
        let range = if iter % 3 == 0 { 4 } else { 24 };
        let v: [(f64, f64); 3] =
            core::array::from_fn(|_| (coord(&mut rng, range), coord(&mut rng, range)));
        let tri = setup(v.map(|(x, y)| wv(x, y)), &NONE);
        for samples in [SampleCount::One, SampleCount::Two, SampleCount::Four] {
            for y in 0..range as u32 + 1 {
                for x in 0..range as u32 + 1 {
                    let mut expect = 0;
                    for (s, p) in samples_f(samples, x, y).into_iter().enumerate() {
                        if reference_covers(v, p) {
                            expect |= 1 << s;
                        }
                    }
                    let got = tri.map_or(0, |t| t.sample_mask(x, y, samples));
                    assert_eq!(got, expect, "tri {v:?} pixel ({x},{y}) {samples:?}");
                    covered_total += expect.count_ones();
                }
            }
            // The incremental rasterizer agrees with the per-sample test.
            if let Some(t) = tri {
                let mut seen = 0;
                t.rasterize(samples, &BIG, |x, y, m| {
                    assert_eq!(m, t.sample_mask(x, y, samples));
                    seen += m.count_ones();
                });
                let mut expect = 0;
                for y in 0..range as u32 + 1 {
                    for x in 0..range as u32 + 1 {
                        expect += t.sample_mask(x, y, samples).count_ones();
                    }
                }
                assert_eq!(seen, expect);
            }
        }
    }
    assert!(
        covered_total > 10_000,
        "the random triangles must cover something"
    );
}

/// Counts how many triangles cover each sample of a w x h pixel area.
fn coverage_counts(tris: &[[(f64, f64); 3]], w: u32, h: u32, samples: SampleCount) -> Vec<u32> {
    let n = samples.count();
    let mut counts = vec![0u32; (w * h) as usize * n];
    for v in tris {
        let Some(t) = setup(v.map(|(x, y)| wv(x, y)), &NONE) else {
            continue;
        };
        t.rasterize(samples, &Rect::new(0, 0, w, h), |x, y, m| {
            for s in 0..n {
                if m & (1 << s) != 0 {
                    counts[((y * w + x) as usize) * n + s] += 1;
                }
            }
        });
    }
    counts
}

fn assert_watertight(tris: &[[(f64, f64); 3]], w: u32, h: u32, what: &str) {
    for samples in [SampleCount::One, SampleCount::Four] {
        for reversed in [false, true] {
            let list: Vec<_> = tris
                .iter()
                .map(|t| if reversed { [t[0], t[2], t[1]] } else { *t })
                .collect();
            let counts = coverage_counts(&list, w, h, samples);
            if let Some(i) = counts.iter().position(|c| *c != 1) {
                let n = samples.count();
                let p = i / n;
                panic!("{what}: pixel ({}, {}) sample {} covered {} times (reversed {reversed}, {samples:?})", p as u32 % w, p as u32 / w, i % n, counts[i]);
            }
        }
    }
}

#[test]
fn grid_of_quads_split_both_ways_is_watertight() {
    let mut rng = Rng(0xfeed_beef_0123_4567);
    let (cols, rows, cell) = (8usize, 6usize, 4.0f64);
    let (w, h) = ((cols as f64 * cell) as u32, (rows as f64 * cell) as u32);
    // Interior grid points jitter (on the sample grid or the subpixel grid); border points
    // stay on the frame so the mesh tiles the w x h rectangle exactly.
    let mut pts = vec![vec![(0.0, 0.0); cols + 1]; rows + 1];
    for (j, row) in pts.iter_mut().enumerate() {
        for (i, p) in row.iter_mut().enumerate() {
            let mut x = i as f64 * cell;
            let mut y = j as f64 * cell;
            if i > 0 && i < cols {
                x += coord(&mut rng, 2) - 1.0;
            }
            if j > 0 && j < rows {
                y += coord(&mut rng, 2) - 1.0;
            }
            *p = (x, y);
        }
    }
    let mut tris = Vec::new();
    for j in 0..rows {
        for i in 0..cols {
            let (a, b, c, d) = (pts[j][i], pts[j][i + 1], pts[j + 1][i + 1], pts[j + 1][i]);
            if (i + j) % 2 == 0 {
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            } else {
                tris.push([a, b, d]);
                tris.push([b, c, d]);
            }
        }
    }
    assert_watertight(&tris, w, h, "grid");
}

#[test]
fn fans_around_a_vertex_are_watertight() {
    // Centres on a sample position, on a pixel corner and at an arbitrary subpixel point.
    for centre in [(8.375, 6.125), (8.0, 6.0), (7.12890625, 5.91796875)] {
        let (w, h) = (16.0, 12.0);
        let mut rim = Vec::new();
        for i in 0..8 {
            rim.push((i as f64 * 2.0, 0.0));
        }
        for i in 0..6 {
            rim.push((w, i as f64 * 2.0));
        }
        for i in 0..8 {
            rim.push((w - i as f64 * 2.0, h));
        }
        for i in 0..6 {
            rim.push((0.0, h - i as f64 * 2.0));
        }
        let tris: Vec<_> = (0..rim.len())
            .map(|i| [centre, rim[i], rim[(i + 1) % rim.len()]])
            .collect();
        assert_watertight(&tris, w as u32, h as u32, "fan");
    }
}

#[test]
fn quad_split_either_way_covers_the_same_samples_once() {
    let q = [(1.0, 1.5), (9.5, 0.5), (10.0, 7.5), (0.5, 8.0)];
    let a = [[q[0], q[1], q[2]], [q[0], q[2], q[3]]];
    let b = [[q[0], q[1], q[3]], [q[1], q[2], q[3]]];
    for samples in [SampleCount::One, SampleCount::Four] {
        let ca = coverage_counts(&a, 12, 10, samples);
        let cb = coverage_counts(&b, 12, 10, samples);
        assert!(ca.iter().all(|c| *c <= 1));
        assert_eq!(ca, cb);
        assert!(ca.iter().filter(|c| **c == 1).count() > 40);
    }
}

#[test]
fn fill_rule_edges_through_pixel_centres() {
    // A 2x2-pixel square whose sides and diagonal pass exactly through pixel centres.
    let upper_right = setup([wv(0.5, 0.5), wv(2.5, 0.5), wv(2.5, 2.5)], &NONE).unwrap();
    let lower_left = setup([wv(0.5, 0.5), wv(2.5, 2.5), wv(0.5, 2.5)], &NONE).unwrap();
    let pix = |t: &Triangle| {
        let mut v = Vec::new();
        t.rasterize(SampleCount::One, &BIG, |x, y, _| v.push((x, y)));
        v
    };
    // Left (x = 0.5) and top (y = 0.5) sides are owned; right (x = 2.5) and bottom (y = 2.5)
    // are not; the diagonal is a left edge of the upper-right triangle only.
    assert_eq!(pix(&upper_right), vec![(0, 0), (1, 0), (1, 1)]);
    assert_eq!(pix(&lower_left), vec![(0, 1)]);
    // The same triangles with the other winding cover the same pixels.
    let ur2 = setup([wv(0.5, 0.5), wv(2.5, 2.5), wv(2.5, 0.5)], &NONE).unwrap();
    assert_eq!(pix(&ur2), pix(&upper_right));
}

#[test]
fn facing_and_culling() {
    // (0,0) -> (10,0) -> (0,10) turns clockwise on screen (y down): Vulkan's a is negative.
    let v = [wv(0.0, 0.0), wv(10.0, 0.0), wv(0.0, 10.0)];
    let rev = [v[0], v[2], v[1]];
    let st = |front_face, cull_mode| SetupState {
        front_face,
        cull_mode,
    };
    let ccw = FrontFace::CounterClockwise;
    let cw = FrontFace::Clockwise;
    assert!(!setup(v, &st(ccw, CullMode::None)).unwrap().front_facing);
    assert!(setup(v, &st(cw, CullMode::None)).unwrap().front_facing);
    assert!(setup(rev, &st(ccw, CullMode::None)).unwrap().front_facing);
    assert!(setup(v, &st(ccw, CullMode::Back)).is_none());
    assert!(setup(v, &st(ccw, CullMode::Front)).is_some());
    assert!(setup(v, &st(cw, CullMode::Back)).is_some());
    assert!(setup(rev, &st(ccw, CullMode::Front)).is_none());
    assert!(setup(v, &st(cw, CullMode::FrontAndBack)).is_none());
    assert!(setup(rev, &st(ccw, CullMode::FrontAndBack)).is_none());
    // Zero area: collinear, and coincident after snapping.
    assert!(setup([wv(0.0, 0.0), wv(5.0, 5.0), wv(10.0, 10.0)], &NONE).is_none());
    assert!(setup([wv(1.0, 1.0), wv(1.0001, 1.0), wv(1.0, 1.0001)], &NONE).is_none());
    // Hand-built vertices beyond the exact range are refused, not overflowed.
    let far = WindowVertex {
        x: i64::MAX / 2,
        ..v[0]
    };
    assert!(Triangle::setup([far, v[1], v[2]], &NONE).is_err());
}

#[test]
fn scissor_limits_coverage() {
    let t = setup([wv(0.0, 0.0), wv(40.0, 0.0), wv(0.0, 40.0)], &NONE).unwrap();
    let sc = Rect::new(5, 7, 3, 2);
    let mut v = Vec::new();
    t.rasterize(SampleCount::One, &sc, |x, y, _| v.push((x, y)));
    assert_eq!(v, vec![(5, 7), (6, 7), (7, 7), (5, 8), (6, 8), (7, 8)]);
}

#[test]
fn sample_locations_match_vulkan_and_mesa_packing() {
    // Mesa hk's default PPP_MULTISAMPLECTL words: one byte per sample, low nibble x and high
    // nibble y in 1/16 pixel, sample 0 in the low byte.
    let decode = |word: u32, n: usize| -> Vec<(i64, i64)> {
        (0..n)
            .map(|i| {
                (
                    ((word >> (8 * i)) & 0xf) as i64,
                    ((word >> (8 * i + 4)) & 0xf) as i64,
                )
            })
            .collect()
    };
    assert_eq!(SampleCount::One.locations(), decode(0x88, 1).as_slice());
    assert_eq!(SampleCount::Two.locations(), decode(0x44cc, 2).as_slice());
    assert_eq!(
        SampleCount::Four.locations(),
        decode(0xeaa2_6e26, 4).as_slice()
    );
    let vk4 = [
        (0.375, 0.125),
        (0.875, 0.375),
        (0.125, 0.625),
        (0.625, 0.875),
    ];
    for (i, (x, y)) in vk4.iter().enumerate() {
        let (ox, oy) = SampleCount::Four.offset(i);
        assert_eq!((ox as f64 / 256.0, oy as f64 / 256.0), (*x, *y));
    }
    assert!(SampleCount::from_count(8).is_err());
}

#[test]
fn depth_and_barycentrics() {
    let v = [
        WindowVertex::from_pixels(0.0, 0.0, 0.1, 1.0).unwrap(),
        WindowVertex::from_pixels(16.0, 0.0, 0.5, 0.5).unwrap(),
        WindowVertex::from_pixels(0.0, 16.0, 0.9, 0.25).unwrap(),
    ];
    for order in [[0, 1, 2], [0, 2, 1], [2, 1, 0]] {
        let t = setup(order.map(|i| v[i]), &NONE).unwrap();
        let sub = |x: f64, y: f64| ((x * 256.0) as i64, (y * 256.0) as i64);
        // At (4, 8): window-space weights are (1 - 4/16 - 8/16, 4/16, 8/16).
        let (px, py) = sub(4.0, 8.0);
        let lin = [0.25f64, 0.25, 0.5];
        let z_expect = 0.25 * 0.1 + 0.25 * 0.5 + 0.5 * 0.9;
        assert!((t.depth(px, py, None) as f64 - z_expect).abs() < 1e-6);
        assert_eq!(t.depth(px, py, Some((0.0, 0.5))), 0.5);
        let b = t.barycentrics(px, py);
        let inv_w = [1.0, 0.5, 0.25];
        let sum: f64 = (0..3).map(|i| lin[i] * inv_w[i]).sum();
        for (k, &i) in order.iter().enumerate() {
            assert!((b.linear[k] as f64 - lin[i]).abs() < 1e-6, "{order:?}");
            assert!(
                (b.perspective[k] as f64 - lin[i] * inv_w[i] / sum).abs() < 1e-6,
                "{order:?}"
            );
        }
        // At each vertex the depth is that vertex's.
        for vi in &v {
            assert!((t.depth(vi.x, vi.y, None) - vi.z).abs() < 1e-6);
        }
    }
    let (cx, cy) = pixel_centre(3, 4);
    assert_eq!((cx, cy), (3 * 256 + 128, 4 * 256 + 128));
}

/// `pixel_depths` (f64 edge values) gives `depth` (i64 edge values) bit for bit, at the
/// corners of the window range too, where the edge values are largest.
#[test]
fn pixel_depths_are_depth_at_each_pixel() {
    let mut rng = Rng(0xdeb7_0000_5eed_0001);
    let far = super::MAX_WINDOW_COORD;
    let mut compared = 0;
    for n in 0..2000 {
        let pick = |rng: &mut Rng| {
            let c = |rng: &mut Rng| match n % 3 {
                0 => coord(rng, 64),
                1 => coord(rng, 16384),
                _ => (rng.below(2 * far as u64) as f64 - far) + rng.below(256) as f64 / 256.0,
            };
            let z = f32::from_bits(rng.next() as u32);
            let z = if z.is_finite() {
                z
            } else {
                rng.below(1 << 20) as f32 / 1048576.0
            };
            WindowVertex::from_pixels(c(rng), c(rng), z, 1.0).unwrap()
        };
        let v = [pick(&mut rng), pick(&mut rng), pick(&mut rng)];
        let Some(t) = setup(v, &NONE) else { continue };
        let pixels: Vec<(u32, u32, u32)> = (0..40)
            .map(|_| (rng.below(16384) as u32, rng.below(16384) as u32, 1))
            .collect();
        for samples in [SampleCount::One, SampleCount::Four] {
            let offset = samples.offset(samples.count() - 1);
            let mut out = vec![0f32; pixels.len()];
            t.pixel_depths(&pixels, offset, &mut out);
            for (&(x, y, _), d) in pixels.iter().zip(&out) {
                let (px, py) = (
                    x as i64 * SUBPIXEL_ONE + offset.0,
                    y as i64 * SUBPIXEL_ONE + offset.1,
                );
                for e in &t.edges {
                    let f = [e.ax, e.ay, e.dx, e.dy].map(|v| v as f64);
                    let exact = super::coverage::edge_f64(&f, px as f64, py as f64);
                    assert_eq!(exact, e.eval(px, py) as f64);
                }
                let want = t.depth(px, py, None);
                assert_eq!(d.to_bits(), want.to_bits(), "{v:?} at ({x}, {y})");
                compared += 1;
            }
        }
    }
    assert!(compared > 100_000, "{compared}");
}

#[test]
fn viewport_transform_and_snapping() {
    let vp = Viewport {
        x: 10.0,
        y: 20.0,
        width: 100.0,
        height: 50.0,
        min_depth: 0.2,
        max_depth: 0.8,
    };
    let w = to_window([0.5, -0.5, 0.5, 1.0], &vp).unwrap();
    // x: 50 * 0.5 + 60 = 85; y: 25 * -0.5 + 45 = 32.5.
    assert_eq!((w.x, w.y), (85 * 256, (32.5 * 256.0) as i64));
    assert!((w.z - 0.5).abs() < 1e-6);
    // Perspective divide: the same point at w = 2.
    let w2 = to_window([1.0, -1.0, 1.0, 2.0], &vp).unwrap();
    assert_eq!((w2.x, w2.y, w2.inv_w), (w.x, w.y, 0.5));
    // Negative height flips y: y_d = 1 maps to the viewport's y.
    let flip = Viewport {
        x: 0.0,
        y: 50.0,
        width: 100.0,
        height: -50.0,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    assert_eq!(to_window([0.0, 1.0, 0.0, 1.0], &flip).unwrap().y, 0);
    assert_eq!(to_window([0.0, -1.0, 0.0, 1.0], &flip).unwrap().y, 50 * 256);
    // Rounds to the nearest 1/256 pixel.
    let unit = Viewport::new(0.0, 0.0, 2.0, 2.0);
    let x = |xd: f32| to_window([xd, 0.0, 0.0, 1.0], &unit).unwrap().x;
    assert_eq!(x(0.3 / 256.0), 256);
    assert_eq!(x(0.7 / 256.0), 257);
    assert!(to_window([0.0, 0.0, 0.0, 0.0], &unit).is_err());
    assert!(to_window([f32::NAN, 0.0, 0.0, 1.0], &unit).is_err());
    assert!(to_window([0.0, 0.0, 0.0, 1.0], &Viewport::new(0.0, 0.0, 0.0, 1.0)).is_err());
}

fn check_clipped(poly_in: [[f32; 4]; 3], opts: ClipOptions) -> usize {
    let p = clip_triangle(poly_in, opts);
    for v in p.vertices() {
        let [x, y, z, w] = v.pos;
        let eps = 1e-5 * w.abs().max(1.0);
        assert!(w > 0.0);
        assert!(
            x >= -w - eps && x <= w + eps && y >= -w - eps && y <= w + eps,
            "{v:?}"
        );
        if !opts.depth_clamp {
            assert!(z >= -eps && z <= w + eps, "{v:?}");
        }
        assert!((v.weights.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        for (c, pc) in v.pos.iter().enumerate() {
            let recon: f32 = (0..3).map(|i| v.weights[i] * poly_in[i][c]).sum();
            assert!((recon - pc).abs() < 1e-4, "weights reproduce the position");
        }
    }
    p.vertices().len()
}

#[test]
fn clipping_cases() {
    let opts = ClipOptions::default();
    let clamp = ClipOptions { depth_clamp: true };
    // Fully inside: unchanged.
    let inside = [
        [0.0, 0.0, 0.5, 1.0],
        [0.5, 0.0, 0.5, 1.0],
        [0.0, 0.5, 0.5, 1.0],
    ];
    let p = clip_triangle(inside, opts);
    assert_eq!(p.vertices().len(), 3);
    assert_eq!(p.vertices()[1].pos, inside[1]);
    assert_eq!(p.vertices()[2].weights, [0.0, 0.0, 1.0]);
    // Fully outside one plane, and entirely behind the eye.
    assert!(clip_triangle(
        [
            [2.0, 0.0, 0.5, 1.0],
            [3.0, 0.0, 0.5, 1.0],
            [2.0, 0.5, 0.5, 1.0]
        ],
        opts
    )
    .is_empty());
    assert!(clip_triangle(
        [
            [0.0, 0.0, -2.0, -1.0],
            [0.1, 0.0, -2.0, -1.0],
            [0.0, 0.1, -2.0, -1.0]
        ],
        opts
    )
    .is_empty());
    // Crossing the near plane: one vertex has z < 0, so the triangle becomes a quad.
    let near = [
        [0.0, 0.0, -1.0, 1.0],
        [0.5, 0.0, 0.5, 1.0],
        [0.0, 0.5, 0.5, 1.0],
    ];
    assert_eq!(check_clipped(near, opts), 4);
    let p = clip_triangle(near, opts);
    // Edge 2 -> 0 meets z = 0 at 2/3 of the way from vertex 2 (z 0.5 -> -1).
    let hit = p
        .vertices()
        .iter()
        .find(|v| v.weights[1] == 0.0 && v.weights[0] > 0.0)
        .unwrap();
    assert!((hit.weights[0] - 1.0 / 3.0).abs() < 1e-6 && hit.pos[2].abs() < 1e-6);
    // Same triangle under depth clamp is not clipped.
    assert_eq!(clip_triangle(near, clamp).vertices().len(), 3);
    // A vertex behind the eye (w < 0) that crosses the x/y planes.
    let behind = [
        [0.0, 0.0, 0.5, 1.0],
        [0.5, 0.2, 0.5, 1.0],
        [1.0, 1.0, -0.5, -0.5],
    ];
    assert!(check_clipped(behind, opts) >= 3);
    assert!(check_clipped(behind, clamp) >= 3);
    // Crossing every side plane: a large triangle around the volume.
    let big = [
        [-10.0, -10.0, 0.5, 1.0],
        [10.0, -10.0, 0.5, 1.0],
        [0.0, 10.0, 0.5, 1.0],
    ];
    assert!(check_clipped(big, opts) >= 4);
    // Fan triangulation keeps the winding.
    let p = clip_triangle(big, opts);
    let area = |t: &[super::clip::ClipVertex; 3]| {
        let q = t.map(|v| (v.pos[0] / v.pos[3], v.pos[1] / v.pos[3]));
        (q[1].0 - q[0].0) * (q[2].1 - q[0].1) - (q[1].1 - q[0].1) * (q[2].0 - q[0].0)
    };
    assert!(p.triangles().all(|t| area(&t) > 0.0));
    assert_eq!(p.triangles().count(), p.vertices().len() - 2);
    // Far plane clipped unless clamping.
    let far = [
        [0.0, 0.0, 2.0, 1.0],
        [0.5, 0.0, 2.0, 1.0],
        [0.0, 0.5, 2.0, 1.0],
    ];
    assert!(clip_triangle(far, opts).is_empty());
    assert_eq!(clip_triangle(far, clamp).vertices().len(), 3);
    // Noperspective weights: halfway in clip space between w = 1 and w = 3 is 1/4 of the way
    // in window space.
    let v = super::clip::ClipVertex {
        pos: [0.0, 0.0, 0.0, 2.0],
        weights: [0.5, 0.5, 0.0],
    };
    assert_eq!(v.screen_weights([1.0, 3.0, 1.0]), [0.25, 0.75, 0.0]);
}

#[test]
fn clipping_lines_and_points() {
    let opts = ClipOptions::default();
    let l = clip_line([[-2.0, 0.0, 0.5, 1.0], [0.0, 0.0, 0.5, 1.0]], opts).unwrap();
    assert_eq!(l[0].pos[0], -1.0);
    assert_eq!(l[0].weights[..2], [0.5, 0.5]);
    assert_eq!(l[1].pos, [0.0, 0.0, 0.5, 1.0]);
    assert!(clip_line([[2.0, 0.0, 0.5, 1.0], [3.0, 0.0, 0.5, 1.0]], opts).is_none());
    assert!(point_visible([0.0, 0.0, 0.5, 1.0], opts));
    // The origin at w = 0 satisfies every view-volume inequality but cannot be divided.
    assert!(!point_visible([0.0, 0.0, 0.0, 0.0], opts));
    let through_origin = [
        [0.0, 0.0, 0.0, 0.0],
        [0.5, 0.0, 0.5, 1.0],
        [0.0, 0.5, 0.5, 1.0],
    ];
    assert!(clip_triangle(through_origin, opts)
        .vertices()
        .iter()
        .all(|v| v.pos[3] > 0.0));
    assert!(!point_visible([0.0, 0.0, 1.5, 1.0], opts));
    assert!(point_visible(
        [0.0, 0.0, 1.5, 1.0],
        ClipOptions { depth_clamp: true }
    ));
}

#[test]
fn clipped_shared_edge_stays_watertight() {
    // Two triangles sharing an edge that crosses the near plane, clipped, mapped and
    // rasterized: no sample is covered twice and none in the quad's interior is missed.
    let vp = Viewport::new(0.0, 0.0, 64.0, 64.0);
    let q = [
        [-0.8, -0.8, -0.5, 1.0],
        [0.8, -0.7, 0.5, 1.0],
        [0.7, 0.9, 0.9, 1.0],
        [-0.9, 0.8, 0.2, 1.0],
    ];
    let mut counts = vec![0u32; 64 * 64];
    let mut any = 0;
    for tri in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
        let poly = clip_triangle(tri, ClipOptions::default());
        for t in poly.triangles() {
            let w = t.map(|v| to_window(v.pos, &vp).unwrap());
            if let Some(st) = setup(w, &NONE) {
                st.rasterize(SampleCount::One, &Rect::new(0, 0, 64, 64), |x, y, _| {
                    counts[(y * 64 + x) as usize] += 1;
                    any += 1;
                });
            }
        }
    }
    assert!(any > 500);
    assert!(counts.iter().all(|c| *c <= 1));
}

#[test]
fn binning_agrees_with_coverage() {
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    let (w, h) = (200u32, 150u32);
    let scissor = Rect::new(3, 5, 190, 140);
    for samples in [SampleCount::One, SampleCount::Four] {
        let mut exact = TileBins::new(w, h).unwrap();
        let mut bbox = TileBins::new(w, h).unwrap();
        let mut tris = Vec::new();
        for i in 0..300u32 {
            let cx = coord(&mut rng, 220) - 10.0;
            let cy = coord(&mut rng, 170) - 10.0;
            let size = if i % 10 == 0 { 120 } else { 20 };
            let v: [WindowVertex; 3] = core::array::from_fn(|_| {
                wv(cx + coord(&mut rng, size), cy + coord(&mut rng, size))
            });
            let Some(t) = setup(v, &NONE) else { continue };
            let n_exact = exact.push_triangle(i, &t, samples, &scissor, BinMode::Exact);
            let n_bbox = bbox.push_triangle(i, &t, samples, &scissor, BinMode::BoundingBox);
            assert!(n_exact <= n_bbox);
            tris.push((i, t));
        }
        for ty in 0..exact.tiles_y {
            for tx in 0..exact.tiles_x {
                let tile = exact.tile_rect(tx, ty);
                let listed = exact.list(tx, ty);
                assert!(listed.windows(2).all(|p| p[0] < p[1]), "submission order");
                for (i, t) in &tris {
                    // Brute force: does it cover a sample of this tile inside the scissor?
                    let mut covers = false;
                    for y in tile.y..tile.y_end() {
                        for x in tile.x..tile.x_end() {
                            covers |= scissor.contains(x, y) && t.sample_mask(x, y, samples) != 0;
                        }
                    }
                    assert_eq!(listed.contains(i), covers, "tile ({tx},{ty}) prim {i}");
                    if covers {
                        assert!(bbox.list(tx, ty).contains(i));
                    }
                }
            }
        }
    }
    assert!(!touches(
        &setup([wv(0.0, 0.0), wv(1.0, 0.0), wv(0.0, 1.0)], &NONE).unwrap(),
        SampleCount::One,
        &Rect::new(0, 0, 0, 0)
    ));
    assert_eq!(
        TvbCostModel {
            bytes_per_primitive: 40,
            bytes_per_tile_entry: 8
        }
        .primitive_bytes(3),
        64
    );
    assert!(TileBins::new(0, 10).is_err());
    assert_eq!(TILE_SIZE, 32);
}

#[test]
fn thin_triangle_near_tile_corner_is_not_binned_exactly() {
    // A sliver whose bounding box spans four tiles but whose samples all lie in tile (0, 0).
    let t = setup([wv(20.0, 20.0), wv(40.0, 31.0), wv(31.0, 40.0)], &NONE).unwrap();
    let mut bins = TileBins::new(64, 64).unwrap();
    bins.push_triangle(
        7,
        &t,
        SampleCount::One,
        &Rect::new(0, 0, 64, 64),
        BinMode::Exact,
    );
    let mut by_tile = [false; 4];
    t.rasterize(SampleCount::One, &Rect::new(0, 0, 64, 64), |x, y, _| {
        by_tile[((y / 32) * 2 + x / 32) as usize] = true
    });
    for ty in 0..2 {
        for tx in 0..2 {
            assert_eq!(
                bins.list(tx, ty).contains(&7),
                by_tile[(ty * 2 + tx) as usize]
            );
        }
    }
}

#[test]
fn nonstrict_lines_cover_one_pixel_per_major_column() {
    // Horizontal line through pixel centres: the start column is owned, the end is not.
    let l = Line::setup([wv(2.5, 10.5), wv(8.5, 10.5)], 1.0)
        .unwrap()
        .unwrap();
    let mut v = Vec::new();
    l.rasterize(SampleCount::One, &BIG, |x, y, _| v.push((x, y)));
    assert_eq!(v, (2..8).map(|x| (x, 10)).collect::<Vec<_>>());
    let mut rng = Rng(0x5eed_5eed_5eed_5eed);
    for _ in 0..200 {
        let a = (coord(&mut rng, 30) + 2.0, coord(&mut rng, 30) + 2.0);
        let b = (coord(&mut rng, 30) + 2.0, coord(&mut rng, 30) + 2.0);
        let x_major = (b.0 - a.0).abs() >= (b.1 - a.1).abs();
        let Some(l) = Line::setup([wv(a.0, a.1), wv(b.0, b.1)], 1.0).unwrap() else {
            continue;
        };
        let mut per_major = std::collections::HashMap::new();
        l.rasterize(SampleCount::One, &BIG, |x, y, _| {
            *per_major.entry(if x_major { x } else { y }).or_insert(0) += 1
        });
        // Centres c + 0.5 in [min, max) of the major coordinate each get exactly one pixel.
        let (lo, hi) = if x_major {
            (a.0.min(b.0), a.0.max(b.0))
        } else {
            (a.1.min(b.1), a.1.max(b.1))
        };
        for c in 0..40u32 {
            let centre = c as f64 + 0.5;
            let n = per_major.get(&c).copied().unwrap_or(0);
            if centre > lo && centre < hi {
                assert_eq!(n, 1, "line {a:?} -> {b:?} column {c}");
            } else if centre < lo || centre > hi {
                assert_eq!(n, 0, "line {a:?} -> {b:?} column {c}");
            }
        }
        let (cx, cy) = (
            ((a.0 + b.0) / 2.0 * 256.0) as i64,
            ((a.1 + b.1) / 2.0 * 256.0) as i64,
        );
        assert!((l.t_at(cx, cy) - 0.5).abs() < 0.01);
    }
    assert!(Line::setup([wv(1.0, 1.0), wv(1.0, 1.0)], 1.0)
        .unwrap()
        .is_none());
    assert_eq!(clamp_width(3.0, [1.0, 1.0]), 1.0);
}

#[test]
fn points_are_squares_of_the_clamped_size() {
    let p = Point::setup(wv(5.5, 5.5), clamp_size(7.0, [1.0, 1.0])).unwrap();
    let mut v = Vec::new();
    p.rasterize(SampleCount::One, &BIG, |x, y, _| v.push((x, y)));
    assert_eq!(v, vec![(5, 5)]);
    // Size 2 centred on a pixel corner: 2x2 pixels; with 4 samples all samples of them.
    let p = Point::setup(wv(5.0, 5.0), clamp_size(2.0, [1.0, 64.0])).unwrap();
    let mut v = Vec::new();
    p.rasterize(SampleCount::Four, &BIG, |x, y, m| v.push((x, y, m)));
    assert_eq!(v, vec![(4, 4, 0xf), (5, 4, 0xf), (4, 5, 0xf), (5, 5, 0xf)]);
    // Size 1 centred on a pixel corner: the sample at (5.5, 5.5) lies on the right and
    // bottom sides of a point at (5, 5) and is not covered; that at (4.5, 4.5) is on the
    // left and top sides and is.
    let p = Point::setup(wv(5.0, 5.0), 1.0).unwrap();
    let mut v = Vec::new();
    p.rasterize(SampleCount::One, &BIG, |x, y, _| v.push((x, y)));
    assert_eq!(v, vec![(4, 4)]);
    assert_eq!(p.coord(5 * 256 - 128, 5 * 256 - 128), [0.0, 0.0]);
    assert!(Point::setup(wv(0.0, 0.0), f32::NAN).is_err());
}

#[test]
#[ignore]
fn perf_small_triangles() {
    let mut rng = Rng(42);
    let n = 100_000;
    let tris: Vec<[WindowVertex; 3]> = (0..n)
        .map(|_| {
            let cx = rng.below(1900) as f64 + rng.below(256) as f64 / 256.0;
            let cy = rng.below(1060) as f64 + rng.below(256) as f64 / 256.0;
            core::array::from_fn(|_| {
                wv(
                    cx + rng.below(2048) as f64 / 256.0,
                    cy + rng.below(2048) as f64 / 256.0,
                )
            })
        })
        .collect();
    let sc = Rect::new(0, 0, 1920, 1080);
    let start = std::time::Instant::now();
    let mut bins = TileBins::new(1920, 1080).unwrap();
    let mut samples = 0u64;
    for (i, v) in tris.iter().enumerate() {
        if let Some(t) = setup(*v, &NONE) {
            bins.push_triangle(i as u32, &t, SampleCount::Four, &sc, BinMode::Exact);
            t.rasterize(SampleCount::Four, &sc, |_, _, m| {
                samples += m.count_ones() as u64
            });
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} triangles (setup + exact binning + 4x coverage): {:.0} triangles/s, {samples} samples",
        n as f64 / secs
    );
}

#[test]
fn varyings_through_clipping_match_the_unclipped_triangle() {
    // v1 lies beyond x = w; the clipped fan must interpolate like the original triangle.
    let vp = Viewport::new(0.0, 0.0, 64.0, 64.0);
    let orig = [
        [-0.5f32, -0.5, 0.5, 1.0],
        [3.0, -0.4, 1.0, 2.0],
        [0.0, 1.6, 2.0, 4.0],
    ];
    let input_w = orig.map(|p| p[3]);
    // Reference: unsnapped window positions of the original vertices, in f64.
    let win = orig.map(|p| {
        (
            32.0 * (p[0] / p[3]) as f64 + 32.0,
            32.0 * (p[1] / p[3]) as f64 + 32.0,
        )
    });
    let cross = |a: (f64, f64), b: (f64, f64), p: (f64, f64)| {
        (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
    };
    let area = cross(win[0], win[1], win[2]);
    let poly = clip_triangle(orig, ClipOptions::default());
    assert!(poly.vertices().len() >= 4);
    let mut checked = 0;
    for sub in poly.triangles() {
        let w = sub.map(|v| to_window(v.pos, &vp).unwrap());
        let Some(t) = setup(w, &NONE) else { continue };
        t.rasterize(SampleCount::One, &Rect::new(0, 0, 64, 64), |x, y, _| {
            let (cx, cy) = pixel_centre(x, y);
            let b = t.barycentrics(cx, cy);
            let p = (x as f64 + 0.5, y as f64 + 0.5);
            let lambda = [
                cross(win[1], win[2], p) / area,
                cross(win[2], win[0], p) / area,
                cross(win[0], win[1], p) / area,
            ];
            let denom: f64 = (0..3).map(|i| lambda[i] / input_w[i] as f64).sum();
            for i in 0..3 {
                let persp: f64 = (0..3)
                    .map(|k| b.perspective[k] as f64 * sub[k].weights[i] as f64)
                    .sum();
                let lin: f64 = (0..3)
                    .map(|k| b.linear[k] as f64 * sub[k].screen_weights(input_w)[i] as f64)
                    .sum();
                let persp_ref = lambda[i] / input_w[i] as f64 / denom;
                assert!(
                    (persp - persp_ref).abs() < 2e-3,
                    "pixel ({x},{y}) vertex {i}: {persp} vs {persp_ref}"
                );
                assert!(
                    (lin - lambda[i]).abs() < 2e-3,
                    "pixel ({x},{y}) vertex {i}: {lin} vs {}",
                    lambda[i]
                );
            }
            checked += 1;
        });
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn whole_pixel_lines_cover_every_sample_of_the_pixels_their_centres_choose() {
    // A shallow line: per-sample coverage gives partial masks, whole-pixel coverage gives
    // all four samples of exactly the pixels single-sample rasterization picks.
    let l = Line::setup([wv(2.5, 10.2), wv(20.5, 13.9)], 1.0)
        .unwrap()
        .unwrap();
    let mut single = Vec::new();
    l.rasterize(SampleCount::One, &BIG, |x, y, _| single.push((x, y)));
    let mut partial = 0;
    l.rasterize(SampleCount::Four, &BIG, |_, _, m| {
        partial += (m != 0b1111) as u32
    });
    assert!(
        partial > 0,
        "per-sample coverage of a shallow line has partial pixels"
    );
    let whole = l.with_whole_pixels(true);
    let mut covered = Vec::new();
    whole.rasterize(SampleCount::Four, &BIG, |x, y, m| {
        assert_eq!(m, 0b1111, "pixel ({x}, {y})");
        covered.push((x, y));
    });
    assert_eq!(covered, single);
}

fn user(planes: u16, d: [[f32; 2]; 3]) -> UserClip {
    let mut u = UserClip {
        planes,
        ..UserClip::NONE
    };
    for (i, v) in d.iter().enumerate() {
        u.distances[i][..2].copy_from_slice(v);
    }
    u
}

#[test]
fn user_planes_cut_triangles_where_the_distance_crosses_zero() {
    let pos = [
        [-0.5, -0.5, 0.5, 1.0],
        [0.5, -0.5, 0.5, 1.0],
        [-0.5, 0.5, 0.5, 1.0],
    ];
    let opts = ClipOptions::default();
    // Plane 0: distance = -x, so the part with x <= 0 survives.
    let u = user(0b1, [[0.5, 0.0], [-0.5, 0.0], [0.5, 0.0]]);
    let poly = clip_triangle_user(pos, opts, &u);
    assert!(!poly.is_empty());
    for v in poly.vertices() {
        assert!(v.pos[0] <= 1e-6, "vertex {v:?} on the negative side");
        // The distance the weights give is what the plane test used.
        let d: f32 = (0..3).map(|i| v.weights[i] * u.distances[i][0]).sum();
        assert!(d >= -1e-6);
    }
    assert_eq!(poly.vertices().len(), 4);
    // Disabled planes are ignored whatever their distances say.
    let off = user(0b10, [[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0]]);
    assert_eq!(clip_triangle_user(pos, opts, &off).vertices().len(), 3);
    // Every vertex outside one enabled plane: nothing left.
    let out = user(0b11, [[1.0, -1.0], [2.0, -0.5], [0.0, -2.0]]);
    assert!(clip_triangle_user(pos, opts, &out).is_empty());
    // Zero is inside.
    let zero = user(0b1, [[0.0, 0.0]; 3]);
    assert_eq!(clip_triangle_user(pos, opts, &zero).vertices().len(), 3);
    assert_eq!(clip_triangle(pos, opts).vertices().len(), 3);
}

#[test]
fn user_planes_cut_lines_and_drop_points() {
    let pos = [[-0.5, 0.0, 0.5, 1.0], [0.5, 0.0, 0.5, 1.0]];
    let opts = ClipOptions::default();
    let u = user(0b1, [[1.0, 0.0], [-1.0, 0.0], [0.0, 0.0]]);
    let [a, b] = clip_line_user(pos, opts, &u).expect("half the line is inside");
    assert_eq!(a.pos, pos[0]);
    assert!((b.pos[0] - 0.0).abs() < 1e-6 && (b.weights[1] - 0.5).abs() < 1e-6);
    assert!(clip_line(pos, opts).is_some());
    let gone = user(0b1, [[-1.0, 0.0], [-0.1, 0.0], [0.0, 0.0]]);
    assert!(clip_line_user(pos, opts, &gone).is_none());
    assert!(point_visible_user(pos[0], opts, &u));
    assert!(!point_visible_user(pos[0], opts, &gone));
    assert!(point_visible(pos[0], opts));
}

/// The shortcut for triangles inside every plane gives what clipping gives, and is taken
/// only where clipping leaves the triangle whole.
#[test]
fn inside_triangles_clip_to_themselves() {
    let mut rng = Rng(0x1234_5678);
    let mut inside = 0;
    for case in 0..4000 {
        // Coordinates mostly within w, sometimes beyond it or behind the eye.
        let mut coord = |w: f32| (rng.below(2400) as f32 / 1000.0 - 1.2) * w;
        let pos: [[f32; 4]; 3] = std::array::from_fn(|_| {
            let w = 0.25 + (case % 7) as f32 * 0.5;
            [coord(w), coord(w), coord(w).abs() * 0.5, w]
        });
        let opts = ClipOptions {
            depth_clamp: case % 3 == 0,
        };
        let planes = if case % 2 == 0 { 0b101 } else { 0 };
        let u = user(planes, std::array::from_fn(|_| [coord(1.0), coord(1.0)]));
        let poly = clip_triangle_user(pos, opts, &u);
        let whole = poly.triangles().collect::<Vec<_>>() == vec![unclipped(pos)];
        if triangle_inside(&pos, opts, &u) {
            inside += 1;
            assert!(whole, "case {case}: {pos:?}");
        } else {
            // A vertex outside a plane is cut away.
            assert!(!whole, "case {case}: {pos:?}");
        }
    }
    assert!((500..3500).contains(&inside), "{inside} of 4000 inside");
}
