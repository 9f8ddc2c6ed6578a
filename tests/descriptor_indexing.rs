//! Descriptor indexing through the loader: a compute shader indexes a runtime array of storage
//! buffers non-uniformly. The array's binding has a variable count chosen at allocation, is
//! partially bound (elements the shader never reads are never written) and update-after-bind
//! (one descriptor is written after the set was bound, before submission); the layout
//! support query reports the largest variable count.

mod common;
#[path = "../compiler/tests/common/glslang.rs"]
#[allow(dead_code)] // the shared helper's other entry points
mod glslang;

use ash::vk;
use common::compute::{self, binding, Pipeline};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

/// Lane i reads element 1 (even lanes) or 3 (odd lanes) of the array, plus i.
const SHADER: &str = "#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std430) buffer Out { uint o[]; };
layout(set = 0, binding = 1, std430) buffer In { uint v; } ins[];
void main() {
    uint i = gl_LocalInvocationID.x;
    uint k = (i % 2u == 0u) ? 1u : 3u;
    o[i] = ins[nonuniformEXT(k)].v + i;
}
";

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
        .descriptor_indexing(true)
        .runtime_descriptor_array(true)
        .shader_storage_buffer_array_non_uniform_indexing(true)
        .descriptor_binding_storage_buffer_update_after_bind(true)
        .descriptor_binding_partially_bound(true)
        .descriptor_binding_variable_descriptor_count(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .push_next(&mut v12);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

const ARRAY_MAX: u32 = 16;

fn array_flags() -> vk::DescriptorBindingFlags {
    vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT
        | vk::DescriptorBindingFlags::PARTIALLY_BOUND
        | vk::DescriptorBindingFlags::UPDATE_AFTER_BIND
}

#[test]
fn variable_count_partially_bound_array_updated_after_bind() {
    use vk::DescriptorType as T;
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, queue) = device(&ctx);
    let out = Buf::new(&ctx, &dev, 256, vk::BufferUsageFlags::STORAGE_BUFFER);
    let mut inputs: Vec<Buf> = (0..2)
        .map(|_| Buf::new(&ctx, &dev, 256, vk::BufferUsageFlags::STORAGE_BUFFER))
        .collect();
    inputs[0].write(&100u32.to_le_bytes());
    inputs[1].write(&300u32.to_le_bytes());
    let code = glslang::glslang_env(SHADER, "comp", "vulkan1.2").unwrap();
    let bindings = [
        binding(0, T::STORAGE_BUFFER),
        binding(1, T::STORAGE_BUFFER).descriptor_count(ARRAY_MAX),
    ];
    let flags = [vk::DescriptorBindingFlags::empty(), array_flags()];
    let mut flags_info =
        vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let set_layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default()
                    .flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL)
                    .bindings(&bindings)
                    .push_next(&mut flags_info),
                None,
            )
            .unwrap();
        let p = Pipeline::new(&dev, set_layout, 0, &code);
        let sizes = [vk::DescriptorPoolSize {
            ty: T::STORAGE_BUFFER,
            descriptor_count: 1 + 4,
        }];
        let pool = dev
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .flags(vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND)
                    .max_sets(1)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        // Four elements of the sixteen the layout allows: the pool holds no more.
        let counts = [4u32];
        let mut variable = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
            .descriptor_counts(&counts);
        let layouts = [set_layout];
        let set = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts)
                    .push_next(&mut variable),
            )
            .unwrap()[0];
        let info = |b: &Buf| {
            [vk::DescriptorBufferInfo {
                buffer: b.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]
        };
        let (out_info, in0, in1) = (info(&out), info(&inputs[0]), info(&inputs[1]));
        let write = |binding, element, infos| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .dst_array_element(element)
                .descriptor_type(T::STORAGE_BUFFER)
                .buffer_info(infos)
        };
        // Elements 0 and 2 are never written: the binding is partially bound.
        dev.update_descriptor_sets(&[write(0, 0, &out_info), write(1, 1, &in0)], &[]);
        let shot = common::OneShot::begin(&dev);
        let cb = shot.cb;
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
        dev.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, p.layout, 0, &[set], &[]);
        dev.cmd_dispatch(cb, 1, 1, 1);
        compute::shader_writes_to_host(&dev, cb);
        // Update after bind: element 3 is written once the set is bound and recorded.
        dev.update_descriptor_sets(&[write(1, 3, &in1)], &[]);
        shot.submit_and_wait(&dev, queue);
        p.destroy(&dev);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
    }
    let got = compute::words(&out.bytes()[..32]);
    assert_eq!(got, [100, 301, 102, 303, 104, 305, 106, 307]);
    out.destroy(&dev);
    for b in inputs {
        b.destroy(&dev);
    }
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn features_limits_and_variable_count_support() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_2);
    let (dev, _queue) = device(&ctx);
    // SAFETY: valid physical device and device.
    unsafe {
        let mut di = vk::PhysicalDeviceDescriptorIndexingProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut di);
        ctx.instance
            .get_physical_device_properties2(ctx.pdev, &mut props);
        assert!(di.max_update_after_bind_descriptors_in_all_pools >= 500_000);
        assert!(di.max_per_stage_descriptor_update_after_bind_storage_buffers >= 500_000);
        assert!(di.max_descriptor_set_update_after_bind_sampled_images >= 500_000);
        let mut features = vk::PhysicalDeviceVulkan12Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features);
        ctx.instance
            .get_physical_device_features2(ctx.pdev, &mut f2);
        assert_eq!(features.descriptor_indexing, vk::TRUE);
        assert_eq!(features.runtime_descriptor_array, vk::TRUE);
        assert_eq!(features.descriptor_binding_partially_bound, vk::TRUE);
        let bindings = [
            binding(0, vk::DescriptorType::STORAGE_BUFFER),
            binding(1, vk::DescriptorType::SAMPLED_IMAGE).descriptor_count(ARRAY_MAX),
        ];
        let support = |flags: &[vk::DescriptorBindingFlags]| {
            let mut flags_info =
                vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(flags);
            let mut variable = vk::DescriptorSetVariableDescriptorCountLayoutSupport::default();
            let mut s = vk::DescriptorSetLayoutSupport::default().push_next(&mut variable);
            dev.get_descriptor_set_layout_support(
                &vk::DescriptorSetLayoutCreateInfo::default()
                    .flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL)
                    .bindings(&bindings)
                    .push_next(&mut flags_info),
                &mut s,
            );
            (s.supported, variable.max_variable_descriptor_count)
        };
        let (supported, max) = support(&[vk::DescriptorBindingFlags::empty(), array_flags()]);
        assert_eq!(supported, vk::TRUE);
        assert!(max >= ARRAY_MAX, "max variable count {max}");
        // Without a variable-count binding the query reports 0.
        let fixed = [
            vk::DescriptorBindingFlags::empty(),
            vk::DescriptorBindingFlags::UPDATE_AFTER_BIND,
        ];
        assert_eq!(support(&fixed), (vk::TRUE, 0));
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
