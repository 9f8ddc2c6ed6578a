//! The ioctl edge: copying from and to the caller's memory through the user pointers the UAPI
//! structs carry, and reinterpreting UAPI structs as bytes.
//!
//! Every `unsafe` function here relies on the [`Kmd`](crate::Kmd) safety contract: the caller
//! of an unsafe trait method guarantees each user pointer is valid for the size and count its
//! struct states. What the contract cannot promise (a null pointer, a size that overflows, an
//! absurd count) is checked here and answered with the errno the kernel would give.

use crate::uapi::*;
use crate::KmdResult;

/// Largest single copy the simulated kernel accepts, like the kernel's allocation limits.
const MAX_COPY: usize = 64 << 20;

/// Plain-old-data UAPI structs: `repr(C)`, integers only, every bit pattern valid.
///
/// # Safety
/// Only for types whose every byte pattern is a valid value and that contain no pointers.
pub(crate) unsafe trait Pod: Copy + Default + 'static {}

// SAFETY: each of these is a bindgen `repr(C)` struct of integer fields (or nested such
// structs) without implicit padding, or a primitive integer.
unsafe impl Pod for u32 {}
// SAFETY: as above.
unsafe impl Pod for u64 {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_sync {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_gem_bind_op {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_cmd_header {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_cmd_render {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_cmd_compute {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_attachment {}
// SAFETY: as above.
unsafe impl Pod for drm_asahi_params_global {}

fn user_ptr(ptr: u64, len: usize) -> KmdResult<*mut u8> {
    if len > MAX_COPY {
        return Err(libc::ENOMEM);
    }
    let p = usize::try_from(ptr).map_err(|_| libc::EFAULT)?;
    if p == 0 || p.checked_add(len).is_none() {
        return Err(libc::EFAULT);
    }
    Ok(p as *mut u8)
}

/// Copy `len` bytes in from the caller.
///
/// # Safety
/// `ptr` must be readable for `len` bytes (the trait's contract for the field it came from).
pub(crate) unsafe fn read_bytes(ptr: u64, len: usize) -> KmdResult<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let src = user_ptr(ptr, len)?;
    let mut out = vec![0u8; len];
    // SAFETY: the caller guarantees `src` is readable for `len` bytes; `out` is a distinct
    // allocation of exactly `len` bytes.
    unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), len) };
    Ok(out)
}

/// Copy `count` records of `T` in from the caller.
///
/// # Safety
/// `ptr` must be readable for `count` consecutive `T` (alignment not required).
pub(crate) unsafe fn read_slice<T: Pod>(ptr: u64, count: usize) -> KmdResult<Vec<T>> {
    let len = count.checked_mul(size_of::<T>()).ok_or(libc::EINVAL)?;
    // SAFETY: forwarded from the caller.
    let bytes = unsafe { read_bytes(ptr, len) }?;
    Ok(bytes
        .chunks_exact(size_of::<T>())
        .map(from_prefix::<T>)
        .collect())
}

/// Copy `data` out to the caller.
///
/// # Safety
/// `ptr` must be writable for `data.len()` bytes and not overlap `data`.
pub(crate) unsafe fn write_bytes(ptr: u64, data: &[u8]) -> KmdResult {
    if data.is_empty() {
        return Ok(());
    }
    let dst = user_ptr(ptr, data.len())?;
    // SAFETY: the caller guarantees `dst` is writable for `data.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
    Ok(())
}

/// Copy `values` out to the caller.
///
/// # Safety
/// `ptr` must be writable for `values.len()` consecutive `T` (alignment not required).
pub(crate) unsafe fn write_slice<T: Pod>(ptr: u64, values: &[T]) -> KmdResult {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|v| as_bytes(v).iter().copied())
        .collect();
    // SAFETY: forwarded from the caller.
    unsafe { write_bytes(ptr, &bytes) }
}

/// The bytes of a UAPI struct.
pub(crate) fn as_bytes<T: Pod>(v: &T) -> &[u8] {
    // SAFETY: `T: Pod` has no padding and no pointers, so all `size_of::<T>()` bytes behind a
    // valid reference are initialised; the slice borrows `v`.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), size_of::<T>()) }
}

/// Build a `T` from the first bytes of `bytes`, zero-filling what is missing.
fn from_prefix<T: Pod>(bytes: &[u8]) -> T {
    let mut v = T::default();
    let n = bytes.len().min(size_of::<T>());
    // SAFETY: `T: Pod` accepts any byte pattern; at most `size_of::<T>()` bytes are written
    // into `v`, from a distinct slice of at least `n` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (&mut v as *mut T).cast::<u8>(), n) };
    v
}

/// A UAPI record of caller-stated size: shorter than `T` is zero-extended (older userspace);
/// longer must carry only zeros past `T` (newer userspace using fields this kernel lacks).
pub(crate) fn read_extensible<T: Pod>(bytes: &[u8]) -> KmdResult<T> {
    if bytes.len() > size_of::<T>() && bytes[size_of::<T>()..].iter().any(|&b| b != 0) {
        return Err(libc::EINVAL);
    }
    Ok(from_prefix(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensible_records_zero_extend_and_reject_unknown_tails() {
        let full = drm_asahi_sync {
            sync_type: 1,
            handle: 7,
            timeline_value: 9,
        };
        let bytes = as_bytes(&full).to_vec();
        assert_eq!(read_extensible::<drm_asahi_sync>(&bytes), Ok(full));

        let short: drm_asahi_sync = read_extensible(&bytes[..8]).expect("shorter is allowed");
        assert_eq!(
            short,
            drm_asahi_sync {
                sync_type: 1,
                handle: 7,
                timeline_value: 0
            }
        );

        let mut long = bytes.clone();
        long.extend_from_slice(&[0; 8]);
        assert_eq!(read_extensible::<drm_asahi_sync>(&long), Ok(full));
        long[20] = 1;
        assert_eq!(read_extensible::<drm_asahi_sync>(&long), Err(libc::EINVAL));
    }

    #[test]
    fn null_and_overflowing_pointers_fault() {
        // SAFETY: these never dereference: the checks reject them first.
        unsafe {
            assert_eq!(read_bytes(0, 4), Err(libc::EFAULT));
            assert_eq!(read_bytes(u64::MAX - 1, 4), Err(libc::EFAULT));
            assert_eq!(read_bytes(0x1000, MAX_COPY + 1), Err(libc::ENOMEM));
            assert_eq!(read_slice::<u64>(0x1000, usize::MAX), Err(libc::EINVAL));
            assert_eq!(read_bytes(0, 0), Ok(Vec::new()));
        }
    }

    #[test]
    fn slices_round_trip() {
        let src = [1u32, 2, 3];
        let mut dst = [0u32; 3];
        // SAFETY: both arrays are live, sized for three u32.
        unsafe {
            let got: Vec<u32> = read_slice(src.as_ptr() as u64, 3).expect("readable");
            write_slice(dst.as_mut_ptr() as u64, &got).expect("writable");
        }
        assert_eq!(dst, src);
    }
}
