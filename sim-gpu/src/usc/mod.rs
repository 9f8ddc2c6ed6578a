//! The USC, the shader core: runs a decoded [`Program`] over a grid of workgroups.
//!
//! Entry point: [`run_workgroups`]`(program, launch, memory)`. The caller (the CDM walker, or
//! a test or benchmark) gives the decoded shader, a [`LaunchState`] (uniform file, grid and
//! workgroup sizes, threadgroup and stack sizes, an instruction budget) and GPU memory; it gets
//! back [`ExecStats`] or the first [`Fault`].
//!
//! Model:
//! - Workgroups run one after another in grid order (x fastest). A workgroup of N threads is
//!   split into ceil(N / 32) SIMD groups; thread t is lane t % 32 of group t / 32. Lanes past
//!   N, and threads whose grid position lies outside the grid, never execute.
//! - Groups run round robin: each runs until it stops or reaches `threadgroup_barrier`; when
//!   every group that has not stopped waits at the barrier, all of them continue. Everything
//!   is deterministic.
//! - Each group has 32 lanes of [`GPR_HALVES`] 16-bit halves, zeroed at start. The exec mask
//!   is `r0l == 0` per lane, maintained by the exec-mask instructions as applegpu describes.
//! - Loads complete immediately; `wait` and `memory_barrier` have nothing to do.
//! - Graphics launches ([`run_graphics`]) are one SIMD group. [`LaunchState::preloads`] sets
//!   registers per lane before the first instruction (a vertex shader's r5/r6). In a
//!   fragment-stage launch `get_sr` 80/81 read the lane's framebuffer pixel and 62
//!   (`BACKFACING`) the primitive's facing, 124 (`INPUT_SAMPLE_MASK`) the lane's rasterized
//!   coverage, 60 (`COVERAGE_MASK`) its coverage now and 63 (`IS_ACTIVE_THREAD`) whether it
//!   has any; `st_tile` writes only samples the lane covers. Lanes whose pixel has no
//!   covered sample left are helpers: they run (quad derivatives read them) but their device
//!   stores and atomics do nothing.
//! - A budget of lane steps (32 per instruction a group issues) turns an endless loop into a
//!   [`Fault::Shader`].
//!
//! - A preshader ([`run_preshader`]) is one SIMD group with only lane 0 alive, run before a
//!   launch's workgroups; its `uniform_store`s write the uniform file the launch then runs
//!   with. `uniform_store` anywhere else faults.
//!
//! Shaders in GPU memory are decoded once and cached by [`load_program`].

mod block_store;
mod flat_memory;
mod float;
mod graphics;
mod group;
pub mod jit;
mod lanes;
mod loader;
mod memops;
mod parallel;
mod program;
mod reduce;
pub mod texture;
mod texture_2d;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graphics;

pub use flat_memory::FlatMemory;
#[cfg(test)]
pub use flat_memory::Locked;
pub use graphics::{FragmentContext, GraphicsContext, Plane, VertexContext, MAX_SAMPLES};
pub use loader::load_program;
pub use program::Program;

use crate::{Fault, GpuMemory};
use group::{GroupState, Position, SimdGroup};
use hw::isa::{SIMD_WIDTH, UNIFORM_HALVES};
use memops::MemCtx;

/// Most threads a workgroup may have.
pub const MAX_WORKGROUP_THREADS: u32 = 1024;

/// Default budget per dispatch: 2^38 lane steps, over twenty minutes of simulation. It plays
/// the part of the firmware's hang detection, so a shader that never ends faults instead of
/// hanging the queue, while any kernel a benchmark or test runs on purpose fits easily.
pub const DEFAULT_MAX_LANE_STEPS: u64 = 1 << 38;

/// Everything a dispatch runs under besides the program and memory.
#[derive(Debug, Clone)]
pub struct LaunchState {
    /// The uniform file, [`UNIFORM_HALVES`] halves (shorter is zero-extended).
    pub uniforms: Vec<u16>,
    /// Threads per workgroup.
    pub local_size: [u32; 3],
    /// Grid size in threads; workgroups = ceil(grid / local) per dimension, and threads past
    /// the grid in the last workgroups do not run.
    pub grid_threads: [u32; 3],
    /// Threadgroup memory bytes per workgroup.
    pub shared_bytes: u32,
    /// Stack bytes per thread.
    pub stack_bytes: u32,
    /// Lane-step budget for the whole dispatch.
    pub max_lane_steps: u64,
    /// Registers set before the first instruction, per thread of the workgroup (thread t
    /// gets `values[t]`; threads past the list get 0). Vertex shaders get their vertex and
    /// instance numbers this way.
    pub preloads: Vec<Preload>,
    /// Texture and sampler state registers and the sampler heap of a compute launch (a
    /// graphics launch carries its own in [`GraphicsContext`]).
    pub textures: texture::TextureState,
    /// Which executor runs the program ([`jit::Executor::from_env`] unless a caller, such as
    /// the differential test, chooses).
    pub executor: jit::Executor,
}

/// One 32-bit register preloaded per thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preload {
    pub reg: hw::isa::Reg,
    pub values: Vec<u32>,
}

impl LaunchState {
    /// A launch with no uniforms, threadgroup memory or stack and the default budget.
    pub fn new(local_size: [u32; 3], grid_threads: [u32; 3]) -> LaunchState {
        LaunchState {
            uniforms: vec![0; usize::from(UNIFORM_HALVES)],
            local_size,
            grid_threads,
            shared_bytes: 0,
            stack_bytes: 0,
            max_lane_steps: DEFAULT_MAX_LANE_STEPS,
            preloads: Vec::new(),
            textures: texture::TextureState::default(),
            executor: jit::Executor::from_env(),
        }
    }
}

/// What a dispatch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecStats {
    /// Instructions times active lanes: the benchmark's unit of work.
    pub lane_instructions: u64,
    /// Instructions issued by SIMD groups.
    pub group_instructions: u64,
    pub workgroups: u64,
}

impl std::ops::AddAssign for ExecStats {
    fn add_assign(&mut self, o: ExecStats) {
        self.lane_instructions += o.lane_instructions;
        self.group_instructions += o.group_instructions;
        self.workgroups += o.workgroups;
    }
}

fn launch_fault(why: String) -> Fault {
    Fault::Shader { pc: 0, reason: why }
}

/// Run every workgroup of the grid. See the module documentation for the model.
pub fn run_workgroups(
    program: &Program,
    launch: &LaunchState,
    mem: &mut dyn GpuMemory,
) -> Result<ExecStats, Fault> {
    run_with(program, launch, mem, None)
}

/// Runs a preshader: one SIMD group with only lane 0 active (workgroup 0, local id 0), over
/// `launch`'s uniforms, stack and textures; returns the uniform file after its
/// uniform_stores.
///
/// The group sees a workgroup of one thread (`local_size` reads 1), no threadgroup memory
/// and none of `launch.preloads`. Each `uniform_store` changes the uniform file before the
/// next instruction, so the preshader reads back what it stored. A `threadgroup_barrier`
/// faults (a preshader has no workgroup to wait for), as do graphics instructions (it has no
/// pixel or vertex); `launch.max_lane_steps` bounds it like any launch. The returned
/// [`ExecStats`] count no workgroup: the preshader is not part of the grid.
pub fn run_preshader(
    program: &Program,
    launch: &LaunchState,
    mem: &mut dyn GpuMemory,
) -> Result<(Vec<u16>, ExecStats), Fault> {
    let mut uniforms = launch.uniforms.clone();
    uniforms.resize(usize::from(UNIFORM_HALVES), 0);
    // Texture state reaches the group as in a compute launch: through a context with no
    // fragment or vertex part.
    let mut textures = (!launch.textures.is_empty()).then(|| GraphicsContext {
        textures: launch.textures.clone(),
        ..GraphicsContext::default()
    });
    let mut g = SimdGroup::new();
    g.reset(
        1,
        Position {
            workgroup: [0; 3],
            local_size: [1, 1, 1],
            simd_index: 0,
        },
    );
    let ids = [[0u32; 3]; SIMD_WIDTH];
    let mut stats = ExecStats::default();
    let mut budget = launch.max_lane_steps;
    let mut pending = Vec::new();
    let mut r = Ok(());
    while g.state == GroupState::Running {
        if budget < SIMD_WIDTH as u64 {
            r = Err(Fault::Shader {
                pc: program.pc(g.pc),
                reason: "preshader instruction budget exhausted (endless loop?)".into(),
            });
            break;
        }
        budget -= SIMD_WIDTH as u64;
        stats.group_instructions += 1;
        stats.lane_instructions += u64::from(g.exec.count_ones());
        r = match g.step_alu(program, &uniforms, &ids) {
            Ok(true) => Ok(()),
            Ok(false) => memops::step_mem(
                &mut g,
                program,
                &mut MemCtx {
                    device: &mut *mem,
                    shared: &mut [],
                    stack_bytes: launch.stack_bytes,
                    uniforms: &uniforms,
                    graphics: textures.as_mut(),
                    uniform_stores: Some(&mut pending),
                },
            ),
            Err(e) => Err(e),
        };
        if r.is_err() {
            break;
        }
        for (half, v) in pending.drain(..) {
            uniforms[half] = v;
        }
        if g.state == GroupState::AtBarrier {
            r = Err(Fault::Shader {
                pc: program.pc(g.pc.saturating_sub(1)),
                reason: "threadgroup_barrier in a preshader".into(),
            });
            break;
        }
    }
    r.map(|()| (uniforms, stats))
}

/// Runs a graphics launch: one workgroup of at most [`SIMD_WIDTH`] threads whose lane i is
/// the pixel or vertex in slot i of `gfx`'s contexts. The contexts hold the results after.
pub fn run_graphics(
    program: &Program,
    launch: &LaunchState,
    mem: &mut dyn GpuMemory,
    gfx: &mut GraphicsContext,
) -> Result<ExecStats, Fault> {
    let [lx, ly, lz] = launch.local_size;
    let single = launch.grid_threads == launch.local_size;
    if u64::from(lx) * u64::from(ly) * u64::from(lz) > SIMD_WIDTH as u64 || !single {
        return Err(launch_fault(
            "a graphics launch is one workgroup of at most one SIMD group".into(),
        ));
    }
    run_with(program, launch, mem, Some(gfx))
}

fn run_with(
    program: &Program,
    launch: &LaunchState,
    mem: &mut dyn GpuMemory,
    gfx: Option<&mut GraphicsContext>,
) -> Result<ExecStats, Fault> {
    let graphics = gfx.is_some();
    // A compute launch with texture state reaches it through a context with no fragment or
    // vertex part, so graphics instructions still fault as they would without one.
    let mut compute_textures;
    let gfx = match gfx {
        Some(g) => Some(g),
        None if !launch.textures.is_empty() => {
            compute_textures = GraphicsContext {
                textures: launch.textures.clone(),
                ..GraphicsContext::default()
            };
            Some(&mut compute_textures)
        }
        None => None,
    };
    let [lx, ly, lz] = launch.local_size;
    let threads = u64::from(lx) * u64::from(ly) * u64::from(lz);
    if threads == 0 || threads > u64::from(MAX_WORKGROUP_THREADS) {
        return Err(launch_fault(format!(
            "workgroup of {lx}x{ly}x{lz} threads is not allowed"
        )));
    }
    let threads = threads as u32;
    let wg_count: [u32; 3] =
        std::array::from_fn(|i| launch.grid_threads[i].div_ceil(launch.local_size[i]));

    let pool = crate::pool::threads();
    let many = wg_count.iter().map(|&n| u64::from(n)).product::<u64>() > 1;
    if !graphics && many && pool > 1 && parallel::independent(program) {
        if let Some(shared) = mem.shared() {
            return parallel::run(
                program,
                launch,
                shared,
                gfx.as_deref(),
                threads,
                wg_count,
                pool,
                crate::pool::ALONE,
            );
        }
    }
    let mut scratch = SCRATCH.take().unwrap_or_default();
    let r = run_in(program, launch, mem, gfx, &mut scratch, threads, wg_count);
    SCRATCH.set(Some(scratch));
    r
}

/// Buffers a launch needs whatever it runs, kept from one launch to the next. Render passes
/// make a launch per 32 pixels of every tile program and every primitive in a tile, most of
/// them a few instructions long: allocating and zeroing a 16 KiB register file per SIMD
/// group (and the uniform file, and the thread ids) cost more than running them.
#[derive(Default)]
struct Scratch {
    groups: Vec<SimdGroup>,
    uniforms: Vec<u16>,
    local_ids: LocalIds,
}

thread_local! {
    /// `None` while a launch of this thread holds it.
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// The body of [`run_with`] over reused buffers. Every group is reset before it runs, so
/// what a buffer held from an earlier launch is never seen.
fn run_in(
    program: &Program,
    launch: &LaunchState,
    mem: &mut dyn GpuMemory,
    mut gfx: Option<&mut GraphicsContext>,
    scratch: &mut Scratch,
    threads: u32,
    wg_count: [u32; 3],
) -> Result<ExecStats, Fault> {
    let [lx, ly, _] = launch.local_size;
    let groups_per_wg = threads.div_ceil(SIMD_WIDTH as u32) as usize;
    // A launch's uniform file is usually whole already (the USC words make it so): then it
    // is read in place rather than copied, 1 KiB per launch of a few pixels.
    let uniforms = if launch.uniforms.len() == usize::from(UNIFORM_HALVES) {
        &launch.uniforms[..]
    } else {
        let u = &mut scratch.uniforms;
        u.clear();
        u.extend_from_slice(&launch.uniforms);
        u.resize(usize::from(UNIFORM_HALVES), 0);
        &u[..]
    };
    let mut shared = vec![0u8; launch.shared_bytes as usize];
    let groups = &mut scratch.groups;
    groups.truncate(groups_per_wg);
    while groups.len() < groups_per_wg {
        groups.push(SimdGroup::new());
    }
    fill_local_ids(&mut scratch.local_ids, threads, lx, ly, groups_per_wg);
    let local_ids = &scratch.local_ids.ids[..];
    let mut tier = jit::Tiered::new(program, launch.executor);
    let mut stats = ExecStats::default();
    let mut budget = launch.max_lane_steps;
    for wz in 0..wg_count[2] {
        for wy in 0..wg_count[1] {
            for wx in 0..wg_count[0] {
                let wg = [wx, wy, wz];
                // Threadgroup memory is not cleared between workgroups on the hardware: each
                // starts with what the previous one left, so a shader that reads before it
                // writes (or forgets a zero initializer) sees stale data here too.
                start_workgroup(groups, local_ids, launch, wg, threads, gfx.as_deref());
                let mut ctx = MemCtx {
                    device: &mut *mem,
                    shared: &mut shared,
                    stack_bytes: launch.stack_bytes,
                    uniforms,
                    graphics: gfx.as_deref_mut(),
                    uniform_stores: None,
                };
                let before_groups = stats.group_instructions;
                let r = run_one_workgroup(
                    program,
                    tier.current(),
                    groups,
                    local_ids,
                    &mut ctx,
                    &mut stats,
                    &mut budget,
                );
                tier.ran(stats.group_instructions - before_groups);
                r?;
                stats.workgroups += 1;
            }
        }
    }
    Ok(stats)
}

/// The local ids of a workgroup's threads, per SIMD group and lane, and the shape they were
/// made for.
#[derive(Default)]
struct LocalIds {
    ids: Vec<[[u32; 3]; SIMD_WIDTH]>,
    shape: Option<(u32, u32, u32, usize)>,
}

/// Fills `local` for workgroups of `threads` threads, `lx` by `ly` by what remains, in
/// `groups_per_wg` SIMD groups. A render makes a launch per group of pixels, all of one
/// shape: the ids made for the last launch are kept when the shape is the same.
fn fill_local_ids(local: &mut LocalIds, threads: u32, lx: u32, ly: u32, groups_per_wg: usize) {
    let shape = Some((threads, lx, ly, groups_per_wg));
    if local.shape == shape {
        return;
    }
    local.shape = shape;
    let local_ids = &mut local.ids;
    local_ids.clear();
    local_ids.resize(groups_per_wg, [[0u32; 3]; SIMD_WIDTH]);
    // Thread t sits at (t % lx, (t / lx) % ly, t / (lx * ly)), counted up without dividing.
    let mut id = [0u32; 3];
    for t in 0..threads as usize {
        local_ids[t / SIMD_WIDTH][t % SIMD_WIDTH] = id;
        id[0] += 1;
        if id[0] == lx {
            id[0] = 0;
            id[1] += 1;
            if id[1] == ly {
                id[1] = 0;
                id[2] += 1;
            }
        }
    }
}

/// Resets the SIMD groups of a workgroup to start workgroup `wg`: its live lanes, position,
/// preloads and, in a fragment launch, the pixel special registers.
fn start_workgroup(
    groups: &mut [SimdGroup],
    local_ids: &[[[u32; 3]; SIMD_WIDTH]],
    launch: &LaunchState,
    wg: [u32; 3],
    threads: u32,
    gfx: Option<&GraphicsContext>,
) {
    // A thread is inside the grid when each local id is below what the grid has left past
    // this workgroup's first thread.
    let room: [u64; 3] = std::array::from_fn(|i| {
        u64::from(launch.grid_threads[i])
            .saturating_sub(u64::from(wg[i]) * u64::from(launch.local_size[i]))
    });
    for (s, g) in groups.iter_mut().enumerate() {
        let mut alive = 0u32;
        for (lane, id) in local_ids[s].iter().enumerate() {
            let t = s as u32 * 32 + lane as u32;
            if t >= threads {
                break;
            }
            if (0..3).all(|i| u64::from(id[i]) < room[i]) {
                alive |= 1 << lane;
            }
        }
        g.reset(
            alive,
            Position {
                workgroup: wg,
                local_size: launch.local_size,
                simd_index: s as u32,
            },
        );
        for p in &launch.preloads {
            let values: lanes::Lanes = std::array::from_fn(|lane| {
                u64::from(p.values.get(s * SIMD_WIDTH + lane).copied().unwrap_or(0))
            });
            g.write_lanes(p.reg, &values, u32::MAX);
        }
        g.fragment = gfx
            .and_then(|c| c.fragment.as_ref())
            .map(|f| group::FragmentSr {
                pixels: f.lane_pixels,
                input_coverage: f.input_coverage,
                backfacing: f.backfacing,
            });
    }
}

fn run_one_workgroup(
    prog: &Program,
    jit: Option<&jit::Compiled>,
    groups: &mut [SimdGroup],
    local_ids: &[[[u32; 3]; SIMD_WIDTH]],
    m: &mut MemCtx<'_>,
    stats: &mut ExecStats,
    budget: &mut u64,
) -> Result<(), Fault> {
    // Each group's tile records, made when a region with tile accesses first runs in it (the
    // lanes' pixels stay as the launch set them).
    let mut records: Option<(usize, Option<[u32; SIMD_WIDTH]>)> = None;
    loop {
        for (gi, (g, ids)) in groups.iter_mut().zip(local_ids).enumerate() {
            while g.state == GroupState::Running {
                // A region runs only when the budget covers all of it, so a budget that runs
                // out faults at the same instruction as in the interpreter.
                if let Some(r) = jit.and_then(|j| j.region(g.pc)) {
                    let steps = u64::from(r.len) * SIMD_WIDTH as u64;
                    let (mut fragment, mut vertex) = match m.graphics.as_deref_mut() {
                        Some(c) => (c.fragment.as_mut(), c.vertex.as_mut()),
                        None => (None, None),
                    };
                    // Without the UVS slots its `st_vary`s write, the interpreter faults.
                    let vary_ok = r.vary_slots == 0
                        || vertex.as_ref().is_some_and(|v| v.slots >= r.vary_slots);
                    // Without the coefficients its `iter`s read, or where a tile access could
                    // fault, the interpreter runs the region's code and faults as it does.
                    let planes = fragment.as_ref().map_or(0, |f| f.translated_planes());
                    let tile = match &fragment {
                        _ if r.tile_bytes == 0 => None,
                        Some(f) if f.bytes_per_sample >= r.tile_bytes => {
                            if records.is_none_or(|(i, _)| i != gi) {
                                records = Some((gi, graphics::tile_records(f, g.alive)));
                            }
                            records.and_then(|(_, r)| r)
                        }
                        _ => None,
                    };
                    let tile_ok = r.tile_bytes == 0 || tile.is_some();
                    // The special registers its `get_sr`s read; where the launch does not
                    // model one, the interpreter faults on it.
                    let specials_ok = r.specials == 0 || g.fill_specials(r.specials, ids);
                    // Its uniform-address loads' words; where one faults, the interpreter
                    // reaches that load and faults there.
                    let loads = jit.map_or(&[][..], |j| j.preloads(r));
                    let preloads_ok =
                        loads.is_empty() || g.fill_preloads(prog, loads, m.uniforms, &*m.device);
                    if *budget >= steps
                        && r.planes as usize <= planes
                        && tile_ok
                        && specials_ok
                        && preloads_ok
                        && vary_ok
                    {
                        *budget -= steps;
                        let (lanes, passes) = g.run_region(
                            r,
                            m.uniforms,
                            fragment.take(),
                            vertex.take(),
                            tile.as_ref(),
                            budget,
                        );
                        stats.group_instructions += u64::from(r.len) * passes;
                        stats.lane_instructions += lanes;
                        continue;
                    }
                }
                if *budget < SIMD_WIDTH as u64 {
                    return Err(Fault::Shader {
                        pc: prog.pc(g.pc),
                        reason: "instruction budget exhausted (endless loop?)".into(),
                    });
                }
                *budget -= SIMD_WIDTH as u64;
                stats.group_instructions += 1;
                stats.lane_instructions += u64::from(g.exec.count_ones());
                if !g.step_alu(prog, m.uniforms, ids)? {
                    memops::step_mem(g, prog, m)?;
                }
            }
        }
        let waiting = groups
            .iter()
            .filter(|g| g.state == GroupState::AtBarrier)
            .count();
        if waiting == 0 {
            return Ok(());
        }
        for g in groups
            .iter_mut()
            .filter(|g| g.state == GroupState::AtBarrier)
        {
            g.state = GroupState::Running;
        }
    }
}
