//! What a file descriptor is in the simulated kernel, and the process-wide tables that let one
//! simulated device find the object another one exported.
//!
//! - A dma-buf (PRIME) is the sealed memfd that backs a shareable GEM object (`hostmem.rs`):
//!   its bytes are the object's, so it works across devices and across processes. Within the
//!   process the memfd's inode also leads back to the `GemObject`, so importing into a file
//!   that already has the object returns its existing handle, as DRM does.
//! - A syncobj fd is an empty memfd named `agx4-syncobj` whose inode this process maps to the
//!   shared syncobj. A sync file is an empty memfd named `agx4-sync-file` whose inode maps to
//!   one fence. Both work between simulated devices of one process only: another process
//!   cannot reach this process's fences, so there such an fd imports as EINVAL.
//!
//! Syncobj and sync-file entries hold their object strongly, because the fd (which the
//! simulator cannot watch) keeps it alive as the kernel's file would; an entry goes when a
//! later fd reuses its inode. That bounds the leak to small objects whose fds were closed.

use super::fence::Fence;
use super::gem::GemObject;
use super::syncobj::SharedSyncobj;
use super::table::lock;
use crate::KmdResult;
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::sync::{Arc, Mutex, Weak};

const SYNCOBJ_NAME: &CStr = c"agx4-syncobj";
const SYNC_FILE_NAME: &CStr = c"agx4-sync-file";

/// A file's identity: (device, inode) from fstat.
type Key = (u64, u64);

#[derive(Default)]
struct Tables {
    gem: HashMap<Key, Weak<GemObject>>,
    syncobjs: HashMap<Key, SharedSyncobj>,
    sync_files: HashMap<Key, Arc<Fence>>,
}

static TABLES: Mutex<Option<Tables>> = Mutex::new(None);

fn with_tables<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    f(lock(&TABLES).get_or_insert_with(Tables::default))
}

fn key(fd: i32) -> KmdResult<Key> {
    // SAFETY: fstat writes one struct stat; a bad fd gives -1 and leaves it unread.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(libc::EINVAL);
    }
    Ok((st.st_dev, st.st_ino))
}

/// Whether `fd` is a memfd named `name`.
fn is_named(fd: i32, name: &CStr) -> bool {
    let want = format!("/memfd:{} (deleted)", name.to_string_lossy());
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .is_ok_and(|p| p.as_os_str().as_encoded_bytes() == want.as_bytes())
}

/// A new empty memfd named `name`, close-on-exec, and its key.
fn token(name: &CStr) -> KmdResult<(OwnedFd, Key)> {
    // SAFETY: memfd_create reads the NUL-terminated name and returns a new fd or -1.
    let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(libc::EMFILE);
    }
    // SAFETY: `raw` is a new fd nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let k = key(fd.as_raw_fd())?;
    Ok((fd, k))
}

/// A new fd for the file `fd` refers to, close-on-exec if asked (as PRIME's DRM_CLOEXEC).
pub(crate) fn dup(fd: &OwnedFd, cloexec: bool) -> KmdResult<i32> {
    let cmd = if cloexec {
        libc::F_DUPFD_CLOEXEC
    } else {
        libc::F_DUPFD
    };
    // SAFETY: duplicating an fd we hold open; -1 on failure.
    let raw = unsafe { libc::fcntl(fd.as_raw_fd(), cmd, 0) };
    if raw < 0 {
        return Err(libc::EMFILE);
    }
    Ok(raw)
}

/// Record an exported GEM object under its memfd.
pub(crate) fn register_gem(obj: &Arc<GemObject>) -> KmdResult {
    let fd = obj.mem.fd().ok_or(libc::EINVAL)?;
    let k = key(fd.as_raw_fd())?;
    with_tables(|t| t.gem.insert(k, Arc::downgrade(obj)));
    Ok(())
}

/// The live GEM object a dma-buf fd belongs to, if this process made it.
pub(crate) fn find_gem(fd: i32) -> Option<Arc<GemObject>> {
    let k = key(fd).ok()?;
    let obj = with_tables(|t| t.gem.get(&k).and_then(Weak::upgrade))?;
    // The inode matches; make sure it is still that object's memfd and not a reused inode.
    let ours = obj
        .mem
        .fd()
        .is_some_and(|m| key(m.as_raw_fd()).ok() == Some(k));
    ours.then_some(obj)
}

/// A new syncobj fd for `obj`.
pub(crate) fn export_syncobj(obj: SharedSyncobj) -> KmdResult<i32> {
    let (fd, k) = token(SYNCOBJ_NAME)?;
    with_tables(|t| {
        t.sync_files.remove(&k);
        t.syncobjs.insert(k, obj)
    });
    Ok(fd.into_raw_fd())
}

/// The syncobj a syncobj fd stands for; EINVAL for any other fd.
pub(crate) fn import_syncobj(fd: i32) -> KmdResult<SharedSyncobj> {
    if !is_named(fd, SYNCOBJ_NAME) {
        return Err(libc::EINVAL);
    }
    let k = key(fd)?;
    with_tables(|t| t.syncobjs.get(&k).cloned()).ok_or(libc::EINVAL)
}

/// A new sync file holding `fence`.
pub(crate) fn export_sync_file(fence: Arc<Fence>) -> KmdResult<i32> {
    let (fd, k) = token(SYNC_FILE_NAME)?;
    with_tables(|t| {
        t.syncobjs.remove(&k);
        t.sync_files.insert(k, fence)
    });
    Ok(fd.into_raw_fd())
}

/// The fence of a sync file; EINVAL for any other fd.
pub(crate) fn import_sync_file(fd: i32) -> KmdResult<Arc<Fence>> {
    if !is_named(fd, SYNC_FILE_NAME) {
        return Err(libc::EINVAL);
    }
    let k = key(fd)?;
    with_tables(|t| t.sync_files.get(&k).cloned()).ok_or(libc::EINVAL)
}
