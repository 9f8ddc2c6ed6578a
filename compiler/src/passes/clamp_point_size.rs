//! Clamps the point size a vertex shader writes to the range the device reports: the
//! rasterizer takes the size as written, and Vulkan clamps it to pointSizeRange.

use crate::ir::{BinOp, Constant, Inst, Op, OutputBuiltin, Shader, Type};
use crate::CompileError;

use super::{rewrite, Out};

pub fn clamp_point_size(sh: &mut Shader, min: f32, max: f32) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out: &mut Out| {
        let Op::StoreBuiltin {
            builtin: OutputBuiltin::PointSize,
            component,
            value,
        } = inst.op
        else {
            out.inst(inst);
            return Ok(());
        };
        let lo = out.def(
            sh,
            Type::F32,
            Op::Const(Constant(vec![u64::from(min.to_bits())])),
        );
        let hi = out.def(
            sh,
            Type::F32,
            Op::Const(Constant(vec![u64::from(max.to_bits())])),
        );
        let v = out.def(sh, Type::F32, Op::Binary(BinOp::FMax, value, lo));
        let v = out.def(sh, Type::F32, Op::Binary(BinOp::FMin, v, hi));
        out.inst(Inst {
            dst: None,
            op: Op::StoreBuiltin {
                builtin: OutputBuiltin::PointSize,
                component,
                value: v,
            },
        });
        Ok(())
    })
}
