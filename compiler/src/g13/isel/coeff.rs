//! Flat varyings: the provoking vertex's value is the C term of the coefficient plane
//! (A = B = 0), loaded as it is with `ldcf`. `iter` would evaluate A*x + B*y + C in floating
//! point, which turns -0.0 (integer 0x8000_0000) into +0.0 and may quiet signalling NaNs,
//! so integer bit patterns would not survive; Mesa loads flat inputs with `ldcf` too.
//!
//! `ldcf` of one component writes A, B and C to three consecutive 32-bit registers, wider
//! than a virtual register: a fixed run (`Sel::fixed_run`) at `RUN_LDCF_AB` and `RUN_LDCF_C`.

use hw::isa::*;

use super::{Sel, OR, RUN_LDCF_AB, RUN_LDCF_C};
use crate::g13::vreg;
use crate::CompileError;

impl Sel<'_> {
    /// The flat varying in coefficient slot `cf` into `dst`, bit for bit.
    pub(super) fn flat_input(&mut self, dst: Reg, cf: u8) -> Result<(), CompileError> {
        let ab = self.fixed_run(RUN_LDCF_AB, Size::S64)?;
        let c = self.fixed_run(RUN_LDCF_C, Size::S32)?;
        self.emit(Instr::LdCf(LdCf {
            dst: vreg(ab, 0, Size::S32),
            channels: 1,
            cf,
        }));
        self.copy(dst, Operand::Reg(vreg(c, 0, Size::S32)));
        Ok(())
    }

    /// `InputPlaneBits`: (A | B | C) << 1 of coefficient slot `cf` into `dst`.
    pub(super) fn plane_bits(&mut self, dst: Reg, cf: u8) -> Result<(), CompileError> {
        let ab = self.fixed_run(RUN_LDCF_AB, Size::S64)?;
        let c = self.fixed_run(RUN_LDCF_C, Size::S32)?;
        self.emit(Instr::LdCf(LdCf {
            dst: vreg(ab, 0, Size::S32),
            channels: 1,
            cf,
        }));
        let a_or_b = self.bitop_r(
            Operand::Reg(vreg(ab, 0, Size::S32)),
            Operand::Reg(vreg(ab, 2, Size::S32)),
            OR,
        )?;
        let all = self.bitop_r(
            Operand::Reg(a_or_b),
            Operand::Reg(vreg(c, 0, Size::S32)),
            OR,
        )?;
        self.shl(dst, Operand::Reg(all), Operand::Imm(1));
        Ok(())
    }
}
