//! GLSL.std.450 Determinant and MatrixInverse (33, 34) on square float matrices of 2 to 4
//! columns, by cofactor expansion on scalars.

use rspirv::dr::Instruction;

use super::module::{id, invalid};
use super::translate::{FnState, Tr};
use super::values::FVal;
use crate::ir::{self, BinOp, Type, Value};
use crate::CompileError;

impl<'m> Tr<'m> {
    pub(super) fn glsl_matrix(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
        n: u32,
    ) -> Result<FVal, CompileError> {
        let m = self.val(fs, id(inst, 2)?)?;
        let cols = self.cols(&m)?;
        let size = cols.len();
        // m[c][r]: column c, row r, as GLSL indexes matrices.
        let mut e = Vec::with_capacity(size);
        for c in &cols {
            let t = self.sh.ty(*c);
            if !t.scalar.is_float() || t.lanes as usize != size || !(2..=4).contains(&size) {
                return Err(invalid(
                    "Determinant/MatrixInverse of a matrix that is not a square float matrix",
                ));
            }
            let mut col = Vec::with_capacity(size);
            for r in 0..size {
                col.push(self.lane(*c, r as u8)?);
            }
            e.push(col);
        }
        let all: Vec<usize> = (0..size).collect();
        if n == 33 {
            return Ok(FVal::V(self.det(&e, &all, &all)?));
        }
        // inverse = adjugate / determinant; the adjugate's (c, r) entry is the cofactor of
        // (r, c), and the determinant is the expansion along column 0 of the same cofactors.
        let mut cof = vec![vec![Value(0); size]; size];
        for (c, row) in cof.iter_mut().enumerate() {
            for (r, slot) in row.iter_mut().enumerate() {
                let cs: Vec<usize> = all.iter().copied().filter(|&k| k != c).collect();
                let rs: Vec<usize> = all.iter().copied().filter(|&k| k != r).collect();
                let d = self.det(&e, &cs, &rs)?;
                *slot = if (c + r) % 2 == 1 {
                    self.un(ir::UnOp::FNeg, d)?
                } else {
                    d
                };
            }
        }
        let mut det: Option<Value> = None;
        for r in 0..size {
            let p = self.bin(BinOp::FMul, e[0][r], cof[0][r])?;
            det = Some(match det {
                None => p,
                Some(a) => self.bin(BinOp::FAdd, a, p)?,
            });
        }
        let det = det.ok_or_else(|| invalid("empty matrix"))?;
        let mut out = Vec::with_capacity(size);
        for c in 0..size {
            let mut lanes = Vec::with_capacity(size);
            for row in &cof {
                lanes.push(self.bin(BinOp::FDiv, row[c], det)?);
            }
            out.push(FVal::V(self.emit(
                Type::vec(self.sh.ty(det).scalar, size as u8),
                ir::Op::Vector(lanes),
            )?));
        }
        Ok(FVal::C(out))
    }

    /// The determinant of the submatrix of columns `cs` and rows `rs`, expanded along its
    /// first column.
    fn det(&mut self, e: &[Vec<Value>], cs: &[usize], rs: &[usize]) -> Result<Value, CompileError> {
        if cs.len() == 1 {
            return Ok(e[cs[0]][rs[0]]);
        }
        if cs.len() == 2 {
            let a = self.bin(BinOp::FMul, e[cs[0]][rs[0]], e[cs[1]][rs[1]])?;
            let b = self.bin(BinOp::FMul, e[cs[1]][rs[0]], e[cs[0]][rs[1]])?;
            return self.bin(BinOp::FSub, a, b);
        }
        let mut acc: Option<Value> = None;
        for (k, &r) in rs.iter().enumerate() {
            let sub_rs: Vec<usize> = rs.iter().copied().filter(|&x| x != r).collect();
            let minor = self.det(e, &cs[1..], &sub_rs)?;
            let p = self.bin(BinOp::FMul, e[cs[0]][r], minor)?;
            acc = Some(match acc {
                None => p,
                Some(a) if k % 2 == 1 => self.bin(BinOp::FSub, a, p)?,
                Some(a) => self.bin(BinOp::FAdd, a, p)?,
            });
        }
        acc.ok_or_else(|| invalid("empty matrix"))
    }
}
