//! Host threads for the independent items of one simulated command: the workgroups of a
//! compute launch, the tiles of a render pass.
//!
//! Items are handed out in index order from a shared counter. The calling thread starts
//! alone and starts helpers only once the command has run long enough to pay for them, so
//! the many short commands of a test suite stay on one thread. A fault ends the command with
//! the fault of the first faulting item in index order, as a serial loop reports: every item
//! before it is handed out before it and runs to its end, and no item after a fault starts.

use super::Fault;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the calling thread runs a command alone before it starts helpers.
pub const ALONE: Duration = Duration::from_micros(500);

/// Host threads a command may use: `AGX4_SIM_THREADS`, or the host's cores.
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

/// How many threads a command may use, and how long the calling thread runs alone first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pool {
    pub threads: usize,
    pub alone: Duration,
}

impl Pool {
    /// [`threads`] after [`ALONE`]: what commands use unless a test asks otherwise.
    pub fn host() -> Pool {
        Pool {
            threads: threads(),
            alone: ALONE,
        }
    }
}

/// What the threads of one command share.
struct Shared {
    items: u64,
    next: AtomicU64,
    faulted: AtomicBool,
    /// The first faulting item in index order and its fault.
    fault: Mutex<Option<(u64, Fault)>>,
}

/// Runs `job(worker, i)` for every `i` in `0..items` on up to `pool` threads, the calling
/// thread alone for the first `alone`. Each thread makes its own `worker` state with `start`
/// and hands it to `end` when it runs out of items (or stops at a fault).
pub fn run<W>(
    items: u64,
    pool: usize,
    alone: Duration,
    start: impl Fn() -> W + Sync,
    job: impl Fn(&mut W, u64) -> Result<(), Fault> + Sync,
    end: impl Fn(W) + Sync,
) -> Result<(), Fault> {
    let s = Shared {
        items,
        next: AtomicU64::new(0),
        faulted: AtomicBool::new(false),
        fault: Mutex::new(None),
    };
    let thread = |helpers: Option<&dyn Fn()>| {
        let mut w = start();
        share(&s, &mut w, &job, helpers.map(|h| (h, alone)));
        end(w);
    };
    std::thread::scope(|scope| {
        let start_helpers = || {
            for _ in 1..pool {
                scope.spawn(|| thread(None));
            }
        };
        thread(Some(&start_helpers));
    });
    match s.fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some((_, f)) => Err(f),
        None => Ok(()),
    }
}

/// One thread's share: items from the shared counter until none is left. The calling thread
/// passes the way to start the helpers, which it uses once it has run for `alone`.
fn share<W>(
    s: &Shared,
    w: &mut W,
    job: &(impl Fn(&mut W, u64) -> Result<(), Fault> + Sync),
    mut helpers: Option<(&dyn Fn(), Duration)>,
) {
    let began = Instant::now();
    loop {
        if s.faulted.load(Ordering::Relaxed) {
            return;
        }
        let i = s.next.fetch_add(1, Ordering::Relaxed);
        if i >= s.items {
            return;
        }
        if let Err(f) = job(w, i) {
            let mut first = s.fault.lock().unwrap_or_else(|e| e.into_inner());
            if first.as_ref().is_none_or(|(at, _)| i < *at) {
                *first = Some((i, f));
            }
            // Items before this one are already handed out and will finish.
            s.faulted.store(true, Ordering::Relaxed);
            return;
        }
        if let Some((start, alone)) = helpers {
            if began.elapsed() >= alone && i + 1 < s.items {
                start();
                helpers = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(i: u64) -> Fault {
        Fault::Shader {
            pc: i,
            reason: format!("item {i}"),
        }
    }

    #[test]
    fn every_item_runs_once_on_any_thread_count() {
        for pool in 1..=4 {
            let seen: Vec<AtomicU64> = (0..1000).map(|_| AtomicU64::new(0)).collect();
            let total = AtomicU64::new(0);
            run(
                1000,
                pool,
                Duration::ZERO,
                || 0u64,
                |n, i| {
                    seen[i as usize].fetch_add(1, Ordering::Relaxed);
                    *n += 1;
                    Ok(())
                },
                |n| {
                    total.fetch_add(n, Ordering::Relaxed);
                },
            )
            .unwrap();
            assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
            assert_eq!(total.load(Ordering::Relaxed), 1000);
        }
    }

    #[test]
    fn the_fault_is_the_first_in_index_order_and_items_before_it_ran() {
        for pool in 1..=4 {
            let ran: Vec<AtomicBool> = (0..500).map(|_| AtomicBool::new(false)).collect();
            let r = run(
                500,
                pool,
                Duration::ZERO,
                || (),
                |_, i| {
                    ran[i as usize].store(true, Ordering::Relaxed);
                    // Later faulting items finish first, so the order must be restored.
                    if i == 300 || i == 301 || i == 450 {
                        if i == 300 {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        return Err(fault(i));
                    }
                    Ok(())
                },
                |_| {},
            );
            assert_eq!(r, Err(fault(300)), "{pool} threads");
            assert!(ran[..300].iter().all(|r| r.load(Ordering::Relaxed)));
        }
    }
}
