//! vkCmdClearAttachments of part of the render area: one draw of a quad per rectangle with
//! a small internal pipeline per (subpass, target, aspects), cached on the render pass. The
//! vertex shader passes the clear value through as a flat varying (as raw 32-bit words, the
//! tilebuffer's shader-side value, so one shader per numeric class covers every format);
//! depth is the quad's Z with an always-passing, writing depth test; stencil is a REPLACE of
//! the reference with an always-passing test. Only the target being cleared has a colour
//! write mask.

use super::conditional::Condition;
use super::draw::{draw_with, guard_draw, DrawKind};
use super::Recording;
use crate::device::Device;
use crate::format;
use crate::handle::Object;
use crate::pipeline_graphics::{
    subpass_tilebuffer, DepthBiasState, Dynamic, Fixed, GraphicsPipeline, StencilFace,
    MAX_VERTEX_BINDINGS,
};
use crate::render_pass::RenderPass;
use crate::topology::Topology;
use ash::vk;
use compiler::{
    AttribComponent, BlendAttachment, ColourTarget, FragmentState, GraphicsPipelineRequest,
    ShaderRequest, VertexAttribute, VertexBindingDesc, VertexFormat, VertexInputLayout,
};
use hw::g13::tilebuffer::{ColourFormat, Numeric, Placement};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec4 pos;
/// layout(location = 1) in uvec4 value;
/// layout(location = 0) flat out uvec4 v;
/// void main() { gl_Position = pos; v = value; }
/// ```
#[rustfmt::skip]
const CLEAR_VERTEX: [u32; 222] = [
    0x07230203, 0x00010000, 0x0008000b, 0x0000001b, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
    0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0009000f, 0x00000000, 0x00000004, 0x6e69616d,
    0x00000000, 0x0000000d, 0x00000011, 0x00000017, 0x00000019, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004,
    0x6e69616d, 0x00000000, 0x00060005, 0x0000000b, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x0000000b,
    0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x0000000b, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953,
    0x00000000, 0x00070006, 0x0000000b, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x0000000b,
    0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x0000000d, 0x00000000, 0x00030005, 0x00000011,
    0x00736f70, 0x00030005, 0x00000017, 0x00000076, 0x00040005, 0x00000019, 0x756c6176, 0x00000065, 0x00050048, 0x0000000b,
    0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x0000000b, 0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x0000000b,
    0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x0000000b, 0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x0000000b,
    0x00000002, 0x00040047, 0x00000011, 0x0000001e, 0x00000000, 0x00030047, 0x00000017, 0x0000000e, 0x00040047, 0x00000017,
    0x0000001e, 0x00000000, 0x00040047, 0x00000019, 0x0000001e, 0x00000001, 0x00020013, 0x00000002, 0x00030021, 0x00000003,
    0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004, 0x00040015, 0x00000008,
    0x00000020, 0x00000000, 0x0004002b, 0x00000008, 0x00000009, 0x00000001, 0x0004001c, 0x0000000a, 0x00000006, 0x00000009,
    0x0006001e, 0x0000000b, 0x00000007, 0x00000006, 0x0000000a, 0x0000000a, 0x00040020, 0x0000000c, 0x00000003, 0x0000000b,
    0x0004003b, 0x0000000c, 0x0000000d, 0x00000003, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e,
    0x0000000f, 0x00000000, 0x00040020, 0x00000010, 0x00000001, 0x00000007, 0x0004003b, 0x00000010, 0x00000011, 0x00000001,
    0x00040020, 0x00000013, 0x00000003, 0x00000007, 0x00040017, 0x00000015, 0x00000008, 0x00000004, 0x00040020, 0x00000016,
    0x00000003, 0x00000015, 0x0004003b, 0x00000016, 0x00000017, 0x00000003, 0x00040020, 0x00000018, 0x00000001, 0x00000015,
    0x0004003b, 0x00000018, 0x00000019, 0x00000001, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8,
    0x00000005, 0x0004003d, 0x00000007, 0x00000012, 0x00000011, 0x00050041, 0x00000013, 0x00000014, 0x0000000d, 0x0000000f,
    0x0003003e, 0x00000014, 0x00000012, 0x0004003d, 0x00000015, 0x0000001a, 0x00000019, 0x0003003e, 0x00000017, 0x0000001a,
    0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) flat in uvec4 v;
/// layout(location = 0) out vec4 o;
/// void main() { o = uintBitsToFloat(v); }
/// ```
#[rustfmt::skip]
const CLEAR_FLOAT: [u32; 106] = [
    0x07230203, 0x00010000, 0x0008000b, 0x00000010, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
    0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000004, 0x00000004, 0x6e69616d,
    0x00000000, 0x00000009, 0x0000000d, 0x00030010, 0x00000004, 0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005,
    0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x0000006f, 0x00030005, 0x0000000d, 0x00000076, 0x00040047,
    0x00000009, 0x0000001e, 0x00000000, 0x00030047, 0x0000000d, 0x0000000e, 0x00040047, 0x0000000d, 0x0000001e, 0x00000000,
    0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007,
    0x00000006, 0x00000004, 0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009, 0x00000003,
    0x00040015, 0x0000000a, 0x00000020, 0x00000000, 0x00040017, 0x0000000b, 0x0000000a, 0x00000004, 0x00040020, 0x0000000c,
    0x00000001, 0x0000000b, 0x0004003b, 0x0000000c, 0x0000000d, 0x00000001, 0x00050036, 0x00000002, 0x00000004, 0x00000000,
    0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x0000000b, 0x0000000e, 0x0000000d, 0x0004007c, 0x00000007, 0x0000000f,
    0x0000000e, 0x0003003e, 0x00000009, 0x0000000f, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) flat in uvec4 v;
/// layout(location = 0) out uvec4 o;
/// void main() { o = v; }
/// ```
#[rustfmt::skip]
const CLEAR_UINT: [u32; 95] = [
    0x07230203, 0x00010000, 0x0008000b, 0x0000000d, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
    0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000004, 0x00000004, 0x6e69616d,
    0x00000000, 0x00000009, 0x0000000b, 0x00030010, 0x00000004, 0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005,
    0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x0000006f, 0x00030005, 0x0000000b, 0x00000076, 0x00040047,
    0x00000009, 0x0000001e, 0x00000000, 0x00030047, 0x0000000b, 0x0000000e, 0x00040047, 0x0000000b, 0x0000001e, 0x00000000,
    0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x00040017,
    0x00000007, 0x00000006, 0x00000004, 0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009,
    0x00000003, 0x00040020, 0x0000000a, 0x00000001, 0x00000007, 0x0004003b, 0x0000000a, 0x0000000b, 0x00000001, 0x00050036,
    0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x00000007, 0x0000000c, 0x0000000b,
    0x0003003e, 0x00000009, 0x0000000c, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) flat in uvec4 v;
/// layout(location = 0) out ivec4 o;
/// void main() { o = ivec4(v); }
/// ```
#[rustfmt::skip]
const CLEAR_SINT: [u32; 107] = [
    0x07230203, 0x00010000, 0x0008000b, 0x00000010, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
    0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000004, 0x00000004, 0x6e69616d,
    0x00000000, 0x00000009, 0x0000000d, 0x00030010, 0x00000004, 0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005,
    0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x0000006f, 0x00030005, 0x0000000d, 0x00000076, 0x00040047,
    0x00000009, 0x0000001e, 0x00000000, 0x00030047, 0x0000000d, 0x0000000e, 0x00040047, 0x0000000d, 0x0000001e, 0x00000000,
    0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000001, 0x00040017,
    0x00000007, 0x00000006, 0x00000004, 0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009,
    0x00000003, 0x00040015, 0x0000000a, 0x00000020, 0x00000000, 0x00040017, 0x0000000b, 0x0000000a, 0x00000004, 0x00040020,
    0x0000000c, 0x00000001, 0x0000000b, 0x0004003b, 0x0000000c, 0x0000000d, 0x00000001, 0x00050036, 0x00000002, 0x00000004,
    0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x0000000b, 0x0000000e, 0x0000000d, 0x0004007c, 0x00000007,
    0x0000000f, 0x0000000e, 0x0003003e, 0x00000009, 0x0000000f, 0x000100fd, 0x00010038,
];

/// What a clear pipeline writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClearKey {
    pub subpass: u32,
    /// The colour attachment slot (tilebuffer target) written, if any.
    pub colour: Option<u32>,
    pub depth: bool,
    pub stencil: bool,
}

/// The clear pipelines of a render pass.
#[derive(Default)]
pub struct ClearPipelines(Mutex<HashMap<ClearKey, Arc<GraphicsPipeline>>>);

impl std::fmt::Debug for ClearPipelines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClearPipelines")
    }
}

/// SPIR-V opcodes and enumerants the location patch reads.
const OP_DECORATE: u32 = 71;
const OP_VARIABLE: u32 = 59;
const STORAGE_OUTPUT: u32 = 3;
const DECORATION_LOCATION: u32 = 30;

/// `words` with the Location of its output variable set to `location`.
fn with_output_location(words: &[u32], location: u32) -> Vec<u32> {
    let mut out = words.to_vec();
    let mut output = None;
    let mut at = 5;
    while at < out.len() {
        let (count, op) = ((out[at] >> 16) as usize, out[at] & 0xffff);
        if count == 0 {
            break;
        }
        if op == OP_VARIABLE && count >= 4 && out[at + 3] == STORAGE_OUTPUT {
            output = Some(out[at + 2]);
        }
        at += count;
    }
    let mut at = 5;
    while at < out.len() {
        let (count, op) = ((out[at] >> 16) as usize, out[at] & 0xffff);
        if count == 0 {
            break;
        }
        if op == OP_DECORATE
            && count == 4
            && Some(out[at + 1]) == output
            && out[at + 2] == DECORATION_LOCATION
        {
            out[at + 3] = location;
        }
        at += count;
    }
    out
}

fn fragment_spirv(format: ColourFormat) -> &'static [u32] {
    match format {
        ColourFormat::Plain {
            numeric: Numeric::Uint,
            ..
        }
        | ColourFormat::Rgb10A2Uint => &CLEAR_UINT,
        ColourFormat::Plain {
            numeric: Numeric::Sint,
            ..
        } => &CLEAR_SINT,
        _ => &CLEAR_FLOAT,
    }
}

/// Bytes of one vertex: position (4 x f32), clear value (4 x u32).
const VERTEX_BYTES: u32 = 32;

fn shader<'a>(
    spirv: &'a [u32],
    stage: compiler::ir::Stage,
    layout: &'a compiler::ResourceLayout,
    target: compiler::Target,
) -> ShaderRequest<'a> {
    ShaderRequest {
        spirv,
        entry_point: "main",
        stage,
        specialization: &[],
        layout,
        target,
    }
}

fn build(dev: &Device, pass: &RenderPass, key: ClearKey) -> Result<GraphicsPipeline, vk::Result> {
    let tib = subpass_tilebuffer(pass, key.subpass)?;
    let mut targets = Vec::new();
    for (i, t) in tib.targets.iter().enumerate() {
        let Some(t) = t else { continue };
        let (offset, spilled) = match t.placement {
            Placement::Tile { offset_bytes, .. } => (offset_bytes as u16, false),
            Placement::Spilled => (0, true),
        };
        let write_mask = if key.colour == Some(i as u32) { 0xf } else { 0 };
        targets.push(ColourTarget {
            location: i as u32,
            format: t.format,
            tib_format: t.tib_format,
            offset,
            blend: BlendAttachment {
                write_mask,
                ..Default::default()
            },
            spilled,
        });
    }
    // The shader writes the cleared target, or (for depth/stencil only) some target with
    // nothing enabled; with no colour targets there is no fragment shader.
    let written = key
        .colour
        .and_then(|c| targets.iter().find(|t| t.location == c))
        .or(targets.first());
    let fragment_words =
        written.map(|t| with_output_location(fragment_spirv(t.format), t.location));
    let fragment_state = FragmentState {
        targets: targets.clone(),
        inputs: Vec::new(),
        logic_op: None,
        samples: tib.samples,
        sample_size_bytes: tib.sample_size_bytes,
    };
    let vertex_input = VertexInputLayout {
        attributes: vec![
            VertexAttribute {
                location: 0,
                binding: 0,
                format: VertexFormat::Plain {
                    comp: AttribComponent::F32,
                    count: 4,
                    bgra: false,
                },
                offset: 0,
            },
            VertexAttribute {
                location: 1,
                binding: 0,
                format: VertexFormat::Plain {
                    comp: AttribComponent::U32,
                    count: 4,
                    bgra: false,
                },
                offset: 16,
            },
        ],
        bindings: vec![VertexBindingDesc {
            binding: 0,
            per_instance: false,
            divisor: 1,
        }],
    };
    let target = dev.target.ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
    let layout = compiler::ResourceLayout::default();
    let req = GraphicsPipelineRequest {
        vertex: shader(&CLEAR_VERTEX, compiler::ir::Stage::Vertex, &layout, target),
        fragment: fragment_words
            .as_deref()
            .map(|w| shader(w, compiler::ir::Stage::Fragment, &layout, target)),
        vertex_input: &vertex_input,
        fragment_state: &fragment_state,
        geometry: None,
    };
    let binary = compiler::compile_graphics_pipeline(&req).map_err(|e| {
        eprintln!("agx4: clear pipeline: {e}");
        vk::Result::ERROR_FEATURE_NOT_PRESENT
    })?;
    let mut strides = [0u32; MAX_VERTEX_BINDINGS as usize];
    strides[0] = VERTEX_BYTES;
    let replace = StencilFace {
        fail: vk::StencilOp::REPLACE,
        pass: vk::StencilOp::REPLACE,
        depth_fail: vk::StencilOp::REPLACE,
        compare: vk::CompareOp::ALWAYS,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference: 0,
    };
    let fixed = Fixed {
        primitive: Topology::Triangles,
        restart: false,
        strides,
        viewports: Vec::new(),
        scissors: Vec::new(),
        rasterizer_discard: false,
        cull_front: false,
        cull_back: false,
        front_ccw: false,
        depth_bias_enable: false,
        depth_bias: DepthBiasState {
            constant: 0.0,
            clamp: 0.0,
            slope: 0.0,
        },
        line_width: 1.0,
        polygon_mode: vk::PolygonMode::FILL,
        has_depth: key.depth,
        depth_test: key.depth,
        depth_write: key.depth,
        depth_compare: vk::CompareOp::ALWAYS,
        stencil: key.stencil.then_some([replace; 2]),
        stencil_test: key.stencil,
        blend_constants: [0.0; 4],
        depth_clamp: false,
        depth_clip: None,
        bresenham_lines: false,
        provoking_last: false,
        blend: crate::pipeline_blend::BlendValues::default(),
        dynamic: Dynamic {
            stencil_reference: true,
            ..Dynamic::default()
        },
    };
    GraphicsPipeline::new(dev, binary, fixed, tib)
}

impl ClearPipelines {
    fn get(
        &self,
        dev: &Device,
        pass: &RenderPass,
        key: ClearKey,
    ) -> Result<Arc<GraphicsPipeline>, vk::Result> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = map.get(&key) {
            return Ok(p.clone());
        }
        let p = Arc::new(build(dev, pass, key)?);
        map.insert(key, p.clone());
        Ok(p)
    }
}

/// Clears `rects` of the open subpass: the colour slot `colour` to `words` (the
/// shader-side clear value), and/or depth to `depth` and stencil to `stencil`; only if
/// `condition` holds, when one is given (vkCmdClearAttachments under conditional rendering).
pub fn clear_rects(
    dev: &Device,
    rec: &mut Recording,
    colour: Option<(u32, [u32; 4])>,
    depth: Option<f32>,
    stencil: Option<u32>,
    rects: &[vk::ClearRect],
    condition: Option<Condition>,
) -> Result<(), vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let fb = &rs.fb;
    let key = ClearKey {
        subpass: rs.subpass,
        colour: colour.map(|c| c.0),
        depth: depth.is_some(),
        stencil: stencil.is_some(),
    };
    let pipeline = pass.clear_pipelines.get(dev, pass, key)?;
    let words = colour.map(|c| c.1).unwrap_or_default();
    let z = depth.unwrap_or(0.0).clamp(0.0, 1.0);
    let (w, h) = (fb.width as f32, fb.height as f32);
    let mut data = Vec::new();
    for r in rects {
        let x0 = 2.0 * r.rect.offset.x as f32 / w - 1.0;
        let y0 = 2.0 * r.rect.offset.y as f32 / h - 1.0;
        let x1 = 2.0 * (r.rect.offset.x as f32 + r.rect.extent.width as f32) / w - 1.0;
        let y1 = 2.0 * (r.rect.offset.y as f32 + r.rect.extent.height as f32) / h - 1.0;
        for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x0, y1), (x1, y0), (x1, y1)] {
            for f in [x, y, z, 1.0] {
                data.extend_from_slice(&f32::to_le_bytes(f));
            }
            for v in words {
                data.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    if data.is_empty() {
        return Ok(());
    }
    let va = rec.upload.push(dev, &data, 16)?;
    let saved = rec.gfx().clone();
    rec.gfx_mut().vertex_buffers[0] = (va, data.len() as u64);
    let s = stencil.unwrap_or(0) & 0xff;
    rec.gfx_mut().stencil_reference = [s, s];
    let count = (data.len() / VERTEX_BYTES as usize) as u32;
    let kind = DrawKind::Direct {
        count,
        instances: 1,
        first_vertex: 0,
        first_instance: 0,
    };
    // A clear is no draw of the application's: pipeline statistics do not count it.
    let stats = rec.stats.take();
    let result = match condition {
        Some(c) => guard_draw(dev, rec, kind, c),
        None => Ok(kind),
    }
    .and_then(|kind| {
        let vertex = pipeline.vertex.fixed().ok_or(vk::Result::ERROR_UNKNOWN)?;
        draw_with(dev, rec, &pipeline, vertex, kind)
    });
    *rec.gfx_mut() = saved;
    rec.stats = stats;
    result
}

/// The clear value of colour slot `slot` of the open subpass as shader-side words.
pub fn colour_words(
    pass: &RenderPass,
    subpass: u32,
    slot: u32,
    value: &vk::ClearColorValue,
) -> Option<[u32; 4]> {
    let r = pass
        .subpasses
        .get(subpass as usize)?
        .colours
        .get(slot as usize)
        .copied()
        .flatten()?;
    let f = format::renderable(pass.attachments[r.index as usize].format)?;
    Some(format::clear_words(&f, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs of SPIR-V words.
    type Pairs = Vec<(u32, u32)>;

    /// (variable id, storage class) of every OpVariable and (target, location) of every
    /// Location decoration, read independently of the patch.
    fn locations(words: &[u32]) -> (Pairs, Pairs) {
        let (mut vars, mut locs) = (Vec::new(), Vec::new());
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            match words[at] & 0xffff {
                59 => vars.push((words[at + 2], words[at + 3])),
                71 if words[at + 2] == 30 => locs.push((words[at + 1], words[at + 3])),
                _ => {}
            }
            at += count.max(1);
        }
        (vars, locs)
    }

    #[test]
    fn output_location_patch_moves_only_the_output() {
        for spirv in [&CLEAR_FLOAT[..], &CLEAR_UINT[..], &CLEAR_SINT[..]] {
            let patched = with_output_location(spirv, 5);
            let (vars, locs) = locations(&patched);
            let output = vars.iter().find(|v| v.1 == 3).unwrap().0;
            let input = vars.iter().find(|v| v.1 == 1).unwrap().0;
            assert!(locs.contains(&(output, 5)));
            assert!(locs.contains(&(input, 0)));
            assert_eq!(patched.len(), spirv.len());
        }
    }
}
