//! Graphics pipelines with a geometry shader (docs/geometry.md). AGX has no geometry stage,
//! so such a pipeline compiles into two programs:
//!
//! - the geometry draw's program: the vertex shader merged into the geometry shader
//!   (`passes::merge_vertex_inputs`), with the prologue that finds each invocation's input
//!   primitive (`passes::geometry_prologue`) and the output half that writes vertex records
//!   and an index list (`passes::lower_geometry_outputs`). It runs as a point draw with
//!   rasterization discarded, like the transform feedback capture variant.
//! - a pass-through vertex shader that reads one record per vertex for the rasterization
//!   draw, which stands for the application's vertex shader in the rest of the pipeline.

use crate::abi;
use crate::g13::{FragmentOutputs, VaryingLayout};
use crate::graphics_api::{stage_binary, StageBinary};
use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, GeometryInfo, GraphicsShader, InputPrimitive, Inst, Node, Op,
    OutputBuiltin, OutputPrimitive, PerVertexSlot, Shader, Space, Stage, SysVal, Type,
    LAYER_LOCATION,
};
use crate::passes::{self, geometry_prologue, GeometryRecord};
use crate::{CompileError, ShaderRequest};

/// The geometry draw's program and what the ICD needs to record the two draws.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GeometryBinary {
    /// The merged program; it preloads `abi::GEOMETRY_ROOT_TABLE_SIZE` bytes of root table.
    pub program: StageBinary,
    /// Bytes per output vertex record.
    pub stride: u32,
    pub max_vertices: u32,
    pub invocations: u32,
    pub input: InputPrimitive,
    pub output: OutputPrimitive,
    /// The geometry shader writes gl_Layer: the ICD records a rasterization draw per
    /// framebuffer layer (`abi::GEOMETRY_LAYER`).
    pub writes_layer: bool,
    /// The pipeline has no geometry shader of its own: this one drops the adjacent vertices
    /// of its topology ([`adjacency_passthrough`]), and nothing counts it as a geometry
    /// shader (pipeline statistics).
    pub generated: bool,
}

/// Translates the geometry shader of `gs`.
pub(crate) fn translate_geometry(gs: &ShaderRequest<'_>) -> Result<GraphicsShader, CompileError> {
    if gs.stage != Stage::Geometry {
        return Err(CompileError::Internal(format!(
            "geometry stage request for a {:?} shader",
            gs.stage
        )));
    }
    crate::translate_graphics(gs)
}

/// The geometry shader `g` merged with `vs`, its outputs lowered to vertex records.
struct Merged {
    shader: GraphicsShader,
    record: GeometryRecord,
    info: GeometryInfo,
}

fn merge(vs: &GraphicsShader, g: &GraphicsShader) -> Result<Merged, CompileError> {
    let info = g
        .geometry
        .ok_or_else(|| CompileError::Internal("geometry shader without GeometryInfo".into()))?;
    let mut ids = None;
    let mut merged = passes::merge_vertex_inputs(vs, g, &mut |sh| {
        let p = geometry_prologue::corners(sh, &info)?;
        ids = Some((p.primitive, p.invocation, p.valid));
        Ok((p.head, p.corners))
    })?;
    let (primitive, invocation, valid) =
        ids.ok_or_else(|| CompileError::Internal("the geometry prologue did not run".into()))?;
    let record = passes::lower_geometry_outputs(
        &mut merged,
        &mut |sh| geometry_prologue::flat_invocation(sh, &info),
        valid,
    )?;
    passes::rewrite(&mut merged.shader, &mut |_, inst, out| {
        let op = match inst.op {
            Op::SysVal(SysVal::PrimitiveId) => Op::Copy(primitive),
            Op::SysVal(SysVal::InvocationId) => Op::Copy(invocation),
            op => op,
        };
        out.inst(Inst { dst: inst.dst, op });
        Ok(())
    })?;
    Ok(Merged {
        shader: merged,
        record,
        info,
    })
}

/// The pass-through vertex shader of a pipeline with the geometry shader `g`, before its
/// vertex shader's input layout is known. The records hold only what `g` writes, so an
/// empty vertex shader stands in for the real one.
pub(crate) fn passthrough_of(g: &GraphicsShader) -> Result<GraphicsShader, CompileError> {
    let empty = GraphicsShader {
        stage: Stage::Vertex,
        ..GraphicsShader::default()
    };
    let m = merge(&empty, g)?;
    let mut passthrough = passthrough_vertex(&m.record);
    passthrough.xfb = g.xfb.clone();
    Ok(passthrough)
}

/// Compiles the geometry draw's program from `vs` (vertex input lowered, point size not
/// clamped) and the translated geometry shader `g`; returns it with the pass-through vertex
/// shader.
pub(crate) fn compile_geometry(
    vs: &GraphicsShader,
    g: &GraphicsShader,
) -> Result<(GeometryBinary, GraphicsShader), CompileError> {
    let Merged {
        shader: mut merged,
        record,
        info,
    } = merge(vs, g)?;
    passes::lower_int_div(&mut merged.shader)?;
    for pass in [
        passes::const_fold,
        passes::copy_prop,
        passes::cse,
        passes::dce,
    ] {
        pass(&mut merged.shader)?;
    }
    // What is left has the form of a vertex shader with rasterization discarded.
    merged.stage = Stage::Vertex;
    merged.geometry = None;
    merged.xfb = None;
    let layout = VaryingLayout::new(&[], false)?;
    let mut program = stage_binary(crate::g13::compile_graphics(
        &merged,
        &layout,
        &FragmentOutputs::default(),
    )?);
    program.uniform_halves = abi::GEOMETRY_ROOT_TABLE_SIZE / 2;
    // Transform feedback captures the geometry shader's vertices: the pass-through vertex
    // shader writes the same outputs, so its capture variant does.
    let mut passthrough = passthrough_vertex(&record);
    passthrough.xfb = g.xfb.clone();
    Ok((
        GeometryBinary {
            program,
            stride: record.stride,
            max_vertices: info.max_vertices,
            invocations: info.invocations,
            input: info.input,
            output: info.output,
            writes_layer: record
                .slots
                .iter()
                .any(|s| s.0 .0 == PerVertexSlot::Location(LAYER_LOCATION)),
            generated: false,
        },
        passthrough,
    ))
}

/// The rasterization draw's vertex shader: vertex i writes the outputs of record i.
fn passthrough_vertex(record: &GeometryRecord) -> GraphicsShader {
    let mut sh = Shader::default();
    let mut insts = Vec::new();
    let def = |sh: &mut Shader, insts: &mut Vec<Inst>, ty: Type, op: Op| {
        let v = sh.new_value(ty);
        insts.push(Inst { dst: Some(v), op });
        v
    };
    let vi = def(
        &mut sh,
        &mut insts,
        Type::I32,
        Op::SysVal(SysVal::VertexIndex),
    );
    let at = def(
        &mut sh,
        &mut insts,
        Type::I32,
        Op::Const(Constant(vec![u64::from(abi::GEOMETRY_RECORD_ADDRESS)])),
    );
    let base = def(
        &mut sh,
        &mut insts,
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: at,
            align: 8,
        },
    );
    let stride = def(
        &mut sh,
        &mut insts,
        Type::I32,
        Op::Const(Constant(vec![u64::from(record.stride)])),
    );
    let off = def(
        &mut sh,
        &mut insts,
        Type::I32,
        Op::Binary(BinOp::IMul, vi, stride),
    );
    let off = def(&mut sh, &mut insts, Type::I64, Op::Conv(ConvOp::UToU, off));
    let rec = def(
        &mut sh,
        &mut insts,
        Type::I64,
        Op::Binary(BinOp::IAdd, base, off),
    );
    let mut position = [None; 4];
    let mut layer = None;
    let mut stores = Vec::new();
    for &((slot, component), byte) in &record.slots {
        let k = def(
            &mut sh,
            &mut insts,
            Type::I64,
            Op::Const(Constant(vec![u64::from(byte)])),
        );
        let addr = def(
            &mut sh,
            &mut insts,
            Type::I64,
            Op::Binary(BinOp::IAdd, rec, k),
        );
        let bits = def(
            &mut sh,
            &mut insts,
            Type::I32,
            Op::Load {
                space: Space::Global,
                addr,
                align: 4,
            },
        );
        match slot {
            PerVertexSlot::Location(location) => {
                if location == LAYER_LOCATION {
                    layer = Some(bits);
                }
                stores.push(Op::StoreOutput {
                    location,
                    component,
                    value: bits,
                });
            }
            PerVertexSlot::Builtin(builtin) => {
                let value = def(
                    &mut sh,
                    &mut insts,
                    Type::F32,
                    Op::Conv(ConvOp::Bitcast, bits),
                );
                if builtin == OutputBuiltin::Position {
                    position[usize::from(component & 3)] = Some(stores.len());
                }
                stores.push(Op::StoreBuiltin {
                    builtin,
                    component,
                    value,
                });
            }
        }
    }
    match layer {
        // A vertex of another layer than the draw's goes outside the clip volume (x = 2w,
        // w = 1), so its primitive is not drawn on this layer.
        Some(layer) => {
            let at = def(
                &mut sh,
                &mut insts,
                Type::I32,
                Op::Const(Constant(vec![u64::from(abi::GEOMETRY_LAYER)])),
            );
            let drawn = def(
                &mut sh,
                &mut insts,
                Type::I32,
                Op::Load {
                    space: Space::Root,
                    addr: at,
                    align: 4,
                },
            );
            let keep = def(
                &mut sh,
                &mut insts,
                Type::BOOL,
                Op::Cmp(CmpOp::IEq, layer, drawn),
            );
            for (c, away) in [(0, 2.0f32), (1, 0.0), (2, 0.0), (3, 1.0)] {
                let Some(i) = position[c] else { continue };
                let Op::StoreBuiltin { value, .. } = &mut stores[i] else {
                    continue;
                };
                let far = def(
                    &mut sh,
                    &mut insts,
                    Type::F32,
                    Op::Const(Constant(vec![u64::from(away.to_bits())])),
                );
                *value = def(
                    &mut sh,
                    &mut insts,
                    Type::F32,
                    Op::Select(keep, *value, far),
                );
            }
        }
        // gl_Layer is 0 for a fragment shader after a geometry shader that does not write it.
        None => {
            let zero = def(&mut sh, &mut insts, Type::I32, Op::Const(Constant(vec![0])));
            stores.push(Op::StoreOutput {
                location: LAYER_LOCATION,
                component: 0,
                value: zero,
            });
        }
    }
    insts.extend(stores.into_iter().map(|op| Inst { dst: None, op }));
    sh.body = vec![Node::Block(insts)];
    GraphicsShader {
        stage: Stage::Vertex,
        shader: sh,
        ..GraphicsShader::default()
    }
}

/// The geometry shader a pipeline without one runs for a topology with adjacency: each
/// input primitive becomes its plain line or triangle (corners 1 and 2 of a line, 0, 2 and 4
/// of a triangle), every output of `vs` passed through, and gl_PrimitiveID as a geometry
/// shader writes it. The adjacency vertices are read by no one, as the spec has it.
pub(crate) fn adjacency_passthrough(
    vs: &GraphicsShader,
    input: InputPrimitive,
) -> Result<GraphicsShader, CompileError> {
    let (corners, output): (&[u32], _) = match input {
        InputPrimitive::LinesAdjacency => (&[1, 2], OutputPrimitive::LineStrip),
        InputPrimitive::TrianglesAdjacency => (&[0, 2, 4], OutputPrimitive::TriangleStrip),
        other => {
            return Err(CompileError::Internal(format!(
                "adjacency pass-through for {other:?}"
            )))
        }
    };
    let mut stores = Vec::new();
    vertex_stores(&vs.shader, &vs.shader.body, &mut stores);
    if let Some((_, _, ty)) = stores
        .iter()
        .find(|(_, _, ty)| ty.scalar.bits() != 32 || ty.lanes > 4)
    {
        return Err(CompileError::Unsupported(format!(
            "a {ty:?} vertex shader output with an adjacency topology and no geometry shader"
        )));
    }
    let mut g = GraphicsShader {
        stage: Stage::Geometry,
        xfb: vs.xfb.clone(),
        geometry: Some(GeometryInfo {
            input,
            output,
            max_vertices: corners.len() as u32,
            invocations: 1,
        }),
        ..GraphicsShader::default()
    };
    let sh = &mut g.shader;
    let mut insts = Vec::new();
    let def = |sh: &mut Shader, insts: &mut Vec<Inst>, ty: Type, op: Op| {
        let v = sh.new_value(ty);
        insts.push(Inst { dst: Some(v), op });
        v
    };
    let primitive = def(sh, &mut insts, Type::I32, Op::SysVal(SysVal::PrimitiveId));
    for &k in corners {
        let vertex = def(
            sh,
            &mut insts,
            Type::I32,
            Op::Const(Constant(vec![u64::from(k)])),
        );
        for &(slot, component, ty) in &stores {
            let value = def(
                sh,
                &mut insts,
                ty,
                Op::LoadPerVertex {
                    vertex,
                    slot,
                    component,
                },
            );
            let op = match slot {
                PerVertexSlot::Location(location) => Op::StoreOutput {
                    location,
                    component,
                    value,
                },
                PerVertexSlot::Builtin(builtin) => Op::StoreBuiltin {
                    builtin,
                    component,
                    value,
                },
            };
            insts.push(Inst { dst: None, op });
        }
        insts.push(Inst {
            dst: None,
            op: Op::StoreOutput {
                location: crate::ir::PRIMITIVE_ID_LOCATION,
                component: 0,
                value: primitive,
            },
        });
        insts.push(Inst {
            dst: None,
            op: Op::EmitVertex,
        });
    }
    sh.body = vec![Node::Block(insts)];
    Ok(g)
}

/// Every (slot, first component, type) a vertex shader stores an output to.
fn vertex_stores(sh: &Shader, ns: &[Node], out: &mut Vec<(PerVertexSlot, u8, Type)>) {
    for n in ns {
        match n {
            Node::Block(is) => {
                for i in is {
                    let store = match i.op {
                        Op::StoreOutput {
                            location,
                            component,
                            value,
                        } => (PerVertexSlot::Location(location), component, sh.ty(value)),
                        Op::StoreBuiltin {
                            builtin,
                            component,
                            value,
                        } => (PerVertexSlot::Builtin(builtin), component, sh.ty(value)),
                        _ => continue,
                    };
                    if !out.contains(&store) {
                        out.push(store);
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                vertex_stores(sh, then_body, out);
                vertex_stores(sh, else_body, out);
            }
            Node::Loop { body } => vertex_stores(sh, body, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}
