//! DRM syncobj semantics of the simulated kernel: binary and timeline, waits, transfers.

mod common;

use common::*;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const ALL: u32 = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
const FOR_SUBMIT: u32 = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
const AVAILABLE: u32 = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
const LAST: u32 = DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED;

/// Long enough that a thread blocked in a wait has certainly gone to sleep.
const SETTLE: Duration = Duration::from_millis(50);

#[test]
fn create_and_destroy_validate_arguments() {
    let d = dev();
    let mut bad = drm_syncobj_create {
        flags: 2,
        ..Default::default()
    };
    assert_eq!(d.kmd.syncobj_create(&mut bad), Err(libc::EINVAL));
    let a = d.syncobj(0);
    let b = d.syncobj(DRM_SYNCOBJ_CREATE_SIGNALED);
    assert_eq!((a, b), (1, 2));
    assert_eq!(
        wait(&d.kmd, &[b], ALL, 0),
        Ok(u32::MAX),
        "created signaled; WAIT_ALL leaves first_signaled"
    );
    assert_eq!(
        d.kmd
            .syncobj_destroy(&drm_syncobj_destroy { handle: 9, pad: 0 }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        d.kmd
            .syncobj_destroy(&drm_syncobj_destroy { handle: a, pad: 1 }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        d.kmd
            .syncobj_destroy(&drm_syncobj_destroy { handle: a, pad: 0 }),
        Ok(())
    );
    assert_eq!(wait(&d.kmd, &[a], 0, 0), Err(libc::ENOENT), "destroyed");
    assert_eq!(d.syncobj(0), a, "lowest handle reused");
}

#[test]
fn binary_signal_wait_reset() {
    let d = dev();
    let s = d.syncobj(0);
    assert_eq!(
        wait(&d.kmd, &[s], 0, 0),
        Err(libc::EINVAL),
        "no fence and no WAIT_FOR_SUBMIT"
    );
    assert_eq!(
        wait(&d.kmd, &[s], FOR_SUBMIT, 0),
        Err(libc::ETIME),
        "polling a fenceless syncobj"
    );
    signal(&d.kmd, &[s]).expect("signal");
    assert_eq!(wait(&d.kmd, &[s], 0, 0), Ok(0));
    reset(&d.kmd, &[s]).expect("reset");
    assert_eq!(
        wait(&d.kmd, &[s], 0, 0),
        Err(libc::EINVAL),
        "reset removed the fence"
    );
    assert_eq!(
        wait(&d.kmd, &[s], DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, 0),
        Err(libc::EINVAL),
        "timeline-only flag"
    );
    assert_eq!(
        wait(&d.kmd, &[], 0, 0),
        Ok(u32::MAX),
        "empty wait succeeds at once"
    );
}

#[test]
fn array_ops_check_every_handle_before_touching_any() {
    let d = dev();
    let s = d.syncobj(0);
    assert_eq!(signal(&d.kmd, &[s, 77]), Err(libc::ENOENT));
    assert_eq!(
        wait(&d.kmd, &[s], 0, 0),
        Err(libc::EINVAL),
        "s was not signaled"
    );
    assert_eq!(signal(&d.kmd, &[]), Err(libc::EINVAL));
    assert_eq!(reset(&d.kmd, &[]), Err(libc::EINVAL));
    let padded = drm_syncobj_array {
        handles: &s as *const u32 as u64,
        count_handles: 1,
        pad: 1,
    };
    // SAFETY: one live handle.
    assert_eq!(unsafe { d.kmd.syncobj_signal(&padded) }, Err(libc::EINVAL));
    assert_eq!(
        query(&d.kmd, s, 1 << 4),
        Err(libc::EINVAL),
        "unknown query flag"
    );
    assert_eq!(query(&d.kmd, 55, 0), Err(libc::ENOENT));
}

#[test]
fn any_and_all_waits() {
    let d = dev();
    let (a, b) = (d.syncobj(0), d.syncobj(DRM_SYNCOBJ_CREATE_SIGNALED));
    assert_eq!(
        wait(&d.kmd, &[a, b], FOR_SUBMIT, 0),
        Ok(1),
        "any: b is first signaled"
    );
    assert_eq!(
        wait(&d.kmd, &[a, b], FOR_SUBMIT | ALL, 0),
        Err(libc::ETIME),
        "all: a is not"
    );
    signal(&d.kmd, &[a]).expect("signal");
    assert_eq!(wait(&d.kmd, &[a, b], 0, 0), Ok(0));
    assert_eq!(wait(&d.kmd, &[a, b], ALL, 0), Ok(u32::MAX));
}

#[test]
fn timeouts_are_absolute_monotonic_deadlines() {
    let d = dev();
    let s = d.syncobj(0);
    let start = Instant::now();
    assert_eq!(
        wait(&d.kmd, &[s], FOR_SUBMIT, deadline_ms(&d.kmd, 30)),
        Err(libc::ETIME)
    );
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(30),
        "returned early: {waited:?}"
    );
    assert!(waited < Duration::from_secs(5), "overslept: {waited:?}");
    let start = Instant::now();
    assert_eq!(
        twait(&d.kmd, &[(s, 1)], FOR_SUBMIT, 1),
        Err(libc::ETIME),
        "deadline long past"
    );
    assert!(start.elapsed() < Duration::from_secs(1));
}

#[test]
fn wait_for_submit_blocks_until_another_thread_signals() {
    let d = std::sync::Arc::new(dev());
    let s = d.syncobj(0);
    let (tx, rx) = mpsc::channel();
    let waiter = {
        let d = d.clone();
        thread::spawn(move || {
            let r = wait(&d.kmd, &[s], FOR_SUBMIT, deadline_ms(&d.kmd, 20_000));
            tx.send(r).expect("report");
        })
    };
    thread::sleep(SETTLE);
    assert!(
        rx.try_recv().is_err(),
        "the wait returned before anything was signaled"
    );
    signal(&d.kmd, &[s]).expect("signal");
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(Ok(0)));
    waiter.join().expect("waiter");
}

#[test]
fn timeline_points_signal_in_order_and_query_reports_them() {
    let d = std::sync::Arc::new(dev());
    let t = d.syncobj(0);
    assert_eq!(query(&d.kmd, t, 0), Ok(0));
    assert_eq!(
        twait(&d.kmd, &[(t, 3)], 0, 0),
        Err(libc::EINVAL),
        "point 3 has no fence yet"
    );

    let (tx, rx) = mpsc::channel();
    let waiters: Vec<_> = [5u64, 3]
        .into_iter()
        .map(|point| {
            let (d, tx) = (d.clone(), tx.clone());
            thread::spawn(move || {
                let r = twait(
                    &d.kmd,
                    &[(t, point)],
                    FOR_SUBMIT | ALL,
                    deadline_ms(&d.kmd, 20_000),
                );
                tx.send((point, r)).expect("report");
            })
        })
        .collect();

    thread::sleep(SETTLE);
    tsignal(&d.kmd, t, 1).expect("point 1");
    thread::sleep(SETTLE);
    assert!(rx.try_recv().is_err(), "point 1 satisfies neither waiter");
    assert_eq!(query(&d.kmd, t, 0), Ok(1));

    tsignal(&d.kmd, t, 4).expect("point 4");
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)),
        Ok((3, Ok(u32::MAX))),
        "point 4 covers point 3"
    );
    thread::sleep(SETTLE);
    assert!(rx.try_recv().is_err(), "but not point 5");
    assert_eq!(
        (query(&d.kmd, t, 0), query(&d.kmd, t, LAST)),
        (Ok(4), Ok(4))
    );

    tsignal(&d.kmd, t, 5).expect("point 5");
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)),
        Ok((5, Ok(u32::MAX)))
    );
    for w in waiters {
        w.join().expect("waiter");
    }
    assert_eq!(
        twait(&d.kmd, &[(t, 2)], ALL, 0),
        Ok(u32::MAX),
        "earlier points count as signaled"
    );
}

#[test]
fn wait_available_needs_only_a_fence_for_the_point() {
    let d = dev();
    let q = d.queue();
    let t = d.syncobj(0);
    assert_eq!(
        twait(&d.kmd, &[(t, 1)], AVAILABLE, 0),
        Err(libc::ETIME),
        "no fence for point 1 yet"
    );
    d.submit(q, &[], &[timeline(t, 1)], &compute(NONE, NONE))
        .expect("submit");
    assert_eq!(query(&d.kmd, t, LAST), Ok(1));
    assert_eq!(
        twait(&d.kmd, &[(t, 1)], AVAILABLE, 0),
        Ok(0),
        "the fence exists once submitted"
    );
    assert_eq!(
        twait(&d.kmd, &[(t, 1)], ALL, deadline_ms(&d.kmd, 10_000)),
        Ok(u32::MAX)
    );
}

#[test]
fn transfer_moves_fences_between_binary_and_timeline() {
    let d = dev();
    let (t, b, t2) = (d.syncobj(0), d.syncobj(0), d.syncobj(0));
    tsignal(&d.kmd, t, 3).expect("point 3");
    let xfer = |src_handle, src_point, dst_handle, dst_point, flags| {
        d.kmd.syncobj_transfer(&drm_syncobj_transfer {
            src_handle,
            dst_handle,
            src_point,
            dst_point,
            flags,
            pad: 0,
        })
    };
    assert_eq!(
        xfer(t, 9, b, 0, 0),
        Err(libc::EINVAL),
        "source point not submitted"
    );
    assert_eq!(
        xfer(t, 3, 42, 0, 0),
        Err(libc::ENOENT),
        "unknown destination"
    );
    let padded = drm_syncobj_transfer {
        src_handle: t,
        dst_handle: b,
        src_point: 3,
        pad: 1,
        ..Default::default()
    };
    assert_eq!(d.kmd.syncobj_transfer(&padded), Err(libc::EINVAL));
    assert_eq!(
        wait(&d.kmd, &[b], 0, 0),
        Err(libc::EINVAL),
        "refused transfers left b empty"
    );

    assert_eq!(xfer(t, 3, b, 0, 0), Ok(()), "timeline point -> binary");
    assert_eq!(wait(&d.kmd, &[b], 0, 0), Ok(0));
    assert_eq!(xfer(b, 0, t2, 7, 0), Ok(()), "binary -> timeline point");
    assert_eq!(query(&d.kmd, t2, 0), Ok(7));
    assert_eq!(xfer(t, 2, t2, 8, 0), Ok(()), "timeline -> timeline");
    assert_eq!(query(&d.kmd, t2, LAST), Ok(8));
}

#[test]
fn transfer_can_wait_for_the_source_to_be_submitted() {
    let d = std::sync::Arc::new(dev());
    let (t, b) = (d.syncobj(0), d.syncobj(0));
    let (tx, rx) = mpsc::channel();
    let mover = {
        let d = d.clone();
        thread::spawn(move || {
            let args = drm_syncobj_transfer {
                src_handle: t,
                dst_handle: b,
                src_point: 2,
                flags: FOR_SUBMIT,
                ..Default::default()
            };
            tx.send(d.kmd.syncobj_transfer(&args)).expect("report");
        })
    };
    thread::sleep(SETTLE);
    assert!(
        rx.try_recv().is_err(),
        "transfer finished before its source existed"
    );
    tsignal(&d.kmd, t, 2).expect("point 2");
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(Ok(())));
    mover.join().expect("mover");
    assert_eq!(wait(&d.kmd, &[b], 0, 0), Ok(0));
}
