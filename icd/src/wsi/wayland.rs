//! Wayland surfaces (VK_KHR_wayland_surface) and their wl_shm copy back end.
//!
//! agx4 talks to the compositor through the application's own `wl_display`, with an event
//! queue of its own on it (wayland-backend's foreign-display support): every object agx4
//! creates (registry, wl_shm, pools, buffers, frame callbacks) delivers its events to that
//! queue, so agx4 never dispatches, or steals, the application's events. On the application's
//! `wl_surface` agx4 only sends requests. libwayland-client is loaded at run time (an
//! application that has a wl_display has it loaded already), so the driver does not link
//! against it.
//!
//! Presenting copies the image into a wl_shm buffer (one memfd pool each), attaches it,
//! damages what changed (VK_KHR_incremental_present's rectangles, else all of it) and commits.
//! A buffer is written again only once the compositor has released it; more are made while
//! all are held. A Wayland surface has no size of its own (the buffer gives it one), so a
//! swapchain never goes out of date by a resize. FIFO and FIFO_RELAXED commit a frame only
//! after the previous commit's frame callback: frames then follow the compositor's repaints
//! (on top of the presenter's own clock). A surface the compositor does not repaint (hidden,
//! or without a role) gets no callbacks, so a callback that does not come within a few
//! refreshes stops that wait until callbacks come again, rather than stalling the swapchain.
//! A connection that broke (the compositor went away, a protocol error) loses the surface.

use super::{detile, Backend, PixelFormat, PresentImage};
use ash::vk;
use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use wayland_client::backend::{Backend as WlBackend, ObjectId, WaylandError};
use wayland_client::protocol::{
    wl_buffer::{self, WlBuffer},
    wl_callback::{self, WlCallback},
    wl_registry::{self, WlRegistry},
    wl_shm::{self, WlShm},
    wl_shm_pool::WlShmPool,
    wl_surface::WlSurface,
};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle};

/// How long the compositor may take to answer a round trip before the surface counts as lost.
const ROUND_TRIP: Duration = Duration::from_secs(5);
/// How long FIFO waits for a frame callback before deciding the surface is not repainted.
const FRAME_WAIT: Duration = Duration::from_millis(50);
/// How long a present waits for a released buffer once `MAX_BUFFERS` are held.
const RELEASE_WAIT: Duration = Duration::from_secs(1);
/// Most wl_shm buffers one swapchain keeps.
const MAX_BUFFERS: usize = 6;

/// wl_shm's XRGB8888 (every compositor has it): a little-endian 32-bit word, red at bit 16.
const XRGB8888: PixelFormat = PixelFormat {
    red_shift: 16,
    green_shift: 8,
    blue_shift: 0,
    opaque_bits: 0xff00_0000,
    big_endian: false,
};

/// Whether libwayland-client can be loaded.
pub fn library_available() -> bool {
    wayland_sys::client::is_lib_available()
}

fn lost(what: &str, e: impl std::fmt::Display) -> vk::Result {
    eprintln!("agx4: Wayland {what} failed ({e}); the surface is lost");
    vk::Result::ERROR_SURFACE_LOST_KHR
}

/// An application's wl_surface on its wl_display.
pub struct Window {
    display: usize,
    surface: usize,
    /// agx4's connection object on the application's display, made on first use so that
    /// creating a surface cannot fail.
    conn: OnceLock<Option<Connection>>,
}

impl Window {
    /// # Safety
    /// `display` and `surface` must be null or live for the window's life (valid usage: the
    /// display and surface outlive the VkSurfaceKHR).
    pub unsafe fn new(display: *mut c_void, surface: *mut c_void) -> Window {
        Window {
            display: display as usize,
            surface: surface as usize,
            conn: OnceLock::new(),
        }
    }

    pub fn conn(&self) -> Result<&Connection, vk::Result> {
        self.conn
            .get_or_init(|| {
                if self.display == 0 || self.surface == 0 || !library_available() {
                    eprintln!("agx4: no wl_display, wl_surface or libwayland-client");
                    return None;
                }
                // SAFETY: the display is live for the window's life (see `new`); the backend
                // does not take ownership of a foreign display, it only adds its own queue.
                let backend = unsafe { WlBackend::from_foreign_display(self.display as *mut _) };
                Some(Connection::from_backend(backend))
            })
            .as_ref()
            .ok_or(vk::Result::ERROR_SURFACE_LOST_KHR)
    }

    /// The application's wl_surface as a proxy agx4 can send requests on.
    fn surface(&self, conn: &Connection) -> Result<WlSurface, vk::Result> {
        // SAFETY: the surface pointer is a live wl_proxy for the window's life (see `new`);
        // from_ptr checks that it is a wl_surface.
        let id = unsafe { ObjectId::from_ptr(WlSurface::interface(), self.surface as *mut _) }
            .map_err(|e| lost("taking the wl_surface", e))?;
        WlSurface::from_id(conn, id).map_err(|e| lost("taking the wl_surface", e))
    }

    /// SURFACE_LOST once the connection broke. Reads what the socket holds, without
    /// blocking, so a compositor that went away is noticed even between presents.
    pub fn check(&self) -> Result<(), vk::Result> {
        let conn = self.conn()?;
        if let Some(e) = conn.protocol_error() {
            return Err(lost("protocol", format!("{e:?}")));
        }
        match conn.prepare_read() {
            Some(guard) => {
                if readable(guard.connection_fd().as_raw_fd(), 0)? {
                    guard
                        .read()
                        .or_else(ignore_would_block)
                        .map_err(|e| lost("reading", e))?;
                }
            }
            // Events are queued already, or the display has an error: dispatching says which.
            None => {
                conn.backend()
                    .dispatch_inner_queue()
                    .map_err(|e| lost("dispatching", e))?;
            }
        }
        Ok(())
    }
}

fn ignore_would_block(e: WaylandError) -> Result<usize, WaylandError> {
    match &e {
        WaylandError::Io(io) if io.kind() == std::io::ErrorKind::WouldBlock => Ok(0),
        _ => Err(e),
    }
}

/// Whether `fd` becomes readable (or hung up) within `ms` milliseconds.
fn readable(fd: i32, ms: i32) -> Result<bool, vk::Result> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    let r = unsafe { libc::poll(&mut pfd, 1, ms) };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(lost("poll", e));
    }
    Ok(r > 0)
}

/// What agx4's queue has been told.
#[derive(Default)]
struct Events {
    /// wl_shm's global name.
    shm: Option<u32>,
    synced: bool,
    /// Whether the compositor holds each buffer (attached and not yet released).
    busy: Vec<bool>,
    /// The newest frame callback that fired (callbacks are numbered from 1).
    frame_done: u64,
}

#[derive(Clone, Copy)]
enum Callback {
    Sync,
    Frame(u64),
}

impl Dispatch<WlRegistry, ()> for Events {
    fn event(
        state: &mut Self,
        _: &WlRegistry,
        event: wl_registry::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_registry::Event::Global {
            name, interface, ..
        } = event
        {
            if interface == "wl_shm" && state.shm.is_none() {
                state.shm = Some(name);
            }
        }
    }
}

impl Dispatch<WlCallback, Callback> for Events {
    fn event(
        state: &mut Self,
        _: &WlCallback,
        event: wl_callback::Event,
        data: &Callback,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_callback::Event::Done { .. } = event {
            match *data {
                Callback::Sync => state.synced = true,
                Callback::Frame(n) => state.frame_done = state.frame_done.max(n),
            }
        }
    }
}

impl Dispatch<WlBuffer, usize> for Events {
    fn event(
        state: &mut Self,
        _: &WlBuffer,
        event: wl_buffer::Event,
        index: &usize,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_buffer::Event::Release = event {
            if let Some(b) = state.busy.get_mut(*index) {
                *b = false;
            }
        }
    }
}

impl Dispatch<WlShm, ()> for Events {
    fn event(
        _: &mut Self,
        _: &WlShm,
        _: wl_shm::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // The formats it lists always include XRGB8888, the one agx4 writes.
    }
}

impl Dispatch<WlShmPool, ()> for Events {
    fn event(
        _: &mut Self,
        _: &WlShmPool,
        _: <WlShmPool as Proxy>::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
    }
}

/// A shared mapping of a memfd, unmapped on drop.
struct Mapping {
    addr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by this value and only touched through it, by the one
// presenter thread that owns the value at a time.
unsafe impl Send for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `addr`/`len` are this value's own mapping, unmapped once here.
        unsafe { libc::munmap(self.addr.cast(), self.len) };
    }
}

struct ShmBuffer {
    map: Mapping,
    pool: WlShmPool,
    buffer: WlBuffer,
}

/// Copies presented images into wl_shm buffers of a Wayland surface.
pub struct Presenter {
    conn: Connection,
    queue: EventQueue<Events>,
    events: Events,
    surface: WlSurface,
    shm: WlShm,
    buffers: Vec<ShmBuffer>,
    extent: vk::Extent2D,
    fifo: bool,
    /// The number of the last frame callback asked for (0: none yet).
    frame_asked: u64,
    /// Whether the compositor answers frame callbacks (see the module notes).
    repainted: bool,
}

impl Presenter {
    pub fn new(
        window: &Window,
        extent: vk::Extent2D,
        mode: vk::PresentModeKHR,
    ) -> Result<Self, vk::Result> {
        let conn = window.conn()?.clone();
        let surface = window.surface(&conn)?;
        let mut queue = conn.new_event_queue::<Events>();
        let qh = queue.handle();
        let mut events = Events::default();
        let registry = conn.display().get_registry(&qh, ());
        conn.display().sync(&qh, Callback::Sync);
        if !dispatch_until(&conn, &mut queue, &mut events, ROUND_TRIP, |e| e.synced)? {
            return Err(lost("registry round trip", "no answer"));
        }
        let name = events
            .shm
            .ok_or_else(|| lost("binding wl_shm", "the compositor has no wl_shm"))?;
        let shm = registry.bind::<WlShm, _, _>(name, 1, &qh, ());
        Ok(Presenter {
            conn,
            queue,
            events,
            surface,
            shm,
            buffers: Vec::new(),
            extent,
            fifo: matches!(
                mode,
                vk::PresentModeKHR::FIFO | vk::PresentModeKHR::FIFO_RELAXED
            ),
            frame_asked: 0,
            repainted: true,
        })
    }

    fn wait(
        &mut self,
        limit: Duration,
        done: impl Fn(&Events) -> bool,
    ) -> Result<bool, vk::Result> {
        dispatch_until(&self.conn, &mut self.queue, &mut self.events, limit, done)
    }

    fn new_buffer(&mut self) -> Result<usize, vk::Result> {
        let (w, h) = (self.extent.width, self.extent.height);
        let stride = w as usize * 4;
        let len = stride * h as usize;
        let size = i32::try_from(len).map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        // SAFETY: memfd_create with a NUL-terminated name; the fd is owned from here on.
        let fd = unsafe { libc::memfd_create(c"agx4-wl-shm".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        // SAFETY: `fd` is a fresh descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: plain calls on our own memfd; the mapping is checked before use.
        let addr = unsafe {
            if libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) != 0 {
                return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            }
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        let map = Mapping {
            addr: addr.cast(),
            len,
        };
        let qh = self.queue.handle();
        let index = self.buffers.len();
        // The compositor gets its own copy of the fd; ours closes when `fd` drops.
        let pool = self.shm.create_pool(fd.as_fd(), size, &qh, ());
        let buffer = pool.create_buffer(
            0,
            w as i32,
            h as i32,
            stride as i32,
            wl_shm::Format::Xrgb8888,
            &qh,
            index,
        );
        self.buffers.push(ShmBuffer { map, pool, buffer });
        self.events.busy.push(false);
        Ok(index)
    }

    /// A buffer the compositor does not hold, or `None` if none came free in time.
    fn free_buffer(&mut self) -> Result<Option<usize>, vk::Result> {
        if let Some(i) = self.events.busy.iter().position(|b| !b) {
            return Ok(Some(i));
        }
        if self.buffers.len() < MAX_BUFFERS {
            return self.new_buffer().map(Some);
        }
        self.wait(RELEASE_WAIT, |e| e.busy.iter().any(|b| !b))?;
        Ok(self.events.busy.iter().position(|b| !b))
    }
}

/// Dispatches agx4's queue until `done` or `limit` passes; `Ok(false)` on time-out.
fn dispatch_until(
    conn: &Connection,
    queue: &mut EventQueue<Events>,
    events: &mut Events,
    limit: Duration,
    done: impl Fn(&Events) -> bool,
) -> Result<bool, vk::Result> {
    let deadline = Instant::now() + limit;
    loop {
        queue
            .dispatch_pending(events)
            .map_err(|e| lost("dispatching", e))?;
        if done(events) {
            return Ok(true);
        }
        conn.flush()
            .map(|_| 0)
            .or_else(ignore_would_block)
            .map_err(|e| lost("flushing", e))?;
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        // `None`: events are already queued (or the display failed); dispatching says which.
        let Some(guard) = queue.prepare_read() else {
            continue;
        };
        let ms = (deadline - now).as_millis().clamp(1, i32::MAX as u128) as i32;
        if readable(guard.connection_fd().as_raw_fd(), ms)? {
            guard
                .read()
                .or_else(ignore_would_block)
                .map_err(|e| lost("reading", e))?;
        }
    }
}

impl Backend for Presenter {
    fn show(&mut self, image: &PresentImage<'_>) -> Result<(), vk::Result> {
        // Releases and frame callbacks that came meanwhile, and a compositor that went away.
        self.wait(Duration::ZERO, |_| false)?;
        if self.fifo && self.frame_asked != 0 {
            let asked = self.frame_asked;
            if self.repainted {
                self.repainted = self.wait(FRAME_WAIT, |e| e.frame_done >= asked)?;
            } else {
                self.repainted = self.events.frame_done >= asked;
            }
        }
        let Some(i) = self.free_buffer()? else {
            eprintln!("agx4: the compositor holds every wl_shm buffer; a frame is dropped");
            return Ok(());
        };
        let (w, h) = (self.extent.width, self.extent.height);
        let b = &mut self.buffers[i];
        // SAFETY: the mapping is `len` bytes, owned by the buffer, and the compositor does not
        // read it now (released or never attached).
        let dst = unsafe { std::slice::from_raw_parts_mut(b.map.addr, b.map.len) };
        detile(image, XRGB8888, dst, w, h);
        let surface = &self.surface;
        surface.attach(Some(&b.buffer), 0, 0);
        // damage_buffer (wl_surface 4) takes buffer coordinates, as the rectangles are;
        // older surfaces take surface coordinates, the same at the scale agx4 leaves alone.
        let damage = |x: i32, y: i32, dw: i32, dh: i32| {
            if surface.version() >= 4 {
                surface.damage_buffer(x, y, dw, dh)
            } else {
                surface.damage(x, y, dw, dh)
            }
        };
        let rects = super::clip_damage(image.damage, self.extent);
        if rects.is_empty() {
            damage(0, 0, w as i32, h as i32);
        }
        for r in rects {
            damage(
                r.offset.x,
                r.offset.y,
                r.extent.width as i32,
                r.extent.height as i32,
            );
        }
        if self.fifo {
            self.frame_asked += 1;
            surface.frame(&self.queue.handle(), Callback::Frame(self.frame_asked));
        }
        surface.commit();
        self.events.busy[i] = true;
        self.conn
            .flush()
            .map(|_| 0)
            .or_else(ignore_would_block)
            .map_err(|e| lost("flushing", e))?;
        Ok(())
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        for b in self.buffers.drain(..) {
            b.buffer.destroy();
            b.pool.destroy();
        }
        let _ = self.conn.flush();
    }
}
