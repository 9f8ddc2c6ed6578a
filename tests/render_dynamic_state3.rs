//! VK_EXT_extended_dynamic_state3 (the states agx4 offers: polygon mode, depth clamp and clip
//! enables, provoking vertex mode) and VK_EXT_primitive_topology_list_restart through the
//! loader, under the validation layer. Each test renders the same geometry with different
//! dynamic values into a 16x16 target cleared to blue and checks that the picture changes
//! the way the value says:
//!
//! - polygon mode: a filled triangle covers an interior pixel that its edges (LINE) do not;
//! - depth clamp: a quad behind the far plane is clipped away unless clamping is on, and a
//!   dynamic depth clip enable clips it again while clamping;
//! - provoking vertex: a flat colour comes from the first or the last vertex;
//! - list restart: a restart index in a triangle list drops the incomplete triangle before it
//!   (which would otherwise reach vertex 255 and cover the top-right quadrant).

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, FRAG, VERT};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec3 pos;
/// void main() { gl_Position = vec4(pos, 1.0); }
/// ```
#[rustfmt::skip]
const VERT3: [u32; 205] = [
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
0x0000000f, 0x00000000, 0x00040017, 0x00000010, 0x00000006, 0x00000003, 0x00040020, 0x00000011, 0x00000001, 0x00000010,
0x0004003b, 0x00000011, 0x00000012, 0x00000001, 0x0004002b, 0x00000006, 0x00000014, 0x3f800000, 0x00040020, 0x00000019,
0x00000003, 0x00000007, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d,
0x00000010, 0x00000013, 0x00000012, 0x00050051, 0x00000006, 0x00000015, 0x00000013, 0x00000000, 0x00050051, 0x00000006,
0x00000016, 0x00000013, 0x00000001, 0x00050051, 0x00000006, 0x00000017, 0x00000013, 0x00000002, 0x00070050, 0x00000007,
0x00000018, 0x00000015, 0x00000016, 0x00000017, 0x00000014, 0x00050041, 0x00000019, 0x0000001a, 0x0000000d, 0x0000000f,
0x0003003e, 0x0000001a, 0x00000018, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec2 pos;
/// layout(location = 1) in vec4 col;
/// layout(location = 0) flat out vec4 c;
/// void main() { gl_Position = vec4(pos, 0.0, 1.0); c = col; }
/// ```
#[rustfmt::skip]
const FLAT_VERT: [u32; 242] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000001f, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0009000f, 0x00000000, 0x00000004, 0x6e69616d,
0x00000000, 0x0000000d, 0x00000012, 0x0000001b, 0x0000001d, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004,
0x6e69616d, 0x00000000, 0x00060005, 0x0000000b, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x0000000b,
0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x0000000b, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953,
0x00000000, 0x00070006, 0x0000000b, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x0000000b,
0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x0000000d, 0x00000000, 0x00030005, 0x00000012,
0x00736f70, 0x00030005, 0x0000001b, 0x00000063, 0x00030005, 0x0000001d, 0x006c6f63, 0x00050048, 0x0000000b, 0x00000000,
0x0000000b, 0x00000000, 0x00050048, 0x0000000b, 0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x0000000b, 0x00000002,
0x0000000b, 0x00000003, 0x00050048, 0x0000000b, 0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x0000000b, 0x00000002,
0x00040047, 0x00000012, 0x0000001e, 0x00000000, 0x00030047, 0x0000001b, 0x0000000e, 0x00040047, 0x0000001b, 0x0000001e,
0x00000000, 0x00040047, 0x0000001d, 0x0000001e, 0x00000001, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002,
0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004, 0x00040015, 0x00000008, 0x00000020,
0x00000000, 0x0004002b, 0x00000008, 0x00000009, 0x00000001, 0x0004001c, 0x0000000a, 0x00000006, 0x00000009, 0x0006001e,
0x0000000b, 0x00000007, 0x00000006, 0x0000000a, 0x0000000a, 0x00040020, 0x0000000c, 0x00000003, 0x0000000b, 0x0004003b,
0x0000000c, 0x0000000d, 0x00000003, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e, 0x0000000f,
0x00000000, 0x00040017, 0x00000010, 0x00000006, 0x00000002, 0x00040020, 0x00000011, 0x00000001, 0x00000010, 0x0004003b,
0x00000011, 0x00000012, 0x00000001, 0x0004002b, 0x00000006, 0x00000014, 0x00000000, 0x0004002b, 0x00000006, 0x00000015,
0x3f800000, 0x00040020, 0x00000019, 0x00000003, 0x00000007, 0x0004003b, 0x00000019, 0x0000001b, 0x00000003, 0x00040020,
0x0000001c, 0x00000001, 0x00000007, 0x0004003b, 0x0000001c, 0x0000001d, 0x00000001, 0x00050036, 0x00000002, 0x00000004,
0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x00000010, 0x00000013, 0x00000012, 0x00050051, 0x00000006,
0x00000016, 0x00000013, 0x00000000, 0x00050051, 0x00000006, 0x00000017, 0x00000013, 0x00000001, 0x00070050, 0x00000007,
0x00000018, 0x00000016, 0x00000017, 0x00000014, 0x00000015, 0x00050041, 0x00000019, 0x0000001a, 0x0000000d, 0x0000000f,
0x0003003e, 0x0000001a, 0x00000018, 0x0004003d, 0x00000007, 0x0000001e, 0x0000001d, 0x0003003e, 0x0000001b, 0x0000001e,
0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) flat in vec4 c;
/// layout(location = 0) out vec4 colour;
/// void main() { colour = c; }
/// ```
#[rustfmt::skip]
const FLAT_FRAG: [u32; 95] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000000d, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000004, 0x00000004, 0x6e69616d,
0x00000000, 0x00000009, 0x0000000b, 0x00030010, 0x00000004, 0x00000007, 0x00030003, 0x00000002, 0x000001c2, 0x00040005,
0x00000004, 0x6e69616d, 0x00000000, 0x00040005, 0x00000009, 0x6f6c6f63, 0x00007275, 0x00030005, 0x0000000b, 0x00000063,
0x00040047, 0x00000009, 0x0000001e, 0x00000000, 0x00030047, 0x0000000b, 0x0000000e, 0x00040047, 0x0000000b, 0x0000001e,
0x00000000, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017,
0x00000007, 0x00000006, 0x00000004, 0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009,
0x00000003, 0x00040020, 0x0000000a, 0x00000001, 0x00000007, 0x0004003b, 0x0000000a, 0x0000000b, 0x00000001, 0x00050036,
0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x00000007, 0x0000000c, 0x0000000b,
0x0003003e, 0x00000009, 0x0000000c, 0x000100fd, 0x00010038,
];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::extended_dynamic_state2::NAME.as_ptr(),
        ash::ext::extended_dynamic_state3::NAME.as_ptr(),
        ash::ext::primitive_topology_list_restart::NAME.as_ptr(),
        ash::ext::index_type_uint8::NAME.as_ptr(),
        ash::ext::depth_clip_enable::NAME.as_ptr(),
        ash::ext::provoking_vertex::NAME.as_ptr(),
    ];
    let features = vk::PhysicalDeviceFeatures::default()
        .depth_clamp(true)
        .fill_mode_non_solid(true);
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_polygon_mode(true)
        .extended_dynamic_state3_depth_clamp_enable(true)
        .extended_dynamic_state3_depth_clip_enable(true)
        .extended_dynamic_state3_provoking_vertex_mode(true);
    let mut eds2 =
        vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default().extended_dynamic_state2(true);
    let mut restart = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default()
        .primitive_topology_list_restart(true);
    let mut uint8 = vk::PhysicalDeviceIndexTypeUint8FeaturesEXT::default().index_type_uint8(true);
    let mut clip = vk::PhysicalDeviceDepthClipEnableFeaturesEXT::default().depth_clip_enable(true);
    let mut provoking =
        vk::PhysicalDeviceProvokingVertexFeaturesEXT::default().provoking_vertex_last(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .enabled_features(&features)
        .push_next(&mut eds2)
        .push_next(&mut eds3)
        .push_next(&mut restart)
        .push_next(&mut uint8)
        .push_next(&mut clip)
        .push_next(&mut provoking);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with extended dynamic state 3 and list restart");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Shaders, vertex layout and fixed state of one test's pipeline.
struct Spec<'a> {
    vs: &'a [u32],
    fs: &'a [u32],
    /// Floats per vertex: position components first, then (with FLAT_VERT) a vec4 colour.
    floats: u32,
    position: vk::Format,
    colour: bool,
    topology: vk::PrimitiveTopology,
    restart: bool,
    dynamic: &'a [vk::DynamicState],
}

/// What one render draws: its vertices, its 8-bit indices if indexed, and the dynamic state
/// recorded before the draw.
struct Draw<'a> {
    vertices: &'a [f32],
    indices: Option<&'a [u8]>,
    count: u32,
    set: &'a dyn Fn(&ash::ext::extended_dynamic_state3::Device, vk::CommandBuffer),
    restart: Option<bool>,
}

fn pipeline(
    dev: &ash::Device,
    spec: &Spec<'_>,
    pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    modules: [vk::ShaderModule; 2],
) -> vk::Pipeline {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(modules[0])
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(modules[1])
            .name(c"main"),
    ];
    let bindings = [vk::VertexInputBindingDescription {
        binding: 0,
        stride: spec.floats * 4,
        input_rate: vk::VertexInputRate::VERTEX,
    }];
    let attributes = [
        vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: spec.position,
            offset: 0,
        },
        vk::VertexInputAttributeDescription {
            location: 1,
            binding: 0,
            format: vk::Format::R32G32B32A32_SFLOAT,
            offset: 8,
        },
    ];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes[..1 + usize::from(spec.colour)]);
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(spec.topology)
        .primitive_restart_enable(spec.restart);
    let viewports = [vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: SIZE as f32,
        height: SIZE as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D {
            width: SIZE,
            height: SIZE,
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    // The static values are the opposite of what the tests set dynamically where that
    // matters: a draw that took them would show it.
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::POINT)
        .cull_mode(vk::CullModeFlags::NONE)
        .depth_clamp_enable(true)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_att);
    let dynamic_info = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(spec.dynamic);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic_info)
        .layout(layout)
        .render_pass(pass)
        .subpass(0);
    // SAFETY: valid device, pass and create info.
    unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
        .map_err(|(_, e)| e)
        .expect("vkCreateGraphicsPipelines")[0]
}

/// Renders `draw` with a pipeline made from `spec` and returns the target's pixels.
fn render(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    spec: &Spec<'_>,
    draw: &Draw<'_>,
) -> Vec<[u8; 4]> {
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, dev);
    let eds2 = ash::ext::extended_dynamic_state2::Device::new(&ctx.instance, dev);
    let bytes: Vec<u8> = draw.vertices.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut vb = Buf::new(
        ctx,
        dev,
        bytes.len() as u64,
        vk::BufferUsageFlags::VERTEX_BUFFER,
    );
    vb.write(&bytes);
    let mut ib = Buf::new(ctx, dev, 64, vk::BufferUsageFlags::INDEX_BUFFER);
    if let Some(ix) = draw.indices {
        ib.write(ix);
    }
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let module = |code: &[u32]| {
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .unwrap()
        };
        let modules = [module(spec.vs), module(spec.fs)];
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::FRAGMENT,
            offset: 0,
            size: 16,
        }];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                None,
            )
            .unwrap();
        let pipe = pipeline(dev, spec, target.pass, layout, modules);
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, CLEAR);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
        let red: Vec<u8> = [1.0f32, 0.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &red);
        (draw.set)(&eds3, cb);
        if let Some(on) = draw.restart {
            eds2.cmd_set_primitive_restart_enable(cb, on);
        }
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        if draw.indices.is_some() {
            dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT8_EXT);
            dev.cmd_draw_indexed(cb, draw.count, 1, 0, 0, 0);
        } else {
            dev.cmd_draw(cb, draw.count, 1, 0, 0);
        }
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target
            .out
            .bytes()
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect();
        dev.destroy_pipeline(pipe, None);
        dev.destroy_pipeline_layout(layout, None);
        for m in modules {
            dev.destroy_shader_module(m, None);
        }
        got
    };
    target.destroy(dev);
    vb.destroy(dev);
    ib.destroy(dev);
    got
}

fn at(img: &[[u8; 4]], x: u32, y: u32) -> [u8; 4] {
    img[(y * SIZE + x) as usize]
}

fn count(img: &[[u8; 4]], colour: [u8; 4]) -> usize {
    img.iter().filter(|&&p| p == colour).count()
}

fn finish(dev: ash::Device) {
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn polygon_mode_set_dynamically_changes_the_picture() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let spec = Spec {
        vs: &VERT,
        fs: &FRAG,
        floats: 2,
        position: vk::Format::R32G32_SFLOAT,
        colour: false,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        restart: false,
        dynamic: &[
            vk::DynamicState::POLYGON_MODE_EXT,
            vk::DynamicState::DEPTH_CLAMP_ENABLE_EXT,
        ],
    };
    // Pixel (5, 5) is inside, at least 3 pixels from every edge.
    let triangle = [-0.75f32, -0.75, 0.75, -0.75, -0.75, 0.75];
    let mode = |m: vk::PolygonMode| {
        let set = move |e: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
            // SAFETY: a recording command buffer with a pipeline that makes both dynamic.
            e.cmd_set_polygon_mode(cb, m);
            e.cmd_set_depth_clamp_enable(cb, false);
        };
        render(
            &ctx,
            &dev,
            queue,
            &spec,
            &Draw {
                vertices: &triangle,
                indices: None,
                count: 3,
                set: &set,
                restart: None,
            },
        )
    };
    let fill = mode(vk::PolygonMode::FILL);
    let line = mode(vk::PolygonMode::LINE);
    assert_eq!(at(&fill, 5, 5), RED, "filled interior");
    assert_eq!(at(&line, 5, 5), BLUE, "edges only");
    let (f, l) = (count(&fill, RED), count(&line, RED));
    // About 12 * 12 / 2 pixels filled; three edges of about 12 pixels each.
    assert!(f > 60, "{f} filled pixels");
    assert!(l >= 24 && l < f, "{l} edge pixels of {f}");
    // Every edge pixel lies on the filled triangle's boundary or inside it.
    for (i, p) in line.iter().enumerate() {
        if *p == RED {
            let (x, y) = (i as u32 % SIZE, i as u32 / SIZE);
            assert!(x <= 13 && y <= 13, "edge pixel ({x}, {y}) off the triangle");
        }
    }
    finish(dev);
}

#[test]
fn depth_clamp_and_clip_set_dynamically_keep_or_drop_geometry_behind_the_far_plane() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    // A full-target quad at z = 2: behind the far plane.
    let z = 2.0f32;
    let quad = [
        -1.0, -1.0, z, 1.0, -1.0, z, -1.0, 1.0, z, -1.0, 1.0, z, 1.0, -1.0, z, 1.0, 1.0, z,
    ];
    let go = |dynamic: &[vk::DynamicState], clamp: bool, clip: Option<bool>| {
        let spec = Spec {
            vs: &VERT3,
            fs: &FRAG,
            floats: 3,
            position: vk::Format::R32G32B32_SFLOAT,
            colour: false,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            restart: false,
            dynamic,
        };
        let set = move |e: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
            // SAFETY: a recording command buffer with a pipeline that makes these dynamic.
            e.cmd_set_polygon_mode(cb, vk::PolygonMode::FILL);
            e.cmd_set_depth_clamp_enable(cb, clamp);
            if let Some(c) = clip {
                e.cmd_set_depth_clip_enable(cb, c);
            }
        };
        let img = render(
            &ctx,
            &dev,
            queue,
            &spec,
            &Draw {
                vertices: &quad,
                indices: None,
                count: 6,
                set: &set,
                restart: None,
            },
        );
        count(&img, RED)
    };
    let clamp_only = [
        vk::DynamicState::POLYGON_MODE_EXT,
        vk::DynamicState::DEPTH_CLAMP_ENABLE_EXT,
    ];
    let both = [
        vk::DynamicState::POLYGON_MODE_EXT,
        vk::DynamicState::DEPTH_CLAMP_ENABLE_EXT,
        vk::DynamicState::DEPTH_CLIP_ENABLE_EXT,
    ];
    let all = (SIZE * SIZE) as usize;
    // The pipeline's static clamp is on: a dynamic false must clip.
    assert_eq!(go(&clamp_only, false, None), 0, "clipped without clamping");
    // Clipping follows the dynamic clamp when nothing else says.
    assert_eq!(go(&clamp_only, true, None), all, "kept when clamping");
    assert_eq!(go(&both, true, Some(true)), 0, "clipped while clamping");
    assert_eq!(go(&both, true, Some(false)), all, "kept while clamping");
    finish(dev);
}

#[test]
fn provoking_vertex_mode_set_dynamically_picks_the_flat_colour() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let spec = Spec {
        vs: &FLAT_VERT,
        fs: &FLAT_FRAG,
        floats: 6,
        position: vk::Format::R32G32_SFLOAT,
        colour: true,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        restart: false,
        dynamic: &[
            vk::DynamicState::POLYGON_MODE_EXT,
            vk::DynamicState::PROVOKING_VERTEX_MODE_EXT,
        ],
    };
    // Red, green, blue corners; the colours are flat, so one of them fills the triangle.
    let triangle = [
        -1.0f32, -1.0, 1.0, 0.0, 0.0, 1.0, //
        1.0, -1.0, 0.0, 1.0, 0.0, 1.0, //
        -1.0, 1.0, 0.0, 0.0, 1.0, 1.0,
    ];
    let go = |mode: vk::ProvokingVertexModeEXT| {
        let set = move |e: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
            // SAFETY: a recording command buffer with a pipeline that makes these dynamic.
            e.cmd_set_polygon_mode(cb, vk::PolygonMode::FILL);
            e.cmd_set_provoking_vertex_mode(cb, mode);
        };
        render(
            &ctx,
            &dev,
            queue,
            &spec,
            &Draw {
                vertices: &triangle,
                indices: None,
                count: 3,
                set: &set,
                restart: None,
            },
        )
    };
    let first = go(vk::ProvokingVertexModeEXT::FIRST_VERTEX);
    let last = go(vk::ProvokingVertexModeEXT::LAST_VERTEX);
    assert_eq!(at(&first, 3, 3), RED);
    assert_eq!(at(&last, 3, 3), BLUE);
    assert!(count(&first, RED) > 60 && count(&first, GREEN) == 0);
    assert!(count(&last, RED) == 0 && count(&last, GREEN) == 0);
    finish(dev);
}

/// Two triangles per quadrant quad, two vertices on the top edge of the top-right quadrant,
/// and vertex 255 at its bottom-right corner.
fn restart_vertices() -> Vec<f32> {
    let mut v = vec![[0.0f32; 2]; 256];
    v[..10].copy_from_slice(&[
        // Top-left quadrant.
        [-1.0, -1.0],
        [0.0, -1.0],
        [-1.0, 0.0],
        [0.0, 0.0],
        // Two vertices of the top-right quadrant.
        [0.0, -1.0],
        [1.0, -1.0],
        // Bottom-right quadrant.
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
    ]);
    v[255] = [1.0, 0.0];
    v.into_iter().flatten().collect()
}

/// Both quads; the incomplete triangle (4, 5) before the restart index is dropped, where
/// without restart (4, 5, 255) would be a triangle over the top-right quadrant.
const RESTART_INDICES: [u8; 15] = [0, 1, 2, 2, 1, 3, 4, 5, 0xff, 6, 7, 8, 8, 7, 9];

fn restart_picture(img: &[[u8; 4]], restarted: bool) {
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (left, top) = (x < SIZE / 2, y < SIZE / 2);
            let want = if left == top {
                RED
            } else if !left && top && !restarted && x - SIZE / 2 > y {
                // Above the diagonal from (8, 0) to (16, 8): the extra triangle.
                RED
            } else if !left && top && !restarted && x - SIZE / 2 == y {
                // Pixel centres on that diagonal: the tie-break rule decides.
                continue;
            } else {
                BLUE
            };
            assert_eq!(at(img, x, y), want, "pixel ({x}, {y}), restart {restarted}");
        }
    }
}

#[test]
fn a_restart_index_in_a_triangle_list_drops_the_incomplete_triangle() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let vertices = restart_vertices();
    // The pipelines' static polygon mode is POINT.
    let fill = |e: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
        // SAFETY: a recording command buffer with a pipeline that makes it dynamic.
        e.cmd_set_polygon_mode(cb, vk::PolygonMode::FILL)
    };
    let draw = |restart: Option<bool>| Draw {
        vertices: &vertices,
        indices: Some(&RESTART_INDICES),
        count: RESTART_INDICES.len() as u32,
        set: &fill,
        restart,
    };
    let mut spec = Spec {
        vs: &VERT,
        fs: &FRAG,
        floats: 2,
        position: vk::Format::R32G32_SFLOAT,
        colour: false,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        restart: true,
        dynamic: &[vk::DynamicState::POLYGON_MODE_EXT],
    };
    // Static restart on a triangle list.
    restart_picture(&render(&ctx, &dev, queue, &spec, &draw(None)), true);
    // Dynamic restart, off then on: the picture differs.
    spec.restart = false;
    spec.dynamic = &[
        vk::DynamicState::POLYGON_MODE_EXT,
        vk::DynamicState::PRIMITIVE_RESTART_ENABLE,
    ];
    let without = render(&ctx, &dev, queue, &spec, &draw(Some(false)));
    restart_picture(&without, false);
    assert!(
        count(&without, RED) > (SIZE * SIZE / 2) as usize,
        "the extra triangle"
    );
    restart_picture(&render(&ctx, &dev, queue, &spec, &draw(Some(true))), true);
    finish(dev);
}
