//! Clip and cull distances through the loader, under the validation layer. A quad of two
//! triangles covering a 32x32 RGBA8 target is drawn by a vertex shader that writes
//! gl_ClipDistance[0] = x, gl_ClipDistance[1] = 0.5 - y and gl_CullDistance[0] = x - y - 1.5
//! (NDC x and y). The clip distances cut the quad to x >= 0, y <= 0.5; the cull distance is
//! negative at every vertex of the triangle above the diagonal (y > x), which disappears
//! whole, while the other triangle is kept whole (most of it has a negative cull distance).
//! Drawn once with a constant colour and once with a fragment shader that outputs the
//! interpolated gl_ClipDistance and gl_CullDistance, whose expected values are computed here
//! from the pixel centres. Pixel centres never lie on the clip planes; those on the diagonal
//! (shared by both triangles) are skipped.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 32;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 0.0];
const COLOUR: [f32; 4] = [1.0, 0.0, 1.0, 1.0];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec2 pos;
/// out gl_PerVertex {
///     vec4 gl_Position;
///     float gl_ClipDistance[2];
///     float gl_CullDistance[1];
/// };
/// void main() {
///     gl_Position = vec4(pos, 0.0, 1.0);
///     gl_ClipDistance[0] = pos.x;
///     gl_ClipDistance[1] = 0.5 - pos.y;
///     gl_CullDistance[0] = pos.x - pos.y - 1.5;
/// }
/// ```
#[rustfmt::skip]
const CLIP_VERT: [u32; 309] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000032, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000020, 0x00020011,
0x00000021, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001,
0x0007000f, 0x00000000, 0x00000004, 0x6e69616d, 0x00000000, 0x0000000f, 0x00000014, 0x00030003, 0x00000002, 0x000001c2,
0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00060005, 0x0000000d, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000,
0x00060006, 0x0000000d, 0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x0000000d, 0x00000001, 0x435f6c67,
0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x0000000d, 0x00000002, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e,
0x00030005, 0x0000000f, 0x00000000, 0x00030005, 0x00000014, 0x00736f70, 0x00050048, 0x0000000d, 0x00000000, 0x0000000b,
0x00000000, 0x00050048, 0x0000000d, 0x00000001, 0x0000000b, 0x00000003, 0x00050048, 0x0000000d, 0x00000002, 0x0000000b,
0x00000004, 0x00030047, 0x0000000d, 0x00000002, 0x00040047, 0x00000014, 0x0000001e, 0x00000000, 0x00020013, 0x00000002,
0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004,
0x00040015, 0x00000008, 0x00000020, 0x00000000, 0x0004002b, 0x00000008, 0x00000009, 0x00000002, 0x0004001c, 0x0000000a,
0x00000006, 0x00000009, 0x0004002b, 0x00000008, 0x0000000b, 0x00000001, 0x0004001c, 0x0000000c, 0x00000006, 0x0000000b,
0x0005001e, 0x0000000d, 0x00000007, 0x0000000a, 0x0000000c, 0x00040020, 0x0000000e, 0x00000003, 0x0000000d, 0x0004003b,
0x0000000e, 0x0000000f, 0x00000003, 0x00040015, 0x00000010, 0x00000020, 0x00000001, 0x0004002b, 0x00000010, 0x00000011,
0x00000000, 0x00040017, 0x00000012, 0x00000006, 0x00000002, 0x00040020, 0x00000013, 0x00000001, 0x00000012, 0x0004003b,
0x00000013, 0x00000014, 0x00000001, 0x0004002b, 0x00000006, 0x00000016, 0x00000000, 0x0004002b, 0x00000006, 0x00000017,
0x3f800000, 0x00040020, 0x0000001b, 0x00000003, 0x00000007, 0x0004002b, 0x00000010, 0x0000001d, 0x00000001, 0x0004002b,
0x00000008, 0x0000001e, 0x00000000, 0x00040020, 0x0000001f, 0x00000001, 0x00000006, 0x00040020, 0x00000022, 0x00000003,
0x00000006, 0x0004002b, 0x00000006, 0x00000024, 0x3f000000, 0x0004002b, 0x00000010, 0x00000029, 0x00000002, 0x0004002b,
0x00000006, 0x0000002f, 0x3fc00000, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005,
0x0004003d, 0x00000012, 0x00000015, 0x00000014, 0x00050051, 0x00000006, 0x00000018, 0x00000015, 0x00000000, 0x00050051,
0x00000006, 0x00000019, 0x00000015, 0x00000001, 0x00070050, 0x00000007, 0x0000001a, 0x00000018, 0x00000019, 0x00000016,
0x00000017, 0x00050041, 0x0000001b, 0x0000001c, 0x0000000f, 0x00000011, 0x0003003e, 0x0000001c, 0x0000001a, 0x00050041,
0x0000001f, 0x00000020, 0x00000014, 0x0000001e, 0x0004003d, 0x00000006, 0x00000021, 0x00000020, 0x00060041, 0x00000022,
0x00000023, 0x0000000f, 0x0000001d, 0x00000011, 0x0003003e, 0x00000023, 0x00000021, 0x00050041, 0x0000001f, 0x00000025,
0x00000014, 0x0000000b, 0x0004003d, 0x00000006, 0x00000026, 0x00000025, 0x00050083, 0x00000006, 0x00000027, 0x00000024,
0x00000026, 0x00060041, 0x00000022, 0x00000028, 0x0000000f, 0x0000001d, 0x0000001d, 0x0003003e, 0x00000028, 0x00000027,
0x00050041, 0x0000001f, 0x0000002a, 0x00000014, 0x0000001e, 0x0004003d, 0x00000006, 0x0000002b, 0x0000002a, 0x00050041,
0x0000001f, 0x0000002c, 0x00000014, 0x0000000b, 0x0004003d, 0x00000006, 0x0000002d, 0x0000002c, 0x00050083, 0x00000006,
0x0000002e, 0x0000002b, 0x0000002d, 0x00050083, 0x00000006, 0x00000030, 0x0000002e, 0x0000002f, 0x00060041, 0x00000022,
0x00000031, 0x0000000f, 0x00000029, 0x00000011, 0x0003003e, 0x00000031, 0x00000030, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// in float gl_ClipDistance[2];
/// in float gl_CullDistance[1];
/// layout(location = 0) out vec4 colour;
/// void main() {
///     colour = vec4(gl_ClipDistance[0], (gl_CullDistance[0] + 3.5) / 4.0,
///                   gl_ClipDistance[1] / 2.0, 1.0);
/// }
/// ```
#[rustfmt::skip]
const READS_FRAG: [u32; 215] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000025, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000020, 0x00020011,
0x00000021, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001,
0x0008000f, 0x00000004, 0x00000004, 0x6e69616d, 0x00000000, 0x00000009, 0x0000000e, 0x00000017, 0x00030010, 0x00000004,
0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00040005, 0x00000009,
0x6f6c6f63, 0x00007275, 0x00060005, 0x0000000e, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00060005, 0x00000017,
0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00040047, 0x00000009, 0x0000001e, 0x00000000, 0x00040047, 0x0000000e,
0x0000000b, 0x00000003, 0x00040047, 0x00000017, 0x0000000b, 0x00000004, 0x00020013, 0x00000002, 0x00030021, 0x00000003,
0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004, 0x00040020, 0x00000008,
0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009, 0x00000003, 0x00040015, 0x0000000a, 0x00000020, 0x00000000,
0x0004002b, 0x0000000a, 0x0000000b, 0x00000002, 0x0004001c, 0x0000000c, 0x00000006, 0x0000000b, 0x00040020, 0x0000000d,
0x00000001, 0x0000000c, 0x0004003b, 0x0000000d, 0x0000000e, 0x00000001, 0x00040015, 0x0000000f, 0x00000020, 0x00000001,
0x0004002b, 0x0000000f, 0x00000010, 0x00000000, 0x00040020, 0x00000011, 0x00000001, 0x00000006, 0x0004002b, 0x0000000a,
0x00000014, 0x00000001, 0x0004001c, 0x00000015, 0x00000006, 0x00000014, 0x00040020, 0x00000016, 0x00000001, 0x00000015,
0x0004003b, 0x00000016, 0x00000017, 0x00000001, 0x0004002b, 0x00000006, 0x0000001a, 0x40600000, 0x0004002b, 0x00000006,
0x0000001c, 0x40800000, 0x0004002b, 0x0000000f, 0x0000001e, 0x00000001, 0x0004002b, 0x00000006, 0x00000021, 0x40000000,
0x0004002b, 0x00000006, 0x00000023, 0x3f800000, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8,
0x00000005, 0x00050041, 0x00000011, 0x00000012, 0x0000000e, 0x00000010, 0x0004003d, 0x00000006, 0x00000013, 0x00000012,
0x00050041, 0x00000011, 0x00000018, 0x00000017, 0x00000010, 0x0004003d, 0x00000006, 0x00000019, 0x00000018, 0x00050081,
0x00000006, 0x0000001b, 0x00000019, 0x0000001a, 0x00050088, 0x00000006, 0x0000001d, 0x0000001b, 0x0000001c, 0x00050041,
0x00000011, 0x0000001f, 0x0000000e, 0x0000001e, 0x0004003d, 0x00000006, 0x00000020, 0x0000001f, 0x00050088, 0x00000006,
0x00000022, 0x00000020, 0x00000021, 0x00070050, 0x00000007, 0x00000024, 0x00000013, 0x0000001d, 0x00000022, 0x00000023,
0x0003003e, 0x00000009, 0x00000024, 0x000100fd, 0x00010038,
];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        shader_clip_distance: vk::TRUE,
        shader_cull_distance: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with shaderClipDistance and shaderCullDistance");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Draws the quad over a black clear with CLIP_VERT and, when `reads` is set, READS_FRAG
/// (else the common FRAG in COLOUR), and returns the target's bytes.
fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, reads: bool) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: [f32; 12] = [
        -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0,
    ];
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    vb.write(&bytes);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let mut shaders = Shaders::new(dev);
    let module = |code: &[u32]| {
        // SAFETY: valid device and SPIR-V.
        unsafe {
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .unwrap()
        }
    };
    // SAFETY: no pipeline uses the replaced modules yet.
    unsafe { dev.destroy_shader_module(shaders.vs, None) };
    shaders.vs = module(&CLIP_VERT);
    if reads {
        // SAFETY: as above.
        unsafe { dev.destroy_shader_module(shaders.fs, None) };
        shaders.fs = module(&READS_FRAG);
    }
    let pipeline = shaders.pipeline(dev, target.pass, &PipelineSpec::new(SIZE));
    let shot = OneShot::begin(dev);
    let cb = shot.cb;
    target.begin(dev, cb, CLEAR);
    let push: Vec<u8> = COLOUR.iter().flat_map(|f| f.to_le_bytes()).collect();
    // SAFETY: `cb` is recording inside the render pass the pipeline was made for.
    unsafe {
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_render_pass(cb);
    }
    target.read_back(dev, cb);
    shot.submit_and_wait(dev, queue);
    let got = target.out.bytes().to_vec();
    // SAFETY: the GPU is idle.
    unsafe { dev.destroy_pipeline(pipeline, None) };
    shaders.destroy(dev);
    target.destroy(dev);
    vb.destroy(dev);
    got
}

/// NDC of the centre of pixel column or row `i`.
fn ndc(i: u32) -> f32 {
    (i as f32 + 0.5) * 2.0 / SIZE as f32 - 1.0
}

fn unorm8(x: f32) -> i32 {
    (x.clamp(0.0, 1.0) * 255.0).round() as i32
}

#[test]
fn clip_distances_cut_and_cull_distances_drop_whole_primitives() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let (features, limits) = unsafe {
        (
            ctx.instance.get_physical_device_features(ctx.pdev),
            ctx.instance.get_physical_device_properties(ctx.pdev).limits,
        )
    };
    assert_eq!(features.shader_clip_distance, vk::TRUE);
    assert_eq!(features.shader_cull_distance, vk::TRUE);
    assert!(limits.max_clip_distances >= 8 && limits.max_cull_distances >= 8);
    assert!(limits.max_combined_clip_and_cull_distances >= 8);
    let (dev, queue) = device(&ctx);
    let flat = render(&ctx, &dev, queue, false);
    let reads = render(&ctx, &dev, queue, true);
    let mut drawn = 0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            if i == j {
                continue;
            }
            let (x, y) = (ndc(i), ndc(j));
            let at = 4 * (j * SIZE + i) as usize;
            let inside = x > 0.0 && y < 0.5 && x > y;
            let want = if inside { [255, 0, 255, 255] } else { [0; 4] };
            assert_eq!(
                flat[at..at + 4],
                want,
                "constant colour at pixel ({i}, {j})"
            );
            let got = &reads[at..at + 4];
            if !inside {
                assert_eq!(got, [0; 4], "read distances at pixel ({i}, {j})");
                continue;
            }
            drawn += 1;
            let want = [x, (x - y - 1.5 + 3.5) / 4.0, (0.5 - y) / 2.0, 1.0].map(unorm8);
            for c in 0..4 {
                assert!(
                    (i32::from(got[c]) - want[c]).abs() <= 2,
                    "read distances at pixel ({i}, {j}): {got:?}, want {want:?}"
                );
            }
        }
    }
    // x > 0, y < 0.5 and below the diagonal: the lower-right part of the quad.
    assert!(drawn > 150, "{drawn} pixels drawn");
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
