//! Operations. Each names its operands as [`Value`]s; the result type is the defining
//! instruction's value type in [`super::Shader::value_types`].

use super::{LaneRead, Reduction, Type, Value, Var};

/// A constant: the bits of each lane, zero-extended to 64 (floats as their IEEE bits).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Constant(pub Vec<u64>);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    INeg,
    /// Bitwise not (logical not for Bool).
    Not,
    IAbs,
    BitReverse,
    BitCount,
    /// Index of the most significant set bit, -1 if none (GLSL findMSB on unsigned).
    UFindMsb,
    SFindMsb,
    FindLsb,
    FNeg,
    FAbs,
    FFloor,
    FCeil,
    FTrunc,
    FRoundEven,
    FFract,
    FSqrt,
    FRsqrt,
    FRcp,
    FExp2,
    FLog2,
    FSin,
    FCos,
    FSign,
    ISign,
    /// Fragment shaders: the derivative along window x / y (OpDPdx, OpDPdy and their Fine and
    /// Coarse forms), by differencing the neighbours of the invocation's 2x2 quad. Defined
    /// only in uniform control flow; the quad's helper invocations take part.
    FDdx,
    FDdy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    IAdd,
    ISub,
    IMul,
    /// High half of the unsigned / signed product.
    UMulHigh,
    SMulHigh,
    UDiv,
    SDiv,
    UMod,
    /// Remainder with the sign of the dividend (OpSRem).
    SRem,
    /// Remainder with the sign of the divisor (OpSMod).
    SMod,
    And,
    Or,
    Xor,
    Shl,
    UShr,
    SShr,
    UMin,
    SMin,
    UMax,
    SMax,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FMod,
    FMin,
    FMax,
    FPow,
    FAtan2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    IEq,
    INe,
    ULt,
    ULe,
    UGt,
    UGe,
    SLt,
    SLe,
    SGt,
    SGe,
    /// Ordered float comparisons: false if either side is NaN.
    FOEq,
    FOLt,
    FOLe,
    FOGt,
    FOGe,
    /// Unordered not-equal: true if either side is NaN (GLSL `!=`).
    FUNe,
}

/// Conversions; the source and destination widths come from the value types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Integer to integer: zero-extend, sign-extend or truncate.
    UToU,
    SToS,
    UToF,
    SToF,
    FToU,
    FToS,
    FToF,
    /// Reinterpret the bits (same width).
    Bitcast,
    /// Bool to integer 0/1.
    BoolToInt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    UMin,
    SMin,
    UMax,
    SMax,
    And,
    Or,
    Xor,
    Exchange,
    CompareExchange,
}

/// Built-in inputs of a compute invocation (one component each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SysVal {
    LocalInvocationId(u8),
    LocalInvocationIndex,
    WorkgroupId(u8),
    GlobalInvocationId(u8),
    /// The hardware's position of the invocation in the dispatched grid: `WorkgroupId`
    /// (without the base of vkCmdDispatchBase) times the workgroup size, plus
    /// `LocalInvocationId`. `lower_sysvals` builds `GlobalInvocationId` on it.
    ThreadPositionInGrid(u8),
    NumWorkgroups(u8),
    /// The workgroup size may be a specialization constant, so it is a value, not a literal.
    WorkgroupSize(u8),
    SubgroupLocalInvocationId,
    SubgroupId,
    /// Vertex shaders: Vulkan's gl_VertexIndex, which already includes the draw's
    /// firstVertex / vertexOffset (I32).
    VertexIndex,
    /// Vertex shaders: Vulkan's gl_InstanceIndex, including firstInstance (I32).
    InstanceIndex,
    /// Vertex shaders: gl_BaseVertex, the draw's firstVertex or vertexOffset (I32).
    BaseVertex,
    /// Vertex shaders: gl_BaseInstance, the draw's firstInstance (I32).
    BaseInstance,
    /// Vertex shaders: gl_DrawID, the index of the draw in a multi-draw command (I32).
    DrawIndex,
    /// Fragment shaders: one component of gl_FragCoord (F32): x, y are the framebuffer
    /// position of the sample or pixel centre (upper-left origin), z the depth, w 1/clip w.
    FragCoord(u8),
    /// Fragment shaders: one component of gl_PointCoord (F32), the fragment's position in
    /// the point sprite, (0, 0) at its upper-left corner; undefined off points.
    PointCoord(u8),
    /// Fragment shaders: 1 if the primitive is front-facing, else 0 (I32).
    FrontFacing,
    /// Fragment shaders: the sample index (I32); asking for it makes the shader run per
    /// sample.
    SampleId,
    /// Fragment shaders: one component (0 = x, 1 = y) of the position of the sample being
    /// shaded inside its pixel, in [0, 1) (F32); asking for it makes the shader run per sample.
    SamplePosition(u8),
    /// Vertex and fragment shaders: the view of a multiview subpass being rendered (I32),
    /// the same for every invocation of a draw.
    ViewIndex,
    /// Fragment shaders: 1 (I32) while the invocation is a helper (of its quad from the
    /// start, or since a `Discard`), else 0: gl_HelperInvocation, OpIsHelperInvocationEXT.
    /// It changes at `Discard`, so reads are never merged or moved (see `passes::cse`).
    HelperInvocation,
    /// Fragment shaders: gl_SampleMaskIn[0] (I32), the samples of the pixel the primitive
    /// covers and the pipeline's sample mask keeps; in a per-sample shader only the bit of the
    /// sample being shaded.
    SampleMaskIn,
    /// Geometry shaders: gl_InvocationID (I32), which of the `GeometryInfo::invocations` runs
    /// for this input primitive this is.
    InvocationId,
    /// Geometry shaders: gl_PrimitiveIDIn (I32), the index of the input primitive in the
    /// draw (restarts at 0 for every instance).
    PrimitiveId,
}

/// The pipeline stage a shader runs in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Stage {
    #[default]
    Compute,
    Vertex,
    /// Emulated: see `super::geometry` and docs/geometry.md.
    Geometry,
    Fragment,
}

/// How a fragment shader input is interpolated across the primitive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Perspective-correct.
    #[default]
    Smooth,
    /// The provoking vertex's value.
    Flat,
    /// Linear in screen space.
    NoPerspective,
}

/// Where a fragment shader input is interpolated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Sampling {
    /// The pixel centre.
    #[default]
    Center,
    /// A point inside the covered part of the pixel.
    Centroid,
    /// The sample being shaded (the shader runs per sample).
    Sample,
}

/// Interpolation qualifiers of one input (meaningless for vertex attributes: Smooth/Center).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct InputInterp {
    pub mode: Interpolation,
    pub sampling: Sampling,
}

/// Where `InterpolateInput` evaluates an input (GLSL's interpolateAt* functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterpolateAt {
    /// A point inside the covered part of the pixel.
    Centroid,
    /// The position of sample `index` (I32) of the pixel.
    Sample(Value),
    /// The pixel centre moved by (x, y) pixels (two F32 values).
    Offset(Value, Value),
}

/// Outputs of the graphics stages that are not plain locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputBuiltin {
    /// Vertex shaders: clip-space gl_Position, four F32 components.
    Position,
    /// Vertex shaders: gl_PointSize, one F32.
    PointSize,
    /// Fragment shaders: gl_FragDepth, one F32 (see `Shader::depth_replacing`).
    FragDepth,
    /// Fragment shaders: gl_SampleMask[0], one I32: the samples whose bit is clear are
    /// discarded (in a per-sample shader only the bit of the sample being shaded counts).
    SampleMask,
    /// Fragment shaders: the output at Location 0 Index 1, up to four F32 or I32
    /// components: the second source (SRC1) of dual-source blending into target 0.
    SecondBlendSource,
    /// Vertex shaders: gl_ClipDistance[k], one F32 (component 0), for k below
    /// [`MAX_CLIP_DISTANCES`]: the clipper keeps the part of the primitive where it is >= 0.
    ClipDistance(u8),
}

/// Clip distances a vertex shader may write (and cull distances, and the two together).
pub const MAX_CLIP_DISTANCES: u32 = 8;

/// Locations past any user location (Vulkan's are below maxVertexOutputComponents / 4) that
/// carry built-in varyings from the vertex to the fragment shader: gl_ClipDistance and
/// gl_CullDistance (element k at location + k / 4, component k % 4), both readable by a
/// fragment shader, and the cull flags (1.0 where cull distance k is >= 0, else 0.0; see
/// `graphics_api`'s cull test).
pub const CLIP_DISTANCE_LOCATION: u32 = 0x4000_0000;
pub const CULL_DISTANCE_LOCATION: u32 = CLIP_DISTANCE_LOCATION + 2;
pub const CULL_FLAG_LOCATION: u32 = CLIP_DISTANCE_LOCATION + 4;
/// gl_PrimitiveID from a geometry shader to the fragment shader: a flat I32 varying
/// (component 0). A fragment shader reads it only after a geometry shader.
pub const PRIMITIVE_ID_LOCATION: u32 = CLIP_DISTANCE_LOCATION + 6;
/// gl_Layer from a geometry shader: a flat I32 varying (component 0) that the pass-through
/// vertex shader compares with the layer its draw renders, and that a fragment shader reads.
pub const LAYER_LOCATION: u32 = CLIP_DISTANCE_LOCATION + 7;

/// Memory a load, store or atomic reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory: the address operand is an I64 GPU address.
    Global,
    /// Workgroup memory: the address operand is an I32 byte offset.
    Shared,
    /// The invocation's scratch: the address operand is an I32 byte offset.
    Scratch,
    /// The root table (push constants, set addresses, dispatch sizes; see `crate::abi`), which
    /// the back end reads from uniform registers: the address operand is an I32 byte offset
    /// that must be a constant after the passes.
    Root,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Const(Constant),
    Unary(UnOp, Value),
    Binary(BinOp, Value, Value),
    /// a * b + c, fused.
    FFma(Value, Value, Value),
    Cmp(CmpOp, Value, Value),
    /// cond ? a : b. `cond` is a Bool of the same lane count (or scalar).
    Select(Value, Value, Value),
    Conv(ConvOp, Value),
    /// base, insert, offset, count (OpBitFieldInsert).
    BitfieldInsert(Value, Value, Value, Value),
    /// base, offset, count; unsigned or signed extraction.
    UBitfieldExtract(Value, Value, Value),
    SBitfieldExtract(Value, Value, Value),
    /// Builds a vector from scalars.
    Vector(Vec<Value>),
    /// One lane of a vector.
    Extract(Value, u8),
    /// A copy of a vector with one lane replaced: vector, lane, new scalar.
    Insert(Value, u8, Value),
    /// Identity; copy propagation removes it.
    Copy(Value),
    LoadVar(Var),
    StoreVar(Var, Value),
    SysVal(SysVal),
    /// Loads `ty`-typed data (scalar or vector) at address; `align` is the guaranteed byte
    /// alignment.
    Load {
        space: Space,
        addr: Value,
        align: u32,
    },
    Store {
        space: Space,
        addr: Value,
        value: Value,
        align: u32,
    },
    /// Returns the old value. `CompareExchange` takes the comparator in `cmp`.
    Atomic {
        space: Space,
        op: AtomicOp,
        addr: Value,
        value: Value,
        cmp: Option<Value>,
    },
    /// The GPU address of descriptor `binding[index]` of `set` in the pipeline layout
    /// (lowered by `lower_descriptors` to loads through the root table).
    DescriptorAddress {
        set: u32,
        binding: u32,
        index: Value,
    },
    /// An I64 GPU address the application gave (a physical storage buffer pointer): device
    /// memory accesses through it are not bounds-checked (`lower_descriptors` makes it a
    /// Copy). Marks the one kind of device address not derived from a descriptor.
    PhysicalAddress(Value),
    /// The bound range size in bytes of that descriptor (for bounds checks and
    /// OpArrayLength).
    DescriptorSize {
        set: u32,
        binding: u32,
        index: Value,
    },
    /// Workgroup execution + memory barrier (OpControlBarrier with Workgroup scope).
    WorkgroupBarrier,
    /// Memory barrier only.
    MemoryBarrier,
    /// Reads a stage input: a vertex attribute (vertex shaders) or an interpolated varying
    /// (fragment shaders) at `location`, starting at 32-bit `component` (0..4). The result
    /// type (I32 or F32, 1 to 4 lanes with `component + lanes <= 4`) gives how many
    /// consecutive components are read; the bits are the attribute's / varying's, without
    /// conversion. Pure: the inputs are constant during an invocation.
    LoadInput {
        location: u32,
        component: u8,
        interp: InputInterp,
    },
    /// Fragment shaders: reads the varying at `location` from 32-bit `component` on as
    /// `LoadInput` does, interpolated with `mode` at the point `at` instead of the input's
    /// own sampling (a per-sample shader's too). Pure.
    InterpolateInput {
        location: u32,
        component: u8,
        mode: Interpolation,
        at: InterpolateAt,
    },
    /// Fragment shaders: the raw plane coefficients A, B and C of the varying at `location`
    /// `component` OR-ed together and shifted left by one, which drops the sign bit (I32):
    /// zero exactly when the varying is +-0 over the whole primitive. Pure.
    InputPlaneBits {
        location: u32,
        component: u8,
    },
    /// Fragment shaders: reads input attachment `index` (the `InputAttachmentIndex`
    /// decoration) at the fragment's pixel, starting at component `component` (0..4). The
    /// result type (F32 for float and normalized formats and depth, I32 for integer ones and
    /// stencil; 1 to 4 lanes with `component + lanes <= 4`) gives how many components are
    /// read, converted as a texture load converts them. `sample` (I32) is the sample read of
    /// a multisampled input attachment (`subpassInputMS`), `None` for a single-sampled one.
    /// Pure: an invocation's own colour writes land after its body, and earlier draws'
    /// writes are fixed while it runs.
    LoadInputAttachment {
        index: u32,
        component: u8,
        sample: Option<Value>,
    },
    /// Writes a stage output: a varying (vertex shaders) or a colour attachment's value
    /// (fragment shaders) at `location`, starting at 32-bit `component`; a vector value
    /// writes consecutive components. The last write to a component before the invocation
    /// ends is the one that counts; components never written are undefined.
    StoreOutput {
        location: u32,
        component: u8,
        value: Value,
    },
    /// Writes a built-in output from `component` on (same rules as `StoreOutput`).
    StoreBuiltin {
        builtin: OutputBuiltin,
        component: u8,
        value: Value,
    },
    /// Geometry shaders: reads input `slot` of vertex `vertex` (I32, below
    /// `InputPrimitive::vertices`; an index out of range gives an undefined value) of the input
    /// primitive, from 32-bit `component` on, as `LoadInput` reads (I32 or F32, 1 to 4 lanes
    /// with `component + lanes <= 4`). Pure: the inputs are constant during an invocation.
    LoadPerVertex {
        vertex: Value,
        slot: super::PerVertexSlot,
        component: u8,
    },
    /// Geometry shaders: the values last stored to each output (`StoreOutput`,
    /// `StoreBuiltin`) become one vertex of the current output strip (stream 0); the outputs
    /// are undefined afterwards until stored again. Emits beyond `max_vertices` are dropped.
    EmitVertex,
    /// Geometry shaders: ends the current output strip; the next `EmitVertex` starts a new
    /// one. Ending the invocation ends the strip too.
    EndPrimitive,
    /// Fragment shaders: the invocation's outputs (colour, depth) are dropped and it writes
    /// nothing. Execution continues (demote-to-helper semantics: derivatives stay valid);
    /// OpKill is translated as `Discard` followed by `Node::Return`.
    Discard,
    /// Reads or queries an image (see [`Tex`]). Pure: Vulkan forbids writing an image that
    /// a dispatch samples, and descriptors do not change during it.
    Texture(Box<Tex>),
    /// Writes one texel of a storage image (see [`ImageStore`]).
    ImageStore(Box<ImageStore>),
    /// An atomic access to one 32-bit texel of a storage image or storage texel buffer (see
    /// [`ImageAtomic`]); returns the old value (I32) unless it is a store.
    ImageAtomic(Box<ImageAtomic>),
    /// The mask (I32, bit i = invocation i) of the active invocations of the subgroup whose
    /// Bool operand is true (see `super::subgroup`).
    Ballot(Value),
    /// The operand's value in another invocation of the subgroup (same type).
    LaneRead(LaneRead, Value),
    /// A reduction or scan of the operand over the active invocations (same type).
    Reduce(Reduction, Value),
    /// The scalar (I32, F32, I16 or F16) that the shader's preamble stored at `offset`
    /// 16-bit halves into its result area (`passes::preamble`). Pure: the preamble runs
    /// once before the launch, so every invocation sees the same value.
    LoadPreamble {
        offset: u32,
    },
    /// Preamble shaders only: stores `value` (a scalar, as `LoadPreamble` reads it) at
    /// `offset` halves into the result area the main shader reads.
    StorePreamble {
        offset: u32,
        value: Value,
    },
}

/// Whether an operation has effects beyond its result (never removed by DCE, never merged by
/// CSE, never moved).
impl Op {
    /// Whether the operation computes its result from its operands alone, lane by lane:
    /// what scalarizing splits, constant folding evaluates, and speculation may move.
    pub fn is_arithmetic(&self) -> bool {
        matches!(
            self,
            Op::Unary(..)
                | Op::Binary(..)
                | Op::FFma(..)
                | Op::Cmp(..)
                | Op::Select(..)
                | Op::Conv(..)
                | Op::BitfieldInsert(..)
                | Op::UBitfieldExtract(..)
                | Op::SBitfieldExtract(..)
        )
    }
}

pub fn has_side_effects(op: &Op) -> bool {
    matches!(
        op,
        Op::StoreVar(..)
            | Op::Store { .. }
            | Op::Atomic { .. }
            | Op::WorkgroupBarrier
            | Op::MemoryBarrier
            | Op::StoreOutput { .. }
            | Op::StoreBuiltin { .. }
            | Op::Discard
            | Op::EmitVertex
            | Op::EndPrimitive
            | Op::ImageStore(_)
            | Op::ImageAtomic(_)
            | Op::StorePreamble { .. }
            // What they see depends on which invocations run them, so they never move.
            | Op::Ballot(_)
            | Op::LaneRead(..)
            | Op::Reduce(..)
    )
}

/// Type used by loads from the root table for set addresses, for convenience.
pub const ADDRESS_TYPE: Type = Type::I64;

/// Element `index` (I32) of descriptor binding `binding` of set `set`: how the front end names
/// the image or sampler a texture operation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DescriptorRef {
    pub set: u32,
    pub binding: u32,
    pub index: Value,
}

/// The texture descriptor a texture operation reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexSource {
    /// Before `lower_textures`: the texture descriptor of a sampled image, combined image
    /// sampler, storage image or texel buffer binding element.
    Binding(DescriptorRef),
    /// After: the descriptor at byte `offset` (I32) of set `set`'s memory, which the back end
    /// names bindlessly with the set address in the root table as the base
    /// (docs/render-abi.md section 7).
    Bindless { set: u32, offset: Value },
}

/// The sampler a filtered texture operation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SamplerSource {
    /// Before `lower_textures`: the sampler entry of a sampler or combined image sampler
    /// binding element.
    Binding(DescriptorRef),
    /// After: the first word of the sampler entry (I32): the sampler heap index in bits
    /// 0..16 and the sampler's LOD bias as an f16 in bits 16..32. The back end passes the
    /// index as the sampler operand and adds the bias to the level of detail.
    Entry(Value),
}

/// Shape of the image a texture operation reads (from its OpTypeImage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageDim {
    D1,
    D2,
    D3,
    Cube,
    /// A texel buffer (Dim Buffer): one integer coordinate, the element; only fetches,
    /// storage reads and writes and size queries (`passes::lower_texel_buffers` turns it
    /// into 2D).
    Buffer,
}

impl ImageDim {
    /// Coordinates that address a texel (without the array layer).
    pub fn axes(self) -> usize {
        match self {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 => 2,
            ImageDim::D3 | ImageDim::Cube => 3,
        }
    }

    /// Axes of the derivatives and texel offsets (a cube map's are 3D derivatives, no
    /// offsets).
    pub fn offset_axes(self) -> usize {
        match self {
            ImageDim::Cube | ImageDim::Buffer => 0,
            d => d.axes(),
        }
    }
}

/// What a texture operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexOp {
    /// Filtered read through a sampler (OpImageSample*), compared against `dref` if present.
    Sample,
    /// Unfiltered read of one texel at integer coordinates (OpImageFetch); `lod` is the I32
    /// level, `sample` the sample of a multisampled image.
    Fetch,
    /// A storage image read (OpImageRead): a `Fetch` through the storage image's texture
    /// descriptor at level 0, ordered with the shader's image writes (never merged across
    /// them).
    ImageRead,
    /// Component `c` (0..4) of the four texels of the bilinear footprint (OpImageGather), or
    /// their comparisons against `dref` (OpImageDrefGather, component 0).
    Gather(u8),
    /// Fragment shaders: the LOD mip selection would use (clamped) and the computed LOD
    /// with the bias, two F32 (OpImageQueryLod); the coordinates have no array layer, so
    /// `arrayed` is false.
    QueryLod,
    /// The size of level `lod` (I32; level 0 if `Implicit`): width, height, depth or layers
    /// as the dimension has them (OpImageQuerySize, OpImageQuerySizeLod). Lowered by
    /// `lower_textures`.
    QuerySize,
    /// Levels of the view (OpImageQueryLevels). Lowered by `lower_textures`.
    QueryLevels,
    /// Samples of a multisampled image (OpImageQuerySamples). Lowered by `lower_textures`.
    QuerySamples,
}

/// How a texture operation chooses the level of detail.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TexLod {
    /// From the quad's derivatives (fragment shaders only; elsewhere the front end makes it
    /// `Lod` 0). Also the mode of operations without a level (gathers, queries without one).
    Implicit,
    /// Implicit plus this F32 bias.
    Bias(Value),
    /// This level: F32 for samples, I32 for fetches and size queries.
    Lod(Value),
    /// Explicit derivatives: d/dx and d/dy of each coordinate axis (F32, `ImageDim::axes`
    /// each).
    Grad { dx: Vec<Value>, dy: Vec<Value> },
}

/// One texture operation (`Op::Texture`). The result type is the operation's: up to four
/// F32 or I32 components of the texel (after the descriptor's swizzle) from `component` on,
/// one F32 for a depth comparison, four for a gather, I32 for the queries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tex {
    pub op: TexOp,
    pub texture: TexSource,
    /// Required by `Sample` and `Gather`, absent otherwise.
    pub sampler: Option<SamplerSource>,
    pub dim: ImageDim,
    pub arrayed: bool,
    pub ms: bool,
    /// Scalar coordinates: `dim.axes()` of them (F32 for samples and gathers, I32 for
    /// fetches), then the array layer for an arrayed image (F32 for samples and gathers until
    /// `lower_textures` rounds and clamps it to an I32, I32 for fetches). Empty for queries.
    pub coords: Vec<Value>,
    pub lod: TexLod,
    /// F32 minimum level of detail (MinLod image operand), samples only.
    pub min_lod: Option<Value>,
    /// F32 depth reference of a comparison.
    pub dref: Option<Value>,
    /// I32 texel offsets packed one signed nibble per axis from bit 0 (ConstOffset, Offset).
    pub offset: Option<Value>,
    /// I32 sample of a multisampled fetch.
    pub sample: Option<Value>,
    /// The first texel component of the result (scalarize splits a vector result into one
    /// operation per component).
    pub component: u8,
}

impl Tex {
    /// Value operands, in a fixed order.
    pub fn operands(&self) -> Vec<Value> {
        let mut v = Vec::new();
        match self.texture {
            TexSource::Binding(d) => v.push(d.index),
            TexSource::Bindless { offset, .. } => v.push(offset),
        }
        match self.sampler {
            Some(SamplerSource::Binding(d)) => v.push(d.index),
            Some(SamplerSource::Entry(e)) => v.push(e),
            None => {}
        }
        v.extend(self.coords.iter().copied());
        match &self.lod {
            TexLod::Implicit => {}
            TexLod::Bias(x) | TexLod::Lod(x) => v.push(*x),
            TexLod::Grad { dx, dy } => {
                v.extend(dx.iter().copied());
                v.extend(dy.iter().copied());
            }
        }
        v.extend(self.min_lod);
        v.extend(self.dref);
        v.extend(self.offset);
        v.extend(self.sample);
        v
    }

    /// Applies `f` to every value operand.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(Value) -> Value) {
        match &mut self.texture {
            TexSource::Binding(d) => d.index = f(d.index),
            TexSource::Bindless { offset, .. } => *offset = f(*offset),
        }
        match &mut self.sampler {
            Some(SamplerSource::Binding(d)) => d.index = f(d.index),
            Some(SamplerSource::Entry(e)) => *e = f(*e),
            None => {}
        }
        self.coords.iter_mut().for_each(|c| *c = f(*c));
        match &mut self.lod {
            TexLod::Implicit => {}
            TexLod::Bias(x) | TexLod::Lod(x) => *x = f(*x),
            TexLod::Grad { dx, dy } => {
                dx.iter_mut().for_each(|c| *c = f(*c));
                dy.iter_mut().for_each(|c| *c = f(*c));
            }
        }
        for o in [
            &mut self.min_lod,
            &mut self.dref,
            &mut self.offset,
            &mut self.sample,
        ]
        .into_iter()
        .flatten()
        {
            *o = f(*o);
        }
    }
}

/// OpImageWrite of a storage image: the four components of `texel` (all F32 or all I32,
/// converted to the image's format by the PBE) at integer `coords` (`dim.axes()`, then the
/// layer of an arrayed image) of level 0, sample `sample` of a multisampled image. `texture`
/// names the storage image binding element until `lower_textures`, then the PBE descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageStore {
    pub texture: TexSource,
    pub dim: ImageDim,
    pub arrayed: bool,
    pub ms: bool,
    pub coords: Vec<Value>,
    pub sample: Option<Value>,
    pub texel: Vec<Value>,
}

impl ImageStore {
    /// Value operands, in a fixed order.
    pub fn operands(&self) -> Vec<Value> {
        let mut v = vec![match self.texture {
            TexSource::Binding(d) => d.index,
            TexSource::Bindless { offset, .. } => offset,
        }];
        v.extend(self.coords.iter().copied());
        v.extend(self.sample);
        v.extend(self.texel.iter().copied());
        v
    }

    /// Applies `f` to every value operand.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(Value) -> Value) {
        match &mut self.texture {
            TexSource::Binding(d) => d.index = f(d.index),
            TexSource::Bindless { offset, .. } => *offset = f(*offset),
        }
        self.coords.iter_mut().for_each(|c| *c = f(*c));
        if let Some(s) = &mut self.sample {
            *s = f(*s);
        }
        self.texel.iter_mut().for_each(|c| *c = f(*c));
    }
}

/// What an [`ImageAtomic`] reaches: a storage image texel, or a storage texel buffer element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicTarget {
    /// `coords` are `dim.axes()` integers (a cube's third is the face, plus 6 x cube in a
    /// cube array), then the layer of an arrayed 1D or 2D image.
    Image { dim: ImageDim, arrayed: bool },
    /// `coords` is the element index.
    Buffer,
}

/// What an [`ImageAtomic`] does to its texel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageAtomicOp {
    Atomic(AtomicOp),
    /// OpAtomicLoad / OpAtomicStore: a plain 32-bit access.
    Load,
    Store,
}

/// OpImageTexelPointer followed by an OpAtomic* on it: `op` on the 32-bit texel at integer
/// `coords` of level 0 of the view bound at `image` (a storage image or storage texel buffer
/// binding element). `value` is the operand (the new value of a compare-exchange or store),
/// `cmp` the comparator of a compare-exchange. Out of bounds it does nothing and gives 0.
/// Until `lower_image_atomics` computes the address (docs/render-abi.md 7.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageAtomic {
    pub image: DescriptorRef,
    pub target: AtomicTarget,
    pub coords: Vec<Value>,
    pub op: ImageAtomicOp,
    pub value: Option<Value>,
    pub cmp: Option<Value>,
}

impl ImageAtomic {
    /// Value operands, in a fixed order.
    pub fn operands(&self) -> Vec<Value> {
        let mut v = vec![self.image.index];
        v.extend(self.coords.iter().copied());
        v.extend(self.value);
        v.extend(self.cmp);
        v
    }

    /// Applies `f` to every value operand.
    pub fn map_operands(&mut self, f: &mut dyn FnMut(Value) -> Value) {
        self.image.index = f(self.image.index);
        self.coords.iter_mut().for_each(|c| *c = f(*c));
        for x in [&mut self.value, &mut self.cmp].into_iter().flatten() {
            *x = f(*x);
        }
    }

    /// Coordinates the target takes.
    pub fn coord_count(&self) -> usize {
        match self.target {
            AtomicTarget::Image { dim, arrayed } => {
                dim.axes() + usize::from(arrayed && dim != ImageDim::Cube)
            }
            AtomicTarget::Buffer => 1,
        }
    }
}
