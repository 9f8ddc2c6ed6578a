//! `cargo build --release && cargo bench --bench vkcube`: Debian's vkcube on agx4 and on
//! lavapipe, in the same run under one Xvfb, with present mode IMMEDIATE (`--present_mode 0`)
//! so neither is held to the presenter's 60 Hz clock; prints frames per second side by side
//! and their ratio. Figures, not assertions.
//!
//! Each driver runs vkcube for 1 frame and for N frames (`AGX4_BENCH_FRAMES`, default 300),
//! each the best of three runs: process start-up varies by tens of milliseconds on a shared
//! machine, as much as a hundred of lavapipe's frames. The frame rate is (N - 1) / (time of
//! the N-frame run - time of the 1-frame run), so instance/device creation, shader
//! compilation and texture upload, which are the same in both runs, drop out and the figure
//! is that of steady-state frames; the plain N / wall time of the N-frame run is printed
//! too. agx4 is the release library,
//! `target/release/libvulkan_agx4.so`, named by a manifest of this bench's own.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

/// An Xvfb on a display it picks itself (`-displayfd`), killed (by its pid) when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "800x600x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start Xvfb (scripts/deps.sh installs xvfb)");
        // Xvfb writes its display number and a newline once it accepts connections.
        let mut out = child.stdout.take().unwrap();
        let mut number = String::new();
        let mut byte = [0u8; 1];
        while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
            number.push(byte[0] as char);
        }
        assert!(!number.is_empty(), "Xvfb did not report a display number");
        Xvfb {
            child,
            display: format!(":{}", number.trim()),
        }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wall time of `vkcube --present_mode 0 --c frames` on the driver of `manifest`.
fn time_vkcube(display: &str, manifest: &Path, frames: u32) -> Duration {
    let start = Instant::now();
    let out = Command::new("vkcube")
        .args(["--present_mode", "0", "--c", &frames.to_string()])
        .env("DISPLAY", display)
        .env("VK_DRIVER_FILES", manifest)
        .env("NODEVICE_SELECT", "1")
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("VK_INSTANCE_LAYERS")
        .stdin(Stdio::null())
        .output()
        .expect("cannot run vkcube (scripts/deps.sh installs vulkan-tools)");
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "vkcube failed on {}: {}{}",
        manifest.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

struct Figures {
    steady_fps: f64,
    wall_fps: f64,
    startup: Duration,
}

/// The shortest of three runs.
fn best_of_three(display: &str, manifest: &Path, frames: u32) -> Duration {
    (0..3)
        .map(|_| time_vkcube(display, manifest, frames))
        .min()
        .unwrap_or_default()
}

fn measure(display: &str, manifest: &Path, frames: u32) -> Figures {
    let one = best_of_three(display, manifest, 1);
    let n = best_of_three(display, manifest, frames);
    let steady = n.saturating_sub(one).as_secs_f64();
    Figures {
        steady_fps: if steady > 0.0 {
            f64::from(frames - 1) / steady
        } else {
            f64::INFINITY
        },
        wall_fps: f64::from(frames) / n.as_secs_f64(),
        startup: one,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; this program takes no arguments of its own.
    let frames: u32 = std::env::var("AGX4_BENCH_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
        .max(2);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let lib = target.join("release/libvulkan_agx4.so");
    assert!(
        lib.exists(),
        "{} is missing: run `cargo build --release` first",
        lib.display()
    );
    let dir = std::env::temp_dir().join(format!("agx4-bench-vkcube-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("agx4_icd.json");
    std::fs::write(
        &manifest,
        format!(
            r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
            lib.display()
        ),
    )
    .unwrap();

    let xvfb = Xvfb::start();
    println!(
        "vkcube, 500x500, --present_mode 0 (IMMEDIATE), {frames} frames, Xvfb {}",
        xvfb.display
    );
    let agx4 = measure(&xvfb.display, &manifest, frames);
    let lvp = measure(&xvfb.display, Path::new(LAVAPIPE_MANIFEST), frames);
    println!(
        "{:<28} {:>12} {:>12} {:>12}",
        "", "agx4", "lavapipe", "agx4/lvp"
    );
    println!(
        "{:<28} {:>12.2} {:>12.2} {:>12.4}",
        "frames/s (steady state)",
        agx4.steady_fps,
        lvp.steady_fps,
        agx4.steady_fps / lvp.steady_fps
    );
    println!(
        "{:<28} {:>12.2} {:>12.2} {:>12.4}",
        "frames/s (N / wall time)",
        agx4.wall_fps,
        lvp.wall_fps,
        agx4.wall_fps / lvp.wall_fps
    );
    println!(
        "{:<28} {:>12.2} {:>12.2}",
        "1-frame run, s",
        agx4.startup.as_secs_f64(),
        lvp.startup.as_secs_f64()
    );
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
}
