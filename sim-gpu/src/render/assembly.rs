//! Primitive assembly: turns a draw's vertex sequence into points, lines and triangles, in
//! Vulkan's order (the "Drawing Commands" chapter's topology definitions).
//!
//! Rules this follows, and why:
//! - Every topology restarts on the restart index when the draw enables it: the index ends
//!   the segment, a list's incomplete primitive is dropped and its vertex count starts again
//!   (OpenGL's rule, and Vulkan's with primitiveTopologyListRestart). Mesa's asahi drivers
//!   pass the enable through for lists (Honeykrisp advertises primitiveTopologyListRestart,
//!   the Gallium driver serves GL's restart on every topology), so the hardware does it.
//!   Restart applies only to indexed draws. The index is compared with the
//!   restart value cut to the index width, which is all Vulkan ever uses (all ones of the
//!   type); the hardware's behaviour for other values is not known.
//! - An index past the block's index buffer size reads as 0. Vulkan 1.0 makes such a read
//!   invalid usage; robustBufferAccess2 and the null index buffer of maintenance6 want 0. What
//!   the hardware does is not public: Mesa's Vulkan driver does not trust it and routes
//!   robust indexed draws through a geometry shader, so 0 here is a choice, not a fact.
//! - The vertex of an indexed draw is `index + base_vertex` with 32-bit wraparound, as
//!   `gl_VertexIndex` is a 32-bit integer.
//! - Triangle strip primitive i is (i, i+1, i+2) for even i and (i+1, i, i+2) for odd i; fan
//!   primitive i is (0, i+1, i+2), the same winding as Vulkan's (i+1, i+2, 0) but numbered
//!   the way the flat shading vertex counts it: Mesa's asahi drivers take a fan's first
//!   vertex (i+1) from vertex 1 and its last (i+2) from vertex 2. Counting starts again after
//!   each restart.
//! - The provoking vertex follows Vulkan's first-vertex convention or, with
//!   VK_EXT_provoking_vertex, the last-vertex one. The VDM names it by position (V0..V2); the
//!   mapping from those positions to a convention is the one Mesa's drivers program (V0
//!   first, V2 last, V1 first for fans only); any other combination is refused.
//! - Line loops (a GL topology the VDM has) close each segment with a line from its last vertex
//!   to its first. Quads and quad strips are refused: how the hardware splits them is unknown.
//!   The VDM's topology enum has no adjacency topologies, so there are none here.

use super::walker::{DrawParams, IndexSource};
use crate::{Fault, GpuMemory};
use hw::g13::control::vdm::{IndexSize, Primitive, VdmVertex};

/// Which vertex of a primitive flat-shaded outputs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProvokingVertex {
    First,
    Last,
}

impl ProvokingVertex {
    /// The convention the VDM's flat shading control selects for a topology.
    pub fn from_vdm(primitive: Primitive, v: VdmVertex) -> Result<ProvokingVertex, Fault> {
        let fan = primitive == Primitive::TriangleFan;
        match (v, fan) {
            (VdmVertex::V0, false) | (VdmVertex::V1, true) => Ok(ProvokingVertex::First),
            (VdmVertex::V2, _) => Ok(ProvokingVertex::Last),
            (VdmVertex::V0, true) => Err(Fault::Unimplemented(
                "triangle fan with flat shading from VDM vertex 0",
            )),
            (VdmVertex::V1, false) => Err(Fault::Unimplemented(
                "flat shading from VDM vertex 1 outside triangle fans",
            )),
        }
    }
}

/// How many vertices a primitive has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Point,
    Line,
    Triangle,
}

/// One assembled primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssembledPrimitive {
    pub shape: Shape,
    /// Vertex indices in Vulkan order; entries past the shape's count are 0.
    vertices: [u32; 3],
    /// 0-based instance (the draw's first instance is not added).
    pub instance: u32,
    /// Primitive number within the instance, counting across restarts.
    pub primitive_id: u32,
    /// The vertex index flat-shaded outputs come from.
    pub provoking: u32,
    /// An odd triangle of a strip: its vertices are listed (i+1, i, i+2) for the winding,
    /// but the flat shading vertex counts them (i, i+1, i+2), as Mesa's asahi drivers' choice
    /// of vertex 0 for Vulkan's first vertex (i) of every strip triangle implies.
    pub odd_strip: bool,
}

impl AssembledPrimitive {
    /// The records of the vertices in the order the flat shading vertex counts them.
    pub fn flat_records<'r>(&self, recs: [&'r [u32]; 3]) -> [&'r [u32]; 3] {
        if self.odd_strip {
            [recs[1], recs[0], recs[2]]
        } else {
            recs
        }
    }

    pub fn vertices(&self) -> &[u32] {
        let n = match self.shape {
            Shape::Point => 1,
            Shape::Line => 2,
            Shape::Triangle => 3,
        };
        &self.vertices[..n]
    }
}

fn index_bytes(size: IndexSize) -> u64 {
    match size {
        IndexSize::U8 => 1,
        IndexSize::U16 => 2,
        IndexSize::U32 => 4,
    }
}

fn index_mask(size: IndexSize) -> u32 {
    match size {
        IndexSize::U8 => 0xff,
        IndexSize::U16 => 0xffff,
        IndexSize::U32 => u32::MAX,
    }
}

/// Index `i` of the draw (before base vertex); reads past the bound give 0.
pub fn fetch_index(mem: &dyn GpuMemory, src: &IndexSource, i: u32) -> Result<u32, Fault> {
    let n = index_bytes(src.size);
    let off = (u64::from(src.first_index) + u64::from(i)) * n;
    if src.bound_bytes.is_some_and(|b| off + n > u64::from(b)) {
        return Ok(0);
    }
    let mut b = [0u8; 4];
    mem.read(src.buffer.wrapping_add(off), &mut b[..n as usize])?;
    Ok(u32::from_le_bytes(b))
}

/// The vertices seen since the draw or the last restart, as much of them as any topology
/// needs.
#[derive(Default)]
struct Segment {
    n: u32,
    first: u32,
    prev: [u32; 2],
}

struct Assembler<'a> {
    primitive: Primitive,
    provoking: ProvokingVertex,
    instance: u32,
    primitive_id: u32,
    seg: Segment,
    out: &'a mut dyn FnMut(AssembledPrimitive) -> Result<(), Fault>,
}

impl Assembler<'_> {
    fn emit(&mut self, shape: Shape, v: [u32; 3], first: u32, last: u32) -> Result<(), Fault> {
        let p = AssembledPrimitive {
            shape,
            vertices: v,
            odd_strip: self.primitive == Primitive::TriangleStrip && v[0] != first,
            instance: self.instance,
            primitive_id: self.primitive_id,
            provoking: match self.provoking {
                ProvokingVertex::First => first,
                ProvokingVertex::Last => last,
            },
        };
        self.primitive_id = self.primitive_id.wrapping_add(1);
        (self.out)(p)
    }

    fn vertex(&mut self, v: u32) -> Result<(), Fault> {
        let s = &self.seg;
        let (n, [p0, p1]) = (s.n, s.prev);
        match self.primitive {
            Primitive::Points => self.emit(Shape::Point, [v, 0, 0], v, v)?,
            Primitive::Lines if n % 2 == 1 => self.emit(Shape::Line, [p1, v, 0], p1, v)?,
            Primitive::LineStrip | Primitive::LineLoop if n >= 1 => {
                self.emit(Shape::Line, [p1, v, 0], p1, v)?
            }
            Primitive::Triangles if n % 3 == 2 => self.emit(Shape::Triangle, [p0, p1, v], p0, v)?,
            // Here p0 is vertex k and p1 vertex k+1 of primitive k = n-2.
            Primitive::TriangleStrip if n >= 2 => {
                let tri = if (n - 2) % 2 == 0 {
                    [p0, p1, v]
                } else {
                    [p1, p0, v]
                };
                self.emit(Shape::Triangle, tri, p0, v)?
            }
            Primitive::TriangleFan if n >= 2 => {
                let first = self.seg.first;
                self.emit(Shape::Triangle, [first, p1, v], p1, v)?
            }
            Primitive::Quads | Primitive::QuadStrip => {
                return Err(Fault::Unimplemented(
                    "quad and quad strip primitive assembly",
                ))
            }
            _ => {}
        }
        let s = &mut self.seg;
        if s.n == 0 {
            s.first = v;
        }
        s.prev = [s.prev[1], v];
        s.n = s.n.saturating_add(1);
        Ok(())
    }

    /// End of a segment (restart or end of the instance).
    fn end_segment(&mut self) -> Result<(), Fault> {
        if self.primitive == Primitive::LineLoop && self.seg.n >= 2 {
            let (last, first) = (self.seg.prev[1], self.seg.first);
            self.emit(Shape::Line, [last, first, 0], last, first)?;
        }
        self.seg = Segment::default();
        Ok(())
    }
}

/// Assemble every instance of a draw, handing each primitive to `out` in order (instance by
/// instance). `restart_index` is the VDM state's, needed only if the draw restarts.
pub fn assemble(
    draw: &DrawParams,
    restart_index: Option<u32>,
    provoking: ProvokingVertex,
    mem: &dyn GpuMemory,
    out: &mut dyn FnMut(AssembledPrimitive) -> Result<(), Fault>,
) -> Result<(), Fault> {
    if matches!(draw.primitive, Primitive::Quads | Primitive::QuadStrip) {
        return Err(Fault::Unimplemented(
            "quad and quad strip primitive assembly",
        ));
    }
    let restart = match &draw.indices {
        Some(ix) if draw.restart_enable => {
            let r = restart_index.ok_or(Fault::BadControlWord {
                va: 0,
                reason: "draw enables restart but no restart index was set".into(),
            })?;
            Some(r & index_mask(ix.size))
        }
        _ => None,
    };
    let mut a = Assembler {
        primitive: draw.primitive,
        provoking,
        instance: 0,
        primitive_id: 0,
        seg: Segment::default(),
        out,
    };
    for instance in 0..draw.instances {
        a.instance = instance;
        a.primitive_id = 0;
        a.seg = Segment::default();
        for i in 0..draw.count {
            let v = match &draw.indices {
                Some(ix) => {
                    let index = fetch_index(mem, ix, i)?;
                    if restart == Some(index) {
                        a.end_segment()?;
                        continue;
                    }
                    index.wrapping_add(draw.base_vertex as u32)
                }
                None => draw.first_vertex.wrapping_add(i),
            };
            a.vertex(v)?;
        }
        a.end_segment()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usc::FlatMemory;

    /// The primitives of one instance of an indexed 16-bit draw of `indices` with restart on.
    fn with_restart(primitive: Primitive, indices: &[u16]) -> Vec<Vec<u32>> {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let mem = FlatMemory::with(0x1000, &bytes);
        let draw = DrawParams {
            primitive,
            restart_enable: true,
            indices: Some(IndexSource {
                buffer: 0x1000,
                size: IndexSize::U16,
                bound_bytes: Some(bytes.len() as u32),
                first_index: 0,
            }),
            count: indices.len() as u32,
            instances: 1,
            first_vertex: 0,
            base_vertex: 0,
            first_instance: 0,
            indirect: None,
        };
        let mut out = Vec::new();
        assemble(
            &draw,
            Some(0xffff),
            ProvokingVertex::First,
            &mem,
            &mut |p| {
                out.push(p.vertices().to_vec());
                Ok(())
            },
        )
        .expect("assembles");
        out
    }

    #[test]
    fn lists_drop_the_incomplete_primitive_at_a_restart() {
        let r = 0xffff;
        assert_eq!(
            with_restart(Primitive::Triangles, &[0, 1, r, 2, 3, 4, 5, r, 6, 7, 8]),
            vec![vec![2, 3, 4], vec![6, 7, 8]]
        );
        assert_eq!(
            with_restart(Primitive::Lines, &[0, r, 1, 2, 3]),
            vec![vec![1, 2]]
        );
        assert_eq!(
            with_restart(Primitive::Points, &[0, r, 1]),
            vec![vec![0], vec![1]]
        );
    }

    #[test]
    fn strips_start_again_after_a_restart() {
        let r = 0xffff;
        assert_eq!(
            with_restart(Primitive::LineStrip, &[0, 1, 2, r, 3, 4]),
            vec![vec![0, 1], vec![1, 2], vec![3, 4]]
        );
    }
}
