//! Vertex, geometry and fragment stage interfaces (a geometry shader's per-vertex inputs are
//! `super::geometry`'s): Input and Output variables (locations and
//! built-ins), the graphics built-in inputs, and the writes of outputs when the entry point
//! returns.
//!
//! Non-built-in inputs are read once at the start into Vars and outputs live in Vars until
//! the entry point returns; `promote_vars` then turns both into plain values. This keeps
//! access chains, partial writes and read-back of outputs on the ordinary Var paths.

use spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use super::module::{id, invalid, unsupported, SpvType};
use super::translate::Tr;
use super::values::{FVal, Ptr, VarTree};
use crate::ir::{self, InputInterp, Interpolation, OutputBuiltin, Sampling, Scalar, Type, Var};
use crate::CompileError;

/// Where the value of an output Var goes when the entry point returns.
#[derive(Debug, Clone, Copy)]
pub(super) enum OutTarget {
    Location {
        location: u32,
        component: u8,
    },
    Builtin(OutputBuiltin),
    /// A fragment output at Location 0 Index 1, from this component on.
    SecondBlendSource {
        component: u8,
    },
    /// Cull distance `index`: its flag (1.0 when >= 0, else 0.0) goes to the cull flag
    /// varying the fragment shader's cull test reads.
    CullFlag {
        index: u8,
    },
}

fn leaf_vars(t: &VarTree, out: &mut Vec<Var>) {
    match t {
        VarTree::Leaf(v) => out.push(*v),
        VarTree::Node(kids) => kids.iter().for_each(|k| leaf_vars(k, out)),
    }
}

/// Built-in outputs a vertex or fragment shader may write, as IR targets. `None`: accepted
/// but not written out (the ones agx4 does not implement are rejected where they are used).
fn output_builtin(b: BuiltIn) -> Result<Option<OutputBuiltin>, CompileError> {
    Ok(match b {
        BuiltIn::Position => Some(OutputBuiltin::Position),
        BuiltIn::PointSize => Some(OutputBuiltin::PointSize),
        BuiltIn::FragDepth => Some(OutputBuiltin::FragDepth),
        BuiltIn::SampleMask => Some(OutputBuiltin::SampleMask),
        BuiltIn::ClipDistance | BuiltIn::CullDistance => None,
        other => return Err(unsupported(format!("output builtin {other:?}"))),
    })
}

/// Where one leaf (scalar or vector) of an interface variable lives, and how it is
/// interpolated: the variable's own decorations with its struct members' on top.
#[derive(Debug, Clone, Copy)]
pub(super) struct IoSlot {
    pub location: u32,
    pub component: u8,
    pub interp: InputInterp,
}

/// Interpolation decorations found so far on the way from the variable to a leaf.
#[derive(Debug, Clone, Copy, Default)]
struct IoQualifiers {
    flat: bool,
    noperspective: bool,
    centroid: bool,
    sample: bool,
}

impl IoQualifiers {
    fn interp(self) -> InputInterp {
        let mode = if self.flat {
            Interpolation::Flat
        } else if self.noperspective {
            Interpolation::NoPerspective
        } else {
            Interpolation::Smooth
        };
        let sampling = if self.sample {
            Sampling::Sample
        } else if self.centroid {
            Sampling::Centroid
        } else {
            Sampling::Center
        };
        InputInterp { mode, sampling }
    }
}

impl<'m> Tr<'m> {
    fn qualifiers(&self, get: &dyn Fn(Decoration) -> bool, q: IoQualifiers) -> IoQualifiers {
        IoQualifiers {
            flat: q.flat || get(Decoration::Flat),
            noperspective: q.noperspective || get(Decoration::NoPerspective),
            centroid: q.centroid || get(Decoration::Centroid),
            sample: q.sample || get(Decoration::Sample),
        }
    }

    /// The slot of every leaf of interface variable `rid` of type `ty`, in the order
    /// `var_tree` makes its leaves (Vulkan's location assignment: each scalar or vector,
    /// matrix column and array element takes a location; members of a block follow one
    /// another unless they carry their own Location, and their Component defaults to 0).
    pub(super) fn io_slots(&self, rid: Word, ty: Word) -> Result<Vec<IoSlot>, CompileError> {
        let location = self
            .decos
            .get(rid, Decoration::Location)
            .and_then(|v| v.first().copied());
        let component = self
            .decos
            .get(rid, Decoration::Component)
            .and_then(|v| v.first().copied())
            .unwrap_or(0);
        let q = self.qualifiers(&|d| self.decos.has(rid, d), IoQualifiers::default());
        let mut out = Vec::new();
        let mut next = location;
        self.io_walk(rid, ty, &mut next, component, q, &mut out, 0)?;
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)] // the walk's position: type, location, component, qualifiers
    fn io_walk(
        &self,
        rid: Word,
        ty: Word,
        next: &mut Option<u32>,
        component: u32,
        q: IoQualifiers,
        out: &mut Vec<IoSlot>,
        depth: u32,
    ) -> Result<(), CompileError> {
        if depth > 32 || out.len() > 4096 {
            return Err(unsupported("interface variable too large"));
        }
        if self.l.is_simple(ty)? {
            let location = next
                .ok_or_else(|| invalid(format!("interface variable {rid} without a Location")))?;
            if component > 3 {
                return Err(invalid("Component decoration above 3"));
            }
            out.push(IoSlot {
                location,
                component: component as u8,
                interp: q.interp(),
            });
            *next = Some(location + 1);
            return Ok(());
        }
        if let SpvType::Struct { members } = self.l.get(ty)?.clone() {
            for (m, mty) in members.iter().enumerate() {
                let m = m as u32;
                if let Some(l) = self.decos.member(ty, m, Decoration::Location) {
                    *next = l.first().copied();
                }
                let c = self
                    .decos
                    .member(ty, m, Decoration::Component)
                    .and_then(|v| v.first().copied())
                    .unwrap_or(0);
                let mq = self.qualifiers(&|d| self.decos.member(ty, m, d).is_some(), q);
                self.io_walk(rid, *mty, next, c, mq, out, depth + 1)?;
            }
            return Ok(());
        }
        for kid in self.l.children(ty)? {
            self.io_walk(rid, kid, next, component, q, out, depth + 1)?;
        }
        Ok(())
    }

    fn io_leaf_type(&self, v: Var, component: u8) -> Result<Type, CompileError> {
        let t = self.sh.var_types[v.0 as usize];
        if !matches!(t.scalar, Scalar::I32 | Scalar::F32) || component + t.lanes > 4 {
            return Err(unsupported(format!(
                "interface value of type {t:?} at component {component}"
            )));
        }
        Ok(t)
    }

    /// An Input or Output variable of a graphics stage (`None` for other storage classes).
    pub fn stage_variable(
        &mut self,
        rid: Word,
        sc: StorageClass,
        ty: Word,
    ) -> Result<Option<Ptr>, CompileError> {
        if self.stage == ir::Stage::Compute {
            return Ok(None);
        }
        match sc {
            StorageClass::Input => {
                if self.stage == ir::Stage::Geometry && !self.is_primitive_builtin(rid) {
                    return self.per_vertex_input(rid, ty).map(Some);
                }
                if let Some(b) = self.distance_builtin(rid) {
                    return self.distance_input(b, ty).map(Some);
                }
                let flat_builtin = match self
                    .decos
                    .get(rid, Decoration::BuiltIn)
                    .and_then(|v| v.first())
                    .and_then(|b| BuiltIn::from_u32(*b))
                {
                    Some(BuiltIn::PrimitiveId) => Some(ir::PRIMITIVE_ID_LOCATION),
                    Some(BuiltIn::Layer) => Some(ir::LAYER_LOCATION),
                    _ => None,
                };
                if let (ir::Stage::Fragment, Some(location)) = (self.stage, flat_builtin) {
                    return self.flat_builtin_input(location, ty).map(Some);
                }
                if self.decos.has(rid, Decoration::BuiltIn) {
                    return Ok(None);
                }
                if self.has_member_builtins(ty) {
                    return Err(unsupported("built-in input block"));
                }
                let slots = self.io_slots(rid, ty)?;
                let tree = self.var_tree(ty, 0)?;
                let mut leaves = Vec::new();
                leaf_vars(&tree, &mut leaves);
                if leaves.len() != slots.len() {
                    return Err(CompileError::Internal("interface leaves and slots".into()));
                }
                for (v, slot) in leaves.into_iter().zip(slots) {
                    let t = self.io_leaf_type(v, slot.component)?;
                    if slot.interp.sampling == Sampling::Sample {
                        self.per_sample = true;
                    }
                    self.input_slots.insert(
                        v,
                        super::fragment_ops::InputSlot {
                            location: slot.location,
                            component: slot.component,
                            mode: slot.interp.mode,
                        },
                    );
                    let x = self.emit(
                        t,
                        ir::Op::LoadInput {
                            location: slot.location,
                            component: slot.component,
                            interp: slot.interp,
                        },
                    )?;
                    self.effect(ir::Op::StoreVar(v, x))?;
                }
                Ok(Some(Ptr::Vars { tree, ty }))
            }
            StorageClass::Output => {
                if self.stage == ir::Stage::Geometry {
                    self.check_stream_zero(rid, ty)?;
                }
                let tree = self.var_tree(ty, 0)?;
                if let Some(b) = self
                    .decos
                    .get(rid, Decoration::BuiltIn)
                    .and_then(|v| v.first())
                {
                    let b = BuiltIn::from_u32(*b).ok_or_else(|| invalid("unknown builtin"))?;
                    if matches!(b, BuiltIn::ClipDistance | BuiltIn::CullDistance) {
                        // A variable of its own is written whenever the shader declares it.
                        self.distance_outputs(b, &tree)?;
                    } else if matches!(b, BuiltIn::PrimitiveId | BuiltIn::Layer)
                        && self.stage == ir::Stage::Geometry
                    {
                        let mut leaves = Vec::new();
                        leaf_vars(&tree, &mut leaves);
                        let [v] = leaves[..] else {
                            return Err(invalid(format!("{b:?} that is not a scalar")));
                        };
                        let location = if b == BuiltIn::Layer {
                            ir::LAYER_LOCATION
                        } else {
                            ir::PRIMITIVE_ID_LOCATION
                        };
                        self.outputs.push((
                            v,
                            OutTarget::Location {
                                location,
                                component: 0,
                            },
                        ));
                    } else if let Some(ob) = output_builtin(b)? {
                        let mut leaves = Vec::new();
                        leaf_vars(&tree, &mut leaves);
                        let [v] = leaves[..] else {
                            return Err(unsupported(format!("{b:?} of an unusual type")));
                        };
                        self.outputs.push((v, OutTarget::Builtin(ob)));
                    }
                } else if self.has_member_builtins(ty) {
                    let (SpvType::Struct { members }, VarTree::Node(kids)) =
                        (self.l.get(ty)?.clone(), &tree)
                    else {
                        return Err(invalid("built-in output block that is not a struct"));
                    };
                    for (m, kid) in kids.iter().enumerate().take(members.len()) {
                        let b = self
                            .decos
                            .member(ty, m as u32, Decoration::BuiltIn)
                            .and_then(|v| v.first().copied())
                            .ok_or_else(|| unsupported("block mixing built-in and user outputs"))?;
                        let b = BuiltIn::from_u32(b).ok_or_else(|| invalid("unknown builtin"))?;
                        let written = self.written_members.contains(&(rid, m as u32));
                        if matches!(b, BuiltIn::ClipDistance | BuiltIn::CullDistance) {
                            // glslang declares both in every gl_PerVertex (as float[1] when
                            // unused): only the written ones enable planes.
                            if written {
                                self.distance_outputs(b, kid)?;
                            }
                            continue;
                        }
                        match output_builtin(b)? {
                            Some(ob) if written => {
                                let mut leaves = Vec::new();
                                leaf_vars(kid, &mut leaves);
                                let [v] = leaves[..] else {
                                    return Err(unsupported(format!("{b:?} of an unusual type")));
                                };
                                self.outputs.push((v, OutTarget::Builtin(ob)));
                            }
                            _ => {}
                        }
                    }
                } else {
                    // Index 0 is what an output without the decoration has (Zink writes it
                    // on every fragment output); Index 1 is the second source of
                    // dual-source blending, which only target 0 has
                    // (maxFragmentDualSrcAttachments is 1).
                    let index = self
                        .decos
                        .get(rid, Decoration::Index)
                        .and_then(|v| v.first().copied())
                        .unwrap_or(0);
                    if index > 1 || (index == 1 && self.stage != ir::Stage::Fragment) {
                        return Err(invalid(format!("output Index {index}")));
                    }
                    let slots = self.io_slots(rid, ty)?;
                    let mut leaves = Vec::new();
                    leaf_vars(&tree, &mut leaves);
                    if leaves.len() != slots.len() {
                        return Err(CompileError::Internal("interface leaves and slots".into()));
                    }
                    for (v, slot) in leaves.into_iter().zip(slots) {
                        self.io_leaf_type(v, slot.component)?;
                        let target = match index {
                            0 => OutTarget::Location {
                                location: slot.location,
                                component: slot.component,
                            },
                            _ if slot.location == 0 => OutTarget::SecondBlendSource {
                                component: slot.component,
                            },
                            _ => {
                                return Err(unsupported(format!(
                                    "dual-source output at Location {} (only 0 has one)",
                                    slot.location
                                )))
                            }
                        };
                        self.outputs.push((v, target));
                    }
                }
                self.collect_xfb(rid, ty, &tree)?;
                Ok(Some(Ptr::Vars { tree, ty }))
            }
            _ => Ok(None),
        }
    }

    /// A geometry shader input that is one value per invocation (gl_InvocationID,
    /// gl_PrimitiveIDIn), not an array over the input vertices.
    fn is_primitive_builtin(&self, rid: Word) -> bool {
        self.decos
            .get(rid, Decoration::BuiltIn)
            .and_then(|v| v.first())
            .is_some_and(|b| {
                *b == BuiltIn::InvocationId as u32 || *b == BuiltIn::PrimitiveId as u32
            })
    }

    /// A geometry shader output must go to vertex stream 0, the only one agx4 has.
    fn check_stream_zero(&self, rid: Word, ty: Word) -> Result<(), CompileError> {
        let mut streams: Vec<u32> = self
            .decos
            .get(rid, Decoration::Stream)
            .map(|v| v.to_vec())
            .unwrap_or_default();
        if let Ok(SpvType::Struct { members }) = self.l.get(ty) {
            for m in 0..members.len() as u32 {
                streams.extend(self.decos.member(ty, m, Decoration::Stream).unwrap_or(&[]));
            }
        }
        match streams.iter().find(|s| **s != 0) {
            Some(s) => Err(unsupported(format!(
                "geometry shader output to vertex stream {s} (agx4 has stream 0 only)"
            ))),
            None => Ok(()),
        }
    }

    /// ClipDistance or CullDistance, when variable `rid` is one of them.
    fn distance_builtin(&self, rid: Word) -> Option<BuiltIn> {
        let b = *self.decos.get(rid, Decoration::BuiltIn)?.first()?;
        BuiltIn::from_u32(b).filter(|b| matches!(b, BuiltIn::ClipDistance | BuiltIn::CullDistance))
    }

    /// The leaves (array elements) of a clip or cull distance array, at most
    /// [`ir::MAX_CLIP_DISTANCES`] F32 scalars.
    fn distance_leaves(&self, b: BuiltIn, tree: &VarTree) -> Result<Vec<Var>, CompileError> {
        let mut leaves = Vec::new();
        leaf_vars(tree, &mut leaves);
        if leaves.len() > ir::MAX_CLIP_DISTANCES as usize {
            return Err(CompileError::Limit(format!(
                "{} {b:?} elements",
                leaves.len()
            )));
        }
        for v in &leaves {
            if self.sh.var_types[v.0 as usize] != Type::F32 {
                return Err(invalid(format!("{b:?} that is not an array of float")));
            }
        }
        Ok(leaves)
    }

    /// A vertex shader's gl_ClipDistance or gl_CullDistance: the clipper's planes or the cull
    /// flags, and the values themselves as varyings for a fragment shader that reads them.
    fn distance_outputs(&mut self, b: BuiltIn, tree: &VarTree) -> Result<(), CompileError> {
        if !matches!(self.stage, ir::Stage::Vertex | ir::Stage::Geometry) {
            return Err(invalid(format!(
                "{b:?} output of a {:?} shader",
                self.stage
            )));
        }
        let clip = b == BuiltIn::ClipDistance;
        let base = if clip {
            ir::CLIP_DISTANCE_LOCATION
        } else {
            ir::CULL_DISTANCE_LOCATION
        };
        for (k, v) in self.distance_leaves(b, tree)?.into_iter().enumerate() {
            let k = k as u8;
            let hw = if clip {
                OutTarget::Builtin(OutputBuiltin::ClipDistance(k))
            } else {
                OutTarget::CullFlag { index: k }
            };
            self.outputs.push((v, hw));
            let varying = OutTarget::Location {
                location: base + u32::from(k / 4),
                component: k % 4,
            };
            self.outputs.push((v, varying));
        }
        Ok(())
    }

    /// A fragment shader's gl_PrimitiveID or gl_Layer: the geometry shader's, a flat varying
    /// at `location`.
    fn flat_builtin_input(&mut self, location: u32, ty: Word) -> Result<Ptr, CompileError> {
        let tree = self.var_tree(ty, 0)?;
        let mut leaves = Vec::new();
        leaf_vars(&tree, &mut leaves);
        let [v] = leaves[..] else {
            return Err(invalid("PrimitiveId or Layer that is not a scalar"));
        };
        let interp = InputInterp {
            mode: Interpolation::Flat,
            sampling: Sampling::Center,
        };
        self.input_slots.insert(
            v,
            super::fragment_ops::InputSlot {
                location,
                component: 0,
                mode: interp.mode,
            },
        );
        let x = self.emit(
            Type::I32,
            ir::Op::LoadInput {
                location,
                component: 0,
                interp,
            },
        )?;
        self.effect(ir::Op::StoreVar(v, x))?;
        Ok(Ptr::Vars { tree, ty })
    }

    /// A fragment shader's gl_ClipDistance or gl_CullDistance: the vertex shader's values,
    /// interpolated.
    fn distance_input(&mut self, b: BuiltIn, ty: Word) -> Result<Ptr, CompileError> {
        if self.stage != ir::Stage::Fragment {
            return Err(unsupported(format!(
                "{b:?} input of a {:?} shader",
                self.stage
            )));
        }
        let base = if b == BuiltIn::ClipDistance {
            ir::CLIP_DISTANCE_LOCATION
        } else {
            ir::CULL_DISTANCE_LOCATION
        };
        let tree = self.var_tree(ty, 0)?;
        for (k, v) in self.distance_leaves(b, &tree)?.into_iter().enumerate() {
            let location = base + k as u32 / 4;
            let component = (k % 4) as u8;
            let interp = InputInterp {
                mode: Interpolation::Smooth,
                sampling: Sampling::Center,
            };
            self.input_slots.insert(
                v,
                super::fragment_ops::InputSlot {
                    location,
                    component,
                    mode: interp.mode,
                },
            );
            let x = self.emit(
                Type::F32,
                ir::Op::LoadInput {
                    location,
                    component,
                    interp,
                },
            )?;
            self.effect(ir::Op::StoreVar(v, x))?;
        }
        Ok(Ptr::Vars { tree, ty })
    }

    pub(super) fn has_member_builtins(&self, ty: Word) -> bool {
        match self.l.get(ty) {
            Ok(SpvType::Struct { members }) => (0..members.len() as u32)
                .any(|m| self.decos.member(ty, m, Decoration::BuiltIn).is_some()),
            _ => false,
        }
    }

    /// Writes every output Var to its target; called where the entry point returns.
    pub fn emit_outputs(&mut self) -> Result<(), CompileError> {
        for (v, target) in self.outputs.clone() {
            let t = self.sh.var_types[v.0 as usize];
            let x = self.emit(t, ir::Op::LoadVar(v))?;
            let op = match target {
                OutTarget::Location {
                    location,
                    component,
                } => ir::Op::StoreOutput {
                    location,
                    component,
                    value: x,
                },
                OutTarget::Builtin(builtin) => ir::Op::StoreBuiltin {
                    builtin,
                    component: 0,
                    value: x,
                },
                OutTarget::SecondBlendSource { component } => ir::Op::StoreBuiltin {
                    builtin: OutputBuiltin::SecondBlendSource,
                    component,
                    value: x,
                },
                OutTarget::CullFlag { index } => {
                    let zero = self.fconst_like(x, 0.0)?;
                    let one = self.fconst_like(x, 1.0)?;
                    let inside = self.emit(Type::BOOL, ir::Op::Cmp(ir::CmpOp::FOGe, x, zero))?;
                    let flag = self.emit(Type::F32, ir::Op::Select(inside, one, zero))?;
                    ir::Op::StoreOutput {
                        location: ir::CULL_FLAG_LOCATION + u32::from(index / 4),
                        component: index % 4,
                        value: flag,
                    }
                }
            };
            self.effect(op)?;
        }
        Ok(())
    }

    /// The graphics built-in inputs, as the IR types the declared SPIR-V type asks for.
    pub fn load_stage_builtin(
        &mut self,
        b: BuiltIn,
        lane: Option<u32>,
        ty: Word,
    ) -> Result<Option<FVal>, CompileError> {
        let t = self.l.ir_type(ty)?;
        let sv = |i: u32| match b {
            BuiltIn::VertexIndex => Some(ir::SysVal::VertexIndex),
            BuiltIn::InstanceIndex => Some(ir::SysVal::InstanceIndex),
            BuiltIn::BaseVertex => Some(ir::SysVal::BaseVertex),
            BuiltIn::BaseInstance => Some(ir::SysVal::BaseInstance),
            BuiltIn::DrawIndex => Some(ir::SysVal::DrawIndex),
            BuiltIn::FragCoord => Some(ir::SysVal::FragCoord(i as u8)),
            BuiltIn::PointCoord => Some(ir::SysVal::PointCoord(i as u8)),
            BuiltIn::FrontFacing => Some(ir::SysVal::FrontFacing),
            BuiltIn::SampleId => Some(ir::SysVal::SampleId),
            BuiltIn::SamplePosition => Some(ir::SysVal::SamplePosition(i as u8)),
            BuiltIn::ViewIndex => Some(ir::SysVal::ViewIndex),
            BuiltIn::SampleMask => Some(ir::SysVal::SampleMaskIn),
            BuiltIn::HelperInvocation => Some(ir::SysVal::HelperInvocation),
            BuiltIn::InvocationId => Some(ir::SysVal::InvocationId),
            BuiltIn::PrimitiveId => Some(ir::SysVal::PrimitiveId),
            _ => None,
        };
        if sv(0).is_none() {
            return Ok(None);
        }
        let allowed: &[ir::Stage] = match b {
            BuiltIn::VertexIndex
            | BuiltIn::InstanceIndex
            | BuiltIn::BaseVertex
            | BuiltIn::BaseInstance
            | BuiltIn::DrawIndex => &[ir::Stage::Vertex],
            BuiltIn::ViewIndex => &[ir::Stage::Vertex, ir::Stage::Fragment],
            // A fragment shader's PrimitiveId needs the geometryShader feature too.
            BuiltIn::InvocationId | BuiltIn::PrimitiveId => &[ir::Stage::Geometry],
            _ => &[ir::Stage::Fragment],
        };
        if b == BuiltIn::PrimitiveId && self.stage == ir::Stage::Fragment {
            return Err(unsupported("PrimitiveId in a fragment shader"));
        }
        if !allowed.contains(&self.stage) {
            return Err(invalid(format!("{b:?} in a {:?} shader", self.stage)));
        }
        match b {
            // Float vectors, read one component at a time.
            BuiltIn::SamplePosition | BuiltIn::FragCoord | BuiltIn::PointCoord => {
                let lanes = if b == BuiltIn::FragCoord { 4 } else { 2 };
                if t.scalar != Scalar::F32 || (lane.is_none() && u32::from(t.lanes) != lanes) {
                    return Err(invalid(format!("{b:?} of type {t:?}")));
                }
                match b {
                    BuiltIn::SamplePosition => self.per_sample = true,
                    BuiltIn::FragCoord if !self.origin_upper_left => {
                        return Err(invalid("FragCoord without OriginUpperLeft"));
                    }
                    _ => {}
                }
                let one = |tr: &mut Self, i: u32| -> Result<ir::Value, CompileError> {
                    let s = sv(i).ok_or_else(|| invalid("builtin"))?;
                    tr.emit(Type::F32, ir::Op::SysVal(s))
                };
                if let Some(l) = lane {
                    return Ok(Some(FVal::V(one(self, l)?)));
                }
                let lanes = (0..u32::from(t.lanes))
                    .map(|i| one(self, i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Some(FVal::V(self.emit(t, ir::Op::Vector(lanes))?)))
            }
            BuiltIn::HelperInvocation => {
                if t != Type::BOOL {
                    return Err(invalid("HelperInvocation of a non-boolean type"));
                }
                Ok(Some(FVal::V(self.is_helper()?)))
            }
            BuiltIn::FrontFacing => {
                if t != Type::BOOL {
                    return Err(invalid("FrontFacing of a non-boolean type"));
                }
                let x = self.emit(Type::I32, ir::Op::SysVal(ir::SysVal::FrontFacing))?;
                let z = self.u32c(0)?;
                Ok(Some(FVal::V(
                    self.emit(Type::BOOL, ir::Op::Cmp(ir::CmpOp::INe, x, z))?,
                )))
            }
            _ => {
                if t != Type::I32 {
                    return Err(invalid(format!("{b:?} of type {t:?}")));
                }
                if b == BuiltIn::SampleId {
                    self.per_sample = true;
                }
                let s = sv(0).ok_or_else(|| invalid("builtin"))?;
                Ok(Some(FVal::V(self.emit(Type::I32, ir::Op::SysVal(s))?)))
            }
        }
    }
}

/// Members of built-in output blocks (variable, member index) reached by an access chain
/// anywhere in the module: only those are written out (an unused gl_PointSize must not be
/// stored with an undefined value).
pub(super) fn referenced_members(
    m: &rspirv::dr::Module,
    consts: &std::collections::HashMap<Word, (Word, super::constants::CVal)>,
) -> Result<std::collections::HashSet<(Word, u32)>, CompileError> {
    let mut out = std::collections::HashSet::new();
    for f in &m.functions {
        for b in &f.blocks {
            for inst in &b.instructions {
                if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                    continue;
                }
                if inst.operands.len() < 2 {
                    continue;
                }
                let base = id(inst, 0)?;
                if let Some(ix) = super::constants::as_u32(consts, id(inst, 1)?) {
                    out.insert((base, ix));
                }
            }
        }
    }
    Ok(out)
}
