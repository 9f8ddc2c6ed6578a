//! VkImage: a format, an extent and an AGX layout (Mesa ail's rules, in `hw::g13::layout`),
//! then a GPU address once bound.
//!
//! OPTIMAL tiling is the GPU-twiddled layout; LINEAR is row-major and limited, as the spec
//! allows, to 2D images with one level and one layer. A 3D image's slices are laid out like
//! array layers, each with the whole mip chain: level l uses the first depth >> l slices, so
//! the deeper levels waste the memory of the slices they no longer have.
//! Attachments may have 4 samples (2D, optimal tiling, one level; see
//! `MULTISAMPLED_ATTACHMENTS`).
//!
//! Create flags: CUBE_COMPATIBLE (square 2D images of at least six layers; a cube is six
//! consecutive layers, which is all the layout needs to know) and MUTABLE_FORMAT (views of any
//! format of the image format's compatibility class: the layout depends on the texel size
//! alone, and attachments are rendered and stored in their view's format). A
//! VkImageFormatListCreateInfo only narrows the formats views may have.
//!
//! STORAGE images (the formats of `format::storage`) are laid out as ail lays out writeable
//! images: every layer starts on a page, which PBE stores need. They are single-sampled.
//!
//! Layout transitions have nothing to do: agx4 has no compressed (metadata) layouts yet, so
//! every VkImageLayout of an image is the same bytes.

use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::format::{self, Format};
use crate::handle::{self, object, Object};
use crate::memory::{self, ALL_MEMORY_TYPES, PAGE_SIZE};
use ash::vk;
use hw::g13::layout::{Layout, Tiling, Usage};
use std::sync::atomic::{AtomicU64, Ordering};

/// Usages every format's images can have: transfers.
pub const SUPPORTED_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::TRANSFER_SRC.as_raw() | vk::ImageUsageFlags::TRANSFER_DST.as_raw(),
);

/// The usages `format` supports with `tiling`: transfers, plus colour and input attachment for
/// the formats agx4 renders to and depth/stencil attachment for its depth and stencil formats
/// (optimal tiling only), input attachment for both, and sampling for the formats the texture
/// unit reads ([`format::sampleable`]), storage for the formats the texture unit reads and
/// the PBE writes ([`format::storage`]).
pub fn supported_usage(format: vk::Format, tiling: vk::ImageTiling) -> vk::ImageUsageFlags {
    let mut u = SUPPORTED_USAGE;
    if format::sampleable(format, tiling) {
        u |= vk::ImageUsageFlags::SAMPLED;
    }
    if format::storage(format, tiling) {
        u |= vk::ImageUsageFlags::STORAGE;
    }
    if tiling == vk::ImageTiling::OPTIMAL && format::renderable(format).is_some() {
        u |= vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::INPUT_ATTACHMENT;
    }
    if tiling == vk::ImageTiling::OPTIMAL && format::depth_stencil(format).is_some() {
        u |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::INPUT_ATTACHMENT;
    }
    // A transient attachment lives in tile memory only while a render pass runs; agx4 gives
    // it memory like any attachment, which is always correct.
    let attachments = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        | vk::ImageUsageFlags::INPUT_ATTACHMENT;
    if u.intersects(attachments) {
        u |= vk::ImageUsageFlags::TRANSIENT_ATTACHMENT;
    }
    // An attachment that is also read by shaders may be both at once in a feedback loop
    // (VK_EXT_attachment_feedback_loop_layout; cmd_buffer::render::barrier).
    let rendered =
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    let read = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::INPUT_ATTACHMENT;
    if u.intersects(rendered) && u.intersects(read) {
        u |= vk::ImageUsageFlags::ATTACHMENT_FEEDBACK_LOOP_EXT;
    }
    u
}

/// The VkImageCreateFlags agx4 supports; any other bit makes a format unsupported.
/// ALIAS (VK_KHR_bind_memory2): two images made with the same parameters and bound to the
/// same memory see the same texels, since an image's layout depends on its parameters alone.
/// EXTENDED_USAGE (VK_KHR_maintenance2): see `image_usage`. 2D_ARRAY_COMPATIBLE and
/// 2D_VIEW_COMPATIBLE_EXT (VK_EXT_image_2d_view_of_3d): see `format_properties`.
pub const SUPPORTED_FLAGS: vk::ImageCreateFlags = vk::ImageCreateFlags::from_raw(
    vk::ImageCreateFlags::CUBE_COMPATIBLE.as_raw()
        | vk::ImageCreateFlags::MUTABLE_FORMAT.as_raw()
        | vk::ImageCreateFlags::ALIAS.as_raw()
        | vk::ImageCreateFlags::EXTENDED_USAGE.as_raw()
        | vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE.as_raw()
        | vk::ImageCreateFlags::TYPE_2D_VIEW_COMPATIBLE_EXT.as_raw(),
);

/// Faces of a cube.
pub const CUBE_FACES: u32 = 6;

/// Whether attachments may have 4 samples: the tilebuffer, pipelines, descriptors and ZLS
/// handle them, and end-of-tile programs resolve them into single-sample attachments.
const MULTISAMPLED_ATTACHMENTS: bool = true;

/// Largest 3D extent along each axis.
const MAX_3D: u32 = 2048;
/// Largest 1D/2D extent and array layer count.
const MAX_2D: u32 = 16384;
const MAX_LAYERS: u32 = 2048;
/// Transfers address an image with 32-bit offsets.
const MAX_RESOURCE_SIZE: u64 = 1 << 31;

pub struct Image {
    pub format: Format,
    pub vk_format: vk::Format,
    pub ty: vk::ImageType,
    pub extent: vk::Extent3D,
    pub levels: u32,
    pub layers: u32,
    pub layout: Layout,
    pub usage: vk::ImageUsageFlags,
    pub flags: vk::ImageCreateFlags,
    /// The formats views may have (VkImageFormatListCreateInfo); empty for no restriction.
    pub view_formats: Vec<vk::Format>,
    /// 1 or 4.
    pub samples: u32,
    /// The stencil plane of a combined depth/stencil format: its offset and layout.
    pub stencil_plane: Option<(u64, Layout)>,
    /// Bytes of all planes.
    pub size: u64,
    /// GPU address once bound, 0 before.
    pub va: AtomicU64,
}
object!(Image, vk::Image);

impl Image {
    pub fn is_3d(&self) -> bool {
        self.ty == vk::ImageType::TYPE_3D
    }

    pub fn bpp(&self) -> u32 {
        self.format.bytes_per_texel()
    }
}

/// The usages an image of `format` may have. With EXTENDED_USAGE (VK_KHR_maintenance2, for
/// MUTABLE_FORMAT images) that is every usage some format of its compatibility class
/// supports; the views must then pick usages their own format supports. A format list does
/// not narrow this: the CTS expects the answer with a VkImageFormatListCreateInfo to be the
/// answer without one.
fn image_usage(
    format: vk::Format,
    tiling: vk::ImageTiling,
    flags: vk::ImageCreateFlags,
) -> vk::ImageUsageFlags {
    if !flags.contains(vk::ImageCreateFlags::EXTENDED_USAGE) {
        return supported_usage(format, tiling);
    }
    format::all()
        .filter(|&f| format::view_compatible(format, f))
        .fold(vk::ImageUsageFlags::empty(), |u, f| {
            u | supported_usage(f, tiling)
        })
}

/// The image format properties agx4 supports, or `None` for an unsupported combination.
pub fn format_properties(
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
) -> Option<vk::ImageFormatProperties> {
    format::get(format)?;
    if !SUPPORTED_FLAGS.contains(flags)
        || !image_usage(format, tiling, flags).contains(usage)
        || usage.is_empty()
    {
        return None;
    }
    // EXTENDED_USAGE is defined for MUTABLE_FORMAT images only.
    if flags.contains(vk::ImageCreateFlags::EXTENDED_USAGE)
        && !flags.contains(vk::ImageCreateFlags::MUTABLE_FORMAT)
    {
        return None;
    }
    // Depth/stencil images are 2D: attachments, or transfer-only images (their transfers
    // are byte copies of one plane: depth, or the separate stencil plane).
    if format::depth_stencil(format).is_some() && ty != vk::ImageType::TYPE_2D {
        return None;
    }
    // Block-compressed images are sampled and copied 2D images (and cubes) in the twiddled
    // layout, single-sampled: ail has no linear or multisampled block layout, and 3D blocks
    // are optional in Vulkan.
    let compressed = format::get(format).is_some_and(|f| f.is_compressed());
    if compressed && (ty != vk::ImageType::TYPE_2D || tiling != vk::ImageTiling::OPTIMAL) {
        return None;
    }
    // The spec allows a transient attachment no usage other than attachment ones.
    let attachment_only = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        | vk::ImageUsageFlags::INPUT_ATTACHMENT
        | vk::ImageUsageFlags::TRANSIENT_ATTACHMENT;
    if usage.contains(vk::ImageUsageFlags::TRANSIENT_ATTACHMENT) && !attachment_only.contains(usage)
    {
        return None;
    }
    // 2D and 2D array views of depth slices (VK_KHR_maintenance1), and 2D views of one
    // slice for sampling and storage (VK_EXT_image_2d_view_of_3d): a slice of a 3D image is
    // laid out as an array layer is (hw::g13::layout), so it is rendered, sampled and stored
    // as one.
    let view_flags = vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE
        | vk::ImageCreateFlags::TYPE_2D_VIEW_COMPATIBLE_EXT;
    if flags.intersects(view_flags) && ty != vk::ImageType::TYPE_3D {
        return None;
    }
    // Cube maps are 2D and need layers, which only optimal tiling has.
    let cube = flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE);
    if cube && (ty != vk::ImageType::TYPE_2D || tiling != vk::ImageTiling::OPTIMAL) {
        return None;
    }
    let levels_for = |n: u32| 32 - n.leading_zeros();
    let (extent, levels, layers) = match (tiling, ty) {
        (vk::ImageTiling::OPTIMAL, vk::ImageType::TYPE_1D) => (
            vk::Extent3D {
                width: MAX_2D,
                height: 1,
                depth: 1,
            },
            levels_for(MAX_2D),
            MAX_LAYERS,
        ),
        (vk::ImageTiling::OPTIMAL, vk::ImageType::TYPE_2D) => (
            vk::Extent3D {
                width: MAX_2D,
                height: MAX_2D,
                depth: 1,
            },
            levels_for(MAX_2D),
            MAX_LAYERS,
        ),
        (vk::ImageTiling::OPTIMAL, vk::ImageType::TYPE_3D) => (
            vk::Extent3D {
                width: MAX_3D,
                height: MAX_3D,
                depth: MAX_3D,
            },
            levels_for(MAX_3D),
            1,
        ),
        (vk::ImageTiling::LINEAR, vk::ImageType::TYPE_2D) => (
            vk::Extent3D {
                width: MAX_2D,
                height: MAX_2D,
                depth: 1,
            },
            1,
            1,
        ),
        _ => return None,
    };
    // Input attachments read multisampled images by sample (render ABI section 4), and so
    // do sampled images (2D multisampled texture descriptors, image_view.rs).
    let attachment = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        | vk::ImageUsageFlags::INPUT_ATTACHMENT
        | vk::ImageUsageFlags::SAMPLED;
    // The spec reserves multisampling for images that are not cube compatible. A colour
    // image that is only copied, cleared and resolved (no attachment usage) has the same
    // layout as an attachment, and the transfer meta shaders handle it alike.
    let transfer = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    let transfer_only = !usage.is_empty()
        && transfer.contains(usage)
        && format::depth_stencil(format).is_none()
        && !compressed;
    // Storage images are single-sampled (storageImageSampleCounts; no
    // shaderStorageImageMultisample).
    // Formats that are never rendered to (block-compressed, shared-exponent, sRGB R8...)
    // have no multisampled form.
    let renderable = supported_usage(format, tiling).intersects(
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
    );
    let multisample = MULTISAMPLED_ATTACHMENTS
        && renderable
        && !cube
        && !usage.contains(vk::ImageUsageFlags::STORAGE)
        && tiling == vk::ImageTiling::OPTIMAL
        && ty == vk::ImageType::TYPE_2D
        && (usage.intersects(attachment) || transfer_only);
    Some(vk::ImageFormatProperties {
        max_extent: extent,
        max_mip_levels: levels,
        max_array_layers: layers,
        sample_counts: if multisample {
            vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_4
        } else {
            vk::SampleCountFlags::TYPE_1
        },
        max_resource_size: MAX_RESOURCE_SIZE,
    })
}

/// Why an image cannot be made. An unsupported combination is invalid usage (the application
/// must check vkGetPhysicalDeviceImageFormatProperties first), and vkCreateImage may only fail
/// with out-of-memory codes: it gets VK_ERROR_OUT_OF_HOST_MEMORY, the least surprising one,
/// and a message on stderr naming the actual problem.
fn unsupported(why: String) -> vk::Result {
    eprintln!("agx4: vkCreateImage: {why}; returning VK_ERROR_OUT_OF_HOST_MEMORY");
    vk::Result::ERROR_OUT_OF_HOST_MEMORY
}

pub(crate) fn create(info: &vk::ImageCreateInfo<'_>) -> Result<Image, vk::Result> {
    // SAFETY: valid usage: the pNext chain is valid.
    let list = unsafe { handle::find_in_chain::<vk::ImageFormatListCreateInfo<'_>>(info.p_next) };
    // SAFETY: valid usage: pViewFormats holds viewFormatCount formats.
    let view_formats = list
        .map(|l| unsafe { handle::slice(l.p_view_formats, l.view_format_count) }.to_vec())
        .unwrap_or_default();
    let limits = format_properties(
        info.format,
        info.image_type,
        info.tiling,
        info.usage,
        info.flags,
    )
    .ok_or_else(|| {
        unsupported(format!(
            "{:?} {:?} {:?} images with usage {:?} and flags {:?} are not supported",
            info.format, info.image_type, info.tiling, info.usage, info.flags
        ))
    })?;
    let e = info.extent;
    let too_big = e.width > limits.max_extent.width
        || e.height > limits.max_extent.height
        || e.depth > limits.max_extent.depth;
    let samples_ok = limits.sample_counts.contains(info.samples)
        && (info.samples == vk::SampleCountFlags::TYPE_1 || info.mip_levels == 1);
    if too_big
        || info.mip_levels > limits.max_mip_levels
        || info.array_layers > limits.max_array_layers
        || !samples_ok
    {
        return Err(unsupported(format!(
            "{}x{}x{}, {} levels, {} layers, {:?} exceed what {:?} images with usage {:?} support",
            e.width,
            e.height,
            e.depth,
            info.mip_levels,
            info.array_layers,
            info.samples,
            info.format,
            info.usage
        )));
    }
    // Cube faces are square and a cube needs six layers (valid usage; refused rather than
    // left to break the views made of it).
    if info.flags.contains(vk::ImageCreateFlags::CUBE_COMPATIBLE)
        && (e.width != e.height || info.array_layers < CUBE_FACES)
    {
        return Err(unsupported(format!("a cube-compatible image must be square with at least {CUBE_FACES} layers ({}x{}, {} layers)", e.width, e.height, info.array_layers)));
    }
    let samples = info.samples.as_raw();
    let format = format::get(info.format)
        .ok_or_else(|| unsupported(format!("{:?} is not supported", info.format)))?;
    let tiling = if info.tiling == vk::ImageTiling::LINEAR {
        Tiling::Linear { stride: None }
    } else {
        Tiling::Twiddled
    };
    let slices = if info.image_type == vk::ImageType::TYPE_3D {
        e.depth
    } else {
        info.array_layers
    };
    let usage = Usage {
        renderable: info.usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT),
        depth_stencil: format::depth_stencil(info.format).is_some(),
        // The PBE needs page-aligned layers to store into (ail's writeable_image).
        writeable_image: info.usage.contains(vk::ImageUsageFlags::STORAGE),
        mipmapped_z: info.image_type == vk::ImageType::TYPE_3D,
    };
    let layout = Layout::with_blocks(
        e.width,
        e.height,
        slices,
        info.mip_levels,
        format.block(),
        format.bytes_per_texel(),
        tiling,
        samples,
        usage,
    )
    .map_err(|err| unsupported(err.to_string()))?;
    // D32_SFLOAT_S8_UINT keeps stencil in a plane of its own after the depth plane, laid
    // out like an S8_UINT image, as the ZLS unit reads separate depth and stencil buffers.
    let stencil_plane = match format::aspects(info.format) {
        Some(format::Aspects {
            depth: Some(_),
            stencil: true,
        }) => {
            let l = Layout::with_usage(
                e.width,
                e.height,
                slices,
                info.mip_levels,
                1,
                tiling,
                samples,
                usage,
            )
            .map_err(|err| unsupported(err.to_string()))?;
            Some((layout.size.next_multiple_of(PAGE_SIZE), l))
        }
        _ => None,
    };
    let size = stencil_plane
        .as_ref()
        .map_or(layout.size, |(offset, l)| offset + l.size);
    if size > MAX_RESOURCE_SIZE {
        return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
    }
    Ok(Image {
        samples,
        stencil_plane,
        size,
        format,
        vk_format: info.format,
        ty: info.image_type,
        extent: e,
        levels: info.mip_levels,
        layers: info.array_layers,
        layout,
        usage: info.usage,
        flags: info.flags,
        view_formats,
        va: AtomicU64::new(0),
    })
}

pub unsafe extern "system" fn create_image(
    device: vk::Device,
    p_create_info: *const vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_image: *mut vk::Image,
) -> vk::Result {
    guard("vkCreateImage", || {
        // SAFETY: `device` is vkCreateImage's device parameter, which valid usage requires to be a
        // live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfo points to a valid structure.
        let image = create(unsafe { &*p_create_info })?;
        // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
        let handle =
            unsafe { image.into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT) }?;
        // SAFETY: valid usage: pImage is writable.
        unsafe { *p_image = handle };
        Ok(())
    })
}

pub unsafe extern "system" fn destroy_image(
    _device: vk::Device,
    image: vk::Image,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyImage", (), || {
        // SAFETY: Vulkan valid usage: `image` is VK_NULL_HANDLE or a live image made by this
        // driver (not a swapchain's), and this destroy command is its last use.
        drop(unsafe { Image::take(image) })
    })
}

/// What an image needs. Page alignment keeps every GPU-tiled layout's page-aligned layers
/// page aligned.
fn requirements(img: &Image) -> vk::MemoryRequirements {
    vk::MemoryRequirements {
        size: img.size.next_multiple_of(PAGE_SIZE),
        alignment: PAGE_SIZE,
        memory_type_bits: ALL_MEMORY_TYPES,
    }
}

pub unsafe extern "system" fn get_image_memory_requirements(
    _device: vk::Device,
    image: vk::Image,
    p_requirements: *mut vk::MemoryRequirements,
) {
    guard_or("vkGetImageMemoryRequirements", (), || {
        // SAFETY: Vulkan valid usage: `image` is a live image made by this driver.
        let Some(img) = (unsafe { Image::from_handle(image) }) else {
            return;
        };
        // SAFETY: valid usage: pMemoryRequirements is writable.
        unsafe { *p_requirements = requirements(img) };
    })
}

pub unsafe extern "system" fn get_image_memory_requirements2(
    _device: vk::Device,
    p_info: *const vk::ImageMemoryRequirementsInfo2<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard_or("vkGetImageMemoryRequirements2", (), || {
        // SAFETY: valid usage: pInfo is valid, and its `image` a live image made by this driver.
        let Some(img) = (unsafe { Image::from_handle((*p_info).image) }) else {
            return;
        };
        // SAFETY: valid usage: pMemoryRequirements is writable, with a valid pNext chain.
        unsafe { crate::memory::write_requirements2(p_requirements, requirements(img)) };
    })
}

/// VkDeviceImageMemoryRequirements (maintenance4): the image is laid out as vkCreateImage
/// would lay it out, and dropped.
pub unsafe extern "system" fn get_device_image_memory_requirements(
    _device: vk::Device,
    p_info: *const vk::DeviceImageMemoryRequirements<'_>,
    p_requirements: *mut vk::MemoryRequirements2<'_>,
) {
    guard_or("vkGetDeviceImageMemoryRequirements", (), || {
        // SAFETY: valid usage: pInfo and its pCreateInfo are valid.
        let Ok(img) = create(unsafe { &*(*p_info).p_create_info }) else {
            // Valid usage only asks about images vkCreateImage would accept.
            return;
        };
        // SAFETY: valid usage: pMemoryRequirements is writable, with a valid pNext chain.
        unsafe { crate::memory::write_requirements2(p_requirements, requirements(&img)) };
    })
}

/// No sparse images: no sparse requirements.
pub unsafe extern "system" fn get_image_sparse_memory_requirements2(
    _device: vk::Device,
    _p_info: *const vk::ImageSparseMemoryRequirementsInfo2<'_>,
    p_count: *mut u32,
    _p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    // SAFETY: valid usage: pSparseMemoryRequirementCount is writable.
    guard_or("vkGetImageSparseMemoryRequirements2", (), || unsafe {
        *p_count = 0
    })
}

/// No sparse images: no sparse requirements.
pub unsafe extern "system" fn get_device_image_sparse_memory_requirements(
    _device: vk::Device,
    _p_info: *const vk::DeviceImageMemoryRequirements<'_>,
    p_count: *mut u32,
    _p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
) {
    // SAFETY: valid usage: pSparseMemoryRequirementCount is writable.
    guard_or("vkGetDeviceImageSparseMemoryRequirements", (), || unsafe {
        *p_count = 0
    })
}

/// Binds `memory` at `offset` to `image`.
///
/// # Safety
/// `image` must be `VK_NULL_HANDLE` or a live image made by this driver, and `memory`
/// `VK_NULL_HANDLE` or a live memory object made by this driver; neither may be destroyed
/// during the call. The image and memory of vkBindImageMemory, or of a vkBindImageMemory2 bind
/// info, are such handles (Vulkan valid usage).
unsafe fn bind(
    image: vk::Image,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> Result<(), vk::Result> {
    // SAFETY: guaranteed by the caller: `image` is null or a live image made by this driver that
    // outlives the call.
    let img = unsafe { Image::from_handle(image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: guaranteed by the caller: `memory` is null or a live memory object made by this
    // driver that outlives the call.
    let mem = unsafe { memory::get(memory) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    if !offset.is_multiple_of(PAGE_SIZE)
        || offset
            .checked_add(img.size)
            .is_none_or(|end| end > mem.size)
    {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    img.va.store(mem.va + offset, Ordering::Release);
    Ok(())
}

pub unsafe extern "system" fn bind_image_memory(
    device: vk::Device,
    image: vk::Image,
    memory: vk::DeviceMemory,
    offset: vk::DeviceSize,
) -> vk::Result {
    guard("vkBindImageMemory", || {
        // SAFETY: `device` is vkBindImageMemory's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: `image` and `memory` are vkBindImageMemory's image and memory parameters, which
        // valid usage requires to be a live image and a live memory object made by this driver.
        unsafe { bind(image, memory, offset) }
    })
}

/// vkBindImageMemory2 (VK_KHR_bind_memory2). A device group's device indices can only name
/// the one device of agx4's groups, which has no split-instance regions.
pub unsafe extern "system" fn bind_image_memory2(
    device: vk::Device,
    count: u32,
    p_infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    guard("vkBindImageMemory2", || {
        // SAFETY: `device` is vkBindImageMemory2's device parameter, which valid usage requires to
        // be a live device made by this driver.
        unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pBindInfos holds `count` structures with valid pNext chains.
        for info in unsafe { handle::slice(p_infos, count) } {
            // SAFETY: as above.
            if let Some(g) = unsafe {
                handle::find_in_chain::<vk::BindImageMemoryDeviceGroupInfo<'_>>(info.p_next)
            } {
                // SAFETY: valid usage: the arrays hold their counts.
                let indices = unsafe { handle::slice(g.p_device_indices, g.device_index_count) };
                if indices.iter().any(|&d| d != 0) || g.split_instance_bind_region_count != 0 {
                    return Err(vk::Result::ERROR_UNKNOWN);
                }
            }
            // SAFETY: `info.image` and `info.memory` are those of a vkBindImageMemory2 bind info,
            // which valid usage requires to be a live image and a live memory object made by
            // this driver.
            unsafe { bind(info.image, info.memory, info.memory_offset) }?;
        }
        Ok(())
    })
}

pub unsafe extern "system" fn get_image_subresource_layout(
    _device: vk::Device,
    image: vk::Image,
    p_subresource: *const vk::ImageSubresource,
    p_layout: *mut vk::SubresourceLayout,
) {
    guard_or("vkGetImageSubresourceLayout", (), || {
        // SAFETY: Vulkan valid usage: `image` is a live image made by this driver.
        let Some(img) = (unsafe { Image::from_handle(image) }) else {
            return;
        };
        // SAFETY: valid usage: pSubresource is valid, pLayout writable.
        let sub = unsafe { &*p_subresource };
        let l = &img.layout;
        let offset = u64::from(sub.array_layer) * l.layer_stride
            + l.level_offset(sub.mip_level).unwrap_or(0);
        let out = vk::SubresourceLayout {
            offset,
            size: l.layer_stride,
            row_pitch: u64::from(l.linear_stride),
            array_pitch: l.layer_stride,
            depth_pitch: l.layer_stride,
        };
        // Only LINEAR images have a defined layout here (valid usage); the rest is reported
        // as the ail layout's bytes with no row pitch.
        // SAFETY: see above.
        unsafe { *p_layout = out };
    })
}

pub unsafe extern "system" fn get_image_sparse_memory_requirements(
    _device: vk::Device,
    _image: vk::Image,
    p_count: *mut u32,
    _p_requirements: *mut vk::SparseImageMemoryRequirements,
) {
    guard_or("vkGetImageSparseMemoryRequirements", (), || {
        // SAFETY: valid usage: the count is writable. No sparse images: nothing to report.
        unsafe { *p_count = 0 };
    })
}
