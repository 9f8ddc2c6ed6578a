//! SUBMIT: validate everything, then install the job's fence and hand it to the firmware.
//!
//! Nothing changes until every check has passed, so a rejected SUBMIT leaves syncobjs,
//! queues and memory exactly as they were.

use super::cmdbuf::{self, HwCmd};
use super::fence::Fence;
use super::firmware::{FwCmd, Stamp, Stamps};
use super::queue::{enqueue, Job};
use super::syncobj::SyncTable;
use super::table::lock;
use super::timestamps::Objects;
use super::{user, SimKmd};
use crate::uapi::*;
use crate::KmdResult;
use std::sync::Arc;

/// An out-sync, checked and waiting for the job's fence.
enum OutSync {
    Binary(u32),
    Timeline(u32, u64),
}

/// # Safety
/// The [`Kmd::submit`](crate::Kmd::submit) contract: `args.syncs` holds
/// `in_sync_count + out_sync_count` records and `args.cmdbuf` `cmdbuf_size` bytes.
pub(crate) unsafe fn submit(kmd: &SimKmd, args: &drm_asahi_submit) -> KmdResult {
    if args.flags != 0 || args.pad != 0 {
        return Err(libc::EINVAL);
    }
    let queue = lock(&kmd.queues)
        .get(&args.queue_id)
        .cloned()
        .ok_or(libc::ENOENT)?;
    if queue.faulted() {
        return Err(libc::ECANCELED);
    }
    let count = args
        .in_sync_count
        .checked_add(args.out_sync_count)
        .ok_or(libc::EINVAL)?;
    // SAFETY: the caller's contract covers `count` sync records at `args.syncs`.
    let syncs: Vec<drm_asahi_sync> = unsafe { user::read_slice(args.syncs, count as usize) }?;
    // SAFETY: the caller's contract covers `cmdbuf_size` bytes at `args.cmdbuf`.
    let bytes = unsafe { user::read_bytes(args.cmdbuf, args.cmdbuf_size as usize) }?;

    // The kernel reports sync errors before command buffer errors; keep that order.
    let cmds = cmdbuf::parse(&bytes).and_then(|c| resolve_stamps(c, &lock(&kmd.objects)));

    let sender = queue.submission();
    let mut table = kmd.hub.lock();
    let (inputs, outputs) = syncs.split_at(args.in_sync_count as usize);
    let wait = in_fences(&table, inputs)?;
    let outs = out_syncs(&table, outputs)?;
    let cmds = cmds?;

    let done = Fence::pending();
    for o in outs {
        match o {
            OutSync::Binary(h) => table.get_mut(h).map(|mut s| s.replace(Some(done.clone()))),
            OutSync::Timeline(h, p) => table.get_mut(h).map(|mut s| s.add_point(done.clone(), p)),
        };
    }
    kmd.hub.notify_locked();
    drop(table);
    enqueue(&sender, &kmd.hub, Job { wait, cmds, done });
    Ok(())
}

/// Check a sync record's type and handle, as the kernel parses each record.
fn check_sync(table: &SyncTable, s: &drm_asahi_sync) -> KmdResult {
    match s.sync_type {
        DRM_ASAHI_SYNC_SYNCOBJ if s.timeline_value != 0 => Err(libc::EINVAL),
        DRM_ASAHI_SYNC_SYNCOBJ | DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ => {
            table.get(s.handle).map(|_| ()).ok_or(libc::ENOENT)
        }
        _ => Err(libc::EINVAL),
    }
}

/// The fences to wait for, taken now: signals installed later do not affect this job.
fn in_fences(table: &SyncTable, syncs: &[drm_asahi_sync]) -> KmdResult<Arc<Fence>> {
    let mut fences = Vec::with_capacity(syncs.len());
    for s in syncs {
        check_sync(table, s)?;
        let obj = table.get(s.handle).ok_or(libc::ENOENT)?;
        fences.push(obj.find(s.timeline_value)?);
    }
    Ok(Fence::all(&fences))
}

fn out_syncs(table: &SyncTable, syncs: &[drm_asahi_sync]) -> KmdResult<Vec<OutSync>> {
    syncs
        .iter()
        .map(|s| {
            check_sync(table, s)?;
            Ok(match s.sync_type {
                DRM_ASAHI_SYNC_SYNCOBJ => OutSync::Binary(s.handle),
                _ => OutSync::Timeline(s.handle, s.timeline_value),
            })
        })
        .collect()
}

fn resolve_stamps(cmds: Vec<HwCmd>, objects: &Objects) -> KmdResult<Vec<FwCmd>> {
    cmds.into_iter()
        .map(|cmd| {
            let stamps = match &cmd {
                HwCmd::Compute(c) => [stamps(&c.ts, objects)?, Stamps::default()],
                HwCmd::Render(r) => [stamps(&r.ts_vtx, objects)?, stamps(&r.ts_frag, objects)?],
            };
            Ok(FwCmd { cmd, stamps })
        })
        .collect()
}

fn stamps(ts: &drm_asahi_timestamps, objects: &Objects) -> KmdResult<Stamps> {
    Ok(Stamps {
        start: stamp(&ts.start, objects)?,
        end: stamp(&ts.end, objects)?,
    })
}

/// Handle 0 means "no timestamp"; any other must name a bound timestamp buffer with room.
fn stamp(ts: &drm_asahi_timestamp, objects: &Objects) -> KmdResult<Option<Stamp>> {
    if ts.handle == 0 {
        return Ok(None);
    }
    let buf = objects.get(&ts.handle).cloned().ok_or(libc::ENOENT)?;
    if !buf.fits(ts.offset) {
        return Err(libc::EINVAL);
    }
    Ok(Some(Stamp {
        buf,
        offset: ts.offset,
    }))
}
