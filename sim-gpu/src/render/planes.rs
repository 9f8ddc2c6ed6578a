//! Coefficient registers of a primitive: the plane equations its fragment shader's `iter`
//! and `ldcf` read, built from the PPP Fragment Shader words' CF bindings
//! (docs/render-abi.md section 4).
//!
//! Planes are in framebuffer pixel coordinates: value(x, y) = a*x + b*y + c, with x, y the
//! point inside the pixel (pixel + 0.5 at its centre).

use crate::usc::Plane;
use crate::{Fault, GpuMemory};
use hw::g13::control::descriptors::{CfBinding, CfBindingHeader, CoefficientSource, ShadeModel};

/// UVS word holding clip-space W: a binding there fills the plane of 1/W.
const CLIP_W_SLOT: u32 = 3;

/// A fragment shader's CF bindings.
#[derive(Debug, Clone)]
pub struct Bindings {
    pub registers: usize,
    pub list: Vec<CfBinding>,
}

impl Bindings {
    pub fn read(mem: &dyn GpuMemory, va: u64, count: u32) -> Result<Bindings, Fault> {
        let mut b = vec![0u8; CfBindingHeader::SIZE + count as usize * CfBinding::SIZE];
        mem.read(va, &mut b)?;
        let header = CfBindingHeader::unpack(&b)?;
        let list = b[CfBindingHeader::SIZE..]
            .chunks_exact(CfBinding::SIZE)
            .map(CfBinding::unpack)
            .collect::<Result<Vec<_>, _>>()?;
        let mut registers = header.coefficient_registers as usize;
        for c in &list {
            registers = registers.max((c.base_coefficient_register + c.components) as usize);
        }
        Ok(Bindings { registers, list })
    }

    pub fn uses_linear(&self) -> bool {
        self.list
            .iter()
            .any(|c| c.shade_model == ShadeModel::Linear)
    }
}

/// How values at a primitive's vertices become a plane.
#[derive(Debug, Clone, Copy)]
pub enum Frame {
    /// A triangle with vertices at these window positions (pixels).
    Triangle { x: [f64; 3], y: [f64; 3] },
    /// A line from (x0, y0) along (dx, dy): values change along it only.
    Line { x0: f64, y0: f64, dx: f64, dy: f64 },
    /// A point: values are constant; `PointCoord` runs over the square.
    Point { x0: f64, y0: f64, size: f64 },
}

impl Frame {
    /// The plane through the vertex values (only as many as the frame has vertices are used).
    pub fn fit(&self, f: [f64; 3]) -> Plane {
        let (a, b, c) = match *self {
            Frame::Triangle { x, y } => {
                let (x1, y1) = (x[1] - x[0], y[1] - y[0]);
                let (x2, y2) = (x[2] - x[0], y[2] - y[0]);
                let det = x1 * y2 - x2 * y1;
                if det == 0.0 {
                    (0.0, 0.0, f[0])
                } else {
                    let (f1, f2) = (f[1] - f[0], f[2] - f[0]);
                    let a = (f1 * y2 - f2 * y1) / det;
                    let b = (x1 * f2 - x2 * f1) / det;
                    (a, b, f[0] - a * x[0] - b * y[0])
                }
            }
            Frame::Line { x0, y0, dx, dy } => {
                let l2 = dx * dx + dy * dy;
                if l2 == 0.0 {
                    (0.0, 0.0, f[0])
                } else {
                    let k = (f[1] - f[0]) / l2;
                    let (a, b) = (k * dx, k * dy);
                    (a, b, f[0] - a * x0 - b * y0)
                }
            }
            Frame::Point { .. } => (0.0, 0.0, f[0]),
        };
        Plane {
            a: a as f32,
            b: b as f32,
            c: c as f32,
        }
    }
}

/// UVS words at the three vertices of a (clipped) primitive, each word mixed from the
/// unclipped primitive's records by the vertex's weights when a binding reads it: a shader
/// reads a few of a record's words, and mixing all of them was a visible share of setting up
/// a small triangle.
#[derive(Clone, Copy)]
pub struct Mix<'a> {
    pub recs: [&'a [u32]; 3],
    /// Per vertex, the weight of each record; `None` when vertex `i` is record `i` itself,
    /// word for word (points, and triangles clipping left whole).
    pub weights: Option<[[f32; 3]; 3]>,
}

impl Mix<'_> {
    /// Word `slot` at vertex `v` (0 past the end of the records).
    pub fn word(&self, v: usize, slot: u32) -> f32 {
        let s = slot as usize;
        if s >= self.recs[0].len() {
            return 0.0;
        }
        match &self.weights {
            None => f32::from_bits(self.recs[v][s]),
            Some(w) => (0..3)
                .map(|i| w[v][i] * f32::from_bits(self.recs[i][s]))
                .sum(),
        }
    }
}

/// What the planes are built from: per vertex of the (clipped) primitive, its window depth,
/// 1/W, and UVS words interpolated perspective-correctly (`persp`) and linearly in screen space
/// (`linear`); and the unclipped primitive's own records for flat shading.
pub struct PlaneInputs<'a> {
    pub frame: Frame,
    pub z: [f32; 3],
    pub inv_w: [f32; 3],
    pub persp: Mix<'a>,
    pub linear: Mix<'a>,
    /// Records of the primitive's vertices in the order assembly numbers them (fewer than
    /// three for points and lines: the last one repeats).
    pub flat: [&'a [u32]; 3],
    pub primitive_id: u32,
}

fn word(r: &[u32], slot: u32) -> u32 {
    r.get(slot as usize).copied().unwrap_or_default()
}

/// A primitive's coefficient registers: inline up to the number most fragment shaders use, so
/// setting up and binning a primitive does not allocate.
pub type Planes = smallvec::SmallVec<[Plane; 8]>;

/// The coefficient registers for one primitive.
pub fn build(bindings: &Bindings, inp: &PlaneInputs) -> Result<Planes, Fault> {
    let mut out = Planes::from_elem(Plane::default(), bindings.registers);
    for c in &bindings.list {
        for k in 0..c.components {
            let slot = c.base_slot + k;
            let reg = (c.base_coefficient_register + k) as usize;
            let p = match c.source {
                CoefficientSource::Varying if slot == CLIP_W_SLOT => {
                    inp.frame.fit(inp.inv_w.map(f64::from))
                }
                CoefficientSource::Varying => match c.shade_model {
                    ShadeModel::Perspective => inp.frame.fit(std::array::from_fn(|i| {
                        f64::from(inp.persp.word(i, slot)) * f64::from(inp.inv_w[i])
                    })),
                    ShadeModel::Linear => inp
                        .frame
                        .fit(std::array::from_fn(|i| f64::from(inp.linear.word(i, slot)))),
                    ShadeModel::FlatVertex0 => flat(inp.flat[0], slot),
                    ShadeModel::FlatVertex1 => flat(inp.flat[1], slot),
                    ShadeModel::FlatVertex2 => flat(inp.flat[2], slot),
                },
                CoefficientSource::FragcoordZ => inp.frame.fit(inp.z.map(f64::from)),
                CoefficientSource::PointCoord => match inp.frame {
                    Frame::Point { x0, y0, size } => {
                        let inv = 1.0 / size;
                        if k == 0 {
                            Plane {
                                a: inv as f32,
                                b: 0.0,
                                c: (-x0 * inv) as f32,
                            }
                        } else {
                            Plane {
                                a: 0.0,
                                b: inv as f32,
                                c: (-y0 * inv) as f32,
                            }
                        }
                    }
                    // Vulkan leaves PointCoord undefined off points.
                    _ => Plane::default(),
                },
                CoefficientSource::PrimitiveId => Plane {
                    a: 0.0,
                    b: 0.0,
                    c: f32::from_bits(inp.primitive_id),
                },
                CoefficientSource::BarycentricCoord => {
                    return Err(Fault::Unimplemented(
                        "barycentric coordinate coefficient bindings",
                    ))
                }
            };
            if let Some(r) = out.get_mut(reg) {
                *r = p;
            }
        }
    }
    Ok(out)
}

/// A flat plane carries the provoking vertex's raw bits in C (integers stay exact).
fn flat(record: &[u32], slot: u32) -> Plane {
    Plane {
        a: 0.0,
        b: 0.0,
        c: f32::from_bits(word(record, slot)),
    }
}
