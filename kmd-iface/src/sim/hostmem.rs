//! Host memory backing a simulated GEM object.

use crate::{Errno, KmdResult};
use std::ptr::NonNull;

/// An anonymous mapping: the kernel zero-fills its pages on first touch, which is exactly
/// the lazily zeroed memory a fresh GEM object has, and costs nothing for untouched pages.
#[derive(Debug)]
pub(crate) struct HostMem {
    ptr: NonNull<u8>,
    len: usize,
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
        Ok(HostMem { ptr, len })
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
}
