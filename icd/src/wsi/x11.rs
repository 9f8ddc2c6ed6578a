//! X11 surfaces (VK_KHR_xcb_surface, VK_KHR_xlib_surface) and their copy back end.
//!
//! agx4 talks to the X server through the application's own xcb connection (an Xlib
//! `Display` gives its xcb connection through XGetXCBConnection), as Mesa does: the window
//! lives on that connection's server, and libxcb is thread-safe. Every request agx4 sends is
//! checked, so X errors come back to agx4 as values and never reach the application's event
//! queue or Xlib's error handler. A window that is gone (or a connection that broke) makes the
//! surface lost.
//!
//! Presenting copies the image into a MIT-SHM segment and draws it with ShmPutImage, or, when
//! the server cannot attach the segment (a remote server), sends it with PutImage in pieces
//! under the maximum request size. Each copy ends with a round trip, so the server has read
//! the pixels before the image (or the segment) is written again. With VK_KHR_incremental_present
//! rectangles, only their bounding box is copied into the segment (which holds the last
//! image shown) and drawn.

use super::{bounding_box, clip_damage, detile, detile_rect, Backend, PixelFormat, PresentImage};
use ash::vk;
use std::ffi::c_void;
use std::sync::OnceLock;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::errors::{ReplyError, ReplyOrIdError};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{self, ConnectionExt as _, ImageOrder, VisualClass};
use x11rb::xcb_ffi::XCBConnection;

/// An X11 window, reached through the application's connection.
pub struct Window {
    /// The application's `xcb_connection_t*`, wrapped on first use: creating a surface
    /// cannot fail over a connection that is broken (the surface is lost instead).
    raw: usize,
    conn: OnceLock<Option<XCBConnection>>,
    pub window: u32,
}

/// Why a request failed: the window or connection is gone, so the surface is lost.
fn lost(what: &str, e: impl std::fmt::Display) -> vk::Result {
    eprintln!("agx4: X11 {what} failed ({e}); the surface is lost");
    vk::Result::ERROR_SURFACE_LOST_KHR
}

/// Wraps the application's xcb connection without taking ownership of it.
///
/// # Safety
/// `conn` must be a live `xcb_connection_t*` that outlives the returned wrapper (valid usage:
/// the connection outlives the surfaces made on it).
pub unsafe fn wrap(conn: *mut c_void) -> Result<XCBConnection, vk::Result> {
    if conn.is_null() {
        return Err(vk::Result::ERROR_SURFACE_LOST_KHR);
    }
    // SAFETY: guaranteed by the caller; `false`: the application keeps ownership.
    unsafe { XCBConnection::from_raw_xcb_connection(conn, false) }.map_err(|e| {
        eprintln!("agx4: cannot use the application's xcb connection: {e}");
        vk::Result::ERROR_SURFACE_LOST_KHR
    })
}

/// The xcb connection behind an Xlib `Display*`, through libX11-xcb's XGetXCBConnection.
/// libX11-xcb is loaded when first needed rather than linked: an application that uses Xlib
/// has libX11 loaded already, and agx4 need not depend on X libraries otherwise.
pub fn xcb_of_display(dpy: *mut c_void) -> Option<*mut c_void> {
    type GetXcb = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
    static FUNC: OnceLock<Option<GetXcb>> = OnceLock::new();
    let f = FUNC.get_or_init(|| {
        // SAFETY: dlopen/dlsym with NUL-terminated names; the library stays loaded for the
        // process's life (never dlclosed), so the function pointer stays valid.
        unsafe {
            let lib = libc::dlopen(
                c"libX11-xcb.so.1".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_LOCAL,
            );
            if lib.is_null() {
                eprintln!("agx4: libX11-xcb.so.1 is missing: Xlib surfaces are unavailable");
                return None;
            }
            let sym = libc::dlsym(lib, c"XGetXCBConnection".as_ptr());
            (!sym.is_null()).then(|| std::mem::transmute::<*mut c_void, GetXcb>(sym))
        }
    });
    if dpy.is_null() {
        return None;
    }
    // SAFETY: `dpy` is the application's live Display (valid usage), which is what
    // XGetXCBConnection takes.
    let c = unsafe { (*f)?(dpy) };
    (!c.is_null()).then_some(c)
}

/// The pixel format and depth of a visual agx4 can draw into: TrueColor or DirectColor with
/// 8-bit channels in 32-bit pixels. `None` for any other visual.
pub fn visual_format(setup: &xproto::Setup, visual: u32) -> Option<(PixelFormat, u8)> {
    let (depth, v) = setup.roots.iter().find_map(|s| {
        s.allowed_depths.iter().find_map(|d| {
            d.visuals
                .iter()
                .find(|v| v.visual_id == visual)
                .map(|v| (d.depth, *v))
        })
    })?;
    if v.class != VisualClass::TRUE_COLOR && v.class != VisualClass::DIRECT_COLOR {
        return None;
    }
    let bpp = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == depth)?
        .bits_per_pixel;
    if bpp != 32 {
        return None;
    }
    let shift = |mask: u32| {
        (mask.count_ones() == 8 && (mask >> mask.trailing_zeros()) == 0xff)
            .then(|| mask.trailing_zeros())
    };
    let fmt = PixelFormat {
        red_shift: shift(v.red_mask)?,
        green_shift: shift(v.green_mask)?,
        blue_shift: shift(v.blue_mask)?,
        // Bits beyond the colour channels of a 32-deep visual are its alpha: opaque.
        opaque_bits: if depth == 32 {
            !(v.red_mask | v.green_mask | v.blue_mask)
        } else {
            0
        },
        big_endian: setup.image_byte_order == ImageOrder::MSB_FIRST,
    };
    Some((fmt, depth))
}

impl Window {
    /// # Safety
    /// `raw` must be null or a live `xcb_connection_t*` that outlives the window (valid
    /// usage: the connection outlives the surfaces made on it).
    pub unsafe fn new(raw: *mut c_void, window: u32) -> Window {
        Window {
            raw: raw as usize,
            conn: OnceLock::new(),
            window,
        }
    }

    /// The application's connection, or SURFACE_LOST if x11rb cannot use it.
    pub fn conn(&self) -> Result<&XCBConnection, vk::Result> {
        self.conn
            // SAFETY: `raw` is null or live for the window's life (see `new`).
            .get_or_init(|| unsafe { wrap(self.raw as *mut c_void) }.ok())
            .as_ref()
            .ok_or(vk::Result::ERROR_SURFACE_LOST_KHR)
    }

    /// The window's size now.
    pub fn extent(&self) -> Result<vk::Extent2D, vk::Result> {
        let g = self
            .conn()?
            .get_geometry(self.window)
            .map_err(|e| lost("GetGeometry", e))?
            .reply()
            .map_err(|e| lost("GetGeometry", e))?;
        Ok(vk::Extent2D {
            width: u32::from(g.width),
            height: u32::from(g.height),
        })
    }

    /// The window's pixel format and depth, or `None` if agx4 cannot draw into its visual.
    pub fn format(&self) -> Result<Option<(PixelFormat, u8)>, vk::Result> {
        let a = self
            .conn()?
            .get_window_attributes(self.window)
            .map_err(|e| lost("GetWindowAttributes", e))?
            .reply()
            .map_err(|e| lost("GetWindowAttributes", e))?;
        Ok(visual_format(self.conn()?.setup(), a.visual))
    }
}

/// A System V shared memory segment attached to the X server.
struct Shm {
    addr: *mut u8,
    size: usize,
    seg: u32,
}

// SAFETY: the segment's memory is owned by this value and only touched through it, by the
// one presenter thread that owns the value at a time.
unsafe impl Send for Shm {}

impl Shm {
    /// A segment of `size` bytes that the server has attached, or `None` if MIT-SHM is not
    /// usable (no extension, a remote server, no memory).
    fn new(conn: &XCBConnection, size: usize) -> Option<Shm> {
        if crate::debug::get().no_shm {
            return None;
        }
        conn.extension_information(shm::X11_EXTENSION_NAME).ok()??;
        conn.shm_query_version().ok()?.reply().ok()?;
        // SAFETY: plain System V calls; the segment is private to this process until the
        // server attaches it, and is marked for removal as soon as it has (it lives on until
        // both sides detach), so it cannot leak past the process.
        unsafe {
            let id = libc::shmget(libc::IPC_PRIVATE, size, libc::IPC_CREAT | 0o600);
            if id < 0 {
                return None;
            }
            let addr = libc::shmat(id, std::ptr::null(), 0);
            if addr as isize == -1 {
                libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
                return None;
            }
            let attached = conn.generate_id().ok().and_then(|seg| {
                conn.shm_attach(seg, id as u32, false)
                    .ok()?
                    .check()
                    .ok()
                    .map(|_| seg)
            });
            libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
            match attached {
                Some(seg) => Some(Shm {
                    addr: addr.cast(),
                    size,
                    seg,
                }),
                None => {
                    // The segment goes away with this, its only attachment.
                    libc::shmdt(addr);
                    None
                }
            }
        }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `addr` is the attached segment of `size` bytes, alive as long as `self`.
        unsafe { std::slice::from_raw_parts_mut(self.addr, self.size) }
    }
}

/// Copies presented images into an X11 window.
pub struct Presenter {
    window: std::sync::Arc<Window>,
    gc: u32,
    depth: u8,
    format: PixelFormat,
    width: u32,
    height: u32,
    shm: Option<Shm>,
    /// Whether the segment holds the last image shown (so damage alone can update it).
    shm_filled: bool,
    /// The pixels for PutImage when there is no shared memory.
    staging: Vec<u8>,
}

impl Presenter {
    /// A presenter of `extent`-sized images into the window.
    pub fn new(window: std::sync::Arc<Window>, extent: vk::Extent2D) -> Result<Self, vk::Result> {
        let (format, depth) = window.format()?.ok_or_else(|| {
            eprintln!("agx4: the window's visual is not a 32-bit TrueColor one");
            vk::Result::ERROR_SURFACE_LOST_KHR
        })?;
        let conn = window.conn()?;
        let gc = conn
            .generate_id()
            .map_err(|e: ReplyOrIdError| lost("generating an id", e))?;
        conn.create_gc(
            gc,
            window.window,
            &xproto::CreateGCAux::new().graphics_exposures(0),
        )
        .map_err(|e| lost("CreateGC", e))?
        .check()
        .map_err(|e| lost("CreateGC", e))?;
        let size = extent.width as usize * extent.height as usize * 4;
        let shm = Shm::new(conn, size);
        let staging = if shm.is_some() {
            Vec::new()
        } else {
            vec![0; size]
        };
        Ok(Presenter {
            window,
            gc,
            depth,
            format,
            width: extent.width,
            height: extent.height,
            shm,
            shm_filled: false,
            staging,
        })
    }

    /// PutImage in bands of rows, each request under the server's maximum request size.
    fn put_image(&self) -> Result<(), vk::Result> {
        let conn = self.window.conn()?;
        let stride = self.width as usize * 4;
        // PutImage's fixed part is 24 bytes.
        let rows = ((conn.maximum_request_bytes().saturating_sub(24)) / stride).max(1);
        let mut y = 0usize;
        let mut last = None;
        while y < self.height as usize {
            let n = rows.min(self.height as usize - y);
            let data = &self.staging[y * stride..(y + n) * stride];
            let cookie = conn
                .put_image(
                    xproto::ImageFormat::Z_PIXMAP,
                    self.window.window,
                    self.gc,
                    self.width as u16,
                    n as u16,
                    0,
                    y as i16,
                    0,
                    self.depth,
                    data,
                )
                .map_err(|e| lost("PutImage", e))?;
            // Only the last band is checked: its round trip also returns any error of the
            // bands before it, which were sent without waiting.
            if let Some(prev) = last.replace(cookie) {
                prev.ignore_error();
            }
            y += n;
        }
        if let Some(c) = last {
            c.check().map_err(|e| lost("PutImage", e))?;
        }
        Ok(())
    }
}

impl Backend for Presenter {
    fn show(&mut self, image: &PresentImage<'_>) -> Result<(), vk::Result> {
        let (w, h, format) = (self.width, self.height, self.format);
        match &mut self.shm {
            Some(shm) => {
                let all = vk::Rect2D {
                    offset: vk::Offset2D::default(),
                    extent: vk::Extent2D {
                        width: w,
                        height: h,
                    },
                };
                let rect = match bounding_box(&clip_damage(image.damage, all.extent)) {
                    Some(r) if self.shm_filled => r,
                    _ => all,
                };
                detile_rect(image, format, shm.bytes(), w, rect);
                self.shm_filled = true;
                let (x, y) = (rect.offset.x as u16, rect.offset.y as u16);
                let (rw, rh) = (rect.extent.width as u16, rect.extent.height as u16);
                let window = &self.window;
                window
                    .conn()?
                    .shm_put_image(
                        window.window,
                        self.gc,
                        w as u16,
                        h as u16,
                        x,
                        y,
                        rw,
                        rh,
                        x as i16,
                        y as i16,
                        self.depth,
                        xproto::ImageFormat::Z_PIXMAP.into(),
                        false,
                        shm.seg,
                        0,
                    )
                    .map_err(|e| lost("ShmPutImage", e))?
                    // The round trip: the server has copied the segment when it returns.
                    .check()
                    .map_err(|e: ReplyError| lost("ShmPutImage", e))
            }
            None => {
                detile(image, format, &mut self.staging, w, h);
                self.put_image()
            }
        }
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        let Ok(conn) = self.window.conn() else { return };
        // Errors do not matter here: a window that is gone took the GC with it, and a
        // broken connection took the server's attachment.
        let _ = conn.free_gc(self.gc).map(|c| c.ignore_error());
        if let Some(shm) = self.shm.take() {
            let _ = conn.shm_detach(shm.seg).map(|c| c.ignore_error());
        }
        let _ = conn.flush();
    }
}

impl Drop for Shm {
    fn drop(&mut self) {
        // SAFETY: `addr` is this process's attachment of the segment, detached once here;
        // the segment was marked for removal when it was attached, so it goes away once the
        // server has detached too.
        unsafe { libc::shmdt(self.addr.cast()) };
    }
}
