//! Shared setup for the SimKmd tests: a device with a VM, and builders for raw UAPI input.
#![allow(dead_code)]

use hw::Identity;
use kmd_iface::sim::SimKmd;
use kmd_iface::uapi::*;
use kmd_iface::{Kmd, KmdResult};

pub const PAGE: u64 = 0x4000;
/// Where the tests put the USC window: the 4 GiB from 4 GiB up.
pub const USC_BASE: u64 = 1 << 32;
pub const NONE: u16 = DRM_ASAHI_BARRIER_NONE as u16;

pub struct Dev {
    pub kmd: SimKmd,
    pub params: drm_asahi_params_global,
    pub vm: u32,
    /// The kernel carve-out this VM was created with.
    pub kernel: std::ops::Range<u64>,
}

pub fn params(kmd: &dyn Kmd) -> drm_asahi_params_global {
    let mut p = drm_asahi_params_global::default();
    let mut args = drm_asahi_get_params {
        pointer: &mut p as *mut _ as u64,
        size: size_of_val(&p) as u64,
        ..Default::default()
    };
    // SAFETY: `pointer` is `p`, writable for `size` bytes.
    unsafe { kmd.get_params(&mut args) }.expect("GET_PARAMS");
    p
}

/// A simulated M1 with one VM whose kernel carve-out is the top 1 GiB of the user range.
pub fn dev() -> Dev {
    let kmd = SimKmd::new(Identity::by_name("g13g").expect("known GPU"));
    let params = params(&kmd);
    let kernel = params.vm_end - (1 << 30)..params.vm_end;
    let mut vm = drm_asahi_vm_create {
        kernel_start: kernel.start,
        kernel_end: kernel.end,
        ..Default::default()
    };
    kmd.vm_create(&mut vm).expect("VM_CREATE");
    Dev {
        kmd,
        params,
        vm: vm.vm_id,
        kernel,
    }
}

impl Dev {
    pub fn bo(&self, size: u64) -> u32 {
        let mut c = drm_asahi_gem_create {
            size,
            ..Default::default()
        };
        self.kmd.gem_create(&mut c).expect("GEM_CREATE");
        c.handle
    }

    pub fn bind(&self, ops: &[drm_asahi_gem_bind_op]) -> KmdResult {
        bind_on(&self.kmd, self.vm, ops)
    }

    pub fn mappings(&self) -> Vec<(u64, u64, u32, u64)> {
        self.kmd
            .vm_mappings(self.vm)
            .expect("VM exists")
            .into_iter()
            .map(|m| (m.va.start, m.va.end, m.handle, m.offset))
            .collect()
    }

    pub fn queue(&self) -> u32 {
        let mut q = drm_asahi_queue_create {
            vm_id: self.vm,
            usc_exec_base: USC_BASE,
            ..Default::default()
        };
        self.kmd.queue_create(&mut q).expect("QUEUE_CREATE");
        q.queue_id
    }

    pub fn syncobj(&self, flags: u32) -> u32 {
        let mut c = drm_syncobj_create {
            flags,
            ..Default::default()
        };
        self.kmd.syncobj_create(&mut c).expect("SYNCOBJ_CREATE");
        c.handle
    }

    /// SUBMIT with the given syncs (waits first) and raw command buffer.
    pub fn submit(
        &self,
        queue: u32,
        ins: &[drm_asahi_sync],
        outs: &[drm_asahi_sync],
        cmdbuf: &[u8],
    ) -> KmdResult {
        let syncs: Vec<drm_asahi_sync> = ins.iter().chain(outs).copied().collect();
        let args = drm_asahi_submit {
            syncs: syncs.as_ptr() as u64,
            cmdbuf: cmdbuf.as_ptr() as u64,
            queue_id: queue,
            in_sync_count: ins.len() as u32,
            out_sync_count: outs.len() as u32,
            cmdbuf_size: cmdbuf.len() as u32,
            ..Default::default()
        };
        // SAFETY: `syncs` and `cmdbuf` are live for the call with the stated counts.
        unsafe { self.kmd.submit(&args) }
    }

    pub fn submit_raw(&self, args: &drm_asahi_submit) -> KmdResult {
        // SAFETY: callers pass null/zero-length pointers or live buffers of the stated sizes.
        unsafe { self.kmd.submit(args) }
    }
}

pub fn bind_on(kmd: &dyn Kmd, vm: u32, ops: &[drm_asahi_gem_bind_op]) -> KmdResult {
    let args = drm_asahi_vm_bind {
        vm_id: vm,
        num_binds: ops.len() as u32,
        stride: size_of::<drm_asahi_gem_bind_op>() as u32,
        pad: 0,
        userptr: ops.as_ptr() as u64,
    };
    // SAFETY: `ops` is live and holds `num_binds` records of `stride` bytes.
    unsafe { kmd.vm_bind(&args) }
}

pub fn map(handle: u32, offset: u64, range: u64, addr: u64) -> drm_asahi_gem_bind_op {
    drm_asahi_gem_bind_op {
        flags: DRM_ASAHI_BIND_READ | DRM_ASAHI_BIND_WRITE,
        handle,
        offset,
        range,
        addr,
    }
}

pub fn unmap(range: u64, addr: u64) -> drm_asahi_gem_bind_op {
    drm_asahi_gem_bind_op {
        flags: DRM_ASAHI_BIND_UNBIND,
        handle: 0,
        offset: 0,
        range,
        addr,
    }
}

pub fn binary(handle: u32) -> drm_asahi_sync {
    drm_asahi_sync {
        sync_type: DRM_ASAHI_SYNC_SYNCOBJ,
        handle,
        timeline_value: 0,
    }
}

pub fn timeline(handle: u32, point: u64) -> drm_asahi_sync {
    drm_asahi_sync {
        sync_type: DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ,
        handle,
        timeline_value: point,
    }
}

pub fn header(cmd_type: u32, size: usize, vdm: u16, cdm: u16) -> Vec<u8> {
    let mut b = Vec::new();
    for v in [cmd_type as u16, size as u16, vdm, cdm] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

/// A compute command (header + full payload) with the given barriers.
pub fn compute(vdm: u16, cdm: u16) -> Vec<u8> {
    let mut b = header(
        DRM_ASAHI_CMD_COMPUTE,
        size_of::<drm_asahi_cmd_compute>(),
        vdm,
        cdm,
    );
    let mut payload = vec![0u8; size_of::<drm_asahi_cmd_compute>()];
    payload[8..16].copy_from_slice(&0x1_2340_0000u64.to_le_bytes()); // cdm_ctrl_stream_base
    b.extend_from_slice(&payload);
    b
}

/// Absolute CLOCK_MONOTONIC deadline `ms` from now, as the syncobj waits take it.
pub fn deadline_ms(kmd: &dyn Kmd, ms: u64) -> i64 {
    let mut ts = drm_asahi_get_time::default();
    kmd.get_time(&mut ts).expect("GET_TIME");
    (ts.gpu_timestamp + ms * 1_000_000) as i64
}

/// SYNCOBJ_WAIT on `handles`.
pub fn wait(kmd: &dyn Kmd, handles: &[u32], flags: u32, timeout_nsec: i64) -> KmdResult<u32> {
    let mut w = drm_syncobj_wait {
        handles: handles.as_ptr() as u64,
        timeout_nsec,
        count_handles: handles.len() as u32,
        flags,
        first_signaled: u32::MAX,
        ..Default::default()
    };
    // SAFETY: `handles` is live for the call.
    unsafe { kmd.syncobj_wait(&mut w) }.map(|_| w.first_signaled)
}

/// SYNCOBJ_TIMELINE_WAIT on (handle, point) pairs.
pub fn twait(kmd: &dyn Kmd, pairs: &[(u32, u64)], flags: u32, timeout_nsec: i64) -> KmdResult<u32> {
    let handles: Vec<u32> = pairs.iter().map(|p| p.0).collect();
    let points: Vec<u64> = pairs.iter().map(|p| p.1).collect();
    let mut w = drm_syncobj_timeline_wait {
        handles: handles.as_ptr() as u64,
        points: points.as_ptr() as u64,
        timeout_nsec,
        count_handles: handles.len() as u32,
        flags,
        first_signaled: u32::MAX,
        ..Default::default()
    };
    // SAFETY: `handles` and `points` are live for the call.
    unsafe { kmd.syncobj_timeline_wait(&mut w) }.map(|_| w.first_signaled)
}

pub fn tsignal(kmd: &dyn Kmd, handle: u32, point: u64) -> KmdResult {
    let args = drm_syncobj_timeline_array {
        handles: &handle as *const u32 as u64,
        points: &point as *const u64 as u64,
        count_handles: 1,
        flags: 0,
    };
    // SAFETY: one live handle and one live point.
    unsafe { kmd.syncobj_timeline_signal(&args) }
}

pub fn query(kmd: &dyn Kmd, handle: u32, flags: u32) -> KmdResult<u64> {
    let mut point = u64::MAX;
    let mut args = drm_syncobj_timeline_array {
        handles: &handle as *const u32 as u64,
        points: &mut point as *mut u64 as u64,
        count_handles: 1,
        flags,
    };
    // SAFETY: one live handle and one live, writable point.
    unsafe { kmd.syncobj_query(&mut args) }.map(|_| point)
}

pub fn signal(kmd: &dyn Kmd, handles: &[u32]) -> KmdResult {
    let args = drm_syncobj_array {
        handles: handles.as_ptr() as u64,
        count_handles: handles.len() as u32,
        pad: 0,
    };
    // SAFETY: `handles` is live for the call.
    unsafe { kmd.syncobj_signal(&args) }
}

pub fn reset(kmd: &dyn Kmd, handles: &[u32]) -> KmdResult {
    let args = drm_syncobj_array {
        handles: handles.as_ptr() as u64,
        count_handles: handles.len() as u32,
        pad: 0,
    };
    // SAFETY: `handles` is live for the call.
    unsafe { kmd.syncobj_reset(&args) }
}
