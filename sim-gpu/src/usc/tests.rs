//! Hand-built programs run through `run_workgroups`; expectations are computed directly in
//! the test, not by the executor.

use super::*;
use crate::Access;
use hw::isa::*;

// ---- program building -------------------------------------------------------------------

fn r32(n: u16) -> Reg {
    Reg::r32(n)
}
fn r16(h: u16) -> Reg {
    Reg::r16(h)
}
fn reg(r: Reg) -> Operand {
    Operand::Reg(r)
}
fn imm(v: u32) -> Operand {
    Operand::Imm(v)
}
fn d(r: Reg) -> Dst {
    Dst::from(r)
}
fn is(o: Operand) -> ISrc {
    ISrc::new(o)
}
fn fs(o: Operand) -> FSrc {
    FSrc::new(o)
}

fn mov(r: Reg, v: u32) -> Instr {
    Instr::MovImm(MovImm { dst: d(r), imm: v })
}
fn sr(r: Reg, s: SpecialReg) -> Instr {
    Instr::GetSr(GetSr { dst: d(r), sr: s })
}
fn iadd(r: Reg, a: Operand, b: Operand) -> Instr {
    Instr::IAdd(IAdd {
        dst: d(r),
        a: is(a),
        b: is(b),
        negate_b: false,
        shift: 0,
        saturate: false,
    })
}
fn bitop(r: Reg, a: Operand, b: Operand, table: u8) -> Instr {
    Instr::Bitop(Bitop {
        dst: d(r),
        a: is(a),
        b: is(b),
        table,
    })
}
fn exec(op: ExecOp, cond: Cond, a: Operand, b: Operand, n: u8) -> Instr {
    Instr::ExecCmp(ExecCmp {
        op,
        cond,
        invert: false,
        a,
        b,
        n,
    })
}
/// `else` that applies no condition (applegpu's else_exec: 0.0 == 0.0).
fn else_(n: u8) -> Instr {
    exec(ExecOp::Else, Cond::Float(FCond::Eq), imm(0), imm(0), n)
}
fn pop(n: u8) -> Instr {
    Instr::PopExec(PopExec { n })
}
fn jmp(cond: JumpCond, offset: i32) -> Instr {
    Instr::Jump(Jump { cond, offset })
}
/// The 64-bit uniform starting at `half`.
fn uni64(half: u16) -> Reg {
    Reg {
        half,
        size: Size::S64,
    }
}

/// Device access of one 32-bit element at the 64-bit uniform at half `base_uniform`, plus
/// index * 4.
fn dev(store: bool, r: Reg, base_uniform: u16, index: Reg) -> Instr {
    Instr::DeviceMem(DeviceMem {
        store,
        reg: r,
        base: Operand::Uniform(uni64(base_uniform)),
        index: Index::Reg(index),
        index_unsigned: true,
        shift: 0,
        format: MemFormat::I32,
        mask: 1,
        wait_slot: 0,
    })
}

/// Lay instructions out 8 bytes apart (the executor does not care about real lengths).
fn prog(instrs: Vec<Instr>) -> Program {
    Program::new(
        0x1_0000,
        instrs
            .into_iter()
            .enumerate()
            .map(|(i, x)| ((i * 8) as u32, x))
            .collect(),
    )
    .unwrap()
}

/// Branch offset from instruction `from` to instruction `to` in a `prog` layout.
fn off(from: usize, to: usize) -> i32 {
    (to as i32 - from as i32) * 8
}

const OUT: u64 = 0x10_0000;
const OUT2: u64 = 0x20_0000;

/// Memory with two zeroed output arrays, their addresses in uniforms u0 (halves 0..3) and u2
/// (halves 4..7).
fn setup(local: [u32; 3], grid: [u32; 3], words: usize) -> (LaunchState, FlatMemory) {
    let mut m = FlatMemory::new();
    m.map(OUT, vec![0; words * 4]);
    m.map(OUT2, vec![0; words * 4]);
    let mut l = LaunchState::new(local, grid);
    for (i, v) in [OUT, OUT2].iter().enumerate() {
        for h in 0..4 {
            l.uniforms[i * 4 + h] = (v >> (16 * h)) as u16;
        }
    }
    (l, m)
}

fn words(m: &FlatMemory, va: u64, n: usize) -> Vec<u32> {
    m.bytes(va, n * 4)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const TID: Reg = Reg::r32(1);
const GID: SpecialReg = SpecialReg::THREAD_POSITION_IN_GRID_X;

// ---- tests ---------------------------------------------------------------------------------

#[test]
fn integer_alu() {
    let p = prog(vec![
        sr(TID, GID),
        // r2 = tid * 3 + 7
        Instr::IMAdd(IMAdd {
            dst: d(r32(2)),
            a: is(reg(TID)),
            b: is(imm(3)),
            c: is(imm(7)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        // r3 = r2 - (tid << 2)
        Instr::IAdd(IAdd {
            dst: d(r32(3)),
            a: is(reg(r32(2))),
            b: is(reg(TID)),
            negate_b: true,
            shift: 2,
            saturate: false,
        }),
        // r3 ^= 0x55
        bitop(r32(3), reg(r32(3)), imm(0x55), 0b0110),
        // r4 = bfi(into r3, insert tid & 0xf, at shift 8); r5 = bfeil(into 0, (r4 >> 4) & 0xff)
        Instr::Shift(Shift {
            op: ShiftOp::Bfi,
            dst: d(r32(4)),
            a: is(reg(r32(3))),
            b: is(reg(TID)),
            c: is(imm(8)),
            mask_bits: 4,
        }),
        Instr::Shift(Shift {
            op: ShiftOp::Bfeil,
            dst: d(r32(5)),
            a: is(imm(0)),
            b: is(reg(r32(4))),
            c: is(imm(4)),
            mask_bits: 8,
        }),
        // r6 = umax(r5, 100) via icmpsel
        Instr::CmpSel(CmpSel {
            cond: Cond::Int(ICond::UGt),
            dst: d(r32(6)),
            a: reg(r32(5)),
            b: imm(100),
            x: reg(r32(5)),
            y: imm(100),
        }),
        // r7 = 0 - tid, saturating signed 16-bit in r8l
        Instr::IAdd(IAdd {
            dst: d(r32(7)),
            a: is(imm(0)),
            b: is(reg(TID)),
            negate_b: true,
            shift: 0,
            saturate: false,
        }),
        Instr::IAdd(IAdd {
            dst: d(r16(16)),
            a: ISrc {
                op: imm(0x7f),
                sign_extend: true,
                hint: Hint::None,
            },
            b: ISrc {
                op: reg(r16(2 * 7)),
                sign_extend: true,
                hint: Hint::None,
            },
            negate_b: false,
            shift: 0,
            saturate: true,
        }),
        dev(true, r32(3), 0, TID),
        dev(true, r32(6), 4, TID),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [64, 1, 1], 64);
    let stats = run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(stats.workgroups, 2);
    assert_eq!(stats.lane_instructions, 2 * 32 * 12);
    let a = words(&m, OUT, 64);
    let b = words(&m, OUT2, 64);
    for t in 0..64u32 {
        let r2 = t * 3 + 7;
        let r3 = r2.wrapping_sub(t << 2) ^ 0x55;
        let r4 = (r3 & !(0xf << 8)) | ((t & 0xf) << 8);
        let r5 = (r4 >> 4) & 0xff;
        assert_eq!(a[t as usize], r3, "thread {t}");
        assert_eq!(b[t as usize], r5.max(100), "thread {t}");
    }
}

#[test]
fn float_alu_flushes_and_fuses() {
    let p = prog(vec![
        sr(TID, GID),
        Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: d(r32(2)),
            src: is(reg(TID)),
            round: Round::NearestEven,
        }),
        // r3 = r2 * 0.5 + r2 (0x20 is the float immediate 0.5)
        Instr::FArith(FArith {
            op: FOp::MAdd,
            dst: d(r32(3)),
            a: fs(reg(r32(2))),
            b: fs(imm(0x20)),
            c: fs(reg(r32(2))),
            saturate: false,
        }),
        // r4 = -|r3| * tiny (a denormal product flushes to -0)
        mov(r32(5), 0x0080_0000), // smallest normal
        Instr::FArith(FArith {
            op: FOp::Mul,
            dst: d(r32(4)),
            a: FSrc {
                op: reg(r32(5)),
                abs: true,
                neg: true,
                hint: Hint::None,
            },
            b: fs(imm(0x20)),
            c: fs(imm(0)),
            saturate: false,
        }),
        // r6l = half(r3 + 1.0) ; then back to u32 toward zero in r7
        Instr::FArith(FArith {
            op: FOp::Add,
            dst: d(r16(12)),
            a: fs(reg(r32(3))),
            b: fs(imm(0x30)),
            c: fs(imm(0)),
            saturate: false,
        }),
        Instr::Convert(Convert {
            op: ConvertOp::FToU32,
            dst: d(r32(7)),
            src: is(reg(r16(12))),
            round: Round::TowardZero,
        }),
        // r8 = fmin(r3, 10.0) via ltn select; 10.0 = (16 + 4) * 2^-1 -> e=6, f=4 -> 0x64
        Instr::FUnary(FUnary {
            op: FUnaryOp::Floor,
            dst: d(r32(9)),
            src: fs(imm(0x64)),
            saturate: false,
        }),
        Instr::CmpSel(CmpSel {
            cond: Cond::Float(FCond::LtN),
            dst: d(r32(8)),
            a: reg(r32(3)),
            b: reg(r32(9)),
            x: reg(r32(3)),
            y: reg(r32(9)),
        }),
        dev(true, r32(3), 0, TID),
        dev(true, r32(4), 4, TID),
        Instr::IAdd(IAdd {
            dst: d(r32(10)),
            a: is(reg(TID)),
            b: is(imm(32)),
            negate_b: false,
            shift: 0,
            saturate: false,
        }),
        dev(true, r32(7), 0, r32(10)),
        dev(true, r32(8), 4, r32(10)),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 64);
    run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 64);
    let b = words(&m, OUT2, 64);
    for t in 0..32usize {
        let x = t as f32 * 1.5;
        assert_eq!(f32::from_bits(a[t]), x);
        assert_eq!(b[t], 0x8000_0000, "denormal product flushes to -0");
        assert_eq!(
            a[32 + t],
            (x + 1.0) as u32,
            "f16 round trip of small integers and halves"
        );
        assert_eq!(f32::from_bits(b[32 + t]), x.min(10.0));
    }
}

#[test]
fn nested_if_else() {
    // if (tid < 16) { if (tid & 1) A = 1 else A = 2 } else { A = 3 }
    let p = prog(vec![
        sr(TID, GID),
        exec(ExecOp::If, Cond::Int(ICond::ULt), reg(TID), imm(16), 1),
        bitop(r32(2), reg(TID), imm(1), 0b1000),
        exec(ExecOp::If, Cond::Int(ICond::UEq), reg(r32(2)), imm(1), 1),
        mov(r32(3), 1),
        else_(1),
        mov(r32(3), 2),
        pop(1),
        else_(1),
        mov(r32(3), 3),
        pop(1),
        dev(true, r32(3), 0, TID),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 32);
    run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 32);
    for t in 0..32u32 {
        let want = if t < 16 {
            if t & 1 == 1 {
                1
            } else {
                2
            }
        } else {
            3
        };
        assert_eq!(a[t as usize], want, "thread {t}");
    }
}

#[test]
fn while_loop_with_per_lane_trip_counts() {
    // trip = tid & 3; if (trip > 0) { do { i++; sum += i } while (i < trip) }
    let (i, sum, trip) = (r32(2), r32(3), r32(4));
    let p = prog(vec![
        /* 0 */ sr(TID, GID),
        /* 1 */ bitop(trip, reg(TID), imm(3), 0b1000),
        /* 2 */ mov(i, 0),
        /* 3 */ mov(sum, 0),
        /* 4 */ exec(ExecOp::If, Cond::Int(ICond::UGt), reg(trip), imm(0), 1),
        /* 5 */ jmp(JumpCond::None, off(5, 10)),
        /* 6 */ iadd(i, reg(i), imm(1)),
        /* 7 */ iadd(sum, reg(sum), reg(i)),
        /* 8 */ exec(ExecOp::While, Cond::Int(ICond::ULt), reg(i), reg(trip), 1),
        /* 9 */ jmp(JumpCond::Any, off(9, 6)),
        /* 10 */ pop(1),
        /* 11 */ dev(true, sum, 0, TID),
        /* 12 */ dev(true, i, 4, TID),
        /* 13 */ Instr::Stop,
    ]);
    // Local size 40: the second SIMD group has 8 lanes.
    let (l, mut m) = setup([40, 1, 1], [40, 1, 1], 40);
    let stats = run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 40);
    let b = words(&m, OUT2, 40);
    for t in 0..40u32 {
        let n = t & 3;
        assert_eq!(a[t as usize], n * (n + 1) / 2, "sum, thread {t}");
        assert_eq!(b[t as usize], n, "trip, thread {t}");
    }
    // Three loop iterations run (the longest trip); each group issues the 14 instructions
    // once plus 4 per extra iteration.
    assert_eq!(stats.group_instructions, 2 * (14 + 2 * 4));
}

#[test]
fn jmp_exec_none_skips_when_no_lane_is_active() {
    let p = prog(vec![
        /* 0 */ sr(TID, GID),
        /* 1 */ mov(r32(2), 7),
        /* 2 */ exec(ExecOp::If, Cond::Int(ICond::UGt), reg(TID), imm(100), 1),
        /* 3 */ jmp(JumpCond::None, off(3, 5)),
        /* 4 */
        Instr::Jump(Jump {
            cond: JumpCond::Any,
            offset: 0x7000,
        }), // would fault if reached
        /* 5 */ pop(1),
        /* 6 */ dev(true, r32(2), 0, TID),
        /* 7 */ Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 32);
    run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(words(&m, OUT, 32), vec![7; 32]);
}

#[test]
fn device_vector_and_narrow_accesses() {
    // out2[t] = in[2t] + in[2t+1] (a two-element load), and bytes: out[t] low byte copied
    // from in8[t] through a 16-bit register.
    const IN: u64 = 0x30_0000;
    let pair = Reg::r32(4);
    let p = prog(vec![
        sr(TID, GID),
        Instr::DeviceMem(DeviceMem {
            store: false,
            reg: pair,
            base: Operand::Uniform(uni64(8)),
            index: Index::Reg(TID),
            index_unsigned: true,
            shift: 1,
            format: MemFormat::I32,
            mask: 0b11,
            wait_slot: 0,
        }),
        Instr::Wait(Wait { slot: 0 }),
        iadd(r32(6), reg(r32(4)), reg(r32(5))),
        dev(true, r32(6), 4, TID),
        Instr::DeviceMem(DeviceMem {
            store: false,
            reg: r16(20),
            base: Operand::Uniform(uni64(8)),
            index: Index::Reg(TID),
            index_unsigned: true,
            shift: 0,
            format: MemFormat::I8,
            mask: 1,
            wait_slot: 1,
        }),
        Instr::DeviceMem(DeviceMem {
            store: true,
            reg: r16(20),
            base: Operand::Uniform(uni64(0)),
            index: Index::Reg(TID),
            index_unsigned: true,
            shift: 0,
            format: MemFormat::I16,
            mask: 1,
            wait_slot: 0,
        }),
        Instr::Stop,
    ]);
    let (mut l, mut m) = setup([32, 1, 1], [32, 1, 1], 64);
    let input: Vec<u8> = (0..64u32)
        .flat_map(|i| (i * 1000 + 3).to_le_bytes())
        .collect();
    m.map(IN, input.clone());
    for h in 0..4 {
        l.uniforms[8 + h] = (IN >> (16 * h)) as u16;
    }
    run_workgroups(&p, &l, &mut m).unwrap();
    let sums = words(&m, OUT2, 32);
    let halves = m.bytes(OUT, 64).unwrap();
    for t in 0..32usize {
        let w = |i: usize| (i as u32) * 1000 + 3;
        assert_eq!(sums[t], w(2 * t) + w(2 * t + 1));
        assert_eq!(
            u16::from_le_bytes([halves[2 * t], halves[2 * t + 1]]),
            u16::from(input[t])
        );
    }
}

#[test]
fn threadgroup_memory_and_barrier_across_simd_groups() {
    // shared[t] = t * 10; barrier; out[t] = shared[63 - t]; also an atomic sum of t into
    // shared word 64 read back by everyone after a second barrier.
    let rev = r32(2);
    let p = prog(vec![
        sr(TID, SpecialReg::THREAD_INDEX_IN_THREADGROUP),
        Instr::IMAdd(IMAdd {
            dst: d(r32(3)),
            a: is(reg(TID)),
            b: is(imm(10)),
            c: is(imm(0)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        Instr::ThreadgroupMem(ThreadgroupMem {
            store: true,
            reg: r32(3),
            base: imm(0),
            index: Index::Reg(r16(2)),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        Instr::ThreadgroupAtomic(ThreadgroupAtomic {
            op: AtomicOp::Add,
            dst: None,
            src: TID,
            base: imm(256),
            index: Index::Imm(0),
            wait_slot: 0,
        }),
        Instr::ThreadgroupBarrier,
        Instr::IAdd(IAdd {
            dst: d(rev),
            a: is(imm(63)),
            b: is(reg(TID)),
            negate_b: true,
            shift: 0,
            saturate: false,
        }),
        Instr::ThreadgroupMem(ThreadgroupMem {
            store: false,
            reg: r32(3),
            base: imm(0),
            index: Index::Reg(r16(4)),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        Instr::ThreadgroupMem(ThreadgroupMem {
            store: false,
            reg: r32(5),
            base: imm(256),
            index: Index::Imm(0),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        sr(r32(6), GID),
        dev(true, r32(3), 0, r32(6)),
        dev(true, r32(5), 4, r32(6)),
        Instr::Stop,
    ]);
    let (mut l, mut m) = setup([64, 1, 1], [128, 1, 1], 128);
    l.shared_bytes = 260;
    let stats = run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(stats.workgroups, 2);
    let a = words(&m, OUT, 128);
    let b = words(&m, OUT2, 128);
    for g in 0..128usize {
        let t = (g % 64) as u32;
        assert_eq!(a[g], (63 - t) * 10, "thread {g}");
        // The shader never clears word 64 and threadgroup memory is not cleared between
        // workgroups, so the second workgroup adds onto the first one's sum.
        let workgroup = g as u32 / 64;
        assert_eq!(b[g], (workgroup + 1) * (0..64).sum::<u32>(), "thread {g}");
    }
}

#[test]
fn device_atomics() {
    const CTR: u64 = 0x40_0000;
    let p = prog(vec![
        sr(r32(6), GID),
        mov(r32(2), 1),
        // old = atomic_add(counter, 1)
        Instr::Atomic(Atomic {
            op: AtomicOp::Add,
            dst: Some(r32(3)),
            src: r32(2),
            base: Operand::Uniform(uni64(16)),
            index: Index::Imm(0),
            wait_slot: 0,
        }),
        // umax(counter[1], gid)
        Instr::Atomic(Atomic {
            op: AtomicOp::UMax,
            dst: None,
            src: r32(6),
            base: Operand::Uniform(uni64(16)),
            index: Index::Imm(1),
            wait_slot: 0,
        }),
        // cmpxchg(counter[2], expect gid, new gid + 1): a chain only the right thread extends.
        iadd(r32(9), reg(r32(6)), imm(1)),
        iadd(r32(8), reg(r32(6)), imm(0)),
        Instr::Atomic(Atomic {
            op: AtomicOp::CmpXchg,
            dst: None,
            src: Reg::r64(8),
            base: Operand::Uniform(uni64(16)),
            index: Index::Imm(2),
            wait_slot: 0,
        }),
        dev(true, r32(3), 0, r32(6)),
        Instr::Stop,
    ]);
    let (mut l, mut m) = setup([32, 1, 1], [64, 1, 1], 64);
    m.map(CTR, vec![0; 12]);
    for h in 0..4 {
        l.uniforms[16 + h] = (CTR >> (16 * h)) as u16;
    }
    run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(words(&m, CTR, 3), vec![64, 63, 64]);
    // Lanes apply in order, workgroups in order: the old values are 0..63 in thread order.
    assert_eq!(words(&m, OUT, 64), (0..64).collect::<Vec<u32>>());
}

#[test]
fn partial_grid_threads_do_not_run() {
    let p = prog(vec![
        sr(TID, GID),
        iadd(r32(2), reg(TID), imm(1)),
        dev(true, r32(2), 0, TID),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [40, 1, 1], 64);
    let stats = run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 64);
    for t in 0..64u32 {
        assert_eq!(a[t as usize], if t < 40 { t + 1 } else { 0 });
    }
    assert_eq!(stats.lane_instructions, 4 * 40);
}

#[test]
fn unmapped_access_faults() {
    let p = prog(vec![
        mov(r32(2), 0),
        Instr::DeviceMem(DeviceMem {
            store: false,
            reg: r32(3),
            base: Operand::Reg(Reg::r64(4)),
            index: Index::Imm(0),
            index_unsigned: false,
            shift: 0,
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    // r4_r5 is zero: address 0 is unmapped.
    assert_eq!(
        run_workgroups(&p, &l, &mut m),
        Err(Fault::Unmapped {
            va: 0,
            access: Access::Read
        })
    );
}

#[test]
fn runaway_loop_faults() {
    let p = prog(vec![mov(r32(2), 0), jmp(JumpCond::Any, 0), Instr::Stop]);
    let (mut l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    l.max_lane_steps = 1 << 16;
    match run_workgroups(&p, &l, &mut m) {
        Err(Fault::Shader { pc, reason }) => {
            assert_eq!(pc, 0x1_0008);
            assert!(reason.contains("budget"), "{reason}");
        }
        other => panic!("expected a shader fault, got {other:?}"),
    }
}

#[test]
fn bad_programs_fault() {
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    let off_end = prog(vec![mov(r32(2), 0)]);
    assert!(matches!(
        run_workgroups(&off_end, &l, &mut m),
        Err(Fault::Shader { .. })
    ));
    let wild = prog(vec![jmp(JumpCond::Any, 4), Instr::Stop]);
    assert!(matches!(
        run_workgroups(&wild, &l, &mut m),
        Err(Fault::Shader { .. })
    ));
    let bad_reg = Program::new(0, vec![(0, mov(Reg::r32(200), 1))]);
    assert!(matches!(bad_reg, Err(Fault::Shader { .. })));
    let stack_oob = prog(vec![
        Instr::StackMem(StackMem {
            store: true,
            reg: r32(1),
            offset: Index::Imm(0),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        Instr::Stop,
    ]);
    assert!(matches!(
        run_workgroups(&stack_oob, &l, &mut m),
        Err(Fault::Shader { .. })
    ));
}

#[test]
fn stack_is_private_per_thread() {
    let p = prog(vec![
        sr(TID, GID),
        Instr::StackMem(StackMem {
            store: true,
            reg: TID,
            offset: Index::Imm(4),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        mov(TID, 0),
        Instr::StackMem(StackMem {
            store: false,
            reg: r32(2),
            offset: Index::Imm(4),
            format: MemFormat::I32,
            mask: 1,
            wait_slot: 0,
        }),
        sr(TID, GID),
        dev(true, r32(2), 0, TID),
        Instr::Stop,
    ]);
    let (mut l, mut m) = setup([32, 1, 1], [32, 1, 1], 32);
    l.stack_bytes = 8;
    run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(words(&m, OUT, 32), (0..32).collect::<Vec<u32>>());
}

#[test]
fn stack_beyond_the_launch_size_faults() {
    let at = |offset| {
        prog(vec![
            Instr::StackMem(StackMem {
                store: true,
                reg: r32(1),
                offset: Index::Imm(offset),
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            }),
            Instr::Stop,
        ])
    };
    let (mut l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    l.stack_bytes = 32;
    // The last word of the 32 bytes is fine; the word after it is not.
    run_workgroups(&at(28), &l, &mut m).unwrap();
    assert!(matches!(
        run_workgroups(&at(32), &l, &mut m),
        Err(Fault::Shader { .. })
    ));
    assert!(matches!(
        run_workgroups(&at(30), &l, &mut m),
        Err(Fault::Shader { .. })
    ));
}

/// Throughput figure: `cargo test -p sim-gpu --release -- --ignored --nocapture usc_throughput`.
#[test]
#[ignore]
fn usc_throughput() {
    let (i, sum) = (r32(2), r32(3));
    let p = prog(vec![
        /* 0 */ sr(TID, GID),
        /* 1 */ mov(i, 0),
        /* 2 */ mov(sum, 0),
        /* 3 */ iadd(i, reg(i), imm(1)),
        /* 4 */
        Instr::IMAdd(IMAdd {
            dst: d(sum),
            a: is(reg(i)),
            b: is(reg(TID)),
            c: is(reg(sum)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        /* 5 */ exec(ExecOp::While, Cond::Int(ICond::ULt), reg(i), imm(200), 1),
        /* 6 */ jmp(JumpCond::Any, off(6, 3)),
        /* 7 */ pop(1),
        /* 8 */ dev(true, sum, 0, TID),
        /* 9 */ Instr::Stop,
    ]);
    let (l, mut m) = setup([256, 1, 1], [65536, 1, 1], 65536);
    let t = std::time::Instant::now();
    let s = run_workgroups(&p, &l, &mut m).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} lane-instructions in {secs:.3} s: {:.1} M lane-instr/s",
        s.lane_instructions,
        s.lane_instructions as f64 / secs / 1e6
    );
}

#[test]
fn shifts_unary_and_conversions() {
    let sh = |op, dst, a, b, c, mask_bits| {
        Instr::Shift(Shift {
            op,
            dst: d(dst),
            a: is(a),
            b: is(b),
            c: is(c),
            mask_bits,
        })
    };
    let un = |op, dst, src| {
        Instr::IUnary(IUnary {
            op,
            dst: d(dst),
            src: is(src),
        })
    };
    let p = prog(
        vec![
            sr(TID, GID),
            // r2 = 0x8000_0000 | tid
            mov(r32(2), 0x8000_0000),
            bitop(r32(2), reg(r32(2)), reg(TID), 0b1110),
            sh(ShiftOp::Asr, r32(3), reg(r32(2)), reg(TID), imm(0), 0),
            sh(ShiftOp::Extr, r32(4), reg(r32(2)), reg(TID), imm(28), 0),
            un(IUnaryOp::PopCount, r32(5), reg(r32(2))),
            un(IUnaryOp::FindFirstSet, r32(6), reg(TID)),
            un(IUnaryOp::BitReverse, r32(7), reg(TID)),
            // r8 = float(-tid) ; r9 = int(r8 * 0.5) toward zero ; r10 = rint(r8 * 0.5) as int
            Instr::IAdd(IAdd {
                dst: d(r32(8)),
                a: is(imm(0)),
                b: is(reg(TID)),
                negate_b: true,
                shift: 0,
                saturate: false,
            }),
            Instr::Convert(Convert {
                op: ConvertOp::S32ToF,
                dst: d(r32(8)),
                src: is(reg(r32(8))),
                round: Round::NearestEven,
            }),
            Instr::FArith(FArith {
                op: FOp::Mul,
                dst: d(r32(8)),
                a: fs(reg(r32(8))),
                b: fs(imm(0x20)),
                c: fs(imm(0)),
                saturate: false,
            }),
            Instr::Convert(Convert {
                op: ConvertOp::FToS32,
                dst: d(r32(9)),
                src: is(reg(r32(8))),
                round: Round::TowardZero,
            }),
            Instr::Convert(Convert {
                op: ConvertOp::FToS32,
                dst: d(r32(10)),
                src: is(reg(r32(8))),
                round: Round::NearestEven,
            }),
            // r11 = saturate(exp2(tid / 2 * -1)) as a half: exp2 of a non-positive number, in [0, 1]
            Instr::FUnary(FUnary {
                op: FUnaryOp::Exp2,
                dst: d(r16(22)),
                src: fs(reg(r32(8))),
                saturate: true,
            }),
            mov(r16(23), 0),
        ]
        .into_iter()
        .chain((3..=11).flat_map(|r| {
            let slot = (r - 3) as u32;
            // out[slot * 32 + tid] = r<r>
            Instr::DeviceMem(DeviceMem {
                store: true,
                reg: r32(r),
                base: Operand::Uniform(uni64(0)),
                index: Index::Reg(TID),
                index_unsigned: true,
                shift: 0,
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            })
            .with_index_bias(slot)
        }))
        .chain([Instr::Stop])
        .collect(),
    );
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 32 * 9);
    run_workgroups(&p, &l, &mut m).unwrap();
    let out = words(&m, OUT, 32 * 9);
    for t in 0..32u32 {
        let r2 = 0x8000_0000 | t;
        let at = |slot: usize| out[slot * 32 + t as usize];
        assert_eq!(at(0), ((r2 as i32) >> t) as u32, "asr {t}");
        assert_eq!(
            at(1),
            ((((t as u64) << 32) | r2 as u64) >> 28) as u32,
            "extr {t}"
        );
        assert_eq!(at(2), r2.count_ones(), "popcount {t}");
        assert_eq!(
            at(3),
            if t == 0 {
                u32::MAX
            } else {
                31 - t.leading_zeros()
            },
            "ffs {t}"
        );
        assert_eq!(at(4), t.reverse_bits(), "bitreverse {t}");
        let x = -(t as f32) * 0.5;
        assert_eq!(f32::from_bits(at(5)), x);
        assert_eq!(at(6) as i32, x.trunc() as i32, "toward zero {t}");
        assert_eq!(at(7) as i32, x.round_ties_even() as i32, "nearest even {t}");
        let want = f16_bits(x.exp2());
        assert_eq!(at(8), u32::from(want), "exp2 {t}");
    }
}

/// Half-precision bits of a positive value, rounded to nearest (no ties occur in the test).
fn f16_bits(x: f32) -> u16 {
    let e = x.log2().floor() as i32;
    if e < -14 {
        return (x / 2f32.powi(-24)).round() as u16;
    }
    let frac = ((x / 2f32.powi(e) - 1.0) * 1024.0).round() as u16;
    (((e + 15) as u16) << 10) + frac
}

/// Store each result register to its own 32-word slot: prefix an index add.
trait WithIndexBias {
    fn with_index_bias(self, slot: u32) -> Vec<Instr>;
}

impl WithIndexBias for Instr {
    fn with_index_bias(self, slot: u32) -> Vec<Instr> {
        let Instr::DeviceMem(mut x) = self else {
            return vec![self];
        };
        x.index = Index::Reg(r32(20));
        vec![
            Instr::IMAdd(IMAdd {
                dst: d(r32(20)),
                a: is(imm(slot)),
                b: is(imm(32)),
                c: is(reg(TID)),
                negate_c: false,
                shift: 0,
                saturate: false,
            }),
            Instr::DeviceMem(x),
        ]
    }
}

/// Register files are reused from one launch (and one workgroup) to the next: every one must
/// still start with all registers zero, including rows a previous launch wrote and the exec
/// nesting counters.
#[test]
fn registers_start_zero_in_every_launch_and_workgroup() {
    // Stores r100 (and the nesting counter word r0) before writing them, then dirties them:
    // r100 = 0xdead, an `if` that fails in odd lanes (r0l = 1 there), high rows too.
    let high = r32(100);
    let p = prog(vec![
        sr(TID, GID),
        dev(true, high, 0, TID),
        dev(true, r32(0), 4, TID),
        mov(high, 0xdead),
        mov(r32(127), 0xbeef),
        bitop(r32(2), reg(TID), imm(1), 0b1000),
        exec(ExecOp::If, Cond::Int(ICond::UEq), reg(r32(2)), imm(0), 1),
        Instr::Stop,
    ]);
    // Four workgroups of 32 threads: groups are reset between workgroups.
    let (l, mut m) = setup([32, 1, 1], [128, 1, 1], 128);
    run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(words(&m, OUT, 128), vec![0; 128]);
    assert_eq!(words(&m, OUT2, 128), vec![0; 128]);
    // And a second dispatch on the same thread, which reuses the first one's files.
    let (l, mut m) = setup([32, 1, 1], [64, 1, 1], 64);
    run_workgroups(&p, &l, &mut m).unwrap();
    assert_eq!(words(&m, OUT, 64), vec![0; 64]);
    assert_eq!(words(&m, OUT2, 64), vec![0; 64]);
}

#[test]
fn ballot_counts_only_active_lanes_and_shuffles_read_other_lanes() {
    // r2 = tid * 10; if (tid < 20) { r3 = ballot(tid & 1 != 0) } else { r3 = shuffle(r2, 5) }
    // r4 = quad_shuffle_xor(r2, 2) (all lanes), stored to OUT2.
    let p = prog(vec![
        sr(TID, GID),
        Instr::IMAdd(IMAdd {
            dst: d(r32(2)),
            a: is(reg(TID)),
            b: is(imm(10)),
            c: is(imm(0)),
            negate_c: false,
            shift: 0,
            saturate: false,
        }),
        exec(ExecOp::If, Cond::Int(ICond::ULt), reg(TID), imm(20), 1),
        bitop(r32(5), reg(TID), imm(1), 0b1000),
        Instr::Ballot(Ballot {
            dst: d(r32(3)),
            cond: Cond::Int(ICond::UEq),
            invert: true,
            a: reg(r32(5)),
            b: imm(0),
        }),
        else_(1),
        Instr::Shuffle(Shuffle {
            dst: d(r32(3)),
            a: reg(r32(2)),
            index: imm(5),
            mode: ShuffleMode::Index,
            quad: false,
        }),
        pop(1),
        Instr::Shuffle(Shuffle {
            dst: d(r32(4)),
            a: reg(r32(2)),
            index: imm(2),
            mode: ShuffleMode::Xor,
            quad: true,
        }),
        dev(true, r32(3), 0, TID),
        dev(true, r32(4), 4, TID),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 32);
    run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 32);
    let b = words(&m, OUT2, 32);
    // Odd lanes below 20.
    let odd_below_20 = (0..20).filter(|t| t & 1 == 1).fold(0u32, |m, t| m | 1 << t);
    for t in 0..32u32 {
        let want = if t < 20 { odd_below_20 } else { 50 };
        assert_eq!(a[t as usize], want, "ballot/shuffle, thread {t}");
        assert_eq!(b[t as usize], (t ^ 2) * 10, "quad_shuffle_xor, thread {t}");
    }
}

#[test]
fn simd_reductions_fold_only_active_lanes() {
    // if (tid % 3 != 0) { r3 = simd_reduce iadd tid; r4 = simd_prefix iadd tid;
    // r5 = quad_reduce umax tid }
    let red = |r: u16, op, kind| {
        Instr::SimdReduce(SimdReduce {
            dst: d(r32(r)),
            a: reg(TID),
            op,
            kind,
        })
    };
    let p = prog(vec![
        sr(TID, GID),
        mov(r32(3), 0),
        mov(r32(4), 0),
        mov(r32(5), 0),
        bitop(r32(2), reg(TID), imm(3), 0b1000),
        exec(ExecOp::If, Cond::Int(ICond::UEq), reg(r32(2)), imm(3), 1),
        red(3, SimdOp::IAdd, ReduceKind::SimdReduce),
        red(4, SimdOp::IAdd, ReduceKind::SimdPrefix),
        red(5, SimdOp::UMax, ReduceKind::QuadReduce),
        pop(1),
        iadd(r32(3), reg(r32(3)), reg(r32(4))),
        Instr::Shift(Shift {
            op: ShiftOp::Bfi,
            dst: d(r32(5)),
            a: is(reg(r32(3))),
            b: is(reg(r32(5))),
            c: is(imm(24)),
            mask_bits: 8,
        }),
        dev(true, r32(5), 0, TID),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 32);
    run_workgroups(&p, &l, &mut m).unwrap();
    let a = words(&m, OUT, 32);
    // Lanes whose low two bits are 3 are active.
    let active: Vec<u32> = (0..32).filter(|t| t & 3 == 3).collect();
    let total: u32 = active.iter().sum();
    for t in 0..32u32 {
        let want = if t & 3 == 3 {
            let below: u32 = active.iter().filter(|&&k| k < t).sum();
            (total + below) | t << 24
        } else {
            0
        };
        assert_eq!(a[t as usize], want, "thread {t}");
    }
}

// ---- preshaders -----------------------------------------------------------------------------

fn ustore(half: u16, index: Index, mask: u8) -> Instr {
    Instr::UniformStore(UniformStore {
        reg: r16(half),
        index,
        mask,
    })
}

/// A 32-bit uniform of a uniform file.
fn u32_at(u: &[u16], half: usize) -> u32 {
    u32::from(u[half]) | u32::from(u[half + 1]) << 16
}

/// The preshader's stores land in the uniform file it returns, it reads back what it
/// stored, a gap in the mask skips uniform halves and not registers, and only lane 0 runs.
#[test]
fn preshader_writes_the_uniform_file() {
    let p = prog(vec![
        mov(r32(2), 0xdead_beef),
        // u10 (halves 20, 21) = r2
        ustore(4, Index::Imm(20), 0b11),
        // r3 = u10 + 1, stored at halves r5 = 22, 23
        iadd(r32(3), Operand::Uniform(r32(10)), imm(1)),
        mov(r32(5), 22),
        ustore(6, Index::Reg(r32(5)), 0b11),
        // r4l = 0x1111, r4h = 0x2222 to halves 30 and 32 (mask 0b101)
        mov(r16(8), 0x1111),
        mov(r16(9), 0x2222),
        ustore(8, Index::Imm(30), 0b101),
        // the lane number and the lanes alive (a ballot) to halves 40, 42
        sr(r32(6), SpecialReg(52)),
        Instr::Ballot(Ballot {
            dst: d(r32(7)),
            cond: Cond::Int(ICond::UEq),
            invert: false,
            a: imm(0),
            b: imm(0),
        }),
        ustore(12, Index::Imm(40), 0b1111),
        Instr::Stop,
    ]);
    let (mut l, mut m) = setup([32, 1, 1], [64, 1, 1], 1);
    l.uniforms[31] = 0x7777;
    let (u, stats) = run_preshader(&p, &l, &mut m).expect("runs");
    assert_eq!(u.len(), usize::from(UNIFORM_HALVES));
    assert_eq!(u32_at(&u, 20), 0xdead_beef);
    assert_eq!(u32_at(&u, 22), 0xdead_bef0);
    assert_eq!((u[30], u[31], u[32]), (0x1111, 0x7777, 0x2222));
    assert_eq!((u32_at(&u, 40), u32_at(&u, 42)), (0, 1));
    // The launch's own uniforms are kept.
    assert_eq!(&u[..8], &l.uniforms[..8]);
    assert_eq!(stats.group_instructions, 12);
    assert_eq!(stats.lane_instructions, 12);
    assert_eq!(stats.workgroups, 0);
}

#[test]
fn uniform_store_outside_a_preshader_faults() {
    let p = prog(vec![ustore(2, Index::Imm(0), 1), Instr::Stop]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    match run_workgroups(&p, &l, &mut m) {
        Err(Fault::Shader { pc, reason }) => {
            assert_eq!(pc, 0x1_0000);
            assert!(reason.contains("preshader"), "{reason}");
        }
        other => panic!("expected a shader fault, got {other:?}"),
    }
}

#[test]
fn preshader_faults() {
    let (mut l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    l.max_lane_steps = 1 << 16;
    let shader_fault =
        |p: &Program, l: &LaunchState, m: &mut FlatMemory, what: &str| match run_preshader(p, l, m)
        {
            Err(Fault::Shader { reason, .. }) => {
                assert!(reason.contains(what), "{reason} (expected {what})")
            }
            other => panic!("expected a shader fault ({what}), got {other:?}"),
        };
    let endless = prog(vec![mov(r32(2), 0), jmp(JumpCond::Any, 0), Instr::Stop]);
    shader_fault(&endless, &l, &mut m, "budget");
    let past_end = prog(vec![ustore(2, Index::Imm(511), 0b11), Instr::Stop]);
    shader_fault(&past_end, &l, &mut m, "outside");
    let gap_past_end = prog(vec![ustore(2, Index::Imm(509), 0b1001), Instr::Stop]);
    shader_fault(&gap_past_end, &l, &mut m, "outside");
    let negative = prog(vec![
        mov(r32(3), u32::MAX),
        ustore(2, Index::Reg(r32(3)), 1),
        Instr::Stop,
    ]);
    shader_fault(&negative, &l, &mut m, "outside");
    let barrier = prog(vec![Instr::ThreadgroupBarrier, Instr::Stop]);
    shader_fault(&barrier, &l, &mut m, "barrier");
    let vary = prog(vec![
        Instr::StVary(StVary {
            src: r32(2),
            index: Small::Imm(0),
            last: true,
        }),
        Instr::Stop,
    ]);
    assert!(matches!(
        run_preshader(&vary, &l, &mut m),
        Err(Fault::Shader { .. })
    ));
    // The last half of the file is reachable.
    let last = prog(vec![
        mov(r16(2), 0xabcd),
        ustore(2, Index::Imm(511), 1),
        Instr::Stop,
    ]);
    let (u, _) = run_preshader(&last, &l, &mut m).expect("runs");
    assert_eq!(u[511], 0xabcd);
    // A uniform_store's data run is 16-bit registers.
    let wide = Program::new(
        0,
        vec![(
            0,
            Instr::UniformStore(UniformStore {
                reg: r32(2),
                index: Index::Imm(0),
                mask: 1,
            }),
        )],
    );
    assert!(matches!(wide, Err(Fault::Shader { .. })));
}

/// A store under an exec mask with no lane active writes nothing.
#[test]
fn preshader_store_with_no_active_lane_writes_nothing() {
    let p = prog(vec![
        mov(r16(2), 5),
        exec(ExecOp::If, Cond::Int(ICond::UEq), imm(0), imm(1), 1),
        ustore(2, Index::Imm(0), 1),
        pop(1),
        ustore(2, Index::Imm(1), 1),
        Instr::Stop,
    ]);
    let (l, mut m) = setup([32, 1, 1], [32, 1, 1], 1);
    let (u, _) = run_preshader(&p, &l, &mut m).expect("runs");
    assert_eq!((u[0], u[1]), (l.uniforms[0], 5));
}

// ---- workgroups on several threads ----------------------------------------------------------

/// Flat memory behind a lock, shareable between threads.
/// out[gid] = a mix of gid and the workgroup id, through a loop, so every workgroup does
/// some work; `words` sizes the output, so a short one makes later workgroups fault.
fn mixing_launch(words: usize) -> (Program, LaunchState, FlatMemory) {
    let wg = SpecialReg::THREADGROUP_POSITION_IN_GRID_X;
    let p = prog(vec![
        sr(r32(5), GID),
        sr(r32(1), GID),
        sr(r32(2), wg),
        mov(r32(3), 0),
        // while r3 < 20: r1 = 3 * r1 + workgroup, r3 += 1
        exec(
            ExecOp::While,
            Cond::Int(ICond::ULt),
            reg(r32(3)),
            imm(20),
            1,
        ),
        iadd(r32(4), reg(r32(1)), reg(r32(1))),
        iadd(r32(1), reg(r32(4)), reg(r32(1))),
        iadd(r32(1), reg(r32(1)), reg(r32(2))),
        iadd(r32(3), reg(r32(3)), imm(1)),
        jmp(JumpCond::Any, off(9, 4)),
        pop(1),
        dev(true, r32(1), 0, r32(5)),
        Instr::Stop,
    ]);
    let (mut l, m) = setup([64, 1, 1], [64 * 40, 1, 1], words);
    l.executor = jit::Executor::JitEager;
    (p, l, m)
}

/// [`mixing_launch`]'s 40 workgroups over `pool` threads, helpers from the first on: the
/// result and the memory after.
fn mixing_on_threads(words: usize, pool: usize) -> (Result<ExecStats, Fault>, FlatMemory) {
    let (p, l, m) = mixing_launch(words);
    let shared = Locked::new(m);
    let got = parallel::run(
        &p,
        &l,
        &shared,
        None,
        64,
        [40, 1, 1],
        pool,
        std::time::Duration::ZERO,
    );
    (got, shared.into_inner())
}

#[test]
fn workgroups_on_several_threads_give_the_serial_result() {
    let (p, l, mut serial) = mixing_launch(64 * 40);
    let want = run_workgroups(&p, &l, &mut serial).unwrap();
    assert!(parallel::independent(&p));
    for pool in [2, 3, 4] {
        let (got, m) = mixing_on_threads(64 * 40, pool);
        assert_eq!(got.unwrap(), want, "{pool} threads: counts");
        assert_eq!(
            words(&m, OUT, 64 * 40),
            words(&serial, OUT, 64 * 40),
            "{pool} threads"
        );
    }
}

#[test]
fn a_fault_on_several_threads_is_the_first_in_grid_order() {
    // Room for 5 workgroups and a half: workgroup 5 faults first, then every later one.
    let (p, l, mut serial) = mixing_launch(64 * 5 + 32);
    let want = run_workgroups(&p, &l, &mut serial).unwrap_err();
    for pool in [2, 4] {
        let (got, _) = mixing_on_threads(64 * 5 + 32, pool);
        assert_eq!(got.unwrap_err(), want, "{pool} threads");
    }
}
