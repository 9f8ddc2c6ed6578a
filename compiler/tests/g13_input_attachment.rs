//! `subpassLoad` from GLSL through the front end and the G13 back end, run on the USC model
//! (docs/render-abi.md section 4): input attachment N in memory is read with a texture load
//! from texture state register `abi::INPUT_ATTACHMENT_TEXTURE_BASE + N` at the fragment's
//! pixel (2D multisampled with the sample as third coordinate for `subpassInputMS`; the
//! stencil aspect of a depth/stencil one from `INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE + N`),
//! and one that is also a colour attachment of the subpass from its tilebuffer target.
//! Expectations are computed here from the bytes the test writes.

mod common;

use common::glslang_stage;
use compiler::abi::{INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE, INPUT_ATTACHMENT_TEXTURE_BASE};
use compiler::g13::{compile_graphics, ColourOutput, FragmentOutputs, VaryingLayout};
use compiler::ir::{Node, Op, Stage};
use compiler::{CompileError, InputAttachmentSource, ResourceLayout, ShaderRequest, Target};
use hw::g13::control::descriptors::TextureDimension;
use hw::g13::image_desc::{null_texture_descriptor, pixel_format, texture_descriptor, ImageDesc};
use hw::g13::layout::{Layout, Tiling};
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use sim_gpu::usc::ExecStats;
use sim_gpu::usc::{
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
                    if let Op::LoadInputAttachment {
                        index, component, ..
                    } = i.op
                    {
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
fn arrays_of_subpass_inputs_count_from_their_decorated_index() {
    // Element i of an array decorated InputAttachmentIndex 3 is attachment 3 + i.
    let src = r#"#version 450
layout(input_attachment_index = 3, set = 0, binding = 0) uniform subpassInput inputs[3];
layout(input_attachment_index = 1, set = 0, binding = 1) uniform isubpassInput single[1];
layout(location = 0) out vec4 o;
void main() {
    o = subpassLoad(inputs[0]) + subpassLoad(inputs[2]) + vec4(subpassLoad(single[0]));
}
"#;
    let g = translate(&spirv(src)).expect("translate");
    let mut seen = Vec::new();
    collect(&g.shader.body, &mut seen);
    let mut indices: Vec<u32> = seen.iter().map(|&(i, _)| i).collect();
    indices.sort();
    indices.dedup();
    assert_eq!(indices, [1, 3, 5]);
    // A dynamic index needs inputAttachmentArrayDynamicIndexing, which is not offered:
    // glslang declares its capability, which the front end refuses.
    let dynamic = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput inputs[2];
layout(push_constant) uniform P { int i; } p;
layout(location = 0) out vec4 o;
void main() { o = subpassLoad(inputs[p.i]); }
"#;
    let err = translate(&spirv(dynamic)).expect_err("dynamic index");
    assert!(
        format!("{err}").contains("InputAttachmentArrayDynamicIndexing"),
        "{err}"
    );
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
fn multisampled_subpass_input_reads_carry_their_sample() {
    let ms = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS colour;
layout(location = 0) out vec4 o;
void main() { o = subpassLoad(colour, 1); }
"#;
    let g = translate(&spirv(ms)).expect("translate");
    let mut samples = 0;
    fn walk(body: &[Node], n: &mut u32) {
        for node in body {
            if let Node::Block(insts) = node {
                for i in insts {
                    if let Op::LoadInputAttachment {
                        index: 0,
                        sample: Some(_),
                        ..
                    } = i.op
                    {
                        *n += 1;
                    }
                }
            }
        }
    }
    walk(&g.shader.body, &mut samples);
    assert_eq!(samples, 4, "every component read names its sample");
}

/// A fragment context of one 8x4 tile at `ORIGIN`, lane `l` at pixel `l`.
fn fragment(samples: u32, bytes_per_sample: u32) -> FragmentContext {
    let mut f = FragmentContext::new(TILE, samples, bytes_per_sample);
    f.tile_origin = ORIGIN;
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        *p = [
            ORIGIN[0] + l as u32 % TILE[0],
            ORIGIN[1] + l as u32 / TILE[0],
        ];
    }
    f
}

/// Compiles `src` against `outs` and runs it on one tile.
fn run(
    src: &str,
    outs: &FragmentOutputs,
    f: FragmentContext,
    textures: Vec<[u8; 24]>,
    mem: &mut FlatMemory,
) -> (FragmentContext, ExecStats) {
    let g = translate(&spirv(src)).expect("translate");
    let bin = compile_graphics(&g, &VaryingLayout::default(), outs).expect("compile");
    let prog = program(&bin.code);
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
    let stats = run_graphics(&prog, &l, mem, &mut gfx).expect("run");
    (gfx.fragment.unwrap(), stats)
}

fn word(rec: &[u8], byte: usize) -> u32 {
    u32::from_le_bytes(rec[byte..byte + 4].try_into().unwrap())
}

#[test]
fn feedback_inputs_read_the_tilebuffer() {
    // Targets: 0 RGBA8 UNORM at byte 0, 1 RG16 SINT at byte 4, 2 RGBA32 UINT at byte 8.
    // Inputs 0 and 1 are targets 0 and 1; the shader copies them into target 2 without
    // writing targets 0 and 1, whose bytes the test fills first.
    let src = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput colour;
layout(input_attachment_index = 1, set = 0, binding = 1) uniform isubpassInput ids;
layout(location = 2) out uvec4 o;
void main() {
    vec4 c = subpassLoad(colour);
    ivec4 i = subpassLoad(ids);
    o = uvec4(floatBitsToUint(c.x), floatBitsToUint(c.w), uint(i.x), uint(i.y * 16 + i.w));
}
"#;
    let unorm = ColourFormat::Plain {
        channels: 4,
        bits: 8,
        numeric: Numeric::Unorm,
    };
    let sint = ColourFormat::Plain {
        channels: 2,
        bits: 16,
        numeric: Numeric::Sint,
    };
    let outs = FragmentOutputs {
        colours: vec![
            ColourOutput::plain(0, 0, unorm).unwrap(),
            ColourOutput::plain(1, 4, sint).unwrap(),
            uint_target(2, 8),
        ],
        inputs: vec![
            InputAttachmentSource::Tile { location: 0 },
            InputAttachmentSource::Tile { location: 1 },
        ],
        ..Default::default()
    };
    let mut f = fragment(1, 24);
    for l in 0..32usize {
        let rec = &mut f.tilebuffer[l * 24..][..24];
        rec[0] = (l * 8) as u8;
        rec[3] = 255 - l as u8;
        let id = -(l as i16) - 1;
        rec[4..6].copy_from_slice(&id.to_le_bytes());
        rec[6..8].copy_from_slice(&(l as i16 * 3).to_le_bytes());
    }
    let (f, _) = run(src, &outs, f, Vec::new(), &mut FlatMemory::new());
    for l in 0..32usize {
        let rec = &f.tilebuffer[l * 24..][..24];
        let x = f32::from_bits(word(rec, 8));
        let w = f32::from_bits(word(rec, 12));
        assert!(
            (x - (l * 8) as f32 / 255.0).abs() <= 1e-6,
            "lane {l}: x {x}"
        );
        assert!(
            (w - (255 - l) as f32 / 255.0).abs() <= 1e-6,
            "lane {l}: w {w}"
        );
        assert_eq!(word(rec, 16) as i32, -(l as i32) - 1, "lane {l}: signed");
        // A channel the format lacks reads 1 for alpha.
        assert_eq!(word(rec, 20), (l as u32 * 3) * 16 + 1, "lane {l}: y and w");
        // The inputs' own bytes are untouched.
        assert_eq!(rec[0], (l * 8) as u8);
    }
}

#[test]
fn multisampled_feedback_inputs_read_one_sample_of_the_tilebuffer() {
    // Target 0: RGBA8 UINT at byte 0 (the input), target 1: R32 UINT at byte 4.
    let src = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform usubpassInputMS ids;
layout(location = 1) out uint o;
void main() {
    int s = int(gl_FragCoord.x) & 3;
    o = subpassLoad(ids, s).x + subpassLoad(ids, 2).y * 256u;
}
"#;
    let uint8 = ColourFormat::Plain {
        channels: 4,
        bits: 8,
        numeric: Numeric::Uint,
    };
    let r32 = ColourFormat::Plain {
        channels: 1,
        bits: 32,
        numeric: Numeric::Uint,
    };
    let outs = FragmentOutputs {
        colours: vec![
            ColourOutput::plain(0, 0, uint8).unwrap(),
            ColourOutput::plain(1, 4, r32).unwrap(),
        ],
        inputs: vec![InputAttachmentSource::Tile { location: 0 }],
        samples: 4,
        ..Default::default()
    };
    let mut f = fragment(4, 8);
    for l in 0..32usize {
        for s in 0..4usize {
            let rec = &mut f.tilebuffer[(l * 4 + s) * 8..][..8];
            rec[0] = (l * 4 + s) as u8;
            rec[1] = (100 + s) as u8;
        }
    }
    let (f, _) = run(src, &outs, f, Vec::new(), &mut FlatMemory::new());
    for l in 0..32usize {
        let x = (ORIGIN[0] as usize + l % TILE[0] as usize) & 3;
        let want = (l * 4 + x) as u32 + 102 * 256;
        for s in 0..4usize {
            let rec = &f.tilebuffer[(l * 4 + s) * 8..][..8];
            assert_eq!(word(rec, 4), want, "lane {l} sample {s}");
        }
    }
}

#[test]
fn multisampled_inputs_in_memory_read_the_named_sample() {
    // A 4-sample RGBA8 UINT image: sample s of pixel (x, y) holds (x, y, s, 7).
    let src = r#"#version 450
layout(input_attachment_index = 1, set = 0, binding = 0) uniform usubpassInputMS ms;
layout(location = 0) out uvec4 o;
void main() {
    int s = int(gl_FragCoord.y) & 3;
    uvec4 a = subpassLoad(ms, s);
    uvec4 b = subpassLoad(ms, 3);
    o = uvec4(a.x, a.y, a.z, b.z * 16u + b.w);
}
"#;
    let layout = Layout::new(W, H, 1, 1, 4, Tiling::Twiddled, 4).unwrap();
    let mut bytes = vec![0u8; layout.size as usize];
    for y in 0..H {
        for x in 0..W {
            for s in 0..4 {
                let at = layout.offset_of(x, y, 0, 0, s).unwrap() as usize;
                bytes[at..at + 4].copy_from_slice(&[x as u8, y as u8, s as u8, 7]);
            }
        }
    }
    let mut mem = FlatMemory::new();
    mem.map(UINT_VA, bytes);
    let desc = ImageDesc {
        base: UINT_VA,
        layout: &layout,
        // VK_FORMAT_R8G8B8A8_UINT.
        format: pixel_format(41).unwrap(),
        dimension: TextureDimension::D2Multisampled,
    };
    let base = INPUT_ATTACHMENT_TEXTURE_BASE as usize;
    let mut textures = vec![null_texture_descriptor(); base + 2];
    textures[base + 1] = texture_descriptor(&desc, 0, 1, 0, 1).unwrap();
    let outs = FragmentOutputs {
        colours: vec![uint_target(0, 0)],
        ..Default::default()
    };
    let (f, _) = run(src, &outs, fragment(1, 16), textures, &mut mem);
    for l in 0..32usize {
        let [x, y] = f.lane_pixels[l];
        let rec = &f.tilebuffer[l * 16..][..16];
        let got: Vec<u32> = (0..4).map(|c| word(rec, 4 * c)).collect();
        assert_eq!(got, vec![x, y, y & 3, 3 * 16 + 7], "lane {l}");
    }
}

#[test]
fn depth_stencil_inputs_read_the_aspect_their_type_names() {
    // Input 0 is a depth/stencil attachment: a float read is its depth (an R32 float
    // texture), an integer read its stencil (an R8 integer texture at the stencil base).
    let src = r#"#version 450
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput depth;
layout(input_attachment_index = 0, set = 0, binding = 1) uniform usubpassInput stencil;
layout(location = 0) out uvec4 o;
void main() {
    o = uvec4(floatBitsToUint(subpassLoad(depth).x), subpassLoad(stencil).x, 0u, 0u);
}
"#;
    let linear = |bpp: u32| Tiling::Linear {
        stride: Some(W * bpp),
    };
    let depth = Layout::new(W, H, 1, 1, 4, linear(4), 1).unwrap();
    let stencil = Layout::new(W, H, 1, 1, 1, linear(1), 1).unwrap();
    let mut d = vec![0u8; depth.size as usize];
    let mut s = vec![0u8; stencil.size as usize];
    for y in 0..H {
        for x in 0..W {
            let at = (y * W + x) as usize;
            d[at * 4..at * 4 + 4].copy_from_slice(&((x + y * W) as f32 / 1024.0).to_le_bytes());
            s[at] = (x * 3 + y) as u8;
        }
    }
    let mut mem = FlatMemory::new();
    mem.map(UNORM_VA, d);
    mem.map(UINT_VA, s);
    let mut textures =
        vec![null_texture_descriptor(); INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE as usize + 1];
    // VK_FORMAT_D32_SFLOAT and VK_FORMAT_S8_UINT.
    textures[INPUT_ATTACHMENT_TEXTURE_BASE as usize] = image(UNORM_VA, 126, &depth);
    textures[INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE as usize] = image(UINT_VA, 127, &stencil);
    let outs = FragmentOutputs {
        colours: vec![uint_target(0, 0)],
        inputs: vec![InputAttachmentSource::DepthStencil],
        ..Default::default()
    };
    let (f, _) = run(src, &outs, fragment(1, 16), textures, &mut mem);
    for l in 0..32usize {
        let [x, y] = f.lane_pixels[l];
        let rec = &f.tilebuffer[l * 16..][..16];
        assert_eq!(
            f32::from_bits(word(rec, 0)),
            (x + y * W) as f32 / 1024.0,
            "lane {l}"
        );
        assert_eq!(word(rec, 4), x * 3 + y, "lane {l}");
    }
}
