//! A fragment shader samples a texture in a descriptor set with implicit LOD (the quad's
//! derivatives), through the front end and the G13 back end, on the USC model: bindless
//! texture descriptor in set memory, sampler from the command's sampler heap
//! (docs/render-abi.md section 7).

mod common;

use common::glslang_stage;
use compiler::g13::{compile_graphics, ColourOutput, FragmentOutputs, VaryingLayout};
use compiler::ir::Stage;
use compiler::{
    abi, BindingLayout, DescriptorKind, ResourceLayout, SetLayout, ShaderRequest, Target,
};
use hw::g13::control::descriptors::TextureDimension;
use hw::g13::image_desc::{
    pixel_format, sampler_descriptor, texture_descriptor, ImageDesc, SamplerDesc,
};
use hw::g13::layout::{Layout, Tiling};
use hw::g13::tilebuffer::{ColourFormat, Numeric};
use sim_gpu::usc::texture::SamplerHeap;
use sim_gpu::usc::Program;
use sim_gpu::usc::{run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState};
use sim_gpu::GpuMemory;

const TILE: [u32; 2] = [8, 4];
const SET: u64 = 0x80_0000;
const IMG: u64 = 0x40_0000;
const HEAP: u64 = 0x90_0000;

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

/// Texel (x, y) of level l of the 8x8 RGBA8 UNORM image.
fn texel(x: u32, y: u32, level: u32) -> [u8; 4] {
    [(20 * x) as u8, (20 * y) as u8, (100 * level) as u8, 255]
}

/// Runs `src` on one tile (lanes grouped in 2x2 quads) and checks every pixel against
/// `want(x, y)`.
fn run(src: &str, want: &dyn Fn(u32, u32) -> [u8; 4]) {
    let spirv = glslang_stage(src, "frag").expect("glslang");
    let res = ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: vec![BindingLayout {
                binding: 0,
                kind: DescriptorKind::CombinedImageSampler,
                count: 1,
                offset: 0,
            }],
        })],
        push_constant_size: 0,
        ..Default::default()
    };
    let g = compiler::translate_graphics(&ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &res,
        target: Target::G13,
    })
    .expect("translate");
    let format = ColourFormat::Plain {
        channels: 4,
        bits: 32,
        numeric: Numeric::Float,
    };
    let outs = FragmentOutputs {
        colours: vec![ColourOutput::plain(0, 0, format).unwrap()],
        ..Default::default()
    };
    let bin = compile_graphics(&g, &VaryingLayout::default(), &outs).expect("compile");
    let prog = program(&bin.code);

    let layout = Layout::new(8, 8, 1, 3, 4, Tiling::Twiddled, 1).unwrap();
    let mut mem = FlatMemory::new();
    mem.map(IMG, vec![0; layout.size as usize]);
    for level in 0..layout.levels {
        let (w, h) = layout.level_extent(level);
        for y in 0..h {
            for x in 0..w {
                let off = layout.offset_of(x, y, 0, level, 0).unwrap();
                mem.write(IMG + off, &texel(x, y, level)).unwrap();
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(37).unwrap(),
        dimension: TextureDimension::D2,
    };
    let mut set = vec![0u8; 64];
    set[..24].copy_from_slice(&texture_descriptor(&img, 0, layout.levels, 0, 1).unwrap());
    // Sampler entry: heap entry 0, no bias.
    mem.map(SET, set);
    mem.map(HEAP, sampler_descriptor(&SamplerDesc::default()).to_vec());

    // Lanes 4q..4q + 4 are the 2x2 quad q, as the hardware groups them.
    let mut f = FragmentContext::new(TILE, 1, 16);
    for (l, p) in f.lane_pixels.iter_mut().enumerate() {
        let (q, i) = (l as u32 / 4, l as u32 % 4);
        *p = [2 * (q % 4) + (i & 1), 2 * (q / 4) + (i >> 1)];
    }
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    gfx.textures.sampler_heap = SamplerHeap {
        base: HEAP,
        count: 1,
    };
    let lanes = TILE[0] * TILE[1];
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    l.uniforms = vec![0; bin.uniform_halves as usize];
    let at = (abi::set_address_offset(0) / 2) as usize;
    for h in 0..4 {
        l.uniforms[at + h] = (SET >> (16 * h)) as u16;
    }
    l.stack_bytes = bin.scratch_bytes;
    run_graphics(&prog, &l, &mut mem, &mut gfx).expect("run");

    let f = gfx.fragment.unwrap();
    for lane in 0..lanes as usize {
        let [x, y] = f.lane_pixels[lane];
        let rec = &f.tilebuffer[((y * TILE[0] + x) * 16) as usize..][..16];
        let got: Vec<f32> = rec
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let want = want(x, y).map(|b| f32::from(b) / 255.0);
        for c in 0..4 {
            assert!(
                (got[c] - want[c]).abs() < 1e-3,
                "pixel ({x}, {y}): {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn implicit_lod_comes_from_the_quad_derivatives() {
    // uv = FragCoord / 4 on an 8x8 texture: two texels per pixel, so level 1 (4x4), whose
    // texel under pixel (x, y) is (x, y) itself (clamped to the edge past it).
    let src = "#version 450
        layout(set = 0, binding = 0) uniform sampler2D t;
        layout(location = 0) out vec4 c;
        void main() { c = texture(t, gl_FragCoord.xy / 4.0); }";
    run(src, &|x, y| texel(x.min(3), y.min(3), 1));
}

#[test]
fn a_bias_operand_moves_the_implicit_lod() {
    // As above, one level further down: level 2 (2x2), texel (x / 2, y / 2).
    let src = "#version 450
        layout(set = 0, binding = 0) uniform sampler2D t;
        layout(location = 0) out vec4 c;
        void main() { c = texture(t, gl_FragCoord.xy / 4.0, 1.0); }";
    run(src, &|x, y| texel((x / 2).min(1), (y / 2).min(1), 2));
}

#[test]
fn texture_query_lod_gives_the_level_and_the_computed_lod() {
    // Two texels per pixel on level 0: LOD 1, both as selected and as computed.
    let src = "#version 450
        layout(set = 0, binding = 0) uniform sampler2D t;
        layout(location = 0) out vec4 c;
        void main() { c = vec4(textureQueryLod(t, gl_FragCoord.xy / 4.0), 0.0, 1.0); }";
    run(src, &|_, _| [255, 255, 0, 255]);
}
