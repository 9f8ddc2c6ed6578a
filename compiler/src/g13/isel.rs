//! Instruction selection: IR (in the form `passes::run_all` leaves it) to `hw::isa`
//! instructions over virtual registers, with control flow lowered by [`super::exec`].
//!
//! Constants are rematerialized at each use (an 8-bit immediate where an integer source takes
//! one, else a `mov_imm` right before the user), so they never occupy a register for long.
//! Root-table loads become uniform-register operands and emit nothing.

use std::collections::{BTreeMap, HashMap, HashSet};

use hw::isa::*;

use super::exec::{ExecLowering, JumpKind, Test};
use super::{vreg, word, Item, VProgram, VregInfo, Wide, NESTING_VREG};
use crate::ir::{self, BinOp, CmpOp, ConvOp, Inst, Node, Op, Scalar, Shader, Space, UnOp, Value};
use crate::{abi, CompileError};
use scoped::Scoped;

mod blend;
mod coeff;
mod component_runs;
mod fmods;
mod fuse;
mod gfx;
mod input;
mod interp;
mod pairs;
mod scoped;
mod small;
mod spill;
mod subgroup;
mod texture;
mod tib;
mod tile;

pub(crate) use gfx::GraphicsTarget;
pub(crate) use tib::element_layout as tib_element_layout;
pub(crate) use tile::{select_tile_program, TileOp, TileTargetOp};

/// Where an IR value lives.
#[derive(Debug, Clone, Copy)]
enum Val {
    /// A virtual register (`vreg`): the whole of one, or a 32-bit part of a 64-bit one
    /// (the two results of a paired load).
    Reg(Reg),
    /// Bits of a constant (not yet in a register).
    Const(u64, Size),
    /// A uniform register (root table).
    Uniform(Reg),
    /// A 32-bit value widened to 64 bits (sign-extended if the flag is set), not computed
    /// yet: as the offset of a memory address it usually becomes an index instead.
    Widened(Value, bool),
    /// A 64-bit sum not computed yet (an address: base + widened offset).
    Sum(Value, Value),
}

/// The address operands of a device access: `base + ((index << shift) * element bytes)`.
struct Address {
    base: Operand,
    index: Index,
    index_unsigned: bool,
    shift: u8,
}

impl Address {
    fn new(base: Operand, index: Index, index_unsigned: bool) -> Self {
        Address {
            base,
            index,
            index_unsigned,
            shift: 0,
        }
    }

    /// The `device_load` (or `device_store`) of the `mask` elements at this address from (to)
    /// the registers from `reg`.
    fn access(self, store: bool, reg: Reg, format: MemFormat, mask: u8) -> Instr {
        Instr::DeviceMem(DeviceMem {
            store,
            reg,
            base: self.base,
            index: self.index,
            index_unsigned: self.index_unsigned,
            shift: self.shift,
            format,
            mask,
            wait_slot: 0,
        })
    }
}

const AND: u8 = 0b1000;
const OR: u8 = 0b1110;
const XOR: u8 = 0b0110;
const NOT_A: u8 = 0b0101;
/// a & !b
const AND_NOT_B: u8 = 0b0010;

/// -0.0 in the float immediate table.
const NEG_ZERO_IMM: u32 = 0x80;

/// Largest number of virtual registers the `4 * id + part` numbering allows, less the ids
/// register allocation keeps for spill temporaries.
const MAX_VREGS: usize = super::regalloc::ID_SPACE - super::regalloc::SPILL_RESERVE;

fn unsupported(what: impl Into<String>) -> CompileError {
    CompileError::Unsupported(what.into())
}

fn internal(what: impl Into<String>) -> CompileError {
    CompileError::Internal(what.into())
}

fn size_of(ty: ir::Type) -> Result<Size, CompileError> {
    if ty.lanes != 1 {
        return Err(internal(format!(
            "vector value of type {ty:?} reached the G13 back end"
        )));
    }
    match ty.scalar {
        // 8-bit integers sit zero-extended in halves (see `small`).
        Scalar::Bool | Scalar::I8 | Scalar::I16 | Scalar::F16 => Ok(Size::S16),
        Scalar::I32 | Scalar::F32 => Ok(Size::S32),
        Scalar::I64 => Ok(Size::S64),
    }
}

fn isrc(op: Operand) -> ISrc {
    ISrc::new(op)
}

fn fsrc(op: Operand) -> FSrc {
    FSrc::new(op)
}

struct Sel<'a> {
    shader: &'a Shader,
    out: Vec<Item>,
    vregs: Vec<VregInfo>,
    vals: Vec<Option<Val>>,
    vars: Vec<Option<u16>>,
    exec: ExecLowering,
    loop_depth: u32,
    /// The operation defining each `Binary` result, for address matching.
    binops: HashMap<Value, (BinOp, Value, Value)>,
    /// Vertex and fragment shaders: their interface.
    gfx: Option<GraphicsTarget<'a>>,
    /// The register holding each output word written so far (see `gfx`).
    outputs: BTreeMap<(u32, u8), u16>,
    /// Vertex output words whose one store left the value in place (see `gfx`).
    direct_outputs: BTreeMap<(u32, u8), Value>,
    /// Vertex shaders: the outputs stored once, outside any `if` or loop.
    sole_stores: HashSet<gfx::StoreKey>,
    /// Copies of preloaded registers taken at entry, by physical half (see `gfx`).
    preloads: BTreeMap<u16, Reg>,
    /// A per-sample fragment shader's current sample, while its loop runs.
    sample: Option<gfx::SampleIter>,
    /// Fixed registers that instructions read or write as runs wider than a virtual
    /// register, by physical half (see `fixed_run`).
    runs: Vec<(u16, u16)>,
    /// The fixed register pair `ldcf` loads plane coefficients into, once made.
    coefficients: Option<[u16; 2]>,
    /// Level-of-detail registers texture operations of the current block computed, by
    /// their inputs: `scalarize` splits a vector result into one operation per component,
    /// which then share one LOD (see `texture`). Cleared at every block, so a register is
    /// only reused where its definition dominates.
    tex_lods: HashMap<texture::LodKey, Reg>,
    /// While target 0 is written: the second blend source (Location 0 Index 1), raw until
    /// `blend_source` clamps it as the target's format asks.
    second_source: Option<[Reg; 4]>,
    /// Comparisons whose only use is the condition of the `If` right after their block
    /// ([`branch_only_compares`]): the `if` or `while` compares itself, so these emit nothing.
    branch_compares: HashMap<Value, (CmpOp, Value, Value)>,
    /// Comparisons seen so far, by result: a `Select` on one compares itself
    /// (`cmpsel`), so the boolean is not needed.
    compares: HashMap<Value, (CmpOp, Value, Value)>,
    /// Every address as base plus constant, for finding paired loads.
    addresses: pairs::Addresses,
    /// The paired loads of the current block: the lower's result to the upper's.
    load_pairs: HashMap<Value, Value>,
    /// The runs of four loads of the current block, by the first load's result.
    load_quads: HashMap<Value, pairs::LoadQuad>,
    /// The fragment inputs of the current block that one `iter` evaluates together, by the
    /// first one's result (`gfx::input_runs`).
    input_runs: HashMap<Value, Vec<Value>>,
    /// The texture operations of the current block that one instruction does together, by
    /// the first one's result (`texture::tex_runs`).
    tex_runs: HashMap<Value, Vec<(u8, Value)>>,
    /// The runs of 8- and 16-bit loads of the current block that one `device_load` does, by
    /// the first one's result (`pairs::small_runs`).
    small_runs: HashMap<Value, Vec<Value>>,
    /// Likewise the input attachment reads (`input::attachment_runs`).
    attachment_runs: HashMap<Value, Vec<(u8, Value)>>,
    /// Registers values are computed into so that one instruction reads them where they
    /// are: colour outputs (`gfx::plan_output_homes`) and texture coordinates
    /// (`texture::plan_coordinate_homes`). Each home's register once made and its word
    /// count, and each value's home and word.
    output_homes: Vec<(Option<u16>, u8)>,
    output_parts: HashMap<Value, (usize, u16)>,
    /// Constant components of homed outputs, by output key: a `mov_imm` puts each in its
    /// place, so one constant may fill several components.
    output_consts: HashMap<(u32, u8), (usize, u16)>,
    /// The paired stores of the current block, the pair of each store by its position, and
    /// the pair and half of each value stored by one.
    store_pairs: Vec<pairs::StorePair>,
    store_at: HashMap<usize, usize>,
    store_parts: HashMap<Value, (usize, u16)>,
    /// The runs of four words among the store pairs, and each paired pair's run and place
    /// in it (0 for the lower address).
    store_quads: Vec<pairs::StoreQuad>,
    quad_of_pair: HashMap<usize, (usize, u16)>,
    /// The position of the instruction being selected in its block.
    position: usize,
    /// Additions that absorb the shift or multiply feeding them.
    fusions: fuse::Fusions,
    /// Negations and absolute values read as source modifiers (`fmods`), by their result.
    fmods: HashMap<Value, fmods::Modifier>,
    /// 64-bit values that are a high address word in place (`x << 32`): a sum of one and a
    /// widened 32-bit value is an address made of its two words, not a base plus an offset.
    high_words: HashSet<Value>,
    /// Comparisons used only as the condition of `Select`s, which emit nothing themselves.
    select_only_compares: HashSet<Value>,
    /// Whether loads of constant descriptor words may become uniform preloads.
    preloading: bool,
    /// Registers holding copies of 64-bit uniforms, by first half, reused while their
    /// definition dominates.
    uniform_copies: Scoped<u16, Reg>,
    /// Deferred values (`Val::Widened`, `Val::Sum`) computed into registers, reused while
    /// their definition dominates: an address one access needed in full, the next access
    /// to the same place reads again.
    resolved_values: Scoped<Value, Val>,
    /// The uniform preloads made so far, and the first uniform half of each by its source
    /// (root offset of the base address, byte offset, halves).
    uniform_preloads: Vec<crate::UniformPreload>,
    preload_at: HashMap<(u32, u32, u32), u16>,
    /// Constants the launch preloads into uniforms (`PreloadSource::Constants`): their
    /// bytes, and the uniform half of each by its bits.
    constants: Vec<u8>,
    constant_at: HashMap<u32, u16>,
    /// The first uniform half of the preamble's results (`abi`): where `LoadPreamble` reads
    /// and `StorePreamble` writes.
    preamble_base: u32,
    /// Where preloads must end: `abi::PRELOAD_UNIFORM_END`, or the first of a compute
    /// preamble's 64-bit results below it.
    preload_end: u32,
}

/// The uniform register of result `offset` (of `size`) of a preamble whose results start
/// at `base`. A 64-bit one is aligned, and below half 256 where memory bases must be.
fn preamble_reg(base: u32, offset: u32, size: Size) -> Result<Reg, CompileError> {
    let half = base + offset;
    let ok = match size {
        Size::S32 => half.is_multiple_of(2) && half + 2 <= abi::PREAMBLE_UNIFORM_END,
        Size::S64 => half.is_multiple_of(4) && half + 4 <= u32::from(MEMORY_BASE_UNIFORM_HALVES),
        Size::S16 => false,
    };
    if !ok {
        return Err(internal(format!(
            "preamble result of {:?} at uniform half {half}",
            size
        )));
    }
    Ok(Reg {
        half: half as u16,
        size,
    })
}

/// The comparisons a branch can make itself: a `Cmp` in the block just before an `If` whose
/// condition it is, used nowhere else.
fn branch_only_compares(shader: &Shader) -> HashMap<Value, (CmpOp, Value, Value)> {
    fn walk(nodes: &[Node], found: &mut Vec<(Value, (CmpOp, Value, Value))>) {
        for (k, n) in nodes.iter().enumerate() {
            match n {
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    if let Some(Node::Block(insts)) = k.checked_sub(1).map(|p| &nodes[p]) {
                        let def = insts.iter().find(|i| i.dst == Some(*cond));
                        if let Some(Inst {
                            op: Op::Cmp(c, a, b),
                            ..
                        }) = def
                        {
                            found.push((*cond, (*c, *a, *b)));
                        }
                    }
                    walk(then_body, found);
                    walk(else_body, found);
                }
                Node::Loop { body } => walk(body, found),
                _ => {}
            }
        }
    }
    let uses = crate::passes::use_counts(&shader.body);
    let mut found = Vec::new();
    walk(&shader.body, &mut found);
    found
        .into_iter()
        .filter(|(v, _)| uses.get(v) == Some(&1))
        .collect()
}

/// A loop body without the `continue`s that end it, which change nothing: a final
/// `continue`, and the `continue` arm of a final `if` (a do-while's `if c continue else
/// break`, which then is one conditional break).
fn without_final_continue(body: &[Node]) -> std::borrow::Cow<'_, [Node]> {
    let only_continue = |arm: &[Node]| matches!(arm, [Node::Continue]);
    match body {
        [rest @ .., Node::Continue] => std::borrow::Cow::Borrowed(rest),
        [rest @ .., Node::If {
            cond,
            then_body,
            else_body,
        }] if only_continue(then_body) || only_continue(else_body) => {
            let keep = |arm: &Vec<Node>| {
                if only_continue(arm) {
                    Vec::new()
                } else {
                    arm.clone()
                }
            };
            let mut b = rest.to_vec();
            b.push(Node::If {
                cond: *cond,
                then_body: keep(then_body),
                else_body: keep(else_body),
            });
            std::borrow::Cow::Owned(b)
        }
        all => std::borrow::Cow::Borrowed(all),
    }
}

/// The 32-bit comparisons whose every use is the condition of a `Select`.
fn select_only_compares(shader: &Shader) -> HashSet<Value> {
    let mut compares = HashSet::new();
    let mut as_condition: HashMap<Value, u32> = HashMap::new();
    crate::passes::for_each_inst(&shader.body, &mut |i| match i.op {
        Op::Cmp(_, a, _) if shader.ty(a).scalar.bits() == 32 => {
            compares.extend(i.dst);
        }
        Op::Select(c, _, _) => *as_condition.entry(c).or_insert(0) += 1,
        _ => {}
    });
    let uses = crate::passes::use_counts(&shader.body);
    compares
        .into_iter()
        .filter(|v| as_condition.get(v).is_some_and(|n| uses.get(v) == Some(n)))
        .collect()
}

/// Selects instructions for a whole shader.
pub(crate) fn select(shader: &Shader) -> Result<VProgram, CompileError> {
    select_with(shader, None, false, None, abi::PREAMBLE_UNIFORM_START)
}

/// [`select`] for a compute shader whose launch loads uniform preloads: loads of constant
/// descriptor words become uniforms (see `Sel::preload`).
pub(crate) fn select_preloading(shader: &Shader) -> Result<VProgram, CompileError> {
    select_with(shader, None, true, None, abi::PREAMBLE_UNIFORM_START)
}

/// [`select_preloading`] for a shader whose launch also runs a preamble that already takes
/// `preloads` of `constants`: the shader shares them and adds its own after.
pub(crate) fn select_preloading_after(
    shader: &Shader,
    preloads: &[crate::UniformPreload],
    constants: &[u8],
    preamble_base: u32,
) -> Result<VProgram, CompileError> {
    select_with(
        shader,
        None,
        true,
        Some((preloads, constants)),
        preamble_base,
    )
}

/// [`select_preloading`] for a compute shader's preamble, whose results start at uniform
/// half `preamble_base` (the preloads end there).
pub(crate) fn select_preamble(
    shader: &Shader,
    preamble_base: u32,
) -> Result<VProgram, CompileError> {
    select_with(shader, None, true, None, preamble_base)
}

/// Selects instructions for a vertex or fragment shader.
pub(crate) fn select_graphics(
    shader: &Shader,
    target: GraphicsTarget<'_>,
) -> Result<VProgram, CompileError> {
    select_with(
        shader,
        Some(target),
        false,
        None,
        abi::GRAPHICS_PREAMBLE_UNIFORM_START,
    )
}

/// Selects instructions for the preamble of a vertex or fragment shader: a plain program
/// whose results go where graphics launches keep them.
pub(crate) fn select_graphics_preamble(shader: &Shader) -> Result<VProgram, CompileError> {
    select_with(
        shader,
        None,
        false,
        None,
        abi::GRAPHICS_PREAMBLE_UNIFORM_START,
    )
}

fn select_with<'a>(
    shader: &'a Shader,
    gfx: Option<GraphicsTarget<'a>>,
    preloading: bool,
    seed: Option<(&[crate::UniformPreload], &[u8])>,
    preamble_base: u32,
) -> Result<VProgram, CompileError> {
    let mut s = Sel::new(shader, gfx);
    s.preloading = preloading;
    s.preamble_base = preamble_base;
    s.preload_end = preamble_base.min(abi::PRELOAD_UNIFORM_END);
    if let Some((preloads, constants)) = seed {
        s.seed_preloads(preloads, constants)?;
    }
    if gfx.is_some() {
        s.capture_preloads()?;
        s.plan_output_homes();
    }
    s.plan_coordinate_homes();
    let sample_loop = gfx.is_some_and(|t| t.per_sample_loop());
    // Writes of spilled colour targets run under `if`s after the body.
    let spills = gfx.is_some_and(|t| t.outputs.colours.iter().any(|c| c.spilled));
    if !sample_loop {
        s.exec.begin(&shader.body, spills, &mut s.out);
    }
    if gfx.is_some() {
        s.apply_sample_mask()?;
        // Outputs are written after the body, so a final `return` must not stop first.
        let body = match &shader.body[..] {
            [rest @ .., Node::Return] => rest,
            all => all,
        };
        if sample_loop {
            s.per_sample_body(body)?;
        } else {
            s.nodes(body)?;
            s.write_outputs()?;
        }
        s.keep_fixed_runs();
    } else {
        s.nodes(&shader.body)?;
        s.keep_fixed_runs();
    }
    // A top-level `return` as the last node has already stopped the thread.
    if s.out.last() != Some(&Item::Op(Instr::Stop)) {
        s.out.push(Item::Op(Instr::Stop));
    }
    Ok(s.finish())
}

impl<'a> Sel<'a> {
    fn new(shader: &'a Shader, gfx: Option<GraphicsTarget<'a>>) -> Sel<'a> {
        debug_assert_eq!(NESTING_VREG, 0);
        Sel {
            shader,
            out: Vec::new(),
            vregs: vec![VregInfo {
                size: Size::S16,
                multi_def: true,
                fixed: None,
                wide: Wide::No,
            }],
            vals: vec![None; shader.value_types.len()],
            vars: vec![None; shader.var_types.len()],
            exec: ExecLowering::default(),
            loop_depth: 0,
            binops: HashMap::new(),
            gfx,
            outputs: BTreeMap::new(),
            direct_outputs: BTreeMap::new(),
            sole_stores: match gfx {
                Some(_) => gfx::sole_top_level_stores(&shader.body),
                None => HashSet::new(),
            },
            preloads: BTreeMap::new(),
            sample: None,
            runs: Vec::new(),
            coefficients: None,
            tex_lods: HashMap::new(),
            second_source: None,
            branch_compares: branch_only_compares(shader),
            compares: HashMap::new(),
            select_only_compares: select_only_compares(shader),
            fusions: fuse::find(shader),
            fmods: fmods::find(shader),
            high_words: HashSet::new(),
            addresses: pairs::Addresses::new(shader),
            load_pairs: HashMap::new(),
            load_quads: HashMap::new(),
            input_runs: HashMap::new(),
            tex_runs: HashMap::new(),
            small_runs: HashMap::new(),
            attachment_runs: HashMap::new(),
            output_homes: Vec::new(),
            output_parts: HashMap::new(),
            output_consts: HashMap::new(),
            store_pairs: Vec::new(),
            store_at: HashMap::new(),
            store_parts: HashMap::new(),
            store_quads: Vec::new(),
            quad_of_pair: HashMap::new(),
            position: 0,
            preloading: false,
            uniform_copies: Scoped::new(),
            resolved_values: Scoped::new(),
            uniform_preloads: Vec::new(),
            preload_at: HashMap::new(),
            constants: Vec::new(),
            constant_at: HashMap::new(),
            preamble_base: abi::PREAMBLE_UNIFORM_START,
            preload_end: abi::PRELOAD_UNIFORM_END,
        }
    }

    /// Starts from preloads another program of the launch made (see
    /// [`select_preloading_after`]).
    fn seed_preloads(
        &mut self,
        preloads: &[crate::UniformPreload],
        constants: &[u8],
    ) -> Result<(), CompileError> {
        for p in preloads {
            match p.source {
                crate::PreloadSource::Set { root_offset } => {
                    let key = (root_offset, p.byte_offset, p.halves);
                    self.preload_at.insert(key, p.uniform_half as u16);
                }
                crate::PreloadSource::Constants => {
                    for k in 0..p.halves / 2 {
                        let at = (p.byte_offset + 4 * k) as usize;
                        let Some(w) = constants.get(at..at + 4) else {
                            return Err(internal("preload past the constant data"));
                        };
                        let bits = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                        self.constant_at
                            .insert(bits, (p.uniform_half + 2 * k) as u16);
                    }
                }
            }
        }
        self.uniform_preloads = preloads.to_vec();
        self.constants = constants.to_vec();
        Ok(())
    }

    fn finish(self) -> VProgram {
        VProgram {
            items: self.out,
            vregs: self.vregs,
            scratch_base: self.shader.scratch_size,
            preloads: self.uniform_preloads,
            constants: self.constants,
        }
    }
}

impl Sel<'_> {
    fn emit(&mut self, i: Instr) {
        self.out.push(Item::Op(i));
    }

    fn new_vreg(&mut self, size: Size, multi_def: bool) -> Result<u16, CompileError> {
        if self.vregs.len() >= MAX_VREGS {
            return Err(CompileError::Limit(
                "too many values for the G13 back end".into(),
            ));
        }
        self.vregs.push(VregInfo {
            size,
            multi_def,
            fixed: None,
            wide: Wide::No,
        });
        Ok(self.vregs.len() as u16 - 1)
    }

    /// The virtual register fixed at physical half `half` (made on first use): part of a
    /// register run an instruction reads or writes as a whole (three coordinates, three
    /// coefficients), wider than a virtual register. Such a run is reserved from entry to
    /// the end of the program (`keep_fixed_runs`).
    fn fixed_run(&mut self, half: u16, size: Size) -> Result<u16, CompileError> {
        if let Some(&(_, id)) = self.runs.iter().find(|r| r.0 == half) {
            return Ok(id);
        }
        let id = self.new_vreg(size, true)?;
        self.vregs[id as usize].fixed = Some(half);
        self.runs.push((half, id));
        Ok(id)
    }

    /// Keeps the fixed runs reserved to the end: an instruction reading or writing a run as
    /// a whole is, to the allocator, an access of its first register only, so a last write
    /// to each register of the run ends its range after every such instruction.
    fn keep_fixed_runs(&mut self) {
        for (_, id) in std::mem::take(&mut self.runs) {
            self.emit(Instr::MovImm(MovImm {
                dst: vreg(id, 0, Size::S32).into(),
                imm: 0,
            }));
        }
    }

    /// A fresh register of `words` 32-bit words, two to four: 64-bit for two, 128-bit (two
    /// ids, `Wide`) for more. Its (lower) id; `word` names its words.
    fn new_words(&mut self, words: usize) -> Result<u16, CompileError> {
        let id = self.new_vreg(Size::S64, false)?;
        if words > 2 {
            let high = self.new_vreg(Size::S64, false)?;
            debug_assert_eq!(high, id + 1);
            self.vregs[id as usize].wide = Wide::Low;
            self.vregs[high as usize].wide = Wide::High;
        }
        Ok(id)
    }

    fn temp(&mut self, size: Size) -> Result<Reg, CompileError> {
        let id = self.new_vreg(size, false)?;
        Ok(vreg(id, 0, size))
    }

    fn ty(&self, v: Value) -> Result<ir::Type, CompileError> {
        self.shader
            .value_types
            .get(v.0 as usize)
            .copied()
            .ok_or_else(|| internal(format!("value %{} has no type", v.0)))
    }

    fn val(&self, v: Value) -> Result<Val, CompileError> {
        self.vals
            .get(v.0 as usize)
            .copied()
            .flatten()
            .ok_or_else(|| internal(format!("value %{} used before its definition", v.0)))
    }

    /// Where `v` lives, computing a deferred 64-bit value into a register at this point. The
    /// register is reused while its definition dominates (`resolved_values`): later uses
    /// inside the same construct, not those after an arm or a loop body it was made in.
    fn resolved(&mut self, v: Value) -> Result<Val, CompileError> {
        if let Some(r) = self.resolved_values.get(&v) {
            return Ok(r);
        }
        let r = self.resolve(v)?;
        self.resolved_values.insert(v, r);
        Ok(r)
    }

    fn resolve(&mut self, v: Value) -> Result<Val, CompileError> {
        match self.val(v)? {
            Val::Widened(src, sign_extend) => {
                let s = self.ext_op(src, sign_extend)?;
                let r = self.temp(Size::S64)?;
                self.emit(Instr::IAdd(IAdd {
                    dst: r.into(),
                    a: ISrc {
                        op: s,
                        sign_extend,
                        hint: Hint::None,
                    },
                    b: isrc(Operand::Imm(0)),
                    negate_b: false,
                    shift: 0,
                    saturate: false,
                }));
                Ok(Val::Reg(r))
            }
            Val::Sum(a, b) => {
                let (a, b) = (self.sum_source(a)?, self.sum_source(b)?);
                let r = self.temp(Size::S64)?;
                self.emit(Instr::IAdd(IAdd {
                    dst: r.into(),
                    a,
                    b,
                    negate_b: false,
                    shift: 0,
                    saturate: false,
                }));
                Ok(Val::Reg(r))
            }
            other => Ok(other),
        }
    }

    /// A source of a 64-bit sum. A widened 32-bit value is read as it is, the add extending
    /// it, rather than widened by an instruction of its own.
    fn sum_source(&mut self, v: Value) -> Result<ISrc, CompileError> {
        if let Val::Widened(src, sign_extend) = self.val(v)? {
            let op = self.ext_op(src, sign_extend)?;
            return Ok(ISrc {
                op,
                sign_extend,
                hint: Hint::None,
            });
        }
        Ok(isrc(self.iop(v)?))
    }

    /// A fresh register for the result `v`.
    fn def(&mut self, v: Value) -> Result<Reg, CompileError> {
        let size = size_of(self.ty(v)?)?;
        if let (Some(&(h, k)), Size::S32) = (self.output_parts.get(&v), size) {
            let id = self.output_home(h)?;
            let r = word(id, usize::from(k));
            self.set(v, Val::Reg(r))?;
            return Ok(r);
        }
        if let Some(&(p, part)) = self.store_parts.get(&v) {
            if let (Some(&(q, place)), Size::S32) = (self.quad_of_pair.get(&p), size) {
                let id = self.quad_vreg(q)?;
                let r = vreg(id + place, part, Size::S32);
                self.set(v, Val::Reg(r))?;
                return Ok(r);
            }
            if size == Size::S32 {
                let id = match self.store_pairs[p].vreg {
                    Some(id) => id,
                    None => self.new_vreg(Size::S64, false)?,
                };
                self.store_pairs[p].vreg = Some(id);
                let r = vreg(id, part, Size::S32);
                self.set(v, Val::Reg(r))?;
                return Ok(r);
            }
        }
        let id = self.new_vreg(size, false)?;
        self.set(v, Val::Reg(vreg(id, 0, size)))?;
        Ok(vreg(id, 0, size))
    }

    fn set(&mut self, v: Value, val: Val) -> Result<(), CompileError> {
        let slot = self
            .vals
            .get_mut(v.0 as usize)
            .ok_or_else(|| internal(format!("value %{} out of range", v.0)))?;
        *slot = Some(val);
        Ok(())
    }

    fn materialize(&mut self, bits: u64, size: Size) -> Result<Reg, CompileError> {
        match size {
            Size::S16 | Size::S32 => {
                let r = self.temp(size)?;
                let imm = if size == Size::S16 {
                    bits as u32 & 0xffff
                } else {
                    bits as u32
                };
                self.emit(Instr::MovImm(MovImm { dst: r.into(), imm }));
                Ok(r)
            }
            Size::S64 => {
                let id = self.new_vreg(Size::S64, false)?;
                self.emit(Instr::MovImm(MovImm {
                    dst: vreg(id, 0, Size::S32).into(),
                    imm: bits as u32,
                }));
                self.emit(Instr::MovImm(MovImm {
                    dst: vreg(id, 2, Size::S32).into(),
                    imm: (bits >> 32) as u32,
                }));
                Ok(vreg(id, 0, Size::S64))
            }
        }
    }

    /// An integer source: small constants as immediates.
    fn iop(&mut self, v: Value) -> Result<Operand, CompileError> {
        match self.resolved(v)? {
            Val::Const(bits, _) if bits < 256 => Ok(Operand::Imm(bits as u32)),
            Val::Const(bits, Size::S32) if self.preloading => {
                match self.constant_uniform(bits as u32) {
                    Some(u) => Ok(Operand::Uniform(u)),
                    None => Ok(Operand::Reg(self.materialize(bits, Size::S32)?)),
                }
            }
            Val::Const(bits, size) => Ok(Operand::Reg(self.materialize(bits, size)?)),
            Val::Reg(r) => Ok(Operand::Reg(r)),
            Val::Uniform(u) if u.size == Size::S64 => Ok(Operand::Reg(self.uniform_to_reg(u)?)),
            Val::Uniform(u) => Ok(Operand::Uniform(u)),
            Val::Widened(..) | Val::Sum(..) => Err(internal("deferred value after resolving")),
        }
    }

    /// An integer source that will be sign-extended when `sign_extend`: constants then go in
    /// a register, so the extension starts from the constant's own width, not from an 8-bit
    /// immediate field.
    fn ext_op(&mut self, v: Value, sign_extend: bool) -> Result<Operand, CompileError> {
        match self.iop(v)? {
            Operand::Imm(_) if sign_extend => Ok(Operand::Reg(self.reg(v)?)),
            op => Ok(op),
        }
    }

    /// ALU sources cannot name 64-bit uniforms: copy one into a register word by word (once
    /// while it dominates, see `uniform_copies`).
    fn uniform_to_reg(&mut self, u: Reg) -> Result<Reg, CompileError> {
        if u.size != Size::S64 {
            let r = self.temp(u.size)?;
            self.copy(r, Operand::Uniform(u));
            return Ok(r);
        }
        if let Some(r) = self.uniform_copies.get(&u.half) {
            return Ok(r);
        }
        let id = self.new_vreg(Size::S64, false)?;
        self.uniform_copies.insert(u.half, vreg(id, 0, Size::S64));
        for part in [0, 2] {
            let src = Operand::Uniform(Reg {
                half: u.half + part,
                size: Size::S32,
            });
            self.copy(vreg(id, part, Size::S32), src);
        }
        Ok(vreg(id, 0, Size::S64))
    }

    /// A float source: constants always in registers (float immediates use a table).
    fn fop(&mut self, v: Value) -> Result<Operand, CompileError> {
        match self.resolved(v)? {
            Val::Const(bits, Size::S32) if self.preloading => {
                match self.constant_uniform(bits as u32) {
                    Some(u) => Ok(Operand::Uniform(u)),
                    None => Ok(Operand::Reg(self.materialize(bits, Size::S32)?)),
                }
            }
            Val::Const(bits, size) => Ok(Operand::Reg(self.materialize(bits, size)?)),
            Val::Reg(r) => Ok(Operand::Reg(r)),
            Val::Uniform(u) => Ok(Operand::Uniform(u)),
            Val::Widened(..) | Val::Sum(..) => Err(internal("deferred value after resolving")),
        }
    }

    /// A source of a float arithmetic instruction: constants the 8-bit float immediate
    /// table holds exactly go in as immediates.
    fn farith_op(&mut self, v: Value) -> Result<Operand, CompileError> {
        if let Val::Const(bits, Size::S32) = self.val(v)? {
            if let Some(code) = hw::g13::float_imm_from_bits(bits as u32) {
                return Ok(Operand::Imm(u32::from(code)));
            }
        }
        self.fop(v)
    }

    /// `v` as a source of a float add, multiply or multiply-add: through the modifiers of
    /// an absorbed negation or absolute value.
    fn farith_src(&mut self, v: Value) -> Result<FSrc, CompileError> {
        match self.fmods.get(&v).copied() {
            Some(m) => Ok(FSrc {
                abs: m.abs,
                neg: m.neg,
                ..fsrc(self.farith_op(m.base)?)
            }),
            None => Ok(fsrc(self.farith_op(v)?)),
        }
    }

    /// A float constant as an arithmetic source: an immediate when the table has it, else a
    /// preloaded uniform or a register.
    fn float_imm(&mut self, x: f32) -> Result<Operand, CompileError> {
        match hw::g13::float_imm_from_bits(x.to_bits()) {
            Some(code) => Ok(Operand::Imm(u32::from(code))),
            None => match self.constant_uniform(x.to_bits()) {
                Some(u) => Ok(Operand::Uniform(u)),
                None => Ok(Operand::Reg(
                    self.materialize(u64::from(x.to_bits()), Size::S32)?,
                )),
            },
        }
    }

    /// A general-purpose register holding `v`.
    fn reg(&mut self, v: Value) -> Result<Reg, CompileError> {
        match self.resolved(v)? {
            Val::Reg(r) => Ok(r),
            Val::Const(bits, size) => self.materialize(bits, size),
            Val::Uniform(u) => self.uniform_to_reg(u),
            Val::Widened(..) | Val::Sum(..) => Err(internal("deferred value after resolving")),
        }
    }

    /// A register or uniform holding `v` (for memory bases).
    fn base(&mut self, v: Value) -> Result<Operand, CompileError> {
        match self.resolved(v)? {
            // A memory instruction's uniform base names only the first 256 halves; one
            // further on (the capture words of passes::lower_xfb) is copied to a register.
            Val::Uniform(u) if u.half >= MEMORY_BASE_UNIFORM_HALVES => {
                let id = self.new_vreg(u.size, false)?;
                // A move takes 32 bits at a time.
                for part in (0..u.size.halves()).step_by(2) {
                    let src = Reg {
                        half: u.half + part,
                        size: Size::S32,
                    };
                    self.copy(vreg(id, part, Size::S32), Operand::Uniform(src));
                }
                Ok(Operand::Reg(vreg(id, 0, u.size)))
            }
            Val::Uniform(u) => Ok(Operand::Uniform(u)),
            Val::Reg(r) => Ok(Operand::Reg(r)),
            Val::Const(bits, size) => Ok(Operand::Reg(self.materialize(bits, size)?)),
            Val::Widened(..) | Val::Sum(..) => Err(internal("deferred value after resolving")),
        }
    }

    fn copy(&mut self, dst: Reg, src: Operand) {
        self.iadd(dst, src, Operand::Imm(0), false);
    }

    fn iadd(&mut self, dst: Reg, a: Operand, b: Operand, negate_b: bool) {
        self.emit(Instr::IAdd(IAdd {
            dst: dst.into(),
            a: isrc(a),
            b: isrc(b),
            negate_b,
            shift: 0,
            saturate: false,
        }));
    }

    fn bitop(&mut self, dst: Reg, a: Operand, b: Operand, table: u8) {
        self.emit(Instr::Bitop(Bitop {
            dst: dst.into(),
            a: isrc(a),
            b: isrc(b),
            table,
        }));
    }

    fn shift(&mut self, op: ShiftOp, dst: Reg, a: Operand, b: Operand, c: Operand, mask_bits: u8) {
        self.emit(Instr::Shift(Shift {
            op,
            dst: dst.into(),
            a: isrc(a),
            b: isrc(b),
            c: isrc(c),
            mask_bits,
        }));
    }

    /// `value << amount` (bfi into zero).
    fn shl(&mut self, dst: Reg, value: Operand, amount: Operand) {
        self.shift(ShiftOp::Bfi, dst, Operand::Imm(0), value, amount, 0);
    }

    /// `value >> amount`, zero-filled (bfeil into zero).
    fn ushr(&mut self, dst: Reg, value: Operand, amount: Operand, mask_bits: u8) {
        self.shift(
            ShiftOp::Bfeil,
            dst,
            Operand::Imm(0),
            value,
            amount,
            mask_bits,
        );
    }

    fn asr(&mut self, dst: Reg, value: Operand, amount: Operand) {
        self.shift(ShiftOp::Asr, dst, value, amount, Operand::Imm(0), 0);
    }

    fn cmpsel(&mut self, dst: Reg, cond: Cond, a: Operand, b: Operand, x: Operand, y: Operand) {
        self.emit(Instr::CmpSel(CmpSel {
            cond,
            dst: dst.into(),
            a,
            b,
            x,
            y,
        }));
    }

    fn funary(&mut self, op: FUnaryOp, dst: Reg, src: Operand) {
        self.emit(Instr::FUnary(FUnary {
            op,
            dst: dst.into(),
            src: fsrc(src),
            saturate: false,
        }));
    }

    fn farith(&mut self, op: FOp, dst: Reg, a: FSrc, b: FSrc, c: FSrc) {
        self.emit(Instr::FArith(FArith {
            op,
            dst: dst.into(),
            a,
            b,
            c,
            saturate: false,
        }));
    }

    fn nodes(&mut self, list: &[Node]) -> Result<(), CompileError> {
        for n in list {
            match n {
                Node::Block(insts) => {
                    self.tex_lods.clear();
                    (self.load_pairs, self.load_quads) =
                        pairs::find(self.shader, &self.addresses, insts);
                    self.input_runs = self.input_runs(insts);
                    self.tex_runs = texture::tex_runs(self.shader, insts);
                    self.small_runs = pairs::small_runs(self.shader, &self.addresses, insts);
                    if let Some(t) = self.gfx {
                        self.attachment_runs =
                            input::attachment_runs(self.shader, &t.outputs.inputs, insts);
                    }
                    self.store_pairs = pairs::find_stores(self.shader, &self.addresses, insts);
                    self.store_at.clear();
                    self.store_parts.clear();
                    for (k, p) in self.store_pairs.iter().enumerate() {
                        self.store_at.insert(p.first, k);
                        self.store_at.insert(p.second, k);
                        self.store_parts.insert(p.lo, (k, 0));
                        self.store_parts.insert(p.hi, (k, 2));
                    }
                    self.store_quads = pairs::find_quads(&self.store_pairs);
                    self.quad_of_pair.clear();
                    for (q, quad) in self.store_quads.iter().enumerate() {
                        self.quad_of_pair.insert(quad.pairs[0], (q, 0));
                        self.quad_of_pair.insert(quad.pairs[1], (q, 1));
                    }
                    for (k, i) in insts.iter().enumerate() {
                        self.position = k;
                        self.inst(i)?;
                    }
                }
                Node::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let only_break = |b: &[Node]| matches!(b, [Node::Break]);
                    if self.loop_depth > 0 && self.exec.can_break_in_place() {
                        if only_break(then_body) && else_body.is_empty() {
                            let t = self.branch_test(*cond, false)?;
                            self.exec.break_if(t, &mut self.out);
                            continue;
                        }
                        if then_body.is_empty() && only_break(else_body) {
                            let t = self.branch_test(*cond, true)?;
                            self.exec.break_if(t, &mut self.out);
                            continue;
                        }
                    }
                    // An empty `then` arm: run the `else` arm as the `then` of the negation.
                    let (when_zero, then_body, else_body) = if then_body.is_empty() {
                        (true, else_body, then_body)
                    } else {
                        (false, then_body, else_body)
                    };
                    let has_else = !else_body.is_empty();
                    let t = self.branch_test(*cond, when_zero)?;
                    let frame = self.exec.if_begin(t, has_else, &mut self.out);
                    self.scoped(then_body)?;
                    if has_else {
                        self.exec.if_else(&frame, &mut self.out);
                        self.scoped(else_body)?;
                    }
                    self.exec.if_end(frame, &mut self.out);
                }
                Node::Loop { body } => {
                    let body = without_final_continue(body);
                    let frame = self.exec.loop_begin(&body, &mut self.out);
                    self.loop_depth += 1;
                    self.scoped(&body)?;
                    self.loop_depth -= 1;
                    self.exec.loop_end(frame, &mut self.out);
                }
                Node::Break | Node::Continue if self.loop_depth == 0 => {
                    return Err(internal("break or continue outside a loop"));
                }
                Node::Break => self.exec.jump(JumpKind::Break, &mut self.out)?,
                Node::Continue => self.exec.jump(JumpKind::Continue, &mut self.out)?,
                Node::Return => self.exec.jump(JumpKind::Return, &mut self.out)?,
            }
        }
        Ok(())
    }

    /// The nodes of an arm or a loop body: what they compute into the caches dominates
    /// nothing after them.
    fn scoped(&mut self, list: &[Node]) -> Result<(), CompileError> {
        let marks = self.cache_marks();
        let r = self.nodes(list);
        self.release_caches(marks);
        r
    }

    /// Where the dominance-scoped caches stand, before code that runs conditionally.
    fn cache_marks(&self) -> (scoped::Mark, scoped::Mark) {
        (self.uniform_copies.mark(), self.resolved_values.mark())
    }

    /// Forgets what the caches learnt since `marks`: registers defined in conditional code.
    fn release_caches(&mut self, marks: (scoped::Mark, scoped::Mark)) {
        self.uniform_copies.release(marks.0);
        self.resolved_values.release(marks.1);
    }

    fn dst(&self, inst: &Inst) -> Result<Value, CompileError> {
        inst.dst
            .ok_or_else(|| internal(format!("{:?} has no result value", inst.op)))
    }

    fn inst(&mut self, inst: &Inst) -> Result<(), CompileError> {
        small::check(self.shader, inst.dst, &inst.op)?;
        match &inst.op {
            Op::Const(c) => {
                let d = self.dst(inst)?;
                let size = size_of(self.ty(d)?)?;
                let bits = match c.0.as_slice() {
                    [b] => *b,
                    _ => return Err(internal("vector constant reached the G13 back end")),
                };
                self.set(d, Val::Const(bits, size))
            }
            Op::Copy(v) => {
                let val = self.val(*v)?;
                self.set(self.dst(inst)?, val)
            }
            Op::Unary(op, a) => self.unary(self.dst(inst)?, *op, *a),
            Op::Binary(op, a, b) => {
                let d = self.dst(inst)?;
                self.binops.insert(d, (*op, *a, *b));
                if self.fusions.absorbed.contains(&d) {
                    return Ok(());
                }
                self.binary(d, *op, *a, *b)
            }
            Op::FFma(a, b, c) => {
                let d = self.dst(inst)?;
                let (a, b, c) = (
                    self.farith_src(*a)?,
                    self.farith_src(*b)?,
                    self.farith_src(*c)?,
                );
                let r = self.def(d)?;
                self.farith(FOp::MAdd, r, a, b, c);
                Ok(())
            }
            Op::Cmp(op, a, b) => self.cmp(self.dst(inst)?, *op, *a, *b),
            Op::Select(c, a, b) => {
                let d = self.dst(inst)?;
                if size_of(self.ty(d)?)? == Size::S64 {
                    return Err(unsupported("64-bit select in the G13 back end"));
                }
                if let Some(&(op, x, y)) = self.compares.get(c) {
                    if self.ty(x)?.scalar.bits() == 32 {
                        let (cond, swap) = compare_cond(op);
                        let (x, y) = self.compare_sources(cond, x, y)?;
                        let (a, b) = (self.iop(*a)?, self.iop(*b)?);
                        let (a, b) = if swap { (b, a) } else { (a, b) };
                        let r = self.def(d)?;
                        self.cmpsel(r, cond, x, y, a, b);
                        return Ok(());
                    }
                }
                let (c, a, b) = (self.iop(*c)?, self.iop(*a)?, self.iop(*b)?);
                let r = self.def(d)?;
                self.cmpsel(r, Cond::Int(ICond::UEq), c, Operand::Imm(0), b, a);
                Ok(())
            }
            Op::Conv(op, a) => self.conv(self.dst(inst)?, *op, *a),
            Op::BitfieldInsert(base, ins, off, count) => {
                self.bitfield_insert(self.dst(inst)?, *base, *ins, *off, *count)
            }
            Op::UBitfieldExtract(base, off, count) => {
                self.bitfield_extract(self.dst(inst)?, *base, *off, *count, false)
            }
            Op::SBitfieldExtract(base, off, count) => {
                self.bitfield_extract(self.dst(inst)?, *base, *off, *count, true)
            }
            Op::LoadVar(var) => {
                let d = self.dst(inst)?;
                let id = self.var(*var)?;
                let size = self.vregs[id as usize].size;
                let r = self.def(d)?;
                self.copy(r, Operand::Reg(vreg(id, 0, size)));
                Ok(())
            }
            Op::StoreVar(var, v) => {
                let id = self.var(*var)?;
                let size = self.vregs[id as usize].size;
                let dst = vreg(id, 0, size);
                match self.val(*v)? {
                    Val::Const(bits, Size::S16 | Size::S32) => {
                        let imm = if size == Size::S16 {
                            bits as u32 & 0xffff
                        } else {
                            bits as u32
                        };
                        self.emit(Instr::MovImm(MovImm {
                            dst: dst.into(),
                            imm,
                        }));
                    }
                    _ => {
                        let src = self.iop(*v)?;
                        self.copy(dst, src);
                    }
                }
                Ok(())
            }
            Op::SysVal(sv) if gfx::is_graphics_sysval(*sv) => {
                self.graphics_sysval(self.dst(inst)?, *sv)
            }
            Op::SysVal(sv) => {
                let sr = match sv {
                    ir::SysVal::LocalInvocationId(i @ 0..=2) => {
                        SpecialReg(SpecialReg::THREAD_POSITION_IN_THREADGROUP_X.0 + i)
                    }
                    ir::SysVal::LocalInvocationIndex => SpecialReg::THREAD_INDEX_IN_THREADGROUP,
                    ir::SysVal::SubgroupLocalInvocationId => SpecialReg::THREAD_INDEX_IN_SIMDGROUP,
                    ir::SysVal::SubgroupId => SpecialReg::SIMDGROUP_INDEX_IN_THREADGROUP,
                    ir::SysVal::WorkgroupId(i @ 0..=2) => {
                        SpecialReg(SpecialReg::THREADGROUP_POSITION_IN_GRID_X.0 + i)
                    }
                    ir::SysVal::ThreadPositionInGrid(i @ 0..=2) => {
                        SpecialReg(SpecialReg::THREAD_POSITION_IN_GRID_X.0 + i)
                    }
                    other => {
                        return Err(unsupported(format!(
                            "system value {other:?} in the G13 back end"
                        )))
                    }
                };
                let r = self.def(self.dst(inst)?)?;
                if r.size != Size::S32 {
                    return Err(internal("system values are 32-bit"));
                }
                self.emit(Instr::GetSr(GetSr { dst: r.into(), sr }));
                Ok(())
            }
            Op::Load { space, addr, .. } => self.load(self.dst(inst)?, *space, *addr),
            Op::Store {
                space, addr, value, ..
            } => self.store(*space, *addr, *value),
            Op::Atomic {
                space,
                op,
                addr,
                value,
                cmp,
            } => self.atomic(inst.dst, *space, *op, *addr, *value, *cmp),
            Op::WorkgroupBarrier => {
                self.emit(Instr::ThreadgroupBarrier);
                Ok(())
            }
            Op::MemoryBarrier => {
                self.emit(Instr::MemoryBarrier);
                Ok(())
            }
            Op::LoadInput { .. }
            | Op::InterpolateInput { .. }
            | Op::InputPlaneBits { .. }
            | Op::LoadInputAttachment { .. }
            | Op::StoreOutput { .. }
            | Op::StoreBuiltin { .. }
            | Op::Discard => self.graphics_op(inst),
            Op::Texture(t) => self.texture(self.dst(inst)?, t),
            Op::ImageStore(w) => self.image_store(w),
            Op::Ballot(b) => self.ballot(self.dst(inst)?, *b),
            Op::LaneRead(l, a) => self.lane_read(self.dst(inst)?, *l, *a),
            Op::Reduce(r, a) => self.reduce(self.dst(inst)?, *r, *a),
            Op::LoadPreamble { offset } => {
                let d = self.dst(inst)?;
                let u = preamble_reg(self.preamble_base, *offset, size_of(self.ty(d)?)?)?;
                self.set(d, Val::Uniform(u))
            }
            Op::StorePreamble { offset, value } => {
                let u = preamble_reg(self.preamble_base, *offset, size_of(self.ty(*value)?)?)?;
                let r = self.reg(*value)?;
                // uniform_store moves 16-bit halves: all of the register.
                self.emit(Instr::UniformStore(UniformStore {
                    reg: Reg {
                        half: r.half,
                        size: Size::S16,
                    },
                    index: Index::Imm(u.half as i16),
                    mask: (1u8 << u.size.halves()) - 1,
                }));
                Ok(())
            }
            other => Err(unsupported(format!(
                "IR operation {other:?} in the G13 back end"
            ))),
        }
    }

    fn var(&mut self, var: ir::Var) -> Result<u16, CompileError> {
        let ty = self
            .shader
            .var_types
            .get(var.0 as usize)
            .copied()
            .ok_or_else(|| internal(format!("variable {} has no type", var.0)))?;
        if let Some(id) = self.vars[var.0 as usize] {
            return Ok(id);
        }
        let id = self.new_vreg(size_of(ty)?, true)?;
        self.vars[var.0 as usize] = Some(id);
        Ok(id)
    }

    fn unary(&mut self, d: Value, op: UnOp, a: Value) -> Result<(), CompileError> {
        let ty = self.ty(d)?;
        match op {
            UnOp::INeg => {
                let a = self.iop(a)?;
                let r = self.def(d)?;
                self.iadd(r, Operand::Imm(0), a, true);
            }
            UnOp::Not => {
                let a = self.iop(a)?;
                let r = self.def(d)?;
                if ty.scalar == Scalar::Bool {
                    self.bitop(r, a, Operand::Imm(1), XOR);
                } else {
                    self.bitop(r, a, Operand::Imm(0), NOT_A);
                }
            }
            UnOp::BitReverse | UnOp::BitCount | UnOp::UFindMsb => {
                let a = self.iop(a)?;
                let r = self.def(d)?;
                let op = match op {
                    UnOp::BitReverse => IUnaryOp::BitReverse,
                    UnOp::BitCount => IUnaryOp::PopCount,
                    _ => IUnaryOp::FindFirstSet,
                };
                self.emit(Instr::IUnary(IUnary {
                    op,
                    dst: r.into(),
                    src: isrc(a),
                }));
            }
            UnOp::SFindMsb => {
                // For negative inputs the answer is the highest clear bit: find it in ~a.
                let a = self.iop(a)?;
                let inv = self.temp(Size::S32)?;
                self.bitop(inv, a, Operand::Imm(0), NOT_A);
                let t = self.temp(Size::S32)?;
                self.cmpsel(
                    t,
                    Cond::Int(ICond::SLt),
                    a,
                    Operand::Imm(0),
                    Operand::Reg(inv),
                    a,
                );
                let r = self.def(d)?;
                self.emit(Instr::IUnary(IUnary {
                    op: IUnaryOp::FindFirstSet,
                    dst: r.into(),
                    src: isrc(Operand::Reg(t)),
                }));
            }
            UnOp::FindLsb => {
                // a & -a keeps only the lowest set bit; its index is then the highest one.
                let a = self.iop(a)?;
                let neg = self.temp(Size::S32)?;
                self.iadd(neg, Operand::Imm(0), a, true);
                let low = self.temp(Size::S32)?;
                self.bitop(low, a, Operand::Reg(neg), AND);
                let r = self.def(d)?;
                self.emit(Instr::IUnary(IUnary {
                    op: IUnaryOp::FindFirstSet,
                    dst: r.into(),
                    src: isrc(Operand::Reg(low)),
                }));
            }
            // Its uses read `a` with a source modifier.
            UnOp::FNeg | UnOp::FAbs if self.fmods.contains_key(&d) => {}
            UnOp::FNeg | UnOp::FAbs => {
                // x + (-0.0) is x exactly, including the sign of zero.
                let a = self.fop(a)?;
                let r = self.def(d)?;
                let mut src = fsrc(a);
                if op == UnOp::FNeg {
                    src.neg = true;
                } else {
                    src.abs = true;
                }
                self.farith(
                    FOp::Add,
                    r,
                    src,
                    fsrc(Operand::Imm(NEG_ZERO_IMM)),
                    fsrc(Operand::Imm(0)),
                );
            }
            UnOp::FFloor
            | UnOp::FCeil
            | UnOp::FTrunc
            | UnOp::FRoundEven
            | UnOp::FRsqrt
            | UnOp::FRcp
            | UnOp::FExp2
            | UnOp::FLog2 => {
                let a = self.fop(a)?;
                let r = self.def(d)?;
                let op = match op {
                    UnOp::FFloor => FUnaryOp::Floor,
                    UnOp::FCeil => FUnaryOp::Ceil,
                    UnOp::FTrunc => FUnaryOp::Trunc,
                    UnOp::FRoundEven => FUnaryOp::Rint,
                    UnOp::FRsqrt => FUnaryOp::Rsqrt,
                    UnOp::FRcp => FUnaryOp::Rcp,
                    UnOp::FExp2 => FUnaryOp::Exp2,
                    _ => FUnaryOp::Log2,
                };
                self.funary(op, r, a);
            }
            UnOp::FSin | UnOp::FCos => self.sincos(d, a, op == UnOp::FCos)?,
            UnOp::FDdx | UnOp::FDdy => {
                // Quads of lanes exist only in fragment launches.
                if self.gfx.map(|g| g.stage) != Some(ir::Stage::Fragment) {
                    return Err(unsupported("derivatives outside a fragment shader"));
                }
                let a = self.fop(a)?;
                let r = self.def(d)?;
                let op = if op == UnOp::FDdx {
                    FUnaryOp::Dfdx
                } else {
                    FUnaryOp::Dfdy
                };
                self.funary(op, r, a);
            }
            other => {
                return Err(unsupported(format!(
                    "unary operation {other:?} in the G13 back end"
                )))
            }
        }
        Ok(())
    }

    /// sin(x) = sin_pt_2(q') * q' with q' = sin_pt_1(q), q = 4 * fract(x / 2pi) in quadrants
    /// (cos adds a quarter turn first), the reduction Mesa's AGX back end uses.
    fn sincos(&mut self, d: Value, a: Value, cos: bool) -> Result<(), CompileError> {
        let a = self.fop(a)?;
        let inv_tau = self.float_imm(0.5 / std::f32::consts::PI)?;
        let turns = self.temp(Size::S32)?;
        if cos {
            let quarter = self.float_imm(0.25)?;
            self.farith(FOp::MAdd, turns, fsrc(a), fsrc(inv_tau), fsrc(quarter));
        } else {
            let z = Operand::Imm(0);
            self.farith(FOp::Mul, turns, fsrc(a), fsrc(inv_tau), fsrc(z));
        }
        let fl = self.temp(Size::S32)?;
        self.funary(FUnaryOp::Floor, fl, Operand::Reg(turns));
        let fract = self.temp(Size::S32)?;
        let mut neg_fl = fsrc(Operand::Reg(fl));
        neg_fl.neg = true;
        self.farith(
            FOp::Add,
            fract,
            fsrc(Operand::Reg(turns)),
            neg_fl,
            fsrc(Operand::Imm(0)),
        );
        let four = self.float_imm(4.0)?;
        let quads = self.temp(Size::S32)?;
        let z = fsrc(Operand::Imm(0));
        self.farith(FOp::Mul, quads, fsrc(Operand::Reg(fract)), fsrc(four), z);
        let fix = self.temp(Size::S32)?;
        self.funary(FUnaryOp::SinPt1, fix, Operand::Reg(quads));
        let sinc = self.temp(Size::S32)?;
        self.funary(FUnaryOp::SinPt2, sinc, Operand::Reg(fix));
        let r = self.def(d)?;
        self.farith(
            FOp::Mul,
            r,
            fsrc(Operand::Reg(sinc)),
            fsrc(Operand::Reg(fix)),
            z,
        );
        Ok(())
    }

    fn fused_add(&mut self, d: Value, f: fuse::Fused) -> Result<(), CompileError> {
        let i = match f {
            fuse::Fused::ShiftAdd {
                a,
                x,
                shift,
                negate,
            } => {
                let (a, x) = (self.iop(a)?, self.iop(x)?);
                let r = self.def(d)?;
                Instr::IAdd(IAdd {
                    dst: r.into(),
                    a: isrc(a),
                    b: isrc(x),
                    negate_b: negate,
                    shift,
                    saturate: false,
                })
            }
            fuse::Fused::MulAdd { x, y, c, negate } => {
                let (x, y, c) = (self.iop(x)?, self.iop(y)?, self.iop(c)?);
                let r = self.def(d)?;
                Instr::IMAdd(IMAdd {
                    dst: r.into(),
                    a: isrc(x),
                    b: isrc(y),
                    c: isrc(c),
                    negate_c: negate,
                    shift: 0,
                    saturate: false,
                })
            }
        };
        self.emit(i);
        Ok(())
    }

    fn binary(&mut self, d: Value, op: BinOp, a: Value, b: Value) -> Result<(), CompileError> {
        use BinOp::*;
        if op == IAdd && self.ty(d)? == ir::Type::I64 {
            return self.set(d, Val::Sum(a, b));
        }
        if op == Shl && self.ty(d)? == ir::Type::I64 {
            return self.high_word(d, a, b);
        }
        if let Some(&f) = self.fusions.adds.get(&d) {
            return self.fused_add(d, f);
        }
        match op {
            IAdd | ISub => {
                let (a, b) = (self.iop(a)?, self.iop(b)?);
                let r = self.def(d)?;
                self.iadd(r, a, b, op == ISub);
            }
            IMul => {
                let (a, b) = (self.iop(a)?, self.iop(b)?);
                let r = self.def(d)?;
                self.emit(Instr::IMAdd(IMAdd {
                    dst: r.into(),
                    a: isrc(a),
                    b: isrc(b),
                    c: isrc(Operand::Imm(0)),
                    negate_c: false,
                    shift: 0,
                    saturate: false,
                }));
            }
            UMulHigh | SMulHigh => {
                // The full 64-bit product, then its high word.
                let sign_extend = op == SMulHigh;
                let (a, b) = (self.ext_op(a, sign_extend)?, self.ext_op(b, sign_extend)?);
                let wide = self.temp(Size::S64)?;
                self.emit(Instr::IMAdd(IMAdd {
                    dst: wide.into(),
                    a: ISrc {
                        op: a,
                        sign_extend,
                        hint: Hint::None,
                    },
                    b: ISrc {
                        op: b,
                        sign_extend,
                        hint: Hint::None,
                    },
                    c: isrc(Operand::Imm(0)),
                    negate_c: false,
                    shift: 0,
                    saturate: false,
                }));
                // The high word is the result itself, read in place.
                let hi = Reg {
                    half: wide.half + 2,
                    size: Size::S32,
                };
                self.set(d, Val::Reg(hi))?;
            }
            And | Or | Xor => {
                let (a, b) = (self.iop(a)?, self.iop(b)?);
                let r = self.def(d)?;
                let t = match op {
                    And => AND,
                    Or => OR,
                    _ => XOR,
                };
                self.bitop(r, a, b, t);
            }
            Shl | UShr | SShr => {
                let (a, b) = (self.iop(a)?, self.iop(b)?);
                let r = self.def(d)?;
                match op {
                    Shl => self.shl(r, a, b),
                    UShr => self.ushr(r, a, b, 0),
                    _ => self.asr(r, a, b),
                }
            }
            UMin | SMin | UMax | SMax => {
                let (a, b) = (self.iop(a)?, self.iop(b)?);
                let r = self.def(d)?;
                let c = match op {
                    UMin => ICond::ULt,
                    SMin => ICond::SLt,
                    UMax => ICond::UGt,
                    _ => ICond::SGt,
                };
                self.cmpsel(r, Cond::Int(c), a, b, a, b);
            }
            FAdd | FSub | FMul => {
                let (a, mut b) = (self.farith_src(a)?, self.farith_src(b)?);
                let r = self.def(d)?;
                b.neg ^= op == FSub;
                let fop = if op == FMul { FOp::Mul } else { FOp::Add };
                self.farith(fop, r, a, b, fsrc(Operand::Imm(0)));
            }
            FMin | FMax => {
                let (a, b) = (self.fop(a)?, self.fop(b)?);
                let r = self.def(d)?;
                let c = if op == FMin { FCond::LtN } else { FCond::GtN };
                self.cmpsel(r, Cond::Float(c), a, b, a, b);
            }
            other => {
                return Err(unsupported(format!(
                    "binary operation {other:?} in the G13 back end"
                )))
            }
        }
        Ok(())
    }

    /// The threads a branch on the boolean `cond` takes (those where it is true, or false
    /// with `when_zero`), comparing directly when `cond` is a branch-only comparison.
    fn branch_test(&mut self, cond: Value, when_zero: bool) -> Result<Test, CompileError> {
        let Some(&(op, a, b)) = self.branch_compares.get(&cond) else {
            return Ok(Test::nonzero(self.iop(cond)?, when_zero));
        };
        let (c, swap) = compare_cond(op);
        let (a, b) = self.compare_sources(c, a, b)?;
        // The boolean would be `c(a, b) != swap`; the branch takes it, or its negation.
        Ok(Test {
            cond: c,
            a,
            b,
            invert: swap != when_zero,
        })
    }

    /// The sources of a comparison: small integers and table floats as immediates.
    fn compare_sources(
        &mut self,
        cond: Cond,
        a: Value,
        b: Value,
    ) -> Result<(Operand, Operand), CompileError> {
        Ok(match cond {
            Cond::Int(_) => (self.iop(a)?, self.iop(b)?),
            Cond::Float(_) => (self.farith_op(a)?, self.farith_op(b)?),
        })
    }

    fn cmp(&mut self, d: Value, op: CmpOp, a: Value, b: Value) -> Result<(), CompileError> {
        self.compares.insert(d, (op, a, b));
        if self.branch_compares.contains_key(&d) || self.select_only_compares.contains(&d) {
            return Ok(());
        }
        let (cond, swap) = compare_cond(op);
        let (a, b) = self.compare_sources(cond, a, b)?;
        let r = self.def(d)?;
        let (x, y) = if swap { (0, 1) } else { (1, 0) };
        self.cmpsel(r, cond, a, b, Operand::Imm(x), Operand::Imm(y));
        Ok(())
    }
}

/// The hardware condition of a comparison, and whether its result is that condition's
/// negation.
fn compare_cond(op: CmpOp) -> (Cond, bool) {
    use CmpOp::*;
    match op {
        IEq => (Cond::Int(ICond::UEq), false),
        INe => (Cond::Int(ICond::UEq), true),
        ULt => (Cond::Int(ICond::ULt), false),
        UGe => (Cond::Int(ICond::ULt), true),
        UGt => (Cond::Int(ICond::UGt), false),
        ULe => (Cond::Int(ICond::UGt), true),
        SLt => (Cond::Int(ICond::SLt), false),
        SGe => (Cond::Int(ICond::SLt), true),
        SGt => (Cond::Int(ICond::SGt), false),
        SLe => (Cond::Int(ICond::SGt), true),
        FOEq => (Cond::Float(FCond::Eq), false),
        FOLt => (Cond::Float(FCond::Lt), false),
        FOLe => (Cond::Float(FCond::Le), false),
        FOGt => (Cond::Float(FCond::Gt), false),
        FOGe => (Cond::Float(FCond::Ge), false),
        FUNe => (Cond::Float(FCond::Eq), true),
    }
}

impl Sel<'_> {
    fn conv(&mut self, d: Value, op: ConvOp, a: Value) -> Result<(), CompileError> {
        if self.conv_small(d, op, a)?.is_some() {
            return Ok(());
        }
        let from = self.ty(a)?;
        let to = self.ty(d)?;
        match op {
            ConvOp::Bitcast if size_of(from)? == size_of(to)? => {
                let v = self.val(a)?;
                self.set(d, v)
            }
            ConvOp::FToF if from == to => {
                let v = self.val(a)?;
                self.set(d, v)
            }
            ConvOp::UToU | ConvOp::SToS | ConvOp::BoolToInt => {
                let (fs, ts) = (size_of(from)?, size_of(to)?);
                if ts == Size::S64 && fs == Size::S32 && op != ConvOp::BoolToInt {
                    return self.set(d, Val::Widened(a, op == ConvOp::SToS));
                }
                let src = self.ext_op(a, op == ConvOp::SToS)?;
                if ts.bits() < fs.bits() {
                    // Truncation reads the low part of the wider value.
                    let low = match src {
                        Operand::Reg(r) => Operand::Reg(Reg {
                            half: r.half,
                            size: ts,
                        }),
                        Operand::Uniform(u) => Operand::Uniform(Reg {
                            half: u.half,
                            size: ts,
                        }),
                        Operand::Imm(i) => Operand::Imm(i),
                    };
                    let r = self.def(d)?;
                    self.copy(r, low);
                } else {
                    let r = self.def(d)?;
                    let sign_extend = op == ConvOp::SToS;
                    self.emit(Instr::IAdd(IAdd {
                        dst: r.into(),
                        a: ISrc {
                            op: src,
                            sign_extend,
                            hint: Hint::None,
                        },
                        b: isrc(Operand::Imm(0)),
                        negate_b: false,
                        shift: 0,
                        saturate: false,
                    }));
                }
                Ok(())
            }
            ConvOp::UToF | ConvOp::SToF | ConvOp::FToU | ConvOp::FToS
                if from.scalar.bits() == 32 && to.scalar.bits() == 32 =>
            {
                let (cop, round) = match op {
                    ConvOp::UToF => (ConvertOp::U32ToF, Round::NearestEven),
                    ConvOp::SToF => (ConvertOp::S32ToF, Round::NearestEven),
                    ConvOp::FToU => (ConvertOp::FToU32, Round::TowardZero),
                    _ => (ConvertOp::FToS32, Round::TowardZero),
                };
                let src = self.fop(a)?;
                let r = self.def(d)?;
                self.emit(Instr::Convert(Convert {
                    op: cop,
                    dst: r.into(),
                    src: isrc(src),
                    round,
                }));
                Ok(())
            }
            other => Err(unsupported(format!(
                "conversion {other:?} from {from:?} to {to:?} in the G13 back end"
            ))),
        }
    }

    fn const_of(&self, v: Value) -> Option<u64> {
        match self.val(v) {
            Ok(Val::Const(bits, _)) => Some(bits),
            _ => None,
        }
    }

    /// (1 << count) - 1, all ones for count 32 (the shift amount is taken mod 128, so
    /// 1 << 32 is 0 in a 32-bit register).
    fn low_mask(&mut self, count: Operand) -> Result<Reg, CompileError> {
        let one_shifted = self.temp(Size::S32)?;
        self.shl(one_shifted, Operand::Imm(1), count);
        let m = self.temp(Size::S32)?;
        self.iadd(m, Operand::Reg(one_shifted), Operand::Imm(1), true);
        Ok(m)
    }

    fn bitfield_insert(
        &mut self,
        d: Value,
        base: Value,
        ins: Value,
        off: Value,
        count: Value,
    ) -> Result<(), CompileError> {
        let (b, i, o) = (self.iop(base)?, self.iop(ins)?, self.iop(off)?);
        match self.const_of(count) {
            Some(0) => {
                let r = self.def(d)?;
                self.copy(r, b);
            }
            Some(c @ 1..=32) => {
                let r = self.def(d)?;
                self.shift(ShiftOp::Bfi, r, b, i, o, (c % 32) as u8);
            }
            _ => {
                let c = self.iop(count)?;
                let m = self.low_mask(c)?;
                let ms = self.temp(Size::S32)?;
                self.shl(ms, Operand::Reg(m), o);
                let is = self.temp(Size::S32)?;
                self.shl(is, i, o);
                let kept = self.temp(Size::S32)?;
                self.bitop(kept, b, Operand::Reg(ms), AND_NOT_B);
                let put = self.temp(Size::S32)?;
                self.bitop(put, Operand::Reg(is), Operand::Reg(ms), AND);
                let r = self.def(d)?;
                self.bitop(r, Operand::Reg(kept), Operand::Reg(put), OR);
            }
        }
        Ok(())
    }

    fn bitfield_extract(
        &mut self,
        d: Value,
        base: Value,
        off: Value,
        count: Value,
        signed: bool,
    ) -> Result<(), CompileError> {
        let (b, o) = (self.iop(base)?, self.iop(off)?);
        match self.const_of(count) {
            Some(0) => {
                let r = self.def(d)?;
                self.emit(Instr::MovImm(MovImm {
                    dst: r.into(),
                    imm: 0,
                }));
            }
            Some(c @ 1..=32) if !signed => {
                let r = self.def(d)?;
                self.ushr(r, b, o, (c % 32) as u8);
            }
            Some(c @ 1..=32) => {
                let field = self.temp(Size::S32)?;
                self.ushr(field, b, o, (c % 32) as u8);
                let up = self.temp(Size::S32)?;
                let s = Operand::Imm(32 - c as u32);
                self.shl(up, Operand::Reg(field), s);
                let r = self.def(d)?;
                self.asr(r, Operand::Reg(up), s);
            }
            _ => {
                let c = self.iop(count)?;
                let value = self.temp(Size::S32)?;
                if signed {
                    // Move the field to the top, then shift it down arithmetically.
                    let left = self.temp(Size::S32)?;
                    let tmp = self.temp(Size::S32)?;
                    self.iadd(tmp, Operand::Imm(32), o, true);
                    self.iadd(left, Operand::Reg(tmp), c, true);
                    let up = self.temp(Size::S32)?;
                    self.shl(up, b, Operand::Reg(left));
                    let right = self.temp(Size::S32)?;
                    self.iadd(right, Operand::Imm(32), c, true);
                    self.asr(value, Operand::Reg(up), Operand::Reg(right));
                } else {
                    let shifted = self.temp(Size::S32)?;
                    self.ushr(shifted, b, o, 0);
                    let m = self.low_mask(c)?;
                    self.bitop(value, Operand::Reg(shifted), Operand::Reg(m), AND);
                }
                // A zero-width field is zero.
                let r = self.def(d)?;
                self.cmpsel(
                    r,
                    Cond::Int(ICond::UEq),
                    c,
                    Operand::Imm(0),
                    Operand::Imm(0),
                    Operand::Reg(value),
                );
            }
        }
        Ok(())
    }

    /// Whether the 32-bit value `v` is a multiple of 4 by construction (wrapping arithmetic
    /// keeps that, as 2^32 is one).
    fn multiple_of_4(&self, v: Value, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        if let Some(c) = self.const_of(v) {
            return c.is_multiple_of(4);
        }
        match self.binops.get(&v) {
            Some(&(BinOp::Shl, _, k)) => self.const_of(k).is_some_and(|k| (2..32).contains(&k)),
            Some(&(BinOp::IMul | BinOp::And, x, y)) => {
                self.multiple_of_4(x, depth + 1) || self.multiple_of_4(y, depth + 1)
            }
            Some(&(BinOp::IAdd | BinOp::ISub | BinOp::Or, x, y)) => {
                self.multiple_of_4(x, depth + 1) && self.multiple_of_4(y, depth + 1)
            }
            _ => false,
        }
    }

    /// `a << 32` for a 64-bit `a`: the low word of `a` becomes the high word of an address
    /// (the one 64-bit shift the passes leave, see `passes::run_all`).
    fn high_word(&mut self, d: Value, a: Value, amount: Value) -> Result<(), CompileError> {
        if self.const_of(amount) != Some(32) {
            return Err(internal("64-bit shift by something other than 32"));
        }
        let low = match self.val(a)? {
            Val::Widened(src, _) => self.iop(src)?,
            _ => match self.iop(a)? {
                Operand::Reg(r) => Operand::Reg(Reg {
                    half: r.half,
                    size: Size::S32,
                }),
                other => other,
            },
        };
        self.high_words.insert(d);
        let r = self.def(d)?;
        let word = |part: u16| Reg {
            half: r.half + part,
            size: Size::S32,
        };
        self.copy(word(0), Operand::Imm(0));
        self.copy(word(2), low);
        Ok(())
    }

    /// `addr` as a base value plus a constant byte offset, looking through nested sums with
    /// zero-extended constants (64-bit adds, so regrouping them is exact); `None` when no
    /// constant is added.
    fn constant_offset(&mut self, addr: Value) -> Result<Option<(Value, u64)>, CompileError> {
        let mut base = addr;
        let mut total = 0u64;
        for _ in 0..8 {
            let Val::Sum(a, b) = self.val(base)? else {
                break;
            };
            let mut found = None;
            for (x, off) in [(a, b), (b, a)] {
                if let Val::Widened(o, false) = self.val(off)? {
                    if let Some(c) = self.const_of(o) {
                        found = Some((x, c));
                        break;
                    }
                }
            }
            let Some((x, c)) = found else {
                break;
            };
            base = x;
            total = total.wrapping_add(c & 0xffff_ffff);
        }
        Ok((base != addr).then_some((base, total)))
    }

    /// The address operands of a device access at `addr`. An address `base + widen(offset)`
    /// with an offset known to be a multiple of 4 becomes the index `offset / 4` (exact, even
    /// when the 32-bit offset wrapped), so the 64-bit sum is never computed; any other
    /// address is computed in full.
    fn device_address(&mut self, addr: Value, bytes: u32) -> Result<Address, CompileError> {
        if let Some((base, c)) = self.constant_offset(addr)? {
            let n = u64::from(bytes);
            if bytes == 4 && c % 4 == 0 {
                if let Some(a) = self.shifted_plus_constant(base, c / 4)? {
                    return Ok(a);
                }
            }
            if c % n == 0 && c / n <= i16::MAX as u64 {
                let base = self.base(base)?;
                return Ok(Address::new(base, Index::Imm((c / n) as i16), true));
            }
        }
        if bytes != 4 {
            return self.narrow_device_address(addr, bytes);
        }
        if let Val::Sum(a, b) = self.val(addr)? {
            for (base, off) in [(a, b), (b, a)] {
                let Val::Widened(o, signed) = self.val(off)? else {
                    continue;
                };
                // Folds that take the offset to be in range do not apply to an address's
                // low word, which may wrap.
                let in_range = self.shader.offsets_in_range && !self.high_words.contains(&base);
                if let Some(c) = self.const_of(o) {
                    let c = c as u32;
                    let quarter = if signed {
                        i64::from(c as i32) / 4
                    } else {
                        i64::from(c / 4)
                    };
                    if c.is_multiple_of(4) && (0..=i64::from(i16::MAX)).contains(&quarter) {
                        let base = self.base(base)?;
                        return Ok(Address::new(base, Index::Imm(quarter as i16), true));
                    }
                } else if self.multiple_of_4(o, 0) {
                    // `x << 2` indexes with `x` itself where a wrapped offset is out of range
                    // anyway (unchecked buffer accesses): the index is shifted back by the
                    // hardware, without the 32-bit wrap, which only an access past 4 GiB sees.
                    // `x << 3` and `x << 4` likewise, with the access's own index shift.
                    if let Some(&(BinOp::Shl, x, k)) = self.binops.get(&o) {
                        let k = self.const_of(k).unwrap_or(0);
                        if in_range && !signed && (2..=4).contains(&k) {
                            let x = self.reg(x)?;
                            let base = self.base(base)?;
                            return Ok(Address {
                                base,
                                index: Index::Reg(x),
                                index_unsigned: true,
                                shift: (k - 2) as u8,
                            });
                        }
                    }
                    // `(x << k) + c` likewise (k up to 6): the index `(x << (k - 2)) + c / 4`,
                    // one `iadd`.
                    if in_range && !signed {
                        if let Some((x, k, quarter @ 0..=0xffff)) = self.shifted_parts(o) {
                            let q = self.shifted_index(x, k, quarter)?;
                            let base = self.base(base)?;
                            return Ok(Address::new(base, Index::Reg(q), true));
                        }
                    }
                    let o = self.iop(o)?;
                    let q = self.temp(Size::S32)?;
                    if signed {
                        self.asr(q, o, Operand::Imm(2));
                    } else {
                        self.ushr(q, o, Operand::Imm(2), 0);
                    }
                    let base = self.base(base)?;
                    return Ok(Address::new(base, Index::Reg(q), !signed));
                }
            }
        }
        Ok(Address::new(self.base(addr)?, Index::Imm(0), true))
    }

    /// `b + widen(offset) + 4 * quarter`, the offset as [`Sel::shifted_parts`] takes it, as
    /// base `b` and one `iadd`'s index, where offsets are in range (see `device_address`):
    /// the 64-bit sum is never computed.
    fn shifted_plus_constant(
        &mut self,
        sum: Value,
        quarter: u64,
    ) -> Result<Option<Address>, CompileError> {
        if !self.shader.offsets_in_range || quarter > 0xffff {
            return Ok(None);
        }
        let Val::Sum(a, b) = self.val(sum)? else {
            return Ok(None);
        };
        for (base, off) in [(a, b), (b, a)] {
            let Val::Widened(o, false) = self.val(off)? else {
                continue;
            };
            if self.high_words.contains(&base) {
                continue;
            }
            let Some((x, k, inner)) = self.shifted_parts(o) else {
                continue;
            };
            let quarter = quarter + inner;
            if quarter > 0xffff {
                continue;
            }
            let q = self.shifted_index(x, k, quarter)?;
            let base = self.base(base)?;
            return Ok(Some(Address::new(base, Index::Reg(q), true)));
        }
        Ok(None)
    }

    /// A 32-bit offset `(x << k) + 4 * quarter` (k from 2 to 6; quarter 0 for `x << k`) as
    /// (x, k, quarter).
    fn shifted_parts(&self, o: Value) -> Option<(Value, u64, u64)> {
        let (p, quarter) = match self.binops.get(&o) {
            Some(&(BinOp::IAdd, p, c)) => match (self.const_of(c), self.const_of(p)) {
                (Some(c), _) if c % 4 == 0 => (p, c / 4),
                (_, Some(pc)) if pc % 4 == 0 => (c, pc / 4),
                _ => return None,
            },
            _ => (o, 0),
        };
        match self.binops.get(&p) {
            Some(&(BinOp::Shl, x, k)) => match self.const_of(k) {
                Some(k @ 2..=6) => Some((x, k, quarter)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `(x << (k - 2)) + quarter` (k from 2 to 6, quarter below 2^16) in one `iadd`: a
    /// word index for the byte offset `(x << k) + 4 * quarter`.
    fn shifted_index(&mut self, x: Value, k: u64, quarter: u64) -> Result<Reg, CompileError> {
        let x = self.iop(x)?;
        let c = match quarter {
            0..=255 => Operand::Imm(quarter as u32),
            _ => Operand::Reg(self.imm_r(quarter as u32)?),
        };
        let q = self.temp(Size::S32)?;
        self.emit(Instr::IAdd(IAdd {
            dst: q.into(),
            a: isrc(c),
            b: isrc(x),
            negate_b: false,
            shift: (k - 2) as u8,
            saturate: false,
        }));
        Ok(q)
    }

    /// `device_address` for 1- and 2-byte elements: the index counts elements, so an offset
    /// that is a constant multiple of the element (or any offset, for bytes) becomes the
    /// index; otherwise the address is computed in full.
    fn narrow_device_address(&mut self, addr: Value, bytes: u32) -> Result<Address, CompileError> {
        if let Val::Sum(a, b) = self.val(addr)? {
            for (base, off) in [(a, b), (b, a)] {
                let Val::Widened(o, signed) = self.val(off)? else {
                    continue;
                };
                if let Some(c) = self.const_of(o) {
                    let c = c as u32;
                    let n = if signed {
                        i64::from(c as i32) / i64::from(bytes)
                    } else {
                        i64::from(c / bytes)
                    };
                    if c.is_multiple_of(bytes) && (0..=i64::from(i16::MAX)).contains(&n) {
                        let base = self.base(base)?;
                        return Ok(Address::new(base, Index::Imm(n as i16), true));
                    }
                } else if bytes == 1 {
                    let o = self.iop(o)?;
                    let o = match o {
                        Operand::Reg(r) => r,
                        other => {
                            let r = self.temp(Size::S32)?;
                            self.copy(r, other);
                            r
                        }
                    };
                    let base = self.base(base)?;
                    return Ok(Address::new(base, Index::Reg(o), !signed));
                }
            }
        }
        Ok(Address::new(self.base(addr)?, Index::Imm(0), true))
    }

    /// Memory format, element mask and first register for a 32- or 64-bit transfer.
    fn transfer(r: Reg) -> Result<(Reg, u8), CompileError> {
        match r.size {
            Size::S32 => Ok((r, 0b1)),
            Size::S64 => Ok((
                Reg {
                    half: r.half,
                    size: Size::S32,
                },
                0b11,
            )),
            // 8- and 16-bit values: one element of a byte or halfword format.
            Size::S16 => Ok((r, 0b1)),
        }
    }

    fn stack_offset(&mut self, addr: Value) -> Result<Index, CompileError> {
        match self.const_of(addr) {
            Some(c) if c <= i16::MAX as u64 => Ok(Index::Imm(c as i16)),
            _ => Ok(Index::Reg(self.reg(addr)?)),
        }
    }

    /// A 16-bit view of the byte offset `addr` in shared memory.
    fn shared_base(&mut self, addr: Value) -> Result<Operand, CompileError> {
        let r = self.reg(addr)?;
        Ok(Operand::Reg(Reg {
            half: r.half,
            size: Size::S16,
        }))
    }

    fn load(&mut self, d: Value, space: Space, addr: Value) -> Result<(), CompileError> {
        if space == Space::Root {
            let size = size_of(self.ty(d)?)?;
            let off = self
                .const_of(addr)
                .ok_or_else(|| unsupported("root table load at a non-constant offset"))?;
            let align = u64::from(size.halves()) * 2;
            // Vertex shaders may be capture variants or geometry draw programs (and their
            // pass-through shaders), whose table goes on with the transform feedback and
            // geometry words (passes::lower_xfb, geometry_pipeline); only those read past
            // the graphics table.
            let table = if self
                .gfx
                .is_some_and(|t| t.stage == crate::ir::Stage::Vertex)
            {
                abi::GEOMETRY_ROOT_TABLE_SIZE
            } else if self.gfx.is_some()
                || self.preamble_base == abi::GRAPHICS_PREAMBLE_UNIFORM_START
            {
                // A vertex or fragment shader's preamble reads the graphics table too.
                abi::GRAPHICS_ROOT_TABLE_SIZE
            } else {
                abi::ROOT_TABLE_SIZE
            };
            let byte = self.ty(d)?.scalar == Scalar::I8;
            let bool16 = self.ty(d)?.scalar == Scalar::Bool;
            if byte && off < u64::from(table) {
                return self.root_byte(d, off);
            }
            if bool16 || off % align != 0 || off + align > u64::from(table) {
                return Err(unsupported(format!(
                    "root table load of {size:?} at byte {off}"
                )));
            }
            return self.set(
                d,
                Val::Uniform(Reg {
                    half: (off / 2) as u16,
                    size,
                }),
            );
        }
        if space == Space::Global && self.preloading {
            if let Some(u) = self.preload(d, addr)? {
                return self.set(d, Val::Uniform(u));
            }
        }
        if space == Space::Global {
            if self.vals.get(d.0 as usize).is_some_and(Option::is_some) {
                // The upper half of a pair, loaded with the lower.
                return Ok(());
            }
            if let Some(&quad) = self.load_quads.get(&d) {
                return self.load_quad(quad);
            }
            if let Some(&upper) = self.load_pairs.get(&d) {
                return self.load_pair(d, upper, addr);
            }
            if let Some(run) = self.small_runs.get(&d).cloned() {
                return self.load_small_run(&run, addr);
            }
        }
        let format = self.mem_format(d)?;
        let r = self.def(d)?;
        let (reg, mask) = Self::transfer(r)?;
        let i = match space {
            Space::Global => {
                let a = self.device_address(addr, format.bytes())?;
                a.access(false, reg, format, mask)
            }
            Space::Shared => {
                let base = self.shared_base(addr)?;
                Instr::ThreadgroupMem(ThreadgroupMem {
                    store: false,
                    reg,
                    base,
                    index: Index::Imm(0),
                    format,
                    mask,
                    wait_slot: 0,
                })
            }
            Space::Scratch => {
                let offset = self.stack_offset(addr)?;
                Instr::StackMem(StackMem {
                    store: false,
                    reg,
                    offset,
                    format,
                    mask,
                    wait_slot: 0,
                })
            }
            Space::Root => unreachable!("handled above"),
        };
        self.emit(i);
        Ok(())
    }

    /// The four 32-bit loads of `quad` as one, into a 128-bit register.
    fn load_quad(&mut self, quad: pairs::LoadQuad) -> Result<(), CompileError> {
        let format = self.mem_format(quad.words[0])?;
        let id = self.new_words(4)?;
        for (k, &w) in quad.words.iter().enumerate() {
            self.set(w, Val::Reg(word(id, k)))?;
        }
        let a = self.device_address(quad.addr, format.bytes())?;
        self.emit(a.access(false, vreg(id, 0, Size::S32), format, 0b1111));
        Ok(())
    }

    /// A run of 8- or 16-bit loads (`pairs::small_runs`) as one, into the 16-bit halves of
    /// one register; `addr` is the first's address.
    fn load_small_run(&mut self, run: &[Value], addr: Value) -> Result<(), CompileError> {
        let format = self.mem_format(run[0])?;
        let id = self.new_vreg(Size::S64, false)?;
        for (k, &v) in run.iter().enumerate() {
            self.set(v, Val::Reg(vreg(id, k as u16, Size::S16)))?;
        }
        let a = self.device_address(addr, format.bytes())?;
        let mask = (1u8 << run.len()) - 1;
        self.emit(a.access(false, vreg(id, 0, Size::S16), format, mask));
        Ok(())
    }

    /// The 32-bit loads `lower` at `addr` and `upper` at `addr + 4` as one.
    fn load_pair(&mut self, lower: Value, upper: Value, addr: Value) -> Result<(), CompileError> {
        let format = self.mem_format(lower)?;
        let id = self.new_vreg(Size::S64, false)?;
        self.set(lower, Val::Reg(vreg(id, 0, Size::S32)))?;
        self.set(upper, Val::Reg(vreg(id, 2, Size::S32)))?;
        let a = self.device_address(addr, format.bytes())?;
        self.emit(a.access(false, vreg(id, 0, Size::S32), format, 0b11));
        Ok(())
    }

    /// A 32- or 64-bit load from a bound set's memory at a constant offset (a descriptor's
    /// address or size word) as a uniform the launch preloads, when the preload area has
    /// room; `None` leaves it a load. Set memory is always readable while a set is bound, so
    /// loading it at launch, even for a load the shader would have skipped, is harmless.
    fn preload(&mut self, d: Value, addr: Value) -> Result<Option<Reg>, CompileError> {
        let size = size_of(self.ty(d)?)?;
        if !matches!(self.ty(d)?.scalar, Scalar::I32 | Scalar::I64 | Scalar::F32)
            || size == Size::S16
        {
            return Ok(None);
        }
        // The set's address plus a constant, or (offset 0) the address alone.
        let (base, byte_offset) = self.constant_offset(addr)?.unwrap_or((addr, 0));
        // Looked at, not resolved: resolving would emit the arithmetic of a sum.
        let Val::Uniform(u) = self.val(base)? else {
            return Ok(None);
        };
        let root_offset = u32::from(u.half) * 2;
        let sets = abi::set_address_offset(0)..abi::set_address_offset(abi::MAX_SETS);
        let halves = u32::from(size.halves());
        let Ok(byte_offset) = u32::try_from(byte_offset) else {
            return Ok(None);
        };
        if u.size != Size::S64 || !sets.contains(&root_offset) || byte_offset % (halves * 2) != 0 {
            return Ok(None);
        }
        let key = (root_offset, byte_offset, halves);
        if let Some(&half) = self.preload_at.get(&key) {
            return Ok(Some(Reg { half, size }));
        }
        let end = self
            .uniform_preloads
            .last()
            .map_or(abi::PRELOAD_UNIFORM_START, |p| p.uniform_half + p.halves);
        // 64-bit uniforms start at a multiple of four halves.
        let start = end.next_multiple_of(halves.max(2));
        if start + halves > self.preload_end {
            return Ok(None);
        }
        self.uniform_preloads.push(crate::UniformPreload {
            uniform_half: start,
            halves,
            source: crate::PreloadSource::Set { root_offset },
            byte_offset,
        });
        self.preload_at.insert(key, start as u16);
        Ok(Some(Reg {
            half: start as u16,
            size,
        }))
    }

    /// A 32-bit constant as a uniform the launch preloads from the binary's constant data,
    /// where the shader's launch takes preloads and the area has room: a source operand
    /// without a `mov_imm`.
    fn constant_uniform(&mut self, bits: u32) -> Option<Reg> {
        if !self.preloading {
            return None;
        }
        let reg = |half| Reg {
            half,
            size: Size::S32,
        };
        if let Some(&half) = self.constant_at.get(&bits) {
            return Some(reg(half));
        }
        let end = self
            .uniform_preloads
            .last()
            .map_or(abi::PRELOAD_UNIFORM_START, |p| p.uniform_half + p.halves);
        let start = end.next_multiple_of(2);
        if start + 2 > self.preload_end {
            return None;
        }
        let byte_offset = self.constants.len() as u32;
        self.constants.extend_from_slice(&bits.to_le_bytes());
        // Constants in adjacent uniforms are one load.
        match self.uniform_preloads.last_mut() {
            Some(p)
                if p.source == crate::PreloadSource::Constants
                    && p.uniform_half + p.halves == start
                    && p.byte_offset + 2 * p.halves == byte_offset =>
            {
                p.halves += 2;
            }
            _ => self.uniform_preloads.push(crate::UniformPreload {
                uniform_half: start,
                halves: 2,
                source: crate::PreloadSource::Constants,
                byte_offset,
            }),
        }
        self.constant_at.insert(bits, start as u16);
        Some(reg(start as u16))
    }

    /// The 128-bit register of store run `q`, made on first use.
    fn quad_vreg(&mut self, q: usize) -> Result<u16, CompileError> {
        if let Some(id) = self.store_quads[q].vreg {
            return Ok(id);
        }
        let id = self.new_words(4)?;
        self.store_quads[q].vreg = Some(id);
        Ok(id)
    }

    /// Instructions a store pair takes on its own: one store when both values sit in the
    /// pair's register, two copies and one store for two uniforms, else a store each (and a
    /// copy for a value not in a register).
    fn pair_cost(&mut self, sp: &pairs::StorePair) -> Result<usize, CompileError> {
        let (lo, hi) = (self.val(sp.lo)?, self.val(sp.hi)?);
        Ok(match (sp.vreg, lo, hi) {
            (_, Val::Uniform(l), Val::Uniform(h)) if l.size == Size::S32 && h.size == Size::S32 => {
                3
            }
            (Some(id), Val::Reg(l), Val::Reg(h))
                if l == vreg(id, 0, Size::S32) && h == vreg(id, 2, Size::S32) =>
            {
                1
            }
            _ => [lo, hi]
                .iter()
                .map(|v| if matches!(v, Val::Reg(_)) { 1 } else { 2 })
                .sum(),
        })
    }

    /// A store that is part of a run of four: nothing until the last, then one store of the
    /// four from a 128-bit register (values not computed into it are copied there first),
    /// unless storing the two pairs on their own takes fewer instructions.
    fn quad_store(&mut self, q: usize) -> Result<(), CompileError> {
        let quad = self.store_quads[q];
        if self.position != quad.last {
            return Ok(());
        }
        let [pl, ph] = quad.pairs;
        let (a, b) = (self.store_pairs[pl], self.store_pairs[ph]);
        let values = [a.lo, a.hi, b.lo, b.hi];
        let format = self.mem_format(a.lo)?;
        let mut same_format = true;
        let mut copies = 0;
        for (k, &v) in values.iter().enumerate() {
            same_format &= self.mem_format(v)? == format;
            let home = quad.vreg.map(|id| word(id, k));
            if !matches!(self.val(v)?, Val::Reg(r) if Some(r) == home) {
                copies += 1;
            }
        }
        let alone = self.pair_cost(&a)? + self.pair_cost(&b)?;
        if !same_format || copies + 1 > alone {
            self.emit_pair(pl)?;
            return self.emit_pair(ph);
        }
        let id = self.quad_vreg(q)?;
        for (k, &v) in values.iter().enumerate() {
            let home = word(id, k);
            match self.resolved(v)? {
                Val::Reg(r) if r == home => {}
                Val::Const(bits, _) => self.emit(Instr::MovImm(MovImm {
                    dst: home.into(),
                    imm: bits as u32,
                })),
                _ => {
                    let src = self.iop(v)?;
                    self.copy(home, src);
                }
            }
        }
        let addr = self.device_address(a.lo_addr, format.bytes())?;
        self.emit(addr.access(true, vreg(id, 0, Size::S32), format, 0b1111));
        Ok(())
    }

    /// A store that is half of a pair: nothing at the first, then the pair.
    fn paired_store(&mut self, p: usize) -> Result<(), CompileError> {
        if let Some(&(q, _)) = self.quad_of_pair.get(&p) {
            return self.quad_store(q);
        }
        if self.position == self.store_pairs[p].first {
            return Ok(());
        }
        self.emit_pair(p)
    }

    /// Store pair `p`: one store of both when their values sit in one register's halves,
    /// else the two stores in order.
    fn emit_pair(&mut self, p: usize) -> Result<(), CompileError> {
        let sp = self.store_pairs[p];
        let (lo, hi) = (self.val(sp.lo)?, self.val(sp.hi)?);
        // Two uniforms (a preamble's results): copied into one register pair, one store.
        if let (Val::Uniform(l), Val::Uniform(h)) = (lo, hi) {
            if l.size == Size::S32 && h.size == Size::S32 {
                let format = self.mem_format(sp.lo)?;
                let id = self.new_vreg(Size::S64, false)?;
                self.copy(vreg(id, 0, Size::S32), Operand::Uniform(l));
                self.copy(vreg(id, 2, Size::S32), Operand::Uniform(h));
                let a = self.device_address(sp.lo_addr, format.bytes())?;
                self.emit(a.access(true, vreg(id, 0, Size::S32), format, 0b11));
                return Ok(());
            }
        }
        if let (Some(id), Val::Reg(l), Val::Reg(h)) = (sp.vreg, lo, hi) {
            if l == vreg(id, 0, Size::S32) && h == vreg(id, 2, Size::S32) {
                let format = self.mem_format(sp.lo)?;
                let a = self.device_address(sp.lo_addr, format.bytes())?;
                self.emit(a.access(true, l, format, 0b11));
                return Ok(());
            }
        }
        self.single_store(Space::Global, sp.first_addr, sp.first_value)?;
        self.single_store(Space::Global, sp.second_addr, sp.second_value)
    }

    fn store(&mut self, space: Space, addr: Value, value: Value) -> Result<(), CompileError> {
        if space == Space::Global {
            if let Some(&p) = self.store_at.get(&self.position) {
                return self.paired_store(p);
            }
        }
        self.single_store(space, addr, value)
    }

    fn single_store(
        &mut self,
        space: Space,
        addr: Value,
        value: Value,
    ) -> Result<(), CompileError> {
        let format = self.mem_format(value)?;
        let data = self.reg(value)?;
        let (reg, mask) = Self::transfer(data)?;
        let i = match space {
            Space::Global => {
                let a = self.device_address(addr, format.bytes())?;
                a.access(true, reg, format, mask)
            }
            Space::Shared => {
                let base = self.shared_base(addr)?;
                Instr::ThreadgroupMem(ThreadgroupMem {
                    store: true,
                    reg,
                    base,
                    index: Index::Imm(0),
                    format,
                    mask,
                    wait_slot: 0,
                })
            }
            Space::Scratch => {
                let offset = self.stack_offset(addr)?;
                Instr::StackMem(StackMem {
                    store: true,
                    reg,
                    offset,
                    format,
                    mask,
                    wait_slot: 0,
                })
            }
            Space::Root => return Err(unsupported("stores to the root table")),
        };
        self.emit(i);
        Ok(())
    }

    fn atomic(
        &mut self,
        d: Option<Value>,
        space: Space,
        op: ir::AtomicOp,
        addr: Value,
        value: Value,
        cmp: Option<Value>,
    ) -> Result<(), CompileError> {
        let hop = match op {
            ir::AtomicOp::Add => AtomicOp::Add,
            ir::AtomicOp::Sub => AtomicOp::Sub,
            ir::AtomicOp::UMin => AtomicOp::UMin,
            ir::AtomicOp::SMin => AtomicOp::SMin,
            ir::AtomicOp::UMax => AtomicOp::UMax,
            ir::AtomicOp::SMax => AtomicOp::SMax,
            ir::AtomicOp::And => AtomicOp::And,
            ir::AtomicOp::Or => AtomicOp::Or,
            ir::AtomicOp::Xor => AtomicOp::Xor,
            ir::AtomicOp::Exchange => AtomicOp::Xchg,
            ir::AtomicOp::CompareExchange => AtomicOp::CmpXchg,
        };
        if size_of(self.ty(value)?)? != Size::S32 {
            return Err(unsupported(
                "atomics on values other than 32-bit in the G13 back end",
            ));
        }
        let src = if hop == AtomicOp::CmpXchg {
            // The comparator in the low register, the new value in the high one.
            let cmp = cmp.ok_or_else(|| internal("compare-exchange without a comparator"))?;
            let (c, v) = (self.iop(cmp)?, self.iop(value)?);
            let id = self.new_vreg(Size::S64, false)?;
            self.copy(vreg(id, 0, Size::S32), c);
            self.copy(vreg(id, 2, Size::S32), v);
            vreg(id, 0, Size::S64)
        } else {
            self.reg(value)?
        };
        // A device atomic's index is sign-extended and not shifted: an index `device_address`
        // finds is below 2^30 (or the access is out of range anyway, see there).
        let (base, index) = match space {
            Space::Global => match self.device_address(addr, 4)? {
                a if a.shift == 0 => (a.base, a.index),
                _ => (self.base(addr)?, Index::Imm(0)),
            },
            Space::Shared => (self.shared_base(addr)?, Index::Imm(0)),
            other => return Err(unsupported(format!("atomics in {other:?} memory"))),
        };
        let dst = match d {
            Some(d) => Some(self.def(d)?),
            None => None,
        };
        let i = if space == Space::Global {
            Instr::Atomic(Atomic {
                op: hop,
                dst,
                src,
                base,
                index,
                wait_slot: 0,
            })
        } else {
            Instr::ThreadgroupAtomic(ThreadgroupAtomic {
                op: hop,
                dst,
                src,
                base,
                index: Index::Imm(0),
                wait_slot: 0,
            })
        };
        self.emit(i);
        Ok(())
    }
}
