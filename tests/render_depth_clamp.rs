//! Depth clamp (the depthClamp feature) through the loader, under the validation layer: a
//! triangle whose clip-space z runs from below 0 to above w is drawn into a D32_SFLOAT
//! attachment with depthClampEnable, and again without it. With the clamp every covered pixel
//! is coloured and its depth is the interpolated z mapped into the viewport's depth range and
//! clamped to it; without it the parts beyond the near and far planes are clipped away. The
//! expectations (coverage, interpolated z, the mapping and the clamp) are computed here from the
//! vertex positions.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, FRAG};
use common::{assert_no_validation_messages, Ctx, OneShot};

const SIZE: u32 = 32;
const COLOUR: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH: vk::Format = vk::Format::D32_SFLOAT;
/// The viewport's depth range: [MIN_DEPTH, MAX_DEPTH].
const MIN_DEPTH: f32 = 0.2;
const MAX_DEPTH: f32 = 0.6;

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

/// Clip-space x, y, z (w = 1): z runs from -1 (in front of the near plane) to 2 (behind the
/// far plane), so window depth 0.2 + 0.4 z spans [-0.2, 1.0] before clamping.
const TRIANGLE: [[f32; 3]; 3] = [[-0.9, -0.85, -1.0], [0.85, -0.7, 0.5], [-0.05, 0.9, 2.0]];

struct Img {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
}

fn image(
    ctx: &Ctx,
    dev: &ash::Device,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
) -> Img {
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
        .usage(usage | vk::ImageUsageFlags::TRANSFER_SRC)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid device and create infos.
    unsafe {
        let image = dev.create_image(&info, None).expect("vkCreateImage");
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
            aspect_mask: aspect,
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
                    .format(format)
                    .subresource_range(range),
                None,
            )
            .unwrap();
        Img {
            image,
            memory,
            view,
        }
    }
}

/// Draws TRIANGLE in red over a blue clear and a depth clear of 1.0, with depth test ALWAYS
/// and depth writes on, and returns the colour and depth images' bytes.
fn draw(ctx: &Ctx, dev: &ash::Device, queue: vk::Queue, clamp: bool) -> (Vec<u8>, Vec<f32>) {
    let colour = image(
        ctx,
        dev,
        COLOUR,
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
        vk::ImageAspectFlags::COLOR,
    );
    let depth = image(
        ctx,
        dev,
        DEPTH,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
    );
    let texels = u64::from(SIZE * SIZE);
    let out_colour = Buf::new(ctx, dev, texels * 4, vk::BufferUsageFlags::TRANSFER_DST);
    let out_depth = Buf::new(ctx, dev, texels * 4, vk::BufferUsageFlags::TRANSFER_DST);
    let mut vb = Buf::new(ctx, dev, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = TRIANGLE
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&bytes);
    let attachment = |format, final_layout| {
        vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(final_layout)
    };
    let attachments = [
        attachment(COLOUR, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
        attachment(DEPTH, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
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
    let dependency = [vk::SubpassDependency {
        src_subpass: 0,
        dst_subpass: vk::SUBPASS_EXTERNAL,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
        dst_stage_mask: vk::PipelineStageFlags::TRANSFER,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::TRANSFER_READ,
        dependency_flags: vk::DependencyFlags::empty(),
    }];
    // SAFETY: valid device and create infos; every object is destroyed after the GPU is idle.
    unsafe {
        let pass = dev
            .create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachments)
                    .subpasses(&subpass)
                    .dependencies(&dependency),
                None,
            )
            .unwrap();
        let views = [colour.view, depth.view];
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
        let vs = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&VERT3), None)
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
            stride: 12,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attributes = [vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: vk::Format::R32G32B32_SFLOAT,
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
            min_depth: MIN_DEPTH,
            max_depth: MAX_DEPTH,
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
            .depth_clamp_enable(clamp)
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(true)
            .depth_compare_op(vk::CompareOp::ALWAYS);
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
            .depth_stencil_state(&depth_state)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(pass)
            .subpass(0);
        let pipeline = dev
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines with depth clamp")[0];
        let shot = OneShot::begin(dev);
        let cb = shot.cb;
        let clears = [
            vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.0, 0.0, 1.0, 1.0],
                },
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
                .framebuffer(framebuffer)
                .render_area(area)
                .clear_values(&clears),
            vk::SubpassContents::INLINE,
        );
        dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
        let push: Vec<u8> = [1.0f32, 0.0, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
        dev.cmd_draw(cb, 3, 1, 0, 0);
        dev.cmd_end_render_pass(cb);
        let copy = |aspect| vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
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
            colour.image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            out_colour.buffer,
            &[copy(vk::ImageAspectFlags::COLOR)],
        );
        dev.cmd_copy_image_to_buffer(
            cb,
            depth.image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            out_depth.buffer,
            &[copy(vk::ImageAspectFlags::DEPTH)],
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
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_shader_module(vs, None);
        dev.destroy_shader_module(fs, None);
        dev.destroy_framebuffer(framebuffer, None);
        dev.destroy_render_pass(pass, None);
        for img in [colour, depth] {
            dev.destroy_image_view(img.view, None);
            dev.destroy_image(img.image, None);
            dev.free_memory(img.memory, None);
        }
    }
    let colour_bytes = out_colour.bytes().to_vec();
    let depths = out_depth
        .bytes()
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    for b in [out_colour, out_depth, vb] {
        b.destroy(dev);
    }
    (colour_bytes, depths)
}

/// Twice the signed area of (a, b, p).
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// What pixel (x, y) should hold: `None` for pixels too near an edge (or, without clamping,
/// too near the near or far plane) to call; otherwise `Some(Some(depth))` where the triangle
/// is drawn and `Some(None)` where the clears remain.
fn expected(x: u32, y: u32, clamp: bool) -> Option<Option<f32>> {
    let win: Vec<[f32; 2]> = TRIANGLE
        .iter()
        .map(|v| {
            [
                (v[0] + 1.0) * SIZE as f32 / 2.0,
                (v[1] + 1.0) * SIZE as f32 / 2.0,
            ]
        })
        .collect();
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    let area = edge(win[0], win[1], win[2]);
    // Barycentric weights of p: the sub-triangle opposite each vertex over the whole.
    let l = [
        edge(win[1], win[2], p) / area,
        edge(win[2], win[0], p) / area,
        edge(win[0], win[1], p) / area,
    ];
    if l.iter().any(|v| v.abs() < 1e-3) {
        return None;
    }
    if l.iter().any(|&v| v < 0.0) {
        return Some(None);
    }
    // w = 1 everywhere, so z interpolates linearly in window space.
    let z: f32 = (0..3).map(|i| l[i] * TRIANGLE[i][2]).sum();
    if clamp {
        let zf = MIN_DEPTH + z * (MAX_DEPTH - MIN_DEPTH);
        return Some(Some(
            zf.clamp(MIN_DEPTH.min(MAX_DEPTH), MIN_DEPTH.max(MAX_DEPTH)),
        ));
    }
    // Without the clamp the near (z = 0) and far (z = 1) planes clip the triangle.
    if z.abs() < 0.02 || (z - 1.0).abs() < 0.02 {
        return None;
    }
    Some(
        (0.0..=1.0)
            .contains(&z)
            .then_some(MIN_DEPTH + z * (MAX_DEPTH - MIN_DEPTH)),
    )
}

/// Checks a draw against [`expected`]; returns how many pixels were drawn, and how many of
/// those had a depth the clamp changed.
fn check(colour: &[u8], depth: &[f32], clamp: bool) -> (u32, u32) {
    let (mut drawn, mut clamped, mut wrong) = (0, 0, Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            let Some(want) = expected(x, y, clamp) else {
                continue;
            };
            let i = (y * SIZE + x) as usize;
            let px = &colour[4 * i..4 * i + 4];
            let (want_px, want_depth) = match want {
                Some(d) => ([255, 0, 0, 255], d),
                None => ([0, 0, 255, 255], 1.0),
            };
            if let Some(d) = want {
                drawn += 1;
                if d == MIN_DEPTH || d == MAX_DEPTH {
                    clamped += 1;
                }
            }
            // Clamped depths are the range's ends exactly; interpolated ones may differ by the
            // snapping of vertices to 1/256 pixel (depth changes by about 0.02 per pixel here).
            let tolerance = if want_depth == MIN_DEPTH || want_depth == MAX_DEPTH || want.is_none()
            {
                1e-6
            } else {
                2e-4
            };
            if px != want_px || (depth[i] - want_depth).abs() > tolerance {
                wrong.push((x, y, px.to_vec(), depth[i], want_depth));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "clamp {clamp}: {} pixels differ (x, y, colour, depth, expected depth); first few: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    (drawn, clamped)
}

#[test]
fn depth_clamp_keeps_and_clamps_what_clipping_removes() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device.
    let features = unsafe { ctx.instance.get_physical_device_features(ctx.pdev) };
    assert_eq!(features.depth_clamp, vk::TRUE, "depthClamp is advertised");
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let enabled = vk::PhysicalDeviceFeatures {
        depth_clamp: vk::TRUE,
        ..Default::default()
    };
    // SAFETY: valid physical device and create info.
    let dev = unsafe {
        ctx.instance.create_device(
            ctx.pdev,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_features(&enabled),
            None,
        )
    }
    .expect("a device with depthClamp");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    let (colour, depth) = draw(&ctx, &dev, queue, true);
    let (drawn, clamped) = check(&colour, &depth, true);
    let (colour, depth) = draw(&ctx, &dev, queue, false);
    let (drawn_clipped, _) = check(&colour, &depth, false);
    // The scene must exercise both sides: many pixels clamped at each end, and clipping
    // visibly removing them without the clamp.
    assert!(
        drawn > 150 && clamped > 60,
        "{drawn} pixels drawn, {clamped} clamped"
    );
    assert!(
        drawn_clipped + 50 < drawn,
        "without the clamp {drawn_clipped} pixels are drawn, with it {drawn}"
    );
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
    drop(ctx);
    assert_no_validation_messages();
}
