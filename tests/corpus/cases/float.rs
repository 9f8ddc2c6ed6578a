//! Float arithmetic and GLSL.std.450 functions, each case with its stated tolerance.

use super::{bits, floats, input, last_from, output_f, rand_f, simple};
use crate::corpus::case::{Case, Tol};

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    // Divisors kept away from zero: |b| in [0.5, 100].
    let fa = rand_f(30, 64, -100.0, 100.0, 1.0 / 64.0);
    let fb: Vec<f32> = rand_f(31, 64, 0.5, 100.0, 1.0 / 32.0)
        .iter()
        .enumerate()
        .map(|(i, &b)| if i % 2 == 0 { -b } else { b })
        .collect();
    v.push(Case {
        // Add, sub and mul are correctly rounded; Vulkan allows 2.5 ULP for division.
        tol: Tol::ulp(3),
        ..simple(
            "float_arith",
            "float_arith.comp",
            vec![input(bits(&fa)), input(bits(&fb)), output_f(64 * 5)],
            [1, 1, 1],
            last_from(|b| {
                let (a, bb) = (floats(&b[0]), floats(&b[1]));
                let mut o = Vec::new();
                for i in 0..64 {
                    let (x, y) = (a[i], bb[i]);
                    o.extend([x + y, x - y, x * y, x / y, -x]);
                }
                bits(&o)
            }),
        )
    });

    v.push(Case {
        // The driver may fuse the multiply-adds: absolute 1e-5 on results below 5.
        tol: Tol::abs(1e-5),
        ..simple(
            "float_poly",
            "float_poly.comp",
            vec![
                input(bits(&rand_f(32, 64, -1.0, 1.0, 1.0 / 4096.0))),
                output_f(64),
            ],
            [4, 1, 1],
            last_from(|b| {
                let o: Vec<f32> = floats(&b[0])
                    .iter()
                    .map(|&t| (((0.25 * t as f64 - 1.5) * t as f64 + 2.0) * t as f64 - 0.75) as f32)
                    .collect();
                bits(&o)
            }),
        )
    });

    v.push(Case {
        // Vulkan: sqrt and inversesqrt 2-3 ULP, exp2 3+2|x| ULP, log2 3 ULP or 2^-21 absolute
        // near 1, pow inherits exp2(y*log2(x)). 64 ULP or 1e-5 absolute covers them all.
        tol: Tol { ulp: 64, abs: 1e-5 },
        ..simple(
            "float_exp_log",
            "float_exp_log.comp",
            vec![
                input(bits(&rand_f(33, 64, 0.25, 16.0, 1.0 / 256.0))),
                input(bits(&rand_f(34, 64, -3.0, 3.0, 1.0 / 256.0))),
                output_f(64 * 5),
            ],
            [2, 1, 1],
            last_from(|b| {
                let (a, bb) = (floats(&b[0]), floats(&b[1]));
                let mut o = Vec::new();
                for i in 0..64 {
                    let (x, y) = (a[i] as f64, bb[i] as f64);
                    o.extend(
                        [x.sqrt(), 1.0 / x.sqrt(), y.exp2(), x.log2(), x.powf(y)].map(|r| r as f32),
                    );
                }
                bits(&o)
            }),
        )
    });

    v.push(Case {
        // Vulkan: sin and cos within 2^-11 absolute on [-pi, pi].
        tol: Tol::abs(5e-4),
        ..simple(
            "float_trig",
            "float_trig.comp",
            vec![
                input(bits(&rand_f(
                    35,
                    128,
                    -std::f32::consts::PI,
                    std::f32::consts::PI,
                    1.0 / 1024.0,
                ))),
                output_f(256),
            ],
            [2, 1, 1],
            last_from(|b| {
                let mut o = Vec::new();
                for x in floats(&b[0]) {
                    o.extend([(x as f64).sin() as f32, (x as f64).cos() as f32]);
                }
                bits(&o)
            }),
        )
    });

    // mod(x, y) = x - y*floor(x/y) is sensitive where x/y is an integer, so x is built as
    // k*y + r with r well inside (0.1y, 0.9y).
    let ys: Vec<f32> = [0.75f32, 1.5, 2.5, -3.25, 4.0, -0.5, 10.0, 7.25]
        .iter()
        .cycle()
        .take(32)
        .copied()
        .collect();
    let ks = rand_f(36, 32, -20.0, 20.0, 1.0);
    let rs = rand_f(37, 32, 0.125, 0.875, 1.0 / 64.0);
    let xs: Vec<f32> = (0..32).map(|i| ks[i] * ys[i] + rs[i] * ys[i]).collect();
    v.push(Case {
        // floor/ceil/fract/trunc are exact; mod goes through a division: 1e-4 absolute.
        tol: Tol::abs(1e-4),
        ..simple(
            "float_round",
            "float_round.comp",
            vec![input(bits(&xs)), input(bits(&ys)), output_f(32 * 5)],
            [2, 1, 1],
            last_from(|b| {
                let (a, bb) = (floats(&b[0]), floats(&b[1]));
                let mut o = Vec::new();
                for i in 0..32 {
                    let (x, y) = (a[i], bb[i]);
                    let m = x as f64 - y as f64 * (x as f64 / y as f64).floor();
                    o.extend([x.floor(), x.ceil(), x - x.floor(), m as f32, x.trunc()]);
                }
                bits(&o)
            }),
        )
    });

    let mut mx = rand_f(38, 64, -10.0, 10.0, 1.0 / 16.0);
    mx[0] = 0.0;
    mx[1] = 3.5;
    mx[2] = -2.0;
    v.push(Case {
        // All exact except fma, which Vulkan lets a driver split into mul + add: 1 ULP.
        tol: Tol::ulp(1),
        ..simple(
            "float_minmax",
            "float_minmax.comp",
            vec![
                input(bits(&mx)),
                input(bits(&rand_f(39, 64, -10.0, 10.0, 1.0 / 16.0))),
                output_f(64 * 6),
            ],
            [2, 1, 1],
            last_from(|b| {
                let (a, bb) = (floats(&b[0]), floats(&b[1]));
                let mut o = Vec::new();
                for i in 0..64 {
                    let (x, y) = (a[i], bb[i]);
                    let sign = if x > 0.0 {
                        1.0
                    } else if x < 0.0 {
                        -1.0
                    } else {
                        0.0
                    };
                    o.extend([
                        x.min(y),
                        x.max(y),
                        x.clamp(-2.0, 3.5),
                        x.abs(),
                        sign,
                        x.abs().mul_add(y.abs(), 1.0),
                    ]);
                }
                bits(&o)
            }),
        )
    });

    v
}
