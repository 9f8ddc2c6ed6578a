//! Text form of instructions, close to applegpu's disassembly syntax.

use super::*;
use super::{Codec, DecodeError};
use crate::g13::float_imm_value;
use std::fmt::Write;

fn reg_name(prefix: char, r: Reg) -> String {
    let n = r.half / 2;
    match r.size {
        Size::S16 => format!(
            "{prefix}{n}{}",
            if r.half.is_multiple_of(2) { 'l' } else { 'h' }
        ),
        Size::S32 => format!("{prefix}{n}"),
        Size::S64 => format!("{prefix}{n}_{prefix}{}", n + 1),
    }
}

/// `r3`, `r3l`, `r2_r3`, `u4`, `u4h`.
pub fn reg(r: Reg) -> String {
    reg_name('r', r)
}

fn hint(h: Hint) -> &'static str {
    match h {
        Hint::None => "",
        Hint::Cache => ".cache",
        Hint::Discard => ".discard",
    }
}

fn operand(op: Operand) -> String {
    match op {
        Operand::Reg(r) => reg(r),
        Operand::Uniform(r) => reg_name('u', r),
        Operand::Imm(v) => v.to_string(),
    }
}

fn isrc(s: ISrc) -> String {
    format!(
        "{}{}{}",
        operand(s.op),
        if s.sign_extend { ".sx" } else { "" },
        hint(s.hint)
    )
}

fn fsrc(s: FSrc) -> String {
    let base = match s.op {
        Operand::Imm(v) if v <= 0xff => format!("{:?}", float_imm_value(v as u8)),
        op => operand(op),
    };
    let abs = if s.abs { ".abs" } else { "" };
    let neg = if s.neg { ".neg" } else { "" };
    format!("{base}{abs}{neg}{}", hint(s.hint))
}

/// A compare source: float immediates print as their value under a float condition.
fn cmp_operand(c: Cond, op: Operand) -> String {
    match c {
        Cond::Float(_) => fsrc(FSrc::new(op)),
        Cond::Int(_) => operand(op),
    }
}

fn dst(d: Dst) -> String {
    format!("{}{}", reg(d.reg), if d.cache { ".cache" } else { "" })
}

fn icond(c: ICond, invert: bool) -> &'static str {
    match (c, invert) {
        (ICond::UEq, false) => "ueq",
        (ICond::ULt, false) => "ult",
        (ICond::UGt, false) => "ugt",
        (ICond::SEq, false) => "seq",
        (ICond::SLt, false) => "slt",
        (ICond::SGt, false) => "sgt",
        (ICond::UEq, true) => "nueq",
        (ICond::ULt, true) => "ugte",
        (ICond::UGt, true) => "ulte",
        (ICond::SEq, true) => "nseq",
        (ICond::SLt, true) => "sgte",
        (ICond::SGt, true) => "slte",
    }
}

fn fcond(c: FCond) -> &'static str {
    match c {
        FCond::Eq => "eq",
        FCond::Lt => "lt",
        FCond::Gt => "gt",
        FCond::LtN => "ltn",
        FCond::Ge => "gte",
        FCond::Le => "lte",
        FCond::GtN => "gtn",
    }
}

fn cond(c: Cond, invert: bool) -> String {
    match c {
        Cond::Int(c) => icond(c, invert).to_string(),
        Cond::Float(c) => format!("{}{}", if invert { "n" } else { "" }, fcond(c)),
    }
}

fn format_name(f: MemFormat) -> &'static str {
    match f {
        MemFormat::I8 => "i8",
        MemFormat::I16 => "i16",
        MemFormat::I32 => "i32",
        MemFormat::F16 => "f16",
        MemFormat::U8Norm => "u8norm",
        MemFormat::S8Norm => "s8norm",
        MemFormat::U16Norm => "u16norm",
        MemFormat::S16Norm => "s16norm",
        MemFormat::RGB10A2 => "rgb10a2",
        MemFormat::SRGBA8 => "srgba8",
    }
}

fn mask_name(m: u8) -> String {
    let s: String = "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| m & (1 << i) != 0)
        .map(|(_, c)| c)
        .collect();
    if s.is_empty() {
        "0".into()
    } else {
        s
    }
}

/// The registers of a memory access: popcount(mask) consecutive registers joined by `_`.
fn reg_vector(r: Reg, mask: u8) -> String {
    let n = mask.count_ones().max(1) as u16;
    (0..n)
        .map(|i| {
            reg(Reg {
                half: r.half + i * r.size.halves(),
                size: r.size,
            })
        })
        .collect::<Vec<_>>()
        .join("_")
}

fn index(i: Index) -> String {
    match i {
        Index::Reg(r) => reg(r),
        Index::Imm(v) => v.to_string(),
    }
}

fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "add",
        AtomicOp::Sub => "sub",
        AtomicOp::Xchg => "xchg",
        AtomicOp::CmpXchg => "cmpxchg",
        AtomicOp::UMin => "umin",
        AtomicOp::SMin => "imin",
        AtomicOp::UMax => "umax",
        AtomicOp::SMax => "imax",
        AtomicOp::And => "and",
        AtomicOp::Or => "or",
        AtomicOp::Xor => "xor",
    }
}

fn lsl(s: u8) -> String {
    if s == 0 {
        String::new()
    } else {
        format!(", lsl {s}")
    }
}

fn sat(s: bool) -> &'static str {
    if s {
        ".sat"
    } else {
        ""
    }
}

/// One instruction in applegpu-like syntax, e.g. `iadd r0, r1, u2`.
pub fn format(instr: &Instr) -> String {
    match *instr {
        Instr::MovImm(i) => format!("mov_imm {}, {:#x}", dst(i.dst), i.imm),
        Instr::GetSr(i) => format!("get_sr {}, sr{}", dst(i.dst), i.sr.0),
        Instr::IAdd(i) => format!(
            "{}{} {}, {}, {}{}",
            if i.negate_b { "isub" } else { "iadd" },
            sat(i.saturate),
            dst(i.dst),
            isrc(i.a),
            isrc(i.b),
            lsl(i.shift)
        ),
        Instr::IMAdd(i) => format!(
            "{}{} {}, {}, {}, {}{}",
            if i.negate_c { "imsub" } else { "imadd" },
            sat(i.saturate),
            dst(i.dst),
            isrc(i.a),
            isrc(i.b),
            isrc(i.c),
            lsl(i.shift)
        ),
        Instr::Bitop(i) => format!(
            "bitop {:#06b}, {}, {}, {}",
            i.table,
            dst(i.dst),
            isrc(i.a),
            isrc(i.b)
        ),
        Instr::Shift(i) => {
            let name = match i.op {
                ShiftOp::Bfi => "bfi",
                ShiftOp::Bfeil => "bfeil",
                ShiftOp::Extr => "extr",
                ShiftOp::Shlhi => "shlhi",
                ShiftOp::Shrhi => "shrhi",
                ShiftOp::Asr => return format!("asr {}, {}, {}", dst(i.dst), isrc(i.a), isrc(i.b)),
            };
            let m = if i.mask_bits == 0 {
                String::new()
            } else {
                format!(", mask {:#x}", (1u64 << i.mask_bits) - 1)
            };
            format!(
                "{name} {}, {}, {}, {}{m}",
                dst(i.dst),
                isrc(i.a),
                isrc(i.b),
                isrc(i.c)
            )
        }
        Instr::IUnary(i) => {
            let name = match i.op {
                IUnaryOp::BitReverse => "bitrev",
                IUnaryOp::PopCount => "popcount",
                IUnaryOp::FindFirstSet => "ffs",
            };
            format!("{name} {}, {}", dst(i.dst), isrc(i.src))
        }
        Instr::Convert(i) => {
            let mode = match i.op {
                ConvertOp::U32ToF => "u32_to_f",
                ConvertOp::S32ToF => "s32_to_f",
                ConvertOp::U16ToF => "u16_to_f",
                ConvertOp::S16ToF => "s16_to_f",
                ConvertOp::U8ToF => "u8_to_f",
                ConvertOp::S8ToF => "s8_to_f",
                ConvertOp::FToU32 => "f_to_u32",
                ConvertOp::FToS32 => "f_to_s32",
                ConvertOp::FToU16 => "f_to_u16",
                ConvertOp::FToS16 => "f_to_s16",
            };
            let round = if i.round == Round::NearestEven {
                "rte"
            } else {
                "rtz"
            };
            format!("convert {mode}, {}, {}, {round}", dst(i.dst), isrc(i.src))
        }
        Instr::FArith(i) => {
            let w = if i.dst.reg.size == Size::S16 { 16 } else { 32 };
            match i.op {
                FOp::Add => format!(
                    "fadd{w}{} {}, {}, {}",
                    sat(i.saturate),
                    dst(i.dst),
                    fsrc(i.a),
                    fsrc(i.b)
                ),
                FOp::Mul => format!(
                    "fmul{w}{} {}, {}, {}",
                    sat(i.saturate),
                    dst(i.dst),
                    fsrc(i.a),
                    fsrc(i.b)
                ),
                FOp::MAdd => format!(
                    "fmadd{w}{} {}, {}, {}, {}",
                    sat(i.saturate),
                    dst(i.dst),
                    fsrc(i.a),
                    fsrc(i.b),
                    fsrc(i.c)
                ),
            }
        }
        Instr::FUnary(i) => {
            let name = match i.op {
                FUnaryOp::Floor => "floor",
                FUnaryOp::Ceil => "ceil",
                FUnaryOp::Trunc => "trunc",
                FUnaryOp::Rint => "rint",
                FUnaryOp::Rcp => "rcp",
                FUnaryOp::Rsqrt => "rsqrt",
                FUnaryOp::SinPt1 => "sin_pt_1",
                FUnaryOp::SinPt2 => "sin_pt_2",
                FUnaryOp::Log2 => "log2",
                FUnaryOp::Exp2 => "exp2",
                FUnaryOp::Dfdx => "dfdx",
                FUnaryOp::Dfdy => "dfdy",
            };
            format!("{name}{} {}, {}", sat(i.saturate), dst(i.dst), fsrc(i.src))
        }
        Instr::CmpSel(i) => {
            let name = if matches!(i.cond, Cond::Int(_)) {
                "icmpsel"
            } else {
                "fcmpsel"
            };
            format!(
                "{name} {}, {}, {}, {}, {}, {}",
                cond(i.cond, false),
                dst(i.dst),
                cmp_operand(i.cond, i.a),
                cmp_operand(i.cond, i.b),
                operand(i.x),
                operand(i.y)
            )
        }
        Instr::Ballot(i) => {
            let name = if matches!(i.cond, Cond::Int(_)) {
                "icmp_ballot"
            } else {
                "fcmp_ballot"
            };
            format!(
                "{name} {}, {}, {}, {}",
                cond(i.cond, i.invert),
                dst(i.dst),
                cmp_operand(i.cond, i.a),
                cmp_operand(i.cond, i.b)
            )
        }
        Instr::Shuffle(i) => {
            let q = if i.quad { "quad_" } else { "" };
            let m = match i.mode {
                ShuffleMode::Index => "",
                ShuffleMode::Xor => "_xor",
            };
            format!(
                "{q}shuffle{m} {}, {}, {}",
                dst(i.dst),
                operand(i.a),
                operand(i.index)
            )
        }
        Instr::SimdReduce(i) => {
            let k = match i.kind {
                ReduceKind::QuadReduce => "quad_reduce",
                ReduceKind::SimdReduce => "simd_reduce",
                ReduceKind::QuadPrefix => "quad_prefix",
                ReduceKind::SimdPrefix => "simd_prefix",
            };
            let op = format!("{:?}", i.op).to_lowercase();
            format!("{k} {op}, {}, {}", dst(i.dst), operand(i.a))
        }
        Instr::ExecCmp(i) => {
            let op = match i.op {
                ExecOp::If => "if",
                ExecOp::Else => "else",
                ExecOp::While => "while",
            };
            let t = if matches!(i.cond, Cond::Int(_)) {
                'i'
            } else {
                'f'
            };
            format!(
                "{op}_{t}cmp r0l, {}, {}, {}, {}",
                cond(i.cond, i.invert),
                cmp_operand(i.cond, i.a),
                cmp_operand(i.cond, i.b),
                i.n
            )
        }
        Instr::PopExec(i) => format!("pop_exec r0l, {}", i.n),
        Instr::Jump(i) => {
            let name = if i.cond == JumpCond::Any {
                "jmp_exec_any"
            } else {
                "jmp_exec_none"
            };
            let sign = if i.offset < 0 { '-' } else { '+' };
            format!("{name} pc{sign}{}", i.offset.unsigned_abs())
        }
        Instr::Wait(i) => format!("wait {}", i.slot),
        Instr::DeviceMem(i) => format!(
            "{} {}, {}, {}, {}, {}, {}, {}{}",
            if i.store {
                "device_store"
            } else {
                "device_load"
            },
            i.wait_slot,
            format_name(i.format),
            mask_name(i.mask),
            reg_vector(i.reg, i.mask),
            operand(i.base),
            index(i.index),
            if i.index_unsigned {
                "unsigned"
            } else {
                "signed"
            },
            lsl(i.shift)
        ),
        Instr::ThreadgroupMem(i) => format!(
            "{} {}, {}, {}, {}, {}",
            if i.store {
                "threadgroup_store"
            } else {
                "threadgroup_load"
            },
            format_name(i.format),
            mask_name(i.mask),
            reg_vector(i.reg, i.mask),
            operand(i.base),
            index(i.index)
        ),
        Instr::StackMem(i) => format!(
            "{} {}, {}, {}, {}, {}",
            if i.store { "stack_store" } else { "stack_load" },
            i.wait_slot,
            format_name(i.format),
            mask_name(i.mask),
            reg_vector(i.reg, i.mask),
            index(i.offset)
        ),
        Instr::Atomic(i) => format!(
            "atomic {}, {}, {}, {}, {}, {}",
            atomic_name(i.op),
            i.wait_slot,
            i.dst.map_or("_".into(), reg),
            operand(i.base),
            index(i.index),
            reg(i.src)
        ),
        Instr::ThreadgroupAtomic(i) => format!(
            "threadgroup_atomic {}, {}, {}, {}, {}",
            atomic_name(i.op),
            i.dst.map_or("_".into(), reg),
            operand(i.base),
            index(i.index),
            reg(i.src)
        ),
        Instr::UniformStore(i) => format!(
            "uniform_store {}, {}, {}, {}",
            format_name(MemFormat::I16),
            mask_name(i.mask),
            reg_vector(i.reg, i.mask),
            index(i.index)
        ),
        Instr::ThreadgroupBarrier => "threadgroup_barrier".into(),
        Instr::MemoryBarrier => "memory_barrier".into(),
        Instr::Stop => "stop".into(),
        Instr::Iter(i) => {
            let interp = match i.interp {
                Interpolation::Center => String::new(),
                Interpolation::Centroid => ", centroid".into(),
                Interpolation::Sample(s) => format!(", sample {}", small(s)),
            };
            match i.perspective_w {
                Some(w) => format!(
                    "iterproj {}, cf{}, cf{w}{interp}",
                    reg_run(i.dst, i.channels),
                    i.cf
                ),
                None => format!("iter {}, cf{}{interp}", reg_run(i.dst, i.channels), i.cf),
            }
        }
        Instr::LdCf(i) => format!("ldcf {}, cf{}", reg_run(i.dst, 3 * i.channels), i.cf),
        Instr::StVary(i) => format!(
            "st_vary{} {}, {}",
            if i.last { ".last" } else { "" },
            reg(i.src),
            small(i.index)
        ),
        Instr::TileMem(i) => format!(
            "{} {}, {}, {}, {}, {}{}",
            if i.store { "st_tile" } else { "ld_tile" },
            format_name(i.format),
            mask_name(i.mask),
            reg_vector(i.reg, i.mask),
            i.pixel_offset,
            small(i.samples),
            i.coords
                .map_or(String::new(), |c| format!(", coords {}", reg(c)))
        ),
        Instr::SampleMask(i) => format!("sample_mask {}, {}", small(i.targets), small(i.live)),
        Instr::ZsEmit(i) => format!(
            "zs_emit{}{} {}, {}",
            if i.depth { ".z" } else { "" },
            if i.stencil { ".s" } else { "" },
            small(i.samples),
            reg(i.src)
        ),
        Instr::Texture(i) => {
            let mut t = format!(
                "{}{} {}, {}, {}, {}, {}, {}",
                if i.load {
                    "texture_load"
                } else {
                    "texture_sample"
                },
                if i.query_lod { ".query_lod" } else { "" },
                i.wait_slot,
                reg_vector(i.dst, i.mask),
                reg(i.coords),
                tex_index(i.texture),
                small(i.sampler),
                tex_dim(i.dim),
            );
            let _ = write!(t, ", {}", lod_mode(i.lod_mode));
            if i.lod_mode != LodMode::Auto {
                let _ = write!(t, " {}", operand(i.lod));
            }
            if let Some(e) = i.extra {
                let what = match (i.shadow, i.offset) {
                    (true, true) => "compare_offset",
                    (true, false) => "compare",
                    _ => "offset",
                };
                let _ = write!(t, ", {what} {}", reg(e));
            }
            if let Some(g) = i.gather {
                let _ = write!(t, ", gather {}", ['r', 'g', 'b', 'a'][usize::from(g & 3)]);
            }
            t
        }
        Instr::ImageWrite(i) => format!(
            "image_write{} {}, {}, {}, {}, {}",
            if i.coherent { ".coherent" } else { "" },
            reg_vector(i.src, 0xf),
            reg(i.coords),
            small(i.lod),
            tex_index(i.texture),
            tex_dim(i.dim)
        ),
        Instr::BlockImageStore(i) => format!(
            "block_image_store.{} {}, {}, {}",
            format_name(i.format),
            reg(i.offset),
            tex_index(i.texture),
            tex_dim(i.dim)
        ),
    }
}

fn tex_index(t: TexIndex) -> String {
    match t {
        TexIndex::Imm(n) => format!("ts{n}"),
        TexIndex::Reg(r) => format!("ts[{}]", reg(r)),
        TexIndex::Bindless { base, index } => {
            format!(
                "{}[{}]",
                reg_name(
                    'u',
                    Reg {
                        half: base,
                        size: Size::S64
                    }
                ),
                reg(index)
            )
        }
    }
}

fn tex_dim(d: TexDim) -> &'static str {
    match d {
        TexDim::D1 => "1d",
        TexDim::D1Array => "1d_array",
        TexDim::D2 => "2d",
        TexDim::D2Array => "2d_array",
        TexDim::D2Ms => "2d_ms",
        TexDim::D3 => "3d",
        TexDim::Cube => "cube",
        TexDim::CubeArray => "cube_array",
        TexDim::D2MsArray => "2d_ms_array",
    }
}

fn lod_mode(m: LodMode) -> &'static str {
    match m {
        LodMode::Auto => "auto_lod",
        LodMode::AutoBias => "auto_lod_bias",
        LodMode::Min => "lod_min",
        LodMode::Grad => "lod_grad",
        LodMode::GradMin => "lod_grad_min",
        LodMode::AutoBiasMin => "auto_lod_bias_min",
    }
}

fn small(s: Small) -> String {
    match s {
        Small::Imm(v) => format!("{v:#x}"),
        Small::Reg(r) => reg(r),
    }
}

/// `n` consecutive registers of `r`'s width, written as a tuple.
fn reg_run(r: Reg, n: u8) -> String {
    (0..u16::from(n))
        .map(|k| {
            reg(Reg {
                half: r.half + k * r.size.halves(),
                size: r.size,
            })
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Decodes `code` with `codec` and prints it, one line per instruction: byte offset, bytes,
/// text. Stops at the first undecodable instruction with its error.
pub fn disassemble(codec: &dyn Codec, code: &[u8]) -> Result<String, DecodeError> {
    let mut out = String::new();
    let mut at = 0;
    while at < code.len() {
        let (instr, len) = codec.decode(&code[at..])?;
        let bytes: Vec<String> = code[at..at + len]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let _ = writeln!(out, "{at:6x}:  {:<30} {}", bytes.join(" "), format(&instr));
        at += len;
    }
    Ok(out)
}

/// Machine code written as hex text: whitespace, commas and `0x` prefixes are ignored.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let cleaned: String = text
        .replace("0x", " ")
        .replace("0X", " ")
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    if !cleaned.len().is_multiple_of(2) {
        return Err("hex text has an odd number of digits".into());
    }
    (0..cleaned.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&cleaned[i..i + 2], 16)
                .map_err(|_| format!("invalid hex digits {:?} at digit {i}", &cleaned[i..i + 2]))
        })
        .collect()
}

/// The `main` of agx4's machine code tools: runs `run` on the command line's arguments,
/// prints its text, or the error after the tool's `name`, and exits accordingly.
pub fn tool_main(
    name: &str,
    run: fn(&[String]) -> Result<String, String>,
) -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
