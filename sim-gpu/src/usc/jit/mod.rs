//! The USC's second executor: decoded AGX programs translated to host code with Cranelift.
//!
//! A program is cut into regions: straight runs of instructions the translator covers
//! ([`emit`]), each starting at a leader (the entry, a branch target, or the instruction after
//! one the interpreter must run) and ending at a branch, a `stop`, an uncovered instruction or
//! the next leader. A region is one host function over the whole SIMD group: its lanes run in
//! four chunks of eight as host vectors ([`chunk`]), exec-mask instructions included, and a
//! closing branch is decided on the group's exec mask after the last chunk. Derivatives (a
//! quad is one host vector), `iter` at pixel centres and `st_tile`/`ld_tile` in single-sample
//! tiles ([`tile`]; both reach the fragment state through [`Ctx`]) are covered too, as are
//! `get_sr` of the special registers that hold still while a group runs ([`SR_SLOTS`], from
//! rows the executor fills), a vertex group's `st_vary` ([`vary`]), and device loads from
//! an address every lane shares (the executor reads their words first,
//! [`Region::preloads`]). Everything else (other memory access, textures, other special
//! registers, other cross-lane operations) stays with the interpreter, which remains the
//! reference:
//! `AGX4_SIM_EXEC=interp` runs it alone, and the differential tests hold the two to identical
//! registers, exec masks, counts and tilebuffer bytes.
//!
//! Programs are translated once, the first time they run on this executor, and the code lives
//! as long as the [`Program`] does.

mod chunk;
mod daz;
mod emit;
#[cfg(test)]
mod tests;
mod tile;
mod vary;

use super::memops;
use super::program::{Program, NO_TARGET};
use chunk::{Carry, Chunk, UniformRead, CHUNK_LANES};
use cranelift_codegen::ir::{
    types::*, AbiParam, Block, BlockArg, Function, InstBuilder, MemFlagsData, StackSlot,
    StackSlotData, StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use hw::isa::{Instr, JumpCond, SpecialReg, SIMD_WIDTH};
use std::collections::BTreeMap;
use std::mem::offset_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Which executor runs USC programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    /// Every instruction through `SimdGroup::step_alu` and `memops::step_mem`.
    Interpreter,
    /// The interpreter until a program has issued [`HOT`] instructions, then translated
    /// regions where the translator covers the code and the interpreter elsewhere. Most
    /// programs of a test suite run a few thousand instructions once, far less time than
    /// translating them takes.
    Jit,
    /// Translated regions from a program's first instruction (the differential tests).
    JitEager,
}

/// SIMD-group instructions a program issues in the interpreter before it is translated:
/// a few milliseconds of interpretation, about what translating a program costs.
pub const HOT: u64 = 1 << 16;

impl Executor {
    /// `AGX4_SIM_EXEC`: `interp`, `jit` (the default) or `jit-eager`.
    pub fn from_env() -> Executor {
        static E: OnceLock<Executor> = OnceLock::new();
        *E.get_or_init(|| match std::env::var("AGX4_SIM_EXEC").as_deref() {
            Ok("interp") => Executor::Interpreter,
            Ok("jit-eager") => Executor::JitEager,
            _ => Executor::Jit,
        })
    }
}

/// The translation one thread of a launch runs with: none while the program is cold.
pub struct Tiered<'a> {
    program: &'a Program,
    executor: Executor,
    compiled: Option<&'a Compiled>,
}

impl<'a> Tiered<'a> {
    pub fn new(program: &'a Program, executor: Executor) -> Tiered<'a> {
        let hot = match executor {
            Executor::Interpreter => false,
            Executor::Jit => program.jit.interpreted.load(Ordering::Relaxed) >= HOT,
            Executor::JitEager => true,
        };
        Tiered {
            program,
            executor,
            compiled: if hot { compiled(program) } else { None },
        }
    }

    /// The translation to run the next workgroup with.
    #[inline]
    pub fn current(&self) -> Option<&'a Compiled> {
        self.compiled
    }

    /// Counts SIMD-group instructions the interpreter ran; translates once the program
    /// is hot.
    pub fn ran(&mut self, group_instructions: u64) {
        if self.executor != Executor::Jit || self.compiled.is_some() {
            return;
        }
        let before = self
            .program
            .jit
            .interpreted
            .fetch_add(group_instructions, Ordering::Relaxed);
        if before + group_instructions >= HOT {
            self.compiled = compiled(self.program);
        }
    }
}

/// What a region function reads and writes besides the register file.
#[repr(C)]
pub struct Ctx {
    pub regs: *mut u16,
    pub uniforms: *const u16,
    /// `0xffff` for every lane that exists.
    pub alive16: [u16; SIMD_WIDTH],
    /// The exec mask on entry and on return.
    pub exec: u32,
    /// Set to 1 when the region ended with `stop`.
    pub stopped: u32,
    /// Lane-instructions the region issued (the sum of its exec masks' populations).
    pub lane_instructions: u64,
    /// Lane steps left after the first pass; passes of a loop region take theirs from it.
    pub budget: u64,
    /// Times the region ran its instructions (more than 1 only for loop regions).
    pub passes: u64,
    /// A fragment launch's coefficient registers as rows of quads (`FragmentContext::
    /// plane_rows`), at least [`Region::planes`] of them, and its lanes' pixel centres (x of
    /// every lane, then y); null for regions without `iter`.
    pub planes: *const f64,
    pub centres: *const [f64; 2 * SIMD_WIDTH],
    /// A single-sample fragment launch's tilebuffer, each lane's record in it (a byte
    /// offset), and each lane's coverage; null for regions without tile accesses.
    pub tile: *mut u8,
    pub records: *const [u32; SIMD_WIDTH],
    pub coverage: *const [u8; SIMD_WIDTH],
    /// The group's special registers the region's `get_sr`s read, a row of 32 lanes per
    /// [`SR_SLOTS`] entry; null for regions without `get_sr`.
    pub specials: *const [u32; SIMD_WIDTH],
    /// The words of the region's uniform-address loads ([`Compiled::preloads`]), four per
    /// load in region order, read by the executor before the region runs; null for regions
    /// without such loads.
    pub preloaded: *const u32,
    /// A vertex group's UVS records, `uvs_slots` words per lane, and the lanes whose
    /// `st_vary.last` ran (the region ORs them in); null for regions without `st_vary`.
    pub uvs: *mut u32,
    pub uvs_slots: u32,
    pub finished: u32,
}

/// The special registers a translated `get_sr` reads, by row of [`Ctx::specials`]: those
/// that hold still while a group runs (its workgroup, sizes, ids, lane, and a fragment's
/// pixel, facing and rasterized coverage). Which of them the group's launch models is the
/// interpreter's (`SimdGroup::special`); a region reading one it does not is left to the
/// interpreter, which faults.
pub const SR_SLOTS: [SpecialReg; 17] = [
    SpecialReg::THREADGROUP_POSITION_IN_GRID_X,
    SpecialReg::THREADGROUP_POSITION_IN_GRID_Y,
    SpecialReg::THREADGROUP_POSITION_IN_GRID_Z,
    SpecialReg::THREADS_PER_THREADGROUP_X,
    SpecialReg::THREADS_PER_THREADGROUP_Y,
    SpecialReg::THREADS_PER_THREADGROUP_Z,
    SpecialReg::THREAD_POSITION_IN_THREADGROUP_X,
    SpecialReg::THREAD_POSITION_IN_THREADGROUP_Y,
    SpecialReg::THREAD_POSITION_IN_THREADGROUP_Z,
    SpecialReg::THREAD_INDEX_IN_THREADGROUP,
    SpecialReg::THREAD_INDEX_IN_SIMDGROUP,
    SpecialReg::SIMDGROUP_INDEX_IN_THREADGROUP,
    SpecialReg::BACKFACING,
    SpecialReg::THREAD_POSITION_IN_GRID_X,
    SpecialReg::THREAD_POSITION_IN_GRID_Y,
    SpecialReg::THREAD_POSITION_IN_GRID_Z,
    SpecialReg::INPUT_SAMPLE_MASK,
];

/// The row of [`Ctx::specials`] that holds `sr`.
pub fn sr_slot(sr: SpecialReg) -> Option<usize> {
    SR_SLOTS.iter().position(|&s| s == sr)
}

/// `fn(ctx) -> index of the next instruction`.
type RegionFn = unsafe extern "C" fn(*mut Ctx) -> u32;

/// One translated region.
#[derive(Clone, Copy)]
pub struct Region {
    entry: RegionFn,
    /// Instructions it issues (all of them, every time: regions are straight-line).
    pub len: u32,
    /// One past the highest register row it may write.
    pub rows: u16,
    /// One past the highest coefficient register its `iter`s read; 0 if it has none. A
    /// region with `iter`s runs only in a fragment launch with that many loaded; otherwise
    /// the interpreter runs its code, and faults as it always did.
    pub planes: u32,
    /// One past the highest byte of a tilebuffer sample its `st_tile`s and `ld_tile`s touch;
    /// 0 if it has none. Such a region runs only where none of them can fault: a
    /// single-sample tile whose samples hold that many bytes, every live lane inside it.
    pub tile_bytes: u32,
    /// Bit k set when a `get_sr` reads special register `SR_SLOTS[k]`.
    pub specials: u32,
    /// Its uniform-address loads ([`memops::uniform_load`]): `Compiled::preloads[range]`.
    /// The executor reads their words into [`Ctx::preloaded`] first, and where one of them
    /// faults leaves the region to the interpreter, which faults at that load as always.
    /// (No region writes device memory, and the address depends on uniforms alone, so
    /// reading early reads what the load would.)
    pub preloads: (u32, u32),
    /// One past the highest UVS slot its `st_vary`s write; 0 if it has none. Such a region
    /// runs only in a vertex launch whose records have that many slots; otherwise the
    /// interpreter runs its code and faults as it always did.
    pub vary_slots: u32,
    /// Whether its float arithmetic reads results not yet made canonical, and so must run
    /// with the host flushing float operands ([`daz`]).
    daz: bool,
}

impl Region {
    /// Runs the region.
    ///
    /// # Safety
    /// `ctx.regs` must point at a register file holding every row the program's instructions
    /// name (`Program::new` checked them against the file size), and `ctx.uniforms` at the
    /// full uniform file.
    pub unsafe fn run(&self, ctx: &mut Ctx) -> u32 {
        // SAFETY: the function was compiled for this signature and only touches the rows
        // and uniforms its instructions name, which the caller guarantees exist.
        unsafe {
            if self.daz {
                daz::call(self.entry, ctx)
            } else {
                (self.entry)(ctx)
            }
        }
    }
}

/// A program's translated regions, by the index of their first instruction.
pub struct Compiled {
    regions: Vec<Option<Region>>,
    /// Instruction indices of the regions' uniform-address loads, region by region.
    preloads: Vec<u32>,
    module: Option<JITModule>,
}

// SAFETY: after `finalize_definitions` the module's code is immutable and only ever called;
// the module itself is touched again only by `Drop`, which has exclusive access.
unsafe impl Send for Compiled {}
// SAFETY: as above: shared use is calling finished code.
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the regions (the only pointers into this memory) go with `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl Compiled {
    /// The region starting at instruction `pc`, if there is one.
    #[inline]
    pub fn region(&self, pc: usize) -> Option<&Region> {
        self.regions.get(pc).and_then(Option::as_ref)
    }

    /// The instruction indices of `r`'s uniform-address loads, in order.
    #[inline]
    pub fn preloads(&self, r: &Region) -> &[u32] {
        &self.preloads[r.preloads.0 as usize..r.preloads.1 as usize]
    }

    /// Instructions covered by regions (for reports and tests).
    pub fn covered(&self) -> usize {
        self.regions.iter().flatten().map(|r| r.len as usize).sum()
    }
}

fn isa() -> Option<&'static OwnedTargetIsa> {
    static ISA: OnceLock<Option<OwnedTargetIsa>> = OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        flags.set("is_pic", "false").ok()?;
        // The verifier checks the translator; debug builds (the tests) run it, release
        // builds skip its share of translation time.
        let verify = if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        };
        flags.set("enable_verifier", verify).ok()?;
        let isa = cranelift_native::builder().ok()?;
        isa.finish(settings::Flags::new(flags)).ok()
    })
    .as_ref()
}

/// Where a [`Program`] keeps its translation: made on first use, shared by clones made after
/// it, and never part of the program's identity.
#[derive(Default)]
pub struct JitSlot {
    code: OnceLock<Option<Arc<Compiled>>>,
    /// SIMD-group instructions the interpreter ran of the program (see [`Tiered`]).
    interpreted: AtomicU64,
}

impl Clone for JitSlot {
    fn clone(&self) -> JitSlot {
        let s = JitSlot::default();
        if let Some(c) = self.code.get() {
            let _ = s.code.set(c.clone());
        }
        s
    }
}

impl PartialEq for JitSlot {
    fn eq(&self, _: &JitSlot) -> bool {
        true
    }
}

impl std::fmt::Debug for JitSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match self.code.get() {
            None => "not translated",
            Some(None) => "not translatable on this host",
            Some(Some(_)) => "translated",
        };
        f.write_str(state)
    }
}

/// The translation of `prog`, made on first use; `None` when the host has no Cranelift
/// back end (then the interpreter runs everything).
pub fn compiled(prog: &Program) -> Option<&Compiled> {
    prog.jit
        .code
        .get_or_init(|| {
            // A translator bug must not take the simulated GPU down: the interpreter runs
            // whatever could not be translated.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compile(prog)))
                .ok()
                .flatten()
                .map(Arc::new)
        })
        .as_deref()
}

/// Whether the translator covers `i`: it emits it into a scratch function, which must then
/// pass Cranelift's verifier, so a form emitted wrongly stays with the interpreter instead
/// of failing the whole program's translation.
fn covers(isa: &OwnedTargetIsa, i: &Instr) -> bool {
    scratch(isa, true, |mut c| {
        emit::emit(&mut c, i).ok()?;
        let _ = c.finish();
        Some(())
    })
    .is_some()
}

/// Runs `body` on one chunk of a function made to be thrown away, and with `verify` checks
/// the function `body` left with Cranelift's verifier; `None` if `body` or the check fails.
fn scratch<R>(
    isa: &OwnedTargetIsa,
    verify: bool,
    body: impl FnOnce(Chunk) -> Option<R>,
) -> Option<R> {
    let mut func = Function::with_name_signature(UserFuncName::default(), signature(isa));
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let p = b.block_params(block)[0];
    let alive = b.ins().load(I16X8, MemFlagsData::new(), p, 0);
    let bits = b.ins().iconst(I32, 0xff);
    let r = body(Chunk::new(&mut b, p, p, alive, bits).with_fragment(p, 0))?;
    if verify {
        let ret = b.ins().iconst(I32, 0);
        b.ins().return_(&[ret]);
        b.finalize(isa.frontend_config());
        cranelift_codegen::verify_function(&func, isa.flags()).ok()?;
    }
    Some(r)
}

fn signature(isa: &OwnedTargetIsa) -> cranelift_codegen::ir::Signature {
    let mut sig = cranelift_codegen::ir::Signature::new(isa.default_call_conv());
    sig.params.push(AbiParam::new(isa.pointer_type()));
    sig.returns.push(AbiParam::new(I32));
    sig
}

/// The regions of `prog` as `(first, end)` instruction index ranges.
fn plan(prog: &Program, covered: &[bool]) -> Vec<(usize, usize)> {
    let n = prog.instrs.len();
    let mut leader = vec![false; n + 1];
    if n > 0 {
        leader[0] = true;
    }
    for (i, instr) in prog.instrs.iter().enumerate() {
        if matches!(instr, Instr::Jump(_)) {
            let t = prog.targets[i];
            if t != NO_TARGET {
                leader[t as usize] = true;
            }
        }
        if !covered[i] || matches!(instr, Instr::Jump(_) | Instr::Stop) {
            leader[i + 1] = true;
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if !leader[i] || !covered[i] {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < n && covered[end] {
            let ends = matches!(prog.instrs[end], Instr::Jump(_) | Instr::Stop);
            end += 1;
            if ends || leader[end] {
                break;
            }
        }
        out.push((i, end));
        i = end;
    }
    out
}

fn compile(prog: &Program) -> Option<Compiled> {
    let isa = isa()?;
    let covered: Vec<bool> = prog
        .instrs
        .iter()
        .enumerate()
        .map(|(i, instr)| {
            // A jump whose target is not an instruction faults in the interpreter.
            !(matches!(instr, Instr::Jump(_)) && prog.targets[i] == NO_TARGET) && covers(isa, instr)
        })
        .collect();
    let ranges = plan_without_looped_stores(prog, covered);
    let mut regions = vec![None; prog.instrs.len()];
    if ranges.is_empty() {
        return Some(Compiled {
            regions,
            preloads: Vec::new(),
            module: None,
        });
    }
    let builder = JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
    let mut module = JITModule::new(builder);
    let mut ctx = Context::new();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    for (k, &(first, end)) in ranges.iter().enumerate() {
        ctx.func = Function::with_name_signature(UserFuncName::user(0, k as u32), signature(isa));
        let span = Span { prog, first, end };
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        if span.loops() {
            build_loop(isa, &mut b, span);
        } else {
            build(&mut b, span);
        }
        b.finalize(isa.frontend_config());
        let id = module
            .declare_function(&format!("r{k}"), Linkage::Local, &ctx.func.signature)
            .ok()?;
        let debug = std::env::var_os("AGX4_SIM_JIT_DEBUG").is_some();
        ctx.set_disasm(debug);
        if let Err(e) = module.define_function(id, &mut ctx) {
            if debug {
                eprintln!("== region {k}: instructions {first}..{end} not translated: {e:?}");
            }
            return None;
        }
        if debug {
            if let Some(code) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
                eprintln!("== region {k}: instructions {first}..{end}\n{code}");
            }
        }
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module.finalize_definitions().ok()?;
    let mut preloads = Vec::new();
    for (&(first, end), id) in ranges.iter().zip(ids) {
        let ptr = module.get_finalized_function(id);
        // SAFETY: `build` made this function with `signature`: one pointer in, one I32 out,
        // in the host's default calling convention, which is `extern "C"`.
        let entry: RegionFn = unsafe { std::mem::transmute::<*const u8, RegionFn>(ptr) };
        let rows = prog.instrs[first..end]
            .iter()
            .map(rows_written)
            .max()
            .unwrap_or(0);
        let planes = prog.instrs[first..end]
            .iter()
            .map(planes_read)
            .max()
            .unwrap_or(0);
        let tile_bytes = prog.instrs[first..end]
            .iter()
            .map(|i| match i {
                Instr::TileMem(x) => tile::bytes_touched(x),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        let specials = prog.instrs[first..end]
            .iter()
            .filter_map(|i| match i {
                Instr::GetSr(x) => sr_slot(x.sr),
                _ => None,
            })
            .fold(0, |m, k| m | 1 << k);
        let vary_slots = prog.instrs[first..end]
            .iter()
            .filter_map(|i| match i {
                Instr::StVary(x) => vary::slot(x).map(|s| s + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let from = preloads.len() as u32;
        preloads.extend((first..end).filter(|&i| memops::uniform_load(&prog.instrs[i]).is_some()));
        let preloads_of = (from, preloads.len() as u32);
        regions[first] = Some(Region {
            entry,
            len: (end - first) as u32,
            rows,
            planes,
            tile_bytes,
            specials,
            preloads: preloads_of,
            vary_slots,
            daz: daz::lazy_floats(),
        });
    }
    Some(Compiled {
        regions,
        preloads: preloads.into_iter().map(|i| i as u32).collect(),
        module: Some(module),
    })
}

/// The regions of `prog`, with the tile stores and `st_vary`s of loop regions left to the
/// interpreter: a loop pass may run twice from the same inputs ([`ChunkPasses`]), which a
/// store must not.
/// Their uniform-address loads are left to it too: a loop emits its body more than once,
/// which the numbering of preloaded words ([`Chunk::preloads`]) does not allow for.
fn plan_without_looped_stores(prog: &Program, mut covered: Vec<bool>) -> Vec<(usize, usize)> {
    loop {
        let ranges = plan(prog, &covered);
        let mut changed = false;
        for &(first, end) in &ranges {
            if !(Span { prog, first, end }).loops() {
                continue;
            }
            for (i, instr) in prog.instrs.iter().enumerate().take(end).skip(first) {
                if matches!(instr, Instr::TileMem(x) if x.store)
                    || matches!(instr, Instr::StVary(_))
                    || memops::uniform_load(instr).is_some()
                {
                    covered[i] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return ranges;
        }
    }
}

/// One past the highest coefficient register an instruction reads.
fn planes_read(i: &Instr) -> u32 {
    match i {
        Instr::Iter(x) => {
            let w = x.perspective_w.map_or(0, |w| u32::from(w) + 1);
            w.max(u32::from(x.cf) + u32::from(x.channels))
        }
        _ => 0,
    }
}

/// One past the highest row an instruction the translator covers may write.
fn rows_written(i: &Instr) -> u16 {
    use hw::isa::Size;
    if let Instr::Iter(x) = i {
        return x.dst.half + 2 * u16::from(x.channels);
    }
    if let Some(x) = memops::uniform_load(i) {
        return x.reg.half + 2 * x.mask.count_ones() as u16;
    }
    if let Instr::TileMem(x) = i {
        let n = x.mask.count_ones() as u16;
        return match (x.store, x.reg.size) {
            (true, _) => 0,
            (false, Size::S16) => x.reg.half + n,
            (false, _) => x.reg.half + 2 * n,
        };
    }
    let dst = match i {
        Instr::MovImm(x) => Some(x.dst.reg),
        Instr::IAdd(x) => Some(x.dst.reg),
        Instr::IMAdd(x) => Some(x.dst.reg),
        Instr::Bitop(x) => Some(x.dst.reg),
        Instr::Shift(x) => Some(x.dst.reg),
        Instr::Convert(x) => Some(x.dst.reg),
        Instr::FArith(x) => Some(x.dst.reg),
        Instr::FUnary(x) => Some(x.dst.reg),
        Instr::CmpSel(x) => Some(x.dst.reg),
        Instr::ExecCmp(_) | Instr::PopExec(_) => return 1,
        _ => None,
    };
    dst.map_or(0, |r| {
        r.half
            + if r.size == Size::S16 {
                1
            } else {
                r.size.halves()
            }
    })
}

/// What every region function starts with: the context's fields and, per chunk, the
/// address of its lane 0 in the register file and its alive lanes.
struct Entry {
    ctx: Value,
    uni: Value,
    exec: Value,
    budget: Value,
    chunk_regs: Vec<Value>,
    alive: Vec<Value>,
}

fn entry(b: &mut FunctionBuilder) -> Entry {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let ctx = b.block_params(entry)[0];
    let f = MemFlagsData::trusted();
    let regs = b.ins().load(I64, f, ctx, offset_of!(Ctx, regs) as i32);
    let uni = b.ins().load(I64, f, ctx, offset_of!(Ctx, uniforms) as i32);
    let exec = b.ins().load(I32, f, ctx, offset_of!(Ctx, exec) as i32);
    let budget = b.ins().load(I64, f, ctx, offset_of!(Ctx, budget) as i32);
    let mut chunk_regs = Vec::with_capacity(CHUNKS);
    let mut alive = Vec::with_capacity(CHUNKS);
    for k in 0..CHUNKS {
        let lane0 = (k * CHUNK_LANES) as i64;
        chunk_regs.push(b.ins().iadd_imm_s(regs, lane0 * 2));
        alive.push(b.ins().load(
            I16X8,
            MemFlagsData::new().with_notrap(),
            ctx,
            (offset_of!(Ctx, alive16) as i64 + lane0 * 2) as i32,
        ));
    }
    Entry {
        ctx,
        uni,
        exec,
        budget,
        chunk_regs,
        alive,
    }
}

/// Chunks of a SIMD group.
const CHUNKS: usize = SIMD_WIDTH / CHUNK_LANES;

/// A region to translate: instructions `first..end` of `prog`.
#[derive(Clone, Copy)]
struct Span<'a> {
    prog: &'a Program,
    first: usize,
    end: usize,
}

impl Span<'_> {
    /// Whether the region's closing branch (`jump_any`) goes back to its first instruction.
    fn loops(&self) -> bool {
        let at = self.end - 1;
        matches!(self.prog.instrs[at], Instr::Jump(j) if j.cond == JumpCond::Any)
            && self.prog.targets[at] as usize == self.first
    }
}

/// Emits the straight region `span` into `b`.
fn build(b: &mut FunctionBuilder, span: Span) {
    use cranelift_codegen::ir::condcodes::IntCC;
    let Span { prog, first, end } = span;
    let last = &prog.instrs[end - 1];
    let e = entry(b);
    let mut count = b.ins().iconst(I64, 0);
    let mut new_exec = b.ins().iconst(I32, 0);
    let mut uniforms = BTreeMap::new();
    // Without exec-mask instructions (which move even inactive lanes' nesting counters) a
    // chunk with no active lane changes nothing: it is skipped, as most chunks of a small
    // primitive's fragment group are. Its uniforms are then its own.
    let skip_idle = !prog.instrs[first..end]
        .iter()
        .any(|i| matches!(i, Instr::ExecCmp(_) | Instr::PopExec(_)));
    for k in 0..CHUNKS {
        let lane0 = (k * CHUNK_LANES) as i64;
        let bits = b.ins().ushr_imm_s(e.exec, lane0);
        let bits = b.ins().band_imm_s(bits, 0xff);
        let after = skip_idle.then(|| {
            let body = b.create_block();
            let after = b.create_block();
            b.append_block_param(after, I64);
            b.append_block_param(after, I32);
            b.ins()
                .brif(bits, body, &[], after, &[count.into(), new_exec.into()]);
            b.switch_to_block(body);
            b.seal_block(body);
            after
        });
        let mut c = Chunk::new(b, e.chunk_regs[k], e.uni, e.alive[k], bits)
            .with_fragment(e.ctx, k * CHUNK_LANES);
        c.give_uniforms(if skip_idle { BTreeMap::new() } else { uniforms });
        for i in &prog.instrs[first..end] {
            // `compile` planned the region from instructions `emit` accepted.
            let _ = emit::emit(&mut c, i);
        }
        uniforms = c.take_uniforms();
        let (n, bits) = c.finish();
        count = b.ins().iadd(count, n);
        let bits = b.ins().ishl_imm_s(bits, lane0);
        new_exec = b.ins().bor(new_exec, bits);
        if let Some(after) = after {
            b.ins().jump(after, &[count.into(), new_exec.into()]);
            b.switch_to_block(after);
            b.seal_block(after);
            (count, new_exec) = (b.block_params(after)[0], b.block_params(after)[1]);
        }
    }
    let next = b.ins().iconst(I32, end as i64);
    let ret = match last {
        Instr::Jump(j) => {
            let target = b.ins().iconst(I32, i64::from(prog.targets[end - 1]));
            let cc = match j.cond {
                JumpCond::Any => IntCC::NotEqual,
                JumpCond::None => IntCC::Equal,
            };
            let taken = b.ins().icmp_imm_s(cc, new_exec, 0);
            b.ins().select(taken, target, next)
        }
        Instr::Stop => {
            let stop = b.ins().iconst(I32, 1);
            let f = MemFlagsData::trusted();
            b.ins()
                .store(f, stop, e.ctx, offset_of!(Ctx, stopped) as i32);
            next
        }
        _ => next,
    };
    let passes = b.ins().iconst(I64, 1);
    finish_region(b, e.ctx, &[ret, new_exec, count, e.budget, passes]);
}

/// Emits a region whose closing branch (`jump_any`) goes back to its own first instruction:
/// a loop body, which loops inside the function while the branch is taken and the budget
/// covers another pass, so a loop costs one call instead of one per iteration.
///
/// Each chunk runs its own passes with the registers the body touches in host registers
/// ([`Carry`]), meeting the register file only before and after. Lanes of different chunks
/// meet only in the closing branch, which loops while any lane of the group is active: the
/// group runs P passes, P the first pass after which no chunk has an active lane (or the
/// last the budget covers). Chunks find P together: in each round every chunk runs on until
/// it has run at least the current P passes and has no active lane (or reaches the budget's
/// last pass), and P becomes the most passes any chunk ran; once all ran the same number,
/// that is the first pass after which all are inactive. A chunk's extra passes with no
/// active lane still run its exec-mask instructions, which move its lanes' nesting counters
/// as the group's passes would. Passes in which all of a chunk's lanes stay active run
/// without exec masks ([`ChunkPasses`]).
///
/// The chunks take turns in one copy of the passes, their register rows and alive lanes
/// found from the chunk number at run time, unless the body reads fragment state, which
/// a chunk reaches by its first lane as a constant: then each chunk has its own copy.
/// Translation time grows with the code, and a loop region's passes are most of it.
fn build_loop(isa: &OwnedTargetIsa, b: &mut FunctionBuilder, span: Span) {
    use cranelift_codegen::ir::condcodes::IntCC;
    let Span { first, end, .. } = span;
    let steps = ((end - first) * SIMD_WIDTH) as i64;
    let (carries, reads) = loop_plan(isa, span);
    let e = entry(b);
    // Loaded and splat once, before the loop, into a stack slot the passes read with one
    // instruction each. (Kept as values, Cranelift would place the pure load and splat where
    // they are used, inside the loop, and redo them every pass.)
    let splats = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        16 * reads.len() as u32,
        4,
    ));
    let mut spilled = BTreeMap::new();
    for (j, &u) in reads.iter().enumerate() {
        let v = u.load(b, e.uni);
        let at = 16 * j as i32;
        b.ins().stack_store(I64, v, splats, at);
        spilled.insert(u, (splats, at));
    }
    // The first pass is paid for; pass j + 1 runs while the budget left covers it.
    let steps_v = b.ins().iconst(I64, steps);
    let covered = b.ins().udiv(e.budget, steps_v);
    let pmax = b.ins().iadd_imm_s(covered, 1);
    let zero = b.ins().iconst(I64, 0);
    let one = b.ins().iconst(I64, 1);
    let chunk = ChunkLoop {
        carries: &carries,
        spilled: &spilled,
        span,
        uni: e.uni,
        pmax,
    };

    // Each chunk's pass number and exec bits, between rounds: pass numbers at 8 k, bits at
    // 8 CHUNKS + 4 k.
    let state = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        12 * CHUNKS as u32,
        3,
    ));
    let bits_at = |k: usize| (8 * CHUNKS + 4 * k) as i32;
    for k in 0..CHUNKS {
        let bits = b.ins().ushr_imm_s(e.exec, (k * CHUNK_LANES) as i64);
        let bits = b.ins().band_imm_s(bits, 0xff);
        b.ins().stack_store(I64, zero, state, 8 * k as i32);
        b.ins().stack_store(I64, bits, state, bits_at(k));
    }
    // round(P, count)
    let (round, [p, mut count]) = enter_pair_block(b, [one, zero]);
    if needs_fragment(isa, span) {
        // One copy of the passes per chunk: each reads the fragment state of its own lanes.
        for k in 0..CHUNKS {
            let pos0 = b.ins().stack_load(I64, I64, state, 8 * k as i32);
            let bits0 = b.ins().stack_load(I64, I32, state, bits_at(k));
            let fragment = Some((e.ctx, k * CHUNK_LANES));
            let (pos, bits, lanes) =
                chunk.emit(b, [e.chunk_regs[k], e.alive[k]], fragment, p, [pos0, bits0]);
            b.ins().stack_store(I64, pos, state, 8 * k as i32);
            b.ins().stack_store(I64, bits, state, bits_at(k));
            count = b.ins().iadd(count, lanes);
        }
    } else {
        // One copy of the passes, which the chunks run in turn: a quarter of the code to
        // translate.
        let (each, [k, count_k]) = enter_pair_block(b, [zero, count]);
        let slots = b.ins().stack_addr(I64, state, 0);
        let at_pos = b.ins().ishl_imm_s(k, 3);
        let at_pos = b.ins().iadd(slots, at_pos);
        let at_bits = b.ins().ishl_imm_s(k, 2);
        let at_bits = b.ins().iadd(slots, at_bits);
        let f = MemFlagsData::trusted();
        let pos0 = b.ins().load(I64, f, at_pos, 0);
        let bits0 = b.ins().load(I32, f, at_bits, bits_at(0));
        // Lane 0 of chunk k is 8 k lanes (2 bytes each) into a row, and into `alive16`.
        let lane_bytes = b.ins().ishl_imm_s(k, 4);
        let regs = b.ins().iadd(e.chunk_regs[0], lane_bytes);
        let alive_at = b.ins().iadd(e.ctx, lane_bytes);
        let alive = b.ins().load(
            I16X8,
            MemFlagsData::new().with_notrap(),
            alive_at,
            offset_of!(Ctx, alive16) as i32,
        );
        let (pos, bits, lanes) = chunk.emit(b, [regs, alive], None, p, [pos0, bits0]);
        b.ins().store(f, pos, at_pos, 0);
        b.ins().store(f, bits, at_bits, bits_at(0));
        let count_next = b.ins().iadd(count_k, lanes);
        let k_next = b.ins().iadd_imm_s(k, 1);
        let more = b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, k_next, CHUNKS as i64);
        let after = b.create_block();
        b.append_block_param(after, I64);
        b.ins().brif(
            more,
            each,
            &[k_next.into(), count_next.into()],
            after,
            &[count_next.into()],
        );
        b.seal_block(each);
        b.switch_to_block(after);
        b.seal_block(after);
        count = b.block_params(after)[0];
    }
    let after: Vec<(Value, Value)> = (0..CHUNKS)
        .map(|k| {
            (
                b.ins().stack_load(I64, I64, state, 8 * k as i32),
                b.ins().stack_load(I64, I32, state, bits_at(k)),
            )
        })
        .collect();
    let mut most = after[0].0;
    for &(pos, _) in &after[1..] {
        most = b.ins().umax(most, pos);
    }
    let mut same = b.ins().iconst(I8, 1);
    for &(pos, _) in &after {
        let eq = b.ins().icmp(IntCC::Equal, pos, most);
        same = b.ins().band(same, eq);
    }
    let exit = b.create_block();
    b.ins()
        .brif(same, exit, &[], round, &[most.into(), count.into()]);
    b.seal_block(round);

    b.switch_to_block(exit);
    b.seal_block(exit);
    let mut new_exec = b.ins().iconst(I32, 0);
    for (k, &(_, bits)) in after.iter().enumerate() {
        let bits = b.ins().ishl_imm_s(bits, (k * CHUNK_LANES) as i64);
        new_exec = b.ins().bor(new_exec, bits);
    }
    let extra = b.ins().iadd_imm_s(most, -1);
    let spent = b.ins().imul_imm_s(extra, steps);
    let budget = b.ins().isub(e.budget, spent);
    let taken = b.ins().icmp_imm_s(IntCC::NotEqual, new_exec, 0);
    let target = b.ins().iconst(I32, first as i64);
    let next = b.ins().iconst(I32, end as i64);
    let ret = b.ins().select(taken, target, next);
    finish_region(b, e.ctx, &[ret, new_exec, count, budget, most]);
}

/// A new block with two I64 parameters, jumped to from the current block with `args` and
/// switched to: the head of one of `build_loop`'s counted loops. The caller seals it once
/// its back edges are in.
fn enter_pair_block(b: &mut FunctionBuilder, args: [Value; 2]) -> (Block, [Value; 2]) {
    let block = b.create_block();
    b.append_block_param(block, I64);
    b.append_block_param(block, I64);
    b.ins().jump(block, &[args[0].into(), args[1].into()]);
    b.switch_to_block(block);
    let p = b.block_params(block);
    (block, [p[0], p[1]])
}

/// Whether a loop body reads the fragment state through [`Ctx`] (special registers, `iter`),
/// which a chunk reaches by its first lane, known when it is translated.
fn needs_fragment(isa: &OwnedTargetIsa, span: Span) -> bool {
    let body = &span.prog.instrs[span.first..span.end];
    scratch(isa, false, |mut c| {
        c.fragment = None;
        body.iter()
            .all(|i| emit::emit(&mut c, i).is_ok())
            .then_some(())
    })
    .is_none()
}

/// What every chunk's passes of a loop region share.
struct ChunkLoop<'s> {
    carries: &'s [Carry],
    spilled: &'s BTreeMap<UniformRead, (StackSlot, i32)>,
    span: Span<'s>,
    uni: Value,
    /// One past the last pass the budget covers.
    pmax: Value,
}

impl ChunkLoop<'_> {
    /// Emits one chunk's passes, from its pass number and exec bits `state` (I64, I32)
    /// until it has run at least `p` passes and has no active lane, or the budget's last
    /// pass: the chunk's lane 0 in the register file and its alive lanes are `chunk`. The
    /// carried registers go back to the file; returns the pass number, exec bits and lanes
    /// counted, in the block the builder is left in.
    fn emit(
        &self,
        b: &mut FunctionBuilder,
        chunk: [Value; 2],
        fragment: Option<(Value, usize)>,
        p: Value,
        state: [Value; 2],
    ) -> (Value, Value, Value) {
        use cranelift_codegen::ir::condcodes::IntCC;
        let [regs, alive] = chunk;
        let zero = b.ins().iconst(I64, 0);
        // head(pos, bits, lanes counted, carried values)
        let head = b.create_block();
        b.append_block_param(head, I64);
        b.append_block_param(head, I32);
        b.append_block_param(head, I64);
        let mut args: Vec<BlockArg> = vec![state[0].into(), state[1].into(), zero.into()];
        for c in self.carries {
            for v in c.load(b, regs) {
                let t = b.func.dfg.value_type(v);
                b.append_block_param(head, t);
                args.push(v.into());
            }
        }
        b.ins().jump(head, &args);
        b.switch_to_block(head);
        let hp = b.block_params(head).to_vec();
        let (pos, bits, lanes) = (hp[0], hp[1], hp[2]);
        let carried = &hp[3..];
        let short = b.ins().icmp(IntCC::UnsignedLessThan, pos, p);
        let active = b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0);
        let room = b.ins().icmp(IntCC::UnsignedLessThan, pos, self.pmax);
        let go_on = b.ins().band(active, room);
        let more = b.ins().bor(short, go_on);
        let body = b.create_block();
        let done = b.create_block();
        b.ins().brif(more, body, &[], done, &[]);

        b.switch_to_block(body);
        b.seal_block(body);
        let passes = ChunkPasses {
            span: self.span,
            carries: self.carries,
            spilled: self.spilled,
            regs,
            uni: self.uni,
            fragment,
            head,
            pmax: self.pmax,
        };
        passes.emit(b, [pos, bits, lanes], carried, alive);
        b.seal_block(head);

        b.switch_to_block(done);
        b.seal_block(done);
        for (c, v) in self.carries.iter().zip(carried.chunks(2)) {
            c.store(b, regs, [v[0], v[1]]);
        }
        (pos, bits, lanes)
    }
}

/// The passes of a loop region's body in one chunk, from its loop head back to it.
///
/// A pass with every lane of the chunk active and its counter zero runs as a full chunk
/// ([`Chunk::new_full`]), which leaves for the general pass with the same inputs if an
/// exec-mask instruction would deactivate a lane. After a full pass that ends with the
/// counter known zero, further full passes run in a loop of their own: no exec bits or
/// counters to carry, and the registers the body writes as flushed floats read without
/// being flushed again.
struct ChunkPasses<'s> {
    span: Span<'s>,
    carries: &'s [Carry],
    spilled: &'s BTreeMap<UniformRead, (StackSlot, i32)>,
    /// The chunk's lane 0 in the register file, and the uniform file.
    regs: Value,
    uni: Value,
    /// The region context and the chunk's first lane ([`Chunk::with_fragment`]), for a body
    /// that reads fragment state.
    fragment: Option<(Value, usize)>,
    head: Block,
    /// One past the last pass the budget covers.
    pmax: Value,
}

/// What one pass left: its lane-instructions, exec bits, carried values (two per carry),
/// which carries it left as flushed floats, and whether it left `r0l` known zero.
struct PassOut {
    n: Value,
    bits: Value,
    values: Vec<Value>,
    flushed: Vec<bool>,
    r0l_zero: bool,
}

impl ChunkPasses<'_> {
    /// Emits the passes, starting in the current block with the head's pass number, exec
    /// bits and lanes counted (`state`) and carried values.
    fn emit(&self, b: &mut FunctionBuilder, state: [Value; 3], carried: &[Value], alive: Value) {
        use cranelift_codegen::ir::condcodes::IntCC;
        let [pos, bits, lanes] = state;
        let general = b.create_block();
        for v in state.iter().chain(carried) {
            let t = b.func.dfg.value_type(*v);
            b.append_block_param(general, t);
        }
        let args = |state: [Value; 3], values: &[Value]| -> Vec<BlockArg> {
            state.iter().chain(values).map(|&v| v.into()).collect()
        };
        let r0l = self.carries.iter().position(|&c| c == Carry::Rows(0));
        let all_active = b.ins().icmp_imm_s(IntCC::Equal, bits, 0xff);
        let counters_zero = match r0l {
            Some(j) => {
                let z = zero_row(b);
                let eq = b.ins().icmp(IntCC::Equal, carried[2 * j], z);
                b.ins().vall_true(eq)
            }
            None => b.ins().iconst(I8, 1),
        };
        let go_full = b.ins().band(all_active, counters_zero);
        let full = b.create_block();
        b.ins()
            .brif(go_full, full, &[], general, &args(state, carried));

        b.switch_to_block(full);
        b.seal_block(full);
        let c = Chunk::new_full(b, self.regs, self.uni, general, args(state, carried))
            .with_fragment_of(self.fragment);
        let out = self.pass(c, carried, &[]);
        let next = [
            b.ins().iadd_imm_s(pos, 1),
            out.bits,
            b.ins().iadd(lanes, out.n),
        ];
        if out.r0l_zero || r0l.is_none() {
            self.full_loop(b, general, next, &out, r0l);
        } else {
            b.ins().jump(self.head, &args(next, &out.values));
        }

        b.switch_to_block(general);
        b.seal_block(general);
        let gp = b.block_params(general).to_vec();
        let c = Chunk::new(b, self.regs, self.uni, alive, gp[1]).with_fragment_of(self.fragment);
        let out = self.pass(c, &gp[3..], &[]);
        let next = [
            b.ins().iadd_imm_s(gp[0], 1),
            out.bits,
            b.ins().iadd(gp[2], out.n),
        ];
        b.ins().jump(self.head, &args(next, &out.values));
    }

    /// Full passes in a loop of their own after the first (`first`, which ended with `r0l`
    /// zero if the body has exec-mask instructions), while the budget covers them; back to
    /// the head when it does not, to the general pass when a lane would leave.
    fn full_loop(
        &self,
        b: &mut FunctionBuilder,
        general: Block,
        next: [Value; 3],
        first: &PassOut,
        r0l: Option<usize>,
    ) {
        use cranelift_codegen::ir::condcodes::IntCC;
        // The loop carries the pass number, the lanes counted and the values, without the
        // exec bits (all set) or `r0l` (zero).
        let without_r0l = |values: &[Value]| -> Vec<Value> {
            let skip = r0l.map(|j| 2 * j);
            (0..values.len())
                .filter(|&i| Some(i) != skip)
                .map(|i| values[i])
                .collect()
        };
        let with_r0l = |b: &mut FunctionBuilder, values: &[Value]| -> Vec<Value> {
            let mut v = values.to_vec();
            if let Some(j) = r0l {
                v.insert(2 * j, zero_row(b));
            }
            v
        };
        let inner = b.create_block();
        b.append_block_param(inner, I64);
        b.append_block_param(inner, I64);
        let kept = without_r0l(&first.values);
        for &v in &kept {
            let t = b.func.dfg.value_type(v);
            b.append_block_param(inner, t);
        }
        let mut entry: Vec<BlockArg> = vec![next[0].into(), next[2].into()];
        entry.extend(through_memory(b, &kept).into_iter().map(BlockArg::from));
        b.ins().jump(inner, &entry);

        b.switch_to_block(inner);
        let ip = b.block_params(inner).to_vec();
        let (pos, lanes) = (ip[0], ip[1]);
        let body = b.create_block();
        let exit = b.create_block();
        let room = b.ins().icmp(IntCC::UnsignedLessThan, pos, self.pmax);
        b.ins().brif(room, body, &[], exit, &[]);

        // The inputs of the pass the loop is at, as the head and the general pass take them.
        let inputs = |b: &mut FunctionBuilder| -> (Vec<Value>, Vec<BlockArg>) {
            let all = b.ins().iconst(I32, 0xff);
            let values = with_r0l(b, &ip[2..]);
            let mut args: Vec<BlockArg> = vec![pos.into(), all.into(), lanes.into()];
            args.extend(values.iter().map(|&v| BlockArg::from(v)));
            (values, args)
        };
        // Where the loop leaves, its values go through memory too.
        let leaving = |b: &mut FunctionBuilder| -> Vec<BlockArg> {
            let (values, _) = inputs(b);
            let all = b.ins().iconst(I32, 0xff);
            let mut args: Vec<BlockArg> = vec![pos.into(), all.into(), lanes.into()];
            args.extend(through_memory(b, &values).into_iter().map(BlockArg::from));
            args
        };

        b.switch_to_block(exit);
        b.seal_block(exit);
        let back = leaving(b);
        b.ins().jump(self.head, &back);

        b.switch_to_block(body);
        b.seal_block(body);
        let (values, _) = inputs(b);
        // A pass that leaves makes its inputs there, so the passes that stay do not.
        let bail = b.create_block();
        let c = Chunk::new_full(b, self.regs, self.uni, bail, Vec::new())
            .with_fragment_of(self.fragment);
        let out = self.pass(c, &values, &first.flushed);
        let pos = b.ins().iadd_imm_s(pos, 1);
        let lanes = b.ins().iadd(lanes, out.n);
        let mut again: Vec<BlockArg> = vec![pos.into(), lanes.into()];
        again.extend(without_r0l(&out.values).into_iter().map(BlockArg::from));
        b.ins().jump(inner, &again);
        b.seal_block(inner);

        b.switch_to_block(bail);
        b.seal_block(bail);
        let args = leaving(b);
        b.ins().jump(general, &args);
    }

    /// One pass of the body in `c`, from `carried`; `flushed` marks carries whose values
    /// hold no denormal in any lane.
    fn pass(&self, mut c: Chunk, carried: &[Value], flushed: &[bool]) -> PassOut {
        c.seed(self.carries, carried);
        for (&carry, _) in self.carries.iter().zip(flushed).filter(|(_, &f)| f) {
            c.mark_flushed(carry);
        }
        c.spilled_uniforms(self.spilled.clone());
        for i in &self.span.prog.instrs[self.span.first..self.span.end] {
            // `compile` planned the region from instructions `emit` accepted.
            let _ = emit::emit(&mut c, i);
        }
        let (n, bits, values) = c.carried(self.carries);
        PassOut {
            n,
            bits,
            values,
            flushed: self.carries.iter().map(|&k| c.is_flushed(k)).collect(),
            r0l_zero: c.r0l_known_zero(),
        }
    }
}

/// `values` (16 bytes each) stored to a stack slot and loaded again. The register allocator
/// joins a block's parameters with the values jumps pass them, and a loop nested in others
/// then shares the outer loops' choice of stack slots for what it carries; values that go
/// through memory at the loop's edges are its own.
fn through_memory(b: &mut FunctionBuilder, values: &[Value]) -> Vec<Value> {
    let slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        16 * values.len() as u32,
        4,
    ));
    for (j, &v) in values.iter().enumerate() {
        b.ins().stack_store(I64, v, slot, 16 * j as i32);
    }
    values
        .iter()
        .enumerate()
        .map(|(j, &v)| {
            let t = b.func.dfg.value_type(v);
            b.ins().stack_load(I64, t, slot, 16 * j as i32)
        })
        .collect()
}

/// An `I16X8` of zeros.
fn zero_row(b: &mut FunctionBuilder) -> Value {
    let z = b.ins().iconst(I16, 0);
    b.ins().splat(I16X8, z)
}

/// How a loop region carries the slots it touches, and the uniforms
/// it reads, found by emitting it once into a scratch function.
fn loop_plan(isa: &OwnedTargetIsa, span: Span) -> (Vec<Carry>, Vec<UniformRead>) {
    scratch(isa, false, |mut c| {
        for i in &span.prog.instrs[span.first..span.end] {
            let _ = emit::emit(&mut c, i);
        }
        let reads = c.take_uniforms().into_keys().collect();
        Some((c.carries(), reads))
    })
    .unwrap_or_default()
}

/// Stores the exec mask, count, budget and passes, and returns the next instruction:
/// `p` is (next, exec, count, budget, passes).
fn finish_region(
    b: &mut FunctionBuilder,
    ctx: cranelift_codegen::ir::Value,
    p: &[cranelift_codegen::ir::Value],
) {
    let f = MemFlagsData::trusted();
    b.ins().store(f, p[1], ctx, offset_of!(Ctx, exec) as i32);
    b.ins()
        .store(f, p[2], ctx, offset_of!(Ctx, lane_instructions) as i32);
    b.ins().store(f, p[3], ctx, offset_of!(Ctx, budget) as i32);
    b.ins().store(f, p[4], ctx, offset_of!(Ctx, passes) as i32);
    b.ins().return_(&[p[0]]);
}
