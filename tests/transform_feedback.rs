//! Transform feedback (VK_EXT_transform_feedback) through the loader, under the validation
//! layer. A vertex shader captures (gl_VertexIndex, gl_InstanceIndex) as a vec2 per vertex;
//! draws with rasterization discarded check the order Vulkan writes strips, fans and indexed
//! lists in, instancing, resuming from a counter buffer written by End, the overflow rule
//! (a primitive is written whole or not at all), the transform feedback query's primitives
//! written and needed, and strips, fans and lists with primitive restart. The expected records are computed here from the spec's
//! decomposition of each topology.

mod common;

use ash::vk;
use common::render::Buf;
use common::{assert_no_validation_messages, submit_and_wait, Ctx};

/// glslangValidator -V of:
/// ```glsl
/// #version 450
/// layout(xfb_buffer = 0, xfb_stride = 8) out;
/// layout(location = 0, xfb_buffer = 0, xfb_offset = 0) out vec2 ids;
/// void main() {
///     ids = vec2(float(gl_VertexIndex), float(gl_InstanceIndex));
///     gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
/// }
/// ```
#[rustfmt::skip]
const VERT: [u32; 274] = [
0x07230203, 0x00010000, 0x0008000b, 0x00000020, 0x00000000, 0x00020011, 0x00000001, 0x00020011, 0x00000035, 0x0006000b,
0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001, 0x0009000f, 0x00000000,
0x00000004, 0x6e69616d, 0x00000000, 0x00000009, 0x0000000c, 0x0000000f, 0x00000019, 0x00030010, 0x00000004, 0x0000000b,
0x00030003, 0x00000002, 0x000001c2, 0x00040005, 0x00000004, 0x6e69616d, 0x00000000, 0x00030005, 0x00000009, 0x00736469,
0x00060005, 0x0000000c, 0x565f6c67, 0x65747265, 0x646e4978, 0x00007865, 0x00070005, 0x0000000f, 0x495f6c67, 0x6174736e,
0x4965636e, 0x7865646e, 0x00000000, 0x00060005, 0x00000017, 0x505f6c67, 0x65567265, 0x78657472, 0x00000000, 0x00060006,
0x00000017, 0x00000000, 0x505f6c67, 0x7469736f, 0x006e6f69, 0x00070006, 0x00000017, 0x00000001, 0x505f6c67, 0x746e696f,
0x657a6953, 0x00000000, 0x00070006, 0x00000017, 0x00000002, 0x435f6c67, 0x4470696c, 0x61747369, 0x0065636e, 0x00070006,
0x00000017, 0x00000003, 0x435f6c67, 0x446c6c75, 0x61747369, 0x0065636e, 0x00030005, 0x00000019, 0x00000000, 0x00040047,
0x00000009, 0x0000001e, 0x00000000, 0x00040047, 0x00000009, 0x00000024, 0x00000000, 0x00040047, 0x00000009, 0x00000025,
0x00000008, 0x00040047, 0x00000009, 0x00000023, 0x00000000, 0x00040047, 0x0000000c, 0x0000000b, 0x0000002a, 0x00040047,
0x0000000f, 0x0000000b, 0x0000002b, 0x00050048, 0x00000017, 0x00000000, 0x0000000b, 0x00000000, 0x00050048, 0x00000017,
0x00000001, 0x0000000b, 0x00000001, 0x00050048, 0x00000017, 0x00000002, 0x0000000b, 0x00000003, 0x00050048, 0x00000017,
0x00000003, 0x0000000b, 0x00000004, 0x00030047, 0x00000017, 0x00000002, 0x00040047, 0x00000019, 0x00000024, 0x00000000,
0x00040047, 0x00000019, 0x00000025, 0x00000008, 0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00030016,
0x00000006, 0x00000020, 0x00040017, 0x00000007, 0x00000006, 0x00000002, 0x00040020, 0x00000008, 0x00000003, 0x00000007,
0x0004003b, 0x00000008, 0x00000009, 0x00000003, 0x00040015, 0x0000000a, 0x00000020, 0x00000001, 0x00040020, 0x0000000b,
0x00000001, 0x0000000a, 0x0004003b, 0x0000000b, 0x0000000c, 0x00000001, 0x0004003b, 0x0000000b, 0x0000000f, 0x00000001,
0x00040017, 0x00000013, 0x00000006, 0x00000004, 0x00040015, 0x00000014, 0x00000020, 0x00000000, 0x0004002b, 0x00000014,
0x00000015, 0x00000001, 0x0004001c, 0x00000016, 0x00000006, 0x00000015, 0x0006001e, 0x00000017, 0x00000013, 0x00000006,
0x00000016, 0x00000016, 0x00040020, 0x00000018, 0x00000003, 0x00000017, 0x0004003b, 0x00000018, 0x00000019, 0x00000003,
0x0004002b, 0x0000000a, 0x0000001a, 0x00000000, 0x0004002b, 0x00000006, 0x0000001b, 0x00000000, 0x0004002b, 0x00000006,
0x0000001c, 0x3f800000, 0x0007002c, 0x00000013, 0x0000001d, 0x0000001b, 0x0000001b, 0x0000001b, 0x0000001c, 0x00040020,
0x0000001e, 0x00000003, 0x00000013, 0x00050036, 0x00000002, 0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005,
0x0004003d, 0x0000000a, 0x0000000d, 0x0000000c, 0x0004006f, 0x00000006, 0x0000000e, 0x0000000d, 0x0004003d, 0x0000000a,
0x00000010, 0x0000000f, 0x0004006f, 0x00000006, 0x00000011, 0x00000010, 0x00050050, 0x00000007, 0x00000012, 0x0000000e,
0x00000011, 0x0003003e, 0x00000009, 0x00000012, 0x00050041, 0x0000001e, 0x0000001f, 0x00000019, 0x0000001a, 0x0003003e,
0x0000001f, 0x0000001d, 0x000100fd, 0x00010038,
];

/// Bytes of one captured vertex.
const STRIDE: u64 = 8;

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts = [
        ash::ext::transform_feedback::NAME.as_ptr(),
        ash::ext::primitive_topology_list_restart::NAME.as_ptr(),
    ];
    let mut xfb =
        vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
    let mut list_restart = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default()
        .primitive_topology_list_restart(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&exts)
        .push_next(&mut xfb)
        .push_next(&mut list_restart);
    // SAFETY: valid physical device and create info.
    let dev = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }.expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue)
}

struct Pass {
    pass: vk::RenderPass,
    fb: vk::Framebuffer,
    layout: vk::PipelineLayout,
    vs: vk::ShaderModule,
}

fn pass(dev: &ash::Device) -> Pass {
    let subpass =
        [vk::SubpassDescription::default().pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)];
    // SAFETY: valid device and create infos.
    unsafe {
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
                    .width(16)
                    .height(16)
                    .layers(1),
                None,
            )
            .unwrap();
        let layout = dev
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        let vs = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&VERT), None)
            .unwrap();
        Pass {
            pass,
            fb,
            layout,
            vs,
        }
    }
}

fn pipeline(dev: &ash::Device, p: &Pass, topology: vk::PrimitiveTopology) -> vk::Pipeline {
    pipeline_with(dev, p, topology, false)
}

fn pipeline_with(
    dev: &ash::Device,
    p: &Pass,
    topology: vk::PrimitiveTopology,
    restart: bool,
) -> vk::Pipeline {
    let stages = [vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .module(p.vs)
        .name(c"main")];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(topology)
        .primitive_restart_enable(restart);
    let viewports = [vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: 16.0,
        height: 16.0,
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D {
            width: 16,
            height: 16,
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .rasterizer_discard_enable(true)
        .polygon_mode(vk::PolygonMode::FILL)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .layout(p.layout)
        .render_pass(p.pass)
        .subpass(0);
    // SAFETY: valid device, pass and create info.
    unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
        .map_err(|(_, e)| e)
        .expect("vkCreateGraphicsPipelines")[0]
}

/// The extension's commands for buffer 0 and one counter buffer.
struct Xfb(ash::ext::transform_feedback::Device);

impl Xfb {
    /// # Safety
    /// `cb` is recording inside a render pass; the buffer is valid.
    unsafe fn bind(&self, cb: vk::CommandBuffer, buffer: vk::Buffer, size: u64) {
        let (offsets, sizes) = ([0u64], [size]);
        // SAFETY: the caller's contract; one buffer, offset and size.
        unsafe {
            (self.0.fp().cmd_bind_transform_feedback_buffers_ext)(
                cb,
                0,
                1,
                &buffer,
                offsets.as_ptr(),
                sizes.as_ptr(),
            )
        }
    }

    /// # Safety
    /// As for `bind`.
    unsafe fn begin(&self, cb: vk::CommandBuffer, counter: Option<(vk::Buffer, u64)>) {
        // SAFETY: the caller's contract; no counter buffers or one.
        unsafe {
            match counter {
                Some((b, o)) => (self.0.fp().cmd_begin_transform_feedback_ext)(cb, 0, 1, &b, &o),
                None => (self.0.fp().cmd_begin_transform_feedback_ext)(
                    cb,
                    0,
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                ),
            }
        }
    }

    /// # Safety
    /// As for `bind`.
    unsafe fn end(&self, cb: vk::CommandBuffer, counter: Option<(vk::Buffer, u64)>) {
        // SAFETY: the caller's contract.
        unsafe {
            match counter {
                Some((b, o)) => (self.0.fp().cmd_end_transform_feedback_ext)(cb, 0, 1, &b, &o),
                None => (self.0.fp().cmd_end_transform_feedback_ext)(
                    cb,
                    0,
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                ),
            }
        }
    }
}

/// The captured records of `buf` from byte `from`, `n` of them.
fn records(buf: &Buf, from: u64, n: usize) -> Vec<(u32, u32)> {
    buf.bytes()[from as usize..]
        .chunks(8)
        .take(n)
        .map(|c| {
            let f = |i: usize| f32::from_le_bytes(c[i..i + 4].try_into().unwrap()) as u32;
            (f(0), f(4))
        })
        .collect()
}

fn u32_at(buf: &Buf, at: usize) -> u32 {
    u32::from_le_bytes(buf.bytes()[at..at + 4].try_into().unwrap())
}

#[test]
fn transform_feedback_captures_in_vulkan_order_resumes_and_stops_at_overflow() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let xfb = Xfb(ash::ext::transform_feedback::Device::new(
        &ctx.instance,
        &dev,
    ));
    let p = pass(&dev);
    let strip = pipeline(&dev, &p, vk::PrimitiveTopology::TRIANGLE_STRIP);
    let fan = pipeline(&dev, &p, vk::PrimitiveTopology::TRIANGLE_FAN);
    let list = pipeline(&dev, &p, vk::PrimitiveTopology::TRIANGLE_LIST);
    let out = Buf::new(
        &ctx,
        &dev,
        1024,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    let mut counter = Buf::new(
        &ctx,
        &dev,
        16,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
    );
    counter.write(&[0xff; 16]);
    let mut index = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::INDEX_BUFFER);
    let indices: [u16; 8] = [9, 9, 3, 2, 1, 7, 8, 5];
    index.write(
        &indices
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    // SAFETY: valid device and create info.
    let queries = unsafe {
        dev.create_query_pool(
            &vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT)
                .query_count(2),
            None,
        )
    }
    .unwrap();

    // The strip (3 triangles, two instances) from an offset of 0 (no counter buffer), then,
    // paused and resumed through the counter at byte 4 of `counter`, the fan (2 triangles).
    let begin_pass = |cb| {
        let info = vk::RenderPassBeginInfo::default()
            .render_pass(p.pass)
            .framebuffer(p.fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: 16,
                    height: 16,
                },
            });
        // SAFETY: a recording command buffer and valid infos.
        unsafe { dev.cmd_begin_render_pass(cb, &info, vk::SubpassContents::INLINE) };
    };
    submit_and_wait(&dev, queue, |cb| {
        // SAFETY: a recording command buffer; everything bound is valid.
        unsafe {
            dev.cmd_reset_query_pool(cb, queries, 0, 2);
            begin_pass(cb);
            xfb.bind(cb, out.buffer, 1024);
            dev.cmd_begin_query(cb, queries, 0, vk::QueryControlFlags::empty());
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, strip);
            xfb.begin(cb, None);
            dev.cmd_draw(cb, 5, 2, 10, 0);
            // Pause to change pipelines, and resume where the strip ended.
            xfb.end(cb, Some((counter.buffer, 4)));
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, fan);
            xfb.begin(cb, Some((counter.buffer, 4)));
            dev.cmd_draw(cb, 4, 1, 20, 3);
            xfb.end(cb, Some((counter.buffer, 4)));
            dev.cmd_end_query(cb, queries, 0);
            dev.cmd_end_render_pass(cb);
        }
    });
    let mut want = Vec::new();
    for inst in 0..2 {
        // Strip triangle i: i, i + 1 + i % 2, i + 2 - i % 2.
        for t in [[10, 11, 12], [11, 13, 12], [12, 13, 14]] {
            want.extend(t.iter().map(|&v| (v, inst)));
        }
    }
    // Fan triangle i: i + 1, i + 2, 0.
    for t in [[21, 22, 20], [22, 23, 20]] {
        want.extend(t.iter().map(|&v| (v, 3)));
    }
    assert_eq!(records(&out, 0, want.len()), want);
    let written = want.len() as u64 * STRIDE;
    assert_eq!(
        u32_at(&counter, 4),
        written as u32,
        "End writes the counter"
    );
    assert_eq!(
        u32_at(&counter, 0),
        u32::MAX,
        "nothing else in the counter buffer"
    );

    // Resume from the counter with an indexed list whose second triangle does not fit.
    let bound = written + 3 * STRIDE + 20;
    submit_and_wait(&dev, queue, |cb| {
        // SAFETY: as above.
        unsafe {
            begin_pass(cb);
            xfb.bind(cb, out.buffer, bound);
            dev.cmd_begin_query(cb, queries, 1, vk::QueryControlFlags::empty());
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, list);
            xfb.begin(cb, Some((counter.buffer, 4)));
            dev.cmd_bind_index_buffer(cb, index.buffer, 0, vk::IndexType::UINT16);
            dev.cmd_draw_indexed(cb, 6, 1, 2, 100, 0);
            xfb.end(cb, Some((counter.buffer, 4)));
            dev.cmd_end_query(cb, queries, 1);
            dev.cmd_end_render_pass(cb);
        }
    });
    assert_eq!(
        records(&out, written, 4),
        vec![(103, 0), (102, 0), (101, 0), (0, 0)],
        "the first triangle is written after the first draws' records, the second is not"
    );
    assert_eq!(u32_at(&counter, 4), (written + 3 * STRIDE) as u32);

    let mut results = [[0u64; 2]; 2];
    // SAFETY: valid pool; the queries have ended and their submissions completed.
    unsafe {
        dev.get_query_pool_results(
            queries,
            0,
            &mut results,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
    }
    .unwrap();
    assert_eq!(results, [[8, 8], [1, 2]], "primitives written and needed");

    // SAFETY: the GPU is idle.
    unsafe {
        dev.destroy_query_pool(queries, None);
        for pl in [strip, fan, list] {
            dev.destroy_pipeline(pl, None);
        }
        dev.destroy_shader_module(p.vs, None);
        dev.destroy_pipeline_layout(p.layout, None);
        dev.destroy_framebuffer(p.fb, None);
        dev.destroy_render_pass(p.pass, None);
    }
    out.destroy(&dev);
    counter.destroy(&dev);
    index.destroy(&dev);
    // SAFETY: everything made from the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Captures two indexed draws of `indices` with primitive restart, one in each topology of
/// `topologies` (the second with vertex offset 100, continuing from the first's counter),
/// and checks that the buffer holds exactly the vertices `want` (only their first word is
/// non-zero) and that the counter ends after them.
fn capture_with_restart(topologies: [vk::PrimitiveTopology; 2], indices: [u16; 10], want: &[u32]) {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let xfb = Xfb(ash::ext::transform_feedback::Device::new(
        &ctx.instance,
        &dev,
    ));
    let p = pass(&dev);
    let pipelines = topologies.map(|t| pipeline_with(&dev, &p, t, true));
    let out = Buf::new(
        &ctx,
        &dev,
        1024,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    let mut counter = Buf::new(
        &ctx,
        &dev,
        4,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT,
    );
    counter.write(&[0; 4]);
    let mut index = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::INDEX_BUFFER);
    index.write(
        &indices
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    submit_and_wait(&dev, queue, |cb| {
        let info = vk::RenderPassBeginInfo::default()
            .render_pass(p.pass)
            .framebuffer(p.fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: 16,
                    height: 16,
                },
            });
        // SAFETY: a recording command buffer; everything bound is valid.
        unsafe {
            dev.cmd_begin_render_pass(cb, &info, vk::SubpassContents::INLINE);
            xfb.bind(cb, out.buffer, 1024);
            dev.cmd_bind_index_buffer(cb, index.buffer, 0, vk::IndexType::UINT16);
            for (i, (pipeline, offset)) in pipelines.iter().zip([0, 100]).enumerate() {
                dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, *pipeline);
                xfb.begin(cb, (i > 0).then_some((counter.buffer, 0)));
                dev.cmd_draw_indexed(cb, 10, 1, 0, offset, 0);
                xfb.end(cb, Some((counter.buffer, 0)));
            }
            dev.cmd_end_render_pass(cb);
        }
    });
    let want: Vec<(u32, u32)> = want.iter().map(|&v| (v, 0)).collect();
    assert_eq!(records(&out, 0, want.len() + 1)[..want.len()], want[..]);
    assert_eq!(records(&out, 0, want.len() + 1)[want.len()], (0, 0));
    assert_eq!(u32_at(&counter, 0), (want.len() as u64 * STRIDE) as u32);
    // SAFETY: the GPU is idle.
    unsafe {
        for pl in pipelines {
            dev.destroy_pipeline(pl, None);
        }
        dev.destroy_shader_module(p.vs, None);
        dev.destroy_pipeline_layout(p.layout, None);
        dev.destroy_framebuffer(p.fb, None);
        dev.destroy_render_pass(p.pass, None);
    }
    out.destroy(&dev);
    counter.destroy(&dev);
    index.destroy(&dev);
    // SAFETY: everything made from the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn transform_feedback_of_strips_with_primitive_restart() {
    // Two strips (4 and 3 vertices) and a restart index that ends the lone vertex 7.
    let strips = [[0, 1, 2], [1, 3, 2], [10, 11, 12]];
    // Fans (i + 1, i + 2, first) of each run, with the vertex offset.
    let fans = [[101, 102, 100], [102, 103, 100], [111, 112, 110]];
    let want: Vec<u32> = strips.iter().chain(&fans).flatten().copied().collect();
    capture_with_restart(
        [
            vk::PrimitiveTopology::TRIANGLE_STRIP,
            vk::PrimitiveTopology::TRIANGLE_FAN,
        ],
        [0, 1, 2, 3, 0xffff, 7, 0xffff, 10, 11, 12],
        &want,
    );
}

#[test]
fn transform_feedback_of_lists_with_primitive_restart() {
    // A restart drops the incomplete primitive before it; the list starts counting again.
    // Triangles (0, 1, 2) and (5, 6, 7): 3, 4 and the lone 8 are dropped. Lines (0, 1),
    // (2, 3), (5, 6), (7, 8) with the vertex offset: the lone 4 is dropped.
    capture_with_restart(
        [
            vk::PrimitiveTopology::TRIANGLE_LIST,
            vk::PrimitiveTopology::LINE_LIST,
        ],
        [0, 1, 2, 3, 4, 0xffff, 5, 6, 7, 8],
        &[0, 1, 2, 5, 6, 7, 100, 101, 102, 103, 105, 106, 107, 108],
    );
}
