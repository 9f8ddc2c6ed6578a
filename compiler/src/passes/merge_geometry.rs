//! The input half of the geometry draw's program (docs/geometry.md section 3.1): the vertex
//! shader runs once per vertex of the input primitive ahead of the geometry shader's body,
//! writing the outputs the geometry shader reads into per-vertex scratch arrays, and every
//! `LoadPerVertex` becomes a scratch load from them.
//!
//! Both shaders come in the form `run_all` leaves (scalar values; the vertex shader's
//! attributes already fetched by `lower_vertex_input` through `SysVal::VertexIndex`). The
//! caller's prologue gives each corner's vertex index, which every `VertexIndex` read of that
//! corner's copy of the vertex shader sees. The result is still a geometry shader: its output
//! stores, `EmitVertex` and `EndPrimitive` are the output half's business, and it needs the
//! cleanup passes (`copy_prop`, `dce`) afterwards.

use std::collections::HashMap;

use crate::ir::{
    BinOp, Constant, GraphicsShader, Inst, Node, Op, PerVertexSlot, Shader, Space, Stage, SysVal,
    Type, Value, Var,
};
use crate::CompileError;

fn internal(what: impl Into<String>) -> CompileError {
    CompileError::Internal(what.into())
}

/// The (slot, component) pairs the geometry shader reads, in first-read order.
fn read_slots(ns: &[Node], out: &mut Vec<(PerVertexSlot, u8)>) {
    for n in ns {
        match n {
            Node::Block(is) => {
                for i in is {
                    if let Op::LoadPerVertex {
                        slot, component, ..
                    } = i.op
                    {
                        if !out.contains(&(slot, component)) {
                            out.push((slot, component));
                        }
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                read_slots(then_body, out);
                read_slots(else_body, out);
            }
            Node::Loop { body } => read_slots(body, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// Whether a `Return` sits inside one of the vertex shader's own loops (a `Break` would
/// leave only that loop).
fn returns_in_loop(ns: &[Node], in_loop: bool) -> bool {
    ns.iter().any(|n| match n {
        Node::Return => in_loop,
        Node::If {
            then_body,
            else_body,
            ..
        } => returns_in_loop(then_body, in_loop) || returns_in_loop(else_body, in_loop),
        Node::Loop { body } => returns_in_loop(body, true),
        _ => false,
    })
}

/// One copy of the vertex shader's body inside the merged shader.
struct VsCopy<'a> {
    vs: &'a Shader,
    out: &'a mut Shader,
    values: HashMap<Value, Value>,
    vars: Vec<Var>,
    /// The corner's vertex index, what `VertexIndex` reads.
    vertex: Value,
    /// Scratch offset of each array, with its (slot, component).
    arrays: &'a [((PerVertexSlot, u8), u32)],
    /// The corner (its word in every array).
    corner: u32,
    /// Where the vertex shader's own scratch starts.
    scratch_base: u32,
}

impl VsCopy<'_> {
    fn val(&self, v: Value) -> Result<Value, CompileError> {
        self.values.get(&v).copied().ok_or_else(|| {
            internal(format!(
                "vertex shader value %{} used before its definition",
                v.0
            ))
        })
    }

    fn def(&mut self, insts: &mut Vec<Inst>, ty: Type, op: Op) -> Value {
        let v = self.out.new_value(ty);
        insts.push(Inst { dst: Some(v), op });
        v
    }

    fn k32(&mut self, insts: &mut Vec<Inst>, x: u32) -> Value {
        self.def(insts, Type::I32, Op::Const(Constant(vec![u64::from(x)])))
    }

    fn nodes(&mut self, ns: &[Node]) -> Result<Vec<Node>, CompileError> {
        let mut out = Vec::with_capacity(ns.len());
        for n in ns {
            out.push(match n {
                Node::Block(is) => Node::Block(self.block(is)?),
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => Node::If {
                    cond: self.val(*cond)?,
                    then_body: self.nodes(then_body)?,
                    else_body: self.nodes(else_body)?,
                },
                Node::Loop { body } => Node::Loop {
                    body: self.nodes(body)?,
                },
                // The copy sits in a Loop of its own (see `merge_vertex_inputs`).
                Node::Return => Node::Break,
                Node::Break => Node::Break,
                Node::Continue => Node::Continue,
            });
        }
        Ok(out)
    }

    fn block(&mut self, is: &[Inst]) -> Result<Vec<Inst>, CompileError> {
        let mut out = Vec::with_capacity(is.len());
        for i in is {
            let mut op = i.op.clone();
            match &mut op {
                Op::SysVal(SysVal::VertexIndex) => {
                    let d = i
                        .dst
                        .ok_or_else(|| internal("VertexIndex without a result"))?;
                    let v = self.def(&mut out, Type::I32, Op::Copy(self.vertex));
                    self.values.insert(d, v);
                    continue;
                }
                Op::LoadInput { .. } => {
                    return Err(internal(
                        "merge_vertex_inputs: vertex attributes must be lowered first",
                    ))
                }
                Op::LoadPerVertex { .. } | Op::EmitVertex | Op::EndPrimitive => {
                    return Err(internal("geometry operation in the vertex shader"))
                }
                Op::StoreOutput {
                    location,
                    component,
                    value,
                } => {
                    let key = (PerVertexSlot::Location(*location), *component);
                    self.store_slot(&mut out, key, *value)?;
                    continue;
                }
                Op::StoreBuiltin {
                    builtin,
                    component,
                    value,
                } => {
                    let key = (PerVertexSlot::Builtin(*builtin), *component);
                    self.store_slot(&mut out, key, *value)?;
                    continue;
                }
                _ => {}
            }
            let mut bad = None;
            super::map_operands(&mut op, &mut |v| match self.values.get(&v) {
                Some(n) => *n,
                None => {
                    bad = Some(v);
                    v
                }
            });
            if let Some(v) = bad {
                return Err(internal(format!(
                    "vertex shader value %{} used before its definition",
                    v.0
                )));
            }
            match &mut op {
                Op::LoadVar(v) | Op::StoreVar(v, _) => *v = self.vars[v.0 as usize],
                Op::Load {
                    space: Space::Scratch,
                    addr,
                    ..
                }
                | Op::Store {
                    space: Space::Scratch,
                    addr,
                    ..
                }
                | Op::Atomic {
                    space: Space::Scratch,
                    addr,
                    ..
                } if self.scratch_base != 0 => {
                    let base = self.k32(&mut out, self.scratch_base);
                    *addr = self.def(&mut out, Type::I32, Op::Binary(BinOp::IAdd, *addr, base));
                }
                _ => {}
            }
            let dst = match i.dst {
                Some(d) => {
                    let n = self.out.new_value(self.vs.ty(d));
                    self.values.insert(d, n);
                    Some(n)
                }
                None => None,
            };
            out.push(Inst { dst, op });
        }
        Ok(out)
    }

    /// A vertex shader output: into its per-vertex array if the geometry shader reads it.
    fn store_slot(
        &mut self,
        out: &mut Vec<Inst>,
        key: (PerVertexSlot, u8),
        value: Value,
    ) -> Result<(), CompileError> {
        let Some(&(_, at)) = self.arrays.iter().find(|(k, _)| *k == key) else {
            return Ok(());
        };
        let value = self.val(value)?;
        if !self.out.ty(value).is_scalar() || self.out.ty(value).scalar.bits() != 32 {
            return Err(internal(
                "merge_vertex_inputs: vertex outputs must be 32-bit scalars",
            ));
        }
        let addr = self.k32(out, at + 4 * self.corner);
        out.push(Inst {
            dst: None,
            op: Op::Store {
                space: Space::Scratch,
                addr,
                value,
                align: 4,
            },
        });
        Ok(())
    }
}

/// Replaces every `LoadPerVertex` with a load from its scratch array.
fn rewrite_reads(
    sh: &mut Shader,
    ns: &mut [Node],
    arrays: &[((PerVertexSlot, u8), u32)],
    last: u32,
) -> Result<(), CompileError> {
    for n in ns {
        match n {
            Node::Block(is) => {
                let mut out = Vec::with_capacity(is.len());
                for i in std::mem::take(is) {
                    let Op::LoadPerVertex {
                        vertex,
                        slot,
                        component,
                    } = i.op
                    else {
                        out.push(i);
                        continue;
                    };
                    let dst = i
                        .dst
                        .ok_or_else(|| internal("LoadPerVertex without a result"))?;
                    if !sh.ty(dst).is_scalar() {
                        return Err(internal(
                            "merge_vertex_inputs: per-vertex reads must be scalar",
                        ));
                    }
                    let at = arrays
                        .iter()
                        .find(|(k, _)| *k == (slot, component))
                        .map(|(_, a)| *a)
                        .ok_or_else(|| internal("per-vertex read without an array"))?;
                    let mut def = |ty: Type, op: Op| {
                        let v = sh.new_value(ty);
                        out.push(Inst { dst: Some(v), op });
                        v
                    };
                    // An index past the primitive reads an undefined value; clamping keeps the
                    // access inside the array.
                    let max = def(Type::I32, Op::Const(Constant(vec![u64::from(last)])));
                    let k = def(Type::I32, Op::Binary(BinOp::UMin, vertex, max));
                    let two = def(Type::I32, Op::Const(Constant(vec![2])));
                    let off = def(Type::I32, Op::Binary(BinOp::Shl, k, two));
                    let base = def(Type::I32, Op::Const(Constant(vec![u64::from(at)])));
                    let addr = def(Type::I32, Op::Binary(BinOp::IAdd, off, base));
                    out.push(Inst {
                        dst: Some(dst),
                        op: Op::Load {
                            space: Space::Scratch,
                            addr,
                            align: 4,
                        },
                    });
                }
                *is = out;
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                rewrite_reads(sh, then_body, arrays, last)?;
                rewrite_reads(sh, else_body, arrays, last)?;
            }
            Node::Loop { body } => rewrite_reads(sh, body, arrays, last)?,
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
    Ok(())
}

/// The prologue the caller builds in the merged shader: nodes that run first, and the vertex
/// index of each corner of the input primitive (I32 values they define).
pub type CornerPrologue<'p> =
    &'p mut dyn FnMut(&mut Shader) -> Result<(Vec<Node>, Vec<Value>), CompileError>;

/// Merges vertex shader `vs` (run once per input vertex) into geometry shader `gs` (see the
/// module documentation). Scratch: the geometry shader's own first, then the vertex
/// shader's (shared by the copies, which run one after another), then the arrays.
pub fn merge_vertex_inputs(
    vs: &GraphicsShader,
    gs: &GraphicsShader,
    prologue: CornerPrologue<'_>,
) -> Result<GraphicsShader, CompileError> {
    let info = match (vs.stage, gs.stage, gs.geometry) {
        (Stage::Vertex, Stage::Geometry, Some(info)) => info,
        _ => {
            return Err(internal(format!(
                "merge_vertex_inputs of a {:?} and a {:?} shader",
                vs.stage, gs.stage
            )))
        }
    };
    let n = info.input.vertices();
    if returns_in_loop(&vs.shader.body, false) {
        return Err(CompileError::Unsupported(
            "a vertex shader that returns from inside a loop, before a geometry shader".into(),
        ));
    }
    let mut keys = Vec::new();
    read_slots(&gs.shader.body, &mut keys);
    let mut out = gs.clone();
    let sh = &mut out.shader;
    let vs_base = sh.scratch_size.next_multiple_of(4);
    let arrays_base = vs_base
        .checked_add(vs.shader.scratch_size.next_multiple_of(4))
        .ok_or_else(|| CompileError::Limit("scratch".into()))?;
    let arrays: Vec<((PerVertexSlot, u8), u32)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, arrays_base + 4 * n * i as u32))
        .collect();
    sh.scratch_size = arrays_base + 4 * n * keys.len() as u32;
    if sh.scratch_size >= 1 << 28 {
        return Err(CompileError::Limit("scratch".into()));
    }
    let mut body = std::mem::take(&mut sh.body);
    rewrite_reads(sh, &mut body, &arrays, n - 1)?;

    let (mut head, corners) = prologue(sh)?;
    if corners.len() != n as usize {
        return Err(internal(format!(
            "prologue gave {} corners for {n}",
            corners.len()
        )));
    }
    for (k, vertex) in corners.into_iter().enumerate() {
        let vars = vs.shader.var_types.iter().map(|t| sh.new_var(*t)).collect();
        let mut copy = VsCopy {
            vs: &vs.shader,
            out: sh,
            values: HashMap::new(),
            vars,
            vertex,
            arrays: &arrays,
            corner: k as u32,
            scratch_base: vs_base,
        };
        let mut nodes = copy.nodes(&vs.shader.body)?;
        // Every copy runs to its end: a Return of the vertex shader leaves the Loop around it.
        nodes.push(Node::Break);
        head.push(Node::Loop { body: nodes });
    }
    head.extend(body);
    sh.body = head;
    Ok(out)
}
