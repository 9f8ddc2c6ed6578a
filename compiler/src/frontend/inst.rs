//! Instructions inside blocks: arithmetic, composites, conversions, memory, calls, barriers.

use rspirv::dr::Instruction;
use spirv::{Op, Word};

use super::constants::CVal;
use super::fragment_ops;
use super::module::{id, invalid, lit, result_id, result_type, unsupported, SpvType};
use super::translate::{FnState, Tr};
use super::values::{Entry, FVal, Ptr};
use crate::ir::{self, BinOp, CmpOp, ConvOp, Scalar, Type, UnOp, Value};
use crate::CompileError;

impl<'m> Tr<'m> {
    pub fn splat(&mut self, s: Value, n: u8) -> Result<Value, CompileError> {
        if n == 1 {
            return Ok(s);
        }
        let t = Type::vec(self.sh.ty(s).scalar, n);
        self.emit(t, ir::Op::Vector(vec![s; n as usize]))
    }

    pub fn lane(&mut self, v: Value, i: u8) -> Result<Value, CompileError> {
        let t = self.sh.ty(v);
        if t.lanes == 1 {
            return Ok(v);
        }
        if i >= t.lanes {
            return Err(invalid("component index out of range"));
        }
        self.emit(Type::scalar(t.scalar), ir::Op::Extract(v, i))
    }

    pub fn bin(&mut self, op: BinOp, a: Value, b: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(a);
        if self.sh.ty(b) != t && !matches!(op, BinOp::Shl | BinOp::UShr | BinOp::SShr) {
            return Err(invalid(format!("{op:?} operands of different types")));
        }
        self.emit(t, ir::Op::Binary(op, a, b))
    }

    pub fn un(&mut self, op: UnOp, a: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(a);
        self.emit(t, ir::Op::Unary(op, a))
    }

    pub fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(a);
        if self.sh.ty(b) != t {
            return Err(invalid(format!("{op:?} operands of different types")));
        }
        self.emit(Type::vec(Scalar::Bool, t.lanes), ir::Op::Cmp(op, a, b))
    }

    pub fn fconst_like(&mut self, like: Value, x: f32) -> Result<Value, CompileError> {
        let t = self.sh.ty(like);
        let bits = if t.scalar == Scalar::F16 {
            u64::from(ir::half::from_f64(f64::from(x)))
        } else {
            u64::from(x.to_bits())
        };
        self.konst(t, vec![bits; t.lanes as usize])
    }

    /// Sum of the lanes of a float vector.
    pub fn hsum(&mut self, v: Value) -> Result<Value, CompileError> {
        let n = self.sh.ty(v).lanes;
        let mut acc = self.lane(v, 0)?;
        for i in 1..n {
            let l = self.lane(v, i)?;
            acc = self.bin(BinOp::FAdd, acc, l)?;
        }
        Ok(acc)
    }

    pub fn dot(&mut self, a: Value, b: Value) -> Result<Value, CompileError> {
        let m = self.bin(BinOp::FMul, a, b)?;
        self.hsum(m)
    }

    pub(super) fn cols(&self, f: &FVal) -> Result<Vec<Value>, CompileError> {
        match f {
            FVal::C(cs) => cs
                .iter()
                .map(|c| match c {
                    FVal::V(v) => Ok(*v),
                    _ => Err(invalid("matrix column is not a vector")),
                })
                .collect(),
            FVal::V(_) => Err(invalid("matrix operand is not a matrix")),
        }
    }

    /// A bit-field Offset or Count operand as the 32-bit value the IR takes: SPIR-V allows
    /// any integer width, and a value that does not fit 32 bits is out of range anyway.
    fn bit_field_operand(&mut self, v: Value) -> Result<Value, CompileError> {
        match self.sh.ty(v) {
            Type::I64 => self.emit(Type::I32, ir::Op::Conv(ConvOp::UToU, v)),
            _ => Ok(v),
        }
    }

    fn mat_vec(&mut self, cols: &[Value], v: Value) -> Result<Value, CompileError> {
        let n = self.sh.ty(cols[0]).lanes;
        let mut acc: Option<Value> = None;
        for (c, col) in cols.iter().enumerate() {
            let s = self.lane(v, c as u8)?;
            let s = self.splat(s, n)?;
            let p = self.bin(BinOp::FMul, *col, s)?;
            acc = Some(match acc {
                None => p,
                Some(a) => self.bin(BinOp::FAdd, a, p)?,
            });
        }
        acc.ok_or_else(|| invalid("empty matrix"))
    }

    /// OpBitcast between 64-bit integers and twice as many 32-bit lanes (low word first),
    /// built from shifts and width conversions the passes already lower.
    fn bitcast_lanes(&mut self, x: Value, rt: Type) -> Result<Value, CompileError> {
        let xt = self.sh.ty(x);
        let bits = |t: Type| t.scalar.bits() * t.lanes as u32;
        if bits(xt) != bits(rt) || xt.scalar == Scalar::Bool || rt.scalar == Scalar::Bool {
            return Err(invalid("OpBitcast between types of different sizes"));
        }
        let c32 = self.u32c(32)?;
        let mut out = Vec::new();
        if xt.scalar == Scalar::I64 {
            let half = Type::scalar(if rt.scalar == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::I32
            });
            if rt.scalar.bits() != 32 {
                return Err(unsupported("OpBitcast from 64-bit integers to this type"));
            }
            for l in self.lanes_of(x)? {
                let hi = self.emit(Type::I64, ir::Op::Binary(BinOp::UShr, l, c32))?;
                for w in [l, hi] {
                    let w = self.emit(Type::I32, ir::Op::Conv(ConvOp::UToU, w))?;
                    out.push(if half == Type::I32 {
                        w
                    } else {
                        self.emit(half, ir::Op::Conv(ConvOp::Bitcast, w))?
                    });
                }
            }
        } else if rt.scalar == Scalar::I64 && xt.scalar.bits() == 32 {
            let words = self.lanes_of(x)?;
            for pair in words.chunks_exact(2) {
                let mut w64 = [pair[0], pair[1]];
                for w in &mut w64 {
                    if self.sh.ty(*w) != Type::I32 {
                        *w = self.emit(Type::I32, ir::Op::Conv(ConvOp::Bitcast, *w))?;
                    }
                    *w = self.emit(Type::I64, ir::Op::Conv(ConvOp::UToU, *w))?;
                }
                let hi = self.emit(Type::I64, ir::Op::Binary(BinOp::Shl, w64[1], c32))?;
                out.push(self.emit(Type::I64, ir::Op::Binary(BinOp::Or, w64[0], hi))?);
            }
        } else {
            return Err(unsupported(format!("OpBitcast from {xt:?} to {rt:?}")));
        }
        if out.len() == 1 {
            return Ok(out[0]);
        }
        self.emit(rt, ir::Op::Vector(out))
    }

    fn lanes_of(&mut self, v: Value) -> Result<Vec<Value>, CompileError> {
        let n = self.sh.ty(v).lanes;
        (0..n).map(|i| self.lane(v, i)).collect()
    }

    pub(super) fn select_fval(
        &mut self,
        c: Value,
        a: &FVal,
        b: &FVal,
    ) -> Result<FVal, CompileError> {
        Ok(match (a, b) {
            (FVal::V(x), FVal::V(y)) => {
                let t = self.sh.ty(*x);
                if self.sh.ty(*y) != t {
                    return Err(invalid("OpSelect operands of different types"));
                }
                FVal::V(self.emit(t, ir::Op::Select(c, *x, *y))?)
            }
            (FVal::C(xs), FVal::C(ys)) if xs.len() == ys.len() => FVal::C(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.select_fval(c, x, y))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(invalid("OpSelect operand shapes differ")),
        })
    }

    fn extract_path(&mut self, mut f: FVal, path: &[u32]) -> Result<FVal, CompileError> {
        for (k, &i) in path.iter().enumerate() {
            f = match f {
                FVal::C(mut cs) => {
                    if i as usize >= cs.len() {
                        return Err(invalid("OpCompositeExtract index out of range"));
                    }
                    cs.swap_remove(i as usize)
                }
                FVal::V(v) => {
                    if k + 1 != path.len() || i > 3 {
                        return Err(invalid("OpCompositeExtract index into a scalar"));
                    }
                    FVal::V(self.lane(v, i as u8)?)
                }
            };
        }
        Ok(f)
    }

    fn insert_path(&mut self, f: FVal, obj: FVal, path: &[u32]) -> Result<FVal, CompileError> {
        let Some((&i, rest)) = path.split_first() else {
            return Ok(obj);
        };
        match f {
            FVal::C(mut cs) => {
                let slot = cs
                    .get_mut(i as usize)
                    .ok_or_else(|| invalid("OpCompositeInsert index out of range"))?;
                let old = std::mem::replace(slot, FVal::C(vec![]));
                cs[i as usize] = self.insert_path(old, obj, rest)?;
                Ok(FVal::C(cs))
            }
            FVal::V(v) => {
                let FVal::V(x) = obj else {
                    return Err(invalid("OpCompositeInsert of a composite into a vector"));
                };
                let t = self.sh.ty(v);
                if !rest.is_empty()
                    || i >= t.lanes as u32
                    || self.sh.ty(x) != Type::scalar(t.scalar)
                {
                    return Err(invalid("OpCompositeInsert into a vector lane"));
                }
                Ok(FVal::V(self.emit(t, ir::Op::Insert(v, i as u8, x))?))
            }
        }
    }

    fn lits_from(&self, inst: &Instruction, from: usize) -> Result<Vec<u32>, CompileError> {
        (from..inst.operands.len()).map(|i| lit(inst, i)).collect()
    }

    pub fn instruction(
        &mut self,
        fs: &mut FnState<'m>,
        inst: &'m Instruction,
    ) -> Result<(), CompileError> {
        let op = inst.class.opcode;
        let rid = inst.result_id;
        macro_rules! def {
            ($v:expr) => {{
                let v = $v;
                let r = result_id(inst)?;
                return self.define(fs, r, Entry::Val(FVal::V(v)));
            }};
        }
        let binop = match op {
            Op::IAdd => Some(BinOp::IAdd),
            Op::ISub => Some(BinOp::ISub),
            Op::IMul => Some(BinOp::IMul),
            Op::UDiv => Some(BinOp::UDiv),
            Op::SDiv => Some(BinOp::SDiv),
            Op::UMod => Some(BinOp::UMod),
            Op::SRem => Some(BinOp::SRem),
            Op::SMod => Some(BinOp::SMod),
            Op::FAdd => Some(BinOp::FAdd),
            Op::FSub => Some(BinOp::FSub),
            Op::FMul => Some(BinOp::FMul),
            Op::FDiv => Some(BinOp::FDiv),
            Op::FMod => Some(BinOp::FMod),
            Op::ShiftLeftLogical => Some(BinOp::Shl),
            Op::ShiftRightLogical => Some(BinOp::UShr),
            Op::ShiftRightArithmetic => Some(BinOp::SShr),
            Op::BitwiseAnd | Op::LogicalAnd => Some(BinOp::And),
            Op::BitwiseOr | Op::LogicalOr => Some(BinOp::Or),
            Op::BitwiseXor | Op::LogicalNotEqual => Some(BinOp::Xor),
            _ => None,
        };
        if let Some(b) = binop {
            let x = self.simple(fs, id(inst, 0)?)?;
            let y = self.simple(fs, id(inst, 1)?)?;
            let rt = self.result_ir_type(inst)?;
            if self.sh.ty(x) != rt {
                return Err(invalid(format!(
                    "{op:?} result type differs from its operands"
                )));
            }
            let is_bool = rt.scalar == Scalar::Bool;
            let logical = matches!(op, Op::LogicalAnd | Op::LogicalOr | Op::LogicalNotEqual);
            if is_bool != logical {
                return Err(invalid(format!("{op:?} on the wrong operand type")));
            }
            if rt.scalar.is_float()
                != matches!(
                    b,
                    BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FMod
                )
            {
                return Err(invalid(format!("{op:?} on the wrong operand type")));
            }
            let yt = self.sh.ty(y);
            let shift = matches!(b, BinOp::Shl | BinOp::UShr | BinOp::SShr);
            let ints =
                |s: Scalar| matches!(s, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64);
            // A shift amount may have another integer width than the value shifted.
            let y = if shift
                && yt.lanes == rt.lanes
                && yt.scalar != rt.scalar
                && ints(yt.scalar)
                && ints(rt.scalar)
            {
                self.emit(
                    Type::vec(rt.scalar, rt.lanes),
                    ir::Op::Conv(ConvOp::UToU, y),
                )?
            } else {
                y
            };
            let yt = self.sh.ty(y);
            if yt.lanes != rt.lanes || yt.scalar != rt.scalar {
                return Err(invalid(format!("{op:?} operands of different types")));
            }
            def!(self.bin(b, x, y)?)
        }
        let cmpop = match op {
            Op::IEqual => Some(CmpOp::IEq),
            Op::INotEqual => Some(CmpOp::INe),
            Op::ULessThan => Some(CmpOp::ULt),
            Op::ULessThanEqual => Some(CmpOp::ULe),
            Op::UGreaterThan => Some(CmpOp::UGt),
            Op::UGreaterThanEqual => Some(CmpOp::UGe),
            Op::SLessThan => Some(CmpOp::SLt),
            Op::SLessThanEqual => Some(CmpOp::SLe),
            Op::SGreaterThan => Some(CmpOp::SGt),
            Op::SGreaterThanEqual => Some(CmpOp::SGe),
            Op::FOrdEqual => Some(CmpOp::FOEq),
            Op::FOrdLessThan => Some(CmpOp::FOLt),
            Op::FOrdLessThanEqual => Some(CmpOp::FOLe),
            Op::FOrdGreaterThan => Some(CmpOp::FOGt),
            Op::FOrdGreaterThanEqual => Some(CmpOp::FOGe),
            Op::FUnordNotEqual => Some(CmpOp::FUNe),
            _ => None,
        };
        if let Some(c) = cmpop {
            let x = self.simple(fs, id(inst, 0)?)?;
            let y = self.simple(fs, id(inst, 1)?)?;
            if self.sh.ty(x).scalar.is_float()
                != matches!(
                    c,
                    CmpOp::FOEq
                        | CmpOp::FOLt
                        | CmpOp::FOLe
                        | CmpOp::FOGt
                        | CmpOp::FOGe
                        | CmpOp::FUNe
                )
                || self.sh.ty(x).scalar == Scalar::Bool
            {
                return Err(invalid(format!("{op:?} on the wrong operand type")));
            }
            def!(self.cmp(c, x, y)?)
        }
        // Unordered/ordered comparisons without a direct IR form are negations of the others.
        let negated = match op {
            Op::FUnordEqual => Some((CmpOp::FOEq, true)),
            Op::FUnordLessThan => Some((CmpOp::FOGe, false)),
            Op::FUnordLessThanEqual => Some((CmpOp::FOGt, false)),
            Op::FUnordGreaterThan => Some((CmpOp::FOLe, false)),
            Op::FUnordGreaterThanEqual => Some((CmpOp::FOLt, false)),
            Op::FOrdNotEqual => Some((CmpOp::FUNe, true)),
            _ => None,
        };
        if let Some((c, special)) = negated {
            let x = self.simple(fs, id(inst, 0)?)?;
            let y = self.simple(fs, id(inst, 1)?)?;
            if special {
                // FUnordEqual = lt or gt is false; FOrdNotEqual = lt or gt.
                let lt = self.cmp(CmpOp::FOLt, x, y)?;
                let gt = self.cmp(CmpOp::FOGt, x, y)?;
                let ne = self.bin(BinOp::Or, lt, gt)?;
                if op == Op::FOrdNotEqual {
                    def!(ne)
                }
                def!(self.un(UnOp::Not, ne)?)
            }
            let r = self.cmp(c, x, y)?;
            def!(self.un(UnOp::Not, r)?)
        }
        match op {
            Op::Nop
            | Op::Line
            | Op::NoLine
            | Op::Name
            | Op::MemberName
            | Op::Source
            | Op::String => Ok(()),
            Op::Variable => {
                let e = self.variable(inst)?;
                self.define(fs, result_id(inst)?, e)
            }
            Op::Load => {
                let p = self.ptr(fs, id(inst, 0)?)?;
                if let Ptr::InputAttachment { .. } | Ptr::Image { .. } = p {
                    return self.define(fs, result_id(inst)?, Entry::Ptr(p));
                }
                let v = self.load(&p)?;
                self.define(fs, result_id(inst)?, Entry::Val(v))
            }
            Op::Store => {
                let p = self.ptr(fs, id(inst, 0)?)?;
                let v = self.val(fs, id(inst, 1)?)?;
                self.store(&p, &v)
            }
            Op::CopyMemory => {
                let dst = self.ptr(fs, id(inst, 0)?)?;
                let src = self.ptr(fs, id(inst, 1)?)?;
                let v = self.load(&src)?;
                self.store(&dst, &v)
            }
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain => {
                let e = self.access_chain(fs, inst)?;
                self.define(fs, result_id(inst)?, e)
            }
            Op::CopyObject | Op::CopyLogical => {
                let e = self.lookup(fs, id(inst, 0)?)?;
                self.define(fs, result_id(inst)?, e)
            }
            Op::Undef => match self.zero_fval(result_type(inst)?) {
                Ok(z) => self.define(fs, result_id(inst)?, Entry::Val(z)),
                // A type without values: fine while unused (as a global OpUndef).
                Err(_) => Ok(()),
            },
            Op::ArrayLength => self.array_length(fs, inst),
            Op::ConvertUToPtr | Op::ConvertPtrToU => self.pointer_conversion(fs, inst),
            Op::ImageTexelPointer => {
                let e = self.image_texel_pointer(fs, inst)?;
                self.define(fs, result_id(inst)?, e)
            }
            Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => self.atomic(fs, inst),
            Op::ControlBarrier => {
                let exec = super::constants::as_u32(self.consts, id(inst, 0)?)
                    .ok_or_else(|| invalid("barrier scope is not a constant"))?;
                // Scope 2 is Workgroup; narrower execution scopes only order memory.
                if exec == spirv::Scope::Workgroup as u32 {
                    self.effect(ir::Op::WorkgroupBarrier)
                } else {
                    self.effect(ir::Op::MemoryBarrier)
                }
            }
            Op::MemoryBarrier => self.effect(ir::Op::MemoryBarrier),
            Op::EmitVertex => self.geometry_op(true, None),
            Op::EndPrimitive => self.geometry_op(false, None),
            Op::EmitStreamVertex => self.geometry_op(true, Some(id(inst, 0)?)),
            Op::EndStreamPrimitive => self.geometry_op(false, Some(id(inst, 0)?)),
            Op::DemoteToHelperInvocation => {
                if !self.demote_allowed {
                    return Err(invalid(
                        "OpDemoteToHelperInvocation without the DemoteToHelperInvocation capability",
                    ));
                }
                if self.stage != ir::Stage::Fragment {
                    return Err(invalid(
                        "OpDemoteToHelperInvocation outside a fragment shader",
                    ));
                }
                self.effect(ir::Op::Discard)
            }
            Op::FunctionCall => {
                let callee = id(inst, 0)?;
                let f = *self
                    .funcs
                    .get(&callee)
                    .ok_or_else(|| invalid(format!("call of undefined function {callee}")))?;
                let args = (1..inst.operands.len())
                    .map(|i| id(inst, i).and_then(|a| self.lookup(fs, a)))
                    .collect::<Result<Vec<_>, _>>()?;
                let rt = result_type(inst)?;
                let ret = if matches!(self.l.get(rt)?, SpvType::Void) {
                    None
                } else {
                    Some(rt)
                };
                self.depth += 1;
                let r = self.run_function(f, args, ret, false);
                self.depth -= 1;
                if let Some(v) = r? {
                    self.define(fs, result_id(inst)?, Entry::Val(v))?;
                }
                Ok(())
            }
            Op::ExtInst => {
                let set = id(inst, 0)?;
                if self.ignored_sets.contains(&set) {
                    return Ok(());
                }
                if Some(set) != self.glsl_set {
                    return Err(invalid("OpExtInst of an unknown instruction set"));
                }
                let v = if fragment_ops::is_interpolation(lit(inst, 1)?) {
                    self.interpolate_at(fs, inst)?
                } else {
                    self.glsl(fs, inst)?
                };
                self.define(fs, result_id(inst)?, Entry::Val(v))
            }
            op if fragment_ops::is_derivative(op) => def!(self.derivative(fs, inst)?),
            op if super::subgroup::is_subgroup_op(op) => def!(self.subgroup_op(fs, inst)?),
            op if super::dot_product::is_integer_dot(op) => def!(self.integer_dot(fs, inst)?),
            Op::IsHelperInvocationEXT => {
                if !self.demote_allowed {
                    return Err(invalid(
                        "OpIsHelperInvocationEXT without the DemoteToHelperInvocation capability",
                    ));
                }
                def!(self.is_helper()?)
            }
            Op::SNegate | Op::FNegate | Op::Not | Op::LogicalNot => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let s = self.sh.ty(x).scalar;
                let ok = match op {
                    Op::SNegate | Op::Not => {
                        matches!(s, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
                    }
                    Op::FNegate => s.is_float(),
                    _ => s == Scalar::Bool,
                };
                if !ok {
                    return Err(invalid(format!("{op:?} on the wrong operand type")));
                }
                let u = match op {
                    Op::SNegate => UnOp::INeg,
                    Op::FNegate => UnOp::FNeg,
                    _ => UnOp::Not,
                };
                def!(self.un(u, x)?)
            }
            Op::LogicalEqual => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let y = self.simple(fs, id(inst, 1)?)?;
                let ne = self.bin(BinOp::Xor, x, y)?;
                def!(self.un(UnOp::Not, ne)?)
            }
            Op::QuantizeToF16 => {
                let x = self.simple(fs, id(inst, 0)?)?;
                def!(self.quantize_to_f16(x)?)
            }
            Op::IsNan => {
                let x = self.simple(fs, id(inst, 0)?)?;
                def!(self.cmp(CmpOp::FUNe, x, x)?)
            }
            Op::IsInf => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let a = self.un(UnOp::FAbs, x)?;
                let inf = self.fconst_like(x, f32::INFINITY)?;
                def!(self.cmp(CmpOp::FOEq, a, inf)?)
            }
            Op::FRem => {
                // Sign of the dividend: x - y * trunc(x / y).
                let x = self.simple(fs, id(inst, 0)?)?;
                let y = self.simple(fs, id(inst, 1)?)?;
                let q = self.bin(BinOp::FDiv, x, y)?;
                let t = self.un(UnOp::FTrunc, q)?;
                let p = self.bin(BinOp::FMul, y, t)?;
                def!(self.bin(BinOp::FSub, x, p)?)
            }
            Op::Any | Op::All => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let ls = self.lanes_of(x)?;
                let b = if op == Op::Any { BinOp::Or } else { BinOp::And };
                let mut acc = ls[0];
                for l in &ls[1..] {
                    acc = self.bin(b, acc, *l)?;
                }
                def!(acc)
            }
            Op::Select => {
                let c = self.simple(fs, id(inst, 0)?)?;
                if self.sh.ty(c).scalar != Scalar::Bool {
                    return Err(invalid("OpSelect condition is not a bool"));
                }
                let a = self.val(fs, id(inst, 1)?)?;
                let b = self.val(fs, id(inst, 2)?)?;
                let v = self.select_fval(c, &a, &b)?;
                self.define(fs, result_id(inst)?, Entry::Val(v))
            }
            Op::ConvertFToU
            | Op::ConvertFToS
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::Bitcast
            | Op::UConvert
            | Op::SConvert
            | Op::FConvert => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let rt = self.result_ir_type(inst)?;
                let xt = self.sh.ty(x);
                if op == Op::Bitcast && xt.lanes != rt.lanes {
                    let wide64 = xt.scalar == Scalar::I64 || rt.scalar == Scalar::I64;
                    if !wide64 {
                        def!(self.bitcast_narrow(x, rt)?)
                    }
                    def!(self.bitcast_lanes(x, rt)?)
                }
                if xt.lanes != rt.lanes || xt.scalar == Scalar::Bool || rt.scalar == Scalar::Bool {
                    return Err(invalid(format!("{op:?} between incompatible types")));
                }
                let c = match op {
                    Op::ConvertFToU | Op::ConvertFToS | Op::ConvertSToF | Op::ConvertUToF
                        if self.half_and_64(xt, rt) =>
                    {
                        def!(self.convert_via_single(op, x, rt)?)
                    }
                    Op::ConvertFToU => ConvOp::FToU,
                    Op::ConvertFToS => ConvOp::FToS,
                    Op::ConvertSToF => ConvOp::SToF,
                    Op::ConvertUToF => ConvOp::UToF,
                    Op::Bitcast if xt.scalar.bits() != rt.scalar.bits() => {
                        return Err(invalid("OpBitcast between types of different sizes"));
                    }
                    Op::Bitcast => ConvOp::Bitcast,
                    Op::UConvert | Op::SConvert => {
                        def!(self.int_convert(x, rt, op == Op::SConvert)?)
                    }
                    Op::FConvert => {
                        def!(self.float_convert(result_id(inst)?, x, rt)?)
                    }
                    _ => {
                        // Same width: the IR's integers carry no signedness.
                        def!(self.emit(rt, ir::Op::Copy(x))?)
                    }
                };
                def!(self.emit(rt, ir::Op::Conv(c, x))?)
            }
            Op::CompositeConstruct => {
                let rt = result_type(inst)?;
                let parts = (0..inst.operands.len())
                    .map(|i| id(inst, i).and_then(|w| self.val(fs, w)))
                    .collect::<Result<Vec<_>, _>>()?;
                if self.l.is_simple(rt)? {
                    let t = self.l.ir_type(rt)?;
                    let mut lanes = Vec::new();
                    for p in parts {
                        let FVal::V(v) = p else {
                            return Err(invalid("vector built from a composite"));
                        };
                        lanes.extend(self.lanes_of(v)?);
                    }
                    if lanes.len() != t.lanes as usize
                        || lanes
                            .iter()
                            .any(|l| self.sh.ty(*l) != Type::scalar(t.scalar))
                    {
                        return Err(invalid(
                            "OpCompositeConstruct lanes do not match the vector type",
                        ));
                    }
                    if t.lanes == 1 {
                        def!(lanes[0])
                    }
                    def!(self.emit(t, ir::Op::Vector(lanes))?)
                }
                if parts.len() != self.l.children(rt)?.len() {
                    return Err(invalid(
                        "OpCompositeConstruct with the wrong number of parts",
                    ));
                }
                self.define(fs, result_id(inst)?, Entry::Val(FVal::C(parts)))
            }
            Op::CompositeExtract => {
                let c = self.val(fs, id(inst, 0)?)?;
                let path = self.lits_from(inst, 1)?;
                let v = self.extract_path(c, &path)?;
                self.define(fs, result_id(inst)?, Entry::Val(v))
            }
            Op::CompositeInsert => {
                let obj = self.val(fs, id(inst, 0)?)?;
                let c = self.val(fs, id(inst, 1)?)?;
                let path = self.lits_from(inst, 2)?;
                let v = self.insert_path(c, obj, &path)?;
                self.define(fs, result_id(inst)?, Entry::Val(v))
            }
            Op::VectorExtractDynamic => {
                let v = self.simple(fs, id(inst, 0)?)?;
                let i = self.simple(fs, id(inst, 1)?)?;
                let ls = self.lanes_of(v)?;
                let mut acc = ls[0];
                for (k, l) in ls.iter().enumerate().skip(1) {
                    let kc = self.u32c(k as u32)?;
                    let eq = self.cmp(CmpOp::IEq, i, kc)?;
                    acc = self.emit(self.sh.ty(*l), ir::Op::Select(eq, *l, acc))?;
                }
                def!(acc)
            }
            Op::VectorInsertDynamic => {
                let v = self.simple(fs, id(inst, 0)?)?;
                let x = self.simple(fs, id(inst, 1)?)?;
                let i = self.simple(fs, id(inst, 2)?)?;
                let ls = self.lanes_of(v)?;
                let mut out = Vec::new();
                for (k, l) in ls.iter().enumerate() {
                    let kc = self.u32c(k as u32)?;
                    let eq = self.cmp(CmpOp::IEq, i, kc)?;
                    out.push(self.emit(self.sh.ty(*l), ir::Op::Select(eq, x, *l))?);
                }
                let t = self.sh.ty(v);
                def!(self.emit(t, ir::Op::Vector(out))?)
            }
            Op::VectorShuffle => {
                let a = self.simple(fs, id(inst, 0)?)?;
                let b = self.simple(fs, id(inst, 1)?)?;
                let mut all = self.lanes_of(a)?;
                all.extend(self.lanes_of(b)?);
                let rt = self.result_ir_type(inst)?;
                let lits = self.lits_from(inst, 2)?;
                if lits.len() != rt.lanes as usize {
                    return Err(invalid("OpVectorShuffle with the wrong number of lanes"));
                }
                let lanes = lits
                    .iter()
                    .map(|&i| {
                        if i == u32::MAX {
                            Ok(all[0])
                        } else {
                            all.get(i as usize)
                                .copied()
                                .ok_or_else(|| invalid("shuffle index out of range"))
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if rt.lanes == 1 {
                    def!(lanes[0])
                }
                def!(self.emit(rt, ir::Op::Vector(lanes))?)
            }
            Op::Dot => {
                let a = self.simple(fs, id(inst, 0)?)?;
                let b = self.simple(fs, id(inst, 1)?)?;
                def!(self.dot(a, b)?)
            }
            Op::VectorTimesScalar => {
                let a = self.simple(fs, id(inst, 0)?)?;
                let s = self.simple(fs, id(inst, 1)?)?;
                let n = self.sh.ty(a).lanes;
                let s = self.splat(s, n)?;
                def!(self.bin(BinOp::FMul, a, s)?)
            }
            Op::MatrixTimesScalar => {
                let m = self.val(fs, id(inst, 0)?)?;
                let s = self.simple(fs, id(inst, 1)?)?;
                let cols = self.cols(&m)?;
                let n = self.sh.ty(cols[0]).lanes;
                let s = self.splat(s, n)?;
                let out = cols
                    .iter()
                    .map(|c| self.bin(BinOp::FMul, *c, s).map(FVal::V))
                    .collect::<Result<_, _>>()?;
                self.define(fs, result_id(inst)?, Entry::Val(FVal::C(out)))
            }
            Op::MatrixTimesVector => {
                let m = self.val(fs, id(inst, 0)?)?;
                let v = self.simple(fs, id(inst, 1)?)?;
                let cols = self.cols(&m)?;
                if cols.len() != self.sh.ty(v).lanes as usize {
                    return Err(invalid("matrix times vector of the wrong size"));
                }
                def!(self.mat_vec(&cols, v)?)
            }
            Op::VectorTimesMatrix => {
                let v = self.simple(fs, id(inst, 0)?)?;
                let m = self.val(fs, id(inst, 1)?)?;
                let cols = self.cols(&m)?;
                let lanes = cols
                    .iter()
                    .map(|c| self.dot(v, *c))
                    .collect::<Result<Vec<_>, _>>()?;
                let t = Type::vec(self.sh.ty(v).scalar, lanes.len() as u8);
                def!(self.emit(t, ir::Op::Vector(lanes))?)
            }
            Op::MatrixTimesMatrix => {
                let a = self.val(fs, id(inst, 0)?)?;
                let b = self.val(fs, id(inst, 1)?)?;
                let acols = self.cols(&a)?;
                let bcols = self.cols(&b)?;
                let out = bcols
                    .iter()
                    .map(|c| self.mat_vec(&acols, *c).map(FVal::V))
                    .collect::<Result<_, _>>()?;
                self.define(fs, result_id(inst)?, Entry::Val(FVal::C(out)))
            }
            Op::OuterProduct => {
                let a = self.simple(fs, id(inst, 0)?)?;
                let b = self.simple(fs, id(inst, 1)?)?;
                let n = self.sh.ty(a).lanes;
                let mut out = Vec::new();
                for l in self.lanes_of(b)? {
                    let s = self.splat(l, n)?;
                    out.push(FVal::V(self.bin(BinOp::FMul, a, s)?));
                }
                self.define(fs, result_id(inst)?, Entry::Val(FVal::C(out)))
            }
            Op::Transpose => {
                let m = self.val(fs, id(inst, 0)?)?;
                let cols = self.cols(&m)?;
                let rows = self.sh.ty(cols[0]).lanes;
                let mut out = Vec::new();
                for r in 0..rows {
                    let lanes = cols
                        .iter()
                        .map(|c| self.lane(*c, r))
                        .collect::<Result<Vec<_>, _>>()?;
                    let t = Type::vec(self.sh.ty(cols[0]).scalar, lanes.len() as u8);
                    out.push(FVal::V(self.emit(t, ir::Op::Vector(lanes))?));
                }
                self.define(fs, result_id(inst)?, Entry::Val(FVal::C(out)))
            }
            Op::BitFieldInsert => {
                let mut ops = (0..4)
                    .map(|i| self.simple(fs, id(inst, i)?))
                    .collect::<Result<Vec<_>, _>>()?;
                for o in &mut ops[2..] {
                    *o = self.bit_field_operand(*o)?;
                }
                let t = self.sh.ty(ops[0]);
                def!(self.emit(t, ir::Op::BitfieldInsert(ops[0], ops[1], ops[2], ops[3]))?)
            }
            Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let mut ops = (0..3)
                    .map(|i| self.simple(fs, id(inst, i)?))
                    .collect::<Result<Vec<_>, _>>()?;
                for o in &mut ops[1..] {
                    *o = self.bit_field_operand(*o)?;
                }
                let t = self.sh.ty(ops[0]);
                let o = if op == Op::BitFieldSExtract {
                    ir::Op::SBitfieldExtract(ops[0], ops[1], ops[2])
                } else {
                    ir::Op::UBitfieldExtract(ops[0], ops[1], ops[2])
                };
                def!(self.emit(t, o)?)
            }
            Op::BitReverse => {
                let x = self.simple(fs, id(inst, 0)?)?;
                def!(self.un(UnOp::BitReverse, x)?)
            }
            Op::BitCount => {
                let x = self.simple(fs, id(inst, 0)?)?;
                let n = self.un(UnOp::BitCount, x)?;
                // The count may be wider or narrower than the base (SPIR-V lets the result
                // type's width differ).
                let rt = self.l.ir_type(result_type(inst)?)?;
                if rt == self.sh.ty(n) {
                    def!(n)
                } else {
                    def!(self.emit(rt, ir::Op::Conv(ConvOp::UToU, n))?)
                }
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                let a = self.simple(fs, id(inst, 0)?)?;
                let b = self.simple(fs, id(inst, 1)?)?;
                let (lo, hi) = match op {
                    Op::IAddCarry => {
                        let s = self.bin(BinOp::IAdd, a, b)?;
                        let c = self.cmp(CmpOp::ULt, s, a)?;
                        let t = self.sh.ty(a);
                        (s, self.emit(t, ir::Op::Conv(ConvOp::BoolToInt, c))?)
                    }
                    Op::ISubBorrow => {
                        let s = self.bin(BinOp::ISub, a, b)?;
                        let c = self.cmp(CmpOp::ULt, a, b)?;
                        let t = self.sh.ty(a);
                        (s, self.emit(t, ir::Op::Conv(ConvOp::BoolToInt, c))?)
                    }
                    _ => {
                        let lo = self.bin(BinOp::IMul, a, b)?;
                        let h = if op == Op::UMulExtended {
                            BinOp::UMulHigh
                        } else {
                            BinOp::SMulHigh
                        };
                        (lo, self.bin(h, a, b)?)
                    }
                };
                self.define(
                    fs,
                    result_id(inst)?,
                    Entry::Val(FVal::C(vec![FVal::V(lo), FVal::V(hi)])),
                )
            }
            Op::ImageRead => {
                if let Ptr::Image { .. } = self.ptr(fs, id(inst, 0)?)? {
                    let e = self.image_instruction(fs, inst)?;
                    return self.define(fs, result_id(inst)?, e);
                }
                let v = self.subpass_load(fs, inst)?;
                def!(v)
            }
            Op::ImageWrite => self.image_write(fs, inst),
            Op::SampledImage
            | Op::Image
            | Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
            | Op::ImageFetch
            | Op::ImageGather
            | Op::ImageDrefGather
            | Op::ImageQuerySizeLod
            | Op::ImageQuerySize
            | Op::ImageQueryLevels
            | Op::ImageQuerySamples
            | Op::ImageQueryLod => {
                let e = self.image_instruction(fs, inst)?;
                self.define(fs, result_id(inst)?, e)
            }
            other => {
                let _ = rid;
                Err(unsupported(format!("instruction {other:?}")))
            }
        }
    }
}

/// Ids of an instruction's operands (for tests of the translator).
#[allow(dead_code)]
pub(super) fn operand_ids(inst: &Instruction) -> Vec<Word> {
    inst.operands
        .iter()
        .filter_map(|o| {
            if let rspirv::dr::Operand::IdRef(w) = o {
                Some(*w)
            } else {
                None
            }
        })
        .collect()
}

fn is_zero(c: &CVal) -> bool {
    match c {
        CVal::Scalar(v) => *v == 0,
        CVal::Comp(cs) => cs.iter().all(is_zero),
    }
}

impl<'m> Tr<'m> {
    /// OpImageRead of a subpass input: the attachment's texel at the fragment's pixel.
    fn subpass_load(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Value, CompileError> {
        let Ptr::InputAttachment {
            index,
            ms,
            elems: 0,
        } = self.ptr(fs, id(inst, 0)?)?
        else {
            return Err(unsupported(
                "OpImageRead of an image other than a subpass input",
            ));
        };
        // subpassLoad of a subpassInputMS names its sample with the Sample image operand
        // (and nothing else); a single-sampled one takes no operands.
        let sample = match (ms, &inst.operands[2..]) {
            (false, []) => None,
            (true, [rspirv::dr::Operand::ImageOperands(m), rspirv::dr::Operand::IdRef(s)])
                if *m == spirv::ImageOperands::SAMPLE =>
            {
                let s = self.simple(fs, *s)?;
                if self.sh.ty(s) != Type::I32 {
                    return Err(invalid(
                        "subpass input sample index that is not a 32-bit integer",
                    ));
                }
                Some(s)
            }
            (true, _) => return Err(invalid("multisampled subpass input read without a sample")),
            (false, _) => return Err(unsupported("image operands on a subpass input read")),
        };
        // The coordinate is an offset from the fragment's pixel; subpassLoad always passes 0.
        let at_pixel = matches!(self.consts.get(&id(inst, 1)?), Some((_, c)) if is_zero(c));
        if !at_pixel {
            return Err(unsupported("subpass input read at a non-zero offset"));
        }
        let ty = self.l.ir_type(result_type(inst)?)?;
        if !matches!(ty.scalar, Scalar::I32 | Scalar::F32) {
            return Err(invalid(format!("subpass input read as {ty:?}")));
        }
        self.emit(
            ty,
            ir::Op::LoadInputAttachment {
                index,
                component: 0,
                sample,
            },
        )
    }
}
