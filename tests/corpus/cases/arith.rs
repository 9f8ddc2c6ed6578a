//! Integer arithmetic, conversions, comparisons, division and bit operations.

use super::{bits, floats, input, ints, last_from, output, rand, rand_f, simple, words_i};
use crate::corpus::case::Case;

/// OpSMod: the remainder takes the divisor's sign (GLSL's `%` compiles to it).
pub fn smod(a: i32, b: i32) -> i32 {
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

fn mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    v.push(simple(
        "int_arith",
        "int_arith.comp",
        vec![input(rand(1, 128)), input(rand(2, 128)), output(128 * 6)],
        [2, 1, 1],
        last_from(|b| {
            let (a, bb) = (ints(&b[0]), ints(&b[1]));
            let mut o = Vec::new();
            for i in 0..128 {
                let (x, y) = (a[i], bb[i]);
                o.extend([
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    x.wrapping_neg(),
                    x.wrapping_mul(3).wrapping_sub(y.wrapping_mul(7)),
                    x.wrapping_add(y).wrapping_mul(x.wrapping_sub(y)),
                ]);
            }
            words_i(&o)
        }),
    ));

    v.push(simple(
        "uint_arith",
        "uint_arith.comp",
        vec![input(rand(3, 64)), input(rand(4, 64)), output(64 * 5)],
        [2, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for (&x, &y) in b[0].iter().zip(&b[1]) {
                o.extend([
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    x.wrapping_mul(y).wrapping_add(0x9e37_79b9),
                    x.max(y) - x.min(y),
                ]);
            }
            o
        }),
    ));

    v.push(simple(
        "int_vec",
        "int_vec.comp",
        vec![input(rand(5, 128)), output(256)],
        [2, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let mut o = Vec::new();
            for i in 0..32 {
                let v = &a[i * 4..i * 4 + 4];
                let sw = [v[3], v[2], v[1], v[0]];
                let k = [1, -2, 3, -4];
                let add = [v[1], v[1], v[0], v[0]];
                for c in 0..4 {
                    o.push(sw[c].wrapping_mul(k[c]).wrapping_add(add[c]));
                }
                for c in 0..4 {
                    let u = (v[c] as u32) >> (c as u32 + 1);
                    o.push((u as i32).wrapping_sub(v[0]));
                }
            }
            words_i(&o)
        }),
    ));

    // Conversions: specific awkward values, then random quarter-steps in [-1000, 1000).
    let mut f2i: Vec<f32> = vec![
        -0.5, -1.5, -2.5, 2.5, 0.5, 1.5, -0.7, -1.0, 3.999, -3.999, 0.0, -0.25, 1000.75, -1000.75,
        123.5, -123.5,
    ];
    f2i.extend(rand_f(6, 48, -1000.0, 1000.0, 0.25));
    v.push(simple(
        "conv_float_to_int",
        "conv_float_to_int.comp",
        vec![input(bits(&f2i)), output(64 * 6)],
        [1, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for f in floats(&b[0]) {
                o.extend([
                    f as i32,
                    f.abs() as u32 as i32,
                    f.round_ties_even() as i32,
                    f.floor() as i32,
                    f.ceil() as i32,
                    f.trunc().to_bits() as i32,
                ]);
            }
            words_i(&o)
        }),
    ));

    let mut i2f_a = words_i(&[
        0,
        -1,
        1,
        i32::MAX,
        i32::MIN,
        16_777_217,
        -16_777_217,
        16_777_219,
    ]);
    i2f_a.extend(rand(7, 56));
    let mut i2f_b = vec![
        0u32,
        1,
        u32::MAX,
        0xffff_ff80,
        0xffff_ff7f,
        0x8000_0080,
        0x0100_0001,
        0x0100_0003,
    ];
    i2f_b.extend(rand(8, 56));
    v.push(simple(
        "conv_int_to_float",
        "conv_int_to_float.comp",
        vec![input(i2f_a), input(i2f_b), output(64 * 3)],
        [2, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let mut o = Vec::new();
            for i in 0..64 {
                o.extend([
                    (a[i] as f32).to_bits(),
                    (b[1][i] as f32).to_bits(),
                    ((a[i] >> 8) as f32).to_bits(),
                ]);
            }
            o
        }),
    ));

    let cm_a = words_i(&[
        -5,
        0,
        7,
        -1,
        i32::MIN,
        i32::MAX,
        2,
        -2,
        100,
        -100,
        3,
        0,
        9,
        -9,
        1,
        -77,
    ]);
    let cm_f = bits(&[
        3.0e9,
        1.5,
        0.99,
        4_294_967_040.0,
        0.0,
        65536.0,
        2_147_483_648.0,
        7.75,
        1.0e6,
        0.25,
        12.5,
        3.0,
        2.0e9,
        100.9,
        1.0,
        42.0,
    ]);
    v.push(simple(
        "conv_mixed",
        "conv_mixed.comp",
        vec![input(cm_a), input(cm_f), output(16 * 6)],
        [1, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let f = floats(&b[1]);
            let mut o = Vec::new();
            for i in 0..16 {
                let x = a[i];
                o.extend([
                    x as u32,
                    ((x as u32) >> 1) as i32 as u32,
                    f[i] as u32,
                    (x < 0) as u32 + (x == 0) as u32 * 2,
                    (if x > 0 { 1.0f32 } else { 0.0 }).to_bits(),
                    (x & 1 != 0) as u32,
                ]);
            }
            o
        }),
    ));

    // Small values so that equal pairs occur; a few large ones for the unsigned view.
    let cmp_a: Vec<u32> = rand(9, 64)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i % 9 == 0 {
                *r
            } else {
                ((r % 41) as i32 - 20) as u32
            }
        })
        .collect();
    let cmp_b: Vec<u32> = rand(10, 64)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i % 7 == 0 {
                *r
            } else {
                ((r % 41) as i32 - 20) as u32
            }
        })
        .collect();
    v.push(simple(
        "compare",
        "compare.comp",
        vec![input(cmp_a), input(cmp_b), output(64)],
        [1, 1, 1],
        last_from(|b| {
            let (a, bb) = (ints(&b[0]), ints(&b[1]));
            (0..64)
                .map(|i| {
                    let (x, y) = (a[i], bb[i]);
                    let (ux, uy) = (x as u32, y as u32);
                    let (fx, fy) = (smod(x, 8) as f32, smod(y, 8) as f32);
                    let flags = [
                        x < y,
                        x <= y,
                        x == y,
                        x != y,
                        ux < uy,
                        ux >= uy,
                        fx < fy,
                        fx >= fy,
                        fx == fy,
                        x > y,
                    ];
                    flags
                        .iter()
                        .enumerate()
                        .map(|(k, &f)| (f as u32) << k)
                        .sum()
                })
                .collect()
        }),
    ));

    let sel_a = bits(&rand_f(11, 128, -5.0, 5.0, 1.0));
    let sel_b = bits(&rand_f(12, 128, -5.0, 5.0, 1.0));
    v.push(simple(
        "select",
        "select.comp",
        vec![input(sel_a), input(sel_b), output(256), output(32)],
        [2, 1, 1],
        Box::new(|init| {
            let (a, b) = (floats(&init[0]), floats(&init[1]));
            let mut o = Vec::new();
            let mut p = Vec::new();
            for i in 0..32 {
                let x = &a[i * 4..i * 4 + 4];
                let y = &b[i * 4..i * 4 + 4];
                let gt: Vec<bool> = (0..4).map(|c| x[c] > y[c]).collect();
                for c in 0..4 {
                    o.push(if gt[c] { y[c] } else { x[c] });
                }
                let any = gt.iter().any(|&g| g);
                for c in 0..4 {
                    let base = if x[0] > 0.0 { x[c] } else { -1.0 };
                    o.push(base + if any { 100.0 } else { 0.0 });
                }
                let s = if x[0] < y[0] {
                    x[0] as i32
                } else {
                    -(y[0] as i32)
                };
                p.push(if gt.iter().all(|&g| g) {
                    1000
                } else if s > 0 {
                    s
                } else {
                    7
                });
            }
            vec![init[0].clone(), init[1].clone(), bits(&o), words_i(&p)]
        }),
    ));

    // Signed division: no zero divisors and no INT_MIN / -1.
    let mut div_a: Vec<u32> = rand(13, 64)
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let x = if i % 3 == 0 {
                (r % 2001) as i32 - 1000
            } else {
                r as i32
            };
            if x == i32::MIN {
                1
            } else {
                x as u32
            }
        })
        .collect();
    div_a[..8].copy_from_slice(&words_i(&[-7, 7, -7, 7, -1, 0, i32::MIN + 1, -100]));
    let mut div_b: Vec<u32> = rand(14, 64)
        .iter()
        .map(|r| {
            let d = (r % 2001) as i32 - 1000;
            if d == 0 {
                3
            } else {
                d as u32
            }
        })
        .collect();
    div_b[..8].copy_from_slice(&words_i(&[2, -2, -2, 2, 5, -3, -1, 7]));
    v.push(simple(
        "idiv_signed",
        "idiv_signed.comp",
        vec![input(div_a), input(div_b), output(64 * 3)],
        [1, 1, 1],
        last_from(|b| {
            let (a, bb) = (ints(&b[0]), ints(&b[1]));
            let mut o = Vec::new();
            for i in 0..64 {
                let (x, y) = (a[i], bb[i]);
                let q = x.wrapping_div(y);
                o.extend([q, smod(x.abs(), y.abs()), x.wrapping_sub(y.wrapping_mul(q))]);
            }
            words_i(&o)
        }),
    ));

    let mut ud_a = rand(15, 64);
    ud_a[..4].copy_from_slice(&[0, u32::MAX, 5, 0x8000_0000]);
    let ud_b: Vec<u32> = rand(16, 64)
        .iter()
        .enumerate()
        .map(|(i, r)| match i % 4 {
            0 => 1,
            1 => r % 100 + 1,
            2 => r | 1,
            _ => (r >> (r % 31)).max(1),
        })
        .collect();
    v.push(simple(
        "udiv",
        "udiv.comp",
        vec![input(ud_a), input(ud_b), output(64 * 3)],
        [2, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for (&x, &y) in b[0].iter().zip(&b[1]) {
                o.extend([x / y, x % y, x / 7 + x % 13]);
            }
            o
        }),
    ));

    let mut bf_b = rand(18, 64);
    // Whole-word fields and empty fields among the random ones.
    bf_b[0] = 32 << 8;
    bf_b[1] = 5;
    bf_b[2] = 31 | (1 << 8);
    v.push(simple(
        "bitfield",
        "bitfield.comp",
        vec![input(rand(17, 64)), input(bf_b), output(64 * 3)],
        [1, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for (&x, &y) in b[0].iter().zip(&b[1]) {
                let off = y % 32;
                let nbits = (y >> 8) % (33 - off);
                let m = mask(nbits);
                let ux = if nbits == 0 { 0 } else { (x >> off) & m };
                let sx = if nbits == 0 {
                    0
                } else {
                    let sh = 32 - nbits;
                    (((ux << sh) as i32) >> sh) as u32
                };
                let ins_mask = if nbits == 0 { 0 } else { m << off };
                let ins = (x & !ins_mask) | (((y ^ 0xa5a5_a5a5) << off) & ins_mask);
                o.extend([ux, sx, ins]);
            }
            o
        }),
    ));

    let mut bc = rand(19, 64);
    bc[..8].copy_from_slice(&[
        0,
        u32::MAX,
        0x8000_0000,
        1,
        0xffff_fffe,
        0x7fff_ffff,
        0x0001_0000,
        0xc000_0000,
    ]);
    v.push(simple(
        "bitcount",
        "bitcount.comp",
        vec![input(bc), output(64 * 6)],
        [2, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for &x in &b[0] {
                let umsb = if x == 0 {
                    -1
                } else {
                    31 - x.leading_zeros() as i32
                };
                let s = x as i32;
                let pos = if s < 0 { !s as u32 } else { s as u32 };
                let smsb = if pos == 0 {
                    -1
                } else {
                    31 - pos.leading_zeros() as i32
                };
                let lsb = if x == 0 {
                    -1
                } else {
                    x.trailing_zeros() as i32
                };
                o.extend([
                    x.count_ones() as i32,
                    x.count_ones() as i32,
                    umsb,
                    smsb,
                    lsb,
                    x.reverse_bits() as i32,
                ]);
            }
            words_i(&o)
        }),
    ));

    v.push(simple(
        "shifts",
        "shifts.comp",
        vec![input(rand(20, 64)), input(rand(21, 64)), output(64 * 7)],
        [1, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for (&x, &y) in b[0].iter().zip(&b[1]) {
                let s = y % 32;
                o.extend([
                    x << s,
                    x >> s,
                    ((x as i32) >> s) as u32,
                    !x,
                    x & y,
                    x | y,
                    x ^ (y << 3),
                ]);
            }
            o
        }),
    ));

    let mm_a: Vec<u32> = rand(22, 48)
        .iter()
        .map(|r| ((r % 101) as i32 - 50) as u32)
        .collect();
    let mm_b: Vec<u32> = rand(23, 48)
        .iter()
        .map(|r| ((r % 101) as i32 - 50) as u32)
        .collect();
    v.push(simple(
        "matmul_loops",
        "matmul_loops.comp",
        vec![input(mm_a), input(mm_b), output(48)],
        [3, 1, 1],
        last_from(|b| {
            let (a, bb) = (ints(&b[0]), ints(&b[1]));
            let mut o = vec![0i32; 48];
            for m in 0..3 {
                for r in 0..4 {
                    for c in 0..4 {
                        o[m * 16 + r * 4 + c] = (0..4)
                            .map(|k| a[m * 16 + r * 4 + k] * bb[m * 16 + k * 4 + c])
                            .sum();
                    }
                }
            }
            words_i(&o)
        }),
    ));

    v
}
