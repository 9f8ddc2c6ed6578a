//! Tilebuffer formats: converting a colour between the value a shader works with (32-bit
//! floats for float, normalised and sRGB formats, 32-bit integers for integer formats) and
//! the bytes `st_tile` / `ld_tile` move.
//!
//! Stores of the normalised 8- and 16-bit formats leave the conversion to `st_tile` (its
//! U8Norm to S16Norm formats, from f32 registers), except where a logic op needs the bits.
//! Every other conversion, and every load,
//! is done here in ALU code with the raw element formats (I8, I16, I32), one element
//! (channel, or the whole pixel for the packed formats) per access, so the same code serves
//! fragment outputs, blending and the tile programs.
//! Rounding follows Vulkan's rules for normalised and packed float formats (round to
//! nearest; the 11/10-bit floats round once to half precision and again to their width).

use hw::g13::tilebuffer::{ColourFormat, Numeric, TibFormat};
use hw::isa::*;

use super::{isrc, unsupported, Sel, AND, NEG_ZERO_IMM, OR};
use crate::g13::{vreg, word, Wide};
use crate::CompileError;

/// One tile element access: element index (for the mask and the byte offset), the raw
/// format and the 32-bit register holding (or receiving) the element's bits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Element {
    pub index: u8,
    pub format: MemFormat,
    pub reg: Reg,
}

/// How a colour format's channels read as numbers.
pub(super) fn numeric(c: ColourFormat) -> Numeric {
    match c {
        ColourFormat::Plain { numeric, .. } => numeric,
        ColourFormat::Rgb10A2Uint => Numeric::Uint,
        ColourFormat::Rg11B10Float | ColourFormat::Rgb9E5Float => Numeric::Float,
        ColourFormat::R5G6B5Unorm
        | ColourFormat::R5G5B5A1Unorm
        | ColourFormat::R4G4B4A4Unorm
        | ColourFormat::Rgb10A2Unorm => Numeric::Unorm,
    }
}

/// Whether the shader-side value of the format is an integer.
pub(super) fn is_integer(c: ColourFormat) -> bool {
    matches!(numeric(c), Numeric::Uint | Numeric::Sint)
}

/// Bits of R, G, B, A of the packed UNORM formats the tilebuffer holds as half floats (0 for
/// a channel the format lacks); `None` for every other format.
pub(super) fn half_float_unorm_bits(c: ColourFormat) -> Option<[u32; 4]> {
    match c {
        ColourFormat::R5G6B5Unorm => Some([5, 6, 5, 0]),
        ColourFormat::R5G5B5A1Unorm => Some([5, 5, 5, 1]),
        ColourFormat::R4G4B4A4Unorm => Some([4, 4, 4, 4]),
        _ => None,
    }
}

/// Channels the tilebuffer target holds (the logical channel count).
pub(super) fn channels(c: ColourFormat) -> u8 {
    c.channels().min(4) as u8
}

/// Elements of one target and their raw access format.
pub(crate) fn element_layout(c: ColourFormat, t: TibFormat) -> (u8, MemFormat) {
    match t {
        TibFormat::I8 | TibFormat::U8Norm | TibFormat::S8Norm | TibFormat::Srgba8 => {
            (channels(c), MemFormat::I8)
        }
        TibFormat::I16 | TibFormat::F16 | TibFormat::U16Norm | TibFormat::S16Norm => {
            (channels(c), MemFormat::I16)
        }
        TibFormat::I32 => (channels(c), MemFormat::I32),
        TibFormat::Rgb10A2 | TibFormat::Rg11B10F | TibFormat::Rgb9E5 => (1, MemFormat::I32),
    }
}

impl Sel<'_> {
    // Small emitters returning a fresh 32-bit register.

    pub(super) fn t32(&mut self) -> Result<Reg, CompileError> {
        self.temp(Size::S32)
    }

    pub(super) fn fop3(
        &mut self,
        op: FOp,
        a: Operand,
        b: Operand,
        c: Operand,
        saturate: bool,
    ) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.emit(Instr::FArith(FArith {
            op,
            dst: r.into(),
            a: FSrc::new(a),
            b: FSrc::new(b),
            c: FSrc::new(c),
            saturate,
        }));
        Ok(r)
    }

    pub(super) fn fadd_r(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        self.fop3(FOp::Add, a, b, Operand::Imm(0), false)
    }

    pub(super) fn fmul_r(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        self.fop3(FOp::Mul, a, b, Operand::Imm(0), false)
    }

    pub(super) fn fmad_r(
        &mut self,
        a: Operand,
        b: Operand,
        c: Operand,
    ) -> Result<Reg, CompileError> {
        self.fop3(FOp::MAdd, a, b, c, false)
    }

    /// clamp(x, 0, 1) (NaN becomes 0).
    pub(super) fn fsat_r(&mut self, a: Operand) -> Result<Reg, CompileError> {
        self.fop3(
            FOp::Add,
            a,
            Operand::Imm(NEG_ZERO_IMM),
            Operand::Imm(0),
            true,
        )
    }

    pub(super) fn fsub_r(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.emit(Instr::FArith(FArith {
            op: FOp::Add,
            dst: r.into(),
            a: FSrc::new(a),
            b: FSrc {
                neg: true,
                ..FSrc::new(b)
            },
            c: FSrc::new(Operand::Imm(0)),
            saturate: false,
        }));
        Ok(r)
    }

    /// min or max of two floats (a NaN operand yields the other one).
    pub(super) fn fminmax_r(
        &mut self,
        max: bool,
        a: Operand,
        b: Operand,
    ) -> Result<Reg, CompileError> {
        let (a, b) = (self.freg(a)?, self.freg(b)?);
        let r = self.t32()?;
        let c = if max { FCond::GtN } else { FCond::LtN };
        self.cmpsel(r, Cond::Float(c), a, b, a, b);
        Ok(r)
    }

    /// Compare-and-select reads immediates as raw bits, not through the float table: a
    /// float immediate becomes a register.
    pub(super) fn freg(&mut self, op: Operand) -> Result<Operand, CompileError> {
        match op {
            Operand::Imm(code) => {
                let x = float_table(code as u8);
                Ok(Operand::Reg(self.imm_r(x.to_bits())?))
            }
            other => Ok(other),
        }
    }

    pub(super) fn funary_r(&mut self, op: FUnaryOp, a: Operand) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.funary(op, r, a);
        Ok(r)
    }

    pub(super) fn conv_r(
        &mut self,
        op: ConvertOp,
        a: Operand,
        round: Round,
    ) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.emit(Instr::Convert(Convert {
            op,
            dst: r.into(),
            src: isrc(a),
            round,
        }));
        Ok(r)
    }

    pub(super) fn iadd_r(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.iadd(r, a, b, false);
        Ok(r)
    }

    pub(super) fn isub_r(&mut self, a: Operand, b: Operand) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.iadd(r, a, b, true);
        Ok(r)
    }

    pub(super) fn bitop_r(
        &mut self,
        a: Operand,
        b: Operand,
        table: u8,
    ) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.bitop(r, a, b, table);
        Ok(r)
    }

    pub(super) fn shl_r(&mut self, a: Operand, amount: u32) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.shl(r, a, Operand::Imm(amount));
        Ok(r)
    }

    /// `bits` bits of `a` from bit `at` (zero-extended).
    pub(super) fn ubfe_r(&mut self, a: Operand, at: u32, bits: u8) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.ushr(r, a, Operand::Imm(at), bits);
        Ok(r)
    }

    /// `a` with its low `bits` bits sign-extended.
    pub(super) fn sext_r(&mut self, a: Operand, bits: u32) -> Result<Reg, CompileError> {
        let up = self.shl_r(a, 32 - bits)?;
        let r = self.t32()?;
        self.asr(r, Operand::Reg(up), Operand::Imm(32 - bits));
        Ok(r)
    }

    /// `base | (value << at)`.
    pub(super) fn insert_r(
        &mut self,
        base: Operand,
        value: Operand,
        at: u32,
    ) -> Result<Reg, CompileError> {
        let s = self.shl_r(value, at)?;
        self.bitop_r(base, Operand::Reg(s), OR)
    }

    pub(super) fn imm_r(&mut self, v: u32) -> Result<Reg, CompileError> {
        let r = self.t32()?;
        self.emit(Instr::MovImm(MovImm {
            dst: r.into(),
            imm: v,
        }));
        Ok(r)
    }

    /// A float constant usable as any float operand.
    pub(super) fn fconst(&mut self, x: f32) -> Result<Operand, CompileError> {
        self.float_imm(x)
    }

    /// round(clamp(x, lo, 1) * scale) as a (signed when `lo` < 0) integer.
    pub(super) fn norm_to_int(
        &mut self,
        x: Reg,
        signed: bool,
        scale: f32,
    ) -> Result<Reg, CompileError> {
        let scaled = self.norm_scaled(x, signed, scale)?;
        let op = if signed {
            ConvertOp::FToS32
        } else {
            ConvertOp::FToU32
        };
        self.conv_r(op, Operand::Reg(scaled), Round::NearestEven)
    }

    /// [`Self::norm_to_int`] into the 16-bit register `dst` (the integer fits: `scale` is at
    /// most 65535, and the conversion saturates to 16 bits as it does to 32).
    fn norm_to_half(
        &mut self,
        x: Reg,
        signed: bool,
        scale: f32,
        dst: Reg,
    ) -> Result<(), CompileError> {
        let scaled = self.norm_scaled(x, signed, scale)?;
        self.emit(Instr::Convert(Convert {
            op: if signed {
                ConvertOp::FToS16
            } else {
                ConvertOp::FToU16
            },
            dst: dst.into(),
            src: isrc(Operand::Reg(scaled)),
            round: Round::NearestEven,
        }));
        Ok(())
    }

    /// `x` clamped to the normalised range and scaled to the integer range.
    fn norm_scaled(&mut self, x: Reg, signed: bool, scale: f32) -> Result<Reg, CompileError> {
        let clamped = if signed {
            let one = self.fconst(1.0)?;
            let m = self.fminmax_r(false, Operand::Reg(x), one)?;
            let neg_one = self.fconst(-1.0)?;
            self.fminmax_r(true, Operand::Reg(m), neg_one)?
        } else {
            self.fsat_r(Operand::Reg(x))?
        };
        let k = self.fconst(scale)?;
        self.fmul_r(Operand::Reg(clamped), k)
    }

    /// The float of a (zero- or sign-extended) normalised integer.
    pub(super) fn int_to_norm(
        &mut self,
        v: Reg,
        signed: bool,
        scale: f32,
    ) -> Result<Reg, CompileError> {
        let op = match (signed, v.size) {
            (false, Size::S16) => ConvertOp::U16ToF,
            (true, Size::S16) => ConvertOp::S16ToF,
            (false, _) => ConvertOp::U32ToF,
            (true, _) => ConvertOp::S32ToF,
        };
        let f = self.conv_r(op, Operand::Reg(v), Round::NearestEven)?;
        let k = self.fconst(1.0 / scale)?;
        let x = self.fmul_r(Operand::Reg(f), k)?;
        if signed {
            // -128 and -32768 map to -1 like their neighbours.
            let neg_one = self.fconst(-1.0)?;
            self.fminmax_r(true, Operand::Reg(x), neg_one)
        } else {
            Ok(x)
        }
    }

    /// f32 to f16 bits in the low half of a 32-bit register (round to nearest even). The
    /// 16-bit float opcodes take only 16-bit sources, so this is integer code: normal
    /// results round the f32 bits, subnormal ones come from |x| * 2^24 rounded to an
    /// integer, overflow saturates to infinity and NaN becomes a quiet NaN.
    pub(super) fn f32_to_f16_bits(
        &mut self,
        x: Operand,
        saturate: bool,
    ) -> Result<Reg, CompileError> {
        let x = if saturate {
            Operand::Reg(self.fsat_r(x)?)
        } else {
            x
        };
        let mag_mask = self.imm_r(0x7fff_ffff)?;
        let a = self.bitop_r(x, Operand::Reg(mag_mask), AND)?;
        let sign_bit = self.ubfe_r(x, 31, 1)?;
        let sign = self.shl_r(Operand::Reg(sign_bit), 15)?;
        let lsb = self.ubfe_r(Operand::Reg(a), 13, 1)?;
        let half_ulp = self.imm_r(0xfff)?;
        let bias = self.iadd_r(Operand::Reg(lsb), Operand::Reg(half_ulp))?;
        let rounded = self.iadd_r(Operand::Reg(a), Operand::Reg(bias))?;
        let shifted = self.ubfe_r(Operand::Reg(rounded), 13, 0)?;
        let rebias = self.imm_r(112 << 10)?;
        let normal = self.isub_r(Operand::Reg(shifted), Operand::Reg(rebias))?;
        let inf = self.imm_r(0x7c00)?;
        let capped = self.t32()?;
        self.cmpsel(
            capped,
            Cond::Int(ICond::ULt),
            Operand::Reg(normal),
            Operand::Reg(inf),
            Operand::Reg(normal),
            Operand::Reg(inf),
        );
        let nan_from = self.imm_r(0x7f80_0000)?;
        let qnan = self.imm_r(0x7e00)?;
        let big = self.t32()?;
        self.cmpsel(
            big,
            Cond::Int(ICond::UGt),
            Operand::Reg(a),
            Operand::Reg(nan_from),
            Operand::Reg(qnan),
            Operand::Reg(capped),
        );
        let scale = self.imm_r(16_777_216f32.to_bits())?;
        let scaled = self.fmul_r(Operand::Reg(a), Operand::Reg(scale))?;
        let sub = self.conv_r(ConvertOp::FToU32, Operand::Reg(scaled), Round::NearestEven)?;
        let min_normal = self.imm_r(0x3880_0000)?;
        let m = self.t32()?;
        self.cmpsel(
            m,
            Cond::Int(ICond::ULt),
            Operand::Reg(a),
            Operand::Reg(min_normal),
            Operand::Reg(sub),
            Operand::Reg(big),
        );
        self.bitop_r(Operand::Reg(m), Operand::Reg(sign), OR)
    }

    /// The f32 of f16 bits in the low half of a 32-bit register.
    fn f16_bits_to_f32(&mut self, bits: Reg) -> Result<Reg, CompileError> {
        let h = self.temp(Size::S16)?;
        self.copy(h, Operand::Reg(bits));
        self.fadd_r(Operand::Reg(h), Operand::Imm(NEG_ZERO_IMM))
    }

    /// Linear to sRGB-encoded, both in [0, 1].
    pub(super) fn srgb_encode(&mut self, x: Reg) -> Result<Reg, CompileError> {
        let c = self.fsat_r(Operand::Reg(x))?;
        let k = self.fconst(12.92)?;
        let low = self.fmul_r(Operand::Reg(c), k)?;
        let lg = self.funary_r(FUnaryOp::Log2, Operand::Reg(c))?;
        let e = self.fconst(1.0 / 2.4)?;
        let lgs = self.fmul_r(Operand::Reg(lg), e)?;
        let p = self.funary_r(FUnaryOp::Exp2, Operand::Reg(lgs))?;
        let a = self.fconst(1.055)?;
        let b = self.fconst(-0.055)?;
        let high = self.fmad_r(Operand::Reg(p), a, b)?;
        let limit = self.fconst(0.003_130_8)?;
        let limit = self.freg(limit)?;
        let r = self.t32()?;
        self.cmpsel(
            r,
            Cond::Float(FCond::Le),
            Operand::Reg(c),
            limit,
            Operand::Reg(low),
            Operand::Reg(high),
        );
        Ok(r)
    }

    /// sRGB-encoded to linear.
    fn srgb_decode(&mut self, c: Reg) -> Result<Reg, CompileError> {
        let k = self.fconst(1.0 / 12.92)?;
        let low = self.fmul_r(Operand::Reg(c), k)?;
        let a = self.fconst(1.0 / 1.055)?;
        let b = self.fconst(0.055 / 1.055)?;
        let base = self.fmad_r(Operand::Reg(c), a, b)?;
        let lg = self.funary_r(FUnaryOp::Log2, Operand::Reg(base))?;
        let e = self.fconst(2.4)?;
        let lgs = self.fmul_r(Operand::Reg(lg), e)?;
        let high = self.funary_r(FUnaryOp::Exp2, Operand::Reg(lgs))?;
        let limit = self.fconst(0.04045)?;
        let limit = self.freg(limit)?;
        let r = self.t32()?;
        self.cmpsel(
            r,
            Cond::Float(FCond::Le),
            Operand::Reg(c),
            limit,
            Operand::Reg(low),
            Operand::Reg(high),
        );
        Ok(r)
    }

    /// A non-negative float rounded to an unsigned float of `mantissa` bits and a 5-bit
    /// exponent (the 11- and 10-bit floats of B10G11R11), as its bits.
    fn small_float_bits(&mut self, x: Reg, mantissa: u32) -> Result<Reg, CompileError> {
        // max(x, -0) ignoring NaN, then the sign bit cleared: negatives and NaN become +0.
        let pos = self.fminmax_r(true, Operand::Reg(x), Operand::Imm(NEG_ZERO_IMM))?;
        let no_sign = self.imm_r(0x7fff_ffff)?;
        let pos = self.bitop_r(Operand::Reg(pos), Operand::Reg(no_sign), AND)?;
        let h = self.f32_to_f16_bits(Operand::Reg(pos), false)?;
        let drop = 10 - mantissa;
        // Round to nearest even on the dropped bits; infinity and NaN keep their class.
        let lsb = self.ubfe_r(Operand::Reg(h), drop, 1)?;
        let bias = self.iadd_r(Operand::Reg(lsb), Operand::Imm((1 << (drop - 1)) - 1))?;
        let rounded = self.iadd_r(Operand::Reg(h), Operand::Reg(bias))?;
        let r = self.ubfe_r(Operand::Reg(rounded), drop, (5 + mantissa) as u8)?;
        let truncated = self.ubfe_r(Operand::Reg(h), drop, (5 + mantissa) as u8)?;
        let inf_or_nan = self.imm_r(0x7c00)?;
        let out = self.t32()?;
        self.cmpsel(
            out,
            Cond::Int(ICond::ULt),
            Operand::Reg(h),
            Operand::Reg(inf_or_nan),
            Operand::Reg(r),
            Operand::Reg(truncated),
        );
        Ok(out)
    }

    /// An unsigned small float's bits back to f32.
    fn small_float_value(&mut self, bits: Reg, mantissa: u32) -> Result<Reg, CompileError> {
        let h = self.shl_r(Operand::Reg(bits), 10 - mantissa)?;
        self.f16_bits_to_f32(h)
    }

    /// 2^e as a float for an integer `e` (in a register) in the normal range.
    fn exp2_int(&mut self, e: Operand) -> Result<Reg, CompileError> {
        let biased = self.iadd_r(e, Operand::Imm(127))?;
        self.shl_r(Operand::Reg(biased), 23)
    }

    /// Packs three floats into the shared-exponent 9:9:9:5 word.
    fn pack_rgb9e5(&mut self, v: [Reg; 3]) -> Result<Reg, CompileError> {
        let max_val = self.fconst(65408.0)?;
        let mut c = [v[0]; 3];
        for (k, x) in v.iter().enumerate() {
            // NaN and negatives become 0: max(x, 0) with NaN ignored, then min.
            let lo = self.fminmax_r(true, Operand::Reg(*x), Operand::Imm(0))?;
            c[k] = self.fminmax_r(false, Operand::Reg(lo), max_val)?;
        }
        let m01 = self.fminmax_r(true, Operand::Reg(c[0]), Operand::Reg(c[1]))?;
        let m = self.fminmax_r(true, Operand::Reg(m01), Operand::Reg(c[2]))?;
        // floor(log2(m)) from the exponent field, at least -16: biased = max(exp, 111).
        let ebits = self.ubfe_r(Operand::Reg(m), 23, 8)?;
        let floor_min = self.imm_r(111)?;
        let eb = self.t32()?;
        self.cmpsel(
            eb,
            Cond::Int(ICond::UGt),
            Operand::Reg(ebits),
            Operand::Reg(floor_min),
            Operand::Reg(ebits),
            Operand::Reg(floor_min),
        );
        // exp_shared = floor(log2 m) + 16 = eb - 127 + 16; scale = 2^(24 - exp_shared).
        let exp_p = self.isub_r(Operand::Reg(eb), Operand::Imm(111))?;
        let neg = self.imm_r(24)?;
        let s_e = self.isub_r(Operand::Reg(neg), Operand::Reg(exp_p))?;
        let scale = self.exp2_int(Operand::Reg(s_e))?;
        let round = |s: &mut Self, x: Reg, scale: Reg| -> Result<Reg, CompileError> {
            let half = s.fconst(0.5)?;
            let y = s.fmad_r(Operand::Reg(x), Operand::Reg(scale), half)?;
            let f = s.funary_r(FUnaryOp::Floor, Operand::Reg(y))?;
            s.conv_r(ConvertOp::FToU32, Operand::Reg(f), Round::TowardZero)
        };
        let maxs = round(self, m, scale)?;
        let k512 = self.imm_r(512)?;
        let bump = self.t32()?;
        self.cmpsel(
            bump,
            Cond::Int(ICond::UEq),
            Operand::Reg(maxs),
            Operand::Reg(k512),
            Operand::Imm(1),
            Operand::Imm(0),
        );
        let exp_s = self.iadd_r(Operand::Reg(exp_p), Operand::Reg(bump))?;
        let s_e2 = self.isub_r(Operand::Reg(neg), Operand::Reg(exp_s))?;
        let scale2 = self.exp2_int(Operand::Reg(s_e2))?;
        let r = round(self, c[0], scale2)?;
        let g = round(self, c[1], scale2)?;
        let b = round(self, c[2], scale2)?;
        let w = self.insert_r(Operand::Reg(r), Operand::Reg(g), 9)?;
        let w = self.insert_r(Operand::Reg(w), Operand::Reg(b), 18)?;
        self.insert_r(Operand::Reg(w), Operand::Reg(exp_s), 27)
    }

    fn unpack_rgb9e5(&mut self, w: Reg) -> Result<[Reg; 3], CompileError> {
        let e = self.ubfe_r(Operand::Reg(w), 27, 5)?;
        let neg = self.isub_r(Operand::Reg(e), Operand::Imm(24))?;
        let scale = self.exp2_int(Operand::Reg(neg))?;
        let mut out = [w; 3];
        for (k, o) in out.iter_mut().enumerate() {
            let m = self.ubfe_r(Operand::Reg(w), 9 * k as u32, 9)?;
            let f = self.conv_r(ConvertOp::U32ToF, Operand::Reg(m), Round::NearestEven)?;
            *o = self.fmul_r(Operand::Reg(f), Operand::Reg(scale))?;
        }
        Ok(out)
    }

    /// Converts shader-side channel values to the tile elements of a target. `vals` has one
    /// register per channel (missing channels of the output are 0, alpha 1 for packed
    /// formats that need it: the caller's choice).
    pub(super) fn tib_pack(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        vals: [Reg; 4],
    ) -> Result<Vec<Element>, CompileError> {
        self.tib_pack_as(c, t, vals, false)
    }

    /// [`Self::tib_pack`] with the elements' bits in registers (raw formats), where a logic
    /// op needs them rather than `st_tile`'s own conversion.
    pub(super) fn tib_pack_bits(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        vals: [Reg; 4],
    ) -> Result<Vec<Element>, CompileError> {
        self.tib_pack_as(c, t, vals, true)
    }

    fn tib_pack_as(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        vals: [Reg; 4],
        bits: bool,
    ) -> Result<Vec<Element>, CompileError> {
        let (n, format) = element_layout(c, t);
        let unorm_float = matches!(
            c,
            ColourFormat::R5G6B5Unorm | ColourFormat::R5G5B5A1Unorm | ColourFormat::R4G4B4A4Unorm
        );
        let mut out = Vec::new();
        let word = |s: &mut Self, reg: Reg| -> Result<Vec<Element>, CompileError> {
            let _ = s;
            Ok(vec![Element {
                index: 0,
                format: MemFormat::I32,
                reg,
            }])
        };
        match t {
            TibFormat::I8 | TibFormat::I16 | TibFormat::I32 => {
                for (k, v) in vals.iter().enumerate().take(n.into()) {
                    out.push(Element {
                        index: k as u8,
                        format,
                        reg: *v,
                    });
                }
            }
            TibFormat::F16 => {
                for (k, v) in vals.iter().enumerate().take(n.into()) {
                    let reg = self.f32_to_f16_bits(Operand::Reg(*v), unorm_float)?;
                    out.push(Element {
                        index: k as u8,
                        format,
                        reg,
                    });
                }
            }
            TibFormat::U8Norm | TibFormat::S8Norm | TibFormat::U16Norm | TibFormat::S16Norm
                if bits =>
            {
                let (signed, scale) = match t {
                    TibFormat::U8Norm => (false, 255.0),
                    TibFormat::S8Norm => (true, 127.0),
                    TibFormat::U16Norm => (false, 65535.0),
                    _ => (true, 32767.0),
                };
                // The integers go to consecutive 16-bit halves of one register, which one
                // st_tile stores (tile_access).
                let id = self.new_vreg(Size::S64, false)?;
                for (k, v) in vals.iter().enumerate().take(n.into()) {
                    let reg = vreg(id, k as u16, Size::S16);
                    self.norm_to_half(*v, signed, scale, reg)?;
                    out.push(Element {
                        index: k as u8,
                        format,
                        reg,
                    });
                }
            }
            TibFormat::U8Norm | TibFormat::S8Norm | TibFormat::U16Norm | TibFormat::S16Norm => {
                // `st_tile` converts the floats itself (sim_gpu::texel::format's rule).
                let format = match t {
                    TibFormat::U8Norm => MemFormat::U8Norm,
                    TibFormat::S8Norm => MemFormat::S8Norm,
                    TibFormat::U16Norm => MemFormat::U16Norm,
                    _ => MemFormat::S16Norm,
                };
                for (k, v) in vals.iter().enumerate().take(n.into()) {
                    out.push(Element {
                        index: k as u8,
                        format,
                        reg: *v,
                    });
                }
            }
            TibFormat::Srgba8 => {
                for (k, v) in vals.iter().enumerate().take(n.into()) {
                    let enc = if k < 3 { self.srgb_encode(*v)? } else { *v };
                    let reg = self.norm_to_int(enc, false, 255.0)?;
                    out.push(Element {
                        index: k as u8,
                        format,
                        reg,
                    });
                }
            }
            TibFormat::Rgb10A2 => {
                let mut w = None;
                for (k, v) in vals.iter().enumerate() {
                    let scale = if k == 3 { 3.0 } else { 1023.0 };
                    let q = self.norm_to_int(*v, false, scale)?;
                    w = Some(match w {
                        None => q,
                        Some(acc) => {
                            self.insert_r(Operand::Reg(acc), Operand::Reg(q), 10 * k as u32)?
                        }
                    });
                }
                out = word(self, w.ok_or_else(|| unsupported("empty colour"))?)?;
            }
            TibFormat::Rg11B10F => {
                let r = self.small_float_bits(vals[0], 6)?;
                let g = self.small_float_bits(vals[1], 6)?;
                let b = self.small_float_bits(vals[2], 5)?;
                let w = self.insert_r(Operand::Reg(r), Operand::Reg(g), 11)?;
                let w = self.insert_r(Operand::Reg(w), Operand::Reg(b), 22)?;
                out = word(self, w)?;
            }
            TibFormat::Rgb9E5 => {
                let w = self.pack_rgb9e5([vals[0], vals[1], vals[2]])?;
                out = word(self, w)?;
            }
        }
        Ok(out)
    }

    /// Fresh registers for the raw elements of a target (for `ld_tile`). With `packed`, the
    /// elements of an unsigned normalised format go to consecutive 16-bit halves of one
    /// register, which one `ld_tile` fills (`tile_access`); `tib_unpack` reads them either
    /// way, bitwise logic ops want them 32-bit.
    pub(super) fn tib_elements(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        packed: bool,
    ) -> Result<Vec<Element>, CompileError> {
        let (n, format) = element_layout(c, t);
        let unsigned_norm = matches!(
            t,
            TibFormat::U8Norm | TibFormat::U16Norm | TibFormat::Srgba8
        );
        if packed && unsigned_norm && n >= 2 {
            let id = self.new_vreg(Size::S64, false)?;
            return Ok((0..n)
                .map(|k| Element {
                    index: k,
                    format,
                    reg: vreg(id, u16::from(k), Size::S16),
                })
                .collect());
        }
        (0..n)
            .map(|k| {
                Ok(Element {
                    index: k,
                    format,
                    reg: self.t32()?,
                })
            })
            .collect()
    }

    /// The elements of a normalised target as `ld_tile` converts them to floats, in the
    /// words of one register (one load); `None` for other formats.
    pub(super) fn tib_elements_as_floats(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
    ) -> Result<Option<Vec<Element>>, CompileError> {
        let format = match t {
            TibFormat::U8Norm => MemFormat::U8Norm,
            TibFormat::S8Norm => MemFormat::S8Norm,
            TibFormat::U16Norm => MemFormat::U16Norm,
            TibFormat::S16Norm => MemFormat::S16Norm,
            _ => return Ok(None),
        };
        let n = element_layout(c, t).0;
        let id = self.new_words(usize::from(n.max(2)))?;
        Ok(Some(
            (0..n)
                .map(|k| Element {
                    index: k,
                    format,
                    reg: word(id, usize::from(k)),
                })
                .collect(),
        ))
    }

    /// Like [`Self::tib_pack`], but `vals` are as memory holds them: an sRGB target's
    /// colour channels are already encoded (attachment loads through a descriptor without
    /// sRGB decoding), so they are only quantised.
    pub(super) fn tib_pack_stored(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        vals: [Reg; 4],
    ) -> Result<Vec<Element>, CompileError> {
        if t != TibFormat::Srgba8 {
            return self.tib_pack(c, t, vals);
        }
        self.tib_pack(c, TibFormat::U8Norm, vals)
    }

    /// Like [`Self::tib_unpack`], but yields the values memory is to hold: an sRGB target's
    /// colour channels stay encoded (attachment stores go through a PBE without sRGB
    /// encoding).
    pub(super) fn tib_unpack_stored(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        elems: &[Element],
    ) -> Result<[Reg; 4], CompileError> {
        if t != TibFormat::Srgba8 {
            return self.tib_unpack(c, t, elems);
        }
        self.tib_unpack(c, TibFormat::U8Norm, elems)
    }

    /// Converts loaded tile elements (zero-extended) to shader-side channel values; channels
    /// the format lacks read (0, 0, 0, 1).
    pub(super) fn tib_unpack(
        &mut self,
        c: ColourFormat,
        t: TibFormat,
        elems: &[Element],
    ) -> Result<[Reg; 4], CompileError> {
        let int = is_integer(c);
        let signed = numeric(c) == Numeric::Sint;
        let zero = self.imm_r(0)?;
        let one = if int {
            self.imm_r(1)?
        } else {
            self.imm_r(1.0f32.to_bits())?
        };
        let mut out = [zero, zero, zero, one];
        let first = elems
            .first()
            .map(|e| e.reg)
            .ok_or_else(|| unsupported("a target with no elements"))?;
        // Converted by the load (`tib_elements_as_floats`).
        if elems.iter().all(|e| {
            matches!(
                e.format,
                MemFormat::U8Norm | MemFormat::S8Norm | MemFormat::U16Norm | MemFormat::S16Norm
            )
        }) {
            for e in elems {
                out[usize::from(e.index)] = e.reg;
            }
            return Ok(out);
        }
        match t {
            TibFormat::I8 | TibFormat::I16 | TibFormat::I32 => {
                let bits = match t {
                    TibFormat::I8 => 8,
                    TibFormat::I16 => 16,
                    _ => 32,
                };
                for e in elems {
                    out[usize::from(e.index)] = if signed && bits < 32 {
                        self.sext_r(Operand::Reg(e.reg), bits)?
                    } else {
                        e.reg
                    };
                }
            }
            TibFormat::F16 => {
                for e in elems {
                    out[usize::from(e.index)] = self.f16_bits_to_f32(e.reg)?;
                }
            }
            TibFormat::U8Norm | TibFormat::S8Norm | TibFormat::U16Norm | TibFormat::S16Norm => {
                let (sg, bits, scale) = match t {
                    TibFormat::U8Norm => (false, 8, 255.0),
                    TibFormat::S8Norm => (true, 8, 127.0),
                    TibFormat::U16Norm => (false, 16, 65535.0),
                    _ => (true, 16, 32767.0),
                };
                for e in elems {
                    let v = if sg {
                        self.sext_r(Operand::Reg(e.reg), bits)?
                    } else {
                        e.reg
                    };
                    out[usize::from(e.index)] = self.int_to_norm(v, sg, scale)?;
                }
            }
            TibFormat::Srgba8 => {
                for e in elems {
                    let x = self.int_to_norm(e.reg, false, 255.0)?;
                    out[usize::from(e.index)] = if e.index < 3 { self.srgb_decode(x)? } else { x };
                }
            }
            TibFormat::Rgb10A2 => {
                for (k, o) in out.iter_mut().enumerate() {
                    let bits = if k == 3 { 2 } else { 10 };
                    let q = self.ubfe_r(Operand::Reg(first), 10 * k as u32, bits)?;
                    let scale = if k == 3 { 3.0 } else { 1023.0 };
                    *o = self.int_to_norm(q, false, scale)?;
                }
            }
            TibFormat::Rg11B10F => {
                for (k, (at, m)) in [(0, 6), (11, 6), (22, 5)].into_iter().enumerate() {
                    let b = self.ubfe_r(Operand::Reg(first), at, (5 + m) as u8)?;
                    out[k] = self.small_float_value(b, m)?;
                }
            }
            TibFormat::Rgb9E5 => {
                let [r, g, b] = self.unpack_rgb9e5(first)?;
                out[0] = r;
                out[1] = g;
                out[2] = b;
            }
        }
        Ok(out)
    }

    /// `ld_tile` (store false) or `st_tile` of elements at a target's byte offset, for the
    /// samples in `samples`.
    pub(super) fn tile_access(
        &mut self,
        store: bool,
        offset: u16,
        elems: &[Element],
        samples: Small,
        mask: u8,
    ) -> Result<(), CompileError> {
        let selected: Vec<&Element> = elems
            .iter()
            .filter(|e| mask & (1 << e.index) != 0)
            .collect();
        let mut k = 0;
        while k < selected.len() {
            let first = selected[k];
            // Elements that follow on in index, format and register (halves of one vreg, as
            // tib_pack leaves normalised integers) move with one instruction.
            // Halves of one virtual register are consecutive, and so are the two ids of a
            // 128-bit one.
            let first_id = first.reg.half / 4;
            let wide = self.vregs.get(usize::from(first_id)).map(|v| v.wide);
            let one_register = |half: u16| {
                half / 4 == first_id || (wide == Some(Wide::Low) && half / 4 == first_id + 1)
            };
            let mut run = 1;
            while let Some(e) = selected.get(k + run) {
                let step = run as u16 * first.reg.size.halves();
                let follows = e.index == first.index + run as u8
                    && e.format == first.format
                    && e.reg.size == first.reg.size
                    && e.reg.half == first.reg.half + step
                    && one_register(e.reg.half);
                if !follows {
                    break;
                }
                run += 1;
            }
            let last = selected[k + run - 1];
            let end = u32::from(offset) + (u32::from(last.index) + 1) * last.format.bytes();
            if end > 512 {
                return Err(unsupported(format!(
                    "colour target at tilebuffer byte {offset}"
                )));
            }
            self.emit(Instr::TileMem(TileMem {
                store,
                reg: first.reg,
                format: first.format,
                mask: (((1u16 << run) - 1) << first.index) as u8,
                pixel_offset: offset,
                samples,
                coords: None,
            }));
            k += run;
        }
        Ok(())
    }
}

/// The value of an 8-bit float immediate (applegpu's table: sign, 3-bit exponent, 4-bit
/// mantissa).
fn float_table(n: u8) -> f32 {
    let sign = if n & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((n >> 4) & 7);
    let f = f32::from(n & 0xf);
    if e == 0 {
        sign * f / 64.0
    } else {
        sign * (16.0 + f) * 2f32.powi(e - 7)
    }
}
