//! An Xlib surface (VK_KHR_xlib_surface: agx4 reaches the display's xcb connection through
//! libX11-xcb) presenting through PutImage (`AGX4_DEBUG=noshm` turns MIT-SHM off in this
//! process), read back from an Xvfb of the test's own.

mod common;

use ash::vk;
use common::wsi::{rgb, Wsi, OPTIMAL};
use common::x11::{self as x, Xvfb};
use std::ffi::{c_char, c_void, CString};
use x11rb::connection::Connection;

type XOpenDisplay = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type XCloseDisplay = unsafe extern "C" fn(*mut c_void) -> i32;

/// libX11's XOpenDisplay and XCloseDisplay, loaded at run time (libx11-6 is a dependency of
/// xvfb and of the CTS).
fn xlib() -> (XOpenDisplay, XCloseDisplay) {
    // SAFETY: dlopen/dlsym with NUL-terminated names; the library stays loaded, and the
    // symbols have these C signatures.
    unsafe {
        let lib = libc::dlopen(c"libX11.so.6".as_ptr(), libc::RTLD_NOW);
        assert!(!lib.is_null(), "libX11.so.6");
        let open = libc::dlsym(lib, c"XOpenDisplay".as_ptr());
        let close = libc::dlsym(lib, c"XCloseDisplay".as_ptr());
        assert!(!open.is_null() && !close.is_null());
        (
            std::mem::transmute::<*mut c_void, XOpenDisplay>(open),
            std::mem::transmute::<*mut c_void, XCloseDisplay>(close),
        )
    }
}

#[test]
fn xlib_surface_presents_through_put_image() {
    common::use_agx4_only(&[("AGX4_DEBUG", "noshm")]);
    let Some(xvfb) = Xvfb::start() else { return };
    let conn = xvfb.connect();
    let (w, h) = (300u16, 200u16);
    let win = x::create_window(&conn, w, h);
    let (open, close) = xlib();
    let name = CString::new(xvfb.display.clone()).unwrap();
    // SAFETY: a NUL-terminated display name.
    let dpy = unsafe { open(name.as_ptr()) };
    assert!(!dpy.is_null(), "XOpenDisplay({})", xvfb.display);
    let wsi = Wsi::new(true, ash::khr::xlib_surface::NAME);
    let xlib_fn = ash::khr::xlib_surface::Instance::new(&wsi.ctx.entry, &wsi.ctx.instance);
    // SAFETY: the display and the window (made on another connection to the same server)
    // are live for the surface's life.
    unsafe {
        let visual = conn.setup().roots[0].root_visual;
        assert!(xlib_fn.get_physical_device_xlib_presentation_support(
            wsi.ctx.pdev,
            0,
            dpy.cast(),
            visual as vk::VisualID
        ));
        let info = vk::XlibSurfaceCreateInfoKHR::default()
            .dpy(dpy.cast())
            .window(win.into());
        let surface = xlib_fn.create_xlib_surface(&info, None).unwrap();
        let caps = wsi
            .surface_fn
            .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
            .unwrap();
        assert_eq!(
            (caps.current_extent.width, caps.current_extent.height),
            (300, 200)
        );
        let (sc, images) = wsi.swapchain(
            surface,
            caps.current_extent,
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::IMMEDIATE,
            2,
            vk::SwapchainKHR::null(),
        );
        for c in [[0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]] {
            assert_eq!(wsi.present_colour(sc, &images, c), OPTIMAL);
        }
        let want = rgb([1.0, 0.0, 1.0, 1.0]);
        let px = x::wait_for_colour(&conn, win, w, h, want);
        let bad = px.iter().filter(|&&p| p != want).count();
        assert_eq!(
            bad, 0,
            "{bad} pixels are not {want:06x} (first {:06x})",
            px[0]
        );
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
    drop(wsi);
    // SAFETY: the display is no longer used by any surface.
    unsafe { close(dpy) };
}
