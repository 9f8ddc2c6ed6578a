//! Multisampled and sRGB rendering through the loader, under the validation layer: a 4x
//! triangle resolved by the render pass into a single-sample image, and clears and a triangle
//! in sRGB colour attachments, read back with vkCmdCopyImageToBuffer.
//!
//! Expectations are computed here: coverage from an edge-function test at Vulkan's standard
//! 4x sample locations, the resolved colour as the mean of the samples' colours, and sRGB bytes
//! from the transfer function of the Vulkan spec.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, FRAG, VERT};
use common::{assert_no_validation_messages, submit_and_wait, Ctx};

const SIZE: u32 = 64;

/// Vulkan's standard sample locations for 4 samples, in pixel units from the pixel's corner.
const LOCATIONS_4X: [[f32; 2]; 4] = [
    [0.375, 0.125],
    [0.875, 0.375],
    [0.125, 0.625],
    [0.625, 0.875],
];

/// One image with a view of it.
struct Img {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
}

impl Img {
    fn new(
        ctx: &Ctx,
        dev: &ash::Device,
        format: vk::Format,
        samples: vk::SampleCountFlags,
        usage: vk::ImageUsageFlags,
    ) -> Img {
        // SAFETY: valid device and create infos.
        unsafe {
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
                .samples(samples)
                .tiling(vk::ImageTiling::OPTIMAL)
                .usage(usage)
                .initial_layout(vk::ImageLayout::UNDEFINED);
            let image = dev
                .create_image(&info, None)
                .expect("vkCreateImage of an attachment");
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

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_image_view(self.view, None);
            dev.destroy_image(self.image, None);
            dev.free_memory(self.memory, None);
        }
    }
}

/// A render pass clearing one colour attachment of `format` with `samples` samples; with
/// more than one sample, it is resolved into a single-sample second attachment, which is
/// what gets read back.
struct Rig {
    colour: Img,
    resolve: Option<Img>,
    pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
    samples: vk::SampleCountFlags,
}

impl Rig {
    fn new(ctx: &Ctx, dev: &ash::Device, format: vk::Format, samples: vk::SampleCountFlags) -> Rig {
        let multi = samples != vk::SampleCountFlags::TYPE_1;
        let usage = if multi {
            vk::ImageUsageFlags::COLOR_ATTACHMENT
        } else {
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC
        };
        let colour = Img::new(ctx, dev, format, samples, usage);
        let resolve = multi.then(|| {
            Img::new(
                ctx,
                dev,
                format,
                vk::SampleCountFlags::TYPE_1,
                vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            )
        });
        let desc = |samples, load, store, final_layout| {
            vk::AttachmentDescription::default()
                .format(format)
                .samples(samples)
                .load_op(load)
                .store_op(store)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(final_layout)
        };
        let mut attachments = vec![if multi {
            desc(
                samples,
                vk::AttachmentLoadOp::CLEAR,
                vk::AttachmentStoreOp::DONT_CARE,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            )
        } else {
            desc(
                samples,
                vk::AttachmentLoadOp::CLEAR,
                vk::AttachmentStoreOp::STORE,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            )
        }];
        if multi {
            attachments.push(desc(
                vk::SampleCountFlags::TYPE_1,
                vk::AttachmentLoadOp::DONT_CARE,
                vk::AttachmentStoreOp::STORE,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            ));
        }
        let colour_ref = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let resolve_ref = [vk::AttachmentReference {
            attachment: 1,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let mut subpass = vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour_ref);
        if multi {
            subpass = subpass.resolve_attachments(&resolve_ref);
        }
        let dependency = [vk::SubpassDependency {
            src_subpass: 0,
            dst_subpass: vk::SUBPASS_EXTERNAL,
            src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            dst_stage_mask: vk::PipelineStageFlags::TRANSFER,
            src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            dst_access_mask: vk::AccessFlags::TRANSFER_READ,
            dependency_flags: vk::DependencyFlags::empty(),
        }];
        let subpasses = [subpass];
        // SAFETY: valid device and create infos.
        unsafe {
            let pass = dev
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&attachments)
                        .subpasses(&subpasses)
                        .dependencies(&dependency),
                    None,
                )
                .unwrap();
            let mut views = vec![colour.view];
            views.extend(resolve.as_ref().map(|r| r.view));
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
            Rig {
                colour,
                resolve,
                pass,
                framebuffer,
                samples,
            }
        }
    }

    /// The single-sample image the render pass leaves its result in.
    fn result(&self) -> vk::Image {
        self.resolve.as_ref().unwrap_or(&self.colour).image
    }

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_framebuffer(self.framebuffer, None);
            dev.destroy_render_pass(self.pass, None);
        }
        self.colour.destroy(dev);
        if let Some(r) = self.resolve {
            r.destroy(dev);
        }
    }
}

/// Records `body` inside the rig's render pass, clearing to `clear`, copies the result into
/// `out`, submits and waits.
fn render(
    dev: &ash::Device,
    queue: vk::Queue,
    rig: &Rig,
    out: &Buf,
    clear: [f32; 4],
    body: impl FnOnce(vk::CommandBuffer),
) {
    // SAFETY: valid device, queue and objects; the test waits for the GPU before returning.
    submit_and_wait(dev, queue, |cb| unsafe {
        let clears = [
            vk::ClearValue {
                color: vk::ClearColorValue { float32: clear },
            },
            vk::ClearValue::default(),
        ];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        let n = if rig.resolve.is_some() { 2 } else { 1 };
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(rig.pass)
            .framebuffer(rig.framebuffer)
            .render_area(area)
            .clear_values(&clears[..n]);
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
            rig.result(),
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

/// Draws one triangle (clip-space `ndc`) of flat `colour` into the rig, cleared to `clear`.
#[allow(clippy::too_many_arguments)]
fn draw_triangle(
    ctx: &Ctx,
    dev: &ash::Device,
    queue: vk::Queue,
    rig: &Rig,
    out: &Buf,
    ndc: [[f32; 2]; 3],
    colour: [f32; 4],
    clear: [f32; 4],
) {
    let mut vb = Buf::new(ctx, dev, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let bytes: Vec<u8> = ndc.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    vb.write(&bytes);
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
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(rig.samples);
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
            .render_pass(rig.pass)
            .subpass(0);
        let pipeline = dev
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines")[0];
        render(dev, queue, rig, out, clear, |cb| {
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
    vb.destroy(dev);
}

/// Twice the signed area of (a, b, p): positive on one side of a->b, negative on the other.
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// Whether window point `p` is inside triangle `win`; `None` when it lies on an edge (the
/// fill rule decides it).
fn covers(win: &[[f32; 2]; 3], p: [f32; 2]) -> Option<bool> {
    let e = [
        edge(win[0], win[1], p),
        edge(win[1], win[2], p),
        edge(win[2], win[0], p),
    ];
    if e.iter().any(|v| v.abs() < 1e-3) {
        return None;
    }
    Some(e.iter().all(|&v| v > 0.0) || e.iter().all(|&v| v < 0.0))
}

fn window(ndc: &[[f32; 2]; 3]) -> [[f32; 2]; 3] {
    ndc.map(|p| {
        [
            (p[0] + 1.0) * SIZE as f32 / 2.0,
            (p[1] + 1.0) * SIZE as f32 / 2.0,
        ]
    })
}

/// The sRGB encoding of linear `c` in [0, 1] (Vulkan spec, "sRGB transfer functions").
fn srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// A byte within `tol` of `value` scaled to 255.
fn near(byte: u8, value: f32, tol: f32) -> bool {
    (f32::from(byte) - value * 255.0).abs() <= tol
}

fn finish(dev: ash::Device) {
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
    assert_no_validation_messages();
}

#[test]
fn four_samples_are_offered() {
    let ctx = Ctx::new();
    // SAFETY: valid physical device and arguments.
    let props = unsafe {
        ctx.instance.get_physical_device_image_format_properties(
            ctx.pdev,
            vk::Format::R8G8B8A8_UNORM,
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
            vk::ImageCreateFlags::empty(),
        )
    }
    .unwrap();
    assert!(
        props.sample_counts.contains(vk::SampleCountFlags::TYPE_4),
        "{:?}",
        props.sample_counts
    );
    for f in [vk::Format::R8G8B8A8_SRGB, vk::Format::B8G8R8A8_SRGB] {
        // SAFETY: as above.
        let p = unsafe {
            ctx.instance
                .get_physical_device_format_properties(ctx.pdev, f)
        };
        assert!(
            p.optimal_tiling_features.contains(
                vk::FormatFeatureFlags::COLOR_ATTACHMENT
                    | vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND
            ),
            "{f:?}"
        );
    }
    assert_no_validation_messages();
}

/// A 4x triangle resolved by the render pass: every pixel is the mean of its four samples,
/// each the triangle's colour where the standard sample location is covered and the clear
/// colour elsewhere.
#[test]
fn msaa_triangle_resolves_to_mean_of_samples() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let rig = Rig::new(
        &ctx,
        &dev,
        vk::Format::R8G8B8A8_UNORM,
        vk::SampleCountFlags::TYPE_4,
    );
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    let ndc: [[f32; 2]; 3] = [[-0.8, -0.7], [0.75, -0.55], [-0.1, 0.85]];
    let colour = [1.0f32, 0.0, 0.5, 1.0];
    let clear = [0.0f32, 1.0, 0.0, 1.0];
    draw_triangle(&ctx, &dev, queue, &rig, &out, ndc, colour, clear);
    let win = window(&ndc);
    let (mut partial, mut checked, mut wrong) = (0, 0, Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            let cov: Option<Vec<bool>> = LOCATIONS_4X
                .iter()
                .map(|l| covers(&win, [x as f32 + l[0], y as f32 + l[1]]))
                .collect();
            let Some(cov) = cov else { continue };
            let k = cov.iter().filter(|&&c| c).count() as f32;
            let want: Vec<f32> = (0..4)
                .map(|c| (k * colour[c] + (4.0 - k) * clear[c]) / 4.0)
                .collect();
            if k > 0.0 && k < 4.0 {
                partial += 1;
            }
            checked += 1;
            let i = ((y * SIZE + x) * 4) as usize;
            let px = &out.bytes()[i..i + 4];
            // Each sample holds an exact 8-bit value; their mean rounds either way at a half.
            if !px.iter().zip(&want).all(|(&b, &v)| near(b, v, 0.5 + 1e-3)) {
                wrong.push((x, y, k, px.to_vec()));
            }
        }
    }
    assert!(
        partial > 40 && checked > 3000,
        "the triangle's edges cross many pixels ({partial} partly covered of {checked})"
    );
    assert!(
        wrong.is_empty(),
        "{} pixels differ; first few (x, y, covered samples, bytes): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    out.destroy(&dev);
    rig.destroy(&dev);
    finish(dev);
}

/// A render-pass clear of an sRGB attachment reaches memory encoded, in the format's byte
/// order; alpha is not encoded.
#[test]
fn srgb_clear_is_encoded() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let clear = [0.5f32, 0.25, 0.05, 0.5];
    for (format, order) in [
        (vk::Format::R8G8B8A8_SRGB, [0, 1, 2, 3]),
        (vk::Format::B8G8R8A8_SRGB, [2, 1, 0, 3]),
    ] {
        let rig = Rig::new(&ctx, &dev, format, vk::SampleCountFlags::TYPE_1);
        let out = Buf::new(
            &ctx,
            &dev,
            u64::from(SIZE * SIZE * 4),
            vk::BufferUsageFlags::TRANSFER_DST,
        );
        render(&dev, queue, &rig, &out, clear, |_| {});
        let want: Vec<f32> = order
            .iter()
            .map(|&c| if c < 3 { srgb(clear[c]) } else { clear[c] })
            .collect();
        let bad = out
            .bytes()
            .chunks(4)
            .filter(|px| !px.iter().zip(&want).all(|(&b, &v)| near(b, v, 0.5 + 1e-3)))
            .count();
        assert_eq!(
            bad,
            0,
            "{format:?}: pixels not the encoded clear colour; first: {:?}, want {:?}",
            &out.bytes()[..4],
            want.iter().map(|v| v * 255.0).collect::<Vec<_>>()
        );
        // 0.5 linear is 188 encoded, not 128.
        assert_eq!(
            out.bytes()[order.iter().position(|&c| c == 0).unwrap()],
            188
        );
        out.destroy(&dev);
        rig.destroy(&dev);
    }
    finish(dev);
}

/// A triangle's fragment colour is encoded on its way into an sRGB attachment.
#[test]
fn srgb_triangle_is_encoded() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let rig = Rig::new(
        &ctx,
        &dev,
        vk::Format::R8G8B8A8_SRGB,
        vk::SampleCountFlags::TYPE_1,
    );
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    let ndc: [[f32; 2]; 3] = [[-0.8, -0.7], [0.75, -0.55], [-0.1, 0.85]];
    let colour = [0.2f32, 0.5, 0.8, 0.25];
    let clear = [0.02f32, 0.0, 1.0, 1.0];
    draw_triangle(&ctx, &dev, queue, &rig, &out, ndc, colour, clear);
    let win = window(&ndc);
    let (mut inside, mut wrong) = (0, Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            let Some(is_inside) = covers(&win, [x as f32 + 0.5, y as f32 + 0.5]) else {
                continue;
            };
            let c = if is_inside { colour } else { clear };
            let want = [srgb(c[0]), srgb(c[1]), srgb(c[2]), c[3]];
            inside += usize::from(is_inside);
            let i = ((y * SIZE + x) * 4) as usize;
            let px = &out.bytes()[i..i + 4];
            // The shader's transfer function runs on the GPU's exp2/log2: one step of slack.
            if !px.iter().zip(want).all(|(&b, v)| near(b, v, 1.0)) {
                wrong.push((x, y, px.to_vec()));
            }
        }
    }
    assert!(
        inside > 500,
        "the triangle covers a fair part of the image ({inside} pixels)"
    );
    assert!(
        wrong.is_empty(),
        "{} pixels differ; first few: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
    out.destroy(&dev);
    rig.destroy(&dev);
    finish(dev);
}
