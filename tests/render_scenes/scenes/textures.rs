//! Sampled images: a combined image sampler read by the fragment shader with nearest
//! filtering (checked against the CPU), linear filtering with explicit and implicit LOD over
//! a mip chain, texelFetch with textureSize (checked against the CPU), and a custom border
//! colour.

use super::super::frame::{bytes_of, clear_color, range, Frame, Pipe, R, V};
use super::super::image::{Image, Tol};
use super::super::needs::Needs;
use super::super::run::{Out, Scene};
use super::RGBA8;
use ash::vk;

const SAMPLED: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::SAMPLED.as_raw() | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);

pub fn scenes() -> Vec<Scene> {
    let nearest = || Needs::new().transfer(RGBA8, vk::FormatFeatureFlags::SAMPLED_IMAGE, SAMPLED);
    let linear = || {
        Needs::new().transfer(
            RGBA8,
            vk::FormatFeatureFlags::SAMPLED_IMAGE
                | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
            SAMPLED,
        )
    };
    vec![
        Scene {
            name: "texture_nearest",
            size: 64,
            needs: nearest,
            run: texture_nearest,
        },
        Scene {
            name: "texture_linear_lod",
            size: 64,
            needs: linear,
            run: texture_linear_lod,
        },
        Scene {
            name: "texture_implicit_lod",
            size: 64,
            needs: linear,
            run: texture_implicit_lod,
        },
        Scene {
            name: "texture_fetch_size",
            size: 64,
            needs: nearest,
            run: texture_fetch_size,
        },
        Scene {
            name: "texture_custom_border",
            size: 64,
            needs: || {
                Needs::new()
                    .transfer(
                        RGBA8,
                        vk::FormatFeatureFlags::SAMPLED_IMAGE
                            | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
                        SAMPLED,
                    )
                    .extension(ash::ext::custom_border_color::NAME)
            },
            run: texture_custom_border,
        },
    ]
}

/// Deterministic texel bytes for level `level` of a `w` x `h` RGBA8 image, alpha opaque.
fn texels(w: u32, h: u32, level: u32) -> Vec<u8> {
    (0..w * h * 4)
        .map(|i| {
            if i % 4 == 3 {
                255
            } else {
                ((i.wrapping_add(level * 7919)).wrapping_mul(2654435761) >> 11) as u8
            }
        })
        .collect()
}

/// A `w` x `h` RGBA8 image of `levels` levels filled with `texels`, in
/// SHADER_READ_ONLY_OPTIMAL, and a 2D view of all its levels.
fn texture(f: &mut Frame, w: u32, h: u32, levels: u32) -> R<vk::ImageView> {
    let img = f.image_mips(RGBA8, (w, h), levels, SAMPLED)?;
    let data: Vec<u8> = (0..levels)
        .flat_map(|l| texels((w >> l).max(1), (h >> l).max(1), l))
        .collect();
    let buf = f.buffer(vk::BufferUsageFlags::TRANSFER_SRC, &data)?;
    let mut offset = 0u64;
    let regions: Vec<vk::BufferImageCopy> = (0..levels)
        .map(|l| {
            let (lw, lh) = ((w >> l).max(1), (h >> l).max(1));
            let r = vk::BufferImageCopy {
                buffer_offset: offset,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: l,
                    base_array_layer: 0,
                    layer_count: 1,
                },
                image_extent: vk::Extent3D {
                    width: lw,
                    height: lh,
                    depth: 1,
                },
                ..Default::default()
            };
            offset += u64::from(lw * lh * 4);
            r
        })
        .collect();
    let all = vk::ImageSubresourceRange {
        level_count: levels,
        ..range(vk::ImageAspectFlags::COLOR)
    };
    let to_dst = vk::ImageMemoryBarrier::default()
        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img)
        .subresource_range(all);
    let to_read = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::SHADER_READ)
        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(img)
        .subresource_range(all);
    f.submit(|cb| {
        // SAFETY: recording; image and buffer alive and large enough for every region.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            f.d.cmd_copy_buffer_to_image(
                cb,
                buf,
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::FRAGMENT_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_read],
            );
        }
    })?;
    f.view_from(
        &vk::ImageViewCreateInfo::default()
            .image(img)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(RGBA8)
            .subresource_range(all),
    )
}

fn sampler_info(
    filter: vk::Filter,
    mip: vk::SamplerMipmapMode,
    wrap: vk::SamplerAddressMode,
) -> vk::SamplerCreateInfo<'static> {
    vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(mip)
        .address_mode_u(wrap)
        .address_mode_v(wrap)
        .address_mode_w(wrap)
        .max_lod(vk::LOD_CLAMP_NONE)
}

/// Draws a full-frame quad whose `v_col` runs from `c00` at the top left to `c11` at the
/// bottom right (bilinearly), with fragment shader `fs` reading `view` through `sampler`
/// (set 0 binding 0), and reads the frame back.
fn draw_textured(
    f: &mut Frame,
    fs: &'static str,
    view: vk::ImageView,
    sampler: vk::Sampler,
    c00: [f32; 4],
    c11: [f32; 4],
) -> R<Image> {
    let (target, tv) = f.target(
        RGBA8,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let rp = f.simple_pass(&[RGBA8], None, vk::SampleCountFlags::TYPE_1)?;
    let fb = f.framebuffer(rp, &[tv])?;
    let binding = [vk::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
    let sl = f.set_layout(&binding)?;
    let layout = f.layout(&[sl], 0)?;
    let set = f.descriptor_set(
        sl,
        &[vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: 1,
        }],
    )?;
    let info = [vk::DescriptorImageInfo {
        sampler,
        image_view: view,
        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    }];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .image_info(&info);
    // SAFETY: valid set, binding and live view and sampler.
    unsafe { f.d.update_descriptor_sets(&[write], &[]) };
    let pipe = f.pipeline(
        &Pipe {
            fs,
            layout: Some(layout),
            ..Pipe::default()
        },
        rp,
    )?;
    let (w, h) = (f.w as f32, f.h as f32);
    let mix = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let corner = |tx: f32, ty: f32| -> V {
        let c = [
            mix(c00[0], c11[0], tx),
            mix(c00[1], c11[1], ty),
            mix(c00[2], c11[2], tx),
            1.0,
        ];
        f.v(tx * w, ty * h, 0.5, c)
    };
    let verts = vec![
        corner(0.0, 0.0),
        corner(1.0, 0.0),
        corner(0.0, 1.0),
        corner(1.0, 0.0),
        corner(1.0, 1.0),
        corner(0.0, 1.0),
    ];
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let d = f.d;
    f.submit(|cb| {
        f.begin(cb, rp, fb, &[clear_color([0.0, 0.0, 0.0, 1.0])]);
        // SAFETY: recording inside the pass; the layout matches the pipeline's.
        unsafe {
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::GRAPHICS, layout, 0, &[set], &[]);
        }
        f.draw(cb, pipe, vb, verts.len() as u32);
        // SAFETY: recording inside the pass.
        unsafe { d.cmd_end_render_pass(cb) };
    })?;
    f.read(
        "frame",
        target,
        RGBA8,
        vk::ImageAspectFlags::COLOR,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )
}

/// An 8x8 texture magnified onto 64x64 pixels with nearest filtering: pixel (x, y) shows
/// texel (x / 8, y / 8) exactly.
fn texture_nearest(f: &mut Frame) -> R<Vec<Out>> {
    let view = texture(f, 8, 8, 1)?;
    let s = f.sampler(&sampler_info(
        vk::Filter::NEAREST,
        vk::SamplerMipmapMode::NEAREST,
        vk::SamplerAddressMode::CLAMP_TO_EDGE,
    ))?;
    let got = draw_textured(
        f,
        "tex_sample.frag",
        view,
        s,
        [0.0; 4],
        [1.0, 1.0, 0.0, 1.0],
    )?;
    let bytes = texels(8, 8, 0);
    let mut want = Image::new("want", f.w, f.h, RGBA8, [0.0; 4]);
    for y in 0..f.h {
        for x in 0..f.w {
            let i = (((y / 8) * 8 + x / 8) * 4) as usize;
            let c = std::array::from_fn(|k| f64::from(bytes[i + k]));
            want.set(x, y, c);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}

/// Linear filtering between texels and between levels: textureLod over a 16x16 texture of
/// 5 levels, the LOD running from 0 at the left to 4 at the right, with REPEAT wrapping of
/// coordinates from -0.5 to 1.5.
fn texture_linear_lod(f: &mut Frame) -> R<Vec<Out>> {
    let view = texture(f, 16, 16, 5)?;
    let s = f.sampler(&sampler_info(
        vk::Filter::LINEAR,
        vk::SamplerMipmapMode::LINEAR,
        vk::SamplerAddressMode::REPEAT,
    ))?;
    let got = draw_textured(
        f,
        "tex_lod.frag",
        view,
        s,
        [-0.5, -0.5, 0.0, 1.0],
        [1.5, 1.5, 4.0, 1.0],
    )?;
    Ok(vec![Out::new(got, None, Tol::UNORM8)])
}

/// Implicit LOD from the quad's derivatives: a 16x16 texture of 5 levels repeated 8 times
/// across 64 pixels (2 texels per pixel: LOD 1), trilinear, mirrored.
fn texture_implicit_lod(f: &mut Frame) -> R<Vec<Out>> {
    let view = texture(f, 16, 16, 5)?;
    let s = f.sampler(&sampler_info(
        vk::Filter::LINEAR,
        vk::SamplerMipmapMode::LINEAR,
        vk::SamplerAddressMode::MIRRORED_REPEAT,
    ))?;
    let got = draw_textured(
        f,
        "tex_sample.frag",
        view,
        s,
        [0.0; 4],
        [8.0, 8.0, 0.0, 1.0],
    )?;
    Ok(vec![Out::new(got, None, Tol::UNORM8)])
}

/// texelFetch of level 1 (8x8 of a 16x16 texture) at (pixel mod textureSize): exact.
fn texture_fetch_size(f: &mut Frame) -> R<Vec<Out>> {
    let view = texture(f, 16, 16, 2)?;
    let s = f.sampler(&sampler_info(
        vk::Filter::NEAREST,
        vk::SamplerMipmapMode::NEAREST,
        vk::SamplerAddressMode::CLAMP_TO_EDGE,
    ))?;
    let got = draw_textured(f, "tex_fetch.frag", view, s, [1.0; 4], [1.0; 4])?;
    let bytes = texels(8, 8, 1);
    let mut want = Image::new("want", f.w, f.h, RGBA8, [0.0; 4]);
    for y in 0..f.h {
        for x in 0..f.w {
            let i = (((y % 8) * 8 + x % 8) * 4) as usize;
            let c = std::array::from_fn(|k| f64::from(bytes[i + k]));
            want.set(x, y, c);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::EXACT)])
}

/// CLAMP_TO_BORDER with a custom border colour given without a format (the harness does not
/// enable the customBorderColors feature it would need; neither driver checks): an 8x8
/// texture over the middle half of the frame, bilinear, so the border also blends into
/// the edge texels. Checked against the CPU.
fn texture_custom_border(f: &mut Frame) -> R<Vec<Out>> {
    let view = texture(f, 8, 8, 1)?;
    let border = [0.2f32, 0.4, 0.6, 0.8];
    let mut custom = vk::SamplerCustomBorderColorCreateInfoEXT::default()
        .custom_border_color(vk::ClearColorValue { float32: border });
    let info = sampler_info(
        vk::Filter::LINEAR,
        vk::SamplerMipmapMode::NEAREST,
        vk::SamplerAddressMode::CLAMP_TO_BORDER,
    )
    .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
    .push_next(&mut custom);
    let s = f.sampler(&info)?;
    let got = draw_textured(
        f,
        "tex_sample.frag",
        view,
        s,
        [-0.5, -0.5, 0.0, 1.0],
        [1.5, 1.5, 0.0, 1.0],
    )?;
    let bytes = texels(8, 8, 0);
    let texel = |x: i64, y: i64, k: usize| -> f64 {
        if (0..8).contains(&x) && (0..8).contains(&y) {
            f64::from(bytes[((y * 8 + x) * 4) as usize + k])
        } else {
            f64::from(border[k]) * 255.0
        }
    };
    let mut want = Image::new("want", f.w, f.h, RGBA8, [0.0; 4]);
    for y in 0..f.h {
        for x in 0..f.w {
            // The pixel centre's coordinate in texels: u runs from -0.5 to 1.5 over the frame.
            let at = |p: u32| (-0.5 + 2.0 * (f64::from(p) + 0.5) / 64.0) * 8.0 - 0.5;
            let (u, v) = (at(x), at(y));
            let (i, j) = (u.floor() as i64, v.floor() as i64);
            let (a, b) = (u - u.floor(), v - v.floor());
            let c = std::array::from_fn(|k| {
                (1.0 - a) * (1.0 - b) * texel(i, j, k)
                    + a * (1.0 - b) * texel(i + 1, j, k)
                    + (1.0 - a) * b * texel(i, j + 1, k)
                    + a * b * texel(i + 1, j + 1, k)
            });
            want.set(x, y, c);
        }
    }
    Ok(vec![Out::new(got, Some(want), Tol::UNORM8)])
}
