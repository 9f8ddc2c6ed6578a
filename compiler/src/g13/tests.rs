//! Back-end tests: exec-mask shapes, a symbolic verifier of register allocation (with and
//! without spilling), wait insertion and encoding.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use hw::isa::*;

use super::regalloc::{allocate, allocate_in, Origin};
use super::regs::{visit, Access};
use super::*;
use crate::ir::{self, BinOp, CmpOp, Constant, Inst, Node, Op, SysVal, Type, Value};

// ---------------------------------------------------------------------------------------
// A small IR builder.

pub(super) struct Build {
    pub(super) shader: Shader,
    stack: Vec<Vec<Node>>,
    block: Vec<Inst>,
}

impl Build {
    pub(super) fn new() -> Build {
        Build {
            shader: Shader {
                local_size: [32, 1, 1],
                shared_size: 0,
                scratch_size: 0,
                value_types: Vec::new(),
                var_types: Vec::new(),
                body: Vec::new(),
                contract: false,
                offsets_in_range: false,
                read_only_buffers: Default::default(),
            },
            stack: vec![Vec::new()],
            block: Vec::new(),
        }
    }

    pub(super) fn op(&mut self, ty: Type, op: Op) -> Value {
        let v = self.shader.new_value(ty);
        self.block.push(Inst { dst: Some(v), op });
        v
    }

    pub(super) fn effect(&mut self, op: Op) {
        self.block.push(Inst { dst: None, op });
    }

    pub(super) fn c32(&mut self, x: u32) -> Value {
        self.op(Type::I32, Op::Const(Constant(vec![u64::from(x)])))
    }

    pub(super) fn bin(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let ty = self.shader.ty(a);
        self.op(ty, Op::Binary(op, a, b))
    }

    pub(super) fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.op(Type::BOOL, Op::Cmp(op, a, b))
    }

    pub(super) fn flush(&mut self) {
        if !self.block.is_empty() {
            let b = std::mem::take(&mut self.block);
            self.stack.last_mut().unwrap().push(Node::Block(b));
        }
    }

    pub(super) fn node(&mut self, n: Node) {
        self.flush();
        self.stack.last_mut().unwrap().push(n);
    }

    pub(super) fn nested(&mut self, f: impl FnOnce(&mut Build)) -> Vec<Node> {
        self.flush();
        self.stack.push(Vec::new());
        f(self);
        self.flush();
        self.stack.pop().unwrap()
    }

    pub(super) fn if_(
        &mut self,
        cond: Value,
        then: impl FnOnce(&mut Build),
        els: impl FnOnce(&mut Build),
    ) {
        let then_body = self.nested(then);
        let else_body = self.nested(els);
        self.node(Node::If {
            cond,
            then_body,
            else_body,
        });
    }

    pub(super) fn loop_(&mut self, body: impl FnOnce(&mut Build)) {
        let body = self.nested(body);
        self.node(Node::Loop { body });
    }

    pub(super) fn var(&mut self, ty: Type) -> ir::Var {
        self.shader.new_var(ty)
    }

    pub(super) fn load_var(&mut self, v: ir::Var) -> Value {
        let ty = self.shader.var_types[v.0 as usize];
        self.op(ty, Op::LoadVar(v))
    }

    pub(super) fn store_var(&mut self, v: ir::Var, x: Value) {
        self.effect(Op::StoreVar(v, x));
    }

    /// The set-0 address from the root table.
    pub(super) fn set0(&mut self) -> Value {
        let off = self.c32(0);
        self.op(
            Type::I64,
            Op::Load {
                space: ir::Space::Root,
                addr: off,
                align: 8,
            },
        )
    }

    /// The address `base + 4 * index` (I64).
    pub(super) fn element(&mut self, base: Value, index: Value) -> Value {
        let two = self.c32(2);
        let bytes = self.bin(BinOp::Shl, index, two);
        let wide = self.op(Type::I64, Op::Conv(ir::ConvOp::UToU, bytes));
        self.op(Type::I64, Op::Binary(BinOp::IAdd, base, wide))
    }

    pub(super) fn store_global(&mut self, addr: Value, value: Value) {
        self.effect(Op::Store {
            space: ir::Space::Global,
            addr,
            value,
            align: 4,
        });
    }

    pub(super) fn load_global(&mut self, addr: Value) -> Value {
        self.op(
            Type::I32,
            Op::Load {
                space: ir::Space::Global,
                addr,
                align: 4,
            },
        )
    }

    pub(super) fn finish(mut self) -> Shader {
        self.flush();
        assert_eq!(self.stack.len(), 1);
        self.shader.body = self.stack.pop().unwrap();
        self.shader
    }
}

// ---------------------------------------------------------------------------------------
// The allocation verifier.

/// Where a value lives at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Loc {
    Half(u16),
    Stack(u32),
}

/// (virtual register, half inside it).
type Content = (u16, u16);

/// Half `part` of virtual register `id`, where a 128-bit register's halves 4 to 7 are the
/// next id's halves 0 to 3.
fn content(id: u16, part: u16) -> Content {
    (id + part / 4, part % 4)
}

/// Every virtual register half a location is known to equal: one after an ordinary write,
/// more after copies (which coalescing turns into copies of a register onto itself).
type State = BTreeMap<Loc, BTreeSet<Content>>;

fn meet(a: &State, b: &State) -> State {
    a.iter()
        .filter_map(|(k, v)| {
            let both: BTreeSet<Content> = v.intersection(b.get(k)?).copied().collect();
            (!both.is_empty()).then_some((*k, both))
        })
        .collect()
}

fn holds(st: &State, loc: Loc, want: Content) -> bool {
    st.get(&loc).is_some_and(|s| s.contains(&want))
}

/// `d = s` as a plain whole-register copy: (source register, destination register).
fn plain_copy(i: &Instr) -> Option<(Reg, Reg)> {
    match i {
        Instr::IAdd(x)
            if x.b.op == Operand::Imm(0)
                && !x.negate_b
                && x.shift == 0
                && !x.saturate
                && !x.a.sign_extend =>
        {
            match x.a.op {
                Operand::Reg(s) if s.size == x.dst.reg.size => Some((s, x.dst.reg)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn regs_of(i: &Instr) -> Vec<(Reg, Access, u16)> {
    let mut i = *i;
    let mut v = Vec::new();
    visit(&mut i, &mut |r, a, w| v.push((*r, a, w)));
    v
}

fn stack_reg(i: &Instr) -> (Reg, u16) {
    match i {
        Instr::StackMem(m) => (m.reg, m.reg.size.halves() * m.mask.count_ones() as u16),
        other => panic!("spill code is not a stack access: {other:?}"),
    }
}

/// Applies item `k` to `st`; with `check`, reports any read of a location that does not hold
/// the value the input program reads there.
fn transfer(
    alloc: &super::regalloc::Allocation,
    k: usize,
    st: &mut State,
    check: bool,
) -> Result<(), String> {
    let phys = alloc.items[k];
    match alloc.origins[k] {
        Origin::Input(Item::Op(v)) => {
            let Item::Op(p) = phys else {
                return Err(format!("item {k}: not an instruction"));
            };
            let (vr, pr) = (regs_of(&v), regs_of(&p));
            if vr.len() != pr.len() {
                return Err(format!("item {k}: operand count differs"));
            }
            for ((v, a, w), (p, _, _)) in vr.iter().zip(&pr) {
                let (id, part) = (v.half / 4, v.half % 4);
                if id == NESTING_VREG && *p != R0L {
                    return Err(format!("item {k}: r0l misused ({v:?} -> {p:?})"));
                }
                if *a == Access::Use && check {
                    for h in 0..*w {
                        let want = content(id, part + h);
                        let got = st.get(&Loc::Half(p.half + h));
                        if !holds(st, Loc::Half(p.half + h), want) {
                            return Err(format!(
                                "item {k} {p:?}: half {} holds {got:?}, expected {want:?}",
                                p.half + h
                            ));
                        }
                    }
                }
            }
            // A copy's destination also equals whatever its source equalled.
            let copied: Vec<BTreeSet<Content>> = match plain_copy(&p) {
                Some((src, _)) => (0..src.size.halves())
                    .map(|h| {
                        st.get(&Loc::Half(src.half + h))
                            .cloned()
                            .unwrap_or_default()
                    })
                    .collect(),
                None => Vec::new(),
            };
            for ((v, a, w), (p, _, _)) in vr.iter().zip(&pr) {
                if *a == Access::Def {
                    let (id, part) = (v.half / 4, v.half % 4);
                    for h in 0..*w {
                        let mut set = copied.get(h as usize).cloned().unwrap_or_default();
                        set.insert(content(id, part + h));
                        st.insert(Loc::Half(p.half + h), set);
                    }
                }
            }
        }
        Origin::Input(_) => {}
        Origin::Spill { vreg, part, offset } => {
            let Item::Op(p) = phys else {
                return Err(format!("item {k}: spill is not an op"));
            };
            let (r, w) = stack_reg(&p);
            for h in 0..w {
                let want = content(vreg, part + h);
                if check && !holds(st, Loc::Half(r.half + h), want) {
                    return Err(format!(
                        "item {k}: spill of {vreg} reads the wrong register"
                    ));
                }
                let set = st.get(&Loc::Half(r.half + h)).cloned().unwrap_or_default();
                st.insert(Loc::Stack(offset / 2 + u32::from(h)), set);
            }
        }
        Origin::Fill { vreg, offset } => {
            let Item::Op(p) = phys else {
                return Err(format!("item {k}: fill is not an op"));
            };
            let (r, w) = stack_reg(&p);
            for h in 0..w {
                let want = content(vreg, h);
                let slot = Loc::Stack(offset / 2 + u32::from(h));
                if check && !holds(st, slot, want) {
                    return Err(format!(
                        "item {k}: fill of {vreg} reads the wrong stack slot"
                    ));
                }
                let set = st.get(&slot).cloned().unwrap_or_default();
                st.insert(Loc::Half(r.half + h), set);
            }
        }
    }
    Ok(())
}

/// Checks that every register read in the allocated program holds, on every path to it, the
/// virtual register half the input program reads there. Paths follow fallthrough and both
/// sides of every branch, which covers all threads under any exec mask.
fn verify(alloc: &super::regalloc::Allocation) -> Result<(), String> {
    let n = alloc.items.len();
    let mut labels = HashMap::new();
    for (k, it) in alloc.items.iter().enumerate() {
        if let Item::Label(l) = it {
            labels.insert(*l, k);
        }
    }
    let succ = |k: usize| -> Vec<usize> {
        match alloc.items[k] {
            Item::Op(Instr::Stop) => vec![],
            Item::Jump { target, .. } => vec![k + 1, labels[&target]],
            _ => vec![k + 1],
        }
    };
    let mut input: Vec<Option<State>> = vec![None; n + 1];
    input[0] = Some(State::new());
    let mut work = vec![0usize];
    while let Some(k) = work.pop() {
        if k >= n {
            continue;
        }
        let mut st = input[k].clone().unwrap();
        transfer(alloc, k, &mut st, false)?;
        for s in succ(k) {
            let new = match &input[s] {
                None => st.clone(),
                Some(old) => meet(old, &st),
            };
            if input[s].as_ref() != Some(&new) {
                input[s] = Some(new);
                work.push(s);
            }
        }
    }
    for (k, st) in input.iter().enumerate().take(n) {
        if let Some(st) = st {
            let mut st = st.clone();
            transfer(alloc, k, &mut st, true)?;
        }
    }
    Ok(())
}

fn alloc_and_verify(shader: &Shader, budget: u16) -> super::regalloc::Allocation {
    let v = isel::select(shader).expect("isel");
    let a = allocate(&v, budget).expect("allocation");
    if let Err(e) = verify(&a) {
        panic!(
            "allocation with budget {budget} is wrong: {e}\n{:#?}",
            a.items
        );
    }
    assert!(
        a.gpr_halves <= u32::from(budget),
        "{} halves used, budget {budget}",
        a.gpr_halves
    );
    a
}

/// Only the control-flow skeleton of a program.
fn skeleton(items: &[Item]) -> Vec<Item> {
    items
        .iter()
        .copied()
        .filter(|i| match i {
            Item::Op(Instr::ExecCmp(_) | Instr::PopExec(_) | Instr::Stop) => true,
            Item::Op(Instr::MovImm(m)) => m.dst.reg == R0L,
            Item::Op(_) => false,
            Item::Label(_) | Item::Jump { .. } => true,
        })
        .collect()
}

fn if_instr(cond: Reg) -> Item {
    Item::Op(Instr::ExecCmp(ExecCmp {
        op: ExecOp::If,
        cond: Cond::Int(ICond::UEq),
        invert: true,
        a: Operand::Reg(cond),
        b: Operand::Imm(0),
        n: 1,
    }))
}

/// An `if` that compares `a` with the immediate `b` itself.
fn if_compare(cond: ICond, a: Reg, b: u32) -> Item {
    Item::Op(Instr::ExecCmp(ExecCmp {
        op: ExecOp::If,
        cond: Cond::Int(cond),
        invert: false,
        a: Operand::Reg(a),
        b: Operand::Imm(b),
        n: 1,
    }))
}

fn uncond(op: ExecOp, n: u8) -> Item {
    Item::Op(Instr::ExecCmp(ExecCmp {
        op,
        cond: Cond::Float(FCond::Eq),
        invert: false,
        a: Operand::Imm(0),
        b: Operand::Imm(0),
        n,
    }))
}

fn set_r0l(n: u32) -> Item {
    Item::Op(Instr::MovImm(MovImm {
        dst: R0L.into(),
        imm: n,
    }))
}

fn pop(n: u8) -> Item {
    Item::Op(Instr::PopExec(PopExec { n }))
}

fn cond_reg(items: &[Item]) -> Reg {
    items
        .iter()
        .find_map(|i| match i {
            Item::Op(Instr::ExecCmp(ExecCmp {
                op: ExecOp::If,
                a: Operand::Reg(r),
                ..
            })) => Some(*r),
            _ => None,
        })
        .expect("an if")
}

// ---------------------------------------------------------------------------------------
// Exec-mask shapes.

#[test]
fn if_else_is_the_mesa_sequence() {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let five = b.c32(5);
    let c = b.cmp(CmpOp::ULt, x, five);
    let addr = b.element(out, x);
    b.if_(
        c,
        |b| {
            let one = b.c32(1);
            b.store_global(addr, one);
        },
        |b| {
            let two = b.c32(2);
            b.store_global(addr, two);
        },
    );
    let v = isel::select(&b.finish()).unwrap();
    // The comparison feeds only the branch, so `if` makes it: x < 5 directly.
    let x = cond_reg(&v.items);
    let expect = vec![
        set_r0l(0),
        if_compare(ICond::ULt, x, 5),
        Item::Jump {
            cond: JumpCond::None,
            target: 0,
        },
        Item::Label(0),
        uncond(ExecOp::Else, 1),
        Item::Jump {
            cond: JumpCond::None,
            target: 1,
        },
        Item::Label(1),
        pop(1),
        Item::Op(Instr::Stop),
    ];
    assert_eq!(skeleton(&v.items), expect);
}

#[test]
fn if_without_else_skips_to_the_pop() {
    let mut b = Build::new();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let zero = b.c32(0);
    let c = b.cmp(CmpOp::IEq, x, zero);
    b.if_(c, |b| b.effect(Op::MemoryBarrier), |_| {});
    let v = isel::select(&b.finish()).unwrap();
    let x = cond_reg(&v.items);
    let expect = vec![
        set_r0l(0),
        if_compare(ICond::UEq, x, 0),
        Item::Jump {
            cond: JumpCond::None,
            target: 1,
        },
        Item::Label(1),
        pop(1),
        Item::Op(Instr::Stop),
    ];
    assert_eq!(skeleton(&v.items), expect);
}

#[test]
fn loop_with_break_and_continue() {
    // loop { if c { break } ; if d { continue } ; break }
    let mut b = Build::new();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let zero = b.c32(0);
    let c = b.cmp(CmpOp::IEq, x, zero);
    b.loop_(|b| {
        b.if_(c, |b| b.node(Node::Break), |_| {});
        b.if_(c, |b| b.node(Node::Continue), |_| {});
        b.node(Node::Break);
    });
    let v = isel::select(&b.finish()).unwrap();
    // Two branches read the comparison: it is a boolean register, which `if` tests.
    let c = cond_reg(&v.items);
    assert_eq!(c.size, Size::S16, "booleans are 16-bit");
    let expect = vec![
        set_r0l(0),
        // Top level: every thread is active, so no push.
        Item::Label(0),
        if_instr(c),
        Item::Jump {
            cond: JumpCond::None,
            target: 2,
        },
        // break inside one if of a loop that continues: 1 + 2 levels.
        set_r0l(3),
        pop(0),
        Item::Label(2),
        pop(1),
        if_instr(c),
        Item::Jump {
            cond: JumpCond::None,
            target: 4,
        },
        // continue: the if level and one loop level.
        set_r0l(2),
        pop(0),
        Item::Label(4),
        pop(1),
        set_r0l(2),
        pop(0),
        Item::Op(Instr::ExecCmp(ExecCmp {
            op: ExecOp::While,
            cond: Cond::Int(ICond::UEq),
            invert: false,
            a: Operand::Imm(0),
            b: Operand::Imm(0),
            n: 2,
        })),
        Item::Jump {
            cond: JumpCond::Any,
            target: 0,
        },
        pop(2),
        Item::Op(Instr::Stop),
    ];
    assert_eq!(skeleton(&v.items), expect);
}

#[test]
fn loop_inside_if_pushes_and_return_parks_the_thread() {
    let mut b = Build::new();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let zero = b.c32(0);
    let c = b.cmp(CmpOp::IEq, x, zero);
    b.if_(
        c,
        |b| {
            b.loop_(|b| {
                b.if_(c, |b| b.node(Node::Return), |_| {});
                b.node(Node::Break);
            })
        },
        |_| {},
    );
    let v = isel::select(&b.finish()).unwrap();
    let c = cond_reg(&v.items);
    let expect = vec![
        set_r0l(0),
        if_instr(c),
        Item::Jump {
            cond: JumpCond::None,
            target: 1,
        },
        uncond(ExecOp::If, 1),
        Item::Label(2),
        if_instr(c),
        Item::Jump {
            cond: JumpCond::None,
            target: 4,
        },
        set_r0l(exec::RETURN_NEST),
        pop(0),
        Item::Label(4),
        pop(1),
        set_r0l(1),
        pop(0),
        Item::Jump {
            cond: JumpCond::Any,
            target: 2,
        },
        pop(1),
        Item::Label(1),
        pop(1),
        Item::Op(Instr::Stop),
    ];
    assert_eq!(skeleton(&v.items), expect);
}

#[test]
fn top_level_return_is_stop() {
    let mut b = Build::new();
    b.effect(Op::MemoryBarrier);
    b.node(Node::Return);
    let v = isel::select(&b.finish()).unwrap();
    assert_eq!(
        v.items,
        // One `stop`: the end of the program needs no second one after the return.
        vec![Item::Op(Instr::MemoryBarrier), Item::Op(Instr::Stop)]
    );
}

// ---------------------------------------------------------------------------------------
// Register allocation.

/// A shader that keeps `n` values alive at once and sums them.
pub(super) fn wide_shader(n: u32) -> Shader {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let vals: Vec<Value> = (0..n)
        .map(|i| {
            let k = b.c32(1000 + i);
            b.bin(BinOp::IMul, x, k)
        })
        .collect();
    let mut acc = vals[0];
    for &v in &vals[1..] {
        acc = b.bin(BinOp::IAdd, acc, v);
    }
    // Use them again in reverse so all stay live.
    for &v in vals.iter().rev() {
        acc = b.bin(BinOp::Xor, acc, v);
    }
    let addr = b.element(out, x);
    b.store_global(addr, acc);
    b.finish()
}

#[test]
fn allocation_without_pressure_does_not_spill() {
    let a = alloc_and_verify(&wide_shader(20), GPR_HALVES);
    assert_eq!((a.spills, a.fills), (0, 0));
    // 20 live 32-bit values and a few more need more than 40 halves.
    assert!(a.gpr_halves >= 40, "{}", a.gpr_halves);
}

#[test]
fn allocation_spills_under_a_small_budget() {
    for budget in [16, 24, 33, 64] {
        let a = alloc_and_verify(&wide_shader(40), budget);
        assert!(a.spills > 0 && a.fills > 0, "budget {budget}: no spills");
        assert!(a.scratch_bytes >= 4, "budget {budget}: no spill area");
        let stack_ops = a
            .items
            .iter()
            .filter(|i| matches!(i, Item::Op(Instr::StackMem(_))))
            .count() as u32;
        assert_eq!(stack_ops, a.spills + a.fills);
    }
}

#[test]
fn spill_area_follows_the_scratch_area() {
    let mut s = wide_shader(40);
    s.scratch_size = 64;
    let v = isel::select(&s).unwrap();
    let a = allocate(&v, 16).unwrap();
    verify(&a).unwrap();
    for i in &a.items {
        if let Item::Op(Instr::StackMem(m)) = i {
            match m.offset {
                Index::Imm(o) => assert!(o >= 64, "spill at {o} overlaps the IR scratch"),
                Index::Reg(_) => panic!("spills use immediate offsets"),
            }
        }
    }
}

/// Long-lived values read again and again, as the SSBO layout tests read CSE'd addresses
/// from the first access to the last: spilling one writes a fresh register for every
/// instruction that reads it.
pub(super) fn reread_shader(n: u32, rounds: u32) -> Shader {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let vals: Vec<Value> = (0..n)
        .map(|i| {
            let k = b.c32(1000 + i);
            b.bin(BinOp::IMul, x, k)
        })
        .collect();
    let mut acc = x;
    for r in 0..rounds {
        for &v in &vals {
            acc = b.bin(if r % 2 == 0 { BinOp::IAdd } else { BinOp::Xor }, acc, v);
        }
    }
    let addr = b.element(out, x);
    b.store_global(addr, acc);
    b.finish()
}

#[test]
fn spilling_fits_in_the_ids_selection_used() {
    // Selection refuses a program with more values than register ids; a program it accepts
    // must allocate even when it uses every id, although spill code needs a fresh id for each
    // instruction it rewrites. Before ids were reused, spilling here ran out of them ("too
    // many registers after spilling", as dEQP-VK.ssbo.layout.random.scalar.75 did).
    let s = reread_shader(24, 12);
    let v = isel::select(&s).unwrap();
    let ids = v.vregs.len() + super::regalloc::SPILL_RESERVE;
    for budget in [32, 24, 16] {
        let a = allocate_in(&v, budget, ids).unwrap_or_else(|e| {
            panic!("budget {budget}, {} ids: {e}", v.vregs.len());
        });
        verify(&a).unwrap();
        assert!(a.spills > 0 && a.gpr_halves <= u32::from(budget));
    }
}

#[test]
fn too_small_a_budget_is_an_error() {
    let v = isel::select(&wide_shader(4)).unwrap();
    match allocate(&v, 2) {
        Err(CompileError::Limit(_)) => {}
        other => panic!("expected a limit error, got {other:?}"),
    }
}

/// A loop carrying a variable and reading values defined before it; the verifier checks the
/// back edge.
pub(super) fn loop_shader(extra_live: u32) -> Shader {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let before: Vec<Value> = (0..extra_live)
        .map(|i| {
            let k = b.c32(7 + i);
            b.bin(BinOp::IAdd, x, k)
        })
        .collect();
    let acc = b.var(Type::I32);
    let i = b.var(Type::I32);
    let zero = b.c32(0);
    b.store_var(acc, zero);
    b.store_var(i, zero);
    b.loop_(|b| {
        let iv = b.load_var(i);
        let ten = b.c32(10);
        let done = b.cmp(CmpOp::UGe, iv, ten);
        b.if_(done, |b| b.node(Node::Break), |_| {});
        let mut a = b.load_var(acc);
        for &v in &before {
            let t = b.bin(BinOp::IMul, v, iv);
            a = b.bin(BinOp::IAdd, a, t);
        }
        b.store_var(acc, a);
        let one = b.c32(1);
        let next = b.bin(BinOp::IAdd, iv, one);
        b.store_var(i, next);
    });
    let a = b.load_var(acc);
    let addr = b.element(out, x);
    b.store_global(addr, a);
    b.finish()
}

#[test]
fn loops_keep_values_alive_over_the_back_edge() {
    for budget in [GPR_HALVES, 64, 20, 16] {
        let a = alloc_and_verify(&loop_shader(12), budget);
        if budget == GPR_HALVES {
            assert_eq!(a.spills, 0);
        }
        if budget <= 20 {
            assert!(a.spills > 0, "budget {budget}");
        }
    }
}

#[test]
fn verifier_catches_a_clobbered_register() {
    // Make the allocation deliberately wrong and check the verifier notices: the verifier
    // must be able to fail.
    let v = isel::select(&loop_shader(3)).unwrap();
    let mut a = allocate(&v, GPR_HALVES).unwrap();
    verify(&a).unwrap();
    // Redirect the last write before the loop's back edge to a live register.
    let mut broke = false;
    for k in (0..a.items.len()).rev() {
        if let Item::Op(Instr::IAdd(ref mut i)) = a.items[k] {
            if let Operand::Reg(r) = i.a.op {
                if r.size == i.dst.reg.size && r != i.dst.reg {
                    i.dst.reg = r;
                    broke = true;
                    break;
                }
            }
        }
    }
    assert!(broke);
    assert!(verify(&a).is_err());
}

/// Random structured programs: values, variables, nested ifs and loops.
/// xorshift state, and whether generated loops may `continue` (such loops need not end).
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_body(
    b: &mut Build,
    rng: &mut Rng,
    scope: &mut Vec<Value>,
    vars: &[ir::Var],
    depth: u32,
    in_loop: bool,
) {
    let continues = rng.1;
    let steps = 3 + rng.below(8);
    for _ in 0..steps {
        match rng.below(12) {
            0..=4 => {
                let x = scope[rng.below(scope.len() as u64) as usize];
                let y = scope[rng.below(scope.len() as u64) as usize];
                let op = [
                    BinOp::IAdd,
                    BinOp::Xor,
                    BinOp::IMul,
                    BinOp::UMin,
                    BinOp::Shl,
                ][rng.below(5) as usize];
                let v = b.bin(op, x, y);
                scope.push(v);
            }
            5 => {
                let k = b.c32(rng.below(100_000) as u32);
                scope.push(k);
            }
            6 => {
                let var = vars[rng.below(vars.len() as u64) as usize];
                let x = scope[rng.below(scope.len() as u64) as usize];
                b.store_var(var, x);
            }
            7 => {
                let var = vars[rng.below(vars.len() as u64) as usize];
                let v = b.load_var(var);
                scope.push(v);
            }
            8 | 9 if depth < 3 => {
                let x = scope[rng.below(scope.len() as u64) as usize];
                let y = scope[rng.below(scope.len() as u64) as usize];
                let c = b.cmp(CmpOp::ULt, x, y);
                let mark = scope.len();
                let mut inner = scope.clone();
                let then_body =
                    b.nested(|b| random_body(b, rng, &mut inner, vars, depth + 1, in_loop));
                let mut inner = scope.clone();
                let else_body =
                    b.nested(|b| random_body(b, rng, &mut inner, vars, depth + 1, in_loop));
                b.node(Node::If {
                    cond: c,
                    then_body,
                    else_body,
                });
                scope.truncate(mark);
            }
            10 if depth < 3 => {
                let mut inner = scope.clone();
                let body = b.nested(|b| {
                    random_body(b, rng, &mut inner, vars, depth + 1, true);
                    b.node(Node::Break);
                });
                b.node(Node::Loop { body });
            }
            11 if in_loop && depth > 0 => {
                let x = scope[rng.below(scope.len() as u64) as usize];
                let zero = b.c32(0);
                let c = b.cmp(CmpOp::IEq, x, zero);
                let kind = if !continues || rng.below(2) == 0 {
                    Node::Break
                } else {
                    Node::Continue
                };
                b.if_(c, |b| b.node(kind), |_| {});
            }
            _ => {}
        }
    }
    // Use a few values at the end so ranges stretch.
    let x = scope[rng.below(scope.len() as u64) as usize];
    let y = scope[0];
    let v = b.bin(BinOp::IAdd, x, y);
    scope.push(v);
}

pub(super) fn random_shader(seed: u64, terminating: bool) -> Shader {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1, !terminating);
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let vars: Vec<ir::Var> = (0..3).map(|_| b.var(Type::I32)).collect();
    for &v in &vars {
        b.store_var(v, x);
    }
    let mut scope = vec![x];
    random_body(&mut b, &mut rng, &mut scope, &vars, 0, false);
    let mut acc = *scope.last().unwrap();
    for &v in &vars {
        let l = b.load_var(v);
        acc = b.bin(BinOp::Xor, acc, l);
    }
    let addr = b.element(out, x);
    b.store_global(addr, acc);
    b.finish()
}

#[test]
fn random_programs_allocate_correctly_at_every_budget() {
    let mut spilled = 0;
    for seed in 1..120 {
        let s = random_shader(seed, false);
        for budget in [GPR_HALVES, 32, 20, 16] {
            let a = alloc_and_verify(&s, budget);
            spilled += u32::from(a.spills > 0);
        }
    }
    assert!(spilled > 0, "the random programs never spilled");
}

// ---------------------------------------------------------------------------------------
// Waits, encoding, errors.

#[test]
fn wait_comes_before_the_first_use_of_a_load() {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let addr = b.element(out, x);
    let loaded = b.load_global(addr);
    let y = b.bin(BinOp::IAdd, x, x); // independent work: no wait needed
    let z = b.bin(BinOp::IAdd, loaded, y);
    b.store_global(addr, z);
    let c = compile_items(&b.finish(), Options::default()).unwrap();
    let ops: Vec<Instr> = c
        .items
        .iter()
        .filter_map(|i| if let Item::Op(o) = i { Some(*o) } else { None })
        .collect();
    let load = ops
        .iter()
        .position(|i| matches!(i, Instr::DeviceMem(m) if !m.store))
        .unwrap();
    let wait = ops
        .iter()
        .position(|i| matches!(i, Instr::Wait(_)))
        .unwrap();
    let Instr::DeviceMem(lm) = ops[load] else {
        unreachable!()
    };
    assert!(
        wait > load + 1,
        "the independent add should sit between load and wait"
    );
    assert!(matches!(ops[load + 1], Instr::IAdd(_)));
    assert_eq!(ops[wait], Instr::Wait(Wait { slot: lm.wait_slot }));
    // The instruction after the wait reads the loaded register.
    let reads = regs_of(&ops[wait + 1]);
    assert!(reads
        .iter()
        .any(|(r, a, _)| *a == Access::Use && *r == lm.reg));
    assert_eq!(
        ops.iter().filter(|i| matches!(i, Instr::Wait(_))).count(),
        1
    );
}

#[test]
fn compiled_code_decodes_back_to_the_program() {
    let s = loop_shader(4);
    let c = compile_items(&s, Options::default()).unwrap();
    let bin = compile(&s).unwrap();
    assert_eq!(bin.uniform_halves, abi::ROOT_TABLE_SIZE / 2);
    assert_eq!(bin.gpr_halves, c.gpr_halves);
    let mut at = 0;
    let mut decoded = Vec::new();
    while at < bin.code.len() {
        let (i, len) = hw::g13::decode(&bin.code[at..]).unwrap();
        decoded.push((at, i));
        at += len;
    }
    let ops: Vec<&Item> = c
        .items
        .iter()
        .filter(|i| !matches!(i, Item::Label(_)))
        .collect();
    assert_eq!(decoded.len(), ops.len());
    assert_eq!(bin.stats.instructions as usize, ops.len());
    let offsets: HashMap<usize, usize> = decoded
        .iter()
        .enumerate()
        .map(|(k, (a, _))| (*a, k))
        .collect();
    for (k, ((addr, got), want)) in decoded.iter().zip(&ops).enumerate() {
        match want {
            Item::Op(w) => assert_eq!(got, w, "instruction {k}"),
            Item::Jump { cond, target } => {
                let Instr::Jump(j) = got else {
                    panic!("instruction {k} is not a jump")
                };
                assert_eq!(j.cond, *cond);
                // The target is the first instruction after the label.
                let label_pos = c
                    .items
                    .iter()
                    .position(|i| *i == Item::Label(*target))
                    .unwrap();
                let after = c.items[label_pos..]
                    .iter()
                    .filter(|i| !matches!(i, Item::Label(_)))
                    .count();
                let want_index = ops.len() - after;
                let dest = (*addr as i64 + i64::from(j.offset)) as usize;
                assert_eq!(offsets[&dest], want_index, "jump {k}");
            }
            Item::Label(_) => unreachable!(),
        }
    }
    assert!(matches!(decoded.last(), Some((_, Instr::Stop))));
}

#[test]
fn unsupported_operations_are_named() {
    let mut b = Build::new();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let _ = b.bin(BinOp::UDiv, x, x);
    match compile(&b.finish()) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("UDiv"), "{m}"),
        other => panic!("expected unsupported, got {other:?}"),
    }
}

#[test]
fn stats_line_has_the_shader_db_shape() {
    let s = stats::Stats {
        instructions: 3,
        bytes: 20,
        gprs: 6,
        spills: 1,
        fills: 2,
    };
    assert_eq!(
        s.line(),
        "agx4-shader: instrs 3, bytes 20, gprs 6, spills 1, fills 2"
    );
}

#[test]
fn wide_values_and_pairs_spill_correctly() {
    // A 64-bit address live across heavy pressure, and a compare-exchange pair built from
    // parts under pressure.
    let mut b = Build::new();
    let set = b.set0();
    // A 64-bit pointer loaded from memory, live across the whole shader.
    let out = b.op(
        Type::I64,
        Op::Load {
            space: ir::Space::Global,
            addr: set,
            align: 8,
        },
    );
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let addr = b.element(out, x);
    let vals: Vec<Value> = (0..24)
        .map(|i| {
            let k = b.c32(300 + i);
            b.bin(BinOp::IMul, x, k)
        })
        .collect();
    let mut acc = vals[0];
    for &v in &vals[1..] {
        acc = b.bin(BinOp::IAdd, acc, v);
    }
    let old = b.op(
        Type::I32,
        Op::Atomic {
            space: ir::Space::Global,
            op: ir::AtomicOp::CompareExchange,
            addr,
            value: acc,
            cmp: Some(vals[3]),
        },
    );
    for &v in vals.iter().rev() {
        acc = b.bin(BinOp::Xor, acc, v);
    }
    let acc = b.bin(BinOp::IAdd, acc, old);
    b.store_global(addr, acc);
    let s = b.finish();
    let mut spilled_wide = false;
    for budget in [GPR_HALVES, 24, 20, 16] {
        let a = alloc_and_verify(&s, budget);
        spilled_wide |= a
            .items
            .iter()
            .any(|i| matches!(i, Item::Op(Instr::StackMem(m)) if m.mask == 0b11));
    }
    assert!(spilled_wide, "no 64-bit value was spilled");
}

#[test]
fn scoreboard_slots_never_overflow_and_barriers_drain_them() {
    let mut b = Build::new();
    b.shader.shared_size = 64;
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    for k in 0..20 {
        let kk = b.c32(k);
        let i = b.bin(BinOp::IAdd, x, kk);
        let a = b.element(out, i);
        b.store_global(a, x);
    }
    let two = b.c32(2);
    let off = b.bin(BinOp::Shl, x, two);
    b.effect(Op::Store {
        space: ir::Space::Shared,
        addr: off,
        value: x,
        align: 4,
    });
    let back = b.op(
        Type::I32,
        Op::Load {
            space: ir::Space::Shared,
            addr: off,
            align: 4,
        },
    );
    let y = b.bin(BinOp::IAdd, back, x);
    b.effect(Op::WorkgroupBarrier);
    let a = b.element(out, x);
    b.store_global(a, y);
    let c = compile_items(&b.finish(), Options::default()).unwrap();
    let mut pending = [0u32; 2];
    let mut before_barrier = None;
    for it in &c.items {
        match it {
            Item::Op(Instr::DeviceMem(m)) => {
                pending[m.wait_slot as usize] += 1;
                assert!(
                    pending[m.wait_slot as usize] <= 8,
                    "slot {} overflows",
                    m.wait_slot
                );
            }
            Item::Op(Instr::Wait(w)) => pending[w.slot as usize] = 0,
            Item::Op(Instr::ThreadgroupMem(m)) => assert_eq!(m.wait_slot, 0),
            Item::Op(Instr::ThreadgroupBarrier) => before_barrier = Some(pending),
            _ => {}
        }
    }
    assert_eq!(
        before_barrier,
        Some([0, 0]),
        "the barrier must come after every store completes"
    );
    // The threadgroup load's result is used right away: no wait for it.
    let ops: Vec<&Item> = c.items.iter().collect();
    let tl = ops
        .iter()
        .position(|i| matches!(i, Item::Op(Instr::ThreadgroupMem(m)) if !m.store))
        .unwrap();
    assert!(matches!(ops[tl + 1], Item::Op(Instr::IAdd(_))));
}

#[path = "../../tests/common/glslang.rs"]
mod shared_glslang;
pub(crate) use shared_glslang::{glslang, glslang_env};

/// The lowered IR of a GLSL shader with `buffers` storage buffers in set 0.
pub(super) fn lowered(src: &str, buffers: u32) -> Option<Shader> {
    let spirv = glslang(src)?;
    let bindings = (0..buffers)
        .map(|b| crate::BindingLayout {
            binding: b,
            kind: crate::DescriptorKind::StorageBuffer,
            count: 1,
            offset: b * abi::BUFFER_DESCRIPTOR_SIZE,
        })
        .collect();
    let layout = crate::ResourceLayout {
        sets: vec![Some(crate::SetLayout { bindings })],
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    };
    let req = crate::ComputeRequest {
        spirv: &spirv,
        entry_point: "main",
        specialization: &[],
        layout: &layout,
        target: crate::Target::G13,
    };
    let mut shader = crate::frontend::translate(&req).expect("translate");
    crate::passes::run_all(&mut shader, &layout).expect("passes");
    Some(shader)
}

pub(super) const GLSL_PRESSURE: &str = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v[12];
    for (int k = 0; k < 12; k++) v[k] = a[(i + uint(k)) & 31u] * uint(k + 1);
    uint acc = 0u;
    for (uint r = 0u; r < (i & 7u) + 2u; r++) {
        if ((r & 1u) == 0u) {
            acc += v[0] ^ v[1] + v[2] * v[3] - v[4];
        } else {
            acc ^= v[5] + v[6] * r + v[7] - v[8] * v[9];
            if (acc > 0x80000000u) continue;
        }
        acc += v[10] * v[11] + r;
        if (acc == 12345u) break;
    }
    o[i] = acc + v[0] + v[11];
}
"#;

/// Whole `uvec4`s loaded and stored as 128-bit registers, six of them live across a loop.
pub(super) const GLSL_VEC4_PRESSURE: &str = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { uvec4 a[]; };
layout(std430, set = 0, binding = 1) buffer O { uvec4 o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uvec4 v0 = a[i & 7u], v1 = a[(i + 1u) & 7u], v2 = a[(i + 2u) & 7u];
    uvec4 v3 = a[(i + 3u) & 7u], v4 = a[(i + 4u) & 7u], v5 = a[(i + 5u) & 7u];
    uvec4 acc = uvec4(i);
    for (uint r = 0u; r < (i & 3u) + 2u; r++) {
        acc += v0 * v1 + (v2 ^ v3) - v4 * r + v5;
        acc = acc.yzwx;
    }
    o[i] = acc + v0;
}
"#;

/// How many 128-bit registers selection made (a test whose shader gets none tests nothing).
fn wide_registers(v: &VProgram) -> usize {
    v.vregs.iter().filter(|r| r.wide == Wide::Low).count()
}

#[test]
fn wide_registers_allocate_and_spill_correctly_at_every_budget() {
    let Some(s) = lowered(GLSL_VEC4_PRESSURE, 2) else {
        return;
    };
    let n = wide_registers(&isel::select(&s).expect("isel"));
    assert!(n >= 6, "{n} wide registers");
    let mut spilled = false;
    for budget in [GPR_HALVES, 64, 48, 32, 24, 16] {
        let a = alloc_and_verify(&s, budget);
        spilled |= a.origins.iter().any(|o| matches!(o, Origin::Fill { .. }))
            && a.items
                .iter()
                .any(|i| matches!(i, Item::Op(Instr::StackMem(m)) if !m.store && m.mask == 0b1111));
    }
    assert!(
        spilled,
        "a tight budget should spill a 128-bit register whole"
    );
}

#[test]
fn glsl_shaders_allocate_correctly_at_every_budget() {
    let Some(s) = lowered(GLSL_PRESSURE, 2) else {
        return;
    };
    let mut spilled = false;
    for budget in [GPR_HALVES, 48, 32, 24, 16] {
        let a = alloc_and_verify(&s, budget);
        spilled |= a.spills > 0;
    }
    assert!(spilled, "a tight budget should spill");
}

// ---------------------------------------------------------------------------------------
// Copy coalescing.

/// Plain copies between two different registers left in a compiled program.
fn register_copies(items: &[Item]) -> usize {
    items
        .iter()
        .filter(|i| match i {
            Item::Op(i) => plain_copy(i).is_some_and(|(s, d)| s != d),
            _ => false,
        })
        .count()
}

#[test]
fn variable_traffic_needs_no_copies() {
    // Every `Var` load and store in this loop can share the variable's register.
    let s = loop_shader(3);
    let v = isel::select(&s).unwrap();
    let before = v
        .items
        .iter()
        .filter(|i| matches!(i, Item::Op(i) if plain_copy(i).is_some()))
        .count();
    assert!(before >= 4, "isel emitted {before} copies");
    let c = compile_items(&s, Options::default()).unwrap();
    assert_eq!(register_copies(&c.items), 0, "{:#?}", c.items);
    assert!(!c.items.iter().any(super::coalesce::is_self_copy));
    for budget in [GPR_HALVES, 20, 16] {
        alloc_and_verify(&s, budget);
    }
}

/// Two variables swapped every iteration: the load of each must not share a register with
/// the other's store target while both are live.
pub(super) fn swap_shader() -> Shader {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let (va, vb, vi) = (b.var(Type::I32), b.var(Type::I32), b.var(Type::I32));
    let zero = b.c32(0);
    let hundred = b.c32(100);
    let xb = b.bin(BinOp::IAdd, x, hundred);
    b.store_var(va, x);
    b.store_var(vb, xb);
    b.store_var(vi, zero);
    b.loop_(|b| {
        let iv = b.load_var(vi);
        let lim = b.c32(5);
        let done = b.cmp(CmpOp::UGe, iv, lim);
        b.if_(done, |b| b.node(Node::Break), |_| {});
        let ta = b.load_var(va);
        let tb = b.load_var(vb);
        b.store_var(va, tb);
        // `ta` is read after `va` was written.
        let one = b.c32(1);
        let tb2 = b.bin(BinOp::IAdd, ta, one);
        b.store_var(vb, tb2);
        let next = b.bin(BinOp::IAdd, iv, one);
        b.store_var(vi, next);
    });
    let a = b.load_var(va);
    let bb = b.load_var(vb);
    let k = b.c32(1000);
    let a1000 = b.bin(BinOp::IMul, a, k);
    let r = b.bin(BinOp::IAdd, a1000, bb);
    let addr = b.element(out, x);
    b.store_global(addr, r);
    b.finish()
}

#[test]
fn swapped_variables_allocate_correctly() {
    let s = swap_shader();
    for budget in [GPR_HALVES, 16, 12, 10] {
        alloc_and_verify(&s, budget);
    }
}

#[test]
fn verifier_rejects_a_wrong_coalescing() {
    // Dropping a copy between two different registers must be caught: the copy's destination
    // no longer holds its value.
    let v = isel::select(&swap_shader()).unwrap();
    let mut a = allocate(&v, GPR_HALVES).unwrap();
    verify(&a).unwrap();
    let k = (0..a.items.len())
        .find(|&k| matches!(&a.items[k], Item::Op(i) if plain_copy(i).is_some_and(|(s, d)| s != d)))
        .expect("the swap keeps a copy");
    let Item::Op(Instr::IAdd(ref mut i)) = a.items[k] else {
        unreachable!()
    };
    i.dst.reg = match i.a.op {
        Operand::Reg(r) => r,
        _ => unreachable!(),
    };
    assert!(verify(&a).is_err());
}

// ---------------------------------------------------------------------------------------
// Constants in loops.

/// `h = h * 1664525 + 1013904223` for 6 iterations, starting from the thread index: both
/// constants need `mov_imm`.
pub(super) fn lcg_shader() -> Shader {
    let mut b = Build::new();
    let out = b.set0();
    let x = b.op(Type::I32, Op::SysVal(SysVal::LocalInvocationIndex));
    let (h, i) = (b.var(Type::I32), b.var(Type::I32));
    let zero = b.c32(0);
    b.store_var(h, x);
    b.store_var(i, zero);
    b.loop_(|b| {
        let iv = b.load_var(i);
        let lim = b.c32(6);
        let done = b.cmp(CmpOp::UGe, iv, lim);
        b.if_(done, |b| b.node(Node::Break), |_| {});
        let hv = b.load_var(h);
        let m = b.c32(1_664_525);
        let a = b.c32(1_013_904_223);
        let t = b.bin(BinOp::IMul, hv, m);
        let t = b.bin(BinOp::IAdd, t, a);
        b.store_var(h, t);
        let one = b.c32(1);
        let next = b.bin(BinOp::IAdd, iv, one);
        b.store_var(i, next);
    });
    let hv = b.load_var(h);
    let addr = b.element(out, x);
    b.store_global(addr, hv);
    b.finish()
}

/// Positions of the loop head and back edge, and of the `mov_imm`s of non-nesting registers.
fn loop_and_constants(items: &[Item]) -> ((usize, usize), Vec<usize>) {
    let mut head = None;
    let mut span = None;
    let mut movs = Vec::new();
    for (p, item) in items.iter().enumerate() {
        match item {
            Item::Label(l) => {
                head.get_or_insert((*l, p));
            }
            Item::Jump { target, .. } if head.is_some_and(|h| h.0 == *target) => {
                span = head.map(|h| (h.1, p));
            }
            Item::Op(Instr::MovImm(m)) if m.dst.reg != R0L && m.imm > 0xffff => movs.push(p),
            _ => {}
        }
    }
    (span.expect("a loop"), movs)
}

#[test]
fn loop_constants_move_out_unless_registers_are_short() {
    let s = lcg_shader();
    let roomy = alloc_and_verify(&s, GPR_HALVES);
    let ((head, back), movs) = loop_and_constants(&roomy.items);
    assert_eq!(movs.len(), 2);
    assert!(movs.iter().all(|&p| p < head), "{:#?}", roomy.items);
    let tight = alloc_and_verify(&s, 12);
    let ((head, back2), movs) = loop_and_constants(&tight.items);
    assert!(back > 0 && back2 > head);
    assert!(
        movs.iter().all(|&p| p > head && p < back2),
        "{:#?}",
        tight.items
    );
}
