//! Presentation to X11 windows on an Xvfb of the test's own, through the real loader and the
//! validation layer: cleared swapchain images must reach the window (read back with
//! GetImage), a resized window makes the swapchain suboptimal then out of date, a destroyed
//! window loses the surface, and vulkaninfo lists the surface.

mod common;

use ash::vk;
use common::wsi::{rgb, Frame, Wsi, OPTIMAL};
use common::x11::{self as x, Xvfb};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;

fn xcb_surface(w: &Wsi, conn: &x11rb::xcb_ffi::XCBConnection, win: u32) -> vk::SurfaceKHR {
    let xcb = ash::khr::xcb_surface::Instance::new(&w.ctx.entry, &w.ctx.instance);
    let info = vk::XcbSurfaceCreateInfoKHR::default()
        .connection(conn.get_raw_xcb_connection())
        .window(win);
    // SAFETY: the connection and window are live for the surface's life.
    unsafe { xcb.create_xcb_surface(&info, None) }.unwrap()
}

#[test]
fn cleared_images_reach_the_window() {
    let Some(xvfb) = Xvfb::start() else { return };
    let conn = xvfb.connect();
    let (w, h) = (200u16, 120u16);
    let win = x::create_window(&conn, w, h);
    let wsi = Wsi::new(true, ash::khr::xcb_surface::NAME);
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
    let wsi = Wsi::new(true, ash::khr::xcb_surface::NAME);
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
    let wsi = Wsi::new(true, ash::khr::xcb_surface::NAME);
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
