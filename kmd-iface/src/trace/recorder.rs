//! [`TraceKmd`]: a [`Kmd`] that forwards every call to another and records it.

use super::format::{write_magic, Record};
use super::timestamps::TimestampSlots;
use crate::select::Backend;
use crate::uapi::*;
use crate::{Kmd, KmdResult};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// Granularity at which changed memory is found and recorded.
const CHUNK: usize = 4096;

/// A GEM object as the recorder sees it: its own CPU mapping and the contents last recorded.
struct Object {
    size: usize,
    /// Address of the recorder's mapping (0 until first needed), kept as an integer so the
    /// recorder stays `Send`; only `contents` turns it back into a pointer.
    map: usize,
    shadow: Vec<u8>,
}

struct State {
    out: Option<BufWriter<File>>,
    objects: BTreeMap<u32, Object>,
    /// Signals of the last SUBMIT, waited for before the next snapshot.
    pending: Vec<(u32, u64)>,
    timestamps: TimestampSlots,
}

/// Records the calls made through it into a trace file (see the module documentation).
pub struct TraceKmd {
    inner: Arc<dyn Kmd>,
    state: Mutex<State>,
}

impl TraceKmd {
    pub fn create(inner: Arc<dyn Kmd>, path: &Path) -> std::io::Result<TraceKmd> {
        let mut out = BufWriter::new(File::create(path)?);
        write_magic(&mut out)?;
        Ok(TraceKmd {
            inner,
            state: Mutex::new(State {
                out: Some(out),
                objects: BTreeMap::new(),
                pending: Vec::new(),
                timestamps: TimestampSlots::default(),
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn emit(state: &mut State, rec: Record) {
        if let Some(out) = state.out.as_mut() {
            if let Err(e) = rec.write(out).and_then(|_| out.flush()) {
                eprintln!("agx4: trace: writing failed ({e}); tracing stops");
                state.out = None;
            }
        }
    }

    fn record(&self, rec: Record) {
        Self::emit(&mut self.state(), rec);
    }

    /// The current contents of an object, through the recorder's own mapping.
    fn contents(&self, handle: u32, obj: &mut Object) -> Option<Vec<u8>> {
        if obj.map == 0 {
            let mut off = drm_asahi_gem_mmap_offset {
                handle,
                ..Default::default()
            };
            self.inner.gem_mmap_offset(&mut off).ok()?;
            obj.map = self.inner.mmap(off.offset, obj.size).ok()? as usize;
        }
        // SAFETY: `map` is a live shared mapping of `size` bytes made above by `mmap`, unmapped
        // only in `gem_close` after its last use here; the GPU is idle (the recorder waits for
        // the last SUBMIT first), so nothing writes it while we copy.
        let bytes = unsafe { std::slice::from_raw_parts(obj.map as *const u8, obj.size) };
        Some(bytes.to_vec())
    }

    fn wait_pending(&self, state: &mut State) {
        if state.pending.is_empty() {
            return;
        }
        let handles: Vec<u32> = state.pending.iter().map(|p| p.0).collect();
        let points: Vec<u64> = state.pending.iter().map(|p| p.1).collect();
        let mut w = drm_syncobj_timeline_wait {
            handles: handles.as_ptr() as u64,
            points: points.as_ptr() as u64,
            timeout_nsec: i64::MAX,
            count_handles: handles.len() as u32,
            flags: DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
            ..Default::default()
        };
        // SAFETY: `handles` and `points` hold `count_handles` entries and outlive the call.
        if let Err(e) = unsafe { self.inner.syncobj_timeline_wait(&mut w) } {
            eprintln!("agx4: trace: waiting for the previous submission failed (errno {e})");
        }
        state.pending.clear();
    }

    /// Records every chunk of object `handle` that changed since its shadow was taken, and
    /// takes the shadow anew.
    fn snapshot_object(&self, state: &mut State, handle: u32) {
        let Some(mut obj) = state.objects.remove(&handle) else {
            return;
        };
        if let Some(now) = self.contents(handle, &mut obj) {
            for (i, (new, old)) in now.chunks(CHUNK).zip(obj.shadow.chunks(CHUNK)).enumerate() {
                if new != old {
                    let rec = Record::MemWrite {
                        handle,
                        offset: (i * CHUNK) as u64,
                        bytes: new.to_vec(),
                    };
                    Self::emit(state, rec);
                }
            }
            obj.shadow = now;
        }
        state.objects.insert(handle, obj);
    }

    /// Records the host's writes to every object since the last snapshot.
    fn snapshot(&self, state: &mut State) {
        let handles: Vec<u32> = state.objects.keys().copied().collect();
        for handle in handles {
            self.snapshot_object(state, handle);
        }
    }

    /// After a submission finished: the GPU's writes become the shadow without being recorded,
    /// because the replay must produce them itself.
    fn absorb_gpu_writes(&self, state: &mut State) {
        let handles: Vec<u32> = state.objects.keys().copied().collect();
        for handle in handles {
            let mut obj = state.objects.remove(&handle).expect("key just listed");
            if let Some(now) = self.contents(handle, &mut obj) {
                obj.shadow = now;
            }
            state.objects.insert(handle, obj);
        }
    }
}

impl Kmd for TraceKmd {
    fn backend(&self) -> Backend {
        self.inner.backend()
    }

    unsafe fn get_params(&self, args: &mut drm_asahi_get_params) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.get_params(args) }?;
        let at = std::mem::offset_of!(drm_asahi_params_global, chip_id);
        if args.size as usize >= at + 4 {
            // SAFETY: the kernel just wrote `size` bytes at `pointer`, which the caller's
            // contract makes valid; `chip_id` lies inside them.
            let chip_id =
                unsafe { std::ptr::read_unaligned((args.pointer as usize + at) as *const u32) };
            self.record(Record::Device { chip_id });
        }
        Ok(())
    }

    fn get_time(&self, args: &mut drm_asahi_get_time) -> KmdResult {
        self.inner.get_time(args)
    }

    fn vm_create(&self, args: &mut drm_asahi_vm_create) -> KmdResult {
        self.inner.vm_create(args)?;
        self.record(Record::VmCreate {
            kernel_start: args.kernel_start,
            kernel_end: args.kernel_end,
            vm_id: args.vm_id,
        });
        Ok(())
    }

    fn vm_destroy(&self, args: &drm_asahi_vm_destroy) -> KmdResult {
        self.inner.vm_destroy(args)?;
        self.record(Record::VmDestroy { vm_id: args.vm_id });
        Ok(())
    }

    unsafe fn vm_bind(&self, args: &drm_asahi_vm_bind) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.vm_bind(args) }?;
        let stride = args.stride as usize;
        let ops = (0..args.num_binds as usize)
            .map(|i| {
                // SAFETY: the call above succeeded, so `userptr` holds `num_binds` records of
                // `stride` >= size_of(op) bytes, as the caller's contract says.
                let op: drm_asahi_gem_bind_op = unsafe {
                    std::ptr::read_unaligned((args.userptr as usize + i * stride) as *const _)
                };
                [
                    u64::from(op.flags),
                    u64::from(op.handle),
                    op.offset,
                    op.range,
                    op.addr,
                ]
            })
            .collect();
        self.record(Record::VmBind {
            vm_id: args.vm_id,
            ops,
        });
        Ok(())
    }

    fn gem_create(&self, args: &mut drm_asahi_gem_create) -> KmdResult {
        self.inner.gem_create(args)?;
        let mut st = self.state();
        let size = args.size as usize;
        st.objects.insert(
            args.handle,
            Object {
                size,
                map: 0,
                shadow: vec![0; size],
            },
        );
        Self::emit(
            &mut st,
            Record::GemCreate {
                size: args.size,
                flags: args.flags,
                vm_id: args.vm_id,
                handle: args.handle,
            },
        );
        Ok(())
    }

    fn gem_close(&self, args: &drm_gem_close) -> KmdResult {
        let mut st = self.state();
        self.wait_pending(&mut st);
        // What the host wrote since the last submission is part of the final contents.
        self.snapshot_object(&mut st, args.handle);
        if let Some(mut obj) = st.objects.remove(&args.handle) {
            let final_hash = self
                .contents(args.handle, &mut obj)
                .map(|c| st.timestamps.hash(args.handle, &c));
            st.timestamps.close(args.handle);
            if obj.map != 0 {
                // SAFETY: this is the recorder's own mapping from `contents`, of `size` bytes,
                // and the object is leaving the table, so nothing uses it again.
                let _ = unsafe { self.inner.munmap(obj.map as *mut u8, obj.size) };
            }
            Self::emit(
                &mut st,
                Record::GemClose {
                    handle: args.handle,
                    final_hash: final_hash.unwrap_or(0),
                },
            );
        }
        drop(st);
        self.inner.gem_close(args)
    }

    fn gem_mmap_offset(&self, args: &mut drm_asahi_gem_mmap_offset) -> KmdResult {
        self.inner.gem_mmap_offset(args)
    }

    fn gem_bind_object(&self, args: &mut drm_asahi_gem_bind_object) -> KmdResult {
        self.inner.gem_bind_object(args)?;
        let mut st = self.state();
        st.timestamps
            .bind(args.op, args.handle, args.offset, args.object_handle);
        Self::emit(
            &mut st,
            Record::GemBindObject {
                op: args.op,
                flags: args.flags,
                handle: args.handle,
                offset: args.offset,
                range: args.range,
                object_handle: args.object_handle,
            },
        );
        Ok(())
    }

    fn queue_create(&self, args: &mut drm_asahi_queue_create) -> KmdResult {
        self.inner.queue_create(args)?;
        self.record(Record::QueueCreate {
            flags: args.flags,
            vm_id: args.vm_id,
            priority: args.priority,
            usc_exec_base: args.usc_exec_base,
            queue_id: args.queue_id,
        });
        Ok(())
    }

    fn queue_destroy(&self, args: &drm_asahi_queue_destroy) -> KmdResult {
        self.inner.queue_destroy(args)?;
        self.record(Record::QueueDestroy {
            queue_id: args.queue_id,
        });
        Ok(())
    }

    unsafe fn submit(&self, args: &drm_asahi_submit) -> KmdResult {
        let n = (args.in_sync_count + args.out_sync_count) as usize;
        let syncs: Vec<drm_asahi_sync> = (0..n)
            .map(|i| {
                // SAFETY: the caller's contract makes `syncs` hold in + out records.
                unsafe {
                    std::ptr::read_unaligned(
                        (args.syncs as usize + i * size_of::<drm_asahi_sync>())
                            as *const drm_asahi_sync,
                    )
                }
            })
            .collect();
        // SAFETY: the caller's contract makes `cmdbuf` valid for `cmdbuf_size` bytes.
        let cmdbuf = unsafe {
            std::slice::from_raw_parts(args.cmdbuf as usize as *const u8, args.cmdbuf_size as usize)
        }
        .to_vec();
        let mut st = self.state();
        self.wait_pending(&mut st);
        self.snapshot(&mut st);
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.submit(args) }?;
        st.timestamps.submit(&cmdbuf);
        Self::emit(
            &mut st,
            Record::Submit {
                queue_id: args.queue_id,
                flags: args.flags,
                in_count: args.in_sync_count,
                syncs: syncs
                    .iter()
                    .map(|s| {
                        [
                            u64::from(s.sync_type),
                            u64::from(s.handle),
                            s.timeline_value,
                        ]
                    })
                    .collect(),
                cmdbuf,
            },
        );
        st.pending = syncs[args.in_sync_count as usize..]
            .iter()
            .map(|s| (s.handle, s.timeline_value))
            .collect();
        // The submission runs to its end before the call returns, with the state locked, so
        // no later host write can be mistaken for the GPU's (see `syncobj_wait`).
        self.wait_pending(&mut st);
        self.absorb_gpu_writes(&mut st);
        Ok(())
    }

    fn mmap(&self, offset: u64, size: usize) -> KmdResult<*mut u8> {
        self.inner.mmap(offset, size)
    }

    unsafe fn munmap(&self, ptr: *mut u8, size: usize) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.munmap(ptr, size) }
    }

    fn syncobj_create(&self, args: &mut drm_syncobj_create) -> KmdResult {
        self.inner.syncobj_create(args)?;
        self.record(Record::SyncobjCreate {
            flags: args.flags,
            handle: args.handle,
        });
        Ok(())
    }

    fn syncobj_destroy(&self, args: &drm_syncobj_destroy) -> KmdResult {
        self.inner.syncobj_destroy(args)?;
        let mut st = self.state();
        st.pending.retain(|p| p.0 != args.handle);
        Self::emit(
            &mut st,
            Record::SyncobjDestroy {
                handle: args.handle,
            },
        );
        Ok(())
    }

    unsafe fn syncobj_wait(&self, args: &mut drm_syncobj_wait) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        let r = unsafe { self.inner.syncobj_wait(args) };
        // A wait that saw a submission end returns only once `submit` has taken the GPU's
        // writes in (it holds the state until then), so the caller's next writes are recorded.
        drop(self.state());
        r
    }

    unsafe fn syncobj_timeline_wait(&self, args: &mut drm_syncobj_timeline_wait) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        let r = unsafe { self.inner.syncobj_timeline_wait(args) };
        // As in `syncobj_wait`.
        drop(self.state());
        r
    }

    unsafe fn syncobj_reset(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.syncobj_reset(args) }?;
        // SAFETY: as above, `handles` holds `count_handles` entries.
        let handles = unsafe { read_u32s(args.handles, args.count_handles) };
        self.record(Record::SyncobjReset { handles });
        Ok(())
    }

    unsafe fn syncobj_signal(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.syncobj_signal(args) }?;
        // SAFETY: as above, `handles` holds `count_handles` entries.
        let handles = unsafe { read_u32s(args.handles, args.count_handles) };
        self.record(Record::SyncobjSignal { handles });
        Ok(())
    }

    unsafe fn syncobj_timeline_signal(&self, args: &drm_syncobj_timeline_array) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.syncobj_timeline_signal(args) }?;
        // SAFETY: as above, both arrays hold `count_handles` entries.
        let (handles, points) = unsafe {
            (
                read_u32s(args.handles, args.count_handles),
                read_u64s(args.points, args.count_handles),
            )
        };
        self.record(Record::SyncobjTimelineSignal { handles, points });
        Ok(())
    }

    unsafe fn syncobj_query(&self, args: &mut drm_syncobj_timeline_array) -> KmdResult {
        // SAFETY: forwarded under the caller's contract.
        unsafe { self.inner.syncobj_query(args) }
    }

    fn syncobj_transfer(&self, args: &drm_syncobj_transfer) -> KmdResult {
        self.inner.syncobj_transfer(args)?;
        self.record(Record::SyncobjTransfer {
            src: args.src_handle,
            dst: args.dst_handle,
            src_point: args.src_point,
            dst_point: args.dst_point,
            flags: args.flags,
        });
        Ok(())
    }

    // Shared objects are refused while tracing: a replay has no other device or process to
    // take an fd from, so it could not reproduce what an import would see.
    fn prime_handle_to_fd(&self, _args: &mut drm_prime_handle) -> KmdResult {
        Err(libc::EOPNOTSUPP)
    }

    fn prime_fd_to_handle(&self, _args: &mut drm_prime_handle) -> KmdResult {
        Err(libc::EOPNOTSUPP)
    }

    fn syncobj_handle_to_fd(&self, _args: &mut drm_syncobj_handle) -> KmdResult {
        Err(libc::EOPNOTSUPP)
    }

    fn syncobj_fd_to_handle(&self, _args: &mut drm_syncobj_handle) -> KmdResult {
        Err(libc::EOPNOTSUPP)
    }
}

/// # Safety
/// `ptr` must point to `n` readable u32 values.
unsafe fn read_u32s(ptr: u64, n: u32) -> Vec<u32> {
    // SAFETY: the caller's contract.
    (0..n as usize)
        .map(|i| unsafe { std::ptr::read_unaligned((ptr as usize + i * 4) as *const u32) })
        .collect()
}

/// # Safety
/// `ptr` must point to `n` readable u64 values.
unsafe fn read_u64s(ptr: u64, n: u32) -> Vec<u64> {
    // SAFETY: the caller's contract.
    (0..n as usize)
        .map(|i| unsafe { std::ptr::read_unaligned((ptr as usize + i * 8) as *const u64) })
        .collect()
}
