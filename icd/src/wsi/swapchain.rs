//! VkSwapchainKHR: images, acquire, present, and the presenter thread.
//!
//! Images are ordinary optimal-tiled agx4 images bound to driver-owned, CPU-mapped memory
//! (`Bo`). An image is either free, acquired by the application, or presented (queued for or
//! being shown by the presenter thread). Acquire takes a free image and signals its semaphore
//! and fence at once from the host: a free image has no pending reads.
//!
//! vkQueuePresentKHR puts a submission without commands on the queue that waits for the
//! present's semaphores (and, in submission order, all work before it) and then signals the
//! next point of the swapchain's timeline syncobj. The presenter thread waits for that point,
//! paces the image by the present mode against a 60 Hz "vblank" clock, hands it to the
//! surface's back end, and puts it back on the free list.
//!
//! The surface's size is checked at every acquire and present (X11 has no resize
//! notification agx4 could receive on the application's connection). The first call that
//! finds the window resized returns VK_SUBOPTIMAL_KHR (the image is acquired or presented,
//! clipped to the window); from then on the swapchain is out of date and acquire and present
//! return VK_ERROR_OUT_OF_DATE_KHR. A window that is gone makes every later call return
//! VK_ERROR_SURFACE_LOST_KHR. A Wayland surface has no size of its own, so its swapchains
//! never go out of date; a broken compositor connection loses it. A swapchain retired by a
//! newer one (oldSwapchain) hands out no more images, but its acquired images can still be
//! presented.

use super::surface::{Platform, Surface, FORMATS, MAX_IMAGES};
use super::{headless, wayland, x11, Backend, PresentImage};
use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::entry::guard_or;
use crate::handle::{self, object, Object};
use crate::image::Image;
use crate::kmd;
use crate::queue::{Queue, SyncPoint};
use crate::sync::{Fence, Semaphore};
use ash::vk;
use hw::g13::layout::Layout;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The presenter's stand-in for a display's refresh: 60 Hz.
const VBLANK: Duration = Duration::from_nanos(1_000_000_000 / 60);
/// How long the presenter blocks in one GPU wait before checking whether it should stop.
const WAIT_SLICE_NS: u64 = 50_000_000;

struct SwapImage {
    /// The image's memory, mapped for the presenter's reads.
    bo: Bo,
    layout: Layout,
    rgba: bool,
}

#[derive(Clone)]
struct Request {
    index: u32,
    /// The swapchain timeline point that signals when the present's waits are done.
    point: u64,
    /// False when the present was refused (out of date, surface lost): the image only goes
    /// back to the free list once its waits are done.
    show: bool,
    /// VK_KHR_incremental_present's rectangles (layer 0); empty: the whole image.
    damage: Vec<vk::Rect2D>,
}

struct State {
    free: VecDeque<u32>,
    queue: VecDeque<Request>,
    /// SUCCESS, or the error every later acquire and present returns.
    status: vk::Result,
    retired: bool,
    stop: bool,
    /// The last timeline point given to a present.
    point: u64,
}

struct Shared {
    kmd: Arc<dyn Kmd>,
    timeline: u32,
    mode: vk::PresentModeKHR,
    extent: vk::Extent2D,
    platform: Platform,
    images: Vec<SwapImage>,
    state: Mutex<State>,
    changed: Condvar,
}

pub struct Swapchain {
    shared: Arc<Shared>,
    handles: Vec<vk::Image>,
    presenter: Option<JoinHandle<()>>,
}
object!(Swapchain, vk::SwapchainKHR);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Checks the surface: `Ok(SUCCESS)`, `Ok(SUBOPTIMAL_KHR)` the first time the window is
    /// found resized, or the swapchain's error.
    fn check(&self) -> Result<vk::Result, vk::Result> {
        let now = match &self.platform {
            Platform::X11(w) => Some(w.extent()),
            // Only a lost connection matters: a Wayland swapchain has no size to go stale.
            Platform::Wayland(w) => w.check().err().map(Err),
            Platform::Headless => None,
        };
        let mut st = self.state();
        if st.status != vk::Result::SUCCESS {
            return Err(st.status);
        }
        match now {
            Some(Err(e)) => {
                st.status = e;
                Err(e)
            }
            Some(Ok(e)) if e != self.extent => {
                st.status = vk::Result::ERROR_OUT_OF_DATE_KHR;
                Ok(vk::Result::SUBOPTIMAL_KHR)
            }
            _ => Ok(vk::Result::SUCCESS),
        }
    }

    fn set_status(&self, e: vk::Result) {
        let mut st = self.state();
        if st.status == vk::Result::SUCCESS {
            st.status = e;
        }
        self.changed.notify_all();
    }

    fn release(&self, index: u32) {
        self.state().free.push_back(index);
        self.changed.notify_all();
    }

    /// Waits for a present's timeline point. `Ok(false)` if the swapchain stops first.
    fn wait_point(&self, point: u64) -> Result<bool, vk::Result> {
        loop {
            match kmd::syncobj_timeline_wait(
                self.kmd.as_ref(),
                &[self.timeline],
                &[point],
                kmd::deadline(WAIT_SLICE_NS),
                DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
            ) {
                Ok(_) => return Ok(true),
                Err(libc::ETIME) if self.state().stop => return Ok(false),
                Err(libc::ETIME) => {}
                Err(e) => {
                    eprintln!("agx4: waiting for a present's semaphores failed: errno {e}");
                    return Err(vk::Result::ERROR_DEVICE_LOST);
                }
            }
        }
    }

    fn point_done(&self, point: u64) -> bool {
        kmd::syncobj_timeline_wait(
            self.kmd.as_ref(),
            &[self.timeline],
            &[point],
            0,
            DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
        )
        .is_ok()
    }

    /// Waits until `deadline` unless the swapchain stops; under MAILBOX a newer present whose
    /// waits are done replaces `req` (which goes back to the free list). Returns the request
    /// to show, or `None` if the swapchain stops.
    fn wait_vblank(&self, mut req: Request, deadline: Instant) -> Option<Request> {
        let mut st = self.state();
        loop {
            if st.stop {
                return None;
            }
            if self.mode == vk::PresentModeKHR::MAILBOX {
                let newer_done = st.queue.front().is_some_and(|n| self.point_done(n.point));
                if newer_done {
                    if let Some(newer) = st.queue.pop_front() {
                        st.free.push_back(req.index);
                        self.changed.notify_all();
                        req = newer;
                        continue;
                    }
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Some(req);
            }
            // Under MAILBOX a present whose waits are still running is checked again soon.
            let step = (deadline - now).min(Duration::from_millis(2));
            st = self
                .changed
                .wait_timeout(st, step)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// The presenter thread.
    fn run(&self, mut backend: Box<dyn Backend>) {
        let epoch = Instant::now();
        let mut last_shown: Option<Instant> = None;
        let mut pixels: Vec<u8> = Vec::new();
        loop {
            let req = {
                let mut st = self.state();
                loop {
                    if st.stop {
                        return;
                    }
                    if let Some(r) = st.queue.pop_front() {
                        break r;
                    }
                    st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            match self.wait_point(req.point) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    self.set_status(e);
                    self.release(req.index);
                    continue;
                }
            }
            if !req.show {
                self.release(req.index);
                continue;
            }
            // The next vblank of the 60 Hz clock at or after `t`.
            let next_vblank = |t: Instant| {
                let since = t.saturating_duration_since(epoch).as_nanos();
                let period = VBLANK.as_nanos();
                let ticks = since.div_ceil(period);
                epoch + Duration::from_nanos((ticks * period) as u64)
            };
            let now = Instant::now();
            let earliest = last_shown.map_or(now, |t| (t + VBLANK).max(now));
            let deadline = match self.mode {
                vk::PresentModeKHR::IMMEDIATE => now,
                // A late frame (more than one vblank after the last) is shown at once.
                vk::PresentModeKHR::FIFO_RELAXED
                    if last_shown.is_some_and(|t| now > t + VBLANK) =>
                {
                    now
                }
                _ => next_vblank(earliest),
            };
            let Some(req) = self.wait_vblank(req, deadline) else {
                return;
            };
            let st_ok = self.state().status == vk::Result::SUCCESS;
            if st_ok {
                let img = &self.images[req.index as usize];
                let size = img.layout.size as usize;
                let bytes: &[u8] = if backend.wants_pixels() {
                    pixels.resize(size, 0);
                    if img.bo.read(0, &mut pixels).is_err() {
                        pixels.fill(0);
                    }
                    &pixels
                } else {
                    &[]
                };
                let image = PresentImage {
                    bytes,
                    layout: &img.layout,
                    rgba: img.rgba,
                    damage: &req.damage,
                };
                if let Err(e) = backend.show(&image) {
                    self.set_status(e);
                }
            }
            last_shown = Some(Instant::now());
            self.release(req.index);
        }
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        self.shared.state().stop = true;
        self.shared.changed.notify_all();
        if let Some(p) = self.presenter.take() {
            let _ = p.join();
        }
        for &h in &self.handles {
            // SAFETY: the swapchain made its images (by vkCreateImage's code, which uses
            // `into_handle_in`) and owns them; valid usage forbids the application to destroy
            // them or to use them after the swapchain is destroyed, and this drop runs once.
            drop(unsafe { Image::take(h) });
        }
        let _ = kmd::syncobj_destroy(self.shared.kmd.as_ref(), self.shared.timeline);
    }
}

/// Makes the images of a swapchain; on failure the ones made so far are destroyed.
///
/// # Safety
/// `device` must be a live device made by this driver (the one `dev` is), not destroyed
/// during the call, and `info`'s pNext chain must be null or a valid chain of Vulkan
/// structures. vkCreateSwapchainKHR's device and create info are such (Vulkan valid usage).
unsafe fn make_images(
    dev: &Device,
    device: vk::Device,
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<(Vec<vk::Image>, Vec<SwapImage>), vk::Result> {
    // SAFETY: guaranteed by the caller: the pNext chain is valid.
    let list = unsafe { handle::find_in_chain::<vk::ImageFormatListCreateInfo<'_>>(info.p_next) };
    let mutable = info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT);
    let mut image_info = vk::ImageCreateInfo {
        flags: if mutable {
            // VK_KHR_swapchain_mutable_format: views of other formats, with usages only the
            // view formats may support.
            vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE
        } else {
            vk::ImageCreateFlags::empty()
        },
        image_type: vk::ImageType::TYPE_2D,
        format: info.image_format,
        extent: vk::Extent3D {
            width: info.image_extent.width,
            height: info.image_extent.height,
            depth: 1,
        },
        mip_levels: 1,
        array_layers: info.image_array_layers,
        samples: vk::SampleCountFlags::TYPE_1,
        tiling: vk::ImageTiling::OPTIMAL,
        usage: info.image_usage,
        sharing_mode: info.image_sharing_mode,
        ..Default::default()
    };
    if let Some(l) = list {
        image_info.p_next = (l as *const vk::ImageFormatListCreateInfo<'_>).cast();
    }
    let rgba = matches!(
        info.image_format,
        vk::Format::R8G8B8A8_UNORM | vk::Format::R8G8B8A8_SRGB
    );
    let mut handles = Vec::new();
    let mut images = Vec::new();
    let fail = |handles: &[vk::Image], e: vk::Result| {
        for &h in handles {
            // SAFETY: `handles` are the images made below for this swapchain, live and never
            // handed out: the swapchain is not made, and they are not used again.
            drop(unsafe { Image::take(h) });
        }
        e
    };
    for _ in 0..info.min_image_count {
        let mut h = vk::Image::null();
        // SAFETY: `image_info` is a valid create info (its chain is the application's format
        // list or empty); `h` is writable; `device` is a live device made by this driver, as
        // guaranteed by the caller.
        let r =
            unsafe { crate::image::create_image(device, &image_info, std::ptr::null(), &mut h) };
        if r != vk::Result::SUCCESS {
            return Err(fail(&handles, r));
        }
        handles.push(h);
        // SAFETY: `h` is the image `create_image` made just above.
        let Some(img) = (unsafe { Image::from_handle(h) }) else {
            return Err(fail(&handles, vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        };
        // Cached CPU mapping: the presenter reads every presented image.
        let bo = match Bo::new(dev, img.size, Place::Heap, true) {
            Ok(b) => b,
            Err(e) => return Err(fail(&handles, e)),
        };
        img.va.store(bo.va, Ordering::Release);
        images.push(SwapImage {
            bo,
            layout: img.layout.clone(),
            rgba,
        });
    }
    Ok((handles, images))
}

/// vkCreateSwapchainKHR's work: the swapchain `info` describes, on `device`.
///
/// # Safety
/// `device` must be `VK_NULL_HANDLE` or a live device made by this driver; `info.surface` must
/// be `VK_NULL_HANDLE` or a live surface made by this driver, not destroyed before the
/// swapchain; `info.old_swapchain` must be `VK_NULL_HANDLE` or a live swapchain made by this
/// driver; `info`'s pNext chain must be null or a valid chain of Vulkan structures. None may be
/// destroyed during the call. vkCreateSwapchainKHR's device and create info are such (Vulkan
/// valid usage).
unsafe fn create(
    device: vk::Device,
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<Swapchain, vk::Result> {
    // SAFETY: guaranteed by the caller: `device` is null or a live device made by this driver
    // that outlives the call.
    let dev = unsafe { Device::get(device) }?;
    // The old swapchain is retired even if this one cannot be made.
    // SAFETY: guaranteed by the caller: `info.old_swapchain` is VK_NULL_HANDLE or a live
    // swapchain made by this driver.
    if let Some(old) = unsafe { Swapchain::from_handle(info.old_swapchain) } {
        old.shared.state().retired = true;
        old.shared.changed.notify_all();
    }
    // SAFETY: guaranteed by the caller: `info.surface` is null or a live surface made by this
    // driver, not destroyed before the swapchain.
    let surface = unsafe { Surface::get(info.surface) }?;
    let e = info.image_extent;
    if !FORMATS.contains(&info.image_format)
        || e.width == 0
        || e.height == 0
        || info.min_image_count == 0
        || info.min_image_count > MAX_IMAGES
        || info.image_array_layers != 1
    {
        eprintln!(
            "agx4: vkCreateSwapchainKHR: unsupported parameters ({:?}, {}x{}, {} images, {} layers)",
            info.image_format, e.width, e.height, info.min_image_count, info.image_array_layers
        );
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    let backend: Box<dyn Backend> = match &surface.platform {
        Platform::X11(w) => Box::new(x11::Presenter::new(w.clone(), e)?),
        Platform::Wayland(w) => Box::new(wayland::Presenter::new(w, e, info.present_mode)?),
        Platform::Headless => Box::new(headless::Presenter),
    };
    let timeline = kmd::syncobj_create(dev.kmd.as_ref(), false)
        .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    // SAFETY: `device` is a live device made by this driver (`Device::get` found it non-null,
    // and the caller guarantees such a handle live), and `dev` is it; the caller guarantees
    // `info`'s pNext chain valid.
    let (handles, images) = match unsafe { make_images(dev, device, info) } {
        Ok(v) => v,
        Err(err) => {
            let _ = kmd::syncobj_destroy(dev.kmd.as_ref(), timeline);
            return Err(err);
        }
    };
    let shared = Arc::new(Shared {
        kmd: dev.kmd.clone(),
        timeline,
        mode: info.present_mode,
        extent: e,
        platform: surface.platform.clone(),
        images,
        state: Mutex::new(State {
            free: (0..handles.len() as u32).collect(),
            queue: VecDeque::new(),
            status: vk::Result::SUCCESS,
            retired: false,
            stop: false,
            point: 0,
        }),
        changed: Condvar::new(),
    });
    let mut sc = Swapchain {
        shared: shared.clone(),
        handles,
        presenter: None,
    };
    let thread = std::thread::Builder::new()
        .name("agx4-present".into())
        .spawn(move || shared.run(backend))
        // Dropping `sc` destroys the images and the timeline.
        .map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    sc.presenter = Some(thread);
    Ok(sc)
}

pub unsafe extern "system" fn create_swapchain(
    device: vk::Device,
    p_create_info: *const vk::SwapchainCreateInfoKHR<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_swapchain: *mut vk::SwapchainKHR,
) -> vk::Result {
    crate::entry::guard("vkCreateSwapchainKHR", || {
        // SAFETY: valid usage: pCreateInfo points to a valid structure, whose surface and
        // oldSwapchain are a live surface made by this driver and VK_NULL_HANDLE or a live
        // swapchain made by this driver, and whose pNext chain is valid; `device` is
        // vkCreateSwapchainKHR's device parameter, which valid usage requires to be a live device
        // made by this driver.
        let sc = unsafe { create(device, &*p_create_info) }?;
        // SAFETY: valid usage: pAllocator null or valid.
        let h = unsafe { sc.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pSwapchain is writable.
        unsafe { *p_swapchain = h };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_swapchain(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroySwapchainKHR", (), || {
        // SAFETY: Vulkan valid usage: `swapchain` is VK_NULL_HANDLE or a live swapchain made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { Swapchain::take(swapchain) })
    })
}

pub unsafe extern "system" fn get_swapchain_images(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    p_count: *mut u32,
    p_images: *mut vk::Image,
) -> vk::Result {
    guard_or("vkGetSwapchainImagesKHR", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: Vulkan valid usage: `swapchain` is a live swapchain made by this driver.
        let Some(sc) = (unsafe { Swapchain::from_handle(swapchain) }) else {
            return vk::Result::ERROR_UNKNOWN;
        };
        // SAFETY: valid usage: the count pointer is valid, the array null or sized.
        unsafe { handle::fill_array(&sc.handles, p_count, p_images) }
    })
}

/// vkAcquireNextImageKHR's work: SUCCESS or SUBOPTIMAL_KHR with an index, or the result.
///
/// # Safety
/// `device` must be `VK_NULL_HANDLE` or a live device made by this driver, `swapchain`
/// `VK_NULL_HANDLE` or a live swapchain made by this driver, and `semaphore` and `fence` each
/// `VK_NULL_HANDLE` or a live semaphore or fence made by this driver; none may be destroyed
/// during the call. The handles of vkAcquireNextImageKHR, or of vkAcquireNextImage2KHR's
/// acquire info, are such (Vulkan valid usage).
unsafe fn acquire(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
) -> Result<(vk::Result, u32), vk::Result> {
    // SAFETY: guaranteed by the caller: `device` is null or a live device made by this driver
    // that outlives the call.
    let dev = unsafe { Device::get(device) }?;
    if dev.is_lost() {
        return Err(vk::Result::ERROR_DEVICE_LOST);
    }
    // SAFETY: guaranteed by the caller: `swapchain` is null or a live swapchain made by this
    // driver that outlives the call.
    let sc = unsafe { Swapchain::from_handle(swapchain) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let shared = &sc.shared;
    if shared.state().retired {
        return Err(vk::Result::ERROR_OUT_OF_DATE_KHR);
    }
    let result = shared.check()?;
    let deadline = (timeout != u64::MAX)
        .then(|| Instant::now().checked_add(Duration::from_nanos(timeout)))
        .flatten();
    let mut st = shared.state();
    let index = loop {
        // The status this call's own check set (out of date, reported as suboptimal this
        // once) does not stop it.
        let own =
            result == vk::Result::SUBOPTIMAL_KHR && st.status == vk::Result::ERROR_OUT_OF_DATE_KHR;
        if st.status != vk::Result::SUCCESS && !own {
            return Err(st.status);
        }
        if st.retired {
            return Err(vk::Result::ERROR_OUT_OF_DATE_KHR);
        }
        if let Some(i) = st.free.pop_front() {
            break i;
        }
        if timeout == 0 {
            return Err(vk::Result::NOT_READY);
        }
        st = match deadline {
            None => shared.changed.wait(st).unwrap_or_else(|e| e.into_inner()),
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    return Err(vk::Result::TIMEOUT);
                }
                shared
                    .changed
                    .wait_timeout(st, d - now)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|e| e.into_inner().0)
            }
        };
    };
    drop(st);
    // The image is free: nothing reads it any more, so its semaphore and fence signal now.
    let mut syncobjs = Vec::new();
    // SAFETY: guaranteed by the caller: `semaphore` is VK_NULL_HANDLE or a live semaphore made
    // by this driver.
    syncobjs.extend(unsafe { Semaphore::from_handle(semaphore) }.map(|s| s.active()));
    // SAFETY: guaranteed by the caller: `fence` is VK_NULL_HANDLE or a live fence made by this
    // driver.
    syncobjs.extend(unsafe { Fence::from_handle(fence) }.map(|f| f.active()));
    if let Err(e) = super::signal_binary(dev.kmd.as_ref(), &syncobjs) {
        shared.release(index);
        return Err(e);
    }
    Ok((result, index))
}

pub unsafe extern "system" fn acquire_next_image(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    p_index: *mut u32,
) -> vk::Result {
    guard_or("vkAcquireNextImageKHR", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: `device`, `swapchain`, `semaphore` and `fence` are vkAcquireNextImageKHR's
        // parameters, which valid usage requires to be a live device made by this driver, a live
        // swapchain made from it, and VK_NULL_HANDLE or a live semaphore and fence made from it.
        match unsafe { acquire(device, swapchain, timeout, semaphore, fence) } {
            Ok((r, i)) => {
                // SAFETY: valid usage: pImageIndex is writable.
                unsafe { *p_index = i };
                r
            }
            Err(e) => e,
        }
    })
}

/// vkAcquireNextImage2KHR (VK_KHR_device_group): the device mask can only name device 0.
pub unsafe extern "system" fn acquire_next_image2(
    device: vk::Device,
    p_info: *const vk::AcquireNextImageInfoKHR<'_>,
    p_index: *mut u32,
) -> vk::Result {
    guard_or("vkAcquireNextImage2KHR", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: valid usage: pAcquireInfo points to a valid structure.
        let info = unsafe { &*p_info };
        // SAFETY: `device` is vkAcquireNextImage2KHR's device parameter, and `info.swapchain`,
        // `info.semaphore` and `info.fence` are those of its acquire info; valid usage requires
        // them to be a live device made by this driver, a live swapchain made from it, and
        // VK_NULL_HANDLE or a live semaphore and fence made from it.
        match unsafe {
            acquire(
                device,
                info.swapchain,
                info.timeout,
                info.semaphore,
                info.fence,
            )
        } {
            Ok((r, i)) => {
                // SAFETY: valid usage: pImageIndex is writable.
                unsafe { *p_index = i };
                r
            }
            Err(e) => e,
        }
    })
}

/// The worse of two present results: errors over SUBOPTIMAL over SUCCESS.
fn worse(a: vk::Result, b: vk::Result) -> vk::Result {
    let rank = |r: vk::Result| match r {
        vk::Result::SUCCESS => 0,
        vk::Result::SUBOPTIMAL_KHR => 1,
        _ => 2,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

pub unsafe extern "system" fn queue_present(
    queue: vk::Queue,
    p_info: *const vk::PresentInfoKHR<'_>,
) -> vk::Result {
    guard_or("vkQueuePresentKHR", vk::Result::ERROR_UNKNOWN, || {
        // SAFETY: Vulkan valid usage: `queue` is a live queue made by this driver.
        let Some(q) = (unsafe { Queue::from_handle(queue) }) else {
            return vk::Result::ERROR_UNKNOWN;
        };
        // SAFETY: valid usage: pPresentInfo is valid with arrays of the counts it gives.
        let (info, waits, chains, indices) = unsafe {
            let info = &*p_info;
            (
                info,
                handle::slice(info.p_wait_semaphores, info.wait_semaphore_count),
                handle::slice(info.p_swapchains, info.swapchain_count),
                handle::slice(info.p_image_indices, info.swapchain_count),
            )
        };
        // SAFETY: valid usage: the pNext chain is valid.
        let regions = unsafe { handle::find_in_chain::<vk::PresentRegionsKHR<'_>>(info.p_next) };
        let damage_of = |i: usize| -> Vec<vk::Rect2D> {
            let Some(r) = regions.filter(|r| !r.p_regions.is_null()) else {
                return Vec::new();
            };
            // SAFETY: valid usage: pRegions holds swapchainCount regions, each with
            // rectangleCount rectangles (or a null array).
            let rects = unsafe {
                let region = &*r.p_regions.add(i);
                handle::slice(region.p_rectangles, region.rectangle_count)
            };
            // Swapchain images have one layer.
            rects
                .iter()
                .filter(|r| r.layer == 0)
                .map(|r| vk::Rect2D {
                    offset: r.offset,
                    extent: r.extent,
                })
                .collect()
        };
        let mut results = Vec::with_capacity(chains.len());
        let mut requests = Vec::with_capacity(chains.len());
        let mut signals = Vec::with_capacity(chains.len());
        for (i, (&h, &index)) in chains.iter().zip(indices).enumerate() {
            // SAFETY: Vulkan valid usage: each of `pSwapchains` is a live swapchain made by this
            // driver.
            let Some(sc) = (unsafe { Swapchain::from_handle(h) }) else {
                return vk::Result::ERROR_UNKNOWN;
            };
            let r = sc.shared.check();
            let mut st = sc.shared.state();
            st.point += 1;
            let point = st.point;
            drop(st);
            signals.push(SyncPoint {
                syncobj: sc.shared.timeline,
                value: point,
            });
            requests.push((
                sc,
                Request {
                    index,
                    point,
                    show: r.is_ok(),
                    damage: damage_of(i),
                },
            ));
            results.push(r.unwrap_or_else(|e| e));
        }
        let wait_points: Vec<SyncPoint> = waits
            .iter()
            // SAFETY: Vulkan valid usage: each of `pWaitSemaphores` is a live semaphore made by
            // this driver.
            .filter_map(|&s| unsafe { Semaphore::from_handle(s) })
            .map(|s| SyncPoint {
                syncobj: s.active(),
                value: 0,
            })
            .collect();
        // Even a refused present runs its semaphore waits (the spec counts it as enqueued),
        // and its image goes back to the swapchain once they are done.
        if let Err(e) = q.submit_signals(wait_points, signals) {
            return e;
        }
        for (sc, req) in requests {
            sc.shared.state().queue.push_back(req);
            sc.shared.changed.notify_all();
        }
        if !info.p_results.is_null() {
            for (i, r) in results.iter().enumerate() {
                // SAFETY: valid usage: pResults holds swapchainCount results.
                unsafe { *info.p_results.add(i) = *r };
            }
        }
        results.into_iter().fold(vk::Result::SUCCESS, worse)
    })
}
