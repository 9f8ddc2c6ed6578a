//! The physical device's properties beyond VkPhysicalDeviceProperties. One model (the Vulkan
//! 1.1 to 1.3 property structures and the extension-only ones) answers every property structure
//! of a `pNext` chain, so the promoted structures always agree with their Vulkan 1.x aggregates.

use crate::physical_device::PhysicalDevice;
use ash::vk;
use ash::vk::TaggedStructure;

/// The driver ID agx4 reports. Khronos has not registered one for agx4, and reporting another
/// driver's ID would send applications down that driver's workarounds, so it is a value outside
/// the registered range, stable across versions.
pub const DRIVER_ID: vk::DriverId = vk::DriverId::from_raw(0x4147_5834);

/// Everything agx4 reports in property structures.
pub struct Properties {
    pub v11: vk::PhysicalDeviceVulkan11Properties<'static>,
    pub v12: vk::PhysicalDeviceVulkan12Properties<'static>,
    pub v13: vk::PhysicalDeviceVulkan13Properties<'static>,
    pub push_descriptor: vk::PhysicalDevicePushDescriptorPropertiesKHR<'static>,
    pub custom_border_color: vk::PhysicalDeviceCustomBorderColorPropertiesEXT<'static>,
    pub divisor: vk::PhysicalDeviceVertexAttributeDivisorPropertiesEXT<'static>,
    pub line_rasterization: vk::PhysicalDeviceLineRasterizationPropertiesEXT<'static>,
    pub provoking_vertex: vk::PhysicalDeviceProvokingVertexPropertiesEXT<'static>,
    pub transform_feedback: vk::PhysicalDeviceTransformFeedbackPropertiesEXT<'static>,
    pub multi_draw: vk::PhysicalDeviceMultiDrawPropertiesEXT<'static>,
    pub robustness2: vk::PhysicalDeviceRobustness2PropertiesEXT<'static>,
    pub dynamic_state3: vk::PhysicalDeviceExtendedDynamicState3PropertiesEXT<'static>,
}

/// FNV-1a of a key, as a UUID.
fn uuid_of(key: &str) -> [u8; vk::UUID_SIZE] {
    let hash = |seed: u64| {
        key.bytes()
            .fold(seed, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    };
    let mut uuid = [0u8; vk::UUID_SIZE];
    uuid[..8].copy_from_slice(&hash(0xcbf2_9ce4_8422_2325).to_le_bytes());
    uuid[8..].copy_from_slice(&hash(0x8422_2325_cbf2_9ce4).to_le_bytes());
    uuid
}

/// The properties of `dev`.
/// The update-after-bind limits that are not tied to an ordinary one: the spec's minimum
/// for devices with descriptorIndexing.
const UAB_LIMIT: u32 = 500_000;

pub fn of(dev: &PhysicalDevice) -> Properties {
    let limits = &dev.properties.limits;
    let mut v12 = vk::PhysicalDeviceVulkan12Properties {
        driver_id: DRIVER_ID,
        // agx4 has not passed the Vulkan CTS: conformance version 0.0.0.0.
        conformance_version: vk::ConformanceVersion::default(),
        // G13's float behaviour is fixed per width (hw::g13::float_mode), but the compiler
        // does not yet honour the float-controls execution modes in its own folding, so no
        // mode is promised.
        denorm_behavior_independence: vk::ShaderFloatControlsIndependence::ALL,
        rounding_mode_independence: vk::ShaderFloatControlsIndependence::ALL,
        // Each aspect is resolved on its own, by copying sample 0.
        supported_depth_resolve_modes: crate::render_pass::DEPTH_STENCIL_RESOLVE_MODES,
        supported_stencil_resolve_modes: crate::render_pass::DEPTH_STENCIL_RESOLVE_MODES,
        independent_resolve_none: vk::TRUE,
        independent_resolve: vk::TRUE,
        // Timeline points are 64-bit syncobj points; any difference is representable.
        max_timeline_semaphore_value_difference: u64::MAX,
        framebuffer_integer_color_sample_counts: limits.framebuffer_color_sample_counts,
        // Update-after-bind sets are ordinary sets (shaders read set memory when they run),
        // so their limits are software ones: the spec's minimums, or the ordinary limit where
        // that is larger. The dynamic buffer limits are the ordinary ones (dynamic buffers
        // cannot be update-after-bind, but a layout may hold both kinds of set).
        max_update_after_bind_descriptors_in_all_pools: UAB_LIMIT,
        max_per_stage_descriptor_update_after_bind_samplers: UAB_LIMIT,
        max_per_stage_descriptor_update_after_bind_uniform_buffers: limits
            .max_per_stage_descriptor_uniform_buffers,
        max_per_stage_descriptor_update_after_bind_storage_buffers: UAB_LIMIT,
        max_per_stage_descriptor_update_after_bind_sampled_images: UAB_LIMIT,
        max_per_stage_descriptor_update_after_bind_storage_images: UAB_LIMIT,
        max_per_stage_descriptor_update_after_bind_input_attachments: limits
            .max_per_stage_descriptor_input_attachments,
        max_per_stage_update_after_bind_resources: UAB_LIMIT,
        max_descriptor_set_update_after_bind_samplers: UAB_LIMIT,
        max_descriptor_set_update_after_bind_uniform_buffers: limits
            .max_descriptor_set_uniform_buffers,
        max_descriptor_set_update_after_bind_uniform_buffers_dynamic: limits
            .max_descriptor_set_uniform_buffers_dynamic,
        max_descriptor_set_update_after_bind_storage_buffers: UAB_LIMIT,
        max_descriptor_set_update_after_bind_storage_buffers_dynamic: limits
            .max_descriptor_set_storage_buffers_dynamic,
        max_descriptor_set_update_after_bind_sampled_images: UAB_LIMIT,
        max_descriptor_set_update_after_bind_storage_images: UAB_LIMIT,
        max_descriptor_set_update_after_bind_input_attachments: limits
            .max_descriptor_set_input_attachments,
        // Buffer descriptors carry their range, read when the shader runs, so bounds checks
        // hold for descriptors written after binding too.
        robust_buffer_access_update_after_bind: vk::TRUE,
        // The *NonUniformIndexingNative flags stay false and so does quadDivergentImplicitLod:
        // neither is promised until measured on hardware.
        ..Default::default()
    };
    crate::handle::write_name(&mut v12.driver_name, "agx4");
    crate::handle::write_name(
        &mut v12.driver_info,
        &format!("agx4 {}", env!("CARGO_PKG_VERSION")),
    );
    let params = &dev.params;
    Properties {
        v11: vk::PhysicalDeviceVulkan11Properties {
            // The device UUID names the GPU model; the driver UUID the build that lays out
            // memory (external memory must only be shared between equal driver UUIDs).
            device_uuid: uuid_of(&format!(
                "agx4 device {:x} {} {}",
                params.chip_id, params.gpu_generation, params.gpu_variant
            )),
            driver_uuid: uuid_of(concat!("agx4 driver ", env!("CARGO_PKG_VERSION"))),
            subgroup_size: hw::isa::SIMD_WIDTH as u32,
            // Compiled onto G13's ballots, shuffles and SIMD reductions (frontend::subgroup,
            // passes::lower_subgroups); quads are the derivative quads.
            subgroup_supported_stages: vk::ShaderStageFlags::COMPUTE
                | vk::ShaderStageFlags::FRAGMENT,
            subgroup_supported_operations: vk::SubgroupFeatureFlags::BASIC
                | vk::SubgroupFeatureFlags::VOTE
                | vk::SubgroupFeatureFlags::ARITHMETIC
                | vk::SubgroupFeatureFlags::BALLOT
                | vk::SubgroupFeatureFlags::SHUFFLE
                | vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE
                | vk::SubgroupFeatureFlags::CLUSTERED
                | vk::SubgroupFeatureFlags::QUAD,
            // The rasterizer keeps or drops a point by its vertex against the view volume
            // (sim_gpu::raster::clip::point_visible).
            point_clipping_behavior: vk::PointClippingBehavior::ALL_CLIP_PLANES,
            max_multiview_view_count: crate::render_pass::MAX_VIEWS,
            // The instance number is a 32-bit register; the spec's minimum is reported.
            max_multiview_instance_index: (1 << 27) - 1,
            max_per_set_descriptors: crate::descriptor_set_layout::MAX_PER_SET_DESCRIPTORS,
            max_memory_allocation_size: dev.heap_size,
            ..Default::default()
        },
        v12,
        v13: vk::PhysicalDeviceVulkan13Properties {
            min_subgroup_size: hw::isa::SIMD_WIDTH as u32,
            max_subgroup_size: hw::isa::SIMD_WIDTH as u32,
            max_compute_workgroup_subgroups: limits.max_compute_work_group_invocations
                / hw::isa::SIMD_WIDTH as u32,
            required_subgroup_size_stages: vk::ShaderStageFlags::COMPUTE,
            // Texel buffer views start at 16-byte multiples (buffer_view.rs) whatever the
            // texel size.
            storage_texel_buffer_offset_alignment_bytes: crate::buffer_view::OFFSET_ALIGNMENT,
            uniform_texel_buffer_offset_alignment_bytes: crate::buffer_view::OFFSET_ALIGNMENT,
            // Buffers are limited by the heap only (buffer.rs).
            max_buffer_size: dev.heap_size,
            // Inline uniform blocks sit in set memory and are read as uniform buffers
            // (descriptor_set_layout.rs); the limits are software ones, and update-after-bind
            // layouts hold as many, since set memory is read when the GPU runs.
            max_inline_uniform_block_size:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_BLOCK_SIZE,
            max_per_stage_descriptor_inline_uniform_blocks:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_BLOCKS,
            max_per_stage_descriptor_update_after_bind_inline_uniform_blocks:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_BLOCKS,
            max_descriptor_set_inline_uniform_blocks:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_BLOCKS,
            max_descriptor_set_update_after_bind_inline_uniform_blocks:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_BLOCKS,
            max_inline_uniform_total_size:
                crate::descriptor_set_layout::MAX_INLINE_UNIFORM_TOTAL_SIZE,
            ..Default::default()
        },
        push_descriptor: vk::PhysicalDevicePushDescriptorPropertiesKHR {
            max_push_descriptors: crate::cmd_buffer::push_descriptor::MAX_PUSH_DESCRIPTORS,
            ..Default::default()
        },
        custom_border_color: vk::PhysicalDeviceCustomBorderColorPropertiesEXT {
            max_custom_border_color_samplers: crate::sampler::MAX_CUSTOM_BORDER_SAMPLERS,
            ..Default::default()
        },
        // The fetch divides by any 32-bit divisor.
        divisor: vk::PhysicalDeviceVertexAttributeDivisorPropertiesEXT {
            max_vertex_attrib_divisor: u32::MAX,
            ..Default::default()
        },
        line_rasterization: vk::PhysicalDeviceLineRasterizationPropertiesEXT {
            line_sub_pixel_precision_bits: limits.sub_pixel_precision_bits,
            ..Default::default()
        },
        // The mode is a pipeline's (each has its own CF bindings); transform feedback
        // writes fans as Vulkan's (i + 1, i + 2, 0) in either mode.
        provoking_vertex: vk::PhysicalDeviceProvokingVertexPropertiesEXT {
            provoking_vertex_mode_per_pipeline: vk::TRUE,
            transform_feedback_preserves_triangle_fan_provoking_vertex: vk::FALSE,
            ..Default::default()
        },
        // A pipeline's topology class changes nothing in its shaders or words that a draw's
        // topology does not set again (cmd_buffer/draw.rs emits the object type per draw).
        dynamic_state3: vk::PhysicalDeviceExtendedDynamicState3PropertiesEXT {
            dynamic_primitive_topology_unrestricted: vk::TRUE,
            ..Default::default()
        },
        // The capture variant stores each vertex's outputs with ordinary stores
        // (compiler passes::lower_xfb): sizes are the root table's 32-bit words; queries
        // count in the capture draws; vkCmdDrawIndirectByteCountEXT computes its count on
        // the GPU (cmd_buffer/xfb.rs). One stream: there is no geometry stage.
        transform_feedback: vk::PhysicalDeviceTransformFeedbackPropertiesEXT {
            max_transform_feedback_streams: 1,
            max_transform_feedback_buffers: compiler::ir::XFB_BUFFERS as u32,
            max_transform_feedback_buffer_size: u64::from(u32::MAX),
            max_transform_feedback_stream_data_size: 512,
            max_transform_feedback_buffer_data_size: 512,
            max_transform_feedback_buffer_data_stride: 2048,
            transform_feedback_queries: vk::TRUE,
            transform_feedback_streams_lines_triangles: vk::FALSE,
            transform_feedback_rasterization_stream_select: vk::FALSE,
            transform_feedback_draw: vk::TRUE,
            ..Default::default()
        },
        robustness2: vk::PhysicalDeviceRobustness2PropertiesEXT {
            robust_storage_buffer_access_size_alignment: 4,
            robust_uniform_buffer_access_size_alignment: 4,
            ..Default::default()
        },
        // Each draw of a multi-draw command is one record in upload memory.
        multi_draw: vk::PhysicalDeviceMultiDrawPropertiesEXT {
            max_multi_draw_count: crate::cmd_buffer::multi_draw::MAX_MULTI_DRAW_COUNT,
            ..Default::default()
        },
    }
}

/// Declares the property structures agx4 answers: each member is copied from the same-named
/// member (or the one named after `=`) of one part of the model.
macro_rules! property_structs {
    ($($ty:ident from $src:ident { $($field:ident $(= $from:ident)?),* $(,)? })*) => {
        /// Writes every member of a property structure agx4 knows; structures of other types
        /// are left alone.
        ///
        /// # Safety
        /// `s` points to a writable structure of the type its sType names.
        pub unsafe fn write(p: &Properties, s: *mut vk::BaseOutStructure<'_>) {
            $(
                // SAFETY: guaranteed by the caller.
                if unsafe { (*s).s_type } == vk::$ty::STRUCTURE_TYPE {
                    // SAFETY: the sType names this structure type.
                    let out = unsafe { &mut *s.cast::<vk::$ty<'_>>() };
                    $(out.$field = property_structs!(@src p.$src, $field $(, $from)?);)*
                    return;
                }
            )*
        }
    };
    (@src $p:ident.$src:ident, $field:ident) => { $p.$src.$field };
    (@src $p:ident.$src:ident, $field:ident, $from:ident) => { $p.$src.$from };
}

property_structs! {
    PhysicalDeviceVulkan11Properties from v11 { device_uuid, driver_uuid, device_luid, device_node_mask, device_luid_valid, subgroup_size, subgroup_supported_stages, subgroup_supported_operations, subgroup_quad_operations_in_all_stages, point_clipping_behavior, max_multiview_view_count, max_multiview_instance_index, protected_no_fault, max_per_set_descriptors, max_memory_allocation_size }
    PhysicalDeviceIDProperties from v11 { device_uuid, driver_uuid, device_luid, device_node_mask, device_luid_valid }
    PhysicalDeviceSubgroupProperties from v11 { subgroup_size, supported_stages = subgroup_supported_stages, supported_operations = subgroup_supported_operations, quad_operations_in_all_stages = subgroup_quad_operations_in_all_stages }
    PhysicalDevicePointClippingProperties from v11 { point_clipping_behavior }
    PhysicalDeviceMultiviewProperties from v11 { max_multiview_view_count, max_multiview_instance_index }
    PhysicalDeviceProtectedMemoryProperties from v11 { protected_no_fault }
    PhysicalDeviceMaintenance3Properties from v11 { max_per_set_descriptors, max_memory_allocation_size }
    PhysicalDeviceVulkan12Properties from v12 { driver_id, driver_name, driver_info, conformance_version, denorm_behavior_independence, rounding_mode_independence, shader_signed_zero_inf_nan_preserve_float16, shader_signed_zero_inf_nan_preserve_float32, shader_signed_zero_inf_nan_preserve_float64, shader_denorm_preserve_float16, shader_denorm_preserve_float32, shader_denorm_preserve_float64, shader_denorm_flush_to_zero_float16, shader_denorm_flush_to_zero_float32, shader_denorm_flush_to_zero_float64, shader_rounding_mode_rte_float16, shader_rounding_mode_rte_float32, shader_rounding_mode_rte_float64, shader_rounding_mode_rtz_float16, shader_rounding_mode_rtz_float32, shader_rounding_mode_rtz_float64, max_update_after_bind_descriptors_in_all_pools, shader_uniform_buffer_array_non_uniform_indexing_native, shader_sampled_image_array_non_uniform_indexing_native, shader_storage_buffer_array_non_uniform_indexing_native, shader_storage_image_array_non_uniform_indexing_native, shader_input_attachment_array_non_uniform_indexing_native, robust_buffer_access_update_after_bind, quad_divergent_implicit_lod, max_per_stage_descriptor_update_after_bind_samplers, max_per_stage_descriptor_update_after_bind_uniform_buffers, max_per_stage_descriptor_update_after_bind_storage_buffers, max_per_stage_descriptor_update_after_bind_sampled_images, max_per_stage_descriptor_update_after_bind_storage_images, max_per_stage_descriptor_update_after_bind_input_attachments, max_per_stage_update_after_bind_resources, max_descriptor_set_update_after_bind_samplers, max_descriptor_set_update_after_bind_uniform_buffers, max_descriptor_set_update_after_bind_uniform_buffers_dynamic, max_descriptor_set_update_after_bind_storage_buffers, max_descriptor_set_update_after_bind_storage_buffers_dynamic, max_descriptor_set_update_after_bind_sampled_images, max_descriptor_set_update_after_bind_storage_images, max_descriptor_set_update_after_bind_input_attachments, supported_depth_resolve_modes, supported_stencil_resolve_modes, independent_resolve_none, independent_resolve, filter_minmax_single_component_formats, filter_minmax_image_component_mapping, max_timeline_semaphore_value_difference, framebuffer_integer_color_sample_counts }
    PhysicalDeviceDriverProperties from v12 { driver_id, driver_name, driver_info, conformance_version }
    PhysicalDeviceFloatControlsProperties from v12 { denorm_behavior_independence, rounding_mode_independence, shader_signed_zero_inf_nan_preserve_float16, shader_signed_zero_inf_nan_preserve_float32, shader_signed_zero_inf_nan_preserve_float64, shader_denorm_preserve_float16, shader_denorm_preserve_float32, shader_denorm_preserve_float64, shader_denorm_flush_to_zero_float16, shader_denorm_flush_to_zero_float32, shader_denorm_flush_to_zero_float64, shader_rounding_mode_rte_float16, shader_rounding_mode_rte_float32, shader_rounding_mode_rte_float64, shader_rounding_mode_rtz_float16, shader_rounding_mode_rtz_float32, shader_rounding_mode_rtz_float64 }
    PhysicalDeviceDescriptorIndexingProperties from v12 { max_update_after_bind_descriptors_in_all_pools, shader_uniform_buffer_array_non_uniform_indexing_native, shader_sampled_image_array_non_uniform_indexing_native, shader_storage_buffer_array_non_uniform_indexing_native, shader_storage_image_array_non_uniform_indexing_native, shader_input_attachment_array_non_uniform_indexing_native, robust_buffer_access_update_after_bind, quad_divergent_implicit_lod, max_per_stage_descriptor_update_after_bind_samplers, max_per_stage_descriptor_update_after_bind_uniform_buffers, max_per_stage_descriptor_update_after_bind_storage_buffers, max_per_stage_descriptor_update_after_bind_sampled_images, max_per_stage_descriptor_update_after_bind_storage_images, max_per_stage_descriptor_update_after_bind_input_attachments, max_per_stage_update_after_bind_resources, max_descriptor_set_update_after_bind_samplers, max_descriptor_set_update_after_bind_uniform_buffers, max_descriptor_set_update_after_bind_uniform_buffers_dynamic, max_descriptor_set_update_after_bind_storage_buffers, max_descriptor_set_update_after_bind_storage_buffers_dynamic, max_descriptor_set_update_after_bind_sampled_images, max_descriptor_set_update_after_bind_storage_images, max_descriptor_set_update_after_bind_input_attachments }
    PhysicalDeviceDepthStencilResolveProperties from v12 { supported_depth_resolve_modes, supported_stencil_resolve_modes, independent_resolve_none, independent_resolve }
    PhysicalDeviceSamplerFilterMinmaxProperties from v12 { filter_minmax_single_component_formats, filter_minmax_image_component_mapping }
    PhysicalDeviceTimelineSemaphoreProperties from v12 { max_timeline_semaphore_value_difference }
    PhysicalDeviceVulkan13Properties from v13 { min_subgroup_size, max_subgroup_size, max_compute_workgroup_subgroups, required_subgroup_size_stages, max_inline_uniform_block_size, max_per_stage_descriptor_inline_uniform_blocks, max_per_stage_descriptor_update_after_bind_inline_uniform_blocks, max_descriptor_set_inline_uniform_blocks, max_descriptor_set_update_after_bind_inline_uniform_blocks, max_inline_uniform_total_size, integer_dot_product8_bit_unsigned_accelerated, integer_dot_product8_bit_signed_accelerated, integer_dot_product8_bit_mixed_signedness_accelerated, integer_dot_product4x8_bit_packed_unsigned_accelerated, integer_dot_product4x8_bit_packed_signed_accelerated, integer_dot_product4x8_bit_packed_mixed_signedness_accelerated, integer_dot_product16_bit_unsigned_accelerated, integer_dot_product16_bit_signed_accelerated, integer_dot_product16_bit_mixed_signedness_accelerated, integer_dot_product32_bit_unsigned_accelerated, integer_dot_product32_bit_signed_accelerated, integer_dot_product32_bit_mixed_signedness_accelerated, integer_dot_product64_bit_unsigned_accelerated, integer_dot_product64_bit_signed_accelerated, integer_dot_product64_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating8_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating8_bit_signed_accelerated, integer_dot_product_accumulating_saturating8_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_unsigned_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_signed_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating16_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating16_bit_signed_accelerated, integer_dot_product_accumulating_saturating16_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating32_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating32_bit_signed_accelerated, integer_dot_product_accumulating_saturating32_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating64_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating64_bit_signed_accelerated, integer_dot_product_accumulating_saturating64_bit_mixed_signedness_accelerated, storage_texel_buffer_offset_alignment_bytes, storage_texel_buffer_offset_single_texel_alignment, uniform_texel_buffer_offset_alignment_bytes, uniform_texel_buffer_offset_single_texel_alignment, max_buffer_size }
    PhysicalDeviceSubgroupSizeControlProperties from v13 { min_subgroup_size, max_subgroup_size, max_compute_workgroup_subgroups, required_subgroup_size_stages }
    PhysicalDeviceInlineUniformBlockProperties from v13 { max_inline_uniform_block_size, max_per_stage_descriptor_inline_uniform_blocks, max_per_stage_descriptor_update_after_bind_inline_uniform_blocks, max_descriptor_set_inline_uniform_blocks, max_descriptor_set_update_after_bind_inline_uniform_blocks }
    PhysicalDeviceShaderIntegerDotProductProperties from v13 { integer_dot_product8_bit_unsigned_accelerated, integer_dot_product8_bit_signed_accelerated, integer_dot_product8_bit_mixed_signedness_accelerated, integer_dot_product4x8_bit_packed_unsigned_accelerated, integer_dot_product4x8_bit_packed_signed_accelerated, integer_dot_product4x8_bit_packed_mixed_signedness_accelerated, integer_dot_product16_bit_unsigned_accelerated, integer_dot_product16_bit_signed_accelerated, integer_dot_product16_bit_mixed_signedness_accelerated, integer_dot_product32_bit_unsigned_accelerated, integer_dot_product32_bit_signed_accelerated, integer_dot_product32_bit_mixed_signedness_accelerated, integer_dot_product64_bit_unsigned_accelerated, integer_dot_product64_bit_signed_accelerated, integer_dot_product64_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating8_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating8_bit_signed_accelerated, integer_dot_product_accumulating_saturating8_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_unsigned_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_signed_accelerated, integer_dot_product_accumulating_saturating4x8_bit_packed_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating16_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating16_bit_signed_accelerated, integer_dot_product_accumulating_saturating16_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating32_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating32_bit_signed_accelerated, integer_dot_product_accumulating_saturating32_bit_mixed_signedness_accelerated, integer_dot_product_accumulating_saturating64_bit_unsigned_accelerated, integer_dot_product_accumulating_saturating64_bit_signed_accelerated, integer_dot_product_accumulating_saturating64_bit_mixed_signedness_accelerated }
    PhysicalDeviceTexelBufferAlignmentProperties from v13 { storage_texel_buffer_offset_alignment_bytes, storage_texel_buffer_offset_single_texel_alignment, uniform_texel_buffer_offset_alignment_bytes, uniform_texel_buffer_offset_single_texel_alignment }
    PhysicalDeviceMaintenance4Properties from v13 { max_buffer_size }
    PhysicalDevicePushDescriptorPropertiesKHR from push_descriptor { max_push_descriptors }
    PhysicalDeviceCustomBorderColorPropertiesEXT from custom_border_color { max_custom_border_color_samplers }
    PhysicalDeviceVertexAttributeDivisorPropertiesEXT from divisor { max_vertex_attrib_divisor }
    PhysicalDeviceLineRasterizationPropertiesEXT from line_rasterization { line_sub_pixel_precision_bits }
    PhysicalDeviceProvokingVertexPropertiesEXT from provoking_vertex { provoking_vertex_mode_per_pipeline, transform_feedback_preserves_triangle_fan_provoking_vertex }
    PhysicalDeviceMultiDrawPropertiesEXT from multi_draw { max_multi_draw_count }
    PhysicalDeviceRobustness2PropertiesEXT from robustness2 { robust_storage_buffer_access_size_alignment, robust_uniform_buffer_access_size_alignment }
    PhysicalDeviceExtendedDynamicState3PropertiesEXT from dynamic_state3 { dynamic_primitive_topology_unrestricted }
    PhysicalDeviceTransformFeedbackPropertiesEXT from transform_feedback { max_transform_feedback_streams, max_transform_feedback_buffers, max_transform_feedback_buffer_size, max_transform_feedback_stream_data_size, max_transform_feedback_buffer_data_size, max_transform_feedback_buffer_data_stride, transform_feedback_queries, transform_feedback_streams_lines_triangles, transform_feedback_rasterization_stream_select, transform_feedback_draw }
}
