//! Graphics pipelines: the create info read into owned fixed-function state, the shaders
//! compiled against the vertex input and the subpass's tilebuffer layout
//! (`compiler::compile_graphics_pipeline`), and their code and coefficient bindings uploaded
//! into the shader window (the bindings in the generation's words: `emit::Graphics`). Draws
//! turn the state into the generation's words too (cmd_buffer/draw.rs).

use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::format;
use crate::handle::{self, Object};
use crate::pipeline_blend::{
    blend_factor, blend_op, logic_op, BlendEquation, BlendValues, FragmentKey, FragmentVariants,
    OwnedStage,
};
use crate::pipeline_layout::PipelineLayout;
use crate::render_pass::{RenderPass, MAX_COLOR_ATTACHMENTS};
use crate::shader_module::ShaderModule;
use crate::topology::Topology;
use ash::vk;
use compiler::{
    ColourTarget, FragmentState, GeometryBinary, GraphicsPipelineBinary, GraphicsPipelineRequest,
    InputAttachmentSource, ShaderRequest, StageBinary, VertexAttribute, VertexBindingDesc,
    VertexInputLayout, VertexVariant, XfbBinary,
};
use hashbrown::HashMap;
use hw::g13::tilebuffer::{Placement, TilebufferLayout};
use std::ffi::CStr;
use std::sync::{Arc, Mutex};

/// Most vertex input bindings (`maxVertexInputBindings`), the size of the root table's
/// vertex buffer table.
pub const MAX_VERTEX_BINDINGS: u32 = compiler::abi::MAX_VERTEX_BUFFERS;
/// `maxVertexInputAttributes`.
pub const MAX_VERTEX_ATTRIBUTES: u32 = 16;

/// Which pieces of state come from vkCmdSet* instead of the pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dynamic {
    pub viewport: bool,
    pub scissor: bool,
    pub line_width: bool,
    pub depth_bias: bool,
    pub blend_constants: bool,
    pub stencil_compare_mask: bool,
    pub stencil_write_mask: bool,
    pub stencil_reference: bool,
    // Vulkan 1.3 / VK_EXT_extended_dynamic_state.
    pub cull_mode: bool,
    pub front_face: bool,
    pub primitive_topology: bool,
    pub vertex_stride: bool,
    pub depth_test_enable: bool,
    pub depth_write_enable: bool,
    pub depth_compare_op: bool,
    /// Always set false by the application (depthBounds is not offered).
    pub depth_bounds_test_enable: bool,
    pub stencil_test_enable: bool,
    pub stencil_op: bool,
    // Vulkan 1.3 / VK_EXT_extended_dynamic_state2.
    pub rasterizer_discard_enable: bool,
    pub depth_bias_enable: bool,
    pub primitive_restart_enable: bool,
    // VK_EXT_extended_dynamic_state3: the pieces that are per-draw words (PPP, CF binding
    // choice), never compiled into a shader.
    pub polygon_mode: bool,
    pub depth_clamp_enable: bool,
    pub depth_clip_enable: bool,
    pub provoking_vertex_mode: bool,
    pub line_rasterization_mode: bool,
    /// VK_EXT_vertex_input_dynamic_state: bindings, attributes and strides come from
    /// vkCmdSetVertexInputEXT, and the vertex program from [`VertexPrograms::Dynamic`].
    pub vertex_input: bool,
    // The colour blend state, compiled into the fragment shader: a draw picks the program
    // variant for its values (pipeline_blend.rs).
    /// VK_EXT_color_write_enable.
    pub color_write_enable: bool,
    pub color_blend_enable: bool,
    pub color_blend_equation: bool,
    pub color_write_mask: bool,
    pub logic_op_enable: bool,
    /// VK_EXT_extended_dynamic_state2's logic op.
    pub logic_op: bool,
    // The multisample state the fragment shader applies (its variants too).
    pub sample_mask: bool,
    pub alpha_to_coverage_enable: bool,
    pub alpha_to_one_enable: bool,
}

/// One face's stencil state.
#[derive(Clone, Copy, Debug)]
pub struct StencilFace {
    pub fail: vk::StencilOp,
    pub pass: vk::StencilOp,
    pub depth_fail: vk::StencilOp,
    pub compare: vk::CompareOp,
    pub compare_mask: u32,
    pub write_mask: u32,
    pub reference: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct DepthBiasState {
    pub constant: f32,
    pub clamp: f32,
    pub slope: f32,
}

/// The fixed-function state of a graphics pipeline, with the static values of the dynamic
/// state (ignored when that state is dynamic).
#[derive(Clone, Debug)]
pub struct Fixed {
    pub primitive: Topology,
    pub restart: bool,
    /// Stride of each vertex binding (indexed by binding number).
    pub strides: [u32; MAX_VERTEX_BINDINGS as usize],
    pub viewports: Vec<vk::Viewport>,
    pub scissors: Vec<vk::Rect2D>,
    pub rasterizer_discard: bool,
    pub cull_front: bool,
    pub cull_back: bool,
    pub front_ccw: bool,
    pub depth_bias_enable: bool,
    pub depth_bias: DepthBiasState,
    pub line_width: f32,
    /// How triangles are rasterized: filled, as their edges or as their vertices.
    pub polygon_mode: vk::PolygonMode,
    /// Whether the subpass has a depth aspect: without one the depth test is off whatever
    /// the (possibly dynamic) enable says.
    pub has_depth: bool,
    pub depth_test: bool,
    /// `depthWriteEnable` as given; writes also need the depth test on.
    pub depth_write: bool,
    pub depth_compare: vk::CompareOp,
    /// The stencil faces if the subpass has a stencil aspect and the test can be on (its
    /// enable is static and true, or dynamic); `stencil_test` is the static enable.
    pub stencil: Option<[StencilFace; 2]>,
    pub stencil_test: bool,
    pub blend_constants: [f32; 4],
    /// `depthClampEnable`: no near/far clipping, fragment depth clamped to the viewport's
    /// depth range.
    pub depth_clamp: bool,
    /// Whether primitives are clipped against the near and far planes, if
    /// VK_EXT_depth_clip_enable says; None follows the (possibly dynamic) depth clamp enable:
    /// clipping is off when clamping.
    pub depth_clip: Option<bool>,
    /// VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT: line primitives cover whole pixels under
    /// multisampling (the Cull word's primitive MSAA bit).
    pub bresenham_lines: bool,
    /// VK_EXT_provoking_vertex's last-vertex mode: flat varyings from a primitive's last
    /// vertex.
    pub provoking_last: bool,
    /// The static colour blend values (the dynamic ones are ignored).
    pub blend: BlendValues,
    pub dynamic: Dynamic,
}

/// A compiled, resident graphics pipeline.
pub struct GraphicsPipeline {
    /// The pipeline's compiled state; its `vertex` and `xfb` are empty: the vertex programs
    /// are in [`vertex`](Self::vertex).
    pub binary: GraphicsPipelineBinary,
    pub vertex: VertexPrograms,
    _fragment_code: Option<Bo>,
    _cf: Option<Bo>,
    /// Offset from `usc_exec_base`.
    pub fragment_code: Option<u32>,
    /// Stack bytes per thread the fragment launch gives.
    pub fragment_stack_bytes: u32,
    /// USC address of the CF binding header and bindings, one copy per vertex that flat
    /// varyings come from (the binding's shade model names it; indexed by [`flat_vertex`]).
    pub cf_bindings: [u32; 3],
    pub cf_binding_count: u32,
    pub fixed: Fixed,
    /// The tilebuffer layout of the subpass it was made for.
    pub tilebuffer: TilebufferLayout,
    /// Where the fragment shader reads each input attachment from, as the subpass it was
    /// made for binds them (`subpass_inputs`); draws check that theirs agrees.
    pub inputs: Vec<InputAttachmentSource>,
    /// With dynamic colour blend state: the fragment variants (pipeline_blend.rs).
    pub variants: Option<Box<FragmentVariants>>,
}

/// A resident vertex shader compiled for one vertex input layout: its code's offset from
/// `usc_exec_base`, the stack per thread its launch gives, and its transform
/// feedback capture variant (cmd_buffer/xfb.rs), which reads the same attributes.
pub struct VertexProgram {
    pub binary: StageBinary,
    _bo: Bo,
    pub code: u32,
    pub stack_bytes: u32,
    pub xfb: Option<XfbCode>,
    /// With a geometry shader, the geometry draw's program (cmd_buffer/geometry.rs);
    /// `binary` is then the pass-through vertex shader of the rasterization draw.
    pub geometry: Option<GeometryCode>,
}

/// A resident geometry draw program: its code's offset from `usc_exec_base` and the stack
/// per thread its launch gives.
pub struct GeometryCode {
    pub binary: GeometryBinary,
    _bo: Bo,
    pub code: u32,
    pub stack_bytes: u32,
}

/// A resident capture variant: its code's offset from `usc_exec_base` and the stack per
/// thread its launch gives.
pub struct XfbCode {
    pub binary: XfbBinary,
    _bo: Bo,
    pub code: u32,
    pub stack_bytes: u32,
}

impl VertexProgram {
    /// Uploads the programs of `variant`.
    pub fn new(dev: &Device, variant: VertexVariant) -> Result<VertexProgram, vk::Result> {
        let (bo, code) = upload(dev, &variant.vertex.code)?;
        let stack_bytes = crate::pipeline::stack_bytes(dev, variant.vertex.scratch_bytes)?;
        let xfb = match variant.xfb {
            Some(x) => {
                let (bo, code) = upload(dev, &x.vertex.code)?;
                let stack_bytes = crate::pipeline::stack_bytes(dev, x.vertex.scratch_bytes)?;
                Some(XfbCode {
                    binary: x,
                    _bo: bo,
                    code,
                    stack_bytes,
                })
            }
            None => None,
        };
        let geometry = match variant.geometry {
            Some(g) => {
                let (bo, code) = upload(dev, &g.program.code)?;
                let stack_bytes = crate::pipeline::stack_bytes(dev, g.program.scratch_bytes)?;
                Some(GeometryCode {
                    binary: g,
                    _bo: bo,
                    code,
                    stack_bytes,
                })
            }
            None => None,
        };
        Ok(VertexProgram {
            binary: variant.vertex,
            _bo: bo,
            code,
            stack_bytes,
            xfb,
            geometry,
        })
    }
}

/// The vertex programs of a pipeline.
pub enum VertexPrograms {
    /// The vertex input layout is pipeline state: one program, made with the pipeline.
    Fixed(VertexProgram),
    /// VK_EXT_vertex_input_dynamic_state: a program per layout, made by the first draw that
    /// needs it (cmd_buffer/vertex_input.rs).
    Dynamic(DynamicVertex),
}

/// The vertex shader of a pipeline whose vertex input layout is given at draw time, and the
/// programs compiled from it so far. Command buffers recording on several threads share
/// them, so the map is behind a lock; it is keyed by the part of the layout the shader
/// reads (the attributes at its input locations and their bindings), so layouts that differ
/// elsewhere share a program.
pub struct DynamicVertex {
    pub stage: compiler::VertexStage,
    pub variants: Mutex<HashMap<VertexInputLayout, Arc<VertexProgram>>>,
}

impl VertexPrograms {
    /// The single program of a pipeline with a static vertex input layout.
    pub fn fixed(&self) -> Option<&VertexProgram> {
        match self {
            VertexPrograms::Fixed(v) => Some(v),
            VertexPrograms::Dynamic(_) => None,
        }
    }
}

fn invalid<T>(why: impl Into<String>) -> Result<T, vk::Result> {
    eprintln!("agx4: vkCreateGraphicsPipelines: {}", why.into());
    Err(vk::Result::ERROR_UNKNOWN)
}

fn unsupported<T>(why: impl Into<String>) -> Result<T, vk::Result> {
    eprintln!(
        "agx4: vkCreateGraphicsPipelines: {} is not supported",
        why.into()
    );
    Err(vk::Result::ERROR_FEATURE_NOT_PRESENT)
}

fn stencil_face(s: &vk::StencilOpState) -> StencilFace {
    StencilFace {
        fail: s.fail_op,
        pass: s.pass_op,
        depth_fail: s.depth_fail_op,
        compare: s.compare_op,
        compare_mask: s.compare_mask & 0xff,
        write_mask: s.write_mask & 0xff,
        reference: s.reference & 0xff,
    }
}

/// The class of topology `t` (cmd_buffer/geometry.rs works out the adjacency members' own
/// from the geometry shader's input primitive).
pub fn primitive(t: vk::PrimitiveTopology) -> Result<Topology, vk::Result> {
    Topology::of(t).map_or_else(|| unsupported(format!("topology {t:?}")), Ok)
}

/// The tilebuffer layout of subpass `subpass` of `pass`: its colour attachments in order,
/// at the subpass's sample count.
pub fn subpass_tilebuffer(pass: &RenderPass, subpass: u32) -> Result<TilebufferLayout, vk::Result> {
    let sp = pass
        .subpasses
        .get(subpass as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    let mut formats = Vec::new();
    let mut samples = 1;
    for r in &sp.colours {
        match r {
            Some(r) => {
                let a = &pass.attachments[r.index as usize];
                let Some(rf) = format::renderable(a.format) else {
                    eprintln!(
                        "agx4: colour attachment format {:?} is not renderable",
                        a.format
                    );
                    return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
                };
                samples = a.samples;
                formats.push(Some(rf.colour));
            }
            None => formats.push(None),
        }
    }
    if let Some(ds) = sp.depth_stencil {
        samples = pass.attachments[ds.index as usize].samples;
    }
    let layout = TilebufferLayout::build(&formats, samples).map_err(|e| {
        eprintln!("agx4: subpass {subpass}: {e}");
        vk::Result::ERROR_FEATURE_NOT_PRESENT
    })?;
    Ok(layout)
}

/// Whether subpass `subpass` has neither colour nor depth/stencil attachments: its sample
/// count is then its pipelines' `rasterizationSamples`.
pub fn attachmentless(pass: &RenderPass, subpass: u32) -> bool {
    pass.subpasses
        .get(subpass as usize)
        .is_some_and(|sp| sp.colours.iter().all(Option::is_none) && sp.depth_stencil.is_none())
}

/// How the fragment shaders of subpass `subpass` read each of its input attachments
/// (docs/render-abi.md section 4): one that is also a colour attachment of the subpass in the
/// tilebuffer from there, every other from memory (depth/stencil ones by aspect).
pub fn subpass_inputs(pass: &RenderPass, subpass: u32) -> Vec<InputAttachmentSource> {
    let Some(sp) = pass.subpasses.get(subpass as usize) else {
        return Vec::new();
    };
    // A spilled colour attachment lives in memory, current at every draw.
    let tib = subpass_tilebuffer(pass, subpass).ok();
    let in_tile = |slot: usize| {
        tib.as_ref()
            .and_then(|t| t.targets.get(slot).copied().flatten())
            .is_some_and(|t| matches!(t.placement, Placement::Tile { .. }))
    };
    sp.inputs
        .iter()
        .map(|r| {
            let Some(r) = r else {
                return InputAttachmentSource::Memory;
            };
            if let Some(slot) = sp
                .colours
                .iter()
                .position(|c| c.is_some_and(|c| c.index == r.index))
                .filter(|&slot| in_tile(slot))
            {
                return InputAttachmentSource::Tile {
                    location: slot as u32,
                };
            }
            match format::aspects(pass.attachments[r.index as usize].format) {
                Some(_) => InputAttachmentSource::DepthStencil,
                None => InputAttachmentSource::Memory,
            }
        })
        .collect()
}

/// A stage's SPIR-V, entry point and specialization constants.
struct StageSource<'a> {
    module: &'a ShaderModule,
    entry: &'a str,
    specialization: Vec<compiler::Specialization>,
}

/// # Safety
/// `stage` must be valid, with a valid specialization info if any, and its `module` a live
/// shader module made by this driver.
unsafe fn stage_source<'a>(
    stage: &'a vk::PipelineShaderStageCreateInfo<'_>,
) -> Result<StageSource<'a>, vk::Result> {
    // SAFETY: guaranteed by the caller: `stage.module` is a live shader module made by this
    // driver.
    let module =
        unsafe { ShaderModule::from_handle(stage.module) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: valid usage: pName is a NUL-terminated string.
    let entry = unsafe { CStr::from_ptr(stage.p_name) }
        .to_str()
        .map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let mut specialization = Vec::new();
    // SAFETY: guaranteed by the caller.
    if let Some(spec) = unsafe { stage.p_specialization_info.as_ref() } {
        // SAFETY: valid usage: the map entries and data are as long as their counts say.
        let (entries, data) = unsafe {
            (
                handle::slice(spec.p_map_entries, spec.map_entry_count),
                handle::slice(spec.p_data as *const u8, spec.data_size as u32),
            )
        };
        for e in entries {
            let bytes = data
                .get(e.offset as usize..e.offset as usize + e.size)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            specialization.push(compiler::Specialization {
                id: e.constant_id,
                bytes: bytes.to_vec(),
            });
        }
    }
    Ok(StageSource {
        module,
        entry,
        specialization,
    })
}

fn request<'a>(
    s: &'a StageSource<'a>,
    stage: compiler::ir::Stage,
    layout: &'a compiler::ResourceLayout,
    target: compiler::Target,
) -> ShaderRequest<'a> {
    ShaderRequest {
        spirv: &s.module.words,
        entry_point: s.entry,
        stage,
        specialization: &s.specialization,
        layout,
        target,
    }
}

/// # Safety
/// `v` must be a valid vertex input state.
unsafe fn vertex_input(
    v: &vk::PipelineVertexInputStateCreateInfo<'_>,
    strides: &mut [u32; MAX_VERTEX_BINDINGS as usize],
) -> Result<VertexInputLayout, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let (bindings, attributes) = unsafe {
        (
            handle::slice(
                v.p_vertex_binding_descriptions,
                v.vertex_binding_description_count,
            ),
            handle::slice(
                v.p_vertex_attribute_descriptions,
                v.vertex_attribute_description_count,
            ),
        )
    };
    let mut layout = VertexInputLayout::default();
    for b in bindings {
        if b.binding >= MAX_VERTEX_BINDINGS {
            return invalid(format!("vertex binding {} is out of range", b.binding));
        }
        strides[b.binding as usize] = b.stride;
        layout.bindings.push(VertexBindingDesc {
            binding: b.binding,
            per_instance: b.input_rate == vk::VertexInputRate::INSTANCE,
            divisor: 1,
        });
    }
    // VK_EXT_vertex_attribute_divisor: the vertex shader divides the instance number.
    // SAFETY: guaranteed by the caller: the pNext chain is valid.
    for s in unsafe { handle::chain(v.p_next) } {
        if s.s_type == vk::StructureType::PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_KHR {
            // SAFETY: the structure type names the structure.
            let d = unsafe {
                &*(s as *const vk::BaseInStructure
                    as *const vk::PipelineVertexInputDivisorStateCreateInfoEXT)
            };
            // SAFETY: valid usage: the array holds its count of descriptions.
            let divisors = unsafe {
                handle::slice(d.p_vertex_binding_divisors, d.vertex_binding_divisor_count)
            };
            for div in divisors {
                if let Some(b) = layout
                    .bindings
                    .iter_mut()
                    .find(|b| b.binding == div.binding)
                {
                    b.divisor = div.divisor;
                }
            }
        }
    }
    for a in attributes {
        let Some(format) = format::vertex_format(a.format) else {
            return unsupported(format!("vertex attribute format {:?}", a.format));
        };
        if a.location >= MAX_VERTEX_ATTRIBUTES || a.binding >= MAX_VERTEX_BINDINGS {
            return invalid(format!(
                "vertex attribute location {} binding {} is out of range",
                a.location, a.binding
            ));
        }
        layout.attributes.push(VertexAttribute {
            location: a.location,
            binding: a.binding,
            format,
            offset: a.offset,
        });
    }
    Ok(layout)
}

/// The fragment state the compiler needs: the subpass's targets with their tilebuffer
/// placement and the blend state `blend`.
fn fragment_state(
    tib: &TilebufferLayout,
    blend: &FragmentKey,
    samples: u32,
    inputs: Vec<InputAttachmentSource>,
) -> FragmentState {
    let mut targets = Vec::new();
    for (i, t) in tib.targets.iter().enumerate() {
        let Some(t) = t else { continue };
        let (offset, spilled) = match t.placement {
            Placement::Tile { offset_bytes, .. } => (offset_bytes as u16, false),
            Placement::Spilled => (0, true),
        };
        targets.push(ColourTarget {
            location: i as u32,
            format: t.format,
            tib_format: t.tib_format,
            offset,
            blend: blend.attachments.get(i).copied().unwrap_or_default(),
            spilled,
        });
    }
    FragmentState {
        targets,
        inputs,
        logic_op: blend.logic_op,
        samples,
        sample_size_bytes: tib.sample_size_bytes,
    }
}

/// Bit i set: the subpass has colour attachment i.
fn present_targets(tib: &TilebufferLayout) -> u8 {
    tib.targets
        .iter()
        .take(MAX_COLOR_ATTACHMENTS)
        .enumerate()
        .filter(|(_, t)| t.is_some())
        .fold(0, |m, (i, _)| m | (1 << i))
}

/// The static colour blend values of a pipeline: what `cb` (and the
/// VkPipelineColorWriteCreateInfoEXT in its chain) says for each state that `dynamic` leaves
/// static, defaults for the others.
///
/// # Safety
/// `cb` must be null or a valid colour blend state; its attachments are read only when one
/// of the per-attachment states is static (valid usage lets them be absent otherwise).
unsafe fn static_blend(
    cb: Option<&vk::PipelineColorBlendStateCreateInfo<'_>>,
    dynamic: &Dynamic,
) -> Result<BlendValues, vk::Result> {
    let mut v = BlendValues::default();
    let Some(cb) = cb else { return Ok(v) };
    let per_attachment =
        !(dynamic.color_blend_enable && dynamic.color_blend_equation && dynamic.color_write_mask);
    if per_attachment {
        // SAFETY: guaranteed by the caller.
        let atts = unsafe { handle::slice(cb.p_attachments, cb.attachment_count) };
        for (i, a) in atts.iter().take(MAX_COLOR_ATTACHMENTS).enumerate() {
            if !dynamic.color_blend_enable && a.blend_enable != 0 {
                v.blend_enable |= 1 << i;
            }
            if !dynamic.color_blend_equation {
                v.equations[i] = BlendEquation {
                    src_color: blend_factor(a.src_color_blend_factor)?,
                    dst_color: blend_factor(a.dst_color_blend_factor)?,
                    color_op: blend_op(a.color_blend_op)?,
                    src_alpha: blend_factor(a.src_alpha_blend_factor)?,
                    dst_alpha: blend_factor(a.dst_alpha_blend_factor)?,
                    alpha_op: blend_op(a.alpha_blend_op)?,
                };
            }
            if !dynamic.color_write_mask {
                v.write_masks[i] = (a.color_write_mask.as_raw() & 0xf) as u8;
            }
        }
    }
    v.logic_op_enable = cb.logic_op_enable != 0;
    v.logic_op = logic_op(cb.logic_op);
    // SAFETY: guaranteed by the caller: the chain is valid.
    for s in unsafe { handle::chain(cb.p_next) } {
        if s.s_type == vk::StructureType::PIPELINE_COLOR_WRITE_CREATE_INFO_EXT
            && !dynamic.color_write_enable
        {
            // SAFETY: the structure type names the structure.
            let c = unsafe {
                &*(s as *const vk::BaseInStructure as *const vk::PipelineColorWriteCreateInfoEXT)
            };
            // SAFETY: valid usage: pColorWriteEnables holds attachmentCount values.
            let en = unsafe { handle::slice(c.p_color_write_enables, c.attachment_count) };
            v.write_enable = en
                .iter()
                .take(MAX_COLOR_ATTACHMENTS)
                .enumerate()
                .filter(|(_, e)| **e != 0)
                .fold(0, |m, (i, _)| m | (1 << i));
        }
    }
    Ok(v)
}

fn upload(dev: &Device, bytes: &[u8]) -> Result<(Bo, u32), vk::Result> {
    let bo = Bo::new(dev, bytes.len().max(4) as u64, Place::Usc, false)?;
    bo.write(0, bytes)?;
    let offset =
        u32::try_from(bo.va - dev.usc_base).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
    Ok((bo, offset))
}

/// Alignment of each copy of the CF bindings (the bindings are 8-byte words; 64 keeps
/// every copy on its own cache line, as the first one starts its buffer).
const CF_ALIGN: usize = 64;

/// Which hardware vertex of a primitive (an index of `GraphicsPipeline::cf_bindings`) flat
/// varyings come from. The hardware numbers a fan's triangle (0, i+1, i+2), so Vulkan's
/// first vertex (i+1) is vertex 1 there and vertex 0 elsewhere; the last is always vertex 2.
/// Mesa's asahi drivers program the same choice.
pub fn flat_vertex(last: bool, primitive: Topology) -> usize {
    match (last, primitive) {
        (true, _) => 2,
        (false, Topology::TriangleFan) => 1,
        (false, _) => 0,
    }
}

/// Reads and compiles one VkGraphicsPipelineCreateInfo.
///
/// # Safety
/// `info` must be valid per Vulkan's valid usage.
pub unsafe fn create_one(
    dev: &Device,
    info: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Result<GraphicsPipeline, vk::Result> {
    // SAFETY: guaranteed by the caller (Vulkan valid usage): `info.layout` is a live pipeline
    // layout made by this driver.
    let layout =
        unsafe { PipelineLayout::from_handle(info.layout) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // A pipeline for dynamic rendering describes its one subpass in its pNext chain.
    let dynamic;
    // SAFETY: guaranteed by the caller (Vulkan valid usage): `info.render_pass` is
    // VK_NULL_HANDLE or a live render pass made by this driver.
    let (pass, subpass_index) = match unsafe { RenderPass::from_handle(info.render_pass) } {
        Some(p) => (p, info.subpass),
        None => {
            // SAFETY: guaranteed by the caller.
            dynamic = unsafe { crate::cmd_buffer::rendering::pipeline_pass(info) }?;
            (&dynamic, 0)
        }
    };
    let subpass = pass
        .subpasses
        .get(subpass_index as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: valid usage: pStages holds stageCount structures.
    let stages = unsafe { handle::slice(info.p_stages, info.stage_count) };
    let (mut vs, mut gs, mut fs) = (None, None, None);
    for s in stages {
        match s.stage {
            vk::ShaderStageFlags::VERTEX => vs = Some(s),
            vk::ShaderStageFlags::GEOMETRY => gs = Some(s),
            vk::ShaderStageFlags::FRAGMENT => fs = Some(s),
            other => return unsupported(format!("shader stage {other:?}")),
        }
    }
    let vs = vs.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: valid usage: the state pointers are valid or null where allowed.
    let (ia, raster, ms, ds, cb, dyn_info, vp) = unsafe {
        (
            info.p_input_assembly_state.as_ref(),
            info.p_rasterization_state.as_ref(),
            info.p_multisample_state.as_ref(),
            info.p_depth_stencil_state.as_ref(),
            info.p_color_blend_state.as_ref(),
            info.p_dynamic_state.as_ref(),
            info.p_viewport_state.as_ref(),
        )
    };
    // With VK_EXT_extended_dynamic_state3 valid usage lets these two be null when every
    // state they hold is dynamic (topology and restart enable; depth clamp, discard, polygon
    // mode, cull mode, front face, depth bias and line width): any values do then.
    let default_ia = vk::PipelineInputAssemblyStateCreateInfo::default();
    let default_raster = vk::PipelineRasterizationStateCreateInfo::default().line_width(1.0);
    let ia = ia.unwrap_or(&default_ia);
    let raster = raster.unwrap_or(&default_raster);
    let mut dynamic = Dynamic::default();
    if let Some(d) = dyn_info {
        // SAFETY: valid usage: pDynamicStates holds dynamicStateCount values.
        for s in unsafe { handle::slice(d.p_dynamic_states, d.dynamic_state_count) } {
            match *s {
                vk::DynamicState::VIEWPORT => dynamic.viewport = true,
                vk::DynamicState::SCISSOR => dynamic.scissor = true,
                vk::DynamicState::LINE_WIDTH => dynamic.line_width = true,
                vk::DynamicState::DEPTH_BIAS => dynamic.depth_bias = true,
                vk::DynamicState::BLEND_CONSTANTS => dynamic.blend_constants = true,
                vk::DynamicState::STENCIL_COMPARE_MASK => dynamic.stencil_compare_mask = true,
                vk::DynamicState::STENCIL_WRITE_MASK => dynamic.stencil_write_mask = true,
                vk::DynamicState::STENCIL_REFERENCE => dynamic.stencil_reference = true,
                // Depth bounds are read only by the depth bounds test, which needs the
                // depthBounds feature that agx4 does not offer: the state is never used,
                // and its dynamic enable can only be set to false.
                vk::DynamicState::DEPTH_BOUNDS => {}
                vk::DynamicState::DEPTH_BOUNDS_TEST_ENABLE => {
                    dynamic.depth_bounds_test_enable = true
                }
                vk::DynamicState::CULL_MODE => dynamic.cull_mode = true,
                vk::DynamicState::FRONT_FACE => dynamic.front_face = true,
                vk::DynamicState::PRIMITIVE_TOPOLOGY => dynamic.primitive_topology = true,
                // One viewport and scissor (multiViewport is not offered): the counts are 1.
                vk::DynamicState::VIEWPORT_WITH_COUNT => dynamic.viewport = true,
                vk::DynamicState::SCISSOR_WITH_COUNT => dynamic.scissor = true,
                vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE => dynamic.vertex_stride = true,
                vk::DynamicState::VERTEX_INPUT_EXT => dynamic.vertex_input = true,
                vk::DynamicState::DEPTH_TEST_ENABLE => dynamic.depth_test_enable = true,
                vk::DynamicState::DEPTH_WRITE_ENABLE => dynamic.depth_write_enable = true,
                vk::DynamicState::DEPTH_COMPARE_OP => dynamic.depth_compare_op = true,
                vk::DynamicState::STENCIL_TEST_ENABLE => dynamic.stencil_test_enable = true,
                vk::DynamicState::STENCIL_OP => dynamic.stencil_op = true,
                vk::DynamicState::RASTERIZER_DISCARD_ENABLE => {
                    dynamic.rasterizer_discard_enable = true
                }
                vk::DynamicState::DEPTH_BIAS_ENABLE => dynamic.depth_bias_enable = true,
                vk::DynamicState::PRIMITIVE_RESTART_ENABLE => {
                    dynamic.primitive_restart_enable = true
                }
                vk::DynamicState::POLYGON_MODE_EXT => dynamic.polygon_mode = true,
                vk::DynamicState::DEPTH_CLAMP_ENABLE_EXT => dynamic.depth_clamp_enable = true,
                vk::DynamicState::DEPTH_CLIP_ENABLE_EXT => dynamic.depth_clip_enable = true,
                vk::DynamicState::PROVOKING_VERTEX_MODE_EXT => dynamic.provoking_vertex_mode = true,
                vk::DynamicState::LINE_RASTERIZATION_MODE_EXT => {
                    dynamic.line_rasterization_mode = true
                }
                // Stippling needs stippledLineEnable, which needs features agx4 does not
                // offer, and the clip space depth range needs VK_EXT_depth_clip_control:
                // the states are never used. Mesa 22.3's Zink makes both dynamic with
                // extended_dynamic_state3 whatever the features say.
                vk::DynamicState::LINE_STIPPLE_EXT
                | vk::DynamicState::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT => {}
                vk::DynamicState::COLOR_WRITE_ENABLE_EXT => dynamic.color_write_enable = true,
                vk::DynamicState::COLOR_BLEND_ENABLE_EXT => dynamic.color_blend_enable = true,
                vk::DynamicState::COLOR_BLEND_EQUATION_EXT => dynamic.color_blend_equation = true,
                vk::DynamicState::COLOR_WRITE_MASK_EXT => dynamic.color_write_mask = true,
                vk::DynamicState::LOGIC_OP_ENABLE_EXT => dynamic.logic_op_enable = true,
                vk::DynamicState::LOGIC_OP_EXT => dynamic.logic_op = true,
                vk::DynamicState::SAMPLE_MASK_EXT => dynamic.sample_mask = true,
                vk::DynamicState::ALPHA_TO_COVERAGE_ENABLE_EXT => {
                    dynamic.alpha_to_coverage_enable = true
                }
                vk::DynamicState::ALPHA_TO_ONE_ENABLE_EXT => dynamic.alpha_to_one_enable = true,
                other => return unsupported(format!("dynamic state {other:?}")),
            }
        }
    }
    // A dynamic discard enable ignores the static one: the pipeline must be able to draw.
    let discard = raster.rasterizer_discard_enable != 0 && !dynamic.rasterizer_discard_enable;
    let polygon_mode = match raster.polygon_mode {
        m @ (vk::PolygonMode::FILL | vk::PolygonMode::LINE | vk::PolygonMode::POINT) => m,
        // A dynamic mode or one that never rasterizes: the static value does not matter.
        _ if discard || dynamic.polygon_mode => vk::PolygonMode::FILL,
        other => return unsupported(format!("polygon mode {other:?}")),
    };
    let samples = ms.map(|m| m.rasterization_samples.as_raw()).unwrap_or(1);
    // The multisample state the fragment shader applies: static values here, dynamic ones
    // from the draw (pipeline_blend.rs).
    let (mut sample_mask, mut alpha_to_coverage, mut alpha_to_one) = (u32::MAX, false, false);
    if let Some(m) = ms.filter(|_| !discard) {
        alpha_to_coverage = m.alpha_to_coverage_enable != 0;
        alpha_to_one = m.alpha_to_one_enable != 0;
        // The fragment shader kills the samples the mask drops (the rasterizer has no mask).
        if !dynamic.sample_mask {
            // SAFETY: valid usage: a non-null pSampleMask holds ceil(samples / 32) words,
            // and agx4's sample counts fit the first.
            sample_mask = unsafe { m.p_sample_mask.as_ref() }
                .copied()
                .unwrap_or(u32::MAX);
        }
    }
    // Any minSampleShading is met by shading every sample, the only rate the compiler has.
    let sample_shading = ms.is_some_and(|m| m.sample_shading_enable != 0);
    let mut tilebuffer = subpass_tilebuffer(pass, subpass_index)?;
    // A subpass without attachments rasterizes at its pipelines' sample count (the render
    // takes it from the first draw: cmd_buffer/render.rs `adopt_samples`).
    if attachmentless(pass, subpass_index) && matches!(samples, 1 | 4) {
        tilebuffer = TilebufferLayout::build(&vec![None; subpass.colours.len()], samples)
            .map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    }
    if !matches!(samples, 1 | 4) || samples != tilebuffer.samples {
        return unsupported(format!(
            "{samples} rasterization samples in a subpass of {}",
            tilebuffer.samples
        ));
    }
    let mut strides = [0u32; MAX_VERTEX_BINDINGS as usize];
    // A dynamic vertex input layout ignores the state (which may then be null).
    // SAFETY: valid usage: the vertex input state is valid unless it is dynamic.
    let vertex_input = match unsafe { info.p_vertex_input_state.as_ref() } {
        // SAFETY: as above.
        Some(v) if !dynamic.vertex_input => unsafe { vertex_input(v, &mut strides)? },
        _ => VertexInputLayout::default(),
    };
    // Tests of an aspect the attachment does not have behave as disabled.
    let ds_kind = subpass
        .depth_stencil
        .and_then(|r| format::aspects(pass.attachments[r.index as usize].format));
    let has_depth = ds_kind.and_then(|k| k.depth).is_some();
    let has_stencil = ds_kind.is_some_and(|k| k.stencil);
    let (depth_test, depth_write, depth_compare, stencil, stencil_test) =
        match ds.filter(|_| ds_kind.is_some()) {
            Some(d) => {
                if d.depth_bounds_test_enable != 0 && !dynamic.depth_bounds_test_enable {
                    return unsupported("depth bounds (the feature is not advertised)");
                }
                let stencil_test = d.stencil_test_enable != 0;
                let stencil = (has_stencil && (stencil_test || dynamic.stencil_test_enable))
                    .then(|| [stencil_face(&d.front), stencil_face(&d.back)]);
                (
                    has_depth && d.depth_test_enable != 0,
                    has_depth && d.depth_write_enable != 0,
                    d.depth_compare_op,
                    stencil,
                    stencil_test,
                )
            }
            None => (false, false, vk::CompareOp::ALWAYS, None, false),
        };
    // Static viewports and scissors (validation guarantees them when not dynamic).
    let (viewports, scissors) = match vp.filter(|_| !discard) {
        Some(v) => {
            if v.viewport_count > 1 || v.scissor_count > 1 {
                return unsupported("more than one viewport (multiViewport is not advertised)");
            }
            // SAFETY: valid usage: the arrays hold their counts unless that state is dynamic.
            let (vps, scs) = unsafe {
                (
                    if dynamic.viewport {
                        &[][..]
                    } else {
                        handle::slice(v.p_viewports, v.viewport_count)
                    },
                    if dynamic.scissor {
                        &[][..]
                    } else {
                        handle::slice(v.p_scissors, v.scissor_count)
                    },
                )
            };
            (vps.to_vec(), scs.to_vec())
        }
        None => (Vec::new(), Vec::new()),
    };
    let adjacency = matches!(
        ia.topology,
        vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY
            | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY
            | vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY
            | vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY
    );
    // Without a geometry shader the pipeline runs one that drops the adjacent vertices
    // (compiler `adjacency_passthrough`), so every draw of the topology goes through the
    // geometry emulation. A dynamic topology could change class members at draw time, which
    // that shader cannot follow.
    let adjacency_input = match ia.topology {
        _ if !adjacency || gs.is_some() => None,
        _ if dynamic.primitive_topology => {
            return unsupported(format!(
                "dynamic topology {:?} without a geometry shader",
                ia.topology
            ))
        }
        vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY
        | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY => {
            Some(compiler::ir::InputPrimitive::LinesAdjacency)
        }
        _ => Some(compiler::ir::InputPrimitive::TrianglesAdjacency),
    };
    // With a dynamic topology only its class counts: an adjacency topology stands for its
    // class's plain one (draws take theirs from vkCmdSetPrimitiveTopology).
    let topology = match ia.topology {
        vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY if dynamic.primitive_topology => {
            vk::PrimitiveTopology::LINE_LIST
        }
        vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY if dynamic.primitive_topology => {
            vk::PrimitiveTopology::LINE_STRIP
        }
        vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY if dynamic.primitive_topology => {
            vk::PrimitiveTopology::TRIANGLE_LIST
        }
        vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY if dynamic.primitive_topology => {
            vk::PrimitiveTopology::TRIANGLE_STRIP
        }
        t => t,
    };
    let fixed = Fixed {
        primitive: primitive(topology)?,
        restart: ia.primitive_restart_enable != 0,
        strides,
        viewports,
        scissors,
        rasterizer_discard: discard,
        cull_front: raster.cull_mode.contains(vk::CullModeFlags::FRONT),
        cull_back: raster.cull_mode.contains(vk::CullModeFlags::BACK),
        front_ccw: raster.front_face == vk::FrontFace::COUNTER_CLOCKWISE,
        depth_bias_enable: raster.depth_bias_enable != 0,
        depth_bias: DepthBiasState {
            constant: raster.depth_bias_constant_factor,
            clamp: raster.depth_bias_clamp,
            slope: raster.depth_bias_slope_factor,
        },
        line_width: raster.line_width,
        polygon_mode,
        has_depth,
        depth_test,
        depth_write,
        depth_compare,
        stencil,
        stencil_test,
        blend_constants: cb.map(|c| c.blend_constants).unwrap_or_default(),
        depth_clamp: raster.depth_clamp_enable != 0,
        depth_clip: None,
        bresenham_lines: false,
        provoking_last: false,
        blend: BlendValues {
            sample_mask,
            alpha_to_coverage,
            alpha_to_one,
            // SAFETY: valid usage: the colour blend state is valid, with one attachment per
            // colour attachment unless every per-attachment state is dynamic.
            ..unsafe { static_blend(cb.filter(|_| !discard), &dynamic)? }
        },
        dynamic,
    };
    let inputs = subpass_inputs(pass, subpass_index);
    // The pipeline's own program is compiled for its static blend state and, for the dynamic
    // parts, the values a command buffer starts with (every write on, no blending, no logic
    // op, every sample): the state Zink's always-dynamic colour write enable leaves most
    // draws in.
    let present = present_targets(&tilebuffer);
    let base_blend = crate::pipeline_blend::resolve(
        &fixed.dynamic,
        &fixed.blend,
        &BlendValues::default(),
        present,
        samples,
    );
    let coverage = base_blend.coverage;
    let fragment_state = fragment_state(&tilebuffer, &base_blend, samples, inputs.clone());
    let target = dev.target.ok_or_else(|| {
        eprintln!("agx4: no shader compiler for this GPU generation");
        vk::Result::ERROR_UNKNOWN
    })?;
    // SAFETY: valid usage: the vertex stage's info is valid, with a valid specialization info if
    // any, and its `module` a live shader module made by this driver.
    let vs_src = unsafe { stage_source(vs)? };
    let gs_src = match gs {
        // SAFETY: valid usage: the geometry stage's info is valid, with a valid specialization
        // info if any, and its `module` a live shader module made by this driver.
        Some(g) => Some(unsafe { stage_source(g)? }),
        None => None,
    };
    let fs_src = match fs.filter(|_| !discard) {
        // SAFETY: valid usage: the fragment stage's info is valid, with a valid specialization
        // info if any, and its `module` a live shader module made by this driver.
        Some(f) => Some(unsafe { stage_source(f)? }),
        None => None,
    };
    let req = GraphicsPipelineRequest {
        vertex: request(
            &vs_src,
            compiler::ir::Stage::Vertex,
            &layout.resources,
            target,
        ),
        fragment: fs_src
            .as_ref()
            .map(|f| request(f, compiler::ir::Stage::Fragment, &layout.resources, target)),
        vertex_input: &vertex_input,
        fragment_state: &fragment_state,
        geometry: gs_src
            .as_ref()
            .map(|g| request(g, compiler::ir::Stage::Geometry, &layout.resources, target)),
    };
    let options = compiler::GraphicsPipelineOptions {
        sample_shading,
        adjacency: adjacency_input,
        count_fragment_invocations: dev.pipeline_statistics,
    };
    let failed = |e: compiler::CompileError| {
        eprintln!("agx4: vkCreateGraphicsPipelines: {e}");
        crate::pipeline::compile_error_result(&e)
    };
    let (binary, stage) = if dynamic.vertex_input {
        let (b, stage) = compiler::compile_graphics_pipeline_deferred(&req, &options, &coverage)
            .map_err(failed)?;
        (b, Some(stage))
    } else {
        let b = compiler::compile_graphics_pipeline_coverage(&req, &options, &coverage)
            .map_err(failed)?;
        (b, None)
    };
    // A spilled target is written to memory by the shader, which a depth/stencil test
    // after it (a shader that discards, writes depth or has side effects) cannot undo for
    // failing samples.
    let late = binary.late_tests() || crate::pipeline_blend::kills_dynamically(&fixed.dynamic);
    if !tilebuffer.spilled().is_empty()
        && late
        && (fixed.depth_test
            || (fixed.dynamic.depth_test_enable && fixed.has_depth)
            || fixed.stencil.is_some())
    {
        return unsupported(format!("subpass {subpass_index}: colour attachments that do not fit the tilebuffer with a fragment shader that discards or writes depth under a depth or stencil test"));
    }
    let variants = (crate::pipeline_blend::any_dynamic(&fixed.dynamic) && !discard).then(|| {
        let own = |src: &StageSource<'_>| OwnedStage {
            spirv: src.module.words.clone(),
            entry: src.entry.to_owned(),
            specialization: src.specialization.clone(),
        };
        Box::new(FragmentVariants::new(
            own(&vs_src),
            gs_src.as_ref().map(own),
            fs_src.as_ref().map(own),
            layout.resources.clone(),
            target,
            fragment_state.clone(),
            options,
            present,
            samples,
            base_blend,
        ))
    });
    let mut pipeline = match stage {
        Some(stage) => {
            GraphicsPipeline::with_dynamic_vertex_input(dev, binary, stage, fixed, tilebuffer)?
        }
        None => GraphicsPipeline::new(dev, binary, fixed, tilebuffer)?,
    };
    pipeline.variants = variants;
    // SAFETY: valid usage: the rasterization state's pNext chain is valid.
    for s in unsafe { handle::chain(raster.p_next) } {
        if s.s_type == vk::StructureType::PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT {
            // SAFETY: the structure type names the structure.
            let c = unsafe {
                &*(s as *const vk::BaseInStructure
                    as *const vk::PipelineRasterizationDepthClipStateCreateInfoEXT)
            };
            pipeline.fixed.depth_clip = Some(c.depth_clip_enable != 0);
        }
        if s.s_type == vk::StructureType::PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT {
            // SAFETY: the structure type names the structure.
            let l = unsafe {
                &*(s as *const vk::BaseInStructure
                    as *const vk::PipelineRasterizationLineStateCreateInfoEXT)
            };
            // Valid usage allows only the modes of the features agx4 offers: the default
            // mode and Bresenham; stippling needs a feature it does not offer.
            pipeline.fixed.bresenham_lines =
                l.line_rasterization_mode == vk::LineRasterizationModeEXT::BRESENHAM;
        }
        if s.s_type
            == vk::StructureType::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT
        {
            // SAFETY: the structure type names the structure.
            let c = unsafe {
                &*(s as *const vk::BaseInStructure
                    as *const vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT)
            };
            pipeline.fixed.provoking_last =
                c.provoking_vertex_mode == vk::ProvokingVertexModeEXT::LAST_VERTEX;
        }
    }
    pipeline.inputs = inputs;
    Ok(pipeline)
}

impl GraphicsPipeline {
    /// Uploads a compiled pipeline's code and coefficient bindings.
    pub fn new(
        dev: &Device,
        mut binary: GraphicsPipelineBinary,
        fixed: Fixed,
        tilebuffer: TilebufferLayout,
    ) -> Result<GraphicsPipeline, vk::Result> {
        let variant = VertexVariant {
            vertex: std::mem::replace(&mut binary.vertex, empty_stage()),
            xfb: binary.xfb.take(),
            geometry: binary.geometry.take(),
        };
        let vertex = VertexPrograms::Fixed(VertexProgram::new(dev, variant)?);
        GraphicsPipeline::build(dev, binary, vertex, fixed, tilebuffer)
    }

    /// Uploads a pipeline compiled without its vertex programs
    /// (`compiler::compile_graphics_pipeline_deferred`): draws compile them per layout.
    pub fn with_dynamic_vertex_input(
        dev: &Device,
        binary: GraphicsPipelineBinary,
        stage: compiler::VertexStage,
        fixed: Fixed,
        tilebuffer: TilebufferLayout,
    ) -> Result<GraphicsPipeline, vk::Result> {
        let vertex = VertexPrograms::Dynamic(DynamicVertex {
            stage,
            variants: Mutex::new(HashMap::new()),
        });
        GraphicsPipeline::build(dev, binary, vertex, fixed, tilebuffer)
    }

    fn build(
        dev: &Device,
        binary: GraphicsPipelineBinary,
        vertex: VertexPrograms,
        fixed: Fixed,
        tilebuffer: TilebufferLayout,
    ) -> Result<GraphicsPipeline, vk::Result> {
        let (fragment_bo, fragment_code) = match &binary.fragment {
            Some(f) => {
                let (bo, off) = upload(dev, &f.code)?;
                (Some(bo), Some(off))
            }
            None => (None, None),
        };
        let (cf_bo, cf_bindings) = if binary.fragment.is_some() {
            // The provoking vertex depends on the draw's topology (fans differ), so every
            // flat vertex gets its copy of the bindings; a draw points at the one it needs.
            let graphics = dev.emitter()?.graphics;
            let mut words = Vec::new();
            let mut at = [0usize; 3];
            for (flat, at) in at.iter_mut().enumerate() {
                *at = words.len();
                words.extend(graphics.coefficient_bindings(&binary, flat));
                words.resize(words.len().next_multiple_of(CF_ALIGN), 0);
            }
            let (bo, off) = upload(dev, &words)?;
            (Some(bo), at.map(|a| off + a as u32))
        } else {
            (None, [0; 3])
        };
        let cf_binding_count = binary.cf_bindings.len() as u32;
        let fragment_stack_bytes = match &binary.fragment {
            Some(f) => crate::pipeline::stack_bytes(dev, f.scratch_bytes)?,
            None => 0,
        };
        Ok(GraphicsPipeline {
            binary,
            vertex,
            _fragment_code: fragment_bo,
            _cf: cf_bo,
            fragment_code,
            fragment_stack_bytes,
            cf_bindings,
            cf_binding_count,
            fixed,
            tilebuffer,
            inputs: Vec::new(),
            variants: None,
        })
    }
}

/// A stage binary without code (what a pipeline's binary keeps once its vertex programs have
/// moved into [`VertexPrograms`]).
fn empty_stage() -> StageBinary {
    StageBinary {
        code: Vec::new(),
        gpr_halves: 0,
        uniform_halves: 0,
        scratch_bytes: 0,
        preamble: None,
        stats: compiler::Stats::default(),
    }
}
