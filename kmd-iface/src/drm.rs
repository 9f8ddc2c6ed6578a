//! [`DrmKmd`]: the real kernel, through an asahi render node.

use crate::select::{Backend, SelectError};
use crate::uapi::*;
use crate::{Errno, Kmd, KmdResult};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

const DRI_DIR: &str = "/dev/dri";
const DRIVER_NAME: &[u8] = b"asahi";

/// An open render node whose kernel driver is `asahi`.
#[derive(Debug)]
pub struct DrmKmd {
    file: File,
    path: PathBuf,
}

impl DrmKmd {
    /// Open the first render node (in name order) driven by `asahi`.
    pub fn open() -> Result<DrmKmd, SelectError> {
        let mut nodes: Vec<PathBuf> = std::fs::read_dir(DRI_DIR)
            .map(|dir| {
                dir.filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| is_render_node(p))
                    .collect()
            })
            .unwrap_or_default();
        nodes.sort();
        for path in nodes {
            let Ok(file) = OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc::O_CLOEXEC)
                .open(&path)
            else {
                continue;
            };
            let kmd = DrmKmd { file, path };
            if kmd.driver_name().is_ok_and(|n| n == DRIVER_NAME) {
                return Ok(kmd);
            }
        }
        Err(SelectError::new(format!(
            "no asahi render node: no {DRI_DIR}/renderD* device is driven by the asahi kernel driver"
        )))
    }

    /// The render node this was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn driver_name(&self) -> KmdResult<Vec<u8>> {
        let mut name = [0u8; 64];
        let mut v = drm_version {
            name_len: name.len(),
            name: name.as_mut_ptr().cast(),
            ..Default::default()
        };
        // SAFETY: `v.name` points to `name`, writable for `name_len` bytes; date and desc have
        // length 0, so the kernel writes nothing through their null pointers.
        unsafe { self.ioctl(DRM_IOCTL_VERSION, &mut v) }?;
        Ok(name[..v.name_len.min(name.len())].to_vec())
    }

    /// Issue `request` on the device, retrying when a signal or a busy driver interrupts it.
    ///
    /// # Safety
    /// `arg` must be the struct `request` encodes, and every user pointer inside it must be
    /// valid for what the kernel does with it.
    unsafe fn ioctl<T>(&self, request: u32, arg: &mut T) -> KmdResult {
        let arg: *mut T = arg;
        loop {
            // SAFETY: the fd is open for the life of `self`; the caller vouches for `arg`.
            let r = unsafe { libc::ioctl(self.file.as_raw_fd(), request as _, arg) };
            if r != -1 {
                return Ok(());
            }
            match errno() {
                libc::EINTR | libc::EAGAIN => continue,
                e => return Err(e),
            }
        }
    }

    /// For arguments the trait passes by shared reference: the kernel may copy the struct
    /// back, so it gets a private copy.
    ///
    /// # Safety
    /// As for [`DrmKmd::ioctl`].
    unsafe fn ioctl_in<T: Copy>(&self, request: u32, arg: &T) -> KmdResult {
        let mut copy = *arg;
        // SAFETY: forwarded from the caller.
        unsafe { self.ioctl(request, &mut copy) }
    }
}

fn is_render_node(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("renderD"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn errno() -> Errno {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

impl Kmd for DrmKmd {
    fn backend(&self) -> Backend {
        Backend::Drm
    }

    unsafe fn get_params(&self, args: &mut drm_asahi_get_params) -> KmdResult {
        // SAFETY: the trait's contract makes `args.pointer` writable for `args.size` bytes.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_GET_PARAMS, args) }
    }

    fn get_time(&self, args: &mut drm_asahi_get_time) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_GET_TIME, args) }
    }

    fn vm_create(&self, args: &mut drm_asahi_vm_create) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_VM_CREATE, args) }
    }

    fn vm_destroy(&self, args: &drm_asahi_vm_destroy) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl_in(DRM_IOCTL_ASAHI_VM_DESTROY, args) }
    }

    unsafe fn vm_bind(&self, args: &drm_asahi_vm_bind) -> KmdResult {
        // SAFETY: the trait's contract makes `args.userptr` valid for `num_binds * stride`.
        unsafe { self.ioctl_in(DRM_IOCTL_ASAHI_VM_BIND, args) }
    }

    fn gem_create(&self, args: &mut drm_asahi_gem_create) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_GEM_CREATE, args) }
    }

    fn gem_close(&self, args: &drm_gem_close) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl_in(DRM_IOCTL_GEM_CLOSE, args) }
    }

    fn gem_mmap_offset(&self, args: &mut drm_asahi_gem_mmap_offset) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, args) }
    }

    fn gem_bind_object(&self, args: &mut drm_asahi_gem_bind_object) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, args) }
    }

    fn queue_create(&self, args: &mut drm_asahi_queue_create) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_ASAHI_QUEUE_CREATE, args) }
    }

    fn queue_destroy(&self, args: &drm_asahi_queue_destroy) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl_in(DRM_IOCTL_ASAHI_QUEUE_DESTROY, args) }
    }

    unsafe fn submit(&self, args: &drm_asahi_submit) -> KmdResult {
        // SAFETY: the trait's contract covers `syncs` and `cmdbuf`.
        unsafe { self.ioctl_in(DRM_IOCTL_ASAHI_SUBMIT, args) }
    }

    fn mmap(&self, offset: u64, size: usize) -> KmdResult<*mut u8> {
        let offset = libc::off_t::try_from(offset).map_err(|_| libc::EINVAL)?;
        // SAFETY: a fresh shared mapping chosen by the kernel; it aliases no Rust object.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                self.file.as_raw_fd(),
                offset,
            )
        };
        if p == libc::MAP_FAILED {
            Err(errno())
        } else {
            Ok(p.cast())
        }
    }

    unsafe fn munmap(&self, ptr: *mut u8, size: usize) -> KmdResult {
        // SAFETY: the caller passes back exactly a mapping from `mmap` that nothing uses.
        if unsafe { libc::munmap(ptr.cast(), size) } == 0 {
            Ok(())
        } else {
            Err(errno())
        }
    }

    fn syncobj_create(&self, args: &mut drm_syncobj_create) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_CREATE, args) }
    }

    fn syncobj_destroy(&self, args: &drm_syncobj_destroy) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl_in(DRM_IOCTL_SYNCOBJ_DESTROY, args) }
    }

    unsafe fn syncobj_wait(&self, args: &mut drm_syncobj_wait) -> KmdResult {
        // SAFETY: the trait's contract covers `handles`.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_WAIT, args) }
    }

    unsafe fn syncobj_timeline_wait(&self, args: &mut drm_syncobj_timeline_wait) -> KmdResult {
        // SAFETY: the trait's contract covers `handles` and `points`.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, args) }
    }

    unsafe fn syncobj_reset(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: the trait's contract covers `handles`.
        unsafe { self.ioctl_in(DRM_IOCTL_SYNCOBJ_RESET, args) }
    }

    unsafe fn syncobj_signal(&self, args: &drm_syncobj_array) -> KmdResult {
        // SAFETY: the trait's contract covers `handles`.
        unsafe { self.ioctl_in(DRM_IOCTL_SYNCOBJ_SIGNAL, args) }
    }

    unsafe fn syncobj_timeline_signal(&self, args: &drm_syncobj_timeline_array) -> KmdResult {
        // SAFETY: the trait's contract covers `handles` and `points`.
        unsafe { self.ioctl_in(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, args) }
    }

    unsafe fn syncobj_query(&self, args: &mut drm_syncobj_timeline_array) -> KmdResult {
        // SAFETY: the trait's contract covers `handles` and the writable `points`.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_QUERY, args) }
    }

    fn syncobj_transfer(&self, args: &drm_syncobj_transfer) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl_in(DRM_IOCTL_SYNCOBJ_TRANSFER, args) }
    }

    fn prime_handle_to_fd(&self, args: &mut drm_prime_handle) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_PRIME_HANDLE_TO_FD, args) }
    }

    fn prime_fd_to_handle(&self, args: &mut drm_prime_handle) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_PRIME_FD_TO_HANDLE, args) }
    }

    fn syncobj_handle_to_fd(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, args) }
    }

    fn syncobj_fd_to_handle(&self, args: &mut drm_syncobj_handle) -> KmdResult {
        // SAFETY: no user pointers.
        unsafe { self.ioctl(DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, args) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Request codes as the C headers produce them on arm64/x86_64, written out by hand.
    #[test]
    fn request_codes_match_known_values() {
        let known = [
            (DRM_IOCTL_VERSION, 0xc040_6400u32),
            (DRM_IOCTL_GEM_CLOSE, 0x4008_6409),
            (DRM_IOCTL_SYNCOBJ_CREATE, 0xc008_64bf),
            (DRM_IOCTL_SYNCOBJ_DESTROY, 0xc008_64c0),
            (DRM_IOCTL_SYNCOBJ_WAIT, 0xc028_64c3),
            (DRM_IOCTL_SYNCOBJ_RESET, 0xc010_64c4),
            (DRM_IOCTL_SYNCOBJ_SIGNAL, 0xc010_64c5),
            (DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, 0xc030_64ca),
            (DRM_IOCTL_SYNCOBJ_QUERY, 0xc018_64cb),
            (DRM_IOCTL_SYNCOBJ_TRANSFER, 0xc020_64cc),
            (DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, 0xc018_64cd),
            (DRM_IOCTL_ASAHI_GET_PARAMS, 0x4018_6440),
            (DRM_IOCTL_ASAHI_GET_TIME, 0xc010_6441),
            (DRM_IOCTL_ASAHI_VM_CREATE, 0xc018_6442),
            (DRM_IOCTL_ASAHI_VM_DESTROY, 0x4008_6443),
            (DRM_IOCTL_ASAHI_VM_BIND, 0x4018_6444),
            (DRM_IOCTL_ASAHI_GEM_CREATE, 0xc018_6445),
            (DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET, 0xc010_6446),
            (DRM_IOCTL_ASAHI_GEM_BIND_OBJECT, 0xc028_6447),
            (DRM_IOCTL_ASAHI_QUEUE_CREATE, 0xc018_6448),
            (DRM_IOCTL_ASAHI_QUEUE_DESTROY, 0x4008_6449),
            (DRM_IOCTL_ASAHI_SUBMIT, 0x4028_644a),
        ];
        for (got, want) in known {
            assert_eq!(got, want, "{got:#x} != {want:#x}");
        }
    }

    #[test]
    fn ioc_packs_fields_in_place() {
        assert_eq!(ioc(0, 0, 0, 0), 0);
        assert_eq!(ioc(3, 0, 0, 0), 0xc000_0000);
        assert_eq!(ioc(0, b'd', 0, 0), 0x6400);
        assert_eq!(ioc(0, 0, 0x4a, 0), 0x4a);
        assert_eq!(ioc(0, 0, 0, 0x3fff), 0x3fff_0000);
    }

    #[test]
    fn render_node_names() {
        assert!(is_render_node(Path::new("/dev/dri/renderD128")));
        assert!(!is_render_node(Path::new("/dev/dri/card0")));
        assert!(!is_render_node(Path::new("/dev/dri/renderD")));
        assert!(!is_render_node(Path::new("/dev/dri/renderDx1")));
    }

    #[test]
    fn version_args_point_at_the_name_buffer() {
        // The packing `driver_name` relies on: only the name buffer is handed to the kernel.
        let mut name = [0u8; 8];
        let v = drm_version {
            name_len: name.len(),
            name: name.as_mut_ptr().cast(),
            ..Default::default()
        };
        assert_eq!(v.name_len, 8);
        assert_eq!(v.name.cast::<u8>(), name.as_mut_ptr());
        assert!(v.date.is_null() && v.desc.is_null());
        assert_eq!((v.date_len, v.desc_len), (0, 0));
    }

    #[test]
    fn open_without_asahi_node_is_a_clear_error() {
        // The test machines have no asahi GPU; on one that has, opening must succeed instead.
        match DrmKmd::open() {
            Ok(kmd) => assert_eq!(kmd.backend(), Backend::Drm),
            Err(e) => assert!(e.to_string().contains("no asahi render node"), "{e}"),
        }
    }
}
