//! Vertex and fragment shaders from GLSL through the G13 back end, run on the USC model with
//! a graphics context. Expectations are computed here from the plane equations and vertex
//! numbers given to the context, never read back from the compiler.

mod common;

use common::glslang_stage;
use compiler::abi::{FIRST_INSTANCE_OFFSET, VIEW_INDEX_OFFSET};
use compiler::g13::{
    compile_graphics, ColourOutput, FragmentOutputs, GraphicsBinary, VaryingLayout, CF_W, CF_Z,
    PRELOAD_INSTANCE_NUMBER, PRELOAD_VERTEX_INDEX,
};
use compiler::ir::{Interpolation, Stage};
use compiler::{ResourceLayout, ShaderRequest, Target};
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use sim_gpu::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Plane, Preload,
    Program, VertexContext,
};

fn compile(
    src: &str,
    stage: Stage,
    layout: &VaryingLayout,
    outputs: &FragmentOutputs,
) -> GraphicsBinary {
    let ext = if stage == Stage::Vertex {
        "vert"
    } else {
        "frag"
    };
    let spirv = glslang_stage(src, ext).expect("glslang");
    let res = ResourceLayout::default();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    };
    let g = compiler::translate_graphics(&req).expect("translate");
    compile_graphics(&g, layout, outputs).unwrap_or_else(|e| panic!("compile: {e}"))
}

fn program(bin: &GraphicsBinary) -> Program {
    let mut code = Vec::new();
    let mut at = 0;
    while at < bin.code.len() {
        let (i, len) = hw::g13::decode(&bin.code[at..]).expect("decode");
        code.push((at as u32, i));
        at += len;
    }
    Program::new(0, code).expect("program")
}

fn launch(bin: &GraphicsBinary, lanes: u32, root_words: &[(u32, u32)]) -> LaunchState {
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    l.uniforms = vec![0; bin.uniform_halves as usize];
    for &(offset, word) in root_words {
        let h = (offset / 2) as usize;
        l.uniforms[h] = word as u16;
        l.uniforms[h + 1] = (word >> 16) as u16;
    }
    l.stack_bytes = bin.scratch_bytes;
    l
}

/// The vertex launch preloads: vertex index `first_vertex + lane`, instance number 0.
fn vertex_preloads(l: &mut LaunchState, lanes: u32, first_vertex: u32) {
    l.preloads = vec![
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_VERTEX_INDEX / 2),
            values: (0..lanes).map(|i| first_vertex + i).collect(),
        },
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_INSTANCE_NUMBER / 2),
            values: vec![0; lanes as usize],
        },
    ];
}

/// A target of `channels` channels of `bits`-bit `numeric` data.
fn target(location: u32, offset: u16, channels: u8, bits: u8, numeric: Numeric) -> ColourOutput {
    ColourOutput::plain(
        location,
        offset,
        ColourFormat::Plain {
            channels,
            bits,
            numeric,
        },
    )
    .unwrap()
}

fn outputs(colours: Vec<ColourOutput>) -> FragmentOutputs {
    FragmentOutputs {
        colours,
        ..Default::default()
    }
}

fn varyings() -> VaryingLayout {
    VaryingLayout::new(
        &[
            (0, 0, Interpolation::Smooth),
            (0, 1, Interpolation::Smooth),
            (0, 2, Interpolation::Smooth),
            (0, 3, Interpolation::Smooth),
            (1, 0, Interpolation::Flat),
            (2, 0, Interpolation::NoPerspective),
        ],
        false,
    )
    .unwrap()
}

#[test]
fn layout_puts_position_first() {
    let l = varyings();
    assert_eq!(l.uvs_words, 4 + 6);
    assert_eq!(l.slots[0].uvs, 4);
    assert_eq!(l.slots[5].uvs, 9);
    assert_eq!(l.slots[0].cf, 2);
    assert_eq!(l.cf_slots, 8);
    let with_psiz = VaryingLayout::new(&[(3, 1, Interpolation::Flat)], true).unwrap();
    assert_eq!(with_psiz.slots[0].uvs, 5);
    assert!(VaryingLayout::new(&[(0, 4, Interpolation::Flat)], false).is_err());
    assert!(VaryingLayout::new(
        &[(0, 1, Interpolation::Flat), (0, 1, Interpolation::Flat)],
        false
    )
    .is_err());
}

const VS: &str = r#"#version 450
layout(location = 0) out vec4 colour;
layout(location = 1) flat out int id;
layout(location = 2) noperspective out float np;
layout(location = 5) out float unused;
void main() {
    float x = float(gl_VertexIndex);
    gl_Position = vec4(x * 0.5, -x, 0.25, 1.0 + x);
    colour = vec4(x, 2.0 * x, 3.0, float(gl_InstanceIndex));
    id = gl_VertexIndex * 7;
    np = x - 100.0;
    unused = 9.0;
}
"#;

#[test]
fn pass_through_vertex_shader_fills_uvs() {
    let layout = varyings();
    let bin = compile(VS, Stage::Vertex, &layout, &FragmentOutputs::default());
    let prog = program(&bin);
    let lanes = 13u32;
    let mut l = launch(&bin, lanes, &[(FIRST_INSTANCE_OFFSET, 3)]);
    vertex_preloads(&mut l, lanes, 100);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(layout.uvs_words)),
    };
    let mut mem = FlatMemory::new();
    run_graphics(&prog, &l, &mut mem, &mut gfx).expect("run");
    let v = gfx.vertex.unwrap();
    assert_eq!(v.finished, (1 << lanes) - 1);
    let n = layout.uvs_words as usize;
    for lane in 0..lanes as usize {
        let vi = 100 + lane as i32;
        let x = vi as f32;
        let want: Vec<u32> = [x * 0.5, -x, 0.25, 1.0 + x, x, 2.0 * x, 3.0, 3.0]
            .iter()
            .map(|f| f.to_bits())
            .chain([(vi * 7) as u32, (x - 100.0).to_bits()])
            .collect();
        assert_eq!(&v.uvs[lane * n..][..n], &want[..], "lane {lane}");
    }
}

const TILE: [u32; 2] = [8, 4];
const ORIGIN: [u32; 2] = [16, 8];

fn fragment(bytes_per_sample: u32, cf: Vec<Plane>) -> GraphicsContext {
    let mut f = FragmentContext::new(TILE, 1, bytes_per_sample);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    f.set_planes(&cf);
    GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    }
}

fn run_fs(src: &str, layout: &VaryingLayout, outs: &FragmentOutputs, gfx: &mut GraphicsContext) {
    let bin = compile(src, Stage::Fragment, layout, outs);
    let prog = program(&bin);
    let l = launch(&bin, 32, &[]);
    let mut mem = FlatMemory::new();
    run_graphics(&prog, &l, &mut mem, gfx).expect("run");
}

/// The lane's pixel record in the tilebuffer (one sample).
fn pixel_bytes(f: &FragmentContext, lane: usize) -> &[u8] {
    let n = f.bytes_per_sample as usize;
    &f.tilebuffer[lane * n..][..n]
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

fn unorm8(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round_ties_even() as u8
}

#[test]
fn solid_colour_to_unorm8_and_i32_targets() {
    let src = r#"#version 450
layout(location = 0) out vec4 c;
layout(location = 1) out uvec2 u;
void main() {
    c = vec4(0.25, 0.5, 1.5, -2.0);
    u = uvec2(0xdeadbeefu, 17u);
}
"#;
    let outs = outputs(vec![
        target(0, 0, 4, 8, Numeric::Unorm),
        target(1, 4, 2, 32, Numeric::Uint),
    ]);
    let mut gfx = fragment(12, vec![]);
    run_fs(src, &VaryingLayout::default(), &outs, &mut gfx);
    let f = gfx.fragment.unwrap();
    for lane in 0..32 {
        let b = pixel_bytes(&f, lane);
        assert_eq!(&b[..4], &[64, 128, 255, 0], "lane {lane}");
        assert_eq!(word(b, 1), 0xdead_beef);
        assert_eq!(word(b, 2), 17);
    }
}

fn close(got: f32, want: f64) -> bool {
    (f64::from(got) - want).abs() <= 1e-5 * want.abs().max(1.0)
}

#[test]
fn smooth_flat_and_noperspective_varyings() {
    let src = r#"#version 450
layout(location = 0) in vec4 col;
layout(location = 1) flat in int id;
layout(location = 2) noperspective in float np;
layout(location = 0) out vec4 o;
layout(location = 1) out ivec2 oi;
layout(location = 2) out vec4 o8;
void main() {
    o = col + vec4(np, 0.0, 0.0, 0.0);
    oi = ivec2(id, id + 1);
    o8 = col * 0.01;
}
"#;
    let layout = varyings();
    let outs = outputs(vec![
        target(0, 0, 4, 32, Numeric::Float),
        target(1, 16, 2, 32, Numeric::Sint),
        target(2, 24, 4, 8, Numeric::Unorm),
    ]);
    let p = |a: f32, b: f32, c: f32| Plane { a, b, c };
    let w = p(0.01, -0.005, 0.75);
    let cols = [
        p(0.5, 0.25, 1.0),
        p(-0.125, 1.5, 2.0),
        p(0.0, 0.0, 3.0),
        p(0.03125, 0.0625, -1.0),
    ];
    let id_bits = 0x4123_4567u32;
    let np = p(2.0, -1.0, 0.5);
    let mut cf = vec![Plane::default(); layout.cf_slots as usize];
    cf[CF_W as usize] = w;
    for (k, c) in cols.iter().enumerate() {
        cf[usize::from(layout.find(0, k as u8).unwrap().cf)] = *c;
    }
    cf[usize::from(layout.find(1, 0).unwrap().cf)] = p(0.0, 0.0, f32::from_bits(id_bits));
    cf[usize::from(layout.find(2, 0).unwrap().cf)] = np;
    let mut gfx = fragment(28, cf);
    run_fs(src, &layout, &outs, &mut gfx);
    let f = gfx.fragment.unwrap();
    let eval = |q: Plane, x: f64, y: f64| f64::from(q.a) * x + f64::from(q.b) * y + f64::from(q.c);
    for lane in 0..32 {
        let [px, py] = f.lane_pixels[lane];
        let (x, y) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
        let inv_w = eval(w, x, y);
        let want: Vec<f64> = cols.iter().map(|&c| eval(c, x, y) / inv_w).collect();
        let b = pixel_bytes(&f, lane);
        let got: Vec<f32> = (0..4).map(|i| f32::from_bits(word(b, i))).collect();
        assert!(
            close(got[0], want[0] + eval(np, x, y)),
            "lane {lane}: {got:?}"
        );
        for k in 1..4 {
            assert!(close(got[k], want[k]), "lane {lane} component {k}: {got:?}");
        }
        assert_eq!(word(b, 4), id_bits);
        assert_eq!(word(b, 5), id_bits + 1);
        for k in 0..4 {
            let e = unorm8((want[k] as f32) * 0.01);
            let g = b[24 + k];
            assert!(g.abs_diff(e) <= 1, "lane {lane} unorm {k}: {g} vs {e}");
        }
    }
}

/// Flat varyings carry integer bit patterns that are not ordinary floats (-0.0, NaNs): they
/// must arrive unchanged, which evaluating the plane in floating point would not ensure.
#[test]
fn flat_varyings_keep_their_bits() {
    let src = r#"#version 450
layout(location = 0) flat in uvec4 v;
layout(location = 0) out uvec4 o;
void main() {
    o = v;
}
"#;
    let layout = VaryingLayout::new(
        &[
            (0, 0, Interpolation::Flat),
            (0, 1, Interpolation::Flat),
            (0, 2, Interpolation::Flat),
            (0, 3, Interpolation::Flat),
        ],
        false,
    )
    .unwrap();
    let outs = outputs(vec![target(0, 0, 4, 32, Numeric::Uint)]);
    let bits = [0x8000_0000u32, 0x7f80_0001, 0xffc0_1234, 0xe666_6660];
    let mut cf = vec![Plane::default(); layout.cf_slots as usize];
    for (k, b) in bits.iter().enumerate() {
        cf[usize::from(layout.find(0, k as u8).unwrap().cf)] = Plane {
            a: 0.0,
            b: 0.0,
            c: f32::from_bits(*b),
        };
    }
    let mut gfx = fragment(16, cf);
    run_fs(src, &layout, &outs, &mut gfx);
    let f = gfx.fragment.unwrap();
    for lane in 0..32 {
        let b = pixel_bytes(&f, lane);
        let got: Vec<u32> = (0..4).map(|i| word(b, i)).collect();
        assert_eq!(got, bits, "lane {lane}");
    }
}

#[test]
fn discard_checkerboard() {
    let src = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    if (((int(gl_FragCoord.x) + int(gl_FragCoord.y)) & 1) == 1) discard;
    o = vec4(1.0, 0.0, 0.5, 1.0);
}
"#;
    let outs = outputs(vec![target(0, 0, 4, 8, Numeric::Unorm)]);
    let cf = vec![Plane::default(); 5];
    let mut gfx = fragment(4, cf);
    run_fs(src, &VaryingLayout::default(), &outs, &mut gfx);
    let f = gfx.fragment.unwrap();
    for lane in 0..32 {
        let [px, py] = f.lane_pixels[lane];
        let killed = (px + py) % 2 == 1;
        assert_eq!(f.coverage[lane], if killed { 0 } else { 1 }, "lane {lane}");
        let want: &[u8] = if killed {
            &[0, 0, 0, 0]
        } else {
            &[255, 0, 128, 255]
        };
        assert_eq!(pixel_bytes(&f, lane), want, "lane {lane}");
    }
}

#[test]
fn frag_coord_and_front_facing() {
    let src = r#"#version 450
layout(location = 0) out uvec4 o;
layout(location = 1) out vec2 zw;
void main() {
    o = uvec4(uint(gl_FragCoord.x) * 3u, uint(gl_FragCoord.y),
              floatBitsToUint(gl_FragCoord.x), gl_FrontFacing ? 5u : 9u);
    zw = gl_FragCoord.zw;
}
"#;
    let outs = outputs(vec![
        target(0, 0, 4, 32, Numeric::Uint),
        target(1, 16, 2, 32, Numeric::Float),
    ]);
    let z = Plane {
        a: 0.001,
        b: 0.002,
        c: 0.3,
    };
    let w = Plane {
        a: 0.0,
        b: -0.01,
        c: 0.5,
    };
    for front in [true, false] {
        let mut cf = vec![Plane::default(); 5];
        cf[CF_Z as usize] = z;
        cf[CF_W as usize] = w;
        let mut gfx = fragment(24, cf);
        if let Some(f) = gfx.fragment.as_mut() {
            f.backfacing = if front { 0 } else { u32::MAX };
        }
        run_fs(src, &VaryingLayout::default(), &outs, &mut gfx);
        let f = gfx.fragment.unwrap();
        for lane in 0..32 {
            let [px, py] = f.lane_pixels[lane];
            let (x, y) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
            let b = pixel_bytes(&f, lane);
            assert_eq!(word(b, 0), px * 3, "lane {lane}");
            assert_eq!(word(b, 1), py);
            assert_eq!(word(b, 2), (x as f32).to_bits());
            assert_eq!(word(b, 3), if front { 5 } else { 9 });
            let zf = f64::from(z.a) * x + f64::from(z.b) * y + f64::from(z.c);
            let wf = f64::from(w.a) * x + f64::from(w.b) * y + f64::from(w.c);
            assert!(close(f32::from_bits(word(b, 4)), zf));
            assert!(close(f32::from_bits(word(b, 5)), wf));
        }
    }
}

#[test]
fn mismatched_interpolation_is_refused() {
    let src = r#"#version 450
layout(location = 1) in float id;
layout(location = 0) out vec4 o;
void main() { o = vec4(id); }
"#;
    let spirv = glslang_stage(src, "frag").expect("glslang");
    let res = ResourceLayout::default();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    };
    let g = compiler::translate_graphics(&req).unwrap();
    let e = compile_graphics(&g, &varyings(), &FragmentOutputs::default()).unwrap_err();
    assert!(matches!(e, compiler::CompileError::Unsupported(_)), "{e}");
}

#[test]
fn point_size_follows_position() {
    let src = r#"#version 450
layout(location = 3) out float v;
void main() {
    gl_Position = vec4(1.0, 2.0, 3.0, 4.0);
    gl_PointSize = 6.5;
    v = float(gl_VertexIndex);
}
"#;
    let layout = VaryingLayout::new(&[(3, 0, Interpolation::Smooth)], true).unwrap();
    let bin = compile(src, Stage::Vertex, &layout, &FragmentOutputs::default());
    let prog = program(&bin);
    let mut l = launch(&bin, 4, &[]);
    vertex_preloads(&mut l, 4, 7);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(layout.uvs_words)),
    };
    run_graphics(&prog, &l, &mut FlatMemory::new(), &mut gfx).expect("run");
    let v = gfx.vertex.unwrap();
    assert_eq!(v.finished, 0b1111);
    for lane in 0..4 {
        let want = [1.0f32, 2.0, 3.0, 4.0, 6.5, (7 + lane) as f32].map(f32::to_bits);
        assert_eq!(&v.uvs[lane * 6..][..6], &want[..], "lane {lane}");
    }
}

#[test]
fn graphics_values_in_the_wrong_stage_are_refused() {
    let src = r#"#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(float(gl_SampleID)); }
"#;
    let spirv = glslang_stage(src, "frag").expect("glslang");
    let res = ResourceLayout::default();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    };
    let mut g = compiler::translate_graphics(&req).unwrap();
    // SampleId is a fragment value: the same body as a vertex shader cannot have it.
    g.stage = Stage::Vertex;
    let e =
        compile_graphics(&g, &VaryingLayout::default(), &FragmentOutputs::default()).unwrap_err();
    assert!(matches!(e, compiler::CompileError::Unsupported(_)), "{e}");
}

#[test]
fn frag_depth_is_emitted() {
    let src = r#"#version 450
layout(depth_any) out float gl_FragDepth;
void main() {
    gl_FragDepth = gl_FragCoord.y * 0.125;
}
"#;
    let cf = vec![Plane::default(); 5];
    let mut gfx = fragment(4, cf);
    run_fs(
        src,
        &VaryingLayout::default(),
        &FragmentOutputs::default(),
        &mut gfx,
    );
    let f = gfx.fragment.unwrap();
    for lane in 0..32 {
        let y = f.lane_pixels[lane][1] as f32 + 0.5;
        assert_eq!(f.depth[lane][0], Some(y * 0.125), "lane {lane}");
        assert_eq!(f.stencil[lane][0], None);
    }
}

const VIEW_VS: &str = r#"#version 450
#extension GL_EXT_multiview : require
layout(location = 0) flat out int v;
layout(location = 1) out float side;
void main() {
    float x = float(gl_VertexIndex);
    // Two eyes: view 1 is shifted right, every other view left.
    float shift = gl_ViewIndex == 1 ? 0.5 : -0.5;
    gl_Position = vec4(x + shift, float(gl_ViewIndex) * 2.0, 0.0, 1.0);
    v = int(gl_ViewIndex) * 100 + gl_VertexIndex;
    side = shift * 4.0;
}
"#;

#[test]
fn view_index_in_a_vertex_shader_reads_the_root_table() {
    let layout = VaryingLayout::new(
        &[(0, 0, Interpolation::Flat), (1, 0, Interpolation::Smooth)],
        false,
    )
    .unwrap();
    let bin = compile(VIEW_VS, Stage::Vertex, &layout, &FragmentOutputs::default());
    let prog = program(&bin);
    let lanes = 5u32;
    for view in [0u32, 1, 3] {
        let mut l = launch(&bin, lanes, &[(VIEW_INDEX_OFFSET, view)]);
        vertex_preloads(&mut l, lanes, 20);
        let mut gfx = GraphicsContext {
            textures: Default::default(),
            fragment: None,
            vertex: Some(VertexContext::new(layout.uvs_words)),
        };
        run_graphics(&prog, &l, &mut FlatMemory::new(), &mut gfx).expect("run");
        let v = gfx.vertex.unwrap();
        assert_eq!(v.finished, (1 << lanes) - 1);
        let n = layout.uvs_words as usize;
        assert_eq!(n, 6);
        for lane in 0..lanes as usize {
            let vi = 20 + lane as u32;
            let shift = if view == 1 { 0.5f32 } else { -0.5 };
            let want = [
                (vi as f32 + shift).to_bits(),
                (view as f32 * 2.0).to_bits(),
                0.0f32.to_bits(),
                1.0f32.to_bits(),
                view * 100 + vi,
                (shift * 4.0).to_bits(),
            ];
            assert_eq!(
                &v.uvs[lane * n..][..n],
                &want[..],
                "view {view} lane {lane}"
            );
        }
    }
}

#[test]
fn view_index_in_a_fragment_shader_reads_the_root_table() {
    let src = r#"#version 450
#extension GL_EXT_multiview : require
layout(location = 0) out uvec4 o;
void main() {
    uint v = uint(gl_ViewIndex);
    o = uvec4(v, v * 3u + 1u, uint(gl_FragCoord.x) + v, v == 2u ? 11u : 22u);
}
"#;
    let outs = outputs(vec![target(0, 0, 4, 32, Numeric::Uint)]);
    let bin = compile(src, Stage::Fragment, &VaryingLayout::default(), &outs);
    let prog = program(&bin);
    for view in [0u32, 2, 7] {
        let mut gfx = fragment(16, vec![Plane::default(); 5]);
        let l = launch(&bin, 32, &[(VIEW_INDEX_OFFSET, view)]);
        run_graphics(&prog, &l, &mut FlatMemory::new(), &mut gfx).expect("run");
        let f = gfx.fragment.unwrap();
        for lane in 0..32 {
            let px = f.lane_pixels[lane][0];
            let b = pixel_bytes(&f, lane);
            let got: Vec<u32> = (0..4).map(|i| word(b, i)).collect();
            let want = [
                view,
                view * 3 + 1,
                px + view,
                if view == 2 { 11 } else { 22 },
            ];
            assert_eq!(got, want, "view {view} lane {lane}");
        }
    }
}
