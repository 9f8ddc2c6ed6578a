//! vkCmdCopyBufferToImage, vkCmdCopyImageToBuffer, vkCmdCopyImage and vkCmdClearColorImage:
//! one launch of the image-copy meta shader per region (and per level for clears).
//!
//! The shader moves elements, not texels: a multisampled image's element holds all samples
//! of a pixel (`hw::g13::layout`), so copies between multisampled images and clears of them
//! are the same launches with `bytes per texel x samples` elements.
//!
//! Each launch runs one invocation per texel of its box. Texels smaller than a word are merged
//! into their word with atomics, so neighbouring texels written by other invocations (or by
//! another region of the same command) survive; every launch still waits for the previous one,
//! so regions are applied in order.

use super::dispatch::meta_launch_grid;
use super::LiveCommandBuffer;
use super::{record, Recording};
use crate::buffer::Buffer;
use crate::device::Device;
use crate::handle::{self, Object};
use crate::image::Image;
use ash::vk;
use compiler::meta::{image as pc, Meta};
use hw::g13::layout::Tiling;
use std::sync::atomic::Ordering;

/// Where texels are: a memory range (the shader's binding) and the address rule inside it.
struct Surface {
    va: u64,
    size: u64,
    base: u32,
    row: u32,
    slice: u32,
    /// Source step along x (0 repeats one texel).
    xpitch: u32,
    /// Twiddled: log2 of the tile width and height, tiles per row.
    tiles: Option<(u32, u32, u32)>,
    origin: [u32; 3],
}

impl Surface {
    /// Byte offset, in the binding, of byte 0 of texel (x, y, z) (absolute coordinates).
    fn offset(&self, x: u32, y: u32, z: u32, bpp: u32) -> u64 {
        let (x, y, z) = (u64::from(x), u64::from(y), u64::from(z));
        let base = u64::from(self.base) + z * u64::from(self.slice);
        match self.tiles {
            None => base + y * u64::from(self.row) + x * u64::from(bpp),
            Some((tw, th, per_row)) => {
                let tile = (y >> th) * u64::from(per_row) + (x >> tw);
                let spread =
                    |v: u64| (0..16).fold(0u64, |acc, i| acc | (((v >> i) & 1) << (2 * i)));
                let inner = spread(x & ((1 << tw) - 1)) | (spread(y & ((1 << th) - 1)) << 1);
                base + ((tile << (tw + th)) + inner) * u64::from(bpp)
            }
        }
    }
}

fn u32_of(v: u64) -> Result<u32, vk::Result> {
    u32::try_from(v).map_err(|_| {
        eprintln!(
            "agx4: image transfer offset {v:#x} does not fit the meta shader's 32-bit offsets"
        );
        vk::Result::ERROR_FEATURE_NOT_PRESENT
    })
}

fn bound_va(va: &std::sync::atomic::AtomicU64) -> Result<u64, vk::Result> {
    match va.load(Ordering::Acquire) {
        0 => Err(vk::Result::ERROR_UNKNOWN),
        v => Ok(v),
    }
}

/// The plane of `img` an aspect names: its layout, byte offset and element size (texel size
/// times samples). Only D32_SFLOAT_S8_UINT has a second (stencil) plane.
fn plane(img: &Image, aspect: vk::ImageAspectFlags) -> (&hw::g13::layout::Layout, u64, u32) {
    match &img.stencil_plane {
        Some((offset, l)) if aspect == vk::ImageAspectFlags::STENCIL => (l, *offset, l.samples),
        _ => (&img.layout, 0, img.bpp() * img.layout.samples),
    }
}

/// The surface of `level` of the `aspect` plane of `img` with the box's corner at (x, y,
/// first layer or slice).
fn image_surface(
    img: &Image,
    aspect: vk::ImageAspectFlags,
    level: u32,
    offset: vk::Offset3D,
    base_layer: u32,
) -> Result<Surface, vk::Result> {
    let (l, plane_offset, bpp) = plane(img, aspect);
    let level_offset = l.level_offset(level).ok_or(vk::Result::ERROR_UNKNOWN)?;
    let tiles = match l.tiling {
        Tiling::Linear { .. } => None,
        Tiling::Twiddled => {
            let t = l
                .tiles
                .get(level as usize)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            let per_row = l.stride_el[level as usize].div_ceil(t.width);
            Some((t.width.trailing_zeros(), t.height.trailing_zeros(), per_row))
        }
    };
    let z = if img.is_3d() {
        offset.z as u32
    } else {
        base_layer
    };
    // Block-compressed images are addressed in blocks (offsets are whole blocks: valid usage).
    let (bw, bh) = img.format.block();
    Ok(Surface {
        va: bound_va(&img.va)? + plane_offset,
        size: l.size,
        base: u32_of(level_offset)?,
        row: l.linear_stride,
        slice: u32_of(l.layer_stride)?,
        xpitch: bpp,
        tiles,
        origin: [offset.x as u32 / bw, offset.y as u32 / bh, z],
    })
}

/// The buffer side of a copy with `img`; a compressed image's rows and row lengths are
/// counted in texels by the API and in blocks here.
fn buffer_surface(
    buf: &Buffer,
    img: &Image,
    r: &vk::BufferImageCopy,
    bpp: u32,
) -> Result<Surface, vk::Result> {
    let (bw, bh) = img.format.block();
    let row_texels = if r.buffer_row_length == 0 {
        r.image_extent.width
    } else {
        r.buffer_row_length
    };
    let rows = if r.buffer_image_height == 0 {
        r.image_extent.height
    } else {
        r.buffer_image_height
    };
    let (row_blocks, rows) = (row_texels.div_ceil(bw), rows.div_ceil(bh));
    let row = u64::from(row_blocks) * u64::from(bpp);
    Ok(Surface {
        va: bound_va(&buf.va)?,
        size: buf.size,
        base: u32_of(r.buffer_offset)?,
        row: u32_of(row)?,
        slice: u32_of(row * u64::from(rows))?,
        xpitch: bpp,
        tiles: None,
        origin: [0; 3],
    })
}

fn put(p: &mut [u8], at: u32, v: u32) {
    p[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
}

/// Copies the box `extent` (x, y, slices) from `src` to `dst`, `bpp` bytes per texel.
fn copy_box(
    dev: &Device,
    rec: &mut Recording,
    src: &Surface,
    dst: &Surface,
    extent: [u32; 3],
    bpp: u32,
) -> Result<(), vk::Result> {
    if extent.contains(&0) {
        return Ok(());
    }
    // Up to 16-byte texels of 4 samples.
    if !bpp.is_power_of_two() || bpp > 64 {
        return Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
    }
    // Every offset the shader computes stays below the end of the box in both surfaces.
    let [x1, y1, z1] = [0, 1, 2].map(|i| extent[i] - 1);
    for s in [src, dst] {
        let [x0, y0, z0] = s.origin;
        u32_of(s.offset(x0 + x1, y0 + y1, z0 + z1, bpp) + u64::from(bpp))?;
    }
    let mut p = [0u8; pc::SIZE as usize];
    put(&mut p, pc::WIDTH, extent[0]);
    for (group, s) in [(pc::DST, dst), (pc::SRC, src)] {
        let (tw, th, tpr) = s.tiles.unwrap_or((0, 0, 1));
        for (at, v) in [
            (pc::BASE, s.base),
            (pc::ROW, s.row),
            (pc::SLICE, s.slice),
            (pc::XPITCH, s.xpitch),
            (pc::TILE_W, tw),
            (pc::TILE_H, th),
            (pc::TILES_PER_ROW, tpr),
            (pc::X0, s.origin[0]),
            (pc::Y0, s.origin[1]),
            (pc::Z0, s.origin[2]),
        ] {
            put(&mut p, group + at, v);
        }
    }
    let kind = Meta::ImageCopy {
        src_twiddled: src.tiles.is_some(),
        dst_twiddled: dst.tiles.is_some(),
        log2_bpp: bpp.trailing_zeros() as u8,
    };
    let size = |s: &Surface| s.size.next_multiple_of(4).min(u64::from(u32::MAX) & !3);
    rec.barrier_pending = true;
    meta_launch_grid(
        dev,
        rec,
        kind,
        &p,
        extent,
        &[(src.va, size(src)), (dst.va, size(dst))],
    )?;
    rec.barrier_pending = true;
    Ok(())
}

/// The image a transfer command names; `VK_ERROR_UNKNOWN` for `VK_NULL_HANDLE`.
///
/// # Safety
/// `i` must be `VK_NULL_HANDLE` or a live image made by this driver, and the image must not be
/// destroyed while the returned reference is in use. The `srcImage` or `dstImage` of an image
/// copy command or of vkCmdClearColorImage is such a handle (Vulkan valid usage).
unsafe fn image<'a>(i: vk::Image) -> Result<&'a Image, vk::Result> {
    // SAFETY: guaranteed by the caller: `i` is null or a live image made by this driver that
    // outlives the returned reference.
    unsafe { Image::from_handle(i) }.ok_or(vk::Result::ERROR_UNKNOWN)
}

/// An image a buffer copy reads or writes: single-sampled (Vulkan's valid usage).
///
/// # Safety
/// As for [`image`]: `i` must be `VK_NULL_HANDLE` or a live image made by this driver that
/// outlives the returned reference, as the image of vkCmdCopyBufferToImage or
/// vkCmdCopyImageToBuffer is (Vulkan valid usage).
unsafe fn single_sampled<'a>(i: vk::Image) -> Result<&'a Image, vk::Result> {
    // SAFETY: guaranteed by the caller: `i` is null or a live image made by this driver that
    // outlives the returned reference.
    let img = unsafe { image(i) }?;
    if img.samples > 1 {
        eprintln!("agx4: buffer copies of multisampled images are invalid");
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    Ok(img)
}

/// The buffer a buffer-image copy names; `VK_ERROR_UNKNOWN` for `VK_NULL_HANDLE`.
///
/// # Safety
/// `b` must be `VK_NULL_HANDLE` or a live buffer made by this driver, and the buffer must not
/// be destroyed while the returned reference is in use. The `srcBuffer` or `dstBuffer` of
/// vkCmdCopyBufferToImage or vkCmdCopyImageToBuffer is such a handle (Vulkan valid usage).
unsafe fn buffer<'a>(b: vk::Buffer) -> Result<&'a Buffer, vk::Result> {
    // SAFETY: guaranteed by the caller: `b` is null or a live buffer made by this driver that
    // outlives the returned reference.
    unsafe { Buffer::from_handle(b) }.ok_or(vk::Result::ERROR_UNKNOWN)
}

/// The box of a copy in elements of `img`: width and height (in blocks for a compressed
/// image, whose extents may end at the image's edge inside a block), and slices (3D depth or
/// layer count).
fn box_extent(img: &Image, extent: vk::Extent3D, layers: &vk::ImageSubresourceLayers) -> [u32; 3] {
    let d = if img.is_3d() {
        extent.depth
    } else {
        layers.layer_count
    };
    let (bw, bh) = img.format.block();
    [extent.width.div_ceil(bw), extent.height.div_ceil(bh), d]
}

pub unsafe extern "system" fn cmd_copy_buffer_to_image(
    cb: vk::CommandBuffer,
    src: vk::Buffer,
    dst: vk::Image,
    _layout: vk::ImageLayout,
    count: u32,
    p_regions: *const vk::BufferImageCopy,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdCopyBufferToImage", cb, |dev, rec| {
        let (buf, img) = (
            // SAFETY: `src` is vkCmdCopyBufferToImage's srcBuffer parameter, which valid usage
            // requires to be a live buffer made by this driver.
            unsafe { buffer(src) }?,
            // SAFETY: `dst` is vkCmdCopyBufferToImage's dstImage parameter, which valid usage
            // requires to be a live image made by this driver.
            unsafe { single_sampled(dst) }?,
        );
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            let bpp = plane(img, r.image_subresource.aspect_mask).2;
            let s = buffer_surface(buf, img, r, bpp)?;
            let d = image_surface(
                img,
                r.image_subresource.aspect_mask,
                r.image_subresource.mip_level,
                r.image_offset,
                r.image_subresource.base_array_layer,
            )?;
            copy_box(
                dev,
                rec,
                &s,
                &d,
                box_extent(img, r.image_extent, &r.image_subresource),
                bpp,
            )?;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_copy_image_to_buffer(
    cb: vk::CommandBuffer,
    src: vk::Image,
    _layout: vk::ImageLayout,
    dst: vk::Buffer,
    count: u32,
    p_regions: *const vk::BufferImageCopy,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdCopyImageToBuffer", cb, |dev, rec| {
        let (img, buf) = (
            // SAFETY: `src` is vkCmdCopyImageToBuffer's srcImage parameter, which valid usage
            // requires to be a live image made by this driver.
            unsafe { single_sampled(src) }?,
            // SAFETY: `dst` is vkCmdCopyImageToBuffer's dstBuffer parameter, which valid usage
            // requires to be a live buffer made by this driver.
            unsafe { buffer(dst) }?,
        );
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            let bpp = plane(img, r.image_subresource.aspect_mask).2;
            let s = image_surface(
                img,
                r.image_subresource.aspect_mask,
                r.image_subresource.mip_level,
                r.image_offset,
                r.image_subresource.base_array_layer,
            )?;
            let d = buffer_surface(buf, img, r, bpp)?;
            copy_box(
                dev,
                rec,
                &s,
                &d,
                box_extent(img, r.image_extent, &r.image_subresource),
                bpp,
            )?;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn cmd_copy_image(
    cb: vk::CommandBuffer,
    src: vk::Image,
    _src_layout: vk::ImageLayout,
    dst: vk::Image,
    _dst_layout: vk::ImageLayout,
    count: u32,
    p_regions: *const vk::ImageCopy,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdCopyImage", cb, |dev, rec| {
        let (si, di) = (
            // SAFETY: `src` is vkCmdCopyImage's srcImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(src) }?,
            // SAFETY: `dst` is vkCmdCopyImage's dstImage parameter, which valid usage requires
            // to be a live image made by this driver.
            unsafe { image(dst) }?,
        );
        if si.samples != di.samples {
            eprintln!(
                "agx4: vkCmdCopyImage between images of {} and {} samples",
                si.samples, di.samples
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: valid usage: pRegions holds `count` regions.
        for r in unsafe { handle::slice(p_regions, count) } {
            let bpp = plane(di, r.dst_subresource.aspect_mask).2;
            if plane(si, r.src_subresource.aspect_mask).2 != bpp {
                return Err(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
            }
            let s = image_surface(
                si,
                r.src_subresource.aspect_mask,
                r.src_subresource.mip_level,
                r.src_offset,
                r.src_subresource.base_array_layer,
            )?;
            let d = image_surface(
                di,
                r.dst_subresource.aspect_mask,
                r.dst_subresource.mip_level,
                r.dst_offset,
                r.dst_subresource.base_array_layer,
            )?;
            copy_box(
                dev,
                rec,
                &s,
                &d,
                // The extent is in the source's texels (a source block is one destination
                // texel when only one side is compressed); the layer count is the
                // destination's when one side is 3D.
                copy_image_box(si, di, r),
                bpp,
            )?;
        }
        Ok(())
    })
}

/// The box of a vkCmdCopyImage region in elements.
fn copy_image_box(si: &Image, di: &Image, r: &vk::ImageCopy) -> [u32; 3] {
    let [w, h, _] = box_extent(si, r.extent, &r.src_subresource);
    let [_, _, d] = box_extent(di, r.extent, &r.dst_subresource);
    [w, h, d]
}

pub unsafe extern "system" fn cmd_clear_color_image(
    cb: vk::CommandBuffer,
    dst: vk::Image,
    _layout: vk::ImageLayout,
    p_color: *const vk::ClearColorValue,
    count: u32,
    p_ranges: *const vk::ImageSubresourceRange,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdClearColorImage", cb, |dev, rec| {
        // SAFETY: `dst` is vkCmdClearColorImage's image parameter, which valid usage requires to
        // be a live image made by this driver.
        let img = unsafe { image(dst) }?;
        // SAFETY: valid usage: pColor is valid and pRanges holds `count` ranges.
        let (color, ranges) = unsafe { (&*p_color, handle::slice(p_ranges, count)) };
        let texel = crate::format::pack_clear(&img.format, color).ok_or_else(|| {
            eprintln!(
                "agx4: vkCmdClearColorImage: clearing {:?} is not implemented",
                img.vk_format
            );
            vk::Result::ERROR_FORMAT_NOT_SUPPORTED
        })?;
        for r in ranges {
            fill(dev, rec, img, vk::ImageAspectFlags::COLOR, r, &texel)?;
        }
        Ok(())
    })
}

/// Writes `texel` (the packed bytes of one sample) to every sample of the `aspect` plane of
/// `img` in `range`.
pub fn fill(
    dev: &Device,
    rec: &mut Recording,
    img: &Image,
    aspect: vk::ImageAspectFlags,
    range: &vk::ImageSubresourceRange,
    texel: &[u8],
) -> Result<(), vk::Result> {
    let element = plane(img, aspect).2 as usize;
    // The shader reads source words: at least 16 bytes keep its reads inside the upload.
    let mut staged: Vec<u8> = texel.iter().copied().cycle().take(element).collect();
    staged.resize(staged.len().max(16), 0);
    let texel_va = rec.upload.push(dev, &staged, 16)?;
    let r = range;
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
        let d = image_surface(
            img,
            aspect,
            level,
            vk::Offset3D::default(),
            r.base_array_layer,
        )?;
        let slices = if img.is_3d() {
            (img.extent.depth >> level).max(1)
        } else {
            layers
        };
        let s = Surface {
            va: texel_va,
            size: staged.len() as u64,
            base: 0,
            row: 0,
            slice: 0,
            xpitch: 0,
            tiles: None,
            origin: [0; 3],
        };
        copy_box(dev, rec, &s, &d, [w, h, slices], element as u32)?;
    }
    Ok(())
}
