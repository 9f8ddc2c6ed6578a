//! Triangles drawn in the `Line` and `Point` polygon modes. Facing and culling are decided
//! on the triangle as it would be filled; what survives is then drawn as its three edges
//! (clipped as lines) or its three vertices (each kept when it lies in the view volume), with
//! the rules of line and point primitives. Every piece keeps the triangle's facing, its flat
//! shading records and its depth slope, since Vulkan applies depth bias to the fragments of
//! a polygon whatever its mode.

use super::assembly::AssembledPrimitive;
use super::planes::Frame;
use super::primitive::{position, DrawSetup, RasterPrim};
use crate::raster::clip::clip_triangle_user;
use crate::raster::line::Line;
use crate::raster::setup::{SetupState, Triangle};
use crate::raster::viewport::WindowVertex;
use crate::raster::{RasterError, SUBPIXEL_ONE};
use crate::Fault;
use hw::g13::control::ppp::PolygonMode;

fn raster_fault(e: RasterError) -> Fault {
    Fault::BadControlWord {
        va: 0,
        reason: format!("primitive: {e}"),
    }
}

impl DrawSetup<'_> {
    /// Facing, depth slope and largest depth magnitude of the triangle, or `None` when it is
    /// culled, has no area or lies outside the view volume.
    fn survivor(&self, recs: &[&[u32]; 3]) -> Result<Option<(bool, f32, f32)>, Fault> {
        let poly = clip_triangle_user(recs.map(position), self.clip, &self.user_clip(recs)?);
        // The pieces of a clipped triangle share its plane, so the first one with area
        // decides for all.
        for tri in poly.triangles() {
            let win = [
                self.window(tri[0].pos)?,
                self.window(tri[1].pos)?,
                self.window(tri[2].pos)?,
            ];
            if let Some(t) = Triangle::setup(win, &self.setup).map_err(raster_fault)? {
                let frame = Frame::Triangle {
                    x: win.map(|v| v.x_pixels()),
                    y: win.map(|v| v.y_pixels()),
                };
                let zp = frame.fit(win.map(|v| f64::from(v.z)));
                let z_max = win.iter().fold(0.0f32, |m, v| m.max(v.z.abs()));
                return Ok(Some((t.front_facing, zp.a.abs().max(zp.b.abs()), z_max)));
            }
            // A culled piece means the whole triangle is culled, but a piece with no area
            // says nothing; Triangle::setup does not tell the two apart, so look on.
        }
        Ok(None)
    }

    /// Draws one triangle in the Line or Point polygon mode, appending its pieces to `out`.
    pub(super) fn unfilled_triangle(
        &self,
        p: &AssembledPrimitive,
        recs: [&[u32]; 3],
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let Some((front_facing, slope, z_max)) = self.survivor(&recs)? else {
            return Ok(());
        };
        let start = out.len();
        match self.polygon_mode {
            PolygonMode::Line => {
                for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                    self.line(p, [recs[a], recs[b]], p.flat_records(recs), true, out)?;
                }
            }
            PolygonMode::Point => {
                for rec in recs {
                    self.point(p, rec, p.flat_records(recs), out)?;
                }
            }
            PolygonMode::Fill => {
                return Err(Fault::Unimplemented("fill mode through the unfilled path"))
            }
        }
        for piece in &mut out[start..] {
            piece.backfacing = !front_facing;
            piece.depth_slope = slope;
            piece.depth_max = z_max;
        }
        Ok(())
    }
}

/// A segment as a rectangle: its sides lie half the width away on either side, measured
/// perpendicular to it, and its ends pass through the endpoints. Triangle edges are drawn
/// this way, the way lavapipe draws every line (both are allowed while `strictLines` is
/// false); with the parallelogram rule a diagonal edge would lose the pixels whose centres
/// are within half a pixel of it across but not vertically.
pub(super) fn rectangular_line(
    ends: [WindowVertex; 2],
    width: f32,
) -> Result<Option<Line>, RasterError> {
    if !(width.is_finite() && width > 0.0) {
        return Err(RasterError::CoordinateOutOfRange(width as f64));
    }
    let (a, b) = (ends[0], ends[1]);
    let (dx, dy) = ((b.x - a.x) as f64, (b.y - a.y) as f64);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        return Ok(None);
    }
    let scale = f64::from(width) * SUBPIXEL_ONE as f64 / 2.0 / len;
    let (ox, oy) = ((-dy * scale).round() as i64, (dx * scale).round() as i64);
    let shift = |v: &WindowVertex, s: i64| WindowVertex {
        x: v.x + s * ox,
        y: v.y + s * oy,
        ..*v
    };
    let c = [shift(&a, -1), shift(&b, -1), shift(&b, 1), shift(&a, 1)];
    let state = SetupState::default();
    let (Some(t0), Some(t1)) = (
        Triangle::setup([c[0], c[1], c[2]], &state)?,
        Triangle::setup([c[0], c[2], c[3]], &state)?,
    ) else {
        return Ok(None);
    };
    Ok(Some(Line {
        ends,
        halves: [t0, t1],
        whole_pixels: false,
    }))
}
