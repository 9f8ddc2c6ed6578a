//! Texture operations on images in descriptor sets (docs/render-abi.md section 7): one
//! `texture_sample` or `texture_load` per operation, its components (`tex_runs`) into
//! consecutive registers, naming the texture bindlessly
//! (the set's address in the root table as the base, the descriptor's byte offset in a
//! register as the index) and the sampler by its heap index in a register.
//!
//! Register conventions are the simulator's (sim-gpu/src/usc/texture.rs, after Mesa): the
//! coordinates are a run of 32-bit registers (x, y, z or the layer, a cube array's cube; a
//! multisampled load's sample, with the layer in its high half for arrays); the LOD is a
//! 16-bit register (f16 for samples, the level for loads) or, for gradients, a run of 32-bit
//! registers (d/dx, d/dy of each axis interleaved, then the f16 minimum LOD); `extra` holds
//! the depth reference, then the packed offsets. A run of up to four words is one register
//! (128-bit for three or four), computed in place where its values allow
//! (`plan_coordinate_homes`); the longer gradient runs are fixed runs (`Sel::fixed_run`).
//!
//! The sampler entry word carries the sampler's LOD bias as an f16 in its high half; float
//! instructions read 16-bit sources as f16, so the bias is added straight from there, and a
//! 16-bit destination rounds the LOD to the f16 the hardware takes. Gradients are scaled by
//! 2^bias instead (Mesa's way: the LOD is log2 of their length).

use hw::isa::*;

use std::collections::HashMap;

use super::component_runs::ComponentRuns;
use super::{internal, unsupported, Sel};
use crate::g13::{vreg, word};
use crate::ir::{
    self, ImageDim, ImageStore, Inst, Op, SamplerSource, Scalar, Tex, TexLod, TexOp, TexSource,
    Value,
};
use crate::{abi, CompileError};

/// Physical halves of the one fixed run of texture operations, of up to seven gradient
/// registers: above the vertex preloads (`graphics::PRELOAD_INSTANCE_NUMBER` ends at 14).
const RUN_TEX_GRADS: u16 = 16;

/// The hardware dimension of an image shape.
fn tex_dim(dim: ImageDim, arrayed: bool, ms: bool) -> Result<TexDim, CompileError> {
    Ok(match (dim, arrayed, ms) {
        (ImageDim::D1, false, false) => TexDim::D1,
        (ImageDim::D1, true, false) => TexDim::D1Array,
        (ImageDim::D2, false, false) => TexDim::D2,
        (ImageDim::D2, true, false) => TexDim::D2Array,
        (ImageDim::D2, false, true) => TexDim::D2Ms,
        (ImageDim::D2, true, true) => TexDim::D2MsArray,
        (ImageDim::D3, false, false) => TexDim::D3,
        (ImageDim::Cube, false, false) => TexDim::Cube,
        (ImageDim::Cube, true, false) => TexDim::CubeArray,
        other => return Err(unsupported(format!("texture of shape {other:?}"))),
    })
}

/// What a texture operation's LOD register is computed from: the mode, the LOD or bias,
/// the sampler entry and the minimum LOD.
pub(super) type LodKey = (u8, Option<Value>, Value, Option<Value>);

fn low16(r: Reg) -> Reg {
    Reg {
        half: r.half,
        size: Size::S16,
    }
}

fn high16(r: Reg) -> Reg {
    Reg {
        half: r.half + 1,
        size: Size::S16,
    }
}

impl Sel<'_> {
    /// A run of 32-bit registers holding `vals` (bits copied as they are): the register
    /// already holding them in order (the words of one register from its first, as an
    /// `iter` or a planned home leaves them), else a fresh register of up to four words, or
    /// the fixed run at `fixed` for more (gradients).
    fn tex_run(&mut self, vals: &[Operand], fixed: Option<u16>) -> Result<Reg, CompileError> {
        let n = vals.len() as u16;
        if let Some(&Operand::Reg(first)) = vals.first() {
            // Words k of one register are halves 2k from its first, which is a multiple of 4.
            let in_place = first.half % 4 == 0
                && vals.iter().enumerate().all(|(k, v)| {
                    *v == Operand::Reg(Reg {
                        half: first.half + 2 * k as u16,
                        size: Size::S32,
                    })
                });
            if in_place {
                return Ok(first);
            }
        }
        let mut parts = Vec::new();
        match n {
            0 => return Err(internal("empty texture register run")),
            1 => parts.push(self.temp(Size::S32)?),
            2..=4 => {
                let id = self.new_words(usize::from(n))?;
                parts.extend((0..usize::from(n)).map(|k| word(id, k)));
            }
            _ => {
                let fixed =
                    fixed.ok_or_else(|| internal(format!("texture register run of {n}")))?;
                for k in 0..n.div_ceil(2) {
                    let size = if 2 * k + 1 < n { Size::S64 } else { Size::S32 };
                    let id = self.fixed_run(fixed + 4 * k, size)?;
                    parts.push(vreg(id, 0, Size::S32));
                    if size == Size::S64 {
                        parts.push(vreg(id, 2, Size::S32));
                    }
                }
            }
        }
        for (p, v) in parts.iter().zip(vals) {
            self.copy(*p, *v);
        }
        Ok(parts[0])
    }

    /// `a + b` (f32 sources, or 16-bit f16 registers) rounded to f16, in the low half of
    /// the returned 32-bit register. The 16-bit float opcodes take only 16-bit sources, so
    /// the sum is an f32 narrowed by `f32_to_f16_bits`.
    fn f16_sum(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        let s = self.temp(Size::S32)?;
        self.farith(
            FOp::Add,
            s,
            FSrc::new(a),
            FSrc::new(b),
            FSrc::new(Operand::Imm(0)),
        );
        self.f32_to_f16_bits(Operand::Reg(s), false)
    }

    /// The coordinate run: the axes, then the layer; a multisampled access adds the sample
    /// (with the layer above it for arrays).
    fn tex_coords(
        &mut self,
        dim: ImageDim,
        coords: &[Value],
        sample: Option<Value>,
    ) -> Result<Reg, CompileError> {
        let mut run = Vec::new();
        let axes = dim.axes();
        for c in coords.iter().take(axes) {
            run.push(self.iop(*c)?);
        }
        let layer = coords.get(axes).copied();
        match (sample, layer) {
            (Some(s), Some(l)) => {
                let (s, l) = (self.iop(s)?, self.iop(l)?);
                let packed = self.temp(Size::S32)?;
                self.shift(ShiftOp::Bfi, packed, s, l, Operand::Imm(16), 16);
                run.push(Operand::Reg(packed));
            }
            (Some(s), None) => run.push(self.iop(s)?),
            (None, Some(l)) => run.push(self.iop(l)?),
            (None, None) => {}
        }
        self.tex_run(&run, None)
    }

    /// Homes for texture coordinates that only texture operations alike but for the
    /// component read: computed straight into the words of one register, in the order of
    /// the coordinate run (`tex_coords`), which `tex_run` then takes as it is.
    pub(super) fn plan_coordinate_homes(&mut self) {
        let uses = crate::passes::use_counts(&self.shader.body);
        // Per operation (but the component): its run and how often each run value is read.
        let mut ops: Vec<(Tex, Vec<Value>, HashMap<Value, u32>)> = Vec::new();
        let mut consts: Vec<Value> = Vec::new();
        crate::passes::for_each_inst(&self.shader.body, &mut |i| {
            if let (Op::Const(_), Some(d)) = (&i.op, i.dst) {
                consts.push(d);
            }
            let Op::Texture(t) = &i.op else { return };
            let key = Tex {
                component: 0,
                ..(**t).clone()
            };
            let axes = t.dim.axes();
            let mut run: Vec<Value> = t.coords.iter().take(axes).copied().collect();
            match (t.sample, t.coords.get(axes)) {
                (Some(_), Some(_)) => return,
                (Some(x), None) | (None, Some(&x)) => run.push(x),
                (None, None) => {}
            }
            let k = match ops.iter().position(|o| o.0 == key) {
                Some(k) => k,
                None => {
                    ops.push((key, run, HashMap::new()));
                    ops.len() - 1
                }
            };
            for v in t.operands() {
                *ops[k].2.entry(v).or_default() += 1;
            }
        });
        for (_, run, reads) in ops {
            let distinct = run.iter().enumerate().all(|(k, v)| !run[..k].contains(v));
            let only_here = run.iter().all(|v| {
                reads.get(v) == uses.get(v)
                    && !consts.contains(v)
                    && !self.output_parts.contains_key(v)
                    && self.shader.ty(*v).scalar.bits() == 32
                    && self.shader.ty(*v).lanes == 1
            });
            if !(2..=4).contains(&run.len()) || !distinct || !only_here {
                continue;
            }
            let home = self.output_homes.len();
            self.output_homes.push((None, run.len() as u8));
            for (k, v) in run.into_iter().enumerate() {
                self.output_parts.insert(v, (home, k as u16));
            }
        }
    }

    /// `image_write` of one texel through a storage image's PBE descriptor.
    pub(super) fn image_store(&mut self, w: &ImageStore) -> Result<(), CompileError> {
        let TexSource::Bindless { set, offset } = w.texture else {
            return Err(internal("image store not lowered"));
        };
        let dim = tex_dim(w.dim, w.arrayed, w.ms)?;
        if w.dim == ImageDim::Cube {
            return Err(unsupported("image write to a cube map"));
        }
        let coords = self.tex_coords(w.dim, &w.coords, w.sample)?;
        let mut texel = Vec::new();
        for x in &w.texel {
            texel.push(self.iop(*x)?);
        }
        let src = self.tex_run(&texel, None)?;
        let texture = self.bindless(set, offset)?;
        self.emit(Instr::ImageWrite(ImageWrite {
            src,
            coords,
            lod: Small::Imm(0),
            texture,
            dim,
            coherent: false,
        }));
        Ok(())
    }

    /// The bindless texture operand of the descriptor at byte `offset` of set `set`.
    fn bindless(&mut self, set: u32, offset: Value) -> Result<TexIndex, CompileError> {
        let index = self.reg(offset)?;
        if index.size != Size::S32 {
            return Err(internal("texture descriptor offset is not 32-bit"));
        }
        let base = u16::try_from(abi::set_address_offset(set) / 2)
            .map_err(|_| internal(format!("set {set}")))?;
        Ok(TexIndex::Bindless { base, index })
    }

    pub(super) fn texture(&mut self, d: Value, t: &Tex) -> Result<(), CompileError> {
        if self.vals.get(d.0 as usize).is_some_and(Option::is_some) {
            // Loaded with the rest of its run.
            return Ok(());
        }
        let TexSource::Bindless { set, offset } = t.texture else {
            return Err(internal("texture operation not lowered"));
        };
        let ty = self.ty(d)?;
        if !matches!(ty.scalar, Scalar::F32 | Scalar::I32) || ty.lanes != 1 {
            return Err(internal(format!("texture result of type {ty:?}")));
        }
        let load = matches!(t.op, TexOp::Fetch | TexOp::ImageRead);
        let gather = match t.op {
            TexOp::Gather(c) => Some(c),
            TexOp::Sample | TexOp::Fetch | TexOp::ImageRead | TexOp::QueryLod => None,
            _ => return Err(internal("texture query reached the back end")),
        };
        let dim = tex_dim(t.dim, t.arrayed, t.ms)?;
        if load && t.dim == ImageDim::Cube {
            return Err(unsupported("texel fetch of a cube map"));
        }

        let coords = self.tex_coords(t.dim, &t.coords, t.sample)?;

        // The sampler: its heap index, and its LOD bias as an f16.
        let (sampler, bias) = match t.sampler {
            Some(SamplerSource::Entry(e)) => {
                let e = self.reg(e)?;
                (Small::Reg(low16(e)), Some(high16(e)))
            }
            Some(SamplerSource::Binding(_)) => return Err(internal("sampler not lowered")),
            None => (Small::Imm(0), None),
        };
        let min_lod = match t.min_lod {
            Some(m) => Some(self.fop(m)?),
            None => None,
        };
        // Components of one vector operation share their LOD register.
        let key: Option<LodKey> = match (&t.lod, t.sampler, load) {
            (TexLod::Lod(l), Some(SamplerSource::Entry(e)), false) => {
                Some((0, Some(*l), e, t.min_lod))
            }
            (TexLod::Bias(b), Some(SamplerSource::Entry(e)), false) => {
                Some((1, Some(*b), e, t.min_lod))
            }
            (TexLod::Implicit, Some(SamplerSource::Entry(e)), false) if gather.is_none() => {
                Some((2, None, e, t.min_lod))
            }
            _ => None,
        };
        let cached = key.and_then(|k| self.tex_lods.get(&k).copied());
        let (lod_mode, lod) = match (&t.lod, load) {
            _ if cached.is_some() => {
                let r = cached.ok_or_else(|| internal("cached LOD"))?;
                let mode = match (&t.lod, t.min_lod.is_some()) {
                    (TexLod::Lod(_), _) => LodMode::Min,
                    (_, true) => LodMode::AutoBiasMin,
                    (_, false) => LodMode::AutoBias,
                };
                (mode, Operand::Reg(r))
            }
            (TexLod::Implicit, _) if gather.is_some() => (LodMode::Auto, Operand::Imm(0)),
            (TexLod::Lod(l), true) => match self.const_of(*l) {
                Some(0) => (LodMode::Auto, Operand::Imm(0)),
                _ => {
                    let r = self.reg(*l)?;
                    (LodMode::Min, Operand::Reg(low16(r)))
                }
            },
            (TexLod::Lod(l), false) => {
                let bias = bias.ok_or_else(|| internal("sample without a sampler"))?;
                let l = self.fop(*l)?;
                let r = match min_lod {
                    // max(lod + bias, min): Vulkan's MinLod on an explicit level.
                    Some(m) => {
                        let s = self.temp(Size::S32)?;
                        self.farith(
                            FOp::Add,
                            s,
                            FSrc::new(l),
                            FSrc::new(Operand::Reg(bias)),
                            FSrc::new(Operand::Imm(0)),
                        );
                        let c = self.temp(Size::S32)?;
                        let s = Operand::Reg(s);
                        self.cmpsel(c, Cond::Float(FCond::GtN), s, m, s, m);
                        self.f16_sum(Operand::Reg(c), Operand::Imm(0))?
                    }
                    None => self.f16_sum(l, Operand::Reg(bias))?,
                };
                (LodMode::Min, Operand::Reg(low16(r)))
            }
            (TexLod::Implicit | TexLod::Bias(_), false) => {
                if self.gfx.map(|g| g.stage) != Some(ir::Stage::Fragment) {
                    return Err(unsupported("implicit LOD outside a fragment shader"));
                }
                let bias = bias.ok_or_else(|| internal("sample without a sampler"))?;
                let b = match &t.lod {
                    TexLod::Bias(b) => {
                        let b = self.fop(*b)?;
                        low16(self.f16_sum(b, Operand::Reg(bias))?)
                    }
                    _ => bias,
                };
                match min_lod {
                    // The bias and the minimum, adjacent f16s.
                    Some(m) => {
                        let m = self.f16_sum(m, Operand::Imm(0))?;
                        let pair = self.temp(Size::S32)?;
                        self.shift(
                            ShiftOp::Bfi,
                            pair,
                            Operand::Reg(b),
                            Operand::Reg(m),
                            Operand::Imm(16),
                            16,
                        );
                        (LodMode::AutoBiasMin, Operand::Reg(low16(pair)))
                    }
                    None => (LodMode::AutoBias, Operand::Reg(b)),
                }
            }
            (TexLod::Grad { dx, dy }, false) => {
                let bias = bias.ok_or_else(|| internal("sample without a sampler"))?;
                // 2^bias scales the footprint, so the LOD moves by the bias.
                let scale = self.temp(Size::S32)?;
                self.funary(FUnaryOp::Exp2, scale, Operand::Reg(bias));
                let mut run = Vec::new();
                for (x, y) in dx.iter().zip(dy) {
                    for g in [x, y] {
                        let g = self.fop(*g)?;
                        let r = self.temp(Size::S32)?;
                        self.farith(
                            FOp::Mul,
                            r,
                            FSrc::new(g),
                            FSrc::new(Operand::Reg(scale)),
                            FSrc::new(Operand::Imm(0)),
                        );
                        run.push(Operand::Reg(r));
                    }
                }
                // 1D gradients take a second, zero axis.
                if t.dim == ImageDim::D1 {
                    run.extend([Operand::Imm(0), Operand::Imm(0)]);
                }
                if let Some(m) = min_lod {
                    let r = self.f16_sum(m, Operand::Imm(0))?;
                    run.push(Operand::Reg(r));
                }
                let r = self.tex_run(&run, Some(RUN_TEX_GRADS))?;
                let mode = if min_lod.is_some() {
                    LodMode::GradMin
                } else {
                    LodMode::Grad
                };
                (mode, Operand::Reg(r))
            }
            (lod, _) => return Err(internal(format!("texture LOD {lod:?}"))),
        };

        if let (Some(k), Operand::Reg(r)) = (key, lod) {
            self.tex_lods.insert(k, r);
        }

        // The depth reference, then the packed offsets.
        let mut extra = Vec::new();
        if let Some(r) = t.dref {
            extra.push(self.iop(r)?);
        }
        if let Some(o) = t.offset {
            extra.push(self.iop(o)?);
        }
        let extra = if extra.is_empty() {
            None
        } else {
            Some(self.tex_run(&extra, None)?)
        };

        let texture = self.bindless(set, offset)?;
        let (dst, mask) = match self.tex_runs.get(&d).cloned() {
            Some(run) => self.run_destination(&run)?,
            None => (self.def(d)?, 1 << (t.component & 3)),
        };
        self.emit(Instr::Texture(Texture {
            load,
            dst,
            coords,
            lod_mode,
            lod,
            texture,
            sampler,
            dim,
            mask,
            shadow: t.dref.is_some(),
            offset: t.offset.is_some(),
            extra,
            gather,
            query_lod: t.op == TexOp::QueryLod,
            wait_slot: 0,
        }));
        Ok(())
    }
}

/// The texture operations of a block that one instruction can do: two to four components of
/// one sample or load, alike in everything but the component. By the first one's result:
/// the components and their results, lowest component first.
pub(super) fn tex_runs(sh: &ir::Shader, insts: &[Inst]) -> HashMap<Value, Vec<(u8, Value)>> {
    let mut runs = ComponentRuns::new();
    for i in insts {
        if ir::has_side_effects(&i.op)
            && !matches!(
                i.op,
                Op::StoreVar(..) | Op::StoreOutput { .. } | Op::StoreBuiltin { .. }
            )
        {
            runs.close();
            continue;
        }
        let (Op::Texture(t), Some(d)) = (&i.op, i.dst) else {
            continue;
        };
        let ty = sh.ty(d);
        if !matches!(t.op, TexOp::Sample | TexOp::Fetch | TexOp::ImageRead)
            || t.dref.is_some()
            || ty.lanes != 1
            || !matches!(ty.scalar, Scalar::F32 | Scalar::I32)
        {
            continue;
        }
        let key = Tex {
            component: 0,
            ..(**t).clone()
        };
        runs.add(key, t.component & 3, d);
    }
    runs.finish()
}
