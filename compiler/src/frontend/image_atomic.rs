//! Atomics on storage images and storage texel buffers (docs/render-abi.md 7.2):
//! OpImageTexelPointer names a texel ([`Ptr::Texel`]), and the OpAtomic* instruction that
//! uses it becomes one `Op::ImageAtomic`, which `passes::lower_image_atomics` turns into a
//! global atomic at the texel's address.
//!
//! Texels are 32-bit integers; on a float image (R32_SFLOAT) exchange, load and store move
//! the bits as integers, and the other operations are refused (float atomics beyond
//! exchange are VK_EXT_shader_atomic_float, which agx4 does not offer).

use rspirv::dr::Instruction;
use spirv::Op;

use super::module::{id, invalid, result_id, result_type, unsupported, SpvType};
use super::translate::{FnState, Tr};
use super::values::{Entry, FVal, Ptr};
use crate::ir::{
    self, AtomicOp, AtomicTarget, ConvOp, DescriptorRef, ImageAtomic, ImageAtomicOp, ImageDim,
    Scalar, Type,
};
use crate::CompileError;

impl<'m> Tr<'m> {
    /// OpImageTexelPointer: the texel of the storage image behind operand 0 at the integer
    /// coordinates of operand 1 (operand 2, the sample, must be 0: atomics are offered on
    /// single-sampled images only).
    pub(super) fn image_texel_pointer(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Entry, CompileError> {
        let Ptr::Image {
            image: Some(image),
            ty,
            ..
        } = self.ptr(fs, id(inst, 0)?)?
        else {
            return Err(invalid(
                "OpImageTexelPointer of something that is not an image",
            ));
        };
        let SpvType::Image(it) = *self.l.get(ty)? else {
            return Err(invalid(
                "OpImageTexelPointer of a sampled image or an array",
            ));
        };
        if it.ms {
            return Err(unsupported("atomics on multisampled storage images"));
        }
        if it.usage == 1 {
            return Err(invalid("OpImageTexelPointer of a sampled image"));
        }
        // Storage texel buffers address elements (docs/render-abi.md 7.1 and 7.2).
        let target = if it.dim == ImageDim::Buffer {
            AtomicTarget::Buffer
        } else {
            AtomicTarget::Image {
                dim: it.dim,
                arrayed: it.arrayed,
            }
        };
        let n = match target {
            AtomicTarget::Image { dim, arrayed } => {
                dim.axes() + usize::from(arrayed && dim != ImageDim::Cube)
            }
            AtomicTarget::Buffer => 1,
        };
        let c = self.simple(fs, id(inst, 1)?)?;
        let ct = self.sh.ty(c);
        if ct.scalar != Scalar::I32 || ct.lanes as usize != n {
            return Err(invalid(format!(
                "texel pointer coordinate of type {ct:?}, {n} integers expected"
            )));
        }
        let coords = (0..n)
            .map(|i| self.lane(c, i as u8))
            .collect::<Result<Vec<_>, _>>()?;
        let pointee = match self.l.get(result_type(inst)?)? {
            SpvType::Pointer { pointee, .. } => *pointee,
            _ => return Err(invalid("OpImageTexelPointer result is not a pointer")),
        };
        let texel = self.l.ir_type(pointee)?;
        if texel != Type::I32 && texel != Type::F32 {
            return Err(unsupported(format!("atomics on {texel:?} texels")));
        }
        Ok(Entry::Ptr(Ptr::Texel {
            image,
            target,
            coords,
            ty: pointee,
        }))
    }

    /// An OpAtomic* whose pointer is a texel pointer `p`.
    pub(super) fn image_atomic(
        &mut self,
        fs: &mut FnState<'m>,
        inst: &Instruction,
        p: Ptr,
    ) -> Result<(), CompileError> {
        let Ptr::Texel {
            image,
            target,
            coords,
            ty,
        } = p
        else {
            return Err(invalid("image atomic without a texel pointer"));
        };
        let float = self.l.ir_type(ty)? == Type::F32;
        let op = inst.class.opcode;
        // (operation, operand index of the value, of the comparator)
        let (aop, value_at, cmp_at) = match op {
            Op::AtomicLoad => (ImageAtomicOp::Load, None, None),
            Op::AtomicStore => (ImageAtomicOp::Store, Some(3), None),
            Op::AtomicExchange => (ImageAtomicOp::Atomic(AtomicOp::Exchange), Some(3), None),
            _ if float => {
                return Err(unsupported(format!(
                    "{op:?} on a float image (only exchange, load and store)"
                )))
            }
            Op::AtomicCompareExchange => (
                ImageAtomicOp::Atomic(AtomicOp::CompareExchange),
                Some(4),
                Some(5),
            ),
            Op::AtomicIIncrement | Op::AtomicIDecrement => {
                let a = if op == Op::AtomicIIncrement {
                    AtomicOp::Add
                } else {
                    AtomicOp::Sub
                };
                (ImageAtomicOp::Atomic(a), None, None)
            }
            _ => {
                let a = match op {
                    Op::AtomicIAdd => AtomicOp::Add,
                    Op::AtomicISub => AtomicOp::Sub,
                    Op::AtomicSMin => AtomicOp::SMin,
                    Op::AtomicUMin => AtomicOp::UMin,
                    Op::AtomicSMax => AtomicOp::SMax,
                    Op::AtomicUMax => AtomicOp::UMax,
                    Op::AtomicAnd => AtomicOp::And,
                    Op::AtomicOr => AtomicOp::Or,
                    Op::AtomicXor => AtomicOp::Xor,
                    other => return Err(unsupported(format!("{other:?} on an image"))),
                };
                (ImageAtomicOp::Atomic(a), Some(3), None)
            }
        };
        let operand = |tr: &mut Self, at: Option<usize>| -> Result<_, CompileError> {
            let Some(at) = at else { return Ok(None) };
            let v = tr.simple(fs, id(inst, at)?)?;
            match tr.sh.ty(v) {
                Type::I32 => Ok(Some(v)),
                Type::F32 if float => {
                    Ok(Some(tr.emit(Type::I32, ir::Op::Conv(ConvOp::Bitcast, v))?))
                }
                t => Err(invalid(format!("atomic operand of type {t:?}"))),
            }
        };
        let mut value = operand(self, value_at)?;
        let cmp = operand(self, cmp_at)?;
        if matches!(op, Op::AtomicIIncrement | Op::AtomicIDecrement) {
            value = Some(self.u32c(1)?);
        }
        let index = match image.index {
            Some(i) => i,
            None => self.u32c(0)?,
        };
        let a = ImageAtomic {
            image: DescriptorRef {
                set: image.set,
                binding: image.binding,
                index,
            },
            target,
            coords,
            op: aop,
            value,
            cmp,
        };
        if aop == ImageAtomicOp::Store {
            return self.effect(ir::Op::ImageAtomic(Box::new(a)));
        }
        let old = self.emit(Type::I32, ir::Op::ImageAtomic(Box::new(a)))?;
        let old = if float {
            self.emit(Type::F32, ir::Op::Conv(ConvOp::Bitcast, old))?
        } else {
            old
        };
        self.define(fs, result_id(inst)?, Entry::Val(FVal::V(old)))
    }
}
