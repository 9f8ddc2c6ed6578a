//! Runs corpus cases on whichever driver the loader was pointed at: one instance and device
//! for the run, fresh objects per case, validation messages collected per case.

use super::case::{Case, Check, Desc, Init, Step, Tol};
use super::{spirv, Driver};
use ash::vk;
use std::ffi::c_void;
use std::sync::Mutex;
use std::time::Duration;

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call.
    let msg = unsafe { (*data).message_as_c_str() }
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(format!("{severity:?}: {msg}"));
    }
    vk::FALSE
}

fn take_messages() -> Vec<String> {
    MESSAGES
        .lock()
        .map(|mut m| std::mem::take(&mut *m))
        .unwrap_or_default()
}

fn messenger_info() -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
}

/// The outcome of one case.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub result: Result<(), String>,
    /// Why the case did not run (a device feature it needs is missing); neither passed nor
    /// failed.
    pub skipped: Option<String>,
}

/// The outcome of a run.
#[derive(Debug)]
pub struct Report {
    pub driver: Driver,
    pub outcomes: Vec<Outcome>,
    /// A failure before any case could run (no loader, no device, ...).
    pub setup: Option<String>,
}

impl Report {
    pub fn setup_failure(driver: Driver, e: String) -> Report {
        Report {
            driver,
            outcomes: Vec::new(),
            setup: Some(e),
        }
    }

    pub fn passed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.result.is_ok() && o.skipped.is_none())
            .count()
    }

    pub fn failed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.result.is_err()).count()
    }

    pub fn skipped(&self) -> usize {
        self.outcomes.iter().filter(|o| o.skipped.is_some()).count()
    }

    pub fn summary(&self) -> String {
        format!(
            "compute corpus on {}: {} passed, {} failed, {} skipped",
            self.driver,
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }

    /// Every case's line, then the summary.
    pub fn text(&self) -> String {
        let mut s = String::new();
        if let Some(e) = &self.setup {
            s += &format!("setup failed: {e}\n");
        }
        for o in &self.outcomes {
            if let Some(why) = &o.skipped {
                s += &format!("SKIP {}: {}\n", o.name, why);
                continue;
            }
            match &o.result {
                Ok(()) => s += &format!("PASS {}\n", o.name),
                Err(e) => s += &format!("FAIL {}: {}\n", o.name, e),
            }
        }
        s += &self.summary();
        s
    }

    /// Panics listing every failure unless all cases passed.
    pub fn assert_all_passed(&self) {
        let failures: Vec<String> = self
            .outcomes
            .iter()
            .filter_map(|o| {
                o.result
                    .as_ref()
                    .err()
                    .map(|e| format!("  {}: {}", o.name, e))
            })
            .collect();
        assert!(
            self.setup.is_none() && failures.is_empty() && !self.outcomes.is_empty(),
            "{}\nsetup: {}\nfailures:\n{}",
            self.summary(),
            self.setup
                .as_deref()
                .unwrap_or(if self.outcomes.is_empty() {
                    "no case ran (check AGX4_CORPUS_FILTER)"
                } else {
                    "ok"
                }),
            failures.join("\n")
        );
    }
}

fn vkerr(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e:?}")
}

struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    debug_utils: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    pdev: vk::PhysicalDevice,
    props: vk::PhysicalDeviceProperties,
    mem: vk::PhysicalDeviceMemoryProperties,
    family: u32,
    timestamp_bits: u32,
    /// The device has (and the run enabled) the shaderInt64 feature.
    int64: bool,
    device: Option<(ash::Device, vk::Queue)>,
    /// vkCmdDispatchBaseKHR, on a 1.0 device with VK_KHR_device_group.
    device_group: Option<ash::khr::device_group::Device>,
}

impl Gpu {
    fn new() -> Result<Gpu, String> {
        // SAFETY: loading the system's Vulkan loader, as any Vulkan application does.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("libvulkan.so.1 (install libvulkan1): {e}"))?;
        // SAFETY: a global command on a loaded entry.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .ok()
            .flatten()
            .unwrap_or(vk::API_VERSION_1_0);
        // 1.1 when the loader has it, so vkCmdDispatchBase is reachable on 1.1 devices.
        let api = if loader_version >= vk::API_VERSION_1_1 {
            vk::API_VERSION_1_1
        } else {
            vk::API_VERSION_1_0
        };
        let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
        // VK_KHR_device_group (vkCmdDispatchBaseKHR on 1.0 devices) needs this instance
        // extension; enable it whenever the loader offers it.
        // SAFETY: a global command on a loaded entry.
        let instance_exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(vkerr("vkEnumerateInstanceExtensionProperties"))?;
        let has_group_creation = instance_exts
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(ash::khr::device_group_creation::NAME));
        let mut exts = vec![ash::ext::debug_utils::NAME.as_ptr()];
        if has_group_creation {
            exts.push(ash::khr::device_group_creation::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default().api_version(api);
        let mut chained = messenger_info();
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts)
            .push_next(&mut chained);
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(vkerr("vkCreateInstance with validation"))?;
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: valid instance and create info.
        let messenger =
            unsafe { debug_utils.create_debug_utils_messenger(&messenger_info(), None) }
                .map_err(vkerr("vkCreateDebugUtilsMessengerEXT"))?;
        // SAFETY: valid instance; the handles come from it.
        unsafe {
            let pdevs = instance
                .enumerate_physical_devices()
                .map_err(vkerr("vkEnumeratePhysicalDevices"))?;
            let mut gpu = Gpu {
                _entry: entry,
                instance,
                debug_utils,
                messenger,
                pdev: vk::PhysicalDevice::null(),
                props: vk::PhysicalDeviceProperties::default(),
                mem: vk::PhysicalDeviceMemoryProperties::default(),
                family: 0,
                timestamp_bits: 0,
                int64: false,
                device: None,
                device_group: None,
            };
            let pdev = *pdevs.first().ok_or("no physical device")?;
            gpu.pdev = pdev;
            gpu.props = gpu.instance.get_physical_device_properties(pdev);
            gpu.mem = gpu.instance.get_physical_device_memory_properties(pdev);
            let families = gpu
                .instance
                .get_physical_device_queue_family_properties(pdev);
            let (family, fp) = families
                .iter()
                .enumerate()
                .find(|(_, f)| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or("no queue family with COMPUTE")?;
            gpu.family = family as u32;
            gpu.timestamp_bits = fp.timestamp_valid_bits;
            let prio = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(gpu.family)
                .queue_priorities(&prio)];
            let device_exts = gpu
                .instance
                .enumerate_device_extension_properties(pdev)
                .map_err(vkerr("vkEnumerateDeviceExtensionProperties"))?;
            let use_group = has_group_creation
                && gpu.props.api_version < vk::API_VERSION_1_1
                && device_exts
                    .iter()
                    .any(|e| e.extension_name_as_c_str() == Ok(ash::khr::device_group::NAME));
            let enabled: Vec<*const std::ffi::c_char> = if use_group {
                vec![ash::khr::device_group::NAME.as_ptr()]
            } else {
                Vec::new()
            };
            // Enable shaderInt64 where the device has it; cases that need it are skipped
            // elsewhere.
            let supported = gpu.instance.get_physical_device_features(pdev);
            gpu.int64 = supported.shader_int64 == vk::TRUE;
            let features = vk::PhysicalDeviceFeatures {
                shader_int64: supported.shader_int64,
                ..Default::default()
            };
            let info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&enabled)
                .enabled_features(&features);
            let device = gpu
                .instance
                .create_device(pdev, &info, None)
                .map_err(vkerr("vkCreateDevice"))?;
            let queue = device.get_device_queue(gpu.family, 0);
            if use_group {
                gpu.device_group =
                    Some(ash::khr::device_group::Device::new(&gpu.instance, &device));
            }
            gpu.device = Some((device, queue));
            Ok(gpu)
        }
    }

    fn device_name(&self) -> String {
        self.props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn host_memory_type(&self, bits: u32) -> Result<u32, String> {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.mem.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.mem.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or_else(|| format!("no HOST_VISIBLE|HOST_COHERENT memory type in bits {bits:#x}"))
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every per-case object was destroyed before; the device is idle.
        unsafe {
            if let Some((device, _)) = self.device.take() {
                let _ = device.device_wait_idle();
                device.destroy_device(None);
            }
            self.debug_utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A buffer bound to its own host-visible, coherent memory, kept mapped.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
    words: usize,
}

/// Everything one case creates, destroyed in reverse on drop (also when the case fails early).
struct Objects<'a> {
    gpu: &'a Gpu,
    device: &'a ash::Device,
    buffers: Vec<HostBuffer>,
    modules: Vec<vk::ShaderModule>,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipelines: Vec<vk::Pipeline>,
    pool: vk::DescriptorPool,
    cmd_pool: vk::CommandPool,
    fence: vk::Fence,
    event: vk::Event,
    query_pool: vk::QueryPool,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = self.device;
        // SAFETY: the objects come from `d`; after the wait none is in use. Null handles are
        // ignored by the destroy commands.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_query_pool(self.query_pool, None);
            d.destroy_event(self.event, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.cmd_pool, None);
            d.destroy_descriptor_pool(self.pool, None);
            for &p in &self.pipelines {
                d.destroy_pipeline(p, None);
            }
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for &m in &self.modules {
                d.destroy_shader_module(m, None);
            }
            for b in &self.buffers {
                d.destroy_buffer(b.buffer, None);
                if b.memory != vk::DeviceMemory::null() {
                    d.unmap_memory(b.memory);
                    d.free_memory(b.memory, None);
                }
            }
        }
    }
}

impl<'a> Objects<'a> {
    fn new(gpu: &'a Gpu, device: &'a ash::Device) -> Self {
        Objects {
            gpu,
            device,
            buffers: Vec::new(),
            modules: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipelines: Vec::new(),
            pool: vk::DescriptorPool::null(),
            cmd_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
            event: vk::Event::null(),
            query_pool: vk::QueryPool::null(),
        }
    }

    fn buffer(&mut self, words: usize) -> Result<usize, String> {
        let d = self.device;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::INDIRECT_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let size = (words.max(1) * 4) as u64;
        // SAFETY: valid device and create info; the handles are recorded in `self` at once so
        // drop frees them.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .map_err(vkerr("vkCreateBuffer"))?;
            self.buffers.push(HostBuffer {
                buffer,
                memory: vk::DeviceMemory::null(),
                ptr: std::ptr::null_mut(),
                words,
            });
            let req = d.get_buffer_memory_requirements(buffer);
            let ty = self.gpu.host_memory_type(req.memory_type_bits)?;
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
                .map_err(vkerr("vkAllocateMemory"))?;
            let last = self.buffers.len() - 1;
            self.buffers[last].memory = memory;
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(vkerr("vkBindBufferMemory"))?;
            let ptr = d
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?;
            self.buffers[last].ptr = ptr.cast();
            Ok(last)
        }
    }

    fn write(&self, i: usize, words: &[u32]) {
        let b = &self.buffers[i];
        let n = words.len().min(b.words);
        // SAFETY: `ptr` maps at least `b.words` words of coherent memory, no GPU work pending.
        unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), b.ptr, n) };
    }

    fn read(&self, i: usize) -> Vec<u32> {
        let b = &self.buffers[i];
        let mut out = vec![0u32; b.words];
        // SAFETY: as in `write`; the fence has signalled.
        unsafe { std::ptr::copy_nonoverlapping(b.ptr, out.as_mut_ptr(), b.words) };
        out
    }
}

fn descriptor_type(d: Desc) -> vk::DescriptorType {
    match d {
        Desc::Storage => vk::DescriptorType::STORAGE_BUFFER,
        Desc::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
        Desc::StorageDynamic(_) => vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
        Desc::UniformDynamic(_) => vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
    }
}

/// Makes every earlier compute or transfer write visible to later compute, indirect and
/// transfer reads.
fn full_barrier(d: &ash::Device, cb: vk::CommandBuffer) {
    let mb = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(
            vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::UNIFORM_READ
                | vk::AccessFlags::INDIRECT_COMMAND_READ
                | vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE,
        )];
    // SAFETY: `cb` is recording.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COMPUTE_SHADER
                | vk::PipelineStageFlags::DRAW_INDIRECT
                | vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &mb,
            &[],
            &[],
        )
    };
}

fn run_case(gpu: &Gpu, case: &Case) -> Result<(), String> {
    let (device, queue) = gpu.device.as_ref().ok_or("no device")?;
    let d = device;
    let uses_base = case.steps.iter().any(|s| matches!(s, Step::Base { .. }));
    if uses_base && gpu.props.api_version < vk::API_VERSION_1_1 && gpu.device_group.is_none() {
        return Err(format!(
            "unsupported: vkCmdDispatchBase needs Vulkan 1.1 or VK_KHR_device_group; the device reports {}.{} without the extension",
            vk::api_version_major(gpu.props.api_version),
            vk::api_version_minor(gpu.props.api_version)
        ));
    }
    if case.timestamps && gpu.timestamp_bits == 0 {
        return Err("unsupported: the compute queue family has timestampValidBits = 0".into());
    }
    let mut o = Objects::new(gpu, d);

    // Buffers with their initial contents; the ones the GPU initialises first get garbage.
    let initial: Vec<Vec<u32>> = case.buffers.iter().map(|b| b.init.words()).collect();
    for (i, b) in case.buffers.iter().enumerate() {
        let idx = o.buffer(initial[i].len())?;
        match &b.init {
            Init::Host(w) => o.write(idx, w),
            Init::Fill { words, .. } => o.write(idx, &vec![0xdead_beef; *words]),
            Init::Update(w) => o.write(idx, &vec![0xdead_beef; w.len()]),
        }
    }
    let staging: Vec<usize> = if case.copy_back {
        let mut v = Vec::new();
        for init in &initial {
            let idx = o.buffer(init.len())?;
            o.write(idx, &vec![0x5eed_5eed; init.len()]);
            v.push(idx);
        }
        v
    } else {
        Vec::new()
    };

    // SAFETY: valid device; every handle is stored in `o` as soon as it exists.
    unsafe {
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = case
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(descriptor_type(b.desc))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        o.set_layout = d
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
        let set_layouts = [o.set_layout];
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(case.push_size)];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if case.push_size > 0 {
            layout_info = layout_info.push_constant_ranges(&ranges);
        }
        o.layout = d
            .create_pipeline_layout(&layout_info, None)
            .map_err(vkerr("vkCreatePipelineLayout"))?;

        for pipe in &case.pipes {
            let code = spirv::compile(pipe.shader)?;
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
                .map_err(vkerr("vkCreateShaderModule"))?;
            o.modules.push(module);
            let entries: Vec<vk::SpecializationMapEntry> = pipe
                .spec
                .iter()
                .enumerate()
                .map(|(i, &(id, _))| vk::SpecializationMapEntry {
                    constant_id: id,
                    offset: 4 * i as u32,
                    size: 4,
                })
                .collect();
            let data: Vec<u8> = pipe
                .spec
                .iter()
                .flat_map(|&(_, v)| v.to_le_bytes())
                .collect();
            let spec = vk::SpecializationInfo::default()
                .map_entries(&entries)
                .data(&data);
            let mut stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            if !pipe.spec.is_empty() {
                stage = stage.specialization_info(&spec);
            }
            let flags = if uses_base {
                vk::PipelineCreateFlags::DISPATCH_BASE
            } else {
                vk::PipelineCreateFlags::empty()
            };
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(o.layout)
                .flags(flags)];
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, e)| format!("vkCreateComputePipelines({}): {e:?}", pipe.shader))?;
            o.pipelines.extend(pipeline);
        }

        // Descriptors.
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for b in &case.buffers {
            let ty = descriptor_type(b.desc);
            match sizes.iter_mut().find(|s| s.ty == ty) {
                Some(s) => s.descriptor_count += 1,
                None => sizes.push(vk::DescriptorPoolSize {
                    ty,
                    descriptor_count: 1,
                }),
            }
        }
        let mut set = vk::DescriptorSet::null();
        if !case.buffers.is_empty() {
            o.pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(vkerr("vkCreateDescriptorPool"))?;
            set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(o.pool)
                        .set_layouts(&set_layouts),
                )
                .map_err(vkerr("vkAllocateDescriptorSets"))?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = case
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    [vk::DescriptorBufferInfo {
                        buffer: o.buffers[i].buffer,
                        offset: 0,
                        range: b.range.unwrap_or(vk::WHOLE_SIZE),
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = case
                .buffers
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(i as u32)
                        .descriptor_type(descriptor_type(b.desc))
                        .buffer_info(&infos[i])
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
        }
        let dynamic_offsets: Vec<u32> = case
            .buffers
            .iter()
            .filter_map(|b| match b.desc {
                Desc::StorageDynamic(off) | Desc::UniformDynamic(off) => Some(off),
                _ => None,
            })
            .collect();

        // Commands.
        o.cmd_pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(gpu.family),
                None,
            )
            .map_err(vkerr("vkCreateCommandPool"))?;
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(o.cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        if case.steps.iter().any(|s| matches!(s, Step::Event)) {
            o.event = d
                .create_event(&vk::EventCreateInfo::default(), None)
                .map_err(vkerr("vkCreateEvent"))?;
        }
        if case.timestamps {
            o.query_pool = d
                .create_query_pool(
                    &vk::QueryPoolCreateInfo::default()
                        .query_type(vk::QueryType::TIMESTAMP)
                        .query_count(2),
                    None,
                )
                .map_err(vkerr("vkCreateQueryPool"))?;
        }
        d.begin_command_buffer(
            cb,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(vkerr("vkBeginCommandBuffer"))?;
        if case.timestamps {
            d.cmd_reset_query_pool(cb, o.query_pool, 0, 2);
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, o.query_pool, 0);
        }
        let mut transfers = false;
        for (i, b) in case.buffers.iter().enumerate() {
            match &b.init {
                Init::Host(_) => {}
                Init::Fill { value, .. } => {
                    d.cmd_fill_buffer(cb, o.buffers[i].buffer, 0, vk::WHOLE_SIZE, *value);
                    transfers = true;
                }
                Init::Update(w) => {
                    d.cmd_update_buffer(cb, o.buffers[i].buffer, 0, &super::case::bytes(w));
                    transfers = true;
                }
            }
        }
        if transfers {
            full_barrier(d, cb);
        }
        if !case.buffers.is_empty() {
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                o.layout,
                0,
                &[set],
                &dynamic_offsets,
            );
        }
        let mut bound: Option<usize> = None;
        let mut bind = |pipe: usize| -> Result<(), String> {
            let p = *o
                .pipelines
                .get(pipe)
                .ok_or_else(|| format!("step names pipeline {pipe}, which the case lacks"))?;
            if bound != Some(pipe) {
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p);
                bound = Some(pipe);
            }
            Ok(())
        };
        for step in &case.steps {
            match step {
                Step::Dispatch { pipe, groups } => {
                    bind(*pipe)?;
                    d.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
                }
                Step::Base { pipe, base, groups } => {
                    bind(*pipe)?;
                    match &gpu.device_group {
                        Some(g) => g.cmd_dispatch_base(
                            cb,
                            (base[0], base[1], base[2]),
                            (groups[0], groups[1], groups[2]),
                        ),
                        None => d.cmd_dispatch_base(
                            cb, base[0], base[1], base[2], groups[0], groups[1], groups[2],
                        ),
                    }
                }
                Step::Indirect {
                    pipe,
                    buffer,
                    offset,
                } => {
                    bind(*pipe)?;
                    d.cmd_dispatch_indirect(cb, o.buffers[*buffer].buffer, *offset);
                }
                Step::Barrier => full_barrier(d, cb),
                Step::Event => {
                    d.cmd_set_event(cb, o.event, vk::PipelineStageFlags::COMPUTE_SHADER);
                    let mb = [vk::MemoryBarrier::default()
                        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                        .dst_access_mask(
                            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                        )];
                    d.cmd_wait_events(
                        cb,
                        &[o.event],
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        &mb,
                        &[],
                        &[],
                    );
                }
                Step::Push(bytes) => {
                    d.cmd_push_constants(cb, o.layout, vk::ShaderStageFlags::COMPUTE, 0, bytes);
                }
            }
        }
        if case.copy_back {
            full_barrier(d, cb);
            for (i, &s) in staging.iter().enumerate() {
                let size = (o.buffers[i].words.max(1) * 4) as u64;
                d.cmd_copy_buffer(
                    cb,
                    o.buffers[i].buffer,
                    o.buffers[s].buffer,
                    &[vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 0,
                        size,
                    }],
                );
            }
        }
        if case.timestamps {
            d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, o.query_pool, 1);
        }
        let host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &host,
            &[],
            &[],
        );
        d.end_command_buffer(cb)
            .map_err(vkerr("vkEndCommandBuffer"))?;

        o.fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .map_err(vkerr("vkCreateFence"))?;
        let cbs = [cb];
        d.queue_submit(
            *queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            o.fence,
        )
        .map_err(vkerr("vkQueueSubmit"))?;
        d.wait_for_fences(&[o.fence], true, Duration::from_secs(20).as_nanos() as u64)
            .map_err(vkerr("vkWaitForFences"))?;

        if case.timestamps {
            let mut results = [[0u64; 2]; 2];
            d.get_query_pool_results(
                o.query_pool,
                0,
                &mut results,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
            )
            .map_err(vkerr("vkGetQueryPoolResults"))?;
            let [[start, start_avail], [end, end_avail]] = results;
            if start_avail == 0 || end_avail == 0 {
                return Err(format!("timestamps not available after the fence (start {start_avail}, end {end_avail})"));
            }
            let mask = if gpu.timestamp_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << gpu.timestamp_bits) - 1
            };
            if (end & mask) < (start & mask) {
                return Err(format!("timestamp end {end} < start {start}"));
            }
        }
    }

    let actual: Vec<Vec<u32>> = if case.copy_back {
        staging.iter().map(|&s| o.read(s)).collect()
    } else {
        (0..case.buffers.len()).map(|i| o.read(i)).collect()
    };
    drop(o);
    let expected = (case.reference)(&initial);
    if expected.len() != case.buffers.len() {
        return Err(format!(
            "reference returned {} buffers for {}",
            expected.len(),
            case.buffers.len()
        ));
    }
    for (i, b) in case.buffers.iter().enumerate() {
        compare(i, b.check, case.tol, &expected[i], &actual[i])?;
    }
    Ok(())
}

fn ulp_distance(a: f32, b: f32) -> u32 {
    // Maps floats onto a line of integers where adjacent floats differ by one.
    let key = |f: f32| {
        let i = f.to_bits() as i32;
        if i < 0 {
            i32::MIN.wrapping_sub(i) as i64
        } else {
            i as i64
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u32::MAX as u64) as u32
}

fn float_ok(tol: Tol, e: u32, a: u32) -> bool {
    if e == a {
        return true;
    }
    let (fe, fa) = (f32::from_bits(e), f32::from_bits(a));
    if fe.is_nan() || fa.is_nan() {
        return fe.is_nan() && fa.is_nan();
    }
    (fe - fa).abs() <= tol.abs || ulp_distance(fe, fa) <= tol.ulp
}

fn compare(
    buffer: usize,
    check: Check,
    tol: Tol,
    expected: &[u32],
    actual: &[u32],
) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "buffer {buffer}: reference has {} words, buffer has {}",
            expected.len(),
            actual.len()
        ));
    }
    let (e, a) = match check {
        Check::Sorted => {
            let (mut e, mut a) = (expected.to_vec(), actual.to_vec());
            e.sort_unstable();
            a.sort_unstable();
            (e, a)
        }
        _ => (expected.to_vec(), actual.to_vec()),
    };
    let bad: Vec<usize> = (0..e.len())
        .filter(|&i| match check {
            Check::Float => !float_ok(tol, e[i], a[i]),
            _ => e[i] != a[i],
        })
        .collect();
    if let Some(&i) = bad.first() {
        let sorted = if check == Check::Sorted {
            " (sorted)"
        } else {
            ""
        };
        let show = |w: u32| {
            if check == Check::Float {
                format!("{:?} ({w:#010x})", f32::from_bits(w))
            } else {
                format!("{w} ({w:#010x})")
            }
        };
        return Err(format!(
            "buffer {buffer}{sorted}: {} mismatched words, first at index {i}: expected {}, actual {}",
            bad.len(),
            show(e[i]),
            show(a[i])
        ));
    }
    Ok(())
}

/// Runs `cases` on the driver the loader was pointed at.
pub fn run(driver: Driver, cases: &[Case]) -> Report {
    take_messages();
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => return Report::setup_failure(driver, e),
    };
    eprintln!(
        "compute corpus: {} cases on {} ({})",
        cases.len(),
        driver,
        gpu.device_name()
    );
    let setup_messages = take_messages();
    let mut outcomes = Vec::new();
    for case in cases {
        if case.needs_int64 && !gpu.int64 {
            let why = "the device lacks shaderInt64".to_string();
            eprintln!("SKIP {}: {}", case.name, why);
            outcomes.push(Outcome {
                name: case.name.to_string(),
                result: Ok(()),
                skipped: Some(why),
            });
            continue;
        }
        let caught =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&gpu, case)));
        let mut result = match caught {
            Ok(r) => r,
            Err(p) => Err(format!(
                "panicked: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        };
        let msgs = take_messages();
        if !msgs.is_empty() {
            let text = format!("{} validation message(s): {}", msgs.len(), msgs.join(" | "));
            result = match result {
                Ok(()) => Err(text),
                Err(e) => Err(format!("{e}; {text}")),
            };
        }
        match &result {
            Ok(()) => eprintln!("PASS {}", case.name),
            Err(e) => eprintln!("FAIL {}: {}", case.name, e),
        }
        outcomes.push(Outcome {
            name: case.name.to_string(),
            result,
            skipped: None,
        });
    }
    drop(gpu);
    let mut setup = None;
    let mut late = setup_messages;
    late.extend(take_messages());
    if !late.is_empty() {
        setup = Some(format!(
            "validation messages outside cases: {}",
            late.join(" | ")
        ));
    }
    Report {
        driver,
        outcomes,
        setup,
    }
}
