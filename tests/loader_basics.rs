//! The driver through the real loader, with validation: instance, physical device, device,
//! memory, buffers, fences, binary and timeline semaphores.

mod common;

use ash::vk;
use common::{assert_no_validation_messages, Ctx};
use std::time::Duration;

#[test]
fn instance_and_physical_device() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device from this instance.
    let (props, qf, mem, feats) = unsafe {
        (
            ctx.instance.get_physical_device_properties(ctx.pdev),
            ctx.instance
                .get_physical_device_queue_family_properties(ctx.pdev),
            ctx.instance.get_physical_device_memory_properties(ctx.pdev),
            ctx.instance.get_physical_device_features(ctx.pdev),
        )
    };
    let name = props.device_name_as_c_str().unwrap().to_str().unwrap();
    assert!(
        name.contains("Apple M1") && name.contains("simulated"),
        "{name}"
    );
    assert_eq!(vk::api_version_major(props.api_version), 1);
    // The simulated device has every feature Vulkan 1.3 requires (features::api_minor_met).
    assert_eq!(vk::api_version_minor(props.api_version), 3);
    assert_eq!(props.vendor_id, 0x106b);
    assert_eq!(props.device_type, vk::PhysicalDeviceType::INTEGRATED_GPU);
    assert_eq!(qf.len(), 1);
    assert!(qf[0]
        .queue_flags
        .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER));
    assert_eq!(mem.memory_heap_count, 1);
    assert!(mem.memory_heaps[0]
        .flags
        .contains(vk::MemoryHeapFlags::DEVICE_LOCAL));
    let types = &mem.memory_types[..mem.memory_type_count as usize];
    assert!(types.iter().any(|t| t
        .property_flags
        .contains(vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT)));
    assert_eq!(feats.robust_buffer_access, vk::TRUE);
    // Emulated by two draws (docs/geometry.md).
    assert_eq!(feats.geometry_shader, vk::TRUE);

    // The timeline feature through the KHR query.
    let gpdp2 = ash::khr::get_physical_device_properties2::Instance::new(&ctx.entry, &ctx.instance);
    let mut timeline = vk::PhysicalDeviceTimelineSemaphoreFeatures::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut timeline);
    // SAFETY: valid physical device and output chain.
    unsafe { gpdp2.get_physical_device_features2(ctx.pdev, &mut f2) };
    assert_eq!(timeline.timeline_semaphore, vk::TRUE);
    // Every member of a chained structure is written, whatever the caller left in it.
    let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default()
        .multiview_geometry_shader(true)
        .multiview_tessellation_shader(true);
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut multiview);
    // SAFETY: valid physical device and output chain.
    unsafe { gpdp2.get_physical_device_features2(ctx.pdev, &mut f2) };
    assert_eq!(
        (
            multiview.multiview,
            multiview.multiview_geometry_shader,
            multiview.multiview_tessellation_shader
        ),
        (vk::TRUE, vk::FALSE, vk::FALSE)
    );
    drop(ctx);
    assert_no_validation_messages();
}

#[test]
fn extensions_are_exactly_the_advertised_ones() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let exts = unsafe { ctx.instance.enumerate_device_extension_properties(ctx.pdev) }.unwrap();
    let names: Vec<String> = exts
        .iter()
        .map(|e| {
            e.extension_name_as_c_str()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        [
            "VK_KHR_timeline_semaphore",
            "VK_KHR_synchronization2",
            "VK_KHR_pipeline_executable_properties",
            "VK_KHR_device_group",
            "VK_KHR_maintenance1",
            "VK_KHR_multiview",
            "VK_KHR_shader_draw_parameters",
            "VK_KHR_maintenance2",
            "VK_KHR_create_renderpass2",
            "VK_KHR_depth_stencil_resolve",
            "VK_KHR_dynamic_rendering",
            "VK_KHR_image_format_list",
            "VK_KHR_imageless_framebuffer",
            "VK_EXT_pipeline_creation_cache_control",
            "VK_EXT_pipeline_creation_feedback",
            "VK_KHR_bind_memory2",
            "VK_KHR_get_memory_requirements2",
            "VK_KHR_dedicated_allocation",
            "VK_KHR_maintenance3",
            "VK_KHR_maintenance4",
            "VK_EXT_image_robustness",
            "VK_KHR_copy_commands2",
            "VK_KHR_separate_depth_stencil_layouts",
            "VK_EXT_separate_stencil_usage",
            "VK_EXT_private_data",
            "VK_EXT_tooling_info",
            "VK_KHR_format_feature_flags2",
            "VK_KHR_driver_properties",
            "VK_KHR_buffer_device_address",
            "VK_EXT_scalar_block_layout",
            "VK_KHR_uniform_buffer_standard_layout",
            "VK_EXT_subgroup_size_control",
            "VK_KHR_16bit_storage",
            "VK_KHR_8bit_storage",
            "VK_KHR_shader_float16_int8",
            "VK_KHR_shader_subgroup_extended_types",
            "VK_KHR_shader_float_controls",
            "VK_KHR_spirv_1_4",
            "VK_KHR_shader_non_semantic_info",
            "VK_KHR_shader_terminate_invocation",
            "VK_KHR_zero_initialize_workgroup_memory",
            "VK_KHR_shader_integer_dot_product",
            "VK_KHR_vulkan_memory_model",
            "VK_EXT_attachment_feedback_loop_layout",
            "VK_EXT_host_query_reset",
            "VK_EXT_shader_demote_to_helper_invocation",
            "VK_KHR_storage_buffer_storage_class",
            "VK_KHR_descriptor_update_template",
            "VK_KHR_push_descriptor",
            "VK_EXT_inline_uniform_block",
            "VK_EXT_descriptor_indexing",
            "VK_KHR_sampler_mirror_clamp_to_edge",
            "VK_EXT_custom_border_color",
            "VK_EXT_non_seamless_cube_map",
            "VK_EXT_border_color_swizzle",
            "VK_EXT_image_2d_view_of_3d",
            "VK_KHR_swapchain",
            "VK_KHR_swapchain_mutable_format",
            "VK_KHR_incremental_present",
            "VK_EXT_extended_dynamic_state",
            "VK_EXT_extended_dynamic_state2",
            "VK_EXT_extended_dynamic_state3",
            "VK_EXT_color_write_enable",
            "VK_EXT_primitive_topology_list_restart",
            "VK_EXT_index_type_uint8",
            "VK_EXT_4444_formats",
            "VK_EXT_depth_clip_enable",
            "VK_EXT_vertex_attribute_divisor",
            "VK_EXT_vertex_input_dynamic_state",
            "VK_EXT_line_rasterization",
            "VK_EXT_provoking_vertex",
            "VK_EXT_conditional_rendering",
            "VK_KHR_draw_indirect_count",
            "VK_EXT_transform_feedback",
            "VK_EXT_primitives_generated_query",
            "VK_EXT_multi_draw",
            "VK_EXT_robustness2",
            "VK_KHR_external_memory",
            "VK_KHR_external_memory_fd",
            "VK_EXT_external_memory_dma_buf",
            "VK_KHR_external_semaphore",
            "VK_KHR_external_semaphore_fd",
            "VK_KHR_external_fence",
            "VK_KHR_external_fence_fd",
            "VK_EXT_queue_family_foreign",
        ]
    );
    drop(ctx);
    assert_no_validation_messages();
}

fn host_visible_type(ctx: &Ctx) -> u32 {
    // SAFETY: valid physical device.
    let mem = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    (0..mem.memory_type_count)
        .find(|&i| {
            mem.memory_types[i as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::HOST_VISIBLE)
        })
        .unwrap()
}

#[test]
fn memory_map_write_read_and_buffers() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let ty = host_visible_type(&ctx);
    // SAFETY: valid device; every object is destroyed before the device.
    unsafe {
        let buffer = dev
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(100_000)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                None,
            )
            .unwrap();
        let req = dev.get_buffer_memory_requirements(buffer);
        assert!(req.size >= 100_000 && req.alignment.is_power_of_two());
        assert_ne!(req.memory_type_bits & (1 << ty), 0);
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
            .unwrap();
        dev.bind_buffer_memory(buffer, memory, 0).unwrap();

        let ptr = dev
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap() as *mut u32;
        let words = std::slice::from_raw_parts_mut(ptr, 25_000);
        for (i, w) in words.iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(2_654_435_761);
        }
        dev.unmap_memory(memory);
        // A second allocation must not alias the first.
        let other = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(65536)
                    .memory_type_index(ty),
                None,
            )
            .unwrap();
        let optr = dev
            .map_memory(other, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap() as *mut u8;
        std::ptr::write_bytes(optr, 0xab, 65536);
        dev.unmap_memory(other);
        dev.free_memory(other, None);

        let ptr = dev
            .map_memory(memory, 4, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap() as *const u32;
        let words = std::slice::from_raw_parts(ptr, 24_999);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(
                *w,
                ((i + 1) as u32).wrapping_mul(2_654_435_761),
                "word {}",
                i + 1
            );
        }
        dev.unmap_memory(memory);
        dev.destroy_buffer(buffer, None);
        dev.free_memory(memory, None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

#[test]
fn fences_and_empty_submissions() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    // SAFETY: valid device and queue; objects destroyed before the device.
    unsafe {
        let signaled = dev
            .create_fence(
                &vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED),
                None,
            )
            .unwrap();
        assert_eq!(dev.get_fence_status(signaled), Ok(true));
        dev.reset_fences(&[signaled]).unwrap();
        assert_eq!(dev.get_fence_status(signaled), Ok(false));
        assert_eq!(
            dev.wait_for_fences(&[signaled], true, 1_000_000),
            Err(vk::Result::TIMEOUT)
        );

        dev.queue_submit(queue, &[], signaled).unwrap();
        dev.wait_for_fences(&[signaled], true, u64::MAX).unwrap();
        assert_eq!(dev.get_fence_status(signaled), Ok(true));

        // Several submissions, each with its own fence; wait-any then wait-all.
        let fences: Vec<vk::Fence> = (0..4)
            .map(|_| {
                dev.create_fence(&vk::FenceCreateInfo::default(), None)
                    .unwrap()
            })
            .collect();
        for &f in &fences {
            dev.queue_submit(queue, &[vk::SubmitInfo::default()], f)
                .unwrap();
        }
        dev.wait_for_fences(&fences, false, u64::MAX).unwrap();
        dev.wait_for_fences(&fences, true, u64::MAX).unwrap();
        dev.queue_wait_idle(queue).unwrap();
        dev.device_wait_idle().unwrap();
        for f in fences.into_iter().chain([signaled]) {
            dev.destroy_fence(f, None);
        }
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

#[test]
fn binary_semaphores_order_submissions() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    // SAFETY: valid device and queue; objects destroyed before the device.
    unsafe {
        let sem = dev
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let signal = [sem];
        let wait_stage = [vk::PipelineStageFlags::ALL_COMMANDS];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().signal_semaphores(&signal)],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default()
                .wait_semaphores(&signal)
                .wait_dst_stage_mask(&wait_stage)],
            fence,
        )
        .unwrap();
        dev.wait_for_fences(&[fence], true, 5_000_000_000).unwrap();
        dev.destroy_fence(fence, None);
        dev.destroy_semaphore(sem, None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

fn timeline(dev: &ash::Device, initial: u64) -> vk::Semaphore {
    let mut ty = vk::SemaphoreTypeCreateInfo::default()
        .semaphore_type(vk::SemaphoreType::TIMELINE)
        .initial_value(initial);
    // SAFETY: valid device and create info.
    unsafe { dev.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None) }
        .unwrap()
}

#[test]
fn timeline_semaphores_host_signal_wait_and_query() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let tl = ash::khr::timeline_semaphore::Device::new(&ctx.instance, &dev);
    let sem = timeline(&dev, 5);
    // SAFETY: valid device and semaphore.
    unsafe {
        assert_eq!(tl.get_semaphore_counter_value(sem), Ok(5));
        tl.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(sem).value(7))
            .unwrap();
        assert_eq!(tl.get_semaphore_counter_value(sem), Ok(7));
        let sems = [sem];
        tl.wait_semaphores(
            &vk::SemaphoreWaitInfo::default()
                .semaphores(&sems)
                .values(&[6]),
            0,
        )
        .unwrap();
        let waited = tl.wait_semaphores(
            &vk::SemaphoreWaitInfo::default()
                .semaphores(&sems)
                .values(&[8]),
            1_000_000,
        );
        assert_eq!(waited, Err(vk::Result::TIMEOUT));

        // A host wait satisfied by a signal from another thread.
        let raw = vk::Handle::as_raw(sem);
        let signaller = {
            let tl = tl.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                let sem: vk::Semaphore = vk::Handle::from_raw(raw);
                tl.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(sem).value(9))
                    .unwrap();
            })
        };
        tl.wait_semaphores(
            &vk::SemaphoreWaitInfo::default()
                .semaphores(&sems)
                .values(&[9]),
            5_000_000_000,
        )
        .unwrap();
        signaller.join().unwrap();
        assert_eq!(tl.get_semaphore_counter_value(sem), Ok(9));
        dev.destroy_semaphore(sem, None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

#[test]
fn timeline_wait_before_signal_through_the_queue() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let tl = ash::khr::timeline_semaphore::Device::new(&ctx.instance, &dev);
    let gate = timeline(&dev, 0);
    let done = timeline(&dev, 0);
    // SAFETY: valid device, queue and objects; destroyed before the device.
    unsafe {
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let (waits, signals) = ([gate], [done]);
        let (wait_values, signal_values) = ([10u64], [3u64]);
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let mut values = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .signal_semaphores(&signals)
            .push_next(&mut values);
        // The wait is submitted before anything signals 10: Vulkan allows it.
        dev.queue_submit(queue, &[submit], fence).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            dev.get_fence_status(fence),
            Ok(false),
            "ran before its wait was satisfied"
        );
        assert_eq!(tl.get_semaphore_counter_value(done), Ok(0));

        tl.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(gate).value(10))
            .unwrap();
        dev.wait_for_fences(&[fence], true, 5_000_000_000).unwrap();
        let dones = [done];
        tl.wait_semaphores(
            &vk::SemaphoreWaitInfo::default()
                .semaphores(&dones)
                .values(&[3]),
            5_000_000_000,
        )
        .unwrap();
        assert_eq!(tl.get_semaphore_counter_value(done), Ok(3));
        dev.queue_wait_idle(queue).unwrap();
        dev.destroy_fence(fence, None);
        dev.destroy_semaphore(gate, None);
        dev.destroy_semaphore(done, None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}
