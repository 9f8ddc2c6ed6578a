//! GLSL vertex and fragment shaders through glslang, the front end, the passes and the IR
//! interpreter, against results computed here on the CPU; and the G13 back end's refusal
//! of graphics stages.

mod common;

use std::collections::BTreeMap;

use common::glslang_stage;
use compiler::ir::interp::{self, Dispatch, Regions, StageInputs, StageOutputs};
use compiler::ir::{GraphicsShader, Interpolation, Op, Sampling, Stage};
use compiler::{
    abi, BindingLayout, CompileError, DescriptorKind, ResourceLayout, SetLayout, ShaderRequest,
    Target,
};

const ROOT_VA: u64 = 0x8000;
const SET_VA: u64 = 0x1000;
const UBO_VA: u64 = 0x10_0000;

fn layout() -> ResourceLayout {
    ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: vec![BindingLayout {
                binding: 0,
                kind: DescriptorKind::UniformBuffer,
                count: 1,
                offset: 0,
            }],
        })],
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bits(xs: [f32; 4]) -> [u32; 4] {
    xs.map(f32::to_bits)
}

/// The IR straight from the front end, and after every pass.
fn translate(src: &str, stage: Stage) -> (GraphicsShader, GraphicsShader) {
    let ext = if stage == Stage::Vertex {
        "vert"
    } else {
        "frag"
    };
    translate_words(&glslang_stage(src, ext).expect("glslang"), stage)
}

/// [`translate`] of a SPIR-V module.
fn translate_words(spirv: &[u32], stage: Stage) -> (GraphicsShader, GraphicsShader) {
    compiler::check_module(spirv).expect("check_module");
    let layout = layout();
    let req = ShaderRequest {
        spirv,
        entry_point: "main",
        stage,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    let raw = compiler::frontend::translate_graphics(&req).unwrap_or_else(|e| panic!("{e}"));
    compiler::ir::validate::validate(&raw.shader).unwrap_or_else(|e| {
        panic!(
            "front end IR invalid: {e}\n{}",
            compiler::ir::print::print(&raw.shader)
        )
    });
    let lowered = compiler::translate_graphics(&req).unwrap_or_else(|e| panic!("passes: {e}"));
    compiler::ir::validate::backend_form(&lowered.shader)
        .unwrap_or_else(|e| panic!("{e}\n{}", compiler::ir::print::print(&lowered.shader)));
    // No back end takes graphics stages yet: it must say so, not panic or fake success.
    match compiler::g13::compile(&lowered.shader) {
        Err(CompileError::Unsupported(_)) => {}
        other => panic!("G13 on a {stage:?} shader: {other:?}"),
    }
    (raw, lowered)
}

/// Runs both forms of the shader over `items` with `ubo` at set 0 binding 0 and `push` as
/// push constants; checks they agree and returns the results.
fn run(
    shaders: &(GraphicsShader, GraphicsShader),
    ubo: &[u8],
    push: &[u8],
    items: &[StageInputs],
) -> Vec<Option<StageOutputs>> {
    run_with_root(shaders, ubo, push, &[], items)
}

/// [`run`] with a graphics root table, `words` written at their byte offsets.
fn run_with_root(
    shaders: &(GraphicsShader, GraphicsShader),
    ubo: &[u8],
    push: &[u8],
    words: &[(u32, u32)],
    items: &[StageInputs],
) -> Vec<Option<StageOutputs>> {
    let layout = layout();
    let mut results = Vec::new();
    for g in [&shaders.0, &shaders.1] {
        let mut mem = Regions::default();
        let mut root = vec![0u8; abi::GRAPHICS_ROOT_TABLE_SIZE as usize];
        for &(off, w) in words {
            let o = off as usize;
            root[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
        let mut set = vec![0u8; 64];
        set[..8].copy_from_slice(&UBO_VA.to_le_bytes());
        set[8..12].copy_from_slice(&(ubo.len() as u32).to_le_bytes());
        mem.add(SET_VA, set);
        mem.add(UBO_VA, ubo.to_vec());
        let o = abi::set_address_offset(0) as usize;
        root[o..o + 8].copy_from_slice(&SET_VA.to_le_bytes());
        let p = abi::PUSH_CONSTANTS_OFFSET as usize;
        root[p..p + push.len()].copy_from_slice(push);
        let o = abi::ROOT_ADDRESS_OFFSET as usize;
        root[o..o + 8].copy_from_slice(&ROOT_VA.to_le_bytes());
        mem.add(ROOT_VA, root.clone());
        let d = Dispatch {
            workgroups: [1, 1, 1],
            root: &root,
            layout: &layout,
            step_limit: 1_000_000,
        };
        let r = match g.stage {
            Stage::Vertex => interp::run_vertices(g, &d, &mut mem, items)
                .map(|v| v.into_iter().map(Some).collect()),
            _ => interp::run_fragments(g, &d, &mut mem, items),
        };
        results.push(
            r.unwrap_or_else(|e| panic!("interp: {e}\n{}", compiler::ir::print::print(&g.shader))),
        );
    }
    assert_eq!(results[0], results[1], "the passes changed the results");
    results.pop().unwrap()
}

fn vertex(index: u32, attrs: &[(u32, [u32; 4])]) -> StageInputs {
    StageInputs {
        locations: attrs.iter().copied().collect(),
        vertex_index: index,
        ..Default::default()
    }
}

fn fragment(x: f32, y: f32, varyings: &[(u32, [u32; 4])]) -> StageInputs {
    StageInputs {
        locations: varyings.iter().copied().collect(),
        frag_coord: [x, y, 0.25, 0.5],
        front_facing: true,
        ..Default::default()
    }
}

fn floats(o: &[Option<u32>]) -> Vec<f32> {
    o.iter()
        .map(|x| f32::from_bits(x.expect("component written")))
        .collect()
}

fn close(a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-5 * y.abs().max(1.0), "{a:?} != {b:?}");
    }
}

fn loc(o: &StageOutputs, l: u32) -> &[Option<u32>; 4] {
    o.locations
        .get(&l)
        .unwrap_or_else(|| panic!("no output at {l}: {o:?}"))
}

#[test]
fn mvp_from_uniform_buffer_and_push_constants() {
    let src = r#"#version 450
layout(set = 0, binding = 0) uniform Camera { mat4 mvp; } cam;
layout(push_constant) uniform Push { vec4 offset; float scale; } pc;
layout(location = 0) in vec3 pos;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 v_uv;
void main() {
    gl_Position = cam.mvp * vec4(pos * pc.scale, 1.0) + pc.offset;
    v_uv = uv;
}
"#;
    let sh = translate(src, Stage::Vertex);
    // Column-major, as std140 lays out a mat4.
    let m: [[f32; 4]; 4] = [
        [1.0, 0.5, 0.0, 0.0],
        [0.0, 2.0, 0.25, 0.0],
        [0.5, 0.0, 1.0, 1.0],
        [3.0, -1.0, 0.0, 1.0],
    ];
    let ubo = f32s(&m.concat());
    let push = f32s(&[0.1, 0.2, 0.3, 0.0, 2.0]);
    let verts: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [-0.5, 0.25, 4.0]];
    let items: Vec<StageInputs> = verts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vertex(
                i as u32,
                &[
                    (0, bits([p[0], p[1], p[2], 0.0])),
                    (1, bits([i as f32, 0.5, 0.0, 0.0])),
                ],
            )
        })
        .collect();
    let out = run(&sh, &ubo, &push, &items);
    for (i, (p, o)) in verts.iter().zip(&out).enumerate() {
        let o = o.as_ref().unwrap();
        let v = [p[0] * 2.0, p[1] * 2.0, p[2] * 2.0, 1.0];
        let mut e = [0.1f32, 0.2, 0.3, 0.0];
        for (r, er) in e.iter_mut().enumerate() {
            *er += (0..4).map(|c| m[c][r] * v[c]).sum::<f32>();
        }
        close(&floats(&o.position), &e);
        close(&floats(&loc(o, 0)[..2]), &[i as f32, 0.5]);
        assert_eq!(o.point_size, None, "gl_PointSize is never written");
    }
}

#[test]
fn flat_and_noperspective_outputs_and_inputs() {
    let vs = r#"#version 450
layout(location = 0) in vec4 color;
layout(location = 1) in ivec2 id;
layout(location = 0) flat out ivec2 v_id;
layout(location = 1) noperspective out vec4 v_color;
layout(location = 2) out float v_w;
void main() {
    v_id = id * 3 + ivec2(gl_InstanceIndex);
    v_color = color.bgra;
    v_w = color.r + color.a;
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
"#;
    let sh = translate(vs, Stage::Vertex);
    let mut item = vertex(
        0,
        &[
            (0, bits([0.25, 0.5, 0.75, 1.0])),
            (1, [7, (-2i32) as u32, 0, 0]),
        ],
    );
    item.instance_index = 5;
    let out = run(&sh, &[0; 16], &[], &[item]);
    let o = out[0].as_ref().unwrap();
    assert_eq!(loc(o, 0)[..2], [Some(26), Some((-1i32) as u32)]);
    close(&floats(loc(o, 1)), &[0.75, 0.5, 0.25, 1.0]);
    close(&floats(&loc(o, 2)[..1]), &[1.25]);

    let fs = r#"#version 450
layout(location = 0) flat in ivec2 v_id;
layout(location = 1) noperspective in vec4 v_color;
layout(location = 2) centroid in float v_w;
layout(location = 3) sample in float v_s;
layout(location = 0) out vec4 o;
void main() {
    o = v_color * v_w + vec4(float(v_id.x - v_id.y), v_s, 0.0, 0.0);
}
"#;
    let sh = translate(fs, Stage::Fragment);
    let mut modes = BTreeMap::new();
    compiler_walk(&sh.0.shader.body, &mut |op| {
        if let Op::LoadInput {
            location, interp, ..
        } = op
        {
            modes.insert(*location, (interp.mode, interp.sampling));
        }
    });
    assert_eq!(modes[&0], (Interpolation::Flat, Sampling::Center));
    assert_eq!(modes[&1], (Interpolation::NoPerspective, Sampling::Center));
    assert_eq!(modes[&2], (Interpolation::Smooth, Sampling::Centroid));
    assert_eq!(modes[&3], (Interpolation::Smooth, Sampling::Sample));
    assert!(
        sh.1.per_sample,
        "a sample-qualified input makes the shader run per sample"
    );
    let f = fragment(
        0.5,
        0.5,
        &[
            (0, [9, 4, 0, 0]),
            (1, bits([1.0, 2.0, 3.0, 4.0])),
            (2, bits([0.5, 0.0, 0.0, 0.0])),
            (3, bits([0.125, 0.0, 0.0, 0.0])),
        ],
    );
    let out = run(&sh, &[0; 16], &[], &[f]);
    close(
        &floats(loc(out[0].as_ref().unwrap(), 0)),
        &[5.5, 1.125, 1.5, 2.0],
    );
}

fn compiler_walk(nodes: &[compiler::ir::Node], f: &mut dyn FnMut(&Op)) {
    use compiler::ir::Node;
    for n in nodes {
        match n {
            Node::Block(insts) => insts.iter().for_each(|i| f(&i.op)),
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                compiler_walk(then_body, f);
                compiler_walk(else_body, f);
            }
            Node::Loop { body } => compiler_walk(body, f),
            _ => {}
        }
    }
}

#[test]
fn fullscreen_triangle_from_vertex_index() {
    let src = r#"#version 450
layout(location = 0) out vec2 uv;
void main() {
    uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
"#;
    let sh = translate(src, Stage::Vertex);
    let items: Vec<StageInputs> = (0..3).map(|i| vertex(i, &[])).collect();
    let out = run(&sh, &[0; 16], &[], &items);
    let want = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]];
    for (o, w) in out.iter().zip(want) {
        let o = o.as_ref().unwrap();
        close(&floats(&o.position), &[w[0], w[1], 0.0, 1.0]);
        close(
            &floats(&loc(o, 0)[..2]),
            &[(w[0] + 1.0) / 2.0, (w[1] + 1.0) / 2.0],
        );
    }
}

#[test]
fn fragment_colour_from_varyings() {
    let src = r#"#version 450
layout(location = 0) in vec4 color;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec4 o;
layout(location = 1) out uvec2 o2;
void main() {
    o = color * uv.x + vec4(uv.y);
    o2 = uvec2(uv * 100.0);
}
"#;
    let sh = translate(src, Stage::Fragment);
    let cases = [
        ([0.1f32, 0.2, 0.3, 0.4], [0.5f32, 0.25]),
        ([1.0, 0.0, 0.5, 1.0], [0.0, 1.0]),
    ];
    let items: Vec<StageInputs> = cases
        .iter()
        .map(|(c, uv)| {
            fragment(
                1.5,
                2.5,
                &[(0, bits(*c)), (1, bits([uv[0], uv[1], 0.0, 0.0]))],
            )
        })
        .collect();
    let out = run(&sh, &[0; 16], &[], &items);
    for ((c, uv), o) in cases.iter().zip(&out) {
        let o = o.as_ref().unwrap();
        let want: Vec<f32> = c.iter().map(|x| x * uv[0] + uv[1]).collect();
        close(&floats(loc(o, 0)), &want);
        let want2 = [(uv[0] * 100.0) as u32, (uv[1] * 100.0) as u32];
        assert_eq!(loc(o, 1)[..2], [Some(want2[0]), Some(want2[1])]);
    }
}

#[test]
fn discard_on_a_checkerboard() {
    let src = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    if (((int(gl_FragCoord.x) ^ int(gl_FragCoord.y)) & 1) == 1) {
        discard;
    }
    o = vec4(gl_FragCoord.xy, 1.0, 1.0);
}
"#;
    let sh = translate(src, Stage::Fragment);
    let items: Vec<StageInputs> = (0..16)
        .map(|i| fragment((i % 4) as f32 + 0.5, (i / 4) as f32 + 0.5, &[]))
        .collect();
    let out = run(&sh, &[0; 16], &[], &items);
    for (i, o) in out.iter().enumerate() {
        let (x, y) = (i % 4, i / 4);
        if (x ^ y) & 1 == 1 {
            assert!(o.is_none(), "fragment {x},{y} should be discarded");
        } else {
            let o = o.as_ref().expect("kept");
            close(
                &floats(loc(o, 0)),
                &[x as f32 + 0.5, y as f32 + 0.5, 1.0, 1.0],
            );
        }
    }
}

#[test]
fn demote_keeps_running_but_writes_nothing() {
    let src = r#"#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(location = 0) in float v;
layout(location = 0) out vec4 o;
void main() {
    if (v < 0.5) {
        demote;
    }
    o = vec4(v);
}
"#;
    let sh = translate(src, Stage::Fragment);
    let items = [
        fragment(0.5, 0.5, &[(0, bits([0.25, 0.0, 0.0, 0.0]))]),
        fragment(0.5, 0.5, &[(0, bits([0.75, 0.0, 0.0, 0.0]))]),
    ];
    let out = run(&sh, &[0; 16], &[], &items);
    assert!(out[0].is_none());
    close(&floats(loc(out[1].as_ref().unwrap(), 0)), &[0.75; 4]);
}

#[test]
fn frag_coord_pattern() {
    let src = r#"#version 450
layout(location = 0) out uvec4 o;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    o = uvec4((p.x / 8u + p.y / 8u) & 1u, p.x * 3u + p.y, floatBitsToUint(gl_FragCoord.z),
              floatBitsToUint(gl_FragCoord.w));
}
"#;
    let sh = translate(src, Stage::Fragment);
    let coords = [(0u32, 0u32), (9, 3), (17, 30), (100, 7)];
    let items: Vec<StageInputs> = coords
        .iter()
        .map(|(x, y)| fragment(*x as f32 + 0.5, *y as f32 + 0.5, &[]))
        .collect();
    let out = run(&sh, &[0; 16], &[], &items);
    for ((x, y), o) in coords.iter().zip(&out) {
        let o = o.as_ref().unwrap();
        let want = [
            (x / 8 + y / 8) & 1,
            x * 3 + y,
            0.25f32.to_bits(),
            0.5f32.to_bits(),
        ];
        assert_eq!(*loc(o, 0), want.map(Some));
    }
}

#[test]
fn front_facing_select() {
    let src = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    o = gl_FrontFacing ? vec4(1.0, 0.0, 0.0, 1.0) : vec4(0.0, 0.0, 1.0, 1.0);
}
"#;
    let sh = translate(src, Stage::Fragment);
    let mut back = fragment(0.5, 0.5, &[]);
    back.front_facing = false;
    let out = run(&sh, &[0; 16], &[], &[fragment(0.5, 0.5, &[]), back]);
    close(
        &floats(loc(out[0].as_ref().unwrap(), 0)),
        &[1.0, 0.0, 0.0, 1.0],
    );
    close(
        &floats(loc(out[1].as_ref().unwrap(), 0)),
        &[0.0, 0.0, 1.0, 1.0],
    );
}

#[test]
fn depth_write() {
    let src = r#"#version 450
layout(location = 0) in float bias;
layout(location = 0) out vec4 o;
void main() {
    gl_FragDepth = gl_FragCoord.z * 0.5 + bias;
    o = vec4(1.0);
}
"#;
    let sh = translate(src, Stage::Fragment);
    assert!(sh.1.depth_replacing, "DepthReplacing recorded");
    let out = run(
        &sh,
        &[0; 16],
        &[],
        &[fragment(0.5, 0.5, &[(0, bits([0.125, 0.0, 0.0, 0.0]))])],
    );
    let o = out[0].as_ref().unwrap();
    close(&[f32::from_bits(o.frag_depth.unwrap())], &[0.25]);
}

#[test]
fn uniform_colour_and_point_size() {
    let vs = r#"#version 450
layout(set = 0, binding = 0) uniform U { vec4 tint; float size; } u;
layout(location = 0) in vec4 p;
layout(location = 0) out vec4 c;
void main() {
    gl_Position = p;
    gl_PointSize = u.size;
    c = u.tint * p.x;
}
"#;
    let sh = translate(vs, Stage::Vertex);
    let ubo = f32s(&[1.0, 2.0, 3.0, 4.0, 8.0, 0.0, 0.0, 0.0]);
    let out = run(
        &sh,
        &ubo,
        &[],
        &[vertex(0, &[(0, bits([0.5, 1.0, 0.0, 1.0]))])],
    );
    let o = out[0].as_ref().unwrap();
    assert_eq!(o.point_size, Some(8.0f32.to_bits()));
    close(&floats(&o.position), &[0.5, 1.0, 0.0, 1.0]);
    close(&floats(loc(o, 0)), &[0.5, 1.0, 1.5, 2.0]);
}

fn translate_err(src: &str, stage: &str, model: Stage) -> CompileError {
    let spirv = glslang_stage(src, stage).expect("glslang");
    let layout = layout();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: model,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    compiler::translate_graphics(&req).expect_err("should be refused")
}

#[test]
fn clip_and_cull_distances_go_to_the_clipper_and_the_varyings() {
    use compiler::ir::{CLIP_DISTANCE_LOCATION, CULL_DISTANCE_LOCATION, CULL_FLAG_LOCATION};
    let vs = r#"#version 450
layout(location = 0) in vec4 p;
out float gl_ClipDistance[2];
out float gl_CullDistance[3];
void main() {
    gl_Position = p;
    gl_ClipDistance[0] = p.x;
    gl_ClipDistance[1] = -p.y;
    gl_CullDistance[0] = p.z;
    gl_CullDistance[1] = 0.0;
    gl_CullDistance[2] = -p.z;
}
"#;
    let sh = translate(vs, Stage::Vertex);
    let out = run(
        &sh,
        &[0; 16],
        &[],
        &[vertex(0, &[(0, bits([0.25, 0.5, -2.0, 1.0]))])],
    );
    let o = out[0].as_ref().unwrap();
    assert_eq!(o.clip_distance[0], Some(0.25f32.to_bits()));
    assert_eq!(o.clip_distance[1], Some((-0.5f32).to_bits()));
    assert_eq!(o.clip_distance[2], None);
    close(&floats(&loc(o, CLIP_DISTANCE_LOCATION)[..2]), &[0.25, -0.5]);
    close(
        &floats(&loc(o, CULL_DISTANCE_LOCATION)[..3]),
        &[-2.0, 0.0, 2.0],
    );
    // The cull flags: 1.0 where the distance is >= 0 (zero included).
    close(&floats(&loc(o, CULL_FLAG_LOCATION)[..3]), &[0.0, 1.0, 1.0]);

    let fs = r#"#version 450
in float gl_ClipDistance[2];
in float gl_CullDistance[1];
layout(location = 0) out vec4 c;
void main() { c = vec4(gl_ClipDistance[0], gl_ClipDistance[1], gl_CullDistance[0], 1.0); }
"#;
    let sh = translate(fs, Stage::Fragment);
    let out = run(
        &sh,
        &[0; 16],
        &[],
        &[fragment(
            0.5,
            0.5,
            &[
                (CLIP_DISTANCE_LOCATION, bits([0.5, 0.75, 0.0, 0.0])),
                (CULL_DISTANCE_LOCATION, bits([-3.0, 0.0, 0.0, 0.0])),
            ],
        )],
    );
    close(
        &floats(loc(out[0].as_ref().unwrap(), 0)),
        &[0.5, 0.75, -3.0, 1.0],
    );
}

#[test]
fn wrong_stage_has_no_entry_point() {
    let src = r#"#version 450
void main() { gl_Position = vec4(1.0); }
"#;
    assert!(matches!(
        translate_err(src, "vert", Stage::Fragment),
        CompileError::NoEntryPoint(_)
    ));
}

#[test]
fn demote_without_its_capability_is_refused() {
    let src = r#"#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(location = 0) out vec4 o;
void main() {
    demote;
    o = vec4(1.0);
}
"#;
    let mut spirv = glslang_stage(src, "frag").expect("glslang");
    // Drop `OpCapability DemoteToHelperInvocation` (opcode 17, two words, operand 5379).
    let at = (5..spirv.len() - 1)
        .find(|&i| spirv[i] == (2 << 16 | 17) && spirv[i + 1] == 5379)
        .expect("the capability is declared");
    spirv.drain(at..at + 2);
    let layout = layout();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    assert!(matches!(
        compiler::translate_graphics(&req),
        Err(CompileError::InvalidSpirv(_))
    ));
}

#[test]
fn view_index_is_the_root_table_word_in_both_stages() {
    let vs = r#"#version 450
#extension GL_EXT_multiview : require
layout(location = 0) flat out int v;
void main() {
    float x = float(gl_VertexIndex);
    gl_Position = vec4(x, gl_ViewIndex == 1 ? 0.5 : -0.5, float(gl_ViewIndex), 1.0);
    v = gl_ViewIndex * 100 + gl_VertexIndex;
}
"#;
    let fs = r#"#version 450
#extension GL_EXT_multiview : require
layout(location = 0) out uvec2 o;
void main() {
    o = uvec2(uint(gl_ViewIndex), gl_ViewIndex > 2 ? 7u : 9u);
}
"#;
    let vsh = translate(vs, Stage::Vertex);
    let fsh = translate(fs, Stage::Fragment);
    let mut reads = 0;
    compiler_walk(&vsh.0.shader.body, &mut |op| {
        if matches!(op, Op::SysVal(compiler::ir::SysVal::ViewIndex)) {
            reads += 1;
        }
    });
    assert!(reads > 0, "gl_ViewIndex is the ViewIndex system value");
    for view in [0u32, 1, 4] {
        let items = [vertex(3, &[]), vertex(8, &[])];
        let out = run_with_root(
            &vsh,
            &[0; 16],
            &[],
            &[(abi::VIEW_INDEX_OFFSET, view)],
            &items,
        );
        for (o, vi) in out.iter().zip([3u32, 8]) {
            let o = o.as_ref().unwrap();
            let y = if view == 1 { 0.5 } else { -0.5 };
            close(&floats(&o.position), &[vi as f32, y, view as f32, 1.0]);
            assert_eq!(loc(o, 0)[0], Some(view * 100 + vi), "view {view}");
        }
        let out = run_with_root(
            &fsh,
            &[0; 16],
            &[],
            &[(abi::VIEW_INDEX_OFFSET, view)],
            &[fragment(0.5, 0.5, &[])],
        );
        let o = out[0].as_ref().unwrap();
        let want = if view > 2 { 7 } else { 9 };
        assert_eq!(loc(o, 0)[..2], [Some(view), Some(want)], "view {view}");
    }
}

/// Vulkan 1.0 SPIR-V names multiview as the SPV_KHR_multiview extension; it adds only the
/// ViewIndex built-in, so the module is taken as the 1.1 one is.
#[test]
fn view_index_through_the_multiview_extension() {
    let dir = std::env::temp_dir().join(format!("agx4-viewindex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("s.frag"), dir.join("s.spv"));
    std::fs::write(
        &input,
        "#version 450\n#extension GL_EXT_multiview : require\n\
         layout(location = 0) out uint o;\nvoid main() { o = uint(gl_ViewIndex) + 5u; }\n",
    )
    .unwrap();
    let st = std::process::Command::new("/usr/bin/glslangValidator")
        .args(["-V", "--target-env", "vulkan1.0", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("run glslangValidator");
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stdout)
    );
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let spirv: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(spirv[1], 0x0001_0000, "a SPIR-V 1.0 module");
    assert!(
        bytes.windows(17).any(|w| w == b"SPV_KHR_multiview"),
        "the module names the extension"
    );
    compiler::check_module(&spirv).expect("check_module");
    let layout = layout();
    let req = ShaderRequest {
        spirv: &spirv,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    let g = compiler::translate_graphics(&req).unwrap_or_else(|e| panic!("{e}"));
    let sh = (g.clone(), g);
    let out = run_with_root(
        &sh,
        &[0; 16],
        &[],
        &[(abi::VIEW_INDEX_OFFSET, 3)],
        &[fragment(0.5, 0.5, &[])],
    );
    assert_eq!(loc(out[0].as_ref().unwrap(), 0)[0], Some(8));
}

/// Non-constant indices into output arrays (a vertex shader's loop) and into input arrays
/// and vectors: only the named element is written, the named one is read.
#[test]
fn stage_io_indexed_dynamically() {
    let vs = r#"#version 450
layout(location = 0) out float o[3];
void main() {
    for (int i = 0; i < 3; i++) o[i] = float(i * 10 + gl_VertexIndex);
    o[gl_VertexIndex % 3] += 100.0;
    gl_Position = vec4(0.0);
}
"#;
    let sh = translate(vs, Stage::Vertex);
    let items: Vec<StageInputs> = (0..4).map(|i| vertex(i, &[])).collect();
    let out = run(&sh, &[0; 16], &[], &items);
    for (v, o) in out.iter().enumerate() {
        let o = o.as_ref().unwrap();
        for i in 0..3 {
            let bump = if v % 3 == i { 100.0 } else { 0.0 };
            close(
                &floats(&loc(o, i as u32)[..1]),
                &[(i * 10 + v) as f32 + bump],
            );
        }
    }
    let fs = r#"#version 450
layout(location = 0) in vec2 a[2];
layout(location = 0) out float o;
void main() {
    int i = int(gl_FragCoord.x);
    o = a[i & 1][(i >> 1) & 1];
}
"#;
    let sh = translate(fs, Stage::Fragment);
    let items: Vec<StageInputs> = (0..4)
        .map(|x| {
            fragment(
                x as f32 + 0.5,
                0.5,
                &[
                    (0, bits([1.0, 2.0, 0.0, 0.0])),
                    (1, bits([3.0, 4.0, 0.0, 0.0])),
                ],
            )
        })
        .collect();
    let out = run(&sh, &[0; 16], &[], &items);
    for (x, o) in out.iter().enumerate() {
        let want = [[1.0, 2.0], [3.0, 4.0]][x & 1][(x >> 1) & 1];
        close(&floats(&loc(o.as_ref().unwrap(), 0)[..1]), &[want]);
    }
}

/// A module with a vertex and a fragment entry point (as the CTS's same_module cases build):
/// translating the fragment one must leave the vertex one's gl_Position alone.
#[test]
fn other_entry_points_outputs_are_not_this_stages() {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Instruction, Operand};
    use rspirv::spirv::{BuiltIn, Decoration, ExecutionModel, Op as SpvOp, StorageClass};
    let src = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    o = vec4(0.25, 0.5, 0.75, 1.0);
}
"#;
    let spirv = glslang_stage(src, "frag").expect("glslang");
    let mut m = rspirv::dr::load_words(&spirv).expect("parse");
    let ptr = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == SpvOp::TypePointer
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
        })
        .and_then(|i| i.result_id)
        .expect("an output vec4 pointer");
    let main = m.entry_points[0].operands[1].clone();
    let pos = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    m.header.as_mut().expect("header").bound = pos + 1;
    m.types_global_values.push(Instruction::new(
        SpvOp::Variable,
        Some(ptr),
        Some(pos),
        vec![Operand::StorageClass(StorageClass::Output)],
    ));
    m.annotations.push(Instruction::new(
        SpvOp::Decorate,
        None,
        None,
        vec![
            Operand::IdRef(pos),
            Operand::Decoration(Decoration::BuiltIn),
            Operand::BuiltIn(BuiltIn::Position),
        ],
    ));
    m.entry_points.push(Instruction::new(
        SpvOp::EntryPoint,
        None,
        None,
        vec![
            Operand::ExecutionModel(ExecutionModel::Vertex),
            main,
            Operand::LiteralString("vs".into()),
            Operand::IdRef(pos),
        ],
    ));
    let words = m.assemble();
    let layout = layout();
    let req = ShaderRequest {
        spirv: &words,
        entry_point: "main",
        stage: Stage::Fragment,
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    let sh = compiler::translate_graphics(&req).unwrap_or_else(|e| panic!("{e}"));
    let mut builtins = 0;
    let mut outputs = 0;
    compiler_walk(&sh.shader.body, &mut |op| match op {
        Op::StoreBuiltin { .. } => builtins += 1,
        Op::StoreOutput { .. } => outputs += 1,
        _ => {}
    });
    assert_eq!(builtins, 0);
    assert!(outputs > 0);
}

/// An output variable's initializer is its value when the shader never stores one (CTS
/// renderpass1.depth_stencil_write_conditions.depth_*_initialize_*: gl_FragDepth initialized
/// to 0.2 and never written, on the fragments the shader does not discard).
#[test]
fn output_initializers_are_written() {
    let src = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %coord %colour %depth
OpExecutionMode %main OriginUpperLeft
OpExecutionMode %main DepthReplacing
OpDecorate %coord BuiltIn FragCoord
OpDecorate %colour Location 0
OpDecorate %depth BuiltIn FragDepth
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%v4 = OpTypeVector %f32 4
%pin = OpTypePointer Input %v4
%coord = OpVariable %pin Input
%pout4 = OpTypePointer Output %v4
%one = OpConstant %f32 1
%half = OpConstant %f32 0.5
%white = OpConstantComposite %v4 %one %one %one %one
%grey = OpConstantComposite %v4 %half %half %half %one
%colour = OpVariable %pout4 Output %grey
%pout = OpTypePointer Output %f32
%init = OpConstant %f32 0.2
%depth = OpVariable %pout Output %init
%main = OpFunction %void None %fn
%entry = OpLabel
OpStore %colour %white
OpReturn
OpFunctionEnd
"#;
    let shaders = translate_words(&common::spirv_as(src), Stage::Fragment);
    let out = run(&shaders, &[], &[], &[fragment(1.5, 2.5, &[])]);
    let o = out[0].as_ref().expect("not discarded");
    assert_eq!(o.frag_depth, Some(0.2f32.to_bits()));
    // A stored value replaces the initializer.
    assert_eq!(
        o.locations
            .get(&0)
            .map(|l| l.map(|c| c.map(f32::from_bits))),
        Some([Some(1.0); 4])
    );
}

/// A fragment shader whose interface lists gl_SampleID runs once per sample even when it
/// never reads it (the CTS's `sample_id_static_use`): the interface is a static use.
#[test]
fn sample_id_in_the_interface_alone_makes_the_shader_per_sample() {
    let unused = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    gl_SampleID;
    o = vec4(1.0);
}
"#;
    let plain = r#"#version 450
layout(location = 0) out vec4 o;
void main() {
    o = vec4(1.0);
}
"#;
    for (src, per_sample) in [(unused, true), (plain, false)] {
        let Some(spirv) = glslang_stage(src, "frag") else {
            return;
        };
        let (raw, _) = translate_words(&spirv, Stage::Fragment);
        assert_eq!(raw.per_sample, per_sample, "{src}");
    }
}
