//! The group-wide common sample against the lane-by-lane path over random images (formats,
//! sizes, mip chains, twiddled and linear), samplers (filters, mip filters, wrap modes,
//! border colours, LOD clamps), coordinates (inside, outside, huge, NaN), LODs (explicit,
//! implicit from quads, biased, with a minimum) and exec masks: every result the group path
//! gives must be the lane-by-lane path's, bit for bit, and it must take most of the cases
//! that fit it.

use super::super::group::SimdGroup;
use super::super::program::Program;
use super::super::texture::{sample_lanes, Halves, Lod, Rows, TexOp, TextureState};
use super::super::FlatMemory;
use crate::texel::format::texel_bytes;
use hw::g13::control::descriptors::{
    BorderColour, Filter, MipFilter, TextureDimension as Dim, Wrap,
};
use hw::g13::image_desc::{
    pixel_format, sampler_descriptor, texture_descriptor, ImageDesc, SamplerDesc,
};
use hw::g13::layout::{Layout, Tiling};
use hw::isa::*;

const IMG: u64 = 0x40_0000;
const LANES: usize = SIMD_WIDTH;

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.next(xs.len() as u64) as usize]
    }

    /// A coordinate: mostly inside 0..1, sometimes outside, huge or not a number.
    fn coord(&mut self) -> f32 {
        match self.next(16) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -3.0e9,
            3..=5 => (self.next(4000) as f32 - 2000.0) / 500.0,
            _ => self.next(100_000) as f32 / 100_000.0,
        }
    }
}

/// VkFormat numbers: RGBA8 UNORM, BGRA8 sRGB, R8 UNORM, RGBA16F, R32F, A2B10G10R10 UNORM,
/// RG16 SNORM, and R32 UINT (integer: the group path must leave it).
const FORMATS: [i32; 8] = [37, 50, 9, 97, 100, 64, 78, 98];

const WRAPS: [Wrap; 6] = [
    Wrap::Repeat,
    Wrap::MirroredRepeat,
    Wrap::ClampToEdge,
    Wrap::ClampToBorder,
    Wrap::ClampGl,
    Wrap::MirroredClampToEdge,
];

#[test]
fn the_group_path_samples_as_the_lane_path_does() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut taken, mut fitting) = (0, 0);
    for case in 0..600 {
        let vk = r.pick(&FORMATS);
        let format = pixel_format(vk).unwrap();
        let bytes = texel_bytes(format.channels).unwrap();
        let (w, h) = (1 + r.next(40) as u32, 1 + r.next(40) as u32);
        let linear = r.next(4) == 0;
        let levels = if linear {
            1
        } else {
            1 + r.next(u64::from(32 - w.max(h).leading_zeros())) as u32
        };
        let tiling = if linear {
            Tiling::Linear { stride: None }
        } else {
            Tiling::Twiddled
        };
        let layout = Layout::new(w, h, 1, levels, bytes, tiling, 1).unwrap();
        let size = layout.size as usize;
        let image: Vec<u8> = (0..size).map(|_| r.next(256) as u8).collect();
        let mut m = FlatMemory::new();
        m.map(IMG, image);
        let img = ImageDesc {
            base: IMG,
            layout: &layout,
            format,
            dimension: Dim::D2,
        };
        let first = r.next(u64::from(levels)) as u32;
        let view_levels = 1 + r.next(u64::from(levels - first)) as u32;
        let filter = |r: &mut Rng| r.pick(&[Filter::Nearest, Filter::Linear]);
        // Sometimes the clamp of samplers that do not mipmap (vkcube's): the LOD is not needed.
        let no_mips = r.next(4) == 0;
        let min_lod = if no_mips { 0.0 } else { r.next(8) as f32 / 4.0 };
        let sampler = SamplerDesc {
            mag_filter: filter(&mut r),
            min_filter: filter(&mut r),
            mip_filter: r.pick(&[MipFilter::None, MipFilter::Nearest, MipFilter::Linear]),
            wrap: [r.pick(&WRAPS), r.pick(&WRAPS), r.pick(&WRAPS)],
            min_lod,
            max_lod: if no_mips {
                0.0
            } else {
                min_lod + r.next(40) as f32 / 4.0
            },
            max_anisotropy: if r.next(8) == 0 { 4 } else { 1 },
            border: r.pick(&[
                BorderColour::TransparentBlack,
                BorderColour::OpaqueBlack,
                BorderColour::OpaqueWhite,
            ]),
            ..SamplerDesc::default()
        };
        // State register 1: the same view, or (sometimes) the whole chain.
        let other = if r.next(2) == 0 {
            texture_descriptor(&img, 0, levels, 0, 1).unwrap()
        } else {
            texture_descriptor(&img, first, view_levels, 0, 1).unwrap()
        };
        let state = TextureState {
            textures: vec![
                texture_descriptor(&img, first, view_levels, 0, 1).unwrap(),
                other,
            ],
            samplers: vec![sampler_descriptor(&sampler)],
            ..TextureState::default()
        };

        // Coordinates in r4, r5; the LOD operand in r8l (r8h: the minimum LOD).
        let mut g = SimdGroup::new();
        g.exec = match r.next(4) {
            0 => u32::MAX,
            1 => 0xf0f0_ff0f,
            _ => r.next(1 << 32) as u32 | 1,
        };
        let implicit = r.next(3) != 0;
        // A texture index in r15l: state register 0, or in some lanes 1.
        let by_register = r.next(3) == 0;
        let mixed = r.next(3) == 0;
        let mut names_other = false;
        for lane in 0..LANES {
            let n = mixed && r.next(8) == 0;
            names_other |= n && g.exec & (1 << lane) != 0;
            g.set_reg(Reg::r16(30), lane, u64::from(n));
        }
        for lane in 0..LANES {
            // Quads move together, so implicit LODs take every value around 0.
            let (u, v) = (r.coord(), r.coord());
            g.set_reg(Reg::r32(4), lane, u64::from(u.to_bits()));
            g.set_reg(Reg::r32(5), lane, u64::from(v.to_bits()));
            let lod = crate::texel::minifloat::f32_to_f16(r.next(64) as f32 / 8.0 - 2.0);
            g.set_reg(Reg::r16(16), lane, u64::from(lod));
            g.set_reg(Reg::r16(17), lane, u64::from(lod ^ 0x0400));
        }
        if implicit {
            // Quads of nearby coordinates, at scales from minification to magnification.
            let scale = (r.next(200) as f32 + 1.0) / (r.next(2000) as f32 + 1.0);
            for quad in 0..LANES / 4 {
                let (u0, v0) = (r.coord(), r.coord());
                for k in 0..4 {
                    let lane = 4 * quad + k;
                    let u = u0 + scale * (k & 1) as f32 / w as f32;
                    let v = v0 + scale * (k >> 1) as f32 / h as f32;
                    g.set_reg(Reg::r32(4), lane, u64::from(u.to_bits()));
                    g.set_reg(Reg::r32(5), lane, u64::from(v.to_bits()));
                }
            }
        }
        let lod_src = match (implicit, r.next(3)) {
            (false, _) => Lod::Explicit(Halves::Reg(16)),
            (true, 0) => Lod::Implicit {
                bias: None,
                with_min: false,
            },
            (true, k) => Lod::Implicit {
                bias: Some(Halves::Reg(16)),
                with_min: k == 2,
            },
        };
        let x = Texture {
            load: false,
            dst: if r.next(4) == 0 {
                Reg::r16(40)
            } else {
                Reg::r32(20)
            },
            coords: Reg::r32(4),
            lod_mode: LodMode::Min,
            lod: Operand::Reg(Reg::r16(16)),
            texture: if by_register {
                TexIndex::Reg(Reg::r16(30))
            } else {
                TexIndex::Imm(0)
            },
            sampler: Small::Imm(0),
            dim: TexDim::D2,
            // Often all four results, the case whose slots show the texel's bytes in order.
            mask: if r.next(2) == 0 {
                0xf
            } else {
                1 + r.next(15) as u8
            },
            shadow: false,
            offset: false,
            extra: None,
            gather: None,
            query_lod: false,
            wait_slot: 0,
        };
        let prog = Program::new(0x1_0000, vec![(0, Instr::Texture(x))]).unwrap();
        let rows = Rows::read(&g, &x, lod_src, None, 0);
        let op = TexOp {
            g: &g,
            prog: &prog,
            idx: 0,
            x: &x,
            state: &state,
            uniforms: &[],
            mem: &m,
            rows: &rows,
        };
        let mut group = [[0u64; LANES]; 4];
        let group = super::sample(&op, &mut group).then_some(group);
        let mut out = [[0u64; LANES]; 4];
        let mut done = 0;
        let lanes = sample_lanes(&op, &mut out, &mut done);
        let two_views = by_register && names_other && state.textures[0] != state.textures[1];
        let fits = vk != 98 && sampler.max_anisotropy == 1 && !two_views;
        fitting += usize::from(fits);
        let Some(group) = group else {
            continue;
        };
        taken += 1;
        assert!(fits, "case {case}: the group path took a case outside it");
        assert!(
            lanes.is_ok(),
            "case {case}: {lanes:?} where the group path sampled"
        );
        assert_eq!(done, g.exec, "case {case}: lanes sampled");
        let results = x.mask.count_ones() as usize;
        for lane in (0..LANES).filter(|l| g.exec & (1 << l) != 0) {
            for slot in 0..results {
                assert_eq!(
                    group[slot][lane], out[slot][lane],
                    "case {case} (format {vk}, {w}x{h}, levels {first}+{view_levels}, \
                     {sampler:?}, {lod_src:?}): lane {lane}, result {slot}"
                );
            }
        }
    }
    assert!(
        taken * 10 >= fitting * 9 && taken > 300,
        "the group path took {taken} of {fitting} cases that fit it"
    );
    let direct = super::UNORM8X4_LANES.load(std::sync::atomic::Ordering::Relaxed);
    let in_order = super::IN_ORDER_LANES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        direct > 200 && in_order > 50,
        "only {direct} lanes took the direct path for 8-bit UNORM RGBA texels, {in_order} \
         of them with the slots in order"
    );
}
