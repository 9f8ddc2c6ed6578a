//! Occlusion queries through the loader, under the validation layer: rectangles with integer
//! pixel edges (so the covered pixel centres are known exactly, counted here on the CPU) drawn
//! into a 64x64 colour + D32 depth target. A precise query around the first rectangle counts
//! its pixels; a second query around the same rectangle, which the depth test (LESS against
//! the first one's depth) rejects everywhere, counts 0; a non-precise query around a disjoint
//! rectangle is nonzero; a query that is never begun stays unavailable. Results are read with
//! vkGetQueryPoolResults (with and without WAIT, 32/64-bit, WITH_AVAILABILITY, PARTIAL) and
//! copied with vkCmdCopyQueryPoolResults. In a subpass without attachments, a precise query
//! counts samples at the pipeline's rasterization sample count.

mod common;

use ash::vk;
use common::render::{host_visible_type, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 64;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH: vk::Format = vk::Format::D32_SFLOAT;

/// Pixel rectangles [x0, x1) x [y0, y1).
const COUNTED: [u32; 4] = [8, 40, 8, 24];
const DISJOINT: [u32; 4] = [44, 60, 40, 56];

/// Pixel centres inside the rectangle, by testing every pixel of the image.
fn covered(r: [u32; 4]) -> u64 {
    let mut n = 0;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            if cx > r[0] as f32 && cx < r[1] as f32 && cy > r[2] as f32 && cy < r[3] as f32 {
                n += 1;
            }
        }
    }
    n
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
    let exts = [c"VK_EXT_host_query_reset".as_ptr()];
    let mut host_reset = vk::PhysicalDeviceHostQueryResetFeatures::default().host_query_reset(true);
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features)
        .enabled_extension_names(&exts)
        .push_next(&mut host_reset);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with occlusionQueryPrecise and hostQueryReset");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

struct Memory(Vec<vk::DeviceMemory>);

impl Memory {
    fn bind_image(&mut self, ctx: &Ctx, dev: &ash::Device, image: vk::Image) {
        // SAFETY: valid device and image.
        unsafe {
            let req = dev.get_image_memory_requirements(image);
            let m = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            dev.bind_image_memory(image, m, 0).unwrap();
            self.0.push(m);
        }
    }

    /// A host-visible buffer, bound and mapped.
    fn buffer(
        &mut self,
        ctx: &Ctx,
        dev: &ash::Device,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> (vk::Buffer, *mut u8) {
        // SAFETY: valid device and create info.
        unsafe {
            let buffer = dev
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let req = dev.get_buffer_memory_requirements(buffer);
            let m = dev
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(host_visible_type(ctx)),
                    None,
                )
                .unwrap();
            dev.bind_buffer_memory(buffer, m, 0).unwrap();
            let ptr = dev
                .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap() as *mut u8;
            self.0.push(m);
            (buffer, ptr)
        }
    }
}

fn image(dev: &ash::Device, format: vk::Format, usage: vk::ImageUsageFlags) -> vk::Image {
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
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid device and create info.
    unsafe { dev.create_image(&info, None) }.unwrap()
}

fn view(
    dev: &ash::Device,
    image: vk::Image,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
) -> vk::ImageView {
    let range = vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    };
    // SAFETY: valid device and create info.
    unsafe {
        dev.create_image_view(
            &vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(range),
            None,
        )
    }
    .unwrap()
}

/// Queries: 0 precise around COUNTED, 1 precise around COUNTED again (depth-rejected),
/// 2 non-precise around DISJOINT, 3 never begun.
const QUERIES: u32 = 4;

#[test]
fn occlusion_queries() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    // SAFETY: valid physical device.
    let features = unsafe { ctx.instance.get_physical_device_features(ctx.pdev) };
    assert_eq!(features.occlusion_query_precise, vk::TRUE);
    let mut mem = Memory(Vec::new());
    let colour_image = image(&dev, FORMAT, vk::ImageUsageFlags::COLOR_ATTACHMENT);
    mem.bind_image(&ctx, &dev, colour_image);
    let depth_image = image(&dev, DEPTH, vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT);
    mem.bind_image(&ctx, &dev, depth_image);
    let colour_view = view(&dev, colour_image, FORMAT, vk::ImageAspectFlags::COLOR);
    let depth_view = view(&dev, depth_image, DEPTH, vk::ImageAspectFlags::DEPTH);
    let mut verts = rect_vertices(COUNTED);
    verts.extend(rect_vertices(DISJOINT));
    let vb_bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let (vb, vb_ptr) = mem.buffer(
        &ctx,
        &dev,
        vb_bytes.len() as u64,
        vk::BufferUsageFlags::VERTEX_BUFFER,
    );
    // SAFETY: the mapping holds the buffer's bytes.
    unsafe { std::ptr::copy_nonoverlapping(vb_bytes.as_ptr(), vb_ptr, vb_bytes.len()) };
    // Copies: 64-bit with availability at 0 (stride 16), 32-bit at 256 (stride 4), 32-bit
    // with availability and PARTIAL at 512 (stride 8); the rest stays 0xAB so unwritten
    // words show.
    let (out, out_ptr) = mem.buffer(&ctx, &dev, 1024, vk::BufferUsageFlags::TRANSFER_DST);
    // SAFETY: as above.
    unsafe { std::ptr::write_bytes(out_ptr, 0xab, 1024) };
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let attachments = [
            vk::AttachmentDescription::default()
                .format(FORMAT)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
            vk::AttachmentDescription::default()
                .format(DEPTH)
                .samples(vk::SampleCountFlags::TYPE_1)
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
        // Every rectangle is at depth 0: the first draw passes against the clear value 1 and
        // writes 0, so the same rectangle again fails LESS everywhere.
        let mut spec = PipelineSpec::new(SIZE);
        spec.depth = Some(vk::CompareOp::LESS);
        let pipeline = shaders.pipeline(&dev, pass, &spec);
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
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
        let push: Vec<u8> = [1.0f32, 0.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        // An unqueried draw first: it must not count into anything.
        dev.cmd_draw(cb, 6, 1, 6, 0);
        dev.cmd_begin_query(cb, qp, 0, vk::QueryControlFlags::PRECISE);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_query(cb, qp, 0);
        dev.cmd_begin_query(cb, qp, 1, vk::QueryControlFlags::PRECISE);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_query(cb, qp, 1);
        dev.cmd_end_render_pass(cb);
        // Query 2 spans a whole second render pass instance, which clears depth again.
        dev.cmd_begin_query(cb, qp, 2, vk::QueryControlFlags::empty());
        dev.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(pass)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clears),
            vk::SubpassContents::INLINE,
        );
        dev.cmd_draw(cb, 6, 1, 6, 0);
        dev.cmd_end_render_pass(cb);
        dev.cmd_end_query(cb, qp, 2);
        let f64a = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        // The layer warns about copying query 3 (never ended) without PARTIAL; the test
        // `unavailable_queries_are_not_copied` covers that case.
        dev.cmd_copy_query_pool_results(cb, qp, 0, QUERIES - 1, out, 0, 16, f64a);
        dev.cmd_copy_query_pool_results(
            cb,
            qp,
            0,
            QUERIES - 1,
            out,
            256,
            4,
            vk::QueryResultFlags::empty(),
        );
        dev.cmd_copy_query_pool_results(
            cb,
            qp,
            0,
            QUERIES,
            out,
            512,
            8,
            vk::QueryResultFlags::WITH_AVAILABILITY | vk::QueryResultFlags::PARTIAL,
        );
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
        dev.end_command_buffer(cb)
            .expect("vkEndCommandBuffer with occlusion queries");
        let cbs = [cb];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .unwrap();

        // WAIT: returns once the GPU has made queries 0..3 available.
        let mut waited = [0u64; 3];
        dev.get_query_pool_results(
            qp,
            0,
            &mut waited,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
        )
        .expect("WAIT results");
        dev.queue_wait_idle(queue).unwrap();
        let expect = covered(COUNTED);
        assert_eq!(expect, 512);
        assert_eq!(waited[0], expect, "precise count of the first rectangle");
        assert_eq!(waited[1], 0, "the depth test rejects every sample");
        assert!(
            waited[2] >= 1 && waited[2] <= covered(DISJOINT),
            "non-precise query of a visible rectangle: {}",
            waited[2]
        );

        // Without WAIT, 32-bit values with availability.
        let mut pairs = [[0u32; 2]; 3];
        dev.get_query_pool_results(qp, 0, &mut pairs, vk::QueryResultFlags::WITH_AVAILABILITY)
            .expect("available results");
        assert_eq!(pairs[0], [expect as u32, 1]);
        assert_eq!(pairs[1], [0, 1]);
        assert_eq!(pairs[2], [waited[2] as u32, 1]);
        // Query 3 was never begun: not ready, and with PARTIAL its (reset) value is 0.
        let mut never = [[7u64; 2]; 1];
        assert_eq!(
            dev.get_query_pool_results(qp, 3, &mut never, f64a),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(never[0][1], 0, "availability of a query never begun");
        assert_eq!(
            never[0][0], 7,
            "no value is written for an unavailable query without PARTIAL"
        );
        let mut partial = [[7u64; 2]; 1];
        assert_eq!(
            dev.get_query_pool_results(qp, 3, &mut partial, f64a | vk::QueryResultFlags::PARTIAL),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(partial[0], [0, 0]);

        // The GPU copies.
        let out_bytes = std::slice::from_raw_parts(out_ptr, 1024);
        let u64_at = |at: usize| u64::from_le_bytes(out_bytes[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(out_bytes[at..at + 4].try_into().unwrap());
        let untouched64 = 0xabab_abab_abab_abab;
        let untouched32 = 0xabab_abab;
        let wide: Vec<(u64, u64)> = (0..4)
            .map(|i| (u64_at(16 * i), u64_at(16 * i + 8)))
            .collect();
        assert_eq!(
            wide,
            [
                (expect, 1),
                (0, 1),
                (waited[2], 1),
                (untouched64, untouched64)
            ],
            "64-bit copy with availability; query 3 not in the range"
        );
        let narrow: Vec<u32> = (0..4).map(|i| u32_at(256 + 4 * i)).collect();
        assert_eq!(
            narrow,
            [expect as u32, 0, waited[2] as u32, untouched32],
            "32-bit copy"
        );
        let part: Vec<(u32, u32)> = (0..4)
            .map(|i| (u32_at(512 + 8 * i), u32_at(512 + 8 * i + 4)))
            .collect();
        assert_eq!(
            part,
            [(expect as u32, 1), (0, 1), (waited[2] as u32, 1), (0, 0)],
            "32-bit PARTIAL copy with availability"
        );
        assert_eq!(u32_at(256 + 12), untouched32, "nothing past the last query");

        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(&dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(colour_view, None);
        dev.destroy_image_view(depth_view, None);
        dev.destroy_image(colour_image, None);
        dev.destroy_image(depth_image, None);
        dev.destroy_buffer(vb, None);
        dev.destroy_buffer(out, None);
        for m in mem.0 {
            dev.free_memory(m, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

#[test]
fn occlusion_pool_reset_on_gpu_clears_results() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    // SAFETY: valid device and create infos; the GPU is idle before anything is destroyed.
    unsafe {
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(2),
                None,
            )
            .unwrap();
        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, qp, 0, 2);
        // A query with no draws: available, count 0.
        dev.cmd_begin_query(cb, qp, 1, vk::QueryControlFlags::empty());
        dev.cmd_end_query(cb, qp, 1);
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        let mut r = [[9u64; 2]; 1];
        dev.get_query_pool_results(
            qp,
            1,
            &mut r,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .expect("an ended query is available");
        assert_eq!(r[0], [0, 1]);
        assert_eq!(
            dev.get_query_pool_results(
                qp,
                0,
                &mut r,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY
            ),
            Err(vk::Result::NOT_READY)
        );
        // Resetting again makes query 1 unavailable.
        dev.destroy_command_pool(cmd_pool, None);
        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, qp, 1, 1);
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        assert_eq!(
            dev.get_query_pool_results(
                qp,
                1,
                &mut r,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY
            ),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(r[0][1], 0);
        // The same from the host (VK_EXT_host_query_reset): end query 1 again, then reset it
        // with vkResetQueryPool.
        dev.reset_command_pool(cmd_pool, vk::CommandPoolResetFlags::empty())
            .unwrap();
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_begin_query(cb, qp, 1, vk::QueryControlFlags::empty());
        dev.cmd_end_query(cb, qp, 1);
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        dev.get_query_pool_results(qp, 1, &mut r, flags)
            .expect("available again");
        let reset = ash::ext::host_query_reset::Device::new(&ctx.instance, &dev);
        (reset.fp().reset_query_pool_ext)(dev.handle(), qp, 1, 1);
        assert_eq!(
            dev.get_query_pool_results(qp, 1, &mut r, flags),
            Err(vk::Result::NOT_READY)
        );
        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Copies of an unavailable query write its availability but not its value (unless PARTIAL).
/// Without the validation layer, which warns about exactly this copy.
#[test]
fn unavailable_queries_are_not_copied() {
    let ctx = Ctx::without_validation();
    let (dev, queue) = device(&ctx);
    let mut mem = Memory(Vec::new());
    let (out, out_ptr) = mem.buffer(&ctx, &dev, 256, vk::BufferUsageFlags::TRANSFER_DST);
    // SAFETY: valid device and create infos; the GPU is idle before anything is destroyed.
    unsafe {
        std::ptr::write_bytes(out_ptr, 0xab, 256);
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(2),
                None,
            )
            .unwrap();
        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, qp, 0, 2);
        dev.cmd_begin_query(cb, qp, 0, vk::QueryControlFlags::empty());
        dev.cmd_end_query(cb, qp, 0);
        let f64a = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        dev.cmd_copy_query_pool_results(cb, qp, 0, 2, out, 0, 16, f64a);
        dev.cmd_copy_query_pool_results(
            cb,
            qp,
            0,
            2,
            out,
            64,
            8,
            vk::QueryResultFlags::WITH_AVAILABILITY,
        );
        dev.cmd_copy_query_pool_results(
            cb,
            qp,
            0,
            2,
            out,
            128,
            16,
            f64a | vk::QueryResultFlags::PARTIAL,
        );
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        let b = std::slice::from_raw_parts(out_ptr, 256);
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        assert_eq!(
            [u64_at(0), u64_at(8), u64_at(16), u64_at(24)],
            [0, 1, 0xabab_abab_abab_abab, 0],
            "64-bit"
        );
        assert_eq!(
            [u32_at(64), u32_at(68), u32_at(72), u32_at(76)],
            [0, 1, 0xabab_abab, 0],
            "32-bit"
        );
        assert_eq!(
            [u64_at(128), u64_at(136), u64_at(144), u64_at(152)],
            [0, 1, 0, 0],
            "64-bit PARTIAL"
        );
        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        dev.destroy_buffer(out, None);
        for m in mem.0 {
            dev.free_memory(m, None);
        }
        dev.destroy_device(None);
    }
}

/// A multiview subpass (views 0 and 1 of a 2-layer target) uses one query index per view
/// (VK_KHR_multiview): an occlusion query begun at index 0 makes queries 0 and 1 available
/// and their sum counts the rectangle once per view; a timestamp written at index 2 fills
/// indices 2 and 3. Index 4 stays unavailable.
#[test]
fn multiview_queries_use_one_index_per_view() {
    let ctx = Ctx::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        occlusion_query_precise: vk::TRUE,
        ..Default::default()
    };
    let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default().multiview(true);
    let exts = [ash::khr::multiview::NAME.as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features)
        .enabled_extension_names(&exts)
        .push_next(&mut multiview);
    // SAFETY: valid physical device and create info; every object is destroyed after the GPU
    // is idle.
    unsafe {
        let dev = ctx
            .instance
            .create_device(ctx.pdev, &info, None)
            .expect("vkCreateDevice with VK_KHR_multiview");
        let queue = dev.get_device_queue(0, 0);
        let mut mem = Memory(Vec::new());
        let image_info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(FORMAT)
            .extent(vk::Extent3D {
                width: SIZE,
                height: SIZE,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(2)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let colour_image = dev.create_image(&image_info, None).unwrap();
        mem.bind_image(&ctx, &dev, colour_image);
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 2,
        };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(colour_image)
            .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
            .format(FORMAT)
            .subresource_range(range);
        let colour_view = dev.create_image_view(&view_info, None).unwrap();
        let verts = rect_vertices(COUNTED);
        let vb_bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
        let (vb, vb_ptr) = mem.buffer(
            &ctx,
            &dev,
            vb_bytes.len() as u64,
            vk::BufferUsageFlags::VERTEX_BUFFER,
        );
        std::ptr::copy_nonoverlapping(vb_bytes.as_ptr(), vb_ptr, vb_bytes.len());

        let attachments = [vk::AttachmentDescription::default()
            .format(FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
        let colour_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour_ref)];
        let masks = [0b11];
        let mut mv = vk::RenderPassMultiviewCreateInfo::default().view_masks(&masks);
        let pass = dev
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass)
                    .push_next(&mut mv),
                None,
            )
            .unwrap();
        let views = [colour_view];
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
        let pipeline = shaders.pipeline(&dev, pass, &PipelineSpec::new(SIZE));
        let occlusion = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(3),
                None,
            )
            .unwrap();
        let stamps = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(4),
                None,
            )
            .unwrap();

        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, occlusion, 0, 3);
        dev.cmd_reset_query_pool(cb, stamps, 0, 4);
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: [0.0; 4] },
        }];
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
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
        let push: Vec<u8> = [0.0f32, 1.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        dev.cmd_begin_query(cb, occlusion, 0, vk::QueryControlFlags::PRECISE);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_query(cb, occlusion, 0);
        dev.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, stamps, 2);
        dev.cmd_end_render_pass(cb);
        dev.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();

        let mut counts = [[0u64; 2]; 2];
        dev.get_query_pool_results(
            occlusion,
            0,
            &mut counts,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .expect("both views' queries are available");
        assert_eq!(
            [counts[0][1], counts[1][1]],
            [1, 1],
            "availability of the two queries of the view mask"
        );
        assert_eq!(
            counts[0][0] + counts[1][0],
            2 * covered(COUNTED),
            "the rectangle counted in both views"
        );
        let mut third = [[9u64; 2]; 1];
        assert_eq!(
            dev.get_query_pool_results(
                occlusion,
                2,
                &mut third,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY
            ),
            Err(vk::Result::NOT_READY)
        );
        assert_eq!(
            third[0][1], 0,
            "the query after the view mask's is untouched"
        );
        let mut times = [[0u64; 2]; 2];
        dev.get_query_pool_results(
            stamps,
            2,
            &mut times,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .expect("timestamps of both views");
        assert!(
            times.iter().all(|t| t[1] == 1 && t[0] != 0),
            "timestamps {times:?}"
        );
        let mut before = [[9u64; 2]; 1];
        assert_eq!(
            dev.get_query_pool_results(
                stamps,
                1,
                &mut before,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY
            ),
            Err(vk::Result::NOT_READY)
        );

        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(occlusion, None);
        dev.destroy_query_pool(stamps, None);
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(&dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(colour_view, None);
        dev.destroy_image(colour_image, None);
        dev.destroy_buffer(vb, None);
        for m in mem.0 {
            dev.free_memory(m, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// Secondary command buffers executed in subpasses begun with SECONDARY_COMMAND_BUFFERS
/// contents: in a first render pass instance one inherits the precise query the primary has
/// active around the instance (occlusionQueryEnable, inheritedQueries) and counts the first
/// rectangle into it; in a second instance another begins and ends its own query around the
/// disjoint rectangle.
#[test]
fn secondary_draws_count_into_inherited_and_own_queries() {
    let ctx = Ctx::new();
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        occlusion_query_precise: vk::TRUE,
        inherited_queries: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create infos; every object is destroyed after the
    // GPU is idle.
    unsafe {
        let dev = ctx
            .instance
            .create_device(ctx.pdev, &info, None)
            .expect("vkCreateDevice with inheritedQueries");
        let queue = dev.get_device_queue(0, 0);
        let mut mem = Memory(Vec::new());
        let colour_image = image(&dev, FORMAT, vk::ImageUsageFlags::COLOR_ATTACHMENT);
        mem.bind_image(&ctx, &dev, colour_image);
        let colour_view = view(&dev, colour_image, FORMAT, vk::ImageAspectFlags::COLOR);
        let mut verts = rect_vertices(COUNTED);
        verts.extend(rect_vertices(DISJOINT));
        let vb_bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
        let (vb, vb_ptr) = mem.buffer(
            &ctx,
            &dev,
            vb_bytes.len() as u64,
            vk::BufferUsageFlags::VERTEX_BUFFER,
        );
        std::ptr::copy_nonoverlapping(vb_bytes.as_ptr(), vb_ptr, vb_bytes.len());
        let attachments = [vk::AttachmentDescription::default()
            .format(FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
        let colour_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour_ref)];
        let pass = dev
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass),
                None,
            )
            .unwrap();
        let views = [colour_view];
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
        let pipeline = shaders.pipeline(&dev, pass, &PipelineSpec::new(SIZE));
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(2),
                None,
            )
            .unwrap();
        let cmd_pool = dev
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(0),
                None,
            )
            .unwrap();
        let alloc = |level| {
            dev.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(cmd_pool)
                    .level(level)
                    .command_buffer_count(1),
            )
            .unwrap()[0]
        };
        let (cb, inherits, owns) = (
            alloc(vk::CommandBufferLevel::PRIMARY),
            alloc(vk::CommandBufferLevel::SECONDARY),
            alloc(vk::CommandBufferLevel::SECONDARY),
        );
        let push: Vec<u8> = [0.0f32, 1.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let record = |s, inheritance: &vk::CommandBufferInheritanceInfo, body: &dyn Fn()| {
            dev.begin_command_buffer(
                s,
                &vk::CommandBufferBeginInfo::default()
                    .flags(
                        vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE
                            | vk::CommandBufferUsageFlags::SIMULTANEOUS_USE,
                    )
                    .inheritance_info(inheritance),
            )
            .unwrap();
            dev.cmd_bind_pipeline(s, vk::PipelineBindPoint::GRAPHICS, pipeline);
            dev.cmd_bind_vertex_buffers(s, 0, &[vb], &[0]);
            dev.cmd_push_constants(s, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
            body();
            dev.end_command_buffer(s)
                .expect("vkEndCommandBuffer of a secondary continuing a render pass");
        };
        record(
            inherits,
            &vk::CommandBufferInheritanceInfo::default()
                .render_pass(pass)
                .framebuffer(fb)
                .occlusion_query_enable(true)
                .query_flags(vk::QueryControlFlags::PRECISE),
            &|| dev.cmd_draw(inherits, 6, 1, 0, 0),
        );
        record(
            owns,
            &vk::CommandBufferInheritanceInfo::default().render_pass(pass),
            &|| {
                dev.cmd_begin_query(owns, qp, 1, vk::QueryControlFlags::PRECISE);
                dev.cmd_draw(owns, 6, 1, 6, 0);
                dev.cmd_end_query(owns, qp, 1);
            },
        );
        dev.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        dev.cmd_reset_query_pool(cb, qp, 0, 2);
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: [0.0; 4] },
        }];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        dev.cmd_begin_query(cb, qp, 0, vk::QueryControlFlags::PRECISE);
        dev.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(pass)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clears),
            vk::SubpassContents::SECONDARY_COMMAND_BUFFERS,
        );
        dev.cmd_execute_commands(cb, &[inherits]);
        dev.cmd_end_render_pass(cb);
        dev.cmd_end_query(cb, qp, 0);
        dev.cmd_begin_render_pass(
            cb,
            &vk::RenderPassBeginInfo::default()
                .render_pass(pass)
                .framebuffer(fb)
                .render_area(area)
                .clear_values(&clears),
            vk::SubpassContents::SECONDARY_COMMAND_BUFFERS,
        );
        dev.cmd_execute_commands(cb, &[owns]);
        dev.cmd_end_render_pass(cb);
        dev.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        let mut counts = [[0u64; 2]; 2];
        dev.get_query_pool_results(
            qp,
            0,
            &mut counts,
            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
        )
        .expect("both queries are available");
        assert_eq!(
            counts[0],
            [covered(COUNTED), 1],
            "the inherited query counts the secondary's draw"
        );
        assert_eq!(
            counts[1],
            [covered(DISJOINT), 1],
            "the secondary's own query counts its draw"
        );
        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(&dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(colour_view, None);
        dev.destroy_image(colour_image, None);
        dev.destroy_buffer(vb, None);
        for m in mem.0 {
            dev.free_memory(m, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}

/// A subpass without attachments rasterizes at its pipelines' sample count: a precise query
/// around COUNTED counts one sample per covered pixel at 1x and four at 4x (the rectangle's
/// edges are on pixel edges, so a pixel has all its samples in or none), each in a render
/// pass instance of its own. The pipelines have no fragment stage, as nothing is written.
#[test]
fn attachmentless_subpass_counts_samples() {
    let ctx = Ctx::new();
    let (dev, queue) = device(&ctx);
    let mut mem = Memory(Vec::new());
    let vb_bytes: Vec<u8> = rect_vertices(COUNTED)
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let (vb, vb_ptr) = mem.buffer(
        &ctx,
        &dev,
        vb_bytes.len() as u64,
        vk::BufferUsageFlags::VERTEX_BUFFER,
    );
    // SAFETY: the mapping holds the buffer's bytes.
    unsafe { std::ptr::copy_nonoverlapping(vb_bytes.as_ptr(), vb_ptr, vb_bytes.len()) };
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
        let shaders = Shaders::new(&dev);
        let counts = [vk::SampleCountFlags::TYPE_1, vk::SampleCountFlags::TYPE_4];
        let pipelines: Vec<vk::Pipeline> = counts
            .iter()
            .map(|&samples| {
                let mut spec = PipelineSpec::new(SIZE);
                spec.samples = samples;
                spec.colour = false;
                spec.fragment = false;
                shaders.pipeline(&dev, pass, &spec)
            })
            .collect();
        let qp = dev
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(2),
                None,
            )
            .unwrap();
        let OneShot { pool: cmd_pool, cb } = OneShot::begin(&dev);
        dev.cmd_reset_query_pool(cb, qp, 0, 2);
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        for (i, &pipeline) in pipelines.iter().enumerate() {
            dev.cmd_begin_render_pass(
                cb,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(pass)
                    .framebuffer(fb)
                    .render_area(area),
                vk::SubpassContents::INLINE,
            );
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            dev.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            dev.cmd_push_constants(
                cb,
                shaders.layout,
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &[0u8; 16],
            );
            dev.cmd_begin_query(cb, qp, i as u32, vk::QueryControlFlags::PRECISE);
            dev.cmd_draw(cb, 6, 1, 0, 0);
            dev.cmd_end_query(cb, qp, i as u32);
            dev.cmd_end_render_pass(cb);
        }
        dev.end_command_buffer(cb).unwrap();
        dev.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&[cb])],
            vk::Fence::null(),
        )
        .unwrap();
        dev.queue_wait_idle(queue).unwrap();
        let mut got = [0u64; 2];
        dev.get_query_pool_results(qp, 0, &mut got, vk::QueryResultFlags::TYPE_64)
            .expect("both queries are available");
        assert_eq!(got, [covered(COUNTED), 4 * covered(COUNTED)]);
        dev.destroy_command_pool(cmd_pool, None);
        dev.destroy_query_pool(qp, None);
        for p in pipelines {
            dev.destroy_pipeline(p, None);
        }
        shaders.destroy(&dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_buffer(vb, None);
        for m in mem.0 {
            dev.free_memory(m, None);
        }
        dev.destroy_device(None);
    }
    assert_no_validation_messages();
}
