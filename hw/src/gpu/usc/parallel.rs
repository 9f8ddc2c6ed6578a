//! The workgroups of one compute launch spread over host threads.
//!
//! A launch runs in parallel when nothing one workgroup does can reach another except plain
//! device memory: its program has no device atomics (whose old values depend on the order
//! workgroups run in), no threadgroup memory (which keeps what the previous workgroup on the
//! same core left, `run_in`'s model) and no uniform stores. For such a program the result
//! does not depend on which thread runs which workgroup, so it does not depend on the thread
//! count: workgroups that write the same bytes without atomics race on the hardware too.
//!
//! The calling thread starts alone and starts helpers only when the launch has run long
//! enough to pay for them, so the many short dispatches of a test suite stay on one thread.
//! A fault ends the launch with the fault of the first faulting workgroup in grid order, as
//! the serial loop reports; every workgroup before it has run. The lane-step budget is shared:
//! each workgroup may spend what the others have left it, so an endless loop still faults,
//! though where it stops can depend on the thread count.

use super::group::SimdGroup;
use super::memops::MemCtx;
use super::{
    jit, run_one_workgroup, start_workgroup, ExecStats, GraphicsContext, LaunchState, Program,
    Scratch, SCRATCH, TOTAL_LANE_INSTRUCTIONS,
};
use crate::gpu::{Fault, SharedGpuMemory, SharedView};
use crate::isa::{Instr, SIMD_WIDTH, UNIFORM_HALVES};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the calling thread runs a launch alone before it starts helpers.
pub const ALONE: Duration = Duration::from_millis(2);

/// Host threads a launch may use: `AGX4_SIM_THREADS`, or the host's cores.
pub fn threads() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("AGX4_SIM_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    })
}

/// Whether workgroups of `program` may run on several threads (see the module comment).
pub fn independent(program: &Program) -> bool {
    !program.instrs.iter().any(|i| {
        matches!(
            i,
            Instr::Atomic(_)
                | Instr::ThreadgroupMem(_)
                | Instr::ThreadgroupAtomic(_)
                | Instr::UniformStore(_)
        )
    })
}

/// What the threads of one launch share.
struct Launch<'a> {
    program: &'a Program,
    launch: &'a LaunchState,
    mem: &'a dyn SharedGpuMemory,
    textures: Option<&'a GraphicsContext>,
    threads: u32,
    wg_count: [u32; 3],
    total: u64,
    /// The next workgroup (linear, x fastest) to hand out.
    next: AtomicU64,
    /// Lane steps spent by finished workgroups.
    spent: AtomicU64,
    /// Set once a workgroup faulted: later workgroups are not started.
    faulted: AtomicBool,
    /// The first faulting workgroup in grid order and its fault.
    fault: Mutex<Option<(u64, Fault)>>,
    stats: Mutex<ExecStats>,
}

/// Runs every workgroup of the launch over up to `pool` threads, the calling thread alone for
/// the first `alone` of it.
#[allow(clippy::too_many_arguments)]
pub fn run(
    program: &Program,
    launch: &LaunchState,
    mem: &dyn SharedGpuMemory,
    textures: Option<&GraphicsContext>,
    threads: u32,
    wg_count: [u32; 3],
    pool: usize,
    alone: Duration,
) -> Result<ExecStats, Fault> {
    let l = Launch {
        program,
        launch,
        mem,
        textures,
        threads,
        wg_count,
        total: wg_count.iter().map(|&n| u64::from(n)).product(),
        next: AtomicU64::new(0),
        spent: AtomicU64::new(0),
        faulted: AtomicBool::new(false),
        fault: Mutex::new(None),
        stats: Mutex::new(ExecStats::default()),
    };
    std::thread::scope(|s| {
        let start_helpers = || {
            for _ in 1..pool {
                s.spawn(|| work(&l, None));
            }
        };
        work(&l, Some((&start_helpers, alone)));
    });
    if let Some((_, f)) = l.fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(f);
    }
    Ok(l.stats.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// A way to start the helper threads, and how long to run alone before calling it.
type Helpers<'a> = Option<(&'a dyn Fn(), Duration)>;

/// One thread's share: workgroups from the shared counter until none is left. The calling
/// thread passes `start_helpers`, which it calls once the launch has run for its duration.
fn work(l: &Launch, mut start_helpers: Helpers) {
    let began = Instant::now();
    let mut scratch = SCRATCH.take().unwrap_or_default();
    let mut mine = ExecStats::default();
    run_share(l, &mut scratch, &mut mine, &mut start_helpers, began);
    SCRATCH.set(Some(scratch));
    let mut st = l.stats.lock().unwrap_or_else(|e| e.into_inner());
    *st += mine;
}

fn run_share(
    l: &Launch,
    scratch: &mut Scratch,
    mine: &mut ExecStats,
    start_helpers: &mut Helpers,
    began: Instant,
) {
    let launch = l.launch;
    let [lx, ly, _] = launch.local_size;
    let groups_per_wg = l.threads.div_ceil(SIMD_WIDTH as u32) as usize;
    let uniforms = &mut scratch.uniforms;
    uniforms.clear();
    uniforms.extend_from_slice(&launch.uniforms);
    uniforms.resize(usize::from(UNIFORM_HALVES), 0);
    let groups = &mut scratch.groups;
    groups.truncate(groups_per_wg);
    while groups.len() < groups_per_wg {
        groups.push(SimdGroup::new());
    }
    let local_ids = &mut scratch.local_ids;
    super::fill_local_ids(local_ids, l.threads, lx, ly, groups_per_wg);
    let mut textures = l.textures.cloned();
    let mut view = SharedView(l.mem);
    // Independent programs never touch threadgroup memory.
    let mut shared: [u8; 0] = [];
    let [wx, wy, _] = l.wg_count.map(u64::from);
    let mut tier = jit::Tiered::new(l.program, launch.executor);
    loop {
        if l.faulted.load(Ordering::Relaxed) {
            return;
        }
        let idx = l.next.fetch_add(1, Ordering::Relaxed);
        if idx >= l.total {
            return;
        }
        let wg = [idx % wx, idx / wx % wy, idx / (wx * wy)].map(|v| v as u32);
        start_workgroup(groups, local_ids, launch, wg, l.threads, None);
        let mut ctx = MemCtx {
            device: &mut view,
            shared: &mut shared,
            stack_bytes: launch.stack_bytes,
            uniforms,
            graphics: textures.as_mut(),
            uniform_stores: None,
        };
        let allowed = launch
            .max_lane_steps
            .saturating_sub(l.spent.load(Ordering::Relaxed));
        let mut budget = allowed;
        let mut stats = ExecStats::default();
        let r = run_one_workgroup(
            l.program,
            tier.current(),
            groups,
            local_ids,
            &mut ctx,
            &mut stats,
            &mut budget,
        );
        l.spent.fetch_add(allowed - budget, Ordering::Relaxed);
        TOTAL_LANE_INSTRUCTIONS.fetch_add(stats.lane_instructions, Ordering::Relaxed);
        tier.ran(stats.group_instructions);
        *mine += stats;
        match r {
            Ok(()) => mine.workgroups += 1,
            Err(f) => {
                let mut first = l.fault.lock().unwrap_or_else(|e| e.into_inner());
                if first.as_ref().is_none_or(|(i, _)| idx < *i) {
                    *first = Some((idx, f));
                }
                // Workgroups before this one are already handed out and will finish.
                l.faulted.store(true, Ordering::Relaxed);
                return;
            }
        }
        if let Some((start, alone)) = *start_helpers {
            if began.elapsed() >= alone && idx + 1 < l.total {
                start();
                *start_helpers = None;
            }
        }
    }
}
