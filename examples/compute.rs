//! A complete Vulkan compute program: saxpy and a workgroup prefix sum on the GPU, checked on
//! the CPU.
//!
//! It loads Vulkan through the system loader, so it runs on whichever driver the loader offers
//! first. To run it on agx4 (after `cargo build --release`, from the checkout):
//!
//! ```sh
//! NODEVICE_SELECT=1 VK_DRIVER_FILES=$PWD/agx4_icd.json cargo run --release --example compute
//! ```
//!
//! With `VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation` the validation layer checks every call;
//! the program counts the messages it reports and fails if there are any.
//!
//! The steps are the ones every compute program takes: instance, physical device and queue
//! family, device, buffers and their memory, descriptor set layout, pipeline layout, shader
//! module, pipeline, descriptor set, command buffer, submit, wait, read back.

#[allow(dead_code)] // its `main` serves `cargo run --example compute_shader`
#[path = "compute_shader.rs"]
mod shader;

use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Elements in each buffer: not a multiple of the workgroup size, so the last workgroup has
/// idle invocations and the shader's `i < n` guard matters.
const N: u32 = 100_000;
const WORKGROUP: u32 = 64;
const A: f32 = 2.5;

/// The shader's push constants, laid out as `Params` in the GLSL.
#[repr(C)]
#[derive(Clone, Copy)]
struct Params {
    a: f32,
    n: u32,
}

type Result<T> = std::result::Result<T, String>;

fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what} failed: {e}")
}

static VALIDATION_MESSAGES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call.
    let msg = unsafe { (*data).message_as_c_str() }
        .map(CStr::to_string_lossy)
        .unwrap_or_default();
    eprintln!("validation {severity:?}: {msg}");
    VALIDATION_MESSAGES.fetch_add(1, Ordering::Relaxed);
    vk::FALSE
}

/// Inputs chosen so that every product and sum is exact in f32 (small integers and halves):
/// the GPU may fuse `a * x + y` or add in any order and still match the CPU bit for bit.
fn inputs() -> (Vec<f32>, Vec<f32>) {
    let x = (0..N).map(|i| (i % 17) as f32).collect();
    let y = (0..N).map(|i| (i % 5) as f32 - 2.0).collect();
    (x, y)
}

/// What the shader should produce: z = a*x + y, and the inclusive prefix sum of z within each
/// workgroup of 64 elements.
fn expected(x: &[f32], y: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let z: Vec<f32> = x.iter().zip(y).map(|(x, y)| A * x + y).collect();
    let mut scan = Vec::with_capacity(z.len());
    for group in z.chunks(WORKGROUP as usize) {
        let mut sum = 0.0;
        for v in group {
            sum += v;
            scan.push(sum);
        }
    }
    (z, scan)
}

/// A buffer bound to host-visible, host-coherent memory, mapped for its whole life.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut f32,
    len: usize,
}

impl HostBuffer {
    fn new(
        instance: &ash::Instance,
        pdev: vk::PhysicalDevice,
        device: &ash::Device,
        len: usize,
    ) -> Result<HostBuffer> {
        let size = (len * size_of::<f32>()) as vk::DeviceSize;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer =
            unsafe { device.create_buffer(&info, None) }.map_err(vk_err("vkCreateBuffer"))?;
        // SAFETY: the buffer was created from this device.
        let req = unsafe { device.get_buffer_memory_requirements(buffer) };
        // SAFETY: valid physical device.
        let props = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let type_index = (0..props.memory_type_count)
            .find(|&t| {
                req.memory_type_bits & (1 << t) != 0
                    && props.memory_types[t as usize]
                        .property_flags
                        .contains(wanted)
            })
            .ok_or("no host-visible, host-coherent memory type for a storage buffer")?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(type_index);
        // SAFETY: valid device and allocate info.
        let memory =
            unsafe { device.allocate_memory(&alloc, None) }.map_err(vk_err("vkAllocateMemory"))?;
        // SAFETY: buffer and memory belong to this device; the memory type suits the buffer.
        unsafe { device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(vk_err("vkBindBufferMemory"))?;
        // SAFETY: the memory is host visible and not mapped yet.
        let ptr =
            unsafe { device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) }
                .map_err(vk_err("vkMapMemory"))?;
        Ok(HostBuffer {
            buffer,
            memory,
            ptr: ptr.cast(),
            len,
        })
    }

    fn slice(&self) -> &[f32] {
        // SAFETY: the mapping covers `len` floats, is aligned (Vulkan maps at least 64-byte
        // aligned) and lives until `destroy`; the GPU is idle whenever the CPU looks.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn write(&mut self, data: &[f32]) {
        // SAFETY: as in `slice`, and no other reference to the mapping exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }.copy_from_slice(data);
    }

    fn destroy(self, device: &ash::Device) {
        // SAFETY: the GPU no longer uses the buffer; freeing the memory unmaps it.
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

fn main() {
    match run() {
        Ok(()) => {}
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Result<()> {
    // SAFETY: loading the system's Vulkan loader, as every Vulkan application does.
    let entry =
        unsafe { ash::Entry::load() }.map_err(|e| format!("loading libvulkan.so.1: {e}"))?;

    // The validation layer (when VK_INSTANCE_LAYERS enables it) provides VK_EXT_debug_utils;
    // with it, messages reach `on_message` and are counted.
    // SAFETY: valid entry.
    let available = unsafe { entry.enumerate_instance_extension_properties(None) }
        .map_err(vk_err("vkEnumerateInstanceExtensionProperties"))?;
    let has_debug_utils = available
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME));
    let extensions = if has_debug_utils {
        vec![ash::ext::debug_utils::NAME.as_ptr()]
    } else {
        vec![]
    };
    let app = vk::ApplicationInfo::default()
        .application_name(c"agx4 compute example")
        .api_version(vk::API_VERSION_1_0);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&extensions);
    // SAFETY: valid create info.
    let instance =
        unsafe { entry.create_instance(&info, None) }.map_err(vk_err("vkCreateInstance"))?;
    let messenger = if has_debug_utils {
        let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message));
        // SAFETY: valid instance and create info.
        let m = unsafe { utils.create_debug_utils_messenger(&info, None) }
            .map_err(vk_err("vkCreateDebugUtilsMessengerEXT"))?;
        Some((utils, m))
    } else {
        None
    };

    let result = compute(&instance);

    // SAFETY: every child object was destroyed by `compute`.
    unsafe {
        if let Some((utils, m)) = messenger {
            utils.destroy_debug_utils_messenger(m, None);
        }
        instance.destroy_instance(None);
    }
    let messages = VALIDATION_MESSAGES.load(Ordering::Relaxed);
    result?;
    if has_debug_utils {
        println!("validation messages: {messages}");
    }
    if messages > 0 {
        return Err(format!("the validation layer reported {messages} messages"));
    }
    Ok(())
}

/// The first physical device with a compute queue family, and that family.
fn pick_device(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, u32, String)> {
    // SAFETY: valid instance.
    let pdevs = unsafe { instance.enumerate_physical_devices() }
        .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
    for pdev in pdevs {
        // SAFETY: a physical device of this instance.
        let props = unsafe { instance.get_physical_device_properties(pdev) };
        let name = props
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // SAFETY: as above.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
        if let Some(f) = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        {
            return Ok((pdev, f as u32, name));
        }
    }
    Err("no Vulkan device with a compute queue".into())
}

fn compute(instance: &ash::Instance) -> Result<()> {
    let (pdev, family, name) = pick_device(instance)?;
    println!("device: {name}");

    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: valid physical device and create info.
    let device =
        unsafe { instance.create_device(pdev, &info, None) }.map_err(vk_err("vkCreateDevice"))?;
    // SAFETY: queue 0 of `family` was requested above.
    let queue = unsafe { device.get_device_queue(family, 0) };

    let result = with_device(instance, pdev, &device, queue, family);
    // SAFETY: `with_device` destroyed every object it made and waited for the GPU.
    unsafe { device.destroy_device(None) };
    result
}

fn with_device(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    device: &ash::Device,
    queue: vk::Queue,
    family: u32,
) -> Result<()> {
    let n = N as usize;
    let (x, y) = inputs();
    let mut buffers = Vec::new();
    for _ in 0..4 {
        buffers.push(HostBuffer::new(instance, pdev, device, n)?);
    }
    buffers[0].write(&x);
    buffers[1].write(&y);
    // Garbage in the outputs, so a shader that writes nothing cannot pass.
    buffers[2].write(&vec![f32::NAN; n]);
    buffers[3].write(&vec![f32::NAN; n]);

    let result = dispatch(device, queue, family, &buffers).and_then(|gpu_time| {
        let (z, scan) = expected(&x, &y);
        let z_ok = count_matches(buffers[2].slice(), &z, "z = a*x + y");
        let scan_ok = count_matches(buffers[3].slice(), &scan, "workgroup prefix sum");
        println!("saxpy (z = {A}*x + y): {z_ok} of {n} elements match");
        println!("prefix sum in workgroups of {WORKGROUP}: {scan_ok} of {n} elements match");
        println!(
            "dispatch of {} workgroups: {:.3} ms from queue submit to fence",
            N.div_ceil(WORKGROUP),
            gpu_time.as_secs_f64() * 1e3
        );
        if z_ok == n && scan_ok == n {
            Ok(())
        } else {
            Err("the GPU's results differ from the CPU's".into())
        }
    });
    for b in buffers {
        b.destroy(device);
    }
    result
}

/// Counts equal elements, printing the first few differences.
fn count_matches(got: &[f32], want: &[f32], what: &str) -> usize {
    let mut shown = 0;
    let mut ok = 0;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.to_bits() == w.to_bits() {
            ok += 1;
        } else if shown < 5 {
            eprintln!("{what}: element {i} is {g}, expected {w}");
            shown += 1;
        }
    }
    ok
}

/// Builds the pipeline, runs one dispatch over the buffers and waits for it. Returns the time
/// from queue submit until the fence signalled.
fn dispatch(
    device: &ash::Device,
    queue: vk::Queue,
    family: u32,
    buffers: &[HostBuffer],
) -> Result<Duration> {
    // Every object made here is recorded in `made` and destroyed at the end, on success or not.
    let mut made = Objects::default();
    let result = dispatch_with(device, queue, family, buffers, &mut made);
    made.destroy(device);
    result
}

#[derive(Default)]
struct Objects {
    set_layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Objects {
    fn destroy(self, device: &ash::Device) {
        // SAFETY: the GPU is idle (the fence was waited on, or nothing was submitted); null
        // handles are ignored by vkDestroy*.
        unsafe {
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.command_pool, None);
            device.destroy_descriptor_pool(self.pool, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_shader_module(self.module, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

fn dispatch_with(
    device: &ash::Device,
    queue: vk::Queue,
    family: u32,
    buffers: &[HostBuffer],
    made: &mut Objects,
) -> Result<Duration> {
    // Set 0 holds four storage buffers, bindings 0..3, as the shader declares them.
    let bindings: Vec<_> = (0..buffers.len() as u32)
        .map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
    // SAFETY (this and every call below): valid device, create infos that point at live data,
    // and objects of this device.
    made.set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
        .map_err(vk_err("vkCreateDescriptorSetLayout"))?;

    let push_range = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .size(size_of::<Params>() as u32)];
    let set_layouts = [made.set_layout];
    let info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(&set_layouts)
        .push_constant_ranges(&push_range);
    made.pipeline_layout = unsafe { device.create_pipeline_layout(&info, None) }
        .map_err(vk_err("vkCreatePipelineLayout"))?;

    let info = vk::ShaderModuleCreateInfo::default().code(shader::SPIRV);
    made.module = unsafe { device.create_shader_module(&info, None) }
        .map_err(vk_err("vkCreateShaderModule"))?;

    let compile_start = Instant::now();
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(made.module)
        .name(c"main");
    let info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(made.pipeline_layout)];
    made.pipeline =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &info, None) }
            .map_err(|(_, e)| format!("vkCreateComputePipelines failed: {e}"))?[0];
    println!(
        "pipeline created in {:.3} ms",
        compile_start.elapsed().as_secs_f64() * 1e3
    );

    let sizes = [vk::DescriptorPoolSize::default()
        .ty(vk::DescriptorType::STORAGE_BUFFER)
        .descriptor_count(buffers.len() as u32)];
    let info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&sizes);
    made.pool = unsafe { device.create_descriptor_pool(&info, None) }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
    let info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(made.pool)
        .set_layouts(&set_layouts);
    let set = unsafe { device.allocate_descriptor_sets(&info) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?[0];
    let buffer_infos: Vec<_> = buffers
        .iter()
        .map(|b| {
            [vk::DescriptorBufferInfo::default()
                .buffer(b.buffer)
                .range(vk::WHOLE_SIZE)]
        })
        .collect();
    let writes: Vec<_> = buffer_infos
        .iter()
        .enumerate()
        .map(|(b, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b as u32)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(info)
        })
        .collect();
    unsafe { device.update_descriptor_sets(&writes, &[]) };

    let info = vk::CommandPoolCreateInfo::default().queue_family_index(family);
    made.command_pool = unsafe { device.create_command_pool(&info, None) }
        .map_err(vk_err("vkCreateCommandPool"))?;
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(made.command_pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    let cmd = unsafe { device.allocate_command_buffers(&info) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?[0];

    let params = Params { a: A, n: N };
    let mut push = [0u8; size_of::<Params>()];
    push[..4].copy_from_slice(&params.a.to_le_bytes());
    push[4..].copy_from_slice(&params.n.to_le_bytes());
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    unsafe {
        device
            .begin_command_buffer(cmd, &begin)
            .map_err(vk_err("vkBeginCommandBuffer"))?;
        device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, made.pipeline);
        device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            made.pipeline_layout,
            0,
            &[set],
            &[],
        );
        device.cmd_push_constants(
            cmd,
            made.pipeline_layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &push,
        );
        device.cmd_dispatch(cmd, N.div_ceil(WORKGROUP), 1, 1);
        // Make the shader's writes visible to the host reads that follow the fence.
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        device.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        );
        device
            .end_command_buffer(cmd)
            .map_err(vk_err("vkEndCommandBuffer"))?;
    }

    made.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let cmds = [cmd];
    let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
    let start = Instant::now();
    unsafe {
        device
            .queue_submit(queue, &submit, made.fence)
            .map_err(vk_err("vkQueueSubmit"))?;
        device
            .wait_for_fences(&[made.fence], true, u64::MAX)
            .map_err(vk_err("vkWaitForFences"))?;
    }
    Ok(start.elapsed())
}
