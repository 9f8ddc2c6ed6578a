//! Blending (factors, ops, blend constants), colour write masks and logic ops on RGBA8.
//! Every scene draws four opaque horizontal bands (the destination colours), then one column
//! per state over all bands.

use super::super::frame::{blend, c8, codes, opaque, Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{draw_rgba8, want_rgba8, RGBA8};
use ash::vk;
use vk::BlendFactor as B;
use vk::BlendOp as O;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "blend_factors_ops",
            size: 64,
            needs: || Needs::new().blended(RGBA8),
            run: blend_factors_ops,
        },
        Scene {
            name: "blend_constants",
            size: 64,
            needs: || Needs::new().blended(RGBA8),
            run: blend_constants,
        },
        Scene {
            name: "color_write_mask",
            size: 64,
            needs: || Needs::new().color(RGBA8),
            run: color_write_mask,
        },
        Scene {
            name: "logic_op",
            size: 128,
            needs: || Needs::new().color(RGBA8).feature(Feature::LogicOp),
            run: logic_op,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 0.0];

fn bands(f: &Frame) -> (Vec<V>, [[f32; 4]; 4]) {
    let cols = [
        c8(200, 40, 90, 255),
        c8(10, 250, 130, 128),
        c8(64, 64, 64, 0),
        c8(255, 255, 255, 51),
    ];
    let bh = f.h as f32 / 4.0;
    let v = (0..4)
        .flat_map(|i| {
            f.rect(
                0.0,
                bh * i as f32,
                f.w as f32,
                bh * (i + 1) as f32,
                0.5,
                cols[i],
            )
        })
        .collect();
    (v, cols)
}

fn factor(bf: B, s: [f64; 4], d: [f64; 4], k: [f64; 4], ch: usize) -> f64 {
    match bf {
        B::ZERO => 0.0,
        B::ONE => 1.0,
        B::SRC_COLOR => s[ch],
        B::ONE_MINUS_SRC_COLOR => 1.0 - s[ch],
        B::DST_COLOR => d[ch],
        B::ONE_MINUS_DST_COLOR => 1.0 - d[ch],
        B::SRC_ALPHA => s[3],
        B::ONE_MINUS_SRC_ALPHA => 1.0 - s[3],
        B::DST_ALPHA => d[3],
        B::ONE_MINUS_DST_ALPHA => 1.0 - d[3],
        B::CONSTANT_COLOR => k[ch],
        B::ONE_MINUS_CONSTANT_COLOR => 1.0 - k[ch],
        B::CONSTANT_ALPHA => k[3],
        B::ONE_MINUS_CONSTANT_ALPHA => 1.0 - k[3],
        _ => f64::NAN,
    }
}

/// The blended UNORM8 codes of source `s` over destination codes `dst`.
fn blend_ref(
    st: &vk::PipelineColorBlendAttachmentState,
    s: [f32; 4],
    dst: [f64; 4],
    k: [f32; 4],
) -> [f64; 4] {
    let s = s.map(|v| v as f64);
    let d = dst.map(|v| v / 255.0);
    let k = k.map(|v| v as f64);
    let mut out = [0.0; 4];
    for ch in 0..4 {
        let (sf, df, op) = if ch < 3 {
            (
                st.src_color_blend_factor,
                st.dst_color_blend_factor,
                st.color_blend_op,
            )
        } else {
            (
                st.src_alpha_blend_factor,
                st.dst_alpha_blend_factor,
                st.alpha_blend_op,
            )
        };
        let (a, b) = (
            s[ch] * factor(sf, s, d, k, ch),
            d[ch] * factor(df, s, d, k, ch),
        );
        let v = match op {
            O::ADD => a + b,
            O::SUBTRACT => a - b,
            O::REVERSE_SUBTRACT => b - a,
            O::MIN => s[ch].min(d[ch]),
            _ => s[ch].max(d[ch]),
        };
        out[ch] = (v.clamp(0.0, 1.0) * 255.0).round();
    }
    out
}

/// Bands, then one column per blend state with source colour `src[i % src.len()]`.
fn columns(
    f: &mut Frame,
    states: &[vk::PipelineColorBlendAttachmentState],
    src: &[[f32; 4]],
    k: [f32; 4],
) -> R<Vec<Out>> {
    let (band_v, band_c) = bands(f);
    let cw = f.w / states.len() as u32;
    let pipes: Vec<Pipe> = states
        .iter()
        .map(|&b| Pipe {
            blends: vec![b],
            blend_constants: k,
            ..Pipe::default()
        })
        .collect();
    let sets: Vec<Vec<V>> = (0..states.len())
        .map(|i| {
            f.rect(
                (i as u32 * cw) as f32,
                0.0,
                ((i as u32 + 1) * cw) as f32,
                f.h as f32,
                0.5,
                src[i % src.len()],
            )
        })
        .collect();
    let base = Pipe::default();
    let mut draws: Vec<(&Pipe, &[V])> = vec![(&base, band_v.as_slice())];
    draws.extend(pipes.iter().zip(&sets).map(|(p, v)| (p, v.as_slice())));
    let got = draw_rgba8(f, BG, &draws)?;
    let mut want = want_rgba8(f, BG);
    let bh = f.h / 4;
    for (i, st) in states.iter().enumerate() {
        for (b, bc) in band_c.iter().enumerate() {
            let v = blend_ref(st, src[i % src.len()], codes(*bc), k);
            want.fill(
                i as u32 * cw,
                b as u32 * bh,
                (i as u32 + 1) * cw,
                (b as u32 + 1) * bh,
                v,
            );
        }
    }
    // Columns beyond the last state keep the bands.
    for (b, bc) in band_c.iter().enumerate() {
        want.fill(
            states.len() as u32 * cw,
            b as u32 * bh,
            f.w,
            (b as u32 + 1) * bh,
            codes(*bc),
        );
    }
    // Blending may be done in UNORM8 or in float: one code of rounding either way.
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

fn blend_factors_ops(f: &mut Frame) -> R<Vec<Out>> {
    let states = [
        blend(
            B::SRC_ALPHA,
            B::ONE_MINUS_SRC_ALPHA,
            O::ADD,
            B::ONE,
            B::ONE_MINUS_SRC_ALPHA,
            O::ADD,
        ),
        blend(B::ONE, B::ONE, O::ADD, B::ONE, B::ONE, O::ADD),
        blend(B::DST_COLOR, B::ZERO, O::ADD, B::ZERO, B::ONE, O::ADD),
        blend(
            B::ONE_MINUS_DST_ALPHA,
            B::DST_ALPHA,
            O::ADD,
            B::SRC_ALPHA,
            B::ZERO,
            O::ADD,
        ),
        blend(
            B::ONE,
            B::ONE,
            O::SUBTRACT,
            B::ONE,
            B::ONE,
            O::REVERSE_SUBTRACT,
        ),
        blend(
            B::SRC_COLOR,
            B::ONE,
            O::REVERSE_SUBTRACT,
            B::ONE,
            B::ZERO,
            O::ADD,
        ),
        blend(B::ONE, B::ONE, O::MIN, B::ONE, B::ONE, O::MAX),
        blend(
            B::ONE_MINUS_SRC_COLOR,
            B::ONE_MINUS_DST_COLOR,
            O::MAX,
            B::ONE,
            B::ONE,
            O::MIN,
        ),
    ];
    let src = [
        c8(255, 128, 0, 102),
        c8(30, 60, 200, 204),
        c8(120, 10, 250, 255),
    ];
    columns(f, &states, &src, [0.0; 4])
}

fn blend_constants(f: &mut Frame) -> R<Vec<Out>> {
    let states = [
        blend(
            B::CONSTANT_COLOR,
            B::ONE_MINUS_CONSTANT_COLOR,
            O::ADD,
            B::CONSTANT_ALPHA,
            B::ZERO,
            O::ADD,
        ),
        blend(
            B::CONSTANT_ALPHA,
            B::ONE_MINUS_CONSTANT_ALPHA,
            O::ADD,
            B::ONE,
            B::ZERO,
            O::ADD,
        ),
        blend(
            B::ONE_MINUS_CONSTANT_COLOR,
            B::CONSTANT_COLOR,
            O::SUBTRACT,
            B::ONE_MINUS_CONSTANT_ALPHA,
            B::ONE,
            O::ADD,
        ),
        blend(
            B::ZERO,
            B::CONSTANT_COLOR,
            O::ADD,
            B::ZERO,
            B::CONSTANT_ALPHA,
            O::ADD,
        ),
    ];
    let src = [c8(255, 200, 100, 153), c8(0, 100, 255, 51)];
    columns(f, &states, &src, [0.25, 0.5, 0.75, 0.2])
}

fn color_write_mask(f: &mut Frame) -> R<Vec<Out>> {
    use vk::ColorComponentFlags as C;
    let masks = [
        C::R,
        C::G | C::A,
        C::B,
        C::empty(),
        C::R | C::G | C::B,
        C::A,
        C::RGBA,
        C::R | C::B,
    ];
    let states: Vec<_> = masks
        .iter()
        .map(|&m| vk::PipelineColorBlendAttachmentState {
            color_write_mask: m,
            ..opaque()
        })
        .collect();
    let (band_v, band_c) = bands(f);
    let src = c8(17, 34, 51, 68);
    let cw = f.w / masks.len() as u32;
    let pipes: Vec<Pipe> = states
        .iter()
        .map(|&b| Pipe {
            blends: vec![b],
            ..Pipe::default()
        })
        .collect();
    let sets: Vec<Vec<V>> = (0..masks.len())
        .map(|i| {
            f.rect(
                (i as u32 * cw) as f32,
                0.0,
                ((i as u32 + 1) * cw) as f32,
                f.h as f32,
                0.5,
                src,
            )
        })
        .collect();
    let base = Pipe::default();
    let mut draws: Vec<(&Pipe, &[V])> = vec![(&base, band_v.as_slice())];
    draws.extend(pipes.iter().zip(&sets).map(|(p, v)| (p, v.as_slice())));
    let got = draw_rgba8(f, BG, &draws)?;
    let mut want = want_rgba8(f, BG);
    let bh = f.h / 4;
    for (i, m) in masks.iter().enumerate() {
        for (b, bc) in band_c.iter().enumerate() {
            let (s, d) = (codes(src), codes(*bc));
            let bits = [C::R, C::G, C::B, C::A];
            let v = [0, 1, 2, 3].map(|ch| if m.contains(bits[ch]) { s[ch] } else { d[ch] });
            want.fill(
                i as u32 * cw,
                b as u32 * bh,
                (i as u32 + 1) * cw,
                (b as u32 + 1) * bh,
                v,
            );
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

fn logic_op(f: &mut Frame) -> R<Vec<Out>> {
    use vk::LogicOp as L;
    let ops = [
        L::CLEAR,
        L::AND,
        L::AND_REVERSE,
        L::COPY,
        L::AND_INVERTED,
        L::NO_OP,
        L::XOR,
        L::OR,
        L::NOR,
        L::EQUIVALENT,
        L::INVERT,
        L::OR_REVERSE,
        L::COPY_INVERTED,
        L::OR_INVERTED,
        L::NAND,
        L::SET,
    ];
    let (band_v, band_c) = bands(f);
    let src = c8(0xf0, 0x3c, 0xa5, 0x0f);
    let cw = f.w / ops.len() as u32;
    let pipes: Vec<Pipe> = ops
        .iter()
        .map(|&op| Pipe {
            logic_op: Some(op),
            ..Pipe::default()
        })
        .collect();
    let sets: Vec<Vec<V>> = (0..ops.len())
        .map(|i| {
            f.rect(
                (i as u32 * cw) as f32,
                0.0,
                ((i as u32 + 1) * cw) as f32,
                f.h as f32,
                0.5,
                src,
            )
        })
        .collect();
    let base = Pipe::default();
    let mut draws: Vec<(&Pipe, &[V])> = vec![(&base, band_v.as_slice())];
    draws.extend(pipes.iter().zip(&sets).map(|(p, v)| (p, v.as_slice())));
    let got = draw_rgba8(f, BG, &draws)?;
    let mut want = want_rgba8(f, BG);
    let bh = f.h / 4;
    for (i, &op) in ops.iter().enumerate() {
        for (b, bc) in band_c.iter().enumerate() {
            let (s, d) = (codes(src), codes(*bc));
            let v = [0, 1, 2, 3].map(|ch| {
                let (s, d) = (s[ch] as u8, d[ch] as u8);
                (match op {
                    L::CLEAR => 0,
                    L::AND => s & d,
                    L::AND_REVERSE => s & !d,
                    L::COPY => s,
                    L::AND_INVERTED => !s & d,
                    L::NO_OP => d,
                    L::XOR => s ^ d,
                    L::OR => s | d,
                    L::NOR => !(s | d),
                    L::EQUIVALENT => !(s ^ d),
                    L::INVERT => !d,
                    L::OR_REVERSE => s | !d,
                    L::COPY_INVERTED => !s,
                    L::OR_INVERTED => !s | d,
                    L::NAND => !(s & d),
                    _ => 0xff,
                }) as f64
            });
            want.fill(
                i as u32 * cw,
                b as u32 * bh,
                (i as u32 + 1) * cw,
                (b as u32 + 1) * bh,
                v,
            );
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
