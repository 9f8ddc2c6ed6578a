//! Presentation to X11 windows on an Xvfb of the test's own, through the real loader and the
//! validation layer: cleared swapchain images must reach the window (read back with
//! GetImage), a resized window makes the swapchain suboptimal then out of date, a destroyed
//! window loses the surface, and vulkaninfo lists the surface.

mod common;

use ash::vk;
use common::x11::{self as x, Xvfb};
use common::Ctx;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;

pub struct Wsi {
    pub ctx: Ctx,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub surface_fn: ash::khr::surface::Instance,
    pub swapchain_fn: ash::khr::swapchain::Device,
    pub pool: vk::CommandPool,
}

impl Wsi {
    pub fn new(platform_ext: &std::ffi::CStr) -> Wsi {
        let ctx = Ctx::with(true, &[ash::khr::surface::NAME, platform_ext]);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts = [ash::khr::swapchain::NAME.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        // SAFETY: valid physical device and create info.
        let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.unwrap();
        // SAFETY: family 0, index 0 exists.
        let queue = unsafe { device.get_device_queue(0, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }.unwrap();
        Wsi {
            surface_fn: ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance),
            swapchain_fn: ash::khr::swapchain::Device::new(&ctx.instance, &device),
            ctx,
            device,
            queue,
            pool,
        }
    }

    pub fn swapchain(
        &self,
        surface: vk::SurfaceKHR,
        extent: vk::Extent2D,
        format: vk::Format,
        mode: vk::PresentModeKHR,
        count: u32,
        old: vk::SwapchainKHR,
    ) -> (vk::SwapchainKHR, Vec<vk::Image>) {
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(count)
            .image_format(format)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(mode)
            .clipped(true)
            .old_swapchain(old);
        // SAFETY: valid device and create info.
        let sc = unsafe { self.swapchain_fn.create_swapchain(&info, None) }.unwrap();
        // SAFETY: valid swapchain.
        let images = unsafe { self.swapchain_fn.get_swapchain_images(sc) }.unwrap();
        assert_eq!(images.len() as u32, count);
        (sc, images)
    }

    /// Acquires an image, clears it to `rgba` on the GPU and presents it. Returns acquire's
    /// error, or whether it said suboptimal and what present returned.
    pub fn present_colour(
        &self,
        sc: vk::SwapchainKHR,
        images: &[vk::Image],
        rgba: [f32; 4],
    ) -> Result<Frame, vk::Result> {
        let d = &self.device;
        // SAFETY: plain object creation and use on a valid device; every object is destroyed
        // before returning, after the queue is idle.
        unsafe {
            let acquired = d
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap();
            let rendered = d
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap();
            let destroy = || {
                d.queue_wait_idle(self.queue).unwrap();
                d.destroy_semaphore(acquired, None);
                d.destroy_semaphore(rendered, None);
            };
            let (index, sub_acquire) = match self.swapchain_fn.acquire_next_image(
                sc,
                u64::MAX,
                acquired,
                vk::Fence::null(),
            ) {
                Ok(v) => v,
                Err(e) => {
                    destroy();
                    return Err(e);
                }
            };
            let cb = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            let image = images[index as usize];
            let to_dst = vk::ImageMemoryBarrier::default()
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            d.cmd_clear_color_image(
                cb,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue { float32: rgba },
                &[range],
            );
            let to_present = vk::ImageMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                .image(image)
                .subresource_range(range);
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_present],
            );
            d.end_command_buffer(cb).unwrap();
            let waits = [acquired];
            let stages = [vk::PipelineStageFlags::TRANSFER];
            let cbs = [cb];
            let signals = [rendered];
            let submit = vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cbs)
                .signal_semaphores(&signals);
            d.queue_submit(self.queue, &[submit], vk::Fence::null())
                .unwrap();
            let chains = [sc];
            let indices = [index];
            let present = vk::PresentInfoKHR::default()
                .wait_semaphores(&signals)
                .swapchains(&chains)
                .image_indices(&indices);
            let r = self.swapchain_fn.queue_present(self.queue, &present);
            destroy();
            d.free_command_buffers(self.pool, &cbs);
            Ok(Frame {
                acquire_suboptimal: sub_acquire,
                present: r,
            })
        }
    }
}

impl Wsi {
    /// An acquire that does not wait (with a fence, as valid usage asks for one of fence and
    /// semaphore): the index, or the error.
    pub fn try_acquire(&self, sc: vk::SwapchainKHR) -> Result<(u32, bool), vk::Result> {
        // SAFETY: valid device and swapchain; the fence is destroyed once acquire has
        // signalled it (or failed, leaving it unused).
        unsafe {
            let f = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            let r = self
                .swapchain_fn
                .acquire_next_image(sc, 0, vk::Semaphore::null(), f);
            if r.is_ok() {
                self.device.wait_for_fences(&[f], true, u64::MAX).unwrap();
            }
            self.device.destroy_fence(f, None);
            r
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub acquire_suboptimal: bool,
    /// Whether present said suboptimal, or its error.
    pub present: Result<bool, vk::Result>,
}

/// A frame that acquire and present took without complaint.
const OPTIMAL: Result<Frame, vk::Result> = Ok(Frame {
    acquire_suboptimal: false,
    present: Ok(false),
});

impl Drop for Wsi {
    fn drop(&mut self) {
        // SAFETY: the tests destroy their swapchains and surfaces first.
        unsafe {
            self.device.device_wait_idle().unwrap();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
        }
    }
}

fn xcb_surface(w: &Wsi, conn: &x11rb::xcb_ffi::XCBConnection, win: u32) -> vk::SurfaceKHR {
    let xcb = ash::khr::xcb_surface::Instance::new(&w.ctx.entry, &w.ctx.instance);
    let info = vk::XcbSurfaceCreateInfoKHR::default()
        .connection(conn.get_raw_xcb_connection())
        .window(win);
    // SAFETY: the connection and window are live for the surface's life.
    unsafe { xcb.create_xcb_surface(&info, None) }.unwrap()
}

/// 0xRRGGBB of a clear colour whose channels are multiples of 1/255.
fn rgb(c: [f32; 4]) -> u32 {
    let b = |v: f32| (v * 255.0).round() as u32;
    (b(c[0]) << 16) | (b(c[1]) << 8) | b(c[2])
}

#[test]
fn cleared_images_reach_the_window() {
    let Some(xvfb) = Xvfb::start() else { return };
    let conn = xvfb.connect();
    let (w, h) = (200u16, 120u16);
    let win = x::create_window(&conn, w, h);
    let wsi = Wsi::new(ash::khr::xcb_surface::NAME);
    let surface = xcb_surface(&wsi, &conn, win);
    let sf = &wsi.surface_fn;
    // SAFETY: valid physical device and surface throughout.
    unsafe {
        assert!(sf
            .get_physical_device_surface_support(wsi.ctx.pdev, 0, surface)
            .unwrap());
        let caps = sf
            .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
            .unwrap();
        assert_eq!(
            caps.current_extent,
            vk::Extent2D {
                width: w.into(),
                height: h.into()
            }
        );
        assert!(caps.supported_usage_flags.contains(
            vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
        ));
        let formats = sf
            .get_physical_device_surface_formats(wsi.ctx.pdev, surface)
            .unwrap();
        assert!(formats
            .iter()
            .any(|f| f.format == vk::Format::B8G8R8A8_UNORM));
        let modes = sf
            .get_physical_device_surface_present_modes(wsi.ctx.pdev, surface)
            .unwrap();
        for m in [
            vk::PresentModeKHR::FIFO,
            vk::PresentModeKHR::MAILBOX,
            vk::PresentModeKHR::IMMEDIATE,
            vk::PresentModeKHR::FIFO_RELAXED,
        ] {
            assert!(modes.contains(&m), "{m:?}");
        }
        let visual = conn.setup().roots[0].root_visual;
        let xcb = ash::khr::xcb_surface::Instance::new(&wsi.ctx.entry, &wsi.ctx.instance);
        assert!(xcb.get_physical_device_xcb_presentation_support(
            wsi.ctx.pdev,
            0,
            &mut *conn.get_raw_xcb_connection().cast(),
            visual
        ));

        let extent = caps.current_extent;
        // Each present mode shows every colour it is given last.
        let mut old = vk::SwapchainKHR::null();
        // Channels of 0 and 1 only: the sRGB formats store them as they are.
        let colours = [
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 1.0],
            [1.0, 1.0, 0.0, 1.0],
        ];
        for (mode, format) in [
            (vk::PresentModeKHR::FIFO, vk::Format::B8G8R8A8_UNORM),
            (vk::PresentModeKHR::MAILBOX, vk::Format::R8G8B8A8_UNORM),
            (vk::PresentModeKHR::IMMEDIATE, vk::Format::B8G8R8A8_SRGB),
            (vk::PresentModeKHR::FIFO_RELAXED, vk::Format::R8G8B8A8_SRGB),
        ] {
            let (sc, images) = wsi.swapchain(surface, extent, format, mode, 3, old);
            if old != vk::SwapchainKHR::null() {
                // Retired by the new one; its images are all back from the presenter.
                wsi.swapchain_fn.destroy_swapchain(old, None);
            }
            for c in colours {
                assert_eq!(wsi.present_colour(sc, &images, c), OPTIMAL, "{mode:?}");
            }
            let want = rgb(colours[3]);
            let px = x::wait_for_colour(&conn, win, w, h, want);
            let bad = px.iter().filter(|&&p| p != want).count();
            assert_eq!(
                bad, 0,
                "{mode:?} {format:?}: {bad} pixels are not {want:06x} (first {:06x})",
                px[0]
            );
            // Next time, the first colour again, so a stale window cannot pass.
            for c in colours.iter().take(1) {
                assert_eq!(wsi.present_colour(sc, &images, *c), OPTIMAL);
            }
            let px = x::wait_for_colour(&conn, win, w, h, rgb(colours[0]));
            assert!(px.iter().all(|&p| p == rgb(colours[0])), "{mode:?}");
            old = sc;
        }
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(old, None);
        sf.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
}

#[test]
fn resized_window_is_suboptimal_then_out_of_date() {
    let Some(xvfb) = Xvfb::start() else { return };
    let conn = xvfb.connect();
    let win = x::create_window(&conn, 64, 48);
    let wsi = Wsi::new(ash::khr::xcb_surface::NAME);
    let surface = xcb_surface(&wsi, &conn, win);
    let extent = vk::Extent2D {
        width: 64,
        height: 48,
    };
    let red = [1.0, 0.0, 0.0, 1.0];
    // SAFETY: valid objects throughout.
    unsafe {
        let (sc, images) = wsi.swapchain(
            surface,
            extent,
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::FIFO,
            2,
            vk::SwapchainKHR::null(),
        );
        assert_eq!(wsi.present_colour(sc, &images, red), OPTIMAL);
        x::resize_window(&conn, win, 80, 40);
        // The first call that sees the new size: the image is acquired (suboptimal), and the
        // present that follows finds the swapchain out of date, as does every later acquire.
        assert_eq!(
            wsi.present_colour(sc, &images, red),
            Ok(Frame {
                acquire_suboptimal: true,
                present: Err(vk::Result::ERROR_OUT_OF_DATE_KHR)
            })
        );
        assert_eq!(wsi.try_acquire(sc), Err(vk::Result::ERROR_OUT_OF_DATE_KHR));
        // A new swapchain of the new size presents again.
        let caps = wsi
            .surface_fn
            .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
            .unwrap();
        assert_eq!(caps.current_extent.width, 80);
        assert_eq!(caps.current_extent.height, 40);
        let (sc2, images2) = wsi.swapchain(
            surface,
            caps.current_extent,
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::FIFO,
            2,
            sc,
        );
        let green = [0.0, 1.0, 0.0, 1.0];
        assert_eq!(wsi.present_colour(sc2, &images2, green), OPTIMAL);
        let px = x::wait_for_colour(&conn, win, 80, 40, rgb(green));
        assert!(px.iter().all(|&p| p == rgb(green)));
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.swapchain_fn.destroy_swapchain(sc2, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
}

#[test]
fn destroyed_window_loses_the_surface() {
    let Some(xvfb) = Xvfb::start() else { return };
    let conn = xvfb.connect();
    let win = x::create_window(&conn, 32, 32);
    let wsi = Wsi::new(ash::khr::xcb_surface::NAME);
    let surface = xcb_surface(&wsi, &conn, win);
    let extent = vk::Extent2D {
        width: 32,
        height: 32,
    };
    // SAFETY: valid objects throughout.
    unsafe {
        let (sc, images) = wsi.swapchain(
            surface,
            extent,
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::IMMEDIATE,
            2,
            vk::SwapchainKHR::null(),
        );
        assert_eq!(
            wsi.present_colour(sc, &images, [0.0, 0.0, 1.0, 1.0]),
            OPTIMAL
        );
        conn.destroy_window(win).unwrap().check().unwrap();
        assert_eq!(wsi.try_acquire(sc), Err(vk::Result::ERROR_SURFACE_LOST_KHR));
        assert_eq!(
            wsi.surface_fn
                .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
                .err(),
            Some(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    // The connection still works: agx4's failed requests did not break it.
    conn.get_input_focus().unwrap().reply().unwrap();
    common::assert_no_validation_messages();
}

#[test]
fn vulkaninfo_lists_the_surface() {
    let Some(xvfb) = Xvfb::start() else { return };
    common::use_agx4_only(&[]);
    let out = std::process::Command::new("vulkaninfo")
        .env("DISPLAY", &xvfb.display)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "SKIPPED: vulkaninfo is not installed (scripts/deps.sh installs vulkan-tools)"
            );
            return;
        }
        Err(e) => panic!("vulkaninfo: {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "vulkaninfo failed:\n{stderr}");
    for ext in [
        "VK_KHR_surface",
        "VK_KHR_xcb_surface",
        "VK_KHR_xlib_surface",
        "VK_KHR_swapchain",
    ] {
        assert!(stdout.contains(ext), "{ext} missing");
    }
    let section = stdout
        .split("Presentable Surfaces:")
        .nth(1)
        .expect("a Presentable Surfaces section");
    assert!(section.contains("VK_KHR_xcb_surface"));
    assert!(section.contains("FORMAT_B8G8R8A8_UNORM"));
    assert!(section.contains("PRESENT_MODE_FIFO_KHR"));
    // agx4's and the loader's errors; vulkaninfo's own complaint that there is no Wayland
    // compositor (XDG_RUNTIME_DIR) is about the machine, not the driver.
    for line in stderr.lines().chain(stdout.lines()) {
        assert!(
            !line.contains("agx4:") && !line.contains("ERROR"),
            "vulkaninfo said: {line}"
        );
    }
}
