//! The simulated firmware: turns validated UAPI commands into register values and runs them
//! on the GPU model, one queue's jobs at a time.
//!
//! Each queue's worker thread owns the queue's TVB heap ([`super::tvb`]): renders bin into
//! it, partial renders happen when it is full, and it grows from each render's feedback.
//! `AGX4_SIM_STATS=<path>` makes the worker append one line per render command to `path`:
//! `render draws=<n> primitives=<n> fragments=<n> partial_renders=<n> tvb_bytes=<n>`.

use super::cmdbuf::HwCmd;
use super::fence::SyncHub;
use super::queue::{Job, QueueState};
use super::timestamps::TimestampBuffer;
use super::tvb::TvbHeap;
use super::vm::Vm;
use crate::uapi::*;
use hw::Identity;
use sim_gpu::{
    BgEotProgram, ComputeCommand, Fault, HelperProgram, RenderCommand, RenderStats, ZlsBuffer,
};
use std::cell::RefCell;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, OnceLock};

/// Environment variable naming the render statistics file.
pub const STATS_ENV: &str = "AGX4_SIM_STATS";

thread_local! {
    /// The TVB heap of the queue whose worker runs on this thread (one worker thread per
    /// queue, for the queue's life), made at its first render.
    static TVB_HEAP: RefCell<Option<TvbHeap>> = const { RefCell::new(None) };
}

fn stats_path() -> Option<&'static str> {
    static PATH: OnceLock<Option<String>> = OnceLock::new();
    PATH.get_or_init(|| std::env::var(STATS_ENV).ok().filter(|p| !p.is_empty()))
        .as_deref()
}

/// The statistics line of one render.
pub fn stats_line(s: &RenderStats) -> String {
    format!(
        "render draws={} primitives={} fragments={} partial_renders={} tvb_bytes={}",
        s.draws, s.primitives, s.fragments, s.partial_renders, s.tvb_bytes
    )
}

fn append_stats(path: &str, s: &RenderStats) {
    // Statistics are a debugging aid: failing to write them must not fail the render.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{}", stats_line(s));
    }
}

/// Runs a render on this thread's queue heap.
fn run_render(
    gpu: &'static Identity,
    cmd: &RenderCommand,
    mem: &mut dyn sim_gpu::GpuMemory,
) -> Result<RenderStats, Fault> {
    TVB_HEAP.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let heap =
                TvbHeap::from_env().map_err(|reason| Fault::BadControlWord { va: 0, reason })?;
            *slot = Some(heap);
        }
        let heap = slot.as_mut().ok_or(Fault::Internal("TVB heap missing"))?;
        let mut tvb = heap.begin_render();
        let result = sim_gpu::execute_render(gpu, cmd, mem, &mut tvb);
        tvb.end_render();
        result
    })
}

/// Where one timestamp goes.
#[derive(Clone, Debug)]
pub(crate) struct Stamp {
    pub(crate) buf: Arc<TimestampBuffer>,
    pub(crate) offset: u32,
}

/// Start and end timestamps of one piece of work.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stamps {
    pub(crate) start: Option<Stamp>,
    pub(crate) end: Option<Stamp>,
}

/// A hardware command with its timestamp targets resolved.
pub(crate) struct FwCmd {
    pub(crate) cmd: HwCmd,
    /// Compute: the command. Render: vertex then fragment.
    pub(crate) stamps: [Stamps; 2],
}

pub(crate) struct Worker {
    pub(crate) gpu: &'static Identity,
    pub(crate) vm: Arc<Vm>,
    pub(crate) usc_exec_base: u64,
    pub(crate) state: Arc<QueueState>,
    pub(crate) hub: Arc<SyncHub>,
}

impl Worker {
    pub(crate) fn run(self, jobs: Receiver<Job>) {
        while let Ok(job) = jobs.recv() {
            self.wait_for(&job);
            if !self.state.faulted() && !self.state.killed() {
                for cmd in &job.cmds {
                    // A bug in the model must not leave the job's fence unsignaled forever.
                    let run = std::panic::catch_unwind(AssertUnwindSafe(|| self.execute(cmd)));
                    let result = run.unwrap_or(Err(Fault::Internal("the GPU model panicked")));
                    if let Err(fault) = result {
                        // Later jobs of this queue are not run, but still signal.
                        self.state.record_fault(fault);
                        break;
                    }
                }
            }
            self.hub.signal(&job.done);
        }
    }

    fn wait_for(&self, job: &Job) {
        let mut t = self.hub.lock();
        while !job.wait.is_signaled() && !self.state.killed() {
            t = self.hub.sleep(t, None).0;
        }
    }

    fn execute(&self, cmd: &FwCmd) -> Result<(), Fault> {
        // Each command sees the VM as it is when the command starts.
        let mut mem = self.vm.view();
        let [first, second] = &cmd.stamps;
        match &cmd.cmd {
            HwCmd::Compute(c) => {
                stamp(&first.start);
                sim_gpu::execute_compute(self.gpu, &compute_regs(c, self.usc_exec_base), &mut mem)?;
                stamp(&first.end);
            }
            HwCmd::Render(r) => {
                stamp(&first.start);
                stamp(&second.start);
                let stats = run_render(self.gpu, &render_regs(r, self.usc_exec_base), &mut mem)?;
                if let Some(path) = stats_path() {
                    append_stats(path, &stats);
                }
                stamp(&first.end);
                stamp(&second.end);
            }
        }
        Ok(())
    }
}

fn stamp(s: &Option<Stamp>) {
    if let Some(s) = s {
        s.buf.write(s.offset, super::clock::monotonic_ns());
    }
}

fn helper(h: &drm_asahi_helper_program) -> HelperProgram {
    HelperProgram {
        binary: h.binary,
        cfg: h.cfg,
        data: h.data,
    }
}

fn bg_eot(p: &drm_asahi_bg_eot) -> BgEotProgram {
    BgEotProgram {
        usc: p.usc,
        rsrc_spec: p.rsrc_spec,
    }
}

fn zls(z: &drm_asahi_zls_buffer) -> ZlsBuffer {
    ZlsBuffer {
        base: z.base,
        comp_base: z.comp_base,
        stride: z.stride,
        comp_stride: z.comp_stride,
    }
}

pub(crate) fn compute_regs(c: &drm_asahi_cmd_compute, usc_exec_base: u64) -> ComputeCommand {
    ComputeCommand {
        usc_exec_base,
        ctrl_stream_base: c.cdm_ctrl_stream_base,
        ctrl_stream_end: c.cdm_ctrl_stream_end,
        sampler_heap: c.sampler_heap,
        sampler_count: c.sampler_count,
        helper: helper(&c.helper),
    }
}

pub(crate) fn render_regs(r: &drm_asahi_cmd_render, usc_exec_base: u64) -> RenderCommand {
    RenderCommand {
        usc_exec_base,
        vdm_ctrl_stream_base: r.vdm_ctrl_stream_base,
        flags: r.flags,
        vertex_helper: helper(&r.vertex_helper),
        fragment_helper: helper(&r.fragment_helper),
        isp_scissor_base: r.isp_scissor_base,
        isp_dbias_base: r.isp_dbias_base,
        isp_oclqry_base: r.isp_oclqry_base,
        isp_zls_pixels: r.isp_zls_pixels,
        depth: zls(&r.depth),
        stencil: zls(&r.stencil),
        zls_ctrl: r.zls_ctrl,
        ppp_multisamplectl: r.ppp_multisamplectl,
        ppp_ctrl: r.ppp_ctrl,
        sampler_heap: r.sampler_heap,
        sampler_count: r.sampler_count.into(),
        width_px: r.width_px.into(),
        height_px: r.height_px.into(),
        layers: r.layers.into(),
        utile_width_px: r.utile_width_px.into(),
        utile_height_px: r.utile_height_px.into(),
        samples: r.samples.into(),
        sample_size_bytes: r.sample_size_B.into(),
        isp_merge_upper_x: r.isp_merge_upper_x,
        isp_merge_upper_y: r.isp_merge_upper_y,
        bg: bg_eot(&r.bg),
        eot: bg_eot(&r.eot),
        partial_bg: bg_eot(&r.partial_bg),
        partial_eot: bg_eot(&r.partial_eot),
        isp_bgobjdepth: r.isp_bgobjdepth,
        isp_bgobjvals: r.isp_bgobjvals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampler heap a command names reaches the GPU's command registers (the texture
    /// unit reads register sampler operands from it).
    #[test]
    fn commands_carry_the_sampler_heap() {
        let c = drm_asahi_cmd_compute {
            sampler_heap: 0x1234_5000,
            sampler_count: 17,
            ..Default::default()
        };
        let regs = compute_regs(&c, 0);
        assert_eq!((regs.sampler_heap, regs.sampler_count), (0x1234_5000, 17));
        let r = drm_asahi_cmd_render {
            sampler_heap: 0x6789_0000,
            sampler_count: 300,
            ..Default::default()
        };
        let regs = render_regs(&r, 0);
        assert_eq!((regs.sampler_heap, regs.sampler_count), (0x6789_0000, 300));
    }

    #[test]
    fn stats_line_format() {
        let s = RenderStats {
            draws: 3,
            primitives: 40,
            fragments: 1234,
            partial_renders: 2,
            tvb_bytes: 5678,
        };
        assert_eq!(
            stats_line(&s),
            "render draws=3 primitives=40 fragments=1234 partial_renders=2 tvb_bytes=5678"
        );
    }
}
