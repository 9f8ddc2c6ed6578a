//! `passes::merge_vertex_inputs`: a vertex shader merged into a geometry shader once per
//! input vertex. Checked on the IR (no per-vertex reads left, one copy of the vertex shader
//! per corner, only the outputs the geometry shader reads stored, valid after the cleanup
//! passes) and by running a merged program in the IR interpreter against values computed
//! here.

mod common;

use common::glslang_stage;
use compiler::ir::interp::{self, Dispatch, Regions};
use compiler::ir::validate::{backend_form, validate_graphics};
use compiler::ir::{
    Constant, GraphicsShader, Inst, Node, Op, Shader, Space, Stage, SysVal, Type, Value,
};
use compiler::passes::merge_vertex_inputs;
use compiler::{
    abi, BindingLayout, CompileError, DescriptorKind, ResourceLayout, SetLayout, ShaderRequest,
    Target,
};

const ROOT_VA: u64 = 0x8000;
const SET_VA: u64 = 0x1000;
const BUF_VA: u64 = 0x10_0000;

fn layout() -> ResourceLayout {
    ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: vec![BindingLayout {
                binding: 0,
                kind: DescriptorKind::StorageBuffer,
                count: 1,
                offset: 0,
            }],
        })],
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

/// A stage through the front end and every pass.
fn stage(src: &str, stage: Stage) -> GraphicsShader {
    let ext = match stage {
        Stage::Vertex => "vert",
        _ => "geom",
    };
    // A tag per call: tests compiling the same source at once would share glslang's temporary
    // directory (it is named by process and source).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let words = glslang_stage(&format!("{src}\n// {n}\n"), ext).expect("glslang");
    let layout = layout();
    compiler::translate_graphics(&ShaderRequest {
        spirv: &words,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Corners given as constant vertex indices.
fn constant_corners(
    vertices: Vec<u32>,
) -> impl FnMut(&mut Shader) -> Result<(Vec<Node>, Vec<Value>), CompileError> {
    move |sh| {
        let mut insts = Vec::new();
        let mut corners = Vec::new();
        for v in &vertices {
            let x = sh.new_value(Type::I32);
            insts.push(Inst {
                dst: Some(x),
                op: Op::Const(Constant(vec![u64::from(*v)])),
            });
            corners.push(x);
        }
        Ok((vec![Node::Block(insts)], corners))
    }
}

/// gl_PrimitiveIDIn * 3 + k, as a list draw's prologue would give.
fn list_corners(sh: &mut Shader) -> Result<(Vec<Node>, Vec<Value>), CompileError> {
    let mut insts = Vec::new();
    let mut def = |sh: &mut Shader, op: Op| {
        let x = sh.new_value(Type::I32);
        insts.push(Inst { dst: Some(x), op });
        x
    };
    let p = def(sh, Op::SysVal(SysVal::PrimitiveId));
    let three = def(sh, Op::Const(Constant(vec![3])));
    let first = def(sh, Op::Binary(compiler::ir::BinOp::IMul, p, three));
    let mut corners = Vec::new();
    for k in 0..3 {
        let kc = def(sh, Op::Const(Constant(vec![k])));
        corners.push(def(sh, Op::Binary(compiler::ir::BinOp::IAdd, first, kc)));
    }
    Ok((vec![Node::Block(insts)], corners))
}

fn all_insts(ns: &[Node], out: &mut Vec<Inst>) {
    for n in ns {
        match n {
            Node::Block(is) => out.extend(is.iter().cloned()),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                all_insts(then_body, out);
                all_insts(else_body, out);
            }
            Node::Loop { body } => all_insts(body, out),
            _ => {}
        }
    }
}

fn insts(ns: &[Node]) -> Vec<Inst> {
    let mut out = Vec::new();
    all_insts(ns, &mut out);
    out
}

/// The cleanup passes a merged program gets, validating the stage rules and the back end's
/// form after them.
fn cleanup(g: &mut GraphicsShader) {
    for pass in [
        compiler::passes::const_fold,
        compiler::passes::copy_prop,
        compiler::passes::cse,
        compiler::passes::dce,
    ] {
        pass(&mut g.shader).unwrap_or_else(|e| panic!("{e}"));
        validate_graphics(g).unwrap_or_else(|e| panic!("{e}"));
    }
    backend_form(&g.shader)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiler::ir::print::print(&g.shader)));
}

/// Runs `sh` as one compute invocation over a buffer (set 0, binding 0) holding the int `k`
/// and then `floats` zeros; returns the floats afterwards.
fn run_on_buffer(sh: &mut Shader, k: u32, floats: usize) -> Vec<f32> {
    sh.local_size = [1, 1, 1];
    let layout = layout();
    let mut buf = vec![0u8; 4 + 4 * floats];
    buf[..4].copy_from_slice(&k.to_le_bytes());
    let mut mem = Regions::default();
    let mut root = vec![0u8; abi::GRAPHICS_ROOT_TABLE_SIZE as usize];
    let mut set = vec![0u8; 64];
    set[..8].copy_from_slice(&BUF_VA.to_le_bytes());
    set[8..12].copy_from_slice(&(buf.len() as u32).to_le_bytes());
    mem.add(SET_VA, set);
    mem.add(BUF_VA, buf);
    let o = abi::set_address_offset(0) as usize;
    root[o..o + 8].copy_from_slice(&SET_VA.to_le_bytes());
    let o = abi::ROOT_ADDRESS_OFFSET as usize;
    root[o..o + 8].copy_from_slice(&ROOT_VA.to_le_bytes());
    mem.add(ROOT_VA, root.clone());
    let d = Dispatch {
        workgroups: [1, 1, 1],
        root: &root,
        layout: &layout,
        step_limit: 1_000_000,
    };
    interp::run(sh, &d, &mut mem)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiler::ir::print::print(sh)));
    let out = mem.bytes(BUF_VA).expect("buffer");
    out[4..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

const VS: &str = "#version 450
    layout(location = 0) out vec4 c;
    layout(location = 2) out float unused;
    void main() {
        float v = float(gl_VertexIndex);
        gl_Position = vec4(v, v * v, 0.5, 1.0);
        c = vec4(v + 100.0, 0.0, 0.0, -v);
        unused = 7.0;
    }";

#[test]
fn one_vertex_shader_copy_per_corner() {
    let vs = stage(VS, Stage::Vertex);
    let gs = stage(
        "#version 450
        layout(triangles) in;
        layout(triangle_strip, max_vertices = 3) out;
        layout(location = 0) in vec4 c[];
        layout(location = 0) out float o;
        void main() {
            for (int i = 0; i < 3; i++) {
                gl_Position = gl_in[i].gl_Position;
                o = c[i].w;
                EmitVertex();
            }
        }",
        Stage::Geometry,
    );
    let mut merged =
        merge_vertex_inputs(&vs, &gs, &mut list_corners).unwrap_or_else(|e| panic!("{e}"));
    validate_graphics(&merged)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiler::ir::print::print(&merged.shader)));
    assert_eq!(merged.stage, Stage::Geometry);
    assert_eq!(merged.geometry, gs.geometry);
    let all = insts(&merged.shader.body);
    assert!(!all.iter().any(|i| matches!(i.op, Op::LoadPerVertex { .. })));
    assert!(!all.iter().any(|i| i.op == Op::SysVal(SysVal::VertexIndex)));
    // The prologue, then one Loop per corner holding that copy of the vertex shader.
    let copies: Vec<_> = merged.shader.body[1..4]
        .iter()
        .map(|n| match n {
            Node::Loop { body } => insts(body),
            other => panic!("{other:?}"),
        })
        .collect();
    // gl_Position (4 components) and c.w (the one component of c the GS reads) go to
    // scratch; c's other components and `unused` go nowhere.
    for (k, copy) in copies.iter().enumerate() {
        let stores: Vec<_> = copy
            .iter()
            .filter_map(|i| match i.op {
                Op::Store {
                    space: Space::Scratch,
                    addr,
                    ..
                } => Some(addr),
                _ => None,
            })
            .collect();
        assert_eq!(stores.len(), 5, "copy {k}");
        assert!(!copy
            .iter()
            .any(|i| matches!(i.op, Op::StoreOutput { .. } | Op::StoreBuiltin { .. })));
    }
    assert_eq!(
        merged.shader.scratch_size,
        gs.shader.scratch_size + 5 * 3 * 4
    );
    // The GS's own outputs and emits are untouched (the output half's business).
    assert_eq!(all.iter().filter(|i| i.op == Op::EmitVertex).count(), 1);
    cleanup(&mut merged);
    // The back end still refuses it while it has geometry operations.
    assert!(matches!(
        compiler::g13::compile(&merged.shader),
        Err(CompileError::Unsupported(_))
    ));
}

#[test]
fn merged_program_computes_the_vertex_values() {
    // No EmitVertex: the geometry shader writes what it reads from gl_in to a buffer, so the
    // merged program runs in the interpreter as a one-invocation dispatch.
    let vs = stage(VS, Stage::Vertex);
    let gs = stage(
        "#version 450
        layout(lines_adjacency) in;
        layout(points, max_vertices = 1) out;
        layout(location = 0) in vec4 c[];
        layout(std430, set = 0, binding = 0) buffer B { int k; float r[]; };
        void main() {
            for (int i = 0; i < 4; i++) {
                r[i] = gl_in[i].gl_Position.y;
                r[4 + i] = c[(i + k) & 3].x;
            }
            r[8] = c[k + 9].w;
        }",
        Stage::Geometry,
    );
    let corners = vec![5, 6, 7, 9];
    let mut merged = merge_vertex_inputs(&vs, &gs, &mut constant_corners(corners.clone()))
        .unwrap_or_else(|e| panic!("{e}"));
    cleanup(&mut merged);
    // Run it as one compute invocation: k, then r[0..9].
    let k = 1u32;
    let r = run_on_buffer(&mut merged.shader, k, 9);
    let v: Vec<f32> = corners.iter().map(|x| *x as f32).collect();
    let mut want: Vec<f32> = v.iter().map(|x| x * x).collect();
    for i in 0..4 {
        want.push(v[(i + k as usize) & 3] + 100.0);
    }
    // c[10] is past the primitive: undefined, and clamped to the last vertex here.
    want.push(-v[3]);
    assert_eq!(r, want);
}

#[test]
fn wrong_inputs_are_refused() {
    let vs = stage(VS, Stage::Vertex);
    let gs = stage(
        "#version 450
        layout(points) in;
        layout(points, max_vertices = 1) out;
        void main() { gl_Position = gl_in[0].gl_Position; EmitVertex(); }",
        Stage::Geometry,
    );
    // Corners that do not match the input primitive, and the stages swapped.
    assert!(matches!(
        merge_vertex_inputs(&vs, &gs, &mut constant_corners(vec![1, 2])),
        Err(CompileError::Internal(_))
    ));
    assert!(matches!(
        merge_vertex_inputs(&gs, &vs, &mut constant_corners(vec![1])),
        Err(CompileError::Internal(_))
    ));
    assert!(merge_vertex_inputs(&vs, &gs, &mut constant_corners(vec![1])).is_ok());
    // A vertex shader that returns from inside one of its loops is not merged yet.
    let looping = stage(
        "#version 450
        layout(push_constant) uniform P { int n; };
        void main() {
            gl_Position = vec4(0.0);
            for (int i = 0; i < n; i++) {
                if (i == gl_VertexIndex) {
                    return;
                }
                gl_Position.x += 1.0;
            }
        }",
        Stage::Vertex,
    );
    match merge_vertex_inputs(&looping, &gs, &mut constant_corners(vec![1])) {
        Err(CompileError::Unsupported(m)) => assert!(m.contains("loop"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn scratch_of_both_shaders_and_an_early_return() {
    // Both shaders index local arrays dynamically (scratch of their own), and the vertex
    // shader returns early for one vertex: its copies must neither overlap the geometry
    // shader's scratch nor stop the other copies.
    let vs = stage(
        "#version 450
        layout(location = 0) out vec4 c;
        void main() {
            float t[4] = float[4](10.0, 20.0, 30.0, 40.0);
            gl_Position = vec4(t[gl_VertexIndex & 3]);
            c = vec4(1.0);
            if (gl_VertexIndex == 6) {
                return;
            }
            c = vec4(float(gl_VertexIndex));
        }",
        Stage::Vertex,
    );
    assert!(vs.shader.scratch_size > 0, "the VS uses scratch");
    let gs = stage(
        "#version 450
        layout(triangles) in;
        layout(points, max_vertices = 1) out;
        layout(location = 0) in vec4 c[];
        layout(std430, set = 0, binding = 0) buffer B { int k; float r[]; };
        void main() {
            float mine[3] = float[3](-1.0, -2.0, -3.0);
            for (int i = 0; i < 3; i++) {
                r[i] = gl_in[i].gl_Position.x + mine[(i + k) % 3];
                r[3 + i] = c[i].x;
            }
        }",
        Stage::Geometry,
    );
    assert!(gs.shader.scratch_size > 0, "the GS uses scratch");
    let corners = vec![5, 6, 7];
    let mut merged = merge_vertex_inputs(&vs, &gs, &mut constant_corners(corners.clone()))
        .unwrap_or_else(|e| panic!("{e}"));
    cleanup(&mut merged);
    let k = 2u32;
    let r = run_on_buffer(&mut merged.shader, k, 6);
    let t = [10.0, 20.0, 30.0, 40.0];
    let mine = [-1.0, -2.0, -3.0];
    let mut want = Vec::new();
    for (i, v) in corners.iter().enumerate() {
        want.push(t[(*v & 3) as usize] + mine[(i + k as usize) % 3]);
    }
    for v in &corners {
        want.push(if *v == 6 { 1.0 } else { *v as f32 });
    }
    assert_eq!(r, want);
}

#[test]
fn records_and_index_list_of_a_whole_geometry_draw_invocation() {
    // VS + GS merged, then the outputs lowered: the program writes vertex records and its
    // index region, which are compared with what the spec's EmitVertex / EndPrimitive give.
    let vs = stage(VS, Stage::Vertex);
    let mut gs = stage(
        "#version 450
        layout(triangles) in;
        layout(triangle_strip, max_vertices = 5) out;
        layout(location = 0) in vec4 c[];
        layout(location = 0) out float o;
        void main() {
            for (int i = 0; i < 3; i++) {
                gl_Position = gl_in[i].gl_Position;
                o = c[i].x;
                EmitVertex();
            }
            EndPrimitive();
            EndPrimitive(); // an empty strip: no restart of its own
            gl_Position = gl_in[2].gl_Position * 2.0;
            o = -1.0;
            EmitVertex();
            for (int j = 0; j < 3; j++) {
                // The fifth vertex fits; the last two are past max_vertices and dropped.
                gl_Position = vec4(float(j));
                o = float(j);
                EmitVertex();
            }
        }",
        Stage::Geometry,
    );
    gs = merge_vertex_inputs(&vs, &gs, &mut constant_corners(vec![5, 6, 7]))
        .unwrap_or_else(|e| panic!("{e}"));
    let inv = 1u32;
    // The invocation has its input primitive (what the draw's prologue finds).
    let valid = gs.shader.new_value(Type::I32);
    gs.shader.body.insert(
        0,
        Node::Block(vec![Inst {
            dst: Some(valid),
            op: Op::Const(Constant(vec![1])),
        }]),
    );
    let record = compiler::passes::lower_geometry_outputs(
        &mut gs,
        &mut |sh: &mut Shader| {
            let x = sh.new_value(Type::I32);
            let i = Inst {
                dst: Some(x),
                op: Op::Const(Constant(vec![u64::from(inv)])),
            };
            Ok((vec![Node::Block(vec![i])], x))
        },
        valid,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    use compiler::ir::{OutputBuiltin, PerVertexSlot};
    let pos = |c| (PerVertexSlot::Builtin(OutputBuiltin::Position), c);
    assert_eq!(
        record.slots,
        vec![
            (pos(0), 0),
            (pos(1), 4),
            (pos(2), 8),
            (pos(3), 12),
            ((PerVertexSlot::Location(0), 0), 16)
        ]
    );
    assert_eq!(record.stride, 20);
    let all = insts(&gs.shader.body);
    assert!(!all.iter().any(|i| matches!(
        i.op,
        Op::EmitVertex
            | Op::EndPrimitive
            | Op::LoadPerVertex { .. }
            | Op::StoreOutput { .. }
            | Op::StoreBuiltin { .. }
    )));
    validate_graphics(&gs).unwrap_or_else(|e| panic!("{e}"));
    cleanup(&mut gs);

    const RECORDS_VA: u64 = 0x20_0000;
    const INDICES_VA: u64 = 0x30_0000;
    const PRIMGEN_VA: u64 = 0x40_0000;
    const STATS_VA: u64 = 0x50_0000;
    let max = 5u32;
    let mut mem = Regions::default();
    mem.add(RECORDS_VA, vec![0xab; (2 * max * record.stride) as usize]);
    mem.add(INDICES_VA, vec![0xab; (2 * 2 * max * 4) as usize]);
    let mut root = vec![0u8; abi::GEOMETRY_ROOT_TABLE_SIZE as usize];
    let put = |root: &mut Vec<u8>, at: u32, v: u64| {
        root[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    };
    put(&mut root, abi::GEOMETRY_RECORD_ADDRESS, RECORDS_VA);
    put(&mut root, abi::GEOMETRY_INDEX_ADDRESS, INDICES_VA);
    put(&mut root, abi::GEOMETRY_PRIMGEN_ADDRESS, PRIMGEN_VA);
    // Pipeline statistics: geometry shader invocations and primitives, clipping invocations
    // and primitives.
    for (i, at) in [
        abi::GEOMETRY_STAT_INVOCATIONS_ADDRESS,
        abi::GEOMETRY_STAT_PRIMITIVES_ADDRESS,
        abi::GEOMETRY_STAT_CLIPPING_INVOCATIONS_ADDRESS,
        abi::GEOMETRY_STAT_CLIPPING_PRIMITIVES_ADDRESS,
    ]
    .into_iter()
    .enumerate()
    {
        put(&mut root, at, STATS_VA + 8 * i as u64);
    }
    mem.add(STATS_VA, vec![0; 32]);
    put(&mut root, abi::ROOT_ADDRESS_OFFSET, ROOT_VA);
    // The primitives generated counter, with a low word about to carry.
    mem.add(
        PRIMGEN_VA,
        [u32::MAX, 7].iter().flat_map(|w| w.to_le_bytes()).collect(),
    );
    mem.add(ROOT_VA, root.clone());
    gs.shader.local_size = [1, 1, 1];
    let layout = layout();
    let d = Dispatch {
        workgroups: [1, 1, 1],
        root: &root,
        layout: &layout,
        step_limit: 1_000_000,
    };
    interp::run(&gs.shader, &d, &mut mem)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiler::ir::print::print(&gs.shader)));
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let recs = words(mem.bytes(RECORDS_VA).expect("records"));
    let idx = words(mem.bytes(INDICES_VA).expect("indices"));
    // Invocation 0's regions are untouched.
    assert!(recs[..(max * 5) as usize].iter().all(|w| *w == 0xabab_abab));
    assert!(idx[..(2 * max) as usize].iter().all(|w| *w == 0xabab_abab));
    let f = |xs: [f32; 5]| xs.map(f32::to_bits).to_vec();
    let want: Vec<u32> = [
        f([5.0, 25.0, 0.5, 1.0, 105.0]),
        f([6.0, 36.0, 0.5, 1.0, 106.0]),
        f([7.0, 49.0, 0.5, 1.0, 107.0]),
        f([14.0, 98.0, 1.0, 2.0, -1.0]),
        f([0.0, 0.0, 0.0, 0.0, 0.0]),
    ]
    .concat();
    assert_eq!(&recs[(max * 5) as usize..], &want[..]);
    let r = abi::GEOMETRY_RESTART_INDEX;
    assert_eq!(
        &idx[(2 * max) as usize..],
        &[5, 6, 7, r, 8, 9, r, r, r, r][..]
    );
    // One triangle; the second strip has two vertices, which make none. The count carries.
    assert_eq!(words(mem.bytes(PRIMGEN_VA).expect("counter")), [0, 8]);
    // One invocation; the triangle it emitted, which the clipper sees.
    assert_eq!(
        words(mem.bytes(STATS_VA).expect("statistics")),
        [1, 0, 1, 0, 1, 0, 1, 0]
    );
}
