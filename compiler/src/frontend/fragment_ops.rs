//! Fragment-only instructions: the derivatives (OpDPdx, OpDPdy, OpFwidth and their Fine and
//! Coarse forms) and GLSL.std.450's interpolateAtCentroid, interpolateAtSample and
//! interpolateAtOffset.

use rspirv::dr::Instruction;
use spirv::Op;

use super::module::{id, invalid, lit};
use super::translate::{FnState, Tr};
use super::values::{FVal, Ptr, VarTree};
use crate::ir::{self, BinOp, InterpolateAt, Interpolation, Scalar, Type, UnOp, Value};
use crate::CompileError;

/// The varying an Input Var holds: its first 32-bit component and interpolation mode.
#[derive(Debug, Clone, Copy)]
pub(super) struct InputSlot {
    pub location: u32,
    pub component: u8,
    pub mode: Interpolation,
}

/// GLSL.std.450 instruction numbers of the interpolation functions.
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_SAMPLE: u32 = 77;
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// Whether GLSL.std.450 instruction `n` is an interpolation function (its first operand is
/// a pointer, not a value).
pub(super) fn is_interpolation(n: u32) -> bool {
    (INTERPOLATE_AT_CENTROID..=INTERPOLATE_AT_OFFSET).contains(&n)
}

pub(super) fn is_derivative(op: Op) -> bool {
    matches!(
        op,
        Op::DPdx
            | Op::DPdy
            | Op::Fwidth
            | Op::DPdxFine
            | Op::DPdyFine
            | Op::FwidthFine
            | Op::DPdxCoarse
            | Op::DPdyCoarse
            | Op::FwidthCoarse
    )
}

impl<'m> Tr<'m> {
    fn fragment_only(&self, what: &str) -> Result<(), CompileError> {
        if self.stage != ir::Stage::Fragment {
            return Err(invalid(format!("{what} in a {:?} shader", self.stage)));
        }
        Ok(())
    }

    /// Whether the invocation is a helper now (gl_HelperInvocation, OpIsHelperInvocationEXT).
    pub fn is_helper(&mut self) -> Result<Value, CompileError> {
        self.fragment_only("HelperInvocation")?;
        let h = self.emit(Type::I32, ir::Op::SysVal(ir::SysVal::HelperInvocation))?;
        let z = self.u32c(0)?;
        self.emit(Type::BOOL, ir::Op::Cmp(ir::CmpOp::INe, h, z))
    }

    /// A derivative of a float scalar or vector. The hardware's is the fine one, which every
    /// form may use (SPIR-V lets coarse derivatives be computed as fine ones).
    pub fn derivative(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Value, CompileError> {
        let op = inst.class.opcode;
        self.fragment_only(&format!("{op:?}"))?;
        let x = self.simple(fs, id(inst, 0)?)?;
        if self.sh.ty(x).scalar != Scalar::F32 {
            return Err(invalid(format!("{op:?} of a non-float operand")));
        }
        match op {
            Op::DPdx | Op::DPdxFine | Op::DPdxCoarse => self.un(UnOp::FDdx, x),
            Op::DPdy | Op::DPdyFine | Op::DPdyCoarse => self.un(UnOp::FDdy, x),
            _ => {
                let dx = self.un(UnOp::FDdx, x)?;
                let dy = self.un(UnOp::FDdy, x)?;
                let (dx, dy) = (self.un(UnOp::FAbs, dx)?, self.un(UnOp::FAbs, dy)?);
                self.bin(BinOp::FAdd, dx, dy)
            }
        }
    }

    /// interpolateAtCentroid / Sample / Offset (GLSL.std.450 number `n`) of the input the
    /// first operand points at: a whole scalar or vector Input variable, or one component
    /// of one (an access chain into it, possibly with non-constant indices).
    pub fn interpolate_at(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<FVal, CompileError> {
        let n = lit(inst, 1)?;
        self.fragment_only("an interpolateAt function")?;
        let p = self.ptr(fs, id(inst, 2)?)?;
        let at = match n {
            INTERPOLATE_AT_CENTROID => InterpolateAt::Centroid,
            INTERPOLATE_AT_SAMPLE => {
                let s = self.simple(fs, id(inst, 3)?)?;
                if self.sh.ty(s) != Type::I32 {
                    return Err(invalid("interpolateAtSample with a non-integer sample"));
                }
                InterpolateAt::Sample(s)
            }
            INTERPOLATE_AT_OFFSET => {
                let o = self.simple(fs, id(inst, 3)?)?;
                if self.sh.ty(o) != Type::vec(Scalar::F32, 2) {
                    return Err(invalid(
                        "interpolateAtOffset with an offset that is not vec2",
                    ));
                }
                InterpolateAt::Offset(self.lane(o, 0)?, self.lane(o, 1)?)
            }
            other => {
                return Err(invalid(format!(
                    "GLSL.std.450 {other} is not interpolation"
                )))
            }
        };
        Ok(FVal::V(self.interpolate_ptr(&p, at)?))
    }

    fn interpolate_ptr(&mut self, p: &Ptr, at: InterpolateAt) -> Result<Value, CompileError> {
        let (var, lanes) = match p {
            Ptr::Vars {
                tree: VarTree::Leaf(v),
                ..
            } => (*v, 0..self.sh.var_types[v.0 as usize].lanes),
            Ptr::VarLane { var, lane } => (*var, *lane..*lane + 1),
            Ptr::Choice { arms, .. } => {
                // As a load of the Choice: the last arm stands for an index out of range.
                let mut acc: Option<FVal> = None;
                for (c, o) in arms.iter().rev() {
                    let v = FVal::V(self.interpolate_ptr(o, at)?);
                    acc = Some(match acc {
                        None => v,
                        Some(a) => self.select_fval(*c, &v, &a)?,
                    });
                }
                let Some(FVal::V(v)) = acc else {
                    return Err(invalid("interpolant that is not a scalar or vector"));
                };
                return Ok(v);
            }
            _ => return Err(invalid("interpolant that is not a scalar or vector input")),
        };
        let slot = *self
            .input_slots
            .get(&var)
            .ok_or_else(|| invalid("interpolant that is not an Input variable"))?;
        if self.sh.var_types[var.0 as usize].scalar != Scalar::F32 {
            return Err(invalid("interpolant that is not a float"));
        }
        self.emit(
            Type::vec(Scalar::F32, lanes.len() as u8),
            ir::Op::InterpolateInput {
                location: slot.location,
                component: slot.component + lanes.start,
                mode: slot.mode,
                at,
            },
        )
    }
}
