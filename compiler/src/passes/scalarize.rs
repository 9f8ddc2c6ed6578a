//! Vectors become scalars: every vector value becomes one value per lane, vector Vars one Var
//! per lane, and vector loads and stores one access per lane at steps of the lane's size
//! (4 bytes, or 2 and 1 for 16- and 8-bit lanes).

use std::collections::HashMap;

use crate::ir::{BinOp, Constant, ConvOp, Inst, Op, Scalar, Shader, Space, Type, Value, Var};
use crate::CompileError;

use super::{rewrite, Out};

struct Lanes {
    vals: HashMap<Value, Vec<Value>>,
    vars: HashMap<Var, Vec<Var>>,
}

impl Lanes {
    fn of(&self, v: Value, n: usize) -> Vec<Value> {
        match self.vals.get(&v) {
            Some(l) => l.clone(),
            None => vec![v; n],
        }
    }
}

/// Bytes between the lanes of a vector in memory: 32-bit lanes (bools as 32-bit words) or
/// the narrower lanes of 8- and 16-bit types.
fn lane_bytes(ty: Type) -> u32 {
    match ty.scalar {
        Scalar::I8 => 1,
        Scalar::I16 | Scalar::F16 => 2,
        _ => 4,
    }
}

fn lane_align(align: u32, i: u32, bytes: u32) -> u32 {
    if i == 0 {
        return align;
    }
    let off = bytes * i;
    align.min(1 << off.trailing_zeros())
}

fn lane_addr(
    sh: &mut Shader,
    out: &mut Out,
    space: Space,
    addr: Value,
    i: u32,
    bytes: u32,
) -> Value {
    if i == 0 {
        return addr;
    }
    let c = out.def(
        sh,
        Type::I32,
        Op::Const(Constant(vec![u64::from(bytes * i)])),
    );
    if space == Space::Global {
        let c64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, c));
        out.def(sh, Type::I64, Op::Binary(BinOp::IAdd, addr, c64))
    } else {
        out.def(sh, Type::I32, Op::Binary(BinOp::IAdd, addr, c))
    }
}

pub fn scalarize(sh: &mut Shader) -> Result<(), CompileError> {
    let mut st = Lanes {
        vals: HashMap::new(),
        vars: HashMap::new(),
    };
    for (i, t) in sh.var_types.clone().iter().enumerate() {
        if t.lanes > 1 {
            let s = Type::scalar(t.scalar);
            let vs = (0..t.lanes).map(|_| sh.new_var(s)).collect();
            st.vars.insert(Var(i as u32), vs);
        }
    }
    rewrite(sh, &mut |sh, inst, out| {
        let dst_ty = inst.dst.map(|d| sh.ty(d));
        let n = dst_ty.map(|t| t.lanes as usize).unwrap_or(1);
        let vector_dst = n > 1;
        let has_vector_operand = crate::ir::validate::op_operands(&inst.op)
            .iter()
            .any(|v| sh.ty(*v).lanes > 1)
            || matches!(&inst.op, Op::StoreVar(v, _) | Op::LoadVar(v) if st.vars.contains_key(v));
        if !vector_dst && !has_vector_operand {
            out.inst(inst);
            return Ok(());
        }
        let scalar_ty = dst_ty.map(|t| Type::scalar(t.scalar)).unwrap_or(Type::I32);
        let mut lanes_out = Vec::new();
        match inst.op {
            Op::Const(c) => {
                for x in c.0 {
                    lanes_out.push(out.def(sh, scalar_ty, Op::Const(Constant(vec![x]))));
                }
            }
            Op::Vector(parts) => lanes_out = parts,
            Op::Extract(v, i) => {
                let n_src = sh.ty(v).lanes as usize;
                let l = st.of(v, n_src);
                let x = *l
                    .get(i as usize)
                    .ok_or_else(|| CompileError::Internal("Extract lane out of range".into()))?;
                out.inst(Inst {
                    dst: inst.dst,
                    op: Op::Copy(x),
                });
                return Ok(());
            }
            Op::Insert(v, i, x) => {
                let mut l = st.of(v, n);
                if let Some(slot) = l.get_mut(i as usize) {
                    *slot = x;
                }
                lanes_out = l;
            }
            Op::Copy(v) => lanes_out = st.of(v, n),
            Op::LoadVar(var) => {
                let vs = st.vars.get(&var).cloned().unwrap_or_else(|| vec![var]);
                for v in vs {
                    lanes_out.push(out.def(sh, scalar_ty, Op::LoadVar(v)));
                }
            }
            Op::StoreVar(var, x) => {
                let vs = st.vars.get(&var).cloned().unwrap_or_else(|| vec![var]);
                let xs = st.of(x, vs.len());
                for (v, x) in vs.into_iter().zip(xs) {
                    out.effect(Op::StoreVar(v, x));
                }
                return Ok(());
            }
            Op::Load { space, addr, align } => {
                let bytes = lane_bytes(scalar_ty);
                for i in 0..n as u32 {
                    let a = lane_addr(sh, out, space, addr, i, bytes);
                    lanes_out.push(out.def(
                        sh,
                        scalar_ty,
                        Op::Load {
                            space,
                            addr: a,
                            align: lane_align(align, i, bytes),
                        },
                    ));
                }
            }
            Op::Store {
                space,
                addr,
                value,
                align,
            } => {
                let m = sh.ty(value).lanes as usize;
                let bytes = lane_bytes(sh.ty(value));
                let xs = st.of(value, m);
                for (i, x) in xs.into_iter().enumerate() {
                    let a = lane_addr(sh, out, space, addr, i as u32, bytes);
                    out.effect(Op::Store {
                        space,
                        addr: a,
                        value: x,
                        align: lane_align(align, i as u32, bytes),
                    });
                }
                return Ok(());
            }
            Op::LoadInput {
                location,
                component,
                interp,
            } => {
                for i in 0..n as u8 {
                    lanes_out.push(out.def(
                        sh,
                        scalar_ty,
                        Op::LoadInput {
                            location,
                            component: component + i,
                            interp,
                        },
                    ));
                }
            }
            Op::LoadPerVertex {
                vertex,
                slot,
                component,
            } => {
                for i in 0..n as u8 {
                    lanes_out.push(out.def(
                        sh,
                        scalar_ty,
                        Op::LoadPerVertex {
                            vertex,
                            slot,
                            component: component + i,
                        },
                    ));
                }
            }
            Op::InterpolateInput {
                location,
                component,
                mode,
                at,
            } => {
                for i in 0..n as u8 {
                    lanes_out.push(out.def(
                        sh,
                        scalar_ty,
                        Op::InterpolateInput {
                            location,
                            component: component + i,
                            mode,
                            at,
                        },
                    ));
                }
            }
            Op::LoadInputAttachment {
                index,
                component,
                sample,
            } => {
                for i in 0..n as u8 {
                    lanes_out.push(out.def(
                        sh,
                        scalar_ty,
                        Op::LoadInputAttachment {
                            index,
                            component: component + i,
                            sample,
                        },
                    ));
                }
            }
            Op::Texture(t) => {
                // Operands are scalar already (the front end passes lanes); a vector result
                // becomes one operation per component (the back end shares their LOD).
                for i in 0..n as u8 {
                    let mut one = t.clone();
                    one.component += i;
                    lanes_out.push(out.def(sh, scalar_ty, Op::Texture(one)));
                }
            }
            Op::StoreOutput {
                location,
                component,
                value,
            } => {
                let m = sh.ty(value).lanes as usize;
                for (i, x) in st.of(value, m).into_iter().enumerate() {
                    out.effect(Op::StoreOutput {
                        location,
                        component: component + i as u8,
                        value: x,
                    });
                }
                return Ok(());
            }
            Op::StoreBuiltin {
                builtin,
                component,
                value,
            } => {
                let m = sh.ty(value).lanes as usize;
                for (i, x) in st.of(value, m).into_iter().enumerate() {
                    out.effect(Op::StoreBuiltin {
                        builtin,
                        component: component + i as u8,
                        value: x,
                    });
                }
                return Ok(());
            }
            op if op.is_arithmetic() => {
                for i in 0..n {
                    let mut o = op.clone();
                    super::map_operands(&mut o, &mut |v| {
                        let k = sh.ty(v).lanes as usize;
                        if k > 1 {
                            st.vals.get(&v).and_then(|l| l.get(i).copied()).unwrap_or(v)
                        } else {
                            v
                        }
                    });
                    lanes_out.push(out.def(sh, scalar_ty, o));
                }
            }
            other => {
                return Err(CompileError::Internal(format!(
                    "scalarize: vector operands in {other:?}"
                )));
            }
        }
        if let Some(d) = inst.dst {
            if n == 1 {
                let x = lanes_out
                    .first()
                    .copied()
                    .ok_or_else(|| CompileError::Internal("scalarize: no lanes".into()))?;
                out.inst(Inst {
                    dst: Some(d),
                    op: Op::Copy(x),
                });
            } else {
                st.vals.insert(d, lanes_out);
            }
        }
        Ok(())
    })?;
    for t in sh.var_types.iter_mut() {
        // Vector vars are no longer used; give them their lane type so nothing vector remains.
        t.lanes = 1;
    }
    Ok(())
}
