//! `cargo bench --bench render`: rendering figures for agx4 and lavapipe, printed, not asserted.
//!
//! The scene is N small right triangles (default 100,000; `AGX4_BENCH_TRIANGLES`) scattered
//! over a 512x512 R8G8B8A8_UNORM target, drawn from a vertex buffer (position and colour per
//! vertex) with a smooth-shaded fragment shader and a D32_SFLOAT depth test (LESS). Every
//! triangle has its own constant depth, all depths distinct, so the visible triangle of a pixel
//! does not depend on rasterization order; vertices sit at quarter-pixel offsets chosen so no
//! pixel centre lies on any edge, so coverage is never left to the fill rule. That makes the
//! image exactly predictable: a CPU rasterizer here computes it, and each driver's image is
//! compared with it and with the other driver's (per-channel tolerance, differing pixels
//! counted) so the figures are those of a correct render.
//!
//! lavapipe runs in this process. agx4 runs in a child process of this bench with
//! `AGX4_SIM_STATS=<file>` set (the simulated firmware reads it once per process and appends
//! `render draws= primitives= fragments= partial_renders= tvb_bytes=` per render command),
//! which supplies the shaded-fragment count and the TVB bytes; lavapipe's counts come from an
//! occlusion query (samples passed) and, when offered, a pipeline statistics query (fragment
//! shader invocations). The child writes its image to a file for the comparison.
//!
//! Times are wall-clock from vkQueueSubmit to the fence, for one command buffer holding the
//! render pass and the copy of the image to a host buffer; best of `AGX4_BENCH_RUNS` (default 3).

use ash::vk;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GLSLANG: &str = "/usr/bin/glslangValidator";
const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const VENDOR_APPLE: u32 = 0x106b;
const CHILD_ARG: &str = "--agx4-child";
const SIZE: u32 = 512;
const COLOR_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
const ATTR_FORMAT: vk::Format = vk::Format::R32G32B32_SFLOAT;
/// Floats per vertex: x, y, z (NDC), r, g, b.
const VERTEX_FLOATS: usize = 6;
/// Per-channel tolerance, in codes of 255: the colour is interpolated in float by each driver
/// and rounded to UNORM8.
const TOLERANCE: u8 = 2;

const VERT: &str = r#"#version 450
layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 col;
layout(location = 0) out vec3 v_col;
void main() {
    v_col = col;
    gl_Position = vec4(pos, 1.0);
}
"#;

const FRAG: &str = r#"#version 450
layout(location = 0) in vec3 v_col;
layout(location = 0) out vec4 colour;
void main() {
    colour = vec4(v_col, 1.0);
}
"#;

type Result<T> = std::result::Result<T, String>;

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = match args.iter().position(|a| a == CHILD_ARG) {
        Some(i) => match args.get(i + 1) {
            Some(dir) => child(Path::new(dir)),
            None => Err(format!("{CHILD_ARG} needs a directory")),
        }
        .map(|()| 0),
        None => run(),
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The scene and its CPU rendering.

/// Deterministic xorshift, so the parent and the child build the same scene.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

struct Scene {
    /// `VERTEX_FLOATS` per vertex, three vertices per triangle.
    vertices: Vec<f32>,
    /// The same triangles in pixel coordinates, for the CPU rasterizer: [x, y] per vertex.
    pixels: Vec<[f64; 2]>,
    triangles: u32,
}

/// N right triangles with legs of 1 to 4 pixels along the axes, in the four orientations.
/// Vertex x is always an integer + 0.25, so vertical edges miss the pixel centres (integer +
/// 0.5). Vertex y is an integer + 0.25 when the hypotenuse runs along x + y = c (then c is an
/// integer + 0.5 and centres have x + y an integer) and an integer + 0.75 when it runs along
/// x - y = c (c an integer + 0.5 again); horizontal edges miss the centres either way.
fn scene(triangles: u32) -> Scene {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let n = triangles as usize;
    // Distinct depths in a shuffled order, so draw order and depth order disagree and the
    // early depth test both passes and fails.
    let mut depth_rank: Vec<u32> = (0..triangles).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        depth_rank.swap(i, j);
    }
    let mut vertices = Vec::with_capacity(n * 3 * VERTEX_FLOATS);
    let mut pixels = Vec::with_capacity(n * 3);
    let size = f64::from(SIZE);
    for &rank in &depth_rank {
        let leg = (1 + rng.below(4)) as f64;
        let ax = 4 + rng.below(u64::from(SIZE) - 8);
        let ay = 4 + rng.below(u64::from(SIZE) - 8);
        let (sx, sy) = match rng.below(4) {
            0 => (1.0, 1.0),
            1 => (-1.0, -1.0),
            2 => (1.0, -1.0),
            _ => (-1.0, 1.0),
        };
        let x0 = ax as f64 + 0.25;
        let y0 = ay as f64 + if sx == sy { 0.25 } else { 0.75 };
        let corners = [[x0, y0], [x0 + sx * leg, y0], [x0, y0 + sy * leg]];
        let z = (f64::from(rank) + 1.0) / (f64::from(triangles) + 2.0);
        for c in corners {
            // Exact in f32: pixel coordinates are multiples of 1/4 below 512.
            vertices.push((c[0] * 2.0 / size - 1.0) as f32);
            vertices.push((c[1] * 2.0 / size - 1.0) as f32);
            vertices.push(z as f32);
            for _ in 0..3 {
                vertices.push(rng.unit());
            }
            pixels.push(c);
        }
    }
    Scene {
        vertices,
        pixels,
        triangles,
    }
}

struct CpuImage {
    rgba: Vec<u8>,
    /// (triangle, pixel) pairs whose pixel centre the triangle covers.
    rasterized: u64,
    /// Of those, the ones that pass the depth test in draw order: what an early depth test
    /// shades and an occlusion query counts.
    passed: u64,
}

fn unorm8(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The scene rasterized at pixel centres with a LESS depth test against a cleared 1.0.
fn cpu_render(s: &Scene) -> CpuImage {
    let w = SIZE as usize;
    let mut rgba = vec![0u8; w * w * 4];
    let mut depth = vec![1.0f32; w * w];
    let (mut rasterized, mut passed) = (0, 0);
    for t in 0..s.triangles as usize {
        let p = &s.pixels[t * 3..t * 3 + 3];
        let v = &s.vertices[t * 3 * VERTEX_FLOATS..(t + 1) * 3 * VERTEX_FLOATS];
        let z = v[2];
        let area =
            (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
        let xmin = p
            .iter()
            .map(|c| c[0])
            .fold(f64::MAX, f64::min)
            .floor()
            .max(0.0) as usize;
        let xmax = p
            .iter()
            .map(|c| c[0])
            .fold(f64::MIN, f64::max)
            .ceil()
            .min(f64::from(SIZE)) as usize;
        let ymin = p
            .iter()
            .map(|c| c[1])
            .fold(f64::MAX, f64::min)
            .floor()
            .max(0.0) as usize;
        let ymax = p
            .iter()
            .map(|c| c[1])
            .fold(f64::MIN, f64::max)
            .ceil()
            .min(f64::from(SIZE)) as usize;
        for y in ymin..ymax {
            for x in xmin..xmax {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                // Barycentric weights of each vertex: the edge function of the opposite edge.
                let e = |a: [f64; 2], b: [f64; 2]| {
                    (b[0] - a[0]) * (cy - a[1]) - (b[1] - a[1]) * (cx - a[0])
                };
                let l0 = e(p[1], p[2]) / area;
                let l1 = e(p[2], p[0]) / area;
                let l2 = e(p[0], p[1]) / area;
                if l0 < 0.0 || l1 < 0.0 || l2 < 0.0 {
                    continue;
                }
                rasterized += 1;
                let i = y * w + x;
                if z >= depth[i] {
                    continue;
                }
                passed += 1;
                depth[i] = z;
                for c in 0..3 {
                    let val = l0 * f64::from(v[3 + c])
                        + l1 * f64::from(v[VERTEX_FLOATS + 3 + c])
                        + l2 * f64::from(v[2 * VERTEX_FLOATS + 3 + c]);
                    rgba[i * 4 + c] = unorm8(val);
                }
                rgba[i * 4 + 3] = 255;
            }
        }
    }
    CpuImage {
        rgba,
        rasterized,
        passed,
    }
}

/// Pixels where some channel differs by more than `TOLERANCE`, and the largest difference.
fn compare(a: &[u8], b: &[u8]) -> (usize, u8) {
    let mut bad = 0;
    let mut worst = 0;
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let d = pa
            .iter()
            .zip(pb)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        worst = worst.max(d);
        if d > TOLERANCE {
            bad += 1;
        }
    }
    (bad, worst)
}

fn covered(rgba: &[u8]) -> usize {
    rgba.chunks_exact(4).filter(|p| p[3] != 0).count()
}

// ---------------------------------------------------------------------------------------------
// The parent: lavapipe here, agx4 in a child, then the figures.

fn run() -> Result<i32> {
    let tmp = std::env::temp_dir().join(format!("agx4-render-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    let r = run_in(&tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    r
}

fn run_in(tmp: &Path) -> Result<i32> {
    let triangles = env_u32("AGX4_BENCH_TRIANGLES", 100_000).max(1);
    let runs = env_u32("AGX4_BENCH_RUNS", 3).max(1);
    println!("== Render: {triangles} small triangles, {SIZE}x{SIZE} {COLOR_FORMAT:?}, {DEPTH_FORMAT:?} LESS, smooth-shaded colour from a vertex buffer ==");
    println!("times: vkQueueSubmit to fence, one command buffer (render pass + copy to a host buffer), best of {runs}");

    let t0 = Instant::now();
    let s = scene(triangles);
    let cpu = cpu_render(&s);
    println!(
        "CPU reference: {} fragments rasterized, {} pass the depth test in draw order, {} of {} pixels covered ({:.1} ms)",
        cpu.rasterized,
        cpu.passed,
        covered(&cpu.rgba),
        SIZE * SIZE,
        t0.elapsed().as_secs_f64() * 1e3
    );
    println!();

    let mut failed = false;

    // lavapipe, in this process.
    let lavapipe = if Path::new(LAVAPIPE_MANIFEST).exists() {
        // SAFETY: no other thread exists yet; the loader reads these when the instance is made.
        unsafe {
            std::env::set_var("VK_DRIVER_FILES", LAVAPIPE_MANIFEST);
            std::env::set_var("NODEVICE_SELECT", "1");
            std::env::remove_var("VK_INSTANCE_LAYERS");
        }
        match render_on(tmp, &s, runs, |p| p.vendor_id != VENDOR_APPLE, true) {
            Ok(Outcome::Done(r)) => Some(r),
            Ok(Outcome::Unsupported(why)) => {
                println!("lavapipe: cannot run the scene: {why}");
                failed = true;
                None
            }
            Err(e) => {
                println!("lavapipe: FAILED: {e}");
                failed = true;
                None
            }
        }
    } else {
        println!("lavapipe: not installed ({LAVAPIPE_MANIFEST}), skipped");
        None
    };
    if let Some(l) = &lavapipe {
        let (bad, worst) = compare(&l.image, &cpu.rgba);
        let best = best(&l.times);
        println!("lavapipe ({}):", l.device);
        println!(
            "  time {:.2} ms   {:.3} M triangles/s",
            ms(best),
            f64::from(triangles) / best.as_secs_f64() / 1e6
        );
        if let Some(n) = l.samples_passed {
            println!(
                "  occlusion query: {n} samples passed (CPU: {})   {:.2} M fragments/s",
                cpu.passed,
                n as f64 / best.as_secs_f64() / 1e6
            );
        }
        if let Some((prims, fs)) = l.statistics {
            println!(
                "  pipeline statistics: {prims} input primitives, {fs} fragment shader invocations   {:.2} M invocations/s",
                fs as f64 / best.as_secs_f64() / 1e6
            );
            if fs > cpu.rasterized {
                println!(
                    "    (more invocations than the {} covered pixel-triangle pairs, so not a pixel count: the occlusion count above is the one comparable with agx4's fragments)",
                    cpu.rasterized
                );
            }
        }
        println!(
            "  image vs CPU reference: {bad} pixels differ by more than {TOLERANCE}/255 (largest difference {worst})"
        );
        if bad != 0 {
            println!("  lavapipe's image is WRONG: its figures are not for a correct render");
            failed = true;
        }
    }
    println!();

    // agx4, in a child with the firmware statistics file.
    match agx4_child(tmp, triangles, runs) {
        Ok(ChildResult::Unsupported(why)) => {
            println!("agx4: cannot run the scene yet: {why}");
        }
        Ok(ChildResult::Done {
            device,
            times,
            image,
            stats,
        }) => {
            let best = best(&times);
            println!("agx4 ({device}), simulated GPU:");
            println!(
                "  time {:.2} ms   {:.3} M triangles/s",
                ms(best),
                f64::from(triangles) / best.as_secs_f64() / 1e6
            );
            match stats {
                Some(st) => {
                    println!(
                        "  firmware stats (last render): draws={} primitives={} fragments={} partial_renders={} tvb_bytes={}",
                        st.draws, st.primitives, st.fragments, st.partial_renders, st.tvb_bytes
                    );
                    println!(
                        "  {:.3} M fragments/s   {:.1} TVB bytes per triangle   (CPU: {} fragments pass the depth test in draw order, {} rasterized)",
                        st.fragments as f64 / best.as_secs_f64() / 1e6,
                        if st.primitives == 0 { 0.0 } else { st.tvb_bytes as f64 / st.primitives as f64 },
                        cpu.passed,
                        cpu.rasterized
                    );
                    if st.primitives != u64::from(triangles) {
                        println!("  note: the firmware counted {} primitives for {triangles} triangles", st.primitives);
                    }
                }
                None => println!("  no `render` line in the AGX4_SIM_STATS file: fragment and TVB figures unavailable"),
            }
            let (bad, worst) = compare(&image, &cpu.rgba);
            println!(
                "  image vs CPU reference: {bad} pixels differ by more than {TOLERANCE}/255 (largest difference {worst})"
            );
            if bad != 0 {
                failed = true;
            }
            if let Some(l) = &lavapipe {
                let (bad, worst) = compare(&image, &l.image);
                println!(
                    "  image vs lavapipe: {bad} pixels differ by more than {TOLERANCE}/255 (largest difference {worst})"
                );
                if bad != 0 {
                    failed = true;
                }
            }
            if failed {
                println!("  agx4's image is WRONG: its figures are not for a correct render");
            }
        }
        Err(e) => {
            println!("agx4: FAILED: {e}");
            failed = true;
        }
    }
    Ok(if failed { 1 } else { 0 })
}

fn best(times: &[Duration]) -> Duration {
    times.iter().copied().min().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[derive(Default, Clone, Copy)]
struct FirmwareStats {
    draws: u64,
    primitives: u64,
    fragments: u64,
    partial_renders: u64,
    tvb_bytes: u64,
}

fn parse_stats(line: &str) -> Option<FirmwareStats> {
    let rest = line.trim().strip_prefix("render ")?;
    let mut s = FirmwareStats::default();
    for field in rest.split_whitespace() {
        let (k, v) = field.split_once('=')?;
        let v: u64 = v.parse().ok()?;
        match k {
            "draws" => s.draws = v,
            "primitives" => s.primitives = v,
            "fragments" => s.fragments = v,
            "partial_renders" => s.partial_renders = v,
            "tvb_bytes" => s.tvb_bytes = v,
            _ => {}
        }
    }
    Some(s)
}

enum ChildResult {
    Unsupported(String),
    Done {
        device: String,
        times: Vec<Duration>,
        image: Vec<u8>,
        stats: Option<FirmwareStats>,
    },
}

fn agx4_library() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let deps = exe.parent().ok_or("bench executable has no directory")?;
    [
        deps.parent().map(|p| p.join("libvulkan_agx4.so")),
        Some(deps.join("libvulkan_agx4.so")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.exists())
    .ok_or_else(|| {
        format!(
            "libvulkan_agx4.so not found beside {}: run `cargo build --release` first",
            deps.display()
        )
    })
}

/// Runs this executable with `CHILD_ARG` on agx4 alone, and reads back what it wrote.
fn agx4_child(tmp: &Path, triangles: u32, runs: u32) -> Result<ChildResult> {
    let lib = agx4_library()?;
    let manifest = tmp.join("agx4_icd.json");
    let json = format!(
        r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
        lib.display()
    );
    std::fs::write(&manifest, json).map_err(|e| format!("writing {}: {e}", manifest.display()))?;
    let dir = tmp.join("agx4");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let stats_path = dir.join("stats.txt");
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .arg(CHILD_ARG)
        .arg(&dir)
        .env("VK_DRIVER_FILES", &manifest)
        .env("NODEVICE_SELECT", "1")
        .env("AGX4_KMD", "sim")
        .env("AGX4_SIM_STATS", &stats_path)
        .env("AGX4_BENCH_TRIANGLES", triangles.to_string())
        .env("AGX4_BENCH_RUNS", runs.to_string())
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("AGX4_SIM_NOEXEC")
        .output()
        .map_err(|e| format!("starting the agx4 child: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "the agx4 child failed ({}): {}",
            out.status,
            stderr.trim()
        ));
    }
    let result = std::fs::read_to_string(dir.join("result.txt")).map_err(|e| {
        format!(
            "reading the agx4 child's result: {e}; its stderr: {}",
            stderr.trim()
        )
    })?;
    if let Some(why) = result.strip_prefix("unsupported ") {
        return Ok(ChildResult::Unsupported(why.trim().to_string()));
    }
    let mut device = String::new();
    let mut times = Vec::new();
    for line in result.lines() {
        if let Some(d) = line.strip_prefix("device ") {
            device = d.to_string();
        } else if let Some(ns) = line.strip_prefix("time_ns ") {
            times.push(Duration::from_nanos(
                ns.parse().map_err(|e| format!("child time {ns:?}: {e}"))?,
            ));
        }
    }
    let image = std::fs::read(dir.join("image.rgba"))
        .map_err(|e| format!("reading the agx4 image: {e}"))?;
    if image.len() != (SIZE * SIZE * 4) as usize {
        return Err(format!("the agx4 image has {} bytes", image.len()));
    }
    // One line per render command; every run renders the same scene, so take the last.
    let stats = std::fs::read_to_string(&stats_path)
        .ok()
        .and_then(|t| t.lines().filter_map(parse_stats).next_back());
    Ok(ChildResult::Done {
        device,
        times,
        image,
        stats,
    })
}

/// The child: renders on the only driver the parent registered (agx4) and writes
/// `result.txt` (`unsupported <why>`, or `device` and `time_ns` lines) and `image.rgba`.
fn child(dir: &Path) -> Result<()> {
    let triangles = env_u32("AGX4_BENCH_TRIANGLES", 100_000).max(1);
    let runs = env_u32("AGX4_BENCH_RUNS", 3).max(1);
    let s = scene(triangles);
    let result = match render_on(dir, &s, runs, |p| p.vendor_id == VENDOR_APPLE, false) {
        Ok(Outcome::Unsupported(why)) => format!("unsupported {why}\n"),
        Ok(Outcome::Done(r)) => {
            std::fs::write(dir.join("image.rgba"), &r.image)
                .map_err(|e| format!("writing the image: {e}"))?;
            let mut t = format!("device {}\n", r.device);
            for d in &r.times {
                t.push_str(&format!("time_ns {}\n", d.as_nanos()));
            }
            t
        }
        Err(e) => return Err(e),
    };
    std::fs::write(dir.join("result.txt"), result).map_err(|e| format!("writing the result: {e}"))
}

// ---------------------------------------------------------------------------------------------
// The Vulkan program, the same on every driver.

enum Outcome {
    Unsupported(String),
    Done(Rendered),
}

struct Rendered {
    device: String,
    image: Vec<u8>,
    times: Vec<Duration>,
    samples_passed: Option<u64>,
    /// (input assembly primitives, fragment shader invocations).
    statistics: Option<(u64, u64)>,
}

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e:?}")
}

fn glslang(dir: &Path, name: &str, src: &str) -> Result<Vec<u32>> {
    let path = dir.join(name);
    let spv = dir.join(format!("{name}.spv"));
    std::fs::write(&path, src).map_err(|e| format!("writing {}: {e}", path.display()))?;
    let o = Command::new(GLSLANG)
        .args(["-V", "--target-env", "vulkan1.0", "-o"])
        .arg(&spv)
        .arg(&path)
        .output()
        .map_err(|e| format!("running {GLSLANG}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "glslangValidator failed on {name}:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let bytes = std::fs::read(&spv).map_err(|e| format!("reading {}: {e}", spv.display()))?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes))
        .map_err(|e| format!("{}: {e}", spv.display()))
}

/// Loads the loader, makes an instance, picks the first physical device `pick` accepts and
/// renders the scene `runs` times on it; `queries` adds the occlusion and pipeline statistics
/// queries.
fn render_on(
    dir: &Path,
    s: &Scene,
    runs: u32,
    pick: impl Fn(&vk::PhysicalDeviceProperties) -> bool,
    queries: bool,
) -> Result<Outcome> {
    let vert = glslang(dir, "render.vert", VERT)?;
    let frag = glslang(dir, "render.frag", FRAG)?;
    // SAFETY: loading the system's Vulkan loader.
    let entry =
        unsafe { ash::Entry::load() }.map_err(|e| format!("loading libvulkan.so.1: {e}"))?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_0);
    // SAFETY: valid create info.
    let instance = unsafe {
        entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )
    }
    .map_err(vkerr("vkCreateInstance"))?;
    let r = (|| {
        // SAFETY: valid instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .map_err(vkerr("vkEnumeratePhysicalDevices"))?;
        let pdev = pdevs
            .iter()
            .copied()
            // SAFETY: physical devices of this instance.
            .find(|&p| pick(&unsafe { instance.get_physical_device_properties(p) }))
            .ok_or("the loader offers no matching physical device")?;
        if let Some(why) = missing(&instance, pdev) {
            return Ok(Outcome::Unsupported(why));
        }
        let mut r = Renderer::new(&instance, pdev, s, &vert, &frag, queries)?;
        let out = r.render(runs);
        r.destroy();
        out.map(Outcome::Done)
    })();
    // SAFETY: every device made from the instance was destroyed.
    unsafe { instance.destroy_instance(None) };
    r
}

/// What the device lacks for the scene, checked before any object is made.
fn missing(instance: &ash::Instance, pdev: vk::PhysicalDevice) -> Option<String> {
    let mut why = Vec::new();
    let fp = |f| {
        // SAFETY: valid physical device.
        unsafe { instance.get_physical_device_format_properties(pdev, f) }
    };
    let image_ok = |f, usage| {
        // SAFETY: valid physical device.
        let r = unsafe {
            instance.get_physical_device_image_format_properties(
                pdev,
                f,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                vk::ImageCreateFlags::empty(),
            )
        };
        r.is_ok_and(|p| p.max_extent.width >= SIZE && p.max_extent.height >= SIZE)
    };
    let color_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    if !fp(COLOR_FORMAT)
        .optimal_tiling_features
        .contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT)
    {
        why.push(format!(
            "{COLOR_FORMAT:?} has no COLOR_ATTACHMENT format feature"
        ));
    } else if !image_ok(COLOR_FORMAT, color_usage) {
        why.push(format!(
            "{SIZE}x{SIZE} {COLOR_FORMAT:?} images with {color_usage:?} are not supported"
        ));
    }
    if !fp(DEPTH_FORMAT)
        .optimal_tiling_features
        .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
    {
        why.push(format!(
            "{DEPTH_FORMAT:?} has no DEPTH_STENCIL_ATTACHMENT format feature"
        ));
    } else if !image_ok(DEPTH_FORMAT, vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT) {
        why.push(format!(
            "{DEPTH_FORMAT:?} depth attachments are not supported"
        ));
    }
    if !fp(ATTR_FORMAT)
        .buffer_features
        .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
    {
        why.push(format!(
            "{ATTR_FORMAT:?} has no VERTEX_BUFFER format feature"
        ));
    }
    // SAFETY: valid physical device.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
    if !families
        .iter()
        .any(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
    {
        why.push("no queue family with GRAPHICS".into());
    }
    // SAFETY: valid physical device.
    let limits = unsafe { instance.get_physical_device_properties(pdev) }.limits;
    if limits.max_framebuffer_width < SIZE || limits.max_framebuffer_height < SIZE {
        why.push(format!(
            "framebuffers limited to {}x{}",
            limits.max_framebuffer_width, limits.max_framebuffer_height
        ));
    }
    if why.is_empty() {
        None
    } else {
        Some(why.join("; "))
    }
}

struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

struct Renderer<'a> {
    device: ash::Device,
    name: String,
    queue: vk::Queue,
    mem: vk::PhysicalDeviceMemoryProperties,
    buffers: Vec<HostBuffer>,
    images: Vec<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
    render_pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    modules: Vec<vk::ShaderModule>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    occlusion: vk::QueryPool,
    statistics: vk::QueryPool,
    scene: &'a Scene,
}

impl<'a> Renderer<'a> {
    /// Makes every object, recording into `self` as it goes so `destroy` frees what exists
    /// when a step fails.
    fn new(
        instance: &ash::Instance,
        pdev: vk::PhysicalDevice,
        scene: &'a Scene,
        vert: &[u32],
        frag: &[u32],
        queries: bool,
    ) -> Result<Renderer<'a>> {
        // SAFETY: valid physical device.
        let props = unsafe { instance.get_physical_device_properties(pdev) };
        let name = props
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: valid physical device.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or("no graphics queue family")? as u32;
        // SAFETY: valid physical device.
        let have = unsafe { instance.get_physical_device_features(pdev) };
        let stats = queries && have.pipeline_statistics_query != vk::FALSE;
        let features = vk::PhysicalDeviceFeatures::default().pipeline_statistics_query(stats);
        let prio = [1.0f32];
        let qinfo = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qinfo)
            .enabled_features(&features);
        // SAFETY: valid physical device and create info.
        let device = unsafe { instance.create_device(pdev, &info, None) }
            .map_err(vkerr("vkCreateDevice"))?;
        // SAFETY: the queue was requested above.
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: valid physical device.
        let mem = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let mut r = Renderer {
            device,
            name,
            queue,
            mem,
            buffers: Vec::new(),
            images: Vec::new(),
            render_pass: vk::RenderPass::null(),
            framebuffer: vk::Framebuffer::null(),
            modules: Vec::new(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            occlusion: vk::QueryPool::null(),
            statistics: vk::QueryPool::null(),
            scene,
        };
        match r.build(family, vert, frag, queries, stats) {
            Ok(()) => Ok(r),
            Err(e) => {
                r.destroy();
                Err(e)
            }
        }
    }

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32> {
        (0..self.mem.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.mem.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or_else(|| format!("no memory type with {want:?} in {bits:#x}"))
    }

    fn host_buffer(
        &mut self,
        size: usize,
        usage: vk::BufferUsageFlags,
        data: &[u8],
    ) -> Result<vk::Buffer> {
        let d = &self.device;
        // SAFETY: valid device and create info.
        let buffer = unsafe {
            d.create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size as u64)
                    .usage(usage),
                None,
            )
        }
        .map_err(vkerr("vkCreateBuffer"))?;
        // SAFETY: the buffer was just made.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let ty = match self.memory_type(
            req.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        ) {
            Ok(t) => t,
            Err(e) => {
                // SAFETY: unused buffer.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // SAFETY: valid allocation info.
        let memory = match unsafe {
            d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused buffer.
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(format!("vkAllocateMemory of {} bytes: {e:?}", req.size));
            }
        };
        self.buffers.push(HostBuffer {
            buffer,
            memory,
            ptr: std::ptr::null_mut(),
            size,
        });
        // SAFETY: memory of a matching type and size; mapped once, for the object's lifetime.
        let ptr = unsafe {
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(vkerr("vkBindBufferMemory"))?;
            d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?
        } as *mut u8;
        // SAFETY: the mapping covers `size` bytes; no GPU work uses the buffer yet.
        unsafe { std::slice::from_raw_parts_mut(ptr, size)[..data.len()].copy_from_slice(data) };
        if let Some(b) = self.buffers.last_mut() {
            b.ptr = ptr;
        }
        Ok(buffer)
    }

    fn image(
        &mut self,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
    ) -> Result<vk::ImageView> {
        let d = &self.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: SIZE,
                height: SIZE,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info.
        let image = unsafe { d.create_image(&info, None) }
            .map_err(|e| format!("vkCreateImage {format:?}: {e:?}"))?;
        // SAFETY: the image was just made.
        let req = unsafe { d.get_image_memory_requirements(image) };
        let ty = self
            .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|_| self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty()));
        let d = &self.device;
        let alloc = ty.and_then(|ty| {
            // SAFETY: valid allocation info.
            unsafe {
                d.allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
            }
            .map_err(vkerr("vkAllocateMemory"))
        });
        let memory = match alloc {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused image.
                unsafe { d.destroy_image(image, None) };
                return Err(e);
            }
        };
        self.images.push((image, memory, vk::ImageView::null()));
        // SAFETY: memory of a matching type and size.
        unsafe { d.bind_image_memory(image, memory, 0) }.map_err(vkerr("vkBindImageMemory"))?;
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let vinfo = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(range);
        // SAFETY: valid create info.
        let view =
            unsafe { d.create_image_view(&vinfo, None) }.map_err(vkerr("vkCreateImageView"))?;
        if let Some(i) = self.images.last_mut() {
            i.2 = view;
        }
        Ok(view)
    }

    fn build(
        &mut self,
        family: u32,
        vert: &[u32],
        frag: &[u32],
        queries: bool,
        stats: bool,
    ) -> Result<()> {
        let s = self.scene;
        let vbytes: Vec<u8> = s.vertices.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.host_buffer(vbytes.len(), vk::BufferUsageFlags::VERTEX_BUFFER, &vbytes)?;
        self.host_buffer(
            (SIZE * SIZE * 4) as usize,
            vk::BufferUsageFlags::TRANSFER_DST,
            &[],
        )?;
        let color = self.image(
            COLOR_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
        )?;
        let depth = self.image(
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageAspectFlags::DEPTH,
        )?;
        let d = &self.device;

        let attachments = [
            vk::AttachmentDescription::default()
                .format(COLOR_FORMAT)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
            vk::AttachmentDescription::default()
                .format(DEPTH_FORMAT)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        ];
        let color_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let depth_ref = vk::AttachmentReference {
            attachment: 1,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&color_ref)
            .depth_stencil_attachment(&depth_ref)];
        let rp_info = vk::RenderPassCreateInfo::default()
            .attachments(&attachments)
            .subpasses(&subpass);
        // SAFETY: valid create info.
        self.render_pass =
            unsafe { d.create_render_pass(&rp_info, None) }.map_err(vkerr("vkCreateRenderPass"))?;
        let views = [color, depth];
        let fb_info = vk::FramebufferCreateInfo::default()
            .render_pass(self.render_pass)
            .attachments(&views)
            .width(SIZE)
            .height(SIZE)
            .layers(1);
        // SAFETY: valid create info.
        self.framebuffer = unsafe { d.create_framebuffer(&fb_info, None) }
            .map_err(vkerr("vkCreateFramebuffer"))?;

        for code in [vert, frag] {
            // SAFETY: valid SPIR-V from glslangValidator.
            let m = unsafe {
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
            }
            .map_err(vkerr("vkCreateShaderModule"))?;
            self.modules.push(m);
        }
        // SAFETY: valid create info.
        self.layout =
            unsafe { d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None) }
                .map_err(vkerr("vkCreatePipelineLayout"))?;
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(self.modules[0])
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(self.modules[1])
                .name(c"main"),
        ];
        let bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: (VERTEX_FLOATS * 4) as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attrs = [
            vk::VertexInputAttributeDescription {
                location: 0,
                binding: 0,
                format: ATTR_FORMAT,
                offset: 0,
            },
            vk::VertexInputAttributeDescription {
                location: 1,
                binding: 0,
                format: ATTR_FORMAT,
                offset: 12,
            },
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attrs);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: SIZE as f32,
            height: SIZE as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissors = [vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        }];
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let ds = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::LESS);
        let blend = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&raster)
            .multisample_state(&ms)
            .depth_stencil_state(&ds)
            .color_blend_state(&cb)
            .layout(self.layout)
            .render_pass(self.render_pass)
            .subpass(0);
        // SAFETY: valid create info; every referenced object is alive.
        self.pipeline =
            unsafe { d.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e:?}"))?[0];

        if queries {
            let q = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::OCCLUSION)
                .query_count(1);
            // SAFETY: valid create info.
            self.occlusion =
                unsafe { d.create_query_pool(&q, None) }.map_err(vkerr("vkCreateQueryPool"))?;
        }
        if stats {
            let q = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::PIPELINE_STATISTICS)
                .query_count(1)
                .pipeline_statistics(
                    vk::QueryPipelineStatisticFlags::INPUT_ASSEMBLY_PRIMITIVES
                        | vk::QueryPipelineStatisticFlags::FRAGMENT_SHADER_INVOCATIONS,
                );
            // SAFETY: valid create info; the feature is enabled.
            self.statistics =
                unsafe { d.create_query_pool(&q, None) }.map_err(vkerr("vkCreateQueryPool"))?;
        }

        let pinfo = vk::CommandPoolCreateInfo::default().queue_family_index(family);
        // SAFETY: valid create info.
        self.pool =
            unsafe { d.create_command_pool(&pinfo, None) }.map_err(vkerr("vkCreateCommandPool"))?;
        let ainfo = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid allocate info.
        self.cmd = unsafe { d.allocate_command_buffers(&ainfo) }
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        // SAFETY: valid create info.
        self.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vkerr("vkCreateFence"))?;
        self.record()
    }

    fn record(&self) -> Result<()> {
        let d = &self.device;
        let c = self.cmd;
        let vertex_buffer = self.buffers[0].buffer;
        let readback = self.buffers[1].buffer;
        let color_image = self.images[0].0;
        let clear = [
            vk::ClearValue {
                color: vk::ClearColorValue { float32: [0.0; 4] },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        let rp_begin = vk::RenderPassBeginInfo::default()
            .render_pass(self.render_pass)
            .framebuffer(self.framebuffer)
            .render_area(area)
            .clear_values(&clear);
        // SAFETY: every object is alive; the command buffer is in the initial state.
        unsafe {
            d.begin_command_buffer(c, &vk::CommandBufferBeginInfo::default())
                .map_err(vkerr("vkBeginCommandBuffer"))?;
            if self.occlusion != vk::QueryPool::null() {
                d.cmd_reset_query_pool(c, self.occlusion, 0, 1);
            }
            if self.statistics != vk::QueryPool::null() {
                d.cmd_reset_query_pool(c, self.statistics, 0, 1);
            }
            d.cmd_begin_render_pass(c, &rp_begin, vk::SubpassContents::INLINE);
            d.cmd_bind_pipeline(c, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_bind_vertex_buffers(c, 0, &[vertex_buffer], &[0]);
            if self.occlusion != vk::QueryPool::null() {
                d.cmd_begin_query(c, self.occlusion, 0, vk::QueryControlFlags::PRECISE);
            }
            if self.statistics != vk::QueryPool::null() {
                d.cmd_begin_query(c, self.statistics, 0, vk::QueryControlFlags::empty());
            }
            d.cmd_draw(c, self.scene.triangles * 3, 1, 0, 0);
            if self.statistics != vk::QueryPool::null() {
                d.cmd_end_query(c, self.statistics, 0);
            }
            if self.occlusion != vk::QueryPool::null() {
                d.cmd_end_query(c, self.occlusion, 0);
            }
            d.cmd_end_render_pass(c);
            let to_copy = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
            d.cmd_pipeline_barrier(
                c,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &to_copy,
                &[],
                &[],
            );
            let region = vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                },
                image_offset: vk::Offset3D { x: 0, y: 0, z: 0 },
                image_extent: vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                },
            };
            d.cmd_copy_image_to_buffer(
                c,
                color_image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback,
                &[region],
            );
            let to_host = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                c,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &to_host,
                &[],
                &[],
            );
            d.end_command_buffer(c)
                .map_err(vkerr("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    /// Submits the recorded command buffer `runs` times, timing each from submit to fence.
    fn render(&mut self, runs: u32) -> Result<Rendered> {
        let d = &self.device;
        let mut times = Vec::new();
        let cmds = [self.cmd];
        for _ in 0..runs {
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let t = Instant::now();
            // SAFETY: the command buffer is executable and not pending (the fence was waited).
            unsafe {
                d.queue_submit(self.queue, &submit, self.fence)
                    .map_err(vkerr("vkQueueSubmit"))?;
                d.wait_for_fences(&[self.fence], true, u64::MAX)
                    .map_err(vkerr("vkWaitForFences"))?;
            }
            times.push(t.elapsed());
            // SAFETY: the fence is signalled and no submission uses it.
            unsafe { d.reset_fences(&[self.fence]) }.map_err(vkerr("vkResetFences"))?;
        }
        let rb = &self.buffers[1];
        // SAFETY: the mapping covers `size` bytes; the GPU is idle.
        let image = unsafe { std::slice::from_raw_parts(rb.ptr, rb.size) }.to_vec();
        let mut samples_passed = None;
        if self.occlusion != vk::QueryPool::null() {
            let mut v = [0u64; 1];
            // SAFETY: the query was ended by the last submission, which completed.
            unsafe {
                d.get_query_pool_results(
                    self.occlusion,
                    0,
                    &mut v,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .map_err(vkerr("vkGetQueryPoolResults (occlusion)"))?;
            samples_passed = Some(v[0]);
        }
        let mut statistics = None;
        if self.statistics != vk::QueryPool::null() {
            let mut v = [[0u64; 2]; 1];
            // SAFETY: as above; two counters, in flag bit order.
            unsafe {
                d.get_query_pool_results(
                    self.statistics,
                    0,
                    &mut v,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }
            .map_err(vkerr("vkGetQueryPoolResults (pipeline statistics)"))?;
            statistics = Some((v[0][0], v[0][1]));
        }
        Ok(Rendered {
            device: self.name.clone(),
            image,
            times,
            samples_passed,
            statistics,
        })
    }

    fn destroy(&mut self) {
        let d = &self.device;
        // SAFETY: the device is idle (waited below) and each object is destroyed once.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_query_pool(self.occlusion, None);
            d.destroy_query_pool(self.statistics, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            for m in self.modules.drain(..) {
                d.destroy_shader_module(m, None);
            }
            d.destroy_framebuffer(self.framebuffer, None);
            d.destroy_render_pass(self.render_pass, None);
            for (image, memory, view) in self.images.drain(..) {
                d.destroy_image_view(view, None);
                d.destroy_image(image, None);
                d.free_memory(memory, None);
            }
            for b in self.buffers.drain(..) {
                d.destroy_buffer(b.buffer, None);
                d.free_memory(b.memory, None);
            }
            d.destroy_device(None);
        }
    }
}
