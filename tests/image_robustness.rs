//! Out-of-bounds storage image and storage texel buffer accesses through the loader
//! (robustImageAccess, VK_EXT_image_robustness): a compute shader runs atomics, stores and
//! loads at coordinates outside the view (past each edge, negative, past the layer count, far
//! out) and at one coordinate inside it. The view is level 1 and layer 0 of a two-level,
//! two-layer image, and the texel buffer view is the middle of its buffer, so an unchecked
//! access would land in memory that the host reads back: every texel and element but the
//! in-bounds ones must keep its clear value, and the out-of-bounds loads read zero.
//! agx4 checks these bounds on every device; the test enables the feature when the device
//! advertises it.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

/// The value the clears leave in texels and elements no access may reach.
const CLEARED: u32 = 0xdead;
/// The image: 16 x 16, two levels, two layers; the shader sees level 1 (8 x 8) of layer 0.
const SIZE: u32 = 16;
const LEVELS: u32 = 2;
const LAYERS: u32 = 2;
/// The texel buffer holds 64 elements; the view is elements 16..32.
const ELEMENTS: u64 = 64;
const VIEW_FIRST: u64 = 16;
const VIEW_ELEMENTS: u64 = 16;

fn device_memory_type(ctx: &Ctx, bits: u32) -> u32 {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    (0..props.memory_type_count)
        .find(|&i| {
            bits & (1 << i) != 0
                && props.memory_types[i as usize]
                    .property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        })
        .unwrap()
}

/// A device with one queue, and robustImageAccess when the device offers it.
fn device(ctx: &Ctx) -> (ash::Device, vk::Queue, bool) {
    // SAFETY: valid physical device.
    let exts = unsafe {
        ctx.instance
            .enumerate_device_extension_properties(ctx.pdev)
            .unwrap()
    };
    let robustness = exts
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::image_robustness::NAME))
        && {
            let mut f = vk::PhysicalDeviceImageRobustnessFeatures::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f);
            // SAFETY: valid physical device and chain.
            unsafe {
                ctx.instance
                    .get_physical_device_features2(ctx.pdev, &mut f2)
            };
            f.robust_image_access == vk::TRUE
        };
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let names = [ash::ext::image_robustness::NAME.as_ptr()];
    let mut features =
        vk::PhysicalDeviceImageRobustnessFeatures::default().robust_image_access(true);
    let mut info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    if robustness {
        info = info
            .enabled_extension_names(&names)
            .push_next(&mut features);
    }
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue, robustness)
}

#[test]
fn out_of_bounds_image_atomics_stores_and_loads_touch_nothing() {
    let ctx = Ctx::new();
    let (dev, queue, robustness) = device(&ctx);
    if !robustness {
        eprintln!("robustImageAccess not offered: agx4 checks the bounds anyway");
    }
    let format = vk::Format::R32_UINT;
    // SAFETY: valid device and create infos; every object is destroyed at the end, after the
    // queue is idle.
    unsafe {
        let image = dev
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(format)
                    .extent(vk::Extent3D {
                        width: SIZE,
                        height: SIZE,
                        depth: 1,
                    })
                    .mip_levels(LEVELS)
                    .array_layers(LAYERS)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(
                        vk::ImageUsageFlags::STORAGE
                            | vk::ImageUsageFlags::TRANSFER_SRC
                            | vk::ImageUsageFlags::TRANSFER_DST,
                    ),
                None,
            )
            .unwrap();
        let req = dev.get_image_memory_requirements(image);
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(device_memory_type(&ctx, req.memory_type_bits)),
                None,
            )
            .unwrap();
        dev.bind_image_memory(image, memory, 0).unwrap();
        let view = dev
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
                    .format(format)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        base_mip_level: 1,
                        level_count: 1,
                        base_array_layer: 0,
                        layer_count: 1,
                    }),
                None,
            )
            .unwrap();

        let texels = Buf::new(
            &ctx,
            &dev,
            4 * ELEMENTS,
            vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        );
        let buffer_view = dev
            .create_buffer_view(
                &vk::BufferViewCreateInfo::default()
                    .buffer(texels.buffer)
                    .format(format)
                    .offset(4 * VIEW_FIRST)
                    .range(4 * VIEW_ELEMENTS),
                None,
            )
            .unwrap();
        let out = Buf::new(&ctx, &dev, 4 * 18, vk::BufferUsageFlags::STORAGE_BUFFER);
        // Every subresource, level by level, packed one after the other.
        let level_texels = |l: u32| (SIZE >> l) * (SIZE >> l) * LAYERS;
        let readback = Buf::new(
            &ctx,
            &dev,
            u64::from(4 * (0..LEVELS).map(level_texels).sum::<u32>()),
            vk::BufferUsageFlags::TRANSFER_DST,
        );

        let bindings = [
            binding(0, vk::DescriptorType::STORAGE_IMAGE),
            binding(1, vk::DescriptorType::STORAGE_TEXEL_BUFFER),
            binding(2, vk::DescriptorType::STORAGE_BUFFER),
        ];
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let (pool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (vk::DescriptorType::STORAGE_IMAGE, 1),
                (vk::DescriptorType::STORAGE_TEXEL_BUFFER, 1),
                (vk::DescriptorType::STORAGE_BUFFER, 1),
            ],
        );
        let image_info = [vk::DescriptorImageInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::GENERAL)];
        let texel_view = [buffer_view];
        let out_info = [vk::DescriptorBufferInfo::default()
            .buffer(out.buffer)
            .range(vk::WHOLE_SIZE)];
        dev.update_descriptor_sets(
            &[
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .image_info(&image_info),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                    .texel_buffer_view(&texel_view),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(2)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&out_info),
            ],
            &[],
        );
        let p = compute::Pipeline::new(&dev, set_layout, 0, &OOB_SHADER);

        let whole = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: LEVELS,
            base_array_layer: 0,
            layer_count: LAYERS,
        };
        let barrier = |src, dst, old, new| {
            vk::ImageMemoryBarrier::default()
                .src_access_mask(src)
                .dst_access_mask(dst)
                .old_layout(old)
                .new_layout(new)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(whole)
        };
        common::submit_and_wait(&dev, queue, |cb| {
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::GENERAL,
                )],
            );
            dev.cmd_clear_color_image(
                cb,
                image,
                vk::ImageLayout::GENERAL,
                &vk::ClearColorValue {
                    uint32: [CLEARED, 0, 0, 0],
                },
                &[whole],
            );
            dev.cmd_fill_buffer(cb, texels.buffer, 0, vk::WHOLE_SIZE, CLEARED);
            let filled = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)];
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &filled,
                &[],
                &[barrier(
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::GENERAL,
                )],
            );
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            dev.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                p.layout,
                0,
                &[set],
                &[],
            );
            dev.cmd_dispatch(cb, 1, 1, 1);
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::AccessFlags::SHADER_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                    vk::ImageLayout::GENERAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                )],
            );
            let mut offset = 0;
            let regions: Vec<_> = (0..LEVELS)
                .map(|level| {
                    let region = vk::BufferImageCopy::default()
                        .buffer_offset(offset)
                        .image_subresource(vk::ImageSubresourceLayers {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            mip_level: level,
                            base_array_layer: 0,
                            layer_count: LAYERS,
                        })
                        .image_extent(vk::Extent3D {
                            width: SIZE >> level,
                            height: SIZE >> level,
                            depth: 1,
                        });
                    offset += u64::from(4 * level_texels(level));
                    region
                })
                .collect();
            dev.cmd_copy_image_to_buffer(
                cb,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback.buffer,
                &regions,
            );
            let host = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &host,
                &[],
                &[],
            );
        });

        let got = compute::words(out.bytes());
        assert_eq!(&got[0..8], &[0; 8], "out-of-bounds imageLoad of the image");
        assert_eq!(
            &got[8..16],
            &[0; 8],
            "out-of-bounds imageLoad of the texel buffer"
        );
        // The in-bounds atomics read the cleared value: the accesses reach memory.
        assert_eq!(got[16], CLEARED, "in-bounds image atomic");
        assert_eq!(got[17], CLEARED, "in-bounds texel buffer atomic");

        // Only the in-bounds texel changed, in the image and in the texel buffer.
        let image_texels = compute::words(readback.bytes());
        let mut at = 0;
        for level in 0..LEVELS {
            let n = SIZE >> level;
            for layer in 0..LAYERS {
                for y in 0..n {
                    for x in 0..n {
                        let inside = (level, layer, x, y) == (1, 0, 1, 2);
                        let want = if inside { CLEARED + 5 } else { CLEARED };
                        assert_eq!(
                            image_texels[at], want,
                            "image level {level} layer {layer} texel ({x}, {y})"
                        );
                        at += 1;
                    }
                }
            }
        }
        let elements = compute::words(texels.bytes());
        for (i, &e) in elements.iter().enumerate() {
            let want = if i as u64 == VIEW_FIRST + 3 {
                CLEARED + 7
            } else {
                CLEARED
            };
            assert_eq!(e, want, "texel buffer element {i}");
        }

        p.destroy(&dev);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        dev.destroy_buffer_view(buffer_view, None);
        dev.destroy_image_view(view, None);
        dev.destroy_image(image, None);
        dev.free_memory(memory, None);
        texels.destroy(&dev);
        out.destroy(&dev);
        readback.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(local_size_x = 16) in;
/// layout(binding = 0, r32ui) uniform uimage2DArray img;
/// layout(binding = 1, r32ui) uniform uimageBuffer tb;
/// layout(std430, binding = 2) buffer Out { uint v[]; } o;
///
/// const ivec3 OOB[8] = ivec3[8](ivec3(8, 0, 0), ivec3(0, 8, 0), ivec3(-1, 0, 0), ivec3(0, -1, 0),
///     ivec3(0, 0, 1), ivec3(0, 0, -1), ivec3(15, 15, 1), ivec3(3, 1 << 20, 0));
/// const int OOB_ELEM[8] = int[8](16, 17, 31, -1, -16, 48, 1 << 20, -(1 << 20));
///
/// void main() {
///     uint i = gl_LocalInvocationIndex;
///     if (i < 8u) {
///         ivec3 c = OOB[i];
///         imageAtomicAdd(img, c, 1u);
///         imageAtomicExchange(img, c, 0xbadu);
///         imageAtomicCompSwap(img, c, 0xdeadu, 0xbadu);
///         imageAtomicMax(img, c, 0xffffffffu);
///         imageStore(img, c, uvec4(0xbadu));
///         o.v[i] = imageLoad(img, c).x;
///         int e = OOB_ELEM[i];
///         imageAtomicAdd(tb, e, 1u);
///         imageAtomicExchange(tb, e, 0xbadu);
///         imageAtomicCompSwap(tb, e, 0xdeadu, 0xbadu);
///         imageAtomicMax(tb, e, 0xffffffffu);
///         imageStore(tb, e, uvec4(0xbadu));
///         o.v[8u + i] = imageLoad(tb, e).x;
///     } else if (i == 8u) {
///         o.v[16] = imageAtomicAdd(img, ivec3(1, 2, 0), 5u);
///         o.v[17] = imageAtomicAdd(tb, 3, 7u);
///     }
/// }
/// ```
#[rustfmt::skip]
const OOB_SHADER: [u32; 821] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000089, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x0000002f, 0x0006000b,
0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0006000f, 0x00000005,
0x00000004, 0x6e69616d, 0x00000000, 0x0000000a, 0x00060010, 0x00000004, 0x00000011, 0x00000010, 0x00000001, 0x00000001,
0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000008, 0x00000069,
0x00080005, 0x0000000a, 0x4c5f6c67, 0x6c61636f, 0x6f766e49, 0x69746163, 0x6e496e6f, 0x00786564, 0x00030005, 0x00000015,
0x00000063, 0x00050005, 0x00000029, 0x65646e69, 0x6c626178, 0x00000065, 0x00030005, 0x0000002e, 0x00676d69, 0x00030005,
0x00000046, 0x0074754f, 0x00040006, 0x00000046, 0x00000000, 0x00000076, 0x00030005, 0x00000048, 0x0000006f, 0x00030005,
0x00000051, 0x00000065, 0x00050005, 0x0000005c, 0x65646e69, 0x6c626178, 0x00000065, 0x00030005, 0x00000061, 0x00006274,
0x00040047, 0x0000000a, 0x0000000b, 0x0000001d, 0x00040047, 0x0000002e, 0x00000022, 0x00000000, 0x00040047, 0x0000002e,
0x00000021, 0x00000000, 0x00040047, 0x00000045, 0x00000006, 0x00000004, 0x00050048, 0x00000046, 0x00000000, 0x00000023,
0x00000000, 0x00030047, 0x00000046, 0x00000003, 0x00040047, 0x00000048, 0x00000022, 0x00000000, 0x00040047, 0x00000048,
0x00000021, 0x00000002, 0x00040047, 0x00000061, 0x00000022, 0x00000000, 0x00040047, 0x00000061, 0x00000021, 0x00000001,
0x00040047, 0x00000088, 0x0000000b, 0x00000019, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015,
0x00000006, 0x00000020, 0x00000000, 0x00040020, 0x00000007, 0x00000007, 0x00000006, 0x00040020, 0x00000009, 0x00000001,
0x00000006, 0x0004003b, 0x00000009, 0x0000000a, 0x00000001, 0x0004002b, 0x00000006, 0x0000000d, 0x00000008, 0x00020014,
0x0000000e, 0x00040015, 0x00000012, 0x00000020, 0x00000001, 0x00040017, 0x00000013, 0x00000012, 0x00000003, 0x00040020,
0x00000014, 0x00000007, 0x00000013, 0x0004001c, 0x00000016, 0x00000013, 0x0000000d, 0x0004002b, 0x00000012, 0x00000017,
0x00000008, 0x0004002b, 0x00000012, 0x00000018, 0x00000000, 0x0006002c, 0x00000013, 0x00000019, 0x00000017, 0x00000018,
0x00000018, 0x0006002c, 0x00000013, 0x0000001a, 0x00000018, 0x00000017, 0x00000018, 0x0004002b, 0x00000012, 0x0000001b,
0xffffffff, 0x0006002c, 0x00000013, 0x0000001c, 0x0000001b, 0x00000018, 0x00000018, 0x0006002c, 0x00000013, 0x0000001d,
0x00000018, 0x0000001b, 0x00000018, 0x0004002b, 0x00000012, 0x0000001e, 0x00000001, 0x0006002c, 0x00000013, 0x0000001f,
0x00000018, 0x00000018, 0x0000001e, 0x0006002c, 0x00000013, 0x00000020, 0x00000018, 0x00000018, 0x0000001b, 0x0004002b,
0x00000012, 0x00000021, 0x0000000f, 0x0006002c, 0x00000013, 0x00000022, 0x00000021, 0x00000021, 0x0000001e, 0x0004002b,
0x00000012, 0x00000023, 0x00000003, 0x0004002b, 0x00000012, 0x00000024, 0x00100000, 0x0006002c, 0x00000013, 0x00000025,
0x00000023, 0x00000024, 0x00000018, 0x000b002c, 0x00000016, 0x00000026, 0x00000019, 0x0000001a, 0x0000001c, 0x0000001d,
0x0000001f, 0x00000020, 0x00000022, 0x00000025, 0x00040020, 0x00000028, 0x00000007, 0x00000016, 0x00090019, 0x0000002c,
0x00000006, 0x00000001, 0x00000000, 0x00000001, 0x00000000, 0x00000002, 0x00000021, 0x00040020, 0x0000002d, 0x00000000,
0x0000002c, 0x0004003b, 0x0000002d, 0x0000002e, 0x00000000, 0x0004002b, 0x00000006, 0x00000030, 0x00000001, 0x0004002b,
0x00000006, 0x00000031, 0x00000000, 0x00040020, 0x00000032, 0x0000000b, 0x00000006, 0x0004002b, 0x00000006, 0x00000036,
0x00000bad, 0x0004002b, 0x00000006, 0x0000003a, 0x0000dead, 0x0004002b, 0x00000006, 0x0000003e, 0xffffffff, 0x00040017,
0x00000043, 0x00000006, 0x00000004, 0x0007002c, 0x00000043, 0x00000044, 0x00000036, 0x00000036, 0x00000036, 0x00000036,
0x0003001d, 0x00000045, 0x00000006, 0x0003001e, 0x00000046, 0x00000045, 0x00040020, 0x00000047, 0x00000002, 0x00000046,
0x0004003b, 0x00000047, 0x00000048, 0x00000002, 0x00040020, 0x0000004e, 0x00000002, 0x00000006, 0x00040020, 0x00000050,
0x00000007, 0x00000012, 0x0004001c, 0x00000052, 0x00000012, 0x0000000d, 0x0004002b, 0x00000012, 0x00000053, 0x00000010,
0x0004002b, 0x00000012, 0x00000054, 0x00000011, 0x0004002b, 0x00000012, 0x00000055, 0x0000001f, 0x0004002b, 0x00000012,
0x00000056, 0xfffffff0, 0x0004002b, 0x00000012, 0x00000057, 0x00000030, 0x0004002b, 0x00000012, 0x00000058, 0xfff00000,
0x000b002c, 0x00000052, 0x00000059, 0x00000053, 0x00000054, 0x00000055, 0x0000001b, 0x00000056, 0x00000057, 0x00000024,
0x00000058, 0x00040020, 0x0000005b, 0x00000007, 0x00000052, 0x00090019, 0x0000005f, 0x00000006, 0x00000005, 0x00000000,
0x00000000, 0x00000000, 0x00000002, 0x00000021, 0x00040020, 0x00000060, 0x00000000, 0x0000005f, 0x0004003b, 0x00000060,
0x00000061, 0x00000000, 0x0004002b, 0x00000012, 0x0000007c, 0x00000002, 0x0006002c, 0x00000013, 0x0000007d, 0x0000001e,
0x0000007c, 0x00000018, 0x0004002b, 0x00000006, 0x0000007e, 0x00000005, 0x0004002b, 0x00000006, 0x00000082, 0x00000007,
0x00040017, 0x00000086, 0x00000006, 0x00000003, 0x0004002b, 0x00000006, 0x00000087, 0x00000010, 0x0006002c, 0x00000086,
0x00000088, 0x00000087, 0x00000030, 0x00000030, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8,
0x00000005, 0x0004003b, 0x00000007, 0x00000008, 0x00000007, 0x0004003b, 0x00000014, 0x00000015, 0x00000007, 0x0004003b,
0x00000028, 0x00000029, 0x00000007, 0x0004003b, 0x00000050, 0x00000051, 0x00000007, 0x0004003b, 0x0000005b, 0x0000005c,
0x00000007, 0x0004003d, 0x00000006, 0x0000000b, 0x0000000a, 0x0003003e, 0x00000008, 0x0000000b, 0x0004003d, 0x00000006,
0x0000000c, 0x00000008, 0x000500b0, 0x0000000e, 0x0000000f, 0x0000000c, 0x0000000d, 0x000300f7, 0x00000011, 0x00000000,
0x000400fa, 0x0000000f, 0x00000010, 0x00000077, 0x000200f8, 0x00000010, 0x0004003d, 0x00000006, 0x00000027, 0x00000008,
0x0003003e, 0x00000029, 0x00000026, 0x00050041, 0x00000014, 0x0000002a, 0x00000029, 0x00000027, 0x0004003d, 0x00000013,
0x0000002b, 0x0000002a, 0x0003003e, 0x00000015, 0x0000002b, 0x0004003d, 0x00000013, 0x0000002f, 0x00000015, 0x0006003c,
0x00000032, 0x00000033, 0x0000002e, 0x0000002f, 0x00000031, 0x000700ea, 0x00000006, 0x00000034, 0x00000033, 0x00000030,
0x00000031, 0x00000030, 0x0004003d, 0x00000013, 0x00000035, 0x00000015, 0x0006003c, 0x00000032, 0x00000037, 0x0000002e,
0x00000035, 0x00000031, 0x000700e5, 0x00000006, 0x00000038, 0x00000037, 0x00000030, 0x00000031, 0x00000036, 0x0004003d,
0x00000013, 0x00000039, 0x00000015, 0x0006003c, 0x00000032, 0x0000003b, 0x0000002e, 0x00000039, 0x00000031, 0x000900e6,
0x00000006, 0x0000003c, 0x0000003b, 0x00000030, 0x00000031, 0x00000031, 0x00000036, 0x0000003a, 0x0004003d, 0x00000013,
0x0000003d, 0x00000015, 0x0006003c, 0x00000032, 0x0000003f, 0x0000002e, 0x0000003d, 0x00000031, 0x000700ef, 0x00000006,
0x00000040, 0x0000003f, 0x00000030, 0x00000031, 0x0000003e, 0x0004003d, 0x0000002c, 0x00000041, 0x0000002e, 0x0004003d,
0x00000013, 0x00000042, 0x00000015, 0x00040063, 0x00000041, 0x00000042, 0x00000044, 0x0004003d, 0x00000006, 0x00000049,
0x00000008, 0x0004003d, 0x0000002c, 0x0000004a, 0x0000002e, 0x0004003d, 0x00000013, 0x0000004b, 0x00000015, 0x00050062,
0x00000043, 0x0000004c, 0x0000004a, 0x0000004b, 0x00050051, 0x00000006, 0x0000004d, 0x0000004c, 0x00000000, 0x00060041,
0x0000004e, 0x0000004f, 0x00000048, 0x00000018, 0x00000049, 0x0003003e, 0x0000004f, 0x0000004d, 0x0004003d, 0x00000006,
0x0000005a, 0x00000008, 0x0003003e, 0x0000005c, 0x00000059, 0x00050041, 0x00000050, 0x0000005d, 0x0000005c, 0x0000005a,
0x0004003d, 0x00000012, 0x0000005e, 0x0000005d, 0x0003003e, 0x00000051, 0x0000005e, 0x0004003d, 0x00000012, 0x00000062,
0x00000051, 0x0006003c, 0x00000032, 0x00000063, 0x00000061, 0x00000062, 0x00000031, 0x000700ea, 0x00000006, 0x00000064,
0x00000063, 0x00000030, 0x00000031, 0x00000030, 0x0004003d, 0x00000012, 0x00000065, 0x00000051, 0x0006003c, 0x00000032,
0x00000066, 0x00000061, 0x00000065, 0x00000031, 0x000700e5, 0x00000006, 0x00000067, 0x00000066, 0x00000030, 0x00000031,
0x00000036, 0x0004003d, 0x00000012, 0x00000068, 0x00000051, 0x0006003c, 0x00000032, 0x00000069, 0x00000061, 0x00000068,
0x00000031, 0x000900e6, 0x00000006, 0x0000006a, 0x00000069, 0x00000030, 0x00000031, 0x00000031, 0x00000036, 0x0000003a,
0x0004003d, 0x00000012, 0x0000006b, 0x00000051, 0x0006003c, 0x00000032, 0x0000006c, 0x00000061, 0x0000006b, 0x00000031,
0x000700ef, 0x00000006, 0x0000006d, 0x0000006c, 0x00000030, 0x00000031, 0x0000003e, 0x0004003d, 0x0000005f, 0x0000006e,
0x00000061, 0x0004003d, 0x00000012, 0x0000006f, 0x00000051, 0x00040063, 0x0000006e, 0x0000006f, 0x00000044, 0x0004003d,
0x00000006, 0x00000070, 0x00000008, 0x00050080, 0x00000006, 0x00000071, 0x0000000d, 0x00000070, 0x0004003d, 0x0000005f,
0x00000072, 0x00000061, 0x0004003d, 0x00000012, 0x00000073, 0x00000051, 0x00050062, 0x00000043, 0x00000074, 0x00000072,
0x00000073, 0x00050051, 0x00000006, 0x00000075, 0x00000074, 0x00000000, 0x00060041, 0x0000004e, 0x00000076, 0x00000048,
0x00000018, 0x00000071, 0x0003003e, 0x00000076, 0x00000075, 0x000200f9, 0x00000011, 0x000200f8, 0x00000077, 0x0004003d,
0x00000006, 0x00000078, 0x00000008, 0x000500aa, 0x0000000e, 0x00000079, 0x00000078, 0x0000000d, 0x000300f7, 0x0000007b,
0x00000000, 0x000400fa, 0x00000079, 0x0000007a, 0x0000007b, 0x000200f8, 0x0000007a, 0x0006003c, 0x00000032, 0x0000007f,
0x0000002e, 0x0000007d, 0x00000031, 0x000700ea, 0x00000006, 0x00000080, 0x0000007f, 0x00000030, 0x00000031, 0x0000007e,
0x00060041, 0x0000004e, 0x00000081, 0x00000048, 0x00000018, 0x00000053, 0x0003003e, 0x00000081, 0x00000080, 0x0006003c,
0x00000032, 0x00000083, 0x00000061, 0x00000023, 0x00000031, 0x000700ea, 0x00000006, 0x00000084, 0x00000083, 0x00000030,
0x00000031, 0x00000082, 0x00060041, 0x0000004e, 0x00000085, 0x00000048, 0x00000018, 0x00000054, 0x0003003e, 0x00000085,
0x00000084, 0x000200f9, 0x0000007b, 0x000200f8, 0x0000007b, 0x000200f9, 0x00000011, 0x000200f8, 0x00000011, 0x000100fd,
0x00010038,
];
