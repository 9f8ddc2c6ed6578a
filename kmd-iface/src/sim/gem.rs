//! GEM objects: creation, handles, fake mmap offsets and CPU mappings.

use super::hostmem::HostMem;
use super::params::MAX_OBJECT_SIZE;
use crate::uapi::*;
use crate::KmdResult;
use hw::uat::PAGE_SIZE;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

/// Where fake mmap offsets start: above any 32-bit offset, as DRM places them.
const MMAP_OFFSET_START: u64 = 1 << 32;
/// mmap(2) wants offsets in host pages; 4 KiB divides every host page size agx4 runs on.
const HOST_PAGE: u64 = 4096;

/// One buffer object. Kept alive by its handle, by CPU mappings and by in-flight GPU work.
#[derive(Debug)]
pub(crate) struct GemObject {
    /// The handle it was created under (never reused while the object has it).
    pub(crate) handle: u32,
    /// Size in bytes, a whole number of GPU pages.
    pub(crate) size: u64,
    /// The VM a `VM_PRIVATE` object may be bound in.
    pub(crate) vm_private: Option<u32>,
    pub(crate) mem: HostMem,
}

struct OffsetEntry {
    end: u64,
    obj: Weak<GemObject>,
}

/// The per-file GEM state.
#[derive(Default)]
pub(crate) struct GemTable {
    handles: BTreeMap<u32, Arc<GemObject>>,
    /// The handle of each object this file has, by object address: an object has at most
    /// one handle per file, and importing it again returns that handle.
    handle_of: HashMap<usize, u32>,
    offsets: BTreeMap<u64, OffsetEntry>,
    /// This file's fake mmap offset of each object that has one, by object address.
    offset_of: HashMap<usize, u64>,
    next_offset: u64,
    /// Live CPU mappings by (address, length), counted because one object mapped twice
    /// yields the same address here.
    mappings: BTreeMap<(usize, usize), (Arc<GemObject>, usize)>,
}

impl GemTable {
    pub(crate) fn lookup(&self, handle: u32) -> KmdResult<Arc<GemObject>> {
        self.handles.get(&handle).cloned().ok_or(libc::ENOENT)
    }

    /// GEM_CREATE once the VM for a private object has been checked by the caller.
    pub(crate) fn create(&mut self, args: &mut drm_asahi_gem_create) -> KmdResult {
        if args.size == 0 {
            return Err(libc::EINVAL);
        }
        let size = args
            .size
            .checked_next_multiple_of(PAGE_SIZE)
            .ok_or(libc::EINVAL)?;
        if size > MAX_OBJECT_SIZE {
            return Err(libc::ENOMEM);
        }
        let len = usize::try_from(size).map_err(|_| libc::ENOMEM)?;
        let vm_private = (args.flags & DRM_ASAHI_GEM_VM_PRIVATE != 0).then_some(args.vm_id);
        // Only an object outside any VM's reservation can be exported, so only those pay for
        // an fd.
        let mem = match vm_private {
            Some(_) => HostMem::new(len)?,
            None => HostMem::new_shared(len)?,
        };
        let handle = super::table::lowest_free(&self.handles)?;
        let obj = Arc::new(GemObject {
            handle,
            size,
            vm_private,
            mem,
        });
        args.handle = self.insert(obj)?;
        Ok(())
    }

    fn insert(&mut self, obj: Arc<GemObject>) -> KmdResult<u32> {
        let handle = super::table::lowest_free(&self.handles)?;
        self.handle_of.insert(Arc::as_ptr(&obj) as usize, handle);
        self.handles.insert(handle, obj);
        Ok(handle)
    }

    /// GEM_CLOSE: drop the handle; unknown handles are EINVAL, as in DRM.
    pub(crate) fn close(&mut self, handle: u32) -> KmdResult<Arc<GemObject>> {
        let obj = self.handles.remove(&handle).ok_or(libc::EINVAL)?;
        let addr = Arc::as_ptr(&obj) as usize;
        self.handle_of.remove(&addr);
        // The offset itself stays (its weak entry refuses the mmap, as DRM revokes access);
        // only the by-address entry must go, since the address may be reused.
        self.offset_of.remove(&addr);
        Ok(obj)
    }

    /// PRIME_HANDLE_TO_FD: a new fd for the object's memfd. A VM-private object shares its
    /// VM's reservation and cannot leave it: EINVAL, as the kernel answers.
    pub(crate) fn export(&self, args: &mut drm_prime_handle) -> KmdResult {
        if args.flags & !(DRM_CLOEXEC | DRM_RDWR) != 0 {
            return Err(libc::EINVAL);
        }
        let obj = self.lookup(args.handle)?;
        let fd = match (obj.vm_private, obj.mem.fd()) {
            (None, Some(fd)) => fd,
            _ => return Err(libc::EINVAL),
        };
        super::share::register_gem(&obj)?;
        args.fd = super::share::dup(fd, args.flags & DRM_CLOEXEC != 0)?;
        Ok(())
    }

    /// PRIME_FD_TO_HANDLE: this file's handle for the object behind a dma-buf fd, made if
    /// the file has none. An fd that is not a simulated dma-buf is EINVAL.
    pub(crate) fn import(&mut self, args: &mut drm_prime_handle) -> KmdResult {
        let obj = match super::share::find_gem(args.fd) {
            Some(obj) => obj,
            None => {
                // Made by another process, or its exporter is gone: map the memfd itself.
                let mem = HostMem::import(args.fd)?;
                let size = mem.len() as u64;
                if !size.is_multiple_of(PAGE_SIZE) || size > MAX_OBJECT_SIZE {
                    return Err(libc::EINVAL);
                }
                let handle = super::table::lowest_free(&self.handles)?;
                let obj = Arc::new(GemObject {
                    handle,
                    size,
                    vm_private: None,
                    mem,
                });
                super::share::register_gem(&obj)?;
                obj
            }
        };
        if let Some(&h) = self.handle_of.get(&(Arc::as_ptr(&obj) as usize)) {
            args.handle = h;
            return Ok(());
        }
        args.handle = self.insert(obj)?;
        Ok(())
    }

    /// GEM_MMAP_OFFSET: one stable fake offset per object, never reused.
    pub(crate) fn mmap_offset(&mut self, args: &mut drm_asahi_gem_mmap_offset) -> KmdResult {
        if args.flags != 0 {
            return Err(libc::EINVAL);
        }
        let obj = self.lookup(args.handle)?;
        let addr = Arc::as_ptr(&obj) as usize;
        if let Some(&off) = self.offset_of.get(&addr) {
            args.offset = off;
            return Ok(());
        }
        let start = self.next_offset.max(MMAP_OFFSET_START);
        let end = start.checked_add(obj.size).ok_or(libc::ENOSPC)?;
        self.next_offset = end;
        self.offsets.insert(
            start,
            OffsetEntry {
                end,
                obj: Arc::downgrade(&obj),
            },
        );
        self.offset_of.insert(addr, start);
        args.offset = start;
        Ok(())
    }

    /// mmap(2) of `size` bytes at fake `offset`: a pointer into the object's host memory.
    pub(crate) fn mmap(&mut self, offset: u64, size: usize) -> KmdResult<*mut u8> {
        if size == 0 || offset & (HOST_PAGE - 1) != 0 {
            return Err(libc::EINVAL);
        }
        let (start, entry) = self
            .offsets
            .range(..=offset)
            .next_back()
            .ok_or(libc::EINVAL)?;
        let end = offset.checked_add(size as u64).ok_or(libc::EINVAL)?;
        if end > entry.end {
            return Err(libc::EINVAL);
        }
        let start = *start;
        let Some(obj) = entry.obj.upgrade() else {
            self.offsets.remove(&start);
            return Err(libc::EINVAL);
        };
        // DRM revokes a file's access to an offset when its last handle to the object goes.
        if !self.handle_of.contains_key(&(Arc::as_ptr(&obj) as usize)) {
            return Err(libc::EACCES);
        }
        let within = usize::try_from(offset - start).map_err(|_| libc::EINVAL)?;
        let ptr = obj.mem.ptr_at(within).ok_or(libc::EINVAL)?;
        let slot = self
            .mappings
            .entry((ptr as usize, size))
            .or_insert_with(|| (obj, 0));
        slot.1 += 1;
        Ok(ptr)
    }

    /// munmap(2) bookkeeping: the object may go once its last mapping and handle are gone.
    pub(crate) fn munmap(&mut self, ptr: *mut u8, size: usize) -> KmdResult {
        let key = (ptr as usize, size);
        let slot = self.mappings.get_mut(&key).ok_or(libc::EINVAL)?;
        slot.1 -= 1;
        if slot.1 == 0 {
            self.mappings.remove(&key);
        }
        Ok(())
    }
}
