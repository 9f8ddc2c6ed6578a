//! DRM syncobjs: binary ones hold at most one fence, timeline ones a chain of (point, fence).
//!
//! Point N of a timeline counts as signaled once the fences of every point up to N are, as
//! with a `dma_fence_chain`. Signaled points at the front of a chain are dropped and only
//! their highest value kept, so a long-lived timeline stays small.

use super::fence::{Fence, SyncHub};
use super::table::lock;
use crate::uapi::*;
use crate::KmdResult;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// How long TRANSFER with WAIT_FOR_SUBMIT waits for the source fence to appear (as DRM).
const TRANSFER_SUBMIT_TIMEOUT_NS: u64 = 5_000_000_000;

#[derive(Debug)]
pub(crate) struct Timeline {
    /// Every point up to here is signaled and has been dropped from `links`.
    floor: u64,
    /// The point added last: what QUERY with LAST_SUBMITTED reports.
    head: u64,
    links: VecDeque<(u64, Arc<Fence>)>,
}

#[derive(Debug, Default)]
pub(crate) enum Syncobj {
    #[default]
    Empty,
    Plain(Arc<Fence>),
    Chain(Timeline),
}

impl Syncobj {
    /// The fence a waiter on `point` gets, as DRM's fence lookup with a chain walk: point 0
    /// is the current fence; a point that has no fence yet is EINVAL.
    pub(crate) fn find(&self, point: u64) -> KmdResult<Arc<Fence>> {
        match self {
            Syncobj::Empty => Err(libc::EINVAL),
            Syncobj::Plain(f) if point == 0 => Ok(f.clone()),
            Syncobj::Plain(_) => Err(libc::EINVAL),
            Syncobj::Chain(t) if point == 0 => Ok(Fence::all(t.links.iter().map(|(_, f)| f))),
            Syncobj::Chain(t) => {
                if point > t.head {
                    return Err(libc::EINVAL);
                }
                if point <= t.floor {
                    return Ok(Fence::signaled());
                }
                let upto = t
                    .links
                    .iter()
                    .position(|(p, _)| *p >= point)
                    .map_or(t.links.len(), |i| i + 1);
                Ok(Fence::all(t.links.iter().take(upto).map(|(_, f)| f)))
            }
        }
    }

    /// Binary semantics: the syncobj now holds exactly `fence` (or nothing).
    pub(crate) fn replace(&mut self, fence: Option<Arc<Fence>>) {
        *self = fence.map_or(Syncobj::Empty, Syncobj::Plain);
    }

    /// Timeline semantics: `fence` becomes point `point`, after whatever was there before.
    /// Point 0 is not a timeline point; it replaces the fence as a binary signal would.
    pub(crate) fn add_point(&mut self, fence: Arc<Fence>, point: u64) {
        if point == 0 {
            self.replace(Some(fence));
            return;
        }
        let mut t = match std::mem::take(self) {
            Syncobj::Chain(t) => t,
            // A plain fence stays in front of the new chain: later points wait for it too.
            Syncobj::Plain(f) => Timeline {
                floor: 0,
                head: 0,
                links: VecDeque::from([(0, f)]),
            },
            Syncobj::Empty => Timeline {
                floor: 0,
                head: 0,
                links: VecDeque::new(),
            },
        };
        t.links.push_back((point, fence));
        t.head = point;
        t.collect();
        *self = Syncobj::Chain(t);
    }

    /// QUERY: the highest point with every point up to it signaled, or the last added.
    pub(crate) fn query(&mut self, last_submitted: bool) -> u64 {
        match self {
            Syncobj::Empty | Syncobj::Plain(_) => 0,
            Syncobj::Chain(t) if last_submitted => t.head,
            Syncobj::Chain(t) => {
                t.collect();
                if t.links.is_empty() {
                    t.head
                } else {
                    t.floor
                }
            }
        }
    }
}

impl Timeline {
    fn collect(&mut self) {
        while let Some((p, f)) = self.links.front() {
            if !f.is_signaled() {
                break;
            }
            self.floor = self.floor.max(*p);
            self.links.pop_front();
        }
    }
}

/// A syncobj as several handles (in this file or, through an fd, in another simulated device)
/// can share it. Its own lock is a leaf: taken under the hub lock, never two at once.
pub(crate) type SharedSyncobj = Arc<Mutex<Syncobj>>;

/// All syncobjs of the file, by handle.
#[derive(Debug, Default)]
pub(crate) struct SyncTable {
    objs: BTreeMap<u32, SharedSyncobj>,
}

impl SyncTable {
    pub(crate) fn get(&self, handle: u32) -> Option<MutexGuard<'_, Syncobj>> {
        self.objs.get(&handle).map(|o| lock(o))
    }

    pub(crate) fn get_mut(&mut self, handle: u32) -> Option<MutexGuard<'_, Syncobj>> {
        self.get(handle)
    }

    /// The shared object behind a handle, for export.
    pub(crate) fn shared(&self, handle: u32) -> Option<SharedSyncobj> {
        self.objs.get(&handle).cloned()
    }

    /// A new handle for an existing (imported) syncobj.
    pub(crate) fn insert(&mut self, obj: SharedSyncobj) -> KmdResult<u32> {
        super::table::insert_lowest(&mut self.objs, obj)
    }

    /// Every handle must exist before an array operation touches any of them.
    pub(crate) fn check(&self, handles: &[u32]) -> KmdResult {
        match handles.iter().all(|h| self.objs.contains_key(h)) {
            true => Ok(()),
            false => Err(libc::ENOENT),
        }
    }
}

impl SyncHub {
    pub(crate) fn create(&self, args: &mut drm_syncobj_create) -> KmdResult {
        if args.flags & !DRM_SYNCOBJ_CREATE_SIGNALED != 0 {
            return Err(libc::EINVAL);
        }
        let obj = match args.flags & DRM_SYNCOBJ_CREATE_SIGNALED {
            0 => Syncobj::Empty,
            _ => Syncobj::Plain(Fence::signaled()),
        };
        let mut t = self.lock();
        args.handle = t.insert(Arc::new(Mutex::new(obj)))?;
        Ok(())
    }

    pub(crate) fn destroy(&self, args: &drm_syncobj_destroy) -> KmdResult {
        if args.pad != 0 {
            return Err(libc::EINVAL);
        }
        let mut t = self.lock();
        t.objs.remove(&args.handle).map(|_| ()).ok_or(libc::EINVAL)
    }

    /// RESET (`signal` false) or SIGNAL (`signal` true) of every handle.
    pub(crate) fn reset_or_signal(&self, handles: &[u32], signal: bool) -> KmdResult {
        let mut t = self.lock();
        t.check(handles)?;
        for h in handles {
            if let Some(mut o) = t.get_mut(*h) {
                o.replace(signal.then(Fence::signaled));
            }
        }
        self.notify_locked();
        Ok(())
    }

    pub(crate) fn timeline_signal(&self, handles: &[u32], points: &[u64]) -> KmdResult {
        let mut t = self.lock();
        t.check(handles)?;
        for (h, p) in handles.iter().zip(points) {
            if let Some(mut o) = t.get_mut(*h) {
                o.add_point(Fence::signaled(), *p);
            }
        }
        self.notify_locked();
        Ok(())
    }

    pub(crate) fn query(&self, handles: &[u32], last_submitted: bool) -> KmdResult<Vec<u64>> {
        let mut t = self.lock();
        t.check(handles)?;
        Ok(handles
            .iter()
            .map(|h| t.get_mut(*h).map_or(0, |mut o| o.query(last_submitted)))
            .collect())
    }

    pub(crate) fn transfer(&self, args: &drm_syncobj_transfer) -> KmdResult {
        if args.pad != 0 || args.flags & !DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0 {
            return Err(libc::EINVAL);
        }
        let wait = args.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0;
        let deadline = super::clock::monotonic_ns().saturating_add(TRANSFER_SUBMIT_TIMEOUT_NS);
        let mut t = self.lock();
        t.check(&[args.src_handle, args.dst_handle])?;
        let fence = loop {
            match t.get(args.src_handle).map(|s| s.find(args.src_point)) {
                Some(Ok(f)) => break f,
                Some(Err(e)) if !wait => return Err(e),
                None => return Err(libc::ENOENT),
                Some(Err(_)) => {
                    let (g, expired) = self.sleep(t, Some(deadline));
                    t = g;
                    if expired {
                        return Err(libc::ETIME);
                    }
                }
            }
        };
        let mut dst = t.get_mut(args.dst_handle).ok_or(libc::ENOENT)?;
        match args.dst_point {
            0 => dst.replace(Some(fence)),
            p => dst.add_point(fence, p),
        }
        self.notify_locked();
        Ok(())
    }
}

impl SyncHub {
    /// SYNCOBJ_HANDLE_TO_FD: an fd for the syncobj itself, or with EXPORT_SYNC_FILE a sync
    /// file holding its current fence (EINVAL when it has none, as DRM).
    pub(crate) fn handle_to_fd(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        if args.pad != 0 || args.flags & !DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE != 0 {
            return Err(libc::EINVAL);
        }
        let t = self.lock();
        let obj = t.shared(args.handle).ok_or(libc::ENOENT)?;
        let fd = if args.flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE != 0 {
            let fence = lock(&obj).find(0)?;
            super::share::export_sync_file(fence)?
        } else {
            super::share::export_syncobj(obj)?
        };
        self.mark_shared();
        args.fd = fd;
        Ok(())
    }

    /// SYNCOBJ_FD_TO_HANDLE: a new handle for the syncobj behind a syncobj fd, or with
    /// IMPORT_SYNC_FILE the sync file's fence put into the existing `handle`. Any other fd is
    /// EINVAL.
    pub(crate) fn fd_to_handle(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        if args.pad != 0 || args.flags & !DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE != 0 {
            return Err(libc::EINVAL);
        }
        let mut t = self.lock();
        if args.flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE != 0 {
            let fence = super::share::import_sync_file(args.fd)?;
            let mut obj = t.get_mut(args.handle).ok_or(libc::ENOENT)?;
            obj.replace(Some(fence));
        } else {
            let obj = super::share::import_syncobj(args.fd)?;
            args.handle = t.insert(obj)?;
        }
        self.mark_shared();
        self.notify_locked();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_points_signal_in_order() {
        let hub = SyncHub::default();
        let (a, b) = (Fence::pending(), Fence::pending());
        let mut s = Syncobj::Empty;
        s.add_point(a.clone(), 1);
        s.add_point(b.clone(), 3);
        let p2 = s.find(2).expect("point 2 is covered by point 3");
        assert_eq!(s.find(4).err(), Some(libc::EINVAL));
        assert_eq!((s.query(false), s.query(true)), (0, 3));
        hub.signal(&b);
        // Point 3's own fence is done, but point 1 is not: nothing past 0 counts yet.
        assert!(!p2.is_signaled());
        assert_eq!(s.query(false), 0);
        hub.signal(&a);
        assert!(p2.is_signaled());
        assert_eq!(s.query(false), 3);
        assert!(s
            .find(1)
            .expect("collected points are signaled")
            .is_signaled());
    }

    #[test]
    fn binary_fence_gates_a_timeline_built_on_it() {
        let hub = SyncHub::default();
        let f = Fence::pending();
        let mut s = Syncobj::Plain(f.clone());
        assert_eq!(s.find(1).err(), Some(libc::EINVAL));
        s.add_point(Fence::signaled(), 5);
        assert!(!s.find(5).expect("point exists").is_signaled());
        hub.signal(&f);
        assert!(s.find(5).expect("point exists").is_signaled());
        assert_eq!(s.query(false), 5);
    }
}
