//! Fences and the one place every waiter sleeps.
//!
//! A fence is either a leaf that some agent (the firmware, a signal ioctl) signals, or the
//! conjunction of leaves (a timeline point waits for every earlier point). Conjunctions are
//! flattened when built, so checking a fence never recurses and never grows deep.
//!
//! All state a waiter looks at — fence flags and the syncobj table — changes only while the
//! hub's mutex is held, and every change notifies the hub's condition variable, so a waiter
//! that checks under the mutex and then sleeps can never miss a wake-up.

use super::syncobj::SyncTable;
use super::table::lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

#[derive(Debug)]
pub(crate) enum Fence {
    Leaf(AtomicBool),
    /// Signaled when every leaf is; holds only unsignaled-at-build-time leaves.
    All(Vec<Arc<Fence>>),
}

impl Fence {
    pub(crate) fn pending() -> Arc<Fence> {
        Arc::new(Fence::Leaf(AtomicBool::new(false)))
    }

    /// DRM's "stub" fence: already signaled.
    pub(crate) fn signaled() -> Arc<Fence> {
        Arc::new(Fence::Leaf(AtomicBool::new(true)))
    }

    /// The fence that signals once all of `fences` have.
    pub(crate) fn all<'a>(fences: impl IntoIterator<Item = &'a Arc<Fence>>) -> Arc<Fence> {
        let mut leaves: Vec<Arc<Fence>> = Vec::new();
        for f in fences {
            match &**f {
                Fence::Leaf(done) => {
                    if !done.load(Ordering::Acquire) {
                        leaves.push(f.clone());
                    }
                }
                Fence::All(inner) => {
                    leaves.extend(inner.iter().filter(|l| !l.is_signaled()).cloned())
                }
            }
        }
        match leaves.len() {
            0 => Fence::signaled(),
            1 => leaves.swap_remove(0),
            _ => Arc::new(Fence::All(leaves)),
        }
    }

    pub(crate) fn is_signaled(&self) -> bool {
        match self {
            Fence::Leaf(done) => done.load(Ordering::Acquire),
            Fence::All(leaves) => leaves.iter().all(|l| l.is_signaled()),
        }
    }
}

/// The syncobj table plus the condition variable all waits in the simulator sleep on.
#[derive(Default)]
pub(crate) struct SyncHub {
    state: Mutex<SyncTable>,
    cond: Condvar,
    /// Set once a syncobj or fence of this file has been shared through an fd. Another
    /// device's firmware may then signal a fence, or another file change a syncobj, that this
    /// hub's waiters look at without this hub's condition variable being notified; from then
    /// on waiters re-check at least every [`SHARED_POLL`].
    shared: AtomicBool,
}

/// How often waiters of a hub with shared objects re-check (see [`SyncHub::shared`]).
const SHARED_POLL: Duration = Duration::from_millis(1);

/// Longest single sleep: waits re-check their deadline at least this often, which also keeps
/// very distant deadlines from overflowing the platform's timed wait.
const MAX_SLEEP: Duration = Duration::from_secs(3600);

impl SyncHub {
    pub(crate) fn lock(&self) -> MutexGuard<'_, SyncTable> {
        lock(&self.state)
    }

    /// Signal a leaf fence and wake every waiter.
    pub(crate) fn signal(&self, fence: &Fence) {
        let _guard = self.lock();
        if let Fence::Leaf(done) = fence {
            done.store(true, Ordering::Release);
        }
        self.cond.notify_all();
    }

    /// Wake every waiter after a change made under [`SyncHub::lock`] or elsewhere (a queue
    /// being killed).
    pub(crate) fn notify(&self) {
        let _guard = self.lock();
        self.cond.notify_all();
    }

    /// Wake every waiter; for callers that already hold [`SyncHub::lock`].
    pub(crate) fn notify_locked(&self) {
        self.cond.notify_all();
    }

    /// Note that objects of this file are now shared with others (see [`SyncHub::shared`]).
    pub(crate) fn mark_shared(&self) {
        self.shared.store(true, Ordering::Release);
    }

    /// Sleep until notified or until `deadline_ns` (CLOCK_MONOTONIC) passes. Returns the
    /// guard and whether the deadline has passed.
    pub(crate) fn sleep<'a>(
        &'a self,
        guard: MutexGuard<'a, SyncTable>,
        deadline_ns: Option<u64>,
    ) -> (MutexGuard<'a, SyncTable>, bool) {
        let cap = if self.shared.load(Ordering::Acquire) {
            SHARED_POLL
        } else {
            MAX_SLEEP
        };
        let Some(deadline) = deadline_ns else {
            let g = if cap == MAX_SLEEP {
                self.cond.wait(guard).unwrap_or_else(|e| e.into_inner())
            } else {
                self.cond
                    .wait_timeout(guard, cap)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            };
            return (g, false);
        };
        let now = super::clock::monotonic_ns();
        if now >= deadline {
            return (guard, true);
        }
        let dur = Duration::from_nanos(deadline - now).min(cap);
        let (g, _) = self
            .cond
            .wait_timeout(guard, dur)
            .unwrap_or_else(|e| e.into_inner());
        (g, super::clock::monotonic_ns() >= deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conjunction_tracks_its_leaves() {
        let hub = SyncHub::default();
        let a = Fence::pending();
        let b = Fence::pending();
        let both = Fence::all([&a, &b, &Fence::signaled()]);
        assert!(!both.is_signaled());
        hub.signal(&a);
        assert!(!both.is_signaled());
        hub.signal(&b);
        assert!(both.is_signaled());
        // Nested conjunctions flatten to leaves.
        let c = Fence::pending();
        let nested = Fence::all([&Fence::all([&c, &Fence::pending()]), &c]);
        assert!(
            matches!(&*nested, Fence::All(v) if v.iter().all(|f| matches!(**f, Fence::Leaf(_))))
        );
        assert!(Fence::all([]).is_signaled());
    }
}
