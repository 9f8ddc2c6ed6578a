//! Control flow: divergent branches, loops, early exits, function calls, private arrays.

use super::{
    bits, floats, input, ints, last_from, output, output_f, rand, rand_f, simple, words_i,
};
use crate::corpus::case::{Buffer, Case, Init, Tol};

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    let ni: Vec<u32> = rand(40, 64).iter().map(|r| r % 2000).collect();
    v.push(simple(
        "nested_if",
        "nested_if.comp",
        vec![input(ni), output(64)],
        [2, 1, 1],
        last_from(|b| {
            b[0].iter()
                .enumerate()
                .map(|(i, &x)| {
                    if x & 1 != 0 {
                        if x & 2 != 0 {
                            if x & 4 != 0 {
                                x * 3
                            } else {
                                x + 100
                            }
                        } else if x > 1000 {
                            x - 1000
                        } else {
                            7
                        }
                    } else if x & 6 == 6 {
                        if x % 5 == 0 {
                            1
                        } else {
                            2 + i as u32
                        }
                    } else {
                        let r = x / 2;
                        if r > 50 {
                            r ^ 0xff
                        } else {
                            r
                        }
                    }
                })
                .collect()
        }),
    ));

    let mut nf = rand_f(41, 64, -80.0, 80.0, 0.125);
    nf[0] = 0.0;
    nf[1] = -1.0;
    nf[2] = -10.0;
    nf[3] = 10.0;
    nf[4] = 50.0;
    v.push(simple(
        "nested_if_float",
        "nested_if_float.comp",
        vec![input(bits(&nf)), output(64)],
        [1, 1, 1],
        last_from(|b| {
            let o: Vec<i32> = floats(&b[0])
                .iter()
                .map(|&f| {
                    if f < 0.0 {
                        if f < -10.0 {
                            if f < -50.0 {
                                -3
                            } else {
                                -2
                            }
                        } else if f < -1.0 {
                            (f as i32) * 10
                        } else {
                            -1
                        }
                    } else if f > 10.0 {
                        if f > 50.0 {
                            3
                        } else {
                            f as i32 + 100
                        }
                    } else if f == 0.0 {
                        555
                    } else {
                        (f * 2.0) as i32
                    }
                })
                .collect();
            words_i(&o)
        }),
    ));

    v.push(simple(
        "loop_for",
        "loop_for.comp",
        vec![input(rand(42, 64)), output(64)],
        [1, 1, 1],
        last_from(|b| {
            b[0].iter()
                .enumerate()
                .map(|(i, &a)| (0..a % 40).fold(0u32, |s, j| s.wrapping_add((j * j) ^ i as u32)))
                .collect()
        }),
    ));

    v.push(simple(
        "loop_while",
        "loop_while.comp",
        vec![input(rand(43, 64)), output(64)],
        [2, 1, 1],
        last_from(|b| {
            b[0].iter()
                .map(|&a| {
                    let mut x = a % 1000 + 1;
                    let mut steps = 0;
                    while x != 1 {
                        x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
                        steps += 1;
                    }
                    steps
                })
                .collect()
        }),
    ));

    let mut dw = rand(44, 32);
    dw[0] = 0;
    dw[1] = u32::MAX;
    dw[2] = 9;
    v.push(simple(
        "loop_do_while",
        "loop_do_while.comp",
        vec![input(dw), output(64)],
        [2, 1, 1],
        last_from(|b| {
            let mut o = Vec::new();
            for &a in &b[0] {
                let (mut x, mut s, mut n) = (a, 0, 0);
                loop {
                    s += x % 10;
                    x /= 10;
                    n += 1;
                    if x == 0 {
                        break;
                    }
                }
                o.extend([s, n]);
            }
            o
        }),
    ));

    v.push(simple(
        "loop_nested",
        "loop_nested.comp",
        vec![input(rand(45, 64)), output(64)],
        [1, 1, 1],
        last_from(|b| {
            b[0].iter()
                .map(|&val| {
                    let mut acc = 1u32;
                    for p in 0..val % 7 {
                        for q in 0..(p.wrapping_add(val)) % 5 {
                            acc = acc.wrapping_mul(3).wrapping_add(p * q).wrapping_add(1);
                        }
                    }
                    acc
                })
                .collect()
        }),
    ));

    let bc_a: Vec<u32> = rand(46, 64).iter().map(|r| r % 100).collect();
    let bc_l: Vec<u32> = rand(47, 64).iter().map(|r| r % 1500).collect();
    v.push(simple(
        "break_continue",
        "break_continue.comp",
        vec![input(bc_a), input(bc_l), output(128)],
        [2, 1, 1],
        last_from(|b| {
            let n = b[0].len() as u32;
            let mut o = Vec::new();
            for i in 0..64u32 {
                let mut s = 0u32;
                let mut j = 0u32;
                while j < 64 {
                    if j % 3 == i % 3 {
                        j += 1;
                        continue;
                    }
                    s += b[0][((i + j) % n) as usize];
                    if s > b[1][i as usize] {
                        break;
                    }
                    j += 1;
                }
                o.extend([s, j]);
            }
            o
        }),
    ));

    let er: Vec<u32> = rand(48, 64).iter().map(|r| r % 100).collect();
    v.push(simple(
        "early_return",
        "early_return.comp",
        vec![
            input(er),
            Buffer {
                init: Init::Fill {
                    words: 128,
                    value: 0xaaaa_aaaa,
                },
                ..output(0)
            },
        ],
        [1, 1, 1],
        last_from(|b| {
            let mut o = vec![0xaaaa_aaaa; 128];
            for (i, &x) in b[0].iter().enumerate() {
                if x % 3 == 0 {
                    continue;
                }
                o[i * 2] = x * 2;
                if x % 5 != 0 {
                    o[i * 2 + 1] = x + 1;
                }
            }
            o
        }),
    ));

    let table: Vec<u32> = (0..32u32).map(|j| j * 37 + 11).collect();
    let keys: Vec<u32> = rand(49, 32)
        .iter()
        .map(|r| {
            if r % 2 == 0 {
                (r % 32) * 37 + 11
            } else {
                r % 1000 * 37 + 12
            }
        })
        .collect();
    v.push(simple(
        "early_return_loop",
        "early_return_loop.comp",
        vec![input(table), input(keys), input(vec![0x1234_5678; 32])],
        [2, 1, 1],
        last_from(|b| {
            b[1].iter()
                .map(|k| {
                    b[0].iter()
                        .position(|t| t == k)
                        .map_or(u32::MAX, |p| p as u32)
                })
                .collect()
        }),
    ));

    let fi: Vec<u32> = rand(50, 64)
        .iter()
        .map(|r| ((r % 2001) as i32 - 1000) as u32)
        .collect();
    v.push(simple(
        "func_inout",
        "func_inout.comp",
        vec![input(fi), output(32 * 5)],
        [1, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let mut o = Vec::new();
            for i in 0..32 {
                let (x, y) = (a[i * 2].min(a[i * 2 + 1]), a[i * 2].max(a[i * 2 + 1]));
                let d = (y - x) as u32;
                let (q, r) = (d / 7, d % 7);
                let (mut acc, mut last) = (0i32, 0i32);
                for k in 0..(r as i32 + 1) {
                    last = acc;
                    acc += k * x;
                }
                o.extend([x, y, q as i32, acc, last]);
            }
            words_i(&o)
        }),
    ));

    let fnst: Vec<u32> = rand(51, 48)
        .iter()
        .map(|r| ((r % 201) as i32 - 100) as u32)
        .collect();
    v.push(simple(
        "func_nested",
        "func_nested.comp",
        vec![input(fnst), output(48)],
        [1, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let mut o = Vec::new();
            for i in 0..16 {
                let (x, y, z) = (a[i * 3], a[i * 3 + 1], a[i * 3 + 2]);
                let p = (x.min(y), x.max(y));
                let q = (p.1.min(z), p.1.max(z));
                let r = (p.0.min(q.0), p.0.max(q.0));
                o.extend([r.0, q.1, (p.1 - p.0) + (q.1 - q.0) + (r.1 - r.0)]);
            }
            words_i(&o)
        }),
    ));

    v.push(Case {
        // Half-integers below 2000: every sum is exact.
        tol: Tol::EXACT,
        ..simple(
            "local_array",
            "local_array.comp",
            vec![
                input(bits(&rand_f(52, 32, -100.0, 100.0, 0.5))),
                input(rand(53, 32)),
                output_f(96),
            ],
            [1, 1, 1],
            last_from(|b| {
                let base = floats(&b[0]);
                let mut o = Vec::new();
                for i in 0..32 {
                    let mut arr: Vec<f32> = (0..16).map(|k| k as f32 + base[i]).collect();
                    let j = (b[1][i] & 15) as usize;
                    let k = ((b[1][i] >> 4) & 15) as usize;
                    arr[k] = 99.0;
                    let s = arr.iter().fold(0.0f32, |s, &x| s + x);
                    o.extend([arr[j], arr[(j * 7) & 15] + arr[k], s]);
                }
                bits(&o)
            }),
        )
    });

    v.push(simple(
        "local_array_sort",
        "local_array_sort.comp",
        vec![
            input(
                rand(54, 128)
                    .iter()
                    .map(|r| ((r % 1001) as i32 - 500) as u32)
                    .collect(),
            ),
            output(128),
        ],
        [1, 1, 1],
        last_from(|b| {
            let mut a = ints(&b[0]);
            for chunk in a.chunks_mut(8) {
                chunk.sort();
            }
            words_i(&a)
        }),
    ));

    v
}
