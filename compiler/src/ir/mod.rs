//! agx4 IR: typed SSA values over a tree of structured control flow.
//!
//! A shader body is a list of [`Node`]s. A `Node::Block` is a basic block of [`Inst`]s with no
//! control flow inside; `If` and `Loop` nest lists of nodes; `Break`, `Continue` and `Return`
//! end a list. Keeping the structure explicit (rather than a flat graph) matches how AGX runs
//! divergent code: every `If` and `Loop` becomes exec-mask instructions in the back end.
//!
//! Values are SSA: each [`Value`] is defined by exactly one instruction, and a use must be
//! dominated by its definition in the tree's natural order (a value defined inside an `If`
//! arm or a `Loop` body is not visible after it). Values that flow across control flow go
//! through [`Var`]s: mutable, typed, function-local registers read with `Op::LoadVar` and
//! written with `Op::StoreVar`. SPIR-V phis and Function-storage variables become `Var`s; the
//! `promote_vars` pass turns the ones it can into plain SSA values.
//!
//! Before `scalarize` values may be vectors; after it, every value is scalar.

mod geometry;
pub mod half;
pub mod interp;
mod op;
pub mod print;
mod subgroup;
mod types;
pub mod validate;
mod xfb;

pub use geometry::*;
pub use op::*;
pub use subgroup::*;
pub use types::*;
pub use xfb::*;

/// An SSA value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A function-local mutable variable (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u32);

/// One instruction: an operation, and the value it defines if it has a result.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    pub dst: Option<Value>,
    pub op: Op,
}

/// A node of the structured control-flow tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Block(Vec<Inst>),
    If {
        cond: Value,
        then_body: Vec<Node>,
        else_body: Vec<Node>,
    },
    /// Runs `body` until a `Break`; a `Continue` or falling off the end starts the next
    /// iteration.
    Loop {
        body: Vec<Node>,
    },
    Break,
    Continue,
    /// Ends the invocation (only the entry point remains after inlining).
    Return,
}

/// A shader after the front end: one entry point, calls inlined. Compute unless wrapped in a
/// [`GraphicsShader`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Shader {
    /// The workgroup size (compute only; [0; 3] for graphics stages).
    pub local_size: [u32; 3],
    /// Bytes of workgroup (threadgroup) memory.
    pub shared_size: u32,
    /// Bytes of per-invocation scratch (dynamically indexed local arrays; spills are added by
    /// the back end).
    pub scratch_size: u32,
    /// Type of every value, indexed by `Value.0`.
    pub value_types: Vec<Type>,
    /// Type of every variable, indexed by `Var.0`.
    pub var_types: Vec<Type>,
    pub body: Vec<Node>,
    /// A float multiply and add may become one fused multiply-add (`passes::fuse_ffma`):
    /// true for a SPIR-V module with no `NoContraction` decoration. False by default, so
    /// shaders built by hand round every operation as written.
    pub contract: bool,
    /// Buffer accesses through descriptors are unchecked, so one whose 32-bit byte offset
    /// wrapped is out of range (undefined behaviour) anyway: the back end may index with the
    /// unwrapped value. Set by `passes::lower_descriptors`.
    pub offsets_in_range: bool,
    /// Every storage buffer binding (set, binding) the shader declares, and whether none of
    /// its variables may be written: all NonWritable, none Aliased, Volatile or Coherent,
    /// and no physical pointers in the module (which could reach the same memory). Without
    /// Aliased, Vulkan lets a compiler assume no other variable reaches a buffer's memory,
    /// so a read-only one does not change during a launch (`passes::preamble`).
    pub read_only_buffers: std::collections::BTreeMap<(u32, u32), bool>,
}

/// A vertex, geometry or fragment shader: the body and what the pipeline needs to know about it.
/// Kept beside `Shader` (not inside it) so that every existing `Shader` constructor and back
/// end keeps its meaning; the passes run on `shader` unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GraphicsShader {
    pub stage: Stage,
    /// Fragment shaders: the DepthReplacing execution mode (the shader may write FragDepth).
    pub depth_replacing: bool,
    /// Fragment shaders: the shader reads SampleId or has Sample-qualified inputs, so it runs
    /// once per sample.
    pub per_sample: bool,
    /// Fragment shaders: the EarlyFragmentTests execution mode (depth/stencil tests run
    /// before the shader even when it has side effects).
    pub early_fragment_tests: bool,
    /// `local_size` is [0; 3].
    pub shader: Shader,
    /// Vertex shaders: the outputs transform feedback captures (none: no Xfb mode).
    pub xfb: Option<XfbInfo>,
    /// Geometry shaders (and only they): the primitives, vertex count and invocations.
    pub geometry: Option<GeometryInfo>,
}

impl Shader {
    pub fn new_value(&mut self, ty: Type) -> Value {
        self.value_types.push(ty);
        Value(self.value_types.len() as u32 - 1)
    }

    pub fn new_var(&mut self, ty: Type) -> Var {
        self.var_types.push(ty);
        Var(self.var_types.len() as u32 - 1)
    }

    pub fn ty(&self, v: Value) -> Type {
        self.value_types[v.0 as usize]
    }
}
