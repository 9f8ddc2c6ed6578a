//! The decoder against blocks worked out by hand from the specification, and random blocks
//! of every footprint.

use super::ise::{self, Kind, Range};
use super::*;

/// A block under construction: fields from bit 0 up, and the weight stream from bit 127
/// down (stream bit j is block bit 127 - j).
#[derive(Clone, Copy)]
struct Block(u128);

impl Block {
    fn new() -> Block {
        Block(0)
    }
    fn put(mut self, off: u32, n: u32, v: u32) -> Block {
        assert!(n == 32 || v < (1 << n));
        self.0 |= u128::from(v) << off;
        self
    }
    fn stream(mut self, pos: u32, n: u32, v: u32) -> Block {
        for k in 0..n {
            if (v >> k) & 1 != 0 {
                self.0 |= 1u128 << (127 - (pos + k));
            }
        }
        self
    }
    /// Plain-bit weights of `n` bits each.
    fn weights(self, n: u32, values: &[u32]) -> Block {
        values
            .iter()
            .enumerate()
            .fold(self, |b, (i, &v)| b.stream(n * i as u32, n, v))
    }
    fn decode(self, w: u32, h: u32, srgb: bool) -> Vec<Texel16> {
        let mut out = [Some([7; 4]); MAX_TEXELS];
        decode(&self.0.to_le_bytes(), w, h, srgb, &mut out);
        out[..(w * h) as usize].to_vec()
    }
}

fn void_extent(colour: [u32; 4]) -> Block {
    let mut b = Block::new().put(0, 9, 0x1fc).put(10, 2, 3);
    b = b.put(12, 26, 0x3ff_ffff).put(38, 26, 0x3ff_ffff);
    for (i, &c) in colour.iter().enumerate() {
        b = b.put(64 + 16 * i as u32, 16, c);
    }
    b
}

#[test]
fn void_extent_blocks() {
    let b = void_extent([0x1235, 0xffff, 0x0003, 0x8000]);
    let t = b.decode(4, 4, false);
    assert!(t.iter().all(|&c| c == Some([0x1235, 0xffff, 3, 0x8000])));
    // 0x1235 / 65536 needs 13 significant bits; FP16 keeps 11, rounding toward zero:
    // 0x1234 / 65536 = 1165 / 16384. 65535 is exactly 1.0; 3 / 65536 is an FP16 subnormal.
    assert_eq!(
        texel_value(t[0], false),
        [1165.0 / 16384.0, 1.0, 3.0 / 65536.0, 0.5]
    );
    // sRGB: the top bytes (the EOTF is applied later, to R, G and B only).
    assert_eq!(
        texel_value(b.decode(4, 4, true)[5], true),
        [18.0 / 255.0, 1.0, 0.0, 128.0 / 255.0]
    );
    // A real extent (low below high on both axes) is still a constant colour.
    let ranged = Block(b.0 & !(((1u128 << 52) - 1) << 12))
        .put(12, 13, 1)
        .put(25, 13, 2)
        .put(38, 13, 0)
        .put(51, 13, 0x1fff);
    assert!(ranged.decode(5, 4, false).iter().all(|&c| c == t[0]));
    // Illegal: HDR in the LDR profile, a reserved bit clear, an empty extent.
    let hdr = Block(b.0 | 1 << 9);
    let reserved = Block(b.0 & !(1 << 11));
    let empty = Block(ranged.0 & !(((1u128 << 13) - 1) << 25)).put(25, 13, 1);
    for bad in [hdr, reserved, empty] {
        assert!(bad.decode(4, 4, false).iter().all(|c| c.is_none()));
    }
    assert_eq!(texel_value(None, false), [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(texel_value(None, true), [1.0, 0.0, 1.0, 1.0]);
}

/// Block mode 0x42: a 4x4 grid of 2-bit weights (32 bits); one partition.
fn single_partition_4x4(cem: u32, values: &[u32], weights: &[u32]) -> Block {
    let mut b = Block::new().put(0, 11, 0x42).put(11, 2, 0).put(13, 4, cem);
    for (i, &v) in values.iter().enumerate() {
        b = b.put(17 + 8 * i as u32, 8, v);
    }
    b.weights(2, weights)
}

#[test]
fn single_partition_rgb_direct() {
    // Endpoint mode 8 (RGB direct); 128 - 17 - 32 = 79 bits give six 8-bit values:
    // e0 = (10, 20, 30), e1 = (200, 100, 50) (e1's sum is the larger: no blue contraction).
    // 2-bit weights unquantise to 0, 21, 43, 64.
    let mut q = [3; 16];
    q[..3].copy_from_slice(&[0, 1, 2]);
    let b = single_partition_4x4(8, &[10, 200, 20, 100, 30, 50], &q);
    let t = b.decode(4, 4, false);
    assert_eq!(t[0], Some([2570, 5140, 7710, 65535]));
    // R at weight 21: (2570 * 43 + 51400 * 21 + 32) / 64 = 18592.
    assert_eq!(t[1], Some([18592, 11886, 9397, 65535]));
    assert_eq!(t[2].unwrap()[0], 35378);
    assert!(t[3..]
        .iter()
        .all(|&c| c == Some([51400, 25700, 12850, 65535])));
    // sRGB widens e to e * 256 + 128: R (2688 * 43 + 51328 * 21 + 32) / 64 = 18648, top
    // byte 72.
    let s = b.decode(4, 4, true);
    assert_eq!(s[1].unwrap()[0], 18648);
    assert_eq!(texel_value(s[1], true)[0], 72.0 / 255.0);
    assert_eq!(s[0], Some([2688, 5248, 7808, 65408]));
}

#[test]
fn blue_contraction_and_offsets() {
    // Mode 8 with the second endpoint darker: endpoints swapped, red and green averaged
    // with blue. v = (200, 10, 100, 20, 50, 30): e0 from (10, 20, 30) -> (20, 25, 30),
    // e1 from (200, 100, 50) -> (125, 75, 50).
    let b = single_partition_4x4(8, &[200, 10, 100, 20, 50, 30], &[0; 16]);
    assert_eq!(
        b.decode(4, 4, false)[0],
        Some([20 * 257, 25 * 257, 30 * 257, 65535])
    );
    // Mode 1, luminance base + offset: L0 = (v0 >> 2) | (v1 & 0xc0) = 0x40 | 0x3c = 124,
    // L1 = L0 + (v1 & 0x3f) = 124 + 5.
    let b = single_partition_4x4(1, &[0xf0, 0x45], &[3; 16]);
    assert_eq!(
        b.decode(4, 4, false)[0],
        Some([129 * 257, 129 * 257, 129 * 257, 65535])
    );
    // Mode 6, RGB base + scale: e0 = e1 * 128 >> 8.
    let b = single_partition_4x4(6, &[100, 60, 20, 128], &[0; 16]);
    assert_eq!(
        b.decode(4, 4, false)[0],
        Some([50 * 257, 30 * 257, 10 * 257, 65535])
    );
    // Mode 13, RGBA base + offset: pairs (base, offset) become base = (base >> 1) | (offset
    // & 0x80), offset = signed (offset >> 1) & 0x3f. (100, 10) -> 50 + 5; (60, 0x7e) -> 30
    // - 1 (0x3f is -1); (20, 4) -> 10 + 2: the offsets sum to 6 >= 0, so no contraction;
    // alpha (255, 0) -> 127 + 0.
    let b = single_partition_4x4(13, &[100, 10, 60, 0x7e, 20, 4, 255, 0], &[3; 16]);
    assert_eq!(
        b.decode(4, 4, false)[0],
        Some([55 * 257, 29 * 257, 12 * 257, 127 * 257])
    );
}

#[test]
fn trit_and_quint_unpacking() {
    // Hand-decoded: T = 6 is C = 00110 (not the 111 case; T6:5 = 0, so t4 = t3 = 0);
    // C1:0 = 10, C3:2 = 01: t2 = 0, t1 = 1, t0 = {1, 0} = 2.
    assert_eq!(ise::unpack_trits(6), [2, 1, 0, 0, 0]);
    // T4:2 = 111: t4 = t3 = 2, C = {T7:5, T1:0} = 0.
    assert_eq!(ise::unpack_trits(0x1c), [0, 0, 0, 2, 2]);
    // C1:0 = 11: t2 = 2, t1 = C4, t0 = {C3, C2 & !C3}.
    assert_eq!(ise::unpack_trits(0b1_0111), [1, 1, 2, 0, 0]);
    // Q = 0011101: Q2:1 = 10, so q2 = Q6:5 = 0 and C = 11101, whose C2:0 = 101 gives q1 = 4,
    // q0 = C4:3 = 3.
    assert_eq!(ise::unpack_quints(0b001_1101), [3, 4, 0]);
    // Q2:1 = 11 and Q6:5 = 0: q0 = q1 = 4, q2 = {Q0, Q4 & !Q0, Q3 & !Q0} = 011.
    assert_eq!(ise::unpack_quints(0b001_1110), [4, 4, 3]);
    // Every packing decodes to digits in range.
    for t in 0..256 {
        assert!(ise::unpack_trits(t).iter().all(|&d| d < 3));
    }
    for q in 0..128 {
        assert!(ise::unpack_quints(q).iter().all(|&d| d < 5));
    }
    // The sequence lengths of the specification's table: 8 + 5n bits per 5 trits, 7 + 3n
    // per 3 quints, the last group cut short.
    let r = |l| Range::of_levels(l).unwrap();
    assert_eq!(r(3).sequence_bits(16), 26);
    assert_eq!(r(5).sequence_bits(16), 38);
    assert_eq!(r(80).sequence_bits(2), 13);
    assert_eq!(r(12).kind, Kind::Trit);
    assert!(Range::of_levels(7).is_none());
}

#[test]
fn trit_weights() {
    // Block mode 0x51: a 4x4 grid of 3-level weights (trits, no low bits): 26 bits, groups
    // of 8. Endpoint mode 0 (luminance), values 0 and 255. Trit 0, 1, 2 unquantise to 0,
    // 32 and 64.
    let b = Block::new()
        .put(0, 11, 0x51)
        .put(13, 4, 0)
        .put(17, 8, 0)
        .put(25, 8, 255)
        .stream(0, 8, 6)
        .stream(8, 8, 0x1c)
        // The last group has 2 of its 8 bits (T1:0 = 11); the stream bit after it (T2) is
        // outside the sequence and must read as 0: T = 3 gives t0 = 0, T = 7 would give 1.
        .stream(24, 3, 0b111);
    let t = b.decode(4, 4, false);
    let lum = |c: u16| Some([c, c, c, 65535]);
    let want = [
        65535, 32768, 0, 0, 0, // 2, 1, 0, 0, 0
        0, 0, 0, 65535, 65535, // 0, 0, 0, 2, 2
        0, 0, 0, 0, 0, 0,
    ];
    for (i, &w) in want.iter().enumerate() {
        assert_eq!(t[i], lum(w), "texel {i}");
    }
}

#[test]
fn dual_plane_with_quint_endpoints() {
    // Block mode 0x453: a 4x4 grid of 3-bit weights on two planes (96 bits). With the 2
    // component-selector bits, 128 - 17 - 96 - 2 = 13 bits remain for two values: range
    // 0..79, a quint and 4 bits (2 * 4 + ceil(2 * 7 / 3) = 13; 0..95 would need 14).
    // Values (q, m): (3, 1010) -> B = dcb0000dc = 322, (3 * 13 + 322) >> 2 = 90;
    // (4, 0001) -> A = 0x1ff, ((4 * 13) ^ 0x1ff) >> 2 | 0x80 = 242. Their quints pack as
    // Q = 0011101: m0, Q2:0, m1, Q4:3 from bit 17.
    let mut b = Block::new()
        .put(0, 11, 0x453)
        .put(13, 4, 0)
        .put(17, 4, 0b1010)
        .put(21, 3, 0b101)
        .put(24, 4, 0b0001)
        .put(28, 2, 0b11)
        // Component selector 1: green takes plane 2.
        .put(30, 2, 1);
    // Plane 1 weight 0, plane 2 weight 7 (-> 64), interleaved per grid point.
    for i in 0..16 {
        b = b.stream(6 * i + 3, 3, 7);
    }
    let t = b.decode(4, 4, false);
    assert!(
        t.iter()
            .all(|&c| c == Some([90 * 257, 242 * 257, 90 * 257, 65535])),
        "{:?}",
        t[0]
    );
    // Selector 3: alpha takes plane 2 (both alpha endpoints are 255).
    let b3 = Block(b.0 | 3 << 30);
    assert_eq!(
        b3.decode(4, 4, false)[7],
        Some([90 * 257, 90 * 257, 90 * 257, 65535])
    );
}

#[test]
fn weight_grid_infill() {
    // Block mode 0x3bf: a 3x3 grid of 5-bit weights (45 bits) for a 6x6 block, endpoints
    // black and white (mode 8, 8-bit values). Grid weight (0, 0) is 0, the others 31 (64).
    // Ds = (1024 + 3) / 5 = 205; texel s = 1 is at (205 * 1 * 2 + 32) >> 6 = 6 sixteenths
    // past grid column 0. Texel (1, 0): (64 * 6 + 8) >> 4 = 24; texel (1, 1): weights 6, 4,
    // 4, 2 -> (64 * 10 + 8) >> 4 = 40.
    let mut b = Block::new().put(0, 11, 0x3bf).put(13, 4, 8);
    for (i, v) in [0, 255, 0, 255, 0, 255].into_iter().enumerate() {
        b = b.put(17 + 8 * i as u32, 8, v);
    }
    let b = b.weights(5, &[0, 31, 31, 31, 31, 31, 31, 31, 31]);
    let t = b.decode(6, 6, false);
    let grey = |w: u32| {
        let c = ((65535 * w + 32) / 64) as u16;
        Some([c, c, c, 65535])
    };
    assert_eq!(t[0], grey(0));
    assert_eq!(t[1], grey(24));
    assert_eq!(t[6], grey(24));
    assert_eq!(t[7], grey(40));
    assert_eq!(t[35], grey(64));
}

#[test]
fn partition_patterns() {
    // Patterns worked out from the specification's selection function (Python transcription
    // of its pseudocode, independent of this one).
    let pattern = |seed, count, w: u32, h: u32| -> String {
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| char::from(b'0' + partition(seed, x, y, count, w * h < 31) as u8))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    assert_eq!(pattern(37, 2, 4, 4), "1110/1110/0110/0100");
    assert_eq!(pattern(5, 2, 4, 4), "1110/1100/1000/1000");
    assert_eq!(
        pattern(0x13, 3, 8, 8),
        "22201122/22201122/22201122/22201122/22201122/22201122/22222122/22222122"
    );
    assert_eq!(
        pattern(0x3ff, 4, 6, 5),
        "333113/333313/222213/233310/330110"
    );
}

/// Two partitions (seed 37, pattern 1110/1110/0110/0100) of luminance endpoints, all
/// weights 3 (64): partition 0 white, partition 1 grey 100.
fn two_partitions(cem_field: u32) -> Block {
    let mut b = Block::new()
        .put(0, 11, 0x42)
        .put(11, 2, 1)
        .put(13, 10, 37)
        .put(23, 6, cem_field);
    for (i, v) in [0, 255, 100, 100].into_iter().enumerate() {
        b = b.put(29 + 8 * i as u32, 8, v);
    }
    b.weights(2, &[3; 16])
}

#[test]
fn two_partition_block() {
    // One shared endpoint mode (selector 0, mode 0 in bits 25..29): 128 - 29 - 32 bits.
    let t = two_partitions(0).decode(4, 4, false);
    let p1 = Some([25700, 25700, 25700, 65535]);
    let p0 = Some([65535; 4]);
    let want = "1110111001100100";
    for (i, ch) in want.chars().enumerate() {
        assert_eq!(t[i], if ch == '0' { p0 } else { p1 }, "texel {i}");
    }
    // Per-partition modes: selector 1 (class 0), C0 = C1 = 0, M0 = 00 in bits 25..29 and M1
    // = 10 in the two bits below the weights (94, 95): partition 1 is mode 2, HDR luminance,
    // the error colour in LDR, while partition 0 still decodes.
    let b = two_partitions(1).put(94, 2, 0b10);
    let t = b.decode(4, 4, false);
    for (i, ch) in want.chars().enumerate() {
        assert_eq!(t[i], if ch == '0' { p0 } else { None }, "texel {i}");
    }
}

#[test]
fn illegal_blocks() {
    let all_error = |b: Block, w, h| b.decode(w, h, false).iter().all(|c| c.is_none());
    // Reserved block mode 0.
    assert!(all_error(Block::new(), 4, 4));
    // An HDR endpoint mode in the only partition.
    assert!(all_error(
        single_partition_4x4(2, &[0, 255], &[3; 16]),
        4,
        4
    ));
    // A 12x2 grid of 1-bit weights (mode 0x004, 24 bits): legal in a 12x12 block, larger
    // than a 4x4 one.
    let wide = Block::new().put(0, 11, 0x004).put(17, 8, 0).put(25, 8, 255);
    assert!(all_error(wide, 4, 4));
    assert!(wide.decode(12, 12, false).iter().all(|c| c.is_some()));
    // Dual plane (0x453) with four partitions.
    assert!(all_error(
        Block::new().put(0, 11, 0x453).put(11, 2, 3),
        4,
        4
    ));
    // Four partitions of mode 12: 32 colour values, more than 18.
    assert!(all_error(
        Block::new().put(0, 11, 0x42).put(11, 2, 3).put(25, 4, 12),
        4,
        4
    ));
    // An 8x8 grid of 2-bit weights (0x548): 128 weight bits, more than 96.
    assert!(all_error(Block::new().put(0, 11, 0x548), 8, 8));
    // A 4x4 grid of 1-bit weights (0x041): 16 bits, fewer than 24.
    assert!(all_error(Block::new().put(0, 11, 0x041), 4, 4));
    // A 6x8 grid of 2-bit weights (0x508, 96 bits) leaves 15 colour bits: enough for mode
    // 0's two values, not for mode 12's eight (ceil(13 * 8 / 5) = 21).
    let tight = |cem| Block::new().put(0, 11, 0x508).put(13, 4, cem);
    assert!(tight(0).decode(8, 8, false).iter().all(|c| c.is_some()));
    assert!(all_error(tight(12), 8, 8));
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

const FOOTPRINTS: [(u32, u32); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

/// A random block; every other one with a block mode from a list of legal-looking ones
/// (random bits are mostly illegal) and random partition and endpoint fields.
fn random_block(seed: &mut u64) -> u128 {
    let mut b = u128::from(xorshift(seed)) | (u128::from(xorshift(seed)) << 64);
    if xorshift(seed) & 1 == 0 {
        const MODES: [u32; 8] = [0x42, 0x51, 0x52, 0x453, 0x3bf, 0x004, 0x508, 0x11f];
        let m = MODES[(xorshift(seed) % MODES.len() as u64) as usize];
        b = (b & !0x7ff) | u128::from(m);
    }
    b
}

#[test]
fn random_blocks_of_every_footprint() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (w, h) in FOOTPRINTS {
        let n = (w * h) as usize;
        let mut legal = 0;
        for _ in 0..3000 {
            let bytes = random_block(&mut seed).to_le_bytes();
            let mut unorm = [None; MAX_TEXELS];
            let mut srgb = [None; MAX_TEXELS];
            decode(&bytes, w, h, false, &mut unorm);
            decode(&bytes, w, h, true, &mut srgb);
            if unorm[..n].iter().all(|c| c.is_some()) {
                legal += 1;
            }
            for i in 0..n {
                // The widening changes only the low byte of each endpoint; which texels
                // are errors does not change, and C's top byte moves by at most one.
                match (unorm[i], srgb[i]) {
                    (None, None) => {}
                    (Some(u), Some(s)) => {
                        for ch in 0..4 {
                            let (a, b) = (u[ch] >> 8, s[ch] >> 8);
                            assert!(a.abs_diff(b) <= 1, "{w}x{h} {bytes:02x?} texel {i}");
                        }
                    }
                    _ => panic!(
                        "{w}x{h} {bytes:02x?} texel {i}: {:?} {:?}",
                        unorm[i], srgb[i]
                    ),
                }
                for v in texel_value(unorm[i], false)
                    .into_iter()
                    .chain(texel_value(srgb[i], true))
                {
                    assert!((0.0..=1.0).contains(&v));
                }
            }
        }
        assert!(legal > 300, "{w}x{h}: {legal} legal blocks of 3000");
    }
}

/// Texels of an 8-bit decode (texture2ddecoder, which interpolates 8-bit endpoints) agree
/// with C's top byte to within one step: a cross-check of the block layout, partitions,
/// sequences, unquantisation and infill by an independent implementation.
#[test]
fn agrees_with_an_8_bit_decoder() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut compared = 0;
    for (w, h) in FOOTPRINTS {
        let n = (w * h) as usize;
        for _ in 0..2000 {
            let bytes = random_block(&mut seed).to_le_bytes();
            let mut ours = [None; MAX_TEXELS];
            decode(&bytes, w, h, false, &mut ours);
            if ours[..n].iter().any(|c| c.is_none()) {
                continue;
            }
            let mut px = [0u32; MAX_TEXELS];
            let theirs = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                texture2ddecoder::decode_astc_block(&bytes, w as usize, h as usize, &mut px);
            }));
            assert!(theirs.is_ok(), "{w}x{h} {bytes:02x?}");
            compared += 1;
            for i in 0..n {
                let [b, g, r, a] = px[i].to_le_bytes();
                let c = ours[i].unwrap();
                for (ch, v) in [r, g, b, a].into_iter().enumerate() {
                    assert!(
                        u16::from(v).abs_diff(c[ch] >> 8) <= 1,
                        "{w}x{h} {bytes:02x?} texel {i} channel {ch}: {v} vs {}",
                        c[ch]
                    );
                }
            }
        }
    }
    assert!(compared > 3000, "{compared}");
}

#[test]
fn out_of_range_footprints_are_errors() {
    let mut out = [Some([0; 4]); MAX_TEXELS];
    decode(&void_extent([0; 4]).0.to_le_bytes(), 1, 4, false, &mut out);
    assert!(out.iter().all(|c| c.is_none()));
}
