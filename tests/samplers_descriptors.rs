//! Samplers, sampled images and image descriptors through the loader: vkCreateSampler for
//! every Vulkan 1.0 sampler state (identical samplers share one entry of the device's sampler
//! heap, so thousands of them fit; distinct ones run out with VK_ERROR_OUT_OF_DEVICE_MEMORY;
//! MIRROR_CLAMP_TO_EDGE with its extension),
//! and what is refused; format features and image format properties of sampled images;
//! sampled images with views of every type, swizzles, aspects and subranges; descriptor set
//! layouts, pools, writes and copies of samplers, combined image samplers and sampled images,
//! immutable samplers included.
//!
//! Shaders cannot sample yet, so these tests check what is visible from outside: results,
//! errors and the validation layer's silence.

mod common;

use ash::vk;
use common::render::host_visible_type;
use common::{assert_no_validation_messages, Ctx};

fn sampler_info() -> vk::SamplerCreateInfo<'static> {
    vk::SamplerCreateInfo::default()
        .mag_filter(vk::Filter::LINEAR)
        .min_filter(vk::Filter::LINEAR)
        .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
        .address_mode_u(vk::SamplerAddressMode::REPEAT)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::MIRRORED_REPEAT)
        .max_lod(vk::LOD_CLAMP_NONE)
}

/// Every state combination Vulkan 1.0 offers without features.
#[test]
fn samplers_of_every_state() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let filters = [vk::Filter::NEAREST, vk::Filter::LINEAR];
    let mips = [
        vk::SamplerMipmapMode::NEAREST,
        vk::SamplerMipmapMode::LINEAR,
    ];
    let modes = [
        vk::SamplerAddressMode::REPEAT,
        vk::SamplerAddressMode::MIRRORED_REPEAT,
        vk::SamplerAddressMode::CLAMP_TO_EDGE,
        vk::SamplerAddressMode::CLAMP_TO_BORDER,
    ];
    let borders = [
        vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        vk::BorderColor::INT_TRANSPARENT_BLACK,
        vk::BorderColor::FLOAT_OPAQUE_BLACK,
        vk::BorderColor::INT_OPAQUE_BLACK,
        vk::BorderColor::FLOAT_OPAQUE_WHITE,
        vk::BorderColor::INT_OPAQUE_WHITE,
    ];
    let mut made = Vec::new();
    for (i, &mag) in filters.iter().enumerate() {
        for &min in &filters {
            for &mip in &mips {
                for &m in &modes {
                    for (k, &border) in borders.iter().enumerate() {
                        let compare = (k + i) % 3 == 0;
                        let info = sampler_info()
                            .mag_filter(mag)
                            .min_filter(min)
                            .mipmap_mode(mip)
                            .address_mode_u(m)
                            .address_mode_v(modes[(k + 1) % 4])
                            .address_mode_w(modes[(k + 2) % 4])
                            .border_color(border)
                            .compare_enable(compare)
                            .compare_op(vk::CompareOp::from_raw((k % 8) as i32))
                            .mip_lod_bias(k as f32 - 2.5)
                            .min_lod(0.25 * k as f32)
                            .max_lod(if k % 2 == 0 { 4.0 } else { vk::LOD_CLAMP_NONE });
                        // SAFETY: valid device and create info.
                        made.push(unsafe { dev.create_sampler(&info, None) }.unwrap());
                    }
                }
            }
        }
    }
    // Unnormalized coordinates, with the restrictions Vulkan puts on them.
    let pixel = vk::SamplerCreateInfo::default()
        .unnormalized_coordinates(true)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
    // SAFETY: as above.
    made.push(unsafe { dev.create_sampler(&pixel, None) }.unwrap());
    // SAFETY: nothing uses the samplers.
    unsafe {
        for s in made {
            dev.destroy_sampler(s, None);
        }
        dev.destroy_sampler(vk::Sampler::null(), None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Identical samplers share one heap entry: as many as maxSamplerAllocationCount under
/// validation, and 5000 without it (more than the limit, which only the layer enforces, and
/// more than the heap has entries).
#[test]
fn thousands_of_identical_samplers() {
    for validation in [true, false] {
        let ctx = if validation {
            Ctx::new()
        } else {
            Ctx::without_validation()
        };
        // SAFETY: valid physical device.
        let limit = unsafe { ctx.instance.get_physical_device_properties(ctx.pdev) }
            .limits
            .max_sampler_allocation_count;
        assert!(limit >= 4000);
        let (dev, _queue) = ctx.device();
        let count = if validation { limit } else { 5000 };
        let info = sampler_info().mip_lod_bias(1.0);
        // SAFETY: valid device and create info; the samplers are destroyed below.
        let samplers: Vec<_> = (0..count)
            .map(|_| unsafe { dev.create_sampler(&info, None) }.expect("vkCreateSampler"))
            .collect();
        // SAFETY: nothing uses them.
        unsafe {
            for s in samplers {
                dev.destroy_sampler(s, None);
            }
            dev.destroy_device(None);
        }
        if validation {
            assert_no_validation_messages();
        }
    }
}

/// Distinct samplers take an entry each: the 1025th live one finds the heap full, and
/// destroying one makes room again.
#[test]
fn distinct_samplers_run_out_of_heap_entries() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    // minLod steps of 1/64 (the hardware's LOD precision) times two mag filters.
    let distinct = |i: u32| {
        sampler_info()
            .mag_filter(if i.is_multiple_of(2) {
                vk::Filter::NEAREST
            } else {
                vk::Filter::LINEAR
            })
            .min_lod((i / 2) as f32 / 64.0)
    };
    let mut samplers = Vec::new();
    let mut failed_at = None;
    for i in 0..1100 {
        // SAFETY: valid device and create info.
        match unsafe { dev.create_sampler(&distinct(i), None) } {
            Ok(s) => samplers.push(s),
            Err(e) => {
                assert_eq!(e, vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
                failed_at = Some(i);
                break;
            }
        }
    }
    assert_eq!(failed_at, Some(1024), "the heap has 1024 entries");
    // SAFETY: as above.
    unsafe {
        // An identical one still fits: it shares an entry.
        let again = dev.create_sampler(&distinct(5), None).unwrap();
        dev.destroy_sampler(again, None);
        dev.destroy_sampler(samplers.pop().unwrap(), None);
        let fits = dev.create_sampler(&distinct(1030), None).unwrap();
        dev.destroy_sampler(fits, None);
        for s in samplers {
            dev.destroy_sampler(s, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// States agx4 cannot express are refused with an error, not created wrongly (without
/// validation: they are invalid usage, or need features agx4 does not offer).
#[test]
fn inexpressible_samplers_are_refused() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let custom = sampler_info()
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
        .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT);
    let mut reduction =
        vk::SamplerReductionModeCreateInfo::default().reduction_mode(vk::SamplerReductionMode::MAX);
    let minmax = sampler_info().push_next(&mut reduction);
    for info in [custom, minmax] {
        // SAFETY: valid device; the states are invalid usage the driver refuses.
        let r = unsafe { dev.create_sampler(&info, None) };
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
    }
    // SAFETY: nothing was created.
    unsafe { dev.destroy_device(None) };
}

#[test]
fn sampling_format_features() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let props = |f| unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.pdev, f)
    };
    use vk::FormatFeatureFlags as F;
    let sampled_linear = F::SAMPLED_IMAGE | F::SAMPLED_IMAGE_FILTER_LINEAR;
    for f in [
        vk::Format::R8G8B8A8_UNORM,
        vk::Format::B8G8R8A8_SRGB,
        vk::Format::R16G16B16A16_SFLOAT,
        vk::Format::R32_SFLOAT,
        vk::Format::R5G6B5_UNORM_PACK16,
        vk::Format::A2B10G10R10_UNORM_PACK32,
        vk::Format::B10G11R11_UFLOAT_PACK32,
    ] {
        let p = props(f);
        assert!(p.optimal_tiling_features.contains(sampled_linear), "{f:?}");
        assert!(p.linear_tiling_features.contains(sampled_linear), "{f:?}");
    }
    for f in [
        vk::Format::R32_UINT,
        vk::Format::R8G8_SINT,
        vk::Format::S8_UINT,
    ] {
        let p = props(f);
        assert!(
            p.optimal_tiling_features.contains(F::SAMPLED_IMAGE),
            "{f:?}"
        );
        assert!(
            !p.optimal_tiling_features
                .contains(F::SAMPLED_IMAGE_FILTER_LINEAR),
            "{f:?}"
        );
    }
    for f in [
        vk::Format::D16_UNORM,
        vk::Format::D32_SFLOAT,
        vk::Format::D32_SFLOAT_S8_UINT,
    ] {
        let p = props(f);
        assert!(p.optimal_tiling_features.contains(sampled_linear), "{f:?}");
        assert!(
            !p.linear_tiling_features.contains(F::SAMPLED_IMAGE),
            "{f:?}"
        );
    }
    // BC, ETC2/EAC and ASTC LDR images are sampled, filtered, copied and blitted from,
    // optimal tiling only; the ASTC HDR (SFLOAT) formats are not offered.
    let compressed = sampled_linear | F::TRANSFER_SRC | F::TRANSFER_DST | F::BLIT_SRC;
    for f in [
        vk::Format::BC1_RGB_UNORM_BLOCK,
        vk::Format::BC7_SRGB_BLOCK,
        vk::Format::ETC2_R8G8B8A8_UNORM_BLOCK,
        vk::Format::EAC_R11G11_SNORM_BLOCK,
        vk::Format::ASTC_4X4_UNORM_BLOCK,
        vk::Format::ASTC_10X8_SRGB_BLOCK,
        vk::Format::ASTC_12X12_UNORM_BLOCK,
    ] {
        let p = props(f);
        assert_eq!(p.optimal_tiling_features, compressed, "{f:?}");
        assert!(p.linear_tiling_features.is_empty(), "{f:?}");
    }
    assert!(props(vk::Format::ASTC_4X4_SFLOAT_BLOCK)
        .optimal_tiling_features
        .is_empty());
    // SAFETY: valid physical device.
    let ifp = |f, ty, tiling, usage, flags| unsafe {
        ctx.instance
            .get_physical_device_image_format_properties(ctx.pdev, f, ty, tiling, usage, flags)
    };
    let p = ifp(
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        vk::ImageUsageFlags::SAMPLED,
        vk::ImageCreateFlags::CUBE_COMPATIBLE,
    )
    .unwrap();
    assert!(p.max_array_layers >= 6 && p.max_mip_levels == 15);
    assert_eq!(p.sample_counts, vk::SampleCountFlags::TYPE_1);
    let p = ifp(
        vk::Format::R8G8B8A8_UNORM,
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        vk::ImageUsageFlags::SAMPLED,
        vk::ImageCreateFlags::empty(),
    )
    .unwrap();
    // SAFETY: valid physical device.
    let limits = unsafe { ctx.instance.get_physical_device_properties(ctx.pdev) }.limits;
    assert!(p
        .sample_counts
        .contains(limits.sampled_image_color_sample_counts));
    for ty in [vk::ImageType::TYPE_1D, vk::ImageType::TYPE_3D] {
        assert!(ifp(
            vk::Format::R16G16_SFLOAT,
            ty,
            vk::ImageTiling::OPTIMAL,
            vk::ImageUsageFlags::SAMPLED,
            vk::ImageCreateFlags::empty()
        )
        .is_ok());
    }
    // Compressed images: sampled 2D optimal ones only.
    let bc1 = |ty, tiling, usage| {
        ifp(
            vk::Format::BC1_RGB_UNORM_BLOCK,
            ty,
            tiling,
            usage,
            vk::ImageCreateFlags::empty(),
        )
        .err()
    };
    let (d2, opt, sampled) = (
        vk::ImageType::TYPE_2D,
        vk::ImageTiling::OPTIMAL,
        vk::ImageUsageFlags::SAMPLED,
    );
    assert_eq!(bc1(d2, opt, sampled), None);
    let unsupported = Some(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
    assert_eq!(bc1(vk::ImageType::TYPE_3D, opt, sampled), unsupported);
    assert_eq!(bc1(d2, vk::ImageTiling::LINEAR, sampled), unsupported);
    assert_eq!(bc1(d2, opt, vk::ImageUsageFlags::STORAGE), unsupported);
    assert_eq!(
        bc1(d2, opt, vk::ImageUsageFlags::COLOR_ATTACHMENT),
        unsupported
    );
    assert_no_validation_messages();
}

struct Img {
    image: vk::Image,
    memory: vk::DeviceMemory,
}

#[allow(clippy::too_many_arguments)]
fn sampled_image(
    ctx: &Ctx,
    dev: &ash::Device,
    ty: vk::ImageType,
    format: vk::Format,
    (w, h, d): (u32, u32, u32),
    levels: u32,
    layers: u32,
    flags: vk::ImageCreateFlags,
    tiling: vk::ImageTiling,
    extra_usage: vk::ImageUsageFlags,
    samples: vk::SampleCountFlags,
) -> Img {
    let info = vk::ImageCreateInfo::default()
        .flags(flags)
        .image_type(ty)
        .format(format)
        .extent(vk::Extent3D {
            width: w,
            height: h,
            depth: d,
        })
        .mip_levels(levels)
        .array_layers(layers)
        .samples(samples)
        .tiling(tiling)
        .usage(vk::ImageUsageFlags::SAMPLED | extra_usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid device and create info; the memory is bound before views are made.
    unsafe {
        let image = dev.create_image(&info, None).expect("vkCreateImage");
        let req = dev.get_image_memory_requirements(image);
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(host_visible_type(ctx)),
                None,
            )
            .unwrap();
        dev.bind_image_memory(image, memory, 0).unwrap();
        Img { image, memory }
    }
}

#[allow(clippy::too_many_arguments)]
fn view(
    dev: &ash::Device,
    image: &Img,
    ty: vk::ImageViewType,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
    levels: (u32, u32),
    layers: (u32, u32),
    components: vk::ComponentMapping,
) -> vk::ImageView {
    let info = vk::ImageViewCreateInfo::default()
        .image(image.image)
        .view_type(ty)
        .format(format)
        .components(components)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: levels.0,
            level_count: levels.1,
            base_array_layer: layers.0,
            layer_count: layers.1,
        });
    // SAFETY: valid device, bound image and create info.
    unsafe { dev.create_image_view(&info, None) }.expect("vkCreateImageView")
}

/// Sampled images and their views: every view type, swizzles, depth-only and stencil-only
/// views, level and layer subranges, linear and multisampled images.
fn make_views(ctx: &Ctx, dev: &ash::Device, cube_arrays: bool) -> (Vec<Img>, Vec<vk::ImageView>) {
    use vk::ImageViewType as V;
    let colour = vk::ImageAspectFlags::COLOR;
    let id = vk::ComponentMapping::default();
    let swz = vk::ComponentMapping {
        r: vk::ComponentSwizzle::B,
        g: vk::ComponentSwizzle::ZERO,
        b: vk::ComponentSwizzle::ONE,
        a: vk::ComponentSwizzle::R,
    };
    let opt = vk::ImageTiling::OPTIMAL;
    let one = vk::SampleCountFlags::TYPE_1;
    let none = vk::ImageUsageFlags::empty();
    let flat = vk::ImageCreateFlags::empty();
    let rgba = vk::Format::R8G8B8A8_UNORM;
    let line = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_1D,
        vk::Format::R16_SFLOAT,
        (64, 1, 1),
        7,
        4,
        flat,
        opt,
        none,
        one,
    );
    let cube = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        rgba,
        (32, 32, 1),
        6,
        12,
        vk::ImageCreateFlags::CUBE_COMPATIBLE,
        opt,
        vk::ImageUsageFlags::TRANSFER_DST,
        one,
    );
    let vol = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_3D,
        vk::Format::R32G32B32A32_SFLOAT,
        (16, 8, 4),
        3,
        1,
        flat,
        opt,
        none,
        one,
    );
    let ds = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        vk::Format::D32_SFLOAT_S8_UINT,
        (16, 16, 1),
        2,
        3,
        flat,
        opt,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        one,
    );
    let d16 = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        vk::Format::D16_UNORM,
        (16, 16, 1),
        1,
        1,
        flat,
        opt,
        none,
        one,
    );
    let s8 = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        vk::Format::S8_UINT,
        (16, 16, 1),
        1,
        1,
        flat,
        opt,
        none,
        one,
    );
    let lin = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        vk::Format::B8G8R8A8_SRGB,
        (20, 7, 1),
        1,
        1,
        flat,
        vk::ImageTiling::LINEAR,
        none,
        one,
    );
    let ms = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        rgba,
        (16, 16, 1),
        1,
        2,
        flat,
        opt,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        vk::SampleCountFlags::TYPE_4,
    );
    let mutable = sampled_image(
        ctx,
        dev,
        vk::ImageType::TYPE_2D,
        rgba,
        (8, 8, 1),
        4,
        1,
        vk::ImageCreateFlags::MUTABLE_FORMAT,
        opt,
        none,
        one,
    );
    let rem = (vk::REMAINING_MIP_LEVELS, vk::REMAINING_ARRAY_LAYERS);
    let mut views = vec![
        view(
            dev,
            &line,
            V::TYPE_1D,
            vk::Format::R16_SFLOAT,
            colour,
            (2, 3),
            (3, 1),
            swz,
        ),
        view(
            dev,
            &line,
            V::TYPE_1D_ARRAY,
            vk::Format::R16_SFLOAT,
            colour,
            (0, rem.0),
            (1, rem.1),
            id,
        ),
        view(dev, &cube, V::TYPE_2D, rgba, colour, (5, 1), (11, 1), swz),
        view(
            dev,
            &cube,
            V::TYPE_2D_ARRAY,
            rgba,
            colour,
            (1, 2),
            (2, 7),
            id,
        ),
        view(dev, &cube, V::CUBE, rgba, colour, (0, rem.0), (6, 6), swz),
        view(dev, &cube, V::CUBE, rgba, colour, (3, 1), (0, 6), id),
        view(
            dev,
            &vol,
            V::TYPE_3D,
            vk::Format::R32G32B32A32_SFLOAT,
            colour,
            (1, 2),
            (0, 1),
            swz,
        ),
        view(
            dev,
            &ds,
            V::TYPE_2D_ARRAY,
            vk::Format::D32_SFLOAT_S8_UINT,
            vk::ImageAspectFlags::DEPTH,
            (0, 2),
            (0, 3),
            id,
        ),
        view(
            dev,
            &ds,
            V::TYPE_2D,
            vk::Format::D32_SFLOAT_S8_UINT,
            vk::ImageAspectFlags::STENCIL,
            (1, 1),
            (2, 1),
            swz,
        ),
        view(
            dev,
            &d16,
            V::TYPE_2D,
            vk::Format::D16_UNORM,
            vk::ImageAspectFlags::DEPTH,
            (0, 1),
            (0, 1),
            id,
        ),
        view(
            dev,
            &s8,
            V::TYPE_2D,
            vk::Format::S8_UINT,
            vk::ImageAspectFlags::STENCIL,
            (0, 1),
            (0, 1),
            id,
        ),
        view(
            dev,
            &lin,
            V::TYPE_2D,
            vk::Format::B8G8R8A8_SRGB,
            colour,
            (0, 1),
            (0, 1),
            swz,
        ),
        view(dev, &ms, V::TYPE_2D, rgba, colour, (0, 1), (1, 1), id),
        view(dev, &ms, V::TYPE_2D_ARRAY, rgba, colour, (0, 1), (0, 2), id),
        view(
            dev,
            &mutable,
            V::TYPE_2D,
            vk::Format::R32_UINT,
            colour,
            (1, 3),
            (0, 1),
            id,
        ),
        view(
            dev,
            &mutable,
            V::TYPE_2D,
            vk::Format::R8G8B8A8_SRGB,
            colour,
            (0, 1),
            (0, 1),
            swz,
        ),
    ];
    if cube_arrays {
        views.push(view(
            dev,
            &cube,
            V::CUBE_ARRAY,
            rgba,
            colour,
            (0, rem.0),
            (0, 12),
            id,
        ));
        views.push(view(
            dev,
            &cube,
            V::CUBE_ARRAY,
            rgba,
            colour,
            (2, 1),
            (6, 6),
            swz,
        ));
    }
    (vec![line, cube, vol, ds, d16, s8, lin, ms, mutable], views)
}

fn destroy_views(dev: &ash::Device, images: Vec<Img>, views: Vec<vk::ImageView>) {
    // SAFETY: nothing uses them.
    unsafe {
        for v in views {
            dev.destroy_image_view(v, None);
        }
        for i in images {
            dev.destroy_image(i.image, None);
            dev.free_memory(i.memory, None);
        }
    }
}

#[test]
fn sampled_image_views_of_every_type() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let (images, views) = make_views(&ctx, &dev, false);
    destroy_views(&dev, images, views);
    // SAFETY: everything made from it is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Cube array views are made right (without validation: `Ctx::device` does not enable the
/// imageCubeArray feature they need).
#[test]
fn cube_array_views() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let (images, views) = make_views(&ctx, &dev, true);
    destroy_views(&dev, images, views);
    // SAFETY: everything made from it is gone.
    unsafe { dev.destroy_device(None) };
}

fn binding(
    binding: u32,
    ty: vk::DescriptorType,
    count: u32,
) -> vk::DescriptorSetLayoutBinding<'static> {
    vk::DescriptorSetLayoutBinding::default()
        .binding(binding)
        .descriptor_type(ty)
        .descriptor_count(count)
        .stage_flags(vk::ShaderStageFlags::ALL)
}

/// Layouts, pools, allocation, writes and copies of every image and sampler descriptor type
/// agx4 offers, with immutable samplers, array elements running on into the next binding,
/// and sets freed and allocated again.
#[test]
fn image_and_sampler_descriptors() {
    use vk::DescriptorType as T;
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let (images, views) = make_views(&ctx, &dev, false);
    // SAFETY: valid device and create infos; everything is destroyed at the end.
    unsafe {
        let samplers: Vec<_> = (0..4)
            .map(|i| {
                dev.create_sampler(&sampler_info().mip_lod_bias(i as f32 * 0.5), None)
                    .unwrap()
            })
            .collect();
        let immutable = [samplers[2], samplers[3]];
        let bindings = [
            binding(0, T::SAMPLER, 2),
            binding(1, T::SAMPLER, 2).immutable_samplers(&immutable),
            binding(2, T::COMBINED_IMAGE_SAMPLER, 3),
            binding(3, T::COMBINED_IMAGE_SAMPLER, 2).immutable_samplers(&immutable),
            binding(4, T::SAMPLED_IMAGE, 4),
            binding(5, T::SAMPLED_IMAGE, 2),
            binding(6, T::UNIFORM_BUFFER, 1),
            // Laid out (48 bytes each) though no image can be a storage image yet.
            binding(7, T::STORAGE_IMAGE, 2),
        ];
        let layout = dev
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .unwrap();
        // The samplers may go once the layout holds them.
        let pipeline_layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&[layout]),
                None,
            )
            .unwrap();
        let sizes = [
            vk::DescriptorPoolSize::default()
                .ty(T::SAMPLER)
                .descriptor_count(8),
            vk::DescriptorPoolSize::default()
                .ty(T::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(10),
            vk::DescriptorPoolSize::default()
                .ty(T::SAMPLED_IMAGE)
                .descriptor_count(12),
            vk::DescriptorPoolSize::default()
                .ty(T::UNIFORM_BUFFER)
                .descriptor_count(2),
            vk::DescriptorPoolSize::default()
                .ty(T::STORAGE_IMAGE)
                .descriptor_count(4),
        ];
        let pool = dev
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
                    .max_sets(2)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let sets = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&[layout, layout]),
            )
            .unwrap();
        let layout_of = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let img = |v: usize, s: usize| {
            vk::DescriptorImageInfo::default()
                .image_view(views[v])
                .sampler(samplers[s])
                .image_layout(layout_of)
        };
        let samp = |s: usize| vk::DescriptorImageInfo::default().sampler(samplers[s]);
        let tex = |v: usize| {
            vk::DescriptorImageInfo::default()
                .image_view(views[v])
                .image_layout(layout_of)
        };
        let depth_layout = vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL;
        let s_infos = [samp(0), samp(1)];
        let c_infos = [img(0, 0), img(4, 1), img(6, 0)];
        let ci_infos = [tex(11), tex(12)];
        // Four sampled images, then on into binding 5.
        let t_infos = [
            tex(2),
            tex(3),
            tex(7).image_layout(depth_layout),
            tex(8).image_layout(depth_layout),
            tex(13),
            tex(14),
        ];
        let writes = [
            vk::WriteDescriptorSet::default()
                .dst_set(sets[0])
                .dst_binding(0)
                .descriptor_type(T::SAMPLER)
                .image_info(&s_infos),
            vk::WriteDescriptorSet::default()
                .dst_set(sets[0])
                .dst_binding(2)
                .descriptor_type(T::COMBINED_IMAGE_SAMPLER)
                .image_info(&c_infos),
            vk::WriteDescriptorSet::default()
                .dst_set(sets[0])
                .dst_binding(3)
                .descriptor_type(T::COMBINED_IMAGE_SAMPLER)
                .image_info(&ci_infos),
            vk::WriteDescriptorSet::default()
                .dst_set(sets[0])
                .dst_binding(4)
                .descriptor_type(T::SAMPLED_IMAGE)
                .image_info(&t_infos),
        ];
        let copies = [
            vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(0)
                .dst_set(sets[1])
                .dst_binding(0)
                .descriptor_count(2),
            vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(2)
                .src_array_element(1)
                .dst_set(sets[1])
                .dst_binding(2)
                .descriptor_count(2),
            vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(3)
                .dst_set(sets[1])
                .dst_binding(3)
                .descriptor_count(2),
            vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(4)
                .src_array_element(1)
                .dst_set(sets[1])
                .dst_binding(4)
                .descriptor_count(5),
            // Within one set.
            vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(5)
                .dst_set(sets[0])
                .dst_binding(4)
                .descriptor_count(2),
        ];
        dev.update_descriptor_sets(&writes, &copies);
        dev.free_descriptor_sets(pool, &sets[1..]).unwrap();
        let again = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&[layout]),
            )
            .unwrap();
        dev.update_descriptor_sets(
            &[],
            &[vk::CopyDescriptorSet::default()
                .src_set(sets[0])
                .src_binding(2)
                .dst_set(again[0])
                .dst_binding(2)
                .descriptor_count(3)],
        );
        dev.destroy_pipeline_layout(pipeline_layout, None);
        dev.destroy_descriptor_pool(pool, None);
        dev.destroy_descriptor_set_layout(layout, None);
        for s in samplers {
            dev.destroy_sampler(s, None);
        }
    }
    destroy_views(&dev, images, views);
    // SAFETY: everything made from it is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// MIRROR_CLAMP_TO_EDGE with VK_KHR_sampler_mirror_clamp_to_edge enabled.
#[test]
fn mirror_clamp_to_edge_samplers() {
    let ctx = Ctx::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::khr::sampler_mirror_clamp_to_edge::NAME.as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts);
    // SAFETY: valid physical device and create infos; everything is destroyed.
    unsafe {
        let dev = ctx.instance.create_device(ctx.pdev, &info, None).unwrap();
        let s = dev
            .create_sampler(
                &sampler_info()
                    .address_mode_u(vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE)
                    .address_mode_w(vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE),
                None,
            )
            .unwrap();
        dev.destroy_sampler(s, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// VK_EXT_custom_border_color with both features, under validation: colours with and
/// without a format, identical ones sharing a heap entry; a custom border without its
/// colour structure is still refused (`inexpressible_samplers_are_refused`).
#[test]
fn custom_border_colour_samplers() {
    let ctx = Ctx::new();
    let mut supported = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
    let mut props = vk::PhysicalDeviceCustomBorderColorPropertiesEXT::default();
    // SAFETY: valid physical device; the chains hold structures of a listed extension.
    unsafe {
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut supported);
        ctx.instance
            .get_physical_device_features2(ctx.pdev, &mut f2);
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
        ctx.instance
            .get_physical_device_properties2(ctx.pdev, &mut p2);
    }
    assert_eq!(supported.custom_border_colors, vk::TRUE);
    assert_eq!(supported.custom_border_color_without_format, vk::TRUE);
    assert!(props.max_custom_border_color_samplers >= 32);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [ash::ext::custom_border_color::NAME.as_ptr()];
    let mut enable = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
        .custom_border_colors(true)
        .custom_border_color_without_format(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut enable);
    let colour = |format: vk::Format, c: [f32; 4]| {
        vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .format(format)
            .custom_border_color(vk::ClearColorValue { float32: c })
    };
    let mut a = colour(vk::Format::UNDEFINED, [0.25, 0.5, 0.75, 1.0]);
    let mut b = colour(vk::Format::R8G8B8A8_UNORM, [0.25, 0.5, 0.75, 1.0]);
    let mut c = colour(vk::Format::UNDEFINED, [1.0, 0.0, 0.0, 1.0]);
    let custom = || {
        sampler_info()
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
            .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
    };
    // SAFETY: valid physical device and create infos; everything is destroyed.
    unsafe {
        let dev = ctx.instance.create_device(ctx.pdev, &info, None).unwrap();
        let samplers = [
            dev.create_sampler(&custom().push_next(&mut a), None)
                .unwrap(),
            dev.create_sampler(&custom().push_next(&mut b), None)
                .unwrap(),
            dev.create_sampler(&custom().push_next(&mut c), None)
                .unwrap(),
        ];
        for s in samplers {
            dev.destroy_sampler(s, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
