//! `texture` and `image_write` run through the executor on images built in memory with the
//! ail layout and descriptors from `g13::image_desc`. Expected texels are computed here from
//! the values the tests put in, not by the texel code.

use crate::usc::texture::TextureState;
use crate::usc::{
    run_graphics, FlatMemory, FragmentContext, GraphicsContext, LaunchState, Program,
};
use crate::{Fault, GpuMemory};
use hw::g13::control::descriptors::{
    BorderColour, CompareFunc, Filter, MipFilter, TextureDimension as Dim, Wrap,
};
use hw::g13::image_desc::{
    pbe_descriptor, pbe_descriptor_layers, pixel_format, sampler_descriptor, texture_descriptor,
    ImageDesc, SamplerDesc,
};
use hw::g13::layout::{Layout, Tiling, Usage};
use hw::isa::*;

const OUT: u64 = 0x10_0000;
const IMG: u64 = 0x40_0000;

const RGBA8: i32 = 37;
const BGRA8_SRGB: i32 = 50;
const R32_UINT: i32 = 98;
const R32_SFLOAT: i32 = 100;
const RGBA16F: i32 = 97;
const D32: i32 = 126;

fn prog(instrs: Vec<Instr>) -> Program {
    let code = instrs
        .into_iter()
        .enumerate()
        .map(|(i, x)| ((i * 12) as u32, x))
        .collect();
    Program::new(0x1_0000, code).unwrap()
}

fn mov(r: Reg, v: u32) -> Instr {
    Instr::MovImm(MovImm {
        dst: Dst::from(r),
        imm: v,
    })
}

fn movf(r: Reg, v: f32) -> Instr {
    mov(r, v.to_bits())
}

fn lane_index(r: Reg) -> Instr {
    Instr::GetSr(GetSr {
        dst: Dst::from(r),
        sr: SpecialReg::THREAD_POSITION_IN_GRID_X,
    })
}

/// Stores the four 32-bit registers from `r` to OUT + 16 * lane; `r1` holds the lane.
fn store4(r: Reg) -> Instr {
    Instr::DeviceMem(DeviceMem {
        store: true,
        reg: r,
        base: Operand::Uniform(Reg {
            half: 0,
            size: Size::S64,
        }),
        index: Index::Reg(Reg::r32(1)),
        index_unsigned: true,
        shift: 2,
        format: MemFormat::I32,
        mask: 0b1111,
        wait_slot: 0,
    })
}

fn tex(load: bool, dim: TexDim) -> Texture {
    Texture {
        load,
        dst: Reg::r32(10),
        coords: Reg::r32(4),
        lod_mode: LodMode::Auto,
        lod: Operand::Imm(0),
        texture: TexIndex::Imm(0),
        sampler: Small::Imm(0),
        dim,
        mask: 0b1111,
        shadow: false,
        offset: false,
        extra: None,
        gather: None,
        query_lod: false,
        wait_slot: 0,
    }
}

fn with_lod(mut t: Texture, half: u16) -> Texture {
    t.lod_mode = LodMode::Min;
    t.lod = Operand::Reg(Reg::r16(half));
    t
}

/// Runs `body` on `lanes` lanes with `r1` = lane, then stores r10..r13 per lane.
fn run(body: Vec<Instr>, lanes: u32, state: TextureState, m: &mut FlatMemory) -> Result<(), Fault> {
    let mut code = vec![lane_index(Reg::r32(1))];
    code.extend(body);
    code.push(store4(Reg::r32(10)));
    code.push(Instr::Stop);
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    for h in 0..4 {
        l.uniforms[h] = (OUT >> (16 * h)) as u16;
    }
    let mut gfx = GraphicsContext {
        textures: state,
        ..GraphicsContext::default()
    };
    run_graphics(&prog(code), &l, m, &mut gfx).map(|_| ())
}

fn memory(layout: &Layout) -> FlatMemory {
    let mut m = FlatMemory::new();
    m.map(OUT, vec![0; 32 * 16]);
    m.map(IMG, vec![0; layout.size as usize]);
    m
}

fn out4(m: &FlatMemory, lane: usize) -> [u32; 4] {
    let b = m.bytes(OUT + 16 * lane as u64, 16).unwrap();
    std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

fn outf(m: &FlatMemory, lane: usize) -> [f32; 4] {
    out4(m, lane).map(f32::from_bits)
}

#[path = "tests_texture_heap.rs"]
mod heap;

#[path = "tests_texture_compressed.rs"]
mod compressed;

fn state(textures: Vec<[u8; 24]>, samplers: Vec<[u8; 8]>) -> TextureState {
    TextureState {
        textures,
        samplers,
        ..TextureState::default()
    }
}

/// Writes the texel at `[x, y, layer, level, sample]`.
fn put(m: &mut FlatMemory, layout: &Layout, at: [u32; 5], b: &[u8]) {
    let off = layout.offset_of(at[0], at[1], at[2], at[3], at[4]).unwrap();
    m.write(IMG + off, b).unwrap();
}

/// The `n` bytes of the texel at `[x, y, layer, level, sample]`.
fn get(m: &FlatMemory, layout: &Layout, at: [u32; 5], n: usize) -> Vec<u8> {
    let off = layout.offset_of(at[0], at[1], at[2], at[3], at[4]).unwrap();
    m.bytes(IMG + off, n).unwrap().to_vec()
}

fn rgba8_texel(x: u32, y: u32) -> [u8; 4] {
    [(x * 16) as u8, (y * 40) as u8, (x + y) as u8, 255]
}

#[test]
fn load_twiddled_rgba8_with_out_of_bounds_lanes() {
    let layout = Layout::new(8, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for y in 0..4 {
        for x in 0..8 {
            put(&mut m, &layout, [x, y, 0, 0, 0], &rgba8_texel(x, y));
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()], vec![]);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 2),
        Instr::Texture(tex(true, TexDim::D2)),
    ];
    run(body, 10, st, &mut m).unwrap();
    for x in 0..8 {
        let want = rgba8_texel(x, 2).map(|b| f32::from(b) / 255.0);
        assert_eq!(outf(&m, x as usize), want, "x = {x}");
    }
    // x = 8, 9 are outside: a zero texel.
    assert_eq!(outf(&m, 8), [0.0; 4]);
    assert_eq!(outf(&m, 9), [0.0; 4]);
}

#[test]
fn load_into_16_bit_registers_with_a_mask() {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    put(&mut m, &layout, [1, 3, 0, 0, 0], &[0, 128, 255, 64]);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()], vec![]);
    let mut t = tex(true, TexDim::D2);
    t.dst = Reg::r16(20);
    t.mask = 0b1010; // G and A, into halves 20 and 21 (= r10).
    let body = vec![mov(Reg::r32(4), 1), mov(Reg::r32(5), 3), Instr::Texture(t)];
    run(body, 1, st, &mut m).unwrap();
    let r10 = out4(&m, 0)[0];
    // 128/255 = 0.50196 -> half 0x3804; 64/255 = 0.25098 -> half 0x3404.
    assert_eq!(r10 & 0xffff, 0x3804);
    assert_eq!(r10 >> 16, 0x3404);
}

fn tagged(x: u32, y: u32, layer: u32, level: u32) -> u32 {
    x | (y << 8) | (layer << 16) | (level << 24)
}

#[test]
fn load_level_and_layer_of_a_view() {
    let layout = Layout::new(16, 16, 3, 5, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for layer in 0..3 {
        for level in 0..layout.levels {
            let (w, h) = layout.level_extent(level);
            for y in 0..h {
                for x in 0..w {
                    let v = tagged(x, y, layer, level).to_le_bytes();
                    put(&mut m, &layout, [x, y, layer, level, 0], &v);
                }
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2Array,
    };
    // View: levels 1..4, layers 1..3; the shader asks for view level 1, view layer 1.
    let st = state(vec![texture_descriptor(&img, 1, 3, 1, 2).unwrap()], vec![]);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 3),
        mov(Reg::r32(6), 1),
        mov(Reg::r16(32), 1),
        Instr::Texture(with_lod(tex(true, TexDim::D2Array), 32)),
    ];
    run(body, 6, st, &mut m).unwrap();
    for x in 0..4 {
        assert_eq!(
            out4(&m, x as usize),
            [tagged(x, 3, 2, 2), 0, 0, 1],
            "x = {x}"
        );
    }
    // Level 2 is 4x4: x = 4, 5 are outside.
    assert_eq!(out4(&m, 4), [0, 0, 0, 1]);
    assert_eq!(out4(&m, 5), [0, 0, 0, 1]);
}

#[test]
fn load_linear_image_and_texel_offsets() {
    let layout = Layout::new(5, 3, 1, 1, 4, Tiling::Linear { stride: Some(32) }, 1).unwrap();
    let mut m = memory(&layout);
    for y in 0..3u32 {
        for x in 0..5u32 {
            m.write(
                IMG + u64::from(y * 32 + x * 4),
                &tagged(x, y, 0, 0).to_le_bytes(),
            )
            .unwrap();
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()], vec![]);
    let mut t = tex(true, TexDim::D2);
    t.offset = true;
    t.extra = Some(Reg::r32(20));
    // Offsets (-1, +1): nibbles 0xf and 0x1.
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 1),
        mov(Reg::r32(20), 0x1f),
        Instr::Texture(t),
    ];
    run(body, 6, st, &mut m).unwrap();
    assert_eq!(out4(&m, 0)[0], 0, "x = -1 is outside");
    for x in 1..6u32 {
        assert_eq!(out4(&m, x as usize)[0], tagged(x - 1, 2, 0, 0), "x = {x}");
    }
}

#[test]
fn load_samples_of_multisampled_array() {
    let layout = Layout::new(4, 4, 2, 1, 4, Tiling::Twiddled, 4).unwrap();
    let mut m = memory(&layout);
    for layer in 0..2 {
        for s in 0..4 {
            for y in 0..4 {
                for x in 0..4 {
                    let v = (tagged(x, y, layer, 0) | (s << 28)).to_le_bytes();
                    put(&mut m, &layout, [x, y, layer, 0, s], &v);
                }
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2ArrayMultisampled,
    };
    let st = state(vec![texture_descriptor(&img, 0, 1, 0, 2).unwrap()], vec![]);
    // Sample 3 of layer 1: the last coordinate is sample | layer << 16.
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 2),
        mov(Reg::r32(6), 3 | (1 << 16)),
        Instr::Texture(tex(true, TexDim::D2MsArray)),
    ];
    run(body, 4, st.clone(), &mut m).unwrap();
    for x in 0..4 {
        assert_eq!(out4(&m, x as usize)[0], tagged(x, 2, 1, 0) | (3 << 28));
    }
    // Sample 4 does not exist.
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 2),
        mov(Reg::r32(6), 4),
        Instr::Texture(tex(true, TexDim::D2MsArray)),
    ];
    run(body, 1, st, &mut m).unwrap();
    assert_eq!(out4(&m, 0), [0, 0, 0, 1]);
}

fn sampled_image(m: &mut FlatMemory, layout: &Layout) {
    for y in 0..layout.height {
        for x in 0..layout.width {
            put(
                m,
                layout,
                [x, y, 0, 0, 0],
                &[(x * 60) as u8, (y * 60) as u8, 0, 255],
            );
        }
    }
}

fn sample_at(u: f32, v: f32, s: SamplerDesc) -> [f32; 4] {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    sampled_image(&mut m, &layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()],
        vec![sampler_descriptor(&s)],
    );
    let body = vec![
        movf(Reg::r32(4), u),
        movf(Reg::r32(5), v),
        mov(Reg::r16(32), 0),
        Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
    ];
    run(body, 1, st, &mut m).unwrap();
    outf(&m, 0)
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6)
}

#[test]
fn sample_bilinear() {
    let s = SamplerDesc {
        mag_filter: Filter::Linear,
        min_filter: Filter::Linear,
        ..SamplerDesc::default()
    };
    // u = 1.25 texels: texels 0 and 1 weighted 0.25, 0.75; v = 2.0: texels 1 and 2, 0.5 each.
    let got = sample_at(1.25 / 4.0, 0.5, s);
    let want = [
        (0.25 * 0.0 + 0.75 * 60.0) / 255.0,
        (0.5 * 60.0 + 0.5 * 120.0) / 255.0,
        0.0,
        1.0,
    ];
    assert!(close(got, want), "{got:?} vs {want:?}");
}

#[test]
fn sample_nearest_wraps_and_border() {
    let repeat = SamplerDesc {
        wrap: [Wrap::Repeat; 3],
        ..SamplerDesc::default()
    };
    // u = -0.1 is texel -1, which repeats to 3.
    let got = sample_at(-0.1, 0.3, repeat);
    assert!(
        close(got, [180.0 / 255.0, 60.0 / 255.0, 0.0, 1.0]),
        "{got:?}"
    );
    let border = SamplerDesc {
        wrap: [Wrap::ClampToBorder; 3],
        border: BorderColour::OpaqueWhite,
        ..SamplerDesc::default()
    };
    assert_eq!(sample_at(1.5, 0.5, border), [1.0; 4]);
    let custom = SamplerDesc {
        border: BorderColour::Custom,
        ..border
    };
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()],
        vec![sampler_descriptor(&custom)],
    );
    let body = vec![
        movf(Reg::r32(4), 2.0),
        movf(Reg::r32(5), 0.5),
        mov(Reg::r16(32), 0),
        Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
    ];
    assert!(matches!(
        run(body, 1, st, &mut m),
        Err(Fault::Unimplemented(_))
    ));
}

#[test]
fn sample_between_mip_levels_with_explicit_lod() {
    // Level l is filled with red = 100 * l.
    let layout = Layout::new(4, 4, 1, 3, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for level in 0..3 {
        let (w, h) = layout.level_extent(level);
        for y in 0..h {
            for x in 0..w {
                put(
                    &mut m,
                    &layout,
                    [x, y, 0, level, 0],
                    &[(100 * level) as u8, 0, 0, 255],
                );
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let run_lod = |mip: MipFilter, lod_f16: u32, max_lod: f32| {
        let mut m = m.clone();
        let s = SamplerDesc {
            mip_filter: mip,
            max_lod,
            ..SamplerDesc::default()
        };
        let st = state(
            vec![texture_descriptor(&img, 0, 3, 0, 1).unwrap()],
            vec![sampler_descriptor(&s)],
        );
        let body = vec![
            movf(Reg::r32(4), 0.5),
            movf(Reg::r32(5), 0.5),
            mov(Reg::r16(32), lod_f16),
            Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
        ];
        run(body, 1, st, &mut m).unwrap();
        outf(&m, 0)[0]
    };
    // f16 0.5 = 0x3800, 1.5 = 0x3e00.
    assert!((run_lod(MipFilter::Linear, 0x3800, 14.0) - 50.0 / 255.0).abs() < 1e-6);
    assert!((run_lod(MipFilter::Linear, 0x3e00, 14.0) - 150.0 / 255.0).abs() < 1e-6);
    // Nearest rounds half down (ceil(d + 0.5) - 1): 1.5 is level 1, 1.6 (0x3e66) level 2.
    assert_eq!(run_lod(MipFilter::Nearest, 0x3e00, 14.0), 100.0 / 255.0);
    assert_eq!(run_lod(MipFilter::Nearest, 0x3e66, 14.0), 200.0 / 255.0);
    // max lod 0.25 clamps the 1.5.
    assert!((run_lod(MipFilter::Linear, 0x3e00, 0.25) - 25.0 / 255.0).abs() < 1e-6);
}

#[test]
fn shadow_sample_of_depth() {
    let layout = Layout::new(2, 2, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let depth = [[0.2f32, 0.4], [0.6, 0.8]];
    for y in 0..2 {
        for x in 0..2 {
            put(
                &mut m,
                &layout,
                [x, y, 0, 0, 0],
                &depth[y as usize][x as usize].to_le_bytes(),
            );
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(D32).unwrap(),
        dimension: Dim::D2,
    };
    let go = |filter: Filter, u: f32, v: f32| {
        let mut m = m.clone();
        let s = SamplerDesc {
            mag_filter: filter,
            min_filter: filter,
            compare: Some(CompareFunc::Less),
            ..SamplerDesc::default()
        };
        let st = state(
            vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()],
            vec![sampler_descriptor(&s)],
        );
        let mut t = with_lod(tex(false, TexDim::D2), 32);
        t.shadow = true;
        t.extra = Some(Reg::r32(20));
        let body = vec![
            movf(Reg::r32(4), u),
            movf(Reg::r32(5), v),
            mov(Reg::r16(32), 0),
            movf(Reg::r32(20), 0.5),
            Instr::Texture(t),
        ];
        run(body, 1, st, &mut m).unwrap();
        outf(&m, 0)
    };
    // 0.5 < 0.2 fails; 0.5 < 0.8 passes; the centre averages two passes of four.
    assert_eq!(go(Filter::Nearest, 0.25, 0.25), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(go(Filter::Nearest, 0.75, 0.75), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(go(Filter::Linear, 0.5, 0.5), [0.5, 0.0, 0.0, 1.0]);
}

#[test]
fn implicit_lod_outside_fragment_shaders_faults() {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()],
        vec![sampler_descriptor(&SamplerDesc::default())],
    );
    // No fragment context: no quads to differentiate.
    let body = vec![Instr::Texture(tex(false, TexDim::D2))];
    match run(body, 1, st.clone(), &mut m) {
        Err(Fault::Shader { reason, .. }) => assert!(reason.contains("implicit"), "{reason}"),
        r => panic!("{r:?}"),
    }
    // A missing state register is a shader fault, not a panic.
    let mut t = tex(true, TexDim::D2);
    t.texture = TexIndex::Imm(3);
    assert!(matches!(
        run(vec![Instr::Texture(t)], 1, st, &mut m),
        Err(Fault::Shader { .. })
    ));
}

#[test]
fn image_write_rgba8_drops_outside_pixels() {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![pbe_descriptor(&img, 0, 0).unwrap()], vec![]);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 1),
        movf(Reg::r32(24), 1.0),
        movf(Reg::r32(25), 0.5),
        movf(Reg::r32(26), 0.25),
        movf(Reg::r32(27), 0.0),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2,
            coherent: false,
        }),
    ];
    // Lanes 4..8 lie outside the 4x4 image; writing there would fault on unmapped memory
    // past the image's end or land on other texels.
    run(body, 8, st, &mut m).unwrap();
    for y in 0..4 {
        for x in 0..4 {
            // 0.5 * 255 = 127.5 rounds to 128, 0.25 * 255 = 63.75 to 64.
            let want = if y == 1 {
                vec![255, 128, 64, 0]
            } else {
                vec![0; 4]
            };
            assert_eq!(get(&m, &layout, [x, y, 0, 0, 0], 4), want, "({x}, {y})");
        }
    }
}

/// A helper lane of a fragment quad (no covered sample) writes no texel.
#[test]
fn image_write_skips_helper_lanes() {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![pbe_descriptor(&img, 0, 0).unwrap()], vec![]);
    // Lane l writes texel (l, 0).
    let code = vec![
        Instr::GetSr(GetSr {
            dst: Dst::from(Reg::r32(4)),
            sr: SpecialReg::THREAD_INDEX_IN_SIMDGROUP,
        }),
        mov(Reg::r32(5), 0),
        movf(Reg::r32(24), 1.0),
        movf(Reg::r32(25), 1.0),
        movf(Reg::r32(26), 1.0),
        movf(Reg::r32(27), 1.0),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2,
            coherent: false,
        }),
        Instr::Stop,
    ];
    let l = LaunchState::new([4, 1, 1], [4, 1, 1]);
    let mut f = FragmentContext::new([4, 4], 1, 4);
    // Lanes 1 and 2 are helpers.
    f.coverage[1] = 0;
    f.coverage[2] = 0;
    let mut gfx = GraphicsContext {
        textures: st,
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    for x in 0..4u32 {
        let want = if x == 1 || x == 2 {
            vec![0; 4]
        } else {
            vec![255; 4]
        };
        assert_eq!(get(&m, &layout, [x, 0, 0, 0, 0], 4), want, "texel ({x}, 0)");
    }
}

#[test]
fn image_write_bgra8_srgb_from_halves() {
    let layout = Layout::new(2, 2, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(BGRA8_SRGB).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(vec![pbe_descriptor(&img, 0, 0).unwrap()], vec![]);
    // Halves (R, G, B, A) = (0.5, 0.0, 1.0, 0.5).
    let body = vec![
        mov(Reg::r32(4), 1),
        mov(Reg::r32(5), 0),
        mov(Reg::r16(48), 0x3800),
        mov(Reg::r16(49), 0x0000),
        mov(Reg::r16(50), 0x3c00),
        mov(Reg::r16(51), 0x3800),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r16(48),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2,
            coherent: false,
        }),
    ];
    run(body, 1, st, &mut m).unwrap();
    let srgb_half = ((1.055 * 0.5f64.powf(1.0 / 2.4) - 0.055) * 255.0).round() as u8;
    // Memory order B, G, R, A; alpha is not sRGB-encoded.
    assert_eq!(
        get(&m, &layout, [1, 0, 0, 0, 0], 4),
        vec![255, 0, srgb_half, 128]
    );
}

#[test]
fn image_write_level_layer_and_sample() {
    let layout = Layout::new(8, 8, 3, 4, 8, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA16F).unwrap(),
        dimension: Dim::D2Array,
    };
    // PBE of level 1, layers 1..3; the shader writes layer 1 of that (image layer 2) at lod 1
    // (image level 2).
    let st = state(vec![pbe_descriptor_layers(&img, 1, 1, 2).unwrap()], vec![]);
    let body = vec![
        mov(Reg::r32(4), 1),
        mov(Reg::r32(5), 1),
        mov(Reg::r32(6), 1),
        mov(Reg::r16(32), 1),
        movf(Reg::r32(24), 1.0),
        movf(Reg::r32(25), -2.0),
        movf(Reg::r32(26), 0.5),
        movf(Reg::r32(27), 65504.0),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Reg(Reg::r16(32)),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2Array,
            coherent: false,
        }),
    ];
    run(body, 1, st, &mut m).unwrap();
    assert_eq!(
        get(&m, &layout, [1, 1, 2, 2, 0], 8),
        vec![0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b]
    );

    // Sample 2 of a 4x MSAA R32 image.
    let ms = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 4).unwrap();
    let mut m = memory(&ms);
    let img = ImageDesc {
        base: IMG,
        layout: &ms,
        format: pixel_format(R32_SFLOAT).unwrap(),
        dimension: Dim::D2Multisampled,
    };
    let st = state(vec![pbe_descriptor(&img, 0, 0).unwrap()], vec![]);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 3),
        mov(Reg::r32(6), 2),
        movf(Reg::r32(24), 0.75),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2Ms,
            coherent: false,
        }),
    ];
    run(body, 4, st, &mut m).unwrap();
    for x in 0..4 {
        for s in 0..4 {
            let want = if s == 2 { 0.75f32 } else { 0.0 };
            assert_eq!(
                get(&m, &ms, [x, 3, 0, 0, s], 4),
                want.to_le_bytes().to_vec()
            );
        }
    }
}

/// Storage views as the ICD describes them, on layouts with page-aligned layers (ail's
/// writeable images): a 3D view sees every slice, fewer at deeper levels; a 1D array view's
/// layers count from its first layer.
#[test]
fn image_write_3d_slices_and_1d_array_layers() {
    let writeable = Usage {
        writeable_image: true,
        ..Usage::default()
    };
    let vol = Layout::with_usage(8, 8, 4, 2, 4, Tiling::Twiddled, 1, writeable).unwrap();
    assert!(vol.page_aligned_layers);
    let mut m = memory(&vol);
    let img = ImageDesc {
        base: IMG,
        layout: &vol,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D3,
    };
    // Level 1 of the volume (4x4x2); lane l writes (l, l, l) with 50 + l: lanes 0 and 1
    // land, lanes 2 and 3 are past the level's two slices.
    let st = state(vec![pbe_descriptor_layers(&img, 1, 0, 4).unwrap()], vec![]);
    let write = |dim| {
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim,
            coherent: false,
        })
    };
    let plus = |dst: u16, k: u32| {
        Instr::IAdd(IAdd {
            dst: Dst::from(Reg::r32(dst)),
            a: ISrc::new(Operand::Reg(Reg::r32(1))),
            b: ISrc::new(Operand::Imm(k)),
            negate_b: false,
            shift: 0,
            saturate: false,
        })
    };
    let body = vec![
        lane_index(Reg::r32(4)),
        lane_index(Reg::r32(5)),
        lane_index(Reg::r32(6)),
        plus(24, 50),
        write(TexDim::D3),
    ];
    run(body, 4, st, &mut m).unwrap();
    for l in 0..2u32 {
        assert_eq!(get(&m, &vol, [l, l, l, 1, 0], 4), (50 + l).to_le_bytes());
    }
    let written = m.bytes(IMG, vol.size as usize).unwrap();
    let nonzero = written.chunks_exact(4).filter(|t| *t != [0; 4]).count();
    assert_eq!(nonzero, 2, "only the two texels inside level 1");

    // Layers 1..3 of a 16-texel 1D image of three layers: view layer 1 is image layer 2.
    let line = Layout::with_usage(16, 1, 3, 1, 4, Tiling::Twiddled, 1, writeable).unwrap();
    let mut m = memory(&line);
    let img = ImageDesc {
        base: IMG,
        layout: &line,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D1Array,
    };
    let st = state(vec![pbe_descriptor_layers(&img, 0, 1, 2).unwrap()], vec![]);
    let body = vec![
        plus(4, 5),
        mov(Reg::r32(5), 1),
        plus(24, 70),
        write(TexDim::D1Array),
    ];
    run(body, 2, st, &mut m).unwrap();
    for x in 0..2u32 {
        assert_eq!(
            get(&m, &line, [5 + x, 0, 2, 0, 0], 4),
            (70 + x).to_le_bytes()
        );
        assert_eq!(get(&m, &line, [5 + x, 0, 1, 0, 0], 4), [0; 4]);
    }
}

#[test]
fn image_write_then_load_round_trip() {
    let layout = Layout::new(16, 2, 1, 1, 4, Tiling::Linear { stride: None }, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![
            pbe_descriptor(&img, 0, 0).unwrap(),
            texture_descriptor(&img, 0, 1, 0, 1).unwrap(),
        ],
        vec![],
    );
    let mut load = tex(true, TexDim::D2);
    load.texture = TexIndex::Imm(1);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 1),
        // value = 1000 + lane
        Instr::IAdd(IAdd {
            dst: Dst::from(Reg::r32(24)),
            a: ISrc::new(Operand::Reg(Reg::r32(1))),
            b: ISrc::new(Operand::Imm(200)),
            negate_b: false,
            shift: 0,
            saturate: false,
        }),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2,
            coherent: false,
        }),
        Instr::Texture(load),
    ];
    run(body, 16, st, &mut m).unwrap();
    for x in 0..16u32 {
        assert_eq!(out4(&m, x as usize), [200 + x, 0, 0, 1]);
        let off = u64::from(layout.linear_stride) + u64::from(4 * x);
        assert_eq!(m.bytes(IMG + off, 4).unwrap(), (200 + x).to_le_bytes());
    }
}

#[test]
fn sample_with_explicit_gradients() {
    // Level l is filled with red = 100 * l; 4x4, 2x2, 1x1.
    let layout = Layout::new(4, 4, 1, 3, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for level in 0..3 {
        let (w, h) = layout.level_extent(level);
        for y in 0..h {
            for x in 0..w {
                put(
                    &mut m,
                    &layout,
                    [x, y, 0, level, 0],
                    &[(100 * level) as u8, 0, 0, 255],
                );
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(RGBA8).unwrap(),
        dimension: Dim::D2,
    };
    let s = SamplerDesc {
        mip_filter: MipFilter::Linear,
        ..SamplerDesc::default()
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 3, 0, 1).unwrap()],
        vec![sampler_descriptor(&s)],
    );
    let go = |min: Option<u32>| {
        let mut m = m.clone();
        let mut t = tex(false, TexDim::D2);
        t.lod_mode = if min.is_some() {
            LodMode::GradMin
        } else {
            LodMode::Grad
        };
        t.lod = Operand::Reg(Reg::r32(20));
        // d/dx = (0.5, 0), d/dy = (0, 0.25): the longer one spans 0.5 * 4 = 2 texels, LOD 1.
        let mut body = vec![
            movf(Reg::r32(4), 0.5),
            movf(Reg::r32(5), 0.5),
            movf(Reg::r32(20), 0.5),
            movf(Reg::r32(21), 0.0),
            movf(Reg::r32(22), 0.0),
            movf(Reg::r32(23), 0.25),
        ];
        if let Some(v) = min {
            body.push(mov(Reg::r32(24), v));
        }
        body.push(Instr::Texture(t));
        run(body, 1, st.clone(), &mut m).unwrap();
        outf(&m, 0)[0]
    };
    assert_eq!(go(None), 100.0 / 255.0);
    // A minimum of 1.5 (f16 0x3e00) raises it halfway to level 2.
    assert!((go(Some(0x3e00)) - 150.0 / 255.0).abs() < 1e-6);
}

#[test]
fn sample_cube_array_faces() {
    // Two cubes of 2x2 faces; texel (x, y) of layer l holds 10 * l + x + 2 * y.
    let layout = Layout::new(2, 2, 12, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for l in 0..12 {
        for y in 0..2 {
            for x in 0..2 {
                put(
                    &mut m,
                    &layout,
                    [x, y, l, 0, 0],
                    &(10 * l + x + 2 * y).to_le_bytes(),
                );
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::CubeArray,
    };
    let d = texture_descriptor(&img, 0, 1, 0, 12).unwrap();
    // Depth counts cubes: 2, stored minus one at bit 110.
    assert_eq!(
        (u64::from_le_bytes(d[8..16].try_into().unwrap()) >> 46) & 0x3fff,
        1
    );
    let st = state(vec![d], vec![sampler_descriptor(&SamplerDesc::default())]);
    let go = |dir: [f32; 3], cube: u32| {
        let mut m = m.clone();
        let body = vec![
            movf(Reg::r32(4), dir[0]),
            movf(Reg::r32(5), dir[1]),
            movf(Reg::r32(6), dir[2]),
            mov(Reg::r32(7), cube),
            mov(Reg::r16(32), 0),
            Instr::Texture(with_lod(tex(false, TexDim::CubeArray), 32)),
        ];
        run(body, 1, st.clone(), &mut m).unwrap();
        out4(&m, 0)[0]
    };
    // +Y of cube 1 is layer 8; its centre rounds to texel (1, 1).
    assert_eq!(go([0.0, 1.0, 0.0], 1), 83);
    // -Z of cube 1 (layer 11): s = (-x / 1 + 1) / 2 = 0.75, t = (-y + 1) / 2 = 0.4: texel (1, 0).
    assert_eq!(go([-0.5, 0.2, -1.0], 1), 111);
    // +X of cube 0: s from -z, t from -y: (0.9, 0.1) -> texel (1, 0).
    assert_eq!(go([1.0, 0.8, -0.8], 0), 1);
}

/// Fills every texel of every layer and level with [`tagged`] values.
fn fill_tagged(m: &mut FlatMemory, layout: &Layout) {
    for layer in 0..layout.layers {
        for level in 0..layout.levels {
            let (w, h) = layout.level_extent(level);
            for y in 0..h {
                for x in 0..w {
                    let v = tagged(x, y, layer, level).to_le_bytes();
                    put(m, layout, [x, y, layer, level, 0], &v);
                }
            }
        }
    }
}

#[test]
fn load_through_page_aligned_and_linear_array_layers() {
    use hw::g13::layout::Usage;
    let storage = Usage {
        writeable_image: true,
        ..Usage::default()
    };
    let paged = Layout::with_usage(4, 4, 3, 1, 4, Tiling::Twiddled, 1, storage).unwrap();
    assert_eq!(paged.layer_stride, 0x4000);
    let linear = Layout::new(4, 4, 3, 1, 4, Tiling::Linear { stride: Some(48) }, 1).unwrap();
    for layout in [paged, linear] {
        let mut m = memory(&layout);
        fill_tagged(&mut m, &layout);
        let img = ImageDesc {
            base: IMG,
            layout: &layout,
            format: pixel_format(R32_UINT).unwrap(),
            dimension: Dim::D2Array,
        };
        let st = state(vec![texture_descriptor(&img, 0, 1, 0, 3).unwrap()], vec![]);
        let body = vec![
            lane_index(Reg::r32(4)),
            mov(Reg::r32(5), 3),
            mov(Reg::r32(6), 2),
            Instr::Texture(tex(true, TexDim::D2Array)),
        ];
        run(body, 4, st, &mut m).unwrap();
        for x in 0..4 {
            assert_eq!(
                out4(&m, x as usize)[0],
                tagged(x, 3, 2, 0),
                "{:?}",
                layout.tiling
            );
        }
    }
}

#[test]
fn load_from_deep_mip_level_of_large_array() {
    // 256x256 RGBA8 with the full chain: layers over a page apart start on pages.
    let layout = Layout::new(256, 256, 2, 9, 4, Tiling::Twiddled, 1).unwrap();
    assert!(layout.page_aligned_layers);
    let mut m = memory(&layout);
    for level in [0, 6, 8] {
        let (w, h) = layout.level_extent(level);
        for y in 0..h {
            for x in 0..w {
                put(
                    &mut m,
                    &layout,
                    [x, y, 1, level, 0],
                    &tagged(x, y, 1, level).to_le_bytes(),
                );
            }
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2Array,
    };
    let st = state(vec![texture_descriptor(&img, 0, 9, 0, 2).unwrap()], vec![]);
    for level in [0u32, 6, 8] {
        let mut m = m.clone();
        let body = vec![
            lane_index(Reg::r32(4)),
            mov(Reg::r32(5), 0),
            mov(Reg::r32(6), 1),
            mov(Reg::r16(32), level),
            Instr::Texture(with_lod(tex(true, TexDim::D2Array), 32)),
        ];
        run(body, 4, st.clone(), &mut m).unwrap();
        let w = layout.level_extent(level).0;
        for x in 0..4u32 {
            let want = if x < w { tagged(x, 0, 1, level) } else { 0 };
            assert_eq!(out4(&m, x as usize)[0], want, "level {level} x {x}");
        }
    }
}

#[test]
fn swizzled_packed_format_write_and_read_back() {
    // B4G4R4A4_UNORM_PACK16: B in bits 12..16, G 8..12, R 4..8, A 0..4.
    const B4G4R4A4: i32 = 3;
    let layout = Layout::new(2, 2, 1, 1, 2, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(B4G4R4A4).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![
            pbe_descriptor(&img, 0, 0).unwrap(),
            texture_descriptor(&img, 0, 1, 0, 1).unwrap(),
        ],
        vec![],
    );
    let mut load = tex(true, TexDim::D2);
    load.texture = TexIndex::Imm(1);
    let body = vec![
        mov(Reg::r32(4), 1),
        mov(Reg::r32(5), 1),
        movf(Reg::r32(24), 1.0),
        movf(Reg::r32(25), 0.0),
        movf(Reg::r32(26), 0.2),
        movf(Reg::r32(27), 0.4),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(0),
            dim: TexDim::D2,
            coherent: false,
        }),
        Instr::Texture(load),
    ];
    run(body, 1, st, &mut m).unwrap();
    // R = 15, G = 0, B = 0.2 * 15 = 3, A = 0.4 * 15 = 6.
    let word = (3u16 << 12) | (15 << 4) | 6;
    assert_eq!(
        get(&m, &layout, [1, 1, 0, 0, 0], 2),
        word.to_le_bytes().to_vec()
    );
    assert_eq!(outf(&m, 0), [1.0, 0.0, 3.0 / 15.0, 6.0 / 15.0]);
}

#[test]
fn gather_component_of_footprint() {
    // 4x4 R32_UINT holding x + 10 * y.
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for y in 0..4 {
        for x in 0..4 {
            put(
                &mut m,
                &layout,
                [x, y, 0, 0, 0],
                &(x + 10 * y).to_le_bytes(),
            );
        }
    }
    let img = ImageDesc {
        base: IMG,
        layout: &layout,
        format: pixel_format(R32_UINT).unwrap(),
        dimension: Dim::D2,
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()],
        vec![sampler_descriptor(&SamplerDesc::default())],
    );
    let go = |component: u8| {
        let mut m = m.clone();
        let mut t = tex(false, TexDim::D2);
        t.gather = Some(component);
        // (1.6, 2.2) texels: footprint i0 = 1, i1 = 2, j0 = 1, j1 = 2.
        let body = vec![
            movf(Reg::r32(4), 1.6 / 4.0),
            movf(Reg::r32(5), 2.2 / 4.0),
            Instr::Texture(t),
        ];
        run(body, 1, st.clone(), &mut m).unwrap();
        out4(&m, 0)
    };
    // Order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
    assert_eq!(go(0), [21, 22, 12, 11]);
    // Component 3 of R32_UINT is the swizzle's constant one.
    assert_eq!(go(3), [1; 4]);
}

#[test]
fn null_descriptors_read_zero_and_drop_writes() {
    use hw::g13::image_desc::{null_pbe_descriptor, null_texture_descriptor};
    let mut m = FlatMemory::new();
    m.map(OUT, vec![0xaa; 32 * 16]);
    let st = state(
        vec![null_texture_descriptor(), null_pbe_descriptor()],
        vec![sampler_descriptor(&SamplerDesc::default())],
    );
    let body = vec![
        mov(Reg::r32(4), 1),
        mov(Reg::r32(5), 1),
        mov(Reg::r16(32), 0),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(4),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: TexIndex::Imm(1),
            dim: TexDim::D2,
            coherent: false,
        }),
        Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
    ];
    run(body, 2, st.clone(), &mut m).unwrap();
    assert_eq!(out4(&m, 0), [0; 4]);
    assert_eq!(out4(&m, 1), [0; 4]);
    run(vec![Instr::Texture(tex(true, TexDim::D2))], 1, st, &mut m).unwrap();
    assert_eq!(out4(&m, 0), [0; 4]);
}

/// `block_image_store` writes the whole tile, whichever lanes run it, at the tile's own
/// pixels (none outside the image), each sample to its sample, with the PBE's swizzle and
/// format: a byte copy for RGBA8/BGRA8, a conversion for 10:10:10:2 and half floats.
#[test]
fn block_image_store_writes_the_tile_through_the_pbe() {
    const BGRA8: i32 = 44;
    const A2B10G10R10: i32 = 64;
    let cases = [
        (RGBA8, MemFormat::U8Norm, 4, 1),
        (BGRA8, MemFormat::U8Norm, 4, 1),
        (A2B10G10R10, MemFormat::RGB10A2, 4, 1),
        (RGBA16F, MemFormat::F16, 8, 1),
        (RGBA8, MemFormat::U8Norm, 4, 2),
    ];
    // In the first image the tile hangs over the edges; in the second it is inside, where
    // a twiddled square is written as one run.
    let cases = cases.iter().flat_map(|&c| [(c, (24, 20)), (c, (32, 32))]);
    for ((vk, format, bytes, samples), (w, h)) in cases {
        let layout = Layout::new(w, h, 1, 1, bytes, Tiling::Twiddled, samples).unwrap();
        let mut m = memory(&layout);
        let img = ImageDesc {
            base: IMG,
            layout: &layout,
            format: pixel_format(vk).unwrap(),
            dimension: if samples > 1 {
                Dim::D2Multisampled
            } else {
                Dim::D2
            },
        };
        let st = state(vec![pbe_descriptor(&img, 0, 0).unwrap()], vec![]);
        // A 16x16 tile at (16, 16). Each sample holds 12 bytes; the target starts at byte 4. Element values are kept
        // finite for the half floats (exponent below 31).
        let stride = 12usize;
        let mut f = FragmentContext::new([16, 16], samples, stride as u32);
        f.tile_origin = [16, 16];
        for (i, b) in f.tilebuffer.iter_mut().enumerate() {
            *b = (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3] & 0xbf;
        }
        let tile = f.tilebuffer.clone();
        let code = vec![
            mov(Reg::r32(3), 4),
            Instr::BlockImageStore(BlockImageStore {
                format,
                offset: Reg::r32(3),
                texture: TexIndex::Imm(0),
                dim: if samples > 1 {
                    TexDim::D2Ms
                } else {
                    TexDim::D2
                },
            }),
            Instr::Stop,
        ];
        // Two lanes run it; the tile is stored once and whole all the same.
        let l = LaunchState::new([2, 1, 1], [2, 1, 1]);
        let mut gfx = GraphicsContext {
            textures: st,
            fragment: Some(f),
            vertex: None,
        };
        run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
        for y in 0..h {
            for x in 0..w {
                for s in 0..samples {
                    let got = get(&m, &layout, [x, y, 0, 0, s], bytes as usize);
                    if x < 16 || y < 16 {
                        assert_eq!(got, vec![0; bytes as usize], "({x}, {y}) is not the tile's");
                        continue;
                    }
                    let p = (((y - 16) * 16 + (x - 16)) * samples + s) as usize;
                    let e = &tile[p * stride + 4..p * stride + 4 + bytes as usize];
                    let want: Vec<u8> = match vk {
                        // Memory holds B, G, R, A; the tile R, G, B, A.
                        BGRA8 => vec![e[2], e[1], e[0], e[3]],
                        _ => e.to_vec(),
                    };
                    assert_eq!(got, want, "{vk} ({x}, {y}) sample {s}");
                }
            }
        }
    }
}
