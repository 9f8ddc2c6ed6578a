//! 64-bit integers (shaderInt64): arithmetic, shifts, division, conversions and 64-bit
//! buffer and push-constant accesses. The runner skips these cases, reporting them as
//! skipped, on a device without the shaderInt64 feature (see `Case::needs_int64`).

use super::{input, last_from, rand, Case, Pipe, Step, Tol};
use crate::corpus::case::bytes;

/// Pairs of words (low first) as u64 values.
fn u64s(w: &[u32]) -> Vec<u64> {
    w.chunks_exact(2)
        .map(|c| c[0] as u64 | (c[1] as u64) << 32)
        .collect()
}

fn words(v: &[u64]) -> Vec<u32> {
    v.iter()
        .flat_map(|x| [*x as u32, (*x >> 32) as u32])
        .collect()
}

/// 64 u64 inputs (as 128 words) with edge values first.
fn inputs(seed: u32, edges: &[u64]) -> Vec<u32> {
    let mut v = words(edges);
    let r = rand(seed, 128);
    // Every fourth value small, so high words of 0 and quotients of every size appear.
    for (k, c) in r.chunks_exact(2).enumerate().skip(edges.len()) {
        let x = c[0] as u64 | (c[1] as u64) << 32;
        v.extend(words(&[if k % 4 == 3 { x >> (c[0] % 64) } else { x }]));
    }
    v.truncate(128);
    v
}

const EDGES_A: [u64; 8] = [
    0,
    1,
    u64::MAX,
    i64::MIN as u64,
    i64::MAX as u64,
    1 << 32,
    (1 << 32) - 1,
    0xffff_ffff_0000_0001,
];
const EDGES_B: [u64; 8] = [1, u64::MAX, 3, (-7i64) as u64, 1 << 32, 0x8000_0000, 63, 32];

fn smod(a: i64, b: i64) -> i64 {
    let r = a.wrapping_rem(b);
    if r != 0 && (r < 0) != (b < 0) {
        r.wrapping_add(b)
    } else {
        r
    }
}

fn one(
    name: &'static str,
    shader: &'static str,
    buffers: Vec<super::Buffer>,
    reference: super::Reference,
) -> Case {
    let mut c = super::simple(name, shader, buffers, [2, 1, 1], reference);
    c.needs_int64 = true;
    c
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    v.push(one(
        "int64_arith",
        "int64_arith.comp",
        vec![
            input(inputs(101, &EDGES_A)),
            input(inputs(102, &EDGES_B)),
            super::output(64 * 10 * 2),
        ],
        last_from(|b| {
            let mut o = Vec::new();
            for (&x, &y) in u64s(&b[0]).iter().zip(&u64s(&b[1])) {
                let (sx, sy) = (x as i64, y as i64);
                let s = (y as u32 & 63) as u64;
                o.extend([
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    (x & y) | (!x ^ (y << 7)),
                    x << s,
                    x >> s,
                    (sx >> s) as u64,
                    (x < y) as u64
                        | ((sx < sy) as u64) << 1
                        | ((x == y) as u64) << 2
                        | ((sx >= sy) as u64) << 3
                        | ((x <= y >> 1) as u64) << 4,
                    (x >> 32 ^ 0x5a5a_5a5a) | (x as u32 as u64) << 32,
                    (sx.wrapping_neg().wrapping_add(sx.min(sy)) as u64).wrapping_add(x.max(y)),
                ]);
            }
            words(&o)
        }),
    ));

    v.push(one(
        "int64_divmod",
        "int64_divmod.comp",
        vec![
            input(inputs(103, &EDGES_A)),
            input(inputs(104, &EDGES_B)),
            super::output(64 * 4 * 2),
        ],
        last_from(|b| {
            let mut o = Vec::new();
            for (i, (&x, &yb)) in u64s(&b[0]).iter().zip(&u64s(&b[1])).enumerate() {
                let y = (yb >> (yb & 63)) | 2;
                let sx = x as i64;
                let sy = if i & 1 != 0 {
                    (y as i64).wrapping_neg()
                } else {
                    y as i64
                };
                o.extend([
                    x / y,
                    x % y,
                    sx.wrapping_div(sy) as u64,
                    smod(sx & i64::MAX, sy.wrapping_abs()) as u64,
                ]);
            }
            words(&o)
        }),
    ));

    // Floats: odd lanes small with fractions, even lanes integers in [2^32, 2^62) of either
    // sign (every such f32 is an integer), so both halves of the 64-bit results are exercised.
    let floats: Vec<u32> = rand(105, 64)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i % 2 == 1 {
                (((r % 4000) as f32 - 2000.0) * 0.125).to_bits()
            } else {
                let e = 127 + 32 + (r >> 24) % 30;
                (r & 0x8000_0000) | e << 23 | (r & 0x7f_ffff)
            }
        })
        .collect();
    let (k, m) = (0x0000_0007_ffff_fff0u64, -0x1_2345_6789i64);
    let mut push = vec![0u32; 6];
    push[2..4].copy_from_slice(&words(&[k]));
    push[4..6].copy_from_slice(&words(&[m as u64]));
    let mut c = one(
        "int64_convert",
        "int64_convert.comp",
        vec![
            input(inputs(106, &EDGES_A)),
            input(floats),
            super::output(64 * 4 * 4),
            super::output(64 * 2),
        ],
        Box::new(move |init: &[Vec<u32>]| {
            let xs = u64s(&init[0]);
            let fs: Vec<f32> = init[1].iter().map(|b| f32::from_bits(*b)).collect();
            let mut o = Vec::new();
            let mut w = Vec::new();
            for (i, (&x, &g)) in xs.iter().zip(&fs).enumerate() {
                let sx = x as i64;
                let e = |tag: u32, v: u64| [tag, 0, v as u32, (v >> 32) as u32];
                o.extend(e(i as u32, g as i64 as u64));
                o.extend(e(x as u32, (g.abs() as u64).wrapping_add(k)));
                o.extend(e(
                    (x >> 32) as u32,
                    ((i as i64 - 16).wrapping_mul(m)) as u64,
                ));
                o.extend(e(i as u32 ^ 0xff, (x as u32 as u64) + i as u64));
                w.extend([(x as f32).to_bits(), (sx as f32).to_bits()]);
            }
            let mut out = init.to_vec();
            out[2] = o;
            out[3] = w;
            out
        }),
    );
    c.push_size = 24;
    c.steps.insert(0, Step::Push(bytes(&push)));
    c.tol = Tol::EXACT;
    let _: &Vec<Pipe> = &c.pipes;
    v.push(c);

    v
}
