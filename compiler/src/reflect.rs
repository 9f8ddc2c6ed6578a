//! A pipeline layout read back out of a module's own decorations, for tools that compile
//! SPIR-V without a Vulkan pipeline layout (the benchmark, `agx4-compile`, the fuzzer).
//!
//! Every variable decorated with DescriptorSet/Binding becomes a binding; its kind follows
//! its storage class (StorageBuffer, or Uniform with BufferBlock, is a storage buffer; other
//! Uniform blocks are uniform buffers). Bindings are packed in set memory in binding order.

use crate::abi::BUFFER_DESCRIPTOR_SIZE;
use crate::{BindingLayout, CompileError, DescriptorKind, ResourceLayout, SetLayout};
use rspirv::dr::{Loader, Operand};
use spirv::{Decoration, Op, StorageClass};
use std::collections::BTreeMap;

pub fn layout_from_spirv(words: &[u32]) -> Result<ResourceLayout, CompileError> {
    let mut loader = Loader::new();
    rspirv::binary::parse_words(words, &mut loader)
        .map_err(|e| CompileError::InvalidSpirv(e.to_string()))?;
    let module = loader.module();

    let mut set_of = BTreeMap::new();
    let mut binding_of = BTreeMap::new();
    let mut buffer_block = Vec::new();
    for d in &module.annotations {
        if d.class.opcode != Op::Decorate {
            continue;
        }
        let (Some(Operand::IdRef(target)), Some(Operand::Decoration(dec))) =
            (d.operands.first(), d.operands.get(1))
        else {
            continue;
        };
        let value = match d.operands.get(2) {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        };
        match (dec, value) {
            (Decoration::DescriptorSet, Some(v)) => {
                set_of.insert(*target, v);
            }
            (Decoration::Binding, Some(v)) => {
                binding_of.insert(*target, v);
            }
            (Decoration::BufferBlock, _) => buffer_block.push(*target),
            _ => {}
        }
    }

    // Types by result id: pointers (pointee), arrays (element, length id), runtime arrays,
    // constants. A runtime array is only an error as a descriptor array: inside a buffer block
    // (`uint data[]`) it is the usual last member.
    let mut pointee = BTreeMap::new();
    let mut array = BTreeMap::new();
    let mut runtime_array = Vec::new();
    let mut constant = BTreeMap::new();
    for i in &module.types_global_values {
        let Some(id) = i.result_id else { continue };
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::TypePointer, [_, Operand::IdRef(t)]) => {
                pointee.insert(id, *t);
            }
            (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)]) => {
                array.insert(id, (*e, Some(*n)));
            }
            (Op::TypeRuntimeArray, [Operand::IdRef(_)]) => runtime_array.push(id),
            (Op::Constant, [Operand::LiteralBit32(v)]) => {
                constant.insert(id, *v);
            }
            _ => {}
        }
    }

    let mut sets: BTreeMap<u32, Vec<(u32, DescriptorKind, u32)>> = BTreeMap::new();
    for i in &module.types_global_values {
        if i.class.opcode != Op::Variable {
            continue;
        }
        let (Some(id), Some(ty)) = (i.result_id, i.result_type) else {
            continue;
        };
        let (Some(&set), Some(&binding)) = (set_of.get(&id), binding_of.get(&id)) else {
            continue;
        };
        let Some(Operand::StorageClass(class)) = i.operands.first() else {
            continue;
        };
        let mut inner = pointee.get(&ty).copied().unwrap_or(ty);
        if runtime_array.contains(&inner) {
            return Err(CompileError::Unsupported(
                "runtime descriptor arrays".into(),
            ));
        }
        let mut count = 1;
        if let Some(&(elem, Some(len))) = array.get(&inner) {
            count = constant.get(&len).copied().unwrap_or(1);
            inner = elem;
        }
        let kind = match class {
            StorageClass::StorageBuffer => DescriptorKind::StorageBuffer,
            StorageClass::Uniform if buffer_block.contains(&inner) => DescriptorKind::StorageBuffer,
            StorageClass::Uniform => DescriptorKind::UniformBuffer,
            other => {
                return Err(CompileError::Unsupported(format!(
                    "descriptor in storage class {other:?}"
                )))
            }
        };
        sets.entry(set).or_default().push((binding, kind, count));
    }

    let mut layout = ResourceLayout {
        push_constant_size: crate::abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    };
    for (set, mut bindings) in sets {
        bindings.sort_by_key(|b| b.0);
        let mut offset = 0;
        let mut s = SetLayout::default();
        for (binding, kind, count) in bindings {
            s.bindings.push(BindingLayout {
                binding,
                kind,
                count,
                offset,
            });
            offset += count * BUFFER_DESCRIPTOR_SIZE;
        }
        let set = set as usize;
        if layout.sets.len() <= set {
            layout.sets.resize(set + 1, None);
        }
        layout.sets[set] = Some(s);
    }
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::dr::Builder;
    use spirv::Word;

    /// Set, binding, storage class, BufferBlock (else Block), and descriptor array:
    /// `None` for one block, `Some(Some(n))` for `n`, `Some(None)` for a runtime array.
    type Var = (u32, u32, StorageClass, bool, Option<Option<u32>>);

    /// A module declaring one variable per `Var`, whose block struct holds a `uint[]`.
    fn module(vars: &[Var]) -> Vec<u32> {
        let mut b = Builder::new();
        b.capability(spirv::Capability::Shader);
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
        let uint = b.type_int(32, 0);
        for (k, &(set, binding, class, buffer_block, array)) in vars.iter().enumerate() {
            let data = b.type_runtime_array(uint);
            // The builder shares identical types; leading members of its own count keep each
            // block struct (and so its decorations) apart, as glslang's blocks are.
            let mut members = vec![uint; k];
            members.push(data);
            let block: Word = b.type_struct(members);
            let deco = if buffer_block {
                Decoration::BufferBlock
            } else {
                Decoration::Block
            };
            b.decorate(block, deco, []);
            let inner = match array {
                None => block,
                Some(Some(n)) => {
                    let len = b.constant_bit32(uint, n);
                    b.type_array(block, len)
                }
                Some(None) => b.type_runtime_array(block),
            };
            let ptr = b.type_pointer(None, class, inner);
            let var = b.variable(ptr, None, class, None);
            b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
            b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        }
        use rspirv::binary::Assemble;
        b.module().assemble()
    }

    fn binding(binding: u32, kind: DescriptorKind, count: u32, offset: u32) -> BindingLayout {
        BindingLayout {
            binding,
            kind,
            count,
            offset,
        }
    }

    #[test]
    fn bindings_sorted_and_packed_per_set() {
        let words = module(&[
            (1, 3, StorageClass::StorageBuffer, false, None),
            (1, 0, StorageClass::Uniform, false, Some(Some(3))),
            (0, 0, StorageClass::Uniform, true, None),
        ]);
        let l = layout_from_spirv(&words).unwrap();
        let d = BUFFER_DESCRIPTOR_SIZE;
        assert_eq!(l.sets.len(), 2);
        assert_eq!(
            l.sets[0].as_ref().unwrap().bindings,
            vec![binding(0, DescriptorKind::StorageBuffer, 1, 0)]
        );
        assert_eq!(
            l.sets[1].as_ref().unwrap().bindings,
            vec![
                binding(0, DescriptorKind::UniformBuffer, 3, 0),
                binding(3, DescriptorKind::StorageBuffer, 1, 3 * d)
            ]
        );
    }

    #[test]
    fn set_holes_stay_empty() {
        let words = module(&[(2, 1, StorageClass::StorageBuffer, false, None)]);
        let l = layout_from_spirv(&words).unwrap();
        assert_eq!(l.sets.len(), 3);
        assert!(l.sets[0].is_none() && l.sets[1].is_none());
        assert_eq!(
            l.sets[2].as_ref().unwrap().bindings,
            vec![binding(1, DescriptorKind::StorageBuffer, 1, 0)]
        );
    }

    #[test]
    fn runtime_descriptor_array_is_unsupported() {
        let words = module(&[(0, 0, StorageClass::StorageBuffer, false, Some(None))]);
        assert!(matches!(
            layout_from_spirv(&words),
            Err(CompileError::Unsupported(_))
        ));
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(matches!(
            layout_from_spirv(&[1, 2, 3]),
            Err(CompileError::InvalidSpirv(_))
        ));
    }
}
