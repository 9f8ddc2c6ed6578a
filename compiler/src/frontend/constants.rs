//! Constants, specialization constants and OpSpecConstantOp, evaluated at translation time.

use std::collections::HashMap;

use rspirv::dr::Operand;
use spirv::{Decoration, Op, Word};

use super::module::{id, invalid, lit, result_id, result_type, unsupported, Decorations, SpvType};
use crate::{CompileError, Specialization};

/// A constant value shaped like its type: scalars hold their bits (bools 0/1).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CVal {
    Scalar(u64),
    Comp(Vec<CVal>),
}

/// The zero value of a type.
pub(super) fn null(
    types: &HashMap<Word, SpvType>,
    ty: Word,
    depth: u32,
) -> Result<CVal, CompileError> {
    let mut budget = 1 << 16;
    null_in(types, ty, depth, &mut budget)
}

fn count(c: &CVal) -> u32 {
    match c {
        CVal::Scalar(_) => 1,
        CVal::Comp(cs) => cs.iter().map(count).sum::<u32>() + 1,
    }
}

fn null_in(
    types: &HashMap<Word, SpvType>,
    ty: Word,
    depth: u32,
    budget: &mut u32,
) -> Result<CVal, CompileError> {
    if depth > 32 {
        return Err(invalid("type nesting too deep"));
    }
    let t = types
        .get(&ty)
        .ok_or_else(|| invalid(format!("undefined type {ty}")))?;
    let repeat = |elem: Word, n: u32, budget: &mut u32| -> Result<CVal, CompileError> {
        if n > 4096 {
            return Err(unsupported("constant array longer than 4096 elements"));
        }
        let e = null_in(types, elem, depth + 1, budget)?;
        let cost = count(&e).saturating_mul(n);
        *budget = budget
            .checked_sub(cost)
            .ok_or_else(|| unsupported("constant too large"))?;
        Ok(CVal::Comp(vec![e; n as usize]))
    };
    Ok(match t {
        SpvType::Bool | SpvType::Int { .. } | SpvType::Float { .. } => CVal::Scalar(0),
        // A physical pointer is its 64-bit address; null is address 0.
        SpvType::Pointer {
            sc: spirv::StorageClass::PhysicalStorageBuffer,
            ..
        } => CVal::Scalar(0),
        SpvType::Vector { elem, n } => repeat(*elem, *n, budget)?,
        SpvType::Matrix { col, cols } => repeat(*col, *cols, budget)?,
        SpvType::Array { elem, len } => repeat(*elem, *len, budget)?,
        SpvType::Struct { members } => {
            let mut out = Vec::new();
            for m in members {
                out.push(null_in(types, *m, depth + 1, budget)?);
            }
            CVal::Comp(out)
        }
        _ => return Err(invalid(format!("no constant of type {ty}"))),
    })
}

fn scalar(c: &CVal) -> Result<u64, CompileError> {
    match c {
        CVal::Scalar(v) => Ok(*v),
        CVal::Comp(_) => Err(invalid("scalar operand expected in a constant expression")),
    }
}

/// Applies `f` lane by lane to one or two operands of the same shape.
fn lanewise(
    a: &CVal,
    b: Option<&CVal>,
    f: &dyn Fn(u64, u64) -> Option<u64>,
) -> Result<CVal, CompileError> {
    match (a, b) {
        (CVal::Scalar(x), None) => f(*x, 0)
            .map(CVal::Scalar)
            .ok_or_else(|| invalid("constant division by zero")),
        (CVal::Scalar(x), Some(CVal::Scalar(y))) => f(*x, *y)
            .map(CVal::Scalar)
            .ok_or_else(|| invalid("constant division by zero")),
        (CVal::Comp(xs), None) => Ok(CVal::Comp(
            xs.iter()
                .map(|x| lanewise(x, None, f))
                .collect::<Result<_, _>>()?,
        )),
        (CVal::Comp(xs), Some(CVal::Comp(ys))) if xs.len() == ys.len() => Ok(CVal::Comp(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| lanewise(x, Some(y), f))
                .collect::<Result<_, _>>()?,
        )),
        _ => Err(invalid("constant operands of different shapes")),
    }
}

/// Integer width in bits of a scalar or vector type (32 for anything else).
fn int_bits(types: &HashMap<Word, SpvType>, ty: Word) -> u32 {
    match types.get(&ty) {
        Some(SpvType::Int { width, .. }) => *width,
        Some(SpvType::Vector { elem, .. }) => match types.get(elem) {
            Some(SpvType::Int { width, .. }) => *width,
            _ => 32,
        },
        _ => 32,
    }
}

/// Float width in bits of a scalar or vector type (32 for anything else).
fn float_bits(types: &HashMap<Word, SpvType>, ty: Word) -> u32 {
    match types.get(&ty) {
        Some(SpvType::Float { width }) => *width,
        Some(SpvType::Vector { elem, .. }) => float_bits(types, *elem),
        _ => 32,
    }
}

/// The bits of float `v` (`from` bits wide) converted to `to` bits, rounding to nearest even.
fn fconvert(v: u64, from: u32, to: u32) -> u64 {
    let x = if from == 16 {
        f64::from(crate::ir::half::to_f32(v as u16))
    } else {
        f64::from(f32::from_bits(v as u32))
    };
    if to == 16 {
        u64::from(crate::ir::half::from_f64(x))
    } else {
        u64::from((x as f32).to_bits())
    }
}

/// Evaluates a constant operation; `src` and `dst` are the integer widths of the first
/// operand and of the result (they differ only for UConvert / SConvert).
fn spec_op(
    op: Op,
    args: &[&CVal],
    lits: &[u32],
    (src, dst): (u32, u32),
) -> Result<CVal, CompileError> {
    let wide = src == 64;
    // Operands sign-extended from their width.
    let width_mask = |w: u32| if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let s = |x: u64| {
        if wide {
            x as i64
        } else {
            let k = 64 - src.min(32);
            ((x << k) as i64) >> k
        }
    };
    let dmask = width_mask(dst);
    let smask = width_mask(src);
    let sh = if wide { 63 } else { 31 };
    let b = |c: bool| c as u64;
    let bin = |f: &dyn Fn(u64, u64) -> Option<u64>| -> Result<CVal, CompileError> {
        let (Some(x), Some(y)) = (args.first(), args.get(1)) else {
            return Err(invalid("OpSpecConstantOp needs two operands"));
        };
        lanewise(x, Some(y), f)
    };
    let un = |f: &dyn Fn(u64, u64) -> Option<u64>| -> Result<CVal, CompileError> {
        let Some(x) = args.first() else {
            return Err(invalid("OpSpecConstantOp needs an operand"));
        };
        lanewise(x, None, f)
    };
    let m = |x: u64| x & dmask;
    match op {
        Op::IAdd => bin(&|x, y| Some(m(x.wrapping_add(y)))),
        Op::ISub => bin(&|x, y| Some(m(x.wrapping_sub(y)))),
        Op::IMul => bin(&|x, y| Some(m(x.wrapping_mul(y)))),
        Op::UDiv => bin(&|x, y| (y != 0).then(|| x / y)),
        Op::UMod => bin(&|x, y| (y != 0).then(|| x % y)),
        Op::SDiv => bin(&|x, y| (y != 0).then(|| m(s(x).wrapping_div(s(y)) as u64))),
        Op::SRem => bin(&|x, y| (y != 0).then(|| m(s(x).wrapping_rem(s(y)) as u64))),
        Op::SMod => bin(&|x, y| {
            (y != 0).then(|| {
                let r = s(x).wrapping_rem(s(y));
                let r = if r != 0 && (r < 0) != (s(y) < 0) {
                    r.wrapping_add(s(y))
                } else {
                    r
                };
                m(r as u64)
            })
        }),
        Op::ShiftLeftLogical => bin(&|x, y| Some(m(x << (y & sh)))),
        Op::ShiftRightLogical => bin(&|x, y| Some(x >> (y & sh))),
        Op::ShiftRightArithmetic => bin(&|x, y| Some(m((s(x) >> (y & sh)) as u64))),
        Op::BitwiseAnd | Op::LogicalAnd => bin(&|x, y| Some(x & y)),
        Op::BitwiseOr | Op::LogicalOr => bin(&|x, y| Some(x | y)),
        Op::BitwiseXor | Op::LogicalNotEqual => bin(&|x, y| Some(x ^ y)),
        Op::LogicalEqual => bin(&|x, y| Some(b(x == y))),
        Op::Not => un(&|x, _| Some(m(!x))),
        Op::LogicalNot => un(&|x, _| Some(b(x == 0))),
        Op::SNegate => un(&|x, _| Some(m(x.wrapping_neg()))),
        Op::IEqual => bin(&|x, y| Some(b(x == y))),
        Op::INotEqual => bin(&|x, y| Some(b(x != y))),
        Op::ULessThan => bin(&|x, y| Some(b(x < y))),
        Op::ULessThanEqual => bin(&|x, y| Some(b(x <= y))),
        Op::UGreaterThan => bin(&|x, y| Some(b(x > y))),
        Op::UGreaterThanEqual => bin(&|x, y| Some(b(x >= y))),
        Op::SLessThan => bin(&|x, y| Some(b(s(x) < s(y)))),
        Op::SLessThanEqual => bin(&|x, y| Some(b(s(x) <= s(y)))),
        Op::SGreaterThan => bin(&|x, y| Some(b(s(x) > s(y)))),
        Op::SGreaterThanEqual => bin(&|x, y| Some(b(s(x) >= s(y)))),
        Op::UConvert => un(&|x, _| Some(x & smask & dmask)),
        Op::SConvert => un(&|x, _| Some(m(s(x) as u64))),
        Op::QuantizeToF16 => un(&|x, _| Some(u64::from(super::glsl_bits::quantize_f16(x as u32)))),
        Op::Select => {
            let [c, x, y] = args else {
                return Err(invalid("OpSelect needs three operands"));
            };
            match c {
                CVal::Scalar(c) => Ok(if *c != 0 { (*x).clone() } else { (*y).clone() }),
                CVal::Comp(cs) => match (x, y) {
                    (CVal::Comp(xs), CVal::Comp(ys))
                        if xs.len() == cs.len() && ys.len() == cs.len() =>
                    {
                        Ok(CVal::Comp(
                            cs.iter()
                                .zip(xs.iter().zip(ys))
                                .map(|(c, (x, y))| {
                                    Ok(if scalar(c)? != 0 {
                                        x.clone()
                                    } else {
                                        y.clone()
                                    })
                                })
                                .collect::<Result<_, CompileError>>()?,
                        ))
                    }
                    _ => Err(invalid("OpSelect operand shapes differ")),
                },
            }
        }
        Op::CompositeExtract => {
            let mut v = *args
                .first()
                .ok_or_else(|| invalid("OpCompositeExtract needs a composite"))?;
            for &i in lits {
                match v {
                    CVal::Comp(xs) => {
                        v = xs
                            .get(i as usize)
                            .ok_or_else(|| invalid("index out of range"))?
                    }
                    CVal::Scalar(_) => {
                        return Err(invalid("OpCompositeExtract index into a scalar"))
                    }
                }
            }
            Ok(v.clone())
        }
        Op::CompositeInsert => {
            let (Some(object), Some(composite)) = (args.first(), args.get(1)) else {
                return Err(invalid("OpCompositeInsert needs an object and a composite"));
            };
            let mut out = (*composite).clone();
            let mut at = &mut out;
            for &i in lits {
                at = match at {
                    CVal::Comp(xs) => xs
                        .get_mut(i as usize)
                        .ok_or_else(|| invalid("index out of range"))?,
                    CVal::Scalar(_) => {
                        return Err(invalid("OpCompositeInsert index into a scalar"))
                    }
                };
            }
            *at = (*object).clone();
            Ok(out)
        }
        Op::VectorShuffle => {
            let (Some(CVal::Comp(x)), Some(CVal::Comp(y))) = (args.first(), args.get(1)) else {
                return Err(invalid("OpVectorShuffle needs two vectors"));
            };
            let all: Vec<&CVal> = x.iter().chain(y.iter()).collect();
            Ok(CVal::Comp(
                lits.iter()
                    .map(|&i| {
                        all.get(i as usize)
                            .map(|c| (*c).clone())
                            .unwrap_or(CVal::Scalar(0))
                    })
                    .collect(),
            ))
        }
        other => Err(unsupported(format!("OpSpecConstantOp {other:?}"))),
    }
}

/// The constants of a module by result id: their type and value.
pub(super) type Constants = HashMap<Word, (Word, CVal)>;

/// Evaluates one instruction of the types-and-globals section if it makes a constant
/// (specializing where asked), from the constants before it: `None` for anything else.
/// Types and constants interleave there (an array's length is a constant, a constant has a
/// type), so the caller walks the section once, in order.
pub(super) fn evaluate(
    inst: &rspirv::dr::Instruction,
    types: &HashMap<Word, SpvType>,
    decorations: &Decorations,
    specialization: &[Specialization],
    consts: &Constants,
) -> Result<Option<CVal>, CompileError> {
    let spec_value = |rid: Word| -> Option<u64> {
        let spec_id = *decorations.get(rid, Decoration::SpecId)?.first()?;
        let s = specialization.iter().find(|s| s.id == spec_id)?;
        let mut bytes = [0u8; 8];
        let n = s.bytes.len().min(8);
        bytes[..n].copy_from_slice(&s.bytes[..n]);
        Some(u64::from_le_bytes(bytes))
    };
    let op = inst.class.opcode;
    let value = match op {
        Op::Constant | Op::SpecConstant => {
            let ty = result_type(inst)?;
            let width = match types.get(&ty) {
                Some(SpvType::Int { width, .. } | SpvType::Float { width }) => *width,
                _ => return Err(invalid("OpConstant of a non-scalar type")),
            };
            let wide = width == 64;
            // Narrower literals are sign-extended (signed integers) or zero-extended in their
            // word; the IR holds the type's own bits.
            let narrow = |v: u64| {
                if width < 32 {
                    v & ((1 << width) - 1)
                } else {
                    v
                }
            };
            let mut v = match inst.operands.first() {
                Some(Operand::LiteralBit32(v)) if !wide => *v as u64,
                Some(Operand::LiteralBit64(v)) if wide => *v,
                _ => return Err(invalid("OpConstant literal of the wrong width")),
            };
            if op == Op::SpecConstant {
                if let Some(s) = spec_value(result_id(inst)?) {
                    v = if wide { s } else { s & 0xffff_ffff };
                }
            }
            CVal::Scalar(narrow(v))
        }
        Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
            let mut v = matches!(op, Op::ConstantTrue | Op::SpecConstantTrue) as u64;
            if matches!(op, Op::SpecConstantTrue | Op::SpecConstantFalse) {
                if let Some(s) = spec_value(result_id(inst)?) {
                    v = (s & 0xffff_ffff != 0) as u64;
                }
            }
            CVal::Scalar(v)
        }
        Op::ConstantNull => null(types, result_type(inst)?, 0)?,
        // An undefined value of a type without values (a runtime array, say) is legal
        // as long as nothing uses it; a use then finds no such id.
        Op::Undef => match null(types, result_type(inst)?, 0) {
            Ok(v) => v,
            Err(_) => return Ok(None),
        },
        Op::ConstantComposite | Op::SpecConstantComposite => {
            let parts = (0..inst.operands.len())
                .map(|i| {
                    let c = id(inst, i)?;
                    consts
                        .get(&c)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| invalid(format!("undefined constant {c}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            if parts.iter().map(count).fold(0u32, u32::saturating_add) > 1 << 16 {
                return Err(unsupported("constant too large"));
            }
            CVal::Comp(parts)
        }
        Op::SpecConstantOp => {
            let Some(Operand::LiteralSpecConstantOpInteger(sop)) = inst.operands.first() else {
                return Err(invalid("OpSpecConstantOp without an opcode"));
            };
            let mut args = Vec::new();
            let mut arg_types = Vec::new();
            let mut lits = Vec::new();
            let literal_tail = matches!(
                sop,
                Op::CompositeExtract | Op::CompositeInsert | Op::VectorShuffle
            );
            let n_ids = match sop {
                Op::CompositeExtract => 1,
                Op::CompositeInsert | Op::VectorShuffle => 2,
                _ => usize::MAX,
            };
            for (k, o) in inst.operands[1..].iter().enumerate() {
                let w = match o {
                    Operand::IdRef(w) | Operand::LiteralBit32(w) => *w,
                    _ => return Err(invalid("bad OpSpecConstantOp operand")),
                };
                if literal_tail && k >= n_ids {
                    lits.push(w);
                } else {
                    let (t, v) = consts
                        .get(&w)
                        .ok_or_else(|| invalid(format!("undefined constant {w}")))?;
                    args.push(v);
                    arg_types.push(*t);
                }
            }
            if *sop == Op::FConvert {
                let (Some(x), Some(t)) = (args.first(), arg_types.first()) else {
                    return Err(invalid("OpSpecConstantOp FConvert needs an operand"));
                };
                let from = float_bits(types, *t);
                let to = float_bits(types, result_type(inst)?);
                return lanewise(x, None, &|v, _| Some(fconvert(v, from, to))).map(Some);
            }
            let src = arg_types.first().map_or(32, |t| int_bits(types, *t));
            let dst = int_bits(types, result_type(inst)?);
            spec_op(*sop, &args, &lits, (src, dst))?
        }
        _ => return Ok(None),
    };
    let ty = result_type(inst)?;
    if !types.contains_key(&ty) {
        let rid = result_id(inst)?;
        return Err(invalid(format!("constant {rid} of undefined type {ty}")));
    }
    Ok(Some(value))
}

/// Reads a constant as a u32 (for indices, sizes, scopes).
pub(super) fn as_u32(consts: &HashMap<Word, (Word, CVal)>, c: Word) -> Option<u32> {
    match consts.get(&c) {
        Some((_, CVal::Scalar(v))) => Some(*v as u32),
        _ => None,
    }
}

/// Literal helper re-exported for the translator.
pub(super) fn literal(inst: &rspirv::dr::Instruction, i: usize) -> Result<u32, CompileError> {
    lit(inst, i)
}
