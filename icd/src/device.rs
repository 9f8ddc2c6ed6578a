//! VkDevice: a GPU VM with the driver's address-space layout, the queues, and the heap
//! accounting.

use crate::advertised::API_MINOR;
use crate::bo::Bo;
use crate::entry::{guard, guard_or};
use crate::features;
use crate::handle::{self, object, LoaderData, Object};
use crate::memory::PAGE_SIZE;
use crate::physical_device::PhysicalDevice;
use crate::pipeline::Program;
use crate::queue::Queue;
use crate::sampler::{SamplerHeap, HEAP_ENTRIES};
use crate::va::VaAllocator;
use ash::vk;
use kmd_iface::uapi::*;
use kmd_iface::Kmd;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Shader code is addressed by 32-bit offsets from the queue's `usc_exec_base`.
const USC_WINDOW: u64 = 1 << 32;

#[repr(C)]
pub struct Device {
    _loader: LoaderData,
    pub kmd: Arc<dyn Kmd>,
    pub vm_id: u32,
    pub api_minor: u32,
    extensions: Vec<&'static str>,
    /// Start of the 4 GiB window that holds all shader code.
    pub usc_base: u64,
    /// Free VA of the general heap and of the shader window.
    pub heap_va: Arc<Mutex<VaAllocator>>,
    pub usc_va: Arc<Mutex<VaAllocator>>,
    /// The compiler back end for this GPU, if agx4 has one.
    pub target: Option<compiler::Target>,
    /// What the generation's command buffers record (`None`: agx4 does not know its
    /// control streams).
    pub emit: Option<&'static crate::emit::Emitter>,
    /// Whether shaders bounds-check buffer accesses: only when the application enabled a
    /// feature that defines out-of-range accesses (robustBufferAccess, robustBufferAccess2,
    /// nullDescriptor). Every pipeline layout carries it to the compiler.
    pub buffer_robustness: compiler::BufferRobustness,
    /// Whether the application enabled pipelineStatisticsQuery: only then do fragment shaders
    /// count their invocations (compiler `passes::count_fragment_invocations`), since without
    /// it no statistics query can exist.
    pub pipeline_statistics: bool,
    /// Meta shaders (copies, fills, fix-ups), compiled on first use.
    pub meta: Mutex<HashMap<compiler::meta::Meta, Arc<Program>>>,
    /// The render passes dynamic rendering instances run as, by description.
    pub dynamic_passes: Mutex<HashMap<crate::cmd_buffer::rendering::PassKey, vk::RenderPass>>,
    /// Hardware commands one SUBMIT may carry.
    pub max_commands: u32,
    /// The physical device's properties (IDs and pipeline cache UUID).
    pub properties: vk::PhysicalDeviceProperties,
    heap_size: u64,
    heap_used: AtomicU64,
    /// References to each shareable GEM handle (memory.rs): DRM gives a file one handle per
    /// object, so memory imported twice, or imported where it was exported, shares a handle
    /// that is closed only when the last allocation using it goes.
    pub shared_gems: Mutex<HashMap<u32, u32>>,
    /// The sampler heap every render and compute command names (sampler.rs); `None` only
    /// while the device is being dropped.
    samplers: Option<Arc<SamplerHeap>>,
    /// Set when the GPU or kernel failed in a way the device cannot recover from.
    pub lost: Arc<AtomicBool>,
    queue: Option<vk::Queue>,
}
object!(Device, vk::Device);

/// A heap reservation that is returned unless [`HeapCharge::keep`] is called.
pub struct HeapCharge<'a> {
    dev: &'a Device,
    bytes: u64,
}

impl HeapCharge<'_> {
    pub fn keep(self) {
        std::mem::forget(self);
    }
}

impl Drop for HeapCharge<'_> {
    fn drop(&mut self) {
        self.dev.uncharge_heap(self.bytes);
    }
}

/// How the device divides the VM's address range: the kernel's carve-out first, then the
/// shader window on a 4 GiB boundary, then everything else for memory objects.
struct Layout {
    kernel: (u64, u64),
    usc_base: u64,
    heap: (u64, u64),
}

fn layout(params: &drm_asahi_params_global) -> Option<Layout> {
    let align = |v: u64, a: u64| v.checked_add(a - 1).map(|v| v & !(a - 1));
    let kernel_start = align(params.vm_start, PAGE_SIZE)?;
    let kernel_end = align(
        kernel_start.checked_add(params.vm_kernel_min_size)?,
        PAGE_SIZE,
    )?;
    let usc_base = align(kernel_end, USC_WINDOW)?;
    let heap_start = usc_base.checked_add(USC_WINDOW)?;
    (heap_start < params.vm_end).then_some(Layout {
        kernel: (kernel_start, kernel_end),
        usc_base,
        heap: (heap_start, params.vm_end & !(PAGE_SIZE - 1)),
    })
}

impl Device {
    fn new(
        pd: &PhysicalDevice,
        extensions: Vec<&'static str>,
        enabled: EnabledFeatures,
    ) -> Result<Device, vk::Result> {
        let kmd = pd.kmd.clone();
        let layout = layout(&pd.params).ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        let mut vm = drm_asahi_vm_create {
            kernel_start: layout.kernel.0,
            kernel_end: layout.kernel.1,
            vm_id: 0,
            pad: 0,
        };
        kmd.vm_create(&mut vm).map_err(|e| {
            eprintln!("agx4: VM_CREATE failed: errno {e}");
            vk::Result::ERROR_INITIALIZATION_FAILED
        })?;
        let lost = Arc::new(AtomicBool::new(false));
        let destroy_vm = |kmd: &dyn Kmd| {
            let _ = kmd.vm_destroy(&drm_asahi_vm_destroy {
                vm_id: vm.vm_id,
                pad: 0,
            });
        };
        let heap_va = Arc::new(Mutex::new(VaAllocator::new(layout.heap.0, layout.heap.1)));
        // The sampler heap exists before the queue, which names it in every command.
        let samplers = match Bo::new_in(
            kmd.clone(),
            vm.vm_id,
            heap_va.clone(),
            SamplerHeap::bytes(),
            false,
        ) {
            Ok(bo) => Arc::new(SamplerHeap::new(bo)),
            Err(_) => {
                destroy_vm(kmd.as_ref());
                return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
            }
        };
        let queue = match Queue::new(
            kmd.clone(),
            vm.vm_id,
            layout.usc_base,
            lost.clone(),
            pd.params.max_commands_per_submission.max(1),
            (samplers.va(), HEAP_ENTRIES),
        ) {
            Ok(q) => q,
            Err(e) => {
                drop(samplers);
                destroy_vm(kmd.as_ref());
                return Err(e);
            }
        };
        Ok(Device {
            _loader: LoaderData::new(),
            kmd,
            vm_id: vm.vm_id,
            api_minor: API_MINOR,
            extensions,
            usc_base: layout.usc_base,
            heap_va,
            // Offset 0 of the window is left unused so no valid USC address is 0.
            usc_va: Arc::new(Mutex::new(VaAllocator::new(
                layout.usc_base + PAGE_SIZE,
                layout.usc_base + USC_WINDOW,
            ))),
            target: compiler::Target::for_generation(pd.identity.generation),
            emit: crate::emit::for_generation(pd.identity.generation),
            buffer_robustness: enabled.buffer_robustness,
            pipeline_statistics: enabled.pipeline_statistics,
            meta: Mutex::new(HashMap::new()),
            dynamic_passes: Mutex::new(HashMap::new()),
            max_commands: pd.params.max_commands_per_submission.max(1),
            properties: pd.properties,
            heap_size: pd.heap_size,
            heap_used: AtomicU64::new(0),
            shared_gems: Mutex::default(),
            samplers: Some(samplers),
            lost,
            queue: Some(queue.into_handle()),
        })
    }

    /// What this device's command buffers record; `VK_ERROR_UNKNOWN` for a generation whose
    /// control streams agx4 does not know (where no pipeline can be made either, as for a
    /// missing compiler back end).
    pub fn emitter(&self) -> Result<&'static crate::emit::Emitter, vk::Result> {
        self.emit.ok_or_else(|| {
            eprintln!("agx4: no control stream encoding for this GPU generation");
            vk::Result::ERROR_UNKNOWN
        })
    }

    /// The device behind a handle an entry point was given; `VK_ERROR_UNKNOWN` for
    /// `VK_NULL_HANDLE`.
    ///
    /// # Safety
    /// `handle` must be `VK_NULL_HANDLE` or a live device made by this driver, and the device
    /// must not be destroyed while the returned reference is in use. An entry point's `device`
    /// parameter is such a handle (Vulkan valid usage), and so is the device a live child
    /// object was made from (valid usage destroys children before their device).
    pub unsafe fn get<'a>(handle: vk::Device) -> Result<&'a Device, vk::Result> {
        // SAFETY: guaranteed by the caller: `handle` is null or a live device made by this
        // driver that outlives the returned reference.
        unsafe { Device::from_handle(handle) }.ok_or(vk::Result::ERROR_UNKNOWN)
    }

    pub fn extension_enabled(&self, name: &str) -> bool {
        self.extensions.contains(&name)
    }

    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    pub fn va_alloc(&self, size: u64, align: u64) -> Option<u64> {
        self.heap_va
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(size, align)
    }

    pub fn va_free(&self, addr: u64, size: u64) {
        self.heap_va
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .free(addr, size)
    }

    /// Reserves `bytes` of the heap, or fails with `VK_ERROR_OUT_OF_DEVICE_MEMORY`.
    pub fn charge_heap(&self, bytes: u64) -> Result<HeapCharge<'_>, vk::Result> {
        self.heap_used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes)
                    .filter(|&total| total <= self.heap_size)
            })
            .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        Ok(HeapCharge { dev: self, bytes })
    }

    /// Bytes of the one memory heap: no memory object, so no resource, can be larger.
    pub fn heap_size(&self) -> u64 {
        self.heap_size
    }

    pub fn uncharge_heap(&self, bytes: u64) {
        self.heap_used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// The device's sampler heap.
    pub fn samplers(&self) -> Result<&Arc<SamplerHeap>, vk::Result> {
        self.samplers.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)
    }

    pub fn queue(&self) -> Option<&Queue> {
        // SAFETY: `self.queue` is the queue made by `into_handle` in `Device::new`; it lives until
        // the device is dropped, and the result borrows the device.
        self.queue.and_then(|q| unsafe { Queue::from_handle(q) })
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // The queue's worker must stop before the VM it submits to goes away.
        if let Some(q) = self.queue.take() {
            // SAFETY: the device made its queue by `into_handle` and owns it; it is taken out of
            // `self.queue` here, once, and valid usage allows no further use of it once the
            // device is destroyed.
            drop(unsafe { Queue::take(q) });
        }
        // Meta shader code is GPU memory in this VM: release it while the VM exists.
        self.meta.lock().unwrap_or_else(|e| e.into_inner()).clear();
        // So is the sampler heap (valid usage: every sampler is destroyed by now).
        drop(self.samplers.take());
        for (_, pass) in self
            .dynamic_passes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            // SAFETY: the device made its dynamic rendering passes by `into_handle` and owns
            // them; each is drained from the map here, once, and valid usage allows no command
            // buffer or pipeline that uses one to outlive the device.
            drop(unsafe { crate::render_pass::RenderPass::take(pass) });
        }
        let _ = self.kmd.vm_destroy(&drm_asahi_vm_destroy {
            vm_id: self.vm_id,
            pad: 0,
        });
    }
}

/// The enabled features that change how shaders are compiled.
struct EnabledFeatures {
    buffer_robustness: compiler::BufferRobustness,
    pipeline_statistics: bool,
}

/// Checks the features requested at device creation against what agx4 supports.
///
/// # Safety
/// `info` must be a valid VkDeviceCreateInfo with a valid pNext chain.
unsafe fn check_features(
    pd: &PhysicalDevice,
    info: &vk::DeviceCreateInfo<'_>,
) -> Result<EnabledFeatures, vk::Result> {
    let supported = pd.features();
    // Shaders bounds-check buffer accesses only when some enabled feature defines what an
    // access out of range (or through a null descriptor) does.
    let mut robust = false;
    let mut statistics = false;
    // SAFETY: guaranteed by the caller.
    if let Some(f) = unsafe { info.p_enabled_features.as_ref() } {
        if !features::v10_subset(f, &supported.v10) {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
        robust |= f.robust_buffer_access == vk::TRUE;
        statistics |= f.pipeline_statistics_query == vk::TRUE;
    }
    // SAFETY: guaranteed by the caller.
    for s in unsafe { handle::chain(info.p_next) } {
        if s.s_type == vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
            // SAFETY: the sType names the structure.
            let f2 = unsafe {
                &*(s as *const vk::BaseInStructure<'_>).cast::<vk::PhysicalDeviceFeatures2<'_>>()
            };
            if !features::v10_subset(&f2.features, &supported.v10) {
                return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
            }
            robust |= f2.features.robust_buffer_access == vk::TRUE;
            statistics |= f2.features.pipeline_statistics_query == vk::TRUE;
        }
        if s.s_type == vk::StructureType::PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT {
            // SAFETY: the sType names the structure.
            let r2 = unsafe {
                &*(s as *const vk::BaseInStructure<'_>)
                    .cast::<vk::PhysicalDeviceRobustness2FeaturesEXT<'_>>()
            };
            robust |= r2.robust_buffer_access2 == vk::TRUE || r2.null_descriptor == vk::TRUE;
        }
        // SAFETY: each structure of the chain is of the type its sType names.
        if unsafe { features::first_unsupported(&supported, s) }.is_some() {
            return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
        }
    }
    Ok(EnabledFeatures {
        buffer_robustness: if robust {
            compiler::BufferRobustness::Checked
        } else {
            compiler::BufferRobustness::Unchecked
        },
        pipeline_statistics: statistics,
    })
}

pub unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    guard("vkCreateDevice", || {
        // SAFETY: Vulkan valid usage: `physicalDevice` is a live physical device made by this
        // driver.
        let pd = unsafe { PhysicalDevice::from_handle(physical_device) }
            .ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        // SAFETY: valid usage: the names array holds enabled_extension_count strings.
        let extensions = unsafe {
            crate::instance::check_extensions(
                info.pp_enabled_extension_names,
                info.enabled_extension_count,
                pd.extensions(),
            )?
        };
        // SAFETY: as above, the structure and its chain are valid.
        let enabled = unsafe { check_features(pd, info)? };
        // A device group, if given, must be the one group agx4 reports: this device alone.
        // SAFETY: valid usage: pCreateInfo's pNext chain is a valid chain of structures.
        let group =
            unsafe { handle::find_in_chain::<vk::DeviceGroupDeviceCreateInfo>(info.p_next) };
        if let Some(group) = group {
            // SAFETY: valid usage: pPhysicalDevices holds physicalDeviceCount handles.
            let members =
                unsafe { handle::slice(group.p_physical_devices, group.physical_device_count) };
            if members.iter().any(|&m| m != physical_device) {
                return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
            }
        }
        // SAFETY: valid usage: pQueueCreateInfos holds queue_create_info_count structures.
        let queues =
            unsafe { handle::slice(info.p_queue_create_infos, info.queue_create_info_count) };
        for q in queues {
            // One family with one queue, no protected memory.
            if q.queue_family_index != 0 || q.queue_count != 1 || !q.flags.is_empty() {
                return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
            }
        }
        let device = Device::new(pd, extensions, enabled)?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { device.into_handle_in(p_allocator, vk::SystemAllocationScope::DEVICE) }?;
        // SAFETY: valid usage: pDevice is writable.
        unsafe { *p_device = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_device(
    device: vk::Device,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyDevice", (), || {
        // SAFETY: Vulkan valid usage: `device` is VK_NULL_HANDLE or a live device made by this
        // driver, and this destroy command is its last use.
        drop(unsafe { Device::take(device) })
    })
}

pub unsafe extern "system" fn get_device_queue(
    device: vk::Device,
    family: u32,
    index: u32,
    p_queue: *mut vk::Queue,
) {
    guard_or("vkGetDeviceQueue", (), || {
        // SAFETY: Vulkan valid usage: `device` is a live device made by this driver.
        let Some(dev) = (unsafe { Device::from_handle(device) }) else {
            return;
        };
        let queue = if family == 0 && index == 0 {
            dev.queue
        } else {
            None
        };
        // SAFETY: valid usage: pQueue is writable.
        unsafe { *p_queue = queue.unwrap_or_default() };
    })
}

/// The one queue was created without flags (protected memory is not supported), so a request
/// with flags finds no queue.
pub unsafe extern "system" fn get_device_queue2(
    device: vk::Device,
    p_info: *const vk::DeviceQueueInfo2<'_>,
    p_queue: *mut vk::Queue,
) {
    guard_or("vkGetDeviceQueue2", (), || {
        // SAFETY: valid usage: pQueueInfo is valid.
        let info = unsafe { &*p_info };
        // SAFETY: Vulkan valid usage: `device` is a live device made by this driver.
        let queue = unsafe { Device::from_handle(device) }
            .filter(|_| info.flags.is_empty())
            .and_then(|dev| {
                (info.queue_family_index == 0 && info.queue_index == 0)
                    .then_some(dev.queue)
                    .flatten()
            });
        // SAFETY: valid usage: pQueue is writable.
        unsafe { *p_queue = queue.unwrap_or_default() };
    })
}

/// vkGetDeviceGroupPeerMemoryFeatures(KHR). The only group has one device, so there is no
/// peer: valid usage never calls this with two distinct indices. Whatever is asked about is
/// this device's own memory, which allows everything.
pub unsafe extern "system" fn get_device_group_peer_memory_features(
    _device: vk::Device,
    _heap_index: u32,
    _local_device_index: u32,
    _remote_device_index: u32,
    p_features: *mut vk::PeerMemoryFeatureFlags,
) {
    guard_or("vkGetDeviceGroupPeerMemoryFeatures", (), || {
        let all = vk::PeerMemoryFeatureFlags::COPY_SRC
            | vk::PeerMemoryFeatureFlags::COPY_DST
            | vk::PeerMemoryFeatureFlags::GENERIC_SRC
            | vk::PeerMemoryFeatureFlags::GENERIC_DST;
        // SAFETY: valid usage: pPeerMemoryFeatures is writable.
        unsafe { *p_features = all };
    })
}

pub unsafe extern "system" fn device_wait_idle(device: vk::Device) -> vk::Result {
    guard("vkDeviceWaitIdle", || {
        // SAFETY: `device` is vkDeviceWaitIdle's device parameter, which valid usage requires to be
        // a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        match dev.queue() {
            Some(q) => q.wait_idle(),
            None => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_keeps_regions_apart() {
        let params = drm_asahi_params_global {
            vm_start: 0x4000,
            vm_end: 1 << 39,
            vm_kernel_min_size: 1 << 26,
            ..Default::default()
        };
        let l = layout(&params).unwrap();
        assert!(
            l.kernel.0 >= params.vm_start && l.kernel.1 - l.kernel.0 >= params.vm_kernel_min_size
        );
        assert!(l.usc_base >= l.kernel.1 && l.usc_base.is_multiple_of(USC_WINDOW));
        assert!(l.heap.0 >= l.usc_base + USC_WINDOW && l.heap.1 <= params.vm_end);
        let tiny = drm_asahi_params_global {
            vm_start: 0,
            vm_end: 1 << 32,
            vm_kernel_min_size: 1 << 26,
            ..Default::default()
        };
        assert!(layout(&tiny).is_none());
    }
}
