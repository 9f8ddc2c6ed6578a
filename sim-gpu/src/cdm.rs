//! The CDM: walks a compute control stream and starts each launch on the USC.
//!
//! Blocks are read from `ctrl_stream_base` on. A launch reads its USC words at
//! `usc_exec_base + pipeline` (the field is a 32-bit USC address, as Mesa writes it), preloads
//! the uniform file and the texture and sampler state, decodes the shader at
//! `usc_exec_base + code`, runs the preshader the words name (once, before any workgroup: the
//! grid sees the uniform file it leaves) and runs the grid. Barriers are validated and
//! otherwise have nothing to do, since launches run one after another to completion. A link
//! continues at its target; a link with return remembers one return address, which a Stream
//! Return (or a barrier with its return bit) goes back to. Terminate ends the stream.
//! `ctrl_stream_end` is not used: the stream's own blocks say where it ends.
//!
//! A stream that executes more than [`MAX_BLOCKS`] blocks, or reaches the same link twice in
//! the same state (an endless loop, as the stream has no conditions), faults.

use super::usc::texture::SamplerHeap;
use super::usc::{self, ExecStats, LaunchState};
use super::usc_words::read_usc_words;
use super::{ComputeCommand, Fault, GpuMemory};
use hw::g13::control::{CdmBlock, CdmLaunch, CdmMode};
use hw::isa::Codec;
use std::collections::HashSet;

/// Most blocks one stream may execute.
pub const MAX_BLOCKS: u64 = 1 << 22;

/// What a compute command did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ComputeStats {
    pub launches: u64,
    pub usc: ExecStats,
}

fn bad(va: u64, why: impl Into<String>) -> Fault {
    Fault::BadControlWord {
        va,
        reason: why.into(),
    }
}

/// Walk the stream; with `execute` false, launches are parsed and validated (USC words, grid,
/// the shader's decoding) but no shader runs.
pub fn run_stream(
    cmd: &ComputeCommand,
    codec: &dyn Codec,
    mem: &mut dyn GpuMemory,
    execute: bool,
) -> Result<ComputeStats, Fault> {
    let mut stats = ComputeStats::default();
    let mut va = cmd.ctrl_stream_base;
    let mut ret: Option<u64> = None;
    let mut links_seen = HashSet::new();
    for _ in 0..MAX_BLOCKS {
        let (block, size) = CdmBlock::read(mem, va)?;
        let next = va.wrapping_add(size);
        match block {
            CdmBlock::Launch(l) => {
                launch(cmd, codec, &l, va, mem, execute, &mut stats)?;
                va = next;
            }
            CdmBlock::Barrier(b) => {
                if b.returns {
                    va = ret
                        .take()
                        .ok_or_else(|| bad(va, "barrier returns with no return address"))?;
                } else {
                    va = next;
                }
            }
            CdmBlock::Link(link) => {
                if !links_seen.insert((va, ret)) {
                    return Err(bad(va, "control stream loops"));
                }
                if link.with_return {
                    if ret.is_some() {
                        return Err(bad(va, "nested stream link with return (one level only)"));
                    }
                    ret = Some(next);
                }
                va = link.target;
            }
            CdmBlock::Return => {
                va = ret
                    .take()
                    .ok_or_else(|| bad(va, "stream return with no return address"))?;
            }
            CdmBlock::Terminate => return Ok(stats),
        }
    }
    Err(bad(
        va,
        format!("control stream longer than {MAX_BLOCKS} blocks"),
    ))
}

fn launch(
    cmd: &ComputeCommand,
    codec: &dyn Codec,
    l: &CdmLaunch,
    va: u64,
    mem: &mut dyn GpuMemory,
    execute: bool,
    stats: &mut ComputeStats,
) -> Result<(), Fault> {
    let words_va = cmd.usc_exec_base.wrapping_add(l.pipeline);
    let usc_state = read_usc_words(mem, words_va)?;
    if usc_state.early_z.is_some() {
        return Err(bad(
            words_va,
            "fragment properties word in a compute launch",
        ));
    }
    let code = usc_state.code.ok_or_else(|| {
        bad(
            cmd.usc_exec_base.wrapping_add(l.pipeline),
            "USC words name no shader",
        )
    })?;
    let grid = match l.mode {
        CdmMode::Direct => l.global_size,
        CdmMode::IndirectGlobal => {
            let mut g = [0u32; 3];
            for (i, c) in g.iter_mut().enumerate() {
                *c = mem.read_u32(l.indirect.wrapping_add(4 * i as u64))?;
            }
            g
        }
        CdmMode::IndirectLocal => return Err(Fault::Unimplemented("CDM indirect-local launch")),
    };
    let local = l.local_size;
    let threads = u64::from(local[0]) * u64::from(local[1]) * u64::from(local[2]);
    if threads == 0 || threads > u64::from(usc::MAX_WORKGROUP_THREADS) {
        return Err(bad(va, format!("local size {local:?} is not allowed")));
    }
    let program = usc::load_program(mem, codec, cmd.usc_exec_base.wrapping_add(u64::from(code)))?;
    // Loaded (decoded and checked) in validation mode too, so a bad preshader faults there.
    let preshader = usc_state
        .preshader
        .map(|p| usc::load_program(mem, codec, cmd.usc_exec_base.wrapping_add(u64::from(p))))
        .transpose()?;
    stats.launches += 1;
    if !execute || grid.contains(&0) {
        return Ok(());
    }
    let mut textures = usc_state.textures;
    textures.sampler_heap = SamplerHeap {
        base: cmd.sampler_heap,
        count: cmd.sampler_count,
    };
    let mut launch = LaunchState {
        uniforms: usc_state.uniforms,
        local_size: local,
        grid_threads: grid,
        shared_bytes: usc_state.shared_bytes,
        stack_bytes: usc_state.stack_bytes,
        max_lane_steps: usc::DEFAULT_MAX_LANE_STEPS,
        preloads: Vec::new(),
        textures,
        executor: usc::jit::Executor::from_env(),
    };
    if let Some(pre) = preshader {
        let (uniforms, pre_stats) = usc::run_preshader(&pre, &launch, mem)?;
        launch.uniforms = uniforms;
        stats.usc += pre_stats;
    }
    stats.usc += usc::run_workgroups(&program, &launch, mem)?;
    Ok(())
}
