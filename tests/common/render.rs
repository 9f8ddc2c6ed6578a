//! Pieces the small rendering tests share: a pass-through vertex shader and a push-constant
//! colour fragment shader (precompiled SPIR-V), and mapped host-visible buffers.

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
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(self.vs)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(self.fs)
                .name(c"main"),
        ];
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
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
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
        let n = if spec.fragment { 2 } else { 1 };
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages[..n])
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
