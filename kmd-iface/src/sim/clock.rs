//! The clock syncobj deadlines and GET_TIME are expressed in.

/// CLOCK_MONOTONIC in nanoseconds: the clock DRM's absolute syncobj timeouts use, so a
/// deadline the ICD computes from `clock_gettime` means the same thing here.
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if r != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}
