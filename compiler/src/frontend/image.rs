//! Images and samplers in descriptor sets (docs/render-abi.md section 7): UniformConstant
//! variables of image, sampler and sampled image types (and arrays of them) name descriptor
//! binding elements ([`Ptr::Image`]); OpSampledImage and OpImage recombine them; the sampling,
//! fetch, gather and query instructions become one `Op::Texture` each, with scalar operands.
//!
//! Projective division happens here (the coordinates and the reference over q), and so does
//! the implicit level of detail outside fragment shaders, which Vulkan defines as level 0
//! (there are no derivatives): `TexLod::Lod` 0.

use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, Op, Word};

use super::module::{id, invalid, result_type, unsupported, ImageType, SpvType};
use super::translate::{FnState, Tr};
use super::values::{Entry, Handle, Ptr};
use crate::ir::{
    self, BinOp, DescriptorRef, ImageDim, SamplerSource, Scalar, Tex, TexLod, TexOp, TexSource,
    Type, Value,
};
use crate::CompileError;

/// Image operands of one instruction, by kind.
#[derive(Default)]
struct ImageOperands {
    bias: Option<Word>,
    lod: Option<Word>,
    grad: Option<(Word, Word)>,
    offset: Option<Word>,
    /// ConstOffsets: an array of four offsets, one per texel of a gather's footprint.
    offsets: Option<Word>,
    sample: Option<Word>,
    min_lod: Option<Word>,
}

/// Image operand bits agx4 takes without an id to read (memory-model and signedness
/// hints: results are 32-bit, so sign and zero extension do not arise).
const IGNORED_OPERANDS: u32 = 0x400 | 0x800 | 0x1000 | 0x2000 | 0x4000;

/// MakeTexelAvailable and MakeTexelVisible: each carries a scope id. The simulated texture
/// unit and PBE read and write memory directly, so the texel is available and visible at
/// every scope once the access is done; the scope is read and dropped.
const SCOPED_OPERANDS: u32 = 0x100 | 0x200;

fn image_operands(inst: &Instruction, from: usize) -> Result<ImageOperands, CompileError> {
    let mut o = ImageOperands::default();
    let Some(op) = inst.operands.get(from) else {
        return Ok(o);
    };
    let Operand::ImageOperands(mask) = op else {
        return Err(invalid("image operands expected"));
    };
    let bits = mask.bits();
    let mut at = from + 1;
    let mut next = || {
        let w = id(inst, at);
        at += 1;
        w
    };
    // Ids follow in the order of the bits.
    for bit in 0..32 {
        let b = 1u32 << bit;
        if bits & b == 0 {
            continue;
        }
        match b {
            0x1 => o.bias = Some(next()?),
            0x2 => o.lod = Some(next()?),
            0x4 => o.grad = Some((next()?, next()?)),
            0x8 | 0x10 => o.offset = Some(next()?),
            0x20 => o.offsets = Some(next()?),
            0x40 => o.sample = Some(next()?),
            0x80 => o.min_lod = Some(next()?),
            _ if b & IGNORED_OPERANDS != 0 => {}
            _ if b & SCOPED_OPERANDS != 0 => {
                next()?;
            }
            _ => return Err(unsupported(format!("image operand bit {b:#x}"))),
        }
    }
    Ok(o)
}

impl<'m> Tr<'m> {
    /// The pointer an OpVariable of an image, sampler or sampled image type (or an array of
    /// them) gives, or `None` for another type.
    pub(super) fn image_variable(
        &mut self,
        rid: Word,
        ty: Word,
    ) -> Result<Option<Ptr>, CompileError> {
        let mut t = ty;
        for _ in 0..8 {
            match self.l.get(t)? {
                SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem } => t = *elem,
                _ => break,
            }
        }
        let (image, sampler) = match self.l.get(t)? {
            SpvType::Image(_) => (true, false),
            SpvType::Sampler => (false, true),
            SpvType::SampledImage { .. } => (true, true),
            _ => return Ok(None),
        };
        let set = self
            .decos
            .get(rid, Decoration::DescriptorSet)
            .and_then(|v| v.first().copied());
        let binding = self
            .decos
            .get(rid, Decoration::Binding)
            .and_then(|v| v.first().copied());
        let (Some(set), Some(binding)) = (set, binding) else {
            return Err(invalid(format!(
                "image or sampler variable {rid} without DescriptorSet/Binding"
            )));
        };
        let h = Handle {
            set,
            binding,
            index: None,
        };
        Ok(Some(Ptr::Image {
            image: image.then_some(h),
            sampler: sampler.then_some(h),
            ty,
        }))
    }

    /// One access-chain step into an array of images or samplers: the flattened element
    /// index becomes `index * len + i` (row-major, so arrays of arrays work).
    pub(super) fn index_image(
        &mut self,
        fs: &FnState<'m>,
        image: Option<Handle>,
        sampler: Option<Handle>,
        ty: Word,
        konst: Option<u32>,
        iw: Word,
    ) -> Result<Ptr, CompileError> {
        let (elem, len) = match self.l.get(ty)? {
            SpvType::Array { elem, len } => (*elem, Some(*len)),
            SpvType::RuntimeArray { elem } => (*elem, None),
            _ => return Err(invalid("access chain indexes an image or sampler")),
        };
        let i = match konst {
            Some(k) => self.u32c(k)?,
            None => {
                let i = self.simple(fs, iw)?;
                match self.sh.ty(i) {
                    Type::I32 => i,
                    Type::I64 => self.emit(Type::I32, ir::Op::Conv(ir::ConvOp::UToU, i))?,
                    _ => return Err(invalid("image array index is not an integer")),
                }
            }
        };
        let mut step = |h: Option<Handle>| -> Result<Option<Handle>, CompileError> {
            let Some(h) = h else { return Ok(None) };
            let index = match (h.index, len) {
                (None, _) => i,
                (Some(prev), Some(len)) => {
                    let l = self.u32c(len)?;
                    let scaled = self.bin(BinOp::IMul, prev, l)?;
                    self.bin(BinOp::IAdd, scaled, i)?
                }
                (Some(_), None) => return Err(invalid("runtime array inside an array")),
            };
            Ok(Some(Handle {
                index: Some(index),
                ..h
            }))
        };
        let image = step(image)?;
        let sampler = step(sampler)?;
        Ok(Ptr::Image {
            image,
            sampler,
            ty: elem,
        })
    }

    /// The image type behind an image or sampled image value's type.
    fn image_type(&self, ty: Word) -> Result<ImageType, CompileError> {
        match self.l.get(ty)? {
            SpvType::Image(i) => Ok(*i),
            SpvType::SampledImage { image } => match self.l.get(*image)? {
                SpvType::Image(i) => Ok(*i),
                _ => Err(invalid("sampled image of a type that is not an image")),
            },
            _ => Err(invalid("image operand that is not an image")),
        }
    }

    fn image_value(
        &mut self,
        fs: &FnState<'m>,
        w: Word,
    ) -> Result<(Option<Handle>, Option<Handle>, Word), CompileError> {
        match self.ptr(fs, w)? {
            Ptr::Image { image, sampler, ty } => Ok((image, sampler, ty)),
            _ => Err(unsupported(
                "image operand that is not a descriptor-set image",
            )),
        }
    }

    fn descriptor_ref(&mut self, h: Handle) -> Result<DescriptorRef, CompileError> {
        let index = match h.index {
            Some(i) => i,
            None => self.u32c(0)?,
        };
        Ok(DescriptorRef {
            set: h.set,
            binding: h.binding,
            index,
        })
    }

    /// The first `n` lanes of a scalar or vector operand, each of type `want`.
    fn image_lanes(
        &mut self,
        fs: &FnState<'m>,
        w: Word,
        n: usize,
        want: Scalar,
        what: &str,
    ) -> Result<Vec<Value>, CompileError> {
        let v = self.simple(fs, w)?;
        let t = self.sh.ty(v);
        if (t.lanes as usize) < n || t.scalar != want {
            return Err(invalid(format!(
                "{what} of type {t:?}, {n} {want:?} lanes expected"
            )));
        }
        (0..n).map(|i| self.lane(v, i as u8)).collect()
    }

    fn scalar_of(
        &mut self,
        fs: &FnState<'m>,
        w: Word,
        want: Type,
        what: &str,
    ) -> Result<Value, CompileError> {
        let v = self.simple(fs, w)?;
        if self.sh.ty(v) != want {
            return Err(invalid(format!("{what} of type {:?}", self.sh.ty(v))));
        }
        Ok(v)
    }

    /// Texel offsets packed one signed nibble per axis (`Tex::offset`).
    fn packed_offset(
        &mut self,
        fs: &FnState<'m>,
        w: Word,
        axes: usize,
    ) -> Result<Value, CompileError> {
        let v = self.simple(fs, w)?;
        self.pack_offset(v, axes)
    }

    fn pack_offset(&mut self, v: Value, axes: usize) -> Result<Value, CompileError> {
        if axes == 0 {
            return Err(invalid("texel offset on a cube map"));
        }
        let t = self.sh.ty(v);
        if (t.lanes as usize) < axes || t.scalar != Scalar::I32 {
            return Err(invalid(format!(
                "texel offset of type {t:?}, {axes} I32 lanes expected"
            )));
        }
        let parts = (0..axes)
            .map(|i| self.lane(v, i as u8))
            .collect::<Result<Vec<_>, _>>()?;
        let mask = self.u32c(0xf)?;
        let mut packed = None;
        for (i, p) in parts.into_iter().enumerate() {
            let nibble = self.bin(BinOp::And, p, mask)?;
            let sh = self.u32c(4 * i as u32)?;
            let shifted = self.bin(BinOp::Shl, nibble, sh)?;
            packed = Some(match packed {
                None => shifted,
                Some(acc) => self.bin(BinOp::Or, acc, shifted)?,
            });
        }
        packed.ok_or_else(|| invalid("empty texel offset"))
    }

    pub(super) fn image_instruction(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<Entry, CompileError> {
        let op = inst.class.opcode;
        match op {
            Op::SampledImage => {
                let (image, _, _) = self.image_value(fs, id(inst, 0)?)?;
                let (_, sampler, _) = self.image_value(fs, id(inst, 1)?)?;
                if image.is_none() || sampler.is_none() {
                    return Err(invalid(
                        "OpSampledImage of something other than an image and a sampler",
                    ));
                }
                return Ok(Entry::Ptr(Ptr::Image {
                    image,
                    sampler,
                    ty: result_type(inst)?,
                }));
            }
            Op::Image => {
                let (image, _, _) = self.image_value(fs, id(inst, 0)?)?;
                return Ok(Entry::Ptr(Ptr::Image {
                    image,
                    sampler: None,
                    ty: result_type(inst)?,
                }));
            }
            _ => {}
        }
        let (image, sampler, ty) = self.image_value(fs, id(inst, 0)?)?;
        let it = self.image_type(ty)?;
        let image = image.ok_or_else(|| invalid(format!("{op:?} of a sampler")))?;
        let texture = TexSource::Binding(self.descriptor_ref(image)?);
        let rt = self.l.ir_type(result_type(inst)?)?;
        if op == Op::ImageRead {
            return self.image_read(fs, inst, it, texture);
        }
        if op == Op::ImageQueryLod {
            if self.stage != ir::Stage::Fragment {
                return Err(unsupported("OpImageQueryLod outside a fragment shader"));
            }
            let s = sampler.ok_or_else(|| invalid("OpImageQueryLod without a sampler"))?;
            let rt = self.l.ir_type(result_type(inst)?)?;
            if rt != Type::vec(Scalar::F32, 2) {
                return Err(unsupported(format!(
                    "OpImageQueryLod result of type {rt:?}"
                )));
            }
            let coords =
                self.image_lanes(fs, id(inst, 1)?, it.dim.axes(), Scalar::F32, "coordinate")?;
            let t = Tex {
                op: TexOp::QueryLod,
                texture,
                sampler: Some(SamplerSource::Binding(self.descriptor_ref(s)?)),
                dim: it.dim,
                arrayed: false,
                ms: false,
                coords,
                lod: TexLod::Implicit,
                min_lod: None,
                dref: None,
                offset: None,
                sample: None,
                component: 0,
            };
            let v = self.emit(rt, ir::Op::Texture(Box::new(t)))?;
            return Ok(Entry::Val(super::values::FVal::V(v)));
        }
        let query = matches!(
            op,
            Op::ImageQuerySizeLod
                | Op::ImageQuerySize
                | Op::ImageQueryLevels
                | Op::ImageQuerySamples
        );
        let mut t = Tex {
            op: TexOp::Sample,
            texture,
            sampler: None,
            dim: it.dim,
            arrayed: it.arrayed,
            ms: it.ms,
            coords: Vec::new(),
            lod: TexLod::Implicit,
            min_lod: None,
            dref: None,
            offset: None,
            sample: None,
            component: 0,
        };
        if query && it.usage == 2 && it.dim == ImageDim::Cube {
            return self.storage_cube_size(rt, it, t);
        }
        if query {
            t.op = match op {
                Op::ImageQuerySizeLod => {
                    let l = self.scalar_of(fs, id(inst, 1)?, Type::I32, "level")?;
                    t.lod = TexLod::Lod(l);
                    TexOp::QuerySize
                }
                Op::ImageQuerySize => TexOp::QuerySize,
                Op::ImageQueryLevels => TexOp::QueryLevels,
                _ => {
                    if !it.ms {
                        return Err(invalid("OpImageQuerySamples of a single-sampled image"));
                    }
                    TexOp::QuerySamples
                }
            };
            let want = match t.op {
                TexOp::QuerySize => {
                    it.dim.axes() - usize::from(it.dim == ImageDim::Cube) + usize::from(it.arrayed)
                }
                _ => 1,
            };
            if rt.scalar != Scalar::I32 || rt.lanes as usize != want {
                return Err(invalid(format!("{op:?} result of type {rt:?}")));
            }
            let v = self.emit(rt, ir::Op::Texture(Box::new(t)))?;
            return Ok(Entry::Val(super::values::FVal::V(v)));
        }
        let proj = matches!(
            op,
            Op::ImageSampleProjImplicitLod
                | Op::ImageSampleProjExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
        );
        let has_dref = matches!(
            op,
            Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
                | Op::ImageDrefGather
        );
        let implicit = matches!(
            op,
            Op::ImageSampleImplicitLod
                | Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleProjImplicitLod
                | Op::ImageSampleProjDrefImplicitLod
        );
        let fetch = op == Op::ImageFetch;
        let gather = matches!(op, Op::ImageGather | Op::ImageDrefGather);
        if !fetch {
            let s =
                sampler.ok_or_else(|| invalid(format!("{op:?} of an image without a sampler")))?;
            t.sampler = Some(SamplerSource::Binding(self.descriptor_ref(s)?));
        }
        if (proj && (it.arrayed || it.dim == ImageDim::Cube)) || (fetch && it.dim == ImageDim::Cube)
        {
            return Err(invalid(format!("{op:?} of a {:?} image", it.dim)));
        }
        if it.ms && !fetch {
            return Err(invalid(format!("{op:?} of a multisampled image")));
        }
        let n = it.dim.axes() + usize::from(it.arrayed);
        let cw = id(inst, 1)?;
        let coord_scalar = if fetch { Scalar::I32 } else { Scalar::F32 };
        let mut coords =
            self.image_lanes(fs, cw, n + usize::from(proj), coord_scalar, "coordinate")?;
        let mut next = 2;
        if has_dref {
            t.dref = Some(self.scalar_of(fs, id(inst, 2)?, Type::F32, "depth reference")?);
            next = 3;
        }
        if op == Op::ImageGather {
            let c = self
                .consts
                .get(&id(inst, 2)?)
                .and_then(|(_, c)| match c {
                    super::constants::CVal::Scalar(v) => Some(*v),
                    _ => None,
                })
                .filter(|c| *c < 4)
                .ok_or_else(|| invalid("gather component that is not a constant 0..3"))?;
            t.op = TexOp::Gather(c as u8);
            next = 3;
        } else if op == Op::ImageDrefGather {
            t.op = TexOp::Gather(0);
        } else if fetch {
            t.op = TexOp::Fetch;
        }
        if proj {
            // Projective: the coordinates (and the reference) over q, the lane after them.
            let q = coords
                .pop()
                .ok_or_else(|| invalid("projective coordinate"))?;
            for c in coords.iter_mut() {
                *c = self.bin(BinOp::FDiv, *c, q)?;
            }
            if let Some(d) = t.dref {
                t.dref = Some(self.bin(BinOp::FDiv, d, q)?);
            }
        }
        t.coords = coords;
        let o = image_operands(inst, next)?;
        let fragment = self.stage == ir::Stage::Fragment;
        let zero = |tr: &mut Self| tr.konst(Type::F32, vec![0]);
        t.lod = match (&o, fetch) {
            (ImageOperands { lod: Some(l), .. }, true) => {
                TexLod::Lod(self.scalar_of(fs, *l, Type::I32, "level")?)
            }
            (_, true) => TexLod::Lod(self.u32c(0)?),
            (ImageOperands { lod: Some(l), .. }, false) if !implicit && !gather => {
                TexLod::Lod(self.scalar_of(fs, *l, Type::F32, "level of detail")?)
            }
            (
                ImageOperands {
                    grad: Some((x, y)), ..
                },
                false,
            ) if !implicit && !gather => {
                let a = it.dim.axes();
                TexLod::Grad {
                    dx: self.image_lanes(fs, *x, a, Scalar::F32, "derivative")?,
                    dy: self.image_lanes(fs, *y, a, Scalar::F32, "derivative")?,
                }
            }
            (ImageOperands { bias: Some(b), .. }, false) if implicit => {
                let b = self.scalar_of(fs, *b, Type::F32, "bias")?;
                if fragment {
                    TexLod::Bias(b)
                } else {
                    return Err(invalid("Bias image operand outside a fragment shader"));
                }
            }
            (
                ImageOperands {
                    lod: None,
                    grad: None,
                    bias: None,
                    ..
                },
                false,
            ) if implicit || gather => {
                if fragment || gather {
                    TexLod::Implicit
                } else {
                    TexLod::Lod(zero(self)?)
                }
            }
            _ => {
                return Err(invalid(format!(
                    "{op:?} with level-of-detail operands it does not take"
                )))
            }
        };
        if let Some(m) = o.min_lod {
            if fetch || gather {
                return Err(invalid("MinLod on a fetch or gather"));
            }
            t.min_lod = Some(self.scalar_of(fs, m, Type::F32, "minimum level of detail")?);
        }
        if let Some(w) = o.offset {
            t.offset = Some(self.packed_offset(fs, w, it.dim.offset_axes())?);
        }
        if let Some(w) = o.offsets {
            if !gather || o.offset.is_some() {
                return Err(invalid(
                    "ConstOffsets on something other than a plain gather",
                ));
            }
            return self.gather_offsets(fs, w, rt, t, it.dim.offset_axes());
        }
        match (o.sample, it.ms && fetch) {
            (Some(s), true) => t.sample = Some(self.scalar_of(fs, s, Type::I32, "sample")?),
            (None, false) => {}
            (Some(_), false) => {
                return Err(invalid("Sample image operand on a single-sampled image"))
            }
            (None, true) => return Err(invalid("multisampled fetch without a sample")),
        }
        let want_lanes = if has_dref && !gather { 1 } else { 4 };
        if rt.lanes != want_lanes || !matches!(rt.scalar, Scalar::F32 | Scalar::I32) {
            return Err(unsupported(format!("{op:?} result of type {rt:?}")));
        }
        let v = self.emit(rt, ir::Op::Texture(Box::new(t)))?;
        Ok(Entry::Val(super::values::FVal::V(v)))
    }

    /// A gather with ConstOffsets: component i is texel i0j0 of the footprint at offset i
    /// (the GLSL definition of textureGatherOffsets, which the CTS checks). The hardware
    /// takes one offset per instruction, so it is four gathers, each giving its fourth
    /// component (gathers return i0j0 last); scalarize then keeps just that texel of each.
    fn gather_offsets(
        &mut self,
        fs: &FnState<'m>,
        w: Word,
        rt: Type,
        t: Tex,
        axes: usize,
    ) -> Result<Entry, CompileError> {
        let offsets = match self.val(fs, w)? {
            super::values::FVal::C(parts) if parts.len() == 4 => parts,
            _ => return Err(invalid("ConstOffsets that is not an array of four offsets")),
        };
        if rt.lanes != 4 || !matches!(rt.scalar, Scalar::F32 | Scalar::I32) {
            return Err(unsupported(format!("gather result of type {rt:?}")));
        }
        let mut lanes = Vec::new();
        for o in &offsets {
            let super::values::FVal::V(o) = o else {
                return Err(invalid("ConstOffsets element that is not a vector"));
            };
            let mut one = t.clone();
            one.offset = Some(self.pack_offset(*o, axes)?);
            let g = self.emit(rt, ir::Op::Texture(Box::new(one)))?;
            lanes.push(self.lane(g, 3)?);
        }
        let v = self.emit(rt, ir::Op::Vector(lanes))?;
        Ok(Entry::Val(super::values::FVal::V(v)))
    }

    /// OpImageRead of a storage image: a texel load through its texture descriptor.
    fn image_read(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
        it: ImageType,
        texture: TexSource,
    ) -> Result<Entry, CompileError> {
        let rt = self.l.ir_type(result_type(inst)?)?;
        if !matches!(rt.scalar, Scalar::F32 | Scalar::I32) {
            return Err(unsupported(format!("OpImageRead result of type {rt:?}")));
        }
        let (coords, sample) = self.storage_coords(fs, inst, it, 2)?;
        let (dim, arrayed) = Self::storage_shape(it);
        let t = Tex {
            op: TexOp::ImageRead,
            texture,
            sampler: None,
            dim,
            arrayed,
            ms: it.ms,
            coords,
            lod: TexLod::Lod(self.u32c(0)?),
            min_lod: None,
            dref: None,
            offset: None,
            sample,
            component: 0,
        };
        let v = self.emit(rt, ir::Op::Texture(Box::new(t)))?;
        Ok(Entry::Val(super::values::FVal::V(v)))
    }

    /// imageSize of a cube or cube array storage image, whose descriptor is the 2D array of
    /// its faces (docs/render-abi.md section 7): (width, height), and for cube arrays the
    /// face count divided by 6.
    fn storage_cube_size(
        &mut self,
        rt: Type,
        it: ImageType,
        mut t: Tex,
    ) -> Result<Entry, CompileError> {
        let want = 2 + usize::from(it.arrayed);
        if rt.scalar != Scalar::I32 || rt.lanes as usize != want {
            return Err(invalid(format!("OpImageQuerySize result of type {rt:?}")));
        }
        t.op = TexOp::QuerySize;
        t.dim = ImageDim::D2;
        t.arrayed = true;
        let whf = self.emit(Type::vec(Scalar::I32, 3), ir::Op::Texture(Box::new(t)))?;
        let mut lanes = vec![self.lane(whf, 0)?, self.lane(whf, 1)?];
        if it.arrayed {
            let faces = self.lane(whf, 2)?;
            let six = self.u32c(6)?;
            lanes.push(self.bin(BinOp::UDiv, faces, six)?);
        }
        let v = self.emit(rt, ir::Op::Vector(lanes))?;
        Ok(Entry::Val(super::values::FVal::V(v)))
    }

    /// How a storage image access addresses `it`: cube maps and cube arrays as the 2D array
    /// of their faces, layer = face + 6 x cube, which is what their coordinates already say
    /// (their descriptors are 2D arrays, docs/render-abi.md section 7).
    fn storage_shape(it: ImageType) -> (ImageDim, bool) {
        if it.dim == ImageDim::Cube {
            (ImageDim::D2, true)
        } else {
            (it.dim, it.arrayed)
        }
    }

    /// The integer coordinates of a storage image access (operand 1) and the Sample image
    /// operand of a multisampled one (image operands from `operands`).
    fn storage_coords(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
        it: ImageType,
        operands: usize,
    ) -> Result<(Vec<Value>, Option<Value>), CompileError> {
        let (dim, arrayed) = Self::storage_shape(it);
        let n = dim.axes() + usize::from(arrayed);
        let coords = self.image_lanes(fs, id(inst, 1)?, n, Scalar::I32, "coordinate")?;
        let o = image_operands(inst, operands)?;
        if o.bias.is_some() || o.lod.is_some() || o.grad.is_some() || o.offset.is_some() {
            return Err(unsupported("image operands on a storage image access"));
        }
        let sample = match (o.sample, it.ms) {
            (Some(s), true) => Some(self.scalar_of(fs, s, Type::I32, "sample")?),
            (None, false) => None,
            _ => return Err(invalid("Sample image operand and multisampling disagree")),
        };
        Ok((coords, sample))
    }

    /// OpImageWrite of a storage image: four components through its PBE descriptor.
    pub(super) fn image_write(
        &mut self,
        fs: &FnState<'m>,
        inst: &Instruction,
    ) -> Result<(), CompileError> {
        let (image, _, ty) = self.image_value(fs, id(inst, 0)?)?;
        let it = self.image_type(ty)?;
        let image = image.ok_or_else(|| invalid("OpImageWrite of a sampler"))?;
        let texture = TexSource::Binding(self.descriptor_ref(image)?);
        let (coords, sample) = self.storage_coords(fs, inst, it, 3)?;
        let v = self.simple(fs, id(inst, 2)?)?;
        let vt = self.sh.ty(v);
        if !matches!(vt.scalar, Scalar::F32 | Scalar::I32) {
            return Err(unsupported(format!("OpImageWrite of {vt:?}")));
        }
        let mut texel = Vec::new();
        for i in 0..vt.lanes {
            texel.push(self.lane(v, i)?);
        }
        // Components the texel lacks: zero (the PBE stores only the format's channels).
        while texel.len() < 4 {
            let z = self.konst(Type::scalar(vt.scalar), vec![0])?;
            texel.push(z);
        }
        let (dim, arrayed) = Self::storage_shape(it);
        self.effect(ir::Op::ImageStore(Box::new(ir::ImageStore {
            texture,
            dim,
            arrayed,
            ms: it.ms,
            coords,
            sample,
            texel,
        })))
    }
}
