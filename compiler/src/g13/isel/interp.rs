//! Selection of `InterpolateInput` (GLSL's interpolateAtCentroid, interpolateAtSample and
//! interpolateAtOffset).
//!
//! Centroid and sample positions are points `iter` evaluates at (the centroid of a per-sample
//! shader is its sample, as for centroid inputs). An offset is not: as Mesa's
//! AGX back end does, the shader loads the raw plane coefficients (A, B, C) with `ldcf` and
//! evaluates A * x + B * y + C itself, dividing by the 1/W plane evaluated the same way for
//! perspective-correct inputs. agx4's planes are in framebuffer pixels (docs/render-abi.md
//! section 4), so the point is the lane's pixel + 0.5 + the offset.

use hw::isa::*;

use super::{unsupported, Sel};
use crate::g13::graphics::CF_W;
use crate::g13::vreg;
use crate::ir::{InterpolateAt, Interpolation as Mode, Stage, Value};
use crate::CompileError;

/// Where the `ldcf` result run lives: A and B in the 64-bit register at this half, C in the
/// 32-bit one after it. `ldcf` writes three 32-bit registers, more than a virtual register
/// holds, so the run is a fixed register pair (as the tile programs' texel runs are).
const COEFFICIENT_HALF: u16 = 8;

impl Sel<'_> {
    pub(super) fn interpolate_input(
        &mut self,
        d: Value,
        location: u32,
        component: u8,
        mode: Mode,
        at: InterpolateAt,
    ) -> Result<(), CompileError> {
        let t = self.stage_is(Stage::Fragment, "InterpolateInput")?;
        let slot = *t.layout.find(location, component).ok_or_else(|| {
            unsupported(format!(
                "input location {location} component {component} is not in the varying layout"
            ))
        })?;
        if slot.interp != mode {
            return Err(unsupported(format!(
                "input location {location} is interpolated {mode:?} and {:?}",
                slot.interp
            )));
        }
        let w = (mode == Mode::Smooth).then_some(CF_W);
        let point = match at {
            // GLSL: the value a centroid-qualified input would get, and a per-sample shader
            // gives those its sample's (a point inside the pixel and the primitive).
            InterpolateAt::Centroid => match self.sample {
                Some(s) => Interpolation::Sample(s.index16()),
                None => Interpolation::Centroid,
            },
            InterpolateAt::Sample(index) => {
                // Only existing samples: the index is taken modulo the (power of two)
                // sample count, so an out-of-range one reads some sample instead of faulting.
                let samples = t.outputs.samples.max(1);
                let i = self.iop(index)?;
                let r = self.t32()?;
                self.bitop(r, i, Operand::Imm(samples - 1), super::AND);
                Interpolation::Sample(Small::Reg(Reg {
                    half: r.half,
                    size: Size::S16,
                }))
            }
            InterpolateAt::Offset(x, y) => {
                let (x, y) = (self.fop(x)?, self.fop(y)?);
                let (px, py) = self.offset_point(x, y)?;
                let mut v = self.eval_plane(slot.cf, px, py)?;
                if let Some(w) = w {
                    let inv_w = self.eval_plane(w, px, py)?;
                    let rcp = self.funary_r(FUnaryOp::Rcp, Operand::Reg(inv_w))?;
                    v = self.fmul_r(Operand::Reg(v), Operand::Reg(rcp))?;
                }
                let r = self.def32(d)?;
                self.copy(r, Operand::Reg(v));
                return Ok(());
            }
        };
        let r = self.def32(d)?;
        self.emit(Instr::Iter(Iter {
            dst: r,
            channels: 1,
            cf: slot.cf,
            perspective_w: w,
            interp: point,
        }));
        Ok(())
    }

    /// The framebuffer point (pixel + 0.5 + offset) of each lane, as floats.
    fn offset_point(&mut self, ox: Operand, oy: Operand) -> Result<(Reg, Reg), CompileError> {
        let half = self.float_imm(0.5)?;
        let mut out = [Reg::r32(0); 2];
        for (k, (sr, o)) in [
            (SpecialReg::THREAD_POSITION_IN_GRID_X, ox),
            (SpecialReg::THREAD_POSITION_IN_GRID_Y, oy),
        ]
        .into_iter()
        .enumerate()
        {
            let p = self.t32()?;
            self.emit(Instr::GetSr(GetSr { dst: p.into(), sr }));
            let f = self.conv_r(ConvertOp::U32ToF, Operand::Reg(p), Round::NearestEven)?;
            let c = self.fadd_r(Operand::Reg(f), half)?;
            out[k] = self.fadd_r(Operand::Reg(c), o)?;
        }
        Ok((out[0], out[1]))
    }

    /// A * x + B * y + C of coefficient slot `cf`.
    fn eval_plane(&mut self, cf: u8, x: Reg, y: Reg) -> Result<Reg, CompileError> {
        let [ab, c] = self.coefficient_run()?;
        self.emit(Instr::LdCf(LdCf {
            dst: vreg(ab, 0, Size::S32),
            channels: 1,
            cf,
        }));
        let (a, b) = (vreg(ab, 0, Size::S32), vreg(ab, 2, Size::S32));
        let c = vreg(c, 0, Size::S32);
        let by = self.fmad_r(Operand::Reg(b), Operand::Reg(y), Operand::Reg(c))?;
        self.fmad_r(Operand::Reg(a), Operand::Reg(x), Operand::Reg(by))
    }

    /// The fixed registers `ldcf` writes, made on first use.
    fn coefficient_run(&mut self) -> Result<[u16; 2], CompileError> {
        if let Some(run) = self.coefficients {
            return Ok(run);
        }
        let mut run = [0; 2];
        for (k, (half, size)) in [
            (COEFFICIENT_HALF, Size::S64),
            (COEFFICIENT_HALF + 4, Size::S32),
        ]
        .into_iter()
        .enumerate()
        {
            let id = self.new_vreg(size, true)?;
            self.vregs[id as usize].fixed = Some(half);
            run[k] = id;
        }
        self.coefficients = Some(run);
        Ok(run)
    }
}
