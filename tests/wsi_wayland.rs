//! Presentation to Wayland surfaces on a headless Weston of each test's own, through the real
//! loader and the validation layer: the surface queries, every present mode, acquire
//! time-outs, swapchains of new sizes (Wayland swapchains never go out of date by a resize),
//! present regions (VK_KHR_incremental_present), a killed
//! compositor losing the surface, and Debian's vkcube-wayland running on agx4.
//!
//! Every test skips, saying so, when weston is missing (scripts/deps.sh installs it).

mod common;

use ash::vk;
use common::wsi::{Wsi, OPTIMAL};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{wl_compositor::WlCompositor, wl_registry, wl_surface::WlSurface};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle};

/// A headless Weston on a socket in a runtime directory of its own, killed when dropped.
struct Weston {
    child: Child,
    runtime_dir: PathBuf,
    socket: String,
}

impl Weston {
    fn start(test: &str) -> Option<Weston> {
        let runtime_dir =
            std::env::temp_dir().join(format!("agx4-wl-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&runtime_dir);
        std::fs::create_dir_all(&runtime_dir).unwrap();
        // libwayland and Weston want a private runtime directory.
        std::fs::set_permissions(&runtime_dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = "wayland-agx4".to_string();
        let log = std::fs::File::create(runtime_dir.join("weston.log")).unwrap();
        let spawned = Command::new("weston")
            .args([
                "--backend=headless-backend.so",
                &format!("--socket={socket}"),
                "--idle-time=0",
                "--no-config",
            ])
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DISPLAY")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn();
        let child = match spawned {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("SKIPPED: weston is not installed (scripts/deps.sh installs weston)");
                let _ = std::fs::remove_dir_all(&runtime_dir);
                return None;
            }
            Err(e) => panic!("cannot start weston: {e}"),
        };
        let w = Weston {
            child,
            runtime_dir,
            socket,
        };
        // The socket accepts connections once Weston has set up its globals.
        let start = Instant::now();
        while UnixStream::connect(w.socket_path()).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "weston did not open its socket; its log:\n{}",
                w.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(w)
    }

    fn socket_path(&self) -> PathBuf {
        self.runtime_dir.join(&self.socket)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.runtime_dir.join("weston.log")).unwrap_or_default()
    }

    /// Kills Weston (our own child, by its pid) and reaps it.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.runtime_dir);
    }
}

/// The test's own Wayland client: a connection and one wl_surface (without a role: nothing
/// here needs it mapped, and agx4 must cope with a surface the compositor never repaints).
struct Client {
    conn: Connection,
    _queue: EventQueue<Globals>,
    surface: WlSurface,
}

struct Globals;

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for Globals {
    fn event(
        _: &mut Self,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<WlCompositor, ()> for Globals {
    fn event(
        _: &mut Self,
        _: &WlCompositor,
        _: <WlCompositor as Proxy>::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Dispatch<WlSurface, ()> for Globals {
    fn event(
        _: &mut Self,
        _: &WlSurface,
        _: <WlSurface as Proxy>::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

impl Client {
    fn connect(weston: &Weston) -> Client {
        let stream = UnixStream::connect(weston.socket_path()).unwrap();
        let conn = Connection::from_socket(stream).unwrap();
        let (globals, queue) = registry_queue_init::<Globals>(&conn).unwrap();
        let qh = queue.handle();
        let compositor: WlCompositor = globals.bind(&qh, 1..=4, ()).unwrap();
        let surface = compositor.create_surface(&qh, ());
        conn.flush().unwrap();
        Client {
            conn,
            _queue: queue,
            surface,
        }
    }

    fn display_ptr(&self) -> *mut vk::wl_display {
        self.conn.backend().display_ptr().cast()
    }

    fn vk_surface(&self, wsi: &Wsi) -> vk::SurfaceKHR {
        let wl = ash::khr::wayland_surface::Instance::new(&wsi.ctx.entry, &wsi.ctx.instance);
        let info = vk::WaylandSurfaceCreateInfoKHR::default()
            .display(self.display_ptr())
            .surface(self.surface.id().as_ptr().cast());
        // SAFETY: the display and surface live as long as the VkSurfaceKHR.
        unsafe { wl.create_wayland_surface(&info, None) }.unwrap()
    }
}

const MODES: [vk::PresentModeKHR; 4] = [
    vk::PresentModeKHR::FIFO,
    vk::PresentModeKHR::MAILBOX,
    vk::PresentModeKHR::IMMEDIATE,
    vk::PresentModeKHR::FIFO_RELAXED,
];

fn extent(width: u32, height: u32) -> vk::Extent2D {
    vk::Extent2D { width, height }
}

#[test]
fn surface_queries_and_every_present_mode() {
    let Some(weston) = Weston::start("modes") else {
        return;
    };
    let client = Client::connect(&weston);
    let wsi = Wsi::new(true, ash::khr::wayland_surface::NAME);
    let surface = client.vk_surface(&wsi);
    let sf = &wsi.surface_fn;
    // SAFETY: valid physical device, surface and swapchains throughout.
    unsafe {
        assert!(sf
            .get_physical_device_surface_support(wsi.ctx.pdev, 0, surface)
            .unwrap());
        let wl = ash::khr::wayland_surface::Instance::new(&wsi.ctx.entry, &wsi.ctx.instance);
        assert!(wl.get_physical_device_wayland_presentation_support(
            wsi.ctx.pdev,
            0,
            &mut *client.display_ptr()
        ));
        let caps = sf
            .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
            .unwrap();
        // A Wayland surface takes the size of the swapchain.
        assert_eq!(caps.current_extent, extent(u32::MAX, u32::MAX));
        assert_eq!(caps.min_image_extent, extent(1, 1));
        assert!(caps.max_image_extent.width >= 4096);
        let formats = sf
            .get_physical_device_surface_formats(wsi.ctx.pdev, surface)
            .unwrap();
        for f in [vk::Format::B8G8R8A8_UNORM, vk::Format::B8G8R8A8_SRGB] {
            assert!(formats.iter().any(|s| s.format == f), "{f:?}");
        }
        let modes = sf
            .get_physical_device_surface_present_modes(wsi.ctx.pdev, surface)
            .unwrap();
        for m in MODES {
            assert!(modes.contains(&m), "{m:?}");
        }

        let mut old = vk::SwapchainKHR::null();
        for (i, mode) in MODES.into_iter().enumerate() {
            // Each swapchain has another size: the surface follows it, nothing goes stale.
            let size = extent(64 + 16 * i as u32, 48 + 8 * i as u32);
            let (sc, images) =
                wsi.swapchain(surface, size, vk::Format::B8G8R8A8_UNORM, mode, 3, old);
            // The old one is retired by the new one (acquiring from it is invalid usage).
            if old != vk::SwapchainKHR::null() {
                wsi.swapchain_fn.destroy_swapchain(old, None);
            }
            let start = Instant::now();
            for f in 0..12 {
                let c = [(f % 2) as f32, 0.0, 1.0, 1.0];
                assert_eq!(wsi.present_colour(sc, &images, c), OPTIMAL, "{mode:?}");
            }
            eprintln!("{mode:?}: 12 frames in {:.1?}", start.elapsed());
            old = sc;
        }
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(old, None);
        sf.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
    assert!(weston.log().contains("headless"), "{}", weston.log());
}

#[test]
fn acquire_times_out_when_every_image_is_acquired() {
    let Some(weston) = Weston::start("timeout") else {
        return;
    };
    let client = Client::connect(&weston);
    let wsi = Wsi::new(true, ash::khr::wayland_surface::NAME);
    let surface = client.vk_surface(&wsi);
    // SAFETY: valid objects throughout; acquired images may be left unpresented when the
    // swapchain is destroyed.
    unsafe {
        let (sc, _images) = wsi.swapchain(
            surface,
            extent(32, 32),
            vk::Format::B8G8R8A8_SRGB,
            vk::PresentModeKHR::FIFO,
            2,
            vk::SwapchainKHR::null(),
        );
        let mut got = vec![
            wsi.try_acquire(sc).unwrap().0,
            wsi.try_acquire(sc).unwrap().0,
        ];
        got.sort();
        assert_eq!(got, vec![0, 1]);
        assert_eq!(wsi.try_acquire(sc), Err(vk::Result::NOT_READY));
        let fence = wsi
            .device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let start = Instant::now();
        let r = wsi
            .swapchain_fn
            .acquire_next_image(sc, 30_000_000, vk::Semaphore::null(), fence);
        assert_eq!(r, Err(vk::Result::TIMEOUT));
        assert!(start.elapsed() >= Duration::from_millis(30));
        wsi.device.destroy_fence(fence, None);
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
}

#[test]
fn present_regions_are_accepted() {
    let Some(weston) = Weston::start("regions") else {
        return;
    };
    let client = Client::connect(&weston);
    let wsi = Wsi::with_device_extensions(
        true,
        ash::khr::wayland_surface::NAME,
        &[ash::khr::incremental_present::NAME],
    );
    let surface = client.vk_surface(&wsi);
    // SAFETY: valid objects throughout.
    unsafe {
        let (sc, images) = wsi.swapchain(
            surface,
            extent(64, 64),
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::MAILBOX,
            2,
            vk::SwapchainKHR::null(),
        );
        let rects = [
            vk::RectLayerKHR {
                offset: vk::Offset2D { x: 4, y: 4 },
                extent: extent(8, 8),
                layer: 0,
            },
            // Touching the image's corner. (Rectangles reaching outside the image are
            // invalid usage; agx4 clips them: wsi::tests::damage_is_clipped_and_bounded.)
            vk::RectLayerKHR {
                offset: vk::Offset2D { x: 54, y: 54 },
                extent: extent(10, 10),
                layer: 0,
            },
        ];
        assert_eq!(wsi.present_colour(sc, &images, [1.0; 4]), OPTIMAL);
        for _ in 0..3 {
            assert_eq!(
                wsi.present_colour_regions(sc, &images, [0.0, 1.0, 0.0, 1.0], &rects),
                OPTIMAL
            );
            // Without regions: the whole image changed. (A region of zero rectangles means
            // the same in the spec, but the 1.3.239 validation layer rejects it.)
            assert_eq!(
                wsi.present_colour(sc, &images, [0.0, 0.0, 1.0, 1.0]),
                OPTIMAL
            );
        }
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    common::assert_no_validation_messages();
}

#[test]
fn killed_compositor_loses_the_surface() {
    let Some(mut weston) = Weston::start("kill") else {
        return;
    };
    let client = Client::connect(&weston);
    // Without the validation layer: once the surface is lost its capabilities query fails,
    // and the layer then judges the swapchain create info below against empty capabilities
    // (and its messages would outlive this test in the shared list).
    let wsi = Wsi::new(false, ash::khr::wayland_surface::NAME);
    let surface = client.vk_surface(&wsi);
    // SAFETY: valid objects throughout.
    unsafe {
        let (sc, images) = wsi.swapchain(
            surface,
            extent(48, 48),
            vk::Format::B8G8R8A8_UNORM,
            vk::PresentModeKHR::FIFO,
            2,
            vk::SwapchainKHR::null(),
        );
        assert_eq!(wsi.present_colour(sc, &images, [1.0; 4]), OPTIMAL);
        weston.kill();
        // The loss shows at the latest once agx4 next reads from the socket: the first
        // acquire or present after the kill, or the present after that.
        let mut lost = false;
        for _ in 0..3 {
            match wsi.present_colour(sc, &images, [0.0, 0.0, 0.0, 1.0]) {
                Err(vk::Result::ERROR_SURFACE_LOST_KHR)
                | Ok(common::wsi::Frame {
                    present: Err(vk::Result::ERROR_SURFACE_LOST_KHR),
                    ..
                }) => {
                    lost = true;
                    break;
                }
                Ok(f) if f == OPTIMAL.unwrap() => {}
                other => panic!("after the compositor died: {other:?}"),
            }
        }
        assert!(
            lost,
            "three frames after the compositor died, no SURFACE_LOST"
        );
        assert_eq!(wsi.try_acquire(sc), Err(vk::Result::ERROR_SURFACE_LOST_KHR));
        assert_eq!(
            wsi.surface_fn
                .get_physical_device_surface_capabilities(wsi.ctx.pdev, surface)
                .err(),
            Some(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        // A swapchain on a lost surface cannot be made either.
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(2)
            .image_format(vk::Format::B8G8R8A8_UNORM)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(extent(48, 48))
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
            .old_swapchain(sc);
        assert_eq!(
            wsi.swapchain_fn.create_swapchain(&info, None).err(),
            Some(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        wsi.device.device_wait_idle().unwrap();
        wsi.swapchain_fn.destroy_swapchain(sc, None);
        wsi.surface_fn.destroy_surface(surface, None);
    }
    // The validation layer has nothing to say about a lost surface.
    common::assert_no_validation_messages();
}

/// A manifest for the library cargo built, in `dir`.
fn agx4_manifest(dir: &Path) -> PathBuf {
    let manifest = dir.join("agx4_icd.json");
    let json = format!(
        r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
        common::library_path().display()
    );
    std::fs::write(&manifest, json).unwrap();
    manifest
}

#[test]
fn vkcube_wayland_runs_100_frames() {
    let Some(vkcube) = Some(PathBuf::from("/usr/bin/vkcube-wayland")).filter(|p| p.exists()) else {
        eprintln!(
            "SKIPPED: vkcube-wayland is not installed (scripts/deps.sh installs vulkan-tools)"
        );
        return;
    };
    let Some(weston) = Weston::start("vkcube") else {
        return;
    };
    let manifest = agx4_manifest(&weston.runtime_dir);
    // A small window, as in tests/vkcube.rs: the simulated GPU shades every pixel on the CPU.
    let mut child = Command::new(vkcube)
        .args(["--c", "100", "--width", "160", "--height", "160"])
        .env("XDG_RUNTIME_DIR", &weston.runtime_dir)
        .env("WAYLAND_DISPLAY", &weston.socket)
        .env_remove("DISPLAY")
        .env("VK_DRIVER_FILES", &manifest)
        .env("NODEVICE_SELECT", "1")
        .env("AGX4_KMD", "sim")
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VK_LOADER_LAYERS_ENABLE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let limit = Duration::from_secs(1200);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            // Our own child, by its handle.
            let _ = child.kill();
            panic!("vkcube-wayland did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("vkcube-wayland: {status:?} in {:.1?}", start.elapsed());
    assert!(
        status.success(),
        "vkcube-wayland failed ({status:?}):\n{text}\nweston:\n{}",
        weston.log()
    );
    assert!(text.contains("simulated by agx4"), "{text}");
    assert!(!text.contains("agx4:"), "agx4 complained:\n{text}");
}
