//! Geometry shaders through the loader, under the validation layer. A 16x16 target is
//! cleared to black and two red triangles are drawn, primitive 0 in the top left quadrant
//! and primitive 1 in the top right one, through GEOM: it runs twice per primitive
//! (gl_InvocationID 0 and 1), drops primitive 1 (gl_PrimitiveIDIn), and moves invocation
//! 1's copy half the screen down. So the top left and bottom left quadrants get a triangle
//! and the right half stays black, with a direct draw and with an indirect one (whose
//! counts the GPU turns into the emulation's two draws). Without a geometry shader, a
//! triangle list with adjacency draws only corners 0, 2 and 4 of each primitive.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(triangles, invocations = 2) in;
/// layout(triangle_strip, max_vertices = 3) out;
/// void main() {
///     if (gl_PrimitiveIDIn == 1) {
///         return;
///     }
///     for (int i = 0; i < 3; i++) {
///         gl_Position = gl_in[i].gl_Position + vec4(0.0, float(gl_InvocationID), 0.0, 0.0);
///         EmitVertex();
///     }
///     EndPrimitive();
/// }
/// ```
#[rustfmt::skip]
const GEOM: [u32; 423] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000036, 0x00000000, 0x00020011, 0x00000002, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0009000f, 0x00000003, 0x00000004, 0x6e69616d,
0x00000000, 0x00000008, 0x00000022, 0x00000027, 0x0000002d, 0x00030010, 0x00000004, 0x00000016, 0x00040010, 0x00000004,
0x00000000, 0x00000002, 0x00030010, 0x00000004, 0x0000001d, 0x00040010, 0x00000004, 0x0000001a, 0x00000003, 0x00030003,
0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00070005, 0x00000008, 0x505f6c67, 0x696d6972,
0x65766974, 0x6e494449, 0x00000000, 0x00030005, 0x00000011, 0x00000069, 0x00060005, 0x00000020, 0x505f6c67, 0x65567265,
0x78657472, 0x00000000, 0x00060006, 0x00000020, 0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x00000020,
0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953, 0x00000000, 0x00070006, 0x00000020, 0x00000002, 0x435f6c67, 0x4470696c,
0x61747369, 0x0065636e, 0x00070006, 0x00000020, 0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005,
0x00000022, 0x00000000, 0x00060005, 0x00000023, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x00000023,
0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x00000023, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953,
0x00000000, 0x00070006, 0x00000023, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x00000023,
0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00040005, 0x00000027, 0x695f6c67, 0x0000006e, 0x00060005,
0x0000002d, 0x495f6c67, 0x636f766e, 0x6f697461, 0x0044496e, 0x00040047, 0x00000008, 0x0000000b, 0x00000007, 0x00050048,
0x00000020, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000020, 0x00000001, 0x0000000b, 0x00000001, 0x00050048,
0x00000020, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x00000020, 0x00000003, 0x0000000b, 0x00000004, 0x00030047,
0x00000020, 0x00000002, 0x00050048, 0x00000023, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000023, 0x00000001,
0x0000000b, 0x00000001, 0x00050048, 0x00000023, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x00000023, 0x00000003,
0x0000000b, 0x00000004, 0x00030047, 0x00000023, 0x00000002, 0x00040047, 0x0000002d, 0x0000000b, 0x00000008, 0x00020013,
0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000001, 0x00040020, 0x00000007,
0x00000001, 0x00000006, 0x0004003b, 0x00000007, 0x00000008, 0x00000001, 0x0004002b, 0x00000006, 0x0000000a, 0x00000001,
0x00020014, 0x0000000b, 0x00040020, 0x00000010, 0x00000007, 0x00000006, 0x0004002b, 0x00000006, 0x00000012, 0x00000000,
0x0004002b, 0x00000006, 0x00000019, 0x00000003, 0x00030016, 0x0000001b, 0x00000020, 0x00040017, 0x0000001c, 0x0000001b,
0x00000004, 0x00040015, 0x0000001d, 0x00000020, 0x00000000, 0x0004002b, 0x0000001d, 0x0000001e, 0x00000001, 0x0004001c,
0x0000001f, 0x0000001b, 0x0000001e, 0x0006001e, 0x00000020, 0x0000001c, 0x0000001b, 0x0000001f, 0x0000001f, 0x00040020,
0x00000021, 0x00000003, 0x00000020, 0x0004003b, 0x00000021, 0x00000022, 0x00000003, 0x0006001e, 0x00000023, 0x0000001c,
0x0000001b, 0x0000001f, 0x0000001f, 0x0004002b, 0x0000001d, 0x00000024, 0x00000003, 0x0004001c, 0x00000025, 0x00000023,
0x00000024, 0x00040020, 0x00000026, 0x00000001, 0x00000025, 0x0004003b, 0x00000026, 0x00000027, 0x00000001, 0x00040020,
0x00000029, 0x00000001, 0x0000001c, 0x0004002b, 0x0000001b, 0x0000002c, 0x00000000, 0x0004003b, 0x00000007, 0x0000002d,
0x00000001, 0x00040020, 0x00000032, 0x00000003, 0x0000001c, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003,
0x000200f8, 0x00000005, 0x0004003b, 0x00000010, 0x00000011, 0x00000007, 0x0004003d, 0x00000006, 0x00000009, 0x00000008,
0x000500aa, 0x0000000b, 0x0000000c, 0x00000009, 0x0000000a, 0x000300f7, 0x0000000e, 0x00000000, 0x000400fa, 0x0000000c,
0x0000000d, 0x0000000e, 0x000200f8, 0x0000000d, 0x000100fd, 0x000200f8, 0x0000000e, 0x0003003e, 0x00000011, 0x00000012,
0x000200f9, 0x00000013, 0x000200f8, 0x00000013, 0x000400f6, 0x00000015, 0x00000016, 0x00000000, 0x000200f9, 0x00000017,
0x000200f8, 0x00000017, 0x0004003d, 0x00000006, 0x00000018, 0x00000011, 0x000500b1, 0x0000000b, 0x0000001a, 0x00000018,
0x00000019, 0x000400fa, 0x0000001a, 0x00000014, 0x00000015, 0x000200f8, 0x00000014, 0x0004003d, 0x00000006, 0x00000028,
0x00000011, 0x00060041, 0x00000029, 0x0000002a, 0x00000027, 0x00000028, 0x00000012, 0x0004003d, 0x0000001c, 0x0000002b,
0x0000002a, 0x0004003d, 0x00000006, 0x0000002e, 0x0000002d, 0x0004006f, 0x0000001b, 0x0000002f, 0x0000002e, 0x00070050,
0x0000001c, 0x00000030, 0x0000002c, 0x0000002f, 0x0000002c, 0x0000002c, 0x00050081, 0x0000001c, 0x00000031, 0x0000002b,
0x00000030, 0x00050041, 0x00000032, 0x00000033, 0x00000022, 0x00000012, 0x0003003e, 0x00000033, 0x00000031, 0x000100da,
0x000200f9, 0x00000016, 0x000200f8, 0x00000016, 0x0004003d, 0x00000006, 0x00000034, 0x00000011, 0x00050080, 0x00000006,
0x00000035, 0x00000034, 0x0000000a, 0x0003003e, 0x00000011, 0x00000035, 0x000200f9, 0x00000013, 0x000200f8, 0x00000015,
0x000100db, 0x000100fd, 0x00010038
];

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
    draw(ctx, dev, queue, &TRIANGLES, Some(&GEOM), indirect)
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
