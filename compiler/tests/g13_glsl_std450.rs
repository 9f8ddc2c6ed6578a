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

/// Every GLSL.std.450 instruction a compute shader can use (all but the 64-bit float
/// packs and the fragment-only InterpolateAt*), each once, on the USC and the interpreter,
/// against values computed here. Sin, Cos and Tan are in `trigonometry` (the USC's and the
/// interpreter's results differ in the last bit there). NMin, NMax and NClamp, which glslang never emits, replace
/// FMin, FMax and FClamp in a second build of the same shader.
#[test]
fn every_instruction_compiles_and_runs() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float a[16]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float y = a[i + 8u];
    int s = int(floor(x * 10.0));
    uint u = uint(s + 10);
    uint b = i * 8u;
    float r[48];
    r[0] = round(x * 5.0);
    r[1] = roundEven(x * 5.0);
    r[2] = trunc(x * 5.0);
    r[3] = abs(x);
    r[4] = float(abs(s));
    r[5] = sign(x);
    r[6] = float(sign(s));
    r[7] = floor(x * 5.0);
    r[8] = ceil(x * 5.0);
    r[9] = fract(x * 5.0);
    r[10] = radians(x * 90.0);
    r[11] = degrees(x);
    r[12] = asin(x);
    r[13] = acos(y);
    r[14] = asin(x) + acos(y);
    r[15] = atan(x);
    r[16] = sinh(x) + cosh(y);
    r[17] = tanh(x);
    r[18] = asinh(x) + acosh(1.0 + abs(y)) + atanh(x);
    r[19] = atan(x, y);
    r[20] = pow(abs(x) + 0.5, y);
    r[21] = exp(x) + log(abs(y) + 0.1);
    r[22] = exp2(x) + log2(abs(y) + 0.1);
    r[23] = sqrt(abs(x)) + inversesqrt(abs(y) + 0.1);
    mat2 m = mat2(x, y, 1.0, 2.0);
    r[24] = determinant(m);
    r[25] = inverse(m)[0][0];
    float whole;
    r[26] = modf(x * 5.0, whole) + 10.0 * whole;
    r[27] = min(x, y) + 10.0 * max(x, y) + 100.0 * clamp(x, -0.25, 0.25);
    r[28] = float(min(u, 12u) + 100u * max(u, 12u) + 10000u * clamp(u, 8u, 14u));
    r[29] = float(min(s, 2) + 100 * max(s, 2) + 10000 * clamp(s, -2, 4));
    r[30] = mix(x, y, 0.25);
    r[31] = step(0.1, x) + 2.0 * smoothstep(-0.5, 0.5, y);
    r[32] = fma(x, y, 0.5);
    int e;
    r[33] = frexp(x, e) + 10.0 * float(e);
    r[34] = ldexp(x, 3);
    r[35] = uintBitsToFloat(packSnorm4x8(vec4(x, y, 0.5, -1.0)) & 0x7fffffu)
          + unpackSnorm4x8(packSnorm4x8(vec4(x, y, 0.5, -1.0))).y;
    r[36] = unpackUnorm4x8(packUnorm4x8(vec4(abs(x), 0.2, 0.3, 1.0))).x
          + unpackSnorm2x16(packSnorm2x16(vec2(x, y))).y
          + unpackUnorm2x16(packUnorm2x16(vec2(abs(x), 0.7))).x
          + unpackHalf2x16(packHalf2x16(vec2(x, y))).y;
    vec3 p = vec3(x, y, 0.5);
    vec3 q = vec3(y, 0.25, x);
    r[37] = length(p) + distance(p, q);
    r[38] = cross(p, q).y;
    r[39] = normalize(p).x;
    r[40] = faceforward(p, q, vec3(1.0)).z;
    r[41] = reflect(p, normalize(q)).x;
    r[42] = refract(normalize(p), normalize(q), 0.5).y;
    r[43] = float(findLSB(u) + 10 * findMSB(s) + 100 * findMSB(u));
    for (uint k = 0u; k < 44u; k++) { o[i * 48u + k] = r[k]; }
}
"#;
    let xs: [f32; 16] = [
        -0.83, -0.61, -0.37, -0.12, 0.07, 0.29, 0.53, 0.77, // x
        0.66, -0.44, 0.21, -0.93, 0.38, -0.05, 0.91, -0.27, // y
    ];
    let Some(r) = run(src, &[f32s(&xs), vec![0; 8 * 48 * 4]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_f32(&r[1]);
    let sign = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    let smooth = |e0: f64, e1: f64, v: f64| {
        let t = ((v - e0) / (e1 - e0)).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    let norm = |v: [f64; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for i in 0..8 {
        let (x, y) = (f64::from(xs[i]), f64::from(xs[i + 8]));
        let s = (x * 10.0).floor();
        let u = s + 10.0;
        let p = [x, y, 0.5];
        let q = [y, 0.25, x];
        let (m, e) = {
            let e = x.abs().log2().floor() + 1.0;
            (x / 2f64.powf(e), e)
        };
        let snorm8 = |v: f64| (v.clamp(-1.0, 1.0) * 127.0).round() / 127.0;
        let snorm16 = |v: f64| (v.clamp(-1.0, 1.0) * 32767.0).round() / 32767.0;
        let unorm8 = |v: f64| (v * 255.0).round() / 255.0;
        let unorm16 = |v: f64| (v * 65535.0).round() / 65535.0;
        let packed8: u32 = [x, y, 0.5, -1.0]
            .iter()
            .enumerate()
            .map(|(k, v)| (((v.clamp(-1.0, 1.0) * 127.0).round() as i32 as u32) & 0xff) << (8 * k))
            .sum();
        let nn = norm(p);
        let nq = norm(q);
        let refl = {
            let d = dot(p, nq);
            p[0] - 2.0 * d * nq[0]
        };
        let refr = {
            let (eta, d) = (0.5, dot(nq, nn));
            let k = 1.0 - eta * eta * (1.0 - d * d);
            eta * nn[1] - (eta * d + k.sqrt()) * nq[1]
        };
        let cr_y = p[2] * q[0] - p[0] * q[2];
        let lsb = f64::from((u as u32).trailing_zeros());
        let msb_s = if s < 0.0 {
            31.0 - f64::from((!(s as i32)).leading_zeros())
        } else {
            31.0 - f64::from((s as i32).leading_zeros())
        };
        let msb_u = 31.0 - f64::from((u as u32).leading_zeros());
        let want: [f64; 44] = [
            (x * 5.0).round(),
            (x * 5.0).round_ties_even(),
            (x * 5.0).trunc(),
            x.abs(),
            s.abs(),
            sign(x),
            sign(s),
            (x * 5.0).floor(),
            (x * 5.0).ceil(),
            x * 5.0 - (x * 5.0).floor(),
            (x * 90.0).to_radians(),
            x.to_degrees(),
            x.asin(),
            y.acos(),
            x.asin() + y.acos(),
            x.atan(),
            x.sinh() + y.cosh(),
            x.tanh(),
            x.asinh() + (1.0 + y.abs()).acosh() + x.atanh(),
            x.atan2(y),
            (x.abs() + 0.5).powf(y),
            x.exp() + (y.abs() + 0.1).ln(),
            x.exp2() + (y.abs() + 0.1).log2(),
            x.abs().sqrt() + 1.0 / (y.abs() + 0.1).sqrt(),
            2.0 * x - y,
            2.0 / (2.0 * x - y),
            (x * 5.0).fract() + 10.0 * (x * 5.0).trunc(),
            x.min(y) + 10.0 * x.max(y) + 100.0 * x.clamp(-0.25, 0.25),
            u.min(12.0) + 100.0 * u.max(12.0) + 10000.0 * u.clamp(8.0, 14.0),
            s.min(2.0) + 100.0 * s.max(2.0) + 10000.0 * s.clamp(-2.0, 4.0),
            x * 0.75 + y * 0.25,
            f64::from(u8::from(x >= 0.1)) + 2.0 * smooth(-0.5, 0.5, y),
            x * y + 0.5,
            m + 10.0 * e,
            x * 8.0,
            f64::from(f32::from_bits(packed8 & 0x7f_ffff)) + snorm8(y),
            unorm8(x.abs()) + snorm16(y) + unorm16(x.abs()) + f64::from(half(y as f32)),
            dot(p, p).sqrt() + {
                let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
                dot(d, d).sqrt()
            },
            cr_y,
            nn[0],
            if dot([1.0; 3], q) < 0.0 { p[2] } else { -p[2] },
            refl,
            refr,
            lsb + 10.0 * msb_s + 100.0 * msb_u,
        ];
        for (k, w) in want.iter().enumerate() {
            // Denormal pack results are compared by their bits' value, which the USC keeps.
            let tol = if k == 35 { 1e-3 } else { 2e-5 };
            close(
                o[i * 48 + k],
                *w,
                tol,
                &format!("result {k} for x = {x}, y = {y}"),
            );
        }
    }
    // NMin, NMax, NClamp in place of FMin, FMax, FClamp: the same results for numbers.
    let n_src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float a[16]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    float y = a[i + 8u];
    o[i * 3u] = min(x, y);
    o[i * 3u + 1u] = max(x, y);
    o[i * 3u + 2u] = clamp(x, -0.25, y);
}
"#;
    let w = common::glslang(n_src).expect("glslang");
    let mut m = rspirv::dr::load_words(&w).expect("parse");
    let mut patched = 0;
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                if let Some(rspirv::dr::Operand::LiteralExtInstInteger(n)) =
                    inst.operands.get_mut(1)
                {
                    if let Some(to) = [(37, 79), (40, 80), (43, 81)]
                        .iter()
                        .find(|(from, _)| *from == *n)
                    {
                        *n = to.1;
                        patched += 1;
                    }
                }
            }
        }
    }
    assert_eq!(patched, 3);
    use rspirv::binary::Assemble;
    let r = run_spirv(
        &m.assemble(),
        &[f32s(&xs), vec![0; 8 * 3 * 4]],
        [1, 1, 1],
        &[],
    );
    let o = as_f32(&r[1]);
    for i in 0..8 {
        let (x, y) = (xs[i], xs[i + 8]);
        assert_eq!(o[i * 3], x.min(y));
        assert_eq!(o[i * 3 + 1], x.max(y));
        assert_eq!(o[i * 3 + 2], x.max(-0.25).min(y));
    }
}

/// The f16 a value rounds to, as f32 (round to nearest even).
fn half(v: f32) -> f32 {
    let b = v.to_bits();
    let sign = b & 0x8000_0000;
    let mag = f32::from_bits(b & 0x7fff_ffff);
    // Values here are normal f16s: keep 10 mantissa bits, rounding to nearest even.
    let bits = mag.to_bits();
    let drop = 13;
    let rem = bits & ((1 << drop) - 1);
    let half_way = 1 << (drop - 1);
    let mut kept = bits >> drop;
    if rem > half_way || (rem == half_way && kept & 1 == 1) {
        kept += 1;
    }
    f32::from_bits(sign | (kept << drop))
}
