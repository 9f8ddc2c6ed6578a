//! Draw calls and per-draw state: one triangle, indexed (16- and 32-bit), instanced, indirect,
//! shader draw parameters, scissor and viewport, discard, interpolation qualifiers, front face
//! and culling.

use super::super::frame::{bytes_of, c8, clear_color, codes, Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::Tol;
use super::super::needs::Needs;
use super::super::raster::{area, draw_tri, Interp, RV};
use super::super::run::{Out, Scene};
use super::{draw_rgba8, rgba8_target, want_rgba8, RGBA8};
use ash::vk;

pub fn scenes() -> Vec<Scene> {
    let rgba8 = || Needs::new().color(RGBA8);
    vec![
        Scene {
            name: "triangle",
            size: 64,
            needs: rgba8,
            run: triangle,
        },
        Scene {
            name: "indexed_u16",
            size: 64,
            needs: rgba8,
            run: indexed_u16,
        },
        Scene {
            name: "indexed_u32",
            size: 64,
            needs: rgba8,
            run: indexed_u32,
        },
        Scene {
            name: "instanced",
            size: 64,
            needs: rgba8,
            run: instanced,
        },
        Scene {
            name: "instanced_indirect",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .feature(Feature::DrawIndirectFirstInstance)
            },
            run: instanced_indirect,
        },
        Scene {
            name: "draw_indirect",
            size: 64,
            needs: rgba8,
            run: draw_indirect,
        },
        Scene {
            name: "multi_draw_indirect",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .feature(Feature::MultiDrawIndirect)
            },
            run: multi_draw_indirect,
        },
        Scene {
            name: "large_points",
            size: 64,
            needs: || Needs::new().color(RGBA8).feature(Feature::LargePoints),
            run: large_points,
        },
        Scene {
            name: "draw_parameters",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .feature(Feature::ShaderDrawParameters)
                    .feature(Feature::MultiDrawIndirect)
                    .feature(Feature::DrawIndirectFirstInstance)
            },
            run: draw_parameters,
        },
        Scene {
            name: "scissor_viewport",
            size: 64,
            needs: rgba8,
            run: scissor_viewport,
        },
        Scene {
            name: "discard",
            size: 64,
            needs: rgba8,
            run: discard,
        },
        Scene {
            name: "interpolation",
            size: 64,
            needs: rgba8,
            run: interpolation,
        },
        Scene {
            name: "front_face_cull",
            size: 64,
            needs: rgba8,
            run: front_face_cull,
        },
        Scene {
            name: "viewport_negative_height",
            size: 64,
            needs: || {
                Needs::new()
                    .color(RGBA8)
                    .extension(ash::khr::maintenance1::NAME)
            },
            run: viewport_negative_height,
        },
    ]
}

const BG: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

fn triangle(f: &mut Frame) -> R<Vec<Out>> {
    // Vertices on a 1/16-pixel grid, so every rasteriser's snapping is exact.
    let p = [[8.25f32, 4.5], [56.0, 20.125], [20.5, 60.0]];
    let cols = [c8(255, 0, 0, 255), c8(0, 255, 0, 255), c8(0, 0, 255, 255)];
    let verts: Vec<V> = (0..3)
        .map(|i| f.v(p[i][0], p[i][1], 0.5, cols[i]))
        .collect();
    let got = draw_rgba8(f, BG, &[(&Pipe::default(), &verts)])?;
    let mut want = want_rgba8(f, BG);
    let rv = [0, 1, 2].map(|i| RV {
        x: p[i][0] as f64,
        y: p[i][1] as f64,
        w: 1.0,
        col: cols[i].map(|c| c as f64),
    });
    draw_tri(&mut want, &rv, Interp::Smooth);
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Four quads of four vertices each, drawn from an index buffer in two draws; the second uses
/// firstIndex and vertexOffset. `bias` is added to every stored index and subtracted again by
/// vertexOffset (32-bit indices above 65535 show that no bits are dropped).
fn indexed(f: &mut Frame, ty: vk::IndexType, bias: u32) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let pipe = f.pipeline(&Pipe::default(), t.rp)?;
    let quads = [
        (4.0, 4.0, 28.0, 20.0),
        (36.0, 4.0, 60.0, 30.0),
        (4.0, 36.0, 20.0, 60.0),
        (30.0, 40.0, 60.0, 56.0),
    ];
    let cols = [
        c8(255, 0, 0, 255),
        c8(0, 200, 0, 255),
        c8(10, 20, 250, 255),
        c8(250, 250, 5, 255),
    ];
    let mut verts = Vec::new();
    for (q, c) in quads.iter().zip(cols) {
        verts.extend([
            f.v(q.0, q.1, 0.5, c),
            f.v(q.2, q.1, 0.5, c),
            f.v(q.2, q.3, 0.5, c),
            f.v(q.0, q.3, 0.5, c),
        ]);
    }
    // Quads 0 and 1 index vertices 0..8; quads 2 and 3 index 0..8 again, shifted by
    // vertexOffset 8 in the second draw.
    let local: [u32; 12] = [0, 1, 2, 2, 3, 0, 5, 6, 4, 6, 7, 4];
    let idx: Vec<u32> = local.iter().chain(local.iter()).map(|i| i + bias).collect();
    let ib = match ty {
        vk::IndexType::UINT16 => bytes_of(&idx.iter().map(|&i| i as u16).collect::<Vec<_>>()),
        _ => bytes_of(&idx),
    };
    let ib = f.buffer(vk::BufferUsageFlags::INDEX_BUFFER, &ib)?;
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let off = -(bias as i32);
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_bind_index_buffer(cb, ib, 0, ty);
            f.d.cmd_draw_indexed(cb, 12, 1, 0, off, 0);
            f.d.cmd_draw_indexed(cb, 12, 1, 12, off + 8, 0);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    for (q, c) in quads.iter().zip(cols) {
        want.fill(q.0 as u32, q.1 as u32, q.2 as u32, q.3 as u32, codes(c));
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

fn indexed_u16(f: &mut Frame) -> R<Vec<Out>> {
    indexed(f, vk::IndexType::UINT16, 1000)
}

fn indexed_u32(f: &mut Frame) -> R<Vec<Out>> {
    indexed(f, vk::IndexType::UINT32, 70000)
}

/// One 8x8 quad, twelve instances with per-instance offsets and colours, in two draws (the
/// second starting at instance 6).
fn instanced(f: &mut Frame) -> R<Vec<Out>> {
    instanced_with(f, false)
}

/// The instanced scene drawn by vkCmdDrawIndirect and vkCmdDrawIndexedIndirect, whose
/// arguments carry the first instance (`drawIndirectFirstInstance`).
fn instanced_indirect(f: &mut Frame) -> R<Vec<Out>> {
    instanced_with(f, true)
}

/// 12 instances of a quad at per-instance offsets and colours, in two draws of 6 instances
/// the second of which starts at instance 6.
fn instanced_with(f: &mut Frame, indirect: bool) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let p = Pipe {
        vs: "instanced.vert",
        bindings: vec![
            (32, vk::VertexInputRate::VERTEX),
            (24, vk::VertexInputRate::INSTANCE),
        ],
        attrs: vec![
            (0, 0, vk::Format::R32G32B32A32_SFLOAT, 0),
            (2, 1, vk::Format::R32G32_SFLOAT, 0),
            (3, 1, vk::Format::R32G32B32A32_SFLOAT, 8),
        ],
        ..Pipe::default()
    };
    let pipe = f.pipeline(&p, t.rp)?;
    let quad = f.rect(0.0, 0.0, 8.0, 8.0, 0.5, [1.0; 4]);
    let mut inst: Vec<f32> = Vec::new();
    let mut want = want_rgba8(f, BG);
    for i in 0..12u32 {
        let (x, y) = ((i % 4) * 14 + 2, (i / 4) * 18 + 5);
        let c = c8(
            (i * 20) as u8,
            (255 - i * 15) as u8,
            (i * 7 + 30) as u8,
            255,
        );
        inst.extend([x as f32 * 2.0 / f.w as f32, y as f32 * 2.0 / f.h as f32]);
        inst.extend(c);
        want.fill(x, y, x + 8, y + 8, codes(c));
    }
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&quad))?;
    let ib = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&inst))?;
    // (vertexCount, instanceCount, firstVertex, firstInstance) at offset 0, then
    // (indexCount, instanceCount, firstIndex, vertexOffset, firstInstance) at offset 16.
    let args: [u32; 9] = [6, 6, 0, 0, 6, 6, 0, 0, 6];
    let ab = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&args))?;
    let indices: Vec<u16> = (0..6).collect();
    let xb = f.buffer(vk::BufferUsageFlags::INDEX_BUFFER, &bytes_of(&indices))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb, ib], &[0, 0]);
            if indirect {
                f.d.cmd_bind_index_buffer(cb, xb, 0, vk::IndexType::UINT16);
                f.d.cmd_draw_indirect(cb, ab, 0, 1, 16);
                f.d.cmd_draw_indexed_indirect(cb, ab, 16, 1, 20);
            } else {
                f.d.cmd_draw(cb, 6, 6, 0, 0);
                f.d.cmd_draw(cb, 6, 6, 0, 6);
            }
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Quads for the indirect scenes: vertices 6*i.. are quad i.
/// Pixel rectangles (x0, y0, x1, y1) with their colours.
type Quads = Vec<(u32, u32, u32, u32, [f32; 4])>;

fn indirect_quads(f: &Frame) -> (Vec<V>, Quads) {
    let q = vec![
        (4, 4, 30, 30, c8(255, 64, 0, 255)),
        (34, 4, 60, 30, c8(0, 128, 255, 255)),
        (4, 34, 30, 60, c8(128, 255, 0, 255)),
        (34, 34, 60, 60, c8(255, 255, 255, 255)),
    ];
    let verts = q
        .iter()
        .flat_map(|&(a, b, c, d, col)| f.rect(a as f32, b as f32, c as f32, d as f32, 0.5, col))
        .collect();
    (verts, q)
}

/// vkCmdDrawIndirect and vkCmdDrawIndexedIndirect, one command each call, at offsets.
fn draw_indirect(f: &mut Frame) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let pipe = f.pipeline(&Pipe::default(), t.rp)?;
    let (verts, quads) = indirect_quads(f);
    let idx: Vec<u16> = (0..24).collect();
    // Draw commands: (vertexCount, instanceCount, firstVertex, firstInstance); an unused one
    // first so the offsets are not zero. Indexed: (indexCount, instanceCount, firstIndex,
    // vertexOffset, firstInstance).
    let draws: [u32; 12] = [99, 99, 99, 0, 6, 1, 0, 0, 6, 1, 6, 0];
    let indexed: [u32; 10] = [6, 1, 12, 0, 0, 6, 1, 0, 18, 0];
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let ib = f.buffer(vk::BufferUsageFlags::INDEX_BUFFER, &bytes_of(&idx))?;
    let db = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&draws))?;
    let xb = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&indexed))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_bind_index_buffer(cb, ib, 0, vk::IndexType::UINT16);
            f.d.cmd_draw_indirect(cb, db, 16, 1, 16);
            f.d.cmd_draw_indirect(cb, db, 32, 1, 16);
            f.d.cmd_draw_indexed_indirect(cb, xb, 0, 1, 20);
            f.d.cmd_draw_indexed_indirect(cb, xb, 20, 1, 20);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    for &(a, b, c, d, col) in &quads {
        want.fill(a, b, c, d, codes(col));
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// drawCount > 1 with a stride larger than the command, one zero-instance command among them.
fn multi_draw_indirect(f: &mut Frame) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let pipe = f.pipeline(&Pipe::default(), t.rp)?;
    let (verts, quads) = indirect_quads(f);
    // Stride 20: four words of command and one of padding; quad 2 has no instances.
    let draws: [u32; 20] = [
        6, 1, 0, 0, 0xffff, 6, 1, 6, 0, 0xffff, 6, 0, 12, 0, 0xffff, 6, 1, 18, 0, 0xffff,
    ];
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let db = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&draws))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_draw_indirect(cb, db, 0, 4, 20);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    for (i, &(a, b, c, d, col)) in quads.iter().enumerate() {
        if i != 2 {
            want.fill(a, b, c, d, codes(col));
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// Points of 8, 20 and 33 pixels (largePoints; point_size.vert takes the size from the
/// colour's alpha code), centred so that their sides fall on pixel edges or centres are
/// clear of them.
fn large_points(f: &mut Frame) -> R<Vec<Out>> {
    let p = Pipe {
        vs: "point_size.vert",
        topology: vk::PrimitiveTopology::POINT_LIST,
        ..Pipe::default()
    };
    // (centre x, centre y, size, colour): an odd size is centred on a pixel centre.
    let points: [(f32, f32, u8, [u8; 3]); 3] = [
        (8.0, 8.0, 8, [255, 0, 0]),
        (40.0, 14.0, 20, [0, 255, 0]),
        (24.5, 44.5, 33, [0, 0, 255]),
    ];
    let verts: Vec<V> = points
        .iter()
        .map(|&(x, y, s, c)| f.v(x, y, 0.5, c8(c[0], c[1], c[2], s)))
        .collect();
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    let mut want = want_rgba8(f, BG);
    for (x, y, s, c) in points {
        let h = f32::from(s) / 2.0;
        want.fill(
            (x - h) as u32,
            (y - h) as u32,
            (x + h) as u32,
            (y + h) as u32,
            [f64::from(c[0]), f64::from(c[1]), f64::from(c[2]), 255.0],
        );
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// gl_BaseVertex, gl_BaseInstance and gl_DrawID (draw_params.vert) of six quads in a 3 x 2
/// grid: quad i is vertices 6i..6i+6, drawn by vkCmdDraw, vkCmdDrawIndexed (its vertexOffset
/// is the base vertex), and two-draw vkCmdDrawIndirect and vkCmdDrawIndexedIndirect
/// commands, whose second draws have draw index 1.
fn draw_parameters(f: &mut Frame) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let p = Pipe {
        vs: "draw_params.vert",
        ..Pipe::default()
    };
    let pipe = f.pipeline(&p, t.rp)?;
    let rects: Vec<[u32; 4]> = (0..6u32)
        .map(|i| {
            let (x, y) = ((i % 3) * 21 + 1, (i / 3) * 32 + 2);
            [x, y, x + 19, y + 28]
        })
        .collect();
    let verts: Vec<V> = rects
        .iter()
        .flat_map(|r| f.rect_w(r.map(|v| v as f32), 0.5, [1.0; 4], true))
        .collect();
    // (base vertex, base instance, draw index) of each quad.
    let params: [(u32, u32, u32); 6] = [
        (0, 3, 0),
        (6, 5, 0),
        (12, 9, 0),
        (18, 13, 1),
        (24, 17, 0),
        (30, 21, 1),
    ];
    let idx: Vec<u16> = (0..6).collect();
    // Two (vertexCount, instanceCount, firstVertex, firstInstance) at 0, then two
    // (indexCount, instanceCount, firstIndex, vertexOffset, firstInstance) at 32.
    let args: [u32; 18] = [6, 1, 12, 9, 6, 1, 18, 13, 6, 1, 0, 24, 17, 6, 1, 0, 30, 21];
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let ib = f.buffer(vk::BufferUsageFlags::INDEX_BUFFER, &bytes_of(&idx))?;
    let ab = f.buffer(vk::BufferUsageFlags::INDIRECT_BUFFER, &bytes_of(&args))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.d.cmd_bind_index_buffer(cb, ib, 0, vk::IndexType::UINT16);
            f.d.cmd_draw(cb, 6, 1, 0, 3);
            f.d.cmd_draw_indexed(cb, 6, 1, 0, 6, 5);
            f.d.cmd_draw_indirect(cb, ab, 0, 2, 16);
            f.d.cmd_draw_indexed_indirect(cb, ab, 32, 2, 20);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    for (r, &(bv, bi, di)) in rects.iter().zip(&params) {
        want.fill(
            r[0],
            r[1],
            r[2],
            r[3],
            [f64::from(bv), f64::from(bi), f64::from(di * 100), 255.0],
        );
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// A full-clip-space quad drawn through several viewports and scissors.
fn scissor_viewport(f: &mut Frame) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let pipe = f.pipeline(&Pipe::default(), t.rp)?;
    let (w, h) = (f.w as f32, f.h as f32);
    let cols = [
        c8(255, 0, 0, 255),
        c8(0, 255, 0, 255),
        c8(0, 0, 255, 255),
        c8(255, 255, 0, 255),
    ];
    let mut verts = Vec::new();
    for c in cols {
        verts.extend(f.rect(0.0, 0.0, w, h, 0.5, c));
    }
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            // Viewport only: the quad fills it.
            f.viewport(cb, 8.0, 4.0, 32.0, 16.0);
            f.d.cmd_draw(cb, 6, 1, 0, 0);
            // Scissor only.
            f.viewport(cb, 0.0, 0.0, w, h);
            f.scissor(cb, 44, 2, 12, 40);
            f.d.cmd_draw(cb, 6, 1, 6, 0);
            // Both: a viewport larger than the scissor, which cuts it.
            f.viewport(cb, 0.0, 24.0, 40.0, 40.0);
            f.scissor(cb, 10, 30, 20, 50);
            f.d.cmd_draw(cb, 6, 1, 12, 0);
            // A viewport partly outside the framebuffer, scissor the whole frame.
            f.viewport(cb, 48.0, 48.0, 32.0, 32.0);
            f.scissor(cb, 0, 0, f.w, f.h);
            f.d.cmd_draw(cb, 6, 1, 18, 0);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    want.fill(8, 4, 40, 20, codes(cols[0]));
    want.fill(44, 2, 56, 42, codes(cols[1]));
    want.fill(10, 30, 30, 64, codes(cols[2]));
    want.fill(48, 48, 64, 64, codes(cols[3]));
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

fn discard(f: &mut Frame) -> R<Vec<Out>> {
    let c = c8(200, 100, 50, 255);
    let verts = f.rect(4.0, 4.0, 60.0, 60.0, 0.5, c);
    let p = Pipe {
        fs: "discard.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&p, &verts)])?;
    let mut want = want_rgba8(f, BG);
    for y in 4..60u32 {
        for x in 4..60u32 {
            if (x ^ y) & 4 == 0 {
                want.set(x, y, codes(c));
            }
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// A triangle with different clip w per vertex: red smooth, green noperspective, blue flat.
fn interpolation(f: &mut Frame) -> R<Vec<Out>> {
    let p = [[4.0f32, 6.0], [60.0, 12.0], [24.0, 58.0]];
    let ws = [1.0f32, 4.0, 2.0];
    let cols = [
        [1.0f32, 0.0, 0.25, 1.0],
        [0.0, 1.0, 0.75, 1.0],
        [0.5, 0.25, 1.0, 1.0],
    ];
    let verts: Vec<V> = (0..3)
        .map(|i| {
            let [x, y] = f.ndc(p[i][0], p[i][1]);
            V {
                pos: [x * ws[i], y * ws[i], 0.5 * ws[i], ws[i]],
                col: cols[i],
            }
        })
        .collect();
    let pipe = Pipe {
        vs: "interp.vert",
        fs: "interp.frag",
        ..Pipe::default()
    };
    let got = draw_rgba8(f, BG, &[(&pipe, &verts)])?;
    let mut want = want_rgba8(f, BG);
    let rv = [0, 1, 2].map(|i| RV {
        x: p[i][0] as f64,
        y: p[i][1] as f64,
        w: ws[i] as f64,
        col: cols[i].map(|c| c as f64),
    });
    let (mut s, mut l, mut fl) = (want.clone(), want.clone(), want.clone());
    draw_tri(&mut s, &rv, Interp::Smooth);
    draw_tri(&mut l, &rv, Interp::NoPerspective);
    draw_tri(&mut fl, &rv, Interp::Flat);
    for i in 0..want.px.len() {
        if s.px[i] != want.px[i] || s.dont_care[i] {
            want.px[i] = [s.px[i][0], l.px[i][1], fl.px[i][2], 255.0];
            want.dont_care[i] = s.dont_care[i];
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Two quads per column (top counter-clockwise, bottom clockwise), each column with its own
/// cull mode and front face.
fn front_face_cull(f: &mut Frame) -> R<Vec<Out>> {
    use vk::CullModeFlags as C;
    use vk::FrontFace as F;
    let modes = [
        (C::NONE, F::COUNTER_CLOCKWISE),
        (C::BACK, F::COUNTER_CLOCKWISE),
        (C::BACK, F::CLOCKWISE),
        (C::FRONT, F::COUNTER_CLOCKWISE),
        (C::FRONT_AND_BACK, F::CLOCKWISE),
    ];
    let pipes: Vec<Pipe> = modes
        .iter()
        .map(|&(cull, front)| Pipe {
            cull,
            front,
            ..Pipe::default()
        })
        .collect();
    let (top, bottom) = (c8(255, 128, 0, 255), c8(0, 128, 255, 255));
    let mut vert_sets = Vec::new();
    let mut want = want_rgba8(f, BG);
    for (i, &(cull, front)) in modes.iter().enumerate() {
        let x0 = 2.0 + 12.0 * i as f32;
        let mut v = f.rect_w([x0, 4.0, x0 + 10.0, 30.0], 0.5, top, true);
        v.extend(f.rect_w([x0, 34.0, x0 + 10.0, 60.0], 0.5, bottom, false));
        // The reference decides facing from the area of the triangles as given.
        for (tri, col, y0) in [(&v[0..3], top, 4), (&v[6..9], bottom, 34)] {
            let pts: [[f64; 2]; 3] = [0, 1, 2].map(|k| {
                [
                    (tri[k].pos[0] as f64 + 1.0) * 32.0,
                    (tri[k].pos[1] as f64 + 1.0) * 32.0,
                ]
            });
            let ccw = area(&pts) > 0.0;
            let front_facing = ccw == (front == F::COUNTER_CLOCKWISE);
            let culled = (front_facing && cull.contains(C::FRONT))
                || (!front_facing && cull.contains(C::BACK));
            if !culled {
                want.fill(x0 as u32, y0, x0 as u32 + 10, y0 + 26, codes(col));
            }
        }
        vert_sets.push(v);
    }
    let draws: Vec<(&Pipe, &[V])> = pipes
        .iter()
        .zip(&vert_sets)
        .map(|(p, v)| (p, v.as_slice()))
        .collect();
    let got = draw_rgba8(f, BG, &draws)?;
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// VK_KHR_maintenance1's negative viewport height flips y, and facing is decided after the
/// flip: with back faces culled, a rectangle wound counter-clockwise as given is culled and a
/// clockwise one drawn. A second viewport flips only a sub-rectangle of the frame.
fn viewport_negative_height(f: &mut Frame) -> R<Vec<Out>> {
    let t = rgba8_target(f)?;
    let cull = Pipe {
        cull: vk::CullModeFlags::BACK,
        ..Pipe::default()
    };
    let pipe = f.pipeline(&cull, t.rp)?;
    let (w, h) = (f.w as f32, f.h as f32);
    let (a, b, c) = (
        c8(255, 64, 0, 255),
        c8(0, 200, 80, 255),
        c8(40, 90, 255, 255),
    );
    // Front-facing as given (culled once flipped), back-facing as given (drawn once flipped).
    let mut verts = f.rect_w([4.0, 4.0, 28.0, 20.0], 0.5, a, true);
    verts.extend(f.rect_w([36.0, 4.0, 60.0, 20.0], 0.5, b, false));
    // Through a 32x32 viewport at (0, 32) flipped: pixels (8, 4)..(24, 12) of the full-frame
    // coordinates map to x 4..12 and rows 32 + 32 - 6..32 + 32 - 2 once halved and flipped.
    verts.extend(f.rect_w([8.0, 4.0, 24.0, 12.0], 0.5, c, false));
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    f.submit(|cb| {
        f.begin(cb, t.rp, t.fb, &[clear_color(BG)]);
        // SAFETY: recording inside the pass; buffers alive and large enough.
        unsafe {
            f.d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            f.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            f.viewport(cb, 0.0, h, w, -h);
            f.d.cmd_draw(cb, 12, 1, 0, 0);
            f.viewport(cb, 0.0, 64.0, 32.0, -32.0);
            f.d.cmd_draw(cb, 6, 1, 12, 0);
            f.d.cmd_end_render_pass(cb);
        }
    })?;
    let got = f.read(
        "color",
        t.img,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    let mut want = want_rgba8(f, BG);
    // Full-frame flip: rows y0..y1 land on h - y1..h - y0.
    want.fill(36, 64 - 20, 60, 64 - 4, codes(b));
    // Half-size flip into (0, 32)..(32, 64): x halves, y halves and flips inside the viewport.
    want.fill(4, 64 - 6, 12, 64 - 2, codes(c));
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}
