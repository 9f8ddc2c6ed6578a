//! Descriptors become loads through the root table, and, when the layout asks for
//! `BufferRobustness::Checked`, every device-memory access made through a descriptor is
//! bounds-checked against the descriptor's range (robustBufferAccess): loads outside it give
//! 0, stores and atomics outside it do nothing.
//!
//! The front end addresses buffer memory as `IAdd(DescriptorAddress, Conv(UToU, offset32))`;
//! this pass relies on that form, so it runs before anything rewrites addresses.
//!
//! Addresses the application gave (buffer device addresses) come marked by
//! `PhysicalAddress` (plus a 32-bit offset): accesses through them are left as they are, unchecked, since an
//! address carries no range (a stray one faults the GPU, as on the hardware). The mark stays
//! until `lower_int64` rebuilds the address from the 32-bit words it computes it in.
//!
//! Dynamically indexed push constants are the one other device-memory access: loads at
//! `IAdd(Load(Root, ROOT_ADDRESS_OFFSET), Conv(UToU, offset32))`. Their offset is clamped
//! into the push constants rather than checked: the root table has no size to check against
//! at run time, and clamping keeps every load inside the root table the ICD wrote (an index
//! outside the push-constant range is undefined behaviour in Vulkan, so any value will do).

use crate::abi;
use crate::ir::{BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Shader, Space, Type, Value};
use crate::{BufferRobustness, CompileError, ResourceLayout};

use super::{defs, rewrite, Out};

fn binding_offset(layout: &ResourceLayout, set: u32, binding: u32) -> Result<u32, CompileError> {
    layout
        .sets
        .get(set as usize)
        .and_then(|s| s.as_ref())
        .and_then(|s| s.bindings.iter().find(|b| b.binding == binding))
        .map(|b| b.offset)
        .ok_or_else(|| {
            CompileError::InvalidSpirv(format!(
                "set {set} binding {binding} is not in the pipeline layout"
            ))
        })
}

fn konst(sh: &mut Shader, out: &mut Out, v: u32) -> Value {
    out.def(sh, Type::I32, Op::Const(Constant(vec![v as u64])))
}

/// GPU address of byte `extra` of descriptor `binding[index]` of `set`.
fn descriptor_word(
    sh: &mut Shader,
    out: &mut Out,
    layout: &ResourceLayout,
    set: u32,
    binding: u32,
    index: Value,
    extra: u32,
) -> Result<Value, CompileError> {
    if set >= abi::MAX_SETS {
        return Err(CompileError::InvalidSpirv(format!(
            "descriptor set {set} beyond {}",
            abi::MAX_SETS
        )));
    }
    let boff = binding_offset(layout, set, binding)?;
    let root = konst(sh, out, abi::set_address_offset(set));
    let set_addr = out.def(
        sh,
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: root,
            align: 8,
        },
    );
    let sixteen = konst(sh, out, abi::BUFFER_DESCRIPTOR_SIZE);
    let scaled = out.def(sh, Type::I32, Op::Binary(BinOp::IMul, index, sixteen));
    let base = konst(sh, out, boff + extra);
    let off = out.def(sh, Type::I32, Op::Binary(BinOp::IAdd, scaled, base));
    let off64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, off));
    Ok(out.def(sh, Type::I64, Op::Binary(BinOp::IAdd, set_addr, off64)))
}

fn bytes(t: Type) -> u32 {
    t.scalar.bits().div_ceil(8) * t.lanes as u32
}

pub fn lower_descriptors(sh: &mut Shader, layout: &ResourceLayout) -> Result<(), CompileError> {
    sh.offsets_in_range = layout.buffer_robustness == BufferRobustness::Unchecked;
    let d = defs(sh);
    // For an address IAdd(DescriptorAddress, Conv(UToU, off)): the descriptor and the offset.
    let origin = |addr: Value| -> Option<(u32, u32, Value, Value)> {
        let Some(Op::Binary(BinOp::IAdd, a, b)) = d.get(&addr) else {
            return None;
        };
        let Some(Op::DescriptorAddress {
            set,
            binding,
            index,
        }) = d.get(a)
        else {
            return None;
        };
        let Some(Op::Conv(ConvOp::UToU, off)) = d.get(b) else {
            return None;
        };
        Some((*set, *binding, *index, *off))
    };
    // For an address IAdd(Load(Root, ROOT_ADDRESS_OFFSET), Conv(UToU, off)): the root
    // table's address and the offset.
    let root_origin = |addr: Value| -> Option<(Value, Value)> {
        let Some(Op::Binary(BinOp::IAdd, a, b)) = d.get(&addr) else {
            return None;
        };
        let Some(Op::Load {
            space: Space::Root,
            addr: at,
            ..
        }) = d.get(a)
        else {
            return None;
        };
        let Some(Op::Const(Constant(k))) = d.get(at) else {
            return None;
        };
        if k.as_slice() != [u64::from(abi::ROOT_ADDRESS_OFFSET)] {
            return None;
        }
        let Some(Op::Conv(ConvOp::UToU, off)) = d.get(b) else {
            return None;
        };
        Some((*a, *off))
    };
    // A PhysicalAddress, or one plus Conv(UToU, offset), as the front end makes them.
    let physical = |addr: Value| -> bool {
        let base = match d.get(&addr) {
            Some(Op::Binary(BinOp::IAdd, a, b))
                if matches!(d.get(b), Some(Op::Conv(ConvOp::UToU, _))) =>
            {
                *a
            }
            _ => addr,
        };
        matches!(d.get(&base), Some(Op::PhysicalAddress(_)))
    };
    rewrite(sh, &mut |sh, inst, out| {
        match inst.op {
            Op::DescriptorAddress {
                set,
                binding,
                index,
            } => {
                let a = descriptor_word(sh, out, layout, set, binding, index, 0)?;
                out.inst(Inst {
                    dst: inst.dst,
                    op: Op::Load {
                        space: Space::Global,
                        addr: a,
                        align: 8,
                    },
                });
                Ok(())
            }
            Op::DescriptorSize {
                set,
                binding,
                index,
            } => {
                let a = descriptor_word(sh, out, layout, set, binding, index, 8)?;
                out.inst(Inst {
                    dst: inst.dst,
                    op: Op::Load {
                        space: Space::Global,
                        addr: a,
                        align: 8,
                    },
                });
                Ok(())
            }
            Op::Load {
                space: Space::Global,
                addr,
                ..
            }
            | Op::Store {
                space: Space::Global,
                addr,
                ..
            }
            | Op::Atomic {
                space: Space::Global,
                addr,
                ..
            } => {
                if physical(addr) {
                    out.inst(inst);
                    return Ok(());
                }
                if let Some((root, off)) = root_origin(addr) {
                    let (Op::Load { align, .. }, Some(dst)) = (&inst.op, inst.dst) else {
                        return Err(CompileError::Internal(
                            "push constants are read-only".into(),
                        ));
                    };
                    let n = bytes(sh.ty(dst));
                    let last = abi::ROOT_TABLE_SIZE.checked_sub(n).ok_or_else(|| {
                        CompileError::Internal(
                            "push-constant load wider than the root table".into(),
                        )
                    })?;
                    let hi = konst(sh, out, last);
                    let lo = konst(sh, out, abi::PUSH_CONSTANTS_OFFSET);
                    let off = out.def(sh, Type::I32, Op::Binary(BinOp::UMin, off, hi));
                    let off = out.def(sh, Type::I32, Op::Binary(BinOp::UMax, off, lo));
                    let off64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, off));
                    let addr = out.def(sh, Type::I64, Op::Binary(BinOp::IAdd, root, off64));
                    out.inst(Inst {
                        dst: Some(dst),
                        op: Op::Load {
                            space: Space::Global,
                            addr,
                            align: *align,
                        },
                    });
                    return Ok(());
                }
                let Some((set, binding, index, off)) = origin(addr) else {
                    return Err(CompileError::Internal(
                        "device memory access not derived from a descriptor".into(),
                    ));
                };
                if layout.buffer_robustness == BufferRobustness::Unchecked {
                    out.inst(inst);
                    return Ok(());
                }
                let n = match &inst.op {
                    Op::Store { value, .. } => bytes(sh.ty(*value)),
                    _ => inst.dst.map(|v| bytes(sh.ty(v))).unwrap_or(4),
                };
                // in bounds <=> size >= n && off <= size - n (no overflow on either side)
                let sa = descriptor_word(sh, out, layout, set, binding, index, 8)?;
                let size = out.def(
                    sh,
                    Type::I32,
                    Op::Load {
                        space: Space::Global,
                        addr: sa,
                        align: 8,
                    },
                );
                let nc = konst(sh, out, n);
                let room = out.def(sh, Type::I32, Op::Binary(BinOp::ISub, size, nc));
                let big = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::UGe, size, nc));
                let fits = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::ULe, off, room));
                let ok = out.def(sh, Type::BOOL, Op::Binary(BinOp::And, big, fits));
                match inst.dst {
                    None => out.node(Node::If {
                        cond: ok,
                        then_body: vec![Node::Block(vec![inst])],
                        else_body: vec![],
                    }),
                    Some(dst) => {
                        let t = sh.ty(dst);
                        let var = sh.new_var(t);
                        let zero = out.def(sh, t, Op::Const(Constant(vec![0; t.lanes as usize])));
                        out.effect(Op::StoreVar(var, zero));
                        let inner = sh.new_value(t);
                        let then_body = vec![Node::Block(vec![
                            Inst {
                                dst: Some(inner),
                                op: inst.op,
                            },
                            Inst {
                                dst: None,
                                op: Op::StoreVar(var, inner),
                            },
                        ])];
                        out.node(Node::If {
                            cond: ok,
                            then_body,
                            else_body: vec![],
                        });
                        out.inst(Inst {
                            dst: Some(dst),
                            op: Op::LoadVar(var),
                        });
                    }
                }
                Ok(())
            }
            _ => {
                out.inst(inst);
                Ok(())
            }
        }
    })?;
    Ok(())
}
