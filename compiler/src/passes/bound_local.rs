//! Keeps every access to threadgroup memory and to the per-invocation stack inside the area
//! the shader declared. SPIR-V leaves an out-of-bounds index into a Function, Private or
//! Workgroup array undefined, and GLSL promises that it never interrupts the program (piglit's
//! glsl-array-bounds tests index a local array with -2), but an access outside its area faults
//! on the GPU and loses the device. So an address not known to be inside (a constant, or a
//! value whose bounds `urange` finds, such as an offset from the local invocation id) is
//! clamped with one unsigned minimum: a negative offset wraps to a large one and lands on the
//! last element, other variables may be read or written, as both specifications allow.

use crate::ir::{BinOp, Constant, Op, Scalar, Shader, Space, Type};
use crate::CompileError;

use super::{const_of, defs, rewrite, urange};

pub fn bound_local(sh: &mut Shader) -> Result<(), CompileError> {
    let defs = defs(sh);
    let (shared, scratch) = (sh.shared_size, sh.scratch_size);
    rewrite(sh, &mut |sh, mut inst, out| {
        let access = match &mut inst.op {
            Op::Load { space, addr, .. } => inst.dst.map(|d| (*space, addr, sh.ty(d))),
            Op::Store {
                space, addr, value, ..
            } => Some((*space, addr, sh.ty(*value))),
            Op::Atomic {
                space, addr, value, ..
            } => Some((*space, addr, sh.ty(*value))),
            _ => None,
        };
        if let Some((space, addr, ty)) = access {
            let area = match space {
                Space::Shared => Some(shared),
                Space::Scratch => Some(scratch),
                _ => None,
            };
            if let Some(area) = area {
                let bytes = access_bytes(ty);
                let last = area.saturating_sub(bytes);
                let inside = const_of(&defs, *addr)
                    .and_then(|c| c.first())
                    .is_some_and(|&a| a <= u64::from(last))
                    || (bytes <= area && urange(sh, &defs, *addr).1 <= u64::from(last));
                if !inside {
                    let limit = out.def(sh, Type::I32, Op::Const(Constant(vec![last.into()])));
                    *addr = out.def(sh, Type::I32, Op::Binary(BinOp::UMin, *addr, limit));
                }
            }
        }
        out.inst(inst);
        Ok(())
    })
}

/// Bytes one access of `ty` covers.
fn access_bytes(ty: Type) -> u32 {
    let lane = match ty.scalar {
        Scalar::Bool | Scalar::I8 => 1,
        s => s.bits() / 8,
    };
    lane * u32::from(ty.lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Inst, Node, Value};

    fn shader_with(space: Space, addr_op: Op) -> (Shader, Value) {
        let mut sh = Shader {
            scratch_size: 64,
            shared_size: 128,
            ..Default::default()
        };
        let a = sh.new_value(Type::I32);
        let d = sh.new_value(Type::F32);
        sh.body = vec![Node::Block(vec![
            Inst {
                dst: Some(a),
                op: addr_op,
            },
            Inst {
                dst: Some(d),
                op: Op::Load {
                    space,
                    addr: a,
                    align: 4,
                },
            },
        ])];
        (sh, a)
    }

    fn load_addr(sh: &Shader) -> (Value, Vec<Inst>) {
        let Node::Block(insts) = &sh.body[0] else {
            panic!("one block expected");
        };
        let addr = insts
            .iter()
            .find_map(|i| match i.op {
                Op::Load { addr, .. } => Some(addr),
                _ => None,
            })
            .expect("the load stays");
        (addr, insts.clone())
    }

    #[test]
    fn dynamic_scratch_offset_is_clamped_to_the_last_word() {
        let (mut sh, a) = shader_with(
            Space::Scratch,
            Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
        );
        bound_local(&mut sh).unwrap();
        let (addr, insts) = load_addr(&sh);
        assert_ne!(addr, a, "the load must read through the clamp");
        let clamp = insts.iter().find(|i| i.dst == Some(addr)).unwrap();
        let Op::Binary(BinOp::UMin, x, limit) = clamp.op else {
            panic!("an unsigned minimum expected, got {:?}", clamp.op);
        };
        assert_eq!(x, a);
        let k = insts.iter().find(|i| i.dst == Some(limit)).unwrap();
        assert_eq!(k.op, Op::Const(Constant(vec![60])));
    }

    /// An offset bounded by the workgroup size: left alone when every invocation's is inside.
    #[test]
    fn offsets_bounded_by_the_workgroup_size_are_left_alone_when_inside() {
        for (threads, clamped) in [(125, false), (126, true)] {
            let (mut sh, a) = shader_with(
                Space::Shared,
                Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
            );
            sh.local_size = [threads, 1, 1];
            bound_local(&mut sh).unwrap();
            assert_eq!(load_addr(&sh).0 != a, clamped, "{threads} invocations");
        }
    }

    #[test]
    fn constant_offsets_inside_are_left_alone_and_outside_are_clamped() {
        let (mut sh, a) = shader_with(Space::Shared, Op::Const(Constant(vec![124])));
        bound_local(&mut sh).unwrap();
        assert_eq!(load_addr(&sh).0, a);
        let (mut sh, a) = shader_with(Space::Shared, Op::Const(Constant(vec![0xffff_fff8])));
        bound_local(&mut sh).unwrap();
        assert_ne!(load_addr(&sh).0, a);
    }

    #[test]
    fn global_accesses_are_not_touched() {
        let (mut sh, a) = shader_with(
            Space::Global,
            Op::SysVal(crate::ir::SysVal::LocalInvocationIndex),
        );
        bound_local(&mut sh).unwrap();
        assert_eq!(load_addr(&sh).0, a);
    }
}
