//! Dynamic colour blend and multisample state through the loader, under the validation layer:
//! VK_EXT_color_write_enable, the blend states of VK_EXT_extended_dynamic_state3 (blend
//! enable, blend equation, write mask, logic op enable), its sample mask and alpha-to-one
//! enable, and VK_EXT_extended_dynamic_state2's logic op. agx4 compiles all of them into the
//! fragment shader, so every draw below that changes one runs another variant of the same
//! pipeline's fragment program.
//!
//! One pipeline draws each quadrant of a 16x16 RGBA8 target cleared to blue, with its
//! fragment shader writing (1, 0, 0, 0.5) and a different dynamic state per draw; each
//! quadrant must show what that state says. Every expected byte is exact in UNORM8. The
//! colour write test also runs with a pass-through geometry shader and with a dynamic
//! vertex input layout (VK_EXT_vertex_input_dynamic_state), whose pipelines compile their
//! vertex side differently but pick fragment variants the same way.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const SOURCE: [f32; 4] = [1.0, 0.0, 0.0, 0.5];
/// SOURCE as written without blending (0.5 is 127.5: UNORM8 rounds it to 128).
const WRITTEN: [u8; 4] = [255, 0, 0, 128];
const CLEARED: [u8; 4] = [0, 0, 255, 255];

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(triangles) in;
/// layout(triangle_strip, max_vertices = 3) out;
/// void main() {
///     for (int i = 0; i < 3; i++) {
///         gl_Position = gl_in[i].gl_Position;
///         EmitVertex();
///     }
///     EndPrimitive();
/// }
/// ```
#[rustfmt::skip]
const PASS_GEOM: [u32; 343] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000029, 0x00000000, 0x00020011, 0x00000002, 0x0006000b, 0x00000001, 0x4c534c47,
0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f, 0x00000003, 0x00000004, 0x6e69616d,
0x00000000, 0x0000001a, 0x0000001f, 0x00030010, 0x00000004, 0x00000016, 0x00040010, 0x00000004, 0x00000000, 0x00000001,
0x00030010, 0x00000004, 0x0000001d, 0x00040010, 0x00000004, 0x0000001a, 0x00000003, 0x00030003, 0x00000002, 0x000001c2,
0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000008, 0x00000069, 0x00060005, 0x00000018, 0x505f6c67,
0x65567265, 0x78657472, 0x00000000, 0x00060006, 0x00000018, 0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006,
0x00000018, 0x00000001, 0x505f6c67, 0x746e696f, 0x657a6953, 0x00000000, 0x00070006, 0x00000018, 0x00000002, 0x435f6c67,
0x4470696c, 0x61747369, 0x0065636e, 0x00070006, 0x00000018, 0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e,
0x00030005, 0x0000001a, 0x00000000, 0x00060005, 0x0000001b, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006,
0x0000001b, 0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x0000001b, 0x00000001, 0x505f6c67, 0x746e696f,
0x657a6953, 0x00000000, 0x00070006, 0x0000001b, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006,
0x0000001b, 0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00040005, 0x0000001f, 0x695f6c67, 0x0000006e,
0x00050048, 0x00000018, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000018, 0x00000001, 0x0000000b, 0x00000001,
0x00050048, 0x00000018, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x00000018, 0x00000003, 0x0000000b, 0x00000004,
0x00030047, 0x00000018, 0x00000002, 0x00050048, 0x0000001b, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x0000001b,
0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x0000001b, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x0000001b,
0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x0000001b, 0x00000002, 0x00020013, 0x00000002, 0x00030021, 0x00000003,
0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000001, 0x00040020, 0x00000007, 0x00000007, 0x00000006, 0x0004002b,
0x00000006, 0x00000009, 0x00000000, 0x0004002b, 0x00000006, 0x00000010, 0x00000003, 0x00020014, 0x00000011, 0x00030016,
0x00000013, 0x00000020, 0x00040017, 0x00000014, 0x00000013, 0x00000004, 0x00040015, 0x00000015, 0x00000020, 0x00000000,
0x0004002b, 0x00000015, 0x00000016, 0x00000001, 0x0004001c, 0x00000017, 0x00000013, 0x00000016, 0x0006001e, 0x00000018,
0x00000014, 0x00000013, 0x00000017, 0x00000017, 0x00040020, 0x00000019, 0x00000003, 0x00000018, 0x0004003b, 0x00000019,
0x0000001a, 0x00000003, 0x0006001e, 0x0000001b, 0x00000014, 0x00000013, 0x00000017, 0x00000017, 0x0004002b, 0x00000015,
0x0000001c, 0x00000003, 0x0004001c, 0x0000001d, 0x0000001b, 0x0000001c, 0x00040020, 0x0000001e, 0x00000001, 0x0000001d,
0x0004003b, 0x0000001e, 0x0000001f, 0x00000001, 0x00040020, 0x00000021, 0x00000001, 0x00000014, 0x00040020, 0x00000024,
0x00000003, 0x00000014, 0x0004002b, 0x00000006, 0x00000027, 0x00000001, 0x00050036, 0x00000002, 0x00000004, 0x00000000,
0x00000003, 0x000200f8, 0x00000005, 0x0004003b, 0x00000007, 0x00000008, 0x00000007, 0x0003003e, 0x00000008, 0x00000009,
0x000200f9, 0x0000000a, 0x000200f8, 0x0000000a, 0x000400f6, 0x0000000c, 0x0000000d, 0x00000000, 0x000200f9, 0x0000000e,
0x000200f8, 0x0000000e, 0x0004003d, 0x00000006, 0x0000000f, 0x00000008, 0x000500b1, 0x00000011, 0x00000012, 0x0000000f,
0x00000010, 0x000400fa, 0x00000012, 0x0000000b, 0x0000000c, 0x000200f8, 0x0000000b, 0x0004003d, 0x00000006, 0x00000020,
0x00000008, 0x00060041, 0x00000021, 0x00000022, 0x0000001f, 0x00000020, 0x00000009, 0x0004003d, 0x00000014, 0x00000023,
0x00000022, 0x00050041, 0x00000024, 0x00000025, 0x0000001a, 0x00000009, 0x0003003e, 0x00000025, 0x00000023, 0x000100da,
0x000200f9, 0x0000000d, 0x000200f8, 0x0000000d, 0x0004003d, 0x00000006, 0x00000026, 0x00000008, 0x00050080, 0x00000006,
0x00000028, 0x00000026, 0x00000027, 0x0003003e, 0x00000008, 0x00000028, 0x000200f9, 0x0000000a, 0x000200f8, 0x0000000c,
0x000100db, 0x000100fd, 0x00010038,
];

/// How the pipeline's vertex side is built.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// A pass-through geometry shader between the vertex and fragment shaders.
    geometry: bool,
    /// The vertex input layout is dynamic (set with vkCmdSetVertexInputEXT).
    vertex_input: bool,
}

const PLAIN: Shape = Shape {
    geometry: false,
    vertex_input: false,
};

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::extended_dynamic_state2::NAME.as_ptr(),
        ash::ext::extended_dynamic_state3::NAME.as_ptr(),
        ash::ext::color_write_enable::NAME.as_ptr(),
        ash::ext::vertex_input_dynamic_state::NAME.as_ptr(),
    ];
    let features = vk::PhysicalDeviceFeatures::default()
        .logic_op(true)
        .alpha_to_one(true)
        .geometry_shader(true);
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_color_blend_enable(true)
        .extended_dynamic_state3_color_blend_equation(true)
        .extended_dynamic_state3_color_write_mask(true)
        .extended_dynamic_state3_logic_op_enable(true)
        .extended_dynamic_state3_sample_mask(true)
        .extended_dynamic_state3_alpha_to_one_enable(true);
    let mut eds2 = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default()
        .extended_dynamic_state2(true)
        .extended_dynamic_state2_logic_op(true);
    let mut cwe = vk::PhysicalDeviceColorWriteEnableFeaturesEXT::default().color_write_enable(true);
    let mut vi = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
        .vertex_input_dynamic_state(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .enabled_features(&features)
        .push_next(&mut eds2)
        .push_next(&mut eds3)
        .push_next(&mut cwe)
        .push_next(&mut vi);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with the dynamic blend states");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Two triangles covering quadrant `q` (0 top-left, 1 top-right, 2 bottom-left,
/// 3 bottom-right) in clip space.
fn quadrant(q: usize) -> [f32; 12] {
    let x0 = if q & 1 == 0 { -1.0 } else { 0.0 };
    let y0 = if q < 2 { -1.0 } else { 0.0 };
    let (x1, y1) = (x0 + 1.0, y0 + 1.0);
    [x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1]
}

/// The quadrant of pixel `i` of the target.
fn quadrant_of(i: usize) -> usize {
    let (x, y) = (i as u32 % SIZE, i as u32 / SIZE);
    usize::from(x >= SIZE / 2) + 2 * usize::from(y >= SIZE / 2)
}

/// Draws the four quadrants with one pipeline of `shape` whose `dynamic` states are dynamic,
/// calling `set(q, cb)` before the draw of quadrant `q`; returns the target's bytes.
fn render(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    shape: Shape,
    dynamic: &[vk::DynamicState],
    set: &dyn Fn(usize, vk::CommandBuffer),
) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 4 * 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = (0..4)
        .flat_map(quadrant)
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&bytes);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let shaders = Shaders::new(dev);
    let gs = shape.geometry.then(|| {
        let info = vk::ShaderModuleCreateInfo::default().code(&PASS_GEOM);
        // SAFETY: valid device and create info; destroyed below.
        unsafe { dev.create_shader_module(&info, None) }.expect("geometry shader module")
    });
    let mut dynamic = dynamic.to_vec();
    if shape.vertex_input {
        dynamic.push(vk::DynamicState::VERTEX_INPUT_EXT);
    }
    let spec = PipelineSpec {
        dynamic,
        geometry: gs,
        ..PipelineSpec::new(SIZE)
    };
    let pipeline = shaders.pipeline(dev, target.pass, &spec);
    let vi = ash::ext::vertex_input_dynamic_state::Device::new(&ctx.instance, dev);
    let shot = OneShot::begin(dev);
    let cb = shot.cb;
    target.begin(dev, cb, CLEAR);
    let push: Vec<u8> = SOURCE.iter().flat_map(|f| f.to_le_bytes()).collect();
    // SAFETY: `cb` is recording inside the render pass the pipeline was made for.
    unsafe {
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        if shape.vertex_input {
            // The layout the static pipelines have (tests/common/render.rs).
            let bindings = [vk::VertexInputBindingDescription2EXT::default()
                .binding(0)
                .stride(8)
                .input_rate(vk::VertexInputRate::VERTEX)
                .divisor(1)];
            let attributes = [vk::VertexInputAttributeDescription2EXT::default()
                .location(0)
                .binding(0)
                .format(vk::Format::R32G32_SFLOAT)
                .offset(0)];
            vi.cmd_set_vertex_input(cb, &bindings, &attributes);
        }
        dev.cmd_push_constants(cb, shaders.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        for q in 0..4 {
            set(q, cb);
            dev.cmd_draw(cb, 6, 1, 6 * q as u32, 0);
        }
        dev.cmd_end_render_pass(cb);
    }
    target.read_back(dev, cb);
    shot.submit_and_wait(dev, queue);
    let got = target.out.bytes().to_vec();
    // SAFETY: the GPU is idle.
    unsafe {
        dev.destroy_pipeline(pipeline, None);
        if let Some(gs) = gs {
            dev.destroy_shader_module(gs, None);
        }
    }
    shaders.destroy(dev);
    target.destroy(dev);
    vb.destroy(dev);
    got
}

fn check(got: &[u8], want: [[u8; 4]; 4]) {
    for (i, px) in got.chunks(4).enumerate() {
        let q = quadrant_of(i);
        assert_eq!(px, want[q], "pixel {i} (quadrant {q})");
    }
}

#[test]
fn colour_write_enable_mask_and_equation_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let cwe = ash::ext::color_write_enable::Device::new(&ctx.instance, &dev);
    let add = vk::ColorBlendEquationEXT {
        src_color_blend_factor: vk::BlendFactor::ONE,
        dst_color_blend_factor: vk::BlendFactor::ONE,
        color_blend_op: vk::BlendOp::ADD,
        src_alpha_blend_factor: vk::BlendFactor::ZERO,
        dst_alpha_blend_factor: vk::BlendFactor::ONE,
        alpha_blend_op: vk::BlendOp::ADD,
    };
    let set = |q: usize, cb: vk::CommandBuffer| {
        // What each quadrant runs with; every state is set before every draw.
        let (write, mask, blend) = match q {
            // The state the pipeline's own program was compiled for.
            0 => (true, vk::ColorComponentFlags::RGBA, false),
            // No write at all, whatever the mask.
            1 => (false, vk::ColorComponentFlags::RGBA, false),
            // Red and alpha only: green and blue keep the clear colour.
            2 => (
                true,
                vk::ColorComponentFlags::R | vk::ColorComponentFlags::A,
                false,
            ),
            // Additive colour, destination alpha kept.
            _ => (true, vk::ColorComponentFlags::RGBA, true),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            (cwe.fp().cmd_set_color_write_enable_ext)(cb, 1, [vk::Bool32::from(write)].as_ptr());
            eds3.cmd_set_color_write_mask(cb, 0, &[mask]);
            eds3.cmd_set_color_blend_enable(cb, 0, &[vk::Bool32::from(blend)]);
            eds3.cmd_set_color_blend_equation(cb, 0, &[add]);
        }
    };
    let dynamic = [
        vk::DynamicState::COLOR_WRITE_ENABLE_EXT,
        vk::DynamicState::COLOR_WRITE_MASK_EXT,
        vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
        vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
    ];
    for geometry in [false, true] {
        for vertex_input in [false, true] {
            let shape = Shape {
                geometry,
                vertex_input,
            };
            eprintln!("{shape:?}");
            let got = render(&ctx, &dev, queue, shape, &dynamic, &set);
            check(
                &got,
                [WRITTEN, CLEARED, [255, 0, 255, 128], [255, 0, 255, 255]],
            );
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn logic_op_enable_and_op_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds2 = ash::ext::extended_dynamic_state2::Device::new(&ctx.instance, &dev);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let set = |q: usize, cb: vk::CommandBuffer| {
        let (enable, op) = match q {
            0 => (false, vk::LogicOp::XOR),
            1 => (true, vk::LogicOp::XOR),
            2 => (true, vk::LogicOp::AND),
            _ => (true, vk::LogicOp::COPY_INVERTED),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            eds3.cmd_set_logic_op_enable(cb, enable);
            eds2.cmd_set_logic_op(cb, op);
        }
    };
    let dynamic = [
        vk::DynamicState::LOGIC_OP_ENABLE_EXT,
        vk::DynamicState::LOGIC_OP_EXT,
    ];
    let got = render(&ctx, &dev, queue, PLAIN, &dynamic, &set);
    // Source bytes (255, 0, 0, 128) against the clear colour's (0, 0, 255, 255).
    check(
        &got,
        [
            WRITTEN,
            [255, 0, 255, 127],
            [0, 0, 0, 128],
            [0, 255, 255, 127],
        ],
    );
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn sample_mask_and_alpha_to_one_change_between_draws() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&ctx.instance, &dev);
    let set = |q: usize, cb: vk::CommandBuffer| {
        // Quadrant 2 masks the only sample away; quadrant 1 replaces alpha by 1.
        let (mask, one) = match q {
            1 => (1, true),
            2 => (0, false),
            _ => (1, false),
        };
        // SAFETY: `cb` is recording; the pipeline has these states dynamic.
        unsafe {
            eds3.cmd_set_sample_mask(cb, vk::SampleCountFlags::TYPE_1, &[mask]);
            eds3.cmd_set_alpha_to_one_enable(cb, one);
        }
    };
    let dynamic = [
        vk::DynamicState::SAMPLE_MASK_EXT,
        vk::DynamicState::ALPHA_TO_ONE_ENABLE_EXT,
    ];
    let got = render(&ctx, &dev, queue, PLAIN, &dynamic, &set);
    check(&got, [WRITTEN, [255, 0, 0, 255], CLEARED, WRITTEN]);
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
