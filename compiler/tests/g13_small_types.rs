//! 8- and 16-bit types through the whole compiler, on the simulated USC and the IR
//! interpreter (which must agree bit for bit), against values computed here: halfword and
//! byte buffer accesses, conversions between widths, half-precision arithmetic on the ALU's
//! 16-bit forms, 16-bit integer arithmetic and 8-bit arithmetic that wraps.

mod common;

use common::glslang;
use common::usc::{as_u32, run};

const EXT: &str = "#extension GL_EXT_shader_explicit_arithmetic_types : require\n\
#extension GL_EXT_shader_16bit_storage : require\n\
#extension GL_EXT_shader_8bit_storage : require\n";

fn src(body: &str) -> String {
    format!("#version 450\n{EXT}{body}")
}

fn halves(xs: &[u16]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn as_u16(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// Round to the nearest half, ties to even (for expectations).
fn f16(x: f64) -> u16 {
    compiler::ir::half::from_f64(x)
}

fn f16v(h: u16) -> f64 {
    f64::from(compiler::ir::half::to_f32(h))
}

#[test]
fn halfword_loads_and_stores_convert() {
    let s = src(r#"
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float16_t h[8]; int16_t s[8]; };
layout(std430, binding = 1) buffer O { float f[8]; int i[8]; uint u[8]; };
layout(std430, binding = 2) buffer B { float16_t back[8]; uint16_t narrow[8]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    f[k] = float(h[k]);
    i[k] = int(s[k]);
    u[k] = uint(uint16_t(s[k]));
    back[k] = float16_t(f[k] * 3.0);
    narrow[k] = uint16_t(i[k] * 1000);
}
"#);
    let hs: Vec<u16> = [0.5, -2.0, 65504.0, 6.1e-5, -0.0, 3.25, 1000.0, 0.1]
        .iter()
        .map(|&x| f16(x))
        .collect();
    let ss: Vec<u16> = [1i16, -1, 32767, -32768, 0, 12, -300, 7]
        .iter()
        .map(|&x| x as u16)
        .collect();
    let mut a = halves(&hs);
    a.extend(halves(&ss));
    let Some(r) = run(&s, &[a, vec![0; 8 * 12], vec![0; 8 * 4]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u32(&r[1]);
    let b = as_u16(&r[2]);
    for k in 0..8 {
        let x = f16v(hs[k]);
        assert_eq!(f64::from(f32::from_bits(o[k])), x, "f[{k}]");
        assert_eq!(o[8 + k] as i32, i32::from(ss[k] as i16), "i[{k}]");
        assert_eq!(o[16 + k], u32::from(ss[k]), "u[{k}]");
        assert_eq!(b[k], f16(f64::from(x as f32 * 3.0)), "back[{k}]");
        assert_eq!(
            b[8 + k],
            (i32::from(ss[k] as i16) * 1000) as u16,
            "narrow[{k}]"
        );
    }
}

#[test]
fn half_arithmetic_rounds_once_and_keeps_denormals() {
    let s = src(r#"
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float16_t a[8]; float16_t b[8]; };
layout(std430, binding = 1) buffer O { float16_t o[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    float16_t x = a[k], y = b[k];
    o[k * 4] = x + y;
    o[k * 4 + 1] = fma(x, y, x);
    o[k * 4 + 2] = x * y;
    o[k * 4 + 3] = x < y ? min(x, y) : floor(x);
}
"#);
    let xs = [1.0, 1.0, 6.0e-5, 2.0e-7, -3.5, 100.0, 0.333, 2048.0];
    let ys = [
        2f64.powi(-11),
        3.0 * 2f64.powi(-11),
        0.25,
        -1.0e-7,
        7.0,
        700.0,
        3.0,
        1.0,
    ];
    let (xh, yh): (Vec<u16>, Vec<u16>) = (
        xs.iter().map(|&x| f16(x)).collect(),
        ys.iter().map(|&y| f16(y)).collect(),
    );
    let mut a = halves(&xh);
    a.extend(halves(&yh));
    let Some(r) = run(&s, &[a, vec![0; 8 * 8]], [1, 1, 1], &[]) else {
        return;
    };
    let o = as_u16(&r[1]);
    for k in 0..8 {
        let (x, y) = (f16v(xh[k]), f16v(yh[k]));
        assert_eq!(o[k * 4], f16(x + y), "{x} + {y}");
        assert_eq!(o[k * 4 + 1], f16(x.mul_add(y, x)), "fma({x}, {y}, {x})");
        assert_eq!(o[k * 4 + 2], f16(x * y), "{x} * {y}");
        let want = if x < y { x.min(y) } else { x.floor() };
        assert_eq!(o[k * 4 + 3], f16(want), "select {x} {y}");
    }
    // 1 + 2^-11 ties to even (1.0); 2e-7 * -1e-7 underflows to -0; denormal sums stay.
    assert_eq!(o[0], 0x3c00);
    assert_eq!(o[4], 0x3c02);
    assert_eq!(o[3 * 4 + 2], 0x8000);
    assert_eq!(o[3 * 4], f16(f16v(xh[3]) + f16v(yh[3])));
    assert_ne!(o[3 * 4] & 0x7fff, 0, "a denormal half sum is kept");
}

#[test]
fn sixteen_bit_alu_forms_are_used() {
    let s = src(r#"
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { float16_t a[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    a[k] = a[k] * a[k + 8u] + a[k];
}
"#);
    let Some(spirv) = glslang(&s) else { return };
    let layout = common::usc::layout(1);
    let (_, instrs) = common::usc::compile(&spirv, 1, layout.buffer_robustness);
    let mut half_ops = 0;
    for i in instrs {
        if let hw::isa::Instr::FArith(f) = i {
            assert_eq!(
                f.dst.reg.size,
                hw::isa::Size::S16,
                "{f:?} computes in 32 bits"
            );
            half_ops += 1;
        }
    }
    assert!(half_ops >= 1, "no 16-bit float instruction");
}

#[test]
fn int16_and_int8_arithmetic_wrap() {
    let s = src(r#"
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer A { uint8_t a[8]; int8_t b[8]; int16_t c[8]; };
layout(std430, binding = 1) buffer O { uint8_t s8[8]; int16_t s16[8]; int r[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    s8[k] = a[k] * uint8_t(3) + uint8_t(b[k]);
    s16[k] = c[k] * int16_t(300) - int16_t(b[k]);
    r[k * 3] = int(b[k] < int8_t(0));
    r[k * 3 + 1] = int(c[k] / int16_t(-7));
    r[k * 3 + 2] = int(int8_t(a[k]) >> 1);
}
"#);
    let a8: [u8; 8] = [0, 1, 85, 86, 200, 255, 128, 127];
    let b8: [i8; 8] = [0, -1, 127, -128, 5, -6, 100, -100];
    let c16: [i16; 8] = [0, 1, -1, 109, 110, -32768, 32767, 12345];
    let mut a: Vec<u8> = a8.to_vec();
    a.extend(b8.iter().map(|&x| x as u8));
    a.extend(halves(&c16.map(|x| x as u16)));
    let Some(r) = run(&s, &[a, vec![0; 8 + 16 + 8 * 12]], [1, 1, 1], &[]) else {
        return;
    };
    let o = &r[1];
    let s16 = as_u16(&o[8..24]);
    let rr = as_u32(&o[24..]);
    for k in 0..8 {
        let want8 = a8[k].wrapping_mul(3).wrapping_add(b8[k] as u8);
        assert_eq!(o[k], want8, "s8[{k}]");
        let want16 = c16[k].wrapping_mul(300).wrapping_sub(i16::from(b8[k]));
        assert_eq!(s16[k] as i16, want16, "s16[{k}]");
        assert_eq!(rr[k * 3], u32::from(b8[k] < 0), "sign of b[{k}]");
        assert_eq!(
            rr[k * 3 + 1] as i32,
            i32::from(c16[k].wrapping_div(-7)),
            "c[{k}] / -7"
        );
        assert_eq!(
            rr[k * 3 + 2] as i32,
            i32::from((a8[k] as i8) >> 1),
            "a[{k}] >> 1"
        );
    }
}

/// `OpUMulExtended` / `OpSMulExtended` on 16- and 8-bit operands: the high half is bits w..2w
/// of the product (GLSL offers no narrow form, so the module is assembled). Invocation k
/// multiplies the two components of element k of input member 0 (16-bit) and 1 (8-bit),
/// and stores (low, high) to output members 0 and 1 (16-bit unsigned, signed), 2 and 3
/// (8-bit unsigned, signed).
const MUL_EXTENDED_HEAD: &str = r#"
OpCapability Shader
OpCapability Int16
OpCapability Int8
OpCapability StorageBuffer16BitAccess
OpCapability StorageBuffer8BitAccess
OpExtension "SPV_KHR_16bit_storage"
OpExtension "SPV_KHR_8bit_storage"
OpExtension "SPV_KHR_storage_buffer_storage_class"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 8 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %a16 ArrayStride 4
OpDecorate %a8 ArrayStride 2
OpDecorate %In Block
OpMemberDecorate %In 0 Offset 0
OpMemberDecorate %In 1 Offset 32
OpDecorate %Out Block
OpMemberDecorate %Out 0 Offset 0
OpMemberDecorate %Out 1 Offset 32
OpMemberDecorate %Out 2 Offset 64
OpMemberDecorate %Out 3 Offset 80
OpDecorate %in DescriptorSet 0
OpDecorate %in Binding 0
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%u16 = OpTypeInt 16 0
%u8 = OpTypeInt 8 0
%v3u32 = OpTypeVector %u32 3
%v2u16 = OpTypeVector %u16 2
%v2u8 = OpTypeVector %u8 2
%c0 = OpConstant %u32 0
%c1 = OpConstant %u32 1
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%c8 = OpConstant %u32 8
%a16 = OpTypeArray %v2u16 %c8
%a8 = OpTypeArray %v2u8 %c8
%In = OpTypeStruct %a16 %a8
%Out = OpTypeStruct %a16 %a16 %a8 %a8
%pIn = OpTypePointer StorageBuffer %In
%pOut = OpTypePointer StorageBuffer %Out
%p16 = OpTypePointer StorageBuffer %v2u16
%p8 = OpTypePointer StorageBuffer %v2u8
%pgid = OpTypePointer Input %v3u32
%r16 = OpTypeStruct %u16 %u16
%r8 = OpTypeStruct %u8 %u8
%in = OpVariable %pIn StorageBuffer
%out = OpVariable %pOut StorageBuffer
%gid = OpVariable %pgid Input
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3u32 %gid
%k = OpCompositeExtract %u32 %g 0
"#;

/// [`MUL_EXTENDED_HEAD`] with its body: per width, a load and both products.
fn mul_extended_module() -> String {
    let mut src = MUL_EXTENDED_HEAD.to_string();
    for (w, input, outputs) in [(16, "c0", ["c0", "c1"]), (8, "c1", ["c2", "c3"])] {
        src += &format!(
            "%in{w} = OpAccessChain %p{w} %in %{input} %k\n\
             %x{w} = OpLoad %v2u{w} %in{w}\n\
             %a{w} = OpCompositeExtract %u{w} %x{w} 0\n\
             %b{w} = OpCompositeExtract %u{w} %x{w} 1\n"
        );
        for (op, out) in ["OpUMulExtended", "OpSMulExtended"]
            .into_iter()
            .zip(outputs)
        {
            let r = format!("{op}{w}");
            src += &format!(
                "%{r} = {op} %r{w} %a{w} %b{w}\n\
                 %{r}lo = OpCompositeExtract %u{w} %{r} 0\n\
                 %{r}hi = OpCompositeExtract %u{w} %{r} 1\n\
                 %{r}v = OpCompositeConstruct %v2u{w} %{r}lo %{r}hi\n\
                 %{r}p = OpAccessChain %p{w} %out %{out} %k\n\
                 OpStore %{r}p %{r}v\n"
            );
        }
    }
    src + "OpReturn\nOpFunctionEnd\n"
}

#[test]
fn narrow_mul_extended_gives_the_high_half() {
    let x16: [[u16; 2]; 8] = [
        [0, 0],
        [1, 1],
        [0xffff, 0xffff],
        [0x8000, 2],
        [0x1234, 0x5678],
        [0xfedc, 0x0123],
        [0x8000, 0x8000],
        [300, 0xff38],
    ];
    let x8: [[u8; 2]; 8] = [
        [0, 0],
        [1, 0xff],
        [0xff, 0xff],
        [0x80, 2],
        [0x12, 0x34],
        [0xfe, 0x7f],
        [0x80, 0x80],
        [13, 200],
    ];
    let mut input = Vec::new();
    for p in x16 {
        input.extend(halves(&p));
    }
    for p in x8 {
        input.extend(p);
    }
    let spirv = common::spirv_as(&mul_extended_module());
    let r = common::usc::run_spirv(&spirv, &[input, vec![0; 96]], [1, 1, 1], &[]);
    let o = &r[1];
    let u16s = as_u16(&o[..32]);
    let s16s = as_u16(&o[32..64]);
    for (k, [a, b]) in x16.into_iter().enumerate() {
        let u = u32::from(a) * u32::from(b);
        assert_eq!(
            [u16s[2 * k], u16s[2 * k + 1]],
            [u as u16, (u >> 16) as u16],
            "umul {a:#x} {b:#x}"
        );
        let s = i32::from(a as i16) * i32::from(b as i16);
        assert_eq!(
            [s16s[2 * k], s16s[2 * k + 1]],
            [s as u16, (s >> 16) as u16],
            "smul {a:#x} {b:#x}"
        );
    }
    for (k, [a, b]) in x8.into_iter().enumerate() {
        let u = u16::from(a) * u16::from(b);
        assert_eq!(
            [o[64 + 2 * k], o[64 + 2 * k + 1]],
            [u as u8, (u >> 8) as u8],
            "umul {a:#x} {b:#x}"
        );
        let s = i16::from(a as i8) * i16::from(b as i8);
        assert_eq!(
            [o[80 + 2 * k], o[80 + 2 * k + 1]],
            [s as u8, (s >> 8) as u8],
            "smul {a:#x} {b:#x}"
        );
    }
}
