//! Host memory of driver objects: the application's `VkAllocationCallbacks` when a create
//! command is given them, Rust's allocator otherwise.
//!
//! The object itself (the memory its handle points at) comes from the callbacks; what the
//! object owns inside (vectors, maps, GPU objects) stays with Rust's allocator, which the
//! spec allows. A destroy command frees the object with the callbacks it was made with,
//! whatever it is passed: valid usage requires compatible callbacks there, so using the
//! creation's ones is always right, and a mismatch cannot free memory with the wrong
//! allocator.

use ash::vk;
use std::alloc::Layout;
use std::collections::HashMap;
use std::sync::Mutex;

/// The callbacks an object was allocated with: its free function and user data, as integers
/// so the table is `Send`.
#[derive(Clone, Copy)]
struct Origin {
    free: usize,
    user_data: usize,
}

/// Objects allocated through application callbacks, by address.
static HOSTED: Mutex<Option<HashMap<usize, Origin>>> = Mutex::new(None);

fn hosted<T>(f: impl FnOnce(&mut HashMap<usize, Origin>) -> T) -> T {
    let mut g = HOSTED.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

/// Allocates memory for a `T` through `callbacks`, or returns `None` when they have no
/// allocation function. `Err` is the application's allocator refusing.
///
/// # Safety
/// `callbacks` must be valid allocation callbacks, as Vulkan's valid usage requires.
unsafe fn alloc_with(
    callbacks: &vk::AllocationCallbacks<'_>,
    layout: Layout,
    scope: vk::SystemAllocationScope,
) -> Result<*mut u8, vk::Result> {
    let (Some(alloc), Some(free)) = (callbacks.pfn_allocation, callbacks.pfn_free) else {
        // Valid usage requires both; without them the default allocator is the safe choice.
        return Ok(std::ptr::null_mut());
    };
    // SAFETY: the application's allocation function, called as the spec defines it.
    let p = unsafe {
        alloc(
            callbacks.p_user_data,
            layout.size().max(1),
            layout.align(),
            scope,
        )
    } as *mut u8;
    if p.is_null() {
        return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
    }
    let origin = Origin {
        free: free as usize,
        user_data: callbacks.p_user_data as usize,
    };
    hosted(|m| m.insert(p as usize, origin));
    Ok(p)
}

/// Moves `value` to the heap: into memory from `callbacks` when given (with `scope`), else a
/// `Box`. The value is dropped if the application's allocator refuses.
///
/// # Safety
/// `callbacks` must be null or point to valid allocation callbacks.
pub unsafe fn place<T>(
    value: T,
    callbacks: *const vk::AllocationCallbacks<'_>,
    scope: vk::SystemAllocationScope,
) -> Result<*mut T, vk::Result> {
    // SAFETY: guaranteed by the caller.
    if let Some(cb) = unsafe { callbacks.as_ref() } {
        // SAFETY: as above.
        let p = unsafe { alloc_with(cb, Layout::new::<T>(), scope) }? as *mut T;
        if !p.is_null() {
            // SAFETY: `p` is fresh memory of `T`'s size and alignment.
            unsafe { p.write(value) };
            return Ok(p);
        }
    }
    Ok(Box::into_raw(Box::new(value)))
}

/// Drops the `T` at `p` and frees its memory the way [`place`] got it.
///
/// # Safety
/// `p` must come from [`place`] for a `T` and not have been released yet.
pub unsafe fn release<T>(p: *mut T) {
    match hosted(|m| m.remove(&(p as usize))) {
        None => {
            // SAFETY: `place` made `p` with `Box::into_raw`.
            drop(unsafe { Box::from_raw(p) })
        }
        Some(origin) => {
            // SAFETY: `p` holds a live `T` (the caller's contract), dropped once here; `free`
            // is the application's free function taken from valid callbacks.
            unsafe {
                std::ptr::drop_in_place(p);
                let free: vk::PFN_vkFreeFunction =
                    std::mem::transmute::<usize, vk::PFN_vkFreeFunction>(origin.free);
                if let Some(free) = free {
                    free(
                        origin.user_data as *mut std::ffi::c_void,
                        p as *mut std::ffi::c_void,
                    );
                }
            }
        }
    }
}

/// An object taken back from its handle by a destroy command: it derefs to the object and
/// frees it (through the callbacks it was made with, if any) when dropped.
pub struct Owned<T>(*mut T);

impl<T> Owned<T> {
    /// # Safety
    /// `p` must come from [`place`] for a `T`, and nothing else may use or release it.
    pub unsafe fn from_raw(p: *mut T) -> Owned<T> {
        Owned(p)
    }

    /// Moves the object out and frees the memory it lived in.
    pub fn into_inner(self) -> T {
        let p = self.0;
        std::mem::forget(self);
        // SAFETY: `p` holds a live `T` owned by this `Owned` alone; it is read out once and
        // its memory then freed without dropping it again.
        unsafe {
            let value = p.read();
            free_only(p);
            value
        }
    }
}

/// Frees the memory of the (already moved-out) `T` at `p` without dropping it.
///
/// # Safety
/// As for [`release`], with the value no longer live.
unsafe fn free_only<T>(p: *mut T) {
    match hosted(|m| m.remove(&(p as usize))) {
        None => {
            // SAFETY: a `Box<MaybeUninit<T>>` frees the memory and drops nothing.
            drop(unsafe { Box::from_raw(p as *mut std::mem::MaybeUninit<T>) })
        }
        Some(origin) => {
            // SAFETY: as in `release`.
            unsafe {
                let free: vk::PFN_vkFreeFunction =
                    std::mem::transmute::<usize, vk::PFN_vkFreeFunction>(origin.free);
                if let Some(free) = free {
                    free(
                        origin.user_data as *mut std::ffi::c_void,
                        p as *mut std::ffi::c_void,
                    );
                }
            }
        }
    }
}

impl<T> std::ops::Deref for Owned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the `Owned` holds a live `T` until it is dropped or moved out.
        unsafe { &*self.0 }
    }
}

impl<T> std::ops::DerefMut for Owned<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and the `Owned` is the only owner.
        unsafe { &mut *self.0 }
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: the `Owned` is the only owner of a live `T` from `place`.
        unsafe { release(self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static CALLS: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "system" fn alloc(
        _: *mut std::ffi::c_void,
        size: usize,
        align: usize,
        _: vk::SystemAllocationScope,
    ) -> *mut std::ffi::c_void {
        CALLS.fetch_add(1, Ordering::SeqCst);
        LIVE.fetch_add(1, Ordering::SeqCst);
        // SAFETY: a valid layout (the driver passes its type's size and alignment).
        unsafe { std::alloc::alloc(Layout::from_size_align(size, align).unwrap()) as *mut _ }
    }

    unsafe extern "system" fn fail(
        _: *mut std::ffi::c_void,
        _: usize,
        _: usize,
        _: vk::SystemAllocationScope,
    ) -> *mut std::ffi::c_void {
        std::ptr::null_mut()
    }

    unsafe extern "system" fn free(_: *mut std::ffi::c_void, p: *mut std::ffi::c_void) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
        // The test type is 16 bytes, aligned to 8.
        // SAFETY: `p` came from `alloc` with that layout.
        unsafe { std::alloc::dealloc(p as *mut u8, Layout::from_size_align(16, 8).unwrap()) }
    }

    unsafe extern "system" fn realloc(
        _: *mut std::ffi::c_void,
        _: *mut std::ffi::c_void,
        _: usize,
        _: usize,
        _: vk::SystemAllocationScope,
    ) -> *mut std::ffi::c_void {
        std::ptr::null_mut()
    }

    /// A 16-byte object whose drop is visible through the `Arc`'s count.
    struct Thing(u64, #[allow(dead_code)] std::sync::Arc<()>);

    #[test]
    fn objects_come_from_the_callbacks_and_go_back_to_them() {
        let cb = vk::AllocationCallbacks {
            pfn_allocation: Some(alloc),
            pfn_reallocation: Some(realloc),
            pfn_free: Some(free),
            ..Default::default()
        };
        let token = std::sync::Arc::new(());
        // SAFETY: valid callbacks; each object is released once.
        unsafe {
            let p = place(
                Thing(7, token.clone()),
                &cb,
                vk::SystemAllocationScope::OBJECT,
            )
            .unwrap();
            assert_eq!((*p).0, 7);
            assert_eq!(LIVE.load(Ordering::SeqCst), 1);
            drop(Owned::from_raw(p));
            assert_eq!(LIVE.load(Ordering::SeqCst), 0);
            assert_eq!(
                std::sync::Arc::strong_count(&token),
                1,
                "the object was dropped"
            );
            let p = place(
                Thing(8, token.clone()),
                &cb,
                vk::SystemAllocationScope::OBJECT,
            )
            .unwrap();
            let t = Owned::from_raw(p).into_inner();
            assert_eq!((t.0, LIVE.load(Ordering::SeqCst)), (8, 0));
            drop(t);
            // Without callbacks the object is boxed.
            let p = place(
                Thing(9, token.clone()),
                std::ptr::null(),
                vk::SystemAllocationScope::OBJECT,
            )
            .unwrap();
            drop(Owned::from_raw(p));
        }
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
        assert_eq!(std::sync::Arc::strong_count(&token), 1);
    }

    #[test]
    fn a_refusing_allocator_is_out_of_host_memory() {
        let cb = vk::AllocationCallbacks {
            pfn_allocation: Some(fail),
            pfn_reallocation: Some(realloc),
            pfn_free: Some(free),
            ..Default::default()
        };
        let token = std::sync::Arc::new(());
        // SAFETY: valid callbacks.
        let r = unsafe {
            place(
                Thing(1, token.clone()),
                &cb,
                vk::SystemAllocationScope::OBJECT,
            )
        };
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        assert_eq!(
            std::sync::Arc::strong_count(&token),
            1,
            "the refused object was dropped"
        );
    }
}
