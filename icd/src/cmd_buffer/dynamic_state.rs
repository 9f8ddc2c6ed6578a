//! The dynamic state of Vulkan 1.3 (VK_EXT_extended_dynamic_state and
//! VK_EXT_extended_dynamic_state2) and the part of VK_EXT_extended_dynamic_state3 that is
//! per-draw words rather than shader code: the values the vkCmdSet* commands record, and the
//! state a draw runs with.
//!
//! A draw takes each piece of state from the command buffer if the bound pipeline made it
//! dynamic and from the pipeline otherwise. That is the spec's rule in both directions: a
//! value set before binding a pipeline that has the state dynamic still applies, and binding
//! a pipeline with the state static overrides it (the value becomes undefined, so keeping
//! it for a later pipeline that is dynamic again is as good as any).
//!
//! Every draw emits its complete state (draw.rs), so nothing here tracks dirtiness.

use super::draw::GfxState;
use super::record;
use super::LiveCommandBuffer;
use crate::buffer::Buffer;
use crate::handle;
use crate::handle::Object;
use crate::pipeline_blend::{logic_op, BlendEquation, BlendValues};
use crate::pipeline_graphics::{
    primitive, DepthBiasState, Fixed, StencilFace, MAX_VERTEX_BINDINGS,
};
use crate::topology::Topology;
use ash::vk;
use std::sync::atomic::Ordering;

/// One face's stencil operations as vkCmdSetStencilOp gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilOps {
    pub fail: vk::StencilOp,
    pub pass: vk::StencilOp,
    pub depth_fail: vk::StencilOp,
    pub compare: vk::CompareOp,
}

/// The values recorded by the commands of the two extensions (the 1.0 ones live in
/// [`GfxState`] itself). Until the application sets one its value is undefined by the spec;
/// these defaults are the pipeline defaults of a zeroed create info.
#[derive(Clone, Copy, Debug)]
pub struct DynamicValues {
    pub cull_front: bool,
    pub cull_back: bool,
    pub front_ccw: bool,
    pub primitive: Topology,
    /// Stride of each vertex binding, from vkCmdBindVertexBuffers2 or vkCmdSetVertexInputEXT
    /// (whichever came last).
    pub strides: [u32; MAX_VERTEX_BINDINGS as usize],
    pub depth_test: bool,
    pub depth_write: bool,
    pub depth_compare: vk::CompareOp,
    pub stencil_test: bool,
    /// Front, back.
    pub stencil_ops: [StencilOps; 2],
    pub rasterizer_discard: bool,
    pub depth_bias: bool,
    pub restart: bool,
    // VK_EXT_extended_dynamic_state3.
    pub polygon_mode: vk::PolygonMode,
    pub depth_clamp: bool,
    pub depth_clip: bool,
    pub provoking_last: bool,
    pub bresenham_lines: bool,
    /// The colour blend values (VK_EXT_color_write_enable, the blend part of
    /// VK_EXT_extended_dynamic_state3 and the logic op of extended_dynamic_state2): a draw
    /// picks its fragment program variant by them (pipeline_blend.rs).
    pub blend: BlendValues,
}

impl Default for DynamicValues {
    fn default() -> DynamicValues {
        let keep = StencilOps {
            fail: vk::StencilOp::KEEP,
            pass: vk::StencilOp::KEEP,
            depth_fail: vk::StencilOp::KEEP,
            compare: vk::CompareOp::NEVER,
        };
        DynamicValues {
            cull_front: false,
            cull_back: false,
            front_ccw: false,
            primitive: Topology::Triangles,
            strides: [0; MAX_VERTEX_BINDINGS as usize],
            depth_test: false,
            depth_write: false,
            depth_compare: vk::CompareOp::NEVER,
            stencil_test: false,
            stencil_ops: [keep; 2],
            rasterizer_discard: false,
            depth_bias: false,
            restart: false,
            polygon_mode: vk::PolygonMode::FILL,
            depth_clamp: false,
            depth_clip: true,
            provoking_last: false,
            bresenham_lines: false,
            blend: BlendValues::default(),
        }
    }
}

/// The state one draw runs with, every dynamic choice made.
#[derive(Clone, Debug)]
pub struct Effective {
    pub primitive: Topology,
    pub restart: bool,
    pub strides: [u32; MAX_VERTEX_BINDINGS as usize],
    pub viewport: Option<vk::Viewport>,
    pub scissor: Option<vk::Rect2D>,
    pub rasterizer_discard: bool,
    pub cull_front: bool,
    pub cull_back: bool,
    pub front_ccw: bool,
    pub depth_bias: Option<DepthBiasState>,
    pub line_width: f32,
    pub depth_test: bool,
    /// Already false when the depth test is off: Vulkan writes depth only under the test.
    pub depth_write: bool,
    pub depth_compare: vk::CompareOp,
    /// Both faces with their masks and references, if the stencil test is on.
    pub stencil: Option<[StencilFace; 2]>,
    pub blend_constants: [f32; 4],
    pub polygon_mode: vk::PolygonMode,
    pub depth_clamp: bool,
    /// Clipping against the near and far planes.
    pub depth_clip: bool,
    pub provoking_last: bool,
    pub bresenham_lines: bool,
}

/// The command buffer's value if the state is dynamic, else the pipeline's.
fn pick<T>(dynamic: bool, from_cb: T, from_pipeline: T) -> T {
    if dynamic {
        from_cb
    } else {
        from_pipeline
    }
}

/// The state a draw with a pipeline of state `fx` and command buffer state `g` runs with.
pub fn resolve(fx: &Fixed, g: &GfxState) -> Effective {
    let d = &fx.dynamic;
    let v = &g.ext;
    let depth_test = if d.depth_test_enable {
        fx.has_depth && v.depth_test
    } else {
        fx.depth_test
    };
    let depth_write =
        depth_test && fx.has_depth && pick(d.depth_write_enable, v.depth_write, fx.depth_write);
    let stencil_on = pick(d.stencil_test_enable, v.stencil_test, fx.stencil_test);
    let stencil = fx.stencil.filter(|_| stencil_on).map(|faces| {
        let mut out = faces;
        for (i, f) in out.iter_mut().enumerate() {
            if d.stencil_op {
                let o = v.stencil_ops[i];
                f.fail = o.fail;
                f.pass = o.pass;
                f.depth_fail = o.depth_fail;
                f.compare = o.compare;
            }
            f.compare_mask = pick(
                d.stencil_compare_mask,
                g.stencil_compare_mask[i],
                f.compare_mask,
            );
            f.write_mask = pick(d.stencil_write_mask, g.stencil_write_mask[i], f.write_mask);
            f.reference = pick(d.stencil_reference, g.stencil_reference[i], f.reference);
        }
        out
    });
    let bias_on = pick(d.depth_bias_enable, v.depth_bias, fx.depth_bias_enable);
    let bias = pick(d.depth_bias, g.depth_bias, fx.depth_bias);
    let depth_clamp = pick(d.depth_clamp_enable, v.depth_clamp, fx.depth_clamp);
    // Without VK_EXT_depth_clip_enable's word on it (static or dynamic), clipping is off
    // exactly when clamping, which may itself be dynamic.
    let depth_clip = if d.depth_clip_enable {
        v.depth_clip
    } else {
        fx.depth_clip.unwrap_or(!depth_clamp)
    };
    Effective {
        primitive: pick(d.primitive_topology, v.primitive, fx.primitive),
        restart: pick(d.primitive_restart_enable, v.restart, fx.restart),
        // vkCmdSetVertexInputEXT sets the strides too.
        strides: pick(d.vertex_stride || d.vertex_input, v.strides, fx.strides),
        viewport: pick(d.viewport, g.viewport, fx.viewports.first().copied()),
        scissor: pick(d.scissor, g.scissor, fx.scissors.first().copied()),
        // A pipeline made with a static discard has no fragment shader: it always discards.
        rasterizer_discard: pick(
            d.rasterizer_discard_enable,
            v.rasterizer_discard,
            fx.rasterizer_discard,
        ),
        cull_front: pick(d.cull_mode, v.cull_front, fx.cull_front),
        cull_back: pick(d.cull_mode, v.cull_back, fx.cull_back),
        front_ccw: pick(d.front_face, v.front_ccw, fx.front_ccw),
        depth_bias: bias_on.then_some(bias),
        line_width: pick(d.line_width, g.line_width, fx.line_width),
        depth_test,
        depth_write,
        depth_compare: pick(d.depth_compare_op, v.depth_compare, fx.depth_compare),
        stencil,
        blend_constants: pick(d.blend_constants, g.blend_constants, fx.blend_constants),
        polygon_mode: pick(d.polygon_mode, v.polygon_mode, fx.polygon_mode),
        depth_clamp,
        depth_clip,
        provoking_last: pick(d.provoking_vertex_mode, v.provoking_last, fx.provoking_last),
        bresenham_lines: pick(
            d.line_rasterization_mode,
            v.bresenham_lines,
            fx.bresenham_lines,
        ),
    }
}

/// Records a change of the dynamic state values.
fn set(
    name: &'static str,
    cb: LiveCommandBuffer,
    f: impl FnOnce(&mut DynamicValues) -> Result<(), vk::Result>,
) {
    record(name, cb, |_, rec| f(&mut rec.gfx_mut().ext))
}

pub unsafe extern "system" fn cmd_set_cull_mode(cb: vk::CommandBuffer, mode: vk::CullModeFlags) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetCullMode", cb, |v| {
        v.cull_front = mode.contains(vk::CullModeFlags::FRONT);
        v.cull_back = mode.contains(vk::CullModeFlags::BACK);
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_front_face(cb: vk::CommandBuffer, face: vk::FrontFace) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetFrontFace", cb, |v| {
        v.front_ccw = face == vk::FrontFace::COUNTER_CLOCKWISE;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_primitive_topology(
    cb: vk::CommandBuffer,
    topology: vk::PrimitiveTopology,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetPrimitiveTopology", cb, |v| {
        v.primitive = primitive(topology)?;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_viewport_with_count(
    cb: vk::CommandBuffer,
    count: u32,
    p_viewports: *const vk::Viewport,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetViewportWithCount", cb, |_, rec| {
        // SAFETY: valid usage: the array holds `count` viewports (one: multiViewport is not
        // offered).
        let vps = unsafe { handle::slice(p_viewports, count) };
        rec.gfx_mut().viewport = vps.first().copied();
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_scissor_with_count(
    cb: vk::CommandBuffer,
    count: u32,
    p_scissors: *const vk::Rect2D,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdSetScissorWithCount", cb, |_, rec| {
        // SAFETY: valid usage: the array holds `count` rectangles.
        let rects = unsafe { handle::slice(p_scissors, count) };
        rec.gfx_mut().scissor = rects.first().copied();
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_bind_vertex_buffers2(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_buffers: *const vk::Buffer,
    p_offsets: *const vk::DeviceSize,
    p_sizes: *const vk::DeviceSize,
    p_strides: *const vk::DeviceSize,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBindVertexBuffers2", cb, |_, rec| {
        // SAFETY: valid usage: the buffers and offsets hold `count` entries, and so do the
        // sizes and strides when they are not null.
        let (bufs, offsets, sizes, strides) = unsafe {
            (
                handle::slice(p_buffers, count),
                handle::slice(p_offsets, count),
                (!p_sizes.is_null()).then(|| handle::slice(p_sizes, count)),
                (!p_strides.is_null()).then(|| handle::slice(p_strides, count)),
            )
        };
        for (i, (&b, &o)) in bufs.iter().zip(offsets).enumerate() {
            let slot = first as usize + i;
            // SAFETY: Vulkan valid usage: each of `pBuffers` is a live buffer made by this driver.
            let buf = unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
            let mut size = buf.size.saturating_sub(o);
            if let Some(&s) = sizes.and_then(|s| s.get(i)) {
                if s != vk::WHOLE_SIZE {
                    size = size.min(s);
                }
            }
            *rec.gfx_mut()
                .vertex_buffers
                .get_mut(slot)
                .ok_or(vk::Result::ERROR_UNKNOWN)? = (buf.va.load(Ordering::Acquire) + o, size);
            if let Some(&s) = strides.and_then(|s| s.get(i)) {
                // Valid usage bounds a stride by maxVertexInputBindingStride.
                rec.gfx_mut().ext.strides[slot] =
                    u32::try_from(s).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
            }
        }
        rec.state_changed();
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_test_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthTestEnable", cb, |v| {
        v.depth_test = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_write_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthWriteEnable", cb, |v| {
        v.depth_write = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_compare_op(cb: vk::CommandBuffer, op: vk::CompareOp) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthCompareOp", cb, |v| {
        v.depth_compare = op;
        Ok(())
    })
}

/// The depth bounds test needs the depthBounds feature, which agx4 does not offer, so valid
/// usage only ever sets this enable to false: there is nothing to record.
pub unsafe extern "system" fn cmd_set_depth_bounds_test_enable(
    cb: vk::CommandBuffer,
    on: vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthBoundsTestEnable", cb, |_| {
        if on != 0 {
            eprintln!("agx4: the depth bounds test is not supported");
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_stencil_test_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetStencilTestEnable", cb, |v| {
        v.stencil_test = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_stencil_op(
    cb: vk::CommandBuffer,
    faces: vk::StencilFaceFlags,
    fail: vk::StencilOp,
    pass: vk::StencilOp,
    depth_fail: vk::StencilOp,
    compare: vk::CompareOp,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetStencilOp", cb, |v| {
        let ops = StencilOps {
            fail,
            pass,
            depth_fail,
            compare,
        };
        for (i, f) in [vk::StencilFaceFlags::FRONT, vk::StencilFaceFlags::BACK]
            .into_iter()
            .enumerate()
        {
            if faces.contains(f) {
                v.stencil_ops[i] = ops;
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_rasterizer_discard_enable(
    cb: vk::CommandBuffer,
    on: vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetRasterizerDiscardEnable", cb, |v| {
        v.rasterizer_discard = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_bias_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthBiasEnable", cb, |v| {
        v.depth_bias = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_primitive_restart_enable(
    cb: vk::CommandBuffer,
    on: vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetPrimitiveRestartEnable", cb, |v| {
        v.restart = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_polygon_mode(cb: vk::CommandBuffer, mode: vk::PolygonMode) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetPolygonModeEXT", cb, |v| {
        v.polygon_mode = match mode {
            m @ (vk::PolygonMode::FILL | vk::PolygonMode::LINE | vk::PolygonMode::POINT) => m,
            other => {
                // FILL_RECTANGLE_NV needs VK_NV_fill_rectangle, which agx4 does not offer.
                eprintln!("agx4: polygon mode {other:?} is not supported");
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
        };
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_clamp_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthClampEnableEXT", cb, |v| {
        v.depth_clamp = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_depth_clip_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthClipEnableEXT", cb, |v| {
        v.depth_clip = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_provoking_vertex_mode(
    cb: vk::CommandBuffer,
    mode: vk::ProvokingVertexModeEXT,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetProvokingVertexModeEXT", cb, |v| {
        v.provoking_last = mode == vk::ProvokingVertexModeEXT::LAST_VERTEX;
        Ok(())
    })
}

/// Valid usage allows only the modes whose features agx4 offers: the default mode and
/// Bresenham, which rasterize alike apart from the multisample coverage of lines. Mesa 22.3's
/// Zink passes GL's rectangular and smooth modes here without checking the features (its
/// static path falls back to the default mode for them), so those get the default mode too
/// rather than failing the command buffer.
pub unsafe extern "system" fn cmd_set_line_rasterization_mode(
    cb: vk::CommandBuffer,
    mode: vk::LineRasterizationModeEXT,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetLineRasterizationModeEXT", cb, |v| {
        v.bresenham_lines = mode == vk::LineRasterizationModeEXT::BRESENHAM;
        Ok(())
    })
}

/// VK_EXT_depth_clip_control is not offered, so valid usage never makes this state dynamic
/// nor sets it. Mesa 22.3's Zink does both with extended_dynamic_state3 whatever the features
/// say (and converts depth to [0, 1] in its shaders when clip control is missing), so the
/// value is recorded as nothing: clip space depth stays [0, 1].
pub unsafe extern "system" fn cmd_set_depth_clip_negative_one_to_one(
    cb: vk::CommandBuffer,
    _negative_one_to_one: vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetDepthClipNegativeOneToOneEXT", cb, |_| Ok(()))
}

/// Sets bits `first ..` of `mask` from `values`; attachments past the last one agx4 has are
/// never written, so their values are dropped.
fn set_bits(mask: &mut u8, first: u32, values: impl Iterator<Item = bool>) {
    for (i, on) in values.enumerate() {
        let at = first as usize + i;
        if at < 8 {
            if on {
                *mask |= 1 << at;
            } else {
                *mask &= !(1 << at);
            }
        }
    }
}

pub unsafe extern "system" fn cmd_set_color_write_enable(
    cb: vk::CommandBuffer,
    count: u32,
    p_enables: *const vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetColorWriteEnableEXT", cb, |v| {
        // SAFETY: valid usage: the array holds `count` values.
        let en = unsafe { handle::slice(p_enables, count) };
        // The enables are given from attachment 0; the rest keep theirs.
        set_bits(&mut v.blend.write_enable, 0, en.iter().map(|e| *e != 0));
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_color_blend_enable(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_enables: *const vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetColorBlendEnableEXT", cb, |v| {
        // SAFETY: valid usage: the array holds `count` values.
        let en = unsafe { handle::slice(p_enables, count) };
        set_bits(&mut v.blend.blend_enable, first, en.iter().map(|e| *e != 0));
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_color_blend_equation(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_equations: *const vk::ColorBlendEquationEXT,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetColorBlendEquationEXT", cb, |v| {
        // SAFETY: valid usage: the array holds `count` equations.
        let eqs = unsafe { handle::slice(p_equations, count) };
        for (i, e) in eqs.iter().enumerate() {
            if let Some(slot) = v.blend.equations.get_mut(first as usize + i) {
                *slot = BlendEquation::from_vk(e)?;
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_color_write_mask(
    cb: vk::CommandBuffer,
    first: u32,
    count: u32,
    p_masks: *const vk::ColorComponentFlags,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetColorWriteMaskEXT", cb, |v| {
        // SAFETY: valid usage: the array holds `count` masks.
        let masks = unsafe { handle::slice(p_masks, count) };
        for (i, m) in masks.iter().enumerate() {
            if let Some(slot) = v.blend.write_masks.get_mut(first as usize + i) {
                *slot = (m.as_raw() & 0xf) as u8;
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_logic_op_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetLogicOpEnableEXT", cb, |v| {
        v.blend.logic_op_enable = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_logic_op(cb: vk::CommandBuffer, op: vk::LogicOp) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetLogicOpEXT", cb, |v| {
        v.blend.logic_op = logic_op(op);
        Ok(())
    })
}

/// agx4's sample counts (1 and 4) fit the first word of the mask.
pub unsafe extern "system" fn cmd_set_sample_mask(
    cb: vk::CommandBuffer,
    samples: vk::SampleCountFlags,
    p_mask: *const vk::SampleMask,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetSampleMaskEXT", cb, |v| {
        // SAFETY: valid usage: the array holds ceil(samples / 32) words, at least one.
        let words = unsafe { handle::slice(p_mask, samples.as_raw().div_ceil(32)) };
        v.blend.sample_mask = words.first().copied().unwrap_or(u32::MAX);
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_alpha_to_coverage_enable(
    cb: vk::CommandBuffer,
    on: vk::Bool32,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetAlphaToCoverageEnableEXT", cb, |v| {
        v.blend.alpha_to_coverage = on != 0;
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_set_alpha_to_one_enable(cb: vk::CommandBuffer, on: vk::Bool32) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    set("vkCmdSetAlphaToOneEnableEXT", cb, |v| {
        v.blend.alpha_to_one = on != 0;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline_graphics::Dynamic;

    fn face(op: vk::StencilOp, reference: u32) -> StencilFace {
        StencilFace {
            fail: op,
            pass: op,
            depth_fail: op,
            compare: vk::CompareOp::EQUAL,
            compare_mask: 0x0f,
            write_mask: 0xf0,
            reference,
        }
    }

    /// A pipeline with every state static and set away from the command buffer defaults.
    fn fixed() -> Fixed {
        let mut strides = [0; MAX_VERTEX_BINDINGS as usize];
        strides[0] = 12;
        Fixed {
            primitive: Topology::LineStrip,
            restart: true,
            strides,
            viewports: vec![vk::Viewport {
                width: 7.0,
                height: 9.0,
                ..Default::default()
            }],
            scissors: vec![vk::Rect2D::default()],
            rasterizer_discard: false,
            cull_front: true,
            cull_back: false,
            front_ccw: true,
            depth_bias_enable: true,
            depth_bias: DepthBiasState {
                constant: 3.0,
                clamp: 0.0,
                slope: 1.0,
            },
            line_width: 2.0,
            polygon_mode: vk::PolygonMode::FILL,
            has_depth: true,
            depth_test: true,
            depth_write: true,
            depth_compare: vk::CompareOp::LESS,
            stencil: Some([face(vk::StencilOp::INVERT, 1), face(vk::StencilOp::ZERO, 2)]),
            stencil_test: true,
            blend_constants: [0.5; 4],
            depth_clamp: true,
            depth_clip: None,
            bresenham_lines: true,
            provoking_last: true,
            blend: BlendValues::default(),
            dynamic: Dynamic::default(),
        }
    }

    fn everything_dynamic() -> Dynamic {
        Dynamic {
            viewport: true,
            scissor: true,
            line_width: true,
            depth_bias: true,
            blend_constants: true,
            stencil_compare_mask: true,
            stencil_write_mask: true,
            stencil_reference: true,
            cull_mode: true,
            front_face: true,
            primitive_topology: true,
            vertex_stride: true,
            depth_test_enable: true,
            depth_write_enable: true,
            depth_compare_op: true,
            depth_bounds_test_enable: true,
            stencil_test_enable: true,
            stencil_op: true,
            rasterizer_discard_enable: true,
            depth_bias_enable: true,
            primitive_restart_enable: true,
            polygon_mode: true,
            depth_clamp_enable: true,
            depth_clip_enable: true,
            provoking_vertex_mode: true,
            line_rasterization_mode: true,
            vertex_input: true,
            color_write_enable: true,
            color_blend_enable: true,
            color_blend_equation: true,
            color_write_mask: true,
            logic_op_enable: true,
            logic_op: true,
            sample_mask: true,
            alpha_to_coverage_enable: true,
            alpha_to_one_enable: true,
        }
    }

    #[test]
    fn dynamic_vertex_input_takes_the_command_buffer_strides() {
        // VK_EXT_vertex_input_dynamic_state without a dynamic stride: vkCmdSetVertexInputEXT
        // set the strides, which live where vkCmdBindVertexBuffers2 puts its own.
        let mut fx = fixed();
        fx.dynamic.vertex_input = true;
        let mut g = GfxState::default();
        g.ext.strides[0] = 20;
        assert_eq!(resolve(&fx, &g).strides[0], 20);
        fx.dynamic.vertex_input = false;
        assert_eq!(resolve(&fx, &g).strides[0], 12);
    }

    #[test]
    fn static_pipeline_state_overrides_the_command_buffer() {
        let mut g = GfxState::default();
        g.ext.primitive = Topology::Points;
        g.ext.depth_test = false;
        g.ext.stencil_test = false;
        g.ext.strides[0] = 99;
        g.stencil_reference = [77, 77];
        let e = resolve(&fixed(), &g);
        assert_eq!(e.primitive, Topology::LineStrip);
        assert!(e.restart && e.cull_front && !e.cull_back && e.front_ccw);
        assert!(e.depth_test && e.depth_write);
        assert_eq!(e.depth_compare, vk::CompareOp::LESS);
        assert_eq!(e.strides[0], 12);
        assert_eq!(e.viewport.map(|v| v.width), Some(7.0));
        let s = e.stencil.expect("static stencil test on");
        assert_eq!((s[0].reference, s[1].reference), (1, 2));
        assert_eq!(s[0].fail, vk::StencilOp::INVERT);
        assert_eq!(e.depth_bias.map(|b| b.constant), Some(3.0));
        assert_eq!(e.polygon_mode, vk::PolygonMode::FILL);
        // Clamping turns clipping off when nothing else says.
        assert!(e.depth_clamp && !e.depth_clip);
        assert!(e.provoking_last && e.bresenham_lines);
    }

    #[test]
    fn dynamic_state_comes_from_the_command_buffer() {
        let mut fx = fixed();
        fx.dynamic = everything_dynamic();
        let mut ext = DynamicValues {
            cull_front: false,
            cull_back: true,
            front_ccw: false,
            primitive: Topology::TriangleFan,
            depth_test: true,
            depth_write: false,
            depth_compare: vk::CompareOp::GREATER_OR_EQUAL,
            stencil_test: true,
            rasterizer_discard: true,
            depth_bias: false,
            restart: false,
            ..DynamicValues::default()
        };
        ext.strides[0] = 32;
        ext.stencil_ops[1] = StencilOps {
            fail: vk::StencilOp::INCREMENT_AND_WRAP,
            pass: vk::StencilOp::REPLACE,
            depth_fail: vk::StencilOp::DECREMENT_AND_CLAMP,
            compare: vk::CompareOp::NOT_EQUAL,
        };
        let g = GfxState {
            ext,
            stencil_reference: [5, 6],
            stencil_write_mask: [0x11, 0x22],
            line_width: 4.0,
            ..GfxState::default()
        };
        let e = resolve(&fx, &g);
        assert_eq!(e.primitive, Topology::TriangleFan);
        assert!(!e.restart && !e.cull_front && e.cull_back && !e.front_ccw);
        assert!(e.rasterizer_discard);
        assert!(e.depth_test && !e.depth_write);
        assert_eq!(e.depth_compare, vk::CompareOp::GREATER_OR_EQUAL);
        assert_eq!(e.strides[0], 32);
        assert!(e.viewport.is_none() && e.scissor.is_none());
        assert!(e.depth_bias.is_none());
        assert_eq!(e.line_width, 4.0);
        let s = e.stencil.expect("dynamic stencil test on");
        assert_eq!(s[1].pass, vk::StencilOp::REPLACE);
        assert_eq!(s[1].compare, vk::CompareOp::NOT_EQUAL);
        assert_eq!(s[0].fail, vk::StencilOp::KEEP);
        assert_eq!((s[0].reference, s[1].write_mask), (5, 0x22));
        // The defaults of the extended_dynamic_state3 values.
        assert_eq!(e.polygon_mode, vk::PolygonMode::FILL);
        assert!(!e.depth_clamp && e.depth_clip);
        assert!(!e.provoking_last && !e.bresenham_lines);
    }

    #[test]
    fn extended_dynamic_state3_values_come_from_the_command_buffer() {
        let mut fx = fixed();
        fx.dynamic.polygon_mode = true;
        fx.dynamic.depth_clamp_enable = true;
        fx.dynamic.provoking_vertex_mode = true;
        let mut g = GfxState::default();
        g.ext.polygon_mode = vk::PolygonMode::LINE;
        g.ext.depth_clamp = false;
        g.ext.provoking_last = false;
        let e = resolve(&fx, &g);
        assert_eq!(e.polygon_mode, vk::PolygonMode::LINE);
        // Clipping follows the dynamic clamp enable unless the pipeline names it.
        assert!(!e.depth_clamp && e.depth_clip && !e.provoking_last);
        assert!(e.bresenham_lines, "the line mode stays static");
        fx.depth_clip = Some(false);
        assert!(!resolve(&fx, &g).depth_clip);
        fx.dynamic.depth_clip_enable = true;
        g.ext.depth_clip = true;
        g.ext.depth_clamp = true;
        let e = resolve(&fx, &g);
        assert!(e.depth_clamp && e.depth_clip);
    }

    #[test]
    fn depth_writes_need_the_test_and_a_depth_aspect() {
        let mut fx = fixed();
        fx.dynamic.depth_test_enable = true;
        let mut g = GfxState::default();
        g.ext.depth_test = false;
        let e = resolve(&fx, &g);
        assert!(!e.depth_test && !e.depth_write);
        // Without a depth aspect a dynamic enable does nothing.
        fx.has_depth = false;
        g.ext.depth_test = true;
        let e = resolve(&fx, &g);
        assert!(!e.depth_test && !e.depth_write);
    }

    #[test]
    fn dynamic_enables_switch_static_state_on_and_off() {
        let mut fx = fixed();
        fx.dynamic.stencil_test_enable = true;
        fx.dynamic.depth_bias_enable = true;
        let mut g = GfxState::default();
        g.ext.stencil_test = false;
        g.ext.depth_bias = true;
        fx.depth_bias_enable = false;
        let e = resolve(&fx, &g);
        assert!(e.stencil.is_none());
        assert_eq!(e.depth_bias.map(|b| b.slope), Some(1.0));
    }
}
