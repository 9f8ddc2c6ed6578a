//! Geometry shaders through glslang, the front end and the passes: the GeometryInfo, the
//! per-vertex input reads, EmitVertex / EndPrimitive where the source puts them, the
//! geometry built-ins, stage validation after every pass, and the clean refusals (another
//! vertex stream, the public module check, the G13 back end).

mod common;

use common::glslang_stage;
use compiler::g13::{compile_graphics, FragmentOutputs, VaryingLayout};
use compiler::ir::validate::{validate, validate_graphics};
use compiler::ir::{
    self, GeometryInfo, GraphicsShader, InputPrimitive, Inst, Node, Op, OutputBuiltin,
    OutputPrimitive, PerVertexSlot, Stage, SysVal, Type, Value,
};
use compiler::{abi, CompileError, ResourceLayout, ShaderRequest, Target};

fn layout() -> ResourceLayout {
    ResourceLayout {
        sets: Vec::new(),
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

fn request<'a>(spirv: &'a [u32], layout: &'a ResourceLayout) -> ShaderRequest<'a> {
    ShaderRequest {
        spirv,
        entry_point: "main",
        stage: Stage::Geometry,
        specialization: &[],
        layout,
        target: Target::G13,
    }
}

/// Translation of a geometry shader that may fail.
fn try_translate(src: &str) -> Result<GraphicsShader, CompileError> {
    let words = glslang_stage(src, "geom").expect("glslang");
    let layout = layout();
    compiler::frontend::translate_graphics(&request(&words, &layout))
}

/// The IR straight from the front end and after every pass, each validated with its stage's
/// rules (after every single pass too).
fn translate(src: &str) -> (GraphicsShader, GraphicsShader) {
    let words = glslang_stage(src, "geom").expect("glslang");
    compiler::check_module(&words).expect("vkCreateShaderModule's check takes geometry shaders");
    let layout = layout();
    let req = request(&words, &layout);
    let raw = compiler::frontend::translate_graphics(&req).unwrap_or_else(|e| panic!("{e}"));
    validate_graphics(&raw)
        .unwrap_or_else(|e| panic!("front end: {e}\n{}", ir::print::print(&raw.shader)));
    let mut lowered = raw.clone();
    let mut passes = 0;
    compiler::passes::run_all_observed(&mut lowered.shader, &layout, &mut |name, s| {
        passes += 1;
        let g = GraphicsShader {
            shader: s.clone(),
            ..raw.clone()
        };
        validate_graphics(&g).map_err(|e| format!("after {name}: {e}\n{}", ir::print::print(s)))
    })
    .unwrap_or_else(|e| panic!("passes: {e}"));
    assert!(passes > 10, "every pass was observed ({passes})");
    // The public entry gives the same as the observed run.
    let public = compiler::translate_graphics(&req).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(public, lowered);
    ir::validate::backend_form(&lowered.shader).unwrap_or_else(|e| panic!("{e}"));
    // The back end has no geometry stage: a clear refusal, never a panic or a binary.
    match compiler::g13::compile(&lowered.shader) {
        Err(CompileError::Unsupported(_)) => {}
        other => panic!("G13 compute compile of a geometry shader: {other:?}"),
    }
    match compile_graphics(
        &lowered,
        &VaryingLayout::default(),
        &FragmentOutputs::default(),
    ) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("geometry"), "{m}"),
        other => panic!("G13 graphics compile of a geometry shader: {other:?}"),
    }
    (raw, lowered)
}

/// Every instruction in program order, with whether it sits inside a loop.
fn insts(body: &[Node]) -> Vec<(bool, &Inst)> {
    fn walk<'a>(ns: &'a [Node], in_loop: bool, out: &mut Vec<(bool, &'a Inst)>) {
        for n in ns {
            match n {
                Node::Block(is) => out.extend(is.iter().map(|i| (in_loop, i))),
                Node::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    walk(then_body, in_loop, out);
                    walk(else_body, in_loop, out);
                }
                Node::Loop { body } => walk(body, true, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, false, &mut out);
    out
}

/// The constant a value is defined as, if it is a scalar constant.
fn const_of(g: &GraphicsShader, v: Value) -> Option<u64> {
    insts(&g.shader.body)
        .into_iter()
        .find(|(_, i)| i.dst == Some(v))
        .and_then(|(_, i)| match &i.op {
            Op::Const(c) if c.0.len() == 1 => Some(c.0[0]),
            _ => None,
        })
}

/// The per-vertex reads: (vertex constant or None if dynamic, slot, component, type, in a
/// loop).
fn reads(g: &GraphicsShader) -> Vec<(Option<u64>, PerVertexSlot, u8, Type, bool)> {
    insts(&g.shader.body)
        .into_iter()
        .filter_map(|(l, i)| match i.op {
            Op::LoadPerVertex {
                vertex,
                slot,
                component,
            } => Some((
                const_of(g, vertex),
                slot,
                component,
                g.shader.ty(i.dst.unwrap()),
                l,
            )),
            _ => None,
        })
        .collect()
}

fn count(g: &GraphicsShader, f: impl Fn(&Op) -> bool) -> usize {
    insts(&g.shader.body)
        .into_iter()
        .filter(|(_, i)| f(&i.op))
        .count()
}

fn is_output_store(op: &Op) -> bool {
    matches!(op, Op::StoreOutput { .. } | Op::StoreBuiltin { .. })
}

#[test]
fn points_in_points_out() {
    let (raw, lowered) = translate(
        "#version 450
        layout(points) in;
        layout(points, max_vertices = 1) out;
        layout(location = 0) in vec4 colour[];
        layout(location = 1) in flat ivec2 id[];
        layout(location = 0) out vec4 o;
        layout(location = 1) out flat int oid;
        void main() {
            gl_Position = gl_in[0].gl_Position;
            gl_PointSize = gl_in[0].gl_PointSize;
            o = colour[0];
            oid = id[0].y;
            EmitVertex();
        }",
    );
    for g in [&raw, &lowered] {
        assert_eq!(g.stage, Stage::Geometry);
        assert_eq!(
            g.geometry,
            Some(GeometryInfo {
                input: InputPrimitive::Points,
                output: OutputPrimitive::Points,
                max_vertices: 1,
                invocations: 1,
            })
        );
        assert_eq!(g.xfb, None);
    }
    let f4 = Type::vec(ir::Scalar::F32, 4);
    let mut r = reads(&raw);
    r.sort_by_key(|x| format!("{x:?}"));
    assert_eq!(
        r,
        vec![
            (
                Some(0),
                PerVertexSlot::Builtin(OutputBuiltin::PointSize),
                0,
                Type::F32,
                false
            ),
            (
                Some(0),
                PerVertexSlot::Builtin(OutputBuiltin::Position),
                0,
                f4,
                false
            ),
            (Some(0), PerVertexSlot::Location(0), 0, f4, false),
            (Some(0), PerVertexSlot::Location(1), 1, Type::I32, false),
        ]
    );
    // After scalarize every read is one component of vertex 0.
    let lr = reads(&lowered);
    assert_eq!(lr.len(), 4 + 1 + 4 + 1, "{lr:?}");
    assert!(lr.iter().all(|x| x.0 == Some(0) && x.3.is_scalar()));
    for g in [&raw, &lowered] {
        let all = insts(&g.shader.body);
        let emit = all
            .iter()
            .position(|(_, i)| i.op == Op::EmitVertex)
            .expect("EmitVertex");
        assert_eq!(count(g, |o| *o == Op::EmitVertex), 1);
        assert_eq!(count(g, |o| *o == Op::EndPrimitive), 0);
        // Position, PointSize and both locations are stored before the emit, nothing after
        // it (a geometry shader's outputs count only at EmitVertex).
        let before = all[..emit]
            .iter()
            .filter(|(_, i)| is_output_store(&i.op))
            .count();
        assert!(before >= 4, "{}", ir::print::print(&g.shader));
        assert!(
            !all[emit..].iter().any(|(_, i)| is_output_store(&i.op)),
            "{}",
            ir::print::print(&g.shader)
        );
    }
    let text = ir::print::print(&raw.shader);
    assert!(
        text.contains("LoadPerVertex") && text.contains("EmitVertex"),
        "{text}"
    );
}

#[test]
fn triangles_in_strip_out_with_a_loop() {
    let (raw, lowered) = translate(
        "#version 450
        layout(triangles) in;
        layout(triangle_strip, max_vertices = 6) out;
        layout(location = 0) in vec3 n[];
        layout(location = 0) out vec3 on;
        layout(push_constant) uniform P { vec4 offset; int copies; };
        void main() {
            for (int c = 0; c < copies; c++) {
                for (int i = 0; i < gl_in.length(); i++) {
                    gl_Position = gl_in[i].gl_Position + float(c) * offset;
                    on = n[i];
                    EmitVertex();
                }
                EndPrimitive();
            }
        }",
    );
    for g in [&raw, &lowered] {
        assert_eq!(
            g.geometry,
            Some(GeometryInfo {
                input: InputPrimitive::Triangles,
                output: OutputPrimitive::TriangleStrip,
                max_vertices: 6,
                invocations: 1,
            })
        );
        // gl_in[i] with the loop's i: reads of a dynamic vertex, inside the loop.
        let r = reads(g);
        assert!(!r.is_empty());
        assert!(r.iter().all(|x| x.0.is_none() && x.4), "{r:?}");
        assert!(r
            .iter()
            .any(|x| x.1 == PerVertexSlot::Builtin(OutputBuiltin::Position)));
        assert!(r.iter().any(|x| x.1 == PerVertexSlot::Location(0)));
        let all = insts(&g.shader.body);
        let emits: Vec<_> = all.iter().filter(|(_, i)| i.op == Op::EmitVertex).collect();
        let ends: Vec<_> = all
            .iter()
            .filter(|(_, i)| i.op == Op::EndPrimitive)
            .collect();
        assert_eq!(
            (emits.len(), ends.len()),
            (1, 1),
            "{}",
            ir::print::print(&g.shader)
        );
        assert!(emits[0].0 && ends[0].0, "both inside loops");
        // EmitVertex (inner loop) comes before EndPrimitive (after the inner loop).
        let pe = all
            .iter()
            .position(|(_, i)| i.op == Op::EmitVertex)
            .unwrap();
        let pn = all
            .iter()
            .position(|(_, i)| i.op == Op::EndPrimitive)
            .unwrap();
        assert!(pe < pn);
        // The stores of the vertex come right before its EmitVertex.
        assert!(is_output_store(&all[pe - 1].1.op));
    }
    // The inner loop is inside the outer one.
    fn loop_depth_of(ns: &[Node], want: &Op, depth: u32) -> Option<u32> {
        for n in ns {
            match n {
                Node::Block(is) if is.iter().any(|i| &i.op == want) => return Some(depth),
                Node::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    if let Some(d) = loop_depth_of(then_body, want, depth)
                        .or_else(|| loop_depth_of(else_body, want, depth))
                    {
                        return Some(d);
                    }
                }
                Node::Loop { body } => {
                    if let Some(d) = loop_depth_of(body, want, depth + 1) {
                        return Some(d);
                    }
                }
                _ => {}
            }
        }
        None
    }
    assert_eq!(loop_depth_of(&raw.shader.body, &Op::EmitVertex, 0), Some(2));
    assert_eq!(
        loop_depth_of(&raw.shader.body, &Op::EndPrimitive, 0),
        Some(1)
    );
}

#[test]
fn lines_with_adjacency_in() {
    let (raw, lowered) = translate(
        "#version 450
        layout(lines_adjacency) in;
        layout(line_strip, max_vertices = 2) out;
        in gl_PerVertex {
            vec4 gl_Position;
            float gl_ClipDistance[2];
            float gl_CullDistance[1];
        } gl_in[];
        layout(location = 2) in vec2 uv[];
        layout(location = 0) out vec2 ouv;
        layout(location = 1) out float d;
        void main() {
            for (int k = 1; k <= 2; k++) {
                gl_Position = gl_in[k].gl_Position;
                ouv = uv[3 - k];
                d = gl_in[k].gl_ClipDistance[1] + gl_in[0].gl_CullDistance[0];
                EmitVertex();
            }
        }",
    );
    for g in [&raw, &lowered] {
        let info = g.geometry.expect("geometry info");
        assert_eq!(info.input, InputPrimitive::LinesAdjacency);
        assert_eq!(info.input.vertices(), 4);
        assert_eq!(info.output, OutputPrimitive::LineStrip);
        assert_eq!(info.max_vertices, 2);
    }
    let r = reads(&raw);
    let slots: Vec<_> = r.iter().map(|x| (x.1, x.2)).collect();
    assert!(slots.contains(&(PerVertexSlot::Builtin(OutputBuiltin::ClipDistance(1)), 0)));
    assert!(slots.contains(&(PerVertexSlot::Location(ir::CULL_DISTANCE_LOCATION), 0)));
    assert!(slots.contains(&(PerVertexSlot::Location(2), 0)));
    // gl_in[0] is a constant vertex; k and 3 - k are not.
    assert!(r
        .iter()
        .any(|x| x.0 == Some(0) && x.1 == PerVertexSlot::Location(ir::CULL_DISTANCE_LOCATION)));
    assert!(r
        .iter()
        .any(|x| x.0.is_none() && x.1 == PerVertexSlot::Location(2)));
    assert_eq!(count(&lowered, |o| *o == Op::EmitVertex), 1);
}

#[test]
fn whole_vertex_array_and_dynamic_lane() {
    // OpLoad of a whole per-vertex array, and a dynamic index into a vector of one vertex.
    let (raw, _) = translate(
        "#version 450
        layout(lines) in;
        layout(points, max_vertices = 1) out;
        layout(location = 0) in vec4 a[];
        layout(location = 0) out vec4 o;
        layout(push_constant) uniform P { int lane; };
        void main() {
            vec4 both[2] = a;
            o = both[0] + both[1];
            o.x += a[1][lane];
            gl_Position = vec4(0.0);
            EmitVertex();
        }",
    );
    let r = reads(&raw);
    assert!(r
        .iter()
        .any(|x| x.0 == Some(0) && x.1 == PerVertexSlot::Location(0)));
    assert!(r
        .iter()
        .any(|x| x.0 == Some(1) && x.1 == PerVertexSlot::Location(0)));
    // a[1][lane] reads each component of vertex 1 and selects.
    for c in 0..4 {
        assert!(
            r.iter()
                .any(|x| x.0 == Some(1) && x.2 == c && x.3 == Type::F32),
            "component {c}: {r:?}"
        );
    }
}

#[test]
fn invocation_id_with_two_invocations() {
    let (raw, lowered) = translate(
        "#version 450
        layout(triangles, invocations = 2) in;
        layout(triangle_strip, max_vertices = 3) out;
        layout(location = 0) flat out int who;
        void main() {
            for (int i = 0; i < 3; i++) {
                gl_Position = gl_in[i].gl_Position;
                gl_Position.x += float(gl_InvocationID);
                who = gl_PrimitiveIDIn * 2 + gl_InvocationID;
                EmitVertex();
            }
        }",
    );
    for g in [&raw, &lowered] {
        assert_eq!(g.geometry.expect("info").invocations, 2);
        assert!(count(g, |o| *o == Op::SysVal(SysVal::InvocationId)) >= 1);
        assert!(count(g, |o| *o == Op::SysVal(SysVal::PrimitiveId)) >= 1);
    }
}

#[test]
fn emit_stream_zero_is_emit_vertex() {
    let (raw, _) = translate(
        "#version 450
        layout(points) in;
        layout(points, max_vertices = 2) out;
        void main() {
            gl_Position = gl_in[0].gl_Position;
            EmitStreamVertex(0);
            EndStreamPrimitive(0);
        }",
    );
    assert_eq!(count(&raw, |o| *o == Op::EmitVertex), 1);
    assert_eq!(count(&raw, |o| *o == Op::EndPrimitive), 1);
}

#[test]
fn another_stream_is_refused() {
    let e = try_translate(
        "#version 450
        layout(points) in;
        layout(points, max_vertices = 2) out;
        void main() {
            gl_Position = gl_in[0].gl_Position;
            EmitStreamVertex(1);
        }",
    )
    .expect_err("stream 1");
    match e {
        CompileError::Unsupported(m) => assert!(m.contains("stream 1"), "{m}"),
        other => panic!("{other:?}"),
    }
    let e = try_translate(
        "#version 450
        layout(points) in;
        layout(points, max_vertices = 2) out;
        layout(stream = 1) out;
        layout(location = 0) out vec4 s1;
        void main() {
            s1 = gl_in[0].gl_Position;
            EmitStreamVertex(1);
        }",
    )
    .expect_err("stream 1 output");
    match e {
        CompileError::Unsupported(m) => assert!(m.contains("stream 1"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn geometry_ops_outside_geometry_shaders_are_invalid() {
    let mut sh = ir::Shader::default();
    let x = sh.new_value(Type::I32);
    let y = sh.new_value(Type::F32);
    sh.body = vec![Node::Block(vec![
        Inst {
            dst: Some(x),
            op: Op::Const(ir::Constant(vec![0])),
        },
        Inst {
            dst: Some(y),
            op: Op::LoadPerVertex {
                vertex: x,
                slot: PerVertexSlot::Location(0),
                component: 0,
            },
        },
        Inst {
            dst: None,
            op: Op::EmitVertex,
        },
    ])];
    validate(&sh).expect("well-formed IR");
    let info = GeometryInfo {
        input: InputPrimitive::Points,
        output: OutputPrimitive::Points,
        max_vertices: 1,
        invocations: 1,
    };
    let gs = GraphicsShader {
        stage: Stage::Geometry,
        geometry: Some(info),
        shader: sh.clone(),
        ..Default::default()
    };
    validate_graphics(&gs).expect("a geometry shader may");
    let vs = GraphicsShader {
        stage: Stage::Vertex,
        shader: sh.clone(),
        ..Default::default()
    };
    let e = validate_graphics(&vs).expect_err("vertex shader");
    assert!(e.contains("Vertex"), "{e}");
    // The info belongs to geometry shaders, and within Vulkan's limits.
    assert!(validate_graphics(&GraphicsShader {
        geometry: None,
        ..gs.clone()
    })
    .is_err());
    for bad in [
        GeometryInfo {
            max_vertices: 0,
            ..info
        },
        GeometryInfo {
            invocations: 33,
            ..info
        },
    ] {
        assert!(validate_graphics(&GraphicsShader {
            geometry: Some(bad),
            ..gs.clone()
        })
        .is_err());
    }
    // A per-vertex read of a vector past component 3 is malformed.
    let mut bad = sh;
    let z = bad.new_value(Type::vec(ir::Scalar::F32, 2));
    if let Node::Block(is) = &mut bad.body[0] {
        is.push(Inst {
            dst: Some(z),
            op: Op::LoadPerVertex {
                vertex: x,
                slot: PerVertexSlot::Location(0),
                component: 3,
            },
        });
    }
    assert!(validate(&bad).is_err());
}

#[test]
fn bad_geometry_modes_fail_cleanly() {
    // More output vertices or invocations than agx4's limits (glslang refuses to write
    // them, so the words are patched): a Limit error, not a panic.
    let words = glslang_stage(
        "#version 450
        layout(points, invocations = 3) in;
        layout(points, max_vertices = 5) out;
        void main() { EmitVertex(); }",
        "geom",
    )
    .expect("glslang");
    let layout = layout();
    // OpExecutionMode %main <mode> <literal>: 4 words, opcode 16.
    let patched = |mode: u32, value: u32| {
        let mut w = words.clone();
        let mut at = 5;
        let mut hit = false;
        while at < w.len() {
            let n = (w[at] >> 16) as usize;
            if w[at] == (4 << 16 | 16) && w[at + 2] == mode {
                w[at + 3] = value;
                hit = true;
            }
            at += n.max(1);
        }
        assert!(hit, "execution mode {mode} not found");
        w
    };
    let output_vertices = spirv::ExecutionMode::OutputVertices as u32;
    let invocations = spirv::ExecutionMode::Invocations as u32;
    for (mode, value) in [
        (output_vertices, 300),
        (output_vertices, 0),
        (invocations, 33),
    ] {
        let w = patched(mode, value);
        let e = compiler::frontend::translate_graphics(&request(&w, &layout))
            .expect_err("beyond the limits");
        assert!(matches!(e, CompileError::Limit(_)), "{e:?}");
    }
    let g =
        compiler::frontend::translate_graphics(&request(&patched(output_vertices, 256), &layout))
            .expect("256 vertices");
    assert_eq!(
        g.geometry.map(|i| (i.max_vertices, i.invocations)),
        Some((256, 3))
    );
    // A vertex shader asked for as a geometry shader has no Geometry entry point.
    let words = glslang_stage(
        "#version 450
        void main() { gl_Position = vec4(0.0); }",
        "vert",
    )
    .expect("glslang");
    let e = compiler::frontend::translate_graphics(&request(&words, &layout))
        .expect_err("no geometry entry point");
    assert!(matches!(e, CompileError::NoEntryPoint(_)), "{e:?}");
}
