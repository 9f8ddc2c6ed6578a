//! Texture operations reach their descriptors in set memory (docs/render-abi.md section 7).
//!
//! * The texture becomes `TexSource::Bindless`: the set plus the descriptor's byte offset,
//!   binding offset + element x `abi::descriptor_size(kind)`.
//! * The sampler becomes the first word of its sampler entry (`SamplerSource::Entry`),
//!   loaded from set memory: the heap index and the f16 LOD bias, which the back end adds
//!   (G13 samplers have no bias field; Mesa adds it in the shader too).
//! * A sampled array layer is rounded to nearest even and clamped to [0, layers - 1], as
//!   Vulkan asks; the hardware takes an integer layer and does not clamp. The layer count
//!   is read from the texture descriptor.
//! * Storage image writes (`Op::ImageStore`) name the PBE descriptor at
//!   `abi::STORAGE_PBE_OFFSET` of the element; reads use its texture descriptor at 0.
//! * Size, level and sample queries become loads of the descriptor's words and the field
//!   extractions `hw::g13::control::descriptors::texture` places (the one home of those
//!   bit positions). A view's levels and its base level come from the descriptor's first
//!   and last level fields; a null descriptor answers 0.
//!
//! Runs after `lower_descriptors` (whose bounds checks must not see these loads: descriptor
//! words are always inside the set) and before `scalarize`.

use hw::g13::control::bits::Field;
use hw::g13::control::descriptors::{texture as tf, SampleCount};

use crate::abi;
use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, DescriptorRef, ImageDim, Inst, Op, SamplerSource, Shader,
    Space, Tex, TexLod, TexOp, TexSource, Type, UnOp, Value,
};
use crate::{CompileError, DescriptorKind, ResourceLayout};

use super::{rewrite, Out};

fn internal(what: impl Into<String>) -> CompileError {
    CompileError::Internal(what.into())
}

pub(super) fn konst(sh: &mut Shader, out: &mut Out, v: u32) -> Value {
    out.def(sh, Type::I32, Op::Const(Constant(vec![u64::from(v)])))
}

pub(super) fn bin(sh: &mut Shader, out: &mut Out, op: BinOp, a: Value, b: Value) -> Value {
    let t = sh.ty(a);
    out.def(sh, t, Op::Binary(op, a, b))
}

/// Byte offset in set memory of element `d.index` of a binding of one of `kinds`, plus
/// `extra`.
pub(super) fn element_offset(
    sh: &mut Shader,
    out: &mut Out,
    layout: &ResourceLayout,
    d: DescriptorRef,
    kinds: &[DescriptorKind],
    extra: impl Fn(DescriptorKind) -> u32,
) -> Result<Value, CompileError> {
    if d.set >= abi::MAX_SETS {
        return Err(CompileError::InvalidSpirv(format!(
            "descriptor set {} beyond {}",
            d.set,
            abi::MAX_SETS
        )));
    }
    let b = layout
        .sets
        .get(d.set as usize)
        .and_then(|s| s.as_ref())
        .and_then(|s| s.bindings.iter().find(|b| b.binding == d.binding))
        .ok_or_else(|| {
            CompileError::InvalidSpirv(format!(
                "set {} binding {} is not in the pipeline layout",
                d.set, d.binding
            ))
        })?;
    if !kinds.contains(&b.kind) {
        return Err(CompileError::InvalidSpirv(format!(
            "set {} binding {} is a {:?}, used as {kinds:?}",
            d.set, d.binding, b.kind
        )));
    }
    let stride = konst(sh, out, abi::descriptor_size(b.kind));
    let scaled = bin(sh, out, BinOp::IMul, d.index, stride);
    let base = konst(sh, out, b.offset + extra(b.kind));
    Ok(bin(sh, out, BinOp::IAdd, scaled, base))
}

/// The I32 word at byte `offset + byte` of set `set`'s memory.
pub(super) fn set_word(
    sh: &mut Shader,
    out: &mut Out,
    set: u32,
    offset: Value,
    byte: u32,
) -> Value {
    let root = konst(sh, out, abi::set_address_offset(set));
    let set_addr = out.def(
        sh,
        Type::I64,
        Op::Load {
            space: Space::Root,
            addr: root,
            align: 8,
        },
    );
    let off = if byte == 0 {
        offset
    } else {
        let b = konst(sh, out, byte);
        bin(sh, out, BinOp::IAdd, offset, b)
    };
    let off64 = out.def(sh, Type::I64, Op::Conv(ConvOp::UToU, off));
    let addr = out.def(sh, Type::I64, Op::Binary(BinOp::IAdd, set_addr, off64));
    out.def(
        sh,
        Type::I32,
        Op::Load {
            space: Space::Global,
            addr,
            align: 4,
        },
    )
}

/// Reads fields of one texture descriptor, loading each 32-bit word once.
pub(super) struct Descriptor {
    pub set: u32,
    pub offset: Value,
    pub words: [Option<Value>; 6],
}

impl Descriptor {
    fn word(&mut self, sh: &mut Shader, out: &mut Out, i: usize) -> Value {
        if let Some(w) = self.words[i] {
            return w;
        }
        let w = set_word(sh, out, self.set, self.offset, 4 * i as u32);
        self.words[i] = Some(w);
        w
    }

    /// The raw bits of field `f` (up to 32 bits wide, possibly across two words).
    pub fn field(
        &mut self,
        sh: &mut Shader,
        out: &mut Out,
        f: Field,
    ) -> Result<Value, CompileError> {
        let (first, last) = (f.start / 32, (f.start + f.width - 1) / 32);
        if f.width > 32 || last as usize >= self.words.len() {
            return Err(internal(format!("texture descriptor field {}", f.name)));
        }
        let lo_bit = f.start % 32;
        let w = self.word(sh, out, first as usize);
        let lo_width = f.width.min(32 - lo_bit);
        let (o, n) = (konst(sh, out, lo_bit), konst(sh, out, lo_width));
        let lo = out.def(sh, Type::I32, Op::UBitfieldExtract(w, o, n));
        if first == last {
            return Ok(lo);
        }
        let w2 = self.word(sh, out, last as usize);
        let (z, n2) = (konst(sh, out, 0), konst(sh, out, f.width - lo_width));
        let hi = out.def(sh, Type::I32, Op::UBitfieldExtract(w2, z, n2));
        let s = konst(sh, out, lo_width);
        let hi = bin(sh, out, BinOp::Shl, hi, s);
        Ok(bin(sh, out, BinOp::Or, lo, hi))
    }

    /// A field `Texture::pack` stores minus one (width, height, depth or layers), as the
    /// count.
    fn count(&mut self, sh: &mut Shader, out: &mut Out, f: Field) -> Result<Value, CompileError> {
        let m1 = self.field(sh, out, f)?;
        let one = konst(sh, out, 1);
        Ok(bin(sh, out, BinOp::IAdd, m1, one))
    }
}

/// Layers a sampled array layer is clamped against: the descriptor's depth, which counts
/// cubes for cube arrays (as Mesa and `hw::g13::image_desc` pack it).
fn layer_count(
    sh: &mut Shader,
    out: &mut Out,
    desc: &mut Descriptor,
) -> Result<Value, CompileError> {
    desc.count(sh, out, tf::DEPTH)
}

/// Round to nearest even, then clamp to [0, layers - 1] (Vulkan's array layer selection).
fn clamp_layer(
    sh: &mut Shader,
    out: &mut Out,
    desc: &mut Descriptor,
    layer: Value,
) -> Result<Value, CompileError> {
    let r = out.def(sh, Type::F32, Op::Unary(UnOp::FRoundEven, layer));
    let zero = out.def(sh, Type::F32, Op::Const(Constant(vec![0])));
    // Negative layers clamp to 0 before the conversion (which would saturate anyway).
    let r = bin(sh, out, BinOp::FMax, r, zero);
    let i = out.def(sh, Type::I32, Op::Conv(ConvOp::FToU, r));
    let n = layer_count(sh, out, desc)?;
    let one = konst(sh, out, 1);
    let max = bin(sh, out, BinOp::ISub, n, one);
    Ok(bin(sh, out, BinOp::UMin, i, max))
}

/// `max(size >> level, 1)`.
fn minify(sh: &mut Shader, out: &mut Out, size: Value, level: Value) -> Value {
    let s = bin(sh, out, BinOp::UShr, size, level);
    let one = konst(sh, out, 1);
    bin(sh, out, BinOp::UMax, s, one)
}

/// The components of a size, level or sample query.
fn query(
    sh: &mut Shader,
    out: &mut Out,
    desc: &mut Descriptor,
    t: &Tex,
) -> Result<Vec<Value>, CompileError> {
    match t.op {
        TexOp::QueryLevels => {
            let first = desc.field(sh, out, tf::FIRST_LEVEL)?;
            let last = desc.field(sh, out, tf::LAST_LEVEL)?;
            let d = bin(sh, out, BinOp::ISub, last, first);
            let one = konst(sh, out, 1);
            Ok(vec![bin(sh, out, BinOp::IAdd, d, one)])
        }
        TexOp::QuerySamples => {
            let bit = desc.field(sh, out, tf::SAMPLES)?;
            let four = konst(sh, out, SampleCount::Four.bits() as u32);
            let is4 = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::IEq, bit, four));
            let (a, b) = (konst(sh, out, 4), konst(sh, out, 2));
            Ok(vec![out.def(sh, Type::I32, Op::Select(is4, a, b))])
        }
        TexOp::QuerySize => {
            // The level asked for, from the view's base level.
            let base = desc.field(sh, out, tf::FIRST_LEVEL)?;
            let level = match t.lod {
                TexLod::Lod(l) => bin(sh, out, BinOp::IAdd, l, base),
                _ => base,
            };
            let w = desc.count(sh, out, tf::WIDTH)?;
            let mut v = vec![minify(sh, out, w, level)];
            if matches!(t.dim, ImageDim::D2 | ImageDim::D3 | ImageDim::Cube) {
                let h = desc.count(sh, out, tf::HEIGHT)?;
                v.push(minify(sh, out, h, level));
            }
            if t.dim == ImageDim::D3 {
                let d = desc.count(sh, out, tf::DEPTH)?;
                v.push(minify(sh, out, d, level));
            }
            if t.arrayed {
                v.push(layer_count(sh, out, desc)?);
            }
            Ok(v)
        }
        _ => Err(internal("query expected")),
    }
}

const IMAGE_KINDS: &[DescriptorKind] = &[
    DescriptorKind::SampledImage,
    DescriptorKind::CombinedImageSampler,
    DescriptorKind::StorageImage,
    DescriptorKind::UniformTexelBuffer,
    DescriptorKind::StorageTexelBuffer,
];

const SAMPLER_KINDS: &[DescriptorKind] = &[
    DescriptorKind::Sampler,
    DescriptorKind::CombinedImageSampler,
];

pub fn lower_textures(sh: &mut Shader, layout: &ResourceLayout) -> Result<(), CompileError> {
    rewrite(sh, &mut |sh, inst, out| {
        if let Op::ImageStore(w) = &inst.op {
            if let TexSource::Binding(d) = w.texture {
                // Writes go through the PBE descriptor after the texture descriptor.
                let kinds = [
                    DescriptorKind::StorageImage,
                    DescriptorKind::StorageTexelBuffer,
                ];
                let pbe = |_| abi::STORAGE_PBE_OFFSET;
                let offset = element_offset(sh, out, layout, d, &kinds, pbe)?;
                let mut w = (**w).clone();
                w.texture = TexSource::Bindless { set: d.set, offset };
                out.effect(Op::ImageStore(Box::new(w)));
                return Ok(());
            }
        }
        let Op::Texture(t) = &inst.op else {
            out.inst(inst);
            return Ok(());
        };
        let TexSource::Binding(d) = t.texture else {
            out.inst(inst);
            return Ok(());
        };
        let mut t = (**t).clone();
        let dst = inst
            .dst
            .ok_or_else(|| internal("texture operation without a result"))?;
        let offset = element_offset(sh, out, layout, d, IMAGE_KINDS, |_| 0)?;
        let mut desc = Descriptor {
            set: d.set,
            offset,
            words: [None; 6],
        };
        if matches!(
            t.op,
            TexOp::QuerySize | TexOp::QueryLevels | TexOp::QuerySamples
        ) {
            let v = query(sh, out, &mut desc, &t)?;
            // A null descriptor (robustness2's nullDescriptor) answers 0 to every query.
            let null = desc.field(sh, out, tf::NULL)?;
            let zero = konst(sh, out, 0);
            let is_null = out.def(sh, Type::BOOL, Op::Cmp(CmpOp::INe, null, zero));
            let v: Vec<Value> = v
                .into_iter()
                .map(|x| out.def(sh, Type::I32, Op::Select(is_null, zero, x)))
                .collect();
            let op = match v.as_slice() {
                [x] => Op::Copy(*x),
                _ => Op::Vector(v),
            };
            out.inst(Inst { dst: Some(dst), op });
            return Ok(());
        }
        t.texture = TexSource::Bindless { set: d.set, offset };
        if let Some(SamplerSource::Binding(s)) = t.sampler {
            let extra = |k| {
                if k == DescriptorKind::CombinedImageSampler {
                    abi::COMBINED_SAMPLER_OFFSET
                } else {
                    0
                }
            };
            let off = element_offset(sh, out, layout, s, SAMPLER_KINDS, extra)?;
            t.sampler = Some(SamplerSource::Entry(set_word(sh, out, s.set, off, 0)));
        }
        let sampled = matches!(t.op, TexOp::Sample | TexOp::Gather(_));
        if t.arrayed && sampled {
            let at = t.dim.axes();
            let layer = *t
                .coords
                .get(at)
                .ok_or_else(|| internal("array texture without a layer"))?;
            if sh.ty(layer) == Type::F32 {
                t.coords[at] = clamp_layer(sh, out, &mut desc, layer)?;
            }
        }
        out.inst(Inst {
            dst: Some(dst),
            op: Op::Texture(Box::new(t)),
        });
        Ok(())
    })
}
