//! Encoder/decoder tests: bytes pinned to independent sources, round trips over generated
//! instructions, and decoding of garbage.

use super::*;
use crate::isa::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn r(n: u16) -> Operand {
    Operand::Reg(Reg::r32(n))
}
fn h(half: u16) -> Reg {
    Reg::r16(half)
}
fn u(n: u16) -> Operand {
    Operand::Uniform(Reg::r32(n))
}
fn d(n: u16) -> Dst {
    Dst::from(Reg::r32(n))
}
fn is(op: Operand) -> ISrc {
    ISrc::new(op)
}
fn fs(op: Operand) -> FSrc {
    FSrc::new(op)
}

/// Each case: source, instruction, expected bytes. Sources: "applegpu" = assembled with
/// dougallj/applegpu assemble.py (the quoted text is the assembly line); "mesa" = computed by
/// hand from Mesa's agx_pack.c field formulas (src/asahi/compiler), noted per case.
fn pinned() -> Vec<(&'static str, Instr, &'static str)> {
    let iadd = |dst, a, b, negate_b| IAdd {
        dst,
        a,
        b,
        negate_b,
        shift: 0,
        saturate: false,
    };
    vec![
        (
            "applegpu: iadd r0, r1, u2",
            Instr::IAdd(iadd(d(0), is(r(1)), is(u(2)), false)),
            "0e01424218000000",
        ),
        (
            "applegpu: isub r0, r1, r2",
            Instr::IAdd(iadd(d(0), is(r(1)), is(r(2)), true)),
            "0e01424a24000000",
        ),
        (
            "applegpu: iadd r0_r1, r2_r3, 5",
            Instr::IAdd(iadd(
                Dst::from(Reg::r64(0)),
                is(Operand::Reg(Reg::r64(2))),
                is(Operand::Imm(5)),
                false,
            )),
            "0e03445300000000",
        ),
        (
            "applegpu: mov_imm r0l, 5",
            Instr::MovImm(MovImm {
                dst: Dst::from(h(0)),
                imm: 5,
            }),
            "62000500",
        ),
        (
            "applegpu: mov_imm r5, 0x12345678",
            Instr::MovImm(MovImm {
                dst: d(5),
                imm: 0x1234_5678,
            }),
            "621578563412",
        ),
        (
            "applegpu: mov_imm r40, 7 (long form)",
            Instr::MovImm(MovImm { dst: d(40), imm: 7 }),
            "62a1070000000010",
        ),
        ("applegpu: stop", Instr::Stop, "8800"),
        ("applegpu: wait 1", Instr::Wait(Wait { slot: 1 }), "3801"),
        (
            "applegpu: threadgroup_barrier",
            Instr::ThreadgroupBarrier,
            "6800",
        ),
        (
            "applegpu: memory_barrier 1, 2, 9 (= mesa memory_barrier)",
            Instr::MemoryBarrier,
            "f596",
        ),
        (
            "applegpu: device_load 0, i32, xyzw, r4_r5_r6_r7, u0_u1, r2, unsigned",
            Instr::DeviceMem(DeviceMem {
                store: false,
                reg: Reg::r32(4),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Reg(Reg::r32(2)),
                index_unsigned: true,
                shift: 0,
                format: MemFormat::I32,
                mask: 0xf,
                wait_slot: 0,
            }),
            "0521400e00c0f200",
        ),
        (
            "applegpu: device_load 1, i16, x, r3l, r2_r3, 8, signed, lsl 1",
            Instr::DeviceMem(DeviceMem {
                store: false,
                reg: h(6),
                base: Operand::Reg(Reg::r64(2)),
                index: Index::Imm(8),
                index_unsigned: false,
                shift: 1,
                format: MemFormat::I16,
                mask: 1,
                wait_slot: 1,
            }),
            "8518844500c41000",
        ),
        (
            "applegpu: jmp_exec_any pc+16",
            Instr::Jump(Jump {
                cond: JumpCond::Any,
                offset: 16,
            }),
            "00c010000000",
        ),
        (
            "applegpu: jmp_exec_none pc-32",
            Instr::Jump(Jump {
                cond: JumpCond::None,
                offset: -32,
            }),
            "20c0e0ffffff",
        ),
        (
            "applegpu: pop_exec r0l, 1",
            Instr::PopExec(PopExec { n: 1 }),
            "520e00000000",
        ),
        (
            "applegpu: fadd32 r0, r1.abs, 0.5",
            Instr::FArith(FArith {
                op: FOp::Add,
                dst: d(0),
                a: FSrc {
                    abs: true,
                    ..fs(r(1))
                },
                b: fs(Operand::Imm(0x20)),
                c: fs(Operand::Imm(0)),
                saturate: false,
            }),
            "2a8142060200",
        ),
        (
            "applegpu: fmul32 r2, r3, r4.neg",
            Instr::FArith(FArith {
                op: FOp::Mul,
                dst: d(2),
                a: fs(r(3)),
                b: FSrc {
                    neg: true,
                    ..fs(r(4))
                },
                c: fs(Operand::Imm(0)),
                saturate: false,
            }),
            "1a894682a400",
        ),
        (
            "applegpu: fmadd32 r0, r1, r2, r3",
            Instr::FArith(FArith {
                op: FOp::MAdd,
                dst: d(0),
                a: fs(r(1)),
                b: fs(r(2)),
                c: fs(r(3)),
                saturate: false,
            }),
            "3a81424224460200",
        ),
        (
            "applegpu: fadd16 r0l, r1h, r2l",
            Instr::FArith(FArith {
                op: FOp::Add,
                dst: Dst::from(h(0)),
                a: fs(Operand::Reg(h(3))),
                b: fs(Operand::Reg(h(4))),
                c: fs(Operand::Imm(0)),
                saturate: false,
            }),
            "268043400400",
        ),
        (
            "applegpu: fmul32 r100, r1, r2 (long form)",
            Instr::FArith(FArith {
                op: FOp::Mul,
                dst: d(100),
                a: fs(r(1)),
                b: fs(r(2)),
                c: fs(Operand::Imm(0)),
                saturate: false,
            }),
            "1a9142422430",
        ),
        (
            "applegpu: imadd r0, r1.sx, r2, r3",
            Instr::IMAdd(IMAdd {
                dst: d(0),
                a: ISrc {
                    sign_extend: true,
                    ..is(r(1))
                },
                b: is(r(2)),
                c: is(r(3)),
                negate_c: false,
                shift: 0,
                saturate: false,
            }),
            "1e01424624460200",
        ),
        (
            "applegpu: bitop 0001, r0, r1, r2 (AND)",
            Instr::Bitop(Bitop {
                dst: d(0),
                a: is(r(1)),
                b: is(r(2)),
                table: 0b1000,
            }),
            "7e014242a400",
        ),
        (
            "applegpu: bfeil r0, r1, r2, 0, mask 0xff",
            Instr::Shift(Shift {
                op: ShiftOp::Bfeil,
                dst: d(0),
                a: is(r(1)),
                b: is(r(2)),
                c: is(Operand::Imm(0)),
                mask_bits: 8,
            }),
            "2e81424224000800",
        ),
        (
            "applegpu: asr r0, r1, r2",
            Instr::Shift(Shift {
                op: ShiftOp::Asr,
                dst: d(0),
                a: is(r(1)),
                b: is(r(2)),
                c: is(Operand::Imm(0)),
                mask_bits: 0,
            }),
            "2e81424624000000",
        ),
        (
            "applegpu: popcount r0, r1",
            Instr::IUnary(IUnary {
                op: IUnaryOp::PopCount,
                dst: d(0),
                src: is(r(1)),
            }),
            "3e01420a0000",
        ),
        (
            "applegpu: convert u32_to_f, r0, r1, rte",
            Instr::Convert(Convert {
                op: ConvertOp::U32ToF,
                dst: d(0),
                src: is(r(1)),
                round: Round::NearestEven,
            }),
            "3e810a242400",
        ),
        (
            "mesa: simd_prefix iadd r0, r1 (agx_pack_alu: opc 3 at bit 29, simd_op 0b10000)",
            Instr::SimdReduce(SimdReduce {
                dst: d(0),
                a: r(1),
                op: SimdOp::IAdd,
                kind: ReduceKind::SimdPrefix,
            }),
            "6f8142620080",
        ),
        (
            "mesa: icmp_ballot r0, r1, 0, ueq, invert (agx_pack_alu, ballot extend at 32)",
            Instr::Ballot(Ballot {
                dst: d(0),
                cond: Cond::Int(ICond::UEq),
                invert: true,
                a: r(1),
                b: Operand::Imm(0),
            }),
            "3201420200800100",
        ),
        (
            "mesa: shuffle r0, r1, 3 (agx_pack_alu, simd bit 26)",
            Instr::Shuffle(Shuffle {
                dst: d(0),
                a: r(1),
                index: Operand::Imm(3),
                mode: ShuffleMode::Index,
                quad: false,
            }),
            "6f0142360000",
        ),
        (
            "mesa: quad_shuffle_xor r0, r1, 1 (agx_pack_alu, mode 1 at bit 38)",
            Instr::Shuffle(Shuffle {
                dst: d(0),
                a: r(1),
                index: Operand::Imm(1),
                mode: ShuffleMode::Xor,
                quad: true,
            }),
            "6f0142124000",
        ),
        (
            "applegpu: icmpsel ult, r0, r1, r2, r3, r4",
            Instr::CmpSel(CmpSel {
                cond: Cond::Int(ICond::ULt),
                dst: d(0),
                a: r(1),
                b: r(2),
                x: r(3),
                y: r(4),
            }),
            "1201424224468024",
        ),
        (
            "applegpu: fcmpsel lt, r0, r1, r2, r3, r4",
            Instr::CmpSel(CmpSel {
                cond: Cond::Float(FCond::Lt),
                dst: d(0),
                a: r(1),
                b: r(2),
                x: r(3),
                y: r(4),
            }),
            "0201424224468024",
        ),
        (
            "applegpu: icmpsel seq, r0, r1, 3, u2, 0",
            Instr::CmpSel(CmpSel {
                cond: Cond::Int(ICond::SEq),
                dst: d(0),
                a: r(1),
                b: Operand::Imm(3),
                x: u(2),
                y: Operand::Imm(0),
            }),
            "1201423200840190",
        ),
        (
            "applegpu: if_icmp r0l, ueq, r1, 0, 1",
            Instr::ExecCmp(ExecCmp {
                op: ExecOp::If,
                cond: Cond::Int(ICond::UEq),
                invert: false,
                a: r(1),
                b: Operand::Imm(0),
                n: 1,
            }),
            "520842020000",
        ),
        (
            "applegpu: else_fcmp r0l, lt, r1, r2, 1",
            Instr::ExecCmp(ExecCmp {
                op: ExecOp::Else,
                cond: Cond::Float(FCond::Lt),
                invert: false,
                a: r(1),
                b: r(2),
                n: 1,
            }),
            "422a42422400",
        ),
        (
            "applegpu: while_icmp r0l, nseq, r1, r2, 2",
            Instr::ExecCmp(ExecCmp {
                op: ExecOp::While,
                cond: Cond::Int(ICond::SEq),
                invert: true,
                a: r(1),
                b: r(2),
                n: 2,
            }),
            "529542422400",
        ),
        (
            "applegpu: get_sr r0, sr80",
            Instr::GetSr(GetSr {
                dst: d(0),
                sr: SpecialReg::THREAD_POSITION_IN_GRID_X,
            }),
            "72011004",
        ),
        (
            "applegpu: floor r0, r1",
            Instr::FUnary(FUnary {
                op: FUnaryOp::Floor,
                dst: d(0),
                src: fs(r(1)),
                saturate: false,
            }),
            "0a014202",
        ),
        (
            "applegpu: rcp r0, r1.neg",
            Instr::FUnary(FUnary {
                op: FUnaryOp::Rcp,
                dst: d(0),
                src: FSrc {
                    neg: true,
                    ..fs(r(1))
                },
                saturate: false,
            }),
            "0a01428a",
        ),
        (
            // exact 0x15|1<<26|1<<31|5<<44, op 0, R=4<<10, O=6<<20, At<<27, Rt<<47, S=8<<48.
            "mesa agx_pack.c ATOMIC: add r2, u0_u1, r3, src r4",
            Instr::Atomic(Atomic {
                op: AtomicOp::Add,
                dst: Some(Reg::r32(2)),
                src: Reg::r32(4),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Reg(Reg::r32(3)),
                wait_slot: 0,
            }),
            "1510608c00d00800",
        ),
        (
            // 0x35 | 2<<8 | 4<<10 | Ot<<24 | 1<<26 | 1<<32 | 4<<44 | L<<47 | Rt<<49 | 1<<52.
            "mesa agx_pack.c STACK_LOAD: r2, i32, x, offset 16",
            Instr::StackMem(StackMem {
                store: false,
                reg: Reg::r32(2),
                offset: Index::Imm(16),
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            }),
            "3512000501c01200",
        ),
        // The cases below were produced by agx4's encoder and then independently decoded by
        // applegpu's disassembler (applegpu.py, disassemble_n); the quoted text is its output.
        (
            "applegpu disasm: fmul16 r51l, r33h.discard.abs.neg, u1h.abs.neg",
            Instr::FArith(FArith {
                op: FOp::Mul,
                dst: Dst::from(h(102)),
                a: FSrc {
                    op: Operand::Reg(h(67)),
                    abs: true,
                    neg: true,
                    hint: Hint::Discard,
                },
                b: FSrc {
                    op: Operand::Uniform(h(3)),
                    abs: true,
                    neg: true,
                    hint: Hint::None,
                },
                c: fs(Operand::Imm(0)),
                saturate: false,
            }),
            "16ccc3367014",
        ),
        (
            "applegpu disasm: extr r117.cache, u118, 114, r51l, mask 0xFF",
            Instr::Shift(Shift {
                op: ShiftOp::Extr,
                dst: Dst {
                    reg: Reg::r32(117),
                    cache: true,
                },
                a: is(u(118)),
                b: is(Operand::Imm(114)),
                c: is(Operand::Reg(h(102))),
                mask_bits: 8,
            }),
            "ae55ac250366483d",
        ),
        (
            "applegpu disasm: device_store 0, i16, z, r85h, u42_u43, 2566, unsigned, lsl 3",
            Instr::DeviceMem(DeviceMem {
                store: true,
                reg: h(171),
                base: Operand::Uniform(Reg::r64(42)),
                index: Index::Imm(2566),
                index_unsigned: true,
                shift: 3,
                format: MemFormat::I16,
                mask: 0b0100,
                wait_slot: 0,
            }),
            "c5ac640f50ce400a",
        ),
        (
            "mesa (uniform_store fields by hand): uniform_store i16, xy, r4l_r4h, 256",
            Instr::UniformStore(UniformStore {
                reg: h(8),
                index: Index::Imm(256),
                mask: 0b11,
            }),
            "c520003d00803001",
        ),
        (
            "mesa (uniform_store fields by hand): uniform_store i16, x, r10h, r3",
            Instr::UniformStore(UniformStore {
                reg: h(21),
                index: Index::Reg(Reg::r32(3)),
                mask: 1,
            }),
            "c554603c00801000",
        ),
        (
            "mesa (uniform_store fields by hand): uniform_store i16, xyzw, r100l_.._r101h, 511",
            Instr::UniformStore(UniformStore {
                reg: h(200),
                index: Index::Imm(511),
                mask: 0xf,
            }),
            "c520f03d0f83f001",
        ),
        (
            "applegpu disasm: threadgroup_atomic imin, r126, r47l, r71l, r71",
            Instr::ThreadgroupAtomic(ThreadgroupAtomic {
                op: AtomicOp::SMin,
                dst: Some(Reg::r32(126)),
                src: Reg::r32(71),
                base: Operand::Reg(h(94)),
                index: Index::Reg(h(142)),
                wait_slot: 0,
            }),
            "19f91ee5508002348e00",
        ),
        (
            "applegpu disasm: threadgroup_load i8, zw, r49h_r50l, r46h, 7152",
            Instr::ThreadgroupMem(ThreadgroupMem {
                store: false,
                reg: h(99),
                base: Operand::Reg(h(93)),
                index: Index::Imm(7152),
                format: MemFormat::I8,
                mask: 0b1100,
                wait_slot: 0,
            }),
            "69c61d00c7006f14",
        ),
        (
            "applegpu disasm: stack_store i8, yz, r41l_r41h, -30839 (wait group 1)",
            Instr::StackMem(StackMem {
                store: true,
                reg: h(82),
                offset: Index::Imm(-30839),
                format: MemFormat::I8,
                mask: 0b0110,
                wait_slot: 1,
            }),
            "b548904508c16087",
        ),
        (
            "applegpu disasm: atomic cmpxchg, 0, None, u0_u1, r110, signed, r94_r95",
            Instr::Atomic(Atomic {
                op: AtomicOp::CmpXchg,
                dst: None,
                src: Reg::r64(94),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Reg(Reg::r32(110)),
                wait_slot: 0,
            }),
            "d500c08c0d50bc00",
        ),
        // Graphics: bytes computed by hand from the field packing in Mesa's
        // src/asahi/compiler/agx_pack.c (agx_pack_instr cases ITER/ITERPROJ/LDCF, ST_VARY,
        // LD_TILE/ST_TILE, SAMPLE_MASK, ZS_EMIT), cross-checked with applegpu's descs.
        (
            "Mesa agx_pack.c: iterproj r4_r5, cf5, cf0, sample 3",
            Instr::Iter(Iter {
                dst: Reg::r32(4),
                channels: 2,
                cf: 5,
                perspective_w: Some(0),
                interp: Interpolation::Sample(Small::Imm(3)),
            }),
            "6191058003000100",
        ),
        (
            "Mesa agx_pack.c: iter r10h_r11l_r11h (16-bit), cf70",
            Instr::Iter(Iter {
                dst: h(21),
                channels: 3,
                cf: 70,
                perspective_w: None,
                interp: Interpolation::Center,
            }),
            "21aa06c000000004",
        ),
        (
            "Mesa agx_pack.c: iter r100, cf1, sample r1l",
            Instr::Iter(Iter {
                dst: Reg::r32(100),
                channels: 1,
                cf: 1,
                perspective_w: None,
                interp: Interpolation::Sample(Small::Reg(h(2))),
            }),
            "2191014002000303",
        ),
        (
            "Mesa agx_pack.c: st_vary.last r3, 2",
            Instr::StVary(StVary {
                src: Reg::r32(3),
                index: Small::Imm(2),
                last: true,
            }),
            "910c8280",
        ),
        (
            "Mesa agx_pack.c: st_vary r100, r1l",
            Instr::StVary(StVary {
                src: Reg::r32(100),
                index: Small::Reg(h(2)),
                last: false,
            }),
            "11100283",
        ),
        (
            "Mesa agx_pack.c: ld_tile f16 xyzw r0l.., offset 8, samples 0xff",
            Instr::TileMem(TileMem {
                store: false,
                reg: h(0),
                format: MemFormat::F16,
                mask: 0xf,
                pixel_offset: 8,
                samples: Small::Imm(0xff),
                coords: None,
            }),
            "49000083f8fc0003",
        ),
        (
            "Mesa agx_pack.c: st_tile i32 xy r4_r5, offset 0x104, samples r1l",
            Instr::TileMem(TileMem {
                store: true,
                reg: Reg::r32(4),
                format: MemFormat::I32,
                mask: 0b11,
                pixel_offset: 0x104,
                samples: Small::Reg(h(2)),
                coords: None,
            }),
            "09114042300a0000",
        ),
        (
            "Mesa agx_pack.c: st_tile i8 x r70l, offset 4, samples 1, coords r6",
            Instr::TileMem(TileMem {
                store: true,
                reg: h(140),
                format: MemFormat::I8,
                mask: 1,
                pixel_offset: 4,
                samples: Small::Imm(1),
                coords: Some(Reg::r32(6)),
            }),
            "09180c4018048020",
        ),
        (
            "Mesa agx_pack.c: sample_mask 0xff, r0l",
            Instr::SampleMask(SampleMask {
                targets: Small::Imm(0xff),
                live: Small::Reg(h(0)),
            }),
            "c17f0003",
        ),
        (
            "Mesa agx_pack.c: sample_mask r2l, 0",
            Instr::SampleMask(SampleMask {
                targets: Small::Reg(h(4)),
                live: Small::Imm(0),
            }),
            "c1088000",
        ),
        (
            // Only a low register: for live registers >= r32l Mesa's packing puts the high
            // bits at 28..29 and applegpu's DiscardMaskDesc at 26..27; agx4 follows applegpu.
            "Mesa agx_pack.c: sample_mask 3, r10l",
            Instr::SampleMask(SampleMask {
                targets: Small::Imm(3),
                live: Small::Reg(h(20)),
            }),
            "c1071400",
        ),
        (
            "Mesa agx_pack.c: zs_emit z 0xff, r4",
            Instr::ZsEmit(ZsEmit {
                samples: Small::Imm(0xff),
                src: Reg::r32(4),
                depth: true,
                stencil: false,
            }),
            "417f0823",
        ),
        (
            "Mesa agx_pack.c: zs_emit zs r1l, r6 + r7",
            Instr::ZsEmit(ZsEmit {
                samples: Small::Reg(h(2)),
                src: Reg::r32(6),
                depth: true,
                stencil: true,
            }),
            "41040c60",
        ),
        (
            "Mesa agx_pack.c: zs_emit s 1, r100l",
            Instr::ZsEmit(ZsEmit {
                samples: Small::Imm(1),
                src: h(200),
                depth: false,
                stencil: true,
            }),
            "4103084c",
        ),
        (
            "Mesa agx_pack.c: texture_sample 0, r0_r1_r2_r3, r4, ts2, 1, 2d, auto_lod",
            Instr::Texture(Texture {
                load: false,
                dst: Reg::r32(0),
                coords: Reg::r32(4),
                lod_mode: LodMode::Auto,
                lod: Operand::Imm(0),
                texture: TexIndex::Imm(2),
                sampler: Small::Imm(1),
                dim: TexDim::D2,
                mask: 0xf,
                shadow: false,
                offset: false,
                extra: None,
                gather: None,
                query_lod: false,
                wait_slot: 0,
            }),
            "3101080002620f01",
        ),
        (
            "Mesa agx_pack.c: texture_load 1, r10l_r10h, r20, u8[r50], r2l, 2d_ms_array, lod_min r30l",
            Instr::Texture(Texture {
                load: true,
                dst: h(20),
                coords: Reg::r32(20),
                lod_mode: LodMode::Min,
                lod: Operand::Reg(h(60)),
                texture: TexIndex::Bindless {
                    base: 8,
                    index: Reg::r32(50),
                },
                sampler: Small::Reg(h(4)),
                dim: TexDim::D2MsArray,
                mask: 0b11,
                shadow: false,
                offset: false,
                extra: None,
                gather: None,
                query_lod: false,
                wait_slot: 1,
            }),
            "71a8283ce46063c482400000",
        ),
        (
            "Mesa agx_pack.c: texture_sample compare+offset r12, gather g, cube, lod_grad r40, ts[r3l], 200",
            Instr::Texture(Texture {
                load: false,
                dst: Reg::r32(0),
                coords: Reg::r32(4),
                lod_mode: LodMode::Grad,
                lod: Operand::Reg(Reg::r32(40)),
                texture: TexIndex::Reg(h(6)),
                sampler: Small::Imm(200),
                dim: TexDim::Cube,
                mask: 0xf,
                shadow: true,
                offset: true,
                extra: Some(Reg::r32(12)),
                gather: Some(1),
                query_lod: false,
                wait_slot: 0,
            }),
            "3181881046664f0800109839",
        ),
        (
            "Mesa agx_pack.c: image_write r0_r1_r2_r3, r4, lod 0, ts1, 2d",
            Instr::ImageWrite(ImageWrite {
                src: Reg::r32(0),
                coords: Reg::r32(4),
                lod: Small::Imm(0),
                texture: TexIndex::Imm(1),
                dim: TexDim::D2,
                coherent: false,
            }),
            "f1018880014a",
        ),
        (
            "Mesa agx_pack.c: image_write.coherent r8l.., r100, r2l, u12[r6], 2d_array",
            Instr::ImageWrite(ImageWrite {
                src: h(16),
                coords: Reg::r32(100),
                lod: Small::Reg(h(4)),
                texture: TexIndex::Bindless {
                    base: 12,
                    index: Reg::r32(6),
                },
                dim: TexDim::D2Array,
                coherent: true,
            }),
            "f1a08804cc7b030c",
        ),
        (
            "Mesa agx_pack.c block_image_store words: u8norm, offset r2, ts0, 2d",
            Instr::BlockImageStore(BlockImageStore {
                format: MemFormat::U8Norm,
                offset: Reg::r32(2),
                texture: TexIndex::Imm(0),
                dim: TexDim::D2,
            }),
            "b1880080004a00000a00",
        ),
        (
            "Mesa agx_pack.c block_image_store words: srgba8, offset r65, ts70, 2d_ms",
            Instr::BlockImageStore(BlockImageStore {
                format: MemFormat::SRGBA8,
                offset: Reg::r32(65),
                texture: TexIndex::Imm(70),
                dim: TexDim::D2Ms,
            }),
            "b1840080064c00020d40",
        ),
    ]
}

#[test]
fn pinned_encodings() {
    let cases = pinned();
    assert!(cases.len() >= 25);
    for (src, instr, bytes) in cases {
        let want = hex(bytes);
        let mut got = Vec::new();
        encode(&instr, &mut got).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(got, want, "{src}: encode");
        assert_eq!(encoded_len(&instr), Ok(want.len()), "{src}: len");
        assert_eq!(decode(&want), Ok((instr, want.len())), "{src}: decode");
    }
}

/// Mesa always sets the length bit of `iter`/`ldcf`; those 8-byte forms must decode, and the
/// encoder's own choice is the 4-byte form with the same fields.
#[test]
fn mesa_long_iter_and_ldcf_decode() {
    let cases = [
        (
            // Mesa agx_pack.c: iter r0_r1_r2_r3, cf2 (center)
            "2181020000000000",
            Instr::Iter(Iter {
                dst: Reg::r32(0),
                channels: 4,
                cf: 2,
                perspective_w: None,
                interp: Interpolation::Center,
            }),
            "21010200",
        ),
        (
            // Mesa agx_pack.c: ldcf r8 (three registers), cf3, one channel
            "a1a1034000000000",
            Instr::LdCf(LdCf {
                dst: Reg::r32(8),
                channels: 1,
                cf: 3,
            }),
            "a1210340",
        ),
    ];
    for (long, instr, short) in cases {
        assert_eq!(decode(&hex(long)), Ok((instr, 8)), "{long}");
        let mut got = Vec::new();
        encode(&instr, &mut got).unwrap();
        assert_eq!(got, hex(short));
        assert_eq!(decode(&got), Ok((instr, 4)));
    }
}

#[test]
fn mesa_long_threadgroup_load_decodes() {
    // Mesa always sets the length bit of local_load. Fields by hand from agx_pack.c:
    // 0x69 | Rt<<8 | 2<<9 | L<<15 | At=2<<22 | i32=2<<24 | O=10<<28 | mask 1<<36.
    let mesa = hex("698580a210000000");
    let want = ThreadgroupMem {
        store: false,
        reg: Reg::r32(1),
        base: Operand::Imm(0),
        index: Index::Reg(h(10)),
        format: MemFormat::I32,
        mask: 1,
        wait_slot: 0,
    };
    assert_eq!(decode(&mesa), Ok((Instr::ThreadgroupMem(want), 8)));
    // agx4 picks the short form: same fields, length bit clear, last two bytes dropped.
    let mut got = Vec::new();
    encode(&Instr::ThreadgroupMem(want), &mut got).unwrap();
    assert_eq!(got, hex("690580a21000"));
}

#[test]
fn encode_errors_name_the_operand() {
    let too_big = Instr::MovImm(MovImm {
        dst: Dst::from(h(0)),
        imm: 0x1_0000,
    });
    let e = encode(&too_big, &mut Vec::new()).unwrap_err();
    assert_eq!(e.operand, "imm");
    let high = Instr::Bitop(Bitop {
        dst: d(0),
        a: is(r(200)),
        b: is(r(1)),
        table: 8,
    });
    assert!(matches!(
        encode(&high, &mut Vec::new()).unwrap_err().problem,
        Problem::RegisterTooHigh { .. }
    ));
    let imm = Instr::IAdd(IAdd {
        dst: d(0),
        a: is(Operand::Imm(256)),
        b: is(r(1)),
        negate_b: false,
        shift: 0,
        saturate: false,
    });
    assert!(matches!(
        encode(&imm, &mut Vec::new()).unwrap_err().problem,
        Problem::ImmediateOutOfRange { .. }
    ));
    let uni = Instr::DeviceMem(DeviceMem {
        store: false,
        reg: Reg::r32(0),
        base: Operand::Imm(0),
        index: Index::Imm(0),
        index_unsigned: false,
        shift: 0,
        format: MemFormat::I32,
        mask: 1,
        wait_slot: 0,
    });
    assert_eq!(encode(&uni, &mut Vec::new()).unwrap_err().operand, "base");
    let mut out = Vec::new();
    assert!(encode(&too_big, &mut out).is_err());
    assert!(out.is_empty());
}

#[test]
fn jump_length_is_fixed() {
    for off in [0, 2, -2, 1 << 20, i32::MIN, i32::MAX] {
        assert_eq!(
            encoded_len(&Instr::Jump(Jump {
                cond: JumpCond::Any,
                offset: off
            })),
            Ok(6)
        );
    }
}

use crate::test_rng::Rng;

fn gen_reg(g: &mut Rng, size: Size) -> Reg {
    let half = match size {
        Size::S16 => g.below(256) as u16,
        Size::S32 => g.below(127) as u16 * 2,
        Size::S64 => g.below(126) as u16 * 2,
    };
    Reg { half, size }
}

fn gen_size(g: &mut Rng, allow64: bool) -> Size {
    if allow64 {
        g.pick(&[Size::S16, Size::S32, Size::S64])
    } else {
        g.pick(&[Size::S16, Size::S32])
    }
}

fn gen_operand(g: &mut Rng, size: Size) -> Operand {
    match g.below(3) {
        0 => Operand::Imm(g.below(256) as u32),
        1 if size != Size::S64 => {
            let half = if size == Size::S32 {
                g.below(255) as u16 * 2
            } else {
                g.below(512) as u16
            };
            Operand::Uniform(Reg { half, size })
        }
        _ => Operand::Reg(gen_reg(g, size)),
    }
}

fn gen_hint(g: &mut Rng, op: Operand) -> Hint {
    match op {
        Operand::Reg(_) => g.pick(&[Hint::None, Hint::Cache, Hint::Discard]),
        _ => Hint::None,
    }
}

fn gen_isrc(g: &mut Rng, allow64: bool, sx: bool) -> ISrc {
    let size = gen_size(g, allow64);
    let op = gen_operand(g, size);
    ISrc {
        op,
        sign_extend: sx && g.bool(),
        hint: gen_hint(g, op),
    }
}

fn gen_fsrc(g: &mut Rng, size: Size) -> FSrc {
    let op = gen_operand(g, size);
    FSrc {
        op,
        abs: g.bool(),
        neg: g.bool(),
        hint: gen_hint(g, op),
    }
}

fn gen_dst(g: &mut Rng, size: Size) -> Dst {
    Dst {
        reg: gen_reg(g, size),
        cache: g.bool(),
    }
}

fn gen_cond(g: &mut Rng) -> Cond {
    if g.bool() {
        Cond::Int(g.pick(&[
            ICond::UEq,
            ICond::ULt,
            ICond::UGt,
            ICond::SEq,
            ICond::SLt,
            ICond::SGt,
        ]))
    } else {
        Cond::Float(g.pick(&[
            FCond::Eq,
            FCond::Lt,
            FCond::Gt,
            FCond::LtN,
            FCond::Ge,
            FCond::Le,
            FCond::GtN,
        ]))
    }
}

const FORMATS: [MemFormat; 10] = [
    MemFormat::I8,
    MemFormat::I16,
    MemFormat::I32,
    MemFormat::U8Norm,
    MemFormat::S8Norm,
    MemFormat::U16Norm,
    MemFormat::S16Norm,
    MemFormat::RGB10A2,
    MemFormat::SRGBA8,
    MemFormat::F16,
];

const ATOMICS: [AtomicOp; 11] = [
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Xchg,
    AtomicOp::CmpXchg,
    AtomicOp::UMin,
    AtomicOp::SMin,
    AtomicOp::UMax,
    AtomicOp::SMax,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
];

fn gen_mem_reg(g: &mut Rng, format: MemFormat) -> Reg {
    let size = if format == MemFormat::I32 {
        Size::S32
    } else {
        gen_size(g, false)
    };
    let mut reg = gen_reg(g, size);
    reg.half = reg.half.min(256 - 8);
    reg
}

fn gen_index(g: &mut Rng, size: Size) -> Index {
    if g.bool() {
        Index::Imm(g.next() as i16)
    } else {
        Index::Reg(gen_reg(g, size))
    }
}

fn gen_base64(g: &mut Rng) -> Operand {
    let r = Reg {
        half: g.below(64) as u16 * 4,
        size: Size::S64,
    };
    if g.bool() {
        Operand::Uniform(r)
    } else {
        Operand::Reg(r)
    }
}

fn gen_tg_base(g: &mut Rng) -> Operand {
    match g.below(3) {
        0 => Operand::Imm(0),
        1 => Operand::Uniform(h(g.below(512) as u16)),
        _ => Operand::Reg(h(g.below(256) as u16)),
    }
}

/// A random instruction of variant `v` (numbered as in [`variant_index`]).
fn gen(g: &mut Rng, v: usize) -> Instr {
    let n2 = |g: &mut Rng| g.below(4) as u8;
    match v {
        0 => {
            let size = gen_size(g, false);
            let imm = if size == Size::S16 {
                g.below(0x1_0000) as u32
            } else {
                g.next() as u32
            };
            Instr::MovImm(MovImm {
                dst: gen_dst(g, size),
                imm,
            })
        }
        1 => Instr::GetSr(GetSr {
            dst: gen_dst(g, Size::S32),
            sr: SpecialReg(g.next() as u8),
        }),
        2 => {
            let size = gen_size(g, true);
            Instr::IAdd(IAdd {
                dst: gen_dst(g, size),
                a: gen_isrc(g, true, true),
                b: gen_isrc(g, true, true),
                negate_b: g.bool(),
                shift: g.below(5) as u8,
                saturate: g.bool(),
            })
        }
        3 => {
            let size = gen_size(g, true);
            Instr::IMAdd(IMAdd {
                dst: gen_dst(g, size),
                a: gen_isrc(g, false, true),
                b: gen_isrc(g, false, true),
                c: gen_isrc(g, true, true),
                negate_c: g.bool(),
                shift: g.below(5) as u8,
                saturate: g.bool(),
            })
        }
        4 => {
            let size = gen_size(g, false);
            Instr::Bitop(Bitop {
                dst: gen_dst(g, size),
                a: gen_isrc(g, false, false),
                b: gen_isrc(g, false, false),
                table: g.below(16) as u8,
            })
        }
        5 => {
            let op = g.pick(&[
                ShiftOp::Bfi,
                ShiftOp::Bfeil,
                ShiftOp::Extr,
                ShiftOp::Shlhi,
                ShiftOp::Shrhi,
                ShiftOp::Asr,
            ]);
            let asr = op == ShiftOp::Asr;
            let size = gen_size(g, false);
            Instr::Shift(Shift {
                op,
                dst: gen_dst(g, size),
                a: gen_isrc(g, false, false),
                b: gen_isrc(g, false, false),
                c: if asr {
                    is(Operand::Imm(0))
                } else {
                    gen_isrc(g, false, false)
                },
                mask_bits: if asr { 0 } else { g.below(32) as u8 },
            })
        }
        6 => {
            let size = gen_size(g, false);
            Instr::IUnary(IUnary {
                op: g.pick(&[
                    IUnaryOp::BitReverse,
                    IUnaryOp::PopCount,
                    IUnaryOp::FindFirstSet,
                ]),
                dst: gen_dst(g, size),
                src: gen_isrc(g, false, false),
            })
        }
        7 => {
            let ops = [
                ConvertOp::U32ToF,
                ConvertOp::S32ToF,
                ConvertOp::U16ToF,
                ConvertOp::S16ToF,
                ConvertOp::U8ToF,
                ConvertOp::S8ToF,
                ConvertOp::FToU32,
                ConvertOp::FToS32,
                ConvertOp::FToU16,
                ConvertOp::FToS16,
            ];
            let size = gen_size(g, false);
            Instr::Convert(Convert {
                op: g.pick(&ops),
                dst: gen_dst(g, size),
                src: gen_isrc(g, false, false),
                round: g.pick(&[Round::NearestEven, Round::TowardZero]),
            })
        }
        8 => {
            let size = gen_size(g, false);
            let op = g.pick(&[FOp::Add, FOp::Mul, FOp::MAdd]);
            let c = if op == FOp::MAdd {
                gen_fsrc(g, size)
            } else {
                fs(Operand::Imm(0))
            };
            Instr::FArith(FArith {
                op,
                dst: gen_dst(g, size),
                a: gen_fsrc(g, size),
                b: gen_fsrc(g, size),
                c,
                saturate: g.bool(),
            })
        }
        9 => {
            let ops = [
                FUnaryOp::Floor,
                FUnaryOp::Ceil,
                FUnaryOp::Trunc,
                FUnaryOp::Rint,
                FUnaryOp::Rcp,
                FUnaryOp::Rsqrt,
                FUnaryOp::SinPt1,
                FUnaryOp::SinPt2,
                FUnaryOp::Log2,
                FUnaryOp::Exp2,
                FUnaryOp::Dfdx,
                FUnaryOp::Dfdy,
            ];
            let size = gen_size(g, false);
            let src_size = gen_size(g, false);
            Instr::FUnary(FUnary {
                op: g.pick(&ops),
                dst: gen_dst(g, size),
                src: gen_fsrc(g, src_size),
                saturate: g.bool(),
            })
        }
        10 => {
            let size = gen_size(g, false);
            let (sa, sb) = (gen_size(g, false), gen_size(g, false));
            Instr::CmpSel(CmpSel {
                cond: gen_cond(g),
                dst: gen_dst(g, size),
                a: gen_operand(g, sa),
                b: gen_operand(g, sb),
                x: gen_operand(g, size),
                y: gen_operand(g, size),
            })
        }
        11 => {
            let (sa, sb) = (gen_size(g, false), gen_size(g, false));
            Instr::ExecCmp(ExecCmp {
                op: g.pick(&[ExecOp::If, ExecOp::Else, ExecOp::While]),
                cond: gen_cond(g),
                invert: g.bool(),
                a: gen_operand(g, sa),
                b: gen_operand(g, sb),
                n: n2(g),
            })
        }
        12 => Instr::PopExec(PopExec { n: n2(g) }),
        13 => Instr::Jump(Jump {
            cond: g.pick(&[JumpCond::Any, JumpCond::None]),
            offset: g.next() as i32,
        }),
        14 => Instr::Wait(Wait {
            slot: g.below(2) as u8,
        }),
        15 => {
            let format = g.pick(&FORMATS);
            Instr::DeviceMem(DeviceMem {
                store: g.bool(),
                reg: gen_mem_reg(g, format),
                base: gen_base64(g),
                index: gen_index(g, Size::S32),
                index_unsigned: g.bool(),
                shift: g.below(4) as u8,
                format,
                mask: 1 + g.below(15) as u8,
                wait_slot: g.below(2) as u8,
            })
        }
        16 => {
            let format = g.pick(&FORMATS);
            Instr::ThreadgroupMem(ThreadgroupMem {
                store: g.bool(),
                reg: gen_mem_reg(g, format),
                base: gen_tg_base(g),
                index: gen_index(g, Size::S16),
                format,
                mask: 1 + g.below(15) as u8,
                wait_slot: 0,
            })
        }
        17 => {
            let format = g.pick(&FORMATS);
            Instr::StackMem(StackMem {
                store: g.bool(),
                reg: gen_mem_reg(g, format),
                offset: gen_index(g, Size::S32),
                format,
                mask: 1 + g.below(15) as u8,
                wait_slot: g.below(2) as u8,
            })
        }
        18 | 19 => {
            let op = g.pick(&ATOMICS);
            let src = gen_reg(
                g,
                if op == AtomicOp::CmpXchg {
                    Size::S64
                } else {
                    Size::S32
                },
            );
            let dst = g.bool().then(|| gen_reg(g, Size::S32));
            if v == 18 {
                Instr::Atomic(Atomic {
                    op,
                    dst,
                    src,
                    base: gen_base64(g),
                    index: gen_index(g, Size::S32),
                    wait_slot: g.below(2) as u8,
                })
            } else {
                Instr::ThreadgroupAtomic(ThreadgroupAtomic {
                    op,
                    dst,
                    src,
                    base: gen_tg_base(g),
                    index: gen_index(g, Size::S16),
                    wait_slot: 0,
                })
            }
        }
        20 => Instr::ThreadgroupBarrier,
        21 => Instr::MemoryBarrier,
        22 => Instr::Stop,
        23 => {
            let size = gen_size(g, false);
            let channels = 1 + g.below(4) as u8;
            let mut dst = gen_reg(g, size);
            dst.half = dst.half.min(240 - 2 * u16::from(channels)) & !1;
            if size == Size::S16 {
                dst.half += g.below(2) as u16;
            }
            let interp = match g.below(4) {
                0 => Interpolation::Center,
                1 => Interpolation::Centroid,
                2 => Interpolation::Sample(Small::Imm(g.below(256) as u8)),
                _ => Interpolation::Sample(Small::Reg(gen_reg(g, Size::S16))),
            };
            Instr::Iter(Iter {
                dst,
                channels,
                cf: g.below(256) as u8,
                perspective_w: g.bool().then(|| g.below(256) as u8),
                interp,
            })
        }
        24 => {
            let channels = 1 + g.below(4) as u8;
            Instr::LdCf(LdCf {
                dst: Reg::r32(g.below(100) as u16),
                channels,
                cf: g.below(256) as u8,
            })
        }
        25 => Instr::StVary(StVary {
            src: gen_reg(g, Size::S32),
            index: gen_small(g),
            last: g.bool(),
        }),
        26 => {
            let format = g.pick(&[
                MemFormat::I8,
                MemFormat::I16,
                MemFormat::I32,
                MemFormat::F16,
            ]);
            let mask = 1 + g.below(15) as u8;
            let mut reg = gen_mem_reg(g, format);
            reg.half = reg.half.min(240) & if reg.size == Size::S16 { !0 } else { !1 };
            Instr::TileMem(TileMem {
                store: g.bool(),
                reg,
                format,
                mask,
                pixel_offset: g.below(512) as u16,
                samples: gen_small(g),
                coords: g.bool().then(|| gen_reg(g, Size::S32)),
            })
        }
        27 => Instr::SampleMask(SampleMask {
            targets: gen_small(g),
            live: gen_small(g),
        }),
        29 => {
            let lod_mode = g.pick(&[
                LodMode::Auto,
                LodMode::AutoBias,
                LodMode::Min,
                LodMode::Grad,
                LodMode::GradMin,
                LodMode::AutoBiasMin,
            ]);
            let lod = match lod_mode {
                LodMode::Auto => Operand::Imm(0),
                LodMode::Grad | LodMode::GradMin => Operand::Reg(gen_reg(g, Size::S32)),
                _ if g.bool() => Operand::Uniform(gen_reg(g, Size::S16)),
                _ => Operand::Reg(gen_reg(g, Size::S16)),
            };
            let shadow = g.bool();
            let offset = g.bool();
            let mask = 1 + g.below(15) as u8;
            let size = gen_size(g, false);
            let mut dst = gen_reg(g, size);
            dst.half = dst.half.min(240) & if dst.size == Size::S16 { !0 } else { !1 };
            Instr::Texture(Texture {
                load: g.bool(),
                dst,
                coords: gen_reg(g, Size::S32),
                lod_mode,
                lod,
                texture: gen_tex(g),
                sampler: gen_small(g),
                dim: gen_dim(g),
                mask,
                shadow,
                offset,
                extra: (shadow || offset).then(|| gen_reg(g, Size::S32)),
                gather: g.bool().then(|| g.below(4) as u8),
                query_lod: g.bool(),
                wait_slot: g.below(2) as u8,
            })
        }
        30 => {
            let size = gen_size(g, false);
            let mut src = gen_reg(g, size);
            src.half = src.half.min(240) & if src.size == Size::S16 { !0 } else { !1 };
            Instr::ImageWrite(ImageWrite {
                src,
                coords: gen_reg(g, Size::S32),
                lod: gen_small(g),
                texture: gen_tex(g),
                dim: gen_dim(g),
                coherent: g.bool(),
            })
        }
        31 => {
            let (size, sa, sb) = (gen_size(g, false), gen_size(g, false), gen_size(g, false));
            Instr::Ballot(Ballot {
                dst: gen_dst(g, size),
                cond: gen_cond(g),
                invert: g.bool(),
                a: gen_operand(g, sa),
                b: gen_operand(g, sb),
            })
        }
        32 => {
            let (size, si) = (gen_size(g, false), gen_size(g, false));
            Instr::Shuffle(Shuffle {
                dst: Dst {
                    reg: gen_reg(g, size),
                    cache: false,
                },
                a: gen_operand(g, size),
                index: gen_operand(g, si),
                mode: g.pick(&[ShuffleMode::Index, ShuffleMode::Xor]),
                quad: g.bool(),
            })
        }
        33 => {
            let size = gen_size(g, false);
            Instr::SimdReduce(SimdReduce {
                dst: Dst {
                    reg: gen_reg(g, size),
                    cache: false,
                },
                a: gen_operand(g, size),
                op: g.pick(&[
                    SimdOp::And,
                    SimdOp::FAdd,
                    SimdOp::Or,
                    SimdOp::FMul,
                    SimdOp::Xor,
                    SimdOp::FMin,
                    SimdOp::FMax,
                    SimdOp::IAdd,
                    SimdOp::SMin,
                    SimdOp::SMax,
                    SimdOp::UMin,
                    SimdOp::UMax,
                ]),
                kind: g.pick(&[
                    ReduceKind::QuadReduce,
                    ReduceKind::SimdReduce,
                    ReduceKind::QuadPrefix,
                    ReduceKind::SimdPrefix,
                ]),
            })
        }
        35 => Instr::BlockImageStore(BlockImageStore {
            format: g.pick(&FORMATS),
            offset: Reg::r32(g.below(128) as u16),
            texture: gen_tex(g),
            dim: g.pick(&[TexDim::D2, TexDim::D2Ms]),
        }),
        34 => {
            let mask = 1 + g.below(15) as u8;
            let index = if g.bool() {
                Index::Imm(g.below(u64::from(UNIFORM_HALVES)) as i16)
            } else {
                Index::Reg(gen_reg(g, Size::S32))
            };
            Instr::UniformStore(UniformStore {
                reg: h(g.below(256 - 4) as u16),
                index,
                mask,
            })
        }
        _ => {
            let (depth, stencil) = g.pick(&[(true, false), (false, true), (true, true)]);
            let src = if depth {
                Reg::r32(g.below(126) as u16)
            } else {
                gen_reg(g, Size::S16)
            };
            Instr::ZsEmit(ZsEmit {
                samples: gen_small(g),
                src,
                depth,
                stencil,
            })
        }
    }
}

fn gen_tex(g: &mut Rng) -> TexIndex {
    match g.below(3) {
        0 => TexIndex::Imm(g.below(256) as u8),
        1 => TexIndex::Reg(gen_reg(g, Size::S16)),
        _ => TexIndex::Bindless {
            base: g.below(32) as u16 * 4,
            index: gen_reg(g, Size::S32),
        },
    }
}

fn gen_dim(g: &mut Rng) -> TexDim {
    g.pick(&[
        TexDim::D1,
        TexDim::D1Array,
        TexDim::D2,
        TexDim::D2Array,
        TexDim::D2Ms,
        TexDim::D3,
        TexDim::Cube,
        TexDim::CubeArray,
        TexDim::D2MsArray,
    ])
}

fn gen_small(g: &mut Rng) -> Small {
    if g.bool() {
        Small::Imm(g.below(256) as u8)
    } else {
        Small::Reg(gen_reg(g, Size::S16))
    }
}

const VARIANTS: usize = 36;

/// Exhaustive (no wildcard): adding an `Instr` variant breaks this until the generator
/// covers it.
fn variant_index(i: &Instr) -> usize {
    match i {
        Instr::MovImm(_) => 0,
        Instr::GetSr(_) => 1,
        Instr::IAdd(_) => 2,
        Instr::IMAdd(_) => 3,
        Instr::Bitop(_) => 4,
        Instr::Shift(_) => 5,
        Instr::IUnary(_) => 6,
        Instr::Convert(_) => 7,
        Instr::FArith(_) => 8,
        Instr::FUnary(_) => 9,
        Instr::CmpSel(_) => 10,
        Instr::ExecCmp(_) => 11,
        Instr::PopExec(_) => 12,
        Instr::Jump(_) => 13,
        Instr::Wait(_) => 14,
        Instr::DeviceMem(_) => 15,
        Instr::ThreadgroupMem(_) => 16,
        Instr::StackMem(_) => 17,
        Instr::Atomic(_) => 18,
        Instr::ThreadgroupAtomic(_) => 19,
        Instr::ThreadgroupBarrier => 20,
        Instr::MemoryBarrier => 21,
        Instr::Stop => 22,
        Instr::Iter(_) => 23,
        Instr::LdCf(_) => 24,
        Instr::StVary(_) => 25,
        Instr::TileMem(_) => 26,
        Instr::SampleMask(_) => 27,
        Instr::ZsEmit(_) => 28,
        Instr::Texture(_) => 29,
        Instr::ImageWrite(_) => 30,
        Instr::Ballot(_) => 31,
        Instr::Shuffle(_) => 32,
        Instr::SimdReduce(_) => 33,
        Instr::UniformStore(_) => 34,
        Instr::BlockImageStore(_) => 35,
    }
}

#[test]
#[allow(clippy::needless_range_loop)]
fn generator_covers_every_variant() {
    let mut g = Rng(7);
    let mut seen = [false; VARIANTS];
    for v in 0..VARIANTS {
        let i = gen(&mut g, v);
        assert_eq!(variant_index(&i), v);
        seen[v] = true;
    }
    assert!(seen.iter().all(|&s| s));
}

#[test]
#[allow(clippy::needless_range_loop)]
fn round_trip_generated() {
    let mut g = Rng(0x1234_5678_9abc_def1);
    let mut ok = [0usize; VARIANTS];
    let mut sizes = [false; 3];
    for _ in 0..400 {
        for v in 0..VARIANTS {
            let i = gen(&mut g, v);
            let mut bytes = Vec::new();
            // The generator only builds encodable operands except where a width is legal in
            // one slot and not another (16-bit float ops with 32-bit sources); those must fail
            // with an error, never a panic.
            if encode(&i, &mut bytes).is_err() {
                continue;
            }
            ok[v] += 1;
            if let Instr::IAdd(a) = i {
                sizes[match a.dst.reg.size {
                    Size::S16 => 0,
                    Size::S32 => 1,
                    Size::S64 => 2,
                }] = true;
            }
            assert_eq!(encoded_len(&i), Ok(bytes.len()));
            // Trailing garbage must not change the decode.
            let mut padded = bytes.clone();
            padded.extend_from_slice(&[0xff; 12]);
            assert_eq!(
                decode(&padded),
                Ok((i, bytes.len())),
                "{i:?} bytes {bytes:02x?}"
            );
            let text = crate::isa::disasm::format(&i);
            assert!(!text.is_empty());
        }
    }
    for (v, n) in ok.iter().enumerate() {
        assert!(*n > 20, "variant {v} encoded only {n} times");
    }
    assert!(sizes.iter().all(|&s| s));
}

#[test]
fn garbage_and_truncation_never_panic() {
    let mut g = Rng(99);
    let mut decoded = 0;
    for _ in 0..200_000 {
        let len = g.below(14) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| g.next() as u8).collect();
        if let Ok((i, n)) = decode(&bytes) {
            assert!(n <= bytes.len());
            // Anything accepted must re-encode to the same bytes.
            let mut again = Vec::new();
            if n == encoded_len(&i).unwrap() {
                encode(&i, &mut again).unwrap();
                assert_eq!(again, bytes[..n]);
            }
            decoded += 1;
        }
    }
    assert!(decoded > 0);
    // Every prefix of every valid encoding is a clean truncation error.
    for (_, i, _) in pinned() {
        let mut bytes = Vec::new();
        encode(&i, &mut bytes).unwrap();
        for cut in 0..bytes.len() {
            assert!(
                matches!(decode(&bytes[..cut]), Err(DecodeError::Truncated { .. })),
                "{i:?} cut {cut}"
            );
        }
    }
    assert!(matches!(
        decode(&[0xff, 0xff]),
        Err(DecodeError::Unknown { .. })
    ));
}

/// Mixed widths take the 32-bit opcode (Mesa's f2f16 / f2f32 are `fadd` with -0.0): they
/// encode, decode back to themselves, and the same operands all 16-bit take the 16-bit one.
#[test]
fn farith_mixed_widths() {
    let to_half = Instr::FArith(FArith {
        op: FOp::Add,
        dst: Dst::from(h(5)),
        a: fs(r(3)),
        b: fs(Operand::Imm(0x80)),
        c: fs(Operand::Imm(0)),
        saturate: false,
    });
    let to_single = Instr::FArith(FArith {
        op: FOp::MAdd,
        dst: d(2),
        a: fs(Operand::Reg(h(9))),
        b: fs(Operand::Reg(h(10))),
        c: fs(r(7)),
        saturate: false,
    });
    for i in [to_half, to_single] {
        let mut b = Vec::new();
        encode(&i, &mut b).unwrap();
        let add = matches!(i, Instr::FArith(FArith { op: FOp::Add, .. }));
        assert_eq!(b[0] & 0x3f, if add { 0x2a } else { 0x3a });
        assert_eq!(decode(&b).unwrap(), (i, b.len()));
    }
    let all_half = Instr::FArith(FArith {
        op: FOp::Add,
        dst: Dst::from(h(5)),
        a: fs(Operand::Reg(h(3))),
        b: fs(Operand::Imm(0x80)),
        c: fs(Operand::Imm(0)),
        saturate: false,
    });
    let mut b = Vec::new();
    encode(&all_half, &mut b).unwrap();
    assert_eq!(b[0] & 0x3f, 0x26);
    assert_eq!(decode(&b).unwrap(), (all_half, b.len()));
    // The 32-bit opcode with those all-16-bit operands is not agx4's encoding.
    let mut wide = Vec::new();
    let Instr::FArith(mut x) = all_half else {
        unreachable!()
    };
    x.a = fs(r(3));
    encode(&Instr::FArith(x), &mut wide).unwrap();
    // Source A's type is bits 22..26 with the width in bits 24..25: make it 16-bit.
    wide[3] &= !0x03;
    assert!(decode(&wide).is_err());
}

/// `uniform_store` shares the device store opcode: bits 28..30 tell them apart, and the bits
/// a device store would set (bit 46, the 32-bit flag, a base, a shift, a scoreboard slot)
/// are not a `uniform_store`.
#[test]
fn uniform_store_is_told_from_device_memory() {
    let us = Instr::UniformStore(UniformStore {
        reg: h(8),
        index: Index::Imm(256),
        mask: 0b11,
    });
    let mut bytes = Vec::new();
    encode(&us, &mut bytes).unwrap();
    assert_eq!(bytes.len(), 8);
    assert_eq!(decode(&bytes), Ok((us, 8)));
    // A device store with the same data register, index and mask leaves bits 28..30 clear.
    let ds = Instr::DeviceMem(DeviceMem {
        store: true,
        reg: h(8),
        base: Operand::Uniform(Reg::r64(0)),
        index: Index::Imm(256),
        index_unsigned: false,
        shift: 0,
        format: MemFormat::I16,
        mask: 0b11,
        wait_slot: 0,
    });
    let mut dev = Vec::new();
    encode(&ds, &mut dev).unwrap();
    assert_eq!(dev[0], bytes[0]);
    assert_eq!(dev[3] >> 4 & 3, 0);
    assert_eq!(bytes[3] >> 4 & 3, 3);
    assert_eq!(decode(&dev), Ok((ds, 8)));
    // (byte, bit): one of 28/29 alone, bit 46, the 32-bit flag (49), a base bit (16), a
    // shift bit (42), the scoreboard bit (30), the index signedness bit (25).
    for (byte, bit) in [
        (3, 4),
        (3, 5),
        (5, 6),
        (6, 1),
        (2, 0),
        (5, 2),
        (3, 6),
        (3, 1),
    ] {
        let mut b = bytes.clone();
        b[byte] ^= 1 << bit;
        if let Ok((i, _)) = decode(&b) {
            assert!(
                !matches!(i, Instr::UniformStore(_)),
                "byte {byte} bit {bit}: {i:?}"
            );
            let mut again = Vec::new();
            encode(&i, &mut again).unwrap();
            assert_eq!(again, b);
        }
    }
    assert_eq!(
        crate::isa::disasm::format(&us),
        "uniform_store i16, xy, r4l_r4h, 256"
    );
}

#[test]
fn uniform_store_operands_are_checked() {
    let base = UniformStore {
        reg: h(8),
        index: Index::Imm(0),
        mask: 1,
    };
    let cases = [
        (
            UniformStore {
                reg: Reg::r32(4),
                ..base
            },
            "reg",
        ),
        (
            UniformStore {
                index: Index::Imm(512),
                ..base
            },
            "index",
        ),
        (
            UniformStore {
                index: Index::Imm(-1),
                ..base
            },
            "index",
        ),
        (
            UniformStore {
                index: Index::Reg(h(6)),
                ..base
            },
            "index",
        ),
        (UniformStore { mask: 0, ..base }, "mask"),
        (UniformStore { mask: 0x10, ..base }, "mask"),
        (
            UniformStore {
                reg: h(254),
                mask: 0b111,
                ..base
            },
            "reg",
        ),
    ];
    for (i, operand) in cases {
        let e = encode(&Instr::UniformStore(i), &mut Vec::new()).unwrap_err();
        assert_eq!(e.operand, operand, "{i:?}");
    }
}

/// Generation-neutral code reaches G13's encoding through `Generation::codec`: the same bytes
/// as `encode`, the same decode, and no instruction longer than the length it promises.
#[test]
fn the_g13_codec_is_the_g13_encoding() {
    use crate::Generation;
    assert!(Generation::G16.codec().is_none());
    for generation in [Generation::G13, Generation::G14] {
        let codec = generation.codec().expect("G13 and G14 have a codec");
        assert_eq!(codec.generation(), Generation::G13);
        let mut g = Rng(0x5eed_c0de);
        let mut checked = 0;
        for _ in 0..50 {
            for v in 0..VARIANTS {
                let i = gen(&mut g, v);
                let mut want = Vec::new();
                if encode(&i, &mut want).is_err() {
                    continue;
                }
                let mut got = Vec::new();
                codec
                    .encode(&i, &mut got)
                    .expect("encodes as `encode` does");
                assert_eq!(got, want, "{i:?}");
                assert_eq!(codec.encoded_len(&i), Ok(want.len()));
                assert!(want.len() <= codec.max_instr_len(), "{i:?}");
                assert_eq!(codec.decode(&want), Ok((i, want.len())));
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} instructions checked");
    }
}
