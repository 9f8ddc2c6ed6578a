//! Pieces the small rendering tests share: a pass-through vertex shader and a push-constant
//! colour fragment shader (precompiled SPIR-V), mapped host-visible buffers, and a square
//! colour target with its one-subpass render pass and read-back.

use super::Ctx;
use ash::vk;

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec2 pos;
/// void main() { gl_Position = vec4(pos, 0.0, 1.0); }
/// ```
#[rustfmt::skip]
pub const VERT: [u32; 204] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000001b, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000000, 0x00000004, 0x6e69616d,
0x00000000, 0x0000000d, 0x00000012, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000,
0x00060005, 0x0000000b, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x0000000b, 0x00000000, 0x505f6c67,
0x7469736f, 0x006e6f69, 0x00070006, 0x0000000b, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953, 0x00000000, 0x00070006,
0x0000000b, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x0000000b, 0x00000003, 0x435f6c67,
0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x0000000d, 0x00000000, 0x00030005, 0x00000012, 0x00736f70, 0x00050048,
0x0000000b, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x0000000b, 0x00000001, 0x0000000b, 0x00000001, 0x00050048,
0x0000000b, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x0000000b, 0x00000003, 0x0000000b, 0x00000004, 0x00030047,
0x0000000b, 0x00000002, 0x00040047, 0x00000012, 0x0000001e, 0x00000000, 0x00020013, 0x00000002, 0x00030021, 0x00000003,
0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004, 0x00040015, 0x00000008,
0x00000020, 0x00000000, 0x0004002b, 0x00000008, 0x00000009, 0x00000001, 0x0004001c, 0x0000000a, 0x00000006, 0x00000009,
0x0006001e, 0x0000000b, 0x00000007, 0x00000006, 0x0000000a, 0x0000000a, 0x00040020, 0x0000000c, 0x00000003, 0x0000000b,
0x0004003b, 0x0000000c, 0x0000000d, 0x00000003, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e,
0x0000000f, 0x00000000, 0x00040017, 0x00000010, 0x00000006, 0x00000002, 0x00040020, 0x00000011, 0x00000001, 0x00000010,
0x0004003b, 0x00000011, 0x00000012, 0x00000001, 0x0004002b, 0x00000006, 0x00000014, 0x00000000, 0x0004002b, 0x00000006,
0x00000015, 0x3f800000, 0x00040020, 0x00000019, 0x00000003, 0x00000007, 0x00050036, 0x00000002, 0x00000004, 0x00000000,
0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x00000010, 0x00000013, 0x00000012, 0x00050051, 0x00000006, 0x00000016,
0x00000013, 0x00000000, 0x00050051, 0x00000006, 0x00000017, 0x00000013, 0x00000001, 0x00070050, 0x00000007, 0x00000018,
0x00000016, 0x00000017, 0x00000014, 0x00000015, 0x00050041, 0x00000019, 0x0000001a, 0x0000000d, 0x0000000f, 0x0003003e,
0x0000001a, 0x00000018, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) out vec4 colour;
/// layout(push_constant) uniform P { vec4 c; } p;
/// void main() { colour = p.c; }
/// ```
#[rustfmt::skip]
pub const FRAG: [u32; 122] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000012, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0006000f, 0x00000004, 0x00000004, 0x6e69616d,
0x00000000, 0x00000009, 0x00030010, 0x00000004, 0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004,
0x6e69616d, 0x00000000, 0x00040005, 0x00000009, 0x6f6c6f63, 0x00007275, 0x00030005, 0x0000000a, 0x00000050, 0x00040006,
0x0000000a, 0x00000000, 0x00000063, 0x00030005, 0x0000000c, 0x00000070, 0x00040047, 0x00000009, 0x0000001e, 0x00000000,
0x00050048, 0x0000000a, 0x00000000, 0x00000023, 0x00000000, 0x00030047, 0x0000000a, 0x00000002, 0x00020013, 0x00000002,
0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004,
0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009, 0x00000003, 0x0003001e, 0x0000000a,
0x00000007, 0x00040020, 0x0000000b, 0x00000009, 0x0000000a, 0x0004003b, 0x0000000b, 0x0000000c, 0x00000009, 0x00040015,
0x0000000d, 0x00000020, 0x00000001, 0x0004002b, 0x0000000d, 0x0000000e, 0x00000000, 0x00040020, 0x0000000f, 0x00000009,
0x00000007, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x00050041, 0x0000000f,
0x00000010, 0x0000000c, 0x0000000e, 0x0004003d, 0x00000007, 0x00000011, 0x00000010, 0x0003003e, 0x00000009, 0x00000011,
0x000100fd, 0x00010038,
];

pub fn host_visible_type(ctx: &Ctx) -> u32 {
    // SAFETY: valid physical device.
    let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.pdev) };
    let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    (0..props.memory_type_count)
        .find(|&i| props.memory_types[i as usize].property_flags.contains(want))
        .unwrap()
}

/// Two triangles covering quadrant `q` of clip space (0 top left, 1 top right, 2 bottom
/// left, 3 bottom right).
pub fn quadrant(q: u32) -> [[f32; 2]; 6] {
    let x0 = if q.is_multiple_of(2) { -1.0 } else { 0.0 };
    let y0 = if q / 2 == 0 { -1.0 } else { 0.0 };
    let (x1, y1) = (x0 + 1.0, y0 + 1.0);
    [[x0, y0], [x1, y0], [x1, y1], [x0, y0], [x1, y1], [x0, y1]]
}

/// A vertex buffer of the four quadrants' triangles in order: quadrant `q` is vertices
/// `6q..6q + 6`, two floats each.
pub fn quadrants_buffer(ctx: &Ctx, dev: &ash::Device) -> Buf {
    let mut vb = Buf::new(ctx, dev, 4 * 6 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: Vec<u8> = (0..4)
        .flat_map(quadrant)
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&verts);
    vb
}

/// A host-visible buffer, mapped.
pub struct Buf {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub ptr: *mut u8,
    pub size: usize,
}

impl Buf {
    pub fn new(ctx: &Ctx, dev: &ash::Device, size: u64, usage: vk::BufferUsageFlags) -> Buf {
        // SAFETY: valid device and create infos; the memory is bound before use.
        unsafe {
            let buffer = dev
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let req = dev.get_buffer_memory_requirements(buffer);
            let memory = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            dev.bind_buffer_memory(buffer, memory, 0).unwrap();
            let ptr = dev
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            Buf {
                buffer,
                memory,
                ptr,
                size: size as usize,
            }
        }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping covers `size` bytes until the memory is freed.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size) }
    }

    pub fn write(&mut self, data: &[u8]) {
        // SAFETY: as in `bytes`; no GPU work runs while the test writes.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr, self.size)[..data.len()].copy_from_slice(data)
        };
    }

    pub fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_buffer(self.buffer, None);
            dev.free_memory(self.memory, None);
        }
    }
}

/// What varies between the small tests' pipelines. The rest is fixed: VERT with a vec2
/// position at location 0 (stride 8), triangle lists, a `size` x `size` viewport and scissor,
/// no culling, one colour attachment.
pub struct PipelineSpec {
    pub size: u32,
    /// Shade with FRAG; `false` makes a pipeline without a fragment stage.
    pub fragment: bool,
    pub samples: vk::SampleCountFlags,
    pub sample_mask: Option<u32>,
    pub alpha_to_one: bool,
    /// Depth test and write with this compare op.
    pub depth: Option<vk::CompareOp>,
    pub blend: vk::PipelineColorBlendAttachmentState,
    /// The subpass has a colour attachment (else the blend state has none).
    pub colour: bool,
    pub topology: vk::PrimitiveTopology,
    pub primitive_restart: bool,
    /// A geometry shader between VERT and FRAG.
    pub geometry: Option<vk::ShaderModule>,
    /// The pipeline's dynamic states.
    pub dynamic: Vec<vk::DynamicState>,
}

impl PipelineSpec {
    /// One sample, shaded, opaque, no depth.
    pub fn new(size: u32) -> PipelineSpec {
        PipelineSpec {
            size,
            fragment: true,
            samples: vk::SampleCountFlags::TYPE_1,
            sample_mask: None,
            alpha_to_one: false,
            depth: None,
            blend: vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA),
            colour: true,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            primitive_restart: false,
            geometry: None,
            dynamic: Vec::new(),
        }
    }
}

/// VERT and FRAG as shader modules, with the layout of FRAG's vec4 push constant.
pub struct Shaders {
    pub vs: vk::ShaderModule,
    pub fs: vk::ShaderModule,
    pub layout: vk::PipelineLayout,
}

impl Shaders {
    pub fn new(dev: &ash::Device) -> Shaders {
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::FRAGMENT,
            offset: 0,
            size: 16,
        }];
        // SAFETY: valid device and create infos.
        unsafe {
            Shaders {
                vs: dev
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&VERT), None)
                    .unwrap(),
                fs: dev
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&FRAG), None)
                    .unwrap(),
                layout: dev
                    .create_pipeline_layout(
                        &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                        None,
                    )
                    .unwrap(),
            }
        }
    }

    /// A pipeline for subpass 0 of `pass`.
    pub fn pipeline(
        &self,
        dev: &ash::Device,
        pass: vk::RenderPass,
        spec: &PipelineSpec,
    ) -> vk::Pipeline {
        let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(self.vs)
            .name(c"main")];
        if let Some(gs) = spec.geometry {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::GEOMETRY)
                    .module(gs)
                    .name(c"main"),
            );
        }
        if spec.fragment {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(self.fs)
                    .name(c"main"),
            );
        }
        let bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: 8,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attributes = [vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: vk::Format::R32G32_SFLOAT,
            offset: 0,
        }];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attributes);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(spec.topology)
            .primitive_restart_enable(spec.primitive_restart);
        let size = spec.size;
        let viewports = [vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: size as f32,
            height: size as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }];
        let scissors = [vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: size,
                height: size,
            },
        }];
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let masks = [spec.sample_mask.unwrap_or(u32::MAX)];
        let mut multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(spec.samples)
            .alpha_to_one_enable(spec.alpha_to_one);
        if spec.sample_mask.is_some() {
            multisample = multisample.sample_mask(&masks);
        }
        let depth = match spec.depth {
            Some(op) => vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(true)
                .depth_compare_op(op),
            None => vk::PipelineDepthStencilStateCreateInfo::default(),
        };
        let blend_att = [spec.blend];
        let blend = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&blend_att[..usize::from(spec.colour)]);
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&spec.dynamic);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .dynamic_state(&dynamic)
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .layout(self.layout)
            .render_pass(pass)
            .subpass(0);
        // SAFETY: valid device, pass and create info.
        unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines")[0]
    }

    pub fn destroy(self, dev: &ash::Device) {
        // SAFETY: no pipeline made from them is in use.
        unsafe {
            dev.destroy_pipeline_layout(self.layout, None);
            dev.destroy_shader_module(self.vs, None);
            dev.destroy_shader_module(self.fs, None);
        }
    }
}

/// A `size` x `size` colour image in host-visible memory with a view, a render pass of one
/// subpass that clears it and leaves it ready to copy from, a framebuffer, and a mapped
/// buffer that [`ColourTarget::read_back`] copies it into.
pub struct ColourTarget {
    pub size: u32,
    pub image: vk::Image,
    pub memory: vk::DeviceMemory,
    pub view: vk::ImageView,
    pub pass: vk::RenderPass,
    pub framebuffer: vk::Framebuffer,
    pub out: Buf,
}

impl ColourTarget {
    pub fn new(ctx: &Ctx, dev: &ash::Device, size: u32, format: vk::Format) -> ColourTarget {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: size,
                height: size,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let attachments = [vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)];
        let colour_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour_ref)];
        let dependency = [vk::SubpassDependency {
            src_subpass: 0,
            dst_subpass: vk::SUBPASS_EXTERNAL,
            src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            dst_stage_mask: vk::PipelineStageFlags::TRANSFER,
            src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            dst_access_mask: vk::AccessFlags::TRANSFER_READ,
            dependency_flags: vk::DependencyFlags::empty(),
        }];
        let out = Buf::new(
            ctx,
            dev,
            u64::from(size * size * 4),
            vk::BufferUsageFlags::TRANSFER_DST,
        );
        // SAFETY: valid device and create infos.
        unsafe {
            let image = dev.create_image(&info, None).unwrap();
            let req = dev.get_image_memory_requirements(image);
            let memory = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            dev.bind_image_memory(image, memory, 0).unwrap();
            let range = vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            };
            let view = dev
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(format)
                        .subresource_range(range),
                    None,
                )
                .unwrap();
            let pass = dev
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&attachments)
                        .subpasses(&subpass)
                        .dependencies(&dependency),
                    None,
                )
                .unwrap();
            let views = [view];
            let framebuffer = dev
                .create_framebuffer(
                    &vk::FramebufferCreateInfo::default()
                        .render_pass(pass)
                        .attachments(&views)
                        .width(size)
                        .height(size)
                        .layers(1),
                    None,
                )
                .unwrap();
            ColourTarget {
                size,
                image,
                memory,
                view,
                pass,
                framebuffer,
                out,
            }
        }
    }

    /// The whole target.
    pub fn area(&self) -> vk::Rect2D {
        vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: self.size,
                height: self.size,
            },
        }
    }

    /// Records the start of the render pass over the whole target, cleared to `clear`.
    pub fn begin(&self, dev: &ash::Device, cb: vk::CommandBuffer, clear: [f32; 4]) {
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: clear },
        }];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(self.pass)
            .framebuffer(self.framebuffer)
            .render_area(self.area())
            .clear_values(&clears);
        // SAFETY: `cb` is recording, outside a render pass.
        unsafe { dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE) };
    }

    /// Records the copy of the image (after the render pass) into `out`, visible to the host
    /// once the command buffer completes.
    pub fn read_back(&self, dev: &ash::Device, cb: vk::CommandBuffer) {
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: self.size,
                height: self.size,
                depth: 1,
            },
        };
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        // SAFETY: `cb` is recording, outside a render pass; the image is in
        // TRANSFER_SRC_OPTIMAL after the render pass.
        unsafe {
            dev.cmd_copy_image_to_buffer(
                cb,
                self.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                self.out.buffer,
                &[region],
            );
            dev.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        }
    }

    pub fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_framebuffer(self.framebuffer, None);
            dev.destroy_render_pass(self.pass, None);
            dev.destroy_image_view(self.view, None);
            dev.destroy_image(self.image, None);
            dev.free_memory(self.memory, None);
        }
        self.out.destroy(dev);
    }
}
