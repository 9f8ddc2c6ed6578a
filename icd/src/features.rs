//! What agx4 supports, feature by feature. One model (the Vulkan 1.0 to 1.3 feature structures
//! and the extension-only ones) answers every feature structure of a `pNext` chain, so the
//! promoted structures can never disagree with their Vulkan 1.x aggregates, and device creation
//! checks what it is asked for against the same model.

use ash::vk;
use ash::vk::TaggedStructure;

/// Everything agx4 supports. A member not set in [`supported`] is false.
#[derive(Default)]
pub struct Features {
    pub v10: vk::PhysicalDeviceFeatures,
    pub v11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub v12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub v13: vk::PhysicalDeviceVulkan13Features<'static>,
    pub custom_border_color: vk::PhysicalDeviceCustomBorderColorFeaturesEXT<'static>,
    pub executable_properties: vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR<'static>,
    pub feedback_loop: vk::PhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT<'static>,
    pub dynamic_state: vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT<'static>,
    pub dynamic_state2: vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT<'static>,
    pub dynamic_state3: vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'static>,
    pub list_restart: vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT<'static>,
    pub index_uint8: vk::PhysicalDeviceIndexTypeUint8FeaturesEXT<'static>,
    pub formats_4444: vk::PhysicalDevice4444FormatsFeaturesEXT<'static>,
    pub depth_clip: vk::PhysicalDeviceDepthClipEnableFeaturesEXT<'static>,
    pub divisor: vk::PhysicalDeviceVertexAttributeDivisorFeaturesEXT<'static>,
    pub vertex_input_dynamic_state: vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT<'static>,
    pub line_rasterization: vk::PhysicalDeviceLineRasterizationFeaturesEXT<'static>,
    pub provoking_vertex: vk::PhysicalDeviceProvokingVertexFeaturesEXT<'static>,
    pub conditional_rendering: vk::PhysicalDeviceConditionalRenderingFeaturesEXT<'static>,
    pub transform_feedback: vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'static>,
    pub primitives_generated: vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT<'static>,
    pub multi_draw: vk::PhysicalDeviceMultiDrawFeaturesEXT<'static>,
    pub robustness2: vk::PhysicalDeviceRobustness2FeaturesEXT<'static>,
    pub non_seamless_cube_map: vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT<'static>,
    pub border_color_swizzle: vk::PhysicalDeviceBorderColorSwizzleFeaturesEXT<'static>,
    pub image_2d_view_of_3d: vk::PhysicalDeviceImage2DViewOf3DFeaturesEXT<'static>,
    pub color_write_enable: vk::PhysicalDeviceColorWriteEnableFeaturesEXT<'static>,
}

/// The features agx4 supports on a device of `backend` and `generation`. On a generation
/// whose machine code or command streams agx4 cannot produce (G16 today:
/// `PhysicalDevice::runs_shaders`), no shader runs, so it supports none.
pub fn supported_on(backend: kmd_iface::Backend, generation: hw::Generation) -> Features {
    if !crate::physical_device::runs_shaders(generation) {
        return Features::default();
    }
    let mut f = supported();
    if backend != kmd_iface::Backend::Sim {
        // Real G13 loads and stores carry a coherence bit agx4 does not set yet.
        f.v12.vulkan_memory_model = vk::FALSE;
        f.v12.vulkan_memory_model_device_scope = vk::FALSE;
        // Real G13 texture loads give the out-of-bounds texel for coordinates past the edges
        // but not for layers and levels past the view's (Mesa moves those to an x past the
        // edge in the shader); agx4's shaders do not do that yet, and the simulated texture
        // unit zeroes them all.
        f.v13.robust_image_access = vk::FALSE;
        f.robustness2.robust_image_access2 = vk::FALSE;
        // Real G13 runs the late test of a punch-through pass at the shader's sample_mask
        // (Mesa appends one to shaders with side effects); agx4's shaders do not yet.
        f.v10.fragment_stores_and_atomics = vk::FALSE;
    }
    f
}

/// The highest Vulkan 1.x minor version, at most the advertised one, whose required features
/// are all in `f`. Real G13 lacks two that Vulkan 1.3 requires (the memory model and robust
/// image access, see `supported_on`), so a device there reports Vulkan 1.2.
pub fn api_minor_met(f: &Features) -> u32 {
    let v12 = f.v12.subgroup_broadcast_dynamic_id != 0
        && f.v12.shader_subgroup_extended_types != 0
        && f.v12.imageless_framebuffer != 0
        && f.v12.uniform_buffer_standard_layout != 0
        && f.v12.separate_depth_stencil_layouts != 0
        && f.v12.host_query_reset != 0
        && f.v12.timeline_semaphore != 0;
    let v13 = f.v13.robust_image_access != 0
        && f.v13.inline_uniform_block != 0
        && f.v13.pipeline_creation_cache_control != 0
        && f.v13.private_data != 0
        && f.v13.shader_demote_to_helper_invocation != 0
        && f.v13.shader_terminate_invocation != 0
        && f.v13.subgroup_size_control != 0
        && f.v13.compute_full_subgroups != 0
        && f.v13.synchronization2 != 0
        && f.v13.shader_zero_initialize_workgroup_memory != 0
        && f.v13.dynamic_rendering != 0
        && f.v13.shader_integer_dot_product != 0
        && f.v13.maintenance4 != 0
        && f.v12.vulkan_memory_model != 0
        && f.v12.vulkan_memory_model_device_scope != 0
        && f.v12.buffer_device_address != 0;
    // Vulkan 1.1 requires multiview.
    let v11 = f.v11.multiview != 0;
    let met = match (v11, v12, v13) {
        (true, true, true) => 3,
        (true, true, false) => 2,
        (true, false, _) => 1,
        _ => 0,
    };
    met.min(crate::advertised::API_MINOR)
}

/// The features agx4 supports on the simulated device.
pub fn supported() -> Features {
    Features {
        v10: v10(),
        v11: vk::PhysicalDeviceVulkan11Features {
            // Halfword loads and stores of buffers, uniform halves for push constants.
            // 16-bit stage inputs and outputs are not done.
            storage_buffer16_bit_access: vk::TRUE,
            uniform_and_storage_buffer16_bit_access: vk::TRUE,
            storage_push_constant16: vk::TRUE,
            // Views are render commands of their own; geometry and tessellation shaders do not
            // exist here.
            multiview: vk::TRUE,
            // BaseVertex, BaseInstance and DrawIndex are words of each draw's root table;
            // indirect draws get the first two from their arguments by a GPU copy
            // (cmd_buffer/draw.rs).
            shader_draw_parameters: vk::TRUE,
            ..Default::default()
        },
        v12: vk::PhysicalDeviceVulkan12Features {
            // Byte loads and stores; 8-bit values sit zero-extended in register halves.
            storage_buffer8_bit_access: vk::TRUE,
            uniform_and_storage_buffer8_bit_access: vk::TRUE,
            storage_push_constant8: vk::TRUE,
            shader_float16: vk::TRUE,
            shader_int8: vk::TRUE,
            // Subgroup operations on 8/16/64-bit types: 16-bit values reduce in the
            // hardware's 16-bit simd_reduce/prefix forms, 8-bit and 64-bit ones (and IMul)
            // fold shuffled lanes (compiler passes::lower_subgroups).
            shader_subgroup_extended_types: vk::TRUE,
            // A broadcast from a non-constant id reads every lane and selects one (the
            // register-indexed shuffle needs the whole quad to agree on the index).
            subgroup_broadcast_dynamic_id: vk::TRUE,
            sampler_mirror_clamp_to_edge: vk::TRUE,
            // The draws' records are copied with those past the count zeroed
            // (cmd_buffer::conditional).
            draw_indirect_count: vk::TRUE,
            imageless_framebuffer: vk::TRUE,
            // Query memory is host-visible; vkResetQueryPool writes it (query_pool.rs).
            host_query_reset: vk::TRUE,
            // Image layouts change nothing in memory here, so depth and stencil may be in
            // different ones.
            separate_depth_stencil_layouts: vk::TRUE,
            timeline_semaphore: vk::TRUE,
            // The compiler takes the declared Offset, ArrayStride and MatrixStride, and loads
            // and stores work at any 4-byte alignment.
            scalar_block_layout: vk::TRUE,
            uniform_buffer_standard_layout: vk::TRUE,
            // A buffer's address is where it is bound (device_address.rs). Addresses cannot be
            // replayed (the VA allocator promises no address twice); a group has one device.
            buffer_device_address: vk::TRUE,
            // Memory is coherent at every scope on the simulated GPU; on real G13 the loads
            // and stores would need their coherent bit (set in `supported_on`).
            vulkan_memory_model: vk::TRUE,
            vulkan_memory_model_device_scope: vk::TRUE,
            // Descriptor indexing: each lane reads its own descriptors from set memory, so
            // dynamically and non-uniformly indexed arrays need no lowering (compiler
            // frontend); shaders read set memory when they run, so descriptors may be written
            // after binding, while unused, or never (descriptor_set_layout.rs); a
            // variable-count binding is sized per set at allocation (descriptor_pool.rs).
            // Input attachments are not indexed non-uniformly: a fragment shader reads them
            // through texture state loaded from the subpass, not from set memory.
            descriptor_indexing: vk::TRUE,
            shader_uniform_texel_buffer_array_dynamic_indexing: vk::TRUE,
            shader_storage_texel_buffer_array_dynamic_indexing: vk::TRUE,
            shader_sampled_image_array_non_uniform_indexing: vk::TRUE,
            shader_storage_buffer_array_non_uniform_indexing: vk::TRUE,
            shader_uniform_texel_buffer_array_non_uniform_indexing: vk::TRUE,
            shader_storage_texel_buffer_array_non_uniform_indexing: vk::TRUE,
            shader_storage_image_array_non_uniform_indexing: vk::TRUE,
            shader_uniform_buffer_array_non_uniform_indexing: vk::TRUE,
            descriptor_binding_uniform_buffer_update_after_bind: vk::TRUE,
            descriptor_binding_sampled_image_update_after_bind: vk::TRUE,
            descriptor_binding_storage_image_update_after_bind: vk::TRUE,
            descriptor_binding_storage_buffer_update_after_bind: vk::TRUE,
            descriptor_binding_uniform_texel_buffer_update_after_bind: vk::TRUE,
            descriptor_binding_storage_texel_buffer_update_after_bind: vk::TRUE,
            descriptor_binding_update_unused_while_pending: vk::TRUE,
            descriptor_binding_partially_bound: vk::TRUE,
            descriptor_binding_variable_descriptor_count: vk::TRUE,
            runtime_descriptor_array: vk::TRUE,
            ..Default::default()
        },
        v13: vk::PhysicalDeviceVulkan13Features {
            // Pipelines that must not be compiled report VK_PIPELINE_COMPILE_REQUIRED unless
            // their pipeline cache holds them (pipeline.rs).
            pipeline_creation_cache_control: vk::TRUE,
            // Slots keep their values themselves (private_data.rs).
            private_data: vk::TRUE,
            // Demoted invocations lose their coverage and run on as helpers (compiler g13 isel).
            shader_demote_to_helper_invocation: vk::TRUE,
            synchronization2: vk::TRUE,
            dynamic_rendering: vk::TRUE,
            // OpTerminateInvocation discards and returns, like OpKill.
            shader_terminate_invocation: vk::TRUE,
            // Invocations share the zeroing and meet at a barrier (frontend::shared_init).
            shader_zero_initialize_workgroup_memory: vk::TRUE,
            // Lowered to multiplies and adds (frontend::dot_product).
            shader_integer_dot_product: vk::TRUE,
            // 32 is the only subgroup size; a workgroup fills SIMD groups in local-index order,
            // so a local size x that is a multiple of 32 gives full subgroups.
            subgroup_size_control: vk::TRUE,
            compute_full_subgroups: vk::TRUE,
            // Out-of-bounds image and texel buffer loads read the zero texel (the texture
            // unit; passes::lower_texel_buffers), stores are dropped (the PBE) and so are
            // atomics (passes::lower_image_atomics). Always on: nothing depends on the feature.
            robust_image_access: vk::TRUE,
            // Device-level memory requirements come from the same code as the objects'
            // (buffer.rs, image.rs); pipelines and command buffers copy what they need from a
            // pipeline layout; LocalSizeId is read by the compiler front end; longer outputs
            // than the next stage's inputs only leave components unread.
            maintenance4: vk::TRUE,
            // Inline uniform blocks live in set memory behind a uniform buffer descriptor
            // (descriptor_set_layout.rs).
            inline_uniform_block: vk::TRUE,
            descriptor_binding_inline_uniform_block_update_after_bind: vk::TRUE,
            ..Default::default()
        },
        // The border table holds the colour's raw words; the texture unit reads them by the
        // view's format (sampler.rs, render-abi section 7).
        custom_border_color: vk::PhysicalDeviceCustomBorderColorFeaturesEXT {
            custom_border_colors: vk::TRUE,
            custom_border_color_without_format: vk::TRUE,
            ..Default::default()
        },
        executable_properties: vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR {
            pipeline_executable_info: vk::TRUE,
            ..Default::default()
        },
        // A feedback-loop barrier stores the attachments, which textures then read
        // (cmd_buffer::render::barrier).
        feedback_loop: vk::PhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT {
            attachment_feedback_loop_layout: vk::TRUE,
            ..Default::default()
        },
        // Draws pick each state from the command buffer or the pipeline
        // (cmd_buffer/dynamic_state.rs).
        dynamic_state: vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT {
            extended_dynamic_state: vk::TRUE,
            ..Default::default()
        },
        // Logic ops are compiled into the fragment shader: a draw picks the pipeline's
        // variant for its logic op (pipeline_blend.rs). There is no tessellation, so no
        // dynamic patch control points.
        dynamic_state2: vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT {
            extended_dynamic_state2: vk::TRUE,
            extended_dynamic_state2_logic_op: vk::TRUE,
            ..Default::default()
        },
        // The states that are per-draw words: the PPP Fragment Face word's polygon mode, the
        // Cull word's depth clamp, depth clip and line MSAA bits, and the CF bindings copy
        // for the provoking vertex (cmd_buffer/dynamic_state.rs). Blend enables, equations,
        // write masks and the logic op enable are compiled into the fragment shader's end,
        // the sample mask and alpha to coverage/one into its start: a draw picks the
        // pipeline's variant for them (pipeline_blend.rs). The rasterization sample count
        // shapes the tilebuffer and stays static. Stippled lines are not offered, so neither
        // is their enable.
        dynamic_state3: vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT {
            extended_dynamic_state3_polygon_mode: vk::TRUE,
            extended_dynamic_state3_depth_clamp_enable: vk::TRUE,
            extended_dynamic_state3_depth_clip_enable: vk::TRUE,
            extended_dynamic_state3_provoking_vertex_mode: vk::TRUE,
            extended_dynamic_state3_line_rasterization_mode: vk::TRUE,
            extended_dynamic_state3_color_blend_enable: vk::TRUE,
            extended_dynamic_state3_color_blend_equation: vk::TRUE,
            extended_dynamic_state3_color_write_mask: vk::TRUE,
            extended_dynamic_state3_logic_op_enable: vk::TRUE,
            extended_dynamic_state3_sample_mask: vk::TRUE,
            extended_dynamic_state3_alpha_to_coverage_enable: vk::TRUE,
            extended_dynamic_state3_alpha_to_one_enable: vk::TRUE,
            ..Default::default()
        },
        // A disabled attachment is compiled as a zero write mask (pipeline_blend.rs).
        color_write_enable: vk::PhysicalDeviceColorWriteEnableFeaturesEXT {
            color_write_enable: vk::TRUE,
            ..Default::default()
        },
        // The VDM restarts list topologies too: a restart drops the incomplete primitive
        // (hw gpu/render/assembly.rs). No tessellation, so no patch lists.
        list_restart: vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT {
            primitive_topology_list_restart: vk::TRUE,
            ..Default::default()
        },
        // The VDM reads 8-bit indices natively.
        index_uint8: vk::PhysicalDeviceIndexTypeUint8FeaturesEXT {
            index_type_uint8: vk::TRUE,
            ..Default::default()
        },
        // A swizzle of the hardware's 4444 format, sampled and blitted from.
        formats_4444: vk::PhysicalDevice4444FormatsFeaturesEXT {
            format_a4r4g4b4: vk::TRUE,
            format_a4b4g4r4: vk::TRUE,
            ..Default::default()
        },
        // The PPP Cull word has a depth clip bit apart from depth clamp.
        depth_clip: vk::PhysicalDeviceDepthClipEnableFeaturesEXT {
            depth_clip_enable: vk::TRUE,
            ..Default::default()
        },
        // The vertex shader's fetch divides the instance (compiler lower_vertex_input).
        divisor: vk::PhysicalDeviceVertexAttributeDivisorFeaturesEXT {
            vertex_attribute_instance_rate_divisor: vk::TRUE,
            vertex_attribute_instance_rate_zero_divisor: vk::TRUE,
            ..Default::default()
        },
        // A pipeline that makes the layout dynamic compiles its vertex shader's fetch per
        // layout at draw time, once per layout (cmd_buffer/vertex_input.rs).
        vertex_input_dynamic_state: vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT {
            vertex_input_dynamic_state: vk::TRUE,
            ..Default::default()
        },
        // Lines cover the pixel nearest the segment in each column (row) of their major axis,
        // `width` pixels thick along the minor axis (sim_gpu::raster::line): Bresenham lines,
        // which are also the default mode. Rectangular and smooth lines and stipples are not
        // modelled.
        line_rasterization: vk::PhysicalDeviceLineRasterizationFeaturesEXT {
            bresenham_lines: vk::TRUE,
            ..Default::default()
        },
        // The PPP Cull word and the CF bindings name the vertex flat varyings come from
        // (pipeline_graphics::flat_vertex). Transform feedback writes Vulkan's first-vertex
        // order whatever the mode (transformFeedbackPreservesProvokingVertex is off).
        provoking_vertex: vk::PhysicalDeviceProvokingVertexFeaturesEXT {
            provoking_vertex_last: vk::TRUE,
            ..Default::default()
        },
        // Guarded draws and dispatches become indirect ones whose counts a meta shader
        // copies or zeroes (cmd_buffer::conditional). Secondaries do not inherit a
        // condition: their guarded copies are recorded before they know of one.
        conditional_rendering: vk::PhysicalDeviceConditionalRenderingFeaturesEXT {
            conditional_rendering: vk::TRUE,
            ..Default::default()
        },
        // Every buffer access is checked against its descriptor's exact range (reads past it
        // give zero, writes are dropped), image accesses against the view, and a null
        // descriptor has a range and size of zero (descriptor_pool.rs).
        robustness2: vk::PhysicalDeviceRobustness2FeaturesEXT {
            robust_buffer_access2: vk::TRUE,
            robust_image_access2: vk::TRUE,
            null_descriptor: vk::TRUE,
            ..Default::default()
        },
        multi_draw: vk::PhysicalDeviceMultiDrawFeaturesEXT {
            multi_draw: vk::TRUE,
            ..Default::default()
        },
        // Counted from each draw's arguments by a meta shader (cmd_buffer/primgen.rs), so
        // rasterization does not matter; one stream, as for transform feedback.
        primitives_generated: vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT {
            primitives_generated_query: vk::TRUE,
            primitives_generated_query_with_rasterizer_discard: vk::TRUE,
            ..Default::default()
        },
        // Captured by a draw of the vertex shader's capture variant before each draw
        // (cmd_buffer/xfb.rs). No geometry stage, so one stream.
        transform_feedback: vk::PhysicalDeviceTransformFeedbackFeaturesEXT {
            transform_feedback: vk::TRUE,
            geometry_streams: vk::FALSE,
            ..Default::default()
        },
        // The sampler's seamful cube map bit, which the texture unit honours (sampler.rs).
        non_seamless_cube_map: vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT {
            non_seamless_cube_map: vk::TRUE,
            ..Default::default()
        },
        // The texture unit swizzles a custom border as it shows the view's own components
        // (render-abi section 7), so the view's mapping reaches the border only through the
        // VkSamplerBorderColorComponentMappingCreateInfoEXT the sampler is given (sampler.rs);
        // a sampler cannot know the views it will meet, hence not from the image.
        border_color_swizzle: vk::PhysicalDeviceBorderColorSwizzleFeaturesEXT {
            border_color_swizzle: vk::TRUE,
            border_color_swizzle_from_image: vk::FALSE,
            ..Default::default()
        },
        // A 3D image's slices are laid out as array layers are (image.rs), so a 2D view of one
        // is a one-layer view (image_view.rs).
        image_2d_view_of_3d: vk::PhysicalDeviceImage2DViewOf3DFeaturesEXT {
            image2_d_view_of3_d: vk::TRUE,
            sampler2_d_view_of3_d: vk::TRUE,
            ..Default::default()
        },
    }
}

/// The Vulkan 1.0 features.
fn v10() -> vk::PhysicalDeviceFeatures {
    // Vulkan 1.0 requires robustBufferAccess of every implementation.
    // shaderInt64: the compiler splits 64-bit integers into 32-bit pairs (passes::lower_int64);
    // 64-bit atomics (shaderBufferInt64Atomics) are a separate feature and stay off.
    // independentBlend and logicOp: blending and logic ops are compiled into the fragment
    // shader per target. multiDrawIndirect: each indirect draw becomes its own Index List.
    vk::PhysicalDeviceFeatures {
        robust_buffer_access: vk::TRUE,
        shader_int64: vk::TRUE,
        // 16-bit integers live in register halves and use the ALU's 16-bit forms.
        shader_int16: vk::TRUE,
        independent_blend: vk::TRUE,
        logic_op: vk::TRUE,
        // The Location 0 Index 1 output is the SRC1 operand of target 0's compiled-in blend.
        dual_src_blend: vk::TRUE,
        multi_draw_indirect: vk::TRUE,
        // Index values are 32-bit all the way through the VDM.
        full_draw_index_uint32: vk::TRUE,
        geometry_shader: vk::TRUE,
        shader_tessellation_and_geometry_point_size: vk::TRUE,
        // Shaders of every stage reach memory the same way. A fragment shader with side
        // effects and no EarlyFragmentTests runs before the depth/stencil test on every
        // covered sample (compiler GraphicsPipelineBinary::late_tests); helper lanes and
        // discarded samples write nothing (per-sample shaders test their own sample:
        // compiler passes::guard_helper_writes).
        vertex_pipeline_stores_and_atomics: vk::TRUE,
        fragment_stores_and_atomics: vk::TRUE,
        wide_lines: vk::TRUE,
        // Points up to 511.9375 pixels (hw::g13::points); vertex shaders clamp the size.
        large_points: vk::TRUE,
        // Triangles can be drawn as their edges or vertices (Fragment Face polygon mode).
        fill_mode_non_solid: vk::TRUE,
        // The GPU counts every passing sample into the query (cmd_buffer::query).
        occlusion_query_precise: vk::TRUE,
        // A secondary's draws take the occlusion query the executing primary has active
        // (cmd_buffer/secondary.rs).
        inherited_queries: vk::TRUE,
        // Every statistic is counted by GPU work the driver adds: meta shaders from draw and
        // dispatch arguments, fragment shaders themselves (cmd_buffer/statistics.rs).
        pipeline_statistics_query: vk::TRUE,
        // The PPP Cull word turns off near/far clipping and clamps fragment depth to the
        // viewport's depth range (pipeline_graphics.rs, cmd_buffer/draw.rs).
        depth_clamp: vk::TRUE,
        // The depth bias array entry carries the clamp, which the GPU applies to the bias
        // (hw gpu/render/fragment.rs).
        depth_bias_clamp: vk::TRUE,
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
        // Buffer descriptors are read at set address + index * 16 with the index in a
        // register, and image descriptors bindlessly at set address + index * stride
        // (compiler lower_descriptors, lower_textures), so indices need not be
        // constant (glsl.opaque_type_indexing compute: no failures).
        shader_uniform_buffer_array_dynamic_indexing: vk::TRUE,
        shader_sampled_image_array_dynamic_indexing: vk::TRUE,
        shader_storage_buffer_array_dynamic_indexing: vk::TRUE,
        shader_storage_image_array_dynamic_indexing: vk::TRUE,
        // Clip distances are the clipper's user planes (Output Select enables them); cull
        // distances have no hardware test and are a test in the fragment shader, as in Mesa's
        // asahi driver (compiler graphics_api::add_cull_test).
        shader_clip_distance: vk::TRUE,
        shader_cull_distance: vk::TRUE,
        ..Default::default()
    }
}

/// Declares the feature structures agx4 answers: each member is copied from the same-named
/// member of one part of the model.
macro_rules! feature_structs {
    ($($ty:ident from $src:ident { $($field:ident),* $(,)? })*) => {
        /// Writes every member of a feature structure agx4 knows (the caller's structure may
        /// hold anything); structures of other types are left alone.
        ///
        /// # Safety
        /// `s` points to a writable structure of the type its sType names.
        pub unsafe fn write(f: &Features, s: *mut vk::BaseOutStructure<'_>) {
            $(
                // SAFETY: guaranteed by the caller.
                if unsafe { (*s).s_type } == vk::$ty::STRUCTURE_TYPE {
                    // SAFETY: the sType names this structure type.
                    let p = unsafe { &mut *s.cast::<vk::$ty<'_>>() };
                    $(p.$field = f.$src.$field;)*
                    return;
                }
            )*
        }

        /// The first feature a structure of a VkDeviceCreateInfo chain asks for that agx4
        /// does not support, as "Structure.member"; None for structures of other types.
        ///
        /// # Safety
        /// `s` is a structure of the type its sType names.
        pub unsafe fn first_unsupported(f: &Features, s: &vk::BaseInStructure<'_>) -> Option<&'static str> {
            $(
                if s.s_type == vk::$ty::STRUCTURE_TYPE {
                    // SAFETY: the sType names this structure type.
                    let p = unsafe { &*(s as *const vk::BaseInStructure<'_>).cast::<vk::$ty<'_>>() };
                    $(
                        if p.$field != vk::FALSE && f.$src.$field == vk::FALSE {
                            return Some(concat!(stringify!($ty), ".", stringify!($field)));
                        }
                    )*
                    return None;
                }
            )*
            None
        }
    };
}

feature_structs! {
    PhysicalDeviceVulkan11Features from v11 { storage_buffer16_bit_access, uniform_and_storage_buffer16_bit_access, storage_push_constant16, storage_input_output16, multiview, multiview_geometry_shader, multiview_tessellation_shader, variable_pointers_storage_buffer, variable_pointers, protected_memory, sampler_ycbcr_conversion, shader_draw_parameters }
    PhysicalDevice16BitStorageFeatures from v11 { storage_buffer16_bit_access, uniform_and_storage_buffer16_bit_access, storage_push_constant16, storage_input_output16 }
    PhysicalDeviceMultiviewFeatures from v11 { multiview, multiview_geometry_shader, multiview_tessellation_shader }
    PhysicalDeviceVariablePointersFeatures from v11 { variable_pointers_storage_buffer, variable_pointers }
    PhysicalDeviceProtectedMemoryFeatures from v11 { protected_memory }
    PhysicalDeviceSamplerYcbcrConversionFeatures from v11 { sampler_ycbcr_conversion }
    PhysicalDeviceShaderDrawParametersFeatures from v11 { shader_draw_parameters }
    PhysicalDeviceVulkan12Features from v12 { sampler_mirror_clamp_to_edge, draw_indirect_count, storage_buffer8_bit_access, uniform_and_storage_buffer8_bit_access, storage_push_constant8, shader_buffer_int64_atomics, shader_shared_int64_atomics, shader_float16, shader_int8, descriptor_indexing, shader_input_attachment_array_dynamic_indexing, shader_uniform_texel_buffer_array_dynamic_indexing, shader_storage_texel_buffer_array_dynamic_indexing, shader_uniform_buffer_array_non_uniform_indexing, shader_sampled_image_array_non_uniform_indexing, shader_storage_buffer_array_non_uniform_indexing, shader_storage_image_array_non_uniform_indexing, shader_input_attachment_array_non_uniform_indexing, shader_uniform_texel_buffer_array_non_uniform_indexing, shader_storage_texel_buffer_array_non_uniform_indexing, descriptor_binding_uniform_buffer_update_after_bind, descriptor_binding_sampled_image_update_after_bind, descriptor_binding_storage_image_update_after_bind, descriptor_binding_storage_buffer_update_after_bind, descriptor_binding_uniform_texel_buffer_update_after_bind, descriptor_binding_storage_texel_buffer_update_after_bind, descriptor_binding_update_unused_while_pending, descriptor_binding_partially_bound, descriptor_binding_variable_descriptor_count, runtime_descriptor_array, sampler_filter_minmax, scalar_block_layout, imageless_framebuffer, uniform_buffer_standard_layout, shader_subgroup_extended_types, separate_depth_stencil_layouts, host_query_reset, timeline_semaphore, buffer_device_address, buffer_device_address_capture_replay, buffer_device_address_multi_device, vulkan_memory_model, vulkan_memory_model_device_scope, vulkan_memory_model_availability_visibility_chains, shader_output_viewport_index, shader_output_layer, subgroup_broadcast_dynamic_id }
    PhysicalDevice8BitStorageFeatures from v12 { storage_buffer8_bit_access, uniform_and_storage_buffer8_bit_access, storage_push_constant8 }
    PhysicalDeviceShaderAtomicInt64Features from v12 { shader_buffer_int64_atomics, shader_shared_int64_atomics }
    PhysicalDeviceShaderFloat16Int8Features from v12 { shader_float16, shader_int8 }
    PhysicalDeviceDescriptorIndexingFeatures from v12 { shader_input_attachment_array_dynamic_indexing, shader_uniform_texel_buffer_array_dynamic_indexing, shader_storage_texel_buffer_array_dynamic_indexing, shader_uniform_buffer_array_non_uniform_indexing, shader_sampled_image_array_non_uniform_indexing, shader_storage_buffer_array_non_uniform_indexing, shader_storage_image_array_non_uniform_indexing, shader_input_attachment_array_non_uniform_indexing, shader_uniform_texel_buffer_array_non_uniform_indexing, shader_storage_texel_buffer_array_non_uniform_indexing, descriptor_binding_uniform_buffer_update_after_bind, descriptor_binding_sampled_image_update_after_bind, descriptor_binding_storage_image_update_after_bind, descriptor_binding_storage_buffer_update_after_bind, descriptor_binding_uniform_texel_buffer_update_after_bind, descriptor_binding_storage_texel_buffer_update_after_bind, descriptor_binding_update_unused_while_pending, descriptor_binding_partially_bound, descriptor_binding_variable_descriptor_count, runtime_descriptor_array }
    PhysicalDeviceScalarBlockLayoutFeatures from v12 { scalar_block_layout }
    PhysicalDeviceImagelessFramebufferFeatures from v12 { imageless_framebuffer }
    PhysicalDeviceUniformBufferStandardLayoutFeatures from v12 { uniform_buffer_standard_layout }
    PhysicalDeviceShaderSubgroupExtendedTypesFeatures from v12 { shader_subgroup_extended_types }
    PhysicalDeviceSeparateDepthStencilLayoutsFeatures from v12 { separate_depth_stencil_layouts }
    PhysicalDeviceHostQueryResetFeatures from v12 { host_query_reset }
    PhysicalDeviceTimelineSemaphoreFeatures from v12 { timeline_semaphore }
    PhysicalDeviceBufferDeviceAddressFeatures from v12 { buffer_device_address, buffer_device_address_capture_replay, buffer_device_address_multi_device }
    PhysicalDeviceVulkanMemoryModelFeatures from v12 { vulkan_memory_model, vulkan_memory_model_device_scope, vulkan_memory_model_availability_visibility_chains }
    PhysicalDeviceVulkan13Features from v13 { robust_image_access, inline_uniform_block, descriptor_binding_inline_uniform_block_update_after_bind, pipeline_creation_cache_control, private_data, shader_demote_to_helper_invocation, shader_terminate_invocation, subgroup_size_control, compute_full_subgroups, synchronization2, texture_compression_astc_hdr, shader_zero_initialize_workgroup_memory, dynamic_rendering, shader_integer_dot_product, maintenance4 }
    PhysicalDeviceImageRobustnessFeatures from v13 { robust_image_access }
    PhysicalDeviceInlineUniformBlockFeatures from v13 { inline_uniform_block, descriptor_binding_inline_uniform_block_update_after_bind }
    PhysicalDevicePipelineCreationCacheControlFeatures from v13 { pipeline_creation_cache_control }
    PhysicalDevicePrivateDataFeatures from v13 { private_data }
    PhysicalDeviceShaderDemoteToHelperInvocationFeatures from v13 { shader_demote_to_helper_invocation }
    PhysicalDeviceShaderTerminateInvocationFeatures from v13 { shader_terminate_invocation }
    PhysicalDeviceSubgroupSizeControlFeatures from v13 { subgroup_size_control, compute_full_subgroups }
    PhysicalDeviceSynchronization2Features from v13 { synchronization2 }
    PhysicalDeviceTextureCompressionASTCHDRFeatures from v13 { texture_compression_astc_hdr }
    PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures from v13 { shader_zero_initialize_workgroup_memory }
    PhysicalDeviceDynamicRenderingFeatures from v13 { dynamic_rendering }
    PhysicalDeviceShaderIntegerDotProductFeatures from v13 { shader_integer_dot_product }
    PhysicalDeviceMaintenance4Features from v13 { maintenance4 }
    PhysicalDeviceCustomBorderColorFeaturesEXT from custom_border_color { custom_border_colors, custom_border_color_without_format }
    PhysicalDevicePipelineExecutablePropertiesFeaturesKHR from executable_properties { pipeline_executable_info }
    PhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT from feedback_loop { attachment_feedback_loop_layout }
    PhysicalDeviceExtendedDynamicStateFeaturesEXT from dynamic_state { extended_dynamic_state }
    PhysicalDeviceExtendedDynamicState2FeaturesEXT from dynamic_state2 { extended_dynamic_state2, extended_dynamic_state2_logic_op, extended_dynamic_state2_patch_control_points }
    PhysicalDeviceExtendedDynamicState3FeaturesEXT from dynamic_state3 { extended_dynamic_state3_tessellation_domain_origin, extended_dynamic_state3_depth_clamp_enable, extended_dynamic_state3_polygon_mode, extended_dynamic_state3_rasterization_samples, extended_dynamic_state3_sample_mask, extended_dynamic_state3_alpha_to_coverage_enable, extended_dynamic_state3_alpha_to_one_enable, extended_dynamic_state3_logic_op_enable, extended_dynamic_state3_color_blend_enable, extended_dynamic_state3_color_blend_equation, extended_dynamic_state3_color_write_mask, extended_dynamic_state3_rasterization_stream, extended_dynamic_state3_conservative_rasterization_mode, extended_dynamic_state3_extra_primitive_overestimation_size, extended_dynamic_state3_depth_clip_enable, extended_dynamic_state3_sample_locations_enable, extended_dynamic_state3_color_blend_advanced, extended_dynamic_state3_provoking_vertex_mode, extended_dynamic_state3_line_rasterization_mode, extended_dynamic_state3_line_stipple_enable, extended_dynamic_state3_depth_clip_negative_one_to_one, extended_dynamic_state3_viewport_w_scaling_enable, extended_dynamic_state3_viewport_swizzle, extended_dynamic_state3_coverage_to_color_enable, extended_dynamic_state3_coverage_to_color_location, extended_dynamic_state3_coverage_modulation_mode, extended_dynamic_state3_coverage_modulation_table_enable, extended_dynamic_state3_coverage_modulation_table, extended_dynamic_state3_coverage_reduction_mode, extended_dynamic_state3_representative_fragment_test_enable, extended_dynamic_state3_shading_rate_image_enable }
    PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT from list_restart { primitive_topology_list_restart, primitive_topology_patch_list_restart }
    PhysicalDeviceIndexTypeUint8FeaturesEXT from index_uint8 { index_type_uint8 }
    PhysicalDevice4444FormatsFeaturesEXT from formats_4444 { format_a4r4g4b4, format_a4b4g4r4 }
    PhysicalDeviceDepthClipEnableFeaturesEXT from depth_clip { depth_clip_enable }
    PhysicalDeviceVertexAttributeDivisorFeaturesEXT from divisor { vertex_attribute_instance_rate_divisor, vertex_attribute_instance_rate_zero_divisor }
    PhysicalDeviceVertexInputDynamicStateFeaturesEXT from vertex_input_dynamic_state { vertex_input_dynamic_state }
    PhysicalDeviceLineRasterizationFeaturesEXT from line_rasterization { rectangular_lines, bresenham_lines, smooth_lines, stippled_rectangular_lines, stippled_bresenham_lines, stippled_smooth_lines }
    PhysicalDeviceProvokingVertexFeaturesEXT from provoking_vertex { provoking_vertex_last, transform_feedback_preserves_provoking_vertex }
    PhysicalDeviceConditionalRenderingFeaturesEXT from conditional_rendering { conditional_rendering, inherited_conditional_rendering }
    PhysicalDeviceTransformFeedbackFeaturesEXT from transform_feedback { transform_feedback, geometry_streams }
    PhysicalDeviceMultiDrawFeaturesEXT from multi_draw { multi_draw }
    PhysicalDeviceRobustness2FeaturesEXT from robustness2 { robust_buffer_access2, robust_image_access2, null_descriptor }
    PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT from primitives_generated { primitives_generated_query, primitives_generated_query_with_rasterizer_discard, primitives_generated_query_with_non_zero_streams }
    PhysicalDeviceNonSeamlessCubeMapFeaturesEXT from non_seamless_cube_map { non_seamless_cube_map }
    PhysicalDeviceBorderColorSwizzleFeaturesEXT from border_color_swizzle { border_color_swizzle, border_color_swizzle_from_image }
    PhysicalDeviceImage2DViewOf3DFeaturesEXT from image_2d_view_of_3d { image2_d_view_of3_d, sampler2_d_view_of3_d }
    PhysicalDeviceColorWriteEnableFeaturesEXT from color_write_enable { color_write_enable }
}

/// Whether every feature set in `requested` is supported (both are arrays of VkBool32).
pub fn v10_subset(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_device_meets_vulkan_1_3_and_real_g13_1_2() {
        use hw::Generation::G13;
        assert_eq!(api_minor_met(&supported()), 3);
        assert_eq!(
            api_minor_met(&supported_on(kmd_iface::Backend::Sim, G13)),
            3
        );
        assert_eq!(
            api_minor_met(&supported_on(kmd_iface::Backend::Drm, G13)),
            2
        );
        let mut f = supported();
        f.v12.timeline_semaphore = vk::FALSE;
        assert_eq!(api_minor_met(&f), 1);
        f.v11.multiview = vk::FALSE;
        assert_eq!(api_minor_met(&f), 0);
    }

    /// Where no shader runs, nothing is supported and the device is Vulkan 1.0.
    #[test]
    fn a_generation_without_machine_code_supports_nothing() {
        let f = supported_on(kmd_iface::Backend::Sim, hw::Generation::G16);
        assert_eq!(api_minor_met(&f), 0);
        // Every 1.0 feature is false: the set is a subset of the empty one.
        assert!(v10_subset(&f.v10, &vk::PhysicalDeviceFeatures::default()));
        assert_eq!(f.v13.dynamic_rendering, vk::FALSE);
        assert_eq!(f.transform_feedback.transform_feedback, vk::FALSE);
    }
}
