//! The three functions the Khronos loader looks up by name in this library.
//!
//! Loader/ICD interface version 5: the loader passes the application's `apiVersion` through
//! unchanged, finds physical-device commands with `vk_icdGetPhysicalDeviceProcAddr`, and
//! writes its dispatch pointer into the first word of each dispatchable handle.

use crate::entry::{self, guard_or, Level, Scope};
use crate::handle::Object;
use crate::instance::Instance;
use ash::vk;
use std::ffi::{c_char, CStr};

/// The newest loader interface version this driver speaks.
const ICD_INTERFACE_VERSION: u32 = 5;

/// # Safety
/// Called by the loader with a valid pointer.
#[no_mangle]
pub unsafe extern "system" fn vk_icdNegotiateLoaderICDInterfaceVersion(
    p_supported_version: *mut u32,
) -> vk::Result {
    // Read AGX4_DEBUG before any panic barrier needs it (debug::already_read).
    crate::debug::get();
    guard_or(
        "vk_icdNegotiateLoaderICDInterfaceVersion",
        vk::Result::ERROR_INCOMPATIBLE_DRIVER,
        || {
            // SAFETY: the loader passes a valid pointer holding its newest version.
            let loader_version = unsafe { &mut *p_supported_version };
            // Versions before 5 require behaviour (e.g. rejecting apiVersion > 1.0) we do not have.
            if *loader_version < ICD_INTERFACE_VERSION {
                return vk::Result::ERROR_INCOMPATIBLE_DRIVER;
            }
            *loader_version = ICD_INTERFACE_VERSION;
            vk::Result::SUCCESS
        },
    )
}

/// # Safety
/// `name` must be a NUL-terminated string; `instance` null or a live instance of this driver.
#[no_mangle]
pub unsafe extern "system" fn vk_icdGetInstanceProcAddr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    crate::debug::get();
    guard_or("vkGetInstanceProcAddr", None, || {
        if name.is_null() {
            return None;
        }
        // SAFETY: the caller passes a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name) };
        // SAFETY: guaranteed by the caller: `instance` is null or a live instance of this
        // driver.
        match unsafe { Instance::from_handle(instance) } {
            // Without an instance only the global commands are available.
            None => entry::lookup(
                name,
                &Scope {
                    api_minor: crate::advertised::API_MINOR,
                    extensions: &|_| false,
                    levels: &[Level::Global],
                },
            ),
            Some(inst) => {
                // Device commands are reachable from the instance for every device extension
                // the driver supports; the loader builds its device dispatch from them.
                let scope = Scope {
                    api_minor: crate::advertised::API_MINOR,
                    extensions: &|e| {
                        inst.extension_enabled(e)
                            || crate::advertised::DEVICE_EXTENSIONS.contains(&e)
                    },
                    levels: &[
                        Level::Global,
                        Level::Instance,
                        Level::PhysicalDevice,
                        Level::Device,
                    ],
                };
                entry::lookup(name, &scope)
            }
        }
    })
}

/// # Safety
/// `name` must be a NUL-terminated string; `instance` null or a live instance of this driver.
#[no_mangle]
pub unsafe extern "system" fn vk_icdGetPhysicalDeviceProcAddr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard_or("vk_icdGetPhysicalDeviceProcAddr", None, || {
        if name.is_null() {
            return None;
        }
        // SAFETY: the caller passes a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name) };
        // SAFETY: guaranteed by the caller (the loader): `instance` is null or a live instance of
        // this driver.
        let inst = unsafe { Instance::from_handle(instance) };
        let scope = Scope {
            api_minor: crate::advertised::API_MINOR,
            extensions: &|e| {
                crate::advertised::DEVICE_EXTENSIONS.contains(&e)
                    || inst.is_some_and(|i| i.extension_enabled(e))
            },
            levels: &[Level::PhysicalDevice],
        };
        entry::lookup(name, &scope)
    })
}
