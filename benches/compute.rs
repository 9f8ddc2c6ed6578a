//! `cargo bench --bench compute`: figures for agx4's compiler and compute path, printed, not
//! asserted.
//!
//! 1. The GLSL corpus (`tests/compute/*.comp`), compiled with glslangValidator into a temp
//!    dir and then by agx4's compiler directly: compile time per shader, instructions and
//!    code bytes, beside Mesa's AGX compiler's figures.
//!    The graphics half (`corpus/graphics.rs`): the render scenes' vertex/fragment pairs made
//!    into pipelines on agx4, their executable statistics beside Mesa's.
//! 2. One long-running kernel (an integer hash and float mix loop) dispatched through the
//!    Vulkan loader on agx4 and on Mesa's lavapipe in the same process, results verified
//!    against the CPU; the same compiled kernel run in-process on the simulated USC for the
//!    lane-instruction count (the ICD is a separately loaded library, so its counters are not
//!    this process's); and the driver's CPU cost per dispatch, measured in a child process
//!    with `AGX4_SIM_NOEXEC=1` (read once per process).
//!
//! `AGX4_BENCH_ITERATIONS` and `AGX4_BENCH_INVOCATIONS` change the kernel's size.

#[path = "corpus/graphics.rs"]
mod graphics_corpus;

use ash::vk;
use compiler::abi::{
    BUFFER_DESCRIPTOR_SIZE, NUM_WORKGROUPS_OFFSET, PUSH_CONSTANTS_OFFSET, ROOT_TABLE_SIZE,
};
use compiler::{ComputeRequest, ResourceLayout, Target};
use sim_gpu::usc::{run_preshader, run_workgroups, FlatMemory, LaunchState, Program};
use sim_gpu::GpuMemory;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GLSLANG: &str = "/usr/bin/glslangValidator";
const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const VENDOR_APPLE: u32 = 0x106b;
const COMPILE_REPS: u32 = 20;
const NOEXEC_CHILD_ARG: &str = "--noexec-child";
const NOEXEC_DISPATCHES: u32 = 200;

/// The long-running kernel. Each invocation runs an LCG and xorshift on an integer and mixes
/// its low byte into a float; `f * 0.5` is exact, so fused or not, every backend that rounds
/// to nearest gets the CPU's bits.
const KERNEL: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint v[]; };
layout(push_constant) uniform Params { uint iterations; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint h = v[i];
    float f = float(i & 1023u);
    for (uint k = 0u; k < iterations; k++) {
        h = h * 1664525u + 1013904223u;
        h ^= h >> 13;
        f = f * 0.5 + float(h & 255u);
    }
    v[i] = h ^ floatBitsToUint(f);
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
    // `cargo bench` passes `--bench`; the child is started with its own argument.
    let args: Vec<String> = std::env::args().collect();
    let result = if args.iter().any(|a| a == NOEXEC_CHILD_ARG) {
        noexec_child()
    } else {
        run()
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let tmp = std::env::temp_dir().join(format!("agx4-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    let r = run_in(&tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    r
}

fn run_in(tmp: &Path) -> Result<()> {
    let agx4_manifest = write_agx4_manifest(tmp)?;
    let mut drivers = vec![agx4_manifest.display().to_string()];
    if Path::new(LAVAPIPE_MANIFEST).exists() {
        drivers.push(LAVAPIPE_MANIFEST.to_string());
    }
    // SAFETY: no other thread exists yet; the loader reads these when the instance is made.
    unsafe {
        std::env::set_var("VK_DRIVER_FILES", drivers.join(":"));
        std::env::set_var("NODEVICE_SELECT", "1");
        std::env::set_var("AGX4_KMD", "sim");
        std::env::remove_var("VK_INSTANCE_LAYERS");
        std::env::remove_var("AGX4_SIM_NOEXEC");
    }

    corpus(tmp)?;
    graphics_corpus::corpus(tmp)?;
    kernel(tmp, &agx4_manifest)
}

// ---------------------------------------------------------------------------------------------
// Part 1: the corpus through the compiler.

fn glslang(src: &Path, out: &Path) -> Result<Vec<u32>> {
    glslang_for(src, out, "vulkan1.0")
}

/// SPIR-V of the GLSL file `src` for the Vulkan version `env` (glslangValidator's
/// `--target-env`), written to `out` on the way.
fn glslang_for(src: &Path, out: &Path, env: &str) -> Result<Vec<u32>> {
    let o = Command::new(GLSLANG)
        .args(["-V", "--target-env", env, "-o"])
        .arg(out)
        .arg(src)
        .output()
        .map_err(|e| format!("running {GLSLANG}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "glslangValidator failed on {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let bytes = std::fs::read(out).map_err(|e| format!("reading {}: {e}", out.display()))?;
    ash::util::read_spv(&mut std::io::Cursor::new(bytes))
        .map_err(|e| format!("{}: {e}", out.display()))
}

fn compile(
    words: &[u32],
    layout: &ResourceLayout,
) -> std::result::Result<compiler::ComputeBinary, compiler::CompileError> {
    compiler::compile_compute(&ComputeRequest {
        spirv: words,
        entry_point: "main",
        specialization: &[],
        layout,
        target: Target::G13,
    })
}

struct Summary {
    n: usize,
    sum: u64,
    max: u64,
}

impl Summary {
    fn of(values: impl Iterator<Item = u64>) -> Summary {
        let mut s = Summary {
            n: 0,
            sum: 0,
            max: 0,
        };
        for v in values {
            s.n += 1;
            s.sum += v;
            s.max = s.max.max(v);
        }
        s
    }

    fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
}

/// Mesa's figures for one shader (`benches/data/mesa-25.0.7-compute.tsv`).
struct MesaFigures {
    instrs: u64,
    preamble: u64,
    gpr_halves: u64,
    spills: u64,
}

/// Mesa 25.0.7's AGX compiler on the same corpus, by shader name (see benches/data/README.md).
fn mesa_figures() -> Result<std::collections::HashMap<String, MesaFigures>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("data")
        .join("mesa-25.0.7-compute.tsv");
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut m = std::collections::HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| -> Result<u64> {
            f.get(i)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{}: bad line {line:?}", path.display()))
        };
        m.insert(
            f[0].to_string(),
            MesaFigures {
                instrs: num(1)?,
                preamble: num(2)?,
                gpr_halves: num(3)?,
                spills: num(4)?,
            },
        );
    }
    Ok(m)
}

fn corpus(tmp: &Path) -> Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("compute");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "comp"))
        .collect();
    names.sort();
    let mesa = mesa_figures()?;

    println!(
        "== Shader corpus: {} shaders in {}, agx4 compiler, Target::G13 ==",
        names.len(),
        dir.display()
    );
    println!("compile time over {COMPILE_REPS} repetitions each (after one warm-up), SPIR-V from glslangValidator -V, no specialization,");
    println!("buffer accesses unchecked (a device without robustness, as Mesa's figures were taken); gprs in 16-bit halves;");
    println!("Mesa 25.0.7's AGX compiler (benches/data) beside: main shader and uniform preamble instructions;");
    println!("on both sides the ratio compares main shaders (a preamble runs once per launch, not per invocation)");
    println!();
    println!(
        "{:<28} {:>9} {:>7} {:>8} {:>5} {:>6} | {:>6} {:>8} {:>5} {:>6} | {:>6}",
        "shader",
        "mean µs",
        "instrs",
        "preamble",
        "gprs",
        "spills",
        "mesa",
        "preamble",
        "gprs",
        "spills",
        "ratio"
    );
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    // (agx4 instructions, Mesa instructions) of the shaders both have figures for.
    let mut pairs: Vec<(String, u64, u64)> = Vec::new();
    for path in &names {
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let words = glslang(path, &tmp.join(format!("{name}.spv")))?;
        let mut layout = match compiler::reflect::layout_from_spirv(&words) {
            Ok(l) => l,
            Err(e) => {
                println!("{name:<28} layout: {e}");
                failures.push(name);
                continue;
            }
        };
        layout.buffer_robustness = compiler::BufferRobustness::Unchecked;
        let binary = match compile(&words, &layout) {
            Ok(b) => b,
            Err(e) => {
                println!("{name:<28} compile: {e}");
                failures.push(name);
                continue;
            }
        };
        let mut times = Vec::new();
        for _ in 0..COMPILE_REPS {
            let t = Instant::now();
            let b = compile(&words, &layout).map_err(|e| format!("{name}: {e}"))?;
            times.push(t.elapsed());
            std::hint::black_box(b);
        }
        let mean = times.iter().sum::<Duration>() / COMPILE_REPS;
        let max = times.iter().max().copied().unwrap_or_default();
        let s = binary.stats;
        let theirs = match mesa.get(&name) {
            Some(m) => {
                pairs.push((name.clone(), u64::from(s.instructions), m.instrs));
                format!(
                    "{:>6} {:>8} {:>5} {:>6} | {:>6.2}",
                    m.instrs,
                    m.preamble,
                    m.gpr_halves,
                    m.spills,
                    f64::from(s.instructions) / m.instrs.max(1) as f64
                )
            }
            None => format!("{:>6} {:>8} {:>5} {:>6} | {:>6}", "-", "-", "-", "-", "-"),
        };
        println!(
            "{name:<28} {:>9.1} {:>7} {:>8} {:>5} {:>6} | {theirs}",
            mean.as_secs_f64() * 1e6,
            s.instructions,
            s.preamble_instructions,
            s.gpr_halves,
            s.spills,
        );
        rows.push((mean, max, s));
    }

    let mean_time = Summary::of(rows.iter().map(|r| r.0.as_nanos() as u64));
    let max_time = Summary::of(rows.iter().map(|r| r.1.as_nanos() as u64));
    let instrs = Summary::of(rows.iter().map(|r| u64::from(r.2.instructions)));
    let bytes = Summary::of(rows.iter().map(|r| u64::from(r.2.code_bytes)));
    println!();
    println!(
        "compiled {} of {} shaders{}",
        rows.len(),
        names.len(),
        if failures.is_empty() {
            String::new()
        } else {
            format!("; failed: {}", failures.join(", "))
        }
    );
    println!(
        "compile time:  mean over shaders {:.1} µs, slowest shader's mean {:.1} µs, slowest single compile {:.1} µs, sum of means {:.2} ms",
        mean_time.mean() / 1e3,
        mean_time.max as f64 / 1e3,
        max_time.max as f64 / 1e3,
        mean_time.sum as f64 / 1e6
    );
    println!(
        "instructions:  mean {:.1}, max {}, total {}",
        instrs.mean(),
        instrs.max,
        instrs.sum
    );
    println!(
        "code bytes:    mean {:.1}, max {}, total {}",
        bytes.mean(),
        bytes.max,
        bytes.sum
    );
    if !pairs.is_empty() {
        let ours: u64 = pairs.iter().map(|p| p.1).sum();
        let theirs: u64 = pairs.iter().map(|p| p.2).sum();
        let mut ratios: Vec<f64> = pairs
            .iter()
            .map(|p| p.1 as f64 / p.2.max(1) as f64)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let over: Vec<&str> = pairs
            .iter()
            .filter(|p| p.1 as f64 > 1.1 * p.2 as f64)
            .map(|p| p.0.as_str())
            .collect();
        println!(
            "against Mesa:  {} shaders; instructions agx4 {ours}, Mesa {theirs} (main shaders, preambles not counted), ratio {:.2}; per shader median {:.2}, max {:.2}; {} above 1.1x",
            pairs.len(),
            ours as f64 / theirs.max(1) as f64,
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1],
            over.len()
        );
    }
    println!();
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Part 2: one long kernel on agx4, lavapipe and the in-process simulator.

/// `libvulkan_agx4.so` built with this bench: `target/<profile>/`, beside `deps/`.
fn agx4_library() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let deps = exe.parent().ok_or("bench executable has no directory")?;
    let candidates = [
        deps.parent().map(|p| p.join("libvulkan_agx4.so")),
        Some(deps.join("libvulkan_agx4.so")),
    ];
    candidates
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

fn write_agx4_manifest(tmp: &Path) -> Result<PathBuf> {
    let lib = agx4_library()?;
    let manifest = tmp.join("agx4_icd.json");
    let json = format!(
        r#"{{"file_format_version": "1.0.1", "ICD": {{"library_path": "{}", "api_version": "1.3.239"}}}}"#,
        lib.display()
    );
    std::fs::write(&manifest, json).map_err(|e| format!("writing {}: {e}", manifest.display()))?;
    Ok(manifest)
}

fn initial(invocations: u32) -> Vec<u32> {
    (0..invocations)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect()
}

/// The kernel on the CPU.
fn expected(invocations: u32, iterations: u32) -> Vec<u32> {
    initial(invocations)
        .into_iter()
        .enumerate()
        .map(|(i, mut h)| {
            let mut f = (i as u32 & 1023) as f32;
            for _ in 0..iterations {
                h = h.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                h ^= h >> 13;
                f = f * 0.5 + (h & 255) as f32;
            }
            h ^ f.to_bits()
        })
        .collect()
}

fn mismatches(got: &[u32], want: &[u32]) -> usize {
    got.iter().zip(want).filter(|(g, w)| g != w).count() + got.len().abs_diff(want.len())
}

fn kernel(tmp: &Path, agx4_manifest: &Path) -> Result<()> {
    let iterations = env_u32("AGX4_BENCH_ITERATIONS", 2000);
    let invocations = env_u32("AGX4_BENCH_INVOCATIONS", 65536).div_ceil(64) * 64;
    let src = tmp.join("kernel.comp");
    std::fs::write(&src, KERNEL).map_err(|e| format!("writing {}: {e}", src.display()))?;
    let words = glslang(&src, &tmp.join("kernel.spv"))?;

    println!("== Long kernel: {invocations} invocations x {iterations} loop iterations (LCG + xorshift + float mix), workgroups of 64 ==");
    let t = Instant::now();
    let want = expected(invocations, iterations);
    let cpu_time = t.elapsed();

    let sim = simulate(&words, invocations, iterations, &want)?;

    let vk_runs = vulkan_runs(&words, invocations, iterations, &want);
    let noexec = noexec_in_child(agx4_manifest, iterations, invocations);

    println!();
    if let Ok(runs) = &vk_runs {
        let mut shown: Vec<&str> = Vec::new();
        for r in runs {
            if !shown.contains(&r.device.as_str()) {
                println!(
                    "{}: {}",
                    if r.is_agx4 { "agx4" } else { "lavapipe" },
                    r.device
                );
                shown.push(&r.device);
            }
        }
    }
    const W: usize = 68;
    println!("{:<W$} {:>12} {:>14}", "", "time", "lane-instr/s");
    let rate = |d: Duration| sim.lane_instructions as f64 / d.as_secs_f64();
    println!(
        "{:<W$} {:>9.1} ms {:>14}",
        "agx4 compiler + simulated USC, in process, verified",
        sim.time.as_secs_f64() * 1e3,
        format!("{:.3e}", rate(sim.time))
    );
    match &vk_runs {
        Ok(runs) => {
            for r in runs {
                let label = format!(
                    "{} via Vulkan, submit to fence, {}",
                    r.label,
                    if r.mismatches == 0 {
                        "verified".to_string()
                    } else {
                        format!("{} WRONG", r.mismatches)
                    }
                );
                let rate = if r.is_agx4 {
                    format!("{:.3e}", rate(r.dispatch))
                } else {
                    "-".to_string()
                };
                println!(
                    "{label:<W$} {:>9.1} ms {rate:>14}",
                    r.dispatch.as_secs_f64() * 1e3
                );
            }
        }
        Err(e) => println!("Vulkan runs failed: {e}"),
    }
    println!(
        "{:<W$} {:>9.1} ms {:>14}",
        "CPU reference, one thread, for scale",
        cpu_time.as_secs_f64() * 1e3,
        "-"
    );
    println!();
    println!(
        "simulated work: {} lane-instructions ({} SIMD-group instructions, {} workgroups; {:.1} lane-instructions per invocation per iteration)",
        sim.lane_instructions,
        sim.group_instructions,
        sim.workgroups,
        sim.lane_instructions as f64 / f64::from(invocations) / f64::from(iterations.max(1))
    );
    println!(
        "compiled kernel: {} instructions, {} code bytes, {} GPRs",
        sim.instructions,
        sim.code_bytes,
        sim.gpr_halves / 2
    );
    println!("agx4 lane-instr/s through Vulkan uses the in-process count: the ICD runs the same compiled code on the same simulator model.");
    match noexec {
        Ok(line) => println!("{line}"),
        Err(e) => println!("driver CPU cost (AGX4_SIM_NOEXEC=1 child): not measured: {e}"),
    }
    if let Ok(runs) = &vk_runs {
        if let Some(bad) = runs.iter().find(|r| r.mismatches > 0) {
            return Err(format!(
                "{} produced {} wrong elements",
                bad.label, bad.mismatches
            ));
        }
    }
    vk_runs.map(|_| ())
}

struct SimRun {
    lane_instructions: u64,
    group_instructions: u64,
    workgroups: u64,
    time: Duration,
    instructions: u32,
    code_bytes: u32,
    gpr_halves: u32,
}

/// The simulated USC's program of `code`.
fn decoded(code: &[u8]) -> Result<Program> {
    let mut instrs = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let (i, len) = hw::g13::decode(&code[at..])
            .map_err(|e| format!("decoding the kernel at {at:#x}: {e:?}"))?;
        instrs.push((at as u32, i));
        at += len;
    }
    Program::new(0, instrs).map_err(|e| format!("{e:?}"))
}

/// Compiles the kernel as the ICD would and runs it on the simulated USC in this process,
/// with the root table, descriptor set and buffer laid out as `compiler::abi` says.
fn simulate(words: &[u32], invocations: u32, iterations: u32, want: &[u32]) -> Result<SimRun> {
    const SET_VA: u64 = 0x10_0000_0000;
    const DATA_VA: u64 = 0x20_0000_0000;
    let layout = compiler::reflect::layout_from_spirv(words).map_err(|e| e.to_string())?;
    let binary = compile(words, &layout).map_err(|e| format!("compiling the kernel: {e}"))?;
    let program = decoded(binary.main_code())?;

    let data: Vec<u8> = initial(invocations)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let binding = layout
        .sets
        .first()
        .and_then(|s| s.as_ref())
        .and_then(|s| s.bindings.first())
        .ok_or("kernel has no set 0 binding 0")?;
    let mut set = vec![0u8; (binding.offset + BUFFER_DESCRIPTOR_SIZE) as usize];
    let d = binding.offset as usize;
    set[d..d + 8].copy_from_slice(&DATA_VA.to_le_bytes());
    set[d + 8..d + 12].copy_from_slice(&(data.len() as u32).to_le_bytes());

    let groups = invocations / binary.local_size[0];
    let mut root = vec![0u8; ROOT_TABLE_SIZE as usize];
    let s = compiler::abi::set_address_offset(0) as usize;
    root[s..s + 8].copy_from_slice(&SET_VA.to_le_bytes());
    for (k, g) in [groups, 1, 1].iter().enumerate() {
        let o = NUM_WORKGROUPS_OFFSET as usize + 4 * k;
        root[o..o + 4].copy_from_slice(&g.to_le_bytes());
    }
    let p = PUSH_CONSTANTS_OFFSET as usize;
    root[p..p + 4].copy_from_slice(&iterations.to_le_bytes());

    let mut launch = LaunchState::new(binary.local_size, [invocations, 1, 1]);
    launch.shared_bytes = binary.shared_bytes;
    launch.stack_bytes = binary.scratch_bytes;
    launch.max_lane_steps = u64::MAX;

    let mut mem = FlatMemory::new();
    mem.map(SET_VA, set);
    mem.map(DATA_VA, data.clone());
    // The launch preloads the root table's uniforms and the binary's preloads.
    let uniforms = binary.launch_uniforms(&root, &mut |va, out| {
        let _ = mem.read(va, out);
    });
    for (h, u) in uniforms.into_iter().enumerate() {
        if let Some(slot) = launch.uniforms.get_mut(h) {
            *slot = u;
        }
    }
    let t = Instant::now();
    if let Some(code) = binary.preamble_code() {
        let (uniforms, _) = run_preshader(&decoded(code)?, &launch, &mut mem)
            .map_err(|f| format!("the kernel's preamble faulted: {f:?}"))?;
        launch.uniforms = uniforms;
    }
    let stats = run_workgroups(&program, &launch, &mut mem)
        .map_err(|f| format!("simulated kernel faulted: {f:?}"))?;
    let time = t.elapsed();
    let mut out = vec![0u8; data.len()];
    mem.read(DATA_VA, &mut out).map_err(|f| format!("{f:?}"))?;
    let got: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let bad = mismatches(&got, want);
    if bad > 0 {
        return Err(format!(
            "the in-process simulator got {bad} of {invocations} elements wrong"
        ));
    }
    Ok(SimRun {
        lane_instructions: stats.lane_instructions,
        group_instructions: stats.group_instructions,
        workgroups: stats.workgroups,
        time,
        instructions: binary.stats.instructions,
        code_bytes: binary.stats.code_bytes,
        gpr_halves: binary.gpr_halves,
    })
}

struct VkRun {
    label: String,
    device: String,
    is_agx4: bool,
    dispatch: Duration,
    mismatches: usize,
}

fn load_instance() -> Result<(ash::Entry, ash::Instance)> {
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
    .map_err(|e| format!("vkCreateInstance: {e}"))?;
    Ok((entry, instance))
}

fn device_name(instance: &ash::Instance, pdev: vk::PhysicalDevice) -> (String, u32) {
    // SAFETY: a physical device of this instance.
    let p = unsafe { instance.get_physical_device_properties(pdev) };
    (
        p.device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        p.vendor_id,
    )
}

/// The kernel on agx4 and on lavapipe, three dispatches each: the best of three for both,
/// and agx4's first dispatch besides, which includes translating the kernel to host code
/// (lavapipe compiles when the pipeline is made, outside the timed dispatch).
fn vulkan_runs(
    words: &[u32],
    invocations: u32,
    iterations: u32,
    want: &[u32],
) -> Result<Vec<VkRun>> {
    const REPS: usize = 3;
    let (_entry, instance) = load_instance()?;
    let r = (|| {
        // SAFETY: valid instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?;
        let mut runs = Vec::new();
        let agx4 = pdevs
            .iter()
            .copied()
            .find(|&p| device_name(&instance, p).1 == VENDOR_APPLE)
            .ok_or("the loader offers no agx4 device")?;
        let lvp = pdevs
            .iter()
            .copied()
            .find(|&p| device_name(&instance, p).0.contains("llvmpipe"));
        for pdev in [Some(agx4), lvp] {
            let Some(pdev) = pdev else {
                println!("lavapipe: not installed ({LAVAPIPE_MANIFEST}), skipped");
                continue;
            };
            let (name, vendor) = device_name(&instance, pdev);
            let mut k = VkKernel::new(&instance, pdev, words, invocations, iterations)?;
            let mut times = Vec::with_capacity(REPS);
            let mut wrong = 0;
            for _ in 0..REPS {
                match k.run_once(invocations) {
                    Ok(d) => {
                        times.push(d);
                        wrong = wrong.max(mismatches(&k.read(), want));
                    }
                    Err(e) => {
                        k.destroy();
                        return Err(format!("{name}: {e}"));
                    }
                }
            }
            k.destroy();
            let is_agx4 = vendor == VENDOR_APPLE;
            let who = if is_agx4 { "agx4" } else { "lavapipe" };
            if is_agx4 {
                runs.push(VkRun {
                    label: format!("{who} (first, with translation)"),
                    device: name.clone(),
                    is_agx4,
                    dispatch: times[0],
                    mismatches: wrong,
                });
            }
            runs.push(VkRun {
                label: format!("{who} (best of {REPS})"),
                device: name,
                is_agx4,
                dispatch: times.iter().copied().min().unwrap_or_default(),
                mismatches: wrong,
            });
        }
        Ok(runs)
    })();
    // SAFETY: every device was destroyed.
    unsafe { instance.destroy_instance(None) };
    r
}

/// Device, buffer, pipeline and command buffer for the kernel on one physical device.
struct VkKernel {
    device: ash::Device,
    queue: vk::Queue,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
    len: usize,
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    command_pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    iterations: u32,
}

fn vkr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e}")
}

impl VkKernel {
    fn new(
        instance: &ash::Instance,
        pdev: vk::PhysicalDevice,
        words: &[u32],
        invocations: u32,
        iterations: u32,
    ) -> Result<VkKernel> {
        // SAFETY (every call in this function): valid handles of this instance/device and
        // create infos pointing at live data.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let device = unsafe {
            instance.create_device(
                pdev,
                &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                None,
            )
        }
        .map_err(vkr("vkCreateDevice"))?;
        let queue = unsafe { device.get_device_queue(family, 0) };
        let mut k = VkKernel {
            device,
            queue,
            buffer: vk::Buffer::null(),
            memory: vk::DeviceMemory::null(),
            ptr: std::ptr::null_mut(),
            len: invocations as usize,
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            module: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            command_pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            iterations,
        };
        match k.build(instance, pdev, family, words) {
            Ok(()) => Ok(k),
            Err(e) => {
                k.destroy();
                Err(e)
            }
        }
    }

    fn build(
        &mut self,
        instance: &ash::Instance,
        pdev: vk::PhysicalDevice,
        family: u32,
        words: &[u32],
    ) -> Result<()> {
        let d = &self.device;
        let size = (self.len * 4) as vk::DeviceSize;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER);
        // SAFETY (every call below): as in `new`.
        self.buffer = unsafe { d.create_buffer(&info, None) }.map_err(vkr("vkCreateBuffer"))?;
        let req = unsafe { d.get_buffer_memory_requirements(self.buffer) };
        let props = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ty = (0..props.memory_type_count)
            .find(|&t| {
                req.memory_type_bits & (1 << t) != 0
                    && props.memory_types[t as usize].property_flags.contains(want)
            })
            .ok_or("no host-coherent memory type")?;
        self.memory = unsafe {
            d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        }
        .map_err(vkr("vkAllocateMemory"))?;
        unsafe { d.bind_buffer_memory(self.buffer, self.memory, 0) }
            .map_err(vkr("vkBindBufferMemory"))?;
        self.ptr =
            unsafe { d.map_memory(self.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }
                .map_err(vkr("vkMapMemory"))?
                .cast();

        let binding = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        self.set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding),
                None,
            )
        }
        .map_err(vkr("vkCreateDescriptorSetLayout"))?;
        let layouts = [self.set_layout];
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(4)];
        self.pipeline_layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&layouts)
                    .push_constant_ranges(&push),
                None,
            )
        }
        .map_err(vkr("vkCreatePipelineLayout"))?;
        self.module = unsafe {
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
        }
        .map_err(vkr("vkCreateShaderModule"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.pipeline_layout)];
        self.pipeline =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
                .map_err(|(_, e)| format!("vkCreateComputePipelines: {e}"))?[0];

        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)];
        self.pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(vkr("vkCreateDescriptorPool"))?;
        self.set = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(vkr("vkAllocateDescriptorSets"))?[0];
        let bi = [vk::DescriptorBufferInfo::default()
            .buffer(self.buffer)
            .range(vk::WHOLE_SIZE)];
        let w = [vk::WriteDescriptorSet::default()
            .dst_set(self.set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&bi)];
        unsafe { d.update_descriptor_sets(&w, &[]) };

        self.command_pool = unsafe {
            d.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                None,
            )
        }
        .map_err(vkr("vkCreateCommandPool"))?;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        self.cmd = unsafe { d.allocate_command_buffers(&info) }
            .map_err(vkr("vkAllocateCommandBuffers"))?[0];
        self.fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(vkr("vkCreateFence"))?;
        Ok(())
    }

    /// Records the dispatch into the (reset) command buffer.
    fn record(&self) -> Result<()> {
        let d = &self.device;
        // SAFETY: the command buffer is not pending (its fence was waited on) and every handle
        // it uses is live.
        unsafe {
            d.reset_command_pool(self.command_pool, vk::CommandPoolResetFlags::empty())
                .map_err(vkr("vkResetCommandPool"))?;
            d.begin_command_buffer(self.cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(vkr("vkBeginCommandBuffer"))?;
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline_layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                self.cmd,
                self.pipeline_layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &self.iterations.to_le_bytes(),
            );
            d.cmd_dispatch(self.cmd, (self.len as u32).div_ceil(64), 1, 1);
            let b = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            d.cmd_pipeline_barrier(
                self.cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &b,
                &[],
                &[],
            );
            d.end_command_buffer(self.cmd)
                .map_err(vkr("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    /// Submits the recorded command buffer and waits: the time from submit to fence.
    fn submit(&self) -> Result<Duration> {
        let d = &self.device;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let t = Instant::now();
        // SAFETY: the command buffer is recorded and not pending; the fence is unsignalled.
        unsafe {
            d.queue_submit(self.queue, &submit, self.fence)
                .map_err(vkr("vkQueueSubmit"))?;
            d.wait_for_fences(&[self.fence], true, u64::MAX)
                .map_err(vkr("vkWaitForFences"))?;
        }
        let e = t.elapsed();
        // SAFETY: the fence is signalled and no longer in use.
        unsafe { d.reset_fences(&[self.fence]) }.map_err(vkr("vkResetFences"))?;
        Ok(e)
    }

    /// Fresh input, one dispatch: the time from submit to fence.
    fn run_once(&mut self, invocations: u32) -> Result<Duration> {
        let init = initial(invocations);
        // SAFETY: the mapping holds `len` u32s and the GPU is idle.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }.copy_from_slice(&init);
        self.record()?;
        self.submit()
    }

    fn read(&self) -> Vec<u32> {
        // SAFETY: the mapping holds `len` u32s and the GPU is idle.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }.to_vec()
    }

    fn destroy(self) {
        let d = &self.device;
        // SAFETY: the GPU is idle; null handles are ignored.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_buffer(self.buffer, None);
            d.free_memory(self.memory, None);
            d.destroy_device(None);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driver CPU cost: a child process on agx4 alone with AGX4_SIM_NOEXEC=1.

fn noexec_in_child(agx4_manifest: &Path, iterations: u32, invocations: u32) -> Result<String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .arg(NOEXEC_CHILD_ARG)
        .env("AGX4_SIM_NOEXEC", "1")
        .env("VK_DRIVER_FILES", agx4_manifest)
        .env("AGX4_BENCH_ITERATIONS", iterations.to_string())
        .env("AGX4_BENCH_INVOCATIONS", invocations.to_string())
        .output()
        .map_err(|e| format!("starting the child: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "child failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

fn noexec_child() -> Result<()> {
    let iterations = env_u32("AGX4_BENCH_ITERATIONS", 2000);
    let invocations = env_u32("AGX4_BENCH_INVOCATIONS", 65536);
    let tmp = std::env::temp_dir().join(format!("agx4-bench-child-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
    let src = tmp.join("kernel.comp");
    std::fs::write(&src, KERNEL).map_err(|e| format!("writing {}: {e}", src.display()))?;
    let words = glslang(&src, &tmp.join("kernel.spv"));
    let _ = std::fs::remove_dir_all(&tmp);
    let words = words?;

    let (_entry, instance) = load_instance()?;
    let r = (|| {
        // SAFETY: valid instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?;
        let pdev = pdevs
            .iter()
            .copied()
            .find(|&p| device_name(&instance, p).1 == VENDOR_APPLE)
            .ok_or("no agx4 device")?;
        let k = VkKernel::new(&instance, pdev, &words, invocations, iterations)?;
        let mut record = Vec::new();
        let mut submit = Vec::new();
        let r = (0..NOEXEC_DISPATCHES).try_for_each(|_| {
            let t = Instant::now();
            k.record()?;
            record.push(t.elapsed());
            submit.push(k.submit()?);
            Ok::<(), String>(())
        });
        k.destroy();
        r?;
        let us =
            |v: &[Duration]| v.iter().sum::<Duration>().as_secs_f64() * 1e6 / v.len().max(1) as f64;
        let min = |v: &[Duration]| v.iter().min().copied().unwrap_or_default().as_secs_f64() * 1e6;
        println!(
            "driver CPU cost per dispatch (child process, AGX4_SIM_NOEXEC=1: streams and shaders parsed, not run; {NOEXEC_DISPATCHES} dispatches): \
             record {:.1} µs mean / {:.1} µs min, submit to fence {:.1} µs mean / {:.1} µs min",
            us(&record),
            min(&record),
            us(&submit),
            min(&submit)
        );
        Ok(())
    })();
    // SAFETY: the device was destroyed.
    unsafe { instance.destroy_instance(None) };
    r
}
