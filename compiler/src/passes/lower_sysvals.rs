//! System values the hardware does not provide: the global invocation id (from the workgroup
//! id, the workgroup size and the dispatch base in the root table), the workgroup size (a
//! constant once specialised), the number of workgroups, and the draw parameters of vertex
//! shaders (base vertex, base instance, draw index), which the ICD writes into each draw's
//! root table.

use crate::abi;
use crate::ir::{BinOp, Constant, Inst, Op, Shader, Space, SysVal, Type};
use crate::CompileError;

use super::{rewrite, Out};

fn root_u32(sh: &mut Shader, out: &mut Out, off: u32) -> crate::ir::Value {
    let a = out.def(sh, Type::I32, Op::Const(Constant(vec![off as u64])));
    out.def(
        sh,
        Type::I32,
        Op::Load {
            space: Space::Root,
            addr: a,
            align: 4,
        },
    )
}

pub fn lower_sysvals(sh: &mut Shader) -> Result<(), CompileError> {
    let ls = sh.local_size;
    rewrite(sh, &mut |sh, inst, out| {
        let (Some(dst), Op::SysVal(s)) = (inst.dst, &inst.op) else {
            out.inst(inst);
            return Ok(());
        };
        let c = |x: u8| (x % 3) as usize;
        let op = match *s {
            // The hardware's grid position, plus the base workgroup's first invocation.
            SysVal::GlobalInvocationId(x) => {
                let p = out.def(sh, Type::I32, Op::SysVal(SysVal::ThreadPositionInGrid(x)));
                let base = root_u32(sh, out, abi::BASE_WORKGROUP_OFFSET + 4 * c(x) as u32);
                let size = out.def(sh, Type::I32, Op::Const(Constant(vec![ls[c(x)] as u64])));
                let m = out.def(sh, Type::I32, Op::Binary(BinOp::IMul, base, size));
                Op::Binary(BinOp::IAdd, m, p)
            }
            SysVal::WorkgroupSize(x) => Op::Const(Constant(vec![ls[c(x)] as u64])),
            SysVal::NumWorkgroups(x) => {
                let a = out.def(
                    sh,
                    Type::I32,
                    Op::Const(Constant(vec![
                        (abi::NUM_WORKGROUPS_OFFSET + 4 * c(x) as u32) as u64,
                    ])),
                );
                Op::Load {
                    space: Space::Root,
                    addr: a,
                    align: 4,
                }
            }
            SysVal::BaseVertex | SysVal::BaseInstance | SysVal::DrawIndex => {
                let off = match *s {
                    SysVal::BaseVertex => abi::BASE_VERTEX_OFFSET,
                    SysVal::BaseInstance => abi::FIRST_INSTANCE_OFFSET,
                    _ => abi::DRAW_INDEX_OFFSET,
                };
                let a = out.def(sh, Type::I32, Op::Const(Constant(vec![u64::from(off)])));
                Op::Load {
                    space: Space::Root,
                    addr: a,
                    align: 4,
                }
            }
            _ => {
                out.inst(inst);
                return Ok(());
            }
        };
        out.inst(Inst { dst: Some(dst), op });
        Ok(())
    })
}
