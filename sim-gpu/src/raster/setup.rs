//! Triangle setup: facing, culling, and edge equations in exact fixed-point arithmetic.
//!
//! Window coordinates are integers in 1/256 pixel, bounded by [`super::MAX_WINDOW_COORD`], so
//! every edge product stays below 2^50 and i64 evaluation is exact: a sample on a shared edge
//! sees the same value (with opposite sign) from both triangles.

use super::viewport::WindowVertex;
use super::{RasterError, MAX_WINDOW_COORD, SUBPIXEL_ONE};

/// `VkFrontFace`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrontFace {
    #[default]
    CounterClockwise,
    Clockwise,
}

/// `VkCullModeFlags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CullMode {
    #[default]
    None,
    Front,
    Back,
    FrontAndBack,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SetupState {
    pub front_face: FrontFace,
    pub cull_mode: CullMode,
}

/// One edge a -> b of a triangle oriented so its interior is where the edge function is
/// positive. A point p is inside when `eval(p) >= bias`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub ax: i64,
    pub ay: i64,
    pub dx: i64,
    pub dy: i64,
    /// 0 for top and left edges (points exactly on them are inside), 1 otherwise. With y
    /// pointing down, a left edge has its interior towards +x (dy < 0) and a top edge is
    /// horizontal with its interior towards +y (dy == 0, dx > 0). The two triangles sharing
    /// an edge traverse it in opposite directions, so exactly one of them owns it.
    pub bias: i64,
}

impl Edge {
    fn new(a: &WindowVertex, b: &WindowVertex) -> Self {
        let dx = b.x - a.x;
        let dy = b.y - a.y;
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        Edge {
            ax: a.x,
            ay: a.y,
            dx,
            dy,
            bias: if top_left { 0 } else { 1 },
        }
    }

    /// Twice the signed area of (a, b, p), in subpixel^2 units.
    #[inline]
    pub fn eval(&self, px: i64, py: i64) -> i64 {
        self.dx * (py - self.ay) - self.dy * (px - self.ax)
    }

    /// Change of `eval` when p moves by (ox, oy).
    #[inline]
    pub fn step(&self, ox: i64, oy: i64) -> i64 {
        self.dx * oy - self.dy * ox
    }
}

/// A set-up triangle ready for coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Triangle {
    /// Vertices in submission order.
    pub verts: [WindowVertex; 3],
    /// Submission index of each oriented vertex; oriented vertex i is opposite `edges[i]`.
    pub order: [usize; 3],
    pub edges: [Edge; 3],
    /// Twice the area, in subpixel^2 units; always positive.
    pub area2: i64,
    pub front_facing: bool,
    /// Bounding box of the vertices in subpixels, inclusive.
    pub min: (i64, i64),
    pub max: (i64, i64),
}

/// Twice the Vulkan signed area `a` of the triangle as submitted
/// (a = -1/2 * sum(x_i * y_{i+1} - x_{i+1} * y_i)), in subpixel^2 units.
pub fn vulkan_area2(v: &[WindowVertex; 3]) -> i64 {
    -((v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[1].y - v[0].y) * (v[2].x - v[0].x))
}

impl Triangle {
    /// Sets up a triangle; `None` when it is culled or has zero area. Vertices outside the
    /// supported window range are an error, since the edge arithmetic would no longer be exact.
    pub fn setup(
        verts: [WindowVertex; 3],
        state: &SetupState,
    ) -> Result<Option<Triangle>, RasterError> {
        let limit = MAX_WINDOW_COORD as i64 * SUBPIXEL_ONE;
        for v in &verts {
            if v.x.abs() > limit || v.y.abs() > limit {
                return Err(RasterError::CoordinateOutOfRange(
                    v.x.abs().max(v.y.abs()) as f64 / SUBPIXEL_ONE as f64,
                ));
            }
        }
        let a = vulkan_area2(&verts);
        if a == 0 {
            return Ok(None);
        }
        let front_facing = match state.front_face {
            FrontFace::CounterClockwise => a > 0,
            FrontFace::Clockwise => a < 0,
        };
        let culled = match state.cull_mode {
            CullMode::None => false,
            CullMode::Front => front_facing,
            CullMode::Back => !front_facing,
            CullMode::FrontAndBack => true,
        };
        if culled {
            return Ok(None);
        }
        // Interior positive means the cross product (v1-v0)x(v2-v0) > 0, i.e. Vulkan a < 0.
        let order = if a < 0 { [0, 1, 2] } else { [0, 2, 1] };
        let o = [verts[order[0]], verts[order[1]], verts[order[2]]];
        let edges = [
            Edge::new(&o[1], &o[2]),
            Edge::new(&o[2], &o[0]),
            Edge::new(&o[0], &o[1]),
        ];
        let min = (
            o.iter().map(|v| v.x).min().unwrap_or(0),
            o.iter().map(|v| v.y).min().unwrap_or(0),
        );
        let max = (
            o.iter().map(|v| v.x).max().unwrap_or(0),
            o.iter().map(|v| v.y).max().unwrap_or(0),
        );
        Ok(Some(Triangle {
            verts,
            order,
            edges,
            area2: a.abs(),
            front_facing,
            min,
            max,
        }))
    }
}
