//! Buffer device addresses through the loader (VK_KHR_buffer_device_address): a compute shader
//! reads and writes a buffer it knows only by the address in its push constants, and an
//! address of nothing faults the GPU and loses the device without harming the process.

mod common;
#[path = "../compiler/tests/common/glslang.rs"]
#[allow(dead_code)] // the shared helper's other entry points
mod glslang;

use ash::vk;
use common::compute::{self, Pipeline};
use common::{assert_no_validation_messages, Ctx};

const SHADER: &str = "#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Data { uint v[]; };
layout(push_constant) uniform P { Data data; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    data.v[64u + i] = data.v[i] * 3u + 1u;
}
";

struct Buffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u32,
}

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // VkMemoryAllocateFlagsInfo comes with VK_KHR_device_group under Vulkan 1.0.
    let exts = [
        ash::khr::buffer_device_address::NAME.as_ptr(),
        ash::khr::device_group::NAME.as_ptr(),
    ];
    let mut bda =
        vk::PhysicalDeviceBufferDeviceAddressFeatures::default().buffer_device_address(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut bda);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("device");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

/// A host-visible 1 KiB buffer with a device address, words 0..64 holding `i * i`.
fn buffer(ctx: &Ctx, dev: &ash::Device) -> Buffer {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let ty = (0..props.memory_type_count)
        .find(|&i| props.memory_types[i as usize].property_flags.contains(want))
        .unwrap();
    // SAFETY: valid device and infos; the memory is bound before use.
    unsafe {
        let buffer = dev
            .create_buffer(
                &vk::BufferCreateInfo::default().size(1024).usage(
                    vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
                        | vk::BufferUsageFlags::STORAGE_BUFFER,
                ),
                None,
            )
            .unwrap();
        let req = dev.get_buffer_memory_requirements(buffer);
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty)
                    .push_next(&mut flags),
                None,
            )
            .unwrap();
        dev.bind_buffer_memory(buffer, memory, 0).unwrap();
        let ptr = dev
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap() as *mut u32;
        for i in 0..256 {
            *ptr.add(i) = if i < 64 { (i * i) as u32 } else { 0 };
        }
        Buffer {
            buffer,
            memory,
            ptr,
        }
    }
}

/// Runs SHADER over 64 invocations with `address` in its push constants; the result of
/// the queue's wait.
fn run(dev: &ash::Device, queue: vk::Queue, address: u64) -> Result<(), vk::Result> {
    // Compiled once: the tests run in parallel and glslang's files are named by the source.
    static CODE: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    let code = CODE.get_or_init(|| glslang::glslang_env(SHADER, "comp", "vulkan1.0").unwrap());
    // SAFETY: valid device and infos; the GPU is idle before anything is destroyed.
    unsafe {
        let set_layout = compute::set_layout(dev, Default::default(), &[]);
        let p = Pipeline::new(dev, set_layout, 8, code);
        let shot = common::OneShot::begin(dev);
        dev.cmd_bind_pipeline(shot.cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
        dev.cmd_push_constants(
            shot.cb,
            p.layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &address.to_le_bytes(),
        );
        dev.cmd_dispatch(shot.cb, 8, 1, 1);
        compute::shader_writes_to_host(dev, shot.cb);
        dev.end_command_buffer(shot.cb).unwrap();
        let cbs = [shot.cb];
        let r = dev
            .queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                vk::Fence::null(),
            )
            .and_then(|_| dev.queue_wait_idle(queue));
        // A fault shows once the kernel refuses the next SUBMIT on the faulted queue: run
        // the (idempotent) work again.
        let r = r.and_then(|_| {
            dev.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                vk::Fence::null(),
            )
        });
        let r = r.and_then(|_| dev.queue_wait_idle(queue));
        let _ = dev.device_wait_idle();
        dev.destroy_command_pool(shot.pool, None);
        p.destroy(dev);
        dev.destroy_descriptor_set_layout(set_layout, None);
        r
    }
}

#[test]
fn a_shader_reads_and_writes_through_a_buffer_address() {
    let ctx = Ctx::with(true, &[ash::khr::device_group_creation::NAME]);
    let (dev, queue) = device(&ctx);
    let b = buffer(&ctx, &dev);
    let info = vk::BufferDeviceAddressInfo::default().buffer(b.buffer);
    // SAFETY: the buffer is bound to memory allocated with DEVICE_ADDRESS.
    let address = unsafe {
        ash::khr::buffer_device_address::Device::new(&ctx.instance, &dev)
            .get_buffer_device_address(&info)
    };
    assert_ne!(address, 0);
    assert!(address.is_multiple_of(16));
    run(&dev, queue, address).expect("the dispatch completes");
    // SAFETY: the mapping covers 256 words; the GPU is idle.
    let words = unsafe { std::slice::from_raw_parts(b.ptr, 256) };
    let want: Vec<u32> = (0..64u32).map(|i| i * i * 3 + 1).collect();
    assert_eq!(words[64..128], want[..]);
    assert!(
        words[128..].iter().all(|&w| w == 0),
        "nothing past the writes"
    );
    // SAFETY: nothing uses the objects any more.
    unsafe {
        dev.destroy_buffer(b.buffer, None);
        dev.free_memory(b.memory, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn an_address_of_nothing_loses_the_device() {
    let ctx = Ctx::with(false, &[ash::khr::device_group_creation::NAME]);
    let (dev, queue) = device(&ctx);
    // Far above anything the driver maps (and not in the kernel's carve-out either).
    assert_eq!(
        run(&dev, queue, 0x7f_dead_0000),
        Err(vk::Result::ERROR_DEVICE_LOST)
    );
    // SAFETY: nothing uses the device any more.
    unsafe { dev.destroy_device(None) };
}
