//! A reference interpreter for the IR: runs one dispatch on the CPU, before or after the
//! passes. Workgroups run one after another; the invocations of a workgroup run round robin,
//! each until its next `WorkgroupBarrier`.
//!
//! Values are kept as the bits of each lane (zero-extended to 64). `eval_pure` is shared with
//! the constant folder so that folding and interpretation agree by construction; tests check
//! both against independently computed results.

use super::{
    AtomicOp, BinOp, CmpOp, ConvOp, GraphicsShader, Node, Op, OutputBuiltin, Scalar, Shader, Space,
    Stage, SysVal, Type, UnOp, Value,
};
use crate::{abi, ResourceLayout};
use std::collections::BTreeMap;

/// Device memory as the interpreter sees it.
pub trait GlobalMemory {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), String>;
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), String>;
}

/// Device memory made of separate byte regions at fixed addresses.
#[derive(Debug, Default, Clone)]
pub struct Regions {
    pub regions: Vec<(u64, Vec<u8>)>,
}

impl Regions {
    fn find(&mut self, addr: u64, len: usize) -> Result<(&mut Vec<u8>, usize), String> {
        for (base, bytes) in &mut self.regions {
            if addr >= *base && addr.saturating_add(len as u64) <= *base + bytes.len() as u64 {
                return Ok((bytes, (addr - *base) as usize));
            }
        }
        Err(format!(
            "access of {len} bytes at {addr:#x} outside every buffer"
        ))
    }

    /// Adds a region and returns its address.
    pub fn add(&mut self, addr: u64, bytes: Vec<u8>) -> u64 {
        self.regions.push((addr, bytes));
        addr
    }

    pub fn bytes(&self, addr: u64) -> Option<&[u8]> {
        self.regions
            .iter()
            .find(|(b, _)| *b == addr)
            .map(|(_, v)| v.as_slice())
    }
}

impl GlobalMemory for Regions {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), String> {
        let (bytes, off) = self.find(addr, out.len())?;
        out.copy_from_slice(&bytes[off..off + out.len()]);
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), String> {
        let (bytes, off) = self.find(addr, data.len())?;
        bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// What one dispatch provides besides device memory.
pub struct Dispatch<'a> {
    /// Workgroups to run. `NumWorkgroups` and the base workgroup of `GlobalInvocationId`
    /// are read from the root table, as the compiled code reads them.
    pub workgroups: [u32; 3],
    /// The root table (`abi`): set addresses, dispatch size, push constants.
    pub root: &'a [u8],
    pub layout: &'a ResourceLayout,
    /// Instructions executed before the run is abandoned (runaway loops).
    pub step_limit: u64,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn fb(x: f32) -> u64 {
    x.to_bits() as u64
}

fn un(op: UnOp, x: u64, bits: u32) -> u64 {
    let m = mask(bits);
    let s = sext(x, bits);
    match op {
        UnOp::INeg => x.wrapping_neg() & m,
        UnOp::Not => !x & m,
        UnOp::IAbs => (s.wrapping_abs() as u64) & m,
        UnOp::ISign => (s.signum() as u64) & m,
        UnOp::BitReverse => ((x as u32).reverse_bits()) as u64,
        UnOp::BitCount => (x as u32).count_ones() as u64,
        UnOp::UFindMsb => {
            if x as u32 == 0 {
                0xffff_ffff
            } else {
                31 - (x as u32).leading_zeros() as u64
            }
        }
        UnOp::SFindMsb => {
            let v = if (x as u32 as i32) < 0 {
                !(x as u32)
            } else {
                x as u32
            };
            if v == 0 {
                0xffff_ffff
            } else {
                31 - v.leading_zeros() as u64
            }
        }
        UnOp::FindLsb => {
            if x as u32 == 0 {
                0xffff_ffff
            } else {
                (x as u32).trailing_zeros() as u64
            }
        }
        UnOp::FNeg => fb(-f(x)),
        UnOp::FAbs => fb(f(x).abs()),
        UnOp::FFloor => fb(f(x).floor()),
        UnOp::FCeil => fb(f(x).ceil()),
        UnOp::FTrunc => fb(f(x).trunc()),
        UnOp::FRoundEven => fb(f(x).round_ties_even()),
        UnOp::FFract => fb(f(x) - f(x).floor()),
        UnOp::FSqrt => fb(f(x).sqrt()),
        UnOp::FRsqrt => fb(1.0 / f(x).sqrt()),
        UnOp::FRcp => fb(1.0 / f(x)),
        UnOp::FExp2 => fb(f(x).exp2()),
        UnOp::FLog2 => fb(f(x).log2()),
        UnOp::FSin => fb(f(x).sin()),
        UnOp::FCos => fb(f(x).cos()),
        // One invocation alone: its quad is four copies of it, whose differences are 0.
        UnOp::FDdx | UnOp::FDdy => fb(0.0),
        UnOp::FSign => {
            let v = f(x);
            fb(if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                v
            })
        }
    }
}

/// `None` for division by zero (undefined; the folder leaves it alone).
fn bin(op: BinOp, a: u64, b: u64, bits: u32) -> Option<u64> {
    let m = mask(bits);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let sh = (b as u32) & (bits.max(1) - 1);
    Some(match op {
        BinOp::IAdd => a.wrapping_add(b) & m,
        BinOp::ISub => a.wrapping_sub(b) & m,
        BinOp::IMul => a.wrapping_mul(b) & m,
        BinOp::UMulHigh => ((a as u128 * b as u128) >> bits) as u64 & m,
        BinOp::SMulHigh => ((sa as i128 * sb as i128) >> bits) as u64 & m,
        BinOp::UDiv => a.checked_div(b)?,
        BinOp::UMod => a.checked_rem(b)?,
        BinOp::SDiv => {
            if b == 0 {
                return None;
            }
            (sa.wrapping_div(sb) as u64) & m
        }
        BinOp::SRem => {
            if b == 0 {
                return None;
            }
            ((sext((sa.wrapping_rem(sb) as u64) & m, bits)) as u64) & m
        }
        BinOp::SMod => {
            if b == 0 {
                return None;
            }
            let r = sext((sa.wrapping_rem(sb) as u64) & m, bits);
            let r = if r != 0 && (r < 0) != (sb < 0) {
                r.wrapping_add(sb)
            } else {
                r
            };
            (r as u64) & m
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => (a << sh) & m,
        BinOp::UShr => (a & m) >> sh,
        BinOp::SShr => ((sa >> sh) as u64) & m,
        BinOp::UMin => a.min(b),
        BinOp::UMax => a.max(b),
        BinOp::SMin => (sa.min(sb) as u64) & m,
        BinOp::SMax => (sa.max(sb) as u64) & m,
        BinOp::FAdd => fb(f(a) + f(b)),
        BinOp::FSub => fb(f(a) - f(b)),
        BinOp::FMul => fb(f(a) * f(b)),
        BinOp::FDiv => fb(f(a) / f(b)),
        BinOp::FMod => fb(f(a) - f(b) * (f(a) / f(b)).floor()),
        BinOp::FMin => fb(f(a).min(f(b))),
        BinOp::FMax => fb(f(a).max(f(b))),
        BinOp::FPow => fb(f(a).powf(f(b))),
        BinOp::FAtan2 => fb(f(a).atan2(f(b))),
    })
}

fn cmp(op: CmpOp, a: u64, b: u64, bits: u32) -> bool {
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match op {
        CmpOp::IEq => a == b,
        CmpOp::INe => a != b,
        CmpOp::ULt => a < b,
        CmpOp::ULe => a <= b,
        CmpOp::UGt => a > b,
        CmpOp::UGe => a >= b,
        CmpOp::SLt => sa < sb,
        CmpOp::SLe => sa <= sb,
        CmpOp::SGt => sa > sb,
        CmpOp::SGe => sa >= sb,
        CmpOp::FOEq => f(a) == f(b),
        CmpOp::FOLt => f(a) < f(b),
        CmpOp::FOLe => f(a) <= f(b),
        CmpOp::FOGt => f(a) > f(b),
        CmpOp::FOGe => f(a) >= f(b),
        CmpOp::FUNe => f(a).is_nan() || f(b).is_nan() || f(a) != f(b),
    }
}

fn conv(op: ConvOp, x: u64, from: Scalar, to: Scalar) -> u64 {
    let tm = mask(to.bits());
    if from == Scalar::F16 || to == Scalar::F16 {
        return conv_half(op, x, from, to);
    }
    match op {
        ConvOp::UToU => x & mask(from.bits()) & tm,
        ConvOp::SToS => (sext(x, from.bits()) as u64) & tm,
        ConvOp::UToF if from == Scalar::I64 => fb(x as f32),
        ConvOp::UToF => fb(x as u32 as f32),
        ConvOp::SToF => fb(sext(x, from.bits()) as f32),
        ConvOp::FToU if to == Scalar::I64 => f(x) as u64,
        ConvOp::FToU => (f(x) as u32) as u64,
        ConvOp::FToS if to == Scalar::I64 => f(x) as i64 as u64,
        ConvOp::FToS => (f(x) as i32 as u32) as u64,
        ConvOp::FToF | ConvOp::Bitcast => x & tm,
        ConvOp::BoolToInt => (x != 0) as u64,
    }
}

/// Half-precision arithmetic as G13 computes it (`hw::g13::float_mode`): the exact values of
/// the operands, one rounding to nearest even of the result, denormals kept. The unary
/// functions that the ALU evaluates in single precision round their single result.
fn half_op(op: &Op, n: usize, get: &dyn Fn(Value) -> Option<Vec<u64>>) -> Option<Vec<u64>> {
    let h = |x: u64| f64::from(super::half::to_f32(x as u16));
    let out = |x: f64| u64::from(super::half::from_f64(x));
    let lanes = |v: Value| -> Option<Vec<f64>> {
        let x = get(v)?;
        Some((0..n).map(|i| h(lane(&x, i))).collect())
    };
    Some(match op {
        Op::Unary(u, a) => {
            let x = lanes(*a)?;
            let single = |f: fn(f32) -> f32, x: f64| out(f64::from(f(x as f32)));
            x.into_iter()
                .map(|x| {
                    Some(match u {
                        UnOp::FNeg => out(-x),
                        UnOp::FAbs => out(x.abs()),
                        UnOp::FFloor => out(x.floor()),
                        UnOp::FCeil => out(x.ceil()),
                        UnOp::FTrunc => out(x.trunc()),
                        UnOp::FRoundEven => out(x.round_ties_even()),
                        UnOp::FRcp => single(|x| 1.0 / x, x),
                        UnOp::FRsqrt => single(|x| 1.0 / x.sqrt(), x),
                        UnOp::FExp2 => single(f32::exp2, x),
                        UnOp::FLog2 => single(f32::log2, x),
                        _ => return None,
                    })
                })
                .collect::<Option<_>>()?
        }
        Op::Binary(b, x, y) => {
            let (x, y) = (lanes(*x)?, lanes(*y)?);
            x.into_iter()
                .zip(y)
                .map(|(x, y)| {
                    Some(match b {
                        BinOp::FAdd => out(x + y),
                        BinOp::FSub => out(x - y),
                        BinOp::FMul => out(x * y),
                        // A NaN operand loses, as the hardware's compare-selects do.
                        BinOp::FMin => out(if y.is_nan() || x < y { x } else { y }),
                        BinOp::FMax => out(if y.is_nan() || x > y { x } else { y }),
                        _ => return None,
                    })
                })
                .collect::<Option<_>>()?
        }
        Op::FFma(a, b, c) => {
            let (a, b, c) = (lanes(*a)?, lanes(*b)?, lanes(*c)?);
            (0..n).map(|i| out(a[i].mul_add(b[i], c[i]))).collect()
        }
        Op::Cmp(c, x, y) => {
            let (x, y) = (lanes(*x)?, lanes(*y)?);
            x.into_iter()
                .zip(y)
                .map(|(x, y)| {
                    Some(u64::from(match c {
                        CmpOp::FOEq => x == y,
                        CmpOp::FOLt => x < y,
                        CmpOp::FOLe => x <= y,
                        CmpOp::FOGt => x > y,
                        CmpOp::FOGe => x >= y,
                        CmpOp::FUNe => x.is_nan() || y.is_nan() || x != y,
                        _ => return None,
                    }))
                })
                .collect::<Option<_>>()?
        }
        _ => return None,
    })
}

/// Conversions with a half-precision side: through f32 (exact for every half), narrowing to
/// half with one rounding to nearest even from the exact value.
fn conv_half(op: ConvOp, x: u64, from: Scalar, to: Scalar) -> u64 {
    let value = |x: u64| -> f64 {
        if from == Scalar::F16 {
            f64::from(super::half::to_f32(x as u16))
        } else {
            f64::from(f(x))
        }
    };
    let out = |v: f64| -> u64 {
        if to == Scalar::F16 {
            u64::from(super::half::from_f64(v))
        } else {
            fb(v as f32)
        }
    };
    let tm = mask(to.bits());
    match op {
        ConvOp::FToF => out(value(x)),
        ConvOp::UToF => out((x & mask(from.bits())) as f64),
        ConvOp::SToF => out(sext(x, from.bits()) as f64),
        // Out of range is undefined in SPIR-V; saturate as the hardware's convert does.
        ConvOp::FToU => (value(x) as u64) & tm,
        ConvOp::FToS => (value(x) as i64 as u64) & tm,
        ConvOp::Bitcast | ConvOp::UToU | ConvOp::SToS => x & tm,
        ConvOp::BoolToInt => (x != 0) as u64,
    }
}

fn bitfield(base: u64, off: u64, count: u64) -> (u32, u32) {
    let _ = base;
    ((off as u32).min(32), (count as u32).min(32))
}

fn lane(v: &[u64], i: usize) -> u64 {
    if v.len() == 1 {
        v[0]
    } else {
        v.get(i).copied().unwrap_or(0)
    }
}

/// Evaluates an operation without memory, variables or system values. `get` returns the
/// lanes of an operand (or `None` if unknown). Returns `None` for anything else.
pub fn eval_pure(
    shader: &Shader,
    op: &Op,
    ty: Type,
    get: &dyn Fn(Value) -> Option<Vec<u64>>,
) -> Option<Vec<u64>> {
    let n = ty.lanes as usize;
    let bits_of = |v: Value| {
        shader
            .value_types
            .get(v.0 as usize)
            .map(|t| t.scalar.bits())
            .unwrap_or(32)
    };
    let half = |v: &Value| {
        shader
            .value_types
            .get(v.0 as usize)
            .is_some_and(|t| t.scalar == Scalar::F16)
    };
    let half_math = match op {
        Op::Unary(_, a) | Op::Binary(_, a, _) | Op::Cmp(_, a, _) | Op::FFma(a, _, _) => half(a),
        _ => false,
    };
    if half_math {
        return half_op(op, n, get);
    }
    Some(match op {
        Op::Const(c) => c.0.clone(),
        Op::Copy(a) | Op::PhysicalAddress(a) => get(*a)?,
        Op::Unary(u, a) => {
            let x = get(*a)?;
            let bits = bits_of(*a);
            (0..n).map(|i| un(*u, lane(&x, i), bits)).collect()
        }
        Op::Binary(b, x, y) => {
            let (xa, ya) = (get(*x)?, get(*y)?);
            let bits = bits_of(*x);
            (0..n)
                .map(|i| bin(*b, lane(&xa, i), lane(&ya, i), bits))
                .collect::<Option<_>>()?
        }
        Op::FFma(a, b, c) => {
            let (a, b, c) = (get(*a)?, get(*b)?, get(*c)?);
            (0..n)
                .map(|i| fb(f(lane(&a, i)).mul_add(f(lane(&b, i)), f(lane(&c, i)))))
                .collect()
        }
        Op::Cmp(c, x, y) => {
            let (xa, ya) = (get(*x)?, get(*y)?);
            let bits = bits_of(*x);
            (0..n)
                .map(|i| cmp(*c, lane(&xa, i), lane(&ya, i), bits) as u64)
                .collect()
        }
        Op::Select(c, a, b) => {
            let (c, a, b) = (get(*c)?, get(*a)?, get(*b)?);
            (0..n)
                .map(|i| {
                    if lane(&c, i) != 0 {
                        lane(&a, i)
                    } else {
                        lane(&b, i)
                    }
                })
                .collect()
        }
        Op::Conv(c, a) => {
            let x = get(*a)?;
            let from = shader.value_types.get(a.0 as usize)?.scalar;
            (0..n)
                .map(|i| conv(*c, lane(&x, i), from, ty.scalar))
                .collect()
        }
        Op::BitfieldInsert(base, ins, off, count) => {
            let (b, s, o, c) = (get(*base)?, get(*ins)?, get(*off)?, get(*count)?);
            (0..n)
                .map(|i| {
                    let (o, c) = bitfield(0, lane(&o, i), lane(&c, i));
                    if c == 0 || o >= 32 {
                        return lane(&b, i);
                    }
                    let m = (mask(c) << o) & 0xffff_ffff;
                    (lane(&b, i) & !m | (lane(&s, i) << o) & m) & 0xffff_ffff
                })
                .collect()
        }
        Op::UBitfieldExtract(base, off, count) | Op::SBitfieldExtract(base, off, count) => {
            let signed = matches!(op, Op::SBitfieldExtract(..));
            let (b, o, c) = (get(*base)?, get(*off)?, get(*count)?);
            (0..n)
                .map(|i| {
                    let (o, c) = bitfield(0, lane(&o, i), lane(&c, i));
                    if c == 0 || o >= 32 {
                        return 0;
                    }
                    let v = (lane(&b, i) >> o) & mask(c);
                    if signed {
                        (sext(v, c) as u64) & 0xffff_ffff
                    } else {
                        v
                    }
                })
                .collect()
        }
        Op::Vector(parts) => parts
            .iter()
            .map(|p| get(*p).map(|v| v[0]))
            .collect::<Option<_>>()?,
        Op::Extract(v, i) => vec![*get(*v)?.get(*i as usize)?],
        Op::Insert(v, i, x) => {
            let mut v = get(*v)?;
            *v.get_mut(*i as usize)? = get(*x)?[0];
            v
        }
        _ => return None,
    })
}

fn getv(vals: &[Vec<u64>], v: Value) -> Result<Vec<u64>, String> {
    vals.get(v.0 as usize)
        .filter(|x| !x.is_empty())
        .cloned()
        .ok_or_else(|| format!("use of undefined value %{}", v.0))
}

struct Frame<'s> {
    nodes: &'s [Node],
    idx: usize,
    inst: usize,
    is_loop: bool,
}

struct Invocation<'s> {
    vals: Vec<Vec<u64>>,
    vars: Vec<Vec<u64>>,
    scratch: Vec<u8>,
    stack: Vec<Frame<'s>>,
    local: [u32; 3],
    index: u32,
}

enum Stop {
    Barrier,
    Done,
}

struct Machine<'s, 'a> {
    sh: &'s Shader,
    d: &'a Dispatch<'a>,
    global: &'a mut dyn GlobalMemory,
    shared: Vec<u8>,
    group: [u32; 3],
    steps: u64,
    /// The graphics invocation being run (`None` for compute).
    io: Option<GraphicsIo>,
}

struct GraphicsIo {
    stage: Stage,
    inputs: StageInputs,
    outputs: StageOutputs,
    discarded: bool,
}

fn bytes_of(ty: Type) -> Result<usize, String> {
    match ty.scalar {
        Scalar::I32 | Scalar::F32 => Ok(4 * ty.lanes as usize),
        Scalar::I16 | Scalar::F16 => Ok(2 * ty.lanes as usize),
        Scalar::I8 => Ok(ty.lanes as usize),
        Scalar::I64 => Ok(8 * ty.lanes as usize),
        other => Err(format!("memory access of {other:?}")),
    }
}

fn to_lanes(bytes: &[u8], ty: Type) -> Vec<u64> {
    let w = (ty.scalar.bits() / 8) as usize;
    bytes
        .chunks(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn from_lanes(v: &[u64], ty: Type) -> Vec<u8> {
    let w = (ty.scalar.bits() / 8) as usize;
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..w].to_vec())
        .collect()
}

fn slice_mem<'b>(
    mem: &'b mut [u8],
    addr: u64,
    len: usize,
    what: &str,
) -> Result<&'b mut [u8], String> {
    let a = addr as usize;
    if addr > u32::MAX as u64 || a + len > mem.len() {
        return Err(format!(
            "{what} access of {len} bytes at {addr:#x} outside {} bytes",
            mem.len()
        ));
    }
    Ok(&mut mem[a..a + len])
}

impl<'s> Machine<'s, '_> {
    fn root_read(&self, addr: u64, len: usize) -> Result<Vec<u8>, String> {
        let a = addr as usize;
        self.d
            .root
            .get(a..a + len)
            .map(|s| s.to_vec())
            .ok_or_else(|| {
                format!(
                    "root table read at {addr} outside {} bytes",
                    self.d.root.len()
                )
            })
    }

    fn descriptor(&mut self, set: u32, binding: u32, index: u64) -> Result<u64, String> {
        let sl = self
            .d
            .layout
            .sets
            .get(set as usize)
            .and_then(|s| s.as_ref())
            .ok_or_else(|| format!("set {set} not in the layout"))?;
        let b = sl
            .bindings
            .iter()
            .find(|b| b.binding == binding)
            .ok_or_else(|| format!("binding {binding} not in set {set}"))?;
        let set_addr = u64::from_le_bytes(
            self.root_read(abi::set_address_offset(set) as u64, 8)?
                .try_into()
                .unwrap_or([0; 8]),
        );
        Ok(set_addr + b.offset as u64 + index * abi::BUFFER_DESCRIPTOR_SIZE as u64)
    }

    fn mem_read(
        &mut self,
        inv: &mut Invocation,
        space: Space,
        addr: u64,
        len: usize,
    ) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; len];
        match space {
            Space::Global => self.global.read(addr, &mut out)?,
            Space::Shared => out.copy_from_slice(slice_mem(&mut self.shared, addr, len, "shared")?),
            Space::Scratch => {
                out.copy_from_slice(slice_mem(&mut inv.scratch, addr, len, "scratch")?)
            }
            Space::Root => out = self.root_read(addr, len)?,
        }
        Ok(out)
    }

    fn mem_write(
        &mut self,
        inv: &mut Invocation,
        space: Space,
        addr: u64,
        data: &[u8],
    ) -> Result<(), String> {
        match space {
            Space::Global => self.global.write(addr, data),
            Space::Shared => {
                slice_mem(&mut self.shared, addr, data.len(), "shared")?.copy_from_slice(data);
                Ok(())
            }
            Space::Scratch => {
                slice_mem(&mut inv.scratch, addr, data.len(), "scratch")?.copy_from_slice(data);
                Ok(())
            }
            Space::Root => Err("store to the root table".into()),
        }
    }

    fn root_u32(&self, off: u32) -> Result<u32, String> {
        let b = self.root_read(off as u64, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `WorkgroupId` is the hardware's (without the base of vkCmdDispatchBase); the front end
    /// adds the base where SPIR-V asks for the builtin.
    fn sysval(&self, inv: &Invocation, s: SysVal) -> Result<u64, String> {
        let ls = self.sh.local_size;
        let i = |c: u8| c as usize % 3;
        Ok(match s {
            SysVal::LocalInvocationId(c) => inv.local[i(c)] as u64,
            SysVal::LocalInvocationIndex => inv.index as u64,
            SysVal::WorkgroupId(c) => self.group[i(c)] as u64,
            SysVal::GlobalInvocationId(c) => {
                let base = self.root_u32(abi::BASE_WORKGROUP_OFFSET + 4 * i(c) as u32)?;
                (self.group[i(c)]
                    .wrapping_add(base)
                    .wrapping_mul(ls[i(c)])
                    .wrapping_add(inv.local[i(c)])) as u64
            }
            SysVal::ThreadPositionInGrid(c) => {
                (self.group[i(c)]
                    .wrapping_mul(ls[i(c)])
                    .wrapping_add(inv.local[i(c)])) as u64
            }
            SysVal::NumWorkgroups(c) => {
                self.root_u32(abi::NUM_WORKGROUPS_OFFSET + 4 * i(c) as u32)? as u64
            }
            SysVal::WorkgroupSize(c) => ls[i(c)] as u64,
            SysVal::SubgroupLocalInvocationId | SysVal::SubgroupId => {
                return Err("subgroup system values are not interpreted".into())
            }
            SysVal::SamplePosition(_) => return Err("SamplePosition is not interpreted".into()),
            SysVal::SampleMaskIn => return Err("SampleMaskIn is not interpreted".into()),
            SysVal::InvocationId | SysVal::PrimitiveId => {
                return Err(format!("{s:?}: geometry shaders are not interpreted"))
            }
            // One invocation alone: helpers exist only in quads; a discarded one stops
            // counting, so what it computes after is never seen.
            SysVal::HelperInvocation => {
                let io = self.io.as_ref().ok_or("HelperInvocation in a dispatch")?;
                u64::from(io.discarded)
            }
            // Draw parameters come from the root table like ViewIndex (lower_sysvals turns them
            // into these loads before the back end).
            SysVal::BaseVertex => self.root_u32(abi::BASE_VERTEX_OFFSET)? as u64,
            SysVal::BaseInstance => self.root_u32(abi::FIRST_INSTANCE_OFFSET)? as u64,
            SysVal::DrawIndex => self.root_u32(abi::DRAW_INDEX_OFFSET)? as u64,
            SysVal::VertexIndex
            | SysVal::InstanceIndex
            | SysVal::FragCoord(_)
            | SysVal::PointCoord(_)
            | SysVal::FrontFacing
            | SysVal::SampleId
            | SysVal::ViewIndex => {
                let io = self
                    .io
                    .as_ref()
                    .ok_or("graphics system value in a dispatch")?;
                let allowed: &[Stage] = match s {
                    SysVal::VertexIndex | SysVal::InstanceIndex => &[Stage::Vertex],
                    SysVal::ViewIndex => &[Stage::Vertex, Stage::Fragment],
                    _ => &[Stage::Fragment],
                };
                if !allowed.contains(&io.stage) {
                    return Err(format!("{s:?} in a {:?} shader", io.stage));
                }
                let i = &io.inputs;
                match s {
                    SysVal::ViewIndex => self.root_u32(abi::VIEW_INDEX_OFFSET)? as u64,
                    SysVal::VertexIndex => i.vertex_index as u64,
                    SysVal::InstanceIndex => i.instance_index as u64,
                    SysVal::FragCoord(c) => i.frag_coord[c as usize % 4].to_bits() as u64,
                    SysVal::PointCoord(c) => i.point_coord[c as usize % 2].to_bits() as u64,
                    SysVal::FrontFacing => i.front_facing as u64,
                    _ => i.sample_id as u64,
                }
            }
        })
    }

    fn exec(&mut self, inv: &mut Invocation, dst: Option<Value>, op: &Op) -> Result<(), String> {
        let sh = self.sh;
        let ty = dst.map(|d| sh.ty(d)).unwrap_or(Type::I32);
        let result: Option<Vec<u64>> = match op {
            Op::LoadVar(var) => {
                let v = inv.vars.get(var.0 as usize).cloned().unwrap_or_default();
                if v.is_empty() {
                    // Reading a never-written variable is undefined; give zeros.
                    Some(vec![0; ty.lanes as usize])
                } else {
                    Some(v)
                }
            }
            Op::StoreVar(var, v) => {
                let x = getv(&inv.vals, *v)?;
                *inv.vars.get_mut(var.0 as usize).ok_or("bad variable")? = x;
                None
            }
            Op::SysVal(s) => Some(vec![self.sysval(inv, *s)?]),
            Op::Load { space, addr, .. } => {
                let a = getv(&inv.vals, *addr)?[0];
                let bytes = self.mem_read(inv, *space, a, bytes_of(ty)?)?;
                Some(to_lanes(&bytes, ty))
            }
            Op::Store {
                space, addr, value, ..
            } => {
                let a = getv(&inv.vals, *addr)?[0];
                let vt = sh.ty(*value);
                bytes_of(vt)?;
                let data = from_lanes(&getv(&inv.vals, *value)?, vt);
                self.mem_write(inv, *space, a, &data)?;
                None
            }
            Op::Atomic {
                space,
                op: aop,
                addr,
                value,
                cmp: c,
            } => {
                let a = getv(&inv.vals, *addr)?[0];
                let old = u32::from_le_bytes(
                    self.mem_read(inv, *space, a, 4)?
                        .try_into()
                        .unwrap_or([0; 4]),
                );
                let v = getv(&inv.vals, *value)?[0] as u32;
                let new = match aop {
                    AtomicOp::Add => old.wrapping_add(v),
                    AtomicOp::Sub => old.wrapping_sub(v),
                    AtomicOp::UMin => old.min(v),
                    AtomicOp::UMax => old.max(v),
                    AtomicOp::SMin => (old as i32).min(v as i32) as u32,
                    AtomicOp::SMax => (old as i32).max(v as i32) as u32,
                    AtomicOp::And => old & v,
                    AtomicOp::Or => old | v,
                    AtomicOp::Xor => old ^ v,
                    AtomicOp::Exchange => v,
                    AtomicOp::CompareExchange => {
                        let c = getv(&inv.vals, c.ok_or("compare-exchange without a comparator")?)?
                            [0] as u32;
                        if old == c {
                            v
                        } else {
                            old
                        }
                    }
                };
                self.mem_write(inv, *space, a, &new.to_le_bytes())?;
                Some(vec![old as u64])
            }
            Op::DescriptorAddress {
                set,
                binding,
                index,
            } => {
                let i = getv(&inv.vals, *index)?[0];
                let d = self.descriptor(*set, *binding, i)?;
                let mut b = [0u8; 8];
                self.global.read(d, &mut b)?;
                Some(vec![u64::from_le_bytes(b)])
            }
            Op::DescriptorSize {
                set,
                binding,
                index,
            } => {
                let i = getv(&inv.vals, *index)?[0];
                let d = self.descriptor(*set, *binding, i)?;
                let mut b = [0u8; 4];
                self.global.read(d + 8, &mut b)?;
                Some(vec![u32::from_le_bytes(b) as u64])
            }
            Op::WorkgroupBarrier | Op::MemoryBarrier => None,
            // The interpreter's inputs are one value per location: the same at every point of
            // the pixel.
            Op::LoadInput {
                location,
                component,
                ..
            }
            | Op::InterpolateInput {
                location,
                component,
                ..
            } => {
                let io = self.io.as_ref().ok_or("LoadInput in a dispatch")?;
                let slot = io
                    .inputs
                    .locations
                    .get(location)
                    .ok_or_else(|| format!("no input at location {location}"))?;
                let c = *component as usize;
                let lanes = slot
                    .get(c..c + ty.lanes as usize)
                    .ok_or("input components out of range")?;
                Some(lanes.iter().map(|x| *x as u64).collect())
            }
            // Constant over the pixel, so A = B = 0 and C is the input's value.
            Op::InputPlaneBits {
                location,
                component,
            } => {
                let io = self.io.as_ref().ok_or("InputPlaneBits in a dispatch")?;
                let x = io
                    .inputs
                    .locations
                    .get(location)
                    .and_then(|s| s.get(*component as usize))
                    .ok_or_else(|| format!("no input at location {location}"))?;
                Some(vec![u64::from(*x << 1)])
            }
            Op::LoadInputAttachment { .. } => {
                return Err("input attachments are not modelled by the IR interpreter".into())
            }
            Op::Texture(_) | Op::ImageStore(_) | Op::ImageAtomic(_) => {
                return Err("images are not modelled by the IR interpreter".into())
            }
            // The preamble split happens after every pass the interpreter checks.
            Op::LoadPreamble { .. } | Op::StorePreamble { .. } => {
                return Err("preambles are not modelled by the IR interpreter".into())
            }
            // One invocation alone has no subgroup.
            Op::Ballot(_) | Op::LaneRead(..) | Op::Reduce(..) => {
                return Err("subgroup operations are not modelled by the IR interpreter".into())
            }
            Op::StoreOutput {
                location,
                component,
                value,
            } => {
                let x = getv(&inv.vals, *value)?;
                let io = self.io.as_mut().ok_or("StoreOutput in a dispatch")?;
                let slot = io.outputs.locations.entry(*location).or_default();
                write_components(slot, *component, &x)?;
                None
            }
            Op::StoreBuiltin {
                builtin,
                component,
                value,
            } => {
                let x = getv(&inv.vals, *value)?;
                let io = self.io.as_mut().ok_or("StoreBuiltin in a dispatch")?;
                let o = &mut io.outputs;
                match builtin {
                    OutputBuiltin::Position => write_components(&mut o.position, *component, &x)?,
                    OutputBuiltin::PointSize => {
                        write_components(std::slice::from_mut(&mut o.point_size), *component, &x)?
                    }
                    OutputBuiltin::FragDepth => {
                        write_components(std::slice::from_mut(&mut o.frag_depth), *component, &x)?
                    }
                    OutputBuiltin::ClipDistance(k) => {
                        let slot = o
                            .clip_distance
                            .get_mut(usize::from(*k))
                            .ok_or("clip distance out of range")?;
                        write_components(std::slice::from_mut(slot), *component, &x)?
                    }
                    OutputBuiltin::SampleMask | OutputBuiltin::SecondBlendSource => {
                        return Err(format!("{builtin:?} output is not interpreted"))
                    }
                }
                None
            }
            Op::LoadPerVertex { .. } | Op::EmitVertex | Op::EndPrimitive => {
                return Err(format!("{op:?}: geometry shaders are not interpreted"));
            }
            Op::Discard => {
                let io = self.io.as_mut().ok_or("Discard in a dispatch")?;
                if io.stage != Stage::Fragment {
                    return Err("Discard outside a fragment shader".into());
                }
                io.discarded = true;
                None
            }
            _ => {
                let vals = &inv.vals;
                let r = eval_pure(sh, op, ty, &|v| {
                    vals.get(v.0 as usize).filter(|x| !x.is_empty()).cloned()
                });
                match r {
                    Some(r) => Some(r),
                    None => {
                        // Find out whether an operand was missing or the operation is undefined.
                        return Err(format!(
                            "cannot evaluate {op:?} (undefined operand or division by zero)"
                        ));
                    }
                }
            }
        };
        if let (Some(d), Some(r)) = (dst, result) {
            let slot = inv.vals.get_mut(d.0 as usize).ok_or("value out of range")?;
            *slot = r;
        }
        Ok(())
    }

    /// Runs an invocation until its next barrier or its end.
    fn run(&mut self, inv: &mut Invocation<'s>) -> Result<Stop, String> {
        loop {
            let Some(top) = inv.stack.last_mut() else {
                return Ok(Stop::Done);
            };
            if top.idx >= top.nodes.len() {
                if top.is_loop {
                    top.idx = 0;
                    top.inst = 0;
                    continue;
                }
                inv.stack.pop();
                continue;
            }
            let nodes = top.nodes;
            match &nodes[top.idx] {
                Node::Block(insts) => {
                    if top.inst >= insts.len() {
                        top.idx += 1;
                        top.inst = 0;
                        continue;
                    }
                    let inst = &insts[top.inst];
                    top.inst += 1;
                    self.steps += 1;
                    if self.steps > self.d.step_limit {
                        return Err("step limit reached (runaway loop?)".into());
                    }
                    self.exec(inv, inst.dst, &inst.op)?;
                    if inst.op == Op::WorkgroupBarrier {
                        return Ok(Stop::Barrier);
                    }
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = inv
                        .vals
                        .get(cond.0 as usize)
                        .and_then(|v| v.first().copied())
                        .ok_or("undefined If condition")?;
                    top.idx += 1;
                    let body = if c != 0 { then_body } else { else_body };
                    inv.stack.push(Frame {
                        nodes: body,
                        idx: 0,
                        inst: 0,
                        is_loop: false,
                    });
                }
                Node::Loop { body } => {
                    top.idx += 1;
                    inv.stack.push(Frame {
                        nodes: body,
                        idx: 0,
                        inst: 0,
                        is_loop: true,
                    });
                }
                Node::Break => loop {
                    let f = inv.stack.pop().ok_or("Break outside a loop")?;
                    if f.is_loop {
                        break;
                    }
                },
                Node::Continue => loop {
                    let f = inv.stack.last_mut().ok_or("Continue outside a loop")?;
                    if f.is_loop {
                        f.idx = 0;
                        f.inst = 0;
                        break;
                    }
                    inv.stack.pop();
                },
                Node::Return => inv.stack.clear(),
            }
        }
    }
}

/// Runs one dispatch of `shader`.
pub fn run(shader: &Shader, d: &Dispatch<'_>, global: &mut dyn GlobalMemory) -> Result<(), String> {
    let ls = shader.local_size;
    let count = (ls[0] * ls[1] * ls[2]) as usize;
    let mut m = Machine {
        sh: shader,
        d,
        global,
        shared: Vec::new(),
        group: [0; 3],
        steps: 0,
        io: None,
    };
    for gz in 0..d.workgroups[2] {
        for gy in 0..d.workgroups[1] {
            for gx in 0..d.workgroups[0] {
                m.group = [gx, gy, gz];
                m.shared = vec![0; shader.shared_size as usize];
                let mut invs: Vec<Invocation> = (0..count)
                    .map(|i| {
                        let i = i as u32;
                        Invocation {
                            vals: vec![Vec::new(); shader.value_types.len()],
                            vars: vec![Vec::new(); shader.var_types.len()],
                            scratch: vec![0; shader.scratch_size as usize],
                            stack: vec![Frame {
                                nodes: &shader.body,
                                idx: 0,
                                inst: 0,
                                is_loop: false,
                            }],
                            local: [i % ls[0], (i / ls[0]) % ls[1], i / (ls[0] * ls[1])],
                            index: i,
                        }
                    })
                    .collect();
                let mut done = vec![false; count];
                while done.iter().any(|d| !d) {
                    for (k, inv) in invs.iter_mut().enumerate() {
                        if done[k] {
                            continue;
                        }
                        if let Stop::Done = m.run(inv)? {
                            done[k] = true;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn write_components(slot: &mut [Option<u32>], first: u8, x: &[u64]) -> Result<(), String> {
    let f = first as usize;
    let dst = slot
        .get_mut(f..f + x.len())
        .ok_or("output components out of range")?;
    for (d, v) in dst.iter_mut().zip(x) {
        *d = Some(*v as u32);
    }
    Ok(())
}

/// What one vertex or fragment invocation reads. The rasterizer's work (interpolation,
/// coverage) is the caller's: fragment inputs are the already-interpolated values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageInputs {
    /// Vertex attributes (vertex shaders) or varyings (fragment shaders): four 32-bit
    /// components per location.
    pub locations: BTreeMap<u32, [u32; 4]>,
    pub vertex_index: u32,
    pub instance_index: u32,
    pub frag_coord: [f32; 4],
    /// gl_PointCoord of a fragment of a point.
    pub point_coord: [f32; 2],
    pub front_facing: bool,
    pub sample_id: u32,
}

/// What one invocation wrote: `None` for a component never written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageOutputs {
    pub locations: BTreeMap<u32, [Option<u32>; 4]>,
    pub position: [Option<u32>; 4],
    pub point_size: Option<u32>,
    pub frag_depth: Option<u32>,
    /// gl_ClipDistance[k] as the clipper receives it.
    pub clip_distance: [Option<u32>; super::MAX_CLIP_DISTANCES as usize],
}

/// Runs `shader` once per element of `items`, each invocation on its own (graphics stages
/// have no barriers or shared memory). `d.workgroups` is ignored. A fragment invocation that
/// executed `Discard` yields `None`.
fn run_graphics(
    shader: &GraphicsShader,
    stage: Stage,
    d: &Dispatch<'_>,
    global: &mut dyn GlobalMemory,
    items: &[StageInputs],
) -> Result<Vec<Option<StageOutputs>>, String> {
    if shader.stage != stage {
        return Err(format!("a {:?} shader run as {stage:?}", shader.stage));
    }
    let sh = &shader.shader;
    let mut m = Machine {
        sh,
        d,
        global,
        shared: Vec::new(),
        group: [0; 3],
        steps: 0,
        io: None,
    };
    let mut out = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        m.io = Some(GraphicsIo {
            stage,
            inputs: item.clone(),
            outputs: StageOutputs::default(),
            discarded: false,
        });
        let mut inv = Invocation {
            vals: vec![Vec::new(); sh.value_types.len()],
            vars: vec![Vec::new(); sh.var_types.len()],
            scratch: vec![0; sh.scratch_size as usize],
            stack: vec![Frame {
                nodes: &sh.body,
                idx: 0,
                inst: 0,
                is_loop: false,
            }],
            local: [0; 3],
            index: k as u32,
        };
        if let Stop::Barrier = m.run(&mut inv)? {
            return Err("workgroup barrier in a graphics shader".into());
        }
        let io = m.io.take().ok_or("lost the invocation's outputs")?;
        out.push((!io.discarded).then_some(io.outputs));
    }
    Ok(out)
}

/// Runs a vertex shader over `vertices` and returns each vertex's outputs.
pub fn run_vertices(
    shader: &GraphicsShader,
    d: &Dispatch<'_>,
    global: &mut dyn GlobalMemory,
    vertices: &[StageInputs],
) -> Result<Vec<StageOutputs>, String> {
    run_graphics(shader, Stage::Vertex, d, global, vertices)?
        .into_iter()
        .map(|o| o.ok_or_else(|| "a vertex was discarded".to_string()))
        .collect()
}

/// Runs a fragment shader over `fragments`: each result is the fragment's outputs, or
/// `None` if it was discarded.
pub fn run_fragments(
    shader: &GraphicsShader,
    d: &Dispatch<'_>,
    global: &mut dyn GlobalMemory,
    fragments: &[StageInputs],
) -> Result<Vec<Option<StageOutputs>>, String> {
    run_graphics(shader, Stage::Fragment, d, global, fragments)
}
