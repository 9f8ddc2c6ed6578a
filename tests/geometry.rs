//! Geometry shaders through the loader, under the validation layer. A 16x16 target is
//! cleared to black and two red triangles are drawn, primitive 0 in the top left quadrant
//! and primitive 1 in the top right one, through `GEOMETRY_COPY_DROP`: it runs twice per
//! primitive (gl_InvocationID 0 and 1), drops primitive 1 (gl_PrimitiveIDIn), and moves
//! invocation 1's copy half the screen down. So the top left and bottom left quadrants get a triangle
//! and the right half stays black, with a direct draw and with an indirect one (whose
//! counts the GPU turns into the emulation's two draws). Without a geometry shader, a
//! triangle list with adjacency draws only corners 0, 2 and 4 of each primitive.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::shaders::GEOMETRY_COPY_DROP;
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with geometry shaders");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Primitive 0 in the top left quadrant, primitive 1 in the top right one.
const TRIANGLES: [[f32; 2]; 6] = [
    [-1.0, -1.0],
    [0.0, -1.0],
    [-1.0, 0.0],
    [0.0, -1.0],
    [1.0, -1.0],
    [0.0, 0.0],
];

/// One triangle with adjacency: its triangle (corners 0, 2, 4) in the top left quadrant,
/// the adjacent vertices (1, 3, 5) at the far corner, where nothing may be drawn.
const WITH_ADJACENCY: [[f32; 2]; 6] = [
    [-1.0, -1.0],
    [1.0, 1.0],
    [0.0, -1.0],
    [1.0, 1.0],
    [-1.0, 0.0],
    [1.0, 0.0],
];

fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, indirect: bool) -> Vec<u8> {
    draw(
        ctx,
        dev,
        queue,
        &TRIANGLES,
        Some(&GEOMETRY_COPY_DROP),
        indirect,
    )
}

fn draw(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    triangles: &[[f32; 2]; 6],
    geometry: Option<&[u32]>,
    indirect: bool,
) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: Vec<u8> = triangles
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&verts);
    let mut args = Buf::new(ctx, dev, 16, vk::BufferUsageFlags::INDIRECT_BUFFER);
    let words: Vec<u8> = [6u32, 1, 0, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    args.write(&words);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let shaders = Shaders::new(dev);
        let gs = geometry.map(|code| {
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .expect("geometry shader module")
        });
        let spec = PipelineSpec {
            geometry: gs,
            topology: if gs.is_some() {
                vk::PrimitiveTopology::TRIANGLE_LIST
            } else {
                vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY
            },
            ..PipelineSpec::new(SIZE)
        };
        let pipeline = shaders.pipeline(dev, target.pass, &spec);
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, [0.0, 0.0, 0.0, 1.0]);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        let push: Vec<u8> = RED.iter().flat_map(|f| f.to_le_bytes()).collect();
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        if indirect {
            dev.cmd_draw_indirect(cb, args.buffer, 0, 1, 16);
        } else {
            dev.cmd_draw(cb, 6, 1, 0, 0);
        }
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target.out.bytes().to_vec();
        dev.destroy_pipeline(pipeline, None);
        if let Some(gs) = gs {
            dev.destroy_shader_module(gs, None);
        }
        shaders.destroy(dev);
        got
    };
    target.destroy(dev);
    vb.destroy(dev);
    args.destroy(dev);
    got
}

/// The colour at pixel (x, y).
fn at(got: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * SIZE + x) * 4) as usize;
    got[i..i + 4].try_into().unwrap()
}

fn check(indirect: bool) {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue, indirect);
    let (red, black) = ([255, 0, 0, 255], [0, 0, 0, 255]);
    // Inside each triangle's corner of its quadrant, and in the other corner.
    for (x, y, want) in [
        (2, 2, red),
        (2, 10, red),
        (10, 2, black),
        (10, 10, black),
        (6, 6, black),
        (6, 14, black),
    ] {
        assert_eq!(
            at(&got, x, y),
            want,
            "pixel ({x}, {y}), indirect {indirect}"
        );
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn geometry_shader_invocations_copy_and_drop_primitives() {
    check(false);
}

#[test]
fn geometry_shader_with_an_indirect_draw() {
    check(true);
}

#[test]
fn adjacency_without_a_geometry_shader_draws_the_plain_triangle() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    for indirect in [false, true] {
        let got = draw(&ctx, &dev, queue, &WITH_ADJACENCY, None, indirect);
        let (red, black) = ([255, 0, 0, 255], [0, 0, 0, 255]);
        for (x, y, want) in [(2, 2, red), (10, 2, black), (2, 10, black), (12, 12, black)] {
            assert_eq!(
                at(&got, x, y),
                want,
                "pixel ({x}, {y}), indirect {indirect}"
            );
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
