//! Packed colour formats as colour attachments: 16-bit 5:6:5, 1:5:5:5 and 4:4:4:4 UNORM,
//! 32-bit 2:10:10:10 UNORM and UINT, and 11:11:10 unsigned float. Each `packed_*` scene
//! clears, draws a smooth-shaded triangle, flat and blended rectangles and a
//! vkCmdClearAttachments rectangle, then in a second pass loads the result and draws a
//! blended and a write-masked rectangle; then it clears a second image with
//! vkCmdClearColorImage and copies part of the render into it, and (for non-integer formats)
//! blits part of the render 2x larger into a third. Each `packed_resolve_*` scene resolves a
//! 4x triangle.
//!
//! The expectations model each format's fields from the Vulkan format descriptions,
//! independently of both drivers: every operation's result is quantised to the format as a
//! stored texel would be. Read-back compares raw field codes (for the unsigned floats too:
//! their encoding is ordered, so one code is one step of rounding). Tolerances: exact on
//! pixels whose every operation wrote a representable value; one code elsewhere (interpolated,
//! blended and averaged values may round either way, and a renderer may keep more precision
//! between draws of one pass than the format holds).

use super::super::frame::{blend, bytes_of, color_att, opaque, range, Frame, Pipe, R, V};
use super::super::gpu::Feature;
use super::super::image::{Fmt, Image, Tol};
use super::super::needs::Needs;
use super::super::raster::{cover, interpolate, Cover, Interp, RV, SAMPLES_4X};
use super::super::run::{Out, Scene};
use ash::vk;
use vk::BlendFactor as B;
use vk::BlendOp as O;
use vk::Format as F;

const FORMATS: [vk::Format; 9] = [
    F::R5G6B5_UNORM_PACK16,
    F::B5G6R5_UNORM_PACK16,
    F::R4G4B4A4_UNORM_PACK16,
    F::B4G4R4A4_UNORM_PACK16,
    F::A1R5G5B5_UNORM_PACK16,
    F::A2B10G10R10_UNORM_PACK32,
    F::A2R10G10B10_UNORM_PACK32,
    F::A2B10G10R10_UINT_PACK32,
    F::B10G11R11_UFLOAT_PACK32,
];

pub fn scenes() -> Vec<Scene> {
    // Scene runs are plain functions, so each format gets its own.
    macro_rules! draw {
        ($name:literal, $i:literal) => {
            Scene {
                name: $name,
                size: 64,
                needs: || draw_needs(FORMATS[$i]),
                run: |f| draw_scene(f, FORMATS[$i], false),
            }
        };
    }
    macro_rules! blit {
        ($name:literal, $i:literal) => {
            Scene {
                name: $name,
                size: 64,
                needs: || blit_needs(FORMATS[$i]),
                run: |f| draw_scene(f, FORMATS[$i], true),
            }
        };
    }
    macro_rules! logic {
        ($name:literal, $i:literal) => {
            Scene {
                name: $name,
                size: 64,
                needs: || Needs::new().color(FORMATS[$i]).feature(Feature::LogicOp),
                run: |f| logic_scene(f, FORMATS[$i]),
            }
        };
    }
    macro_rules! resolve {
        ($name:literal, $i:literal) => {
            Scene {
                name: $name,
                size: 64,
                needs: || resolve_needs(FORMATS[$i]),
                run: |f| resolve_scene(f, FORMATS[$i]),
            }
        };
    }
    // lavapipe, the reference, renders every format here but R4G4B4A4_UNORM_PACK16, and
    // blits only some of them.
    vec![
        draw!("packed_r5g6b5_unorm", 0),
        draw!("packed_b5g6r5_unorm", 1),
        draw!("packed_b4g4r4a4_unorm", 3),
        draw!("packed_a1r5g5b5_unorm", 4),
        draw!("packed_a2b10g10r10_unorm", 5),
        draw!("packed_a2r10g10b10_unorm", 6),
        draw!("packed_a2b10g10r10_uint", 7),
        draw!("packed_b10g11r11_ufloat", 8),
        blit!("packed_blit_r5g6b5_unorm", 0),
        blit!("packed_blit_b4g4r4a4_unorm", 3),
        blit!("packed_blit_a1r5g5b5_unorm", 4),
        blit!("packed_blit_a2b10g10r10_unorm", 5),
        logic!("packed_logic_op_r5g6b5_unorm", 0),
        logic!("packed_logic_op_b4g4r4a4_unorm", 3),
        logic!("packed_logic_op_a1r5g5b5_unorm", 4),
        resolve!("packed_resolve_r5g6b5_unorm", 0),
        resolve!("packed_resolve_b5g6r5_unorm", 1),
        resolve!("packed_resolve_b4g4r4a4_unorm", 3),
        resolve!("packed_resolve_a1r5g5b5_unorm", 4),
        resolve!("packed_resolve_a2b10g10r10_unorm", 5),
        resolve!("packed_resolve_a2r10g10b10_unorm", 6),
        resolve!("packed_resolve_b10g11r11_ufloat", 8),
    ]
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Unorm,
    Uint,
    /// Unsigned floats with a 5-bit exponent and `width - 5` mantissa bits.
    Ufloat,
}

/// A packed format from its Vulkan description: texel bytes and, for R, G, B, A, the bit
/// offset and width of the field in the little-endian texel (width 0: no such channel).
#[derive(Clone, Copy, Debug)]
struct Spec {
    vk: vk::Format,
    bytes: usize,
    fields: [(u32, u32); 4],
    num: Num,
}

fn spec(f: vk::Format) -> Spec {
    let (bytes, fields, num) = match f {
        F::R5G6B5_UNORM_PACK16 => (2, [(11, 5), (5, 6), (0, 5), (0, 0)], Num::Unorm),
        F::B5G6R5_UNORM_PACK16 => (2, [(0, 5), (5, 6), (11, 5), (0, 0)], Num::Unorm),
        F::R4G4B4A4_UNORM_PACK16 => (2, [(12, 4), (8, 4), (4, 4), (0, 4)], Num::Unorm),
        F::B4G4R4A4_UNORM_PACK16 => (2, [(4, 4), (8, 4), (12, 4), (0, 4)], Num::Unorm),
        F::A1R5G5B5_UNORM_PACK16 => (2, [(10, 5), (5, 5), (0, 5), (15, 1)], Num::Unorm),
        F::A2B10G10R10_UNORM_PACK32 => (4, [(0, 10), (10, 10), (20, 10), (30, 2)], Num::Unorm),
        F::A2R10G10B10_UNORM_PACK32 => (4, [(20, 10), (10, 10), (0, 10), (30, 2)], Num::Unorm),
        F::A2B10G10R10_UINT_PACK32 => (4, [(0, 10), (10, 10), (20, 10), (30, 2)], Num::Uint),
        // B10G11R11_UFLOAT_PACK32 (the only other format here).
        _ => (4, [(0, 11), (11, 11), (22, 10), (0, 0)], Num::Ufloat),
    };
    Spec {
        vk: f,
        bytes,
        fields,
        num,
    }
}

/// The code of an unsigned float with a 5-bit exponent and `m` mantissa bits nearest to `v`
/// (0 for v <= 0, infinity past the largest finite value).
fn ufloat_code(v: f64, m: u32) -> f64 {
    if v.is_nan() || v <= 0.0 {
        return 0.0;
    }
    let scale = f64::from(1u32 << m);
    let e = v.log2().floor() as i32;
    let code = if e < -14 {
        // Denormal: steps of 2^(-14 - m); a carry into the exponent is the next code anyway.
        (v * 2f64.powi(14) * scale).round()
    } else {
        f64::from(e + 15) * scale + ((v / 2f64.powi(e) - 1.0) * scale).round()
    };
    code.min(31.0 * scale)
}

fn ufloat_value(code: f64, m: u32) -> f64 {
    let c = code as u32;
    let (e, man) = (c >> m, f64::from(c & ((1 << m) - 1)));
    let scale = f64::from(1u32 << m);
    if e == 0 {
        man / scale * 2f64.powi(-14)
    } else {
        (1.0 + man / scale) * 2f64.powi(e as i32 - 15)
    }
}

impl Spec {
    fn has(&self, c: usize) -> bool {
        self.fields[c].1 != 0
    }

    fn max(&self, c: usize) -> f64 {
        f64::from((1u32 << self.fields[c].1) - 1)
    }

    /// Channels compared: R, G, B, and A when the format has it.
    fn channels(&self) -> usize {
        if self.has(3) {
            4
        } else {
            3
        }
    }

    /// The field code channel `c` holds for value `v` (a float for UNORM and float formats,
    /// an integer for UINT).
    fn code(&self, c: usize, v: f64) -> f64 {
        if !self.has(c) {
            return 0.0;
        }
        match self.num {
            Num::Unorm => (v.clamp(0.0, 1.0) * self.max(c)).round(),
            Num::Uint => v.round().clamp(0.0, self.max(c)),
            Num::Ufloat => ufloat_code(v, self.fields[c].1 - 5),
        }
    }

    /// The value a field code stands for; channels the format lacks read 0, alpha 1.
    fn value(&self, c: usize, code: f64) -> f64 {
        if !self.has(c) {
            return if c == 3 { 1.0 } else { 0.0 };
        }
        match self.num {
            Num::Unorm => code / self.max(c),
            Num::Uint => code,
            Num::Ufloat => ufloat_value(code, self.fields[c].1 - 5),
        }
    }

    /// `v` as the format stores it.
    fn quant(&self, v: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|c| self.value(c, self.code(c, v[c])))
    }

    /// A colour of the format from a nominal one in 0..=1: the nearest representable value,
    /// for UINT the nominal value scaled to the field's range.
    fn colour(&self, nominal: [f64; 4]) -> [f64; 4] {
        match self.num {
            Num::Uint => std::array::from_fn(|c| (nominal[c] * self.max(c)).round()),
            _ => self.quant(nominal),
        }
    }

    fn decode(&self, b: &[u8]) -> [f64; 4] {
        let word = b[..self.bytes]
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &x)| w | u32::from(x) << (8 * i));
        self.fields
            .map(|(at, w)| f64::from(word.checked_shr(at).unwrap_or(0) & ((1u64 << w) - 1) as u32))
    }

    fn fmt(&self) -> Fmt {
        let top = (0..4)
            .filter(|&c| self.has(c))
            .map(|c| self.max(c))
            .fold(1.0, f64::max);
        Fmt {
            vk: self.vk,
            bytes: self.bytes,
            channels: self.channels(),
            to_255: 255.0 / top,
        }
    }

    fn clear_value(&self, v: [f64; 4]) -> vk::ClearColorValue {
        match self.num {
            Num::Uint => vk::ClearColorValue {
                uint32: v.map(|x| x as u32),
            },
            _ => vk::ClearColorValue {
                float32: v.map(|x| x as f32),
            },
        }
    }
}

/// The CPU model of an image: per pixel the stored value, whether the pixel is decided, and
/// whether every write to it was of a representable value.
#[derive(Clone)]
struct Model {
    s: Spec,
    w: u32,
    h: u32,
    px: Vec<[f64; 4]>,
    known: Vec<bool>,
    exact: Vec<bool>,
}

impl Model {
    fn new(s: Spec, w: u32, h: u32, fill: [f64; 4]) -> Model {
        let n = (w * h) as usize;
        Model {
            s,
            w,
            h,
            px: vec![s.quant(fill); n],
            known: vec![true; n],
            exact: vec![true; n],
        }
    }

    fn idx(&self, x: u32, y: u32) -> usize {
        (y * self.w + x) as usize
    }

    /// Applies `op` to the pixels of x0..x1, y0..y1; `op` returns the new value (unquantised)
    /// and whether it is representable.
    fn rect(&mut self, [x0, y0, x1, y1]: [u32; 4], op: impl Fn([f64; 4]) -> ([f64; 4], bool)) {
        for y in y0..y1 {
            for x in x0..x1 {
                let i = self.idx(x, y);
                let (v, exact) = op(self.px[i]);
                self.px[i] = self.s.quant(v);
                self.exact[i] &= exact;
            }
        }
    }

    fn expect(&self, label: &str) -> Image {
        let px = self
            .px
            .iter()
            .map(|v| std::array::from_fn(|c| self.s.code(c, v[c])))
            .collect();
        Image {
            label: label.into(),
            w: self.w,
            h: self.h,
            fmt: self.s.fmt(),
            px,
            dont_care: self.known.iter().map(|k| !k).collect(),
        }
    }

    /// The expectation for `got`, with one code of tolerance (none for integers). Pixels
    /// whose every write was representable must match exactly; a mismatch there fails the
    /// scene here, since the harness compares whole images with one tolerance.
    fn outs(&self, got: Image) -> R<Vec<Out>> {
        let want = self.expect(&got.label);
        let n = self.s.channels();
        let bad: Vec<String> = (0..self.px.len())
            .filter(|&i| self.known[i] && self.exact[i] && got.px[i][..n] != want.px[i][..n])
            .map(|i| {
                format!(
                    "({},{}) got {:?} want {:?}",
                    i as u32 % self.w,
                    i as u32 / self.w,
                    &got.px[i][..n],
                    &want.px[i][..n]
                )
            })
            .collect();
        if !bad.is_empty() {
            return Err(format!(
                "{}: {} exactly representable pixels differ: {}",
                got.label,
                bad.len(),
                bad[..bad.len().min(4)].join(", ")
            ));
        }
        let tol = if self.s.num == Num::Uint {
            Tol::EXACT
        } else {
            Tol {
                channel: 1.0,
                pixels: 0,
                why: "",
            }
        };
        Ok(vec![Out::new(got, Some(want), tol)])
    }
}

fn draw_needs(f: vk::Format) -> Needs {
    let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    let n = if spec(f).num == Num::Uint {
        Needs::new().color(f)
    } else {
        Needs::new().blended(f)
    };
    n.transfer(f, vk::FormatFeatureFlags::empty(), usage)
}

fn blit_needs(f: vk::Format) -> Needs {
    let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    draw_needs(f).transfer(
        f,
        vk::FormatFeatureFlags::BLIT_SRC | vk::FormatFeatureFlags::BLIT_DST,
        usage,
    )
}

fn resolve_needs(f: vk::Format) -> Needs {
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    Needs::new()
        .color(f)
        .msaa(f, usage, vk::SampleCountFlags::TYPE_4)
}

/// Copies a frame-sized single-sample image (in `layout`) to the host and decodes its field
/// codes.
fn read(
    f: &mut Frame,
    s: &Spec,
    label: &str,
    image: vk::Image,
    layout: vk::ImageLayout,
) -> R<Image> {
    let (w, h) = (f.w, f.h);
    let len = (w * h) as usize * s.bytes;
    let buf = f.buffer(vk::BufferUsageFlags::TRANSFER_DST, &vec![0xa5u8; len])?;
    let barrier = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
        .old_layout(layout)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range(vk::ImageAspectFlags::COLOR));
    let to_host = vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .buffer(buf)
        .size(vk::WHOLE_SIZE);
    let region = vk::BufferImageCopy {
        image_subresource: layers_of_colour(),
        image_extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        ..Default::default()
    };
    let d = f.d;
    f.submit(|cb| {
        // SAFETY: recording; image and buffer alive, the buffer large enough.
        unsafe {
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            );
            d.cmd_copy_image_to_buffer(
                cb,
                image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buf,
                &[region],
            );
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[to_host],
                &[],
            );
        }
    })?;
    let bytes = f.read_buffer(buf, len)?;
    let n = (w * h) as usize;
    Ok(Image {
        label: label.into(),
        w,
        h,
        fmt: s.fmt(),
        px: bytes.chunks_exact(s.bytes).map(|t| s.decode(t)).collect(),
        dont_care: vec![false; n],
    })
}

fn layers_of_colour() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A one-subpass pass on one attachment of `s`, cleared or loaded.
fn pass(
    f: &mut Frame,
    s: &Spec,
    samples: vk::SampleCountFlags,
    load: bool,
    resolve: bool,
) -> R<vk::RenderPass> {
    let (op, initial) = if load {
        (
            vk::AttachmentLoadOp::LOAD,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        )
    } else {
        (vk::AttachmentLoadOp::CLEAR, vk::ImageLayout::UNDEFINED)
    };
    let mut atts = vec![color_att(s.vk, samples, op, initial)];
    if resolve {
        atts.push(color_att(
            s.vk,
            vk::SampleCountFlags::TYPE_1,
            vk::AttachmentLoadOp::DONT_CARE,
            vk::ImageLayout::UNDEFINED,
        ));
    }
    let cref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let rref = [vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let mut sub = vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&cref);
    if resolve {
        sub = sub.resolve_attachments(&rref);
    }
    let subs = [sub];
    // The second pass reads what the first stored.
    let dep = [vk::SubpassDependency {
        src_subpass: vk::SUBPASS_EXTERNAL,
        dst_subpass: 0,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_READ
            | vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dependency_flags: vk::DependencyFlags::empty(),
    }];
    f.render_pass(
        &vk::RenderPassCreateInfo::default()
            .attachments(&atts)
            .subpasses(&subs)
            .dependencies(&dep),
    )
}

fn f32s(v: [f64; 4]) -> [f32; 4] {
    v.map(|x| x as f32)
}

/// Source-over blending (colour by source alpha, alpha by one and one minus source alpha).
fn over() -> vk::PipelineColorBlendAttachmentState {
    blend(
        B::SRC_ALPHA,
        B::ONE_MINUS_SRC_ALPHA,
        O::ADD,
        B::ONE,
        B::ONE_MINUS_SRC_ALPHA,
        O::ADD,
    )
}

fn over_ref(s: [f64; 4], d: [f64; 4]) -> [f64; 4] {
    let a = s[3];
    std::array::from_fn(|c| {
        if c < 3 {
            s[c] * a + d[c] * (1.0 - a)
        } else {
            a + d[3] * (1.0 - a)
        }
    })
}

const BG: [f64; 4] = [0.2, 0.5, 0.8, 0.4];
const FLAT: [f64; 4] = [0.9, 0.3, 0.1, 1.0];
const UFLAT: [f64; 4] = [0.1, 0.9, 0.5, 0.3];
const CLEAR_RECT: [f64; 4] = [0.7, 0.1, 0.4, 0.9];
const MASKED: [f64; 4] = [0.05, 0.95, 0.6, 0.15];
const CLEAR_IMAGE: [f64; 4] = [0.35, 0.65, 0.15, 0.55];
/// Blended sources: colours and alphas (not stored directly, so not quantised).
const SRC1: [f64; 4] = [0.25, 0.75, 0.5, 0.6];
const SRC2: [f64; 4] = [0.9, 0.4, 0.1, 0.3];

const R_FLAT: [u32; 4] = [32, 32, 64, 64];
const R_BLEND1: [u32; 4] = [16, 40, 48, 56];
const R_CLEAR: [u32; 4] = [0, 48, 16, 64];
// Blends cover only exactly representable pixels: blending over an already rounded one
// could add a second step of rounding difference on top of the first.
const R_BLEND2: [u32; 4] = [50, 20, 62, 44];
const R_MASKED: [u32; 4] = [0, 16, 24, 40];

fn draw_scene(f: &mut Frame, format: vk::Format, blit: bool) -> R<Vec<Out>> {
    let s = spec(format);
    let int = s.num == Num::Uint;
    let (w, h) = (f.w, f.h);
    let one = vk::SampleCountFlags::TYPE_1;
    let (img, view) = f.target(format, vk::ImageUsageFlags::empty(), one)?;
    let rp_clear = pass(f, &s, one, false, false)?;
    let rp_load = pass(f, &s, one, true, false)?;
    let fb_clear = f.framebuffer(rp_clear, &[view])?;
    let fb_load = f.framebuffer(rp_load, &[view])?;
    let fs = if int { "uint_color.frag" } else { "color.frag" };
    let plain = Pipe {
        fs,
        ..Pipe::default()
    };
    let blended = Pipe {
        fs,
        blends: vec![if int { opaque() } else { over() }],
        ..Pipe::default()
    };
    let masked = Pipe {
        fs,
        blends: vec![
            opaque().color_write_mask(vk::ColorComponentFlags::R | vk::ColorComponentFlags::B)
        ],
        ..Pipe::default()
    };
    let mut m = Model::new(s, w, h, s.colour(BG));

    // Pass 1: clear, a triangle, a flat rectangle, a blended one, a cleared rectangle.
    let rect = |f: &Frame, r: [u32; 4], col: [f64; 4]| {
        f.rect(
            r[0] as f32,
            r[1] as f32,
            r[2] as f32,
            r[3] as f32,
            0.5,
            f32s(col),
        )
    };
    let tri_p = [[3.0, 2.0], [58.0, 6.0], [6.0, 29.0]];
    let tri_c = if int {
        [s.colour([0.6, 0.7, 0.2, 0.8]); 3]
    } else {
        [
            [1.0, 0.1, 0.0, 1.0],
            [0.0, 0.9, 0.2, 0.5],
            [0.1, 0.2, 1.0, 0.0],
        ]
    };
    let tri: Vec<V> = (0..3)
        .map(|i| f.v(tri_p[i][0] as f32, tri_p[i][1] as f32, 0.5, f32s(tri_c[i])))
        .collect();
    let flat = rect(f, R_FLAT, s.colour(FLAT));
    let src1 = if int { s.colour(UFLAT) } else { SRC1 };
    let blend1 = rect(f, R_BLEND1, src1);
    let src2 = if int { s.colour(SRC2) } else { SRC2 };
    let blend2 = rect(f, R_BLEND2, src2);
    let masked_v = rect(f, R_MASKED, s.colour(MASKED));

    let p_plain = f.pipeline(&plain, rp_clear)?;
    let p_blend = f.pipeline(&blended, rp_clear)?;
    let p_blend2 = f.pipeline(&blended, rp_load)?;
    let p_masked = f.pipeline(&masked, rp_load)?;
    let mut vbs = Vec::new();
    for v in [&tri, &flat, &blend1, &blend2, &masked_v] {
        vbs.push(f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(v))?);
    }
    let clear_rect = vk::ClearAttachment {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        color_attachment: 0,
        clear_value: vk::ClearValue {
            color: s.clear_value(s.colour(CLEAR_RECT)),
        },
    };
    let clear_area = vk::ClearRect {
        rect: vk::Rect2D {
            offset: vk::Offset2D {
                x: R_CLEAR[0] as i32,
                y: R_CLEAR[1] as i32,
            },
            extent: vk::Extent2D {
                width: R_CLEAR[2] - R_CLEAR[0],
                height: R_CLEAR[3] - R_CLEAR[1],
            },
        },
        base_array_layer: 0,
        layer_count: 1,
    };
    let bg = vk::ClearValue {
        color: s.clear_value(s.colour(BG)),
    };
    f.submit(|cb| {
        f.begin(cb, rp_clear, fb_clear, &[bg]);
        f.draw(cb, p_plain, vbs[0], 3);
        f.draw(cb, p_plain, vbs[1], 6);
        f.draw(cb, p_blend, vbs[2], 6);
        // SAFETY: recording, inside the pass begun above.
        unsafe {
            f.d.cmd_clear_attachments(cb, &[clear_rect], &[clear_area]);
            f.d.cmd_end_render_pass(cb);
        }
        f.begin(cb, rp_load, fb_load, &[]);
        f.draw(cb, p_blend2, vbs[3], 6);
        f.draw(cb, p_masked, vbs[4], 6);
        // SAFETY: as above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;

    // The same on the CPU.
    for y in 0..h {
        for x in 0..w {
            let rv = [0, 1, 2].map(|i| RV {
                x: tri_p[i][0],
                y: tri_p[i][1],
                w: 1.0,
                col: tri_c[i],
            });
            let i = m.idx(x, y);
            match cover(&tri_p, [f64::from(x) + 0.5, f64::from(y) + 0.5]) {
                Cover::In(b) => {
                    m.px[i] = s.quant(interpolate(&rv, b, Interp::Smooth));
                    m.exact[i] &= int;
                }
                Cover::Edge => m.known[i] = false,
                Cover::Out => {}
            }
        }
    }
    m.rect(R_FLAT, |_| (s.colour(FLAT), true));
    if int {
        m.rect(R_BLEND1, |_| (src1, true));
    } else {
        m.rect(R_BLEND1, |d| (over_ref(SRC1, d), false));
    }
    m.rect(R_CLEAR, |_| (s.colour(CLEAR_RECT), true));
    if int {
        m.rect(R_BLEND2, |_| (src2, true));
    } else {
        m.rect(R_BLEND2, |d| (over_ref(SRC2, d), false));
    }
    let mk = s.colour(MASKED);
    m.rect(R_MASKED, |d| ([mk[0], d[1], mk[2], d[3]], true));
    let got = read(f, &s, "color", img, vk::ImageLayout::TRANSFER_SRC_OPTIMAL)?;
    let mut outs = m.outs(got)?;

    // vkCmdClearColorImage on a second image, then a copy of the render's top-left quarter
    // into its bottom-right one.
    let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    let copy = f.image_full(format, w, h, usage, one)?;
    let to_dst = |image| {
        vk::ImageMemoryBarrier::default()
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range(vk::ImageAspectFlags::COLOR))
    };
    let after_clear = vk::ImageMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(copy)
        .subresource_range(range(vk::ImageAspectFlags::COLOR));
    let cleared = s.colour(CLEAR_IMAGE);
    let region = vk::ImageCopy {
        src_subresource: layers_of_colour(),
        src_offset: vk::Offset3D::default(),
        dst_subresource: layers_of_colour(),
        dst_offset: vk::Offset3D {
            x: (w / 2) as i32,
            y: (h / 2) as i32,
            z: 0,
        },
        extent: vk::Extent3D {
            width: w / 2,
            height: h / 2,
            depth: 1,
        },
    };
    f.submit(|cb| {
        // SAFETY: recording; both images alive, in the layouts named.
        unsafe {
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst(copy)],
            );
            f.d.cmd_clear_color_image(
                cb,
                copy,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &s.clear_value(cleared),
                &[range(vk::ImageAspectFlags::COLOR)],
            );
            f.d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[after_clear],
            );
            f.d.cmd_copy_image(
                cb,
                img,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                copy,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
        }
    })?;
    let mut mc = Model::new(s, w, h, cleared);
    for y in 0..h / 2 {
        for x in 0..w / 2 {
            let (src, dst) = (m.idx(x, y), mc.idx(x + w / 2, y + h / 2));
            mc.px[dst] = m.px[src];
            mc.known[dst] = m.known[src];
            mc.exact[dst] = m.exact[src];
        }
    }
    let got = read(f, &s, "copy", copy, vk::ImageLayout::TRANSFER_DST_OPTIMAL)?;
    outs.extend(mc.outs(got)?);

    // A NEAREST blit of the top-left quarter to the whole of a third image: each source
    // texel becomes 2x2, centres far from texel edges.
    if blit {
        let big = f.image_full(format, w, h, usage, one)?;
        let blit = vk::ImageBlit {
            src_subresource: layers_of_colour(),
            src_offsets: [
                vk::Offset3D::default(),
                vk::Offset3D {
                    x: (w / 2) as i32,
                    y: (h / 2) as i32,
                    z: 1,
                },
            ],
            dst_subresource: layers_of_colour(),
            dst_offsets: [
                vk::Offset3D::default(),
                vk::Offset3D {
                    x: w as i32,
                    y: h as i32,
                    z: 1,
                },
            ],
        };
        f.submit(|cb| {
            // SAFETY: recording; both images alive, in the layouts named.
            unsafe {
                f.d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_dst(big)],
                );
                f.d.cmd_blit_image(
                    cb,
                    img,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    big,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[blit],
                    vk::Filter::NEAREST,
                );
            }
        })?;
        let mut mb = m.clone();
        for y in 0..h {
            for x in 0..w {
                let (src, dst) = (m.idx(x / 2, y / 2), m.idx(x, y));
                mb.px[dst] = m.px[src];
                mb.known[dst] = m.known[src];
                mb.exact[dst] = m.exact[src];
            }
        }
        let got = read(f, &s, "blit", big, vk::ImageLayout::TRANSFER_DST_OPTIMAL)?;
        outs.extend(mb.outs(got)?);
    }
    Ok(outs)
}

/// Logic ops on a cleared background and on a flat rectangle: XOR over one region, INVERT
/// (which sets bits above a narrow channel's width if nothing masks them) over another, and
/// OR. Logic ops work on the format's integer codes, so every pixel is exact.
fn logic_scene(f: &mut Frame, format: vk::Format) -> R<Vec<Out>> {
    let s = spec(format);
    let (w, h) = (f.w, f.h);
    let one = vk::SampleCountFlags::TYPE_1;
    let (img, view) = f.target(format, vk::ImageUsageFlags::empty(), one)?;
    let rp = pass(f, &s, one, false, false)?;
    let fb = f.framebuffer(rp, &[view])?;
    let bg = s.colour(BG);
    let flat = s.colour(FLAT);
    let src = s.colour(MASKED);
    let ops = [
        (vk::LogicOp::XOR, [0, 0, 32, 48]),
        (vk::LogicOp::INVERT, [32, 0, 64, 48]),
        (vk::LogicOp::OR, [16, 24, 48, 64]),
    ];
    let rect = |f: &Frame, r: [u32; 4], col: [f64; 4]| {
        f.rect(
            r[0] as f32,
            r[1] as f32,
            r[2] as f32,
            r[3] as f32,
            0.5,
            f32s(col),
        )
    };
    let base = f.pipeline(&Pipe::default(), rp)?;
    let flat_vb = f.buffer(
        vk::BufferUsageFlags::VERTEX_BUFFER,
        &bytes_of(&rect(f, [0, 16, 64, 40], flat)),
    )?;
    let mut draws = Vec::new();
    for (op, r) in ops {
        let p = f.pipeline(
            &Pipe {
                logic_op: Some(op),
                ..Pipe::default()
            },
            rp,
        )?;
        let vb = f.buffer(
            vk::BufferUsageFlags::VERTEX_BUFFER,
            &bytes_of(&rect(f, r, src)),
        )?;
        draws.push((p, vb));
    }
    let clear = [vk::ClearValue {
        color: s.clear_value(bg),
    }];
    f.submit(|cb| {
        f.begin(cb, rp, fb, &clear);
        f.draw(cb, base, flat_vb, 6);
        for &(p, vb) in &draws {
            f.draw(cb, p, vb, 6);
        }
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let mut m = Model::new(s, w, h, bg);
    m.rect([0, 16, 64, 40], |_| (flat, true));
    for (op, r) in ops {
        m.rect(r, |d| {
            let v = std::array::from_fn(|c| {
                if !s.has(c) {
                    return d[c];
                }
                let (sc, dc) = (s.code(c, src[c]) as u32, s.code(c, d[c]) as u32);
                let code = match op {
                    vk::LogicOp::XOR => sc ^ dc,
                    vk::LogicOp::INVERT => !dc,
                    _ => sc | dc,
                } & s.max(c) as u32;
                s.value(c, f64::from(code))
            });
            (v, true)
        });
    }
    let got = read(f, &s, "color", img, vk::ImageLayout::TRANSFER_SRC_OPTIMAL)?;
    m.outs(got)
}

/// A 4x triangle over a cleared background, resolved by the render pass.
fn resolve_scene(f: &mut Frame, format: vk::Format) -> R<Vec<Out>> {
    let s = spec(format);
    let (w, h) = (f.w, f.h);
    let x4 = vk::SampleCountFlags::TYPE_4;
    let (_ms, ms_view) = f.target(format, vk::ImageUsageFlags::empty(), x4)?;
    let (res, res_view) = f.target(
        format,
        vk::ImageUsageFlags::empty(),
        vk::SampleCountFlags::TYPE_1,
    )?;
    let rp = pass(f, &s, x4, false, true)?;
    let fb = f.framebuffer(rp, &[ms_view, res_view])?;
    let bg = s.colour(BG);
    let col = s.colour(FLAT);
    let p = [[3.0, 5.0], [61.0, 17.25], [19.5, 62.0]];
    let verts: Vec<V> = p
        .iter()
        .map(|q| f.v(q[0] as f32, q[1] as f32, 0.5, f32s(col)))
        .collect();
    let pipe = f.pipeline(
        &Pipe {
            samples: x4,
            ..Pipe::default()
        },
        rp,
    )?;
    let vb = f.buffer(vk::BufferUsageFlags::VERTEX_BUFFER, &bytes_of(&verts))?;
    let clears = [
        vk::ClearValue {
            color: s.clear_value(bg),
        },
        vk::ClearValue {
            color: s.clear_value(bg),
        },
    ];
    f.submit(|cb| {
        f.begin(cb, rp, fb, &clears);
        f.draw(cb, pipe, vb, 3);
        // SAFETY: recording, inside the pass begun above.
        unsafe { f.d.cmd_end_render_pass(cb) };
    })?;
    let mut m = Model::new(s, w, h, bg);
    for y in 0..h {
        for x in 0..w {
            let mut sum = [0.0; 4];
            let mut covered = 0;
            let i = m.idx(x, y);
            for q in SAMPLES_4X {
                let c = match cover(&p, [f64::from(x) + q[0], f64::from(y) + q[1]]) {
                    Cover::In(_) => {
                        covered += 1;
                        col
                    }
                    Cover::Out => bg,
                    Cover::Edge => {
                        m.known[i] = false;
                        bg
                    }
                };
                for k in 0..4 {
                    sum[k] += c[k] / 4.0;
                }
            }
            m.px[i] = s.quant(sum);
            // All samples alike: the stored colour itself; otherwise an average to round.
            m.exact[i] = covered == 0 || covered == 4;
        }
    }
    let got = read(
        f,
        &s,
        "resolved",
        res,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    )?;
    m.outs(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ufloat_codes() {
        // 1.0 is exponent 15, mantissa 0; the largest 11-bit float is 65024.
        assert_eq!(ufloat_code(1.0, 6), f64::from(15 << 6));
        assert_eq!(ufloat_value(f64::from(30 << 6 | 63), 6), 65024.0);
        assert_eq!(ufloat_code(0.5 + 1.0 / 256.0, 6), f64::from(14 << 6 | 1));
        assert_eq!(ufloat_code(-1.0, 5), 0.0);
        // The smallest denormal of the 10-bit float: 2^-19.
        assert_eq!(ufloat_code(2f64.powi(-19), 5), 1.0);
        assert_eq!(ufloat_value(1.0, 5), 2f64.powi(-19));
    }
}
