//! Per-sample fragment shading through `compile_graphics_pipeline_with`, run on the USC model
//! with a 4-sample tilebuffer. Every expected value is worked out here from the sample
//! positions, the plane equations and the coverage each lane is given.

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
layout(location = 0) out float v;
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); v = 1.0; }
"#;

fn spirv(src: &str, ext: &str) -> &'static [u32] {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let words = glslang_stage(src, ext).expect("glslang");
    Box::leak(words.into_boxed_slice())
}

fn one_channel(numeric: Numeric) -> ColourFormat {
    ColourFormat::Plain {
        channels: 1,
        bits: 32,
        numeric,
    }
}

/// A 32-bit single-channel target at byte 0 of a 4-byte sample.
fn state(format: ColourFormat, samples: u32, blend: BlendAttachment) -> FragmentState {
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
        samples,
        sample_size_bytes: 4,
    }
}

fn fragment_code(
    fs: &str,
    state: &FragmentState,
    sample_shading: bool,
) -> Result<Vec<u8>, CompileError> {
    let res = ResourceLayout::default();
    let req = |words: &'static [u32], stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: Box::leak(Box::new(res.clone())),
        target: Target::G13,
    };
    let bin = compile_graphics_pipeline_with(
        &GraphicsPipelineRequest {
            vertex: req(spirv(PLAIN_VS, "vert"), Stage::Vertex),
            fragment: Some(req(spirv(fs, "frag"), Stage::Fragment)),
            vertex_input: &VertexInputLayout::default(),
            fragment_state: state,
            geometry: None,
        },
        &GraphicsPipelineOptions {
            sample_shading,
            ..Default::default()
        },
    )?;
    Ok(bin.fragment.expect("fragment stage").code)
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

/// The plane of the varying at location 0 (coefficient slot 2): v = x + 16 y + 0.5.
const V: Plane = Plane {
    a: 1.0,
    b: 16.0,
    c: 0.5,
};

fn run(code: &[u8], samples: u32) -> FragmentContext {
    let mut f = FragmentContext::new(TILE, samples, 4);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    f.sample_positions = if samples == 4 {
        POSITIONS.to_vec()
    } else {
        vec![[0.5, 0.5]]
    };
    for l in 0..32 {
        if samples == 4 {
            f.coverage[l] = coverage(l);
        }
        for s in 0..samples as usize {
            let at = (l * samples as usize + s) * 4;
            f.tilebuffer[at..at + 4].copy_from_slice(&before(l, s).to_le_bytes());
        }
    }
    // 1/W = 1, Z = 0, then the varying.
    let w = Plane {
        a: 0.0,
        b: 0.0,
        c: 1.0,
    };
    f.set_planes(&[w, Plane::default(), V]);
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

/// Checks every record: covered samples hold `want(lane, sample)` (None: keeps its old
/// value), uncovered ones their old value.
fn check(f: &FragmentContext, want: impl Fn(usize, usize) -> Option<u32>) {
    for l in 0..32 {
        for s in 0..f.samples as usize {
            let covered = f.samples == 1 || coverage(l) & (1 << s) != 0;
            let w = match want(l, s) {
                Some(w) if covered => w,
                _ => before(l, s),
            };
            assert_eq!(
                word(f, l, s),
                w,
                "lane {l} (coverage {:#06b}) sample {s}",
                coverage(l)
            );
        }
    }
}

/// The varying's value at sample `s` of lane `l`'s pixel (or the centre for `None`).
fn v_at(l: usize, s: Option<usize>) -> f32 {
    let [ox, oy] = s.map_or([0.5, 0.5], |s| POSITIONS[s]);
    let x = f64::from(ORIGIN[0] + l as u32 % TILE[0]) + f64::from(ox);
    let y = f64::from(ORIGIN[1] + l as u32 / TILE[0]) + f64::from(oy);
    (f64::from(V.a) * x + f64::from(V.b) * y + f64::from(V.c)) as f32
}

#[test]
fn each_covered_sample_gets_its_sample_id() {
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() { o = uint(gl_SampleID) * 10u + 7u; }
"#;
    let code = fragment_code(
        fs,
        &state(
            one_channel(Numeric::Uint),
            SAMPLES,
            BlendAttachment::default(),
        ),
        false,
    )
    .expect("compile");
    let f = run(&code, SAMPLES);
    check(&f, |_, s| Some(s as u32 * 10 + 7));
}

/// How many of the decoded instructions `code` has for which `f` holds.
fn count(code: &[u8], f: impl Fn(&hw::isa::Instr) -> bool) -> usize {
    let mut n = 0;
    let mut at = 0;
    while at < code.len() {
        let (i, len) = hw::g13::decode(&code[at..]).expect("decode");
        n += usize::from(f(&i));
        at += len;
    }
    n
}

#[test]
fn a_sample_loop_without_return_tests_its_count_once_at_the_bottom() {
    use hw::isa::{ExecOp, Instr};
    let exec = |op: ExecOp| move |i: &Instr| matches!(i, Instr::ExecCmp(x) if x.op == op);
    // No `return`: one `while` per sample and no `if`.
    let plain = r#"#version 450
layout(location = 0) out uint o;
void main() { o = uint(gl_SampleID) * 10u + 7u; }
"#;
    let st = state(
        one_channel(Numeric::Uint),
        SAMPLES,
        BlendAttachment::default(),
    );
    let code = fragment_code(plain, &st, false).expect("compile");
    assert_eq!(count(&code, exec(ExecOp::While)), 1);
    assert_eq!(count(&code, exec(ExecOp::If)), 0);
    // A discard ends its sample with a `return`: the count is tested at the top, where every
    // thread is active, and the bottom `while` brings the returned threads back.
    let discards = r#"#version 450
layout(location = 0) out uint o;
void main() { if (gl_SampleID == 1) discard; o = 5u; }
"#;
    let code = fragment_code(discards, &st, false).expect("compile");
    assert_eq!(count(&code, exec(ExecOp::While)), 1);
    assert!(count(&code, exec(ExecOp::If)) >= 2);
}

#[test]
fn sample_id_of_a_single_sampled_pixel_is_zero() {
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() { o = uint(gl_SampleID) + 40u; }
"#;
    let code = fragment_code(
        fs,
        &state(one_channel(Numeric::Uint), 1, BlendAttachment::default()),
        false,
    )
    .expect("compile");
    let f = run(&code, 1);
    check(&f, |_, _| Some(40));
}

#[test]
fn sample_inputs_are_interpolated_at_each_sample() {
    let fs = r#"#version 450
layout(location = 0) noperspective sample in float v;
layout(location = 0) out float o;
void main() { o = v; }
"#;
    let code = fragment_code(
        fs,
        &state(
            one_channel(Numeric::Float),
            SAMPLES,
            BlendAttachment::default(),
        ),
        false,
    )
    .expect("compile");
    let f = run(&code, SAMPLES);
    check(&f, |l, s| Some(v_at(l, Some(s)).to_bits()));
    // The four samples of a pixel really differ.
    assert_ne!(v_at(3, Some(0)), v_at(3, Some(1)));
}

#[test]
fn sample_shading_makes_plain_inputs_per_sample() {
    let fs = r#"#version 450
layout(location = 0) in float v;
layout(location = 0) out float o;
void main() { o = v; }
"#;
    let st = state(
        one_channel(Numeric::Float),
        SAMPLES,
        BlendAttachment::default(),
    );
    // The plane of 1/W is 1, so perspective division changes nothing.
    let per_sample = fragment_code(fs, &st, true).expect("compile");
    let f = run(&per_sample, SAMPLES);
    check(&f, |l, s| Some(v_at(l, Some(s)).to_bits()));
    // Without sample shading the pixel centre's value goes to every covered sample.
    let per_pixel = fragment_code(fs, &st, false).expect("compile");
    let f = run(&per_pixel, SAMPLES);
    check(&f, |l, _| Some(v_at(l, None).to_bits()));
}

#[test]
fn discard_kills_only_the_sample_being_shaded() {
    // Sample 1 discards directly; sample 2 from inside a loop and an `if`, which leaves
    // several levels of control flow at once.
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() {
    if (gl_SampleID == 1) discard;
    uint acc = 0u;
    for (int i = 0; i < 4; i++) {
        if (i == gl_SampleID && i == 2) discard;
        acc += uint(i);
    }
    o = acc + uint(gl_SampleID) * 100u;
}
"#;
    let code = fragment_code(
        fs,
        &state(
            one_channel(Numeric::Uint),
            SAMPLES,
            BlendAttachment::default(),
        ),
        false,
    )
    .expect("compile");
    let f = run(&code, SAMPLES);
    check(&f, |_, s| match s {
        1 | 2 => None,
        _ => Some(6 + s as u32 * 100),
    });
    // The discarded samples lost their coverage; the others kept theirs.
    for l in 0..32 {
        assert_eq!(f.coverage[l], coverage(l) & 0b1001, "lane {l}");
    }
}

#[test]
fn blending_combines_each_sample_with_its_own_destination() {
    // Additive blending of a float target: each sample adds its own source to what it held.
    let blend = BlendAttachment {
        enable: true,
        src_color: BlendFactor::One,
        dst_color: BlendFactor::One,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::One,
        alpha_op: BlendOp::Add,
        write_mask: 0xf,
    };
    let fs = r#"#version 450
layout(location = 0) noperspective sample in float v;
layout(location = 0) out float o;
void main() { o = v + float(gl_SampleID); }
"#;
    let code = fragment_code(
        fs,
        &state(one_channel(Numeric::Float), SAMPLES, blend),
        false,
    )
    .expect("compile");
    let f = run(&code, SAMPLES);
    check(&f, |l, s| {
        let dst = f32::from_bits(before(l, s));
        Some((dst + (v_at(l, Some(s)) + s as f32)).to_bits())
    });
}

#[test]
fn frag_coord_is_the_sample_position_under_sample_shading() {
    let fs = r#"#version 450
layout(location = 0) out float o;
void main() { o = gl_FragCoord.x + gl_FragCoord.y * 64.0; }
"#;
    let st = state(
        one_channel(Numeric::Float),
        SAMPLES,
        BlendAttachment::default(),
    );
    let at = |l: usize, [ox, oy]: [f32; 2]| {
        let x = (ORIGIN[0] + l as u32 % TILE[0]) as f32 + ox;
        let y = (ORIGIN[1] + l as u32 / TILE[0]) as f32 + oy;
        (x + y * 64.0).to_bits()
    };
    let f = run(&fragment_code(fs, &st, true).expect("compile"), SAMPLES);
    check(&f, |l, s| Some(at(l, POSITIONS[s])));
    let f = run(&fragment_code(fs, &st, false).expect("compile"), SAMPLES);
    check(&f, |l, _| Some(at(l, [0.5, 0.5])));
}

#[test]
fn sample_position_is_each_samples_standard_location() {
    let fs = r#"#version 450
layout(location = 0) out float o;
void main() { o = gl_SamplePosition.x + gl_SamplePosition.y * 2.0; }
"#;
    let st = state(
        one_channel(Numeric::Float),
        SAMPLES,
        BlendAttachment::default(),
    );
    let f = run(&fragment_code(fs, &st, false).expect("compile"), SAMPLES);
    check(&f, |_, s| {
        Some((POSITIONS[s][0] + POSITIONS[s][1] * 2.0).to_bits())
    });
    // A single-sampled pixel's one sample is at its centre.
    let st = state(one_channel(Numeric::Float), 1, BlendAttachment::default());
    let f = run(&fragment_code(fs, &st, false).expect("compile"), 1);
    check(&f, |_, _| Some(1.5f32.to_bits()));
}
