//! Clipping in homogeneous clip space against the Vulkan view volume
//! (-w <= x <= w, -w <= y <= w, 0 <= z <= w).
//!
//! Every output vertex carries weights over the primitive's input vertices, taken in clip
//! space, so varyings can be interpolated later without this module knowing about them.
//!
//! User clip planes (the vertex shader's clip distances, enabled per plane by Output Select)
//! are tested after the view volume: a point is inside plane k when its distance is >= 0,
//! and distances vary linearly in clip space, so a clipped vertex's distance is its weights
//! applied to the input vertices' distances.

use hw::g13::uvs::MAX_CLIP_DISTANCE_PLANES;

/// Smallest w kept. The view volume alone admits w = 0 at x = y = z = 0 (and, without the
/// near plane under depth clamp, along x = y = 0), where the perspective divide is undefined;
/// this extra plane removes only such slivers.
pub const MIN_W: f32 = 1.0e-20;

/// Clip-volume options from the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClipOptions {
    /// `depthClampEnable`: near and far planes are not clipped (depth is clamped per fragment
    /// instead).
    pub depth_clamp: bool,
}

/// The user clip planes of one primitive: which are enabled and each input vertex's
/// distances (plane k at index k).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UserClip {
    pub planes: u16,
    pub distances: [[f32; MAX_CLIP_DISTANCE_PLANES]; 3],
}

impl UserClip {
    /// No user planes.
    pub const NONE: UserClip = UserClip {
        planes: 0,
        distances: [[0.0; MAX_CLIP_DISTANCE_PLANES]; 3],
    };

    /// Distance to user plane `k` of a point with clip-space `weights` over the inputs.
    fn distance(&self, k: usize, weights: &[f32; 3]) -> f32 {
        (0..3)
            .filter(|i| weights[*i] != 0.0)
            .map(|i| weights[i] * self.distances[i][k])
            .sum()
    }
}

/// A vertex after clipping: its clip-space position and its weights over the input vertices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipVertex {
    pub pos: [f32; 4],
    /// Clip-space (perspective-correct) weights; they sum to one.
    pub weights: [f32; 3],
}

impl ClipVertex {
    /// Weights for `NoPerspective` varyings: on a clipped edge such a varying moves linearly
    /// in window space, not clip space, so each clip weight is scaled by its input vertex's w
    /// and renormalised by the output w.
    pub fn screen_weights(&self, input_w: [f32; 3]) -> [f32; 3] {
        let w = self.pos[3];
        if w == 0.0 {
            return self.weights;
        }
        [
            self.weights[0] * input_w[0] / w,
            self.weights[1] * input_w[1] / w,
            self.weights[2] * input_w[2] / w,
        ]
    }
}

/// Planes of the view volume (six and the W plane).
const VOLUME_PLANES: usize = 7;

/// Up to 3 + 7 + 16 vertices: each plane adds at most one vertex to a convex polygon.
pub const MAX_POLYGON_VERTICES: usize = 3 + VOLUME_PLANES + MAX_CLIP_DISTANCE_PLANES;

/// A convex polygon produced by clipping one triangle.
#[derive(Debug, Clone, Copy)]
pub struct Polygon {
    vertices: [ClipVertex; MAX_POLYGON_VERTICES],
    len: usize,
}

impl Polygon {
    fn empty() -> Self {
        let zero = ClipVertex {
            pos: [0.0; 4],
            weights: [0.0; 3],
        };
        Polygon {
            vertices: [zero; MAX_POLYGON_VERTICES],
            len: 0,
        }
    }

    fn push(&mut self, v: ClipVertex) {
        // A convex polygon cut by a plane gains at most one vertex, so the bound holds; the
        // guard keeps a NaN-confused plane test from writing out of range.
        if self.len < MAX_POLYGON_VERTICES {
            self.vertices[self.len] = v;
            self.len += 1;
        }
    }

    pub fn vertices(&self) -> &[ClipVertex] {
        &self.vertices[..self.len]
    }

    pub fn is_empty(&self) -> bool {
        self.len < 3
    }

    /// Fan triangulation around the first vertex, keeping the input winding.
    pub fn triangles(&self) -> impl Iterator<Item = [ClipVertex; 3]> + '_ {
        let v = self.vertices();
        (1..v.len().saturating_sub(1)).map(move |i| [v[0], v[i], v[i + 1]])
    }
}

/// Signed distances to the planes; a vertex is inside a plane when its distance is >= 0.
fn plane_distances(p: &[f32; 4], opts: ClipOptions) -> ([f32; 7], usize) {
    let [x, y, z, w] = *p;
    if opts.depth_clamp {
        ([w + x, w - x, w + y, w - y, w - MIN_W, 0.0, 0.0], 5)
    } else {
        ([w + x, w - x, w + y, w - y, z, w - z, w - MIN_W], 7)
    }
}

fn plane_distance(p: &[f32; 4], plane: usize, opts: ClipOptions) -> f32 {
    plane_distances(p, opts).0[plane]
}

/// Puts a freshly computed intersection exactly on its plane. Rounding would otherwise leave
/// it a hair outside (x/w = 1.0000001 lands beyond the viewport edge), and near w = 0 the
/// interpolated w can round to zero itself.
fn place_on_plane(pos: &mut [f32; 4], plane: usize, opts: ClipOptions) {
    let w = pos[3];
    match (plane, opts.depth_clamp) {
        (0, _) => pos[0] = -w,
        (1, _) => pos[0] = w,
        (2, _) => pos[1] = -w,
        (3, _) => pos[1] = w,
        (4, false) => pos[2] = 0.0,
        (5, false) => pos[2] = w,
        _ => {
            pos[3] = MIN_W;
            pos[0] = pos[0].clamp(-MIN_W, MIN_W);
            pos[1] = pos[1].clamp(-MIN_W, MIN_W);
            if !opts.depth_clamp {
                pos[2] = pos[2].clamp(0.0, MIN_W);
            }
        }
    }
}

/// Distance of `v` to plane `plane`: the view volume's first (`n` of them), then the
/// enabled user planes in order.
fn distance(v: &ClipVertex, plane: usize, n: usize, opts: ClipOptions, user: &UserClip) -> f32 {
    if plane < n {
        plane_distance(&v.pos, plane, opts)
    } else {
        user.distance(plane - n, &v.weights)
    }
}

/// Intersection of edge (inside, outside) with a plane. Always computed from the inside
/// vertex so that two triangles sharing the edge produce bit-identical vertices.
fn intersect(
    inside: &ClipVertex,
    d_in: f32,
    outside: &ClipVertex,
    d_out: f32,
    plane: Option<usize>,
    opts: ClipOptions,
) -> ClipVertex {
    let t = d_in / (d_in - d_out);
    let mut pos = [0.0; 4];
    for (i, p) in pos.iter_mut().enumerate() {
        *p = inside.pos[i] + t * (outside.pos[i] - inside.pos[i]);
    }
    // A user plane is not a plane of the position, so there is nothing to snap.
    if let Some(plane) = plane {
        place_on_plane(&mut pos, plane, opts);
    }
    let mut weights = [0.0; 3];
    for (i, wt) in weights.iter_mut().enumerate() {
        *wt = inside.weights[i] + t * (outside.weights[i] - inside.weights[i]);
    }
    ClipVertex { pos, weights }
}

/// Clips a triangle against the view volume; the result is empty when nothing is visible.
pub fn clip_triangle(pos: [[f32; 4]; 3], opts: ClipOptions) -> Polygon {
    clip_triangle_user(pos, opts, &UserClip::NONE)
}

/// Per vertex, the planes it lies outside (bit k: the view volume's plane k, then bit n + k:
/// enabled user plane k), and n, the number of view-volume planes.
fn outcodes(pos: &[[f32; 4]; 3], opts: ClipOptions, user: &UserClip) -> ([u32; 3], usize) {
    let mut outcodes = [0u32; 3];
    let mut n = 0;
    for (i, p) in pos.iter().enumerate() {
        let (d, planes) = plane_distances(p, opts);
        n = planes;
        for (k, dk) in d.iter().take(n).enumerate() {
            // NaN positions compare as outside every plane.
            if dk.is_nan() || *dk < 0.0 {
                outcodes[i] |= 1 << k;
            }
        }
    }
    for k in 0..MAX_CLIP_DISTANCE_PLANES {
        if user.planes & (1 << k) == 0 {
            continue;
        }
        for (i, code) in outcodes.iter_mut().enumerate() {
            let d = user.distances[i][k];
            if d.is_nan() || d < 0.0 {
                *code |= 1 << (n + k);
            }
        }
    }
    (outcodes, n)
}

/// Whether the triangle lies inside the view volume and every enabled user plane, so that
/// clipping gives it back unchanged (as [`clip_triangle_user`] would, one triangle with each
/// vertex its own input). Most triangles are: this spares them building a polygon.
pub fn triangle_inside(pos: &[[f32; 4]; 3], opts: ClipOptions, user: &UserClip) -> bool {
    outcodes(pos, opts, user).0 == [0; 3]
}

/// A triangle's vertices as the clipper outputs them unclipped: each the whole of its input.
pub fn unclipped(pos: [[f32; 4]; 3]) -> [ClipVertex; 3] {
    std::array::from_fn(|i| {
        let mut weights = [0.0; 3];
        weights[i] = 1.0;
        ClipVertex {
            pos: pos[i],
            weights,
        }
    })
}

/// Clips a triangle against the view volume and the enabled user planes.
pub fn clip_triangle_user(pos: [[f32; 4]; 3], opts: ClipOptions, user: &UserClip) -> Polygon {
    let mut poly = Polygon::empty();
    let (outcodes, n) = outcodes(&pos, opts, user);
    for v in unclipped(pos) {
        poly.push(v);
    }
    if outcodes[0] & outcodes[1] & outcodes[2] != 0 {
        return Polygon::empty();
    }
    let mask = outcodes[0] | outcodes[1] | outcodes[2];
    if mask == 0 {
        return poly;
    }
    for plane in 0..n + MAX_CLIP_DISTANCE_PLANES {
        if mask & (1 << plane) == 0 {
            continue;
        }
        let snap = (plane < n).then_some(plane);
        let mut out = Polygon::empty();
        let verts = poly.vertices();
        for i in 0..verts.len() {
            let a = &verts[i];
            let b = &verts[(i + 1) % verts.len()];
            let da = distance(a, plane, n, opts, user);
            let db = distance(b, plane, n, opts, user);
            let a_in = da >= 0.0;
            let b_in = db >= 0.0;
            if a_in {
                out.push(*a);
            }
            if a_in && !b_in {
                out.push(intersect(a, da, b, db, snap, opts));
            } else if !a_in && b_in {
                out.push(intersect(b, db, a, da, snap, opts));
            }
        }
        if out.len < 3 {
            return Polygon::empty();
        }
        poly = out;
    }
    poly
}

/// A clipped line segment: two vertices with weights over the two input vertices (the third
/// weight is zero).
pub fn clip_line(pos: [[f32; 4]; 2], opts: ClipOptions) -> Option<[ClipVertex; 2]> {
    clip_line_user(pos, opts, &UserClip::NONE)
}

/// [`clip_line`] with the enabled user planes too (the distances of vertices 0 and 1).
pub fn clip_line_user(
    pos: [[f32; 4]; 2],
    opts: ClipOptions,
    user: &UserClip,
) -> Option<[ClipVertex; 2]> {
    let (d0, n) = plane_distances(&pos[0], opts);
    let (d1, _) = plane_distances(&pos[1], opts);
    let user_pairs = (0..MAX_CLIP_DISTANCE_PLANES)
        .filter(|k| user.planes & (1 << k) != 0)
        .map(|k| (user.distances[0][k], user.distances[1][k]));
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for (a, b) in (0..n).map(|k| (d0[k], d1[k])).chain(user_pairs) {
        if a.is_nan() || b.is_nan() {
            return None;
        }
        if a < 0.0 && b < 0.0 {
            return None;
        }
        if a < 0.0 {
            t0 = t0.max(a / (a - b));
        } else if b < 0.0 {
            t1 = t1.min(a / (a - b));
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f32| {
        let mut p = [0.0; 4];
        for (i, c) in p.iter_mut().enumerate() {
            *c = pos[0][i] + t * (pos[1][i] - pos[0][i]);
        }
        ClipVertex {
            pos: p,
            weights: [1.0 - t, t, 0.0],
        }
    };
    let mut v0 = at(t0);
    let mut v1 = at(t1);
    // Unclipped endpoints keep their exact input values.
    if t0 == 0.0 {
        v0.pos = pos[0];
    }
    if t1 == 1.0 {
        v1.pos = pos[1];
    }
    Some([v0, v1])
}

/// Points are kept whole or discarded, by their vertex alone.
pub fn point_visible(pos: [f32; 4], opts: ClipOptions) -> bool {
    point_visible_user(pos, opts, &UserClip::NONE)
}

/// [`point_visible`] with the enabled user planes too (the distances of vertex 0).
pub fn point_visible_user(pos: [f32; 4], opts: ClipOptions, user: &UserClip) -> bool {
    let (d, n) = plane_distances(&pos, opts);
    d.iter().take(n).all(|v| *v >= 0.0)
        && (0..MAX_CLIP_DISTANCE_PLANES)
            .filter(|k| user.planes & (1 << k) != 0)
            .all(|k| user.distances[0][k] >= 0.0)
}
