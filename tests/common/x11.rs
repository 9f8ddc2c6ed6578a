//! An Xvfb server of the test's own, and the X11 windows the WSI tests present to.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{self, ConnectionExt as _};
use x11rb::xcb_ffi::XCBConnection;

/// An Xvfb on a display number it picked itself (`-displayfd`), killed when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Xvfb {
    /// Starts Xvfb, or returns `None` (after saying so) when it is not installed:
    /// scripts/deps.sh installs it.
    pub fn start() -> Option<Xvfb> {
        let spawned = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "800x600x24",
                "-nolisten",
                "tcp",
                // Not reset when the last client leaves: a test that connects during the
                // reset would get a broken connection.
                "-noreset",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("SKIPPED: Xvfb is not installed (scripts/deps.sh installs xvfb)");
                return None;
            }
            Err(e) => panic!("cannot start Xvfb: {e}"),
        };
        // Xvfb writes its display number and a newline once it accepts connections.
        let mut out = child.stdout.take().expect("Xvfb's stdout");
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        assert!(!number.is_empty(), "Xvfb did not report a display number");
        Some(Xvfb {
            child,
            display: format!(":{}", number.trim()),
        })
    }

    pub fn connect(&self) -> XCBConnection {
        let name = std::ffi::CString::new(self.display.clone()).unwrap();
        XCBConnection::connect(Some(&name))
            .expect("connecting to Xvfb")
            .0
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A mapped top-level window of `width` x `height` with a black background.
pub fn create_window(conn: &XCBConnection, width: u16, height: u16) -> u32 {
    let screen = &conn.setup().roots[0];
    let win = conn.generate_id().unwrap();
    conn.create_window(
        x11rb::COPY_DEPTH_FROM_PARENT,
        win,
        screen.root,
        0,
        0,
        width,
        height,
        0,
        xproto::WindowClass::INPUT_OUTPUT,
        screen.root_visual,
        &xproto::CreateWindowAux::new().background_pixel(screen.black_pixel),
    )
    .unwrap()
    .check()
    .unwrap();
    conn.map_window(win).unwrap().check().unwrap();
    win
}

pub fn resize_window(conn: &XCBConnection, win: u32, width: u32, height: u32) {
    conn.configure_window(
        win,
        &xproto::ConfigureWindowAux::new()
            .width(width)
            .height(height),
    )
    .unwrap()
    .check()
    .unwrap();
}

/// The window's pixels as 0xRRGGBB words (Xvfb's 24-bit visual: 32-bit little-endian pixels).
pub fn read_window(conn: &XCBConnection, win: u32, width: u16, height: u16) -> Vec<u32> {
    let img = conn
        .get_image(xproto::ImageFormat::Z_PIXMAP, win, 0, 0, width, height, !0)
        .unwrap()
        .reply()
        .unwrap();
    img.data
        .chunks_exact(4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0]))
        .collect()
}

/// Polls the window until every pixel is `rgb` (the presenter shows images asynchronously);
/// returns the last pixels read.
pub fn wait_for_colour(
    conn: &XCBConnection,
    win: u32,
    width: u16,
    height: u16,
    rgb: u32,
) -> Vec<u32> {
    let start = std::time::Instant::now();
    loop {
        let px = read_window(conn, win, width, height);
        if px.iter().all(|&p| p == rgb) || start.elapsed() > std::time::Duration::from_secs(10) {
            return px;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
