//! 64-bit integer data becomes pairs of 32-bit values (low word, high word).
//!
//! The back ends keep I64 only for addresses (see `run_all`), so every other I64 value is
//! split here: add and subtract carry through an unsigned compare, multiply sums the cross
//! products with `UMulHigh`, shifts by a variable amount select between the `amount < 32`
//! and `amount >= 32` forms (never shifting a 32-bit word by 32, which hardware may mask),
//! comparisons combine the words, and division is a 64-step restoring long division in a
//! bounded loop. 64-bit loads and stores become two 32-bit accesses at `addr` and `addr + 4`.
//!
//! Conversions to F32 are exactly rounded (round to nearest even): the value is normalised so
//! its top set bit is bit 63, its high word keeps the 32 leading bits with a sticky bit for
//! anything below, the hardware's correctly rounded 32-bit conversion rounds that, and a
//! power-of-two scale (exact) puts the exponent back. F32 to 64-bit splits the value at 2^32
//! with a floor, which is exact because an F32 at or above 2^32 has no fraction bits;
//! negative inputs to the unsigned conversion give 0. F16 and 64-bit atomics are rejected.
//!
//! Address values are found first, walking back from every `Global` access's address operand
//! through `IAdd`, `Shl` (a high address word shifted into place) and address-word loads;
//! those instructions stay as they are. An application's address (`PhysicalAddress`, a
//! buffer device address) may come from any 64-bit arithmetic, so it is data like any other
//! I64 up to the mark, where its two words are put back together in the addressing form the
//! back ends take (`Shl(Conv(UToU, hi), 32) + Conv(UToU, lo)`).
//!
//! Runs after `scalarize` (so every I64 value is a scalar) and before `lower_int_div` and
//! `lower_float` (it emits nothing either needs to lower, but runs before them so the order
//! stays "expand, then lower to hardware operations").

use std::collections::{HashMap, HashSet};

use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Scalar, Shader, Space, Type, UnOp, Value, Var,
};
use crate::CompileError;

use super::{const_of, defs, for_each_inst, rewrite, Out};

type Pair = (Value, Value);

struct E<'a> {
    sh: &'a mut Shader,
    out: &'a mut Out,
}

fn unsupported(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}

impl E<'_> {
    fn op(&mut self, t: Type, op: Op) -> Value {
        self.out.def(self.sh, t, op)
    }
    fn c(&mut self, v: u32) -> Value {
        self.op(Type::I32, Op::Const(Constant(vec![v as u64])))
    }
    fn fc(&mut self, v: f32) -> Value {
        self.op(Type::F32, Op::Const(Constant(vec![v.to_bits() as u64])))
    }
    fn b(&mut self, b: BinOp, x: Value, y: Value) -> Value {
        let t = self.sh.ty(x);
        self.op(t, Op::Binary(b, x, y))
    }
    fn cmp(&mut self, c: CmpOp, x: Value, y: Value) -> Value {
        self.op(Type::BOOL, Op::Cmp(c, x, y))
    }
    fn sel(&mut self, c: Value, x: Value, y: Value) -> Value {
        let t = self.sh.ty(x);
        self.op(t, Op::Select(c, x, y))
    }
    fn conv(&mut self, c: ConvOp, t: Type, x: Value) -> Value {
        self.op(t, Op::Conv(c, x))
    }
    fn not(&mut self, x: Value) -> Value {
        let t = self.sh.ty(x);
        self.op(t, Op::Unary(UnOp::Not, x))
    }
    fn sel2(&mut self, c: Value, x: Pair, y: Pair) -> Pair {
        (self.sel(c, x.0, y.0), self.sel(c, x.1, y.1))
    }
    fn konst(&mut self, v: u64) -> Pair {
        (self.c(v as u32), self.c((v >> 32) as u32))
    }

    fn add(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.b(BinOp::IAdd, a.0, b.0);
        let carry = self.cmp(CmpOp::ULt, lo, a.0);
        let c = self.conv(ConvOp::BoolToInt, Type::I32, carry);
        let hi = self.b(BinOp::IAdd, a.1, b.1);
        let hi = self.b(BinOp::IAdd, hi, c);
        (lo, hi)
    }
    fn sub(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.b(BinOp::ISub, a.0, b.0);
        let borrow = self.cmp(CmpOp::ULt, a.0, b.0);
        let c = self.conv(ConvOp::BoolToInt, Type::I32, borrow);
        let hi = self.b(BinOp::ISub, a.1, b.1);
        let hi = self.b(BinOp::ISub, hi, c);
        (lo, hi)
    }
    fn neg(&mut self, a: Pair) -> Pair {
        let z = self.konst(0);
        self.sub(z, a)
    }
    fn mul(&mut self, a: Pair, b: Pair) -> Pair {
        let lo = self.b(BinOp::IMul, a.0, b.0);
        let h = self.b(BinOp::UMulHigh, a.0, b.0);
        let x = self.b(BinOp::IMul, a.0, b.1);
        let y = self.b(BinOp::IMul, a.1, b.0);
        let hi = self.b(BinOp::IAdd, h, x);
        let hi = self.b(BinOp::IAdd, hi, y);
        (lo, hi)
    }
    /// The high 64 bits of the 128-bit product: the four 32x32 partial products summed by
    /// word with their carries; the signed form then subtracts `b` if `a` is negative and
    /// `a` if `b` is (the two's complement correction, mod 2^64).
    fn mul_high(&mut self, signed: bool, a: Pair, b: Pair) -> Pair {
        let z = self.c(0);
        let mut part =
            |x: Value, y: Value| (self.b(BinOp::IMul, x, y), self.b(BinOp::UMulHigh, x, y));
        let (lo01, hi01) = part(a.0, b.1);
        let (lo10, hi10) = part(a.1, b.0);
        let (lo11, hi11) = part(a.1, b.1);
        let hi00 = self.b(BinOp::UMulHigh, a.0, b.0);
        // Word 1 and its carry into word 2.
        let mid = self.add((hi00, z), (lo01, z));
        let mid = self.add(mid, (lo10, z));
        let hi = self.add((hi01, hi11), (hi10, z));
        let hi = self.add(hi, (lo11, z));
        let mut hi = self.add(hi, (mid.1, z));
        if signed {
            let zero = self.konst(0);
            let an = self.is_neg(a);
            let bn = self.is_neg(b);
            let fb = self.sel2(an, b, zero);
            let fa = self.sel2(bn, a, zero);
            hi = self.sub(hi, fb);
            hi = self.sub(hi, fa);
        }
        hi
    }
    fn bitwise(&mut self, op: BinOp, a: Pair, b: Pair) -> Pair {
        (self.b(op, a.0, b.0), self.b(op, a.1, b.1))
    }
    fn eq(&mut self, a: Pair, b: Pair) -> Value {
        let l = self.cmp(CmpOp::IEq, a.0, b.0);
        let h = self.cmp(CmpOp::IEq, a.1, b.1);
        self.op(Type::BOOL, Op::Binary(BinOp::And, l, h))
    }
    /// a < b (`signed` compares the high words as signed).
    fn lt(&mut self, signed: bool, a: Pair, b: Pair) -> Value {
        let hlt = self.cmp(if signed { CmpOp::SLt } else { CmpOp::ULt }, a.1, b.1);
        let heq = self.cmp(CmpOp::IEq, a.1, b.1);
        let llt = self.cmp(CmpOp::ULt, a.0, b.0);
        let t = self.op(Type::BOOL, Op::Binary(BinOp::And, heq, llt));
        self.op(Type::BOOL, Op::Binary(BinOp::Or, hlt, t))
    }
    fn is_neg(&mut self, a: Pair) -> Value {
        let z = self.c(0);
        self.cmp(CmpOp::SLt, a.1, z)
    }
    fn abs(&mut self, a: Pair) -> (Pair, Value) {
        let n = self.is_neg(a);
        let na = self.neg(a);
        (self.sel2(n, na, a), n)
    }

    /// Splits a shift amount (I32 already reduced to 0..63) into (amount >= 32, amount & 31).
    fn amount(&mut self, s: Value) -> (Value, Value, Value) {
        let c32 = self.c(32);
        let big = self.cmp(CmpOp::UGe, s, c32);
        let c31 = self.c(31);
        let s5 = self.b(BinOp::And, s, c31);
        let inv = self.b(BinOp::ISub, c31, s5);
        (big, s5, inv)
    }
    fn shl(&mut self, a: Pair, s: Value) -> Pair {
        let (big, s5, inv) = self.amount(s);
        let one = self.c(1);
        let tlo = self.b(BinOp::Shl, a.0, s5);
        let h = self.b(BinOp::Shl, a.1, s5);
        // lo >> (32 - s5) without ever shifting by 32.
        let spill = self.b(BinOp::UShr, a.0, one);
        let spill = self.b(BinOp::UShr, spill, inv);
        let thi = self.b(BinOp::Or, h, spill);
        let z = self.c(0);
        (self.sel(big, z, tlo), self.sel(big, tlo, thi))
    }
    fn shr(&mut self, signed: bool, a: Pair, s: Value) -> Pair {
        let (big, s5, inv) = self.amount(s);
        let one = self.c(1);
        let op = if signed { BinOp::SShr } else { BinOp::UShr };
        let thi = self.b(op, a.1, s5);
        let l = self.b(BinOp::UShr, a.0, s5);
        let spill = self.b(BinOp::Shl, a.1, one);
        let spill = self.b(BinOp::Shl, spill, inv);
        let tlo = self.b(BinOp::Or, l, spill);
        let fill = if signed {
            let c31 = self.c(31);
            self.b(BinOp::SShr, a.1, c31)
        } else {
            self.c(0)
        };
        (self.sel(big, thi, tlo), self.sel(big, fill, thi))
    }

    /// `a` shifted by the constant `k` (0..63) with `op` (Shl, UShr or SShr).
    fn shift_by(&mut self, op: BinOp, a: Pair, k: u32) -> Pair {
        if k == 0 {
            return a;
        }
        let signed = op == BinOp::SShr;
        if k >= 32 {
            let r = k - 32;
            return if op == BinOp::Shl {
                let lo = self.c(0);
                let hi = if r == 0 {
                    a.0
                } else {
                    let c = self.c(r);
                    self.b(BinOp::Shl, a.0, c)
                };
                (lo, hi)
            } else {
                let shr = if signed { BinOp::SShr } else { BinOp::UShr };
                let lo = if r == 0 {
                    a.1
                } else {
                    let c = self.c(r);
                    self.b(shr, a.1, c)
                };
                let hi = if signed {
                    let c31 = self.c(31);
                    self.b(BinOp::SShr, a.1, c31)
                } else {
                    self.c(0)
                };
                (lo, hi)
            };
        }
        let (ck, cinv) = (self.c(k), self.c(32 - k));
        if op == BinOp::Shl {
            let lo = self.b(BinOp::Shl, a.0, ck);
            let h = self.b(BinOp::Shl, a.1, ck);
            let spill = self.b(BinOp::UShr, a.0, cinv);
            (lo, self.b(BinOp::Or, h, spill))
        } else {
            let l = self.b(BinOp::UShr, a.0, ck);
            let spill = self.b(BinOp::Shl, a.1, cinv);
            let lo = self.b(BinOp::Or, l, spill);
            (lo, self.b(op, a.1, ck))
        }
    }

    /// Unsigned quotient and remainder by restoring long division, one bit per iteration of a
    /// loop that runs exactly 64 times. Division by zero gives an all-ones quotient and the
    /// dividend as remainder (undefined in SPIR-V, but deterministic here).
    fn udivmod(&mut self, n: Pair, d: Pair) -> (Pair, Pair) {
        let vars: Vec<Var> = (0..5).map(|_| self.sh.new_var(Type::I32)).collect();
        let (ql, qh, rl, rh, iv) = (vars[0], vars[1], vars[2], vars[3], vars[4]);
        let z = self.c(0);
        for (v, x) in [(ql, n.0), (qh, n.1), (rl, z), (rh, z), (iv, z)] {
            self.out.effect(Op::StoreVar(v, x));
        }
        let mut body = Out { nodes: Vec::new() };
        {
            let mut e = E {
                sh: self.sh,
                out: &mut body,
            };
            let i = e.op(Type::I32, Op::LoadVar(iv));
            let c64 = e.c(64);
            let done = e.cmp(CmpOp::IEq, i, c64);
            e.out.node(Node::If {
                cond: done,
                then_body: vec![Node::Break],
                else_body: vec![],
            });
            let q = (
                e.op(Type::I32, Op::LoadVar(ql)),
                e.op(Type::I32, Op::LoadVar(qh)),
            );
            let r = (
                e.op(Type::I32, Op::LoadVar(rl)),
                e.op(Type::I32, Op::LoadVar(rh)),
            );
            let one = e.c(1);
            let c31 = e.c(31);
            // (r, q) <<= 1 as one 128-bit value.
            let top = e.b(BinOp::UShr, q.1, c31);
            let r = e.shl1(r, one, c31);
            let r = (e.b(BinOp::Or, r.0, top), r.1);
            let q = e.shl1(q, one, c31);
            let less = e.lt(false, r, d);
            let ge = e.not(less);
            let rd = e.sub(r, d);
            let r = e.sel2(ge, rd, r);
            let bit = e.conv(ConvOp::BoolToInt, Type::I32, ge);
            let q0 = e.b(BinOp::Or, q.0, bit);
            let i1 = e.b(BinOp::IAdd, i, one);
            for (v, x) in [(ql, q0), (qh, q.1), (rl, r.0), (rh, r.1), (iv, i1)] {
                e.out.effect(Op::StoreVar(v, x));
            }
        }
        self.out.node(Node::Loop { body: body.nodes });
        let q = (
            self.op(Type::I32, Op::LoadVar(ql)),
            self.op(Type::I32, Op::LoadVar(qh)),
        );
        let r = (
            self.op(Type::I32, Op::LoadVar(rl)),
            self.op(Type::I32, Op::LoadVar(rh)),
        );
        (q, r)
    }
    fn shl1(&mut self, a: Pair, one: Value, c31: Value) -> Pair {
        let lo = self.b(BinOp::Shl, a.0, one);
        let h = self.b(BinOp::Shl, a.1, one);
        let carry = self.b(BinOp::UShr, a.0, c31);
        (lo, self.b(BinOp::Or, h, carry))
    }

    fn div(&mut self, op: BinOp, n: Pair, d: Pair) -> Result<Pair, CompileError> {
        Ok(match op {
            BinOp::UDiv => self.udivmod(n, d).0,
            BinOp::UMod => self.udivmod(n, d).1,
            BinOp::SDiv => {
                let (an, nn) = self.abs(n);
                let (ad, dn) = self.abs(d);
                let q = self.udivmod(an, ad).0;
                let flip = self.op(Type::BOOL, Op::Binary(BinOp::Xor, nn, dn));
                let nq = self.neg(q);
                self.sel2(flip, nq, q)
            }
            BinOp::SRem | BinOp::SMod => {
                let (an, nn) = self.abs(n);
                let (ad, dn) = self.abs(d);
                let r = self.udivmod(an, ad).1;
                let nr = self.neg(r);
                let r = self.sel2(nn, nr, r);
                if op == BinOp::SRem {
                    r
                } else {
                    // The result takes the divisor's sign: add the divisor when a nonzero
                    // remainder has the other sign.
                    let z = self.konst(0);
                    let is_zero = self.eq(r, z);
                    let nz = self.not(is_zero);
                    let rn = self.is_neg(r);
                    let differ = self.op(Type::BOOL, Op::Binary(BinOp::Xor, rn, dn));
                    let fix = self.op(Type::BOOL, Op::Binary(BinOp::And, nz, differ));
                    let rd = self.add(r, d);
                    self.sel2(fix, rd, r)
                }
            }
            _ => return Err(CompileError::Internal("lower_int64: not a division".into())),
        })
    }

    fn u_to_f(&mut self, a: Pair) -> Value {
        let small = self.conv(ConvOp::UToF, Type::F32, a.0);
        let z = self.c(0);
        let hi_zero = self.cmp(CmpOp::IEq, a.1, z);
        // Normalise so bit 63 is set (s = leading zeros of the high word; garbage, but never
        // selected, when the high word is 0).
        let msb = self.op(Type::I32, Op::Unary(UnOp::UFindMsb, a.1));
        let c31 = self.c(31);
        let s = self.b(BinOp::ISub, c31, msb);
        let s = self.b(BinOp::And, s, c31);
        let norm = self.shl(a, s);
        let sticky = self.cmp(CmpOp::INe, norm.0, z);
        let sbit = self.conv(ConvOp::BoolToInt, Type::I32, sticky);
        let m = self.b(BinOp::Or, norm.1, sbit);
        let fm = self.conv(ConvOp::UToF, Type::F32, m);
        // 2^(32 - s) built from its exponent field.
        let e = self.c(127 + 32);
        let e = self.b(BinOp::ISub, e, s);
        let c23 = self.c(23);
        let e = self.b(BinOp::Shl, e, c23);
        let scale = self.conv(ConvOp::Bitcast, Type::F32, e);
        let big = self.op(Type::F32, Op::Binary(BinOp::FMul, fm, scale));
        self.sel(hi_zero, small, big)
    }
    fn s_to_f(&mut self, a: Pair) -> Value {
        let (m, n) = self.abs(a);
        let f = self.u_to_f(m);
        let nf = self.op(Type::F32, Op::Unary(UnOp::FNeg, f));
        self.sel(n, nf, f)
    }
    fn f_to_u(&mut self, f: Value) -> Pair {
        let z = self.fc(0.0);
        let f = self.op(Type::F32, Op::Binary(BinOp::FMax, f, z));
        let inv = self.fc(1.0 / 4294967296.0);
        let h = self.op(Type::F32, Op::Binary(BinOp::FMul, f, inv));
        let h = self.op(Type::F32, Op::Unary(UnOp::FFloor, h));
        let p = self.fc(-4294967296.0);
        let l = self.op(Type::F32, Op::FFma(h, p, f));
        (
            self.conv(ConvOp::FToU, Type::I32, l),
            self.conv(ConvOp::FToU, Type::I32, h),
        )
    }
    fn f_to_s(&mut self, f: Value) -> Pair {
        let z = self.fc(0.0);
        let n = self.cmp(CmpOp::FOLt, f, z);
        let a = self.op(Type::F32, Op::Unary(UnOp::FAbs, f));
        let u = self.f_to_u(a);
        let nu = self.neg(u);
        self.sel2(n, nu, u)
    }

    /// The I32 shift amount of a (possibly 64-bit) amount operand, reduced to 0..63.
    fn amount64(&mut self, s: Value, pairs: &Pairs) -> Result<Value, CompileError> {
        let s = if self.sh.ty(s) == Type::I64 {
            pairs.get(s)?.0
        } else {
            s
        };
        let c63 = self.c(63);
        Ok(self.b(BinOp::And, s, c63))
    }

    fn addr_plus4(&mut self, space: Space, addr: Value, d: &HashMap<Value, Op>) -> Value {
        match space {
            Space::Global => {
                let four = self.c(4);
                let f64 = self.conv(ConvOp::UToU, Type::I64, four);
                self.op(Type::I64, Op::Binary(BinOp::IAdd, addr, f64))
            }
            _ => match const_of(d, addr) {
                Some([k]) => self.c((*k as u32).wrapping_add(4)),
                _ => {
                    let four = self.c(4);
                    self.b(BinOp::IAdd, addr, four)
                }
            },
        }
    }
}

struct Pairs(HashMap<Value, Pair>);

impl Pairs {
    fn get(&self, v: Value) -> Result<Pair, CompileError> {
        self.0.get(&v).copied().ok_or_else(|| {
            CompileError::Internal(format!(
                "lower_int64: %{} is used as 64-bit data but is an address or undefined",
                v.0
            ))
        })
    }
}

/// I64 values that are addresses: reached backwards from `Global` access addresses.
fn addresses(sh: &Shader) -> HashSet<Value> {
    let d = defs(sh);
    let mut work = Vec::new();
    for_each_inst(&sh.body, &mut |i| match &i.op {
        Op::Load {
            space: Space::Global,
            addr,
            ..
        }
        | Op::Store {
            space: Space::Global,
            addr,
            ..
        }
        | Op::Atomic {
            space: Space::Global,
            addr,
            ..
        } => work.push(*addr),
        _ => {}
    });
    let mut set = HashSet::new();
    while let Some(v) = work.pop() {
        if sh.ty(v) != Type::I64 || !set.insert(v) {
            continue;
        }
        match d.get(&v) {
            Some(Op::Binary(BinOp::IAdd, a, b)) => {
                work.push(*a);
                work.push(*b);
            }
            // A high address word moved into place (`lower_image_atomics`).
            Some(Op::Binary(BinOp::Shl, a, _)) => work.push(*a),
            Some(Op::Load {
                space: Space::Global,
                addr,
                ..
            }) => work.push(*addr),
            _ => {}
        }
    }
    set
}

fn is64(sh: &Shader, v: Value) -> bool {
    sh.ty(v).scalar == Scalar::I64
}

pub fn lower_int64(sh: &mut Shader) -> Result<(), CompileError> {
    let addrs = addresses(sh);
    let d = defs(sh);
    let mut var_pairs: HashMap<Var, (Var, Var)> = HashMap::new();
    for (i, t) in sh.var_types.clone().iter().enumerate() {
        if t.scalar == Scalar::I64 {
            if t.lanes != 1 {
                return Err(CompileError::Internal(
                    "lower_int64: vector variable after scalarize".into(),
                ));
            }
            let lo = sh.new_var(Type::I32);
            let hi = sh.new_var(Type::I32);
            var_pairs.insert(Var(i as u32), (lo, hi));
        }
    }
    let mut pairs = Pairs(HashMap::new());
    rewrite(sh, &mut |sh, inst, out| {
        if let (Op::PhysicalAddress(x), Some(dst)) = (&inst.op, inst.dst) {
            let (lo, hi) = pairs.get(*x)?;
            let hi64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, hi));
            let k32 = out.def(sh, Type::I32, Op::Const(Constant(vec![32])));
            let hi64 = out.def(sh, Type::I64, Op::Binary(BinOp::Shl, hi64, k32));
            let lo64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, lo));
            out.inst(Inst {
                dst: Some(dst),
                op: Op::Binary(BinOp::IAdd, hi64, lo64),
            });
            return Ok(());
        }
        if inst.dst.is_some_and(|v| addrs.contains(&v)) {
            out.inst(inst);
            return Ok(());
        }
        let involved = inst.dst.is_some_and(|v| is64(sh, v))
            || crate::ir::validate::op_operands(&inst.op)
                .iter()
                .any(|v| is64(sh, *v) && !addrs.contains(v))
            || matches!(&inst.op, Op::LoadVar(v) | Op::StoreVar(v, _) if var_pairs.contains_key(v));
        if !involved {
            out.inst(inst);
            return Ok(());
        }
        let dst = inst.dst;
        let dty = dst.map(|v| sh.ty(v));
        if dty.is_some_and(|t| !t.is_scalar()) {
            return Err(CompileError::Internal(
                "lower_int64: vector value after scalarize".into(),
            ));
        }
        let mut e = E { sh, out };
        // A 64-bit result (Some(pair)) or a narrower one (Err-free value via `scalar`).
        let mut scalar: Option<Value> = None;
        let mut pair: Option<Pair> = None;
        match inst.op {
            Op::Const(c) => pair = Some(e.konst(c.0.first().copied().unwrap_or(0))),
            Op::Copy(x) => pair = Some(pairs.get(x)?),
            Op::Unary(u, x) => {
                let a = pairs.get(x)?;
                match u {
                    UnOp::INeg => pair = Some(e.neg(a)),
                    UnOp::Not => pair = Some((e.not(a.0), e.not(a.1))),
                    UnOp::IAbs => pair = Some(e.abs(a).0),
                    UnOp::ISign => {
                        let n = e.is_neg(a);
                        let z = e.konst(0);
                        let is_zero = e.eq(a, z);
                        let m1 = e.konst(u64::MAX);
                        let one = e.konst(1);
                        let p = e.sel2(is_zero, z, one);
                        pair = Some(e.sel2(n, m1, p));
                    }
                    UnOp::BitCount => {
                        let l = e.op(Type::I32, Op::Unary(UnOp::BitCount, a.0));
                        let h = e.op(Type::I32, Op::Unary(UnOp::BitCount, a.1));
                        let s = e.b(BinOp::IAdd, l, h);
                        let z = e.c(0);
                        pair = Some((s, z));
                    }
                    other => return Err(unsupported(format!("{other:?} on 64-bit integers"))),
                }
            }
            Op::Binary(b, x, y) => {
                let shift = matches!(b, BinOp::Shl | BinOp::UShr | BinOp::SShr);
                if shift && !is64(e.sh, x) {
                    // A 32-bit value shifted by a 64-bit amount.
                    let s = pairs.get(y)?.0;
                    scalar = Some(e.op(e.sh.ty(x), Op::Binary(b, x, s)));
                } else if let (true, Some([k])) = (shift, const_of(&d, y)) {
                    // A constant amount (as bitcasts and address words use): no selects.
                    let a = pairs.get(x)?;
                    pair = Some(e.shift_by(b, a, (*k & 63) as u32));
                } else if shift {
                    let a = pairs.get(x)?;
                    let s = e.amount64(y, &pairs)?;
                    pair = Some(match b {
                        BinOp::Shl => e.shl(a, s),
                        BinOp::UShr => e.shr(false, a, s),
                        _ => e.shr(true, a, s),
                    });
                } else {
                    let (a, c) = (pairs.get(x)?, pairs.get(y)?);
                    pair = Some(match b {
                        BinOp::IAdd => e.add(a, c),
                        BinOp::ISub => e.sub(a, c),
                        BinOp::IMul => e.mul(a, c),
                        BinOp::UMulHigh => e.mul_high(false, a, c),
                        BinOp::SMulHigh => e.mul_high(true, a, c),
                        BinOp::And | BinOp::Or | BinOp::Xor => e.bitwise(b, a, c),
                        BinOp::UDiv | BinOp::SDiv | BinOp::UMod | BinOp::SRem | BinOp::SMod => {
                            e.div(b, a, c)?
                        }
                        BinOp::UMin | BinOp::UMax | BinOp::SMin | BinOp::SMax => {
                            let signed = matches!(b, BinOp::SMin | BinOp::SMax);
                            let lt = e.lt(signed, a, c);
                            if matches!(b, BinOp::UMin | BinOp::SMin) {
                                e.sel2(lt, a, c)
                            } else {
                                e.sel2(lt, c, a)
                            }
                        }
                        other => return Err(unsupported(format!("{other:?} on 64-bit integers"))),
                    });
                }
            }
            Op::Cmp(c, x, y) => {
                let (a, b) = (pairs.get(x)?, pairs.get(y)?);
                scalar = Some(match c {
                    CmpOp::IEq => e.eq(a, b),
                    CmpOp::INe => {
                        let q = e.eq(a, b);
                        e.not(q)
                    }
                    CmpOp::ULt => e.lt(false, a, b),
                    CmpOp::SLt => e.lt(true, a, b),
                    CmpOp::UGt => e.lt(false, b, a),
                    CmpOp::SGt => e.lt(true, b, a),
                    CmpOp::ULe | CmpOp::SLe => {
                        let g = e.lt(c == CmpOp::SLe, b, a);
                        e.not(g)
                    }
                    CmpOp::UGe | CmpOp::SGe => {
                        let l = e.lt(c == CmpOp::SGe, a, b);
                        e.not(l)
                    }
                    other => return Err(unsupported(format!("{other:?} on 64-bit integers"))),
                });
            }
            Op::Select(c, x, y) => {
                let (a, b) = (pairs.get(x)?, pairs.get(y)?);
                pair = Some(e.sel2(c, a, b));
            }
            Op::Conv(c, x) => {
                let (st, Some(dt)) = (e.sh.ty(x), dty) else {
                    return Err(CompileError::Internal("lower_int64: conversion".into()));
                };
                match (c, st.scalar == Scalar::I64, dt.scalar) {
                    (ConvOp::UToU | ConvOp::SToS | ConvOp::Bitcast, true, Scalar::I64) => {
                        pair = Some(pairs.get(x)?)
                    }
                    (ConvOp::UToU | ConvOp::SToS, true, Scalar::I32) => {
                        scalar = Some(pairs.get(x)?.0)
                    }
                    (ConvOp::UToU | ConvOp::SToS, true, Scalar::I8 | Scalar::I16) => {
                        let lo = pairs.get(x)?.0;
                        scalar = Some(e.conv(c, dt, lo));
                    }
                    (ConvOp::UToU | ConvOp::SToS | ConvOp::BoolToInt, false, Scalar::I64) => {
                        let x32 = if st == Type::I32 {
                            x
                        } else {
                            e.conv(c, Type::I32, x)
                        };
                        let hi = if c == ConvOp::SToS {
                            let c31 = e.c(31);
                            e.b(BinOp::SShr, x32, c31)
                        } else {
                            e.c(0)
                        };
                        pair = Some((x32, hi));
                    }
                    (ConvOp::UToF, true, Scalar::F32) => scalar = Some(e.u_to_f(pairs.get(x)?)),
                    (ConvOp::SToF, true, Scalar::F32) => scalar = Some(e.s_to_f(pairs.get(x)?)),
                    (ConvOp::FToU, false, Scalar::I64) if st.scalar == Scalar::F32 => {
                        pair = Some(e.f_to_u(x))
                    }
                    (ConvOp::FToS, false, Scalar::I64) if st.scalar == Scalar::F32 => {
                        pair = Some(e.f_to_s(x))
                    }
                    _ => {
                        return Err(unsupported(format!(
                            "conversion {c:?} from {:?} to {:?}",
                            st.scalar, dt.scalar
                        )))
                    }
                }
            }
            Op::LoadVar(v) => {
                let (lo, hi) = var_pairs[&v];
                pair = Some((
                    e.op(Type::I32, Op::LoadVar(lo)),
                    e.op(Type::I32, Op::LoadVar(hi)),
                ));
            }
            Op::StoreVar(v, x) => {
                let (lo, hi) = var_pairs[&v];
                let p = pairs.get(x)?;
                e.out.effect(Op::StoreVar(lo, p.0));
                e.out.effect(Op::StoreVar(hi, p.1));
                return Ok(());
            }
            Op::Load { space, addr, align } => {
                let a4 = e.addr_plus4(space, addr, &d);
                let al = align.min(4);
                let lo = e.op(
                    Type::I32,
                    Op::Load {
                        space,
                        addr,
                        align: al,
                    },
                );
                let hi = e.op(
                    Type::I32,
                    Op::Load {
                        space,
                        addr: a4,
                        align: al,
                    },
                );
                pair = Some((lo, hi));
            }
            Op::Store {
                space,
                addr,
                value,
                align,
            } => {
                let p = pairs.get(value)?;
                let a4 = e.addr_plus4(space, addr, &d);
                let al = align.min(4);
                e.out.effect(Op::Store {
                    space,
                    addr,
                    value: p.0,
                    align: al,
                });
                e.out.effect(Op::Store {
                    space,
                    addr: a4,
                    value: p.1,
                    align: al,
                });
                return Ok(());
            }
            Op::Atomic { .. } => {
                return Err(unsupported(
                    "64-bit atomics (shaderBufferInt64Atomics is not supported)",
                ))
            }
            other => return Err(unsupported(format!("64-bit integers in {other:?}"))),
        }
        match (dst, pair, scalar) {
            (Some(d), Some(p), None) => {
                pairs.0.insert(d, p);
            }
            (Some(d), None, Some(v)) => e.out.inst(Inst {
                dst: Some(d),
                op: Op::Copy(v),
            }),
            _ => {
                return Err(CompileError::Internal(
                    "lower_int64: result of the wrong width".into(),
                ))
            }
        }
        Ok(())
    })?;
    // The 64-bit variables are gone; keep their slots typed as I32 for the validator's sake.
    for (v, _) in var_pairs {
        sh.var_types[v.0 as usize] = Type::I32;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{const_fold, copy_prop, dce, lower_float, lower_int_div, promote_vars};
    use super::lower_int64;
    use crate::abi;
    use crate::ir::interp::{self, Dispatch, Regions};
    use crate::ir::validate::backend_form;
    use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Inst, Op, Shader, Space, Type, UnOp, Value};
    use crate::ResourceLayout;

    const OUT: u64 = 0x1000;
    const N_OUT: usize = 40;
    /// Constant shift amounts checked, including the 32-bit boundary and 64 (taken mod 64).
    const CONST_SHIFTS: [u32; 7] = [0, 5, 31, 32, 37, 63, 64];

    struct B {
        sh: Shader,
        cur: Vec<Inst>,
        slot: u32,
    }

    impl B {
        fn op(&mut self, t: Type, op: Op) -> Value {
            let v = self.sh.new_value(t);
            self.cur.push(Inst { dst: Some(v), op });
            v
        }
        fn c(&mut self, x: u32) -> Value {
            self.op(Type::I32, Op::Const(Constant(vec![x as u64])))
        }
        fn root(&mut self, t: Type, off: u32) -> Value {
            let a = self.c(off);
            self.op(
                t,
                Op::Load {
                    space: Space::Root,
                    addr: a,
                    align: 4,
                },
            )
        }
        /// Stores `v` (any 32- or 64-bit scalar) to the next 8-byte output slot.
        fn out(&mut self, v: Value) {
            let base = self.root(Type::I64, 0);
            let o = self.c(8 * self.slot);
            self.slot += 1;
            let o64 = self.op(Type::I64, Op::Conv(ConvOp::UToU, o));
            let a = self.op(Type::I64, Op::Binary(BinOp::IAdd, base, o64));
            let v = if self.sh.ty(v) == Type::BOOL {
                self.op(Type::I32, Op::Conv(ConvOp::BoolToInt, v))
            } else {
                v
            };
            self.cur.push(Inst {
                dst: None,
                op: Op::Store {
                    space: Space::Global,
                    addr: a,
                    value: v,
                    align: 8,
                },
            });
        }
    }

    /// The shader: inputs a, b (I64), f (F32), s (I32) in the push constants; every output
    /// slot one operation.
    fn shader() -> Shader {
        let mut b = B {
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
            slot: 0,
        };
        let p = abi::PUSH_CONSTANTS_OFFSET;
        let x = b.root(Type::I64, p);
        let y = b.root(Type::I64, p + 8);
        let f = b.root(Type::F32, p + 16);
        let s = b.root(Type::I32, p + 20);
        let l = Type::I64;
        for op in [
            BinOp::IAdd,
            BinOp::ISub,
            BinOp::IMul,
            BinOp::UDiv,
            BinOp::SDiv,
            BinOp::UMod,
            BinOp::SRem,
            BinOp::SMod,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::UMin,
            BinOp::SMin,
            BinOp::UMax,
            BinOp::SMax,
        ] {
            let r = b.op(l, Op::Binary(op, x, y)); // slots 0..15
            b.out(r);
        }
        for op in [BinOp::Shl, BinOp::UShr, BinOp::SShr] {
            let r = b.op(l, Op::Binary(op, x, s)); // slots 15..18 (I32 amount)
            b.out(r);
            let r = b.op(l, Op::Binary(op, x, y)); // slots 18.. (I64 amount)
            b.out(r);
        }
        for c in [
            CmpOp::IEq,
            CmpOp::INe,
            CmpOp::ULt,
            CmpOp::ULe,
            CmpOp::UGt,
            CmpOp::UGe,
            CmpOp::SLt,
            CmpOp::SLe,
            CmpOp::SGt,
            CmpOp::SGe,
        ] {
            let r = b.op(Type::BOOL, Op::Cmp(c, x, y)); // slots 21..31
            b.out(r);
        }
        for u in [
            UnOp::INeg,
            UnOp::Not,
            UnOp::IAbs,
            UnOp::ISign,
            UnOp::BitCount,
        ] {
            let r = b.op(l, Op::Unary(u, x)); // slots 31..36
            b.out(r);
        }
        let r = b.op(Type::F32, Op::Conv(ConvOp::UToF, x)); // 36
        b.out(r);
        let r = b.op(Type::F32, Op::Conv(ConvOp::SToF, x)); // 37
        b.out(r);
        let r = b.op(l, Op::Conv(ConvOp::FToU, f)); // 38
        b.out(r);
        let r = b.op(l, Op::Conv(ConvOp::FToS, f)); // 39
        b.out(r);
        let r = b.op(l, Op::Conv(ConvOp::SToS, s)); // 40
        b.out(r);
        let r = b.op(l, Op::Conv(ConvOp::UToU, s)); // 41
        b.out(r);
        let r = b.op(Type::I32, Op::Conv(ConvOp::UToU, y)); // 42
        b.out(r);
        // Through a variable and a select.
        let var = b.sh.new_var(l);
        let lt = b.op(Type::BOOL, Op::Cmp(CmpOp::SLt, x, y));
        let m = b.op(l, Op::Select(lt, y, x));
        b.cur.push(Inst {
            dst: None,
            op: Op::StoreVar(var, m),
        });
        let r = b.op(l, Op::LoadVar(var)); // 43
        b.out(r);
        let k = b.op(l, Op::Const(Constant(vec![0x1234_5678_9abc_def0])));
        let r = b.op(l, Op::Binary(BinOp::IAdd, x, k)); // 44
        b.out(r);
        // Shifts by constant amounts (45..): each op by each of CONST_SHIFTS.
        for op in [BinOp::Shl, BinOp::UShr, BinOp::SShr] {
            for k in CONST_SHIFTS {
                let c = b.op(Type::I32, Op::Const(Constant(vec![u64::from(k)])));
                let r = b.op(l, Op::Binary(op, x, c));
                b.out(r);
            }
        }
        assert_eq!(b.slot as usize, N_OUT + 5 + 3 * CONST_SHIFTS.len());
        let blk = crate::ir::Node::Block(std::mem::take(&mut b.cur));
        b.sh.body.push(blk);
        b.sh
    }

    fn lowered() -> Shader {
        let mut sh = shader();
        crate::ir::validate::validate(&sh).unwrap();
        lower_int64(&mut sh).unwrap();
        copy_prop(&mut sh).unwrap();
        lower_int_div(&mut sh).unwrap();
        lower_float(&mut sh).unwrap();
        const_fold(&mut sh).unwrap();
        copy_prop(&mut sh).unwrap();
        promote_vars(&mut sh).unwrap();
        copy_prop(&mut sh).unwrap();
        dce(&mut sh).unwrap();
        backend_form(&sh).unwrap_or_else(|e| panic!("{e}\n{}", crate::ir::print::print(&sh)));
        sh
    }

    fn run(sh: &Shader, a: u64, b: u64, f: f32, s: u32) -> Vec<u64> {
        let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
        root[0..8].copy_from_slice(&OUT.to_le_bytes());
        let p = abi::PUSH_CONSTANTS_OFFSET as usize;
        root[p..p + 8].copy_from_slice(&a.to_le_bytes());
        root[p + 8..p + 16].copy_from_slice(&b.to_le_bytes());
        root[p + 16..p + 20].copy_from_slice(&f.to_bits().to_le_bytes());
        root[p + 20..p + 24].copy_from_slice(&s.to_le_bytes());
        let mut mem = Regions::default();
        mem.add(OUT, vec![0xee; 8 * (N_OUT + 5 + 3 * CONST_SHIFTS.len())]);
        let layout = ResourceLayout::default();
        let d = Dispatch {
            workgroups: [1, 1, 1],
            root: &root,
            layout: &layout,
            step_limit: 10_000_000,
        };
        interp::run(sh, &d, &mut mem).unwrap();
        mem.bytes(OUT)
            .unwrap()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// What each slot must hold, computed with Rust's u64/i64 arithmetic. `None`: undefined
    /// in SPIR-V (division by zero), not checked. 32-bit results occupy the low word; the
    /// high word of their slot keeps the fill pattern.
    fn expected(a: u64, b: u64, f: f32, s: u32) -> Vec<Option<u64>> {
        let (sa, sb) = (a as i64, b as i64);
        let fill = 0xeeee_eeee_0000_0000u64;
        let w = |x: u32| Some(fill | x as u64);
        let bl = |c: bool| w(c as u32);
        let nz = |x: u64| (b != 0).then_some(x);
        let smod = {
            let r = sa.wrapping_rem(if sb == 0 { 1 } else { sb });
            if r != 0 && (r < 0) != (sb < 0) {
                r.wrapping_add(sb)
            } else {
                r
            }
        };
        let sign = sa.signum() as u64;
        vec![
            Some(a.wrapping_add(b)),
            Some(a.wrapping_sub(b)),
            Some(a.wrapping_mul(b)),
            nz(a.checked_div(b).unwrap_or(0)),
            nz(if b == 0 {
                0
            } else {
                sa.wrapping_div(sb) as u64
            }),
            nz(a.checked_rem(b).unwrap_or(0)),
            nz(if b == 0 {
                0
            } else {
                sa.wrapping_rem(sb) as u64
            }),
            nz(smod as u64),
            Some(a & b),
            Some(a | b),
            Some(a ^ b),
            Some(a.min(b)),
            Some(sa.min(sb) as u64),
            Some(a.max(b)),
            Some(sa.max(sb) as u64),
            Some(a << (s & 63)),
            Some(a << (b & 63)),
            Some(a >> (s & 63)),
            Some(a >> (b & 63)),
            Some((sa >> (s & 63)) as u64),
            Some((sa >> (b & 63)) as u64),
            bl(a == b),
            bl(a != b),
            bl(a < b),
            bl(a <= b),
            bl(a > b),
            bl(a >= b),
            bl(sa < sb),
            bl(sa <= sb),
            bl(sa > sb),
            bl(sa >= sb),
            Some(a.wrapping_neg()),
            Some(!a),
            Some(sa.wrapping_abs() as u64),
            Some(sign),
            Some(a.count_ones() as u64),
            w((a as f32).to_bits()),
            w((sa as f32).to_bits()),
            (0.0..18446744073709551616.0)
                .contains(&f)
                .then_some(f as u64),
            (-9223372036854775808.0..9223372036854775808.0)
                .contains(&f)
                .then_some(f as i64 as u64),
            Some(s as i32 as i64 as u64),
            Some(s as u64),
            w(b as u32),
            Some(sa.max(sb) as u64),
            Some(a.wrapping_add(0x1234_5678_9abc_def0)),
        ]
        .into_iter()
        .chain(CONST_SHIFTS.iter().map(|k| Some(a << (k & 63))))
        .chain(CONST_SHIFTS.iter().map(|k| Some(a >> (k & 63))))
        .chain(CONST_SHIFTS.iter().map(|k| Some((sa >> (k & 63)) as u64)))
        .collect()
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn every_operation_matches_rust_on_edges_and_random_values() {
        let sh = lowered();
        let edges = [
            0u64,
            1,
            2,
            3,
            u64::MAX,
            u64::MAX - 1,
            i64::MIN as u64,
            i64::MAX as u64,
            (1 << 32) - 1,
            1 << 32,
            (1 << 32) + 1,
            1 << 31,
            0xffff_ffff_0000_0000,
            0x0000_0001_ffff_ffff,
            7,
            (-7i64) as u64,
        ];
        let mut inputs: Vec<(u64, u64)> = Vec::new();
        for &a in &edges {
            for &b in &edges {
                inputs.push((a, b));
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for i in 0..300 {
            let a = rng.next();
            let b = rng.next();
            // Mix in small divisors and dividends so quotients of every size appear.
            let b = match i % 4 {
                0 => b >> (b % 64),
                1 => b & 0xffff,
                _ => b,
            };
            inputs.push((a, b));
        }
        let floats = [
            0.0f32,
            1.0,
            1.5,
            -1.5,
            4294967295.0,
            4294967296.0,
            1.8e19,
            -9.2e18,
            123456789.0,
            6.0e9,
            -7.0e9,
            0.999,
        ];
        for (n, &(a, b)) in inputs.iter().enumerate() {
            let f = if n < floats.len() {
                floats[n]
            } else {
                f32::from_bits(rng.next() as u32 & 0x5fff_ffff) // below 2^64, sign clear
                    * if n % 2 == 0 { 1.0 } else { -0.5 }
            };
            let s = rng.next() as u32 % 70;
            let got = run(&sh, a, b, f, s);
            let want = expected(a, b, f, s);
            for (k, w) in want.iter().enumerate() {
                if let Some(w) = w {
                    assert_eq!(
                        got[k], *w,
                        "slot {k}: a={a:#x} b={b:#x} f={f:e} s={s}: got {:#x}, want {w:#x}",
                        got[k]
                    );
                }
            }
        }
    }

    #[test]
    fn u64_to_f32_rounds_to_nearest_even() {
        let sh = lowered();
        // Ties and near-ties around the 24-bit mantissa at several exponents.
        let mut vals = vec![];
        for e in [24u32, 31, 32, 33, 40, 52, 63] {
            let base = 1u64 << e;
            let ulp = base >> 23;
            for k in [0u64, 1, 2, 3] {
                let x = base + k * ulp;
                vals.extend([x, x + ulp / 2, x + ulp / 2 + 1, x + ulp / 2 - 1, x - 1]);
            }
        }
        for x in vals {
            let got = run(&sh, x, 1, 0.0, 0);
            assert_eq!(got[36] as u32, (x as f32).to_bits(), "{x:#x}");
        }
    }

    #[test]
    fn addresses_stay_and_no_data_i64_remains() {
        let sh = lowered();
        let mut n64 = 0;
        super::super::for_each_inst(&sh.body, &mut |i| {
            if let Some(d) = i.dst {
                if sh.ty(d) == Type::I64 {
                    n64 += 1;
                    assert!(
                        matches!(
                            i.op,
                            Op::Load {
                                space: Space::Root,
                                ..
                            } | Op::Conv(ConvOp::UToU, _)
                                | Op::Binary(BinOp::IAdd, ..)
                        ),
                        "{:?}",
                        i.op
                    );
                }
            }
        });
        assert!(n64 > 0, "the output addresses stay 64-bit");
    }

    #[test]
    fn atomics_are_rejected() {
        let mut sh = shader();
        let x = sh.new_value(Type::I64);
        let a = sh.new_value(Type::I64);
        sh.body.push(crate::ir::Node::Block(vec![
            Inst {
                dst: Some(a),
                op: Op::Const(Constant(vec![0])),
            },
            Inst {
                dst: Some(x),
                op: Op::Atomic {
                    space: Space::Shared,
                    op: crate::ir::AtomicOp::Add,
                    addr: Value(0),
                    value: a,
                    cmp: None,
                },
            },
        ]));
        let e = lower_int64(&mut sh).unwrap_err();
        assert!(format!("{e:?}").contains("atomic"), "{e:?}");
    }
}
