//! SYNCOBJ_WAIT and SYNCOBJ_TIMELINE_WAIT.

use super::fence::SyncHub;
use crate::uapi::*;
use crate::KmdResult;

const BINARY_FLAGS: u32 = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
    | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT
    | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE;
const TIMELINE_FLAGS: u32 = BINARY_FLAGS | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;

/// One wait request, after the handle and point arrays have been copied in.
pub(crate) struct WaitRequest<'a> {
    pub(crate) handles: &'a [u32],
    /// All zero for the binary wait ioctl.
    pub(crate) points: &'a [u64],
    pub(crate) flags: u32,
    /// Absolute CLOCK_MONOTONIC deadline in ns; at or before now means "poll".
    pub(crate) timeout_nsec: i64,
    pub(crate) timeline: bool,
}

impl SyncHub {
    /// Block until the request is satisfied. In any-mode, returns the first signaled index;
    /// `None` when there is nothing to report (WAIT_ALL, or no handles).
    pub(crate) fn wait(&self, req: &WaitRequest<'_>) -> KmdResult<Option<u32>> {
        let allowed = if req.timeline {
            TIMELINE_FLAGS
        } else {
            BINARY_FLAGS
        };
        if req.flags & !allowed != 0 {
            return Err(libc::EINVAL);
        }
        if req.handles.is_empty() {
            return Ok(None);
        }
        let wait_all = req.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL != 0;
        let for_submit = req.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT != 0;
        let available = req.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE != 0;
        let deadline = u64::try_from(req.timeout_nsec).unwrap_or(0);

        let mut t = self.lock();
        t.check(req.handles)?;
        let mut first_pass = true;
        loop {
            let mut first_done = None;
            let mut all_done = true;
            for (i, (h, p)) in req.handles.iter().zip(req.points).enumerate() {
                let done = match t.get(*h).map(|s| s.find(*p)) {
                    Some(Ok(f)) => available || f.is_signaled(),
                    // Without a fence to wait on, DRM refuses unless told to wait for one.
                    Some(Err(e)) if first_pass && !(for_submit || available) => return Err(e),
                    _ => false,
                };
                all_done &= done;
                if done && first_done.is_none() {
                    first_done = Some(i as u32);
                }
            }
            first_pass = false;
            match (wait_all, first_done) {
                (true, _) if all_done => return Ok(None),
                (false, Some(i)) => return Ok(Some(i)),
                _ => {}
            }
            if super::clock::monotonic_ns() >= deadline {
                return Err(libc::ETIME);
            }
            t = self.sleep(t, Some(deadline)).0;
        }
    }
}
