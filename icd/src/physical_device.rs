//! VkPhysicalDevice: the GPU's identity, limits, features, queue families, memory types and
//! format support, all derived from what GET_PARAMS reports.

use crate::advertised::{API_MINOR, DEVICE_EXTENSIONS};
use crate::entry::{guard_or, HEADER_VERSION};
use crate::features;
use crate::handle::{self, object, LoaderData, Object};
use crate::memory::MEMORY_TYPES;
use crate::properties;
use ash::vk;
use kmd_iface::uapi::{drm_asahi_get_params, drm_asahi_params_global};
use kmd_iface::{Backend, Kmd};
use std::sync::Arc;

/// Apple's PCI vendor ID.
const VENDOR_APPLE: u32 = 0x106b;

#[repr(C)]
pub struct PhysicalDevice {
    _loader: LoaderData,
    pub kmd: Arc<dyn Kmd>,
    pub params: drm_asahi_params_global,
    pub identity: &'static hw::Identity,
    pub properties: vk::PhysicalDeviceProperties,
    pub heap_size: u64,
}
object!(PhysicalDevice, vk::PhysicalDevice);

/// Whether agx4 can run shaders on `generation`: it has the generation's machine code and
/// command streams.
pub fn runs_shaders(generation: hw::Generation) -> bool {
    generation.codec().is_some() && crate::emit::for_generation(generation).is_some()
}

impl PhysicalDevice {
    /// The features agx4 supports on this device.
    pub fn features(&self) -> features::Features {
        features::supported_on(self.kmd.backend(), self.identity.generation)
    }

    /// The device extensions this device advertises: none where no shader runs, since every
    /// one of them either needs shaders or is pointless without them.
    pub fn extensions(&self) -> &'static [&'static str] {
        match runs_shaders(self.identity.generation) {
            true => DEVICE_EXTENSIONS,
            false => &[],
        }
    }

    pub fn new(kmd: Arc<dyn Kmd>) -> Result<Self, String> {
        let mut params = drm_asahi_params_global::default();
        let mut args = drm_asahi_get_params {
            param_group: 0,
            pad: 0,
            pointer: &mut params as *mut _ as u64,
            size: std::mem::size_of_val(&params) as u64,
        };
        // SAFETY: `pointer` is the address of `params`, writable for `size` bytes.
        unsafe { kmd.get_params(&mut args) }
            .map_err(|e| format!("GET_PARAMS failed: errno {e}"))?;
        let identity = hw::Identity::by_chip_id(params.chip_id)
            .ok_or_else(|| format!("unknown chip T{:04x}", params.chip_id))?;
        let name = match kmd.backend() {
            Backend::Sim => format!("{} ({}, simulated by agx4)", identity.name, identity.code()),
            Backend::Drm => format!("{} ({})", identity.name, identity.code()),
        };
        let mut properties = properties(&params, &name);
        properties.api_version = vk::make_api_version(
            0,
            1,
            features::api_minor_met(&features::supported_on(kmd.backend(), identity.generation)),
            HEADER_VERSION,
        );
        Ok(PhysicalDevice {
            _loader: LoaderData::new(),
            kmd,
            params,
            identity,
            properties,
            heap_size: heap_size(),
        })
    }

    pub fn memory_properties(&self) -> vk::PhysicalDeviceMemoryProperties {
        let mut p = vk::PhysicalDeviceMemoryProperties {
            memory_heap_count: 1,
            memory_type_count: MEMORY_TYPES.len() as u32,
            ..Default::default()
        };
        p.memory_heaps[0] = vk::MemoryHeap {
            size: self.heap_size,
            flags: vk::MemoryHeapFlags::DEVICE_LOCAL,
        };
        for (i, t) in MEMORY_TYPES.iter().enumerate() {
            p.memory_types[i] = vk::MemoryType {
                property_flags: t.flags,
                heap_index: 0,
            };
        }
        p
    }
}

/// The memory heap: unified memory, so a share of system RAM (half, rounded to MiB).
fn heap_size() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let total_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(4 << 20);
    (total_kib * 1024 / 2) & !((1 << 20) - 1)
}

fn pipeline_cache_uuid(params: &drm_asahi_params_global) -> [u8; 16] {
    // FNV-1a over what makes compiled code incompatible: driver version, the cache's entry
    // format (4: with uniform preambles) and GPU identity.
    let key = format!(
        "agx4 {} cache 4 {:x} {} {}",
        env!("CARGO_PKG_VERSION"),
        params.chip_id,
        params.gpu_generation,
        params.gpu_variant
    );
    let hash = |seed: u64| {
        key.bytes()
            .fold(seed, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    };
    let mut uuid = [0u8; 16];
    uuid[..8].copy_from_slice(&hash(0xcbf2_9ce4_8422_2325).to_le_bytes());
    uuid[8..].copy_from_slice(&hash(0x8422_2325_cbf2_9ce4).to_le_bytes());
    uuid
}

fn properties(params: &drm_asahi_params_global, name: &str) -> vk::PhysicalDeviceProperties {
    let version = |s: &str| s.parse::<u32>().unwrap_or(0);
    let driver_version = vk::make_api_version(
        0,
        version(env!("CARGO_PKG_VERSION_MAJOR")),
        version(env!("CARGO_PKG_VERSION_MINOR")),
        version(env!("CARGO_PKG_VERSION_PATCH")),
    );
    let mut p = vk::PhysicalDeviceProperties {
        api_version: vk::make_api_version(0, 1, API_MINOR, HEADER_VERSION),
        driver_version,
        vendor_id: VENDOR_APPLE,
        device_id: params.chip_id,
        device_type: vk::PhysicalDeviceType::INTEGRATED_GPU,
        pipeline_cache_uuid: pipeline_cache_uuid(params),
        limits: limits(params.command_timestamp_frequency_hz),
        sparse_properties: vk::PhysicalDeviceSparseProperties::default(),
        ..Default::default()
    };
    handle::write_name(&mut p.device_name, name);
    p
}

/// Limits. Capacities follow the AGX hardware where the later work will rely on them
/// (image and framebuffer sizes, workgroup sizes, threadgroup memory); limits that belong to
/// features agx4 does not advertise stay at the values the spec requires for that case.
fn limits(timestamp_hz: u64) -> vk::PhysicalDeviceLimits {
    // Nanoseconds per tick, from the kernel's frequency (an unknown 0 Hz reads as 1 ns).
    let timestamp_period = if timestamp_hz == 0 {
        1.0
    } else {
        (1e9 / timestamp_hz as f64) as f32
    };
    let counts = vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_4;
    vk::PhysicalDeviceLimits {
        max_image_dimension1_d: 16384,
        max_image_dimension2_d: 16384,
        max_image_dimension3_d: 2048,
        max_image_dimension_cube: 16384,
        max_image_array_layers: 2048,
        max_texel_buffer_elements: hw::g13::image_desc::buffer::MAX_TEXEL_BUFFER_ELEMENTS,
        max_uniform_buffer_range: 65536,
        max_storage_buffer_range: 1 << 30,
        max_push_constants_size: 128,
        max_memory_allocation_count: 4096,
        max_sampler_allocation_count: 4000,
        buffer_image_granularity: 0x4000,
        sparse_address_space_size: 0,
        max_bound_descriptor_sets: 4,
        // Shaders read descriptors from set memory (samplers: references into the sampler
        // heap), so these are software limits, checked up to 128 per stage by the CTS's
        // descriptor_limits. OpenGL on Zink needs at least 13 uniform buffers per stage (12
        // blocks and the default uniform block).
        max_per_stage_descriptor_samplers: 128,
        max_per_stage_descriptor_uniform_buffers: 128,
        max_per_stage_descriptor_storage_buffers: 128,
        max_per_stage_descriptor_sampled_images: 128,
        max_per_stage_descriptor_storage_images: 128,
        max_per_stage_descriptor_input_attachments: 4,
        max_per_stage_resources: 1024,
        max_descriptor_set_samplers: 1024,
        max_descriptor_set_uniform_buffers: 1024,
        max_descriptor_set_uniform_buffers_dynamic: 8,
        max_descriptor_set_storage_buffers: 1024,
        max_descriptor_set_storage_buffers_dynamic: 4,
        max_descriptor_set_sampled_images: 1024,
        max_descriptor_set_storage_images: 1024,
        max_descriptor_set_input_attachments: 4,
        max_vertex_input_attributes: 16,
        max_vertex_input_bindings: 16,
        max_vertex_input_attribute_offset: 2047,
        max_vertex_input_binding_stride: 2048,
        max_vertex_output_components: 64,
        max_fragment_input_components: 64,
        // Geometry shaders (docs/geometry.md): the spec's minimums, which the compiler's
        // limits (ir::MAX_GEOMETRY_OUTPUT_VERTICES, ir::MAX_GEOMETRY_INVOCATIONS) match.
        max_geometry_shader_invocations: 32,
        max_geometry_input_components: 64,
        max_geometry_output_components: 64,
        max_geometry_output_vertices: 256,
        max_geometry_total_output_components: 1024,
        max_fragment_output_attachments: 8,
        // Location 0 Index 1 is the second source of target 0 only (compiler isel/blend.rs).
        max_fragment_dual_src_attachments: 1,
        max_fragment_combined_output_resources: 16,
        max_compute_shared_memory_size: 32768,
        max_compute_work_group_count: [65535, 65535, 65535],
        max_compute_work_group_invocations: 1024,
        max_compute_work_group_size: [1024, 1024, 64],
        sub_pixel_precision_bits: 8,
        sub_texel_precision_bits: 8,
        mipmap_precision_bits: 8,
        max_draw_indexed_index_value: u32::MAX,
        max_draw_indirect_count: 1 << 30,
        max_sampler_lod_bias: 15.0,
        // The sampler's anisotropy field is log2 of 1..16 (sampler.rs rounds to it).
        max_sampler_anisotropy: 16.0,
        max_viewports: 1,
        max_viewport_dimensions: [16384, 16384],
        viewport_bounds_range: [-32768.0, 32767.0],
        viewport_sub_pixel_bits: 8,
        min_memory_map_alignment: 16384,
        min_texel_buffer_offset_alignment: crate::buffer_view::OFFSET_ALIGNMENT,
        min_uniform_buffer_offset_alignment: 16,
        min_storage_buffer_offset_alignment: 16,
        min_texel_offset: -8,
        max_texel_offset: 7,
        min_texel_gather_offset: -8,
        max_texel_gather_offset: 7,
        min_interpolation_offset: -0.5,
        max_interpolation_offset: 0.4375,
        sub_pixel_interpolation_offset_bits: 4,
        max_framebuffer_width: 16384,
        max_framebuffer_height: 16384,
        max_framebuffer_layers: 2048,
        framebuffer_color_sample_counts: counts,
        framebuffer_depth_sample_counts: counts,
        framebuffer_stencil_sample_counts: counts,
        framebuffer_no_attachments_sample_counts: counts,
        max_color_attachments: 8,
        sampled_image_color_sample_counts: counts,
        sampled_image_integer_sample_counts: counts,
        sampled_image_depth_sample_counts: counts,
        sampled_image_stencil_sample_counts: counts,
        storage_image_sample_counts: vk::SampleCountFlags::TYPE_1,
        max_sample_mask_words: 1,
        // The one queue family is graphics and compute, and it takes timestamps.
        timestamp_compute_and_graphics: vk::TRUE,
        timestamp_period,
        // Eight user clip planes, as Mesa's asahi driver enables (Output Select has bits for
        // sixteen); cull distances travel as varyings, limited to the same count so that the
        // two together fit the vertex output budget.
        max_clip_distances: compiler::ir::MAX_CLIP_DISTANCES,
        max_cull_distances: compiler::ir::MAX_CLIP_DISTANCES,
        max_combined_clip_and_cull_distances: compiler::ir::MAX_CLIP_DISTANCES,
        discrete_queue_priorities: 2,
        // Vertex shaders clamp the size they write to this range (compiler
        // passes::clamp_point_size with hw::g13::points).
        point_size_range: [
            hw::g13::points::POINT_SIZE_MIN,
            hw::g13::points::POINT_SIZE_MAX,
        ],
        // The PPP line width is 4.4 fixed point: 1/16 to 16 pixels.
        line_width_range: [1.0, 16.0],
        point_size_granularity: hw::g13::points::POINT_SIZE_GRANULARITY,
        line_width_granularity: 0.0625,
        strict_lines: vk::FALSE,
        standard_sample_locations: vk::TRUE,
        optimal_buffer_copy_offset_alignment: 1,
        optimal_buffer_copy_row_pitch_alignment: 1,
        non_coherent_atom_size: 64,
        ..Default::default()
    }
}

fn queue_family() -> vk::QueueFamilyProperties {
    vk::QueueFamilyProperties {
        queue_flags: vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER,
        queue_count: 1,
        // The firmware writes full 64-bit counter values.
        timestamp_valid_bits: 64,
        min_image_transfer_granularity: vk::Extent3D {
            width: 1,
            height: 1,
            depth: 1,
        },
    }
}

/// The physical device behind a handle; panics on `VK_NULL_HANDLE`.
///
/// # Safety
/// `h` must be `VK_NULL_HANDLE` or a live physical device of this driver (one
/// vkEnumeratePhysicalDevices returned, owned by its instance), and its instance must not be
/// destroyed while the returned reference is in use. A physical device command's
/// `physicalDevice` is such a handle (Vulkan valid usage).
unsafe fn pd<'a>(h: vk::PhysicalDevice) -> &'a PhysicalDevice {
    // SAFETY: guaranteed by the caller: `h` is null or a live physical device of this driver
    // that outlives the returned reference.
    unsafe { PhysicalDevice::from_handle(h) }.expect("VkPhysicalDevice must not be VK_NULL_HANDLE")
}

pub unsafe extern "system" fn get_features(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    guard_or("vkGetPhysicalDeviceFeatures", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceFeatures's physicalDevice parameter,
        // which valid usage requires to be a live physical device of this driver.
        let supported = unsafe { pd(physical_device) }.features();
        // SAFETY: valid usage: pFeatures is writable.
        unsafe { *p_features = supported.v10 };
    })
}

pub unsafe extern "system" fn get_features2(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    guard_or("vkGetPhysicalDeviceFeatures2", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceFeatures2's physicalDevice parameter,
        // which valid usage requires to be a live physical device of this driver.
        let supported = unsafe { pd(physical_device) }.features();
        // SAFETY: valid usage: pFeatures is a writable structure with a valid pNext chain.
        unsafe {
            (*p_features).features = supported.v10;
            for s in handle::chain_mut((*p_features).p_next) {
                features::write(&supported, s);
            }
        }
    })
}

pub unsafe extern "system" fn get_properties(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    guard_or("vkGetPhysicalDeviceProperties", (), || {
        // SAFETY: valid usage: pProperties is writable, and `physical_device`,
        // vkGetPhysicalDeviceProperties's physicalDevice parameter, is a live physical device of
        // this driver.
        unsafe { *p_properties = pd(physical_device).properties };
    })
}

pub unsafe extern "system" fn get_properties2(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceProperties2", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceProperties2's physicalDevice parameter,
        // which valid usage requires to be a live physical device of this driver.
        let dev = unsafe { pd(physical_device) };
        let model = properties::of(dev);
        // SAFETY: valid usage: pProperties is a writable structure with a valid pNext chain.
        unsafe {
            (*p_properties).properties = dev.properties;
            for s in handle::chain_mut((*p_properties).p_next) {
                properties::write(&model, s);
            }
        }
    })
}

pub unsafe extern "system" fn get_queue_family_properties(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties,
) {
    guard_or("vkGetPhysicalDeviceQueueFamilyProperties", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceQueueFamilyProperties's physicalDevice
        // parameter, which valid usage requires to be a live physical device of this driver.
        let _ = unsafe { pd(physical_device) };
        // SAFETY: valid usage: the count pointer is valid, the array null or sized.
        let _ = unsafe { handle::fill_array(&[queue_family()], p_count, p_properties) };
    })
}

pub unsafe extern "system" fn get_queue_family_properties2(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::QueueFamilyProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceQueueFamilyProperties2", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceQueueFamilyProperties2's physicalDevice
        // parameter, which valid usage requires to be a live physical device of this driver.
        let _ = unsafe { pd(physical_device) };
        // SAFETY: valid usage: the count pointer is valid, the array null or sized, and each
        // element's sType/pNext are set by the caller, so only the payload is written.
        unsafe {
            if p_properties.is_null() {
                *p_count = 1;
            } else if *p_count > 0 {
                (*p_properties).queue_family_properties = queue_family();
                *p_count = 1;
            }
        }
    })
}

pub unsafe extern "system" fn get_memory_properties(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties,
) {
    guard_or("vkGetPhysicalDeviceMemoryProperties", (), || {
        // SAFETY: valid usage: pMemoryProperties is writable, and `physical_device`,
        // vkGetPhysicalDeviceMemoryProperties's physicalDevice parameter, is a live physical
        // device of this driver.
        unsafe { *p_properties = pd(physical_device).memory_properties() };
    })
}

pub unsafe extern "system" fn get_memory_properties2(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceMemoryProperties2", (), || {
        // SAFETY: valid usage: pMemoryProperties is writable, and `physical_device`,
        // vkGetPhysicalDeviceMemoryProperties2's physicalDevice parameter, is a live physical
        // device of this driver.
        unsafe { (*p_properties).memory_properties = pd(physical_device).memory_properties() };
    })
}

/// Format features. Images of the formats in `format.rs` support transfers (copies, clears,
/// resolves). TRANSFER_SRC/DST come from VK_KHR_maintenance1 (core in 1.1), which a 1.0
/// device without it need not report; agx4 reports them anyway because they are true, and
/// because the validation layer (1.3.239) requires them of vkCmdResolveImage's images whatever
/// the version. Optimal-tiling images of the formats the tilebuffer renders and the PBE stores
/// are colour attachments (blendable when normalised or float: blending is done in the
/// fragment shader). Buffers of the formats the vertex fetch understands are vertex buffers.
/// D16_UNORM, D32_SFLOAT, S8_UINT and D32_SFLOAT_S8_UINT images are depth/stencil
/// attachments. Images of the formats the texture unit reads are sampled images
/// (`format::sampleable`, linear tiling for colour formats), filtered linearly unless their
/// texels are integers or stencil. Images of the formats the texture unit reads and the PBE writes
/// are storage images (`format::storage`), in both tilings.
fn format_properties(format: vk::Format) -> vk::FormatProperties {
    let mut props = vk::FormatProperties::default();
    for (tiling, features) in [
        (vk::ImageTiling::OPTIMAL, &mut props.optimal_tiling_features),
        (vk::ImageTiling::LINEAR, &mut props.linear_tiling_features),
    ] {
        if crate::format::sampleable(format, tiling) {
            *features |= vk::FormatFeatureFlags::SAMPLED_IMAGE;
            if crate::format::linear_filterable(format) {
                *features |= vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR;
            }
        }
        if crate::format::storage(format, tiling) {
            *features |= vk::FormatFeatureFlags::STORAGE_IMAGE;
            if tiling == vk::ImageTiling::OPTIMAL && crate::format::storage_atomic(format) {
                *features |= vk::FormatFeatureFlags::STORAGE_IMAGE_ATOMIC;
            }
        }
    }
    if let Some(f) = crate::format::get(format) {
        let transfer = vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
        props.optimal_tiling_features |= transfer;
        if f.is_compressed() {
            // Compressed images are twiddled only. Blits read them through the texture
            // unit as they read any sampled image; the PBE cannot write blocks.
            props.optimal_tiling_features |= vk::FormatFeatureFlags::BLIT_SRC;
        } else {
            props.linear_tiling_features |= transfer;
        }
    }
    if let Some(r) = crate::format::renderable(format) {
        props.optimal_tiling_features |= vk::FormatFeatureFlags::COLOR_ATTACHMENT;
        if r.blendable() {
            props.optimal_tiling_features |= vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND;
        }
    }
    if crate::format::depth_stencil(format).is_some() {
        props.optimal_tiling_features |= vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    if format == vk::Format::D16_UNORM {
        // Vulkan 1.0 requires BLIT_SRC of D16_UNORM. A depth blit needs a destination of the
        // same format with BLIT_DST, which no depth format offers, so no valid blit reads it.
        props.optimal_tiling_features |= vk::FormatFeatureFlags::BLIT_SRC;
    }
    if matches!(
        format,
        vk::Format::E5B9G9R9_UFLOAT_PACK32
            | vk::Format::A4R4G4B4_UNORM_PACK16
            | vk::Format::A4B4G4R4_UNORM_PACK16
    ) {
        // Blits read them through the texture unit like any float format; the PBE does not
        // write shared exponents, and the alpha-first 4444 formats are no colour attachments
        // (format.rs), so they are no blit destinations.
        props.optimal_tiling_features |= vk::FormatFeatureFlags::BLIT_SRC;
    }
    if blittable_colour(format) {
        // vkCmdBlitImage samples the source with the texture unit and stores through the PBE
        // (cmd_buffer/blit.rs); LINEAR filtering works for every non-integer colour format.
        props.optimal_tiling_features |=
            vk::FormatFeatureFlags::BLIT_SRC | vk::FormatFeatureFlags::BLIT_DST;
        if crate::format::linear_filterable(format) {
            props.optimal_tiling_features |= vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR;
        }
        // The texture unit reads linear images through the same descriptors (row stride
        // in the texture descriptor), so blits read them too (test blits_read_linear_images).
        props.linear_tiling_features |= vk::FormatFeatureFlags::BLIT_SRC;
    }
    if crate::format::vertex_format(format).is_some() {
        props.buffer_features |= vk::FormatFeatureFlags::VERTEX_BUFFER;
    }
    props.buffer_features |= crate::buffer_view::format_features(format);
    props
}

/// Colour formats that blits read and write: the ones the texture unit and the PBE both know.
/// Integer formats blit with NEAREST filtering only (their texels are copied, never averaged:
/// blit.rs). A packed format blits through the same texture reads and PBE stores its
/// attachment loads and stores use, which are tested only for the packed formats that are
/// colour attachments.
fn blittable_colour(format: vk::Format) -> bool {
    crate::format::get(format).is_some_and(|f| !f.is_compressed())
        && crate::format::depth_stencil(format).is_none()
        && (!crate::format::is_packed(format) || crate::format::renderable(format).is_some())
        && hw::g13::image_desc::pixel_format(format.as_raw()).is_some()
}

pub unsafe extern "system" fn get_format_properties(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties,
) {
    guard_or("vkGetPhysicalDeviceFormatProperties", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceFormatProperties's physicalDevice
        // parameter, which valid usage requires to be a live physical device of this driver.
        let _ = unsafe { pd(physical_device) };
        // SAFETY: valid usage: pFormatProperties is writable.
        unsafe { *p_properties = format_properties(format) };
    })
}

pub unsafe extern "system" fn get_format_properties2(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    p_properties: *mut vk::FormatProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceFormatProperties2", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceFormatProperties2's physicalDevice
        // parameter, which valid usage requires to be a live physical device of this driver.
        let _ = unsafe { pd(physical_device) };
        let props = format_properties(format);
        // SAFETY: valid usage: pFormatProperties is writable, with a valid pNext chain.
        unsafe {
            (*p_properties).format_properties = props;
            for s in handle::chain_mut((*p_properties).p_next) {
                if (*s).s_type == vk::StructureType::FORMAT_PROPERTIES_3 {
                    let p3 = &mut *s.cast::<vk::FormatProperties3<'_>>();
                    p3.linear_tiling_features = features2(format, props.linear_tiling_features);
                    p3.optimal_tiling_features = features2(format, props.optimal_tiling_features);
                    p3.buffer_features = features2(format, props.buffer_features);
                }
            }
        }
    })
}

/// The 64-bit format features (Vulkan 1.3): the 32-bit ones and those only they can say.
fn features2(format: vk::Format, f: vk::FormatFeatureFlags) -> vk::FormatFeatureFlags2 {
    let mut f2 = vk::FormatFeatureFlags2::from_raw(u64::from(f.as_raw()));
    // Storage loads and stores need no format in the shader (shaderStorageImageReadWithout
    // Format and WriteWithoutFormat hold for every storage format).
    if f.intersects(
        vk::FormatFeatureFlags::STORAGE_IMAGE | vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER,
    ) {
        f2 |= vk::FormatFeatureFlags2::STORAGE_READ_WITHOUT_FORMAT
            | vk::FormatFeatureFlags2::STORAGE_WRITE_WITHOUT_FORMAT;
    }
    // Sampled depth formats take depth-comparison samplers.
    if f.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE)
        && matches!(
            crate::format::depth_stencil(format),
            Some(crate::format::DepthStencil::Depth(_))
        )
    {
        f2 |= vk::FormatFeatureFlags2::SAMPLED_IMAGE_DEPTH_COMPARISON;
    }
    f2
}

pub unsafe extern "system" fn get_image_format_properties(
    physical_device: vk::PhysicalDevice,
    format: vk::Format,
    ty: vk::ImageType,
    tiling: vk::ImageTiling,
    usage: vk::ImageUsageFlags,
    flags: vk::ImageCreateFlags,
    p_properties: *mut vk::ImageFormatProperties,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceImageFormatProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `physical_device` is vkGetPhysicalDeviceImageFormatProperties's
            // physicalDevice parameter, which valid usage requires to be a live physical device of
            // this driver.
            let _ = unsafe { pd(physical_device) };
            match crate::image::format_properties(format, ty, tiling, usage, flags) {
                Some(p) => {
                    // SAFETY: valid usage: pImageFormatProperties is writable.
                    unsafe { *p_properties = p };
                    vk::Result::SUCCESS
                }
                None => {
                    // An unsupported combination reads as all zeros.
                    // SAFETY: valid usage: pImageFormatProperties is writable.
                    unsafe { *p_properties = vk::ImageFormatProperties::default() };
                    vk::Result::ERROR_FORMAT_NOT_SUPPORTED
                }
            }
        },
    )
}

pub unsafe extern "system" fn get_image_format_properties2(
    physical_device: vk::PhysicalDevice,
    p_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
    p_properties: *mut vk::ImageFormatProperties2<'_>,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceImageFormatProperties2",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `physical_device` is vkGetPhysicalDeviceImageFormatProperties2's
            // physicalDevice parameter, which valid usage requires to be a live physical device of
            // this driver.
            let _ = unsafe { pd(physical_device) };
            // An unsupported combination reads as all zeros; a supported one overwrites them.
            // SAFETY: valid usage: pImageFormatProperties is writable.
            unsafe { (*p_properties).image_format_properties = Default::default() };
            // SAFETY: valid usage: pImageFormatInfo is valid, with a valid pNext chain.
            let info = unsafe { &*p_info };
            // A VkImageFormatListCreateInfo only narrows the view formats of a MUTABLE_FORMAT
            // image, which changes none of the answers (EXTENDED_USAGE looks at the whole
            // compatibility class, as the CTS expects). An external handle type is answered
            // by external.rs; a separate stencil usage must be supported on its own.
            // Any other structure asks about something agx4 does not know, so the
            // combination is reported unsupported.
            let mut stencil_usage = None;
            let mut external = None;
            // SAFETY: as above.
            for s in unsafe { handle::chain(info.p_next) } {
                match s.s_type {
                    vk::StructureType::IMAGE_FORMAT_LIST_CREATE_INFO => {}
                    vk::StructureType::PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO => {
                        // SAFETY: the sType names the structure.
                        let e = unsafe {
                            &*(s as *const vk::BaseInStructure<'_>)
                                .cast::<vk::PhysicalDeviceExternalImageFormatInfo<'_>>()
                        };
                        if !e.handle_type.is_empty() {
                            match crate::external::image_memory_properties(
                                e.handle_type,
                                info.tiling,
                            ) {
                                Some(p) => external = Some(p),
                                None => return vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
                            }
                        }
                    }
                    vk::StructureType::IMAGE_STENCIL_USAGE_CREATE_INFO => {
                        // SAFETY: the sType names the structure.
                        let u = unsafe {
                            &*(s as *const vk::BaseInStructure<'_>)
                                .cast::<vk::ImageStencilUsageCreateInfo<'_>>()
                        };
                        stencil_usage = Some(u.stencil_usage);
                    }
                    _ => return vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
                }
            }
            let query = |usage| {
                crate::image::format_properties(
                    info.format,
                    info.ty,
                    info.tiling,
                    usage,
                    info.flags,
                )
            };
            if stencil_usage.is_some_and(|u| query(u).is_none()) {
                return vk::Result::ERROR_FORMAT_NOT_SUPPORTED;
            }
            match query(info.usage) {
                Some(p) => {
                    // SAFETY: valid usage: pImageFormatProperties is writable, with a valid
                    // pNext chain.
                    unsafe {
                        (*p_properties).image_format_properties = p;
                        for s in handle::chain_mut((*p_properties).p_next) {
                            match (*s).s_type {
                                vk::StructureType::EXTERNAL_IMAGE_FORMAT_PROPERTIES => {
                                    (*s.cast::<vk::ExternalImageFormatProperties<'_>>())
                                        .external_memory_properties =
                                        external.unwrap_or_default();
                                }
                                vk::StructureType::SAMPLER_YCBCR_CONVERSION_IMAGE_FORMAT_PROPERTIES => {
                                    (*s.cast::<vk::SamplerYcbcrConversionImageFormatProperties<'_>>())
                                        .combined_image_sampler_descriptor_count = 1;
                                }
                                _ => {}
                            }
                        }
                    }
                    vk::Result::SUCCESS
                }
                None => vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
            }
        },
    )
}

pub unsafe extern "system" fn get_sparse_image_format_properties(
    physical_device: vk::PhysicalDevice,
    _format: vk::Format,
    _ty: vk::ImageType,
    _samples: vk::SampleCountFlags,
    _usage: vk::ImageUsageFlags,
    _tiling: vk::ImageTiling,
    p_count: *mut u32,
    _p_properties: *mut vk::SparseImageFormatProperties,
) {
    guard_or("vkGetPhysicalDeviceSparseImageFormatProperties", (), || {
        // SAFETY: `physical_device` is vkGetPhysicalDeviceSparseImageFormatProperties's
        // physicalDevice parameter, which valid usage requires to be a live physical device of this
        // driver.
        let _ = unsafe { pd(physical_device) };
        // SAFETY: valid usage: pPropertyCount is writable. No sparse support: zero entries.
        unsafe { *p_count = 0 };
    })
}

pub unsafe extern "system" fn get_sparse_image_format_properties2(
    physical_device: vk::PhysicalDevice,
    _p_info: *const vk::PhysicalDeviceSparseImageFormatInfo2<'_>,
    p_count: *mut u32,
    _p_properties: *mut vk::SparseImageFormatProperties2<'_>,
) {
    guard_or(
        "vkGetPhysicalDeviceSparseImageFormatProperties2",
        (),
        || {
            // SAFETY: `physical_device` is vkGetPhysicalDeviceSparseImageFormatProperties2's
            // physicalDevice parameter, which valid usage requires to be a live physical device of
            // this driver.
            let _ = unsafe { pd(physical_device) };
            // SAFETY: valid usage: pPropertyCount is writable. No sparse support: zero entries.
            unsafe { *p_count = 0 };
        },
    )
}

pub unsafe extern "system" fn enumerate_device_extension_properties(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const std::ffi::c_char,
    p_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard_or(
        "vkEnumerateDeviceExtensionProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `physical_device` is vkEnumerateDeviceExtensionProperties's physicalDevice
            // parameter, which valid usage requires to be a live physical device of this driver.
            let pd = unsafe { pd(physical_device) };
            if !p_layer_name.is_null() {
                return vk::Result::ERROR_LAYER_NOT_PRESENT;
            }
            let props = crate::instance::extension_properties(pd.extensions());
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array(&props, p_count, p_properties) }
        },
    )
}

pub unsafe extern "system" fn enumerate_device_layer_properties(
    physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    p_properties: *mut vk::LayerProperties,
) -> vk::Result {
    guard_or(
        "vkEnumerateDeviceLayerProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: `physical_device` is vkEnumerateDeviceLayerProperties's physicalDevice
            // parameter, which valid usage requires to be a live physical device of this driver.
            let _ = unsafe { pd(physical_device) };
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array::<vk::LayerProperties>(&[], p_count, p_properties) }
        },
    )
}

/// No tools (validation, profiling, debugging) are built into agx4; layers report their own.
pub unsafe extern "system" fn get_tool_properties(
    _physical_device: vk::PhysicalDevice,
    p_count: *mut u32,
    _p_properties: *mut vk::PhysicalDeviceToolProperties<'_>,
) -> vk::Result {
    guard_or(
        "vkGetPhysicalDeviceToolProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: valid usage: pToolCount is writable.
            unsafe { *p_count = 0 };
            vk::Result::SUCCESS
        },
    )
}
