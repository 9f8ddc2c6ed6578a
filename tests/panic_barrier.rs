//! A panic inside an entry point never unwinds into the application: it becomes an error code,
//! and the process and the device carry on. `AGX4_DEBUG=panic=vkCreateFence` makes the driver
//! panic inside vkCreateFence on purpose.

mod common;

use ash::vk;
use common::Ctx;

#[test]
fn panic_in_an_entry_point_becomes_an_error() {
    common::use_agx4_only(&[("AGX4_DEBUG", "panic=vkCreateFence")]);
    let ctx = Ctx::without_validation();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // SAFETY: valid physical device and create info; objects destroyed before the device.
    unsafe {
        let dev = ctx
            .instance
            .create_device(
                ctx.pdev,
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )
            .unwrap();
        let r = dev.create_fence(&vk::FenceCreateInfo::default(), None);
        assert_eq!(r.err(), Some(vk::Result::ERROR_UNKNOWN));
        // Everything else still works.
        let sem = dev
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        dev.destroy_semaphore(sem, None);
        dev.device_wait_idle().unwrap();
        dev.destroy_device(None);
    }
}
