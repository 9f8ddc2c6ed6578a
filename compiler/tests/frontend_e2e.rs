//! GLSL compute shaders through SPIR-V (glslang and naga), the front end, the passes and the
//! IR interpreter, against results computed here on the CPU.

mod common;
mod int64_shader;

use common::glslang;

use compiler::ir::interp::{self, Dispatch, Regions};
use compiler::{
    abi, BindingLayout, CompileError, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout,
    Specialization, Target,
};

fn naga_spv(src: &str) -> Option<Vec<u32>> {
    let mut fe = naga::front::glsl::Frontend::default();
    let module = fe
        .parse(
            &naga::front::glsl::Options::from(naga::ShaderStage::Compute),
            src,
        )
        .ok()?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .ok()?;
    let opts = naga::back::spv::Options {
        bounds_check_policies: naga::proc::BoundsCheckPolicies::default(),
        ..Default::default()
    };
    let pipe = naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    naga::back::spv::write_vec(&module, &info, &opts, Some(&pipe)).ok()
}

/// SPIR-V variants of a shader: glslang's, and naga's where naga accepts the shader.
fn variants(src: &str, naga_too: bool) -> Vec<(&'static str, Vec<u32>)> {
    let mut v = Vec::new();
    if let Some(w) = glslang(src) {
        v.push(("glslang", w));
    }
    if naga_too {
        match naga_spv(src) {
            Some(w) => v.push(("naga", w)),
            None => eprintln!("note: naga did not translate this shader"),
        }
    }
    v
}

struct Buffer {
    set: u32,
    binding: u32,
    /// Element of a descriptor array.
    elem: u32,
    data: Vec<u8>,
    /// Range the descriptor gives (defaults to the data length).
    range: Option<u32>,
}

/// Where the root table sits in memory.
const ROOT_VA: u64 = 0x8000;

fn buf(binding: u32, data: Vec<u8>) -> Buffer {
    Buffer {
        set: 0,
        binding,
        elem: 0,
        data,
        range: None,
    }
}

fn u32s(xs: &[u32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn as_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn as_f32(b: &[u8]) -> Vec<f32> {
    as_u32(b).into_iter().map(f32::from_bits).collect()
}

const BUF_BASE: u64 = 0x10_0000;

fn layout_for(bufs: &[Buffer]) -> ResourceLayout {
    let mut sets: Vec<Option<SetLayout>> = Vec::new();
    for b in bufs {
        while sets.len() <= b.set as usize {
            sets.push(None);
        }
        let s = sets[b.set as usize].get_or_insert_with(SetLayout::default);
        // Bindings are 4 descriptors apart so arrays of up to 4 fit.
        let offset = b.binding * 4 * abi::BUFFER_DESCRIPTOR_SIZE;
        match s.bindings.iter_mut().find(|x| x.binding == b.binding) {
            Some(x) => x.count = x.count.max(b.elem + 1),
            None => s.bindings.push(BindingLayout {
                binding: b.binding,
                kind: DescriptorKind::StorageBuffer,
                count: b.elem + 1,
                offset,
            }),
        }
    }
    ResourceLayout {
        sets,
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

/// Runs the shader before and after the passes; returns the buffers after each run.
fn run(
    spirv: &[u32],
    spec: &[Specialization],
    bufs: &[Buffer],
    push: &[u8],
    groups: [u32; 3],
    base: [u32; 3],
    before_passes: bool,
) -> Vec<Vec<Vec<u8>>> {
    let layout = layout_for(bufs);
    let req = ComputeRequest {
        spirv,
        entry_point: "main",
        specialization: spec,
        layout: &layout,
        target: Target::G13,
    };
    compiler::check_module(spirv).expect("check_module");
    let shader = compiler::frontend::translate(&req).unwrap_or_else(|e| panic!("translate: {e}"));
    compiler::ir::validate::validate(&shader).unwrap_or_else(|e| {
        panic!(
            "front end IR invalid: {e}\n{}",
            compiler::ir::print::print(&shader)
        )
    });
    let mut lowered = shader.clone();
    compiler::passes::run_all(&mut lowered, &layout)
        .unwrap_or_else(|e| panic!("passes: {e}\n{}", compiler::ir::print::print(&shader)));
    let mut results = Vec::new();
    let stages: Vec<&compiler::ir::Shader> = if before_passes {
        vec![&shader, &lowered]
    } else {
        vec![&lowered]
    };
    for sh in stages {
        let mut mem = Regions::default();
        let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
        let mut set_mem: Vec<Vec<u8>> = vec![vec![0u8; 1024]; 4];
        for (k, b) in bufs.iter().enumerate() {
            let addr = BUF_BASE + 0x1_0000 * k as u64;
            mem.add(addr, b.data.clone());
            let d = &mut set_mem[b.set as usize][(b.binding * 64 + b.elem * 16) as usize..];
            d[..8].copy_from_slice(&addr.to_le_bytes());
            d[8..12].copy_from_slice(&b.range.unwrap_or(b.data.len() as u32).to_le_bytes());
        }
        for (s, m) in set_mem.into_iter().enumerate() {
            let a = 0x1000 + 0x1000 * s as u64;
            mem.add(a, m);
            let o = abi::set_address_offset(s as u32) as usize;
            root[o..o + 8].copy_from_slice(&a.to_le_bytes());
        }
        for i in 0..3 {
            let o = (abi::NUM_WORKGROUPS_OFFSET + 4 * i) as usize;
            root[o..o + 4].copy_from_slice(&groups[i as usize].to_le_bytes());
            let o = (abi::BASE_WORKGROUP_OFFSET + 4 * i) as usize;
            root[o..o + 4].copy_from_slice(&base[i as usize].to_le_bytes());
        }
        let p = abi::PUSH_CONSTANTS_OFFSET as usize;
        root[p..p + push.len()].copy_from_slice(push);
        // The root table is also memory at the address it holds, as the ICD arranges.
        let o = abi::ROOT_ADDRESS_OFFSET as usize;
        root[o..o + 8].copy_from_slice(&ROOT_VA.to_le_bytes());
        mem.add(ROOT_VA, root.clone());
        let d = Dispatch {
            workgroups: groups,
            root: &root,
            layout: &layout,
            step_limit: 50_000_000,
        };
        interp::run(sh, &d, &mut mem)
            .unwrap_or_else(|e| panic!("interp: {e}\n{}", compiler::ir::print::print(sh)));
        results.push(
            (0..bufs.len())
                .map(|k| mem.bytes(BUF_BASE + 0x1_0000 * k as u64).unwrap().to_vec())
                .collect(),
        );
    }
    results
}

/// Runs every variant before and after the passes and checks binding `out`'s buffer.
#[allow(clippy::too_many_arguments)] // a test helper mirroring a dispatch's inputs
fn check(
    src: &str,
    naga_too: bool,
    bufs: Vec<Buffer>,
    push: &[u8],
    groups: [u32; 3],
    spec: &[Specialization],
    out: usize,
    expect: &dyn Fn(&[u8]),
) {
    for (name, w) in variants(src, naga_too) {
        for (stage, r) in run(&w, spec, &bufs, push, groups, [0; 3], true)
            .iter()
            .enumerate()
        {
            eprintln!("checking {name} stage {stage}");
            expect(&r[out]);
        }
    }
}

#[test]
fn arithmetic_and_builtins() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { int a[]; };
layout(std430, set = 0, binding = 1) buffer B { int b[]; };
layout(std430, set = 0, binding = 2) buffer O { int o[]; float f[]; } ;
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = b[i];
    o[i * 8 + 0] = x * 3 + int(i);
    o[i * 8 + 1] = x / y;
    o[i * 8 + 2] = x % y;
    o[i * 8 + 3] = int(uint(x) / uint(y));
    o[i * 8 + 4] = int(uint(x) % uint(y));
    o[i * 8 + 5] = (x >> 2) ^ (y << 3) | (x & 0xff);
    o[i * 8 + 6] = min(x, y) + max(x, y) * abs(y) + sign(x);
    o[i * 8 + 7] = int(gl_WorkGroupID.x * 100u + gl_LocalInvocationID.x + gl_NumWorkGroups.x * 1000u);
}
"#;
    let src = src.replace("float f[]; ", "");
    let a: Vec<i32> = (0..16)
        .map(|k| (k * 7919 - 50000) * if k % 3 == 0 { -1 } else { 1 })
        .collect();
    let b: Vec<i32> = (0..16)
        .map(|k| if k % 2 == 0 { k + 3 } else { -(k * 13 + 1) })
        .collect();
    let au: Vec<u32> = a.iter().map(|x| *x as u32).collect();
    let bu: Vec<u32> = b.iter().map(|x| *x as u32).collect();
    check(
        &src,
        true,
        vec![
            buf(0, u32s(&au)),
            buf(1, u32s(&bu)),
            buf(2, vec![0; 16 * 8 * 4]),
        ],
        &[],
        [2, 1, 1],
        &[],
        2,
        &|o| {
            let o = as_u32(o);
            for i in 0..16usize {
                let (x, y) = (a[i], b[i]);
                let e = [
                    x.wrapping_mul(3) + i as i32,
                    x / y,
                    // GLSL leaves % of negative operands undefined: glslang emits OpSMod, naga
                    // OpSRem. Checked below.
                    0,
                    ((x as u32) / (y as u32)) as i32,
                    ((x as u32) % (y as u32)) as i32,
                    (x >> 2) ^ (y << 3) | (x & 0xff),
                    x.min(y) + x.max(y) * y.abs() + x.signum(),
                    ((i / 8) * 100 + i % 8 + 2000) as i32,
                ];
                for k in 0..8 {
                    if k == 2 {
                        let srem = x % y;
                        let smod = if srem != 0 && (srem < 0) != (y < 0) {
                            srem + y
                        } else {
                            srem
                        };
                        let got = o[i * 8 + k] as i32;
                        assert!(
                            got == srem || got == smod,
                            "invocation {i}: {x} % {y} gave {got}"
                        );
                        continue;
                    }
                    assert_eq!(o[i * 8 + k] as i32, e[k], "invocation {i} result {k}");
                }
            }
        },
    );
}

#[test]
fn floats() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer A { float a[]; };
layout(std430, set = 0, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    o[i * 8 + 0] = x / 3.0;
    o[i * 8 + 1] = sqrt(abs(x));
    o[i * 8 + 2] = fract(x);
    o[i * 8 + 3] = mod(x, 2.5);
    o[i * 8 + 4] = atan(x, 1.5);
    o[i * 8 + 5] = pow(abs(x) + 1.0, 1.5);
    o[i * 8 + 6] = clamp(x, -1.0, 1.0) + sign(x) + floor(x) + ceil(x);
    o[i * 8 + 7] = dot(vec3(x, 1.0, 2.0), vec3(2.0, x, 0.5)) + length(vec2(3.0, 4.0));
}
"#;
    let a = [0.5f32, -2.25, 7.0, 0.0, 100.125, -0.75, 3.5, 12.0];
    check(
        src,
        true,
        vec![buf(0, f32s(&a)), buf(1, vec![0; 8 * 8 * 4])],
        &[],
        [2, 1, 1],
        &[],
        1,
        &|o| {
            let o = as_f32(o);
            for (i, &x) in a.iter().enumerate() {
                let e = [
                    x / 3.0,
                    x.abs().sqrt(),
                    x - x.floor(),
                    x - 2.5 * (x / 2.5).floor(),
                    x.atan2(1.5),
                    (x.abs() + 1.0).powf(1.5),
                    x.clamp(-1.0, 1.0)
                        + if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            0.0
                        }
                        + x.floor()
                        + x.ceil(),
                    2.0 * x + x + 1.0 + 5.0,
                ];
                for k in 0..8 {
                    let tol = 1e-4 * e[k].abs().max(1.0);
                    assert!(
                        (o[i * 8 + k] - e[k]).abs() <= tol,
                        "invocation {i} result {k}: {} vs {}",
                        o[i * 8 + k],
                        e[k]
                    );
                }
            }
        },
    );
}

#[test]
fn if_else_and_loops() {
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint r;
    if (i < 4u) {
        r = i * 10u;
    } else if (i % 3u == 0u) {
        r = 1000u;
    } else {
        r = 7u;
    }
    uint s = 0u;
    for (uint k = 0u; k < 20u; k++) {
        if (k == i) { continue; }
        if (k > i + 5u) { break; }
        s += k;
    }
    uint w = i;
    uint n = 0u;
    while (w != 1u && w != 0u) {
        w = (w % 2u == 0u) ? w / 2u : 3u * w + 1u;
        n++;
    }
    uint d = 0u;
    do { d += 2u; } while (d < i);
    o[i * 4u] = r;
    o[i * 4u + 1u] = s;
    o[i * 4u + 2u] = n;
    o[i * 4u + 3u] = d;
}
"#;
    check(
        src,
        true,
        vec![buf(0, vec![0; 16 * 16])],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            for i in 0..16u32 {
                let r = if i < 4 {
                    i * 10
                } else if i % 3 == 0 {
                    1000
                } else {
                    7
                };
                let mut s = 0;
                for k in 0..20 {
                    if k == i {
                        continue;
                    }
                    if k > i + 5 {
                        break;
                    }
                    s += k;
                }
                let (mut w, mut n) = (i, 0);
                while w != 1 && w != 0 {
                    w = if w % 2 == 0 { w / 2 } else { 3 * w + 1 };
                    n += 1;
                }
                let mut d = 0;
                loop {
                    d += 2;
                    if d >= i {
                        break;
                    }
                }
                assert_eq!(
                    &o[i as usize * 4..i as usize * 4 + 4],
                    &[r, s, n, d],
                    "invocation {i}"
                );
            }
        },
    );
}

#[test]
fn functions_inout_and_early_return() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer O { int o[]; };
void swap_add(inout int a, inout int b, int c) { int t = a; a = b + c; b = t - c; }
int find(int x) {
    for (int k = 0; k < 10; k++) {
        if (k * k >= x) { return k; }
    }
    return -1;
}
int clampy(int x) { if (x < 0) return 0; if (x > 50) return 50; return x; }
int pick(int x) {
    for (int k = 0; k < 3; k++) {
        switch (x + k) {
            case 0: return 5;
            case 1: break;
            case 4: continue;
            default: if (x > 5) { return x * 2; } break;
        }
        x += 1;
    }
    return -3 - x;
}
void main() {
    int i = int(gl_LocalInvocationID.x);
    int a = i * 3, b = 100 - i;
    swap_add(a, b, 5);
    o[i * 4] = a;
    o[i * 4 + 1] = b;
    o[i * 4 + 2] = find(i * 13);
    o[i * 4 + 3] = clampy(i * 17 - 20) + 1000 * pick(i);
}
"#;
    check(
        src,
        true,
        vec![buf(0, vec![0; 8 * 16])],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            for i in 0..8i32 {
                let find = (0..10).find(|k| k * k >= i * 13).unwrap_or(-1);
                let pick = |mut x: i32| -> i32 {
                    for k in 0..3 {
                        match x + k {
                            0 => return 5,
                            1 => {}
                            4 => continue,
                            _ => {
                                if x > 5 {
                                    return x * 2;
                                }
                            }
                        }
                        x += 1;
                    }
                    -3 - x
                };
                let e = [
                    100 - i + 5,
                    i * 3 - 5,
                    find,
                    (i * 17 - 20).clamp(0, 50) + 1000 * pick(i),
                ];
                for k in 0..4 {
                    assert_eq!(
                        o[i as usize * 4 + k] as i32,
                        e[k],
                        "invocation {i} result {k}"
                    );
                }
            }
        },
    );
}

#[test]
fn shared_memory_reduction() {
    let src = r#"#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
shared uint tmp[64];
void main() {
    uint l = gl_LocalInvocationID.x;
    tmp[l] = a[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1u) {
        if (l < s) { tmp[l] += tmp[l + s]; }
        barrier();
    }
    if (l == 0u) { o[gl_WorkGroupID.x] = tmp[0]; }
}
"#;
    let a: Vec<u32> = (0..192).map(|k| k * k % 1000 + 1).collect();
    // naga's GLSL front end turns barrier() into a subgroup-scope control barrier, which
    // does not synchronise the workgroup; only glslang's module is meaningful here.
    check(
        src,
        false,
        vec![buf(0, u32s(&a)), buf(1, vec![0; 12])],
        &[],
        [3, 1, 1],
        &[],
        1,
        &|o| {
            let o = as_u32(o);
            for g in 0..3 {
                assert_eq!(
                    o[g],
                    a[g * 64..g * 64 + 64].iter().sum::<u32>(),
                    "workgroup {g}"
                );
            }
        },
    );
}

#[test]
fn atomics() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer O { uint count; int mx; uint bits; uint swapped; uint slots[]; };
shared uint local_count;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationIndex == 0u) { local_count = 0u; }
    barrier();
    uint slot = atomicAdd(count, 1u);
    atomicMax(mx, int(i) * 7 - 100);
    atomicOr(bits, 1u << (i % 32u));
    atomicAdd(local_count, 2u);
    atomicCompSwap(swapped, 0u, i + 1u);
    slots[slot] = i + 1u;
    barrier();
    if (gl_LocalInvocationIndex == 0u) { atomicAdd(slots[64], local_count); }
}
"#;
    check(
        src,
        false,
        vec![buf(0, vec![0; 4 * (4 + 65)])],
        &[],
        [2, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            assert_eq!(o[0], 64);
            assert_eq!(o[1] as i32, 63 * 7 - 100);
            assert_eq!(o[2], u32::MAX);
            assert!(o[3] >= 1 && o[3] <= 64);
            let mut slots: Vec<u32> = o[4..68].to_vec();
            slots.sort();
            assert_eq!(slots, (1..=64).collect::<Vec<_>>());
            assert_eq!(o[68], 128);
        },
    );
}

#[test]
fn std140_vec3_padding_and_push_constants() {
    let src = r#"#version 450
layout(local_size_x = 2) in;
struct S { vec3 v; float w; vec2 p; };
layout(std140, set = 0, binding = 0) uniform U { vec3 a; float b; S s[2]; mat3 m; } u;
layout(std430, set = 0, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform P { uint scale; float bias; } pc;
void main() {
    uint i = gl_LocalInvocationID.x;
    vec3 t = u.m * u.s[i].v;
    o[i * 8 + 0] = u.a.x + u.a.y * 10.0 + u.a.z * 100.0;
    o[i * 8 + 1] = u.b;
    o[i * 8 + 2] = u.s[i].w + u.s[i].p.y;
    o[i * 8 + 3] = t.x;
    o[i * 8 + 4] = t.y;
    o[i * 8 + 5] = t.z;
    o[i * 8 + 6] = float(pc.scale) * pc.bias;
    o[i * 8 + 7] = u.s[i].v.z;
}
"#;
    // std140: a @0 (vec3), b @12, s @16 (array stride 32: v@0, w@12, p@16), m @80 (3 columns
    // of stride 16).
    let mut ubo = vec![0f32; 32];
    ubo[0..3].copy_from_slice(&[1.0, 2.0, 3.0]);
    ubo[3] = 4.5;
    for k in 0..2 {
        let base = 4 + k * 8;
        ubo[base..base + 3].copy_from_slice(&[k as f32 + 1.0, 2.0 * k as f32, -1.0]);
        ubo[base + 3] = 10.0 + k as f32;
        ubo[base + 4] = 0.25;
        ubo[base + 5] = 0.5 * k as f32;
    }
    let m = [[1.0f32, 2.0, 3.0], [0.0, 1.0, 0.0], [4.0, 0.0, -1.0]];
    for c in 0..3 {
        ubo[20 + 4 * c..20 + 4 * c + 3].copy_from_slice(&m[c]);
    }
    let mut push = u32s(&[3]);
    push.extend(f32s(&[1.5]));
    check(
        src,
        true,
        vec![buf(0, f32s(&ubo)), buf(1, vec![0; 64])],
        &push,
        [1, 1, 1],
        &[],
        1,
        &|o| {
            let o = as_f32(o);
            for i in 0..2usize {
                let v = [i as f32 + 1.0, 2.0 * i as f32, -1.0];
                let t: Vec<f32> = (0..3)
                    .map(|r| (0..3).map(|c| m[c][r] * v[c]).sum())
                    .collect();
                let e = [
                    321.0,
                    4.5,
                    10.0 + i as f32 + 0.5 * i as f32,
                    t[0],
                    t[1],
                    t[2],
                    4.5,
                    -1.0,
                ];
                for k in 0..8 {
                    assert!(
                        (o[i * 8 + k] - e[k]).abs() < 1e-5,
                        "invocation {i} result {k}: {} vs {}",
                        o[i * 8 + k],
                        e[k]
                    );
                }
            }
        },
    );
}

#[test]
fn dynamically_indexed_push_constants() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
layout(push_constant) uniform P { uint k; uint t[6]; uvec4 v[2]; } pc;
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i * 2 + 0] = pc.t[i % 6u] * pc.k;
    o[i * 2 + 1] = pc.v[i & 1u][i >> 1];
}
"#;
    // k @0, t @4..28, v @32 (std430 uvec4 alignment 16) ..64.
    let mut words = vec![5u32, 10, 11, 12, 13, 14, 15, 0];
    words.extend((0..8).map(|n| 100 + n));
    let push = u32s(&words);
    check(
        src,
        false,
        vec![buf(0, vec![0; 8 * 8])],
        &push,
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            for i in 0..8usize {
                assert_eq!(o[i * 2], words[1 + i % 6] * 5, "t[{i} % 6] * k");
                assert_eq!(
                    o[i * 2 + 1],
                    100 + 4 * (i as u32 & 1) + (i as u32 >> 1),
                    "v[{i} & 1][{i} >> 1]"
                );
            }
        },
    );
    // An index past the end is undefined in Vulkan, but after the passes the load must stay
    // inside the push constants (the interpreter faults on memory outside the root table).
    let wild = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
layout(push_constant) uniform P { uint t[32]; } pc;
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = pc.t[i * 0x40000000u + 1000u];
}
"#;
    let words: Vec<u32> = (0..32).map(|n| 0x500 + n).collect();
    let bufs = vec![buf(0, vec![0; 16])];
    for (name, w) in variants(wild, false) {
        let r = run(&w, &[], &bufs, &u32s(&words), [1, 1, 1], [0; 3], false);
        for (i, x) in as_u32(&r[0][0]).into_iter().enumerate() {
            assert!(
                words.contains(&x),
                "{name}: invocation {i} read {x:#x}, not a push constant"
            );
        }
    }
}

#[test]
fn spec_constants() {
    let src = r#"#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint K = 5u;
layout(constant_id = 2) const bool FLIP = false;
layout(constant_id = 3) const int N = 2;
shared uint sh[N];
const uint KK = K * 2u + 1u;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = i * KK + gl_WorkGroupSize.x;
    sh[i % uint(N)] = 1u;
    o[i] = FLIP ? ~v : v;
}
"#;
    let spec = [
        Specialization {
            id: 0,
            bytes: 4u32.to_le_bytes().to_vec(),
        },
        Specialization {
            id: 1,
            bytes: 7u32.to_le_bytes().to_vec(),
        },
        Specialization {
            id: 2,
            bytes: 1u32.to_le_bytes().to_vec(),
        },
        Specialization {
            id: 3,
            bytes: 16u32.to_le_bytes().to_vec(),
        },
    ];
    // naga's GLSL front end does not take specialization constants.
    let Some(w) = glslang(src) else { return };
    // The shared array's length is specialization constant 3.
    let layout = layout_for(&[buf(0, vec![])]);
    for (sp, bytes) in [(&spec[..], 64), (&[][..], 8)] {
        let req = ComputeRequest {
            spirv: &w,
            entry_point: "main",
            specialization: sp,
            layout: &layout,
            target: Target::G13,
        };
        assert_eq!(
            compiler::frontend::translate(&req).unwrap().shared_size,
            bytes
        );
    }
    let bufs = vec![buf(0, vec![0; 4 * 8])];
    for r in run(&w, &spec, &bufs, &[], [2, 1, 1], [0; 3], true) {
        let o = as_u32(&r[0]);
        for i in 0..8u32 {
            assert_eq!(o[i as usize], !(i * 15 + 4), "invocation {i}");
        }
    }
    // Without specialization: defaults (local size 1 from glslang's default for the id).
    let bufs = vec![buf(0, vec![0; 4 * 2])];
    for r in run(&w, &[], &bufs, &[], [2, 1, 1], [0; 3], true) {
        let o = as_u32(&r[0]);
        assert_eq!(o, vec![1, 12]);
    }
}

#[test]
fn dynamic_local_array_and_switch() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer O { int o[]; };
void main() {
    int i = int(gl_LocalInvocationID.x);
    int arr[10];
    for (int k = 0; k < 10; k++) { arr[k] = k * k - i; }
    int fixed_[3] = int[3](1, 2, 3);
    int r;
    switch (i) {
        case 0: r = 100; break;
        case 1:
        case 2: r = 200 + i; break;
        case 5: r = arr[9]; break;
        default: r = -1; break;
    }
    int acc = 0;
    for (int k = 0; k < 6; k++) {
        switch (k) {
            case 1: continue;
            case 2: if (i > 3) { break; } acc += 100; break;
            case 4: acc += 7;
            case 5: acc += i; if (acc > 60) { break; } acc += 1; break;
            default: acc += k;
        }
        acc *= 2;
    }
    o[i * 3] = arr[(i * 3) % 10] + arr[9 - i];
    o[i * 3 + 1] = r;
    o[i * 3 + 2] = fixed_[0] + fixed_[2] * i + acc * 1000;
}
"#;
    check(
        src,
        true,
        vec![buf(0, vec![0; 8 * 12])],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            for i in 0..8i32 {
                let arr: Vec<i32> = (0..10).map(|k| k * k - i).collect();
                let r = match i {
                    0 => 100,
                    1 | 2 => 200 + i,
                    5 => arr[9],
                    _ => -1,
                };
                let mut acc = 0;
                for k in 0..6 {
                    match k {
                        1 => continue,
                        2 => {
                            if i <= 3 {
                                acc += 100;
                            }
                        }
                        4 | 5 => {
                            if k == 4 {
                                acc += 7;
                            }
                            acc += i;
                            if acc <= 60 {
                                acc += 1;
                            }
                        }
                        _ => acc += k,
                    }
                    acc *= 2;
                }
                let e = [
                    arr[((i * 3) % 10) as usize] + arr[(9 - i) as usize],
                    r,
                    1 + 3 * i + acc * 1000,
                ];
                for k in 0..3 {
                    assert_eq!(
                        o[i as usize * 3 + k] as i32,
                        e[k],
                        "invocation {i} result {k}"
                    );
                }
            }
        },
    );
}

#[test]
fn dispatch_base_and_array_length() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer O { uint n; uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(o.length())) { o[i] = i + gl_WorkGroupID.x * 1000u; }
    if (i == 4u) { n = uint(o.length()); }
}
"#;
    let bufs = vec![buf(0, vec![0; 4 * 13])];
    for (_, w) in variants(src, false) {
        // Base workgroup 1: invocations 4..12 of a 12-element array.
        for r in run(&w, &[], &bufs, &[], [2, 1, 1], [1, 0, 0], false) {
            let o = as_u32(&r[0]);
            assert_eq!(o[0], 12);
            for i in 0..12u32 {
                let e = if i >= 4 { i + (i / 4) * 1000 } else { 0 };
                assert_eq!(o[1 + i as usize], e, "element {i}");
            }
        }
    }
}

#[test]
fn robust_buffer_access() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
layout(std430, set = 0, binding = 2) buffer C { uint c[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = a[i + 4u] + 1u;
    atomicAdd(c[i + 4u], 100u);
}
"#;
    // a's descriptor covers 6 elements of 8, o's covers 6 of 16.
    let a: Vec<u32> = (10..18).collect();
    let mut bufs = vec![buf(0, u32s(&a)), buf(1, vec![0; 64]), buf(2, vec![0; 64])];
    bufs[0].range = Some(24);
    bufs[1].range = Some(24);
    bufs[2].range = Some(24);
    for (_, w) in variants(src, true) {
        for r in run(&w, &[], &bufs, &[], [1, 1, 1], [0; 3], false) {
            let o = as_u32(&r[1]);
            // o[i] = a[i + 4] + 1, with out-of-range reads giving 0 and stores past 6 dropped.
            let mut e = vec![0u32; 16];
            for i in 0..8usize {
                if i < 6 {
                    e[i] = if i + 4 < 6 { a[i + 4] + 1 } else { 1 };
                }
            }
            assert_eq!(o, e);
            let c = as_u32(&r[2]);
            let mut e = vec![0u32; 16];
            e[4] = 100;
            e[5] = 100;
            assert_eq!(c, e);
        }
    }
}

#[test]
fn matrices_and_vectors() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer O { vec4 o[]; };
void main() {
    mat2 a = mat2(1.0, 2.0, 3.0, 4.0);
    mat2 b = mat2(0.5, -1.0, 2.0, 0.0);
    mat2 c = a * b;
    vec4 v = vec4(1.0, 2.0, 3.0, 4.0);
    o[0] = vec4(c[0], c[1]);
    o[1] = v.wzyx * 2.0 + vec4(transpose(a)[0], (vec2(1.0, 1.0) * a));
    o[2] = vec4(cross(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0)), distance(v.xy, v.zw));
    bvec4 m = lessThan(v, vec4(2.5));
    o[3] = mix(vec4(0.0), v, vec4(m));
}
"#;
    check(
        src,
        true,
        vec![buf(0, vec![0; 64])],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_f32(o);
            // a = [[1,2],[3,4]] (columns), b = [[0.5,-1],[2,0]]; c col0 = a*(0.5,-1) = (0.5-3, 1-4).
            let e = [
                -2.5,
                -3.0,
                2.0,
                4.0, //
                8.0 + 1.0,
                6.0 + 3.0,
                4.0 + 3.0,
                2.0 + 7.0, //
                0.0,
                0.0,
                1.0,
                8f32.sqrt(), //
                1.0,
                2.0,
                0.0,
                0.0,
            ];
            for k in 0..16 {
                assert!((o[k] - e[k]).abs() < 1e-5, "lane {k}: {} vs {}", o[k], e[k]);
            }
        },
    );
}

#[test]
fn rejects_unsupported_capabilities_and_bad_modules() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer O { double o[]; };
void main() { o[0] = 1.0lf; }
"#;
    if let Some(w) = glslang(src) {
        match compiler::check_module(&w) {
            Err(CompileError::Unsupported(m)) => assert!(m.contains("Float64"), "{m}"),
            other => panic!("expected Unsupported(Float64), got {other:?}"),
        }
    }
    assert!(matches!(
        compiler::check_module(&[]),
        Err(CompileError::InvalidSpirv(_))
    ));
    assert!(matches!(
        compiler::check_module(&[0x0723_0203, 0x10000, 0, 10, 0]),
        Err(CompileError::InvalidSpirv(_))
    ));
}

#[test]
fn truncated_and_mutated_modules_never_panic() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
shared uint s[4];
uint f(uint x) { for (uint k = 0u; k < x; k++) { if (k == 3u) return k; } return x; }
void main() {
    uint i = gl_LocalInvocationID.x;
    s[i] = f(i);
    barrier();
    int arr[4]; arr[i] = 1;
    o[i] = s[3u - i] + uint(arr[i]);
}
"#;
    let mut modules: Vec<Vec<u32>> = variants(src, true).into_iter().map(|(_, w)| w).collect();
    let base = modules.clone();
    let mut seed = 0x1234_5678u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for w in &base {
        for cut in (0..w.len()).step_by(3) {
            modules.push(w[..cut].to_vec());
        }
        // AGX4_FUZZ_ITERS raises the number of mutants for a longer local run.
        let iters: usize = std::env::var("AGX4_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        for _ in 0..iters {
            let mut m = w.clone();
            for _ in 0..(1 + next() % 4) {
                let k = 5 + (next() % (m.len() as u64 - 5)) as usize;
                match next() % 6 {
                    0 => m[k] = next() as u32,
                    1 => m[k] ^= 1 << (next() % 32),
                    2 => m[k] = (next() % 64) as u32,
                    3 => m[k] = m[k].wrapping_add(1),
                    4 => {
                        m.remove(k);
                    }
                    _ => m.insert(k, next() as u32 % 0x10_0000),
                }
            }
            modules.push(m);
        }
    }
    let mut compiled = 0;
    for m in &modules {
        let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        if compiler::frontend::fuzz_one(&bytes) {
            compiled += 1;
        }
    }
    assert!(compiled >= base.len(), "the unmutated modules must compile");
}

#[test]
fn descriptor_arrays_and_row_major() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer In { uint v[]; } ins[2];
layout(std430, set = 0, binding = 1) buffer M { layout(row_major) mat2 m; vec2 x; } mb;
layout(std430, set = 0, binding = 2) buffer O { vec2 r; uint o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    o[i] = ins[i & 1u].v[i] * 10u + ins[0].v[3];
    if (i == 0u) { r = mb.m * mb.x; }
}
"#;
    let mut b1 = buf(0, u32s(&[1, 2, 3, 4]));
    b1.elem = 0;
    let mut b2 = buf(0, u32s(&[10, 20, 30, 40]));
    b2.elem = 1;
    // row_major mat2: rows (1, 2) and (3, 4); x = (5, 6): m * x = (17, 39).
    let m = buf(1, f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    let bufs = vec![b1, b2, m, buf(2, vec![0; 24])];
    for (_, w) in variants(src, false) {
        for r in run(&w, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
            let o = as_u32(&r[3]);
            assert_eq!(&o[2..6], &[14, 204, 34, 404]);
            assert_eq!(as_f32(&r[3])[0..2], [17.0, 39.0]);
        }
    }
}

#[test]
fn private_variables_and_vector_lanes() {
    let src = r#"#version 450
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
uint table[4] = uint[4](3u, 5u, 7u, 11u);
uint calls = 0u;
uint bump(uint x) { calls += 1u; return table[x % 4u] + calls; }
void main() {
    uint i = gl_LocalInvocationID.x;
    table[i] += 100u;
    uvec4 v = uvec4(i, i + 1u, i + 2u, i + 3u);
    v[i] = 50u;
    uint s = bump(i) + bump(i + 1u);
    o[i * 3u] = s;
    o[i * 3u + 1u] = calls;
    o[i * 3u + 2u] = v.x + v.y * 10u + v.z * 100u + v.w * 1000u;
}
"#;
    check(
        src,
        true,
        vec![buf(0, vec![0; 48])],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|o| {
            let o = as_u32(o);
            for i in 0..4usize {
                let mut table = [3u32, 5, 7, 11];
                table[i] += 100;
                let s = (table[i % 4] + 1) + (table[(i + 1) % 4] + 2);
                let mut v = [i as u32, i as u32 + 1, i as u32 + 2, i as u32 + 3];
                v[i] = 50;
                let e = [s, 2, v[0] + v[1] * 10 + v[2] * 100 + v[3] * 1000];
                assert_eq!(&o[i * 3..i * 3 + 3], &e, "invocation {i}");
            }
        },
    );
}

#[test]
fn int64_arithmetic_conversions_and_layout() {
    use int64_shader as t;
    let a = t::inputs();
    let bufs = vec![
        buf(0, t::u64s(&a)),
        buf(1, vec![0; 8 * 20 * t::INVOCATIONS]),
        buf(2, vec![0; 64]),
    ];
    let want = t::expected(&a);
    for (name, w) in variants(t::SRC, false) {
        for (stage, r) in run(&w, &[], &bufs, &t::push(), [1, 1, 1], [0; 3], true)
            .iter()
            .enumerate()
        {
            t::compare(&t::as_u64(&r[1]), &want, &format!("{name} stage {stage}"));
            t::check_struct(&r[2], &a);
        }
    }
}

#[test]
fn int64_atomics_are_rejected_clearly() {
    let src = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer O { uint64_t o[]; };
void main() { atomicAdd(o[0], 1ul); }
"#;
    let Some(w) = glslang(src) else { return };
    let layout = layout_for(&[buf(0, vec![0; 8])]);
    let req = ComputeRequest {
        spirv: &w,
        entry_point: "main",
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    let e = compiler::check_module(&w)
        .and_then(|_| compiler::frontend::translate(&req).map(|_| ()))
        .expect_err("64-bit atomics must be rejected");
    assert!(
        matches!(&e, CompileError::Unsupported(m) if m.contains("64")),
        "{e:?}"
    );
}

#[test]
fn int64_spec_constants() {
    let src = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 1) in;
layout(constant_id = 0) const uint64_t B = 0x100000000ul;
layout(constant_id = 1) const int64_t N = -5l;
const uint64_t B2 = B * 3ul + (B >> 4);
const int64_t M = N * N - (N >> 1);
layout(std430, set = 0, binding = 0) buffer O { uint64_t o[]; };
void main() { o[0] = B2; o[1] = uint64_t(M); o[2] = B; }
"#;
    let Some(w) = glslang(src) else { return };
    let bufs = vec![buf(0, vec![0; 24])];
    let expect = |b: u64, n: i64| {
        vec![
            b.wrapping_mul(3).wrapping_add(b >> 4),
            n.wrapping_mul(n).wrapping_sub(n >> 1) as u64,
            b,
        ]
    };
    for r in run(&w, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(int64_shader::as_u64(&r[0]), expect(1 << 32, -5));
    }
    let spec = [
        Specialization {
            id: 0,
            bytes: 0x1234_5678_9abc_def0u64.to_le_bytes().to_vec(),
        },
        Specialization {
            id: 1,
            bytes: (-3_000_000_000i64).to_le_bytes().to_vec(),
        },
    ];
    for r in run(&w, &spec, &bufs, &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(
            int64_shader::as_u64(&r[0]),
            expect(0x1234_5678_9abc_def0, -3_000_000_000)
        );
    }
}

#[test]
fn int64_shared_local_push_and_vectors() {
    use int64_shader as t;
    let bufs = vec![buf(0, vec![0; 16 * 8])];
    for (name, w) in variants(t::SRC_MEMORY, false) {
        for (stage, r) in run(&w, &[], &bufs, &t::push_memory(), [1, 1, 1], [0; 3], true)
            .iter()
            .enumerate()
        {
            assert_eq!(
                t::as_u64(&r[0]),
                t::expected_memory(),
                "{name} stage {stage}"
            );
        }
    }
}

/// glslang's module for a small shader, rewritten into forms other SPIR-V producers (and the
/// CTS's hand-written assembly) use: decoration groups, a debug name that is not UTF-8, and an
/// unused OpUndef of a runtime array.
#[test]
fn decoration_groups_odd_debug_strings_and_valueless_undefs() {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Instruction, Operand};
    use rspirv::spirv::Op;
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = a[i] * 3u + 1u;
}
"#;
    let Some(w) = glslang(src) else {
        return;
    };
    let mut m = rspirv::dr::load_words(&w).expect("parse");
    let mut next = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    let mut fresh = || {
        next += 1;
        next - 1
    };
    // Every decoration of a variable or a member moves into a group of its own.
    let mut annotations = Vec::new();
    for inst in std::mem::take(&mut m.annotations) {
        let g = fresh();
        let (apply, dec) = match inst.class.opcode {
            Op::Decorate => {
                let target = inst.operands[0].clone();
                let apply = Instruction::new(
                    Op::GroupDecorate,
                    None,
                    None,
                    vec![Operand::IdRef(g), target],
                );
                (apply, inst.operands[1..].to_vec())
            }
            Op::MemberDecorate => {
                let apply = Instruction::new(
                    Op::GroupMemberDecorate,
                    None,
                    None,
                    vec![
                        Operand::IdRef(g),
                        inst.operands[0].clone(),
                        inst.operands[1].clone(),
                    ],
                );
                (apply, inst.operands[2..].to_vec())
            }
            _ => {
                annotations.push(inst);
                continue;
            }
        };
        let mut o = vec![Operand::IdRef(g)];
        o.extend(dec);
        annotations.push(Instruction::new(Op::Decorate, None, None, o));
        annotations.push(Instruction::new(Op::DecorationGroup, None, Some(g), vec![]));
        annotations.push(apply);
    }
    m.annotations = annotations;
    // An unused undefined runtime array.
    let uint = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
        })
        .and_then(|i| i.result_id)
        .expect("uint type");
    let ra = fresh();
    m.types_global_values.push(Instruction::new(
        Op::TypeRuntimeArray,
        None,
        Some(ra),
        vec![Operand::IdRef(uint)],
    ));
    let u = fresh();
    m.types_global_values
        .push(Instruction::new(Op::Undef, Some(ra), Some(u), vec![]));
    if let Some(h) = m.header.as_mut() {
        h.bound = next;
    }
    let mut words = m.assemble();
    // The first OpName's string starts with a byte that is never UTF-8.
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        if words[at] & 0xffff == 5 {
            words[at + 2] = (words[at + 2] & !0xff) | 0xff;
            break;
        }
        at += n.max(1);
    }
    let a: Vec<u32> = (0..8).map(|k| k * 11 + 2).collect();
    let bufs = vec![buf(0, u32s(&a)), buf(1, vec![0; 32])];
    for r in run(&words, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        let o = as_u32(&r[1]);
        for (k, x) in a.iter().enumerate() {
            assert_eq!(o[k], x * 3 + 1);
        }
    }
}

/// A switch case that branches straight to the enclosing loop's merge (a two-level break,
/// which hand-written and HLSL-made SPIR-V use): glslang's module with the default case's
/// branch to the switch merge retargeted to the loop merge.
#[test]
fn switch_case_leaving_the_enclosing_loop() {
    use rspirv::binary::Assemble;
    use rspirv::dr::Operand;
    use rspirv::spirv::Op;
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { int a[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int acc = 0;
    for (int k = 0; k < 3; k++) {
        switch (a[i] & 1) {
        case 0:
            acc += 10;
            break;
        default:
            acc += 20;
            break;
        }
        acc += 1;
    }
    o[i] = acc;
}
"#;
    let Some(w) = glslang(src) else {
        return;
    };
    let mut m = rspirv::dr::load_words(&w).expect("parse");
    let f = &mut m.functions[0];
    let mut loop_merge = None;
    let mut switch = None;
    for b in &f.blocks {
        for (k, inst) in b.instructions.iter().enumerate() {
            match inst.class.opcode {
                Op::LoopMerge => loop_merge = Some(inst.operands[0].clone()),
                Op::Switch => {
                    let merge = b.instructions[k - 1].operands[0].clone();
                    switch = Some((merge, inst.operands[1].clone()));
                }
                _ => {}
            }
        }
    }
    let (loop_merge, (switch_merge, default)) = (loop_merge.unwrap(), switch.unwrap());
    let mut patched = false;
    for b in &mut f.blocks {
        let label = b.label.as_ref().and_then(|l| l.result_id);
        if Some(&Operand::IdRef(label.unwrap())) != Some(&default) {
            continue;
        }
        let last = b.instructions.last_mut().unwrap();
        assert_eq!(last.class.opcode, Op::Branch);
        assert_eq!(last.operands[0], switch_merge);
        last.operands[0] = loop_merge.clone();
        patched = true;
    }
    assert!(patched);
    let words = m.assemble();
    let a: Vec<u32> = (0..8).collect();
    let bufs = vec![buf(0, u32s(&a)), buf(1, vec![0; 32])];
    for r in run(&words, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        let o = as_u32(&r[1]);
        for (k, x) in a.iter().enumerate() {
            assert_eq!(o[k], if x % 2 == 0 { 33 } else { 20 }, "invocation {k}");
        }
    }
}

/// A switch inside a loop whose merge block defines a value (here a phi of the cases) that the
/// loop's continue block uses, in a called function (CTS spirv_assembly.instruction.graphics.
/// opphi.out_of_order_*): the continue block is translated only after the merge block.
const SWITCH_MERGE_VALUE_IN_CONTINUE: &str = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf BufferBlock
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fnv = OpTypeFunction %void
%f32 = OpTypeFloat 32
%i32 = OpTypeInt 32 1
%bool = OpTypeBool
%v4f32 = OpTypeVector %f32 4
%fn4 = OpTypeFunction %v4f32 %v4f32
%Buf = OpTypeStruct %v4f32
%pbuf = OpTypePointer Uniform %Buf
%pv4u = OpTypePointer Uniform %v4f32
%fp_i32 = OpTypePointer Function %i32
%fp_v4f32 = OpTypePointer Function %v4f32
%fp_f32 = OpTypePointer Function %f32
%buf = OpVariable %pbuf Uniform
%c0 = OpConstant %i32 0
%c1 = OpConstant %i32 1
%c4 = OpConstant %i32 4
%f0 = OpConstant %f32 0
%f2 = OpConstant %f32 0.2
%f4 = OpConstant %f32 0.4
%f5 = OpConstant %f32 0.5
%main = OpFunction %void None %fnv
%ml = OpLabel
%p = OpAccessChain %pv4u %buf %c0
%x = OpLoad %v4f32 %p
%y = OpFunctionCall %v4f32 %test %x
OpStore %p %y
OpReturn
OpFunctionEnd
%test = OpFunction %v4f32 None %fn4
%param = OpFunctionParameter %v4f32
%lbl = OpLabel
%iptr = OpVariable %fp_i32 Function
%result = OpVariable %fp_v4f32 Function
OpStore %iptr %c0
OpStore %result %param
OpBranch %loop
%loop = OpLabel
%ival = OpLoad %i32 %iptr
%lt = OpSLessThan %bool %ival %c4
OpLoopMerge %exit %cont None
OpBranchConditional %lt %body %exit
%body = OpLabel
%loc = OpAccessChain %fp_f32 %result %ival
%val = OpLoad %f32 %loc
OpSelectionMerge %phi None
OpSwitch %ival %default 0 %case0 1 %case1 2 %case2 3 %case3
%case0 = OpLabel
OpBranch %phi
%case1 = OpLabel
OpBranch %phi
%case2 = OpLabel
OpBranch %phi
%case3 = OpLabel
OpBranch %phi
%default = OpLabel
OpUnreachable
%phi = OpLabel
%operand = OpPhi %f32 %f4 %case2 %f5 %case1 %f2 %case0 %f0 %case3
OpBranch %cont
%cont = OpLabel
%add = OpFAdd %f32 %val %operand
OpStore %loc %add
%next = OpIAdd %i32 %ival %c1
OpStore %iptr %next
OpBranch %loop
%exit = OpLabel
%ret = OpLoad %v4f32 %result
OpReturnValue %ret
OpFunctionEnd
"#;

#[test]
fn switch_merge_value_used_in_the_loop_continue_block() {
    let words = common::spirv_as(SWITCH_MERGE_VALUE_IN_CONTINUE);
    let x = [1.0f32, 2.0, 3.0, 4.0];
    let bufs = vec![buf(0, x.iter().flat_map(|v| v.to_le_bytes()).collect())];
    for r in run(&words, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        let o: Vec<f32> = as_u32(&r[0]).into_iter().map(f32::from_bits).collect();
        let want = [1.0f32 + 0.2, 2.0 + 0.5, 3.0 + 0.4, 4.0];
        assert_eq!(o, want);
    }
}

/// A switch of 200 cases (the cases are a flat sequence, not 200 nested else-ifs).
#[test]
fn switch_with_many_cases() {
    let cases: String = (0..200)
        .map(|k| format!("        case {k}: r = {};\n            break;\n", k * 3 + 1))
        .collect();
    let src = format!(
        r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A {{ int a[]; }};
layout(std430, set = 0, binding = 1) buffer O {{ int o[]; }};
void main() {{
    uint i = gl_GlobalInvocationID.x;
    int r = -1;
    switch (a[i]) {{
{cases}        default: r = -7;
            break;
    }}
    o[i] = r;
}}
"#
    );
    let a: Vec<u32> = vec![0, 199, 200, 57, u32::MAX, 3, 150, 1000];
    check(
        &src,
        false,
        vec![buf(0, u32s(&a)), buf(1, vec![0; 32])],
        &[],
        [1, 1, 1],
        &[],
        1,
        &|r| {
            let o = as_u32(r);
            for (k, &x) in a.iter().enumerate() {
                let want = if x < 200 { x as i32 * 3 + 1 } else { -7 };
                assert_eq!(o[k] as i32, want, "a = {x}");
            }
        },
    );
}

/// A module may declare images and samplers it never uses; using one outside the pipeline
/// layout is refused clearly.
#[test]
fn unused_images_and_samplers_are_accepted() {
    let unused = r#"#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 2) uniform sampler2D tex;
layout(set = 0, binding = 3) uniform sampler smp;
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
void main() {
    o[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x + 5u;
}
"#;
    let Some(w) = glslang(unused) else {
        return;
    };
    for r in run(
        &w,
        &[],
        &[buf(1, vec![0; 32])],
        &[],
        [1, 1, 1],
        [0; 3],
        true,
    ) {
        assert_eq!(as_u32(&r[0]), (5..13).collect::<Vec<u32>>());
    }
    let used = unused.replace("+ 5u;", "+ uint(texture(tex, vec2(0.5)).x);");
    let Some(w) = glslang(&used) else {
        return;
    };
    compiler::check_module(&w).expect("declaring images is fine");
    let layout = layout_for(&[buf(1, vec![0; 32])]);
    let req = ComputeRequest {
        spirv: &w,
        entry_point: "main",
        specialization: &[],
        layout: &layout,
        target: Target::G13,
    };
    // Images translate (frontend::image); reaching one needs its binding in the pipeline
    // layout (passes::lower_textures), which this one lacks.
    compiler::frontend::translate(&req).expect("images translate");
    match compiler::compile_compute(&req) {
        Err(CompileError::InvalidSpirv(m)) => assert!(m.contains("binding 2"), "{m}"),
        other => panic!("expected InvalidSpirv, got {other:?}"),
    }
}

/// Arrays whose length is a specialization constant or an OpSpecConstantOp of one take the
/// specialised length, in Function, Workgroup and push-constant-free shaders alike; without
/// a value the default applies.
#[test]
fn spec_constant_array_lengths() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
layout(constant_id = 4) const int M = 3;
layout(constant_id = 5) const uint S = 2u;
shared uint sh[M * 2 + 1];
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint loc[S + 1u];
    for (uint i = 0u; i < S + 1u; i++) { loc[i] = 10u * i + 1u; }
    uint sum = 0u;
    for (uint i = 0u; i < S + 1u; i++) { sum += loc[i]; }
    for (int i = 0; i < sh.length(); i++) { sh[i] = uint(i); }
    o[0] = uint(loc.length());
    o[1] = uint(sh.length());
    o[2] = sum;
    o[3] = sh[sh.length() - 1];
}
"#;
    let Some(w) = glslang(src) else { return };
    let spec = [
        Specialization {
            id: 4,
            bytes: 5u32.to_le_bytes().to_vec(),
        },
        Specialization {
            id: 5,
            bytes: 6u32.to_le_bytes().to_vec(),
        },
    ];
    let layout = layout_for(&[buf(0, vec![])]);
    for (sp, shared) in [(&spec[..], 4 * 11), (&[][..], 4 * 7)] {
        let req = ComputeRequest {
            spirv: &w,
            entry_point: "main",
            specialization: sp,
            layout: &layout,
            target: Target::G13,
        };
        assert_eq!(
            compiler::frontend::translate(&req).unwrap().shared_size,
            shared
        );
    }
    let bufs = vec![buf(0, vec![0; 16])];
    // M = 5, S = 6: sh has 11 elements, loc 7 (1 + 11 + ... + 61 = 217).
    for r in run(&w, &spec, &bufs, &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(as_u32(&r[0]), vec![7, 11, 217, 10]);
    }
    // Defaults: M = 3, S = 2: sh has 7 elements, loc 3 (1 + 11 + 21 = 33).
    for r in run(&w, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(as_u32(&r[0]), vec![3, 7, 33, 6]);
    }
}

/// OpCopyLogical (glslang's copy between a struct or array of one explicit layout and the
/// same type of another, from SPIR-V 1.4 on): std140 with a row-major matrix and 16-byte
/// array stride into a Function variable, and from there and straight into std430.
#[test]
fn copy_logical_between_layouts() {
    let src = r#"#version 450
layout(local_size_x = 1) in;
struct S { vec3 a; float b[3]; mat2x3 m; uvec2 c; };
layout(std140, row_major, set = 0, binding = 0) buffer I { S s; } i;
layout(std430, set = 0, binding = 1) buffer O { S s; S arr[2]; } o;
void main() {
    S l = i.s;
    l.b[1] += 1.0;
    o.s = l;
    o.arr[1] = i.s;
    float bb[3] = i.s.b;
    o.arr[0].b = bb;
}
"#;
    let w = common::glslang_env(src, "comp", "vulkan1.2").expect("glslang");
    let words = |op: u32| w[5..].iter().filter(|x| **x & 0xffff == op).count();
    // OpCopyLogical is 400; make sure the test exercises it.
    assert!(words(400) > 0, "glslang emitted no OpCopyLogical");
    let mut input = vec![0f32; 32];
    input[0..3].copy_from_slice(&[1.0, 2.0, 3.0]);
    for (k, b) in [4.0, 5.0, 6.0].into_iter().enumerate() {
        input[4 + 4 * k] = b;
    }
    // Row-major mat2x3: row r at byte 64 + 16r holds (m[0][r], m[1][r]).
    let m = [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]];
    for r in 0..3 {
        input[16 + 4 * r] = m[0][r];
        input[16 + 4 * r + 1] = m[1][r];
    }
    let mut input = f32s(&input);
    input[112..120].copy_from_slice(&u32s(&[13, 14]));
    // std430: a at 0, b at 12 (stride 4), m at 32 column-major (stride 16), c at 64; 80 bytes.
    let s430 = |b1: f32| {
        let mut v = vec![0f32; 20];
        v[0..3].copy_from_slice(&[1.0, 2.0, 3.0]);
        v[3..6].copy_from_slice(&[4.0, b1, 6.0]);
        v[8..11].copy_from_slice(&m[0]);
        v[12..15].copy_from_slice(&m[1]);
        let mut b = f32s(&v);
        b[64..72].copy_from_slice(&u32s(&[13, 14]));
        b
    };
    let mut want = s430(6.0);
    let mut arr0 = vec![0u8; 80];
    arr0[12..24].copy_from_slice(&f32s(&[4.0, 5.0, 6.0]));
    want.extend(arr0);
    want.extend(s430(5.0));
    let bufs = vec![buf(0, input), buf(1, vec![0; 240])];
    for r in run(&w, &[], &bufs, &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(as_f32(&r[1]), as_f32(&want));
    }
}

/// OpVectorShuffle with undefined (0xFFFFFFFF) components, at run time: the defined lanes
/// come from the right operand lanes, whatever the undefined ones hold.
#[test]
fn vector_shuffle_with_undefined_components() {
    let src = r#"
OpCapability Shader
OpExtension "SPV_KHR_storage_buffer_storage_class"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %rta ArrayStride 16
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf Block
OpDecorate %io DescriptorSet 0
OpDecorate %io Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%v4 = OpTypeVector %u32 4
%v2 = OpTypeVector %u32 2
%rta = OpTypeRuntimeArray %v4
%buf = OpTypeStruct %rta
%pbuf = OpTypePointer StorageBuffer %buf
%pv4 = OpTypePointer StorageBuffer %v4
%io = OpVariable %pbuf StorageBuffer
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%main = OpFunction %void None %fn
%l = OpLabel
%pa = OpAccessChain %pv4 %io %c0 %c0
%pb = OpAccessChain %pv4 %io %c0 %c1
%a = OpLoad %v4 %pa
%b = OpLoad %v4 %pb
%s = OpVectorShuffle %v4 %a %b 0xFFFFFFFF 6 0xFFFFFFFF 1
%t = OpVectorShuffle %v2 %b %a 0xFFFFFFFF 7
%x = OpCompositeExtract %u32 %s 1
%y = OpCompositeExtract %u32 %s 3
%z = OpCompositeExtract %u32 %t 1
%r = OpCompositeConstruct %v4 %x %y %z %c2
%po = OpAccessChain %pv4 %io %c0 %c2
OpStore %po %r
OpReturn
OpFunctionEnd
"#;
    let w = common::spirv_as(src);
    let mut data = u32s(&[10, 11, 12, 13, 20, 21, 22, 23]);
    data.extend(vec![0; 16]);
    for r in run(&w, &[], &[buf(0, data)], &[], [1, 1, 1], [0; 3], true) {
        assert_eq!(as_u32(&r[0])[8..], [22, 11, 13, 2]);
    }
}

/// GLSL.std.450 Sin, Cos and Tan through the front end, the passes and the interpreter (the
/// USC's results differ from the interpreter's in the last bit, so g13_glsl_std450, which
/// demands equal bits, leaves them out).
#[test]
fn trigonometry() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { float a[8]; float o[24]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = a[i];
    o[i * 3u] = sin(x);
    o[i * 3u + 1u] = cos(x);
    o[i * 3u + 2u] = tan(x);
}
"#;
    let xs: Vec<f32> = (0..8).map(|k| (k as f32 - 3.5) * 0.43).collect();
    let mut data = f32s(&xs);
    data.extend(vec![0; 24 * 4]);
    check(
        src,
        true,
        vec![buf(0, data)],
        &[],
        [1, 1, 1],
        &[],
        0,
        &|b| {
            let o = as_f32(b);
            for (i, x) in xs.iter().enumerate() {
                let want = [x.sin(), x.cos(), x.tan()];
                for (k, w) in want.iter().enumerate() {
                    let got = o[8 + i * 3 + k];
                    assert!(
                        (got - w).abs() <= 1e-5 * (1.0 + w.abs()),
                        "{k} of {x}: {got} vs {w}"
                    );
                }
            }
        },
    );
}
