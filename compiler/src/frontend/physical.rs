//! Physical storage buffer pointers (buffer device address): SPIR-V's PhysicalStorageBuffer64
//! addressing model. A physical pointer is a 64-bit GPU address. Held as a value (in memory,
//! in a variable, through a phi, a select or a call) it is an I64; where it is dereferenced it
//! becomes a `Ptr::Mem` on `Base::Address`, so loads, stores, atomics and access chains share
//! the code of descriptor-based buffers and reach memory without any bounds check, as
//! addresses do on the hardware (an unmapped address faults the GPU).

use std::collections::HashMap;

use rspirv::dr::{Instruction, Module};
use spirv::{Decoration, Op, StorageClass, Word};

use super::module::{id, invalid, result_id, result_type, unsupported, SpvType};
use super::translate::{FnState, Tr};
use super::values::{Base, Entry, FVal, Ptr};
use crate::ir::{self, BinOp, ConvOp, Type, Value};
use crate::CompileError;

/// Every id of the module's functions (results and parameters) whose type is a physical
/// pointer, with that pointer type.
pub(super) fn pointer_ids(m: &Module, types: &HashMap<Word, SpvType>) -> HashMap<Word, Word> {
    let physical = |t: Word| {
        matches!(
            types.get(&t),
            Some(SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                ..
            })
        )
    };
    let mut out = HashMap::new();
    for f in &m.functions {
        let insts = f
            .parameters
            .iter()
            .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()));
        for inst in insts {
            if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
                if physical(t) {
                    out.insert(r, t);
                }
            }
        }
    }
    out
}

impl<'m> Tr<'m> {
    /// The pointee of a physical pointer type.
    fn physical_pointee(&self, ptr_ty: Word) -> Result<Word, CompileError> {
        match self.l.get(ptr_ty)? {
            SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                pointee,
            } => Ok(*pointee),
            _ => Err(invalid(format!("type {ptr_ty} is not a physical pointer"))),
        }
    }

    /// The pointer an I64 address of physical pointer type `ptr_ty` stands for.
    pub(super) fn physical_ptr(&self, ptr_ty: Word, addr: Value) -> Result<Ptr, CompileError> {
        if self.sh.ty(addr) != Type::I64 {
            return Err(invalid("physical pointer value is not 64-bit"));
        }
        Ok(Ptr::Mem {
            base: Base::Address(addr),
            off: 0,
            dyn_off: None,
            ty: self.physical_pointee(ptr_ty)?,
            mat: None,
            lane_stride: 4,
        })
    }

    /// The 64-bit address a physical pointer holds (its base plus the offsets access chains
    /// added).
    pub(super) fn physical_address(&mut self, p: &Ptr) -> Result<Value, CompileError> {
        match p {
            Ptr::Mem {
                base: Base::Address(a),
                off,
                dyn_off,
                ..
            } => self.offset_address(*a, *off, *dyn_off),
            _ => Err(unsupported(
                "a pointer other than a physical storage buffer pointer used as a value \
                 (variable pointers)",
            )),
        }
    }

    /// `a + off + dyn_off` as 64-bit data (the offsets are unsigned 32-bit).
    pub(super) fn offset_address(
        &mut self,
        a: Value,
        off: u32,
        dyn_off: Option<Value>,
    ) -> Result<Value, CompileError> {
        let k = self.u32c(off)?;
        let o = match dyn_off {
            None if off == 0 => return Ok(a),
            None => k,
            Some(d) => self.emit(Type::I32, ir::Op::Binary(BinOp::IAdd, d, k))?,
        };
        let o64 = self.emit(Type::I64, ir::Op::Conv(ConvOp::UToU, o))?;
        self.emit(Type::I64, ir::Op::Binary(BinOp::IAdd, a, o64))
    }

    /// OpConvertUToPtr and OpConvertPtrToU: an integer is the address (zero-extended or
    /// truncated to the other width).
    pub(super) fn pointer_conversion(
        &mut self,
        fs: &mut FnState<'m>,
        inst: &Instruction,
    ) -> Result<(), CompileError> {
        let rid = result_id(inst)?;
        let x = self.simple(fs, id(inst, 0)?)?;
        let rt = self.l.ir_type(result_type(inst)?)?;
        let xt = self.sh.ty(x);
        let ok = |t: Type| t == Type::I64 || t == Type::I32;
        if !ok(rt) || !ok(xt) {
            return Err(invalid(format!(
                "{:?} between {xt:?} and {rt:?}",
                inst.class.opcode
            )));
        }
        let v = if xt == rt {
            x
        } else {
            self.emit(rt, ir::Op::Conv(ConvOp::UToU, x))?
        };
        if inst.class.opcode == Op::ConvertUToPtr {
            let p = self.physical_ptr(result_type(inst)?, v)?;
            return self.define(fs, rid, Entry::Ptr(p));
        }
        self.define(fs, rid, Entry::Val(FVal::V(v)))
    }

    /// The first step of OpPtrAccessChain: the pointer moved by `element` whole pointees,
    /// each the ArrayStride of the base's pointer type apart. Element indices may be
    /// negative, so the step is taken on the 64-bit address.
    pub(super) fn ptr_element(
        &mut self,
        fs: &FnState<'m>,
        base: Word,
        element: Word,
    ) -> Result<Ptr, CompileError> {
        let Some(&ptr_ty) = self.phys_ptrs.get(&base) else {
            return Err(unsupported(
                "OpPtrAccessChain on a pointer that is not a physical storage buffer pointer",
            ));
        };
        let p = self.ptr(fs, base)?;
        let Ptr::Mem {
            ty,
            mat,
            lane_stride,
            ..
        } = p
        else {
            return Err(invalid("OpPtrAccessChain base is not a memory pointer"));
        };
        let stride = match self
            .decos
            .get(ptr_ty, Decoration::ArrayStride)
            .and_then(|v| v.first().copied())
        {
            Some(s) if s > 0 => s,
            // The rules ask for the decoration; without it the element is its natural size.
            _ => self.l.array_stride(ptr_ty, ty)?,
        };
        let addr = self.physical_address(&p)?;
        let idx = self.simple(fs, element)?;
        let idx64 = match self.sh.ty(idx) {
            Type::I64 => idx,
            Type::I32 => self.emit(Type::I64, ir::Op::Conv(ConvOp::SToS, idx))?,
            _ => return Err(invalid("OpPtrAccessChain element is not an integer")),
        };
        let s = self.konst(Type::I64, vec![u64::from(stride)])?;
        let step = self.emit(Type::I64, ir::Op::Binary(BinOp::IMul, idx64, s))?;
        let moved = self.emit(Type::I64, ir::Op::Binary(BinOp::IAdd, addr, step))?;
        Ok(Ptr::Mem {
            base: Base::Address(moved),
            off: 0,
            dyn_off: None,
            ty,
            mat,
            lane_stride,
        })
    }
}
