//! Render pass and framebuffer objects through the loader: creation with several subpasses and
//! dependencies, the render area granularity, framebuffers, and refusal of out-of-range indices.
//!
//! agx4 reports no format as a colour or depth/stencil attachment yet, so a render pass that
//! references an attachment from a subpass (colour, input, resolve, depth/stencil) is invalid
//! usage, and the validation layer says so (VUID-VkSubpassDescription-pColorAttachments-02648
//! and friends); the same holds for framebuffers over views of images without attachment
//! usage. Those objects are exercised without the layer; under the layer only what is valid
//! today is created: attachmentless render passes, attachments no subpass references or that
//! are only preserved, and framebuffers without attachments.

mod common;

use ash::vk;
use common::{assert_no_validation_messages, Ctx};

fn dep(src: u32, dst: u32) -> vk::SubpassDependency {
    vk::SubpassDependency {
        src_subpass: src,
        dst_subpass: dst,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::FRAGMENT_SHADER,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::SHADER_READ,
        dependency_flags: vk::DependencyFlags::BY_REGION,
    }
}

fn attachment(format: vk::Format, samples: vk::SampleCountFlags) -> vk::AttachmentDescription {
    vk::AttachmentDescription::default()
        .format(format)
        .samples(samples)
        .load_op(vk::AttachmentLoadOp::LOAD)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(vk::ImageLayout::GENERAL)
        .final_layout(vk::ImageLayout::GENERAL)
}

fn colour_ref(attachment: u32) -> vk::AttachmentReference {
    vk::AttachmentReference {
        attachment,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }
}

fn create(
    dev: &ash::Device,
    atts: &[vk::AttachmentDescription],
    subs: &[vk::SubpassDescription<'_>],
    deps: &[vk::SubpassDependency],
) -> Result<vk::RenderPass, vk::Result> {
    let info = vk::RenderPassCreateInfo::default()
        .attachments(atts)
        .subpasses(subs)
        .dependencies(deps);
    // SAFETY: valid device; the create info's arrays outlive the call.
    unsafe { dev.create_render_pass(&info, None) }
}

fn framebuffer(
    dev: &ash::Device,
    pass: vk::RenderPass,
    views: &[vk::ImageView],
    w: u32,
    h: u32,
    layers: u32,
) -> Result<vk::Framebuffer, vk::Result> {
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(pass)
        .attachments(views)
        .width(w)
        .height(h)
        .layers(layers);
    // SAFETY: valid device and create info.
    unsafe { dev.create_framebuffer(&info, None) }
}

#[test]
fn render_passes_under_validation() {
    let ctx = Ctx::new();
    let (dev, _queue) = ctx.device();
    let empty =
        vk::SubpassDescription::default().pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS);

    // Attachmentless, three subpasses chained by dependencies, with external ends.
    let deps = [
        dep(vk::SUBPASS_EXTERNAL, 0),
        dep(0, 1),
        dep(1, 2),
        dep(2, vk::SUBPASS_EXTERNAL),
    ];
    let pass = create(&dev, &[], &[empty; 3], &deps).unwrap();
    // SAFETY: valid device and render pass.
    let g = unsafe { dev.get_render_area_granularity(pass) };
    // 32x32 is the largest tile and a multiple of the smaller ones (32x16, 16x16).
    assert_eq!((g.width, g.height), (32, 32));
    let fbs: Vec<_> = [(64, 64, 1), (1, 1, 1), (16384, 16384, 1), (300, 200, 2048)]
        .into_iter()
        .map(|(w, h, l)| framebuffer(&dev, pass, &[], w, h, l).unwrap())
        .collect();

    // Attachments that no subpass uses for rendering: one only preserved, one unreferenced.
    let atts = [
        attachment(vk::Format::R8G8B8A8_UNORM, vk::SampleCountFlags::TYPE_1),
        attachment(
            vk::Format::R16G16B16A16_SFLOAT,
            vk::SampleCountFlags::TYPE_4,
        ),
    ];
    let preserve = [0];
    let subs = [empty, empty.preserve_attachments(&preserve), empty];
    let with_atts = create(&dev, &atts, &subs, &deps[1..3]).unwrap();
    // SAFETY: valid device and render pass.
    let g2 = unsafe { dev.get_render_area_granularity(with_atts) };
    assert_eq!((g2.width, g2.height), (32, 32));

    // SAFETY: every object is idle and destroyed once, framebuffers before their render pass.
    unsafe {
        for fb in fbs {
            dev.destroy_framebuffer(fb, None);
        }
        dev.destroy_framebuffer(vk::Framebuffer::null(), None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_render_pass(with_atts, None);
        dev.destroy_render_pass(vk::RenderPass::null(), None);
        dev.destroy_device(None);
    }
    drop(ctx);
    assert_no_validation_messages();
}

/// A colour image with bound memory and a view of it.
fn image_view(
    ctx: &Ctx,
    dev: &ash::Device,
    format: vk::Format,
    samples: vk::SampleCountFlags,
) -> (vk::Image, vk::DeviceMemory, vk::ImageView) {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D {
            width: 64,
            height: 64,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(samples)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: valid device and create infos; memory is bound before the view is made.
    unsafe {
        let image = dev.create_image(&info, None).unwrap();
        let req = dev.get_image_memory_requirements(image);
        let props = ctx.instance.get_physical_device_memory_properties(ctx.pdev);
        let ty = (0..props.memory_type_count)
            .find(|i| req.memory_type_bits & (1 << i) != 0)
            .unwrap();
        let memory = dev
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
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
        (image, memory, view)
    }
}

/// Subpasses that render to attachments: invalid today (no format has attachment features),
/// so without the layer. The driver must still build the objects.
#[test]
fn render_passes_with_attachments() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let atts = [
        attachment(vk::Format::R8G8B8A8_UNORM, vk::SampleCountFlags::TYPE_4),
        attachment(vk::Format::R8G8B8A8_UNORM, vk::SampleCountFlags::TYPE_1),
        attachment(vk::Format::D32_SFLOAT, vk::SampleCountFlags::TYPE_4),
        attachment(
            vk::Format::R32G32B32A32_SFLOAT,
            vk::SampleCountFlags::TYPE_4,
        ),
    ];
    let colours0 = [
        colour_ref(0),
        colour_ref(vk::ATTACHMENT_UNUSED),
        colour_ref(3),
    ];
    let resolves0 = [
        colour_ref(1),
        colour_ref(vk::ATTACHMENT_UNUSED),
        colour_ref(vk::ATTACHMENT_UNUSED),
    ];
    let ds = vk::AttachmentReference {
        attachment: 2,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let inputs1 = [
        vk::AttachmentReference {
            attachment: 0,
            layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        },
        colour_ref(vk::ATTACHMENT_UNUSED),
    ];
    let colours1 = [colour_ref(3)];
    let preserve1 = [1];
    let subs = [
        vk::SubpassDescription::default()
            .color_attachments(&colours0)
            .resolve_attachments(&resolves0)
            .depth_stencil_attachment(&ds),
        vk::SubpassDescription::default()
            .input_attachments(&inputs1)
            .color_attachments(&colours1)
            .preserve_attachments(&preserve1),
        vk::SubpassDescription::default(),
    ];
    let deps = [
        dep(vk::SUBPASS_EXTERNAL, 0),
        dep(0, 1),
        dep(0, 2),
        dep(1, vk::SUBPASS_EXTERNAL),
    ];
    let pass = create(&dev, &atts, &subs, &deps).unwrap();
    // SAFETY: valid device and render pass.
    let g = unsafe { dev.get_render_area_granularity(pass) };
    assert_eq!((g.width, g.height), (32, 32));

    let images: Vec<_> = atts
        .iter()
        .filter(|a| a.format != vk::Format::D32_SFLOAT)
        .map(|a| image_view(&ctx, &dev, a.format, vk::SampleCountFlags::TYPE_1))
        .collect();
    // The depth slot gets a colour view too: only the object's bookkeeping is under test.
    let views = [images[0].2, images[1].2, images[0].2, images[2].2];
    let fb = framebuffer(&dev, pass, &views, 64, 64, 1).unwrap();
    let fb2 = framebuffer(&dev, pass, &views, 32, 16, 1).unwrap();

    // SAFETY: every object is idle and destroyed once.
    unsafe {
        dev.destroy_framebuffer(fb, None);
        dev.destroy_framebuffer(fb2, None);
        dev.destroy_render_pass(pass, None);
        for (image, memory, view) in images {
            dev.destroy_image_view(view, None);
            dev.destroy_image(image, None);
            dev.free_memory(memory, None);
        }
        dev.destroy_device(None);
    }
}

/// Indices past the end are undefined behaviour; the driver refuses them with the only error
/// vkCreateRenderPass / vkCreateFramebuffer may return, and keeps working.
#[test]
fn out_of_range_indices_are_refused() {
    let ctx = Ctx::without_validation();
    let (dev, _queue) = ctx.device();
    let atts = [attachment(
        vk::Format::R8G8B8A8_UNORM,
        vk::SampleCountFlags::TYPE_1,
    )];
    let oom = Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY);

    let bad_colour = [colour_ref(1)];
    let bad_input = [colour_ref(0), colour_ref(5)];
    let good_colour = [colour_ref(0)];
    let bad_resolve = [colour_ref(2)];
    let bad_ds = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let bad_preserve = [3];
    let unused_preserve = [vk::ATTACHMENT_UNUSED];
    let cases = [
        vk::SubpassDescription::default().color_attachments(&bad_colour),
        vk::SubpassDescription::default().input_attachments(&bad_input),
        vk::SubpassDescription::default()
            .color_attachments(&good_colour)
            .resolve_attachments(&bad_resolve),
        vk::SubpassDescription::default().depth_stencil_attachment(&bad_ds),
        vk::SubpassDescription::default().preserve_attachments(&bad_preserve),
        vk::SubpassDescription::default().preserve_attachments(&unused_preserve),
    ];
    for sub in cases {
        assert_eq!(create(&dev, &atts, &[sub], &[]).err(), oom, "{sub:?}");
        // With no attachments at all, index 0 is out of range too.
        assert_eq!(create(&dev, &[], &[sub], &[]).err(), oom);
    }
    let one = [vk::SubpassDescription::default()];
    assert_eq!(create(&dev, &atts, &one, &[dep(0, 1)]).err(), oom);
    assert_eq!(create(&dev, &atts, &one, &[dep(7, 0)]).err(), oom);
    assert_eq!(
        create(
            &dev,
            &atts,
            &one,
            &[dep(vk::SUBPASS_EXTERNAL, vk::SUBPASS_EXTERNAL)]
        )
        .err(),
        oom
    );
    assert_eq!(create(&dev, &atts, &[], &[]).err(), oom);

    // A framebuffer must have one view per attachment of its render pass.
    let pass = create(&dev, &atts, &one, &[]).unwrap();
    assert_eq!(framebuffer(&dev, pass, &[], 64, 64, 1).err(), oom);
    let (image, memory, view) = image_view(
        &ctx,
        &dev,
        vk::Format::R8G8B8A8_UNORM,
        vk::SampleCountFlags::TYPE_1,
    );
    assert_eq!(framebuffer(&dev, pass, &[view, view], 64, 64, 1).err(), oom);
    assert_eq!(
        framebuffer(&dev, pass, &[vk::ImageView::null()], 64, 64, 1).err(),
        oom
    );
    assert_eq!(framebuffer(&dev, pass, &[view], 0, 64, 1).err(), oom);
    assert_eq!(framebuffer(&dev, pass, &[view], 64, 16385, 1).err(), oom);
    assert_eq!(framebuffer(&dev, pass, &[view], 64, 64, 2049).err(), oom);
    // Still usable afterwards.
    let fb = framebuffer(&dev, pass, &[view], 64, 64, 1).unwrap();
    // SAFETY: every object is idle and destroyed once.
    unsafe {
        dev.destroy_framebuffer(fb, None);
        dev.destroy_render_pass(pass, None);
        dev.destroy_image_view(view, None);
        dev.destroy_image(image, None);
        dev.free_memory(memory, None);
        dev.destroy_device(None);
    }
}
