//! Subgroup operations: a ballot is `icmp_ballot b, 0, ueq, invert` (Mesa's `ballot`
//! pseudo-instruction), a lane read a `shuffle` / `quad_shuffle` / `quad_shuffle_xor` with an
//! immediate lane. The index is always an immediate: the hardware combines the low index
//! bits over each quad, inactive threads included (see `hw::isa::Shuffle`), so a register
//! index would need every thread of the quad to hold it. `passes::lower_subgroups` has
//! turned everything else into these two and ordinary arithmetic.

use hw::isa::*;

use super::{internal, Sel, Val};
use crate::ir::{LaneRead, Value};
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
}
