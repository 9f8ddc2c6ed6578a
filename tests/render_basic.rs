//! Rendering through the loader, under the validation layer: a clear-only render pass, and a
//! triangle drawn from a vertex buffer into a 64x64 R8G8B8A8_UNORM colour attachment, read
//! back with vkCmdCopyImageToBuffer. Expected pixels come from an edge-function test of each
//! pixel centre written here, independently of the driver; pixels whose centre lies on an
//! edge (within a small tolerance) are skipped, since the fill rule decides them.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, FRAG, VERT};
use common::{assert_no_validation_messages, submit_and_wait, Ctx};

const SIZE: u32 = 64;
const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// The render target, its view, a render pass that clears and stores it, and a framebuffer;
/// `keep` is a second render pass that expects the image's earlier contents (initial layout
/// TRANSFER_SRC_OPTIMAL, the first pass's final layout).
struct Target {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    pass: vk::RenderPass,
    keep: vk::RenderPass,
    framebuffer: vk::Framebuffer,
}

impl Target {
    fn new(ctx: &Ctx, dev: &ash::Device) -> Target {
        // SAFETY: valid device and create infos.
        unsafe {
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
            let image = dev
                .create_image(&info, None)
                .expect("vkCreateImage of a colour attachment");
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
            let attachment_with = |initial| {
                [vk::AttachmentDescription::default()
                    .format(FORMAT)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                    .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                    .initial_layout(initial)
                    .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)]
            };
            let attachment = attachment_with(vk::ImageLayout::UNDEFINED);
            let kept = attachment_with(vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            let colour = [vk::AttachmentReference {
                attachment: 0,
                layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            }];
            let subpass = [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                .color_attachments(&colour)];
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
                        .attachments(&attachment)
                        .subpasses(&subpass)
                        .dependencies(&dependency),
                    None,
                )
                .unwrap();
            let keep = dev
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&kept)
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
                        .width(SIZE)
                        .height(SIZE)
                        .layers(1),
                    None,
                )
                .unwrap();
            Target {
                image,
                memory,
                view,
                pass,
                keep,
                framebuffer,
            }
        }
    }

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_framebuffer(self.framebuffer, None);
            dev.destroy_render_pass(self.pass, None);
            dev.destroy_render_pass(self.keep, None);
            dev.destroy_image_view(self.view, None);
            dev.destroy_image(self.image, None);
            dev.free_memory(self.memory, None);
        }
    }
}

/// Records `body` inside a render pass instance that clears to `clear`, then copies the
/// image into `out`, submits and waits.
fn render(
    dev: &ash::Device,
    queue: vk::Queue,
    t: &Target,
    out: &Buf,
    clear: [f32; 4],
    body: impl FnOnce(vk::CommandBuffer),
) {
    let whole = vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D {
            width: SIZE,
            height: SIZE,
        },
    };
    render_area(dev, queue, t.pass, whole, t, out, clear, body)
}

/// As [`render`], with render pass `pass` over `area`.
#[allow(clippy::too_many_arguments)]
fn render_area(
    dev: &ash::Device,
    queue: vk::Queue,
    pass: vk::RenderPass,
    area: vk::Rect2D,
    t: &Target,
    out: &Buf,
    clear: [f32; 4],
    body: impl FnOnce(vk::CommandBuffer),
) {
    // SAFETY: valid device, queue and objects; the test waits for the GPU before returning.
    submit_and_wait(dev, queue, |cb| unsafe {
        let clears = [vk::ClearValue {
            color: vk::ClearColorValue { float32: clear },
        }];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(t.framebuffer)
            .render_area(area)
            .clear_values(&clears);
        dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
        body(cb);
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
            t.image,
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
    });
}

/// UNORM8 of a float in [0, 1], allowing either rounding of an exact half.
fn unorm8_matches(byte: u8, value: f32) -> bool {
    (f32::from(byte) - value * 255.0).abs() <= 0.5 + 1e-3
}

fn pixel_matches(px: &[u8], c: [f32; 4]) -> bool {
    px.iter().zip(c).all(|(&b, v)| unorm8_matches(b, v))
}

#[test]
fn colour_attachment_format_features() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let props = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.pdev, FORMAT)
    };
    assert!(props.optimal_tiling_features.contains(
        vk::FormatFeatureFlags::COLOR_ATTACHMENT | vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND
    ));
    // SAFETY: as above.
    let vb = unsafe {
        ctx.instance
            .get_physical_device_format_properties(ctx.pdev, vk::Format::R32G32_SFLOAT)
    };
    assert!(vb
        .buffer_features
        .contains(vk::FormatFeatureFlags::VERTEX_BUFFER));
    assert_no_validation_messages();
}

#[test]
fn clear_only_render_pass() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let t = Target::new(&ctx, &dev);
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    let clear = [0.25, 0.5, 0.75, 1.0];
    render(&dev, queue, &t, &out, clear, |_| {});
    let bad: Vec<usize> = out
        .bytes()
        .chunks(4)
        .enumerate()
        .filter(|(_, px)| !pixel_matches(px, clear))
        .map(|(i, _)| i)
        .collect();
    assert!(
        bad.is_empty(),
        "{} pixels are not the clear colour, first at {:?}: {:?}",
        bad.len(),
        bad.first(),
        bad.first().map(|&i| &out.bytes()[4 * i..4 * i + 4])
    );
    out.destroy(&dev);
    t.destroy(&dev);
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// A clear of part of the framebuffer (the render area) leaves the pixels outside it alone,
/// though the tiles that straddle its edge run their background and end-of-tile programs.
#[test]
fn partial_render_area() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let t = Target::new(&ctx, &dev);
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    let first = [0.0, 1.0, 0.0, 1.0];
    let second = [1.0, 0.0, 1.0, 0.0];
    render(&dev, queue, &t, &out, first, |_| {});
    // Not aligned to tiles: 13..45 x 5..40.
    let area = vk::Rect2D {
        offset: vk::Offset2D { x: 13, y: 5 },
        extent: vk::Extent2D {
            width: 32,
            height: 35,
        },
    };
    render_area(&dev, queue, t.keep, area, &t, &out, second, |_| {});
    let mut wrong = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let inside = (13..45).contains(&x) && (5..40).contains(&y);
            let i = ((y * SIZE + x) * 4) as usize;
            let px = &out.bytes()[i..i + 4];
            if !pixel_matches(px, if inside { second } else { first }) {
                wrong.push((x, y, px.to_vec()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} pixels differ; first few: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    out.destroy(&dev);
    t.destroy(&dev);
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

/// Twice the signed area of (a, b, p): positive on one side of a->b, negative on the other.
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

#[test]
fn triangle() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let t = Target::new(&ctx, &dev);
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    // Clip-space positions; none lands on a pixel centre or edge-aligned row.
    let ndc: [[f32; 2]; 3] = [[-0.8, -0.7], [0.75, -0.55], [-0.1, 0.85]];
    let mut vb = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = ndc.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    vb.write(&bytes);
    let colour = [1.0f32, 0.0, 0.0, 1.0];
    let clear = [0.0f32, 0.0, 1.0, 1.0];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let vs = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&VERT), None)
            .unwrap();
        let fs = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&FRAG), None)
            .unwrap();
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
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(t.pass)
            .subpass(0);
        let pipeline = dev
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines")[0];
        render(&dev, queue, &t, &out, clear, |cb| {
            dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
            let push: Vec<u8> = colour.iter().flat_map(|f| f.to_le_bytes()).collect();
            dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
            dev.cmd_draw(cb, 3, 1, 0, 0);
        });
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_shader_module(vs, None);
        dev.destroy_shader_module(fs, None);
    }
    // Window coordinates of the vertices (viewport = whole image).
    let win: Vec<[f32; 2]> = ndc
        .iter()
        .map(|p| {
            [
                (p[0] + 1.0) * SIZE as f32 / 2.0,
                (p[1] + 1.0) * SIZE as f32 / 2.0,
            ]
        })
        .collect();
    let (mut inside, mut outside, mut wrong) = (0, 0, Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            let p = [x as f32 + 0.5, y as f32 + 0.5];
            let e = [
                edge(win[0], win[1], p),
                edge(win[1], win[2], p),
                edge(win[2], win[0], p),
            ];
            if e.iter().any(|v| v.abs() < 1e-3) {
                continue;
            }
            let is_inside = e.iter().all(|&v| v > 0.0) || e.iter().all(|&v| v < 0.0);
            let i = ((y * SIZE + x) * 4) as usize;
            let px = &out.bytes()[i..i + 4];
            let want = if is_inside { colour } else { clear };
            if is_inside {
                inside += 1;
            } else {
                outside += 1;
            }
            if !pixel_matches(px, want) {
                wrong.push((x, y, px.to_vec(), is_inside));
            }
        }
    }
    assert!(
        inside > 500 && outside > 500,
        "the triangle covers a fair part of the image ({inside} in, {outside} out)"
    );
    assert!(
        wrong.is_empty(),
        "{} pixels differ; first few: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    vb.destroy(&dev);
    out.destroy(&dev);
    t.destroy(&dev);
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}
