//! Shader features the graphics stages reach through the hardware: stack memory in vertex and
//! fragment shaders, interface blocks laid out by member locations, dynamically indexed
//! varyings.

use super::super::frame::{Frame, Pipe, R};
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{draw_rgba8, want_rgba8, RGBA8};

pub fn scenes() -> Vec<Scene> {
    let rgba8 = || Needs::new().color(RGBA8);
    vec![
        Scene {
            name: "local_arrays",
            size: 64,
            needs: rgba8,
            run: local_arrays,
        },
        Scene {
            name: "io_blocks",
            size: 64,
            needs: rgba8,
            run: io_blocks,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Both stages index local arrays dynamically, so both need a stack (scratch) on agx4.
fn local_arrays(f: &mut Frame) -> R<Vec<Out>> {
    let col = [2.0 / 3.0, 0.25, 0.0, 1.0];
    let verts = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, col);
    let pipe = Pipe {
        vs: "local_array.vert",
        fs: "local_array.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&pipe, &verts)])?;
    let mut want = want_rgba8(f, BG);
    // The vertex shader's palette entry 2 (blue) averaged with the colour it stored.
    let (r, g) = (col[0] as f64 * 0.5, col[1] as f64 * 0.5);
    for y in 0..64 {
        for x in 0..64 {
            let (cx, cy) = (x / 8, y / 8);
            let ramp = f64::from(cx) / 7.0;
            let b = if cx == cy { 1.0 - ramp } else { ramp };
            want.set(x, y, [r * 255.0, g * 255.0, b * 255.0, 255.0]);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Varyings through blocks with member Location/Component decorations (laid out differently
/// in the two stages) and an array written and read at dynamic indices.
fn io_blocks(f: &mut Frame) -> R<Vec<Out>> {
    let col = [0.8f32, 0.4, 0.6, 1.0];
    let verts = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, col);
    let pipe = Pipe {
        vs: "io_blocks.vert",
        fs: "io_blocks.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&pipe, &verts)])?;
    let mut want = want_rgba8(f, BG);
    let c = col.map(f64::from);
    let block = [c[0] * 0.5, c[1] * 0.5, c[2] * 0.5, c[3]];
    for y in 0..64 {
        for x in 0..64u32 {
            let i = (x / 22).min(2);
            let k = f64::from(i + 1) * 0.25;
            let v: [f64; 4] = std::array::from_fn(|j| (block[j] * 0.5 + c[j] * k * 0.5) * 255.0);
            want.set(x, y, v);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
