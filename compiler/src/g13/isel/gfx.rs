//! Selection of the graphics operations: varyings, colour outputs, discard and the graphics
//! system values (see `g13::graphics` for the ABI).
//!
//! Output writes go to one register per output word while the body runs, and the stores
//! (`st_vary`, `st_tile`) come once after it: the IR lets a shader write an output several
//! times, in control flow, and only the last write counts; the hardware also wants the last
//! `st_vary` marked.

use hw::isa::*;

use super::{internal, isrc, size_of, unsupported, Sel, Val, AND, XOR};
use crate::g13::graphics::{
    FragmentOutputs, VaryingLayout, CF_W, CF_Z, PRELOAD_INSTANCE_NUMBER, PRELOAD_VERTEX_INDEX,
    UVS_POINT_SIZE, UVS_POSITION,
};
use crate::g13::{vreg, word};
use crate::graphics_api::CoverageOptions;
use crate::ir::{self, InputInterp, Inst, Node, Op, OutputBuiltin, Sampling, Stage, SysVal, Value};
use crate::{abi, CompileError};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Which output a store writes, as the IR names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum StoreKey {
    Location(u32, u8),
    Builtin(OutputBuiltin, u8),
}

fn store_key(op: &Op) -> Option<StoreKey> {
    match *op {
        Op::StoreOutput {
            location,
            component,
            ..
        } => Some(StoreKey::Location(location, component)),
        Op::StoreBuiltin {
            builtin, component, ..
        } => Some(StoreKey::Builtin(builtin, component)),
        _ => None,
    }
}

/// The outputs `body` writes with exactly one store, outside any `if` or loop.
pub(super) fn sole_top_level_stores(body: &[Node]) -> HashSet<StoreKey> {
    fn walk(
        nodes: &[Node],
        top: bool,
        count: &mut HashMap<StoreKey, u32>,
        at_top: &mut HashSet<StoreKey>,
    ) {
        for n in nodes {
            match n {
                Node::Block(insts) => {
                    for k in insts.iter().filter_map(|i| store_key(&i.op)) {
                        *count.entry(k).or_default() += 1;
                        if top {
                            at_top.insert(k);
                        }
                    }
                }
                Node::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    walk(then_body, false, count, at_top);
                    walk(else_body, false, count, at_top);
                }
                Node::Loop { body } => walk(body, false, count, at_top),
                Node::Break | Node::Continue | Node::Return => {}
            }
        }
    }
    let mut count = HashMap::new();
    let mut at_top = HashSet::new();
    walk(body, true, &mut count, &mut at_top);
    at_top.retain(|k| count.get(k) == Some(&1));
    at_top
}

/// Whether `body` has a `return` anywhere in it.
fn returns_from(body: &[Node]) -> bool {
    body.iter().any(|n| match n {
        Node::Return => true,
        Node::If {
            then_body,
            else_body,
            ..
        } => returns_from(then_body) || returns_from(else_body),
        Node::Loop { body } => returns_from(body),
        Node::Block(_) | Node::Break | Node::Continue => false,
    })
}

/// Calls `f` for every system value `body` reads.
fn reads_sysvals(body: &[Node], f: &mut impl FnMut(SysVal)) {
    for n in body {
        match n {
            Node::Block(insts) => {
                for i in insts {
                    if let Op::SysVal(sv) = i.op {
                        f(sv);
                    }
                }
            }
            Node::If {
                then_body,
                else_body,
                ..
            } => {
                reads_sysvals(then_body, f);
                reads_sysvals(else_body, f);
            }
            Node::Loop { body } => reads_sysvals(body, f),
            Node::Break | Node::Continue | Node::Return => {}
        }
    }
}

/// Output key of gl_FragDepth (no colour location is this large).
const DEPTH_KEY: (u32, u8) = (u32::MAX, 0);
/// Output key of gl_SampleMask[0].
const SAMPLE_MASK_KEY: (u32, u8) = (u32::MAX, 1);
/// Output key of location 0's alpha as alpha to coverage reads it (also with no attachment
/// at location 0).
const COVERAGE_ALPHA_KEY: (u32, u8) = (u32::MAX, 2);
/// Output words of the second blend source (Location 0 Index 1), by component.
const SECOND_SOURCE_LOCATION: u32 = u32::MAX - 1;

/// The interface a vertex or fragment shader is compiled against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GraphicsTarget<'a> {
    pub stage: Stage,
    pub layout: &'a VaryingLayout,
    pub outputs: &'a FragmentOutputs,
    /// Fragment shaders: run once per sample (SampleId, `sample` inputs, sample shading).
    pub per_sample: bool,
    /// Fragment shaders: the API sample mask and alpha-to-one.
    pub coverage: CoverageOptions,
}

impl GraphicsTarget<'_> {
    /// Whether the body runs in a loop over the pixel's samples. With one sample per pixel
    /// the single run is already per sample.
    pub fn per_sample_loop(&self) -> bool {
        self.per_sample && self.stage == Stage::Fragment && self.outputs.samples > 1
    }
}

/// The sample a per-sample fragment shader's loop is shading: its index and the one-bit
/// mask of it, both 32-bit registers whose low halves serve as 16-bit sample operands.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SampleIter {
    pub(super) index: Reg,
    pub(super) bit: Reg,
}

impl SampleIter {
    /// The sample index as a 16-bit sample operand.
    pub(super) fn index16(&self) -> Small {
        Self::low(self.index)
    }

    fn low(r: Reg) -> Small {
        Small::Reg(Reg {
            half: r.half,
            size: Size::S16,
        })
    }
}

pub(super) fn is_graphics_sysval(sv: SysVal) -> bool {
    matches!(
        sv,
        SysVal::VertexIndex
            | SysVal::InstanceIndex
            | SysVal::FragCoord(_)
            | SysVal::PointCoord(_)
            | SysVal::FrontFacing
            | SysVal::SampleId
            | SysVal::SamplePosition(_)
            | SysVal::ViewIndex
            | SysVal::SampleMaskIn
            | SysVal::HelperInvocation
    )
}

/// Vulkan's standard sample locations for `samples` per pixel (the ones the render command
/// programs), a byte per sample: x in the low nibble, y in the high one, in 1/16 pixel.
fn standard_locations(samples: u32) -> Result<u32, CompileError> {
    match samples {
        1 => Ok(0x88),
        2 => Ok(0x44cc),
        4 => Ok(0xeaa2_6e26),
        n => Err(unsupported(format!("sample positions of {n} samples"))),
    }
}

/// The planes of 1/W at the pixel centre divide smooth varyings. A shader running per sample
/// evaluates every input at the sample it shades (as GL's sample shading does: each sample
/// then gets its own value); `sample` inputs of a single-sampled pixel use its centre.
fn hw_interp(
    i: InputInterp,
    sample: Option<SampleIter>,
) -> Result<(Option<u8>, Interpolation), CompileError> {
    let w = match i.mode {
        ir::Interpolation::Smooth => Some(CF_W),
        ir::Interpolation::NoPerspective | ir::Interpolation::Flat => None,
    };
    let at = match (sample, i.sampling) {
        (Some(s), _) => Interpolation::Sample(SampleIter::low(s.index)),
        (None, Sampling::Center | Sampling::Sample) => Interpolation::Center,
        (None, Sampling::Centroid) => Interpolation::Centroid,
    };
    Ok((w, at))
}

impl<'a> Sel<'a> {
    pub(super) fn target(&self, what: &str) -> Result<GraphicsTarget<'a>, CompileError> {
        self.gfx
            .ok_or_else(|| unsupported(format!("{what} outside a vertex or fragment shader")))
    }

    pub(super) fn stage_is(
        &self,
        stage: Stage,
        what: &str,
    ) -> Result<GraphicsTarget<'a>, CompileError> {
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
    pub(super) fn def32(&mut self, d: Value) -> Result<Reg, CompileError> {
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

    /// Copies the preloaded registers the shader reads into ordinary registers before
    /// anything else runs, so the allocator only has to keep the physical ones until then.
    pub(super) fn capture_preloads(&mut self) -> Result<(), CompileError> {
        let Some(t) = self.gfx else { return Ok(()) };
        if t.stage != Stage::Vertex {
            return Ok(());
        }
        let mut wanted = Vec::new();
        reads_sysvals(&self.shader.body, &mut |sv| {
            let half = match sv {
                SysVal::VertexIndex => PRELOAD_VERTEX_INDEX,
                SysVal::InstanceIndex => PRELOAD_INSTANCE_NUMBER,
                _ => return,
            };
            if !wanted.contains(&half) {
                wanted.push(half);
            }
        });
        for half in wanted {
            let id = self.new_vreg(Size::S32, false)?;
            self.vregs[id as usize].fixed = Some(half);
            let copy = self.temp(Size::S32)?;
            self.copy(copy, Operand::Reg(vreg(id, 0, Size::S32)));
            self.preloads.insert(half, copy);
        }
        Ok(())
    }

    fn preloaded(&self, half: u16) -> Result<Reg, CompileError> {
        self.preloads
            .get(&half)
            .copied()
            .ok_or_else(|| internal(format!("preloaded register at half {half} not captured")))
    }

    pub(super) fn graphics_sysval(&mut self, d: Value, sv: SysVal) -> Result<(), CompileError> {
        match sv {
            SysVal::VertexIndex => {
                self.stage_is(Stage::Vertex, "VertexIndex")?;
                let src = self.preloaded(PRELOAD_VERTEX_INDEX)?;
                let r = self.def32(d)?;
                self.copy(r, Operand::Reg(src));
            }
            SysVal::InstanceIndex => {
                self.stage_is(Stage::Vertex, "InstanceIndex")?;
                let src = self.preloaded(PRELOAD_INSTANCE_NUMBER)?;
                let r = self.def32(d)?;
                let first = Operand::Uniform(Reg {
                    half: (abi::FIRST_INSTANCE_OFFSET / 2) as u16,
                    size: Size::S32,
                });
                self.iadd(r, Operand::Reg(src), first, false);
            }
            SysVal::ViewIndex => {
                // The same for every invocation of the draw: the ICD writes it into each
                // view's copy of the root table, so it stays a uniform operand.
                self.target("ViewIndex")?;
                self.set(
                    d,
                    Val::Uniform(Reg {
                        half: (abi::VIEW_INDEX_OFFSET / 2) as u16,
                        size: Size::S32,
                    }),
                )?;
            }
            SysVal::FragCoord(c @ 0..=1) => {
                self.stage_is(Stage::Fragment, "FragCoord")?;
                let sr = if c == 0 {
                    SpecialReg::THREAD_POSITION_IN_GRID_X
                } else {
                    SpecialReg::THREAD_POSITION_IN_GRID_Y
                };
                let px = self.temp(Size::S32)?;
                self.emit(Instr::GetSr(GetSr { dst: px.into(), sr }));
                let f = self.temp(Size::S32)?;
                self.emit(Instr::Convert(Convert {
                    op: ConvertOp::U32ToF,
                    dst: f.into(),
                    src: isrc(Operand::Reg(px)),
                    round: Round::NearestEven,
                }));
                // Vulkan: with sample shading, the position of the sample being shaded.
                let offset = match self.sample {
                    Some(s) => Operand::Reg(self.sample_offset(s, c)?),
                    None => self.float_imm(0.5)?,
                };
                let r = self.def32(d)?;
                self.farith(
                    FOp::Add,
                    r,
                    FSrc::new(Operand::Reg(f)),
                    FSrc::new(offset),
                    FSrc::new(Operand::Imm(0)),
                );
            }
            SysVal::PointCoord(c @ 0..=1) => {
                let t = self.target("PointCoord")?;
                self.stage_is(Stage::Fragment, "PointCoord")?;
                let base = t.layout.point_coord_cf.ok_or_else(|| {
                    internal("PointCoord read without its coefficient slots in the layout")
                })?;
                let r = self.def32(d)?;
                self.iter(r, base + c, None, Interpolation::Center);
            }
            SysVal::FragCoord(c @ 2..=3) => {
                self.stage_is(Stage::Fragment, "FragCoord")?;
                // Slot W holds the plane of 1/W, which is what FragCoord.w is.
                let cf = if c == 2 { CF_Z } else { CF_W };
                let r = self.def32(d)?;
                self.iter(r, cf, None, Interpolation::Center);
            }
            SysVal::SampleId => {
                self.stage_is(Stage::Fragment, "SampleId")?;
                let r = self.def32(d)?;
                match self.sample {
                    Some(s) => self.copy(r, Operand::Reg(s.index)),
                    None => {
                        let t = self.target("SampleId")?;
                        if t.per_sample_loop() || !t.per_sample {
                            return Err(internal("SampleId outside the per-sample loop"));
                        }
                        // One sample per pixel: it is sample 0.
                        self.emit(Instr::MovImm(MovImm {
                            dst: r.into(),
                            imm: 0,
                        }));
                    }
                }
            }
            SysVal::SamplePosition(c @ 0..=1) => {
                self.stage_is(Stage::Fragment, "SamplePosition")?;
                match self.sample {
                    Some(s) => {
                        let at = self.sample_offset(s, c)?;
                        let r = self.def32(d)?;
                        self.copy(r, Operand::Reg(at));
                    }
                    // One sample per pixel: it sits at the centre.
                    None => {
                        let r = self.def32(d)?;
                        self.emit(Instr::MovImm(MovImm {
                            dst: r.into(),
                            imm: 0.5f32.to_bits(),
                        }));
                    }
                }
            }
            SysVal::SampleMaskIn => {
                let t = self.stage_is(Stage::Fragment, "SampleMaskIn")?;
                let covered = self.temp(Size::S32)?;
                self.emit(Instr::GetSr(GetSr {
                    dst: covered.into(),
                    sr: SpecialReg::INPUT_SAMPLE_MASK,
                }));
                // The samples the pipeline's sample mask drops are not covered (the sample
                // mask test comes before shading); a per-sample shader sees only its sample.
                let all = (1u32 << t.outputs.samples.clamp(1, 8)) - 1;
                let mut mask = Operand::Reg(covered);
                if t.coverage.sample_mask & all != all {
                    let keep = self.imm_r(t.coverage.sample_mask & all)?;
                    mask = Operand::Reg(self.bitop_r(mask, Operand::Reg(keep), AND)?);
                }
                if let Some(s) = self.sample {
                    mask = Operand::Reg(self.bitop_r(mask, Operand::Reg(s.bit), AND)?);
                }
                let r = self.def32(d)?;
                self.copy(r, mask);
            }
            SysVal::HelperInvocation => {
                self.stage_is(Stage::Fragment, "HelperInvocation")?;
                // A helper has no sample left to shade (in a per-sample shader: its sample).
                let covered = self.temp(Size::S32)?;
                self.emit(Instr::GetSr(GetSr {
                    dst: covered.into(),
                    sr: SpecialReg::COVERAGE_MASK,
                }));
                let mut live = Operand::Reg(covered);
                if let Some(s) = self.sample {
                    live = Operand::Reg(self.bitop_r(live, Operand::Reg(s.bit), AND)?);
                }
                let r = self.def32(d)?;
                self.cmpsel(
                    r,
                    Cond::Int(ICond::UEq),
                    live,
                    Operand::Imm(0),
                    Operand::Imm(1),
                    Operand::Imm(0),
                );
            }
            SysVal::FrontFacing => {
                self.stage_is(Stage::Fragment, "FrontFacing")?;
                let back = self.temp(Size::S32)?;
                self.emit(Instr::GetSr(GetSr {
                    dst: back.into(),
                    sr: SpecialReg::BACKFACING,
                }));
                let r = self.def32(d)?;
                self.bitop(r, Operand::Reg(back), Operand::Imm(1), XOR);
            }
            other => {
                return Err(unsupported(format!(
                    "system value {other:?} in the G13 back end"
                )))
            }
        }
        Ok(())
    }

    /// The runs of a fragment block's interpolated inputs that one `iter` can evaluate: two
    /// to four components of one location, read with one interpolation, whose coefficient
    /// slots follow each other. By the first load of each run in the block: the results,
    /// by component.
    pub(super) fn input_runs(&self, insts: &[Inst]) -> HashMap<Value, Vec<Value>> {
        let mut runs = HashMap::new();
        let Some(t) = self.gfx.filter(|t| t.stage == Stage::Fragment) else {
            return runs;
        };
        // Per (location, interpolation): the first load of each component, in order, as
        // (component, coefficient slot, result).
        type Loads = Vec<(u8, u8, Value)>;
        let mut seen: Vec<((u32, InputInterp), Loads)> = Vec::new();
        for i in insts {
            let (
                Op::LoadInput {
                    location,
                    component,
                    interp,
                },
                Some(d),
            ) = (&i.op, i.dst)
            else {
                continue;
            };
            let Some(slot) = t.layout.find(*location, *component) else {
                continue;
            };
            if interp.mode == ir::Interpolation::Flat || slot.interp != interp.mode {
                continue;
            }
            let key = (*location, *interp);
            let k = match seen.iter().position(|s| s.0 == key) {
                Some(k) => k,
                None => {
                    seen.push((key, Vec::new()));
                    seen.len() - 1
                }
            };
            if !seen[k].1.iter().any(|c| c.0 == *component) {
                seen[k].1.push((*component, slot.cf, d));
            }
        }
        for (_, mut comps) in seen {
            let first = comps.first().map(|c| c.2);
            comps.sort_by_key(|c| c.0);
            let Some(&(c0, cf0, _)) = comps.first() else {
                continue;
            };
            let run: Vec<Value> = comps
                .iter()
                .enumerate()
                .take_while(|&(k, c)| {
                    c.0 == c0 + k as u8 && u32::from(c.1) == u32::from(cf0) + k as u32
                })
                .map(|(_, c)| c.2)
                .collect();
            // The run is evaluated where its first load in the block is.
            if let (2..=4, Some(first)) = (run.len(), first) {
                if run.contains(&first) {
                    runs.insert(first, run);
                }
            }
        }
        runs
    }

    /// Homes for the values a fragment shader stores once, at top level, to the components
    /// of a colour location: computed straight into one register (64-bit for two
    /// components, 128-bit for three or four), so that one `st_tile` stores them. By value:
    /// (home index, component index in it).
    pub(super) fn plan_output_homes(&mut self) {
        let Some(t) = self.gfx.filter(|t| t.stage == Stage::Fragment) else {
            return;
        };
        // Per location: the value of each component, and values seen more than once.
        let mut by_location: BTreeMap<u32, [Option<Value>; 4]> = BTreeMap::new();
        let mut seen: HashMap<Value, u32> = HashMap::new();
        let mut consts: HashSet<Value> = HashSet::new();
        for n in &self.shader.body {
            let Node::Block(insts) = n else { continue };
            for i in insts {
                if let (Op::Const(_), Some(d)) = (&i.op, i.dst) {
                    consts.insert(d);
                }
                let Op::StoreOutput {
                    location,
                    component,
                    value,
                } = i.op
                else {
                    continue;
                };
                *seen.entry(value).or_default() += 1;
                let sole = self
                    .sole_stores
                    .contains(&StoreKey::Location(location, component));
                if sole && component < 4 && t.outputs.find(location).is_some() {
                    by_location.entry(location).or_default()[usize::from(component)] = Some(value);
                }
            }
        }
        for (&location, comps) in &by_location {
            // The components from x on that are stored.
            let run: Vec<Value> = comps.iter().map_while(|c| *c).collect();
            if run.len() < 2 || run.iter().any(|v| seen[v] > 1 && !consts.contains(v)) {
                continue;
            }
            let home = self.output_homes.len();
            self.output_homes.push((None, run.len() as u8));
            for (k, v) in run.into_iter().enumerate() {
                if consts.contains(&v) {
                    self.output_consts
                        .insert((location, k as u8), (home, k as u16));
                } else {
                    self.output_parts.insert(v, (home, k as u16));
                }
            }
        }
    }

    /// The register of output home `h` (made on first use).
    pub(super) fn output_home(&mut self, h: usize) -> Result<u16, CompileError> {
        let (made, n) = self.output_homes[h];
        if let Some(id) = made {
            return Ok(id);
        }
        let id = self.new_words(usize::from(n))?;
        self.output_homes[h].0 = Some(id);
        Ok(id)
    }

    /// One `iter` of the inputs `run` (consecutive components), into a 64-bit register for
    /// two and a 128-bit one for three or four.
    fn input_run(
        &mut self,
        run: &[Value],
        interp: InputInterp,
        cf: u8,
    ) -> Result<(), CompileError> {
        let id = self.new_words(run.len())?;
        for (k, &v) in run.iter().enumerate() {
            self.set(v, Val::Reg(word(id, k)))?;
        }
        let (w, at) = hw_interp(interp, self.sample)?;
        self.emit(Instr::Iter(Iter {
            dst: vreg(id, 0, Size::S32),
            channels: run.len() as u8,
            cf,
            perspective_w: w,
            interp: at,
        }));
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
                let d = self.dst(inst)?;
                if self.vals.get(d.0 as usize).is_some_and(Option::is_some) {
                    // Evaluated with the rest of its run.
                    return Ok(());
                }
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
                if let Some(run) = self.input_runs.get(&d).cloned() {
                    // The run's lowest component's slot.
                    let cf = slot.cf - (run.iter().position(|&v| v == d).unwrap_or(0) as u8);
                    return self.input_run(&run, *interp, cf);
                }
                if interp.mode == ir::Interpolation::Flat {
                    return self.flat_input(d, slot.cf);
                }
                let r = self.def32(d)?;
                let (w, at) = hw_interp(*interp, self.sample)?;
                self.iter(r, slot.cf, w, at);
                Ok(())
            }
            Op::InterpolateInput {
                location,
                component,
                mode,
                at,
            } => self.interpolate_input(self.dst(inst)?, *location, *component, *mode, *at),
            Op::InputPlaneBits {
                location,
                component,
            } => {
                let t = self.stage_is(Stage::Fragment, "InputPlaneBits")?;
                let cf = t
                    .layout
                    .find(*location, *component)
                    .ok_or_else(|| {
                        unsupported(format!(
                            "input location {location} component {component} is not in the varying layout"
                        ))
                    })?
                    .cf;
                let r = self.def32(self.dst(inst)?)?;
                self.plane_bits(r, cf)
            }
            Op::LoadInputAttachment {
                index,
                component,
                sample,
            } => self.input_attachment(self.dst(inst)?, *index, *component, *sample),
            Op::StoreOutput {
                location,
                component,
                value,
            } => {
                let t = self.target("StoreOutput")?;
                match t.stage {
                    Stage::Vertex => match t.layout.find(*location, *component) {
                        Some(slot) => self.record_sole_output(
                            (u32::from(slot.uvs), 0),
                            StoreKey::Location(*location, *component),
                            *value,
                        ),
                        // No fragment shader input reads it.
                        None => Ok(()),
                    },
                    _ => {
                        if *component > 3 {
                            return Err(internal("colour component past 3"));
                        }
                        if t.coverage.alpha_to_coverage && (*location, *component) == (0, 3) {
                            self.record_output(COVERAGE_ALPHA_KEY, *value)?;
                        }
                        if t.outputs.find(*location).is_none() {
                            // Writes to a location with no attachment are discarded.
                            return Ok(());
                        }
                        self.record_sole_output(
                            (*location, *component),
                            StoreKey::Location(*location, *component),
                            *value,
                        )
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
                    (OutputBuiltin::Position, Stage::Vertex) if *component < 4 => self
                        .record_sole_output(
                            (u32::from(UVS_POSITION + component), 0),
                            StoreKey::Builtin(*builtin, *component),
                            *value,
                        ),
                    (OutputBuiltin::PointSize, Stage::Vertex) if *component == 0 => {
                        if t.layout.point_size {
                            self.record_sole_output(
                                (u32::from(UVS_POINT_SIZE), 0),
                                StoreKey::Builtin(*builtin, *component),
                                *value,
                            )
                        } else {
                            Ok(())
                        }
                    }
                    (OutputBuiltin::ClipDistance(k), Stage::Vertex) if *component == 0 => {
                        match t.layout.clip_distance_uvs(*k) {
                            Some(uvs) => self.record_sole_output(
                                (u32::from(uvs), 0),
                                StoreKey::Builtin(*builtin, *component),
                                *value,
                            ),
                            None => Err(internal(format!(
                                "clip distance {k} is not in the varying layout"
                            ))),
                        }
                    }
                    (OutputBuiltin::FragDepth, Stage::Fragment) if *component == 0 => {
                        self.record_output(DEPTH_KEY, *value)
                    }
                    (OutputBuiltin::SampleMask, Stage::Fragment) if *component == 0 => {
                        self.record_output(SAMPLE_MASK_KEY, *value)
                    }
                    (OutputBuiltin::SecondBlendSource, Stage::Fragment) if *component < 4 => {
                        self.record_output((SECOND_SOURCE_LOCATION, *component), *value)
                    }
                    (b, s) => Err(unsupported(format!(
                        "built-in output {b:?}[{component}] of a {s:?} shader in the G13 back end"
                    ))),
                }
            }
            Op::Discard => {
                self.stage_is(Stage::Fragment, "Discard")?;
                // Every sample of the lanes running this instruction loses coverage (only the
                // sample being shaded, in a per-sample shader).
                self.emit(Instr::SampleMask(SampleMask {
                    targets: self.samples_written(),
                    live: Small::Imm(0),
                }));
                Ok(())
            }
            other => Err(internal(format!("{other:?} is not a graphics operation"))),
        }
    }

    /// Kills the samples the API sample mask drops, before anything else runs: as a discard
    /// of them, it keeps them out of every later colour store, depth/stencil write and
    /// occlusion count (the rasterizer has no such mask).
    pub(super) fn apply_sample_mask(&mut self) -> Result<(), CompileError> {
        let t = self.target("the sample mask")?;
        if t.stage != Stage::Fragment {
            return Ok(());
        }
        let all = (1u32 << t.outputs.samples.clamp(1, 8)) - 1;
        let dropped = !t.coverage.sample_mask & all;
        if dropped != 0 {
            self.emit(Instr::SampleMask(SampleMask {
                targets: Small::Imm(dropped as u8),
                live: Small::Imm(0),
            }));
        }
        Ok(())
    }

    /// Alpha to coverage, which the rasterizer does not do: of the `n` samples, the first
    /// floor(clamp(alpha, 0, 1) * n) stay covered, so alpha 0 covers none and 1 covers all.
    /// The alpha is location 0's as the shader wrote it (attachment or not), before
    /// alpha-to-one; an unwritten
    /// alpha leaves coverage alone (the spec leaves the mask undefined then), and an integer
    /// location 0 skips the step, as the spec says. With no attachment at location 0 the
    /// output's type is not known here; it is taken as a float, the only case there is in
    /// practice.
    fn alpha_to_coverage(&mut self) -> Result<(), CompileError> {
        let t = self.target("alpha to coverage")?;
        let Some(&id) = self.outputs.get(&COVERAGE_ALPHA_KEY) else {
            return Ok(());
        };
        if t.outputs
            .find(0)
            .is_some_and(|c| super::tib::is_integer(c.colour))
        {
            return Ok(());
        }
        let n = t.outputs.samples.clamp(1, 8);
        let alpha = self.fsat_r(Operand::Reg(vreg(id, 0, Size::S32)))?;
        let n_f = self.fconst(n as f32)?;
        let scaled = self.fmul_r(Operand::Reg(alpha), n_f)?;
        let count = self.conv_r(ConvertOp::FToU32, Operand::Reg(scaled), Round::TowardZero)?;
        let keep = self.low_mask(Operand::Reg(count))?;
        self.emit(Instr::SampleMask(SampleMask {
            targets: self.samples_written(),
            live: Small::Reg(Reg {
                size: Size::S16,
                ..keep
            }),
        }));
        Ok(())
    }

    /// Coordinate `axis` (0 = x, 1 = y) of sample `s`'s position inside its pixel, in pixels.
    fn sample_offset(&mut self, s: SampleIter, axis: u8) -> Result<Reg, CompileError> {
        let t = self.target("sample positions")?;
        let table = standard_locations(t.outputs.samples)?;
        // Byte `index` of the table, then its x or y nibble.
        let at = self.temp(Size::S32)?;
        self.emit(Instr::IAdd(IAdd {
            dst: at.into(),
            a: isrc(Operand::Imm(u32::from(axis) * 4)),
            b: isrc(Operand::Reg(s.index)),
            negate_b: false,
            shift: 3,
            saturate: false,
        }));
        let table = self.imm_r(table)?;
        let nibble = self.temp(Size::S32)?;
        self.ushr(nibble, Operand::Reg(table), Operand::Reg(at), 4);
        let f = self.temp(Size::S32)?;
        self.emit(Instr::Convert(Convert {
            op: ConvertOp::U32ToF,
            dst: f.into(),
            src: isrc(Operand::Reg(nibble)),
            round: Round::NearestEven,
        }));
        let sixteenth = self.float_imm(1.0 / 16.0)?;
        self.fmul_r(Operand::Reg(f), sixteenth)
    }

    /// The samples a fragment output or discard affects: all of the pixel's, or in a
    /// per-sample shader the one being shaded.
    pub(super) fn samples_written(&self) -> Small {
        match self.sample {
            Some(s) => SampleIter::low(s.bit),
            None => Small::Imm(0xff),
        }
    }

    /// A per-sample fragment shader: `body` and the output stores run once for each sample
    /// of the pixel, with that sample's index and mask. Samples the primitive does not cover
    /// run too (their stores write nothing), so the loop count is the same for every lane.
    pub(super) fn per_sample_body(&mut self, body: &[Node]) -> Result<(), CompileError> {
        let t = self.target("per-sample shading")?;
        let samples = t.outputs.samples;
        // A `return` ends its thread's sample early, with the thread inactive at the bottom
        // of the loop: the count must then advance at the top, where every thread runs.
        let returns = returns_from(body);
        let counter = self.new_vreg(Size::S32, true)?;
        let counter = crate::g13::vreg(counter, 0, Size::S32);
        self.emit(Instr::MovImm(MovImm {
            dst: counter.into(),
            imm: 0,
        }));
        let marks = self.cache_marks();
        let frame = self.exec.sample_loop_begin(returns, &mut self.out);
        let index = if returns {
            let index = self.temp(Size::S32)?;
            self.copy(index, Operand::Reg(counter));
            self.exec.sample_loop_exit_if(
                ICond::UGt,
                Operand::Reg(index),
                Operand::Imm(samples - 1),
                &mut self.out,
            );
            index
        } else {
            counter
        };
        let bit = self.temp(Size::S32)?;
        self.shl(bit, Operand::Imm(1), Operand::Reg(index));
        if returns {
            self.iadd(counter, Operand::Reg(index), Operand::Imm(1), false);
        }
        self.sample = Some(SampleIter { index, bit });
        self.nodes(body)?;
        self.write_outputs()?;
        self.sample = None;
        if !returns {
            self.iadd(counter, Operand::Reg(counter), Operand::Imm(1), false);
            self.exec.sample_loop_while(
                ICond::ULt,
                Operand::Reg(counter),
                Operand::Imm(samples),
                &mut self.out,
            );
        }
        self.exec.sample_loop_end(frame, &mut self.out);
        self.release_caches(marks);
        Ok(())
    }

    /// A vertex shader output word or a fragment shader colour component. The sole store of
    /// an output, outside any `if` or loop, leaves the value where it is for the `st_vary`
    /// or `st_tile` after the body to read; any other store copies it into the output's
    /// register, as `record_output` does.
    fn record_sole_output(
        &mut self,
        key: (u32, u8),
        store: StoreKey,
        value: Value,
    ) -> Result<(), CompileError> {
        let first = !self.outputs.contains_key(&key) && !self.direct_outputs.contains_key(&key);
        if first && self.sole_stores.contains(&store) && size_of(self.ty(value)?)? == Size::S32 {
            self.direct_outputs.insert(key, value);
            return Ok(());
        }
        // Another store reaches the same word: the earlier one, which ran before this point,
        // goes to the register first.
        if let Some(earlier) = self.direct_outputs.remove(&key) {
            self.record_output(key, earlier)?;
        }
        self.record_output(key, value)
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
        if t.stage == Stage::Vertex {
            // Varyings the fragment shader reads but this shader never writes read 0.
            for slot in &t.layout.slots {
                let key = (u32::from(slot.uvs), 0);
                if !self.outputs.contains_key(&key) && !self.direct_outputs.contains_key(&key) {
                    let id = self.new_vreg(Size::S32, true)?;
                    self.emit(Instr::MovImm(MovImm {
                        dst: vreg(id, 0, Size::S32).into(),
                        imm: 0,
                    }));
                    self.outputs.insert(key, id);
                }
            }
        }
        let outs: Vec<((u32, u8), u16)> = self.outputs.iter().map(|(&k, &v)| (k, v)).collect();
        // Outputs left where their sole store found them, by output word (vertex) or
        // location and component (fragment).
        let mut direct: Vec<((u32, u8), Reg)> = Vec::new();
        for (k, value) in std::mem::take(&mut self.direct_outputs) {
            let r = match (self.output_consts.get(&k), self.val(value)?) {
                (Some(&(h, part)), Val::Const(bits, Size::S32)) => {
                    let r = word(self.output_home(h)?, usize::from(part));
                    self.emit(Instr::MovImm(MovImm {
                        dst: r.into(),
                        imm: bits as u32,
                    }));
                    r
                }
                _ => self.reg(value)?,
            };
            direct.push((k, r));
        }
        match t.stage {
            Stage::Vertex => {
                let mut words: Vec<((u32, u8), Reg)> = outs
                    .into_iter()
                    .map(|(k, id)| (k, vreg(id, 0, Size::S32)))
                    .collect();
                words.extend(direct);
                words.sort_by_key(|w| w.0);
                let n = words.len();
                for (i, ((slot, _), src)) in words.into_iter().enumerate() {
                    let index =
                        u8::try_from(slot).map_err(|_| unsupported(format!("UVS word {slot}")))?;
                    self.emit(Instr::StVary(StVary {
                        src,
                        index: Small::Imm(index),
                        last: i + 1 == n,
                    }));
                }
            }
            _ => {
                // gl_SampleMask and alpha to coverage first: the samples they drop must be
                // gone before any depth or colour store.
                if t.coverage.alpha_to_coverage {
                    self.alpha_to_coverage()?;
                }
                if let Some(&id) = self.outputs.get(&SAMPLE_MASK_KEY) {
                    self.emit(Instr::SampleMask(SampleMask {
                        targets: self.samples_written(),
                        live: Small::Reg(vreg(id, 0, Size::S16)),
                    }));
                }
                let mut colours: Vec<(u32, [Option<Reg>; 4])> = Vec::new();
                let mut second: [Option<Reg>; 4] = [None; 4];
                let mut outs: Vec<((u32, u8), Reg)> = outs
                    .into_iter()
                    .map(|(k, id)| (k, vreg(id, 0, Size::S32)))
                    .chain(direct)
                    .collect();
                outs.sort_by_key(|o| o.0);
                for ((location, component), value) in outs {
                    if [SAMPLE_MASK_KEY, COVERAGE_ALPHA_KEY].contains(&(location, component)) {
                        continue;
                    }
                    if location == SECOND_SOURCE_LOCATION {
                        second[usize::from(component)] = Some(value);
                        continue;
                    }
                    if (location, component) == DEPTH_KEY {
                        self.emit(Instr::ZsEmit(ZsEmit {
                            samples: self.samples_written(),
                            src: value,
                            depth: true,
                            stencil: false,
                        }));
                        continue;
                    }
                    let k = usize::from(component);
                    match colours.iter_mut().find(|(l, _)| *l == location) {
                        Some((_, v)) => v[k] = Some(value),
                        None => {
                            let mut v = [None; 4];
                            v[k] = Some(value);
                            colours.push((location, v));
                        }
                    }
                }
                for (location, mut vals) in colours {
                    let c = *t
                        .outputs
                        .find(location)
                        .ok_or_else(|| internal("recorded a colour output with no target"))?;
                    if t.coverage.alpha_to_one && !super::tib::is_integer(c.colour) {
                        // An unwritten alpha is stored as 1.0.
                        vals[3] = None;
                    }
                    // Only target 0 blends with a second source; its unwritten channels
                    // read 0, like unwritten varyings.
                    self.second_source = if location == 0 {
                        let zero = self.imm_r(0)?;
                        Some(second.map(|r| r.unwrap_or(zero)))
                    } else {
                        None
                    };
                    self.write_colour(&c, vals, t.outputs.logic_op, t.outputs.samples)?;
                }
            }
        }
        Ok(())
    }
}
