// What agx4 advertises: the Vulkan version and the extensions. This file is the one place
// where that is decided. build.rs includes it too, so the generated entry-point tables and
// stubs cover exactly these and nothing else.

/// Minor version of the Vulkan API the device exposes (major is 1).
pub const API_MINOR: u32 = 3;

/// Instance extensions, in the order they are reported.
pub const INSTANCE_EXTENSIONS: &[&str] = &[
    "VK_KHR_get_physical_device_properties2",
    "VK_KHR_device_group_creation",
    // Vulkan 1.1's external object queries (external.rs), under their extension names.
    "VK_KHR_external_memory_capabilities",
    "VK_KHR_external_semaphore_capabilities",
    "VK_KHR_external_fence_capabilities",
    // Window-system integration (icd/src/wsi/).
    "VK_KHR_surface",
    "VK_KHR_get_surface_capabilities2",
    "VK_KHR_xcb_surface",
    "VK_KHR_xlib_surface",
    "VK_KHR_wayland_surface",
    "VK_EXT_headless_surface",
];

/// Device extensions, in the order they are reported.
pub const DEVICE_EXTENSIONS: &[&str] = &[
    "VK_KHR_timeline_semaphore",
    "VK_KHR_synchronization2",
    "VK_KHR_pipeline_executable_properties",
    "VK_KHR_device_group",
    "VK_KHR_maintenance1",
    "VK_KHR_multiview",
    // gl_BaseVertex, gl_BaseInstance, gl_DrawID (features.rs shaderDrawParameters).
    "VK_KHR_shader_draw_parameters",
    "VK_KHR_maintenance2",
    "VK_KHR_create_renderpass2",
    "VK_KHR_depth_stencil_resolve",
    "VK_KHR_dynamic_rendering",
    "VK_KHR_image_format_list",
    "VK_KHR_imageless_framebuffer",
    "VK_EXT_pipeline_creation_cache_control",
    // The whole pipeline's creation time; no per-stage figures (pipeline.rs).
    "VK_EXT_pipeline_creation_feedback",
    "VK_KHR_bind_memory2",
    "VK_KHR_get_memory_requirements2",
    // Every allocation is as good as a dedicated one (memory::write_requirements2).
    "VK_KHR_dedicated_allocation",
    "VK_KHR_maintenance3",
    // See features.rs's maintenance4: the device-level requirements match the objects'.
    "VK_KHR_maintenance4",
    // robustImageAccess: on the simulated device only (features.rs, supported_on).
    "VK_EXT_image_robustness",
    "VK_KHR_copy_commands2",
    // Image layouts change nothing in memory here.
    "VK_KHR_separate_depth_stencil_layouts",
    "VK_EXT_separate_stencil_usage",
    "VK_EXT_private_data",
    "VK_EXT_tooling_info",
    "VK_KHR_format_feature_flags2",
    "VK_KHR_driver_properties",
    "VK_KHR_buffer_device_address",
    "VK_EXT_scalar_block_layout",
    "VK_KHR_uniform_buffer_standard_layout",
    // Shader compiler (compiler/src/frontend): subgroup size, 8/16-bit types (also in
    // subgroup operations), SPIR-V 1.4.
    "VK_EXT_subgroup_size_control",
    "VK_KHR_16bit_storage",
    "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_shader_float_controls",
    "VK_KHR_spirv_1_4",
    "VK_KHR_shader_non_semantic_info",
    "VK_KHR_shader_terminate_invocation",
    "VK_KHR_zero_initialize_workgroup_memory",
    "VK_KHR_shader_integer_dot_product",
    "VK_KHR_vulkan_memory_model",
    // Feedback-loop barriers store the attachments for textures to read (cmd_buffer::render).
    "VK_EXT_attachment_feedback_loop_layout",
    "VK_EXT_host_query_reset",
    // Demoted invocations lose their coverage and run on as helpers (compiler g13 isel).
    "VK_EXT_shader_demote_to_helper_invocation",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_descriptor_update_template",
    "VK_KHR_push_descriptor",
    // Set memory holds the block behind a uniform buffer descriptor (descriptor_set_layout.rs).
    "VK_EXT_inline_uniform_block",
    // Shaders read set memory when they run; variable counts are sized at allocation
    // (descriptor_set_layout.rs, descriptor_pool.rs).
    "VK_EXT_descriptor_indexing",
    "VK_KHR_sampler_mirror_clamp_to_edge",
    // Custom borders live in the sampler heap's border table (icd/src/sampler.rs).
    "VK_EXT_custom_border_color",
    // Faces filtered on their own: the sampler's seamful cube map bit (icd/src/sampler.rs).
    "VK_EXT_non_seamless_cube_map",
    // Custom borders swizzled by the mapping the sampler is given (icd/src/sampler.rs).
    "VK_EXT_border_color_swizzle",
    // 2D views of one slice of a 3D image, laid out as a layer (icd/src/image_view.rs).
    "VK_EXT_image_2d_view_of_3d",
    // Presentation (icd/src/wsi/swapchain.rs).
    "VK_KHR_swapchain",
    "VK_KHR_swapchain_mutable_format",
    // Present regions: damage on Wayland, the copied area on X11.
    "VK_KHR_incremental_present",
    // Vulkan 1.3's dynamic state (icd/src/cmd_buffer/dynamic_state.rs).
    "VK_EXT_extended_dynamic_state",
    "VK_EXT_extended_dynamic_state2",
    // Its per-draw words and its blend states (icd/src/features.rs lists which).
    "VK_EXT_extended_dynamic_state3",
    // Colour writes switched per attachment by the fragment variant a draw picks
    // (icd/src/pipeline_blend.rs).
    "VK_EXT_color_write_enable",
    // Restart on point, line and triangle lists (the VDM restarts every topology).
    "VK_EXT_primitive_topology_list_restart",
    // 8-bit index buffers, read by the VDM natively.
    "VK_EXT_index_type_uint8",
    // A4R4G4B4 and A4B4G4R4 sampled images (a swizzle of the hardware's 4444 format).
    "VK_EXT_4444_formats",
    // Near/far clipping apart from depth clamp (the PPP Cull word has both bits).
    "VK_EXT_depth_clip_enable",
    // Instance divisors, applied by the vertex shader's fetch (compiler lower_vertex_input).
    "VK_EXT_vertex_attribute_divisor",
    // Vertex bindings and attributes set at record time: the vertex shader is compiled per
    // layout it reads, once (cmd_buffer/vertex_input.rs).
    "VK_EXT_vertex_input_dynamic_state",
    // Bresenham lines are the rasterizer's lines (sim_gpu::raster::line).
    "VK_EXT_line_rasterization",
    // Flat varyings from the last vertex: the PPP Cull word and the CF bindings' shade model
    // (pipeline_graphics::flat_vertex).
    "VK_EXT_provoking_vertex",
    // Draws and dispatches guarded by a word in memory become indirect ones
    // (cmd_buffer::conditional), as do draws counted by one.
    "VK_EXT_conditional_rendering",
    "VK_KHR_draw_indirect_count",
    // Vertex outputs captured by the vertex shader's capture variant (cmd_buffer/xfb.rs).
    "VK_EXT_transform_feedback",
    // Counted from each draw's arguments on the GPU (cmd_buffer/primgen.rs).
    "VK_EXT_primitives_generated_query",
    // Many draws in one command, recorded as indirect draws (cmd_buffer/multi_draw.rs).
    "VK_EXT_multi_draw",
    // Bounds checks are exact and null descriptors are empty ones (features.rs).
    "VK_EXT_robustness2",
    // Memory, semaphores and fences shared by file descriptor: dma-bufs and syncobj fds
    // through DRM PRIME and the syncobj fd ioctls (memory.rs, sync.rs, external.rs).
    "VK_KHR_external_memory",
    "VK_KHR_external_memory_fd",
    "VK_EXT_external_memory_dma_buf",
    "VK_KHR_external_semaphore",
    "VK_KHR_external_semaphore_fd",
    "VK_KHR_external_fence",
    "VK_KHR_external_fence_fd",
    // Ownership transfers to a foreign queue need nothing: memory is coherent and images
    // keep one layout whoever owns them.
    "VK_EXT_queue_family_foreign",
];
