//! Safe wrappers over the `Kmd` calls whose argument structs carry user pointers.
//!
//! The UAPI passes arrays as (pointer, count) pairs inside the ioctl structs. Building those
//! structs from slices here keeps every raw pointer the driver hands to the kernel in one file.

use kmd_iface::uapi::*;
use kmd_iface::{Errno, Kmd, KmdResult};

/// CLOCK_MONOTONIC in nanoseconds: the clock DRM syncobj deadlines are measured on.
pub fn monotonic_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to the pointer we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec)
}

/// An absolute deadline `timeout_ns` from now, saturating ("forever" stays forever).
pub fn deadline(timeout_ns: u64) -> i64 {
    monotonic_ns().saturating_add(i64::try_from(timeout_ns).unwrap_or(i64::MAX))
}

pub fn vm_bind(kmd: &dyn Kmd, vm_id: u32, ops: &[drm_asahi_gem_bind_op]) -> KmdResult {
    let args = drm_asahi_vm_bind {
        vm_id,
        num_binds: ops.len() as u32,
        stride: std::mem::size_of::<drm_asahi_gem_bind_op>() as u32,
        pad: 0,
        userptr: ops.as_ptr() as u64,
    };
    // SAFETY: userptr points to `num_binds` records of `stride` bytes, borrowed for the call.
    unsafe { kmd.vm_bind(&args) }
}

pub fn syncobj_create(kmd: &dyn Kmd, signaled: bool) -> KmdResult<u32> {
    let mut args = drm_syncobj_create {
        handle: 0,
        flags: if signaled {
            DRM_SYNCOBJ_CREATE_SIGNALED
        } else {
            0
        },
    };
    kmd.syncobj_create(&mut args)?;
    Ok(args.handle)
}

pub fn syncobj_destroy(kmd: &dyn Kmd, handle: u32) -> KmdResult {
    kmd.syncobj_destroy(&drm_syncobj_destroy { handle, pad: 0 })
}

/// Waits for binary syncobjs; returns the index of the first signaled one.
pub fn syncobj_wait(
    kmd: &dyn Kmd,
    handles: &[u32],
    deadline_ns: i64,
    flags: u32,
) -> Result<u32, Errno> {
    let mut args = drm_syncobj_wait {
        handles: handles.as_ptr() as u64,
        timeout_nsec: deadline_ns,
        count_handles: handles.len() as u32,
        flags,
        ..Default::default()
    };
    // SAFETY: handles points to count_handles u32 values, borrowed for the call.
    unsafe { kmd.syncobj_wait(&mut args) }?;
    Ok(args.first_signaled)
}

pub fn syncobj_timeline_wait(
    kmd: &dyn Kmd,
    handles: &[u32],
    points: &[u64],
    deadline_ns: i64,
    flags: u32,
) -> Result<u32, Errno> {
    assert_eq!(handles.len(), points.len());
    let mut args = drm_syncobj_timeline_wait {
        handles: handles.as_ptr() as u64,
        points: points.as_ptr() as u64,
        timeout_nsec: deadline_ns,
        count_handles: handles.len() as u32,
        flags,
        ..Default::default()
    };
    // SAFETY: handles/points point to count_handles values each, borrowed for the call.
    unsafe { kmd.syncobj_timeline_wait(&mut args) }?;
    Ok(args.first_signaled)
}

pub fn syncobj_reset(kmd: &dyn Kmd, handles: &[u32]) -> KmdResult {
    let args = drm_syncobj_array {
        handles: handles.as_ptr() as u64,
        count_handles: handles.len() as u32,
        pad: 0,
    };
    // SAFETY: handles points to count_handles u32 values, borrowed for the call.
    unsafe { kmd.syncobj_reset(&args) }
}

pub fn syncobj_timeline_signal(kmd: &dyn Kmd, handles: &[u32], points: &[u64]) -> KmdResult {
    assert_eq!(handles.len(), points.len());
    let args = drm_syncobj_timeline_array {
        handles: handles.as_ptr() as u64,
        points: points.as_ptr() as u64,
        count_handles: handles.len() as u32,
        flags: 0,
    };
    // SAFETY: handles/points point to count_handles values each, borrowed for the call.
    unsafe { kmd.syncobj_timeline_signal(&args) }
}

pub fn syncobj_query(kmd: &dyn Kmd, handle: u32) -> KmdResult<u64> {
    let handles = [handle];
    let mut points = [0u64];
    let mut args = drm_syncobj_timeline_array {
        handles: handles.as_ptr() as u64,
        points: points.as_mut_ptr() as u64,
        count_handles: 1,
        flags: 0,
    };
    // SAFETY: handles/points point to one value each; points is writable.
    unsafe { kmd.syncobj_query(&mut args) }?;
    Ok(points[0])
}

/// Makes `dst` at `dst_point` take the fence `src` has at `src_point` (0: a binary syncobj).
pub fn syncobj_transfer(
    kmd: &dyn Kmd,
    dst: u32,
    dst_point: u64,
    src: u32,
    src_point: u64,
) -> KmdResult {
    kmd.syncobj_transfer(&drm_syncobj_transfer {
        src_handle: src,
        dst_handle: dst,
        src_point,
        dst_point,
        flags: 0,
        pad: 0,
    })
}
