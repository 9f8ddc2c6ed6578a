//! VkSurfaceKHR: agx4's surface objects (one per platform surface the loader asks for) and
//! what the surface queries report.

use super::{wayland, x11};
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use ash::vk;
use std::sync::Arc;

#[derive(Clone)]
pub enum Platform {
    X11(Arc<x11::Window>),
    Wayland(Arc<wayland::Window>),
    Headless,
}

pub struct Surface {
    pub platform: Platform,
}
object!(Surface, vk::SurfaceKHR);

/// Fewest images a swapchain has: one shown, one being drawn.
pub const MIN_IMAGES: u32 = 2;
/// Most images a swapchain may have.
pub const MAX_IMAGES: u32 = 16;
/// Largest image side (the 2D image limit).
const MAX_EXTENT: u32 = 16384;

/// The formats a swapchain may have, all in the sRGB colour space; the first is the
/// preferred one. Every window agx4 draws into has 8-bit channels, and the copy back ends
/// swap the channels as the window needs, so both orders are as cheap.
pub const FORMATS: [vk::Format; 4] = [
    vk::Format::B8G8R8A8_SRGB,
    vk::Format::B8G8R8A8_UNORM,
    vk::Format::R8G8B8A8_SRGB,
    vk::Format::R8G8B8A8_UNORM,
];

/// Every present mode is paced by the presenter thread (swapchain.rs).
pub const PRESENT_MODES: [vk::PresentModeKHR; 4] = [
    vk::PresentModeKHR::FIFO,
    vk::PresentModeKHR::FIFO_RELAXED,
    vk::PresentModeKHR::MAILBOX,
    vk::PresentModeKHR::IMMEDIATE,
];

/// The usages swapchain images can have: what agx4's optimal-tiled images of every swapchain
/// format support, less transient attachment (a presented image is not transient).
pub fn image_usage() -> vk::ImageUsageFlags {
    FORMATS
        .iter()
        .fold(vk::ImageUsageFlags::from_raw(!0), |u, &f| {
            u & crate::image::supported_usage(f, vk::ImageTiling::OPTIMAL)
        })
        & !vk::ImageUsageFlags::TRANSIENT_ATTACHMENT
}

impl Surface {
    /// The surface behind a handle; `VK_ERROR_SURFACE_LOST_KHR` for `VK_NULL_HANDLE`.
    ///
    /// # Safety
    /// `h` must be `VK_NULL_HANDLE` or a live surface made by this driver, and the surface must
    /// not be destroyed while the returned reference is in use. The `surface` of a surface query
    /// or of vkCreateSwapchainKHR is such a handle (Vulkan valid usage).
    pub unsafe fn get<'a>(h: vk::SurfaceKHR) -> Result<&'a Surface, vk::Result> {
        // SAFETY: guaranteed by the caller: `h` is null or a live surface made by this driver
        // that outlives the returned reference.
        unsafe { Surface::from_handle(h) }.ok_or(vk::Result::ERROR_SURFACE_LOST_KHR)
    }

    /// The surface's size now, or `None` when the swapchain decides it (headless, and
    /// Wayland, whose surfaces take the size of the buffers attached to them).
    pub fn current_extent(&self) -> Result<Option<vk::Extent2D>, vk::Result> {
        match &self.platform {
            Platform::X11(w) => w.extent().map(Some),
            Platform::Wayland(w) => w.check().map(|_| None),
            Platform::Headless => Ok(None),
        }
    }

    /// Whether agx4 can present to the surface at all (an X11 window must have a visual it
    /// can draw into).
    fn supported(&self) -> Result<bool, vk::Result> {
        match &self.platform {
            Platform::X11(w) => Ok(w.format()?.is_some()),
            Platform::Wayland(_) => Ok(wayland::library_available()),
            Platform::Headless => Ok(true),
        }
    }

    fn capabilities(&self) -> Result<vk::SurfaceCapabilitiesKHR, vk::Result> {
        let (current, min, max) = match self.current_extent()? {
            // An X11 window's swapchain has the window's size.
            Some(e) => (e, e, e),
            None => (
                vk::Extent2D {
                    width: u32::MAX,
                    height: u32::MAX,
                },
                vk::Extent2D {
                    width: 1,
                    height: 1,
                },
                vk::Extent2D {
                    width: MAX_EXTENT,
                    height: MAX_EXTENT,
                },
            ),
        };
        Ok(vk::SurfaceCapabilitiesKHR {
            min_image_count: MIN_IMAGES,
            max_image_count: MAX_IMAGES,
            current_extent: current,
            min_image_extent: min,
            max_image_extent: max,
            max_image_array_layers: 1,
            supported_transforms: vk::SurfaceTransformFlagsKHR::IDENTITY,
            current_transform: vk::SurfaceTransformFlagsKHR::IDENTITY,
            // The copy back ends write opaque pixels whatever the image's alpha.
            supported_composite_alpha: vk::CompositeAlphaFlagsKHR::OPAQUE,
            supported_usage_flags: image_usage(),
        })
    }
}

// --- Creation -------------------------------------------------------------------------------

/// # Safety
/// `p_allocator` null or valid; `p_surface` writable.
unsafe fn make(
    platform: Platform,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_surface: *mut vk::SurfaceKHR,
) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller.
    let h = unsafe {
        Surface { platform }.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
    }?;
    // SAFETY: guaranteed by the caller.
    unsafe { *p_surface = h };
    Ok(())
}

pub unsafe extern "system" fn create_xcb_surface(
    _instance: vk::Instance,
    p_create_info: *const vk::XcbSurfaceCreateInfoKHR<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_surface: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard("vkCreateXcbSurfaceKHR", || {
        // SAFETY: valid usage: pCreateInfo is valid and its connection live.
        let info = unsafe { &*p_create_info };
        // SAFETY: valid usage: the connection outlives the surface.
        let window = Arc::new(unsafe { x11::Window::new(info.connection.cast(), info.window) });
        // SAFETY: valid usage: pAllocator null or valid, pSurface writable.
        unsafe { make(Platform::X11(window), p_allocator, p_surface) }
    })
}

pub unsafe extern "system" fn create_xlib_surface(
    _instance: vk::Instance,
    p_create_info: *const vk::XlibSurfaceCreateInfoKHR<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_surface: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard("vkCreateXlibSurfaceKHR", || {
        // SAFETY: valid usage: pCreateInfo is valid and its display live.
        let info = unsafe { &*p_create_info };
        // Without libX11-xcb the surface exists but is lost at once.
        let xcb = x11::xcb_of_display(info.dpy.cast()).unwrap_or(std::ptr::null_mut());
        // SAFETY: the display's xcb connection lives as long as the display, which valid
        // usage keeps open while the surface exists. X11 window ids are 29-bit values in an
        // unsigned long.
        let window = Arc::new(unsafe { x11::Window::new(xcb, info.window as u32) });
        // SAFETY: valid usage: pAllocator null or valid, pSurface writable.
        unsafe { make(Platform::X11(window), p_allocator, p_surface) }
    })
}

pub unsafe extern "system" fn create_wayland_surface(
    _instance: vk::Instance,
    p_create_info: *const vk::WaylandSurfaceCreateInfoKHR<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_surface: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard("vkCreateWaylandSurfaceKHR", || {
        // SAFETY: valid usage: pCreateInfo is valid.
        let info = unsafe { &*p_create_info };
        // SAFETY: valid usage: the display and surface outlive the VkSurfaceKHR.
        let window =
            Arc::new(unsafe { wayland::Window::new(info.display.cast(), info.surface.cast()) });
        // SAFETY: valid usage: pAllocator null or valid, pSurface writable.
        unsafe { make(Platform::Wayland(window), p_allocator, p_surface) }
    })
}

pub unsafe extern "system" fn create_headless_surface(
    _instance: vk::Instance,
    _p_create_info: *const vk::HeadlessSurfaceCreateInfoEXT<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_surface: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard("vkCreateHeadlessSurfaceEXT", || {
        // SAFETY: valid usage: pAllocator null or valid, pSurface writable.
        unsafe { make(Platform::Headless, p_allocator, p_surface) }
    })
}

pub unsafe extern "system" fn destroy_surface(
    _instance: vk::Instance,
    surface: vk::SurfaceKHR,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroySurfaceKHR", (), || {
        // SAFETY: Vulkan valid usage: `surface` is VK_NULL_HANDLE or a live surface made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Surface::take(surface) })
    })
}

// --- Queries -------------------------------------------------------------------------------

pub unsafe extern "system" fn get_surface_support(
    _physical_device: vk::PhysicalDevice,
    queue_family_index: u32,
    surface: vk::SurfaceKHR,
    p_supported: *mut vk::Bool32,
) -> vk::Result {
    guard("vkGetPhysicalDeviceSurfaceSupportKHR", || {
        // The one queue family presents (its queue runs the presents' semaphore waits).
        let ok = queue_family_index == 0
            // SAFETY: `surface` is vkGetPhysicalDeviceSurfaceSupportKHR's surface parameter,
            // which valid usage requires to be a live surface made by this driver.
            && unsafe { Surface::get(surface) }?.supported()?;
        // SAFETY: valid usage: pSupported is writable.
        unsafe { *p_supported = ok.into() };
        Ok(())
    })
}

pub unsafe extern "system" fn get_surface_capabilities(
    _physical_device: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    p_caps: *mut vk::SurfaceCapabilitiesKHR,
) -> vk::Result {
    guard("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", || {
        // SAFETY: `surface` is vkGetPhysicalDeviceSurfaceCapabilitiesKHR's surface parameter,
        // which valid usage requires to be a live surface made by this driver.
        let caps = unsafe { Surface::get(surface) }?.capabilities()?;
        // SAFETY: valid usage: pSurfaceCapabilities is writable.
        unsafe { *p_caps = caps };
        Ok(())
    })
}

pub unsafe extern "system" fn get_surface_capabilities2(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    p_caps: *mut vk::SurfaceCapabilities2KHR<'_>,
) -> vk::Result {
    guard("vkGetPhysicalDeviceSurfaceCapabilities2KHR", || {
        // SAFETY: valid usage: pSurfaceInfo is valid, and its `surface` is a live surface made
        // by this driver. No extension structure agx4 knows can be chained to either
        // structure, so only the core capabilities are written.
        let caps = unsafe { Surface::get((*p_info).surface) }?.capabilities()?;
        // SAFETY: valid usage: pSurfaceCapabilities is writable.
        unsafe { (*p_caps).surface_capabilities = caps };
        Ok(())
    })
}

fn surface_formats() -> Vec<vk::SurfaceFormatKHR> {
    FORMATS
        .iter()
        .map(|&format| vk::SurfaceFormatKHR {
            format,
            color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR,
        })
        .collect()
}

pub unsafe extern "system" fn get_surface_formats(
    _physical_device: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    p_count: *mut u32,
    p_formats: *mut vk::SurfaceFormatKHR,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceSurfaceFormatsKHR",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `surface` is vkGetPhysicalDeviceSurfaceFormatsKHR's surface parameter,
            // which valid usage requires to be a live surface made by this driver.
            if let Err(e) = unsafe { Surface::get(surface) } {
                return e;
            }
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array(&surface_formats(), p_count, p_formats) }
        },
    )
}

pub unsafe extern "system" fn get_surface_formats2(
    _physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    p_count: *mut u32,
    p_formats: *mut vk::SurfaceFormat2KHR<'_>,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceSurfaceFormats2KHR",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: valid usage: pSurfaceInfo is valid, and its `surface` is a live surface
            // made by this driver.
            if let Err(e) = unsafe { Surface::get((*p_info).surface) } {
                return e;
            }
            let formats = surface_formats();
            // SAFETY: valid usage: the count pointer is valid; the array is null or holds
            // *p_count structures whose sType/pNext the caller set, so only the payload is
            // written.
            unsafe {
                if p_formats.is_null() {
                    *p_count = formats.len() as u32;
                    return vk::Result::SUCCESS;
                }
                let n = (*p_count as usize).min(formats.len());
                for (i, f) in formats.iter().take(n).enumerate() {
                    (*p_formats.add(i)).surface_format = *f;
                }
                *p_count = n as u32;
                if n < formats.len() {
                    vk::Result::INCOMPLETE
                } else {
                    vk::Result::SUCCESS
                }
            }
        },
    )
}

pub unsafe extern "system" fn get_surface_present_modes(
    _physical_device: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    p_count: *mut u32,
    p_modes: *mut vk::PresentModeKHR,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceSurfacePresentModesKHR",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `surface` is vkGetPhysicalDeviceSurfacePresentModesKHR's surface
            // parameter, which valid usage requires to be a live surface made by this driver.
            if let Err(e) = unsafe { Surface::get(surface) } {
                return e;
            }
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array(&PRESENT_MODES, p_count, p_modes) }
        },
    )
}

/// vkGetPhysicalDevicePresentRectanglesKHR (VK_KHR_device_group with VK_KHR_surface): the
/// one device presents the whole surface.
pub unsafe extern "system" fn get_present_rectangles(
    _physical_device: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    p_count: *mut u32,
    p_rects: *mut vk::Rect2D,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDevicePresentRectanglesKHR",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `surface` is vkGetPhysicalDevicePresentRectanglesKHR's surface parameter,
            // which valid usage requires to be a live surface made by this driver.
            let extent = match unsafe { Surface::get(surface) }.and_then(|s| s.current_extent()) {
                Ok(e) => e,
                Err(e) => return e,
            };
            // A surface without a size of its own (headless) has no fixed rectangle: the
            // largest one a swapchain can have stands for "any".
            let extent = extent.unwrap_or(vk::Extent2D {
                width: MAX_EXTENT,
                height: MAX_EXTENT,
            });
            let rect = vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent,
            };
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array(&[rect], p_count, p_rects) }
        },
    )
}

pub unsafe extern "system" fn get_xcb_presentation_support(
    _physical_device: vk::PhysicalDevice,
    queue_family_index: u32,
    connection: *mut vk::xcb_connection_t,
    visual_id: vk::xcb_visualid_t,
) -> vk::Bool32 {
    guard_or(
        "vkGetPhysicalDeviceXcbPresentationSupportKHR",
        vk::FALSE,
        || {
            // SAFETY: valid usage: the connection is live for the call.
            let Ok(conn) = (unsafe { x11::wrap(connection.cast()) }) else {
                return vk::FALSE;
            };
            use x11rb::connection::Connection as _;
            (queue_family_index == 0 && x11::visual_format(conn.setup(), visual_id).is_some())
                .into()
        },
    )
}

pub unsafe extern "system" fn get_xlib_presentation_support(
    _physical_device: vk::PhysicalDevice,
    queue_family_index: u32,
    dpy: *mut vk::Display,
    visual_id: vk::VisualID,
) -> vk::Bool32 {
    guard_or(
        "vkGetPhysicalDeviceXlibPresentationSupportKHR",
        vk::FALSE,
        || {
            let Some(xcb) = x11::xcb_of_display(dpy.cast()) else {
                return vk::FALSE;
            };
            // SAFETY: the display's connection is live while the display is (valid usage).
            let Ok(conn) = (unsafe { x11::wrap(xcb) }) else {
                return vk::FALSE;
            };
            use x11rb::connection::Connection as _;
            // ash declares VisualID as C unsigned int (Xlib: unsigned long); X11 visual ids
            // are 32-bit values, so the low 32 bits are the id either way.
            let visual = visual_id;
            (queue_family_index == 0 && x11::visual_format(conn.setup(), visual).is_some()).into()
        },
    )
}

/// Any wl_display will do: every compositor has wl_shm with XRGB8888, which is all agx4 needs.
pub unsafe extern "system" fn get_wayland_presentation_support(
    _physical_device: vk::PhysicalDevice,
    queue_family_index: u32,
    display: *mut vk::wl_display,
) -> vk::Bool32 {
    guard_or(
        "vkGetPhysicalDeviceWaylandPresentationSupportKHR",
        vk::FALSE,
        || (queue_family_index == 0 && !display.is_null() && wayland::library_available()).into(),
    )
}

/// vkGetDeviceGroupSurfacePresentModesKHR: the one device presents its own images.
pub unsafe extern "system" fn get_device_group_surface_present_modes(
    _device: vk::Device,
    surface: vk::SurfaceKHR,
    p_modes: *mut vk::DeviceGroupPresentModeFlagsKHR,
) -> vk::Result {
    guard("vkGetDeviceGroupSurfacePresentModesKHR", || {
        // SAFETY: `surface` is vkGetDeviceGroupSurfacePresentModesKHR's surface parameter,
        // which valid usage requires to be a live surface made by this driver.
        unsafe { Surface::get(surface) }?;
        // SAFETY: valid usage: pModes is writable.
        unsafe { *p_modes = vk::DeviceGroupPresentModeFlagsKHR::LOCAL };
        Ok(())
    })
}

/// vkGetDeviceGroupPresentCapabilitiesKHR: device 0 presents, locally.
pub unsafe extern "system" fn get_device_group_present_capabilities(
    _device: vk::Device,
    p_caps: *mut vk::DeviceGroupPresentCapabilitiesKHR<'_>,
) -> vk::Result {
    guard("vkGetDeviceGroupPresentCapabilitiesKHR", || {
        // SAFETY: valid usage: pDeviceGroupPresentCapabilities is writable; sType/pNext stay.
        unsafe {
            (*p_caps).present_mask = [0; vk::MAX_DEVICE_GROUP_SIZE];
            (*p_caps).present_mask[0] = 1;
            (*p_caps).modes = vk::DeviceGroupPresentModeFlagsKHR::LOCAL;
        }
        Ok(())
    })
}
