//! Storage images through the loader: a compute shader stores into and loads from storage
//! image views of several types (a 2D view of one level and layer, a 2D array view of a layer
//! range, a 3D view of every slice, a cube view of six faces), asks their sizes, and the
//! host then reads every subresource back with vkCmdCopyImageToBuffer. The images are first
//! cleared with vkCmdClearColorImage, so a store that lands in the wrong layer, level or
//! slice shows as a wrong texel in the copy, and the untouched subresources must keep the
//! clear value. Also the format features and image format properties of storage images.

mod common;

use ash::vk;
use common::compute::{self, binding};
use common::render::Buf;
use common::{assert_no_validation_messages, Ctx};

/// The value the clear leaves in texels no store reaches.
const CLEARED: u32 = 0xdead;

/// One storage image of the test: its create parameters, the view the shader sees, and the
/// value the shader stores at texel `id` (y * 8 + x) of view layer `l`.
struct Case {
    ty: vk::ImageType,
    extent: (u32, u32, u32),
    levels: u32,
    layers: u32,
    flags: vk::ImageCreateFlags,
    view_type: vk::ImageViewType,
    /// (base level, base layer, layer count) of the view.
    view: (u32, u32, u32),
    base_value: u32,
}

fn cases() -> [Case; 4] {
    let plain = vk::ImageCreateFlags::empty();
    [
        // Level 1 (8x8) of layer 2 of a 16x16 image of three layers and two levels.
        Case {
            ty: vk::ImageType::TYPE_2D,
            extent: (16, 16, 1),
            levels: 2,
            layers: 3,
            flags: plain,
            view_type: vk::ImageViewType::TYPE_2D,
            view: (1, 2, 1),
            base_value: 0x1000,
        },
        // Layers 1..4 of an 8x8 image of four layers.
        Case {
            ty: vk::ImageType::TYPE_2D,
            extent: (8, 8, 1),
            levels: 1,
            layers: 4,
            flags: plain,
            view_type: vk::ImageViewType::TYPE_2D_ARRAY,
            view: (0, 1, 3),
            base_value: 0x2000,
        },
        // Every slice of an 8x8x4 volume.
        Case {
            ty: vk::ImageType::TYPE_3D,
            extent: (8, 8, 4),
            levels: 1,
            layers: 1,
            flags: plain,
            view_type: vk::ImageViewType::TYPE_3D,
            view: (0, 0, 1),
            base_value: 0x3000,
        },
        // The six faces of an 8x8 cube.
        Case {
            ty: vk::ImageType::TYPE_2D,
            extent: (8, 8, 1),
            levels: 1,
            layers: 6,
            flags: vk::ImageCreateFlags::CUBE_COMPATIBLE,
            view_type: vk::ImageViewType::CUBE,
            view: (0, 0, 6),
            base_value: 0x4000,
        },
    ]
}

impl Case {
    /// Layers (or slices) the shader writes through the view.
    fn view_layers(&self) -> u32 {
        if self.ty == vk::ImageType::TYPE_3D {
            self.extent.2
        } else {
            self.view.2
        }
    }

    /// What the copy of level `level`, layer (or slice) `layer` must hold at texel `i`.
    fn expected(&self, level: u32, layer: u32, i: u32) -> u32 {
        let (vl, vb, vn) = self.view;
        let slices = self.ty == vk::ImageType::TYPE_3D;
        let in_view = level == vl && (slices || (layer >= vb && layer < vb + vn));
        if !in_view {
            return CLEARED;
        }
        let l = if slices { layer } else { layer - vb };
        self.base_value + l * 0x100 + i
    }
}

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

#[test]
fn compute_stores_and_loads_through_every_view_type() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let cases = cases();
    let format = vk::Format::R32_UINT;
    // SAFETY: valid device and create infos; every object is destroyed at the end, after the
    // queue is idle.
    unsafe {
        let mut images = Vec::new();
        let mut views = Vec::new();
        let mut memories = Vec::new();
        for c in &cases {
            let info = vk::ImageCreateInfo::default()
                .flags(c.flags)
                .image_type(c.ty)
                .format(format)
                .extent(vk::Extent3D {
                    width: c.extent.0,
                    height: c.extent.1,
                    depth: c.extent.2,
                })
                .mip_levels(c.levels)
                .array_layers(c.layers)
                .samples(vk::SampleCountFlags::TYPE_1)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(
                    vk::ImageUsageFlags::STORAGE
                        | vk::ImageUsageFlags::TRANSFER_SRC
                        | vk::ImageUsageFlags::TRANSFER_DST,
                );
            let image = dev
                .create_image(&info, None)
                .expect("vkCreateImage STORAGE");
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
            let (level, layer, count) = c.view;
            let view = dev
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(c.view_type)
                        .format(format)
                        .subresource_range(vk::ImageSubresourceRange {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            base_mip_level: level,
                            level_count: 1,
                            base_array_layer: layer,
                            layer_count: count,
                        }),
                    None,
                )
                .expect("vkCreateImageView of a storage image");
            images.push(image);
            views.push(view);
            memories.push(memory);
        }

        let out = Buf::new(&ctx, &dev, 4 * 1024, vk::BufferUsageFlags::STORAGE_BUFFER);
        // One readback buffer per image, big enough for every subresource of it.
        let readbacks: Vec<Buf> = cases
            .iter()
            .map(|c| {
                let texels = (0..c.levels)
                    .map(|l| {
                        let (w, h) = ((c.extent.0 >> l).max(1), (c.extent.1 >> l).max(1));
                        w * h * c.layers * c.extent.2
                    })
                    .sum::<u32>();
                Buf::new(
                    &ctx,
                    &dev,
                    u64::from(4 * texels),
                    vk::BufferUsageFlags::TRANSFER_DST,
                )
            })
            .collect();

        let bindings: Vec<_> = (0..5)
            .map(|b| {
                binding(
                    b,
                    if b < 4 {
                        vk::DescriptorType::STORAGE_IMAGE
                    } else {
                        vk::DescriptorType::STORAGE_BUFFER
                    },
                )
            })
            .collect();
        let set_layout = compute::set_layout(&dev, Default::default(), &bindings);
        let (pool, set) = compute::descriptor_set(
            &dev,
            set_layout,
            1,
            &[
                (vk::DescriptorType::STORAGE_IMAGE, 4),
                (vk::DescriptorType::STORAGE_BUFFER, 1),
            ],
        );
        let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = views
            .iter()
            .map(|&v| {
                [vk::DescriptorImageInfo::default()
                    .image_view(v)
                    .image_layout(vk::ImageLayout::GENERAL)]
            })
            .collect();
        let buffer_info = [vk::DescriptorBufferInfo::default()
            .buffer(out.buffer)
            .range(vk::WHOLE_SIZE)];
        let mut writes: Vec<_> = image_infos
            .iter()
            .enumerate()
            .map(|(b, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                    .image_info(info)
            })
            .collect();
        writes.push(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(4)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&buffer_info),
        );
        dev.update_descriptor_sets(&writes, &[]);

        let p = compute::Pipeline::new(&dev, set_layout, 0, &STORE_LOAD_SHADER);

        let whole = |c: &Case| vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: c.levels,
            base_array_layer: 0,
            layer_count: c.layers,
        };
        let barrier = |image, c: &Case, src, dst, old, new| {
            vk::ImageMemoryBarrier::default()
                .src_access_mask(src)
                .dst_access_mask(dst)
                .old_layout(old)
                .new_layout(new)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(whole(c))
        };
        common::submit_and_wait(&dev, queue, |cb| {
            let to_clear: Vec<_> = images
                .iter()
                .zip(&cases)
                .map(|(&i, c)| {
                    barrier(
                        i,
                        c,
                        vk::AccessFlags::empty(),
                        vk::AccessFlags::TRANSFER_WRITE,
                        vk::ImageLayout::UNDEFINED,
                        vk::ImageLayout::GENERAL,
                    )
                })
                .collect();
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_clear,
            );
            for (&image, c) in images.iter().zip(&cases) {
                dev.cmd_clear_color_image(
                    cb,
                    image,
                    vk::ImageLayout::GENERAL,
                    &vk::ClearColorValue {
                        uint32: [CLEARED, 0, 0, 0],
                    },
                    &[whole(c)],
                );
            }
            let to_shader: Vec<_> = images
                .iter()
                .zip(&cases)
                .map(|(&i, c)| {
                    barrier(
                        i,
                        c,
                        vk::AccessFlags::TRANSFER_WRITE,
                        vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                        vk::ImageLayout::GENERAL,
                        vk::ImageLayout::GENERAL,
                    )
                })
                .collect();
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_shader,
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
            let to_copy: Vec<_> = images
                .iter()
                .zip(&cases)
                .map(|(&i, c)| {
                    barrier(
                        i,
                        c,
                        vk::AccessFlags::SHADER_WRITE,
                        vk::AccessFlags::TRANSFER_READ,
                        vk::ImageLayout::GENERAL,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    )
                })
                .collect();
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_copy,
            );
            // Level by level, all layers (or slices) at once, packed one after the other.
            for ((&image, c), rb) in images.iter().zip(&cases).zip(&readbacks) {
                let mut offset = 0;
                let mut regions = Vec::new();
                for level in 0..c.levels {
                    let (w, h) = ((c.extent.0 >> level).max(1), (c.extent.1 >> level).max(1));
                    regions.push(
                        vk::BufferImageCopy::default()
                            .buffer_offset(offset)
                            .image_subresource(vk::ImageSubresourceLayers {
                                aspect_mask: vk::ImageAspectFlags::COLOR,
                                mip_level: level,
                                base_array_layer: 0,
                                layer_count: c.layers,
                            })
                            .image_extent(vk::Extent3D {
                                width: w,
                                height: h,
                                depth: c.extent.2,
                            }),
                    );
                    offset += u64::from(4 * w * h * c.layers * c.extent.2);
                }
                dev.cmd_copy_image_to_buffer(
                    cb,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    rb.buffer,
                    &regions,
                );
            }
            let host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[host],
                &[],
                &[],
            );
        });

        let words = |b: &Buf| compute::words(b.bytes());
        // The shader's loads read back its stores, through every view type.
        let got = words(&out);
        let mut at = 0;
        for c in &cases {
            for l in 0..c.view_layers() {
                for i in 0..64 {
                    assert_eq!(
                        got[at],
                        c.base_value + l * 0x100 + i,
                        "imageLoad of {:?} layer {l} texel {i}",
                        c.view_type
                    );
                    at += 1;
                }
            }
        }
        // imageSize: the view's level, layer count, slices; a cube's face size.
        assert_eq!(&got[896..906], &[8, 8, 8, 8, 3, 8, 8, 4, 8, 8]);

        // Every subresource of every image: the stores landed where copies see them, and
        // nowhere else.
        for (c, rb) in cases.iter().zip(&readbacks) {
            let texels = words(rb);
            let mut at = 0;
            for level in 0..c.levels {
                let (w, h) = ((c.extent.0 >> level).max(1), (c.extent.1 >> level).max(1));
                for layer in 0..c.layers * c.extent.2 {
                    for y in 0..h {
                        for x in 0..w {
                            let want = if x < 8 && y < 8 {
                                c.expected(level, layer, y * 8 + x)
                            } else {
                                CLEARED
                            };
                            assert_eq!(
                                texels[at], want,
                                "{:?} image level {level} layer {layer} texel ({x}, {y})",
                                c.view_type
                            );
                            at += 1;
                        }
                    }
                }
            }
        }

        p.destroy(&dev);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(set_layout, None);
        for v in views {
            dev.destroy_image_view(v, None);
        }
        for i in images {
            dev.destroy_image(i, None);
        }
        for m in memories {
            dev.free_memory(m, None);
        }
        out.destroy(&dev);
        for rb in readbacks {
            rb.destroy(&dev);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// The storage formats Vulkan makes mandatory offer STORAGE_IMAGE in both tilings; sRGB and
/// depth formats do not; storage images are single-sampled.
#[test]
fn storage_format_features_and_properties() {
    let ctx = Ctx::new();
    use vk::Format as F;
    for f in [
        F::R8G8B8A8_UNORM,
        F::R8G8B8A8_SNORM,
        F::R8G8B8A8_UINT,
        F::R8G8B8A8_SINT,
        F::R16G16B16A16_UINT,
        F::R16G16B16A16_SINT,
        F::R16G16B16A16_SFLOAT,
        F::R32_UINT,
        F::R32_SINT,
        F::R32_SFLOAT,
        F::R32G32_UINT,
        F::R32G32_SINT,
        F::R32G32_SFLOAT,
        F::R32G32B32A32_UINT,
        F::R32G32B32A32_SINT,
        F::R32G32B32A32_SFLOAT,
    ] {
        // SAFETY: valid physical device.
        let p = unsafe {
            ctx.instance
                .get_physical_device_format_properties(ctx.pdev, f)
        };
        assert!(
            p.optimal_tiling_features
                .contains(vk::FormatFeatureFlags::STORAGE_IMAGE),
            "{f:?}"
        );
        assert!(
            p.linear_tiling_features
                .contains(vk::FormatFeatureFlags::STORAGE_IMAGE),
            "{f:?}"
        );
    }
    for f in [
        F::R8G8B8A8_SRGB,
        F::B8G8R8A8_SRGB,
        F::D32_SFLOAT,
        F::S8_UINT,
    ] {
        // SAFETY: valid physical device.
        let p = unsafe {
            ctx.instance
                .get_physical_device_format_properties(ctx.pdev, f)
        };
        assert!(
            !p.optimal_tiling_features
                .contains(vk::FormatFeatureFlags::STORAGE_IMAGE),
            "{f:?}"
        );
    }
    // SAFETY: valid physical device and parameters.
    let props = unsafe {
        ctx.instance.get_physical_device_image_format_properties(
            ctx.pdev,
            F::R8G8B8A8_UNORM,
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::COLOR_ATTACHMENT,
            vk::ImageCreateFlags::empty(),
        )
    }
    .expect("storage images of R8G8B8A8_UNORM");
    assert_eq!(props.sample_counts, vk::SampleCountFlags::TYPE_1);
    // SAFETY: as above.
    let srgb = unsafe {
        ctx.instance.get_physical_device_image_format_properties(
            ctx.pdev,
            F::R8G8B8A8_SRGB,
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            vk::ImageUsageFlags::STORAGE,
            vk::ImageCreateFlags::empty(),
        )
    };
    assert_eq!(srgb.err(), Some(vk::Result::ERROR_FORMAT_NOT_SUPPORTED));
    assert_no_validation_messages();
}

/// glslangValidator -V -g0 --target-env vulkan1.0 of:
/// ```glsl
/// #version 450
/// layout(local_size_x = 8, local_size_y = 8) in;
/// layout(set = 0, binding = 0, r32ui) uniform uimage2D level_layer;
/// layout(set = 0, binding = 1, r32ui) uniform uimage2DArray layers;
/// layout(set = 0, binding = 2, r32ui) uniform uimage3D volume;
/// layout(set = 0, binding = 3, r32ui) uniform uimageCube cube;
/// layout(set = 0, binding = 4) buffer Out { uint v[]; } o;
/// void main() {
///     ivec2 p = ivec2(gl_GlobalInvocationID.xy);
///     uint id = uint(p.y * 8 + p.x);
///     imageStore(level_layer, p, uvec4(0x1000u + id));
///     for (int l = 0; l < 3; l++)
///         imageStore(layers, ivec3(p, l), uvec4(0x2000u + uint(l) * 0x100u + id));
///     for (int z = 0; z < 4; z++)
///         imageStore(volume, ivec3(p, z), uvec4(0x3000u + uint(z) * 0x100u + id));
///     for (int f = 0; f < 6; f++)
///         imageStore(cube, ivec3(p, f), uvec4(0x4000u + uint(f) * 0x100u + id));
///     o.v[id] = imageLoad(level_layer, p).x;
///     for (int l = 0; l < 3; l++)
///         o.v[64 + l * 64 + id] = imageLoad(layers, ivec3(p, l)).x;
///     for (int z = 0; z < 4; z++)
///         o.v[256 + z * 64 + id] = imageLoad(volume, ivec3(p, z)).x;
///     for (int f = 0; f < 6; f++)
///         o.v[512 + f * 64 + id] = imageLoad(cube, ivec3(p, f)).x;
///     if (id == 0u) {
///         o.v[896] = uint(imageSize(level_layer).x);
///         o.v[897] = uint(imageSize(level_layer).y);
///         o.v[898] = uint(imageSize(layers).x);
///         o.v[899] = uint(imageSize(layers).y);
///         o.v[900] = uint(imageSize(layers).z);
///         o.v[901] = uint(imageSize(volume).x);
///         o.v[902] = uint(imageSize(volume).y);
///         o.v[903] = uint(imageSize(volume).z);
///         o.v[904] = uint(imageSize(cube).x);
///         o.v[905] = uint(imageSize(cube).y);
///     }
/// }
/// ```
#[rustfmt::skip]
const STORE_LOAD_SHADER: [u32; 1504] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000011e, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000032, 0x0006000b,
0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0006000f, 0x00000005,
0x00000004, 0x6e69616d, 0x00000000, 0x0000000d, 0x00060010, 0x00000004, 0x00000011, 0x00000008, 0x00000008, 0x00000001,
0x00040047, 0x0000000d, 0x0000000b, 0x0000001c, 0x00040047, 0x00000021, 0x00000022, 0x00000000, 0x00040047, 0x00000021,
0x00000021, 0x00000000, 0x00040047, 0x00000036, 0x00000022, 0x00000000, 0x00040047, 0x00000036, 0x00000021, 0x00000001,
0x00040047, 0x00000055, 0x00000022, 0x00000000, 0x00040047, 0x00000055, 0x00000021, 0x00000002, 0x00040047, 0x00000071,
0x00000022, 0x00000000, 0x00040047, 0x00000071, 0x00000021, 0x00000003, 0x00040047, 0x00000082, 0x00000006, 0x00000004,
0x00050048, 0x00000083, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x00000083, 0x00000003, 0x00040047, 0x00000085,
0x00000022, 0x00000000, 0x00040047, 0x00000085, 0x00000021, 0x00000004, 0x00040047, 0x0000011d, 0x0000000b, 0x00000019,
0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000001, 0x00040017,
0x00000007, 0x00000006, 0x00000002, 0x00040020, 0x00000008, 0x00000007, 0x00000007, 0x00040015, 0x0000000a, 0x00000020,
0x00000000, 0x00040017, 0x0000000b, 0x0000000a, 0x00000003, 0x00040020, 0x0000000c, 0x00000001, 0x0000000b, 0x0004003b,
0x0000000c, 0x0000000d, 0x00000001, 0x00040017, 0x0000000e, 0x0000000a, 0x00000002, 0x00040020, 0x00000012, 0x00000007,
0x0000000a, 0x0004002b, 0x0000000a, 0x00000014, 0x00000001, 0x00040020, 0x00000015, 0x00000007, 0x00000006, 0x0004002b,
0x00000006, 0x00000018, 0x00000008, 0x0004002b, 0x0000000a, 0x0000001a, 0x00000000, 0x00090019, 0x0000001f, 0x0000000a,
0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000002, 0x00000021, 0x00040020, 0x00000020, 0x00000000, 0x0000001f,
0x0004003b, 0x00000020, 0x00000021, 0x00000000, 0x0004002b, 0x0000000a, 0x00000024, 0x00001000, 0x00040017, 0x00000027,
0x0000000a, 0x00000004, 0x0004002b, 0x00000006, 0x0000002a, 0x00000000, 0x0004002b, 0x00000006, 0x00000031, 0x00000003,
0x00020014, 0x00000032, 0x00090019, 0x00000034, 0x0000000a, 0x00000001, 0x00000000, 0x00000001, 0x00000000, 0x00000002,
0x00000021, 0x00040020, 0x00000035, 0x00000000, 0x00000034, 0x0004003b, 0x00000035, 0x00000036, 0x00000000, 0x00040017,
0x0000003a, 0x00000006, 0x00000003, 0x0004002b, 0x0000000a, 0x0000003e, 0x00002000, 0x0004002b, 0x0000000a, 0x00000041,
0x00000100, 0x0004002b, 0x00000006, 0x00000048, 0x00000001, 0x0004002b, 0x00000006, 0x00000051, 0x00000004, 0x00090019,
0x00000053, 0x0000000a, 0x00000002, 0x00000000, 0x00000000, 0x00000000, 0x00000002, 0x00000021, 0x00040020, 0x00000054,
0x00000000, 0x00000053, 0x0004003b, 0x00000054, 0x00000055, 0x00000000, 0x0004002b, 0x0000000a, 0x0000005c, 0x00003000,
0x0004002b, 0x00000006, 0x0000006d, 0x00000006, 0x00090019, 0x0000006f, 0x0000000a, 0x00000003, 0x00000000, 0x00000000,
0x00000000, 0x00000002, 0x00000021, 0x00040020, 0x00000070, 0x00000000, 0x0000006f, 0x0004003b, 0x00000070, 0x00000071,
0x00000000, 0x0004002b, 0x0000000a, 0x00000078, 0x00004000, 0x0003001d, 0x00000082, 0x0000000a, 0x0003001e, 0x00000083,
0x00000082, 0x00040020, 0x00000084, 0x00000002, 0x00000083, 0x0004003b, 0x00000084, 0x00000085, 0x00000002, 0x00040020,
0x0000008b, 0x00000002, 0x0000000a, 0x0004002b, 0x00000006, 0x00000095, 0x00000040, 0x0004002b, 0x00000006, 0x000000af,
0x00000100, 0x0004002b, 0x00000006, 0x000000c9, 0x00000200, 0x0004002b, 0x00000006, 0x000000df, 0x00000380, 0x0004002b,
0x00000006, 0x000000e5, 0x00000381, 0x0004002b, 0x00000006, 0x000000eb, 0x00000382, 0x0004002b, 0x00000006, 0x000000f1,
0x00000383, 0x0004002b, 0x00000006, 0x000000f7, 0x00000384, 0x0004002b, 0x0000000a, 0x000000fa, 0x00000002, 0x0004002b,
0x00000006, 0x000000fe, 0x00000385, 0x0004002b, 0x00000006, 0x00000104, 0x00000386, 0x0004002b, 0x00000006, 0x0000010a,
0x00000387, 0x0004002b, 0x00000006, 0x00000110, 0x00000388, 0x0004002b, 0x00000006, 0x00000116, 0x00000389, 0x0004002b,
0x0000000a, 0x0000011c, 0x00000008, 0x0006002c, 0x0000000b, 0x0000011d, 0x0000011c, 0x0000011c, 0x00000014, 0x00050036,
0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003b, 0x00000008, 0x00000009, 0x00000007,
0x0004003b, 0x00000012, 0x00000013, 0x00000007, 0x0004003b, 0x00000015, 0x00000029, 0x00000007, 0x0004003b, 0x00000015,
0x0000004a, 0x00000007, 0x0004003b, 0x00000015, 0x00000066, 0x00000007, 0x0004003b, 0x00000015, 0x0000008d, 0x00000007,
0x0004003b, 0x00000015, 0x000000a7, 0x00000007, 0x0004003b, 0x00000015, 0x000000c1, 0x00000007, 0x0004003d, 0x0000000b,
0x0000000f, 0x0000000d, 0x0007004f, 0x0000000e, 0x00000010, 0x0000000f, 0x0000000f, 0x00000000, 0x00000001, 0x0004007c,
0x00000007, 0x00000011, 0x00000010, 0x0003003e, 0x00000009, 0x00000011, 0x00050041, 0x00000015, 0x00000016, 0x00000009,
0x00000014, 0x0004003d, 0x00000006, 0x00000017, 0x00000016, 0x00050084, 0x00000006, 0x00000019, 0x00000017, 0x00000018,
0x00050041, 0x00000015, 0x0000001b, 0x00000009, 0x0000001a, 0x0004003d, 0x00000006, 0x0000001c, 0x0000001b, 0x00050080,
0x00000006, 0x0000001d, 0x00000019, 0x0000001c, 0x0004007c, 0x0000000a, 0x0000001e, 0x0000001d, 0x0003003e, 0x00000013,
0x0000001e, 0x0004003d, 0x0000001f, 0x00000022, 0x00000021, 0x0004003d, 0x00000007, 0x00000023, 0x00000009, 0x0004003d,
0x0000000a, 0x00000025, 0x00000013, 0x00050080, 0x0000000a, 0x00000026, 0x00000024, 0x00000025, 0x00070050, 0x00000027,
0x00000028, 0x00000026, 0x00000026, 0x00000026, 0x00000026, 0x00040063, 0x00000022, 0x00000023, 0x00000028, 0x0003003e,
0x00000029, 0x0000002a, 0x000200f9, 0x0000002b, 0x000200f8, 0x0000002b, 0x000400f6, 0x0000002d, 0x0000002e, 0x00000000,
0x000200f9, 0x0000002f, 0x000200f8, 0x0000002f, 0x0004003d, 0x00000006, 0x00000030, 0x00000029, 0x000500b1, 0x00000032,
0x00000033, 0x00000030, 0x00000031, 0x000400fa, 0x00000033, 0x0000002c, 0x0000002d, 0x000200f8, 0x0000002c, 0x0004003d,
0x00000034, 0x00000037, 0x00000036, 0x0004003d, 0x00000007, 0x00000038, 0x00000009, 0x0004003d, 0x00000006, 0x00000039,
0x00000029, 0x00050051, 0x00000006, 0x0000003b, 0x00000038, 0x00000000, 0x00050051, 0x00000006, 0x0000003c, 0x00000038,
0x00000001, 0x00060050, 0x0000003a, 0x0000003d, 0x0000003b, 0x0000003c, 0x00000039, 0x0004003d, 0x00000006, 0x0000003f,
0x00000029, 0x0004007c, 0x0000000a, 0x00000040, 0x0000003f, 0x00050084, 0x0000000a, 0x00000042, 0x00000040, 0x00000041,
0x00050080, 0x0000000a, 0x00000043, 0x0000003e, 0x00000042, 0x0004003d, 0x0000000a, 0x00000044, 0x00000013, 0x00050080,
0x0000000a, 0x00000045, 0x00000043, 0x00000044, 0x00070050, 0x00000027, 0x00000046, 0x00000045, 0x00000045, 0x00000045,
0x00000045, 0x00040063, 0x00000037, 0x0000003d, 0x00000046, 0x000200f9, 0x0000002e, 0x000200f8, 0x0000002e, 0x0004003d,
0x00000006, 0x00000047, 0x00000029, 0x00050080, 0x00000006, 0x00000049, 0x00000047, 0x00000048, 0x0003003e, 0x00000029,
0x00000049, 0x000200f9, 0x0000002b, 0x000200f8, 0x0000002d, 0x0003003e, 0x0000004a, 0x0000002a, 0x000200f9, 0x0000004b,
0x000200f8, 0x0000004b, 0x000400f6, 0x0000004d, 0x0000004e, 0x00000000, 0x000200f9, 0x0000004f, 0x000200f8, 0x0000004f,
0x0004003d, 0x00000006, 0x00000050, 0x0000004a, 0x000500b1, 0x00000032, 0x00000052, 0x00000050, 0x00000051, 0x000400fa,
0x00000052, 0x0000004c, 0x0000004d, 0x000200f8, 0x0000004c, 0x0004003d, 0x00000053, 0x00000056, 0x00000055, 0x0004003d,
0x00000007, 0x00000057, 0x00000009, 0x0004003d, 0x00000006, 0x00000058, 0x0000004a, 0x00050051, 0x00000006, 0x00000059,
0x00000057, 0x00000000, 0x00050051, 0x00000006, 0x0000005a, 0x00000057, 0x00000001, 0x00060050, 0x0000003a, 0x0000005b,
0x00000059, 0x0000005a, 0x00000058, 0x0004003d, 0x00000006, 0x0000005d, 0x0000004a, 0x0004007c, 0x0000000a, 0x0000005e,
0x0000005d, 0x00050084, 0x0000000a, 0x0000005f, 0x0000005e, 0x00000041, 0x00050080, 0x0000000a, 0x00000060, 0x0000005c,
0x0000005f, 0x0004003d, 0x0000000a, 0x00000061, 0x00000013, 0x00050080, 0x0000000a, 0x00000062, 0x00000060, 0x00000061,
0x00070050, 0x00000027, 0x00000063, 0x00000062, 0x00000062, 0x00000062, 0x00000062, 0x00040063, 0x00000056, 0x0000005b,
0x00000063, 0x000200f9, 0x0000004e, 0x000200f8, 0x0000004e, 0x0004003d, 0x00000006, 0x00000064, 0x0000004a, 0x00050080,
0x00000006, 0x00000065, 0x00000064, 0x00000048, 0x0003003e, 0x0000004a, 0x00000065, 0x000200f9, 0x0000004b, 0x000200f8,
0x0000004d, 0x0003003e, 0x00000066, 0x0000002a, 0x000200f9, 0x00000067, 0x000200f8, 0x00000067, 0x000400f6, 0x00000069,
0x0000006a, 0x00000000, 0x000200f9, 0x0000006b, 0x000200f8, 0x0000006b, 0x0004003d, 0x00000006, 0x0000006c, 0x00000066,
0x000500b1, 0x00000032, 0x0000006e, 0x0000006c, 0x0000006d, 0x000400fa, 0x0000006e, 0x00000068, 0x00000069, 0x000200f8,
0x00000068, 0x0004003d, 0x0000006f, 0x00000072, 0x00000071, 0x0004003d, 0x00000007, 0x00000073, 0x00000009, 0x0004003d,
0x00000006, 0x00000074, 0x00000066, 0x00050051, 0x00000006, 0x00000075, 0x00000073, 0x00000000, 0x00050051, 0x00000006,
0x00000076, 0x00000073, 0x00000001, 0x00060050, 0x0000003a, 0x00000077, 0x00000075, 0x00000076, 0x00000074, 0x0004003d,
0x00000006, 0x00000079, 0x00000066, 0x0004007c, 0x0000000a, 0x0000007a, 0x00000079, 0x00050084, 0x0000000a, 0x0000007b,
0x0000007a, 0x00000041, 0x00050080, 0x0000000a, 0x0000007c, 0x00000078, 0x0000007b, 0x0004003d, 0x0000000a, 0x0000007d,
0x00000013, 0x00050080, 0x0000000a, 0x0000007e, 0x0000007c, 0x0000007d, 0x00070050, 0x00000027, 0x0000007f, 0x0000007e,
0x0000007e, 0x0000007e, 0x0000007e, 0x00040063, 0x00000072, 0x00000077, 0x0000007f, 0x000200f9, 0x0000006a, 0x000200f8,
0x0000006a, 0x0004003d, 0x00000006, 0x00000080, 0x00000066, 0x00050080, 0x00000006, 0x00000081, 0x00000080, 0x00000048,
0x0003003e, 0x00000066, 0x00000081, 0x000200f9, 0x00000067, 0x000200f8, 0x00000069, 0x0004003d, 0x0000000a, 0x00000086,
0x00000013, 0x0004003d, 0x0000001f, 0x00000087, 0x00000021, 0x0004003d, 0x00000007, 0x00000088, 0x00000009, 0x00050062,
0x00000027, 0x00000089, 0x00000087, 0x00000088, 0x00050051, 0x0000000a, 0x0000008a, 0x00000089, 0x00000000, 0x00060041,
0x0000008b, 0x0000008c, 0x00000085, 0x0000002a, 0x00000086, 0x0003003e, 0x0000008c, 0x0000008a, 0x0003003e, 0x0000008d,
0x0000002a, 0x000200f9, 0x0000008e, 0x000200f8, 0x0000008e, 0x000400f6, 0x00000090, 0x00000091, 0x00000000, 0x000200f9,
0x00000092, 0x000200f8, 0x00000092, 0x0004003d, 0x00000006, 0x00000093, 0x0000008d, 0x000500b1, 0x00000032, 0x00000094,
0x00000093, 0x00000031, 0x000400fa, 0x00000094, 0x0000008f, 0x00000090, 0x000200f8, 0x0000008f, 0x0004003d, 0x00000006,
0x00000096, 0x0000008d, 0x00050084, 0x00000006, 0x00000097, 0x00000096, 0x00000095, 0x00050080, 0x00000006, 0x00000098,
0x00000095, 0x00000097, 0x0004007c, 0x0000000a, 0x00000099, 0x00000098, 0x0004003d, 0x0000000a, 0x0000009a, 0x00000013,
0x00050080, 0x0000000a, 0x0000009b, 0x00000099, 0x0000009a, 0x0004003d, 0x00000034, 0x0000009c, 0x00000036, 0x0004003d,
0x00000007, 0x0000009d, 0x00000009, 0x0004003d, 0x00000006, 0x0000009e, 0x0000008d, 0x00050051, 0x00000006, 0x0000009f,
0x0000009d, 0x00000000, 0x00050051, 0x00000006, 0x000000a0, 0x0000009d, 0x00000001, 0x00060050, 0x0000003a, 0x000000a1,
0x0000009f, 0x000000a0, 0x0000009e, 0x00050062, 0x00000027, 0x000000a2, 0x0000009c, 0x000000a1, 0x00050051, 0x0000000a,
0x000000a3, 0x000000a2, 0x00000000, 0x00060041, 0x0000008b, 0x000000a4, 0x00000085, 0x0000002a, 0x0000009b, 0x0003003e,
0x000000a4, 0x000000a3, 0x000200f9, 0x00000091, 0x000200f8, 0x00000091, 0x0004003d, 0x00000006, 0x000000a5, 0x0000008d,
0x00050080, 0x00000006, 0x000000a6, 0x000000a5, 0x00000048, 0x0003003e, 0x0000008d, 0x000000a6, 0x000200f9, 0x0000008e,
0x000200f8, 0x00000090, 0x0003003e, 0x000000a7, 0x0000002a, 0x000200f9, 0x000000a8, 0x000200f8, 0x000000a8, 0x000400f6,
0x000000aa, 0x000000ab, 0x00000000, 0x000200f9, 0x000000ac, 0x000200f8, 0x000000ac, 0x0004003d, 0x00000006, 0x000000ad,
0x000000a7, 0x000500b1, 0x00000032, 0x000000ae, 0x000000ad, 0x00000051, 0x000400fa, 0x000000ae, 0x000000a9, 0x000000aa,
0x000200f8, 0x000000a9, 0x0004003d, 0x00000006, 0x000000b0, 0x000000a7, 0x00050084, 0x00000006, 0x000000b1, 0x000000b0,
0x00000095, 0x00050080, 0x00000006, 0x000000b2, 0x000000af, 0x000000b1, 0x0004007c, 0x0000000a, 0x000000b3, 0x000000b2,
0x0004003d, 0x0000000a, 0x000000b4, 0x00000013, 0x00050080, 0x0000000a, 0x000000b5, 0x000000b3, 0x000000b4, 0x0004003d,
0x00000053, 0x000000b6, 0x00000055, 0x0004003d, 0x00000007, 0x000000b7, 0x00000009, 0x0004003d, 0x00000006, 0x000000b8,
0x000000a7, 0x00050051, 0x00000006, 0x000000b9, 0x000000b7, 0x00000000, 0x00050051, 0x00000006, 0x000000ba, 0x000000b7,
0x00000001, 0x00060050, 0x0000003a, 0x000000bb, 0x000000b9, 0x000000ba, 0x000000b8, 0x00050062, 0x00000027, 0x000000bc,
0x000000b6, 0x000000bb, 0x00050051, 0x0000000a, 0x000000bd, 0x000000bc, 0x00000000, 0x00060041, 0x0000008b, 0x000000be,
0x00000085, 0x0000002a, 0x000000b5, 0x0003003e, 0x000000be, 0x000000bd, 0x000200f9, 0x000000ab, 0x000200f8, 0x000000ab,
0x0004003d, 0x00000006, 0x000000bf, 0x000000a7, 0x00050080, 0x00000006, 0x000000c0, 0x000000bf, 0x00000048, 0x0003003e,
0x000000a7, 0x000000c0, 0x000200f9, 0x000000a8, 0x000200f8, 0x000000aa, 0x0003003e, 0x000000c1, 0x0000002a, 0x000200f9,
0x000000c2, 0x000200f8, 0x000000c2, 0x000400f6, 0x000000c4, 0x000000c5, 0x00000000, 0x000200f9, 0x000000c6, 0x000200f8,
0x000000c6, 0x0004003d, 0x00000006, 0x000000c7, 0x000000c1, 0x000500b1, 0x00000032, 0x000000c8, 0x000000c7, 0x0000006d,
0x000400fa, 0x000000c8, 0x000000c3, 0x000000c4, 0x000200f8, 0x000000c3, 0x0004003d, 0x00000006, 0x000000ca, 0x000000c1,
0x00050084, 0x00000006, 0x000000cb, 0x000000ca, 0x00000095, 0x00050080, 0x00000006, 0x000000cc, 0x000000c9, 0x000000cb,
0x0004007c, 0x0000000a, 0x000000cd, 0x000000cc, 0x0004003d, 0x0000000a, 0x000000ce, 0x00000013, 0x00050080, 0x0000000a,
0x000000cf, 0x000000cd, 0x000000ce, 0x0004003d, 0x0000006f, 0x000000d0, 0x00000071, 0x0004003d, 0x00000007, 0x000000d1,
0x00000009, 0x0004003d, 0x00000006, 0x000000d2, 0x000000c1, 0x00050051, 0x00000006, 0x000000d3, 0x000000d1, 0x00000000,
0x00050051, 0x00000006, 0x000000d4, 0x000000d1, 0x00000001, 0x00060050, 0x0000003a, 0x000000d5, 0x000000d3, 0x000000d4,
0x000000d2, 0x00050062, 0x00000027, 0x000000d6, 0x000000d0, 0x000000d5, 0x00050051, 0x0000000a, 0x000000d7, 0x000000d6,
0x00000000, 0x00060041, 0x0000008b, 0x000000d8, 0x00000085, 0x0000002a, 0x000000cf, 0x0003003e, 0x000000d8, 0x000000d7,
0x000200f9, 0x000000c5, 0x000200f8, 0x000000c5, 0x0004003d, 0x00000006, 0x000000d9, 0x000000c1, 0x00050080, 0x00000006,
0x000000da, 0x000000d9, 0x00000048, 0x0003003e, 0x000000c1, 0x000000da, 0x000200f9, 0x000000c2, 0x000200f8, 0x000000c4,
0x0004003d, 0x0000000a, 0x000000db, 0x00000013, 0x000500aa, 0x00000032, 0x000000dc, 0x000000db, 0x0000001a, 0x000300f7,
0x000000de, 0x00000000, 0x000400fa, 0x000000dc, 0x000000dd, 0x000000de, 0x000200f8, 0x000000dd, 0x0004003d, 0x0000001f,
0x000000e0, 0x00000021, 0x00040068, 0x00000007, 0x000000e1, 0x000000e0, 0x00050051, 0x00000006, 0x000000e2, 0x000000e1,
0x00000000, 0x0004007c, 0x0000000a, 0x000000e3, 0x000000e2, 0x00060041, 0x0000008b, 0x000000e4, 0x00000085, 0x0000002a,
0x000000df, 0x0003003e, 0x000000e4, 0x000000e3, 0x0004003d, 0x0000001f, 0x000000e6, 0x00000021, 0x00040068, 0x00000007,
0x000000e7, 0x000000e6, 0x00050051, 0x00000006, 0x000000e8, 0x000000e7, 0x00000001, 0x0004007c, 0x0000000a, 0x000000e9,
0x000000e8, 0x00060041, 0x0000008b, 0x000000ea, 0x00000085, 0x0000002a, 0x000000e5, 0x0003003e, 0x000000ea, 0x000000e9,
0x0004003d, 0x00000034, 0x000000ec, 0x00000036, 0x00040068, 0x0000003a, 0x000000ed, 0x000000ec, 0x00050051, 0x00000006,
0x000000ee, 0x000000ed, 0x00000000, 0x0004007c, 0x0000000a, 0x000000ef, 0x000000ee, 0x00060041, 0x0000008b, 0x000000f0,
0x00000085, 0x0000002a, 0x000000eb, 0x0003003e, 0x000000f0, 0x000000ef, 0x0004003d, 0x00000034, 0x000000f2, 0x00000036,
0x00040068, 0x0000003a, 0x000000f3, 0x000000f2, 0x00050051, 0x00000006, 0x000000f4, 0x000000f3, 0x00000001, 0x0004007c,
0x0000000a, 0x000000f5, 0x000000f4, 0x00060041, 0x0000008b, 0x000000f6, 0x00000085, 0x0000002a, 0x000000f1, 0x0003003e,
0x000000f6, 0x000000f5, 0x0004003d, 0x00000034, 0x000000f8, 0x00000036, 0x00040068, 0x0000003a, 0x000000f9, 0x000000f8,
0x00050051, 0x00000006, 0x000000fb, 0x000000f9, 0x00000002, 0x0004007c, 0x0000000a, 0x000000fc, 0x000000fb, 0x00060041,
0x0000008b, 0x000000fd, 0x00000085, 0x0000002a, 0x000000f7, 0x0003003e, 0x000000fd, 0x000000fc, 0x0004003d, 0x00000053,
0x000000ff, 0x00000055, 0x00040068, 0x0000003a, 0x00000100, 0x000000ff, 0x00050051, 0x00000006, 0x00000101, 0x00000100,
0x00000000, 0x0004007c, 0x0000000a, 0x00000102, 0x00000101, 0x00060041, 0x0000008b, 0x00000103, 0x00000085, 0x0000002a,
0x000000fe, 0x0003003e, 0x00000103, 0x00000102, 0x0004003d, 0x00000053, 0x00000105, 0x00000055, 0x00040068, 0x0000003a,
0x00000106, 0x00000105, 0x00050051, 0x00000006, 0x00000107, 0x00000106, 0x00000001, 0x0004007c, 0x0000000a, 0x00000108,
0x00000107, 0x00060041, 0x0000008b, 0x00000109, 0x00000085, 0x0000002a, 0x00000104, 0x0003003e, 0x00000109, 0x00000108,
0x0004003d, 0x00000053, 0x0000010b, 0x00000055, 0x00040068, 0x0000003a, 0x0000010c, 0x0000010b, 0x00050051, 0x00000006,
0x0000010d, 0x0000010c, 0x00000002, 0x0004007c, 0x0000000a, 0x0000010e, 0x0000010d, 0x00060041, 0x0000008b, 0x0000010f,
0x00000085, 0x0000002a, 0x0000010a, 0x0003003e, 0x0000010f, 0x0000010e, 0x0004003d, 0x0000006f, 0x00000111, 0x00000071,
0x00040068, 0x00000007, 0x00000112, 0x00000111, 0x00050051, 0x00000006, 0x00000113, 0x00000112, 0x00000000, 0x0004007c,
0x0000000a, 0x00000114, 0x00000113, 0x00060041, 0x0000008b, 0x00000115, 0x00000085, 0x0000002a, 0x00000110, 0x0003003e,
0x00000115, 0x00000114, 0x0004003d, 0x0000006f, 0x00000117, 0x00000071, 0x00040068, 0x00000007, 0x00000118, 0x00000117,
0x00050051, 0x00000006, 0x00000119, 0x00000118, 0x00000001, 0x0004007c, 0x0000000a, 0x0000011a, 0x00000119, 0x00060041,
0x0000008b, 0x0000011b, 0x00000085, 0x0000002a, 0x00000116, 0x0003003e, 0x0000011b, 0x0000011a, 0x000200f9, 0x000000de,
0x000200f8, 0x000000de, 0x000100fd, 0x00010038,
];
