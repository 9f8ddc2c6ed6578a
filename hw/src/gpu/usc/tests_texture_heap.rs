//! Descriptors from memory: bindless texture and PBE operands (descriptor set memory named by
//! a uniform), the command's sampler heap, and implicit LOD from fragment quads.

use super::*;
use crate::gpu::usc::texture::SamplerHeap;
use crate::gpu::usc::{FragmentContext, Preload};

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
        let mut code = vec![lane_index(Reg::r32(1))];
        code.extend(body);
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
        l.preloads = self
            .preloads
            .iter()
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
/// sampled images have), PBEs at 64 and 96 (second half of 48-byte storage descriptors
/// would also do; the offset is all the unit sees).
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
