//! Dispatch-level features: push constants, specialisation constants, workgroup built-ins,
//! vkCmdDispatchBase, vkCmdDispatchIndirect, chained dispatches with barriers and events,
//! and transfer commands with timestamps.

use super::{
    bits, floats, input, ints, last_from, output, output_f, rand, rand_f, simple, words_i,
};
use crate::corpus::case::{bytes, Buffer, Case, Init, Pipe, Step, Tol};

/// What builtins_3d.comp writes for the workgroups `base .. base + groups` into `o`
/// (a 12x4x4 grid of invocations, 16 words each).
fn builtins(mut o: Vec<u32>, base: [u32; 3], groups: [u32; 3]) -> Vec<u32> {
    let size = [4u32, 2, 2];
    for wz in base[2]..base[2] + groups[2] {
        for wy in base[1]..base[1] + groups[1] {
            for wx in base[0]..base[0] + groups[0] {
                for lz in 0..size[2] {
                    for ly in 0..size[1] {
                        for lx in 0..size[0] {
                            let g = [wx * size[0] + lx, wy * size[1] + ly, wz * size[2] + lz];
                            let at = (((g[2] * 4 + g[1]) * 12 + g[0]) * 16) as usize;
                            let lidx = lx + ly * size[0] + lz * size[0] * size[1];
                            o[at..at + 16].copy_from_slice(&[
                                g[0], g[1], g[2], lx, ly, lz, wx, wy, wz, groups[0], groups[1],
                                groups[2], lidx, size[0], size[1], size[2],
                            ]);
                        }
                    }
                }
            }
        }
    }
    o
}

const GRID_WORDS: usize = 12 * 4 * 4 * 16;

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();

    // Push constants: vec4 scale, uint count, int offset, float bias, uint mode (32 bytes).
    let push = |scale: [f32; 4], count: u32, offset: i32, bias: f32, mode: u32| {
        let mut w = bits(&scale);
        w.extend([count, offset as u32, bias.to_bits(), mode]);
        bytes(&w)
    };
    v.push(Case {
        push_size: 32,
        steps: vec![
            Step::Push(push([1.0, 2.0, 0.5, -1.0], 40, -7, 0.25, 0)),
            Step::Dispatch {
                pipe: 0,
                groups: [4, 1, 1],
            },
            Step::Push(push([3.0, 3.0, 3.0, 3.0], 64, 100, -1.0, 1)),
            Step::Dispatch {
                pipe: 0,
                groups: [4, 1, 1],
            },
        ],
        // Products of quarter-steps and small scales are exact; a fused add still is.
        tol: Tol::EXACT,
        ..simple(
            "push_constants",
            "push_constants.comp",
            vec![
                input(bits(&rand_f(80, 64, -50.0, 50.0, 0.25))),
                output_f(128),
                output(128),
            ],
            [0, 0, 0],
            Box::new(|init| {
                let a = floats(&init[0]);
                let mut o = vec![0.0f32; 128];
                let mut q = vec![0i32; 128];
                let scales = [[1.0f32, 2.0, 0.5, -1.0], [3.0; 4]];
                let (counts, offsets, biases) = ([40, 64], [-7, 100], [0.25f32, -1.0]);
                for mode in 0..2 {
                    for i in 0..counts[mode] {
                        o[mode * 64 + i] = a[i] * scales[mode][i % 4] + biases[mode];
                        q[mode * 64 + i] = i as i32 + offsets[mode];
                    }
                }
                vec![init[0].clone(), bits(&o), words_i(&q)]
            }),
        )
    });

    // Two pipelines from one module: local size 32 x7 -3 at base 0; local size 8 x3 with
    // the offset left at its default 0, at base 64.
    v.push(Case {
        pipes: vec![
            Pipe {
                shader: "spec_constants.comp",
                spec: vec![(0, 32), (1, 7), (2, -3i32 as u32), (3, 0)],
            },
            Pipe {
                shader: "spec_constants.comp",
                spec: vec![(0, 8), (1, 3), (3, 64)],
            },
        ],
        steps: vec![
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
            Step::Dispatch {
                pipe: 1,
                groups: [8, 1, 1],
            },
        ],
        ..simple(
            "spec_constants",
            "spec_constants.comp",
            vec![
                input(
                    rand(81, 64)
                        .iter()
                        .map(|r| ((r % 2001) as i32 - 1000) as u32)
                        .collect(),
                ),
                output(128),
                output(128),
            ],
            [0, 0, 0],
            Box::new(|init| {
                let a = ints(&init[0]);
                let mut o = vec![0i32; 128];
                let mut s = vec![0u32; 128];
                for i in 0..64 {
                    o[i] = a[i] * 7 - 3;
                    s[i] = 32 * 1000 + (i as u32 % 32);
                    o[64 + i] = a[i] * 3;
                    s[64 + i] = 8 * 1000 + (i as u32 % 8);
                }
                vec![init[0].clone(), words_i(&o), s]
            }),
        )
    });

    v.push(simple(
        "builtins_3d",
        "builtins_3d.comp",
        vec![output(GRID_WORDS)],
        [3, 2, 2],
        Box::new(|init| vec![builtins(init[0].clone(), [0, 0, 0], [3, 2, 2])]),
    ));

    v.push(Case {
        steps: vec![Step::Base {
            pipe: 0,
            base: [1, 0, 1],
            groups: [2, 2, 1],
        }],
        ..simple(
            "builtins_dispatch_base",
            "builtins_3d.comp",
            vec![Buffer {
                init: Init::Fill {
                    words: GRID_WORDS,
                    value: u32::MAX,
                },
                ..output(0)
            }],
            [0, 0, 0],
            Box::new(|init| vec![builtins(init[0].clone(), [1, 0, 1], [2, 2, 1])]),
        )
    });

    // A dispatch computes (a0+1, a1*2, a2) = (2, 2, 1) at byte 16 of a buffer; after a
    // barrier, vkCmdDispatchIndirect reads it.
    v.push(Case {
        pipes: vec![
            Pipe {
                shader: "indirect_counts.comp",
                spec: vec![],
            },
            Pipe {
                shader: "builtins_3d.comp",
                spec: vec![],
            },
        ],
        steps: vec![
            Step::Dispatch {
                pipe: 0,
                groups: [1, 1, 1],
            },
            Step::Barrier,
            Step::Indirect {
                pipe: 1,
                buffer: 2,
                offset: 16,
            },
        ],
        ..simple(
            "builtins_indirect",
            "",
            vec![output(GRID_WORDS), input(vec![1, 1, 1]), output(8)],
            [0, 0, 0],
            Box::new(|init| {
                vec![
                    builtins(init[0].clone(), [0, 0, 0], [2, 2, 1]),
                    init[1].clone(),
                    vec![0, 0, 0, 0, 2, 2, 1, 0],
                ]
            }),
        )
    });

    v.push(simple(
        "local_size_3d_128",
        "local_size_3d_128.comp",
        vec![output(256)],
        [1, 2, 1],
        Box::new(|_| {
            let mut o = Vec::new();
            for _g in 0..2 {
                for z in 0..4u32 {
                    for y in 0..4u32 {
                        for x in 0..8u32 {
                            let idx = x + y * 8 + z * 32;
                            o.push((x | (y << 8) | (z << 16)) ^ (idx << 24));
                        }
                    }
                }
            }
            vec![o]
        }),
    ));

    // Three dependent dispatches; each reads values other workgroups wrote in the previous one.
    v.push(Case {
        push_size: 4,
        steps: vec![
            Step::Push(bytes(&[0])),
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
            Step::Barrier,
            Step::Push(bytes(&[1])),
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
            Step::Barrier,
            Step::Push(bytes(&[2])),
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
        ],
        ..simple(
            "chain_barriers",
            "chain_stage.comp",
            vec![input(rand(82, 128)), output(128), output(128)],
            [0, 0, 0],
            Box::new(|init| {
                let a0 = &init[0];
                let n = 128;
                let b: Vec<u32> = a0
                    .iter()
                    .map(|x| x.wrapping_mul(3).wrapping_add(1))
                    .collect();
                let c: Vec<u32> = (0..n).map(|i| b[i].wrapping_add(b[(i + 65) % n])).collect();
                let a: Vec<u32> = (0..n).map(|i| c[n - 1 - i] ^ c[i]).collect();
                vec![a, b, c]
            }),
        )
    });

    v.push(Case {
        push_size: 4,
        steps: vec![
            Step::Push(bytes(&[0])),
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
            Step::Event,
            Step::Push(bytes(&[1])),
            Step::Dispatch {
                pipe: 0,
                groups: [2, 1, 1],
            },
        ],
        ..simple(
            "chain_event",
            "chain_event.comp",
            vec![input(rand(83, 64)), output(64), output(64)],
            [0, 0, 0],
            Box::new(|init| {
                let b: Vec<u32> = init[0]
                    .iter()
                    .enumerate()
                    .map(|(i, x)| x.wrapping_add(i as u32))
                    .collect();
                let c: Vec<u32> = (0..64).map(|i| b[63 - i].wrapping_mul(5)).collect();
                vec![init[0].clone(), b, c]
            }),
        )
    });

    // Transfer commands one at a time, then all together: inputs from vkCmdFillBuffer and
    // vkCmdUpdateBuffer, results read back through vkCmdCopyBuffer, timestamps around it all.
    v.push(transfer_case("fill_update", true, false, false));
    v.push(uint_arith_with("copy_readback", true, false));
    v.push(uint_arith_with("timestamps", false, true));
    v.push(transfer_case("transfer_init_timestamps", true, true, true));

    v
}

/// transfer_init.comp with inputs from the host or from fill/update commands.
fn transfer_case(name: &'static str, gpu_init: bool, copy_back: bool, timestamps: bool) -> Case {
    let upd = rand(84, 64);
    let buffers = if gpu_init {
        vec![
            Buffer {
                init: Init::Fill {
                    words: 64,
                    value: 7,
                },
                ..output(0)
            },
            Buffer {
                init: Init::Update(upd),
                ..output(0)
            },
            Buffer {
                init: Init::Fill {
                    words: 64,
                    value: 0x100,
                },
                ..output(0)
            },
        ]
    } else {
        vec![input(vec![7; 64]), input(upd), input(vec![0x100; 64])]
    };
    Case {
        copy_back,
        timestamps,
        ..simple(
            name,
            "transfer_init.comp",
            buffers,
            [2, 1, 1],
            last_from(|b| {
                (0..64)
                    .map(|i| 0x100u32.wrapping_add(b[0][i] * 2).wrapping_add(b[1][i]))
                    .collect()
            }),
        )
    }
}

/// uint_arith.comp's computation (o = a + b, ...) with readback by copy and/or timestamps.
fn uint_arith_with(name: &'static str, copy_back: bool, timestamps: bool) -> Case {
    Case {
        copy_back,
        timestamps,
        ..simple(
            name,
            "uint_arith.comp",
            vec![input(rand(85, 64)), input(rand(86, 64)), output(64 * 5)],
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
        )
    }
}
