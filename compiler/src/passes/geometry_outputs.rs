//! The output half of the geometry draw's program (docs/geometry.md section 3.1, step 3):
//! a geometry shader's output stores, `EmitVertex` and `EndPrimitive` become writes of
//! vertex records and of an index list in device memory.
//!
//! Invocation `inv` (the flat (primitive, instance, GS invocation) index the caller's
//! prologue gives) owns records `inv * max_vertices ..` and index slots
//! `inv * 2 * max_vertices ..`: at most one restart follows each emitted vertex, so the
//! region never overflows, and no invocation needs to know how much another wrote (no
//! atomics; the rasterization draw reads the regions in invocation order, which is the order
//! the spec gives the output primitives).

use crate::abi;
use crate::ir::{
    AtomicOp, BinOp, CmpOp, Constant, ConvOp, GraphicsShader, Inst, Node, Op, OutputPrimitive,
    PerVertexSlot, Shader, Space, Stage, Type, Value, Var,
};
use crate::CompileError;

/// Where each output of one vertex record lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeometryRecord {
    /// Byte offset of each (output, component) the geometry shader writes, 32 bits each.
    pub slots: Vec<((PerVertexSlot, u8), u32)>,
    /// Bytes per record.
    pub stride: u32,
}

fn internal(what: impl Into<String>) -> CompileError {
    CompileError::Internal(what.into())
}

fn output_key(op: &Op) -> Option<((PerVertexSlot, u8), Value)> {
    match *op {
        Op::StoreOutput {
            location,
            component,
            value,
        } => Some(((PerVertexSlot::Location(location), component), value)),
        Op::StoreBuiltin {
            builtin,
            component,
            value,
        } => Some(((PerVertexSlot::Builtin(builtin), component), value)),
        _ => None,
    }
}

fn collect_outputs(ns: &[Node], out: &mut Vec<(PerVertexSlot, u8)>) {
    for n in ns {
        match n {
            Node::Block(is) => {
                for i in is {
                    if let Some((k, _)) = output_key(&i.op) {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                collect_outputs(then_body, out);
                collect_outputs(else_body, out);
            }
            Node::Loop { body } => collect_outputs(body, out),
            _ => {}
        }
    }
}

struct Lower<'s> {
    sh: &'s mut Shader,
    keys: Vec<(PerVertexSlot, u8)>,
    /// The current value of each output (I32 bits).
    current: Vec<Var>,
    emitted: Var,
    written: Var,
    strip: Var,
    /// Complete output primitives so far (for primitives generated queries and pipeline
    /// statistics).
    prims: Var,
    /// Vertices of one output primitive: 1, 2 or 3.
    per_prim: u32,
    inv: Value,
    /// I32, 0 for an invocation without an input primitive.
    valid: Value,
    records: Value,
    indices: Value,
    max_vertices: u32,
}

impl Lower<'_> {
    fn def(&mut self, out: &mut Vec<Inst>, ty: Type, op: Op) -> Value {
        let v = self.sh.new_value(ty);
        out.push(Inst { dst: Some(v), op });
        v
    }

    fn k32(&mut self, out: &mut Vec<Inst>, x: u32) -> Value {
        self.def(out, Type::I32, Op::Const(Constant(vec![u64::from(x)])))
    }

    fn i(&mut self, out: &mut Vec<Inst>, op: BinOp, a: Value, b: Value) -> Value {
        self.def(out, Type::I32, Op::Binary(op, a, b))
    }

    /// `base` (I64) plus an unsigned I32 byte offset.
    fn address(&mut self, out: &mut Vec<Inst>, base: Value, off: Value) -> Value {
        let wide = self.def(out, Type::I64, Op::Conv(ConvOp::UToU, off));
        self.def(out, Type::I64, Op::Binary(BinOp::IAdd, base, wide))
    }

    fn incr(&mut self, out: &mut Vec<Inst>, v: Var) {
        let x = self.def(out, Type::I32, Op::LoadVar(v));
        let one = self.k32(out, 1);
        let y = self.i(out, BinOp::IAdd, x, one);
        out.push(Inst {
            dst: None,
            op: Op::StoreVar(v, y),
        });
    }

    /// Stores `value` (I32) to index slot `written` of this invocation's region.
    fn put_index(&mut self, out: &mut Vec<Inst>, value: Value) {
        let w = self.def(out, Type::I32, Op::LoadVar(self.written));
        let region = self.k32(out, 2 * self.max_vertices);
        let first = self.i(out, BinOp::IMul, self.inv, region);
        let slot = self.i(out, BinOp::IAdd, first, w);
        let four = self.k32(out, 4);
        let off = self.i(out, BinOp::IMul, slot, four);
        let addr = self.address(out, self.indices, off);
        out.push(Inst {
            dst: None,
            op: Op::Store {
                space: Space::Global,
                addr,
                value,
                align: 4,
            },
        });
        self.incr(out, self.written);
    }

    /// Stores the current outputs as the next record and its index, while there is room.
    fn emit_vertex(&mut self) -> Vec<Node> {
        let mut head = Vec::new();
        let e = self.def(&mut head, Type::I32, Op::LoadVar(self.emitted));
        let max = self.k32(&mut head, self.max_vertices);
        let room = self.def(&mut head, Type::BOOL, Op::Cmp(CmpOp::ULt, e, max));
        let mut body = Vec::new();
        let first = self.i(&mut body, BinOp::IMul, self.inv, max);
        let record = self.i(&mut body, BinOp::IAdd, first, e);
        let stride = self.k32(&mut body, 4 * self.keys.len() as u32);
        let base = self.i(&mut body, BinOp::IMul, record, stride);
        for k in 0..self.keys.len() {
            let x = self.def(&mut body, Type::I32, Op::LoadVar(self.current[k]));
            let at = self.k32(&mut body, 4 * k as u32);
            let off = self.i(&mut body, BinOp::IAdd, base, at);
            let addr = self.address(&mut body, self.records, off);
            body.push(Inst {
                dst: None,
                op: Op::Store {
                    space: Space::Global,
                    addr,
                    value: x,
                    align: 4,
                },
            });
        }
        self.put_index(&mut body, record);
        self.incr(&mut body, self.emitted);
        self.incr(&mut body, self.strip);
        // The strip's vertex completes a primitive once it holds `per_prim`.
        let held = self.def(&mut body, Type::I32, Op::LoadVar(self.strip));
        let per_prim = self.k32(&mut body, self.per_prim);
        let complete = self.def(&mut body, Type::BOOL, Op::Cmp(CmpOp::UGe, held, per_prim));
        let n = self.def(&mut body, Type::I32, Op::LoadVar(self.prims));
        let one = self.k32(&mut body, 1);
        let more = self.i(&mut body, BinOp::IAdd, n, one);
        let n = self.def(&mut body, Type::I32, Op::Select(complete, more, n));
        body.push(Inst {
            dst: None,
            op: Op::StoreVar(self.prims, n),
        });
        vec![
            Node::Block(head),
            Node::If {
                cond: room,
                then_body: vec![Node::Block(body)],
                else_body: Vec::new(),
            },
        ]
    }

    /// A restart after a strip that holds a vertex.
    fn end_primitive(&mut self) -> Vec<Node> {
        let mut head = Vec::new();
        let s = self.def(&mut head, Type::I32, Op::LoadVar(self.strip));
        let zero = self.k32(&mut head, 0);
        let open = self.def(&mut head, Type::BOOL, Op::Cmp(CmpOp::UGt, s, zero));
        let mut body = Vec::new();
        let restart = self.k32(&mut body, abi::GEOMETRY_RESTART_INDEX);
        self.put_index(&mut body, restart);
        let zero = self.k32(&mut body, 0);
        body.push(Inst {
            dst: None,
            op: Op::StoreVar(self.strip, zero),
        });
        vec![
            Node::Block(head),
            Node::If {
                cond: open,
                then_body: vec![Node::Block(body)],
                else_body: Vec::new(),
            },
        ]
    }

    /// The end of the invocation: counts it and its primitives (`add_to_counter`), then pads
    /// the index region. An invocation without an input primitive (the prologue returns
    /// before the body) gets here too, to pad its region: it counts as no invocation.
    fn finish(&mut self) -> Vec<Node> {
        let mut head = Vec::new();
        let n = self.def(&mut head, Type::I32, Op::LoadVar(self.prims));
        let zero = self.k32(&mut head, 0);
        let any = self.def(&mut head, Type::BOOL, Op::Cmp(CmpOp::INe, n, zero));
        let real = self.def(&mut head, Type::BOOL, Op::Cmp(CmpOp::INe, self.valid, zero));
        let one = self.k32(&mut head, 1);
        let mut out = vec![
            Node::Block(head),
            Node::If {
                cond: real,
                then_body: self.add_to_counter(abi::GEOMETRY_STAT_INVOCATIONS_ADDRESS, one),
                else_body: Vec::new(),
            },
        ];
        // Emitted primitives: the primitives generated query's, and the pipeline
        // statistics of the geometry shader's output and of the clipper, which sees it.
        let mut emitted = Vec::new();
        for at in [
            abi::GEOMETRY_PRIMGEN_ADDRESS,
            abi::GEOMETRY_STAT_PRIMITIVES_ADDRESS,
            abi::GEOMETRY_STAT_CLIPPING_INVOCATIONS_ADDRESS,
            abi::GEOMETRY_STAT_CLIPPING_PRIMITIVES_ADDRESS,
        ] {
            emitted.extend(self.add_to_counter(at, n));
        }
        out.push(Node::If {
            cond: any,
            then_body: emitted,
            else_body: Vec::new(),
        });
        out.push(self.pad());
        out
    }

    /// Adds `n` (I32) to the u64 counter whose address is the root table's u64 at `at`,
    /// with the carry into the high word; nothing when that address is 0 (no query counts
    /// it). 64-bit atomics are not used: the low word's atomic add returns the old value,
    /// and only the invocation that wraps it carries.
    fn add_to_counter(&mut self, at: u32, n: Value) -> Vec<Node> {
        let mut head = Vec::new();
        let low_at = self.k32(&mut head, at);
        let high_at = self.k32(&mut head, at + 4);
        let low_word = self.def(
            &mut head,
            Type::I32,
            Op::Load {
                space: Space::Root,
                addr: low_at,
                align: 4,
            },
        );
        let high_word = self.def(
            &mut head,
            Type::I32,
            Op::Load {
                space: Space::Root,
                addr: high_at,
                align: 4,
            },
        );
        let either = self.i(&mut head, BinOp::Or, low_word, high_word);
        let zero = self.k32(&mut head, 0);
        let counting = self.def(&mut head, Type::BOOL, Op::Cmp(CmpOp::INe, either, zero));
        let mut add = Vec::new();
        let at = self.k32(&mut add, at);
        let low = self.def(
            &mut add,
            Type::I64,
            Op::Load {
                space: Space::Root,
                addr: at,
                align: 8,
            },
        );
        let old = self.def(
            &mut add,
            Type::I32,
            Op::Atomic {
                space: Space::Global,
                op: AtomicOp::Add,
                addr: low,
                value: n,
                cmp: None,
            },
        );
        // The low word wrapped: carry into the high one.
        let sum = self.i(&mut add, BinOp::IAdd, old, n);
        let carry = self.def(&mut add, Type::BOOL, Op::Cmp(CmpOp::ULt, sum, old));
        let mut high = Vec::new();
        let four = self.k32(&mut high, 4);
        let addr = self.address(&mut high, low, four);
        let one = self.k32(&mut high, 1);
        self.def(
            &mut high,
            Type::I32,
            Op::Atomic {
                space: Space::Global,
                op: AtomicOp::Add,
                addr,
                value: one,
                cmp: None,
            },
        );
        vec![
            Node::Block(head),
            Node::If {
                cond: counting,
                then_body: vec![
                    Node::Block(add),
                    Node::If {
                        cond: carry,
                        then_body: vec![Node::Block(high)],
                        else_body: Vec::new(),
                    },
                ],
                else_body: Vec::new(),
            },
        ]
    }

    /// Pads the rest of the invocation's index region with the restart index.
    fn pad(&mut self) -> Node {
        let mut body = Vec::new();
        let w = self.def(&mut body, Type::I32, Op::LoadVar(self.written));
        let region = self.k32(&mut body, 2 * self.max_vertices);
        let full = self.def(&mut body, Type::BOOL, Op::Cmp(CmpOp::UGe, w, region));
        let mut rest = Vec::new();
        let restart = self.k32(&mut rest, abi::GEOMETRY_RESTART_INDEX);
        self.put_index(&mut rest, restart);
        Node::Loop {
            body: vec![
                Node::Block(body),
                Node::If {
                    cond: full,
                    then_body: vec![Node::Break],
                    else_body: Vec::new(),
                },
                Node::Block(rest),
            ],
        }
    }

    fn nodes(&mut self, ns: Vec<Node>) -> Result<Vec<Node>, CompileError> {
        let mut out = Vec::with_capacity(ns.len());
        for n in ns {
            match n {
                Node::Block(is) => {
                    let mut cur = Vec::new();
                    for i in is {
                        if let Some((key, value)) = output_key(&i.op) {
                            let k = self
                                .keys
                                .iter()
                                .position(|x| *x == key)
                                .ok_or_else(|| internal("output without a record slot"))?;
                            let t = self.sh.ty(value);
                            if !t.is_scalar() || t.scalar.bits() != 32 {
                                return Err(internal(
                                    "lower_geometry_outputs: outputs must be 32-bit scalars",
                                ));
                            }
                            let bits = if t == Type::I32 {
                                value
                            } else {
                                self.def(&mut cur, Type::I32, Op::Conv(ConvOp::Bitcast, value))
                            };
                            cur.push(Inst {
                                dst: None,
                                op: Op::StoreVar(self.current[k], bits),
                            });
                            continue;
                        }
                        match i.op {
                            Op::EmitVertex => {
                                out.push(Node::Block(std::mem::take(&mut cur)));
                                out.extend(self.emit_vertex());
                            }
                            Op::EndPrimitive => {
                                out.push(Node::Block(std::mem::take(&mut cur)));
                                out.extend(self.end_primitive());
                            }
                            _ => cur.push(i),
                        }
                    }
                    out.push(Node::Block(cur));
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => out.push(Node::If {
                    cond,
                    then_body: self.nodes(then_body)?,
                    else_body: self.nodes(else_body)?,
                }),
                Node::Loop { body } => out.push(Node::Loop {
                    body: self.nodes(body)?,
                }),
                Node::Return => {
                    out.extend(self.finish());
                    out.push(Node::Return);
                }
                n @ (Node::Break | Node::Continue) => out.push(n),
            }
        }
        Ok(out)
    }
}

/// The flat invocation index, built by the caller in the shader: nodes that run first and the
/// I32 value.
pub type InvocationPrologue<'p> =
    &'p mut dyn FnMut(&mut Shader) -> Result<(Vec<Node>, Value), CompileError>;

/// Lowers a geometry shader's outputs (see the module documentation); the result has no
/// geometry operations left but `SysVal::InvocationId` and `SysVal::PrimitiveId`, which the
/// draw's prologue provides. Takes the shader in the form `run_all` leaves (scalar outputs)
/// and returns the record layout the pass-through vertex shader reads. `valid` (I32, defined
/// before the shader's first `Return`) is 0 for an invocation without an input primitive,
/// which the draw runs but the geometry shader invocations statistic does not count.
pub fn lower_geometry_outputs(
    g: &mut GraphicsShader,
    prologue: InvocationPrologue<'_>,
    valid: Value,
) -> Result<GeometryRecord, CompileError> {
    let info = match (g.stage, g.geometry) {
        (Stage::Geometry, Some(info)) => info,
        _ => {
            return Err(internal(
                "lower_geometry_outputs of a shader that is not geometry",
            ))
        }
    };
    let mut keys = Vec::new();
    collect_outputs(&g.shader.body, &mut keys);
    let sh = &mut g.shader;
    let (mut head, inv) = prologue(sh)?;
    let current: Vec<Var> = keys.iter().map(|_| sh.new_var(Type::I32)).collect();
    let (emitted, written, strip, prims) = (
        sh.new_var(Type::I32),
        sh.new_var(Type::I32),
        sh.new_var(Type::I32),
        sh.new_var(Type::I32),
    );
    let mut init = Vec::new();
    let mut def = |sh: &mut Shader, ty: Type, op: Op| {
        let v = sh.new_value(ty);
        init.push(Inst { dst: Some(v), op });
        v
    };
    let zero = def(sh, Type::I32, Op::Const(Constant(vec![0])));
    let ra = def(
        sh,
        Type::I32,
        Op::Const(Constant(vec![u64::from(abi::GEOMETRY_RECORD_ADDRESS)])),
    );
    let ia = def(
        sh,
        Type::I32,
        Op::Const(Constant(vec![u64::from(abi::GEOMETRY_INDEX_ADDRESS)])),
    );
    let records = def(
        sh,
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: ra,
            align: 8,
        },
    );
    let indices = def(
        sh,
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: ia,
            align: 8,
        },
    );
    for v in [emitted, written, strip, prims] {
        init.push(Inst {
            dst: None,
            op: Op::StoreVar(v, zero),
        });
    }
    // Outputs never stored before an emit are undefined; zero keeps the records
    // deterministic.
    for v in &current {
        init.push(Inst {
            dst: None,
            op: Op::StoreVar(*v, zero),
        });
    }
    head.push(Node::Block(init));
    let body = std::mem::take(&mut sh.body);
    let mut l = Lower {
        sh,
        keys: keys.clone(),
        current,
        emitted,
        written,
        strip,
        prims,
        per_prim: match info.output {
            OutputPrimitive::Points => 1,
            OutputPrimitive::LineStrip => 2,
            OutputPrimitive::TriangleStrip => 3,
        },
        inv,
        valid,
        records,
        indices,
        max_vertices: info.max_vertices,
    };
    let mut body = l.nodes(body)?;
    if !matches!(body.last(), Some(Node::Return)) {
        body.extend(l.finish());
    }
    head.extend(body);
    l.sh.body = head;
    Ok(GeometryRecord {
        slots: keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, 4 * i as u32))
            .collect(),
        stride: 4 * l.keys.len() as u32,
    })
}
