//! The G13 back end: instruction selection, exec-mask lowering, register allocation, wait
//! insertion and encoding through `hw`.
//!
//! The passes hand a flat list of [`Item`]s to each other. Before register allocation the
//! registers in it are *virtual*: a [`Reg`]'s `half` is `4 * id + part`, where `id` names a
//! virtual register and `part` is the 16-bit half inside it (a 64-bit value's high word is
//! part 2). Virtual register 0 is the physical `r0l`, the exec nesting counter, which the
//! allocator does not hand out when the program has control flow.
//!
//! Order: `isel` (with `exec` for control flow) -> `regalloc` -> `waits` -> `encode`; `stats`
//! reports. Device addresses `base + widen(offset)` whose offset is a multiple of 4 become
//! the memory instruction's index, so most 64-bit address arithmetic is never emitted.
//!
//! Vertex and fragment shaders go through the same passes with the interface of
//! [`graphics`] (varying layout, colour targets) guiding the selection of their inputs and
//! outputs; see [`compile_graphics`].
//!
//! Booleans are 16-bit registers holding 0 or 1 (as Mesa does): compares write them with a
//! compare-and-select of the immediates 1 and 0, and `if` tests them against zero.

mod coalesce;
mod dead_defs;
mod encode;
mod exec;
mod graphics;
mod hoist;
mod isel;
mod regalloc;
mod regs;
mod share_imms;
mod skips;
mod stats;
pub(crate) mod tile_programs;
mod waits;

#[cfg(test)]
mod sim_bda_tests;
#[cfg(test)]
mod sim_harness;
#[cfg(test)]
mod sim_image_atomic_tests;
#[cfg(test)]
mod sim_subgroup_ext_tests;
#[cfg(test)]
mod sim_subgroup_tests;
#[cfg(test)]
mod sim_tests;
#[cfg(test)]
mod sim_texel_buffer_tests;
#[cfg(test)]
mod sim_texture_tests;
#[cfg(test)]
pub(crate) mod tests;

use hw::isa::{Instr, JumpCond, Reg, Size};

/// Elements of a colour target in the tilebuffer and their raw access format.
pub fn tib_element_layout(
    c: hw::g13::tilebuffer::ColourFormat,
    t: hw::g13::tilebuffer::TibFormat,
) -> (u8, hw::isa::MemFormat) {
    isel::tib_element_layout(c, t)
}

pub use graphics::{
    compile_graphics, compile_graphics_split, compile_graphics_with, ColourOutput, FragmentOutputs,
    GraphicsBinary, VaryingLayout, VaryingSlot, CF_FIRST_VARYING, CF_W, CF_Z,
    PRELOAD_INSTANCE_NUMBER, PRELOAD_VERTEX_INDEX, UVS_CLIP_W, UVS_POINT_SIZE, UVS_POSITION,
};

use crate::{abi, ir, ir::Shader, CompileError, ComputeBinary};

/// One element of a back-end program.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Item {
    Op(Instr),
    /// A branch target.
    Label(u32),
    /// A branch to a label; `encode` turns it into a byte offset.
    Jump {
        cond: JumpCond,
        target: u32,
    },
}

/// What the allocator needs to know about a virtual register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VregInfo {
    pub size: Size,
    /// Written again after it is read (a `Var`): its live range must cover every loop it
    /// appears in. A value assembled from parts by adjacent instructions before any read is
    /// not multi-def.
    pub multi_def: bool,
    /// A register the launch preloads: the allocator gives it exactly these physical halves
    /// from program entry to its last use (instruction selection copies it out at entry).
    pub fixed: Option<u16>,
    /// Part of a 128-bit register (four 32-bit words a memory instruction moves at once).
    pub wide: Wide,
}

/// A 128-bit register is two 64-bit virtual registers with consecutive ids, so that the
/// usual `4 * id + part` names its halves 0 to 7 from the lower id on. The allocator gives
/// them one live range, places the upper 64 bits right after the lower, spills and fills
/// them whole, and never coalesces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Wide {
    #[default]
    No,
    /// The lower 64 bits; the next id holds the upper.
    Low,
    /// The upper 64 bits of the previous id.
    High,
}

impl VregInfo {
    /// Halves the allocator places for this id: a 128-bit register's lower id stands for
    /// both.
    pub fn placed_halves(&self) -> u16 {
        match self.wide {
            Wide::No => self.size.halves(),
            Wide::Low => 8,
            Wide::High => 0,
        }
    }
}

/// A program over virtual registers, as instruction selection leaves it.
#[derive(Debug, Clone)]
pub(crate) struct VProgram {
    pub items: Vec<Item>,
    pub vregs: Vec<VregInfo>,
    /// Per-thread stack bytes the IR's scratch space uses; spills go after it.
    pub scratch_base: u32,
    /// Uniform ranges the launch loads from descriptor memory and from `constants`.
    pub preloads: Vec<crate::UniformPreload>,
    /// The constant data of `PreloadSource::Constants` preloads.
    pub constants: Vec<u8>,
}

/// The virtual register that stands for the physical `r0l`.
pub(crate) const NESTING_VREG: u16 = 0;

/// The nesting counter `r0l`.
pub(crate) const R0L: Reg = Reg {
    half: 0,
    size: Size::S16,
};

/// Virtual register `id`, part `part` (in halves), of the given width.
pub(crate) fn vreg(id: u16, part: u16, size: Size) -> Reg {
    Reg {
        half: id * 4 + part,
        size,
    }
}

/// 32-bit word `k` (0 to 3) of the 64- or 128-bit register whose (lower) id is `id`.
pub(crate) fn word(id: u16, k: usize) -> Reg {
    vreg(id + k as u16 / 2, (k as u16 % 2) * 2, Size::S32)
}

/// Back-end options: the register budget in halves (tests lower it), and whether constant
/// descriptor words may become uniform preloads (application compute shaders, whose
/// launches emit them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub gpr_budget: u16,
    pub preloads: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            gpr_budget: hw::isa::GPR_HALVES,
            preloads: false,
        }
    }
}

/// The result of the back end before it becomes a [`ComputeBinary`].
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    pub items: Vec<Item>,
    pub preloads: Vec<crate::UniformPreload>,
    pub constants: Vec<u8>,
    pub gpr_halves: u32,
    pub scratch_bytes: u32,
    pub spills: u32,
    pub fills: u32,
}

/// Everything up to (not including) encoding, with a register budget.
pub(crate) fn compile_items(shader: &Shader, opts: Options) -> Result<Compiled, CompileError> {
    let mut vprog = if opts.preloads {
        isel::select_preloading(shader)?
    } else {
        isel::select(shader)?
    };
    dead_defs::remove_dead_defs(&mut vprog);
    share_imms::share_immediates(&mut vprog);
    compile_vprog(&vprog, opts)
}

/// Register allocation and waits for a selected program.
pub(crate) fn compile_vprog(vprog: &VProgram, opts: Options) -> Result<Compiled, CompileError> {
    let alloc = regalloc::allocate(vprog, opts.gpr_budget)?;
    let mut kept: Vec<Item> = alloc
        .items
        .iter()
        .copied()
        .filter(|i| !coalesce::is_self_copy(i))
        .collect();
    skips::drop_cheap_skips(&mut kept);
    let items = waits::insert_waits(&kept);
    Ok(Compiled {
        items,
        preloads: vprog.preloads.clone(),
        constants: vprog.constants.clone(),
        gpr_halves: alloc.gpr_halves,
        scratch_bytes: alloc.scratch_bytes,
        spills: alloc.spills,
        fills: alloc.fills,
    })
}

/// The G13 back end as generation-neutral code reaches it ([`crate::Target::backend`]).
pub(crate) static BACKEND: G13 = G13;

/// See [`BACKEND`].
pub(crate) struct G13;

impl crate::backend::Backend for G13 {
    fn compile(&self, shader: &Shader) -> Result<ComputeBinary, CompileError> {
        compile(shader)
    }

    fn compile_with_preloads(&self, shader: &Shader) -> Result<ComputeBinary, CompileError> {
        compile_with_preloads(shader)
    }

    fn compile_with_preamble(
        &self,
        main: &Shader,
        preamble: &Shader,
    ) -> Result<Option<ComputeBinary>, CompileError> {
        compile_with_preamble(main, preamble)
    }

    fn preamble_area(&self) -> crate::passes::preamble::Area {
        crate::passes::preamble::Area {
            halves: abi::PREAMBLE_UNIFORM_END - abi::PREAMBLE_UNIFORM_START,
            wide_halves: abi::PREAMBLE_WIDE_HALVES,
        }
    }
}

pub fn compile(shader: &Shader) -> Result<ComputeBinary, CompileError> {
    compile_opts(shader, Options::default())
}

/// [`compile`], with constant descriptor words preloaded into uniforms by the launch.
pub fn compile_with_preloads(shader: &Shader) -> Result<ComputeBinary, CompileError> {
    compile_opts(
        shader,
        Options {
            preloads: true,
            ..Options::default()
        },
    )
}

/// A compute shader split by `passes::preamble`: `preamble` computes the results `main`
/// reads. The preamble is selected first, so the main shader shares its preloads and
/// constants; its code follows the main shader's. `None` when the preamble would need stack
/// (spills), which a preshader launch does not give.
pub fn compile_with_preamble(
    main: &Shader,
    preamble: &Shader,
) -> Result<Option<ComputeBinary>, CompileError> {
    let opts = Options {
        preloads: true,
        ..Options::default()
    };
    // The 64-bit results come first in the area and end at PREAMBLE_UNIFORM_START.
    let (wide, halves) = preamble_result_halves(preamble);
    let first_half = abi::PREAMBLE_UNIFORM_START - wide;
    let mut pv = isel::select_preamble(preamble, first_half)?;
    dead_defs::remove_dead_defs(&mut pv);
    share_imms::share_immediates(&mut pv);
    let pc = compile_vprog(&pv, opts)?;
    // The CDM and VDM words give a preshader's registers in 4 bits of 16-half groups.
    if pc.spills > 0 || pc.scratch_bytes > 0 || pc.gpr_halves > MAX_PREAMBLE_GPR_HALVES {
        return Ok(None);
    }
    let mut mv = isel::select_preloading_after(main, &pc.preloads, &pc.constants, first_half)?;
    dead_defs::remove_dead_defs(&mut mv);
    share_imms::share_immediates(&mut mv);
    let mc = compile_vprog(&mv, opts)?;
    let me = encode::encode_program(&mc.items)?;
    let pe = encode::encode_program(&pc.items)?;
    let stats = stats::Stats::new(&mc, &me);
    let pstats = stats::Stats::new(&pc, &pe);
    stats.report(&me.code);
    pstats.report_preamble(&pe.code);
    let mut code = me.code;
    let offset = code.len() as u32;
    code.extend_from_slice(&pe.code);
    let mut api_stats = stats.api();
    api_stats.preamble_instructions = pstats.instructions;
    Ok(Some(ComputeBinary {
        code,
        gpr_halves: mc.gpr_halves.max(pc.gpr_halves),
        uniform_halves: abi::ROOT_TABLE_SIZE / 2,
        preloads: mc.preloads,
        constants: mc.constants,
        preamble: Some(crate::PreambleCode {
            offset,
            gpr_halves: pc.gpr_halves,
            first_half,
            result_halves: halves,
        }),
        scratch_bytes: mc.scratch_bytes,
        shared_bytes: main.shared_size,
        local_size: main.local_size,
        stats: api_stats,
    }))
}

/// Registers a preamble may use, in halves.
pub(crate) const MAX_PREAMBLE_GPR_HALVES: u32 = 15 * 16;

/// Halves of the result area a preamble writes (from its `StorePreamble`s): of its 64-bit
/// results, and in all.
pub(crate) fn preamble_result_halves(preamble: &Shader) -> (u32, u32) {
    let (mut wide, mut end) = (0, 0);
    crate::passes::for_each_inst(&preamble.body, &mut |i| {
        if let ir::Op::StorePreamble { offset, value } = i.op {
            let halves = if preamble.ty(value) == ir::Type::I64 {
                wide += 4;
                4
            } else {
                2
            };
            end = end.max(offset + halves);
        }
    });
    (wide, end)
}

fn compile_opts(shader: &Shader, opts: Options) -> Result<ComputeBinary, CompileError> {
    let c = compile_items(shader, opts)?;
    let encoded = encode::encode_program(&c.items)?;
    let stats = stats::Stats::new(&c, &encoded);
    stats.report(&encoded.code);
    Ok(ComputeBinary {
        code: encoded.code,
        gpr_halves: c.gpr_halves,
        uniform_halves: abi::ROOT_TABLE_SIZE / 2,
        preloads: c.preloads,
        constants: c.constants,
        preamble: None,
        scratch_bytes: c.scratch_bytes,
        shared_bytes: shader.shared_size,
        local_size: shader.local_size,
        stats: stats.api(),
    })
}
