//! Workgroup variables with a null initializer (VK_KHR_zero_initialize_workgroup_memory):
//! every workgroup sees them zeroed before its first access, although the simulated
//! threadgroup memory, like the hardware's, keeps what the previous workgroup left there.

mod common;

use common::usc::{as_u32, run_spirv};

/// 8 invocations per workgroup, 4 workgroups. Each invocation reads its words of a
/// 100-word array and of a scalar (both null-initialized) into the output, then fills the
/// array with non-zero values for the next workgroup to find if nothing zeroes it.
const SRC: &str = r#"
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %lid %wid
OpExecutionMode %main LocalSize 8 1 1
OpDecorate %lid BuiltIn LocalInvocationIndex
OpDecorate %wid BuiltIn WorkgroupId
OpDecorate %rta ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf BufferBlock
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%bool = OpTypeBool
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%v3 = OpTypeVector %u32 3
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c8 = OpConstant %u32 8
%c100 = OpConstant %u32 100
%c101 = OpConstant %u32 101
%c264 = OpConstant %u32 264
%arr = OpTypeArray %u32 %c100
%parr = OpTypePointer Workgroup %arr
%pw = OpTypePointer Workgroup %u32
%null_arr = OpConstantNull %arr
%null_u = OpConstantNull %u32
%sa = OpVariable %parr Workgroup %null_arr
%ss = OpVariable %pw Workgroup %null_u
%rta = OpTypeRuntimeArray %u32
%buf = OpTypeStruct %rta
%pbuf = OpTypePointer Uniform %buf
%pu = OpTypePointer Uniform %u32
%pin = OpTypePointer Input %u32
%pin3 = OpTypePointer Input %v3
%out = OpVariable %pbuf Uniform
%lid = OpVariable %pin Input
%wid = OpVariable %pin3 Input
%main = OpFunction %void None %fn
%entry = OpLabel
%l = OpLoad %u32 %lid
%w3 = OpLoad %v3 %wid
%w = OpCompositeExtract %u32 %w3 0
%base = OpIMul %u32 %w %c101
OpBranch %head
%head = OpLabel
%k = OpPhi %u32 %l %entry %kn %body
%more = OpULessThan %bool %k %c100
OpLoopMerge %done %body None
OpBranchConditional %more %body %done
%body = OpLabel
%pk = OpAccessChain %pw %sa %k
%v = OpLoad %u32 %pk
%o = OpIAdd %u32 %base %k
%po = OpAccessChain %pu %out %c0 %o
OpStore %po %v
%kn = OpIAdd %u32 %k %c8
OpBranch %head
%done = OpLabel
%first = OpIEqual %bool %l %c0
OpSelectionMerge %after None
OpBranchConditional %first %scalar %after
%scalar = OpLabel
%sv = OpLoad %u32 %ss
%os = OpIAdd %u32 %base %c100
%pos = OpAccessChain %pu %out %c0 %os
OpStore %pos %sv
OpBranch %after
%after = OpLabel
OpControlBarrier %c2 %c2 %c264
OpBranch %h2
%h2 = OpLabel
%j = OpPhi %u32 %l %after %jn %b2
%more2 = OpULessThan %bool %j %c100
OpLoopMerge %d2 %b2 None
OpBranchConditional %more2 %b2 %d2
%b2 = OpLabel
%pj = OpAccessChain %pw %sa %j
%jw = OpIAdd %u32 %j %c1
OpStore %pj %jw
%jn = OpIAdd %u32 %j %c8
OpBranch %h2
%d2 = OpLabel
OpStore %ss %c8
OpReturn
OpFunctionEnd
"#;

#[test]
fn null_initialized_workgroup_variables_read_zero_in_every_workgroup() {
    let spirv = common::spirv_as(SRC);
    let r = run_spirv(&spirv, &[vec![0xff; 4 * 101 * 4]], [4, 1, 1], &[]);
    let got = as_u32(&r[0]);
    assert_eq!(got, vec![0; 4 * 101]);
}
