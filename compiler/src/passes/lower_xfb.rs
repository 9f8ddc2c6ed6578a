//! The capture variant of a vertex shader (VK_EXT_transform_feedback; AGX has no transform
//! feedback hardware). The ICD runs it as a point-list draw with rasterization discarded, of
//! (primitives x vertices per primitive) vertices per instance, before the ordinary draw.
//! Its vertex number k is the k-th vertex of the capture order: corner k % n of primitive
//! k / n, in the order Vulkan's transform feedback chapter writes a topology's vertices
//! (the words `abi::XFB_PRIM_STEP` and `abi::XFB_ORDER` describe the topology). The
//! prologue maps k to the draw's vertex (through the index buffer for indexed draws), which
//! every read of VertexIndex then sees; each store of a captured output also writes the
//! value to its buffer at start + (primitive x n + corner) x stride + offset.
//!
//! Overflow: a primitive is written only if it fits whole in every buffer, and since all
//! primitives of a draw have the same size, the ones written are a prefix: as many as fit
//! in the buffer with the least room. The starting offsets come from GPU memory (a counter
//! buffer or the previous capture draw's end offsets) and vertex 0 of instance 0 writes the
//! end offsets and adds to the query counters; the ICD chains the addresses
//! (`abi::XFB_BUFFER_START_PTR`, `abi::XFB_BUFFER_END_PTR`).

use crate::abi;
use crate::ir::{
    AtomicOp, BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Shader, Space, SysVal, Type, Value,
    XfbInfo, XfbSource, XFB_BUFFERS,
};
use crate::CompileError;

/// Builds instructions into a block (shared with `geometry_prologue`).
pub(super) struct Emit<'s> {
    pub(super) sh: &'s mut Shader,
    pub(super) insts: Vec<Inst>,
}

impl Emit<'_> {
    pub(super) fn def(&mut self, ty: Type, op: Op) -> Value {
        let v = self.sh.new_value(ty);
        self.insts.push(Inst { dst: Some(v), op });
        v
    }

    pub(super) fn effect(&mut self, op: Op) {
        self.insts.push(Inst { dst: None, op });
    }

    pub(super) fn k32(&mut self, x: u32) -> Value {
        self.def(Type::I32, Op::Const(Constant(vec![u64::from(x)])))
    }

    pub(super) fn i(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        self.def(Type::I32, Op::Binary(op, a, b))
    }

    pub(super) fn ik(&mut self, op: BinOp, a: Value, k: u32) -> Value {
        let k = self.k32(k);
        self.i(op, a, k)
    }

    pub(super) fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.def(Type::BOOL, Op::Cmp(op, a, b))
    }

    pub(super) fn select(&mut self, ty: Type, c: Value, a: Value, b: Value) -> Value {
        self.def(ty, Op::Select(c, a, b))
    }

    pub(super) fn and(&mut self, a: Value, b: Value) -> Value {
        let f = self.def(Type::BOOL, Op::Const(Constant(vec![0])));
        self.select(Type::BOOL, a, b, f)
    }

    /// `bit` of the order word is set.
    pub(super) fn flag(&mut self, order: Value, bit: u32) -> Value {
        let b = self.ik(BinOp::And, order, bit);
        let z = self.k32(0);
        self.cmp(CmpOp::INe, b, z)
    }

    pub(super) fn root(&mut self, ty: Type, off: u32) -> Value {
        let a = self.k32(off);
        self.def(
            ty,
            Op::Load {
                space: Space::Root,
                addr: a,
                align: ty.scalar.bits() / 8,
            },
        )
    }

    /// `base` (I64) plus an unsigned or signed I32 byte offset.
    pub(super) fn offset(&mut self, base: Value, off: Value, signed: bool) -> Value {
        let op = if signed { ConvOp::SToS } else { ConvOp::UToU };
        let wide = self.def(Type::I64, Op::Conv(op, off));
        self.def(Type::I64, Op::Binary(BinOp::IAdd, base, wide))
    }

    pub(super) fn take(&mut self) -> Node {
        Node::Block(std::mem::take(&mut self.insts))
    }
}

/// The index at element `rel` (from the draw's first index): the aligned word holding it,
/// then its bits (`mask` keeps an index's bits).
pub(super) fn fetch_index(e: &mut Emit<'_>, rel: Value, index_size: Value, mask: Value) -> Value {
    let ib = e.root(Type::I64, abi::XFB_INDEX_ADDRESS);
    let ib_lo = e.root(Type::I32, abi::XFB_INDEX_ADDRESS);
    let first_index = e.root(Type::I32, abi::XFB_FIRST_INDEX);
    let element = e.i(BinOp::IAdd, rel, first_index);
    let byte = e.i(BinOp::IMul, element, index_size);
    let addr_lo = e.i(BinOp::IAdd, ib_lo, byte);
    let low = e.ik(BinOp::And, addr_lo, 3);
    let word_byte = e.i(BinOp::ISub, byte, low);
    let addr = e.offset(ib, word_byte, true);
    let word = e.def(
        Type::I32,
        Op::Load {
            space: Space::Global,
            addr,
            align: 4,
        },
    );
    let shift = e.ik(BinOp::Shl, low, 3);
    let shifted = e.i(BinOp::UShr, word, shift);
    e.i(BinOp::And, shifted, mask)
}

/// What the rewritten body needs from the prologue.
struct Capture {
    /// The draw's vertex the capture invocation stands for.
    vertex: Value,
    /// This invocation's primitive is written.
    write: Value,
    /// Per buffer: the I64 address of this vertex's record.
    record: [Option<Value>; XFB_BUFFERS],
}

fn prologue(sh: &mut Shader, info: &XfbInfo) -> Result<(Vec<Node>, Capture), CompileError> {
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    let mut nodes = Vec::new();
    let k = e.def(Type::I32, Op::SysVal(SysVal::VertexIndex));
    let inst = e.def(Type::I32, Op::SysVal(SysVal::InstanceIndex));
    let first_instance = e.root(Type::I32, abi::FIRST_INSTANCE_OFFSET);
    let inst = e.i(BinOp::ISub, inst, first_instance);
    let n = e.root(Type::I32, abi::XFB_VERTS_PER_PRIM);
    let prims = e.root(Type::I32, abi::XFB_PRIMS_PER_INSTANCE);
    let instances = e.root(Type::I32, abi::XFB_INSTANCES);
    let step = e.root(Type::I32, abi::XFB_PRIM_STEP);
    let order = e.root(Type::I32, abi::XFB_ORDER);
    let prim = e.i(BinOp::UDiv, k, n);
    let pn = e.i(BinOp::IMul, prim, n);
    let corner = e.i(BinOp::ISub, k, pn);

    // The corner's vertex, relative to the draw's first vertex or index.
    let zero = e.k32(0);
    let odd = e.ik(BinOp::And, prim, 1);
    let odd = e.cmp(CmpOp::INe, odd, zero);
    let not_first = e.cmp(CmpOp::INe, corner, zero);
    let swap = e.flag(order, abi::XFB_ORDER_SWAP_ODD);
    let swap = e.and(swap, odd);
    let swap = e.and(swap, not_first);
    let three = e.k32(3);
    let swapped = e.i(BinOp::ISub, three, corner);
    let c = e.select(Type::I32, swap, swapped, corner);
    let skip = e.flag(order, abi::XFB_ORDER_SKIP_ONE);
    let plus = e.ik(BinOp::IAdd, c, 1);
    let c = e.select(Type::I32, skip, plus, c);
    let every_other = e.flag(order, abi::XFB_ORDER_EVERY_OTHER);
    let twice = e.ik(BinOp::Shl, c, 1);
    let c = e.select(Type::I32, every_other, twice, c);
    let at = e.i(BinOp::IMul, prim, step);
    let rel = e.i(BinOp::IAdd, at, c);
    let fan = e.flag(order, abi::XFB_ORDER_FAN);
    let last = e.k32(2);
    let third = e.cmp(CmpOp::IEq, corner, last);
    let centre = e.and(fan, third);
    let rel = e.select(Type::I32, centre, zero, rel);

    // Primitive restart: walk the indices to the primitive's last vertex (each index that
    // is not the restart index adds a vertex to the open strip or fan, and completes a
    // primitive once the strip holds n; a list starts again after each primitive), and
    // count the primitives.
    let index_size = e.root(Type::I32, abi::XFB_INDEX_SIZE);
    let base_vertex = e.root(Type::I32, abi::XFB_BASE_VERTEX);
    let indexed = e.cmp(CmpOp::INe, index_size, zero);
    let restart = e.root(Type::I32, abi::XFB_RESTART);
    let restart = e.cmp(CmpOp::INe, restart, zero);
    let slot = e.sh.new_var(Type::I32);
    let prims_slot = e.sh.new_var(Type::I32);
    e.effect(Op::StoreVar(slot, rel));
    e.effect(Op::StoreVar(prims_slot, prims));
    let bits = e.ik(BinOp::Shl, index_size, 3);
    let one = e.k32(1);
    let mask = e.i(BinOp::Shl, one, bits);
    let mask = e.ik(BinOp::ISub, mask, 1);
    let four = e.k32(4);
    let whole = e.cmp(CmpOp::UGe, index_size, four);
    let all = e.k32(u32::MAX);
    let mask = e.select(Type::I32, whole, all, mask);
    nodes.push(e.take());
    {
        let count = e.root(Type::I32, abi::XFB_INDEX_COUNT);
        let (i_v, pos_v, seen_v, found_v) = (
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
            e.sh.new_var(Type::I32),
        );
        for v in [i_v, pos_v, seen_v, found_v] {
            e.effect(Op::StoreVar(v, zero));
        }
        let mut walk = vec![e.take()];
        let i = e.def(Type::I32, Op::LoadVar(i_v));
        let done = e.cmp(CmpOp::UGe, i, count);
        let mut body = vec![e.take()];
        body.push(Node::If {
            cond: done,
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
        let list = e.flag(order, abi::XFB_ORDER_LIST);
        let list_full = e.and(list, full);
        let next_pos = e.select(Type::I32, list_full, zero, pos);
        e.effect(Op::StoreVar(pos_v, next_pos));
        let seen = e.def(Type::I32, Op::LoadVar(seen_v));
        let this = e.cmp(CmpOp::IEq, seen, prim);
        let hit = e.and(full, this);
        // The corner's index position: the strip's last n, or (fans) the newest two and
        // the fan's first.
        let j = e.i(BinOp::ISub, pos, n);
        let odd = e.ik(BinOp::And, j, 1);
        let odd = e.cmp(CmpOp::INe, odd, zero);
        let swap = e.flag(order, abi::XFB_ORDER_SWAP_ODD);
        let swap = e.and(swap, odd);
        let swap = e.and(swap, not_first);
        let c = e.select(Type::I32, swap, swapped, corner);
        let first_of_prim = e.i(BinOp::ISub, i, n);
        let first_of_prim = e.ik(BinOp::IAdd, first_of_prim, 1);
        let strip_at = e.i(BinOp::IAdd, first_of_prim, c);
        let newest = e.ik(BinOp::ISub, i, 1);
        let newest = e.i(BinOp::IAdd, newest, corner);
        let fan_first = e.i(BinOp::ISub, i, pos);
        let fan_first = e.ik(BinOp::IAdd, fan_first, 1);
        let fan_at = e.select(Type::I32, third, fan_first, newest);
        let fan_order = e.flag(order, abi::XFB_ORDER_FAN);
        let at = e.select(Type::I32, fan_order, fan_at, strip_at);
        let found = e.def(Type::I32, Op::LoadVar(found_v));
        let found = e.select(Type::I32, hit, at, found);
        e.effect(Op::StoreVar(found_v, found));
        let more = e.ik(BinOp::IAdd, seen, 1);
        let seen = e.select(Type::I32, full, more, seen);
        e.effect(Op::StoreVar(seen_v, seen));
        let next = e.ik(BinOp::IAdd, i, 1);
        e.effect(Op::StoreVar(i_v, next));
        body.push(e.take());
        walk.push(Node::Loop { body });
        let found = e.def(Type::I32, Op::LoadVar(found_v));
        let seen = e.def(Type::I32, Op::LoadVar(seen_v));
        e.effect(Op::StoreVar(slot, found));
        e.effect(Op::StoreVar(prims_slot, seen));
        walk.push(e.take());
        nodes.push(Node::If {
            cond: restart,
            then_body: walk,
            else_body: Vec::new(),
        });
    }
    let rel = e.def(Type::I32, Op::LoadVar(slot));
    let prims = e.def(Type::I32, Op::LoadVar(prims_slot));
    nodes.push(e.take());

    // Through the index buffer.
    let index = fetch_index(&mut e, rel, index_size, mask);
    e.effect(Op::StoreVar(slot, index));
    nodes.push(Node::If {
        cond: indexed,
        then_body: vec![e.take()],
        else_body: Vec::new(),
    });
    let v = e.def(Type::I32, Op::LoadVar(slot));
    let vertex = e.i(BinOp::IAdd, v, base_vertex);

    // How many primitives are written: all of them, or as many as fit in every buffer.
    let global_prim = e.i(BinOp::IMul, inst, prims);
    let global_prim = e.i(BinOp::IAdd, global_prim, prim);
    let total = e.i(BinOp::IMul, prims, instances);
    let mut written = total;
    let mut starts = [None; XFB_BUFFERS];
    for (b, start_slot) in starts.iter_mut().enumerate() {
        if !info.used(b) {
            continue;
        }
        let words = abi::xfb_buffer_offset(b as u32);
        let ptr = e.root(Type::I64, words + abi::XFB_BUFFER_START_PTR);
        let start = e.def(
            Type::I32,
            Op::Load {
                space: Space::Global,
                addr: ptr,
                align: 4,
            },
        );
        let size = e.root(Type::I32, words + abi::XFB_BUFFER_SIZE);
        let room = e.cmp(CmpOp::UGe, size, start);
        let left = e.i(BinOp::ISub, size, start);
        let left = e.select(Type::I32, room, left, zero);
        let per_prim = e.ik(BinOp::IMul, n, info.strides[b]);
        let fit = e.i(BinOp::UDiv, left, per_prim);
        written = e.i(BinOp::UMin, written, fit);
        *start_slot = Some(start);
    }
    let write = e.cmp(CmpOp::ULt, global_prim, written);
    let vert_no = e.i(BinOp::IMul, global_prim, n);
    let vert_no = e.i(BinOp::IAdd, vert_no, corner);
    let mut record = [None; XFB_BUFFERS];
    for b in 0..XFB_BUFFERS {
        let Some(start) = starts[b] else { continue };
        let base = e.root(
            Type::I64,
            abi::xfb_buffer_offset(b as u32) + abi::XFB_BUFFER_ADDRESS,
        );
        let off = e.ik(BinOp::IMul, vert_no, info.strides[b]);
        let off = e.i(BinOp::IAdd, start, off);
        record[b] = Some(e.offset(base, off, false));
    }

    // Vertex 0 of instance 0 writes the end offsets and counts the primitives.
    let first_vertex = e.cmp(CmpOp::IEq, k, zero);
    let first_instance = e.cmp(CmpOp::IEq, inst, zero);
    let leader = e.and(first_vertex, first_instance);
    nodes.push(e.take());
    for (b, start) in starts.iter().enumerate() {
        let Some(start) = *start else { continue };
        let ptr = e.root(
            Type::I64,
            abi::xfb_buffer_offset(b as u32) + abi::XFB_BUFFER_END_PTR,
        );
        let bytes = e.i(BinOp::IMul, written, n);
        let bytes = e.ik(BinOp::IMul, bytes, info.strides[b]);
        let end = e.i(BinOp::IAdd, start, bytes);
        e.effect(Op::Store {
            space: Space::Global,
            addr: ptr,
            value: end,
            align: 4,
        });
    }
    let q = e.root(Type::I64, abi::XFB_QUERY_ADDRESS);
    e.def(
        Type::I32,
        Op::Atomic {
            space: Space::Global,
            op: AtomicOp::Add,
            addr: q,
            value: written,
            cmp: None,
        },
    );
    let q_needed = e.root(Type::I64, abi::XFB_QUERY_NEEDED_ADDRESS);
    e.def(
        Type::I32,
        Op::Atomic {
            space: Space::Global,
            op: AtomicOp::Add,
            addr: q_needed,
            value: total,
            cmp: None,
        },
    );
    nodes.push(Node::If {
        cond: leader,
        then_body: vec![e.take()],
        else_body: Vec::new(),
    });
    Ok((
        nodes,
        Capture {
            vertex,
            write,
            record,
        },
    ))
}

/// The stores that capture one output value (`lanes` from `component` on).
fn capture_stores(
    sh: &mut Shader,
    info: &XfbInfo,
    cap: &Capture,
    source: XfbSource,
    builtin_component: u8,
    value: Value,
) -> Vec<Inst> {
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    let ty = e.sh.ty(value);
    let (first, key) = match source {
        XfbSource::Location {
            location,
            component,
        } => (
            component,
            XfbSource::Location {
                location,
                component: 0,
            },
        ),
        XfbSource::Builtin(b) => (builtin_component, XfbSource::Builtin(b)),
    };
    for lane in 0..ty.lanes {
        let comp = first + lane;
        for s in &info.slots {
            let (slot_key, slot_first) = match s.source {
                XfbSource::Location {
                    location,
                    component,
                } => (
                    XfbSource::Location {
                        location,
                        component: 0,
                    },
                    component,
                ),
                XfbSource::Builtin(b) => (XfbSource::Builtin(b), 0),
            };
            if slot_key != key || comp < slot_first || comp >= slot_first + s.lanes {
                continue;
            }
            let Some(record) = cap.record[usize::from(s.buffer)] else {
                continue;
            };
            let scalar = if ty.lanes > 1 {
                e.def(Type { lanes: 1, ..ty }, Op::Extract(value, lane))
            } else {
                value
            };
            let at = e.k32(s.offset + 4 * u32::from(comp - slot_first));
            let addr = e.offset(record, at, false);
            e.effect(Op::Store {
                space: Space::Global,
                addr,
                value: scalar,
                align: 4,
            });
        }
    }
    e.insts
}

/// Makes `sh` (a vertex shader after `lower_vertex_input`) the capture variant for `info`.
pub fn lower_xfb(sh: &mut Shader, info: &XfbInfo) -> Result<(), CompileError> {
    for s in &info.slots {
        let stride = info.strides[usize::from(s.buffer)];
        if stride == 0 || !stride.is_multiple_of(4) || !s.offset.is_multiple_of(4) {
            return Err(CompileError::Unsupported(format!(
                "transform feedback output at offset {} of buffer {} (stride {stride})",
                s.offset, s.buffer
            )));
        }
    }
    let (mut pro, cap) = prologue(sh, info)?;
    super::rewrite(sh, &mut |sh, inst, out| {
        let (source, builtin_component, value) = match inst.op {
            Op::SysVal(SysVal::VertexIndex) => {
                out.inst(Inst {
                    dst: inst.dst,
                    op: Op::Copy(cap.vertex),
                });
                return Ok(());
            }
            Op::StoreOutput {
                location,
                component,
                value,
            } => (
                XfbSource::Location {
                    location,
                    component,
                },
                0,
                value,
            ),
            Op::StoreBuiltin {
                builtin,
                component,
                value,
            } => (XfbSource::Builtin(builtin), component, value),
            _ => {
                out.inst(inst);
                return Ok(());
            }
        };
        out.inst(inst);
        let stores = capture_stores(sh, info, &cap, source, builtin_component, value);
        if !stores.is_empty() {
            out.node(Node::If {
                cond: cap.write,
                then_body: vec![Node::Block(stores)],
                else_body: Vec::new(),
            });
        }
        Ok(())
    })?;
    pro.append(&mut sh.body);
    sh.body = pro;
    super::lower_int_div(sh)?;
    Ok(())
}
