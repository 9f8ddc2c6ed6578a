//! Pipeline statistics queries through the loader, under the validation layer, with exact
//! counts:
//! - a draw: a triangle list of 6 vertices (two triangles that tile the 8 x 8 target, each
//!   pixel in exactly one of them), 2 instances: 12 vertices and vertex shader invocations,
//!   4 primitives in and out of the clipper, 128 fragment shader invocations;
//! - an indexed triangle strip with primitive restart, `0 1 2 3 R 0 1 2 3`: 8 vertices (the
//!   restart index is none), 4 primitives, again 2 x 64 fragments;
//! - a pipeline without a fragment stage: no fragment shader invocations;
//! - dispatches: direct (2, 3, 1) and indirect (1, 2, 2) workgroups of 8 invocations;
//! - pipelines without a geometry shader leave its statistics at 0, and draws leave compute
//!   invocations at 0;
//! - draws through `GEOMETRY_COPY_DROP` (two invocations per input triangle, primitive 1
//!   dropped, invocation 1's copy moved 4 pixels down): the geometry shader's invocations
//!   and emitted triangles, and the clipper counting those, for a direct instanced draw, an
//!   indirect one and an indexed strip with primitive restart;
//! - a triangle list with adjacency without a geometry shader: the adjacent vertices are
//!   ignored, and no geometry stage counts.
//!
//! The same results come back from vkCmdCopyQueryPoolResults. A secondary command buffer
//! inheriting the statistics counts into whichever query its primary has active, and into
//! none while no query is, also with a geometry shader.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::shaders::GEOMETRY_COPY_DROP;
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 8;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

type Flag = vk::QueryPipelineStatisticFlags;

/// What the draw queries count, in result order (the order of the bits).
const GRAPHICS: [Flag; 8] = [
    Flag::INPUT_ASSEMBLY_VERTICES,
    Flag::INPUT_ASSEMBLY_PRIMITIVES,
    Flag::VERTEX_SHADER_INVOCATIONS,
    Flag::GEOMETRY_SHADER_INVOCATIONS,
    Flag::CLIPPING_INVOCATIONS,
    Flag::CLIPPING_PRIMITIVES,
    Flag::FRAGMENT_SHADER_INVOCATIONS,
    Flag::COMPUTE_SHADER_INVOCATIONS,
];

/// Every statistic, in result order.
const ALL: [Flag; 11] = [
    Flag::INPUT_ASSEMBLY_VERTICES,
    Flag::INPUT_ASSEMBLY_PRIMITIVES,
    Flag::VERTEX_SHADER_INVOCATIONS,
    Flag::GEOMETRY_SHADER_INVOCATIONS,
    Flag::GEOMETRY_SHADER_PRIMITIVES,
    Flag::CLIPPING_INVOCATIONS,
    Flag::CLIPPING_PRIMITIVES,
    Flag::FRAGMENT_SHADER_INVOCATIONS,
    Flag::TESSELLATION_CONTROL_SHADER_PATCHES,
    Flag::TESSELLATION_EVALUATION_SHADER_INVOCATIONS,
    Flag::COMPUTE_SHADER_INVOCATIONS,
];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures::default()
        .pipeline_statistics_query(true)
        .inherited_queries(true)
        .geometry_shader(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with pipelineStatisticsQuery");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

fn bytes<T: Copy>(v: &[T], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().copied().flat_map(f).collect()
}

fn pool(dev: &ash::Device, statistics: Flag, count: u32) -> vk::QueryPool {
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::PIPELINE_STATISTICS)
        .pipeline_statistics(statistics)
        .query_count(count);
    // SAFETY: valid device and create info.
    unsafe { dev.create_query_pool(&info, None) }.expect("vkCreateQueryPool")
}

/// The draw queries' results with availability: from vkGetQueryPoolResults, then from
/// vkCmdCopyQueryPoolResults.
/// Starts the command buffer both draw tests record: queries 0 to 2 of `pool` reset, the
/// target's render pass begun, the vertex and 16-bit index buffers bound, the push
/// constants zero.
///
/// # Safety
/// All handles are valid and belong to `dev`.
unsafe fn begin_draws(
    dev: &ash::Device,
    shaders: &Shaders,
    target: &ColourTarget,
    [vb, ib]: [&Buf; 2],
    pool: vk::QueryPool,
) -> OneShot {
    let shot = OneShot::begin(dev);
    let cb = shot.cb;
    dev.cmd_reset_query_pool(cb, pool, 0, 3);
    target.begin(dev, cb, [0.0; 4]);
    dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
    dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT16);
    let push = [0u8; 16];
    dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
    shot
}

fn draw_counts(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> [[[u64; 9]; 3]; 2] {
    let list = [
        [-1.0f32, -1.0],
        [1.0, -1.0],
        [-1.0, 1.0],
        [1.0, -1.0],
        [1.0, 1.0],
        [-1.0, 1.0],
    ];
    let strip = [[-1.0f32, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]];
    let mut vb = Buf::new(ctx, dev, 10 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    let corners: Vec<[f32; 2]> = list.iter().chain(&strip).copied().collect();
    vb.write(&bytes(&corners, |c| {
        c.iter().flat_map(|f| f.to_le_bytes()).collect()
    }));
    let mut ib = Buf::new(ctx, dev, 18, vk::BufferUsageFlags::INDEX_BUFFER);
    ib.write(&bytes(&[0u16, 1, 2, 3, 0xffff, 0, 1, 2, 3], |i| {
        i.to_le_bytes().to_vec()
    }));
    let statistics = GRAPHICS.iter().fold(Flag::empty(), |a, &b| a | b);
    let copied = Buf::new(ctx, dev, 3 * 9 * 8, vk::BufferUsageFlags::TRANSFER_DST);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let mut got = [[0u64; 9]; 3];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let shaders = Shaders::new(dev);
        let listed = shaders.pipeline(dev, target.pass, &PipelineSpec::new(SIZE));
        let stripped = shaders.pipeline(
            dev,
            target.pass,
            &PipelineSpec {
                topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
                primitive_restart: true,
                ..PipelineSpec::new(SIZE)
            },
        );
        let unshaded = shaders.pipeline(
            dev,
            target.pass,
            &PipelineSpec {
                fragment: false,
                ..PipelineSpec::new(SIZE)
            },
        );
        let pool = pool(dev, statistics, 3);
        let shot = begin_draws(dev, &shaders, &target, [&vb, &ib], pool);
        let cb = shot.cb;
        let flags = vk::QueryControlFlags::empty();

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, listed);
        dev.cmd_begin_query(cb, pool, 0, flags);
        dev.cmd_draw(cb, 6, 2, 0, 0);
        dev.cmd_end_query(cb, pool, 0);

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, stripped);
        dev.cmd_begin_query(cb, pool, 1, flags);
        dev.cmd_draw_indexed(cb, 9, 1, 0, 6, 0);
        dev.cmd_end_query(cb, pool, 1);

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, unshaded);
        dev.cmd_begin_query(cb, pool, 2, flags);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_query(cb, pool, 2);
        dev.cmd_end_render_pass(cb);
        dev.cmd_copy_query_pool_results(
            cb,
            pool,
            0,
            3,
            copied.buffer,
            0,
            9 * 8,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        );
        shot.submit_and_wait(dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        for p in [listed, stripped, unshaded] {
            dev.destroy_pipeline(p, None);
        }
        shaders.destroy(dev);
    }
    let mut from_copy = [[0u64; 9]; 3];
    for (i, w) in copied.bytes().chunks_exact(8).enumerate() {
        from_copy[i / 9][i % 9] = u64::from_le_bytes(w.try_into().unwrap());
    }
    target.destroy(dev);
    for b in [vb, ib, copied] {
        b.destroy(dev);
    }
    [got, from_copy]
}

#[test]
fn draws_count_exactly() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let [got, copied] = draw_counts(&ctx, &dev, queue);
    // Vertices, primitives, VS, GS (none), clipper in and out, FS, CS (none), available.
    let want = [
        [12, 4, 12, 0, 4, 4, 128, 0, 1],
        [8, 4, 8, 0, 4, 4, 128, 0, 1],
        [6, 2, 6, 0, 2, 2, 0, 0, 1],
    ];
    assert_eq!(got, want, "vkGetQueryPoolResults");
    assert_eq!(copied, want, "vkCmdCopyQueryPoolResults");
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Queries of draws through `GEOMETRY_COPY_DROP`, every statistic, from
/// vkGetQueryPoolResults: a triangle list of 6 vertices (two triangles tiling the target), 2
/// instances; the same list through vkCmdDrawIndirect, 1 instance; an indexed triangle
/// strip with primitive restart, `0 1 2 3 R 0 1 2 3`.
fn geometry_counts(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> [[u64; 12]; 3] {
    let list = [
        [-1.0f32, -1.0],
        [1.0, -1.0],
        [-1.0, 1.0],
        [1.0, -1.0],
        [1.0, 1.0],
        [-1.0, 1.0],
    ];
    let strip = [[-1.0f32, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]];
    let mut vb = Buf::new(ctx, dev, 10 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    let corners: Vec<[f32; 2]> = list.iter().chain(&strip).copied().collect();
    vb.write(&bytes(&corners, |c| {
        c.iter().flat_map(|f| f.to_le_bytes()).collect()
    }));
    let mut ib = Buf::new(ctx, dev, 18, vk::BufferUsageFlags::INDEX_BUFFER);
    ib.write(&bytes(&[0u16, 1, 2, 3, 0xffff, 0, 1, 2, 3], |i| {
        i.to_le_bytes().to_vec()
    }));
    let mut args = Buf::new(ctx, dev, 16, vk::BufferUsageFlags::INDIRECT_BUFFER);
    args.write(&bytes(&[6u32, 1, 0, 0], |w| w.to_le_bytes().to_vec()));
    let statistics = ALL.iter().fold(Flag::empty(), |a, &b| a | b);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let mut got = [[0u64; 12]; 3];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let shaders = Shaders::new(dev);
        let gs = dev
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&GEOMETRY_COPY_DROP),
                None,
            )
            .expect("geometry shader module");
        let listed = shaders.pipeline(
            dev,
            target.pass,
            &PipelineSpec {
                geometry: Some(gs),
                ..PipelineSpec::new(SIZE)
            },
        );
        let stripped = shaders.pipeline(
            dev,
            target.pass,
            &PipelineSpec {
                topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
                primitive_restart: true,
                geometry: Some(gs),
                ..PipelineSpec::new(SIZE)
            },
        );
        let pool = pool(dev, statistics, 3);
        let shot = begin_draws(dev, &shaders, &target, [&vb, &ib], pool);
        let cb = shot.cb;
        let flags = vk::QueryControlFlags::empty();

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, listed);
        dev.cmd_begin_query(cb, pool, 0, flags);
        dev.cmd_draw(cb, 6, 2, 0, 0);
        dev.cmd_end_query(cb, pool, 0);

        dev.cmd_begin_query(cb, pool, 1, flags);
        dev.cmd_draw_indirect(cb, args.buffer, 0, 1, 16);
        dev.cmd_end_query(cb, pool, 1);

        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, stripped);
        dev.cmd_begin_query(cb, pool, 2, flags);
        dev.cmd_draw_indexed(cb, 9, 1, 0, 6, 0);
        dev.cmd_end_query(cb, pool, 2);
        dev.cmd_end_render_pass(cb);
        shot.submit_and_wait(dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        for p in [listed, stripped] {
            dev.destroy_pipeline(p, None);
        }
        dev.destroy_shader_module(gs, None);
        shaders.destroy(dev);
    }
    target.destroy(dev);
    for b in [vb, ib, args] {
        b.destroy(dev);
    }
    got
}

#[test]
fn geometry_shader_draws_count_exactly() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let got = geometry_counts(&ctx, &dev, queue);
    // Vertices, primitives and VS invocations as without a geometry shader; GS invocations
    // (primitives x 2 x instances); GS primitives, clipper in and out: each kept primitive
    // twice; FS; tessellation and CS (none); available. The lower left triangle covers 28
    // pixels (the diagonal's pixel centres belong to the other one), its copy 4 pixels down
    // 22; the upper right one 36, its copy 10. The strip's triangles are lower left, upper
    // right (primitive 1: dropped), lower left, upper right.
    let want = [
        [12, 4, 12, 8, 4, 4, 4, 2 * (28 + 22), 0, 0, 0, 1],
        [6, 2, 6, 4, 2, 2, 2, 28 + 22, 0, 0, 0, 1],
        [8, 4, 8, 8, 6, 6, 6, 2 * (28 + 22) + 36 + 10, 0, 0, 0, 1],
    ];
    assert_eq!(got, want);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// A triangle list with adjacency and no geometry shader, the two triangles of `draws`
/// at corners 0, 2, 4 of each primitive: the adjacent vertices are shaded and ignored.
#[test]
fn adjacency_without_a_geometry_shader() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let far = [9.0f32, 9.0];
    let corners = [
        [-1.0f32, -1.0],
        far,
        [1.0, -1.0],
        far,
        [-1.0, 1.0],
        far,
        [1.0, -1.0],
        far,
        [1.0, 1.0],
        far,
        [-1.0, 1.0],
        far,
    ];
    let mut vb = Buf::new(&ctx, &dev, 12 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    vb.write(&bytes(&corners, |c| {
        c.iter().flat_map(|f| f.to_le_bytes()).collect()
    }));
    let statistics = ALL.iter().fold(Flag::empty(), |a, &b| a | b);
    let target = ColourTarget::new(&ctx, &dev, SIZE, FORMAT);
    let mut got = [[0u64; 12]; 1];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let shaders = Shaders::new(&dev);
        let pipeline = shaders.pipeline(
            &dev,
            target.pass,
            &PipelineSpec {
                topology: vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY,
                ..PipelineSpec::new(SIZE)
            },
        );
        let pool = pool(&dev, statistics, 1);
        let shot = OneShot::begin(&dev);
        let cb = shot.cb;
        dev.cmd_reset_query_pool(cb, pool, 0, 1);
        target.begin(&dev, cb, [0.0; 4]);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        let push = [0u8; 16];
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_begin_query(cb, pool, 0, vk::QueryControlFlags::empty());
        dev.cmd_draw(cb, 12, 1, 0, 0);
        dev.cmd_end_query(cb, pool, 0);
        dev.cmd_end_render_pass(cb);
        shot.submit_and_wait(&dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(&dev);
    }
    // No geometry stage counts; the clipper sees the two triangles, which cover the target.
    assert_eq!(got, [[12, 2, 12, 0, 0, 2, 2, 64, 0, 0, 0, 1]]);
    target.destroy(&dev);
    vb.destroy(&dev);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn dispatches_count_their_invocations() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let out = Buf::new(&ctx, &dev, 1024, vk::BufferUsageFlags::STORAGE_BUFFER);
    let mut uniform = Buf::new(&ctx, &dev, 16, vk::BufferUsageFlags::UNIFORM_BUFFER);
    uniform.write(&[0; 16]);
    let mut indirect = Buf::new(&ctx, &dev, 12, vk::BufferUsageFlags::INDIRECT_BUFFER);
    indirect.write(&bytes(&[1u32, 2, 2], |w| w.to_le_bytes().to_vec()));
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER),
    ];
    let mut got = [[0u64; 2]; 3];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let (set_layout, p) = compute::dispatch_pipeline(&dev, Default::default(), &bindings);
        let (dpool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (vk::DescriptorType::STORAGE_BUFFER, 1),
                (vk::DescriptorType::UNIFORM_BUFFER, 1),
            ],
        );
        let storage = [vk::DescriptorBufferInfo {
            buffer: out.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let uniforms = [vk::DescriptorBufferInfo {
            buffer: uniform.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        dev.update_descriptor_sets(
            &[
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&storage),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&uniforms),
            ],
            &[],
        );
        let pool = pool(&dev, Flag::COMPUTE_SHADER_INVOCATIONS, 3);
        let shot = OneShot::begin(&dev);
        let cb = shot.cb;
        dev.cmd_reset_query_pool(cb, pool, 0, 3);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
        dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, p.layout, 0, &[set], &[]);
        dev.cmd_push_constants(cb, p.layout, vk::ShaderStageFlags::COMPUTE, 0, &[0; 4]);
        let flags = vk::QueryControlFlags::empty();
        dev.cmd_begin_query(cb, pool, 0, flags);
        dev.cmd_dispatch(cb, 2, 3, 1);
        dev.cmd_end_query(cb, pool, 0);
        dev.cmd_begin_query(cb, pool, 1, flags);
        dev.cmd_dispatch_indirect(cb, indirect.buffer, 0);
        dev.cmd_dispatch(cb, 1, 1, 1);
        dev.cmd_end_query(cb, pool, 1);
        // Outside any query: counted nowhere.
        dev.cmd_dispatch(cb, 4, 1, 1);
        dev.cmd_begin_query(cb, pool, 2, flags);
        dev.cmd_end_query(cb, pool, 2);
        shot.submit_and_wait(&dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        dev.destroy_descriptor_pool(dpool, None);
        p.destroy(&dev);
        dev.destroy_descriptor_set_layout(set_layout, None);
    }
    // local_size_x = 8.
    assert_eq!(got, [[6 * 8, 1], [(4 + 1) * 8, 1], [0, 1]]);
    for b in [out, uniform, indirect] {
        b.destroy(&dev);
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Query results of four runs of one secondary that inherits every statistic and draws 6
/// vertices (a triangle list) with `geometry` as its geometry shader: in queries 0 and 1,
/// without a query, and in query 2.
fn secondary_counts(geometry: Option<&[u32]>) -> [[u64; 12]; 3] {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let corners = [
        [-1.0f32, -1.0],
        [1.0, -1.0],
        [-1.0, 1.0],
        [1.0, -1.0],
        [1.0, 1.0],
        [-1.0, 1.0],
    ];
    let mut vb = Buf::new(&ctx, &dev, 6 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    vb.write(&bytes(&corners, |c| {
        c.iter().flat_map(|f| f.to_le_bytes()).collect()
    }));
    let target = ColourTarget::new(&ctx, &dev, SIZE, FORMAT);
    let statistics = ALL.iter().fold(Flag::empty(), |a, &b| a | b);
    let mut got = [[0u64; 12]; 3];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let shaders = Shaders::new(&dev);
        let gs = geometry.map(|code| {
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .expect("geometry shader module")
        });
        let spec = PipelineSpec {
            geometry: gs,
            ..PipelineSpec::new(SIZE)
        };
        let pipeline = shaders.pipeline(&dev, target.pass, &spec);
        let pool = pool(&dev, statistics, 3);
        let shot = OneShot::begin(&dev);
        let cb = shot.cb;
        let secondary = dev
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(shot.pool)
                    .level(vk::CommandBufferLevel::SECONDARY)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        let inheritance = vk::CommandBufferInheritanceInfo::default()
            .render_pass(target.pass)
            .subpass(0)
            .framebuffer(target.framebuffer)
            .pipeline_statistics(statistics);
        dev.begin_command_buffer(
            secondary,
            &vk::CommandBufferBeginInfo::default()
                .flags(
                    vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE
                        | vk::CommandBufferUsageFlags::SIMULTANEOUS_USE,
                )
                .inheritance_info(&inheritance),
        )
        .unwrap();
        dev.cmd_bind_vertex_buffers(secondary, 0, &[vb.buffer], &[0]);
        dev.cmd_bind_pipeline(secondary, vk::PipelineBindPoint::GRAPHICS, pipeline);
        let push = [0u8; 16];
        dev.cmd_push_constants(
            secondary,
            shaders.layout,
            vk::ShaderStageFlags::FRAGMENT,
            0,
            &push,
        );
        dev.cmd_draw(secondary, 6, 1, 0, 0);
        dev.end_command_buffer(secondary).unwrap();

        dev.cmd_reset_query_pool(cb, pool, 0, 3);
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: [0.0; 4] },
        }];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(target.pass)
            .framebuffer(target.framebuffer)
            .render_area(target.area())
            .clear_values(&clears);
        let run = |query: Option<u32>| {
            if let Some(q) = query {
                dev.cmd_begin_query(cb, pool, q, vk::QueryControlFlags::empty());
            }
            dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::SECONDARY_COMMAND_BUFFERS);
            dev.cmd_execute_commands(cb, &[secondary]);
            dev.cmd_end_render_pass(cb);
            if let Some(q) = query {
                dev.cmd_end_query(cb, pool, q);
            }
        };
        run(Some(0));
        run(Some(1));
        // Its fragment counts of a run without a query go nowhere.
        run(None);
        run(Some(2));
        shot.submit_and_wait(&dev, queue);
        dev.get_query_pool_results(
            pool,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        dev.destroy_query_pool(pool, None);
        dev.destroy_pipeline(pipeline, None);
        if let Some(gs) = gs {
            dev.destroy_shader_module(gs, None);
        }
        shaders.destroy(&dev);
    }
    target.destroy(&dev);
    vb.destroy(&dev);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
    got
}

#[test]
fn secondaries_count_into_the_inherited_query() {
    // Vertices, primitives, VS, GS and its primitives (none), clipper in and out, FS,
    // tessellation (none), CS (none), available.
    assert_eq!(
        secondary_counts(None),
        [[6, 2, 6, 0, 0, 2, 2, 64, 0, 0, 0, 1]; 3]
    );
}

#[test]
fn secondaries_count_a_geometry_shader_into_the_inherited_query() {
    // The geometry shader runs 2 x 2 times and emits primitive 0 twice: 28 fragments where
    // it is, 22 of its copy 4 pixels down (the rest falls outside the target).
    assert_eq!(
        secondary_counts(Some(&GEOMETRY_COPY_DROP)),
        [[6, 2, 6, 4, 2, 2, 2, 50, 0, 0, 0, 1]; 3]
    );
}
