//! VK_EXT_robustness2 through the loader, under the validation layer: a compute shader reads
//! and writes a storage buffer bound with a 16-byte range inside a 64-byte buffer, and a
//! storage buffer binding whose descriptor is null (nullDescriptor).
//! - robustBufferAccess2: reads past the range give zero (not some other value in the
//!   buffer), and writes past it change nothing, not even the buffer's bytes beyond the range;
//! - nullDescriptor: reads of the null binding give zero and its writes go nowhere.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

/// What the host puts in every word of the source buffer.
const FILLED: u32 = 7;

/// Which robustness features a test device enables.
#[derive(Clone, Copy, Default)]
struct Robustness {
    robust_buffer_access: bool,
    robust_buffer_access2: bool,
    null_descriptor: bool,
}

const ALL: Robustness = Robustness {
    robust_buffer_access: true,
    robust_buffer_access2: true,
    null_descriptor: true,
};

/// A device with `r` enabled and VK_KHR_pipeline_executable_properties (for the statistics).
fn device(ctx: &Ctx, r: Robustness) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::robustness2::NAME.as_ptr(),
        ash::khr::pipeline_executable_properties::NAME.as_ptr(),
    ];
    let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default()
        .robust_buffer_access2(r.robust_buffer_access2)
        .null_descriptor(r.null_descriptor);
    let mut executables = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(true);
    let features =
        vk::PhysicalDeviceFeatures::default().robust_buffer_access(r.robust_buffer_access);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .enabled_features(&features)
        .push_next(&mut robustness2)
        .push_next(&mut executables);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with robustness2");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

#[test]
fn out_of_range_and_null_buffer_accesses_read_zero_and_write_nothing() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx, ALL);
    // SAFETY: valid device and create infos; every object is destroyed at the end, after the
    // queue is idle.
    unsafe {
        let mut src = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::STORAGE_BUFFER);
        src.write(&[FILLED; 16].map(u32::to_le_bytes).concat());
        let dst = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::STORAGE_BUFFER);
        let bindings = [0, 1, 2].map(|b| binding(b, vk::DescriptorType::STORAGE_BUFFER));
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let (pool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[(vk::DescriptorType::STORAGE_BUFFER, 3)],
        );
        let src_info = [vk::DescriptorBufferInfo::default()
            .buffer(src.buffer)
            .range(16)];
        let dst_info = [vk::DescriptorBufferInfo::default()
            .buffer(dst.buffer)
            .range(vk::WHOLE_SIZE)];
        let null_info = [vk::DescriptorBufferInfo::default()
            .buffer(vk::Buffer::null())
            .range(vk::WHOLE_SIZE)];
        let write = |b: u32, info| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(info)
        };
        dev.update_descriptor_sets(
            &[
                write(0, &src_info),
                write(1, &dst_info),
                write(2, &null_info),
            ],
            &[],
        );
        let p = compute::Pipeline::new(&dev, set_layout, 0, &SHADER);
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            dev.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[set],
                &[],
            );
            dev.cmd_dispatch(cb, 1, 1, 1);
        });
        let got = compute::words(dst.bytes());
        // Words 0..4 are in range, 4..8 past it; 8..16 are null reads plus 100.
        let want: Vec<u32> = [[FILLED; 4], [0; 4]]
            .concat()
            .into_iter()
            .chain([100; 8])
            .collect();
        assert_eq!(got, want);
        // The writes past the range (words 4..12) were dropped.
        assert_eq!(compute::words(src.bytes()), vec![FILLED; 16]);
        p.destroy(&dev);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        src.destroy(&dev);
        dst.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Instructions in `SHADER`'s compiled code on a device with `r` enabled.
fn instructions(ctx: &Ctx, r: Robustness) -> u64 {
    let (dev, _) = device(ctx, r);
    let pe = ash::khr::pipeline_executable_properties::Device::new(&ctx.instance, &dev);
    // SAFETY: valid device and create infos; every object is destroyed before returning.
    unsafe {
        let bindings = [0, 1, 2].map(|b| binding(b, vk::DescriptorType::STORAGE_BUFFER));
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let set_layouts = [set_layout];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
            .expect("vkCreatePipelineLayout");
        let module = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&SHADER), None)
            .expect("vkCreateShaderModule");
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
            .expect("vkCreateComputePipelines")[0];
        let stats = pe
            .get_pipeline_executable_statistics(
                &vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(0),
            )
            .expect("vkGetPipelineExecutableStatisticsKHR");
        let n = stats
            .iter()
            .find(|s| s.name_as_c_str() == Ok(c"Instructions"))
            .map(|s| s.value.u64)
            .expect("an Instructions statistic");
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_shader_module(module, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_device(None);
        n
    }
}

/// Bounds checks cost instructions, so shaders carry them only on devices that enable a
/// feature defining out-of-range or null-descriptor accesses: robustBufferAccess (which
/// robustBufferAccess2 requires) or nullDescriptor.
#[test]
fn buffer_accesses_are_checked_only_when_a_robustness_feature_is_enabled() {
    let ctx = Ctx::new();
    let unchecked = instructions(&ctx, Robustness::default());
    let one_each = [
        Robustness {
            robust_buffer_access: true,
            ..Default::default()
        },
        Robustness {
            null_descriptor: true,
            ..Default::default()
        },
    ];
    for r in one_each {
        let checked = instructions(&ctx, r);
        // Six accesses, each with a compare, a branch and its end at least.
        assert!(
            checked >= unchecked + 6 * 3,
            "checked {checked} instructions, unchecked {unchecked}"
        );
    }
    assert_no_validation_messages();
}

/// The compute shader (GLSL 450, one workgroup of 8, i = gl_LocalInvocationID.x):
/// `dst.v[i] = src.v[i]; nul.v[i] = 5; dst.v[8 + i] = nul.v[i] + 100; src.v[4 + i] = 9;`
/// with src, dst and nul the storage buffers of bindings 0, 1 and 2.
#[rustfmt::skip]
const SHADER: [u32; 382] = [
    0x07230203, 0x00010000, 0x0008000b, 0x00000037, 0x00000000, 0x00020011,
    0x00000001, 0x0006000b, 0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e,
    0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0006000f, 0x00000005,
    0x00000004, 0x6e69616d, 0x00000000, 0x0000000b, 0x00060010, 0x00000004,
    0x00000011, 0x00000008, 0x00000001, 0x00000001, 0x00030003, 0x00000002,
    0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005,
    0x00000008, 0x00000069, 0x00080005, 0x0000000b, 0x4c5f6c67, 0x6c61636f,
    0x6f766e49, 0x69746163, 0x44496e6f, 0x00000000, 0x00030005, 0x00000011,
    0x00747344, 0x00040006, 0x00000011, 0x00000000, 0x00000076, 0x00030005,
    0x00000013, 0x00747364, 0x00030005, 0x00000018, 0x00637253, 0x00040006,
    0x00000018, 0x00000000, 0x00000076, 0x00030005, 0x0000001a, 0x00637273,
    0x00040005, 0x00000021, 0x6c6c754e, 0x00000000, 0x00040006, 0x00000021,
    0x00000000, 0x00000076, 0x00030005, 0x00000023, 0x006c756e, 0x00040047,
    0x0000000b, 0x0000000b, 0x0000001b, 0x00040047, 0x00000010, 0x00000006,
    0x00000004, 0x00050048, 0x00000011, 0x00000000, 0x00000023, 0x00000000,
    0x00030047, 0x00000011, 0x00000003, 0x00040047, 0x00000013, 0x00000022,
    0x00000000, 0x00040047, 0x00000013, 0x00000021, 0x00000001, 0x00040047,
    0x00000017, 0x00000006, 0x00000004, 0x00050048, 0x00000018, 0x00000000,
    0x00000023, 0x00000000, 0x00030047, 0x00000018, 0x00000003, 0x00040047,
    0x0000001a, 0x00000022, 0x00000000, 0x00040047, 0x0000001a, 0x00000021,
    0x00000000, 0x00040047, 0x00000020, 0x00000006, 0x00000004, 0x00050048,
    0x00000021, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000021,
    0x00000003, 0x00040047, 0x00000023, 0x00000022, 0x00000000, 0x00040047,
    0x00000023, 0x00000021, 0x00000002, 0x00040047, 0x00000036, 0x0000000b,
    0x00000019, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002,
    0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x00040020, 0x00000007,
    0x00000007, 0x00000006, 0x00040017, 0x00000009, 0x00000006, 0x00000003,
    0x00040020, 0x0000000a, 0x00000001, 0x00000009, 0x0004003b, 0x0000000a,
    0x0000000b, 0x00000001, 0x0004002b, 0x00000006, 0x0000000c, 0x00000000,
    0x00040020, 0x0000000d, 0x00000001, 0x00000006, 0x0003001d, 0x00000010,
    0x00000006, 0x0003001e, 0x00000011, 0x00000010, 0x00040020, 0x00000012,
    0x00000002, 0x00000011, 0x0004003b, 0x00000012, 0x00000013, 0x00000002,
    0x00040015, 0x00000014, 0x00000020, 0x00000001, 0x0004002b, 0x00000014,
    0x00000015, 0x00000000, 0x0003001d, 0x00000017, 0x00000006, 0x0003001e,
    0x00000018, 0x00000017, 0x00040020, 0x00000019, 0x00000002, 0x00000018,
    0x0004003b, 0x00000019, 0x0000001a, 0x00000002, 0x00040020, 0x0000001c,
    0x00000002, 0x00000006, 0x0003001d, 0x00000020, 0x00000006, 0x0003001e,
    0x00000021, 0x00000020, 0x00040020, 0x00000022, 0x00000002, 0x00000021,
    0x0004003b, 0x00000022, 0x00000023, 0x00000002, 0x0004002b, 0x00000006,
    0x00000025, 0x00000005, 0x0004002b, 0x00000006, 0x00000027, 0x00000008,
    0x0004002b, 0x00000006, 0x0000002d, 0x00000064, 0x0004002b, 0x00000006,
    0x00000030, 0x00000004, 0x0004002b, 0x00000006, 0x00000033, 0x00000009,
    0x0004002b, 0x00000006, 0x00000035, 0x00000001, 0x0006002c, 0x00000009,
    0x00000036, 0x00000027, 0x00000035, 0x00000035, 0x00050036, 0x00000002,
    0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003b,
    0x00000007, 0x00000008, 0x00000007, 0x00050041, 0x0000000d, 0x0000000e,
    0x0000000b, 0x0000000c, 0x0004003d, 0x00000006, 0x0000000f, 0x0000000e,
    0x0003003e, 0x00000008, 0x0000000f, 0x0004003d, 0x00000006, 0x00000016,
    0x00000008, 0x0004003d, 0x00000006, 0x0000001b, 0x00000008, 0x00060041,
    0x0000001c, 0x0000001d, 0x0000001a, 0x00000015, 0x0000001b, 0x0004003d,
    0x00000006, 0x0000001e, 0x0000001d, 0x00060041, 0x0000001c, 0x0000001f,
    0x00000013, 0x00000015, 0x00000016, 0x0003003e, 0x0000001f, 0x0000001e,
    0x0004003d, 0x00000006, 0x00000024, 0x00000008, 0x00060041, 0x0000001c,
    0x00000026, 0x00000023, 0x00000015, 0x00000024, 0x0003003e, 0x00000026,
    0x00000025, 0x0004003d, 0x00000006, 0x00000028, 0x00000008, 0x00050080,
    0x00000006, 0x00000029, 0x00000027, 0x00000028, 0x0004003d, 0x00000006,
    0x0000002a, 0x00000008, 0x00060041, 0x0000001c, 0x0000002b, 0x00000023,
    0x00000015, 0x0000002a, 0x0004003d, 0x00000006, 0x0000002c, 0x0000002b,
    0x00050080, 0x00000006, 0x0000002e, 0x0000002c, 0x0000002d, 0x00060041,
    0x0000001c, 0x0000002f, 0x00000013, 0x00000015, 0x00000029, 0x0003003e,
    0x0000002f, 0x0000002e, 0x0004003d, 0x00000006, 0x00000031, 0x00000008,
    0x00050080, 0x00000006, 0x00000032, 0x00000030, 0x00000031, 0x00060041,
    0x0000001c, 0x00000034, 0x0000001a, 0x00000015, 0x00000032, 0x0003003e,
    0x00000034, 0x00000033, 0x000100fd, 0x00010038,
];
