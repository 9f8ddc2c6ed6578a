//! Conditional rendering (`VK_EXT_conditional_rendering`) and draw indirect count through the
//! loader, under the validation layer. One render pass draws a red rectangle into each
//! quadrant of a 16x16 target, each under a different rule, after a whole-target clear to
//! green that a false condition must suppress:
//! - top left: a direct draw whose condition word is 1 (drawn);
//! - top right: a direct draw whose condition word is 0 (not drawn), and an indexed one;
//! - bottom left: an indirect draw under an inverted condition word of 0 (drawn);
//! - bottom right: vkCmdDrawIndirectCount with two records and a count word of 1: only the
//!   first record (this quadrant) is drawn, the second would have drawn the top right.
//!
//! Dispatches under a condition are left to the CTS group `conditional_rendering.dispatch`.

mod common;

use ash::vk;
use common::render::{quadrants_buffer, Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::conditional_rendering::NAME.as_ptr(),
        ash::khr::draw_indirect_count::NAME.as_ptr(),
    ];
    let mut conditional =
        vk::PhysicalDeviceConditionalRenderingFeaturesEXT::default().conditional_rendering(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut conditional);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with conditional rendering");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> Vec<u8> {
    let vb = quadrants_buffer(ctx, dev);
    let mut ib = Buf::new(ctx, dev, 24, vk::BufferUsageFlags::INDEX_BUFFER);
    ib.write(&words(&[6, 7, 8, 9, 10, 11]));
    // Condition words: 1 at offset 0, 0 at offset 4.
    let mut cond = Buf::new(ctx, dev, 8, vk::BufferUsageFlags::CONDITIONAL_RENDERING_EXT);
    cond.write(&words(&[1, 0]));
    // Indirect records: [0] one draw of quadrant 2, then at 16 and 32 two draws (quadrants 3
    // and 1) for the counted draw, and the count 1 at 48.
    let mut indirect = Buf::new(ctx, dev, 64, vk::BufferUsageFlags::INDIRECT_BUFFER);
    indirect.write(&words(&[6, 1, 12, 0, 6, 1, 18, 0, 6, 1, 6, 0, 1, 0, 0, 0]));
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let shaders = Shaders::new(dev);
        let pipeline = shaders.pipeline(dev, target.pass, &PipelineSpec::new(SIZE));
        let area = target.area();
        let conditional = ash::ext::conditional_rendering::Device::new(&ctx.instance, dev);
        let counted = ash::khr::draw_indirect_count::Device::new(&ctx.instance, dev);
        let when = |offset: u64, inverted: bool| {
            let flags = if inverted {
                vk::ConditionalRenderingFlagsEXT::INVERTED
            } else {
                vk::ConditionalRenderingFlagsEXT::empty()
            };
            vk::ConditionalRenderingBeginInfoEXT::default()
                .buffer(cond.buffer)
                .offset(offset)
                .flags(flags)
        };

        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, CLEAR);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
        let push: Vec<u8> = RED.iter().flat_map(|f| f.to_le_bytes()).collect();
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);

        // A false condition suppresses a clear of the whole target to green.
        (conditional.fp().cmd_begin_conditional_rendering_ext)(cb, &when(4, false));
        let green = vk::ClearAttachment {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            color_attachment: 0,
            clear_value: vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 1.0, 0.0, 1.0],
                },
            },
        };
        let whole = vk::ClearRect {
            rect: area,
            base_array_layer: 0,
            layer_count: 1,
        };
        dev.cmd_clear_attachments(cb, &[green], &[whole]);
        // Top right: not drawn, directly or indexed.
        dev.cmd_draw(cb, 6, 1, 6, 0);
        dev.cmd_draw_indexed(cb, 6, 1, 0, 0, 0);
        (conditional.fp().cmd_end_conditional_rendering_ext)(cb);

        // Top left: drawn.
        (conditional.fp().cmd_begin_conditional_rendering_ext)(cb, &when(0, false));
        dev.cmd_draw(cb, 6, 1, 0, 0);
        (conditional.fp().cmd_end_conditional_rendering_ext)(cb);

        // Bottom left: drawn (inverted condition of 0).
        (conditional.fp().cmd_begin_conditional_rendering_ext)(cb, &when(4, true));
        dev.cmd_draw_indirect(cb, indirect.buffer, 0, 1, 16);
        (conditional.fp().cmd_end_conditional_rendering_ext)(cb);

        // Bottom right only: the count word is 1 of 2 records.
        counted.cmd_draw_indirect_count(cb, indirect.buffer, 16, indirect.buffer, 48, 2, 16);
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target.out.bytes().to_vec();
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(dev);
        got
    };
    target.destroy(dev);
    for b in [vb, ib, cond, indirect] {
        b.destroy(dev);
    }
    got
}

#[test]
fn draws_and_clears_follow_their_condition_and_count() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue);
    let half = SIZE / 2;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            let drawn = !(y < half && x >= half);
            let want: [u8; 4] = if drawn {
                [255, 0, 0, 255]
            } else {
                [0, 0, 0, 255]
            };
            assert_eq!(got[i..i + 4], want, "pixel ({x}, {y})");
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
