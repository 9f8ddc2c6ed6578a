//! The workgroups of one compute launch spread over host threads.
//!
//! A launch runs in parallel when nothing one workgroup does can reach another except plain
//! device memory: its program has no device atomics (whose old values depend on the order
//! workgroups run in), no threadgroup memory (which keeps what the previous workgroup on the
//! same core left, `run_in`'s model) and no uniform stores. For such a program the result
//! does not depend on which thread runs which workgroup, so it does not depend on the thread
//! count: workgroups that write the same bytes without atomics race on the hardware too.
//!
//! The threads and the fault order are [`crate::pool`]'s: workgroups are its items, in
//! grid order (x fastest). The lane-step budget is shared: each workgroup may spend what the
//! others have left it, so an endless loop still faults, though where it stops can depend on
//! the thread count.

use super::group::SimdGroup;
use super::memops::MemCtx;
use super::{
    jit, run_one_workgroup, start_workgroup, ExecStats, GraphicsContext, LaunchState, Program,
    Scratch, SCRATCH,
};
use crate::{pool, Fault, SharedGpuMemory, SharedView};
use hw::isa::{Instr, SIMD_WIDTH, UNIFORM_HALVES};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

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

/// One thread's buffers and tally.
struct Worker<'a> {
    scratch: Scratch,
    tier: jit::Tiered<'a>,
    textures: Option<GraphicsContext>,
    mine: ExecStats,
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
    let [lx, ly, _] = launch.local_size;
    let groups_per_wg = threads.div_ceil(SIMD_WIDTH as u32) as usize;
    let [wx, wy, wz] = wg_count.map(u64::from);
    // Lane steps spent by finished workgroups.
    let spent = AtomicU64::new(0);
    let stats = Mutex::new(ExecStats::default());
    let start = || {
        let mut scratch = SCRATCH.take().unwrap_or_default();
        scratch.uniforms.clear();
        scratch.uniforms.extend_from_slice(&launch.uniforms);
        scratch.uniforms.resize(usize::from(UNIFORM_HALVES), 0);
        scratch.groups.truncate(groups_per_wg);
        while scratch.groups.len() < groups_per_wg {
            scratch.groups.push(SimdGroup::new());
        }
        super::fill_local_ids(&mut scratch.local_ids, threads, lx, ly, groups_per_wg);
        Worker {
            scratch,
            tier: jit::Tiered::new(program, launch.executor),
            textures: textures.cloned(),
            mine: ExecStats::default(),
        }
    };
    let job = |w: &mut Worker, idx: u64| {
        let wg = [idx % wx, idx / wx % wy, idx / (wx * wy)].map(|v| v as u32);
        let Scratch {
            groups,
            uniforms,
            local_ids,
        } = &mut w.scratch;
        let local_ids = &local_ids.ids[..];
        start_workgroup(groups, local_ids, launch, wg, threads, None);
        let mut view = SharedView(mem);
        // Independent programs never touch threadgroup memory.
        let mut shared: [u8; 0] = [];
        let mut ctx = MemCtx {
            device: &mut view,
            shared: &mut shared,
            stack_bytes: launch.stack_bytes,
            uniforms,
            graphics: w.textures.as_mut(),
            uniform_stores: None,
        };
        let allowed = launch
            .max_lane_steps
            .saturating_sub(spent.load(Ordering::Relaxed));
        let mut budget = allowed;
        let mut st = ExecStats::default();
        let r = run_one_workgroup(
            program,
            w.tier.current(),
            groups,
            local_ids,
            &mut ctx,
            &mut st,
            &mut budget,
        );
        spent.fetch_add(allowed - budget, Ordering::Relaxed);
        w.tier.ran(st.group_instructions);
        w.mine += st;
        r?;
        w.mine.workgroups += 1;
        Ok(())
    };
    let end = |w: Worker| {
        SCRATCH.set(Some(w.scratch));
        let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
        *st += w.mine;
    };
    pool::run(wx * wy * wz, pool, alone, start, job, end)?;
    Ok(stats.into_inner().unwrap_or_else(|e| e.into_inner()))
}
