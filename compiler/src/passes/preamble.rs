//! The uniform preamble: values that are the same for every invocation of a launch are
//! computed once, by a separate program the hardware runs before the launch's threads, and
//! the main shader reads them from a result area instead of computing them per SIMD group.
//!
//! A value is *uniform* here when it is a constant, a root table word, a load of memory the
//! launch cannot change (descriptor set memory, and uniform buffers or storage buffers the
//! shader only reads, reached through an address word of a constant descriptor) at a
//! uniform address, or arithmetic on uniform values. The preamble runs all of it, whatever
//! the shader's branches would have decided, so it only takes what is safe to run anyway:
//! arithmetic (AGX arithmetic has no traps, derivatives aside) and descriptor words from
//! anywhere in the shader (every set a shader names must be bound); loads of read-only
//! buffers as they are from code every invocation runs (the top-level blocks before
//! anything that may end the invocation); and elsewhere (behind a branch, or a robustness
//! check's `If`) only at a constant offset, behind a test of the descriptor's range, since
//! an offset the shader guards may be past it: there the preamble reads the root table
//! instead (`guarded_load`). Mesa can speculate such loads because AGX soft-faults; agx4's
//! device faults.
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
//! Compute shaders also get 64-bit results: a buffer address plus a constant that an access
//! adds to a varying index (`(B + x) + 8`, the second pair of a `vec4`) is rebased on the
//! uniform `B + 8`, which the preamble computes and the memory instruction takes as its base
//! (`rebase_addresses`); the shader no longer adds the constant to its index.
//!
//! The split keeps value numbers: the preamble is a shader over the same value types, so a
//! value means the same computation in both.

use std::collections::{HashMap, HashSet};

use crate::abi;
use crate::ir::{BinOp, CmpOp, ConvOp, Inst, Node, Op, Shader, Space, Type, UnOp, Value};
use crate::{CompileError, DescriptorKind, ResourceLayout};

/// Where a uniform address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    /// Into set `set`'s memory, at byte `offset` when it is a constant.
    Set { set: u32, offset: Option<u64> },
    /// Into memory no invocation of the launch writes (a uniform buffer), `offset` bytes
    /// (when constant) past the address in the buffer descriptor at byte `desc` of set
    /// `set`'s memory.
    ReadOnly {
        set: u32,
        desc: u64,
        offset: Option<u64>,
    },
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
    /// A load of a read-only buffer that not every invocation runs, at a constant offset:
    /// the preamble loads it only when the offset is inside the descriptor's range (see
    /// [`guarded_load`]).
    guard: Option<Guard>,
}

/// Where a guarded load reads: `offset` bytes into the buffer of the descriptor at byte
/// `desc` of set `set`'s memory.
#[derive(Debug, Clone, Copy)]
struct Guard {
    set: u32,
    desc: u64,
    offset: u64,
}

/// Room for a preamble's results, in 16-bit halves: `halves` for 32-bit values, and
/// `wide_halves` for 64-bit buffer addresses (a memory instruction names a uniform base only
/// below uniform half 256, so only launches whose result area starts there have room).
#[derive(Debug, Clone, Copy)]
pub struct Area {
    pub halves: u32,
    pub wide_halves: u32,
}

/// The preamble and the rewritten main shader, or `None` when nothing is worth moving. In
/// the result area the 64-bit results come first, from offset 0, then the 32-bit ones.
pub fn split(
    sh: &Shader,
    layout: &ResourceLayout,
    area: Area,
) -> Result<Option<(Shader, Shader)>, CompileError> {
    let mut work = sh.clone();
    let rebased = rebase_addresses(&mut work, area.wide_halves / 4);
    let sh = &work;
    let mut uniform: HashMap<Value, Uniform> = HashMap::new();
    let mut order: Vec<&Inst> = Vec::new();
    classify_nodes(sh, layout, &sh.body, true, &mut uniform, &mut order);
    for v in &rebased {
        if let Some(u) = uniform.get_mut(v) {
            u.free = false;
        }
    }
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
    // its operands wanted instead. The only 64-bit results are the rebased addresses, which
    // have room by construction.
    let mut narrow: Vec<Value> = Vec::new();
    let mut wide: Vec<Value> = Vec::new();
    let mut k = 0;
    while k < wanted.len() {
        let v = wanted[k];
        k += 1;
        if uniform[&v].free {
            continue;
        }
        let ty = sh.ty(v);
        if ty == Type::I64 && rebased.contains(&v) {
            wide.push(v);
            continue;
        }
        if (ty == Type::I32 || ty == Type::F32) && 2 * (narrow.len() as u32 + 1) <= area.halves {
            narrow.push(v);
            continue;
        }
        let mut op = defs[&v].clone();
        super::map_operands(&mut op, &mut |x| {
            note(x, &mut wanted);
            x
        });
    }
    if narrow.is_empty() && wide.is_empty() {
        return Ok(None);
    }
    let wide_halves = 4 * wide.len() as u32;
    let results: Vec<(Value, u32)> = wide
        .iter()
        .enumerate()
        .map(|(k, &v)| (v, 4 * k as u32))
        .chain(
            narrow
                .iter()
                .enumerate()
                .map(|(k, &v)| (v, wide_halves + 2 * k as u32)),
        )
        .collect();

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
    let mut pre = Shader {
        value_types: sh.value_types.clone(),
        ..Shader::default()
    };
    let mut body: Vec<Inst> = Vec::new();
    for &i in &order {
        let Some(d) = i.dst.filter(|d| needed.contains(d)) else {
            continue;
        };
        match (uniform[&d].guard, &i.op) {
            (Some(g), Op::Load { align, .. }) => guarded_load(&mut pre, &mut body, d, g, *align),
            _ => body.push(i.clone()),
        }
    }
    body.extend(results.iter().map(|&(value, offset)| Inst {
        dst: None,
        op: Op::StorePreamble { offset, value },
    }));
    let preamble = Shader {
        local_size: [1, 1, 1],
        shared_size: 0,
        scratch_size: 0,
        value_types: pre.value_types,
        var_types: Vec::new(),
        body: vec![Node::Block(body)],
        contract: sh.contract,
        offsets_in_range: sh.offsets_in_range,
        read_only_buffers: Default::default(),
    };

    let mut main = sh.clone();
    let at: HashMap<Value, u32> = results.iter().copied().collect();
    let mut reads = Vec::new();
    replace_results(&mut main.body, &at, &mut reads);
    // A read of the result area has no operands, so it may go first: a rebased address
    // made in one block may then serve later ones.
    main.body.insert(0, Node::Block(reads));
    super::dce(&mut main)?;
    Ok(Some((preamble, main)))
}

/// `d = ` a load at byte `g.offset` of a read-only buffer, for the preamble, which runs it
/// whether or not the shader would have: inside the descriptor's range it loads there,
/// outside (where the shader's branch cannot have been taken, or reads undefined values) it
/// loads the root table's first word instead, which is always there. The address is built
/// from the descriptor's two words, as AGX has no 64-bit select.
fn guarded_load(sh: &mut Shader, out: &mut Vec<Inst>, d: Value, g: Guard, align: u32) {
    let bytes = u64::from(sh.ty(d).scalar.bits().div_ceil(8)) * u64::from(sh.ty(d).lanes);
    let mut def = |ty: Type, op: Op| {
        let v = sh.new_value(ty);
        out.push(Inst { dst: Some(v), op });
        v
    };
    let konst = |def: &mut dyn FnMut(Type, Op) -> Value, k: u64| {
        def(
            Type::I32,
            Op::Const(crate::ir::Constant(vec![k & 0xffff_ffff])),
        )
    };
    let root = |def: &mut dyn FnMut(Type, Op) -> Value, ty: Type, at: u32| {
        let k = konst(def, u64::from(at));
        def(
            ty,
            Op::Load {
                space: Space::Root,
                addr: k,
                align: 4,
            },
        )
    };
    let set = root(&mut def, Type::I64, abi::set_address_offset(g.set));
    let word = |def: &mut dyn FnMut(Type, Op) -> Value, at: u64| {
        let k = konst(def, at);
        let k64 = def(Type::I64, Op::Conv(ConvOp::UToU, k));
        let a = def(Type::I64, Op::Binary(BinOp::IAdd, set, k64));
        def(
            Type::I32,
            Op::Load {
                space: Space::Global,
                addr: a,
                align: 4,
            },
        )
    };
    let (lo, hi) = (word(&mut def, g.desc), word(&mut def, g.desc + 4));
    let size = word(&mut def, g.desc + 8);
    let end = konst(&mut def, g.offset + bytes);
    let inside = def(Type::BOOL, Op::Cmp(CmpOp::ULe, end, size));
    let k = konst(&mut def, g.offset);
    let lo = def(Type::I32, Op::Binary(BinOp::IAdd, lo, k));
    let wrapped = def(Type::BOOL, Op::Cmp(CmpOp::ULt, lo, k));
    let carry = def(Type::I32, Op::Conv(ConvOp::BoolToInt, wrapped));
    let hi = def(Type::I32, Op::Binary(BinOp::IAdd, hi, carry));
    let rlo = root(&mut def, Type::I32, abi::ROOT_ADDRESS_OFFSET);
    let rhi = root(&mut def, Type::I32, abi::ROOT_ADDRESS_OFFSET + 4);
    let lo = def(Type::I32, Op::Select(inside, lo, rlo));
    let hi = def(Type::I32, Op::Select(inside, hi, rhi));
    let hi64 = def(Type::I64, Op::Conv(ConvOp::UToU, hi));
    let k32 = konst(&mut def, 32);
    let high = def(Type::I64, Op::Binary(BinOp::Shl, hi64, k32));
    let lo64 = def(Type::I64, Op::Conv(ConvOp::UToU, lo));
    let addr = def(Type::I64, Op::Binary(BinOp::IAdd, high, lo64));
    out.push(Inst {
        dst: Some(d),
        op: Op::Load {
            space: Space::Global,
            addr,
            align: align.min(4),
        },
    });
}

/// Rewrites addresses `(B + x) + c` of buffer descriptor word `B`, a varying `x` and a
/// constant `c` with a multiple of 8 in it, into `(B + hi) + x` (+ `c - hi`, below 8): `B +
/// hi` is then a uniform the preamble computes once, which a memory instruction takes as its
/// base, where the shader would otherwise add `hi` to its index per access. Pairs of 32-bit
/// accesses (at `c - hi` 0 and 4) keep one base. At most `max` such bases; returns them.
fn rebase_addresses(sh: &mut Shader, max: u32) -> HashSet<Value> {
    let mut r = Rebase {
        defs: super::defs(sh),
        bases: HashMap::new(),
        max: max as usize,
        reach: HashMap::new(),
    };
    // Only a whole second pair of one 16-byte element (a vec4's words 2 and 3, and nothing
    // further from the same index) gains: a single word moved to another base would break
    // the pair it makes with the next field.
    super::for_each_inst(&sh.body, &mut |i| {
        // Word 0: an access at `B + x` itself.
        if let Op::Load { addr, .. } | Op::Store { addr, .. } = &i.op {
            if let Some((b, x)) = r.indexed(*addr) {
                *r.reach.entry((b, x)).or_insert(0) |= 1;
            }
        }
        if let Some((_, b, x, hi, lo)) = r.candidate(sh, i, true) {
            let c = hi + lo;
            let e = r.reach.entry((b, x)).or_insert(0);
            *e |= if c < 16 && c % 4 == 0 {
                1 << (c / 4)
            } else {
                1 << 8
            };
        }
    });
    let body = std::mem::take(&mut sh.body);
    sh.body = r.nodes(sh, body);
    r.bases.into_values().collect()
}

struct Rebase {
    defs: HashMap<Value, Op>,
    /// `B + hi` by (B, hi).
    bases: HashMap<(Value, u64), Value>,
    max: usize,
    /// The constants added to each (B, x): bit `c / 4` for the words of a 16-byte element,
    /// bit 8 for anything else.
    reach: HashMap<(Value, Value), u16>,
}

impl Rebase {
    fn nodes(&mut self, sh: &mut Shader, nodes: Vec<Node>) -> Vec<Node> {
        nodes
            .into_iter()
            .map(|n| match n {
                Node::Block(insts) => Node::Block(self.block(sh, insts)),
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => Node::If {
                    cond,
                    then_body: self.nodes(sh, then_body),
                    else_body: self.nodes(sh, else_body),
                },
                Node::Loop { body } => Node::Loop {
                    body: self.nodes(sh, body),
                },
                other => other,
            })
            .collect()
    }

    /// The constant of `Conv(UToU, Const)`.
    fn widened_constant(&self, v: Value) -> Option<u64> {
        let Some(Op::Conv(ConvOp::UToU, k)) = self.defs.get(&v) else {
            return None;
        };
        match self.defs.get(k) {
            Some(Op::Const(c)) => c.0.first().map(|&c| c & 0xffff_ffff),
            _ => None,
        }
    }

    /// Whether `v` is a load of a descriptor word: set memory at a root table address plus
    /// a constant.
    fn descriptor_word(&self, v: Value) -> bool {
        let Some(Op::Load {
            space: Space::Global,
            addr,
            ..
        }) = self.defs.get(&v)
        else {
            return false;
        };
        let root = |x: &Value| {
            matches!(
                self.defs.get(x),
                Some(Op::Load {
                    space: Space::Root,
                    ..
                })
            )
        };
        match self.defs.get(addr) {
            Some(Op::Load {
                space: Space::Root, ..
            }) => true,
            Some(Op::Binary(BinOp::IAdd, a, b)) => {
                (root(a) && self.widened_constant(*b).is_some())
                    || (root(b) && self.widened_constant(*a).is_some())
            }
            _ => false,
        }
    }

    fn def(sh: &mut Shader, out: &mut Vec<Inst>, ty: Type, op: Op) -> Value {
        let v = sh.new_value(ty);
        out.push(Inst { dst: Some(v), op });
        v
    }

    fn block(&mut self, sh: &mut Shader, insts: Vec<Inst>) -> Vec<Inst> {
        // `(B + hi) + x` by (B, x, hi), reused while in this block.
        let mut sums: HashMap<(Value, Value, u64), Value> = HashMap::new();
        let mut out = Vec::with_capacity(insts.len());
        for mut i in insts {
            let Some((d, b, x, hi, lo)) = self.candidate(sh, &i, false) else {
                out.push(i);
                continue;
            };
            // Words 2 and 3 (offsets 8 and 12), and nothing past the element; not a whole
            // element (words 0 to 3), which a memory instruction moves at once from one base.
            if self
                .reach
                .get(&(b, x))
                .is_none_or(|&m| m & 0b1_0000_1100 != 0b1100 || m & 0b11 == 0b11)
            {
                out.push(i);
                continue;
            }
            let base = match self.bases.get(&(b, hi)) {
                Some(&v) => v,
                None if self.bases.len() < self.max => {
                    let k = Self::def(
                        sh,
                        &mut out,
                        Type::I32,
                        Op::Const(crate::ir::Constant(vec![hi])),
                    );
                    let k64 = Self::def(sh, &mut out, Type::I64, Op::Conv(ConvOp::UToU, k));
                    let v = Self::def(sh, &mut out, Type::I64, Op::Binary(BinOp::IAdd, b, k64));
                    self.bases.insert((b, hi), v);
                    v
                }
                None => {
                    out.push(i);
                    continue;
                }
            };
            if lo == 0 {
                i.op = Op::Binary(BinOp::IAdd, base, x);
                sums.entry((b, x, hi)).or_insert(d);
                out.push(i);
                continue;
            }
            let sum = match sums.get(&(b, x, hi)) {
                Some(&s) => s,
                None => {
                    let s = Self::def(sh, &mut out, Type::I64, Op::Binary(BinOp::IAdd, base, x));
                    sums.insert((b, x, hi), s);
                    s
                }
            };
            let k = Self::def(
                sh,
                &mut out,
                Type::I32,
                Op::Const(crate::ir::Constant(vec![lo])),
            );
            let k64 = Self::def(sh, &mut out, Type::I64, Op::Conv(ConvOp::UToU, k));
            i.op = Op::Binary(BinOp::IAdd, sum, k64);
            out.push(i);
        }
        out
    }

    /// `d = (B + x) + c` as (d, B, x, hi, lo) with `c = hi + lo`, `hi` a nonzero multiple
    /// of 8 (any, with `all`) and `lo` below 8.
    /// `(B, x)` of `v = B + x`, a buffer descriptor word plus a varying `x` (a constant one
    /// is the index already).
    fn indexed(&self, v: Value) -> Option<(Value, Value)> {
        let Some(Op::Binary(BinOp::IAdd, p, q)) = self.defs.get(&v) else {
            return None;
        };
        let (base, x) = if self.descriptor_word(*p) {
            (*p, *q)
        } else if self.descriptor_word(*q) {
            (*q, *p)
        } else {
            return None;
        };
        self.widened_constant(x).is_none().then_some((base, x))
    }

    fn candidate(
        &self,
        sh: &Shader,
        i: &Inst,
        all: bool,
    ) -> Option<(Value, Value, Value, u64, u64)> {
        let d = i.dst?;
        let Op::Binary(BinOp::IAdd, a, b) = i.op else {
            return None;
        };
        if sh.ty(d) != Type::I64 {
            return None;
        }
        let (inner, c) = match (self.widened_constant(b), self.widened_constant(a)) {
            (Some(c), _) => (a, c),
            (_, Some(c)) => (b, c),
            _ => return None,
        };
        let (base, x) = self.indexed(inner)?;
        if c >= 1 << 31 {
            return None;
        }
        let (hi, lo) = (c & !7, c & 7);
        (all || hi != 0).then_some((d, base, x, hi, lo))
    }
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

/// Takes the definitions of the results out, as reads of the result area (`reads`).
fn replace_results(nodes: &mut [Node], at: &HashMap<Value, u32>, reads: &mut Vec<Inst>) {
    for n in nodes {
        match n {
            Node::Block(insts) => insts.retain(|i| match i.dst.and_then(|d| at.get(&d)) {
                Some(&offset) => {
                    reads.push(Inst {
                        dst: i.dst,
                        op: Op::LoadPreamble { offset },
                    });
                    false
                }
                None => true,
            }),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                replace_results(then_body, at, reads);
                replace_results(else_body, at, reads);
            }
            Node::Loop { body } => replace_results(body, at, reads),
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
        guard: None,
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
                ..plain
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
                    let desc = offset.filter(|&o| read_only_buffer_address(sh, layout, set, o));
                    Some(Uniform {
                        free: offset.is_some() && a.free,
                        region: desc.map(|desc| Region::ReadOnly {
                            set,
                            desc,
                            offset: Some(0),
                        }),
                        ..plain
                    })
                }
                // Where every invocation loads it, as it is. Elsewhere the preamble must
                // not load past the buffer's range (which may fault) where the shader's
                // branches would not have: at a constant offset it checks the range first.
                Region::ReadOnly { .. } if always => Some(plain),
                // (Its 32-bit range test needs an offset well inside 32 bits.)
                Region::ReadOnly {
                    set,
                    desc,
                    offset: Some(offset),
                } if offset < 1 << 31 => Some(Uniform {
                    guard: Some(Guard { set, desc, offset }),
                    ..plain
                }),
                Region::ReadOnly { .. } => None,
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
                constant,
                ..plain
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
                    Region::ReadOnly { set, desc, offset } => Region::ReadOnly {
                        set,
                        desc,
                        offset: offset.zip(other.constant).map(|(o, k)| o.wrapping_add(k)),
                    },
                };
                Some(Uniform {
                    // The memory instruction takes a constant offset as its index.
                    free: base.free && other.constant.is_some(),
                    region: Some(region),
                    ..plain
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

/// Whether byte `offset` of set `set`'s memory is the address word of a buffer descriptor
/// whose memory the launch does not change: a uniform buffer, or a storage buffer the shader
/// only reads (`Shader::read_only_buffers`).
fn read_only_buffer_address(sh: &Shader, layout: &ResourceLayout, set: u32, offset: u64) -> bool {
    let Some(Some(s)) = layout.sets.get(set as usize) else {
        return false;
    };
    let size = u64::from(abi::BUFFER_DESCRIPTOR_SIZE);
    s.bindings.iter().any(|b| {
        let start = u64::from(b.offset);
        let read_only = match b.kind {
            DescriptorKind::UniformBuffer => true,
            DescriptorKind::StorageBuffer => {
                sh.read_only_buffers.get(&(set, b.binding)) == Some(&true)
            }
            _ => false,
        };
        read_only
            && offset >= start
            && offset < start + u64::from(b.count) * size
            && (offset - start).is_multiple_of(size)
    })
}
