//! Replaying a trace into a fresh simulated device.

use super::format::{read_magic, Record, TraceError};
use super::timestamps::TimestampSlots;
use crate::sim::SimKmd;
use crate::uapi::*;
use crate::Kmd;
use hw::Identity;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

/// What a replay found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    pub records: u64,
    pub submits: u64,
    /// Objects whose final contents were compared with the recording.
    pub objects_compared: u64,
    /// Handles whose final contents differ from the live run.
    pub mismatches: Vec<u32>,
    /// Final contents of every object, by handle, in the order they were closed (an object
    /// handle can be reused after a close, so this is a list, not a map).
    pub final_contents: Vec<(u32, Vec<u8>)>,
}

fn call(name: &'static str, r: Result<(), i32>) -> Result<(), TraceError> {
    r.map_err(|errno| TraceError::Call { call: name, errno })
}

fn same(what: &str, live: u32, now: u32) -> Result<(), TraceError> {
    if live != now {
        return Err(TraceError::Diverged(format!(
            "{what}: live run got {live}, replay got {now}"
        )));
    }
    Ok(())
}

struct Replayer {
    kmd: SimKmd,
    sizes: BTreeMap<u32, usize>,
    report: ReplayReport,
    timestamps: TimestampSlots,
    out_dir: Option<std::path::PathBuf>,
}

impl Replayer {
    /// Runs `f` on a CPU mapping of object `handle`.
    fn with_map<T>(&self, handle: u32, f: impl FnOnce(&mut [u8]) -> T) -> Result<T, TraceError> {
        let size = *self
            .sizes
            .get(&handle)
            .ok_or_else(|| TraceError::Corrupt(format!("object {handle} used before creation")))?;
        let mut off = drm_asahi_gem_mmap_offset {
            handle,
            ..Default::default()
        };
        call("GEM_MMAP_OFFSET", self.kmd.gem_mmap_offset(&mut off))?;
        let ptr = self
            .kmd
            .mmap(off.offset, size)
            .map_err(|errno| TraceError::Call {
                call: "mmap",
                errno,
            })?;
        // SAFETY: `ptr` is a fresh mapping of the whole `size`-byte object; the replayer waits
        // for each SUBMIT to finish, so the simulated GPU does not touch it meanwhile.
        let r = f(unsafe { std::slice::from_raw_parts_mut(ptr, size) });
        // SAFETY: the mapping made above, no longer used.
        call("munmap", unsafe { self.kmd.munmap(ptr, size) })?;
        Ok(r)
    }

    fn apply(&mut self, rec: Record) -> Result<(), TraceError> {
        let k = &self.kmd;
        match rec {
            Record::Device { .. } => {}
            Record::VmCreate {
                kernel_start,
                kernel_end,
                vm_id,
            } => {
                let mut a = drm_asahi_vm_create {
                    kernel_start,
                    kernel_end,
                    ..Default::default()
                };
                call("VM_CREATE", k.vm_create(&mut a))?;
                same("vm id", vm_id, a.vm_id)?;
            }
            Record::VmDestroy { vm_id } => {
                call(
                    "VM_DESTROY",
                    k.vm_destroy(&drm_asahi_vm_destroy { vm_id, pad: 0 }),
                )?;
            }
            Record::VmBind { vm_id, ops } => {
                let ops: Vec<drm_asahi_gem_bind_op> = ops
                    .iter()
                    .map(|o| drm_asahi_gem_bind_op {
                        flags: o[0] as u32,
                        handle: o[1] as u32,
                        offset: o[2],
                        range: o[3],
                        addr: o[4],
                    })
                    .collect();
                let a = drm_asahi_vm_bind {
                    vm_id,
                    num_binds: ops.len() as u32,
                    stride: size_of::<drm_asahi_gem_bind_op>() as u32,
                    pad: 0,
                    userptr: ops.as_ptr() as u64,
                };
                // SAFETY: `userptr` points at `num_binds` ops of `stride` bytes, alive here.
                call("VM_BIND", unsafe { k.vm_bind(&a) })?;
            }
            Record::GemCreate {
                size,
                flags,
                vm_id,
                handle,
            } => {
                let mut a = drm_asahi_gem_create {
                    size,
                    flags,
                    vm_id,
                    ..Default::default()
                };
                call("GEM_CREATE", k.gem_create(&mut a))?;
                same("GEM handle", handle, a.handle)?;
                self.sizes.insert(handle, size as usize);
            }
            Record::GemClose { handle, final_hash } => {
                let contents = self.with_map(handle, |m| m.to_vec())?;
                self.report.objects_compared += 1;
                if self.timestamps.hash(handle, &contents) != final_hash {
                    self.report.mismatches.push(handle);
                }
                if let Some(dir) = &self.out_dir {
                    let n = self.report.final_contents.len();
                    let mut f = File::create(dir.join(format!("{n:04}-object-{handle}.bin")))?;
                    f.write_all(&contents)?;
                }
                self.report.final_contents.push((handle, contents));
                self.timestamps.close(handle);
                call(
                    "GEM_CLOSE",
                    self.kmd.gem_close(&drm_gem_close { handle, pad: 0 }),
                )?;
                self.sizes.remove(&handle);
            }
            Record::GemBindObject {
                op,
                flags,
                handle,
                offset,
                range,
                object_handle,
            } => {
                let mut a = drm_asahi_gem_bind_object {
                    op,
                    flags,
                    handle,
                    offset,
                    range,
                    object_handle: if op == DRM_ASAHI_BIND_OBJECT_OP_UNBIND {
                        object_handle
                    } else {
                        0
                    },
                    ..Default::default()
                };
                call("GEM_BIND_OBJECT", k.gem_bind_object(&mut a))?;
                same("bound object handle", object_handle, a.object_handle)?;
                self.timestamps.bind(op, handle, offset, object_handle);
            }
            Record::QueueCreate {
                flags,
                vm_id,
                priority,
                usc_exec_base,
                queue_id,
            } => {
                let mut a = drm_asahi_queue_create {
                    flags,
                    vm_id,
                    priority,
                    usc_exec_base,
                    ..Default::default()
                };
                call("QUEUE_CREATE", k.queue_create(&mut a))?;
                same("queue id", queue_id, a.queue_id)?;
            }
            Record::QueueDestroy { queue_id } => {
                call(
                    "QUEUE_DESTROY",
                    k.queue_destroy(&drm_asahi_queue_destroy { queue_id, pad: 0 }),
                )?;
            }
            Record::MemWrite {
                handle,
                offset,
                bytes,
            } => {
                let ok = self.with_map(handle, |m| {
                    let start = usize::try_from(offset).ok()?;
                    let dst = m.get_mut(start..start.checked_add(bytes.len())?)?;
                    dst.copy_from_slice(&bytes);
                    Some(())
                })?;
                ok.ok_or_else(|| TraceError::Corrupt(format!("write outside object {handle}")))?;
            }
            Record::Submit {
                queue_id,
                flags,
                in_count,
                syncs,
                cmdbuf,
            } => {
                let s: Vec<drm_asahi_sync> = syncs
                    .iter()
                    .map(|v| drm_asahi_sync {
                        sync_type: v[0] as u32,
                        handle: v[1] as u32,
                        timeline_value: v[2],
                    })
                    .collect();
                let out = s
                    .len()
                    .checked_sub(in_count as usize)
                    .ok_or_else(|| TraceError::Corrupt("sync counts".into()))?;
                let a = drm_asahi_submit {
                    syncs: s.as_ptr() as u64,
                    cmdbuf: cmdbuf.as_ptr() as u64,
                    flags,
                    queue_id,
                    in_sync_count: in_count,
                    out_sync_count: out as u32,
                    cmdbuf_size: cmdbuf.len() as u32,
                    pad: 0,
                };
                // SAFETY: `syncs` and `cmdbuf` are alive and hold the counts stated.
                call("SUBMIT", unsafe { k.submit(&a) })?;
                self.timestamps.submit(&cmdbuf);
                self.report.submits += 1;
                let handles: Vec<u32> = s[in_count as usize..].iter().map(|x| x.handle).collect();
                let points: Vec<u64> = s[in_count as usize..]
                    .iter()
                    .map(|x| x.timeline_value)
                    .collect();
                if !handles.is_empty() {
                    let mut w = drm_syncobj_timeline_wait {
                        handles: handles.as_ptr() as u64,
                        points: points.as_ptr() as u64,
                        timeout_nsec: i64::MAX,
                        count_handles: handles.len() as u32,
                        flags: DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
                            | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
                        ..Default::default()
                    };
                    // SAFETY: both arrays hold `count_handles` entries and outlive the call.
                    call("SYNCOBJ_TIMELINE_WAIT", unsafe {
                        k.syncobj_timeline_wait(&mut w)
                    })?;
                }
            }
            Record::SyncobjCreate { flags, handle } => {
                let mut a = drm_syncobj_create { handle: 0, flags };
                call("SYNCOBJ_CREATE", k.syncobj_create(&mut a))?;
                same("syncobj handle", handle, a.handle)?;
            }
            Record::SyncobjDestroy { handle } => {
                call(
                    "SYNCOBJ_DESTROY",
                    k.syncobj_destroy(&drm_syncobj_destroy { handle, pad: 0 }),
                )?;
            }
            Record::SyncobjReset { handles } => {
                let a = drm_syncobj_array {
                    handles: handles.as_ptr() as u64,
                    count_handles: handles.len() as u32,
                    pad: 0,
                };
                // SAFETY: `handles` holds `count_handles` entries.
                call("SYNCOBJ_RESET", unsafe { k.syncobj_reset(&a) })?;
            }
            Record::SyncobjSignal { handles } => {
                let a = drm_syncobj_array {
                    handles: handles.as_ptr() as u64,
                    count_handles: handles.len() as u32,
                    pad: 0,
                };
                // SAFETY: `handles` holds `count_handles` entries.
                call("SYNCOBJ_SIGNAL", unsafe { k.syncobj_signal(&a) })?;
            }
            Record::SyncobjTimelineSignal { handles, points } => {
                if handles.len() != points.len() {
                    return Err(TraceError::Corrupt("timeline signal counts".into()));
                }
                let a = drm_syncobj_timeline_array {
                    handles: handles.as_ptr() as u64,
                    points: points.as_ptr() as u64,
                    count_handles: handles.len() as u32,
                    flags: 0,
                };
                // SAFETY: both arrays hold `count_handles` entries.
                call("SYNCOBJ_TIMELINE_SIGNAL", unsafe {
                    k.syncobj_timeline_signal(&a)
                })?;
            }
            Record::SyncobjTransfer {
                src,
                dst,
                src_point,
                dst_point,
                flags,
            } => {
                let a = drm_syncobj_transfer {
                    src_handle: src,
                    dst_handle: dst,
                    src_point,
                    dst_point,
                    flags,
                    pad: 0,
                };
                call("SYNCOBJ_TRANSFER", k.syncobj_transfer(&a))?;
            }
        }
        Ok(())
    }
}

/// Replays the trace at `path` into a new simulated device of the GPU it was recorded on.
/// With `out_dir`, the final contents of every object are written there as files.
pub fn replay(path: &Path, out_dir: Option<&Path>) -> Result<ReplayReport, TraceError> {
    let mut r = BufReader::new(File::open(path)?);
    read_magic(&mut r)?;
    let first = Record::read(&mut r)?;
    let gpu = match &first {
        Some(Record::Device { chip_id }) => Identity::by_chip_id(*chip_id)
            .ok_or_else(|| TraceError::Corrupt(format!("unknown chip id {chip_id:#x}")))?,
        _ => {
            return Err(TraceError::Corrupt(
                "a trace starts with its device record".into(),
            ))
        }
    };
    if let Some(dir) = out_dir {
        std::fs::create_dir_all(dir)?;
    }
    let mut rp = Replayer {
        kmd: SimKmd::new(gpu),
        sizes: BTreeMap::new(),
        report: ReplayReport {
            records: 1,
            ..Default::default()
        },
        timestamps: TimestampSlots::default(),
        out_dir: out_dir.map(Path::to_path_buf),
    };
    while let Some(rec) = Record::read(&mut r)? {
        rp.report.records += 1;
        rp.apply(rec)?;
    }
    Ok(rp.report)
}
