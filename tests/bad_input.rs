//! Wrong or impossible requests get the error code the spec names, and the driver stays usable.
//! No validation layer here: these calls are wrong on purpose.

mod common;

use ash::vk;
use common::Ctx;

#[test]
fn unknown_instance_extension_is_not_present() {
    common::use_agx4_only(&[]);
    // SAFETY: loading the system's Vulkan loader.
    let entry = unsafe { ash::Entry::load() }.unwrap();
    let exts = [c"VK_AGX4_no_such_extension".as_ptr()];
    let info = vk::InstanceCreateInfo::default().enabled_extension_names(&exts);
    // SAFETY: valid create info.
    let result = unsafe { entry.create_instance(&info, None) };
    assert_eq!(result.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
}

fn create_device(
    ctx: &Ctx,
    exts: &[*const std::ffi::c_char],
    features: Option<&vk::PhysicalDeviceFeatures>,
) -> Result<ash::Device, vk::Result> {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(exts);
    if let Some(f) = features {
        info = info.enabled_features(f);
    }
    // SAFETY: valid physical device and create info.
    unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
}

#[test]
fn unknown_device_extension_is_not_present() {
    let ctx = Ctx::without_validation();
    let r = create_device(&ctx, &[c"VK_NV_ray_tracing".as_ptr()], None);
    assert_eq!(r.err(), Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
}

#[test]
fn unsupported_feature_is_not_present() {
    let ctx = Ctx::without_validation();
    let features = vk::PhysicalDeviceFeatures {
        tessellation_shader: vk::TRUE,
        ..Default::default()
    };
    assert_eq!(
        create_device(&ctx, &[], Some(&features)).err(),
        Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
    );
    // The supported one is fine.
    let features = vk::PhysicalDeviceFeatures {
        robust_buffer_access: vk::TRUE,
        ..Default::default()
    };
    let dev = create_device(&ctx, &[], Some(&features)).unwrap();
    // SAFETY: valid device with no children.
    unsafe { dev.destroy_device(None) };
}

#[test]
fn allocation_larger_than_the_heap_is_out_of_device_memory() {
    let ctx = Ctx::without_validation();
    let dev = create_device(&ctx, &[], None).unwrap();
    // SAFETY: valid physical device and device; memory freed before the device.
    unsafe {
        let props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let heap = props.memory_heaps[0].size;
        let too_big = vk::MemoryAllocateInfo::default()
            .allocation_size(heap + 1)
            .memory_type_index(0);
        assert_eq!(
            dev.allocate_memory(&too_big, None).err(),
            Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
        );
        let huge = vk::MemoryAllocateInfo::default()
            .allocation_size(u64::MAX)
            .memory_type_index(0);
        assert_eq!(
            dev.allocate_memory(&huge, None).err(),
            Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
        );
        // Nothing was lost: a normal allocation still works.
        let ok = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(4096)
                    .memory_type_index(0),
                None,
            )
            .unwrap();
        dev.free_memory(ok, None);
        dev.destroy_device(None);
    }
}

/// A buffer no memory object could hold (CTS api.buffer.basic.size_max_uint64): creating it
/// is out of device memory, and a buffer as large as the heap is still fine, its memory
/// requirements covering its size.
#[test]
fn buffer_larger_than_the_heap_is_out_of_device_memory() {
    let ctx = Ctx::without_validation();
    let dev = create_device(&ctx, &[], None).unwrap();
    // SAFETY: valid physical device and device; the buffer is destroyed before the device.
    unsafe {
        let heap = ctx
            .instance
            .get_physical_device_memory_properties(ctx.pdev)
            .memory_heaps[0]
            .size;
        for size in [u64::MAX, heap + 1] {
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER);
            assert_eq!(
                dev.create_buffer(&info, None).err(),
                Some(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
            );
        }
        let info = vk::BufferCreateInfo::default()
            .size(heap)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER);
        let b = dev.create_buffer(&info, None).unwrap();
        assert!(dev.get_buffer_memory_requirements(b).size >= heap);
        dev.destroy_buffer(b, None);
        dev.destroy_device(None);
    }
}

#[test]
fn a_chained_feature_agx4_lacks_fails_device_creation() {
    let ctx = Ctx::without_validation();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default().shader_buffer_int64_atomics(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .push_next(&mut v12);
    // SAFETY: valid physical device and create info.
    let r = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) };
    assert_eq!(r.err(), Some(vk::Result::ERROR_FEATURE_NOT_PRESENT));
    // And a supported one is accepted.
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default().host_query_reset(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .push_next(&mut v12);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("device");
    // SAFETY: nothing was made from it.
    unsafe { dev.destroy_device(None) };
}

#[test]
fn unimplemented_entry_points_return_an_error_not_a_crash() {
    let ctx = Ctx::without_validation();
    let dev = create_device(&ctx, &[], None).unwrap();
    // SAFETY: valid device and queue; the call fails cleanly. (agx4 offers no sparse
    // binding, so vkQueueBindSparse is one of the generated stubs.)
    unsafe {
        let queue = dev.get_device_queue(0, 0);
        assert_eq!(
            dev.queue_bind_sparse(queue, &[], vk::Fence::null()).err(),
            Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
        );
        dev.destroy_device(None);
    }
}

/// SPIR-V of a GLSL compute shader, through Debian's glslangValidator.
fn glsl(src: &str) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!("agx4-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("s.comp"), dir.join("s.spv"));
    std::fs::write(&input, src).unwrap();
    let st = std::process::Command::new("/usr/bin/glslangValidator")
        .args(["-V", "--target-env", "vulkan1.1", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("glslangValidator (scripts/deps.sh installs it)");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stdout)
    );
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn a_shader_beyond_a_compiler_limit_is_out_of_host_memory() {
    // Valid SPIR-V nested deeper than the compiler's tables allow: the listed code for an
    // implementation out of room, never VK_ERROR_UNKNOWN (which means a bug).
    let depth = 80;
    let mut src = String::from(
        "#version 450\nlayout(local_size_x = 1) in;\n\
         layout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() {\n",
    );
    for k in 0..depth {
        src += &format!("if (v[{k}] != 0u) {{ v[{k}] = 1u;\n");
    }
    src += &"}".repeat(depth);
    src += "\n}\n";
    let code = glsl(&src);
    let ctx = Ctx::without_validation();
    let dev = create_device(&ctx, &[], None).unwrap();
    // SAFETY: valid device and create infos; everything made here is destroyed here.
    unsafe {
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let set_layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        let set_layouts = [set_layout];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
            .unwrap();
        let module = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)];
        let r = dev.create_compute_pipelines(vk::PipelineCache::null(), &info, None);
        let (pipes, e) = r.expect_err("80 nested ifs exceed the compiler's nesting limit");
        assert_eq!(e, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        assert_eq!(pipes, [vk::Pipeline::null()]);
        dev.destroy_shader_module(module, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_device(None);
    }
}
