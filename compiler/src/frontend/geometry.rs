//! Geometry shaders: the execution modes, the per-vertex inputs (arrayed Input variables,
//! gl_in[] among them) and OpEmitVertex / OpEndPrimitive.
//!
//! A per-vertex input is not copied into Vars up front as other stage inputs are: an access
//! chain into it becomes a [`Ptr::PerVertex`] that keeps the vertex index as a value (gl_in[k]
//! with a dynamic k stays one `LoadPerVertex` per read, which the VS+GS merge turns into a
//! read of its per-vertex local arrays) and walks a [`SlotTree`] shaped like the element type.

use spirv::{BuiltIn, Decoration, ExecutionMode, Word};

use super::module::{invalid, unsupported, SpvType};
use super::translate::Tr;
use super::values::{FVal, Ptr, SlotTree};
use crate::ir::{self, CmpOp, ConvOp, OutputBuiltin, PerVertexSlot, Scalar, Type, Value};
use crate::CompileError;

/// The GeometryInfo of a Geometry entry point from its execution modes. `literal` gives the
/// first operand of a mode the entry point has.
pub(super) fn geometry_info(
    modes: &[ExecutionMode],
    literal: &dyn Fn(ExecutionMode) -> Option<u32>,
) -> Result<ir::GeometryInfo, CompileError> {
    use ir::{InputPrimitive as I, OutputPrimitive as O};
    fn one_of<T: Copy>(what: &str, found: Vec<T>) -> Result<T, CompileError> {
        match found[..] {
            [x] => Ok(x),
            [] => Err(invalid(format!(
                "geometry shader without an {what} primitive mode"
            ))),
            _ => Err(invalid(format!(
                "geometry shader with several {what} primitive modes"
            ))),
        }
    }
    let input = one_of(
        "input",
        modes
            .iter()
            .filter_map(|m| match m {
                ExecutionMode::InputPoints => Some(I::Points),
                ExecutionMode::InputLines => Some(I::Lines),
                ExecutionMode::InputLinesAdjacency => Some(I::LinesAdjacency),
                ExecutionMode::Triangles => Some(I::Triangles),
                ExecutionMode::InputTrianglesAdjacency => Some(I::TrianglesAdjacency),
                _ => None,
            })
            .collect(),
    )?;
    let output = one_of(
        "output",
        modes
            .iter()
            .filter_map(|m| match m {
                ExecutionMode::OutputPoints => Some(O::Points),
                ExecutionMode::OutputLineStrip => Some(O::LineStrip),
                ExecutionMode::OutputTriangleStrip => Some(O::TriangleStrip),
                _ => None,
            })
            .collect(),
    )?;
    let max_vertices = literal(ExecutionMode::OutputVertices)
        .ok_or_else(|| invalid("geometry shader without OutputVertices"))?;
    if max_vertices == 0 || max_vertices > ir::MAX_GEOMETRY_OUTPUT_VERTICES {
        return Err(CompileError::Limit(format!(
            "OutputVertices {max_vertices} (1 to {})",
            ir::MAX_GEOMETRY_OUTPUT_VERTICES
        )));
    }
    let invocations = literal(ExecutionMode::Invocations).unwrap_or(1);
    if invocations == 0 || invocations > ir::MAX_GEOMETRY_INVOCATIONS {
        return Err(CompileError::Limit(format!(
            "Invocations {invocations} (1 to {})",
            ir::MAX_GEOMETRY_INVOCATIONS
        )));
    }
    Ok(ir::GeometryInfo {
        input,
        output,
        max_vertices,
        invocations,
    })
}

impl<'m> Tr<'m> {
    /// Vertices per input primitive of the geometry shader being translated.
    fn input_vertices(&self) -> Result<u32, CompileError> {
        self.geometry
            .map(|g| g.input.vertices())
            .ok_or_else(|| CompileError::Internal("geometry input without geometry info".into()))
    }

    /// An Input variable of a geometry shader other than InvocationId and PrimitiveId: an
    /// array with one element per input vertex.
    pub(super) fn per_vertex_input(&mut self, rid: Word, ty: Word) -> Result<Ptr, CompileError> {
        let (elem, len) = match *self.l.get(ty)? {
            SpvType::Array { elem, len } => (elem, len),
            _ => {
                return Err(invalid(format!(
                    "geometry shader input {rid} is not an array of vertices"
                )))
            }
        };
        let n = self.input_vertices()?;
        if len != n {
            return Err(invalid(format!(
                "geometry shader input {rid} has {len} vertices, the input primitive {n}"
            )));
        }
        let builtin = self
            .decos
            .get(rid, Decoration::BuiltIn)
            .and_then(|v| v.first().copied());
        let slots = if let Some(b) = builtin {
            let b = BuiltIn::from_u32(b).ok_or_else(|| invalid("unknown builtin"))?;
            self.builtin_slots(b, elem)?
        } else if self.has_member_builtins(elem) {
            let SpvType::Struct { members } = self.l.get(elem)?.clone() else {
                return Err(invalid("built-in input block that is not a struct"));
            };
            let mut kids = Vec::with_capacity(members.len());
            for (m, mty) in members.iter().enumerate() {
                let b = self
                    .decos
                    .member(elem, m as u32, Decoration::BuiltIn)
                    .and_then(|v| v.first().copied())
                    .ok_or_else(|| unsupported("block mixing built-in and user inputs"))?;
                let b = BuiltIn::from_u32(b).ok_or_else(|| invalid("unknown builtin"))?;
                kids.push(self.builtin_slots(b, *mty)?);
            }
            SlotTree::Node(kids)
        } else {
            let slots = self.io_slots(rid, elem)?;
            let mut it = slots.into_iter();
            let tree = self.slot_tree(elem, &mut it, 0)?;
            if it.next().is_some() {
                return Err(CompileError::Internal("interface leaves and slots".into()));
            }
            tree
        };
        Ok(Ptr::PerVertex {
            vertex: None,
            slots,
            ty,
        })
    }

    /// The slots of a user input's element type, in `io_slots` order.
    fn slot_tree(
        &mut self,
        ty: Word,
        slots: &mut dyn Iterator<Item = super::stage_io::IoSlot>,
        depth: u32,
    ) -> Result<SlotTree, CompileError> {
        if depth > 32 {
            return Err(invalid("type nesting too deep"));
        }
        if self.l.is_simple(ty)? {
            let t = self.l.ir_type(ty)?;
            let s = slots
                .next()
                .ok_or_else(|| CompileError::Internal("interface leaves and slots".into()))?;
            if !matches!(t.scalar, Scalar::I32 | Scalar::F32) || s.component + t.lanes > 4 {
                return Err(unsupported(format!(
                    "geometry shader input of type {t:?} at component {}",
                    s.component
                )));
            }
            return Ok(SlotTree::Leaf {
                slot: PerVertexSlot::Location(s.location),
                component: s.component,
                ty: t,
            });
        }
        let kids = self.l.children(ty)?;
        Ok(SlotTree::Node(
            kids.iter()
                .map(|k| self.slot_tree(*k, slots, depth + 1))
                .collect::<Result<_, _>>()?,
        ))
    }

    /// The slots of one vertex's built-in input `b` of SPIR-V type `ty`: what the previous
    /// stage stores for it (see `ir::PerVertexSlot`).
    fn builtin_slots(&self, b: BuiltIn, ty: Word) -> Result<SlotTree, CompileError> {
        let f32_leaf = |slot, component| SlotTree::Leaf {
            slot,
            component,
            ty: Type::F32,
        };
        match b {
            BuiltIn::Position => {
                if self.l.ir_type(ty)? != Type::vec(Scalar::F32, 4) {
                    return Err(invalid("gl_Position input that is not a vec4"));
                }
                Ok(SlotTree::Leaf {
                    slot: PerVertexSlot::Builtin(OutputBuiltin::Position),
                    component: 0,
                    ty: Type::vec(Scalar::F32, 4),
                })
            }
            BuiltIn::PointSize => {
                if self.l.ir_type(ty)? != Type::F32 {
                    return Err(invalid("gl_PointSize input that is not a float"));
                }
                Ok(f32_leaf(
                    PerVertexSlot::Builtin(OutputBuiltin::PointSize),
                    0,
                ))
            }
            BuiltIn::ClipDistance | BuiltIn::CullDistance => {
                let len = match *self.l.get(ty)? {
                    SpvType::Array { elem, len } if self.l.ir_type(elem)? == Type::F32 => len,
                    _ => return Err(invalid(format!("{b:?} input that is not a float array"))),
                };
                if len > ir::MAX_CLIP_DISTANCES {
                    return Err(CompileError::Limit(format!("{len} {b:?} elements")));
                }
                Ok(SlotTree::Node(
                    (0..len as u8)
                        .map(|k| {
                            if b == BuiltIn::ClipDistance {
                                f32_leaf(PerVertexSlot::Builtin(OutputBuiltin::ClipDistance(k)), 0)
                            } else {
                                f32_leaf(
                                    PerVertexSlot::Location(
                                        ir::CULL_DISTANCE_LOCATION + u32::from(k / 4),
                                    ),
                                    k % 4,
                                )
                            }
                        })
                        .collect(),
                ))
            }
            other => Err(unsupported(format!(
                "geometry shader input built-in {other:?}"
            ))),
        }
    }

    /// One access-chain step into a per-vertex input: the first index picks the vertex, the
    /// others a part of it; a dynamic index into a part makes a [`Ptr::Choice`].
    pub(super) fn index_per_vertex(
        &mut self,
        p: Ptr,
        konst: Option<u32>,
        dynamic: Option<Value>,
    ) -> Result<Ptr, CompileError> {
        let Ptr::PerVertex { vertex, slots, ty } = p else {
            return Err(CompileError::Internal(
                "index_per_vertex of another place".into(),
            ));
        };
        let Some(vertex) = vertex else {
            let elem = match *self.l.get(ty)? {
                SpvType::Array { elem, .. } => elem,
                _ => return Err(invalid("per-vertex input that is not an array")),
            };
            let v = match (konst, dynamic) {
                (Some(k), _) => self.u32c(k)?,
                (None, Some(d)) => match self.sh.ty(d) {
                    Type::I32 => d,
                    Type::I64 => self.emit(Type::I32, ir::Op::Conv(ConvOp::UToU, d))?,
                    _ => return Err(invalid("vertex index is not an integer")),
                },
                (None, None) => return Err(invalid("access chain without an index")),
            };
            return Ok(Ptr::PerVertex {
                vertex: Some(v),
                slots,
                ty: elem,
            });
        };
        let kids = self.l.children(ty)?;
        let one = |i: u32| -> Result<Ptr, CompileError> {
            let kty = *kids
                .get(i as usize)
                .ok_or_else(|| invalid("index out of range"))?;
            let sub = match &slots {
                SlotTree::Node(ts) => ts
                    .get(i as usize)
                    .cloned()
                    .ok_or_else(|| invalid("index out of range"))?,
                SlotTree::Leaf {
                    slot,
                    component,
                    ty,
                } if i < u32::from(ty.lanes) => SlotTree::Leaf {
                    slot: *slot,
                    component: component + i as u8,
                    ty: Type::scalar(ty.scalar),
                },
                SlotTree::Leaf { .. } => return Err(invalid("index out of range")),
            };
            Ok(Ptr::PerVertex {
                vertex: Some(vertex),
                slots: sub,
                ty: kty,
            })
        };
        match (konst, dynamic) {
            (Some(i), _) => one(i),
            (None, Some(idx)) => {
                if matches!(self.l.get(ty)?, SpvType::Struct { .. }) {
                    return Err(invalid("struct index is not a constant"));
                }
                let it = self.sh.ty(idx);
                let mut arms = Vec::with_capacity(kids.len());
                for k in 0..kids.len() as u32 {
                    let kc = self.konst(it, vec![u64::from(k)])?;
                    let c = self.emit(Type::BOOL, ir::Op::Cmp(CmpOp::IEq, idx, kc))?;
                    arms.push((c, one(k)?));
                }
                let ty = kids.first().copied().unwrap_or(ty);
                Ok(Ptr::Choice { arms, ty })
            }
            (None, None) => Err(invalid("access chain without an index")),
        }
    }

    /// OpLoad through a per-vertex input: one `LoadPerVertex` per leaf (of every vertex when
    /// the whole array is loaded).
    pub(super) fn load_per_vertex(
        &mut self,
        vertex: Option<Value>,
        slots: &SlotTree,
    ) -> Result<FVal, CompileError> {
        let Some(vertex) = vertex else {
            let n = self.input_vertices()?;
            let mut out = Vec::with_capacity(n as usize);
            for k in 0..n {
                let v = self.u32c(k)?;
                out.push(self.load_per_vertex(Some(v), slots)?);
            }
            return Ok(FVal::C(out));
        };
        match slots {
            SlotTree::Leaf {
                slot,
                component,
                ty,
            } => Ok(FVal::V(self.emit(
                *ty,
                ir::Op::LoadPerVertex {
                    vertex,
                    slot: *slot,
                    component: *component,
                },
            )?)),
            SlotTree::Node(kids) => Ok(FVal::C(
                kids.iter()
                    .map(|k| self.load_per_vertex(Some(vertex), k))
                    .collect::<Result<_, _>>()?,
            )),
        }
    }

    /// OpEmitVertex, OpEndPrimitive and their stream forms (`stream` is the Stream operand's
    /// id). agx4 has stream 0 only (maxTransformFeedbackStreams 1 and no
    /// geometryStreams): another stream is refused.
    pub(super) fn geometry_op(
        &mut self,
        emit: bool,
        stream: Option<Word>,
    ) -> Result<(), CompileError> {
        let what = if emit {
            "OpEmitVertex"
        } else {
            "OpEndPrimitive"
        };
        if self.stage != ir::Stage::Geometry {
            return Err(invalid(format!("{what} outside a geometry shader")));
        }
        if let Some(s) = stream {
            match super::constants::as_u32(self.consts, s) {
                Some(0) => {}
                Some(n) => {
                    return Err(unsupported(format!(
                        "{what} to vertex stream {n} (agx4 has stream 0 only)"
                    )))
                }
                None => return Err(invalid(format!("{what} stream is not a constant"))),
            }
        }
        if emit {
            // The outputs' current values become the vertex.
            self.emit_outputs()?;
            self.effect(ir::Op::EmitVertex)
        } else {
            self.effect(ir::Op::EndPrimitive)
        }
    }
}
