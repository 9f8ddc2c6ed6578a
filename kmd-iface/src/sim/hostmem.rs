//! Host memory backing a simulated GEM object.
//!
//! A VM-private object is an anonymous mapping. A shareable one (created without
//! `VM_PRIVATE`, which is what the kernel requires of an object it will export) is a shared
//! mapping of a sealed memfd: that memfd is the simulator's dma-buf, so whoever maps it (another
//! simulated device in this process, or another process) sees the same bytes.

use crate::{Errno, KmdResult};
use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;

/// The name every simulated dma-buf memfd carries; `/proc/self/fd` shows it as
/// `/memfd:agx4-dmabuf (deleted)`, which is how an import recognises one.
const DMABUF_NAME: &CStr = c"agx4-dmabuf";
/// Seals on a simulated dma-buf: its size can never change, as a dma-buf's cannot.
const DMABUF_SEALS: i32 = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

/// The zero-filled-on-first-touch memory a fresh GEM object has, costing nothing for
/// untouched pages.
#[derive(Debug)]
pub(crate) struct HostMem {
    ptr: NonNull<u8>,
    len: usize,
    /// The memfd behind a shareable object.
    fd: Option<OwnedFd>,
}

// SAFETY: the mapping is owned by this value and freed only on drop; it is plain memory that
// any thread may access (concurrent GPU and CPU access to it is the driver's to order, as
// with shared memory on the real device).
unsafe impl Send for HostMem {}
// SAFETY: as above; `&HostMem` only hands out the address and bounds-checked copies.
unsafe impl Sync for HostMem {}

impl HostMem {
    /// `len` must be nonzero; failure to reserve address space is ENOMEM.
    pub(crate) fn new(len: usize) -> KmdResult<HostMem> {
        if len == 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: a fresh private anonymous mapping aliases nothing; NORESERVE keeps large
        // objects cheap until touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(libc::ENOMEM as Errno);
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or(libc::ENOMEM)?;
        Ok(HostMem { ptr, len, fd: None })
    }

    /// A shareable object: a fresh sealed memfd of `len` bytes, mapped shared.
    pub(crate) fn new_shared(len: usize) -> KmdResult<HostMem> {
        if len == 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: memfd_create reads the NUL-terminated name and returns a new fd or -1.
        let raw = unsafe {
            libc::memfd_create(
                DMABUF_NAME.as_ptr(),
                libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
            )
        };
        if raw < 0 {
            return Err(libc::ENOMEM);
        }
        // SAFETY: `raw` is a new fd that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let size = libc::off_t::try_from(len).map_err(|_| libc::ENOMEM)?;
        // SAFETY: plain fd calls on the fd we own.
        let ok = unsafe {
            libc::ftruncate(fd.as_raw_fd(), size) == 0
                && libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, DMABUF_SEALS) == 0
        };
        if !ok {
            return Err(libc::ENOMEM);
        }
        HostMem::map_fd(fd, len)
    }

    /// Maps a simulated dma-buf that came in as an fd (the caller's fd is left alone). Anything
    /// else — a plain file, a pipe, a memfd that is not one of ours or not sealed to its size —
    /// is EINVAL, as DRM refuses an fd that is not a dma-buf.
    pub(crate) fn import(fd: i32) -> KmdResult<HostMem> {
        if !is_dmabuf(fd) {
            return Err(libc::EINVAL);
        }
        // SAFETY: fstat writes one struct stat for a descriptor that is open (checked above).
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_size <= 0 {
            return Err(libc::EINVAL);
        }
        let len = usize::try_from(st.st_size).map_err(|_| libc::EINVAL)?;
        // SAFETY: F_DUPFD_CLOEXEC returns a new fd for the same file, or -1.
        let raw = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if raw < 0 {
            return Err(libc::EMFILE);
        }
        // SAFETY: `raw` is a new fd that nothing else owns.
        HostMem::map_fd(unsafe { OwnedFd::from_raw_fd(raw) }, len)
    }

    fn map_fd(fd: OwnedFd, len: usize) -> KmdResult<HostMem> {
        // SAFETY: a new shared mapping of a memfd at least `len` bytes long (its size is
        // sealed), placed where the kernel chooses, so it aliases no Rust object.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(libc::ENOMEM as Errno);
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or(libc::ENOMEM)?;
        Ok(HostMem {
            ptr,
            len,
            fd: Some(fd),
        })
    }

    /// The memfd of a shareable object.
    pub(crate) fn fd(&self) -> Option<&OwnedFd> {
        self.fd.as_ref()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Address of byte `offset`, for handing a CPU mapping to the caller.
    pub(crate) fn ptr_at(&self, offset: usize) -> Option<*mut u8> {
        (offset < self.len).then(|| self.ptr.as_ptr().wrapping_add(offset))
    }

    /// Copy out `buf.len()` bytes at `offset`; false if that leaves the mapping.
    pub(crate) fn read(&self, offset: u64, buf: &mut [u8]) -> bool {
        let Some(start) = self.checked_range(offset, buf.len()) else {
            return false;
        };
        // SAFETY: `start..start + buf.len()` lies inside the live mapping (checked above), and
        // `buf` is a distinct Rust allocation.
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(start), buf.as_mut_ptr(), buf.len())
        };
        true
    }

    /// Copy `data` in at `offset`; false if that leaves the mapping.
    pub(crate) fn write(&self, offset: u64, data: &[u8]) -> bool {
        let Some(start) = self.checked_range(offset, data.len()) else {
            return false;
        };
        // SAFETY: as in `read`, with the copy going the other way.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.as_ptr().add(start), data.len())
        };
        true
    }

    fn checked_range(&self, offset: u64, len: usize) -> Option<usize> {
        let start = usize::try_from(offset).ok()?;
        (start.checked_add(len)? <= self.len).then_some(start)
    }
}

/// Whether `fd` is a simulated dma-buf: a memfd with our name and our seals.
fn is_dmabuf(fd: i32) -> bool {
    // SAFETY: F_GET_SEALS only reads the descriptor's state; a bad fd gives -1.
    let seals = unsafe { libc::fcntl(fd, libc::F_GET_SEALS) };
    if seals < 0 || seals & DMABUF_SEALS != DMABUF_SEALS {
        return false;
    }
    let want = format!("/memfd:{} (deleted)", DMABUF_NAME.to_string_lossy());
    std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .is_ok_and(|p| p.as_os_str().as_encoded_bytes() == want.as_bytes())
}

impl Drop for HostMem {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly the mapping created in `new`, and no reference into
        // it outlives `self` (users hold an `Arc` of the owning object while they use it).
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_memory_reads_zero_and_keeps_writes() {
        let m = HostMem::new(0x8000).expect("mapping");
        let mut b = [0xffu8; 16];
        assert!(m.read(0x7ff0, &mut b));
        assert_eq!(b, [0; 16]);
        assert!(m.write(0x10, &[1, 2, 3]));
        let mut c = [0u8; 3];
        assert!(m.read(0x10, &mut c));
        assert_eq!(c, [1, 2, 3]);
    }

    #[test]
    fn out_of_bounds_access_is_refused() {
        let m = HostMem::new(0x4000).expect("mapping");
        assert!(!m.read(0x3ffc, &mut [0u8; 8]));
        assert!(!m.write(u64::MAX, &[0]));
        assert!(m.ptr_at(0x4000).is_none());
        assert_eq!(HostMem::new(0).err(), Some(libc::EINVAL));
    }

    #[test]
    fn shared_memory_is_seen_through_an_import() {
        let a = HostMem::new_shared(0x4000).expect("memfd");
        let fd = a.fd().expect("shared memory has an fd").as_raw_fd();
        let b = HostMem::import(fd).expect("our own memfd imports");
        assert_eq!(b.len(), 0x4000);
        assert!(a.write(0x123, &[7, 8, 9]));
        let mut got = [0u8; 3];
        assert!(b.read(0x123, &mut got));
        assert_eq!(got, [7, 8, 9]);
    }

    #[test]
    fn foreign_fds_are_not_dmabufs() {
        let f = std::fs::File::open("/proc/self/status").expect("a plain file");
        assert_eq!(HostMem::import(f.as_raw_fd()).err(), Some(libc::EINVAL));
        // SAFETY: a plain memfd with another name, owned here.
        let raw = unsafe { libc::memfd_create(c"other".as_ptr(), libc::MFD_CLOEXEC) };
        assert!(raw >= 0);
        // SAFETY: `raw` is ours.
        let m = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain call on our fd.
        assert_eq!(unsafe { libc::ftruncate(m.as_raw_fd(), 0x4000) }, 0);
        assert_eq!(HostMem::import(m.as_raw_fd()).err(), Some(libc::EINVAL));
        assert_eq!(HostMem::import(-1).err(), Some(libc::EINVAL));
    }
}
