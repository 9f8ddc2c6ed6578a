//! Module-level parsing and checks: header, capabilities, decorations, types, the entry point.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Capability, Decoration, Op, StorageClass, Word};

use crate::CompileError;

pub(super) fn invalid(msg: impl Into<String>) -> CompileError {
    CompileError::InvalidSpirv(msg.into())
}

pub(super) fn unsupported(msg: impl Into<String>) -> CompileError {
    CompileError::Unsupported(msg.into())
}

/// Capabilities a plain GLSL 450 compute shader needs. Everything else is refused by name.
const ALLOWED_CAPABILITIES: &[Capability] = &[
    Capability::Shader,
    Capability::Matrix,
    Capability::Int64,
    Capability::DemoteToHelperInvocation,
    // Xfb outputs: captured by the vertex shader's capture variant (passes::lower_xfb).
    Capability::TransformFeedback,
    // Sample-qualified inputs and SampleId: the shader runs per sample.
    Capability::SampleRateShading,
    // subpassInput: read with a texture load (docs/render-abi.md section 4).
    Capability::InputAttachment,
    // ViewIndex: a word of the graphics root table (docs/render-abi.md section 5).
    Capability::MultiView,
    // Clip distances: user planes of the clipper; cull distances: the fragment shader's cull
    // test (frontend::stage_io, graphics_api::add_cull_test).
    Capability::ClipDistance,
    Capability::CullDistance,
    // Fine and coarse derivatives: the hardware's quad derivative is the fine one.
    Capability::DerivativeControl,
    // interpolateAtCentroid/Sample/Offset (frontend::fragment_ops).
    Capability::InterpolationFunction,
    // BaseVertex, BaseInstance, DrawIndex: words of the graphics root table
    // (docs/render-abi.md section 5).
    Capability::DrawParameters,
    // DeviceIndex: a device group of one device, so always 0 (VK_KHR_device_group).
    Capability::DeviceGroup,
    // Images and samplers in descriptor sets (frontend::image, docs/render-abi.md section 7).
    Capability::Sampled1D,
    Capability::Image1D,
    Capability::SampledCubeArray,
    // Storage cube arrays are 2D arrays of faces (layer = face + 6 x cube).
    Capability::ImageCubeArray,
    Capability::ImageQuery,
    Capability::ImageGatherExtended,
    Capability::MinLod,
    // Texel buffers (passes::lower_texel_buffers, docs/render-abi.md section 7.1).
    Capability::SampledBuffer,
    Capability::ImageBuffer,
    // Storage images of Unknown format: loads decode what the texture descriptor says and
    // stores encode what the PBE descriptor says, so the shader never needs the format.
    Capability::StorageImageReadWithoutFormat,
    Capability::StorageImageWriteWithoutFormat,
    // The extended storage formats (two-channel, 16-bit normalised, packed) are views like
    // any other: the descriptors carry the format.
    Capability::StorageImageExtendedFormats,
    // Buffer device addresses: pointers are 64-bit GPU addresses (frontend::physical).
    Capability::PhysicalStorageBufferAddresses,
    // GroupNonUniform* (frontend/subgroup.rs).
    Capability::GroupNonUniform,
    Capability::GroupNonUniformVote,
    Capability::GroupNonUniformBallot,
    Capability::GroupNonUniformArithmetic,
    Capability::GroupNonUniformClustered,
    Capability::GroupNonUniformShuffle,
    Capability::GroupNonUniformShuffleRelative,
    Capability::GroupNonUniformQuad,
    // 8- and 16-bit types: 16-bit values live in 16-bit register halves and use the ALU's
    // 16-bit forms; 8-bit ones sit zero-extended in halves (frontend::small_types).
    Capability::Float16,
    Capability::Int16,
    Capability::Int8,
    // ...and in buffer and push-constant memory: halfword and byte accesses.
    Capability::StorageBuffer16BitAccess,
    Capability::UniformAndStorageBuffer16BitAccess,
    Capability::StoragePushConstant16,
    Capability::StorageBuffer8BitAccess,
    Capability::UniformAndStorageBuffer8BitAccess,
    Capability::StoragePushConstant8,
    // The Vulkan memory model: availability and visibility are per access (frontend::memory).
    Capability::VulkanMemoryModel,
    Capability::VulkanMemoryModelDeviceScope,
    // Integer dot products, lowered to multiplies and adds (frontend::dot_product).
    Capability::DotProduct,
    Capability::DotProductInputAll,
    Capability::DotProductInput4x8Bit,
    Capability::DotProductInput4x8BitPacked,
    // Uniform and UniformId are hints that agx4 does not need.
    Capability::UniformDecoration,
    // Descriptor indexing: each lane reads its own descriptor (buffer descriptors are
    // per-lane loads, texture and PBE descriptors bindless with a per-lane offset, as on the
    // hardware, which Mesa's hk reports as native), so NonUniform marks need no lowering;
    // runtime-sized descriptor arrays take their size from the set layout.
    Capability::ShaderNonUniform,
    Capability::RuntimeDescriptorArray,
    // Vulkan 1.0's dynamically uniform indexing is the non-uniform case's subset; Zink
    // declares these whenever it indexes an array of blocks or samplers.
    Capability::UniformBufferArrayDynamicIndexing,
    Capability::SampledImageArrayDynamicIndexing,
    Capability::StorageBufferArrayDynamicIndexing,
    Capability::StorageImageArrayDynamicIndexing,
    Capability::UniformTexelBufferArrayDynamicIndexing,
    Capability::StorageTexelBufferArrayDynamicIndexing,
    Capability::UniformBufferArrayNonUniformIndexing,
    Capability::SampledImageArrayNonUniformIndexing,
    Capability::StorageBufferArrayNonUniformIndexing,
    Capability::StorageImageArrayNonUniformIndexing,
    Capability::UniformTexelBufferArrayNonUniformIndexing,
    Capability::StorageTexelBufferArrayNonUniformIndexing,
];

/// Capabilities of geometry shaders (a fragment shader that reads gl_PrimitiveID declares
/// Geometry too). GeometryStreams: EmitStreamVertex to stream 0 is an EmitVertex; other
/// streams are refused where they are used.
const GEOMETRY_CAPABILITIES: &[Capability] = &[
    Capability::Geometry,
    Capability::GeometryPointSize,
    Capability::GeometryStreams,
];

/// Parses the words with rspirv and checks the header and capabilities.
/// `words` without the debug instructions that carry strings (OpSourceContinued, OpSource,
/// OpSourceExtension, OpName, OpMemberName, OpString, OpLine, OpModuleProcessed), or `None`
/// if the instruction stream is malformed.
fn without_debug_strings(words: &[u32]) -> Option<Vec<u32>> {
    const DEBUG: [u32; 8] = [2, 3, 4, 5, 6, 7, 8, 330];
    let mut out = words.get(..5)?.to_vec();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        let inst = words.get(at..at + n).filter(|_| n > 0)?;
        if !DEBUG.contains(&op) {
            out.extend_from_slice(inst);
        }
        at += n;
    }
    Some(out)
}

/// Literal operands of OpSpecConstantOp beyond the first, keyed by result id.
type SpecOpTails = HashMap<Word, Vec<u32>>;

/// rspirv reads one operand per grammar entry inside OpSpecConstantOp, so the index lists of
/// CompositeExtract, CompositeInsert and VectorShuffle stop after their first literal and the
/// rest is a parse error. This cuts each such instruction down to what rspirv reads and keeps
/// the other literals, which `restore_spec_op_tails` puts back after parsing.
/// `None` if the instruction stream is malformed (rspirv then says where).
fn split_spec_op_tails(words: &[u32]) -> Option<(Vec<u32>, SpecOpTails)> {
    const SPEC_CONSTANT_OP: u32 = Op::SpecConstantOp as u32;
    let mut out = words.get(..5)?.to_vec();
    let mut tails = SpecOpTails::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        let inst = words.get(at..at + n).filter(|_| n > 0)?;
        at += n;
        // Words: header, result type, result id, opcode, then the ids and the literals.
        let ids = match (words[at - n] & 0xffff, inst.get(3).copied()) {
            (SPEC_CONSTANT_OP, Some(op)) if op == Op::CompositeExtract as u32 => 1,
            (SPEC_CONSTANT_OP, Some(op))
                if op == Op::CompositeInsert as u32 || op == Op::VectorShuffle as u32 =>
            {
                2
            }
            _ => {
                out.extend_from_slice(inst);
                continue;
            }
        };
        let keep = (4 + ids + 1).min(n);
        out.push(((keep as u32) << 16) | SPEC_CONSTANT_OP);
        out.extend_from_slice(&inst[1..keep]);
        if n > keep {
            tails.insert(inst[2], inst[keep..].to_vec());
        }
    }
    Some((out, tails))
}

/// Puts back the literals `split_spec_op_tails` kept aside.
fn restore_spec_op_tails(module: &mut Module, mut tails: SpecOpTails) {
    for inst in &mut module.types_global_values {
        if inst.class.opcode != Op::SpecConstantOp {
            continue;
        }
        if let Some(tail) = inst.result_id.and_then(|r| tails.remove(&r)) {
            inst.operands
                .extend(tail.into_iter().map(Operand::LiteralBit32));
        }
    }
}

pub(super) fn parse(words: &[u32]) -> Result<Module, CompileError> {
    if words.len() < 5 {
        return Err(invalid("module shorter than its 5-word header"));
    }
    if words[0] != spirv::MAGIC_NUMBER {
        return Err(invalid(format!("bad magic number {:#010x}", words[0])));
    }
    let version = words[1];
    if version & 0xff00_00ff != 0 || !(0x0001_0000..=0x0001_0600).contains(&version) {
        return Err(invalid(format!(
            "unknown SPIR-V version word {version:#010x}"
        )));
    }
    if words[3] == 0 || words[3] > 0x40_0000 {
        return Err(invalid(format!("unreasonable id bound {}", words[3])));
    }
    // rspirv reports malformed streams as errors; the unwind guard only protects callers from
    // a panic inside the library on input it did not expect.
    let load = |w: &[u32]| std::panic::catch_unwind(|| rspirv::dr::load_words(w));
    let (words, lifted) = match super::rspirv_gaps::lift(words) {
        Some((w, l)) if !l.is_empty() => (std::borrow::Cow::Owned(w), l),
        _ => (std::borrow::Cow::Borrowed(words), Default::default()),
    };
    let words: &[u32] = &words;
    let (words, tails) = match split_spec_op_tails(words) {
        Some((w, t)) if !t.is_empty() => (std::borrow::Cow::Owned(w), t),
        _ => (std::borrow::Cow::Borrowed(words), SpecOpTails::new()),
    };
    let words: &[u32] = &words;
    let mut module = match load(words) {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => {
            // rspirv insists on UTF-8 in every string; debug names and sources need not be
            // (they mean nothing to the driver), so a module whose only fault is there
            // parses without them.
            match without_debug_strings(words).map(|w| load(&w)) {
                Some(Ok(Ok(m))) => m,
                _ => return Err(invalid(format!("parse error: {e}"))),
            }
        }
        Err(_) => return Err(invalid("parser rejected the instruction stream")),
    };
    restore_spec_op_tails(&mut module, tails);
    super::rspirv_gaps::restore(&mut module, lifted).map_err(invalid)?;
    for cap in &module.capabilities {
        match cap.operands.first() {
            Some(Operand::Capability(c)) if ALLOWED_CAPABILITIES.contains(c) => {}
            Some(Operand::Capability(c)) if GEOMETRY_CAPABILITIES.contains(c) => {}
            Some(Operand::Capability(c)) => return Err(unsupported(format!("capability {c:?}"))),
            _ => return Err(invalid("OpCapability without a capability operand")),
        }
    }
    for ext in &module.extensions {
        match ext.operands.first() {
            Some(Operand::LiteralString(s))
                if s == "SPV_KHR_storage_buffer_storage_class"
                    || s == "SPV_EXT_descriptor_indexing"
                    || s == "SPV_KHR_non_semantic_info"
                    || s == "SPV_EXT_demote_to_helper_invocation"
                    || s == "SPV_KHR_multiview"
                    || s == "SPV_KHR_device_group"
                    || s == "SPV_KHR_shader_draw_parameters"
                    || s == "SPV_KHR_physical_storage_buffer"
                    || s == "SPV_EXT_physical_storage_buffer"
                    || s == "SPV_KHR_16bit_storage"
                    || s == "SPV_KHR_8bit_storage"
                    || s == "SPV_KHR_vulkan_memory_model"
                    || s == "SPV_KHR_terminate_invocation"
                    || s == "SPV_KHR_integer_dot_product"
                    // Reflection decorations for HLSL front ends; nothing to compile.
                    || s == "SPV_GOOGLE_hlsl_functionality1"
                    || s == "SPV_GOOGLE_user_type"
                    || s == "SPV_GOOGLE_decorate_string" => {}
            Some(Operand::LiteralString(s)) => return Err(unsupported(format!("extension {s}"))),
            _ => return Err(invalid("OpExtension without a name")),
        }
    }
    match module.memory_model.as_ref().map(|m| m.operands.as_slice()) {
        Some(
            [Operand::AddressingModel(
                spirv::AddressingModel::Logical | spirv::AddressingModel::PhysicalStorageBuffer64,
            ), Operand::MemoryModel(
                spirv::MemoryModel::GLSL450
                | spirv::MemoryModel::Simple
                | spirv::MemoryModel::Vulkan,
            )],
        ) => {}
        Some(_) => {
            return Err(unsupported(
                "addressing model other than Logical or PhysicalStorageBuffer64, or memory model other than GLSL450 or Vulkan",
            ))
        }
        None => return Err(invalid("missing OpMemoryModel")),
    }
    Ok(module)
}

/// Reads operand `i` as an id.
pub(super) fn id(inst: &Instruction, i: usize) -> Result<Word, CompileError> {
    match inst.operands.get(i) {
        Some(Operand::IdRef(w))
        | Some(Operand::IdScope(w))
        | Some(Operand::IdMemorySemantics(w)) => Ok(*w),
        _ => Err(invalid(format!(
            "{:?}: operand {i} is not an id",
            inst.class.opcode
        ))),
    }
}

/// Reads operand `i` as a 32-bit literal (any enum operand counts as its number).
pub(super) fn lit(inst: &Instruction, i: usize) -> Result<u32, CompileError> {
    match inst.operands.get(i) {
        Some(Operand::LiteralBit32(w)) | Some(Operand::LiteralExtInstInteger(w)) => Ok(*w),
        Some(Operand::IdRef(w)) => Ok(*w),
        Some(Operand::Decoration(d)) => Ok(*d as u32),
        Some(Operand::BuiltIn(b)) => Ok(*b as u32),
        _ => Err(invalid(format!(
            "{:?}: operand {i} is not a literal",
            inst.class.opcode
        ))),
    }
}

pub(super) fn result_id(inst: &Instruction) -> Result<Word, CompileError> {
    inst.result_id
        .ok_or_else(|| invalid(format!("{:?} without a result id", inst.class.opcode)))
}

pub(super) fn result_type(inst: &Instruction) -> Result<Word, CompileError> {
    inst.result_type
        .ok_or_else(|| invalid(format!("{:?} without a result type", inst.class.opcode)))
}

/// A SPIR-V type as the front end needs it. The only images are subpass inputs
/// (`Dim SubpassData`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum SpvType {
    Void,
    Bool,
    Int {
        signed: bool,
        width: u32,
    },
    Float {
        width: u32,
    },
    Vector {
        elem: Word,
        n: u32,
    },
    Matrix {
        col: Word,
        cols: u32,
    },
    Array {
        elem: Word,
        len: u32,
    },
    RuntimeArray {
        elem: Word,
    },
    Struct {
        members: Vec<Word>,
    },
    Pointer {
        sc: StorageClass,
        pointee: Word,
    },
    Function,
    SubpassImage {
        sampled: Word,
        ms: bool,
    },
    /// OpTypeImage of a dimension agx4 reads (1D, 2D, 3D, cube, buffer).
    Image(ImageType),
    Sampler,
    SampledImage {
        image: Word,
    },
    /// An image other than a subpass input, a sampler or a sampled image: a module may
    /// declare these, but agx4 makes no variables or values of them.
    Opaque,
}

/// What the front end needs of an OpTypeImage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ImageType {
    /// The sampled type (float or integer scalar).
    pub sampled: Word,
    pub dim: crate::ir::ImageDim,
    pub arrayed: bool,
    pub ms: bool,
    /// The Depth operand is 1: a depth image (comparisons allowed either way in Vulkan).
    pub depth: bool,
    /// The Sampled operand: 1 with a sampler, 2 storage, 0 unknown.
    pub usage: u32,
}

/// Decorations of ids and of struct members.
/// Decorations with their literal operands.
type DecorationList = Vec<(Decoration, Vec<u32>)>;

#[derive(Default)]
pub(super) struct Decorations {
    pub ids: HashMap<Word, DecorationList>,
    pub members: HashMap<(Word, u32), DecorationList>,
}

impl Decorations {
    pub fn get(&self, id: Word, d: Decoration) -> Option<&[u32]> {
        self.ids
            .get(&id)?
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, v)| v.as_slice())
    }

    pub fn has(&self, id: Word, d: Decoration) -> bool {
        self.get(id, d).is_some()
    }

    pub fn member(&self, id: Word, m: u32, d: Decoration) -> Option<&[u32]> {
        self.members
            .get(&(id, m))?
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, v)| v.as_slice())
    }
}

fn rest_literals(inst: &Instruction, from: usize) -> Vec<u32> {
    inst.operands[from.min(inst.operands.len())..]
        .iter()
        .map(|o| match o {
            Operand::LiteralBit32(w) | Operand::IdRef(w) => *w,
            Operand::BuiltIn(b) => *b as u32,
            Operand::FPRoundingMode(m) => *m as u32,
            _ => 0,
        })
        .collect()
}

pub(super) fn collect_decorations(module: &Module) -> Result<Decorations, CompileError> {
    let mut d = Decorations::default();
    for inst in &module.annotations {
        match inst.class.opcode {
            Op::Decorate | Op::DecorateId => {
                let target = id(inst, 0)?;
                let Some(Operand::Decoration(dec)) = inst.operands.get(1) else {
                    return Err(invalid("OpDecorate without a decoration"));
                };
                d.ids
                    .entry(target)
                    .or_default()
                    .push((*dec, rest_literals(inst, 2)));
            }
            Op::MemberDecorate => {
                let target = id(inst, 0)?;
                let member = lit(inst, 1)?;
                let Some(Operand::Decoration(dec)) = inst.operands.get(2) else {
                    return Err(invalid("OpMemberDecorate without a decoration"));
                };
                d.members
                    .entry((target, member))
                    .or_default()
                    .push((*dec, rest_literals(inst, 3)));
            }
            // A group's decorations (OpDecorates of the group id, which come first) are
            // copied to every target the group is applied to.
            Op::DecorationGroup => {}
            Op::GroupDecorate => {
                let group = id(inst, 0)?;
                let decos = d.ids.get(&group).cloned().unwrap_or_default();
                for k in 1..inst.operands.len() {
                    d.ids
                        .entry(id(inst, k)?)
                        .or_default()
                        .extend(decos.iter().cloned());
                }
            }
            Op::GroupMemberDecorate => {
                let group = id(inst, 0)?;
                let decos = d.ids.get(&group).cloned().unwrap_or_default();
                for k in (1..inst.operands.len()).step_by(2) {
                    let target = id(inst, k)?;
                    let member = lit(inst, k + 1)?;
                    d.members
                        .entry((target, member))
                        .or_default()
                        .extend(decos.iter().cloned());
                }
            }
            _ => {}
        }
    }
    Ok(d)
}

/// The constants of a module, or why one of them could not be evaluated.
pub(super) type ConstsOrError = Result<super::constants::Constants, CompileError>;

/// The type table and the constants of a module, built in one walk of its
/// types-and-globals section because each needs the other (array lengths are constants,
/// possibly specialised or computed by OpSpecConstantOp; constants have types). A constant
/// that cannot be evaluated fails only what uses it here (an array length) and is otherwise
/// reported as the second result, so a module whose specialization is still to come (at
/// vkCreateShaderModule) is not refused for its default values.
pub(super) fn collect_types(
    module: &Module,
    decorations: &Decorations,
    specialization: &[crate::Specialization],
) -> Result<(HashMap<Word, SpvType>, ConstsOrError), CompileError> {
    let mut types = HashMap::new();
    let mut consts = super::constants::Constants::new();
    let mut const_error: Option<CompileError> = None;
    for inst in &module.types_global_values {
        let op = inst.class.opcode;
        if !format!("{op:?}").starts_with("Type") {
            match super::constants::evaluate(inst, &types, decorations, specialization, &consts) {
                Ok(Some(v)) => {
                    let (rid, ty) = (result_id(inst)?, result_type(inst)?);
                    consts.insert(rid, (ty, v));
                }
                Ok(None) => {}
                Err(e) => {
                    const_error.get_or_insert(e);
                }
            }
            continue;
        }
        let ty = match op {
            Op::TypeVoid => SpvType::Void,
            Op::TypeBool => SpvType::Bool,
            Op::TypeInt => {
                let width = lit(inst, 0)?;
                if ![8, 16, 32, 64].contains(&width) {
                    return Err(unsupported(format!("{width}-bit integers")));
                }
                SpvType::Int {
                    signed: lit(inst, 1)? != 0,
                    width,
                }
            }
            Op::TypeFloat => {
                let width = lit(inst, 0)?;
                if width != 16 && width != 32 {
                    return Err(unsupported(format!("{width}-bit floats")));
                }
                SpvType::Float { width }
            }
            Op::TypeVector => {
                let n = lit(inst, 1)?;
                if !(2..=4).contains(&n) {
                    return Err(invalid(format!("vector of {n} components")));
                }
                SpvType::Vector {
                    elem: id(inst, 0)?,
                    n,
                }
            }
            Op::TypeMatrix => {
                let cols = lit(inst, 1)?;
                if !(2..=4).contains(&cols) {
                    return Err(invalid(format!("matrix of {cols} columns")));
                }
                SpvType::Matrix {
                    col: id(inst, 0)?,
                    cols,
                }
            }
            Op::TypeArray => {
                let len_id = id(inst, 1)?;
                let len = match consts.get(&len_id) {
                    Some((t, super::constants::CVal::Scalar(v)))
                        if matches!(types.get(t), Some(SpvType::Int { .. })) =>
                    {
                        u32::try_from(*v).unwrap_or(u32::MAX)
                    }
                    Some(_) => return Err(invalid("array length that is not an integer")),
                    None => {
                        return Err(const_error.take().unwrap_or_else(|| {
                            invalid(format!("array length {len_id} is not a constant"))
                        }))
                    }
                };
                if len == 0 {
                    return Err(invalid("array of length 0"));
                }
                if len > 1 << 24 {
                    return Err(unsupported(format!("array of {len} elements")));
                }
                SpvType::Array {
                    elem: id(inst, 0)?,
                    len,
                }
            }
            Op::TypeRuntimeArray => SpvType::RuntimeArray { elem: id(inst, 0)? },
            Op::TypeStruct => SpvType::Struct {
                members: (0..inst.operands.len())
                    .map(|i| id(inst, i))
                    .collect::<Result<_, _>>()?,
            },
            Op::TypePointer => {
                let Some(Operand::StorageClass(sc)) = inst.operands.first() else {
                    return Err(invalid("OpTypePointer without a storage class"));
                };
                SpvType::Pointer {
                    sc: *sc,
                    pointee: id(inst, 1)?,
                }
            }
            Op::TypeFunction => SpvType::Function,
            Op::TypeImage => {
                let sampled = id(inst, 0)?;
                let word = |i: usize| match inst.operands.get(i) {
                    Some(Operand::LiteralBit32(m)) => Ok(*m),
                    _ => Err(invalid("OpTypeImage without its literal operands")),
                };
                let dim = match inst.operands.get(1) {
                    Some(Operand::Dim(spirv::Dim::Dim1D)) => Some(crate::ir::ImageDim::D1),
                    Some(Operand::Dim(spirv::Dim::Dim2D)) => Some(crate::ir::ImageDim::D2),
                    Some(Operand::Dim(spirv::Dim::Dim3D)) => Some(crate::ir::ImageDim::D3),
                    Some(Operand::Dim(spirv::Dim::DimCube)) => Some(crate::ir::ImageDim::Cube),
                    Some(Operand::Dim(spirv::Dim::DimBuffer)) => Some(crate::ir::ImageDim::Buffer),
                    _ => None,
                };
                if let Some(dim) = dim {
                    let it = ImageType {
                        sampled,
                        dim,
                        depth: word(2)? == 1,
                        arrayed: word(3)? != 0,
                        ms: word(4)? != 0,
                        usage: word(5)?,
                    };
                    if it.ms && (dim != crate::ir::ImageDim::D2) {
                        return Err(invalid("multisampled image that is not 2D"));
                    }
                    if (it.arrayed || it.ms) && dim == crate::ir::ImageDim::Buffer {
                        return Err(invalid("arrayed or multisampled texel buffer"));
                    }
                    if it.arrayed && dim == crate::ir::ImageDim::D3 {
                        return Err(invalid("arrayed 3D image"));
                    }
                    let rid = result_id(inst)?;
                    if types.insert(rid, SpvType::Image(it)).is_some() {
                        return Err(invalid(format!("id {rid} defined twice")));
                    }
                    continue;
                }
                match inst.operands.get(1) {
                    Some(Operand::Dim(spirv::Dim::DimSubpassData)) => {
                        let ms = match inst.operands.get(4) {
                            Some(Operand::LiteralBit32(m)) => *m != 0,
                            _ => return Err(invalid("OpTypeImage without an MS operand")),
                        };
                        SpvType::SubpassImage { sampled, ms }
                    }
                    // Declaring the type is harmless; variables of it are refused where
                    // they are made.
                    Some(_) => SpvType::Opaque,
                    None => return Err(invalid("OpTypeImage without a Dim")),
                }
            }
            // The OpTypePointer that completes it follows; nothing needs it before then.
            Op::TypeForwardPointer => continue,
            Op::TypeSampler => SpvType::Sampler,
            Op::TypeSampledImage => SpvType::SampledImage {
                image: id(inst, 0)?,
            },
            op if format!("{op:?}").starts_with("Type") => {
                return Err(unsupported(format!("type {op:?}")))
            }
            _ => continue,
        };
        let rid = result_id(inst)?;
        if types.insert(rid, ty).is_some() {
            return Err(invalid(format!("id {rid} defined twice")));
        }
    }
    // Every referenced type must exist (forward references are not allowed for these).
    for (rid, t) in &types {
        let refs: Vec<Word> = match t {
            SpvType::Vector { elem, .. }
            | SpvType::Array { elem, .. }
            | SpvType::RuntimeArray { elem } => {
                vec![*elem]
            }
            SpvType::Matrix { col, .. } => vec![*col],
            SpvType::Struct { members } => members.clone(),
            SpvType::SubpassImage { sampled, .. } => vec![*sampled],
            SpvType::Image(i) => vec![i.sampled],
            SpvType::SampledImage { image } => vec![*image],
            _ => vec![],
        };
        for r in refs {
            if !types.contains_key(&r) {
                return Err(invalid(format!("type {rid} refers to undefined type {r}")));
            }
        }
    }
    // Nesting must be finite and shallow (mutated modules can make cycles).
    fn depth(
        types: &HashMap<Word, SpvType>,
        t: Word,
        memo: &mut HashMap<Word, u32>,
        d: u32,
    ) -> Result<u32, CompileError> {
        if let Some(k) = memo.get(&t) {
            return if *k == u32::MAX {
                Err(invalid("cyclic type"))
            } else {
                Ok(*k)
            };
        }
        if d > 24 {
            return Err(invalid("types nested too deeply"));
        }
        memo.insert(t, u32::MAX);
        let kids: Vec<Word> = match types.get(&t) {
            Some(
                SpvType::Vector { elem, .. }
                | SpvType::Array { elem, .. }
                | SpvType::RuntimeArray { elem },
            ) => vec![*elem],
            Some(SpvType::Matrix { col, .. }) => vec![*col],
            Some(SpvType::Struct { members }) => members.clone(),
            // A physical pointer is an address, not a containment: a struct may point at itself.
            Some(SpvType::Pointer { sc, pointee })
                if *sc != StorageClass::PhysicalStorageBuffer =>
            {
                vec![*pointee]
            }
            _ => vec![],
        };
        let mut m = 0;
        for k in kids {
            m = m.max(depth(types, k, memo, d + 1)? + 1);
        }
        if m > 24 {
            return Err(invalid("types nested too deeply"));
        }
        memo.insert(t, m);
        Ok(m)
    }
    let mut memo = HashMap::new();
    for t in types.keys() {
        depth(&types, *t, &mut memo, 0)?;
    }
    let consts = match const_error {
        Some(e) => Err(e),
        None => Ok(consts),
    };
    Ok((types, consts))
}

/// Execution modes that give the workgroup size.
pub(super) enum LocalSize {
    Literal([u32; 3]),
    Ids([Word; 3]),
}

pub(super) struct EntryPoint {
    pub function: Word,
    pub interface: Vec<Word>,
    pub local_size: Option<LocalSize>,
    /// Every execution mode of the entry point (without operands).
    pub modes: Vec<spirv::ExecutionMode>,
    /// The first literal operand of every execution mode that has one (OutputVertices,
    /// Invocations).
    pub literals: Vec<(spirv::ExecutionMode, u32)>,
}

pub(super) fn find_stage_entry_point(
    module: &Module,
    name: &str,
    want: spirv::ExecutionModel,
) -> Result<EntryPoint, CompileError> {
    for ep in &module.entry_points {
        let model = match ep.operands.first() {
            Some(Operand::ExecutionModel(m)) => *m,
            _ => return Err(invalid("OpEntryPoint without an execution model")),
        };
        let ep_name = match ep.operands.get(2) {
            Some(Operand::LiteralString(s)) => s.as_str(),
            _ => return Err(invalid("OpEntryPoint without a name")),
        };
        if model != want || ep_name != name {
            continue;
        }
        let function = id(ep, 1)?;
        let interface = (3..ep.operands.len())
            .map(|i| id(ep, i))
            .collect::<Result<_, _>>()?;
        let mut local_size = None;
        let mut modes = Vec::new();
        let mut literals = Vec::new();
        for em in &module.execution_modes {
            if id(em, 0)? != function {
                continue;
            }
            if let Some(Operand::ExecutionMode(m)) = em.operands.get(1) {
                modes.push(*m);
                if let Some(Operand::LiteralBit32(v)) = em.operands.get(2) {
                    literals.push((*m, *v));
                }
            }
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSize)) => {
                    local_size = Some(LocalSize::Literal([lit(em, 2)?, lit(em, 3)?, lit(em, 4)?]));
                }
                Some(Operand::ExecutionMode(spirv::ExecutionMode::LocalSizeId)) => {
                    local_size = Some(LocalSize::Ids([id(em, 2)?, id(em, 3)?, id(em, 4)?]));
                }
                _ => {}
            }
        }
        return Ok(EntryPoint {
            function,
            interface,
            local_size,
            modes,
            literals,
        });
    }
    Err(CompileError::NoEntryPoint(name.to_string()))
}
