//! What the ICD calls to build a graphics pipeline and a render pass's tile programs
//! (docs/render-abi.md is the contract these follow).

use crate::{CompileError, ShaderRequest, Stats};
use hw::g13::tilebuffer::{ColourFormat, TibFormat};

/// How one component of a vertex attribute is stored in the vertex buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttribComponent {
    F32,
    U32,
    S32,
    F16,
    Unorm8,
    Snorm8,
    Uint8,
    Sint8,
    /// Integer stored, converted to float (USCALED/SSCALED).
    Uscaled8,
    Sscaled8,
    Unorm16,
    Snorm16,
    Uint16,
    Sint16,
    Uscaled16,
    Sscaled16,
}

/// A vertex attribute format (`VkFormat` of a vertex input attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// `count` (1..=4) components of `comp`; `bgra` swaps components 0 and 2 (B8G8R8A8).
    Plain {
        comp: AttribComponent,
        count: u8,
        bgra: bool,
    },
    /// A2B10G10R10_UNORM_PACK32 / _UINT / _SNORM / _SINT.
    A2B10G10R10 { numeric: hw::g13::tilebuffer::Numeric },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    pub location: u32,
    /// Index into the root table's vertex buffer table.
    pub binding: u32,
    pub format: VertexFormat,
    pub offset: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexBindingDesc {
    pub binding: u32,
    /// `VK_VERTEX_INPUT_RATE_INSTANCE` (divisor 1).
    pub per_instance: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct VertexInputLayout {
    pub attributes: Vec<VertexAttribute>,
    pub bindings: Vec<VertexBindingDesc>,
}

/// `VkBlendFactor`, in Vulkan's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    ConstantAlpha,
    OneMinusConstantAlpha,
    SrcAlphaSaturate,
}

/// `VkBlendOp` (the core five).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendOp {
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

/// `VkLogicOp`, in Vulkan's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOp {
    Clear,
    And,
    AndReverse,
    Copy,
    AndInverted,
    NoOp,
    Xor,
    Or,
    Nor,
    Equivalent,
    Invert,
    OrReverse,
    CopyInverted,
    OrInverted,
    Nand,
    Set,
}

/// One colour attachment's blend state (`VkPipelineColorBlendAttachmentState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlendAttachment {
    pub enable: bool,
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
    /// Bit 0 = R ... bit 3 = A.
    pub write_mask: u8,
}

impl Default for BlendAttachment {
    fn default() -> Self {
        BlendAttachment {
            enable: false,
            src_color: BlendFactor::One,
            dst_color: BlendFactor::Zero,
            color_op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
            write_mask: 0xf,
        }
    }
}

/// A colour attachment of the subpass, as the fragment shader writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColourTarget {
    /// Fragment output location (= colour attachment index).
    pub location: u32,
    pub format: ColourFormat,
    pub tib_format: TibFormat,
    /// Byte offset inside a tilebuffer sample (`Placement::Tile`).
    pub offset: u16,
    pub blend: BlendAttachment,
}

/// Everything the fragment stage's code depends on besides the shader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FragmentState {
    pub targets: Vec<ColourTarget>,
    /// `logicOpEnable`: applies to integer and normalised targets instead of blending.
    pub logic_op: Option<LogicOp>,
    /// Rasterization samples (1 or 4).
    pub samples: u32,
    /// Bytes of one tilebuffer sample.
    pub sample_size_bytes: u32,
}

/// A graphics pipeline's shaders and the fixed state compiled into them.
#[derive(Debug, Clone, Copy)]
pub struct GraphicsPipelineRequest<'a> {
    pub vertex: ShaderRequest<'a>,
    /// `None`: no fragment shader (depth-only rendering).
    pub fragment: Option<ShaderRequest<'a>>,
    pub vertex_input: &'a VertexInputLayout,
    pub fragment_state: &'a FragmentState,
}

/// Shade models of a coefficient binding (mirrors the hardware's, without the provoking
/// vertex, which is pipeline state the ICD adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CfShade {
    Perspective,
    Linear,
    Flat,
}

/// Where a coefficient binding's planes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CfSource {
    /// UVS words `base_slot ..` (slot 3 is clip W: the plane of 1/W).
    Varying { base_slot: u8 },
    FragcoordZ,
}

/// One coefficient binding the ICD packs into the PPP (docs/render-abi.md section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CfBindingDesc {
    pub base_cf: u8,
    pub components: u8,
    pub shade: CfShade,
    pub source: CfSource,
}

/// A compiled vertex or fragment shader and what its launch needs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StageBinary {
    pub code: Vec<u8>,
    pub gpr_halves: u32,
    /// Uniform halves to preload from the root table.
    pub uniform_halves: u32,
    pub stats: Stats,
}

/// A compiled graphics pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GraphicsPipelineBinary {
    pub vertex: StageBinary,
    pub fragment: Option<StageBinary>,
    /// 32-bit words of one vertex's UVS record.
    pub uvs_words: u32,
    /// The vertex shader writes a point size (UVS word 4).
    pub writes_point_size: bool,
    pub cf_bindings: Vec<CfBindingDesc>,
    /// Coefficient registers the fragment launch fills.
    pub cf_registers: u32,
    /// The fragment shader may discard (its coverage output matters: late depth test).
    pub discards: bool,
    /// The fragment shader writes depth (late depth test).
    pub writes_depth: bool,
    pub writes_stencil: bool,
}

/// Compiles a graphics pipeline's vertex and fragment shaders against their fixed state.
pub fn compile_graphics_pipeline(
    req: &GraphicsPipelineRequest<'_>,
) -> Result<GraphicsPipelineBinary, CompileError> {
    let _ = req;
    Err(CompileError::Unsupported(
        "graphics pipelines in the G13 back end".into(),
    ))
}

/// What a background program does to one colour target at the start of a tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TileLoad {
    /// Leave the tilebuffer as it is (undefined contents).
    DontCare,
    /// Write the clear value from uniform halves `8*i ..` (i = the target's index).
    Clear,
    /// Read the attachment through texture state register `texture`.
    Load { texture: u8 },
}

/// What an end-of-tile program does to one colour target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TileStore {
    Discard,
    /// Write the tile through the PBE descriptor in texture state register `texture`.
    Store { texture: u8 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileTarget {
    pub format: ColourFormat,
    pub tib_format: TibFormat,
    /// Byte offset inside a tilebuffer sample.
    pub offset: u16,
}

/// A tile program's targets and per-target operation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TileProgramRequest<Op> {
    pub targets: Vec<(TileTarget, Op)>,
    pub samples: u32,
    pub sample_size_bytes: u32,
}

/// A compiled tile program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TileProgram {
    pub code: Vec<u8>,
    pub gpr_halves: u32,
    /// Uniform halves to preload (clear values).
    pub uniform_halves: u32,
}

/// The background program of a render pass (section 2 of docs/render-abi.md).
pub fn compile_background(
    req: &TileProgramRequest<TileLoad>,
) -> Result<TileProgram, CompileError> {
    let _ = req;
    Err(CompileError::Unsupported("background programs".into()))
}

/// The end-of-tile program of a render pass.
pub fn compile_end_of_tile(
    req: &TileProgramRequest<TileStore>,
) -> Result<TileProgram, CompileError> {
    let _ = req;
    Err(CompileError::Unsupported("end-of-tile programs".into()))
}
