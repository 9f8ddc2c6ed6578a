//! Round trips, and words pinned to bit values worked out by hand from cmdbuf.xml.

use super::*;

fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

#[test]
fn stream_terminate_is_block_type_2_in_bits_29_to_31() {
    assert_eq!(CdmStreamTerminate.pack(), [0, 0, 0, 0x40, 0, 0, 0, 0]);
}

#[test]
fn stream_return_is_block_type_4() {
    assert_eq!(CdmStreamReturn.pack(), [0, 0, 0, 0x80, 0, 0, 0, 0]);
}

#[test]
fn stream_link_splits_target_into_high_byte_and_low_word() {
    let b = CdmStreamLink {
        target: 0x12_3456_7890,
        with_return: true,
    }
    .pack();
    // target hi in 0..7, with return bit 28, block type 1 at 29.
    assert_eq!(le32(&b, 0), 0x3000_0012);
    assert_eq!(le32(&b, 1), 0x3456_7890);
}

#[test]
fn compute_barrier_sets_bits_0_to_19() {
    let b = CdmBarrier::compute_to_compute().pack();
    assert_eq!(u32::from_le_bytes(b), 0x600f_ffff);
}

#[test]
fn direct_launch_words() {
    let l = CdmLaunch {
        uniform_halves: 128,
        texture_states: 8,
        sampler_states: sampler_states::COMPACT_4,
        preshader_halves: 32,
        mode: CdmMode::Direct,
        pipeline: 0x4000_1240,
        global_size: [256, 3, 1],
        indirect: 0,
        local_size: [64, 1, 1],
    };
    let mut out = Vec::new();
    l.pack(&mut out);
    assert_eq!(out.len(), 32);
    // uniforms 2 groups at bit 1, textures 1 group at bit 4, samplers 1 at bit 9, preshader
    // 2 groups at bit 12.
    assert_eq!(le32(&out, 0), 0x2214);
    assert_eq!(le32(&out, 1), 0x4000_1240);
    assert_eq!([le32(&out, 2), le32(&out, 3), le32(&out, 4)], [256, 3, 1]);
    assert_eq!([le32(&out, 5), le32(&out, 6), le32(&out, 7)], [64, 1, 1]);
    assert_eq!(CdmLaunch::unpack(&out), Ok(l));
}

#[test]
fn indirect_launch_words() {
    let l = CdmLaunch {
        uniform_halves: 512,
        texture_states: 256,
        sampler_states: 0,
        preshader_halves: 256,
        mode: CdmMode::IndirectGlobal,
        pipeline: 0x80,
        global_size: [0; 3],
        indirect: 0xab_1234_5678,
        local_size: [32, 2, 1],
    };
    let mut out = Vec::new();
    l.pack(&mut out);
    assert_eq!(out.len(), 28);
    // Full counts encode as 0; mode 1 at bit 27.
    assert_eq!(le32(&out, 0), 0x0800_0000);
    assert_eq!(le32(&out, 2), 0xab);
    // Address lo (shr 2) at bit 34 is the aligned low word in place.
    assert_eq!(le32(&out, 3), 0x1234_5678);
    assert_eq!(CdmLaunch::unpack(&out), Ok(l));
}

fn packed(w: UscWord) -> Vec<u8> {
    let mut out = Vec::new();
    w.pack(&mut out);
    out
}

#[test]
fn usc_uniform_words() {
    let b = packed(UscWord::Uniform {
        start_halves: 4,
        size_halves: 64,
        buffer: 0x10_0000_0010,
    });
    assert_eq!(
        u64::from_le_bytes(b.clone().try_into().unwrap()),
        0x1000_0000_1000_041d
    );
    let b = packed(UscWord::UniformHigh {
        start_halves: 10,
        size_halves: 20,
        buffer: 0x2000,
    });
    assert_eq!(u64::from_le_bytes(b.try_into().unwrap()), 0x20_0140_0a3d);
}

#[test]
fn usc_small_words() {
    let none = UscWord::Shared {
        uses_shared: false,
        layout: SharedLayout::VertexCompute,
        bytes_per_threadgroup: 65536,
        sample_count: 1,
        sample_stride_bytes: 0,
    };
    assert_eq!(packed(none), 0x904du32.to_le_bytes());
    assert_eq!(
        packed(UscWord::Registers {
            count_halves: 256,
            spill_size: 0
        }),
        0x0100_008du32.to_le_bytes()
    );
    assert_eq!(
        packed(UscWord::Registers {
            count_halves: 24,
            spill_size: 5
        }),
        0x0114_038du32.to_le_bytes()
    );
    assert_eq!(packed(UscWord::NoPreshader), [0x88, 0]);
    let p = packed(UscWord::Preshader { code: 0x1234 });
    assert_eq!(p, [0x38, 0x00, 0x80, 0xc0, 0x34, 0x12, 0, 0]);
    let s = packed(UscWord::Shader {
        code: 0x8000_0040,
        loads_varyings: false,
    });
    assert_eq!(s, [0x0d, 0x0c, 0x40, 0x00, 0x00, 0x80]);
}

#[test]
fn usc_words_round_trip() {
    let words = [
        UscWord::Uniform {
            start_halves: 255,
            size_halves: 1,
            buffer: 0xff_ffff_fffc,
        },
        UscWord::UniformHigh {
            start_halves: 0,
            size_halves: 63,
            buffer: 4,
        },
        UscWord::Shared {
            uses_shared: true,
            layout: SharedLayout::Tile32x16,
            bytes_per_threadgroup: 4096,
            sample_count: 1,
            sample_stride_bytes: 0,
        },
        UscWord::Shader {
            code: 0xffff_fffe,
            loads_varyings: true,
        },
        UscWord::Registers {
            count_halves: 8,
            spill_size: 15,
        },
        UscWord::NoPreshader,
        UscWord::Preshader { code: 7 },
    ];
    for w in words {
        let b = packed(w);
        assert_eq!(UscWord::unpack(&b), Ok((w, b.len())), "{w:?}");
    }
}

#[test]
fn bad_tags_and_block_types_fault() {
    assert!(matches!(
        UscWord::unpack(&[0x11, 0, 0, 0]),
        Err(crate::WordError::Malformed { .. })
    ));
    assert!(CdmStreamTerminate::unpack(&CdmStreamReturn.pack()).is_err());
    // Block type 5 is undefined.
    let m = super::flat::Flat::with(0x1000, &[0, 0, 0, 0xa0, 0, 0, 0, 0]);
    assert!(matches!(
        CdmBlock::read(&m, 0x1000),
        Err(super::flat::FlatError::Word(crate::WordError::Malformed {
            va: 0x1000,
            ..
        }))
    ));
    // Barrier with a bit outside the description.
    assert!(CdmBarrier::unpack(&(0x6000_0000u32 | 1 << 22).to_le_bytes()).is_err());
}

#[test]
fn uniform_ranges_split_at_64_halves_and_at_the_high_file() {
    let mut out = Vec::new();
    pack_uniform_range(200, 150, 0x1000, &mut out);
    let mut words = Vec::new();
    let mut off = 0;
    while off < out.len() {
        let (w, n) = UscWord::unpack(&out[off..]).unwrap();
        words.push(w);
        off += n;
    }
    assert_eq!(
        words,
        [
            UscWord::Uniform {
                start_halves: 200,
                size_halves: 56,
                buffer: 0x1000
            },
            UscWord::UniformHigh {
                start_halves: 0,
                size_halves: 64,
                buffer: 0x1000 + 112
            },
            UscWord::UniformHigh {
                start_halves: 64,
                size_halves: 30,
                buffer: 0x1000 + 240
            },
        ]
    );
}

#[test]
fn blocks_read_from_memory_report_sizes() {
    let mut s = Vec::new();
    CdmBlock::Barrier(CdmBarrier::compute_to_compute()).pack(&mut s);
    CdmBlock::Link(CdmStreamLink {
        target: 0x2000,
        with_return: false,
    })
    .pack(&mut s);
    CdmBlock::Terminate.pack(&mut s);
    let m = super::flat::Flat::with(0x1000, &s);
    assert_eq!(
        CdmBlock::read(&m, 0x1000),
        Ok((CdmBlock::Barrier(CdmBarrier::compute_to_compute()), 4))
    );
    assert_eq!(
        CdmBlock::read(&m, 0x1004),
        Ok((
            CdmBlock::Link(CdmStreamLink {
                target: 0x2000,
                with_return: false
            }),
            8
        ))
    );
    assert_eq!(CdmBlock::read(&m, 0x100c), Ok((CdmBlock::Terminate, 8)));
}

#[test]
fn indirect_local_launch_has_no_local_size_word() {
    let l = CdmLaunch {
        uniform_halves: 64,
        texture_states: 8,
        sampler_states: sampler_states::EXTENDED_16,
        preshader_halves: 16,
        mode: CdmMode::IndirectLocal,
        pipeline: 0xffff_ffc0,
        global_size: [0; 3],
        indirect: 0x1_0000_0004,
        local_size: [0; 3],
    };
    let mut out = Vec::new();
    l.pack(&mut out);
    assert_eq!(out.len(), 16);
    // 1 group each, samplers 7 at bit 9, mode 2 at bit 27.
    assert_eq!(le32(&out, 0), 0x1000_1e12);
    assert_eq!(CdmLaunch::unpack(&out), Ok(l));
    assert_eq!(
        CdmBlock::read(&super::flat::Flat::with(0, &out), 0),
        Ok((CdmBlock::Launch(l), 16))
    );
}
