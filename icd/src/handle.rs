//! Vulkan handles <-> driver objects.
//!
//! Every object is a `Box`; its handle is the box's address. Dispatchable objects begin with a
//! [`LoaderData`] word that the loader overwrites with its dispatch table pointer, so they are
//! `#[repr(C)]` with that field first.

use ash::vk;
use std::cell::UnsafeCell;

/// What the loader expects to find in a fresh dispatchable handle (ICD_LOADER_MAGIC).
const ICD_LOADER_MAGIC: usize = 0x01CD_C0DE;

/// The loader's word at the start of every dispatchable object. Only the loader writes it.
#[repr(C)]
pub struct LoaderData(UnsafeCell<usize>);

// SAFETY: the driver never reads or writes this word after construction; the loader writes it
// once, right after the creating call returns and before the handle is used elsewhere.
unsafe impl Sync for LoaderData {}

impl LoaderData {
    pub fn new() -> Self {
        LoaderData(UnsafeCell::new(ICD_LOADER_MAGIC))
    }
}

/// Implemented by every driver object type to convert it to and from its Vulkan handle.
pub trait Object: Sized {
    type Handle: vk::Handle + Copy;

    /// Moves the object to the heap and returns its handle.
    fn into_handle(self) -> Self::Handle {
        <Self::Handle as vk::Handle>::from_raw(Box::into_raw(Box::new(self)) as u64)
    }

    /// Moves the object into memory from the application's allocation callbacks (the
    /// `pAllocator` of its create command), or to the heap when there are none, and returns
    /// its handle. The object is dropped if the application's allocator refuses.
    ///
    /// # Safety
    /// `callbacks` must be null or point to valid allocation callbacks.
    unsafe fn into_handle_in(
        self,
        callbacks: *const vk::AllocationCallbacks<'_>,
        scope: vk::SystemAllocationScope,
    ) -> Result<Self::Handle, vk::Result> {
        // SAFETY: guaranteed by the caller.
        let p = unsafe { crate::host_alloc::place(self, callbacks, scope) }?;
        Ok(<Self::Handle as vk::Handle>::from_raw(p as u64))
    }

    /// The object behind a handle; `None` for `VK_NULL_HANDLE`.
    ///
    /// # Safety
    /// `handle` must be `VK_NULL_HANDLE` or a live handle of this object type made by this
    /// driver (by `into_handle` or `into_handle_in`), and the object must not be destroyed
    /// while the returned reference is in use. Vulkan's valid usage requires applications to
    /// pass only such handles: every handle this driver makes is the address of a `Self`, and
    /// the object lives until `take` is called for it by its destroy command, which valid usage
    /// forbids while the object is still in use.
    unsafe fn from_handle<'a>(handle: Self::Handle) -> Option<&'a Self> {
        let raw = vk::Handle::as_raw(handle);
        // SAFETY: guaranteed by the caller: a non-null `raw` is the address of a live `Self`.
        (raw != 0).then(|| unsafe { &*(raw as *const Self) })
    }

    /// Takes back ownership from a handle, for its destroy command: the object is freed the
    /// way it was allocated when the result is dropped.
    ///
    /// # Safety
    /// As for [`Object::from_handle`], and this must be the last use of the handle (its
    /// destroy command): no reference from `from_handle` may outlive this call, and the handle
    /// must not be used again. Vulkan's valid usage guarantees both for the handle a destroy
    /// command is given.
    unsafe fn take(handle: Self::Handle) -> Option<crate::host_alloc::Owned<Self>> {
        let raw = vk::Handle::as_raw(handle);
        // SAFETY: guaranteed by the caller; both `into_handle` and `into_handle_in` allocate
        // through `host_alloc::place`'s rules (a `Box`, or callback memory it records), which is
        // what `Owned::from_raw` frees by.
        (raw != 0).then(|| unsafe { crate::host_alloc::Owned::from_raw(raw as *mut Self) })
    }
}

/// Implements [`Object`] for a driver type.
macro_rules! object {
    ($ty:ty, $handle:ty) => {
        impl $crate::handle::Object for $ty {
            type Handle = $handle;
        }
    };
}
pub(crate) use object;

/// Fills a Vulkan "two-call" array: `count` gets the number written (or available, when
/// `out` is null); returns `VK_INCOMPLETE` when the caller's array was too small.
///
/// # Safety
/// `count` must be valid; `out`, if not null, must be valid for `*count` writes.
pub unsafe fn fill_array<T: Clone>(items: &[T], count: *mut u32, out: *mut T) -> vk::Result {
    // SAFETY: guaranteed by the caller, per the Vulkan valid usage of every such command.
    unsafe {
        if out.is_null() {
            *count = items.len() as u32;
            return vk::Result::SUCCESS;
        }
        let n = (*count as usize).min(items.len());
        for (i, item) in items.iter().take(n).enumerate() {
            out.add(i).write(item.clone());
        }
        *count = n as u32;
        if n < items.len() {
            vk::Result::INCOMPLETE
        } else {
            vk::Result::SUCCESS
        }
    }
}

/// A slice from a Vulkan (pointer, count) pair; empty when the count is 0.
///
/// # Safety
/// If `count > 0`, `ptr` must be valid for `count` reads.
pub unsafe fn slice<'a, T>(ptr: *const T, count: u32) -> &'a [T] {
    if count == 0 || ptr.is_null() {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(ptr, count as usize) }
    }
}

/// Walks a `pNext` chain of input structures.
///
/// # Safety
/// `p_next` must be null or a valid chain of Vulkan structures.
pub unsafe fn chain<'a>(
    p_next: *const std::ffi::c_void,
) -> impl Iterator<Item = &'a vk::BaseInStructure<'a>> {
    let mut p = p_next as *const vk::BaseInStructure;
    std::iter::from_fn(move || {
        // SAFETY: guaranteed by the caller: each element is a structure starting with sType/pNext.
        let s = unsafe { p.as_ref()? };
        p = s.p_next;
        Some(s)
    })
}

/// Walks a `pNext` chain of output structures.
///
/// # Safety
/// `p_next` must be null or a valid chain of writable Vulkan structures.
pub unsafe fn chain_mut<'a>(
    p_next: *mut std::ffi::c_void,
) -> impl Iterator<Item = *mut vk::BaseOutStructure<'a>> {
    let mut p = p_next as *mut vk::BaseOutStructure;
    std::iter::from_fn(move || {
        if p.is_null() {
            return None;
        }
        let cur = p;
        // SAFETY: guaranteed by the caller.
        p = unsafe { (*p).p_next };
        Some(cur)
    })
}

/// Finds the structure of type `T` in an input `pNext` chain.
///
/// # Safety
/// As for [`chain`]; `T` must be the Vulkan structure whose sType is `T::STRUCTURE_TYPE`.
pub unsafe fn find_in_chain<'a, T: vk::TaggedStructure>(
    p_next: *const std::ffi::c_void,
) -> Option<&'a T> {
    // SAFETY: guaranteed by the caller; the sType check makes the cast the right one.
    unsafe {
        chain(p_next)
            .find(|s| s.s_type == T::STRUCTURE_TYPE)
            .map(|s| &*(s as *const _ as *const T))
    }
}

/// Copies a string into a fixed-size Vulkan name array, NUL-terminated.
pub fn write_name(dst: &mut [std::ffi::c_char], src: &str) {
    let n = src.len().min(dst.len() - 1);
    for (d, s) in dst.iter_mut().zip(src.bytes().take(n)) {
        *d = s as std::ffi::c_char;
    }
    dst[n] = 0;
}
