//! A tile's depth and stencil storage, and its load and store through the ZLS images.

use super::depth::{DepthFormat, DepthState};
use super::stencil::Facing;
use super::test_unit::{test_sample, ZsState};
use super::IspError;
use crate::raster::bin::TILE_SIZE;
use crate::GpuMemory;
use hw::g13::layout::Layout;

/// Where a depth or stencil image lives: its base address, its layout, and the layer the
/// render targets. Level 0 is the only level a render attaches.
#[derive(Debug, Clone, Copy)]
pub struct ZsImage<'a> {
    pub base: u64,
    pub layout: &'a Layout,
    pub layer: u32,
}

/// Depth and stencil values of one 32x32-pixel tile, every sample of every pixel.
#[derive(Debug, Clone, PartialEq)]
pub struct ZsTile {
    samples: u32,
    depth: Option<(DepthFormat, Vec<u32>)>,
    stencil: Option<Vec<u8>>,
}

impl ZsTile {
    /// A tile with the planes the render has; values start at zero.
    pub fn new(
        samples: u32,
        depth: Option<DepthFormat>,
        stencil: bool,
    ) -> Result<ZsTile, IspError> {
        if !matches!(samples, 1 | 2 | 4) {
            return Err(IspError::SampleCount(samples));
        }
        let n = (TILE_SIZE * TILE_SIZE * samples) as usize;
        Ok(ZsTile {
            samples,
            depth: depth.map(|f| (f, vec![0; n])),
            stencil: stencil.then(|| vec![0; n]),
        })
    }

    pub fn samples(&self) -> u32 {
        self.samples
    }

    pub fn depth_format(&self) -> Option<DepthFormat> {
        self.depth.as_ref().map(|(f, _)| *f)
    }

    pub fn has_stencil(&self) -> bool {
        self.stencil.is_some()
    }

    /// Index of sample `s` of tile-relative pixel (`x`, `y`).
    fn index(&self, x: u32, y: u32, sample: u32) -> Result<usize, IspError> {
        if x >= TILE_SIZE || y >= TILE_SIZE || sample >= self.samples {
            return Err(IspError::OutsideTile { x, y, sample });
        }
        Ok(((y * TILE_SIZE + x) * self.samples + sample) as usize)
    }

    /// The stored depth word (unorm code or float bits) of a sample.
    pub fn depth_raw(&self, x: u32, y: u32, sample: u32) -> Result<u32, IspError> {
        let i = self.index(x, y, sample)?;
        let (_, d) = self.depth.as_ref().ok_or(IspError::NoPlane("depth"))?;
        Ok(d[i])
    }

    pub fn depth(&self, x: u32, y: u32, sample: u32) -> Result<f32, IspError> {
        let raw = self.depth_raw(x, y, sample)?;
        let f = self.depth_format().ok_or(IspError::NoPlane("depth"))?;
        Ok(f.decode(raw))
    }

    pub fn stencil(&self, x: u32, y: u32, sample: u32) -> Result<u8, IspError> {
        let i = self.index(x, y, sample)?;
        let s = self.stencil.as_ref().ok_or(IspError::NoPlane("stencil"))?;
        Ok(s[i])
    }

    pub fn set_depth_raw(&mut self, x: u32, y: u32, sample: u32, raw: u32) -> Result<(), IspError> {
        let i = self.index(x, y, sample)?;
        let (_, d) = self.depth.as_mut().ok_or(IspError::NoPlane("depth"))?;
        d[i] = raw;
        Ok(())
    }

    pub fn set_stencil(&mut self, x: u32, y: u32, sample: u32, v: u8) -> Result<(), IspError> {
        let i = self.index(x, y, sample)?;
        let s = self.stencil.as_mut().ok_or(IspError::NoPlane("stencil"))?;
        s[i] = v;
        Ok(())
    }

    /// Fill the depth plane with a stored word (what the background clear writes).
    pub fn clear_depth_raw(&mut self, raw: u32) -> Result<(), IspError> {
        let (_, d) = self.depth.as_mut().ok_or(IspError::NoPlane("depth"))?;
        d.fill(raw);
        Ok(())
    }

    /// Fill the depth plane with depth `z`, converted to the plane's format.
    pub fn clear_depth(&mut self, z: f32) -> Result<(), IspError> {
        let f = self.depth_format().ok_or(IspError::NoPlane("depth"))?;
        self.clear_depth_raw(f.encode(z))
    }

    pub fn clear_stencil(&mut self, v: u8) -> Result<(), IspError> {
        let s = self.stencil.as_mut().ok_or(IspError::NoPlane("stencil"))?;
        s.fill(v);
        Ok(())
    }

    /// The tester of single-sample pixels with no stencil test, when this tile and `state`
    /// are that: [`test_sample`]'s depth test without its walk over the stencil cases.
    pub fn depth_only<'a>(&'a mut self, state: &'a ZsState) -> Option<DepthOnly<'a>> {
        if self.samples != 1 || (state.stencil.test_enable && self.stencil.is_some()) {
            return None;
        }
        let d = &state.depth;
        Some(DepthOnly {
            plane: self
                .depth
                .as_mut()
                .filter(|_| d.test_enable)
                .map(|(f, v)| (*f, v.as_mut_slice())),
            state: d,
        })
    }

    /// One covered sample through the depth/stencil unit; see [`test_sample`].
    pub fn test(
        &mut self,
        state: &ZsState,
        facing: Facing,
        (x, y, sample): (u32, u32, u32),
        z: f32,
    ) -> Result<bool, IspError> {
        let i = self.index(x, y, sample)?;
        let depth = self.depth.as_mut().map(|(f, d)| (*f, &mut d[i]));
        let stencil = self.stencil.as_mut().map(|s| &mut s[i]);
        Ok(test_sample(state, facing, z, depth, stencil))
    }

    /// Load the depth plane of the tile whose top-left pixel is `origin` from `image`.
    /// Pixels outside the image keep their values.
    pub fn load_depth(
        &mut self,
        mem: &dyn GpuMemory,
        image: &ZsImage,
        origin: (u32, u32),
    ) -> Result<(), IspError> {
        let samples = self.samples;
        let (format, plane) = self.depth.as_mut().ok_or(IspError::NoPlane("depth"))?;
        let format = *format;
        let bpp = format.bytes() as usize;
        let whole = load_span(mem, image, origin, samples, bpp as u32, |index, b| {
            for (s, b) in b.chunks_exact(bpp).enumerate() {
                plane[index + s] = format.read_le(b);
            }
        });
        if whole {
            return Ok(());
        }
        let mut buf = Vec::new();
        for_each_pixel(image, origin, samples, bpp as u32, |index, addr, n| {
            buf.resize(n, 0);
            mem.read(addr, &mut buf)?;
            for (s, b) in buf.chunks_exact(bpp).enumerate() {
                plane[index + s] = format.read_le(b);
            }
            Ok(())
        })
    }

    /// Store the depth plane to `image`; pixels outside the image are not written.
    pub fn store_depth(
        &self,
        mem: &mut dyn GpuMemory,
        image: &ZsImage,
        origin: (u32, u32),
    ) -> Result<(), IspError> {
        let (format, plane) = self.depth.as_ref().ok_or(IspError::NoPlane("depth"))?;
        let bpp = format.bytes() as usize;
        let whole = store_span(mem, image, origin, self.samples, bpp as u32, |index, b| {
            for (s, b) in b.chunks_exact_mut(bpp).enumerate() {
                format.write_le(plane[index + s], b);
            }
        });
        if whole {
            return Ok(());
        }
        let mut buf = Vec::new();
        for_each_pixel(image, origin, self.samples, bpp as u32, |index, addr, n| {
            buf.resize(n, 0);
            for (s, b) in buf.chunks_exact_mut(bpp).enumerate() {
                format.write_le(plane[index + s], b);
            }
            mem.write(addr, &buf)?;
            Ok(())
        })
    }

    pub fn load_stencil(
        &mut self,
        mem: &dyn GpuMemory,
        image: &ZsImage,
        origin: (u32, u32),
    ) -> Result<(), IspError> {
        let samples = self.samples;
        let plane = self.stencil.as_mut().ok_or(IspError::NoPlane("stencil"))?;
        if load_span(mem, image, origin, samples, 1, |index, b| {
            plane[index..index + b.len()].copy_from_slice(b)
        }) {
            return Ok(());
        }
        for_each_pixel(image, origin, samples, 1, |index, addr, n| {
            mem.read(addr, &mut plane[index..index + n])?;
            Ok(())
        })
    }

    pub fn store_stencil(
        &self,
        mem: &mut dyn GpuMemory,
        image: &ZsImage,
        origin: (u32, u32),
    ) -> Result<(), IspError> {
        let plane = self.stencil.as_ref().ok_or(IspError::NoPlane("stencil"))?;
        if store_span(mem, image, origin, self.samples, 1, |index, b| {
            b.copy_from_slice(&plane[index..index + b.len()])
        }) {
            return Ok(());
        }
        for_each_pixel(image, origin, self.samples, 1, |index, addr, n| {
            mem.write(addr, &plane[index..index + n])?;
            Ok(())
        })
    }
}

/// The pixels of a tile whose records exactly fill one address range, with no gap and no
/// overlap (a twiddled image whose tiles line up with the ZLS tile): the range, and each
/// pixel's first sample index in the tile with its record's offset in the range.
struct Span {
    start: u64,
    len: usize,
    pixels: Vec<(usize, usize)>,
}

/// The tile as one [`Span`], or `None` when its records are not one range (or an address
/// fails, which the per-pixel path then reports).
fn span(image: &ZsImage, origin: (u32, u32), samples: u32, bytes_per_sample: u32) -> Option<Span> {
    let n = (bytes_per_sample * samples) as usize;
    let mut at = Vec::with_capacity((TILE_SIZE * TILE_SIZE) as usize);
    for_each_pixel(
        image,
        origin,
        samples,
        bytes_per_sample,
        |index, addr, _| {
            at.push((index, addr));
            Ok(())
        },
    )
    .ok()?;
    let start = at.iter().map(|p| p.1).min()?;
    let end = at.iter().map(|p| p.1).max()?;
    let len = usize::try_from(end - start).ok()?.checked_add(n)?;
    if len != at.len() * n {
        return None;
    }
    let mut seen = vec![false; at.len()];
    let mut pixels = Vec::with_capacity(at.len());
    for (index, addr) in at {
        let off = (addr - start) as usize;
        if !off.is_multiple_of(n) || std::mem::replace(&mut seen[off / n], true) {
            return None;
        }
        pixels.push((index, off));
    }
    Some(Span { start, len, pixels })
}

// A ZLS load or store of a tile is a thousand pixels, and each access of the address space
// looks its mapping up; when the tile is one range, one access moves all of it. If that
// access (or the span) fails, the caller runs the per-pixel path, which reports the same
// fault as before. A store that fails part way may have written more of the faulting tile
// than the per-pixel order would have; the render faults either way.

/// Loads the tile in one read and calls `put(first sample index, record bytes)` per pixel.
/// Returns false, having called nothing, when the tile is not one range or the read fails.
fn load_span(
    mem: &dyn GpuMemory,
    image: &ZsImage,
    origin: (u32, u32),
    samples: u32,
    bytes_per_sample: u32,
    mut put: impl FnMut(usize, &[u8]),
) -> bool {
    let Some(span) = span(image, origin, samples, bytes_per_sample) else {
        return false;
    };
    let mut buf = vec![0u8; span.len];
    if mem.read(span.start, &mut buf).is_err() {
        return false;
    }
    let n = (bytes_per_sample * samples) as usize;
    for &(index, off) in &span.pixels {
        put(index, &buf[off..off + n]);
    }
    true
}

/// Fills each pixel's record with `get(first sample index, record bytes)` and stores the
/// tile in one write. Returns false when the tile is not one range or the write fails.
fn store_span(
    mem: &mut dyn GpuMemory,
    image: &ZsImage,
    origin: (u32, u32),
    samples: u32,
    bytes_per_sample: u32,
    mut get: impl FnMut(usize, &mut [u8]),
) -> bool {
    let Some(span) = span(image, origin, samples, bytes_per_sample) else {
        return false;
    };
    let mut buf = vec![0u8; span.len];
    let n = (bytes_per_sample * samples) as usize;
    for &(index, off) in &span.pixels {
        get(index, &mut buf[off..off + n]);
    }
    mem.write(span.start, &buf).is_ok()
}

/// Calls `f(first sample index in the tile, address, bytes)` for every pixel of the tile at
/// `origin` that lies inside the image. All samples of a pixel are contiguous in both
/// layouts (linear images have one), so each pixel is one access.
fn for_each_pixel(
    image: &ZsImage,
    origin: (u32, u32),
    samples: u32,
    bytes_per_sample: u32,
    mut f: impl FnMut(usize, u64, usize) -> Result<(), IspError>,
) -> Result<(), IspError> {
    let l = image.layout;
    if l.bytes_per_block != bytes_per_sample {
        return Err(IspError::ImageMismatch(format!(
            "{} bytes per sample in the image, {bytes_per_sample} in the tile",
            l.bytes_per_block
        )));
    }
    if l.samples != samples {
        return Err(IspError::ImageMismatch(format!(
            "{} samples in the image, {samples} in the tile",
            l.samples
        )));
    }
    if origin.0 >= l.width || origin.1 >= l.height {
        return Err(IspError::ImageMismatch(format!(
            "tile origin {origin:?} outside the {}x{} image",
            l.width, l.height
        )));
    }
    let w = TILE_SIZE.min(l.width - origin.0);
    let h = TILE_SIZE.min(l.height - origin.1);
    let n = (bytes_per_sample * samples) as usize;
    for y in 0..h {
        for x in 0..w {
            let off = l
                .offset_of(origin.0 + x, origin.1 + y, image.layer, 0, 0)
                .map_err(|e| IspError::ImageMismatch(e.to_string()))?;
            let addr = image.base.checked_add(off).ok_or_else(|| {
                IspError::ImageMismatch(format!(
                    "image at {:#x} wraps the address space",
                    image.base
                ))
            })?;
            f(((y * TILE_SIZE + x) * samples) as usize, addr, n)?;
        }
    }
    Ok(())
}

/// See [`ZsTile::depth_only`].
pub struct DepthOnly<'a> {
    /// The depth plane when the depth test is on.
    plane: Option<(DepthFormat, &'a mut [u32])>,
    state: &'a DepthState,
}

impl DepthOnly<'_> {
    /// [`ZsTile::test`] of tile-relative pixel (`x`, `y`) at depth `z`.
    #[inline]
    pub fn test(&mut self, (x, y): (u32, u32), z: f32) -> Result<bool, IspError> {
        if x >= TILE_SIZE || y >= TILE_SIZE {
            return Err(IspError::OutsideTile { x, y, sample: 0 });
        }
        let Some((format, plane)) = &mut self.plane else {
            return Ok(true);
        };
        let d = self.state;
        let stored = &mut plane[(y * TILE_SIZE + x) as usize];
        let incoming = format.encode(d.clamp.map_or(z, |range| range.clamp(z)));
        let pass = format.compare(d.compare_op, incoming, *stored);
        if pass && d.write_enable {
            *stored = incoming;
        }
        Ok(pass)
    }
}
