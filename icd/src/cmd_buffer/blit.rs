//! vkCmdBlitImage, vkCmdResolveImage and vkCmdClearDepthStencilImage: compute launches of the
//! machine-code image meta shaders (`compiler::meta_image`), one per destination layer (or 3D
//! slice) and level.
//!
//! Each launch reads its source through a texture descriptor in texture state register 0 and
//! a sampler in sampler state register 0, and writes through a PBE descriptor in texture state
//! register 1, so format conversion (sRGB, float, normalized, swizzles) is the texture unit's
//! and the PBE's. Depth/stencil clears write through a PBE too, one plane at a time: depth
//! planes as R16 UNORM (D16) or R32 FLOAT (D32, and the first plane of D32_S8), stencil
//! planes as R8 UINT (S8, and the second plane of D32_S8).
//!
//! A blit's source may be its own destination (other regions, other levels), so every launch
//! waits for the one before, as image copies do.

use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::device::Device;
use crate::emit::{ComputeBinding, Grid, StateTable, UniformRange};
use crate::format;
use crate::handle::{self, Object};
use crate::image::Image;
use ash::vk;
use compiler::meta_image::{self, uniforms as u, ImageMeta};
use hw::g13::control::descriptors::{TextureDimension, TextureType};
use hw::g13::image_desc::{self, filter_from_vk, ImageDesc, PixelFormat, SamplerDesc};
use std::sync::atomic::Ordering;

/// The image a blit, resolve or depth/stencil clear names; `VK_ERROR_UNKNOWN` for
/// `VK_NULL_HANDLE`.
///
/// # Safety
/// `i` must be `VK_NULL_HANDLE` or a live image made by this driver, and the image must not be
/// destroyed while the returned reference is in use. The `srcImage` or `dstImage` of
/// vkCmdBlitImage or vkCmdResolveImage, or the image of vkCmdClearDepthStencilImage, is such a
/// handle (Vulkan valid usage).
unsafe fn image<'a>(i: vk::Image) -> Result<&'a Image, vk::Result> {
    // SAFETY: guaranteed by the caller: `i` is null or a live image made by this driver that
    // outlives the returned reference.
    unsafe { Image::from_handle(i) }.ok_or(vk::Result::ERROR_UNKNOWN)
}

fn bound_va(img: &Image) -> Result<u64, vk::Result> {
    match img.va.load(Ordering::Acquire) {
        0 => Err(vk::Result::ERROR_UNKNOWN),
        v => Ok(v),
    }
}

fn pixel_format(img: &Image, what: &str) -> Result<PixelFormat, vk::Result> {
    image_desc::pixel_format(img.vk_format.as_raw()).ok_or_else(|| {
        eprintln!(
            "agx4: {what}: {:?} has no texture/PBE format",
            img.vk_format
        );
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED
    })
}

fn desc_error(what: &str, e: impl std::fmt::Display) -> vk::Result {
    eprintln!("agx4: {what}: {e}");
    vk::Result::ERROR_UNKNOWN
}

/// The image's descriptors as `dimension` sees it.
fn image_desc(
    img: &Image,
    va: u64,
    format: PixelFormat,
    dimension: TextureDimension,
) -> ImageDesc<'_> {
    ImageDesc {
        base: va,
        layout: &img.layout,
        format,
        dimension,
    }
}

/// A PBE descriptor writing `level` of layer (or 3D slice) `layer` as a 2D surface: a 3D
/// image has one level, so each slice is laid out as a 2D image.
fn pbe(
    img: &Image,
    format: PixelFormat,
    level: u32,
    layer: u32,
    what: &str,
) -> Result<[u8; 24], vk::Result> {
    let va = bound_va(img)?;
    let dim = if img.layout.samples > 1 {
        TextureDimension::D2Multisampled
    } else {
        TextureDimension::D2
    };
    if img.layout.samples > 1 {
        eprintln!("agx4: {what}: writing a multisampled destination is not implemented");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    image_desc::pbe_descriptor(&image_desc(img, va, format, dim), level, layer)
        .map_err(|e| desc_error(what, e))
}

/// One launch: the program, its uniforms, texture registers 0 and 1, sampler 0, and the
/// destination rectangle's size.
struct Launch {
    kind: ImageMeta,
    uniforms: [u32; u::COUNT as usize],
    textures: [[u8; 24]; 2],
    sampler: [u8; 8],
    size: [u32; 2],
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

fn run(dev: &Device, rec: &mut Recording, l: &Launch) -> Result<(), vk::Result> {
    if l.size.contains(&0) {
        return Ok(());
    }
    if dev.target != Some(compiler::Target::G13) {
        eprintln!("agx4: image meta shaders exist for G13 only");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    let prog = meta_image::build(l.kind).map_err(|e| desc_error("image meta shader", e))?;
    rec.open_segment(dev)?;
    // The code lives with the command buffer's other uploads, in the shader window.
    let code_va = rec.upload.push(dev, &prog.code, 128)?;
    let code = u32::try_from(code_va - dev.usc_base).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let uniforms: Vec<u8> = l.uniforms.iter().flat_map(|w| w.to_le_bytes()).collect();
    let uniforms_va = rec.upload.push(dev, &uniforms, 16)?;
    let textures_va = rec.upload.push(dev, l.textures.as_flattened(), 16)?;
    let sampler_va = rec.upload.push(dev, &l.sampler, 16)?;
    let binding = ComputeBinding {
        shared_bytes: 0,
        uniform_halves: prog.uniform_halves,
        uniforms: &[UniformRange {
            first_half: 0,
            halves: prog.uniform_halves,
            va: uniforms_va,
        }],
        textures: Some(StateTable {
            count: 2,
            va: textures_va,
        }),
        samplers: Some(StateTable {
            count: 1,
            va: sampler_va,
        }),
        code,
        gpr_halves: prog.gpr_halves,
        stack_bytes: 0,
        preamble: None,
    };
    let local = prog.local_size;
    let global = [
        l.size[0].next_multiple_of(local[0]),
        l.size[1].next_multiple_of(local[1]),
        1,
    ];
    // Each launch reads what the one before it wrote.
    if rec.launches > 0 {
        rec.barrier_pending = true;
    }
    super::dispatch::launch_bound(dev, rec, &binding, Grid::Direct(global), local)?;
    // Whatever comes next may read what this wrote.
    rec.barrier_pending = true;
    Ok(())
}

fn remaining_layers(img: &Image, sub: &vk::ImageSubresourceLayers) -> u32 {
    if sub.layer_count == vk::REMAINING_ARRAY_LAYERS {
        img.layers.saturating_sub(sub.base_array_layer)
    } else {
        sub.layer_count
    }
}

/// One axis of a blit region after ordering the destination: destination start and length,
/// and the source coordinate (in texels) of destination edges start and end.
fn axis(s0: i32, s1: i32, d0: i32, d1: i32) -> (i32, u32, f64, f64) {
    if d1 >= d0 {
        (d0, (d1 - d0) as u32, f64::from(s0), f64::from(s1))
    } else {
        (d1, (d0 - d1) as u32, f64::from(s1), f64::from(s0))
    }
}

/// Normalized source coordinate of destination pixel `i`'s centre: `i * scale + bias`.
fn scale_bias(len: u32, s0: f64, s1: f64, size: u32) -> (f32, f32) {
    let step = (s1 - s0) / f64::from(len.max(1));
    let size = f64::from(size.max(1));
    ((step / size) as f32, ((s0 + 0.5 * step) / size) as f32)
}

fn blit_region(
    dev: &Device,
    rec: &mut Recording,
    si: &Image,
    di: &Image,
    r: &vk::ImageBlit,
    filter: vk::Filter,
) -> Result<(), vk::Result> {
    const WHAT: &str = "vkCmdBlitImage";
    let (sf, df) = (pixel_format(si, WHAT)?, pixel_format(di, WHAT)?);
    let integer = |t: TextureType| matches!(t, TextureType::Uint | TextureType::Sint);
    if integer(sf.texture_type) != integer(df.texture_type) {
        eprintln!(
            "agx4: {WHAT}: {:?} to {:?} mixes integer and non-integer formats",
            si.vk_format, di.vk_format
        );
        return Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
    }
    let filt = filter_from_vk(filter.as_raw()).ok_or_else(|| {
        eprintln!("agx4: {WHAT}: filter {filter:?} is not implemented");
        vk::Result::ERROR_FEATURE_NOT_PRESENT
    })?;
    let (ss, ds) = (&r.src_subresource, &r.dst_subresource);
    let [so, so1] = r.src_offsets;
    let [d0, d1] = r.dst_offsets;
    let (dx, w, sx0, sx1) = axis(so.x, so1.x, d0.x, d1.x);
    let (dy, h, sy0, sy1) = axis(so.y, so1.y, d0.y, d1.y);
    let (dz, depth, sz0, sz1) = axis(so.z, so1.z, d0.z, d1.z);
    let (sw, sh) = si.layout.level_extent(ss.mip_level);
    let (ax, bx) = scale_bias(w, sx0, sx1, sw);
    let (ay, by) = scale_bias(h, sy0, sy1, sh);
    let sampler = image_desc::sampler_descriptor(&SamplerDesc {
        mag_filter: filt,
        min_filter: filt,
        max_lod: 0.0,
        ..SamplerDesc::default()
    });
    let src_va = bound_va(si)?;
    let src_layers = remaining_layers(si, ss).max(1);
    let slices = if di.is_3d() {
        depth
    } else {
        remaining_layers(di, ds)
    };
    for k in 0..slices {
        let dst_layer = if di.is_3d() {
            dz as u32 + k
        } else {
            ds.base_array_layer + k
        };
        let (texture, volume, wcoord) = if si.is_3d() {
            let src_depth = si.layout.layers;
            // The source depth of this destination slice's centre.
            let (scale, bias) = scale_bias(depth.max(1), sz0, sz1, src_depth);
            let desc = image_desc(si, src_va, sf, TextureDimension::D3);
            let t = image_desc::texture_descriptor(&desc, ss.mip_level, 1, 0, src_depth)
                .map_err(|e| desc_error(WHAT, e))?;
            (t, true, k as f32 * scale + bias)
        } else {
            let layer = ss.base_array_layer + k.min(src_layers - 1);
            let desc = image_desc(si, src_va, sf, TextureDimension::D2);
            let t = image_desc::texture_descriptor(&desc, ss.mip_level, 1, layer, 1)
                .map_err(|e| desc_error(WHAT, e))?;
            (t, false, 0.0)
        };
        let mut uniforms = [0u32; u::COUNT as usize];
        uniforms[u::WIDTH as usize] = w;
        uniforms[u::HEIGHT as usize] = h;
        uniforms[u::DST_X0 as usize] = dx as u32;
        uniforms[u::DST_Y0 as usize] = dy as u32;
        uniforms[u::SCALE_X as usize] = f(ax);
        uniforms[u::BIAS_X as usize] = f(bx);
        uniforms[u::SCALE_Y as usize] = f(ay);
        uniforms[u::BIAS_Y as usize] = f(by);
        uniforms[u::W as usize] = f(wcoord);
        let textures = [texture, pbe(di, df, ds.mip_level, dst_layer, WHAT)?];
        run(
            dev,
            rec,
            &Launch {
                kind: ImageMeta::Blit { volume },
                uniforms,
                textures,
                sampler,
                size: [w, h],
            },
        )?;
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_blit_image(
    cb: vk::CommandBuffer,
    src: vk::Image,
    _src_layout: vk::ImageLayout,
    dst: vk::Image,
    _dst_layout: vk::ImageLayout,
    count: u32,
    p_regions: *const vk::ImageBlit,
    filter: vk::Filter,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdBlitImage", cb, |dev, rec| {
        let (si, di) = (
            // SAFETY: `src` is vkCmdBlitImage's srcImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(src) }?,
            // SAFETY: `dst` is vkCmdBlitImage's dstImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(dst) }?,
        );
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            blit_region(dev, rec, si, di, r, filter)?;
        }
        Ok(())
    })
}

fn resolve_region(
    dev: &Device,
    rec: &mut Recording,
    si: &Image,
    di: &Image,
    r: &vk::ImageResolve,
) -> Result<(), vk::Result> {
    const WHAT: &str = "vkCmdResolveImage";
    let (sf, df) = (pixel_format(si, WHAT)?, pixel_format(di, WHAT)?);
    let samples = u8::try_from(si.layout.samples).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    if samples < 2 {
        eprintln!("agx4: {WHAT}: the source has one sample");
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let average = !matches!(sf.texture_type, TextureType::Uint | TextureType::Sint);
    let src_va = bound_va(si)?;
    let (ss, ds) = (&r.src_subresource, &r.dst_subresource);
    let layers = if di.is_3d() {
        r.extent.depth
    } else {
        remaining_layers(di, ds)
    };
    for k in 0..layers {
        let desc = image_desc(si, src_va, sf, TextureDimension::D2Multisampled);
        let texture =
            image_desc::texture_descriptor(&desc, ss.mip_level, 1, ss.base_array_layer + k, 1)
                .map_err(|e| desc_error(WHAT, e))?;
        let dst_layer = if di.is_3d() {
            r.dst_offset.z as u32 + k
        } else {
            ds.base_array_layer + k
        };
        let mut uniforms = [0u32; u::COUNT as usize];
        uniforms[u::WIDTH as usize] = r.extent.width;
        uniforms[u::HEIGHT as usize] = r.extent.height;
        uniforms[u::DST_X0 as usize] = r.dst_offset.x as u32;
        uniforms[u::DST_Y0 as usize] = r.dst_offset.y as u32;
        uniforms[u::SRC_X0 as usize] = r.src_offset.x as u32;
        uniforms[u::SRC_Y0 as usize] = r.src_offset.y as u32;
        uniforms[u::INV_SAMPLES as usize] = f(1.0 / f32::from(samples));
        let textures = [texture, pbe(di, df, ds.mip_level, dst_layer, WHAT)?];
        let sampler = image_desc::sampler_descriptor(&SamplerDesc::default());
        let size = [r.extent.width, r.extent.height];
        run(
            dev,
            rec,
            &Launch {
                kind: ImageMeta::Resolve { samples, average },
                uniforms,
                textures,
                sampler,
                size,
            },
        )?;
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_resolve_image(
    cb: vk::CommandBuffer,
    src: vk::Image,
    _src_layout: vk::ImageLayout,
    dst: vk::Image,
    _dst_layout: vk::ImageLayout,
    count: u32,
    p_regions: *const vk::ImageResolve,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdResolveImage", cb, |dev, rec| {
        let (si, di) = (
            // SAFETY: `src` is vkCmdResolveImage's srcImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(src) }?,
            // SAFETY: `dst` is vkCmdResolveImage's dstImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(dst) }?,
        );
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            resolve_region(dev, rec, si, di, r)?;
        }
        Ok(())
    })
}

/// A plane of a depth/stencil image: where it starts, its layout, its pixel format (depth
/// planes are R16 UNORM or R32 FLOAT, stencil planes R8 UINT), and the four words a fill
/// writes to clear it to `value`.
struct Plane<'a> {
    va: u64,
    layout: &'a hw::g13::layout::Layout,
    format: PixelFormat,
    words: [u32; 4],
}

/// The planes of `img` that `aspects` names.
fn planes<'a>(
    img: &'a Image,
    value: &vk::ClearDepthStencilValue,
    aspects: vk::ImageAspectFlags,
) -> Result<Vec<Plane<'a>>, vk::Result> {
    let unsupported = || {
        eprintln!(
            "agx4: vkCmdClearDepthStencilImage: {:?} is not a depth/stencil format agx4 clears",
            img.vk_format
        );
        vk::Result::ERROR_FORMAT_NOT_SUPPORTED
    };
    let a = format::aspects(img.vk_format).ok_or_else(unsupported)?;
    let va = bound_va(img)?;
    let raw = |f: vk::Format| image_desc::pixel_format(f.as_raw()).ok_or_else(unsupported);
    let mut out = Vec::new();
    if let Some(z) = a
        .depth
        .filter(|_| aspects.contains(vk::ImageAspectFlags::DEPTH))
    {
        let format = if z == format::DepthFormat::Unorm16 {
            raw(vk::Format::D16_UNORM)?
        } else {
            raw(vk::Format::D32_SFLOAT)?
        };
        out.push(Plane {
            va,
            layout: &img.layout,
            format,
            words: [value.depth.to_bits(), 0, 0, 0],
        });
    }
    if a.stencil && aspects.contains(vk::ImageAspectFlags::STENCIL) {
        // A stencil-only format is its one plane; a combined one keeps stencil in a second.
        let (va, layout) = match (&img.stencil_plane, a.depth) {
            (Some((offset, l)), Some(_)) => (va + offset, l),
            (None, None) => (va, &img.layout),
            _ => return Err(unsupported()),
        };
        out.push(Plane {
            va,
            layout,
            format: raw(vk::Format::S8_UINT)?,
            words: [value.stencil & 0xff, 0, 0, 0],
        });
    }
    Ok(out)
}

/// The packed bytes of one sample of each plane of `img` that `aspects` names, cleared to
/// `value`: D16 as UNORM, D32 as float, S8 as its byte.
fn depth_stencil_texels(
    img: &Image,
    value: &vk::ClearDepthStencilValue,
    aspects: vk::ImageAspectFlags,
) -> Result<Vec<(vk::ImageAspectFlags, Vec<u8>)>, vk::Result> {
    let a = format::aspects(img.vk_format).ok_or(vk::Result::ERROR_FORMAT_NOT_SUPPORTED)?;
    let mut out = Vec::new();
    if let Some(z) = a
        .depth
        .filter(|_| aspects.contains(vk::ImageAspectFlags::DEPTH))
    {
        let texel = z.texel(value.depth).to_le_bytes();
        let bytes = match z {
            format::DepthFormat::Unorm16 => texel[..2].to_vec(),
            format::DepthFormat::Float32 => texel.to_vec(),
        };
        out.push((vk::ImageAspectFlags::DEPTH, bytes));
    }
    if a.stencil && aspects.contains(vk::ImageAspectFlags::STENCIL) {
        out.push((
            vk::ImageAspectFlags::STENCIL,
            vec![(value.stencil & 0xff) as u8],
        ));
    }
    Ok(out)
}

pub unsafe extern "system" fn cmd_clear_depth_stencil_image(
    cb: vk::CommandBuffer,
    dst: vk::Image,
    _layout: vk::ImageLayout,
    p_value: *const vk::ClearDepthStencilValue,
    count: u32,
    p_ranges: *const vk::ImageSubresourceRange,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdClearDepthStencilImage", cb, |dev, rec| {
        // SAFETY: `dst` is vkCmdClearDepthStencilImage's image parameter, which valid usage
        // requires to be a live image made by this driver.
        let img = unsafe { image(dst) }?;
        // SAFETY: valid usage: pDepthStencil is valid and pRanges holds `count` ranges.
        let (value, ranges) = unsafe { (&*p_value, handle::slice(p_ranges, count)) };
        if img.layout.samples > 1 {
            // The PBE writes one sample; a byte fill of whole elements writes them all.
            for r in ranges {
                for (aspect, bytes) in depth_stencil_texels(img, value, r.aspect_mask)? {
                    super::image_transfer::fill(dev, rec, img, aspect, r, &bytes)?;
                }
            }
            return Ok(());
        }
        for r in ranges {
            let levels = if r.level_count == vk::REMAINING_MIP_LEVELS {
                img.levels.saturating_sub(r.base_mip_level)
            } else {
                r.level_count
            };
            let layers = if r.layer_count == vk::REMAINING_ARRAY_LAYERS {
                img.layers.saturating_sub(r.base_array_layer)
            } else {
                r.layer_count
            };
            for level in r.base_mip_level..r.base_mip_level + levels {
                let (w, h) = img.layout.level_extent(level);
                let whole = vk::Rect2D {
                    offset: vk::Offset2D::default(),
                    extent: vk::Extent2D {
                        width: w,
                        height: h,
                    },
                };
                for layer in r.base_array_layer..r.base_array_layer + layers {
                    clear_depth_stencil_area(
                        dev,
                        rec,
                        img,
                        value,
                        r.aspect_mask,
                        (level, layer),
                        whole,
                    )?;
                }
            }
        }
        Ok(())
    })
}

/// Writes `value` to the `aspects` planes of single-sample `img` at (`level`, `layer`) over
/// `area` (clipped to the level).
pub fn clear_depth_stencil_area(
    dev: &Device,
    rec: &mut Recording,
    img: &Image,
    value: &vk::ClearDepthStencilValue,
    aspects: vk::ImageAspectFlags,
    (level, layer): (u32, u32),
    area: vk::Rect2D,
) -> Result<(), vk::Result> {
    const WHAT: &str = "depth/stencil clear";
    let sampler = image_desc::sampler_descriptor(&SamplerDesc::default());
    let (x, y) = (area.offset.x.max(0) as u32, area.offset.y.max(0) as u32);
    for plane in planes(img, value, aspects)? {
        let (w, h) = plane.layout.level_extent(level);
        let (width, height) = (
            area.extent.width.min(w.saturating_sub(x)),
            area.extent.height.min(h.saturating_sub(y)),
        );
        if width == 0 || height == 0 {
            continue;
        }
        let desc = ImageDesc {
            base: plane.va,
            layout: plane.layout,
            format: plane.format,
            dimension: TextureDimension::D2,
        };
        let mut uniforms = [0u32; u::COUNT as usize];
        uniforms[u::WIDTH as usize] = width;
        uniforms[u::HEIGHT as usize] = height;
        uniforms[u::DST_X0 as usize] = x;
        uniforms[u::DST_Y0 as usize] = y;
        uniforms[u::VALUE as usize..u::VALUE as usize + 4].copy_from_slice(&plane.words);
        let pbe =
            image_desc::pbe_descriptor(&desc, level, layer).map_err(|e| desc_error(WHAT, e))?;
        let textures = [image_desc::null_texture_descriptor(), pbe];
        run(
            dev,
            rec,
            &Launch {
                kind: ImageMeta::Fill,
                uniforms,
                textures,
                sampler,
                size: [width, height],
            },
        )?;
    }
    Ok(())
}

/// The depth/stencil resolve of a render pass instance (VK_KHR_depth_stencil_resolve, mode
/// SAMPLE_ZERO): sample 0 of each `aspects` plane of `src` at (`src_level`, `src_layer`)
/// copied over `area` to the same plane of `dst` at (`dst_level`, `dst_layer`).
#[allow(clippy::too_many_arguments)]
pub fn resolve_depth_stencil_sample_zero(
    dev: &Device,
    rec: &mut Recording,
    src: &Image,
    dst: &Image,
    aspects: vk::ImageAspectFlags,
    (src_level, src_layer): (u32, u32),
    (dst_level, dst_layer): (u32, u32),
    area: vk::Rect2D,
) -> Result<(), vk::Result> {
    const WHAT: &str = "depth/stencil resolve";
    let none = vk::ClearDepthStencilValue::default();
    let (sp, dp) = (planes(src, &none, aspects)?, planes(dst, &none, aspects)?);
    if sp.len() != dp.len() {
        eprintln!(
            "agx4: {WHAT}: {:?} and {:?} have different planes",
            src.vk_format, dst.vk_format
        );
        return Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
    }
    let samples = u8::try_from(src.layout.samples).map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let (x, y) = (area.offset.x.max(0) as u32, area.offset.y.max(0) as u32);
    let sampler = image_desc::sampler_descriptor(&SamplerDesc::default());
    for (s, d) in sp.iter().zip(&dp) {
        if d.layout.samples != 1 || s.format != d.format {
            eprintln!(
                "agx4: {WHAT}: the destination must be a single-sample image of the same format"
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let (w, h) = d.layout.level_extent(dst_level);
        let (width, height) = (
            area.extent.width.min(w.saturating_sub(x)),
            area.extent.height.min(h.saturating_sub(y)),
        );
        if width == 0 || height == 0 {
            continue;
        }
        let sdesc = ImageDesc {
            base: s.va,
            layout: s.layout,
            format: s.format,
            dimension: TextureDimension::D2Multisampled,
        };
        let ddesc = ImageDesc {
            base: d.va,
            layout: d.layout,
            format: d.format,
            dimension: TextureDimension::D2,
        };
        let texture = image_desc::texture_descriptor(&sdesc, src_level, 1, src_layer, 1)
            .map_err(|e| desc_error(WHAT, e))?;
        let pbe = image_desc::pbe_descriptor(&ddesc, dst_level, dst_layer)
            .map_err(|e| desc_error(WHAT, e))?;
        let mut uniforms = [0u32; u::COUNT as usize];
        uniforms[u::WIDTH as usize] = width;
        uniforms[u::HEIGHT as usize] = height;
        uniforms[u::DST_X0 as usize] = x;
        uniforms[u::DST_Y0 as usize] = y;
        uniforms[u::SRC_X0 as usize] = x;
        uniforms[u::SRC_Y0 as usize] = y;
        uniforms[u::INV_SAMPLES as usize] = f(1.0 / f32::from(samples));
        let launch = Launch {
            kind: ImageMeta::Resolve {
                samples,
                average: false,
            },
            uniforms,
            textures: [texture, pbe],
            sampler,
            size: [width, height],
        };
        run(dev, rec, &launch)?;
    }
    Ok(())
}
