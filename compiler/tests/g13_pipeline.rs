//! Graphics pipelines and tile programs through the public API (`compile_graphics_pipeline`,
//! `compile_background`), run on the USC model. Expected values are computed here on the
//! CPU from Vulkan's formulas (blend equation, logic ops, format encodings, vertex format
//! conversions), never taken from the compiler.

mod common;

use common::glslang_stage;
use compiler::abi;
use compiler::g13::{PRELOAD_INSTANCE_NUMBER, PRELOAD_VERTEX_INDEX};
use compiler::ir::Stage;
use compiler::*;
use hw::g13::tilebuffer::{ColourFormat, Numeric, TibFormat};
use sim_gpu::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Preload, Program,
    VertexContext,
};

const TILE: [u32; 2] = [8, 4];
const ORIGIN: [u32; 2] = [32, 8];

/// glslang's helper names its temporary directory after the source, so tests compiling the
/// same shader at once would share it: compile one at a time.
fn spirv(src: &str, ext: &str) -> Vec<u32> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    glslang_stage(src, ext).expect("glslang")
}

const PLAIN_VS: &str = r#"#version 450
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }
"#;

fn pipeline(
    vs: &str,
    fs: Option<&str>,
    input: &VertexInputLayout,
    state: &FragmentState,
) -> Result<GraphicsPipelineBinary, CompileError> {
    pipeline_in(vs, fs, input, state, ResourceLayout::default())
}

/// [`pipeline`] with resource layout `res` (its robustness applies to vertex fetch too).
fn pipeline_in(
    vs: &str,
    fs: Option<&str>,
    input: &VertexInputLayout,
    state: &FragmentState,
    res: ResourceLayout,
) -> Result<GraphicsPipelineBinary, CompileError> {
    let vw = spirv(vs, "vert");
    let fw = fs.map(|f| spirv(f, "frag"));
    let req = |words: &'static [u32], stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: Box::leak(Box::new(res.clone())),
        target: Target::G13,
    };
    let vw: &'static [u32] = Box::leak(vw.into_boxed_slice());
    let fw: Option<&'static [u32]> = fw.map(|f| &*Box::leak(f.into_boxed_slice()));
    compile_graphics_pipeline(&GraphicsPipelineRequest {
        vertex: req(vw, Stage::Vertex),
        fragment: fw.map(|f| req(f, Stage::Fragment)),
        vertex_input: input,
        fragment_state: state,
        geometry: None,
    })
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

/// Runs a stage binary as its launch would: its preamble first, when it has one, whose
/// uniform file the main shader then starts from.
fn run_stage(
    stage: &compiler::StageBinary,
    l: &LaunchState,
    mem: &mut FlatMemory,
    gfx: &mut GraphicsContext,
) {
    let mut l = l.clone();
    if let Some(p) = stage.preamble {
        let pre = program(&stage.code[p.offset as usize..]);
        let (uniforms, _) = sim_gpu::usc::run_preshader(&pre, &l, mem).expect("preamble");
        l.uniforms = uniforms;
    }
    run_graphics(&program(stage.main_code()), &l, mem, gfx).expect("run");
}

/// One vec4 of f32 at location 0, per vertex, from binding 0.
fn vec4_at_location_0() -> VertexInputLayout {
    VertexInputLayout {
        attributes: vec![VertexAttribute {
            location: 0,
            binding: 0,
            format: VertexFormat::Plain {
                comp: AttribComponent::F32,
                count: 4,
                bgra: false,
            },
            offset: 0,
        }],
        bindings: vec![VertexBindingDesc {
            binding: 0,
            per_instance: false,
            divisor: 1,
        }],
    }
}

/// One RGBA8 UNORM colour target at location 0, blended as `blend`, one sample.
fn rgba8_unorm_state(blend: BlendAttachment) -> FragmentState {
    FragmentState {
        targets: vec![colour_target(0, rgba8(Numeric::Unorm), 0, blend)],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 4,
    }
}

fn decode_all(code: &[u8]) -> Vec<hw::isa::Instr> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let (i, len) = hw::g13::decode(&code[at..]).expect("decode");
        out.push(i);
        at += len;
    }
    out
}

fn launch(lanes: u32, uniform_halves: u32, root: &[(u32, u32)]) -> LaunchState {
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    l.uniforms = vec![0; uniform_halves.max(2) as usize];
    for &(offset, word) in root {
        let h = (offset / 2) as usize;
        l.uniforms[h] = word as u16;
        l.uniforms[h + 1] = (word >> 16) as u16;
    }
    l
}

fn fragment_ctx(samples: u32, bytes: u32, fill: impl Fn(usize) -> u8) -> GraphicsContext {
    let mut f = FragmentContext::new(TILE, samples, bytes);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    for (i, b) in f.tilebuffer.iter_mut().enumerate() {
        *b = fill(i);
    }
    GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    }
}

/// The bytes of (lane, sample).
fn record(f: &FragmentContext, lane: usize, sample: usize) -> &[u8] {
    let n = f.bytes_per_sample as usize;
    let at = (lane * f.samples as usize + sample) * n;
    &f.tilebuffer[at..at + n]
}

fn hash(i: usize) -> u8 {
    ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8
}

fn rgba8(numeric: Numeric) -> ColourFormat {
    ColourFormat::Plain {
        channels: 4,
        bits: 8,
        numeric,
    }
}

fn colour_target(
    location: u32,
    format: ColourFormat,
    offset: u16,
    blend: BlendAttachment,
) -> ColourTarget {
    ColourTarget {
        location,
        format,
        tib_format: format.tib_format().expect("renderable"),
        offset,
        blend,
        spilled: false,
    }
}

// ---- CPU reference encodings -------------------------------------------------------------

fn unorm(x: f64, bits: u32) -> u32 {
    let m = f64::from((1u32 << bits) - 1);
    (x.clamp(0.0, 1.0) * m).round_ties_even() as u32
}

fn snorm(x: f64, bits: u32) -> i32 {
    let m = f64::from((1u32 << (bits - 1)) - 1);
    (x.clamp(-1.0, 1.0) * m).round_ties_even() as i32
}

fn srgb_encode(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    if x <= 0.003_130_8 {
        x * 12.92
    } else {
        1.055 * x.powf(1.0 / 2.4) - 0.055
    }
}

fn f16_to_f64(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 31);
    let m = f64::from(h & 0x3ff);
    match e {
        0 => s * m * 2f64.powi(-24),
        31 => s * f64::INFINITY,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

// ---- Clears into each tilebuffer format ---------------------------------------------------

struct ClearCase {
    format: ColourFormat,
    value: [u32; 4],
    /// Expected bytes and per-byte tolerance.
    want: Vec<u8>,
    tolerance: u8,
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn clear_cases() -> Vec<ClearCase> {
    let plain = |channels, bits, numeric| ColourFormat::Plain {
        channels,
        bits,
        numeric,
    };
    let le16 = |v: &[u16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let le32 = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        ClearCase {
            format: rgba8(Numeric::Unorm),
            value: [f(0.2), f(0.5), f(1.3), f(-0.1)],
            want: vec![unorm(0.2f32.into(), 8) as u8, unorm(0.5, 8) as u8, 255, 0],
            tolerance: 0,
        },
        ClearCase {
            format: rgba8(Numeric::Snorm),
            value: [f(0.5), f(-0.5), f(-1.2), f(1.0)],
            want: [0.5, -0.5, -1.2, 1.0]
                .iter()
                .map(|&x| snorm(f64::from(x as f32), 8) as u8)
                .collect(),
            tolerance: 0,
        },
        ClearCase {
            format: rgba8(Numeric::Srgb),
            value: [f(0.5), f(0.0), f(1.0), f(0.5)],
            want: vec![
                unorm(srgb_encode(0.5), 8) as u8,
                0,
                255,
                unorm(0.5, 8) as u8,
            ],
            tolerance: 1,
        },
        ClearCase {
            format: rgba8(Numeric::Uint),
            value: [5, 300, 0xffff_ffff, 7],
            want: vec![5, 44, 255, 7],
            tolerance: 0,
        },
        ClearCase {
            format: plain(2, 16, Numeric::Unorm),
            value: [f(0.25), f(2.0), 0, 0],
            want: le16(&[unorm(0.25, 16) as u16, 65535]),
            tolerance: 0,
        },
        ClearCase {
            format: plain(2, 16, Numeric::Snorm),
            value: [f(-0.25), f(0.75), 0, 0],
            want: le16(&[snorm(-0.25, 16) as u16, snorm(0.75, 16) as u16]),
            tolerance: 0,
        },
        ClearCase {
            format: plain(2, 16, Numeric::Sint),
            value: [(-2i32) as u32, 40000, 0, 0],
            want: le16(&[0xfffe, 40000]),
            tolerance: 0,
        },
        ClearCase {
            format: plain(4, 16, Numeric::Float),
            value: [f(1.5), f(-2.25), f(65504.0), f(0.1)],
            want: le16(&[0x3e00, 0xc080, 0x7bff, 0x2e66]),
            tolerance: 0,
        },
        ClearCase {
            format: ColourFormat::R5G6B5Unorm,
            value: [f(0.5), f(2.0), f(-1.0), 0],
            want: le16(&[0x3800, 0x3c00, 0x0000]),
            tolerance: 0,
        },
        ClearCase {
            format: plain(2, 32, Numeric::Float),
            value: [f(3.25), f(-0.0), 0, 0],
            want: le32(&[f(3.25), f(-0.0)]),
            tolerance: 0,
        },
        ClearCase {
            format: ColourFormat::Rgb10A2Unorm,
            value: [f(1.0), f(0.5), f(0.0), f(0.67)],
            want: le32(&[1023 | unorm(0.5, 10) << 10 | unorm(0.67, 2) << 30]),
            tolerance: 0,
        },
        ClearCase {
            format: ColourFormat::Rg11B10Float,
            value: [f(1.0), f(0.5), f(2.0), 0],
            want: le32(&[(15 << 6) | (14 << 6) << 11 | (16 << 5) << 22]),
            tolerance: 0,
        },
        ClearCase {
            format: ColourFormat::Rgb9E5Float,
            value: [f(1.0), f(0.5), f(0.25), 0],
            want: le32(&[256 | 128 << 9 | 64 << 18 | 16 << 27]),
            tolerance: 0,
        },
        ClearCase {
            format: ColourFormat::Rgb10A2Uint,
            value: [1000, 7, 3, 2],
            want: le16(&[1000, 7, 3, 2]),
            tolerance: 0,
        },
    ]
}

#[test]
fn clears_write_every_tilebuffer_format() {
    let cases = clear_cases();
    // All targets in one sample, each at an offset aligned for its unit.
    let mut offset = 0u16;
    let mut targets = Vec::new();
    for c in &cases {
        let tib = c.format.tib_format().expect("renderable");
        let align = tib.unit_bytes() as u16;
        offset = offset.div_ceil(align.max(4)) * align.max(4);
        targets.push((
            TileTarget {
                format: c.format,
                tib_format: tib,
                offset,
            },
            TileLoad::Clear,
        ));
        offset += c.want.len() as u16;
    }
    let bytes = u32::from(offset.div_ceil(4) * 4);
    let req = TileProgramRequest {
        targets: targets.clone(),
        samples: 1,
        sample_size_bytes: bytes,
    };
    let p = compile_background(&req).expect("background");
    assert_eq!(p.uniform_halves, 8 * cases.len() as u32);
    let mut root = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        for k in 0..4 {
            root.push((16 * i as u32 + 4 * k as u32, c.value[k]));
        }
    }
    let l = launch(32, p.uniform_halves, &root);
    let mut gfx = fragment_ctx(1, bytes, |_| 0xcd);
    run_graphics(&program(&p.code), &l, &mut FlatMemory::new(), &mut gfx).expect("run");
    let fc = gfx.fragment.unwrap();
    for lane in 0..32 {
        let r = record(&fc, lane, 0);
        for (c, (t, _)) in cases.iter().zip(&targets) {
            let got = &r[usize::from(t.offset)..][..c.want.len()];
            for (k, (&g, &w)) in got.iter().zip(&c.want).enumerate() {
                assert!(
                    g.abs_diff(w) <= c.tolerance,
                    "{:?} byte {k}: got {got:?} want {:?}",
                    c.format,
                    c.want
                );
            }
        }
    }
}

#[test]
fn dont_care_leaves_the_tilebuffer_and_bad_layouts_are_refused() {
    let t = TileTarget {
        format: rgba8(Numeric::Unorm),
        tib_format: TibFormat::U8Norm,
        offset: 0,
    };
    let p = compile_background(&TileProgramRequest {
        targets: vec![(t, TileLoad::DontCare)],
        samples: 1,
        sample_size_bytes: 4,
    })
    .expect("background");
    let l = launch(32, p.uniform_halves, &[]);
    let mut gfx = fragment_ctx(1, 4, hash);
    run_graphics(&program(&p.code), &l, &mut FlatMemory::new(), &mut gfx).expect("run");
    let fc = gfx.fragment.unwrap();
    assert!(fc.tilebuffer.iter().enumerate().all(|(i, &b)| b == hash(i)));
    let e = compile_background(&TileProgramRequest {
        targets: vec![(t, TileLoad::Clear)],
        samples: 1,
        sample_size_bytes: 2,
    });
    assert!(e.is_err());
    let e = compile_end_of_tile(&TileProgramRequest {
        targets: vec![(t, TileStore::Store { texture: 0 })],
        samples: 3,
        sample_size_bytes: 4,
    });
    assert!(e.is_err());
}

#[test]
fn load_and_store_programs_compile_for_every_format() {
    for c in clear_cases() {
        for samples in [1, 4] {
            let t = TileTarget {
                format: c.format,
                tib_format: c.format.tib_format().unwrap(),
                offset: 4,
            };
            let bg = compile_background(&TileProgramRequest {
                targets: vec![(t, TileLoad::Load { texture: 2 })],
                samples,
                sample_size_bytes: 24,
            })
            .unwrap_or_else(|e| panic!("{:?}: {e}", c.format));
            let eot = compile_end_of_tile(&TileProgramRequest {
                targets: vec![(t, TileStore::Store { texture: 1 })],
                samples,
                sample_size_bytes: 24,
            })
            .unwrap_or_else(|e| panic!("{:?}: {e}", c.format));
            let count = |code: &[u8], want: fn(&hw::isa::Instr) -> bool| {
                decode_all(code).iter().filter(|i| want(i)).count()
            };
            assert_eq!(
                count(
                    &bg.code,
                    |i| matches!(i, hw::isa::Instr::Texture(t) if t.load)
                ),
                samples as usize
            );
            // One block store for the whole tile, all samples included; per-pixel image
            // writes for the formats without a block store code.
            let blocks = count(&eot.code, |i| {
                matches!(i, hw::isa::Instr::BlockImageStore(_))
            });
            let writes = count(&eot.code, |i| matches!(i, hw::isa::Instr::ImageWrite(_)));
            let per_pixel = matches!(t.tib_format, TibFormat::Rg11B10F | TibFormat::Rgb9E5);
            let want = if per_pixel {
                (0, samples as usize)
            } else {
                (1, 0)
            };
            assert_eq!((blocks, writes), want, "{:?}", c.format);
        }
    }
}

// ---- Blending ----------------------------------------------------------------------------

const GRADIENT_FS: &str = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    vec2 p = gl_FragCoord.xy;
    o = vec4(fract(p.x * 0.131), fract(p.y * 0.173), fract((p.x + p.y) * 0.071),
             fract(p.x * p.y * 0.013));
}
"#;

/// What GRADIENT_FS writes at pixel (px, py).
fn gradient(px: u32, py: u32) -> [f64; 4] {
    let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
    let fr = |v: f32| f64::from(v - v.floor());
    [
        fr(x * 0.131),
        fr(y * 0.173),
        fr((x + y) * 0.071),
        fr(x * y * 0.013),
    ]
}

fn factor(fct: BlendFactor, k: usize, s: &[f64; 4], d: &[f64; 4], c: &[f64; 4]) -> f64 {
    use BlendFactor::*;
    match fct {
        Zero => 0.0,
        One => 1.0,
        SrcColor => s[k],
        OneMinusSrcColor => 1.0 - s[k],
        DstColor => d[k],
        OneMinusDstColor => 1.0 - d[k],
        SrcAlpha => s[3],
        OneMinusSrcAlpha => 1.0 - s[3],
        DstAlpha => d[3],
        OneMinusDstAlpha => 1.0 - d[3],
        ConstantColor => c[k],
        OneMinusConstantColor => 1.0 - c[k],
        ConstantAlpha => c[3],
        OneMinusConstantAlpha => 1.0 - c[3],
        SrcAlphaSaturate if k == 3 => 1.0,
        SrcAlphaSaturate => s[3].min(1.0 - d[3]),
        // These shaders write no Index 1 output: the second source reads 0.
        Src1Color | Src1Alpha => 0.0,
        OneMinusSrc1Color | OneMinusSrc1Alpha => 1.0,
    }
}

fn blend_ref(b: &BlendAttachment, s: [f64; 4], d: [f64; 4], c: [f64; 4]) -> [f64; 4] {
    std::array::from_fn(|k| {
        let (sf, df, op) = if k == 3 {
            (b.src_alpha, b.dst_alpha, b.alpha_op)
        } else {
            (b.src_color, b.dst_color, b.color_op)
        };
        let (x, y) = (
            s[k] * factor(sf, k, &s, &d, &c),
            d[k] * factor(df, k, &s, &d, &c),
        );
        match op {
            BlendOp::Add => x + y,
            BlendOp::Subtract => x - y,
            BlendOp::ReverseSubtract => y - x,
            BlendOp::Min => s[k].min(d[k]),
            BlendOp::Max => s[k].max(d[k]),
        }
    })
}

const CONSTANTS: [f32; 4] = [0.25, 0.8, 1.5, 0.4];

fn constant_root() -> Vec<(u32, u32)> {
    (0..4)
        .map(|k| {
            (
                abi::BLEND_CONSTANTS_OFFSET + 4 * k,
                CONSTANTS[k as usize].to_bits(),
            )
        })
        .collect()
}

/// Runs GRADIENT_FS blending into an RGBA8 unorm target over random destination bytes and
/// checks every sample against the CPU blend.
fn check_unorm8_blend(b: BlendAttachment, samples: u32) {
    let state = FragmentState {
        targets: vec![colour_target(0, rgba8(Numeric::Unorm), 4, b)],
        inputs: Vec::new(),
        logic_op: None,
        samples,
        sample_size_bytes: 8,
    };
    let bin = pipeline(
        PLAIN_VS,
        Some(GRADIENT_FS),
        &VertexInputLayout::default(),
        &state,
    )
    .expect("pipeline");
    let fsb = bin.fragment.expect("fragment");
    let l = launch(32, fsb.uniform_halves, &constant_root());
    let mut gfx = fragment_ctx(samples, 8, hash);
    run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
    let fc = gfx.fragment.unwrap();
    // Constants are clamped for a unorm target.
    let c = CONSTANTS.map(|x| f64::from(x).clamp(0.0, 1.0));
    for lane in 0..32 {
        let [px, py] = fc.lane_pixels[lane];
        let s = gradient(px, py);
        for smp in 0..samples as usize {
            let base = (lane * samples as usize + smp) * 8;
            let before: Vec<u8> = (0..8).map(|i| hash(base + i)).collect();
            let d: [f64; 4] = std::array::from_fn(|k| f64::from(before[4 + k]) / 255.0);
            let want = blend_ref(&b, s, d, c);
            let got = record(&fc, lane, smp);
            assert_eq!(&got[..4], &before[..4], "bytes outside the target changed");
            for k in 0..4 {
                let w = if b.write_mask & (1 << k) != 0 {
                    unorm(want[k], 8) as u8
                } else {
                    before[4 + k]
                };
                assert!(
                    got[4 + k].abs_diff(w) <= 1,
                    "{b:?} lane {lane} sample {smp} channel {k}: got {} want {w} (src {s:?} dst {d:?})",
                    got[4 + k]
                );
            }
        }
    }
}

const FACTORS: [BlendFactor; 15] = [
    BlendFactor::Zero,
    BlendFactor::One,
    BlendFactor::SrcColor,
    BlendFactor::OneMinusSrcColor,
    BlendFactor::DstColor,
    BlendFactor::OneMinusDstColor,
    BlendFactor::SrcAlpha,
    BlendFactor::OneMinusSrcAlpha,
    BlendFactor::DstAlpha,
    BlendFactor::OneMinusDstAlpha,
    BlendFactor::ConstantColor,
    BlendFactor::OneMinusConstantColor,
    BlendFactor::ConstantAlpha,
    BlendFactor::OneMinusConstantAlpha,
    BlendFactor::SrcAlphaSaturate,
];

#[test]
fn every_blend_factor_as_source_and_destination() {
    for (i, &fct) in FACTORS.iter().enumerate() {
        let other = FACTORS[(i * 7 + 3) % FACTORS.len()];
        check_unorm8_blend(
            BlendAttachment {
                enable: true,
                src_color: fct,
                dst_color: other,
                color_op: BlendOp::Add,
                src_alpha: other,
                dst_alpha: fct,
                alpha_op: BlendOp::Add,
                write_mask: 0xf,
            },
            1,
        );
    }
}

#[test]
fn every_blend_op() {
    for op in [
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::ReverseSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ] {
        check_unorm8_blend(
            BlendAttachment {
                enable: true,
                src_color: BlendFactor::SrcAlpha,
                dst_color: BlendFactor::OneMinusSrcAlpha,
                color_op: op,
                src_alpha: BlendFactor::One,
                dst_alpha: BlendFactor::DstColor,
                alpha_op: op,
                write_mask: 0xf,
            },
            1,
        );
    }
}

#[test]
fn blending_with_write_mask_and_msaa() {
    let b = BlendAttachment {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        alpha_op: BlendOp::Add,
        write_mask: 0b1011,
    };
    check_unorm8_blend(b, 4);
    check_unorm8_blend(
        BlendAttachment {
            write_mask: 0b0101,
            ..BlendAttachment::default()
        },
        1,
    );
}

#[test]
fn float_target_blends_without_clamping() {
    let b = BlendAttachment {
        enable: true,
        src_color: BlendFactor::ConstantColor,
        dst_color: BlendFactor::One,
        color_op: BlendOp::Subtract,
        src_alpha: BlendFactor::SrcAlpha,
        dst_alpha: BlendFactor::DstAlpha,
        alpha_op: BlendOp::Add,
        write_mask: 0xf,
    };
    let fmt = ColourFormat::Plain {
        channels: 4,
        bits: 16,
        numeric: Numeric::Float,
    };
    let state = FragmentState {
        targets: vec![colour_target(0, fmt, 0, b)],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 8,
    };
    let bin = pipeline(
        PLAIN_VS,
        Some(GRADIENT_FS),
        &VertexInputLayout::default(),
        &state,
    )
    .expect("pipeline");
    let fsb = bin.fragment.unwrap();
    let l = launch(32, fsb.uniform_halves, &constant_root());
    // Destination: finite halves (exponent never 31).
    let dst_half = |i: usize| hash(i) & 0xbf;
    let mut gfx = fragment_ctx(1, 8, dst_half);
    run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
    let fc = gfx.fragment.unwrap();
    let c = CONSTANTS.map(f64::from);
    for lane in 0..32 {
        let [px, py] = fc.lane_pixels[lane];
        let s = gradient(px, py);
        let d: [f64; 4] = std::array::from_fn(|k| {
            let i = lane * 8 + 2 * k;
            f16_to_f64(u16::from_le_bytes([dst_half(i), dst_half(i + 1)]))
        });
        let want = blend_ref(&b, s, d, c);
        let got = record(&fc, lane, 0);
        for k in 0..4 {
            let g = f16_to_f64(u16::from_le_bytes([got[2 * k], got[2 * k + 1]]));
            assert!(
                (g - want[k]).abs() <= 2e-3 * want[k].abs().max(1.0),
                "lane {lane} channel {k}: got {g} want {}",
                want[k]
            );
        }
    }
}

// ---- Logic ops ---------------------------------------------------------------------------

const INT_FS: &str = r#"#version 450
layout(location = 0) out uvec4 o;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    o = uvec4(p.x * 37u + p.y, p.y * 91u, (p.x ^ p.y) * 13u, p.x * p.y);
}
"#;

fn logic_ref(op: LogicOp, s: u8, d: u8) -> u8 {
    use LogicOp::*;
    match op {
        Clear => 0,
        And => s & d,
        AndReverse => s & !d,
        Copy => s,
        AndInverted => !s & d,
        NoOp => d,
        Xor => s ^ d,
        Or => s | d,
        Nor => !(s | d),
        Equivalent => !(s ^ d),
        Invert => !d,
        OrReverse => s | !d,
        CopyInverted => !s,
        OrInverted => !s | d,
        Nand => !(s & d),
        Set => 0xff,
    }
}

const LOGIC_OPS: [LogicOp; 16] = [
    LogicOp::Clear,
    LogicOp::And,
    LogicOp::AndReverse,
    LogicOp::Copy,
    LogicOp::AndInverted,
    LogicOp::NoOp,
    LogicOp::Xor,
    LogicOp::Or,
    LogicOp::Nor,
    LogicOp::Equivalent,
    LogicOp::Invert,
    LogicOp::OrReverse,
    LogicOp::CopyInverted,
    LogicOp::OrInverted,
    LogicOp::Nand,
    LogicOp::Set,
];

#[test]
fn every_logic_op_on_uint8() {
    for op in LOGIC_OPS {
        let mask = 0b1101;
        let state = FragmentState {
            targets: vec![colour_target(
                0,
                rgba8(Numeric::Uint),
                0,
                BlendAttachment {
                    write_mask: mask,
                    ..BlendAttachment::default()
                },
            )],
            inputs: Vec::new(),
            logic_op: Some(op),
            samples: 1,
            sample_size_bytes: 4,
        };
        let bin = pipeline(
            PLAIN_VS,
            Some(INT_FS),
            &VertexInputLayout::default(),
            &state,
        )
        .expect("pipeline");
        let fsb = bin.fragment.unwrap();
        let l = launch(32, fsb.uniform_halves, &[]);
        let mut gfx = fragment_ctx(1, 4, hash);
        run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
        let fc = gfx.fragment.unwrap();
        for lane in 0..32 {
            let [x, y] = fc.lane_pixels[lane];
            let s = [x * 37 + y, y * 91, (x ^ y) * 13, x * y].map(|v| v as u8);
            let got = record(&fc, lane, 0);
            for k in 0..4 {
                let d = hash(lane * 4 + k);
                let want = if mask & (1 << k) != 0 {
                    logic_ref(op, s[k], d)
                } else {
                    d
                };
                assert_eq!(got[k], want, "{op:?} lane {lane} channel {k}");
            }
        }
    }
}

#[test]
fn logic_op_on_unorm_and_passthrough_on_float() {
    let fs = r#"#version 450
layout(location = 0) out vec4 o;
layout(location = 1) out vec4 f;
void main() { o = vec4(1.0, 0.0, 0.2, 0.6); f = vec4(0.5, 0.25, 2.0, -1.0); }
"#;
    let ffmt = ColourFormat::Plain {
        channels: 4,
        bits: 32,
        numeric: Numeric::Float,
    };
    let state = FragmentState {
        targets: vec![
            colour_target(0, rgba8(Numeric::Unorm), 0, BlendAttachment::default()),
            colour_target(1, ffmt, 4, BlendAttachment::default()),
        ],
        inputs: Vec::new(),
        logic_op: Some(LogicOp::Xor),
        samples: 1,
        sample_size_bytes: 20,
    };
    let bin =
        pipeline(PLAIN_VS, Some(fs), &VertexInputLayout::default(), &state).expect("pipeline");
    let fsb = bin.fragment.unwrap();
    let l = launch(32, fsb.uniform_halves, &[]);
    let mut gfx = fragment_ctx(1, 20, hash);
    run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
    let fc = gfx.fragment.unwrap();
    let s = [
        255u8,
        0,
        unorm(0.2f32.into(), 8) as u8,
        unorm(0.6f32.into(), 8) as u8,
    ];
    for lane in 0..32 {
        let got = record(&fc, lane, 0);
        for k in 0..4 {
            assert_eq!(
                got[k],
                s[k] ^ hash(lane * 20 + k),
                "lane {lane} channel {k}"
            );
        }
        let fl: Vec<f32> = (0..4)
            .map(|k| f32::from_le_bytes(got[4 + 4 * k..8 + 4 * k].try_into().unwrap()))
            .collect();
        assert_eq!(fl, vec![0.5, 0.25, 2.0, -1.0]);
    }
}

/// The half float nearest to `x` in 0..=1 (a search: the test wants no encoder of its own to
/// share mistakes with the compiler's).
fn nearest_f16(x: f64) -> u16 {
    (0u16..=0x3c00)
        .min_by(|&a, &b| {
            (f16_to_f64(a) - x)
                .abs()
                .total_cmp(&(f16_to_f64(b) - x).abs())
        })
        .unwrap_or(0)
}

#[test]
fn logic_ops_on_half_float_packed_unorm_use_the_format_bits() {
    // R5G6B5 and R5G5B5A1 live in the tilebuffer as half floats; a logic op must see the
    // 5/6/1-bit codes the stored format holds, and keep the result within them.
    let fs = r#"#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(21.0 / 31.0, 1.0, 6.0 / 31.0, 1.0); }
"#;
    let cases = [
        (ColourFormat::R5G6B5Unorm, [5u32, 6, 5, 0]),
        (ColourFormat::R5G5B5A1Unorm, [5, 5, 5, 1]),
    ];
    for (format, bits) in cases {
        for op in [LogicOp::Xor, LogicOp::Invert, LogicOp::Or] {
            let n = bits.iter().filter(|&&b| b != 0).count();
            let size = 8;
            let dst_code =
                |lane: usize, k: usize| u32::from(hash(lane * 4 + k)) & ((1 << bits[k]) - 1);
            let halves: Vec<Vec<u16>> = bits
                .iter()
                .map(|&b| {
                    let max = f64::from((1u32 << b) - 1);
                    (0..1u32 << b)
                        .map(|c| nearest_f16(f64::from(c) / max))
                        .collect()
                })
                .collect();
            let fill = |i: usize| {
                let (lane, byte) = (i / size, i % size);
                let k = byte / 2;
                if k >= n {
                    return 0;
                }
                halves[k][dst_code(lane, k) as usize].to_le_bytes()[byte % 2]
            };
            let state = FragmentState {
                targets: vec![colour_target(0, format, 0, BlendAttachment::default())],
                inputs: Vec::new(),
                logic_op: Some(op),
                samples: 1,
                sample_size_bytes: size as u32,
            };
            let bin = pipeline(PLAIN_VS, Some(fs), &VertexInputLayout::default(), &state)
                .expect("pipeline");
            let fsb = bin.fragment.unwrap();
            let l = launch(32, fsb.uniform_halves, &[]);
            let mut gfx = fragment_ctx(1, size as u32, fill);
            run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
            let fc = gfx.fragment.unwrap();
            let src = [21u32, (1 << bits[1]) - 1, 6, 1];
            for lane in 0..32 {
                let got = record(&fc, lane, 0);
                for k in 0..n {
                    let max = (1u32 << bits[k]) - 1;
                    let s8 = |v: u32| v as u8;
                    let want =
                        u32::from(logic_ref(op, s8(src[k] & max), s8(dst_code(lane, k)))) & max;
                    let h = u16::from_le_bytes([got[2 * k], got[2 * k + 1]]);
                    let code = f16_to_f64(h) * f64::from(max);
                    assert!(
                        // Within half a half-float step of k / max: 2^-12 * 63 codes at most.
                        (code - f64::from(want)).abs() < 0.02,
                        "{format:?} {op:?} lane {lane} channel {k}: {code} want {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn packed_target_write_mask_keeps_other_channels() {
    let fs = r#"#version 450
layout(location = 0) out vec4 o;
void main() { o = vec4(1.0, 0.0, 1.0, 0.0); }
"#;
    let state = FragmentState {
        targets: vec![colour_target(
            0,
            ColourFormat::Rgb10A2Unorm,
            0,
            BlendAttachment {
                write_mask: 0b0011,
                ..BlendAttachment::default()
            },
        )],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 4,
    };
    let bin =
        pipeline(PLAIN_VS, Some(fs), &VertexInputLayout::default(), &state).expect("pipeline");
    let fsb = bin.fragment.unwrap();
    let l = launch(32, fsb.uniform_halves, &[]);
    let mut gfx = fragment_ctx(1, 4, hash);
    run_stage(&fsb, &l, &mut FlatMemory::new(), &mut gfx);
    let fc = gfx.fragment.unwrap();
    for lane in 0..32 {
        let before = u32::from_le_bytes(std::array::from_fn(|i| hash(lane * 4 + i)));
        let want = (before & 0xfff0_0000) | 1023;
        let got = u32::from_le_bytes(record(&fc, lane, 0).try_into().unwrap());
        assert_eq!(got, want, "lane {lane}");
    }
}

// ---- Vertex attributes -------------------------------------------------------------------

struct AttrCase {
    format: VertexFormat,
    /// GLSL type of the input (vec4, ivec4, uvec4).
    glsl: &'static str,
    /// Bytes of one element.
    bytes: fn(u32) -> Vec<u8>,
    /// Expected component bits for element `i`.
    want: fn(u32) -> [u32; 4],
}

fn fbits(v: [f64; 4]) -> [u32; 4] {
    v.map(|x| (x as f32).to_bits())
}

fn attr_cases() -> Vec<AttrCase> {
    use AttribComponent as C;
    let plain = |comp, count, bgra| VertexFormat::Plain { comp, count, bgra };
    vec![
        AttrCase {
            format: plain(C::F32, 3, false),
            glsl: "vec4",
            bytes: |i| {
                [i as f32 * 1.5, -(i as f32), 7.25]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            },
            want: |i| fbits([f64::from(i as f32 * 1.5), -f64::from(i), 7.25, 1.0]),
        },
        AttrCase {
            format: plain(C::F16, 4, false),
            glsl: "vec4",
            // 1.0 + i/1024, -2.0, 0.5, a subnormal
            bytes: |i| {
                [0x3c00 + i as u16, 0xc000, 0x3800, 0x0003]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            },
            want: |i| fbits([1.0 + f64::from(i) / 1024.0, -2.0, 0.5, 3.0 * 2f64.powi(-24)]),
        },
        AttrCase {
            format: plain(C::Unorm8, 4, true),
            glsl: "vec4",
            bytes: |i| vec![i as u8 * 10, 128, 255, 0],
            want: |i| fbits([1.0, 128.0 / 255.0, f64::from(i * 10) / 255.0, 0.0]),
        },
        AttrCase {
            format: plain(C::Snorm8, 2, false),
            glsl: "vec4",
            bytes: |i| vec![(i as i8).wrapping_mul(-9) as u8, 0x80],
            want: |i| {
                fbits([
                    f64::from((i as i8).wrapping_mul(-9)) / 127.0,
                    -1.0,
                    0.0,
                    1.0,
                ])
            },
        },
        AttrCase {
            format: plain(C::Uint16, 2, false),
            glsl: "uvec4",
            bytes: |i| {
                [60000u16, i as u16]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            },
            want: |i| [60000, i, 0, 1],
        },
        AttrCase {
            format: plain(C::Sint8, 4, false),
            glsl: "ivec4",
            bytes: |i| vec![0xff, i as u8, 0x80, 0x7f],
            want: |i| [u32::MAX, i, (-128i32) as u32, 127],
        },
        AttrCase {
            format: plain(C::Uscaled16, 1, false),
            glsl: "vec4",
            bytes: |i| (1000 + i as u16).to_le_bytes().to_vec(),
            want: |i| fbits([f64::from(1000 + i), 0.0, 0.0, 1.0]),
        },
        AttrCase {
            format: plain(C::Sscaled8, 3, false),
            glsl: "vec4",
            bytes: |i| vec![0xfe, i as u8, 3],
            want: |i| fbits([-2.0, f64::from(i), 3.0, 1.0]),
        },
        AttrCase {
            format: plain(C::Unorm16, 4, false),
            glsl: "vec4",
            bytes: |i| {
                [0u16, 65535, 32768, i as u16 * 100]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            },
            want: |i| fbits([0.0, 1.0, 32768.0 / 65535.0, f64::from(i * 100) / 65535.0]),
        },
        AttrCase {
            format: plain(C::Snorm16, 1, false),
            glsl: "vec4",
            bytes: |i| (-(i as i16) * 1000).to_le_bytes().to_vec(),
            want: |i| fbits([f64::from(-(i as i32) * 1000) / 32767.0, 0.0, 0.0, 1.0]),
        },
        AttrCase {
            format: plain(C::U32, 2, false),
            glsl: "uvec4",
            bytes: |i| {
                [0xdead_beefu32, i]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect()
            },
            want: |i| [0xdead_beef, i, 0, 1],
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Unorm,
                bgra: false,
            },
            glsl: "vec4",
            bytes: |i| {
                (1023 | (i << 10) | (512 << 20) | (2 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| fbits([1.0, f64::from(i) / 1023.0, 512.0 / 1023.0, 2.0 / 3.0]),
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Snorm,
                bgra: false,
            },
            glsl: "vec4",
            bytes: |i| {
                (0x200 | (i << 10) | (511 << 20) | (2 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| fbits([-1.0, f64::from(i) / 511.0, 1.0, -1.0]),
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Sint,
                bgra: false,
            },
            glsl: "ivec4",
            bytes: |i| {
                (0x3ff | (i << 10) | (5 << 20) | (1 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| [u32::MAX, i, 5, 1],
        },
    ]
}

/// The packed 10:10:10:2 formats beyond A2B10G10R10 UNORM/SNORM/SINT (kept apart: a
/// pipeline has at most 16 vertex buffers).
fn packed_attr_cases() -> Vec<AttrCase> {
    vec![
        // A2R10G10B10: blue in the low bits.
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Unorm,
                bgra: true,
            },
            glsl: "vec4",
            bytes: |i| {
                (1023 | (i << 10) | (512 << 20) | (1 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| fbits([512.0 / 1023.0, f64::from(i) / 1023.0, 1.0, 1.0 / 3.0]),
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Uint,
                bgra: true,
            },
            glsl: "uvec4",
            bytes: |i| {
                (7 | (i << 10) | (1000 << 20) | (3 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| [1000, i, 7, 3],
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Uscaled,
                bgra: false,
            },
            glsl: "vec4",
            bytes: |i| (1023 | (i << 10) | (2 << 30)).to_le_bytes().to_vec(),
            want: |i| fbits([1023.0, f64::from(i), 0.0, 2.0]),
        },
        AttrCase {
            format: VertexFormat::Packed1010102 {
                numeric: PackedNumeric::Sscaled,
                bgra: true,
            },
            glsl: "vec4",
            bytes: |i| {
                (0x200 | (i << 10) | (0x3ff << 20) | (2 << 30))
                    .to_le_bytes()
                    .to_vec()
            },
            want: |i| fbits([-1.0, f64::from(i), -512.0, -2.0]),
        },
    ]
}

#[test]
fn vertex_attribute_formats_with_robust_fetch() {
    check_attr_cases(attr_cases(), true);
}

#[test]
fn packed_1010102_vertex_formats_with_robust_fetch() {
    check_attr_cases(packed_attr_cases(), true);
}

/// Without robustness, 8- and 16-bit components load as elements of their own width.
#[test]
fn vertex_attribute_formats_with_unchecked_fetch() {
    check_attr_cases(attr_cases(), false);
}

#[test]
fn packed_1010102_vertex_formats_with_unchecked_fetch() {
    check_attr_cases(packed_attr_cases(), false);
}

/// Out-of-range elements (past the readable bytes) read zeros with `robust`; without it the
/// buffer holds every element the test reads.
fn check_attr_cases(cases: Vec<AttrCase>, robust: bool) {
    // One attribute per location, each in its own binding (odd strides and offsets keep the
    // 8- and 16-bit formats unaligned); binding 1 is per instance.
    let mut vs = String::from("#version 450\n");
    let mut fs = String::from("#version 450\nlayout(location = 0) out vec4 o;\n");
    let mut body = String::new();
    let mut fsum = String::from("    o = vec4(0.0)");
    let mut input = VertexInputLayout::default();
    let vertices = 6u32;
    let mut mem = FlatMemory::new();
    let mut root = Vec::new();
    let mut buffers = Vec::new();
    for (loc, c) in cases.iter().enumerate() {
        let flat = if c.glsl == "vec4" { "" } else { "flat " };
        vs += &format!("layout(location = {loc}) in {} a{loc};\n", c.glsl);
        vs += &format!("layout(location = {loc}) {flat}out {} v{loc};\n", c.glsl);
        body += &format!("    v{loc} = a{loc};\n");
        fs += &format!("layout(location = {loc}) {flat}in {} v{loc};\n", c.glsl);
        fsum += &format!(" + vec4(v{loc})");
        let elem = (c.bytes)(0).len() as u32;
        let align = match c.format {
            VertexFormat::Plain { comp, .. } => match comp {
                AttribComponent::F32 | AttribComponent::U32 | AttribComponent::S32 => 4,
                AttribComponent::F16
                | AttribComponent::Unorm16
                | AttribComponent::Snorm16
                | AttribComponent::Uint16
                | AttribComponent::Sint16
                | AttribComponent::Uscaled16
                | AttribComponent::Sscaled16 => 2,
                _ => 1,
            },
            _ => 4,
        };
        let offset = align * 3;
        let stride = (elem + offset).div_ceil(align) * align + align;
        let per_instance = loc == 1;
        // Readable bytes end inside element 4 (elements 4 and 5 read zeros) for
        // per-vertex bindings.
        let readable = if per_instance {
            stride * 8
        } else {
            stride * 4 + offset + elem - 1
        };
        let mut data = vec![0xa5u8; (stride * 8 + 64) as usize];
        for i in 0..8u32 {
            let b = (c.bytes)(i);
            let at = (i * stride + offset) as usize;
            data[at..at + b.len()].copy_from_slice(&b);
        }
        // The bound offset makes the base odd for the byte formats only; the mapping starts
        // at the word below it, as page-granular memory would.
        let region = 0x10_0000 + 0x1000 * loc as u64;
        let va = if align == 1 { region + 1 } else { region };
        let mut padded = vec![0x5au8; (va - region) as usize];
        padded.extend(data);
        mem.map(region, padded);
        let entry = abi::VERTEX_BUFFERS_OFFSET + 16 * loc as u32;
        root.extend([
            (entry, va as u32),
            (entry + 4, (va >> 32) as u32),
            (entry + 8, readable),
            (entry + 12, stride),
        ]);
        input.attributes.push(VertexAttribute {
            location: loc as u32,
            binding: loc as u32,
            format: c.format,
            offset,
        });
        input.bindings.push(VertexBindingDesc {
            binding: loc as u32,
            per_instance,
            divisor: 1,
        });
        buffers.push((per_instance, readable, stride, offset, elem));
    }
    vs += "void main() {\n";
    vs += &body;
    vs += "    gl_Position = vec4(1.0);\n}\n";
    fs += "void main() {\n";
    fs += &fsum;
    fs += ";\n}\n";
    let state = FragmentState {
        targets: vec![colour_target(
            0,
            ColourFormat::Plain {
                channels: 4,
                bits: 32,
                numeric: Numeric::Float,
            },
            0,
            BlendAttachment::default(),
        )],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 16,
    };
    let mut res = ResourceLayout::default();
    if !robust {
        res.buffer_robustness = BufferRobustness::Unchecked;
    }
    let bin = pipeline_in(&vs, Some(&fs), &input, &state, res).expect("pipeline");
    assert_eq!(bin.uvs_words, 4 + 4 * cases.len() as u32);
    // Bindings hold at most four components and cover every coefficient register once.
    assert!(bin
        .cf_bindings
        .iter()
        .all(|b| (1..=4).contains(&b.components)));
    let covered: u32 = bin
        .cf_bindings
        .iter()
        .map(|b| u32::from(b.components))
        .sum();
    assert_eq!(covered, bin.cf_registers);
    let first_instance = 2u32;
    root.push((abi::FIRST_INSTANCE_OFFSET, first_instance));
    let mut l = launch(vertices, bin.vertex.uniform_halves, &root);
    l.preloads = vec![
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_VERTEX_INDEX / 2),
            values: (0..vertices).collect(),
        },
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_INSTANCE_NUMBER / 2),
            values: (0..vertices).map(|i| i % 3).collect(),
        },
    ];
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(bin.uvs_words)),
    };
    run_stage(&bin.vertex, &l, &mut mem, &mut gfx);
    let v = gfx.vertex.unwrap();
    let n = bin.uvs_words as usize;
    for lane in 0..vertices as usize {
        for (loc, c) in cases.iter().enumerate() {
            let (per_instance, readable, stride, offset, elem) = buffers[loc];
            let index = if per_instance {
                first_instance + lane as u32 % 3
            } else {
                lane as u32
            };
            let in_range = !robust || index * stride + offset + elem <= readable;
            let want = if in_range {
                (c.want)(index)
            } else {
                // Zero components, then the defaults for the missing ones.
                let zeroed = (c.want)(0);
                let (count, int) = match c.format {
                    VertexFormat::Plain { count, .. } => (count as usize, c.glsl != "vec4"),
                    _ => (4, c.glsl != "vec4"),
                };
                let one = if int { 1 } else { 1f32.to_bits() };
                let _ = zeroed;
                std::array::from_fn(|k| {
                    if k < count {
                        0
                    } else if k == 3 {
                        one
                    } else {
                        0
                    }
                })
            };
            let got = &v.uvs[lane * n + 4 + 4 * loc..][..4];
            for k in 0..4 {
                let ok = if c.glsl == "vec4" {
                    let (g, w) = (f32::from_bits(got[k]), f32::from_bits(want[k]));
                    (g - w).abs() <= 1e-6 * w.abs().max(1.0)
                } else {
                    got[k] == want[k]
                };
                assert!(
                    ok,
                    "{:?} vertex {lane} component {k}: got {:08x} want {:08x}",
                    c.format, got[k], want[k]
                );
            }
        }
    }
}

// ---- Pipeline linking --------------------------------------------------------------------

#[test]
fn linking_keeps_what_the_fragment_shader_reads() {
    let vs = r#"#version 450
layout(location = 0) out vec2 a;
layout(location = 2) out float unused;
layout(location = 3) flat out int f;
void main() {
    gl_Position = vec4(1.0, 2.0, 3.0, 4.0);
    gl_PointSize = 2.0;
    a = vec2(float(gl_VertexIndex), 5.0);
    unused = 1.0;
    f = gl_InstanceIndex;
}
"#;
    let fs = r#"#version 450
layout(location = 0) in vec2 a;
layout(location = 1) noperspective in float missing;
layout(location = 3) flat in int f;
layout(location = 0) out vec4 o;
void main() {
    o = vec4(a, missing, float(f));
    if (a.x > 100.0) discard;
}
"#;
    let state = rgba8_unorm_state(BlendAttachment::default());
    let bin = pipeline(vs, Some(fs), &VertexInputLayout::default(), &state).expect("pipeline");
    assert!(bin.writes_point_size);
    assert!(bin.discards);
    assert!(!bin.writes_depth);
    // Position, point size, then a.x, a.y, missing, f.
    assert_eq!(bin.uvs_words, 9);
    assert_eq!(bin.cf_registers, 6);
    let b = &bin.cf_bindings;
    assert_eq!(b[0].base_cf, 0);
    assert_eq!(b[0].source, CfSource::Varying { base_slot: 3 });
    assert_eq!(b[1].source, CfSource::FragcoordZ);
    assert_eq!(
        &b[2..],
        &[
            CfBindingDesc {
                base_cf: 2,
                components: 2,
                shade: CfShade::Perspective,
                source: CfSource::Varying { base_slot: 5 },
            },
            CfBindingDesc {
                base_cf: 4,
                components: 1,
                shade: CfShade::Linear,
                source: CfSource::Varying { base_slot: 7 },
            },
            CfBindingDesc {
                base_cf: 5,
                components: 1,
                shade: CfShade::Flat,
                source: CfSource::Varying { base_slot: 8 },
            },
        ]
    );
    // The vertex shader writes the UVS record, with 0 for the input it does not write.
    let mut l = launch(
        3,
        bin.vertex.uniform_halves,
        &[(abi::FIRST_INSTANCE_OFFSET, 10)],
    );
    l.preloads = vec![
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_VERTEX_INDEX / 2),
            values: vec![4, 5, 6],
        },
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_INSTANCE_NUMBER / 2),
            values: vec![1, 1, 1],
        },
    ];
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(bin.uvs_words)),
    };
    let uvs_check = |gfx: &mut GraphicsContext| {
        run_stage(&bin.vertex, &l, &mut FlatMemory::new(), gfx);
    };
    uvs_check(&mut gfx);
    let v = gfx.vertex.unwrap();
    for lane in 0..3 {
        let got = &v.uvs[lane * 9..][..9];
        let want = [
            1f32.to_bits(),
            2f32.to_bits(),
            3f32.to_bits(),
            4f32.to_bits(),
            2f32.to_bits(),
            ((4 + lane) as f32).to_bits(),
            5f32.to_bits(),
            0,
            11,
        ];
        assert_eq!(got, &want, "vertex {lane}");
    }
}

#[test]
fn depth_only_pipeline_gets_an_empty_fragment_shader() {
    let bin = pipeline(
        PLAIN_VS,
        None,
        &VertexInputLayout::default(),
        &FragmentState {
            samples: 1,
            ..FragmentState::default()
        },
    )
    .expect("pipeline");
    let fs = bin.fragment.as_ref().expect("an empty fragment shader");
    assert!(!bin.discards && !bin.writes_depth);
    assert!(!fs.code.is_empty());
    assert_eq!(bin.uvs_words, 4);
    assert_eq!(bin.vertex.uniform_halves, abi::GRAPHICS_ROOT_TABLE_SIZE / 2);
}

// ---- Tile programs through the texture unit and the PBE -----------------------------------

/// Background program loading every pixel (and sample) of an 8x4 image, end-of-tile program
/// storing the tile to a second image: the second image must equal the first.
fn tile_round_trip(
    vk_format: i32,
    colour: ColourFormat,
    source: impl Fn(usize) -> u8,
    tolerance: u8,
) {
    tile_round_trip_samples(vk_format, colour, source, tolerance, 1);
}

fn tile_round_trip_samples(
    vk_format: i32,
    colour: ColourFormat,
    source: impl Fn(usize) -> u8,
    tolerance: u8,
    samples: u32,
) {
    use hw::g13::control::descriptors::TextureDimension;
    use hw::g13::image_desc::{pbe_descriptor, pixel_format, texture_descriptor, ImageDesc};
    use hw::g13::layout::{Layout, Tiling};
    let pf = pixel_format(vk_format).expect("format");
    let bpp = pf.bytes_per_block().expect("plain format");
    let (tiling, dimension) = if samples == 1 {
        (Tiling::Linear { stride: None }, TextureDimension::D2)
    } else {
        (Tiling::Twiddled, TextureDimension::D2Multisampled)
    };
    let layout = Layout::new(8, 4, 1, 1, bpp, tiling, samples).expect("layout");
    let (src_va, dst_va) = (0x20_0000u64, 0x30_0000u64);
    // Tile programs move sRGB bytes as they are (the tilebuffer holds them encoded), so
    // both descriptors do no sRGB conversion, as the ICD builds them.
    let desc = |base| ImageDesc {
        base,
        layout: &layout,
        format: pf.linear(),
        dimension,
    };
    let tex = texture_descriptor(&desc(src_va), 0, 1, 0, 1).expect("texture descriptor");
    let pbe = pbe_descriptor(&desc(dst_va), 0, 0).expect("pbe descriptor");
    let size = layout.size as usize;
    let src: Vec<u8> = (0..size).map(&source).collect();
    let mut mem = FlatMemory::new();
    mem.map(src_va, src.clone());
    mem.map(dst_va, vec![0; size]);
    let tib = colour.tib_format().expect("renderable");
    let t = TileTarget {
        format: colour,
        tib_format: tib,
        offset: 0,
    };
    let bytes = 16;
    let bg = compile_background(&TileProgramRequest {
        targets: vec![(t, TileLoad::Load { texture: 0 })],
        samples,
        sample_size_bytes: bytes,
    })
    .expect("background");
    let eot = compile_end_of_tile(&TileProgramRequest {
        targets: vec![(t, TileStore::Store { texture: 1 })],
        samples,
        sample_size_bytes: bytes,
    })
    .expect("end of tile");
    let mut f = FragmentContext::new(TILE, samples, bytes);
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [l as u32 % TILE[0], l as u32 / TILE[0]];
    }
    let mut gfx = GraphicsContext {
        textures: sim_gpu::usc::texture::TextureState {
            textures: vec![tex, pbe],
            samplers: Vec::new(),
            ..Default::default()
        },
        fragment: Some(f),
        vertex: None,
    };
    for p in [&bg, &eot] {
        let l = launch(32, p.uniform_halves, &[]);
        run_graphics(&program(&p.code), &l, &mut mem, &mut gfx).expect("run");
    }
    let out = mem.bytes(dst_va, size).expect("mapped").to_vec();
    for y in 0..4u32 {
        for x in 0..8u32 {
            for s in 0..samples {
                let at = layout.offset_of(x, y, 0, 0, s).expect("in the image") as usize;
                for k in 0..bpp as usize {
                    assert!(
                        out[at + k].abs_diff(src[at + k]) <= tolerance,
                        "{colour:?} pixel ({x}, {y}) sample {s} byte {k}: {} vs {}",
                        out[at + k],
                        src[at + k]
                    );
                }
            }
        }
    }
}

#[test]
fn multisampled_tile_programs_round_trip_every_sample() {
    tile_round_trip_samples(37, rgba8(Numeric::Unorm), hash, 0, 4);
}

#[test]
fn background_load_and_end_of_tile_store_round_trip() {
    // R8G8B8A8_UNORM, _SRGB, R32G32_UINT, R16G16_SFLOAT, A2B10G10R10_UNORM.
    tile_round_trip(37, rgba8(Numeric::Unorm), hash, 0);
    tile_round_trip(43, rgba8(Numeric::Srgb), hash, 0);
    tile_round_trip(
        101,
        ColourFormat::Plain {
            channels: 2,
            bits: 32,
            numeric: Numeric::Uint,
        },
        hash,
        0,
    );
    // Finite halves only (no exponent 31).
    tile_round_trip(
        83,
        ColourFormat::Plain {
            channels: 2,
            bits: 16,
            numeric: Numeric::Float,
        },
        |i| if i % 2 == 1 { hash(i) & 0xbb } else { hash(i) },
        0,
    );
    tile_round_trip(64, ColourFormat::Rgb10A2Unorm, hash, 0);
}

/// Instance divisors (VK_EXT_vertex_attribute_divisor): per-instance bindings with divisors
/// 0, 2 and 3 (3 takes the general integer division) and a first instance of 5, for instance
/// numbers 0..7. Each binding holds its element index as a uint, so the fetched value is the
/// element Vulkan's formula names: firstInstance + instance / divisor, firstInstance for 0.
#[test]
fn instance_divisors_in_vertex_fetch() {
    let divisors = [0u32, 2, 3];
    let mut vs = String::from("#version 450\n");
    let mut fs = String::from("#version 450\nlayout(location = 0) out vec4 o;\n");
    let mut body = String::new();
    let mut fsum = String::from("    o = vec4(0.0)");
    let mut input = VertexInputLayout::default();
    let mut mem = FlatMemory::new();
    let mut root = Vec::new();
    for (loc, &divisor) in divisors.iter().enumerate() {
        vs += &format!("layout(location = {loc}) in uint a{loc};\n");
        vs += &format!("layout(location = {loc}) flat out uint v{loc};\n");
        body += &format!("    v{loc} = a{loc};\n");
        fs += &format!("layout(location = {loc}) flat in uint v{loc};\n");
        fsum += &format!(" + vec4(v{loc})");
        let data: Vec<u8> = (0..32u32).flat_map(|i| i.to_le_bytes()).collect();
        let va = 0x10_0000 + 0x1000 * loc as u64;
        mem.map(va, data);
        let entry = abi::VERTEX_BUFFERS_OFFSET + 16 * loc as u32;
        root.extend([
            (entry, va as u32),
            (entry + 4, (va >> 32) as u32),
            (entry + 8, 32 * 4),
            (entry + 12, 4),
        ]);
        input.attributes.push(VertexAttribute {
            location: loc as u32,
            binding: loc as u32,
            format: VertexFormat::Plain {
                comp: AttribComponent::U32,
                count: 1,
                bgra: false,
            },
            offset: 0,
        });
        input.bindings.push(VertexBindingDesc {
            binding: loc as u32,
            per_instance: true,
            divisor,
        });
    }
    vs += "void main() {\n";
    vs += &body;
    vs += "    gl_Position = vec4(1.0);\n}\n";
    fs += "void main() {\n";
    fs += &fsum;
    fs += ";\n}\n";
    let state = FragmentState {
        targets: vec![colour_target(
            0,
            ColourFormat::Plain {
                channels: 4,
                bits: 32,
                numeric: Numeric::Float,
            },
            0,
            BlendAttachment::default(),
        )],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 16,
    };
    let bin = pipeline(&vs, Some(&fs), &input, &state).expect("pipeline");
    let first_instance = 5u32;
    root.push((abi::FIRST_INSTANCE_OFFSET, first_instance));
    let lanes = 8u32;
    let mut l = launch(lanes, bin.vertex.uniform_halves, &root);
    l.preloads = vec![
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_VERTEX_INDEX / 2),
            values: vec![0; lanes as usize],
        },
        Preload {
            reg: hw::isa::Reg::r32(PRELOAD_INSTANCE_NUMBER / 2),
            values: (0..lanes).collect(),
        },
    ];
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(bin.uvs_words)),
    };
    run_stage(&bin.vertex, &l, &mut mem, &mut gfx);
    let v = gfx.vertex.unwrap();
    let n = bin.uvs_words as usize;
    for lane in 0..lanes as usize {
        for (loc, &divisor) in divisors.iter().enumerate() {
            let want = match divisor {
                0 => first_instance,
                d => first_instance + lane as u32 / d,
            };
            let slot = 4 + loc;
            let got = v.uvs[lane * n + slot];
            assert_eq!(got, want, "instance {lane} divisor {divisor}");
        }
    }
}

/// A pipeline compiled without its vertex input (`compile_graphics_pipeline_deferred`, for
/// VK_EXT_vertex_input_dynamic_state) gives, for each layout, the vertex programs the
/// pipeline compiled with that layout has, transform feedback capture variant included; and
/// different layouts give different fetch code.
#[test]
fn deferred_vertex_stage_matches_the_static_pipeline_per_layout() {
    let vs = r#"#version 450
layout(location = 0) in vec4 a;
layout(location = 2) in vec2 b;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out vec4 o;
void main() { o = a; gl_Position = vec4(b, 0.0, 1.0); }
"#;
    let fs = r#"#version 450
layout(location = 0) in vec4 o;
layout(location = 0) out vec4 c;
void main() { c = o; }
"#;
    let state = rgba8_unorm_state(BlendAttachment::default());
    let plain = |comp, count| VertexFormat::Plain {
        comp,
        count,
        bgra: false,
    };
    let layout = |fa, oa, fb, ob, divisor| VertexInputLayout {
        attributes: vec![
            VertexAttribute {
                location: 0,
                binding: 0,
                format: fa,
                offset: oa,
            },
            VertexAttribute {
                location: 2,
                binding: 1,
                format: fb,
                offset: ob,
            },
        ],
        bindings: vec![
            VertexBindingDesc {
                binding: 0,
                per_instance: false,
                divisor: 1,
            },
            VertexBindingDesc {
                binding: 1,
                per_instance: true,
                divisor,
            },
        ],
    };
    let first = layout(
        plain(AttribComponent::F32, 4),
        0,
        plain(AttribComponent::F32, 2),
        4,
        3,
    );
    let second = layout(
        plain(AttribComponent::Unorm8, 4),
        2,
        plain(AttribComponent::Snorm16, 2),
        0,
        1,
    );
    let res = ResourceLayout::default();
    let vw = spirv(vs, "vert");
    let fw = spirv(fs, "frag");
    let req = |words, stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    };
    let request = |input| GraphicsPipelineRequest {
        vertex: req(&vw, Stage::Vertex),
        fragment: Some(req(&fw, Stage::Fragment)),
        vertex_input: input,
        fragment_state: &state,
        geometry: None,
    };
    let (options, coverage) = (
        GraphicsPipelineOptions::default(),
        CoverageOptions::default(),
    );
    // The request's vertex input is not read.
    let unread = VertexInputLayout::default();
    let (rest, stage) = compile_graphics_pipeline_deferred(&request(&unread), &options, &coverage)
        .expect("deferred pipeline");
    assert_eq!(stage.locations(), &[0, 2]);
    assert!(rest.vertex.code.is_empty() && rest.xfb.is_none());
    for input in [&first, &second] {
        let whole = compile_graphics_pipeline(&request(input)).expect("static pipeline");
        let v = stage.compile(input).expect("variant");
        assert_eq!(v.vertex, whole.vertex);
        assert!(whole.xfb.is_some(), "the shader captures an output");
        assert_eq!(v.xfb, whole.xfb);
        assert_eq!(rest.fragment, whole.fragment);
        assert_eq!(
            (rest.uvs_words, &rest.cf_bindings),
            (whole.uvs_words, &whole.cf_bindings)
        );
    }
    let (a, b) = (
        stage.compile(&first).expect("first"),
        stage.compile(&second).expect("second"),
    );
    assert_ne!(a.vertex.code, b.vertex.code);
    assert_ne!(a.xfb, b.xfb);
    // A location the layout does not give is refused, not read as something else.
    let mut missing = first.clone();
    missing.attributes.remove(1);
    assert!(matches!(
        stage.compile(&missing),
        Err(CompileError::Unsupported(_))
    ));
}

/// A fragment variant (`compile_fragment_variant`, what a pipeline with dynamic blend state
/// compiles at draw time) is the fragment program the whole pipeline gets for the same
/// state, also with a geometry shader, whose outputs and not the vertex shader's decide the
/// varyings the fragment shader reads; and it needs no vertex input layout (a pipeline whose
/// layout is dynamic has none when it compiles one).
#[test]
fn fragment_variant_is_the_whole_pipelines_fragment_program() {
    let vs = r#"#version 450
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 o;
void main() { o = a; gl_Position = vec4(a.xy, 0.0, 1.0); }
"#;
    let gs = r#"#version 450
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 o[];
layout(location = 3) out vec2 g;
void main() {
    for (int i = 0; i < 3; i++) {
        g = o[i].zw * float(i + 1);
        gl_Position = gl_in[i].gl_Position;
        EmitVertex();
    }
    EndPrimitive();
}
"#;
    let fs = r#"#version 450
layout(location = 3) in vec2 g;
layout(location = 0) out vec4 c;
void main() { c = vec4(g, 0.25, 0.5); }
"#;
    let state = |blend| FragmentState {
        targets: vec![colour_target(0, rgba8(Numeric::Unorm), 0, blend)],
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 4,
    };
    let plain = state(BlendAttachment::default());
    let blended = state(BlendAttachment {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        ..BlendAttachment::default()
    });
    let input = vec4_at_location_0();
    let unread = VertexInputLayout::default();
    let res = ResourceLayout::default();
    let (vw, gw, fw) = (spirv(vs, "vert"), spirv(gs, "geom"), spirv(fs, "frag"));
    let req = |words, stage| ShaderRequest {
        spirv: words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    };
    let request = |input, state| GraphicsPipelineRequest {
        vertex: req(&vw, Stage::Vertex),
        fragment: Some(req(&fw, Stage::Fragment)),
        vertex_input: input,
        fragment_state: state,
        geometry: Some(req(&gw, Stage::Geometry)),
    };
    let (options, coverage) = (
        GraphicsPipelineOptions::default(),
        CoverageOptions::default(),
    );
    let mut codes = Vec::new();
    for st in [&plain, &blended] {
        let whole = compile_graphics_pipeline(&request(&input, st)).expect("whole pipeline");
        assert!(whole.geometry.is_some());
        let v = compile_fragment_variant(&request(&unread, st), &options, &coverage)
            .expect("variant")
            .expect("a fragment stage");
        assert_eq!(Some(&v.stage), whole.fragment.as_ref());
        assert_eq!(v.discards, whole.discards);
        codes.push(v.stage.code);
    }
    assert_ne!(codes[0], codes[1], "blending changes the program");
}

/// The vertex index is read where the launch preloads it: the copy out of its fixed register
/// takes that register, as nothing else needs it, and disappears.
#[test]
fn the_vertex_index_is_not_copied_out_of_its_preloaded_register() {
    let vs = r#"#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 v_col;
void main() { gl_Position = pos; v_col = vec4(gl_VertexIndex); }
"#;
    let input = vec4_at_location_0();
    let state = FragmentState {
        targets: Vec::new(),
        inputs: Vec::new(),
        logic_op: None,
        samples: 1,
        sample_size_bytes: 4,
    };
    let bin = pipeline(vs, None, &input, &state).expect("pipeline");
    let code = decode_all(bin.vertex.main_code());
    let copies: Vec<_> = code
        .iter()
        .filter(|i| {
            matches!(i, hw::isa::Instr::IAdd(x)
                if matches!(x.a.op, hw::isa::Operand::Reg(r)
                        if r.half == compiler::g13::PRELOAD_VERTEX_INDEX)
                    && x.b.op == hw::isa::Operand::Imm(0)
                    && !x.negate_b
                    && x.shift == 0)
        })
        .collect();
    assert!(
        copies.is_empty(),
        "{}",
        hw::isa::disasm::disassemble(&hw::g13::CODEC, bin.vertex.main_code()).unwrap_or_default()
    );
}

/// Source-alpha blending of an RGBA8 UNORM target reads the destination with one converting
/// `ld_tile`, blends each channel with a multiply and a fused multiply-add, and stores the
/// four results, computed into one register, with one `st_tile`.
#[test]
fn a_blended_unorm_target_is_one_tile_load_and_one_tile_store() {
    const FS: &str = r#"#version 450
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() { o = v_col; }
"#;
    let state = rgba8_unorm_state(BlendAttachment {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        ..BlendAttachment::default()
    });
    let vs = r#"#version 450
layout(location = 0) out vec4 v_col;
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); v_col = vec4(gl_VertexIndex) * 0.25; }
"#;
    let bin = pipeline(vs, Some(FS), &VertexInputLayout::default(), &state).expect("pipeline");
    let code = decode_all(bin.fragment.expect("fragment").main_code());
    let tile: Vec<_> = code
        .iter()
        .filter_map(|i| match i {
            hw::isa::Instr::TileMem(t) => Some((t.store, t.mask, t.format)),
            _ => None,
        })
        .collect();
    let u8norm = hw::isa::MemFormat::U8Norm;
    assert_eq!(
        tile,
        [(false, 0b1111, u8norm), (true, 0b1111, u8norm)],
        "{code:#?}"
    );
    let fmas = code
        .iter()
        .filter(|i| matches!(i, hw::isa::Instr::FArith(f) if f.op == hw::isa::FOp::MAdd))
        .count();
    assert_eq!(fmas, 3, "{code:#?}");
}

/// Constant components of a colour go straight into the register its computed components
/// are computed into, so one `st_tile` stores them all; blue and alpha, one constant, each
/// get a `mov_imm` of their own.
#[test]
fn constant_colour_components_join_the_computed_ones_in_one_tile_store() {
    const FS: &str = r#"#version 450
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() { o = vec4(v_col.x * 2.0, v_col.y * 3.0, 1.0, 1.0); }
"#;
    let state = rgba8_unorm_state(BlendAttachment::default());
    let vs = r#"#version 450
layout(location = 0) out vec4 v_col;
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); v_col = vec4(gl_VertexIndex) * 0.25; }
"#;
    let bin = pipeline(vs, Some(FS), &VertexInputLayout::default(), &state).expect("pipeline");
    let code = decode_all(bin.fragment.expect("fragment").main_code());
    let stores: Vec<_> = code
        .iter()
        .filter_map(|i| match i {
            hw::isa::Instr::TileMem(t) if t.store => Some(t),
            _ => None,
        })
        .collect();
    match stores.as_slice() {
        [t] => assert_eq!(t.mask, 0b1111, "{t:?}"),
        other => panic!("{other:#?}\n{code:#?}"),
    }
    let ones = code
        .iter()
        .filter(|i| matches!(i, hw::isa::Instr::MovImm(m) if m.imm == 1.0f32.to_bits()))
        .count();
    assert_eq!(ones, 2, "{code:#?}");
}

/// A vec4 varying written to an RGBA8 UNORM target is one `iter` of four components into a
/// 128-bit register and one converting `st_tile` of all four, with nothing between them.
#[test]
fn a_passed_through_colour_is_one_iter_and_one_tile_store() {
    const VS: &str = r#"#version 450
layout(location = 0) out vec4 v_col;
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); v_col = vec4(gl_VertexIndex) * 0.25; }
"#;
    const FS: &str = r#"#version 450
layout(location = 0) in vec4 v_col;
layout(location = 0) out vec4 o;
void main() { o = v_col; }
"#;
    let state = rgba8_unorm_state(BlendAttachment::default());
    let bin = pipeline(VS, Some(FS), &VertexInputLayout::default(), &state).expect("pipeline");
    let code = decode_all(bin.fragment.expect("fragment").main_code());
    match code.as_slice() {
        [hw::isa::Instr::Iter(i), hw::isa::Instr::TileMem(t), hw::isa::Instr::Stop] => {
            assert_eq!(i.channels, 4);
            assert!(t.store && t.mask == 0b1111 && t.reg == i.dst, "{t:?} {i:?}");
            assert_eq!(t.format, hw::isa::MemFormat::U8Norm);
        }
        other => panic!("{other:#?}"),
    }
}
