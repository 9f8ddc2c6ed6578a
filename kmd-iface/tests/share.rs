//! Sharing through file descriptors between two simulated DRM files: PRIME dma-bufs, syncobj
//! fds and sync files, and the fds the simulated kernel refuses.

mod common;

use common::*;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::os::fd::AsRawFd;

fn export(kmd: &dyn Kmd, handle: u32) -> Result<i32, i32> {
    let mut a = drm_prime_handle {
        handle,
        flags: DRM_CLOEXEC | DRM_RDWR,
        fd: -1,
    };
    kmd.prime_handle_to_fd(&mut a).map(|_| a.fd)
}

fn import(kmd: &dyn Kmd, fd: i32) -> Result<u32, i32> {
    let mut a = drm_prime_handle {
        handle: 0,
        flags: 0,
        fd,
    };
    kmd.prime_fd_to_handle(&mut a).map(|_| a.handle)
}

fn cpu_map(kmd: &dyn Kmd, handle: u32, size: usize) -> *mut u8 {
    let mut m = drm_asahi_gem_mmap_offset {
        handle,
        ..Default::default()
    };
    kmd.gem_mmap_offset(&mut m).expect("MMAP_OFFSET");
    kmd.mmap(m.offset, size).expect("mmap")
}

fn close(fd: i32) {
    // SAFETY: an fd the kernel handed to this test.
    unsafe { libc::close(fd) };
}

#[test]
fn a_dma_buf_shows_the_same_bytes_in_another_file() {
    let (a, b) = (dev(), dev());
    let ha = a.bo(0x8000);
    let fd = export(&a.kmd, ha).expect("PRIME_HANDLE_TO_FD");
    let hb = import(&b.kmd, fd).expect("PRIME_FD_TO_HANDLE");
    assert_eq!(import(&b.kmd, fd), Ok(hb), "one handle per object per file");
    assert_eq!(
        import(&a.kmd, fd),
        Ok(ha),
        "the exporter gets its own handle back"
    );
    let (pa, pb) = (cpu_map(&a.kmd, ha, 0x8000), cpu_map(&b.kmd, hb, 0x8000));
    // SAFETY: both mappings are 0x8000 bytes of the same object.
    unsafe {
        *pa.add(0x7fff) = 0xa5;
        assert_eq!(*pb.add(0x7fff), 0xa5);
    }
    close(fd);
}

#[test]
fn private_objects_and_foreign_fds_are_refused() {
    let a = dev();
    let mut c = drm_asahi_gem_create {
        size: 0x4000,
        flags: DRM_ASAHI_GEM_VM_PRIVATE,
        vm_id: a.vm,
        ..Default::default()
    };
    a.kmd.gem_create(&mut c).expect("GEM_CREATE");
    assert_eq!(export(&a.kmd, c.handle), Err(libc::EINVAL));
    assert_eq!(export(&a.kmd, 77), Err(libc::ENOENT));
    let file = std::fs::File::open("/proc/self/status").expect("a plain file");
    assert_eq!(import(&a.kmd, file.as_raw_fd()), Err(libc::EINVAL));
    assert_eq!(import(&a.kmd, -1), Err(libc::EINVAL));
    let mut s = drm_syncobj_handle {
        fd: file.as_raw_fd(),
        ..Default::default()
    };
    assert_eq!(a.kmd.syncobj_fd_to_handle(&mut s), Err(libc::EINVAL));
}

#[test]
fn syncobj_fds_share_the_syncobj_and_sync_files_copy_a_fence() {
    let (a, b) = (dev(), dev());
    let sa = a.syncobj(0);
    let mut h = drm_syncobj_handle {
        handle: sa,
        ..Default::default()
    };
    a.kmd.syncobj_handle_to_fd(&mut h).expect("HANDLE_TO_FD");
    let mut i = drm_syncobj_handle {
        fd: h.fd,
        ..Default::default()
    };
    b.kmd.syncobj_fd_to_handle(&mut i).expect("FD_TO_HANDLE");
    let sb = i.handle;
    assert_eq!(wait(&b.kmd, &[sb], 0, 0), Err(libc::EINVAL), "no fence yet");
    let handles = [sa];
    let arr = drm_syncobj_array {
        handles: handles.as_ptr() as u64,
        count_handles: 1,
        pad: 0,
    };
    // SAFETY: `handles` holds one handle.
    unsafe { a.kmd.syncobj_signal(&arr) }.expect("SIGNAL");
    assert!(
        wait(&b.kmd, &[sb], 0, 0).is_ok(),
        "the signal is seen through b"
    );
    close(h.fd);

    // A sync file of a's (signalled) fence, imported into another syncobj of b.
    let mut e = drm_syncobj_handle {
        handle: sa,
        flags: DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
        ..Default::default()
    };
    a.kmd
        .syncobj_handle_to_fd(&mut e)
        .expect("EXPORT_SYNC_FILE");
    let sb2 = b.syncobj(0);
    let mut i = drm_syncobj_handle {
        handle: sb2,
        flags: DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE,
        fd: e.fd,
        ..Default::default()
    };
    b.kmd
        .syncobj_fd_to_handle(&mut i)
        .expect("IMPORT_SYNC_FILE");
    assert!(wait(&b.kmd, &[sb2], 0, 0).is_ok());
    // A sync file is not a syncobj fd, and an empty syncobj has no fence to export.
    let mut wrong = drm_syncobj_handle {
        fd: e.fd,
        ..Default::default()
    };
    assert_eq!(b.kmd.syncobj_fd_to_handle(&mut wrong), Err(libc::EINVAL));
    let mut empty = drm_syncobj_handle {
        handle: a.syncobj(0),
        flags: DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
        ..Default::default()
    };
    assert_eq!(a.kmd.syncobj_handle_to_fd(&mut empty), Err(libc::EINVAL));
    close(e.fd);
}
