//! The geometry draw's prologue (docs/geometry.md section 3.1, step 4). The geometry draw
//! is a point list of (primitives x GS invocations) vertices per instance; vertex number k
//! stands for GS invocation `k % invocations` of input primitive `k / invocations`. The
//! prologue finds that primitive's vertices with the capture draw's words (`abi::XFB_*`:
//! vertices per primitive window, step, order bits, first index, index buffer and restart),
//! in the vertex order the spec gives each topology, adjacency topologies included.
//!
//! Under primitive restart it walks the index buffer, as the capture prologue does. The ICD
//! sizes the draw for the primitives there would be without restarts, so an invocation whose
//! primitive does not exist returns at once; the output half then pads its index region.

use super::lower_xfb::{fetch_index, Emit};
use crate::abi;
use crate::ir::{BinOp, CmpOp, Constant, GeometryInfo, Node, Op, Shader, SysVal, Type, Value};
use crate::CompileError;

/// What the merged program takes from the prologue.
pub struct GeometryPrologue {
    /// Nodes that run first; they end with a `Return` for invocations without a primitive.
    pub head: Vec<Node>,
    /// The vertex index of each corner of the input primitive.
    pub corners: Vec<Value>,
    /// gl_PrimitiveIDIn: the primitive within its instance.
    pub primitive: Value,
    /// gl_InvocationID.
    pub invocation: Value,
    /// I32, 0 for an invocation without a primitive (the head returns for those).
    pub valid: Value,
}

/// Builds the prologue in `sh` for a geometry shader with `info`.
pub fn corners(sh: &mut Shader, info: &GeometryInfo) -> Result<GeometryPrologue, CompileError> {
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    let mut head = Vec::new();
    let k = e.def(Type::I32, Op::SysVal(SysVal::VertexIndex));
    let invocations = e.k32(info.invocations);
    let prim = e.i(BinOp::UDiv, k, invocations);
    let pk = e.i(BinOp::IMul, prim, invocations);
    let invocation = e.i(BinOp::ISub, k, pk);
    let n = e.root(Type::I32, abi::XFB_VERTS_PER_PRIM);
    let step = e.root(Type::I32, abi::XFB_PRIM_STEP);
    let order = e.root(Type::I32, abi::XFB_ORDER);
    let prims = e.root(Type::I32, abi::XFB_PRIMS_PER_INSTANCE);
    let zero = e.k32(0);
    let one = e.k32(1);

    // Without restart: primitive p's window starts at p x step, and it is the p-th of one
    // strip.
    let start_v = e.sh.new_var(Type::I32);
    let seg_v = e.sh.new_var(Type::I32);
    let last_v = e.sh.new_var(Type::I32);
    let valid_v = e.sh.new_var(Type::I32);
    let start = e.i(BinOp::IMul, prim, step);
    e.effect(Op::StoreVar(start_v, start));
    e.effect(Op::StoreVar(seg_v, prim));
    let final_prim = e.ik(BinOp::ISub, prims, 1);
    let is_last = e.cmp(CmpOp::IEq, prim, final_prim);
    let is_last = e.select(Type::I32, is_last, one, zero);
    e.effect(Op::StoreVar(last_v, is_last));
    e.effect(Op::StoreVar(valid_v, one));

    let index_size = e.root(Type::I32, abi::XFB_INDEX_SIZE);
    let base_vertex = e.root(Type::I32, abi::XFB_BASE_VERTEX);
    let indexed = e.cmp(CmpOp::INe, index_size, zero);
    let restart = e.root(Type::I32, abi::XFB_RESTART);
    let restart = e.cmp(CmpOp::INe, restart, zero);
    let bits = e.ik(BinOp::Shl, index_size, 3);
    let mask = e.i(BinOp::Shl, one, bits);
    let mask = e.ik(BinOp::ISub, mask, 1);
    let four = e.k32(4);
    let whole = e.cmp(CmpOp::UGe, index_size, four);
    let all = e.k32(u32::MAX);
    let mask = e.select(Type::I32, whole, all, mask);
    head.push(e.take());

    // With restart: walk the indices. A strip (a run between restarts) of length L holds
    // a primitive ending at each position pos >= n with (pos - n) % step == 0: lists
    // (step = n) and strips alike.
    {
        let count = e.root(Type::I32, abi::XFB_INDEX_COUNT);
        let (i_v, pos_v, seen_v, next_v) = (
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
        );
        for v in [i_v, pos_v, seen_v, next_v, valid_v] {
            e.effect(Op::StoreVar(v, zero));
        }
        let mut walk = vec![e.take()];
        let i = e.def(Type::I32, Op::LoadVar(i_v));
        let done = e.cmp(CmpOp::UGe, i, count);
        // Past the primitive after ours, nothing changes any more.
        let seen = e.def(Type::I32, Op::LoadVar(seen_v));
        let beyond = e.ik(BinOp::IAdd, prim, 1);
        let beyond = e.cmp(CmpOp::UGt, seen, beyond);
        let yes = e.def(Type::BOOL, Op::Const(Constant(vec![1])));
        let stop = e.select(Type::BOOL, done, yes, beyond);
        let mut body = vec![e.take()];
        body.push(Node::If {
            cond: stop,
            then_body: vec![Node::Break],
            else_body: Vec::new(),
        });
        let idx = fetch_index(&mut e, i, index_size, mask);
        let is_restart = e.cmp(CmpOp::IEq, idx, mask);
        let pos = e.def(Type::I32, Op::LoadVar(pos_v));
        let pos1 = e.ik(BinOp::IAdd, pos, 1);
        let pos = e.select(Type::I32, is_restart, zero, pos1);
        e.effect(Op::StoreVar(pos_v, pos));
        let full = e.cmp(CmpOp::UGe, pos, n);
        let past = e.i(BinOp::ISub, pos, n);
        let j = e.i(BinOp::UDiv, past, step);
        let js = e.i(BinOp::IMul, j, step);
        let on_step = e.cmp(CmpOp::IEq, js, past);
        let complete = e.and(full, on_step);
        let this = e.cmp(CmpOp::IEq, seen, prim);
        let hit = e.and(complete, this);
        let window = e.i(BinOp::ISub, i, n);
        let window = e.ik(BinOp::IAdd, window, 1);
        let old = e.def(Type::I32, Op::LoadVar(start_v));
        let s = e.select(Type::I32, hit, window, old);
        e.effect(Op::StoreVar(start_v, s));
        let old = e.def(Type::I32, Op::LoadVar(seg_v));
        let s = e.select(Type::I32, hit, j, old);
        e.effect(Op::StoreVar(seg_v, s));
        let old = e.def(Type::I32, Op::LoadVar(valid_v));
        let s = e.select(Type::I32, hit, one, old);
        e.effect(Op::StoreVar(valid_v, s));
        // The next primitive in the same strip makes ours not the strip's last.
        let after = e.ik(BinOp::IAdd, prim, 1);
        let next = e.cmp(CmpOp::IEq, seen, after);
        let same_strip = e.cmp(CmpOp::UGt, pos, n);
        let follows = e.and(complete, next);
        let follows = e.and(follows, same_strip);
        let old = e.def(Type::I32, Op::LoadVar(next_v));
        let s = e.select(Type::I32, follows, one, old);
        e.effect(Op::StoreVar(next_v, s));
        let more = e.ik(BinOp::IAdd, seen, 1);
        let seen = e.select(Type::I32, complete, more, seen);
        e.effect(Op::StoreVar(seen_v, seen));
        let next_i = e.ik(BinOp::IAdd, i, 1);
        e.effect(Op::StoreVar(i_v, next_i));
        body.push(e.take());
        walk.push(Node::Loop { body });
        let followed = e.def(Type::I32, Op::LoadVar(next_v));
        let last = e.i(BinOp::Xor, followed, one);
        e.effect(Op::StoreVar(last_v, last));
        walk.push(e.take());
        head.push(Node::If {
            cond: restart,
            then_body: walk,
            else_body: Vec::new(),
        });
    }
    let valid = e.def(Type::I32, Op::LoadVar(valid_v));
    let invalid = e.cmp(CmpOp::IEq, valid, zero);
    head.push(e.take());
    head.push(Node::If {
        cond: invalid,
        then_body: vec![Node::Return],
        else_body: Vec::new(),
    });

    let start = e.def(Type::I32, Op::LoadVar(start_v));
    let seg = e.def(Type::I32, Op::LoadVar(seg_v));
    let last = e.def(Type::I32, Op::LoadVar(last_v));
    let last = e.cmp(CmpOp::INe, last, zero);
    let odd = e.ik(BinOp::And, seg, 1);
    let odd = e.cmp(CmpOp::INe, odd, zero);
    let first = e.cmp(CmpOp::IEq, seg, zero);
    let swap = e.flag(order, abi::XFB_ORDER_SWAP_ODD);
    let fan = e.flag(order, abi::XFB_ORDER_FAN);
    let adjacency = e.flag(order, abi::GEOMETRY_ORDER_STRIP_ADJACENCY);
    let last_vertex = e.flag(order, abi::GEOMETRY_ORDER_LAST_VERTEX);
    let mut corners = Vec::new();
    let slot = e.sh.new_var(Type::I32);
    for c in 0..info.input.vertices() {
        let off = corner_offset(
            &mut e,
            c,
            [swap, fan, adjacency, last_vertex],
            [odd, first, last],
            seg,
        );
        let rel = e.i(BinOp::IAdd, start, off);
        e.effect(Op::StoreVar(slot, rel));
        head.push(e.take());
        let index = fetch_index(&mut e, rel, index_size, mask);
        e.effect(Op::StoreVar(slot, index));
        head.push(Node::If {
            cond: indexed,
            then_body: vec![e.take()],
            else_body: Vec::new(),
        });
        let v = e.def(Type::I32, Op::LoadVar(slot));
        corners.push(e.i(BinOp::IAdd, v, base_vertex));
    }
    head.push(e.take());
    // gl_PrimitiveIDIn counts the primitives of the instance across restarts: `prim`.
    Ok(GeometryPrologue {
        head,
        corners,
        primitive: prim,
        invocation,
        valid,
    })
}

/// The offset of corner `c` from its primitive's window start. With the last vertex
/// provoking (`abi::GEOMETRY_ORDER_LAST_VERTEX`), strips and fans keep that vertex in place
/// instead of the first, as OpenGL orders them (and Mesa's AGX drivers, which Zink's GL
/// tests expect): odd strip triangles swap their first two corners, fan triangle j is
/// (0, j + 1, j + 2), and odd strip-with-adjacency primitives after the first rotate their
/// six corners by four.
fn corner_offset(
    e: &mut Emit<'_>,
    c: u32,
    [swap, fan, adjacency, last_vertex]: [Value; 4],
    [odd, first, last]: [Value; 3],
    seg: Value,
) -> Value {
    let plain = e.k32(c);
    // Triangle strips: odd triangles swap the two corners that do not provoke.
    // (Only triangles, corners 0 to 2, have the swap flag.)
    let strip = if c < 3 {
        let first_mode = e.k32(if c == 0 { 0 } else { 3 - c });
        let last_mode = e.k32(if c == 2 { 2 } else { 1 - c });
        let swapped = e.select(Type::I32, last_vertex, last_mode, first_mode);
        let s = e.and(swap, odd);
        e.select(Type::I32, s, swapped, plain)
    } else {
        plain
    };
    // Fans: triangle j is (j + 1, j + 2, 0), or (0, j + 1, j + 2) with the last vertex
    // provoking; the window starts at j.
    let hub = {
        let z = e.k32(0);
        e.i(BinOp::ISub, z, seg)
    };
    let fan_off = match c {
        0 => {
            let one = e.k32(1);
            e.select(Type::I32, last_vertex, hub, one)
        }
        1 => {
            let (one, two) = (e.k32(1), e.k32(2));
            e.select(Type::I32, last_vertex, one, two)
        }
        _ => {
            let two = e.k32(2);
            e.select(Type::I32, last_vertex, two, hub)
        }
    };
    let r = e.select(Type::I32, fan, fan_off, strip);
    // Triangle strips with adjacency: the spec's table (first vertex provoking), whose
    // corner (c + 4) % 6 odd primitives after the first take with the last vertex provoking.
    let yes = e.def(Type::BOOL, Op::Const(Constant(vec![1])));
    let even_or_first = e.select(Type::BOOL, odd, first, yes);
    let own = strip_adjacency_offset(e, c, [odd, first, last, even_or_first]);
    let rotated = strip_adjacency_offset(e, (c + 4) % 6, [odd, first, last, even_or_first]);
    let no = e.def(Type::BOOL, Op::Const(Constant(vec![0])));
    let rotate = e.select(Type::BOOL, even_or_first, no, last_vertex);
    let adj = e.select(Type::I32, rotate, rotated, own);
    e.select(Type::I32, adjacency, adj, r)
}

/// Corner `c`'s offset in the spec's table of triangle strips with adjacency.
fn strip_adjacency_offset(
    e: &mut Emit<'_>,
    c: u32,
    [odd, first, last, even_or_first]: [Value; 4],
) -> Value {
    let k = |e: &mut Emit<'_>, x: i32| e.k32(x as u32);
    match c {
        0 => k(e, 0),
        1 => {
            let a = k(e, -2);
            let b = k(e, 3);
            let even_off = e.select(Type::I32, odd, b, a);
            let one = k(e, 1);
            e.select(Type::I32, first, one, even_off)
        }
        2 => {
            let a = k(e, 2);
            let b = k(e, 4);
            e.select(Type::I32, even_or_first, a, b)
        }
        3 => {
            let a = k(e, 5);
            let b = k(e, 6);
            e.select(Type::I32, last, a, b)
        }
        4 => {
            let a = k(e, 4);
            let b = k(e, 2);
            e.select(Type::I32, even_or_first, a, b)
        }
        _ => {
            let a = k(e, 3);
            let b = k(e, -2);
            e.select(Type::I32, even_or_first, a, b)
        }
    }
}

/// The flat invocation index the output half numbers records and index regions by:
/// (instance x primitives + primitive) x invocations + GS invocation, the instance counted
/// from the draw's first.
pub fn flat_invocation(
    sh: &mut Shader,
    info: &GeometryInfo,
) -> Result<(Vec<Node>, Value), CompileError> {
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    let k = e.def(Type::I32, Op::SysVal(SysVal::VertexIndex));
    let inst = e.def(Type::I32, Op::SysVal(SysVal::InstanceIndex));
    let first_instance = e.root(Type::I32, abi::FIRST_INSTANCE_OFFSET);
    let inst = e.i(BinOp::ISub, inst, first_instance);
    let prims = e.root(Type::I32, abi::XFB_PRIMS_PER_INSTANCE);
    let per_instance = e.ik(BinOp::IMul, prims, info.invocations);
    let before = e.i(BinOp::IMul, inst, per_instance);
    let inv = e.i(BinOp::IAdd, before, k);
    Ok((vec![e.take()], inv))
}
