//! From assembled primitives with shaded vertices to primitives the tiler can bin: clipping,
//! the PPP viewport transform, facing and culling, setup of triangles, lines and points, and
//! their coefficient planes.

use super::assembly::{AssembledPrimitive, Shape};
use super::planes::{self, Bindings, Frame, Mix, PlaneInputs, Planes};
use super::vertex::ShadedVertices;
use crate::raster::clip::{
    clip_line_user, clip_triangle_user, point_visible_user, triangle_inside, unclipped,
    ClipOptions, ClipVertex, UserClip,
};
use crate::raster::coverage::SampleCount;
use crate::raster::line::Line;
use crate::raster::point::Point;
use crate::raster::setup::{CullMode, FrontFace, SetupState, Triangle};
use crate::raster::viewport::WindowVertex;
use crate::raster::{RasterError, Rect, SUBPIXEL_ONE};
use crate::Fault;
use hw::g13::control::ppp::{PolygonMode, Viewport as PppViewport};
use hw::g13::uvs;

/// The rasterizable shape of a primitive. A line (two triangles) is boxed: binned
/// primitives are moved from setup into the pass's list one at a time, on the one thread
/// that bins them, and every primitive would otherwise be as large as a line. Triangles,
/// the common case, stay inline (a box would allocate per primitive); points are smaller.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Geometry {
    Triangle(Triangle),
    Line(Box<Line>),
    Point(Point),
}

impl Geometry {
    /// Calls `f(x, y, covered samples)` for the pixels of `area` the primitive touches.
    pub fn rasterize(&self, samples: SampleCount, area: &Rect, f: impl FnMut(u32, u32, u32)) {
        match self {
            Geometry::Triangle(t) => t.rasterize(samples, area, f),
            Geometry::Line(l) => l.rasterize(samples, area, f),
            Geometry::Point(p) => p.rasterize(samples, area, f),
        }
    }

    /// [`Geometry::depth`] at the point `offset` (in subpixels) into each pixel of `pixels`
    /// (x, y, ...), into `out`.
    pub fn pixel_depths(&self, pixels: &[(u32, u32, u32)], offset: (i64, i64), out: &mut [f32]) {
        match self {
            Geometry::Triangle(t) => t.pixel_depths(pixels, offset, out),
            _ => {
                for (d, &(x, y, _)) in out.iter_mut().zip(pixels) {
                    let at = (
                        x as i64 * SUBPIXEL_ONE + offset.0,
                        y as i64 * SUBPIXEL_ONE + offset.1,
                    );
                    *d = self.depth(at.0, at.1);
                }
            }
        }
    }

    /// Window depth at subpixel point p, before bias and clamping.
    pub fn depth(&self, px: i64, py: i64) -> f32 {
        match self {
            Geometry::Triangle(t) => t.depth(px, py, None),
            Geometry::Line(l) => l.depth(px, py),
            Geometry::Point(p) => p.centre.z,
        }
    }
}

/// A primitive ready for binning and shading.
#[derive(Debug, Clone)]
pub struct RasterPrim {
    /// Index of the draw's fragment state.
    pub state: u32,
    pub geom: Geometry,
    pub backfacing: bool,
    pub planes: Planes,
    /// Largest depth slope (per pixel) for depth bias.
    pub depth_slope: f32,
    /// Largest depth magnitude at the primitive's vertices, which sets the depth bias unit of
    /// float depth formats.
    pub depth_max: f32,
}

/// The draw state primitive processing needs.
pub struct DrawSetup<'a> {
    pub state: u32,
    pub viewport: PppViewport,
    pub clip: ClipOptions,
    /// User clip planes the clipper tests (Output Select `clip_distance_planes`).
    pub clip_planes: u16,
    pub setup: SetupState,
    pub point_size: bool,
    pub line_width: f32,
    /// Lines cover whole pixels: every sample of a pixel whose centre they cover (the Cull
    /// word's `primitive msaa`, which Vulkan's Bresenham line mode sets).
    pub whole_pixel_lines: bool,
    /// How triangles are rasterized (Fragment Face `polygon mode`).
    pub polygon_mode: PolygonMode,
    pub bindings: Option<&'a Bindings>,
}

fn raster_fault(e: RasterError) -> Fault {
    Fault::BadControlWord {
        va: 0,
        reason: format!("primitive: {e}"),
    }
}

fn f(w: u32) -> f32 {
    f32::from_bits(w)
}

pub(super) fn position(r: &[u32]) -> [f32; 4] {
    [f(r[0]), f(r[1]), f(r[2]), f(r[3])]
}

impl DrawSetup<'_> {
    pub(super) fn window(&self, p: [f32; 4]) -> Result<WindowVertex, Fault> {
        let inv_w = 1.0 / p[3];
        let vp = &self.viewport;
        let x = f64::from(vp.translate_x) + f64::from(vp.scale_x) * f64::from(p[0] * inv_w);
        let y = f64::from(vp.translate_y) + f64::from(vp.scale_y) * f64::from(p[1] * inv_w);
        let z = vp.translate_z + vp.scale_z * (p[2] * inv_w);
        WindowVertex::from_pixels(x, y, z, inv_w).map_err(raster_fault)
    }

    /// The user clip distances of up to three vertex records (the group at the end of each).
    pub(super) fn user_clip(&self, recs: &[&[u32]]) -> Result<UserClip, Fault> {
        let mut u = UserClip {
            planes: self.clip_planes,
            ..UserClip::NONE
        };
        if self.clip_planes == 0 {
            return Ok(u);
        }
        for (i, r) in recs.iter().take(3).enumerate() {
            let base = uvs::clip_distance_base(r.len(), self.clip_planes).ok_or_else(|| {
                Fault::BadControlWord {
                    va: 0,
                    reason: "UVS record too short for its clip distances".into(),
                }
            })?;
            let n = uvs::clip_distance_words(self.clip_planes);
            for (k, w) in r[base..base + n].iter().enumerate() {
                u.distances[i][k] = f(*w);
            }
        }
        Ok(u)
    }

    fn planes(&self, inp: &PlaneInputs) -> Result<Planes, Fault> {
        match self.bindings {
            Some(b) => planes::build(b, inp),
            None => Ok(Planes::new()),
        }
    }

    /// Clips and sets up one assembled primitive, appending what remains to `out`.
    pub fn process(
        &self,
        p: &AssembledPrimitive,
        shaded: &ShadedVertices,
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let vs = p.vertices();
        let mut recs: [&[u32]; 3] = [&[]; 3];
        for (i, r) in recs.iter_mut().enumerate() {
            *r = shaded.record(vs[i.min(vs.len() - 1)], p.instance)?;
        }
        self.process_records(p, recs, out)
    }

    /// [`DrawSetup::process`] with the records of the primitive's vertices already found
    /// (the last repeated for points and lines).
    pub fn process_records(
        &self,
        p: &AssembledPrimitive,
        recs: [&[u32]; 3],
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        if recs[0].len() < 4 {
            return Err(Fault::BadControlWord {
                va: 0,
                reason: "UVS record shorter than a position".into(),
            });
        }
        match p.shape {
            Shape::Triangle if self.polygon_mode != PolygonMode::Fill => {
                self.unfilled_triangle(p, recs, out)
            }
            Shape::Triangle => self.triangle(p, recs, out),
            Shape::Line => self.line(p, [recs[0], recs[1]], recs, false, out),
            Shape::Point => self.point(p, recs[0], recs, out),
        }
    }

    fn triangle(
        &self,
        p: &AssembledPrimitive,
        recs: [&[u32]; 3],
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let pos = recs.map(position);
        let user = self.user_clip(&recs)?;
        if triangle_inside(&pos, self.clip, &user) {
            return self.clipped_triangle(p, recs, pos, unclipped(pos), true, out);
        }
        let poly = clip_triangle_user(pos, self.clip, &user);
        for tri in poly.triangles() {
            self.clipped_triangle(p, recs, pos, tri, false, out)?;
        }
        Ok(())
    }

    /// Sets up `tri`, one triangle of what clipping the primitive at `pos` left; `whole` when
    /// it is the primitive itself, whose vertices' words are the records' own.
    fn clipped_triangle(
        &self,
        p: &AssembledPrimitive,
        recs: [&[u32]; 3],
        pos: [[f32; 4]; 3],
        tri: [ClipVertex; 3],
        whole: bool,
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let input_w = pos.map(|q| q[3]);
        let linear = self.bindings.is_some_and(|b| b.uses_linear());
        let win = [
            self.window(tri[0].pos)?,
            self.window(tri[1].pos)?,
            self.window(tri[2].pos)?,
        ];
        let Some(t) = Triangle::setup(win, &self.setup).map_err(raster_fault)? else {
            return Ok(());
        };
        let persp = Mix {
            recs,
            weights: (!whole).then(|| tri.map(|v| v.weights)),
        };
        // Without linear varyings the linear inputs are never read.
        let lin = if linear && !whole {
            Mix {
                recs,
                weights: Some(tri.map(|v| v.screen_weights(input_w))),
            }
        } else {
            persp
        };
        let frame = Frame::Triangle {
            x: win.map(|v| v.x_pixels()),
            y: win.map(|v| v.y_pixels()),
        };
        let z = win.map(|v| v.z);
        let zp = frame.fit(z.map(f64::from));
        let inp = PlaneInputs {
            frame,
            z,
            inv_w: win.map(|v| v.inv_w),
            persp,
            linear: lin,
            flat: p.flat_records(recs),
            primitive_id: p.primitive_id,
        };
        let planes = self.planes(&inp)?;
        out.push(RasterPrim {
            state: self.state,
            backfacing: !t.front_facing,
            planes,
            depth_slope: zp.a.abs().max(zp.b.abs()),
            depth_max: z.iter().fold(0.0f32, |m, z| m.max(z.abs())),
            geom: Geometry::Triangle(t),
        });
        Ok(())
    }

    /// A segment between two vertex records; `flat` are the records flat shading reads.
    /// `rectangle` draws it as a rectangle (triangle edges in the Line polygon mode).
    pub(super) fn line(
        &self,
        p: &AssembledPrimitive,
        recs: [&[u32]; 2],
        flat: [&[u32]; 3],
        rectangle: bool,
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let user = self.user_clip(&recs)?;
        let Some(ends) = clip_line_user([position(recs[0]), position(recs[1])], self.clip, &user)
        else {
            return Ok(());
        };
        let win = [self.window(ends[0].pos)?, self.window(ends[1].pos)?];
        let line = if rectangle {
            super::unfilled::rectangular_line(win, self.line_width)
        } else {
            Line::setup(win, self.line_width)
                .map(|l| l.map(|l| l.with_whole_pixels(self.whole_pixel_lines)))
        };
        let Some(line) = line.map_err(raster_fault)? else {
            return Ok(());
        };
        let two = [recs[0], recs[1], recs[1]];
        let input_w = [position(recs[0])[3], position(recs[1])[3], 1.0];
        let ends = [ends[0], ends[1], ends[1]];
        let persp = Mix {
            recs: two,
            weights: Some(ends.map(|v| v.weights)),
        };
        let lin = Mix {
            recs: two,
            weights: Some(ends.map(|v| v.screen_weights(input_w))),
        };
        let (x0, y0) = (win[0].x_pixels(), win[0].y_pixels());
        let frame = Frame::Line {
            x0,
            y0,
            dx: win[1].x_pixels() - x0,
            dy: win[1].y_pixels() - y0,
        };
        let inp = PlaneInputs {
            frame,
            z: [win[0].z, win[1].z, win[1].z],
            inv_w: [win[0].inv_w, win[1].inv_w, win[1].inv_w],
            persp,
            linear: lin,
            flat,
            primitive_id: p.primitive_id,
        };
        out.push(RasterPrim {
            state: self.state,
            backfacing: false,
            planes: self.planes(&inp)?,
            depth_slope: 0.0,
            depth_max: win[0].z.abs().max(win[1].z.abs()),
            geom: Geometry::Line(Box::new(line)),
        });
        Ok(())
    }

    /// A point at one vertex record; `flat` are the records flat shading reads.
    pub(super) fn point(
        &self,
        p: &AssembledPrimitive,
        rec: &[u32],
        flat: [&[u32]; 3],
        out: &mut Vec<RasterPrim>,
    ) -> Result<(), Fault> {
        let pos = position(rec);
        if !point_visible_user(pos, self.clip, &self.user_clip(&[rec])?) {
            return Ok(());
        }
        let centre = self.window(pos)?;
        let mut size = 1.0f32;
        if self.point_size {
            size = rec.get(uvs::POINT_SIZE_WORD).map_or(1.0, |&w| f(w));
        }
        if !(size.is_finite() && size > 0.0) {
            size = 1.0;
        }
        let point = Point::setup(centre, size).map_err(raster_fault)?;
        let values = Mix {
            recs: [rec; 3],
            weights: None,
        };
        let frame = Frame::Point {
            x0: point.x0 as f64 / crate::raster::SUBPIXEL_ONE as f64,
            y0: point.y0 as f64 / crate::raster::SUBPIXEL_ONE as f64,
            size: f64::from(size),
        };
        let inp = PlaneInputs {
            frame,
            z: [centre.z; 3],
            inv_w: [centre.inv_w; 3],
            persp: values,
            linear: values,
            flat,
            primitive_id: p.primitive_id,
        };
        out.push(RasterPrim {
            state: self.state,
            backfacing: false,
            planes: self.planes(&inp)?,
            depth_slope: 0.0,
            depth_max: centre.z.abs(),
            geom: Geometry::Point(point),
        });
        Ok(())
    }
}

/// Setup state from the PPP Cull word's fields.
pub fn setup_state(cull_front: bool, cull_back: bool, front_ccw: bool) -> SetupState {
    SetupState {
        front_face: if front_ccw {
            FrontFace::CounterClockwise
        } else {
            FrontFace::Clockwise
        },
        cull_mode: match (cull_front, cull_back) {
            (false, false) => CullMode::None,
            (true, false) => CullMode::Front,
            (false, true) => CullMode::Back,
            (true, true) => CullMode::FrontAndBack,
        },
    }
}
