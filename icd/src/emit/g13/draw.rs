//! G13's draws: USC words bind the vertex and fragment programs; a draw's fixed-function
//! state is a VDM State block and a PPP update (uploaded, named by a VDM PPP State block),
//! each holding only the words that change what the stream's last draw left; then an Index
//! List block. Scissors and depth biases are entries of arrays the render command points at,
//! which the PPP's Depth Bias/Scissor word indexes.

use super::super::graphics::{
    DrawState, DrawTextures, FragmentLaunch, Graphics, IndexList, Late, Rebind, StreamWords,
    Upload, VertexLaunch, Visibility,
};
use super::state::{index_size, polygon_mode, primitive, stencil_op, zs_func};
use super::G13;
use crate::cmd_buffer::dynamic_state::Effective;
use crate::pipeline_graphics::{flat_vertex, GraphicsPipeline};
use crate::topology::{IndexSize, Topology};
use ash::vk;
use compiler::{CfShade, CfSource};
use hw::g13::control::descriptors::{
    CfBinding, CfBindingHeader, CoefficientSource, DepthBias, Scissor, ShadeModel, StencilOp,
    ZsFunc,
};
use hw::g13::control::ppp::{
    line_width_bits, ConservativeDepth, Cull, Cull2, DepthBiasScissor, FragmentControl,
    FragmentFace, FragmentFace2, FragmentOcclusionQuery, FragmentShader, FragmentShaderWord3,
    FragmentStencil, ObjectType, OutputSelect, OutputSize, PassType, PppUpdate, PppVertex,
    VaryingCounts, Viewport, VisibilityMode, WClamp,
};
use hw::g13::control::vdm::{
    self, PppState, ShaderCounts, VdmState, VdmVertex, VertexOutputs, VertexShaderWord1,
    VertexUnknown,
};
use hw::g13::control::{pack_uniform_range, UscWord};
use hw::g13::tilebuffer::TilebufferLayout;

/// The VDM and PPP state a G13 stream's draws left in force.
#[derive(Default)]
struct Emitted {
    vdm: VdmState,
    ppp: PppUpdate,
}

/// The USC Shared word of fragment-stage programs reading this tilebuffer.
pub fn tile_shared_word(tib: &TilebufferLayout, out: &mut Vec<u8>) {
    let s = tib.usc_shared();
    UscWord::Shared {
        uses_shared: true,
        layout: s.layout,
        bytes_per_threadgroup: s.bytes_per_threadgroup.next_multiple_of(256),
        sample_count: s.sample_count,
        sample_stride_bytes: s.sample_stride_in_8_bytes * 8,
    }
    .pack(out);
}

/// The word that ends a program's USC words: its preamble (whose code follows the
/// program's at `code`), or none.
fn preshader_word(code: u32, preamble: Option<compiler::PreambleCode>) -> UscWord {
    match preamble {
        Some(p) => UscWord::Preshader {
            code: code + p.offset,
        },
        None => UscWord::NoPreshader,
    }
}

/// The preshader register count of a launch whose program has `preamble`.
fn preshader_halves(preamble: Option<compiler::PreambleCode>) -> u32 {
    preamble.map_or(0, |p| ShaderCounts::preshader_halves_for(p.gpr_halves))
}

fn object_type(p: Topology) -> ObjectType {
    match p {
        Topology::Points => ObjectType::PointSpriteUv01,
        Topology::Lines | Topology::LineStrip => ObjectType::Line,
        _ => ObjectType::Triangle,
    }
}

/// The index of `entry` in `array`, a packed array of entries of its size: the last entry's if
/// that is the same (consecutive draws mostly share their scissor and depth bias, and the
/// PPP indexes at most 65536 entries), else a new one's.
fn entry_index(array: &mut Vec<u8>, entry: &[u8]) -> u32 {
    let n = array.len() / entry.len();
    if n > 0 && array[(n - 1) * entry.len()..] == *entry {
        return (n - 1) as u32;
    }
    array.extend_from_slice(entry);
    n as u32
}

/// The PPP words of a draw's late state: its scissor and depth-bias entries (added to the
/// stream's arrays) and the Fragment Control word.
fn late_words(late: &Late, s: &mut StreamWords) -> Result<PppUpdate, vk::Result> {
    let l = &late.state;
    let [x0, x1, y0, y1] = late.rect;
    let scissor = Scissor {
        min_x: x0,
        max_x: x1,
        min_y: y0,
        max_y: y1,
        min_z: l.depth_range.0,
        max_z: l.depth_range.1,
    };
    let scissor_index = entry_index(s.scissors, &scissor.pack());
    let bias_index = match l.depth_bias {
        Some(b) => {
            let entry = DepthBias {
                depth_bias: b.constant,
                slope_scale: b.slope,
                clamp: b.clamp,
            };
            entry_index(s.depth_biases, &entry.pack())
        }
        None => 0,
    };
    if scissor_index > 0xffff || bias_index > 0xffff {
        eprintln!("agx4: more than 65536 different scissors or depth biases in one render command");
        return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
    }
    let (visibility_mode, occlusion_query) = match late.visibility {
        Visibility::None => (VisibilityMode::None, None),
        Visibility::Counting(index) => (
            VisibilityMode::Counting,
            Some(FragmentOcclusionQuery { index }),
        ),
        Visibility::Boolean(index) => (
            VisibilityMode::Boolean,
            Some(FragmentOcclusionQuery { index }),
        ),
    };
    let control = FragmentControl {
        visibility_mode,
        scissor_enable: true,
        // Vulkan biases polygons only (also when drawn as edges or vertices); the GPU would
        // bias lines and points too, so the bias is off for those topologies (as in Mesa).
        depth_bias_enable: l.depth_bias.is_some()
            && object_type(l.primitive) == ObjectType::Triangle,
        stencil_test_enable: l.stencil_test,
        two_sided_stencil: l.stencil_test,
        tag_write_disable: l.rasterizer_discard,
        sample_mask_after_depth_stencil: false,
        disable_tri_merging: false,
        pass_type: if l.punch_through {
            PassType::PunchThrough
        } else {
            PassType::Opaque
        },
    };
    Ok(PppUpdate {
        fragment_control: Some(control),
        depth_bias_scissor: Some(DepthBiasScissor {
            scissor: scissor_index,
            depth_bias: bias_index,
        }),
        occlusion_query,
        viewport_count: 1,
        ..Default::default()
    })
}

/// The varying counts the PPP wants, from the coefficient bindings.
fn varying_counts(p: &GraphicsPipeline) -> VaryingCounts {
    let mut c = VaryingCounts::default();
    for b in &p.binary.cf_bindings {
        // Only varyings from the UVS record count; 1/W, Z and the point sprite's
        // coordinates come from the rasterizer.
        if matches!(
            b.source,
            CfSource::Varying { base_slot: 3 }
                | CfSource::FragcoordZ
                | CfSource::PointCoord
                | CfSource::PrimitiveId
        ) {
            continue;
        }
        let n = u32::from(b.components);
        match b.shade {
            CfShade::Perspective => c.smooth += n,
            CfShade::Flat => c.flat += n,
            CfShade::Linear => c.linear += n,
        }
    }
    c
}

fn stencil_word(fx: &Effective, face: usize) -> FragmentStencil {
    match &fx.stencil {
        Some(s) => {
            let f = &s[face];
            FragmentStencil {
                write_mask: f.write_mask,
                read_mask: f.compare_mask,
                depth_pass: stencil_op(f.pass),
                depth_fail: stencil_op(f.depth_fail),
                stencil_fail: stencil_op(f.fail),
                compare: zs_func(f.compare),
            }
        }
        None => FragmentStencil {
            write_mask: 0,
            read_mask: 0xff,
            depth_pass: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            stencil_fail: StencilOp::Keep,
            compare: ZsFunc::Always,
        },
    }
}

/// The PPP update that sets all of a draw's fixed-function state but its late words.
fn ppp_words(d: &DrawState) -> PppUpdate {
    let (fx, p, vp) = (d.fx, d.pipeline, d.viewport);
    let b = &p.binary;
    let flat = flat_vertex(fx.provoking_last, fx.primitive);
    let reference = |face: usize| -> u32 { fx.stencil.map_or(0, |s| s[face].reference) };
    let face = |face: usize| FragmentFace {
        stencil_reference: reference(face),
        line_width: line_width_bits(fx.line_width),
        polygon_mode: polygon_mode(fx.polygon_mode),
        disable_depth_write: !fx.depth_write,
        unk_visibility: 0,
        depth_function: if fx.depth_test {
            zs_func(fx.depth_compare)
        } else {
            ZsFunc::Always
        },
    };
    let face2 = FragmentFace2 {
        disable_depth_write: !fx.depth_write,
        conservative_depth: ConservativeDepth::Any,
        depth_function: ZsFunc::Always,
        object_type: object_type(fx.primitive),
    };
    // The fragment shader reads gl_PrimitiveID from the rasterizer (no geometry shader).
    let primitive_id = b
        .cf_bindings
        .iter()
        .any(|c| c.source == CfSource::PrimitiveId);
    PppUpdate {
        front_face: Some(face(0)),
        front_face_2: Some(face2),
        front_stencil: Some(stencil_word(fx, 0)),
        back_face: Some(face(1)),
        back_face_2: Some(face2),
        back_stencil: Some(stencil_word(fx, 1)),
        viewport_count: 1,
        viewports: Some(vec![Viewport {
            translate_x: vp.x + vp.width / 2.0,
            scale_x: vp.width / 2.0,
            translate_y: vp.y + vp.height / 2.0,
            scale_y: vp.height / 2.0,
            translate_z: vp.min_depth,
            scale_z: vp.max_depth - vp.min_depth,
        }]),
        w_clamp: Some(WClamp { w_clamp: 1e-10 }),
        output_select: Some(OutputSelect {
            varyings: b.uvs_words
                > 4 + u32::from(b.writes_point_size) + b.clip_distance_planes.count_ones(),
            point_size: b.writes_point_size,
            clip_distance_planes: u32::from(b.clip_distance_planes),
            frag_coord_z: b
                .cf_bindings
                .iter()
                .any(|c| c.source == CfSource::FragcoordZ),
            ..Default::default()
        }),
        varying_counts_32: Some(varying_counts(p)),
        varying_counts_16: Some(VaryingCounts::default()),
        cull: Some(Cull {
            cull_front: fx.cull_front,
            cull_back: fx.cull_back,
            flat_shading_vertex: [PppVertex::V0, PppVertex::V1, PppVertex::V2][flat],
            // depthClampEnable clamps depth to the viewport range; clipping against the near
            // and far planes is off with it unless VK_EXT_depth_clip_enable turns it on.
            depth_clip: fx.depth_clip,
            depth_clamp: fx.depth_clamp,
            // Only Bresenham lines cover whole pixels; everything else is sampled per sample.
            primitive_msaa: fx.bresenham_lines && fx.primitive.is_line(),
            front_face_ccw: fx.front_ccw,
            rasterizer_discard: fx.rasterizer_discard,
        }),
        cull_2: Some(Cull2 {
            rasterizer_discard: fx.rasterizer_discard,
            needs_primitive_id: primitive_id,
            ..Default::default()
        }),
        fragment_shader: d.fragment.map(|(prog, words)| FragmentShader {
            counts: ShaderCounts {
                unknown_0: false,
                uniform_halves: prog.launch_uniform_halves,
                texture_states: 0,
                sampler_states: 0,
                preshader_halves: preshader_halves(prog.preamble),
            },
            cf_binding_count: p.cf_binding_count,
            unknown_1: 0,
            pipeline: words,
            cf_bindings: p.cf_bindings[flat],
            word_3: FragmentShaderWord3::default(),
        }),
        output_size: Some(OutputSize { count: b.uvs_words }),
        ..Default::default()
    }
}

/// The VDM state a draw sets.
fn vdm_words(d: &DrawState) -> VdmState {
    let (fx, b) = (d.fx, &d.pipeline.binary);
    let (vs_bin, vs_words) = d.vertex;
    let primitive_id = b
        .cf_bindings
        .iter()
        .any(|c| c.source == CfSource::PrimitiveId);
    VdmState {
        restart_index: d.list.index.map(|i| i.size.restart_index()),
        vertex_shader_word_0: Some(ShaderCounts {
            unknown_0: false,
            uniform_halves: vs_bin.launch_uniform_halves(),
            texture_states: 0,
            sampler_states: 0,
            preshader_halves: preshader_halves(vs_bin.preamble),
        }),
        vertex_shader_word_1: Some(VertexShaderWord1 {
            unknown: 0,
            pipeline: vs_words,
        }),
        vertex_outputs: Some(VertexOutputs {
            count_1: b.uvs_words,
            count_2: b.uvs_words,
        }),
        vertex_unknown: Some(VertexUnknown {
            flat_shading_control: [VdmVertex::V0, VdmVertex::V1, VdmVertex::V2]
                [flat_vertex(fx.provoking_last, fx.primitive)],
            unknown_4: fx.rasterizer_discard,
            unknown_5: fx.rasterizer_discard,
            generate_primitive_id: primitive_id,
        }),
    }
}

/// The PPP State block naming a packed PPP update uploaded at `pointer`.
fn ppp_block(pointer: u64, bytes: usize) -> Result<[u8; PppState::SIZE], vk::Result> {
    let size_words = u32::try_from(bytes / 4).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    PppState {
        pointer,
        size_words,
    }
    .pack()
    .map_err(|_| vk::Result::ERROR_UNKNOWN)
}

/// Packs and uploads PPP update `ppp`; returns its address and size in words.
fn upload_ppp(ppp: &PppUpdate, upload: &mut Upload) -> Result<(u64, usize), vk::Result> {
    let mut bytes = Vec::with_capacity(256);
    ppp.pack(&mut bytes)
        .map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let len = bytes.len();
    Ok((upload(&mut bytes)?, len))
}

/// The shade model of flat varyings taken from vertex 0, 1 or 2 of a primitive.
const FLAT_MODELS: [ShadeModel; 3] = [
    ShadeModel::FlatVertex0,
    ShadeModel::FlatVertex1,
    ShadeModel::FlatVertex2,
];

impl Graphics for G13 {
    fn coefficient_bindings(&self, b: &compiler::GraphicsPipelineBinary, flat: usize) -> Vec<u8> {
        let flat = FLAT_MODELS[flat.min(2)];
        let mut out = Vec::new();
        let header = CfBindingHeader {
            slots: b.uvs_words,
            coefficient_registers: b.cf_registers,
        };
        out.extend_from_slice(&header.pack());
        for c in &b.cf_bindings {
            let (source, base_slot) = match c.source {
                CfSource::Varying { base_slot } => {
                    (CoefficientSource::Varying, u32::from(base_slot))
                }
                CfSource::FragcoordZ => (CoefficientSource::FragcoordZ, 0),
                CfSource::PointCoord => (CoefficientSource::PointCoord, 0),
                CfSource::PrimitiveId => (CoefficientSource::PrimitiveId, 0),
            };
            let shade_model = match c.shade {
                CfShade::Perspective => ShadeModel::Perspective,
                CfShade::Linear => ShadeModel::Linear,
                CfShade::Flat => flat,
            };
            let binding = CfBinding {
                components: u32::from(c.components),
                shade_model,
                source,
                base_slot,
                base_coefficient_register: u32::from(c.base_cf),
            };
            out.extend_from_slice(&binding.pack());
        }
        out
    }

    fn vertex_words(&self, v: &VertexLaunch, root_va: u64) -> Vec<u8> {
        let mut w = Vec::with_capacity(128);
        UscWord::vertex_compute_shared(0).pack(&mut w);
        pack_uniform_range(0, v.uniform_halves, root_va, &mut w);
        UscWord::Shader {
            code: v.code,
            loads_varyings: false,
        }
        .pack(&mut w);
        super::registers(v.gpr_halves, v.stack_bytes).pack(&mut w);
        preshader_word(v.code, v.preamble).pack(&mut w);
        w
    }

    fn fragment_words(
        &self,
        f: &FragmentLaunch,
        tib: &TilebufferLayout,
        textures: &DrawTextures,
        root_va: u64,
    ) -> Vec<u8> {
        let mut w = Vec::with_capacity(192);
        tile_shared_word(tib, &mut w);
        pack_uniform_range(0, f.prog.uniform_halves, root_va, &mut w);
        let tables = [
            (
                textures.input_attachments,
                compiler::abi::INPUT_ATTACHMENT_TEXTURE_BASE,
            ),
            (
                textures.spilled_targets,
                compiler::abi::SPILLED_TARGET_TEXTURE_BASE,
            ),
        ];
        for (t, start) in tables {
            if let Some(t) = t {
                super::texture_word(start, t).pack(&mut w);
            }
        }
        UscWord::FragmentProperties { early_z: f.early_z }.pack(&mut w);
        UscWord::Shader {
            code: f.prog.code,
            loads_varyings: f.loads_varyings,
        }
        .pack(&mut w);
        super::registers(f.prog.gpr_halves, f.prog.stack_bytes).pack(&mut w);
        preshader_word(f.prog.code, f.prog.preamble).pack(&mut w);
        w
    }

    fn draw_state(
        &self,
        d: &DrawState,
        s: &mut StreamWords,
        upload: &mut Upload,
    ) -> Result<(), vk::Result> {
        let mut ppp = ppp_words(d);
        if let Some(late) = &d.late {
            let words = late_words(late, s)?;
            ppp.fragment_control = words.fragment_control;
            ppp.depth_bias_scissor = words.depth_bias_scissor;
            ppp.occlusion_query = words.occlusion_query;
        }
        let state = vdm_words(d);
        // Only the words that change the state the stream's last draw left, when it is known
        // (never in a secondary's stream fragment, whose state the primary decides).
        let before = match d.late {
            Some(_) => s.state.take().and_then(|b| b.downcast::<Emitted>().ok()),
            None => None,
        };
        let ppp_update = match &before {
            Some(e) => ppp.changes_from(&e.ppp),
            None => ppp.clone(),
        };
        let state_update = match &before {
            Some(e) => state.changes_from(&e.vdm),
            None => state,
        };
        if !state_update.is_empty() {
            state_update.pack(s.vdm);
        }
        if !ppp_update.is_empty() {
            let (pointer, bytes) = upload_ppp(&ppp_update, upload)?;
            s.vdm.extend_from_slice(&ppp_block(pointer, bytes)?);
        }
        if d.late.is_some() {
            let mut now = before.map_or_else(Emitted::default, |b| *b);
            now.vdm.apply(&state);
            now.ppp.apply(ppp);
            *s.state = Some(Box::new(now));
        }
        Ok(())
    }

    fn rebind(
        &self,
        r: &Rebind,
        s: &mut StreamWords,
        cached: &mut Option<(u64, u32)>,
        upload: &mut Upload,
    ) -> Result<bool, vk::Result> {
        let now = s
            .state
            .as_mut()
            .and_then(|b| b.downcast_mut::<Emitted>())
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        // The PPP update that points the fragment shader word at this draw's USC words.
        let ppp = match (r.fragment_words, now.ppp.fragment_shader) {
            (Some(words), Some(f)) if f.pipeline != words => {
                let shader = FragmentShader {
                    pipeline: words,
                    ..f
                };
                let (pointer, size_words) = match *cached {
                    Some(p) => p,
                    None => {
                        let update = PppUpdate {
                            fragment_shader: Some(shader),
                            viewport_count: 1,
                            ..Default::default()
                        };
                        let (pointer, bytes) = upload_ppp(&update, upload)?;
                        let size =
                            u32::try_from(bytes / 4).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
                        (pointer, size)
                    }
                };
                *cached = Some((pointer, size_words));
                Some((shader, pointer, size_words))
            }
            // The stream's state has no fragment shader word to repoint: record it in full.
            (Some(_), None) => return Ok(false),
            _ => None,
        };
        let state = VdmState {
            restart_index: r.index.map(IndexSize::restart_index),
            vertex_shader_word_1: Some(VertexShaderWord1 {
                unknown: 0,
                pipeline: r.vertex_words,
            }),
            ..Default::default()
        }
        .changes_from(&now.vdm);
        now.vdm.apply(&state);
        if !state.is_empty() {
            state.pack(s.vdm);
        }
        if let Some((shader, pointer, size_words)) = ppp {
            now.ppp.fragment_shader = Some(shader);
            let block = PppState {
                pointer,
                size_words,
            }
            .pack()
            .map_err(|_| vk::Result::ERROR_UNKNOWN)?;
            s.vdm.extend_from_slice(&block);
        }
        Ok(true)
    }

    fn index_list(&self, l: &IndexList, vdm: &mut Vec<u8>) {
        // The index buffer's size is in words; reads stop before 4 GiB.
        let words = |bytes: u64| bytes.next_multiple_of(4).min(0xffff_fffc) as u32;
        vdm::IndexList {
            primitive: primitive(l.primitive),
            restart_enable: l.restart,
            index_size: index_size(l.index.map_or(IndexSize::U32, |i| i.size)),
            index_buffer: l.index.map(|i| i.va),
            count: l.count,
            instances: l.instances,
            start: l.start,
            indirect: l.indirect,
            index_buffer_size: l.index.map(|i| words(i.bytes)),
        }
        .pack(vdm);
    }

    fn late_block(
        &self,
        late: &Late,
        s: &mut StreamWords,
        upload: &mut Upload,
    ) -> Result<Vec<u8>, vk::Result> {
        let (pointer, bytes) = upload_ppp(&late_words(late, s)?, upload)?;
        Ok(ppp_block(pointer, bytes)?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{IndexBuffer, LateState};
    use crate::pipeline_graphics::DepthBiasState;

    /// An index list reads back as the draw it was made from, with its buffer's size in whole
    /// words and the all-ones restart index implied by its size.
    #[test]
    fn index_lists_read_back() {
        let indexed = IndexList {
            primitive: Topology::TriangleStrip,
            restart: true,
            index: Some(IndexBuffer {
                va: 0x1_2345_6782,
                bytes: 13,
                size: IndexSize::U16,
            }),
            count: Some(7),
            instances: Some(3),
            start: Some(0xffff_fffe),
            indirect: None,
        };
        let indirect = IndexList {
            primitive: Topology::Points,
            restart: false,
            index: None,
            count: None,
            instances: None,
            start: None,
            indirect: Some(0x4_0000_0010),
        };
        for l in [indexed, indirect] {
            let mut vdm = Vec::new();
            G13.index_list(&l, &mut vdm);
            let (back, len) = vdm::IndexList::unpack(&vdm).unwrap();
            assert_eq!(len, vdm.len());
            assert_eq!(back.primitive, primitive(l.primitive));
            assert_eq!(back.restart_enable, l.restart);
            assert_eq!(back.index_buffer, l.index.map(|i| i.va));
            assert_eq!(
                back.index_buffer_size,
                l.index.map(|i| i.bytes.next_multiple_of(4) as u32)
            );
            assert_eq!((back.count, back.instances), (l.count, l.instances));
            assert_eq!((back.start, back.indirect), (l.start, l.indirect));
        }
        let mut vdm = Vec::new();
        G13.index_list(&indexed, &mut vdm);
        assert_eq!(
            vdm::IndexList::unpack(&vdm).unwrap().0.index_size,
            vdm::IndexSize::U16
        );
    }

    /// A primary's late block for a secondary's draw names an uploaded PPP update whose
    /// Fragment Control and Depth Bias/Scissor words carry the draw's late state, with its
    /// scissor and depth bias as entries of the stream's arrays (the same entry reused when
    /// it repeats).
    #[test]
    fn late_blocks_carry_scissor_bias_and_visibility() {
        let state = LateState {
            scissor: None,
            depth_range: (0.25, 0.75),
            depth_bias: Some(DepthBiasState {
                constant: 2.0,
                clamp: 0.5,
                slope: -1.0,
            }),
            primitive: Topology::Triangles,
            stencil_test: true,
            rasterizer_discard: false,
            punch_through: true,
        };
        let late = Late {
            state,
            rect: [1, 9, 2, 8],
            visibility: Visibility::Counting(5),
        };
        let (mut vdm, mut scissors, mut depth_biases, mut st) =
            (Vec::new(), Vec::new(), Vec::new(), None);
        let mut words = StreamWords {
            vdm: &mut vdm,
            scissors: &mut scissors,
            depth_biases: &mut depth_biases,
            state: &mut st,
        };
        let mut uploaded = Vec::new();
        let mut upload = |b: &mut Vec<u8>| {
            uploaded.push(b.clone());
            Ok(0x10_0000 * uploaded.len() as u64)
        };
        // A line draw after it: its bias entry is written but not applied.
        let lines = Late {
            state: LateState {
                primitive: Topology::LineStrip,
                ..state
            },
            visibility: Visibility::None,
            ..late
        };
        let mut blocks = Vec::new();
        for l in [&late, &late, &lines] {
            blocks.push(G13.late_block(l, &mut words, &mut upload).unwrap());
        }
        // One scissor and one bias entry, shared by all three draws.
        assert_eq!(scissors.len(), Scissor::SIZE);
        assert_eq!(depth_biases.len(), DepthBias::SIZE);
        let sc = Scissor::unpack(&scissors).unwrap();
        assert_eq!([sc.min_x, sc.max_x, sc.min_y, sc.max_y], late.rect);
        assert_eq!((sc.min_z, sc.max_z), (0.25, 0.75));
        let bias = DepthBias::unpack(&depth_biases).unwrap();
        assert_eq!(
            (bias.depth_bias, bias.slope_scale, bias.clamp),
            (2.0, -1.0, 0.5)
        );
        for (i, (block, l)) in blocks.iter().zip([&late, &late, &lines]).enumerate() {
            let named = PppState::unpack(block).unwrap();
            assert_eq!(named.pointer, 0x10_0000 * (i as u64 + 1));
            assert_eq!(named.size_words as usize * 4, uploaded[i].len());
            let (ppp, _) = PppUpdate::unpack(&uploaded[i]).unwrap();
            let c = ppp.fragment_control.unwrap();
            assert_eq!(
                c.depth_bias_enable,
                l.state.primitive == Topology::Triangles
            );
            assert!(c.stencil_test_enable && c.two_sided_stencil && c.scissor_enable);
            assert_eq!(c.pass_type, PassType::PunchThrough);
            let (mode, query) = match l.visibility {
                Visibility::Counting(i) => (VisibilityMode::Counting, Some(i)),
                _ => (VisibilityMode::None, None),
            };
            assert_eq!(c.visibility_mode, mode);
            assert_eq!(ppp.occlusion_query.map(|q| q.index), query);
            let ds = ppp.depth_bias_scissor.unwrap();
            assert_eq!((ds.scissor, ds.depth_bias), (0, 0));
        }
        assert!(vdm.is_empty(), "the caller places the block");
    }
}
