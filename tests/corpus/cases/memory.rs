//! Shared memory with barriers, storage and shared atomics, std140/std430 layouts, uniform
//! buffers, dynamic offsets and OpArrayLength.

use super::{
    bits, floats, input, ints, last_from, output, output_f, rand, simple, uniform, words_i,
};
use crate::corpus::case::{Buffer, Case, Check, Desc, Tol};

/// Words whose value must never reach a result: std140/std430 padding.
const PAD: u32 = 0x4640_e400; // 12345.0

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    v.push(simple(
        "shared_reduce",
        "shared_reduce.comp",
        vec![input(rand(60, 512)), output(4)],
        [4, 1, 1],
        last_from(|b| {
            b[0].chunks(128)
                .map(|c| c.iter().fold(0u32, |s, &x| s.wrapping_add(x)))
                .collect()
        }),
    ));

    let scan_in: Vec<u32> = rand(61, 128).iter().map(|r| r % 1000).collect();
    v.push(simple(
        "shared_scan_hillis_steele",
        "shared_scan_hs.comp",
        vec![input(scan_in.clone()), output(128)],
        [2, 1, 1],
        last_from(|b| {
            b[0].chunks(64)
                .flat_map(|c| {
                    c.iter().scan(0u32, |s, &x| {
                        *s += x;
                        Some(*s)
                    })
                })
                .collect()
        }),
    ));

    v.push(simple(
        "shared_scan_blelloch",
        "shared_scan_blelloch.comp",
        vec![input(scan_in), output(128)],
        [2, 1, 1],
        last_from(|b| {
            b[0].chunks(64)
                .flat_map(|c| {
                    c.iter().scan(0u32, |s, &x| {
                        let before = *s;
                        *s += x;
                        Some(before)
                    })
                })
                .collect()
        }),
    ));

    v.push(simple(
        "shared_transpose",
        "shared_transpose.comp",
        vec![input(rand(62, 16 * 24)), output(16 * 24)],
        [3, 2, 1],
        last_from(|b| {
            let mut o = vec![0; 16 * 24];
            for r in 0..16 {
                for c in 0..24 {
                    o[c * 16 + r] = b[0][r * 24 + c];
                }
            }
            o
        }),
    ));

    v.push(simple(
        "shared_stencil3d",
        "shared_stencil3d.comp",
        vec![
            input(rand(63, 128).iter().map(|r| r % 10000).collect()),
            output(128),
        ],
        [2, 1, 1],
        last_from(|b| {
            let at = |x: usize, y: usize, z: usize| b[0][(z * 4 + y) * 8 + x];
            let mut o = vec![0; 128];
            for z in 0..4 {
                for y in 0..4 {
                    for x in 0..8 {
                        let (lx, tile) = (x % 4, x - x % 4);
                        let mut s = at(x, y, z) * 6;
                        if lx > 0 {
                            s += at(tile + lx - 1, y, z);
                        }
                        if lx < 3 {
                            s += at(tile + lx + 1, y, z);
                        }
                        if y > 0 {
                            s += at(x, y - 1, z);
                        }
                        if y < 3 {
                            s += at(x, y + 1, z);
                        }
                        if z > 0 {
                            s += at(x, y, z - 1);
                        }
                        if z < 3 {
                            s += at(x, y, z + 1);
                        }
                        o[(z * 4 + y) * 8 + x] = s;
                    }
                }
            }
            o
        }),
    ));

    v.push(simple(
        "atomic_histogram",
        "atomic_histogram.comp",
        vec![input(rand(64, 1024)), output(17)],
        [16, 1, 1],
        last_from(|b| {
            let mut h = vec![0u32; 17];
            for &x in &b[0] {
                h[0] = h[0].wrapping_add(x & 0xff);
                h[1 + (x % 16) as usize] += 1;
            }
            h
        }),
    ));

    let mm: Vec<u32> = rand(65, 64)
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            if i % 2 == 0 {
                r
            } else {
                ((r % 201) as i32 - 100) as u32
            }
        })
        .collect();
    let mut mm_init = Vec::new();
    mm_init.extend(words_i(&[50; 8]));
    mm_init.extend(words_i(&[-50; 8]));
    mm_init.extend([0xf000_0000u32; 8]);
    mm_init.extend([5u32; 8]);
    v.push(simple(
        "atomic_minmax",
        "atomic_minmax.comp",
        vec![input(mm), input(mm_init)],
        [2, 1, 1],
        Box::new(|b| {
            let a = ints(&b[0]);
            let mut r = b[1].clone();
            for (i, &x) in a.iter().enumerate() {
                let k = i % 8;
                r[k] = (r[k] as i32).min(x) as u32;
                r[8 + k] = (r[8 + k] as i32).max(x) as u32;
                r[16 + k] = r[16 + k].min(x as u32);
                r[24 + k] = r[24 + k].max(x as u32);
            }
            vec![b[0].clone(), r]
        }),
    ));

    let mut xchg = vec![0u32; 65];
    xchg[0] = 1000;
    v.push(simple(
        "atomic_exchange",
        "atomic_exchange.comp",
        vec![Buffer {
            check: Check::Sorted,
            ..input(xchg)
        }],
        [1, 1, 1],
        Box::new(|_| vec![std::iter::once(1000).chain(1..=64).collect()]),
    ));

    let mut fixed: Vec<u32> = (0..64).map(|i| i * 3).collect();
    fixed[5] = 12345;
    v.push(simple(
        "atomic_compswap",
        "atomic_compswap.comp",
        vec![output(24), input(fixed), output(64)],
        [2, 1, 1],
        Box::new(|init| {
            let mut f = vec![1u32; 8];
            f.extend([1u32; 8]);
            f.extend([7u32; 8]);
            let mut c = init[1].clone();
            c[5] = 7;
            vec![f, c, init[1].clone()]
        }),
    ));

    let mut bits_init = vec![0u32; 10];
    bits_init[4..8].fill(u32::MAX);
    bits_init[8] = 0x1234;
    v.push(simple(
        "atomic_bits",
        "atomic_bits.comp",
        vec![input(rand(66, 64)), input(bits_init)],
        [1, 1, 1],
        Box::new(|b| {
            let mut r = b[1].clone();
            for (i, &x) in b[0].iter().enumerate() {
                r[i / 32] |= 1 << (i % 32);
                r[2 + i / 32] |= 1 << (i % 32);
                if x & 1 != 0 {
                    r[4 + i / 32] &= !(1 << (i % 32));
                }
                r[8] ^= x;
                r[9] += 1;
            }
            vec![b[0].clone(), r]
        }),
    ));

    let sa: Vec<u32> = rand(67, 256)
        .iter()
        .map(|r| ((r % 2_000_001) as i32 - 1_000_000) as u32)
        .collect();
    v.push(simple(
        "shared_atomics",
        "shared_atomics.comp",
        vec![input(sa), output(22)],
        [2, 1, 1],
        last_from(|b| {
            let a = ints(&b[0]);
            let mut o = Vec::new();
            for g in a.chunks(128) {
                let mut bins = [0i32; 8];
                let mut orbits = 0u32;
                for &x in g {
                    bins[(x as u32 % 8) as usize] += 1;
                    orbits |= 1 << (x as u32 % 32);
                }
                o.extend(bins);
                o.extend([
                    *g.iter().min().unwrap(),
                    *g.iter().max().unwrap(),
                    orbits as i32,
                ]);
            }
            words_i(&o)
        }),
    ));

    // std140: a.xyz b | arr[0] pad | arr[1] pad | arr[2] pad | arr[3] pad | m (4 columns) | v | u pad.
    let mut ubo = vec![PAD; 44];
    ubo[0..4].copy_from_slice(&bits(&[1.0, 2.0, 3.0, 4.0]));
    for (k, x) in [5.0f32, 6.0, 7.0, 8.0].iter().enumerate() {
        ubo[4 + 4 * k] = x.to_bits();
    }
    for c in 0..4 {
        for r in 0..4 {
            ubo[20 + c * 4 + r] = ((c * 4 + r + 1) as f32).to_bits();
        }
    }
    ubo[36..40].copy_from_slice(&bits(&[1.0, -1.0, 2.0, 0.5]));
    ubo[40] = 7;
    ubo[41] = 9;
    v.push(Case {
        tol: Tol::ulp(1),
        ..simple(
            "std140_ubo",
            "std140_ubo.comp",
            vec![uniform(ubo), output_f(10)],
            [1, 1, 1],
            last_from(|b| {
                let u = floats(&b[0]);
                let (a, bb) = (&u[0..3], u[3]);
                let mut o: Vec<f32> = a.iter().map(|x| x * bb).collect();
                o.push(u[4] + u[8] * 10.0 + u[12] * 100.0 + u[16] * 1000.0);
                for r in 0..4 {
                    o.push((0..4).map(|c| u[20 + c * 4 + r] * u[36 + c]).sum());
                }
                o.push((b[0][40] + b[0][41]) as f32);
                o.push(u[20 + 2 * 4 + 1]);
                bits(&o)
            }),
        )
    });

    // std140: s[i] = {p.xy, w, pad} at 16-byte stride, iv.xyz + k, tail.xy.
    let mut ubs = vec![PAD; 20];
    for i in 0..3 {
        let n = (i + 1) as f32;
        ubs[4 * i..4 * i + 3].copy_from_slice(&bits(&[n, 10.0 * n, 0.5 * (n + 1.0)]));
    }
    ubs[12..16].copy_from_slice(&words_i(&[3, -4, 5, 100]));
    ubs[16..18].copy_from_slice(&bits(&[2.5, 0.25]));
    v.push(Case {
        tol: Tol::ulp(1),
        ..simple(
            "std140_struct",
            "std140_struct.comp",
            vec![uniform(ubs), output_f(5)],
            [1, 1, 1],
            last_from(|b| {
                let u = floats(&b[0]);
                let iv = ints(&b[0][12..16]);
                let mut o: Vec<f32> = (0..3)
                    .map(|i| u[4 * i] * u[4 * i + 2] + u[4 * i + 1])
                    .collect();
                o.push((iv[0] + iv[1] * 2 + iv[2] * 3 + iv[3]) as f32);
                o.push(u[16] - u[17]);
                bits(&o)
            }),
        )
    });

    // std430 T: p.xyz w | arr[0].xyz pad | arr[1].xyz pad | tag pad pad pad  (64 bytes).
    let mut t = vec![PAD; 8 * 16];
    let vals = rand(68, 8 * 10);
    for i in 0..8 {
        let f: Vec<f32> = vals[i * 10..i * 10 + 10]
            .iter()
            .map(|r| (r % 21) as f32 - 10.0)
            .collect();
        t[i * 16..i * 16 + 4].copy_from_slice(&bits(&f[0..4]));
        t[i * 16 + 4..i * 16 + 7].copy_from_slice(&bits(&f[4..7]));
        t[i * 16 + 8..i * 16 + 11].copy_from_slice(&bits(&f[7..10]));
        t[i * 16 + 12] = vals[i * 10] % 1000;
    }
    v.push(simple(
        "std430_struct",
        "std430_struct.comp",
        vec![input(t), output(32)],
        [1, 1, 1],
        last_from(|b| {
            let t = floats(&b[0]);
            let mut o = Vec::new();
            for i in 0..8 {
                let s = &t[i * 16..i * 16 + 16];
                for c in 0..3 {
                    o.push((s[c] * s[3] + s[4 + c] - s[8 + c]).to_bits());
                }
                o.push(b[0][i * 16 + 12] * 2 + 1);
            }
            o
        }),
    ));

    // std430: scale pad pad pad | v[i].xyz pad ...
    let mut va = vec![PAD; 44];
    va[0] = 0.5f32.to_bits();
    let comps = rand(69, 30);
    for i in 0..10 {
        for c in 0..3 {
            va[4 + 4 * i + c] = ((comps[i * 3 + c] % 19) as f32 - 9.0).to_bits();
        }
    }
    v.push(Case {
        tol: Tol::EXACT,
        ..simple(
            "std430_vec3_array",
            "std430_vec3_array.comp",
            vec![input(va), output(1), output_f(16)],
            [1, 1, 1],
            Box::new(|init| {
                let f = floats(&init[0]);
                let mut o = vec![0.0f32; 16];
                for (i, x) in o.iter_mut().enumerate().take(10) {
                    let p = &f[4 + 4 * i..7 + 4 * i];
                    *x = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) * f[0];
                }
                vec![init[0].clone(), vec![10], bits(&o)]
            }),
        )
    });

    v.push(simple(
        "array_length",
        "array_length.comp",
        vec![
            input(rand(70, 44)),
            Buffer {
                range: Some(96),
                ..input(rand(71, 44))
            },
            Buffer {
                range: Some(40),
                ..input(rand(72, 20))
            },
            output(4),
        ],
        [1, 1, 1],
        last_from(|_| vec![10, 5, 10, 4]),
    ));

    let mut table = Vec::new();
    for j in 0..16i32 {
        table.extend(bits(&[j as f32, (j + 1) as f32, (2 * j) as f32, -j as f32]));
    }
    table.extend([1, 2, 3, 4]);
    v.push(Case {
        tol: Tol::ulp(1),
        ..simple(
            "ubo_read",
            "ubo_read.comp",
            vec![uniform(table), input(rand(73, 32)), output_f(32)],
            [2, 1, 1],
            last_from(|b| {
                let t = floats(&b[0]);
                let o: Vec<f32> = (0..32)
                    .map(|i| {
                        let j = (b[1][i] & 15) as usize;
                        let e = &t[j * 4..j * 4 + 4];
                        e[0] + e[1] * 2.0 + e[2] * 4.0 + e[3] * 8.0 + b[0][64 + i % 4] as f32
                    })
                    .collect();
                bits(&o)
            }),
        )
    });

    let mut kbuf = vec![0xbad0_bad0u32; 128];
    for j in 0..4u32 {
        kbuf[64 + 4 * j as usize] = j * 10 + 1;
        kbuf[64 + 4 * j as usize + 3] = j * 100;
    }
    v.push(simple(
        "dynamic_offsets",
        "dynamic_offsets.comp",
        vec![
            Buffer {
                desc: Desc::StorageDynamic(256),
                range: Some(256),
                ..input(rand(74, 128).iter().map(|r| r % 1000).collect())
            },
            Buffer {
                desc: Desc::UniformDynamic(256),
                range: Some(64),
                ..input(kbuf)
            },
            Buffer {
                desc: Desc::StorageDynamic(256),
                range: Some(256),
                ..input(rand(75, 128))
            },
        ],
        [4, 1, 1],
        last_from(|b| {
            let mut o = rand(75, 128);
            for i in 0..64 {
                let k = 64 + 4 * (i % 4);
                o[64 + i] = b[0][64 + i] * 2 + b[1][k] + b[1][k + 3] + 64;
            }
            o
        }),
    ));

    v
}
