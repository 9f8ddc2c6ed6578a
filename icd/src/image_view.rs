//! VkImageView: the image, view type, format, usage and subresource range, kept for the
//! descriptor and attachment work that reads them.
//!
//! A view's format is the image's unless the image is MUTABLE_FORMAT, when any format of its
//! compatibility class (narrowed by the image's VkImageFormatListCreateInfo) may be used;
//! attachments are rendered in the view's format. CUBE views take six layers of a
//! cube-compatible image; CUBE_ARRAY views a multiple of six. (CUBE_ARRAY views need the
//! imageCubeArray feature, which agx4 does not advertise until shaders sample them; the
//! views themselves are made right.)
//!
//! A view an image may be sampled through keeps its 24-byte G13 texture descriptor, which
//! descriptor set writes copy into set memory (docs/render-abi.md section 7): the view's
//! format, its component mapping composed with the format's own swizzle, its levels and
//! layers, and for a depth/stencil image the one aspect it names (depth reads as (D, 0, 0, 1)
//! from the depth plane, stencil as (S, 0, 0, 1) from the stencil plane).
//!
//! A view with STORAGE usage also keeps the texture descriptor its loads read and the PBE
//! descriptor its writes store through (docs/render-abi.md section 7): both in the view's
//! format, cubes as 2D arrays of faces, 3D views over every slice.

use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::image::{Image, CUBE_FACES};
use ash::vk;
use hw::g13::control::descriptors::{Channel, TextureDimension};
use hw::g13::image_desc::{self, view_channel_from_vk, ImageDesc, PixelFormat};
use std::sync::atomic::Ordering;

pub struct ImageView {
    pub image: vk::Image,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub components: vk::ComponentMapping,
    pub range: vk::ImageSubresourceRange,
    /// The image's usage, or the subset a VkImageViewUsageCreateInfo restricts the view to.
    #[allow(dead_code)] // kept for the attachment and descriptor checks still to come
    pub usage: vk::ImageUsageFlags,
    /// The texture descriptor, for views with SAMPLED usage.
    pub texture: Option<[u8; 24]>,
    /// The texture descriptor storage image loads and size queries read, for views with
    /// STORAGE usage: cube views become 2D arrays of their faces (see [`storage_dimension`]).
    pub storage_texture: Option<[u8; 24]>,
    /// The PBE descriptor storage image writes go through, for views with STORAGE usage.
    pub pbe: Option<[u8; 24]>,
}
object!(ImageView, vk::ImageView);

/// Usages that read a view through a texture descriptor in set memory.
const DESCRIPTOR_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::SAMPLED;

/// The hardware dimension storage image descriptors (texture and PBE) of a view have: a cube
/// or cube array is the 2D array of its faces, which shaders address as (x, y, face + 6 x
/// cube), as Mesa's hk does (the texture unit and the PBE have no cube addressing for
/// integer coordinates); the rest as sampled.
fn storage_dimension(view_type: vk::ImageViewType) -> Result<TextureDimension, String> {
    match view_type {
        vk::ImageViewType::CUBE | vk::ImageViewType::CUBE_ARRAY => Ok(TextureDimension::D2Array),
        t => dimension(t, 1),
    }
}

/// The hardware dimension of a view type (multisampled for images with more than one sample).
fn dimension(view_type: vk::ImageViewType, samples: u32) -> Result<TextureDimension, String> {
    use TextureDimension as D;
    Ok(match (view_type, samples > 1) {
        (vk::ImageViewType::TYPE_1D, false) => D::D1,
        (vk::ImageViewType::TYPE_1D_ARRAY, false) => D::D1Array,
        (vk::ImageViewType::TYPE_2D, false) => D::D2,
        (vk::ImageViewType::TYPE_2D, true) => D::D2Multisampled,
        (vk::ImageViewType::TYPE_2D_ARRAY, false) => D::D2Array,
        (vk::ImageViewType::TYPE_2D_ARRAY, true) => D::D2ArrayMultisampled,
        (vk::ImageViewType::TYPE_3D, false) => D::D3,
        (vk::ImageViewType::CUBE, false) => D::Cube,
        (vk::ImageViewType::CUBE_ARRAY, false) => D::CubeArray,
        (t, ms) => return Err(format!("a {t:?} view of an image with multisampling {ms}")),
    })
}

/// Where the texels of the aspect a view reads are and how they are read: the plane's GPU
/// address and layout, and its pixel format before the view's swizzle.
fn plane<'a>(
    image: &'a Image,
    view: &ImageView,
) -> Result<(u64, &'a hw::g13::layout::Layout, PixelFormat), String> {
    let base = image.va.load(Ordering::Acquire);
    if base == 0 {
        return Err("the image is not bound to memory".into());
    }
    let pixel = |f: vk::Format| {
        image_desc::pixel_format(f.as_raw()).ok_or(format!("format {f:?} cannot be sampled"))
    };
    let Some(aspects) = crate::format::aspects(view.format) else {
        return Ok((base, &image.layout, pixel(view.format)?));
    };
    let aspect = view.range.aspect_mask;
    if aspect.contains(vk::ImageAspectFlags::DEPTH) {
        // A view of both aspects (only attachments may have one) samples depth.
        let depth = match aspects.depth {
            Some(crate::format::DepthFormat::Unorm16) => vk::Format::D16_UNORM,
            Some(_) => vk::Format::D32_SFLOAT,
            None => return Err(format!("{:?} has no depth aspect", view.format)),
        };
        return Ok((base, &image.layout, pixel(depth)?));
    }
    if !aspects.stencil {
        return Err(format!("{:?} has no stencil aspect", view.format));
    }
    let s8 = pixel(vk::Format::S8_UINT)?;
    Ok(match &image.stencil_plane {
        Some((offset, layout)) => (base + offset, layout, s8),
        None => (base, &image.layout, s8),
    })
}

/// The texture descriptor of `view`, a view of `image`: for sampling, or (`storage`) for
/// storage image loads, which see cubes as 2D arrays and the format unswizzled (storage
/// views have the identity mapping: valid usage of storage image descriptors).
fn texture_descriptor(image: &Image, view: &ImageView, storage: bool) -> Result<[u8; 24], String> {
    let (base, layout, pixel) = plane(image, view)?;
    let c = if storage {
        vk::ComponentMapping::default()
    } else {
        view.components
    };
    let swizzle = [
        (c.r, Channel::R),
        (c.g, Channel::G),
        (c.b, Channel::B),
        (c.a, Channel::A),
    ]
    .map(|(s, identity)| view_channel_from_vk(s.as_raw(), identity));
    let [Some(r), Some(g), Some(b), Some(a)] = swizzle else {
        return Err(format!("component mapping {c:?}"));
    };
    let desc = ImageDesc {
        base,
        layout,
        format: pixel.with_view_swizzle([r, g, b, a]),
        dimension: if storage {
            storage_dimension(view.view_type)?
        } else {
            dimension(view.view_type, image.samples)?
        },
    };
    let range = view.range;
    // A 3D view covers every slice of its levels (the descriptor's depth is level 0's).
    let (first_layer, layers) = if view.view_type == vk::ImageViewType::TYPE_3D {
        (0, layout.layers)
    } else {
        (range.base_array_layer, range.layer_count)
    };
    image_desc::texture_descriptor(
        &desc,
        range.base_mip_level,
        range.level_count,
        first_layer,
        layers,
    )
    .map_err(|e| format!("texture descriptor: {e}"))
}

/// The PBE descriptor storage image writes of `view` go through: the view's format, its
/// base level, and its layers (every slice of a 3D image's level 0 for 3D views, the faces
/// for cube views).
fn pbe_descriptor(image: &Image, view: &ImageView) -> Result<[u8; 24], String> {
    let (base, layout, pixel) = plane(image, view)?;
    let desc = ImageDesc {
        base,
        layout,
        format: pixel,
        dimension: storage_dimension(view.view_type)?,
    };
    let range = view.range;
    let (first_layer, layers) = if view.view_type == vk::ImageViewType::TYPE_3D {
        (0, layout.layers)
    } else {
        (range.base_array_layer, range.layer_count)
    };
    let pbe = image_desc::pbe_descriptor_layers(&desc, range.base_mip_level, first_layer, layers)
        .map_err(|e| format!("PBE descriptor: {e}"))?;
    // Atomics address texels through the PBE's software words (docs/render-abi.md 7.2); they
    // exist for single-sampled twiddled images of 4-byte texels, the only ones that offer
    // STORAGE_IMAGE_ATOMIC (format::storage_atomic).
    let l = desc.layout;
    if l.tiling == hw::g13::layout::Tiling::Twiddled
        && l.samples == 1
        && l.bytes_per_block == image_desc::atomic::TEXEL_BYTES
    {
        image_desc::atomic::with_atomic_words(pbe, &desc, range.base_mip_level)
            .map_err(|e| format!("PBE atomic words: {e}"))
    } else {
        Ok(pbe)
    }
}

/// Usages that make a view an attachment, which its format must then support.
const ATTACHMENT_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::INPUT_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw(),
);

/// The view `info` asks for, with its level and layer counts resolved, or why agx4 refuses it.
fn check(info: &vk::ImageViewCreateInfo<'_>, image: &Image) -> Result<ImageView, String> {
    let r = info.subresource_range;
    let levels = if r.level_count == vk::REMAINING_MIP_LEVELS {
        image.levels.saturating_sub(r.base_mip_level)
    } else {
        r.level_count
    };
    // A 2D or 2D array view of a 3D image (2D_ARRAY_COMPATIBLE), or a 2D view of one
    // (2D_VIEW_COMPATIBLE_EXT), takes depth slices of one level as its layers.
    let slices = image.is_3d()
        && matches!(
            info.view_type,
            vk::ImageViewType::TYPE_2D | vk::ImageViewType::TYPE_2D_ARRAY
        );
    let image_layers = if slices {
        let compatible = image
            .flags
            .contains(vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE)
            || (info.view_type == vk::ImageViewType::TYPE_2D
                && image
                    .flags
                    .contains(vk::ImageCreateFlags::TYPE_2D_VIEW_COMPATIBLE_EXT));
        if !compatible {
            return Err(format!(
                "a {:?} view of a 3D image made with {:?}",
                info.view_type, image.flags
            ));
        }
        if levels != 1 {
            return Err(format!("a 2D view of {levels} levels of a 3D image"));
        }
        (image.extent.depth >> r.base_mip_level).max(1)
    } else {
        image.layers
    };
    let layers = if r.layer_count == vk::REMAINING_ARRAY_LAYERS {
        image_layers.saturating_sub(r.base_array_layer)
    } else {
        r.layer_count
    };
    if crate::format::get(info.format).is_none() {
        return Err(format!("format {:?} is not supported", info.format));
    }
    if levels == 0
        || layers == 0
        || r.base_mip_level
            .checked_add(levels)
            .is_none_or(|end| end > image.levels)
        || r.base_array_layer
            .checked_add(layers)
            .is_none_or(|end| end > image_layers)
    {
        return Err(format!(
            "levels {}+{levels} and layers {}+{layers} are outside the image's {} and {}",
            r.base_mip_level, r.base_array_layer, image.levels, image_layers
        ));
    }
    if info.format != image.vk_format {
        if !image.flags.contains(vk::ImageCreateFlags::MUTABLE_FORMAT) {
            return Err(format!(
                "format {:?} differs from the image's {:?}, which is not MUTABLE_FORMAT",
                info.format, image.vk_format
            ));
        }
        if !crate::format::view_compatible(image.vk_format, info.format) {
            return Err(format!(
                "format {:?} is not in the compatibility class of the image's {:?}",
                info.format, image.vk_format
            ));
        }
    }
    if !image.view_formats.is_empty() && !image.view_formats.contains(&info.format) {
        return Err(format!(
            "format {:?} is not in the image's format list",
            info.format
        ));
    }
    match info.view_type {
        vk::ImageViewType::CUBE => {
            if !image.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE) {
                return Err("a cube view of an image that is not CUBE_COMPATIBLE".into());
            }
            if layers != CUBE_FACES {
                return Err(format!(
                    "a cube view of {layers} layers (it takes {CUBE_FACES})"
                ));
            }
        }
        vk::ImageViewType::CUBE_ARRAY => {
            if !image.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE) {
                return Err("a cube array view of an image that is not CUBE_COMPATIBLE".into());
            }
            if !layers.is_multiple_of(CUBE_FACES) {
                return Err(format!(
                    "a cube array view of {layers} layers (a multiple of {CUBE_FACES})"
                ));
            }
        }
        _ => {}
    }
    // SAFETY: valid usage: the pNext chain is valid.
    let usage =
        match unsafe { handle::find_in_chain::<vk::ImageViewUsageCreateInfo<'_>>(info.p_next) } {
            Some(u) if u.usage.is_empty() || !image.usage.contains(u.usage) => {
                return Err(format!(
                    "view usage {:?} is not a non-empty subset of the image's {:?}",
                    u.usage, image.usage
                ));
            }
            Some(u) => u.usage,
            None => image.usage,
        };
    // A view in another format than the image's must itself support the attachment and
    // sampled usages it keeps: rendering and sampling go through the view's format.
    let attachment = usage & (ATTACHMENT_USAGE | DESCRIPTOR_USAGE);
    if info.format != image.vk_format
        && !crate::image::supported_usage(info.format, vk::ImageTiling::OPTIMAL)
            .contains(attachment)
    {
        return Err(format!(
            "format {:?} does not support the view's usage {attachment:?}",
            info.format
        ));
    }
    let mut view = ImageView {
        image: info.image,
        view_type: info.view_type,
        format: info.format,
        components: info.components,
        range: vk::ImageSubresourceRange {
            level_count: levels,
            layer_count: layers,
            ..r
        },
        usage,
        texture: None,
        storage_texture: None,
        pbe: None,
    };
    if usage.contains(vk::ImageUsageFlags::SAMPLED) {
        view.texture = Some(texture_descriptor(image, &view, false)?);
    }
    // A view whose format has no storage support keeps none (valid usage forbids it to be a
    // storage image, and the image's other views may still be).
    let tiling = match image.layout.tiling {
        hw::g13::layout::Tiling::Linear { .. } => vk::ImageTiling::LINEAR,
        hw::g13::layout::Tiling::Twiddled => vk::ImageTiling::OPTIMAL,
    };
    if usage.contains(vk::ImageUsageFlags::STORAGE) && crate::format::storage(view.format, tiling) {
        view.storage_texture = Some(texture_descriptor(image, &view, true)?);
        view.pbe = Some(pbe_descriptor(image, &view)?);
    }
    Ok(view)
}

pub unsafe extern "system" fn create_image_view(
    device: vk::Device,
    p_create_info: *const vk::ImageViewCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_view: *mut vk::ImageView,
) -> vk::Result {
    guard("vkCreateImageView", || {
        // SAFETY: `device` is vkCreateImageView's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { crate::device::Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let info = unsafe { &*p_create_info };
        // SAFETY: Vulkan valid usage: `info.image` is a live image made by this driver.
        let image = unsafe { Image::from_handle(info.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks; pView is
        // writable.
        unsafe { hand_out("vkCreateImageView", check(info, image), p_allocator, p_view) }
    })
}

/// The end of a view's create command: the view `checked` made, or why the create info is
/// invalid, into a handle at `p_out`. Invalid create info is undefined behaviour, and the
/// command may only fail with out-of-memory codes: the least surprising of them, with the
/// reason on stderr.
///
/// # Safety
/// `p_allocator` is null or valid allocation callbacks; `p_out` is writable.
pub(crate) unsafe fn hand_out<T: Object>(
    command: &str,
    checked: Result<T, String>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_out: *mut T::Handle,
) -> Result<(), vk::Result> {
    let view = checked.map_err(|why| {
        eprintln!("agx4: {command}: {why}; returning VK_ERROR_OUT_OF_HOST_MEMORY");
        vk::Result::ERROR_OUT_OF_HOST_MEMORY
    })?;
    // SAFETY: guaranteed by the caller.
    let handle = unsafe { view.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
    // SAFETY: guaranteed by the caller.
    unsafe { *p_out = handle };
    Ok(())
}

pub unsafe extern "system" fn destroy_image_view(
    _device: vk::Device,
    view: vk::ImageView,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyImageView", (), || {
        // SAFETY: Vulkan valid usage: `imageView` is VK_NULL_HANDLE or a live image view made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { ImageView::take(view) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::g13::control::descriptors::{Channels, Texture, TextureType};

    fn image(
        ty: vk::ImageType,
        format: vk::Format,
        extent: (u32, u32, u32),
        levels: u32,
        layers: u32,
        flags: vk::ImageCreateFlags,
    ) -> Image {
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        image_for(ty, format, extent, levels, layers, flags, usage)
    }

    /// As [`image`], for `usage`.
    fn image_for(
        ty: vk::ImageType,
        format: vk::Format,
        extent: (u32, u32, u32),
        levels: u32,
        layers: u32,
        flags: vk::ImageCreateFlags,
        usage: vk::ImageUsageFlags,
    ) -> Image {
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(ty)
            .format(format)
            .extent(vk::Extent3D {
                width: extent.0,
                height: extent.1,
                depth: extent.2,
            })
            .mip_levels(levels)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage);
        let img = crate::image::create(&info).unwrap();
        img.va.store(0x10_0000_0000, Ordering::Release);
        img
    }

    fn view_info(
        ty: vk::ImageViewType,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        (base_level, levels): (u32, u32),
        (base_layer, layers): (u32, u32),
    ) -> vk::ImageViewCreateInfo<'static> {
        vk::ImageViewCreateInfo::default()
            .view_type(ty)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: base_level,
                level_count: levels,
                base_array_layer: base_layer,
                layer_count: layers,
            })
    }

    fn texture(info: &vk::ImageViewCreateInfo<'_>, img: &Image) -> Texture {
        let v = check(info, img).unwrap();
        Texture::unpack(&v.texture.unwrap()).unwrap()
    }

    #[test]
    fn views_of_every_type_describe_their_range() {
        let colour = vk::ImageAspectFlags::COLOR;
        let rgba = vk::Format::R8G8B8A8_UNORM;
        let cube = image(
            vk::ImageType::TYPE_2D,
            rgba,
            (16, 16, 1),
            5,
            12,
            vk::ImageCreateFlags::CUBE_COMPATIBLE,
        );
        let base = 0x10_0000_0000u64;
        let t = texture(
            &view_info(vk::ImageViewType::CUBE_ARRAY, rgba, colour, (1, 3), (0, 12)),
            &cube,
        );
        assert_eq!(t.dimension, TextureDimension::CubeArray);
        assert_eq!((t.first_level, t.last_level, t.depth), (1, 3, 2));
        assert_eq!((t.width, t.height, t.address), (16, 16, base));
        let t = texture(
            &view_info(vk::ImageViewType::CUBE, rgba, colour, (0, 5), (6, 6)),
            &cube,
        );
        assert_eq!(t.dimension, TextureDimension::Cube);
        assert_eq!(t.depth, 1);
        assert_eq!(t.address, base + 6 * cube.layout.layer_stride);
        let t = texture(
            &view_info(
                vk::ImageViewType::TYPE_2D_ARRAY,
                rgba,
                colour,
                (2, 1),
                (3, 4),
            ),
            &cube,
        );
        assert_eq!(t.dimension, TextureDimension::D2Array);
        assert_eq!((t.first_level, t.last_level, t.depth), (2, 2, 4));
        assert_eq!(t.address, base + 3 * cube.layout.layer_stride);
        assert!(check(
            &view_info(vk::ImageViewType::CUBE_ARRAY, rgba, colour, (0, 1), (0, 8)),
            &cube
        )
        .is_err());

        let line = image(
            vk::ImageType::TYPE_1D,
            vk::Format::R32_SFLOAT,
            (64, 1, 1),
            7,
            3,
            vk::ImageCreateFlags::empty(),
        );
        let t = texture(
            &view_info(
                vk::ImageViewType::TYPE_1D_ARRAY,
                vk::Format::R32_SFLOAT,
                colour,
                (0, vk::REMAINING_MIP_LEVELS),
                (1, vk::REMAINING_ARRAY_LAYERS),
            ),
            &line,
        );
        assert_eq!(t.dimension, TextureDimension::D1Array);
        assert_eq!((t.last_level, t.depth), (6, 2));
        assert_eq!(
            (t.channels, t.texture_type),
            (Channels::R32, TextureType::Float)
        );

        let vol = image(
            vk::ImageType::TYPE_3D,
            rgba,
            (8, 8, 4),
            4,
            1,
            vk::ImageCreateFlags::empty(),
        );
        let t = texture(
            &view_info(vk::ImageViewType::TYPE_3D, rgba, colour, (1, 2), (0, 1)),
            &vol,
        );
        assert_eq!(t.dimension, TextureDimension::D3);
        assert_eq!((t.first_level, t.last_level, t.depth), (1, 2, 4));
    }

    #[test]
    fn storage_views_describe_faces_and_slices() {
        use hw::g13::control::descriptors::Pbe;
        let colour = vk::ImageAspectFlags::COLOR;
        let f = vk::Format::R32_UINT;
        let usage = vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::SAMPLED;
        let make = |ty, extent: (u32, u32, u32), levels, layers, flags| {
            image_for(ty, f, extent, levels, layers, flags, usage)
        };
        let cube = make(
            vk::ImageType::TYPE_2D,
            (8, 8, 1),
            2,
            12,
            vk::ImageCreateFlags::CUBE_COMPATIBLE,
        );
        // STORAGE images have page-aligned layers, which both descriptors carry.
        assert!(cube.layout.page_aligned_layers);
        let v = check(
            &view_info(vk::ImageViewType::CUBE_ARRAY, f, colour, (1, 1), (6, 6)),
            &cube,
        )
        .unwrap();
        // Sampling sees one cube; storage sees six faces of a 2D array, at the view's level.
        let sampled = Texture::unpack(&v.texture.unwrap()).unwrap();
        assert_eq!(
            (sampled.dimension, sampled.depth),
            (TextureDimension::CubeArray, 1)
        );
        let t = Texture::unpack(&v.storage_texture.unwrap()).unwrap();
        assert_eq!((t.dimension, t.depth), (TextureDimension::D2Array, 6));
        assert!(t.page_aligned_layers);
        let p = Pbe::unpack(&v.pbe.unwrap()).unwrap();
        assert_eq!(
            (p.dimension, p.layers, p.level),
            (TextureDimension::D2Array, 6, 1)
        );
        assert_eq!(p.buffer, 0x10_0000_0000 + 6 * cube.layout.layer_stride);
        assert!(p.page_aligned_layers);

        let vol = make(
            vk::ImageType::TYPE_3D,
            (8, 8, 4),
            3,
            1,
            vk::ImageCreateFlags::empty(),
        );
        let v = check(
            &view_info(vk::ImageViewType::TYPE_3D, f, colour, (2, 1), (0, 1)),
            &vol,
        )
        .unwrap();
        let p = Pbe::unpack(&v.pbe.unwrap()).unwrap();
        assert_eq!(
            (p.dimension, p.layers, p.level),
            (TextureDimension::D3, 4, 2)
        );
        let t = Texture::unpack(&v.storage_texture.unwrap()).unwrap();
        assert_eq!(
            (t.dimension, t.depth, t.first_level),
            (TextureDimension::D3, 4, 2)
        );

        // A view without STORAGE usage has no storage descriptors.
        let mut only_sampled =
            vk::ImageViewUsageCreateInfo::default().usage(vk::ImageUsageFlags::SAMPLED);
        let info = view_info(vk::ImageViewType::TYPE_3D, f, colour, (0, 1), (0, 1))
            .push_next(&mut only_sampled);
        let v = check(&info, &vol).unwrap();
        assert!(v.pbe.is_none() && v.storage_texture.is_none() && v.texture.is_some());
    }

    #[test]
    fn swizzles_compose_with_the_format() {
        let bgra = image(
            vk::ImageType::TYPE_2D,
            vk::Format::B8G8R8A8_SRGB,
            (4, 4, 1),
            1,
            1,
            vk::ImageCreateFlags::empty(),
        );
        let c = vk::ComponentSwizzle::IDENTITY;
        let info = view_info(
            vk::ImageViewType::TYPE_2D,
            vk::Format::B8G8R8A8_SRGB,
            vk::ImageAspectFlags::COLOR,
            (0, 1),
            (0, 1),
        )
        .components(vk::ComponentMapping {
            r: vk::ComponentSwizzle::A,
            g: c,
            b: vk::ComponentSwizzle::ONE,
            a: vk::ComponentSwizzle::R,
        });
        let t = texture(&info, &bgra);
        // B8G8R8A8 stores blue in channel 0: R reads channel 2.
        assert_eq!(
            t.swizzle,
            [Channel::A, Channel::G, Channel::One, Channel::B]
        );
        assert!(t.srgb);
    }

    #[test]
    fn depth_and_stencil_aspects_read_their_planes() {
        let ds = image(
            vk::ImageType::TYPE_2D,
            vk::Format::D32_SFLOAT_S8_UINT,
            (8, 8, 1),
            1,
            2,
            vk::ImageCreateFlags::empty(),
        );
        let f = vk::Format::D32_SFLOAT_S8_UINT;
        let d = texture(
            &view_info(
                vk::ImageViewType::TYPE_2D_ARRAY,
                f,
                vk::ImageAspectFlags::DEPTH,
                (0, 1),
                (0, 2),
            ),
            &ds,
        );
        assert_eq!(
            (d.channels, d.texture_type),
            (Channels::R32, TextureType::Float)
        );
        assert_eq!(d.address, 0x10_0000_0000);
        let s = texture(
            &view_info(
                vk::ImageViewType::TYPE_2D,
                f,
                vk::ImageAspectFlags::STENCIL,
                (0, 1),
                (1, 1),
            ),
            &ds,
        );
        let (offset, plane) = ds.stencil_plane.as_ref().unwrap();
        assert_eq!(
            (s.channels, s.texture_type),
            (Channels::R8, TextureType::Uint)
        );
        assert_eq!(s.address, 0x10_0000_0000 + offset + plane.layer_stride);
    }
}
