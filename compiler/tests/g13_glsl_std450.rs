//! GLSL.std.450 instructions and OpQuantizeToF16 through the whole compiler, on the simulated
//! USC and the IR interpreter (which must agree bit for bit), against values computed here.

mod common;

use common::glslang;
use common::usc::{as_u32, run, run_spirv};

fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn as_f32(b: &[u8]) -> Vec<f32> {
    as_u32(b).into_iter().map(f32::from_bits).collect()
}

fn close(got: f32, want: f64, tol: f64, what: &str) {
    let err = (f64::from(got) - want).abs();
    assert!(
        err <= tol * (1.0 + want.abs()),
        "{what}: got {got}, want {want} (error {err})"
    );
}

#[test]
fn hyperbolic_inverses() {
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer A { float a[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    o[i * 3] = asinh(x);
    o[i * 3 + 1] = acosh(1.0 + abs(x));
    o[i * 3 + 2] = atanh(x / 4.0);
}
"#;
    let xs: Vec<f32> = (0..16).map(|k| (k as f32 - 7.5) * 0.45).collect();
    let Some(r) = run(src, &[f32s(&xs), vec![0; 16 * 12]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_f32(&r[1]);
    for (i, &x) in xs.iter().enumerate() {
        let x = f64::from(x);
        close(o[i * 3], x.asinh(), 1e-5, &format!("asinh({x})"));
        close(o[i * 3 + 1], (1.0 + x.abs()).acosh(), 1e-5, "acosh");
        close(
            o[i * 3 + 2],
            (x / 4.0).atanh(),
            1e-5,
            &format!("atanh({x}/4)"),
        );
    }
}

#[test]
fn modf_frexp_ldexp() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float a[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
layout(std430, binding = 2) buffer D { uint d[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float whole;
    float frac = modf(x, whole);
    int e;
    float m = frexp(x, e);
    o[i * 6] = floatBitsToUint(frac);
    o[i * 6 + 1] = floatBitsToUint(whole);
    o[i * 6 + 2] = floatBitsToUint(m);
    o[i * 6 + 3] = uint(e);
    o[i * 6 + 4] = floatBitsToUint(ldexp(m, e));
    o[i * 6 + 5] = floatBitsToUint(ldexp(x, int(i) * 70 - 270));
    // Denormals only through frexp, which reads their bits (float arithmetic on the USC
    // flushes them, the IR interpreter does not).
    m = frexp(uintBitsToFloat(d[i]), e);
    o[48 + i * 2] = floatBitsToUint(m);
    o[48 + i * 2 + 1] = uint(e);
}
"#;
    let xs = [
        3.75f32,
        -2.5,
        0.0,
        1.0e30,
        -7.0e-21,
        -0.3,
        f32::INFINITY,
        1.0e-30,
    ];
    let ds: [u32; 8] = [
        1,
        0x123,
        0x8000_4567,
        0x007f_ffff,
        0x0080_0000,
        0x8000_0000,
        2,
        0x40_0000,
    ];
    let bufs = [
        f32s(&xs),
        vec![0; 8 * 32],
        ds.iter().flat_map(|d| d.to_le_bytes()).collect(),
    ];
    let Some(r) = run(src, &bufs, [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    for (i, &d) in ds.iter().enumerate() {
        let x = f64::from(f32::from_bits(d));
        let (m, e) = if x == 0.0 {
            (f32::from_bits(d), 0)
        } else {
            let e = (x.abs().log2().floor() as i32) + 1;
            ((x / 2f64.powi(e)) as f32, e)
        };
        assert_eq!(o[48 + i * 2], m.to_bits(), "frexp of the bits {d:#x}");
        assert_eq!(
            o[48 + i * 2 + 1] as i32,
            e,
            "frexp exponent of the bits {d:#x}"
        );
    }
    for (i, &x) in xs.iter().enumerate() {
        let at = |k: usize| o[i * 6 + k];
        let whole = x.trunc();
        let frac = if x.is_infinite() { 0.0 } else { x - whole };
        assert_eq!(f32::from_bits(at(0)), frac, "modf({x}) fraction");
        assert_eq!(f32::from_bits(at(1)), whole, "modf({x}) whole part");
        let (m, e) = if x == 0.0 || !x.is_finite() {
            (x, 0)
        } else {
            let e = (f64::from(x).abs().log2().floor() as i32) + 1;
            ((f64::from(x) / 2f64.powi(e)) as f32, e)
        };
        assert_eq!(f32::from_bits(at(2)).to_bits(), m.to_bits(), "frexp({x})");
        assert_eq!(at(3) as i32, e, "frexp({x}) exponent");
        if x.is_normal() || x == 0.0 {
            assert_eq!(f32::from_bits(at(4)), x, "ldexp(frexp({x}))");
        }
        let k = i as i32 * 70 - 270;
        let want = (f64::from(x) * 2f64.powi(k)) as f32;
        // The USC flushes denormal results (and inputs) to zero.
        let want = if want.is_subnormal() || x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            want
        };
        assert_eq!(f32::from_bits(at(5)), want, "ldexp({x}, {k})");
    }
}

fn half_bits(x: f32) -> u32 {
    // Round to nearest even through f64, as the reference for packHalf2x16.
    let a = f64::from(x.abs());
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let e = (a.log2().floor() as i32).max(-14);
    let q = (a / 2f64.powi(e - 10)).round_ties_even() as u32;
    let (q, e) = if q >= 2048 { (q / 2, e + 1) } else { (q, e) };
    if q < 1024 {
        sign | q
    } else {
        sign | (((e + 15) as u32) << 10) | (q & 0x3ff)
    }
}

#[test]
fn pack_and_unpack() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { vec4 a[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = a[i];
    uint p0 = packUnorm4x8(v), p1 = packSnorm4x8(v);
    uint p2 = packUnorm2x16(v.xy), p3 = packSnorm2x16(v.zw), p4 = packHalf2x16(v.xy);
    o[i * 20] = p0;
    o[i * 20 + 1] = p1;
    o[i * 20 + 2] = p2;
    o[i * 20 + 3] = p3;
    o[i * 20 + 4] = p4;
    vec4 u0 = unpackUnorm4x8(p0 * 2654435761u), u1 = unpackSnorm4x8(p1 * 2654435761u);
    vec2 u2 = unpackUnorm2x16(p2 ^ 0x8001u), u3 = unpackSnorm2x16(p3 ^ 0x8000u);
    vec2 u4 = unpackHalf2x16(p4);
    for (int k = 0; k < 4; k++) {
        o[i * 20 + 5 + k] = floatBitsToUint(u0[k]);
        o[i * 20 + 9 + k] = floatBitsToUint(u1[k]);
    }
    o[i * 20 + 13] = floatBitsToUint(u2.x);
    o[i * 20 + 14] = floatBitsToUint(u2.y);
    o[i * 20 + 15] = floatBitsToUint(u3.x);
    o[i * 20 + 16] = floatBitsToUint(u3.y);
    o[i * 20 + 17] = floatBitsToUint(u4.x);
    o[i * 20 + 18] = floatBitsToUint(u4.y);
    o[i * 20 + 19] = packHalf2x16(vec2(uintBitsToFloat(0x7fc00000u | (i & 0u)), 1.0e-6 + float(i & 0u)));
}
"#;
    let vs: Vec<[f32; 4]> = (0..8)
        .map(|k| {
            let t = k as f32;
            [
                t * 0.17 - 0.3,
                1.5 - t * 0.33,
                t * 12.5 - 40.0,
                (t * 0.731).sin() * 70000.0,
            ]
        })
        .collect();
    let flat: Vec<f32> = vs.iter().flatten().copied().collect();
    let Some(r) = run(src, &[f32s(&flat), vec![0; 8 * 80]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    let unorm = |x: f32, s: f32| (x.clamp(0.0, 1.0) * s).round_ties_even() as u32;
    let snorm = |x: f32, s: f32| (x.clamp(-1.0, 1.0) * s).round_ties_even() as i32 as u32;
    for (i, v) in vs.iter().enumerate() {
        let at = |k: usize| o[i * 20 + k];
        let p0 = (0..4).fold(0, |a, k| a | unorm(v[k], 255.0) << (8 * k));
        let p1 = (0..4).fold(0, |a, k| a | (snorm(v[k], 127.0) & 0xff) << (8 * k));
        let p2 = unorm(v[0], 65535.0) | unorm(v[1], 65535.0) << 16;
        let p3 = (snorm(v[2], 32767.0) & 0xffff) | snorm(v[3], 32767.0) << 16;
        let p4 = half_bits(v[0]) | half_bits(v[1]) << 16;
        assert_eq!(
            [at(0), at(1), at(2), at(3), at(4)],
            [p0, p1, p2, p3, p4],
            "packs of {v:?}"
        );
        let q0 = p0.wrapping_mul(2_654_435_761);
        let q1 = p1.wrapping_mul(2_654_435_761);
        for k in 0..4 {
            let b = (q0 >> (8 * k)) & 0xff;
            assert_eq!(
                f32::from_bits(at(5 + k)),
                b as f32 / 255.0,
                "unpackUnorm4x8"
            );
            let s = ((q1 >> (8 * k)) & 0xff) as u8 as i8;
            let want = (f32::from(s) / 127.0).max(-1.0);
            assert_eq!(f32::from_bits(at(9 + k)), want, "unpackSnorm4x8");
        }
        let q2 = p2 ^ 0x8001;
        assert_eq!(f32::from_bits(at(13)), (q2 & 0xffff) as f32 / 65535.0);
        assert_eq!(f32::from_bits(at(14)), (q2 >> 16) as f32 / 65535.0);
        let q3 = p3 ^ 0x8000;
        let s16 = |x: u32| (f32::from(x as u16 as i16) / 32767.0).max(-1.0);
        assert_eq!(f32::from_bits(at(15)), s16(q3), "unpackSnorm2x16");
        assert_eq!(f32::from_bits(at(16)), s16(q3 >> 16), "unpackSnorm2x16");
        let h = |b: u32| {
            let b = b & 0xffff;
            let m = f64::from(b & 0x3ff);
            let e = ((b >> 10) & 0x1f) as i32;
            let a = match e {
                0 => m * 2f64.powi(-24),
                31 => f64::INFINITY,
                _ => (1024.0 + m) * 2f64.powi(e - 25),
            };
            (if b & 0x8000 != 0 { -a } else { a }) as f32
        };
        assert_eq!(f32::from_bits(at(17)), h(p4), "unpackHalf2x16");
        assert_eq!(f32::from_bits(at(18)), h(p4 >> 16), "unpackHalf2x16");
        // A NaN stays a NaN; 1e-6 is a half denormal (17 * 2^-24).
        assert_eq!(
            at(19),
            0x7e00 | 17 << 16,
            "packHalf2x16 of NaN and a denormal"
        );
    }
}

#[test]
fn geometric_and_matrix_functions() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer A { mat4 a[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    mat4 m = a[i];
    uint b = i * 40;
    o[b] = determinant(mat2(m));
    o[b + 1] = determinant(mat3(m));
    o[b + 2] = determinant(m);
    mat4 inv = inverse(m);
    mat3 inv3 = inverse(mat3(m));
    mat2 inv2 = inverse(mat2(m));
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            o[b + 3 + c * 4 + r] = inv[c][r];
        }
    }
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) {
            o[b + 19 + c * 3 + r] = inv3[c][r];
        }
    }
    o[b + 28] = inv2[0][0];
    o[b + 29] = inv2[0][1];
    o[b + 30] = inv2[1][0];
    o[b + 31] = inv2[1][1];
    vec3 n = normalize(m[0].xyz), v = normalize(m[1].xyz);
    vec3 f = faceforward(n, v, m[2].xyz);
    vec3 rf = refract(v, n, m[3].w);
    o[b + 32] = f.x;
    o[b + 33] = f.y;
    o[b + 34] = f.z;
    o[b + 35] = rf.x;
    o[b + 36] = rf.y;
    o[b + 37] = rf.z;
}
"#;
    let ms: Vec<[[f64; 4]; 4]> = (0..4)
        .map(|k| {
            let mut m = [[0.0; 4]; 4];
            for (c, col) in m.iter_mut().enumerate() {
                for (r, x) in col.iter_mut().enumerate() {
                    let s = (k * 16 + c * 4 + r) as f64;
                    *x = (s * 1.37).sin() * 2.0 + if c == r { 3.0 } else { 0.0 };
                }
            }
            m[3][3] = [0.6, 1.4, 0.9, 2.5][k];
            m
        })
        .collect();
    let flat: Vec<f32> = ms.iter().flatten().flatten().map(|&x| x as f32).collect();
    let Some(r) = run(src, &[f32s(&flat), vec![0; 4 * 160]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_f32(&r[1]);
    fn det(m: &[Vec<f64>]) -> f64 {
        if m.len() == 1 {
            return m[0][0];
        }
        (0..m.len())
            .map(|r| {
                let minor: Vec<Vec<f64>> = m[1..]
                    .iter()
                    .map(|c| {
                        c.iter()
                            .enumerate()
                            .filter(|(k, _)| *k != r)
                            .map(|(_, x)| *x)
                            .collect()
                    })
                    .collect();
                let s = if r % 2 == 1 { -1.0 } else { 1.0 };
                s * m[0][r] * det(&minor)
            })
            .sum()
    }
    fn inverse(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let n = m.len();
        let d = det(m);
        (0..n)
            .map(|c| {
                (0..n)
                    .map(|r| {
                        // (c, r) of the inverse: the cofactor of (r, c) over the determinant.
                        let minor: Vec<Vec<f64>> = (0..n)
                            .filter(|&k| k != r)
                            .map(|k| (0..n).filter(|&j| j != c).map(|j| m[k][j]).collect())
                            .collect();
                        let s = if (r + c) % 2 == 1 { -1.0 } else { 1.0 };
                        s * det(&minor) / d
                    })
                    .collect()
            })
            .collect()
    }
    for (i, m) in ms.iter().enumerate() {
        let b = i * 40;
        let m = m.map(|c| c.map(|x| f64::from(x as f32)));
        let sub = |n: usize| -> Vec<Vec<f64>> { (0..n).map(|c| m[c][..n].to_vec()).collect() };
        for (k, n) in [2usize, 3, 4].into_iter().enumerate() {
            close(
                o[b + k],
                det(&sub(n)),
                1e-5,
                &format!("determinant of {n}x{n} {i}"),
            );
        }
        let inv = inverse(&sub(4));
        let inv3 = inverse(&sub(3));
        let inv2 = inverse(&sub(2));
        for c in 0..4 {
            for r in 0..4 {
                close(
                    o[b + 3 + c * 4 + r],
                    inv[c][r],
                    1e-4,
                    &format!("inverse {i} [{c}][{r}]"),
                );
            }
        }
        for c in 0..3 {
            for r in 0..3 {
                close(o[b + 19 + c * 3 + r], inv3[c][r], 1e-4, "inverse 3x3");
            }
        }
        for c in 0..2 {
            for r in 0..2 {
                close(o[b + 28 + c * 2 + r], inv2[c][r], 1e-5, "inverse 2x2");
            }
        }
        let norm = |v: [f64; 3]| {
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            v.map(|x| x / l)
        };
        let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let (n, v) = (
            norm([m[0][0], m[0][1], m[0][2]]),
            norm([m[1][0], m[1][1], m[1][2]]),
        );
        let nref = [m[2][0], m[2][1], m[2][2]];
        let f = if dot(nref, v) < 0.0 { n } else { n.map(|x| -x) };
        let eta = m[3][3];
        let d = dot(n, v);
        let k = 1.0 - eta * eta * (1.0 - d * d);
        let rf = if k < 0.0 {
            [0.0; 3]
        } else {
            [0, 1, 2].map(|j| eta * v[j] - (eta * d + k.sqrt()) * n[j])
        };
        for j in 0..3 {
            close(o[b + 32 + j], f[j], 1e-5, "faceforward");
            close(
                o[b + 35 + j],
                rf[j],
                1e-4,
                &format!("refract {i} (k = {k})"),
            );
        }
    }
}

#[test]
fn quantize_to_f16() {
    // fract() stands in for OpQuantizeToF16, which GLSL cannot write.
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer A { float a[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = fract(a[i]);
}
"#;
    let Some(spirv) = glslang(src) else {
        return;
    };
    let spirv = common::usc::replace_ext_inst(&spirv, 10, rspirv::spirv::Op::QuantizeToF16);
    let xs = [
        1.0f32,
        65504.0,
        65519.9,
        65520.0,
        -1.0e6,
        1.0e-5,
        -1.0e-5,
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        6.103_515_6e-5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.333_333,
        1234.567,
        0.0,
    ];
    let r = run_spirv(&spirv, &[f32s(&xs), vec![0; 64]], [1, 1, 1], &[]);
    let o = as_f32(&r[1]);
    let want = [
        1.0f32,
        65504.0,
        65504.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        1.0 + 2f32.powi(-9),
        2f32.powi(-14),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.333_251_95,
        1235.0,
        0.0,
    ];
    for (k, (&g, &w)) in o.iter().zip(&want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "quantize({}) = {g}, want NaN", xs[k]);
        } else {
            assert_eq!(
                g.to_bits(),
                w.to_bits(),
                "quantize({}) = {g}, want {w}",
                xs[k]
            );
        }
    }
}
