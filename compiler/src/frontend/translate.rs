//! Functions, inlining and structured control flow: rebuilds `If`/`Loop` trees from
//! OpSelectionMerge / OpLoopMerge and carries values across blocks through Vars.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Block, Function, Instruction, Operand};
use spirv::{Op, Word};

use super::constants::CVal;
use super::layout::Layouts;
use super::module::{id, invalid, result_id, result_type, unsupported, Decorations, SpvType};
use super::values::{Def, Entry, FVal, Ptr};
use crate::ir::{self, Constant, Inst, Node, Scalar, Shader, Type, Value, Var};
use crate::CompileError;

/// Blocks translated (counting duplicates) before the front end gives up.
const BLOCK_BUDGET: u32 = 200_000;
/// Instructions emitted before the front end gives up.
const INST_BUDGET: usize = 2_000_000;
const MAX_NESTING: usize = 64;

/// A loop being translated, or a switch: a switch is wrapped in a one-trip `Loop` so that a
/// `break` from anywhere in its cases is a `Break`; a `continue` of the enclosing loop from
/// inside it sets `continue_flag` and leaves the wrapper first, and a branch to the enclosing
/// loop's merge sets `break_flag` and does the same.
pub(super) struct LoopCtx {
    pub header: Word,
    pub merge: Word,
    pub cont: Word,
    pub stops_len: usize,
    pub continue_flag: Option<Var>,
    pub break_flag: Option<Var>,
    /// Whether a branch inside the switch wrapper set `continue_flag` / `break_flag`: only
    /// then does the code after the wrapper test it (and translate the enclosing loop's
    /// continue or merge blocks there, which may use values of blocks after the switch).
    pub flags_set: [bool; 2],
}

/// Header and continue target of a switch wrapper: no block has this id.
const NO_BLOCK: Word = u32::MAX;

pub(super) enum RetMode {
    Entry,
    Callee {
        vars: Option<(FVal, Vec<Var>)>,
        wrapped: bool,
        flag: Option<Var>,
    },
}

/// Per inlined call: the ids of one function instance.
pub(super) struct FnState<'m> {
    pub ids: HashMap<Word, Def>,
    pub crossing: HashSet<Word>,
    pub blocks: HashMap<Word, &'m Block>,
    pub phi_vars: HashMap<Word, (FVal, Vec<Var>)>,
    pub instance: u32,
    pub loops: Vec<LoopCtx>,
    pub stops: Vec<Word>,
    pub ret: RetMode,
    pub current_block: Word,
}

pub(super) struct Tr<'m> {
    pub l: Layouts<'m>,
    pub decos: &'m Decorations,
    pub consts: &'m HashMap<Word, (Word, CVal)>,
    pub funcs: HashMap<Word, &'m Function>,
    pub globals: HashMap<Word, Entry>,
    /// Private variables live for the whole invocation; they are created once.
    pub glsl_set: Option<Word>,
    pub ignored_sets: HashSet<Word>,
    pub sh: Shader,
    pub cur: Vec<Node>,
    pub scratch_offsets: HashMap<Word, u32>,
    pub scratch_vars: HashSet<Word>,
    /// Variables of image and sampler types agx4 does not implement: an error where used.
    pub opaque_vars: HashSet<Word>,
    pub call_stack: Vec<Word>,
    pub next_instance: u32,
    pub blocks_done: u32,
    pub insts: usize,
    pub depth: usize,
    pub stage: ir::Stage,
    /// Output Vars and where they go when the entry point returns.
    pub outputs: Vec<(ir::Var, super::stage_io::OutTarget)>,
    /// (variable, first access-chain index) pairs found in the module.
    pub written_members: HashSet<(Word, u32)>,
    pub per_sample: bool,
    pub origin_upper_left: bool,
    /// The module declares the DemoteToHelperInvocation capability.
    pub demote_allowed: bool,
    /// The varying each non-built-in Input Var holds (for the interpolateAt* functions).
    pub input_slots: HashMap<ir::Var, super::fragment_ops::InputSlot>,
    /// Ids of physical pointer type, with that type (frontend::physical).
    pub phys_ptrs: HashMap<Word, Word>,
    /// The entry point declares the Xfb execution mode (frontend::xfb).
    pub xfb_mode: bool,
    pub xfb_leaves: Vec<super::xfb::XfbLeaf>,
    pub xfb_strides: [u32; ir::XFB_BUFFERS],
    /// Geometry shaders: the execution modes (the input primitive sizes per-vertex inputs).
    pub geometry: Option<ir::GeometryInfo>,
}

impl<'m> Tr<'m> {
    pub fn emit(&mut self, ty: Type, op: ir::Op) -> Result<Value, CompileError> {
        let v = self.sh.new_value(ty);
        self.push(Inst { dst: Some(v), op })?;
        Ok(v)
    }

    pub fn push(&mut self, inst: Inst) -> Result<(), CompileError> {
        self.insts += 1;
        if self.insts > INST_BUDGET {
            return Err(CompileError::Limit(
                "shader expands to too many instructions".into(),
            ));
        }
        if let Some(Node::Block(b)) = self.cur.last_mut() {
            b.push(inst);
        } else {
            self.cur.push(Node::Block(vec![inst]));
        }
        Ok(())
    }

    pub fn effect(&mut self, op: ir::Op) -> Result<(), CompileError> {
        self.push(Inst { dst: None, op })
    }

    pub fn konst(&mut self, ty: Type, lanes: Vec<u64>) -> Result<Value, CompileError> {
        self.emit(ty, ir::Op::Const(Constant(lanes)))
    }

    pub fn u32c(&mut self, v: u32) -> Result<Value, CompileError> {
        self.konst(Type::I32, vec![v as u64])
    }

    /// Materializes a constant of SPIR-V type `ty`.
    pub fn const_fval(&mut self, ty: Word, c: &CVal) -> Result<FVal, CompileError> {
        if self.l.is_simple(ty)? {
            let t = self.l.ir_type(ty)?;
            let lanes = match c {
                CVal::Scalar(v) => vec![*v; 1],
                CVal::Comp(cs) => cs
                    .iter()
                    .map(|c| match c {
                        CVal::Scalar(v) => Ok(*v),
                        _ => Err(invalid("vector constant with composite lanes")),
                    })
                    .collect::<Result<_, _>>()?,
            };
            if lanes.len() != t.lanes as usize {
                return Err(invalid("constant lane count does not match its type"));
            }
            return Ok(FVal::V(self.konst(t, lanes)?));
        }
        let kids = self.l.children(ty)?;
        let CVal::Comp(cs) = c else {
            return Err(invalid("composite constant expected"));
        };
        if cs.len() != kids.len() {
            return Err(invalid("composite constant has the wrong number of parts"));
        }
        Ok(FVal::C(
            kids.iter()
                .zip(cs)
                .map(|(k, c)| self.const_fval(*k, c))
                .collect::<Result<_, _>>()?,
        ))
    }

    pub fn zero_fval(&mut self, ty: Word) -> Result<FVal, CompileError> {
        let c = super::constants::null(self.l.types, ty, 0)?;
        self.const_fval(ty, &c)
    }

    /// Creates Vars shaped like a value of type `ty` (for phis, returns, carried values).
    pub fn vars_for(&mut self, ty: Word) -> Result<(FVal, Vec<Var>), CompileError> {
        let mut leaves = Vec::new();
        self.l.leaves(ty, &mut leaves, 0)?;
        let vars: Vec<Var> = leaves.iter().map(|t| self.sh.new_var(*t)).collect();
        // A template whose values are placeholders; `rebuild` replaces them in order.
        let tmpl = self.template(ty)?;
        Ok((tmpl, vars))
    }

    fn template(&mut self, ty: Word) -> Result<FVal, CompileError> {
        if self.l.is_simple(ty)? {
            return Ok(FVal::V(Value(0)));
        }
        let kids = self.l.children(ty)?;
        Ok(FVal::C(
            kids.iter()
                .map(|k| self.template(*k))
                .collect::<Result<_, _>>()?,
        ))
    }

    pub fn store_vars(&mut self, vars: &[Var], f: &FVal) -> Result<(), CompileError> {
        let mut vals = Vec::new();
        f.values(&mut vals);
        if vals.len() != vars.len() {
            return Err(invalid("value does not match the shape of its variable"));
        }
        for (var, v) in vars.iter().zip(vals) {
            if self.sh.var_types[var.0 as usize] != self.sh.ty(v) {
                return Err(invalid("value type does not match its variable"));
            }
            self.effect(ir::Op::StoreVar(*var, v))?;
        }
        Ok(())
    }

    pub fn load_vars(&mut self, tmpl: &FVal, vars: &[Var]) -> Result<FVal, CompileError> {
        let mut vals = Vec::new();
        for var in vars {
            let ty = self.sh.var_types[var.0 as usize];
            vals.push(self.emit(ty, ir::Op::LoadVar(*var))?);
        }
        Ok(tmpl.rebuild(&mut vals.into_iter()))
    }

    /// What `id` stands for in the current block.
    pub fn lookup(&mut self, fs: &FnState<'m>, w: Word) -> Result<Entry, CompileError> {
        if let Some(def) = fs.ids.get(&w) {
            if def.instance == fs.instance {
                return Ok(def.entry.clone());
            }
            let Some(vars) = &def.spill else {
                return Err(invalid(format!(
                    "id {w} used where its definition does not dominate"
                )));
            };
            let mut vals = Vec::new();
            for var in vars.clone() {
                let ty = self.sh.var_types[var.0 as usize];
                vals.push(self.emit(ty, ir::Op::LoadVar(var))?);
            }
            return Ok(def.entry.rebuild(&mut vals.into_iter()));
        }
        if let Some((ty, c)) = self.consts.get(&w) {
            let (ty, c) = (*ty, c.clone());
            return Ok(Entry::Val(self.const_fval(ty, &c)?));
        }
        if let Some(e) = self.globals.get(&w) {
            return Ok(e.clone());
        }
        if self.opaque_vars.contains(&w) {
            return Err(unsupported("images and samplers other than subpass inputs"));
        }
        Err(invalid(format!("undefined id {w}")))
    }

    pub fn val(&mut self, fs: &FnState<'m>, w: Word) -> Result<FVal, CompileError> {
        match self.lookup(fs, w)? {
            Entry::Val(v) => Ok(v),
            Entry::Ptr(p) if self.phys_ptrs.contains_key(&w) => {
                Ok(FVal::V(self.physical_address(&p)?))
            }
            Entry::Ptr(_) => Err(invalid(format!(
                "id {w} is a pointer where a value is expected"
            ))),
        }
    }

    /// A scalar or vector operand.
    pub fn simple(&mut self, fs: &FnState<'m>, w: Word) -> Result<Value, CompileError> {
        match self.val(fs, w)? {
            FVal::V(v) => Ok(v),
            FVal::C(_) => Err(invalid(format!(
                "id {w} is a composite where a scalar or vector is expected"
            ))),
        }
    }

    pub fn ptr(&mut self, fs: &FnState<'m>, w: Word) -> Result<Ptr, CompileError> {
        match self.lookup(fs, w)? {
            Entry::Ptr(p) => Ok(p),
            Entry::Val(FVal::V(a)) if self.phys_ptrs.contains_key(&w) => {
                self.physical_ptr(self.phys_ptrs[&w], a)
            }
            Entry::Val(_) => Err(invalid(format!("id {w} is not a pointer"))),
        }
    }

    pub fn define(
        &mut self,
        fs: &mut FnState<'m>,
        w: Word,
        entry: Entry,
    ) -> Result<(), CompileError> {
        let spill = if fs.crossing.contains(&w) {
            let vals = entry.values();
            let mut vars = Vec::new();
            for v in vals {
                let var = self.sh.new_var(self.sh.ty(v));
                self.effect(ir::Op::StoreVar(var, v))?;
                vars.push(var);
            }
            Some(vars)
        } else {
            None
        };
        fs.ids.insert(
            w,
            Def {
                entry,
                instance: fs.instance,
                spill,
            },
        );
        Ok(())
    }

    /// Translates the function `f` in place (the entry point, or an inlined call).
    pub fn run_function(
        &mut self,
        f: &'m Function,
        args: Vec<Entry>,
        ret_ty: Option<Word>,
        entry_point: bool,
    ) -> Result<Option<FVal>, CompileError> {
        let fid = f
            .def
            .as_ref()
            .and_then(|d| d.result_id)
            .ok_or_else(|| invalid("function without an id"))?;
        if self.call_stack.contains(&fid) {
            return Err(invalid("recursive function call"));
        }
        if self.call_stack.len() > 64 {
            return Err(CompileError::Limit("call nesting deeper than 64".into()));
        }
        self.call_stack.push(fid);
        let mut fs = FnState {
            ids: HashMap::new(),
            crossing: HashSet::new(),
            blocks: HashMap::new(),
            phi_vars: HashMap::new(),
            instance: u32::MAX,
            loops: Vec::new(),
            stops: Vec::new(),
            ret: RetMode::Entry,
            current_block: 0,
        };
        analyse(f, &mut fs)?;
        self.make_phi_vars(f, &mut fs)?;
        if f.parameters.len() != args.len() {
            return Err(invalid("function call with the wrong number of arguments"));
        }
        for (p, a) in f.parameters.iter().zip(args) {
            let pid = result_id(p)?;
            // Parameters are visible in every block of the callee: carry them in Vars.
            fs.crossing.insert(pid);
            let saved = fs.instance;
            fs.instance = u32::MAX - 1;
            self.define(&mut fs, pid, a)?;
            fs.instance = saved;
        }
        let returns = f
            .blocks
            .iter()
            .filter(|b| {
                matches!(
                    b.instructions.last().map(|i| i.class.opcode),
                    Some(Op::Return | Op::ReturnValue)
                )
            })
            .count();
        // Switches become one-trip loops, so they count as loops here.
        let has_loops = f.blocks.iter().any(|b| {
            b.instructions
                .iter()
                .any(|i| matches!(i.class.opcode, Op::LoopMerge | Op::Switch))
        });
        let wrapped = !entry_point && (returns > 1 || has_loops);
        if !entry_point {
            let vars = match ret_ty {
                Some(t) => Some(self.vars_for(t)?),
                None => None,
            };
            let flag = if wrapped && has_loops {
                let v = self.sh.new_var(Type::BOOL);
                let f = self.konst(Type::BOOL, vec![0])?;
                self.effect(ir::Op::StoreVar(v, f))?;
                Some(v)
            } else {
                None
            };
            fs.ret = RetMode::Callee {
                vars,
                wrapped,
                flag,
            };
        }
        let first = f
            .blocks
            .first()
            .ok_or_else(|| invalid("function without blocks"))?;
        let start = first
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| invalid("block without a label"))?;
        if wrapped {
            let saved = std::mem::take(&mut self.cur);
            self.chain(&mut fs, start, false)?;
            let mut body = std::mem::replace(&mut self.cur, saved);
            body.push(Node::Break);
            self.cur.push(Node::Loop { body });
        } else {
            self.chain(&mut fs, start, false)?;
        }
        self.call_stack.pop();
        match &fs.ret {
            RetMode::Callee {
                vars: Some((tmpl, vars)),
                ..
            } => {
                let (tmpl, vars) = (tmpl.clone(), vars.clone());
                Ok(Some(self.load_vars(&tmpl, &vars)?))
            }
            _ => Ok(None),
        }
    }

    fn enter(&mut self) -> Result<(), CompileError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(CompileError::Limit("control flow nested too deeply".into()));
        }
        Ok(())
    }

    /// Translates a region into a new node list.
    fn arm(
        &mut self,
        fs: &mut FnState<'m>,
        from: Word,
        target: Word,
    ) -> Result<Vec<Node>, CompileError> {
        self.enter()?;
        let saved = std::mem::take(&mut self.cur);
        // Every arm starts in the branching block: the values defined there (a phi operand
        // on the edge from it, say) stay visible after an earlier arm moved on.
        let (instance, block) = (fs.instance, fs.current_block);
        let r = self.branch(fs, from, target);
        (fs.instance, fs.current_block) = (instance, block);
        let body = std::mem::replace(&mut self.cur, saved);
        self.depth -= 1;
        r?;
        Ok(body)
    }

    /// The innermost loop that is not a switch wrapper.
    fn real_loop<'a>(&self, fs: &'a FnState<'m>) -> Option<&'a LoopCtx> {
        fs.loops.iter().rev().find(|l| l.continue_flag.is_none())
    }

    /// Whether `t` continues the enclosing loop from inside a switch wrapper.
    fn is_switch_continue(&self, fs: &FnState<'m>, t: Word) -> bool {
        fs.loops.last().is_some_and(|l| l.continue_flag.is_some())
            && self
                .real_loop(fs)
                .is_some_and(|l| t == l.header || t == l.cont)
    }

    /// Whether `t` leaves the enclosing loop from inside a switch wrapper.
    fn is_switch_break(&self, fs: &FnState<'m>, t: Word) -> bool {
        fs.loops.last().is_some_and(|l| l.break_flag.is_some())
            && self.real_loop(fs).is_some_and(|l| t == l.merge)
    }

    /// Leaves a switch wrapper to continue or leave the enclosing loop (see `LoopCtx`).
    fn switch_continue(&mut self, fs: &mut FnState<'m>, t: Word) -> Result<bool, CompileError> {
        let (flag, which) = if self.is_switch_continue(fs, t) {
            (fs.loops.last().and_then(|l| l.continue_flag), 0)
        } else if self.is_switch_break(fs, t) {
            (fs.loops.last().and_then(|l| l.break_flag), 1)
        } else {
            (None, 0)
        };
        let Some(flag) = flag else {
            return Ok(false);
        };
        if let Some(l) = fs.loops.last_mut() {
            l.flags_set[which] = true;
        }
        let yes = self.konst(Type::BOOL, vec![1])?;
        self.effect(ir::Op::StoreVar(flag, yes))?;
        self.cur.push(Node::Break);
        Ok(true)
    }

    /// After a loop inside an inlined function: a `return` inside it left through a Break
    /// with the return flag set, so keep leaving.
    fn after_loop_return_check(&mut self, fs: &FnState<'m>) -> Result<(), CompileError> {
        if let RetMode::Callee {
            flag: Some(flag), ..
        } = fs.ret
        {
            let f = self.emit(Type::BOOL, ir::Op::LoadVar(flag))?;
            self.cur.push(Node::If {
                cond: f,
                then_body: vec![Node::Break],
                else_body: vec![],
            });
        }
        Ok(())
    }

    fn is_exit(&self, fs: &FnState<'m>, t: Word) -> bool {
        if self.is_switch_continue(fs, t) || self.is_switch_break(fs, t) {
            return true;
        }
        if let Some(l) = fs.loops.last() {
            if t == l.header || t == l.merge || t == l.cont {
                return true;
            }
        }
        self.top_stop(fs) == Some(t)
    }

    fn top_stop(&self, fs: &FnState<'m>) -> Option<Word> {
        let floor = fs.loops.last().map(|l| l.stops_len).unwrap_or(0);
        if fs.stops.len() > floor {
            fs.stops.last().copied()
        } else {
            None
        }
    }

    /// Takes the edge `from -> target`: stores phis, then emits what the target means here
    /// (a Break, a Continue, nothing at a merge, or the target's own code).
    fn branch(
        &mut self,
        fs: &mut FnState<'m>,
        from: Word,
        target: Word,
    ) -> Result<(), CompileError> {
        self.edge(fs, from, target)?;
        if self.switch_continue(fs, target)? {
            return Ok(());
        }
        if let Some(l) = fs.loops.last() {
            if target == l.header {
                self.cur.push(Node::Continue);
                return Ok(());
            }
            if target == l.merge {
                self.cur.push(Node::Break);
                return Ok(());
            }
        }
        if self.top_stop(fs) == Some(target) {
            return Ok(());
        }
        if fs.stops.contains(&target)
            || fs
                .loops
                .iter()
                .any(|l| l.merge == target || l.header == target)
        {
            return Err(unsupported(
                "branch out of a nested construct (multi-level break)",
            ));
        }
        self.enter()?;
        let r = self.chain(fs, target, false);
        self.depth -= 1;
        r
    }

    /// Stores the values `from` gives the phis of `to`.
    fn edge(&mut self, fs: &mut FnState<'m>, from: Word, to: Word) -> Result<(), CompileError> {
        let Some(block) = fs.blocks.get(&to).copied() else {
            return Err(invalid(format!("branch to undefined block {to}")));
        };
        let mut stores = Vec::new();
        for inst in block
            .instructions
            .iter()
            .take_while(|i| i.class.opcode == Op::Phi)
        {
            let rid = result_id(inst)?;
            let mut incoming = None;
            for k in (0..inst.operands.len()).step_by(2) {
                if id(inst, k + 1)? == from {
                    incoming = Some(id(inst, k)?);
                }
            }
            let incoming = incoming
                .ok_or_else(|| invalid(format!("phi {rid} has no value for block {from}")))?;
            let v = self.val(fs, incoming)?;
            stores.push((rid, v));
        }
        for (rid, v) in stores {
            let (_, vars) = fs
                .phi_vars
                .get(&rid)
                .cloned()
                .ok_or_else(|| invalid("phi without variables"))?;
            self.store_vars(&vars, &v)?;
        }
        Ok(())
    }

    /// Translates block `label` and the blocks that follow it in the same construct.
    pub fn chain(
        &mut self,
        fs: &mut FnState<'m>,
        start: Word,
        mut in_header: bool,
    ) -> Result<(), CompileError> {
        let mut label = start;
        loop {
            self.blocks_done += 1;
            if self.blocks_done > BLOCK_BUDGET {
                return Err(CompileError::Limit(
                    "control flow expands to too many blocks".into(),
                ));
            }
            let block = *fs
                .blocks
                .get(&label)
                .ok_or_else(|| invalid(format!("undefined block {label}")))?;
            let insts = &block.instructions;
            let Some(term) = insts.last() else {
                return Err(invalid("empty block"));
            };
            let merge_inst = insts.len().checked_sub(2).map(|i| &insts[i]);
            if !in_header {
                if let Some(m) = merge_inst.filter(|m| m.class.opcode == Op::LoopMerge) {
                    let merge = id(m, 0)?;
                    let cont = id(m, 1)?;
                    self.enter()?;
                    let saved = std::mem::take(&mut self.cur);
                    fs.loops.push(LoopCtx {
                        header: label,
                        merge,
                        cont,
                        stops_len: fs.stops.len(),
                        continue_flag: None,
                        break_flag: None,
                        flags_set: [false; 2],
                    });
                    let r = self.chain(fs, label, true);
                    fs.loops.pop();
                    let body = std::mem::replace(&mut self.cur, saved);
                    self.depth -= 1;
                    r?;
                    self.cur.push(Node::Loop { body });
                    self.after_loop_return_check(fs)?;
                    if self.cur_top_after_loop(fs, merge)? {
                        return Ok(());
                    }
                    label = merge;
                    continue;
                }
            }
            in_header = false;
            self.next_instance += 1;
            fs.instance = self.next_instance;
            fs.current_block = label;
            // Phis read their Vars at the top of the block.
            for inst in insts.iter().take_while(|i| i.class.opcode == Op::Phi) {
                let rid = result_id(inst)?;
                let (tmpl, vars) = fs
                    .phi_vars
                    .get(&rid)
                    .cloned()
                    .ok_or_else(|| invalid("phi without variables"))?;
                let v = self.load_vars(&tmpl, &vars)?;
                fs.ids.insert(
                    rid,
                    Def {
                        entry: Entry::Val(v),
                        instance: fs.instance,
                        spill: Some(vars),
                    },
                );
            }
            let body_end = if merge_inst
                .is_some_and(|m| matches!(m.class.opcode, Op::LoopMerge | Op::SelectionMerge))
            {
                insts.len() - 2
            } else {
                insts.len() - 1
            };
            for inst in &insts[..body_end] {
                if inst.class.opcode == Op::Phi {
                    continue;
                }
                self.instruction(fs, inst)?;
            }
            let sel_merge = merge_inst
                .filter(|m| m.class.opcode == Op::SelectionMerge)
                .map(|m| id(m, 0))
                .transpose()?;
            match term.class.opcode {
                Op::Branch => {
                    let t = id(term, 0)?;
                    self.edge(fs, label, t)?;
                    if self.is_exit(fs, t)
                        || fs.stops.contains(&t)
                        || fs.loops.iter().any(|l| l.merge == t)
                    {
                        // `branch` re-stores phis; they were stored by `edge` above, so use
                        // the exit logic without the edge.
                        return self.exit_to(fs, t);
                    }
                    label = t;
                }
                Op::BranchConditional => {
                    let c = id(term, 0)?;
                    let t = id(term, 1)?;
                    let f = id(term, 2)?;
                    let cond = self.simple(fs, c)?;
                    if self.sh.ty(cond) != Type::BOOL {
                        return Err(invalid("branch condition is not a bool"));
                    }
                    if let Some(m) = sel_merge {
                        fs.stops.push(m);
                        let a = self.arm(fs, label, t);
                        let b = a.and_then(|a| Ok((a, self.arm(fs, label, f)?)));
                        fs.stops.pop();
                        let (then_body, else_body) = b?;
                        self.cur.push(Node::If {
                            cond,
                            then_body,
                            else_body,
                        });
                        if self.exit_check(fs, m)? {
                            return Ok(());
                        }
                        label = m;
                        continue;
                    }
                    let (te, fe) = (self.is_exit(fs, t), self.is_exit(fs, f));
                    if te && fe || t == f {
                        let then_body = self.arm(fs, label, t)?;
                        let else_body = self.arm(fs, label, f)?;
                        self.cur.push(Node::If {
                            cond,
                            then_body,
                            else_body,
                        });
                        return Ok(());
                    }
                    if !te && !fe {
                        return Err(unsupported(
                            "conditional branch without a merge that leaves no construct",
                        ));
                    }
                    let (exit, other) = if te { (t, f) } else { (f, t) };
                    let exit_body = self.arm(fs, label, exit)?;
                    let terminal = matches!(
                        exit_body.last(),
                        Some(Node::Break | Node::Continue | Node::Return)
                    );
                    if terminal {
                        let (then_body, else_body) = if te {
                            (exit_body, vec![])
                        } else {
                            (vec![], exit_body)
                        };
                        self.cur.push(Node::If {
                            cond,
                            then_body,
                            else_body,
                        });
                        self.edge(fs, label, other)?;
                        label = other;
                        continue;
                    }
                    let other_body = self.arm(fs, label, other)?;
                    let (then_body, else_body) = if te {
                        (exit_body, other_body)
                    } else {
                        (other_body, exit_body)
                    };
                    self.cur.push(Node::If {
                        cond,
                        then_body,
                        else_body,
                    });
                    return Ok(());
                }
                Op::Switch => {
                    let m =
                        sel_merge.ok_or_else(|| invalid("OpSwitch without OpSelectionMerge"))?;
                    let mut sel = self.simple(fs, id(term, 0)?)?;
                    let mut sel_ty = self.sh.ty(sel);
                    // An 8- or 16-bit selector is compared zero-extended, with its literals
                    // (one word each) cut to its width.
                    let narrow = match sel_ty {
                        Type::I32 | Type::I64 => None,
                        t if t.is_scalar() && matches!(t.scalar, Scalar::I8 | Scalar::I16) => {
                            Some(t.scalar.bits())
                        }
                        _ => return Err(invalid("OpSwitch selector of a non-integer type")),
                    };
                    if narrow.is_some() {
                        sel = self.emit(Type::I32, ir::Op::Conv(ir::ConvOp::UToU, sel))?;
                        sel_ty = Type::I32;
                    }
                    let lit_mask = narrow.map_or(u64::MAX, |bits| (1u64 << bits) - 1);
                    let default = id(term, 1)?;
                    let mut groups: Vec<(Word, Vec<u64>)> = Vec::new();
                    let mut k = 2;
                    while k < term.operands.len() {
                        // The literals are as wide as the selector (SPIR-V's OpSwitch).
                        let lit = match (term.operands.get(k), sel_ty == Type::I64) {
                            (Some(Operand::LiteralBit32(v)), false) => *v as u64 & lit_mask,
                            (Some(Operand::LiteralBit64(v)), true) => *v,
                            _ => return Err(invalid("OpSwitch case literal")),
                        };
                        let target = id(term, k + 1)?;
                        match groups.iter_mut().find(|(t, _)| *t == target) {
                            Some((_, lits)) => lits.push(lit),
                            None => groups.push((target, vec![lit])),
                        }
                        k += 2;
                    }
                    groups.retain(|(t, _)| *t != default);
                    let flag = self.sh.new_var(Type::BOOL);
                    let f = self.konst(Type::BOOL, vec![0])?;
                    self.effect(ir::Op::StoreVar(flag, f))?;
                    let break_flag = self.sh.new_var(Type::BOOL);
                    self.effect(ir::Op::StoreVar(break_flag, f))?;
                    self.enter()?;
                    let saved = std::mem::take(&mut self.cur);
                    fs.loops.push(LoopCtx {
                        header: NO_BLOCK,
                        merge: m,
                        cont: NO_BLOCK,
                        stops_len: fs.stops.len(),
                        continue_flag: Some(flag),
                        break_flag: Some(break_flag),
                        flags_set: [false; 2],
                    });
                    let r = self.switch_nodes(fs, label, sel, &groups, default);
                    let set = fs.loops.pop().map_or([false; 2], |l| l.flags_set);
                    let mut body = std::mem::replace(&mut self.cur, saved);
                    self.depth -= 1;
                    body.extend(r?);
                    body.push(Node::Break);
                    self.cur.push(Node::Loop { body });
                    self.after_loop_return_check(fs)?;
                    let outer = self.real_loop(fs).map(|l| (l.cont, l.merge));
                    if let Some((cont, merge)) = outer {
                        for ((f, target), set) in
                            [(flag, cont), (break_flag, merge)].into_iter().zip(set)
                        {
                            if !set {
                                continue;
                            }
                            let c = self.emit(Type::BOOL, ir::Op::LoadVar(f))?;
                            self.enter()?;
                            let saved = std::mem::take(&mut self.cur);
                            let r = self.exit_to(fs, target);
                            let then_body = std::mem::replace(&mut self.cur, saved);
                            self.depth -= 1;
                            r?;
                            self.cur.push(Node::If {
                                cond: c,
                                then_body,
                                else_body: vec![],
                            });
                        }
                    }
                    if self.exit_check(fs, m)? {
                        return Ok(());
                    }
                    label = m;
                }
                Op::Return | Op::ReturnValue => {
                    let value = if term.class.opcode == Op::ReturnValue {
                        Some(self.val(fs, id(term, 0)?)?)
                    } else {
                        None
                    };
                    match &fs.ret {
                        // A geometry shader's outputs count only at OpEmitVertex.
                        RetMode::Entry if self.stage == ir::Stage::Geometry => {
                            self.cur.push(Node::Return)
                        }
                        RetMode::Entry => {
                            self.emit_outputs()?;
                            self.cur.push(Node::Return)
                        }
                        RetMode::Callee {
                            vars,
                            wrapped,
                            flag,
                        } => {
                            let (vars, wrapped, flag) = (vars.clone(), *wrapped, *flag);
                            if let (Some((_, vars)), Some(v)) = (vars, value) {
                                self.store_vars(&vars, &v)?;
                            }
                            if wrapped {
                                if !fs.loops.is_empty() {
                                    if let Some(flag) = flag {
                                        let t = self.konst(Type::BOOL, vec![1])?;
                                        self.effect(ir::Op::StoreVar(flag, t))?;
                                    }
                                }
                                self.cur.push(Node::Break);
                            }
                        }
                    }
                    return Ok(());
                }
                Op::Unreachable => return Ok(()),
                Op::Kill | Op::TerminateInvocation => {
                    if self.stage != ir::Stage::Fragment {
                        return Err(invalid("OpKill outside a fragment shader"));
                    }
                    // The invocation ends here and writes nothing.
                    self.effect(ir::Op::Discard)?;
                    self.cur.push(Node::Return);
                    return Ok(());
                }
                other => return Err(invalid(format!("block ends in {other:?}"))),
            }
        }
    }

    /// After a construct: whether its merge block continues this chain (false) or this chain
    /// ends because the merge is itself an exit of the enclosing construct (true, and the
    /// exit is emitted).
    fn exit_check(&mut self, fs: &mut FnState<'m>, m: Word) -> Result<bool, CompileError> {
        if self.is_exit(fs, m) {
            // The merge block is a loop's continue target or merge, or the enclosing stop.
            self.exit_to(fs, m)?;
            return Ok(true);
        }
        Ok(false)
    }

    fn cur_top_after_loop(
        &mut self,
        fs: &mut FnState<'m>,
        merge: Word,
    ) -> Result<bool, CompileError> {
        self.exit_check(fs, merge)
    }

    /// Emits what reaching `t` means when `t` leaves the current construct (phis stored).
    fn exit_to(&mut self, fs: &mut FnState<'m>, t: Word) -> Result<(), CompileError> {
        if self.switch_continue(fs, t)? {
            return Ok(());
        }
        if let Some(l) = fs.loops.last() {
            if t == l.header {
                self.cur.push(Node::Continue);
                return Ok(());
            }
            if t == l.merge {
                self.cur.push(Node::Break);
                return Ok(());
            }
            if t == l.cont {
                // The continue construct runs inline wherever it is reached.
                self.enter()?;
                let r = self.chain(fs, t, false);
                self.depth -= 1;
                return r;
            }
        }
        if self.top_stop(fs) == Some(t) {
            return Ok(());
        }
        Err(unsupported(
            "branch out of a nested construct (multi-level break)",
        ))
    }

    /// The cases of a switch inside its one-trip wrapper loop, as a flat sequence of
    /// `if (selector matches) { case }` and the default last: every case leaves the wrapper
    /// (a Break, Continue or Return), so at most one runs, and a chain of else-ifs would nest
    /// as deep as the switch has cases.
    fn switch_nodes(
        &mut self,
        fs: &mut FnState<'m>,
        from: Word,
        sel: Value,
        groups: &[(Word, Vec<u64>)],
        default: Word,
    ) -> Result<Vec<Node>, CompileError> {
        let sel_ty = self.sh.ty(sel);
        let mut out = Vec::with_capacity(groups.len() + 1);
        for (target, lits) in groups {
            let mut cond = None;
            for l in lits {
                let c = self.konst(sel_ty, vec![*l])?;
                let eq = self.emit(Type::BOOL, ir::Op::Cmp(ir::CmpOp::IEq, sel, c))?;
                cond = Some(match cond {
                    None => eq,
                    Some(p) => self.emit(Type::BOOL, ir::Op::Binary(ir::BinOp::Or, p, eq))?,
                });
            }
            let cond = cond.ok_or_else(|| invalid("empty switch case"))?;
            let mut then_body = self.arm(fs, from, *target)?;
            // A case that ends in OpUnreachable has no exit of its own.
            if !matches!(
                then_body.last(),
                Some(Node::Break | Node::Continue | Node::Return)
            ) {
                then_body.push(Node::Break);
            }
            out.push(Node::If {
                cond,
                then_body,
                else_body: vec![],
            });
        }
        out.extend(self.arm(fs, from, default)?);
        Ok(out)
    }

    pub fn result_ir_type(&self, inst: &Instruction) -> Result<Type, CompileError> {
        self.l.ir_type(result_type(inst)?)
    }
}

/// Finds the ids each block defines and the ones used in other blocks (which travel in Vars),
/// and makes Vars for phis.
fn analyse<'m>(f: &'m Function, fs: &mut FnState<'m>) -> Result<(), CompileError> {
    let mut def_block: HashMap<Word, Word> = HashMap::new();
    for b in &f.blocks {
        let label = b
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| invalid("block without a label"))?;
        if fs.blocks.insert(label, b).is_some() {
            return Err(invalid(format!("block {label} defined twice")));
        }
        for inst in &b.instructions {
            if let Some(r) = inst.result_id {
                def_block.insert(r, label);
            }
        }
    }
    for p in &f.parameters {
        if let Some(r) = p.result_id {
            def_block.insert(r, 0);
        }
    }
    for b in &f.blocks {
        let label = b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        for inst in &b.instructions {
            if inst.class.opcode == Op::Phi {
                for k in (0..inst.operands.len()).step_by(2) {
                    if let (Some(Operand::IdRef(v)), Some(Operand::IdRef(p))) =
                        (inst.operands.get(k), inst.operands.get(k + 1))
                    {
                        if def_block.get(v).is_some_and(|d| d != p) {
                            fs.crossing.insert(*v);
                        }
                    }
                }
                continue;
            }
            for o in &inst.operands {
                if let Operand::IdRef(v) = o {
                    if def_block.get(v).is_some_and(|d| *d != label) {
                        fs.crossing.insert(*v);
                    }
                }
            }
        }
    }
    Ok(())
}

impl<'m> Tr<'m> {
    /// Creates the phi Vars of a function instance (needs the translator for types).
    pub fn make_phi_vars(
        &mut self,
        f: &'m Function,
        fs: &mut FnState<'m>,
    ) -> Result<(), CompileError> {
        for b in &f.blocks {
            for inst in b
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
            {
                let ty = result_type(inst)?;
                // Physical pointers are addresses (values); others name places.
                if matches!(self.l.get(ty)?, SpvType::Pointer { .. }) && !self.l.is_simple(ty)? {
                    return Err(unsupported("phi of pointers"));
                }
                let pv = self.vars_for(ty)?;
                fs.phi_vars.insert(result_id(inst)?, pv);
            }
        }
        Ok(())
    }
}
