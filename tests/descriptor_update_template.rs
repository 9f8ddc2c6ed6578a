//! VK_KHR_descriptor_update_template and VK_KHR_push_descriptor through the loader: descriptor
//! sets written from the application's own structure layout (offsets and strides), and push
//! descriptor sets pushed with writes and with templates, checked by compute dispatches that
//! read and write the buffers the descriptors name; image and sampler descriptors written
//! through a template as well (shaders cannot sample yet: no errors, no validation messages).

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::{host_visible_type, Buf};
use common::{assert_no_validation_messages, Ctx};

/// The extension's commands (ash wraps only the core 1.1 names).
struct Templates(ash::khr::descriptor_update_template::Device);

impl Templates {
    fn new(ctx: &Ctx, dev: &ash::Device) -> Templates {
        Templates(ash::khr::descriptor_update_template::Device::new(
            &ctx.instance,
            dev,
        ))
    }

    /// # Safety
    /// Valid create info.
    unsafe fn create(
        &self,
        info: &vk::DescriptorUpdateTemplateCreateInfo<'_>,
    ) -> vk::DescriptorUpdateTemplate {
        let mut t = vk::DescriptorUpdateTemplate::null();
        // SAFETY: guaranteed by the caller; the output is writable.
        let r = unsafe {
            (self.0.fp().create_descriptor_update_template_khr)(
                self.0.device(),
                info,
                std::ptr::null(),
                &mut t,
            )
        };
        assert_eq!(r, vk::Result::SUCCESS);
        t
    }

    /// # Safety
    /// `data` holds what the template reads.
    unsafe fn update(
        &self,
        set: vk::DescriptorSet,
        t: vk::DescriptorUpdateTemplate,
        data: *const std::ffi::c_void,
    ) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            (self.0.fp().update_descriptor_set_with_template_khr)(self.0.device(), set, t, data)
        }
    }

    /// # Safety
    /// Nothing uses the template.
    unsafe fn destroy(&self, t: vk::DescriptorUpdateTemplate) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            (self.0.fp().destroy_descriptor_update_template_khr)(
                self.0.device(),
                t,
                std::ptr::null(),
            )
        }
    }
}

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::khr::descriptor_update_template::NAME.as_ptr(),
        ash::khr::push_descriptor::NAME.as_ptr(),
    ];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

/// The application's record the template reads: a uniform buffer (dynamic), some unrelated
/// bytes, then the storage buffer.
#[repr(C)]
struct Record {
    uniform: vk::DescriptorBufferInfo,
    _unrelated: [u32; 3],
    storage: vk::DescriptorBufferInfo,
}

#[test]
fn template_writes_buffers_a_dispatch_uses() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let tmpl = Templates::new(&ctx, &dev);
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::UNIFORM_BUFFER;
    let out = Buf::new(&ctx, &dev, 1024, usage);
    let mut uniforms = Buf::new(&ctx, &dev, 1024, usage);
    let mut u = vec![0u8; 512];
    u[256..260].copy_from_slice(&11u32.to_le_bytes());
    uniforms.write(&u);
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
    ];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let (set_layout, p) = compute::dispatch_pipeline(&dev, Default::default(), &bindings);
        let (dpool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (vk::DescriptorType::STORAGE_BUFFER, 1),
                (vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC, 1),
            ],
        );
        let entries = [
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 1,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                offset: std::mem::offset_of!(Record, uniform),
                stride: 0,
            },
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 0,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
                offset: std::mem::offset_of!(Record, storage),
                stride: std::mem::size_of::<Record>(),
            },
        ];
        let template = tmpl.create(
            &vk::DescriptorUpdateTemplateCreateInfo::default()
                .descriptor_update_entries(&entries)
                .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
                .descriptor_set_layout(set_layout),
        );
        let record = Record {
            uniform: vk::DescriptorBufferInfo {
                buffer: uniforms.buffer,
                offset: 0,
                range: 16,
            },
            _unrelated: [0xdead; 3],
            storage: vk::DescriptorBufferInfo {
                buffer: out.buffer,
                offset: 256,
                range: 512,
            },
        };
        tmpl.update(
            set,
            template,
            &record as *const Record as *const std::ffi::c_void,
        );
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            dev.cmd_push_constants(
                cb,
                p.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &4u32.to_le_bytes(),
            );
            dev.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[set],
                &[256],
            );
            dev.cmd_dispatch(cb, 2, 1, 1);
        });
        tmpl.destroy(template);
        p.destroy(&dev);
        dev.destroy_descriptor_pool(dpool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
    }
    let o = out.bytes();
    let word = |i: usize| u32::from_le_bytes(o[4 * i..4 * i + 4].try_into().unwrap());
    for i in 0..16u32 {
        assert_eq!(word(64 + i as usize), i * 4 + 11 + 2000, "invocation {i}");
    }
    assert_eq!(word(63), 0, "the storage descriptor starts at byte 256");
    assert_eq!(word(64 + 16), 0);
    out.destroy(&dev);
    uniforms.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Samplers, combined image samplers and sampled images through a template, an array of
/// image infos with a stride.
#[test]
fn template_writes_image_and_sampler_descriptors() {
    use vk::DescriptorType as T;
    let ctx = Ctx::new();
    let (dev, _queue) = device(&ctx);
    let tmpl = Templates::new(&ctx, &dev);
    // SAFETY: valid handles and create infos; everything is destroyed at the end.
    unsafe {
        let image = dev
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .extent(vk::Extent3D {
                        width: 8,
                        height: 8,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(vk::ImageUsageFlags::SAMPLED),
                None,
            )
            .unwrap();
        let req = dev.get_image_memory_requirements(image);
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(host_visible_type(&ctx)),
                None,
            )
            .unwrap();
        dev.bind_image_memory(image, memory, 0).unwrap();
        let view = dev
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        base_mip_level: 0,
                        level_count: 1,
                        base_array_layer: 0,
                        layer_count: 1,
                    }),
                None,
            )
            .unwrap();
        let sampler = dev
            .create_sampler(&vk::SamplerCreateInfo::default().mip_lod_bias(2.0), None)
            .unwrap();
        let binding = |b: u32, ty, n| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(ty)
                .descriptor_count(n)
                .stage_flags(vk::ShaderStageFlags::ALL)
        };
        let bindings = [
            binding(0, T::SAMPLER, 2),
            binding(1, T::COMBINED_IMAGE_SAMPLER, 3),
            binding(2, T::SAMPLED_IMAGE, 1),
        ];
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let (dpool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (T::SAMPLER, 2),
                (T::COMBINED_IMAGE_SAMPLER, 3),
                (T::SAMPLED_IMAGE, 1),
            ],
        );
        let info = vk::DescriptorImageInfo {
            sampler,
            image_view: view,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        };
        // Every descriptor reads the same info (stride 0), then an array with a stride.
        let infos = [info; 4];
        let stride = std::mem::size_of::<vk::DescriptorImageInfo>();
        let entries = [
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 0,
                dst_array_element: 0,
                descriptor_count: 2,
                descriptor_type: T::SAMPLER,
                offset: 0,
                stride: 0,
            },
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 1,
                dst_array_element: 1,
                descriptor_count: 2,
                descriptor_type: T::COMBINED_IMAGE_SAMPLER,
                offset: stride,
                stride,
            },
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 2,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: T::SAMPLED_IMAGE,
                offset: 3 * stride,
                stride,
            },
        ];
        let template = tmpl.create(
            &vk::DescriptorUpdateTemplateCreateInfo::default()
                .descriptor_update_entries(&entries)
                .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
                .descriptor_set_layout(set_layout),
        );
        tmpl.update(set, template, infos.as_ptr().cast());
        tmpl.destroy(template);
        dev.destroy_descriptor_pool(dpool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_sampler(sampler, None);
        dev.destroy_image_view(view, None);
        dev.destroy_image(image, None);
        dev.free_memory(memory, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Two dispatches with push descriptor sets: the first pushed with vkCmdPushDescriptorSetKHR,
/// the second with a push template; each reads the contents it was recorded with.
#[test]
fn push_descriptors_and_push_templates() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let tmpl = Templates::new(&ctx, &dev);
    let pushd = ash::khr::push_descriptor::Device::new(&ctx.instance, &dev);
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::UNIFORM_BUFFER;
    let out = Buf::new(&ctx, &dev, 1024, usage);
    let mut uniforms = Buf::new(&ctx, &dev, 1024, usage);
    let mut u = vec![0u8; 512];
    u[0..4].copy_from_slice(&5u32.to_le_bytes());
    u[256..260].copy_from_slice(&9u32.to_le_bytes());
    uniforms.write(&u);
    // SAFETY: valid physical device.
    let max_push = unsafe {
        let mut push_props = vk::PhysicalDevicePushDescriptorPropertiesKHR::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut push_props);
        ctx.instance
            .get_physical_device_properties2(ctx.pdev, &mut props);
        push_props.max_push_descriptors
    };
    assert!(max_push >= 32);
    let bindings = [
        binding(0, vk::DescriptorType::STORAGE_BUFFER),
        binding(1, vk::DescriptorType::UNIFORM_BUFFER),
    ];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let push = vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR;
        let (set_layout, p) = compute::dispatch_pipeline(&dev, push, &bindings);
        let layout = p.layout;
        let entries = [
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 1,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: vk::DescriptorType::UNIFORM_BUFFER,
                offset: std::mem::offset_of!(Record, uniform),
                stride: 0,
            },
            vk::DescriptorUpdateTemplateEntry {
                dst_binding: 0,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
                offset: std::mem::offset_of!(Record, storage),
                stride: 0,
            },
        ];
        let template = tmpl.create(
            &vk::DescriptorUpdateTemplateCreateInfo::default()
                .descriptor_update_entries(&entries)
                .template_type(vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR)
                .pipeline_bind_point(vk::PipelineBindPoint::COMPUTE)
                .pipeline_layout(layout)
                .set(0),
        );
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            let storage = [vk::DescriptorBufferInfo {
                buffer: out.buffer,
                offset: 0,
                range: 256,
            }];
            let uniform = [vk::DescriptorBufferInfo {
                buffer: uniforms.buffer,
                offset: 0,
                range: 16,
            }];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&storage),
                vk::WriteDescriptorSet::default()
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&uniform),
            ];
            pushd.cmd_push_descriptor_set(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &writes);
            dev.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &3u32.to_le_bytes(),
            );
            dev.cmd_dispatch(cb, 1, 1, 1);
            let record = Record {
                uniform: vk::DescriptorBufferInfo {
                    buffer: uniforms.buffer,
                    offset: 256,
                    range: 16,
                },
                _unrelated: [0; 3],
                storage: vk::DescriptorBufferInfo {
                    buffer: out.buffer,
                    offset: 512,
                    range: 256,
                },
            };
            (tmpl.0.fp().cmd_push_descriptor_set_with_template_khr)(
                cb,
                template,
                layout,
                0,
                &record as *const Record as *const std::ffi::c_void,
            );
            dev.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &7u32.to_le_bytes(),
            );
            dev.cmd_dispatch(cb, 2, 1, 1);
        });
        tmpl.destroy(template);
        p.destroy(&dev);
        dev.destroy_descriptor_set_layout(set_layout, None);
    }
    let o = out.bytes();
    let word = |i: usize| u32::from_le_bytes(o[4 * i..4 * i + 4].try_into().unwrap());
    for i in 0..8u32 {
        assert_eq!(
            word(i as usize),
            i * 3 + 5 + 1000,
            "first dispatch, invocation {i}"
        );
    }
    assert_eq!(word(8), 0);
    for i in 0..16u32 {
        assert_eq!(
            word(128 + i as usize),
            i * 7 + 9 + 2000,
            "second dispatch, invocation {i}"
        );
    }
    assert_eq!(word(128 + 16), 0);
    out.destroy(&dev);
    uniforms.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
