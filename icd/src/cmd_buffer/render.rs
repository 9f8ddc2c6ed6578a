//! Render pass instances: vkCmdBeginRenderPass, vkCmdNextSubpass, vkCmdEndRenderPass and
//! vkCmdClearAttachments.
//!
//! Each subpass becomes one render command (docs/render-abi.md section 1): its draws go into
//! a VDM stream recorded in host memory and uploaded when the subpass ends, together with the
//! scissor and depth-bias arrays the draws index. The subpass's attachment operations become
//! the background program (clear, load or nothing per colour target) and the end-of-tile
//! program (store or discard); the partial variants always load and store. The compiled
//! programs are cached on the render pass. An attachment used by an earlier subpass is loaded,
//! and one used by a later subpass is stored, whatever its load and store ops say. Resolve
//! attachments are written by the end-of-tile program (the mean of a target's samples), through
//! PBE descriptors after the colour targets' ones.
//!
//! Attachment loads and stores move sRGB targets' bytes as they are: the tilebuffer holds them
//! encoded, so their texture and PBE descriptors do no sRGB conversion.

use super::LiveCommandBuffer;
use super::{record, HwCommand, Recording};
use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::emit::{DepthPlane, RenderDesc, StateTable, StencilPlane, TileLaunch, ZsPlane};
use crate::format::{self, Renderable};
use crate::framebuffer::Framebuffer;
use crate::handle::{self, Object};
use crate::image::Image;
use crate::image_view::ImageView;
use crate::pipeline_graphics::{attachmentless, subpass_inputs, subpass_tilebuffer};
use crate::render_pass::{DepthStencilResolve, RenderPass};
use ash::vk;
use compiler::{
    InputAttachmentSource, TileLoad, TileProgram, TileProgramRequest, TileStore, TileTarget,
};
use hw::g13::control::descriptors::TextureDimension;
use hw::g13::image_desc::{self, ImageDesc};
use hw::g13::tilebuffer::{Placement, TilebufferLayout};
use kmd_iface::uapi::*;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// One render command being recorded: the open subpass's work on one layer of its
/// attachments. A subpass renders layer 0 (and, when it clears a layered framebuffer, the
/// other layers too, without draws); a multiview subpass renders one stream per view, each
/// with its own copy of every draw (docs/render-abi.md section 5, `VIEW_INDEX`).
pub struct Stream {
    /// The layer rendered, counted from each attachment view's base layer; in a multiview
    /// subpass this is also the view index.
    pub layer: u32,
    /// The draws' part of the control stream (`emit::Render::stream` adds its ends).
    pub vdm: Vec<u8>,
    /// Packed `Scissor` and `DepthBias` entries.
    pub scissors: Vec<u8>,
    pub depth_biases: Vec<u8>,
    pub draws: u32,
    /// The command continues an earlier one of the same subpass and layer (after a
    /// vkCmdClearAttachments split, or a stream opened mid-subpass): load everything not
    /// cleared.
    pub continued: bool,
    /// Colour attachments (by attachment index) that vkCmdClearAttachments cleared over the
    /// whole render area, with the value.
    pub cleared: HashMap<u32, vk::ClearColorValue>,
    /// Depth and stencil values vkCmdClearAttachments cleared the whole render area to.
    pub cleared_depth: Option<f32>,
    pub cleared_stencil: Option<u32>,
    /// In a secondary command buffer's stream fragment: the draws whose late state the
    /// executing primary supplies (`emit::LateState`, secondary.rs).
    pub late: Vec<super::draw::LateDraw>,
    /// The draw state in force after the stream's last draw, in the emitter's terms, when
    /// this recorder wrote all of it: the next draw emits only the words that differ. `None` when unknown (a new
    /// stream, or after a secondary's draws), so the next draw emits every word.
    pub emitted: Option<crate::emit::StreamState>,
    /// What the stream's last draw left for a draw that repeats it (draw.rs `repeat`); `None`
    /// after anything else was recorded into the stream.
    pub repeatable: Option<super::draw::Repeatable>,
}

impl Stream {
    /// The parts draws add to, as a generation's emitter sees them.
    pub fn words(&mut self) -> crate::emit::StreamWords<'_> {
        crate::emit::StreamWords {
            vdm: &mut self.vdm,
            scissors: &mut self.scissors,
            depth_biases: &mut self.depth_biases,
            state: &mut self.emitted,
        }
    }

    /// Whether the stream changes its attachments besides the load ops: draws, or clears of
    /// whole targets.
    pub fn wrote(&self) -> bool {
        self.draws > 0
            || !self.cleared.is_empty()
            || self.cleared_depth.is_some()
            || self.cleared_stencil.is_some()
    }

    pub fn new(layer: u32, continued: bool) -> Stream {
        Stream {
            layer,
            vdm: Vec::new(),
            scissors: Vec::new(),
            depth_biases: Vec::new(),
            draws: 0,
            continued,
            cleared: HashMap::new(),
            cleared_depth: None,
            cleared_stencil: None,
            late: Vec::new(),
            emitted: None,
            repeatable: None,
        }
    }
}

/// The recording state of a render pass instance.
pub struct RenderState {
    pub pass: vk::RenderPass,
    /// The framebuffer, with the attachments of an imageless one filled in at begin.
    pub fb: Framebuffer,
    pub subpass: u32,
    pub area: vk::Rect2D,
    pub clears: Vec<vk::ClearValue>,
    pub tilebuffer: TilebufferLayout,
    /// The open subpass's view mask (0 without multiview).
    pub view_mask: u32,
    /// The render commands of the open subpass.
    pub streams: Vec<Stream>,
    /// The streams draws record into (indices into `streams`).
    pub targets: Vec<usize>,
    /// The stream the draw being recorded goes to.
    pub current: usize,
    /// vkCmdWriteTimestamp inside the render command: written when it ends.
    pub timestamps: Vec<drm_asahi_timestamp>,
    /// A dynamic rendering instance another one resumes: everything is stored and nothing
    /// resolved yet.
    pub suspending: bool,
    /// A dynamic rendering instance resuming a suspended one: everything is loaded.
    pub resuming: bool,
    /// Recorded by a secondary command buffer that continues a render pass instance: the
    /// streams are fragments that a primary splices into its own (secondary.rs); the render
    /// area, and the framebuffer unless one was inherited, are not known.
    pub inherited: bool,
    /// The open subpass's render command size (`width_px`, `height_px`; see `subpass_extent`).
    pub size: vk::Extent2D,
    /// How far the open subpass's tiles reach pixels that some attachment has: a render
    /// area that does not cover it leaves pixels inside tiles that must keep their contents.
    pub reach: vk::Extent2D,
}

impl RenderState {
    /// The stream the draw being recorded goes to.
    pub fn stream(&mut self) -> Result<&mut Stream, vk::Result> {
        self.streams
            .get_mut(self.current)
            .ok_or(vk::Result::ERROR_UNKNOWN)
    }

    /// The view index draws of the current stream see.
    pub fn view_index(&self) -> u32 {
        match self.view_mask {
            0 => 0,
            _ => self.streams.get(self.current).map_or(0, |s| s.layer),
        }
    }

    /// How many queries a query or timestamp inside the subpass uses: one per view.
    pub fn query_count(&self) -> u32 {
        self.view_mask.count_ones().max(1)
    }

    /// The index of the stream for `layer`, opened (loading what it does not clear) if the
    /// subpass had none.
    pub fn stream_for(&mut self, layer: u32) -> usize {
        if let Some(i) = self.streams.iter().position(|s| s.layer == layer) {
            return i;
        }
        self.streams.push(Stream::new(layer, true));
        self.streams.len() - 1
    }
}

/// A tile program in the shader window.
pub struct ResidentTile {
    pub program: TileProgram,
    _code: Bo,
    pub code: u32,
}

/// What a tile program is compiled from.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum TileKey {
    Background(TileProgramRequest<TileLoad>),
    EndOfTile(TileProgramRequest<TileStore>),
}

/// The compiled tile programs of a render pass.
#[derive(Default)]
pub struct TileCache(Mutex<HashMap<TileKey, Arc<ResidentTile>>>);

impl std::fmt::Debug for TileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TileCache")
    }
}

impl TileCache {
    fn get(&self, dev: &Device, key: TileKey) -> Result<Arc<ResidentTile>, vk::Result> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = map.get(&key) {
            return Ok(p.clone());
        }
        let program = match &key {
            TileKey::Background(r) => compiler::compile_background(r),
            TileKey::EndOfTile(r) => compiler::compile_end_of_tile(r),
        }
        .map_err(|e| {
            eprintln!("agx4: tile program: {e}");
            vk::Result::ERROR_FEATURE_NOT_PRESENT
        })?;
        let bo = Bo::new(dev, program.code.len().max(4) as u64, Place::Usc, false)?;
        bo.write(0, &program.code)?;
        let code = u32::try_from(bo.va - dev.usc_base)
            .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        let resident = Arc::new(ResidentTile {
            program,
            _code: bo,
            code,
        });
        map.insert(key, resident.clone());
        Ok(resident)
    }
}

/// The first and last subpass that use attachment `a`.
/// The first subpass whose load op reaches attachment `a` in `view`: under multiview each
/// view's load op runs in the first subpass using the attachment whose view mask holds that
/// view (`None` outside multiview: the first use).
fn first_use(pass: &RenderPass, a: u32, view: Option<u32>) -> Option<u32> {
    let Some(v) = view else {
        return uses(pass, a).0;
    };
    (0..pass.subpasses.len() as u32).find(|&i| {
        let s = &pass.subpasses[i as usize];
        s.view_mask >> v & 1 == 1 && uses_in(s, a)
    })
}

/// Whether subpass `s` uses attachment `a` in any role.
fn uses_in(s: &crate::render_pass::Subpass, a: u32) -> bool {
    s.colours
        .iter()
        .chain(&s.inputs)
        .chain(&s.resolves)
        .flatten()
        .any(|r| r.index == a)
        || s.depth_stencil.is_some_and(|r| r.index == a)
        || s.depth_stencil_resolve
            .is_some_and(|r| r.attachment.index == a)
}

fn uses(pass: &RenderPass, a: u32) -> (Option<u32>, Option<u32>) {
    let mut first = None;
    let mut last = None;
    for (i, s) in pass.subpasses.iter().enumerate() {
        if uses_in(s, a) {
            first = first.or(Some(i as u32));
            last = Some(i as u32);
        }
    }
    (first, last)
}

/// One colour target of the open subpass.
struct ColourAttachment<'a> {
    index: u32,
    view: &'a ImageView,
    image: &'a Image,
    format: Renderable,
    target: TileTarget,
    /// The target (or, for a resolve attachment, the target it resolves) does not fit the
    /// tilebuffer and lives in memory (docs/render-abi.md section 4).
    spilled: bool,
    /// For a resolve attachment: the index, among the targets, of the one it resolves.
    source: usize,
}

/// The view of framebuffer attachment `index` and its image.
fn attachment(fb: &Framebuffer, index: u32) -> Result<(&ImageView, &Image), vk::Result> {
    let v = *fb
        .attachments
        .get(index as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: Vulkan valid usage: a render pass instance's attachment views (the framebuffer's,
    // or the begin command's for imageless framebuffers and dynamic rendering) are live image
    // views made by this driver, kept alive while the command buffer records.
    let view = unsafe { ImageView::from_handle(v) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `view.image` is the live image the view was made from, which valid usage keeps
    // alive while the view is in use.
    let image = unsafe { Image::from_handle(view.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    Ok((view, image))
}

/// The view, image and format of framebuffer attachment `index`, which must be a colour
/// attachment agx4 renders to.
fn colour_view(
    fb: &Framebuffer,
    index: u32,
) -> Result<(&ImageView, &Image, Renderable), vk::Result> {
    let (view, image) = attachment(fb, index)?;
    let format = format::renderable(view.format).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
    if !image.usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT) || image.layout.levels == 0 {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    Ok((view, image, format))
}

/// The colour targets of the open subpass, and the resolve attachments with the target
/// each resolves.
fn colour_attachments<'a>(
    pass: &RenderPass,
    fb: &'a Framebuffer,
    rs: &RenderState,
) -> Result<(Vec<ColourAttachment<'a>>, Vec<ColourAttachment<'a>>), vk::Result> {
    let sp = &pass.subpasses[rs.subpass as usize];
    let mut out = Vec::new();
    let mut resolves = Vec::new();
    for (i, r) in sp.colours.iter().enumerate() {
        let Some(r) = r else { continue };
        let (view, image, format) = colour_view(fb, r.index)?;
        let t = rs
            .tilebuffer
            .targets
            .get(i)
            .copied()
            .flatten()
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        let (offset, spilled) = match t.placement {
            Placement::Tile { offset_bytes, .. } => (offset_bytes as u16, false),
            Placement::Spilled => (0, true),
        };
        let target = TileTarget {
            format: t.format,
            tib_format: t.tib_format,
            offset,
        };
        if let Some(Some(rr)) = sp.resolves.get(i) {
            let (rview, rimage, rformat) = colour_view(fb, rr.index)?;
            // Valid usage: same format, a single-sample destination from a multisampled source.
            if rformat.colour != format.colour || rimage.samples != 1 || image.samples == 1 {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            resolves.push(ColourAttachment {
                index: rr.index,
                view: rview,
                image: rimage,
                format: rformat,
                target,
                spilled,
                source: out.len(),
            });
        }
        out.push(ColourAttachment {
            index: r.index,
            view,
            image,
            format,
            target,
            spilled,
            source: out.len(),
        });
    }
    Ok((out, resolves))
}

fn image_desc<'a>(
    a: &'a ColourAttachment<'_>,
    pixel: hw::g13::image_desc::PixelFormat,
) -> Result<ImageDesc<'a>, vk::Result> {
    let base = a.image.va.load(Ordering::Acquire);
    if base == 0 {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let dimension = if a.image.samples > 1 {
        TextureDimension::D2Multisampled
    } else {
        TextureDimension::D2
    };
    Ok(ImageDesc {
        base,
        layout: &a.image.layout,
        format: pixel,
        dimension,
    })
}

/// The attachment's texture descriptor: bytes as they are for a tilebuffer target (the
/// tilebuffer holds sRGB encoded), converting sRGB for a spilled one (shaders work on linear
/// values).
fn texture_descriptor(a: &ColourAttachment<'_>, layer: u32) -> Result<[u8; 24], vk::Result> {
    let r = a.view.range;
    let pixel = match a.spilled {
        true => a.format.pixel,
        false => a.format.pixel.linear(),
    };
    image_desc::texture_descriptor(
        &image_desc(a, pixel)?,
        r.base_mip_level,
        1,
        r.base_array_layer + layer,
        1,
    )
    .map_err(|e| {
        eprintln!("agx4: attachment texture descriptor: {e}");
        vk::Result::ERROR_UNKNOWN
    })
}

/// The attachment's PBE descriptor, converting sRGB as `texture_descriptor` does.
fn pbe_descriptor(a: &ColourAttachment<'_>, layer: u32) -> Result<[u8; 24], vk::Result> {
    let r = a.view.range;
    // The tilebuffer holds encoded values already, so its stores do no sRGB conversion.
    let pixel = match a.spilled {
        true => a.format.pixel,
        false => a.format.pixel.linear(),
    };
    image_desc::pbe_descriptor(
        &image_desc(a, pixel)?,
        r.base_mip_level,
        r.base_array_layer + layer,
    )
    .map_err(|e| {
        eprintln!("agx4: attachment PBE descriptor: {e}");
        vk::Result::ERROR_UNKNOWN
    })
}

/// The texture descriptors a fragment shader reads input attachment `index` (of the
/// framebuffer) through from memory (docs/render-abi.md section 4): a colour attachment in
/// its view's own format, so sRGB attachments read linear values; a depth/stencil one as its
/// depth plane and its stencil plane (`None` for an aspect the format lacks). Multisampled
/// images are 2D multisampled textures.
fn input_descriptors(
    fb: &Framebuffer,
    index: u32,
    layer: u32,
) -> Result<([u8; 24], Option<[u8; 24]>), vk::Result> {
    let (view, image) = attachment(fb, index)?;
    if !image.usage.contains(vk::ImageUsageFlags::INPUT_ATTACHMENT) || image.layout.levels == 0 {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let base = image.va.load(Ordering::Acquire);
    if base == 0 {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let dimension = if image.samples > 1 {
        TextureDimension::D2Multisampled
    } else {
        TextureDimension::D2
    };
    let r = view.range;
    let descriptor = |base: u64, layout, format| {
        let desc = ImageDesc {
            base,
            layout,
            format,
            dimension,
        };
        image_desc::texture_descriptor(&desc, r.base_mip_level, 1, r.base_array_layer + layer, 1)
            .map_err(|e| {
                eprintln!("agx4: input attachment texture descriptor: {e}");
                vk::Result::ERROR_UNKNOWN
            })
    };
    // Depth reads as (D, 0, 0, 1) of a one-channel UNORM16 or float texture, stencil as an
    // 8-bit integer one.
    let plane_format = |f: vk::Format| {
        image_desc::pixel_format(f.as_raw()).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)
    };
    match format::aspects(view.format) {
        None => {
            let format =
                format::renderable(view.format).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
            Ok((descriptor(base, &image.layout, format.pixel)?, None))
        }
        Some(kind) => {
            let depth = match kind.depth {
                Some(format::DepthFormat::Unorm16) => Some(descriptor(
                    base,
                    &image.layout,
                    plane_format(vk::Format::D16_UNORM)?,
                )?),
                Some(format::DepthFormat::Float32) => Some(descriptor(
                    base,
                    &image.layout,
                    plane_format(vk::Format::D32_SFLOAT)?,
                )?),
                None => None,
            };
            let stencil = if kind.stencil {
                let (offset, layout) = match &image.stencil_plane {
                    Some((offset, l)) => (*offset, l),
                    None => (0, &image.layout),
                };
                Some(descriptor(
                    base + offset,
                    layout,
                    plane_format(vk::Format::S8_UINT)?,
                )?)
            } else {
                None
            };
            Ok((
                depth.unwrap_or_else(image_desc::null_texture_descriptor),
                stencil,
            ))
        }
    }
}

/// Uploads the texture descriptors a draw with a pipeline whose fragment shader reads input
/// attachments as `expected` says needs (docs/render-abi.md section 4): one per
/// `pInputAttachments` entry (null for one read from the tilebuffer or unused), then, when
/// some are depth/stencil, their stencil planes from `INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE`
/// on. Returns their address and count.
pub fn input_textures(
    dev: &Device,
    rec: &mut Recording,
    expected: &[InputAttachmentSource],
) -> Result<Option<(u64, u32)>, vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let sp = pass
        .subpasses
        .get(rs.subpass as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    if sp.inputs.iter().all(Option::is_none) {
        return Ok(None);
    }
    if rs.inherited && rs.fb.attachments.is_empty() {
        eprintln!("agx4: input attachments in a secondary command buffer need an inherited framebuffer with attachments");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    if sp.inputs.len() > compiler::abi::MAX_INPUT_ATTACHMENTS as usize {
        eprintln!(
            "agx4: a subpass reads {} input attachments (at most {})",
            sp.inputs.len(),
            compiler::abi::MAX_INPUT_ATTACHMENTS
        );
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    // The shader was compiled for its pipeline's subpass; a compatible one may bind its
    // input attachments differently (a feedback loop in one but not the other).
    let sources = subpass_inputs(pass, rs.subpass);
    if sources != expected {
        eprintln!("agx4: the bound pipeline reads input attachments from where its own subpass binds them, which this subpass binds differently; not supported");
        return Err(vk::Result::ERROR_FEATURE_NOT_PRESENT);
    }
    let layer = rs
        .streams
        .get(rs.current)
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .layer;
    let mut bytes = Vec::new();
    let mut stencil = Vec::new();
    let mut any_stencil = false;
    for (r, source) in sp.inputs.iter().zip(&sources) {
        let (d, s) = match (r, source) {
            (Some(r), InputAttachmentSource::Memory | InputAttachmentSource::DepthStencil) => {
                input_descriptors(&rs.fb, r.index, layer)?
            }
            _ => (image_desc::null_texture_descriptor(), None),
        };
        bytes.extend_from_slice(&d);
        any_stencil |= s.is_some();
        stencil.extend_from_slice(&s.unwrap_or_else(image_desc::null_texture_descriptor));
    }
    let mut count = sp.inputs.len() as u32;
    if any_stencil {
        let base = compiler::abi::INPUT_ATTACHMENT_STENCIL_TEXTURE_BASE
            - compiler::abi::INPUT_ATTACHMENT_TEXTURE_BASE;
        for _ in count..base {
            bytes.extend_from_slice(&image_desc::null_texture_descriptor());
        }
        bytes.extend_from_slice(&stencil);
        count += base;
    }
    Ok(Some((rec.upload.push(dev, &bytes, 16)?, count)))
}

/// Uploads the descriptors fragment shaders reach the open subpass's spilled colour targets
/// through (docs/render-abi.md section 4): for colour slot `l`, its texture descriptor and
/// its PBE descriptor at `2 * l` and `2 * l + 1` from `SPILLED_TARGET_TEXTURE_BASE` (nulls
/// for slots in the tilebuffer). Returns their address and count; `None` without spills.
pub fn spilled_textures(
    dev: &Device,
    rec: &mut Recording,
) -> Result<Option<(u64, u32)>, vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    if rs.tilebuffer.spilled().is_empty() {
        return Ok(None);
    }
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let (atts, _) = colour_attachments(pass, &rs.fb, rs)?;
    let layer = rs
        .streams
        .get(rs.current)
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .layer;
    let sp = &pass.subpasses[rs.subpass as usize];
    let mut bytes = Vec::new();
    let mut next = 0;
    for (slot, r) in sp.colours.iter().enumerate() {
        let Some(r) = r else { continue };
        let Some(a) = atts.iter().find(|a| a.index == r.index && a.spilled) else {
            continue;
        };
        for _ in next..slot {
            bytes.extend_from_slice(&image_desc::null_texture_descriptor());
            bytes.extend_from_slice(&image_desc::null_texture_descriptor());
        }
        bytes.extend_from_slice(&texture_descriptor(a, layer)?);
        bytes.extend_from_slice(&pbe_descriptor(a, layer)?);
        next = slot + 1;
    }
    let count = 2 * next as u32;
    Ok(Some((rec.upload.push(dev, &bytes, 16)?, count)))
}

/// Uploads the USC words of a tile program and returns their USC address.
fn tile_words(
    dev: &Device,
    rec: &mut Recording,
    tib: &TilebufferLayout,
    p: &ResidentTile,
    uniforms: Option<u64>,
    textures: Option<(u64, u32)>,
) -> Result<u32, vk::Result> {
    let launch = TileLaunch {
        tilebuffer: tib,
        code: p.code,
        uniform_halves: p.program.uniform_halves,
        gpr_halves: p.program.gpr_halves,
        uniforms,
        textures: textures.map(|(va, count)| StateTable { count, va }),
    };
    let w = dev.emitter()?.render.tile_words(&launch);
    let va = rec.upload.push(dev, &w, 64)?;
    u32::try_from(va - dev.usc_base).map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)
}

fn tile_request<Op>(
    tib: &TilebufferLayout,
    targets: Vec<(TileTarget, Op)>,
) -> TileProgramRequest<Op> {
    TileProgramRequest {
        targets,
        samples: tib.samples,
        sample_size_bytes: tib.sample_size_bytes,
    }
}

/// Ends the open render commands of the subpass: tile programs, streams and commands.
fn finish_render(dev: &Device, rec: &mut Recording, store_all: bool) -> Result<(), vk::Result> {
    // Every layer or view counts into the same occlusion query: the first of the queries a
    // multiview query uses holds the total, which Vulkan allows.
    let occlusion = super::query::render_results(rec);
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let streams = std::mem::take(&mut rs.streams);
    let mut stamps = std::mem::take(&mut rs.timestamps).into_iter();
    let mut cmds = Vec::with_capacity(streams.len());
    for stream in streams {
        cmds.push(render_command(dev, rec, stream, store_all, occlusion)?);
    }
    // Compute work recorded inside the render pass (indirect draws' first-instance copies)
    // runs before the render commands that read its results.
    rec.close_segment(None)?;
    if let (Some(last), Some(first)) = (cmds.last_mut(), stamps.next()) {
        last.ts_frag.end = first;
    }
    for cmd in cmds {
        rec.segments
            .push(HwCommand::Render(std::sync::Arc::new(cmd)));
    }
    // Further stamps end empty compute commands queued after the render.
    for s in stamps {
        rec.open_segment(dev)?;
        rec.close_segment(Some(s))?;
    }
    super::statistics::after_render(dev, rec)?;
    super::query::after_render(dev, rec)?;
    Ok(())
}

/// The render command of one stream of the open subpass.
fn render_command(
    dev: &Device,
    rec: &mut Recording,
    stream: Stream,
    store_all: bool,
    occlusion: u64,
) -> Result<drm_asahi_cmd_render, vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let fb = &rs.fb;
    let (atts, resolves) = colour_attachments(pass, fb, rs)?;
    let tib = rs.tilebuffer.clone();
    let layer = stream.layer;
    let mut loads = Vec::new();
    let mut stores = Vec::new();
    let mut clear_words = Vec::new();
    let view = (rs.view_mask != 0).then_some(stream.layer);
    for (i, a) in atts.iter().enumerate() {
        let (first, last) = (first_use(pass, a.index, view), uses(pass, a.index).1);
        let desc = &pass.attachments[a.index as usize];
        let mut clear = None;
        let load = if let Some(v) = stream.cleared.get(&a.index) {
            clear = Some(*v);
            TileLoad::Clear
        } else if stream.continued || first != Some(rs.subpass) {
            TileLoad::Load { texture: i as u8 }
        } else {
            match desc.load_op {
                vk::AttachmentLoadOp::LOAD => TileLoad::Load { texture: i as u8 },
                vk::AttachmentLoadOp::CLEAR => {
                    // SAFETY: a colour attachment's clear value is the colour member.
                    clear = Some(unsafe {
                        rs.clears
                            .get(a.index as usize)
                            .ok_or(vk::Result::ERROR_UNKNOWN)?
                            .color
                    });
                    TileLoad::Clear
                }
                _ => TileLoad::DontCare,
            }
        };
        let store = if store_all
            || last != Some(rs.subpass)
            || desc.store_op == vk::AttachmentStoreOp::STORE
        {
            TileStore::Store { texture: i as u8 }
        } else {
            TileStore::Discard
        };
        // A spilled target is in memory already; only a clear touches it in the tile
        // programs, through its PBE descriptor (bg's texture table holds that instead).
        let (load, store) = match (a.spilled, load) {
            (false, load) => (load, store),
            (true, TileLoad::Clear) => (
                TileLoad::ClearImage { texture: i as u8 },
                TileStore::Discard,
            ),
            (true, _) => (TileLoad::DontCare, TileStore::Discard),
        };
        let words = clear
            .map(|c| format::clear_words(&a.format, &c))
            .unwrap_or_default();
        for w in words {
            clear_words.extend_from_slice(&w.to_le_bytes());
        }
        loads.push((a.target, load));
        stores.push((a.target, store));
    }
    // The end-of-tile table: each target's PBE, each resolve attachment's, then the texture
    // descriptors of the spilled targets that are resolved (read from memory).
    let slot = |k: usize| u8::try_from(k).map_err(|_| vk::Result::ERROR_FEATURE_NOT_PRESENT);
    let mut spilled_sources: Vec<usize> = Vec::new();
    for (j, r) in resolves.iter().enumerate() {
        let texture = slot(atts.len() + j)?;
        let op = if r.spilled {
            let source = slot(atts.len() + resolves.len() + spilled_sources.len())?;
            spilled_sources.push(r.source);
            TileStore::ResolveImage { source, texture }
        } else {
            TileStore::Resolve { texture }
        };
        stores.push((r.target, op));
    }
    let all_load: Vec<_> = atts
        .iter()
        .enumerate()
        .map(|(i, a)| match a.spilled {
            true => (a.target, TileLoad::DontCare),
            false => (a.target, TileLoad::Load { texture: i as u8 }),
        })
        .collect();
    let all_store: Vec<_> = atts
        .iter()
        .enumerate()
        .map(|(i, a)| match a.spilled {
            true => (a.target, TileStore::Discard),
            false => (a.target, TileStore::Store { texture: i as u8 }),
        })
        .collect();
    let bg = pass
        .tile_programs
        .get(dev, TileKey::Background(tile_request(&tib, loads)))?;
    let eot = pass
        .tile_programs
        .get(dev, TileKey::EndOfTile(tile_request(&tib, stores)))?;
    let partial_bg = pass
        .tile_programs
        .get(dev, TileKey::Background(tile_request(&tib, all_load)))?;
    let partial_eot = pass
        .tile_programs
        .get(dev, TileKey::EndOfTile(tile_request(&tib, all_store)))?;

    let mut textures = Vec::new();
    let mut pbes = Vec::new();
    for a in &atts {
        // The background program clears a spilled target through its PBE descriptor.
        match a.spilled {
            true => textures.extend_from_slice(&pbe_descriptor(a, layer)?),
            false => textures.extend_from_slice(&texture_descriptor(a, layer)?),
        }
        pbes.extend_from_slice(&pbe_descriptor(a, layer)?);
    }
    for r in &resolves {
        pbes.extend_from_slice(&pbe_descriptor(r, layer)?);
    }
    for &k in &spilled_sources {
        let source = atts.get(k).ok_or(vk::Result::ERROR_UNKNOWN)?;
        pbes.extend_from_slice(&texture_descriptor(source, layer)?);
    }
    let n = atts.len() as u32;
    let n_pbes = n + resolves.len() as u32 + spilled_sources.len() as u32;
    let size = rs.size;
    let (depth, stencil) = depth_stencil_state(rs, &stream, pass, store_all)?;
    let Stream {
        vdm: draws,
        scissors,
        depth_biases: biases,
        ..
    } = stream;
    let render = dev.emitter()?.render;
    let vdm = render.stream(&draws);

    // Clear values are preloaded as 32-bit words, at least as many halves as the program reads.
    clear_words.resize(
        clear_words
            .len()
            .max(bg.program.uniform_halves as usize * 2)
            .max(4),
        0,
    );
    let uniforms = rec.upload.push(dev, &clear_words, 16)?;
    let tex_va = if n > 0 {
        rec.upload.push(dev, &textures, 16)?
    } else {
        0
    };
    let pbe_va = if n_pbes > 0 {
        rec.upload.push(dev, &pbes, 16)?
    } else {
        0
    };
    let bg_usc = tile_words(dev, rec, &tib, &bg, Some(uniforms), Some((tex_va, n)))?;
    let eot_usc = tile_words(dev, rec, &tib, &eot, None, Some((pbe_va, n_pbes)))?;
    let partial_bg_usc = tile_words(
        dev,
        rec,
        &tib,
        &partial_bg,
        Some(uniforms),
        Some((tex_va, n)),
    )?;
    let partial_eot_usc = tile_words(dev, rec, &tib, &partial_eot, None, Some((pbe_va, n)))?;
    let vdm_va = rec.upload.push(dev, &vdm, 64)?;
    let scissor_va = if scissors.is_empty() {
        0
    } else {
        rec.upload.push(dev, &scissors, 16)?
    };
    let dbias_va = if biases.is_empty() {
        0
    } else {
        rec.upload.push(dev, &biases, 16)?
    };
    Ok(render.render_command(&RenderDesc {
        size,
        tilebuffer: &tib,
        stream: vdm_va,
        scissors: scissor_va,
        depth_biases: dbias_va,
        occlusion,
        background: bg_usc,
        end_of_tile: eot_usc,
        partial_background: partial_bg_usc,
        partial_end_of_tile: partial_eot_usc,
        depth,
        stencil,
    }))
}

/// The depth plane (with its format and clear value) and the stencil plane (with its clear
/// value) of the open subpass's depth/stencil attachment, if it has them. The ZLS unit
/// addresses level 0 of a twiddled image of the render's size (docs/render-abi.md; the
/// simulator's reading), so the attachment must be exactly that.
fn depth_stencil_state(
    rs: &RenderState,
    stream: &Stream,
    pass: &RenderPass,
    store_all: bool,
) -> Result<(Option<DepthPlane>, Option<StencilPlane>), vk::Result> {
    let fb = &rs.fb;
    let Some(r) = pass.subpasses[rs.subpass as usize].depth_stencil else {
        return Ok((None, None));
    };
    let desc = &pass.attachments[r.index as usize];
    let v = *fb
        .attachments
        .get(r.index as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: Vulkan valid usage: a render pass instance's attachment views (the framebuffer's,
    // or the begin command's for imageless framebuffers and dynamic rendering) are live image
    // views made by this driver, kept alive while the command buffer records.
    let view = unsafe { ImageView::from_handle(v) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `view.image` is the live image the view was made from, which valid usage keeps
    // alive while the view is in use.
    let image = unsafe { Image::from_handle(view.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let kind = format::aspects(view.format).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
    // The render is the size of the attachment's level (`subpass_extent`), which the ZLS
    // unit addresses as a twiddled image of that size: level L of a twiddled image is laid
    // out as such an image of level L's extent (hw::g13::layout), from the level's offset.
    let level = view.range.base_mip_level;
    let Some(level_offset) = image.layout.level_offset(level) else {
        return Err(vk::Result::ERROR_UNKNOWN);
    };
    if level_extent(image, level) != (rs.size.width, rs.size.height) {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let va = image.va.load(Ordering::Acquire);
    if va == 0
        || !image
            .usage
            .contains(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT)
    {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    let layer = u64::from(view.range.base_array_layer + stream.layer);
    let base = va + level_offset + layer * image.layout.layer_stride;
    let view = (rs.view_mask != 0).then_some(stream.layer);
    let (first, last) = (first_use(pass, r.index, view), uses(pass, r.index).1);
    let first_here = first == Some(rs.subpass) && !stream.continued;
    let last_here = last == Some(rs.subpass);
    // SAFETY: a depth/stencil attachment's clear value is the depth_stencil member.
    let clear = rs
        .clears
        .get(r.index as usize)
        .map(|c| unsafe { c.depth_stencil })
        .unwrap_or_default();
    let load = |op: vk::AttachmentLoadOp, cleared: bool| {
        !cleared && (!first_here || op == vk::AttachmentLoadOp::LOAD)
    };
    let store =
        |op: vk::AttachmentStoreOp| store_all || !last_here || op == vk::AttachmentStoreOp::STORE;
    // The depth/stencil resolve runs after the render command and reads the attachment
    // from memory, whatever its store op says.
    let resolve = pass.subpasses[rs.subpass as usize].depth_stencil_resolve;
    let resolved = |mode: fn(&DepthStencilResolve) -> vk::ResolveModeFlags| {
        !rs.suspending && resolve.is_some_and(|r| mode(&r) != vk::ResolveModeFlags::NONE)
    };
    let depth = kind.depth.map(|format| {
        let plane = ZsPlane {
            base,
            load: load(desc.load_op, stream.cleared_depth.is_some()),
            store: store(desc.store_op) || resolved(|r| r.depth_mode),
        };
        DepthPlane {
            plane,
            format,
            clear: stream.cleared_depth.unwrap_or(clear.depth),
        }
    });
    let stencil = match kind.stencil {
        true => {
            let (plane_offset, plane) = match &image.stencil_plane {
                Some((offset, l)) => (*offset, l),
                None => (0, &image.layout),
            };
            let s_level = plane.level_offset(level).ok_or(vk::Result::ERROR_UNKNOWN)?;
            let plane = ZsPlane {
                base: va + plane_offset + s_level + layer * plane.layer_stride,
                load: load(desc.stencil_load_op, stream.cleared_stencil.is_some()),
                store: store(desc.stencil_store_op) || resolved(|r| r.stencil_mode),
            };
            let clear = stream.cleared_stencil.unwrap_or(clear.stencil) as u8;
            Some(StencilPlane { plane, clear })
        }
        false => None,
    };
    Ok((depth, stencil))
}

/// Whether subpass `subpass` is the first to use an attachment it clears with its load op.
fn clears_at_start(pass: &RenderPass, subpass: u32) -> bool {
    let sp = &pass.subpasses[subpass as usize];
    let first_here = |i: u32| uses(pass, i).0 == Some(subpass);
    let colour = sp.colours.iter().flatten().any(|r| {
        first_here(r.index)
            && pass.attachments[r.index as usize].load_op == vk::AttachmentLoadOp::CLEAR
    });
    let ds = sp.depth_stencil.is_some_and(|r| {
        let a = &pass.attachments[r.index as usize];
        first_here(r.index)
            && (a.load_op == vk::AttachmentLoadOp::CLEAR
                || a.stencil_load_op == vk::AttachmentLoadOp::CLEAR)
    });
    colour || ds
}

/// Starts recording subpass `subpass` of the open render pass instance.
fn start_subpass(dev: &Device, rec: &mut Recording, subpass: u32) -> Result<(), vk::Result> {
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let sp = pass
        .subpasses
        .get(subpass as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    rs.tilebuffer = subpass_tilebuffer(pass, subpass)?;
    (rs.size, rs.reach) = subpass_extent(&rs.fb, pass, subpass)?;
    rs.subpass = subpass;
    rs.view_mask = sp.view_mask;
    if sp.view_mask != 0 {
        rs.streams = (0..32)
            .filter(|v| sp.view_mask >> v & 1 == 1)
            .map(|v| Stream::new(v, rs.resuming))
            .collect();
        rs.targets = (0..rs.streams.len()).collect();
    } else {
        // Draws land on layer 0; a load op's clear reaches every layer of the framebuffer.
        let layers = if rs.fb.layers > 1 && clears_at_start(pass, subpass) && !rs.resuming {
            rs.fb.layers
        } else {
            1
        };
        rs.streams = (0..layers).map(|l| Stream::new(l, rs.resuming)).collect();
        rs.targets = vec![0];
    }
    rs.current = 0;
    rec.state_changed();
    clear_partial_area(dev, rec)?;
    // A depth/stencil input attachment is read from memory: what the load op or the
    // partial-area clear put into its tiles must be stored before the first draw reads it.
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let ds_cleared = sp.depth_stencil.is_some_and(|r| {
        let a = &pass.attachments[r.index as usize];
        uses(pass, r.index).0 == Some(subpass)
            && (a.load_op == vk::AttachmentLoadOp::CLEAR
                || a.stencil_load_op == vk::AttachmentLoadOp::CLEAR)
    });
    if depth_feedback(pass, subpass)
        && !rs.resuming
        && (ds_cleared || rs.streams.iter().any(Stream::wrote))
    {
        restart_streams(dev, rec)?;
    }
    Ok(())
}

/// A subpass without attachments rasterizes at its pipelines' sample count, which the first
/// draw brings: while nothing is drawn, the render takes the layout `tib` of the pipeline (or
/// of a secondary's render) when it differs. Anything else stays as it is, for the caller's
/// compatibility check.
pub fn adopt_samples(rs: &mut RenderState, tib: &TilebufferLayout) -> Result<(), vk::Result> {
    if rs.tilebuffer == *tib {
        return Ok(());
    }
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    if attachmentless(pass, rs.subpass) && !rs.streams.iter().any(Stream::wrote) {
        rs.tilebuffer = tib.clone();
    }
    Ok(())
}

/// Whether subpass `subpass` reads its depth/stencil attachment as an input attachment too.
fn depth_feedback(pass: &RenderPass, subpass: u32) -> bool {
    pass.subpasses.get(subpass as usize).is_some_and(|sp| {
        sp.depth_stencil
            .is_some_and(|d| sp.inputs.iter().flatten().any(|r| r.index == d.index))
    })
}

/// A pipeline barrier inside a render pass instance. Colour input attachments that the
/// subpass also renders to are read from the tilebuffer, which is always current; a
/// depth/stencil one is read from memory (shaders cannot read the ZLS unit's tiles), so the
/// render commands end, storing what was written before the barrier, and continue. So do
/// they for a feedback-loop barrier (VK_EXT_attachment_feedback_loop_layout): textures read
/// attachments from memory, which only holds what a render command has stored.
pub fn barrier(dev: &Device, rec: &mut Recording, feedback_loop: bool) -> Result<(), vk::Result> {
    let Some(rs) = rec.render.as_ref() else {
        return Ok(());
    };
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    if (feedback_loop || depth_feedback(pass, rs.subpass)) && rs.streams.iter().any(Stream::wrote) {
        restart_streams(dev, rec)?;
    }
    Ok(())
}

/// Whether `r` covers every pixel from the origin to `reach`.
fn covers(r: vk::Rect2D, reach: vk::Extent2D) -> bool {
    r.offset.x <= 0
        && r.offset.y <= 0
        && i64::from(r.offset.x) + i64::from(r.extent.width) >= i64::from(reach.width)
        && i64::from(r.offset.y) + i64::from(r.extent.height) >= i64::from(reach.height)
}

/// The extent of `image`'s level `level`.
fn level_extent(image: &Image, level: u32) -> (u32, u32) {
    (
        (image.extent.width >> level).max(1),
        (image.extent.height >> level).max(1),
    )
}

/// The render command size of subpass `subpass` and how far its tiles reach pixels of its
/// attachments (`RenderState::size`, `RenderState::reach`). The render is the framebuffer's
/// size, or the extent of its depth/stencil attachment's level when it has one (as Mesa
/// sizes renders: the ZLS unit addresses its buffers as images of the render's size).
/// Tiles are at most 32 pixels wide and high, so they touch pixels up to the render size
/// rounded up to 32, of which an attachment has those inside its level.
fn subpass_extent(
    fb: &Framebuffer,
    pass: &RenderPass,
    subpass: u32,
) -> Result<(vk::Extent2D, vk::Extent2D), vk::Result> {
    let sp = pass
        .subpasses
        .get(subpass as usize)
        .ok_or(vk::Result::ERROR_UNKNOWN)?;
    let image_of = |index: u32| -> Result<(&Image, u32), vk::Result> {
        let view = fb
            .attachments
            .get(index as usize)
            // SAFETY: Vulkan valid usage: a render pass instance's attachment views (the
            // framebuffer's, or the begin command's for imageless framebuffers and dynamic
            // rendering) are live image views made by this driver, kept alive while the
            // command buffer records.
            .and_then(|&v| unsafe { ImageView::from_handle(v) })
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        // SAFETY: `view.image` is the live image the view was made from, which valid usage
        // keeps alive while the view is in use.
        let image = unsafe { Image::from_handle(view.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
        Ok((image, view.range.base_mip_level))
    };
    let mut size = (fb.width, fb.height);
    if let Some(r) = sp.depth_stencil {
        let (image, level) = image_of(r.index)?;
        let (w, h) = level_extent(image, level);
        if w < fb.width || h < fb.height {
            eprintln!(
                "agx4: a depth/stencil attachment of {w}x{h} pixels in a framebuffer of {}x{}",
                fb.width, fb.height
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        size = (w, h);
    }
    let tiles = (size.0.next_multiple_of(32), size.1.next_multiple_of(32));
    let mut reach = (fb.width, fb.height);
    let refs = sp
        .colours
        .iter()
        .chain(&sp.resolves)
        .flatten()
        .map(|r| r.index)
        .chain(sp.depth_stencil.map(|r| r.index));
    for index in refs {
        let (image, level) = image_of(index)?;
        let (w, h) = level_extent(image, level);
        reach = (reach.0.max(w.min(tiles.0)), reach.1.max(h.min(tiles.1)));
    }
    let e = |(width, height)| vk::Extent2D { width, height };
    Ok((e(size), e(reach)))
}

/// A render area that does not cover the pixels the tiles reach (see `subpass_extent`):
/// those outside it must keep their contents, so every attachment is loaded and the
/// attachments this subpass clears are cleared by drawing the render area.
fn clear_partial_area(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let a = rs.area;
    let whole = covers(a, rs.reach);
    // A resumed instance continues its suspended one, whose load ops have run already.
    if whole || rs.resuming {
        return Ok(());
    }
    for s in &mut rs.streams {
        s.continued = true;
    }
    let draw_targets = std::mem::replace(&mut rs.targets, (0..rs.streams.len()).collect());
    let result = clear_area_rects(dev, rec, pass, a);
    if let Some(rs) = rec.render.as_mut() {
        rs.targets = draw_targets;
    }
    result
}

/// Draws the load-op clears of the open subpass over `area`, in each stream (layer or view)
/// whose load op of the attachment runs in this subpass.
fn clear_area_rects(
    dev: &Device,
    rec: &mut Recording,
    pass: &RenderPass,
    area: vk::Rect2D,
) -> Result<(), vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let subpass = rs.subpass;
    let sp = &pass.subpasses[subpass as usize];
    let rect = [vk::ClearRect {
        rect: area,
        base_array_layer: 0,
        layer_count: 1,
    }];
    let clears = rs.clears.clone();
    // The streams (layers, or views) whose load op of attachment `a` runs in this subpass
    // become the clear's targets; false if there are none.
    let aim = |rec: &mut Recording, a: u32| -> Result<bool, vk::Result> {
        let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
        let multiview = rs.view_mask != 0;
        rs.targets = (0..rs.streams.len())
            .filter(|&i| {
                let view = multiview.then_some(rs.streams[i].layer);
                first_use(pass, a, view) == Some(subpass)
            })
            .collect();
        Ok(!rs.targets.is_empty())
    };
    for (slot, r) in sp.colours.iter().enumerate() {
        let Some(r) = r else { continue };
        if pass.attachments[r.index as usize].load_op != vk::AttachmentLoadOp::CLEAR
            || !aim(rec, r.index)?
        {
            continue;
        }
        // SAFETY: a colour attachment's clear value is the colour member.
        let value = unsafe {
            clears
                .get(r.index as usize)
                .ok_or(vk::Result::ERROR_UNKNOWN)?
                .color
        };
        let words = super::clear::colour_words(pass, subpass, slot as u32, &value)
            .ok_or(vk::Result::ERROR_UNKNOWN)?;
        super::clear::clear_rects(
            dev,
            rec,
            Some((slot as u32, words)),
            None,
            None,
            &rect,
            None,
        )?;
    }
    if let Some(r) = sp.depth_stencil {
        if !aim(rec, r.index)? {
            return Ok(());
        }
        let desc = &pass.attachments[r.index as usize];
        let kind = format::aspects(desc.format).ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
        // SAFETY: a depth/stencil attachment's clear value is the depth_stencil member.
        let value = clears
            .get(r.index as usize)
            .map(|c| unsafe { c.depth_stencil })
            .unwrap_or_default();
        let depth = (kind.depth.is_some() && desc.load_op == vk::AttachmentLoadOp::CLEAR)
            .then_some(value.depth);
        let stencil = (kind.stencil && desc.stencil_load_op == vk::AttachmentLoadOp::CLEAR)
            .then_some(value.stencil);
        if depth.is_some() || stencil.is_some() {
            super::clear::clear_rects(dev, rec, None, depth, stencil, &rect, None)?;
        }
    }
    Ok(())
}

/// The attachment views a render pass instance renders: the framebuffer's, or for an
/// imageless framebuffer the ones `VkRenderPassAttachmentBeginInfo` names.
///
/// # Safety
/// `begin.framebuffer` must be `VK_NULL_HANDLE` or a live framebuffer made by this driver,
/// `begin`'s pNext chain null or a valid chain of Vulkan structures, and the pAttachments of a
/// `VkRenderPassAttachmentBeginInfo` in it must hold attachmentCount handles, each
/// `VK_NULL_HANDLE` or a live image view made by this driver; none may be destroyed during the
/// call. The begin info of vkCmdBeginRenderPass or vkCmdBeginRenderPass2 is such (Vulkan valid
/// usage).
unsafe fn instance_framebuffer(
    begin: &vk::RenderPassBeginInfo<'_>,
) -> Result<Framebuffer, vk::Result> {
    // SAFETY: guaranteed by the caller: `begin.framebuffer` is null or a live framebuffer made
    // by this driver.
    let fb =
        unsafe { Framebuffer::from_handle(begin.framebuffer) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let mut out = fb.clone();
    if fb.imageless {
        // SAFETY: guaranteed by the caller: the pNext chain is valid.
        let info = unsafe { handle::find_in_chain::<vk::RenderPassAttachmentBeginInfo<'_>>(begin.p_next) }.ok_or_else(|| {
            eprintln!("agx4: vkCmdBeginRenderPass: an imageless framebuffer without VkRenderPassAttachmentBeginInfo");
            vk::Result::ERROR_UNKNOWN
        })?;
        // SAFETY: guaranteed by the caller: pAttachments holds attachmentCount views.
        let views = unsafe { handle::slice(info.p_attachments, info.attachment_count) };
        if views.len() != fb.attachment_count
            // SAFETY: guaranteed by the caller: each of `pAttachments` is null (caught here) or
            // a live image view made by this driver.
            || views.iter().any(|&v| unsafe { ImageView::from_handle(v) }.is_none())
        {
            eprintln!("agx4: vkCmdBeginRenderPass: {} attachment views for an imageless framebuffer of {}", views.len(), fb.attachment_count);
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        out.attachments = views.to_vec();
    }
    Ok(out)
}

/// How a dynamic rendering instance continues or is continued by another.
#[derive(Clone, Copy, Debug, Default)]
pub struct Continuation {
    pub resuming: bool,
    pub suspending: bool,
}

/// Opens a render pass instance of `pass` on `fb` and starts its first subpass.
///
/// # Safety
/// `pass` must be a live render pass made by this driver and `fb`'s attachments live image
/// views made by this driver, all kept alive while the command buffer records: the render
/// pass instance reads them until it ends. The render pass and framebuffer (or attachment
/// views) a render pass instance begins with are such handles (Vulkan valid usage), and so
/// is a render pass the device made for dynamic rendering.
pub unsafe fn begin(
    dev: &Device,
    rec: &mut Recording,
    pass: vk::RenderPass,
    fb: Framebuffer,
    area: vk::Rect2D,
    clears: Vec<vk::ClearValue>,
    c: Continuation,
) -> Result<(), vk::Result> {
    if rec.render.is_some() {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    rec.close_segment(None)?;
    rec.render = Some(Box::new(RenderState {
        pass,
        fb,
        subpass: 0,
        area,
        clears,
        tilebuffer: TilebufferLayout::build(&[], 1).map_err(|_| vk::Result::ERROR_UNKNOWN)?,
        view_mask: 0,
        streams: Vec::new(),
        targets: Vec::new(),
        current: 0,
        timestamps: Vec::new(),
        suspending: c.suspending,
        resuming: c.resuming,
        inherited: false,
        size: vk::Extent2D::default(),
        reach: vk::Extent2D::default(),
    }));
    start_subpass(dev, rec, 0)
}

/// Ends the open subpass: its render commands, then its depth/stencil resolve.
fn end_subpass(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    let layers: Vec<u32> = rs.streams.iter().map(|s| s.layer).collect();
    finish_render(dev, rec, rs.suspending)?;
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    if rs.suspending {
        return Ok(());
    }
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let sp = &pass.subpasses[rs.subpass as usize];
    let (Some(ds), Some(resolve)) = (sp.depth_stencil, sp.depth_stencil_resolve) else {
        return Ok(());
    };
    let view = |i: u32| {
        rs.fb
            .attachments
            .get(i as usize)
            // SAFETY: Vulkan valid usage: a render pass instance's attachment views (the
            // framebuffer's, or the begin command's for imageless framebuffers and dynamic
            // rendering) are live image views made by this driver, kept alive while the
            // command buffer records.
            .and_then(|&v| unsafe { ImageView::from_handle(v) })
            .ok_or(vk::Result::ERROR_UNKNOWN)
    };
    let (sv, dv) = (view(ds.index)?, view(resolve.attachment.index)?);
    let (si, di) = (
        // SAFETY: `sv.image` is the image the depth/stencil attachment's view was made from; a
        // view may only be used while its image lives (Vulkan object lifetime rules), and the
        // view is in use by this render pass instance.
        unsafe { Image::from_handle(sv.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?,
        // SAFETY: `dv.image` is the image the depth/stencil resolve attachment's view was made
        // from; a view may only be used while its image lives (Vulkan object lifetime rules),
        // and the view is in use by this render pass instance.
        unsafe { Image::from_handle(dv.image) }.ok_or(vk::Result::ERROR_UNKNOWN)?,
    );
    // An aspect the subpass does not resolve keeps what the resolve attachment's own load op
    // gives it: a clear, when this is the attachment's first use.
    let desc = &pass.attachments[resolve.attachment.index as usize];
    let first_here = uses(pass, resolve.attachment.index).0 == Some(rs.subpass);
    let (mut resolved, mut cleared) =
        (vk::ImageAspectFlags::empty(), vk::ImageAspectFlags::empty());
    for (aspect, mode, load_op) in [
        (
            vk::ImageAspectFlags::DEPTH,
            resolve.depth_mode,
            desc.load_op,
        ),
        (
            vk::ImageAspectFlags::STENCIL,
            resolve.stencil_mode,
            desc.stencil_load_op,
        ),
    ] {
        if mode != vk::ResolveModeFlags::NONE {
            resolved |= aspect & sv.range.aspect_mask;
        } else if first_here && load_op == vk::AttachmentLoadOp::CLEAR {
            cleared |= aspect & dv.range.aspect_mask;
        }
    }
    // SAFETY: a depth/stencil attachment's clear value is the depth_stencil member.
    let value = rs
        .clears
        .get(resolve.attachment.index as usize)
        .map(|c| unsafe { c.depth_stencil })
        .unwrap_or_default();
    let area = rs.area;
    if resolved.is_empty() && cleared.is_empty() {
        return Ok(());
    }
    for layer in layers {
        rec.barrier_pending = true;
        let src = (sv.range.base_mip_level, sv.range.base_array_layer + layer);
        let dst = (dv.range.base_mip_level, dv.range.base_array_layer + layer);
        if !resolved.is_empty() {
            super::blit::resolve_depth_stencil_sample_zero(
                dev, rec, si, di, resolved, src, dst, area,
            )?;
        }
        if !cleared.is_empty() {
            super::blit::clear_depth_stencil_area(dev, rec, di, &value, cleared, dst, area)?;
        }
    }
    rec.barrier_pending = true;
    Ok(())
}

/// Moves to the next subpass.
pub fn next_subpass(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    end_subpass(dev, rec)?;
    let next = rec
        .render
        .as_ref()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .subpass
        + 1;
    start_subpass(dev, rec, next)
}

/// Ends the render pass instance.
pub fn end(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    end_subpass(dev, rec)?;
    rec.render = None;
    Ok(())
}

pub unsafe extern "system" fn cmd_begin_render_pass(
    cb: vk::CommandBuffer,
    p_begin: *const vk::RenderPassBeginInfo<'_>,
    _contents: vk::SubpassContents,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    // SAFETY: valid usage: pRenderPassBegin points to a valid begin info, whose render pass
    // and framebuffer (or attachment views) are live and stay alive while this records.
    unsafe { begin_with_info("vkCmdBeginRenderPass", cb, p_begin) }
}

pub unsafe extern "system" fn cmd_begin_render_pass2(
    cb: vk::CommandBuffer,
    p_begin: *const vk::RenderPassBeginInfo<'_>,
    _p_subpass: *const vk::SubpassBeginInfo<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    // SAFETY: valid usage: pRenderPassBegin points to a valid begin info, whose render pass
    // and framebuffer (or attachment views) are live and stay alive while this records.
    unsafe { begin_with_info("vkCmdBeginRenderPass2", cb, p_begin) }
}

/// Records vkCmdBeginRenderPass or vkCmdBeginRenderPass2 (`name`) of begin info `p_begin`.
///
/// # Safety
/// `p_begin` must point to a valid VkRenderPassBeginInfo whose render pass and framebuffer
/// (or attachment views) are live objects made by this driver, kept alive while the command
/// buffer records; valid usage requires that of the begin info of both commands.
unsafe fn begin_with_info(
    name: &'static str,
    cb: LiveCommandBuffer,
    p_begin: *const vk::RenderPassBeginInfo<'_>,
) {
    record(name, cb, |dev, rec| {
        // SAFETY: guaranteed by the caller; pClearValues holds clearValueCount values.
        let b = unsafe { &*p_begin };
        // SAFETY: as above.
        let clears = unsafe { handle::slice(b.p_clear_values, b.clear_value_count) }.to_vec();
        // SAFETY: guaranteed by the caller: the framebuffer is live, its pNext chain valid,
        // and the views of its VkRenderPassAttachmentBeginInfo live image views.
        let fb = unsafe { instance_framebuffer(b) }?;
        // SAFETY: guaranteed by the caller: the render pass and the framebuffer's attachments
        // stay alive while the command buffer records.
        unsafe {
            begin(
                dev,
                rec,
                b.render_pass,
                fb,
                b.render_area,
                clears,
                Continuation::default(),
            )
        }
    })
}

pub unsafe extern "system" fn cmd_next_subpass(
    cb: vk::CommandBuffer,
    _contents: vk::SubpassContents,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdNextSubpass", cb, next_subpass)
}

pub unsafe extern "system" fn cmd_next_subpass2(
    cb: vk::CommandBuffer,
    _p_begin: *const vk::SubpassBeginInfo<'_>,
    _p_end: *const vk::SubpassEndInfo<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdNextSubpass2", cb, next_subpass)
}

pub unsafe extern "system" fn cmd_end_render_pass(cb: vk::CommandBuffer) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndRenderPass", cb, end)
}

pub unsafe extern "system" fn cmd_end_render_pass2(
    cb: vk::CommandBuffer,
    _p_end: *const vk::SubpassEndInfo<'_>,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdEndRenderPass2", cb, end)
}

/// Ends the open render commands with everything stored and opens continuations on the same
/// layers, so later work can clear whole targets with the background program.
pub(crate) fn restart_streams(dev: &Device, rec: &mut Recording) -> Result<(), vk::Result> {
    let layers: Vec<u32> = rec
        .render
        .as_ref()
        .ok_or(vk::Result::ERROR_UNKNOWN)?
        .streams
        .iter()
        .map(|s| s.layer)
        .collect();
    finish_render(dev, rec, true)?;
    let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
    rs.streams = layers.into_iter().map(|l| Stream::new(l, true)).collect();
    rec.state_changed();
    Ok(())
}

/// What one vkCmdClearAttachments entry clears, resolved against the open subpass.
struct ClearOne {
    colour: Option<(u32, u32, vk::ClearColorValue)>,
    depth: Option<f32>,
    stencil: Option<u32>,
}

fn clear_attachments(
    dev: &Device,
    rec: &mut Recording,
    clears: &[vk::ClearAttachment],
    rects: &[vk::ClearRect],
) -> Result<(), vk::Result> {
    let rs = rec.render.as_ref().ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: `rs.pass` is the open render pass instance's pass: the application's, which valid
    // usage keeps alive while the command buffer records, or the device's own for dynamic
    // rendering, which lives as long as the device.
    let pass = unsafe { RenderPass::from_handle(rs.pass) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    let sp = &pass.subpasses[rs.subpass as usize];
    let ds_format = sp
        .depth_stencil
        .and_then(|r| format::aspects(pass.attachments[r.index as usize].format));
    let has_depth = ds_format.and_then(|f| f.depth).is_some();
    let has_stencil = ds_format.is_some_and(|f| f.stencil);
    let what: Vec<ClearOne> = clears
        .iter()
        .map(|c| {
            // SAFETY: the aspect mask says which member of the clear value is meant.
            let (colour, ds) = unsafe { (c.clear_value.color, c.clear_value.depth_stencil) };
            let slot = sp
                .colours
                .get(c.color_attachment as usize)
                .copied()
                .flatten();
            ClearOne {
                colour: slot
                    .filter(|_| c.aspect_mask.contains(vk::ImageAspectFlags::COLOR))
                    .map(|r| (c.color_attachment, r.index, colour)),
                depth: (has_depth && c.aspect_mask.contains(vk::ImageAspectFlags::DEPTH))
                    .then_some(ds.depth),
                stencil: (has_stencil && c.aspect_mask.contains(vk::ImageAspectFlags::STENCIL))
                    .then_some(ds.stencil),
            }
        })
        .collect();
    let condition = rec.condition;
    for r in rects {
        let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
        // A multiview subpass clears every view; otherwise the rectangle names layers.
        let layers: Vec<u32> = match rs.view_mask {
            0 => (r.base_array_layer
                ..r.base_array_layer
                    .saturating_add(r.layer_count)
                    .min(rs.fb.layers))
                .collect(),
            _ => rs.streams.iter().map(|s| s.layer).collect(),
        };
        let targets: Vec<usize> = layers.iter().map(|&l| rs.stream_for(l)).collect();
        // Clears of every pixel the tiles reach restart the render with those targets
        // cleared by the background program and the ZLS unit; smaller rectangles are drawn.
        // A secondary command buffer knows neither the render area nor the render command
        // it ends up in, so it draws every rectangle.
        // Under conditional rendering the clear must stay a (guarded) draw.
        if covers(r.rect, rs.reach) && !rs.inherited && condition.is_none() {
            if rs.streams.iter().any(|s| s.draws > 0) {
                restart_streams(dev, rec)?;
            }
            let rs = rec.render.as_mut().ok_or(vk::Result::ERROR_UNKNOWN)?;
            for &t in &targets {
                let s = rs.streams.get_mut(t).ok_or(vk::Result::ERROR_UNKNOWN)?;
                for w in &what {
                    if let Some((_, index, value)) = w.colour {
                        s.cleared.insert(index, value);
                    }
                    s.cleared_depth = w.depth.or(s.cleared_depth);
                    s.cleared_stencil = w.stencil.or(s.cleared_stencil);
                }
            }
            continue;
        }
        let draw_targets = std::mem::replace(&mut rs.targets, targets);
        let one = [vk::ClearRect {
            rect: r.rect,
            base_array_layer: 0,
            layer_count: 1,
        }];
        let subpass = rs.subpass;
        let mut result = Ok(());
        for w in &what {
            if let Some((slot, _, value)) = w.colour {
                if let Some(words) = super::clear::colour_words(pass, subpass, slot, &value) {
                    result = result.and_then(|_| {
                        super::clear::clear_rects(
                            dev,
                            rec,
                            Some((slot, words)),
                            None,
                            None,
                            &one,
                            condition,
                        )
                    });
                }
            }
            if w.depth.is_some() || w.stencil.is_some() {
                result = result.and_then(|_| {
                    super::clear::clear_rects(dev, rec, None, w.depth, w.stencil, &one, condition)
                });
            }
        }
        if let Some(rs) = rec.render.as_mut() {
            rs.targets = draw_targets;
        }
        result?;
    }
    Ok(())
}

pub unsafe extern "system" fn cmd_clear_attachments(
    cb: vk::CommandBuffer,
    count: u32,
    p_attachments: *const vk::ClearAttachment,
    rect_count: u32,
    p_rects: *const vk::ClearRect,
) {
    // SAFETY: `cb` is the command's commandBuffer, which valid usage requires to be a live
    // command buffer made by this driver.
    let cb = unsafe { LiveCommandBuffer::new(cb) };
    record("vkCmdClearAttachments", cb, |dev, rec| {
        // SAFETY: valid usage: the arrays hold their counts.
        let (clears, rects) = unsafe {
            (
                handle::slice(p_attachments, count),
                handle::slice(p_rects, rect_count),
            )
        };
        clear_attachments(dev, rec, clears, rects)
    })
}
