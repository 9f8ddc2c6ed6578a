//! Read-back images: texels decoded to numbers in the format's own units (integer codes for
//! UNORM/SNORM/UINT/SINT channels, values for float channels), comparison with a stated
//! tolerance, and PPM output for looking at failures.

use ash::vk;
use std::path::Path;

/// How to decode the bytes of one texel into four channels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fmt {
    pub vk: vk::Format,
    pub bytes: usize,
    pub channels: usize,
    /// Scale from channel units to 0..=255 for PPM output.
    pub to_255: f64,
}

pub fn fmt(f: vk::Format) -> Fmt {
    use vk::Format as F;
    let (bytes, channels, to_255) = match f {
        F::R8G8B8A8_UNORM | F::B8G8R8A8_UNORM | F::R8G8B8A8_SRGB | F::R8G8B8A8_UINT => (4, 4, 1.0),
        F::R8_UNORM | F::S8_UINT => (1, 1, 1.0),
        F::R16G16B16A16_SFLOAT => (8, 4, 255.0),
        F::R32G32B32A32_UINT => (16, 4, 1.0),
        F::R32G32B32A32_SFLOAT => (16, 4, 255.0),
        F::R32_UINT => (4, 1, 1.0),
        F::R32_SFLOAT | F::D32_SFLOAT => (4, 1, 255.0),
        F::A2B10G10R10_UNORM_PACK32 => (4, 4, 255.0 / 1023.0),
        F::R5G6B5_UNORM_PACK16 => (2, 3, 255.0 / 31.0),
        _ => (4, 4, 1.0),
    };
    Fmt {
        vk: f,
        bytes,
        channels,
        to_255,
    }
}

fn half(h: u16) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    s * match e {
        0 => m * 2f64.powi(-24),
        31 => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

impl Fmt {
    pub fn decode(&self, b: &[u8]) -> [f64; 4] {
        use vk::Format as F;
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        match self.vk {
            F::B8G8R8A8_UNORM => [b[2] as f64, b[1] as f64, b[0] as f64, b[3] as f64],
            F::R8_UNORM | F::S8_UINT => [b[0] as f64, 0.0, 0.0, 0.0],
            F::R16G16B16A16_SFLOAT => {
                let h = |i: usize| half(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]));
                [h(0), h(1), h(2), h(3)]
            }
            F::R32G32B32A32_UINT => [
                u32_at(0) as f64,
                u32_at(4) as f64,
                u32_at(8) as f64,
                u32_at(12) as f64,
            ],
            F::R32G32B32A32_SFLOAT => {
                let f = |i: usize| f32::from_bits(u32_at(4 * i)) as f64;
                [f(0), f(1), f(2), f(3)]
            }
            F::R32_UINT => [u32_at(0) as f64, 0.0, 0.0, 0.0],
            F::R32_SFLOAT | F::D32_SFLOAT => [f32::from_bits(u32_at(0)) as f64, 0.0, 0.0, 0.0],
            F::A2B10G10R10_UNORM_PACK32 => {
                let v = u32_at(0);
                [
                    (v & 0x3ff) as f64,
                    ((v >> 10) & 0x3ff) as f64,
                    ((v >> 20) & 0x3ff) as f64,
                    (v >> 30) as f64,
                ]
            }
            F::R5G6B5_UNORM_PACK16 => {
                let v = u16::from_le_bytes([b[0], b[1]]);
                [
                    (v >> 11) as f64,
                    ((v >> 5) & 0x3f) as f64,
                    (v & 0x1f) as f64,
                    0.0,
                ]
            }
            _ => [b[0] as f64, b[1] as f64, b[2] as f64, b[3] as f64],
        }
    }
}

/// One image of a scene's output, or the expectation for it.
#[derive(Clone, Debug)]
pub struct Image {
    pub label: String,
    pub w: u32,
    pub h: u32,
    pub fmt: Fmt,
    pub px: Vec<[f64; 4]>,
    /// Pixels an expectation does not constrain (a sample exactly on an edge, a line's end).
    pub dont_care: Vec<bool>,
}

impl Image {
    pub fn new(label: &str, w: u32, h: u32, format: vk::Format, fill: [f64; 4]) -> Image {
        let n = (w * h) as usize;
        Image {
            label: label.into(),
            w,
            h,
            fmt: fmt(format),
            px: vec![fill; n],
            dont_care: vec![false; n],
        }
    }

    pub fn from_bytes(label: &str, w: u32, h: u32, format: vk::Format, bytes: &[u8]) -> Image {
        let f = fmt(format);
        let px = bytes
            .chunks_exact(f.bytes)
            .take((w * h) as usize)
            .map(|t| f.decode(t))
            .collect();
        Image {
            label: label.into(),
            w,
            h,
            fmt: f,
            px,
            dont_care: vec![false; (w * h) as usize],
        }
    }

    pub fn at(&self, x: u32, y: u32) -> [f64; 4] {
        self.px[(y * self.w + x) as usize]
    }

    pub fn set(&mut self, x: u32, y: u32, v: [f64; 4]) {
        self.px[(y * self.w + x) as usize] = v;
    }

    pub fn ignore(&mut self, x: u32, y: u32) {
        self.dont_care[(y * self.w + x) as usize] = true;
    }

    /// Fills pixels x0..x1, y0..y1 (clipped to the image).
    pub fn fill(&mut self, x0: u32, y0: u32, x1: u32, y1: u32, v: [f64; 4]) {
        for y in y0..y1.min(self.h) {
            for x in x0..x1.min(self.w) {
                self.set(x, y, v);
            }
        }
    }

    /// A content hash, to tell identical renders apart from different ones cheaply.
    pub fn digest(&self) -> u64 {
        self.px
            .iter()
            .flatten()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
                (h ^ v.to_bits()).wrapping_mul(0x100_0000_01b3)
            })
    }

    /// Binary PPM (RGB; single-channel formats as grey).
    pub fn write_ppm(&self, path: &Path) -> std::io::Result<()> {
        let mut out = format!("P6\n{} {}\n255\n", self.w, self.h).into_bytes();
        for p in &self.px {
            let c = |v: f64| (v * self.fmt.to_255).round().clamp(0.0, 255.0) as u8;
            if self.fmt.channels == 1 {
                out.extend([c(p[0]); 3]);
            } else {
                out.extend([c(p[0]), c(p[1]), c(p[2])]);
            }
        }
        std::fs::write(path, out)
    }
}

/// How far two renders of a scene may differ.
#[derive(Clone, Debug)]
pub struct Tol {
    /// Per channel, in the format's units (1.0 = one code of an 8-bit UNORM channel).
    pub channel: f64,
    /// Pixels allowed to differ by more than `channel`, and why the scene allows them.
    pub pixels: usize,
    pub why: &'static str,
}

impl Tol {
    /// Bit-exact: integer formats and results with no rounding freedom.
    pub const EXACT: Tol = Tol {
        channel: 0.0,
        pixels: 0,
        why: "",
    };
    /// One code of an 8-bit UNORM channel: float-to-UNORM conversion may round either way.
    pub const UNORM8: Tol = Tol {
        channel: 1.0,
        pixels: 0,
        why: "",
    };
}

/// Compares `got` with `want` (whose don't-care pixels are skipped). Returns the mismatch and
/// a per-pixel diff image on failure.
pub fn compare(got: &Image, want: &Image, tol: &Tol) -> Result<(), (String, Box<Image>)> {
    if (got.w, got.h) != (want.w, want.h) || got.fmt.vk != want.fmt.vk {
        let d = Box::new(Image::new(
            "diff",
            got.w,
            got.h,
            vk::Format::R8G8B8A8_UNORM,
            [0.0; 4],
        ));
        return Err((
            format!(
                "{}: {}x{} {:?} vs {}x{} {:?}",
                got.label, got.w, got.h, got.fmt.vk, want.w, want.h, want.fmt.vk
            ),
            d,
        ));
    }
    let mut diff = Image::new(
        "diff",
        got.w,
        got.h,
        vk::Format::R8G8B8A8_UNORM,
        [0.0, 0.0, 0.0, 255.0],
    );
    let mut bad = Vec::new();
    for y in 0..got.h {
        for x in 0..got.w {
            let i = (y * got.w + x) as usize;
            if want.dont_care[i] {
                diff.set(x, y, [0.0, 0.0, 96.0, 255.0]);
                continue;
            }
            let (a, b) = (got.px[i], want.px[i]);
            let worst = (0..got.fmt.channels)
                .map(|c| (a[c] - b[c]).abs())
                .fold(0.0, f64::max);
            // NaN never passes.
            if worst > tol.channel || worst.is_nan() {
                bad.push((x, y, a, b));
                diff.set(x, y, [255.0, 0.0, 0.0, 255.0]);
            } else if worst > 0.0 {
                diff.set(x, y, [255.0, 255.0, 0.0, 255.0]);
            }
        }
    }
    if bad.len() <= tol.pixels {
        return Ok(());
    }
    let n = got.fmt.channels;
    let first: Vec<String> = bad
        .iter()
        .take(4)
        .map(|(x, y, a, b)| format!("({x},{y}) got {:?} want {:?}", &a[..n], &b[..n]))
        .collect();
    Err((
        format!(
            "{}: {} pixels differ by more than {} (allowed {}): {}",
            got.label,
            bad.len(),
            tol.channel,
            tol.pixels,
            first.join(", ")
        ),
        Box::new(diff),
    ))
}
