//! What every generation's machine-code encoding provides ([`Codec`]), and why an instruction
//! cannot be encoded or bytes cannot be decoded.

use super::Instr;
use crate::Generation;
use std::fmt;
use thiserror::Error;

/// A generation's encoding of [`Instr`]: what the generation-neutral code (the simulated GPU's
/// loader, the disassembler) uses to turn instructions into bytes and back.
pub trait Codec: Send + Sync {
    /// The generation whose machine code this is.
    fn generation(&self) -> Generation;

    /// The longest encoding of one instruction, in bytes: a decoder shown this many bytes (or
    /// all that are left) can always tell the instruction and its length.
    fn max_instr_len(&self) -> usize;

    /// Appends the machine code of `instr` to `out`; on error nothing is appended.
    fn encode(&self, instr: &Instr, out: &mut Vec<u8>) -> Result<(), EncodeError>;

    /// The byte length [`encode`](Codec::encode) would produce.
    fn encoded_len(&self, instr: &Instr) -> Result<usize, EncodeError>;

    /// The instruction at the start of `bytes`, and its length in bytes. Bytes that would not
    /// come back bit for bit from [`encode`](Codec::encode) are refused, never guessed at.
    fn decode(&self, bytes: &[u8]) -> Result<(Instr, usize), DecodeError>;
}

/// What is wrong with one operand or field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// An immediate outside the encodable range `min..=max`.
    ImmediateOutOfRange { value: i64, min: i64, max: i64 },
    /// A register (in 16-bit halves) at or past the highest encodable `limit`.
    RegisterTooHigh { half: u16, limit: u16 },
    /// A 32- or 64-bit register starting on an odd half.
    Misaligned { half: u16 },
    /// The operand kind is not accepted here.
    KindNotAllowed(&'static str),
    /// The register width is not accepted here.
    WidthNotAllowed(u32),
    /// A modifier or hint the instruction has no bits for.
    ModifierNotEncodable(&'static str),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::ImmediateOutOfRange { value, min, max } => {
                write!(f, "immediate {value} outside {min}..={max}")
            }
            Problem::RegisterTooHigh { half, limit } => {
                write!(f, "register half {half} is not below {limit}")
            }
            Problem::Misaligned { half } => write!(f, "register half {half} is not even"),
            Problem::KindNotAllowed(k) => write!(f, "{k} not allowed here"),
            Problem::WidthNotAllowed(bits) => write!(f, "{bits}-bit register not allowed here"),
            Problem::ModifierNotEncodable(m) => write!(f, "modifier {m} cannot be encoded here"),
        }
    }
}

/// An `Instr` a generation's encoding cannot express.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot encode {instr}: operand {operand}: {problem}")]
pub struct EncodeError {
    pub instr: &'static str,
    pub operand: &'static str,
    pub problem: Problem,
}

impl EncodeError {
    pub(crate) fn new(instr: &'static str, operand: &'static str, problem: Problem) -> Self {
        EncodeError {
            instr,
            operand,
            problem,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Bytes that are not an instruction agx4 models.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("truncated instruction: need {needed} bytes, have {available}")]
    Truncated { needed: usize, available: usize },
    #[error("unknown opcode in bytes [{}]", hex(.bytes))]
    Unknown { bytes: Vec<u8> },
    #[error("unmodelled encoding [{}]: {reason}", hex(.bytes))]
    Unmodelled { bytes: Vec<u8>, reason: String },
}
