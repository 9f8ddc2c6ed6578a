//! `alphaToOneEnable` through the loader, under the validation layer: a rectangle covering
//! the whole RGBA8 target, whose fragment shader writes alpha 0, blended with source alpha
//! over the clear colour. With alpha-to-one the source replaces the destination (alpha 1);
//! without it the destination's colour stays and its alpha becomes 0. Read back with
//! vkCmdCopyImageToBuffer; every expected byte is 0 or 255, exact in UNORM8.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, PipelineSpec, Shaders};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 16;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const CLEAR: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const SOURCE: [f32; 4] = [1.0, 0.0, 0.0, 0.0];

fn device(ctx: &Ctx) -> (ash::Device, vk::Queue) {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let features = vk::PhysicalDeviceFeatures {
        alpha_to_one: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_features(&features);
    // SAFETY: valid physical device and create info.
    let device = unsafe { ctx.instance.create_device(ctx.pdev, &info, None) }
        .expect("vkCreateDevice with alphaToOne");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { device.get_device_queue(0, 0) };
    (device, queue)
}

/// Renders the blended rectangle with or without alpha-to-one and returns the target's bytes.
fn render(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, alpha_to_one: bool) -> Vec<u8> {
    let mut vb = Buf::new(ctx, dev, 48, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: [f32; 12] = [
        -1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0,
    ];
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    vb.write(&bytes);
    let out = Buf::new(
        ctx,
        dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    let got = unsafe {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(FORMAT)
            .extent(vk::Extent3D {
                width: SIZE,
                height: SIZE,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .initial_layout(vk::ImageLayout::UNDEFINED);
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
                    .format(FORMAT)
                    .subresource_range(range),
                None,
            )
            .unwrap();
        let attachments = [vk::AttachmentDescription::default()
            .format(FORMAT)
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
        let shaders = Shaders::new(dev);
        let mut spec = PipelineSpec::new(SIZE);
        spec.alpha_to_one = alpha_to_one;
        spec.blend = vk::PipelineColorBlendAttachmentState {
            blend_enable: vk::TRUE,
            src_color_blend_factor: vk::BlendFactor::SRC_ALPHA,
            dst_color_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
            color_blend_op: vk::BlendOp::ADD,
            src_alpha_blend_factor: vk::BlendFactor::ONE,
            dst_alpha_blend_factor: vk::BlendFactor::ZERO,
            alpha_blend_op: vk::BlendOp::ADD,
            color_write_mask: vk::ColorComponentFlags::RGBA,
        };
        let pipeline = shaders.pipeline(dev, pass, &spec);
        let layout = shaders.layout;
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };

        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: CLEAR },
        }];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area)
            .clear_values(&clears);
        dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        let push: Vec<u8> = SOURCE.iter().flat_map(|f| f.to_le_bytes()).collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        dev.cmd_draw(cb, 6, 1, 0, 0);
        dev.cmd_end_render_pass(cb);
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
                width: SIZE,
                height: SIZE,
                depth: 1,
            },
        };
        dev.cmd_copy_image_to_buffer(
            cb,
            image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            out.buffer,
            &[region],
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
        shot.submit_and_wait(dev, queue);
        let got = out.bytes().to_vec();

        dev.destroy_pipeline(pipeline, None);
        shaders.destroy(dev);
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(view, None);
        dev.destroy_image(image, None);
        dev.free_memory(memory, None);
        got
    };
    vb.destroy(dev);
    out.destroy(dev);
    got
}

#[test]
fn alpha_to_one_replaces_alpha_before_blending() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let features = unsafe { ctx.instance.get_physical_device_features(ctx.pdev) };
    assert_eq!(features.alpha_to_one, vk::TRUE);
    let (dev, queue) = device(&ctx);
    // Source alpha 1: the source colour with alpha 1 (src alpha factor ONE of 1).
    let with = render(&ctx, &dev, queue, true);
    // Source alpha 0: the clear colour, and the source's alpha 0.
    let without = render(&ctx, &dev, queue, false);
    for (i, (w, wo)) in with.chunks(4).zip(without.chunks(4)).enumerate() {
        assert_eq!(w, [255, 0, 0, 255], "pixel {i} with alpha-to-one");
        assert_eq!(wo, [0, 0, 255, 0], "pixel {i} without alpha-to-one");
    }
    // SAFETY: the GPU is idle and every object of the device is destroyed.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
