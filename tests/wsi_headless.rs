//! VK_EXT_headless_surface through the real loader: the surface's capabilities, acquire's
//! timeouts (NOT_READY, TIMEOUT), vkGetSwapchainImagesKHR's VK_INCOMPLETE, FIFO pacing, and
//! swapchain retirement.

mod common;

use ash::vk;
use common::wsi::{Wsi, OPTIMAL};
use std::time::{Duration, Instant};

fn headless_surface(wsi: &Wsi) -> vk::SurfaceKHR {
    let h = ash::ext::headless_surface::Instance::new(&wsi.ctx.entry, &wsi.ctx.instance);
    // SAFETY: valid instance and create info.
    unsafe { h.create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None) }
        .unwrap()
}

const EXTENT: vk::Extent2D = vk::Extent2D {
    width: 64,
    height: 32,
};

#[test]
fn headless_acquire_present_and_timeouts() {
    let wsi = Wsi::new(true, ash::ext::headless_surface::NAME);
    let surface = headless_surface(&wsi);
    // SAFETY: valid objects throughout; every image presented was acquired.
    unsafe {
        let caps = wsi
            .surface_fn
            .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
            .unwrap();
        // A headless surface has no size of its own: the swapchain decides.
        assert_eq!(caps.current_extent.width, u32::MAX);
        assert!(caps.max_image_extent.width >= EXTENT.width);
        assert!(wsi
            .surface_fn
            .get_physical_device_surface_support(wsi.ctx.pdev, 0, surface)
            .unwrap());
        let (sc, images) = wsi.swapchain(
            surface,
            EXTENT,
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::FIFO,
            3,
            vk::SwapchainKHR::null(),
        );
        // Two-call enumeration with too small an array.
        let mut count = 1u32;
        let mut first = vk::Image::null();
        let r = (wsi.swapchain_fn.fp().get_swapchain_images_khr)(
            wsi.device.handle(),
            sc,
            &mut count,
            &mut first,
        );
        assert_eq!(r, vk::Result::INCOMPLETE);
        assert_eq!((count, first), (1, images[0]));

        // Every image acquired: acquire without waiting is NOT_READY, with a timeout TIMEOUT.
        let mut acquired = Vec::new();
        for _ in 0..images.len() {
            acquired.push(wsi.try_acquire(sc).unwrap().0);
        }
        acquired.sort();
        assert_eq!(acquired, vec![0, 1, 2]);
        assert_eq!(wsi.try_acquire(sc), Err(vk::Result::NOT_READY));
        let sem = wsi
            .device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let start = Instant::now();
        assert_eq!(
            wsi.swapchain_fn
                .acquire_next_image(sc, 20_000_000, sem, vk::Fence::null()),
            Err(vk::Result::TIMEOUT)
        );
        assert!(start.elapsed() >= Duration::from_millis(20));
        wsi.device.destroy_semaphore(sem, None);

        // Present them (after a transition to PRESENT_SRC), and they come back.
        let cb = wsi
            .device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(wsi.pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        wsi.device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let barriers: Vec<_> = images
            .iter()
            .map(|&image| {
                vk::ImageMemoryBarrier::default()
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                    .image(image)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .level_count(1)
                            .layer_count(1),
                    )
            })
            .collect();
        wsi.device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &barriers,
        );
        wsi.device.end_command_buffer(cb).unwrap();
        let done = wsi
            .device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let cbs = [cb];
        let signals = [done];
        wsi.device
            .queue_submit(
                wsi.queue,
                &[vk::SubmitInfo::default()
                    .command_buffers(&cbs)
                    .signal_semaphores(&signals)],
                vk::Fence::null(),
            )
            .unwrap();
        for i in 0..3u32 {
            let chains = [sc];
            let indices = [i];
            let waits: &[vk::Semaphore] = if i == 0 { &signals } else { &[] };
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(waits)
                .swapchains(&chains)
                .image_indices(&indices);
            assert_eq!(wsi.swapchain_fn.queue_present(wsi.queue, &info), Ok(false));
        }
        let f = wsi
            .device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let (i, sub) = wsi
            .swapchain_fn
            .acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), f)
            .unwrap();
        assert!(!sub && i < 3);
        wsi.device.wait_for_fences(&[f], true, u64::MAX).unwrap();
        wsi.device.destroy_fence(f, None);
        // Give the image back by presenting it cleared; then FIFO paces: with two images
        // in flight at most, N frames take at least N - 3 vblanks.
        let transition_back = [vk::ImageMemoryBarrier::default()
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .image(images[i as usize])
            .subresource_range(
                vk::ImageSubresourceRange::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .level_count(1)
                    .layer_count(1),
            )];
        wsi.device.queue_wait_idle(wsi.queue).unwrap();
        wsi.device
            .reset_command_buffer(cb, vk::CommandBufferResetFlags::empty())
            .unwrap();
        wsi.device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        wsi.device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &transition_back,
        );
        wsi.device.end_command_buffer(cb).unwrap();
        wsi.device
            .queue_submit(
                wsi.queue,
                &[vk::SubmitInfo::default()
                    .command_buffers(&cbs)
                    .signal_semaphores(&signals)],
                vk::Fence::null(),
            )
            .unwrap();
        let chains = [sc];
        let indices = [i];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&chains)
            .image_indices(&indices);
        assert_eq!(wsi.swapchain_fn.queue_present(wsi.queue, &info), Ok(false));
        let frames = 12u32;
        let start = Instant::now();
        for _ in 0..frames {
            assert_eq!(
                wsi.present_colour(sc, &images, [0.0, 1.0, 0.0, 1.0]),
                OPTIMAL
            );
        }
        let vblank = Duration::from_nanos(1_000_000_000 / 60);
        assert!(
            start.elapsed() >= vblank * (frames - 3),
            "{frames} FIFO frames took {:?}",
            start.elapsed()
        );
        wsi.device.device_wait_idle().unwrap();
        wsi.device.destroy_semaphore(done, None);
        wsi.device.free_command_buffers(wsi.pool, &cbs);
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
}

/// Acquiring from a retired swapchain is invalid usage (so no validation layer here); agx4
/// answers VK_ERROR_OUT_OF_DATE_KHR, and the retired swapchain's acquired images can still
/// be presented.
#[test]
fn retired_swapchain_gives_no_images() {
    let wsi = Wsi::new(false, ash::ext::headless_surface::NAME);
    let surface = headless_surface(&wsi);
    // SAFETY: valid objects throughout.
    unsafe {
        let (old, images) = wsi.swapchain(
            surface,
            EXTENT,
            vk::Format::R8G8B8A8_UNORM,
            vk::PresentModeKHR::MAILBOX,
            2,
            vk::SwapchainKHR::null(),
        );
        let (index, _) = wsi.try_acquire(old).unwrap();
        let (new, new_images) = wsi.swapchain(
            surface,
            EXTENT,
            vk::Format::R8G8B8A8_UNORM,
            vk::PresentModeKHR::MAILBOX,
            2,
            old,
        );
        assert_eq!(wsi.try_acquire(old), Err(vk::Result::ERROR_OUT_OF_DATE_KHR));
        let chains = [old];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .swapchains(&chains)
            .image_indices(&indices);
        assert_eq!(wsi.swapchain_fn.queue_present(wsi.queue, &info), Ok(false));
        assert_eq!(wsi.present_colour(new, &new_images, [1.0; 4]), OPTIMAL);
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(old, None);
        wsi.swapchain_fn.destroy_swapchain(new, None);
        wsi.surface_fn.destroy_surface(surface, None);
        assert_eq!(images.len(), 2);
    }
}
