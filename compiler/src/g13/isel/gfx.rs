//! Selection of the graphics operations: varyings, colour outputs, discard and the graphics
//! system values (see `g13::graphics` for the ABI).
//!
//! Output writes go to one register per output word while the body runs, and the stores
//! (`st_vary`, `st_tile`) come once after it: the IR lets a shader write an output several
//! times, in control flow, and only the last write counts; the hardware also wants the last
//! `st_vary` marked.

use hw::g13::tilebuffer::TibFormat;
use hw::isa::*;

use super::{internal, isrc, size_of, unsupported, Sel, Val};
use crate::g13::graphics::{
    FragmentOutputs, VaryingLayout, CF_FRAG_X, CF_FRAG_Y, CF_FRONT_FACING, CF_W, CF_Z,
    FIRST_INSTANCE_OFFSET, FIRST_VERTEX_OFFSET, UVS_POINT_SIZE, UVS_POSITION,
};
use crate::g13::vreg;
use crate::ir::{self, InputInterp, Inst, Op, OutputBuiltin, Sampling, Stage, SysVal, Value};
use crate::CompileError;

/// Output key of gl_FragDepth (no colour location is this large).
const DEPTH_KEY: (u32, u8) = (u32::MAX, 0);

/// The interface a vertex or fragment shader is compiled against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GraphicsTarget<'a> {
    pub stage: Stage,
    pub layout: &'a VaryingLayout,
    pub outputs: &'a FragmentOutputs,
}

pub(super) fn is_graphics_sysval(sv: SysVal) -> bool {
    matches!(
        sv,
        SysVal::VertexIndex
            | SysVal::InstanceIndex
            | SysVal::FragCoord(_)
            | SysVal::FrontFacing
            | SysVal::SampleId
    )
}

/// The planes of 1/W at the pixel centre divide smooth varyings.
fn hw_interp(i: InputInterp) -> Result<(Option<u8>, Interpolation), CompileError> {
    let w = match i.mode {
        ir::Interpolation::Smooth => Some(CF_W),
        ir::Interpolation::NoPerspective | ir::Interpolation::Flat => None,
    };
    let at = match i.sampling {
        Sampling::Center => Interpolation::Center,
        Sampling::Centroid => Interpolation::Centroid,
        Sampling::Sample => return Err(unsupported("sample-qualified inputs in the G13 back end")),
    };
    Ok((w, at))
}

impl<'a> Sel<'a> {
    fn target(&self, what: &str) -> Result<GraphicsTarget<'a>, CompileError> {
        self.gfx
            .ok_or_else(|| unsupported(format!("{what} outside a vertex or fragment shader")))
    }

    fn stage_is(&self, stage: Stage, what: &str) -> Result<GraphicsTarget<'a>, CompileError> {
        let t = self.target(what)?;
        if t.stage != stage {
            return Err(unsupported(format!(
                "{what} in a {:?} shader in the G13 back end",
                t.stage
            )));
        }
        Ok(t)
    }

    /// A 32-bit result register for `d`.
    fn def32(&mut self, d: Value) -> Result<Reg, CompileError> {
        let r = self.def(d)?;
        if r.size != Size::S32 {
            return Err(internal(format!("graphics value %{} is not 32-bit", d.0)));
        }
        Ok(r)
    }

    fn iter(&mut self, dst: Reg, cf: u8, perspective_w: Option<u8>, interp: Interpolation) {
        self.emit(Instr::Iter(Iter {
            dst,
            channels: 1,
            cf,
            perspective_w,
            interp,
        }));
    }

    pub(super) fn graphics_sysval(&mut self, d: Value, sv: SysVal) -> Result<(), CompileError> {
        match sv {
            SysVal::VertexIndex | SysVal::InstanceIndex => {
                self.stage_is(Stage::Vertex, "VertexIndex / InstanceIndex")?;
                let (sr, base) = if sv == SysVal::VertexIndex {
                    (SpecialReg::THREAD_POSITION_IN_GRID_X, FIRST_VERTEX_OFFSET)
                } else {
                    (SpecialReg::THREAD_POSITION_IN_GRID_Y, FIRST_INSTANCE_OFFSET)
                };
                let t = self.temp(Size::S32)?;
                self.emit(Instr::GetSr(GetSr { dst: t.into(), sr }));
                let r = self.def32(d)?;
                let first = Operand::Uniform(Reg {
                    half: (base / 2) as u16,
                    size: Size::S32,
                });
                self.iadd(r, Operand::Reg(t), first, false);
            }
            SysVal::FragCoord(c @ 0..=3) => {
                self.stage_is(Stage::Fragment, "FragCoord")?;
                let cf = [CF_FRAG_X, CF_FRAG_Y, CF_Z, CF_W][usize::from(c)];
                let r = self.def32(d)?;
                self.iter(r, cf, None, Interpolation::Center);
            }
            SysVal::FrontFacing => {
                self.stage_is(Stage::Fragment, "FrontFacing")?;
                let t = self.temp(Size::S32)?;
                self.iter(t, CF_FRONT_FACING, None, Interpolation::Center);
                let r = self.def32(d)?;
                self.emit(Instr::Convert(Convert {
                    op: ConvertOp::FToU32,
                    dst: r.into(),
                    src: isrc(Operand::Reg(t)),
                    round: Round::TowardZero,
                }));
            }
            other => {
                return Err(unsupported(format!(
                    "system value {other:?} in the G13 back end"
                )))
            }
        }
        Ok(())
    }

    pub(super) fn graphics_op(&mut self, inst: &Inst) -> Result<(), CompileError> {
        match &inst.op {
            Op::LoadInput {
                location,
                component,
                interp,
            } => {
                let t = self.stage_is(Stage::Fragment, "LoadInput (vertex attributes)")?;
                let slot = *t.layout.find(*location, *component).ok_or_else(|| {
                    unsupported(format!(
                        "input location {location} component {component} is not in the varying layout"
                    ))
                })?;
                if slot.interp != interp.mode {
                    return Err(unsupported(format!(
                        "input location {location} is {:?} but the layout has {:?}",
                        interp.mode, slot.interp
                    )));
                }
                let (w, at) = hw_interp(*interp)?;
                let r = self.def32(self.dst(inst)?)?;
                self.iter(r, slot.cf, w, at);
                Ok(())
            }
            Op::StoreOutput {
                location,
                component,
                value,
            } => {
                let t = self.target("StoreOutput")?;
                match t.stage {
                    Stage::Vertex => match t.layout.find(*location, *component) {
                        Some(slot) => self.record_output((u32::from(slot.uvs), 0), *value),
                        // No fragment shader input reads it.
                        None => Ok(()),
                    },
                    _ => {
                        if *component > 3 {
                            return Err(internal("colour component past 3"));
                        }
                        if t.outputs.find(*location).is_none() {
                            // Writes to a location with no attachment are discarded.
                            return Ok(());
                        }
                        self.record_output((*location, *component), *value)
                    }
                }
            }
            Op::StoreBuiltin {
                builtin,
                component,
                value,
            } => {
                let t = self.target("StoreBuiltin")?;
                match (builtin, t.stage) {
                    (OutputBuiltin::Position, Stage::Vertex) if *component < 4 => {
                        self.record_output((u32::from(UVS_POSITION + component), 0), *value)
                    }
                    (OutputBuiltin::PointSize, Stage::Vertex) if *component == 0 => {
                        if t.layout.point_size {
                            self.record_output((u32::from(UVS_POINT_SIZE), 0), *value)
                        } else {
                            Ok(())
                        }
                    }
                    (OutputBuiltin::FragDepth, Stage::Fragment) if *component == 0 => {
                        self.record_output(DEPTH_KEY, *value)
                    }
                    (b, s) => Err(unsupported(format!(
                        "built-in output {b:?}[{component}] of a {s:?} shader in the G13 back end"
                    ))),
                }
            }
            Op::Discard => {
                self.stage_is(Stage::Fragment, "Discard")?;
                // Every sample of the lanes running this instruction loses coverage.
                self.emit(Instr::SampleMask(SampleMask {
                    targets: Small::Imm(0xff),
                    live: Small::Imm(0),
                }));
                Ok(())
            }
            other => Err(internal(format!("{other:?} is not a graphics operation"))),
        }
    }

    /// Copies `value` into the register standing for output word `key`.
    fn record_output(&mut self, key: (u32, u8), value: Value) -> Result<(), CompileError> {
        if size_of(self.ty(value)?)? != Size::S32 {
            return Err(unsupported(format!(
                "output of type {:?} in the G13 back end",
                self.ty(value)?
            )));
        }
        let id = match self.outputs.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.new_vreg(Size::S32, true)?;
                self.outputs.insert(key, id);
                id
            }
        };
        let dst = vreg(id, 0, Size::S32);
        match self.val(value)? {
            Val::Const(bits, _) => self.emit(Instr::MovImm(MovImm {
                dst: dst.into(),
                imm: bits as u32,
            })),
            _ => {
                let src = self.iop(value)?;
                self.copy(dst, src);
            }
        }
        Ok(())
    }

    /// The stores after the body.
    pub(super) fn write_outputs(&mut self) -> Result<(), CompileError> {
        let t = self.target("outputs")?;
        let outs: Vec<((u32, u8), u16)> = self.outputs.iter().map(|(&k, &v)| (k, v)).collect();
        match t.stage {
            Stage::Vertex => {
                let n = outs.len();
                for (i, ((slot, _), id)) in outs.into_iter().enumerate() {
                    let index =
                        u8::try_from(slot).map_err(|_| unsupported(format!("UVS word {slot}")))?;
                    self.emit(Instr::StVary(StVary {
                        src: vreg(id, 0, Size::S32),
                        index: Small::Imm(index),
                        last: i + 1 == n,
                    }));
                }
            }
            _ => {
                for ((location, component), id) in outs {
                    if (location, component) == DEPTH_KEY {
                        self.emit(Instr::ZsEmit(ZsEmit {
                            samples: Small::Imm(0xff),
                            src: vreg(id, 0, Size::S32),
                            depth: true,
                            stencil: false,
                        }));
                        continue;
                    }
                    let c = *t
                        .outputs
                        .find(location)
                        .ok_or_else(|| internal("recorded a colour output with no target"))?;
                    let value = vreg(id, 0, Size::S32);
                    let (reg, format) = match c.format {
                        TibFormat::I32 => (value, MemFormat::I32),
                        TibFormat::U8Norm => (self.unorm8_of(value)?, MemFormat::I8),
                        other => {
                            return Err(unsupported(format!(
                                "colour target format {other:?} in the G13 back end"
                            )))
                        }
                    };
                    let bytes = if format == MemFormat::I32 { 4 } else { 1 };
                    if u32::from(c.offset) + bytes * 4 > 512 {
                        return Err(unsupported(format!(
                            "colour target at tilebuffer byte {}",
                            c.offset
                        )));
                    }
                    self.emit(Instr::TileMem(TileMem {
                        store: true,
                        reg,
                        format,
                        mask: 1 << component,
                        pixel_offset: c.offset,
                        samples: Small::Imm(0xff),
                        coords: None,
                    }));
                }
            }
        }
        Ok(())
    }

    /// round(clamp(x, 0, 1) * 255) as an integer.
    fn unorm8_of(&mut self, x: Reg) -> Result<Reg, CompileError> {
        let zero = self.float_imm(0.0)?;
        let clamped = self.temp(Size::S32)?;
        self.emit(Instr::FArith(FArith {
            op: FOp::Add,
            dst: clamped.into(),
            a: FSrc::new(Operand::Reg(x)),
            b: FSrc::new(zero),
            c: FSrc::new(Operand::Imm(0)),
            saturate: true,
        }));
        let scale = self.float_imm(255.0)?;
        let scaled = self.temp(Size::S32)?;
        self.farith(
            FOp::Mul,
            scaled,
            FSrc::new(Operand::Reg(clamped)),
            FSrc::new(scale),
            FSrc::new(Operand::Imm(0)),
        );
        let r = self.temp(Size::S32)?;
        self.emit(Instr::Convert(Convert {
            op: ConvertOp::FToU32,
            dst: r.into(),
            src: isrc(Operand::Reg(scaled)),
            round: Round::NearestEven,
        }));
        Ok(r)
    }
}
