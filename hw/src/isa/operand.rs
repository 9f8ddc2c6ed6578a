//! Operands: registers, uniform registers and immediates, with their modifiers.

/// Width of a register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Size {
    S16,
    S32,
    S64,
}

impl Size {
    pub fn bits(self) -> u32 {
        match self {
            Size::S16 => 16,
            Size::S32 => 32,
            Size::S64 => 64,
        }
    }

    pub fn halves(self) -> u16 {
        match self {
            Size::S16 => 1,
            Size::S32 => 2,
            Size::S64 => 4,
        }
    }
}

/// A general-purpose register of 16, 32 or 64 bits. `half` is the index of its first 16-bit
/// half; 32- and 64-bit registers start on an even half (applegpu: the 64-bit `r2_r3` starts
/// at half 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reg {
    pub half: u16,
    pub size: Size,
}

impl Reg {
    pub const fn r16(half: u16) -> Reg {
        Reg {
            half,
            size: Size::S16,
        }
    }
    /// The 32-bit register `r<n>`.
    pub const fn r32(n: u16) -> Reg {
        Reg {
            half: n * 2,
            size: Size::S32,
        }
    }
    /// The 64-bit register pair `r<n>_r<n+1>`.
    pub const fn r64(n: u16) -> Reg {
        Reg {
            half: n * 2,
            size: Size::S64,
        }
    }
}

/// Where a source value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A per-thread register.
    Reg(Reg),
    /// A uniform register, the same value for every thread.
    Uniform(Reg),
    /// An immediate, broadcast to every thread. ALU sources hold 8 bits (zero-extended);
    /// `mov_imm` holds 16 or 32. Float sources interpret an 8-bit immediate as the applegpu
    /// "float immediate" table (see the encoder).
    Imm(u32),
}

/// Hints on a register source: applegpu's cache and discard flags. They do not change the
/// value read; the encoder keeps them and the simulator ignores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Hint {
    #[default]
    None,
    Cache,
    Discard,
}

/// An integer ALU source: zero-extended unless `sign_extend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ISrc {
    pub op: Operand,
    pub sign_extend: bool,
    pub hint: Hint,
}

impl ISrc {
    pub const fn new(op: Operand) -> ISrc {
        ISrc {
            op,
            sign_extend: false,
            hint: Hint::None,
        }
    }
}

impl From<Operand> for ISrc {
    fn from(op: Operand) -> ISrc {
        ISrc::new(op)
    }
}

/// A float ALU source with absolute-value and negate modifiers (abs applies first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FSrc {
    pub op: Operand,
    pub abs: bool,
    pub neg: bool,
    pub hint: Hint,
}

impl FSrc {
    pub const fn new(op: Operand) -> FSrc {
        FSrc {
            op,
            abs: false,
            neg: false,
            hint: Hint::None,
        }
    }
}

impl From<Operand> for FSrc {
    fn from(op: Operand) -> FSrc {
        FSrc::new(op)
    }
}

/// A destination register. `cache` is applegpu's destination cache hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dst {
    pub reg: Reg,
    pub cache: bool,
}

impl From<Reg> for Dst {
    fn from(reg: Reg) -> Dst {
        Dst { reg, cache: false }
    }
}

/// Integer comparison (applegpu `cc` for integer compares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ICond {
    UEq,
    ULt,
    UGt,
    SEq,
    SLt,
    SGt,
}

/// Float comparison (applegpu `cc` for float compares). Ordered comparisons are false when
/// either side is NaN; `negate` on an instruction turns them into the unordered complement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FCond {
    Eq,
    Lt,
    Gt,
    /// Less than, comparing as if NaN were ignored: `min`-like; applegpu `ltn`.
    LtN,
    Ge,
    Le,
    /// Greater than with NaN ignored; applegpu `gtn`.
    GtN,
}

/// Condition of a compare-and-select or an exec-mask instruction, with its negation bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond {
    Int(ICond),
    Float(FCond),
}

/// A special register read by `get_sr` (numbers from applegpu's SR_NAMES).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpecialReg(pub u8);

impl SpecialReg {
    pub const THREADGROUP_POSITION_IN_GRID_X: SpecialReg = SpecialReg(0);
    pub const THREADGROUP_POSITION_IN_GRID_Y: SpecialReg = SpecialReg(1);
    pub const THREADGROUP_POSITION_IN_GRID_Z: SpecialReg = SpecialReg(2);
    pub const THREADS_PER_THREADGROUP_X: SpecialReg = SpecialReg(4);
    pub const THREADS_PER_THREADGROUP_Y: SpecialReg = SpecialReg(5);
    pub const THREADS_PER_THREADGROUP_Z: SpecialReg = SpecialReg(6);
    pub const THREAD_POSITION_IN_THREADGROUP_X: SpecialReg = SpecialReg(48);
    pub const THREAD_POSITION_IN_THREADGROUP_Y: SpecialReg = SpecialReg(49);
    pub const THREAD_POSITION_IN_THREADGROUP_Z: SpecialReg = SpecialReg(50);
    pub const THREAD_INDEX_IN_THREADGROUP: SpecialReg = SpecialReg(51);
    pub const THREAD_INDEX_IN_SIMDGROUP: SpecialReg = SpecialReg(52);
    pub const SIMDGROUP_INDEX_IN_THREADGROUP: SpecialReg = SpecialReg(53);
    pub const THREAD_POSITION_IN_GRID_X: SpecialReg = SpecialReg(80);
    pub const THREAD_POSITION_IN_GRID_Y: SpecialReg = SpecialReg(81);
    pub const THREAD_POSITION_IN_GRID_Z: SpecialReg = SpecialReg(82);
    /// Fragment shaders: the samples of the lane's pixel still covered now (after early
    /// tests and the discards so far; Mesa's gl_SampleMask-style reads use it).
    pub const COVERAGE_MASK: SpecialReg = SpecialReg(60);
    /// Fragment shaders: 1 in lanes whose primitive is back-facing.
    pub const BACKFACING: SpecialReg = SpecialReg(62);
    /// Fragment shaders: 0 in helper lanes (no sample left covered), else 1 (Mesa compares
    /// it with zero for gl_HelperInvocation).
    pub const IS_ACTIVE_THREAD: SpecialReg = SpecialReg(63);
    /// Fragment shaders: the samples of the lane's pixel the primitive covers (Metal's
    /// `[[sample_mask]]` input; Mesa reads gl_SampleMaskIn from it), 0 for helper lanes.
    pub const INPUT_SAMPLE_MASK: SpecialReg = SpecialReg(124);
}

/// Element format of a device, threadgroup or stack memory access (applegpu MEMORY_FORMATS):
/// how each element is stored in memory and widened into a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemFormat {
    /// 8-bit elements, zero-extended into 16-bit halves.
    I8,
    I16,
    I32,
    /// Unorm/snorm/float conversion formats exist in hardware; agx4 does not use them yet.
    U8Norm,
    S8Norm,
    U16Norm,
    S16Norm,
    RGB10A2,
    SRGBA8,
    F16,
}

impl MemFormat {
    /// Bytes of one element in memory.
    pub fn bytes(self) -> u32 {
        match self {
            MemFormat::I8 | MemFormat::U8Norm | MemFormat::S8Norm | MemFormat::SRGBA8 => 1,
            MemFormat::I16 | MemFormat::U16Norm | MemFormat::S16Norm | MemFormat::F16 => 2,
            MemFormat::I32 | MemFormat::RGB10A2 => 4,
        }
    }
}

/// Atomic operation of `atomic` and `threadgroup_atomic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    /// Compare-and-exchange: the comparison value is the register after the data register.
    CmpXchg,
    UMin,
    SMin,
    UMax,
    SMax,
    And,
    Or,
    Xor,
}
