//! Vertex attribute fetch: AGX has no fixed-function vertex fetch, so a vertex shader's
//! `LoadInput(location)` becomes loads from the vertex buffer its attribute names and the
//! conversion of the attribute's format (docs/render-abi.md sections 3 and 5).
//!
//! Each attribute read by the shader is fetched once, at entry (inputs do not change while
//! the shader runs). Its vertex buffer table entry in the root table gives the address of
//! the bound offset, the readable bytes from there and the stride; the element is the
//! vertex index (or the instance index for per-instance bindings). With robustness enabled,
//! an element whose bytes do not all lie in the readable range reads as zero words, which
//! the format conversion turns into zero components before the missing ones are filled in;
//! the load itself sits under an `if`, so an out-of-range address is never touched. Without
//! robustness an out-of-range fetch is the application's error (Vulkan leaves it undefined)
//! and the loads are unconditional.
//!
//! Components of 8 or 16 bits may start at any byte multiple of their size. Without
//! robustness each is loaded as an element of its own width (one `device_load` of the byte
//! or halfword format reads them together); with it, and for half floats, the attribute is
//! read as the aligned words around it and shifted into place.

use crate::abi;
use crate::graphics_api::{AttribComponent, PackedNumeric, VertexFormat, VertexInputLayout};
use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Scalar, Shader, Space, SysVal, Type, Value,
};
use crate::CompileError;

/// Straight-line IR under construction.
struct Emit<'s> {
    sh: &'s mut Shader,
    insts: Vec<Inst>,
}

impl Emit<'_> {
    fn def(&mut self, ty: Type, op: Op) -> Value {
        let v = self.sh.new_value(ty);
        self.insts.push(Inst { dst: Some(v), op });
        v
    }

    fn effect(&mut self, op: Op) {
        self.insts.push(Inst { dst: None, op });
    }

    fn k32(&mut self, x: u32) -> Value {
        self.def(Type::I32, Op::Const(Constant(vec![u64::from(x)])))
    }

    fn kf(&mut self, x: f32) -> Value {
        self.def(Type::F32, Op::Const(Constant(vec![u64::from(x.to_bits())])))
    }

    fn bin(&mut self, ty: Type, op: BinOp, a: Value, b: Value) -> Value {
        self.def(ty, Op::Binary(op, a, b))
    }

    fn i(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        self.bin(Type::I32, op, a, b)
    }

    fn ik(&mut self, op: BinOp, a: Value, k: u32) -> Value {
        let k = self.k32(k);
        self.i(op, a, k)
    }

    fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        self.def(Type::BOOL, Op::Cmp(op, a, b))
    }

    fn select(&mut self, ty: Type, c: Value, a: Value, b: Value) -> Value {
        self.def(ty, Op::Select(c, a, b))
    }

    fn conv(&mut self, ty: Type, op: ConvOp, a: Value) -> Value {
        self.def(ty, Op::Conv(op, a))
    }

    fn ubfe(&mut self, a: Value, at: u32, bits: u32) -> Value {
        let (o, c) = (self.k32(at), self.k32(bits));
        self.def(Type::I32, Op::UBitfieldExtract(a, o, c))
    }

    fn sbfe(&mut self, a: Value, at: u32, bits: u32) -> Value {
        let (o, c) = (self.k32(at), self.k32(bits));
        self.def(Type::I32, Op::SBitfieldExtract(a, o, c))
    }

    fn root(&mut self, ty: Type, off: u32) -> Value {
        let a = self.k32(off);
        self.def(
            ty,
            Op::Load {
                space: Space::Root,
                addr: a,
                align: ty.scalar.bits() / 8,
            },
        )
    }

    /// The float `n / scale` of an integer (signed results clamped at -1).
    fn norm(&mut self, n: Value, signed: bool, scale: f32) -> Value {
        let op = if signed { ConvOp::SToF } else { ConvOp::UToF };
        let f = self.conv(Type::F32, op, n);
        let k = self.kf(1.0 / scale);
        let x = self.bin(Type::F32, BinOp::FMul, f, k);
        if signed {
            let m = self.kf(-1.0);
            self.bin(Type::F32, BinOp::FMax, x, m)
        } else {
            x
        }
    }

    /// f32 bits (as I32) of half-float bits in the low 16 bits of `h`.
    fn half_bits(&mut self, h: Value) -> Value {
        let sign = self.ik(BinOp::And, h, 0x8000);
        let sign = self.ik(BinOp::Shl, sign, 16);
        let e = self.ubfe(h, 10, 5);
        let m = self.ik(BinOp::And, h, 0x3ff);
        let mag = self.ik(BinOp::And, h, 0x7fff);
        let mag = self.ik(BinOp::Shl, mag, 13);
        let normal = self.ik(BinOp::IAdd, mag, 112 << 23);
        let ms = self.ik(BinOp::Shl, m, 13);
        let special = self.ik(BinOp::Or, ms, 0x7f80_0000);
        let mf = self.conv(Type::F32, ConvOp::UToF, m);
        let k = self.kf(1.0 / 16_777_216.0);
        let sub = self.bin(Type::F32, BinOp::FMul, mf, k);
        let sub = self.conv(Type::I32, ConvOp::Bitcast, sub);
        let zero = self.k32(0);
        let is_sub = self.cmp(CmpOp::IEq, e, zero);
        let k31 = self.k32(31);
        let is_special = self.cmp(CmpOp::IEq, e, k31);
        let v = self.select(Type::I32, is_special, special, normal);
        let v = self.select(Type::I32, is_sub, sub, v);
        self.i(BinOp::Or, v, sign)
    }
}

/// Bytes of one component, or of the whole attribute for packed formats.
fn component_bytes(c: AttribComponent) -> u32 {
    use AttribComponent::*;
    match c {
        F32 | U32 | S32 => 4,
        F16 | Unorm16 | Snorm16 | Uint16 | Sint16 | Uscaled16 | Sscaled16 => 2,
        Unorm8 | Snorm8 | Uint8 | Sint8 | Uscaled8 | Sscaled8 => 1,
    }
}

/// Bytes the attribute occupies and the alignment of its address.
fn attribute_size(f: VertexFormat) -> (u32, u32) {
    match f {
        VertexFormat::Plain { comp, count, .. } => {
            let b = component_bytes(comp);
            (b * u32::from(count), b)
        }
        VertexFormat::Packed1010102 { .. } => (4, 4),
    }
}

fn is_integer_format(f: VertexFormat) -> bool {
    use AttribComponent::*;
    match f {
        VertexFormat::Plain { comp, .. } => {
            matches!(comp, U32 | S32 | Uint8 | Sint8 | Uint16 | Sint16)
        }
        VertexFormat::Packed1010102 { numeric, .. } => {
            matches!(numeric, PackedNumeric::Uint | PackedNumeric::Sint)
        }
    }
}

/// The element type the 8- or 16-bit integer or normalised components of a format load as
/// (`None`: the attribute loads in whole words).
fn small_element_of(f: VertexFormat) -> Option<Scalar> {
    use AttribComponent::*;
    match f {
        VertexFormat::Plain { comp, .. } => match comp {
            Unorm8 | Snorm8 | Uint8 | Sint8 | Uscaled8 | Sscaled8 => Some(Scalar::I8),
            Unorm16 | Snorm16 | Uint16 | Sint16 | Uscaled16 | Sscaled16 => Some(Scalar::I16),
            F32 | U32 | S32 | F16 => None,
        },
        VertexFormat::Packed1010102 { .. } => None,
    }
}

/// The four component values (I32 for integer formats, F32 otherwise) of an attribute
/// loaded as one 8- or 16-bit element per component (`small_element`).
fn convert_elements(
    e: &mut Emit<'_>,
    f: VertexFormat,
    elems: &[Value],
) -> Result<[Value; 4], CompileError> {
    use AttribComponent::*;
    let (VertexFormat::Plain { comp, bgra, .. }, Some(bits)) =
        (f, small_element_of(f).map(Scalar::bits))
    else {
        return Err(CompileError::Internal(format!(
            "{f:?} is not loaded as small elements"
        )));
    };
    let count = elems.len();
    if !(1..=4).contains(&count) || (bgra && count < 3) {
        return Err(CompileError::Unsupported(format!(
            "vertex format {comp:?} x{count} (bgra {bgra})"
        )));
    }
    let (zero, one) = if is_integer_format(f) {
        (e.k32(0), e.k32(1))
    } else {
        (e.kf(0.0), e.kf(1.0))
    };
    let mut out = [zero, zero, zero, one];
    for (o, &v) in out.iter_mut().zip(elems) {
        *o = match comp {
            Uint8 | Uint16 => e.conv(Type::I32, ConvOp::UToU, v),
            Sint8 | Sint16 => e.conv(Type::I32, ConvOp::SToS, v),
            Unorm8 | Unorm16 => e.norm(v, false, ((1u32 << bits) - 1) as f32),
            Snorm8 | Snorm16 => e.norm(v, true, ((1u32 << (bits - 1)) - 1) as f32),
            Uscaled8 | Uscaled16 => e.conv(Type::F32, ConvOp::UToF, v),
            Sscaled8 | Sscaled16 => e.conv(Type::F32, ConvOp::SToF, v),
            F32 | U32 | S32 | F16 => {
                return Err(CompileError::Internal(format!(
                    "{comp:?} is not loaded as small elements"
                )))
            }
        };
    }
    if bgra {
        out.swap(0, 2);
    }
    Ok(out)
}

/// The four component values (I32 for integer formats, F32 otherwise) of an attribute
/// whose bytes start at bit 0 of `words`.
fn convert(e: &mut Emit<'_>, f: VertexFormat, words: &[Value]) -> Result<[Value; 4], CompileError> {
    let int = is_integer_format(f);
    let (zero, one) = if int {
        (e.k32(0), e.k32(1))
    } else {
        (e.kf(0.0), e.kf(1.0))
    };
    let mut out = [zero, zero, zero, one];
    match f {
        VertexFormat::Plain { comp, count, bgra } => {
            if !(1..=4).contains(&count) || (bgra && count < 3) {
                return Err(CompileError::Unsupported(format!(
                    "vertex format {comp:?} x{count} (bgra {bgra})"
                )));
            }
            let b = component_bytes(comp);
            for j in 0..u32::from(count) {
                let w = *words
                    .get((j * b / 4) as usize)
                    .ok_or_else(|| CompileError::Internal("vertex fetch word count".into()))?;
                let at = (j * b % 4) * 8;
                let bits = b * 8;
                use AttribComponent::*;
                let v = match comp {
                    F32 => e.conv(Type::F32, ConvOp::Bitcast, w),
                    U32 | S32 => w,
                    F16 => {
                        let h = e.ubfe(w, at, 16);
                        let x = e.half_bits(h);
                        e.conv(Type::F32, ConvOp::Bitcast, x)
                    }
                    Unorm8 | Unorm16 => {
                        let n = e.ubfe(w, at, bits);
                        e.norm(n, false, ((1u32 << bits) - 1) as f32)
                    }
                    Snorm8 | Snorm16 => {
                        let n = e.sbfe(w, at, bits);
                        e.norm(n, true, ((1u32 << (bits - 1)) - 1) as f32)
                    }
                    Uint8 | Uint16 => e.ubfe(w, at, bits),
                    Sint8 | Sint16 => e.sbfe(w, at, bits),
                    Uscaled8 | Uscaled16 => {
                        let n = e.ubfe(w, at, bits);
                        e.conv(Type::F32, ConvOp::UToF, n)
                    }
                    Sscaled8 | Sscaled16 => {
                        let n = e.sbfe(w, at, bits);
                        e.conv(Type::F32, ConvOp::SToF, n)
                    }
                };
                out[j as usize] = v;
            }
            if bgra {
                out.swap(0, 2);
            }
        }
        VertexFormat::Packed1010102 { numeric, bgra } => {
            let w = words[0];
            for (k, o) in out.iter_mut().enumerate() {
                let bits = if k == 3 { 2 } else { 10 };
                let at = 10 * k as u32;
                *o = match numeric {
                    PackedNumeric::Unorm => {
                        let n = e.ubfe(w, at, bits);
                        e.norm(n, false, ((1u32 << bits) - 1) as f32)
                    }
                    PackedNumeric::Snorm => {
                        let n = e.sbfe(w, at, bits);
                        e.norm(n, true, ((1u32 << (bits - 1)) - 1) as f32)
                    }
                    PackedNumeric::Uint => e.ubfe(w, at, bits),
                    PackedNumeric::Sint => e.sbfe(w, at, bits),
                    PackedNumeric::Uscaled => {
                        let n = e.ubfe(w, at, bits);
                        e.conv(Type::F32, ConvOp::UToF, n)
                    }
                    PackedNumeric::Sscaled => {
                        let n = e.sbfe(w, at, bits);
                        e.conv(Type::F32, ConvOp::SToF, n)
                    }
                };
            }
            // A2R10G10B10 holds blue in the low bits.
            if bgra {
                out.swap(0, 2);
            }
        }
    }
    Ok(out)
}

/// Emits the fetch of one attribute at the shader's entry: nodes to run first and the four
/// component values.
fn fetch(
    sh: &mut Shader,
    layout: &VertexInputLayout,
    location: u32,
    robust: bool,
) -> Result<(Vec<Node>, [Value; 4]), CompileError> {
    let attr = layout
        .attributes
        .iter()
        .find(|a| a.location == location)
        .ok_or_else(|| {
            CompileError::Unsupported(format!(
                "vertex shader input at location {location} has no vertex attribute"
            ))
        })?;
    if attr.binding >= abi::MAX_VERTEX_BUFFERS {
        return Err(CompileError::Limit(format!(
            "vertex binding {} (at most {})",
            attr.binding,
            abi::MAX_VERTEX_BUFFERS - 1
        )));
    }
    let binding = layout.bindings.iter().find(|b| b.binding == attr.binding);
    let per_instance = binding.is_some_and(|b| b.per_instance);
    let divisor = binding.map_or(1, |b| b.divisor);
    let (size, align) = attribute_size(attr.format);
    // Without robustness, 8- and 16-bit integer and normalised components load as elements of
    // their own width, at any alignment (one `device_load` of the format reads them all).
    let small_elements = if robust {
        None
    } else {
        small_element_of(attr.format)
    };
    let nwords = if align == 4 || small_elements.is_some() {
        size / 4
    } else {
        size.div_ceil(4) + 1
    };
    let mut nodes = Vec::new();
    let mut e = Emit {
        sh,
        insts: Vec::new(),
    };
    let entry = abi::VERTEX_BUFFERS_OFFSET + abi::VERTEX_BUFFER_ENTRY_SIZE * attr.binding;
    let base = e.root(Type::I64, entry);
    let stride = e.root(Type::I32, entry + 12);
    let sv = if per_instance {
        SysVal::InstanceIndex
    } else {
        SysVal::VertexIndex
    };
    let mut index = e.def(Type::I32, Op::SysVal(sv));
    if per_instance && divisor != 1 {
        // Vulkan's element is firstInstance + (instance - firstInstance) / divisor, and
        // firstInstance alone for a divisor of 0.
        let first = e.root(Type::I32, abi::FIRST_INSTANCE_OFFSET);
        let step = if divisor == 0 {
            e.k32(0)
        } else {
            let rel = e.i(BinOp::ISub, index, first);
            let d = e.k32(divisor);
            e.i(BinOp::UDiv, rel, d)
        };
        index = e.i(BinOp::IAdd, first, step);
    }
    let scaled = e.i(BinOp::IMul, index, stride);
    let byte = e.ik(BinOp::IAdd, scaled, attr.offset);
    let zero = e.k32(0);
    let in_range = if robust {
        let readable = e.root(Type::I32, entry + 8);
        let size_v = e.k32(size);
        let fits = e.cmp(CmpOp::UGe, readable, size_v);
        let last = e.i(BinOp::ISub, readable, size_v);
        let before = e.cmp(CmpOp::ULe, byte, last);
        let f = e.def(Type::BOOL, Op::Const(Constant(vec![0])));
        Some(e.select(Type::BOOL, fits, before, f))
    } else {
        None
    };
    // Robust words start as zero and are loaded only in range.
    let vars: Option<Vec<_>> =
        in_range.map(|_| (0..nwords).map(|_| e.sh.new_var(Type::I32)).collect());
    for &v in vars.iter().flatten() {
        e.effect(Op::StoreVar(v, zero));
    }
    // Aligned words are at constant offsets from the element's address, which the loads take
    // as their index, and which every attribute of the binding shares (no buffer reaches
    // 4 GiB, so adding past the 32-bit offset is exact). Otherwise the attribute's address,
    // not its offset, decides where the aligned words around it start (the bound offset may
    // be odd).
    let (low, start, first_offset, widen) = if align == 4 || small_elements.is_some() {
        (zero, scaled, attr.offset, ConvOp::UToU)
    } else {
        let base_lo = e.root(Type::I32, entry);
        let addr_lo = e.i(BinOp::IAdd, base_lo, byte);
        let low = e.ik(BinOp::And, addr_lo, 3);
        let word_byte = e.i(BinOp::ISub, byte, low);
        (low, word_byte, 0, ConvOp::SToS)
    };
    nodes.push(Node::Block(std::mem::take(&mut e.insts)));
    let wide = e.conv(Type::I64, widen, start);
    let first = e.bin(Type::I64, BinOp::IAdd, base, wide);
    if let (Some(scalar), VertexFormat::Plain { count, .. }) = (small_elements, attr.format) {
        let bytes = scalar.bits() / 8;
        let mut elems = Vec::new();
        for j in 0..u32::from(count) {
            let off = e.k32(first_offset + j * bytes);
            let off = e.conv(Type::I64, ConvOp::UToU, off);
            let addr = e.bin(Type::I64, BinOp::IAdd, first, off);
            elems.push(e.def(
                Type::scalar(scalar),
                Op::Load {
                    space: Space::Global,
                    addr,
                    align: bytes,
                },
            ));
        }
        let vals = convert_elements(&mut e, attr.format, &elems)?;
        nodes.push(Node::Block(std::mem::take(&mut e.insts)));
        return Ok((nodes, vals));
    }
    let mut loaded = Vec::new();
    for k in 0..nwords as usize {
        let offset = first_offset + 4 * k as u32;
        let addr = if offset == 0 {
            first
        } else {
            let off = e.k32(offset);
            let off = e.conv(Type::I64, ConvOp::UToU, off);
            e.bin(Type::I64, BinOp::IAdd, first, off)
        };
        let w = e.def(
            Type::I32,
            Op::Load {
                space: Space::Global,
                addr,
                align: 4,
            },
        );
        match &vars {
            Some(vars) => e.effect(Op::StoreVar(vars[k], w)),
            None => loaded.push(w),
        }
    }
    let loads = vec![Node::Block(std::mem::take(&mut e.insts))];
    match in_range {
        Some(cond) => nodes.push(Node::If {
            cond,
            then_body: loads,
            else_body: Vec::new(),
        }),
        None => nodes.extend(loads),
    }
    let raw: Vec<Value> = match vars {
        Some(vars) => vars
            .iter()
            .map(|&v| e.def(Type::I32, Op::LoadVar(v)))
            .collect(),
        None => loaded,
    };
    let words = if align == 4 {
        raw
    } else {
        // Shift the words so the attribute's first byte is bit 0 of word 0.
        let sh = e.ik(BinOp::Shl, low, 3);
        let k32 = e.k32(32);
        let back = e.i(BinOp::ISub, k32, sh);
        let aligned = e.cmp(CmpOp::IEq, sh, zero);
        let mut out = Vec::new();
        for k in 0..raw.len() - 1 {
            let lo = e.i(BinOp::UShr, raw[k], sh);
            let hi = e.i(BinOp::Shl, raw[k + 1], back);
            let both = e.i(BinOp::Or, lo, hi);
            out.push(e.select(Type::I32, aligned, raw[k], both));
        }
        out
    };
    let vals = convert(&mut e, attr.format, &words)?;
    nodes.push(Node::Block(std::mem::take(&mut e.insts)));
    Ok((nodes, vals))
}

/// Collects the locations of every `LoadInput` in `body`.
fn input_locations(body: &[Node], out: &mut Vec<u32>) {
    for n in body {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    if let Op::LoadInput { location, .. } = i.op {
                        if !out.contains(&location) {
                            out.push(location);
                        }
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                input_locations(then_body, out);
                input_locations(else_body, out);
            }
            Node::Loop { body } => input_locations(body, out),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// The input locations a vertex shader reads (its `LoadInput`s), in increasing order: the
/// attributes a vertex input layout must give it, and the only ones its fetch depends on.
pub fn vertex_input_locations(sh: &Shader) -> Vec<u32> {
    let mut locations = Vec::new();
    input_locations(&sh.body, &mut locations);
    locations.sort_unstable();
    locations
}

/// Lowers every `LoadInput` of a vertex shader (after the other passes: inputs are scalar)
/// to fetches through the vertex buffer table; `robust`: out-of-range fetches read zero.
pub fn lower_vertex_input(
    sh: &mut Shader,
    layout: &VertexInputLayout,
    robust: bool,
) -> Result<(), CompileError> {
    let locations = vertex_input_locations(sh);
    let mut prologue = Vec::new();
    let mut values: Vec<(u32, [Value; 4])> = Vec::new();
    for loc in locations {
        let (nodes, vals) = fetch(sh, layout, loc, robust)?;
        prologue.extend(nodes);
        values.push((loc, vals));
    }
    if values.is_empty() {
        return Ok(());
    }
    super::rewrite(sh, &mut |sh, inst, out| {
        let (
            Some(dst),
            Op::LoadInput {
                location,
                component,
                ..
            },
        ) = (inst.dst, &inst.op)
        else {
            out.inst(inst);
            return Ok(());
        };
        let vals = values
            .iter()
            .find(|(l, _)| l == location)
            .map(|(_, v)| *v)
            .ok_or_else(|| CompileError::Internal("vertex input not fetched".into()))?;
        let v = *vals.get(usize::from(*component)).ok_or_else(|| {
            CompileError::Unsupported(format!("vertex input component {component}"))
        })?;
        let want = sh.ty(dst);
        let op = if sh.ty(v) == want {
            Op::Copy(v)
        } else if want.scalar.bits() == 32 {
            Op::Conv(ConvOp::Bitcast, v)
        } else {
            return Err(CompileError::Unsupported(format!(
                "vertex input of type {want:?}"
            )));
        };
        out.inst(Inst { dst: Some(dst), op });
        Ok(())
    })?;
    prologue.append(&mut sh.body);
    sh.body = prologue;
    // Attributes of one binding share the element's address.
    super::cse(sh)?;
    // The front end's passes have run already: an instance divisor's division is lowered
    // here (lower_int_div leaves the rest of the shader as it is).
    if layout
        .bindings
        .iter()
        .any(|b| b.per_instance && !matches!(b.divisor, 0 | 1))
    {
        super::lower_int_div(sh)?;
    }
    Ok(())
}
