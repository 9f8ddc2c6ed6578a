//! Image create flags through the loader: cube-compatible images (cube views, per-face clears,
//! copies and renders read back layer by layer), mutable-format images cleared and drawn
//! through views of another format of the same class, the format property queries with those
//! flags and with VkImageFormatListCreateInfo, and invalid combinations refused with errors.
//!
//! Expected bytes are written out by hand from the formats' definitions (UNORM8 = round(255 c),
//! little-endian 32-bit integers, B8G8R8A8 storing blue first), not read from the driver.

mod common;

use ash::vk;
use common::render::{host_visible_type, Buf, FRAG, VERT};
use common::{assert_no_validation_messages, submit_and_wait, Ctx};

const SIZE: u32 = 16;
const RGBA8: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// An image in host-visible memory.
struct Img {
    image: vk::Image,
    memory: vk::DeviceMemory,
}

fn create_info(
    format: vk::Format,
    flags: vk::ImageCreateFlags,
    (w, h): (u32, u32),
    layers: u32,
    usage: vk::ImageUsageFlags,
) -> vk::ImageCreateInfo<'static> {
    vk::ImageCreateInfo::default()
        .flags(flags)
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(layers)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .initial_layout(vk::ImageLayout::UNDEFINED)
}

impl Img {
    fn new(ctx: &Ctx, dev: &ash::Device, info: &vk::ImageCreateInfo<'_>) -> Img {
        // SAFETY: valid device and create info.
        unsafe {
            let image = dev.create_image(info, None).expect("vkCreateImage");
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
            Img { image, memory }
        }
    }

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_image(self.image, None);
            dev.free_memory(self.memory, None);
        }
    }
}

fn range(base_layer: u32, layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: base_layer,
        layer_count: layers,
    }
}

fn layers(base: u32, count: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: base,
        layer_count: count,
    }
}

fn view_info(
    image: vk::Image,
    ty: vk::ImageViewType,
    format: vk::Format,
    r: vk::ImageSubresourceRange,
) -> vk::ImageViewCreateInfo<'static> {
    vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(ty)
        .format(format)
        .subresource_range(r)
}

/// A render pass with one colour attachment of `format` that is cleared and stored, then
/// read by transfers; and a framebuffer of `view`.
struct Pass {
    pass: vk::RenderPass,
    framebuffer: vk::Framebuffer,
}

impl Pass {
    fn new(
        dev: &ash::Device,
        format: vk::Format,
        view: vk::ImageView,
        initial: vk::ImageLayout,
    ) -> Pass {
        let attachment = [vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(initial)
            .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)];
        let colour = [vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        }];
        let subpass = [vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&colour)];
        let dependency = [
            vk::SubpassDependency {
                src_subpass: vk::SUBPASS_EXTERNAL,
                dst_subpass: 0,
                src_stage_mask: vk::PipelineStageFlags::TRANSFER,
                dst_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                src_access_mask: vk::AccessFlags::TRANSFER_WRITE,
                dst_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                dependency_flags: vk::DependencyFlags::empty(),
            },
            vk::SubpassDependency {
                src_subpass: 0,
                dst_subpass: vk::SUBPASS_EXTERNAL,
                src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                dst_stage_mask: vk::PipelineStageFlags::TRANSFER,
                src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                dst_access_mask: vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE,
                dependency_flags: vk::DependencyFlags::empty(),
            },
        ];
        let views = [view];
        // SAFETY: valid device and create infos.
        unsafe {
            let pass = dev
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(&attachment)
                        .subpasses(&subpass)
                        .dependencies(&dependency),
                    None,
                )
                .unwrap();
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
                .expect("vkCreateFramebuffer");
            Pass { pass, framebuffer }
        }
    }

    /// Records the pass, clearing to `clear`, with `body` inside it.
    fn record(
        &self,
        dev: &ash::Device,
        cb: vk::CommandBuffer,
        clear: vk::ClearColorValue,
        body: impl FnOnce(vk::CommandBuffer),
    ) {
        let clears = [vk::ClearValue { color: clear }];
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        };
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(self.pass)
            .framebuffer(self.framebuffer)
            .render_area(area)
            .clear_values(&clears);
        // SAFETY: valid command buffer in recording, outside a render pass.
        unsafe {
            dev.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            body(cb);
            dev.cmd_end_render_pass(cb);
        }
    }

    fn destroy(self, dev: &ash::Device) {
        // SAFETY: the GPU is idle.
        unsafe {
            dev.destroy_framebuffer(self.framebuffer, None);
            dev.destroy_render_pass(self.pass, None);
        }
    }
}

/// A barrier between transfers (and render passes) on layers `base..base + count` of
/// `image`, from layout `old` to `new`.
fn barrier(
    dev: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
    (base, count): (u32, u32),
) {
    let barrier = vk::ImageMemoryBarrier::default()
        .image(image)
        .old_layout(old)
        .new_layout(new)
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
        .dst_access_mask(
            vk::AccessFlags::TRANSFER_READ
                | vk::AccessFlags::TRANSFER_WRITE
                | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        )
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .subresource_range(range(base, count));
    let stages = vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
    // SAFETY: valid command buffer in recording, outside a render pass.
    unsafe {
        dev.cmd_pipeline_barrier(
            cb,
            stages,
            stages,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier],
        )
    };
}

/// Copies `layer_count` layers of the SIZE x SIZE 4-byte `image` into `out` (tightly packed,
/// layer after layer) and makes them visible to the host.
fn read_back(
    dev: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    layer_count: u32,
    out: &Buf,
) {
    let region = vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: layers(0, layer_count),
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D {
            width: SIZE,
            height: SIZE,
            depth: 1,
        },
    };
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ);
    // SAFETY: valid command buffer in recording, outside a render pass.
    unsafe {
        dev.cmd_copy_image_to_buffer(
            cb,
            image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            out.buffer,
            &[region],
        );
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
    }
}

/// Asserts every texel of `layer` in a read-back buffer is `want`.
fn assert_layer(out: &Buf, layer: u32, want: impl Fn(u32, u32) -> [u8; 4], what: &str) {
    let texels = (SIZE * SIZE) as usize;
    let bytes = &out.bytes()[layer as usize * texels * 4..(layer as usize + 1) * texels * 4];
    for (i, px) in bytes.chunks(4).enumerate() {
        let (x, y) = (i as u32 % SIZE, i as u32 / SIZE);
        assert_eq!(px, want(x, y), "{what}: layer {layer} texel ({x}, {y})");
    }
}

/// Which of the extensions that define the structures these tests chain agx4 advertises:
/// VK_KHR_image_format_list (VkImageFormatListCreateInfo) and VK_KHR_maintenance2
/// (VkImageViewUsageCreateInfo). The validation layer rejects a structure whose extension is
/// not enabled, so validated tests chain only what they could enable.
struct Extensions {
    format_list: bool,
    view_usage: bool,
}

/// A device with one queue and whichever of [`Extensions`] agx4 offers.
fn device(ctx: &Ctx) -> (ash::Device, vk::Queue, Extensions) {
    // SAFETY: valid physical device.
    let offered = unsafe { ctx.instance.enumerate_device_extension_properties(ctx.pdev) }.unwrap();
    let has = |name: &std::ffi::CStr| {
        offered
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };
    let ext = Extensions {
        format_list: has(ash::khr::image_format_list::NAME),
        view_usage: has(ash::khr::maintenance2::NAME),
    };
    let mut names = Vec::new();
    if ext.format_list {
        names.push(ash::khr::image_format_list::NAME.as_ptr());
    }
    if ext.view_usage {
        names.push(ash::khr::maintenance2::NAME.as_ptr());
    }
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    // SAFETY: valid physical device and create info.
    let dev = unsafe {
        ctx.instance.create_device(
            ctx.pdev,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&names),
            None,
        )
    }
    .expect("vkCreateDevice");
    // SAFETY: family 0, index 0 was created above.
    let queue = unsafe { dev.get_device_queue(0, 0) };
    (dev, queue, ext)
}

fn unorm(bytes: [u8; 4]) -> vk::ClearColorValue {
    vk::ClearColorValue {
        float32: bytes.map(|b| f32::from(b) / 255.0),
    }
}

/// vkGetPhysicalDeviceImageFormatProperties2 for a 2D RGBA8 colour attachment with `flags`,
/// with a VkImageFormatListCreateInfo in the chain if `list`.
fn format_properties2(
    ctx: &Ctx,
    flags: vk::ImageCreateFlags,
    list: bool,
) -> Result<vk::ImageFormatProperties, vk::Result> {
    let formats = [RGBA8, vk::Format::R32_UINT];
    let mut format_list = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let mut info = vk::PhysicalDeviceImageFormatInfo2::default()
        .format(RGBA8)
        .ty(vk::ImageType::TYPE_2D)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .flags(flags);
    if list {
        info = info.push_next(&mut format_list);
    }
    let mut out = vk::ImageFormatProperties2::default();
    let gpdp2 = ash::khr::get_physical_device_properties2::Instance::new(&ctx.entry, &ctx.instance);
    // SAFETY: valid physical device and structures.
    unsafe { gpdp2.get_physical_device_image_format_properties2(ctx.pdev, &info, &mut out) }
        .map(|()| out.image_format_properties)
}

#[test]
fn format_properties_with_create_flags() {
    let ctx = Ctx::new();
    let attach = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let q = |format, ty, tiling, flags| {
        // SAFETY: valid physical device.
        unsafe {
            ctx.instance.get_physical_device_image_format_properties(
                ctx.pdev, format, ty, tiling, attach, flags,
            )
        }
    };
    let (two_d, optimal) = (vk::ImageType::TYPE_2D, vk::ImageTiling::OPTIMAL);
    let cube = q(RGBA8, two_d, optimal, vk::ImageCreateFlags::CUBE_COMPATIBLE)
        .expect("cube-compatible 2D images");
    // SAFETY: valid physical device.
    let limits = unsafe { ctx.instance.get_physical_device_properties(ctx.pdev) }.limits;
    assert_eq!(
        cube.max_extent,
        vk::Extent3D {
            width: limits.max_image_dimension_cube,
            height: limits.max_image_dimension_cube,
            depth: 1
        }
    );
    assert!(
        cube.max_array_layers >= 6 && cube.max_array_layers <= limits.max_image_array_layers,
        "{cube:?}"
    );
    assert_eq!(cube.max_mip_levels, 15, "a full chain of a 16384 cube");
    // No multisampled cube-compatible images (spec: sampleCounts is 1 for them).
    assert_eq!(cube.sample_counts, vk::SampleCountFlags::TYPE_1);
    let mutable = q(RGBA8, two_d, optimal, vk::ImageCreateFlags::MUTABLE_FORMAT)
        .expect("mutable-format images");
    assert_eq!(
        mutable.sample_counts,
        vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_4
    );
    assert_eq!(mutable.max_array_layers, limits.max_image_array_layers);
    let both = vk::ImageCreateFlags::CUBE_COMPATIBLE | vk::ImageCreateFlags::MUTABLE_FORMAT;
    let unsupported = Some(vk::Result::ERROR_FORMAT_NOT_SUPPORTED);
    // Cubes are 2D and layered, which linear images are not.
    assert_eq!(
        q(
            RGBA8,
            two_d,
            vk::ImageTiling::LINEAR,
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        )
        .err(),
        unsupported
    );
    assert_eq!(
        q(
            RGBA8,
            vk::ImageType::TYPE_1D,
            optimal,
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        )
        .err(),
        unsupported
    );
    // Flags agx4 does not implement stay refused.
    assert_eq!(
        q(RGBA8, two_d, optimal, vk::ImageCreateFlags::SPARSE_BINDING).err(),
        unsupported
    );
    assert_eq!(
        q(
            RGBA8,
            two_d,
            optimal,
            vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::SPARSE_BINDING
        )
        .err(),
        unsupported
    );
    // Depth cube maps (shadow cubes) as attachments.
    let depth = vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    // SAFETY: valid physical device.
    let d = unsafe {
        ctx.instance.get_physical_device_image_format_properties(
            ctx.pdev,
            vk::Format::D32_SFLOAT,
            two_d,
            optimal,
            depth,
            vk::ImageCreateFlags::CUBE_COMPATIBLE,
        )
    }
    .expect("depth cubes");
    assert_eq!(d.sample_counts, vk::SampleCountFlags::TYPE_1);

    // vkGetPhysicalDeviceImageFormatProperties2, with a format list in the chain when the
    // extension is there (its structure is valid only then).
    // SAFETY: valid physical device.
    let offered = unsafe { ctx.instance.enumerate_device_extension_properties(ctx.pdev) }.unwrap();
    let format_list = offered
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::khr::image_format_list::NAME));
    assert_eq!(
        format!("{:?}", format_properties2(&ctx, both, format_list)),
        format!("{:?}", Ok::<_, vk::Result>(cube))
    );

    // SAFETY: valid physical device.
    let features = unsafe { ctx.instance.get_physical_device_features(ctx.pdev) };
    assert_eq!(
        features.image_cube_array,
        vk::TRUE,
        "cube array views are offered"
    );
    drop(ctx);
    assert_no_validation_messages();
}

/// Two cubes in one 12-layer image. Everything is cleared to a background first; then faces
/// 0..5 get a clear each, layer 6 is rendered through a CUBE view starting there (a
/// framebuffer of one layer renders its first face), layer 7 is uploaded from a buffer and
/// copied to layer 11, and layer 9 is rendered through a 2D view of that one layer.
#[test]
fn cube_faces_clear_copy_and_render() {
    let ctx = Ctx::new();
    let (dev, queue) = ctx.device();
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::TRANSFER_SRC
        | vk::ImageUsageFlags::TRANSFER_DST;
    let img = Img::new(
        &ctx,
        &dev,
        &create_info(
            RGBA8,
            vk::ImageCreateFlags::CUBE_COMPATIBLE,
            (SIZE, SIZE),
            12,
            usage,
        ),
    );
    // SAFETY: valid device and create infos.
    let (cube0, cube1, face9) = unsafe {
        (
            dev.create_image_view(
                &view_info(img.image, vk::ImageViewType::CUBE, RGBA8, range(0, 6)),
                None,
            )
            .expect("a cube view of the first cube"),
            dev.create_image_view(
                &view_info(img.image, vk::ImageViewType::CUBE, RGBA8, range(6, 6)),
                None,
            )
            .expect("a cube view of the second cube"),
            dev.create_image_view(
                &view_info(img.image, vk::ImageViewType::TYPE_2D, RGBA8, range(9, 1)),
                None,
            )
            .expect("a 2D view of one face"),
        )
    };
    let through_cube = Pass::new(&dev, RGBA8, cube1, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
    let through_face = Pass::new(&dev, RGBA8, face9, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
    let texel =
        |layer: u32, x: u32, y: u32| [layer as u8 * 17, x as u8 * 13 + 1, y as u8 * 11 + 2, 0xa5];
    let mut upload = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4),
        vk::BufferUsageFlags::TRANSFER_SRC,
    );
    let bytes: Vec<u8> = (0..SIZE * SIZE)
        .flat_map(|i| texel(7, i % SIZE, i / SIZE))
        .collect();
    upload.write(&bytes);
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4 * 12),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    let background = [9, 8, 7, 6];
    let face_colour = |face: u32| [face as u8 * 40, 255 - face as u8 * 40, 17 + face as u8, 255];
    let (cube_clear, face_clear) = ([200, 100, 50, 25], [1, 2, 3, 4]);
    let (dst, src) = (
        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    );
    submit_and_wait(&dev, queue, |cb| {
        barrier(
            &dev,
            cb,
            img.image,
            (vk::ImageLayout::UNDEFINED, dst),
            (0, 12),
        );
        // SAFETY: valid command buffer in recording; barriers order each step.
        unsafe {
            dev.cmd_clear_color_image(cb, img.image, dst, &unorm(background), &[range(0, 12)]);
            barrier(&dev, cb, img.image, (dst, dst), (0, 12));
            for face in 0..6 {
                dev.cmd_clear_color_image(
                    cb,
                    img.image,
                    dst,
                    &unorm(face_colour(face)),
                    &[range(face, 1)],
                );
            }
            let region = vk::BufferImageCopy {
                buffer_offset: 0,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: layers(7, 1),
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                },
            };
            dev.cmd_copy_buffer_to_image(cb, upload.buffer, img.image, dst, &[region]);
            barrier(&dev, cb, img.image, (dst, src), (7, 1));
            let copy = vk::ImageCopy {
                src_subresource: layers(7, 1),
                src_offset: vk::Offset3D::default(),
                dst_subresource: layers(11, 1),
                dst_offset: vk::Offset3D::default(),
                extent: vk::Extent3D {
                    width: SIZE,
                    height: SIZE,
                    depth: 1,
                },
            };
            dev.cmd_copy_image(cb, img.image, src, img.image, dst, &[copy]);
        }
        // The second cube's layers all enter its render pass as TRANSFER_SRC_OPTIMAL.
        barrier(&dev, cb, img.image, (dst, src), (6, 1));
        barrier(&dev, cb, img.image, (dst, src), (8, 4));
        through_cube.record(&dev, cb, unorm(cube_clear), |_| {});
        through_face.record(&dev, cb, unorm(face_clear), |_| {});
        barrier(&dev, cb, img.image, (dst, src), (0, 6));
        read_back(&dev, cb, img.image, 12, &out);
    });
    for face in 0..6 {
        assert_layer(&out, face, |_, _| face_colour(face), "per-face clear");
    }
    assert_layer(
        &out,
        6,
        |_, _| cube_clear,
        "render pass through the second cube's view",
    );
    assert_layer(&out, 7, |x, y| texel(7, x, y), "upload");
    assert_layer(
        &out,
        9,
        |_, _| face_clear,
        "render pass through a 2D view of one face",
    );
    assert_layer(&out, 11, |x, y| texel(7, x, y), "copy from layer 7");
    for layer in [8, 10] {
        assert_layer(&out, layer, |_, _| background, "untouched layer");
    }
    through_cube.destroy(&dev);
    through_face.destroy(&dev);
    upload.destroy(&dev);
    out.destroy(&dev);
    // SAFETY: the GPU is idle.
    unsafe {
        for v in [cube0, cube1, face9] {
            dev.destroy_image_view(v, None);
        }
        img.destroy(&dev);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

/// A pipeline drawing FRAG's push-constant colour with VERT, for `pass`.
fn colour_pipeline(
    dev: &ash::Device,
    pass: vk::RenderPass,
) -> (vk::Pipeline, vk::PipelineLayout, [vk::ShaderModule; 2]) {
    // SAFETY: valid device and create infos.
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
            .render_pass(pass)
            .subpass(0);
        let pipeline = dev
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
            .map_err(|(_, e)| e)
            .expect("vkCreateGraphicsPipelines")[0];
        (pipeline, layout, [vs, fs])
    }
}

/// An R8G8B8A8_UNORM image with MUTABLE_FORMAT and a format list, in three layers: layer 0
/// cleared through an R32_UINT view, layer 1 through an R8G8B8A8_UINT view (whose usage is
/// narrowed to colour attachment), layer 2 drawn through a B8G8R8A8_UNORM view. The image's
/// bytes are what those formats store.
#[test]
fn mutable_format_views_render_in_their_format() {
    let ctx = Ctx::new();
    let (dev, queue, ext) = device(&ctx);
    if !(ext.format_list && ext.view_usage) {
        eprintln!("note: VK_KHR_image_format_list or VK_KHR_maintenance2 is not advertised; their structures are left out here (invalid_flag_uses_are_errors chains them without validation)");
    }
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let formats = [
        RGBA8,
        vk::Format::R32_UINT,
        vk::Format::R8G8B8A8_UINT,
        vk::Format::B8G8R8A8_UNORM,
    ];
    let mut list = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
    let mut image_info = create_info(
        RGBA8,
        vk::ImageCreateFlags::MUTABLE_FORMAT,
        (SIZE, SIZE),
        3,
        usage,
    );
    if ext.format_list {
        image_info = image_info.push_next(&mut list);
    }
    let img = Img::new(&ctx, &dev, &image_info);
    let mut attachment_only =
        vk::ImageViewUsageCreateInfo::default().usage(vk::ImageUsageFlags::COLOR_ATTACHMENT);
    let mut uint_view = view_info(
        img.image,
        vk::ImageViewType::TYPE_2D,
        vk::Format::R8G8B8A8_UINT,
        range(1, 1),
    );
    if ext.view_usage {
        uint_view = uint_view.push_next(&mut attachment_only);
    }
    // SAFETY: valid device and create infos.
    let views = unsafe {
        [
            dev.create_image_view(
                &view_info(
                    img.image,
                    vk::ImageViewType::TYPE_2D,
                    vk::Format::R32_UINT,
                    range(0, 1),
                ),
                None,
            )
            .expect("an R32_UINT view"),
            dev.create_image_view(&uint_view, None)
                .expect("an R8G8B8A8_UINT view"),
            dev.create_image_view(
                &view_info(
                    img.image,
                    vk::ImageViewType::TYPE_2D,
                    vk::Format::B8G8R8A8_UNORM,
                    range(2, 1),
                ),
                None,
            )
            .expect("a B8G8R8A8_UNORM view"),
        ]
    };
    let passes = [
        Pass::new(
            &dev,
            vk::Format::R32_UINT,
            views[0],
            vk::ImageLayout::UNDEFINED,
        ),
        Pass::new(
            &dev,
            vk::Format::R8G8B8A8_UINT,
            views[1],
            vk::ImageLayout::UNDEFINED,
        ),
        Pass::new(
            &dev,
            vk::Format::B8G8R8A8_UNORM,
            views[2],
            vk::ImageLayout::UNDEFINED,
        ),
    ];
    let (pipeline, layout, modules) = colour_pipeline(&dev, passes[2].pass);
    // One triangle covering the whole framebuffer.
    let mut vb = Buf::new(&ctx, &dev, 64, vk::BufferUsageFlags::VERTEX_BUFFER);
    let verts: Vec<u8> = [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]]
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    vb.write(&verts);
    let out = Buf::new(
        &ctx,
        &dev,
        u64::from(SIZE * SIZE * 4 * 3),
        vk::BufferUsageFlags::TRANSFER_DST,
    );
    // Red 1.0, green 0.2 (51), blue 0, alpha 0.6 (153).
    let colour = [1.0f32, 0.2, 0.0, 0.6];
    submit_and_wait(&dev, queue, |cb| {
        passes[0].record(
            &dev,
            cb,
            vk::ClearColorValue {
                uint32: [0x1122_3344, 0, 0, 0],
            },
            |_| {},
        );
        passes[1].record(
            &dev,
            cb,
            vk::ClearColorValue {
                uint32: [1, 2, 250, 7],
            },
            |_| {},
        );
        passes[2].record(&dev, cb, unorm([0, 0, 0, 0]), |cb| {
            // SAFETY: valid command buffer inside the pass the pipeline was made for.
            unsafe {
                dev.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
                dev.cmd_bind_vertex_buffers(cb, 0, &[vb.buffer], &[0]);
                let push: Vec<u8> = colour.iter().flat_map(|f| f.to_le_bytes()).collect();
                dev.cmd_push_constants(cb, layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
                dev.cmd_draw(cb, 3, 1, 0, 0);
            }
        });
        read_back(&dev, cb, img.image, 3, &out);
    });
    assert_layer(
        &out,
        0,
        |_, _| [0x44, 0x33, 0x22, 0x11],
        "R32_UINT clear (little-endian)",
    );
    assert_layer(&out, 1, |_, _| [1, 2, 250, 7], "R8G8B8A8_UINT clear");
    assert_layer(
        &out,
        2,
        |_, _| [0, 51, 255, 153],
        "B8G8R8A8_UNORM draw (blue first)",
    );
    // SAFETY: the GPU is idle.
    unsafe {
        dev.destroy_pipeline(pipeline, None);
        dev.destroy_pipeline_layout(layout, None);
        for m in modules {
            dev.destroy_shader_module(m, None);
        }
    }
    for p in passes {
        p.destroy(&dev);
    }
    vb.destroy(&dev);
    out.destroy(&dev);
    // SAFETY: the GPU is idle.
    unsafe {
        for v in views {
            dev.destroy_image_view(v, None);
        }
        img.destroy(&dev);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

/// Invalid uses of the flags, made without the validation layer: each is an error code, never
/// a crash or a usable object.
#[test]
fn invalid_flag_uses_are_errors() {
    let ctx = Ctx::without_validation();
    let (dev, _queue, _) = device(&ctx);
    let both = vk::ImageCreateFlags::CUBE_COMPATIBLE | vk::ImageCreateFlags::MUTABLE_FORMAT;
    let with_list =
        format_properties2(&ctx, both, true).expect("a format list in the query's chain");
    assert_eq!(
        format!("{with_list:?}"),
        format!("{:?}", format_properties2(&ctx, both, false).unwrap())
    );
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let cube = vk::ImageCreateFlags::CUBE_COMPATIBLE;
    // vkCreateImage may only fail with out-of-memory codes, so an invalid combination is
    // VK_ERROR_OUT_OF_HOST_MEMORY (with a message), never a code the spec does not list.
    let refused_image = |info: &vk::ImageCreateInfo<'_>, what: &str| {
        // SAFETY: the driver must survive invalid create infos (the point of the test).
        let r = unsafe { dev.create_image(info, None) };
        assert_eq!(
            r.err(),
            Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY),
            "{what}"
        );
    };
    refused_image(
        &create_info(RGBA8, cube, (16, 8), 6, usage),
        "a non-square cube",
    );
    refused_image(
        &create_info(RGBA8, cube, (16, 16), 5, usage),
        "a cube of five layers",
    );
    refused_image(
        &create_info(
            RGBA8,
            vk::ImageCreateFlags::SPARSE_BINDING,
            (16, 16),
            1,
            usage,
        ),
        "sparse images",
    );
    let mut info = create_info(RGBA8, cube, (16, 16), 6, usage);
    info.samples = vk::SampleCountFlags::TYPE_4;
    refused_image(&info, "a multisampled cube");
    let plain = Img::new(
        &ctx,
        &dev,
        &create_info(RGBA8, vk::ImageCreateFlags::empty(), (16, 16), 6, usage),
    );
    let cubes = Img::new(&ctx, &dev, &create_info(RGBA8, cube, (16, 16), 12, usage));
    let formats = [RGBA8, vk::Format::R32_UINT];
    let mut list = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
    let mutable = Img::new(
        &ctx,
        &dev,
        &create_info(
            RGBA8,
            vk::ImageCreateFlags::MUTABLE_FORMAT,
            (16, 16),
            1,
            usage,
        )
        .push_next(&mut list),
    );
    let refused = |info: &vk::ImageViewCreateInfo<'_>, what: &str| {
        // SAFETY: as above.
        let r = unsafe { dev.create_image_view(info, None) };
        assert!(r.is_err(), "{what} was accepted");
    };
    refused(
        &view_info(plain.image, vk::ImageViewType::CUBE, RGBA8, range(0, 6)),
        "a cube view of an image that is not cube compatible",
    );
    refused(
        &view_info(cubes.image, vk::ImageViewType::CUBE, RGBA8, range(0, 12)),
        "a cube view of twelve layers",
    );
    refused(
        &view_info(cubes.image, vk::ImageViewType::CUBE, RGBA8, range(8, 6)),
        "a cube view past the last layer",
    );
    refused(
        &view_info(
            cubes.image,
            vk::ImageViewType::CUBE_ARRAY,
            RGBA8,
            range(0, 8),
        ),
        "a cube array view of eight layers",
    );
    refused(
        &view_info(
            plain.image,
            vk::ImageViewType::TYPE_2D,
            vk::Format::R32_UINT,
            range(0, 1),
        ),
        "another format without MUTABLE_FORMAT",
    );
    refused(
        &view_info(
            mutable.image,
            vk::ImageViewType::TYPE_2D,
            vk::Format::R16G16B16A16_UNORM,
            range(0, 1),
        ),
        "a format of another size",
    );
    refused(
        &view_info(
            mutable.image,
            vk::ImageViewType::TYPE_2D,
            vk::Format::R8G8B8A8_UINT,
            range(0, 1),
        ),
        "a format missing from the format list",
    );
    let mut wider =
        vk::ImageViewUsageCreateInfo::default().usage(vk::ImageUsageFlags::TRANSFER_DST);
    refused(
        &view_info(plain.image, vk::ImageViewType::TYPE_2D, RGBA8, range(0, 1))
            .push_next(&mut wider),
        "a view usage the image lacks",
    );
    // The valid neighbours of those are accepted.
    // SAFETY: valid create infos.
    unsafe {
        let ok = [
            dev.create_image_view(
                &view_info(cubes.image, vk::ImageViewType::CUBE, RGBA8, range(6, 6)),
                None,
            )
            .expect("a cube view"),
            dev.create_image_view(
                &view_info(
                    cubes.image,
                    vk::ImageViewType::TYPE_2D_ARRAY,
                    RGBA8,
                    range(0, 12),
                ),
                None,
            )
            .expect("a 2D array view of a cube image"),
            dev.create_image_view(
                &view_info(
                    mutable.image,
                    vk::ImageViewType::TYPE_2D,
                    vk::Format::R32_UINT,
                    range(0, 1),
                ),
                None,
            )
            .expect("a listed format"),
            dev.create_image_view(
                &view_info(plain.image, vk::ImageViewType::TYPE_2D, RGBA8, range(0, 1)).push_next(
                    &mut vk::ImageViewUsageCreateInfo::default()
                        .usage(vk::ImageUsageFlags::TRANSFER_SRC),
                ),
                None,
            )
            .expect("a narrower view usage"),
        ];
        for v in ok {
            dev.destroy_image_view(v, None);
        }
    }
    for i in [plain, cubes, mutable] {
        i.destroy(&dev);
    }
    // SAFETY: everything made from the device is gone.
    unsafe { dev.destroy_device(None) };
}

/// What the CTS found missing: EXTENDED_USAGE (VK_KHR_maintenance2) allows the usages of any
/// format of the image format's class, transient attachments are attachments, depth/stencil
/// formats have transfer-only images, and ALIAS (VK_KHR_bind_memory2) is accepted.
#[test]
fn extended_usage_transient_depth_transfers_and_alias() {
    let ctx = Ctx::new();
    let q = |format, usage, flags| {
        // SAFETY: valid physical device.
        unsafe {
            ctx.instance.get_physical_device_image_format_properties(
                ctx.pdev,
                format,
                vk::ImageType::TYPE_2D,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
        }
    };
    let colour = vk::ImageUsageFlags::COLOR_ATTACHMENT;
    let mutable = vk::ImageCreateFlags::MUTABLE_FORMAT;
    let extended = mutable | vk::ImageCreateFlags::EXTENDED_USAGE;
    // R8_SRGB is not a colour attachment, but R8_UNORM (same class) is.
    assert!(q(vk::Format::R8_SRGB, colour, mutable).is_err());
    assert!(q(vk::Format::R8_SRGB, colour, extended).is_ok());
    // EXTENDED_USAGE needs MUTABLE_FORMAT, and cannot reach past the class: no 8-bit format
    // is a depth attachment.
    assert!(q(
        vk::Format::R8_SRGB,
        colour,
        vk::ImageCreateFlags::EXTENDED_USAGE
    )
    .is_err());
    assert!(q(
        vk::Format::R8_UNORM,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        extended
    )
    .is_err());
    let transient = vk::ImageUsageFlags::TRANSIENT_ATTACHMENT;
    assert!(q(RGBA8, colour | transient, vk::ImageCreateFlags::empty()).is_ok());
    assert!(q(
        vk::Format::D32_SFLOAT_S8_UINT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | transient,
        vk::ImageCreateFlags::empty()
    )
    .is_ok());
    // A transient attachment is only an attachment.
    assert!(q(
        RGBA8,
        colour | transient | vk::ImageUsageFlags::TRANSFER_SRC,
        vk::ImageCreateFlags::empty()
    )
    .is_err());
    let transfer = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    for depth in [
        vk::Format::D16_UNORM,
        vk::Format::D32_SFLOAT,
        vk::Format::S8_UINT,
        vk::Format::D32_SFLOAT_S8_UINT,
    ] {
        assert!(
            q(depth, transfer, vk::ImageCreateFlags::empty()).is_ok(),
            "{depth:?}"
        );
    }
    assert!(q(RGBA8, colour | transfer, vk::ImageCreateFlags::ALIAS).is_ok());
    drop(ctx);
    assert_no_validation_messages();
}
