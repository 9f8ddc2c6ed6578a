//! Colour output: a fragment shader's colour written to its tilebuffer target, with the
//! pipeline's blending, logic op and write mask applied in the shader (the hardware has no
//! fixed-function blender: docs/render-abi.md section 4).
//!
//! Blending runs in f32 on shader-side values (after clamping source, destination and
//! constants for normalised targets, as Vulkan asks); logic ops run on the integer bits the
//! tilebuffer holds. Whenever the destination is read, every sample is handled on its own:
//! `ld_tile` reads one sample, so the read-combine-write sequence repeats per sample.

use hw::g13::tilebuffer::{Numeric, TibFormat};
use hw::isa::*;

use super::tib::{channels, half_float_unorm_bits, is_integer, numeric, Element};
use super::{unsupported, Sel, AND};
use crate::abi;
use crate::g13::graphics::ColourOutput;
use crate::g13::word;
use crate::graphics_api::{BlendFactor, BlendOp, LogicOp};
use crate::CompileError;

/// The value of `op` for one bit of source `s` and destination `d`.
fn logic_bit(op: LogicOp, s: bool, d: bool) -> bool {
    match op {
        LogicOp::Clear => false,
        LogicOp::And => s & d,
        LogicOp::AndReverse => s & !d,
        LogicOp::Copy => s,
        LogicOp::AndInverted => !s & d,
        LogicOp::NoOp => d,
        LogicOp::Xor => s ^ d,
        LogicOp::Or => s | d,
        LogicOp::Nor => !(s | d),
        LogicOp::Equivalent => !(s ^ d),
        LogicOp::Invert => !d,
        LogicOp::OrReverse => s | !d,
        LogicOp::CopyInverted => !s,
        LogicOp::OrInverted => !s | d,
        LogicOp::Nand => !(s & d),
        LogicOp::Set => true,
    }
}

/// The `bitop` truth table of `op` with the source as operand A and the destination as B.
fn logic_table(op: LogicOp) -> u8 {
    let mut t = 0;
    for (bit, (a, b)) in [(false, false), (true, false), (false, true), (true, true)]
        .into_iter()
        .enumerate()
    {
        if logic_bit(op, a, b) {
            t |= 1 << bit;
        }
    }
    t
}

/// Bits of the packed 10:10:10:2 word that belong to the channels in `mask`.
fn rgb10a2_bits(mask: u8) -> u32 {
    let mut m = 0;
    for k in 0..4 {
        if mask & (1 << k) != 0 {
            m |= if k == 3 {
                0xc000_0000
            } else {
                0x3ff << (10 * k)
            };
        }
    }
    m
}

/// How a target is combined with what the tilebuffer holds.
enum Mode {
    Plain,
    Blend,
    Logic(LogicOp),
    /// A logic op on a packed UNORM target held as half floats: source and destination are
    /// quantised to the format's channel widths first, as the stored format would hold them.
    LogicQuantised(LogicOp, [u32; 4]),
}

impl Sel<'_> {
    /// Writes `src` (one register per channel; `None` channels were not written) to target
    /// `c` of a tilebuffer with `samples` samples per pixel.
    pub(super) fn write_colour(
        &mut self,
        c: &ColourOutput,
        src: [Option<Reg>; 4],
        logic_op: Option<LogicOp>,
        samples: u32,
    ) -> Result<(), CompileError> {
        if c.spilled {
            return self.write_spilled(c, src, logic_op, samples);
        }
        let n = channels(c.colour);
        let full = ((1u16 << n) - 1) as u8;
        let mask = c.blend.write_mask & full;
        if mask == 0 {
            return Ok(());
        }
        let int = is_integer(c.colour);
        let zero = self.imm_r(0)?;
        let one = if int {
            self.imm_r(1)?
        } else {
            self.imm_r(1.0f32.to_bits())?
        };
        let vals: [Reg; 4] =
            std::array::from_fn(|k| src[k].unwrap_or(if k == 3 { one } else { zero }));
        let num = numeric(c.colour);
        let mode = match logic_op {
            Some(op) => {
                let logic_ok = matches!(
                    num,
                    Numeric::Unorm | Numeric::Snorm | Numeric::Uint | Numeric::Sint
                );
                if !logic_ok {
                    // Vulkan: float and sRGB targets take the colour unchanged.
                    Mode::Plain
                } else if c.format == TibFormat::F16 {
                    let bits = half_float_unorm_bits(c.colour).ok_or_else(|| {
                        unsupported(format!(
                            "logic op on {:?} (stored as half floats)",
                            c.colour
                        ))
                    })?;
                    Mode::LogicQuantised(op, bits)
                } else {
                    Mode::Logic(op)
                }
            }
            None if c.blend.enable && !int => Mode::Blend,
            None => Mode::Plain,
        };
        let masked_rmw = mask != full && !c.format.supports_channel_mask();
        if matches!(mode, Mode::Plain) && !masked_rmw {
            let elems = self.tib_pack(c.colour, c.format, vals)?;
            let all = self.samples_written();
            return self.tile_access(true, c.offset, &elems, all, mask);
        }
        // Packing the source once serves every sample of a logic op.
        let src_elems = match mode {
            Mode::Logic(_) => Some(self.tib_pack_bits(c.colour, c.format, vals)?),
            _ => None,
        };
        let src_vals = match mode {
            Mode::Blend => Some(self.blend_source(c, vals)?),
            _ => None,
        };
        // A per-sample shader combines only the sample it shades.
        let each: Vec<Small> = match self.samples_written() {
            Small::Imm(_) => (0..samples.clamp(1, 8))
                .map(|s| Small::Imm(1 << s))
                .collect(),
            one => vec![one],
        };
        for which in each {
            let dst_elems = match mode {
                Mode::Blend | Mode::Plain => self.tib_elements_as_floats(c.colour, c.format)?,
                _ => None,
            };
            let dst_elems = match dst_elems {
                Some(e) => e,
                None => self.tib_elements(c.colour, c.format, !matches!(mode, Mode::Logic(_)))?,
            };
            self.tile_access(false, c.offset, &dst_elems, which, 0xf)?;
            let out: Vec<Element> = match mode {
                Mode::Logic(op) => {
                    let se = src_elems
                        .as_ref()
                        .ok_or_else(|| unsupported("logic op source"))?;
                    let table = logic_table(op);
                    let mut out = Vec::with_capacity(se.len());
                    for (a, b) in se.iter().zip(&dst_elems) {
                        let mut r =
                            self.bitop_r(Operand::Reg(a.reg), Operand::Reg(b.reg), table)?;
                        if masked_rmw && c.format == TibFormat::Rgb10A2 {
                            let keep = self.imm_r(rgb10a2_bits(mask))?;
                            // (r & keep) | (dst & !keep)
                            let sel = self.bitop_r(Operand::Reg(r), Operand::Reg(keep), 0b1000)?;
                            let old =
                                self.bitop_r(Operand::Reg(b.reg), Operand::Reg(keep), 0b0010)?;
                            r = self.bitop_r(Operand::Reg(sel), Operand::Reg(old), 0b1110)?;
                        }
                        out.push(Element { reg: r, ..*a });
                    }
                    out
                }
                Mode::LogicQuantised(op, bits) => {
                    let dst = self.tib_unpack(c.colour, c.format, &dst_elems)?;
                    let res = self.logic_quantised(op, bits, vals, dst)?;
                    self.tib_pack(c.colour, c.format, res)?
                }
                Mode::Blend | Mode::Plain => {
                    let dst = self.tib_unpack(c.colour, c.format, &dst_elems)?;
                    let mut res = match mode {
                        Mode::Blend => {
                            let sv = src_vals.ok_or_else(|| unsupported("blend source"))?;
                            self.blend(c, sv, dst)?
                        }
                        _ => vals,
                    };
                    if masked_rmw {
                        for (k, r) in res.iter_mut().enumerate() {
                            if mask & (1 << k) == 0 {
                                *r = dst[k];
                            }
                        }
                    }
                    self.tib_pack(c.colour, c.format, res)?
                }
            };
            let store_mask = if masked_rmw { 0xf } else { mask };
            self.tile_access(true, c.offset, &out, which, store_mask)?;
        }
        Ok(())
    }

    /// `op` on source and destination channels converted to UNORM integers of `bits` each
    /// (0: the channel is absent and keeps the destination), back as floats.
    fn logic_quantised(
        &mut self,
        op: LogicOp,
        bits: [u32; 4],
        src: [Reg; 4],
        dst: [Reg; 4],
    ) -> Result<[Reg; 4], CompileError> {
        let table = logic_table(op);
        let mut out = dst;
        for (k, &b) in bits.iter().enumerate() {
            if b == 0 {
                continue;
            }
            let max = (1u32 << b) - 1;
            let s = self.norm_to_int(src[k], false, max as f32)?;
            let d = self.norm_to_int(dst[k], false, max as f32)?;
            let r = self.bitop_r(Operand::Reg(s), Operand::Reg(d), table)?;
            // The inverting ops set bits above the channel's width.
            let m = self.imm_r(max)?;
            let r = self.bitop_r(Operand::Reg(r), Operand::Reg(m), AND)?;
            out[k] = self.int_to_norm(r, false, max as f32)?;
        }
        Ok(out)
    }

    /// Source values clamped as the target's format asks before blending.
    pub(super) fn blend_source(
        &mut self,
        c: &ColourOutput,
        vals: [Reg; 4],
    ) -> Result<[Reg; 4], CompileError> {
        let mut out = vals;
        for r in &mut out {
            *r = self.clamp_for(c, Operand::Reg(*r))?;
        }
        // Vulkan clamps the second source like the first.
        if let Some(mut second) = self.second_source {
            for r in &mut second {
                *r = self.clamp_for(c, Operand::Reg(*r))?;
            }
            self.second_source = Some(second);
        }
        Ok(out)
    }

    fn clamp_for(&mut self, c: &ColourOutput, x: Operand) -> Result<Reg, CompileError> {
        match numeric(c.colour) {
            Numeric::Unorm | Numeric::Srgb => self.fsat_r(x),
            Numeric::Snorm => {
                let one = self.fconst(1.0)?;
                let m = self.fminmax_r(false, x, one)?;
                let neg = self.fconst(-1.0)?;
                self.fminmax_r(true, Operand::Reg(m), neg)
            }
            _ => self.fadd_r(x, Operand::Imm(super::NEG_ZERO_IMM)),
        }
    }

    fn blend_constant(&mut self, c: &ColourOutput, k: usize) -> Result<Reg, CompileError> {
        let u = Operand::Uniform(Reg {
            half: (abi::BLEND_CONSTANTS_OFFSET / 2) as u16 + 2 * k as u16,
            size: Size::S32,
        });
        self.clamp_for(c, u)
    }

    /// `x * factor`, which is `x` itself for the factor one (exactly, in IEEE arithmetic).
    fn scaled(&mut self, x: Reg, f: BlendFactor, fv: Operand) -> Result<Reg, CompileError> {
        if f == BlendFactor::One {
            return Ok(x);
        }
        self.fmul_r(Operand::Reg(x), fv)
    }

    /// Channel `k` of the second blend source (only target 0 has one).
    fn second(&self, k: usize) -> Result<Reg, CompileError> {
        self.second_source
            .map(|s| s[k])
            .ok_or_else(|| unsupported("a SRC1 blend factor on a target other than 0"))
    }

    /// Blend factor `f` for channel `k`. `ones` remembers the `1 - x` already computed for
    /// this target, which several channels share (one minus source alpha, say).
    fn factor(
        &mut self,
        c: &ColourOutput,
        f: BlendFactor,
        k: usize,
        src: &[Reg; 4],
        dst: &[Reg; 4],
        ones: &mut Vec<(Reg, Reg)>,
    ) -> Result<Operand, CompileError> {
        let one = self.fconst(1.0)?;
        let mut minus = |s: &mut Self, r: Reg| -> Result<Operand, CompileError> {
            if let Some(&(_, m)) = ones.iter().find(|o| o.0 == r) {
                return Ok(Operand::Reg(m));
            }
            let one = s.fconst(1.0)?;
            let m = s.fsub_r(one, Operand::Reg(r))?;
            ones.push((r, m));
            Ok(Operand::Reg(m))
        };
        Ok(match f {
            BlendFactor::Zero => Operand::Imm(0),
            BlendFactor::One => one,
            BlendFactor::SrcColor => Operand::Reg(src[k]),
            BlendFactor::OneMinusSrcColor => minus(self, src[k])?,
            BlendFactor::DstColor => Operand::Reg(dst[k]),
            BlendFactor::OneMinusDstColor => minus(self, dst[k])?,
            BlendFactor::SrcAlpha => Operand::Reg(src[3]),
            BlendFactor::OneMinusSrcAlpha => minus(self, src[3])?,
            BlendFactor::DstAlpha => Operand::Reg(dst[3]),
            BlendFactor::OneMinusDstAlpha => minus(self, dst[3])?,
            BlendFactor::ConstantColor => Operand::Reg(self.blend_constant(c, k)?),
            BlendFactor::OneMinusConstantColor => {
                let r = self.blend_constant(c, k)?;
                minus(self, r)?
            }
            BlendFactor::ConstantAlpha => Operand::Reg(self.blend_constant(c, 3)?),
            BlendFactor::OneMinusConstantAlpha => {
                let r = self.blend_constant(c, 3)?;
                minus(self, r)?
            }
            BlendFactor::Src1Color => Operand::Reg(self.second(k)?),
            BlendFactor::OneMinusSrc1Color => {
                let r = self.second(k)?;
                minus(self, r)?
            }
            BlendFactor::Src1Alpha => Operand::Reg(self.second(3)?),
            BlendFactor::OneMinusSrc1Alpha => {
                let r = self.second(3)?;
                minus(self, r)?
            }
            BlendFactor::SrcAlphaSaturate if k == 3 => one,
            BlendFactor::SrcAlphaSaturate => {
                let inv = minus(self, dst[3])?;
                Operand::Reg(self.fminmax_r(false, Operand::Reg(src[3]), inv)?)
            }
        })
    }

    /// Vulkan's blend equation per channel, into the words of one register, which one
    /// `st_tile` then stores. `src * sf + dst * df` is one multiply and one fused
    /// multiply-add (blending needs no particular rounding, and the fused form is the closer
    /// one).
    pub(super) fn blend(
        &mut self,
        c: &ColourOutput,
        src: [Reg; 4],
        dst: [Reg; 4],
    ) -> Result<[Reg; 4], CompileError> {
        let b = c.blend;
        let home = self.new_words(4)?;
        let out: [Reg; 4] = std::array::from_fn(|k| word(home, k));
        let mut ones = Vec::new();
        // A fixed-point target's destination is finite and the sign of a zero does not
        // survive quantisation, so `dst * 0` drops out of a sum exactly.
        let fixed_point = matches!(
            numeric(c.colour),
            Numeric::Unorm | Numeric::Snorm | Numeric::Srgb
        );
        for (k, &o) in out.iter().enumerate() {
            let (sf, df, op) = if k == 3 {
                (b.src_alpha, b.dst_alpha, b.alpha_op)
            } else {
                (b.src_color, b.dst_color, b.color_op)
            };
            let reg = |r: Reg| FSrc::new(Operand::Reg(r));
            match op {
                BlendOp::Min | BlendOp::Max => {
                    let c = if op == BlendOp::Max {
                        FCond::GtN
                    } else {
                        FCond::LtN
                    };
                    let (s, d) = (Operand::Reg(src[k]), Operand::Reg(dst[k]));
                    self.cmpsel(o, Cond::Float(c), s, d, s, d);
                }
                _ if fixed_point
                    && df == BlendFactor::Zero
                    && matches!(op, BlendOp::Add | BlendOp::Subtract) =>
                {
                    let sfv = self.factor(c, sf, k, &src, &dst, &mut ones)?;
                    self.scaled_into(o, src[k], sf, sfv);
                }
                _ => {
                    let sfv = self.factor(c, sf, k, &src, &dst, &mut ones)?;
                    let dfv = self.factor(c, df, k, &src, &dst, &mut ones)?;
                    let s = self.scaled(src[k], sf, sfv)?;
                    // s + d, s - d or d - s, with d = dst * df fused in unless df is one.
                    let (neg_s, neg_d) = match op {
                        BlendOp::Add => (false, false),
                        BlendOp::Subtract => (false, true),
                        _ => (true, false),
                    };
                    let s = FSrc {
                        neg: neg_s,
                        ..reg(s)
                    };
                    let d = FSrc {
                        neg: neg_d,
                        ..reg(dst[k])
                    };
                    if df == BlendFactor::One {
                        self.farith(FOp::Add, o, s, d, FSrc::new(Operand::Imm(0)));
                    } else {
                        self.farith(FOp::MAdd, o, d, FSrc::new(dfv), s);
                    }
                }
            }
        }
        Ok(out)
    }

    /// `x * factor` into `o`: a copy for the factor one.
    fn scaled_into(&mut self, o: Reg, x: Reg, f: BlendFactor, fv: Operand) {
        if f == BlendFactor::One {
            self.copy(o, Operand::Reg(x));
        } else {
            self.farith(
                FOp::Mul,
                o,
                FSrc::new(Operand::Reg(x)),
                FSrc::new(fv),
                FSrc::new(Operand::Imm(0)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_tables_match_vulkan() {
        assert_eq!(logic_table(LogicOp::Clear), 0);
        assert_eq!(logic_table(LogicOp::Set), 0xf);
        assert_eq!(logic_table(LogicOp::And), 0b1000);
        assert_eq!(logic_table(LogicOp::Or), 0b1110);
        assert_eq!(logic_table(LogicOp::Xor), 0b0110);
        assert_eq!(logic_table(LogicOp::Copy), 0b1010);
        assert_eq!(logic_table(LogicOp::NoOp), 0b1100);
        assert_eq!(logic_table(LogicOp::Invert), 0b0011);
    }
}
