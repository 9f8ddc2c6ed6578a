//! Tests of the depth/stencil unit against tables written out by hand.

use super::*;
use crate::usc::FlatMemory;
use crate::GpuMemory;
use hw::g13::control::descriptors::{
    CompareFunc, StencilOp as HwStencilOp, ZlsControl, ZlsFormat, ZsFunc,
};
use hw::g13::layout::{Layout, Tiling};

use CompareOp as C;
use StencilOp as S;

/// For each op: the result for incoming < stored, incoming == stored, incoming > stored.
const COMPARE_TABLE: [(CompareOp, [bool; 3]); 8] = [
    (C::Never, [false, false, false]),
    (C::Less, [true, false, false]),
    (C::Equal, [false, true, false]),
    (C::LessOrEqual, [true, true, false]),
    (C::Greater, [false, false, true]),
    (C::NotEqual, [true, false, true]),
    (C::GreaterOrEqual, [false, true, true]),
    (C::Always, [true, true, true]),
];

fn depth_state(op: CompareOp, write: bool) -> ZsState {
    ZsState {
        depth: DepthState {
            test_enable: true,
            write_enable: write,
            compare_op: op,
            clamp: None,
        },
        stencil: StencilState::DISABLED,
    }
}

#[test]
fn compare_ops_match_truth_table() {
    for (op, row) in COMPARE_TABLE {
        assert_eq!([op.test(1, 2), op.test(2, 2), op.test(3, 2)], row, "{op:?}");
        assert_eq!(
            [op.test(0.25f32, 0.5), op.test(0.5, 0.5), op.test(0.75, 0.5)],
            row,
            "{op:?}"
        );
    }
}

#[test]
fn depth_test_every_op_both_formats_with_writes() {
    for format in [DepthFormat::D16Unorm, DepthFormat::D32Sfloat] {
        for (op, row) in COMPARE_TABLE {
            for (case, z) in [0.25f32, 0.5, 0.75].into_iter().enumerate() {
                let stored_before = format.encode(0.5);
                let mut stored = stored_before;
                let pass = test_sample(
                    &depth_state(op, true),
                    Facing::Front,
                    z,
                    Some((format, &mut stored)),
                    None,
                );
                assert_eq!(pass, row[case], "{format:?} {op:?} z={z}");
                let expect = if row[case] {
                    format.encode(z)
                } else {
                    stored_before
                };
                assert_eq!(stored, expect, "{format:?} {op:?} z={z}");

                // Write disabled: same result, nothing written.
                let mut stored = stored_before;
                let pass = test_sample(
                    &depth_state(op, false),
                    Facing::Front,
                    z,
                    Some((format, &mut stored)),
                    None,
                );
                assert_eq!(pass, row[case]);
                assert_eq!(stored, stored_before);
            }
        }
    }
}

#[test]
fn d16_compares_after_conversion() {
    // 0.50001 and 0.5 are different floats but the same D16 code (32768), so EQUAL passes.
    let f = DepthFormat::D16Unorm;
    let mut stored = f.encode(0.5);
    assert!(test_sample(
        &depth_state(C::Equal, false),
        Facing::Front,
        0.50001,
        Some((f, &mut stored)),
        None
    ));
    let f = DepthFormat::D32Sfloat;
    let mut stored = f.encode(0.5);
    assert!(!test_sample(
        &depth_state(C::Equal, false),
        Facing::Front,
        0.50001,
        Some((f, &mut stored)),
        None
    ));
}

#[test]
fn depth_disabled_or_absent_passes_without_writing() {
    let mut stored = 0.5f32.to_bits();
    let mut state = depth_state(C::Never, true);
    state.depth.test_enable = false;
    assert!(test_sample(
        &state,
        Facing::Front,
        0.1,
        Some((DepthFormat::D32Sfloat, &mut stored)),
        None
    ));
    assert_eq!(stored, 0.5f32.to_bits());
    assert!(test_sample(
        &depth_state(C::Never, true),
        Facing::Front,
        0.1,
        None,
        None
    ));
}

#[test]
fn depth_clamp_to_viewport_range() {
    let f = DepthFormat::D32Sfloat;
    for (min, max) in [(0.25f32, 0.75f32), (0.75, 0.25)] {
        let mut state = depth_state(C::Always, true);
        state.depth.clamp = Some(DepthRange {
            min_depth: min,
            max_depth: max,
        });
        for (z, want) in [(0.9f32, 0.75f32), (0.1, 0.25), (0.5, 0.5), (-3.0, 0.25)] {
            let mut stored = 0;
            assert!(test_sample(
                &state,
                Facing::Front,
                z,
                Some((f, &mut stored)),
                None
            ));
            assert_eq!(f32::from_bits(stored), want, "range ({min}, {max}) z={z}");
        }
    }
    // Clamping happens before the comparison: 0.9 clamped to 0.75 is not greater than 0.8.
    let mut state = depth_state(C::Greater, true);
    state.depth.clamp = Some(DepthRange {
        min_depth: 0.0,
        max_depth: 0.75,
    });
    let mut stored = 0.8f32.to_bits();
    assert!(!test_sample(
        &state,
        Facing::Front,
        0.9,
        Some((f, &mut stored)),
        None
    ));
    // Without clamping D32 keeps the value as is.
    let mut stored = 0;
    assert!(test_sample(
        &depth_state(C::Always, true),
        Facing::Front,
        0.9,
        Some((f, &mut stored)),
        None
    ));
    assert_eq!(f32::from_bits(stored), 0.9);
}

#[test]
fn d16_edge_values() {
    assert_eq!(unorm16_from_float(0.0), 0);
    assert_eq!(unorm16_from_float(-0.0), 0);
    assert_eq!(unorm16_from_float(1.0), 65535);
    // 0.5 * 65535 = 32767.5 exactly: the only tie; nearest-even and away-from-zero agree.
    assert_eq!(unorm16_from_float(0.5), 32768);
    assert_eq!(unorm16_from_float(0.25), 16384); // 16383.75
    assert_eq!(unorm16_from_float(0.75), 49151); // 49151.25
    assert_eq!(unorm16_from_float(1.0 / 65535.0), 1);
    assert_eq!(unorm16_from_float(f32::MIN_POSITIVE), 0);
    assert_eq!(unorm16_from_float(-1.0), 0);
    assert_eq!(unorm16_from_float(2.0), 65535);
    assert_eq!(unorm16_from_float(f32::INFINITY), 65535);
    assert_eq!(unorm16_from_float(f32::NEG_INFINITY), 0);
    assert_eq!(unorm16_from_float(f32::NAN), 0);
    assert_eq!(float_from_unorm16(0), 0.0);
    assert_eq!(float_from_unorm16(65535), 1.0);
    assert_eq!(DepthFormat::D16Unorm.decode(32768), 32768.0 / 65535.0);
}

/// Whether f32 `z` (finite, positive) times 65535 is below `k + 1/2`, decided on integers:
/// z = m * 2^(e) exactly, so compare 2 * m * 65535 * 2^e with 2k + 1.
fn below_half_point(z: f32, k: u32) -> bool {
    let bits = z.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32;
    let (m, e) = if exp == 0 {
        (u128::from(bits & 0x7f_ffff), -149)
    } else {
        (u128::from((bits & 0x7f_ffff) | 0x80_0000), exp - 150)
    };
    let lhs = 2 * m * 65535;
    let rhs = 2 * u128::from(k) + 1;
    // Both sides scaled so the exponent is nonnegative.
    if e >= 0 {
        (lhs << e) < rhs
    } else {
        lhs < (rhs << (-e))
    }
}

#[test]
fn d16_rounds_to_nearest_at_boundaries() {
    for k in (0u32..65535)
        .step_by(97)
        .chain([0, 1, 2, 32766, 32767, 32768, 65533, 65534])
    {
        // The f32 nearest to the half point, and its neighbours on both sides.
        let mid = ((f64::from(k) + 0.5) / 65535.0) as f32;
        for z in [
            f32::from_bits(mid.to_bits() - 2),
            f32::from_bits(mid.to_bits() - 1),
            mid,
            f32::from_bits(mid.to_bits() + 1),
            f32::from_bits(mid.to_bits() + 2),
        ] {
            let want = if below_half_point(z, k) { k } else { k + 1 };
            assert_eq!(u32::from(unorm16_from_float(z)), want, "k={k} z={z:e}");
        }
    }
}

#[test]
fn d16_every_code_round_trips() {
    for v in 0..=u16::MAX {
        assert_eq!(unorm16_from_float(float_from_unorm16(v)), v);
    }
}

/// Stored values the stencil op table is written for, and the reference used.
const STORED: [u8; 5] = [0x00, 0x01, 0x7f, 0xfe, 0xff];
const REF: u8 = 0x5a;

const STENCIL_TABLE: [(StencilOp, [u8; 5]); 8] = [
    (S::Keep, [0x00, 0x01, 0x7f, 0xfe, 0xff]),
    (S::Zero, [0x00, 0x00, 0x00, 0x00, 0x00]),
    (S::Replace, [0x5a, 0x5a, 0x5a, 0x5a, 0x5a]),
    (S::IncrementAndClamp, [0x01, 0x02, 0x80, 0xff, 0xff]),
    (S::DecrementAndClamp, [0x00, 0x00, 0x7e, 0xfd, 0xfe]),
    (S::Invert, [0xff, 0xfe, 0x80, 0x01, 0x00]),
    (S::IncrementAndWrap, [0x01, 0x02, 0x80, 0xff, 0x00]),
    (S::DecrementAndWrap, [0xff, 0x00, 0x7e, 0xfd, 0xfe]),
];

#[test]
fn stencil_ops_match_truth_table() {
    for (op, row) in STENCIL_TABLE {
        for (i, s) in STORED.into_iter().enumerate() {
            assert_eq!(op.apply(s, REF), row[i], "{op:?} on {s:#x}");
        }
    }
}

fn face(
    op_fail: StencilOp,
    op_zfail: StencilOp,
    op_pass: StencilOp,
    cmp: CompareOp,
) -> StencilFace {
    StencilFace {
        fail_op: op_fail,
        pass_op: op_pass,
        depth_fail_op: op_zfail,
        compare_op: cmp,
        compare_mask: 0xff,
        write_mask: 0xff,
        reference: REF,
    }
}

fn stencil_state(front: StencilFace, back: StencilFace) -> ZsState {
    ZsState {
        depth: DepthState::DISABLED,
        stencil: StencilState {
            test_enable: true,
            front,
            back,
        },
    }
}

#[test]
fn stencil_compare_every_op() {
    // Reference 0x5a against stored 0x59 (ref greater), 0x5a, 0x5b (ref less). Each op is
    // the fail op of a face whose pass op is Zero, so the result shows which happened.
    for (op, row) in COMPARE_TABLE {
        for (stored, case) in [(0x5bu8, 0), (0x5a, 1), (0x59, 2)] {
            let state = stencil_state(
                face(S::Invert, S::Keep, S::Zero, op),
                face(S::Keep, S::Keep, S::Keep, C::Never),
            );
            let mut s = stored;
            let pass = test_sample(&state, Facing::Front, 0.0, None, Some(&mut s));
            assert_eq!(pass, row[case], "{op:?} stored {stored:#x}");
            assert_eq!(
                s,
                if row[case] { 0 } else { !stored },
                "{op:?} stored {stored:#x}"
            );
        }
    }
}

#[test]
fn stencil_ops_applied_for_fail_depth_fail_and_pass() {
    for (op, row) in STENCIL_TABLE {
        for (i, stored) in STORED.into_iter().enumerate() {
            let f = DepthFormat::D32Sfloat;
            // Stencil fails: fail op; depth untouched even though it would pass.
            let state = ZsState {
                depth: DepthState {
                    test_enable: true,
                    write_enable: true,
                    compare_op: C::Always,
                    clamp: None,
                },
                stencil: StencilState {
                    test_enable: true,
                    front: face(op, S::Keep, S::Keep, C::Never),
                    back: StencilFace::KEEP_ALWAYS,
                },
            };
            let (mut s, mut d) = (stored, 0.5f32.to_bits());
            assert!(!test_sample(
                &state,
                Facing::Front,
                0.25,
                Some((f, &mut d)),
                Some(&mut s)
            ));
            assert_eq!((s, d), (row[i], 0.5f32.to_bits()), "fail {op:?}");

            // Stencil passes, depth fails: depth-fail op, no depth write.
            let state = ZsState {
                depth: DepthState {
                    test_enable: true,
                    write_enable: true,
                    compare_op: C::Never,
                    clamp: None,
                },
                stencil: StencilState {
                    test_enable: true,
                    front: face(S::Keep, op, S::Keep, C::Always),
                    back: StencilFace::KEEP_ALWAYS,
                },
            };
            let (mut s, mut d) = (stored, 0.5f32.to_bits());
            assert!(!test_sample(
                &state,
                Facing::Front,
                0.25,
                Some((f, &mut d)),
                Some(&mut s)
            ));
            assert_eq!((s, d), (row[i], 0.5f32.to_bits()), "depth fail {op:?}");

            // Both pass: pass op and the depth write.
            let state = ZsState {
                depth: DepthState {
                    test_enable: true,
                    write_enable: true,
                    compare_op: C::Less,
                    clamp: None,
                },
                stencil: StencilState {
                    test_enable: true,
                    front: face(S::Keep, S::Keep, op, C::Always),
                    back: StencilFace::KEEP_ALWAYS,
                },
            };
            let (mut s, mut d) = (stored, 0.5f32.to_bits());
            assert!(test_sample(
                &state,
                Facing::Front,
                0.25,
                Some((f, &mut d)),
                Some(&mut s)
            ));
            assert_eq!((s, d), (row[i], 0.25f32.to_bits()), "pass {op:?}");
        }
    }
}

#[test]
fn stencil_depth_test_disabled_counts_as_pass() {
    let mut state = stencil_state(
        face(S::Keep, S::Zero, S::Replace, C::Always),
        StencilFace::KEEP_ALWAYS,
    );
    state.depth = DepthState {
        test_enable: false,
        write_enable: true,
        compare_op: C::Never,
        clamp: None,
    };
    let (mut s, mut d) = (0x11u8, 7u32);
    assert!(test_sample(
        &state,
        Facing::Front,
        0.0,
        Some((DepthFormat::D32Sfloat, &mut d)),
        Some(&mut s)
    ));
    assert_eq!((s, d), (REF, 7));
}

#[test]
fn stencil_disabled_leaves_attachment() {
    let mut state = stencil_state(
        face(S::Zero, S::Zero, S::Zero, C::Never),
        StencilFace::KEEP_ALWAYS,
    );
    state.stencil.test_enable = false;
    let mut s = 0x42;
    assert!(test_sample(&state, Facing::Front, 0.0, None, Some(&mut s)));
    assert_eq!(s, 0x42);
}

#[test]
fn stencil_masks() {
    // Compare mask: 0x13 vs 0x23 are equal in the low nibble only.
    let mut f = face(S::Keep, S::Keep, S::Keep, C::Equal);
    f.reference = 0x13;
    f.compare_mask = 0x0f;
    assert!(f.test(0x23));
    f.compare_mask = 0xff;
    assert!(!f.test(0x23));
    // Write mask: only the low nibble takes the replaced value.
    let mut f = face(S::Keep, S::Keep, S::Replace, C::Always);
    f.reference = 0b0101_0101;
    f.write_mask = 0x0f;
    assert_eq!(f.update(0b1010_1010, S::Replace), 0b1010_0101);
    // Increment with a partial write mask: 0x0f + 1 = 0x10, only bit 0..3 written -> 0x00.
    assert_eq!(f.update(0x0f, S::IncrementAndWrap), 0x00);
    // Zero write mask: nothing changes.
    f.write_mask = 0;
    assert_eq!(f.update(0x3c, S::Invert), 0x3c);
}

#[test]
fn faces_select_their_state() {
    let mut front = face(S::Keep, S::Keep, S::IncrementAndWrap, C::Equal);
    front.reference = 0x10;
    let mut back = face(S::Keep, S::Keep, S::Replace, C::Equal);
    back.reference = 0x20;
    back.write_mask = 0xf0;
    let state = stencil_state(front, back);

    // Stored 0x10 passes front (ref 0x10) and fails back (ref 0x20).
    let mut s = 0x10;
    assert!(test_sample(&state, Facing::Front, 0.0, None, Some(&mut s)));
    assert_eq!(s, 0x11);
    let mut s = 0x10;
    assert!(!test_sample(&state, Facing::Back, 0.0, None, Some(&mut s)));
    assert_eq!(s, 0x10);
    // Stored 0x20 passes back; Replace under write mask 0xf0 changes only the high nibble.
    let mut s = 0x20;
    assert!(test_sample(&state, Facing::Back, 0.0, None, Some(&mut s)));
    assert_eq!(s, 0x20);
}

#[test]
fn hw_enums_map_to_vulkan_ops() {
    let zs = [
        (ZsFunc::Never, C::Never),
        (ZsFunc::Less, C::Less),
        (ZsFunc::Equal, C::Equal),
        (ZsFunc::Lequal, C::LessOrEqual),
        (ZsFunc::Greater, C::Greater),
        (ZsFunc::NotEqual, C::NotEqual),
        (ZsFunc::Gequal, C::GreaterOrEqual),
        (ZsFunc::Always, C::Always),
    ];
    for (hw, op) in zs {
        assert_eq!(CompareOp::from(hw), op);
    }
    assert_eq!(
        CompareOp::from(CompareFunc::from_bits(0).unwrap()),
        C::LessOrEqual
    );
    assert_eq!(
        CompareOp::from(CompareFunc::from_bits(7).unwrap()),
        C::Never
    );
    assert_eq!(
        CompareOp::from(CompareFunc::from_bits(5).unwrap()),
        C::NotEqual
    );
    // Stencil ops: hardware value n is VkStencilOp n.
    for (n, op) in StencilOp::ALL.into_iter().enumerate() {
        assert_eq!(
            StencilOp::from(HwStencilOp::from_bits(n as u64).unwrap()),
            op
        );
    }
}

// ---- tile storage, load and store ----

const BASE: u64 = 0x1_0000;

/// Morton index of (x, y): x bits on even positions, y bits on odd ones.
fn morton(x: u32, y: u32) -> u64 {
    let mut m = 0u64;
    for i in 0..16 {
        m |= u64::from((x >> i) & 1) << (2 * i);
        m |= u64::from((y >> i) & 1) << (2 * i + 1);
    }
    m
}

/// A distinct depth word for every (x, y, sample).
fn pattern(x: u32, y: u32, s: u32, format: DepthFormat) -> u32 {
    match format {
        DepthFormat::D16Unorm => (y * 1000 + x * 7 + s * 3) & 0xffff,
        DepthFormat::D32Sfloat => ((y * 1000 + x * 7 + s * 3) as f32 / 1e6).to_bits(),
    }
}

fn put(mem: &mut FlatMemory, addr: u64, raw: u32, bytes: u32) {
    mem.write(addr, &raw.to_le_bytes()[..bytes as usize])
        .unwrap();
}

fn get(mem: &FlatMemory, addr: u64, bytes: u32) -> u32 {
    let mut b = [0u8; 4];
    mem.read(addr, &mut b[..bytes as usize]).unwrap();
    u32::from_le_bytes(b)
}

/// Addresses of a 64x64 image computed here without the layout code: linear with a
/// 64 * bpp stride, or twiddled with one Morton tile (64x64 elements fit one 16 KiB tile
/// for D32 x1 and D16 x2), samples contiguous inside an element.
fn address(tiling: Tiling, x: u32, y: u32, s: u32, bpp: u32, samples: u32) -> u64 {
    match tiling {
        Tiling::Linear { .. } => BASE + u64::from(y * 64 * bpp + x * bpp),
        Tiling::Twiddled => BASE + morton(x, y) * u64::from(bpp * samples) + u64::from(s * bpp),
    }
}

#[test]
fn depth_tile_round_trip_both_layouts() {
    let cases = [
        (Tiling::Linear { stride: None }, DepthFormat::D32Sfloat, 1),
        (Tiling::Linear { stride: None }, DepthFormat::D16Unorm, 1),
        (Tiling::Twiddled, DepthFormat::D32Sfloat, 1),
        (Tiling::Twiddled, DepthFormat::D16Unorm, 2),
    ];
    for (tiling, format, samples) in cases {
        let bpp = format.bytes();
        let layout = Layout::new(64, 64, 1, 1, bpp, tiling, samples).unwrap();
        let mut mem = FlatMemory::new();
        mem.map(BASE, vec![0; layout.size as usize]);
        for y in 0..64 {
            for x in 0..64 {
                for s in 0..samples {
                    put(
                        &mut mem,
                        address(tiling, x, y, s, bpp, samples),
                        pattern(x, y, s, format),
                        bpp,
                    );
                }
            }
        }
        let image = ZsImage {
            base: BASE,
            layout: &layout,
            layer: 0,
        };
        let mut tile = ZsTile::new(samples, Some(format), false).unwrap();
        tile.load_depth(&mem, &image, (32, 32)).unwrap();
        for y in 0..32 {
            for x in 0..32 {
                for s in 0..samples {
                    assert_eq!(
                        tile.depth_raw(x, y, s).unwrap(),
                        pattern(x + 32, y + 32, s, format),
                        "{tiling:?} {format:?}"
                    );
                }
            }
        }

        // Clear, store to the tile at (0, 32), and check every pixel of the image.
        tile.clear_depth(1.0).unwrap();
        tile.set_depth_raw(3, 4, samples - 1, format.encode(0.125))
            .unwrap();
        tile.store_depth(&mut mem, &image, (0, 32)).unwrap();
        for y in 0..64 {
            for x in 0..64 {
                for s in 0..samples {
                    let got = get(&mem, address(tiling, x, y, s, bpp, samples), bpp);
                    let want = if (x, y, s) == (3, 36, samples - 1) {
                        format.encode(0.125)
                    } else if x < 32 && y >= 32 {
                        format.encode(1.0)
                    } else {
                        pattern(x, y, s, format)
                    };
                    assert_eq!(got, want, "{tiling:?} {format:?} ({x}, {y}) s{s}");
                }
            }
        }
    }
}

#[test]
fn stencil_tile_round_trip_both_layouts() {
    for (tiling, samples) in [(Tiling::Linear { stride: None }, 1), (Tiling::Twiddled, 4)] {
        // 40x40: the tile at (32, 32) covers only 8x8 pixels of the image.
        let layout = Layout::new(40, 40, 1, 1, 1, tiling, samples).unwrap();
        let mut mem = FlatMemory::new();
        mem.map(BASE, vec![0; layout.size as usize]);
        let val = |x: u32, y: u32, s: u32| (x * 3 + y * 5 + s * 11) as u8;
        // Independent addresses: linear stride is 128 (40 rounded up to a cache line);
        // twiddled 4-byte elements use one 64x64 Morton tile.
        let addr = |x: u32, y: u32, s: u32| match tiling {
            Tiling::Linear { .. } => BASE + u64::from(y * 128 + x),
            Tiling::Twiddled => BASE + morton(x, y) * 4 + u64::from(s),
        };
        for y in 0..40 {
            for x in 0..40 {
                for s in 0..samples {
                    mem.write(addr(x, y, s), &[val(x, y, s)]).unwrap();
                }
            }
        }
        let image = ZsImage {
            base: BASE,
            layout: &layout,
            layer: 0,
        };
        let mut tile = ZsTile::new(samples, None, true).unwrap();
        tile.clear_stencil(0xee).unwrap();
        tile.load_stencil(&mem, &image, (32, 32)).unwrap();
        for y in 0..32 {
            for x in 0..32 {
                for s in 0..samples {
                    let want = if x < 8 && y < 8 {
                        val(x + 32, y + 32, s)
                    } else {
                        0xee
                    };
                    assert_eq!(tile.stencil(x, y, s).unwrap(), want);
                }
            }
        }
        tile.clear_stencil(0x77).unwrap();
        tile.store_stencil(&mut mem, &image, (32, 0)).unwrap();
        for y in 0..40 {
            for x in 0..40 {
                for s in 0..samples {
                    let mut b = [0];
                    mem.read(addr(x, y, s), &mut b).unwrap();
                    let want = if x >= 32 && y < 32 {
                        0x77
                    } else {
                        val(x, y, s)
                    };
                    assert_eq!(b[0], want, "{tiling:?} ({x}, {y}) s{s}");
                }
            }
        }
    }
}

#[test]
fn tile_load_checks_the_image() {
    let layout = Layout::new(64, 64, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
    let mem = FlatMemory::with(BASE, &vec![0; layout.size as usize]);
    let image = ZsImage {
        base: BASE,
        layout: &layout,
        layer: 0,
    };
    let mut d16 = ZsTile::new(1, Some(DepthFormat::D16Unorm), false).unwrap();
    assert!(matches!(
        d16.load_depth(&mem, &image, (0, 0)),
        Err(IspError::ImageMismatch(_))
    ));
    let mut ms = ZsTile::new(2, Some(DepthFormat::D32Sfloat), false).unwrap();
    assert!(matches!(
        ms.load_depth(&mem, &image, (0, 0)),
        Err(IspError::ImageMismatch(_))
    ));
    let mut ok = ZsTile::new(1, Some(DepthFormat::D32Sfloat), false).unwrap();
    assert!(matches!(
        ok.load_depth(&mem, &image, (64, 0)),
        Err(IspError::ImageMismatch(_))
    ));
    assert!(matches!(
        ok.load_stencil(&mem, &image, (0, 0)),
        Err(IspError::NoPlane("stencil"))
    ));
    // Unmapped memory is a fault, not a panic.
    let far = ZsImage {
        base: 0x9000_0000,
        layout: &layout,
        layer: 0,
    };
    assert!(matches!(
        ok.load_depth(&mem, &far, (0, 0)),
        Err(IspError::Fault(_))
    ));
    assert!(matches!(
        ZsTile::new(3, None, true),
        Err(IspError::SampleCount(3))
    ));
    assert!(matches!(
        ok.depth_raw(32, 0, 0),
        Err(IspError::OutsideTile { .. })
    ));
}

#[test]
fn tile_test_uses_its_planes() {
    let mut tile = ZsTile::new(4, Some(DepthFormat::D16Unorm), true).unwrap();
    tile.clear_depth(0.5).unwrap();
    tile.clear_stencil(1).unwrap();
    let state = ZsState {
        depth: DepthState {
            test_enable: true,
            write_enable: true,
            compare_op: C::Less,
            clamp: None,
        },
        stencil: StencilState {
            test_enable: true,
            front: face(S::Keep, S::Keep, S::IncrementAndClamp, C::Always),
            back: StencilFace::KEEP_ALWAYS,
        },
    };
    assert!(tile.test(&state, Facing::Front, (5, 6, 3), 0.25).unwrap());
    assert!(!tile.test(&state, Facing::Front, (5, 6, 3), 0.3).unwrap());
    assert_eq!(tile.depth_raw(5, 6, 3).unwrap(), 16384);
    assert_eq!(tile.stencil(5, 6, 3).unwrap(), 2);
    assert_eq!(tile.depth_raw(5, 6, 2).unwrap(), 32768);
    assert_eq!(tile.stencil(5, 6, 2).unwrap(), 1);
}

fn zls_control() -> ZlsControl {
    ZlsControl::nothing(ZlsFormat::F32)
}

#[test]
fn zls_control_word_maps_to_plan() {
    // Bits per cmdbuf.xml: s load 14, z load 15, s store 18, z store 19, z format 25..27.
    let word = (1u64 << 15) | (1 << 19) | (1 << 14) | (2 << 25);
    let plan = ZlsPlan::from_word(word).unwrap();
    assert_eq!(
        plan,
        ZlsPlan {
            depth_format: DepthFormat::D16Unorm,
            depth_load: true,
            depth_store: true,
            stencil_load: true,
            stencil_store: false,
        }
    );
    let plan = ZlsPlan::from_word(1 << 18).unwrap();
    assert_eq!(plan.depth_format, DepthFormat::D32Sfloat);
    assert!(plan.stencil_store && !plan.stencil_load && !plan.depth_load && !plan.depth_store);

    let mut c = zls_control();
    c.z_compress_1 = true;
    assert!(matches!(
        ZlsPlan::from_control(&c),
        Err(IspError::Unimplemented(_))
    ));
    let mut c = zls_control();
    c.s_resolve = true;
    assert!(matches!(
        ZlsPlan::from_control(&c),
        Err(IspError::Unimplemented(_))
    ));
    // Format value 1 is undefined; bit 20 has no field.
    assert!(matches!(
        ZlsPlan::from_word(1 << 25),
        Err(IspError::Fault(_))
    ));
    assert!(matches!(
        ZlsPlan::from_word(1 << 20),
        Err(IspError::Fault(_))
    ));
    assert_eq!(
        DepthFormat::from_zls(DepthFormat::D16Unorm.zls_format()),
        DepthFormat::D16Unorm
    );
}

#[test]
fn background_clear_values() {
    assert_eq!(
        clear_values(DepthFormat::D16Unorm, 0x8000, 0x3a5).unwrap(),
        (0x8000, 0xa5)
    );
    assert_eq!(
        clear_values(DepthFormat::D32Sfloat, 0.75f32.to_bits(), 0x300).unwrap(),
        (0.75f32.to_bits(), 0)
    );
    assert!(clear_values(DepthFormat::D16Unorm, 0x1_0000, 0).is_err());
}

/// `ZsTile::depth_only` tests and writes as `ZsTile::test` does wherever it offers itself:
/// random single-sample states (every op, writes, clamps, stencil planes with the test off,
/// both formats) over random depths, on two copies of one tile.
#[test]
fn depth_only_tests_as_the_sample_walk() {
    let mut rng = hw::test_rng::Rng(0x2545_f491_4f6c_dd1d);
    let mut next = |n: u64| rng.below(n);
    let (mut offered, mut refused) = (0, 0);
    for _ in 0..400 {
        let format = [DepthFormat::D16Unorm, DepthFormat::D32Sfloat][next(2) as usize];
        let samples = [1, 1, 1, 4][next(4) as usize];
        let has_depth = next(8) != 0;
        let has_stencil = next(2) == 0;
        let mut state = depth_state(COMPARE_TABLE[next(8) as usize].0, next(2) == 0);
        state.depth.test_enable = next(6) != 0;
        if next(3) == 0 {
            state.depth.clamp = Some(DepthRange {
                min_depth: 0.25,
                max_depth: 0.75,
            });
        }
        state.stencil.test_enable = next(3) == 0;
        let mut a = ZsTile::new(samples, has_depth.then_some(format), has_stencil).unwrap();
        if has_depth {
            a.clear_depth(next(100) as f32 / 99.0).unwrap();
        }
        let mut b = a.clone();
        let Some(mut fast) = b.depth_only(&state) else {
            refused += 1;
            assert!(samples != 1 || (state.stencil.test_enable && has_stencil));
            continue;
        };
        offered += 1;
        let mut results = Vec::new();
        for _ in 0..200 {
            let (x, y) = (next(33) as u32, next(33) as u32);
            let z = match next(10) {
                0 => f32::NAN,
                1 => -0.5,
                2 => 1.5,
                _ => next(1000) as f32 / 999.0,
            };
            results.push((x, y, z, fast.test((x, y), z).ok()));
        }
        for (x, y, z, got) in results {
            let want = a.test(&state, Facing::Front, (x, y, 0), z).ok();
            assert_eq!(got, want, "{state:?} ({x}, {y}) z {z}");
        }
        assert_eq!(a, b, "{state:?}: the planes differ");
    }
    assert!(
        offered > 150 && refused > 50,
        "{offered} offered, {refused} refused"
    );
}
