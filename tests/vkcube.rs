//! Debian's vkcube (vulkan-tools) on agx4, under an Xvfb of each test's own: it runs to the end,
//! it says nothing under the validation layer, vkcubepp (the C++ one) runs, and a frame of it
//! matches the same frame from lavapipe.
//!
//! The frame comparison uses gfxreconstruct: one vkcube run on agx4 is captured with the capture
//! layer, and that one capture is replayed on agx4 and on lavapipe with a screenshot of the same
//! frame. A single capture (rather than one per driver) gives both replays the very same
//! commands and buffer contents, including vkcube's per-frame uniform buffer with the spin
//! angle, so any difference comes from the drivers' rendering and nothing else; capturing on
//! agx4 also puts agx4 under the capture layer, and lavapipe replays an agx4 capture fine (the
//! replayer maps the memory types).
//!
//! Every test skips, saying so, when a Debian tool it needs is missing (scripts/deps.sh installs
//! them all). The driver is the one cargo built, `target/<profile>/libvulkan_agx4.so`.

mod common;

use common::x11::Xvfb;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const VALIDATION_LAYER_MANIFEST: &str =
    "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";
/// The simulated GPU draws vkcube's 500x500 frames at about one a second in a debug build.
const TIMEOUT: Duration = Duration::from_secs(1200);

/// The frame whose screenshots are compared, and how many frames the capture records (a few
/// past it, so the screenshot frame is an ordinary mid-run frame, not the last).
const SCREENSHOT_FRAME: u32 = 5;
const CAPTURE_FRAMES: u32 = 8;
/// Per-channel tolerance (in codes of 255) and how many pixels may exceed it. Measured on this
/// frame: 21 of its 250,000 pixels differ at all, 17 of them by 1 or 2 codes (interpolated
/// colours rounded to UNORM8 differently), and 4 by 9 to 91 codes, all on the cube's silhouette
/// where a pixel centre lies on or next to an edge and the two rasterizers' fixed-point edge
/// equations disagree. The bound allows four times the edge pixels measured; a wrong
/// transform, face, texture coordinate or colour changes thousands (the next frame, one spin
/// step on, differs from this one by more than 2/255 in 25,381 pixels).
const TOLERANCE: u8 = 2;
const MAX_EDGE_PIXELS: usize = 16;

/// The path of `name` on PATH, or `None` after saying the test skips.
fn tool(name: &str, package: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        eprintln!("SKIPPED: {name} is not installed (scripts/deps.sh installs {package})");
    }
    found
}

/// A manifest for the library cargo built, in a directory of this test's own.
fn agx4_manifest(dir: &Path) -> PathBuf {
    let manifest = dir.join("agx4_icd.json");
    let json = format!(
        r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
        common::library_path().display()
    );
    std::fs::write(&manifest, json).unwrap();
    manifest
}

fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agx4-vkcube-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A command on `display` whose loader sees only the driver of `manifest`, with no layer
/// unless the caller adds one.
fn vk_command(program: &Path, display: &str, manifest: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("DISPLAY", display)
        .env("VK_DRIVER_FILES", manifest)
        .env("NODEVICE_SELECT", "1")
        .env("AGX4_KMD", "sim")
        .env_remove("VK_ICD_FILENAMES")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VK_LOADER_LAYERS_ENABLE")
        .stdin(Stdio::null());
    cmd
}

/// Runs `cmd` to completion, killing it (by its own pid) if it outlives `TIMEOUT`, so a hung
/// presenter fails the test instead of hanging it.
fn run(mut cmd: Command) -> Output {
    let what = format!("{cmd:?}");
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let start = Instant::now();
    match rx.recv_timeout(TIMEOUT) {
        Ok(out) => {
            let out = out.unwrap();
            eprintln!("{what}: {:?} in {:.1?}", out.status, start.elapsed());
            out
        }
        Err(_) => {
            // SAFETY: kill(2) on the pid of our own child, which has not been reaped (the
            // waiting thread is still blocked in wait).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{what} did not finish in {TIMEOUT:?}");
        }
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\n{}",
        out.status,
        text(out)
    );
}

/// The validation messages in vkcube's output. vkcube's debug-utils callback prints each one
/// as `ERROR : VALIDATION - Message Id Number: ...` (or `WARNING :`, `INFO :`, `VERBOSE :`,
/// after its severity), and the layer's own text names a VUID or says `Validation Error` /
/// `Validation Warning`; any of these counts, so a message the callback words differently is
/// still caught by the layer's part.
fn validation_messages(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            ["ERROR", "WARNING", "INFO", "VERBOSE", "PERFORMANCE"]
                .iter()
                .any(|s| t.starts_with(s) && t[s.len()..].trim_start().starts_with(':'))
                || t.contains("VUID-")
                || t.contains("Validation Error")
                || t.contains("Validation Warning")
        })
        .collect()
}

#[test]
fn vkcube_runs_300_frames() {
    let Some(vkcube) = tool("vkcube", "vulkan-tools") else {
        return;
    };
    let Some(xvfb) = Xvfb::start() else { return };
    let dir = scratch_dir("300");
    let mut cmd = vk_command(&vkcube, &xvfb.display, &agx4_manifest(&dir));
    // A 160x160 window: the simulated GPU shades every pixel on the CPU, and 300 frames at
    // vkcube's default 500x500 take minutes of a debug build; the frame count is what this
    // test is about (swapchain images cycle through acquire and present 300 times).
    cmd.args(["--c", "300", "--width", "160", "--height", "160"]);
    let out = run(cmd);
    assert_success(&out, "vkcube --c 300 on agx4");
    assert!(
        text(&out).contains("simulated by agx4"),
        "vkcube did not select agx4:\n{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vkcube_is_silent_under_validation() {
    let Some(vkcube) = tool("vkcube", "vulkan-tools") else {
        return;
    };
    if !Path::new(VALIDATION_LAYER_MANIFEST).exists() {
        eprintln!("SKIPPED: the validation layer is not installed (scripts/deps.sh installs vulkan-validationlayers)");
        return;
    }
    let Some(xvfb) = Xvfb::start() else { return };
    let dir = scratch_dir("validate");
    let manifest = agx4_manifest(&dir);

    // First show the check can fail: vkcube's --force_errors makes deliberate API errors,
    // which the layer must report in a form `validation_messages` recognises.
    let mut cmd = vk_command(&vkcube, &xvfb.display, &manifest);
    cmd.args(["--validate", "--force_errors", "--c", "3"]);
    let forced = text(&run(cmd));
    assert!(
        !validation_messages(&forced).is_empty(),
        "vkcube --force_errors printed no message this test recognises, so the check below \
         could not fail:\n{forced}"
    );

    let mut cmd = vk_command(&vkcube, &xvfb.display, &manifest);
    cmd.args(["--validate", "--c", "30"]);
    let out = run(cmd);
    let all = text(&out);
    let messages = validation_messages(&all);
    assert!(
        messages.is_empty(),
        "{} validation message lines from vkcube --validate on agx4:\n{}",
        messages.len(),
        messages.join("\n")
    );
    assert_success(&out, "vkcube --validate --c 30 on agx4");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn vkcubepp_runs_30_frames() {
    let Some(vkcubepp) = tool("vkcubepp", "vulkan-tools") else {
        return;
    };
    let Some(xvfb) = Xvfb::start() else { return };
    let dir = scratch_dir("pp");
    let mut cmd = vk_command(&vkcubepp, &xvfb.display, &agx4_manifest(&dir));
    cmd.args(["--c", "30"]);
    let out = run(cmd);
    assert_success(&out, "vkcubepp --c 30 on agx4");
    assert!(text(&out).contains("simulated by agx4"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 32-bit BMP as gfxrecon-replay writes its screenshots: (width, height, BGRA pixels).
fn read_bmp(path: &Path) -> (u32, u32, Vec<u8>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(&b[..2], b"BM", "{} is not a BMP", path.display());
    let (offset, w, h) = (u32_at(10) as usize, u32_at(18), u32_at(22) as i32);
    let bpp = u16::from_le_bytes([b[28], b[29]]);
    assert_eq!(bpp, 32, "{}: {bpp} bits per pixel", path.display());
    let h = h.unsigned_abs();
    let len = (w * h * 4) as usize;
    (w, h, b[offset..offset + len].to_vec())
}

#[test]
fn vkcube_frame_matches_lavapipe() {
    let Some(vkcube) = tool("vkcube", "vulkan-tools") else {
        return;
    };
    let Some(replay) = tool("gfxrecon-replay", "gfxreconstruct") else {
        return;
    };
    if !Path::new("/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json").exists()
        || !Path::new(LAVAPIPE_MANIFEST).exists()
    {
        eprintln!("SKIPPED: the gfxreconstruct layer or lavapipe is missing (scripts/deps.sh installs gfxreconstruct and mesa-vulkan-drivers)");
        return;
    }
    let Some(xvfb) = Xvfb::start() else { return };
    let dir = scratch_dir("frame");
    let manifest = agx4_manifest(&dir);
    let capture = dir.join("vkcube.gfxr");

    let mut cmd = vk_command(&vkcube, &xvfb.display, &manifest);
    cmd.args(["--c", &CAPTURE_FRAMES.to_string()])
        .env("VK_INSTANCE_LAYERS", "VK_LAYER_LUNARG_gfxreconstruct")
        .env("GFXRECON_CAPTURE_FILE", &capture)
        .env("GFXRECON_CAPTURE_FILE_TIMESTAMP", "false");
    assert_success(
        &run(cmd),
        "vkcube under the gfxreconstruct capture layer on agx4",
    );
    assert!(capture.exists(), "no capture at {}", capture.display());

    let mut shots = Vec::new();
    for (name, m) in [
        ("agx4", manifest.clone()),
        ("lavapipe", LAVAPIPE_MANIFEST.into()),
    ] {
        let out_dir = dir.join(name);
        std::fs::create_dir_all(&out_dir).unwrap();
        let mut cmd = vk_command(&replay, &xvfb.display, &m);
        cmd.arg("--screenshots")
            .arg(SCREENSHOT_FRAME.to_string())
            .arg("--screenshot-dir")
            .arg(&out_dir)
            .arg(&capture);
        assert_success(&run(cmd), &format!("gfxrecon-replay on {name}"));
        shots.push(read_bmp(
            &out_dir.join(format!("screenshot_frame_{SCREENSHOT_FRAME}.bmp")),
        ));
    }
    let (agx4, lvp) = (&shots[0], &shots[1]);
    assert_eq!((agx4.0, agx4.1), (lvp.0, lvp.1), "screenshot sizes differ");
    let (w, h) = (agx4.0, agx4.1);

    // The frame must show the cube, or two blank frames would match: vkcube's background is
    // one flat colour, and the cube covers a good part of the window.
    let bg = &lvp.2[..4];
    let covered = lvp.2.chunks_exact(4).filter(|p| p[..3] != bg[..3]).count();
    assert!(
        covered > (w * h / 10) as usize,
        "lavapipe's frame shows no cube ({covered} pixels off the background)"
    );

    let mut over = Vec::new();
    let mut max = 0u8;
    for (i, (a, l)) in agx4
        .2
        .chunks_exact(4)
        .zip(lvp.2.chunks_exact(4))
        .enumerate()
    {
        let d = (0..3).map(|c| a[c].abs_diff(l[c])).max().unwrap();
        max = max.max(d);
        if d > TOLERANCE {
            over.push((i as u32 % w, i as u32 / w, d));
        }
    }
    eprintln!(
        "frame {SCREENSHOT_FRAME} ({w}x{h}): {} pixels differ by more than {TOLERANCE}/255, largest difference {max}/255",
        over.len()
    );
    assert!(
        over.len() <= MAX_EDGE_PIXELS,
        "{} pixels of frame {SCREENSHOT_FRAME} differ from lavapipe's by more than {TOLERANCE}/255 \
         (at most {MAX_EDGE_PIXELS} allowed); first (x, y, difference): {:?}; images in {}",
        over.len(),
        &over[..over.len().min(10)],
        dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
