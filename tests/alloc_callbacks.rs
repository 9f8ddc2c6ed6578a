//! `pAllocator` through the real loader: objects created with allocation callbacks take their
//! host memory from them and give it all back when destroyed, and an allocator that refuses
//! makes creation fail with VK_ERROR_OUT_OF_HOST_MEMORY without leaking anything.

mod common;

use ash::vk;
use common::Ctx;
use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// What the callbacks saw: live allocations (address -> layout), how many were made, and how
/// many more may succeed (`None`: all).
#[derive(Default)]
struct Books {
    live: HashMap<usize, Layout>,
    made: usize,
    allowed: Option<usize>,
}

unsafe extern "system" fn allocate(
    user: *mut c_void,
    size: usize,
    align: usize,
    _: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: `user` is the `Mutex<Books>` the test passes and keeps alive.
    let books = unsafe { &*(user as *const Mutex<Books>) };
    let mut b = books.lock().unwrap();
    if let Some(n) = b.allowed.as_mut() {
        if *n == 0 {
            return std::ptr::null_mut();
        }
        *n -= 1;
    }
    let layout = Layout::from_size_align(size.max(1), align.max(1)).unwrap();
    // SAFETY: a non-zero size.
    let p = unsafe { std::alloc::alloc(layout) };
    b.live.insert(p as usize, layout);
    b.made += 1;
    p as *mut c_void
}

unsafe extern "system" fn reallocate(
    user: *mut c_void,
    old: *mut c_void,
    size: usize,
    align: usize,
    scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: as in `allocate`; `old` is null or one of our allocations.
    unsafe {
        let new = allocate(user, size, align, scope);
        if !old.is_null() && !new.is_null() {
            let books = &*(user as *const Mutex<Books>);
            let old_size = books.lock().unwrap().live[&(old as usize)].size();
            std::ptr::copy_nonoverlapping(old as *const u8, new as *mut u8, old_size.min(size));
            free(user, old);
        }
        new
    }
}

unsafe extern "system" fn free(user: *mut c_void, p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: as in `allocate`.
    let books = unsafe { &*(user as *const Mutex<Books>) };
    let layout = books
        .lock()
        .unwrap()
        .live
        .remove(&(p as usize))
        .expect("freeing memory the callbacks gave out");
    // SAFETY: `p` came from `allocate` with `layout`.
    unsafe { std::alloc::dealloc(p as *mut u8, layout) };
}

fn callbacks(books: &Mutex<Books>) -> vk::AllocationCallbacks<'_> {
    vk::AllocationCallbacks {
        p_user_data: books as *const Mutex<Books> as *mut c_void,
        pfn_allocation: Some(allocate),
        pfn_reallocation: Some(reallocate),
        pfn_free: Some(free),
        ..Default::default()
    }
}

fn device_info<'a>(queues: &'a [vk::DeviceQueueCreateInfo<'a>]) -> vk::DeviceCreateInfo<'a> {
    vk::DeviceCreateInfo::default().queue_create_infos(queues)
}

#[test]
fn objects_use_the_callbacks_and_return_everything() {
    let ctx = Ctx::without_validation();
    let books = Mutex::new(Books::default());
    let cb = callbacks(&books);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // SAFETY: valid physical device, create infos and callbacks that outlive every object.
    unsafe {
        let dev = ctx
            .instance
            .create_device(ctx.pdev, &device_info(&queues), Some(&cb))
            .expect("vkCreateDevice");
        let after_device = books.lock().unwrap().made;
        let buffer = dev
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(4096)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                Some(&cb),
            )
            .unwrap();
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), Some(&cb))
            .unwrap();
        let semaphore = dev
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), Some(&cb))
            .unwrap();
        let event = dev
            .create_event(&vk::EventCreateInfo::default(), Some(&cb))
            .unwrap();
        let pool = dev
            .create_command_pool(&vk::CommandPoolCreateInfo::default(), Some(&cb))
            .unwrap();
        let layout = dev
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), Some(&cb))
            .unwrap();
        let made = books.lock().unwrap().made - after_device;
        assert!(made >= 6, "{made} allocations for six objects");
        dev.destroy_pipeline_layout(layout, Some(&cb));
        dev.destroy_command_pool(pool, Some(&cb));
        dev.destroy_event(event, Some(&cb));
        dev.destroy_semaphore(semaphore, Some(&cb));
        dev.destroy_fence(fence, Some(&cb));
        dev.destroy_buffer(buffer, Some(&cb));
        dev.destroy_device(Some(&cb));
    }
    let b = books.lock().unwrap();
    assert!(b.made > 0, "the callbacks were used");
    assert!(
        b.live.is_empty(),
        "{} allocations were not freed",
        b.live.len()
    );
}

#[test]
fn a_refusing_allocator_fails_creation_cleanly() {
    let ctx = Ctx::without_validation();
    let books = Mutex::new(Books::default());
    let cb = callbacks(&books);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // SAFETY: as in the test above.
    unsafe {
        let dev = ctx
            .instance
            .create_device(ctx.pdev, &device_info(&queues), None)
            .expect("vkCreateDevice");
        books.lock().unwrap().allowed = Some(0);
        let r = dev.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(4096)
                .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
            Some(&cb),
        );
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        let r = dev.create_fence(&vk::FenceCreateInfo::default(), Some(&cb));
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        let r = ctx
            .instance
            .create_device(ctx.pdev, &device_info(&queues), Some(&cb));
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        // The device still works after the refusals.
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        dev.destroy_fence(fence, None);
        dev.destroy_device(None);
    }
    assert!(books.lock().unwrap().live.is_empty());
}
