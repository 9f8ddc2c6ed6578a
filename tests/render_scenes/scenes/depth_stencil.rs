//! Depth and stencil: every compare op, overlapping quads, stencil ops on both faces, depth
//! bias, a depth/stencil attachment at a mip level. Depth values are chosen exact in float32
//! (0.25, 0.5, 0.75) so read-back depth is compared exactly; stencil is read back through the
//! stencil aspect.

use super::super::frame::{bytes_of, c8, clear_color, clear_depth, codes, Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::{want_rgba8, D32, D32S8, RGBA8};
use ash::vk;

pub fn scenes() -> Vec<Scene> {
    vec![
        Scene {
            name: "depth_compare_ops",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: depth_compare_ops,
        },
        Scene {
            name: "depth_only_after_discard",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: depth_only_after_discard,
        },
        Scene {
            name: "depth_overlap",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: depth_overlap,
        },
        Scene {
            name: "depth_bias",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32),
            run: depth_bias,
        },
        Scene {
            name: "depth_bias_clamp",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .depth(D32)
                    .feature(Feature::DepthBiasClamp)
            },
            run: depth_bias_clamp,
        },
        Scene {
            name: "stencil_ops",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32S8),
            run: stencil_ops,
        },
        Scene {
            name: "stencil_faces",
            size: 64,
            needs: || Needs::new().color(RGBA8).depth(D32S8),
            run: stencil_faces,
        },
        Scene {
            name: "depth_stencil_mip_level",
            size: 32,
            needs: || Needs::new().color(RGBA8).depth(D32S8),
            run: depth_stencil_mip_level,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Draws each (pipe, vertices) into RGBA8 + `depth_format`, cleared to BG and (depth,
/// stencil); returns colour, then the depth aspect (D32 formats) or stencil aspect.
fn draw_ds(
    f: &mut Frame,
    depth_format: vk::Format,
    clear: (f32, u32),
    draws: &[(&Pipe, &[V])],
    read: vk::ImageAspectFlags,
) -> R<(Image, Image)> {
    let (img, view) = f.target(
        RGBA8,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let (dimg, dview) = f.depth_target(depth_format, vk::SampleCountFlags::TYPE_1)?;
    let rp = f.simple_pass(&[RGBA8], Some(depth_format), vk::SampleCountFlags::TYPE_1)?;
    let fb = f.framebuffer(rp, &[view, dview])?;
    let mut bound = Vec::new();
    for (p, verts) in draws {
        let pipe = f.pipeline(p, rp)?;
        let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(verts))?;
        bound.push((pipe, vb, verts.len() as u32));
    }
    f.submit(|cb| {
        f.begin(
            cb,
            rp,
            fb,
            &[clear_color(BG), clear_depth(clear.0, clear.1)],
        );
        for &(pipe, vb, n) in &bound {
            f.draw(cb, pipe, vb, n);
        }
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let color = f.read(
        "color",
        img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let fmt = if read == vk::ImageAspectFlags::STENCIL {
        vk::Format::S8_UINT
    } else {
        D32
    };
    let label = if read == vk::ImageAspectFlags::STENCIL {
        "stencil"
    } else {
        "depth"
    };
    let ds = f.read(
        label,
        dimg,
        fmt,
        read,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    Ok((color, ds))
}

fn compare(op: vk::CompareOp, a: f32, b: f32) -> bool {
    match op {
        vk::CompareOp::NEVER => false,
        vk::CompareOp::LESS => a < b,
        vk::CompareOp::EQUAL => a == b,
        vk::CompareOp::LESS_OR_EQUAL => a <= b,
        vk::CompareOp::GREATER => a > b,
        vk::CompareOp::NOT_EQUAL => a != b,
        vk::CompareOp::GREATER_OR_EQUAL => a >= b,
        _ => true,
    }
}

const OPS: [vk::CompareOp; 8] = [
    vk::CompareOp::NEVER,
    vk::CompareOp::LESS,
    vk::CompareOp::EQUAL,
    vk::CompareOp::LESS_OR_EQUAL,
    vk::CompareOp::GREATER,
    vk::CompareOp::NOT_EQUAL,
    vk::CompareOp::GREATER_OR_EQUAL,
    vk::CompareOp::ALWAYS,
];

/// Depth cleared to 0.5; column i draws three bands at depths 0.25, 0.5, 0.75 with OPS[i],
/// depth writes on.
fn depth_compare_ops(f: &mut Frame) -> R<Vec<Out>> {
    let bands = [
        (0.25f32, c8(255, 0, 0, 255)),
        (0.5, c8(0, 255, 0, 255)),
        (0.75, c8(0, 0, 255, 255)),
    ];
    let pipes: Vec<Pipe> = OPS
        .iter()
        .map(|&op| Pipe {
            depth: Some((true, true, op)),
            ..Pipe::default()
        })
        .collect();
    let mut sets = Vec::new();
    let mut want = want_rgba8(f, BG);
    let mut want_d = Image::new("depth", f.w, f.h, D32, [0.5, 0.0, 0.0, 0.0]);
    for (i, &op) in OPS.iter().enumerate() {
        let x0 = 8 * i as u32;
        let mut v = Vec::new();
        for (b, &(z, c)) in bands.iter().enumerate() {
            let y0 = 16 * b as u32;
            v.extend(f.rect(
                x0 as f32,
                y0 as f32,
                x0 as f32 + 8.0,
                y0 as f32 + 16.0,
                z,
                c,
            ));
            if compare(op, z, 0.5) {
                want.fill(x0, y0, x0 + 8, y0 + 16, codes(c));
                want_d.fill(x0, y0, x0 + 8, y0 + 16, [z as f64, 0.0, 0.0, 0.0]);
            }
        }
        sets.push(v);
    }
    let draws: Vec<(&Pipe, &[V])> = pipes
        .iter()
        .zip(&sets)
        .map(|(p, v)| (p, v.as_slice()))
        .collect();
    let (color, depth) = draw_ds(f, D32, (0.5, 0), &draws, vk::ImageAspectFlags::DEPTH)?;
    Ok(vec![
        Out::new(color, Some(want), Tol::EXACT),
        Out::new(depth, Some(want_d), Tol::EXACT),
    ])
}

/// Overlapping quads at different depths drawn out of order with LESS.
fn depth_overlap(f: &mut Frame) -> R<Vec<Out>> {
    let quads = [
        (4.0, 4.0, 40.0, 40.0, 0.5f32, c8(255, 0, 0, 255)),
        (20.0, 20.0, 60.0, 60.0, 0.25, c8(0, 255, 0, 255)),
        (10.0, 30.0, 50.0, 50.0, 0.75, c8(0, 0, 255, 255)),
        (30.0, 2.0, 62.0, 26.0, 0.125, c8(255, 255, 0, 255)),
    ];
    let verts: Vec<V> = quads
        .iter()
        .flat_map(|&(a, b, c, d, z, col)| f.rect(a, b, c, d, z, col))
        .collect();
    let p = Pipe {
        depth: Some((true, true, vk::CompareOp::LESS)),
        ..Pipe::default()
    };
    let (color, depth) = draw_ds(
        f,
        D32,
        (1.0, 0),
        &[(&p, &verts)],
        vk::ImageAspectFlags::DEPTH,
    )?;
    let mut want = want_rgba8(f, BG);
    let mut want_d = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    for y in 0..f.h {
        for x in 0..f.w {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let nearest = quads
                .iter()
                .filter(|q| px > q.0 && px < q.2 && py > q.1 && py < q.3)
                .min_by(|a, b| a.4.total_cmp(&b.4));
            if let Some(q) = nearest {
                want.set(x, y, codes(q.5));
                want_d.set(x, y, [q.4 as f64, 0.0, 0.0, 0.0]);
            }
        }
    }
    Ok(vec![
        Out::new(color, Some(want), Tol::EXACT),
        Out::new(depth, Some(want_d), Tol::EXACT),
    ])
}

/// A quad at depth 0.5 everywhere, then quads at the same depth with LESS and a constant bias
/// towards (passes) or away from (fails) the viewer, and a sloped pair where only the slope
/// factor separates them. Only colour is compared: the biased depth values themselves depend
/// on the implementation's minimum resolvable difference.
fn depth_bias(f: &mut Frame) -> R<Vec<Out>> {
    let base = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, c8(255, 0, 0, 255));
    let green = c8(0, 255, 0, 255);
    let toward = f.rect(4.0, 4.0, 28.0, 28.0, 0.5, green);
    let away = f.rect(36.0, 4.0, 60.0, 28.0, 0.5, green);
    // A sloped plane (depth 0.25 .. 0.75 across x), drawn twice: once plain, once with a
    // negative slope factor.
    let sloped = |f: &Frame, c| -> Vec<V> {
        let (a, b, cc, d) = (
            f.v(4.0, 36.0, 0.25, c),
            f.v(60.0, 36.0, 0.75, c),
            f.v(60.0, 60.0, 0.75, c),
            f.v(4.0, 60.0, 0.25, c),
        );
        vec![a, d, cc, a, cc, b]
    };
    let slope_base = sloped(f, c8(0, 0, 255, 255));
    let slope_top = sloped(f, c8(255, 255, 0, 255));
    let plain = Pipe {
        depth: Some((true, true, vk::CompareOp::LESS)),
        ..Pipe::default()
    };
    let always = Pipe {
        depth: Some((true, true, vk::CompareOp::ALWAYS)),
        ..Pipe::default()
    };
    let less_no_write = |bias| Pipe {
        depth: Some((true, false, vk::CompareOp::LESS)),
        depth_bias: Some(bias),
        ..Pipe::default()
    };
    let p_toward = less_no_write((-64.0, 0.0, 0.0));
    let p_away = less_no_write((64.0, 0.0, 0.0));
    let p_slope = less_no_write((0.0, 0.0, -2.0));
    let (color, _) = draw_ds(
        f,
        D32,
        (1.0, 0),
        &[
            (&plain, &base),
            (&p_toward, &toward),
            (&p_away, &away),
            (&always, &slope_base),
            (&p_slope, &slope_top),
        ],
        vk::ImageAspectFlags::DEPTH,
    )?;
    let mut want = want_rgba8(f, [1.0, 0.0, 0.0, 1.0]);
    want.fill(4, 4, 28, 28, codes(green));
    want.fill(4, 36, 60, 60, codes(c8(255, 255, 0, 255)));
    Ok(vec![Out::new(color, Some(want), Tol::EXACT)])
}

/// depthBiasClamp: over a quad at depth 0.5, quads at 0.6 tested with LESS under a huge
/// negative constant bias clamped to -0.05 (0.55: fails) and to -0.2 (0.4: passes); then a
/// quad at 0.2 with a huge positive bias clamped to 0.4 whose fragment shader writes
/// gl_FragCoord.z as red, which includes the bias (0.6: code 153).
fn depth_bias_clamp(f: &mut Frame) -> R<Vec<Out>> {
    let base = f.rect(0.0, 0.0, 64.0, 64.0, 0.5, c8(255, 0, 0, 255));
    let green = c8(0, 255, 0, 255);
    let held = f.rect(4.0, 4.0, 28.0, 28.0, 0.6, green);
    let through = f.rect(36.0, 4.0, 60.0, 28.0, 0.6, green);
    let shown = f.rect(4.0, 36.0, 60.0, 60.0, 0.2, green);
    let always = Pipe {
        depth: Some((true, true, vk::CompareOp::ALWAYS)),
        ..Pipe::default()
    };
    let less_no_write = |bias| Pipe {
        depth: Some((true, false, vk::CompareOp::LESS)),
        depth_bias: Some(bias),
        ..Pipe::default()
    };
    let p_held = less_no_write((-1e8, -0.05, 0.0));
    let p_through = less_no_write((-1e8, -0.2, 0.0));
    let p_shown = Pipe {
        fs: "frag_z.frag",
        depth: Some((true, false, vk::CompareOp::ALWAYS)),
        depth_bias: Some((1e8, 0.4, 0.0)),
        ..Pipe::default()
    };
    let (color, _) = draw_ds(
        f,
        D32,
        (1.0, 0),
        &[
            (&always, &base),
            (&p_held, &held),
            (&p_through, &through),
            (&p_shown, &shown),
        ],
        vk::ImageAspectFlags::DEPTH,
    )?;
    let mut want = want_rgba8(f, [1.0, 0.0, 0.0, 1.0]);
    want.fill(36, 4, 60, 28, codes(green));
    want.fill(4, 36, 60, 60, [153.0, 0.0, 0.0, 255.0]);
    Ok(vec![Out::new(color, Some(want), Tol::UNORM8)])
}

fn stencil_state(
    compare: vk::CompareOp,
    pass: vk::StencilOp,
    fail: vk::StencilOp,
    depth_fail: vk::StencilOp,
    reference: u32,
    write_mask: u32,
) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: fail,
        pass_op: pass,
        depth_fail_op: depth_fail,
        compare_op: compare,
        compare_mask: 0xff,
        write_mask,
        reference,
    }
}

fn apply(op: vk::StencilOp, s: u8, reference: u8) -> u8 {
    match op {
        vk::StencilOp::KEEP => s,
        vk::StencilOp::ZERO => 0,
        vk::StencilOp::REPLACE => reference,
        vk::StencilOp::INCREMENT_AND_CLAMP => s.saturating_add(1),
        vk::StencilOp::DECREMENT_AND_CLAMP => s.saturating_sub(1),
        vk::StencilOp::INVERT => !s,
        vk::StencilOp::INCREMENT_AND_WRAP => s.wrapping_add(1),
        _ => s.wrapping_sub(1),
    }
}

/// Stencil cleared to 0xfe (so clamping and wrapping show within two draws), depth to 0.5.
/// Column i applies one op: rows 0..32 are drawn twice, rows 32..64 once. Extra columns use
/// a compare that fails, a depth test that fails, and a partial write mask.
fn stencil_ops(f: &mut Frame) -> R<Vec<Out>> {
    use vk::StencilOp as S;
    let ops = [
        S::KEEP,
        S::ZERO,
        S::REPLACE,
        S::INCREMENT_AND_CLAMP,
        S::DECREMENT_AND_CLAMP,
        S::INVERT,
        S::INCREMENT_AND_WRAP,
        S::DECREMENT_AND_WRAP,
    ];
    let r = 0x3cu8;
    // (compare, pass, fail, depth fail, write mask, depth of the quad)
    let mut cols: Vec<(vk::CompareOp, S, S, S, u32, f32)> = ops
        .iter()
        .map(|&op| (vk::CompareOp::ALWAYS, op, S::KEEP, S::KEEP, 0xff, 0.25))
        .collect();
    cols.push((
        vk::CompareOp::NEVER,
        S::ZERO,
        S::INCREMENT_AND_WRAP,
        S::ZERO,
        0xff,
        0.25,
    ));
    cols.push((
        vk::CompareOp::ALWAYS,
        S::ZERO,
        S::ZERO,
        S::REPLACE,
        0xff,
        0.75,
    ));
    cols.push((
        vk::CompareOp::ALWAYS,
        S::INVERT,
        S::KEEP,
        S::KEEP,
        0x0f,
        0.25,
    ));
    cols.push((
        vk::CompareOp::GREATER,
        S::INCREMENT_AND_WRAP,
        S::REPLACE,
        S::KEEP,
        0xff,
        0.25,
    ));
    let w = 64 / cols.len() as u32;
    let mut pipes = Vec::new();
    let mut sets = Vec::new();
    let mut want_s = Image::new(
        "stencil",
        f.w,
        f.h,
        vk::Format::S8_UINT,
        [254.0, 0.0, 0.0, 0.0],
    );
    let mut want = want_rgba8(f, BG);
    let c = c8(90, 180, 30, 255);
    for (i, &(cmp, pass, fail, dfail, mask, z)) in cols.iter().enumerate() {
        let st = stencil_state(cmp, pass, fail, dfail, r as u32, mask);
        pipes.push(Pipe {
            depth: Some((true, false, vk::CompareOp::LESS)),
            stencil: Some((st, st)),
            ..Pipe::default()
        });
        let x0 = i as u32 * w;
        let mut v = f.rect(x0 as f32, 0.0, (x0 + w) as f32, 32.0, z, c);
        v.extend(f.rect(x0 as f32, 0.0, (x0 + w) as f32, 64.0, z, c));
        sets.push(v);
        for (y0, y1, times) in [(0u32, 32u32, 2), (32, 64, 1)] {
            let mut s = 0xfeu8;
            let mut drawn = false;
            for _ in 0..times {
                let stencil_pass = compare(cmp, r as f32, s as f32);
                let depth_pass = z < 0.5;
                let op = if !stencil_pass {
                    fail
                } else if !depth_pass {
                    dfail
                } else {
                    pass
                };
                drawn |= stencil_pass && depth_pass;
                let new = apply(op, s, r);
                s = (s & !(mask as u8)) | (new & mask as u8);
            }
            want_s.fill(x0, y0, x0 + w, y1, [s as f64, 0.0, 0.0, 0.0]);
            if drawn {
                want.fill(x0, y0, x0 + w, y1, codes(c));
            }
        }
    }
    let draws: Vec<(&Pipe, &[V])> = pipes
        .iter()
        .zip(&sets)
        .map(|(p, v)| (p, v.as_slice()))
        .collect();
    let (color, stencil) = draw_ds(f, D32S8, (0.5, 0xfe), &draws, vk::ImageAspectFlags::STENCIL)?;
    Ok(vec![
        Out::new(color, Some(want), Tol::EXACT),
        Out::new(stencil, Some(want_s), Tol::EXACT),
    ])
}

/// Front- and back-facing quads in one draw with different stencil states per face, then two
/// full-frame quads that test the result (one per face).
fn stencil_faces(f: &mut Frame) -> R<Vec<Out>> {
    use vk::StencilOp as S;
    let white = c8(255, 255, 255, 255);
    let mut mark = f.rect_w([4.0, 4.0, 30.0, 60.0], 0.5, white, true);
    mark.extend(f.rect_w([34.0, 4.0, 60.0, 60.0], 0.5, white, false));
    mark.extend(f.rect_w([16.0, 20.0, 48.0, 44.0], 0.5, white, false));
    let front = stencil_state(
        vk::CompareOp::ALWAYS,
        S::REPLACE,
        S::KEEP,
        S::KEEP,
        0x11,
        0xff,
    );
    let back = stencil_state(
        vk::CompareOp::ALWAYS,
        S::INCREMENT_AND_CLAMP,
        S::KEEP,
        S::KEEP,
        0x99,
        0xff,
    );
    let mut mark_pipe = Pipe {
        stencil: Some((front, back)),
        ..Pipe::default()
    };
    mark_pipe.blends[0].color_write_mask = vk::ColorComponentFlags::empty();
    // Test pass: front faces pass where stencil == 0x11, back faces where stencil == 0x82.
    let t_front = stencil_state(vk::CompareOp::EQUAL, S::KEEP, S::KEEP, S::KEEP, 0x11, 0);
    let t_back = stencil_state(vk::CompareOp::EQUAL, S::KEEP, S::KEEP, S::KEEP, 0x82, 0);
    let test_pipe = Pipe {
        stencil: Some((t_front, t_back)),
        ..Pipe::default()
    };
    let (green, blue) = (c8(0, 255, 0, 255), c8(0, 0, 255, 255));
    let mut test = f.rect_w([0.0, 0.0, 64.0, 64.0], 0.5, green, true);
    test.extend(f.rect_w([0.0, 0.0, 64.0, 64.0], 0.5, blue, false));
    let (color, stencil) = draw_ds(
        f,
        D32S8,
        (1.0, 0x80),
        &[(&mark_pipe, &mark), (&test_pipe, &test)],
        vk::ImageAspectFlags::STENCIL,
    )?;
    // The marking draw in order: front quad replaces with 0x11, each back quad increments.
    let mut want_s = Image::new(
        "stencil",
        f.w,
        f.h,
        vk::Format::S8_UINT,
        [128.0, 0.0, 0.0, 0.0],
    );
    for y in 0..64u32 {
        for x in 0..64u32 {
            let inside =
                |x0: u32, y0: u32, x1: u32, y1: u32| x >= x0 && x < x1 && y >= y0 && y < y1;
            let mut s = 0x80u8;
            if inside(4, 4, 30, 60) {
                s = 0x11;
            }
            for r in [(34, 4, 60, 60), (16, 20, 48, 44)] {
                if inside(r.0, r.1, r.2, r.3) {
                    s = s.saturating_add(1);
                }
            }
            want_s.set(x, y, [s as f64, 0.0, 0.0, 0.0]);
        }
    }
    let mut want = want_rgba8(f, BG);
    for y in 0..64 {
        for x in 0..64 {
            match want_s.at(x, y)[0] as u32 {
                0x11 => want.set(x, y, codes(green)),
                0x82 => want.set(x, y, codes(blue)),
                _ => {}
            }
        }
    }
    Ok(vec![
        Out::new(color, Some(want), Tol::EXACT),
        Out::new(stencil, Some(want_s), Tol::EXACT),
    ])
}

/// A draw whose pipeline has no fragment stage, right after one whose fragment shader
/// discards a checkerboard: the depth-only draw must write depth at every pixel it covers
/// (no shader of an earlier draw may run for it). A last full-frame quad behind it shows
/// where depth was written.
fn depth_only_after_discard(f: &mut Frame) -> R<Vec<Out>> {
    let (red, blue) = (c8(255, 0, 0, 255), c8(0, 0, 255, 255));
    let checker = f.rect(4.0, 4.0, 60.0, 60.0, 0.5, red);
    let occluder = f.rect(16.0, 16.0, 48.0, 48.0, 0.25, red);
    let behind = f.rect(0.0, 0.0, 64.0, 64.0, 0.375, blue);
    let less = Some((true, true, vk::CompareOp::LESS));
    let discarding = Pipe {
        fs: "discard.frag",
        depth: less,
        ..Pipe::default()
    };
    let depth_only = Pipe {
        fs: "",
        depth: less,
        blends: vec![vk::PipelineColorBlendAttachmentState::default()],
        ..Pipe::default()
    };
    let plain = Pipe {
        depth: less,
        ..Pipe::default()
    };
    let (color, depth) = draw_ds(
        f,
        D32,
        (1.0, 0),
        &[
            (&discarding, &checker),
            (&depth_only, &occluder),
            (&plain, &behind),
        ],
        vk::ImageAspectFlags::DEPTH,
    )?;
    let mut want = want_rgba8(f, BG);
    let mut want_d = Image::new("depth", f.w, f.h, D32, [1.0, 0.0, 0.0, 0.0]);
    for y in 0..f.h {
        for x in 0..f.w {
            let kept = (4..60).contains(&x) && (4..60).contains(&y) && (x ^ y) & 4 == 0;
            let occluded = (16..48).contains(&x) && (16..48).contains(&y);
            let (c, d) = match (occluded, kept) {
                // The depth-only quad is in front of everything and wrote no colour.
                (true, true) => (red, 0.25),
                (true, false) => (BG, 0.25),
                // Elsewhere the last quad (0.375) is in front of the kept cells (0.5).
                _ => (blue, 0.375),
            };
            want.set(x, y, codes(c));
            want_d.set(x, y, [d, 0.0, 0.0, 0.0]);
        }
    }
    Ok(vec![
        Out::new(color, Some(want), Tol::EXACT),
        Out::new(depth, Some(want_d), Tol::EXACT),
    ])
}

/// The depth/stencil attachment is level 1 of a 64x64 D32S8 image whose level 0 was cleared
/// first: a quad writes depth and stencil, a second one over the frame is depth and stencil
/// tested against it. Level 1 is read back by copies (the layout's addressing, not the
/// render's) and level 0 must keep its clear.
fn depth_stencil_mip_level(f: &mut Frame) -> R<Vec<Out>> {
    let (img, view) = f.target(
        RGBA8,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let size = (2 * f.w, 2 * f.h);
    let dimg = f.image_mips(
        D32S8,
        size,
        2,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST,
    )?;
    let both = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
    let dview = f.view_level(dimg, D32S8, both, 1)?;
    let rp = f.simple_pass(&[RGBA8], Some(D32S8), vk::SampleCountFlags::TYPE_1)?;
    let fb = f.framebuffer(rp, &[view, dview])?;
    type S = vk::StencilOp;
    let mark = stencil_state(
        vk::CompareOp::ALWAYS,
        S::REPLACE,
        S::REPLACE,
        S::REPLACE,
        5,
        0xff,
    );
    let test = stencil_state(vk::CompareOp::EQUAL, S::KEEP, S::KEEP, S::KEEP, 0, 0);
    let p0 = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::LESS)),
            stencil: Some((mark, mark)),
            ..Pipe::default()
        },
        rp,
    )?;
    let p1 = f.pipeline(
        &Pipe {
            depth: Some((true, true, vk::CompareOp::LESS)),
            stencil: Some((test, test)),
            ..Pipe::default()
        },
        rp,
    )?;
    let (red, green) = (c8(255, 0, 0, 255), c8(0, 255, 0, 255));
    let v0 = f.rect(4.0, 6.0, 20.0, 26.0, 0.25, red);
    let v1 = f.rect(0.0, 0.0, 32.0, 32.0, 0.5, green);
    let vb0 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v0))?;
    let vb1 = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&v1))?;
    let level0 = vk::ImageSubresourceRange {
        aspect_mask: both,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    };
    let to_dst = vk::ImageMemoryBarrier::default()
        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(dimg)
        .subresource_range(level0);
    f.submit(|cb| {
        // SAFETY: recording; the image is alive and level 0 is in TRANSFER_DST_OPTIMAL for
        // the clear.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            f.d.cmd_clear_depth_stencil_image(
                cb,
                dimg,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearDepthStencilValue {
                    depth: 0.75,
                    stencil: 9,
                },
                &[level0],
            );
        }
        f.begin(cb, rp, fb, &[clear_color(BG), clear_depth(1.0, 0)]);
        f.draw(cb, p0, vb0, 6);
        f.draw(cb, p1, vb1, 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let color = f.read(
        "color",
        img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    let depth1 = f.read_level(
        "depth1",
        dimg,
        (D32S8, D32),
        vk::ImageAspectFlags::DEPTH,
        src,
        size,
        1,
    )?;
    let stencil1 = f.read_level(
        "stencil1",
        dimg,
        (D32S8, vk::Format::S8_UINT),
        vk::ImageAspectFlags::STENCIL,
        src,
        size,
        1,
    )?;
    let depth0 = f.read_level(
        "depth0",
        dimg,
        (D32S8, D32),
        vk::ImageAspectFlags::DEPTH,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        size,
        0,
    )?;
    let mut want_color = Image::new("color", f.w, f.h, RGBA8, codes(green));
    want_color.fill(4, 6, 20, 26, codes(red));
    let mut want_depth1 = Image::new("depth1", f.w, f.h, D32, [0.5, 0.0, 0.0, 0.0]);
    want_depth1.fill(4, 6, 20, 26, [0.25, 0.0, 0.0, 0.0]);
    let mut want_stencil1 = Image::new("stencil1", f.w, f.h, vk::Format::S8_UINT, [0.0; 4]);
    want_stencil1.fill(4, 6, 20, 26, [5.0, 0.0, 0.0, 0.0]);
    let want_depth0 = Image::new("depth0", size.0, size.1, D32, [0.75, 0.0, 0.0, 0.0]);
    Ok(vec![
        Out::new(color, Some(want_color), Tol::EXACT),
        Out::new(depth1, Some(want_depth1), Tol::EXACT),
        Out::new(stencil1, Some(want_stencil1), Tol::EXACT),
        Out::new(depth0, Some(want_depth0), Tol::EXACT),
    ])
}
