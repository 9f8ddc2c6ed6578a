//! `alphaToOneEnable` through the loader, under the validation layer: a rectangle covering
//! the whole RGBA8 target, whose fragment shader writes alpha 0, blended with source alpha
//! over the clear colour. With alpha-to-one the source replaces the destination (alpha 1);
//! without it the destination's colour stays and its alpha becomes 0. Read back with
//! vkCmdCopyImageToBuffer; every expected byte is 0 or 255, exact in UNORM8.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const SOURCE: [f32; 4] = [1.0, 0.0, 0.0, 0.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        alpha_to_one: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with alphaToOne");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Renders the blended rectangle with or without alpha-to-one and returns the target's bytes.
fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, alpha_to_one: bool) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: [f32; 12] = [
        -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0,
    ];
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    vb.write(&bytes);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let shaders = Shaders::new(dev);
    let mut spec = PipelineSpec::new(SIZE);
    spec.alpha_to_one = alpha_to_one;
    spec.blend = vk::PipelineColorBlendAttachmentState {
        blend_enable: vk::TRUE,
        src_color_blend_factor: vk::BlendFactor::SRC_ALPHA,
        dst_color_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
        color_blend_op: vk::BlendOp::ADD,
        src_alpha_blend_factor: vk::BlendFactor::ONE,
        dst_alpha_blend_factor: vk::BlendFactor::ZERO,
        alpha_blend_op: vk::BlendOp::ADD,
        color_write_mask: vk::ColorComponentFlags::RGBA,
    };
    let pipeline = shaders.pipeline(dev, target.pass, &spec);
    let shot = OneShot::begin(dev);
    let cb = shot.cb;
    target.begin(dev, cb, CLEAR);
    let push: Vec<u8> = SOURCE.iter().flat_map(|f| f.to_le_bytes()).collect();
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

#[test]
fn alpha_to_one_replaces_alpha_before_blending() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let features = unsafe { ctx.instance.get_physical_device_features(ctx.pdev) };
    assert_eq!(features.alpha_to_one, vk::TRUE);
    let (dev, queue) = device(&ctx);
    // Source alpha 1: the source colour with alpha 1 (src alpha factor ONE of 1).
    let with = render(&ctx, &dev, queue, true);
    // Source alpha 0: the clear colour, and the source's alpha 0.
    let without = render(&ctx, &dev, queue, false);
    for (i, (w, wo)) in with.chunks(4).zip(without.chunks(4)).enumerate() {
        assert_eq!(w, [255, 0, 0, 255], "pixel {i} with alpha-to-one");
        assert_eq!(wo, [0, 0, 255, 0], "pixel {i} without alpha-to-one");
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
