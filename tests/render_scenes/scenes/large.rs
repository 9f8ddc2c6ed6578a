//! A large scene: one quad per pixel of a 128x128 target, 32768 small triangles in one draw,
//! each quad its own colour. Enough geometry to overflow a small tiler heap (the partial-render
//! test shrinks it), with an exact expectation.

use super::super::frame::{c8, codes, Frame, Pipe, R, V};
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{draw_rgba8, want_rgba8, RGBA8};

pub const LARGE: &str = "large_20k_triangles";

pub fn scenes() -> Vec<Scene> {
    vec![Scene {
        name: LARGE,
        size: 128,
        needs: || Needs::new().color(RGBA8),
        run: large,
    }]
}

fn cell_colour(x: u32, y: u32) -> [f32; 4] {
    let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)).wrapping_mul(2_654_435_761);
    c8((h >> 24) as u8, (h >> 16) as u8, (h >> 8) as u8, 255)
}

fn large(f: &mut Frame) -> R<Vec<Out>> {
    let mut verts: Vec<V> = Vec::with_capacity((f.w * f.h * 6) as usize);
    let mut want = want_rgba8(f, [0.0, 0.0, 0.0, 1.0]);
    // Rows in an interleaved order, so neighbouring triangles are not drawn one after another.
    for yy in 0..f.h {
        let y = (yy * 37) % f.h;
        for x in 0..f.w {
            let c = cell_colour(x, y);
            verts.extend(f.rect(x as f32, y as f32, x as f32 + 1.0, y as f32 + 1.0, 0.5, c));
            want.set(x, y, codes(c));
        }
    }
    let got = draw_rgba8(f, [0.0, 0.0, 0.0, 1.0], &[(&Pipe::default(), &verts)])?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
