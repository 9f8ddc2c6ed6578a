//! Colour targets that do not fit the tilebuffer: six RGBA32F targets (96 bytes a pixel of a
//! 64-byte tilebuffer) so the fragment shader writes the last ones to memory, with additive
//! blending over overlapping rectangles (the shader reads the target back before it writes)
//! and a write mask on one spilled target.

use super::super::frame::{blend, bytes_of, clear_color, opaque, Frame, Pipe, R};
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use ash::vk;

const RGBA32F: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
const TARGETS: usize = 6;

pub fn scenes() -> Vec<Scene> {
    vec![Scene {
        name: "spilled_targets_blend",
        size: 64,
        needs: || Needs::new().blended(RGBA32F),
        run: spilled_targets_blend,
    }]
}

fn spilled_targets_blend(f: &mut Frame) -> R<Vec<Out>> {
    let one = vk::SampleCountFlags::TYPE_1;
    let mut images = Vec::new();
    let mut views = Vec::new();
    for _ in 0..TARGETS {
        let (i, v) = f.target(RGBA32F, vk::ImageUsageFlags::empty(), one)?;
        images.push(i);
        views.push(v);
    }
    let rp = f.simple_pass(&[RGBA32F; TARGETS], None, one)?;
    let fb = f.framebuffer(rp, &views)?;
    use vk::BlendFactor as B;
    let add = blend(
        B::ONE,
        B::ONE,
        vk::BlendOp::ADD,
        B::ONE,
        B::ONE,
        vk::BlendOp::ADD,
    );
    let mut blends = vec![add; TARGETS];
    // Target 4 (spilled) keeps its clear value in G and B.
    blends[4].color_write_mask = vk::ColorComponentFlags::R | vk::ColorComponentFlags::A;
    // Target 1 (in the tilebuffer) is written without blending.
    blends[1] = opaque();
    let pipe = f.pipeline(
        &Pipe {
            fs: "spill_targets.frag",
            blends,
            ..Pipe::default()
        },
        rp,
    )?;
    let (c1, c2) = ([0.25, 0.5, 0.125, 1.0], [0.5, 0.25, 1.0, 0.5]);
    let mut verts = f.rect(8.0, 8.0, 40.0, 40.0, 0.5, c1);
    verts.extend(f.rect(24.0, 16.0, 56.0, 56.0, 0.5, c2));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let bg = [0.0f32, 1.0, 2.0, 3.0];
    let clears = vec![clear_color(bg); TARGETS];
    let bg = bg.map(f64::from);
    f.submit(|cb| {
        f.begin(cb, rp, fb, &clears);
        f.draw(cb, pipe, vb, 12);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let mut outs = Vec::new();
    for (t, &img) in images.iter().enumerate() {
        let label: &'static str = ["c0", "c1", "c2", "c3", "c4", "c5"][t];
        let got = f.read(
            label,
            img,
            RGBA32F,
            vk::ImageAspectFlags::COLOR,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        )?;
        let k = (t + 1) as f64;
        let mut want = Image::new(label, f.w, f.h, RGBA32F, bg);
        for y in 0..f.h {
            for x in 0..f.w {
                let mut v = bg;
                for (c, [x0, y0, x1, y1]) in [(c1, [8, 8, 40, 40]), (c2, [24, 16, 56, 56])] {
                    if (x0..x1).contains(&x) && (y0..y1).contains(&y) {
                        for ch in 0..4 {
                            let s = f64::from(c[ch]) * k;
                            let masked = t == 4 && (ch == 1 || ch == 2);
                            v[ch] = match (t, masked) {
                                (_, true) => v[ch],
                                (1, _) => s,
                                _ => v[ch] + s,
                            };
                        }
                    }
                }
                want.set(x, y, v);
            }
        }
        outs.push(Out::new(got, Some(want), Tol::EXACT));
    }
    Ok(outs)
}
