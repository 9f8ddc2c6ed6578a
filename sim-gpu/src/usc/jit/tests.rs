//! The translator against the interpreter, on random valid AGX programs.
//!
//! Instructions come from decoding random bytes, so every ALU, conversion, compare, exec-mask
//! and cross-lane form the decoder knows turns up with random operands; memory and graphics
//! instructions are left out (they need memory and contexts, and run in the interpreter under
//! either executor). Programs get forward `jmp_exec_none`s and backward `jmp_exec_any` loops,
//! some of which never end and must fault at the same instruction. Each program runs on one
//! SIMD group from random registers (denormals, NaNs, infinities and signed zeros among them),
//! random live lanes and random nesting counters, once per executor; registers, exec mask,
//! state, counts and the outcome must all agree.

use super::super::graphics::{FragmentContext, GraphicsContext, Plane, VertexContext};
use super::super::group::{GroupState, Position, SimdGroup};
use super::super::memops::MemCtx;
use super::super::{run_one_workgroup, ExecStats, FlatMemory, Program};
use super::{compiled, SR_SLOTS};
use crate::Fault;
use hw::isa::*;

use hw::test_rng::Rng;

/// A random instruction of a kind both executors run without memory.
fn random_alu(rng: &mut Rng) -> Instr {
    loop {
        let bytes: Vec<u8> = (0..16).map(|_| rng.next() as u8).collect();
        let Ok((i, _)) = hw::g13::decode(&bytes) else {
            continue;
        };
        let ok = matches!(
            i,
            Instr::MovImm(_)
                | Instr::IAdd(_)
                | Instr::IMAdd(_)
                | Instr::Bitop(_)
                | Instr::Shift(_)
                | Instr::IUnary(_)
                | Instr::Convert(_)
                | Instr::FArith(_)
                | Instr::FUnary(_)
                | Instr::CmpSel(_)
                | Instr::Ballot(_)
                | Instr::Shuffle(_)
                | Instr::SimdReduce(_)
                | Instr::ExecCmp(_)
                | Instr::PopExec(_)
                | Instr::Wait(_)
                | Instr::GetSr(_)
        );
        // Shift amounts the translator takes as constants are mostly small immediates in
        // real code; decoding random bytes rarely makes one, so some are rewritten.
        let i = match i {
            Instr::Shift(mut s) if rng.below(2) == 0 => {
                s.c = ISrc::new(Operand::Imm(rng.below(70) as u32));
                if s.op == ShiftOp::Asr {
                    s.b = ISrc::new(Operand::Imm(rng.below(70) as u32));
                }
                Instr::Shift(s)
            }
            i => i,
        };
        if ok && Program::new(0, vec![(0, i)]).is_ok() {
            return i;
        }
    }
}

/// A register value: random bits, or a float worth testing.
fn random_word(rng: &mut Rng) -> u32 {
    const SPECIAL: [u32; 12] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_1234,
        0xffc0_0001,
        0x0000_0001,
        0x807f_ffff,
        0x3f80_0000,
        0x4f80_0000,
        0xcf00_0000,
    ];
    match rng.below(4) {
        0 => SPECIAL[rng.below(SPECIAL.len() as u64) as usize],
        1 => (rng.below(64) as u32).wrapping_sub(32),
        _ => rng.next() as u32,
    }
}

fn random_program(rng: &mut Rng) -> Vec<Instr> {
    random_program_of(rng, random_alu)
}

/// A random program of ALU instructions with one in `one_in` drawn from `pick` instead.
fn random_program_with(rng: &mut Rng, one_in: u64, pick: fn(&mut Rng) -> Instr) -> Vec<Instr> {
    random_program_of(rng, |rng| {
        if rng.below(one_in) == 0 {
            pick(rng)
        } else {
            random_alu(rng)
        }
    })
}

/// A random program of instructions from `pick`, with random jumps among them.
fn random_program_of(rng: &mut Rng, mut pick: impl FnMut(&mut Rng) -> Instr) -> Vec<Instr> {
    let n = 4 + rng.below(40) as usize;
    let body: Vec<Instr> = (0..n).map(|_| pick(rng)).collect();
    // Jumps inserted before original instruction `at`, to original instruction `to` (n is
    // the final `stop`): forward ones skip while no lane is active, backward ones loop while
    // any is.
    let mut jumps: Vec<(usize, usize)> = (0..rng.below(3))
        .map(|_| {
            (
                rng.below(n as u64) as usize,
                rng.below(n as u64 + 1) as usize,
            )
        })
        .collect();
    jumps.sort();
    jumps.dedup_by_key(|j| j.0);
    let mut code = Vec::new();
    let mut at = vec![0usize; n + 1];
    let mut pending = Vec::new();
    for (i, instr) in body.into_iter().enumerate() {
        if let Some(&(_, to)) = jumps.iter().find(|j| j.0 == i) {
            pending.push((code.len(), to, to > i));
            code.push(Instr::Stop);
        }
        at[i] = code.len();
        code.push(instr);
    }
    at[n] = code.len();
    code.push(Instr::Stop);
    for (k, to, forward) in pending {
        code[k] = Instr::Jump(Jump {
            cond: if forward {
                JumpCond::None
            } else {
                JumpCond::Any
            },
            offset: (at[to] as i32 - k as i32) * 8,
        });
    }
    code
}

struct Outcome {
    regs: Vec<u16>,
    exec: u32,
    state: GroupState,
    pc: usize,
    stats: ExecStats,
    result: Result<(), Fault>,
}

fn run(prog: &Program, rng_seed: u64, jit: bool, budget: u64) -> Outcome {
    run_from(prog, rng_seed, jit, budget, false, None)
}

/// As [`run`]; with `all_active`, every lane exists and starts active (counters zero), as a
/// compute kernel's groups start.
fn run_from(
    prog: &Program,
    rng_seed: u64,
    jit: bool,
    budget: u64,
    all_active: bool,
    graphics: Option<&mut GraphicsContext>,
) -> Outcome {
    run_in(
        prog,
        rng_seed,
        jit,
        budget,
        all_active,
        graphics,
        &mut FlatMemory::new(),
        &[],
    )
}

/// As [`run_from`], in device memory `mem`, with the uniform halves `set` (half, value)
/// replacing their random values.
#[allow(clippy::too_many_arguments)]
fn run_in(
    prog: &Program,
    rng_seed: u64,
    jit: bool,
    budget: u64,
    all_active: bool,
    graphics: Option<&mut GraphicsContext>,
    mem: &mut FlatMemory,
    set: &[(usize, u16)],
) -> Outcome {
    let mut rng = Rng(rng_seed);
    let alive = match rng.below(3) {
        _ if all_active => u32::MAX,
        0 => u32::MAX,
        _ => rng.next() as u32 | 1,
    };
    let mut g = SimdGroup::new();
    g.reset(
        alive,
        Position {
            workgroup: [1, 2, 3],
            local_size: [32, 1, 1],
            simd_index: 0,
        },
    );
    for half in (0..GPR_HALVES).step_by(2) {
        for lane in 0..SIMD_WIDTH {
            let v = if half == 0 {
                // Nesting counters: mostly 0 so lanes run, sometimes a small depth.
                let depth = rng.below(4).saturating_sub(2);
                (if all_active { 0 } else { depth }) | (rng.next() & 0xffff) << 16
            } else {
                u64::from(random_word(&mut rng))
            };
            g.set_reg(Reg::r32(half / 2), lane, v);
        }
    }
    let mut uniforms: Vec<u16> = (0..UNIFORM_HALVES).map(|_| rng.next() as u16).collect();
    for &(half, v) in set {
        uniforms[half] = v;
    }
    let ids: Vec<[[u32; 3]; SIMD_WIDTH]> = vec![std::array::from_fn(|l| [l as u32, 0, 0])];
    let mut ctx = MemCtx {
        device: mem,
        shared: &mut [],
        stack_bytes: 0,
        uniforms: &uniforms,
        graphics,
        uniform_stores: None,
    };
    let mut stats = ExecStats::default();
    let mut budget = budget;
    let jit = if jit { compiled(prog) } else { None };
    let mut groups = [g];
    let result = run_one_workgroup(
        prog,
        jit,
        &mut groups,
        &ids,
        &mut ctx,
        &mut stats,
        &mut budget,
    );
    let [g] = groups;
    Outcome {
        regs: g.regs().to_vec(),
        exec: g.exec,
        state: g.state,
        pc: g.pc,
        stats,
        result,
    }
}

/// Panics, naming `what` and listing `code`, unless the interpreter's outcome `want` and the
/// translator's `got` agree in registers, exec mask, state, pc, counts and result.
fn assert_same(want: &Outcome, got: &Outcome, what: &str, code: &[Instr]) {
    let listing = || {
        code.iter()
            .enumerate()
            .map(|(k, i)| format!("{k:3}: {i:?}\n"))
            .collect::<String>()
    };
    if let Some((row, lane, w, g)) = first_difference(&want.regs, &got.regs) {
        panic!(
            "{what}: register half {row} lane {lane}: interpreter {w:#06x}, translator {g:#06x}\n{}",
            listing()
        );
    }
    assert_eq!(
        (want.exec, want.state, want.pc, want.stats),
        (got.exec, got.state, got.pc, got.stats),
        "{what}: exec, state, pc or counts differ\n{}",
        listing()
    );
    assert_eq!(
        format!("{:?}", want.result),
        format!("{:?}", got.result),
        "{what}: outcomes differ\n{}",
        listing()
    );
}

fn first_difference(a: &[u16], b: &[u16]) -> Option<(usize, usize, u16, u16)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i / SIMD_WIDTH, i % SIMD_WIDTH, *x, *y))
}

/// A program of `code` at 8-byte offsets (the translator and interpreter never look at the
/// encodings' lengths).
fn program_of(code: &[Instr]) -> Program {
    let at = code.iter().enumerate().map(|(k, i)| (k as u32 * 8, *i));
    Program::new(0, at.collect()).expect("generated programs are valid")
}

#[test]
fn random_programs_run_the_same_on_the_translator_and_the_interpreter() {
    let programs = 3000;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut instructions, mut covered) = (0usize, 0usize);
    for p in 0..programs {
        let code = random_program(&mut rng);
        let prog = program_of(&code);
        instructions += code.len();
        // Every region the planner makes must translate: a failure would leave the whole
        // program to the interpreter and this comparison would prove nothing.
        covered += compiled(&prog).expect("the program translates").covered();
        let seed = rng.next();
        let budget = 32 * (200 + rng.below(400));
        let want = run(&prog, seed, false, budget);
        let got = run(&prog, seed, true, budget);
        assert_same(&want, &got, &format!("program {p}"), &code);
    }
    eprintln!(
        "{programs} random programs, {instructions} instructions, {covered} of them in translated regions"
    );
    assert!(
        covered * 10 > instructions,
        "the translator covers too little of the random programs: {covered} of {instructions}"
    );
}

/// A loop the translator takes whole: a body of covered instructions with at least one
/// exec-mask instruction (so lanes leave, and sometimes come back), closed by a `jmp_exec_any`
/// back to its start, then `stop`.
fn random_loop(rng: &mut Rng) -> Vec<Instr> {
    let isa = super::isa().expect("the host has a Cranelift back end");
    let n = 2 + rng.below(12) as usize;
    let exec_at = rng.below(n as u64) as usize;
    let mut code: Vec<Instr> = (0..n)
        .map(|k| loop {
            let i = random_alu(rng);
            let exec = matches!(i, Instr::ExecCmp(_) | Instr::PopExec(_));
            if (k != exec_at || exec) && super::covers(isa, &i) {
                break i;
            }
        })
        .collect();
    code.push(Instr::Jump(Jump {
        cond: JumpCond::Any,
        offset: -(n as i32) * 8,
    }));
    code.push(Instr::Stop);
    code
}

/// Loops from `make` (the code and the index of the loop's first instruction; after the loop
/// come `trailing` instructions) run on both executors from random registers, with budgets
/// from one pass to `most_passes`, so some stop on the budget mid-way. Returns the passes run.
fn loops_run_the_same(
    seed: u64,
    all_active: bool,
    most_passes: u64,
    trailing: usize,
    mut make: impl FnMut(&mut Rng) -> (Vec<Instr>, usize),
) -> u64 {
    let mut rng = Rng(seed);
    let mut passes = 0u64;
    for p in 0..LOOPS {
        let (code, start) = make(&mut rng);
        let prog = program_of(&code);
        let body = code.len() - trailing - start;
        let c = compiled(&prog).expect("the loop translates");
        let region = c.region(start).map(|r| r.len as usize);
        assert_eq!(region, Some(body), "loop {p}");
        let budget = 32 * (start + trailing + body * (1 + rng.below(most_passes)) as usize) as u64;
        let seed = rng.next();
        let want = run_from(&prog, seed, false, budget, all_active, None);
        let got = run_from(&prog, seed, true, budget, all_active, None);
        assert_same(&want, &got, &format!("loop {p}"), &code);
        passes += want.stats.group_instructions / body as u64;
    }
    passes
}

/// Random loops each differential test runs.
const LOOPS: usize = 300;

#[test]
fn loops_translated_whole_run_the_same_on_the_translator_and_the_interpreter() {
    let passes = loops_run_the_same(0x2545_f491_4f6c_dd1d, false, 200, 1, |rng| {
        (random_loop(rng), 0)
    });
    eprintln!("{LOOPS} random loops translated whole, {passes} passes");
}

/// A counted loop as compilers emit one: `while_icmp` on a counter against trip counts,
/// random covered instructions, the counter's increment, `jmp_exec_any` back. Every lane
/// starts active and the trip counts are mostly the same in every lane, so most passes keep
/// whole chunks active (the translator's full-chunk passes) and the last ones leave them for
/// the general pass; the random instructions may write the counter, the trip counts or the
/// nesting counters too.
/// Returns the code and the index of the loop's first instruction.
fn random_counted_loop(rng: &mut Rng) -> (Vec<Instr>, usize) {
    random_counted_loop_with(rng, random_alu)
}

/// As [`random_counted_loop`], its body's instructions drawn by `pick` (those the translator
/// covers).
fn random_counted_loop_with(
    rng: &mut Rng,
    pick: impl Fn(&mut Rng) -> Instr,
) -> (Vec<Instr>, usize) {
    let isa = super::isa().expect("the host has a Cranelift back end");
    let counter = Reg::r32(1 + rng.below(20) as u16);
    let trip = Reg::r32(21 + rng.below(20) as u16);
    let k = 1 + rng.below(40) as u32;
    let mut code = vec![
        Instr::MovImm(MovImm {
            dst: counter.into(),
            imm: 0,
        }),
        Instr::MovImm(MovImm {
            dst: trip.into(),
            imm: k,
        }),
    ];
    if rng.below(2) == 0 {
        // Trip counts k to k + 3, by a random register's low bits.
        let r = Reg::r32(41 + rng.below(20) as u16);
        code.push(Instr::Bitop(Bitop {
            dst: r.into(),
            a: ISrc::new(Operand::Reg(r)),
            b: ISrc::new(Operand::Imm(3)),
            table: 0b1000,
        }));
        code.push(Instr::IAdd(IAdd {
            dst: trip.into(),
            a: ISrc::new(Operand::Reg(trip)),
            b: ISrc::new(Operand::Reg(r)),
            negate_b: false,
            shift: 0,
            saturate: false,
        }));
    }
    let start = code.len();
    code.push(Instr::ExecCmp(ExecCmp {
        op: ExecOp::While,
        cond: Cond::Int(ICond::ULt),
        a: Operand::Reg(counter),
        b: Operand::Reg(trip),
        invert: false,
        n: rng.below(3) as u8,
    }));
    for _ in 0..1 + rng.below(8) {
        let i = loop {
            let i = pick(rng);
            if super::covers(isa, &i) {
                break i;
            }
        };
        code.push(i);
    }
    code.push(Instr::IAdd(IAdd {
        dst: counter.into(),
        a: ISrc::new(Operand::Reg(counter)),
        b: ISrc::new(Operand::Imm(1)),
        negate_b: false,
        shift: 0,
        saturate: false,
    }));
    let body = (code.len() - start) as i32;
    code.push(Instr::Jump(Jump {
        cond: JumpCond::Any,
        offset: -body * 8,
    }));
    code.push(Instr::PopExec(PopExec { n: 1 }));
    code.push(Instr::Stop);
    (code, start)
}

#[test]
fn counted_loops_run_the_same_on_the_translator_and_the_interpreter() {
    let passes = loops_run_the_same(0x7f4a_7c15_9e37_79b9, true, 50, 2, random_counted_loop);
    eprintln!("{LOOPS} random counted loops translated whole, {passes} passes");
}

/// Counted loops whose bodies read special registers: the fragment state a chunk reads by
/// its own first lane, so each chunk gets its own copy of the passes where other loops share
/// one. Both ways must give the interpreter's outcome.
#[test]
fn loops_reading_special_registers_run_the_same_on_the_translator_and_the_interpreter() {
    let isa = super::isa().expect("the host has a Cranelift back end");
    let pick = |rng: &mut Rng| {
        if rng.below(3) == 0 {
            Instr::GetSr(GetSr {
                dst: Reg::r32(41 + rng.below(20) as u16).into(),
                sr: SpecialReg(SR_SLOTS[rng.below(SR_SLOTS.len() as u64) as usize].0),
            })
        } else {
            random_alu(rng)
        }
    };
    let mut per_chunk = 0;
    let passes = loops_run_the_same(0x3c6e_f372_fe94_f82b, true, 50, 2, |rng| {
        let (code, start) = random_counted_loop_with(rng, pick);
        let reads_sr = code.iter().any(|i| matches!(i, Instr::GetSr(_)));
        let prog = program_of(&code);
        let end = code.len() - 2;
        let span = super::Span {
            prog: &prog,
            first: start,
            end,
        };
        assert_eq!(super::needs_fragment(isa, span), reads_sr, "{code:?}");
        per_chunk += usize::from(reads_sr);
        (code, start)
    });
    assert!(
        per_chunk > LOOPS / 3,
        "{per_chunk} loops read a special register"
    );
    eprintln!("{LOOPS} random counted loops with special registers, {passes} passes");
}

/// `iter` at pixel centres among random instructions, in a fragment launch with random
/// planes (special values among them) and lane pixels: translated, it must give the
/// interpreter's bits. With fewer planes loaded than an `iter` reads, the region is left to
/// the interpreter, which faults the same way either way.
#[test]
fn iterated_varyings_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x1ee7_f00d_5eed_0001);
    let isa = super::isa().expect("the host has a Cranelift back end");
    let word = |rng: &mut Rng| f32::from_bits(random_word(rng));
    // Full-precision values of scales far apart, so that the order of the sums shows in the
    // rounding.
    let wide = |rng: &mut Rng| {
        let m = (rng.next() as u32 >> 8) as f32 / (1 << 24) as f32 + 0.5;
        let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
        sign * m * 2f32.powi(rng.below(41) as i32 - 20)
    };
    let mut translated = 0;
    for p in 0..200 {
        let mut code = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let channels = 1 + rng.below(4) as u8;
            code.push(Instr::Iter(Iter {
                dst: Reg::r32(1 + rng.below(40) as u16),
                channels,
                cf: rng.below(12) as u8,
                perspective_w: (rng.below(2) == 0).then(|| rng.below(16) as u8),
                interp: Interpolation::Center,
            }));
            for _ in 0..rng.below(3) {
                let i = loop {
                    let i = random_alu(&mut rng);
                    if super::covers(isa, &i) {
                        break i;
                    }
                };
                code.push(i);
            }
        }
        code.push(Instr::Stop);
        let prog = program_of(&code);
        translated += compiled(&prog).expect("the program translates").covered();
        let loaded = if p % 10 == 0 { 4 } else { 16 };
        // Most groups shade quads of up to four primitives, each quad its own's planes. In
        // some, a lane names a primitive without planes, or a quad's lanes name different
        // primitives; the translator leaves those to the interpreter.
        let prims = 1 + rng.below(4) as usize;
        let mut f = FragmentContext::new([32, 32], 1, 4);
        f.planes_per_primitive = loaded;
        let named = (prims + usize::from(p % 25 == 1)) as u64;
        for q in f.lane_primitive.chunks_exact_mut(QUAD_LANES) {
            let prim = rng.below(named) as u8;
            for l in q {
                *l = if p % 25 == 2 {
                    rng.below(named) as u8
                } else {
                    prim
                };
            }
        }
        f.coefficients = (0..loaded * prims)
            .map(|_| match rng.below(4) {
                0 => Plane {
                    a: word(&mut rng),
                    b: word(&mut rng),
                    c: word(&mut rng),
                },
                1 => Plane {
                    a: wide(&mut rng),
                    b: wide(&mut rng),
                    c: wide(&mut rng),
                },
                _ => Plane {
                    a: (rng.below(2000) as f32 - 1000.0) / 256.0,
                    b: (rng.below(2000) as f32 - 1000.0) / 256.0,
                    c: (rng.below(2000) as f32) / 16.0,
                },
            })
            .collect();
        for l in 0..SIMD_WIDTH {
            f.lane_pixels[l] = [rng.below(4096) as u32, rng.below(4096) as u32];
        }
        let seed = rng.next();
        let outcome = |jit: bool| {
            let mut gfx = GraphicsContext {
                fragment: Some(f.clone()),
                ..GraphicsContext::default()
            };
            run_from(&prog, seed, jit, 32 * 64, false, Some(&mut gfx))
        };
        assert_same(
            &outcome(false),
            &outcome(true),
            &format!("iter program {p}"),
            &code,
        );
    }
    assert!(
        translated > 200,
        "iter programs translated: {translated} instructions"
    );
}

/// A random `st_tile` or `ld_tile` without coordinates: every format the tilebuffer holds,
/// 16- and 32-bit registers, random masks, offsets and sample sets.
fn random_tile_access(rng: &mut Rng) -> Instr {
    const FORMATS: [MemFormat; 8] = [
        MemFormat::I8,
        MemFormat::I16,
        MemFormat::I32,
        MemFormat::F16,
        MemFormat::U8Norm,
        MemFormat::S8Norm,
        MemFormat::U16Norm,
        MemFormat::S16Norm,
    ];
    let format = FORMATS[rng.below(FORMATS.len() as u64) as usize];
    // Halves hold elements of up to two bytes.
    let size = if rng.below(3) == 0 && format.bytes() <= 2 {
        Size::S16
    } else {
        Size::S32
    };
    let samples = match rng.below(6) {
        0 => Small::Reg(Reg::r16(2 + rng.below(8) as u16)),
        1 => Small::Imm(rng.next() as u8),
        2 => Small::Imm(1),
        _ => Small::Imm(0xff),
    };
    Instr::TileMem(TileMem {
        store: rng.below(2) == 0,
        reg: Reg {
            half: 2 + 2 * rng.below(40) as u16,
            size,
        },
        format,
        mask: 1 + rng.below(15) as u8,
        pixel_offset: 4 * rng.below(4) as u16,
        samples,
        coords: None,
    })
}

/// A `mov_imm` of a float that a normalised store scales to exactly half-way between two
/// integers (the rounding's tie), positive or negative.
fn norm_tie(rng: &mut Rng) -> Instr {
    let max = [255.0f32, 127.0, 65535.0, 32767.0][rng.below(4) as usize];
    let imm = loop {
        let k = rng.below(max as u64) as f32;
        let f = (k + 0.5) / max;
        if f * max == k + 0.5 {
            let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            break (sign * f).to_bits();
        }
    };
    Instr::MovImm(MovImm {
        dst: Reg::r32(1 + rng.below(40) as u16).into(),
        imm,
    })
}

/// `st_tile` and `ld_tile` among random instructions and jumps, in a fragment launch with a
/// random tilebuffer, lane pixels and coverage: translated, they must leave the
/// interpreter's registers and tilebuffer bytes. Tiles of two samples, samples too small for
/// an access, and lanes outside the tile or sharing a pixel leave the region to the
/// interpreter.
#[test]
fn tile_accesses_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x711e_b0ff_e125_0002);
    let isa = super::isa().expect("the host has a Cranelift back end");
    let (mut translated, mut accesses) = (0, [0; 2]);
    for p in 0..300 {
        let code = random_program_of(&mut rng, |rng| {
            match rng.below(6) {
                0 | 1 => return random_tile_access(rng),
                2 => return norm_tie(rng),
                _ => {}
            }
            loop {
                let i = random_alu(rng);
                if super::covers(isa, &i) {
                    return i;
                }
            }
        });
        let prog = program_of(&code);
        let c = compiled(&prog).expect("the program translates");
        translated += c.covered();
        for (i, instr) in code.iter().enumerate() {
            let inside = (0..=i).any(|s| c.region(s).is_some_and(|r| s + r.len as usize > i));
            if let (Instr::TileMem(x), true) = (instr, inside) {
                accesses[usize::from(x.store)] += 1;
            }
        }
        let samples = if p % 10 == 0 { 2 } else { 1 };
        let bytes = if p % 10 == 1 { 8 } else { 32 };
        let mut f = FragmentContext::new([16, 16], samples, bytes);
        f.tile_origin = [32 * rng.below(4) as u32, 16 * rng.below(4) as u32];
        for b in f.tilebuffer.iter_mut() {
            *b = rng.next() as u8;
        }
        let (outside, shared) = (p % 10 == 2, p % 10 == 3);
        // Distinct pixels, as a fragment launch's lanes have, but in some programs lanes
        // outside the tile or sharing one.
        let mut pixels: Vec<u32> = (0..256).collect();
        for k in 0..SIMD_WIDTH {
            let j = k + rng.below(256 - k as u64) as usize;
            pixels.swap(k, j);
        }
        for l in 0..SIMD_WIDTH {
            let [x, y] = f.tile_origin;
            let k = if shared { rng.below(4) as usize } else { l };
            f.lane_pixels[l] = [x + pixels[k] % 16, y + pixels[k] / 16];
            if outside && rng.below(8) == 0 {
                f.lane_pixels[l][0] += 16;
            }
            f.coverage[l] = match rng.below(4) {
                0 => 0,
                1 => rng.next() as u8,
                _ => (1 << samples) - 1,
            };
        }
        let seed = rng.next();
        let outcome = |jit: bool| {
            let mut gfx = GraphicsContext {
                fragment: Some(f.clone()),
                ..GraphicsContext::default()
            };
            let o = run_from(&prog, seed, jit, 32 * 256, false, Some(&mut gfx));
            (o, gfx.fragment.map(|f| f.tilebuffer).unwrap_or_default())
        };
        let (want, want_tile) = outcome(false);
        let (got, got_tile) = outcome(true);
        let what = format!("tile program {p}");
        assert_same(&want, &got, &what, &code);
        if let Some(at) = (0..want_tile.len()).find(|&k| want_tile[k] != got_tile[k]) {
            panic!(
                "{what}: tilebuffer byte {at}: interpreter {:#04x}, translator {:#04x}\n{code:#?}",
                want_tile[at], got_tile[at]
            );
        }
    }
    let [loads, stores] = accesses;
    eprintln!(
        "300 random tile programs, {loads} tile loads and {stores} tile stores in translated regions"
    );
    assert!(
        loads > 150 && stores > 150 && translated > 1000,
        "tile programs translated: {translated} instructions, {loads} loads, {stores} stores"
    );
}

/// A loop pass may run twice from the same inputs (a full pass leaving for the general one),
/// so tile stores inside loop regions stay with the interpreter; loads may be translated.
#[test]
fn tile_stores_in_loops_are_not_translated() {
    let mut rng = Rng(0x5707_e10f_0000_0003);
    for _ in 0..50 {
        let (mut code, start) = random_counted_loop(&mut rng);
        let access = |store| {
            Instr::TileMem(TileMem {
                store,
                reg: Reg::r32(50),
                format: MemFormat::I32,
                mask: 1,
                pixel_offset: 0,
                samples: Small::Imm(0xff),
                coords: None,
            })
        };
        code.insert(start + 1, access(false));
        code.insert(start + 2, access(true));
        // The closing jump's offset counts the instructions of the body.
        let jump = code.len() - 3;
        if let Instr::Jump(j) = &mut code[jump] {
            j.offset -= 16;
        }
        let prog = program_of(&code);
        let c = compiled(&prog).expect("the program translates");
        let spans = |i: usize| (0..=i).any(|s| c.region(s).is_some_and(|r| s + r.len as usize > i));
        assert!(spans(start + 1), "the loop's tile load is translated");
        assert!(!spans(start + 2), "the loop's tile store is not translated");
    }
}

/// A random 64-bit `iadd` or a bitfield shift whose amount is a register or uniform: the
/// forms the translator takes word by word or lane by lane.
fn wide_add_or_lane_shift(rng: &mut Rng) -> Instr {
    let reg32 = |rng: &mut Rng| Reg::r32(rng.below(12) as u16);
    let src = |rng: &mut Rng, wide: bool| {
        let op = match rng.below(5) {
            0 if wide => Operand::Reg(Reg::r64(2 * rng.below(6) as u16)),
            1 if wide => Operand::Uniform(Reg::r64(2 * rng.below(8) as u16)),
            2 => Operand::Uniform(Reg::r32(rng.below(16) as u16)),
            3 => Operand::Imm(rng.next() as u32 >> rng.below(32)),
            4 => Operand::Reg(Reg::r16(rng.below(24) as u16)),
            _ => Operand::Reg(reg32(rng)),
        };
        ISrc {
            op,
            sign_extend: rng.below(2) == 0,
            hint: Hint::None,
        }
    };
    if rng.below(2) == 0 {
        return Instr::IAdd(IAdd {
            dst: Reg::r64(2 * rng.below(6) as u16).into(),
            a: src(rng, true),
            b: src(rng, true),
            negate_b: rng.below(2) == 0,
            shift: rng.below(7) as u8,
            saturate: rng.below(4) == 0,
        });
    }
    let op = [ShiftOp::Bfi, ShiftOp::Bfeil, ShiftOp::Extr][rng.below(3) as usize];
    let mut b = src(rng, false);
    if op == ShiftOp::Bfeil {
        b.sign_extend = false;
    }
    // Registers hold random bits, so amounts (the low 7 bits) of 32 and more are common.
    let c = match rng.below(3) {
        0 => ISrc::new(Operand::Uniform(Reg::r32(rng.below(16) as u16))),
        _ => ISrc::new(Operand::Reg(reg32(rng))),
    };
    Instr::Shift(Shift {
        op,
        dst: reg32(rng).into(),
        a: src(rng, false),
        b,
        c,
        mask_bits: rng.below(40) as u8,
    })
}

#[test]
fn wide_adds_and_lane_shift_amounts_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x0dd_ba11);
    for p in 0..400 {
        let code = random_program_of(&mut rng, wide_add_or_lane_shift);
        let prog = program_of(&code);
        let covered = compiled(&prog).expect("the program translates").covered();
        let plain = code
            .iter()
            .filter(|i| !matches!(i, Instr::Stop | Instr::Jump(_)))
            .count();
        assert!(
            covered >= plain,
            "program {p}: {covered} of {plain} translated"
        );
        let seed = rng.next();
        let want = run(&prog, seed, false, 32 * 400);
        let got = run(&prog, seed, true, 32 * 400);
        assert_same(&want, &got, &format!("program {p}"), &code);
    }
}

/// Unsigned conversions of values known to fit in 31 bits (masked by a small constant,
/// shifted right) take the signed conversion; values that may not fit (a large mask, a shift
/// by 0) keep the unsigned one. Both must give the interpreter's floats.
#[test]
fn unsigned_conversions_of_small_values_run_the_same() {
    let mut rng = Rng(0x5eed_c0de);
    let r = |n: u16| Reg::r32(n);
    let convert = |dst: u16, src: u16| {
        Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: r(dst).into(),
            src: ISrc::new(Operand::Reg(r(src))),
            round: Round::NearestEven,
        })
    };
    for p in 0..200 {
        let mask = match p % 4 {
            0 => rng.below(1 << 31) as u32,
            1 => 0xff,
            2 => 0x8000_0000 | rng.next() as u32,
            _ => u32::MAX,
        };
        let shift = rng.below(4) as u32;
        let code = vec![
            Instr::Bitop(Bitop {
                dst: r(4).into(),
                a: ISrc::new(Operand::Reg(r(1))),
                b: ISrc::new(Operand::Imm(mask)),
                table: 0b1000,
            }),
            convert(5, 4),
            Instr::Shift(Shift {
                op: ShiftOp::Bfeil,
                dst: r(6).into(),
                a: ISrc::new(Operand::Imm(0)),
                b: ISrc::new(Operand::Reg(r(2))),
                c: ISrc::new(Operand::Imm(shift)),
                mask_bits: 0,
            }),
            convert(7, 6),
            Instr::Stop,
        ];
        let prog = program_of(&code);
        assert!(compiled(&prog).expect("the program translates").covered() >= 4);
        let seed = rng.next();
        let want = run(&prog, seed, false, 32 * 100);
        let got = run(&prog, seed, true, 32 * 100);
        assert_same(&want, &got, &format!("mask {mask:#x} shift {shift}"), &code);
    }
}

/// `get_sr` of every special register a region may translate, and of some it may not (a
/// fragment's in a compute launch, unmodelled ones, 16-bit destinations), among random
/// instructions: translated or left to the interpreter, the outcome is the interpreter's,
/// faults included, and the modelled ones are translated.
#[test]
fn special_registers_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x51ec_1a15);
    let mut translated = 0;
    let others = [7u8, 60, 63, 62, 80, 124];
    for p in 0..300 {
        let sr = if p % 3 == 0 {
            others[rng.below(others.len() as u64) as usize]
        } else {
            SR_SLOTS[rng.below(SR_SLOTS.len() as u64) as usize].0
        };
        let dst = if p % 7 == 0 { Reg::r16(9) } else { Reg::r32(4) };
        let get = Instr::GetSr(GetSr {
            dst: dst.into(),
            sr: SpecialReg(sr),
        });
        let code = random_program_of(
            &mut rng,
            |r| {
                if r.below(4) == 0 {
                    get
                } else {
                    random_alu(r)
                }
            },
        );
        let prog = program_of(&code);
        let c = compiled(&prog).expect("the program translates");
        let region_reads = |k: usize| {
            (0..code.len()).any(|pc| c.region(pc).is_some_and(|r| r.specials & (1 << k) != 0))
        };
        if let Some(k) = super::sr_slot(SpecialReg(sr)) {
            translated += usize::from(region_reads(k));
        }
        let seed = rng.next();
        let want = run_from(&prog, seed, false, 32 * 400, p % 2 == 0, None);
        let got = run_from(&prog, seed, true, 32 * 400, p % 2 == 0, None);
        assert_same(&want, &got, &format!("program {p}, sr {sr}"), &code);
    }
    assert!(
        translated > 100,
        "{translated} programs read a translated special register"
    );
}

/// Where the uniform-load test maps its words, and the uniform halves holding the base.
const LOAD_VA: u64 = 0x1_2345_0000;
const LOAD_BASE_HALF: u16 = 200;

/// A load of 1 to 4 consecutive 32-bit words at `LOAD_VA` plus up to 64 words, through a
/// uniform base and an immediate index, into a random register.
fn uniform_load(rng: &mut Rng) -> Instr {
    let n = 1 + rng.below(4) as u8;
    let first = rng.below(4 - u64::from(n) + 1) as u8;
    Instr::DeviceMem(DeviceMem {
        store: false,
        reg: Reg::r32(1 + rng.below(12) as u16),
        base: Operand::Uniform(Reg {
            half: LOAD_BASE_HALF,
            size: Size::S64,
        }),
        index: Index::Imm(rng.below(20) as i16 - 2),
        index_unsigned: rng.bool(),
        shift: rng.pick(&[0, 1, 2, 3]),
        format: MemFormat::I32,
        mask: ((1u8 << n) - 1) << first,
        wait_slot: 0,
    })
}

/// Uniform-address loads among random code: a translated region reads their words before
/// it runs, and where one is unmapped leaves the region to the interpreter, which faults at
/// it. Registers, exec masks, counts and faults must be the interpreter's.
#[test]
fn uniform_loads_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x5eed_10ad);
    let (mut preloaded, mut faulted) = (0, 0);
    for p in 0..600 {
        let code = random_program_with(&mut rng, 4, uniform_load);
        let prog = program_of(&code);
        let c = compiled(&prog).expect("the program translates");
        preloaded += c.preloads.len();
        let words: Vec<u8> = (0..256u32)
            .flat_map(|k| k.wrapping_mul(0x0101_0107).to_le_bytes())
            .collect();
        // Mostly mapped; sometimes the base points 256 bytes short of the end of the words,
        // so some loads fault and others do not.
        let va = if p % 4 == 0 { LOAD_VA + 768 } else { LOAD_VA };
        let set: Vec<(usize, u16)> = (0..4)
            .map(|k| (LOAD_BASE_HALF as usize + k, (va >> (16 * k)) as u16))
            .collect();
        let seed = rng.next();
        let budget = 32 * (200 + rng.below(400));
        let outcome = |jit| {
            let mut mem = FlatMemory::with(LOAD_VA, &words);
            run_in(&prog, seed, jit, budget, false, None, &mut mem, &set)
        };
        let want = outcome(false);
        let got = outcome(true);
        faulted += usize::from(want.result.is_err());
        assert_same(&want, &got, &format!("program {p}"), &code);
    }
    assert!(preloaded > 300, "only {preloaded} loads translated");
    assert!(faulted > 20, "only {faulted} programs faulted");
}

/// UVS slots of the `st_vary` test's records; its stores name slots up to 9, so some fault.
const VARY_SLOTS: u32 = 8;

/// An `st_vary` of a random 32-bit register (sometimes 16-bit, which stays interpreted) to
/// an immediate slot, sometimes the last.
fn random_st_vary(rng: &mut Rng) -> Instr {
    let half = 2 + 2 * rng.below(12) as u16;
    Instr::StVary(StVary {
        src: if rng.below(6) == 0 {
            Reg::r16(half)
        } else {
            Reg::r32(half / 2)
        },
        index: Small::Imm(rng.below(u64::from(VARY_SLOTS) + 2) as u8),
        last: rng.below(4) == 0,
    })
}

/// `st_vary` among random code: translated regions write the lanes' records where the
/// interpreter does (active lanes only, other words left as they were) and mark the same
/// lanes finished; a slot past the records leaves the region to the interpreter, which
/// faults.
#[test]
fn vertex_outputs_run_the_same_on_the_translator_and_the_interpreter() {
    let mut rng = Rng(0x0075_7661);
    let (mut translated, mut faulted) = (0, 0);
    for p in 0..600 {
        let code = random_program_with(&mut rng, 3, random_st_vary);
        let prog = program_of(&code);
        let c = compiled(&prog).expect("the program translates");
        translated += (0..code.len())
            .filter_map(|i| c.region(i))
            .filter(|r| r.vary_slots > 0)
            .count();
        let seed = rng.next();
        let budget = 32 * (200 + rng.below(400));
        let outcome = |jit| {
            let mut v = VertexContext::new(VARY_SLOTS);
            // Records start non-zero, so a lane that writes where it should not shows.
            for (k, w) in v.uvs.iter_mut().enumerate() {
                *w = (k as u32).wrapping_mul(0x9e37_79b9);
            }
            let mut gfx = GraphicsContext {
                vertex: Some(v),
                ..GraphicsContext::default()
            };
            let o = run_from(&prog, seed, jit, budget, false, Some(&mut gfx));
            let v = gfx.vertex.expect("the vertex context stays");
            (o, v.uvs, v.finished)
        };
        let (want, want_uvs, want_finished) = outcome(false);
        let (got, got_uvs, got_finished) = outcome(true);
        faulted += usize::from(want.result.is_err());
        assert_same(&want, &got, &format!("program {p}"), &code);
        assert_eq!(want_uvs, got_uvs, "program {p}: records differ\n{code:?}");
        assert_eq!(
            want_finished, got_finished,
            "program {p}: finished lanes differ"
        );
    }
    assert!(
        translated > 200,
        "only {translated} regions with st_vary translated"
    );
    assert!(faulted > 20, "only {faulted} programs faulted");
}
