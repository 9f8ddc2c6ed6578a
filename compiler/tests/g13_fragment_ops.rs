//! Derivatives, the interpolateAt* functions, gl_SampleMask and gl_SampleMaskIn compiled
//! through `compile_graphics_pipeline` and run on the USC model. The lanes are 2x2 pixel
//! quads (lane 4q + k shades pixel k of quad q in `hw::isa::quad_pixel` order), as the GPU
//! model launches them; every expected value is worked out here from the plane equations.

mod common;

use common::glslang_stage;
use compiler::ir::Stage;
use compiler::*;
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use hw::isa::quad_pixel;
use sim_gpu::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Plane, Program,
};

const TILE: [u32; 2] = [8, 4];
const ORIGIN: [u32; 2] = [16, 4];
/// Vulkan's standard locations of 4 samples.
const POSITIONS: [[f32; 2]; 4] = [
    [0.375, 0.125],
    [0.875, 0.375],
    [0.125, 0.625],
    [0.625, 0.875],
];

const PLAIN_VS: &str = r#"#version 450
layout(location = 0) out float v;
layout(location = 1) out float p;
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); v = 1.0; p = 1.0; }
"#;

fn spirv(src: &str, ext: &str) -> &'static [u32] {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let words = glslang_stage(src, ext).expect("glslang");
    Box::leak(words.into_boxed_slice())
}

/// One 32-bit channel at byte 0 of a 4-byte sample.
fn state(numeric: Numeric, samples: u32) -> FragmentState {
    let format = ColourFormat::Plain {
        channels: 1,
        bits: 32,
        numeric,
    };
    FragmentState {
        targets: vec![ColourTarget {
            location: 0,
            format,
            tib_format: format.tib_format().expect("renderable"),
            offset: 0,
            blend: BlendAttachment::default(),
            spilled: false,
        }],
        logic_op: None,
        samples,
        sample_size_bytes: 4,
        inputs: Vec::new(),
    }
}

fn fragment_code(fs: &str, state: &FragmentState) -> Result<Vec<u8>, CompileError> {
    let res = ResourceLayout::default();
    let req = |words: &'static [u32], stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: Box::leak(Box::new(res.clone())),
        target: Target::G13,
    };
    let bin = compile_graphics_pipeline(&GraphicsPipelineRequest {
        vertex: req(spirv(PLAIN_VS, "vert"), Stage::Vertex),
        fragment: Some(req(spirv(fs, "frag"), Stage::Fragment)),
        vertex_input: &VertexInputLayout::default(),
        fragment_state: state,
        geometry: None,
    })?;
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

/// The framebuffer pixel of lane `l`: quads of 2x2 pixels, four quads to a row of the tile.
fn pixel(l: usize) -> [u32; 2] {
    let q = l as u32 / 4;
    let [dx, dy] = quad_pixel(l % 4);
    [ORIGIN[0] + (q % 4) * 2 + dx, ORIGIN[1] + (q / 4) * 2 + dy]
}

/// Lane `l` covers the samples of `coverage(l)` (with 4 samples; every subset appears),
/// and lanes 5 and 14 are helpers.
fn coverage(l: usize) -> u8 {
    match l {
        5 | 14 => 0,
        _ => (l % 15 + 1) as u8,
    }
}

/// The planes of the varyings: v (slot 2) = x + 16 y + 0.5; p (slot 3) is perspective with
/// 1/W = (x + 2 y + 40) / 64.
const V: Plane = Plane {
    a: 1.0,
    b: 16.0,
    c: 0.5,
};
const INV_W: Plane = Plane {
    a: 1.0 / 64.0,
    b: 2.0 / 64.0,
    c: 40.0 / 64.0,
};
/// p / W at (x, y); p itself is this divided by 1/W.
const P_OVER_W: Plane = Plane {
    a: 0.25,
    b: -0.5,
    c: 3.0,
};

fn eval(p: Plane, x: f64, y: f64) -> f64 {
    f64::from(p.a) * x + f64::from(p.b) * y + f64::from(p.c)
}

fn run(code: &[u8], samples: u32) -> FragmentContext {
    run_with(code, samples, vec![INV_W, Plane::default(), V, P_OVER_W])
}

/// Runs a single-sampled shader over a tilebuffer whose every word holds `dst`.
fn run_over(code: &[u8], dst: u32) -> FragmentContext {
    run_full(code, 1, vec![INV_W, Plane::default(), V, P_OVER_W], dst)
}

/// Runs with the given coefficient planes (1/W, Z, then the varyings in layout order).
fn run_with(code: &[u8], samples: u32, planes: Vec<Plane>) -> FragmentContext {
    run_full(code, samples, planes, 0)
}

fn run_full(code: &[u8], samples: u32, planes: Vec<Plane>, dst: u32) -> FragmentContext {
    let mut f = FragmentContext::new(TILE, samples, 4);
    for w in f.tilebuffer.chunks_exact_mut(4) {
        w.copy_from_slice(&dst.to_le_bytes());
    }
    f.tile_origin = ORIGIN;
    f.sample_positions = if samples == 4 {
        POSITIONS.to_vec()
    } else {
        vec![[0.5, 0.5]]
    };
    for l in 0..32 {
        f.lane_pixels[l] = pixel(l);
        let c = if samples == 4 {
            coverage(l)
        } else {
            u8::from(coverage(l) != 0)
        };
        f.coverage[l] = c;
        f.input_coverage[l] = c;
    }
    f.set_planes(&planes);
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

/// The value sample `s` of lane `l` holds in the tilebuffer.
fn word(f: &FragmentContext, l: usize, s: usize) -> u32 {
    let [x, y] = pixel(l);
    let p = ((y - ORIGIN[1]) * TILE[0] + (x - ORIGIN[0])) as usize;
    let at = (p * f.samples as usize + s) * 4;
    u32::from_le_bytes(f.tilebuffer[at..at + 4].try_into().unwrap())
}

fn close(got: f32, want: f64, what: &str) {
    let tol = 1e-5 * want.abs().max(1.0);
    assert!(
        (f64::from(got) - want).abs() <= tol,
        "{what}: {got} vs {want}"
    );
}

#[test]
fn derivatives_difference_the_quad_and_helpers_write_nothing() {
    let fs = r#"#version 450
layout(location = 0) noperspective in float v;
layout(location = 0) out float o;
void main() {
    float s = v * v;
    float d;
    if (gl_FragCoord.y >= 0.0) {
        d = dFdx(s) * 1000.0 + dFdyFine(s) + fwidthCoarse(gl_FragCoord.x * gl_FragCoord.y);
    } else {
        d = 0.0;
    }
    o = d;
}
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Float, 1)).expect("compile"),
        1,
    );
    let s = |x: u32, y: u32| {
        let v = eval(V, f64::from(x) + 0.5, f64::from(y) + 0.5) as f32;
        v * v
    };
    let fc = |x: u32, y: u32| (x as f32 + 0.5) * (y as f32 + 0.5);
    for l in 0..32 {
        if coverage(l) == 0 {
            assert_eq!(word(&f, l, 0), 0, "helper lane {l} wrote");
            continue;
        }
        let [x, y] = pixel(l);
        let (x0, y0) = (x & !1, y & !1);
        let dx = s(x0 + 1, y) - s(x0, y);
        let dy = s(x, y0 + 1) - s(x, y0);
        let w = (fc(x0 + 1, y) - fc(x0, y)).abs() + (fc(x, y0 + 1) - fc(x, y0)).abs();
        let want = f64::from(dx) * 1000.0 + f64::from(dy) + f64::from(w);
        close(f32::from_bits(word(&f, l, 0)), want, &format!("lane {l}"));
    }
}

#[test]
fn interpolate_at_offset_evaluates_the_planes_there() {
    let fs = r#"#version 450
layout(location = 0) noperspective in float v;
layout(location = 1) in float p;
layout(location = 0) out float o;
void main() {
    o = interpolateAtOffset(v, vec2(0.25, -0.375)) * 1000.0
        + interpolateAtOffset(p, vec2(-0.5, 0.4375));
}
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Float, 1)).expect("compile"),
        1,
    );
    for l in (0..32).filter(|&l| coverage(l) != 0) {
        let [x, y] = pixel(l);
        let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        let v = eval(V, cx + 0.25, cy - 0.375);
        let (px, py) = (cx - 0.5, cy + 0.4375);
        let p = eval(P_OVER_W, px, py) / eval(INV_W, px, py);
        close(
            f32::from_bits(word(&f, l, 0)),
            v * 1000.0 + p,
            &format!("lane {l}"),
        );
    }
}

#[test]
fn interpolate_at_sample_and_centroid_use_those_points() {
    let fs = r#"#version 450
layout(location = 0) noperspective in float v;
layout(location = 0) out float o;
void main() {
    o = interpolateAtSample(v, 2) * 1000.0 + interpolateAtCentroid(v);
}
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Float, 4)).expect("compile"),
        4,
    );
    for l in (0..32).filter(|&l| coverage(l) != 0) {
        let [x, y] = pixel(l);
        let at = |[ox, oy]: [f32; 2]| {
            eval(
                V,
                f64::from(x) + f64::from(ox),
                f64::from(y) + f64::from(oy),
            )
        };
        let c = coverage(l);
        let centroid = if c == 0xf {
            [0.5, 0.5]
        } else {
            POSITIONS[c.trailing_zeros() as usize]
        };
        let want = at(POSITIONS[2]) * 1000.0 + at(centroid);
        for s in (0..4).filter(|s| c & (1 << s) != 0) {
            close(f32::from_bits(word(&f, l, s)), want, &format!("lane {l}"));
        }
    }
}

#[test]
fn sample_mask_output_drops_samples_and_input_reads_coverage() {
    let fs = r#"#version 450
layout(location = 0) out uint o;
void main() {
    o = uint(gl_SampleMaskIn[0]) + 100u;
    gl_SampleMask[0] = 0x5;
}
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Uint, 4)).expect("compile"),
        4,
    );
    for l in 0..32 {
        let c = coverage(l);
        assert_eq!(f.coverage[l], c & 0x5, "lane {l}");
        for s in 0..4 {
            let want = if c & 0x5 & (1 << s) != 0 {
                u32::from(c) + 100
            } else {
                0
            };
            assert_eq!(word(&f, l, s), want, "lane {l} sample {s}");
        }
    }
}

/// Non-constant indices into an input array and vector: every element is read (or
/// interpolated) and the index picks one.
#[test]
fn inputs_indexed_dynamically() {
    let fs = r#"#version 450
layout(location = 0) noperspective in vec2 arr[2];
layout(location = 0) out float o;
void main() {
    int i = int(gl_FragCoord.x) & 1;
    o = interpolateAtOffset(arr[i].y, vec2(0.25, 0.125)) * 1000.0 + arr[1 - i][i];
}
"#;
    // Location l component k is slot 2 + 2l + k: the plane (k + 1) x + (l + 1) y + 4l + k.
    let plane = |l: u32, k: u32| Plane {
        a: (k + 1) as f32,
        b: (l + 1) as f32,
        c: (4 * l + k) as f32,
    };
    let mut planes = vec![INV_W, Plane::default()];
    for (l, k) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        planes.push(plane(l, k));
    }
    let code = fragment_code(fs, &state(Numeric::Float, 1)).expect("compile");
    let f = run_with(&code, 1, planes);
    for l in (0..32).filter(|&l| coverage(l) != 0) {
        let [x, y] = pixel(l);
        let i = x & 1;
        let (cx, cy) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        let want =
            eval(plane(i, 1), cx + 0.25, cy + 0.125) * 1000.0 + eval(plane(1 - i, i), cx, cy);
        close(f32::from_bits(word(&f, l, 0)), want, &format!("lane {l}"));
    }
}

/// In a per-sample shader interpolateAtCentroid gives what a centroid input gets there: the
/// value at the sample being shaded.
#[test]
fn centroid_of_a_per_sample_shader_is_its_sample() {
    let fs = r#"#version 450
layout(location = 0) noperspective sample in float v;
layout(location = 0) out float o;
void main() { o = interpolateAtCentroid(v) - v + 5.0; }
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Float, 4)).expect("compile"),
        4,
    );
    for l in 0..32 {
        for s in (0..4).filter(|s| coverage(l) & (1 << s) != 0) {
            assert_eq!(f32::from_bits(word(&f, l, s)), 5.0, "lane {l} sample {s}");
        }
    }
}

/// Demoted invocations write nothing but keep feeding their quad's derivatives;
/// gl_HelperInvocation is true in the quad's helper lanes, helperInvocationEXT() after a
/// demote.
#[test]
fn demote_and_helper_invocation() {
    let fs = r#"#version 450
#extension GL_EXT_demote_to_helper_invocation : enable
layout(location = 0) noperspective in float v;
layout(location = 0) out float o;
void main() {
    float h = gl_HelperInvocation ? 1.0 : 0.0;
    float s = v * v;
    if ((int(gl_FragCoord.x) & 1) == 1 && (int(gl_FragCoord.y) & 1) == 1) demote;
    bool demoted = helperInvocationEXT();
    o = dFdx(s) + dFdy(h) * 1000.0 + (demoted ? 5e5 : 0.0);
}
"#;
    let f = run(
        &fragment_code(fs, &state(Numeric::Float, 1)).expect("compile"),
        1,
    );
    let s = |x: u32, y: u32| {
        let v = eval(V, f64::from(x) + 0.5, f64::from(y) + 0.5) as f32;
        v * v
    };
    let helper = |l: usize| coverage(l) == 0;
    for l in 0..32 {
        let [x, y] = pixel(l);
        if helper(l) || (x & 1 == 1 && y & 1 == 1) {
            assert_eq!(word(&f, l, 0), 0, "lane {l} is a helper or demoted");
            continue;
        }
        let x0 = x & !1;
        let dx = s(x0 + 1, y) - s(x0, y);
        let (top, bottom) = (l & !2, l | 2);
        let dy = f64::from(u8::from(helper(bottom))) - f64::from(u8::from(helper(top)));
        let want = f64::from(dx) + dy * 1000.0;
        close(f32::from_bits(word(&f, l, 0)), want, &format!("lane {l}"));
    }
}

#[test]
fn index_zero_outputs_compile_and_index_one_is_the_second_blend_source() {
    // Zink declares every fragment output with Index 0, which is what no decoration means.
    let index0 = r#"#version 450
layout(location = 0, index = 0) out float o;
void main() { o = 1.0; }
"#;
    let plain = state(Numeric::Float, 1);
    assert!(fragment_code(index0, &plain).is_ok());
    // Index 1 is SRC1 of target 0's blend: colour = src * src1.a + dst * (1 - src1.r).
    let index1 = r#"#version 450
layout(location = 0, index = 0) out float o;
layout(location = 0, index = 1) out vec4 o2;
void main() { o = 0.5; o2 = vec4(0.25, 7.0, 7.0, 0.75); }
"#;
    let mut blended = state(Numeric::Float, 1);
    blended.targets[0].blend = BlendAttachment {
        enable: true,
        src_color: BlendFactor::Src1Alpha,
        dst_color: BlendFactor::OneMinusSrc1Color,
        ..BlendAttachment::default()
    };
    let f = run_over(
        &fragment_code(index1, &blended).expect("compile"),
        2.0f32.to_bits(),
    );
    for l in (0..32).filter(|&l| coverage(l) != 0) {
        close(
            f32::from_bits(word(&f, l, 0)),
            0.5 * 0.75 + 2.0 * (1.0 - 0.25),
            &format!("lane {l}"),
        );
    }
    // Only target 0 has a second source.
    let index1_at_1 = r#"#version 450
layout(location = 0) out float o;
layout(location = 1, index = 1) out float o2;
void main() { o = 1.0; o2 = 0.5; }
"#;
    let err = fragment_code(index1_at_1, &plain).expect_err("Index 1 at Location 1");
    assert!(format!("{err}").contains("dual-source"), "{err}");
}
