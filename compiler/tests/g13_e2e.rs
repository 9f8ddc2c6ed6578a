//! GLSL compute shaders through glslang, the whole compiler (front end, passes, G13 back end)
//! and the simulated USC, against results computed here on the CPU and against the IR
//! interpreter running the same shader (a differential check of the back end).

mod common;
mod int64_shader;

use common::usc::{as_u32, run, u32s};

#[test]
fn integer_arithmetic_and_division() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { int a[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i], y = a[i + 64u] | 1;
    o[i * 6 + 0] = x * 7 - y;
    o[i * 6 + 1] = x / y;
    o[i * 6 + 2] = int(uint(x) % uint(y));
    o[i * 6 + 3] = (x >> 3) ^ (y << 5) | (x & 0xf0f);
    o[i * 6 + 4] = min(x, y) + max(x, y) + abs(x);
    o[i * 6 + 5] = int(bitCount(uint(x))) + findMSB(x) + int(bitfieldExtract(uint(y), 3, 7));
}
"#;
    let a: Vec<u32> = (0..128u32)
        .map(|k| k.wrapping_mul(2_654_435_761) ^ (k << 3))
        .collect();
    let Some(r) = run(src, &[u32s(&a), vec![0; 64 * 6 * 4]], [2, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    for i in 0..64usize {
        let (x, y) = (a[i] as i32, (a[i + 64] | 1) as i32);
        let msb = |v: i32| {
            let u = if v < 0 { !v as u32 } else { v as u32 };
            if u == 0 {
                -1
            } else {
                31 - u.leading_zeros() as i32
            }
        };
        let e = [
            x.wrapping_mul(7).wrapping_sub(y),
            x.wrapping_div(y),
            ((x as u32) % (y as u32)) as i32,
            (x >> 3) ^ (y << 5) | (x & 0xf0f),
            x.min(y)
                .wrapping_add(x.max(y))
                .wrapping_add(x.wrapping_abs()),
            (x as u32).count_ones() as i32 + msb(x) + (((y as u32) >> 3) & 0x7f) as i32,
        ];
        for (j, e) in e.iter().enumerate() {
            assert_eq!(o[i * 6 + j] as i32, *e, "thread {i} result {j}");
        }
    }
}

#[test]
fn loops_branches_and_early_return() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint acc = 0u;
    for (uint k = 0u; k < 40u; k++) {
        if (k == i) break;
        if ((k & 3u) == 1u) continue;
        for (uint j = 0u; j < (k & 7u); j++) {
            if (j == 5u) continue;
            acc += j * k;
        }
        if (acc > 3000u) {
            if ((i & 1u) == 1u) return;
            break;
        }
    }
    o[i] = acc;
}
"#;
    let Some(r) = run(src, &[vec![0xff; 32 * 4]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[0]);
    for i in 0..32u32 {
        let mut acc = 0u32;
        let mut returned = false;
        for k in 0..40u32 {
            if k == i {
                break;
            }
            if k & 3 == 1 {
                continue;
            }
            for j in 0..(k & 7) {
                if j == 5 {
                    continue;
                }
                acc += j * k;
            }
            if acc > 3000 {
                returned = i & 1 == 1;
                break;
            }
        }
        let want = if returned { u32::MAX } else { acc };
        assert_eq!(o[i as usize], want, "thread {i}");
    }
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let src = r#"#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[]; };
shared uint s[64];
void main() {
    uint l = gl_LocalInvocationIndex;
    s[l] = a[gl_GlobalInvocationID.x];
    barrier();
    for (uint w = 32u; w > 0u; w >>= 1u) {
        if (l < w) s[l] += s[l + w];
        barrier();
    }
    if (l == 0u) o[gl_WorkGroupID.x] = s[0];
    atomicAdd(o[8], a[gl_GlobalInvocationID.x] & 0xffu);
}
"#;
    let a: Vec<u32> = (0..256u32).map(|k| k * k + 3).collect();
    let Some(r) = run(src, &[u32s(&a), vec![0; 9 * 4]], [4, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    for g in 0..4usize {
        let want: u32 = a[g * 64..(g + 1) * 64].iter().sum();
        assert_eq!(o[g], want, "workgroup {g}");
    }
    assert_eq!(o[8], a.iter().map(|x| x & 0xff).sum::<u32>());
}

#[test]
fn float_math_and_push_constants() {
    let src = r#"#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform P { float scale; uint count; } pc;
layout(std430, set = 0, binding = 0) buffer A { float a[]; };
layout(std430, set = 0, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    float x = a[i];
    o[i * 4 + 0] = x * pc.scale + 1.5;
    o[i * 4 + 1] = floor(x) - ceil(x * 0.5) + trunc(-x);
    o[i * 4 + 2] = clamp(x, -1.0, 2.0);
    o[i * 4 + 3] = x > 0.0 ? x / 3.0 : -x;
}
"#;
    let a: Vec<f32> = (0..32).map(|k| (k as f32 - 11.5) * 0.73).collect();
    let bits: Vec<u32> = a.iter().map(|f| f.to_bits()).collect();
    let mut push = 2.5f32.to_le_bytes().to_vec();
    push.extend_from_slice(&29u32.to_le_bytes());
    let Some(r) = run(src, &[u32s(&bits), vec![0; 32 * 4 * 4]], [2, 1, 1], &push) else {
        return;
    };
    let o: Vec<f32> = as_u32(&r[1]).into_iter().map(f32::from_bits).collect();
    for i in 0..32usize {
        let x = a[i];
        if i >= 29 {
            assert_eq!(&o[i * 4..i * 4 + 4], &[0.0; 4], "thread {i} must not write");
            continue;
        }
        // SPIR-V lets the multiply and add contract, and agx4 fuses them: one rounding.
        assert_eq!(o[i * 4], x.mul_add(2.5, 1.5), "fused mul-add, thread {i}");
        assert_eq!(
            o[i * 4 + 1],
            x.floor() - (x * 0.5).ceil() + (-x).trunc(),
            "thread {i}"
        );
        assert_eq!(o[i * 4 + 2], x.clamp(-1.0, 2.0), "thread {i}");
        let d = if x > 0.0 { x / 3.0 } else { -x };
        assert!(
            (o[i * 4 + 3] - d).abs() <= d.abs() * 3e-7,
            "thread {i}: {} vs {d}",
            o[i * 4 + 3]
        );
    }
}

/// Runs a shader for its differential check only (USC against the IR interpreter).
fn differential(src: &str, bufs: &[Vec<u8>], groups: [u32; 3]) {
    let _ = run(src, bufs, groups, &[]);
}

#[test]
fn atomics_in_shared_and_device_memory() {
    let src = r#"#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint o[16]; int so[4]; uint olds[]; };
shared uint s[8];
void main() {
    uint l = gl_LocalInvocationIndex;
    uint v = a[gl_GlobalInvocationID.x];
    if (l < 8u) s[l] = (l == 1u || l == 4u) ? 0xffffffffu : 0u;
    barrier();
    atomicAdd(s[0], v & 0xffu);
    atomicAnd(s[1], v | 0x0f0f0000u);
    atomicOr(s[2], 1u << (l & 31u));
    atomicXor(s[3], v);
    atomicMin(s[4], v | 0x80000000u);
    atomicMax(s[5], v);
    uint old = atomicExchange(s[6], l);
    atomicCompSwap(s[7], 0u, l + 1u);
    barrier();
    if (l < 8u) atomicAdd(o[l], s[l]);
    atomicMin(so[0], int(v));
    atomicMax(so[1], int(v));
    olds[gl_GlobalInvocationID.x] = atomicAdd(o[15], 1u) < 1000u ? 1u : 0u;
}
"#;
    let a: Vec<u32> = (0..128u32)
        .map(|k| k.wrapping_mul(0x9e37_79b9) ^ (k << 20))
        .collect();
    let mut o = vec![0u8; (16 + 4 + 128) * 4];
    o[64..68].copy_from_slice(&i32::MAX.to_le_bytes());
    o[68..72].copy_from_slice(&i32::MIN.to_le_bytes());
    let Some(r) = run(src, &[u32s(&a), o], [2, 1, 1], &[]) else {
        return;
    };
    let out = as_u32(&r[1]);
    let mut want = [0u32; 8];
    for g in 0..2 {
        let v = &a[g * 64..g * 64 + 64];
        want[0] += v.iter().map(|x| x & 0xff).sum::<u32>();
        want[1] += v.iter().fold(u32::MAX, |m, x| m & (x | 0x0f0f_0000));
        want[2] = want[2].wrapping_add(u32::MAX);
        want[3] = want[3].wrapping_add(v.iter().fold(0, |m, x| m ^ x));
        want[4] = want[4].wrapping_add(v.iter().map(|x| x | 0x8000_0000).min().unwrap());
        want[5] = want[5].wrapping_add(*v.iter().max().unwrap());
    }
    for k in 0..6 {
        assert_eq!(out[k], want[k], "shared atomic {k}");
    }
    assert!(out[6] < 128, "exchange leaves some thread's index");
    assert!(
        (2..=128).contains(&out[7]),
        "compare-swap stores one index + 1 per group: {}",
        out[7]
    );
    assert_eq!(out[15], 128);
    assert_eq!(out[16] as i32, a.iter().map(|x| *x as i32).min().unwrap());
    assert_eq!(out[17] as i32, a.iter().map(|x| *x as i32).max().unwrap());
    assert!(out[20..148].iter().all(|x| *x == 1));
}

#[test]
fn booleans_conversions_and_local_arrays() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { int a[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    int x = a[i];
    bool p = x > 0, q = (x & 4) != 0;
    bool r = false;
    for (int k = 0; k < 5; k++) {
        bool even = (k & 1) == 0, three = k == 3;
        r = (r != (p == even)) == (q != three);
    }
    int t[8];
    for (int k = 0; k < 8; k++) t[k] = x * k + int(r);
    int idx = (x >> 4) & 7;
    float f = float(x) * 0.25;
    o[i * 5 + 0] = t[idx] + t[7 - idx];
    o[i * 5 + 1] = int(p) + 2 * int(q) + 4 * int(!r);
    o[i * 5 + 2] = int(f) + int(uint(abs(f)));
    o[i * 5 + 3] = bitfieldInsert(x, idx, 5, 3) ^ bitfieldExtract(x, idx, 4);
    o[i * 5 + 4] = (p ^^ q) ? int(bitfieldReverse(uint(x)) >> 1u) : findLSB(x);
}
"#;
    let a: Vec<u32> = (0..32u32)
        .map(|k| (k.wrapping_mul(0x2545_f491) >> 3) ^ if k % 3 == 0 { 0x8000_0000 } else { 0 })
        .collect();
    differential(src, &[u32s(&a), vec![0; 32 * 5 * 4]], [1, 1, 1]);
}

#[test]
fn arrays_indexed_dynamically_inside_functions() {
    // `inout` arrays reach the callee as pointers; a dynamic index through one puts the
    // caller's array in scratch.
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer A { int a[]; };
layout(std430, set = 0, binding = 1) buffer O { int o[]; };
void put(inout int t[6], int k, int v) { t[k] = v; }
int get(inout int t[6], int k) { return t[k]; }
void main() {
    uint i = gl_GlobalInvocationID.x;
    int t[6] = int[6](0, 0, 0, 0, 0, 0);
    for (int k = 0; k < 6; k++) {
        put(t, (k + a[i]) % 6, k * 10 + int(i));
    }
    o[i * 2] = get(t, a[i] % 6);
    o[i * 2 + 1] = get(t, 5) - get(t, 0);
}
"#;
    let a: Vec<u32> = (0..32u32).map(|k| k * 7 % 11).collect();
    let Some(r) = run(src, &[u32s(&a), vec![0; 32 * 2 * 4]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    for i in 0..32usize {
        let mut t = [0i32; 6];
        for k in 0..6 {
            t[(k + a[i] as usize) % 6] = k as i32 * 10 + i as i32;
        }
        assert_eq!(o[i * 2] as i32, t[a[i] as usize % 6], "thread {i}");
        assert_eq!(o[i * 2 + 1] as i32, t[5] - t[0], "thread {i}");
    }
}

#[test]
fn int64_arithmetic_conversions_and_layout() {
    use int64_shader as t;
    let a = t::inputs();
    let bufs = [t::u64s(&a), vec![0; 8 * 20 * t::INVOCATIONS], vec![0; 64]];
    let Some(r) = run(t::SRC, &bufs, [1, 1, 1], &t::push()) else {
        return;
    };
    t::compare(&t::as_u64(&r[1]), &t::expected(&a), "USC");
    t::check_struct(&r[2], &a);
}

#[test]
fn int64_shared_local_push_and_vectors() {
    use int64_shader as t;
    let Some(r) = run(
        t::SRC_MEMORY,
        &[vec![0; 16 * 8]],
        [1, 1, 1],
        &t::push_memory(),
    ) else {
        return;
    };
    assert_eq!(t::as_u64(&r[0]), t::expected_memory());
}

#[test]
fn int64_loop_carried_values() {
    let src = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer O { uint64_t o[]; };
void main() {
    uint i = gl_LocalInvocationID.x;
    uint64_t acc = 1ul;
    for (uint k = 0u; k < 20u + i; k++) {
        acc = acc * 0x9E3779B97F4A7C15ul + uint64_t(k);
        if ((acc & 1ul) == 0ul) acc ^= acc >> 29;
    }
    o[i] = acc;
}
"#;
    let Some(r) = run(src, &[vec![0; 32]], [1, 1, 1], &[]) else {
        return;
    };
    let want: Vec<u64> = (0..4u64)
        .map(|i| {
            let mut acc = 1u64;
            for k in 0..20 + i {
                acc = acc.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k);
                if acc & 1 == 0 {
                    acc ^= acc >> 29;
                }
            }
            acc
        })
        .collect();
    assert_eq!(int64_shader::as_u64(&r[0]), want);
}

/// OpUMulExtended / OpSMulExtended on 64-bit integers (their high halves), which GLSL cannot
/// write: glslang's 64-bit multiplications rewritten into them.
#[test]
fn mul_extended_64bit_high_halves() {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Instruction, Operand};
    use rspirv::spirv::Op;
    let src = r#"#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 16) in;
layout(std430, set = 0, binding = 0) buffer A { uint64_t a[]; };
layout(std430, set = 0, binding = 1) buffer O { uint64_t o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint64_t x = a[i], y = a[i + 16u];
    o[i * 2u] = x * y;
    o[i * 2u + 1u] = uint64_t(int64_t(x) * int64_t(y));
}
"#;
    let Some(w) = common::glslang(src) else {
        return;
    };
    let mut m = rspirv::dr::load_words(&w).expect("parse");
    let mut bound = m.header.as_ref().unwrap().bound;
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    let wide: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands.first() == Some(&Operand::LiteralBit32(64))
        })
        .filter_map(|i| i.result_id)
        .collect();
    // A struct of two of the product's type, per 64-bit type multiplied.
    let mut structs = Vec::new();
    let f = &mut m.functions[0];
    let mut muls = 0;
    for b in &mut f.blocks {
        let mut out = Vec::new();
        for inst in std::mem::take(&mut b.instructions) {
            if inst.class.opcode != Op::IMul || !wide.contains(&inst.result_type.unwrap()) {
                out.push(inst);
                continue;
            }
            let ty = inst.result_type.unwrap();
            let st = match structs.iter().find(|(t, _)| *t == ty) {
                Some((_, s)) => *s,
                None => {
                    let s = fresh();
                    structs.push((ty, s));
                    s
                }
            };
            let op = if muls == 0 {
                Op::UMulExtended
            } else {
                Op::SMulExtended
            };
            muls += 1;
            let t = fresh();
            out.push(Instruction::new(
                op,
                Some(st),
                Some(t),
                inst.operands.clone(),
            ));
            out.push(Instruction::new(
                Op::CompositeExtract,
                Some(ty),
                inst.result_id,
                vec![Operand::IdRef(t), Operand::LiteralBit32(1)],
            ));
        }
        b.instructions = out;
    }
    assert_eq!(muls, 2);
    for (ty, s) in structs {
        m.types_global_values.push(Instruction::new(
            Op::TypeStruct,
            None,
            Some(s),
            vec![Operand::IdRef(ty), Operand::IdRef(ty)],
        ));
    }
    m.header.as_mut().unwrap().bound = bound;
    let words = m.assemble();
    let a: Vec<u64> = (0..32u64)
        .map(|k| {
            let v = k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k << 40);
            if k % 3 == 0 {
                v | 1 << 63
            } else {
                v >> (k % 5)
            }
        })
        .collect();
    let bytes: Vec<u8> = a.iter().flat_map(|x| x.to_le_bytes()).collect();
    let r = common::usc::run_spirv(&words, &[bytes, vec![0; 16 * 16]], [1, 1, 1], &[]);
    let o: Vec<u64> = r[1]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for i in 0..16 {
        let (x, y) = (a[i], a[i + 16]);
        let u = ((u128::from(x) * u128::from(y)) >> 64) as u64;
        let s = ((i128::from(x as i64) * i128::from(y as i64)) >> 64) as u64;
        assert_eq!(o[i * 2], u, "umulExtended({x:#x}, {y:#x})");
        assert_eq!(o[i * 2 + 1], s, "imulExtended({x:#x}, {y:#x})");
    }
}

/// SPIR-V no GLSL compiler writes this way (CTS spirv_assembly.type.scalar.u64.switch_*,
/// spirv_assembly.instruction.*.opspecconstantop.vector_related, compute.pipeline.
/// device_group.device_index): a switch on a 64-bit selector, OpSpecConstantOp
/// CompositeInsert/CompositeExtract with index paths and VectorShuffle with an undefined
/// component, and DeviceIndex (always 0: agx4's device groups have one device).
#[test]
fn switch_on_64_bits_spec_constant_composites_and_device_index() {
    let src = r#"
OpCapability Shader
OpCapability Int64
OpCapability DeviceGroup
OpExtension "SPV_KHR_device_group"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid %dev
OpExecutionMode %main LocalSize 8 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %dev BuiltIn DeviceIndex
OpDecorate %rta ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf BufferBlock
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
OpDecorate %sc SpecId 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%u64 = OpTypeInt 64 0
%v3 = OpTypeVector %u32 3
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c32 = OpConstant %u32 32
%c1000 = OpConstant %u32 1000
%c100 = OpConstant %u32 100
%arr3 = OpTypeArray %u32 %c3
%st = OpTypeStruct %arr3 %arr3
%arr3_0 = OpConstantComposite %arr3 %c0 %c0 %c0
%st_0 = OpConstantComposite %st %arr3_0 %arr3_0
%sc = OpSpecConstant %u32 3
%st_1 = OpSpecConstantOp %st CompositeInsert %sc %st_0 1 2
%e = OpSpecConstantOp %u32 CompositeExtract %st_1 1 2
%vec = OpSpecConstantComposite %v3 %sc %c1 %c2
%sh = OpSpecConstantOp %v3 VectorShuffle %vec %vec 2 0xFFFFFFFF 4
%s0 = OpSpecConstantOp %u32 CompositeExtract %sh 0
%s2 = OpSpecConstantOp %u32 CompositeExtract %sh 2
%k = OpSpecConstantOp %u32 IAdd %e %s0
%rta = OpTypeRuntimeArray %u32
%buf = OpTypeStruct %rta
%pbuf = OpTypePointer Uniform %buf
%pu32 = OpTypePointer Uniform %u32
%pin3 = OpTypePointer Input %v3
%pin1 = OpTypePointer Input %u32
%pfn = OpTypePointer Function %u32
%out = OpVariable %pbuf Uniform
%gid = OpVariable %pin3 Input
%dev = OpVariable %pin1 Input
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpVariable %pfn Function
%g = OpLoad %v3 %gid
%i = OpCompositeExtract %u32 %g 0
%i64 = OpUConvert %u64 %i
%hi = OpShiftLeftLogical %u64 %i64 %c32
%sel = OpBitwiseOr %u64 %hi %i64
OpSelectionMerge %merge None
OpSwitch %sel %default 0x100000001 %one 0x300000003 %three 5 %five
%one = OpLabel
OpStore %r %c1
OpBranch %merge
%three = OpLabel
OpStore %r %c3
OpBranch %merge
%five = OpLabel
OpStore %r %c100
OpBranch %merge
%default = OpLabel
OpStore %r %c2
OpBranch %merge
%merge = OpLabel
%v = OpLoad %u32 %r
%d = OpLoad %u32 %dev
%kk = OpIMul %u32 %k %c1000
%ss = OpIMul %u32 %s2 %c100
%t0 = OpIAdd %u32 %v %kk
%t1 = OpIAdd %u32 %t0 %ss
%t2 = OpIAdd %u32 %t1 %d
%p = OpAccessChain %pu32 %out %c0 %i
OpStore %p %t2
OpReturn
OpFunctionEnd
"#;
    let spirv = common::spirv_as(src);
    let r = common::usc::run_spirv(&spirv, &[vec![0; 8 * 4]], [1, 1, 1], &[]);
    // k = e + s0 = 3 + 2, s2 = vec[1] = 1: 5100 plus the case's value; 0x5_0000_0005 is not
    // the 64-bit case 5.
    let want: Vec<u32> = (0..8u32)
        .map(|i| {
            5100 + match i {
                1 => 1,
                3 => 3,
                _ => 2,
            }
        })
        .collect();
    assert_eq!(as_u32(&r[0]), want);
}

/// `a * b + c` is one fused multiply-add (one rounding) unless the GLSL says `precise`
/// (SPIR-V NoContraction), on the simulated USC.
#[test]
fn contraction_fuses_unless_precise() {
    let src = |qualifier: &str| {
        format!(
            r#"#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer A {{ float a[]; }};
layout(std430, set = 0, binding = 1) buffer O {{ float o[]; }};
void main() {{
    {qualifier} float r = a[0] * a[1] + a[2];
    o[0] = r;
}}
"#
        )
    };
    // (1 + 2^-12) squared is 1 + 2^-11 + 2^-24: one rounding keeps the 2^-24, two lose it.
    let x = f32::from_bits(0x3f80_0800);
    let input = u32s(&[x.to_bits(), x.to_bits(), (-1.0f32).to_bits()]);
    let fused = x.mul_add(x, -1.0).to_bits();
    let unfused = (x * x + -1.0f32).to_bits();
    assert_ne!(fused, unfused);
    for (qualifier, want) in [("", fused), ("precise", unfused)] {
        let Some(r) = run(
            &src(qualifier),
            &[input.clone(), vec![0; 4]],
            [1, 1, 1],
            &[],
        ) else {
            return;
        };
        assert_eq!(as_u32(&r[1])[0], want, "{qualifier:?}");
    }
}

/// A negation or absolute value read only by float adds, multiplies and multiply-adds is a
/// source modifier of each, not an instruction: `-|x| * y + |z|` is one `fmadd`, with the
/// right values (signed zeros included) on the simulated USC.
#[test]
fn negation_and_absolute_value_are_source_modifiers() {
    let src = r#"#version 450
layout(local_size_x = 8) in;
layout(std430, set = 0, binding = 0) buffer A { float a[]; };
layout(std430, set = 0, binding = 1) buffer O { float o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    float x = a[3u * i], y = a[3u * i + 1u], z = a[3u * i + 2u];
    o[2u * i] = -abs(x) * y + abs(z);
    o[2u * i + 1u] = y - (-x);
}
"#;
    let vals = [1.5f32, -2.0, -0.0, 0.0, 3.25, -7.0, 0.5, -0.25];
    let mut a = Vec::new();
    for k in 0..8 {
        a.extend([vals[k], vals[(k + 3) % 8], vals[(k + 5) % 8]].map(f32::to_bits));
    }
    let Some(r) = run(src, &[u32s(&a), vec![0; 64]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    for k in 0..8 {
        let [x, y, z] = [0, 1, 2].map(|j| f32::from_bits(a[3 * k + j]));
        assert_eq!(o[2 * k], (-x.abs()).mul_add(y, z.abs()).to_bits(), "{k}");
        assert_eq!(o[2 * k + 1], (y + x).to_bits(), "{k}");
    }
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    let (_, instrs) = common::usc::compile(&spirv, 2, compiler::BufferRobustness::Unchecked);
    let float_ops = instrs
        .iter()
        .filter(|i| matches!(i, hw::isa::Instr::FArith(_)))
        .count();
    assert_eq!(float_ops, 2, "{instrs:#?}");
}

/// Without robustness, `o[i] = a[i] + 1` indexes both buffers with `i` itself (the byte
/// offset's shift and the shift back are gone) through descriptor words the launch preloads
/// into uniforms; with robustness, each access also checks its range.
#[test]
fn unchecked_accesses_index_directly_through_preloaded_descriptors() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    o[i] = a[i] + 1u;
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    let compile = |robustness| common::usc::compile(&spirv, 2, robustness);
    let memory = |instrs: &[hw::isa::Instr]| {
        instrs
            .iter()
            .filter(|i| matches!(i, hw::isa::Instr::DeviceMem(_)))
            .count()
    };
    let (bin, instrs) = compile(compiler::BufferRobustness::Unchecked);
    assert_eq!(memory(&instrs), 2, "one load and one store: {instrs:?}");
    assert!(
        !instrs.iter().any(|i| matches!(i, hw::isa::Instr::Shift(_))),
        "no offset shifts: {instrs:?}"
    );
    assert_eq!(
        bin.preloads.len(),
        2,
        "both buffers' addresses are preloaded"
    );
    // The range checks cost a comparison and a branch per access at least.
    let (checked, _) = compile(compiler::BufferRobustness::Checked);
    assert!(checked.stats.instructions >= bin.stats.instructions + 4);
}

/// Constants too wide for an immediate are uniforms the launch preloads from the binary's
/// constant data: no `mov_imm` in the code, each distinct constant stored once, and the
/// results right on the simulated USC (whose uniforms come from `launch_uniforms`).
#[test]
fn wide_constants_are_preloaded_uniforms() {
    let src = r#"#version 450
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    uint x = a[i];
    o[i] = (x * 12345u + 0x7654321u) ^ (x > 1000u ? 0x7654321u : 99999u);
}
"#;
    let Some(spirv) = common::glslang(src) else {
        return;
    };
    // Unchecked: a checked load's default value would be a move of its own.
    let (bin, instrs) = common::usc::compile(&spirv, 2, compiler::BufferRobustness::Unchecked);
    for i in instrs {
        // (The exec nesting counter, r0l, is set with a move, as always.)
        assert!(
            !matches!(i, hw::isa::Instr::MovImm(m) if m.dst.reg.half != 0),
            "a constant is moved into a register: {i:?}"
        );
    }
    let words: Vec<u32> = as_u32(&bin.constants);
    for c in [12345u32, 0x7654321, 99999] {
        assert_eq!(
            words.iter().filter(|&&w| w == c).count(),
            1,
            "{c:#x} in {words:x?}"
        );
    }
    let a: Vec<u32> = (0..32).map(|k| k * 77 + 900).collect();
    let r = run(src, &[u32s(&a), vec![0; 128]], [1, 1, 1], &[]).expect("glslang");
    let want: Vec<u32> = a
        .iter()
        .map(|&x| {
            (x.wrapping_mul(12345).wrapping_add(0x7654321))
                ^ if x > 1000 { 0x7654321 } else { 99999 }
        })
        .collect();
    assert_eq!(as_u32(&r[1]), want);
}
