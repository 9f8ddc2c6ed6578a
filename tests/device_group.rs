//! VK_KHR_device_group_creation and VK_KHR_device_group on agx4's single device: one group of
//! one device, every peer memory feature, device mask 1, and vkCmdDispatchBaseKHR recording
//! (its results are checked by the compute corpus case builtins_dispatch_base).
//!
//! It runs without the validation layer: Debian's layer (1.3.239) reports the KHR-suffixed
//! vkEnumeratePhysicalDeviceGroupsKHR as a call of the Vulkan 1.1 core command on a 1.0
//! instance even with VK_KHR_device_group_creation enabled, a false positive of that layer
//! version (KhronosGroup/Vulkan-ValidationLayers issue 13164 is the same bug for another
//! promoted command).

mod common;

use ash::vk;
use common::Ctx;

#[test]
fn one_group_of_one_device() {
    let ctx = Ctx::with(false, &[ash::khr::device_group_creation::NAME]);
    let groups_fn = ash::khr::device_group_creation::Instance::new(&ctx.entry, &ctx.instance);
    // SAFETY: valid instance; the extension is enabled.
    let n = unsafe { groups_fn.enumerate_physical_device_groups_len() }.expect("count");
    assert_eq!(n, 1);
    let mut groups = [vk::PhysicalDeviceGroupProperties::default()];
    // SAFETY: `groups` holds `n` structures with their sType set.
    unsafe { groups_fn.enumerate_physical_device_groups(&mut groups) }.expect("groups");
    assert_eq!(groups[0].physical_device_count, 1);
    assert_eq!(groups[0].physical_devices[0], ctx.pdev);
    assert_eq!(groups[0].subset_allocation, vk::FALSE);

    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::khr::device_group::NAME.as_ptr()];
    let devices = [ctx.pdev];
    let mut group_info = vk::DeviceGroupDeviceCreateInfo::default().physical_devices(&devices);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut group_info);
    // SAFETY: valid physical device and create info.
    let device =
        unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    let dg = ash::khr::device_group::Device::new(&ctx.instance, &device);
    // SAFETY: heap 0, device indices 0 and 0 are valid for a group of one.
    let peer = unsafe { dg.get_device_group_peer_memory_features(0, 0, 0) };
    let all = vk::PeerMemoryFeatureFlags::COPY_SRC
        | vk::PeerMemoryFeatureFlags::COPY_DST
        | vk::PeerMemoryFeatureFlags::GENERIC_SRC
        | vk::PeerMemoryFeatureFlags::GENERIC_DST;
    assert_eq!(peer, all);

    // SAFETY: standard command pool and buffer lifecycle on a valid device.
    unsafe {
        let pool = device
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                None,
            )
            .expect("pool");
        let cb = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .expect("command buffer")[0];
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .expect("begin");
        dg.cmd_set_device_mask(cb, 1);
        device
            .end_command_buffer(cb)
            .expect("a device mask of 1 records cleanly");
        device.destroy_command_pool(pool, None);
        device.destroy_device(None);
    }
}
