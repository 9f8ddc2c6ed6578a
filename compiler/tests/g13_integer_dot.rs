//! Integer dot products (OpSDot/OpUDot/OpSUDot and the AccSat forms, on 4 x 32-bit vectors
//! and on 4 x 8-bit packed vectors) through the whole compiler on the simulated USC and the
//! IR interpreter, against the exact results computed here with 128-bit arithmetic.

mod common;

use common::usc::{as_u32, run_spirv, u32s};

/// Per invocation: a (4 words), b (4 words), acc (1 word) in; 12 words out: the six
/// instructions on the vectors, then on a[0] and b[0] as packed 4x8-bit vectors.
const SRC: &str = r#"
OpCapability Shader
OpCapability DotProduct
OpCapability DotProductInputAll
OpCapability DotProductInput4x8BitPacked
OpExtension "SPV_KHR_integer_dot_product"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 16 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %rta ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf BufferBlock
OpDecorate %in DescriptorSet 0
OpDecorate %in Binding 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%i32 = OpTypeInt 32 1
%v4u = OpTypeVector %u32 4
%v4i = OpTypeVector %i32 4
%v3 = OpTypeVector %u32 3
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c8 = OpConstant %u32 8
%c9 = OpConstant %u32 9
%c12 = OpConstant %u32 12
%rta = OpTypeRuntimeArray %u32
%buf = OpTypeStruct %rta
%pbuf = OpTypePointer Uniform %buf
%pu = OpTypePointer Uniform %u32
%pin = OpTypePointer Input %v3
%in = OpVariable %pbuf Uniform
%out = OpVariable %pbuf Uniform
%gid = OpVariable %pin Input
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3 %gid
%i = OpCompositeExtract %u32 %g 0
%ib = OpIMul %u32 %i %c9
%ob = OpIMul %u32 %i %c12
%ia1 = OpIAdd %u32 %ib %c1
%ia2 = OpIAdd %u32 %ib %c2
%ia3 = OpIAdd %u32 %ib %c3
%ib0 = OpIAdd %u32 %ib %c3
%ib0b = OpIAdd %u32 %ib0 %c1
%ib1 = OpIAdd %u32 %ib0b %c1
%ib2 = OpIAdd %u32 %ib1 %c1
%ib3 = OpIAdd %u32 %ib2 %c1
%iacc = OpIAdd %u32 %ib %c8
%pa0 = OpAccessChain %pu %in %c0 %ib
%pa1 = OpAccessChain %pu %in %c0 %ia1
%pa2 = OpAccessChain %pu %in %c0 %ia2
%pa3 = OpAccessChain %pu %in %c0 %ia3
%pb0 = OpAccessChain %pu %in %c0 %ib0b
%pb1 = OpAccessChain %pu %in %c0 %ib1
%pb2 = OpAccessChain %pu %in %c0 %ib2
%pb3 = OpAccessChain %pu %in %c0 %ib3
%pacc = OpAccessChain %pu %in %c0 %iacc
%a0 = OpLoad %u32 %pa0
%a1 = OpLoad %u32 %pa1
%a2 = OpLoad %u32 %pa2
%a3 = OpLoad %u32 %pa3
%b0 = OpLoad %u32 %pb0
%b1 = OpLoad %u32 %pb1
%b2 = OpLoad %u32 %pb2
%b3 = OpLoad %u32 %pb3
%accu = OpLoad %u32 %pacc
%acci = OpBitcast %i32 %accu
%au = OpCompositeConstruct %v4u %a0 %a1 %a2 %a3
%bu = OpCompositeConstruct %v4u %b0 %b1 %b2 %b3
%ai = OpBitcast %v4i %au
%bi = OpBitcast %v4i %bu
%r0 = OpSDotKHR %i32 %ai %bi
%r1 = OpUDotKHR %u32 %au %bu
%r2 = OpSUDotKHR %i32 %ai %bu
%r3 = OpSDotAccSatKHR %i32 %ai %bi %acci
%r4 = OpUDotAccSatKHR %u32 %au %bu %accu
%r5 = OpSUDotAccSatKHR %i32 %ai %bu %acci
%r6 = OpSDotKHR %i32 %a0 %b0 PackedVectorFormat4x8Bit
%r7 = OpUDotKHR %u32 %a0 %b0 PackedVectorFormat4x8Bit
%r8 = OpSUDotKHR %i32 %a0 %b0 PackedVectorFormat4x8Bit
%r9 = OpSDotAccSatKHR %i32 %a0 %b0 %acci PackedVectorFormat4x8Bit
%r10 = OpUDotAccSatKHR %u32 %a0 %b0 %accu PackedVectorFormat4x8Bit
%r11 = OpSUDotAccSatKHR %i32 %a0 %b0 %acci PackedVectorFormat4x8Bit
%s0 = OpBitcast %u32 %r0
%s2 = OpBitcast %u32 %r2
%s3 = OpBitcast %u32 %r3
%s5 = OpBitcast %u32 %r5
%s6 = OpBitcast %u32 %r6
%s8 = OpBitcast %u32 %r8
%s9 = OpBitcast %u32 %r9
%s11 = OpBitcast %u32 %r11
OUTS
OpReturn
OpFunctionEnd
"#;

fn exact(a: &[u32], b: &[u32], sa: bool, sb: bool, packed: bool) -> i128 {
    let comps = |v: &[u32], signed: bool| -> Vec<i128> {
        if packed {
            (0..4)
                .map(|k| {
                    let byte = (v[0] >> (8 * k)) & 0xff;
                    if signed {
                        i128::from(byte as u8 as i8)
                    } else {
                        i128::from(byte)
                    }
                })
                .collect()
        } else {
            v.iter()
                .map(|&w| {
                    if signed {
                        i128::from(w as i32)
                    } else {
                        i128::from(w)
                    }
                })
                .collect()
        }
    };
    comps(a, sa)
        .iter()
        .zip(comps(b, sb))
        .map(|(x, y)| x * y)
        .sum()
}

fn expected(a: &[u32], b: &[u32], acc: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for packed in [false, true] {
        let s = exact(a, b, true, true, packed);
        let u = exact(a, b, false, false, packed);
        let su = exact(a, b, true, false, packed);
        let ssat = |x: i128| (x + i128::from(acc as i32)).clamp(i32::MIN.into(), i32::MAX.into());
        let usat = |x: i128| (x + i128::from(acc)).clamp(0, u32::MAX.into());
        out.extend([
            s as u32,
            u as u32,
            su as u32,
            ssat(s) as i32 as u32,
            usat(u) as u32,
            ssat(su) as i32 as u32,
        ]);
    }
    out
}

#[test]
fn integer_dot_products_wrap_and_saturate_exactly() {
    let outs: String = (0..12)
        .map(|k| {
            let v = match k {
                1 | 4 | 7 | 10 => format!("%r{k}"),
                _ => format!("%s{k}"),
            };
            format!("%o{k} = OpIAdd %u32 %ob %c{k}x\n%po{k} = OpAccessChain %pu %out %c0 %o{k}\nOpStore %po{k} {v}\n")
        })
        .collect();
    let consts: String = (0..12)
        .map(|k| format!("%c{k}x = OpConstant %u32 {k}\n"))
        .collect();
    let src = SRC.replace("OUTS\n", &outs).replace(
        "%rta = OpTypeRuntimeArray",
        &format!("{consts}%rta = OpTypeRuntimeArray"),
    );
    let spirv = common::spirv_as(&src);
    // Extremes (the full-range products whose sum leaves 64 bits), small values, and mixed
    // signs whose exact sum cancels back into range.
    let cases: Vec<[u32; 9]> = vec![
        [0x8000_0000; 9],
        [0xffff_ffff; 9],
        [
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
            0x7fff_ffff,
        ],
        [
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            0x8000_0000,
            5,
        ],
        [
            0x8000_0000,
            0x8000_0000,
            1,
            2,
            0x8000_0000,
            0x7fff_ffff,
            3,
            4,
            0x8000_0000,
        ],
        [
            0x8000_0000,
            0x8000_0000,
            0,
            0,
            0x8000_0000,
            0x8000_0000,
            0,
            0,
            0xffff_ffff,
        ],
        [1, 2, 3, 4, 5, 6, 7, 8, 9],
        [0x80ff_7f01, 0, 0, 0, 0x807f_ff80, 0, 0, 0, 0x7fff_fff0],
        [
            0xffff_ffff,
            2,
            0,
            0,
            0xffff_ffff,
            0xffff_ffff,
            0,
            0,
            0xffff_fff0,
        ],
        [
            0x1234_5678,
            0x9abc_def0,
            0x0fed_cba9,
            0x8765_4321,
            0xdead_beef,
            0x0bad_f00d,
            0xcafe_babe,
            0x1357_9bdf,
            0x2468_ace0,
        ],
        [0x7f7f_7f7f, 0, 0, 0, 0x7f7f_7f7f, 0, 0, 0, 0x7fff_0000],
        [0x8080_8080, 0, 0, 0, 0xffff_ffff, 0, 0, 0, 0x8000_0100],
        [
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0,
        ],
        [
            3,
            0x8000_0000,
            0,
            0,
            0xffff_fffd,
            0xffff_ffff,
            0,
            0,
            0x8000_0000,
        ],
        [0, 0, 0, 0, 0, 0, 0, 0, 0x8000_0000],
        [
            0x4000_0000,
            0x4000_0000,
            0xc000_0000,
            0xc000_0000,
            0x4000_0000,
            0xc000_0000,
            0x4000_0000,
            0xc000_0000,
            7,
        ],
    ];
    let input: Vec<u32> = cases.iter().flatten().copied().collect();
    let r = run_spirv(
        &spirv,
        &[u32s(&input), vec![0; 16 * 12 * 4]],
        [1, 1, 1],
        &[],
    );
    let got = as_u32(&r[1]);
    for (k, c) in cases.iter().enumerate() {
        let want = expected(&c[0..4], &c[4..8], c[8]);
        assert_eq!(
            &got[k * 12..k * 12 + 12],
            want.as_slice(),
            "case {k}: {c:x?}"
        );
    }
}
