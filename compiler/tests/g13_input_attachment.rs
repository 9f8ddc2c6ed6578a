//! `subpassLoad` from GLSL through the front end and the G13 back end, run on the USC model:
//! input attachment N is read with a texture load from texture state register
//! `abi::INPUT_ATTACHMENT_TEXTURE_BASE + N` at the fragment's pixel (docs/render-abi.md
//! section 4). Expectations are computed here from the texel bytes the test writes.

mod common;

use common::glslang_stage;
use compiler::abi::INPUT_ATTACHMENT_TEXTURE_BASE;
use compiler::g13::{compile_graphics, ColourOutput, FragmentOutputs, VaryingLayout};
use compiler::ir::{Node, Op, Stage};
use compiler::{CompileError, ResourceLayout, ShaderRequest, Target};
use hw::g13::control::descriptors::TextureDimension;
use hw::g13::image_desc::{null_texture_descriptor, pixel_format, texture_descriptor, ImageDesc};
use hw::g13::layout::{Layout, Tiling};
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use hw::gpu::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Program,
};

const TILE: [u32; 2] = [8, 4];
const ORIGIN: [u32; 2] = [16, 8];
const W: u32 = 32;
const H: u32 = 16;
const UNORM_VA: u64 = 0x10_0000;
const UINT_VA: u64 = 0x20_0000;

fn spirv(src: &str) -> Vec<u32> {
    glslang_stage(src, "frag").expect("glslang")
}

fn translate(spirv: &[u32]) -> Result<compiler::ir::GraphicsShader, CompileError> {
    let res = ResourceLayout::default();
    compiler::translate_graphics(&ShaderRequest {
        spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &res,
        target: Target::G13,
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

fn uint_target(location: u32, offset: u16) -> ColourOutput {
    let format = ColourFormat::Plain {
        channels: 4,
        bits: 32,
        numeric: Numeric::Uint,
    };
    ColourOutput::plain(location, offset, format).unwrap()
}

/// The bytes of texel (x, y) of the test images (both RGBA8).
fn texel(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 7) as u8,
        (y * 13) as u8,
        (x + y) as u8,
        255 - (x ^ y) as u8,
    ]
}

fn image(va: u64, vk_format: i32, layout: &Layout) -> [u8; 24] {
    let desc = ImageDesc {
        base: va,
        layout,
        format: pixel_format(vk_format).unwrap(),
        dimension: TextureDimension::D2,
    };
    texture_descriptor(&desc, 0, 1, 0, 1).unwrap()
}

const SRC: &str = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput colour;
layout(input_attachment_index = 2, set = 0, binding = 1) uniform usubpassInput ids;
layout(location = 0) out uvec4 o0;
layout(location = 1) out uvec4 o1;
void main() {
    o0 = floatBitsToUint(subpassLoad(colour).wzyx);
    o1 = subpassLoad(ids) + uvec4(1000u);
}
"#;

fn collect(body: &[Node], out: &mut Vec<(u32, u8)>) {
    for n in body {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    if let Op::LoadInputAttachment { index, component } = i.op {
                        out.push((index, component));
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                collect(then_body, out);
                collect(else_body, out);
            }
            Node::Loop { body } => collect(body, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

#[test]
fn front_end_reads_input_attachments_by_index() {
    // A distinct source: glslang's scratch directory is per source, and tests run in parallel.
    let g = translate(&spirv(&format!("{SRC}// front end\n"))).expect("translate");
    let mut seen = Vec::new();
    collect(&g.shader.body, &mut seen);
    seen.sort();
    seen.dedup();
    // Scalarized: four components of each attachment.
    let want: Vec<(u32, u8)> = [0, 2]
        .iter()
        .flat_map(|&i| (0..4).map(move |c| (i, c)))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn subpass_load_reads_the_fragment_pixel() {
    let g = translate(&spirv(SRC)).expect("translate");
    let outs = FragmentOutputs {
        colours: vec![uint_target(0, 0), uint_target(1, 16)],
        ..Default::default()
    };
    let bin = compile_graphics(&g, &VaryingLayout::default(), &outs).expect("compile");
    let prog = program(&bin.code);

    let linear = Tiling::Linear {
        stride: Some(W * 4),
    };
    let layout = Layout::new(W, H, 1, 1, 4, linear, 1).unwrap();
    let mut bytes = vec![0u8; layout.size as usize];
    for y in 0..H {
        for x in 0..W {
            let at = (y * W * 4 + x * 4) as usize;
            bytes[at..at + 4].copy_from_slice(&texel(x, y));
        }
    }
    let mut mem = FlatMemory::new();
    mem.map(UNORM_VA, bytes.clone());
    mem.map(UINT_VA, bytes);

    let base = INPUT_ATTACHMENT_TEXTURE_BASE as usize;
    let mut textures = vec![null_texture_descriptor(); base + 3];
    // VK_FORMAT_R8G8B8A8_UNORM and VK_FORMAT_R8G8B8A8_UINT.
    textures[base] = image(UNORM_VA, 37, &layout);
    textures[base + 2] = image(UINT_VA, 41, &layout);

    let mut f = FragmentContext::new(TILE, 1, 32);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    gfx.textures.textures = textures;
    let lanes = TILE[0] * TILE[1];
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    l.uniforms = vec![0; bin.uniform_halves as usize];
    l.stack_bytes = bin.scratch_bytes;
    run_graphics(&prog, &l, &mut mem, &mut gfx).expect("run");

    let f = gfx.fragment.unwrap();
    for lane in 0..lanes as usize {
        let [x, y] = f.lane_pixels[lane];
        let t = texel(x, y);
        let rec = &f.tilebuffer[lane * 32..][..32];
        let word = |i: usize| u32::from_le_bytes(rec[4 * i..4 * i + 4].try_into().unwrap());
        for c in 0..4 {
            let unorm = f32::from(t[3 - c]) / 255.0;
            let got = f32::from_bits(word(c));
            assert!(
                (got - unorm).abs() <= 1e-6,
                "lane {lane} component {c}: {got} vs {unorm}"
            );
            assert_eq!(
                word(4 + c),
                u32::from(t[c]) + 1000,
                "lane {lane} component {c}"
            );
        }
    }
}

#[test]
fn multisampled_subpass_inputs_are_refused() {
    let ms = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS colour;
layout(location = 0) out vec4 o;
void main() { o = subpassLoad(colour, 1); }
"#;
    match translate(&spirv(ms)) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("multisampled"), "{m}"),
        other => panic!("multisampled subpass input: {other:?}"),
    }
}
