//! Subgroup operations: a ballot is `icmp_ballot b, 0, ueq, invert` (Mesa's `ballot`
//! pseudo-instruction), a lane read a `shuffle` / `quad_shuffle` / `quad_shuffle_xor` with an
//! immediate lane. The index is always an immediate: the hardware combines the low index
//! bits over each quad, inactive threads included (see `hw::isa::Shuffle`), so a register
//! index would need every thread of the quad to hold it. `passes::lower_subgroups` has
//! turned everything else into these two and ordinary arithmetic.

use hw::isa::*;

use super::{internal, Sel, Val};
use crate::ir::{BinOp, LaneRead, Reduction, Scan, Value};
use crate::CompileError;

impl Sel<'_> {
    pub(super) fn ballot(&mut self, d: Value, b: Value) -> Result<(), CompileError> {
        let a = self.iop(b)?;
        let r = self.def(d)?;
        if r.size != Size::S32 {
            return Err(internal("a ballot is 32-bit"));
        }
        self.emit(Instr::Ballot(Ballot {
            dst: r.into(),
            cond: Cond::Int(ICond::UEq),
            invert: true,
            a,
            b: Operand::Imm(0),
        }));
        Ok(())
    }

    pub(super) fn lane_read(
        &mut self,
        d: Value,
        l: LaneRead,
        a: Value,
    ) -> Result<(), CompileError> {
        let (mode, index, quad) = match l {
            LaneRead::Lane(n) => (ShuffleMode::Index, n, false),
            LaneRead::Xor(n) => (ShuffleMode::Xor, n, false),
            LaneRead::QuadLane(n) => (ShuffleMode::Index, n, true),
            LaneRead::QuadXor(n) => (ShuffleMode::Xor, n, true),
            LaneRead::Dynamic(_) => return Err(internal("dynamic lane read reached the back end")),
        };
        // A value every thread holds alike reads the same from any of them.
        if let v @ (Val::Const(..) | Val::Uniform(_)) = self.val(a)? {
            return self.set(d, v);
        }
        let src = self.iop(a)?;
        let r = self.def(d)?;
        if r.size == Size::S64 {
            return Err(internal("64-bit lane read reached the back end"));
        }
        self.emit(Instr::Shuffle(Shuffle {
            dst: r.into(),
            a: src,
            index: Operand::Imm(u32::from(index)),
            mode,
            quad,
        }));
        Ok(())
    }

    /// A reduction `passes::lower_subgroups` left for the hardware: 16- or 32-bit, a whole-subgroup
    /// reduction or exclusive scan, or a quad reduction.
    pub(super) fn reduce(&mut self, d: Value, r: Reduction, a: Value) -> Result<(), CompileError> {
        let op = match r.op {
            BinOp::IAdd => SimdOp::IAdd,
            BinOp::And => SimdOp::And,
            BinOp::Or => SimdOp::Or,
            BinOp::Xor => SimdOp::Xor,
            BinOp::SMin => SimdOp::SMin,
            BinOp::SMax => SimdOp::SMax,
            BinOp::UMin => SimdOp::UMin,
            BinOp::UMax => SimdOp::UMax,
            BinOp::FAdd => SimdOp::FAdd,
            BinOp::FMul => SimdOp::FMul,
            BinOp::FMin => SimdOp::FMin,
            BinOp::FMax => SimdOp::FMax,
            other => return Err(internal(format!("subgroup {other:?} reached the back end"))),
        };
        let kind = match (r.scan, r.cluster) {
            (Scan::Reduce, 32) => ReduceKind::SimdReduce,
            (Scan::Reduce, 4) => ReduceKind::QuadReduce,
            (Scan::Exclusive, 32) => ReduceKind::SimdPrefix,
            _ => return Err(internal(format!("reduction {r:?} reached the back end"))),
        };
        // The source is a register: constants and uniforms are copied into one.
        let src = match self.iop(a)? {
            Operand::Reg(x) => Operand::Reg(x),
            _ => Operand::Reg(self.reg(a)?),
        };
        let dst = self.def(d)?;
        if dst.size == Size::S64 {
            return Err(internal("a reduction is 16- or 32-bit"));
        }
        self.emit(Instr::SimdReduce(SimdReduce {
            dst: dst.into(),
            a: src,
            op,
            kind,
        }));
        Ok(())
    }
}
