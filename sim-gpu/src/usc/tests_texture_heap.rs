//! Descriptors from memory: bindless texture and PBE operands (descriptor set memory named by
//! a uniform), the command's sampler heap; and the LOD from fragment quads: implicit LOD,
//! anisotropic filtering, LOD queries.

use super::*;
use crate::usc::texture::SamplerHeap;
use crate::usc::{FragmentContext, Preload};

/// Descriptor set memory.
const SET: u64 = 0x80_0000;
/// The sampler heap.
const HEAP: u64 = 0x90_0000;
/// A second image.
const IMG2: u64 = 0x60_0000;

/// The uniform half the tests' set address lives at (`set_address_offset(1)`).
const SET_HALF: u16 = 4;

struct Run {
    lanes: u32,
    state: TextureState,
    /// 64-bit uniforms by half.
    uniforms: Vec<(u16, u64)>,
    /// A fragment-stage launch (one 2x2 quad per four lanes).
    fragment: bool,
    /// 32-bit registers per lane.
    preloads: Vec<(u16, Vec<u32>)>,
}

impl Run {
    fn new(lanes: u32, state: TextureState) -> Run {
        Run {
            lanes,
            state,
            uniforms: vec![(SET_HALF, SET)],
            fragment: false,
            preloads: Vec::new(),
        }
    }

    /// Runs `body` with `r1` = lane, then stores r10..r13 per lane to OUT.
    fn go(&self, body: Vec<Instr>, m: &mut FlatMemory) -> Result<(), Fault> {
        // r1 = the lane, preloaded: fragment-stage lanes have no grid position.
        let mut code = body;
        code.push(store4(Reg::r32(10)));
        code.push(Instr::Stop);
        let mut l = LaunchState::new([self.lanes, 1, 1], [self.lanes, 1, 1]);
        let mut uniforms = vec![(0, OUT)];
        uniforms.extend_from_slice(&self.uniforms);
        for (half, v) in uniforms {
            for h in 0..4 {
                l.uniforms[usize::from(half) + h] = (v >> (16 * h)) as u16;
            }
        }
        l.preloads = std::iter::once(&(1, (0..self.lanes).collect()))
            .chain(&self.preloads)
            .map(|(r, values)| Preload {
                reg: Reg::r32(*r),
                values: values.clone(),
            })
            .collect();
        let mut gfx = GraphicsContext {
            textures: self.state.clone(),
            fragment: self.fragment.then(|| FragmentContext::new([8, 8], 1, 4)),
            ..GraphicsContext::default()
        };
        run_graphics(&prog(code), &l, m, &mut gfx).map(|_| ())
    }
}

fn image(layout: &Layout, base: u64, format: i32) -> ImageDesc<'_> {
    ImageDesc {
        base,
        layout,
        format: pixel_format(format).unwrap(),
        dimension: Dim::D2,
    }
}

fn bindless(index: u16) -> TexIndex {
    TexIndex::Bindless {
        base: SET_HALF,
        index: Reg::r32(index),
    }
}

/// Two 4x4 R32_UINT images: texel (x, y) of IMG holds 100 + x + 4y, of IMG2 200 + x + 4y.
/// The set holds IMG's texture descriptor at 0 and IMG2's at 32 (a 32-byte stride, as
/// sampled images have) and their PBEs at 64 and 96 (the unit sees only the byte offset,
/// whatever descriptor layout the set has).
fn two_images() -> (FlatMemory, Layout) {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    m.map(IMG2, vec![0; layout.size as usize]);
    m.map(SET, vec![0; 0x1000]);
    for y in 0..4 {
        for x in 0..4 {
            put(
                &mut m,
                &layout,
                [x, y, 0, 0, 0],
                &(100 + x + 4 * y).to_le_bytes(),
            );
            let off = layout.offset_of(x, y, 0, 0, 0).unwrap();
            m.write(IMG2 + off, &(200 + x + 4 * y).to_le_bytes())
                .unwrap();
        }
    }
    for (i, base) in [IMG, IMG2].into_iter().enumerate() {
        let img = image(&layout, base, R32_UINT);
        let t = texture_descriptor(&img, 0, 1, 0, 1).unwrap();
        m.write(SET + 32 * i as u64, &t).unwrap();
        let p = pbe_descriptor(&img, 0, 0).unwrap();
        m.write(SET + 64 + 32 * i as u64, &p).unwrap();
    }
    (m, layout)
}

/// r20 = the lane's descriptor offset from `base`: +0 for even lanes, +32 for odd ones
/// (non-uniform indexing).
fn alternate_offsets(r: &mut Run, base: u32) {
    let offsets = (0..r.lanes).map(|l| base + 32 * (l % 2)).collect();
    r.preloads.push((20, offsets));
}

#[test]
fn bindless_loads_read_each_lanes_descriptor() {
    let (mut m, _) = two_images();
    let mut t = tex(true, TexDim::D2);
    t.texture = bindless(20);
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 2),
        Instr::Texture(t),
    ];
    let mut r = Run::new(4, TextureState::default());
    alternate_offsets(&mut r, 0);
    r.go(body, &mut m).unwrap();
    for lane in 0..4u32 {
        let base = if lane % 2 == 0 { 100 } else { 200 };
        assert_eq!(out4(&m, lane as usize)[0], base + lane + 8, "lane {lane}");
    }
}

#[test]
fn bindless_descriptor_in_unmapped_memory_faults() {
    let (mut m, _) = two_images();
    let mut t = tex(true, TexDim::D2);
    t.texture = bindless(20);
    // 0x2000 past the set: unmapped.
    let body = vec![mov(Reg::r32(20), 0x2000), Instr::Texture(t)];
    let r = Run::new(1, TextureState::default()).go(body, &mut m);
    assert!(
        matches!(r, Err(Fault::Unmapped { va, .. }) if va == SET + 0x2000),
        "{r:?}"
    );
    // A set address of garbage bytes is a decode fault naming the descriptor's address.
    m.write(SET + 0x100, &[0xff; 24]).unwrap();
    let body = vec![mov(Reg::r32(20), 0x100), Instr::Texture(t)];
    match Run::new(1, TextureState::default()).go(body, &mut m) {
        Err(Fault::Shader { reason, .. }) => {
            assert!(
                reason.contains("bindless descriptor at 0x800100"),
                "{reason}"
            )
        }
        r => panic!("{r:?}"),
    }
}

#[test]
fn bindless_image_write_per_lane_pbe() {
    let (mut m, layout) = two_images();
    let body = vec![
        lane_index(Reg::r32(4)),
        mov(Reg::r32(5), 3),
        Instr::ImageWrite(ImageWrite {
            src: Reg::r32(24),
            coords: Reg::r32(4),
            lod: Small::Imm(0),
            texture: bindless(20),
            dim: TexDim::D2,
            coherent: false,
        }),
    ];
    let mut r = Run::new(4, TextureState::default());
    alternate_offsets(&mut r, 64);
    r.preloads.push((24, (0..4).map(|l| l + 7).collect()));
    r.go(body, &mut m).unwrap();
    for x in 0..4u32 {
        let off = layout.offset_of(x, 3, 0, 0, 0).unwrap();
        let (img, other) = if x % 2 == 0 { (IMG, IMG2) } else { (IMG2, IMG) };
        let at = |b: u64| u32::from_le_bytes(m.bytes(b + off, 4).unwrap().try_into().unwrap());
        assert_eq!(at(img), x + 7, "x = {x}");
        let untouched = if other == IMG { 100 } else { 200 } + x + 12;
        assert_eq!(at(other), untouched, "x = {x}");
    }
}

/// A 4x4 RGBA8 image whose texel (x, y) is red 60x, green 60y, and samplers at heap entries
/// 0 (nearest, clamp to edge) and 1 (repeat).
fn heap_setup() -> (FlatMemory, TextureState) {
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    sampled_image(&mut m, &layout);
    m.map(HEAP, vec![0xff; 0x1000]);
    let clamp = sampler_descriptor(&SamplerDesc::default());
    let repeat = sampler_descriptor(&SamplerDesc {
        wrap: [Wrap::Repeat; 3],
        ..SamplerDesc::default()
    });
    m.write(HEAP, &clamp).unwrap();
    m.write(HEAP + 8, &repeat).unwrap();
    let img = image(&layout, IMG, RGBA8);
    let mut st = state(vec![texture_descriptor(&img, 0, 1, 0, 1).unwrap()], vec![]);
    st.sampler_heap = SamplerHeap {
        base: HEAP,
        count: 2,
    };
    (m, st)
}

fn heap_sample(sampler: u32) -> Vec<Instr> {
    let mut t = with_lod(tex(false, TexDim::D2), 32);
    t.sampler = Small::Reg(Reg::r16(34));
    vec![
        // u = -0.1: texel -1, clamped to 0 or repeated to 3.
        movf(Reg::r32(4), -0.1),
        movf(Reg::r32(5), 0.3),
        mov(Reg::r16(32), 0),
        mov(Reg::r16(34), sampler),
        Instr::Texture(t),
    ]
}

#[test]
fn register_sampler_operands_read_the_sampler_heap() {
    let (m0, st) = heap_setup();
    let go = |st: &TextureState, sampler: u32| {
        let mut m = m0.clone();
        Run::new(1, st.clone())
            .go(heap_sample(sampler), &mut m)
            .map(|_| outf(&m, 0)[0])
    };
    assert_eq!(go(&st, 0).unwrap(), 0.0);
    assert_eq!(go(&st, 1).unwrap(), 180.0 / 255.0);
    // Entry 2 is past the count (the heap memory there is 0xff bytes).
    match go(&st, 2) {
        Err(Fault::Shader { reason, .. }) => assert!(reason.contains("past"), "{reason}"),
        r => panic!("{r:?}"),
    }
    // No heap at all.
    let mut none = st.clone();
    none.sampler_heap = SamplerHeap::default();
    match go(&none, 0) {
        Err(Fault::Shader { reason, .. }) => {
            assert!(reason.contains("no sampler heap"), "{r}", r = reason)
        }
        r => panic!("{r:?}"),
    }
    // An immediate sampler operand still names a state register, here not loaded.
    let mut m = m0.clone();
    let body = vec![
        movf(Reg::r32(4), 0.1),
        movf(Reg::r32(5), 0.1),
        mov(Reg::r16(32), 0),
        Instr::Texture(with_lod(tex(false, TexDim::D2), 32)),
    ];
    assert!(matches!(
        Run::new(1, st.clone()).go(body, &mut m),
        Err(Fault::Shader { .. })
    ));
}

#[test]
fn sampler_heap_in_unmapped_memory_faults() {
    let (mut m, mut st) = heap_setup();
    st.sampler_heap = SamplerHeap {
        base: 0x7000_0000,
        count: 4,
    };
    let r = Run::new(1, st).go(heap_sample(3), &mut m);
    assert!(
        matches!(r, Err(Fault::Unmapped { va, .. }) if va == 0x7000_0018),
        "{r:?}"
    );
}

/// An RGBA8 image of `layers` layers and four levels of 8x8 .. 1x1 whose level l is red
/// 60 * l everywhere, its descriptor and a nearest / linear-mip sampler.
fn levels_image(dim: Dim, layers: u32) -> (FlatMemory, TextureState) {
    let layout = Layout::new(8, 8, layers, 4, 4, Tiling::Twiddled, 1).unwrap();
    let mut m = memory(&layout);
    for layer in 0..layers {
        for level in 0..4 {
            let (w, h) = layout.level_extent(level);
            for y in 0..h {
                for x in 0..w {
                    let t = [(60 * level) as u8, 0, 0, 255];
                    put(&mut m, &layout, [x, y, layer, level, 0], &t);
                }
            }
        }
    }
    let img = ImageDesc {
        dimension: dim,
        ..image(&layout, IMG, RGBA8)
    };
    let s = SamplerDesc {
        mip_filter: MipFilter::Linear,
        ..SamplerDesc::default()
    };
    let st = state(
        vec![texture_descriptor(&img, 0, 4, 0, layers).unwrap()],
        vec![sampler_descriptor(&s)],
    );
    (m, st)
}

/// Runs one `texture_sample` per lane in a fragment-stage launch with the coordinates
/// `coords(lane)` preloaded in r4.., returning each lane's red.
fn sample_quads(
    (m, st): &(FlatMemory, TextureState),
    t: Texture,
    lanes: u32,
    coords: impl Fn(usize) -> [f32; 3],
    uniforms: Vec<(u16, u64)>,
    body: Vec<Instr>,
) -> Result<Vec<f32>, Fault> {
    let mut m = m.clone();
    let mut r = Run::new(lanes, st.clone());
    r.fragment = true;
    r.uniforms.extend(uniforms);
    for a in 0..3 {
        let v = (0..lanes as usize)
            .map(|l| coords(l)[a].to_bits())
            .collect();
        r.preloads.push((4 + a as u16, v));
    }
    let mut code = body;
    code.push(Instr::Texture(t));
    r.go(code, &mut m)?;
    Ok((0..lanes as usize).map(|l| outf(&m, l)[0]).collect())
}

fn assert_reds(got: &[f32], lods: &[f32]) {
    for (lane, (g, lod)) in got.iter().zip(lods).enumerate() {
        let want = 60.0 * lod.clamp(0.0, 3.0) / 255.0;
        assert!((g - want).abs() < 1e-3, "lane {lane}: {g} vs {want}");
    }
}

/// The pixel of lane `l` inside its quad.
fn px(l: usize) -> [f32; 2] {
    quad_pixel(l % QUAD_LANES).map(|c| c as f32)
}

#[test]
fn implicit_lod_from_fine_quad_derivatives() {
    let img = levels_image(Dim::D2, 1);
    let coords = |l: usize| {
        let [x, y] = px(l);
        if l < 4 {
            // Two texels a pixel across, one down: rho 2, LOD 1.
            [0.5 + x * 2.0 / 8.0, 0.5 + y / 8.0, 0.0]
        } else {
            // The top row steps one texel a pixel, the bottom row four: fine derivatives
            // differ per row (and per column for d/dy).
            let step = if y == 0.0 { 1.0 } else { 4.0 };
            [0.25 + x * step / 8.0, 0.25 + y / 8.0, 0.0]
        }
    };
    let got = sample_quads(&img, tex(false, TexDim::D2), 8, coords, vec![], vec![]).unwrap();
    // Lane 5's d/dy runs from (1/8, 0) to (4/8, 1/8) after scaling: 3 and 1 texels.
    let lane5 = 10f32.sqrt().log2();
    assert_reds(&got, &[1.0, 1.0, 1.0, 1.0, 0.0, lane5, 2.0, 2.0]);
}

#[test]
fn implicit_lod_bias_and_minimum() {
    let img = levels_image(Dim::D2, 1);
    let coords = |l: usize| {
        let [x, y] = px(l);
        [0.5 + x * 2.0 / 8.0, 0.5 + y / 8.0, 0.0]
    };
    let go = |mode: LodMode, lod: Operand, body: Vec<Instr>, u: Vec<(u16, u64)>| {
        let mut t = tex(false, TexDim::D2);
        t.lod_mode = mode;
        t.lod = lod;
        sample_quads(&img, t, 4, coords, u, body).unwrap()
    };
    // LOD 1 + bias 0.5 (f16 0x3800).
    let got = go(
        LodMode::AutoBias,
        Operand::Reg(Reg::r16(40)),
        vec![mov(Reg::r16(40), 0x3800)],
        vec![],
    );
    assert_reds(&got, &[1.5; 4]);
    // The bias from a uniform (half 40 of a 64-bit uniform at 40).
    let got = go(
        LodMode::AutoBias,
        Operand::Uniform(Reg::r16(40)),
        vec![],
        vec![(40, 0x3800)],
    );
    assert_reds(&got, &[1.5; 4]);
    // Bias -1 (0xbc00) then a minimum of 0.25 (0x3400) in the next half.
    let got = go(
        LodMode::AutoBiasMin,
        Operand::Reg(Reg::r16(40)),
        vec![mov(Reg::r16(40), 0xbc00), mov(Reg::r16(41), 0x3400)],
        vec![],
    );
    assert_reds(&got, &[0.25; 4]);
    // Bias +1 with minimum 0.25: the minimum does not lower it.
    let got = go(
        LodMode::AutoBiasMin,
        Operand::Reg(Reg::r16(40)),
        vec![mov(Reg::r16(40), 0x3c00), mov(Reg::r16(41), 0x3400)],
        vec![],
    );
    assert_reds(&got, &[2.0; 4]);
}

#[test]
fn implicit_lod_of_cube_maps_differentiates_face_coordinates() {
    let img = levels_image(Dim::Cube, 6);
    let run = |coords: &dyn Fn(usize) -> [f32; 3]| {
        sample_quads(&img, tex(false, TexDim::Cube), 4, coords, vec![], vec![]).unwrap()
    };
    // +Z with |ma| = 2: s = (x / 2 + 1) / 2 steps 0.25 a pixel (x steps 1), 2 texels of 8.
    let got = run(&|l| {
        let [x, y] = px(l);
        [-0.5 + x, 0.1 + y * 0.25, 2.0]
    });
    assert_reds(&got, &[1.0; 4]);
    // -X: s from +z. z steps 0.5 a pixel: s steps 0.25, LOD 1.
    let got = run(&|l| {
        let [x, y] = px(l);
        [-1.0, 0.2 + y * 0.1, -0.4 + 0.5 * x]
    });
    assert_reds(&got, &[1.0; 4]);
    // The major axis itself changes: +Z from (0.5, 0, 1) to (0.5, 0, 2). At the left pixel
    // ds = (0 - 0.5 * 1 / 1) / 2 = -0.25 (2 texels, LOD 1); at the right one, on its own
    // direction, (0 - 0.5 * 1 / 4) / 2 = -1/16 (half a texel, LOD -1).
    let got = run(&|l| {
        let [x, _] = px(l);
        [0.5, 0.0, 1.0 + x]
    });
    assert_reds(&got, &[1.0, -1.0, 1.0, -1.0]);
}

#[test]
fn cube_map_gradients_use_the_face_derivatives() {
    let (mut m, st) = levels_image(Dim::Cube, 6);
    let mut t = tex(false, TexDim::Cube);
    t.lod_mode = LodMode::Grad;
    t.lod = Operand::Reg(Reg::r32(20));
    // Direction +Z, d/dx = (0.5, 0, 0): ds = 0.25, 2 texels; d/dy = 0.
    let mut body = vec![
        movf(Reg::r32(4), 0.0),
        movf(Reg::r32(5), 0.0),
        movf(Reg::r32(6), 1.0),
    ];
    for (i, v) in [0.5, 0.0, 0.0, 0.0, 0.0, 0.0].into_iter().enumerate() {
        body.push(movf(Reg::r32(20 + i as u16), v));
    }
    body.push(Instr::Texture(t));
    Run::new(1, st).go(body, &mut m).unwrap();
    assert_reds(&[outf(&m, 0)[0]], &[1.0]);
}

#[test]
fn anisotropic_sampling_spreads_taps_along_the_major_axis() {
    // Level 0 of an 8x8 image: red 30 x; the smaller levels red 250.
    let layout = Layout::new(8, 8, 1, 4, 4, Tiling::Twiddled, 1).unwrap();
    let mut m0 = memory(&layout);
    for level in 0..4 {
        let (w, h) = layout.level_extent(level);
        for y in 0..h {
            for x in 0..w {
                let red = if level == 0 { 30 * x } else { 250 };
                put(
                    &mut m0,
                    &layout,
                    [x, y, 0, level, 0],
                    &[red as u8, 0, 0, 255],
                );
            }
        }
    }
    let img = image(&layout, IMG, RGBA8);
    let go = |max_anisotropy: u32| {
        let mut m = m0.clone();
        let s = SamplerDesc {
            mip_filter: MipFilter::Nearest,
            max_anisotropy,
            ..SamplerDesc::default()
        };
        let st = state(
            vec![texture_descriptor(&img, 0, 4, 0, 1).unwrap()],
            vec![sampler_descriptor(&s)],
        );
        let mut t = tex(false, TexDim::D2);
        t.lod_mode = LodMode::Grad;
        t.lod = Operand::Reg(Reg::r32(20));
        // d/dx = (0.5, 0): 4 texels; d/dy = (0, 0.125): 1 texel.
        let mut body = vec![movf(Reg::r32(4), 0.5), movf(Reg::r32(5), 0.5)];
        for (i, v) in [0.5, 0.0, 0.0, 0.125].into_iter().enumerate() {
            body.push(movf(Reg::r32(20 + i as u16), v));
        }
        body.push(Instr::Texture(t));
        Run::new(1, st).go(body, &mut m).unwrap();
        outf(&m, 0)[0] * 255.0
    };
    // Isotropic: LOD log2(4) = 2. Two taps: LOD log2(4 / 2) = 1.
    assert!((go(1) - 250.0).abs() < 1e-3);
    assert!((go(2) - 250.0).abs() < 1e-3);
    // Four taps at LOD 0, at u = 4 + (i / 5 - 1/2) * 4 texels = 2.8, 3.6, 4.4, 5.2: texels
    // 2..=5, red 60, 90, 120, 150.
    let got = go(4);
    assert!((got - 105.0).abs() < 1e-3, "{got}");
    // The count is capped by the ratio: 16 allowed, ceil(4 / 1) = 4 taps.
    assert!((go(16) - 105.0).abs() < 1e-3);
}

#[test]
fn lod_queries_return_the_clamped_and_the_computed_lod() {
    let img = levels_image(Dim::D2, 1);
    let coords = |l: usize| {
        let [x, y] = px(l);
        [0.5 + x * 2.0 / 8.0, 0.5 + y / 8.0, 0.0]
    };
    let go = |bias: Option<u32>| {
        let mut t = tex(false, TexDim::D2);
        t.query_lod = true;
        t.mask = 0b11;
        let mut body = vec![];
        if let Some(b) = bias {
            t.lod_mode = LodMode::AutoBias;
            t.lod = Operand::Reg(Reg::r16(40));
            body.push(mov(Reg::r16(40), b));
        }
        let (m, st) = &img;
        let mut m = m.clone();
        let mut r = Run::new(4, st.clone());
        r.fragment = true;
        for a in 0..2 {
            let v = (0..4).map(|l| coords(l)[a].to_bits()).collect();
            r.preloads.push((4 + a as u16, v));
        }
        body.push(Instr::Texture(t));
        r.go(body, &mut m).unwrap();
        (0..4).map(|l| outf(&m, l)).collect::<Vec<_>>()
    };
    // LOD 1 of four levels.
    assert!(
        go(None).iter().all(|o| o[..2] == [1.0, 1.0]),
        "{:?}",
        go(None)
    );
    // Bias +3 (f16 0x4200): 4, which mip selection clamps to the last level, 3.
    assert!(go(Some(0x4200)).iter().all(|o| o[..2] == [3.0, 4.0]));
    // Bias -2 (0xc000): -1, clamped to 0.
    assert!(go(Some(0xc000)).iter().all(|o| o[..2] == [0.0, -1.0]));
}

#[test]
fn custom_borders_come_from_the_heaps_border_table() {
    let (mut m, mut st) = heap_setup();
    let custom = sampler_descriptor(&SamplerDesc {
        wrap: [Wrap::ClampToBorder; 3],
        border: BorderColour::Custom,
        ..SamplerDesc::default()
    });
    m.write(HEAP + 8, &custom).unwrap();
    // The border table follows the heap's two descriptors: entry 1's border at 16 + 16.
    let words = [0.25f32, 0.5, 2.0, 0.75].map(f32::to_bits);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.write(HEAP + 16 + 16, &bytes).unwrap();
    // A B8G8R8A8_UNORM view (swizzle B, G, R, A): the border comes back in the view's
    // component order, the UNORM blue clamped to 1.
    let layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    st.textures = vec![texture_descriptor(&image(&layout, IMG, 44), 0, 1, 0, 1).unwrap()];
    let mut out = m.clone();
    Run::new(1, st.clone())
        .go(heap_sample(1), &mut out)
        .unwrap();
    assert_eq!(outf(&out, 0), [0.25, 0.5, 1.0, 0.75]);
    // An R32_UINT view reads the words as integers and keeps only red: (r, 0, 0, 1).
    let int_layout = Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    st.textures = vec![texture_descriptor(&image(&int_layout, IMG, R32_UINT), 0, 1, 0, 1).unwrap()];
    let mut out = m.clone();
    Run::new(1, st).go(heap_sample(1), &mut out).unwrap();
    assert_eq!(out4(&out, 0), [0.25f32.to_bits(), 0, 0, 1]);
}
