//! A static `pSampleMask` with 4x MSAA, counted by precise occlusion queries, through the
//! loader under the validation layer. Rectangles with integer pixel edges cover all four
//! samples of the pixels inside them (Vulkan's standard 4x locations lie strictly inside a
//! pixel), so every count is worked out here from the pixel count, the mask and which
//! samples' depth an earlier draw wrote. Pipelines with and without a fragment shader.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 64;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH: vk::Format = vk::Format::D32_SFLOAT;
const X4: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;

/// Pixel rectangles [x0, x1) x [y0, y1).
const WITH_SHADER: [u32; 4] = [8, 40, 8, 24];
const DEPTH_ONLY: [u32; 4] = [44, 60, 40, 56];

fn pixels(r: [u32; 4]) -> u64 {
    u64::from((r[1] - r[0]) * (r[3] - r[2]))
}

/// Two triangles in clip space covering the pixel rectangle.
fn rect_vertices(r: [u32; 4]) -> Vec<f32> {
    let nx = |p: u32| p as f32 / SIZE as f32 * 2.0 - 1.0;
    let (x0, x1, y0, y1) = (nx(r[0]), nx(r[1]), nx(r[2]), nx(r[3]));
    vec![x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1]
}

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        occlusion_query_precise: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with occlusionQueryPrecise");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// A 4x image bound to host-visible memory, with a view.
fn image(
    ctx: &Ctx,
    dev: &ash::Device,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
) -> (vk::Image, vk::DeviceMemory, vk::ImageView) {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D {
            width: SIZE,
            height: SIZE,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(X4)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    let range = vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    };
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
        (image, memory, view)
    }
}

/// Queries, one draw each: the shaded rectangle with mask 0b0101, again with every sample,
/// and a third time; the other rectangle without a fragment shader with mask 0b0001, then
/// shaded with every sample.
const QUERIES: u32 = 5;

#[test]
fn masked_samples_neither_count_nor_write_depth() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let (colour_image, colour_mem, colour_view) = image(
        &ctx,
        &dev,
        FORMAT,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        vk::ImageAspectFlags::COLOR,
    );
    let (depth_image, depth_mem, depth_view) = image(
        &ctx,
        &dev,
        DEPTH,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
    );
    let mut verts = rect_vertices(WITH_SHADER);
    verts.extend(rect_vertices(DEPTH_ONLY));
    let vb_bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut vb = Buf::new(
        &ctx,
        &dev,
        vb_bytes.len() as u64,
        vk::BufferUsageFlags::VERTEX_BUFFER,
    );
    vb.write(&vb_bytes);
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let attachments = [
            vk::AttachmentDescription::default()
                .format(FORMAT)
                .samples(X4)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
            vk::AttachmentDescription::default()
                .format(DEPTH)
                .samples(X4)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::DONT_CARE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        ];
        let colour_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let depth_ref = vk::AttachmentReference {
            attachment: 1,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour_ref)
            .depth_stencil_attachment(&depth_ref)];
        let pass = dev
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass),
                None,
            )
            .unwrap();
        let views = [colour_view, depth_view];
        let fb = dev
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(pass)
                    .attachments(&views)
                    .width(SIZE)
                    .height(SIZE)
                    .layers(1),
                None,
            )
            .unwrap();

        let shaders = Shaders::new(&dev);
        let layout = shaders.layout;
        // Every rectangle is at depth 0: a sample passes LESS only while its depth is the
        // clear value 1, that is until a draw has written it.
        let pipeline = |mask: Option<u32>, shaded: bool| {
            let mut spec = PipelineSpec::new(SIZE);
            spec.fragment = shaded;
            spec.samples = X4;
            // A mask keeping every sample, as translation layers pass, when `None`.
            spec.sample_mask = Some(mask.unwrap_or(u32::MAX));
            spec.depth = Some(vk::CompareOp::LESS);
            if !shaded {
                spec.blend.color_write_mask = vk::ColorComponentFlags::empty();
            }
            shaders.pipeline(&dev, pass, &spec)
        };
        let shaded_masked = pipeline(Some(0b0101), true);
        let shaded_all = pipeline(None, true);
        let depth_masked = pipeline(Some(0b0001), false);
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(QUERIES),
                None,
            )
            .expect("an occlusion query pool");

        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, qp, 0, QUERIES);
        let clears = [
            vk::ClearValue {
                color: vk::ClearColorValue { float32: [0.0; 4] },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        dev.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(pass)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clears),
            vk::SubpassContents::INLINE,
        );
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        let push: Vec<u8> = [1.0f32, 0.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        // The last draw has a fragment shader: a draw without one after a draw with one
        // currently keeps the earlier shader bound (the render command's PPP update leaves
        // the fragment shader word out), which this test is not about.
        let draws = [
            (shaded_masked, 0),
            (shaded_all, 0),
            (shaded_all, 0),
            (depth_masked, 6),
            (shaded_all, 6),
        ];
        for (q, &(pipeline, first)) in draws.iter().enumerate() {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            dev.cmd_begin_query(cb, qp, q as u32, vk::QueryControlFlags::PRECISE);
            dev.cmd_draw(cb, 6, 1, first, 0);
            dev.cmd_end_query(cb, qp, q as u32);
        }
        dev.cmd_end_render_pass(cb);
        dev.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .unwrap();
        let mut got = [0u64; QUERIES as usize];
        dev.get_query_pool_results(
            qp,
            0,
            &mut got,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
        .expect("query results");
        dev.queue_wait_idle(queue).unwrap();

        let (a, b) = (pixels(WITH_SHADER), pixels(DEPTH_ONLY));
        let want = [
            // Samples 0 and 2 of each pixel.
            2 * a,
            // Samples 1 and 3 kept depth 1: the mask kept the first draw from writing them.
            2 * a,
            // Every sample is now at depth 0.
            0,
            // Sample 0 only, without a fragment shader in the pipeline.
            b,
            // Samples 1, 2 and 3: the masked draw wrote no depth there.
            3 * b,
        ];
        assert_eq!(got, want, "samples passing in each query");

        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        for p in [shaded_masked, shaded_all, depth_masked] {
            dev.destroy_pipeline(p, None);
        }
        shaders.destroy(&dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(colour_view, None);
        dev.destroy_image_view(depth_view, None);
        dev.destroy_image(colour_image, None);
        dev.destroy_image(depth_image, None);
        dev.free_memory(colour_mem, None);
        dev.free_memory(depth_mem, None);
        vb.destroy(&dev);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
