//! VkPhysicalDevice: the GPU's identity, limits, features, queue families, memory types and
//! format support, all derived from what GET_PARAMS reports.

use crate::advertised::{API_MINOR, DEVICE_EXTENSIONS};
use crate::entry::{guard_or, HEADER_VERSION};
use crate::handle::{self, object, LoaderData, Object};
use crate::memory::MEMORY_TYPES;
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

impl PhysicalDevice {
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
        let properties = properties(&params, &name);
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
    // FNV-1a over what makes compiled code incompatible: driver version and GPU identity.
    let key = format!(
        "agx4 {} {:x} {} {}",
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
        max_per_stage_descriptor_samplers: 16,
        max_per_stage_descriptor_uniform_buffers: 12,
        max_per_stage_descriptor_storage_buffers: 8,
        max_per_stage_descriptor_sampled_images: 16,
        max_per_stage_descriptor_storage_images: 4,
        max_per_stage_descriptor_input_attachments: 4,
        max_per_stage_resources: 128,
        max_descriptor_set_samplers: 96,
        max_descriptor_set_uniform_buffers: 72,
        max_descriptor_set_uniform_buffers_dynamic: 8,
        max_descriptor_set_storage_buffers: 24,
        max_descriptor_set_storage_buffers_dynamic: 4,
        max_descriptor_set_sampled_images: 96,
        max_descriptor_set_storage_images: 24,
        max_descriptor_set_input_attachments: 4,
        max_vertex_input_attributes: 16,
        max_vertex_input_bindings: 16,
        max_vertex_input_attribute_offset: 2047,
        max_vertex_input_binding_stride: 2048,
        max_vertex_output_components: 64,
        max_fragment_input_components: 64,
        max_fragment_output_attachments: 8,
        max_fragment_dual_src_attachments: 0,
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
        max_clip_distances: 0,
        max_cull_distances: 0,
        max_combined_clip_and_cull_distances: 0,
        discrete_queue_priorities: 2,
        point_size_range: [1.0, 1.0],
        // The PPP line width is 4.4 fixed point: 1/16 to 16 pixels.
        line_width_range: [1.0, 16.0],
        point_size_granularity: 0.0,
        line_width_granularity: 0.0625,
        strict_lines: vk::FALSE,
        standard_sample_locations: vk::TRUE,
        optimal_buffer_copy_offset_alignment: 1,
        optimal_buffer_copy_row_pitch_alignment: 1,
        non_coherent_atom_size: 64,
        ..Default::default()
    }
}

/// The features agx4 supports. Everything not listed here is false.
pub fn supported_features() -> vk::PhysicalDeviceFeatures {
    // Vulkan 1.0 requires robustBufferAccess of every implementation.
    // shaderInt64: the compiler splits 64-bit integers into 32-bit pairs (passes::lower_int64);
    // 64-bit atomics (shaderBufferInt64Atomics) are a separate feature and stay off.
    // independentBlend and logicOp: blending and logic ops are compiled into the fragment
    // shader per target. multiDrawIndirect: each indirect draw becomes its own Index List.
    vk::PhysicalDeviceFeatures {
        robust_buffer_access: vk::TRUE,
        shader_int64: vk::TRUE,
        independent_blend: vk::TRUE,
        logic_op: vk::TRUE,
        multi_draw_indirect: vk::TRUE,
        wide_lines: vk::TRUE,
        // Triangles can be drawn as their edges or vertices (Fragment Face polygon mode).
        fill_mode_non_solid: vk::TRUE,
        // The GPU counts every passing sample into the query (cmd_buffer::query).
        occlusion_query_precise: vk::TRUE,
        // A secondary's draws take the occlusion query the executing primary has active
        // (cmd_buffer/secondary.rs).
        inherited_queries: vk::TRUE,
        // The PPP Cull word turns off near/far clipping and clamps fragment depth to the
        // viewport's depth range (pipeline_graphics.rs, cmd_buffer/draw.rs).
        depth_clamp: vk::TRUE,
        // A GPU copy puts an indirect draw's firstInstance into its root table before the
        // render command runs (cmd_buffer/draw.rs).
        draw_indirect_first_instance: vk::TRUE,
        // The fragment shader loops over the pixel's samples (compiler g13 isel::gfx).
        sample_rate_shading: vk::TRUE,
        // The fragment shader stores 1.0 as the alpha of non-integer targets before blending
        // (compiler g13 isel::gfx).
        alpha_to_one: vk::TRUE,
        // Storage image loads decode the format their texture descriptor names and stores
        // encode the one their PBE descriptor names (docs/render-abi.md section 7), so shaders
        // need not declare it; every extended storage format is a storage format
        // (format::storage).
        shader_storage_image_extended_formats: vk::TRUE,
        shader_storage_image_read_without_format: vk::TRUE,
        shader_storage_image_write_without_format: vk::TRUE,
        // BC1-7 and ETC2/EAC images are sampled (the simulated texture unit decodes their
        // blocks), copied in blocks and blitted from (format.rs, cmd_buffer/image_transfer.rs).
        texture_compression_bc: vk::TRUE,
        texture_compression_etc2: vk::TRUE,
        // ASTC LDR too, decoded to FP16 (UNORM) or 8 bits (sRGB) as Vulkan requires.
        texture_compression_astc_ldr: vk::TRUE,
        // Vulkan's anisotropic approximation in the texture unit (hw texture.rs).
        sampler_anisotropy: vk::TRUE,
        // Cube array views are sampled (the cube index is the layer / 6) and gathered.
        image_cube_array: vk::TRUE,
        // Run-time gather offsets fill the offset register; ConstOffsets is four gathers.
        shader_image_gather_extended: vk::TRUE,
        ..Default::default()
    }
}

/// Whether every feature set in `requested` is in `supported` (both are arrays of VkBool32).
pub fn features_subset(
    requested: &vk::PhysicalDeviceFeatures,
    supported: &vk::PhysicalDeviceFeatures,
) -> bool {
    let as_words = |f: &vk::PhysicalDeviceFeatures| -> Vec<vk::Bool32> {
        let n =
            std::mem::size_of::<vk::PhysicalDeviceFeatures>() / std::mem::size_of::<vk::Bool32>();
        // SAFETY: VkPhysicalDeviceFeatures is a #[repr(C)] struct made only of VkBool32 fields.
        unsafe { std::slice::from_raw_parts(f as *const _ as *const vk::Bool32, n) }.to_vec()
    };
    as_words(requested)
        .iter()
        .zip(as_words(supported))
        .all(|(r, s)| *r == vk::FALSE || s != vk::FALSE)
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

fn pd<'a>(h: vk::PhysicalDevice) -> &'a PhysicalDevice {
    PhysicalDevice::from_handle(h).expect("VkPhysicalDevice must not be VK_NULL_HANDLE")
}

pub unsafe extern "system" fn get_features(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures,
) {
    guard_or("vkGetPhysicalDeviceFeatures", (), || {
        let _ = pd(physical_device);
        // SAFETY: valid usage: pFeatures is writable.
        unsafe { *p_features = supported_features() };
    })
}

pub unsafe extern "system" fn get_features2(
    physical_device: vk::PhysicalDevice,
    p_features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    guard_or("vkGetPhysicalDeviceFeatures2", (), || {
        let _ = pd(physical_device);
        // SAFETY: valid usage: pFeatures is a writable structure with a valid pNext chain.
        unsafe {
            (*p_features).features = supported_features();
            for s in handle::chain_mut((*p_features).p_next) {
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES {
                    (*(s as *mut vk::PhysicalDeviceTimelineSemaphoreFeatures)).timeline_semaphore =
                        vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES {
                    (*(s as *mut vk::PhysicalDeviceSynchronization2Features)).synchronization2 =
                        vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR {
                    (*(s as *mut vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR)).pipeline_executable_info = vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES {
                    (*(s as *mut vk::PhysicalDeviceDynamicRenderingFeatures)).dynamic_rendering =
                        vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES
                {
                    (*(s as *mut vk::PhysicalDeviceImagelessFramebufferFeatures))
                        .imageless_framebuffer = vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_PIPELINE_CREATION_CACHE_CONTROL_FEATURES
                {
                    // Pipelines that must not be compiled report VK_PIPELINE_COMPILE_REQUIRED
                    // unless their pipeline cache holds them (pipeline.rs).
                    (*(s as *mut vk::PhysicalDevicePipelineCreationCacheControlFeatures))
                        .pipeline_creation_cache_control = vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES {
                    // Query memory is host-visible; vkResetQueryPool writes it (query_pool.rs).
                    (*(s as *mut vk::PhysicalDeviceHostQueryResetFeatures)).host_query_reset =
                        vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_SHADER_DEMOTE_TO_HELPER_INVOCATION_FEATURES
                {
                    (*(s as *mut vk::PhysicalDeviceShaderDemoteToHelperInvocationFeatures))
                        .shader_demote_to_helper_invocation = vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT
                {
                    // The border table holds the colour's raw words; the texture unit reads
                    // them by the view's format (sampler.rs, render-abi section 7).
                    let c = &mut *(s as *mut vk::PhysicalDeviceCustomBorderColorFeaturesEXT);
                    c.custom_border_colors = vk::TRUE;
                    c.custom_border_color_without_format = vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_FEATURES_EXT
                {
                    // Draws pick each state from the command buffer or the pipeline
                    // (cmd_buffer/dynamic_state.rs).
                    (*(s as *mut vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT))
                        .extended_dynamic_state = vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT
                {
                    // Logic ops are compiled into the fragment shader and there is no
                    // tessellation: those two stay static.
                    let e = &mut *(s as *mut vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT);
                    e.extended_dynamic_state2 = vk::TRUE;
                    e.extended_dynamic_state2_logic_op = vk::FALSE;
                    e.extended_dynamic_state2_patch_control_points = vk::FALSE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT {
                    (*(s as *mut vk::PhysicalDeviceIndexTypeUint8FeaturesEXT)).index_type_uint8 =
                        vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_4444_FORMATS_FEATURES_EXT {
                    let f = &mut *(s as *mut vk::PhysicalDevice4444FormatsFeaturesEXT);
                    f.format_a4r4g4b4 = vk::TRUE;
                    f.format_a4b4g4r4 = vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT
                {
                    (*(s as *mut vk::PhysicalDeviceDepthClipEnableFeaturesEXT)).depth_clip_enable =
                        vk::TRUE;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_FEATURES_KHR
                {
                    let f = &mut *(s as *mut vk::PhysicalDeviceVertexAttributeDivisorFeaturesEXT);
                    f.vertex_attribute_instance_rate_divisor = vk::TRUE;
                    f.vertex_attribute_instance_rate_zero_divisor = vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_MULTIVIEW_FEATURES {
                    // Views are render commands of their own; geometry and tessellation
                    // shaders do not exist here. Every member is written: the caller's
                    // structure may hold anything.
                    let m = &mut *(s as *mut vk::PhysicalDeviceMultiviewFeatures);
                    m.multiview = vk::TRUE;
                    m.multiview_geometry_shader = vk::FALSE;
                    m.multiview_tessellation_shader = vk::FALSE;
                }
            }
        }
    })
}

pub unsafe extern "system" fn get_properties(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties,
) {
    guard_or("vkGetPhysicalDeviceProperties", (), || {
        // SAFETY: valid usage: pProperties is writable.
        unsafe { *p_properties = pd(physical_device).properties };
    })
}

pub unsafe extern "system" fn get_properties2(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceProperties2", (), || {
        let dev = pd(physical_device);
        // SAFETY: valid usage: pProperties is a writable structure with a valid pNext chain.
        unsafe {
            (*p_properties).properties = dev.properties;
            for s in handle::chain_mut((*p_properties).p_next) {
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES {
                    // Timeline points are 64-bit syncobj points; any difference is representable.
                    (*(s as *mut vk::PhysicalDeviceTimelineSemaphoreProperties))
                        .max_timeline_semaphore_value_difference = u64::MAX;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_PROPERTIES_EXT
                {
                    // The fetch divides by any 32-bit divisor.
                    (*(s as *mut vk::PhysicalDeviceVertexAttributeDivisorPropertiesEXT))
                        .max_vertex_attrib_divisor = u32::MAX;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES {
                    let m = &mut *(s as *mut vk::PhysicalDeviceMultiviewProperties);
                    m.max_multiview_view_count = crate::render_pass::MAX_VIEWS;
                    // The instance number is a 32-bit register; the spec's minimum is reported.
                    m.max_multiview_instance_index = (1 << 27) - 1;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_DEPTH_STENCIL_RESOLVE_PROPERTIES
                {
                    // Each aspect is resolved on its own, by copying sample 0.
                    let r = &mut *(s as *mut vk::PhysicalDeviceDepthStencilResolveProperties);
                    r.supported_depth_resolve_modes =
                        crate::render_pass::DEPTH_STENCIL_RESOLVE_MODES;
                    r.supported_stencil_resolve_modes =
                        crate::render_pass::DEPTH_STENCIL_RESOLVE_MODES;
                    r.independent_resolve_none = vk::TRUE;
                    r.independent_resolve = vk::TRUE;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR
                {
                    (*(s as *mut vk::PhysicalDevicePushDescriptorPropertiesKHR))
                        .max_push_descriptors =
                        crate::cmd_buffer::push_descriptor::MAX_PUSH_DESCRIPTORS;
                }
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_PROPERTIES_EXT
                {
                    (*(s as *mut vk::PhysicalDeviceCustomBorderColorPropertiesEXT))
                        .max_custom_border_color_samplers =
                        crate::sampler::MAX_CUSTOM_BORDER_SAMPLERS;
                }
                if (*s).s_type == vk::StructureType::PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES {
                    // The rasterizer keeps or drops a point by its vertex against the view
                    // volume (hw::gpu::raster::clip::point_visible).
                    (*(s as *mut vk::PhysicalDevicePointClippingProperties))
                        .point_clipping_behavior = vk::PointClippingBehavior::ALL_CLIP_PLANES;
                }
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
        let _ = pd(physical_device);
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
        let _ = pd(physical_device);
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
        // SAFETY: valid usage: pMemoryProperties is writable.
        unsafe { *p_properties = pd(physical_device).memory_properties() };
    })
}

pub unsafe extern "system" fn get_memory_properties2(
    physical_device: vk::PhysicalDevice,
    p_properties: *mut vk::PhysicalDeviceMemoryProperties2<'_>,
) {
    guard_or("vkGetPhysicalDeviceMemoryProperties2", (), || {
        // SAFETY: valid usage: pMemoryProperties is writable.
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
        let _ = pd(physical_device);
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
        let _ = pd(physical_device);
        // SAFETY: valid usage: pFormatProperties is writable.
        unsafe { (*p_properties).format_properties = format_properties(format) };
    })
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
            let _ = pd(physical_device);
            match crate::image::format_properties(format, ty, tiling, usage, flags) {
                Some(p) => {
                    // SAFETY: valid usage: pImageFormatProperties is writable.
                    unsafe { *p_properties = p };
                    vk::Result::SUCCESS
                }
                None => vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
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
            let _ = pd(physical_device);
            // SAFETY: valid usage: pImageFormatInfo is valid, with a valid pNext chain.
            let info = unsafe { &*p_info };
            // A VkImageFormatListCreateInfo only narrows the view formats of a MUTABLE_FORMAT
            // image, which changes none of the answers (EXTENDED_USAGE looks at the whole
            // compatibility class, as the CTS expects); any other structure asks about something
            // agx4 does not know, so the combination is reported unsupported.
            // SAFETY: as above.
            let known = |s: &vk::BaseInStructure<'_>| {
                s.s_type == vk::StructureType::IMAGE_FORMAT_LIST_CREATE_INFO
            };
            if !unsafe { handle::chain(info.p_next) }.all(known) {
                return vk::Result::ERROR_FORMAT_NOT_SUPPORTED;
            }
            match crate::image::format_properties(
                info.format,
                info.ty,
                info.tiling,
                info.usage,
                info.flags,
            ) {
                Some(p) => {
                    // SAFETY: valid usage: pImageFormatProperties is writable.
                    unsafe { (*p_properties).image_format_properties = p };
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
        let _ = pd(physical_device);
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
            let _ = pd(physical_device);
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
            let _ = pd(physical_device);
            if !p_layer_name.is_null() {
                return vk::Result::ERROR_LAYER_NOT_PRESENT;
            }
            let props = crate::instance::extension_properties(DEVICE_EXTENSIONS);
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
            let _ = pd(physical_device);
            // SAFETY: valid usage: the count pointer is valid, the array null or sized.
            unsafe { handle::fill_array::<vk::LayerProperties>(&[], p_count, p_properties) }
        },
    )
}
