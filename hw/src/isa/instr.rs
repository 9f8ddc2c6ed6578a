//! One struct per machine instruction, and [`Instr`], the sum of them.
//!
//! Each struct documents its semantics in a line or two; applegpu's pseudocode is the full
//! reference. "Active thread" means a thread whose exec-mask bit is set: ALU and memory
//! instructions only write active threads. The exec-mask instructions (`if_*`, `else_*`,
//! `while_*`, `pop_exec`) update every thread's nesting counter in `r0l` and recompute the
//! exec mask as `r0l == 0`.

use super::operand::*;

/// `mov_imm`: D = immediate (16- or 32-bit destination).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MovImm {
    pub dst: Dst,
    pub imm: u32,
}

/// `get_sr`: D = special register (32-bit destination).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GetSr {
    pub dst: Dst,
    pub sr: SpecialReg,
}

/// `iadd`: D = sat?(A + (B << shift)), or A - (B << shift) when `negate_b`. Sources are
/// extended to the destination width first; 64-bit destinations allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IAdd {
    pub dst: Dst,
    pub a: ISrc,
    pub b: ISrc,
    pub negate_b: bool,
    pub shift: u8,
    pub saturate: bool,
}

/// `imadd`: D = (A * B) + (C << shift), or minus when `negate_c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IMAdd {
    pub dst: Dst,
    pub a: ISrc,
    pub b: ISrc,
    pub c: ISrc,
    pub negate_c: bool,
    pub shift: u8,
    pub saturate: bool,
}

/// `bitop`: D = truth_table(A, B), bit by bit. Bit `(b << 1) | a` of `table` is the result
/// for input bits a, b (applegpu's `tt`): 0b1000 is AND, 0b1110 OR, 0b0110 XOR, 0b0101 NOT A
/// ... as the encoder documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bitop {
    pub dst: Dst,
    pub a: ISrc,
    pub b: ISrc,
    pub table: u8,
}

/// The shift and bitfield family. Fields follow applegpu's A, B, C; `s = C & 0x7f` is the
/// shift amount and `mask = (1 << m) - 1`, or all ones when `m == 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    /// `bfi`: D = (A & !(mask << s)) | ((B & mask) << s). With A = 0 and m = 0 it is
    /// `shl B, s`.
    Bfi,
    /// `bfeil`: D = (A & !mask) | ((B >> s) & mask). With A = 0 and m = 0 it is the logical
    /// shift right `B >> s`; with A = 0 a zero-filled bitfield extract.
    Bfeil,
    /// `extr`: D = (((B << 32) | A) >> s) & mask: a funnel shift of the pair B:A.
    Extr,
    /// `shlhi` / `shrhi`: shifts of the high half of a 64-bit value (see applegpu).
    Shlhi,
    Shrhi,
    /// `asr`: D = A >> (B & 0x7f), arithmetic. Uses only A and B.
    Asr,
}

/// A shift or bitfield instruction (semantics on [`ShiftOp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shift {
    pub op: ShiftOp,
    pub dst: Dst,
    pub a: ISrc,
    pub b: ISrc,
    /// The shift amount for the bitfield forms; `Imm(0)` for `asr`.
    pub c: ISrc,
    /// Field width `m` in bits (0 = 32).
    pub mask_bits: u8,
}

/// Integer unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IUnaryOp {
    BitReverse,
    PopCount,
    /// Index of the most significant set bit, ~0 when zero (applegpu `ffs`).
    FindFirstSet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IUnary {
    pub op: IUnaryOp,
    pub dst: Dst,
    pub src: ISrc,
}

/// `convert`: integer <-> float conversions with a rounding mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvertOp {
    U32ToF,
    S32ToF,
    U16ToF,
    S16ToF,
    U8ToF,
    S8ToF,
    FToU32,
    FToS32,
    FToU16,
    FToS16,
}

/// Rounding of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    NearestEven,
    TowardZero,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Convert {
    pub op: ConvertOp,
    pub dst: Dst,
    pub src: ISrc,
    pub round: Round,
}

/// Float instructions with two or three sources. Sources and destination are each 16- or
/// 32-bit: a 16-bit source is widened exactly, a 32-bit result is flushed to zero when
/// denormal, a 16-bit one keeps its denormals; both round to nearest even
/// (`crate::g13::float_mode` holds these facts). The encoder
/// picks the 16-bit opcode when every operand is 16-bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FOp {
    /// D = A + B
    Add,
    /// D = A * B
    Mul,
    /// D = A * B + C, fused.
    MAdd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FArith {
    pub op: FOp,
    pub dst: Dst,
    pub a: FSrc,
    pub b: FSrc,
    /// Only for `MAdd`; otherwise ignored and encoded as nothing.
    pub c: FSrc,
    /// Clamp the result to [0, 1].
    pub saturate: bool,
}

/// Float unary operations (applegpu FUnaryInstructionDesc family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FUnaryOp {
    Floor,
    Ceil,
    Trunc,
    /// Round to nearest even.
    Rint,
    Rcp,
    Rsqrt,
    /// `sin_pt_1` / `sin_pt_2`: the two halves of the hardware sine (see applegpu).
    SinPt1,
    SinPt2,
    Log2,
    Exp2,
    /// `dfdx` / `dfdy`: the screen-space derivative of A within the lane's quad (see
    /// [`crate::isa::quad_lane`]): D = A[right] - A[left] of the lane's row, or
    /// A[bottom] - A[top] of its column. A is read from the neighbour lanes whether or not
    /// they are active, so helper lanes of a fragment quad take part. Every lane of a row
    /// (column) gets the same value: the fine derivative. Sources modifiers apply before the
    /// difference, saturation after. (The encoding's "kill helpers" bit is not modelled.)
    Dfdx,
    Dfdy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FUnary {
    pub op: FUnaryOp,
    pub dst: Dst,
    pub src: FSrc,
    pub saturate: bool,
}

/// `icmpsel` / `fcmpsel`: D = cond(A, B) ? X : Y. Also used for min/max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CmpSel {
    pub cond: Cond,
    pub dst: Dst,
    pub a: Operand,
    pub b: Operand,
    pub x: Operand,
    pub y: Operand,
}

/// Which exec-mask instruction (applegpu op field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExecOp {
    /// `if_*`: v = r0l; if v != 0 { v += n } else if !cond { v = 1 }.
    If,
    /// `else_*`: if v == 0 { v = n } else if v == 1 { v = cond ? 0 : 1 }.
    Else,
    /// `while_*`: if v < n { v = cond ? 0 : n }.
    While,
}

/// `if_icmp`, `if_fcmp`, `else_*`, `while_*`: update r0l of every thread and the exec mask.
/// An unconditional form is `Float(FCond::Eq)` on 0.0 == 0.0 (applegpu's push_exec/else_exec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExecCmp {
    pub op: ExecOp,
    pub cond: Cond,
    /// Swap the comparison result (applegpu `ccn`).
    pub invert: bool,
    pub a: Operand,
    pub b: Operand,
    pub n: u8,
}

/// `pop_exec`: r0l = max(r0l - n, 0) for every thread; exec = r0l == 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PopExec {
    pub n: u8,
}

/// Branches by byte offset relative to the branch instruction's own address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JumpCond {
    /// `jmp_exec_any`: taken if any thread of the group is active.
    Any,
    /// `jmp_exec_none`: taken if no thread is active.
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Jump {
    pub cond: JumpCond,
    pub offset: i32,
}

/// `wait`: block until loads issued with wait slot `slot` have completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Wait {
    pub slot: u8,
}

/// The index operand of a memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    /// A 32-bit register (device memory) or 16-bit register (threadgroup memory).
    Reg(Reg),
    /// A sign-extended 16-bit immediate.
    Imm(i16),
}

/// `device_load` / `device_store`: for each active thread, element i (for each bit i set in
/// `mask`) is at base + ((extend(index) << shift) + i) * format.bytes(), extend being sign- or
/// zero-extension of a 32-bit register per `index_unsigned` (an immediate index is a
/// sign-extended 16-bit value). The selected elements move to/from popcount(mask) consecutive
/// registers starting at `reg`: a gap in the mask skips memory, not registers (applegpu). 16-bit
/// `reg` means 16-bit halves (not allowed with `I32`), 32-bit `reg` 32-bit registers. The shift
/// field is 2 bits; applegpu observes shift 3 behaving as 2. Bit-packed formats (`RGB10A2`)
/// ignore shift and mask in hardware.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceMem {
    pub store: bool,
    pub reg: Reg,
    /// A 64-bit register or uniform.
    pub base: Operand,
    pub index: Index,
    pub index_unsigned: bool,
    pub shift: u8,
    pub format: MemFormat,
    /// Bit i set: element i is transferred. 0b1 = one element, 0b1111 = four.
    pub mask: u8,
    /// Scoreboard slot a later `wait` names (loads only).
    pub wait_slot: u8,
}

/// `threadgroup_load` / `threadgroup_store`: like [`DeviceMem`] but in the workgroup's shared
/// memory; `base` is a 16-bit register/uniform or the immediate 0 (the encoding has no other
/// immediate base). There is no scoreboard field: `wait_slot` must be 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadgroupMem {
    pub store: bool,
    pub reg: Reg,
    pub base: Operand,
    pub index: Index,
    pub format: MemFormat,
    pub mask: u8,
    pub wait_slot: u8,
}

/// `stack_load` / `stack_store`: per-thread scratch (spills, dynamically indexed local
/// arrays). `offset` is a byte offset into the thread's stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StackMem {
    pub store: bool,
    pub reg: Reg,
    pub offset: Index,
    pub format: MemFormat,
    pub mask: u8,
    pub wait_slot: u8,
}

/// `uniform_store`: initialises uniform registers from a preshader (the program the USC
/// words name to run once before a launch's main shader). The 16-bit registers from `reg`
/// (popcount(mask) of them, consecutive) go to the uniform file: the k-th set bit i of `mask`
/// takes register `reg + k` to uniform half `index + i`, so a gap in the mask skips uniform
/// halves, not registers. `index` counts 16-bit uniform halves (0..512): a sign-extended
/// 16-bit immediate or a 32-bit register. The value comes from the lowest active thread.
/// Units are always 16 bits: a 32-bit value is mask 0b11, a 64-bit one 0b1111. Encoded as a
/// device store whose base is replaced by the uniform file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniformStore {
    /// A 16-bit register: the first of the run.
    pub reg: Reg,
    pub index: Index,
    /// Bit i set: uniform half `index + i` is written. 1..=15.
    pub mask: u8,
}

/// `atomic` on device memory: address = base + sext(index) * 4 (agx4 always encodes the index
/// as signed; the hardware's unsigned bit is not modelled); D (if `dst` is some)
/// receives the old value. For `CmpXchg` the source is a 64-bit pair: compare value in the low
/// register, new value in the high one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Atomic {
    pub op: AtomicOp,
    pub dst: Option<Reg>,
    pub src: Reg,
    pub base: Operand,
    pub index: Index,
    pub wait_slot: u8,
}

/// `threadgroup_atomic`: as [`Atomic`] on shared memory; `base` is a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadgroupAtomic {
    pub op: AtomicOp,
    pub dst: Option<Reg>,
    pub src: Reg,
    pub base: Operand,
    pub index: Index,
    pub wait_slot: u8,
}

/// A small source that is either an 8-bit immediate or a 16-bit register: the sample masks,
/// sample indices and varying slots of the graphics instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Small {
    Imm(u8),
    Reg(Reg),
}

/// Which point of the pixel `iter` evaluates the plane equation at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// The pixel centre.
    Center,
    /// The centroid of the covered samples.
    Centroid,
    /// A given sample's position (immediate or 16-bit register sample index).
    Sample(Small),
}

/// `iter` / `iterproj`: interpolate a varying. Coefficient slot `cf + k` holds the plane
/// equation (A, B, C) of component k, evaluated at the chosen point (x, y) of the lane's pixel
/// as A*x + B*y + C. With `perspective_w = Some(w)`, slot `w` holds the plane of 1/W and each
/// component is divided by it (perspective-correct interpolation). Writes `channels`
/// consecutive registers of `dst`'s width (32-bit results are f32, 16-bit ones f16). Reads the
/// fragment context's coefficient registers; `cf` must be an immediate slot (the hardware's
/// register-indexed form is not modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Iter {
    pub dst: Reg,
    /// 1..=4 components.
    pub channels: u8,
    pub cf: u8,
    pub perspective_w: Option<u8>,
    pub interp: Interpolation,
}

/// `ldcf`: load the raw coefficients of `channels` components starting at slot `cf`: for each
/// component, three 32-bit registers A, B, C (Mesa uses the C term for flat shading). `dst`
/// is 32-bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LdCf {
    pub dst: Reg,
    pub channels: u8,
    pub cf: u8,
}

/// `st_vary`: a vertex shader writes the 32-bit register `src` into slot `index` (in 32-bit
/// words) of its vertex's UVS (unified vertex store) output record. `last` marks the final
/// varying store of the shader. Writes the vertex context's per-vertex output buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StVary {
    pub src: Reg,
    pub index: Small,
    pub last: bool,
}

/// `ld_tile` / `st_tile`: move the elements selected by `mask` between consecutive registers
/// from `reg` and the tilebuffer record of the lane's pixel, starting `pixel_offset` bytes into
/// the record (applegpu: the offset is in bytes and ignores sample count and tile size). Each
/// selected sample of `samples` (bit N = sample N; 0xff broadcasts to all samples) is
/// accessed; a load reads the lowest selected sample. `coords` is the explicit-coordinate
/// register (x, y halves) when present, else the lane's own pixel. Format codes as for device
/// memory. Reads/writes the fragment context's tilebuffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileMem {
    pub store: bool,
    pub reg: Reg,
    pub format: MemFormat,
    pub mask: u8,
    /// 0..512 bytes.
    pub pixel_offset: u16,
    pub samples: Small,
    pub coords: Option<Reg>,
}

/// `sample_mask`: for each sample in `targets`, the sample stays covered if its bit in `live`
/// is set and is discarded otherwise; samples outside `targets` are unchanged. Updates the
/// fragment context's per-lane coverage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SampleMask {
    pub targets: Small,
    pub live: Small,
}

/// `zs_emit`: write fragment depth and/or stencil for the samples in `samples`. Depth (f32)
/// is the 32-bit register at `src`; stencil is the low 8 bits of the next 32-bit register when
/// depth is also written, else of the 16-bit register `src`. Records into the fragment
/// context's per-lane depth/stencil outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ZsEmit {
    pub samples: Small,
    pub src: Reg,
    pub depth: bool,
    pub stencil: bool,
}

/// Texture dimensionality (applegpu TEX_TYPES / Mesa `agx_dim`), in hardware code order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexDim {
    D1,
    D1Array,
    D2,
    D2Array,
    D2Ms,
    D3,
    Cube,
    CubeArray,
    D2MsArray,
}

/// Which texture descriptor an instruction uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexIndex {
    /// Texture state register `n` (0..256).
    Imm(u8),
    /// Texture state register named by a 16-bit register.
    Reg(Reg),
    /// Bindless: the descriptor heap address is the 64-bit uniform at half `base` (a multiple
    /// of 4 below 128) and the 32-bit register `index` selects the descriptor: in agx4's
    /// model, an unsigned byte offset from that address (see `sim_gpu::usc::texture`).
    Bindless { base: u16, index: Reg },
}

/// How `texture_sample` / `texture_load` choose the level of detail (Mesa `agx_lod_mode`).
/// Except for `Auto`, the LOD operand is a 16-bit register or uniform (gradients: a register
/// run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LodMode {
    /// Implicit derivatives; no operand (encoded as immediate 0).
    Auto,
    AutoBias,
    /// An explicit LOD (`texture_load` uses this for the mip level).
    Min,
    Grad,
    GradMin,
    AutoBiasMin,
}

/// `texture_sample` (filtered, through a sampler) and `texture_load` (unfiltered texel fetch):
/// read the texture described by `texture` at the coordinates in the 32-bit register run from
/// `coords`, writing the components selected by `mask` to consecutive registers of `dst`'s
/// width. `extra` is the 32-bit register holding the depth-compare reference (`shadow`)
/// and/or packed texel offsets (`offset`); it is present exactly when one of them is set.
/// `gather` = Some(c) gathers component c of four texels. Completion is tracked on scoreboard
/// `wait_slot`. Reads device memory through the texture descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Texture {
    pub load: bool,
    pub dst: Reg,
    pub coords: Reg,
    pub lod_mode: LodMode,
    /// `Imm(0)` for `Auto`; a register or uniform otherwise.
    pub lod: Operand,
    pub texture: TexIndex,
    pub sampler: Small,
    pub dim: TexDim,
    pub mask: u8,
    pub shadow: bool,
    pub offset: bool,
    pub extra: Option<Reg>,
    pub gather: Option<u8>,
    pub query_lod: bool,
    pub wait_slot: u8,
}

impl Texture {
    /// Halves of the register run `lod` names in the gradient modes: d/dx and d/dy of each
    /// coordinate axis interleaved (two axes for 1D and 2D, 1D with a zero second axis as
    /// Mesa passes it; three for 3D and cube maps), then with `GradMin` an f16 minimum LOD
    /// in one more 32-bit register. `None` in the other modes.
    pub fn gradient_halves(&self) -> Option<u16> {
        let axes = match self.dim {
            TexDim::D1
            | TexDim::D1Array
            | TexDim::D2
            | TexDim::D2Array
            | TexDim::D2Ms
            | TexDim::D2MsArray => 2,
            TexDim::D3 | TexDim::Cube | TexDim::CubeArray => 3,
        };
        match self.lod_mode {
            LodMode::Grad => Some(4 * axes),
            LodMode::GradMin => Some(4 * axes + 2),
            _ => None,
        }
    }
}

/// `image_write`: store the 16- or 32-bit register run from `src` (four components) as one
/// texel of the image described by `texture` at the coordinates from `coords`, mip level
/// `lod` (a 16-bit register or an immediate), converting through the PBE to the image format.
/// End-of-tile programs and storage-image writes use it. `coherent` selects Mesa's cache
/// bypass setting. Writes device memory through the descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageWrite {
    pub src: Reg,
    pub coords: Reg,
    pub lod: Small,
    pub texture: TexIndex,
    pub dim: TexDim,
    pub coherent: bool,
}

/// `block_image_store`: store a whole image block from the tile memory through the PBE
/// descriptor `texture`. In a tile program the block is the tile: every pixel of it (every
/// sample, with `dim` multisampled), its element of `format` read at the tilebuffer byte
/// offset held in the 32-bit register `offset`, converted to the image's format, written at
/// the tile's own pixels of level 0 (pixels outside the image are dropped). One issue stores
/// the block once, however many lanes are active (none: nothing); a group's lanes do not
/// each store. Mesa's end-of-tile programs are made of these. Only the implicit-coordinate,
/// single-layer form is modelled (docs/render-abi.md section 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockImageStore {
    pub format: MemFormat,
    pub offset: Reg,
    pub texture: TexIndex,
    pub dim: TexDim,
}

/// `icmp_ballot` / `fcmp_ballot`: every active thread evaluates cond(A, B), swapped when
/// `invert`, and D of every active thread receives the mask of the active threads where it
/// holds (bit i = thread i). Only the whole-SIMD-group form is modelled; the quad form
/// (bit 48 clear) decodes to an error. Mesa's `ballot` pseudo-instruction is
/// `icmp_ballot A, 0, ueq, invert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ballot {
    pub dst: Dst,
    pub cond: Cond,
    pub invert: bool,
    pub a: Operand,
    pub b: Operand,
}

/// How a [`Shuffle`] turns its index into the thread it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// `shuffle`: the thread numbered by the index.
    Index,
    /// `shuffle_xor`: the thread whose number is this thread's xor the index.
    Xor,
}

/// `shuffle` / `shuffle_xor` and their `quad_` forms: D = A of another thread of the SIMD
/// group (or, for the quad forms, of the thread's own quad of four). A is read whether or
/// not the source thread is active (as `dfdx` reads its neighbours); only active threads
/// are written. Index: the thread's own index value gives bits 2.. of the source thread
/// number, but the hardware combines the low two bits over the whole quad (Mesa's
/// agx_lower_divergent_shuffle: one inactive thread with a stray index spoils its quad);
/// agx4 models that combination as the OR of the four threads' low bits, active or not,
/// so only an index the whole quad agrees on (an immediate, say) is dependable.
/// `shuffle_up` / `shuffle_down` (mode 2, 3) are not modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shuffle {
    pub dst: Dst,
    pub a: Operand,
    pub index: Operand,
    pub mode: ShuffleMode,
    pub quad: bool,
}

/// The operation of a [`SimdReduce`] (Mesa's `simd_op`), in hardware code order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimdOp {
    And,
    FAdd,
    Or,
    FMul,
    Xor,
    FMin,
    FMax,
    IAdd,
    SMin,
    SMax,
    UMin,
    UMax,
}

/// Which threads a [`SimdReduce`] folds, and whether it scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceKind {
    /// `quad_reduce`: the active threads of the thread's quad.
    QuadReduce,
    /// `simd_reduce`: every active thread of the SIMD group.
    SimdReduce,
    /// `quad_prefix`: the active threads of the quad numbered below this one.
    QuadPrefix,
    /// `simd_prefix`: the active threads of the SIMD group numbered below this one (an
    /// exclusive scan; Mesa adds the thread's own value for the inclusive one).
    SimdPrefix,
}

/// `simd_reduce` / `simd_prefix` / `quad_reduce` / `quad_prefix`: D of each active thread =
/// `op` folded over A of the threads `kind` selects, in thread order, starting from the
/// operation's identity (0, all ones, 1.0, +-infinity, the extreme integers), which is what
/// a thread with nothing to fold (the first of an exclusive scan) receives. Inactive threads
/// neither contribute nor are written. Widths are the destination's (16 or 32 bits); float
/// results follow the float ALU's rules (32-bit flushed to zero); `fmin` / `fmax` ignore a
/// NaN operand as `fcmpsel ltn / gtn` do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SimdReduce {
    pub dst: Dst,
    pub a: Operand,
    pub op: SimdOp,
    pub kind: ReduceKind,
}

/// Every instruction agx4 knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Instr {
    MovImm(MovImm),
    GetSr(GetSr),
    IAdd(IAdd),
    IMAdd(IMAdd),
    Bitop(Bitop),
    Shift(Shift),
    IUnary(IUnary),
    Convert(Convert),
    FArith(FArith),
    FUnary(FUnary),
    CmpSel(CmpSel),
    Ballot(Ballot),
    Shuffle(Shuffle),
    SimdReduce(SimdReduce),
    ExecCmp(ExecCmp),
    PopExec(PopExec),
    Jump(Jump),
    Wait(Wait),
    DeviceMem(DeviceMem),
    ThreadgroupMem(ThreadgroupMem),
    StackMem(StackMem),
    Atomic(Atomic),
    ThreadgroupAtomic(ThreadgroupAtomic),
    UniformStore(UniformStore),
    /// `threadgroup_barrier`: every SIMD group of the workgroup waits here.
    ThreadgroupBarrier,
    /// `memory_barrier`: orders this thread's device memory accesses.
    MemoryBarrier,
    /// `stop`: ends the shader for the whole SIMD group.
    Stop,
    Iter(Iter),
    LdCf(LdCf),
    StVary(StVary),
    TileMem(TileMem),
    SampleMask(SampleMask),
    ZsEmit(ZsEmit),
    Texture(Texture),
    ImageWrite(ImageWrite),
    BlockImageStore(BlockImageStore),
}

/// What an instruction reaches beyond its lane's registers and its pixel's tilebuffer
/// records: what decides whether the simulator may run lanes, groups or primitives in
/// another order than one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Nothing else.
    Own,
    /// Writes memory at an address: device stores, image writes, block image stores.
    Stores,
    /// State other lanes or groups share, whose result depends on their order: atomics,
    /// threadgroup memory, uniform stores.
    Shared,
}

impl Instr {
    /// See [`Reach`].
    pub fn reach(&self) -> Reach {
        match self {
            Instr::DeviceMem(m) if m.store => Reach::Stores,
            Instr::ImageWrite(_) | Instr::BlockImageStore(_) => Reach::Stores,
            Instr::Atomic(_)
            | Instr::ThreadgroupMem(_)
            | Instr::ThreadgroupAtomic(_)
            | Instr::UniformStore(_) => Reach::Shared,
            _ => Reach::Own,
        }
    }
}
