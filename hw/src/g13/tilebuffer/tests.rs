//! Expected layouts are worked out by hand from the rules in the module comment: natural
//! alignment, 64-byte samples rounded to 8, a 32767-byte tile budget checked at 16x16, and the
//! largest of 32x32 / 32x16 / 16x16 that fits.

use super::*;

const fn plain(channels: u8, bits: u8, numeric: Numeric) -> Option<ColourFormat> {
    Some(ColourFormat::Plain {
        channels,
        bits,
        numeric,
    })
}

const RGBA8: Option<ColourFormat> = plain(4, 8, Numeric::Unorm);
const RGBA16F: Option<ColourFormat> = plain(4, 16, Numeric::Float);
const RGBA32F: Option<ColourFormat> = plain(4, 32, Numeric::Float);
const R32F: Option<ColourFormat> = plain(1, 32, Numeric::Float);

fn tile(offset_bytes: u32, size_bytes: u32) -> Placement {
    Placement::Tile {
        offset_bytes,
        size_bytes,
    }
}

fn placements(l: &TilebufferLayout) -> Vec<Option<Placement>> {
    l.targets.iter().map(|t| t.map(|t| t.placement)).collect()
}

#[test]
fn one_rgba8_single_sample() {
    let l = TilebufferLayout::build(&[RGBA8], 1).unwrap();
    assert_eq!(placements(&l), [Some(tile(0, 4))]);
    assert_eq!(l.targets[0].unwrap().tib_format, TibFormat::U8Norm);
    // 4 bytes of colour, but samples are allocated in 8-byte granules.
    assert_eq!(l.sample_size_bytes, 8);
    assert_eq!(l.tile, TileSize::T32X32);
    assert_eq!(l.total_bytes(), 8 * 32 * 32);
    assert_eq!(
        l.render_params(),
        RenderTileParams {
            utile_width_px: 32,
            utile_height_px: 32,
            samples: 1,
            sample_size_bytes: 8
        }
    );
    assert_eq!(
        l.usc_shared(),
        UscSharedTile {
            layout: SharedLayout::Tile32x32,
            sample_count: 1,
            sample_stride_in_8_bytes: 1,
            bytes_per_threadgroup: 8192,
        }
    );
    assert!(l.spilled().is_empty());
}

#[test]
fn rgba8_four_samples_halves_the_tile() {
    // 8 bytes x 4 samples = 32 bytes per pixel; 32 * 1024 = 32768 is one over the budget.
    let l = TilebufferLayout::build(&[RGBA8], 4).unwrap();
    assert_eq!(l.sample_size_bytes, 8);
    assert_eq!(l.tile, TileSize::T32X16);
    assert_eq!(l.total_bytes(), 16384);
    assert_eq!(l.usc_shared().layout, SharedLayout::Tile32x16);
    assert_eq!(l.usc_shared().sample_count, 4);
}

#[test]
fn four_rgba32f_at_four_samples_spill_all_but_one() {
    // The first takes bytes 0..16: 16 * 256 px * 4 = 16384 fits. The second would end at 32:
    // 32 * 256 * 4 = 32768 > 32767, so it and every later one (same size) spill.
    let l = TilebufferLayout::build(&[RGBA32F; 4], 4).unwrap();
    assert_eq!(
        placements(&l),
        [
            Some(tile(0, 16)),
            Some(Placement::Spilled),
            Some(Placement::Spilled),
            Some(Placement::Spilled)
        ]
    );
    assert_eq!(l.spilled(), [1, 2, 3]);
    assert_eq!(l.sample_size_bytes, 16);
    // 64 bytes per pixel: 32x32 needs 65536, 32x16 needs 32768, 16x16 needs 16384.
    assert_eq!(l.tile, TileSize::T16X16);
    assert_eq!(l.total_bytes(), 16384);
    assert_eq!(l.usc_shared().sample_stride_in_8_bytes, 2);
    assert_eq!(l.usc_shared().layout, SharedLayout::Tile16x16);
}

#[test]
fn four_rgba32f_single_sample_fill_the_sample() {
    let l = TilebufferLayout::build(&[RGBA32F; 4], 1).unwrap();
    assert_eq!(
        placements(&l),
        [
            Some(tile(0, 16)),
            Some(tile(16, 16)),
            Some(tile(32, 16)),
            Some(tile(48, 16))
        ]
    );
    assert_eq!(l.sample_size_bytes, 64);
    assert_eq!(l.tile, TileSize::T16X16);
    assert_eq!(l.targets[0].unwrap().tib_format, TibFormat::I32);
}

#[test]
fn a_fifth_rgba32f_exceeds_the_sample_limit() {
    let l = TilebufferLayout::build(&[RGBA32F; 5], 1).unwrap();
    assert_eq!(l.spilled(), [4]);
    assert_eq!(l.sample_size_bytes, 64);
}

#[test]
fn alignment_pads_between_targets() {
    let r8 = plain(1, 8, Numeric::Unorm);
    let l = TilebufferLayout::build(&[r8, Some(ColourFormat::Rgb10A2Unorm)], 1).unwrap();
    assert_eq!(placements(&l), [Some(tile(0, 1)), Some(tile(4, 4))]);
    assert_eq!(l.sample_size_bytes, 8);

    let rg16s = plain(2, 16, Numeric::Snorm);
    let l = TilebufferLayout::build(&[r8, rg16s], 1).unwrap();
    assert_eq!(placements(&l), [Some(tile(0, 1)), Some(tile(2, 4))]);
    assert_eq!(l.targets[1].unwrap().tib_format, TibFormat::S16Norm);
}

#[test]
fn srgb_always_takes_a_word() {
    let l = TilebufferLayout::build(
        &[plain(1, 8, Numeric::Srgb), plain(1, 8, Numeric::Unorm)],
        1,
    )
    .unwrap();
    assert_eq!(placements(&l), [Some(tile(0, 4)), Some(tile(4, 1))]);
    assert_eq!(l.targets[0].unwrap().tib_format, TibFormat::Srgba8);
}

#[test]
fn packed_formats() {
    let r16ui = plain(1, 16, Numeric::Uint);
    let l = TilebufferLayout::build(&[Some(ColourFormat::R5G6B5Unorm), r16ui], 1).unwrap();
    // Three half floats, then a 16-bit integer right after (2-byte alignment).
    assert_eq!(placements(&l), [Some(tile(0, 6)), Some(tile(6, 2))]);
    assert_eq!(l.sample_size_bytes, 8);

    let l = TilebufferLayout::build(
        &[
            Some(ColourFormat::Rgb10A2Uint),
            Some(ColourFormat::Rg11B10Float),
            Some(ColourFormat::Rgb9E5Float),
        ],
        1,
    )
    .unwrap();
    assert_eq!(
        placements(&l),
        [Some(tile(0, 8)), Some(tile(8, 4)), Some(tile(12, 4))]
    );
    assert_eq!(l.sample_size_bytes, 16);
    assert!(!TibFormat::Rg11B10F.supports_channel_mask());
    assert!(TibFormat::F16.supports_channel_mask());
}

#[test]
fn unused_slots_take_no_space() {
    let r32ui = plain(1, 32, Numeric::Uint);
    let l = TilebufferLayout::build(&[RGBA8, None, r32ui], 1).unwrap();
    assert_eq!(placements(&l), [Some(tile(0, 4)), None, Some(tile(4, 4))]);
    assert_eq!(l.sample_size_bytes, 8);
}

#[test]
fn a_spill_does_not_stop_smaller_targets() {
    // At 2 samples a sample may end at most at byte 56 (64 * 512 = 32768 is over budget).
    // Three RGBA32F take 0..48; a fourth would end at 64 and spills; R32F fits at 48..52.
    let l = TilebufferLayout::build(&[RGBA32F, RGBA32F, RGBA32F, RGBA32F, R32F], 2).unwrap();
    assert_eq!(l.spilled(), [3]);
    assert_eq!(l.targets[4].unwrap().placement, tile(48, 4));
    assert_eq!(l.sample_size_bytes, 56);
    assert_eq!(l.tile, TileSize::T16X16);
    assert_eq!(l.total_bytes(), 56 * 2 * 256);
}

#[test]
fn eight_r32f_at_four_samples() {
    // At 4 samples the rounded end must stay at or below 24 bytes.
    let l = TilebufferLayout::build(&[R32F; 8], 4).unwrap();
    assert_eq!(l.spilled(), [6, 7]);
    assert_eq!(l.targets[5].unwrap().placement, tile(20, 4));
    assert_eq!(l.sample_size_bytes, 24);
    assert_eq!(l.tile, TileSize::T16X16);
}

#[test]
fn mixed_targets_tile_size_by_sample_count() {
    let l = |s| TilebufferLayout::build(&[RGBA16F, RGBA8, R32F], s).unwrap();
    // 8 + 4 + 4 = 16 bytes per sample.
    assert_eq!(l(1).sample_size_bytes, 16);
    assert_eq!(l(1).tile, TileSize::T32X32); // 16 * 1024 = 16384
    assert_eq!(l(2).tile, TileSize::T32X16); // 32 * 1024 = 32768 > budget, 32 * 512 fits
    assert_eq!(l(4).tile, TileSize::T16X16); // 64 * 512 = 32768 > budget
}

#[test]
fn empty_layouts() {
    let l = TilebufferLayout::build(&[], 1).unwrap();
    assert_eq!(l.sample_size_bytes, 0);
    assert_eq!(l.tile, TileSize::T32X32);
    assert_eq!(l.total_bytes(), 0);
    // Multisampled tiles always allocate at least one granule.
    let l = TilebufferLayout::build(&[None, None], 2).unwrap();
    assert_eq!(l.sample_size_bytes, 8);
    assert_eq!(l.tile, TileSize::T32X32);
}

#[test]
fn bad_input_is_an_error() {
    assert_eq!(
        TilebufferLayout::build(&[RGBA8; 9], 1),
        Err(TilebufferError::TooManyTargets(9))
    );
    for s in [0, 3, 8, 16] {
        assert_eq!(
            TilebufferLayout::build(&[RGBA8], s),
            Err(TilebufferError::BadSampleCount(s))
        );
    }
    for bad in [
        plain(4, 8, Numeric::Float),
        plain(1, 32, Numeric::Unorm),
        plain(1, 16, Numeric::Srgb),
        plain(5, 8, Numeric::Uint),
        plain(1, 64, Numeric::Uint),
    ] {
        assert!(matches!(
            TilebufferLayout::build(&[RGBA8, bad], 1),
            Err(TilebufferError::NotRenderable { target: 1, .. })
        ));
    }
}

use crate::test_rng::Rng;

fn random_format(rng: &mut Rng) -> Option<ColourFormat> {
    const NUMERIC: [Numeric; 6] = [
        Numeric::Unorm,
        Numeric::Snorm,
        Numeric::Uint,
        Numeric::Sint,
        Numeric::Float,
        Numeric::Srgb,
    ];
    const PACKED: [ColourFormat; 7] = [
        ColourFormat::R5G6B5Unorm,
        ColourFormat::R5G5B5A1Unorm,
        ColourFormat::R4G4B4A4Unorm,
        ColourFormat::Rgb10A2Unorm,
        ColourFormat::Rgb10A2Uint,
        ColourFormat::Rg11B10Float,
        ColourFormat::Rgb9E5Float,
    ];
    loop {
        let f = match rng.below(10) {
            0 => return None,
            1 => PACKED[rng.below(7) as usize],
            _ => ColourFormat::Plain {
                channels: 1 + rng.below(4) as u8,
                bits: [8, 16, 32][rng.below(3) as usize],
                numeric: NUMERIC[rng.below(6) as usize],
            },
        };
        if f.tib_format().is_some() {
            return Some(f);
        }
    }
}

#[test]
fn random_layouts_keep_the_invariants() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..5000 {
        let n = rng.below(9) as usize;
        let formats: Vec<_> = (0..n).map(|_| random_format(&mut rng)).collect();
        let samples = [1, 2, 4][rng.below(3) as usize];
        let l = TilebufferLayout::build(&formats, samples).unwrap();
        assert_eq!(l.targets.len(), n);
        assert!(l.sample_size_bytes <= MAX_BYTES_PER_SAMPLE);
        assert_eq!(l.sample_size_bytes % SAMPLE_GRANULE, 0);
        assert!(
            l.total_bytes() <= MAX_BYTES_PER_TILE,
            "{formats:?} x{samples}"
        );
        // The chosen tile is the largest within budget.
        let bpp = l.sample_size_bytes * samples;
        for bigger in [TileSize::T32X32, TileSize::T32X16] {
            if bigger.pixels() > l.tile.pixels() {
                assert!(bpp * bigger.pixels() > MAX_BYTES_PER_TILE);
            }
        }
        // Walk the targets in order: an in-tile target starts at the first aligned byte after
        // the previous in-tile target (no overlap, no needless holes); a spilled one would
        // have broken a limit there.
        let mut end = 0u32;
        for (fmt, t) in formats.iter().zip(&l.targets) {
            assert_eq!(fmt.is_some(), t.is_some());
            let Some(t) = t else { continue };
            let unit = t.tib_format.unit_bytes();
            let aligned = end.next_multiple_of(unit);
            match t.placement {
                Placement::Tile {
                    offset_bytes,
                    size_bytes,
                } => {
                    assert_eq!(offset_bytes % unit, 0);
                    assert_eq!(offset_bytes, aligned);
                    assert!(offset_bytes + size_bytes <= l.sample_size_bytes);
                    end = offset_bytes + size_bytes;
                }
                Placement::Spilled => {
                    let size = if t.tib_format.holds_whole_pixel() {
                        unit
                    } else {
                        unit * t.format.channels()
                    };
                    let over_sample = aligned + size > MAX_BYTES_PER_SAMPLE;
                    let over_tile =
                        (aligned + size).next_multiple_of(8) * 256 * samples > MAX_BYTES_PER_TILE;
                    assert!(over_sample || over_tile);
                }
            }
        }
    }
}
