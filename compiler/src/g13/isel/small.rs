//! 8- and 16-bit values. Both live in 16-bit register halves: 16-bit integers and halves as
//! themselves, 8-bit integers zero-extended (every instruction that makes one clears the
//! high byte, so a half holding an 8-bit value always reads as that value). The ALU works
//! on halves directly (16-bit float opcodes, integer ops with 16-bit operands); there is no
//! 8-bit ALU, so 8-bit values only move, convert and combine bitwise (the operations that
//! keep the high byte clear); other 8-bit arithmetic is refused.

use hw::isa::*;

use super::{size_of, unsupported, Sel, AND, NEG_ZERO_IMM};
use crate::ir::{self, BinOp, CmpOp, ConvOp, Op, Scalar, UnOp, Value};
use crate::CompileError;

/// Whether the back end can compute `op` with a result of type `ty` (checked before the
/// general selection, which assumes 32-bit integers for the operations refused here).
pub(super) fn check(sh: &ir::Shader, dst: Option<Value>, op: &Op) -> Result<(), CompileError> {
    let ty = |v: &Value| sh.ty(*v).scalar;
    let small = |s: Scalar| matches!(s, Scalar::I8 | Scalar::I16 | Scalar::F16);
    let Some(d) = dst else { return Ok(()) };
    let dt = sh.ty(d).scalar;
    let refuse = |what: String| Err(unsupported(what));
    match op {
        Op::Unary(u, a) if small(dt) || small(ty(a)) => {
            let ok = match u {
                UnOp::FNeg
                | UnOp::FAbs
                | UnOp::FFloor
                | UnOp::FCeil
                | UnOp::FTrunc
                | UnOp::FRoundEven
                | UnOp::FRsqrt
                | UnOp::FRcp
                | UnOp::FExp2
                | UnOp::FLog2 => dt == Scalar::F16,
                UnOp::INeg | UnOp::Not | UnOp::BitCount => dt == Scalar::I16,
                _ => false,
            };
            if !ok {
                return refuse(format!("{u:?} on {dt:?} in the G13 back end"));
            }
        }
        Op::Binary(b, a, _) if small(dt) || small(ty(a)) => {
            use BinOp::*;
            let ok = match b {
                And | Or | Xor => true,
                IAdd | ISub | IMul | Shl | UShr | SShr | UMin | SMin | UMax | SMax => {
                    dt == Scalar::I16
                }
                FAdd | FSub | FMul | FMin | FMax => dt == Scalar::F16,
                _ => false,
            };
            if !ok {
                return refuse(format!("{b:?} on {dt:?} in the G13 back end"));
            }
        }
        Op::Cmp(c, a, _)
            if ty(a) == Scalar::I8
                && !matches!(
                    c,
                    CmpOp::IEq | CmpOp::INe | CmpOp::ULt | CmpOp::ULe | CmpOp::UGt | CmpOp::UGe
                ) =>
        {
            return refuse(format!("{c:?} on 8-bit integers in the G13 back end"));
        }
        Op::BitfieldInsert(..) | Op::UBitfieldExtract(..) | Op::SBitfieldExtract(..)
            if small(dt) =>
        {
            return refuse(format!("bitfield operations on {dt:?} in the G13 back end"));
        }
        _ => {}
    }
    Ok(())
}

impl Sel<'_> {
    /// Conversions with an 8- or 16-bit side; `None` when neither side is one.
    pub(super) fn conv_small(
        &mut self,
        d: Value,
        op: ConvOp,
        a: Value,
    ) -> Result<Option<()>, CompileError> {
        let (from, to) = (self.ty(a)?.scalar, self.ty(d)?.scalar);
        let narrow = |s: Scalar| matches!(s, Scalar::I8 | Scalar::I16 | Scalar::F16);
        if !narrow(from) && !narrow(to) {
            return Ok(None);
        }
        match op {
            ConvOp::Bitcast | ConvOp::FToF if from.bits() == to.bits() => {
                let v = self.val(a)?;
                self.set(d, v)?;
            }
            ConvOp::FToF => {
                // The 32-bit float opcodes convert between widths as they read and write
                // (x + -0.0 is x, rounded to nearest even for a narrower result).
                let src = self.fop(a)?;
                let r = self.def(d)?;
                self.farith(
                    FOp::Add,
                    r,
                    FSrc::new(src),
                    FSrc::new(Operand::Imm(NEG_ZERO_IMM)),
                    FSrc::new(Operand::Imm(0)),
                );
            }
            ConvOp::UToU | ConvOp::SToS | ConvOp::BoolToInt => {
                self.int_resize(d, op, a, from, to)?
            }
            ConvOp::UToF | ConvOp::SToF => {
                let signed = op == ConvOp::SToF;
                let cop = match (from.bits(), signed) {
                    (8, false) => ConvertOp::U8ToF,
                    (8, true) => ConvertOp::S8ToF,
                    (16, false) => ConvertOp::U16ToF,
                    (16, true) => ConvertOp::S16ToF,
                    (32, false) => ConvertOp::U32ToF,
                    (32, true) => ConvertOp::S32ToF,
                    _ => return Err(unsupported(format!("{op:?} from {from:?} to {to:?}"))),
                };
                let src = self.iop(a)?;
                let src = self.in_reg(src)?;
                let r = self.def(d)?;
                self.emit(Instr::Convert(Convert {
                    op: cop,
                    dst: r.into(),
                    src: ISrc::new(src),
                    round: Round::NearestEven,
                }));
            }
            ConvOp::FToU | ConvOp::FToS => {
                let signed = op == ConvOp::FToS;
                let cop = match (to.bits(), signed) {
                    (8 | 16, false) => ConvertOp::FToU16,
                    (8 | 16, true) => ConvertOp::FToS16,
                    (32, false) => ConvertOp::FToU32,
                    (32, true) => ConvertOp::FToS32,
                    _ => return Err(unsupported(format!("{op:?} from {from:?} to {to:?}"))),
                };
                let src = self.fop(a)?;
                if to == Scalar::I8 {
                    // Out of range is undefined; keep the half's high byte clear.
                    let t = self.temp(Size::S16)?;
                    self.emit(Instr::Convert(Convert {
                        op: cop,
                        dst: t.into(),
                        src: ISrc::new(src),
                        round: Round::TowardZero,
                    }));
                    let r = self.def(d)?;
                    self.bitop(r, Operand::Reg(t), Operand::Imm(0xff), AND);
                } else {
                    let r = self.def(d)?;
                    self.emit(Instr::Convert(Convert {
                        op: cop,
                        dst: r.into(),
                        src: ISrc::new(src),
                        round: Round::TowardZero,
                    }));
                }
            }
            _ => return Err(unsupported(format!("{op:?} from {from:?} to {to:?}"))),
        }
        Ok(Some(()))
    }

    /// Immediates as a register (the convert instruction reads a register or uniform).
    fn in_reg(&mut self, o: Operand) -> Result<Operand, CompileError> {
        match o {
            Operand::Imm(v) => {
                let r = self.temp(Size::S32)?;
                self.emit(Instr::MovImm(MovImm {
                    dst: r.into(),
                    imm: v,
                }));
                Ok(Operand::Reg(r))
            }
            o => Ok(o),
        }
    }

    /// Integer width changes with an 8- or 16-bit side (64-bit ones are split into 32-bit
    /// words by `lower_int64` first).
    fn int_resize(
        &mut self,
        d: Value,
        op: ConvOp,
        a: Value,
        from: Scalar,
        to: Scalar,
    ) -> Result<(), CompileError> {
        let src = self.iop(a)?;
        let low16 = |o: Operand| match o {
            Operand::Reg(r) => Operand::Reg(Reg {
                half: r.half,
                size: Size::S16,
            }),
            Operand::Uniform(u) => Operand::Uniform(Reg {
                half: u.half,
                size: Size::S16,
            }),
            Operand::Imm(i) => Operand::Imm(i),
        };
        let signed = op == ConvOp::SToS;
        if to.bits() <= from.bits() || op == ConvOp::BoolToInt {
            // Truncation (or a bool's 0/1): the low half, and for 8 bits its low byte.
            let r = self.def(d)?;
            if to == Scalar::I8 {
                self.bitop(r, low16(src), Operand::Imm(0xff), AND);
            } else if r.size == Size::S16 {
                self.copy(r, low16(src));
            } else {
                self.copy(r, src);
            }
            return Ok(());
        }
        // Widening. An 8-bit value's sign is bit 7 of its half: move it to bit 15 first.
        let src = if from == Scalar::I8 && signed {
            let src = match src {
                Operand::Imm(_) => Operand::Reg(self.reg(a)?),
                o => o,
            };
            let up = self.temp(Size::S16)?;
            self.shl(up, src, Operand::Imm(8));
            let t = self.temp(Size::S16)?;
            self.asr(t, Operand::Reg(up), Operand::Imm(8));
            Operand::Reg(t)
        } else {
            src
        };
        let r = self.def(d)?;
        if r.size == Size::S16 {
            self.copy(r, src);
            return Ok(());
        }
        let src = match src {
            Operand::Imm(_) if signed => Operand::Reg(self.reg(a)?),
            o => o,
        };
        self.emit(Instr::IAdd(IAdd {
            dst: r.into(),
            a: ISrc {
                op: src,
                sign_extend: signed,
                hint: Hint::None,
            },
            b: ISrc::new(Operand::Imm(0)),
            negate_b: false,
            shift: 0,
            saturate: false,
        }));
        Ok(())
    }

    /// A root-table (push constant) load of an 8-bit value: the byte of its uniform half,
    /// zero-extended.
    pub(super) fn root_byte(&mut self, d: Value, off: u64) -> Result<(), CompileError> {
        let u = Operand::Uniform(Reg {
            half: (off / 2) as u16,
            size: Size::S16,
        });
        let r = self.def(d)?;
        if off.is_multiple_of(2) {
            self.bitop(r, u, Operand::Imm(0xff), AND);
        } else {
            self.ushr(r, u, Operand::Imm(8), 8);
        }
        Ok(())
    }

    /// Memory format of an access of `v`'s type.
    pub(super) fn mem_format(&self, v: Value) -> Result<MemFormat, CompileError> {
        let t = self.ty(v)?;
        Ok(match t.scalar {
            Scalar::I8 => MemFormat::I8,
            Scalar::I16 | Scalar::F16 => MemFormat::I16,
            _ => {
                let _ = size_of(t)?;
                MemFormat::I32
            }
        })
    }
}
