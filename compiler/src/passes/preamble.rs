//! The uniform preamble: values that are the same for every invocation of a launch are
//! computed once, by a separate program the hardware runs before the launch's threads, and
//! the main shader reads them from a result area instead of computing them per SIMD group.
//!
//! A value is *uniform* here when it is a constant, a root table word, a load of memory the
//! launch cannot change (descriptor set memory, and uniform buffers reached through an
//! address word of a constant descriptor) at a uniform address, or arithmetic on uniform
//! values. The preamble runs all of it, whatever the shader's branches would have decided,
//! so it only takes what is safe to run anyway: arithmetic (AGX arithmetic has no traps,
//! derivatives aside) and descriptor words from anywhere in the shader (every set a shader
//! names must be bound), but loads of uniform buffers only from code every invocation runs
//! (the top-level blocks before anything that may end the invocation), since an offset the
//! shader guards with a branch may be past the buffer's range. Robustness checks are `If`
//! nodes, so checked loads stay in the main shader.
//!
//! Of the uniform values, those the rest of the shader uses become results: the preamble
//! computes them (and what they need) and stores them with `StorePreamble`; in the main
//! shader their definition becomes a `LoadPreamble`, and dead-code elimination drops the
//! chain that fed it. Values that already cost the main shader nothing are not results:
//! constants, root words and descriptor words (which the back end reads as uniform
//! registers the launch preloads), and addresses that are such a word plus a constant (the
//! memory instruction's own index). Results are 32-bit scalars; a boolean or 64-bit value
//! the rest uses stays in the main shader, and its operands are considered instead.
//!
//! The split keeps value numbers: the preamble is a shader over the same value types, so a
//! value means the same computation in both.

use std::collections::{HashMap, HashSet};

use crate::abi;
use crate::ir::{BinOp, ConvOp, Inst, Node, Op, Shader, Space, Type, UnOp, Value};
use crate::{CompileError, DescriptorKind, ResourceLayout};

/// Where a uniform address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    /// Into set `set`'s memory, at byte `offset` when it is a constant.
    Set { set: u32, offset: Option<u64> },
    /// Into memory no invocation of the launch writes (a uniform buffer).
    ReadOnly,
}

/// What the classification knows about a uniform value.
#[derive(Debug, Clone, Copy)]
struct Uniform {
    /// Costs the main shader nothing as it is (see the module documentation).
    free: bool,
    /// For addresses: where they point.
    region: Option<Region>,
    /// The value is a constant (or a widened one), for address arithmetic.
    constant: Option<u64>,
}

/// The preamble and the rewritten main shader, or `None` when nothing is worth moving.
/// `area_halves` is the size of the result area in 16-bit halves.
pub fn split(
    sh: &Shader,
    layout: &ResourceLayout,
    area_halves: u32,
) -> Result<Option<(Shader, Shader)>, CompileError> {
    let mut uniform: HashMap<Value, Uniform> = HashMap::new();
    let mut order: Vec<&Inst> = Vec::new();
    classify_nodes(sh, layout, &sh.body, true, &mut uniform, &mut order);
    if order.is_empty() {
        return Ok(None);
    }
    let defs: HashMap<Value, &Op> = order.iter().filter_map(|i| Some((i.dst?, &i.op))).collect();

    // Uniform values the rest of the shader reads.
    let mut wanted: Vec<Value> = Vec::new();
    let mut seen: HashSet<Value> = HashSet::new();
    let mut note = |v: Value, wanted: &mut Vec<Value>| {
        if uniform.contains_key(&v) && seen.insert(v) {
            wanted.push(v);
        }
    };
    rest_uses(&sh.body, &uniform, &mut |v| note(v, &mut wanted));

    // Results, in the order the rest first needs them; a value that cannot be one leaves
    // its operands wanted instead.
    let mut results: Vec<(Value, u32)> = Vec::new();
    let mut used_halves = 0;
    let mut k = 0;
    while k < wanted.len() {
        let v = wanted[k];
        k += 1;
        let u = uniform[&v];
        if u.free {
            continue;
        }
        let ty = sh.ty(v);
        let storable = ty == Type::I32 || ty == Type::F32;
        if storable && used_halves + 2 <= area_halves {
            results.push((v, used_halves));
            used_halves += 2;
            continue;
        }
        let mut op = defs[&v].clone();
        super::map_operands(&mut op, &mut |x| {
            note(x, &mut wanted);
            x
        });
    }
    if results.is_empty() {
        return Ok(None);
    }

    // The preamble: every uniform instruction the results need, in order, then the stores.
    let mut needed: HashSet<Value> = HashSet::new();
    let mut stack: Vec<Value> = results.iter().map(|&(v, _)| v).collect();
    while let Some(v) = stack.pop() {
        if needed.insert(v) {
            let mut op = defs[&v].clone();
            super::map_operands(&mut op, &mut |x| {
                stack.push(x);
                x
            });
        }
    }
    let mut body: Vec<Inst> = order
        .iter()
        .filter(|i| i.dst.is_some_and(|d| needed.contains(&d)))
        .map(|&i| i.clone())
        .collect();
    body.extend(results.iter().map(|&(value, offset)| Inst {
        dst: None,
        op: Op::StorePreamble { offset, value },
    }));
    let preamble = Shader {
        local_size: [1, 1, 1],
        shared_size: 0,
        scratch_size: 0,
        value_types: sh.value_types.clone(),
        var_types: Vec::new(),
        body: vec![Node::Block(body)],
        contract: sh.contract,
        offsets_in_range: sh.offsets_in_range,
    };

    let mut main = sh.clone();
    let at: HashMap<Value, u32> = results.iter().copied().collect();
    replace_results(&mut main.body, &at);
    super::dce(&mut main)?;
    Ok(Some((preamble, main)))
}

/// Classifies the instructions of `nodes` in order (see [`classify`]); `always` says every
/// invocation runs all of them, which loads of uniform buffers need.
fn classify_nodes<'a>(
    sh: &Shader,
    layout: &ResourceLayout,
    nodes: &'a [Node],
    always: bool,
    uniform: &mut HashMap<Value, Uniform>,
    order: &mut Vec<&'a Inst>,
) {
    let mut always = always;
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    let Some(d) = i.dst else { continue };
                    if let Some(u) = classify(sh, layout, uniform, d, &i.op, always) {
                        uniform.insert(d, u);
                        order.push(i);
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                classify_nodes(sh, layout, then_body, false, uniform, order);
                classify_nodes(sh, layout, else_body, false, uniform, order);
                always &= !returns(then_body) && !returns(else_body);
            }
            Node::Loop { body } => {
                classify_nodes(sh, layout, body, false, uniform, order);
                always &= !returns(body);
            }
            Node::Break | Node::Continue | Node::Return => always = false,
        }
    }
}

/// Whether `nodes` may end the invocation.
fn returns(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| match n {
        Node::Return => true,
        Node::If {
            then_body,
            else_body,
            ..
        } => returns(then_body) || returns(else_body),
        Node::Loop { body } => returns(body),
        _ => false,
    })
}

/// Turns the definitions of the results into reads of the result area.
fn replace_results(nodes: &mut [Node], at: &HashMap<Value, u32>) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts.iter_mut() {
                    if let Some(&offset) = i.dst.and_then(|d| at.get(&d)) {
                        i.op = Op::LoadPreamble { offset };
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                replace_results(then_body, at);
                replace_results(else_body, at);
            }
            Node::Loop { body } => replace_results(body, at),
            _ => {}
        }
    }
}

/// Calls `f` on every operand (and `If` condition) of what stays in the main shader: every
/// instruction that is not uniform, wherever it is.
fn rest_uses(nodes: &[Node], uniform: &HashMap<Value, Uniform>, f: &mut dyn FnMut(Value)) {
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    if i.dst.is_some_and(|d| uniform.contains_key(&d)) {
                        continue;
                    }
                    for v in crate::ir::validate::op_operands(&i.op) {
                        f(v);
                    }
                }
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                f(*cond);
                rest_uses(then_body, uniform, f);
                rest_uses(else_body, uniform, f);
            }
            Node::Loop { body } => rest_uses(body, uniform, f),
            _ => {}
        }
    }
}

/// Whether `d = op` is uniform, and what is known about it.
fn classify(
    sh: &Shader,
    layout: &ResourceLayout,
    uniform: &HashMap<Value, Uniform>,
    d: Value,
    op: &Op,
    always: bool,
) -> Option<Uniform> {
    let plain = Uniform {
        free: false,
        region: None,
        constant: None,
    };
    match op {
        Op::Const(c) => Some(Uniform {
            free: true,
            constant: c.0.first().copied(),
            ..plain
        }),
        Op::Load {
            space: Space::Root,
            addr,
            ..
        } => {
            let at = uniform.get(addr)?.constant?;
            let set = (0..abi::MAX_SETS).find(|&s| u64::from(abi::set_address_offset(s)) == at);
            Some(Uniform {
                free: true,
                region: set.map(|set| Region::Set {
                    set,
                    offset: Some(0),
                }),
                constant: None,
            })
        }
        Op::Load {
            space: Space::Global,
            addr,
            ..
        } => {
            let a = uniform.get(addr)?;
            match a.region? {
                Region::Set { set, offset } => {
                    // A descriptor word at a constant offset is a preloaded uniform; one of
                    // a uniform buffer's address words points at read-only memory.
                    let ubo = offset.is_some_and(|o| uniform_buffer_address(layout, set, o));
                    Some(Uniform {
                        free: offset.is_some() && a.free,
                        region: ubo.then_some(Region::ReadOnly),
                        constant: None,
                    })
                }
                // Only where every invocation loads it: the preamble loads it whatever
                // the shader's branches decide, and an offset past the buffer's range
                // faults.
                Region::ReadOnly => always.then_some(plain),
            }
        }
        Op::Copy(x) => uniform.get(x).copied(),
        Op::Conv(c @ (ConvOp::UToU | ConvOp::SToS), x) if sh.ty(d) == Type::I64 => {
            let u = uniform.get(x)?;
            let constant = u.constant.map(|k| match c {
                ConvOp::SToS => k as u32 as i32 as i64 as u64,
                _ => k & 0xffff_ffff,
            });
            Some(Uniform {
                free: constant.is_some(),
                region: None,
                constant,
            })
        }
        Op::Binary(BinOp::IAdd, a, b) if sh.ty(d) == Type::I64 => {
            let (ua, ub) = (uniform.get(a)?, uniform.get(b)?);
            let add = |base: &Uniform, other: &Uniform| -> Option<Uniform> {
                let region = match base.region? {
                    Region::Set { set, offset } => Region::Set {
                        set,
                        offset: offset.zip(other.constant).map(|(o, k)| o.wrapping_add(k)),
                    },
                    Region::ReadOnly => Region::ReadOnly,
                };
                Some(Uniform {
                    // The memory instruction takes a constant offset as its index.
                    free: base.free && other.constant.is_some(),
                    region: Some(region),
                    constant: None,
                })
            };
            add(ua, ub).or_else(|| add(ub, ua)).or(Some(plain))
        }
        Op::Unary(UnOp::FDdx | UnOp::FDdy, _) => None,
        op if op.is_arithmetic() => {
            let mut all = true;
            let mut o = op.clone();
            super::map_operands(&mut o, &mut |x| {
                all &= uniform.contains_key(&x);
                x
            });
            all.then_some(plain)
        }
        _ => None,
    }
}

/// Whether byte `offset` of set `set`'s memory is the address word of a uniform buffer
/// descriptor.
fn uniform_buffer_address(layout: &ResourceLayout, set: u32, offset: u64) -> bool {
    let Some(Some(s)) = layout.sets.get(set as usize) else {
        return false;
    };
    let size = u64::from(abi::BUFFER_DESCRIPTOR_SIZE);
    s.bindings.iter().any(|b| {
        let start = u64::from(b.offset);
        b.kind == DescriptorKind::UniformBuffer
            && offset >= start
            && offset < start + u64::from(b.count) * size
            && (offset - start).is_multiple_of(size)
    })
}
