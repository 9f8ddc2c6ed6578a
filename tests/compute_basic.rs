//! The compute path through the loader, under the validation layer: command pools and
//! buffers, descriptors, pipeline layouts and caches, events, transfer commands executed on
//! the (simulated) GPU with meta shaders, timestamps, and shader/pipeline errors.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::shaders::DISPATCH_SHADER;
use common::{assert_no_validation_messages, Ctx};

/// A compute shader that declares the Tessellation capability, which agx4 does not offer
/// (spirv-as of a module with an empty `main`, LocalSize 1 1 1).
const TESSELLATION_CAPABILITY: [u32; 37] = [
    0x07230203, 0x00010000, 0x00070000, 0x00000005, 0x00000000, 0x00020011, 0x00000001, 0x00020011,
    0x00000003, 0x0003000e, 0x00000000, 0x00000001, 0x0005000f, 0x00000005, 0x00000001, 0x6e69616d,
    0x00000000, 0x00060010, 0x00000001, 0x00000011, 0x00000001, 0x00000001, 0x00000001, 0x00020013,
    0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00050036, 0x00000002, 0x00000001, 0x00000000,
    0x00000003, 0x000200f8, 0x00000004, 0x000100fd, 0x00010038,
];

fn host_visible_type(ctx: &Ctx) -> u32 {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..props.memory_type_count)
        .find(|&i| props.memory_types[i as usize].property_flags.contains(want))
        .unwrap()
}

/// A host-visible buffer of `size` bytes with its memory, mapped.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

impl HostBuffer {
    fn new(ctx: &Ctx, dev: &ash::Device, size: u64) -> HostBuffer {
        let usage = vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER;
        // SAFETY: valid device and create infos; the memory is bound before use.
        unsafe {
            let buffer = dev
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let req = dev.get_buffer_memory_requirements(buffer);
            let memory = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            dev.bind_buffer_memory(buffer, memory, 0).unwrap();
            let ptr = dev
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            HostBuffer {
                buffer,
                memory,
                ptr,
                size: size as usize,
            }
        }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping covers `size` bytes and lives until `destroy`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }

    fn write(&mut self, offset: usize, data: &[u8]) {
        // SAFETY: as in `bytes`; `&mut self` keeps other views of the mapping out.
        let all = unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size) };
        all[offset..offset + data.len()].copy_from_slice(data);
    }

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is done with the buffer (the tests wait for their fences).
        unsafe {
            dev.destroy_buffer(self.buffer, None);
            dev.free_memory(self.memory, None);
        }
    }
}

fn command_pool(dev: &ash::Device) -> vk::CommandPool {
    let info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(0)
        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    // SAFETY: valid device and create info.
    unsafe { dev.create_command_pool(&info, None) }.unwrap()
}

fn primaries(dev: &ash::Device, pool: vk::CommandPool, n: u32) -> Vec<vk::CommandBuffer> {
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(n);
    // SAFETY: valid device and allocate info.
    unsafe { dev.allocate_command_buffers(&info) }.unwrap()
}

/// Submits one command buffer and waits for it.
fn run(dev: &ash::Device, queue: vk::Queue, cb: vk::CommandBuffer) {
    // SAFETY: valid handles; the command buffer is executable.
    unsafe {
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let cbs = [cb];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            fence,
        )
        .unwrap();
        dev.wait_for_fences(&[fence], true, 10_000_000_000)
            .expect("the submission completes");
        dev.destroy_fence(fence, None);
    }
}

#[test]
fn command_pool_and_buffer_lifecycle() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let pool = command_pool(&dev);
    let cbs = primaries(&dev, pool, 2);
    let secondary_info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::SECONDARY)
        .command_buffer_count(1);
    // SAFETY: valid handles throughout; each command buffer is used as its state allows.
    unsafe {
        let secondary = dev.allocate_command_buffers(&secondary_info).unwrap()[0];
        let inheritance = vk::CommandBufferInheritanceInfo::default();
        dev.begin_command_buffer(
            secondary,
            &vk::CommandBufferBeginInfo::default().inheritance_info(&inheritance),
        )
        .unwrap();
        dev.end_command_buffer(secondary).unwrap();
        let once = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        dev.begin_command_buffer(cbs[0], &once).unwrap();
        dev.cmd_execute_commands(cbs[0], &[secondary]);
        dev.end_command_buffer(cbs[0]).unwrap();
        // An empty command buffer submits and completes.
        run(&dev, queue, cbs[0]);
        dev.reset_command_buffer(cbs[0], vk::CommandBufferResetFlags::empty())
            .unwrap();
        dev.begin_command_buffer(
            cbs[1],
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE),
        )
        .unwrap();
        dev.end_command_buffer(cbs[1]).unwrap();
        run(&dev, queue, cbs[1]);
        dev.free_command_buffers(pool, &[cbs[0]]);
        dev.reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
            .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        // The pool frees what is left (cbs[1] and the secondary).
        dev.destroy_command_pool(pool, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn descriptor_sets_layouts_updates_and_copies() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let buf = HostBuffer::new(&ctx, &dev, 4096);
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER),
        binding(2, vk::DescriptorType::STORAGE_BUFFER_DYNAMIC),
        binding(3, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    // SAFETY: valid handles and create infos throughout.
    unsafe {
        let layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 4,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: 4,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
                descriptor_count: 4,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                descriptor_count: 4,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(4)
            .pool_sizes(&sizes)
            .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET);
        let pool = dev.create_descriptor_pool(&pool_info, None).unwrap();
        let layouts = [layout, layout];
        let sets = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
            .unwrap();
        assert_eq!(sets.len(), 2);
        assert_ne!(sets[0], sets[1]);
        let info = |offset, range| {
            [vk::DescriptorBufferInfo {
                buffer: buf.buffer,
                offset,
                range,
            }]
        };
        let (i0, i1, i2, i3) = (
            info(0, 256),
            info(256, vk::WHOLE_SIZE),
            info(0, 64),
            info(512, 64),
        );
        let write = |b: u32, ty, i: &'static [vk::DescriptorBufferInfo]| {
            vk::WriteDescriptorSet::default()
                .dst_set(sets[0])
                .dst_binding(b)
                .descriptor_type(ty)
                .buffer_info(i)
        };
        let (i0, i1, i2, i3): (&'static _, &'static _, &'static _, &'static _) = (
            Box::leak(Box::new(i0)),
            Box::leak(Box::new(i1)),
            Box::leak(Box::new(i2)),
            Box::leak(Box::new(i3)),
        );
        let writes = [
            write(0, vk::DescriptorType::STORAGE_BUFFER, i0),
            write(1, vk::DescriptorType::UNIFORM_BUFFER, i1),
            write(2, vk::DescriptorType::STORAGE_BUFFER_DYNAMIC, i2),
            write(3, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC, i3),
        ];
        let copy = vk::CopyDescriptorSet::default()
            .src_set(sets[0])
            .src_binding(0)
            .dst_set(sets[1])
            .dst_binding(0)
            .descriptor_count(1);
        dev.update_descriptor_sets(&writes, &[copy]);
        dev.free_descriptor_sets(pool, &sets[1..]).unwrap();
        let again = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&[layout]),
            )
            .unwrap();
        dev.reset_descriptor_pool(pool, vk::DescriptorPoolResetFlags::empty())
            .unwrap();
        drop(again);
        let push = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: 16,
        }];
        let set_layouts = [layout, layout];
        let pl = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&push),
                None,
            )
            .unwrap();
        dev.destroy_pipeline_layout(pl, None);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(layout, None);
        buf.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn pipeline_cache_round_trips_with_the_spec_header() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    // SAFETY: valid handles and create infos throughout.
    unsafe {
        let props = ctx.instance.get_physical_device_properties(ctx.pdev);
        let cache = dev
            .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
            .unwrap();
        let data = dev.get_pipeline_cache_data(cache).unwrap();
        assert_eq!(data.len(), 32);
        let word = |i: usize| u32::from_le_bytes(data[i..i + 4].try_into().unwrap());
        assert_eq!(word(0), 32, "header size");
        assert_eq!(word(4), 1, "VK_PIPELINE_CACHE_HEADER_VERSION_ONE");
        assert_eq!(word(8), props.vendor_id);
        assert_eq!(word(12), props.device_id);
        assert_eq!(&data[16..32], &props.pipeline_cache_uuid);
        let second = dev
            .create_pipeline_cache(
                &vk::PipelineCacheCreateInfo::default().initial_data(&data),
                None,
            )
            .unwrap();
        dev.merge_pipeline_caches(second, &[cache]).unwrap();
        assert_eq!(dev.get_pipeline_cache_data(second).unwrap(), data);
        dev.destroy_pipeline_cache(cache, None);
        dev.destroy_pipeline_cache(second, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn events_set_and_reset_by_the_host() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    // SAFETY: valid handles throughout.
    unsafe {
        let event = dev
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        assert_eq!(dev.get_event_status(event), Ok(false));
        dev.set_event(event).unwrap();
        assert_eq!(dev.get_event_status(event), Ok(true));
        dev.reset_event(event).unwrap();
        assert_eq!(dev.get_event_status(event), Ok(false));
        dev.destroy_event(event, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn timestamp_properties() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let (props, families) = unsafe {
        (
            ctx.instance.get_physical_device_properties(ctx.pdev),
            ctx.instance
                .get_physical_device_queue_family_properties(ctx.pdev),
        )
    };
    assert!(
        families[0].timestamp_valid_bits >= 36,
        "Vulkan requires 36..=64 valid bits when timestamps are supported"
    );
    // The simulated kernel reports 1 GHz, so one tick is one nanosecond.
    assert_eq!(props.limits.timestamp_period, 1.0);
    assert_no_validation_messages();
}

#[test]
fn invalid_spirv_is_refused() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let garbage = [0xdead_beefu32, 1, 2, 3, 4, 5];
    // SAFETY: valid device; the code is deliberately not SPIR-V.
    let r = unsafe {
        dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&garbage), None)
    };
    assert!(r.is_err(), "garbage must not make a shader module");
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
}

#[test]
fn unsupported_capability_fails_cleanly() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    // SAFETY: valid handles and create infos; errors are the expected outcome.
    unsafe {
        let module = dev.create_shader_module(
            &vk::ShaderModuleCreateInfo::default().code(&TESSELLATION_CAPABILITY),
            None,
        );
        // The front end may refuse the module already; if not, the pipeline must fail.
        if let Ok(module) = module {
            let layout = dev
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .unwrap();
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)];
            let r = dev.create_compute_pipelines(vk::PipelineCache::null(), &info, None);
            let (pipelines, err) = r.expect_err("the Tessellation capability is not supported");
            assert_ne!(err, vk::Result::SUCCESS);
            assert_eq!(pipelines, vec![vk::Pipeline::null()]);
            dev.destroy_pipeline_layout(layout, None);
            dev.destroy_shader_module(module, None);
        }
        dev.destroy_device(None);
    }
}

fn word_at(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap())
}

#[test]
fn fill_update_and_copy_run_on_the_gpu() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let mut a = HostBuffer::new(&ctx, &dev, 1024);
    let mut b = HostBuffer::new(&ctx, &dev, 1024);
    a.write(0, &[0xee; 1024]);
    b.write(0, &[0xee; 1024]);
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    let update: Vec<u8> = (0..64u8)
        .map(|i| i.wrapping_mul(7).wrapping_add(1))
        .collect();
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE);
    let transfer = vk::PipelineStageFlags::TRANSFER;
    // SAFETY: valid handles; the buffers outlive the submission.
    unsafe {
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        // a[0..256) = 0x01020304; a[256..320) = update; then regions of a copied into b.
        dev.cmd_fill_buffer(cb, a.buffer, 0, 256, 0x0102_0304);
        dev.cmd_update_buffer(cb, a.buffer, 256, &update);
        dev.cmd_pipeline_barrier(
            cb,
            transfer,
            transfer,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
        let regions = [
            vk::BufferCopy {
                src_offset: 0,
                dst_offset: 0,
                size: 16,
            },
            vk::BufferCopy {
                src_offset: 256,
                dst_offset: 100,
                size: 64,
            },
            // Byte granular: odd offsets and size.
            vk::BufferCopy {
                src_offset: 257,
                dst_offset: 301,
                size: 13,
            },
        ];
        dev.cmd_copy_buffer(cb, a.buffer, b.buffer, &regions);
        dev.cmd_fill_buffer(cb, b.buffer, 512, vk::WHOLE_SIZE, 0xcafe_f00d);
        dev.end_command_buffer(cb)
            .expect("recording needs the meta shaders (compiler back end)");
        run(&dev, queue, cb);
    }
    let (ab, bb) = (a.bytes(), b.bytes());
    for i in 0..64 {
        assert_eq!(word_at(ab, i), 0x0102_0304, "fill word {i}");
    }
    assert_eq!(&ab[256..320], &update[..]);
    assert_eq!(ab[320], 0xee, "nothing past the update");
    let mut expect = vec![0xeeu8; 1024];
    expect[0..16].copy_from_slice(&[4, 3, 2, 1, 4, 3, 2, 1, 4, 3, 2, 1, 4, 3, 2, 1]);
    expect[100..164].copy_from_slice(&update);
    expect[301..314].copy_from_slice(&update[1..14]);
    for w in 128..256 {
        expect[4 * w..4 * w + 4].copy_from_slice(&0xcafe_f00du32.to_le_bytes());
    }
    assert_eq!(bb, &expect[..]);
    // SAFETY: the submission is complete.
    unsafe { dev.destroy_command_pool(pool, None) };
    a.destroy(&dev);
    b.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn timestamps_are_written_in_order() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let buf = HostBuffer::new(&ctx, &dev, 4096);
    let mut results = HostBuffer::new(&ctx, &dev, 64);
    results.write(0, &[0xab; 64]);
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    // SAFETY: valid handles; everything outlives the submission.
    unsafe {
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(3),
                None,
            )
            .unwrap();
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_reset_query_pool(cb, qp, 0, 3);
        dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, qp, 0);
        dev.cmd_fill_buffer(cb, buf.buffer, 0, 4096, 7);
        dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, 1);
        // No WAIT: query 2 is never written (the layer rightly rejects waiting for it).
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        dev.cmd_copy_query_pool_results(cb, qp, 0, 3, results.buffer, 0, 16, flags);
        dev.end_command_buffer(cb)
            .expect("recording needs the meta shaders (compiler back end)");
        run(&dev, queue, cb);
        let mut results_host = [[0u64; 2]; 2];
        dev.get_query_pool_results(
            qp,
            0,
            &mut results_host,
            vk::QueryResultFlags::TYPE_64
                | vk::QueryResultFlags::WAIT
                | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .unwrap();
        assert!(
            results_host[0][0] > 0 && results_host[0][1] == 1,
            "{results_host:?}"
        );
        assert!(
            results_host[1][0] >= results_host[0][0] && results_host[1][1] == 1,
            "{results_host:?}"
        );
        // Query 2 was reset and never written.
        let mut third = [[0u64; 2]; 1];
        let r = dev.get_query_pool_results(
            qp,
            2,
            &mut third,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        assert_eq!(r, Err(vk::Result::NOT_READY));
        assert_eq!(third[0][1], 0);
        // The GPU copy: the same values and availability; no value for the unavailable query.
        let r = results.bytes();
        let u64_at = |i: usize| u64::from_le_bytes(r[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(
            [u64_at(0), u64_at(1), u64_at(2), u64_at(3)],
            [results_host[0][0], 1, results_host[1][0], 1]
        );
        assert_eq!(
            u64_at(4),
            0xabab_abab_abab_abab,
            "unavailable without PARTIAL: value untouched"
        );
        assert_eq!(u64_at(5), 0);
        dev.destroy_query_pool(qp, None);
        dev.destroy_command_pool(pool, None);
    }
    assert!(buf.bytes().chunks(4).all(|w| w == [7, 0, 0, 0]));
    buf.destroy(&dev);
    results.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn events_set_and_reset_by_the_gpu() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let pool = command_pool(&dev);
    let cbs = primaries(&dev, pool, 2);
    // SAFETY: valid handles; everything outlives the submissions.
    unsafe {
        let event = dev
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        dev.begin_command_buffer(cbs[0], &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_set_event(cbs[0], event, vk::PipelineStageFlags::ALL_COMMANDS);
        dev.end_command_buffer(cbs[0]).unwrap();
        run(&dev, queue, cbs[0]);
        assert_eq!(dev.get_event_status(event), Ok(true));
        dev.begin_command_buffer(cbs[1], &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_reset_event(cbs[1], event, vk::PipelineStageFlags::ALL_COMMANDS);
        dev.end_command_buffer(cbs[1]).unwrap();
        run(&dev, queue, cbs[1]);
        assert_eq!(dev.get_event_status(event), Ok(false));
        dev.destroy_event(event, None);
        dev.destroy_command_pool(pool, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// vkCmdWaitEvents on an event the host sets only after submission: the work after the wait
/// must not run before vkSetEvent, and must run after it.
#[test]
fn wait_events_waits_for_a_host_set_event() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    let mut buf = HostBuffer::new(&ctx, &dev, 64);
    buf.write(0, &[0; 64]);
    // SAFETY: valid handles; everything outlives the submission.
    unsafe {
        let event = dev
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_wait_events(
            cb,
            &[event],
            vk::PipelineStageFlags::HOST,
            vk::PipelineStageFlags::TRANSFER,
            &[],
            &[],
            &[],
        );
        dev.cmd_fill_buffer(cb, buf.buffer, 0, 64, 0x2222_2222);
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            fence,
        )
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(
            dev.get_fence_status(fence),
            Ok(false),
            "the fill ran before vkSetEvent"
        );
        assert!(buf.bytes().iter().all(|&b| b == 0));
        dev.set_event(event).unwrap();
        dev.wait_for_fences(&[fence], true, 10_000_000_000).unwrap();
        assert!(buf.bytes().chunks(4).all(|w| w == [0x22; 4]));
        dev.destroy_fence(fence, None);
        dev.destroy_event(event, None);
        dev.destroy_command_pool(pool, None);
    }
    buf.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn dispatch_direct_and_indirect_with_dynamic_offsets_and_push_constants() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let out = HostBuffer::new(&ctx, &dev, 1024);
    let mut uniforms = HostBuffer::new(&ctx, &dev, 1024);
    let mut indirect = HostBuffer::new(&ctx, &dev, 64);
    uniforms.write(0, &5u32.to_le_bytes());
    uniforms.write(256, &9u32.to_le_bytes());
    indirect.write(16, &[3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let (set_layout, p) = compute::dispatch_pipeline(&dev, Default::default(), &bindings);
        let (layout, module, pipeline) = (p.layout, p.module, p.pipeline);
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 2,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                descriptor_count: 2,
            },
        ];
        let dpool = dev
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(2)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let layouts = [set_layout, set_layout];
        let sets = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(dpool)
                    .set_layouts(&layouts),
            )
            .unwrap();
        for (i, &set) in sets.iter().enumerate() {
            let storage = [vk::DescriptorBufferInfo {
                buffer: out.buffer,
                offset: 512 * i as u64,
                range: 512,
            }];
            let uniform = [vk::DescriptorBufferInfo {
                buffer: uniforms.buffer,
                offset: 0,
                range: 16,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&storage),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC)
                    .buffer_info(&uniform),
            ];
            dev.update_descriptor_sets(&writes, &[]);
        }
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
        dev.cmd_push_constants(
            cb,
            layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &3u32.to_le_bytes(),
        );
        dev.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            layout,
            0,
            &sets[..1],
            &[0],
        );
        dev.cmd_dispatch(cb, 2, 1, 1);
        // A zero-sized dispatch does nothing.
        dev.cmd_dispatch(cb, 0, 1, 1);
        dev.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            layout,
            0,
            &sets[1..],
            &[256],
        );
        dev.cmd_push_constants(
            cb,
            layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &7u32.to_le_bytes(),
        );
        dev.cmd_dispatch_indirect(cb, indirect.buffer, 16);
        dev.end_command_buffer(cb).unwrap();
        run(&dev, queue, cb);
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_shader_module(module, None);
        dev.destroy_descriptor_pool(dpool, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_command_pool(pool, None);
    }
    let o = out.bytes();
    for i in 0..16u32 {
        assert_eq!(
            word_at(o, i as usize),
            i * 3 + 5 + 2000,
            "direct dispatch, invocation {i}"
        );
    }
    assert_eq!(word_at(o, 16), 0, "only 16 invocations ran");
    for i in 0..24u32 {
        assert_eq!(
            word_at(o, 128 + i as usize),
            i * 7 + 9 + 3000,
            "indirect dispatch, invocation {i}"
        );
    }
    assert_eq!(word_at(o, 128 + 24), 0);
    out.destroy(&dev);
    uniforms.destroy(&dev);
    indirect.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn synchronization2_commands_and_queue_submit2() {
    let ctx = Ctx::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::khr::timeline_semaphore::NAME.as_ptr(),
        ash::khr::synchronization2::NAME.as_ptr(),
    ];
    let mut timeline =
        vk::PhysicalDeviceTimelineSemaphoreFeatures::default().timeline_semaphore(true);
    let mut sync2 = vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut timeline)
        .push_next(&mut sync2);
    // SAFETY: valid physical device and create info; everything below outlives its use.
    unsafe {
        let mut supported = vk::PhysicalDeviceSynchronization2Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut supported);
        ctx.instance
            .get_physical_device_features2(ctx.pdev, &mut f2);
        assert_eq!(supported.synchronization2, vk::TRUE);
        let dev = ctx.instance.create_device(ctx.pdev, &info, None).unwrap();
        let queue = dev.get_device_queue(0, 0);
        let s2 = ash::khr::synchronization2::Device::new(&ctx.instance, &dev);
        let mut buf = HostBuffer::new(&ctx, &dev, 256);
        buf.write(0, &[0; 256]);
        let pool = command_pool(&dev);
        let cb = primaries(&dev, pool, 1)[0];
        let event = dev
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(1),
                None,
            )
            .unwrap();
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_reset_query_pool(cb, qp, 0, 1);
        dev.cmd_fill_buffer(cb, buf.buffer, 0, 128, 0x1111_1111);
        let barrier = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)];
        let dependency = vk::DependencyInfo::default().memory_barriers(&barrier);
        s2.cmd_pipeline_barrier2(cb, &dependency);
        dev.cmd_copy_buffer(
            cb,
            buf.buffer,
            buf.buffer,
            &[vk::BufferCopy {
                src_offset: 0,
                dst_offset: 128,
                size: 64,
            }],
        );
        s2.cmd_set_event2(cb, event, &dependency);
        s2.cmd_wait_events2(cb, &[event], &[dependency]);
        s2.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, qp, 0);
        dev.end_command_buffer(cb).unwrap();
        let sem = {
            let mut t =
                vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
            dev.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut t), None)
                .unwrap()
        };
        let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
        let signals = [vk::SemaphoreSubmitInfo::default()
            .semaphore(sem)
            .value(5)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        let submit = vk::SubmitInfo2::default()
            .command_buffer_infos(&cbs)
            .signal_semaphore_infos(&signals);
        s2.queue_submit2(queue, &[submit], vk::Fence::null())
            .unwrap();
        let sems = [sem];
        let values = [5u64];
        let timeline = ash::khr::timeline_semaphore::Device::new(&ctx.instance, &dev);
        timeline
            .wait_semaphores(
                &vk::SemaphoreWaitInfo::default()
                    .semaphores(&sems)
                    .values(&values),
                10_000_000_000,
            )
            .unwrap();
        assert_eq!(dev.get_event_status(event), Ok(true));
        let mut stamp = [0u64; 1];
        dev.get_query_pool_results(qp, 0, &mut stamp, vk::QueryResultFlags::TYPE_64)
            .unwrap();
        assert_ne!(stamp[0], 0);
        let b = buf.bytes();
        assert!(b[..128].chunks(4).all(|w| w == [0x11; 4]));
        assert!(b[128..192].chunks(4).all(|w| w == [0x11; 4]));
        assert!(b[192..].iter().all(|&x| x == 0));
        dev.destroy_semaphore(sem, None);
        dev.destroy_query_pool(qp, None);
        dev.destroy_event(event, None);
        dev.destroy_command_pool(pool, None);
        buf.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn secondary_command_buffers_run_inside_primaries() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let mut buf = HostBuffer::new(&ctx, &dev, 256);
    buf.write(0, &[0; 256]);
    let pool = command_pool(&dev);
    let primary = primaries(&dev, pool, 1)[0];
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::SECONDARY)
        .command_buffer_count(1);
    // SAFETY: valid handles; everything outlives the submission.
    unsafe {
        let secondary = dev.allocate_command_buffers(&info).unwrap()[0];
        let inheritance = vk::CommandBufferInheritanceInfo::default();
        dev.begin_command_buffer(
            secondary,
            &vk::CommandBufferBeginInfo::default().inheritance_info(&inheritance),
        )
        .unwrap();
        dev.cmd_fill_buffer(secondary, buf.buffer, 64, 64, 0x2222_2222);
        dev.end_command_buffer(secondary).unwrap();
        dev.begin_command_buffer(primary, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_fill_buffer(primary, buf.buffer, 0, 64, 0x1111_1111);
        dev.cmd_execute_commands(primary, &[secondary]);
        dev.cmd_fill_buffer(primary, buf.buffer, 128, 64, 0x3333_3333);
        dev.end_command_buffer(primary).unwrap();
        run(&dev, queue, primary);
        dev.destroy_command_pool(pool, None);
    }
    let b = buf.bytes();
    for (i, expect) in [0x11u8, 0x22, 0x33, 0].into_iter().enumerate() {
        assert!(
            b[64 * i..64 * i + 64].iter().all(|&x| x == expect),
            "quarter {i}"
        );
    }
    buf.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn a_gpu_fault_loses_the_device() {
    // Deliberately invalid use (a dispatch with no descriptor set bound), so no validation.
    let ctx = Ctx::without_validation();
    let (dev, queue) = ctx.device();
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    let buf = HostBuffer::new(&ctx, &dev, 256);
    let pool = command_pool(&dev);
    let cbs = primaries(&dev, pool, 2);
    // SAFETY: valid handles; the errors are the point of the test.
    unsafe {
        let (set_layout, p) = compute::dispatch_pipeline(&dev, Default::default(), &bindings);
        let (layout, module, pipeline) = (p.layout, p.module, p.pipeline);
        dev.begin_command_buffer(cbs[0], &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_bind_pipeline(cbs[0], vk::PipelineBindPoint::COMPUTE, pipeline);
        // Set 0's address in the root table is 0: reading its descriptors faults.
        dev.cmd_dispatch(cbs[0], 1, 1, 1);
        dev.end_command_buffer(cbs[0]).unwrap();
        dev.begin_command_buffer(cbs[1], &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_fill_buffer(cbs[1], buf.buffer, 0, 256, 1);
        dev.end_command_buffer(cbs[1]).unwrap();
        let submit = |cb: vk::CommandBuffer| {
            let cbs = [cb];
            dev.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                vk::Fence::null(),
            )
        };
        submit(cbs[0]).unwrap();
        // The fault is visible to the driver once the kernel refuses work on the faulted
        // queue: the next SUBMIT after the faulting job has run.
        let _ = dev.queue_wait_idle(queue);
        let _ = submit(cbs[1]);
        assert_eq!(
            dev.queue_wait_idle(queue),
            Err(vk::Result::ERROR_DEVICE_LOST)
        );
        assert_eq!(submit(cbs[1]), Err(vk::Result::ERROR_DEVICE_LOST));
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_shader_module(module, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_command_pool(pool, None);
    }
    assert!(
        buf.bytes().iter().all(|&b| b == 0),
        "nothing ran after the fault"
    );
    buf.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
}

#[test]
fn more_commands_than_one_submit_takes() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    // Each timestamp ends a hardware command; the simulated kernel takes 64 per SUBMIT.
    const N: u32 = 150;
    // SAFETY: valid handles; everything outlives the submission.
    unsafe {
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(N),
                None,
            )
            .unwrap();
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_reset_query_pool(cb, qp, 0, N);
        for q in 0..N {
            dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, qp, q);
        }
        dev.end_command_buffer(cb).unwrap();
        run(&dev, queue, cb);
        let mut stamps = vec![0u64; N as usize];
        dev.get_query_pool_results(
            qp,
            0,
            &mut stamps,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
        .unwrap();
        assert!(stamps[0] > 0);
        assert!(
            stamps.windows(2).all(|w| w[0] <= w[1]),
            "timestamps follow submission order"
        );
        dev.destroy_query_pool(qp, None);
        dev.destroy_command_pool(pool, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn pipeline_cache_keeps_compiled_pipelines() {
    let ctx = Ctx::new();
    // VK_EXT_pipeline_creation_cache_control: pipelines that must not be compiled.
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [c"VK_EXT_pipeline_creation_cache_control".as_ptr()];
    let mut control = vk::PhysicalDevicePipelineCreationCacheControlFeatures::default()
        .pipeline_creation_cache_control(true);
    let dev_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut control);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &dev_info, None) }.unwrap();
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    // SAFETY: valid handles and create infos throughout.
    unsafe {
        let set_layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let push = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: 4,
        }];
        let set_layouts = [set_layout];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&push),
                None,
            )
            .unwrap();
        let module = dev
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&DISPATCH_SHADER),
                None,
            )
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)];
        let cache = dev
            .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
            .unwrap();
        let p1 = dev
            .create_compute_pipelines(cache, &info, None)
            .map_err(|(_, e)| e)
            .unwrap()[0];
        let data = dev.get_pipeline_cache_data(cache).unwrap();
        assert!(data.len() > 32, "the compiled pipeline is in the cache");
        let restored = dev
            .create_pipeline_cache(
                &vk::PipelineCacheCreateInfo::default().initial_data(&data),
                None,
            )
            .unwrap();
        assert_eq!(dev.get_pipeline_cache_data(restored).unwrap(), data);
        let p2 = dev
            .create_compute_pipelines(restored, &info, None)
            .map_err(|(_, e)| e)
            .unwrap()[0];
        // A pipeline the cache holds needs no compile; one it does not hold reports
        // VK_PIPELINE_COMPILE_REQUIRED and no pipeline, and with EARLY_RETURN_ON_FAILURE the
        // ones after it are not created either.
        let no_compile = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED)];
        let p3 = dev
            .create_compute_pipelines(restored, &no_compile, None)
            .map_err(|(_, e)| e)
            .unwrap()[0];
        let empty = dev
            .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
            .unwrap();
        let early = no_compile[0].flags(
            vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED
                | vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE,
        );
        let mut out = [<vk::Pipeline as vk::Handle>::from_raw(1); 2];
        let r = (dev.fp_v1_0().create_compute_pipelines)(
            dev.handle(),
            empty,
            2,
            [early, info[0]].as_ptr(),
            std::ptr::null(),
            out.as_mut_ptr(),
        );
        assert_eq!(r, vk::Result::PIPELINE_COMPILE_REQUIRED);
        assert_eq!(out, [vk::Pipeline::null(); 2]);
        dev.destroy_pipeline_cache(empty, None);
        dev.destroy_pipeline(p3, None);
        // Too small a buffer: the header only, and VK_INCOMPLETE.
        let mut size = 40usize;
        let mut small = vec![0u8; size];
        let r = (dev.fp_v1_0().get_pipeline_cache_data)(
            dev.handle(),
            cache,
            &mut size,
            small.as_mut_ptr().cast(),
        );
        assert_eq!(r, vk::Result::INCOMPLETE);
        assert_eq!(size, 32);
        assert_eq!(&small[..32], &data[..32]);
        for p in [p1, p2] {
            dev.destroy_pipeline(p, None);
        }
        dev.destroy_pipeline_cache(cache, None);
        dev.destroy_pipeline_cache(restored, None);
        dev.destroy_shader_module(module, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn pipeline_executable_statistics() {
    let ctx = Ctx::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
    let mut feature = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut feature);
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    // SAFETY: valid handles and create infos throughout.
    unsafe {
        let dev = ctx.instance.create_device(ctx.pdev, &info, None).unwrap();
        let pe = ash::khr::pipeline_executable_properties::Device::new(&ctx.instance, &dev);
        let set_layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let push = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: 4,
        }];
        let set_layouts = [set_layout];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&set_layouts)
                    .push_constant_ranges(&push),
                None,
            )
            .unwrap();
        let module = dev
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&DISPATCH_SHADER),
                None,
            )
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let create = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)];
        let pipeline = dev
            .create_compute_pipelines(vk::PipelineCache::null(), &create, None)
            .map_err(|(_, e)| e)
            .unwrap()[0];
        let executables = pe
            .get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipeline))
            .unwrap();
        assert_eq!(executables.len(), 1);
        assert_eq!(executables[0].stages, vk::ShaderStageFlags::COMPUTE);
        let stats = pe
            .get_pipeline_executable_statistics(
                &vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(0),
            )
            .unwrap();
        let value = |name: &str| {
            let s = stats
                .iter()
                .find(|s| s.name_as_c_str().unwrap().to_str().unwrap() == name)
                .unwrap_or_else(|| panic!("no {name}"));
            assert_eq!(s.format, vk::PipelineExecutableStatisticFormatKHR::UINT64);
            s.value.u64
        };
        assert!(value("Instructions") > 0);
        assert!(value("Code size") > 0);
        assert!(value("GPRs") > 0);
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_shader_module(module, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn long_streams_continue_through_links() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let mut buf = HostBuffer::new(&ctx, &dev, 4096);
    buf.write(0, &[0; 4096]);
    let pool = command_pool(&dev);
    let cb = primaries(&dev, pool, 1)[0];
    // Enough launches in one hardware command to fill several control stream chunks.
    const WORDS: u32 = 1000;
    // SAFETY: valid handles; everything outlives the submission.
    unsafe {
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        for i in 0..WORDS {
            dev.cmd_fill_buffer(cb, buf.buffer, 4 * u64::from(i), 4, i * 3 + 1);
        }
        dev.end_command_buffer(cb).unwrap();
        run(&dev, queue, cb);
        dev.destroy_command_pool(pool, None);
    }
    let b = buf.bytes();
    for i in 0..WORDS {
        assert_eq!(word_at(b, i as usize), i * 3 + 1, "word {i}");
    }
    assert!(b[4 * WORDS as usize..].iter().all(|&x| x == 0));
    buf.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
