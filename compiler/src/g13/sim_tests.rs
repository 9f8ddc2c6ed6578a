//! Compiled shaders run on the simulated USC (`sim_gpu::usc`) and compared with results
//! computed here on the CPU.

use hw::isa::GPR_HALVES;
use sim_gpu::usc::{run_workgroups, FlatMemory, LaunchState, Program};
use sim_gpu::GpuMemory;

use super::tests::{lcg_shader, loop_shader, swap_shader, wide_shader, Build};
use super::*;
use crate::ir::{self, BinOp, CmpOp, ConvOp, Node, Op, SysVal, Type, UnOp, Value};

const VA: u64 = 0x1_2340_0000;

/// Compiles `shader` with a register budget, runs `groups` workgroups of `local` threads on
/// memory holding `words` at the set-0 address, and returns the memory afterwards.
fn run(shader: &Shader, budget: u16, local: u32, groups: u32, words: &[u32]) -> Vec<u32> {
    let c = compile_items(
        shader,
        Options {
            gpr_budget: budget,
            ..Options::default()
        },
    )
    .expect("compile");
    let e = encode::encode_program(&c.items).expect("encode");
    let mut at = 0;
    let mut code = Vec::new();
    while at < e.code.len() {
        let (i, len) = hw::g13::decode(&e.code[at..]).expect("decode");
        code.push((at as u32, i));
        at += len;
    }
    let prog = Program::new(0, code).expect("program");
    let mut launch = LaunchState::new([local, 1, 1], [local * groups, 1, 1]);
    for h in 0..4 {
        launch.uniforms[h] = (VA >> (16 * h)) as u16;
    }
    launch.shared_bytes = shader.shared_size;
    launch.stack_bytes = c.scratch_bytes;
    launch.max_lane_steps = 1 << 28;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut mem = FlatMemory::with(VA, &bytes);
    run_workgroups(&prog, &launch, &mut mem).expect("run");
    let mut out = vec![0u8; bytes.len()];
    mem.read(VA, &mut out).expect("read back");
    out.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn gid(b: &mut Build) -> Value {
    let lid = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationId(0)));
    let wg = b.op(Type::I32, Op::SysVal(SysVal::WorkgroupId(0)));
    let k = b.c32(32);
    let base = b.bin(BinOp::IMul, wg, k);
    b.bin(BinOp::IAdd, base, lid)
}

fn un(b: &mut Build, op: UnOp, a: Value) -> Value {
    let ty = b.shader.ty(a);
    b.op(ty, Op::Unary(op, a))
}

fn f(b: &mut Build, x: f32) -> Value {
    b.op(
        Type::F32,
        Op::Const(ir::Constant(vec![u64::from(x.to_bits())])),
    )
}

fn bool_to_int(b: &mut Build, c: Value) -> Value {
    b.op(Type::I32, Op::Conv(ConvOp::BoolToInt, c))
}

const THREADS: u32 = 64;

fn inputs() -> Vec<u32> {
    let mut s = 0x1234_5678_9abc_def1u64;
    (0..2 * THREADS)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // A few small and negative values too.
            match i % 7 {
                0 => (s % 40) as u32,
                1 => (s as u32) | 0x8000_0000,
                _ => s as u32,
            }
        })
        .collect()
}

type CpuOp = fn(u32, u32) -> u32;

fn integer_cases() -> Vec<(&'static str, CpuOp)> {
    fn sfindmsb(a: u32) -> u32 {
        let v = if (a as i32) < 0 { !a } else { a };
        if v == 0 {
            u32::MAX
        } else {
            31 - v.leading_zeros()
        }
    }
    vec![
        ("iadd", |a, b| a.wrapping_add(b)),
        ("isub", |a, b| a.wrapping_sub(b)),
        ("imul", |a, b| a.wrapping_mul(b)),
        ("umulhigh", |a, b| {
            ((u64::from(a) * u64::from(b)) >> 32) as u32
        }),
        ("smulhigh", |a, b| {
            ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
        }),
        ("smulhigh_200", |a, _| {
            ((i64::from(a as i32) * 200) >> 32) as u32
        }),
        ("and", |a, b| a & b),
        ("or", |a, b| a | b),
        ("xor", |a, b| a ^ b),
        ("shl", |a, b| a << (b & 31)),
        ("ushr", |a, b| a >> (b & 31)),
        ("sshr", |a, b| ((a as i32) >> (b & 31)) as u32),
        ("umin", |a, b| a.min(b)),
        ("smin", |a, b| (a as i32).min(b as i32) as u32),
        ("umax", |a, b| a.max(b)),
        ("smax", |a, b| (a as i32).max(b as i32) as u32),
        ("not", |a, _| !a),
        ("ineg", |a, _| a.wrapping_neg()),
        ("bitreverse", |a, _| a.reverse_bits()),
        ("bitcount", |a, _| a.count_ones()),
        ("ufindmsb", |a, _| {
            if a == 0 {
                u32::MAX
            } else {
                31 - a.leading_zeros()
            }
        }),
        ("sfindmsb", |a, _| sfindmsb(a)),
        ("findlsb", |a, _| {
            if a == 0 {
                u32::MAX
            } else {
                a.trailing_zeros()
            }
        }),
        (
            "select_slt",
            |a, b| if (a as i32) < (b as i32) { a } else { b },
        ),
        ("ult_to_int", |a, b| u32::from(a < b)),
        ("ne_or_sge", |a, b| {
            u32::from(a != b || (a as i32) >= (b as i32))
        }),
        ("ubfe_const", |a, b| (a >> (b & 15)) & 0x1f),
        ("sbfe_const", |a, b| {
            (((a >> (b & 15)) << 25) as i32 >> 25) as u32
        }),
        ("bfi_const", |a, b| (a & !(0x1ff << 4)) | ((b & 0x1ff) << 4)),
        ("ubfe_var", |a, b| {
            let (off, cnt) = (b & 15, (b >> 8) & 15);
            if cnt == 0 {
                0
            } else {
                (a >> off) & ((1u32 << cnt) - 1)
            }
        }),
        ("sbfe_var", |a, b| {
            let (off, cnt) = (b & 15, (b >> 8) & 15);
            if cnt == 0 {
                0
            } else {
                (((a >> off) << (32 - cnt)) as i32 >> (32 - cnt)) as u32
            }
        }),
        ("bfi_var", |a, b| {
            let (off, cnt) = (b & 15, (b >> 8) & 15);
            let m = ((1u32 << cnt) - 1) << off;
            (a & !m) | ((b << off) & m)
        }),
    ]
}

fn emit_integer(b: &mut Build, name: &str, x: Value, y: Value) -> Value {
    let c31 = b.c32(31);
    let c15 = b.c32(15);
    let c8 = b.c32(8);
    match name {
        "iadd" => b.bin(BinOp::IAdd, x, y),
        "isub" => b.bin(BinOp::ISub, x, y),
        "imul" => b.bin(BinOp::IMul, x, y),
        "umulhigh" => b.bin(BinOp::UMulHigh, x, y),
        "smulhigh" => b.bin(BinOp::SMulHigh, x, y),
        "smulhigh_200" => {
            let k = b.c32(200);
            b.bin(BinOp::SMulHigh, x, k)
        }
        "and" => b.bin(BinOp::And, x, y),
        "or" => b.bin(BinOp::Or, x, y),
        "xor" => b.bin(BinOp::Xor, x, y),
        "shl" | "ushr" | "sshr" => {
            let s = b.bin(BinOp::And, y, c31);
            let op = match name {
                "shl" => BinOp::Shl,
                "ushr" => BinOp::UShr,
                _ => BinOp::SShr,
            };
            b.bin(op, x, s)
        }
        "umin" => b.bin(BinOp::UMin, x, y),
        "smin" => b.bin(BinOp::SMin, x, y),
        "umax" => b.bin(BinOp::UMax, x, y),
        "smax" => b.bin(BinOp::SMax, x, y),
        "not" => un(b, UnOp::Not, x),
        "ineg" => un(b, UnOp::INeg, x),
        "bitreverse" => un(b, UnOp::BitReverse, x),
        "bitcount" => un(b, UnOp::BitCount, x),
        "ufindmsb" => un(b, UnOp::UFindMsb, x),
        "sfindmsb" => un(b, UnOp::SFindMsb, x),
        "findlsb" => un(b, UnOp::FindLsb, x),
        "select_slt" => {
            let c = b.cmp(CmpOp::SLt, x, y);
            b.op(Type::I32, Op::Select(c, x, y))
        }
        "ult_to_int" => {
            let c = b.cmp(CmpOp::ULt, x, y);
            bool_to_int(b, c)
        }
        "ne_or_sge" => {
            let c1 = b.cmp(CmpOp::INe, x, y);
            let c2 = b.cmp(CmpOp::SGe, x, y);
            let c = b.op(Type::BOOL, Op::Binary(BinOp::Or, c1, c2));
            bool_to_int(b, c)
        }
        "ubfe_const" | "sbfe_const" => {
            let off = b.bin(BinOp::And, y, c15);
            let cnt = b.c32(if name == "ubfe_const" { 5 } else { 7 });
            if name == "ubfe_const" {
                b.op(Type::I32, Op::UBitfieldExtract(x, off, cnt))
            } else {
                b.op(Type::I32, Op::SBitfieldExtract(x, off, cnt))
            }
        }
        "bfi_const" => {
            let off = b.c32(4);
            let cnt = b.c32(9);
            b.op(Type::I32, Op::BitfieldInsert(x, y, off, cnt))
        }
        "ubfe_var" | "sbfe_var" | "bfi_var" => {
            let off = b.bin(BinOp::And, y, c15);
            let hi = b.bin(BinOp::UShr, y, c8);
            let cnt = b.bin(BinOp::And, hi, c15);
            match name {
                "ubfe_var" => b.op(Type::I32, Op::UBitfieldExtract(x, off, cnt)),
                "sbfe_var" => b.op(Type::I32, Op::SBitfieldExtract(x, off, cnt)),
                _ => b.op(Type::I32, Op::BitfieldInsert(x, y, off, cnt)),
            }
        }
        other => panic!("no case {other}"),
    }
}

#[test]
fn integer_operations_match_the_cpu() {
    let cases = integer_cases();
    let n = cases.len() as u32;
    let mut b = Build::new();
    let base = b.set0();
    let g = gid(&mut b);
    let ax = b.element(base, g);
    let x = b.load_global(ax);
    let tk = b.c32(THREADS);
    let gi = b.bin(BinOp::IAdd, g, tk);
    let ay = b.element(base, gi);
    let y = b.load_global(ay);
    let nk = b.c32(n);
    let row = b.bin(BinOp::IMul, g, nk);
    let two_t = b.c32(2 * THREADS);
    let row = b.bin(BinOp::IAdd, row, two_t);
    for (j, (name, _)) in cases.iter().enumerate() {
        let r = emit_integer(&mut b, name, x, y);
        let jk = b.c32(j as u32);
        let idx = b.bin(BinOp::IAdd, row, jk);
        let a = b.element(base, idx);
        b.store_global(a, r);
    }
    let shader = b.finish();
    let mut mem = inputs();
    mem.resize((2 * THREADS + THREADS * n) as usize, 0xdead_beef);
    for budget in [GPR_HALVES, 24] {
        let out = run(&shader, budget, 32, THREADS / 32, &mem);
        let mut bad = Vec::new();
        for t in 0..THREADS as usize {
            let (a, bb) = (mem[t], mem[t + THREADS as usize]);
            for (j, (name, cpu)) in cases.iter().enumerate() {
                let got = out[2 * THREADS as usize + t * n as usize + j];
                let want = cpu(a, bb);
                if got != want {
                    bad.push(format!(
                        "{name}({a:#x}, {bb:#x}) = {got:#x}, want {want:#x}"
                    ));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "budget {budget}: {} wrong, e.g.\n{}",
            bad.len(),
            bad[..bad.len().min(12)].join("\n")
        );
    }
}

/// The control-flow program of [`control_flow_matches_the_cpu`], on the CPU.
fn control_flow_cpu(lid: u32) -> Option<u32> {
    let mut acc = 0u32;
    let mut i = 0u32;
    loop {
        if i >= lid {
            break;
        }
        i += 1;
        if i & 1 == 0 {
            continue;
        }
        // An inner loop with its own break and continue.
        let mut j = 0;
        loop {
            j += 1;
            if j == 2 {
                continue;
            }
            if j > i % 4 {
                break;
            }
            acc += j;
        }
        acc += i * 3;
        if acc > 40 {
            if lid % 7 == 3 {
                return None;
            }
            break;
        }
    }
    if lid % 5 == 1 {
        acc += 1000;
    } else {
        acc ^= 0x55;
    }
    Some(acc)
}

fn control_flow_shader() -> Shader {
    let mut b = Build::new();
    let base = b.set0();
    let lid = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let acc = b.var(Type::I32);
    let i = b.var(Type::I32);
    let zero = b.c32(0);
    b.store_var(acc, zero);
    b.store_var(i, zero);
    b.loop_(|b| {
        let iv = b.load_var(i);
        let done = b.cmp(CmpOp::UGe, iv, lid);
        b.if_(done, |b| b.node(Node::Break), |_| {});
        let one = b.c32(1);
        let iv = b.bin(BinOp::IAdd, iv, one);
        b.store_var(i, iv);
        let odd = b.bin(BinOp::And, iv, one);
        let zero = b.c32(0);
        let even = b.cmp(CmpOp::IEq, odd, zero);
        b.if_(even, |b| b.node(Node::Continue), |_| {});
        let j = b.var(Type::I32);
        b.store_var(j, zero);
        b.loop_(|b| {
            let jv = b.load_var(j);
            let jv = b.bin(BinOp::IAdd, jv, one);
            b.store_var(j, jv);
            let two = b.c32(2);
            let is2 = b.cmp(CmpOp::IEq, jv, two);
            b.if_(is2, |b| b.node(Node::Continue), |_| {});
            let three = b.c32(3);
            let lim = b.bin(BinOp::And, iv, three);
            let over = b.cmp(CmpOp::UGt, jv, lim);
            b.if_(over, |b| b.node(Node::Break), |_| {});
            let a = b.load_var(acc);
            let a = b.bin(BinOp::IAdd, a, jv);
            b.store_var(acc, a);
        });
        let three = b.c32(3);
        let t = b.bin(BinOp::IMul, iv, three);
        let a = b.load_var(acc);
        let a = b.bin(BinOp::IAdd, a, t);
        b.store_var(acc, a);
        let forty = b.c32(40);
        let big = b.cmp(CmpOp::UGt, a, forty);
        b.if_(
            big,
            |b| {
                // lid % 7 == 3 without a division: a bit of a precomputed table.
                let table = b.c32(mod7_is3_mask());
                let bit = b.bin(BinOp::UShr, table, lid);
                let one = b.c32(1);
                let bit = b.bin(BinOp::And, bit, one);
                let ret = b.cmp(CmpOp::INe, bit, zero);
                b.if_(ret, |b| b.node(Node::Return), |_| {});
                b.node(Node::Break);
            },
            |_| {},
        );
    });
    let table = b.c32(mod5_is1_mask());
    let bit = b.bin(BinOp::UShr, table, lid);
    let one = b.c32(1);
    let bit = b.bin(BinOp::And, bit, one);
    let c = b.cmp(CmpOp::INe, bit, zero);
    b.if_(
        c,
        |b| {
            let a = b.load_var(acc);
            let k = b.c32(1000);
            let a = b.bin(BinOp::IAdd, a, k);
            b.store_var(acc, a);
        },
        |b| {
            let a = b.load_var(acc);
            let k = b.c32(0x55);
            let a = b.bin(BinOp::Xor, a, k);
            b.store_var(acc, a);
        },
    );
    let a = b.load_var(acc);
    let addr = b.element(base, lid);
    b.store_global(addr, a);
    b.finish()
}

fn mod7_is3_mask() -> u32 {
    (0..32).filter(|l| l % 7 == 3).fold(0, |m, l| m | 1 << l)
}

fn mod5_is1_mask() -> u32 {
    (0..32).filter(|l| l % 5 == 1).fold(0, |m, l| m | 1 << l)
}

#[test]
fn control_flow_matches_the_cpu() {
    let shader = control_flow_shader();
    let init = vec![0xdead_beef; 32];
    let want: Vec<u32> = (0..32)
        .map(|l| control_flow_cpu(l).unwrap_or(0xdead_beef))
        .collect();
    assert!(
        want.contains(&0xdead_beef),
        "some thread should return early"
    );
    for budget in [GPR_HALVES, 20, 16] {
        let got = run(&shader, budget, 32, 1, &init);
        assert_eq!(got, want, "budget {budget}");
    }
}

#[test]
fn spilled_programs_compute_the_same_results() {
    let wide = wide_shader(40);
    let want: Vec<u32> = (0..32u32)
        .map(|x| {
            let vals: Vec<u32> = (0..40).map(|i| x.wrapping_mul(1000 + i)).collect();
            let mut acc = vals.iter().fold(0u32, |a, v| a.wrapping_add(*v));
            for v in vals.iter().rev() {
                acc ^= v;
            }
            acc
        })
        .collect();
    for budget in [GPR_HALVES, 32, 16] {
        assert_eq!(
            run(&wide, budget, 32, 1, &[0; 32]),
            want,
            "wide, budget {budget}"
        );
    }
    let looped = loop_shader(12);
    let want: Vec<u32> = (0..32u32)
        .map(|x| {
            let mut acc = 0u32;
            for iv in 0..10u32 {
                for i in 0..12 {
                    acc = acc.wrapping_add((x + 7 + i).wrapping_mul(iv));
                }
            }
            acc
        })
        .collect();
    for budget in [GPR_HALVES, 20, 16] {
        assert_eq!(
            run(&looped, budget, 32, 1, &[0; 32]),
            want,
            "loop, budget {budget}"
        );
    }
}

#[test]
fn random_programs_give_the_same_results_at_every_budget() {
    // No CPU model here: the unconstrained allocation is the reference, and tight budgets
    // (heavy spilling) must agree with it. The verifier checks the allocation statically;
    // this checks the spill code and exec masking dynamically.
    for seed in 1..40 {
        let s = super::tests::random_shader(seed, true);
        let reference = run(&s, GPR_HALVES, 32, 1, &[0; 32]);
        for budget in [24, 16] {
            assert_eq!(
                run(&s, budget, 32, 1, &[0; 32]),
                reference,
                "seed {seed}, budget {budget}"
            );
        }
    }
}

type FloatCase = (&'static str, fn(f32, f32) -> f32);

fn float_cases() -> Vec<FloatCase> {
    vec![
        ("fadd", |a, b| a + b),
        ("fsub", |a, b| a - b),
        ("fmul", |a, b| a * b),
        ("ffma", |a, b| a.mul_add(b, 0.5)),
        ("fmin", |a, b| a.min(b)),
        ("fmax", |a, b| a.max(b)),
        ("fneg", |a, _| -a),
        ("fabs", |a, _| a.abs()),
        ("floor", |a, _| a.floor()),
        ("ceil", |a, _| a.ceil()),
        ("trunc", |a, _| a.trunc()),
        ("rint", |a, _| a.round_ties_even()),
        ("f2i_i2f", |a, _| ((a * 8.0) as i32) as f32),
        ("f2u_u2f", |a, _| ((a.abs() * 8.0) as u32) as f32),
        ("flt_select", |a, b| if a < b { 1.0 } else { 2.0 }),
        ("fne_select", |a, b| if a != b { 3.0 } else { 4.0 }),
    ]
}

fn emit_float(b: &mut Build, name: &str, x: Value, y: Value) -> Value {
    let ff = |b: &mut Build, op: BinOp, x: Value, y: Value| b.op(Type::F32, Op::Binary(op, x, y));
    let conv = |b: &mut Build, op: ConvOp, ty: Type, x: Value| b.op(ty, Op::Conv(op, x));
    match name {
        "fadd" => ff(b, BinOp::FAdd, x, y),
        "fsub" => ff(b, BinOp::FSub, x, y),
        "fmul" => ff(b, BinOp::FMul, x, y),
        "ffma" => {
            let h = f(b, 0.5);
            b.op(Type::F32, Op::FFma(x, y, h))
        }
        "fmin" => ff(b, BinOp::FMin, x, y),
        "fmax" => ff(b, BinOp::FMax, x, y),
        "fneg" => un(b, UnOp::FNeg, x),
        "fabs" => un(b, UnOp::FAbs, x),
        "floor" => un(b, UnOp::FFloor, x),
        "ceil" => un(b, UnOp::FCeil, x),
        "trunc" => un(b, UnOp::FTrunc, x),
        "rint" => un(b, UnOp::FRoundEven, x),
        "f2i_i2f" => {
            let e = f(b, 8.0);
            let s = ff(b, BinOp::FMul, x, e);
            let i = conv(b, ConvOp::FToS, Type::I32, s);
            conv(b, ConvOp::SToF, Type::F32, i)
        }
        "f2u_u2f" => {
            let a = un(b, UnOp::FAbs, x);
            let e = f(b, 8.0);
            let s = ff(b, BinOp::FMul, a, e);
            let i = conv(b, ConvOp::FToU, Type::I32, s);
            conv(b, ConvOp::UToF, Type::F32, i)
        }
        "flt_select" | "fne_select" => {
            let (op, t, e) = if name == "flt_select" {
                (CmpOp::FOLt, 1.0, 2.0)
            } else {
                (CmpOp::FUNe, 3.0, 4.0)
            };
            let c = b.cmp(op, x, y);
            let t = f(b, t);
            let e = f(b, e);
            b.op(Type::F32, Op::Select(c, t, e))
        }
        other => panic!("no case {other}"),
    }
}

fn float_inputs() -> Vec<f32> {
    let mut v = vec![
        0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.49, 3.0, -7.25, 100.125, 1e-3, -1e5,
    ];
    let mut s = 0x9e37_79b9u32;
    while v.len() < 2 * THREADS as usize {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        v.push(((s >> 8) as f32 / (1 << 24) as f32 - 0.5) * 64.0);
    }
    v
}

#[test]
fn float_operations_match_the_cpu() {
    let cases = float_cases();
    let n = cases.len() as u32;
    let mut b = Build::new();
    let base = b.set0();
    let g = gid(&mut b);
    let ax = b.element(base, g);
    let xi = b.load_global(ax);
    let x = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, xi));
    let tk = b.c32(THREADS);
    let gi = b.bin(BinOp::IAdd, g, tk);
    let ay = b.element(base, gi);
    let yi = b.load_global(ay);
    let y = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, yi));
    let nk = b.c32(n);
    let row = b.bin(BinOp::IMul, g, nk);
    let two_t = b.c32(2 * THREADS);
    let row = b.bin(BinOp::IAdd, row, two_t);
    for (j, (name, _)) in cases.iter().enumerate() {
        let r = emit_float(&mut b, name, x, y);
        let ri = b.op(Type::I32, Op::Conv(ConvOp::Bitcast, r));
        let jk = b.c32(j as u32);
        let idx = b.bin(BinOp::IAdd, row, jk);
        let a = b.element(base, idx);
        b.store_global(a, ri);
    }
    let shader = b.finish();
    let fin = float_inputs();
    let mut mem: Vec<u32> = fin.iter().map(|v| v.to_bits()).collect();
    mem.resize((2 * THREADS + THREADS * n) as usize, 0xdead_beef);
    let out = run(&shader, GPR_HALVES, 32, THREADS / 32, &mem);
    let mut bad = Vec::new();
    for t in 0..THREADS as usize {
        let (a, bb) = (fin[t], fin[t + THREADS as usize]);
        for (j, (name, cpu)) in cases.iter().enumerate() {
            let got = out[2 * THREADS as usize + t * n as usize + j];
            let want = cpu(a, bb).to_bits();
            if got != want {
                bad.push(format!(
                    "{name}({a}, {bb}) = {} ({got:#x}), want {} ({want:#x})",
                    f32::from_bits(got),
                    f32::from_bits(want)
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} wrong, e.g.\n{}",
        bad.len(),
        bad[..bad.len().min(12)].join("\n")
    );
}

#[test]
fn transcendentals_are_close() {
    type Case = (UnOp, fn(f32) -> f32, f32);
    let cases: Vec<Case> = vec![
        (UnOp::FSin, f32::sin, 1e-5),
        (UnOp::FCos, f32::cos, 1e-5),
        (UnOp::FExp2, f32::exp2, 1e-5),
        (UnOp::FLog2, f32::log2, 1e-5),
        (UnOp::FRcp, f32::recip, 1e-6),
        (UnOp::FRsqrt, |x| 1.0 / x.sqrt(), 1e-6),
    ];
    let n = cases.len() as u32;
    let mut b = Build::new();
    let base = b.set0();
    let g = gid(&mut b);
    let ax = b.element(base, g);
    let xi = b.load_global(ax);
    let x = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, xi));
    let nk = b.c32(n);
    let row = b.bin(BinOp::IMul, g, nk);
    let t = b.c32(THREADS);
    let row = b.bin(BinOp::IAdd, row, t);
    for (j, (op, _, _)) in cases.iter().enumerate() {
        let r = un(&mut b, *op, x);
        let ri = b.op(Type::I32, Op::Conv(ConvOp::Bitcast, r));
        let jk = b.c32(j as u32);
        let idx = b.bin(BinOp::IAdd, row, jk);
        let a = b.element(base, idx);
        b.store_global(a, ri);
    }
    let shader = b.finish();
    let xs: Vec<f32> = (0..THREADS).map(|i| 0.05 + i as f32 * 0.37).collect();
    let mut mem: Vec<u32> = xs.iter().map(|v| v.to_bits()).collect();
    mem.resize((THREADS + THREADS * n) as usize, 0);
    let out = run(&shader, GPR_HALVES, 32, THREADS / 32, &mem);
    let mut bad = Vec::new();
    for (t, &x) in xs.iter().enumerate() {
        for (j, (op, cpu, tol)) in cases.iter().enumerate() {
            let got = f32::from_bits(out[THREADS as usize + t * n as usize + j]);
            let want = cpu(x);
            if (got - want).abs() > tol * want.abs().max(1.0) {
                bad.push(format!("{op:?}({x}) = {got}, want {want}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} wrong, e.g.\n{}",
        bad.len(),
        bad[..bad.len().min(12)].join("\n")
    );
}

#[test]
fn shared_memory_scratch_and_atomics() {
    // shared[lid] = lid * 3; barrier; v = shared[(lid + 1) % 32];
    // scratch[lid % 4] = v; w = scratch[lid % 4] + 1;
    // old = atomic_add(counter, 1); out[lid] = w; out2[lid] = old;
    // cmpxchg(cell, 0 -> lid + 100) elects one thread.
    let mut b = Build::new();
    b.shader.shared_size = 128;
    b.shader.scratch_size = 16;
    let base = b.set0();
    let lid = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let two = b.c32(2);
    let off = b.bin(BinOp::Shl, lid, two);
    let three = b.c32(3);
    let v3 = b.bin(BinOp::IMul, lid, three);
    b.effect(Op::Store {
        space: ir::Space::Shared,
        addr: off,
        value: v3,
        align: 4,
    });
    b.effect(Op::WorkgroupBarrier);
    let one = b.c32(1);
    let next = b.bin(BinOp::IAdd, lid, one);
    let k31 = b.c32(31);
    let next = b.bin(BinOp::And, next, k31);
    let noff = b.bin(BinOp::Shl, next, two);
    let v = b.op(
        Type::I32,
        Op::Load {
            space: ir::Space::Shared,
            addr: noff,
            align: 4,
        },
    );
    let k3 = b.c32(3);
    let slot = b.bin(BinOp::And, lid, k3);
    let soff = b.bin(BinOp::Shl, slot, two);
    b.effect(Op::Store {
        space: ir::Space::Scratch,
        addr: soff,
        value: v,
        align: 4,
    });
    let back = b.op(
        Type::I32,
        Op::Load {
            space: ir::Space::Scratch,
            addr: soff,
            align: 4,
        },
    );
    let w = b.bin(BinOp::IAdd, back, one);
    let k64 = b.c32(64);
    let counter = b.element(base, k64);
    let old = b.op(
        Type::I32,
        Op::Atomic {
            space: ir::Space::Global,
            op: ir::AtomicOp::Add,
            addr: counter,
            value: one,
            cmp: None,
        },
    );
    let k65 = b.c32(65);
    let cell = b.element(base, k65);
    let k100 = b.c32(100);
    let mine = b.bin(BinOp::IAdd, lid, k100);
    let zero = b.c32(0);
    let _ = b.op(
        Type::I32,
        Op::Atomic {
            space: ir::Space::Global,
            op: ir::AtomicOp::CompareExchange,
            addr: cell,
            value: mine,
            cmp: Some(zero),
        },
    );
    let a = b.element(base, lid);
    b.store_global(a, w);
    let k32 = b.c32(32);
    let i2 = b.bin(BinOp::IAdd, lid, k32);
    let a2 = b.element(base, i2);
    b.store_global(a2, old);
    let shader = b.finish();
    let out = run(&shader, GPR_HALVES, 32, 1, &[0; 66]);
    for l in 0..32u32 {
        assert_eq!(out[l as usize], ((l + 1) % 32) * 3 + 1, "thread {l}");
    }
    let mut olds: Vec<u32> = out[32..64].to_vec();
    olds.sort();
    assert_eq!(olds, (0..32).collect::<Vec<_>>(), "atomic add results");
    assert_eq!(out[64], 32);
    assert!(
        (100..132).contains(&out[65]),
        "compare-exchange winner {}",
        out[65]
    );
}

#[test]
fn addressing_forms_match_the_cpu() {
    let mut b = Build::new();
    let base = b.set0();
    let lid = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let wide = |b: &mut Build, op: ConvOp, x: Value| b.op(Type::I64, Op::Conv(op, x));
    let add64 = |b: &mut Build, x: Value, y: Value| b.op(Type::I64, Op::Binary(BinOp::IAdd, x, y));
    let out_at = |b: &mut Build, k: u32, v: Value, lid: Value, base: Value| {
        let row = b.c32(64 + 32 * k);
        let i = b.bin(BinOp::IAdd, row, lid);
        let a = b.element(base, i);
        b.store_global(a, v);
    };
    // A: base + (lid << 2): folded into a register index.
    let a = b.element(base, lid);
    let va = b.load_global(a);
    out_at(&mut b, 0, va, lid, base);
    // B: base + 32: an immediate index.
    let k = b.c32(32);
    let kw = wide(&mut b, ConvOp::UToU, k);
    let ab = add64(&mut b, base, kw);
    let vb = b.load_global(ab);
    out_at(&mut b, 1, vb, lid, base);
    // C: an offset not provably a multiple of 4: the address is computed in full.
    let l2 = b.bin(BinOp::IAdd, lid, lid);
    let l4 = b.bin(BinOp::IAdd, l2, l2);
    let cw = wide(&mut b, ConvOp::UToU, l4);
    let ac = add64(&mut b, cw, base);
    let vc = b.load_global(ac);
    out_at(&mut b, 2, vc, lid, base);
    // D: a signed offset, negative for some threads, from a base 64 bytes in.
    let sixty_four = b.c32(64);
    let s64 = wide(&mut b, ConvOp::UToU, sixty_four);
    let mid = add64(&mut b, base, s64);
    let two = b.c32(2);
    let m = b.c32(16);
    let rel = b.bin(BinOp::ISub, lid, m);
    let relb = b.bin(BinOp::Shl, rel, two);
    let dw = wide(&mut b, ConvOp::SToS, relb);
    let ad = add64(&mut b, mid, dw);
    let vd = b.load_global(ad);
    out_at(&mut b, 3, vd, lid, base);
    // E: a 64-bit address loaded from memory (as a descriptor's address word is).
    let k = b.c32(32 * 4);
    let kw = wide(&mut b, ConvOp::UToU, k);
    let ap = add64(&mut b, base, kw);
    let ptr = b.op(
        Type::I64,
        Op::Load {
            space: ir::Space::Global,
            addr: ap,
            align: 8,
        },
    );
    let ae = b.element(ptr, lid);
    let ve = b.load_global(ae);
    out_at(&mut b, 4, ve, lid, base);
    let shader = b.finish();

    let v = isel::select(&shader).unwrap();
    let indexed = v
        .items
        .iter()
        .filter(|i| matches!(i, Item::Op(Instr::DeviceMem(m)) if m.index != hw::isa::Index::Imm(0)))
        .count();
    assert!(indexed >= 8, "only {indexed} accesses use an index");

    let mut mem: Vec<u32> = (0..32).map(|i| i * 7 + 1).collect();
    mem.push(VA as u32 + 4 * 8);
    mem.push((VA >> 32) as u32);
    mem.resize(64 + 32 * 5, 0);
    for budget in [GPR_HALVES, 16] {
        let out = run(&shader, budget, 32, 1, &mem);
        for l in 0..32usize {
            let d = |i: usize| i as u32 * 7 + 1;
            assert_eq!(out[64 + l], d(l), "A, lane {l}");
            assert_eq!(out[96 + l], d(8), "B, lane {l}");
            assert_eq!(out[128 + l], d(l), "C, lane {l}");
            assert_eq!(out[160 + l], d(l), "D, lane {l}");
            assert_eq!(out[192 + l], mem[l + 8], "E, lane {l}");
        }
    }
}

/// `bytes` of memory at VA for a shader of two storage buffers: set 0 holds their
/// descriptors, `a` (sizes `a_size`, 32 hashed words) at byte 0x100 and `o` (`o_size`,
/// zeros) at byte 0x200.
fn two_buffers(a_size: u32, o_size: u32, bytes: usize) -> Vec<u32> {
    let a_addr = VA + 0x100;
    let o_addr = VA + 0x200;
    let mut mem = vec![0u32; bytes / 4];
    mem[0] = a_addr as u32;
    mem[1] = (a_addr >> 32) as u32;
    mem[2] = a_size;
    mem[4] = o_addr as u32;
    mem[5] = (o_addr >> 32) as u32;
    mem[6] = o_size;
    for k in 0..32u32 {
        mem[0x40 + k as usize] = k.wrapping_mul(0x0101_0107) ^ 0x5a5a;
    }
    mem
}

#[test]
fn glsl_shader_gives_the_same_results_when_spilling() {
    let Some(s) = super::tests::lowered(super::tests::GLSL_PRESSURE, 2) else {
        return;
    };
    let mem = two_buffers(32 * 4, 32 * 4, 0x300);
    let reference = run(&s, GPR_HALVES, 32, 1, &mem);
    assert_ne!(
        &reference[0x80..0xa0],
        &[0u32; 32][..],
        "the shader wrote nothing"
    );
    for budget in [32, 24, 16] {
        assert_eq!(run(&s, budget, 32, 1, &mem), reference, "budget {budget}");
    }
}

#[test]
fn wide_registers_give_the_same_results_when_spilling() {
    let Some(s) = super::tests::lowered(super::tests::GLSL_VEC4_PRESSURE, 2) else {
        return;
    };
    let mem = two_buffers(8 * 16, 32 * 16, 0x400);
    // The CPU's answer, from the source's arithmetic.
    let a = |k: u32| -> [u32; 4] {
        let w = |j: u32| mem[0x40 + (4 * (k & 7) + j) as usize];
        [w(0), w(1), w(2), w(3)]
    };
    let op = |f: &dyn Fn(usize) -> u32| -> [u32; 4] { [f(0), f(1), f(2), f(3)] };
    for i in 0..32u32 {
        let v: Vec<[u32; 4]> = (0..6).map(|k| a(i + k)).collect();
        let mut acc = [i; 4];
        for r in 0..(i & 3) + 2 {
            let t = op(&|c| {
                v[0][c]
                    .wrapping_mul(v[1][c])
                    .wrapping_add(v[2][c] ^ v[3][c])
                    .wrapping_sub(v[4][c].wrapping_mul(r))
                    .wrapping_add(v[5][c])
            });
            let sum = op(&|c| acc[c].wrapping_add(t[c]));
            acc = [sum[1], sum[2], sum[3], sum[0]];
        }
        let want = op(&|c| acc[c].wrapping_add(v[0][c]));
        let got = run(&s, GPR_HALVES, 32, 1, &mem);
        let at = 0x80 + 4 * i as usize;
        assert_eq!(&got[at..at + 4], &want, "thread {i}");
    }
    let reference = run(&s, GPR_HALVES, 32, 1, &mem);
    for budget in [48, 32, 24, 16] {
        assert_eq!(run(&s, budget, 32, 1, &mem), reference, "budget {budget}");
    }
}

#[test]
fn swapped_variables_compute_the_same_results() {
    let want: Vec<u32> = (0..32u32)
        .map(|x| {
            let (mut a, mut b) = (x, x + 100);
            for _ in 0..5 {
                (a, b) = (b, a + 1);
            }
            a.wrapping_mul(1000).wrapping_add(b)
        })
        .collect();
    for budget in [GPR_HALVES, 16, 12, 10] {
        assert_eq!(
            run(&swap_shader(), budget, 32, 1, &[0; 32]),
            want,
            "budget {budget}"
        );
    }
}

#[test]
fn hoisted_constants_compute_the_same_results() {
    let want: Vec<u32> = (0..32u32)
        .map(|x| {
            (0..6).fold(x, |h, _| {
                h.wrapping_mul(1_664_525).wrapping_add(1_013_904_223)
            })
        })
        .collect();
    for budget in [GPR_HALVES, 12, 8] {
        assert_eq!(
            run(&lcg_shader(), budget, 32, 1, &[0; 32]),
            want,
            "budget {budget}"
        );
    }
}

/// atan2 of operands of 2^126 and more: the reciprocal of the larger magnitude would be
/// denormal, which G13 flushes to zero, so the lowering scales both first. The pairs are
/// samples dEQP-VK.glsl.builtin.precision.atan2.highp.vec2 failed on before it did.
#[test]
fn atan2_of_huge_operands_keeps_its_quotient() {
    let pairs: [(u32, u32); 8] = [
        (0x6688_b371, 0x7eed_b80a),
        (0xff0a_81cd, 0x7f7c_9e40),
        (0x57dd_45f4, 0x7ec8_535a),
        (0xc07f_5c57, 0x7e94_b0d2),
        (0x5380_0001, 0x7f02_d1fe),
        (0x7eed_b80a, 0xb111_003f),
        (0x7727_d3d6, 0xff61_835a),
        (0x3f80_0000, 0x4000_0000),
    ];
    const N: u32 = 32;
    let mut b = Build::new();
    let base = b.set0();
    let g = gid(&mut b);
    let ay = b.element(base, g);
    let yi = b.load_global(ay);
    let y = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, yi));
    let n = b.c32(N);
    let gx = b.bin(BinOp::IAdd, g, n);
    let ax = b.element(base, gx);
    let xi = b.load_global(ax);
    let x = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, xi));
    let r = b.op(Type::F32, Op::Binary(BinOp::FAtan2, y, x));
    let ri = b.op(Type::I32, Op::Conv(ConvOp::Bitcast, r));
    let n2 = b.c32(2 * N);
    let go = b.bin(BinOp::IAdd, g, n2);
    let ao = b.element(base, go);
    b.store_global(ao, ri);
    let mut shader = b.finish();
    crate::passes::lower_float(&mut shader).expect("lower");
    let mut mem = vec![1.0f32.to_bits(); 3 * N as usize];
    for (i, &(y, x)) in pairs.iter().enumerate() {
        mem[i] = y;
        mem[N as usize + i] = x;
    }
    let out = run(&shader, GPR_HALVES, N, 1, &mem);
    for (i, &(y, x)) in pairs.iter().enumerate() {
        let (y, x) = (f32::from_bits(y), f32::from_bits(x));
        let want = f64::from(y).atan2(f64::from(x));
        let got = f64::from(f32::from_bits(out[2 * N as usize + i]));
        // The polynomial's error: about 1e-5 radians, relative for small angles.
        assert!(
            (got - want).abs() <= 2e-5 * want.abs().min(1.0),
            "atan2({y:e}, {x:e}) = {got:e}, want {want:e}"
        );
    }
}
