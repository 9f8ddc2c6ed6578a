//! IR types of SPIR-V types and byte layouts of memory: explicit (Offset, ArrayStride,
//! MatrixStride decorations, as std140/std430 blocks carry them) or, for workgroup memory and
//! scratch, a natural std430-like layout the front end chooses.

use std::collections::HashMap;

use spirv::{Decoration, StorageClass, Word};

use super::module::{invalid, unsupported, Decorations, SpvType};
use crate::ir::{Scalar, Type};
use crate::CompileError;

/// A type and the matrix layout (stride, row-major) it is measured with.
pub(super) type SizeKey = (Word, Option<(u32, bool)>);

pub(super) struct Layouts<'m> {
    pub types: &'m HashMap<Word, SpvType>,
    pub decos: &'m Decorations,
    /// Sizes and alignments already computed (types form a DAG that can be wide).
    pub sizes: std::cell::RefCell<HashMap<SizeKey, u32>>,
    pub aligns: std::cell::RefCell<HashMap<Word, u32>>,
}

/// How a matrix is laid out in memory (from the member decorations of the enclosing struct).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct MatLayout {
    pub stride: u32,
    pub row_major: bool,
}

impl Layouts<'_> {
    pub fn get(&self, ty: Word) -> Result<&SpvType, CompileError> {
        self.types
            .get(&ty)
            .ok_or_else(|| invalid(format!("undefined type {ty}")))
    }

    /// The IR type of a scalar or vector SPIR-V type.
    pub fn ir_type(&self, ty: Word) -> Result<Type, CompileError> {
        Ok(match self.get(ty)? {
            SpvType::Bool => Type::BOOL,
            SpvType::Int { width: 64, .. } => Type::I64,
            SpvType::Int { width: 16, .. } => Type::scalar(Scalar::I16),
            SpvType::Int { width: 8, .. } => Type::scalar(Scalar::I8),
            SpvType::Int { .. } => Type::I32,
            SpvType::Float { width: 16 } => Type::scalar(Scalar::F16),
            SpvType::Float { .. } => Type::F32,
            // A physical pointer held as a value (in memory, a variable, a phi) is its address.
            SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                ..
            } => Type::I64,
            SpvType::Vector { elem, n } => {
                let Type { scalar, .. } = self.ir_type(*elem)?;
                Type::vec(scalar, *n as u8)
            }
            other => return Err(invalid(format!("{other:?} is not a scalar or vector type"))),
        })
    }

    /// Bytes of one component of a scalar, vector or matrix type in memory (bools as 32-bit
    /// words): the step between packed lanes.
    pub fn component_bytes(&self, ty: Word) -> Result<u32, CompileError> {
        Ok(match self.get(ty)? {
            SpvType::Int { width, .. } | SpvType::Float { width } => width / 8,
            SpvType::Vector { elem, .. } => self.component_bytes(*elem)?,
            SpvType::Matrix { col, .. } => self.component_bytes(*col)?,
            _ => 4,
        })
    }

    pub fn is_simple(&self, ty: Word) -> Result<bool, CompileError> {
        Ok(matches!(
            self.get(ty)?,
            SpvType::Bool
                | SpvType::Int { .. }
                | SpvType::Float { .. }
                | SpvType::Vector { .. }
                | SpvType::Pointer {
                    sc: StorageClass::PhysicalStorageBuffer,
                    ..
                }
        ))
    }

    /// Natural alignment in bytes (std430 rules, bools as 32-bit).
    pub fn align(&self, ty: Word, depth: u32) -> Result<u32, CompileError> {
        if depth > 32 {
            return Err(invalid("type nesting too deep"));
        }
        if let Some(a) = self.aligns.borrow().get(&ty) {
            return Ok(*a);
        }
        let a = self.align_uncached(ty, depth)?;
        self.aligns.borrow_mut().insert(ty, a);
        Ok(a)
    }

    fn align_uncached(&self, ty: Word, depth: u32) -> Result<u32, CompileError> {
        Ok(match self.get(ty)? {
            SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                ..
            } => 8,
            SpvType::Int { width, .. } | SpvType::Float { width } => width / 8,
            SpvType::Bool => 4,
            SpvType::Vector { n, elem } => {
                let e = self.align(*elem, depth + 1)?;
                if *n == 2 {
                    2 * e
                } else {
                    4 * e
                }
            }
            SpvType::Matrix { col, .. } => self.align(*col, depth + 1)?,
            SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => {
                self.align(*elem, depth + 1)?
            }
            SpvType::Struct { members } => {
                let mut a = 4;
                for m in members {
                    a = a.max(self.align(*m, depth + 1)?);
                }
                a
            }
            other => return Err(invalid(format!("{other:?} has no memory layout"))),
        })
    }

    pub fn array_stride(&self, array_ty: Word, elem: Word) -> Result<u32, CompileError> {
        if let Some(s) = self
            .decos
            .get(array_ty, Decoration::ArrayStride)
            .and_then(|v| v.first())
        {
            if *s == 0 {
                return Err(invalid("ArrayStride 0"));
            }
            return Ok(*s);
        }
        let size = self.size(elem, None, 0)?;
        let a = self.align(elem, 0)?;
        size.checked_next_multiple_of(a)
            .ok_or_else(|| unsupported("array element too large"))
    }

    pub fn default_mat(&self, col: Word) -> Result<MatLayout, CompileError> {
        Ok(MatLayout {
            stride: self.align(col, 0)?,
            row_major: false,
        })
    }

    pub fn member_offset(&self, st: Word, members: &[Word], i: u32) -> Result<u32, CompileError> {
        if let Some(o) = self
            .decos
            .member(st, i, Decoration::Offset)
            .and_then(|v| v.first())
        {
            return Ok(*o);
        }
        let mut off = 0u32;
        for (k, m) in members.iter().enumerate() {
            let a = self.align(*m, 0)?;
            off = off
                .checked_next_multiple_of(a)
                .ok_or_else(|| unsupported("struct too large"))?;
            if k as u32 == i {
                return Ok(off);
            }
            off = off
                .checked_add(self.size(*m, self.member_mat(st, k as u32), 0)?)
                .ok_or_else(|| unsupported("struct too large"))?;
        }
        Err(invalid("struct member index out of range"))
    }

    pub fn member_mat(&self, st: Word, i: u32) -> Option<MatLayout> {
        let stride = *self
            .decos
            .member(st, i, Decoration::MatrixStride)?
            .first()?;
        let row_major = self.decos.member(st, i, Decoration::RowMajor).is_some();
        Some(MatLayout { stride, row_major })
    }

    /// Size in bytes of a value of `ty` in memory.
    pub fn size(&self, ty: Word, mat: Option<MatLayout>, depth: u32) -> Result<u32, CompileError> {
        if depth > 32 {
            return Err(invalid("type nesting too deep"));
        }
        let key = (ty, mat.map(|m| (m.stride, m.row_major)));
        if let Some(s) = self.sizes.borrow().get(&key) {
            return Ok(*s);
        }
        let s = self.size_uncached(ty, mat, depth)?;
        self.sizes.borrow_mut().insert(key, s);
        Ok(s)
    }

    fn size_uncached(
        &self,
        ty: Word,
        mat: Option<MatLayout>,
        depth: u32,
    ) -> Result<u32, CompileError> {
        Ok(match self.get(ty)? {
            SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                ..
            } => 8,
            SpvType::Int { width, .. } | SpvType::Float { width } => width / 8,
            SpvType::Bool => 4,
            SpvType::Vector { n, elem } => self.size(*elem, None, depth + 1)? * n,
            SpvType::Matrix { col, cols } => {
                let m = match mat {
                    Some(m) => m,
                    None => self.default_mat(*col)?,
                };
                let rows = match self.get(*col)? {
                    SpvType::Vector { n, .. } => *n,
                    _ => return Err(invalid("matrix column is not a vector")),
                };
                let c = self.component_bytes(*col)?;
                if m.row_major {
                    m.stride * (rows - 1) + c * cols
                } else {
                    m.stride * (cols - 1) + c * rows
                }
            }
            SpvType::Array { elem, len } => {
                let stride = self.array_stride(ty, *elem)?;
                stride
                    .checked_mul(*len)
                    .filter(|s| *s < 1 << 30)
                    .ok_or_else(|| unsupported("array larger than 1 GiB"))?
            }
            SpvType::RuntimeArray { .. } => 0,
            SpvType::Struct { members } => {
                let mut end = 0u32;
                for (i, m) in members.iter().enumerate() {
                    let off = self.member_offset(ty, members, i as u32)?;
                    let s = self.size(*m, self.member_mat(ty, i as u32), depth + 1)?;
                    end = end.max(off.saturating_add(s));
                }
                let a = self.align(ty, depth)?;
                end.checked_next_multiple_of(a)
                    .filter(|e| *e < 1 << 30)
                    .ok_or_else(|| unsupported("struct larger than 1 GiB"))?
            }
            other => return Err(invalid(format!("{other:?} has no memory layout"))),
        })
    }

    /// Number of scalar-or-vector leaves of a type (for flattening into Vars).
    pub fn leaves(&self, ty: Word, out: &mut Vec<Type>, depth: u32) -> Result<(), CompileError> {
        if depth > 32 || out.len() > 65536 {
            return Err(unsupported("local variable too large to keep in registers"));
        }
        match self.get(ty)? {
            SpvType::Bool
            | SpvType::Int { .. }
            | SpvType::Float { .. }
            | SpvType::Vector { .. }
            | SpvType::Pointer {
                sc: StorageClass::PhysicalStorageBuffer,
                ..
            } => out.push(self.ir_type(ty)?),
            SpvType::Matrix { col, cols } => {
                for _ in 0..*cols {
                    self.leaves(*col, out, depth + 1)?;
                }
            }
            SpvType::Array { elem, len } => {
                for _ in 0..*len {
                    self.leaves(*elem, out, depth + 1)?;
                }
            }
            SpvType::Struct { members } => {
                for m in members {
                    self.leaves(*m, out, depth + 1)?;
                }
            }
            other => return Err(invalid(format!("{other:?} is not a value type"))),
        }
        Ok(())
    }

    /// The element types of a composite, in index order.
    pub fn children(&self, ty: Word) -> Result<Vec<Word>, CompileError> {
        Ok(match self.get(ty)? {
            SpvType::Vector { elem, n } => vec![*elem; *n as usize],
            SpvType::Matrix { col, cols } => vec![*col; *cols as usize],
            SpvType::Array { elem, len } => {
                if *len > 65536 {
                    return Err(unsupported("array value larger than 65536 elements"));
                }
                vec![*elem; *len as usize]
            }
            SpvType::Struct { members } => members.clone(),
            other => return Err(invalid(format!("{other:?} is not a composite"))),
        })
    }
}
