//! VK_EXT_vertex_input_dynamic_state through the loader, under the validation layer. One
//! pipeline, made with VK_DYNAMIC_STATE_VERTEX_INPUT_EXT and no vertex input state, draws
//! with layouts set by vkCmdSetVertexInputEXT; the pictures show which layout each draw
//! fetched with (agx4 compiles the vertex shader's fetch per layout at draw time):
//!
//! - two layouts that read the same buffer as different formats at different offsets put
//!   their quads in different halves of the target;
//! - instance divisors (2, and 0 with a first instance) pick the per-instance offsets of
//!   their draws, and a stride from vkCmdBindVertexBuffers2 after vkCmdSetVertexInputEXT
//!   overrides the one the layout gave;
//! - transform feedback captures the attribute as each draw's layout fetches it (the capture
//!   variant is compiled per layout too).

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, FRAG};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const HALF: u32 = SIZE / 2;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec2 pos;
/// layout(location = 1) in vec2 offset;
/// void main() { gl_Position = vec4(pos + offset, 0.0, 1.0); }
/// ```
#[rustfmt::skip]
const VERT_OFFSET: [u32; 226] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000001e, 0x00000000, 0x00020011, 0x00000001, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0008000f, 0x00000000, 0x00000004, 0x6e69616d,
0x00000000, 0x0000000d, 0x00000012, 0x00000014, 0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d,
0x00000000, 0x00060005, 0x0000000b, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x0000000b, 0x00000000,
0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x0000000b, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953, 0x00000000,
0x00070006, 0x0000000b, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x0000000b, 0x00000003,
0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x0000000d, 0x00000000, 0x00030005, 0x00000012, 0x00736f70,
0x00040005, 0x00000014, 0x7366666f, 0x00007465, 0x00050048, 0x0000000b, 0x00000000, 0x0000000b, 0x00000000, 0x00050048,
0x0000000b, 0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x0000000b, 0x00000002, 0x0000000b, 0x00000003, 0x00050048,
0x0000000b, 0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x0000000b, 0x00000002, 0x00040047, 0x00000012, 0x0000001e,
0x00000000, 0x00040047, 0x00000014, 0x0000001e, 0x00000001, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002,
0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000004, 0x00040015, 0x00000008, 0x00000020,
0x00000000, 0x0004002b, 0x00000008, 0x00000009, 0x00000001, 0x0004001c, 0x0000000a, 0x00000006, 0x00000009, 0x0006001e,
0x0000000b, 0x00000007, 0x00000006, 0x0000000a, 0x0000000a, 0x00040020, 0x0000000c, 0x00000003, 0x0000000b, 0x0004003b,
0x0000000c, 0x0000000d, 0x00000003, 0x00040015, 0x0000000e, 0x00000020, 0x00000001, 0x0004002b, 0x0000000e, 0x0000000f,
0x00000000, 0x00040017, 0x00000010, 0x00000006, 0x00000002, 0x00040020, 0x00000011, 0x00000001, 0x00000010, 0x0004003b,
0x00000011, 0x00000012, 0x00000001, 0x0004003b, 0x00000011, 0x00000014, 0x00000001, 0x0004002b, 0x00000006, 0x00000017,
0x00000000, 0x0004002b, 0x00000006, 0x00000018, 0x3f800000, 0x00040020, 0x0000001c, 0x00000003, 0x00000007, 0x00050036,
0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x0004003d, 0x00000010, 0x00000013, 0x00000012,
0x0004003d, 0x00000010, 0x00000015, 0x00000014, 0x00050081, 0x00000010, 0x00000016, 0x00000013, 0x00000015, 0x00050051,
0x00000006, 0x00000019, 0x00000016, 0x00000000, 0x00050051, 0x00000006, 0x0000001a, 0x00000016, 0x00000001, 0x00070050,
0x00000007, 0x0000001b, 0x00000019, 0x0000001a, 0x00000017, 0x00000018, 0x00050041, 0x0000001c, 0x0000001d, 0x0000000d,
0x0000000f, 0x0003003e, 0x0000001d, 0x0000001b, 0x000100fd, 0x00010038,
];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(location = 0) in vec2 v;
/// layout(xfb_buffer = 0, xfb_stride = 8) out;
/// layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out vec2 o;
/// void main() { o = v; gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }
/// ```
#[rustfmt::skip]
const VERT_CAPTURE: [u32; 238] = [
0x07230203, 0x00010000, 0x0008000b, 0x0000001b, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000035, 0x0006000b,
0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0008000f, 0x00000000,
0x00000004, 0x6e69616d, 0x00000000, 0x00000009, 0x0000000b, 0x00000013, 0x00030010, 0x00000004, 0x0000000b, 0x00030003,
0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x0000006f, 0x00030005,
0x0000000b, 0x00000076, 0x00060005, 0x00000011, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x00000011,
0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x00000011, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953,
0x00000000, 0x00070006, 0x00000011, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x00000011,
0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x00000013, 0x00000000, 0x00040047, 0x00000009,
0x0000001e, 0x00000000, 0x00040047, 0x00000009, 0x00000024, 0x00000000, 0x00040047, 0x00000009, 0x00000025, 0x00000008,
0x00040047, 0x00000009, 0x00000023, 0x00000000, 0x00040047, 0x0000000b, 0x0000001e, 0x00000000, 0x00050048, 0x00000011,
0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000011, 0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x00000011,
0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x00000011, 0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x00000011,
0x00000002, 0x00040047, 0x00000013, 0x00000024, 0x00000000, 0x00040047, 0x00000013, 0x00000025, 0x00000008, 0x00020013,
0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00030016, 0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006,
0x00000002, 0x00040020, 0x00000008, 0x00000003, 0x00000007, 0x0004003b, 0x00000008, 0x00000009, 0x00000003, 0x00040020,
0x0000000a, 0x00000001, 0x00000007, 0x0004003b, 0x0000000a, 0x0000000b, 0x00000001, 0x00040017, 0x0000000d, 0x00000006,
0x00000004, 0x00040015, 0x0000000e, 0x00000020, 0x00000000, 0x0004002b, 0x0000000e, 0x0000000f, 0x00000001, 0x0004001c,
0x00000010, 0x00000006, 0x0000000f, 0x0006001e, 0x00000011, 0x0000000d, 0x00000006, 0x00000010, 0x00000010, 0x00040020,
0x00000012, 0x00000003, 0x00000011, 0x0004003b, 0x00000012, 0x00000013, 0x00000003, 0x00040015, 0x00000014, 0x00000020,
0x00000001, 0x0004002b, 0x00000014, 0x00000015, 0x00000000, 0x0004002b, 0x00000006, 0x00000016, 0x00000000, 0x0004002b,
0x00000006, 0x00000017, 0x3f800000, 0x0007002c, 0x0000000d, 0x00000018, 0x00000016, 0x00000016, 0x00000016, 0x00000017,
0x00040020, 0x00000019, 0x00000003, 0x0000000d, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8,
0x00000005, 0x0004003d, 0x00000007, 0x0000000c, 0x0000000b, 0x0003003e, 0x00000009, 0x0000000c, 0x00050041, 0x00000019,
0x0000001a, 0x00000013, 0x00000015, 0x0003003e, 0x0000001a, 0x00000018, 0x000100fd, 0x00010038,
];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::vertex_input_dynamic_state::NAME.as_ptr(),
        ash::ext::extended_dynamic_state::NAME.as_ptr(),
        ash::ext::vertex_attribute_divisor::NAME.as_ptr(),
        ash::ext::transform_feedback::NAME.as_ptr(),
    ];
    let mut vids = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
        .vertex_input_dynamic_state(true);
    let mut eds =
        vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT::default().extended_dynamic_state(true);
    let mut divisor = vk::PhysicalDeviceVertexAttributeDivisorFeaturesEXT::default()
        .vertex_attribute_instance_rate_divisor(true)
        .vertex_attribute_instance_rate_zero_divisor(true);
    let mut xfb =
        vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut vids)
        .push_next(&mut eds)
        .push_next(&mut divisor)
        .push_next(&mut xfb);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with VK_EXT_vertex_input_dynamic_state");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// A pipeline of VERT_OFFSET and FRAG whose vertex input (and binding strides) are dynamic.
///
/// # Safety
/// Valid device, modules, layout and pass.
unsafe fn pipeline(
    dev: &ash::Device,
    vs: vk::ShaderModule,
    fs: vk::ShaderModule,
    layout: vk::PipelineLayout,
    pass: vk::RenderPass,
) -> vk::Pipeline {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(c"main"),
    ];
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
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
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_att);
    let states = [
        vk::DynamicState::VERTEX_INPUT_EXT,
        vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE,
    ];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&states);
    // No vertex input state: the dynamic state replaces it.
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layout)
        .render_pass(pass)
        .subpass(0);
    // SAFETY: guaranteed by the caller.
    unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
        .map_err(|(_, e)| e)
        .expect("vkCreateGraphicsPipelines with a dynamic vertex input")[0]
}

fn binding(
    binding: u32,
    stride: u32,
    rate: vk::VertexInputRate,
    divisor: u32,
) -> vk::VertexInputBindingDescription2EXT<'static> {
    vk::VertexInputBindingDescription2EXT::default()
        .binding(binding)
        .stride(stride)
        .input_rate(rate)
        .divisor(divisor)
}

fn attribute(
    location: u32,
    binding: u32,
    format: vk::Format,
    offset: u32,
) -> vk::VertexInputAttributeDescription2EXT<'static> {
    vk::VertexInputAttributeDescription2EXT::default()
        .location(location)
        .binding(binding)
        .format(format)
        .offset(offset)
}

fn floats(v: &[[f32; 2]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

/// The six vertices of the rectangle [x0, x1] x [y0, y1].
fn quad(x0: f32, y0: f32, x1: f32, y1: f32) -> [[f32; 2]; 6] {
    [[x0, y0], [x1, y0], [x0, y1], [x0, y1], [x1, y0], [x1, y1]]
}

/// What a render draws.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scene {
    /// The same vertex buffer fetched as R32G32_SFLOAT at offset 0 (left half, red) and as
    /// R16G16_SNORM at offset 8 (right half, green).
    TwoFormats,
    /// A top-left quarter quad moved by per-instance offsets: 4 instances with divisor 2
    /// (top left and top right, red), then 3 instances with divisor 0 from first instance 3
    /// at a stride vkCmdBindVertexBuffers2 doubles (bottom left, green; with divisor 2 the
    /// last instance would read past the offsets and draw over the top left).
    Divisors,
}

/// Renders `scene` into a fresh target cleared to blue and returns its bytes.
fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, scene: Scene) -> Vec<u8> {
    let vid = ash::ext::vertex_input_dynamic_state::Device::new(&ctx.instance, dev);
    let eds = ash::ext::extended_dynamic_state::Device::new(&ctx.instance, dev);
    // Per vertex, 12 bytes: the left half's corner as two floats, then the right half's as
    // two snorm16s.
    let left = quad(-1.0, -1.0, 0.0, 1.0);
    let right = quad(0.0, -1.0, 1.0, 1.0);
    let snorm = |f: f32| ((f * 32767.0).round() as i16).to_le_bytes();
    let mut records = Vec::new();
    for (l, r) in left.iter().zip(&right) {
        records.extend(floats(&[*l]));
        records.extend(snorm(r[0]));
        records.extend(snorm(r[1]));
    }
    let mut two = Buf::new(ctx, dev, 72, vk::BufferUsageFlags::VERTEX_BUFFER);
    two.write(&records);
    // A top-left quarter quad, and per-instance offsets: entries 0 to 3 move it to the top
    // left, top right, bottom left and bottom right quarters; entry 6 (byte 48, entry 3 at
    // stride 16) to the bottom left.
    let mut corner = Buf::new(ctx, dev, 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    corner.write(&floats(&quad(-1.0, -1.0, 0.0, 0.0)));
    let mut offsets = Buf::new(ctx, dev, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    offsets.write(&floats(&[
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
        [0.0, 0.0],
        [0.0, 0.0],
        [0.0, 1.0],
        [0.0, 0.0],
    ]));
    // No offset: one per-instance element of zeros.
    let mut zero = Buf::new(ctx, dev, 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    zero.write(&[0; 8]);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
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
        let vs = dev
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&VERT_OFFSET),
                None,
            )
            .unwrap();
        let fs = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&FRAG), None)
            .unwrap();
        let pipe = pipeline(dev, vs, fs, layout, target.pass);
        let colour = |cb, c: [f32; 4]| {
            let push: Vec<u8> = c.iter().flat_map(|f| f.to_le_bytes()).collect();
            dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        };
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, CLEAR);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
        let per_vertex = vk::VertexInputRate::VERTEX;
        let per_instance = vk::VertexInputRate::INSTANCE;
        match scene {
            Scene::TwoFormats => {
                dev.cmd_bind_vertex_buffers(cb, 0, &[two.buffer, zero.buffer], &[0, 0]);
                let bindings = [
                    binding(0, 12, per_vertex, 1),
                    binding(1, 8, per_instance, 1),
                ];
                vid.cmd_set_vertex_input(
                    cb,
                    &bindings,
                    &[
                        attribute(0, 0, vk::Format::R32G32_SFLOAT, 0),
                        attribute(1, 1, vk::Format::R32G32_SFLOAT, 0),
                    ],
                );
                colour(cb, [1.0, 0.0, 0.0, 1.0]);
                dev.cmd_draw(cb, 6, 1, 0, 0);
                vid.cmd_set_vertex_input(
                    cb,
                    &bindings,
                    &[
                        attribute(0, 0, vk::Format::R16G16_SNORM, 8),
                        attribute(1, 1, vk::Format::R32G32_SFLOAT, 0),
                    ],
                );
                colour(cb, [0.0, 1.0, 0.0, 1.0]);
                dev.cmd_draw(cb, 6, 1, 0, 0);
            }
            Scene::Divisors => {
                dev.cmd_bind_vertex_buffers(cb, 0, &[corner.buffer, offsets.buffer], &[0, 0]);
                let attributes = [
                    attribute(0, 0, vk::Format::R32G32_SFLOAT, 0),
                    attribute(1, 1, vk::Format::R32G32_SFLOAT, 0),
                ];
                vid.cmd_set_vertex_input(
                    cb,
                    &[binding(0, 8, per_vertex, 1), binding(1, 8, per_instance, 2)],
                    &attributes,
                );
                colour(cb, [1.0, 0.0, 0.0, 1.0]);
                dev.cmd_draw(cb, 6, 4, 0, 0);
                vid.cmd_set_vertex_input(
                    cb,
                    &[binding(0, 8, per_vertex, 1), binding(1, 8, per_instance, 0)],
                    &attributes,
                );
                // The stride of binding 1 becomes 16: element 3 is entry 6.
                eds.cmd_bind_vertex_buffers2(cb, 1, &[offsets.buffer], &[0], None, Some(&[16]));
                colour(cb, [0.0, 1.0, 0.0, 1.0]);
                dev.cmd_draw(cb, 6, 3, 0, 3);
            }
        }
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target.out.bytes().to_vec();
        dev.destroy_pipeline(pipe, None);
        dev.destroy_shader_module(vs, None);
        dev.destroy_shader_module(fs, None);
        dev.destroy_pipeline_layout(layout, None);
        got
    };
    target.destroy(dev);
    two.destroy(dev);
    corner.destroy(dev);
    offsets.destroy(dev);
    zero.destroy(dev);
    got
}

fn check(got: &[u8], want: impl Fn(u32, u32) -> [u8; 4]) {
    for y in 0..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            assert_eq!(got[i..i + 4], want(x, y), "pixel ({x}, {y})");
        }
    }
}

#[test]
fn two_layouts_fetch_different_formats_and_offsets() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue, Scene::TwoFormats);
    check(&got, |x, _| if x < HALF { RED } else { GREEN });
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn divisors_and_stride_overrides_through_the_dynamic_layout() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue, Scene::Divisors);
    check(&got, |x, y| match (x < HALF, y < HALF) {
        (_, true) => RED,
        (true, false) => GREEN,
        (false, false) => BLUE,
    });
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn transform_feedback_captures_what_each_layout_fetches() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let vid = ash::ext::vertex_input_dynamic_state::Device::new(&ctx.instance, &dev);
    let xfb = ash::ext::transform_feedback::Device::new(&ctx.instance, &dev);
    // One triangle's vertices, each as two floats then as two uint16s (USCALED: converted
    // to float).
    let mut vb = Buf::new(&ctx, &dev, 36, vk::BufferUsageFlags::VERTEX_BUFFER);
    let mut bytes = Vec::new();
    for (f, u) in [
        ([1.5f32, -2.0f32], [7u16, 300u16]),
        ([3.25, 4.0], [65535, 0]),
        ([-0.5, 8.0], [1, 2]),
    ] {
        bytes.extend(floats(&[f]));
        bytes.extend(u.iter().flat_map(|x| x.to_le_bytes()));
    }
    vb.write(&bytes);
    let out = Buf::new(
        &ctx,
        &dev,
        48,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let subpass =
            [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
        let pass = dev
            .create_render_pass(
                &vk::RenderPassCreateInfo::default().subpasses(&subpass),
                None,
            )
            .unwrap();
        let fb = dev
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(pass)
                    .width(SIZE)
                    .height(SIZE)
                    .layers(1),
                None,
            )
            .unwrap();
        let layout = dev
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        let vs = dev
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&VERT_CAPTURE),
                None,
            )
            .unwrap();
        let stages = [vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main")];
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .rasterizer_discard_enable(true)
            .polygon_mode(vk::PolygonMode::FILL)
            .line_width(1.0);
        let states = [vk::DynamicState::VERTEX_INPUT_EXT];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&states);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .input_assembly_state(&assembly)
            .rasterization_state(&raster)
            .dynamic_state(&dynamic)
            .layout(layout)
            .render_pass(pass)
            .subpass(0);
        let pipe = dev
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines")[0];

        let shot = OneShot::begin(&dev);
        let cb = shot.cb;
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: SIZE,
                    height: SIZE,
                },
            });
        dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        // ash has no wrappers for these commands.
        let fp = xfb.fp();
        let (offset, size) = (0u64, 48u64);
        (fp.cmd_bind_transform_feedback_buffers_ext)(cb, 0, 1, &out.buffer, &offset, &size);
        (fp.cmd_begin_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        let bindings = [binding(0, 12, vk::VertexInputRate::VERTEX, 1)];
        vid.cmd_set_vertex_input(
            cb,
            &bindings,
            &[attribute(0, 0, vk::Format::R32G32_SFLOAT, 0)],
        );
        dev.cmd_draw(cb, 3, 1, 0, 0);
        vid.cmd_set_vertex_input(
            cb,
            &bindings,
            &[attribute(0, 0, vk::Format::R16G16_USCALED, 8)],
        );
        dev.cmd_draw(cb, 3, 1, 0, 0);
        (fp.cmd_end_transform_feedback_ext)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        dev.cmd_end_render_pass(cb);
        shot.submit_and_wait(&dev, queue);
        let got: Vec<f32> = out
            .bytes()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            got,
            [1.5, -2.0, 3.25, 4.0, -0.5, 8.0, 7.0, 300.0, 65535.0, 0.0, 1.0, 2.0],
            "captured records"
        );
        dev.destroy_pipeline(pipe, None);
        dev.destroy_shader_module(vs, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
    }
    vb.destroy(&dev);
    out.destroy(&dev);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
