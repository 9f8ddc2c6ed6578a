//! Vulkan 1.3's extended dynamic state (VK_EXT_extended_dynamic_state and ..._state2) through
//! the loader, under the validation layer. One pipeline makes cull mode, front face, topology,
//! viewport and scissor with count, vertex binding stride and rasterizer discard dynamic and
//! gives static values that would draw something else (no culling, triangle lists, stride 8,
//! discard on); a second pipeline has all of them static. Four draws of a full-target quad,
//! each limited to one quadrant by its scissor, show which values each draw ran with:
//!
//! - top left: state set before the pipeline is bound (strip of 4 vertices, stride 16,
//!   clockwise front, back culling; the quad's triangles are clockwise) draws red over all of it;
//! - top right: front face switched to counter-clockwise after the bind culls the quad;
//! - bottom left: rasterizer discard switched on draws nothing;
//! - bottom right: the static pipeline (its own scissor, list of 6 vertices, stride 8, no
//!   culling) draws white although the dynamic values (counter-clockwise, back culling) would
//!   cull it.
//!
//! Undrawn quadrants keep the blue clear colour. A second test draws with 8-bit indices
//! (VK_EXT_index_type_uint8) and a dynamically enabled primitive restart.

mod common;

use ash::vk;
use common::render::{Buf, ColourTarget, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const HALF: u32 = SIZE / 2;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::extended_dynamic_state::NAME.as_ptr(),
        ash::ext::extended_dynamic_state2::NAME.as_ptr(),
        ash::ext::index_type_uint8::NAME.as_ptr(),
    ];
    let mut eds =
        vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT::default().extended_dynamic_state(true);
    let mut eds2 =
        vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default().extended_dynamic_state2(true);
    let mut uint8 = vk::PhysicalDeviceIndexTypeUint8FeaturesEXT::default().index_type_uint8(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut eds)
        .push_next(&mut eds2)
        .push_next(&mut uint8);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with extended dynamic state");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

fn rect(x: u32, y: u32, w: u32, h: u32) -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D {
            x: x as i32,
            y: y as i32,
        },
        extent: vk::Extent2D {
            width: w,
            height: h,
        },
    }
}

fn full_viewport() -> vk::Viewport {
    vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: SIZE as f32,
        height: SIZE as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }
}

/// A pipeline drawing VERT/FRAG into subpass 0 of `pass`; `dynamic` makes the extended
/// state dynamic, else it is the static pipeline of the bottom-right quadrant.
fn pipeline(
    dev: &ash::Device,
    shaders: &Shaders,
    pass: vk::RenderPass,
    dynamic: bool,
) -> vk::Pipeline {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(shaders.vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(shaders.fs)
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
    let viewports = [full_viewport()];
    let scissors = [rect(HALF, HALF, HALF, HALF)];
    let viewport = if dynamic {
        vk::PipelineViewportStateCreateInfo::default()
    } else {
        vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors)
    };
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .rasterizer_discard_enable(dynamic)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_att);
    let states = [
        vk::DynamicState::CULL_MODE,
        vk::DynamicState::FRONT_FACE,
        vk::DynamicState::PRIMITIVE_TOPOLOGY,
        vk::DynamicState::VIEWPORT_WITH_COUNT,
        vk::DynamicState::SCISSOR_WITH_COUNT,
        vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE,
        vk::DynamicState::RASTERIZER_DISCARD_ENABLE,
        vk::DynamicState::PRIMITIVE_RESTART_ENABLE,
    ];
    let dynamic_info = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(if dynamic {
        &states
    } else {
        &[]
    });
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic_info)
        .layout(shaders.layout)
        .render_pass(pass)
        .subpass(0);
    // SAFETY: valid device, pass and create info.
    unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
        .map_err(|(_, e)| e)
        .expect("vkCreateGraphicsPipelines")[0]
}

/// What a render draws.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scene {
    /// The four quadrant draws of the module comment.
    Quadrants,
    /// One indexed strip with 8-bit indices and a dynamically enabled restart: the top-left
    /// and bottom-right quadrants as two strips of 4 separated by index 0xff. Vertex 255 is
    /// the top-right corner, so a draw that did not restart would cover part of the top right.
    Uint8Restart,
}

/// Renders `scene` into a fresh target cleared to blue and returns its bytes.
fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, scene: Scene) -> Vec<u8> {
    let eds = ash::ext::extended_dynamic_state::Device::new(&ctx.instance, dev);
    let eds2 = ash::ext::extended_dynamic_state2::Device::new(&ctx.instance, dev);
    // A strip of 4 vertices with 8 bytes of padding after each position (stride 16), then
    // the same quad as a list of 6 vertices at stride 8. Both quads' triangles are clockwise
    // on the screen (y points down).
    let far = 5.0f32;
    let strip: [f32; 16] = [
        -1.0, -1.0, far, far, 1.0, -1.0, far, far, -1.0, 1.0, far, far, 1.0, 1.0, far, far,
    ];
    let list: [f32; 12] = [
        -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0,
    ];
    let mut vb = Buf::new(ctx, dev, 112, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = strip
        .iter()
        .chain(&list)
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&bytes);
    let mut quads = [[0.0f32; 2]; 256];
    quads[..8].copy_from_slice(&[
        [-1.0, -1.0],
        [0.0, -1.0],
        [-1.0, 0.0],
        [0.0, 0.0],
        [0.0, 0.0],
        [1.0, 0.0],
        [0.0, 1.0],
        [1.0, 1.0],
    ]);
    quads[255] = [1.0, -1.0];
    let mut vb8 = Buf::new(ctx, dev, 256 * 8, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = quads
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb8.write(&bytes);
    let mut ib = Buf::new(ctx, dev, 16, vk::BufferUsageFlags::INDEX_BUFFER);
    ib.write(&[0, 1, 2, 3, 0xff, 4, 5, 6, 7]);
    let target = ColourTarget::new(ctx, dev, SIZE, FORMAT);
    let pass = target.pass;
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let shaders = Shaders::new(dev);
        let dynamic = pipeline(dev, &shaders, pass, true);
        let fixed = pipeline(dev, &shaders, pass, false);
        let layout = shaders.layout;
        let area = rect(0, 0, SIZE, SIZE);
        let colour = |cb, c: [f32; 4]| {
            let push: Vec<u8> = c.iter().flat_map(|f| f.to_le_bytes()).collect();
            dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        };

        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        target.begin(dev, cb, CLEAR);
        if scene == Scene::Uint8Restart {
            eds.cmd_set_cull_mode(cb, vk::CullModeFlags::NONE);
            eds.cmd_set_front_face(cb, vk::FrontFace::CLOCKWISE);
            eds.cmd_set_primitive_topology(cb, vk::PrimitiveTopology::TRIANGLE_STRIP);
            eds.cmd_set_viewport_with_count(cb, &[full_viewport()]);
            eds.cmd_set_scissor_with_count(cb, &[area]);
            eds.cmd_bind_vertex_buffers2(cb, 0, &[vb8.buffer], &[0], None, Some(&[8]));
            eds2.cmd_set_rasterizer_discard_enable(cb, false);
            eds2.cmd_set_primitive_restart_enable(cb, true);
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, dynamic);
            dev.cmd_bind_index_buffer(cb, ib.buffer, 0, vk::IndexType::UINT8_EXT);
            colour(cb, [1.0, 0.0, 0.0, 1.0]);
            dev.cmd_draw_indexed(cb, 9, 1, 0, 0, 0);
        }
        // Top left: everything set before the bind.
        let quadrants = scene == Scene::Quadrants;
        if quadrants {
            eds.cmd_set_cull_mode(cb, vk::CullModeFlags::BACK);
            eds.cmd_set_front_face(cb, vk::FrontFace::CLOCKWISE);
            eds.cmd_set_primitive_topology(cb, vk::PrimitiveTopology::TRIANGLE_STRIP);
            eds.cmd_set_viewport_with_count(cb, &[full_viewport()]);
            eds.cmd_set_scissor_with_count(cb, &[rect(0, 0, HALF, HALF)]);
            eds.cmd_bind_vertex_buffers2(cb, 0, &[vb.buffer], &[0], None, Some(&[16]));
            eds2.cmd_set_rasterizer_discard_enable(cb, false);
            eds2.cmd_set_primitive_restart_enable(cb, false);
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, dynamic);
            colour(cb, [1.0, 0.0, 0.0, 1.0]);
            dev.cmd_draw(cb, 4, 1, 0, 0);
            // Top right: counter-clockwise front faces cull the quad.
            eds.cmd_set_scissor_with_count(cb, &[rect(HALF, 0, HALF, HALF)]);
            eds.cmd_set_front_face(cb, vk::FrontFace::COUNTER_CLOCKWISE);
            colour(cb, [0.0, 1.0, 0.0, 1.0]);
            dev.cmd_draw(cb, 4, 1, 0, 0);
            // Bottom left: discarded.
            eds.cmd_set_scissor_with_count(cb, &[rect(0, HALF, HALF, HALF)]);
            eds.cmd_set_front_face(cb, vk::FrontFace::CLOCKWISE);
            eds2.cmd_set_rasterizer_discard_enable(cb, true);
            dev.cmd_draw(cb, 4, 1, 0, 0);
            // Bottom right: the static pipeline, with dynamic values left that would cull.
            eds.cmd_set_front_face(cb, vk::FrontFace::COUNTER_CLOCKWISE);
            eds2.cmd_set_rasterizer_discard_enable(cb, false);
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, fixed);
            dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[64]);
            colour(cb, [1.0, 1.0, 1.0, 1.0]);
            dev.cmd_draw(cb, 6, 1, 0, 0);
        }
        dev.cmd_end_render_pass(cb);
        target.read_back(dev, cb);
        shot.submit_and_wait(dev, queue);
        let got = target.out.bytes().to_vec();

        dev.destroy_pipeline(dynamic, None);
        dev.destroy_pipeline(fixed, None);
        shaders.destroy(dev);
        got
    };
    target.destroy(dev);
    vb.destroy(dev);
    vb8.destroy(dev);
    ib.destroy(dev);
    got
}

#[test]
fn dynamic_state_applies_where_the_pipeline_makes_it_dynamic() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue, Scene::Quadrants);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let want: [u8; 4] = match (x < HALF, y < HALF) {
                (true, true) => [255, 0, 0, 255],
                (false, false) => [255, 255, 255, 255],
                _ => [0, 0, 255, 255],
            };
            let i = ((y * SIZE + x) * 4) as usize;
            assert_eq!(got[i..i + 4], want, "pixel ({x}, {y})");
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn uint8_indices_restart_when_enabled_dynamically() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let got = render(&ctx, &dev, queue, Scene::Uint8Restart);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let want: [u8; 4] = if (x < HALF) == (y < HALF) {
                [255, 0, 0, 255]
            } else {
                [0, 0, 255, 255]
            };
            let i = ((y * SIZE + x) * 4) as usize;
            assert_eq!(got[i..i + 4], want, "pixel ({x}, {y})");
        }
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
