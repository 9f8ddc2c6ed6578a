//! VkInstance: extension and layer checks, and the physical devices it finds.

use crate::advertised::INSTANCE_EXTENSIONS;
use crate::entry::{guard, EXTENSION_SPEC_VERSIONS};
use crate::handle::{self, object, LoaderData, Object};
use crate::physical_device::PhysicalDevice;
use ash::vk;
use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

#[repr(C)]
pub struct Instance {
    _loader: LoaderData,
    extensions: Vec<&'static str>,
    /// Found on first enumeration; owned by the instance.
    physical_devices: OnceLock<Vec<vk::PhysicalDevice>>,
}
object!(Instance, vk::Instance);

impl Instance {
    pub fn extension_enabled(&self, name: &str) -> bool {
        self.extensions.contains(&name)
    }

    fn physical_devices(&self) -> &[vk::PhysicalDevice] {
        self.physical_devices
            .get_or_init(|| match kmd_iface::open_default() {
                Ok(kmd) => match PhysicalDevice::new(kmd) {
                    Ok(pd) => vec![pd.into_handle()],
                    Err(e) => {
                        eprintln!("agx4: the GPU could not be initialised: {e}");
                        Vec::new()
                    }
                },
                Err(e) => {
                    eprintln!("agx4: no device: {e}");
                    Vec::new()
                }
            })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        for pd in self.physical_devices.take().unwrap_or_default() {
            // SAFETY: the instance made `pd` by `into_handle` and owns it; it is taken out of
            // the list here, once, when the instance is destroyed, which valid usage allows
            // only once nothing uses its physical devices.
            drop(unsafe { PhysicalDevice::take(pd) });
        }
    }
}

/// Checks that every requested extension name is one of `supported`; returns them interned.
///
/// # Safety
/// `names` must be valid for `count` NUL-terminated strings.
pub unsafe fn check_extensions(
    names: *const *const c_char,
    count: u32,
    supported: &[&'static str],
) -> Result<Vec<&'static str>, vk::Result> {
    // SAFETY: guaranteed by the caller.
    let names = unsafe { handle::slice(names, count) };
    names
        .iter()
        .map(|&n| {
            // SAFETY: each entry is a NUL-terminated string, per the caller.
            let n = unsafe { CStr::from_ptr(n) }.to_str().unwrap_or("");
            supported.iter().copied().find(|s| *s == n).ok_or_else(|| {
                eprintln!("agx4: extension {n} is not supported");
                vk::Result::ERROR_EXTENSION_NOT_PRESENT
            })
        })
        .collect()
}

pub fn extension_properties(names: &[&str]) -> Vec<vk::ExtensionProperties> {
    names
        .iter()
        .map(|n| {
            let mut p = vk::ExtensionProperties::default();
            handle::write_name(&mut p.extension_name, n);
            p.spec_version = EXTENSION_SPEC_VERSIONS
                .iter()
                .find(|(e, _)| e == n)
                .map_or(1, |(_, v)| *v);
            p
        })
        .collect()
}

pub unsafe extern "system" fn create_instance(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    guard("vkCreateInstance", || {
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        // Layers are the loader's business; an ICD that is asked for one does not have it.
        if info.enabled_layer_count > 0 {
            return Err(vk::Result::ERROR_LAYER_NOT_PRESENT);
        }
        // SAFETY: valid usage: the names array holds enabled_extension_count strings.
        let extensions = unsafe {
            check_extensions(
                info.pp_enabled_extension_names,
                info.enabled_extension_count,
                INSTANCE_EXTENSIONS,
            )?
        };
        let instance = Instance {
            _loader: LoaderData::new(),
            extensions,
            physical_devices: OnceLock::new(),
        };
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { instance.into_handle_in(p_allocator, vk::SystemAllocationScope::INSTANCE) }?;
        // SAFETY: valid usage: pInstance is writable.
        unsafe { *p_instance = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    crate::entry::guard_or("vkDestroyInstance", (), || {
        // SAFETY: Vulkan valid usage: `instance` is VK_NULL_HANDLE or a live instance made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { Instance::take(instance) })
    })
}

pub unsafe extern "system" fn enumerate_physical_devices(
    instance: vk::Instance,
    p_count: *mut u32,
    p_devices: *mut vk::PhysicalDevice,
) -> vk::Result {
    crate::entry::guard_or(
        "vkEnumeratePhysicalDevices",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: Vulkan valid usage: `instance` is a live instance made by this driver.
            let Some(inst) = (unsafe { Instance::from_handle(instance) }) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: valid usage: pPhysicalDeviceCount is valid, pPhysicalDevices null or sized.
            unsafe { handle::fill_array(inst.physical_devices(), p_count, p_devices) }
        },
    )
}

/// The instance-level Vulkan version: the one the device reports.
pub unsafe extern "system" fn enumerate_instance_version(p_api_version: *mut u32) -> vk::Result {
    crate::entry::guard_or(
        "vkEnumerateInstanceVersion",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: valid usage: pApiVersion is writable.
            unsafe {
                *p_api_version = vk::make_api_version(
                    0,
                    1,
                    crate::advertised::API_MINOR,
                    crate::entry::HEADER_VERSION,
                )
            };
            vk::Result::SUCCESS
        },
    )
}

pub unsafe extern "system" fn enumerate_instance_extension_properties(
    p_layer_name: *const c_char,
    p_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    crate::entry::guard_or(
        "vkEnumerateInstanceExtensionProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            if !p_layer_name.is_null() {
                return vk::Result::ERROR_LAYER_NOT_PRESENT;
            }
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe {
                handle::fill_array(
                    &extension_properties(INSTANCE_EXTENSIONS),
                    p_count,
                    p_properties,
                )
            }
        },
    )
}

pub unsafe extern "system" fn enumerate_instance_layer_properties(
    p_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: valid usage: the count pointer is valid, the array null or sized.
    crate::entry::guard_or(
        "vkEnumerateInstanceLayerProperties",
        vk::Result::ERROR_UNKNOWN,
        || unsafe { handle::fill_array::<vk::LayerProperties>(&[], p_count, p_properties) },
    )
}

/// vkEnumeratePhysicalDeviceGroups(KHR): one group holding the one physical device.
pub unsafe extern "system" fn enumerate_physical_device_groups(
    instance: vk::Instance,
    p_count: *mut u32,
    p_groups: *mut vk::PhysicalDeviceGroupProperties<'_>,
) -> vk::Result {
    crate::entry::guard_or(
        "vkEnumeratePhysicalDeviceGroups",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: Vulkan valid usage: `instance` is a live instance made by this driver.
            let Some(inst) = (unsafe { Instance::from_handle(instance) }) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let devices = inst.physical_devices();
            // SAFETY: valid usage: pPhysicalDeviceGroupCount is valid.
            unsafe {
                if p_groups.is_null() {
                    *p_count = devices.len() as u32;
                    return vk::Result::SUCCESS;
                }
                let n = (*p_count as usize).min(devices.len());
                for (i, pd) in devices.iter().take(n).enumerate() {
                    // SAFETY: valid usage: pPhysicalDeviceGroupProperties holds *p_count
                    // structures; only the output fields are written, so sType and pNext stay.
                    let g = &mut *p_groups.add(i);
                    g.physical_device_count = 1;
                    g.physical_devices = [vk::PhysicalDevice::null(); vk::MAX_DEVICE_GROUP_SIZE];
                    g.physical_devices[0] = *pd;
                    g.subset_allocation = vk::FALSE;
                }
                *p_count = n as u32;
                if n < devices.len() {
                    vk::Result::INCOMPLETE
                } else {
                    vk::Result::SUCCESS
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_extensions_are_refused() {
        let known = [c"VK_KHR_get_physical_device_properties2".as_ptr()];
        // SAFETY: the arrays hold valid NUL-terminated strings.
        let ok = unsafe { check_extensions(known.as_ptr(), 1, INSTANCE_EXTENSIONS) };
        assert_eq!(ok, Ok(vec!["VK_KHR_get_physical_device_properties2"]));
        let unknown = [known[0], c"VK_KHR_android_surface".as_ptr()];
        // SAFETY: as above.
        let err = unsafe { check_extensions(unknown.as_ptr(), 2, INSTANCE_EXTENSIONS) };
        assert_eq!(err, Err(vk::Result::ERROR_EXTENSION_NOT_PRESENT));
    }
}
