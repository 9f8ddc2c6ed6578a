//! The colour blend and multisample state of a graphics pipeline that is compiled into its
//! fragment shader (blend enables and equations, write masks, VK_EXT_color_write_enable's
//! enables, the logic op; the sample mask and alpha to coverage/one) and the fragment shader
//! variants that make it dynamic.
//!
//! AGX has no fixed-function blender and no API sample mask: blending, write masks and logic
//! ops are compiled into the end of the fragment shader (compiler g13/isel/blend.rs), the
//! sample mask and alpha to coverage/one into its start. A pipeline that makes any of
//! them dynamic therefore keeps what it needs to compile its fragment shader again, and a
//! draw picks the program for the state it runs with: the pipeline's own program when that
//! state is the one the pipeline was compiled for, else a variant compiled once per state
//! and kept in the pipeline. Pipelines with all of it static hold no variants and pay
//! nothing per draw.

use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::pipeline_graphics::Dynamic;
use crate::render_pass::MAX_COLOR_ATTACHMENTS;
use ash::vk;
use compiler::{BlendAttachment, BlendFactor, BlendOp, LogicOp};
use std::sync::{Arc, Mutex};

/// One attachment's blend equation (`VkColorBlendEquationEXT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendEquation {
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
}

impl Default for BlendEquation {
    fn default() -> BlendEquation {
        let d = BlendAttachment::default();
        BlendEquation {
            src_color: d.src_color,
            dst_color: d.dst_color,
            color_op: d.color_op,
            src_alpha: d.src_alpha,
            dst_alpha: d.dst_alpha,
            alpha_op: d.alpha_op,
        }
    }
}

impl BlendEquation {
    pub fn from_vk(e: &vk::ColorBlendEquationEXT) -> Result<BlendEquation, vk::Result> {
        Ok(BlendEquation {
            src_color: blend_factor(e.src_color_blend_factor)?,
            dst_color: blend_factor(e.dst_color_blend_factor)?,
            color_op: blend_op(e.color_blend_op)?,
            src_alpha: blend_factor(e.src_alpha_blend_factor)?,
            dst_alpha: blend_factor(e.dst_alpha_blend_factor)?,
            alpha_op: blend_op(e.alpha_blend_op)?,
        })
    }
}

/// The colour blend and multisample values compiled into a fragment shader, as a pipeline
/// or a command buffer holds them (per-attachment ones by colour attachment index). The
/// pipeline holds the static ones, the command buffer what the vkCmdSet* commands recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendValues {
    /// VK_EXT_color_write_enable: bit i clear = attachment i gets no write.
    pub write_enable: u8,
    /// Bit i = blending on for attachment i.
    pub blend_enable: u8,
    pub equations: [BlendEquation; MAX_COLOR_ATTACHMENTS],
    /// Bit 0 = R ... bit 3 = A.
    pub write_masks: [u8; MAX_COLOR_ATTACHMENTS],
    pub logic_op_enable: bool,
    pub logic_op: LogicOp,
    /// The first word of the sample mask (agx4's sample counts fit it).
    pub sample_mask: u32,
    pub alpha_to_coverage: bool,
    pub alpha_to_one: bool,
}

impl Default for BlendValues {
    /// The values of a zeroed create info with every write enabled: what the command buffer
    /// holds until the application sets a value (the spec leaves it undefined).
    fn default() -> BlendValues {
        BlendValues {
            write_enable: 0xff,
            blend_enable: 0,
            equations: [BlendEquation::default(); MAX_COLOR_ATTACHMENTS],
            write_masks: [0xf; MAX_COLOR_ATTACHMENTS],
            logic_op_enable: false,
            logic_op: LogicOp::Copy,
            sample_mask: u32::MAX,
            alpha_to_coverage: false,
            alpha_to_one: false,
        }
    }
}

/// The state a fragment program is compiled for, normalised so that states that write alike
/// compare equal: an attachment without writes ignores its equation and enable, one without
/// blending its equation, the sample mask only has bits of existing samples. It is the key
/// of a pipeline's variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragmentKey {
    pub attachments: [BlendAttachment; MAX_COLOR_ATTACHMENTS],
    pub logic_op: Option<LogicOp>,
    pub coverage: compiler::CoverageOptions,
}

fn bit(mask: u8, i: usize) -> bool {
    mask & (1 << i) != 0
}

/// The state a draw with pipeline dynamic flags `d`, static values `fx` and command buffer
/// values `cb` runs with, for the attachments in `present` (bit i = attachment i is in the
/// subpass; the others are never written) and `samples` rasterization samples.
pub fn resolve(
    d: &Dynamic,
    fx: &BlendValues,
    cb: &BlendValues,
    present: u8,
    samples: u32,
) -> FragmentKey {
    let pick = |dynamic: bool| if dynamic { cb } else { fx };
    let write_enable = pick(d.color_write_enable).write_enable;
    let blend_enable = pick(d.color_blend_enable).blend_enable;
    let equations = &pick(d.color_blend_equation).equations;
    let masks = &pick(d.color_write_mask).write_masks;
    let mut attachments = [BlendAttachment::default(); MAX_COLOR_ATTACHMENTS];
    for (i, a) in attachments.iter_mut().enumerate() {
        let mask = if bit(present, i) && bit(write_enable, i) {
            masks[i] & 0xf
        } else {
            0
        };
        a.write_mask = mask;
        if mask != 0 && bit(blend_enable, i) {
            let e = equations[i];
            a.enable = true;
            a.src_color = e.src_color;
            a.dst_color = e.dst_color;
            a.color_op = e.color_op;
            a.src_alpha = e.src_alpha;
            a.dst_alpha = e.dst_alpha;
            a.alpha_op = e.alpha_op;
        }
    }
    let logic_op = pick(d.logic_op_enable)
        .logic_op_enable
        .then_some(pick(d.logic_op).logic_op);
    let all = ((1u64 << samples.min(32)) - 1) as u32;
    let coverage = compiler::CoverageOptions {
        sample_mask: pick(d.sample_mask).sample_mask & all,
        alpha_to_coverage: pick(d.alpha_to_coverage_enable).alpha_to_coverage,
        alpha_to_one: pick(d.alpha_to_one_enable).alpha_to_one,
    };
    FragmentKey {
        attachments,
        logic_op,
        coverage,
    }
}

/// Whether any of the state compiled into the fragment shader is dynamic.
pub fn any_dynamic(d: &Dynamic) -> bool {
    d.color_write_enable
        || d.color_blend_enable
        || d.color_blend_equation
        || d.color_write_mask
        || d.logic_op_enable
        || d.logic_op
        || d.alpha_to_one_enable
        || kills_dynamically(d)
}

/// Whether a dynamic state may make the fragment shader kill samples (so a variant may need
/// the late depth/stencil test where the pipeline's own program does not).
pub fn kills_dynamically(d: &Dynamic) -> bool {
    d.sample_mask || d.alpha_to_coverage_enable
}

/// A fragment program a draw can launch: its code's offset from `usc_exec_base` and what its
/// launch words need.
#[derive(Clone, Copy, Debug)]
pub struct FragmentProgram {
    pub code: u32,
    pub gpr_halves: u32,
    /// Root table halves the launch preloads.
    pub uniform_halves: u32,
    pub stack_bytes: u32,
    /// The program may kill samples (late depth/stencil test, punch-through pass).
    pub discards: bool,
    /// Its uniform preamble, which follows the code.
    pub preamble: Option<compiler::PreambleCode>,
    /// Uniform halves the launch allocates (the root table's and the preamble's results).
    pub launch_uniform_halves: u32,
}

/// A compiled variant, resident for as long as its pipeline.
struct Variant {
    _bo: Bo,
    program: FragmentProgram,
}

/// A shader stage as the pipeline was given it, owned: the module may be destroyed once the
/// pipeline exists.
pub struct OwnedStage {
    pub spirv: Vec<u32>,
    pub entry: String,
    pub specialization: Vec<compiler::Specialization>,
}

impl OwnedStage {
    fn request<'a>(
        &'a self,
        stage: compiler::ir::Stage,
        layout: &'a compiler::ResourceLayout,
        target: compiler::Target,
    ) -> compiler::ShaderRequest<'a> {
        compiler::ShaderRequest {
            spirv: &self.spirv,
            entry_point: &self.entry,
            stage,
            specialization: &self.specialization,
            layout,
            target,
        }
    }
}

/// What a pipeline with dynamic blend state needs to compile a fragment variant, and the
/// variants compiled so far.
pub struct FragmentVariants {
    /// The vertex and geometry shaders decide the varying layout the fragment shader reads.
    pub vertex: OwnedStage,
    pub geometry: Option<OwnedStage>,
    pub fragment: Option<OwnedStage>,
    pub resources: compiler::ResourceLayout,
    pub target: compiler::Target,
    /// The fragment state of the pipeline's own program; variants replace the targets'
    /// blend state and the logic op.
    pub state: compiler::FragmentState,
    pub options: compiler::GraphicsPipelineOptions,
    /// Bit i = colour attachment i is in the subpass.
    pub present: u8,
    /// Rasterization samples.
    pub samples: u32,
    /// The state the pipeline's own program was compiled for.
    pub base: FragmentKey,
    /// Compiled at most once per key: a draw that finds no entry compiles with the lock
    /// held, so a second thread asking for the same key waits and then finds it.
    cache: Mutex<hashbrown::HashMap<FragmentKey, Arc<Variant>>>,
}

impl FragmentVariants {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        vertex: OwnedStage,
        geometry: Option<OwnedStage>,
        fragment: Option<OwnedStage>,
        resources: compiler::ResourceLayout,
        target: compiler::Target,
        state: compiler::FragmentState,
        options: compiler::GraphicsPipelineOptions,
        present: u8,
        samples: u32,
        base: FragmentKey,
    ) -> FragmentVariants {
        FragmentVariants {
            vertex,
            geometry,
            fragment,
            resources,
            target,
            state,
            options,
            present,
            samples,
            base,
            cache: Mutex::new(hashbrown::HashMap::new()),
        }
    }

    /// The program for blend state `key` (which must differ from `base`: the pipeline's own
    /// program serves that one), compiled on first use.
    pub fn get(&self, dev: &Device, key: &FragmentKey) -> Result<FragmentProgram, vk::Result> {
        let mut map = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = map.get(key) {
            return Ok(v.program);
        }
        let v = Arc::new(self.compile(dev, key)?);
        let program = v.program;
        map.insert(*key, v);
        Ok(program)
    }

    fn compile(&self, dev: &Device, key: &FragmentKey) -> Result<Variant, vk::Result> {
        let mut state = self.state.clone();
        for t in &mut state.targets {
            if let Some(b) = key.attachments.get(t.location as usize) {
                t.blend = *b;
            }
        }
        state.logic_op = key.logic_op;
        // compile_fragment_variant does not read the vertex input layout (the varyings do not
        // depend on it), so a pipeline whose layout is dynamic gets variants too.
        let no_input = compiler::VertexInputLayout::default();
        let req = compiler::GraphicsPipelineRequest {
            vertex: self
                .vertex
                .request(compiler::ir::Stage::Vertex, &self.resources, self.target),
            fragment: self
                .fragment
                .as_ref()
                .map(|f| f.request(compiler::ir::Stage::Fragment, &self.resources, self.target)),
            geometry: self
                .geometry
                .as_ref()
                .map(|g| g.request(compiler::ir::Stage::Geometry, &self.resources, self.target)),
            vertex_input: &no_input,
            fragment_state: &state,
        };
        let bin = compiler::compile_fragment_variant(&req, &self.options, &key.coverage)
            .map_err(|e| {
                eprintln!("agx4: fragment shader variant for dynamic state: {e}");
                crate::pipeline::compile_error_result(&e)
            })?
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let discards = bin.discards;
        let bin = bin.stage;
        let bo = Bo::new(dev, bin.code.len().max(4) as u64, Place::Usc, false)?;
        bo.write(0, &bin.code)?;
        let code = u32::try_from(bo.va - dev.usc_base)
            .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        let stack_bytes = crate::pipeline::stack_bytes(dev, bin.scratch_bytes)?;
        Ok(Variant {
            _bo: bo,
            program: FragmentProgram {
                code,
                gpr_halves: bin.gpr_halves,
                uniform_halves: bin.uniform_halves,
                stack_bytes,
                discards,
                preamble: bin.preamble,
                launch_uniform_halves: bin.launch_uniform_halves(),
            },
        })
    }
}

fn unsupported<T>(why: String) -> Result<T, vk::Result> {
    eprintln!("agx4: {why} is not supported");
    Err(vk::Result::ERROR_FEATURE_NOT_PRESENT)
}

pub fn blend_factor(f: vk::BlendFactor) -> Result<BlendFactor, vk::Result> {
    use vk::BlendFactor as V;
    Ok(match f {
        V::ZERO => BlendFactor::Zero,
        V::ONE => BlendFactor::One,
        V::SRC_COLOR => BlendFactor::SrcColor,
        V::ONE_MINUS_SRC_COLOR => BlendFactor::OneMinusSrcColor,
        V::DST_COLOR => BlendFactor::DstColor,
        V::ONE_MINUS_DST_COLOR => BlendFactor::OneMinusDstColor,
        V::SRC_ALPHA => BlendFactor::SrcAlpha,
        V::ONE_MINUS_SRC_ALPHA => BlendFactor::OneMinusSrcAlpha,
        V::DST_ALPHA => BlendFactor::DstAlpha,
        V::ONE_MINUS_DST_ALPHA => BlendFactor::OneMinusDstAlpha,
        V::CONSTANT_COLOR => BlendFactor::ConstantColor,
        V::ONE_MINUS_CONSTANT_COLOR => BlendFactor::OneMinusConstantColor,
        V::CONSTANT_ALPHA => BlendFactor::ConstantAlpha,
        V::ONE_MINUS_CONSTANT_ALPHA => BlendFactor::OneMinusConstantAlpha,
        V::SRC_ALPHA_SATURATE => BlendFactor::SrcAlphaSaturate,
        V::SRC1_COLOR => BlendFactor::Src1Color,
        V::ONE_MINUS_SRC1_COLOR => BlendFactor::OneMinusSrc1Color,
        V::SRC1_ALPHA => BlendFactor::Src1Alpha,
        V::ONE_MINUS_SRC1_ALPHA => BlendFactor::OneMinusSrc1Alpha,
        other => return unsupported(format!("blend factor {other:?}")),
    })
}

pub fn blend_op(o: vk::BlendOp) -> Result<BlendOp, vk::Result> {
    Ok(match o {
        vk::BlendOp::ADD => BlendOp::Add,
        vk::BlendOp::SUBTRACT => BlendOp::Subtract,
        vk::BlendOp::REVERSE_SUBTRACT => BlendOp::ReverseSubtract,
        vk::BlendOp::MIN => BlendOp::Min,
        vk::BlendOp::MAX => BlendOp::Max,
        other => return unsupported(format!("blend op {other:?}")),
    })
}

pub fn logic_op(o: vk::LogicOp) -> LogicOp {
    use vk::LogicOp as V;
    match o {
        V::CLEAR => LogicOp::Clear,
        V::AND => LogicOp::And,
        V::AND_REVERSE => LogicOp::AndReverse,
        V::AND_INVERTED => LogicOp::AndInverted,
        V::NO_OP => LogicOp::NoOp,
        V::XOR => LogicOp::Xor,
        V::OR => LogicOp::Or,
        V::NOR => LogicOp::Nor,
        V::EQUIVALENT => LogicOp::Equivalent,
        V::INVERT => LogicOp::Invert,
        V::OR_REVERSE => LogicOp::OrReverse,
        V::COPY_INVERTED => LogicOp::CopyInverted,
        V::OR_INVERTED => LogicOp::OrInverted,
        V::NAND => LogicOp::Nand,
        V::SET => LogicOp::Set,
        _ => LogicOp::Copy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blending() -> BlendEquation {
        BlendEquation {
            src_color: BlendFactor::SrcAlpha,
            dst_color: BlendFactor::OneMinusSrcAlpha,
            color_op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
        }
    }

    #[test]
    fn static_state_ignores_the_command_buffer() {
        let fx = BlendValues::default();
        let cb = BlendValues {
            write_enable: 0,
            write_masks: [0; MAX_COLOR_ATTACHMENTS],
            ..BlendValues::default()
        };
        let k = resolve(&Dynamic::default(), &fx, &cb, 0b1, 1);
        assert_eq!(k.attachments[0].write_mask, 0xf);
    }

    #[test]
    fn a_disabled_write_is_a_zero_mask_whatever_the_equation() {
        let d = Dynamic {
            color_write_enable: true,
            ..Dynamic::default()
        };
        let mut fx = BlendValues {
            blend_enable: 1,
            ..BlendValues::default()
        };
        fx.equations[0] = blending();
        let off = BlendValues {
            write_enable: 0,
            ..BlendValues::default()
        };
        let k = resolve(&d, &fx, &off, 0b1, 1);
        assert_eq!(k.attachments[0].write_mask, 0);
        // Same key as any other attachment that writes nothing.
        fx.equations[0] = BlendEquation::default();
        assert_eq!(k, resolve(&d, &fx, &off, 0b1, 1));
        assert_ne!(k, resolve(&d, &fx, &BlendValues::default(), 0b1, 1));
    }

    #[test]
    fn equations_matter_only_when_blending() {
        let d = Dynamic {
            color_blend_equation: true,
            color_blend_enable: true,
            ..Dynamic::default()
        };
        let fx = BlendValues::default();
        let mut cb = BlendValues::default();
        cb.equations[1] = blending();
        let plain = resolve(&d, &fx, &BlendValues::default(), 0b11, 1);
        assert_eq!(resolve(&d, &fx, &cb, 0b11, 1), plain);
        cb.blend_enable = 0b10;
        let k = resolve(&d, &fx, &cb, 0b11, 1);
        assert!(k.attachments[1].enable && !k.attachments[0].enable);
        assert_eq!(k.attachments[1].src_color, BlendFactor::SrcAlpha);
        // Attachments outside the subpass never count.
        assert_eq!(
            resolve(&d, &fx, &cb, 0b01, 1),
            resolve(&d, &fx, &fx, 0b01, 1)
        );
    }

    #[test]
    fn logic_op_follows_its_enable() {
        let d = Dynamic {
            logic_op_enable: true,
            logic_op: true,
            ..Dynamic::default()
        };
        let fx = BlendValues::default();
        let cb = BlendValues {
            logic_op: LogicOp::Xor,
            ..BlendValues::default()
        };
        assert_eq!(resolve(&d, &fx, &cb, 1, 1).logic_op, None);
        let on = BlendValues {
            logic_op_enable: true,
            ..cb
        };
        assert_eq!(resolve(&d, &fx, &on, 1, 1).logic_op, Some(LogicOp::Xor));
    }

    #[test]
    fn sample_mask_keeps_the_bits_of_existing_samples() {
        let d = Dynamic {
            sample_mask: true,
            ..Dynamic::default()
        };
        let cb = BlendValues {
            sample_mask: 0xfff5,
            ..BlendValues::default()
        };
        let fx = BlendValues::default();
        assert_eq!(resolve(&d, &fx, &cb, 1, 4).coverage.sample_mask, 0x5);
        // Every sample of the pass: the same key as no mask at all.
        let full = BlendValues {
            sample_mask: 0xf,
            ..cb
        };
        assert_eq!(resolve(&d, &fx, &full, 1, 4), resolve(&d, &fx, &fx, 1, 4));
    }

    #[test]
    fn only_the_multisample_states_that_kill_samples_may_need_late_tests() {
        let a2o = Dynamic {
            alpha_to_one_enable: true,
            ..Dynamic::default()
        };
        assert!(any_dynamic(&a2o) && !kills_dynamically(&a2o));
        let a2c = Dynamic {
            alpha_to_coverage_enable: true,
            ..Dynamic::default()
        };
        assert!(any_dynamic(&a2c) && kills_dynamically(&a2c));
        assert!(!any_dynamic(&Dynamic::default()));
    }
}
