//! Layout numbers worked out by hand from ail's rules, and an exhaustive check that every
//! pixel gets its own bytes inside the image.

use super::*;

fn twiddled(w: u32, h: u32, layers: u32, levels: u32, bpp: u32, samples: u32) -> Layout {
    Layout::new(w, h, layers, levels, bpp, Tiling::Twiddled, samples).unwrap()
}

#[test]
fn tile_size_per_element_size() {
    let expect = [
        (1, 128, 128),
        (2, 128, 64),
        (4, 64, 64),
        (8, 64, 32),
        (16, 32, 32),
        (32, 32, 16),
        (64, 16, 16),
    ];
    for (bytes, w, h) in expect {
        assert_eq!(
            max_tile(bytes),
            Some(Tile {
                width: w,
                height: h
            }),
            "{bytes} B"
        );
        // Every full tile is one 16 KiB page.
        assert_eq!(bytes * w * h, 16384);
    }
    assert_eq!(max_tile(3), None);
    assert_eq!(max_tile(128), None);
}

#[test]
fn mip_chain_of_256_square_rgba8() {
    // 4x4 tiles of 64x64; levels 0..2 cover whole tiles (16, 4, 1 tiles of 16 KiB), levels
    // 3..8 are 32², 16², 8², 4², 2², 1² elements, each rounded up to 128 bytes.
    let l = twiddled(256, 256, 1, 2, 4, 1);
    assert_eq!(l.levels, 9);
    assert_eq!(
        l.level_offsets,
        vec![0, 262144, 327680, 344064, 348160, 349184, 349440, 349568, 349696, 349824]
    );
    assert_eq!(
        l.tiles[2],
        Tile {
            width: 64,
            height: 64
        }
    );
    assert_eq!(
        l.tiles[3],
        Tile {
            width: 32,
            height: 32
        }
    );
    assert_eq!(
        l.tiles[8],
        Tile {
            width: 1,
            height: 1
        }
    );
    assert!(!l.page_aligned_layers);
    assert_eq!(l.layer_stride, 349824);
    assert_eq!(l.size, 349824);
}

#[test]
fn mipmapped_array_layers_start_on_pages() {
    // Two layers of more than a page each: the layer stride rounds 349824 up to 22 pages.
    let l = twiddled(256, 256, 2, 9, 4, 1);
    assert!(l.page_aligned_layers);
    assert_eq!(l.layer_stride, 22 * 16384);
    assert_eq!(l.size, 2 * 22 * 16384);
    // A single-level array does not page-align.
    let one = twiddled(256, 256, 2, 1, 4, 1);
    assert!(!one.page_aligned_layers);
    assert_eq!(one.layer_stride, 262144);
    // A storage image always does.
    let st = Layout::with_usage(
        16,
        16,
        1,
        1,
        4,
        Tiling::Twiddled,
        1,
        Usage {
            writeable_image: true,
            ..Usage::default()
        },
    )
    .unwrap();
    assert_eq!(st.layer_stride, 16384);
}

#[test]
fn padded_tile_grid_at_level_1() {
    // 192² RGBA8: 3x3 tiles. Level 1 (96²) takes 9 >> 2 = 2 tiles, plus 3 >> 1 = 1 for the
    // odd column, 1 for the odd row and 1 for the corner: 5 tiles.
    let l = twiddled(192, 192, 1, 2, 4, 1);
    assert_eq!(l.level_offsets[1], 9 * 16384);
    assert_eq!(l.level_offsets[2], 14 * 16384);
    // Level 2 (48²) is the first small level: 64² elements.
    assert_eq!(l.level_offsets[3], 14 * 16384 + 16384);
    assert_eq!(
        l.tiles[2],
        Tile {
            width: 64,
            height: 64
        }
    );
}

#[test]
fn non_power_of_two_chain() {
    // 100² RGBA8: 2x2 tiles at level 0; levels 1.. are 64², 32², 16², 8², 4², 2² elements.
    let l = twiddled(100, 100, 1, 3, 4, 1);
    assert_eq!(l.levels, 7);
    assert_eq!(
        l.level_offsets,
        vec![0, 65536, 81920, 86016, 87040, 87296, 87424, 87552]
    );
    let t: Vec<u32> = l.tiles.iter().map(|t| t.width).collect();
    assert_eq!(t, vec![64, 64, 32, 16, 8, 4, 1]);
}

#[test]
fn twiddled_pixel_offsets() {
    let l = twiddled(256, 256, 1, 9, 4, 1);
    // (70, 5): tile 1 of row 0 (4096 elements in); inside it x = 6 -> bits 2, 4 (20) and
    // y = 5 -> bits 1, 5 (34): element 4150.
    assert_eq!(l.offset_of(70, 5, 0, 0, 0), Ok(4150 * 4));
    // Level 3 (32x32 tile): (3, 2) -> x bits 0, 2 (5), y bit 3 (8): element 13.
    assert_eq!(l.offset_of(3, 2, 0, 3, 0), Ok(344064 + 13 * 4));

    // 16-bit 256x128: 128x64 tiles, two per row. (130, 70) is tile 3; x = 2 -> 4,
    // y = 6 -> 8 + 32: element 3 * 8192 + 44.
    let l = twiddled(256, 128, 1, 1, 2, 1);
    assert_eq!(l.offset_of(130, 70, 0, 0, 0), Ok((3 * 8192 + 44) * 2));
    assert!(matches!(
        l.offset_of(256, 0, 0, 0, 0),
        Err(LayoutError::OutOfBounds(_))
    ));
}

#[test]
fn multisampled_pixels_keep_samples_together() {
    // RGBA8 x4: 16-byte elements, 32x32 tiles. (33, 1) sample 2: tile 1 (1024 elements),
    // x = 1 -> 1, y = 1 -> 2: element 1027, then 2 samples of 4 bytes.
    let l = twiddled(64, 64, 1, 1, 4, 4);
    assert_eq!(
        l.tiles[0],
        Tile {
            width: 32,
            height: 32
        }
    );
    assert_eq!(l.offset_of(33, 1, 0, 0, 2), Ok(1027 * 16 + 8));
    assert_eq!(l.size, 64 * 64 * 16);
}

#[test]
fn linear_layout() {
    // 100 RGBA8 pixels = 400 bytes, rounded up to a 512-byte stride; 10 rows per layer.
    let l = Layout::new(100, 10, 3, 1, 4, Tiling::Linear { stride: None }, 1).unwrap();
    assert_eq!(l.linear_stride, 512);
    assert_eq!(l.layer_stride, 5120);
    assert_eq!(l.size, 15360);
    assert_eq!(l.offset_of(5, 3, 2, 0, 0), Ok(10240 + 1536 + 20));
    let s = Layout::new(10, 3, 1, 1, 4, Tiling::Linear { stride: Some(48) }, 1).unwrap();
    assert_eq!(s.offset_of(9, 2, 0, 0, 0), Ok(96 + 36));
    // 144 bytes rounded to a cache line.
    assert_eq!(s.size, 256);
}

#[test]
fn bad_layouts_are_errors() {
    assert!(Layout::new(0, 1, 1, 1, 4, Tiling::Twiddled, 1).is_err());
    assert!(Layout::new(4, 4, 1, 1, 3, Tiling::Twiddled, 1).is_err());
    assert!(Layout::new(4, 4, 1, 1, 4, Tiling::Twiddled, 3).is_err());
    assert!(Layout::new(4, 4, 1, 2, 4, Tiling::Linear { stride: None }, 1).is_err());
    assert!(Layout::new(4, 4, 1, 1, 4, Tiling::Linear { stride: Some(8) }, 1).is_err());
    assert!(Layout::new(4, 4, 1, 1, 4, Tiling::Linear { stride: Some(24) }, 1).is_err());
    assert!(Layout::new(4, 4, 1, 1, 4, Tiling::Linear { stride: None }, 4).is_err());
}

/// Every sample of every pixel of every level and layer gets its own bytes, inside its
/// level's range and inside the image.
fn check_disjoint(l: &Layout) {
    let bpp = u64::from(l.bytes_per_block);
    let mut used = vec![false; l.size as usize];
    for layer in 0..l.layers {
        for level in 0..l.levels {
            let (w, h) = l.level_extent(level);
            let lo = u64::from(layer) * l.layer_stride + l.level_offsets[level as usize];
            let hi = u64::from(layer) * l.layer_stride + l.level_offsets[level as usize + 1];
            for y in 0..h {
                for x in 0..w {
                    for s in 0..l.samples {
                        let o = l.offset_of(x, y, layer, level, s).unwrap();
                        assert!(o >= lo && o + bpp <= hi, "{l:?} ({x},{y}) level {level}");
                        for b in o..o + bpp {
                            assert!(
                                !used[b as usize],
                                "byte {b} twice: ({x},{y},{layer},{level},{s})"
                            );
                            used[b as usize] = true;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_pixel_has_its_own_bytes() {
    let shapes = [
        (256, 256, 1, 9, 4, 1),
        (192, 192, 2, 9, 4, 1),
        (100, 37, 3, 2, 4, 1),
        (257, 129, 1, 2, 1, 1),
        (300, 70, 1, 2, 2, 1),
        (130, 66, 1, 2, 8, 1),
        (65, 33, 2, 2, 16, 1),
        (33, 65, 1, 1, 16, 2),
        (40, 24, 1, 1, 16, 4),
        (17, 3, 1, 2, 4, 1),
        (1, 1, 1, 1, 1, 1),
    ];
    for (w, h, layers, levels, bpp, samples) in shapes {
        check_disjoint(&twiddled(w, h, layers, levels, bpp, samples));
    }
    check_disjoint(&Layout::new(37, 11, 2, 1, 4, Tiling::Linear { stride: None }, 1).unwrap());
}

#[test]
fn agrees_with_values_ail_tests_publish() {
    // Expectations stated by Mesa's own ail tests (test-layout.cpp).
    let cube = twiddled(63, 63, 6, 6, 4, 1);
    assert_eq!(
        &cube.level_offsets[..5],
        &[0, 0x4000, 0x5000, 0x5400, 0x5500]
    );
    assert!(cube.page_aligned_layers);
    assert_eq!(cube.layer_stride, 0x8000);
    assert_eq!(cube.size, 0x30000);
    assert_eq!(twiddled(1024, 1024, 1, 11, 4, 1).size, 0x555680);
    assert_eq!(twiddled(1024, 1024, 1, 4, 4, 1).size, 0x555680);
    let arr = twiddled(32, 16, 64, 4, 4, 1);
    assert_eq!(arr.layer_stride, 0xc00);
    assert_eq!(arr.size, 0x30000);
    let plain = twiddled(512, 512, 6, 1, 4, 1);
    assert_eq!(plain.layer_stride, 512 * 512 * 4);
    let buf = Layout::new(16384, 1, 1, 1, 1, Tiling::Linear { stride: None }, 1).unwrap();
    assert_eq!(buf.size, 16384);
}

#[test]
fn spread_puts_each_low_bit_at_twice_its_position() {
    for x in (0..=0xffffu32)
        .step_by(7)
        .chain([0xffff, 0x1_8001, u32::MAX])
    {
        let want = (0..16).fold(0u64, |acc, i| acc | (u64::from((x >> i) & 1) << (2 * i)));
        assert_eq!(super::spread(x), want, "{x:#x}");
    }
}

fn blocks(w: u32, h: u32, levels: u32, block: (u32, u32), bytes: u32) -> Layout {
    Layout::with_blocks(
        w,
        h,
        1,
        levels,
        block,
        bytes,
        Tiling::Twiddled,
        1,
        Usage::default(),
    )
    .unwrap()
}

#[test]
fn bc1_256_square_mip_chain_in_blocks() {
    // 64x64 blocks of 8 bytes, tiles of 64x32 blocks: level 0 is 2 tiles (32 KiB). Level 1
    // (32x32 blocks) no longer covers a tile, so the power-of-two chain starts there at
    // npot(64) >> 1 = 32 blocks square: 8 KiB, 2 KiB, 512, 128, then 2x2 blocks (32 B) and
    // single blocks, each rounded up to 128 bytes. Nine levels, from the pixel extent.
    let l = blocks(256, 256, 2, (4, 4), 8);
    assert_eq!(l.levels, 9);
    assert_eq!(
        l.level_offsets,
        vec![0, 32768, 40960, 43008, 43520, 43648, 43776, 43904, 44032, 44160]
    );
    assert_eq!(l.tiles[1].width, 32);
    assert_eq!(l.tiles[4].width, 4);
    assert_eq!(l.level_blocks(0), (64, 64));
    assert_eq!(l.level_blocks(6), (1, 1));
    assert_eq!(l.size, 44160);
}

#[test]
fn bc7_npot_mip_chain_in_blocks() {
    // 100x60 texels are 25x15 blocks of 16 bytes (tiles of 32x32 blocks): no level covers a
    // tile, so the chain is npot(25) x npot(15) = 32x16 blocks halving per level: 8192,
    // 2048, 512, 128, 32 -> 128, 16 -> 128, 16 -> 128 bytes; 7 levels (log2(100) + 1).
    let l = blocks(100, 60, 7, (4, 4), 16);
    assert_eq!(l.levels, 7);
    assert_eq!(
        l.level_offsets,
        vec![0, 8192, 10240, 10752, 10880, 11008, 11136, 11264]
    );
    let tiles: Vec<u32> = l.tiles.iter().map(|t| t.width).collect();
    assert_eq!(tiles, vec![16, 8, 4, 2, 1, 1, 1]);
    assert_eq!(l.stride_el[0], 25);
    assert_eq!(l.stride_el[1], 13);
    assert_eq!(l.level_blocks(1), (13, 8));
}

#[test]
fn bc1_padded_large_level_and_round_then_minify() {
    // 520x512 BC1: 130x128 blocks, tiles of 64x32 blocks, a 3x4 tile grid. Levels 0 and 1
    // cover whole tiles (level 1 is 65x64 blocks). Level 0: 12 tiles of 16 KiB. Level 1: 3
    // tiles plus a padding column of 4 >> 1 = 2 tiles (3 is odd), 5 x 16 KiB, and ail pads
    // its row stride by one block (65 -> 66). The power-of-two chain starts at level 2 from
    // npot(130) >> 2 = 64 by npot(128) >> 2 = 32 blocks (minifying first would give 32x32):
    // 16 KiB, 4096, 1024, 256, 64 -> 128, 16 -> 128, 8 -> 128, 8 -> 128.
    let l = blocks(520, 512, 2, (4, 4), 8);
    assert_eq!(l.levels, 10);
    assert_eq!(
        l.level_offsets,
        vec![0, 196608, 278528, 294912, 299008, 300032, 300288, 300416, 300544, 300672, 300800]
    );
    assert_eq!(l.stride_el[..3], [130, 66, 33]);
    assert_eq!(l.tiles[2].width, 32);
    // Pixel (5, 6) is in block (1, 1): Morton index 3 of tile 0.
    assert_eq!(l.offset_of(5, 6, 0, 0, 0), Ok(24));
    // Pixel (256, 0) is block (64, 0), the first block of tile 1.
    assert_eq!(l.offset_of(256, 0, 0, 0, 0), Ok(16384));
    assert!(l.offset_of(520, 0, 0, 0, 0).is_err());
}

#[test]
fn astc_12x10_blocks_and_rejected_layouts() {
    // 30x25 texels of 12x10 ASTC are 3x3 blocks; one level of npot 4x4 blocks of 16 bytes.
    let l = blocks(30, 25, 1, (12, 10), 16);
    assert_eq!(l.level_blocks(0), (3, 3));
    assert_eq!(l.level_offsets, vec![0, 256]);
    // Pixel (29, 24) is block (2, 2) of the one 4x4-block tile: Morton index 0b1100.
    assert_eq!(l.offset_of(29, 24, 0, 0, 0), Ok(12 * 16));
    // ail has no linear or multisampled block-compressed layouts.
    let lin = Tiling::Linear { stride: None };
    assert!(Layout::with_blocks(8, 8, 1, 1, (4, 4), 8, lin, 1, Usage::default()).is_err());
    let tw = Tiling::Twiddled;
    assert!(Layout::with_blocks(8, 8, 1, 1, (4, 4), 8, tw, 4, Usage::default()).is_err());
}

#[test]
fn levels_past_the_width_and_height_chain_are_1x1() {
    // A 4x4x32 3D image has six levels (32 slices halve five times); its slices are laid
    // out like layers, so the layout needs levels 3..6 as 1x1 levels of their own.
    let l = twiddled(4, 4, 32, 6, 4, 1);
    assert_eq!(l.levels, 6);
    for level in 0..6 {
        assert!(l.level_offset(level).is_some(), "level {level}");
    }
    assert!(l.level_offset(3).unwrap() < l.level_offset(4).unwrap());
}

/// A square `morton_square` accepts is its side squared consecutive elements in Morton
/// order; squares it cannot promise that for (unaligned, past the level, wider than a tile,
/// multisampled, linear) are refused.
#[test]
fn morton_squares_are_consecutive_elements() {
    let morton = |k: u32, side: u32| {
        let (mut x, mut y) = (0, 0);
        for b in 0..side.trailing_zeros() {
            x |= (k >> (2 * b) & 1) << b;
            y |= (k >> (2 * b + 1) & 1) << b;
        }
        (x, y)
    };
    let mut accepted = 0;
    for (w, h, bpp, levels) in [
        (64, 64, 4, 1),
        (200, 90, 4, 3),
        (128, 40, 8, 1),
        (128, 128, 8, 1),
        (33, 64, 16, 1),
    ] {
        let l = twiddled(w, h, 2, levels, bpp, 1);
        for level in 0..l.levels {
            let (lw, lh) = l.level_extent(level);
            for side in [1, 4, 16, 32, 64] {
                for (x, y) in [(0, 0), (side, 0), (32, 32), (side, side * 2), (3, 0)] {
                    let Some(base) = l.morton_square(x, y, 1, level, side) else {
                        continue;
                    };
                    accepted += 1;
                    assert!(x % side == 0 && y % side == 0 && x + side <= lw && y + side <= lh);
                    for k in 0..side * side {
                        let (dx, dy) = morton(k, side);
                        let at = l.offset_of(x + dx, y + dy, 1, level, 0).unwrap();
                        assert_eq!(
                            at,
                            base + u64::from(k * bpp),
                            "{w}x{h} {bpp} B level {level}"
                        );
                    }
                }
            }
        }
    }
    assert!(accepted > 20, "{accepted} squares accepted");
    let refused = [
        // 8-byte elements: tiles of 64 x 32, so a 64-square spans two.
        (twiddled(128, 128, 1, 1, 8, 1), 0, 64, "wider than a tile"),
        (twiddled(64, 64, 1, 1, 4, 1), 0, 128, "past the level"),
        (twiddled(64, 64, 1, 1, 4, 1), 16, 32, "unaligned"),
        (twiddled(64, 64, 1, 1, 4, 1), 48, 32, "past the level"),
        (twiddled(64, 64, 1, 1, 4, 4), 0, 32, "multisampled"),
    ];
    for (l, x, side, why) in refused {
        assert_eq!(l.morton_square(x, 0, 0, 0, side), None, "{why}");
    }
    let linear = Layout::new(64, 64, 1, 1, 4, Tiling::Linear { stride: None }, 1).unwrap();
    assert_eq!(linear.morton_square(0, 0, 0, 0, 32), None);
}
