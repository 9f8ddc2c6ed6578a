//! Draws that repeat the draw before them. A draw recorded in the same state as the last one,
//! with the same draw parameters, is recorded as an index list alone (the driver's `repeat`
//! path); any change of state in between must still reach the GPU. A 16x16 target is cleared
//! to black and its quadrants drawn (clip-space quads 0 top left, 1 top right, 2 bottom left,
//! 3 bottom right, six vertices each, in that order in the vertex buffer):
//! 1. red push constant, quadrant 0 (vertices 0..6);
//! 2. the same draw with twelve vertices: quadrants 0 and 1 red (a repeat);
//! 3. green push constant, quadrant 0 again: green only if the push constant change counts;
//! 4. vertex buffer bound 12 vertices further, the same draw: quadrant 2 green only if the
//!    binding counts;
//! 5. an indexed draw of quadrant 3 twice (the second a repeat with another first index that
//!    lands on the same vertices), and then blue push constants and the same indexed draw;
//! 6. quadrant 1 (vertices 6..12) drawn green, red, green and red, each after its push
//!    constants: the last two go back to root tables of the first two, whose words the driver
//!    reuses (`rebind`), and must still end red.
//!
//! So the expected image: quadrant 0 green, 1 red, 2 green, 3 blue.

mod common;

use ash::vk;
use common::render::{quadrants_buffer, Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

fn colour(c: [f32; 4]) -> Vec<u8> {
    c.iter().flat_map(|f| f.to_le_bytes()).collect()
}

#[test]
fn repeated_draws_see_every_state_change() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let vb = quadrants_buffer(&ctx, &dev);
    // Quadrant 3's vertices twice over: indices 0..6 and 6..12 name the same vertices.
    let mut ib = Buf::new(&ctx, &dev, 48, vk::BufferUsageFlags::INDEX_BUFFER);
    let indices: Vec<u8> = (0u32..12)
        .flat_map(|i| (18 + i % 6).to_le_bytes())
        .collect();
    ib.write(&indices);
    let target = ColourTarget::new(&ctx, &dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let shaders = Shaders::new(&dev);
        let pipeline = shaders.pipeline(&dev, target.pass, &PipelineSpec::new(SIZE));
        let shot = OneShot::begin(&dev);
        let cb = shot.cb;
        let push = |c: [f32; 4]| {
            dev.cmd_push_constants(
                cb,
                shaders.layout,
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &colour(c),
            )
        };
        target.begin(&dev, cb, [0.0, 0.0, 0.0, 1.0]);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
        push([1.0, 0.0, 0.0, 1.0]);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_draw(cb, 12, 1, 0, 0);
        push([0.0, 1.0, 0.0, 1.0]);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[12 * 8]);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_draw_indexed(cb, 6, 1, 0, 0, 0);
        dev.cmd_draw_indexed(cb, 6, 1, 6, 0, 0);
        push([0.0, 0.0, 1.0, 1.0]);
        dev.cmd_draw_indexed(cb, 6, 1, 6, 0, 0);
        for c in [[0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]].repeat(2) {
            push(c);
            dev.cmd_draw(cb, 6, 1, 6, 0);
        }
        dev.cmd_end_render_pass(cb);
        target.read_back(&dev, cb);
        shot.submit_and_wait(&dev, queue);
        let got = target.out.bytes().to_vec();
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(&dev);
        got
    };
    let want = [
        [0, 255, 0, 255],
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
    ];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let q = (x / (SIZE / 2) + 2 * (y / (SIZE / 2))) as usize;
            let i = ((y * SIZE + x) * 4) as usize;
            assert_eq!(got[i..i + 4], want[q], "pixel ({x}, {y}), quadrant {q}");
        }
    }
    target.destroy(&dev);
    vb.destroy(&dev);
    ib.destroy(&dev);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
