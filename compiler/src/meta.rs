//! Meta shaders: the compute programs the ICD runs for its own commands (buffer copies and
//! fills, the indirect-dispatch fix-up, query result copies). They are built directly as agx4
//! IR, then go through the same passes and back end as application shaders.
//!
//! Every meta shader reaches memory through storage-buffer descriptors in set 0 (bindings
//! 0, 1, 2 as each kind documents), so its accesses are bounds-checked like any shader's; the
//! ICD writes that set for each launch. Counts and other scalars are push constants (root
//! table bytes from `abi::PUSH_CONSTANTS_OFFSET`); the offsets below are relative to the push
//! constants. Each shader runs [`LOCAL_SIZE`] invocations per workgroup along x and
//! bounds-checks its index, so the ICD launches `ceil(count / LOCAL_SIZE)` workgroups.

use crate::abi::PUSH_CONSTANTS_OFFSET;
use crate::ir::{
    BinOp, CmpOp, Constant, ConvOp, Inst, Node, Op, Shader, Space, SysVal, Type, Value,
};
use crate::{
    BindingLayout, CompileError, ComputeBinary, DescriptorKind, ResourceLayout, SetLayout, Target,
};

/// Invocations per workgroup of every meta shader.
pub const LOCAL_SIZE: u32 = 64;

/// Which meta shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Meta {
    /// Copies `count` u32 words from binding 0 to binding 1: push constants [`copy`].
    CopyWords,
    /// Copies bytes between unaligned ranges with 32-bit accesses only: binding 0 is the
    /// source from its 4-byte-aligned start, binding 1 the destination likewise; invocation
    /// `i` assembles destination word `i` and merges it with the bytes outside the range.
    /// Push constants [`copy`].
    CopyBytes,
    /// Writes `value` to `count` u32 words of binding 0: push constants [`fill`].
    Fill,
    /// Reads a VkDispatchIndirectCommand (binding 0) and writes the CDM thread counts
    /// (binding 1) and the root table's workgroup counts (binding 2): push constants
    /// [`fixup`]. Launch one workgroup.
    DispatchFixup,
    /// Copies timestamp query results (binding 0: u64 each, 0 = unavailable) to binding 1 in
    /// the layout of vkCmdCopyQueryPoolResults: push constants [`query`].
    QueryCopy {
        wide: bool,
        availability: bool,
        partial: bool,
    },
    /// Copies a box of texels of `1 << log2_bpp` bytes between two surfaces (buffer rows,
    /// linear or twiddled image levels): binding 0 holds the source, binding 1 the
    /// destination. It runs a 3D grid, one invocation per texel of the box: x along a row
    /// (rounded up to whole workgroups, the rest masked by [`image::WIDTH`]), y the rows, z
    /// the slices or layers. Texels of 4 bytes or more move as words; smaller ones are merged
    /// into their destination word with atomics that touch only their own bits, so the
    /// neighbouring texels other invocations write stay intact. A source with `XPITCH`, row
    /// and slice pitch 0 repeats one texel: a clear. Push constants [`image`].
    ImageCopy {
        src_twiddled: bool,
        dst_twiddled: bool,
        log2_bpp: u8,
    },
    /// Copies records of indirect command words (binding 2, `STRIDE` words apart) to packed
    /// records (binding 3), or zeros in their place when a record must not run: when the
    /// condition word (binding 0) fails the test the flags ask for (conditional rendering),
    /// or when the record's number is not below the count word (binding 1: draw indirect
    /// count). Push constants [`guard`].
    GuardedCopy,
    /// Transform feedback of an indirect draw (icd cmd_buffer/xfb.rs): reads the draw's
    /// VkDrawIndirectCommand or VkDrawIndexedIndirectCommand (binding 0) and writes the
    /// capture draw's VkDrawIndirectCommand (binding 1: primitives x vertices per primitive,
    /// the instances, 0, the first instance) and the capture words of its root table
    /// (binding 2, from `abi::XFB_DRAW_OFFSET`): primitives per instance, instances, first
    /// vertex or vertex offset, first index, index count. Push constants [`xfb_args`].
    /// Launch one workgroup.
    XfbDrawArgs,
    /// vkCmdDrawIndirectByteCountEXT: reads a transform feedback counter (binding 0) and
    /// writes the vertex count `(counter - offset) / stride` (0 below the offset) to
    /// binding 1. Push constants [`xfb_byte_count`]. Launch one workgroup.
    XfbByteCount,
    /// Primitives generated queries (icd cmd_buffer/primgen.rs): reads a draw's
    /// VkDrawIndirectCommand or VkDrawIndexedIndirectCommand (binding 0), counts the
    /// primitives its vertices make per instance, and adds that times the instances to the
    /// u64 counter at binding 2. Without restart a draw of `count` vertices makes
    /// `max(count - SKIP, 0) / DIVIDE` primitives; with restart the index buffer (binding 1,
    /// from a 4-byte-aligned start) is walked: a strip's primitive ends at every vertex
    /// after the first `SKIP` of a run (every `DIVIDE`th of them), a list's at every
    /// `DIVIDE`th. With `VERTICES` set it counts the draw's vertices instead: `count`, or
    /// with restart the indices that are not the restart index (pipeline statistics: input
    /// assembly vertices, vertex shader invocations). Push constants [`primgen`]. Launch
    /// one workgroup.
    PrimitivesGenerated,
    /// An indirect draw with a geometry shader (icd cmd_buffer/geometry.rs): reads the
    /// draw's VkDrawIndirectCommand or VkDrawIndexedIndirectCommand (binding 0); writes the
    /// geometry draw's VkDrawIndirectCommand (primitives x GS invocations, the instances, 0,
    /// the first instance) and then the rasterization draw's VkDrawIndexedIndirectCommand
    /// (2 x max vertices index slots per invocation, one instance) to binding 1, and the
    /// geometry draw's words from `abi::XFB_DRAW_OFFSET` (as [`Meta::XfbDrawArgs`]) to
    /// binding 2. Primitives and then instances are cut down so that at most `CAPACITY`
    /// invocations run: their output space was allocated when the draw was recorded.
    /// Push constants [`geometry_args`]. Launch one workgroup.
    GeometryDrawArgs,
    /// Compute shader invocations of a dispatch (pipeline statistics queries, icd
    /// cmd_buffer/statistics.rs): reads the three workgroup counts (binding 0: a
    /// VkDispatchIndirectCommand) and adds their product times `LOCAL` to the u64 counter at
    /// binding 1. Push constants [`dispatch_invocations`]. Launch one workgroup.
    DispatchInvocations,
    /// Moves a u64 counter into another: adds the u64 at binding 0 to the u64 at binding 1
    /// and zeros binding 0 (inherited pipeline statistics, icd cmd_buffer/statistics.rs).
    /// No push constants. Launch one workgroup.
    DrainCounter,
}

/// Push constants of [`Meta::GeometryDrawArgs`].
pub mod geometry_args {
    /// As in [`super::xfb_args`].
    pub const SKIP: u32 = 0;
    pub const DIVIDE: u32 = 4;
    pub const INDEXED: u32 = 8;
    /// The geometry shader's invocations per primitive and most emitted vertices.
    pub const INVOCATIONS: u32 = 12;
    pub const MAX_VERTICES: u32 = 16;
    /// The most invocations (at least `INVOCATIONS`).
    pub const CAPACITY: u32 = 20;
    pub const SIZE: u32 = 24;
}

/// Push constants of [`Meta::DispatchInvocations`]: invocations per workgroup.
pub mod dispatch_invocations {
    pub const LOCAL: u32 = 0;
    pub const SIZE: u32 = 4;
}

/// Push constants of [`Meta::PrimitivesGenerated`].
pub mod primgen {
    pub const SKIP: u32 = 0;
    pub const DIVIDE: u32 = 4;
    /// 1 for an indexed draw's arguments.
    pub const INDEXED: u32 = 8;
    /// 1 for list topologies (each primitive has its own vertices).
    pub const LIST: u32 = 12;
    /// The restart index (all ones of the index size), or 0 without restart.
    pub const RESTART: u32 = 16;
    pub const INDEX_BYTES: u32 = 20;
    /// Where index 0 starts, in bytes from binding 1's start (0 to 3).
    pub const INDEX_OFFSET: u32 = 24;
    /// 1: count vertices rather than primitives.
    pub const VERTICES: u32 = 28;
    pub const SIZE: u32 = 32;
}

/// Push constants of [`Meta::XfbDrawArgs`]: the draw has `max(count - SKIP, 0) / DIVIDE`
/// primitives of `VERTICES` vertices; `INDEXED` is 1 for an indexed draw's arguments.
pub mod xfb_args {
    pub const SKIP: u32 = 0;
    pub const DIVIDE: u32 = 4;
    pub const VERTICES: u32 = 8;
    pub const INDEXED: u32 = 12;
    pub const SIZE: u32 = 16;
}

/// Push constants of [`Meta::XfbByteCount`].
pub mod xfb_byte_count {
    pub const OFFSET: u32 = 0;
    pub const STRIDE: u32 = 4;
    pub const SIZE: u32 = 8;
}

/// Push constants of the copies: the word count (destination words for `CopyBytes`), then
/// for `CopyBytes` only: the first byte's offset in destination word 0, the end of the range
/// in bytes from destination word 0, the byte rotation between source and destination
/// `(src - dst) mod 4`, and the byte offset (0 or -4, wrapping) of the source word that holds
/// the low part of destination word 0.
pub mod copy {
    pub const COUNT: u32 = 0;
    pub const HEAD: u32 = 4;
    pub const END: u32 = 8;
    pub const SHIFT: u32 = 12;
    pub const SRC_ADJUST: u32 = 16;
    pub const SIZE: u32 = 20;
}

/// Push constants of the fill: word count, the word.
pub mod fill {
    pub const COUNT: u32 = 0;
    pub const VALUE: u32 = 4;
    pub const SIZE: u32 = 8;
}

/// Push constants of the dispatch fix-up: the workgroup size (3 x u32).
pub mod fixup {
    pub const LOCAL_SIZE: u32 = 0;
    pub const SIZE: u32 = 12;
}

/// Push constants of the query copy: destination stride, query count.
pub mod query {
    pub const STRIDE: u32 = 0;
    pub const COUNT: u32 = 4;
    pub const SIZE: u32 = 8;
}

/// Push constants of the guarded copy: destination words, words per record, source words
/// between records, and the tests that apply ([`guard::USE_CONDITION`] and the other flags).
pub mod guard {
    pub const WORDS: u32 = 0;
    pub const RECORD: u32 = 4;
    pub const STRIDE: u32 = 8;
    pub const FLAGS: u32 = 12;
    pub const SIZE: u32 = 16;
    /// Records run only if the condition word is non-zero (zero with [`INVERTED`]).
    pub const USE_CONDITION: u32 = 1;
    pub const INVERTED: u32 = 2;
    /// Records run only if their number is below the count word.
    pub const USE_COUNT: u32 = 4;
}

/// Push constants of the image copy. Offsets in bytes are relative to the binding's start.
/// A surface is linear (`z * SLICE + y * ROW + x * XPITCH`) or twiddled (`z * SLICE`, then
/// tiles of 2^TILE_W x 2^TILE_H texels in row-major order with `TILES_PER_ROW` per row, Morton
/// order inside a tile, x bits on even positions), from its `BASE`; `X0`, `Y0`, `Z0` are the
/// box's corner in that surface. Each surface's fields sit at its group's offset (`DST` or
/// `SRC`) plus the field's offset.
pub mod image {
    /// Texels per row of the box.
    pub const WIDTH: u32 = 0;
    pub const DST: u32 = 4;
    pub const SRC: u32 = 4 + GROUP;
    pub const BASE: u32 = 0;
    pub const ROW: u32 = 4;
    pub const SLICE: u32 = 8;
    /// Linear surfaces: bytes between texels along x (0 repeats one texel).
    pub const XPITCH: u32 = 12;
    pub const TILE_W: u32 = 16;
    pub const TILE_H: u32 = 20;
    pub const TILES_PER_ROW: u32 = 24;
    pub const X0: u32 = 28;
    pub const Y0: u32 = 32;
    pub const Z0: u32 = 36;
    /// Bytes of one surface's group.
    pub const GROUP: u32 = 40;
    pub const SIZE: u32 = SRC + GROUP;
}

impl Meta {
    pub fn push_constant_size(self) -> u32 {
        match self {
            Meta::CopyWords | Meta::CopyBytes => copy::SIZE,
            Meta::Fill => fill::SIZE,
            Meta::DispatchFixup => fixup::SIZE,
            Meta::QueryCopy { .. } => query::SIZE,
            Meta::ImageCopy { .. } => image::SIZE,
            Meta::GuardedCopy => guard::SIZE,
            Meta::XfbDrawArgs => xfb_args::SIZE,
            Meta::XfbByteCount => xfb_byte_count::SIZE,
            Meta::PrimitivesGenerated => primgen::SIZE,
            Meta::GeometryDrawArgs => geometry_args::SIZE,
            Meta::DispatchInvocations => dispatch_invocations::SIZE,
            Meta::DrainCounter => 0,
        }
    }

    /// Storage buffers the shader reads and writes (set 0, bindings 0..n).
    pub fn buffers(self) -> u32 {
        match self {
            Meta::Fill => 1,
            Meta::CopyWords | Meta::CopyBytes | Meta::QueryCopy { .. } | Meta::ImageCopy { .. } => {
                2
            }
            Meta::GuardedCopy => 4,
            Meta::DispatchFixup
            | Meta::XfbDrawArgs
            | Meta::PrimitivesGenerated
            | Meta::GeometryDrawArgs => 3,
            Meta::XfbByteCount | Meta::DispatchInvocations | Meta::DrainCounter => 2,
        }
    }

    /// The pipeline layout of the shader: one set of storage buffers, and push constants.
    pub fn layout(self) -> ResourceLayout {
        let bindings = (0..self.buffers())
            .map(|b| BindingLayout {
                binding: b,
                kind: DescriptorKind::StorageBuffer,
                count: 1,
                offset: b * crate::abi::BUFFER_DESCRIPTOR_SIZE,
            })
            .collect();
        ResourceLayout {
            sets: vec![Some(SetLayout { bindings })],
            push_constant_size: self.push_constant_size(),
            ..Default::default()
        }
    }
}

/// Builds the IR of a meta shader.
pub fn build(kind: Meta) -> Shader {
    let mut b = Builder::new();
    match kind {
        Meta::CopyWords => b.copy_words(),
        Meta::CopyBytes => b.copy_bytes(),
        Meta::Fill => b.fill(),
        Meta::DispatchFixup => b.fixup(),
        Meta::QueryCopy {
            wide,
            availability,
            partial,
        } => b.query_copy(wide, availability, partial),
        Meta::ImageCopy {
            src_twiddled,
            dst_twiddled,
            log2_bpp,
        } => b.image_copy(src_twiddled, dst_twiddled, u32::from(log2_bpp)),
        Meta::GuardedCopy => b.guarded_copy(),
        Meta::XfbDrawArgs => b.xfb_draw_args(),
        Meta::XfbByteCount => b.xfb_byte_count(),
        Meta::PrimitivesGenerated => b.primitives_generated(),
        Meta::GeometryDrawArgs => b.geometry_draw_args(),
        Meta::DispatchInvocations => b.dispatch_invocations(),
        Meta::DrainCounter => b.drain_counter(),
    }
    b.finish()
}

/// Builds and compiles a meta shader for `target`.
pub fn compile(kind: Meta, target: Target) -> Result<ComputeBinary, CompileError> {
    let mut shader = build(kind);
    crate::passes::run_all(&mut shader, &kind.layout())?;
    target.backend().compile(&shader)
}

/// A tiny IR builder: instructions go to the innermost open block.
struct Builder {
    shader: Shader,
    /// Open blocks, innermost last; each becomes a `Node::Block` or an `If` arm.
    stack: Vec<Vec<Node>>,
    block: Vec<Inst>,
}

impl Builder {
    fn new() -> Builder {
        let shader = Shader {
            local_size: [LOCAL_SIZE, 1, 1],
            shared_size: 0,
            scratch_size: 0,
            value_types: Vec::new(),
            var_types: Vec::new(),
            body: Vec::new(),
            contract: false,
            offsets_in_range: false,
            read_only_buffers: Default::default(),
        };
        Builder {
            shader,
            stack: vec![Vec::new()],
            block: Vec::new(),
        }
    }

    fn finish(mut self) -> Shader {
        self.flush();
        let mut body = self.stack.pop().unwrap_or_default();
        body.push(Node::Return);
        self.shader.body = body;
        self.shader
    }

    fn flush(&mut self) {
        if !self.block.is_empty() {
            let block = std::mem::take(&mut self.block);
            if let Some(top) = self.stack.last_mut() {
                top.push(Node::Block(block));
            }
        }
    }

    fn def(&mut self, ty: Type, op: Op) -> Value {
        let v = self.shader.new_value(ty);
        self.block.push(Inst { dst: Some(v), op });
        v
    }

    fn effect(&mut self, op: Op) {
        self.block.push(Inst { dst: None, op });
    }

    fn const_of(&mut self, ty: Type, bits: u64) -> Value {
        self.def(ty, Op::Const(Constant(vec![bits])))
    }

    fn i32(&mut self, v: u32) -> Value {
        self.const_of(Type::I32, u64::from(v))
    }

    /// A push constant at byte `offset` of the push constants.
    fn push_constant(&mut self, ty: Type, offset: u32) -> Value {
        let addr = self.i32(PUSH_CONSTANTS_OFFSET + offset);
        self.def(
            ty,
            Op::Load {
                space: Space::Root,
                addr,
                align: 4,
            },
        )
    }

    fn bin(&mut self, ty: Type, op: BinOp, a: Value, b: Value) -> Value {
        self.def(ty, Op::Binary(op, a, b))
    }

    fn widen(&mut self, v: Value) -> Value {
        self.def(Type::I64, Op::Conv(ConvOp::UToU, v))
    }

    /// The address of byte `offset` (I32) of buffer `binding`, in the form the descriptor
    /// lowering recognises and bounds-checks.
    fn at(&mut self, binding: u32, offset: Value) -> Value {
        let zero = self.i32(0);
        let base = self.def(
            Type::I64,
            Op::DescriptorAddress {
                set: 0,
                binding,
                index: zero,
            },
        );
        let off = self.widen(offset);
        self.bin(Type::I64, BinOp::IAdd, base, off)
    }

    /// The address of element `index` of `scale`-byte elements of buffer `binding`.
    fn element(&mut self, binding: u32, index: Value, scale: u32) -> Value {
        let s = self.i32(scale);
        let off = self.bin(Type::I32, BinOp::IMul, index, s);
        self.at(binding, off)
    }

    fn load(&mut self, ty: Type, addr: Value, align: u32) -> Value {
        self.def(
            ty,
            Op::Load {
                space: Space::Global,
                addr,
                align,
            },
        )
    }

    fn store(&mut self, addr: Value, value: Value, align: u32) {
        self.effect(Op::Store {
            space: Space::Global,
            addr,
            value,
            align,
        });
    }

    fn global_id(&mut self) -> Value {
        self.def(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(0)))
    }

    /// Opens the `then` arm of an `if (cond)` without else; close with [`end_if`].
    fn begin_if(&mut self) {
        self.flush();
        self.stack.push(Vec::new());
    }

    fn end_if(&mut self, cond: Value) {
        self.flush();
        let then_body = self.stack.pop().unwrap_or_default();
        if let Some(top) = self.stack.last_mut() {
            top.push(Node::If {
                cond,
                then_body,
                else_body: Vec::new(),
            });
        }
    }

    /// `if (global_id < count)` around the body `f` builds.
    fn bounded(&mut self, count: Value, f: impl FnOnce(&mut Builder, Value)) {
        let id = self.global_id();
        let inside = self.def(Type::BOOL, Op::Cmp(CmpOp::ULt, id, count));
        self.begin_if();
        f(self, id);
        self.end_if(inside);
    }

    fn copy_words(&mut self) {
        let count = self.push_constant(Type::I32, copy::COUNT);
        self.bounded(count, |b, id| {
            let from = b.element(0, id, 4);
            let v = b.load(Type::I32, from, 4);
            let to = b.element(1, id, 4);
            b.store(to, v, 4);
        });
    }

    fn cmp(&mut self, op: CmpOp, a: Value, c: Value) -> Value {
        self.def(Type::BOOL, Op::Cmp(op, a, c))
    }

    fn select(&mut self, cond: Value, a: Value, c: Value) -> Value {
        self.def(Type::I32, Op::Select(cond, a, c))
    }

    /// `(1 << bits) - 1` for `bits` in 0..=32.
    fn low_mask(&mut self, bits: Value) -> Value {
        let one = self.i32(1);
        let all = self.i32(u32::MAX);
        let thirty_two = self.i32(32);
        let shifted = self.bin(Type::I32, BinOp::Shl, one, bits);
        let m = self.bin(Type::I32, BinOp::ISub, shifted, one);
        let full = self.cmp(CmpOp::IEq, bits, thirty_two);
        self.select(full, all, m)
    }

    fn copy_bytes(&mut self) {
        let count = self.push_constant(Type::I32, copy::COUNT);
        let head = self.push_constant(Type::I32, copy::HEAD);
        let end = self.push_constant(Type::I32, copy::END);
        let shift = self.push_constant(Type::I32, copy::SHIFT);
        let adjust = self.push_constant(Type::I32, copy::SRC_ADJUST);
        self.bounded(count, |b, id| {
            let four = b.i32(4);
            let eight = b.i32(8);
            let zero = b.i32(0);
            let thirty_two = b.i32(32);
            // The source bytes of this word straddle two source words (out-of-range loads
            // read 0, and only feed bytes the mask drops).
            let base = b.bin(Type::I32, BinOp::IMul, id, four);
            let lo_off = b.bin(Type::I32, BinOp::IAdd, base, adjust);
            let hi_off = b.bin(Type::I32, BinOp::IAdd, lo_off, four);
            let lo_at = b.at(0, lo_off);
            let lo = b.load(Type::I32, lo_at, 4);
            let hi_at = b.at(0, hi_off);
            let hi = b.load(Type::I32, hi_at, 4);
            let bits = b.bin(Type::I32, BinOp::IMul, shift, eight);
            let low_part = b.bin(Type::I32, BinOp::UShr, lo, bits);
            let rest = b.bin(Type::I32, BinOp::ISub, thirty_two, bits);
            let high_part = b.bin(Type::I32, BinOp::Shl, hi, rest);
            let joined = b.bin(Type::I32, BinOp::Or, low_part, high_part);
            let aligned = b.cmp(CmpOp::IEq, shift, zero);
            let value = b.select(aligned, lo, joined);
            // Bytes [first, last) of this word are in the range.
            let is_first = b.cmp(CmpOp::IEq, id, zero);
            let first = b.select(is_first, head, zero);
            let left = b.bin(Type::I32, BinOp::ISub, end, base);
            let last = b.bin(Type::I32, BinOp::UMin, left, four);
            let first_bits = b.bin(Type::I32, BinOp::IMul, first, eight);
            let last_bits = b.bin(Type::I32, BinOp::IMul, last, eight);
            let below = b.low_mask(first_bits);
            let upto = b.low_mask(last_bits);
            let not_below = b.def(Type::I32, Op::Unary(crate::ir::UnOp::Not, below));
            let mask = b.bin(Type::I32, BinOp::And, upto, not_below);
            let keep = b.def(Type::I32, Op::Unary(crate::ir::UnOp::Not, mask));
            let dst_at = b.element(1, id, 4);
            let old = b.load(Type::I32, dst_at, 4);
            let kept = b.bin(Type::I32, BinOp::And, old, keep);
            let new = b.bin(Type::I32, BinOp::And, value, mask);
            let merged = b.bin(Type::I32, BinOp::Or, kept, new);
            let to = b.element(1, id, 4);
            b.store(to, merged, 4);
        });
    }

    fn fill(&mut self) {
        let count = self.push_constant(Type::I32, fill::COUNT);
        let value = self.push_constant(Type::I32, fill::VALUE);
        self.bounded(count, |b, id| {
            let to = b.element(0, id, 4);
            b.store(to, value, 4);
        });
    }

    fn fixup(&mut self) {
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            for axis in 0..3u32 {
                let local = b.push_constant(Type::I32, fixup::LOCAL_SIZE + 4 * axis);
                let index = b.i32(axis);
                let from = b.element(0, index, 4);
                let groups = b.load(Type::I32, from, 4);
                let threads = b.bin(Type::I32, BinOp::IMul, groups, local);
                let to = b.element(1, index, 4);
                b.store(to, threads, 4);
                let to = b.element(2, index, 4);
                b.store(to, groups, 4);
            }
        });
    }

    fn guarded_copy(&mut self) {
        let words = self.push_constant(Type::I32, guard::WORDS);
        let record = self.push_constant(Type::I32, guard::RECORD);
        let stride = self.push_constant(Type::I32, guard::STRIDE);
        let flags = self.push_constant(Type::I32, guard::FLAGS);
        self.bounded(words, |b, id| {
            let zero = b.i32(0);
            let r = b.bin(Type::I32, BinOp::UDiv, id, record);
            let first = b.bin(Type::I32, BinOp::IMul, r, record);
            let w = b.bin(Type::I32, BinOp::ISub, id, first);
            let row = b.bin(Type::I32, BinOp::IMul, r, stride);
            let from = b.bin(Type::I32, BinOp::IAdd, row, w);
            // Condition test: (word != 0) == !inverted, or pass when unused.
            let at = b.element(0, zero, 4);
            let cond = b.load(Type::I32, at, 4);
            let nonzero = b.cmp(CmpOp::INe, cond, zero);
            let set = b.i32(1);
            let clear = b.i32(0);
            let truth = b.select(nonzero, set, clear);
            let inverted_bit = b.and_const(flags, guard::INVERTED);
            let inverted = b.cmp(CmpOp::INe, inverted_bit, zero);
            let flipped = b.bin(Type::I32, BinOp::Xor, truth, set);
            let truth = b.select(inverted, flipped, truth);
            let use_cond_bit = b.and_const(flags, guard::USE_CONDITION);
            let use_cond = b.cmp(CmpOp::INe, use_cond_bit, zero);
            let cond_ok = b.select(use_cond, truth, set);
            // Count test: record number below the count word, or pass when unused.
            let at = b.element(1, zero, 4);
            let count = b.load(Type::I32, at, 4);
            let below = b.cmp(CmpOp::ULt, r, count);
            let below = b.select(below, set, clear);
            let use_count_bit = b.and_const(flags, guard::USE_COUNT);
            let use_count = b.cmp(CmpOp::INe, use_count_bit, zero);
            let count_ok = b.select(use_count, below, set);
            let ok = b.bin(Type::I32, BinOp::And, cond_ok, count_ok);
            let run = b.cmp(CmpOp::INe, ok, zero);
            let src = b.element(2, from, 4);
            let v = b.load(Type::I32, src, 4);
            let value = b.select(run, v, zero);
            let to = b.element(3, id, 4);
            b.store(to, value, 4);
        });
    }

    fn word(&mut self, binding: u32, index: u32) -> Value {
        let i = self.i32(index);
        let at = self.element(binding, i, 4);
        self.load(Type::I32, at, 4)
    }

    fn put_word(&mut self, binding: u32, index: u32, value: Value) {
        let i = self.i32(index);
        let at = self.element(binding, i, 4);
        self.store(at, value, 4);
    }

    fn xfb_draw_args(&mut self) {
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let skip = b.push_constant(Type::I32, xfb_args::SKIP);
            let divide = b.push_constant(Type::I32, xfb_args::DIVIDE);
            let vertices = b.push_constant(Type::I32, xfb_args::VERTICES);
            let indexed = b.push_constant(Type::I32, xfb_args::INDEXED);
            let zero = b.i32(0);
            let indexed = b.def(Type::BOOL, Op::Cmp(CmpOp::INe, indexed, zero));
            let w: Vec<Value> = (0..5).map(|i| b.word(0, i)).collect();
            let (count, instances) = (w[0], w[1]);
            let first_index = b.def(Type::I32, Op::Select(indexed, w[2], zero));
            let base = b.def(Type::I32, Op::Select(indexed, w[3], w[2]));
            let first_instance = b.def(Type::I32, Op::Select(indexed, w[4], w[3]));
            let enough = b.def(Type::BOOL, Op::Cmp(CmpOp::UGe, count, skip));
            let left = b.bin(Type::I32, BinOp::ISub, count, skip);
            let left = b.def(Type::I32, Op::Select(enough, left, zero));
            let prims = b.bin(Type::I32, BinOp::UDiv, left, divide);
            let verts = b.mul(prims, vertices);
            for (i, v) in [verts, instances, zero, first_instance]
                .into_iter()
                .enumerate()
            {
                b.put_word(1, i as u32, v);
            }
            for (i, v) in [
                (1, prims),
                (2, instances),
                (3, base),
                (7, first_index),
                (15, count),
            ] {
                b.put_word(2, i, v);
            }
        });
    }

    fn geometry_draw_args(&mut self) {
        use geometry_args::*;
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let skip = b.push_constant(Type::I32, SKIP);
            let divide = b.push_constant(Type::I32, DIVIDE);
            let indexed = b.push_constant(Type::I32, INDEXED);
            let invocations = b.push_constant(Type::I32, INVOCATIONS);
            let max_vertices = b.push_constant(Type::I32, MAX_VERTICES);
            let capacity = b.push_constant(Type::I32, CAPACITY);
            let zero = b.i32(0);
            let one = b.i32(1);
            let indexed = b.def(Type::BOOL, Op::Cmp(CmpOp::INe, indexed, zero));
            let w: Vec<Value> = (0..5).map(|i| b.word(0, i)).collect();
            let (count, instances) = (w[0], w[1]);
            let first_index = b.def(Type::I32, Op::Select(indexed, w[2], zero));
            let base = b.def(Type::I32, Op::Select(indexed, w[3], w[2]));
            let first_instance = b.def(Type::I32, Op::Select(indexed, w[4], w[3]));
            let enough = b.def(Type::BOOL, Op::Cmp(CmpOp::UGe, count, skip));
            let left = b.bin(Type::I32, BinOp::ISub, count, skip);
            let left = b.def(Type::I32, Op::Select(enough, left, zero));
            let prims = b.bin(Type::I32, BinOp::UDiv, left, divide);
            let fit = b.bin(Type::I32, BinOp::UDiv, capacity, invocations);
            let prims = b.bin(Type::I32, BinOp::UMin, prims, fit);
            let per_instance = b.mul(prims, invocations);
            let some = b.bin(Type::I32, BinOp::UMax, per_instance, one);
            let fit = b.bin(Type::I32, BinOp::UDiv, capacity, some);
            let instances = b.bin(Type::I32, BinOp::UMin, instances, fit);
            let total = b.mul(per_instance, instances);
            let slots = b.mul(total, max_vertices);
            let indices = b.add(slots, slots);
            for (i, v) in [
                per_instance,
                instances,
                zero,
                first_instance,
                indices,
                one,
                zero,
                zero,
                zero,
            ]
            .into_iter()
            .enumerate()
            {
                b.put_word(1, i as u32, v);
            }
            for (i, v) in [
                (1, prims),
                (2, instances),
                (3, base),
                (7, first_index),
                (15, count),
            ] {
                b.put_word(2, i, v);
            }
        });
    }

    fn xfb_byte_count(&mut self) {
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let offset = b.push_constant(Type::I32, xfb_byte_count::OFFSET);
            let stride = b.push_constant(Type::I32, xfb_byte_count::STRIDE);
            let counter = b.word(0, 0);
            let zero = b.i32(0);
            let enough = b.def(Type::BOOL, Op::Cmp(CmpOp::UGe, counter, offset));
            let bytes = b.bin(Type::I32, BinOp::ISub, counter, offset);
            let bytes = b.def(Type::I32, Op::Select(enough, bytes, zero));
            let count = b.bin(Type::I32, BinOp::UDiv, bytes, stride);
            b.put_word(1, 0, count);
        });
    }

    fn primitives_generated(&mut self) {
        use primgen::*;
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let skip = b.push_constant(Type::I32, SKIP);
            let divide = b.push_constant(Type::I32, DIVIDE);
            let indexed = b.push_constant(Type::I32, INDEXED);
            let list = b.push_constant(Type::I32, LIST);
            let restart = b.push_constant(Type::I32, RESTART);
            let index_bytes = b.push_constant(Type::I32, INDEX_BYTES);
            let index_offset = b.push_constant(Type::I32, INDEX_OFFSET);
            let vertices = b.push_constant(Type::I32, VERTICES);
            let zero = b.i32(0);
            let one = b.i32(1);
            let indexed = b.cmp(CmpOp::INe, indexed, zero);
            let list = b.cmp(CmpOp::INe, list, zero);
            let count = b.word(0, 0);
            let instances = b.word(0, 1);
            let third = b.word(0, 2);
            let first_index = b.select(indexed, third, zero);
            let enough = b.cmp(CmpOp::UGe, count, skip);
            let left = b.bin(Type::I32, BinOp::ISub, count, skip);
            let left = b.select(enough, left, zero);
            let plain = b.bin(Type::I32, BinOp::UDiv, left, divide);
            let prims = b.shader.new_var(Type::I32);
            b.effect(Op::StoreVar(prims, plain));
            // Vertices: all of them, or with restart those that are not restart indices.
            let verts = b.shader.new_var(Type::I32);
            b.effect(Op::StoreVar(verts, count));
            let walk = b.cmp(CmpOp::INe, restart, zero);
            b.begin_if();
            {
                let run = b.shader.new_var(Type::I32);
                let i = b.shader.new_var(Type::I32);
                for v in [prims, run, i, verts] {
                    b.effect(Op::StoreVar(v, zero));
                }
                b.begin_block();
                let at = b.def(Type::I32, Op::LoadVar(i));
                let done = b.cmp(CmpOp::UGe, at, count);
                b.begin_if();
                b.flush();
                if let Some(top) = b.stack.last_mut() {
                    top.push(Node::Break);
                }
                b.end_if(done);
                let pos = b.add(first_index, at);
                let pos_bytes = b.mul(pos, index_bytes);
                let byte = b.add(index_offset, pos_bytes);
                let aligned = b.and_const(byte, !3);
                let word_at = b.at(1, aligned);
                let word = b.load(Type::I32, word_at, 4);
                let in_word = b.and_const(byte, 3);
                let three = b.i32(3);
                let shift = b.bin(Type::I32, BinOp::Shl, in_word, three);
                let moved = b.bin(Type::I32, BinOp::UShr, word, shift);
                let index = b.bin(Type::I32, BinOp::And, moved, restart);
                let is_restart = b.cmp(CmpOp::IEq, index, restart);
                let before = b.def(Type::I32, Op::LoadVar(run));
                let longer = b.add(before, one);
                let run_now = b.select(is_restart, zero, longer);
                let list_end = b.cmp(CmpOp::IEq, run_now, divide);
                let strip_end = b.cmp(CmpOp::UGt, run_now, skip);
                // Strips whose primitives are DIVIDE vertices apart (triangle strips with
                // adjacency: 2) end one at every DIVIDE-th vertex past the first SKIP.
                let past = b.bin(Type::I32, BinOp::ISub, run_now, skip);
                let phase = b.bin(Type::I32, BinOp::UMod, past, divide);
                let on_step = b.cmp(CmpOp::IEq, phase, zero);
                let list_step = b.select(list_end, one, zero);
                let strip_step = b.select(strip_end, one, zero);
                let strip_step = b.select(on_step, strip_step, zero);
                let step = b.select(list, list_step, strip_step);
                // A list starts its next primitive after each one it completes.
                let list_reset = b.select(list, list_step, zero);
                let list_reset = b.cmp(CmpOp::INe, list_reset, zero);
                let run_next = b.select(list_reset, zero, run_now);
                b.effect(Op::StoreVar(run, run_next));
                let counted = b.def(Type::I32, Op::LoadVar(prims));
                let counted = b.add(counted, step);
                b.effect(Op::StoreVar(prims, counted));
                let vertex = b.select(is_restart, zero, one);
                let seen = b.def(Type::I32, Op::LoadVar(verts));
                let seen = b.add(seen, vertex);
                b.effect(Op::StoreVar(verts, seen));
                let next = b.add(at, one);
                b.effect(Op::StoreVar(i, next));
                b.end_loop();
            }
            b.end_if(walk);
            let per_prims = b.def(Type::I32, Op::LoadVar(prims));
            let per_verts = b.def(Type::I32, Op::LoadVar(verts));
            let vertices = b.cmp(CmpOp::INe, vertices, zero);
            let per_instance = b.select(vertices, per_verts, per_prims);
            b.add_product(2, per_instance, instances);
        });
    }

    fn dispatch_invocations(&mut self) {
        use dispatch_invocations::*;
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let local = b.push_constant(Type::I32, LOCAL);
            let x = b.word(0, 0);
            let y = b.word(0, 1);
            let z = b.word(0, 2);
            // A 64-bit product, one u32 factor at a time (the limits keep it below 2^64).
            let mut low = x;
            let mut high = b.i32(0);
            for factor in [y, z, local] {
                let carry = b.bin(Type::I32, BinOp::UMulHigh, low, factor);
                let high_part = b.mul(high, factor);
                high = b.add(high_part, carry);
                low = b.mul(low, factor);
            }
            b.add_u64(1, low, high);
        });
    }

    fn drain_counter(&mut self) {
        let one = self.i32(1);
        self.bounded(one, |b, _| {
            let low = b.word(0, 0);
            let high = b.word(0, 1);
            b.add_u64(1, low, high);
            let zero = b.i32(0);
            b.put_word(0, 0, zero);
            b.put_word(0, 1, zero);
        });
    }

    /// Adds the 64-bit product `a * c` of two u32 to the u64 at the start of `binding`.
    fn add_product(&mut self, binding: u32, a: Value, c: Value) {
        let low = self.mul(a, c);
        let high = self.bin(Type::I32, BinOp::UMulHigh, a, c);
        self.add_u64(binding, low, high);
    }

    /// Adds the u64 (`low`, `high`) to the u64 at the start of `binding`, carrying into the
    /// high word.
    fn add_u64(&mut self, binding: u32, low: Value, high: Value) {
        let zero = self.i32(0);
        let one = self.i32(1);
        let old_low = self.word(binding, 0);
        let old_high = self.word(binding, 1);
        let low_sum = self.add(old_low, low);
        let carried = self.cmp(CmpOp::ULt, low_sum, low);
        let carry = self.select(carried, one, zero);
        let high_sum = self.add(old_high, high);
        let high_sum = self.add(high_sum, carry);
        self.put_word(binding, 0, low_sum);
        self.put_word(binding, 1, high_sum);
    }

    /// Opens the body of a loop; close it with [`end_loop`].
    fn begin_block(&mut self) {
        self.flush();
        self.stack.push(Vec::new());
    }

    fn end_loop(&mut self) {
        self.flush();
        let body = self.stack.pop().unwrap_or_default();
        if let Some(top) = self.stack.last_mut() {
            top.push(Node::Loop { body });
        }
    }

    fn un(&mut self, op: crate::ir::UnOp, a: Value) -> Value {
        self.def(Type::I32, Op::Unary(op, a))
    }

    /// `v` with `mask` and shift steps applied: the bit spreading and gathering networks.
    fn and_const(&mut self, v: Value, mask: u32) -> Value {
        let m = self.i32(mask);
        self.bin(Type::I32, BinOp::And, v, m)
    }

    /// The low 16 bits of `v` moved to the even bit positions.
    fn spread_bits(&mut self, v: Value) -> Value {
        let mut v = self.and_const(v, 0xffff);
        for (shift, mask) in [
            (8, 0x00ff_00ff),
            (4, 0x0f0f_0f0f),
            (2, 0x3333_3333),
            (1, 0x5555_5555),
        ] {
            let s = self.i32(shift);
            let moved = self.bin(Type::I32, BinOp::Shl, v, s);
            let both = self.bin(Type::I32, BinOp::Or, v, moved);
            v = self.and_const(both, mask);
        }
        v
    }

    fn add(&mut self, a: Value, c: Value) -> Value {
        self.bin(Type::I32, BinOp::IAdd, a, c)
    }

    fn mul(&mut self, a: Value, c: Value) -> Value {
        self.bin(Type::I32, BinOp::IMul, a, c)
    }

    /// The byte offset of texel (`x`, `y`, `z`) of a surface whose push constants start at
    /// `base_pc` (the `DST_*` or `SRC_*` group of [`image`]), `log2_bpp` bytes per texel.
    fn texel_offset(
        &mut self,
        twiddled: bool,
        base_pc: u32,
        x: Value,
        y: Value,
        z: Value,
        log2_bpp: u32,
    ) -> Value {
        use image::*;
        let field = |b: &mut Builder, at: u32| b.push_constant(Type::I32, base_pc + at);
        let base = field(self, BASE);
        let slice = field(self, SLICE);
        let origin = [X0, Y0, Z0].map(|o| field(self, o));
        let [x, y, z] =
            [(x, origin[0]), (y, origin[1]), (z, origin[2])].map(|(v, o)| self.add(v, o));
        let slice_at = self.mul(z, slice);
        let start = self.add(base, slice_at);
        if twiddled {
            let tw = field(self, TILE_W);
            let th = field(self, TILE_H);
            let tiles_per_row = field(self, TILES_PER_ROW);
            let ty = self.bin(Type::I32, BinOp::UShr, y, th);
            let tx = self.bin(Type::I32, BinOp::UShr, x, tw);
            let row = self.mul(ty, tiles_per_row);
            let tile = self.add(row, tx);
            let tile_bits = self.add(tw, th);
            let xm = self.low_mask(tw);
            let ym = self.low_mask(th);
            let ix = self.bin(Type::I32, BinOp::And, x, xm);
            let iy = self.bin(Type::I32, BinOp::And, y, ym);
            let sx = self.spread_bits(ix);
            let sy = self.spread_bits(iy);
            let one = self.i32(1);
            let sy1 = self.bin(Type::I32, BinOp::Shl, sy, one);
            let inner = self.bin(Type::I32, BinOp::Or, sx, sy1);
            let tile_start = self.bin(Type::I32, BinOp::Shl, tile, tile_bits);
            let element = self.add(tile_start, inner);
            let shift = self.i32(log2_bpp);
            let element_at = self.bin(Type::I32, BinOp::Shl, element, shift);
            self.add(start, element_at)
        } else {
            let row = field(self, ROW);
            let xpitch = field(self, XPITCH);
            let row_at = self.mul(y, row);
            let x_at = self.mul(x, xpitch);
            let a = self.add(start, row_at);
            self.add(a, x_at)
        }
    }

    fn image_copy(&mut self, src_twiddled: bool, dst_twiddled: bool, log2_bpp: u32) {
        use image::*;
        let width = self.push_constant(Type::I32, WIDTH);
        let x = self.global_id();
        let y = self.def(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(1)));
        let z = self.def(Type::I32, Op::SysVal(SysVal::GlobalInvocationId(2)));
        let inside = self.cmp(CmpOp::ULt, x, width);
        self.begin_if();
        let src = self.texel_offset(src_twiddled, SRC, x, y, z, log2_bpp);
        let dst = self.texel_offset(dst_twiddled, DST, x, y, z, log2_bpp);
        if log2_bpp >= 2 {
            // Whole words: the texel's words move one by one.
            for w in 0..(1u32 << (log2_bpp - 2)) {
                let off = self.i32(4 * w);
                let s = self.add(src, off);
                let from = self.at(0, s);
                let v = self.load(Type::I32, from, 4);
                let d = self.add(dst, off);
                let to = self.at(1, d);
                self.store(to, v, 4);
            }
        } else {
            // A texel of 1 or 2 bytes shares its destination word with other invocations'
            // texels: it is merged in with two atomics that touch only its own bits.
            let three = self.i32(3);
            let eight = self.i32(8);
            let not3 = self.un(crate::ir::UnOp::Not, three);
            let texel_mask = self.i32((1u32 << (8 << log2_bpp)) - 1);
            let src_word = self.bin(Type::I32, BinOp::And, src, not3);
            let from = self.at(0, src_word);
            let word = self.load(Type::I32, from, 4);
            let src_lane = self.bin(Type::I32, BinOp::And, src, three);
            let src_shift = self.mul(src_lane, eight);
            let shifted = self.bin(Type::I32, BinOp::UShr, word, src_shift);
            let texel = self.bin(Type::I32, BinOp::And, shifted, texel_mask);
            let dst_word = self.bin(Type::I32, BinOp::And, dst, not3);
            let dst_lane = self.bin(Type::I32, BinOp::And, dst, three);
            let dst_shift = self.mul(dst_lane, eight);
            let mask = self.bin(Type::I32, BinOp::Shl, texel_mask, dst_shift);
            let keep = self.un(crate::ir::UnOp::Not, mask);
            let placed = self.bin(Type::I32, BinOp::Shl, texel, dst_shift);
            for (op, value) in [
                (crate::ir::AtomicOp::And, keep),
                (crate::ir::AtomicOp::Or, placed),
            ] {
                let to = self.at(1, dst_word);
                self.def(
                    Type::I32,
                    Op::Atomic {
                        space: Space::Global,
                        op,
                        addr: to,
                        value,
                        cmp: None,
                    },
                );
            }
        }
        self.end_if(inside);
    }

    fn query_copy(&mut self, wide: bool, availability: bool, partial: bool) {
        let stride = self.push_constant(Type::I32, query::STRIDE);
        let count = self.push_constant(Type::I32, query::COUNT);
        self.bounded(count, |b, id| {
            // 32-bit halves of the u64 timestamp.
            let from = b.element(0, id, 8);
            let lo = b.load(Type::I32, from, 4);
            let four = b.i32(4);
            let eight = b.i32(8);
            let base = b.bin(Type::I32, BinOp::IMul, id, eight);
            let hi_off = b.bin(Type::I32, BinOp::IAdd, base, four);
            let hi_at = b.at(0, hi_off);
            let hi = b.load(Type::I32, hi_at, 4);
            let zero = b.i32(0);
            let any = b.bin(Type::I32, BinOp::Or, lo, hi);
            let available = b.cmp(CmpOp::INe, any, zero);
            let offset = b.bin(Type::I32, BinOp::IMul, id, stride);
            let value_bytes = if wide { 8 } else { 4 };
            if !partial {
                b.begin_if();
            }
            let to = b.at(1, offset);
            b.store(to, lo, 4);
            if wide {
                let off = b.bin(Type::I32, BinOp::IAdd, offset, four);
                let to = b.at(1, off);
                b.store(to, hi, 4);
            }
            if !partial {
                b.end_if(available);
            }
            if availability {
                let one = b.i32(1);
                let flag = b.select(available, one, zero);
                let size = b.i32(value_bytes);
                let off = b.bin(Type::I32, BinOp::IAdd, offset, size);
                let to = b.at(1, off);
                b.store(to, flag, 4);
                if wide {
                    let off = b.bin(Type::I32, BinOp::IAdd, off, four);
                    let to = b.at(1, off);
                    b.store(to, zero, 4);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_stores(nodes: &[Node]) -> usize {
        nodes
            .iter()
            .map(|n| match n {
                Node::Block(insts) => insts
                    .iter()
                    .filter(|i| matches!(i.op, Op::Store { .. }))
                    .count(),
                Node::If {
                    then_body,
                    else_body,
                    ..
                } => count_stores(then_body) + count_stores(else_body),
                Node::Loop { body } => count_stores(body),
                _ => 0,
            })
            .sum()
    }

    /// Every value is defined once and typed.
    fn check_ssa(s: &Shader) {
        let mut seen = std::collections::HashSet::new();
        fn walk(nodes: &[Node], seen: &mut std::collections::HashSet<u32>) {
            for n in nodes {
                match n {
                    Node::Block(insts) => {
                        for i in insts {
                            if let Some(d) = i.dst {
                                assert!(seen.insert(d.0), "value {} defined twice", d.0);
                            }
                        }
                    }
                    Node::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        walk(then_body, seen);
                        walk(else_body, seen);
                    }
                    Node::Loop { body } => walk(body, seen),
                    _ => {}
                }
            }
        }
        walk(&s.body, &mut seen);
        assert_eq!(seen.len(), s.value_types.len());
    }

    #[test]
    fn shaders_have_the_expected_stores() {
        let cases = [
            (Meta::CopyWords, 1),
            (Meta::CopyBytes, 1),
            (Meta::Fill, 1),
            (Meta::DispatchFixup, 6),
            (Meta::GuardedCopy, 1),
            (Meta::XfbDrawArgs, 9),
            (Meta::XfbByteCount, 1),
            (Meta::PrimitivesGenerated, 2),
            (Meta::GeometryDrawArgs, 14),
            (Meta::DispatchInvocations, 2),
            (Meta::DrainCounter, 4),
            (
                Meta::QueryCopy {
                    wide: true,
                    availability: true,
                    partial: false,
                },
                4,
            ),
            (
                Meta::QueryCopy {
                    wide: false,
                    availability: false,
                    partial: true,
                },
                1,
            ),
            (
                Meta::ImageCopy {
                    src_twiddled: true,
                    dst_twiddled: false,
                    log2_bpp: 2,
                },
                1,
            ),
            (
                Meta::ImageCopy {
                    src_twiddled: false,
                    dst_twiddled: true,
                    log2_bpp: 4,
                },
                4,
            ),
            (
                Meta::ImageCopy {
                    src_twiddled: false,
                    dst_twiddled: true,
                    log2_bpp: 0,
                },
                0,
            ),
        ];
        for (kind, stores) in cases {
            let s = build(kind);
            assert_eq!(count_stores(&s.body), stores, "{kind:?}");
            assert_eq!(s.local_size, [LOCAL_SIZE, 1, 1]);
            assert!(matches!(s.body.last(), Some(Node::Return)));
            check_ssa(&s);
        }
    }

    #[test]
    fn image_copies_compile() {
        for src_twiddled in [false, true] {
            for dst_twiddled in [false, true] {
                for log2_bpp in 0..=6 {
                    let kind = Meta::ImageCopy {
                        src_twiddled,
                        dst_twiddled,
                        log2_bpp,
                    };
                    compile(kind, Target::G13).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn primitives_generated_compiles() {
        compile(Meta::PrimitivesGenerated, Target::G13).unwrap();
        compile(Meta::DispatchInvocations, Target::G13).unwrap();
        compile(Meta::DrainCounter, Target::G13).unwrap();
    }

    #[test]
    fn geometry_draw_args_compiles() {
        compile(Meta::GeometryDrawArgs, Target::G13).unwrap();
    }

    #[test]
    fn push_constants_fit_the_root_table() {
        for kind in [
            Meta::ImageCopy {
                src_twiddled: true,
                dst_twiddled: true,
                log2_bpp: 6,
            },
            Meta::CopyWords,
            Meta::Fill,
            Meta::DispatchFixup,
            Meta::QueryCopy {
                wide: true,
                availability: true,
                partial: true,
            },
        ] {
            assert!(kind.push_constant_size() <= crate::abi::MAX_PUSH_CONSTANTS_SIZE);
        }
    }
}
