//! Graphics words: round trips for every word, and words pinned to bit values worked out by
//! hand from cmdbuf.xml (and, where noted, from what Mesa writes).

use super::descriptors::*;
use super::flat::{Flat, FlatError};
use super::ppp::*;
use super::vdm::*;
use crate::WordError;

fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

fn words(b: &[u8]) -> Vec<u32> {
    (0..b.len() / 4).map(|i| le32(b, i)).collect()
}

fn is_bad(r: Result<impl std::fmt::Debug, WordError>) -> bool {
    matches!(r, Err(WordError::Malformed { .. }))
}

fn counts() -> ShaderCounts {
    ShaderCounts {
        unknown_0: false,
        uniform_halves: 64,
        texture_states: 8,
        sampler_states: super::sampler_states::COMPACT_4,
        preshader_halves: 16,
    }
}

fn vertex_state() -> VdmState {
    VdmState {
        restart_index: None,
        vertex_shader_word_0: Some(counts()),
        vertex_shader_word_1: Some(VertexShaderWord1 {
            unknown: 0,
            pipeline: 0x1240,
        }),
        vertex_outputs: Some(VertexOutputs {
            count_1: 8,
            count_2: 4,
        }),
        vertex_unknown: Some(VertexUnknown {
            flat_shading_control: VdmVertex::V2,
            unknown_4: true,
            unknown_5: true,
            generate_primitive_id: true,
        }),
    }
}

fn indexed_draw() -> IndexList {
    IndexList {
        primitive: Primitive::Triangles,
        restart_enable: true,
        index_size: IndexSize::U16,
        index_buffer: Some(0x01_0000_1000),
        count: Some(36),
        instances: Some(1),
        start: Some(0),
        indirect: None,
        index_buffer_size: Some(72),
    }
}

// ---- pinned words ----

#[test]
fn vdm_terminate_is_32_bytes_with_type_6() {
    let b = VdmStreamTerminate.pack();
    assert_eq!(le32(&b, 0), 0xc000_0000);
    assert!(b[4..].iter().all(|&x| x == 0));
}

#[test]
fn vdm_link_type_4_and_return_bit() {
    let b = VdmStreamLink {
        target: 0x12_3456_7890,
        with_return: true,
    }
    .pack();
    assert_eq!(words(&b), vec![0x9000_0012, 0x3456_7890]);
}

#[test]
fn vdm_barrier_as_mesa_starts_a_stream() {
    let b = VdmBarrier {
        usc_cache_invalidate: true,
        ..Default::default()
    }
    .pack();
    assert_eq!(u32::from_le_bytes(b), 0x2000_0008);
}

#[test]
fn ppp_state_pointer_and_size() {
    let b = PppState {
        pointer: 0xab_1234_5678,
        size_words: 5,
    }
    .pack()
    .unwrap();
    assert_eq!(words(&b), vec![0x0000_05ab, 0x1234_5678]);
    assert!(PppState {
        pointer: 0,
        size_words: 256
    }
    .pack()
    .is_err());
}

#[test]
fn vdm_state_restart_index() {
    let mut out = Vec::new();
    VdmState {
        restart_index: Some(0xffff),
        ..Default::default()
    }
    .pack(&mut out);
    assert_eq!(words(&out), vec![0x4000_0001, 0xffff]);
}

#[test]
fn vdm_state_vertex_words_padded_to_8() {
    let mut out = Vec::new();
    vertex_state().pack(&mut out);
    // Presence bits 1, 2, 3, 5; counts as in a CDM launch; pipeline stays in place (shr 6
    // at bit 6); outputs 8 | 4 << 8; flat vertex 2, bits 4, 5, 6; one zero word of padding.
    assert_eq!(
        words(&out),
        vec![0x4000_002e, 0x1212, 0x1240, 0x0408, 0x72, 0]
    );
}

#[test]
fn indexed_draw_words() {
    let mut out = Vec::new();
    indexed_draw().pack(&mut out);
    // hi byte 1, triangles (6) at 8, restart 16, u16 (1) at 17, presence 20..24, type 3.
    assert_eq!(words(&out), vec![0x61f3_0601, 0x1000, 36, 1, 0, 18]);
}

#[test]
fn indirect_draw_words() {
    let l = IndexList {
        primitive: Primitive::Triangles,
        restart_enable: false,
        index_size: IndexSize::U8,
        index_buffer: None,
        count: None,
        instances: None,
        start: None,
        indirect: Some(0xab_0000_0040),
        index_buffer_size: None,
    };
    let mut out = Vec::new();
    l.pack(&mut out);
    assert_eq!(words(&out), vec![0x6400_0600, 0xab, 0x40]);
    assert_eq!(IndexList::unpack(&out), Ok((l, 12)));
}

#[test]
fn ppp_header_mesa_writes_at_stream_start() {
    // W clamp (16), occlusion query 2 (25), output unknown (26), varying word 2 (28).
    let u = PppUpdate {
        viewport_count: 1,
        w_clamp: Some(WClamp { w_clamp: 1e-10 }),
        occlusion_query_2: Some(FragmentOcclusionQuery2::default()),
        output_unknown: true,
        varying_word_2: Some(0),
        ..Default::default()
    };
    let mut out = Vec::new();
    u.pack(&mut out).unwrap();
    assert_eq!(out.len(), 24);
    assert_eq!(
        words(&out),
        vec![0x1601_0000, 1e-10f32.to_bits(), 0, 0, 0, 0]
    );
    assert_eq!(u.header().update_size(), 24);
}

#[test]
fn fragment_control_always_sets_bit_9() {
    let f = FragmentControl {
        visibility_mode: VisibilityMode::Counting,
        scissor_enable: false,
        depth_bias_enable: false,
        stencil_test_enable: true,
        two_sided_stencil: true,
        tag_write_disable: false,
        sample_mask_after_depth_stencil: false,
        disable_tri_merging: false,
        pass_type: PassType::Translucent,
    };
    assert_eq!(u32::from_le_bytes(f.pack()), 0x200c_8200);
    assert!(is_bad(FragmentControl::unpack(
        &0x200c_8000u32.to_le_bytes()
    )));
}

#[test]
fn fragment_stencil_word() {
    let s = FragmentStencil {
        write_mask: 0xff,
        read_mask: 0x0f,
        depth_pass: StencilOp::Replace,
        depth_fail: StencilOp::IncrSat,
        stencil_fail: StencilOp::Invert,
        compare: ZsFunc::Gequal,
    };
    assert_eq!(u32::from_le_bytes(s.pack()), 0x0d5a_0fff);
}

fn sampler() -> Sampler {
    Sampler {
        min_lod: lod_to_fixed(0.0),
        max_lod: lod_to_fixed(1000.0),
        max_anisotropy: 16,
        magnify: Filter::Linear,
        minify: Filter::Linear,
        mip_filter: MipFilter::Linear,
        wrap: [Wrap::Repeat, Wrap::ClampToEdge, Wrap::MirroredRepeat],
        pixel_coordinates: false,
        compare_func: CompareFunc::Greater,
        compare_enable: true,
        border_colour: BorderColour::OpaqueWhite,
        seamful_cube_maps: false,
    }
}

#[test]
fn sampler_words() {
    let s = sampler();
    // Max LOD clamps to 14.0 = 0x380 in 4.6 fixed point.
    assert_eq!(s.max_lod, 0x380);
    assert_eq!(words(&s.pack()), vec![0x32ce_0000, 0x0100_0590]);
}

fn texture() -> Texture {
    Texture {
        dimension: TextureDimension::D2,
        layout: Layout::Twiddled,
        channels: Channels::R8G8B8A8,
        texture_type: TextureType::Unorm,
        swizzle: [Channel::R, Channel::G, Channel::B, Channel::A],
        width: 256,
        height: 128,
        first_level: 0,
        last_level: 8,
        samples: SampleCount::Two,
        address: 0x12_3456_7800,
        unk_mipmapped: false,
        compressed_1: false,
        null: false,
        compression: 0,
        srgb: true,
        srgb_2_channel: false,
        stride: 0,
        depth: 1,
        page_aligned_layers: false,
        extended: false,
        extension: 0,
    }
}

#[test]
fn texture_words() {
    let b = texture().pack();
    // Address >> 4 = 0x1_2345_6780 at bit 66: word 2 holds its low 30 bits shifted by 2,
    // word 3 bit 0.. the rest (4); sRGB is word 3 bit 12.
    assert_eq!(
        words(&b),
        vec![0xf688_0a22, 0x8001_fc0f, 0x8d15_9e00, 0x1004, 0, 0]
    );
}

#[test]
fn linear_texture_stride_is_minus_16_over_16() {
    let t = Texture {
        layout: Layout::Linear,
        stride: 1024,
        ..texture()
    };
    let b = t.pack();
    // (1024 - 16) >> 4 = 63 at bit 110 = word 3 bit 14; sRGB at word 3 bit 12.
    assert_eq!(le32(&b, 3), (63 << 14) | 0x1000 | 4);
    assert_eq!(Texture::unpack(&b).unwrap().stride, 1024);
}

#[test]
fn zls_control_word() {
    let z = ZlsControl {
        unknown_0: false,
        unknown_1: false,
        z_compress_1: false,
        unknown_3: false,
        s_compress_1: false,
        unknown_5: false,
        z_compress_2: false,
        unknown_7: false,
        s_compress_2: false,
        s_load: false,
        z_load: true,
        s_store: true,
        z_store: true,
        z_resolve: true,
        s_resolve: false,
        z_format: ZlsFormat::U16,
    };
    assert_eq!(words(&z.pack()), vec![0x040c_8000, 0x0100_0000]);
}

#[test]
fn cf_binding_word() {
    let c = CfBinding {
        components: 4,
        shade_model: ShadeModel::Perspective,
        source: CoefficientSource::Varying,
        base_slot: 5,
        base_coefficient_register: 10,
    };
    assert_eq!(u32::from_le_bytes(c.pack()), 0x000a_051f);
}

#[test]
fn region_clip_words() {
    let r = RegionClip {
        enable: true,
        min_x: 0,
        max_x: 2,
        min_y: 1,
        max_y: 3,
    };
    assert_eq!(words(&r.pack()), vec![0x8000_0001, 0x0001_0002]);
}

#[test]
fn cull_word() {
    let c = Cull {
        cull_front: false,
        cull_back: true,
        flat_shading_vertex: PppVertex::V0,
        depth_clip: true,
        depth_clamp: false,
        primitive_msaa: false,
        front_face_ccw: true,
        rasterizer_discard: false,
    };
    assert_eq!(u32::from_le_bytes(c.pack()), 0x0001_0482);
}

fn fragment_shader() -> FragmentShader {
    FragmentShader {
        counts: counts(),
        cf_binding_count: 3,
        unknown_1: 0,
        pipeline: 0x8000_0040,
        cf_bindings: 0x1000,
        word_3: FragmentShaderWord3 { unknown: 2 },
    }
}

#[test]
fn fragment_shader_words() {
    assert_eq!(
        words(&fragment_shader().pack()),
        vec![0x0003_1212, 0x8000_0040, 0x1000, 2]
    );
}

fn pbe() -> Pbe {
    Pbe {
        dimension: TextureDimension::D2,
        layout: Layout::Linear,
        channels: Channels::R8G8B8A8,
        texture_type: TextureType::Unorm,
        swizzle: [Channel::B, Channel::G, Channel::R, Channel::A],
        width: 640,
        height: 480,
        unk_52: false,
        rotate_90: false,
        flip_vertical: false,
        samples: SampleCount::Two,
        unk_mipmapped: false,
        compressed_1: false,
        buffer: 0x40_0000,
        level: 0,
        levels: 1,
        layers: 1,
        stride: 2560,
        page_aligned_layers: false,
        srgb: false,
        extended: false,
        extension: 0,
    }
}

#[test]
fn linear_pbe_stride_is_minus_4() {
    let b = pbe().pack().unwrap();
    // Swizzle BGRA: 2 | 1 << 2 | 0 << 4 | 3 << 6 at bit 16 = 0xc6 << 16; width 639 at 24.
    assert_eq!(le32(&b, 0) & 0x00ff_0000, 0x00c6_0000);
    assert_eq!(le32(&b, 0) >> 24, 639 & 0xff);
    // Buffer >> 4 at bit 64; stride 2556 at bit 104 (word 3 bit 8).
    assert_eq!(le32(&b, 2), 0x4_0000);
    assert_eq!(le32(&b, 3), 2556 << 8);
    let one = Pbe {
        swizzle: [Channel::One; 4],
        ..pbe()
    };
    assert!(one.pack().is_err());
}

// ---- round trips ----

#[test]
fn descriptor_round_trips() {
    let t = texture();
    assert_eq!(Texture::unpack(&t.pack()), Ok(t));
    let t = Texture {
        dimension: TextureDimension::CubeArray,
        depth: 12,
        page_aligned_layers: true,
        extended: true,
        extension: 0x1234_5678_9abc_def0,
        ..texture()
    };
    assert_eq!(Texture::unpack(&t.pack()), Ok(t));
    let p = pbe();
    assert_eq!(Pbe::unpack(&p.pack().unwrap()), Ok(p));
    let p = Pbe {
        layout: Layout::Twiddled,
        levels: 9,
        layers: 6,
        stride: 0,
        page_aligned_layers: true,
        level: 3,
        ..pbe()
    };
    assert_eq!(Pbe::unpack(&p.pack().unwrap()), Ok(p));
    let s = sampler();
    assert_eq!(Sampler::unpack(&s.pack()), Ok(s));
    let b = Border {
        channels: [1, 0x3f80_0000, 3, u32::MAX],
    };
    assert_eq!(Border::unpack(&b.pack()), Ok(b));
    let s = Scissor {
        min_x: 1,
        max_x: 640,
        min_y: 2,
        max_y: 480,
        min_z: 0.25,
        max_z: 1.0,
    };
    assert_eq!(Scissor::unpack(&s.pack()), Ok(s));
    let d = DepthBias {
        depth_bias: 1.5,
        slope_scale: -2.0,
        clamp: 0.0,
    };
    assert_eq!(DepthBias::unpack(&d.pack()), Ok(d));
    let h = CfBindingHeader {
        slots: 7,
        coefficient_registers: 12,
    };
    assert_eq!(CfBindingHeader::unpack(&h.pack()), Ok(h));
    for shade_model in ShadeModel::ALL {
        for source in CoefficientSource::ALL {
            let c = CfBinding {
                components: 2,
                shade_model: *shade_model,
                source: *source,
                base_slot: 3,
                base_coefficient_register: 250,
            };
            assert_eq!(CfBinding::unpack(&c.pack()), Ok(c));
        }
    }
    let bytes = [0xff, 0xc1, 0x0c, 0x04, 0, 0, 0, 0x05];
    let z = ZlsControl::unpack(&bytes).unwrap();
    assert!(z.z_resolve && z.s_resolve && z.unknown_7 && z.s_compress_2 && z.z_load && z.s_store);
    assert_eq!(z.z_format, ZlsFormat::U16);
    assert_eq!(z.pack(), bytes);
    // Bit 22 has no meaning; Z format 1 is not defined.
    assert!(is_bad(ZlsControl::unpack(&[0, 0, 0x40, 0, 0, 0, 0, 0])));
    assert!(is_bad(ZlsControl::unpack(&[0, 0, 0, 0x02, 0, 0, 0, 0])));
}

#[test]
fn every_enum_value_round_trips() {
    for c in Channels::ALL {
        let t = Texture {
            channels: *c,
            ..texture()
        };
        assert_eq!(Texture::unpack(&t.pack()).unwrap().channels, *c);
    }
    for w in Wrap::ALL {
        let s = Sampler {
            wrap: [*w; 3],
            ..sampler()
        };
        assert_eq!(Sampler::unpack(&s.pack()), Ok(s));
    }
    for f in CompareFunc::ALL {
        let s = Sampler {
            compare_func: *f,
            ..sampler()
        };
        assert_eq!(Sampler::unpack(&s.pack()), Ok(s));
    }
    for p in Primitive::ALL {
        let l = IndexList {
            primitive: *p,
            ..indexed_draw()
        };
        let mut out = Vec::new();
        l.pack(&mut out);
        assert_eq!(IndexList::unpack(&out), Ok((l, 24)));
    }
}

#[test]
fn ppp_word_round_trips() {
    let fc = FragmentControl {
        visibility_mode: VisibilityMode::Boolean,
        scissor_enable: true,
        depth_bias_enable: true,
        stencil_test_enable: false,
        two_sided_stencil: false,
        tag_write_disable: true,
        sample_mask_after_depth_stencil: true,
        disable_tri_merging: true,
        pass_type: PassType::TranslucentPunchThrough,
    };
    assert_eq!(FragmentControl::unpack(&fc.pack()), Ok(fc));
    let ff = FragmentFace {
        stencil_reference: 0x80,
        line_width: line_width_bits(1.0),
        polygon_mode: PolygonMode::Line,
        disable_depth_write: true,
        unk_visibility: 2,
        depth_function: ZsFunc::Lequal,
    };
    assert_eq!(ff.line_width, 15);
    assert_eq!(FragmentFace::unpack(&ff.pack()), Ok(ff));
    let f2 = FragmentFace2 {
        disable_depth_write: true,
        conservative_depth: ConservativeDepth::Less,
        depth_function: ZsFunc::Always,
        object_type: ObjectType::PointSpriteUv01,
    };
    assert_eq!(FragmentFace2::unpack(&f2.pack()), Ok(f2));
    let q = FragmentOcclusionQuery { index: 0x7fff };
    assert_eq!(FragmentOcclusionQuery::unpack(&q.pack()), Ok(q));
    assert_eq!(u32::from_le_bytes(q.pack()), 0xfffe_0000);
    let q2 = FragmentOcclusionQuery2 { unknown: 0x1_2345 };
    assert_eq!(FragmentOcclusionQuery2::unpack(&q2.pack()), Ok(q2));
    let os = OutputSelect {
        clip_distance_planes: 0x8001,
        varyings: true,
        point_size: true,
        viewport_target: false,
        render_target: true,
        frag_coord_z: true,
        barycentric_coordinates: false,
    };
    assert_eq!(u32::from_le_bytes(os.pack()), 0x0035_8001);
    assert_eq!(OutputSelect::unpack(&os.pack()), Ok(os));
    let vc = VaryingCounts {
        smooth: 12,
        flat: 3,
        linear: 1,
    };
    assert_eq!(VaryingCounts::unpack(&vc.pack()), Ok(vc));
    let c2 = Cull2 {
        clamp_w: true,
        draw_clipped_edges: false,
        needs_primitive_id: true,
        rasterizer_discard: true,
    };
    assert_eq!(u32::from_le_bytes(c2.pack()), 0x0002_1020);
    assert_eq!(Cull2::unpack(&c2.pack()), Ok(c2));
    let os2 = OutputSize { count: 0xdead_beef };
    assert_eq!(OutputSize::unpack(&os2.pack()), Ok(os2));
    let dbs = DepthBiasScissor {
        scissor: 3,
        depth_bias: 0xffff,
    };
    assert_eq!(DepthBiasScissor::unpack(&dbs.pack()), Ok(dbs));
    let fs = fragment_shader();
    assert_eq!(FragmentShader::unpack(&fs.pack()), Ok(fs));
    let vp = Viewport {
        translate_x: 320.0,
        scale_x: 320.0,
        translate_y: 240.0,
        scale_y: -240.0,
        translate_z: 0.0,
        scale_z: 1.0,
    };
    assert_eq!(Viewport::unpack(&vp.pack()), Ok(vp));
    let w = WClamp { w_clamp: 1e-10 };
    assert_eq!(WClamp::unpack(&w.pack()), Ok(w));
    let rc = RegionClip {
        enable: false,
        min_x: 3,
        max_x: 512,
        min_y: 0,
        max_y: 1,
    };
    assert_eq!(RegionClip::unpack(&rc.pack()), Ok(rc));
    let cull = Cull {
        cull_front: true,
        cull_back: true,
        flat_shading_vertex: PppVertex::V2,
        depth_clip: false,
        depth_clamp: true,
        primitive_msaa: true,
        front_face_ccw: false,
        rasterizer_discard: true,
    };
    assert_eq!(Cull::unpack(&cull.pack()), Ok(cull));
}

fn full_update() -> PppUpdate {
    let fc = FragmentControl {
        visibility_mode: VisibilityMode::None,
        scissor_enable: true,
        depth_bias_enable: false,
        stencil_test_enable: true,
        two_sided_stencil: false,
        tag_write_disable: false,
        sample_mask_after_depth_stencil: false,
        disable_tri_merging: false,
        pass_type: PassType::Opaque,
    };
    let face = FragmentFace {
        stencil_reference: 1,
        line_width: 15,
        polygon_mode: PolygonMode::Fill,
        disable_depth_write: false,
        unk_visibility: 0,
        depth_function: ZsFunc::Less,
    };
    let face2 = FragmentFace2 {
        disable_depth_write: true,
        conservative_depth: ConservativeDepth::Any,
        depth_function: ZsFunc::Always,
        object_type: ObjectType::Triangle,
    };
    let st = FragmentStencil {
        write_mask: 0xff,
        read_mask: 0xff,
        depth_pass: StencilOp::Keep,
        depth_fail: StencilOp::Zero,
        stencil_fail: StencilOp::DecrWrap,
        compare: ZsFunc::Always,
    };
    let vp = Viewport {
        translate_x: 1.0,
        scale_x: 2.0,
        translate_y: 3.0,
        scale_y: 4.0,
        translate_z: 5.0,
        scale_z: 6.0,
    };
    PppUpdate {
        fragment_control: Some(fc),
        fragment_control_2: Some(FragmentControl {
            pass_type: PassType::PunchThrough,
            ..fc
        }),
        front_face: Some(face),
        front_face_2: Some(face2),
        front_stencil: Some(st),
        back_face: Some(FragmentFace {
            stencil_reference: 2,
            ..face
        }),
        back_face_2: Some(face2),
        back_stencil: Some(FragmentStencil {
            compare: ZsFunc::Never,
            ..st
        }),
        depth_bias_scissor: Some(DepthBiasScissor {
            scissor: 1,
            depth_bias: 2,
        }),
        viewport_count: 2,
        region_clips: Some(vec![
            RegionClip {
                enable: true,
                min_x: 0,
                max_x: 20,
                min_y: 0,
                max_y: 15,
            },
            RegionClip {
                enable: false,
                min_x: 1,
                max_x: 2,
                min_y: 3,
                max_y: 4,
            },
        ]),
        viewports: Some(vec![vp, Viewport { scale_z: 0.5, ..vp }]),
        w_clamp: Some(WClamp { w_clamp: 1e-10 }),
        output_select: Some(OutputSelect {
            varyings: true,
            ..Default::default()
        }),
        varying_counts_32: Some(VaryingCounts {
            smooth: 4,
            flat: 1,
            linear: 0,
        }),
        varying_counts_16: Some(VaryingCounts {
            smooth: 2,
            flat: 0,
            linear: 0,
        }),
        cull: Some(Cull {
            cull_front: false,
            cull_back: true,
            flat_shading_vertex: PppVertex::V0,
            depth_clip: true,
            depth_clamp: false,
            primitive_msaa: false,
            front_face_ccw: false,
            rasterizer_discard: false,
        }),
        cull_2: Some(Cull2::default()),
        fragment_shader: Some(fragment_shader()),
        occlusion_query: Some(FragmentOcclusionQuery { index: 7 }),
        occlusion_query_2: Some(FragmentOcclusionQuery2 { unknown: 0 }),
        output_unknown: true,
        output_size: Some(OutputSize { count: 40 }),
        varying_word_2: Some(0x1122_3344_5566_7788),
    }
}

#[test]
fn full_ppp_update_walks_back_in_order() {
    let u = full_update();
    let mut out = Vec::new();
    u.pack(&mut out).unwrap();
    // Header, 9 fragment words, 2 region clips, viewport control and 2 viewports, then
    // w clamp .. cull 2 (6 words), 4 fragment shader words, 4 more words and varying word 2.
    let expect = 4 + 9 * 4 + 2 * 8 + 4 + 2 * 24 + 6 * 4 + 16 + 4 * 4 + 8;
    assert_eq!(out.len(), expect);
    assert_eq!(u.header().update_size(), expect);
    // Header: every flag bit (0..8, 10, 11, 16..19 with 20 clear, 21..28) and count 2 - 1.
    assert_eq!(le32(&out, 0), 0x1fef_1dff);
    // The viewport control word sits after the region clips.
    assert_eq!(le32(&out, 10 + 4), 0);
    assert_eq!(PppUpdate::unpack(&out), Ok((u.clone(), expect)));

    let m = Flat::with(0x4000, &out);
    let (r, n) = PppUpdate::read(&m, 0x4000, (expect / 4) as u32).unwrap();
    assert_eq!((r, n), (u, expect as u64));
    // A PPP State block whose size disagrees with the header is malformed.
    assert!(matches!(
        PppUpdate::read(&m, 0x4000, (expect / 4 - 2) as u32),
        Err(FlatError::Word(WordError::Malformed { va: 0x4000, .. }))
    ));
}

#[test]
fn ppp_update_rejects_bad_input() {
    let mut u = full_update();
    u.viewports = Some(vec![]);
    assert!(u.pack(&mut Vec::new()).is_err());
    // Header bit 9 and 20 have no meaning.
    assert!(is_bad(PppHeader::unpack(&(1u32 << 9).to_le_bytes())));
    assert!(is_bad(PppHeader::unpack(&(1u32 << 20).to_le_bytes())));
    // A header promising more words than there are.
    assert!(is_bad(PppUpdate::unpack(&1u32.to_le_bytes())));
    // Non-zero viewport control.
    let u = PppUpdate {
        viewport_count: 1,
        viewports: Some(vec![Viewport {
            translate_x: 0.0,
            scale_x: 0.0,
            translate_y: 0.0,
            scale_y: 0.0,
            translate_z: 0.0,
            scale_z: 0.0,
        }]),
        ..Default::default()
    };
    let mut out = Vec::new();
    u.pack(&mut out).unwrap();
    assert_eq!(PppUpdate::unpack(&out), Ok((u, 32)));
    out[4] = 1;
    assert!(is_bad(PppUpdate::unpack(&out)));
}

#[test]
fn vdm_stream_reads_block_by_block() {
    let ppp = PppState {
        pointer: 0x1_0000_4000,
        size_words: 6,
    };
    let blocks = [
        VdmBlock::Barrier(VdmBarrier {
            usc_cache_invalidate: true,
            returns: false,
            unknown: 1 << 20,
        }),
        VdmBlock::Ppp(ppp),
        VdmBlock::State(VdmState {
            restart_index: Some(0xffff_ffff),
            ..Default::default()
        }),
        VdmBlock::State(vertex_state()),
        VdmBlock::IndexList(indexed_draw()),
        VdmBlock::Link(VdmStreamLink {
            target: 0xff_ffff_fff0,
            with_return: false,
        }),
        VdmBlock::Terminate,
    ];
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for b in &blocks {
        starts.push(out.len());
        b.pack(&mut out).unwrap();
    }
    let sizes = [4, 8, 8, 24, 24, 8, 32];
    let m = Flat::with(0x10_0000, &out);
    let mut va = 0x10_0000;
    for (i, b) in blocks.iter().enumerate() {
        assert_eq!(va - 0x10_0000, starts[i] as u64);
        let (got, n) = VdmBlock::read(&m, va).unwrap();
        assert_eq!((got, n), (*b, sizes[i]));
        va += n;
    }
    assert_eq!(va - 0x10_0000, out.len() as u64);
}

#[test]
fn vdm_rejects_bad_blocks() {
    // Type 7 is not defined.
    let m = Flat::with(0, &[0, 0, 0, 0xe0, 0, 0, 0, 0]);
    assert!(matches!(
        VdmBlock::read(&m, 0),
        Err(FlatError::Word(WordError::Malformed { va: 0, .. }))
    ));
    // Tessellate blocks and tessellation state are not modelled.
    assert!(matches!(
        VdmBlock::unpack(&[0, 0, 0, 0xa0]),
        Err(WordError::Unmodelled(_))
    ));
    assert!(matches!(
        VdmBlock::unpack(&[0x10, 0, 0, 0x40, 0, 0, 0, 0]),
        Err(WordError::Unmodelled(_))
    ));
    // An undefined barrier bit, an undefined state presence bit, a bad primitive.
    assert!(is_bad(VdmBarrier::unpack(&[1, 0, 0, 0x20])));
    assert!(is_bad(VdmBlock::unpack(&[0x40, 0, 0, 0x40, 0, 0, 0, 0])));
    assert!(is_bad(IndexList::unpack(&[0, 2, 0, 0x60])));
    // Index buffer high byte without an index buffer.
    assert!(is_bad(IndexList::unpack(&[1, 6, 0, 0x60])));
    // Wrong block type for the word asked for.
    assert!(is_bad(VdmStreamLink::unpack(&VdmStreamTerminate.pack())));
    assert!(is_bad(PppState::unpack(
        &VdmStreamLink {
            target: 0,
            with_return: false
        }
        .pack()
    )));
    // Sampler state count 5.
    let mut w = counts().pack();
    w[1] = (w[1] & !0x0e) | (5 << 1);
    assert!(is_bad(ShaderCounts::unpack(&w)));
    // A truncated state block.
    let mut out = Vec::new();
    vertex_state().pack(&mut out);
    assert!(is_bad(VdmState::unpack(&out[..12])));
}

#[test]
fn vdm_word_round_trips() {
    let s = vertex_state();
    let mut out = Vec::new();
    s.pack(&mut out);
    assert_eq!(VdmState::unpack(&out), Ok((s, 24)));
    for v in VdmVertex::ALL {
        let u = VertexUnknown {
            flat_shading_control: *v,
            unknown_4: false,
            unknown_5: true,
            generate_primitive_id: false,
        };
        assert_eq!(VertexUnknown::unpack(&u.pack()), Ok(u));
    }
    let c = ShaderCounts {
        unknown_0: true,
        uniform_halves: 512,
        texture_states: 256,
        sampler_states: 7,
        preshader_halves: 256,
    };
    assert_eq!(ShaderCounts::unpack(&c.pack()), Ok(c));
    let w1 = VertexShaderWord1 {
        unknown: 3,
        pipeline: 0xffff_ffc0,
    };
    assert_eq!(VertexShaderWord1::unpack(&w1.pack()), Ok(w1));
    let o = VertexOutputs {
        count_1: 255,
        count_2: 0,
    };
    assert_eq!(VertexOutputs::unpack(&o.pack()), Ok(o));
    let b = VdmBarrier {
        usc_cache_invalidate: false,
        returns: true,
        unknown: (1 << 4) | (1 << 26),
    };
    assert_eq!(VdmBarrier::unpack(&b.pack()), Ok(b));
    let l = VdmStreamLink {
        target: 0x42,
        with_return: true,
    };
    assert_eq!(VdmStreamLink::unpack(&l.pack()), Ok(l));
    let p = PppState {
        pointer: 0xff_ffff_fffc,
        size_words: 255,
    };
    assert_eq!(PppState::unpack(&p.pack().unwrap()), Ok(p));
    assert_eq!(
        VdmStreamTerminate::unpack(&VdmStreamTerminate.pack()),
        Ok(VdmStreamTerminate)
    );
    let h = full_update().header();
    assert_eq!(PppHeader::unpack(&h.pack()), Ok(h));
}

#[test]
fn descriptors_reject_undefined_bits_and_values() {
    let mut b = texture().pack();
    b[8] |= 2; // bit 65
    assert!(is_bad(Texture::unpack(&b)));
    let mut b = texture().pack();
    b[15] |= 0x10; // bit 124: outside the depth field of a twiddled texture
    assert!(is_bad(Texture::unpack(&b)));
    let mut b = texture().pack();
    b[0] = (b[0] & !0x0f) | 9; // texture dimension 9
    assert!(is_bad(Texture::unpack(&b)));
    let mut b = sampler().pack();
    b[5] |= 0x08; // bit 43
    assert!(is_bad(Sampler::unpack(&b)));
    let mut b = sampler().pack();
    b[3] |= 0xe0; // wrap S 7
    assert!(is_bad(Sampler::unpack(&b)));
    assert!(is_bad(CfBinding::unpack(&[0x10, 0, 0, 0]))); // shade model 4
    assert!(is_bad(Texture::unpack(&[0; 23])));
}
