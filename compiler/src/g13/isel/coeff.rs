//! Flat varyings: the provoking vertex's value is the C term of the coefficient plane
//! (A = B = 0), loaded as it is with `ldcf`. `iter` would evaluate A*x + B*y + C in floating
//! point, which turns -0.0 (integer 0x8000_0000) into +0.0 and may quiet signalling NaNs,
//! so integer bit patterns would not survive; Mesa loads flat inputs with `ldcf` too.
//!
//! `ldcf` of one component writes A, B and C to three consecutive 32-bit registers: the
//! words of one 128-bit register, whose third word a flat input then is.

use hw::isa::*;

use super::{size_of, Sel, Val, OR};
use crate::g13::{vreg, word};
use crate::ir::Value;
use crate::CompileError;

impl Sel<'_> {
    /// The flat varying in coefficient slot `cf` as `d`, bit for bit: the C word of its
    /// `ldcf`, where it stays.
    pub(super) fn flat_input(&mut self, d: Value, cf: u8) -> Result<(), CompileError> {
        if size_of(self.ty(d)?)? != Size::S32 {
            return Err(super::internal(format!(
                "graphics value %{} is not 32-bit",
                d.0
            )));
        }
        let id = self.ldcf(cf)?;
        self.set(d, Val::Reg(word(id, 2)))
    }

    /// `ldcf` of coefficient slot `cf`: the (lower) id of the register holding A, B, C.
    fn ldcf(&mut self, cf: u8) -> Result<u16, CompileError> {
        let id = self.new_words(3)?;
        self.emit(Instr::LdCf(LdCf {
            dst: vreg(id, 0, Size::S32),
            channels: 1,
            cf,
        }));
        Ok(id)
    }

    /// `InputPlaneBits`: (A | B | C) << 1 of coefficient slot `cf` into `dst`.
    pub(super) fn plane_bits(&mut self, dst: Reg, cf: u8) -> Result<(), CompileError> {
        let id = self.ldcf(cf)?;
        let a_or_b = self.bitop_r(Operand::Reg(word(id, 0)), Operand::Reg(word(id, 1)), OR)?;
        let all = self.bitop_r(Operand::Reg(a_or_b), Operand::Reg(word(id, 2)), OR)?;
        self.shl(dst, Operand::Reg(all), Operand::Imm(1));
        Ok(())
    }
}
