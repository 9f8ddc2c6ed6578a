//! The API sample mask and alpha-to-one through `compile_graphics_pipeline_coverage`, run on
//! the USC model with a 4-sample tilebuffer. Expected tilebuffer words and coverage are
//! worked out here from the mask, the coverage each lane is given and the blend equation.

mod common;

use common::glslang_stage;
use compiler::ir::Stage;
use compiler::*;
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use sim_gpu::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Plane, Program,
};

const TILE: [u32; 2] = [8, 4];
const ORIGIN: [u32; 2] = [16, 4];
const SAMPLES: u32 = 4;
/// Vulkan's standard locations of 4 samples.
const POSITIONS: [[f32; 2]; 4] = [
    [0.375, 0.125],
    [0.875, 0.375],
    [0.125, 0.625],
    [0.625, 0.875],
];

const PLAIN_VS: &str = r#"#version 450
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }
"#;

fn spirv(src: &str, ext: &str) -> &'static [u32] {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let words = glslang_stage(src, ext).expect("glslang");
    Box::leak(words.into_boxed_slice())
}

/// One 4-byte target at byte 0 of a 4-byte sample.
fn state(format: ColourFormat, blend: BlendAttachment) -> FragmentState {
    FragmentState {
        targets: vec![ColourTarget {
            location: 0,
            format,
            tib_format: format.tib_format().expect("renderable"),
            offset: 0,
            blend,
            spilled: false,
        }],
        inputs: Vec::new(),
        logic_op: None,
        samples: SAMPLES,
        sample_size_bytes: 4,
    }
}

fn uint_target() -> ColourFormat {
    ColourFormat::Plain {
        channels: 1,
        bits: 32,
        numeric: Numeric::Uint,
    }
}

fn rgba8() -> ColourFormat {
    ColourFormat::Plain {
        channels: 4,
        bits: 8,
        numeric: Numeric::Unorm,
    }
}

fn pipeline(
    fs: Option<&str>,
    state: &FragmentState,
    sample_shading: bool,
    coverage: CoverageOptions,
) -> Result<GraphicsPipelineBinary, CompileError> {
    let res = ResourceLayout::default();
    let req = |words: &'static [u32], stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: Box::leak(Box::new(res.clone())),
        target: Target::G13,
    };
    compile_graphics_pipeline_coverage(
        &GraphicsPipelineRequest {
            vertex: req(spirv(PLAIN_VS, "vert"), Stage::Vertex),
            fragment: fs.map(|f| req(spirv(f, "frag"), Stage::Fragment)),
            vertex_input: &VertexInputLayout::default(),
            fragment_state: state,
            geometry: None,
        },
        &GraphicsPipelineOptions {
            sample_shading,
            ..Default::default()
        },
        &coverage,
    )
}

fn masked(sample_mask: u32) -> CoverageOptions {
    CoverageOptions {
        sample_mask,
        ..CoverageOptions::default()
    }
}

fn program(code: &[u8]) -> Program {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let (i, len) = hw::g13::decode(&code[at..]).expect("decode");
        out.push((at as u32, i));
        at += len;
    }
    Program::new(0, out).expect("program")
}

/// What each record of the tilebuffer holds before the shader runs.
fn before(lane: usize, sample: usize) -> u32 {
    0xa000_0000 | (lane as u32) << 8 | sample as u32
}

/// Lane `l` covers the samples of `coverage(l)`: every subset of the four appears.
fn coverage(lane: usize) -> u8 {
    (lane % 16) as u8
}

fn run(code: &[u8]) -> FragmentContext {
    let mut f = FragmentContext::new(TILE, SAMPLES, 4);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    f.sample_positions = POSITIONS.to_vec();
    for l in 0..32 {
        f.coverage[l] = coverage(l);
        for s in 0..SAMPLES as usize {
            let at = (l * SAMPLES as usize + s) * 4;
            f.tilebuffer[at..at + 4].copy_from_slice(&before(l, s).to_le_bytes());
        }
    }
    let w = Plane {
        a: 0.0,
        b: 0.0,
        c: 1.0,
    };
    f.set_planes(&[w, Plane::default()]);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    let mut l = LaunchState::new([32, 1, 1], [32, 1, 1]);
    l.uniforms = vec![0; (abi::GRAPHICS_ROOT_TABLE_SIZE / 2) as usize];
    run_graphics(&program(code), &l, &mut FlatMemory::new(), &mut gfx).expect("run");
    gfx.fragment.expect("fragment context")
}

fn word(f: &FragmentContext, lane: usize, sample: usize) -> u32 {
    let at = (lane * f.samples as usize + sample) * 4;
    u32::from_le_bytes(f.tilebuffer[at..at + 4].try_into().unwrap())
}

/// Checks every record: samples covered and kept by `mask` hold `want(sample)`, the others
/// their old value; and the coverage left is the given one restricted to the mask.
fn check(f: &FragmentContext, mask: u8, want: impl Fn(usize) -> u32) {
    for l in 0..32 {
        for s in 0..SAMPLES as usize {
            let written = coverage(l) & mask & (1 << s) != 0;
            let w = if written { want(s) } else { before(l, s) };
            assert_eq!(
                word(f, l, s),
                w,
                "lane {l} (coverage {:#06b}) sample {s}",
                coverage(l)
            );
        }
        assert_eq!(f.coverage[l], coverage(l) & mask, "coverage of lane {l}");
    }
}

const CONSTANT_FS: &str = r#"#version 450
layout(location = 0) out uint o;
void main() { o = 77u; }
"#;

#[test]
fn masked_samples_are_neither_written_nor_left_covered() {
    let st = state(uint_target(), BlendAttachment::default());
    for mask in [0b0101u32, 0b0001, 0b1110] {
        let bin = pipeline(Some(CONSTANT_FS), &st, false, masked(mask)).expect("compile");
        // Coverage now comes out of the shader: the depth test must wait for it.
        assert!(bin.discards, "mask {mask:#06b}");
        let f = run(&bin.fragment.expect("fragment").code);
        check(&f, mask as u8, |_| 77);
    }
}

#[test]
fn a_mask_keeping_every_sample_changes_nothing() {
    let st = state(uint_target(), BlendAttachment::default());
    // Bits past the fourth sample mean nothing.
    for mask in [u32::MAX, 0b1111] {
        let bin = pipeline(Some(CONSTANT_FS), &st, false, masked(mask)).expect("compile");
        assert!(!bin.discards);
        let f = run(&bin.fragment.expect("fragment").code);
        check(&f, 0b1111, |_| 77);
    }
}

#[test]
fn the_mask_applies_to_each_sample_of_a_per_sample_shader() {
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() { o = uint(gl_SampleID) * 10u + 3u; }
"#;
    let st = state(uint_target(), BlendAttachment::default());
    let bin = pipeline(Some(fs), &st, false, masked(0b0110)).expect("compile");
    let f = run(&bin.fragment.expect("fragment").code);
    check(&f, 0b0110, |s| s as u32 * 10 + 3);
    // Sample shading of a shader that does not read SampleId.
    let bin = pipeline(Some(CONSTANT_FS), &st, true, masked(0b1001)).expect("compile");
    let f = run(&bin.fragment.expect("fragment").code);
    check(&f, 0b1001, |_| 77);
}

#[test]
fn discard_and_mask_combine() {
    // Samples 2 and 3 discard themselves; the mask drops 0 and 2: only 1 survives.
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() {
    if (gl_SampleID >= 2) discard;
    o = 5u;
}
"#;
    let st = state(uint_target(), BlendAttachment::default());
    let bin = pipeline(Some(fs), &st, false, masked(0b1010)).expect("compile");
    let f = run(&bin.fragment.expect("fragment").code);
    check(&f, 0b0010, |_| 5);
}

#[test]
fn depth_only_pipelines_get_a_shader_that_applies_the_mask() {
    let st = FragmentState {
        targets: Vec::new(),
        inputs: Vec::new(),
        logic_op: None,
        samples: SAMPLES,
        sample_size_bytes: 4,
    };
    let bin = pipeline(None, &st, false, masked(0b0100)).expect("compile");
    assert!(bin.discards);
    let f = run(&bin.fragment.expect("a fragment shader for the mask").code);
    // Nothing is stored: every record keeps its value, and only sample 2 stays covered.
    for l in 0..32 {
        for s in 0..SAMPLES as usize {
            assert_eq!(word(&f, l, s), before(l, s));
        }
        assert_eq!(f.coverage[l], coverage(l) & 0b0100, "lane {l}");
    }
    // Without a mask that drops samples the empty shader kills nothing.
    let bin = pipeline(None, &st, false, masked(0b1111)).expect("compile");
    assert!(bin.fragment.is_some());
    assert!(!bin.discards);
}

/// Source-alpha blending of an RGBA8 target: the alpha the shader writes is 0.
fn alpha_blend_pipeline(alpha_to_one: bool) -> GraphicsPipelineBinary {
    let fs = r#"#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(1.0, 0.0, 1.0, 0.0); }
"#;
    let blend = BlendAttachment {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        alpha_op: BlendOp::Add,
        write_mask: 0xf,
    };
    let coverage = CoverageOptions {
        alpha_to_one,
        ..CoverageOptions::default()
    };
    pipeline(Some(fs), &state(rgba8(), blend), false, coverage).expect("compile")
}

#[test]
fn alpha_to_one_replaces_alpha_before_blending() {
    // Alpha 1: the source replaces the destination, alpha included (R, G, B, A bytes).
    let bin = alpha_blend_pipeline(true);
    assert!(!bin.discards);
    let f = run(&bin.fragment.expect("fragment").code);
    check(&f, 0b1111, |_| u32::from_le_bytes([255, 0, 255, 255]));
    // Alpha 0: the destination's colour stays and its alpha becomes 0.
    let f = run(&alpha_blend_pipeline(false).fragment.expect("fragment").code);
    for l in 0..32 {
        for s in 0..SAMPLES as usize {
            let covered = coverage(l) & (1 << s) != 0;
            let w = if covered {
                before(l, s) & 0x00ff_ffff
            } else {
                before(l, s)
            };
            assert_eq!(word(&f, l, s), w, "lane {l} sample {s}");
        }
    }
}

#[test]
fn alpha_to_one_leaves_integer_targets_alone() {
    let fs = r#"#version 450
layout(location = 0) out uvec4 o;
void main() { o = uvec4(1u, 2u, 3u, 4u); }
"#;
    let format = ColourFormat::Plain {
        channels: 4,
        bits: 8,
        numeric: Numeric::Uint,
    };
    let coverage = CoverageOptions {
        alpha_to_one: true,
        ..CoverageOptions::default()
    };
    let st = state(format, BlendAttachment::default());
    let bin = pipeline(Some(fs), &st, false, coverage).expect("compile");
    let f = run(&bin.fragment.expect("fragment").code);
    check(&f, 0b1111, |_| u32::from_le_bytes([1, 2, 3, 4]));
}
