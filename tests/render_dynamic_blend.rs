//! Dynamic colour blend and multisample state through the loader, under the validation layer:
//! VK_EXT_color_write_enable, the blend states of VK_EXT_extended_dynamic_state3 (blend
//! enable, blend equation, write mask, logic op enable), its sample mask and alpha-to-one
//! enable, and VK_EXT_extended_dynamic_state2's logic op. agx4 compiles all of them into the
//! fragment shader, so every draw below that changes one runs another variant of the same
//! pipeline's fragment program.
//!
//! One pipeline draws each quadrant of a 16x16 RGBA8 target cleared to blue, with its
//! fragment shader writing (1, 0, 0, 0.5) and a different dynamic state per draw; each
//! quadrant must show what that state says. Every expected byte is exact in UNORM8.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const SOURCE: [f32; 4] = [1.0, 0.0, 0.0, 0.5];
/// SOURCE as written without blending (0.5 is 127.5: UNORM8 rounds it to 128).
const WRITTEN: [u8; 4] = [255, 0, 0, 128];
const CLEARED: [u8; 4] = [0, 0, 255, 255];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::extended_dynamic_state2::NAME.as_ptr(),
        ash::ext::extended_dynamic_state3::NAME.as_ptr(),
        ash::ext::color_write_enable::NAME.as_ptr(),
    ];
    let features = vk::PhysicalDeviceFeatures::default()
        .logic_op(true)
        .alpha_to_one(true);
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(true)
        .extended_dynamic_state3_color_blend_equation(true)
        .extended_dynamic_state3_color_write_mask(true)
        .extended_dynamic_state3_logic_op_enable(true)
        .extended_dynamic_state3_sample_mask(true)
        .extended_dynamic_state3_alpha_to_one_enable(true);
    let mut eds2 = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default()
        .extended_dynamic_state2(true)
        .extended_dynamic_state2_logic_op(true);
    let mut cwe = vk::PhysicalDeviceColorWriteEnableFeaturesEXT::default().color_write_enable(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .enabled_features(&features)
        .push_next(&mut eds2)
        .push_next(&mut eds3)
        .push_next(&mut cwe);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with the dynamic blend states");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Two triangles covering quadrant `q` (0 top-left, 1 top-right, 2 bottom-left,
/// 3 bottom-right) in clip space.
fn quadrant(q: usize) -> [f32; 12] {
    let x0 = if q & 1 == 0 { -1.0 } else { 0.0 };
    let y0 = if q < 2 { -1.0 } else { 0.0 };
    let (x1, y1) = (x0 + 1.0, y0 + 1.0);
    [x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1]
}

/// The quadrant of pixel `i` of the target.
fn quadrant_of(i: usize) -> usize {
    let (x, y) = (i as u32 % SIZE, i as u32 / SIZE);
    usize::from(x >= SIZE / 2) + 2 * usize::from(y >= SIZE / 2)
}

/// Draws the four quadrants with one pipeline whose `dynamic` states are dynamic, calling
/// `set(q, cb)` before the draw of quadrant `q`; returns the target's bytes.
fn render(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    dynamic: &[vk::DynamicState],
    set: &dyn Fn(usize, vk::CommandBuffer),
) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 4 * 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = (0..4)
        .flat_map(quadrant)
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&bytes);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let shaders = Shaders::new(dev);
    let spec = PipelineSpec {
        dynamic: dynamic.to_vec(),
        ..PipelineSpec::new(SIZE)
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
        for q in 0..4 {
            set(q, cb);
            dev.cmd_draw(cb, 6, 1, 6 * q as u32, 0);
        }
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

fn check(got: &[u8], want: [[u8; 4]; 4]) {
    for (i, px) in got.chunks(4).enumerate() {
        let q = quadrant_of(i);
        assert_eq!(px, want[q], "pixel {i} (quadrant {q})");
    }
}

#[test]
fn colour_write_enable_mask_and_equation_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let cwe = ash::ext::color_write_enable::Device::new(&ctx.instance, &dev);
    let add = vk::ColorBlendEquationEXT {
        src_color_blend_factor: vk::BlendFactor::ONE,
        dst_color_blend_factor: vk::BlendFactor::ONE,
        color_blend_op: vk::BlendOp::ADD,
        src_alpha_blend_factor: vk::BlendFactor::ZERO,
        dst_alpha_blend_factor: vk::BlendFactor::ONE,
        alpha_blend_op: vk::BlendOp::ADD,
    };
    let set = |q: usize, cb: vk::CommandBuffer| {
        // What each quadrant runs with; every state is set before every draw.
        let (write, mask, blend) = match q {
            // The state the pipeline's own program was compiled for.
            0 => (true, vk::ColorComponentFlags::RGBA, false),
            // No write at all, whatever the mask.
            1 => (false, vk::ColorComponentFlags::RGBA, false),
            // Red and alpha only: green and blue keep the clear colour.
            2 => (
                true,
                vk::ColorComponentFlags::R | vk::ColorComponentFlags::A,
                false,
            ),
            // Additive colour, destination alpha kept.
            _ => (true, vk::ColorComponentFlags::RGBA, true),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            (cwe.fp().cmd_set_color_write_enable_ext)(cb, 1, [vk::Bool32::from(write)].as_ptr());
            eds3.cmd_set_color_write_mask(cb, 0, &[mask]);
            eds3.cmd_set_color_blend_enable(cb, 0, &[vk::Bool32::from(blend)]);
            eds3.cmd_set_color_blend_equation(cb, 0, &[add]);
        }
    };
    let dynamic = [
        vk::DynamicState::COLOR_WRITE_ENABLE_EXT,
        vk::DynamicState::COLOR_WRITE_MASK_EXT,
        vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
        vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
    ];
    let got = render(&ctx, &dev, queue, &dynamic, &set);
    check(
        &got,
        [WRITTEN, CLEARED, [255, 0, 255, 128], [255, 0, 255, 255]],
    );
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn logic_op_enable_and_op_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds2 = ash::ext::extended_dynamic_state2::Device::new(&ctx.instance, &dev);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let set = |q: usize, cb: vk::CommandBuffer| {
        let (enable, op) = match q {
            0 => (false, vk::LogicOp::XOR),
            1 => (true, vk::LogicOp::XOR),
            2 => (true, vk::LogicOp::AND),
            _ => (true, vk::LogicOp::COPY_INVERTED),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            eds3.cmd_set_logic_op_enable(cb, enable);
            eds2.cmd_set_logic_op(cb, op);
        }
    };
    let dynamic = [
        vk::DynamicState::LOGIC_OP_ENABLE_EXT,
        vk::DynamicState::LOGIC_OP_EXT,
    ];
    let got = render(&ctx, &dev, queue, &dynamic, &set);
    // Source bytes (255, 0, 0, 128) against the clear colour's (0, 0, 255, 255).
    check(
        &got,
        [
            WRITTEN,
            [255, 0, 255, 127],
            [0, 0, 0, 128],
            [0, 255, 255, 127],
        ],
    );
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn sample_mask_and_alpha_to_one_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let set = |q: usize, cb: vk::CommandBuffer| {
        // Quadrant 2 masks the only sample away; quadrant 1 replaces alpha by 1.
        let (mask, one) = match q {
            1 => (1, true),
            2 => (0, false),
            _ => (1, false),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            eds3.cmd_set_sample_mask(cb, vk::SampleCountFlags::TYPE_1, &[mask]);
            eds3.cmd_set_alpha_to_one_enable(cb, one);
        }
    };
    let dynamic = [
        vk::DynamicState::SAMPLE_MASK_EXT,
        vk::DynamicState::ALPHA_TO_ONE_ENABLE_EXT,
    ];
    let got = render(&ctx, &dev, queue, &dynamic, &set);
    check(&got, [WRITTEN, [255, 0, 0, 255], CLEARED, WRITTEN]);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
