//! Triangles in the Line and Point polygon modes (and cut by a user clip plane), checked
//! against pixel sets worked out by hand from the geometry.

use super::assembly::{assemble, AssembledPrimitive, ProvokingVertex};
use super::primitive::{setup_state, DrawSetup, RasterPrim};
use super::vertex::ShadedVertices;
use super::walker::DrawParams;
use crate::raster::clip::ClipOptions;
use crate::raster::coverage::SampleCount;
use crate::raster::Rect;
use crate::usc::FlatMemory;
use hw::g13::control::ppp::{PolygonMode, Viewport};
use hw::g13::control::vdm::Primitive;
use std::collections::BTreeSet;

const SIZE: u32 = 16;
/// Window positions (pixel centres) of the triangle: its edges are a column, a row and the
/// main diagonal. With y down its Vulkan signed area is +50, so it faces front under the
/// counter-clockwise convention.
const CORNERS: [(f32, f32); 3] = [(2.5, 2.5), (2.5, 12.5), (12.5, 12.5)];

fn triangle() -> AssembledPrimitive {
    let d = DrawParams {
        primitive: Primitive::Triangles,
        restart_enable: false,
        indices: None,
        count: 3,
        instances: 1,
        first_vertex: 0,
        base_vertex: 0,
        first_instance: 0,
        indirect: None,
    };
    let mut out = Vec::new();
    let mem = FlatMemory::new();
    assemble(&d, None, ProvokingVertex::First, &mem, &mut |p| {
        out.push(p);
        Ok(())
    })
    .expect("assembles");
    assert_eq!(out.len(), 1);
    out.remove(0)
}

/// Clip-space records (w = 1) of the corners under a viewport that maps [-1, 1] to [0, 16].
fn records() -> ShadedVertices {
    let half = SIZE as f32 / 2.0;
    let recs: Vec<Vec<u32>> = CORNERS
        .iter()
        .map(|&(x, y)| {
            [(x - half) / half, (y - half) / half, 0.5, 1.0]
                .iter()
                .map(|v| v.to_bits())
                .collect()
        })
        .collect();
    ShadedVertices::from_records(4, &recs)
}

fn draw(mode: PolygonMode, cull_front: bool, cull_back: bool) -> Vec<RasterPrim> {
    let half = SIZE as f32 / 2.0;
    let setup = DrawSetup {
        state: 0,
        viewport: Viewport {
            translate_x: half,
            scale_x: half,
            translate_y: half,
            scale_y: half,
            translate_z: 0.0,
            scale_z: 1.0,
        },
        clip: ClipOptions::default(),
        setup: setup_state(cull_front, cull_back, true),
        point_size: false,
        clip_planes: 0,
        line_width: 1.0,
        whole_pixel_lines: false,
        polygon_mode: mode,
        bindings: None,
    };
    let mut out = Vec::new();
    setup
        .process(&triangle(), &records(), &mut out)
        .expect("processes");
    out
}

fn covered(prims: &[RasterPrim]) -> BTreeSet<(u32, u32)> {
    let mut set = BTreeSet::new();
    for p in prims {
        p.geom
            .rasterize(SampleCount::One, &Rect::new(0, 0, SIZE, SIZE), |x, y, _| {
                set.insert((x, y));
            });
    }
    set
}

#[test]
fn line_mode_draws_the_three_edges() {
    let prims = draw(PolygonMode::Line, false, false);
    assert_eq!(prims.len(), 3);
    assert!(prims.iter().all(|p| !p.backfacing));
    let got = covered(&prims);
    // Away from the corners: column 2, row 12 and the diagonal x == y (the nearest other
    // pixel centres lie 1/sqrt(2) from the diagonal, beyond half the width).
    let mut want = BTreeSet::new();
    for k in 3..=11 {
        want.insert((2, k));
        want.insert((k, 12));
        want.insert((k, k));
    }
    // The corner pixels sit on segment ends, where the end rule decides.
    let corners = [(2, 2), (2, 12), (12, 12)];
    let got_inner: BTreeSet<_> = got.difference(&corners.into()).copied().collect();
    assert_eq!(got_inner, want);
    // The two edges meeting at (2, 12) both end there, yet the corner is inside one of them.
    assert!(got.contains(&(2, 12)));
}

#[test]
fn point_mode_draws_the_three_vertices() {
    let prims = draw(PolygonMode::Point, false, false);
    assert_eq!(prims.len(), 3);
    let want: BTreeSet<(u32, u32)> = [(2, 2), (2, 12), (12, 12)].into();
    assert_eq!(covered(&prims), want);
}

#[test]
fn culling_happens_before_the_mode() {
    for mode in [PolygonMode::Line, PolygonMode::Point] {
        assert!(
            draw(mode, true, false).is_empty(),
            "{mode:?}: front face culled"
        );
        assert_eq!(
            draw(mode, false, true).len(),
            3,
            "{mode:?}: back culling keeps it"
        );
    }
}

/// [`draw`] with one user clip plane whose distance, 8 - window x, ends each record (the
/// clip distance group): the part right of x = 8 is outside.
fn draw_clipped(mode: PolygonMode) -> Vec<RasterPrim> {
    let half = SIZE as f32 / 2.0;
    let recs: Vec<Vec<u32>> = CORNERS
        .iter()
        .map(|&(x, y)| {
            [(x - half) / half, (y - half) / half, 0.5, 1.0, 8.0 - x]
                .iter()
                .map(|v| v.to_bits())
                .collect()
        })
        .collect();
    let shaded = ShadedVertices::from_records(5, &recs);
    let setup = DrawSetup {
        state: 0,
        viewport: Viewport {
            translate_x: half,
            scale_x: half,
            translate_y: half,
            scale_y: half,
            translate_z: 0.0,
            scale_z: 1.0,
        },
        clip: ClipOptions::default(),
        setup: setup_state(false, false, true),
        point_size: false,
        clip_planes: 0b1,
        line_width: 1.0,
        whole_pixel_lines: false,
        polygon_mode: mode,
        bindings: None,
    };
    let mut out = Vec::new();
    setup
        .process(&triangle(), &shaded, &mut out)
        .expect("processes");
    out
}

#[test]
fn user_clip_planes_cut_filled_triangles_and_drop_points() {
    let points = covered(&draw_clipped(PolygonMode::Point));
    assert_eq!(points, [(2, 2), (2, 12)].into());
    let filled = covered(&draw_clipped(PolygonMode::Fill));
    // Pixel centres x + 0.5 < 8 of the triangle x <= y: columns 2..=7.
    let mut want = BTreeSet::new();
    for y in 2..=12u32 {
        for x in 2..=y.min(7) {
            want.insert((x, y));
        }
    }
    // Edge pixels are decided by the fill rule; compare away from the triangle's own edges.
    let inner = |s: &BTreeSet<(u32, u32)>| -> BTreeSet<(u32, u32)> {
        s.iter()
            .filter(|(x, y)| *x > 2 && *y < 12 && x != y)
            .copied()
            .collect()
    };
    assert_eq!(inner(&filled), inner(&want));
    assert!(
        filled.iter().all(|(x, _)| *x <= 7),
        "nothing right of the plane"
    );
}
