//! [`SimKmd`]: the simulated Asahi kernel and GPU firmware, in process.
//!
//! It implements the same ioctls with the same validation and errno values as the kernel, keeps
//! GEM objects in host memory, enforces the kernel carve-out and 4 GiB USC window, models DRM
//! syncobjs, and runs each queue's jobs on a firmware thread that drives the GPU model in `sim-gpu`.

mod clock;
mod cmdbuf;
mod fence;
mod firmware;
mod gem;
mod hostmem;
mod params;
mod queue;
mod share;
mod submit;
mod syncobj;
mod table;
mod timestamps;
mod tvb;
mod user;
mod vm;
mod wait;

pub use vm::MappingInfo;

use crate::select::{Backend, SelectError};
use crate::uapi::*;
use crate::{Kmd, KmdResult};
use fence::SyncHub;
use gem::GemTable;
use hw::uat::USC_WINDOW_SIZE;
use hw::Identity;
use queue::Queue;
use sim_gpu::{Fault, GpuMemory};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use table::lock;
use timestamps::Objects;
use vm::{BindOp, Vm};
use wait::WaitRequest;

/// Environment variable naming the GPU the simulator impersonates (`g13g`, `g14c`, `t8103`...).
pub const SIM_GPU_ENV: &str = "AGX4_SIM_GPU";
/// The GPU simulated when [`SIM_GPU_ENV`] is unset: M1, the reference generation.
pub const DEFAULT_SIM_GPU: &str = "g13g";

/// The simulated device. One instance is one open DRM file: its handles and ids are private.
pub struct SimKmd {
    gpu: &'static Identity,
    params: drm_asahi_params_global,
    gem: Mutex<GemTable>,
    vms: Mutex<BTreeMap<u32, Arc<Vm>>>,
    queues: Mutex<BTreeMap<u32, Arc<Queue>>>,
    objects: Mutex<Objects>,
    hub: Arc<SyncHub>,
}

impl SimKmd {
    pub fn new(gpu: &'static Identity) -> SimKmd {
        SimKmd {
            gpu,
            params: params::global(gpu),
            gem: Mutex::default(),
            vms: Mutex::default(),
            queues: Mutex::default(),
            objects: Mutex::default(),
            hub: Arc::default(),
        }
    }

    /// The GPU named by `AGX4_SIM_GPU`, or the default.
    pub fn from_env() -> Result<SimKmd, SelectError> {
        let name = std::env::var(SIM_GPU_ENV).unwrap_or_default();
        let name = if name.trim().is_empty() {
            DEFAULT_SIM_GPU
        } else {
            name.trim()
        };
        let gpu = Identity::by_name(name).ok_or_else(|| {
            let known: Vec<String> = Identity::all()
                .iter()
                .map(|i| i.code().to_ascii_lowercase())
                .collect();
            SelectError::new(format!(
                "{SIM_GPU_ENV}={name:?} names no known GPU; accepted: {}",
                known.join(", ")
            ))
        })?;
        Ok(SimKmd::new(gpu))
    }

    pub fn identity(&self) -> &'static Identity {
        self.gpu
    }

    /// The mappings of a VM, for tests and debugging; `None` if the VM does not exist.
    pub fn vm_mappings(&self, vm_id: u32) -> Option<Vec<MappingInfo>> {
        lock(&self.vms).get(&vm_id).map(|vm| vm.mappings())
    }

    /// Read GPU memory as the GPU would, through the VM's mappings and permissions.
    pub fn read_gpu(&self, vm_id: u32, va: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let vm = lock(&self.vms).get(&vm_id).cloned();
        let vm = vm.ok_or(Fault::Unmapped {
            va,
            access: sim_gpu::Access::Read,
        })?;
        let view = vm.view();
        view.read(va, buf)
    }

    /// The fault that stopped a queue, if one did.
    pub fn queue_fault(&self, queue_id: u32) -> Option<Fault> {
        lock(&self.queues).get(&queue_id).and_then(|q| q.fault())
    }

    fn vm(&self, id: u32) -> KmdResult<Arc<Vm>> {
        lock(&self.vms).get(&id).cloned().ok_or(libc::ENOENT)
    }
}

impl Kmd for SimKmd {
    fn backend(&self) -> Backend {
        Backend::Sim
    }

    unsafe fn get_params(&self, args: &mut drm_asahi_get_params) -> KmdResult {
        if args.param_group != 0 || args.pad != 0 {
            return Err(libc::EINVAL);
        }
        let bytes = user::as_bytes(&self.params);
        let n = usize::try_from(args.size)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        // SAFETY: the caller's contract makes `pointer` writable for `size` >= `n` bytes.
        unsafe { user::write_bytes(args.pointer, &bytes[..n]) }
    }

    fn get_time(&self, args: &mut drm_asahi_get_time) -> KmdResult {
        if args.flags != 0 {
            return Err(libc::EINVAL);
        }
        args.gpu_timestamp = clock::monotonic_ns();
        Ok(())
    }

    fn vm_create(&self, args: &mut drm_asahi_vm_create) -> KmdResult {
        let mut vms = lock(&self.vms);
        let id = table::lowest_free(&vms)?;
        let vm = Vm::new(id, args)?;
        vms.insert(id, Arc::new(vm));
        args.vm_id = id;
        Ok(())
    }

    fn vm_destroy(&self, args: &drm_asahi_vm_destroy) -> KmdResult {
        if args.pad != 0 {
            return Err(libc::EINVAL);
        }
        let vm = lock(&self.vms).remove(&args.vm_id).ok_or(libc::ENOENT)?;
        vm.clear();
        Ok(())
    }

    unsafe fn vm_bind(&self, args: &drm_asahi_vm_bind) -> KmdResult {
        if args.pad != 0 || (args.stride as usize) < size_of::<drm_asahi_gem_bind_op>() {
            return Err(libc::EINVAL);
        }
        let vm = self.vm(args.vm_id)?;
        let len = (args.num_binds as usize)
            .checked_mul(args.stride as usize)
            .ok_or(libc::EINVAL)?;
        // SAFETY: the caller's contract covers `num_binds` records of `stride` bytes.
        let bytes = unsafe { user::read_bytes(args.userptr, len) }?;
        let ops = {
            let gem = lock(&self.gem);
            bytes
                .chunks_exact(args.stride as usize)
                .map(|rec| vm.validate(&user::read_extensible(rec)?, |h| gem.lookup(h)))
                .collect::<KmdResult<Vec<BindOp>>>()?
        };
        vm.apply(ops);
        Ok(())
    }

    fn gem_create(&self, args: &mut drm_asahi_gem_create) -> KmdResult {
        let known = DRM_ASAHI_GEM_WRITEBACK | DRM_ASAHI_GEM_VM_PRIVATE;
        let private = args.flags & DRM_ASAHI_GEM_VM_PRIVATE != 0;
        if args.flags & !known != 0 || (!private && args.vm_id != 0) || args.pad != 0 {
            return Err(libc::EINVAL);
        }
        if private {
            self.vm(args.vm_id)?;
        }
        lock(&self.gem).create(args)
    }

    fn gem_close(&self, args: &drm_gem_close) -> KmdResult {
        let obj = lock(&self.gem).close(args.handle)?;
        let vms: Vec<Arc<Vm>> = lock(&self.vms).values().cloned().collect();
        for vm in vms {
            vm.remove_object(&obj);
        }
        Ok(())
    }

    fn gem_mmap_offset(&self, args: &mut drm_asahi_gem_mmap_offset) -> KmdResult {
        lock(&self.gem).mmap_offset(args)
    }

    fn gem_bind_object(&self, args: &mut drm_asahi_gem_bind_object) -> KmdResult {
        let gem = lock(&self.gem);
        timestamps::bind_object(&mut lock(&self.objects), &gem, args)
    }

    fn queue_create(&self, args: &mut drm_asahi_queue_create) -> KmdResult {
        if args.flags != 0 || args.priority > DRM_ASAHI_PRIORITY_MEDIUM {
            return Err(libc::EINVAL);
        }
        let vm = self.vm(args.vm_id)?;
        let window_end = args
            .usc_exec_base
            .checked_add(USC_WINDOW_SIZE)
            .ok_or(libc::EINVAL)?;
        if args.usc_exec_base < params::VM_START || window_end > params::VM_END {
            return Err(libc::EINVAL);
        }
        let mut queues = lock(&self.queues);
        let id = table::lowest_free(&queues)?;
        let q = Queue::new(id, vm, args.usc_exec_base, self.gpu, self.hub.clone())?;
        queues.insert(id, Arc::new(q));
        args.queue_id = id;
        Ok(())
    }

    fn queue_destroy(&self, args: &drm_asahi_queue_destroy) -> KmdResult {
        if args.pad != 0 {
            return Err(libc::EINVAL);
        }
        lock(&self.queues)
            .remove(&args.queue_id)
            .map(|_| ())
            .ok_or(libc::ENOENT)
    }

    unsafe fn submit(&self, args: &drm_asahi_submit) -> KmdResult {
        // SAFETY: forwarded from this method's own contract.
        unsafe { submit::submit(self, args) }
    }

    fn mmap(&self, offset: u64, size: usize) -> KmdResult<*mut u8> {
        lock(&self.gem).mmap(offset, size)
    }

    unsafe fn munmap(&self, ptr: *mut u8, size: usize) -> KmdResult {
        lock(&self.gem).munmap(ptr, size)
    }

    fn syncobj_create(&self, args: &mut drm_syncobj_create) -> KmdResult {
        self.hub.create(args)
    }

    fn syncobj_destroy(&self, args: &drm_syncobj_destroy) -> KmdResult {
        self.hub.destroy(args)
    }

    unsafe fn syncobj_wait(&self, args: &mut drm_syncobj_wait) -> KmdResult {
        // SAFETY: the caller's contract covers `count_handles` handles.
        let handles: Vec<u32> =
            unsafe { user::read_slice(args.handles, args.count_handles as usize) }?;
        let points = vec![0u64; handles.len()];
        let req = WaitRequest {
            handles: &handles,
            points: &points,
            flags: args.flags,
            timeout_nsec: args.timeout_nsec,
            timeline: false,
        };
        if let Some(first) = self.hub.wait(&req)? {
            args.first_signaled = first;
        }
        Ok(())
    }

    unsafe fn syncobj_timeline_wait(&self, args: &mut drm_syncobj_timeline_wait) -> KmdResult {
        let n = args.count_handles as usize;
        // SAFETY: the caller's contract covers `count_handles` handles and points.
        let (handles, points): (Vec<u32>, Vec<u64>) = unsafe {
            (
                user::read_slice(args.handles, n)?,
                user::read_slice(args.points, n)?,
            )
        };
        let req = WaitRequest {
            handles: &handles,
            points: &points,
            flags: args.flags,
            timeout_nsec: args.timeout_nsec,
            timeline: true,
        };
        if let Some(first) = self.hub.wait(&req)? {
            args.first_signaled = first;
        }
        Ok(())
    }

    unsafe fn syncobj_reset(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: the caller's contract covers `count_handles` handles.
        let handles = unsafe { array_handles(args) }?;
        self.hub.reset_or_signal(&handles, false)
    }

    unsafe fn syncobj_signal(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: the caller's contract covers `count_handles` handles.
        let handles = unsafe { array_handles(args) }?;
        self.hub.reset_or_signal(&handles, true)
    }

    unsafe fn syncobj_timeline_signal(&self, args: &drm_syncobj_timeline_array) -> KmdResult {
        if args.flags != 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: the caller's contract covers `count_handles` handles and points.
        let (handles, points) = unsafe { timeline_arrays(args) }?;
        self.hub.timeline_signal(&handles, &points)
    }

    unsafe fn syncobj_query(&self, args: &mut drm_syncobj_timeline_array) -> KmdResult {
        if args.flags & !DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED != 0 {
            return Err(libc::EINVAL);
        }
        if args.count_handles == 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: the caller's contract covers `count_handles` handles.
        let handles: Vec<u32> =
            unsafe { user::read_slice(args.handles, args.count_handles as usize) }?;
        let last = args.flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED != 0;
        let values = self.hub.query(&handles, last)?;
        // SAFETY: the caller's contract makes `points` writable for `count_handles` values.
        unsafe { user::write_slice(args.points, &values) }
    }

    fn syncobj_transfer(&self, args: &drm_syncobj_transfer) -> KmdResult {
        self.hub.transfer(args)
    }

    fn prime_handle_to_fd(&self, args: &mut drm_prime_handle) -> KmdResult {
        lock(&self.gem).export(args)
    }

    fn prime_fd_to_handle(&self, args: &mut drm_prime_handle) -> KmdResult {
        lock(&self.gem).import(args)
    }

    fn syncobj_handle_to_fd(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        self.hub.handle_to_fd(args)
    }

    fn syncobj_fd_to_handle(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        self.hub.fd_to_handle(args)
    }
}

/// RESET / SIGNAL handle arrays: pad must be zero and the array nonempty.
///
/// # Safety
/// `args.handles` must hold `count_handles` u32 values.
unsafe fn array_handles(args: &drm_syncobj_array) -> KmdResult<Vec<u32>> {
    if args.pad != 0 || args.count_handles == 0 {
        return Err(libc::EINVAL);
    }
    // SAFETY: forwarded from the caller.
    unsafe { user::read_slice(args.handles, args.count_handles as usize) }
}

/// TIMELINE_SIGNAL / QUERY arrays; the array must be nonempty.
///
/// # Safety
/// `args.handles` / `args.points` must hold `count_handles` u32 / u64 values.
unsafe fn timeline_arrays(args: &drm_syncobj_timeline_array) -> KmdResult<(Vec<u32>, Vec<u64>)> {
    if args.count_handles == 0 {
        return Err(libc::EINVAL);
    }
    let n = args.count_handles as usize;
    // SAFETY: forwarded from the caller.
    unsafe {
        Ok((
            user::read_slice(args.handles, n)?,
            user::read_slice(args.points, n)?,
        ))
    }
}
