//! Geometry shaders: what the stage declares (input and output primitives, vertex and
//! invocation counts) and how its per-vertex inputs are named.
//!
//! AGX has no geometry stage; agx4 runs a geometry shader as a point draw whose program is
//! the vertex and geometry shaders merged (docs/geometry.md). The IR keeps the geometry
//! shader's own view until that merge: `Op::LoadPerVertex` reads an input of vertex k of the
//! input primitive, `Op::EmitVertex` records the outputs stored so far as one vertex and
//! `Op::EndPrimitive` ends the strip being built.

use super::OutputBuiltin;

/// Most vertices one geometry shader invocation may emit (Vulkan's
/// maxGeometryOutputVertices minimum).
pub const MAX_GEOMETRY_OUTPUT_VERTICES: u32 = 256;
/// Most invocations per input primitive (maxGeometryShaderInvocations minimum).
pub const MAX_GEOMETRY_INVOCATIONS: u32 = 32;

/// The primitive a geometry shader takes (its input execution mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputPrimitive {
    Points,
    Lines,
    LinesAdjacency,
    Triangles,
    TrianglesAdjacency,
}

impl InputPrimitive {
    /// Vertices of one input primitive: the length of every per-vertex input array.
    pub fn vertices(self) -> u32 {
        match self {
            InputPrimitive::Points => 1,
            InputPrimitive::Lines => 2,
            InputPrimitive::LinesAdjacency => 4,
            InputPrimitive::Triangles => 3,
            InputPrimitive::TrianglesAdjacency => 6,
        }
    }
}

/// The primitives a geometry shader's emitted vertices form (its output execution mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputPrimitive {
    Points,
    LineStrip,
    TriangleStrip,
}

/// What a geometry shader declares beside its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeometryInfo {
    pub input: InputPrimitive,
    pub output: OutputPrimitive,
    /// OutputVertices: the most vertices one invocation emits (1 to
    /// [`MAX_GEOMETRY_OUTPUT_VERTICES`]); the output-vertex buffer reserves this many per
    /// invocation.
    pub max_vertices: u32,
    /// Invocations: how many times the shader runs per input primitive (1 to
    /// [`MAX_GEOMETRY_INVOCATIONS`]), told apart by `SysVal::InvocationId`.
    pub invocations: u32,
}

/// An output of the previous stage's vertex, as that stage's stores name it
/// (`Op::StoreOutput` locations and `Op::StoreBuiltin` built-ins), which a geometry shader
/// reads per vertex.
///
/// gl_in[k].gl_ClipDistance[i] is `Builtin(ClipDistance(i))`; gl_in[k].gl_CullDistance[i] is
/// the varying the vertex shader also writes for it (`Location` at
/// [`super::CULL_DISTANCE_LOCATION`]), since a cull distance has no built-in store of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PerVertexSlot {
    Location(u32),
    Builtin(OutputBuiltin),
}
