//! Colour endpoint modes: the two RGBA8 endpoints of a partition from its unquantised colour
//! values. Only the LDR modes decode; the HDR ones (2, 3, 7, 11, 14, 15) are the error colour
//! in the LDR profile.

/// The count of colour values mode `cem` reads: two per channel pair class (2, 4, 6 or 8).
pub fn value_count(cem: u32) -> u32 {
    (cem / 4 + 1) * 2
}

pub fn is_hdr(cem: u32) -> bool {
    matches!(cem, 2 | 3 | 7 | 11 | 14 | 15)
}

type Rgba = [i32; 4];

/// Moves the top bit of `b` into `a`'s place and makes `b` a signed 6-bit offset: the
/// "base + offset" modes keep one more bit of precision in the base this way.
fn bit_transfer_signed(b: &mut i32, a: &mut i32) {
    *a = (*a >> 1) | (*b & 0x80);
    *b = (*b >> 1) & 0x3f;
    if *b & 0x20 != 0 {
        *b -= 0x40;
    }
}

/// Pulls red and green halfway towards blue: the inverse of the encoder's blue contraction.
fn blue_contract(c: Rgba) -> Rgba {
    [(c[0] + c[2]) >> 1, (c[1] + c[2]) >> 1, c[2], c[3]]
}

fn clamp(c: Rgba) -> [u8; 4] {
    c.map(|v| v.clamp(0, 255) as u8)
}

/// The endpoints (e0, e1) of LDR mode `cem` from its values `v` (each 0..=255), `None` for
/// an HDR mode.
pub fn decode(cem: u32, v: &[u32]) -> Option<([u8; 4], [u8; 4])> {
    let mut v: [i32; 8] = std::array::from_fn(|i| v.get(i).map_or(0, |&x| x as i32));
    let (e0, e1): (Rgba, Rgba) = match cem {
        0 => ([v[0], v[0], v[0], 255], [v[1], v[1], v[1], 255]),
        1 => {
            // Luminance base + offset: the base keeps v1's top two bits as its own.
            let l0 = (v[0] >> 2) | (v[1] & 0xc0);
            let l1 = (l0 + (v[1] & 0x3f)).min(255);
            ([l0, l0, l0, 255], [l1, l1, l1, 255])
        }
        4 => ([v[0], v[0], v[0], v[2]], [v[1], v[1], v[1], v[3]]),
        5 => {
            let [mut v0, mut v1, mut v2, mut v3, ..] = v;
            bit_transfer_signed(&mut v1, &mut v0);
            bit_transfer_signed(&mut v3, &mut v2);
            let l1 = v0 + v1;
            ([v0, v0, v0, v2], [l1, l1, l1, v2 + v3])
        }
        6 => (
            [
                (v[0] * v[3]) >> 8,
                (v[1] * v[3]) >> 8,
                (v[2] * v[3]) >> 8,
                255,
            ],
            [v[0], v[1], v[2], 255],
        ),
        8 | 12 => {
            let (a0, a1) = if cem == 12 { (v[6], v[7]) } else { (255, 255) };
            let c0 = [v[0], v[2], v[4], a0];
            let c1 = [v[1], v[3], v[5], a1];
            if v[1] + v[3] + v[5] >= v[0] + v[2] + v[4] {
                (c0, c1)
            } else {
                // A darker second endpoint marks blue contraction, endpoints swapped.
                (blue_contract(c1), blue_contract(c0))
            }
        }
        9 | 13 => {
            for i in 0..4 {
                let (lo, hi) = v.split_at_mut(2 * i + 1);
                bit_transfer_signed(&mut hi[0], &mut lo[2 * i]);
            }
            let (a0, d) = if cem == 13 { (v[6], v[7]) } else { (255, 0) };
            let base = [v[0], v[2], v[4], a0];
            let sum = [v[0] + v[1], v[2] + v[3], v[4] + v[5], a0 + d];
            if v[1] + v[3] + v[5] >= 0 {
                (base, sum)
            } else {
                (blue_contract(sum), blue_contract(base))
            }
        }
        10 => (
            [
                (v[0] * v[3]) >> 8,
                (v[1] * v[3]) >> 8,
                (v[2] * v[3]) >> 8,
                v[4],
            ],
            [v[0], v[1], v[2], v[5]],
        ),
        _ => return None,
    };
    Some((clamp(e0), clamp(e1)))
}
