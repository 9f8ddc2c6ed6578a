//! The address formula of docs/render-abi.md 7.2, read back from packed descriptors, against
//! `Layout::offset_of` for every texel of many R32 images.

use super::*;
use crate::g13::image_desc::{null_pbe_descriptor, pbe_descriptor_layers, pixel_format};
use crate::g13::layout::Usage;

const R32_UINT: i32 = 98;
/// Above 4 GiB, so the high address word matters.
const BASE: u64 = 0x1_2345_0000;

fn storage_layout(w: u32, h: u32, layers: u32, levels: u32) -> Layout {
    let usage = Usage {
        writeable_image: true,
        ..Usage::default()
    };
    Layout::with_usage(w, h, layers, levels, 4, Tiling::Twiddled, 1, usage).unwrap()
}

fn desc(l: &Layout, dimension: TextureDimension) -> ImageDesc<'_> {
    ImageDesc {
        base: BASE,
        layout: l,
        format: pixel_format(R32_UINT).unwrap(),
        dimension,
    }
}

/// Every texel of every level of the view `first_layer..first_layer + layers`, and the
/// first coordinates past each edge; returns how many texels were compared.
fn check_view(l: &Layout, dimension: TextureDimension, first_layer: u32, layers: u32) -> u64 {
    let img = desc(l, dimension);
    let is_3d = dimension == TextureDimension::D3;
    let mut n = 0;
    for level in 0..l.levels {
        let pbe = pbe_descriptor_layers(&img, level, first_layer, layers).unwrap();
        let pbe = with_atomic_words(pbe, &img, level).unwrap();
        let (w, h) = l.level_extent(level);
        let depth = if is_3d {
            (layers >> level).max(1)
        } else {
            layers
        };
        for layer in 0..depth {
            for y in 0..h {
                for x in 0..w {
                    let want = BASE + l.offset_of(x, y, first_layer + layer, level, 0).unwrap();
                    assert_eq!(
                        texel_address(&pbe, x, y, layer),
                        Some(want),
                        "{}x{}x{} {dimension:?} level {level} texel ({x}, {y}, {layer})",
                        l.width,
                        l.height,
                        l.layers
                    );
                    n += 1;
                }
            }
            assert_eq!(texel_address(&pbe, w, 0, layer), None);
            assert_eq!(texel_address(&pbe, 0, h, layer), None);
            assert_eq!(texel_address(&pbe, u32::MAX, 0, layer), None);
        }
        assert_eq!(texel_address(&pbe, 0, 0, depth), None, "level {level}");
    }
    n
}

#[test]
fn formula_matches_the_layout_for_1d_and_2d_images() {
    let sizes = [
        (1, 1),
        (7, 1),
        (300, 1),
        (3, 5),
        (16, 16),
        (64, 64),
        (65, 33),
        (100, 7),
        (7, 100),
        (128, 128),
        (129, 200),
    ];
    for (w, h) in sizes {
        for levels in [1, 16] {
            let l = storage_layout(w, h, 1, levels);
            let dim = if h == 1 {
                TextureDimension::D1
            } else {
                TextureDimension::D2
            };
            assert!(check_view(&l, dim, 0, 1) > 0);
        }
    }
}

#[test]
fn formula_matches_the_layout_for_arrays_and_cubes() {
    for (w, h, layers) in [(5, 3, 4), (64, 64, 3), (70, 130, 2), (1, 1, 5)] {
        let l = storage_layout(w, h, layers, 16);
        check_view(&l, TextureDimension::D2Array, 0, layers);
        // A view of the later layers: `Buffer` moves, the layer stride does not.
        check_view(&l, TextureDimension::D2Array, 1, layers - 1);
        check_view(&l, TextureDimension::D2, layers - 1, 1);
    }
    for (size, cubes) in [(8, 1), (33, 2), (64, 1)] {
        let l = storage_layout(size, size, 6 * cubes, 16);
        check_view(&l, TextureDimension::Cube, 0, 6);
        check_view(&l, TextureDimension::CubeArray, 0, 6 * cubes);
    }
}

#[test]
fn formula_matches_the_layout_for_3d_images_level_by_level() {
    // Slices are laid out as layers with whole chains; level l has depth >> l of them.
    for (w, h, d) in [
        (4u32, 4, 4),
        (9, 5, 13),
        (64, 64, 3),
        (2, 2, 40),
        (100, 66, 7),
    ] {
        let levels = 32 - w.max(h).max(d).leading_zeros();
        let l = storage_layout(w, h, d, levels);
        assert!(check_view(&l, TextureDimension::D3, 0, d) > 0);
    }
}

#[test]
fn software_words_take_their_fields_and_keep_the_hardware_ones() {
    let l = storage_layout(100, 60, 3, 16);
    let img = desc(&l, TextureDimension::D2Array);
    let pbe = pbe_descriptor_layers(&img, 2, 0, 3).unwrap();
    let with = with_atomic_words(pbe, &img, 2).unwrap();
    assert_eq!(with[..16], pbe[..16]);
    assert_eq!(LEVEL_OFFSET.get(&with), l.level_offsets[2]);
    assert_eq!(LAYER_STRIDE.get(&with), l.layer_stride);
    let t = l.tiles[2];
    assert_eq!(1 << TILE_WIDTH_LOG2.get(&with), t.width);
    assert_eq!(1 << TILE_HEIGHT_LOG2.get(&with), t.height);
    // Bits 128..154, 155..157, 158..160, 161..187 by hand.
    let hi = u64::from_le_bytes(with[16..24].try_into().unwrap());
    assert_eq!(hi & ((1 << 27) - 1), l.level_offsets[2] >> 7);
    assert_eq!((hi >> 27) & 7, u64::from(t.width.trailing_zeros()));
    assert_eq!((hi >> 30) & 7, u64::from(t.height.trailing_zeros()));
    assert_eq!((hi >> 33) & ((1 << 27) - 1), l.layer_stride >> 7);
}

#[test]
fn layouts_without_atomics_are_refused_and_null_descriptors_have_no_texels() {
    let linear = Layout::new(16, 16, 1, 1, 4, Tiling::Linear { stride: None }, 1).unwrap();
    let img = desc(&linear, TextureDimension::D2);
    let pbe = pbe_descriptor_layers(&img, 0, 0, 1).unwrap();
    assert!(with_atomic_words(pbe, &img, 0).is_err());
    let ms = Layout::new(16, 16, 1, 1, 4, Tiling::Twiddled, 4).unwrap();
    let img = desc(&ms, TextureDimension::D2Multisampled);
    assert!(with_atomic_words([0; 24], &img, 0).is_err());
    let rgba16 = Layout::new(16, 16, 1, 1, 8, Tiling::Twiddled, 1).unwrap();
    let img = ImageDesc {
        format: pixel_format(97).unwrap(),
        ..desc(&rgba16, TextureDimension::D2)
    };
    let pbe = pbe_descriptor_layers(&img, 0, 0, 1).unwrap();
    assert!(with_atomic_words(pbe, &img, 0).is_err());
    assert_eq!(texel_address(&null_pbe_descriptor(), 0, 0, 0), None);
}

#[test]
fn buffer_elements_are_four_bytes_apart_below_the_count() {
    let mut pbe = [0u8; 24];
    pbe::BUFFER.put(&mut pbe, BASE);
    BUFFER_ELEMENTS.put(&mut pbe, 1000);
    assert_eq!(buffer_element_address(&pbe, 0), Some(BASE));
    assert_eq!(buffer_element_address(&pbe, 999), Some(BASE + 3996));
    assert_eq!(buffer_element_address(&pbe, 1000), None);
    assert_eq!(buffer_element_address(&null_pbe_descriptor(), 0), None);
}
