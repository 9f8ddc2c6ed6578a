//! Graphics instructions run through `run_graphics`: expectations come from formulas written
//! out in the tests (plane equations, tilebuffer addressing), not from the executor.

use super::*;
use hw::isa::*;

fn prog(instrs: Vec<Instr>) -> Program {
    let code = instrs
        .into_iter()
        .enumerate()
        .map(|(i, x)| ((i * 8) as u32, x))
        .collect();
    Program::new(0x1_0000, code).unwrap()
}

fn mov(r: Reg, v: u32) -> Instr {
    Instr::MovImm(MovImm {
        dst: Dst::from(r),
        imm: v,
    })
}

/// The lane index (in a fragment launch, grid position X is the lane's pixel instead).
fn tid(r: Reg) -> Instr {
    Instr::GetSr(GetSr {
        dst: Dst::from(r),
        sr: SpecialReg::THREAD_INDEX_IN_SIMDGROUP,
    })
}

fn add_imm(dst: Reg, a: Reg, v: u32) -> Instr {
    Instr::IAdd(IAdd {
        dst: Dst::from(dst),
        a: ISrc::new(Operand::Reg(a)),
        b: ISrc::new(Operand::Imm(v)),
        negate_b: false,
        shift: 0,
        saturate: false,
    })
}

const OUT: u64 = 0x10_0000;

/// Stores 32-bit `r` of each lane to OUT[slot * 32 + lane]; `r1` must hold the lane index.
fn store(r: Reg, slot: u16) -> Vec<Instr> {
    vec![
        add_imm(Reg::r32(60), Reg::r32(1), u32::from(slot) * 32),
        Instr::DeviceMem(DeviceMem {
            store: true,
            reg: r,
            base: Operand::Uniform(Reg {
                half: 0,
                size: Size::S64,
            }),
            index: Index::Reg(Reg::r32(60)),
            index_unsigned: true,
            shift: 0,
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
    ]
}

fn launch(lanes: u32) -> (LaunchState, FlatMemory) {
    let mut m = FlatMemory::new();
    m.map(OUT, vec![0; 32 * 8 * 4]);
    let mut l = LaunchState::new([lanes, 1, 1], [lanes, 1, 1]);
    for h in 0..4 {
        l.uniforms[h] = (OUT >> (16 * h)) as u16;
    }
    (l, m)
}

fn out(m: &FlatMemory, slot: usize, lane: usize) -> u32 {
    let b = m.bytes(OUT + ((slot * 32 + lane) * 4) as u64, 4).unwrap();
    u32::from_le_bytes(b.try_into().unwrap())
}

fn close(got: f32, want: f64) -> bool {
    (f64::from(got) - want).abs() <= 1e-5 * want.abs().max(1.0)
}

#[test]
fn iter_interpolates_plane_equations() {
    let inv_w = Plane {
        a: 0.01,
        b: 0.02,
        c: 0.5,
    };
    let u_over_w = Plane {
        a: 0.3,
        b: -0.1,
        c: 2.0,
    };
    let v = Plane {
        a: -1.5,
        b: 0.25,
        c: 7.0,
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        // Perspective-correct u at the centre, linear u/w and v at the centre, and linear v at
        // sample 1.
        Instr::Iter(Iter {
            dst: Reg::r32(2),
            channels: 1,
            cf: 1,
            perspective_w: Some(0),
            interp: Interpolation::Center,
        }),
        Instr::Iter(Iter {
            dst: Reg::r32(4),
            channels: 2,
            cf: 1,
            perspective_w: None,
            interp: Interpolation::Center,
        }),
        Instr::Iter(Iter {
            dst: Reg::r32(6),
            channels: 1,
            cf: 2,
            perspective_w: None,
            interp: Interpolation::Sample(Small::Imm(1)),
        }),
    ];
    for (k, r) in [2, 4, 5, 6].into_iter().enumerate() {
        code.extend(store(Reg::r32(r), k as u16));
    }
    code.push(Instr::Stop);
    let p = prog(code);
    let (l, mut m) = launch(16);
    let mut f = FragmentContext::new([4, 4], 2, 4);
    f.set_planes(&[inv_w, u_over_w, v]);
    f.sample_positions = vec![[0.25, 0.25], [0.75, 0.75]];
    for i in 0..16 {
        f.lane_pixels[i] = [10 + i as u32 % 4, 20 + i as u32 / 4];
    }
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&p, &l, &mut m, &mut gfx).unwrap();
    for lane in 0..16 {
        let x = 10.0 + (lane % 4) as f64;
        let y = 20.0 + (lane / 4) as f64;
        let (cx, cy) = (x + 0.5, y + 0.5);
        let w_recip = 0.01 * cx + 0.02 * cy + 0.5;
        let uw = 0.3 * cx - 0.1 * cy + 2.0;
        let got = |s| f32::from_bits(out(&m, s, lane));
        assert!(
            close(got(0), uw / w_recip),
            "lane {lane}: {} vs {}",
            got(0),
            uw / w_recip
        );
        assert!(close(got(1), uw), "lane {lane}");
        assert!(close(got(2), -1.5 * cx + 0.25 * cy + 7.0), "lane {lane}");
        let (sx, sy) = (x + 0.75, y + 0.75);
        assert!(close(got(3), -1.5 * sx + 0.25 * sy + 7.0), "lane {lane}");
    }
}

#[test]
fn ldcf_loads_raw_coefficients() {
    let mut code = vec![
        tid(Reg::r32(1)),
        Instr::LdCf(LdCf {
            dst: Reg::r32(10),
            channels: 1,
            cf: 1,
        }),
    ];
    for k in 0..3 {
        code.extend(store(Reg::r32(10 + k), k));
    }
    code.push(Instr::Stop);
    let (l, mut m) = launch(4);
    let mut f = FragmentContext::new([2, 2], 1, 4);
    f.set_planes(&[
        Plane::default(),
        Plane {
            a: 1.5,
            b: -2.0,
            c: 9.25,
        },
    ]);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    for lane in 0..4 {
        assert_eq!(out(&m, 0, lane), 1.5f32.to_bits());
        assert_eq!(out(&m, 1, lane), (-2.0f32).to_bits());
        assert_eq!(out(&m, 2, lane), 9.25f32.to_bits());
    }
}

#[test]
fn st_tile_then_ld_tile_round_trip() {
    const SAMPLES: u32 = 2;
    const BPS: u32 = 8;
    let mut code = vec![
        tid(Reg::r32(1)),
        add_imm(Reg::r32(2), Reg::r32(1), 0x1234_0100),
        // Broadcast to both samples at byte 4 of each sample record.
        Instr::TileMem(TileMem {
            store: true,
            reg: Reg::r32(2),
            format: MemFormat::I32,
            mask: 1,
            pixel_offset: 4,
            samples: Small::Imm(0xff),
            coords: None,
        }),
        // Read it back from sample 1 as two 16-bit elements.
        mov(Reg::r16(6), 2),
        Instr::TileMem(TileMem {
            store: false,
            reg: Reg::r16(8),
            format: MemFormat::I16,
            mask: 0b11,
            pixel_offset: 4,
            samples: Small::Reg(Reg::r16(6)),
            coords: None,
        }),
    ];
    code.extend(store(Reg::r32(4), 0));
    code.push(Instr::Stop);
    let (l, mut m) = launch(16);
    let mut f = FragmentContext::new([4, 4], SAMPLES, BPS);
    f.tile_origin = [8, 4];
    for i in 0..16u32 {
        f.lane_pixels[i as usize] = [8 + (15 - i) % 4, 4 + (15 - i) / 4];
    }
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let f = gfx.fragment.unwrap();
    let mut want = vec![0u8; 16 * (SAMPLES * BPS) as usize];
    for lane in 0..16u32 {
        let (x, y) = ((15 - lane) % 4, (15 - lane) / 4);
        for s in 0..SAMPLES {
            let at = (((y * 4 + x) * SAMPLES + s) * BPS + 4) as usize;
            want[at..at + 4].copy_from_slice(&(0x1234_0100 + lane).to_le_bytes());
        }
        assert_eq!(out(&m, 0, lane as usize), 0x1234_0100 + lane, "lane {lane}");
    }
    assert_eq!(f.tilebuffer, want);
}

/// `st_tile` in a normalised format converts f32 registers (clamped, NaN as 0, rounded as
/// image stores round) and `ld_tile` converts back, to f32 or to f16 in a 16-bit register.
#[test]
fn normalised_tile_formats_convert() {
    let inputs = [0.5f32, 2.0, -0.25, f32::NAN];
    let tile = |store: bool, reg: Reg, format: MemFormat, mask: u8, pixel_offset: u16| {
        Instr::TileMem(TileMem {
            store,
            reg,
            format,
            mask,
            pixel_offset,
            samples: Small::Imm(0xff),
            coords: None,
        })
    };
    let mut code = Vec::new();
    for (k, x) in inputs.iter().enumerate() {
        code.push(mov(Reg::r32(2 + k as u16), x.to_bits()));
    }
    code.extend([
        tile(true, Reg::r32(2), MemFormat::U8Norm, 0b1111, 0),
        tile(true, Reg::r32(2), MemFormat::S16Norm, 0b1111, 4),
        tile(false, Reg::r32(8), MemFormat::U8Norm, 0b1111, 0),
        tile(false, Reg::r16(24), MemFormat::S16Norm, 0b1, 4),
    ]);
    // r12 holds the f16 in its low half (registers start at zero).
    for k in 0..5 {
        code.extend(store(Reg::r32(8 + k), k));
    }
    code.push(Instr::Stop);
    let (l, mut m) = launch(1);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(FragmentContext::new([1, 1], 1, 12)),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let f = gfx.fragment.unwrap();
    // 0.5 * 255 = 127.5 rounds away from zero; 2.0 clamps to 1; -0.25 and NaN give 0.
    assert_eq!(&f.tilebuffer[0..4], &[128, 255, 0, 0]);
    let s16 = |i: usize| i16::from_le_bytes([f.tilebuffer[4 + 2 * i], f.tilebuffer[5 + 2 * i]]);
    // 0.5 * 32767 = 16383.5 rounds to 16384; -0.25 * 32767 = -8191.75 rounds to -8192.
    assert_eq!([s16(0), s16(1), s16(2), s16(3)], [16384, 32767, -8192, 0]);
    for (k, byte) in [128u32, 255, 0, 0].into_iter().enumerate() {
        assert_eq!(
            out(&m, k, 0),
            (byte as f32 / 255.0).to_bits(),
            "element {k}"
        );
    }
    let half = crate::texel::minifloat::f32_to_f16(16384.0 / 32767.0);
    assert_eq!(out(&m, 4, 0), u32::from(half));
}

#[test]
fn st_vary_writes_uvs_records() {
    let code = vec![
        tid(Reg::r32(1)),
        add_imm(Reg::r32(2), Reg::r32(1), 7),
        mov(Reg::r16(6), 3),
        Instr::StVary(StVary {
            src: Reg::r32(2),
            index: Small::Imm(1),
            last: false,
        }),
        Instr::StVary(StVary {
            src: Reg::r32(1),
            index: Small::Reg(Reg::r16(6)),
            last: true,
        }),
        Instr::Stop,
    ];
    let (l, mut m) = launch(5);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(4)),
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let v = gfx.vertex.unwrap();
    for lane in 0..32usize {
        let rec = &v.uvs[lane * 4..lane * 4 + 4];
        if lane < 5 {
            assert_eq!(rec, [0, lane as u32 + 7, 0, lane as u32]);
        } else {
            assert_eq!(rec, [0; 4]);
        }
    }
    assert_eq!(v.finished, 0b11111);
}

#[test]
fn sample_mask_and_zs_emit_are_recorded() {
    let code = vec![
        mov(Reg::r32(2), 0.25f32.to_bits()),
        mov(Reg::r16(6), 0x42),
        mov(Reg::r16(1), 0b0101),
        Instr::SampleMask(SampleMask {
            targets: Small::Imm(0b0110),
            live: Small::Reg(Reg::r16(1)),
        }),
        Instr::ZsEmit(ZsEmit {
            samples: Small::Imm(0b0011),
            src: Reg::r32(2),
            depth: true,
            stencil: true,
        }),
        Instr::Stop,
    ];
    let (l, mut m) = launch(3);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(FragmentContext::new([2, 2], 4, 4)),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let f = gfx.fragment.unwrap();
    for lane in 0..32 {
        let ran = lane < 3;
        // Sample 1 is targeted but not live: discarded. Sample 2 is targeted and live; samples
        // 0 and 3 are not targeted.
        assert_eq!(f.coverage[lane], if ran { 0b1101 } else { 0b1111 });
        for s in 0..MAX_SAMPLES {
            let hit = ran && s < 2;
            assert_eq!(f.depth[lane][s], hit.then_some(0.25));
            assert_eq!(f.stencil[lane][s], hit.then_some(0x42));
        }
    }
}

#[test]
fn graphics_instructions_without_context_fault() {
    let iter = Instr::Iter(Iter {
        dst: Reg::r32(2),
        channels: 1,
        cf: 0,
        perspective_w: None,
        interp: Interpolation::Center,
    });
    let st = Instr::StVary(StVary {
        src: Reg::r32(2),
        index: Small::Imm(0),
        last: true,
    });
    for (i, want) in [(iter, "fragment context"), (st, "vertex context")] {
        let (l, mut m) = launch(1);
        let r = run_workgroups(&prog(vec![i, Instr::Stop]), &l, &mut m);
        match r {
            Err(crate::Fault::Shader { reason, .. }) => assert!(reason.contains(want)),
            other => panic!("{other:?}"),
        }
    }
    // A tile access outside the record is an error too, not a silent clip.
    let (l, mut m) = launch(1);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(FragmentContext::new([1, 1], 1, 4)),
        vertex: None,
    };
    let ld = Instr::TileMem(TileMem {
        store: false,
        reg: Reg::r32(2),
        format: MemFormat::I32,
        mask: 0b11,
        pixel_offset: 0,
        samples: Small::Imm(1),
        coords: None,
    });
    assert!(run_graphics(&prog(vec![ld, Instr::Stop]), &l, &mut m, &mut gfx).is_err());
}

#[test]
fn texture_and_image_write_are_decoded_but_not_executed() {
    let tex = Instr::Texture(Texture {
        load: false,
        dst: Reg::r32(0),
        coords: Reg::r32(4),
        lod_mode: LodMode::Auto,
        lod: Operand::Imm(0),
        texture: TexIndex::Imm(0),
        sampler: Small::Imm(0),
        dim: TexDim::D2,
        mask: 0xf,
        shadow: false,
        offset: false,
        extra: None,
        gather: None,
        query_lod: false,
        wait_slot: 0,
    });
    let img = Instr::ImageWrite(ImageWrite {
        src: Reg::r32(0),
        coords: Reg::r32(4),
        lod: Small::Imm(0),
        texture: TexIndex::Imm(0),
        dim: TexDim::D2,
        coherent: false,
    });
    // With no texture state registers loaded neither can succeed.
    for i in [tex, img] {
        let (l, mut m) = launch(1);
        let mut gfx = GraphicsContext::default();
        let r = run_graphics(&prog(vec![i, Instr::Stop]), &l, &mut m, &mut gfx);
        assert!(r.is_err(), "{r:?}");
    }
}

#[test]
fn fragment_special_registers_read_pixels_and_facing() {
    let sr = |r: u16, sr: u8| {
        Instr::GetSr(GetSr {
            dst: Dst::from(Reg::r32(r)),
            sr: SpecialReg(sr),
        })
    };
    let mut code = vec![tid(Reg::r32(1)), sr(2, 80), sr(3, 81), sr(4, 62)];
    for k in 0..3u16 {
        code.extend(store(Reg::r32(2 + k), k));
    }
    code.push(Instr::Stop);
    // Facing is per lane: a group may shade quads of several primitives.
    for backfacing in [0u32, u32::MAX, 0b1111_0000] {
        let (l, mut m) = launch(8);
        let mut f = FragmentContext::new([4, 4], 1, 4);
        f.tile_origin = [32, 64];
        f.backfacing = backfacing;
        for i in 0..8 {
            f.lane_pixels[i] = [32 + (i as u32 * 3) % 4, 64 + i as u32 / 2];
        }
        let mut gfx = GraphicsContext {
            textures: Default::default(),
            fragment: Some(f),
            vertex: None,
        };
        run_graphics(&prog(code.clone()), &l, &mut m, &mut gfx).unwrap();
        for lane in 0..8 {
            assert_eq!(out(&m, 0, lane), 32 + (lane as u32 * 3) % 4);
            assert_eq!(out(&m, 1, lane), 64 + lane as u32 / 2);
            assert_eq!(out(&m, 2, lane), backfacing >> lane & 1);
        }
    }
}

/// `get_sr` 60 reads the lane's coverage as it is at that point: after the shader's own
/// `sample_mask` discards.
#[test]
fn coverage_mask_follows_sample_mask() {
    let cov = |r: u16| {
        Instr::GetSr(GetSr {
            dst: Dst::from(Reg::r32(r)),
            sr: SpecialReg::COVERAGE_MASK,
        })
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        cov(2),
        Instr::SampleMask(SampleMask {
            targets: Small::Imm(0b0011),
            live: Small::Imm(0b0001),
        }),
        cov(3),
    ];
    code.extend(store(Reg::r32(2), 0));
    code.extend(store(Reg::r32(3), 1));
    code.push(Instr::Stop);
    let (l, mut m) = launch(2);
    let mut f = FragmentContext::new([2, 2], 4, 4);
    f.coverage[0] = 0b1111;
    f.coverage[1] = 0b0110;
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    assert_eq!((out(&m, 0, 0), out(&m, 1, 0)), (0b1111, 0b1101));
    assert_eq!((out(&m, 0, 1), out(&m, 1, 1)), (0b0110, 0b0100));
}

#[test]
fn preloads_set_registers_per_lane() {
    let mut code = vec![tid(Reg::r32(1))];
    code.extend(store(Reg::r32(5), 0));
    code.extend(store(Reg::r32(6), 1));
    code.push(Instr::Stop);
    let (mut l, mut m) = launch(5);
    l.preloads = vec![
        Preload {
            reg: Reg::r32(5),
            values: vec![10, 11, 12, 13, 14],
        },
        Preload {
            reg: Reg::r32(6),
            values: vec![7, 7],
        },
    ];
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: None,
        vertex: Some(VertexContext::new(4)),
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    for lane in 0..5 {
        assert_eq!(out(&m, 0, lane), 10 + lane as u32);
        assert_eq!(out(&m, 1, lane), if lane < 2 { 7 } else { 0 });
    }
}

#[test]
fn st_tile_writes_only_covered_samples() {
    let code = vec![
        mov(Reg::r32(2), 0xabcd_0123),
        Instr::TileMem(TileMem {
            store: true,
            reg: Reg::r32(2),
            format: MemFormat::I32,
            mask: 1,
            pixel_offset: 0,
            samples: Small::Imm(0xff),
            coords: None,
        }),
        Instr::Stop,
    ];
    let (l, mut m) = launch(2);
    let mut f = FragmentContext::new([2, 1], 4, 4);
    f.lane_pixels[0] = [0, 0];
    f.lane_pixels[1] = [1, 0];
    f.coverage[0] = 0b0101;
    f.coverage[1] = 0b1000;
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let tb = &gfx.fragment.unwrap().tilebuffer;
    let word = |pixel: usize, s: usize| {
        let at = (pixel * 4 + s) * 4;
        u32::from_le_bytes(tb[at..at + 4].try_into().unwrap())
    };
    for (pixel, cov) in [(0, 0b0101u32), (1, 0b1000)] {
        for s in 0..4 {
            let want = if cov & (1 << s) != 0 { 0xabcd_0123 } else { 0 };
            assert_eq!(word(pixel, s), want, "pixel {pixel} sample {s}");
        }
    }
}

#[test]
fn centroid_iter_stays_inside_partly_covered_pixels() {
    // x plane: the value is the evaluation point's x.
    let x_plane = Plane {
        a: 1.0,
        b: 0.0,
        c: 0.0,
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        Instr::Iter(Iter {
            dst: Reg::r32(2),
            channels: 1,
            cf: 0,
            perspective_w: None,
            interp: Interpolation::Centroid,
        }),
    ];
    code.extend(store(Reg::r32(2), 0));
    code.push(Instr::Stop);
    let p = prog(code);
    let (l, mut m) = launch(3);
    let mut f = FragmentContext::new([4, 4], 4, 4);
    f.set_planes(&[x_plane]);
    f.sample_positions = vec![
        [0.375, 0.125],
        [0.875, 0.375],
        [0.125, 0.625],
        [0.625, 0.875],
    ];
    f.lane_pixels = [[2, 1]; 32];
    // Fully covered, only sample 2, samples 1 and 3.
    f.coverage[0] = 0b1111;
    f.coverage[1] = 0b0100;
    f.coverage[2] = 0b1010;
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&p, &l, &mut m, &mut gfx).unwrap();
    let got = |lane| f32::from_bits(out(&m, 0, lane));
    assert!(close(got(0), 2.5));
    assert!(close(got(1), 2.125));
    assert!(close(got(2), 2.875));
}

/// `dfdx` / `dfdy` difference the quad's neighbours, reading them even where they are not
/// active; helper lanes (no coverage) run but store nothing; `get_sr` 124 reads the
/// rasterized coverage.
#[test]
fn derivatives_read_quad_neighbours_and_helpers_do_not_store() {
    let fsrc = |r: u16| FSrc::new(Operand::Reg(Reg::r32(r)));
    let deriv = |op, dst: u16| {
        Instr::FUnary(FUnary {
            op,
            dst: Dst::from(Reg::r32(dst)),
            src: fsrc(3),
            saturate: false,
        })
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        // r3 = lane * lane, as a float.
        Instr::IMAdd(IMAdd {
            dst: Dst::from(Reg::r32(2)),
            a: ISrc::new(Operand::Reg(Reg::r32(1))),
            b: ISrc::new(Operand::Reg(Reg::r32(1))),
            c: ISrc::new(Operand::Imm(0)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: Dst::from(Reg::r32(3)),
            src: ISrc::new(Operand::Reg(Reg::r32(2))),
            round: Round::NearestEven,
        }),
        // Lane 1 sits out the derivatives.
        Instr::ExecCmp(ExecCmp {
            op: ExecOp::If,
            cond: Cond::Int(ICond::UEq),
            invert: true,
            a: Operand::Reg(Reg::r32(1)),
            b: Operand::Imm(1),
            n: 1,
        }),
        deriv(FUnaryOp::Dfdx, 4),
        deriv(FUnaryOp::Dfdy, 5),
        Instr::PopExec(PopExec { n: 1 }),
        Instr::GetSr(GetSr {
            dst: Dst::from(Reg::r32(6)),
            sr: SpecialReg::INPUT_SAMPLE_MASK,
        }),
    ];
    for (k, r) in [4u16, 5, 6].into_iter().enumerate() {
        code.extend(store(Reg::r32(r), k as u16));
    }
    code.push(Instr::Stop);
    let (l, mut m) = launch(8);
    let mut f = FragmentContext::new([4, 4], 1, 4);
    for lane in 0..8 {
        let [dx, dy] = quad_pixel(lane % 4);
        f.lane_pixels[lane] = [2 * (lane as u32 / 4) + dx, dy];
        f.input_coverage[lane] = lane as u8 % 2;
    }
    // Lanes 2 and 7 are helpers.
    f.coverage[2] = 0;
    f.coverage[7] = 0;
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let sq = |l: usize| (l * l) as f32;
    for lane in 0..8 {
        let got = |s| f32::from_bits(out(&m, s, lane));
        if lane == 2 || lane == 7 {
            assert_eq!([0, 1, 2].map(|s| out(&m, s, lane)), [0; 3], "helper {lane}");
            continue;
        }
        if lane == 1 {
            assert_eq!([got(0), got(1)], [0.0, 0.0]);
        } else {
            assert_eq!(got(0), sq(lane | 1) - sq(lane & !1), "dfdx, lane {lane}");
            assert_eq!(got(1), sq(lane | 2) - sq(lane & !2), "dfdy, lane {lane}");
        }
        assert_eq!(out(&m, 2, lane), lane as u32 % 2);
    }
}

/// `get_sr` 60 and 63 read the coverage as it is when they run, after a `sample_mask`.
#[test]
fn coverage_special_registers_follow_discards() {
    let sr = |r: u16, sr: SpecialReg| {
        Instr::GetSr(GetSr {
            dst: Dst::from(Reg::r32(r)),
            sr,
        })
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        sr(2, SpecialReg::COVERAGE_MASK),
        sr(3, SpecialReg::IS_ACTIVE_THREAD),
        Instr::SampleMask(SampleMask {
            targets: Small::Imm(0b0011),
            live: Small::Imm(0),
        }),
        sr(4, SpecialReg::COVERAGE_MASK),
    ];
    for k in 0..3u16 {
        code.extend(store(Reg::r32(2 + k), k));
    }
    code.push(Instr::Stop);
    let (l, mut m) = launch(4);
    let mut f = FragmentContext::new([2, 2], 4, 4);
    f.coverage[..4].copy_from_slice(&[0b1111, 0b0110, 0b1000, 0b1001]);
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    for (lane, c) in [0b1111u32, 0b0110, 0b1000, 0b1001].into_iter().enumerate() {
        assert_eq!(out(&m, 0, lane), c, "lane {lane}");
        assert_eq!(out(&m, 1, lane), 1, "lane {lane}");
        assert_eq!(out(&m, 2, lane), c & 0b1100, "lane {lane}");
    }
}

/// A quad shuffle reads the quad the way `dfdx` / `dfdy` do: xor 1 is the horizontal
/// neighbour and xor 2 the vertical one, helper lanes included.
#[test]
fn quad_shuffles_agree_with_derivatives_and_read_helpers() {
    let shuffle = |dst: u16, n: u32| {
        Instr::Shuffle(Shuffle {
            dst: Dst::from(Reg::r32(dst)),
            a: Operand::Reg(Reg::r32(3)),
            index: Operand::Imm(n),
            mode: ShuffleMode::Xor,
            quad: true,
        })
    };
    let mut code = vec![
        tid(Reg::r32(1)),
        Instr::IMAdd(IMAdd {
            dst: Dst::from(Reg::r32(2)),
            a: ISrc::new(Operand::Reg(Reg::r32(1))),
            b: ISrc::new(Operand::Reg(Reg::r32(1))),
            c: ISrc::new(Operand::Imm(0)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: Dst::from(Reg::r32(3)),
            src: ISrc::new(Operand::Reg(Reg::r32(2))),
            round: Round::NearestEven,
        }),
        shuffle(4, 1),
        shuffle(5, 2),
        Instr::FUnary(FUnary {
            op: FUnaryOp::Dfdx,
            dst: Dst::from(Reg::r32(6)),
            src: FSrc::new(Operand::Reg(Reg::r32(3))),
            saturate: false,
        }),
    ];
    for (k, r) in [4u16, 5, 6].into_iter().enumerate() {
        code.extend(store(Reg::r32(r), k as u16));
    }
    code.push(Instr::Stop);
    let (l, mut m) = launch(8);
    let mut f = FragmentContext::new([4, 4], 1, 4);
    for lane in 0..8 {
        let [dx, dy] = quad_pixel(lane % 4);
        f.lane_pixels[lane] = [2 * (lane as u32 / 4) + dx, dy];
        f.input_coverage[lane] = 1;
    }
    // Lanes 2 and 7 are helpers.
    f.coverage[2] = 0;
    f.coverage[7] = 0;
    let mut gfx = GraphicsContext {
        textures: Default::default(),
        fragment: Some(f),
        vertex: None,
    };
    run_graphics(&prog(code), &l, &mut m, &mut gfx).unwrap();
    let sq = |l: usize| (l * l) as f32;
    for lane in [0usize, 1, 3, 4, 5, 6] {
        let got = |s| f32::from_bits(out(&m, s, lane));
        assert_eq!(got(0), sq(lane ^ 1), "quad_shuffle_xor 1, lane {lane}");
        assert_eq!(got(1), sq(lane ^ 2), "quad_shuffle_xor 2, lane {lane}");
        let own = sq(lane);
        let dx = if lane & 1 == 0 {
            got(0) - own
        } else {
            own - got(0)
        };
        assert_eq!(got(2), dx, "dfdx against the shuffle, lane {lane}");
    }
}

/// `tile_records` gives records exactly when the live lanes sit at distinct pixels inside
/// the tile: lanes laid out in quads as fragment groups place them, quads that share a
/// block, lanes swapped out of their quads and lanes outside the tile.
#[test]
fn tile_records_need_distinct_pixels_inside_the_tile() {
    let mut rng = hw::test_rng::Rng(0x7113_4ec0_5d5d_0001);
    let (mut quads, mut shared, mut outside) = (0, 0, 0);
    for round in 0..20_000 {
        let tile = [[32, 32], [32, 16], [16, 16]][round % 3];
        let mut f = graphics::FragmentContext::new(tile, 1, 8);
        f.tile_origin = [32 * rng.below(4) as u32, 32 * rng.below(4) as u32];
        let alive = match rng.below(4) {
            0 => u32::MAX,
            _ => rng.next() as u32,
        };
        // Blocks from a small range, so that quads sometimes share one.
        let blocks = 1 + rng.below(64) as u32;
        for q in 0..SIMD_WIDTH / 4 {
            let b = rng.below(u64::from(blocks)) as u32;
            let (bx, by) = (b % (tile[0] / 2), b / (tile[0] / 2) % (tile[1] / 2));
            for k in 0..4 {
                let [dx, dy] = quad_pixel(k);
                f.lane_pixels[q * 4 + k] = [2 * bx + dx, 2 * by + dy];
            }
        }
        // Sometimes lanes out of their quads, and pixels anywhere, inside or outside the
        // tile.
        for _ in 0..rng.below(3) {
            let (a, b) = (rng.below(32) as usize, rng.below(32) as usize);
            f.lane_pixels.swap(a, b);
        }
        if rng.below(8) == 0 {
            let l = rng.below(32) as usize;
            f.lane_pixels[l] = [rng.below(40) as u32, rng.below(40) as u32];
        }
        for p in f.lane_pixels.iter_mut() {
            *p = [p[0] + f.tile_origin[0], p[1] + f.tile_origin[1]];
        }
        let live: Vec<[u32; 2]> = (0..SIMD_WIDTH)
            .filter(|l| alive >> l & 1 == 1)
            .map(|l| f.lane_pixels[l])
            .collect();
        let inside = live.iter().all(|&[x, y]| {
            x >= f.tile_origin[0]
                && y >= f.tile_origin[1]
                && x - f.tile_origin[0] < tile[0]
                && y - f.tile_origin[1] < tile[1]
        });
        let apart = (0..live.len()).all(|a| (a + 1..live.len()).all(|b| live[a] != live[b]));
        let got = graphics::tile_records(&f, alive);
        assert_eq!(got.is_some(), inside && apart, "round {round}: {live:?}");
        if let Some(r) = got {
            for l in (0..SIMD_WIDTH).filter(|l| alive >> l & 1 == 1) {
                let [x, y] = f.lane_pixels[l];
                let pixel = (y - f.tile_origin[1]) * tile[0] + (x - f.tile_origin[0]);
                assert_eq!(r[l], pixel * 8);
            }
        }
        quads += usize::from(inside && apart);
        shared += usize::from(inside && !apart);
        outside += usize::from(!inside);
    }
    assert!(
        quads > 1000 && shared > 1000 && outside > 500,
        "{quads} {shared} {outside}"
    );
}
