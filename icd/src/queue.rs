//! VkQueue: submissions go to a worker thread that waits until every timeline point they
//! wait on has been submitted (Vulkan allows waiting before signalling; the kernel does not),
//! then hands them to the kernel.
//!
//! Each queue keeps a timeline syncobj whose latest point stands for "all work submitted so
//! far". A submission without command buffers becomes syncobj transfers: its waits are chained
//! into the queue timeline and its signals take the resulting point, so they signal only after
//! everything before them, as Vulkan's submission order requires.

use crate::cmd_buffer::{CommandBuffer, HwCommand};
use crate::entry::guard;
use crate::handle::{self, object, LoaderData, Object};
use crate::kmd;
use crate::sync::{Fence, Semaphore};
use ash::vk;
use kmd_iface::uapi::*;
use kmd_iface::{Errno, Kmd};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// How long the worker blocks in one wait before it checks whether it should stop.
const WAIT_SLICE_NS: u64 = 50_000_000;

/// How long a vkCmdWaitEvents may wait for events before the device counts as hung.
const EVENT_WAIT_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// A syncobj and, for timelines, the point.
#[derive(Clone, Copy, Debug)]
pub struct SyncPoint {
    pub syncobj: u32,
    /// 0 for a binary syncobj.
    pub value: u64,
}

#[derive(Default)]
struct Job {
    waits: Vec<SyncPoint>,
    signals: Vec<SyncPoint>,
    /// The hardware commands of the job's command buffers, in order.
    cmds: Vec<HwCommand>,
    /// Temporary semaphore payloads the waits consumed: destroyed once the job is in the
    /// kernel's hands (sync.rs).
    consumed: Vec<u32>,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    pushed: u64,
    done: u64,
    stop: bool,
    /// The worker sleeps for want of jobs, and threads sleep in `wait_idle`: a change wakes
    /// only these (a futex wake is a system call per submission otherwise).
    worker_waiting: bool,
    idle_waiters: u32,
}

struct Shared {
    kmd: Arc<dyn Kmd>,
    /// The queue timeline syncobj and its latest point (only the worker moves it).
    timeline: u32,
    point: Mutex<u64>,
    state: Mutex<State>,
    changed: Condvar,
    lost: Arc<AtomicBool>,
    queue_id: u32,
    max_commands: usize,
    /// The device's sampler heap: GPU address and entries (sampler.rs).
    sampler_heap: (u64, u32),
}

#[repr(C)]
pub struct Queue {
    _loader: LoaderData,
    shared: Arc<Shared>,
    queue_id: u32,
    worker: Option<JoinHandle<()>>,
}
object!(Queue, vk::Queue);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Queue {
    pub fn new(
        kmd: Arc<dyn Kmd>,
        vm_id: u32,
        usc_base: u64,
        lost: Arc<AtomicBool>,
        max_commands: u32,
        sampler_heap: (u64, u32),
    ) -> Result<Queue, vk::Result> {
        let mut create = drm_asahi_queue_create {
            flags: 0,
            vm_id,
            priority: DRM_ASAHI_PRIORITY_MEDIUM,
            queue_id: 0,
            usc_exec_base: usc_base,
        };
        kmd.queue_create(&mut create).map_err(|e| {
            eprintln!("agx4: QUEUE_CREATE failed: errno {e}");
            vk::Result::ERROR_INITIALIZATION_FAILED
        })?;
        let destroy_queue = |kmd: &dyn Kmd| {
            let _ = kmd.queue_destroy(&drm_asahi_queue_destroy {
                queue_id: create.queue_id,
                pad: 0,
            });
        };
        // Point 1 exists from the start, so the first transfer out of the timeline has a fence.
        let timeline = kmd::syncobj_create(kmd.as_ref(), false)
            .and_then(|t| kmd::syncobj_timeline_signal(kmd.as_ref(), &[t], &[1]).map(|_| t))
            .map_err(|_| {
                destroy_queue(kmd.as_ref());
                vk::Result::ERROR_INITIALIZATION_FAILED
            })?;
        let shared = Arc::new(Shared {
            kmd,
            timeline,
            point: Mutex::new(1),
            state: Mutex::default(),
            changed: Condvar::new(),
            lost,
            queue_id: create.queue_id,
            max_commands: max_commands as usize,
            sampler_heap,
        });
        let worker_shared = shared.clone();
        let worker = std::thread::Builder::new()
            .name("agx4-queue".into())
            .spawn(move || worker_shared.run())
            .map_err(|_| {
                let _ = kmd::syncobj_destroy(shared.kmd.as_ref(), timeline);
                destroy_queue(shared.kmd.as_ref());
                vk::Result::ERROR_INITIALIZATION_FAILED
            })?;
        Ok(Queue {
            _loader: LoaderData::new(),
            shared,
            queue_id: create.queue_id,
            worker: Some(worker),
        })
    }

    /// A submission of batches that wait for, run and signal nothing: it changes nothing anyone
    /// can see, so only a lost device answers.
    fn submit_nothing(&self) -> Result<(), vk::Result> {
        if self.shared.lost.load(Ordering::Acquire) {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        Ok(())
    }

    fn push(&self, mut jobs: Vec<Job>) -> Result<(), vk::Result> {
        if self.shared.lost.load(Ordering::Acquire) {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        // A batch with nothing to wait for, run or signal changes nothing anyone can see:
        // it never reaches the worker.
        jobs.retain(|j| {
            !(j.waits.is_empty()
                && j.signals.is_empty()
                && j.cmds.is_empty()
                && j.consumed.is_empty())
        });
        if jobs.is_empty() {
            return Ok(());
        }
        let mut state = lock(&self.shared.state);
        state.pushed += jobs.len() as u64;
        state.jobs.extend(jobs);
        if state.worker_waiting {
            self.shared.changed.notify_all();
        }
        Ok(())
    }

    /// A submission without commands: `signals` signal once `waits` and all work submitted
    /// before it have (vkQueuePresentKHR's semaphore waits, icd/src/wsi/swapchain.rs).
    pub fn submit_signals(
        &self,
        waits: Vec<SyncPoint>,
        signals: Vec<SyncPoint>,
    ) -> Result<(), vk::Result> {
        self.push(vec![Job {
            waits,
            signals,
            ..Job::default()
        }])
    }

    /// Waits until everything submitted so far has finished on the GPU.
    pub fn wait_idle(&self) -> Result<(), vk::Result> {
        let mut state = lock(&self.shared.state);
        state.idle_waiters += 1;
        while state.done < state.pushed && !self.shared.lost.load(Ordering::Acquire) {
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        state.idle_waiters -= 1;
        drop(state);
        if self.shared.lost.load(Ordering::Acquire) {
            return Err(vk::Result::ERROR_DEVICE_LOST);
        }
        let point = *lock(&self.shared.point);
        kmd::syncobj_timeline_wait(
            self.shared.kmd.as_ref(),
            &[self.shared.timeline],
            &[point],
            i64::MAX,
            DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
        )
        .map(|_| ())
        .map_err(|_| self.shared.mark_lost("waiting for the queue to go idle"))
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.changed.notify_all();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        let kmd = self.shared.kmd.as_ref();
        let _ = kmd::syncobj_destroy(kmd, self.shared.timeline);
        let _ = kmd.queue_destroy(&drm_asahi_queue_destroy {
            queue_id: self.queue_id,
            pad: 0,
        });
    }
}

impl Shared {
    fn mark_lost(&self, what: &str) -> vk::Result {
        if !self.lost.swap(true, Ordering::AcqRel) {
            eprintln!("agx4: device lost while {what}");
        }
        self.changed.notify_all();
        vk::Result::ERROR_DEVICE_LOST
    }

    fn run(&self) {
        loop {
            let job = {
                let mut state = lock(&self.state);
                loop {
                    if state.stop {
                        return;
                    }
                    if let Some(job) = state.jobs.pop_front() {
                        break job;
                    }
                    state.worker_waiting = true;
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                    state.worker_waiting = false;
                }
            };
            if !self.lost.load(Ordering::Acquire) {
                if let Err(e) = self.execute(&job) {
                    let _ = self.mark_lost(&format!("submitting (errno {e})"));
                }
            }
            for &h in &job.consumed {
                let _ = kmd::syncobj_destroy(self.kmd.as_ref(), h);
            }
            let mut state = lock(&self.state);
            state.done += 1;
            if state.idle_waiters > 0 {
                self.changed.notify_all();
            }
        }
    }

    /// Blocks until every wait of the job has a fence to wait on, or the queue stops.
    fn wait_submitted(&self, waits: &[SyncPoint]) -> Result<bool, Errno> {
        if waits.is_empty() {
            return Ok(true);
        }
        let handles: Vec<u32> = waits.iter().map(|w| w.syncobj).collect();
        let points: Vec<u64> = waits.iter().map(|w| w.value).collect();
        let flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
            | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
            | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
        loop {
            match kmd::syncobj_timeline_wait(
                self.kmd.as_ref(),
                &handles,
                &points,
                kmd::deadline(WAIT_SLICE_NS),
                flags,
            ) {
                Ok(_) => return Ok(true),
                Err(libc::ETIME) => {
                    if lock(&self.state).stop {
                        return Ok(false);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Runs a job: its hardware commands go to the kernel in order; at each host-side event
    /// wait (vkCmdWaitEvents), everything before it must have finished on the GPU and every
    /// event it names must be set before the commands after it are submitted.
    fn execute(&self, job: &Job) -> Result<(), Errno> {
        if !self.wait_submitted(&job.waits)? {
            return Ok(());
        }
        let mut waits: &[SyncPoint] = &job.waits;
        let mut start = 0;
        for (i, c) in job.cmds.iter().enumerate() {
            let HwCommand::WaitEvents(events) = c else {
                continue;
            };
            if start < i {
                self.submit(&job.cmds[start..i], waits, &[])?;
            } else {
                self.fold_waits(waits)?;
            }
            waits = &[];
            if !self.wait_events(events)? {
                return Ok(());
            }
            start = i + 1;
        }
        if start < job.cmds.len() {
            return self.submit(&job.cmds[start..], waits, &job.signals);
        }
        // No command after the last event wait (or none at all): the job's semaphores pass
        // through the queue timeline.
        self.fold_waits(waits)?;
        let point = *lock(&self.point);
        for s in &job.signals {
            kmd::syncobj_transfer(self.kmd.as_ref(), s.syncobj, s.value, self.timeline, point)?;
        }
        Ok(())
    }

    /// Chains `waits` into the queue timeline, so its next point comes after them.
    fn fold_waits(&self, waits: &[SyncPoint]) -> Result<(), Errno> {
        let mut point = lock(&self.point);
        for w in waits {
            kmd::syncobj_transfer(
                self.kmd.as_ref(),
                self.timeline,
                *point + 1,
                w.syncobj,
                w.value,
            )?;
            *point += 1;
        }
        Ok(())
    }

    /// Waits until all work submitted so far has finished, then until every event is set
    /// (by that work or by the host's vkSetEvent). Returns `false` if the queue stops first.
    /// An event still unset after [`EVENT_WAIT_LIMIT`] is taken for a hang: the device is lost.
    fn wait_events(&self, events: &[Arc<crate::bo::Bo>]) -> Result<bool, Errno> {
        let point = *lock(&self.point);
        loop {
            match kmd::syncobj_timeline_wait(
                self.kmd.as_ref(),
                &[self.timeline],
                &[point],
                kmd::deadline(WAIT_SLICE_NS),
                DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
            ) {
                Ok(_) => break,
                Err(libc::ETIME) if !lock(&self.state).stop => continue,
                Err(libc::ETIME) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        let start = std::time::Instant::now();
        for e in events {
            loop {
                match e.read_u32(0) {
                    Ok(crate::event::EVENT_RESET) => {}
                    Ok(_) => break,
                    Err(_) => return Err(libc::EFAULT),
                }
                if lock(&self.state).stop {
                    return Ok(false);
                }
                if start.elapsed() > EVENT_WAIT_LIMIT {
                    eprintln!(
                        "agx4: vkCmdWaitEvents waited {} s for an event nobody set",
                        EVENT_WAIT_LIMIT.as_secs()
                    );
                    return Err(libc::ETIMEDOUT);
                }
                std::thread::sleep(std::time::Duration::from_micros(100));
            }
        }
        Ok(true)
    }
}

impl Shared {
    /// Hands hardware commands to the kernel, as many SUBMITs as the command limit needs.
    /// Each waits for the queue timeline's latest point (all earlier work) and signals the
    /// next one; the first also waits for `waits`, the last signals `signals`.
    fn submit(
        &self,
        cmds: &[HwCommand],
        waits: &[SyncPoint],
        signals: &[SyncPoint],
    ) -> Result<(), Errno> {
        let mut point = lock(&self.point);
        let chunks: Vec<_> = cmds.chunks(self.max_commands).collect();
        for (i, cmds) in chunks.iter().enumerate() {
            let sync = |p: &SyncPoint| drm_asahi_sync {
                sync_type: if p.value == 0 {
                    DRM_ASAHI_SYNC_SYNCOBJ
                } else {
                    DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ
                },
                handle: p.syncobj,
                timeline_value: p.value,
            };
            let mut syncs = vec![sync(&SyncPoint {
                syncobj: self.timeline,
                value: *point,
            })];
            if i == 0 {
                syncs.extend(waits.iter().map(sync));
            }
            let in_count = syncs.len();
            syncs.push(sync(&SyncPoint {
                syncobj: self.timeline,
                value: *point + 1,
            }));
            if i + 1 == chunks.len() {
                syncs.extend(signals.iter().map(sync));
            }
            let mut cmdbuf = Vec::new();
            // Each command waits for everything before it in the submission (the queue is in
            // order): for both subqueues, the count of earlier commands of that kind.
            let (mut renders, mut computes) = (0u16, 0u16);
            for c in cmds.iter() {
                let (cmd_type, payload) = match c {
                    HwCommand::Compute(s) => {
                        let cmd = drm_asahi_cmd_compute {
                            cdm_ctrl_stream_base: s.start,
                            cdm_ctrl_stream_end: s.end,
                            ts: s.ts,
                            sampler_heap: self.sampler_heap.0,
                            sampler_count: self.sampler_heap.1,
                            ..Default::default()
                        };
                        (DRM_ASAHI_CMD_COMPUTE, as_bytes(&cmd).to_vec())
                    }
                    HwCommand::Render(r) => {
                        // Every command names the device's sampler heap, whoever built it.
                        let mut cmd = **r;
                        cmd.sampler_heap = self.sampler_heap.0;
                        cmd.sampler_count = self.sampler_heap.1 as u16;
                        (DRM_ASAHI_CMD_RENDER, as_bytes(&cmd).to_vec())
                    }
                    // `execute` splits jobs at event waits, so none reaches here.
                    HwCommand::WaitEvents(_) => continue,
                };
                let header = drm_asahi_cmd_header {
                    cmd_type: cmd_type as u16,
                    size: payload.len() as u16,
                    vdm_barrier: renders,
                    cdm_barrier: computes,
                };
                cmdbuf.extend_from_slice(as_bytes(&header));
                cmdbuf.extend_from_slice(&payload);
                if cmd_type == DRM_ASAHI_CMD_RENDER {
                    renders += 1;
                } else {
                    computes += 1;
                }
            }
            let args = drm_asahi_submit {
                syncs: syncs.as_ptr() as u64,
                cmdbuf: cmdbuf.as_ptr() as u64,
                flags: 0,
                queue_id: self.queue_id,
                in_sync_count: in_count as u32,
                out_sync_count: (syncs.len() - in_count) as u32,
                cmdbuf_size: cmdbuf.len() as u32,
                pad: 0,
            };
            // SAFETY: syncs and cmdbuf are live for the call and as long as the counts say.
            unsafe { self.kmd.submit(&args) }?;
            *point += 1;
        }
        Ok(())
    }
}

/// The bytes of a UAPI struct (plain data with explicit padding fields, all zeroed).
fn as_bytes<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: UAPI structs are #[repr(C)] integers with no implicit padding, so every byte
    // is initialised; the slice borrows `v`.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Reads one VkSubmitInfo into a job.
///
/// # Safety
/// `submit` must be a valid VkSubmitInfo with valid arrays and pNext chain, whose semaphores
/// and command buffers are live handles made by this driver.
unsafe fn job_from_submit(submit: &vk::SubmitInfo<'_>) -> Result<Job, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let (wait_sems, signal_sems, values) = unsafe {
        (
            handle::slice(submit.p_wait_semaphores, submit.wait_semaphore_count),
            handle::slice(submit.p_signal_semaphores, submit.signal_semaphore_count),
            handle::find_in_chain::<vk::TimelineSemaphoreSubmitInfo>(submit.p_next),
        )
    };
    // SAFETY: guaranteed by the caller: pCommandBuffers holds command_buffer_count handles.
    let buffers = unsafe { handle::slice(submit.p_command_buffers, submit.command_buffer_count) };
    let mut cmds = Vec::new();
    for &cb in buffers {
        cmds.extend(
            // SAFETY: guaranteed by the caller: `cb` is a live command buffer made by this
            // driver.
            unsafe { CommandBuffer::from_handle(cb) }
                .ok_or(vk::Result::ERROR_UNKNOWN)?
                .commands()?,
        );
    }
    let (wait_values, signal_values) = match values {
        // SAFETY: valid usage: the value arrays hold the counts the timeline submit info gives.
        Some(v) => unsafe {
            (
                handle::slice(v.p_wait_semaphore_values, v.wait_semaphore_value_count),
                handle::slice(v.p_signal_semaphore_values, v.signal_semaphore_value_count),
            )
        },
        None => (&[][..], &[][..]),
    };
    let mut consumed = Vec::new();
    let mut point = |sem: vk::Semaphore,
                     values: &[u64],
                     i: usize,
                     wait: bool|
     -> Result<SyncPoint, vk::Result> {
        // SAFETY: guaranteed by the caller: `sem` is a live semaphore made by this driver.
        let s = unsafe { Semaphore::from_handle(sem) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        let value = if s.timeline {
            *values.get(i).ok_or(vk::Result::ERROR_UNKNOWN)?
        } else {
            0
        };
        let syncobj = if wait {
            let (h, temporary) = s.take_for_wait();
            consumed.extend(temporary);
            h
        } else {
            s.active()
        };
        Ok(SyncPoint { syncobj, value })
    };
    let waits = wait_sems
        .iter()
        .enumerate()
        .map(|(i, &s)| point(s, wait_values, i, true))
        .collect::<Result<_, _>>()?;
    let signals = signal_sems
        .iter()
        .enumerate()
        .map(|(i, &s)| point(s, signal_values, i, false))
        .collect::<Result<_, _>>()?;
    Ok(Job {
        waits,
        signals,
        cmds,
        consumed,
    })
}

/// Whether a submission has no fence and batches that wait for, run and signal nothing:
/// `counts` holds each batch's semaphore and command buffer counts ORed together.
fn nothing_to_submit(fence: vk::Fence, mut counts: impl Iterator<Item = u32>) -> bool {
    fence == vk::Fence::null() && counts.all(|c| c == 0)
}

pub unsafe extern "system" fn queue_submit(
    queue: vk::Queue,
    submit_count: u32,
    p_submits: *const vk::SubmitInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    guard("vkQueueSubmit", || {
        // SAFETY: Vulkan valid usage: `queue` is a live queue made by this driver.
        let q = unsafe { Queue::from_handle(queue) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: valid usage: pSubmits holds submit_count valid structures.
        let submits = unsafe { handle::slice(p_submits, submit_count) };
        let counts = submits
            .iter()
            .map(|s| s.wait_semaphore_count | s.command_buffer_count | s.signal_semaphore_count);
        if nothing_to_submit(fence, counts) {
            return q.submit_nothing();
        }
        // SAFETY: each structure is valid, per valid usage.
        let mut jobs = submits
            .iter()
            .map(|s| unsafe { job_from_submit(s) })
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: Vulkan valid usage: `fence` is VK_NULL_HANDLE or a live fence made by this
        // driver.
        if let Some(f) = unsafe { Fence::from_handle(fence) } {
            if jobs.is_empty() {
                jobs.push(Job::default());
            }
            if let Some(last) = jobs.last_mut() {
                last.signals.push(SyncPoint {
                    syncobj: f.active(),
                    value: 0,
                });
            }
        }
        q.push(jobs)
    })
}

/// Reads one VkSubmitInfo2 into a job.
///
/// # Safety
/// `submit` must be a valid VkSubmitInfo2 with valid arrays, whose semaphores and command
/// buffers are live handles made by this driver.
unsafe fn job_from_submit2(submit: &vk::SubmitInfo2<'_>) -> Result<Job, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let (waits, buffers, signals) = unsafe {
        (
            handle::slice(
                submit.p_wait_semaphore_infos,
                submit.wait_semaphore_info_count,
            ),
            handle::slice(
                submit.p_command_buffer_infos,
                submit.command_buffer_info_count,
            ),
            handle::slice(
                submit.p_signal_semaphore_infos,
                submit.signal_semaphore_info_count,
            ),
        )
    };
    let mut consumed = Vec::new();
    let mut point =
        |info: &vk::SemaphoreSubmitInfo<'_>, wait: bool| -> Result<SyncPoint, vk::Result> {
            // SAFETY: guaranteed by the caller: `info.semaphore` is a live semaphore made by this
            // driver.
            let s = unsafe { Semaphore::from_handle(info.semaphore) }
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            let syncobj = if wait {
                let (h, temporary) = s.take_for_wait();
                consumed.extend(temporary);
                h
            } else {
                s.active()
            };
            Ok(SyncPoint {
                syncobj,
                value: if s.timeline { info.value } else { 0 },
            })
        };
    let mut cmds = Vec::new();
    for b in buffers {
        cmds.extend(
            // SAFETY: guaranteed by the caller: `b.command_buffer` is a live command buffer made
            // by this driver.
            unsafe { CommandBuffer::from_handle(b.command_buffer) }
                .ok_or(vk::Result::ERROR_UNKNOWN)?
                .commands()?,
        );
    }
    let waits = waits
        .iter()
        .map(|w| point(w, true))
        .collect::<Result<_, _>>()?;
    let signals = signals
        .iter()
        .map(|s| point(s, false))
        .collect::<Result<_, _>>()?;
    Ok(Job {
        waits,
        signals,
        cmds,
        consumed,
    })
}

pub unsafe extern "system" fn queue_submit2(
    queue: vk::Queue,
    submit_count: u32,
    p_submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    guard("vkQueueSubmit2", || {
        // SAFETY: Vulkan valid usage: `queue` is a live queue made by this driver.
        let q = unsafe { Queue::from_handle(queue) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: valid usage: pSubmits holds submit_count valid structures.
        let submits = unsafe { handle::slice(p_submits, submit_count) };
        let counts = submits.iter().map(|s| {
            s.wait_semaphore_info_count
                | s.command_buffer_info_count
                | s.signal_semaphore_info_count
        });
        if nothing_to_submit(fence, counts) {
            return q.submit_nothing();
        }
        // SAFETY: each structure is valid, per valid usage.
        let mut jobs = submits
            .iter()
            .map(|s| unsafe { job_from_submit2(s) })
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: Vulkan valid usage: `fence` is VK_NULL_HANDLE or a live fence made by this
        // driver.
        if let Some(f) = unsafe { Fence::from_handle(fence) } {
            if jobs.is_empty() {
                jobs.push(Job::default());
            }
            if let Some(last) = jobs.last_mut() {
                last.signals.push(SyncPoint {
                    syncobj: f.active(),
                    value: 0,
                });
            }
        }
        q.push(jobs)
    })
}

pub unsafe extern "system" fn queue_wait_idle(queue: vk::Queue) -> vk::Result {
    guard("vkQueueWaitIdle", || {
        // SAFETY: Vulkan valid usage: `queue` is a live queue made by this driver.
        unsafe { Queue::from_handle(queue) }
            .ok_or(vk::Result::ERROR_UNKNOWN)?
            .wait_idle()
    })
}
