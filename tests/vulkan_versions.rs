//! The Vulkan 1.1-1.3 surface: the version agx4 reports, the 1.x feature and property
//! aggregates against their promoted structures, and the version-promoted commands that need
//! no new hardware work. (Device creation refusing a chained feature is in bad_input.rs.)

mod common;

use ash::vk;
use common::{assert_no_validation_messages, submit_and_wait, Ctx};

#[test]
fn instance_and_device_report_the_same_version_of_at_least_1_1() {
    let ctx = Ctx::new();
    // SAFETY: valid entry and physical device.
    let (instance, device) = unsafe {
        (
            ctx.entry.try_enumerate_instance_version().unwrap(),
            ctx.instance
                .get_physical_device_properties(ctx.pdev)
                .api_version,
        )
    };
    let instance = instance.expect("vkEnumerateInstanceVersion");
    assert!(
        vk::api_version_minor(device) >= 1,
        "device reports 1.{}",
        vk::api_version_minor(device)
    );
    // The loader reports its own instance version; it is never below the driver's.
    assert!(vk::api_version_minor(instance) >= vk::api_version_minor(device));
    assert_no_validation_messages();
}

#[test]
fn promoted_feature_structures_agree_with_the_aggregates() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_3);
    // SAFETY: valid physical device.
    let minor = vk::api_version_minor(unsafe {
        ctx.instance
            .get_physical_device_properties(ctx.pdev)
            .api_version
    });
    let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default();
    let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default();
    // Garbage in a structure must be overwritten, member by member.
    let mut draw_params = vk::PhysicalDeviceShaderDrawParametersFeatures {
        shader_draw_parameters: 0x5555_5555,
        ..Default::default()
    };
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut multiview)
        .push_next(&mut storage16)
        .push_next(&mut draw_params);
    // SAFETY: valid physical device and chain.
    unsafe {
        ctx.instance
            .get_physical_device_features2(ctx.pdev, &mut f2)
    };
    assert_eq!(multiview.multiview, vk::TRUE);
    assert!(draw_params.shader_draw_parameters <= vk::TRUE);
    if minor >= 2 {
        // The Vulkan 1.1 aggregate is a Vulkan 1.2 structure.
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut v11);
        // SAFETY: valid physical device and chain.
        unsafe {
            ctx.instance
                .get_physical_device_features2(ctx.pdev, &mut f2)
        };
        assert_eq!(multiview.multiview, v11.multiview);
        assert_eq!(
            multiview.multiview_geometry_shader,
            v11.multiview_geometry_shader
        );
        assert_eq!(
            storage16.storage_buffer16_bit_access,
            v11.storage_buffer16_bit_access
        );
        assert_eq!(
            draw_params.shader_draw_parameters,
            v11.shader_draw_parameters
        );
    }

    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut subgroup)
        .push_next(&mut id)
        .push_next(&mut driver);
    // SAFETY: valid physical device and chain.
    unsafe {
        ctx.instance
            .get_physical_device_properties2(ctx.pdev, &mut p2)
    };
    assert_eq!(subgroup.subgroup_size, 32, "a subgroup is one SIMD group");
    assert!(subgroup
        .supported_stages
        .contains(vk::ShaderStageFlags::COMPUTE));
    assert!(subgroup
        .supported_operations
        .contains(vk::SubgroupFeatureFlags::BASIC));
    assert_ne!(id.device_uuid, [0; vk::UUID_SIZE]);
    assert_ne!(id.device_uuid, id.driver_uuid);
    assert_eq!(driver.driver_name_as_c_str().unwrap(), c"agx4");
    let c = driver.conformance_version;
    // Not conformant: 0.0.0.0.
    assert_eq!((c.major, c.minor, c.subminor, c.patch), (0, 0, 0, 0));
    if minor >= 2 {
        let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p11);
        // SAFETY: valid physical device and chain.
        unsafe {
            ctx.instance
                .get_physical_device_properties2(ctx.pdev, &mut p2)
        };
        assert_eq!(subgroup.subgroup_size, p11.subgroup_size);
        assert_eq!(
            subgroup.supported_operations,
            p11.subgroup_supported_operations
        );
        assert_eq!(id.device_uuid, p11.device_uuid);
    }
    assert_no_validation_messages();
}

#[test]
fn private_data_queue2_and_copy_buffer2() {
    // An application of Vulkan 1.1, so that the loader hands out vkGetDeviceQueue2.
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_1);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::private_data::NAME.as_ptr(),
        ash::khr::copy_commands2::NAME.as_ptr(),
    ];
    let mut private = vk::PhysicalDevicePrivateDataFeatures::default().private_data(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut private);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("device");
    let private_data = ash::ext::private_data::Device::new(&ctx.instance, &dev);
    let copy2 = ash::khr::copy_commands2::Device::new(&ctx.instance, &dev);
    // SAFETY: valid device and infos; everything made here is destroyed before the device.
    unsafe {
        let queue = dev.get_device_queue(0, 0);
        let queue2 = dev.get_device_queue2(&vk::DeviceQueueInfo2::default());
        assert_eq!(queue, queue2);

        let slot = private_data
            .create_private_data_slot(&vk::PrivateDataSlotCreateInfo::default(), None)
            .unwrap();
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        private_data
            .set_private_data(fence, slot, 0xdead_beef_0bad_cafe)
            .unwrap();
        assert_eq!(
            private_data.get_private_data(fence, slot),
            0xdead_beef_0bad_cafe
        );
        let other = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        assert_eq!(private_data.get_private_data(other, slot), 0, "never set");

        // Two host-visible buffers; copyBuffer2 moves 64 bytes from offset 16 to offset 32.
        let mem_props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let make = |fill: u8| {
            let buffer = dev
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(256).usage(
                        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                    ),
                    None,
                )
                .unwrap();
            let mut req2 = vk::MemoryRequirements2::default();
            dev.get_buffer_memory_requirements2(
                &vk::BufferMemoryRequirementsInfo2::default().buffer(buffer),
                &mut req2,
            );
            let req = req2.memory_requirements;
            let req1 = dev.get_buffer_memory_requirements(buffer);
            assert_eq!((req.size, req.alignment), (req1.size, req1.alignment));
            let ty = (0..mem_props.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(host)
                })
                .unwrap();
            let mem = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
                .unwrap();
            dev.bind_buffer_memory(buffer, mem, 0).unwrap();
            let ptr = dev
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            let bytes = std::slice::from_raw_parts_mut(ptr, 256);
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = fill.wrapping_add(i as u8);
            }
            (buffer, mem, bytes)
        };
        let (src, src_mem, src_bytes) = make(0);
        let (dst, dst_mem, dst_bytes) = make(0x80);
        let before: Vec<u8> = dst_bytes.to_vec();
        let region = [vk::BufferCopy2::default()
            .src_offset(16)
            .dst_offset(32)
            .size(64)];
        submit_and_wait(&dev, queue, |cb| {
            copy2.cmd_copy_buffer2(
                cb,
                &vk::CopyBufferInfo2::default()
                    .src_buffer(src)
                    .dst_buffer(dst)
                    .regions(&region),
            )
        });
        for i in 0..256 {
            let want = if (32..96).contains(&i) {
                src_bytes[i - 16]
            } else {
                before[i]
            };
            assert_eq!(dst_bytes[i], want, "byte {i}");
        }

        for (b, m) in [(src, src_mem), (dst, dst_mem)] {
            dev.destroy_buffer(b, None);
            dev.free_memory(m, None);
        }
        dev.destroy_fence(fence, None);
        dev.destroy_fence(other, None);
        private_data.destroy_private_data_slot(slot, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
