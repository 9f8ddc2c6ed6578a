//! Primitives generated queries (`VK_EXT_primitives_generated_query`) through the loader,
//! under the validation layer. Four queries in one render pass:
//! - 0: a direct triangle-list draw of 6 vertices and 2 instances: 4 primitives;
//! - 1: an indexed triangle strip with primitive restart, 16-bit indices bound at an offset
//!   that is not a multiple of 4: runs of 4 and 3 vertices make 2 + 1 primitives;
//! - 2: an indirect triangle-list draw of 9 vertices and 3 instances: 9 primitives;
//! - 3: no draw: 0.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 8;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::transform_feedback::NAME.as_ptr(),
        ash::ext::primitives_generated_query::NAME.as_ptr(),
    ];
    let mut primgen = vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT::default()
        .primitives_generated_query(true)
        .primitives_generated_query_with_rasterizer_discard(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut primgen);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with primitives generated queries");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

fn bytes<T: Copy, const N: usize>(v: [T; N], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.into_iter().flat_map(f).collect()
}

/// Each query's count and availability, as vkGetQueryPoolResults gives them in 64 bits.
fn counts(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> [[u64; 2]; 4] {
    let mut vb = Buf::new(ctx, dev, 9 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    // A small triangle repeated; where it lands does not matter to the count.
    let tri = [[-1.0f32, -1.0], [0.0, -1.0], [-1.0, 0.0]];
    vb.write(&bytes([tri, tri, tri], |t| {
        t.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
    }));
    let mut ib = Buf::new(ctx, dev, 20, vk::BufferUsageFlags::INDEX_BUFFER);
    ib.write(&bytes([9u16, 0, 1, 2, 3, 0xffff, 4, 5, 6, 7], |i| {
        i.to_le_bytes().to_vec()
    }));
    let mut indirect = Buf::new(ctx, dev, 16, vk::BufferUsageFlags::INDIRECT_BUFFER);
    indirect.write(&bytes([9u32, 3, 0, 0], |w| w.to_le_bytes().to_vec()));
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let mut results = [[0u64; 2]; 4];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let shaders = Shaders::new(dev);
        let list = shaders.pipeline(dev, target.pass, &PipelineSpec::new(SIZE));
        let strip = shaders.pipeline(
            dev,
            target.pass,
            &PipelineSpec {
                topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
                primitive_restart: true,
                ..PipelineSpec::new(SIZE)
            },
        );
        let pool = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::PRIMITIVES_GENERATED_EXT)
                    .query_count(4),
                None,
            )
            .unwrap();
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        dev.cmd_reset_query_pool(cb, pool, 0, 4);
        target.begin(dev, cb, [0.0; 4]);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        dev.cmd_bind_index_buffer(cb, ib.buffer, 2, vk::IndexType::UINT16);
        let push = [0u8; 16];
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        let flags = vk::QueryControlFlags::empty();

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, list);
        dev.cmd_begin_query(cb, pool, 0, flags);
        dev.cmd_draw(cb, 6, 2, 0, 0);
        dev.cmd_end_query(cb, pool, 0);

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, strip);
        dev.cmd_begin_query(cb, pool, 1, flags);
        dev.cmd_draw_indexed(cb, 8, 1, 0, 0, 0);
        dev.cmd_end_query(cb, pool, 1);

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, list);
        dev.cmd_begin_query(cb, pool, 2, flags);
        dev.cmd_draw_indirect(cb, indirect.buffer, 0, 1, 16);
        dev.cmd_end_query(cb, pool, 2);

        dev.cmd_begin_query(cb, pool, 3, flags);
        dev.cmd_end_query(cb, pool, 3);
        dev.cmd_end_render_pass(cb);
        shot.submit_and_wait(dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut results,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        dev.destroy_pipeline(list, None);
        dev.destroy_pipeline(strip, None);
        shaders.destroy(dev);
    }
    target.destroy(dev);
    for b in [vb, ib, indirect] {
        b.destroy(dev);
    }
    results
}

#[test]
fn draws_count_their_primitives() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let got = counts(&ctx, &dev, queue);
    assert_eq!(got, [[4, 1], [3, 1], [9, 1], [0, 1]]);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
