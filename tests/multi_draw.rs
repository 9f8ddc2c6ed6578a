//! `VK_EXT_multi_draw` through the loader, under the validation layer. A 16x16 target is
//! cleared to black and its quadrants drawn red by multi-draw commands:
//! - vkCmdDrawMultiEXT with a stride larger than the structure draws the top left and bottom
//!   right quadrants (vertices 0..6 and 18..24);
//! - vkCmdDrawMultiIndexedEXT draws the bottom left one with the per-draw vertex offset, and
//!   the top right one through a shared vertex offset that overrides the per-draw values.
//!
//! So the top right quadrant is only red if the shared offset wins.

mod common;

use ash::vk;
use common::render::{quadrants_buffer, Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::ext::multi_draw::NAME.as_ptr()];
    let mut multi = vk::PhysicalDeviceMultiDrawFeaturesEXT::default().multi_draw(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut multi);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with multi draw");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// A draw structure padded to 12 bytes, to exercise the stride.
#[repr(C)]
#[derive(Clone, Copy)]
struct Padded {
    draw: vk::MultiDrawInfoEXT,
    _pad: u32,
}

fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> Vec<u8> {
    let vb = quadrants_buffer(ctx, dev);
    let mut ib = Buf::new(ctx, dev, 24, vk::BufferUsageFlags::INDEX_BUFFER);
    let indices: Vec<u8> = (0u32..6).flat_map(|i| i.to_le_bytes()).collect();
    ib.write(&indices);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let shaders = Shaders::new(dev);
        let pipeline = shaders.pipeline(dev, target.pass, &PipelineSpec::new(SIZE));
        let multi = ash::ext::multi_draw::Device::new(&ctx.instance, dev);
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, [0.0, 0.0, 0.0, 1.0]);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT32);
        let push: Vec<u8> = RED.iter().flat_map(|f| f.to_le_bytes()).collect();
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);

        let draws = [0, 18].map(|first_vertex| Padded {
            draw: vk::MultiDrawInfoEXT {
                first_vertex,
                vertex_count: 6,
            },
            _pad: 0,
        });
        (multi.fp().cmd_draw_multi_ext)(cb, 2, draws.as_ptr().cast(), 1, 0, 12);
        let per_draw = [vk::MultiDrawIndexedInfoEXT {
            first_index: 0,
            index_count: 6,
            vertex_offset: 12,
        }];
        (multi.fp().cmd_draw_multi_indexed_ext)(
            cb,
            1,
            per_draw.as_ptr(),
            1,
            0,
            std::mem::size_of::<vk::MultiDrawIndexedInfoEXT>() as u32,
            std::ptr::null(),
        );
        let shared = 6i32;
        (multi.fp().cmd_draw_multi_indexed_ext)(
            cb,
            1,
            per_draw.as_ptr(),
            1,
            0,
            std::mem::size_of::<vk::MultiDrawIndexedInfoEXT>() as u32,
            &shared,
        );
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target.out.bytes().to_vec();
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(dev);
        got
    };
    target.destroy(dev);
    for b in [vb, ib] {
        b.destroy(dev);
    }
    got
}

#[test]
fn multi_draws_cover_every_quadrant() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            assert_eq!(got[i..i + 4], [255, 0, 0, 255], "pixel ({x}, {y})");
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
