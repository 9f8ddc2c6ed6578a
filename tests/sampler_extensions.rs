//! Sampler and image view extensions Zink uses, through the loader and a compute shader that
//! samples: VK_EXT_non_seamless_cube_map (a linear sample by a cube face's edge stays on the
//! face), VK_EXT_border_color_swizzle (a custom border seen through a swizzled view comes out
//! swizzled when the sampler is given the view's mapping) and VK_EXT_image_2d_view_of_3d (2D
//! views of one slice of a 3D image, sampled at a level past 0 and stored to).

mod common;
#[path = "../compiler/tests/common/glslang.rs"]
#[allow(dead_code)] // the shared helper's other entry points
mod glslang;

use ash::vk;
use common::compute::{self, binding, Pipeline};
use common::render::Buf;
use common::{assert_no_validation_messages, submit_and_wait, Ctx};
use std::ffi::CStr;

/// A device with one queue, `exts` and the feature structure `features`.
fn device<T: vk::ExtendsDeviceCreateInfo>(
    ctx: &Ctx,
    exts: &[&CStr],
    features: &mut T,
) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let names: Vec<_> = exts.iter().map(|e| e.as_ptr()).collect();
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names)
        .push_next(features);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

/// Whether the device advertises `ext`.
fn has_extension(ctx: &Ctx, ext: &CStr) -> bool {
    // SAFETY: valid physical device.
    unsafe { ctx.instance.enumerate_device_extension_properties(ctx.pdev) }
        .unwrap()
        .iter()
        .any(|p| p.extension_name_as_c_str() == Ok(ext))
}

/// An optimal-tiling image with its memory, its level 0 (every layer or slice) filled with
/// `texels` (RGBA8, 4 bytes each) and every level in the GENERAL layout.
struct Image {
    image: vk::Image,
    memory: vk::DeviceMemory,
    info: vk::ImageCreateInfo<'static>,
}

impl Image {
    /// # Safety
    /// `dev` is a live device of `ctx`; `info` is a valid RGBA8 image create info.
    unsafe fn new(
        ctx: &Ctx,
        dev: &ash::Device,
        queue: vk::Queue,
        info: vk::ImageCreateInfo<'static>,
        levels: &[Vec<u8>],
    ) -> Image {
        // SAFETY: the caller's contract; the staging buffer outlives the copies.
        unsafe {
            let image = dev.create_image(&info, None).unwrap();
            let req = dev.get_image_memory_requirements(image);
            let memory = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(req.memory_type_bits.trailing_zeros()),
                    None,
                )
                .unwrap();
            dev.bind_image_memory(image, memory, 0).unwrap();
            let total: usize = levels.iter().map(Vec::len).sum();
            let mut staging = Buf::new(ctx, dev, total as u64, vk::BufferUsageFlags::TRANSFER_SRC);
            staging.write(&levels.concat());
            let all = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(vk::REMAINING_MIP_LEVELS)
                .layer_count(vk::REMAINING_ARRAY_LAYERS);
            submit_and_wait(dev, queue, |cb| {
                let to_dst = [vk::ImageMemoryBarrier::default()
                    .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .image(image)
                    .subresource_range(all)];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_dst,
                );
                let mut offset = 0;
                let regions: Vec<_> = (0..levels.len() as u32)
                    .map(|l| {
                        let r = vk::BufferImageCopy::default()
                            .buffer_offset(offset)
                            .image_subresource(
                                vk::ImageSubresourceLayers::default()
                                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                                    .mip_level(l)
                                    .layer_count(info.array_layers),
                            )
                            .image_extent(level_extent(info.extent, l));
                        offset += levels[l as usize].len() as u64;
                        r
                    })
                    .collect();
                dev.cmd_copy_buffer_to_image(
                    cb,
                    staging.buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                );
                let to_general = [vk::ImageMemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)
                    .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .image(image)
                    .subresource_range(all)];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_general,
                );
            });
            staging.destroy(dev);
            Image {
                image,
                memory,
                info,
            }
        }
    }

    /// Level 0's texels (every layer or slice), read back after the shaders' writes; level 0
    /// is left in the TRANSFER_SRC_OPTIMAL layout.
    ///
    /// # Safety
    /// Level 0 is in the GENERAL layout and the GPU is idle.
    unsafe fn read_level_0(&self, ctx: &Ctx, dev: &ash::Device, queue: vk::Queue) -> Vec<u8> {
        let e = self.info.extent;
        let bytes = 4 * e.width * e.height * e.depth * self.info.array_layers;
        let out = Buf::new(ctx, dev, bytes.into(), vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: the caller's contract.
        unsafe {
            submit_and_wait(dev, queue, |cb| {
                let to_src = [vk::ImageMemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
                    .old_layout(vk::ImageLayout::GENERAL)
                    .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                    .image(self.image)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .level_count(1)
                            .layer_count(self.info.array_layers),
                    )];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_src,
                );
                let region = [vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .layer_count(self.info.array_layers),
                    )
                    .image_extent(e)];
                dev.cmd_copy_image_to_buffer(
                    cb,
                    self.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    out.buffer,
                    &region,
                );
                let barrier = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ)];
                dev.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &barrier,
                    &[],
                    &[],
                );
            });
        }
        let texels = out.bytes().to_vec();
        out.destroy(dev);
        texels
    }

    /// # Safety
    /// Nothing uses the image any more.
    unsafe fn destroy(self, dev: &ash::Device) {
        // SAFETY: the caller's contract.
        unsafe {
            dev.destroy_image(self.image, None);
            dev.free_memory(self.memory, None);
        }
    }
}

fn level_extent(e: vk::Extent3D, l: u32) -> vk::Extent3D {
    vk::Extent3D {
        width: (e.width >> l).max(1),
        height: (e.height >> l).max(1),
        depth: (e.depth >> l).max(1),
    }
}

/// Runs the compute shader `src` once (one workgroup) with binding 0 the image view `view` as
/// `ty` (with `sampler` for a combined image sampler), given as `(ty, view, sampler)`, and
/// binding 1 a storage buffer of `out_floats` floats, which it returns.
///
/// # Safety
/// `view` and `sampler` are live objects of `dev`, the view in the GENERAL layout.
unsafe fn run(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    src: &str,
    (ty, view, sampler): (vk::DescriptorType, vk::ImageView, vk::Sampler),
    out_floats: usize,
) -> Vec<f32> {
    let code = glslang::glslang_env(src, "comp", "vulkan1.0").unwrap();
    let out = Buf::new(
        ctx,
        dev,
        4 * out_floats as u64,
        vk::BufferUsageFlags::STORAGE_BUFFER,
    );
    // SAFETY: the caller's contract; every object made here is destroyed once the GPU is idle.
    unsafe {
        let set_layout = compute::set_layout(
            dev,
            vk::DescriptorSetLayoutCreateFlags::empty(),
            &[
                binding(0, ty),
                binding(1, vk::DescriptorType::STORAGE_BUFFER),
            ],
        );
        let p = Pipeline::new(dev, set_layout, 0, &code);
        let (pool, set) = compute::descriptor_set(
            dev,
            set_layout,
            1,
            &[(ty, 1), (vk::DescriptorType::STORAGE_BUFFER, 1)],
        );
        let image_info = [vk::DescriptorImageInfo::default()
            .sampler(sampler)
            .image_view(view)
            .image_layout(vk::ImageLayout::GENERAL)];
        let buffer_info = [vk::DescriptorBufferInfo::default()
            .buffer(out.buffer)
            .range(vk::WHOLE_SIZE)];
        dev.update_descriptor_sets(
            &[
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(ty)
                    .image_info(&image_info),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&buffer_info),
            ],
            &[],
        );
        submit_and_wait(dev, queue, |cb| {
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
            let barrier = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::TRANSFER_READ)];
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            );
        });
        let floats = out
            .bytes()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        dev.destroy_descriptor_pool(pool, None);
        p.destroy(dev);
        dev.destroy_descriptor_set_layout(set_layout, None);
        out.destroy(dev);
        floats
    }
}

fn close(got: &[f32], want: [f32; 4]) -> bool {
    got.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.01)
}

fn unorm(c: [u8; 4]) -> [f32; 4] {
    c.map(|x| f32::from(x) / 255.0)
}

/// Face i of the cube is one colour.
fn face_colour(i: u8) -> [u8; 4] {
    [40 * i, 255 - 40 * i, 20, 255]
}

/// One linear sample just inside the +X face's edge with -Y: half its footprint falls off
/// the face. Without NON_SEAMLESS_CUBE_MAP that half comes from -Y; with it, the face clamps
/// and the sample is +X's colour alone.
#[test]
fn non_seamless_cube_maps_clamp_at_face_edges() {
    let ctx = Ctx::new();
    assert!(has_extension(&ctx, ash::ext::non_seamless_cube_map::NAME));
    let mut features =
        vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT::default().non_seamless_cube_map(true);
    let (dev, queue) = device(
        &ctx,
        &[ash::ext::non_seamless_cube_map::NAME],
        &mut features,
    );
    let info = vk::ImageCreateInfo::default()
        .flags(vk::ImageCreateFlags::CUBE_COMPATIBLE)
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: 2,
            height: 2,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(6)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST);
    let texels: Vec<u8> = (0..6u8).flat_map(|f| face_colour(f).repeat(4)).collect();
    const SHADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform samplerCube t;
layout(set = 0, binding = 1, std430) buffer Out { vec4 o; };
void main() {
    // +X face: t = (-y / x + 1) / 2 = 0.995, so the footprint's rows are 1 and 2 (past -Y's
    // edge) with weights 0.51 and 0.49; s = 0.5 keeps the columns on the face.
    o = textureLod(t, vec3(1.0, -0.99, 0.0), 0.0);
}
";
    // SAFETY: valid device and create infos; everything is destroyed once the GPU is idle.
    unsafe {
        let image = Image::new(&ctx, &dev, queue, info, &[texels]);
        let view = dev
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image.image)
                    .view_type(vk::ImageViewType::CUBE)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .level_count(1)
                            .layer_count(6),
                    ),
                None,
            )
            .unwrap();
        let sample = |flags: vk::SamplerCreateFlags| {
            let sampler = dev
                .create_sampler(
                    &vk::SamplerCreateInfo::default()
                        .flags(flags)
                        .mag_filter(vk::Filter::LINEAR)
                        .min_filter(vk::Filter::LINEAR)
                        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE),
                    None,
                )
                .unwrap();
            let ty = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
            let got = run(&ctx, &dev, queue, SHADER, (ty, view, sampler), 4);
            dev.destroy_sampler(sampler, None);
            got
        };
        let x = unorm(face_colour(0));
        let neg_y = unorm(face_colour(3));
        let seamless = sample(vk::SamplerCreateFlags::empty());
        let mix: Vec<f32> = (0..4).map(|c| 0.51 * x[c] + 0.49 * neg_y[c]).collect();
        assert!(
            close(&seamless, [mix[0], mix[1], mix[2], mix[3]]),
            "seamless: {seamless:?}, want {mix:?}"
        );
        let non_seamless = sample(vk::SamplerCreateFlags::NON_SEAMLESS_CUBE_MAP_EXT);
        assert!(
            close(&non_seamless, x),
            "non-seamless: {non_seamless:?}, want {x:?}"
        );
        dev.destroy_image_view(view, None);
        image.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// A custom border seen through a view that swizzles (B, 1, R, G): with the view's mapping in
/// VkSamplerBorderColorComponentMappingCreateInfoEXT the border comes out swizzled as a texel
/// would.
#[test]
fn custom_borders_follow_the_given_component_mapping() {
    let ctx = Ctx::new();
    assert!(has_extension(&ctx, ash::ext::border_color_swizzle::NAME));
    let mut custom = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
        .custom_border_colors(true)
        .custom_border_color_without_format(true);
    let mut features =
        vk::PhysicalDeviceBorderColorSwizzleFeaturesEXT::default().border_color_swizzle(true);
    features.p_next = (&mut custom as *mut vk::PhysicalDeviceCustomBorderColorFeaturesEXT).cast();
    let (dev, queue) = device(
        &ctx,
        &[
            ash::ext::custom_border_color::NAME,
            ash::ext::border_color_swizzle::NAME,
        ],
        &mut features,
    );
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: 2,
            height: 2,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST);
    let mapping = vk::ComponentMapping {
        r: vk::ComponentSwizzle::B,
        g: vk::ComponentSwizzle::ONE,
        b: vk::ComponentSwizzle::R,
        a: vk::ComponentSwizzle::G,
    };
    const SHADER: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1, std430) buffer Out { vec4 o[2]; };
void main() {
    o[0] = textureLod(t, vec2(-1.0, -1.0), 0.0);
    o[1] = textureLod(t, vec2(0.25, 0.25), 0.0);
}
";
    let texel = [10u8, 20, 30, 40];
    // SAFETY: valid device and create infos; everything is destroyed once the GPU is idle.
    unsafe {
        let image = Image::new(&ctx, &dev, queue, info, &[texel.repeat(4)]);
        let view = dev
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image.image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .components(mapping)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .level_count(1)
                            .layer_count(1),
                    ),
                None,
            )
            .unwrap();
        let mut colour = vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .format(vk::Format::R8G8B8A8_UNORM)
            .custom_border_color(vk::ClearColorValue {
                float32: [0.25, 0.5, 0.75, 0.125],
            });
        let mut swizzle =
            vk::SamplerBorderColorComponentMappingCreateInfoEXT::default().components(mapping);
        let sampler = dev
            .create_sampler(
                &vk::SamplerCreateInfo::default()
                    .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
                    .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_BORDER)
                    .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_BORDER)
                    .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
                    .push_next(&mut colour)
                    .push_next(&mut swizzle),
                None,
            )
            .unwrap();
        let ty = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
        let got = run(&ctx, &dev, queue, SHADER, (ty, view, sampler), 8);
        // (B, 1, R, G) of the border (0.25, 0.5, 0.75, 0.125), and of the texel.
        assert!(
            close(&got[..4], [0.75, 1.0, 0.25, 0.5]),
            "border: {:?}",
            &got[..4]
        );
        let t = unorm(texel);
        assert!(
            close(&got[4..], [t[2], 1.0, t[0], t[1]]),
            "texel: {:?}",
            &got[4..]
        );
        dev.destroy_sampler(sampler, None);
        dev.destroy_image_view(view, None);
        image.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Slice z of level l of the 3D image below is one colour.
fn slice_colour(l: u32, z: u32) -> [u8; 4] {
    [(50 * z + 7) as u8, (100 * l + 3) as u8, 20, 255]
}

/// A 4x4x4 3D image of three levels made 2D_VIEW_COMPATIBLE: a 2D view of slice 1 of level 1
/// samples that slice (textureSize says 2x2), and a 2D storage view of slice 2 of level 0
/// stores into that slice alone.
#[test]
fn two_d_views_of_3d_image_slices() {
    let ctx = Ctx::with_api(true, &[], vk::API_VERSION_1_1);
    assert!(has_extension(&ctx, ash::ext::image_2d_view_of_3d::NAME));
    let mut features = vk::PhysicalDeviceImage2DViewOf3DFeaturesEXT::default()
        .image2_d_view_of3_d(true)
        .sampler2_d_view_of3_d(true);
    let (dev, queue) = device(&ctx, &[ash::ext::image_2d_view_of_3d::NAME], &mut features);
    let extent = vk::Extent3D {
        width: 4,
        height: 4,
        depth: 4,
    };
    let info = vk::ImageCreateInfo::default()
        .flags(vk::ImageCreateFlags::TYPE_2D_VIEW_COMPATIBLE_EXT)
        .image_type(vk::ImageType::TYPE_3D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(extent)
        .mip_levels(3)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC,
        );
    let levels: Vec<Vec<u8>> = (0..3)
        .map(|l| {
            let e = level_extent(extent, l);
            (0..e.depth)
                .flat_map(|z| slice_colour(l, z).repeat((e.width * e.height) as usize))
                .collect()
        })
        .collect();
    const SAMPLED: &str = "#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D t;
layout(set = 0, binding = 1, std430) buffer Out { vec4 o[2]; };
void main() {
    o[0] = texelFetch(t, ivec2(1, 0), 0);
    o[1] = vec4(textureSize(t, 0), 0.0, 0.0);
}
";
    const STORED: &str = "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform image2D t;
layout(set = 0, binding = 1, std430) buffer Out { vec4 o; };
void main() {
    imageStore(t, ivec2(gl_LocalInvocationID.xy), vec4(1.0, 0.0, 1.0, 1.0));
    o = vec4(imageSize(t), 0.0, 0.0);
}
";
    // SAFETY: valid device and create infos; everything is destroyed once the GPU is idle.
    unsafe {
        let image = Image::new(&ctx, &dev, queue, info, &levels);
        let slice_view = |level: u32, slice: u32, usage: vk::ImageUsageFlags| {
            let mut usage = vk::ImageViewUsageCreateInfo::default().usage(usage);
            dev.create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image.image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .subresource_range(
                        vk::ImageSubresourceRange::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .base_mip_level(level)
                            .level_count(1)
                            .base_array_layer(slice)
                            .layer_count(1),
                    )
                    .push_next(&mut usage),
                None,
            )
            .unwrap()
        };
        let sampled = slice_view(1, 1, vk::ImageUsageFlags::SAMPLED);
        let sampler = dev
            .create_sampler(&vk::SamplerCreateInfo::default(), None)
            .unwrap();
        let ty = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
        let got = run(&ctx, &dev, queue, SAMPLED, (ty, sampled, sampler), 8);
        let want = unorm(slice_colour(1, 1));
        assert!(close(&got[..4], want), "level 1 slice 1: {:?}", &got[..4]);
        assert_eq!(&got[4..6], &[2.0, 2.0]);

        let stored = slice_view(0, 2, vk::ImageUsageFlags::STORAGE);
        let ty = vk::DescriptorType::STORAGE_IMAGE;
        let got = run(
            &ctx,
            &dev,
            queue,
            STORED,
            (ty, stored, vk::Sampler::null()),
            4,
        );
        assert_eq!(&got[..2], &[4.0, 4.0]);
        let texels = image.read_level_0(&ctx, &dev, queue);
        for z in 0..4u32 {
            let want = if z == 2 {
                [255, 0, 255, 255]
            } else {
                slice_colour(0, z)
            };
            let slice = &texels[64 * z as usize..64 * (z as usize + 1)];
            assert!(
                slice.chunks_exact(4).all(|t| t == want),
                "slice {z}: {slice:?}"
            );
        }
        dev.destroy_sampler(sampler, None);
        dev.destroy_image_view(sampled, None);
        dev.destroy_image_view(stored, None);
        image.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
