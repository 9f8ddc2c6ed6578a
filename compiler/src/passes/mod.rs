//! Generation-neutral passes, one per file. `run_all` leaves the IR in the form the back ends
//! accept (documented on `run_all`).

mod algebraic;
mod bound_local;
mod clamp_point_size;
mod const_fold;
mod copy_prop;
mod count_fragment_invocations;
mod cse;
mod dce;
mod fuse_ffma;
mod geometry_outputs;
pub mod geometry_prologue;
mod guard_helper_writes;
mod if_convert;
mod licm;
mod lower_descriptors;
mod lower_float;
mod lower_image_atomics;
mod lower_int64;
mod lower_int_div;
mod lower_subgroups;
mod lower_sysvals;
mod lower_texel_buffers;
mod lower_textures;
mod lower_vertex_input;
mod lower_xfb;
mod merge_geometry;
pub mod preamble;
mod promote_vars;
mod scalarize;
mod widen_small;

use std::collections::HashMap;

use crate::ir::{self, Inst, Node, Op, Shader, Value};
use crate::{CompileError, ResourceLayout};

pub use algebraic::algebraic;
pub use bound_local::bound_local;
pub use clamp_point_size::clamp_point_size;
pub use const_fold::const_fold;
pub use copy_prop::copy_prop;
pub use count_fragment_invocations::count_fragment_invocations;
pub use cse::cse;
pub use dce::dce;
pub use fuse_ffma::fuse_ffma;
pub use geometry_outputs::{lower_geometry_outputs, GeometryRecord, InvocationPrologue};
pub use geometry_prologue::GeometryPrologue;
pub use guard_helper_writes::guard_helper_writes;
pub use if_convert::if_convert;
pub use licm::licm;
pub use lower_descriptors::lower_descriptors;
pub use lower_float::lower_float;
pub use lower_image_atomics::lower_image_atomics;
pub use lower_int64::lower_int64;
pub use lower_int_div::lower_int_div;
pub use lower_subgroups::{hardware_reduces, lower_subgroups};
pub use lower_sysvals::lower_sysvals;
pub use lower_texel_buffers::lower_texel_buffers;
pub use lower_textures::lower_textures;
pub use lower_vertex_input::{lower_vertex_input, vertex_input_locations};
pub use lower_xfb::lower_xfb;
pub use merge_geometry::{merge_vertex_inputs, CornerPrologue};
pub use promote_vars::promote_vars;
pub use scalarize::scalarize;
pub use widen_small::widen_small;

/// Runs every pass in a fixed order.
///
/// The result, which `ir::validate::backend_form` checks before this returns, is what a back
/// end receives:
///
/// * every value is scalar (no vectors, no `Vector`/`Extract`/`Insert`/`Copy`);
/// * only these operations remain: `Const`; `Unary` with `INeg, Not, BitReverse, BitCount,
///   UFindMsb, SFindMsb, FindLsb, FNeg, FAbs, FFloor, FCeil, FTrunc, FRoundEven, FRsqrt, FRcp,
///   FExp2, FLog2, FSin, FCos, FDdx, FDdy`; `Binary` with `IAdd, ISub, IMul, UMulHigh, SMulHigh, And, Or,
///   Xor, Shl, UShr, SShr, UMin, SMin, UMax, SMax, FAdd, FSub, FMul, FMin, FMax`; `FFma`,
///   `Cmp`, `Select`, `Conv`, `BitfieldInsert`, `UBitfieldExtract`, `SBitfieldExtract`,
///   `LoadVar`/`StoreVar`, `SysVal` with `LocalInvocationId, LocalInvocationIndex,
///   WorkgroupId` (the hardware's workgroup id, without the dispatch base), `Load`/`Store`/
///   `Atomic` in `Global`/`Shared`/`Scratch` of 32-bit scalars (I32 or F32), `Load` in `Root`
///   at a constant address, `WorkgroupBarrier`, `MemoryBarrier`, `Texture` with a
///   `Bindless` texture and an `Entry` sampler (no queries: `lower_textures` computes them);
/// * I64 appears only in addressing: `Load` in `Root` of a set address, `Load` in `Global` of
///   the descriptor's address word, `Binary(IAdd)` on I64, `Binary(Shl)` of an I64 by the
///   I32 constant 32 (a high address word), and `Conv(UToU | SToS)` from I32 to I64; there are
///   no I64 constants or variables;
/// * Bool values come from `Cmp` (or `Const`, `LoadVar`, `Not/And/Or/Xor` of bools) and are
///   used by `Select`, `If`, `Not/And/Or/Xor`, `StoreVar` and `Conv(BoolToInt)`;
/// * under `BufferRobustness::Checked`, every `Global` access through a descriptor is
///   bounds-checked against its descriptor's range (robustBufferAccess): an out-of-bounds load
///   gives 0, an out-of-bounds store or atomic does nothing. The checks are `If` nodes around
///   the access, whose loaded value flows out through a Var.
///
/// 64-bit integer data (shaderInt64) never reaches the back end: `lower_int64`, right after
/// `scalarize`, rewrites every I64 value that is not an address into a (low, high) pair of I32
/// values (carries through compares, products with `UMulHigh`, shifts by selects on
/// `amount >= 32`, division by a 64-step restoring loop, exactly rounded U64/S64 to F32), and
/// 64-bit loads and stores into two 32-bit accesses. Addresses (the I64 forms listed above)
/// are found by walking back from `Global` access addresses and are left as they are; 64-bit
/// atomics are rejected.
///
/// Float division is `a * rcp(b)` without a Newton step: within 2.5 ULP when `rcp` is
/// correctly rounded to within 1 ULP (as AGX's is). Integer division is a float-reciprocal
/// estimate refined with `UMulHigh` and two correction steps (exact for all 32-bit inputs).
pub fn run_all(shader: &mut Shader, layout: &ResourceLayout) -> Result<(), CompileError> {
    let debug = crate::debug::flags().ir;
    run_all_observed(shader, layout, &mut |name, s| {
        if debug {
            eprintln!("agx4: IR after {name}\n{}", ir::print::print(s));
            ir::validate::validate(s).map_err(|e| format!("after {name}: {e}"))?;
        }
        Ok(())
    })
}

/// [`run_all`] that calls `after` with the IR straight from the front end (as "front end")
/// and after every pass (by its name); an error from `after` stops it as an internal error.
/// Tests use it to validate the IR between passes.
pub fn run_all_observed(
    shader: &mut Shader,
    layout: &ResourceLayout,
    after: &mut dyn FnMut(&str, &Shader) -> Result<(), String>,
) -> Result<(), CompileError> {
    type Pass = fn(&mut Shader, &ResourceLayout) -> Result<(), CompileError>;
    let passes: &[(&str, Pass)] = &[
        ("promote_vars", |s, _| promote_vars(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        ("dce", |s, _| dce(s)),
        ("lower_sysvals", |s, _| lower_sysvals(s)),
        ("lower_descriptors", lower_descriptors),
        ("lower_texel_buffers", lower_texel_buffers),
        ("lower_textures", lower_textures),
        ("lower_image_atomics", lower_image_atomics),
        ("lower_subgroups", |s, _| lower_subgroups(s)),
        ("scalarize", |s, _| scalarize(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        // Dead address arithmetic left by lower_descriptors would read as 64-bit data.
        ("dce", |s, _| dce(s)),
        // Before lower_int64 and lower_float, whose float sequences must round as written.
        ("fuse_ffma", |s, _| fuse_ffma(s)),
        ("lower_int64", |s, _| lower_int64(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        ("const_fold", |s, _| const_fold(s)),
        ("algebraic", |s, _| algebraic(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        ("widen_small", |s, _| widen_small(s)),
        ("lower_int_div", |s, _| lower_int_div(s)),
        ("lower_float", |s, _| lower_float(s)),
        ("const_fold", |s, _| const_fold(s)),
        ("algebraic", |s, _| algebraic(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        // After the lowerings, so an arm's cost is what the back end will run.
        ("if_convert", |s, _| if_convert(s)),
        ("promote_vars", |s, _| promote_vars(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        // After the last pass that adds local-memory accesses, before the folding that
        // simplifies its clamps.
        ("bound_local", |s, _| bound_local(s)),
        ("const_fold", |s, _| const_fold(s)),
        // After the lowerings, whose sequences (a divisor's reciprocal) are what it moves.
        ("licm", |s, _| licm(s)),
        ("cse", |s, _| cse(s)),
        ("copy_prop", |s, _| copy_prop(s)),
        ("dce", |s, _| dce(s)),
    ];
    after("the front end", shader).map_err(CompileError::Internal)?;
    for (name, pass) in passes {
        pass(shader, layout)?;
        after(name, shader).map_err(CompileError::Internal)?;
    }
    ir::validate::backend_form(shader).map_err(|e| {
        CompileError::Internal(format!(
            "passes left a form the back end does not take: {e}"
        ))
    })
}

/// Applies `f` to every value operand of `op`.
pub(crate) fn map_operands(op: &mut Op, f: &mut dyn FnMut(Value) -> Value) {
    match op {
        Op::Const(_)
        | Op::LoadVar(_)
        | Op::SysVal(_)
        | Op::WorkgroupBarrier
        | Op::MemoryBarrier
        | Op::LoadInput { .. }
        | Op::InputPlaneBits { .. }
        | Op::LoadInputAttachment { sample: None, .. }
        | Op::Discard
        | Op::EmitVertex
        | Op::EndPrimitive
        | Op::LoadPreamble { .. } => {}
        Op::LoadPerVertex { vertex, .. } => *vertex = f(*vertex),
        Op::LoadInputAttachment {
            sample: Some(s), ..
        } => *s = f(*s),
        Op::StoreOutput { value, .. }
        | Op::StoreBuiltin { value, .. }
        | Op::StorePreamble { value, .. } => *value = f(*value),
        Op::Unary(_, a)
        | Op::Conv(_, a)
        | Op::Extract(a, _)
        | Op::Copy(a)
        | Op::PhysicalAddress(a)
        | Op::StoreVar(_, a) => *a = f(*a),
        Op::Binary(_, a, b) | Op::Cmp(_, a, b) | Op::Insert(a, _, b) => {
            *a = f(*a);
            *b = f(*b);
        }
        Op::FFma(a, b, c)
        | Op::Select(a, b, c)
        | Op::UBitfieldExtract(a, b, c)
        | Op::SBitfieldExtract(a, b, c) => {
            *a = f(*a);
            *b = f(*b);
            *c = f(*c);
        }
        Op::BitfieldInsert(a, b, c, d) => {
            *a = f(*a);
            *b = f(*b);
            *c = f(*c);
            *d = f(*d);
        }
        Op::Vector(xs) => xs.iter_mut().for_each(|x| *x = f(*x)),
        Op::Load { addr, .. } => *addr = f(*addr),
        Op::Store { addr, value, .. } => {
            *addr = f(*addr);
            *value = f(*value);
        }
        Op::Atomic {
            addr, value, cmp, ..
        } => {
            *addr = f(*addr);
            *value = f(*value);
            if let Some(c) = cmp {
                *c = f(*c);
            }
        }
        Op::DescriptorAddress { index, .. } | Op::DescriptorSize { index, .. } => {
            *index = f(*index)
        }
        Op::Texture(t) => t.map_operands(f),
        Op::ImageStore(w) => w.map_operands(f),
        Op::ImageAtomic(a) => a.map_operands(f),
        Op::Ballot(a) | Op::Reduce(_, a) => *a = f(*a),
        Op::LaneRead(l, a) => {
            *a = f(*a);
            if let ir::LaneRead::Dynamic(i) = l {
                *i = f(*i);
            }
        }
        Op::InterpolateInput { at, .. } => match at {
            ir::InterpolateAt::Centroid => {}
            ir::InterpolateAt::Sample(i) => *i = f(*i),
            ir::InterpolateAt::Offset(x, y) => {
                *x = f(*x);
                *y = f(*y);
            }
        },
    }
}

/// Visits every instruction, in order.
pub(crate) fn for_each_inst(nodes: &[Node], f: &mut dyn FnMut(&Inst)) {
    for n in nodes {
        match n {
            Node::Block(insts) => insts.iter().for_each(&mut *f),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                for_each_inst(then_body, f);
                for_each_inst(else_body, f);
            }
            Node::Loop { body } => for_each_inst(body, f),
            _ => {}
        }
    }
}

/// Bounds (unsigned, inclusive) of a 32-bit integer value, from what computes it: masks,
/// shifts, sums and products by constants, clamps, and the invocation's position in its
/// workgroup. Enough to see that an offset built from a local id or a masked index stays
/// inside what a clamp allows.
pub(crate) fn urange(sh: &Shader, d: &HashMap<Value, Op>, v: Value) -> (u64, u64) {
    urange_knowing(sh, d, &HashMap::new(), v)
}

/// [`urange`] where the values in `known` are also known to lie in the given ranges (as
/// they do under the branches that compared them).
pub(crate) fn urange_knowing(
    sh: &Shader,
    d: &HashMap<Value, Op>,
    known: &HashMap<Value, (u64, u64)>,
    v: Value,
) -> (u64, u64) {
    fn go(
        sh: &Shader,
        d: &HashMap<Value, Op>,
        known: &HashMap<Value, (u64, u64)>,
        v: Value,
        depth: u32,
    ) -> (u64, u64) {
        let (lo, hi) = from_def(sh, d, known, v, depth);
        match known.get(&v) {
            Some(&(klo, khi)) if klo.max(lo) <= khi.min(hi) => (klo.max(lo), khi.min(hi)),
            _ => (lo, hi),
        }
    }
    fn from_def(
        sh: &Shader,
        d: &HashMap<Value, Op>,
        known: &HashMap<Value, (u64, u64)>,
        v: Value,
        depth: u32,
    ) -> (u64, u64) {
        const ALL: (u64, u64) = (0, 0xffff_ffff);
        if depth > 8 || sh.ty(v) != ir::Type::I32 {
            return ALL;
        }
        let konst = |v: Value| match const_of(d, v) {
            Some(&[c]) => Some(c & 0xffff_ffff),
            _ => None,
        };
        if let Some(c) = konst(v) {
            return (c, c);
        }
        let r = |x: Value| go(sh, d, known, x, depth + 1);
        let fits = |(lo, hi): (u64, u64)| if hi <= 0xffff_ffff { (lo, hi) } else { ALL };
        let ls = sh.local_size.map(u64::from);
        match d.get(&v) {
            Some(Op::SysVal(ir::SysVal::LocalInvocationId(c))) if ls[*c as usize % 3] > 0 => {
                (0, ls[*c as usize % 3] - 1)
            }
            Some(Op::SysVal(ir::SysVal::LocalInvocationIndex)) if ls.iter().all(|&n| n > 0) => {
                (0, ls.iter().product::<u64>() - 1)
            }
            Some(Op::Binary(ir::BinOp::And, x, y)) => (0, r(*x).1.min(r(*y).1)),
            Some(Op::Select(_, a, b)) => {
                let (a, b) = (r(*a), r(*b));
                (a.0.min(b.0), a.1.max(b.1))
            }
            Some(Op::Conv(ir::ConvOp::BoolToInt, _)) => (0, 1),
            // A fragment's pixel position is below 2^16 (a framebuffer's size limit), so its
            // integer part is too.
            Some(Op::Conv(ir::ConvOp::FToS | ir::ConvOp::FToU, x))
                if matches!(d.get(x), Some(Op::SysVal(ir::SysVal::FragCoord(0 | 1)))) =>
            {
                (0, 0xffff)
            }
            Some(Op::Binary(ir::BinOp::Shl, x, k)) => match konst(*k) {
                Some(k @ 0..=31) => fits((r(*x).0 << k, r(*x).1 << k)),
                _ => ALL,
            },
            Some(Op::Binary(ir::BinOp::UShr, x, k)) => match konst(*k) {
                Some(k @ 0..=31) => (r(*x).0 >> k, r(*x).1 >> k),
                _ => ALL,
            },
            Some(Op::Binary(ir::BinOp::IAdd, x, y)) => {
                let (a, b) = (r(*x), r(*y));
                fits((a.0 + b.0, a.1 + b.1))
            }
            Some(Op::Binary(ir::BinOp::ISub, x, y)) => {
                let (a, b) = (r(*x), r(*y));
                // Exact only when it cannot wrap.
                if a.0 >= b.1 {
                    (a.0 - b.1, a.1 - b.0)
                } else {
                    ALL
                }
            }
            Some(Op::Binary(ir::BinOp::IMul, x, y)) => {
                let (a, b) = (r(*x), r(*y));
                fits((a.0 * b.0, a.1.saturating_mul(b.1)))
            }
            Some(Op::Binary(ir::BinOp::UMin, x, y)) => {
                let (a, b) = (r(*x), r(*y));
                (a.0.min(b.0), a.1.min(b.1))
            }
            Some(Op::Binary(ir::BinOp::UMax, x, y)) => {
                let (a, b) = (r(*x), r(*y));
                (a.0.max(b.0), a.1.max(b.1))
            }
            _ => ALL,
        }
    }
    go(sh, d, known, v, 0)
}

/// How many times each value is used, by instructions and by `If` conditions.
pub(crate) fn use_counts(nodes: &[Node]) -> HashMap<Value, u32> {
    let mut uses = HashMap::new();
    for_each_inst(nodes, &mut |i| {
        let mut op = i.op.clone();
        map_operands(&mut op, &mut |v| {
            *uses.entry(v).or_insert(0) += 1;
            v
        });
    });
    fn conds(nodes: &[Node], uses: &mut HashMap<Value, u32>) {
        for n in nodes {
            match n {
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    *uses.entry(*cond).or_insert(0) += 1;
                    conds(then_body, uses);
                    conds(else_body, uses);
                }
                Node::Loop { body } => conds(body, uses),
                _ => {}
            }
        }
    }
    conds(nodes, &mut uses);
    uses
}

/// Replaces uses of values by the map (following chains), in instructions and If conditions.
pub(crate) fn substitute(nodes: &mut [Node], map: &HashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    let resolve = |mut v: Value| {
        let mut n = 0;
        while let Some(w) = map.get(&v) {
            v = *w;
            n += 1;
            if n > map.len() {
                break;
            }
        }
        v
    };
    fn go(nodes: &mut [Node], r: &dyn Fn(Value) -> Value) {
        for n in nodes {
            match n {
                Node::Block(insts) => {
                    for i in insts {
                        map_operands(&mut i.op, &mut |v| r(v));
                    }
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    *cond = r(*cond);
                    go(then_body, r);
                    go(else_body, r);
                }
                Node::Loop { body } => go(body, r),
                _ => {}
            }
        }
    }
    go(nodes, &resolve);
}

/// Where rewritten instructions go: appended to the current list, splitting blocks around
/// control flow the rewrite adds.
pub(crate) struct Out {
    pub nodes: Vec<Node>,
}

impl Out {
    pub fn inst(&mut self, i: Inst) {
        if let Some(Node::Block(b)) = self.nodes.last_mut() {
            b.push(i);
        } else {
            self.nodes.push(Node::Block(vec![i]));
        }
    }

    pub fn node(&mut self, n: Node) {
        self.nodes.push(n);
    }

    pub fn def(&mut self, sh: &mut Shader, ty: ir::Type, op: Op) -> Value {
        let v = sh.new_value(ty);
        self.inst(Inst { dst: Some(v), op });
        v
    }

    pub fn effect(&mut self, op: Op) {
        self.inst(Inst { dst: None, op });
    }
}

pub(crate) type Rewrite<'a> =
    dyn FnMut(&mut Shader, Inst, &mut Out) -> Result<(), CompileError> + 'a;

/// Rebuilds the body, letting `f` replace each instruction with any instructions and nodes.
pub(crate) fn rewrite(sh: &mut Shader, f: &mut Rewrite<'_>) -> Result<(), CompileError> {
    let body = std::mem::take(&mut sh.body);
    let r = rewrite_list(sh, body, f);
    sh.body = r?;
    Ok(())
}

fn rewrite_list(
    sh: &mut Shader,
    nodes: Vec<Node>,
    f: &mut Rewrite<'_>,
) -> Result<Vec<Node>, CompileError> {
    let mut out = Out { nodes: Vec::new() };
    for n in nodes {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    f(sh, i, &mut out)?;
                }
            }
            Node::If {
                cond,
                then_body,
                else_body,
            } => {
                let then_body = rewrite_list(sh, then_body, f)?;
                let else_body = rewrite_list(sh, else_body, f)?;
                out.node(Node::If {
                    cond,
                    then_body,
                    else_body,
                });
            }
            Node::Loop { body } => {
                let body = rewrite_list(sh, body, f)?;
                out.node(Node::Loop { body });
            }
            other => out.node(other),
        }
    }
    Ok(out.nodes)
}

/// The defining operation of every value.
pub(crate) fn defs(sh: &Shader) -> HashMap<Value, Op> {
    let mut m = HashMap::new();
    for_each_inst(&sh.body, &mut |i| {
        if let Some(d) = i.dst {
            m.insert(d, i.op.clone());
        }
    });
    m
}

/// The constant lanes of a value, if it is defined by `Const`.
pub(crate) fn const_of(defs: &HashMap<Value, Op>, v: Value) -> Option<&[u64]> {
    match defs.get(&v) {
        Some(Op::Const(c)) => Some(&c.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
