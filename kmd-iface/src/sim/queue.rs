//! Submission queues: each owns one firmware worker thread that runs its jobs in order.

use super::fence::{Fence, SyncHub};
use super::firmware::{self, FwCmd};
use super::table::lock;
use super::vm::Vm;
use crate::KmdResult;
use hw::Identity;
use sim_gpu::Fault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, MutexGuard};

/// One SUBMIT as the firmware sees it.
pub(crate) struct Job {
    /// Every in-sync, combined.
    pub(crate) wait: Arc<Fence>,
    pub(crate) cmds: Vec<FwCmd>,
    /// Installed in the out-syncs at submit time, signaled when the job is over.
    pub(crate) done: Arc<Fence>,
}

/// What the queue and its worker share.
#[derive(Default)]
pub(crate) struct QueueState {
    faulted: AtomicBool,
    killed: AtomicBool,
    fault: Mutex<Option<Fault>>,
}

impl QueueState {
    pub(crate) fn record_fault(&self, fault: Fault) {
        let mut slot = lock(&self.fault);
        slot.get_or_insert(fault);
        self.faulted.store(true, Ordering::Release);
    }

    pub(crate) fn faulted(&self) -> bool {
        self.faulted.load(Ordering::Acquire)
    }

    pub(crate) fn killed(&self) -> bool {
        self.killed.load(Ordering::Acquire)
    }
}

/// A queue's VM lives on in its worker, as the kernel's queue keeps its VM referenced.
pub(crate) struct Queue {
    /// Held for the whole of a SUBMIT so jobs enter the worker in the order their fences
    /// were installed.
    sender: Mutex<Sender<Job>>,
    state: Arc<QueueState>,
    hub: Arc<SyncHub>,
}

impl Queue {
    pub(crate) fn new(
        id: u32,
        vm: Arc<Vm>,
        usc_exec_base: u64,
        gpu: &'static Identity,
        hub: Arc<SyncHub>,
    ) -> KmdResult<Queue> {
        let (tx, rx) = channel();
        let state = Arc::new(QueueState::default());
        let fw = firmware::Worker {
            gpu,
            vm,
            usc_exec_base,
            state: state.clone(),
            hub: hub.clone(),
        };
        std::thread::Builder::new()
            .name(format!("agx4-sim-q{id}"))
            .spawn(move || fw.run(rx))
            .map_err(|_| libc::ENOMEM)?;
        Ok(Queue {
            sender: Mutex::new(tx),
            state,
            hub,
        })
    }

    pub(crate) fn faulted(&self) -> bool {
        self.state.faulted()
    }

    pub(crate) fn fault(&self) -> Option<Fault> {
        lock(&self.state.fault).clone()
    }

    pub(crate) fn submission(&self) -> MutexGuard<'_, Sender<Job>> {
        lock(&self.sender)
    }
}

/// Hand a job to the worker. Only fails if the worker is gone, and then the job's fence is
/// signaled here so nobody waits forever.
pub(crate) fn enqueue(sender: &Sender<Job>, hub: &SyncHub, job: Job) {
    if let Err(e) = sender.send(job) {
        hub.signal(&e.0.done);
    }
}

impl Drop for Queue {
    /// QUEUE_DESTROY: jobs not yet started are dropped, but their fences still signal.
    fn drop(&mut self) {
        self.state.killed.store(true, Ordering::Release);
        self.hub.notify();
    }
}
