//! Flat varyings: the provoking vertex's value is the C term of the coefficient plane
//! (A = B = 0), loaded as it is with `ldcf`. `iter` would evaluate A*x + B*y + C in floating
//! point, which turns -0.0 (integer 0x8000_0000) into +0.0 and may quiet signalling NaNs,
//! so integer bit patterns would not survive; Mesa loads flat inputs with `ldcf` too.
//!
//! `ldcf` of one component writes A, B and C to three consecutive 32-bit registers, wider
//! than a virtual register: a fixed run (`Sel::fixed_run`) at [`A_B_HALF`] and [`C_HALF`].

use hw::isa::*;

use super::Sel;
use crate::g13::vreg;
use crate::CompileError;

/// Halves of the `ldcf` run: A and B as one 64-bit register, then C. Clear of the runs of
/// multisampled input attachment loads (`input.rs`).
const A_B_HALF: u16 = 12;
const C_HALF: u16 = 16;

impl Sel<'_> {
    /// The flat varying in coefficient slot `cf` into `dst`, bit for bit.
    pub(super) fn flat_input(&mut self, dst: Reg, cf: u8) -> Result<(), CompileError> {
        let ab = self.fixed_run(A_B_HALF, Size::S64)?;
        let c = self.fixed_run(C_HALF, Size::S32)?;
        self.emit(Instr::LdCf(LdCf {
            dst: vreg(ab, 0, Size::S32),
            channels: 1,
            cf,
        }));
        self.copy(dst, Operand::Reg(vreg(c, 0, Size::S32)));
        Ok(())
    }
}
