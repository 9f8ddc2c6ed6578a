//! SPIR-V's GroupNonUniform instructions and the subgroup built-ins, translated into the IR's
//! `Ballot`, `LaneRead` and `Reduce` (see `ir::subgroup`) and ordinary arithmetic. A ballot
//! is a uvec4 whose first word holds the whole subgroup (32 invocations); the other words
//! are zero, and only the first word is read where SPIR-V limits an operation to "the bits
//! required to represent all invocations of the group".

use rspirv::dr::Instruction;
use spirv::{BuiltIn, GroupOperation, Op};

use super::constants::as_u32;
use super::module::{id, invalid, result_type, unsupported};
use super::translate::{FnState, Tr};
use super::values::FVal;
use crate::ir::{
    self, BinOp, CmpOp, LaneRead, Reduction, Scalar, Scan, SysVal, Type, UnOp, Value, SUBGROUP_SIZE,
};
use crate::CompileError;

/// Whether `op` is one of the GroupNonUniform instructions translated here.
pub(super) fn is_subgroup_op(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformElect
            | Op::GroupNonUniformAll
            | Op::GroupNonUniformAny
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupNonUniformBallot
            | Op::GroupNonUniformInverseBallot
            | Op::GroupNonUniformBallotBitExtract
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupNonUniformBallotFindLSB
            | Op::GroupNonUniformBallotFindMSB
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformQuadBroadcast
            | Op::GroupNonUniformQuadSwap
    ) || reduction_op(op).is_some()
}

/// The IR operation of an arithmetic GroupNonUniform instruction.
fn reduction_op(op: Op) -> Option<BinOp> {
    Some(match op {
        Op::GroupNonUniformIAdd => BinOp::IAdd,
        Op::GroupNonUniformFAdd => BinOp::FAdd,
        Op::GroupNonUniformIMul => BinOp::IMul,
        Op::GroupNonUniformFMul => BinOp::FMul,
        Op::GroupNonUniformSMin => BinOp::SMin,
        Op::GroupNonUniformUMin => BinOp::UMin,
        Op::GroupNonUniformFMin => BinOp::FMin,
        Op::GroupNonUniformSMax => BinOp::SMax,
        Op::GroupNonUniformUMax => BinOp::UMax,
        Op::GroupNonUniformFMax => BinOp::FMax,
        Op::GroupNonUniformBitwiseAnd | Op::GroupNonUniformLogicalAnd => BinOp::And,
        Op::GroupNonUniformBitwiseOr | Op::GroupNonUniformLogicalOr => BinOp::Or,
        Op::GroupNonUniformBitwiseXor | Op::GroupNonUniformLogicalXor => BinOp::Xor,
        _ => return None,
    })
}

/// The GroupOperation operand (operand 1) as its number.
fn group_operation(inst: &Instruction) -> Result<u32, CompileError> {
    match inst.operands.get(1) {
        Some(rspirv::dr::Operand::GroupOperation(g)) => Ok(*g as u32),
        _ => Err(invalid(format!(
            "{:?} without a group operation",
            inst.class.opcode
        ))),
    }
}

impl<'m> Tr<'m> {
    fn const_operand(&self, w: u32) -> Option<u32> {
        as_u32(self.consts, w)
    }

    fn lane_id(&mut self) -> Result<Value, CompileError> {
        self.emit(Type::I32, ir::Op::SysVal(SysVal::SubgroupLocalInvocationId))
    }

    /// The mask of the active invocations.
    fn active_mask(&mut self) -> Result<Value, CompileError> {
        let t = self.konst(Type::BOOL, vec![1])?;
        self.emit(Type::I32, ir::Op::Ballot(t))
    }

    /// The lowest active invocation.
    fn first_active(&mut self) -> Result<Value, CompileError> {
        let m = self.active_mask()?;
        self.emit(Type::I32, ir::Op::Unary(UnOp::FindLsb, m))
    }

    /// uvec4(x, 0, 0, 0), or a narrower vector of the declared type.
    fn ballot_vector(&mut self, x: Value, t: Type) -> Result<Value, CompileError> {
        if t.scalar != Scalar::I32 {
            return Err(invalid(format!("ballot of type {t:?}")));
        }
        if t.lanes == 1 {
            return Ok(x);
        }
        let z = self.u32c(0)?;
        let mut lanes = vec![z; t.lanes as usize];
        lanes[0] = x;
        self.emit(t, ir::Op::Vector(lanes))
    }

    fn first_word(&mut self, v: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(v);
        if t.scalar != Scalar::I32 {
            return Err(invalid(format!("ballot value of type {t:?}")));
        }
        if t.lanes == 1 {
            Ok(v)
        } else {
            self.emit(Type::I32, ir::Op::Extract(v, 0))
        }
    }

    /// `f` applied to each component of `v` (a scalar or vector), reassembled.
    fn per_component(
        &mut self,
        v: Value,
        f: &mut dyn FnMut(&mut Self, Value) -> Result<Value, CompileError>,
    ) -> Result<Value, CompileError> {
        let t = self.sh.ty(v);
        if t.lanes == 1 {
            return f(self, v);
        }
        let mut out = Vec::new();
        for i in 0..t.lanes {
            let c = self.emit(Type::scalar(t.scalar), ir::Op::Extract(v, i))?;
            out.push(f(self, c)?);
        }
        let rt = Type::vec(self.sh.ty(out[0]).scalar, t.lanes);
        self.emit(rt, ir::Op::Vector(out))
    }

    fn lane_read(&mut self, l: LaneRead, v: Value) -> Result<Value, CompileError> {
        self.per_component(v, &mut |tr, c| {
            let t = tr.sh.ty(c);
            tr.emit(t, ir::Op::LaneRead(l, c))
        })
    }

    /// A lane read whose lane is `index`: an immediate when it is a constant.
    fn lane_at(&mut self, fs: &FnState<'m>, v: Value, index: u32) -> Result<Value, CompileError> {
        let l = match self.const_operand(index) {
            // An invocation past the subgroup is undefined (applications guard such reads
            // with gl_SubgroupSize); any lane will do.
            Some(n) => LaneRead::Lane((n % SUBGROUP_SIZE) as u8),
            None => {
                let i = self.simple(fs, index)?;
                LaneRead::Dynamic(i)
            }
        };
        self.lane_read(l, v)
    }

    fn check_scope(&self, inst: &Instruction) -> Result<(), CompileError> {
        let scope = self
            .const_operand(id(inst, 0)?)
            .ok_or_else(|| invalid("execution scope is not a constant"))?;
        if scope != spirv::Scope::Subgroup as u32 {
            return Err(unsupported(format!(
                "{:?} with execution scope {scope}",
                inst.class.opcode
            )));
        }
        Ok(())
    }

    /// Translates a GroupNonUniform instruction (see [`is_subgroup_op`]).
    pub(super) fn subgroup_op(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Value, CompileError> {
        self.check_scope(inst)?;
        let op = inst.class.opcode;
        let rt = self.l.ir_type(result_type(inst)?)?;
        if let Some(b) = reduction_op(op) {
            return self.reduction(fs, inst, b);
        }
        let arg = |tr: &mut Self, i: usize| -> Result<Value, CompileError> {
            tr.simple(fs, id(inst, i)?)
        };
        let zero = |tr: &mut Self| tr.u32c(0);
        match op {
            Op::GroupNonUniformElect => {
                let first = self.first_active()?;
                let me = self.lane_id()?;
                self.cmp(CmpOp::IEq, me, first)
            }
            Op::GroupNonUniformAll | Op::GroupNonUniformAny => {
                let p = arg(self, 1)?;
                if self.sh.ty(p) != Type::BOOL {
                    return Err(invalid(format!("{op:?} of a non-boolean")));
                }
                let z = zero(self)?;
                if op == Op::GroupNonUniformAll {
                    let n = self.un(UnOp::Not, p)?;
                    let b = self.emit(Type::I32, ir::Op::Ballot(n))?;
                    self.cmp(CmpOp::IEq, b, z)
                } else {
                    let b = self.emit(Type::I32, ir::Op::Ballot(p))?;
                    self.cmp(CmpOp::INe, b, z)
                }
            }
            Op::GroupNonUniformAllEqual => {
                let v = arg(self, 1)?;
                let first = self.first_active()?;
                let f = self.lane_read(LaneRead::Dynamic(first), v)?;
                let t = self.sh.ty(v);
                let ne = match t.scalar {
                    Scalar::Bool => self.bin(BinOp::Xor, f, v)?,
                    s if s.is_float() => self.cmp(CmpOp::FUNe, f, v)?,
                    _ => self.cmp(CmpOp::INe, f, v)?,
                };
                let mut any = if t.lanes > 1 {
                    self.emit(Type::BOOL, ir::Op::Extract(ne, 0))?
                } else {
                    ne
                };
                for i in 1..t.lanes {
                    let c = self.emit(Type::BOOL, ir::Op::Extract(ne, i))?;
                    any = self.bin(BinOp::Or, any, c)?;
                }
                let b = self.emit(Type::I32, ir::Op::Ballot(any))?;
                let z = zero(self)?;
                self.cmp(CmpOp::IEq, b, z)
            }
            Op::GroupNonUniformBroadcast => {
                let v = arg(self, 1)?;
                self.lane_at(fs, v, id(inst, 2)?)
            }
            Op::GroupNonUniformBroadcastFirst => {
                let v = arg(self, 1)?;
                let first = self.first_active()?;
                self.lane_read(LaneRead::Dynamic(first), v)
            }
            Op::GroupNonUniformBallot => {
                let p = arg(self, 1)?;
                if self.sh.ty(p) != Type::BOOL {
                    return Err(invalid("OpGroupNonUniformBallot of a non-boolean"));
                }
                let b = self.emit(Type::I32, ir::Op::Ballot(p))?;
                self.ballot_vector(b, rt)
            }
            Op::GroupNonUniformInverseBallot => {
                let v = arg(self, 1)?;
                let x = self.first_word(v)?;
                let me = self.lane_id()?;
                self.bit_set(x, me)
            }
            Op::GroupNonUniformBallotBitExtract => {
                let v = arg(self, 1)?;
                let i = arg(self, 2)?;
                if self.sh.ty(i) != Type::I32 {
                    return Err(invalid("ballot bit index of a non-32-bit type"));
                }
                let t = self.sh.ty(v);
                // The word the index falls in, then the bit.
                let five = self.u32c(5)?;
                let word = self.bin(BinOp::UShr, i, five)?;
                let mut x = self.first_word(v)?;
                for k in 1..t.lanes {
                    let c = self.emit(Type::I32, ir::Op::Extract(v, k))?;
                    let kk = self.u32c(u32::from(k))?;
                    let is_k = self.cmp(CmpOp::IEq, word, kk)?;
                    x = self.emit(Type::I32, ir::Op::Select(is_k, c, x))?;
                }
                let m = self.u32c(31)?;
                let bit = self.bin(BinOp::And, i, m)?;
                self.bit_set(x, bit)
            }
            Op::GroupNonUniformBallotBitCount => {
                let group = group_operation(inst)?;
                let v = arg(self, 2)?;
                let x = self.first_word(v)?;
                let me = self.lane_id()?;
                let x = if group == GroupOperation::Reduce as u32 {
                    x
                } else if group == GroupOperation::InclusiveScan as u32 {
                    let m = self.mask_up_to(me, true)?;
                    self.bin(BinOp::And, x, m)?
                } else if group == GroupOperation::ExclusiveScan as u32 {
                    let m = self.mask_up_to(me, false)?;
                    self.bin(BinOp::And, x, m)?
                } else {
                    return Err(invalid(format!(
                        "ballot bit count with group operation {group}"
                    )));
                };
                self.un(UnOp::BitCount, x)
            }
            Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                let v = arg(self, 1)?;
                let x = self.first_word(v)?;
                let u = if op == Op::GroupNonUniformBallotFindLSB {
                    UnOp::FindLsb
                } else {
                    UnOp::UFindMsb
                };
                self.un(u, x)
            }
            Op::GroupNonUniformShuffle => {
                let v = arg(self, 1)?;
                self.lane_at(fs, v, id(inst, 2)?)
            }
            Op::GroupNonUniformShuffleXor => {
                let v = arg(self, 1)?;
                if let Some(m) = self
                    .const_operand(id(inst, 2)?)
                    .filter(|&m| m < SUBGROUP_SIZE)
                {
                    return self.lane_read(LaneRead::Xor(m as u8), v);
                }
                let m = arg(self, 2)?;
                let me = self.lane_id()?;
                let l = self.bin(BinOp::Xor, me, m)?;
                self.lane_read(LaneRead::Dynamic(l), v)
            }
            Op::GroupNonUniformShuffleUp | Op::GroupNonUniformShuffleDown => {
                let v = arg(self, 1)?;
                let d = arg(self, 2)?;
                let me = self.lane_id()?;
                let b = if op == Op::GroupNonUniformShuffleUp {
                    BinOp::ISub
                } else {
                    BinOp::IAdd
                };
                let l = self.bin(b, me, d)?;
                self.lane_read(LaneRead::Dynamic(l), v)
            }
            Op::GroupNonUniformQuadBroadcast => {
                let v = arg(self, 1)?;
                match self.const_operand(id(inst, 2)?) {
                    Some(n) if n < 4 => self.lane_read(LaneRead::QuadLane(n as u8), v),
                    _ => {
                        // A dynamically uniform index: pick among the four quad lanes.
                        let i = arg(self, 2)?;
                        let mut r = self.lane_read(LaneRead::QuadLane(0), v)?;
                        for n in 1..4u8 {
                            let x = self.lane_read(LaneRead::QuadLane(n), v)?;
                            let k = self.u32c(u32::from(n))?;
                            let is_n = self.cmp(CmpOp::IEq, i, k)?;
                            let t = self.sh.ty(v);
                            let c = if t.lanes > 1 {
                                self.emit(
                                    Type::vec(Scalar::Bool, t.lanes),
                                    ir::Op::Vector(vec![is_n; t.lanes as usize]),
                                )?
                            } else {
                                is_n
                            };
                            r = self.emit(t, ir::Op::Select(c, x, r))?;
                        }
                        Ok(r)
                    }
                }
            }
            Op::GroupNonUniformQuadSwap => {
                let v = arg(self, 1)?;
                let dir = self
                    .const_operand(id(inst, 2)?)
                    .ok_or_else(|| invalid("quad swap direction is not a constant"))?;
                if dir > 2 {
                    return Err(invalid(format!("quad swap direction {dir}")));
                }
                // Direction 0 swaps horizontally (quad index bit 0), 1 vertically (bit 1),
                // 2 diagonally (both), as `hw::isa::quad_lane` numbers the quad.
                self.lane_read(LaneRead::QuadXor(dir as u8 + 1), v)
            }
            _ => Err(unsupported(format!("instruction {op:?}"))),
        }
    }

    /// Whether bit `i` of `x` is set.
    fn bit_set(&mut self, x: Value, i: Value) -> Result<Value, CompileError> {
        let s = self.bin(BinOp::UShr, x, i)?;
        let one = self.u32c(1)?;
        let b = self.bin(BinOp::And, s, one)?;
        let z = self.u32c(0)?;
        self.cmp(CmpOp::INe, b, z)
    }

    /// The bits of the invocations numbered below `me` (and `me` itself when `inclusive`).
    fn mask_up_to(&mut self, me: Value, inclusive: bool) -> Result<Value, CompileError> {
        // 2 << 31 wraps to 0, and 0 - 1 is every bit: the inclusive mask of invocation 31.
        let one = self.u32c(if inclusive { 2 } else { 1 })?;
        let s = self.bin(BinOp::Shl, one, me)?;
        let o = self.u32c(1)?;
        self.bin(BinOp::ISub, s, o)
    }

    fn reduction(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
        op: BinOp,
    ) -> Result<Value, CompileError> {
        let group = group_operation(inst)?;
        let v = self.simple(fs, id(inst, 2)?)?;
        let (scan, cluster) = if group == GroupOperation::Reduce as u32 {
            (Scan::Reduce, SUBGROUP_SIZE)
        } else if group == GroupOperation::InclusiveScan as u32 {
            (Scan::Inclusive, SUBGROUP_SIZE)
        } else if group == GroupOperation::ExclusiveScan as u32 {
            (Scan::Exclusive, SUBGROUP_SIZE)
        } else if group == GroupOperation::ClusteredReduce as u32 {
            let c = self
                .const_operand(id(inst, 3)?)
                .ok_or_else(|| invalid("cluster size is not a constant"))?;
            if !c.is_power_of_two() {
                return Err(invalid(format!("cluster size {c}")));
            }
            // Clusters larger than the subgroup span the subgroup.
            (Scan::Reduce, c.min(SUBGROUP_SIZE))
        } else {
            return Err(unsupported(format!("group operation {group}")));
        };
        let t = self.sh.ty(v);
        let fits = match op {
            BinOp::FAdd | BinOp::FMul | BinOp::FMin | BinOp::FMax => t.scalar.is_float(),
            BinOp::And | BinOp::Or | BinOp::Xor => !t.scalar.is_float(),
            _ => !t.scalar.is_float() && t.scalar != Scalar::Bool,
        };
        if !fits {
            return Err(invalid(format!("{:?} of {t:?}", inst.class.opcode)));
        }
        let r = Reduction {
            op,
            scan,
            cluster: cluster as u8,
        };
        self.per_component(v, &mut |tr, c| {
            let t = tr.sh.ty(c);
            tr.emit(t, ir::Op::Reduce(r, c))
        })
    }

    /// The subgroup built-ins, as the declared type asks (`lane`: one component of a
    /// vector built-in), or `None` for other built-ins.
    pub(super) fn subgroup_builtin(
        &mut self,
        b: BuiltIn,
        lane: Option<u32>,
        ty: u32,
    ) -> Result<Option<FVal>, CompileError> {
        let t = self.l.ir_type(ty)?;
        let v = match b {
            BuiltIn::SubgroupSize => self.u32c(SUBGROUP_SIZE)?,
            BuiltIn::SubgroupLocalInvocationId => self.lane_id()?,
            BuiltIn::SubgroupId | BuiltIn::NumSubgroups => {
                if self.stage != ir::Stage::Compute {
                    return Err(invalid(format!("{b:?} in a {:?} shader", self.stage)));
                }
                if b == BuiltIn::SubgroupId {
                    self.emit(Type::I32, ir::Op::SysVal(SysVal::SubgroupId))?
                } else {
                    // Invocations are packed into subgroups in LocalInvocationIndex order.
                    let mut n = self.emit(Type::I32, ir::Op::SysVal(SysVal::WorkgroupSize(0)))?;
                    for i in 1..3 {
                        let s = self.emit(Type::I32, ir::Op::SysVal(SysVal::WorkgroupSize(i)))?;
                        n = self.bin(BinOp::IMul, n, s)?;
                    }
                    let r = self.u32c(SUBGROUP_SIZE - 1)?;
                    let n = self.bin(BinOp::IAdd, n, r)?;
                    let sh = self.u32c(SUBGROUP_SIZE.trailing_zeros())?;
                    self.bin(BinOp::UShr, n, sh)?
                }
            }
            BuiltIn::SubgroupEqMask
            | BuiltIn::SubgroupGeMask
            | BuiltIn::SubgroupGtMask
            | BuiltIn::SubgroupLeMask
            | BuiltIn::SubgroupLtMask => {
                let me = self.lane_id()?;
                let m = match b {
                    BuiltIn::SubgroupEqMask => {
                        let one = self.u32c(1)?;
                        self.bin(BinOp::Shl, one, me)?
                    }
                    BuiltIn::SubgroupGeMask | BuiltIn::SubgroupGtMask => {
                        // ~0 << me, or ~1 << me without the invocation's own bit.
                        let all = self.u32c(if b == BuiltIn::SubgroupGeMask { !0 } else { !1 })?;
                        self.bin(BinOp::Shl, all, me)?
                    }
                    BuiltIn::SubgroupLeMask => self.mask_up_to(me, true)?,
                    _ => self.mask_up_to(me, false)?,
                };
                let comps = if lane.is_some() { 1 } else { t.lanes };
                if lane.is_some_and(|l| l > 0) {
                    return Ok(Some(FVal::V(self.u32c(0)?)));
                }
                let vt = Type::vec(Scalar::I32, comps);
                return Ok(Some(FVal::V(self.ballot_vector(m, vt)?)));
            }
            _ => return Ok(None),
        };
        if t != Type::I32 {
            return Err(invalid(format!("{b:?} of type {t:?}")));
        }
        Ok(Some(FVal::V(v)))
    }
}
