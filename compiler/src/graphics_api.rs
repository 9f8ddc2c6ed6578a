//! What the ICD calls to build a graphics pipeline and a render pass's tile programs
//! (docs/render-abi.md is the contract these follow).

use crate::g13::tile_programs;
use crate::g13::{
    compile_graphics, compile_graphics_split, compile_graphics_with, ColourOutput, FragmentOutputs,
    VaryingLayout, CF_FIRST_VARYING, CF_W, CF_Z, UVS_CLIP_W,
};
use crate::ir::{
    self, GraphicsShader, Interpolation, Node, Op, OutputBuiltin, Space, Stage, SysVal,
};
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
    /// A 32-bit word of three 10-bit channels and a 2-bit alpha in the top bits:
    /// A2B10G10R10 (red in the low bits), or A2R10G10B10 when `bgra` (blue in the low bits).
    Packed1010102 { numeric: PackedNumeric, bgra: bool },
}

/// How the channels of a packed 10:10:10:2 vertex attribute are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PackedNumeric {
    Unorm,
    Snorm,
    Uint,
    Sint,
    /// Integers converted to float (USCALED/SSCALED).
    Uscaled,
    Sscaled,
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
    /// `VK_VERTEX_INPUT_RATE_INSTANCE`.
    pub per_instance: bool,
    /// Instances per element of a per-instance binding (VK_EXT_vertex_attribute_divisor);
    /// 0 gives every instance the first instance's element. 1 unless a divisor is given.
    pub divisor: u32,
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
    /// The dual-source factors: channels of the fragment output at Location 0 Index 1.
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
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
    /// The target does not fit the tilebuffer (`Placement::Spilled`): the shader reads and
    /// writes the attachment in memory (`abi::SPILLED_TARGET_TEXTURE_BASE`).
    pub spilled: bool,
}

/// Where a fragment shader reads one input attachment from (docs/render-abi.md section 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum InputAttachmentSource {
    /// A colour attachment in memory: texture loads through texture state register
    /// `abi::INPUT_ATTACHMENT_TEXTURE_BASE + index`.
    #[default]
    Memory,
    /// A depth/stencil attachment in memory: float reads (depth) through
    /// `abi::INPUT_ATTACHMENT_TEXTURE_BASE + index`, integer reads (stencil) through
    /// `abi::INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE + index`.
    DepthStencil,
    /// The subpass's colour attachment `location` too (a feedback loop): read from its
    /// tilebuffer target, which holds the attachment's current value.
    Tile { location: u32 },
}

/// Everything the fragment stage's code depends on besides the shader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FragmentState {
    pub targets: Vec<ColourTarget>,
    /// How each input attachment (by `InputAttachmentIndex`) is read; indices past the end
    /// read colour attachments in memory.
    pub inputs: Vec<InputAttachmentSource>,
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
    /// A geometry shader (docs/geometry.md).
    pub geometry: Option<ShaderRequest<'a>>,
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
    Varying {
        base_slot: u8,
    },
    FragcoordZ,
    /// The point sprite's coordinates, two components (gl_PointCoord).
    PointCoord,
    /// The primitive's number in its instance (gl_PrimitiveID without a geometry shader).
    PrimitiveId,
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
    /// Per-thread stack bytes (dynamically indexed locals and spills) the launch must give.
    pub scratch_bytes: u32,
    /// The uniform preamble, if the shader has one; its code follows the main shader's in
    /// `code`, and its results start at `abi::GRAPHICS_PREAMBLE_UNIFORM_START`.
    pub preamble: Option<crate::PreambleCode>,
    pub stats: Stats,
}

impl StageBinary {
    /// Uniform halves the launch allocates: the root table's and the preamble's results.
    pub fn launch_uniform_halves(&self) -> u32 {
        self.preamble.map_or(self.uniform_halves, |p| {
            self.uniform_halves.max(p.results_end())
        })
    }

    /// The main shader's code: all of `code` up to the preamble.
    pub fn main_code(&self) -> &[u8] {
        let end = self.preamble.map_or(self.code.len(), |p| p.offset as usize);
        self.code.get(..end).unwrap_or(&self.code)
    }
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
    /// Output Select's `clip_distance_planes`: the user clip planes the clipper tests.
    pub clip_distance_planes: u16,
    pub cf_bindings: Vec<CfBindingDesc>,
    /// Coefficient registers the fragment launch fills.
    pub cf_registers: u32,
    /// The fragment shader may discard (its coverage output matters: late depth test).
    pub discards: bool,
    /// The fragment shader writes depth (late depth test).
    pub writes_depth: bool,
    /// The fragment shader stores to memory or runs atomics: without
    /// [`early_fragment_tests`](Self::early_fragment_tests) it must run before the
    /// depth/stencil test, on every covered sample (late test).
    pub writes_memory: bool,
    /// The fragment shader asks for the depth/stencil test before it (EarlyFragmentTests).
    pub early_fragment_tests: bool,
    pub writes_stencil: bool,
    /// The fragment shader reads input attachments (it depends on
    /// `FragmentState::inputs`).
    pub reads_input_attachments: bool,
    /// The vertex shader's transform feedback capture variant, if it has captured outputs.
    pub xfb: Option<XfbBinary>,
    /// The geometry draw's program, with a geometry shader: `vertex` is then the
    /// rasterization draw's pass-through vertex shader.
    pub geometry: Option<crate::GeometryBinary>,
}

/// The capture variant of a vertex shader (`passes::lower_xfb`): it preloads
/// `abi::XFB_ROOT_TABLE_SIZE` bytes of root table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct XfbBinary {
    pub vertex: StageBinary,
    /// Bytes per vertex of each buffer the shader captures into; 0 for the others.
    pub strides: [u32; crate::ir::XFB_BUFFERS],
}

/// Compiles the capture variant of vertex shader `vs` (lowered vertex input, passes run).
fn compile_xfb(
    vs: &GraphicsShader,
    layout: &VaryingLayout,
) -> Result<Option<XfbBinary>, CompileError> {
    let Some(info) = &vs.xfb else {
        return Ok(None);
    };
    if !(0..crate::ir::XFB_BUFFERS).any(|b| info.used(b)) {
        return Ok(None);
    }
    let mut cap = vs.clone();
    crate::passes::lower_xfb(&mut cap.shader, info)?;
    for pass in [
        crate::passes::const_fold,
        crate::passes::copy_prop,
        crate::passes::cse,
        crate::passes::dce,
    ] {
        pass(&mut cap.shader)?;
    }
    let mut b = stage_binary(compile_graphics(&cap, layout, &FragmentOutputs::default())?);
    b.uniform_halves = crate::abi::XFB_ROOT_TABLE_SIZE / 2;
    let mut strides = [0; crate::ir::XFB_BUFFERS];
    for (i, s) in strides.iter_mut().enumerate() {
        if info.used(i) {
            *s = info.strides[i];
        }
    }
    Ok(Some(XfbBinary { vertex: b, strides }))
}

impl GraphicsPipelineBinary {
    /// The depth/stencil test runs after the fragment shader: it discards or writes depth or
    /// stencil, or it has side effects that samples failing the test must still have, and
    /// it does not ask for early tests.
    pub fn late_tests(&self) -> bool {
        !self.early_fragment_tests
            && (self.discards || self.writes_depth || self.writes_stencil || self.writes_memory)
    }
}

/// Calls `f` for every instruction of `body`.
fn each_inst(body: &[Node], f: &mut impl FnMut(&Op)) {
    for n in body {
        match n {
            Node::Block(insts) => insts.iter().for_each(|i| f(&i.op)),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                each_inst(then_body, f);
                each_inst(else_body, f);
            }
            Node::Loop { body } => each_inst(body, f),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// The varyings a fragment shader reads, in (location, component) order.
fn fragment_inputs(fs: &GraphicsShader) -> Result<Vec<(u32, u8, Interpolation)>, CompileError> {
    let mut v: Vec<(u32, u8, Interpolation)> = Vec::new();
    let mut clash = None;
    each_inst(&fs.shader.body, &mut |op| {
        let (location, component, mode) = match *op {
            Op::LoadInput {
                location,
                component,
                interp,
            } => (location, component, interp.mode),
            Op::InterpolateInput {
                location,
                component,
                mode,
                ..
            } => (location, component, mode),
            // The cull test's flags are linear: their planes are then exactly zero when every
            // vertex's flag is.
            Op::InputPlaneBits {
                location,
                component,
            } => (location, component, Interpolation::NoPerspective),
            _ => return,
        };
        match v.iter().find(|x| x.0 == location && x.1 == component) {
            Some(x) if x.2 != mode => clash = Some(location),
            Some(_) => {}
            None => v.push((location, component, mode)),
        }
    });
    if let Some(l) = clash {
        return Err(CompileError::Unsupported(format!(
            "fragment input location {l} read with two interpolations"
        )));
    }
    v.sort_by_key(|x| (x.0, x.1));
    Ok(v)
}

fn writes_builtin(g: &GraphicsShader, b: OutputBuiltin) -> bool {
    let mut found = false;
    each_inst(&g.shader.body, &mut |op| {
        if matches!(op, Op::StoreBuiltin { builtin, .. } if *builtin == b) {
            found = true;
        }
    });
    found
}

/// Clip distances (planes 0 to n - 1) a vertex shader writes.
fn clip_distances(vs: &GraphicsShader) -> u8 {
    let mut n = 0;
    each_inst(&vs.shader.body, &mut |op| {
        if let Op::StoreBuiltin {
            builtin: OutputBuiltin::ClipDistance(k),
            ..
        } = op
        {
            n = n.max(k + 1);
        }
    });
    n
}

/// Cull distances a vertex shader writes (the flags it stores, see `ir::CULL_FLAG_LOCATION`).
fn cull_distances(vs: &GraphicsShader) -> u32 {
    let mut n = 0;
    each_inst(&vs.shader.body, &mut |op| {
        if let Op::StoreOutput {
            location,
            component,
            ..
        } = *op
        {
            if let Some(group) = location.checked_sub(ir::CULL_FLAG_LOCATION) {
                if group < 2 {
                    n = n.max(4 * group + u32::from(component) + 1);
                }
            }
        }
    });
    n
}

/// Cull distances have no test in the G13 rasterizer (as in Mesa's asahi driver, which does
/// the same): the fragment shader discards every fragment of a primitive whose vertices all
/// have a negative distance for one plane. Each vertex writes a flag (1.0 when the distance
/// is >= 0, else 0.0) interpolated linearly, so the flag's plane coefficients are all zero
/// exactly when every vertex's flag is; the test runs before the shader's own code.
fn add_cull_test(fs: &mut GraphicsShader, planes: u32) {
    if planes == 0 {
        return;
    }
    let sh = &mut fs.shader;
    let mut insts = Vec::new();
    let zero = sh.new_value(ir::Type::I32);
    insts.push(ir::Inst {
        dst: Some(zero),
        op: Op::Const(ir::Constant(vec![0])),
    });
    let mut culled: Option<ir::Value> = None;
    for k in 0..planes {
        let bits = sh.new_value(ir::Type::I32);
        insts.push(ir::Inst {
            dst: Some(bits),
            op: Op::InputPlaneBits {
                location: ir::CULL_FLAG_LOCATION + k / 4,
                component: (k % 4) as u8,
            },
        });
        let is_zero = sh.new_value(ir::Type::BOOL);
        insts.push(ir::Inst {
            dst: Some(is_zero),
            op: Op::Cmp(ir::CmpOp::IEq, bits, zero),
        });
        culled = Some(match culled {
            None => is_zero,
            Some(c) => {
                let or = sh.new_value(ir::Type::BOOL);
                insts.push(ir::Inst {
                    dst: Some(or),
                    op: Op::Binary(ir::BinOp::Or, c, is_zero),
                });
                or
            }
        });
    }
    let Some(cond) = culled else { return };
    let prologue = [
        Node::Block(insts),
        Node::If {
            cond,
            then_body: vec![Node::Block(vec![ir::Inst {
                dst: None,
                op: Op::Discard,
            }])],
            else_body: Vec::new(),
        },
    ];
    sh.body.splice(0..0, prologue);
}

fn shade_of(i: Interpolation) -> CfShade {
    match i {
        Interpolation::Smooth => CfShade::Perspective,
        Interpolation::NoPerspective => CfShade::Linear,
        Interpolation::Flat => CfShade::Flat,
    }
}

/// The coefficient bindings of a varying layout: 1/W, Z, then the varyings (runs of up to
/// four consecutive slots with one shade model share a binding, the hardware's maximum).
/// With `generated_primitive_id` (no geometry shader writes it), the rasterizer gives
/// gl_PrimitiveID's slot the primitive's number instead of a UVS word.
fn cf_bindings(layout: &VaryingLayout, generated_primitive_id: bool) -> Vec<CfBindingDesc> {
    let mut out = vec![
        CfBindingDesc {
            base_cf: CF_W,
            components: 1,
            shade: CfShade::Perspective,
            source: CfSource::Varying {
                base_slot: UVS_CLIP_W,
            },
        },
        CfBindingDesc {
            base_cf: CF_Z,
            components: 1,
            shade: CfShade::Linear,
            source: CfSource::FragcoordZ,
        },
    ];
    for s in &layout.slots {
        let shade = shade_of(s.interp);
        if generated_primitive_id && s.location == crate::ir::PRIMITIVE_ID_LOCATION {
            out.push(CfBindingDesc {
                base_cf: s.cf,
                components: 1,
                shade: CfShade::Flat,
                source: CfSource::PrimitiveId,
            });
            continue;
        }
        if let Some(last) = out.last_mut() {
            if let CfSource::Varying { base_slot } = last.source {
                let next_cf = u16::from(last.base_cf) + u16::from(last.components);
                let next_slot = u16::from(base_slot) + u16::from(last.components);
                if last.base_cf >= CF_FIRST_VARYING
                    && last.shade == shade
                    && next_cf == u16::from(s.cf)
                    && next_slot == u16::from(s.uvs)
                    && last.components < 4
                {
                    last.components += 1;
                    continue;
                }
            }
        }
        out.push(CfBindingDesc {
            base_cf: s.cf,
            components: 1,
            shade,
            source: CfSource::Varying { base_slot: s.uvs },
        });
    }
    if let Some(cf) = layout.point_coord_cf {
        out.push(CfBindingDesc {
            base_cf: cf,
            components: 2,
            shade: CfShade::Linear,
            source: CfSource::PointCoord,
        });
    }
    out
}

pub(crate) fn stage_binary(b: crate::g13::GraphicsBinary) -> StageBinary {
    StageBinary {
        code: b.code,
        gpr_halves: b.gpr_halves,
        uniform_halves: b.uniform_halves,
        scratch_bytes: b.scratch_bytes,
        preamble: b.preamble,
        stats: b.stats,
    }
}

/// The fragment stage's targets as the back end takes them.
fn fragment_outputs(state: &FragmentState) -> Result<FragmentOutputs, CompileError> {
    if !matches!(state.samples, 1 | 2 | 4) {
        return Err(CompileError::Unsupported(format!(
            "{} samples per pixel",
            state.samples
        )));
    }
    let mut colours = Vec::with_capacity(state.targets.len());
    for t in &state.targets {
        if t.format.tib_format() != Some(t.tib_format) {
            return Err(CompileError::Unsupported(format!(
                "colour target {} of {:?} stored as {:?}",
                t.location, t.format, t.tib_format
            )));
        }
        let (n, format) = crate::g13::tib_element_layout(t.format, t.tib_format);
        let end = u32::from(t.offset) + u32::from(n) * format.bytes();
        // A spilled target has no tilebuffer bytes.
        if !t.spilled && end > state.sample_size_bytes.max(1) {
            return Err(CompileError::Unsupported(format!(
                "colour target {} ends at byte {end} of a {}-byte sample",
                t.location, state.sample_size_bytes
            )));
        }
        colours.push(ColourOutput {
            location: t.location,
            offset: t.offset,
            format: t.tib_format,
            colour: t.format,
            blend: t.blend,
            spilled: t.spilled,
        });
    }
    if state.inputs.len() > crate::abi::MAX_INPUT_ATTACHMENTS as usize {
        return Err(CompileError::Unsupported(format!(
            "{} input attachments (at most {})",
            state.inputs.len(),
            crate::abi::MAX_INPUT_ATTACHMENTS
        )));
    }
    for (i, s) in state.inputs.iter().enumerate() {
        if let InputAttachmentSource::Tile { location } = s {
            // A spilled target lives in memory: it is read like any other input attachment.
            if !colours
                .iter()
                .any(|c| c.location == *location && !c.spilled)
            {
                return Err(CompileError::Internal(format!(
                    "input attachment {i} reads colour target {location} from the tilebuffer, which does not hold it"
                )));
            }
        }
    }
    Ok(FragmentOutputs {
        colours,
        inputs: state.inputs.clone(),
        logic_op: state.logic_op,
        samples: state.samples,
    })
}

/// Pipeline state besides the request's that changes the shaders' code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct GraphicsPipelineOptions {
    /// `sampleShadingEnable`: the fragment shader runs once per sample (the highest rate,
    /// which satisfies any `minSampleShading`), as if it read SampleId.
    pub sample_shading: bool,
    /// The topology has adjacency and the pipeline no geometry shader: it runs one that
    /// passes the plain primitive through (`geometry_pipeline::adjacency_passthrough`).
    pub adjacency: Option<crate::ir::InputPrimitive>,
    /// The device may run pipeline statistics queries: the application's fragment shader
    /// counts its invocations (`passes::count_fragment_invocations`).
    pub count_fragment_invocations: bool,
}

/// The multisample state the fragment shader applies itself (the rasterizer has no API
/// sample mask, and alpha is replaced before blending).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoverageOptions {
    /// `pSampleMask` (first word): samples whose bit is clear are killed at the start of the
    /// fragment shader, so they write no colour, depth or stencil and count in no query.
    pub sample_mask: u32,
    /// `alphaToOneEnable`: the alpha of every non-integer colour output is 1.0.
    pub alpha_to_one: bool,
    /// `alphaToCoverageEnable`: the alpha written to location 0 keeps a proportional share of
    /// the samples (the rest are killed like the sample mask's).
    pub alpha_to_coverage: bool,
}

impl Default for CoverageOptions {
    fn default() -> CoverageOptions {
        CoverageOptions {
            sample_mask: u32::MAX,
            alpha_to_one: false,
            alpha_to_coverage: false,
        }
    }
}

impl CoverageOptions {
    /// The mask drops some of `samples` samples.
    pub fn kills_samples(&self, samples: u32) -> bool {
        let all = ((1u64 << samples.min(32)) - 1) as u32;
        self.sample_mask & all != all
    }
}

/// Compiles a graphics pipeline's vertex and fragment shaders against their fixed state.
pub fn compile_graphics_pipeline(
    req: &GraphicsPipelineRequest<'_>,
) -> Result<GraphicsPipelineBinary, CompileError> {
    compile_graphics_pipeline_with(req, &GraphicsPipelineOptions::default())
}

/// [`compile_graphics_pipeline`] with the state in `options`.
pub fn compile_graphics_pipeline_with(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
) -> Result<GraphicsPipelineBinary, CompileError> {
    compile_graphics_pipeline_coverage(req, options, &CoverageOptions::default())
}

/// [`compile_graphics_pipeline_with`] with a sample mask or alpha-to-one.
pub fn compile_graphics_pipeline_coverage(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
    coverage: &CoverageOptions,
) -> Result<GraphicsPipelineBinary, CompileError> {
    let (mut binary, stage) = compile_graphics_pipeline_deferred(req, options, coverage)?;
    let variant = stage.compile(req.vertex_input)?;
    binary.vertex = variant.vertex;
    binary.xfb = variant.xfb;
    binary.geometry = variant.geometry;
    Ok(binary)
}

/// A pipeline's vertex shader before its vertex input layout is known
/// (VK_EXT_vertex_input_dynamic_state): translated and optimised, with the varying layout
/// its pipeline's fragment shader fixed. [`VertexStage::compile`] lowers the attribute
/// fetch for one layout; the layout changes nothing else about the pipeline.
#[derive(Debug, Clone)]
pub struct VertexStage {
    vs: GraphicsShader,
    /// The translated geometry shader, merged with `vs` per layout.
    gs: Option<GraphicsShader>,
    /// `gs` is the generated one of an adjacency topology (`GeometryBinary::generated`).
    gs_generated: bool,
    varyings: VaryingLayout,
    locations: Vec<u32>,
    /// Out-of-range attribute reads are defined (zero): robustness is enabled.
    robust: bool,
    /// The vertex shader's descriptors (which are uniform buffers, for its preamble).
    resources: crate::ResourceLayout,
}

/// A vertex shader compiled against one vertex input layout: its program and its
/// transform feedback capture variant, which reads the same attributes. With a geometry
/// shader, `geometry` is the merged program that fetches the attributes, and `vertex` and
/// `xfb` are the pass-through shader's (the same for every layout).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VertexVariant {
    pub vertex: StageBinary,
    pub xfb: Option<XfbBinary>,
    pub geometry: Option<crate::GeometryBinary>,
}

impl VertexStage {
    /// The input locations the shader reads, in increasing order: only the attributes at
    /// these locations (and their bindings) change its code.
    pub fn locations(&self) -> &[u32] {
        &self.locations
    }

    /// The programs of the shader fetching its attributes as `input` describes.
    pub fn compile(&self, input: &VertexInputLayout) -> Result<VertexVariant, CompileError> {
        let mut vs = self.vs.clone();
        crate::passes::lower_vertex_input(&mut vs.shader, input, self.robust)?;
        let geometry = match &self.gs {
            Some(g) => {
                let (mut binary, passthrough) = crate::geometry_pipeline::compile_geometry(&vs, g)?;
                binary.generated = self.gs_generated;
                vs = passthrough;
                Some(binary)
            }
            None => None,
        };
        // Transform feedback captures gl_PointSize as written; only the rasterized size is
        // clamped.
        let unclamped = vs.clone();
        crate::passes::clamp_point_size(
            &mut vs.shader,
            hw::g13::points::POINT_SIZE_MIN,
            hw::g13::points::POINT_SIZE_MAX,
        )?;
        // The fetch's conversions meet the shader's own here (a float of an integer
        // attribute is the float of the element as loaded).
        for pass in [
            crate::passes::const_fold,
            crate::passes::copy_prop,
            crate::passes::algebraic,
            crate::passes::copy_prop,
            crate::passes::cse,
            crate::passes::dce,
        ] {
            pass(&mut vs.shader)?;
        }
        let none = FragmentOutputs::default();
        let mut vbin = match geometry {
            // The pass-through shader of a geometry draw reads the geometry root table, which
            // leaves no room for preamble results.
            Some(_) => compile_graphics(&vs, &self.varyings, &none)?,
            None => compile_graphics_split(
                &vs,
                &self.varyings,
                &none,
                &CoverageOptions::default(),
                &self.resources,
            )?,
        };
        let mut xfb = compile_xfb(&unclamped, &self.varyings)?;
        if geometry.is_some() {
            // The pass-through vertex shader and its capture variant read records through the
            // geometry root table.
            vbin.uniform_halves = crate::abi::GEOMETRY_ROOT_TABLE_SIZE / 2;
            if let Some(x) = &mut xfb {
                x.vertex.uniform_halves = crate::abi::GEOMETRY_ROOT_TABLE_SIZE / 2;
            }
        }
        Ok(VertexVariant {
            vertex: stage_binary(vbin),
            xfb,
            geometry,
        })
    }
}

/// A pipeline's shaders translated, with the varying layout between them: what the rest of
/// the pipeline and a fragment variant are both compiled from. The vertex shader's fetch is
/// not lowered yet, so no vertex input layout is needed (a fragment variant of a pipeline
/// with a dynamic vertex input layout comes from here too).
struct Front {
    vs: GraphicsShader,
    /// The translated geometry shader, merged with `vs` per vertex input layout.
    gs: Option<GraphicsShader>,
    fs: Option<GraphicsShader>,
    layout: VaryingLayout,
    point_size: bool,
}

fn front(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
) -> Result<Front, CompileError> {
    if req.vertex.stage != Stage::Vertex {
        return Err(CompileError::Internal(format!(
            "vertex stage request for a {:?} shader",
            req.vertex.stage
        )));
    }
    // What the vertex shader writes (point size, clip and cull distances) is read before
    // its fetch is lowered: no vertex input layout adds or removes an output store. With a
    // geometry shader, the rest of the pipeline sees the pass-through vertex shader, which
    // depends on the geometry shader's outputs only.
    let vs = crate::translate_graphics(&req.vertex)?;
    let gs = match (&req.geometry, options.adjacency) {
        (Some(g), _) => Some(crate::geometry_pipeline::translate_geometry(g)?),
        (None, Some(input)) => Some(crate::geometry_pipeline::adjacency_passthrough(&vs, input)?),
        (None, None) => None,
    };
    let shape = match &gs {
        Some(g) => crate::geometry_pipeline::passthrough_of(g)?,
        None => vs.clone(),
    };
    let mut fs = match &req.fragment {
        Some(f) => {
            if f.stage != Stage::Fragment {
                return Err(CompileError::Internal(format!(
                    "fragment stage request for a {:?} shader",
                    f.stage
                )));
            }
            let mut g = crate::translate_graphics(f)?;
            g.per_sample |= options.sample_shading;
            if g.per_sample {
                crate::passes::guard_helper_writes(&mut g.shader)?;
            }
            Some(g)
        }
        // A pipeline without a fragment stage still gets an empty fragment shader: PPP
        // updates are incremental, so a draw that bound none would run the previous draw's,
        // and a sample mask needs a shader to apply it.
        None => Some(GraphicsShader {
            stage: Stage::Fragment,
            ..GraphicsShader::default()
        }),
    };
    if let Some(fs) = &mut fs {
        add_cull_test(fs, cull_distances(&shape));
    }
    let inputs = match &fs {
        Some(fs) => fragment_inputs(fs)?,
        None => Vec::new(),
    };
    if gs.is_none() && inputs.iter().any(|i| i.0 == crate::ir::LAYER_LOCATION) {
        return Err(CompileError::Unsupported(
            "gl_Layer in a fragment shader without a geometry shader".into(),
        ));
    }
    let point_size = writes_builtin(&shape, OutputBuiltin::PointSize);
    let mut layout = VaryingLayout::new(&inputs, point_size)?;
    layout.add_clip_distances(clip_distances(&shape))?;
    if let Some(fs) = &fs {
        let mut reads = false;
        each_inst(&fs.shader.body, &mut |op| {
            reads |= matches!(op, Op::SysVal(SysVal::PointCoord(_)));
        });
        if reads {
            layout.add_point_coord()?;
        }
    }
    Ok(Front {
        vs,
        gs,
        fs,
        layout,
        point_size,
    })
}

/// A fragment shader compiled by [`compile_fragment_variant`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FragmentVariantBinary {
    pub stage: StageBinary,
    /// The shader may discard (as [`GraphicsPipelineBinary::discards`]): a sample mask or
    /// alpha to coverage makes it kill samples.
    pub discards: bool,
}

/// Compiles the fragment shader of a pipeline for `req.fragment_state` and `coverage`: the
/// code the whole pipeline gets for them, everything else unchanged. This is how a driver
/// makes the variant of a pipeline whose blend state, write masks, logic op, sample mask or
/// alpha to coverage/one are dynamic (they are compiled into the shader).
/// `req.vertex_input` is not read. `None` if the pipeline has no fragment stage at all.
pub fn compile_fragment_variant(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
    coverage: &CoverageOptions,
) -> Result<Option<FragmentVariantBinary>, CompileError> {
    let f = front(req, options)?;
    match &f.fs {
        Some(fs) => {
            let b = compile_fragment(req, options, fs, &f.layout, coverage)?;
            let discards = b.discards;
            Ok(Some(FragmentVariantBinary {
                stage: stage_binary(b),
                discards,
            }))
        }
        None => Ok(None),
    }
}

/// Compiles the fragment program `fs` of the pipeline `req` for `coverage`. The
/// application's fragment stage counts its invocations for pipeline statistics queries when
/// the device may run them; the empty stand-in of a pipeline without one never does.
fn compile_fragment(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
    fs: &GraphicsShader,
    layout: &VaryingLayout,
    coverage: &CoverageOptions,
) -> Result<crate::g13::GraphicsBinary, CompileError> {
    let outputs = fragment_outputs(req.fragment_state)?;
    let Some(f) = &req.fragment else {
        return compile_graphics_with(fs, layout, &outputs, coverage);
    };
    if options.count_fragment_invocations {
        let mut counted = fs.clone();
        crate::passes::count_fragment_invocations(&mut counted.shader)?;
        compile_graphics_split(&counted, layout, &outputs, coverage, f.layout)
    } else {
        compile_graphics_split(fs, layout, &outputs, coverage, f.layout)
    }
}

/// Compiles a graphics pipeline whose vertex input layout is given at draw time (the
/// request's `vertex_input` is not read): everything but the vertex programs, which
/// [`VertexStage::compile`] makes per layout. The binary's `vertex` has no code and its
/// `xfb` is None.
pub fn compile_graphics_pipeline_deferred(
    req: &GraphicsPipelineRequest<'_>,
    options: &GraphicsPipelineOptions,
    coverage: &CoverageOptions,
) -> Result<(GraphicsPipelineBinary, VertexStage), CompileError> {
    let Front {
        vs,
        gs,
        fs,
        layout,
        point_size,
    } = front(req, options)?;
    let (fragment, discards, writes_depth) = match &fs {
        Some(fs) => {
            let b = compile_fragment(req, options, fs, &layout, coverage)?;
            let discards = b.discards;
            let depth = writes_builtin(fs, OutputBuiltin::FragDepth);
            (Some(stage_binary(b)), discards, depth)
        }
        None => (None, false, false),
    };
    let mut reads_input_attachments = false;
    let mut writes_memory = false;
    if let Some(fs) = &fs {
        each_inst(&fs.shader.body, &mut |op| {
            reads_input_attachments |= matches!(op, Op::LoadInputAttachment { .. });
            writes_memory |= matches!(
                op,
                Op::Store {
                    space: Space::Global,
                    ..
                } | Op::Atomic {
                    space: Space::Global,
                    ..
                } | Op::ImageStore(_)
                    | Op::ImageAtomic(_)
            );
        });
    }
    let binary = GraphicsPipelineBinary {
        vertex: StageBinary {
            code: Vec::new(),
            gpr_halves: 0,
            uniform_halves: 0,
            scratch_bytes: 0,
            preamble: None,
            stats: Stats::default(),
        },
        fragment,
        uvs_words: layout.uvs_words,
        writes_point_size: point_size,
        clip_distance_planes: layout.clip_distance_planes(),
        cf_bindings: cf_bindings(&layout, gs.is_none()),
        cf_registers: layout.cf_slots,
        discards,
        writes_depth,
        writes_memory,
        early_fragment_tests: fs.as_ref().is_some_and(|f| f.early_fragment_tests),
        writes_stencil: false,
        reads_input_attachments,
        xfb: None,
        geometry: None,
    };
    let locations = crate::passes::vertex_input_locations(&vs.shader);
    Ok((
        binary,
        VertexStage {
            vs,
            gs,
            gs_generated: req.geometry.is_none(),
            varyings: layout,
            locations,
            robust: req.vertex.layout.buffer_robustness == crate::BufferRobustness::Checked,
            resources: req.vertex.layout.clone(),
        },
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
    /// A target that does not fit the tilebuffer (it lives in memory): write the clear
    /// value from uniform halves `8*i ..` to every sample of the tile's pixels through the
    /// PBE descriptor in texture state register `texture`.
    ClearImage { texture: u8 },
}

/// What an end-of-tile program does to one colour target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TileStore {
    Discard,
    /// Write the tile through the PBE descriptor in texture state register `texture`.
    Store {
        texture: u8,
    },
    /// Average the target's samples (sample 0 alone for integer formats) and write the
    /// result through the single-sample PBE descriptor in texture state register `texture`
    /// (a resolve attachment). A target may appear twice in a request: stored and resolved.
    Resolve {
        texture: u8,
    },
    /// A multisampled target that does not fit the tilebuffer: the mean of its samples
    /// (sample 0 for integer formats) read from memory through the texture descriptor in
    /// register `source`, written through the single-sample PBE descriptor in `texture`.
    ResolveImage {
        source: u8,
        texture: u8,
    },
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

fn tile_program(
    targets: Vec<tile_programs::Target>,
    samples: u32,
    sample_size_bytes: u32,
) -> Result<TileProgram, CompileError> {
    for t in &targets {
        // Targets kept in memory have no tilebuffer bytes.
        if matches!(
            t.op,
            tile_programs::Op::ClearImage { .. } | tile_programs::Op::ResolveImage { .. }
        ) {
            continue;
        }
        let (n, f) = crate::g13::tib_element_layout(t.colour, t.format);
        let end = u32::from(t.offset) + u32::from(n) * f.bytes();
        if end > sample_size_bytes {
            return Err(CompileError::Unsupported(format!(
                "tile target at byte {} ends past the {sample_size_bytes}-byte sample",
                t.offset
            )));
        }
        if t.colour.tib_format() != Some(t.format) && !matches!(t.op, tile_programs::Op::Nothing) {
            return Err(CompileError::Unsupported(format!(
                "{:?} stored as {:?} in the tilebuffer",
                t.colour, t.format
            )));
        }
    }
    let c = tile_programs::compile_tile_program(&targets, samples)?;
    Ok(TileProgram {
        code: c.code,
        gpr_halves: c.gpr_halves,
        uniform_halves: c.uniform_halves,
    })
}

fn tile_target(t: &TileTarget, op: tile_programs::Op) -> tile_programs::Target {
    tile_programs::Target {
        colour: t.format,
        format: t.tib_format,
        offset: t.offset,
        op,
    }
}

/// The background program of a render pass (section 2 of docs/render-abi.md).
pub fn compile_background(req: &TileProgramRequest<TileLoad>) -> Result<TileProgram, CompileError> {
    let mut targets = Vec::with_capacity(req.targets.len());
    for (i, (t, op)) in req.targets.iter().enumerate() {
        let uniform_half = || {
            u16::try_from(8 * i)
                .ok()
                .filter(|&h| h + 8 <= hw::isa::UNIFORM_HALVES)
                .ok_or_else(|| CompileError::Limit(format!("clear value of target {i}")))
        };
        let op = match *op {
            TileLoad::DontCare => tile_programs::Op::Nothing,
            TileLoad::Clear => tile_programs::Op::Clear {
                uniform_half: uniform_half()?,
            },
            TileLoad::Load { texture } => tile_programs::Op::Load { texture },
            TileLoad::ClearImage { texture } => tile_programs::Op::ClearImage {
                uniform_half: uniform_half()?,
                texture,
            },
        };
        targets.push(tile_target(t, op));
    }
    tile_program(targets, req.samples, req.sample_size_bytes)
}

/// The end-of-tile program of a render pass.
pub fn compile_end_of_tile(
    req: &TileProgramRequest<TileStore>,
) -> Result<TileProgram, CompileError> {
    let targets = req
        .targets
        .iter()
        .map(|(t, op)| {
            let op = match *op {
                TileStore::Discard => tile_programs::Op::Nothing,
                TileStore::Store { texture } => tile_programs::Op::Store { texture },
                TileStore::Resolve { texture } => tile_programs::Op::Resolve { texture },
                TileStore::ResolveImage { source, texture } => {
                    tile_programs::Op::ResolveImage { source, texture }
                }
            };
            tile_target(t, op)
        })
        .collect();
    tile_program(targets, req.samples, req.sample_size_bytes)
}
