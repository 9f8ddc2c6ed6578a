//! GLSL.std.450 extended instructions, expressed with IR operations (transcendental ones that
//! the IR lacks are built from FAtan2, FExp2 and FLog2, with the formulas the GLSL
//! specification defines them by). Bit-level ones are in `glsl_bits`, Determinant and
//! MatrixInverse in `glsl_matrix`.

use rspirv::dr::Instruction;

use super::module::{id, lit, unsupported};
use super::translate::{FnState, Tr};
use super::values::FVal;
use crate::ir::{self, BinOp, CmpOp, Type, UnOp, Value};
use crate::CompileError;

impl<'m> Tr<'m> {
    fn fsel(&mut self, c: Value, a: Value, b: Value) -> Result<Value, CompileError> {
        let t = self.sh.ty(a);
        self.emit(t, ir::Op::Select(c, a, b))
    }

    fn fexp(&mut self, x: Value) -> Result<Value, CompileError> {
        let k = self.fconst_like(x, std::f32::consts::LOG2_E)?;
        let y = self.bin(BinOp::FMul, x, k)?;
        self.un(UnOp::FExp2, y)
    }

    fn flog(&mut self, x: Value) -> Result<Value, CompileError> {
        let l = self.un(UnOp::FLog2, x)?;
        let k = self.fconst_like(x, std::f32::consts::LN_2)?;
        self.bin(BinOp::FMul, l, k)
    }

    pub fn glsl(&mut self, fs: &FnState<'m>, inst: &Instruction) -> Result<FVal, CompileError> {
        let n = lit(inst, 1)?;
        match n {
            33 | 34 => return self.glsl_matrix(fs, inst, n),
            35 | 36 | 51 | 52 => return self.glsl_split(fs, inst, n),
            59 | 65 => {
                return Err(unsupported(
                    "PackDouble2x32/UnpackDouble2x32 (64-bit floats are not supported)",
                ))
            }
            76..=78 => {
                return Err(unsupported(format!(
                    "GLSL.std.450 instruction {n} (InterpolateAt*)"
                )))
            }
            _ => {}
        }
        let args = (2..inst.operands.len())
            .map(|i| id(inst, i).and_then(|w| self.simple(fs, w)))
            .collect::<Result<Vec<_>, _>>()?;
        let arg = |i: usize| {
            args.get(i).copied().ok_or_else(|| {
                super::module::invalid("GLSL.std.450 instruction with too few operands")
            })
        };
        let x = arg(0)?;
        let v = match n {
            1 | 2 => self.un(UnOp::FRoundEven, x)?,
            3 => self.un(UnOp::FTrunc, x)?,
            4 => self.un(UnOp::FAbs, x)?,
            5 => self.un(UnOp::IAbs, x)?,
            6 => self.un(UnOp::FSign, x)?,
            7 => self.un(UnOp::ISign, x)?,
            8 => self.un(UnOp::FFloor, x)?,
            9 => self.un(UnOp::FCeil, x)?,
            10 => self.un(UnOp::FFract, x)?,
            11 | 12 => {
                let k = if n == 11 {
                    std::f32::consts::PI / 180.0
                } else {
                    180.0 / std::f32::consts::PI
                };
                let k = self.fconst_like(x, k)?;
                self.bin(BinOp::FMul, x, k)?
            }
            13 => self.un(UnOp::FSin, x)?,
            14 => self.un(UnOp::FCos, x)?,
            15 => {
                let s = self.un(UnOp::FSin, x)?;
                let c = self.un(UnOp::FCos, x)?;
                self.bin(BinOp::FDiv, s, c)?
            }
            16 | 17 => {
                // asin x = atan2(x, sqrt(1 - x^2)); acos x = atan2(sqrt(1 - x^2), x).
                let one = self.fconst_like(x, 1.0)?;
                let xx = self.bin(BinOp::FMul, x, x)?;
                let d = self.bin(BinOp::FSub, one, xx)?;
                let r = self.un(UnOp::FSqrt, d)?;
                if n == 16 {
                    self.bin(BinOp::FAtan2, x, r)?
                } else {
                    self.bin(BinOp::FAtan2, r, x)?
                }
            }
            18 => {
                let one = self.fconst_like(x, 1.0)?;
                self.bin(BinOp::FAtan2, x, one)?
            }
            19..=21 => {
                let e = self.fexp(x)?;
                let nx = self.un(UnOp::FNeg, x)?;
                let ne = self.fexp(nx)?;
                let half = self.fconst_like(x, 0.5)?;
                match n {
                    19 => {
                        let d = self.bin(BinOp::FSub, e, ne)?;
                        self.bin(BinOp::FMul, d, half)?
                    }
                    20 => {
                        let d = self.bin(BinOp::FAdd, e, ne)?;
                        self.bin(BinOp::FMul, d, half)?
                    }
                    _ => {
                        // Clamp so exp does not overflow; tanh is +-1 well before |x| = 10.
                        let lim = self.fconst_like(x, 10.0)?;
                        let nlim = self.fconst_like(x, -10.0)?;
                        let c = self.bin(BinOp::FMin, x, lim)?;
                        let c = self.bin(BinOp::FMax, c, nlim)?;
                        let e = self.fexp(c)?;
                        let nc = self.un(UnOp::FNeg, c)?;
                        let ne = self.fexp(nc)?;
                        let num = self.bin(BinOp::FSub, e, ne)?;
                        let den = self.bin(BinOp::FAdd, e, ne)?;
                        self.bin(BinOp::FDiv, num, den)?
                    }
                }
            }
            22 => {
                // asinh x = log(x + sqrt(x^2 + 1)), GLSL's definition.
                let one = self.fconst_like(x, 1.0)?;
                let xx = self.bin(BinOp::FMul, x, x)?;
                let s = self.bin(BinOp::FAdd, xx, one)?;
                let r = self.un(UnOp::FSqrt, s)?;
                let a = self.bin(BinOp::FAdd, x, r)?;
                self.flog(a)?
            }
            23 => {
                // acosh x = log(x + sqrt(x^2 - 1)); NaN below 1.
                let one = self.fconst_like(x, 1.0)?;
                let xx = self.bin(BinOp::FMul, x, x)?;
                let s = self.bin(BinOp::FSub, xx, one)?;
                let r = self.un(UnOp::FSqrt, s)?;
                let a = self.bin(BinOp::FAdd, x, r)?;
                self.flog(a)?
            }
            24 => {
                // atanh x = log((1 + x) / (1 - x)) / 2.
                let one = self.fconst_like(x, 1.0)?;
                let p = self.bin(BinOp::FAdd, one, x)?;
                let q = self.bin(BinOp::FSub, one, x)?;
                let d = self.bin(BinOp::FDiv, p, q)?;
                let l = self.flog(d)?;
                let half = self.fconst_like(x, 0.5)?;
                self.bin(BinOp::FMul, l, half)?
            }
            25 => self.bin(BinOp::FAtan2, x, arg(1)?)?,
            26 => self.bin(BinOp::FPow, x, arg(1)?)?,
            27 => self.fexp(x)?,
            28 => self.flog(x)?,
            29 => self.un(UnOp::FExp2, x)?,
            30 => self.un(UnOp::FLog2, x)?,
            31 => self.un(UnOp::FSqrt, x)?,
            32 => self.un(UnOp::FRsqrt, x)?,
            37 | 79 => self.bin(BinOp::FMin, x, arg(1)?)?,
            38 => self.bin(BinOp::UMin, x, arg(1)?)?,
            39 => self.bin(BinOp::SMin, x, arg(1)?)?,
            40 | 80 => self.bin(BinOp::FMax, x, arg(1)?)?,
            41 => self.bin(BinOp::UMax, x, arg(1)?)?,
            42 => self.bin(BinOp::SMax, x, arg(1)?)?,
            43 | 81 => {
                let m = self.bin(BinOp::FMax, x, arg(1)?)?;
                self.bin(BinOp::FMin, m, arg(2)?)?
            }
            44 => {
                let m = self.bin(BinOp::UMax, x, arg(1)?)?;
                self.bin(BinOp::UMin, m, arg(2)?)?
            }
            45 => {
                let m = self.bin(BinOp::SMax, x, arg(1)?)?;
                self.bin(BinOp::SMin, m, arg(2)?)?
            }
            46 => {
                // x * (1 - a) + y * a, which is exact at a = 0 and a = 1.
                let (y, a) = (arg(1)?, arg(2)?);
                let one = self.fconst_like(x, 1.0)?;
                let ia = self.bin(BinOp::FSub, one, a)?;
                let p = self.bin(BinOp::FMul, x, ia)?;
                let q = self.bin(BinOp::FMul, y, a)?;
                self.bin(BinOp::FAdd, p, q)?
            }
            48 => {
                // step(edge, x) = x < edge ? 0 : 1
                let e = x;
                let xv = arg(1)?;
                let lt = self.cmp(CmpOp::FOLt, xv, e)?;
                let z = self.fconst_like(xv, 0.0)?;
                let one = self.fconst_like(xv, 1.0)?;
                self.fsel(lt, z, one)?
            }
            49 => {
                let (e0, e1, xv) = (x, arg(1)?, arg(2)?);
                let d = self.bin(BinOp::FSub, xv, e0)?;
                let w = self.bin(BinOp::FSub, e1, e0)?;
                let t = self.bin(BinOp::FDiv, d, w)?;
                let z = self.fconst_like(xv, 0.0)?;
                let one = self.fconst_like(xv, 1.0)?;
                let t = self.bin(BinOp::FMax, t, z)?;
                let t = self.bin(BinOp::FMin, t, one)?;
                let two = self.fconst_like(xv, 2.0)?;
                let three = self.fconst_like(xv, 3.0)?;
                let tt = self.bin(BinOp::FMul, t, t)?;
                let t2 = self.bin(BinOp::FMul, two, t)?;
                let s = self.bin(BinOp::FSub, three, t2)?;
                self.bin(BinOp::FMul, tt, s)?
            }
            50 => {
                let t = self.sh.ty(x);
                self.emit(t, ir::Op::FFma(x, arg(1)?, arg(2)?))?
            }
            53 => self.ldexp(x, arg(1)?)?,
            54..=58 => self.glsl_pack(n, x)?,
            60..=64 => self.glsl_unpack(n, x)?,
            66 => {
                if self.sh.ty(x).lanes == 1 {
                    self.un(UnOp::FAbs, x)?
                } else {
                    let d = self.dot(x, x)?;
                    self.un(UnOp::FSqrt, d)?
                }
            }
            67 => {
                let d = self.bin(BinOp::FSub, x, arg(1)?)?;
                if self.sh.ty(d).lanes == 1 {
                    self.un(UnOp::FAbs, d)?
                } else {
                    let dd = self.dot(d, d)?;
                    self.un(UnOp::FSqrt, dd)?
                }
            }
            68 => {
                let y = arg(1)?;
                let a = |tr: &mut Self, v, i| tr.lane(v, i);
                let mut lanes = Vec::new();
                for (i, j) in [(1u8, 2u8), (2, 0), (0, 1)] {
                    let xi = a(self, x, i)?;
                    let yj = a(self, y, j)?;
                    let xj = a(self, x, j)?;
                    let yi = a(self, y, i)?;
                    let p = self.bin(BinOp::FMul, xi, yj)?;
                    let q = self.bin(BinOp::FMul, xj, yi)?;
                    lanes.push(self.bin(BinOp::FSub, p, q)?);
                }
                let scalar = self.sh.ty(x).scalar;
                self.emit(Type::vec(scalar, 3), ir::Op::Vector(lanes))?
            }
            69 => {
                let n = self.sh.ty(x).lanes;
                let d = self.dot(x, x)?;
                let r = self.un(UnOp::FRsqrt, d)?;
                let r = self.splat(r, n)?;
                self.bin(BinOp::FMul, x, r)?
            }
            70 => {
                // faceforward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N
                let (i, nref) = (arg(1)?, arg(2)?);
                let d = self.dot(nref, i)?;
                let z = self.fconst_like(d, 0.0)?;
                let lt = self.cmp(CmpOp::FOLt, d, z)?;
                let neg = self.un(UnOp::FNeg, x)?;
                self.fsel(lt, x, neg)?
            }
            72 => {
                // refract(I, N, eta): k = 1 - eta^2 (1 - dot(N, I)^2);
                // k < 0 ? 0 : eta I - (eta dot(N, I) + sqrt(k)) N
                let (nrm, eta) = (arg(1)?, arg(2)?);
                let lanes = self.sh.ty(x).lanes;
                let d = self.dot(nrm, x)?;
                let one = self.fconst_like(d, 1.0)?;
                let dd = self.bin(BinOp::FMul, d, d)?;
                let t = self.bin(BinOp::FSub, one, dd)?;
                let ee = self.bin(BinOp::FMul, eta, eta)?;
                let t = self.bin(BinOp::FMul, ee, t)?;
                let k = self.bin(BinOp::FSub, one, t)?;
                let z = self.fconst_like(k, 0.0)?;
                let neg = self.cmp(CmpOp::FOLt, k, z)?;
                let sk = self.un(UnOp::FSqrt, k)?;
                let ed = self.bin(BinOp::FMul, eta, d)?;
                let f = self.bin(BinOp::FAdd, ed, sk)?;
                let f = self.splat(f, lanes)?;
                let es = self.splat(eta, lanes)?;
                let a = self.bin(BinOp::FMul, x, es)?;
                let b = self.bin(BinOp::FMul, nrm, f)?;
                let r = self.bin(BinOp::FSub, a, b)?;
                let zv = self.fconst_like(r, 0.0)?;
                let neg = self.splat(neg, lanes)?;
                self.fsel(neg, zv, r)?
            }
            71 => {
                let nrm = arg(1)?;
                let n = self.sh.ty(x).lanes;
                let d = self.dot(nrm, x)?;
                let two = self.fconst_like(d, 2.0)?;
                let d2 = self.bin(BinOp::FMul, d, two)?;
                let d2 = self.splat(d2, n)?;
                let p = self.bin(BinOp::FMul, d2, nrm)?;
                self.bin(BinOp::FSub, x, p)?
            }
            73 => self.un(UnOp::FindLsb, x)?,
            74 => self.un(UnOp::SFindMsb, x)?,
            75 => self.un(UnOp::UFindMsb, x)?,
            other => return Err(unsupported(format!("GLSL.std.450 instruction {other}"))),
        };
        Ok(FVal::V(v))
    }
}
