//! Window-system integration: surfaces (VK_KHR_surface and its platform extensions) and
//! swapchains (VK_KHR_swapchain).
//!
//! Swapchain images are ordinary agx4 images with driver-owned memory. Presenting hands an
//! image to a per-swapchain presenter thread, which waits for the GPU work the present waits
//! for, paces the images by the present mode, and gives the image to the surface's back end
//! ([`Backend`]). The back ends today copy the pixels into the window system's shared memory
//! (X11: MIT-SHM, else PutImage); on real hardware a back end would instead hand over the
//! images' memory as dma-bufs (see [`Backend`]).
//!
//! The loader owns the `VkSurfaceKHR` the application sees; with loader interface version 3 or
//! later (agx4 speaks 5) it asks agx4 for its own surface object and passes that one to every
//! surface and swapchain command, so [`surface::Surface`] is an ordinary agx4 object.

pub mod headless;
pub mod surface;
pub mod swapchain;
pub mod wayland;
pub mod x11;

use ash::vk;
use hw::g13::layout::Layout;

/// How the window system wants a pixel: a 32-bit word whose channels sit at these shifts,
/// stored little- or big-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelFormat {
    pub red_shift: u32,
    pub green_shift: u32,
    pub blue_shift: u32,
    /// Bits set in every pixel (an opaque alpha channel for 32-bit-deep windows).
    pub opaque_bits: u32,
    pub big_endian: bool,
}

/// One swapchain image as a back end sees it: where its pixels are and how they are laid out.
pub struct PresentImage<'a> {
    /// The image's memory, read into host memory by the presenter.
    pub bytes: &'a [u8],
    pub layout: &'a Layout,
    /// Whether the image's bytes are R, G, B, A (else B, G, R, A).
    pub rgba: bool,
    /// What changed since the last present (VK_KHR_incremental_present); empty: all of it.
    pub damage: &'a [vk::Rect2D],
}

/// The damage rectangles clipped to `extent`, empty ones dropped. Empty when the whole image
/// counts as changed (no rectangles given, or none left inside the image: the application
/// said nothing usable, so showing everything is the safe reading).
pub fn clip_damage(rects: &[vk::Rect2D], extent: vk::Extent2D) -> Vec<vk::Rect2D> {
    rects
        .iter()
        .filter_map(|r| {
            let x0 = r.offset.x.max(0) as u32;
            let y0 = r.offset.y.max(0) as u32;
            let x1 = (i64::from(r.offset.x) + i64::from(r.extent.width))
                .clamp(0, i64::from(extent.width)) as u32;
            let y1 = (i64::from(r.offset.y) + i64::from(r.extent.height))
                .clamp(0, i64::from(extent.height)) as u32;
            // Lazily: the extents underflow for rectangles outside the image.
            (x1 > x0 && y1 > y0).then(|| vk::Rect2D {
                offset: vk::Offset2D {
                    x: x0 as i32,
                    y: y0 as i32,
                },
                extent: vk::Extent2D {
                    width: x1 - x0,
                    height: y1 - y0,
                },
            })
        })
        .collect()
}

/// The smallest rectangle holding all of `rects` (which are non-empty).
pub fn bounding_box(rects: &[vk::Rect2D]) -> Option<vk::Rect2D> {
    let x0 = rects.iter().map(|r| r.offset.x).min()?;
    let y0 = rects.iter().map(|r| r.offset.y).min()?;
    let x1 = rects
        .iter()
        .map(|r| r.offset.x + r.extent.width as i32)
        .max()?;
    let y1 = rects
        .iter()
        .map(|r| r.offset.y + r.extent.height as i32)
        .max()?;
    Some(vk::Rect2D {
        offset: vk::Offset2D { x: x0, y: y0 },
        extent: vk::Extent2D {
            width: (x1 - x0) as u32,
            height: (y1 - y0) as u32,
        },
    })
}

/// What a surface's window system does with presented images.
///
/// The copy back ends implement [`Backend::show`]: the presenter thread gives them the pixels
/// of an image whose GPU work is done, and the image is free again when `show` returns. A
/// dma-buf back end (DRI3/Present on X11, zwp_linux_dmabuf_v1 on Wayland) would be another
/// implementation: it would import each swapchain image once, at swapchain creation, from a
/// dma-buf exported from the image's GEM object (a PRIME export the `Kmd` interface would
/// grow) with the DRM format modifier of the image's layout, present by handle, and report
/// the image free only when the compositor releases it (PresentIdleNotify, wl_buffer.release),
/// so `show` would become "present image i" and the free list would be fed by those events.
/// Nothing above the back end (acquire, pacing, status) changes.
pub trait Backend: Send {
    /// Shows the image; an error is the surface's new status (SURFACE_LOST, OUT_OF_DATE).
    fn show(&mut self, image: &PresentImage<'_>) -> Result<(), vk::Result>;

    /// Whether `show` looks at the pixels (else the presenter does not read the image).
    fn wants_pixels(&self) -> bool {
        true
    }
}

/// Signals binary syncobjs (acquire's semaphore and fence) from the host: the image they
/// stand for is already free when acquire returns.
pub fn signal_binary(kmd: &dyn kmd_iface::Kmd, handles: &[u32]) -> Result<(), vk::Result> {
    if handles.is_empty() {
        return Ok(());
    }
    let args = kmd_iface::uapi::drm_syncobj_array {
        handles: handles.as_ptr() as u64,
        count_handles: handles.len() as u32,
        pad: 0,
    };
    // SAFETY: `handles` holds count_handles u32 values and outlives the call.
    unsafe { kmd.syncobj_signal(&args) }.map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)
}

/// The low 16 bits of `x` spread to the even bit positions (Morton order), as the twiddled
/// layout numbers the elements of a tile (hw::g13::layout).
fn spread(x: u32) -> usize {
    let mut v = (x & 0xffff) as usize;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    v = (v | (v << 1)) & 0x5555_5555;
    v
}

/// Copies level 0, layer 0 of a 4-byte-per-pixel, single-sample image (linear or twiddled)
/// into `dst` as rows of `width * 4` bytes in the window system's pixel format. Only the
/// `width` x `height` rectangle at the origin is copied (clipped to the image). This is the
/// address rule of `Layout::offset_of`, with the per-row and per-column parts hoisted.
pub fn detile(image: &PresentImage<'_>, fmt: PixelFormat, dst: &mut [u8], width: u32, height: u32) {
    let all = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D { width, height },
    };
    detile_rect(image, fmt, dst, width, all)
}

/// [`detile`] of only the pixels of `rect` (at non-negative offsets), written at the same
/// place of `dst`, whose rows are `width * 4` bytes.
pub fn detile_rect(
    image: &PresentImage<'_>,
    fmt: PixelFormat,
    dst: &mut [u8],
    width: u32,
    rect: vk::Rect2D,
) {
    let l = image.layout;
    let (x0, y0) = (rect.offset.x.max(0) as u32, rect.offset.y.max(0) as u32);
    let w = (x0 + rect.extent.width).min(width).min(l.width);
    let h = (y0 + rect.extent.height).min(l.height);
    let base = l.level_offsets.first().copied().unwrap_or(0) as usize;
    let src = image.bytes;
    let stride = width as usize * 4;
    if x0 >= w {
        return;
    }
    let (red_at, blue_at) = if image.rgba { (0, 16) } else { (16, 0) };
    // The pixels of a B, G, R, A image already are an X8R8G8B8 little-endian word.
    let same =
        !fmt.big_endian && (red_at, 8, blue_at) == (fmt.red_shift, fmt.green_shift, fmt.blue_shift);
    // A pixel's four bytes, read as a little-endian word, in the window system's format.
    let convert = |p: u32| -> [u8; 4] {
        if same {
            return (p & 0x00ff_ffff | fmt.opaque_bits).to_le_bytes();
        }
        let v = ((p >> red_at) & 0xff) << fmt.red_shift
            | ((p >> 8) & 0xff) << fmt.green_shift
            | ((p >> blue_at) & 0xff) << fmt.blue_shift
            | fmt.opaque_bits;
        if fmt.big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let span = (w - x0) as usize * 4;
    match l.tiling {
        hw::g13::layout::Tiling::Linear { .. } => {
            for y in y0 as usize..h as usize {
                let s = base + y * l.linear_stride as usize + x0 as usize * 4;
                let d = y * stride + x0 as usize * 4;
                let (Some(from), Some(to)) = (src.get(s..s + span), dst.get_mut(d..d + span))
                else {
                    return;
                };
                for (o, p) in to.chunks_exact_mut(4).zip(from.chunks_exact(4)) {
                    o.copy_from_slice(&convert(word(p)));
                }
            }
        }
        hw::g13::layout::Tiling::Twiddled => {
            let Some(t) = l.tiles.first() else { return };
            let per_row = l
                .stride_el
                .first()
                .copied()
                .unwrap_or(l.width)
                .div_ceil(t.width) as usize;
            let tile_bytes = (t.width * t.height) as usize * 4;
            // Tiles are powers of two (`Layout`): shifts and masks, not a division per pixel.
            debug_assert!(t.width.is_power_of_two() && t.height.is_power_of_two());
            let (tw, th) = (t.width.trailing_zeros(), t.height.trailing_zeros());
            // The byte offset of each column inside a tile, for row 0.
            let columns: Vec<usize> = (0..t.width).map(|x| spread(x) * 4).collect();
            for y in y0..h {
                let tile_row = (y >> th) as usize * per_row;
                let inner_y = (spread(y & (t.height - 1)) << 1) * 4;
                let d = y as usize * stride + x0 as usize * 4;
                let Some(mut to) = dst.get_mut(d..d + span) else {
                    return;
                };
                // One tile's part of the row at a time.
                let mut x = x0;
                while x < w {
                    let end = (((x >> tw) + 1) << tw).min(w);
                    let s = base + (tile_row + (x >> tw) as usize) * tile_bytes;
                    let Some(tile) = src.get(s..s + tile_bytes) else {
                        return;
                    };
                    let (part, rest) = to.split_at_mut((end - x) as usize * 4);
                    let cols = &columns[(x & (t.width - 1)) as usize..][..(end - x) as usize];
                    if same && x % 2 == 0 && end % 2 == 0 {
                        // Twiddling keeps the pixels of an even column and the next one
                        // side by side: two pixels are one 8-byte copy with alpha made
                        // opaque.
                        let keep = 0x00ff_ffff_00ff_ffff_u64;
                        let opaque = u64::from(fmt.opaque_bits) * 0x1_0000_0001;
                        for (o, &c) in part.chunks_exact_mut(8).zip(cols.iter().step_by(2)) {
                            let at = c | inner_y;
                            let Some(pair) = tile.get(at..at + 8) else {
                                return;
                            };
                            let mut v = [0u8; 8];
                            v.copy_from_slice(pair);
                            let v = u64::from_le_bytes(v) & keep | opaque;
                            o.copy_from_slice(&v.to_le_bytes());
                        }
                    } else {
                        for (o, &c) in part.chunks_exact_mut(4).zip(cols) {
                            let at = c | inner_y;
                            o.copy_from_slice(&convert(word(&tile[at..at + 4])));
                        }
                    }
                    to = rest;
                    x = end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hw::g13::layout::{Tiling, Usage};

    fn check(tiling: Tiling, w: u32, h: u32) {
        check_rect(tiling, w, h, [0, 0, w, h]);
    }

    /// [`detile_rect`] of `[x, y, width, height]`: the pixels inside as the layout stores
    /// them, the others untouched.
    fn check_rect(tiling: Tiling, w: u32, h: u32, [rx, ry, rw, rh]: [u32; 4]) {
        let layout = Layout::with_usage(w, h, 1, 1, 4, tiling, 1, Usage::default()).unwrap();
        // Every pixel's bytes name its position, stored where offset_of says.
        let mut bytes = vec![0u8; layout.size as usize];
        for y in 0..h {
            for x in 0..w {
                let o = layout.offset_of(x, y, 0, 0, 0).unwrap() as usize;
                bytes[o..o + 4].copy_from_slice(&[x as u8, y as u8, (x >> 8) as u8, 0x7f]);
            }
        }
        let fmt = PixelFormat {
            red_shift: 16,
            green_shift: 8,
            blue_shift: 0,
            opaque_bits: 0,
            big_endian: false,
        };
        let img = PresentImage {
            bytes: &bytes,
            layout: &layout,
            rgba: false,
            damage: &[],
        };
        let mut out = vec![0xeeu8; (w * h * 4) as usize];
        let rect = vk::Rect2D {
            offset: vk::Offset2D {
                x: rx as i32,
                y: ry as i32,
            },
            extent: vk::Extent2D {
                width: rw,
                height: rh,
            },
        };
        detile_rect(&img, fmt, &mut out, w, rect);
        for y in 0..h {
            for x in 0..w {
                let d = ((y * w + x) * 4) as usize;
                let inside = (rx..rx + rw).contains(&x) && (ry..ry + rh).contains(&y);
                // B, G, R in the image's bytes; the window's word is R<<16 | G<<8 | B.
                let want = if inside {
                    [x as u8, y as u8, (x >> 8) as u8, 0]
                } else {
                    [0xee; 4]
                };
                assert_eq!(&out[d..d + 4], &want, "pixel {x},{y}");
            }
        }
    }

    #[test]
    fn detile_rect_from_odd_and_even_columns_matches_the_layout() {
        for rect in [
            [5, 3, 27, 9],
            [6, 0, 64, 70],
            [31, 1, 2, 2],
            [199, 69, 1, 1],
        ] {
            check_rect(Tiling::Twiddled, 200, 70, rect);
        }
    }

    #[test]
    fn detile_matches_the_layout() {
        check(Tiling::Twiddled, 200, 70);
        check(Tiling::Twiddled, 64, 64);
        check(Tiling::Twiddled, 1, 1);
        check(Tiling::Linear { stride: None }, 33, 5);
    }

    #[test]
    fn detile_rect_writes_only_the_rectangle() {
        let (w, h) = (40u32, 20u32);
        let layout =
            Layout::with_usage(w, h, 1, 1, 4, Tiling::Twiddled, 1, Usage::default()).unwrap();
        let bytes = vec![0xffu8; layout.size as usize];
        let img = PresentImage {
            bytes: &bytes,
            layout: &layout,
            rgba: false,
            damage: &[],
        };
        let fmt = PixelFormat {
            red_shift: 16,
            green_shift: 8,
            blue_shift: 0,
            opaque_bits: 0,
            big_endian: false,
        };
        let rect = vk::Rect2D {
            offset: vk::Offset2D { x: 5, y: 3 },
            extent: vk::Extent2D {
                width: 10,
                height: 4,
            },
        };
        let mut out = vec![0u8; (w * h * 4) as usize];
        detile_rect(&img, fmt, &mut out, w, rect);
        for y in 0..h {
            for x in 0..w {
                let inside = (5..15).contains(&x) && (3..7).contains(&y);
                let d = ((y * w + x) * 4) as usize;
                assert_eq!(out[d] != 0, inside, "pixel {x},{y}");
            }
        }
    }

    #[test]
    fn damage_is_clipped_and_bounded() {
        let r = |x, y, w, h| vk::Rect2D {
            offset: vk::Offset2D { x, y },
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        };
        let extent = vk::Extent2D {
            width: 100,
            height: 50,
        };
        let clipped = clip_damage(
            &[
                r(-10, -10, 20, 20),
                r(90, 40, 50, 50),
                r(200, 0, 5, 5),
                r(1, 1, 0, 9),
            ],
            extent,
        );
        assert_eq!(clipped, vec![r(0, 0, 10, 10), r(90, 40, 10, 10)]);
        assert_eq!(bounding_box(&clipped), Some(r(0, 0, 100, 50)));
        assert_eq!(bounding_box(&[]), None);
    }

    #[test]
    fn detile_converts_channel_order() {
        let layout =
            Layout::with_usage(1, 1, 1, 1, 4, Tiling::Twiddled, 1, Usage::default()).unwrap();
        let bytes = vec![1u8, 2, 3, 4];
        let img = PresentImage {
            bytes: &bytes,
            layout: &layout,
            rgba: true,
            damage: &[],
        };
        let fmt = PixelFormat {
            red_shift: 0,
            green_shift: 8,
            blue_shift: 16,
            opaque_bits: 0xff00_0000,
            big_endian: true,
        };
        let mut out = [0u8; 4];
        detile(&img, fmt, &mut out, 1, 1);
        assert_eq!(out, [0xff, 3, 2, 1]);
    }
}
