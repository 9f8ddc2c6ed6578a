//! VK_EXT_inline_uniform_block through the loader: a compute shader reads two inline uniform
//! blocks whose bytes were written into the set by vkUpdateDescriptorSets (one write running
//! on from the first block into the second), by an update template, and copied from another
//! set; the layout support query and the limits.

mod common;
#[path = "../compiler/tests/common/glslang.rs"]
#[allow(dead_code)] // the shared helper's other entry points
mod glslang;

use ash::vk;
use common::compute::{self, binding, Pipeline};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

const SHADER: &str = "#version 450
layout(local_size_x = 12) in;
layout(set = 0, binding = 0, std430) buffer Out { uint o[]; };
layout(set = 0, binding = 1) uniform A { uvec4 a; };
layout(set = 0, binding = 2) uniform B { uvec4 b[2]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = i < 4u ? a[i] : b[(i - 4u) / 4u][(i - 4u) % 4u];
}
";

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::inline_uniform_block::NAME.as_ptr(),
        ash::khr::maintenance1::NAME.as_ptr(),
        ash::khr::descriptor_update_template::NAME.as_ptr(),
    ];
    let mut iub =
        vk::PhysicalDeviceInlineUniformBlockFeatures::default().inline_uniform_block(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut iub);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

fn words_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An inline uniform block write of `block`'s bytes at byte `offset` of `binding`.
fn inline_write<'a>(
    set: vk::DescriptorSet,
    binding: u32,
    offset: u32,
    block: &'a mut vk::WriteDescriptorSetInlineUniformBlock<'a>,
) -> vk::WriteDescriptorSet<'a> {
    let size = block.data_size;
    let mut w = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(binding)
        .dst_array_element(offset)
        .descriptor_type(vk::DescriptorType::INLINE_UNIFORM_BLOCK)
        .push_next(block);
    w.descriptor_count = size;
    w
}

#[test]
fn inline_blocks_written_templated_and_copied_reach_the_shader() {
    use vk::DescriptorType as T;
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let tmpl = ash::khr::descriptor_update_template::Device::new(&ctx.instance, &dev);
    let out = Buf::new(&ctx, &dev, 256, vk::BufferUsageFlags::STORAGE_BUFFER);
    let code = glslang::glslang_env(SHADER, "comp", "vulkan1.0").unwrap();
    let iub = |b: u32, size: u32| binding(b, T::INLINE_UNIFORM_BLOCK).descriptor_count(size);
    let bindings = [binding(0, T::STORAGE_BUFFER), iub(1, 16), iub(2, 32)];
    // SAFETY: valid handles and create infos; everything outlives the submission.
    unsafe {
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let p = Pipeline::new(&dev, set_layout, 0, &code);
        let sizes = [
            vk::DescriptorPoolSize {
                ty: T::STORAGE_BUFFER,
                descriptor_count: 2,
            },
            vk::DescriptorPoolSize {
                ty: T::INLINE_UNIFORM_BLOCK,
                descriptor_count: 2 * 48,
            },
        ];
        let mut pool_iub = vk::DescriptorPoolInlineUniformBlockCreateInfo::default()
            .max_inline_uniform_block_bindings(4);
        let pool = dev
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(2)
                    .pool_sizes(&sizes)
                    .push_next(&mut pool_iub),
                None,
            )
            .unwrap();
        let layouts = [set_layout, set_layout];
        let sets = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
            .unwrap();
        let (src, dst) = (sets[0], sets[1]);
        // Source set: A = 1..4 written whole, then bytes 8.. of A and 0..8 of B in one write
        // (it runs on into binding 2); the rest of B from a template.
        let first = words_bytes(&[1, 2, 3, 4]);
        let spanning = words_bytes(&[30, 40, 50, 60]);
        let mut b1 = vk::WriteDescriptorSetInlineUniformBlock::default().data(&first);
        let mut b2 = vk::WriteDescriptorSetInlineUniformBlock::default().data(&spanning);
        dev.update_descriptor_sets(
            &[
                inline_write(src, 1, 0, &mut b1),
                inline_write(src, 1, 8, &mut b2),
            ],
            &[],
        );
        // Some unrelated bytes, then B's words 2..8 (byte offset 8 of binding 2).
        let record = words_bytes(&[0xdead, 0xbeef, 7, 8, 9, 10, 11, 12]);
        let entries = [vk::DescriptorUpdateTemplateEntry {
            dst_binding: 2,
            dst_array_element: 8,
            descriptor_count: 24,
            descriptor_type: T::INLINE_UNIFORM_BLOCK,
            offset: 8,
            stride: 0,
        }];
        let mut template = vk::DescriptorUpdateTemplate::null();
        let r = (tmpl.fp().create_descriptor_update_template_khr)(
            dev.handle(),
            &vk::DescriptorUpdateTemplateCreateInfo::default()
                .descriptor_update_entries(&entries)
                .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
                .descriptor_set_layout(set_layout),
            std::ptr::null(),
            &mut template,
        );
        assert_eq!(r, vk::Result::SUCCESS);
        (tmpl.fp().update_descriptor_set_with_template_khr)(
            dev.handle(),
            src,
            template,
            record.as_ptr().cast(),
        );
        // Destination set: A's bytes 4..16 copied from the source's, its bytes 0..4 written;
        // B copied whole; then the source changes, which the destination must not see.
        let copies = [
            vk::CopyDescriptorSet::default()
                .src_set(src)
                .src_binding(1)
                .src_array_element(4)
                .dst_set(dst)
                .dst_binding(1)
                .dst_array_element(4)
                .descriptor_count(12),
            vk::CopyDescriptorSet::default()
                .src_set(src)
                .src_binding(2)
                .dst_set(dst)
                .dst_binding(2)
                .descriptor_count(32),
        ];
        dev.update_descriptor_sets(&[], &copies);
        let head = words_bytes(&[100]);
        let later = words_bytes(&[0xbad, 0xbad, 0xbad, 0xbad]);
        let mut b3 = vk::WriteDescriptorSetInlineUniformBlock::default().data(&head);
        let mut b4 = vk::WriteDescriptorSetInlineUniformBlock::default().data(&later);
        let storage = [vk::DescriptorBufferInfo {
            buffer: out.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let storage_write = |set| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(0)
                .descriptor_type(T::STORAGE_BUFFER)
                .buffer_info(&storage)
        };
        dev.update_descriptor_sets(
            &[
                inline_write(dst, 1, 0, &mut b3),
                inline_write(src, 2, 0, &mut b4),
                storage_write(dst),
            ],
            &[],
        );
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            dev.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[dst],
                &[],
            );
            dev.cmd_dispatch(cb, 1, 1, 1);
            compute::shader_writes_to_host(&dev, cb);
        });
        (tmpl.fp().destroy_descriptor_update_template_khr)(
            dev.handle(),
            template,
            std::ptr::null(),
        );
        p.destroy(&dev);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
    }
    let got = compute::words(&out.bytes()[..48]);
    assert_eq!(got, [100, 2, 30, 40, 50, 60, 7, 8, 9, 10, 11, 12]);
    out.destroy(&dev);
    // SAFETY: nothing else uses the device.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn limits_and_layout_support() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_1);
    let (dev, _queue) = device(&ctx);
    // SAFETY: valid physical device and device.
    unsafe {
        let mut iub = vk::PhysicalDeviceInlineUniformBlockProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut iub);
        ctx.instance
            .get_physical_device_properties2(ctx.pdev, &mut props);
        assert!(iub.max_inline_uniform_block_size >= 256);
        assert!(iub.max_per_stage_descriptor_inline_uniform_blocks >= 4);
        assert!(iub.max_descriptor_set_inline_uniform_blocks >= 4);
        let mut features = vk::PhysicalDeviceInlineUniformBlockFeatures::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut features);
        ctx.instance
            .get_physical_device_features2(ctx.pdev, &mut f2);
        assert_eq!(features.inline_uniform_block, vk::TRUE);
        // The largest block, and as many as the set limit, beside a buffer.
        let iub_binding = |b: u32| {
            binding(b, vk::DescriptorType::INLINE_UNIFORM_BLOCK)
                .descriptor_count(iub.max_inline_uniform_block_size)
        };
        let mut bindings = vec![binding(0, vk::DescriptorType::STORAGE_BUFFER)];
        bindings.extend((1..=iub.max_descriptor_set_inline_uniform_blocks.min(8)).map(iub_binding));
        let mut s = vk::DescriptorSetLayoutSupport::default();
        dev.get_descriptor_set_layout_support(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            &mut s,
        );
        assert_eq!(s.supported, vk::TRUE);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
