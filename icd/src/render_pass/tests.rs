use super::*;

fn attachment(format: vk::Format) -> vk::AttachmentDescription {
    vk::AttachmentDescription::default()
        .format(format)
        .samples(vk::SampleCountFlags::TYPE_4)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
}

fn r(attachment: u32) -> vk::AttachmentReference {
    vk::AttachmentReference {
        attachment,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }
}

fn build(
    atts: &[vk::AttachmentDescription],
    subs: &[vk::SubpassDescription<'_>],
    deps: &[vk::SubpassDependency],
) -> Result<RenderPass, Invalid> {
    let info = vk::RenderPassCreateInfo::default()
        .attachments(atts)
        .subpasses(subs)
        .dependencies(deps);
    // SAFETY: the slices outlive the call.
    unsafe { RenderPass::from_info(&info) }
}

#[test]
fn copies_every_field() {
    let atts = [
        attachment(vk::Format::R8G8B8A8_UNORM),
        attachment(vk::Format::D32_SFLOAT),
        attachment(vk::Format::R16_SFLOAT),
    ];
    let colours = [r(0), r(vk::ATTACHMENT_UNUSED)];
    let ds = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let inputs = [r(0)];
    let preserve = [2];
    let colours1 = [r(2)];
    let subs = [
        vk::SubpassDescription::default()
            .color_attachments(&colours)
            .depth_stencil_attachment(&ds)
            .preserve_attachments(&preserve),
        vk::SubpassDescription::default()
            .input_attachments(&inputs)
            .color_attachments(&colours1),
    ];
    let deps = [vk::SubpassDependency {
        src_subpass: 0,
        dst_subpass: 1,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::FRAGMENT_SHADER,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::INPUT_ATTACHMENT_READ,
        dependency_flags: vk::DependencyFlags::BY_REGION,
    }];
    let p = build(&atts, &subs, &deps).unwrap();
    assert_eq!(p.attachments.len(), 3);
    assert_eq!(p.attachments[1].format, vk::Format::D32_SFLOAT);
    assert_eq!(p.attachments[0].samples, 4);
    assert_eq!(p.attachments[0].load_op, vk::AttachmentLoadOp::CLEAR);
    assert_eq!(
        p.attachments[0].final_layout,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL
    );
    let colour0 = AttachmentRef {
        index: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    };
    assert_eq!(p.subpasses[0].colours, [Some(colour0), None]);
    assert!(p.subpasses[0].resolves.is_empty());
    assert_eq!(
        p.subpasses[0].depth_stencil,
        Some(AttachmentRef {
            index: 1,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        })
    );
    assert_eq!(p.subpasses[0].preserve, [2]);
    assert_eq!(p.subpasses[1].inputs, [Some(colour0)]);
    assert_eq!(p.subpasses[1].depth_stencil, None);
    assert_eq!(p.dependencies[0].src, SubpassRef::Index(0));
    assert_eq!(p.dependencies[0].dst, SubpassRef::Index(1));
    assert!(p.dependencies[0].by_region);
}

#[test]
fn resolves_pair_with_colours() {
    let atts = [
        attachment(vk::Format::R8G8B8A8_UNORM),
        attachment(vk::Format::R8G8B8A8_UNORM).samples(vk::SampleCountFlags::TYPE_1),
    ];
    let colours = [r(0), r(vk::ATTACHMENT_UNUSED)];
    let resolves = [r(1), r(vk::ATTACHMENT_UNUSED)];
    let subs = [vk::SubpassDescription::default()
        .color_attachments(&colours)
        .resolve_attachments(&resolves)];
    let p = build(&atts, &subs, &[]).unwrap();
    assert_eq!(p.subpasses[0].resolves.len(), 2);
    assert_eq!(p.subpasses[0].resolves[0].map(|r| r.index), Some(1));
    assert_eq!(p.subpasses[0].resolves[1], None);
}

#[test]
fn out_of_range_indices_are_refused() {
    let atts = [attachment(vk::Format::R8G8B8A8_UNORM)];
    let bad = [r(1)];
    let ds = r(7);
    let preserve = [1];
    let good = [r(0)];
    let cases: [vk::SubpassDescription<'_>; 5] = [
        vk::SubpassDescription::default().color_attachments(&bad),
        vk::SubpassDescription::default().input_attachments(&bad),
        vk::SubpassDescription::default()
            .color_attachments(&good)
            .resolve_attachments(&bad),
        vk::SubpassDescription::default().depth_stencil_attachment(&ds),
        vk::SubpassDescription::default().preserve_attachments(&preserve),
    ];
    for sub in cases {
        let e = build(&atts, &[sub], &[]).unwrap_err();
        assert!(
            e.0.contains("attachment") && e.0.contains("has 1"),
            "{}",
            e.0
        );
    }
    let dep = |src, dst| vk::SubpassDependency {
        src_subpass: src,
        dst_subpass: dst,
        ..Default::default()
    };
    let one = [vk::SubpassDescription::default()];
    assert!(build(
        &atts,
        &one,
        &[dep(vk::SUBPASS_EXTERNAL, 0), dep(0, vk::SUBPASS_EXTERNAL)]
    )
    .is_ok());
    assert!(build(&atts, &one, &[dep(0, 1)]).is_err());
    assert!(build(&atts, &one, &[dep(3, 0)]).is_err());
    assert!(build(
        &atts,
        &one,
        &[dep(vk::SUBPASS_EXTERNAL, vk::SUBPASS_EXTERNAL)]
    )
    .is_err());
}

#[test]
fn other_invalid_input_is_refused() {
    let ok = attachment(vk::Format::R8G8B8A8_UNORM);
    let one = [vk::SubpassDescription::default()];
    assert!(build(&[ok], &[], &[]).is_err(), "no subpasses");
    assert!(build(&[attachment(vk::Format::UNDEFINED)], &one, &[]).is_err());
    assert!(build(&[ok.samples(vk::SampleCountFlags::from_raw(3))], &one, &[]).is_err());
    assert!(build(&[ok.samples(vk::SampleCountFlags::empty())], &one, &[]).is_err());
    let nine = [r(0); 9];
    assert!(build(
        &[ok],
        &[vk::SubpassDescription::default().color_attachments(&nine)],
        &[]
    )
    .is_err());
    let compute =
        vk::SubpassDescription::default().pipeline_bind_point(vk::PipelineBindPoint::COMPUTE);
    assert!(build(&[ok], &[compute], &[]).is_err());
}

fn r2(attachment: u32) -> vk::AttachmentReference2<'static> {
    vk::AttachmentReference2::default()
        .attachment(attachment)
        .layout(vk::ImageLayout::GENERAL)
        .aspect_mask(vk::ImageAspectFlags::COLOR)
}

fn attachment2(
    format: vk::Format,
    samples: vk::SampleCountFlags,
) -> vk::AttachmentDescription2<'static> {
    vk::AttachmentDescription2::default()
        .format(format)
        .samples(samples)
        .load_op(vk::AttachmentLoadOp::LOAD)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .stencil_load_op(vk::AttachmentLoadOp::CLEAR)
        .stencil_store_op(vk::AttachmentStoreOp::STORE)
        .final_layout(vk::ImageLayout::GENERAL)
}

#[test]
fn version_2_create_info_reads_view_masks_and_depth_resolve() {
    let atts = [
        attachment2(vk::Format::R8G8B8A8_UNORM, vk::SampleCountFlags::TYPE_4),
        attachment2(vk::Format::D32_SFLOAT_S8_UINT, vk::SampleCountFlags::TYPE_4),
        attachment2(vk::Format::D32_SFLOAT_S8_UINT, vk::SampleCountFlags::TYPE_1),
    ];
    let colours = [r2(0)];
    let ds = r2(1);
    let ds_resolve_ref = r2(2);
    let mut resolve = vk::SubpassDescriptionDepthStencilResolve::default()
        .depth_resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
        .stencil_resolve_mode(vk::ResolveModeFlags::NONE)
        .depth_stencil_resolve_attachment(&ds_resolve_ref);
    let subs = [
        vk::SubpassDescription2::default()
            .view_mask(0b101)
            .color_attachments(&colours)
            .depth_stencil_attachment(&ds)
            .push_next(&mut resolve),
        vk::SubpassDescription2::default()
            .view_mask(0b010)
            .color_attachments(&colours),
    ];
    let deps = [vk::SubpassDependency2::default()
        .src_subpass(0)
        .dst_subpass(1)
        .view_offset(1)
        .dependency_flags(vk::DependencyFlags::VIEW_LOCAL)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&atts)
        .subpasses(&subs)
        .dependencies(&deps);
    // SAFETY: the arrays outlive the call.
    let p = unsafe { RenderPass::from_info2(&info) }.unwrap();
    assert_eq!(p.attachments[0].samples, 4);
    assert_eq!(
        p.attachments[1].stencil_load_op,
        vk::AttachmentLoadOp::CLEAR
    );
    assert_eq!(p.attachments[2].store_op, vk::AttachmentStoreOp::DONT_CARE);
    assert_eq!(
        [p.subpasses[0].view_mask, p.subpasses[1].view_mask],
        [0b101, 0b010]
    );
    let res = p.subpasses[0].depth_stencil_resolve.unwrap();
    assert_eq!(res.attachment.index, 2);
    assert_eq!(
        (res.depth_mode, res.stencil_mode),
        (
            vk::ResolveModeFlags::SAMPLE_ZERO,
            vk::ResolveModeFlags::NONE
        )
    );
    assert_eq!(p.subpasses[1].depth_stencil_resolve, None);
    assert_eq!(p.dependencies[0].dst, SubpassRef::Index(1));
}

#[test]
fn version_2_refuses_what_agx4_cannot_resolve_or_render() {
    let atts = [
        attachment2(vk::Format::D32_SFLOAT, vk::SampleCountFlags::TYPE_4),
        attachment2(vk::Format::D32_SFLOAT, vk::SampleCountFlags::TYPE_1),
    ];
    let ds = r2(0);
    let target = r2(1);
    let mut average = vk::SubpassDescriptionDepthStencilResolve::default()
        .depth_resolve_mode(vk::ResolveModeFlags::AVERAGE)
        .depth_stencil_resolve_attachment(&target);
    let subs = [vk::SubpassDescription2::default()
        .depth_stencil_attachment(&ds)
        .push_next(&mut average)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&atts)
        .subpasses(&subs);
    // SAFETY: the arrays outlive the call.
    assert!(unsafe { RenderPass::from_info2(&info) }
        .unwrap_err()
        .0
        .contains("AVERAGE"));

    // Multiview is all subpasses or none, and at most MAX_VIEWS views.
    let mixed = [
        vk::SubpassDescription2::default().view_mask(1),
        vk::SubpassDescription2::default(),
    ];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&atts)
        .subpasses(&mixed);
    // SAFETY: as above.
    assert!(unsafe { RenderPass::from_info2(&info) }.is_err());
    let wide = [vk::SubpassDescription2::default().view_mask(1 << MAX_VIEWS)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&atts)
        .subpasses(&wide);
    // SAFETY: as above.
    assert!(unsafe { RenderPass::from_info2(&info) }.is_err());
}

#[test]
fn version_1_view_masks_come_from_the_multiview_create_info() {
    let atts = [attachment(vk::Format::R8G8B8A8_UNORM)];
    let colours = [r(0)];
    let subs = [
        vk::SubpassDescription::default().color_attachments(&colours),
        vk::SubpassDescription::default().color_attachments(&colours),
    ];
    let masks = [0b11, 0b110];
    let mut mv = vk::RenderPassMultiviewCreateInfo::default().view_masks(&masks);
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&atts)
        .subpasses(&subs)
        .push_next(&mut mv);
    // SAFETY: the arrays outlive the call.
    let p = unsafe { RenderPass::from_info(&info) }.unwrap();
    assert_eq!(
        [p.subpasses[0].view_mask, p.subpasses[1].view_mask],
        [0b11, 0b110]
    );
    let short = [0b1];
    let mut mv = vk::RenderPassMultiviewCreateInfo::default().view_masks(&short);
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&atts)
        .subpasses(&subs)
        .push_next(&mut mv);
    // SAFETY: as above.
    assert!(unsafe { RenderPass::from_info(&info) }.is_err());
}
