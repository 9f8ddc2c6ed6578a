//! Samplers, sampled images and image descriptors through the loader: vkCreateSampler for
//! every Vulkan 1.0 sampler state (identical samplers share one entry of the device's sampler
//! heap, so thousands of them fit; distinct ones run out with VK_ERROR_OUT_OF_DEVICE_MEMORY),
//! and what is refused.
//!
//! Shaders cannot sample yet, so these tests check what is visible from outside: results,
//! errors and the validation layer's silence.

mod common;

use ash::vk;
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
            .mag_filter(if i % 2 == 0 {
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
/// validation: they need features and extensions agx4 does not offer).
#[test]
fn inexpressible_samplers_are_refused() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let mirror_clamp = sampler_info().address_mode_u(vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE);
    let custom = sampler_info()
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_BORDER)
        .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT);
    let mut reduction =
        vk::SamplerReductionModeCreateInfo::default().reduction_mode(vk::SamplerReductionMode::MAX);
    let minmax = sampler_info().push_next(&mut reduction);
    for info in [mirror_clamp, custom, minmax] {
        // SAFETY: valid device; the states are invalid usage the driver refuses.
        let r = unsafe { dev.create_sampler(&info, None) };
        assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
    }
    // SAFETY: nothing was created.
    unsafe { dev.destroy_device(None) };
}
