//! Instructions rspirv 0.12 does not know where to put.
//!
//! Its loader files OpDecorateId (332) and OpExecutionModeId (331), both SPIR-V 1.2, under
//! neither annotations nor execution modes, so a module that has one fails to load with
//! "not inside block". SPIR-V 1.4+ modules use them for UniformId, AlignmentId,
//! CounterBuffer and LocalSizeId. They are taken out of the word stream before loading and
//! put back, as rspirv would have built them, into the sections they belong to.
//!
//! OpExtInst of a NonSemantic.* set may also stand among the global declarations (SPIR-V
//! 1.6, SPV_KHR_non_semantic_info), where rspirv refuses it; agx4 ignores those sets, so
//! such instructions are dropped.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Decoration, ExecutionMode, Op};

const EXECUTION_MODE_ID: u32 = Op::ExecutionModeId as u32;
const DECORATE_ID: u32 = Op::DecorateId as u32;
const EXT_INST_IMPORT: u32 = Op::ExtInstImport as u32;
const EXT_INST: u32 = Op::ExtInst as u32;
const FUNCTION: u32 = Op::Function as u32;
const FUNCTION_END: u32 = Op::FunctionEnd as u32;

/// Whether the string literal in `words` (UTF-8, little-endian, nul-terminated) starts with
/// `prefix`.
fn literal_starts_with(words: &[u32], prefix: &[u8]) -> bool {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.starts_with(prefix)
}

/// The instructions taken out, as their raw words.
#[derive(Default)]
pub(super) struct Lifted {
    modes: Vec<Vec<u32>>,
    decorations: Vec<Vec<u32>>,
    /// Global non-semantic OpExtInsts left out.
    dropped: usize,
}

impl Lifted {
    pub fn is_empty(&self) -> bool {
        self.modes.is_empty() && self.decorations.is_empty() && self.dropped == 0
    }
}

/// `words` without its OpExecutionModeId and OpDecorateId, and those instructions.
/// `None` if the instruction stream is malformed (rspirv then says where).
pub(super) fn lift(words: &[u32]) -> Option<(Vec<u32>, Lifted)> {
    let mut out = words.get(..5)?.to_vec();
    let mut lifted = Lifted::default();
    let mut non_semantic = Vec::new();
    let mut in_function = false;
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        let inst = words.get(at..at + n).filter(|_| n > 0)?;
        at += n;
        match inst[0] & 0xffff {
            EXECUTION_MODE_ID => lifted.modes.push(inst[1..].to_vec()),
            DECORATE_ID => lifted.decorations.push(inst[1..].to_vec()),
            EXT_INST_IMPORT => {
                if inst.len() > 2 && literal_starts_with(&inst[2..], b"NonSemantic.") {
                    non_semantic.push(inst[1]);
                }
                out.extend_from_slice(inst);
            }
            // Result type, result id, set.
            EXT_INST if !in_function && inst.len() > 3 && non_semantic.contains(&inst[3]) => {
                lifted.dropped += 1;
            }
            FUNCTION => {
                in_function = true;
                out.extend_from_slice(inst);
            }
            FUNCTION_END => {
                in_function = false;
                out.extend_from_slice(inst);
            }
            _ => out.extend_from_slice(inst),
        }
    }
    Some((out, lifted))
}

/// Puts the lifted instructions into `module`: the target (entry point or decorated id),
/// the enumerant, then id operands.
pub(super) fn restore(module: &mut Module, lifted: Lifted) -> Result<(), String> {
    let ids = |rest: &[u32]| rest.iter().map(|w| Operand::IdRef(*w)).collect::<Vec<_>>();
    for w in lifted.modes {
        let [target, mode, rest @ ..] = w.as_slice() else {
            return Err("OpExecutionModeId shorter than its operands".into());
        };
        let mode = ExecutionMode::from_u32(*mode)
            .ok_or_else(|| format!("OpExecutionModeId: unknown execution mode {mode}"))?;
        let mut operands = vec![Operand::IdRef(*target), Operand::ExecutionMode(mode)];
        operands.extend(ids(rest));
        module
            .execution_modes
            .push(Instruction::new(Op::ExecutionModeId, None, None, operands));
    }
    for w in lifted.decorations {
        let [target, deco, rest @ ..] = w.as_slice() else {
            return Err("OpDecorateId shorter than its operands".into());
        };
        let deco = Decoration::from_u32(*deco)
            .ok_or_else(|| format!("OpDecorateId: unknown decoration {deco}"))?;
        let mut operands = vec![Operand::IdRef(*target), Operand::Decoration(deco)];
        operands.extend(ids(rest));
        module
            .annotations
            .push(Instruction::new(Op::DecorateId, None, None, operands));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifted_instructions_come_back_in_their_sections() {
        // Header, OpCapability Shader, OpExecutionModeId %1 LocalSizeId %2 %3 %4,
        // OpDecorateId %5 UniformId %6.
        let words = [
            spirv::MAGIC_NUMBER,
            0x0001_0400,
            0,
            16,
            0,
            (2 << 16) | Op::Capability as u32,
            1,
            (6 << 16) | EXECUTION_MODE_ID,
            1,
            ExecutionMode::LocalSizeId as u32,
            2,
            3,
            4,
            (4 << 16) | DECORATE_ID,
            5,
            Decoration::UniformId as u32,
            6,
        ];
        let (rest, lifted) = lift(&words).unwrap();
        assert_eq!(rest.len(), 7);
        let mut m = rspirv::dr::load_words(&rest).unwrap();
        restore(&mut m, lifted).unwrap();
        assert_eq!(m.execution_modes.len(), 1);
        assert_eq!(
            m.execution_modes[0].operands[1],
            Operand::ExecutionMode(ExecutionMode::LocalSizeId)
        );
        assert_eq!(m.execution_modes[0].operands[4], Operand::IdRef(4));
        assert_eq!(m.annotations.len(), 1);
        assert_eq!(m.annotations[0].operands[2], Operand::IdRef(6));
    }

    #[test]
    fn global_non_semantic_instructions_are_dropped() {
        let mut words = vec![spirv::MAGIC_NUMBER, 0x0001_0600, 0, 16, 0];
        words.extend([(2 << 16) | Op::Capability as u32, 1]);
        // %1 = OpExtInstImport "NonSemantic.X" (13 bytes and the nul, padded: 4 words).
        words.extend([(6 << 16) | EXT_INST_IMPORT, 1]);
        let name = b"NonSemantic.X\0\0\0";
        words.extend(
            name.chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        // OpMemoryModel Logical GLSL450, %2 = OpTypeVoid.
        words.extend([(3 << 16) | Op::MemoryModel as u32, 0, 1]);
        words.extend([(2 << 16) | Op::TypeVoid as u32, 2]);
        // %3 = OpExtInst %2 %1 7
        words.extend([(5 << 16) | EXT_INST, 2, 3, 1, 7]);
        let (rest, lifted) = lift(&words).unwrap();
        assert!(!lifted.is_empty());
        let m = rspirv::dr::load_words(&rest).unwrap();
        assert_eq!(m.ext_inst_imports.len(), 1);
    }

    #[test]
    fn truncated_instruction_is_refused() {
        let words = [
            spirv::MAGIC_NUMBER,
            0x0001_0400,
            0,
            16,
            0,
            (9 << 16) | DECORATE_ID,
            5,
        ];
        assert!(lift(&words).is_none());
    }
}
