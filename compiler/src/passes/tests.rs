//! Each pass on small hand-built IR, checked structurally and by running it in the
//! interpreter against values computed here.

use crate::abi;
use crate::ir::interp::{self, Dispatch, Regions};
use crate::ir::validate::{backend_form, validate};
use crate::ir::{
    AtomicOp, BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Scalar, Shader, Space, SysVal, Type,
    UnOp, Value,
};
use crate::ResourceLayout;

/// A shader under construction: instructions go to `cur` until `flush`.
struct B {
    sh: Shader,
    cur: Vec<Inst>,
}

impl B {
    fn new() -> B {
        B {
            sh: Shader {
                local_size: [1, 1, 1],
                shared_size: 0,
                scratch_size: 0,
                value_types: vec![],
                var_types: vec![],
                body: vec![],
                contract: false,
                offsets_in_range: false,
                read_only_buffers: Default::default(),
            },
            cur: vec![],
        }
    }
    fn op(&mut self, t: Type, op: Op) -> Value {
        let v = self.sh.new_value(t);
        self.cur.push(Inst { dst: Some(v), op });
        v
    }
    fn eff(&mut self, op: Op) {
        self.cur.push(Inst { dst: None, op });
    }
    fn c(&mut self, x: u32) -> Value {
        self.op(Type::I32, Op::Const(Constant(vec![x as u64])))
    }
    fn f(&mut self, x: f32) -> Value {
        self.op(Type::F32, Op::Const(Constant(vec![x.to_bits() as u64])))
    }
    fn block(&mut self) -> Node {
        Node::Block(std::mem::take(&mut self.cur))
    }
    /// Root input word k (push constants).
    fn input(&mut self, k: u32) -> Value {
        let a = self.c(abi::PUSH_CONSTANTS_OFFSET + 4 * k);
        self.op(
            Type::I32,
            Op::Load {
                space: Space::Root,
                addr: a,
                align: 4,
            },
        )
    }
    /// Stores `v` to output word k of the buffer whose address is at root offset 0.
    fn output(&mut self, k: u32, v: Value) {
        let z = self.c(0);
        let base = self.op(
            Type::I64,
            Op::Load {
                space: Space::Root,
                addr: z,
                align: 8,
            },
        );
        let o = self.c(4 * k);
        let o64 = self.op(Type::I64, Op::Conv(ConvOp::UToU, o));
        let a = self.op(Type::I64, Op::Binary(BinOp::IAdd, base, o64));
        self.eff(Op::Store {
            space: Space::Global,
            addr: a,
            value: v,
            align: 4,
        });
    }
    fn finish(mut self) -> Shader {
        if !self.cur.is_empty() {
            let b = self.block();
            self.sh.body.push(b);
        }
        self.sh
    }
}

const OUT: u64 = 0x1000;

/// Runs with the given input words; returns `n` output words.
fn run(sh: &Shader, inputs: &[u32], n: usize, groups: [u32; 3]) -> Vec<u32> {
    let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
    root[0..8].copy_from_slice(&OUT.to_le_bytes());
    for (k, x) in inputs.iter().enumerate() {
        let o = abi::PUSH_CONSTANTS_OFFSET as usize + 4 * k;
        root[o..o + 4].copy_from_slice(&x.to_le_bytes());
    }
    let mut mem = Regions::default();
    mem.add(OUT, vec![0; 4 * n]);
    let layout = ResourceLayout::default();
    let d = Dispatch {
        workgroups: groups,
        root: &root,
        layout: &layout,
        step_limit: 10_000_000,
    };
    interp::run(sh, &d, &mut mem)
        .unwrap_or_else(|e| panic!("{e}\n{}", crate::ir::print::print(sh)));
    mem.bytes(OUT)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn count(sh: &Shader, pred: &dyn Fn(&Op) -> bool) -> usize {
    let mut n = 0;
    super::for_each_inst(&sh.body, &mut |i| {
        if pred(&i.op) {
            n += 1;
        }
    });
    n
}

#[test]
fn const_fold_folds_and_takes_constant_branches() {
    let mut b = B::new();
    let x = b.c(20);
    let y = b.c(6);
    let s = b.op(Type::I32, Op::Binary(BinOp::ISub, x, y));
    let q = b.op(Type::I32, Op::Binary(BinOp::UDiv, s, y));
    let c = b.op(Type::BOOL, Op::Cmp(CmpOp::UGt, q, y));
    b.output(0, q);
    let n = b.block();
    b.sh.body.push(n);
    let seven = b.c(7);
    b.output(1, seven);
    let then_body = vec![b.block()];
    let nine = b.c(9);
    b.output(1, nine);
    let else_body = vec![b.block()];
    b.sh.body.push(Node::If {
        cond: c,
        then_body,
        else_body,
    });
    let mut sh = b.finish();
    super::const_fold(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert!(
        !sh.body.iter().any(|n| matches!(n, Node::If { .. })),
        "the If on a constant stays"
    );
    assert_eq!(
        count(&sh, &|op| matches!(
            op,
            Op::Binary(BinOp::UDiv | BinOp::ISub, ..)
        )),
        0
    );
    assert_eq!(run(&sh, &[], 2, [1, 1, 1]), vec![2, 9]);
}

#[test]
fn copy_prop_and_dce() {
    let mut b = B::new();
    let x = b.input(0);
    let c1 = b.op(Type::I32, Op::Copy(x));
    let c2 = b.op(Type::I32, Op::Copy(c1));
    let _dead = b.op(Type::I32, Op::Binary(BinOp::IMul, c2, c2));
    let var = b.sh.new_var(Type::I32);
    b.eff(Op::StoreVar(var, c2));
    b.output(0, c2);
    let mut sh = b.finish();
    super::copy_prop(&mut sh).unwrap();
    super::dce(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!(
        count(&sh, &|op| matches!(
            op,
            Op::Copy(_) | Op::Binary(BinOp::IMul, ..) | Op::StoreVar(..)
        )),
        0
    );
    assert_eq!(run(&sh, &[42], 1, [1, 1, 1]), vec![42]);
}

#[test]
fn cse_merges_within_scope_only() {
    let mut b = B::new();
    let x = b.input(0);
    let y = b.input(1);
    let a1 = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, y));
    let a2 = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, y));
    let s = b.op(Type::I32, Op::Binary(BinOp::IMul, a1, a2));
    b.output(0, s);
    let c = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, y));
    let n = b.block();
    b.sh.body.push(n);
    let m1 = b.op(Type::I32, Op::Binary(BinOp::ISub, y, x));
    b.output(1, m1);
    let then_body = vec![b.block()];
    let m2 = b.op(Type::I32, Op::Binary(BinOp::ISub, y, x));
    b.output(2, m2);
    let else_body = vec![b.block()];
    b.sh.body.push(Node::If {
        cond: c,
        then_body,
        else_body,
    });
    let mut sh = b.finish();
    super::cse(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!(
        count(
            &sh,
            &|op| matches!(op, Op::Binary(BinOp::IAdd, a, b) if *a == x && *b == y)
        ),
        1
    );
    // The two ISubs sit in different arms: neither dominates the other.
    assert_eq!(
        count(&sh, &|op| matches!(op, Op::Binary(BinOp::ISub, ..))),
        2
    );
    assert_eq!(run(&sh, &[3, 5], 3, [1, 1, 1]), vec![64, 2, 0]);
}

#[test]
fn algebraic_identities_and_strength_reduction() {
    let mut b = B::new();
    let x = b.input(0);
    let zero = b.c(0);
    let one = b.c(1);
    let eight = b.c(8);
    let a = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, zero));
    let m = b.op(Type::I32, Op::Binary(BinOp::IMul, a, one));
    let z = b.op(Type::I32, Op::Binary(BinOp::IMul, m, zero));
    let s = b.op(Type::I32, Op::Binary(BinOp::IMul, m, eight));
    let d = b.op(Type::I32, Op::Binary(BinOp::UDiv, x, eight));
    let r = b.op(Type::I32, Op::Binary(BinOp::UMod, x, eight));
    let sh0 = b.op(Type::I32, Op::Binary(BinOp::Shl, m, zero));
    let fm = b.op(Type::I32, Op::Binary(BinOp::SMod, x, eight));
    let never = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, zero));
    let picked = b.op(Type::I32, Op::Select(never, one, eight));
    // ((x & 3) << 2) + 96 is within [96, 108]: neither clamp clamps.
    let three = b.c(3);
    let two = b.c(2);
    let c96 = b.c(96);
    let c220 = b.c(220);
    let lane = b.op(Type::I32, Op::Binary(BinOp::And, x, three));
    let word = b.op(Type::I32, Op::Binary(BinOp::Shl, lane, two));
    let off = b.op(Type::I32, Op::Binary(BinOp::IAdd, word, c96));
    let below = b.op(Type::I32, Op::Binary(BinOp::UMin, off, c220));
    let clamped = b.op(Type::I32, Op::Binary(BinOp::UMax, below, c96));
    for (k, v) in [m, z, s, d, r, sh0, fm, picked, clamped]
        .into_iter()
        .enumerate()
    {
        b.output(k as u32, v);
    }
    let mut sh = b.finish();
    // Twice: the select's condition becomes a constant in the first.
    for _ in 0..2 {
        super::algebraic(&mut sh).unwrap();
        super::copy_prop(&mut sh).unwrap();
    }
    super::dce(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!(
        count(&sh, &|op| matches!(
            op,
            Op::Binary(
                BinOp::IMul | BinOp::UDiv | BinOp::UMod | BinOp::SMod | BinOp::UMin | BinOp::UMax,
                ..
            ) | Op::Cmp(..)
                | Op::Select(..)
        )),
        0
    );
    assert_eq!(
        count(
            &sh,
            &|op| matches!(op, Op::Binary(BinOp::IAdd, a, _) if *a == x)
        ),
        0,
        "x + 0 stays"
    );
    for x in [1234567u32, (-1234567i32) as u32, (-8i32) as u32, 0] {
        assert_eq!(
            run(&sh, &[x], 9, [1, 1, 1]),
            vec![
                x,
                0,
                x.wrapping_mul(8),
                x / 8,
                x % 8,
                x,
                (x as i32).rem_euclid(8) as u32,
                8,
                ((x & 3) << 2) + 96,
            ]
        );
    }
}

/// `x * y + z` in F32, with the product used `uses` times.
fn multiply_add(contract: bool, product_uses: u32) -> Shader {
    let mut b = B::new();
    b.sh.contract = contract;
    let words: Vec<Value> = (0..3).map(|k| b.input(k)).collect();
    let f: Vec<Value> = words
        .iter()
        .map(|&w| b.op(Type::F32, Op::Conv(ConvOp::Bitcast, w)))
        .collect();
    let p = b.op(Type::F32, Op::Binary(BinOp::FMul, f[0], f[1]));
    let s = b.op(Type::F32, Op::Binary(BinOp::FAdd, f[2], p));
    b.output(0, s);
    for k in 1..product_uses {
        b.output(k, p);
    }
    b.finish()
}

#[test]
fn fuse_ffma_contracts_single_use_products_when_allowed() {
    let muls = |sh: &Shader| count(sh, &|op| matches!(op, Op::Binary(BinOp::FMul, ..)));
    let fmas = |sh: &Shader| count(sh, &|op| matches!(op, Op::FFma(..)));
    // (1 + 2^-12) squared is 1 + 2^-11 + 2^-24: one rounding keeps the 2^-24, two lose it.
    let x = f32::from_bits(0x3f80_0800);
    let inputs = [x.to_bits(), x.to_bits(), (-1.0f32).to_bits()];
    let unfused = (x * x + -1.0f32).to_bits();
    let fused = x.mul_add(x, -1.0).to_bits();
    assert_ne!(fused, unfused);

    let mut sh = multiply_add(true, 1);
    super::fuse_ffma(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!((muls(&sh), fmas(&sh)), (0, 1));
    assert_eq!(run(&sh, &inputs, 1, [1, 1, 1]), vec![fused]);

    // NoContraction in the module: every operation rounds.
    let mut sh = multiply_add(false, 1);
    super::fuse_ffma(&mut sh).unwrap();
    assert_eq!((muls(&sh), fmas(&sh)), (1, 0));
    assert_eq!(run(&sh, &inputs, 1, [1, 1, 1]), vec![unfused]);

    // A product used elsewhere too stays, so fusing would save nothing.
    let mut sh = multiply_add(true, 2);
    super::fuse_ffma(&mut sh).unwrap();
    assert_eq!((muls(&sh), fmas(&sh)), (1, 0));
}

#[test]
fn promote_vars_single_store_and_block_local() {
    let mut b = B::new();
    let x = b.input(0);
    let v1 = b.sh.new_var(Type::I32);
    let v2 = b.sh.new_var(Type::I32);
    let acc = b.sh.new_var(Type::I32);
    b.eff(Op::StoreVar(v1, x));
    let zero = b.c(0);
    b.eff(Op::StoreVar(acc, zero));
    let n = b.block();
    b.sh.body.push(n);
    // Loop: acc += v1 three times; v2 is block-local scratch.
    let i = b.sh.new_var(Type::I32);
    b.cur.push(Inst {
        dst: None,
        op: Op::StoreVar(i, zero),
    });
    let n = b.block();
    b.sh.body.push(n);
    let l1 = b.op(Type::I32, Op::LoadVar(v1));
    b.eff(Op::StoreVar(v2, l1));
    let l2 = b.op(Type::I32, Op::LoadVar(v2));
    let a = b.op(Type::I32, Op::LoadVar(acc));
    let s = b.op(Type::I32, Op::Binary(BinOp::IAdd, a, l2));
    b.eff(Op::StoreVar(acc, s));
    let iv = b.op(Type::I32, Op::LoadVar(i));
    let one = b.c(1);
    let i2 = b.op(Type::I32, Op::Binary(BinOp::IAdd, iv, one));
    b.eff(Op::StoreVar(i, i2));
    let three = b.c(3);
    let done = b.op(Type::BOOL, Op::Cmp(CmpOp::UGe, i2, three));
    let body_block = b.block();
    b.sh.body.push(Node::Loop {
        body: vec![
            body_block,
            Node::If {
                cond: done,
                then_body: vec![Node::Break],
                else_body: vec![],
            },
        ],
    });
    let r = b.op(Type::I32, Op::LoadVar(acc));
    b.output(0, r);
    let mut sh = b.finish();
    let before = run(&sh, &[11], 1, [1, 1, 1]);
    super::promote_vars(&mut sh).unwrap();
    super::dce(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!(before, vec![33]);
    assert_eq!(run(&sh, &[11], 1, [1, 1, 1]), vec![33]);
    let loads = |var| count(&sh, &move |op| matches!(op, Op::LoadVar(v) if *v == var));
    assert_eq!(loads(v1), 0, "single dominating store promotes");
    assert_eq!(loads(v2), 0, "block-local var promotes");
    assert!(loads(acc) > 0, "loop-carried var stays");
}

#[test]
fn scalarize_vectors_and_memory() {
    let mut b = B::new();
    let x = b.input(0);
    let y = b.input(1);
    let v = b.op(Type::vec(Scalar::I32, 3), Op::Vector(vec![x, y, x]));
    let k = b.op(
        Type::vec(Scalar::I32, 3),
        Op::Const(Constant(vec![1, 2, 3])),
    );
    let s = b.op(Type::vec(Scalar::I32, 3), Op::Binary(BinOp::IMul, v, k));
    let var = b.sh.new_var(Type::vec(Scalar::I32, 3));
    b.eff(Op::StoreVar(var, s));
    let l = b.op(Type::vec(Scalar::I32, 3), Op::LoadVar(var));
    let ins = b.op(Type::vec(Scalar::I32, 3), Op::Insert(l, 1, x));
    let z = b.c(0);
    let base = b.op(
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: z,
            align: 8,
        },
    );
    b.eff(Op::Store {
        space: Space::Global,
        addr: base,
        value: ins,
        align: 16,
    });
    let back = b.op(
        Type::vec(Scalar::I32, 3),
        Op::Load {
            space: Space::Global,
            addr: base,
            align: 16,
        },
    );
    let e = b.op(Type::I32, Op::Extract(back, 2));
    let twelve = b.c(12);
    let o = b.op(Type::I64, Op::Conv(ConvOp::UToU, twelve));
    let a = b.op(Type::I64, Op::Binary(BinOp::IAdd, base, o));
    b.eff(Op::Store {
        space: Space::Global,
        addr: a,
        value: e,
        align: 4,
    });
    let mut sh = b.finish();
    validate(&sh).unwrap();
    let before = run(&sh, &[5, 7], 4, [1, 1, 1]);
    super::scalarize(&mut sh).unwrap();
    super::copy_prop(&mut sh).unwrap();
    validate(&sh).unwrap();
    let mut all_scalar = true;
    super::for_each_inst(&sh.body, &mut |i| {
        if i.dst.is_some_and(|d| sh.ty(d).lanes > 1) {
            all_scalar = false;
        }
    });
    assert!(all_scalar);
    let aligns: Vec<u32> = {
        let mut v = vec![];
        super::for_each_inst(&sh.body, &mut |i| {
            if let Op::Store { align, .. } = i.op {
                v.push(align)
            }
        });
        v
    };
    assert_eq!(&aligns[..3], &[16, 4, 8]);
    assert_eq!(before, vec![5, 5, 15, 15]);
    assert_eq!(run(&sh, &[5, 7], 4, [1, 1, 1]), vec![5, 5, 15, 15]);
}

/// UDiv, UMod, SDiv, SRem and SMod of `x` by `y` (not 0), as SPIR-V defines them.
fn divisions(x: u32, y: u32) -> [u32; 5] {
    let (sx, sy) = (x as i32, y as i32);
    let srem = sx.wrapping_rem(sy);
    // SMod takes the divisor's sign.
    let smod = if srem != 0 && (srem < 0) != (sy < 0) {
        srem.wrapping_add(sy)
    } else {
        srem
    };
    [
        x / y,
        x % y,
        sx.wrapping_div(sy) as u32,
        srem as u32,
        smod as u32,
    ]
}

fn division_shader(ops: &[BinOp]) -> Shader {
    let mut b = B::new();
    let x = b.input(0);
    let y = b.input(1);
    for (k, op) in ops.iter().enumerate() {
        let r = b.op(Type::I32, Op::Binary(*op, x, y));
        b.output(k as u32, r);
    }
    let a = b.op(Type::I32, Op::Unary(UnOp::IAbs, x));
    b.output(ops.len() as u32, a);
    let s = b.op(Type::I32, Op::Unary(UnOp::ISign, x));
    b.output(ops.len() as u32 + 1, s);
    // The signed operations again on |x| and |y| (which the lowering need not take the
    // absolute value of twice; |INT_MIN| stays INT_MIN).
    let ay = b.op(Type::I32, Op::Unary(UnOp::IAbs, y));
    for (k, op) in [BinOp::SDiv, BinOp::SRem, BinOp::SMod].iter().enumerate() {
        let r = b.op(Type::I32, Op::Binary(*op, a, ay));
        b.output(ops.len() as u32 + 2 + k as u32, r);
    }
    b.finish()
}

#[test]
fn lower_int_div_is_exact() {
    let ops = [
        BinOp::UDiv,
        BinOp::UMod,
        BinOp::SDiv,
        BinOp::SRem,
        BinOp::SMod,
    ];
    let mut sh = division_shader(&ops);
    super::lower_int_div(&mut sh).unwrap();
    super::copy_prop(&mut sh).unwrap();
    backend_form(&sh).unwrap();
    let mut cases: Vec<(u32, u32)> = vec![
        (0, 1),
        (u32::MAX, 1),
        (u32::MAX, u32::MAX),
        (u32::MAX, 2),
        (u32::MAX - 1, u32::MAX),
        (0x8000_0000, u32::MAX),
        (0x8000_0000, 0x8000_0000),
        (7, 0x8000_0001),
        (1_000_000_007, 3),
        (12345, 12346),
        (0xffff_fffe, 0xffff_ffff),
        (0x7fff_ffff, 0x7fff_ffff),
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for k in 0..3000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let x = seed as u32;
        let y = match k % 4 {
            0 => (seed >> 32) as u32,
            1 => (seed >> 40) as u32,
            2 => (seed >> 56) as u32,
            _ => (seed >> 61) as u32 | 1,
        };
        if y != 0 {
            cases.push((x, y));
        }
    }
    for (x, y) in cases {
        let sx = x as i32;
        let mut e = divisions(x, y).to_vec();
        e.extend([sx.wrapping_abs() as u32, sx.signum() as u32]);
        let (ax, ay) = (sx.wrapping_abs() as u32, (y as i32).wrapping_abs() as u32);
        e.extend(&divisions(ax, ay)[2..]);
        assert_eq!(
            run(&sh, &[x, y], 10, [1, 1, 1]),
            e,
            "x = {x:#x}, y = {y:#x}"
        );
    }
}

/// Every division and remainder by constant divisors, lowered (magic reciprocals), against
/// Rust's, for dividends at the edges and random ones; and `magic` itself in exact arithmetic
/// for many more divisors.
#[test]
fn lower_int_div_by_constants_is_exact() {
    let divisors: Vec<u32> = [
        1,
        2,
        3,
        5,
        6,
        7,
        10,
        11,
        25,
        40,
        64,
        100,
        125,
        641,
        1000,
        6700417,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
        0xfffffff6,
        0xffff_ff9c,
    ]
    .to_vec();
    let ops = [
        BinOp::UDiv,
        BinOp::UMod,
        BinOp::SDiv,
        BinOp::SRem,
        BinOp::SMod,
    ];
    let mut dividends: Vec<u32> = vec![0, 1, 2, 39, 40, 41, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        dividends.push(seed as u32);
    }
    for &y in &divisors {
        let mut b = B::new();
        let x = b.input(0);
        let c = b.c(y);
        for (k, op) in ops.iter().enumerate() {
            let r = b.op(Type::I32, Op::Binary(*op, x, c));
            b.output(k as u32, r);
        }
        let mut sh = b.finish();
        super::lower_int_div(&mut sh).unwrap();
        super::copy_prop(&mut sh).unwrap();
        backend_form(&sh).unwrap();
        for &x in &dividends {
            let e = divisions(x, y).to_vec();
            assert_eq!(run(&sh, &[x], 5, [1, 1, 1]), e, "x = {x:#x}, y = {y:#x}");
        }
    }
    // The reciprocal alone, on the CPU: exact for the extreme dividends of every form.
    let apply = |n: u32, mg: super::lower_int_div::Magic| -> u32 {
        let t = ((u64::from(n) * u64::from(mg.m)) >> 32) as u32;
        let t = if mg.wide { ((n - t) >> 1) + t } else { t };
        t >> mg.shift
    };
    for d in (3u32..5000).chain((0..5000).map(|k| u32::MAX - k)) {
        if d.is_power_of_two() {
            continue;
        }
        let mg = super::lower_int_div::magic(d);
        for n in [
            u32::MAX,
            u32::MAX - 1,
            d - 1,
            d,
            d.saturating_add(1),
            (u32::MAX / d) * d - 1,
            (u32::MAX / d) * d,
        ] {
            assert_eq!(apply(n, mg), n / d, "n = {n}, d = {d}, {mg:?}");
        }
    }
}

#[test]
fn lower_float_accuracy() {
    let mut b = B::new();
    let x = b.input(0);
    let y = b.input(1);
    let xf = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, x));
    let yf = b.op(Type::F32, Op::Conv(ConvOp::Bitcast, y));
    let ops: Vec<Op> = vec![
        Op::Binary(BinOp::FDiv, xf, yf),
        Op::Binary(BinOp::FAtan2, xf, yf),
        Op::Unary(UnOp::FSqrt, xf),
        Op::Binary(BinOp::FPow, yf, xf),
        Op::Binary(BinOp::FMod, xf, yf),
        Op::Unary(UnOp::FSign, xf),
        Op::Unary(UnOp::FFract, xf),
    ];
    for (k, op) in ops.into_iter().enumerate() {
        let r = b.op(Type::F32, op);
        let ri = b.op(Type::I32, Op::Conv(ConvOp::Bitcast, r));
        b.output(k as u32, ri);
    }
    let mut sh = b.finish();
    super::lower_float(&mut sh).unwrap();
    super::copy_prop(&mut sh).unwrap();
    backend_form(&sh).unwrap();
    let ulps = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
    let xs = [
        0.0f32,
        1.0,
        -1.0,
        0.3,
        -2.5,
        7.75,
        1e-3,
        123456.0,
        -0.0,
        f32::INFINITY,
    ];
    let ys = [1.0f32, 3.0, -0.7, 2.0, 1e5, 0.125];
    for &x in &xs {
        for &y in &ys {
            let r: Vec<f32> = run(&sh, &[x.to_bits(), y.to_bits()], 7, [1, 1, 1])
                .into_iter()
                .map(f32::from_bits)
                .collect();
            if x.is_finite() {
                assert!(ulps(r[0], x / y) <= 2, "{x} / {y}: {} vs {}", r[0], x / y);
                assert!(
                    (r[1] - x.atan2(y)).abs() < 2e-5,
                    "atan2({x}, {y}): {} vs {}",
                    r[1],
                    x.atan2(y)
                );
                let m = x - y * (x / y).floor();
                assert!(
                    (r[4] - m).abs() <= 1e-4 * m.abs().max(1.0),
                    "mod({x}, {y}): {} vs {m}",
                    r[4]
                );
                assert_eq!(r[6], x - x.floor());
            }
            if x >= 0.0 {
                let s = x.sqrt();
                assert!(
                    ulps(r[2], s) <= 1 || r[2] == s,
                    "sqrt({x}): {} vs {s}",
                    r[2]
                );
            }
            if y > 0.0 && x.is_finite() && x.abs() < 10.0 {
                let p = y.powf(x);
                assert!(
                    r[3] == p || (r[3] - p).abs() <= 1e-5 * p.abs().max(1.0),
                    "pow({y}, {x}): {} vs {p}",
                    r[3]
                );
            }
            let sign = if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            };
            assert_eq!(r[5].to_bits(), sign.to_bits(), "sign({x})");
        }
    }
}

#[test]
fn lower_sysvals_global_id_includes_the_base() {
    let mut b = B::new();
    b.sh.local_size = [4, 2, 1];
    let gx = b.op(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(0)));
    let gy = b.op(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(1)));
    let ws = b.op(Type::I32, Op::SysVal(SysVal::WorkgroupSize(0)));
    let row = b.op(Type::I32, Op::Binary(BinOp::IMul, gy, ws));
    let row = b.op(Type::I32, Op::Binary(BinOp::IMul, row, ws));
    let idx = b.op(Type::I32, Op::Binary(BinOp::IAdd, row, gx));
    let four = b.c(4);
    let off = b.op(Type::I32, Op::Binary(BinOp::IMul, idx, four));
    let z = b.c(0);
    let base = b.op(
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: z,
            align: 8,
        },
    );
    let off64 = b.op(Type::I64, Op::Conv(ConvOp::UToU, off));
    let a = b.op(Type::I64, Op::Binary(BinOp::IAdd, base, off64));
    let one = b.c(1);
    let _ = b.op(
        Type::I32,
        Op::Atomic {
            space: Space::Global,
            op: AtomicOp::Add,
            addr: a,
            value: one,
            cmp: None,
        },
    );
    let mut sh = b.finish();
    super::lower_sysvals(&mut sh).unwrap();
    validate(&sh).unwrap();
    assert_eq!(
        count(&sh, &|op| matches!(
            op,
            Op::SysVal(SysVal::GlobalInvocationId(_) | SysVal::WorkgroupSize(_))
        )),
        0
    );
    // Base workgroup x = 1 through the root table; dispatch 1x2 workgroups of 4x2: rows of 16.
    let mut root_words = vec![0u32; (abi::PUSH_CONSTANTS_OFFSET / 4) as usize];
    root_words[(abi::BASE_WORKGROUP_OFFSET / 4) as usize] = 1;
    let mut root: Vec<u8> = root_words.iter().flat_map(|w| w.to_le_bytes()).collect();
    root.resize(abi::ROOT_TABLE_SIZE as usize, 0);
    root[0..8].copy_from_slice(&OUT.to_le_bytes());
    let mut mem = Regions::default();
    mem.add(OUT, vec![0; 4 * 64]);
    let layout = ResourceLayout::default();
    let d = Dispatch {
        workgroups: [1, 2, 1],
        root: &root,
        layout: &layout,
        step_limit: 100_000,
    };
    interp::run(&sh, &d, &mut mem).unwrap();
    let words: Vec<u32> = mem
        .bytes(OUT)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for y in 0..4usize {
        for x in 0..16usize {
            let expect = u32::from((4..8).contains(&x));
            assert_eq!(words[y * 16 + x], expect, "x {x} y {y}");
        }
    }
}

#[test]
fn validate_rejects_scoping_and_type_errors() {
    let mut b = B::new();
    let x = b.input(0);
    let c = b.op(Type::BOOL, Op::Cmp(CmpOp::IEq, x, x));
    let n = b.block();
    b.sh.body.push(n);
    let inner = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, x));
    let t = vec![b.block()];
    b.sh.body.push(Node::If {
        cond: c,
        then_body: t,
        else_body: vec![],
    });
    b.output(0, inner);
    let sh = b.finish();
    assert!(
        validate(&sh).is_err(),
        "a value defined in an If arm is not visible after it"
    );

    let mut b = B::new();
    let x = b.input(0);
    let f = b.f(1.0);
    let _ = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, f));
    assert!(validate(&b.finish()).is_err(), "operand types must agree");

    let mut b = B::new();
    b.sh.body.push(Node::Break);
    assert!(validate(&b.finish()).is_err(), "Break outside a loop");
}

#[test]
fn run_all_leaves_backend_form() {
    let mut b = B::new();
    b.sh.local_size = [2, 1, 1];
    let x = b.input(0);
    let y = b.input(1);
    let v = b.op(Type::vec(Scalar::I32, 2), Op::Vector(vec![x, y]));
    let w = b.op(Type::vec(Scalar::I32, 2), Op::Vector(vec![y, x]));
    let q = b.op(Type::vec(Scalar::I32, 2), Op::Binary(BinOp::SDiv, v, w));
    let q0 = b.op(Type::I32, Op::Extract(q, 0));
    let g = b.op(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(0)));
    let s = b.op(Type::I32, Op::Binary(BinOp::IAdd, q0, g));
    b.output(0, s);
    let mut sh = b.finish();
    let before = run(&sh, &[100, 7], 1, [1, 1, 1]);
    super::run_all(&mut sh, &ResourceLayout::default()).unwrap_err();
    // Device memory in this shader is not reached through a descriptor: lower_descriptors
    // refuses it, so build the same shader without the store for the form check.
    let mut b = B::new();
    let x = b.input(0);
    let y = b.input(1);
    let q = b.op(Type::I32, Op::Binary(BinOp::SDiv, x, y));
    let v = b.sh.new_var(Type::I32);
    b.eff(Op::StoreVar(v, q));
    let mut sh2 = b.finish();
    super::run_all(&mut sh2, &ResourceLayout::default()).unwrap();
    backend_form(&sh2).unwrap();
    assert_eq!(before, vec![14 + 1]);
}

#[test]
fn cse_forwards_vars_within_a_block() {
    let mut b = B::new();
    let x = b.input(0);
    let var = b.sh.new_var(Type::I32);
    let l0 = b.op(Type::I32, Op::LoadVar(var));
    let l1 = b.op(Type::I32, Op::LoadVar(var));
    let s = b.op(Type::I32, Op::Binary(BinOp::IAdd, l0, l1));
    b.eff(Op::StoreVar(var, x));
    let l2 = b.op(Type::I32, Op::LoadVar(var));
    let t = b.op(Type::I32, Op::Binary(BinOp::IAdd, s, l2));
    b.output(0, t);
    let mut sh = b.finish();
    super::cse(&mut sh).unwrap();
    validate(&sh).unwrap();
    // One load before the store remains; the load after it reads the stored value.
    assert_eq!(count(&sh, &|op| matches!(op, Op::LoadVar(_))), 1);
    assert_eq!(run(&sh, &[9], 1, [1, 1, 1]), vec![9]);
}

#[test]
fn lower_sysvals_reads_draw_parameters_from_the_root_table() {
    let mut b = B::new();
    for sv in [SysVal::BaseVertex, SysVal::BaseInstance, SysVal::DrawIndex] {
        let _ = b.op(Type::I32, Op::SysVal(sv));
    }
    let mut sh = b.finish();
    super::lower_sysvals(&mut sh).unwrap();
    assert_eq!(count(&sh, &|op| matches!(op, Op::SysVal(_))), 0);
    // Each value is a 32-bit root load of its constant offset.
    let mut consts = std::collections::HashMap::new();
    let mut offsets = Vec::new();
    super::for_each_inst(&sh.body, &mut |i| match &i.op {
        Op::Const(c) => {
            consts.insert(i.dst.unwrap(), c.0[0]);
        }
        Op::Load {
            space: Space::Root,
            addr,
            ..
        } => offsets.push(consts[addr] as u32),
        _ => {}
    });
    assert_eq!(
        offsets,
        [
            abi::BASE_VERTEX_OFFSET,
            abi::FIRST_INSTANCE_OFFSET,
            abi::DRAW_INDEX_OFFSET
        ]
    );
}

#[test]
fn clamp_point_size_bounds_the_written_size() {
    let mut b = B::new();
    let v = b.op(
        Type::F32,
        Op::Const(Constant(vec![u64::from(9000f32.to_bits())])),
    );
    b.cur.push(Inst {
        dst: None,
        op: Op::StoreBuiltin {
            builtin: crate::ir::OutputBuiltin::PointSize,
            component: 0,
            value: v,
        },
    });
    let mut sh = b.finish();
    super::clamp_point_size(&mut sh, 1.0, 511.9375).unwrap();
    super::const_fold(&mut sh).unwrap();
    let mut stored = None;
    super::for_each_inst(&sh.body, &mut |i| {
        if let Op::StoreBuiltin { value, .. } = &i.op {
            stored = Some(*value);
        }
    });
    let mut value = None;
    super::for_each_inst(&sh.body, &mut |i| {
        if i.dst == stored {
            if let Op::Const(c) = &i.op {
                value = Some(f32::from_bits(c.0[0] as u32));
            }
        }
    });
    assert_eq!(value, Some(511.9375));
}

#[test]
fn guard_helper_writes_puts_every_memory_write_under_the_helper_test() {
    let mut b = B::new();
    let one = b.c(1);
    b.output(0, one);
    let z = b.c(0);
    let addr = b.op(Type::I64, Op::Conv(ConvOp::UToU, z));
    let old = b.op(
        Type::I32,
        Op::Atomic {
            space: Space::Global,
            op: AtomicOp::Add,
            addr,
            value: one,
            cmp: None,
        },
    );
    b.output(1, old);
    let mut sh = b.finish();
    super::guard_helper_writes(&mut sh).unwrap();
    validate(&sh).unwrap_or_else(|e| panic!("{e}\n{}", crate::ir::print::print(&sh)));
    // Values defined as "not a helper": Cmp(IEq, HelperInvocation, 0).
    let mut helper = Vec::new();
    let mut zeros = Vec::new();
    let mut live = Vec::new();
    super::for_each_inst(&sh.body, &mut |i| match &i.op {
        Op::SysVal(SysVal::HelperInvocation) => helper.extend(i.dst),
        Op::Const(c) if c.0 == [0] => zeros.extend(i.dst),
        _ => {}
    });
    super::for_each_inst(&sh.body, &mut |i| {
        if let Op::Cmp(CmpOp::IEq, a, z) = &i.op {
            if helper.contains(a) && zeros.contains(z) {
                live.extend(i.dst);
            }
        }
    });
    fn writes(op: &Op) -> bool {
        matches!(
            op,
            Op::Store {
                space: Space::Global,
                ..
            } | Op::Atomic { .. }
        )
    }
    // Every write sits in an If on one of those values; none is outside.
    fn walk(nodes: &[Node], live: &[Value], guarded: bool, found: &mut usize) {
        for n in nodes {
            match n {
                Node::Block(insts) => {
                    for i in insts.iter().filter(|i| writes(&i.op)) {
                        assert!(guarded, "unguarded {:?}", i.op);
                        *found += 1;
                    }
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    walk(then_body, live, guarded || live.contains(cond), found);
                    walk(else_body, live, guarded, found);
                }
                Node::Loop { body } => walk(body, live, guarded, found),
                _ => {}
            }
        }
    }
    let mut found = 0;
    walk(&sh.body, &live, false, &mut found);
    assert_eq!(found, 3);
    // The atomic's result reaches the later store through a Var.
    assert_eq!(count(&sh, &|op| matches!(op, Op::LoadVar(_))), 1);
}

/// `if (x < 10) { v = x * 3; if (x < 5) { v = v + 1; } } else { v = 7; w = 1; }`, then
/// outputs v and w (both start at 2): nested, with a load of a variable its own arm stored,
/// an arm without a store of `w`, and (with `divide`) `v = v / (x - 5)` for the increment, a
/// guarded division that must stay a branch.
fn branchy(divide: bool) -> Shader {
    let mut b = B::new();
    let x = b.input(0);
    let v = b.sh.new_var(Type::I32);
    let w = b.sh.new_var(Type::I32);
    let two = b.c(2);
    b.eff(Op::StoreVar(v, two));
    b.eff(Op::StoreVar(w, two));
    let ten = b.c(10);
    let lt = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, ten));
    let pre = b.block();
    let three = b.c(3);
    let m = b.op(Type::I32, Op::Binary(BinOp::IMul, x, three));
    b.eff(Op::StoreVar(v, m));
    let five = b.c(5);
    let small = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, five));
    let then_pre = b.block();
    let cur = b.op(Type::I32, Op::LoadVar(v));
    let one = b.c(1);
    let inc = if divide {
        // Never by zero where the arm runs (x < 5).
        let d = b.op(Type::I32, Op::Binary(BinOp::ISub, x, five));
        b.op(Type::I32, Op::Binary(BinOp::UDiv, cur, d))
    } else {
        b.op(Type::I32, Op::Binary(BinOp::IAdd, cur, one))
    };
    b.eff(Op::StoreVar(v, inc));
    let inner = b.block();
    let seven = b.c(7);
    b.eff(Op::StoreVar(v, seven));
    let one = b.c(1);
    b.eff(Op::StoreVar(w, one));
    let else_arm = b.block();
    b.sh.body = vec![
        pre,
        Node::If {
            cond: lt,
            then_body: vec![
                then_pre,
                Node::If {
                    cond: small,
                    then_body: vec![inner],
                    else_body: vec![],
                },
            ],
            else_body: vec![else_arm],
        },
    ];
    let rv = b.op(Type::I32, Op::LoadVar(v));
    b.output(0, rv);
    let rw = b.op(Type::I32, Op::LoadVar(w));
    b.output(1, rw);
    b.finish()
}

#[test]
fn if_convert_flattens_arithmetic_arms_and_keeps_guarded_ones() {
    let ifs = |sh: &Shader| {
        fn walk(n: &[Node]) -> usize {
            n.iter()
                .map(|n| match n {
                    Node::If {
                        then_body,
                        else_body,
                        ..
                    } => 1 + walk(then_body) + walk(else_body),
                    Node::Loop { body } => walk(body),
                    _ => 0,
                })
                .sum()
        }
        walk(&sh.body)
    };
    for divide in [false, true] {
        let before = branchy(divide);
        let mut after = before.clone();
        super::if_convert(&mut after).unwrap();
        validate(&after).unwrap();
        // The inner `if` divides when asked to: it stays, and so does the outer one.
        assert_eq!(ifs(&after), if divide { 2 } else { 0 });
        for x in [0, 4, 5, 9, 10, 11, u32::MAX] {
            assert_eq!(
                run(&after, &[x], 2, [1, 1, 1]),
                run(&before, &[x], 2, [1, 1, 1]),
                "x = {x}, divide = {divide}"
            );
        }
    }
}

#[test]
fn if_convert_moves_system_value_reads_out_of_arms() {
    let mut b = B::new();
    let x = b.input(0);
    let v = b.sh.new_var(Type::I32);
    let ten = b.c(10);
    let lt = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, ten));
    let pre = b.block();
    let id = b.op(Type::I32, Op::SysVal(SysVal::WorkgroupId(0)));
    let sum = b.op(Type::I32, Op::Binary(BinOp::IAdd, id, x));
    b.eff(Op::StoreVar(v, sum));
    let then_arm = b.block();
    let seven = b.c(7);
    b.eff(Op::StoreVar(v, seven));
    let else_arm = b.block();
    b.sh.body = vec![
        pre,
        Node::If {
            cond: lt,
            then_body: vec![then_arm],
            else_body: vec![else_arm],
        },
    ];
    let r = b.op(Type::I32, Op::LoadVar(v));
    b.output(0, r);
    let before = b.finish();
    let mut after = before.clone();
    super::if_convert(&mut after).unwrap();
    validate(&after).unwrap();
    assert!(
        !after.body.iter().any(|n| matches!(n, Node::If { .. })),
        "{}",
        crate::ir::print::print(&after)
    );
    for x in [0, 9, 10, u32::MAX] {
        assert_eq!(
            run(&after, &[x], 2, [2, 1, 1]),
            run(&before, &[x], 2, [2, 1, 1]),
            "x = {x}"
        );
    }
}

#[test]
fn a_pixel_position_divides_by_a_positive_constant_without_signs() {
    // Counts the comparisons and selects the signed forms spend on signs.
    let sign_work = |pixel: bool| {
        let mut b = B::new();
        let x = if pixel {
            let fx = b.op(Type::F32, Op::SysVal(SysVal::FragCoord(0)));
            b.op(Type::I32, Op::Conv(ConvOp::FToS, fx))
        } else {
            b.input(0)
        };
        let k = b.c(22);
        let q = b.op(Type::I32, Op::Binary(BinOp::SDiv, x, k));
        b.output(0, q);
        let r = b.op(Type::I32, Op::Binary(BinOp::SMod, x, k));
        b.output(1, r);
        let mut sh = b.finish();
        super::lower_int_div(&mut sh).unwrap();
        validate(&sh).unwrap();
        let mut n = 0;
        super::for_each_inst(&sh.body, &mut |i| {
            n += usize::from(matches!(i.op, Op::Cmp(CmpOp::SLt, ..) | Op::Select(..)));
        });
        n
    };
    assert_eq!(sign_work(true), 0);
    assert!(sign_work(false) > 0);
}

#[test]
fn signed_division_of_a_never_negative_dividend_skips_its_sign() {
    // x & 0x7fff is never negative; the divisor is any signed value.
    let build = |masked: bool| {
        let mut b = B::new();
        let x = b.input(0);
        let x = if masked {
            let m = b.c(0x7fff);
            b.op(Type::I32, Op::Binary(BinOp::And, x, m))
        } else {
            x
        };
        let d = b.input(1);
        for (k, op) in [BinOp::SDiv, BinOp::SRem, BinOp::SMod]
            .into_iter()
            .enumerate()
        {
            let r = b.op(Type::I32, Op::Binary(op, x, d));
            b.output(k as u32, r);
        }
        b.finish()
    };
    let sign_compares = |sh: &Shader| {
        let mut n = 0;
        super::for_each_inst(&sh.body, &mut |i| {
            n += usize::from(matches!(i.op, Op::Cmp(CmpOp::SLt, ..)));
        });
        n
    };
    let lowered = |sh: &Shader| {
        let mut sh = sh.clone();
        super::lower_int_div(&mut sh).unwrap();
        validate(&sh).unwrap();
        sh
    };
    let before = build(true);
    let after = lowered(&before);
    assert!(sign_compares(&after) < sign_compares(&lowered(&build(false))));
    for x in [0, 1, 7, 0x7fff, 0x1234_5678, u32::MAX] {
        for d in [
            1,
            3,
            7,
            u32::MAX,
            (-5i32) as u32,
            i32::MIN as u32,
            0x7fff_ffff,
        ] {
            assert_eq!(
                run(&after, &[x, d], 3, [1, 1, 1]),
                run(&before, &[x, d], 3, [1, 1, 1]),
                "x = {x:#x}, d = {d:#x}"
            );
        }
    }
}

#[test]
fn a_select_on_or_and_and_of_comparisons_is_two_selects() {
    for and in [false, true] {
        let mut b = B::new();
        let x = b.input(0);
        let (three, nine) = (b.c(3), b.c(9));
        let lo = b.op(Type::BOOL, Op::Cmp(CmpOp::ULt, x, three));
        let hi = b.op(Type::BOOL, Op::Cmp(CmpOp::UGt, x, nine));
        let op = if and { BinOp::And } else { BinOp::Or };
        let c = b.op(Type::BOOL, Op::Binary(op, lo, hi));
        let (yes, no) = (b.c(100), b.c(200));
        let r = b.op(Type::I32, Op::Select(c, yes, no));
        b.output(0, r);
        let before = b.finish();
        let mut after = before.clone();
        super::algebraic(&mut after).unwrap();
        super::dce(&mut after).unwrap();
        validate(&after).unwrap();
        let mut ops = (0, 0);
        super::for_each_inst(&after.body, &mut |i| match i.op {
            Op::Select(..) => ops.0 += 1,
            Op::Binary(BinOp::And | BinOp::Or, ..) => ops.1 += 1,
            _ => {}
        });
        assert_eq!(ops, (2, 0), "and = {and}");
        for x in [0, 2, 3, 5, 9, 10, u32::MAX] {
            assert_eq!(
                run(&after, &[x], 1, [1, 1, 1]),
                run(&before, &[x], 1, [1, 1, 1])
            );
        }
    }
}

#[test]
fn comparisons_a_pixel_positions_sign_decides_are_constants() {
    let known = |op: CmpOp, c: f32| {
        let mut b = B::new();
        let x = b.op(Type::F32, Op::SysVal(SysVal::FragCoord(0)));
        let k = b.op(Type::F32, Op::Const(Constant(vec![u64::from(c.to_bits())])));
        let r = b.op(Type::BOOL, Op::Cmp(op, x, k));
        let r = b.op(Type::I32, Op::Conv(ConvOp::BoolToInt, r));
        b.output(0, r);
        let mut sh = b.finish();
        super::algebraic(&mut sh).unwrap();
        let mut result = None;
        super::for_each_inst(&sh.body, &mut |i| {
            if let (Op::Const(Constant(v)), Some(d)) = (&i.op, i.dst) {
                if sh.ty(d) == Type::BOOL {
                    result = Some(v[0] != 0);
                }
            }
        });
        result
    };
    assert_eq!(known(CmpOp::FOGe, 0.0), Some(true));
    assert_eq!(known(CmpOp::FOGt, -1.0), Some(true));
    assert_eq!(known(CmpOp::FOLt, 0.0), Some(false));
    assert_eq!(known(CmpOp::FOLe, -0.5), Some(false));
    // A sample position may be exactly 0, and above 0 anything may be.
    assert_eq!(known(CmpOp::FOGt, 0.0), None);
    assert_eq!(known(CmpOp::FOLe, 0.0), None);
    assert_eq!(known(CmpOp::FOGe, 0.25), None);
}

#[test]
fn cse_reuses_loads_until_memory_is_written() {
    let mut b = B::new();
    let z = b.c(0);
    let base = b.op(
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: z,
            align: 8,
        },
    );
    // Two steps from the root table, so the address is not taken for one in descriptor set
    // memory (which cse treats as never written).
    let zero64 = b.op(Type::I64, Op::Conv(ConvOp::UToU, z));
    let buffer = b.op(Type::I64, Op::Binary(BinOp::IAdd, base, zero64));
    let four = b.c(4);
    let four64 = b.op(Type::I64, Op::Conv(ConvOp::UToU, four));
    let word1 = b.op(Type::I64, Op::Binary(BinOp::IAdd, buffer, four64));
    let load = |b: &mut B| {
        b.op(
            Type::I32,
            Op::Load {
                space: Space::Global,
                addr: word1,
                align: 4,
            },
        )
    };
    let x = load(&mut b);
    let y = load(&mut b);
    let input = b.input(0);
    b.eff(Op::Store {
        space: Space::Global,
        addr: word1,
        value: input,
        align: 4,
    });
    let after = load(&mut b);
    let s = b.op(Type::I32, Op::Binary(BinOp::IAdd, x, y));
    let t = b.op(Type::I32, Op::Binary(BinOp::IAdd, s, after));
    b.output(0, t);
    let mut sh = b.finish();
    super::cse(&mut sh).unwrap();
    validate(&sh).unwrap();
    let global_loads = |op: &Op| {
        matches!(
            op,
            Op::Load {
                space: Space::Global,
                ..
            }
        )
    };
    // The second load reuses the first; the one after the store reads memory again.
    assert_eq!(count(&sh, &global_loads), 2);
    assert_eq!(run(&sh, &[9], 2, [1, 1, 1]), vec![9, 9]);
}
