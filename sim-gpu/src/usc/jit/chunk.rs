//! Eight lanes of a SIMD group as host vectors, and the register rows they hold.
//!
//! A region runs in four chunks of eight lanes. Within a chunk a register row (a 16-bit half
//! of all eight lanes) is one `I16X8` value and a 32-bit register is a pair of `I32X4`
//! values (lanes 0-3 and 4-7); rows are loaded from the register file when first read and
//! stored back when the chunk ends, so the instructions between work on host registers.
//!
//! A write keeps only the active lanes' new values, as the interpreter's `write_lanes`. While
//! the exec mask stays the same, a 32-bit register's new value is kept unblended, with the
//! value it had before: inactive lanes then hold junk that only inactive lanes read. The blend
//! happens once, before the mask changes (exec-mask instructions read every lane) and before
//! the rows are stored.

use cranelift_codegen::ir::{
    types::*, Block, BlockArg, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlot,
    Value,
};
use cranelift_frontend::FunctionBuilder;
use std::collections::{BTreeMap, BTreeSet};

/// Lanes per chunk.
pub const CHUNK_LANES: usize = 8;
/// Bytes of one register row (32 lanes of 16 bits) in the register file.
const ROW_BYTES: i32 = 64;

/// One 32-bit register slot (halves 2k and 2k+1) as the chunk knows it.
#[derive(Default, Clone, Copy)]
struct Slot {
    w32: Option<[Value; 2]>,
    lo: Option<Value>,
    hi: Option<Value>,
    lo_dirty: bool,
    hi_dirty: bool,
    /// When `w32` is unblended: the register's value before this mask's first write to it.
    old: Option<[Value; 2]>,
    /// `w32` holds no denormal in an active lane (a float result or an integer's float).
    flushed: bool,
    /// A float result not yet made canonical (no flush, no default NaN; [`super::daz`]), in
    /// place of `w32`, `lo` and `hi`, which [`Chunk::materialize`] makes from it.
    raw: Option<[Value; 2]>,
}

/// The state of one chunk while a region's instructions are emitted into it.
pub struct Chunk<'a, 'b> {
    pub b: &'a mut FunctionBuilder<'b>,
    /// Address of this chunk's lane 0 in row 0 of the register file.
    regs: Value,
    /// Address of the uniform file.
    uni: Value,
    /// `0xffff` in lanes that exist, per lane of the chunk.
    pub alive: Value,
    /// `0xffff` in active lanes.
    pub m16: Value,
    m32: Option<[Value; 2]>,
    /// The chunk's exec bits (I32, bit l = lane l of the chunk).
    pub bits: Value,
    /// Instructions issued since `bits` last changed, not yet counted.
    pending: u32,
    /// Lane-instructions counted so far in this chunk (I64).
    pub count: Value,
    slots: BTreeMap<u16, Slot>,
    /// Slots read or written as 16-bit rows (a loop carries these as rows, [`Carry`]).
    used16: BTreeSet<u16>,
    /// Uniforms read so far, splat (`I32X4`).
    uniforms: BTreeMap<UniformRead, Value>,
    /// Uniforms splat into stack slots before a loop ([`Chunk::spilled_uniforms`]).
    spilled: BTreeMap<UniformRead, (StackSlot, i32)>,
    /// `I32X4` values whose lanes all have the top bit clear (masked by a small constant or
    /// shifted right), so an unsigned conversion of them may use the signed one.
    nonneg: BTreeSet<Value>,
    /// Set for a chunk emitted on the promise that all eight lanes exist and are active, and
    /// stay active ([`Chunk::new_full`]): where the pass goes if an exec-mask instruction
    /// would break the promise.
    bail: Option<(Block, Vec<BlockArg>)>,
    /// The constant a full chunk's `r0l` was seeded with or last set to.
    zero16: Option<Value>,
    /// The region's context pointer and the chunk's first lane, for instructions that read
    /// the fragment state it points at ([`Chunk::with_fragment`]).
    pub fragment: Option<(Value, usize)>,
    /// Uniform-address loads emitted so far: the next one reads its words from this slot of
    /// [`super::Ctx::preloaded`]. Every chunk emits the region's instructions in the same
    /// order, so slot k is the region's k-th such load in each.
    pub preloads: usize,
    /// Whether float arithmetic may read results not yet made canonical ([`super::daz`]).
    pub lazy_floats: bool,
}

/// How a loop region carries a register slot from one pass to the next in host registers:
/// as its 32-bit value when the region reads and writes it only whole, else as its two rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carry {
    W32(u16),
    Rows(u16),
}

impl Carry {
    fn slot(self) -> u16 {
        match self {
            Carry::W32(s) | Carry::Rows(s) => s,
        }
    }

    /// The slot's value loaded from the register file at `regs` (a chunk's lane 0).
    pub fn load(self, b: &mut FunctionBuilder, regs: Value) -> [Value; 2] {
        let row = |b: &mut FunctionBuilder, h: u16| {
            b.ins().load(I16X8, flags(), regs, i32::from(h) * ROW_BYTES)
        };
        let s = self.slot();
        let (lo, hi) = (row(b, 2 * s), row(b, 2 * s + 1));
        match self {
            Carry::W32(_) => join(b, lo, hi),
            Carry::Rows(_) => [lo, hi],
        }
    }

    /// Stores the slot's carried value `v` to the register file at `regs`.
    pub fn store(self, b: &mut FunctionBuilder, regs: Value, v: [Value; 2]) {
        let (lo, hi) = match self {
            Carry::W32(_) => split(b, v),
            Carry::Rows(_) => (v[0], v[1]),
        };
        let s = self.slot();
        b.ins()
            .store(flags(), lo, regs, i32::from(2 * s) * ROW_BYTES);
        b.ins()
            .store(flags(), hi, regs, i32::from(2 * s + 1) * ROW_BYTES);
    }
}

fn flags() -> MemFlagsData {
    // Register rows are 2-byte aligned only: no `aligned` flag, so no aligned-only folding.
    MemFlagsData::new().with_notrap()
}

/// How an instruction reads a uniform: its first half, widened to 32 bits in every lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum UniformRead {
    W32(u16),
    Zext16(u16),
    Sext16(u16),
}

impl UniformRead {
    /// Loads it from the uniform file at `uni`, as an `I32X4` splat. No region writes the
    /// uniform file (uniform stores are interpreted), so the load is pure.
    pub fn load(self, b: &mut FunctionBuilder, uni: Value) -> Value {
        let f = flags().with_readonly().with_can_move();
        let v = match self {
            UniformRead::W32(h) => b.ins().load(I32, f, uni, i32::from(h) * 2),
            UniformRead::Zext16(h) => b.ins().uload16(I32, f, uni, i32::from(h) * 2),
            UniformRead::Sext16(h) => b.ins().sload16(I32, f, uni, i32::from(h) * 2),
        };
        b.ins().splat(I32X4, v)
    }
}

impl<'a, 'b> Chunk<'a, 'b> {
    /// A chunk whose exec bits are `bits` (I32) and alive lanes `alive` (I16X8).
    pub fn new(
        b: &'a mut FunctionBuilder<'b>,
        regs: Value,
        uni: Value,
        alive: Value,
        bits: Value,
    ) -> Chunk<'a, 'b> {
        let m16 = mask_of_bits(b, bits);
        let count = b.ins().iconst(I64, 0);
        Chunk {
            b,
            regs,
            uni,
            alive,
            m16,
            m32: None,
            bits,
            pending: 0,
            count,
            slots: BTreeMap::new(),
            used16: BTreeSet::new(),
            uniforms: BTreeMap::new(),
            spilled: BTreeMap::new(),
            nonneg: BTreeSet::new(),
            bail: None,
            zero16: None,
            fragment: None,
            preloads: 0,
            lazy_floats: super::daz::lazy_floats(),
        }
    }

    /// A chunk whose eight lanes all exist and are active, with every lane's `r0l` zero (the
    /// caller checked both). Writes need no blend and the exec mask no update; an exec-mask
    /// instruction only checks that every lane stays active ([`Chunk::stay_or_bail`]) and
    /// branches to `bail` if not. Nothing a region does outside the register file happens
    /// before its end, so `bail` (given `args`, the pass's inputs) can run the pass again
    /// the general way.
    pub fn new_full(
        b: &'a mut FunctionBuilder<'b>,
        regs: Value,
        uni: Value,
        bail: Block,
        args: Vec<BlockArg>,
    ) -> Chunk<'a, 'b> {
        let all = b.ins().iconst(I16, 0xffff);
        let all = b.ins().splat(I16X8, all);
        let bits = b.ins().iconst(I32, 0xff);
        let mut c = Chunk::new(b, regs, uni, all, bits);
        c.m16 = all;
        c.bail = Some((bail, args));
        c
    }

    /// Lets the chunk read the fragment state of the region context `ctx` (`jit::Ctx`); the
    /// chunk holds lanes `lane0..lane0 + 8`.
    pub fn with_fragment(mut self, ctx: Value, lane0: usize) -> Self {
        self.fragment = Some((ctx, lane0));
        self
    }

    /// As [`Chunk::with_fragment`], for a chunk that may not read fragment state.
    pub fn with_fragment_of(mut self, fragment: Option<(Value, usize)>) -> Self {
        self.fragment = fragment;
        self
    }

    /// Whether the chunk was made by [`Chunk::new_full`].
    pub fn is_full(&self) -> bool {
        self.bail.is_some()
    }

    /// In a full chunk, whether `r0l` still holds the zero it was seeded with.
    pub fn r0l_known_zero(&self) -> bool {
        self.is_full()
            && self
                .slots
                .get(&0)
                .and_then(|s| s.lo)
                .is_some_and(|v| self.zero16 == Some(v))
    }

    /// In a full chunk after an exec-mask instruction kept every lane active: `r0l` is zero.
    pub fn set_r0l_zero(&mut self) {
        let z = self.const16(0);
        let m = self.m16;
        self.write16_masked(0, z, m);
        self.zero16 = Some(z);
    }

    /// In a full chunk, at an exec-mask instruction: continues if `stay` (I8: every lane
    /// remains active) is true, else leaves for the bail block.
    pub fn stay_or_bail(&mut self, stay: Value) {
        let Some((bail, args)) = &self.bail else {
            return;
        };
        let cont = self.b.create_block();
        self.b.ins().brif(stay, cont, &[], *bail, args);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// How a loop over the instructions emitted so far should carry each slot they touched.
    pub fn carries(&self) -> Vec<Carry> {
        self.slots
            .keys()
            .map(|&s| {
                if self.used16.contains(&s) {
                    Carry::Rows(s)
                } else {
                    Carry::W32(s)
                }
            })
            .collect()
    }

    /// Starts the chunk with the values a loop carried in (as [`Chunk::carried`] gave them).
    /// In a full chunk `r0l` is known to be zero, and a carried `r0l` is seeded as that
    /// constant.
    pub fn seed(&mut self, carries: &[Carry], values: &[Value]) {
        for (c, v) in carries.iter().zip(values.chunks(2)) {
            let slot = match c {
                Carry::W32(_) => Slot {
                    w32: Some([v[0], v[1]]),
                    ..Slot::default()
                },
                Carry::Rows(0) if self.is_full() => {
                    let z = self.const16(0);
                    self.zero16 = Some(z);
                    Slot {
                        lo: Some(z),
                        hi: Some(v[1]),
                        ..Slot::default()
                    }
                }
                Carry::Rows(_) => Slot {
                    lo: Some(v[0]),
                    hi: Some(v[1]),
                    ..Slot::default()
                },
            };
            self.slots.insert(c.slot(), slot);
        }
    }

    /// Records that a carried 32-bit slot holds no denormal in any lane.
    pub fn mark_flushed(&mut self, carry: Carry) {
        if let Carry::W32(s) = carry {
            if let Some(slot) = self.slots.get_mut(&s) {
                slot.flushed = true;
            }
        }
    }

    /// Whether a carried 32-bit slot's value holds no denormal in an active lane.
    pub fn is_flushed(&self, carry: Carry) -> bool {
        match carry {
            Carry::W32(s) => self.slots.get(&s).is_some_and(|slot| slot.flushed),
            Carry::Rows(_) => false,
        }
    }

    /// Settles the chunk and returns its lane count, exec bits and the values of `carries`
    /// (two per slot), to go round the loop in host registers instead of through the file.
    pub fn carried(&mut self, carries: &[Carry]) -> (Value, Value, Vec<Value>) {
        self.settle();
        self.settle_count();
        let mut out = Vec::with_capacity(2 * carries.len());
        for &c in carries {
            match c {
                Carry::W32(s) => out.extend(self.reg32(2 * s)),
                Carry::Rows(s) => {
                    let lo = self.row_any(2 * s);
                    let hi = self.row_any(2 * s + 1);
                    out.extend([lo, hi]);
                }
            }
        }
        (self.count, self.bits, out)
    }

    /// One more instruction issued under the current mask.
    pub fn issue(&mut self) {
        self.pending += 1;
    }

    fn settle_count(&mut self) {
        if self.pending > 0 {
            let n = self.b.ins().popcnt(self.bits);
            let n = self.b.ins().uextend(I64, n);
            let n = self.b.ins().imul_imm_s(n, i64::from(self.pending));
            self.count = self.b.ins().iadd(self.count, n);
            self.pending = 0;
        }
    }

    /// The exec mask becomes `(r0l == 0) & alive`, as after an exec-mask instruction (which
    /// settled the writes before it read its operands).
    pub fn update_exec(&mut self) {
        self.settle_count();
        let r0l = self.row(0);
        let zero = self.const16(0);
        let zero = self
            .b
            .ins()
            .icmp(cranelift_codegen::ir::condcodes::IntCC::Equal, r0l, zero);
        self.m16 = self.b.ins().band(zero, self.alive);
        self.m32 = None;
        let bits = self.b.ins().vhigh_bits(I32, self.m16);
        self.bits = bits;
    }

    /// Blends every unblended write with the value before it, under the current mask.
    pub fn settle(&mut self) {
        let open: Vec<u16> = self
            .slots
            .iter()
            .filter(|(_, s)| s.old.is_some())
            .map(|(&k, _)| k)
            .collect();
        if open.is_empty() {
            return;
        }
        let m = self.m32();
        for k in open {
            self.materialize(k);
            let s = self.slots[&k];
            let (Some(new), Some(old)) = (s.w32, s.old) else {
                continue;
            };
            let w = [
                self.b.ins().bitselect(m[0], new[0], old[0]),
                self.b.ins().bitselect(m[1], new[1], old[1]),
            ];
            self.slots.insert(
                k,
                Slot {
                    w32: Some(w),
                    lo: None,
                    hi: None,
                    lo_dirty: true,
                    hi_dirty: true,
                    old: None,
                    flushed: false,
                    raw: None,
                },
            );
        }
    }

    /// Settles the count and stores every written row. Returns the chunk's lane count.
    pub fn finish(mut self) -> (Value, Value) {
        self.settle();
        self.settle_count();
        let slots: Vec<(u16, Slot)> = self.slots.iter().map(|(&k, &v)| (k, v)).collect();
        for (s, slot) in slots {
            if slot.lo_dirty {
                let v = self.row_any(2 * s);
                self.store_row(2 * s, v);
            }
            if slot.hi_dirty {
                let v = self.row_any(2 * s + 1);
                self.store_row(2 * s + 1, v);
            }
        }
        (self.count, self.bits)
    }

    fn store_row(&mut self, half: u16, v: Value) {
        self.b
            .ins()
            .store(flags(), v, self.regs, i32::from(half) * ROW_BYTES);
    }

    /// The exec mask as two `I32X4` lane masks.
    pub fn m32(&mut self) -> [Value; 2] {
        if let Some(m) = self.m32 {
            return m;
        }
        // Compared again rather than only widened, so the back end sees a lane mask and
        // blends with one instruction.
        let wide = [
            self.b.ins().swiden_low(self.m16),
            self.b.ins().swiden_high(self.m16),
        ];
        let zero = self.const32(0)[0];
        let ne = cranelift_codegen::ir::condcodes::IntCC::NotEqual;
        let m = wide.map(|w| self.b.ins().icmp(ne, w, zero));
        self.m32 = Some(m);
        m
    }

    /// Register row `half` (I16X8), as a 16-bit operand.
    pub fn row(&mut self, half: u16) -> Value {
        self.used16.insert(half / 2);
        self.row_any(half)
    }

    fn row_any(&mut self, half: u16) -> Value {
        self.materialize(half / 2);
        let s = self.slots.get(&(half / 2)).copied().unwrap_or_default();
        let cached = if half.is_multiple_of(2) { s.lo } else { s.hi };
        if let Some(v) = cached {
            return v;
        }
        let v = match s.w32 {
            Some(w) => {
                let (lo, hi) = split(self.b, w);
                if half.is_multiple_of(2) {
                    lo
                } else {
                    hi
                }
            }
            None => self
                .b
                .ins()
                .load(I16X8, flags(), self.regs, i32::from(half) * ROW_BYTES),
        };
        let e = self.slots.entry(half / 2).or_default();
        if half.is_multiple_of(2) {
            e.lo = Some(v);
        } else {
            e.hi = Some(v);
        }
        v
    }

    /// The 32-bit register at `half` (even) as two `I32X4`.
    pub fn reg32(&mut self, half: u16) -> [Value; 2] {
        self.materialize(half / 2);
        if let Some(w) = self.slots.get(&(half / 2)).and_then(|s| s.w32) {
            return w;
        }
        let lo = self.row_any(half);
        let hi = self.row_any(half + 1);
        let w = join(self.b, lo, hi);
        self.slots.entry(half / 2).or_default().w32 = Some(w);
        w
    }

    /// The 32-bit register at `half`, and whether its active lanes hold no denormal.
    pub fn reg32_flushed(&mut self, half: u16) -> ([Value; 2], bool) {
        let w = self.reg32(half);
        (w, self.slots[&(half / 2)].flushed)
    }

    /// Writes a 32-bit register in the active lanes.
    pub fn write32(&mut self, half: u16, v: [Value; 2]) {
        self.write32_flushed(half, v, false);
    }

    /// As [`Chunk::write32`], recording whether the value's active lanes are free of
    /// denormals.
    pub fn write32_flushed(&mut self, half: u16, v: [Value; 2], flushed: bool) {
        let before = self.slots.get(&(half / 2)).and_then(|s| s.old);
        let old = match before {
            // Every lane is active: the new value is the whole register.
            _ if self.is_full() => None,
            Some(o) => Some(o),
            None => Some(self.reg32(half)),
        };
        self.slots.insert(
            half / 2,
            Slot {
                w32: Some(v),
                lo: None,
                hi: None,
                lo_dirty: true,
                hi_dirty: true,
                old,
                flushed,
                raw: None,
            },
        );
    }

    /// The 32-bit register at `half` as float arithmetic reads it: a result not yet made
    /// canonical as it is ([`super::daz`]), anything else as [`Chunk::reg32`] gives it.
    pub fn reg32_arith(&mut self, half: u16) -> [Value; 2] {
        match self.slots.get(&(half / 2)).and_then(|s| s.raw) {
            Some(r) => r,
            None => self.reg32(half),
        }
    }

    /// Writes a float result in the active lanes without making it canonical: only where it
    /// is read as anything but an operand of float arithmetic, or stored, is it flushed and
    /// its NaNs made the default NaN. Needs [`Chunk::lazy_floats`].
    pub fn write32_raw(&mut self, half: u16, v: [Value; 2]) {
        debug_assert!(self.lazy_floats);
        self.write32_flushed(half, v, false);
        if let Some(s) = self.slots.get_mut(&(half / 2)) {
            s.raw = Some(v);
            s.w32 = None;
        }
    }

    /// Makes slot `k`'s pending float result canonical, as every reader but float
    /// arithmetic needs it.
    fn materialize(&mut self, k: u16) {
        let Some(raw) = self.slots.get(&k).and_then(|s| s.raw) else {
            return;
        };
        let w = [
            super::emit::canonical(self, raw[0]),
            super::emit::canonical(self, raw[1]),
        ];
        if let Some(s) = self.slots.get_mut(&k) {
            s.raw = None;
            s.w32 = Some(w);
            s.flushed = true;
        }
    }

    /// Writes row `half` in the lanes of `mask` (I16X8), the active ones unless given.
    pub fn write16_masked(&mut self, half: u16, v: Value, mask: Value) {
        if self.slots.get(&(half / 2)).is_some_and(|s| s.old.is_some()) {
            self.settle();
        }
        let old = self.row(half);
        let every_lane = self.is_full() && (mask == self.m16 || mask == self.alive);
        let new = if every_lane {
            v
        } else {
            self.b.ins().bitselect(mask, v, old)
        };
        // The other half keeps its value: make sure it exists without the 32-bit form.
        let other = half ^ 1;
        let _ = self.row(other);
        let e = self.slots.entry(half / 2).or_default();
        e.w32 = None;
        e.flushed = false;
        if half.is_multiple_of(2) {
            e.lo = Some(new);
            e.lo_dirty = true;
        } else {
            e.hi = Some(new);
            e.hi_dirty = true;
        }
    }

    pub fn write16(&mut self, half: u16, v: Value) {
        let m = self.m16;
        self.write16_masked(half, v, m);
    }

    /// The uniform read `u` in every lane, loaded once per region where the region shares
    /// its loads between chunks ([`Chunk::take_uniforms`]).
    pub fn uniform(&mut self, u: UniformRead) -> [Value; 2] {
        let v = match self.uniforms.get(&u) {
            Some(&v) => v,
            None => {
                let v = match self.spilled.get(&u) {
                    Some(&(slot, at)) => self.b.ins().stack_load(I64, I32X4, slot, at),
                    None => u.load(self.b, self.uni),
                };
                self.uniforms.insert(u, v);
                v
            }
        };
        [v, v]
    }

    /// Where a loop region keeps the uniforms it loaded before its loop.
    pub fn spilled_uniforms(&mut self, s: BTreeMap<UniformRead, (StackSlot, i32)>) {
        self.spilled = s;
    }

    /// The uniforms this chunk loaded, or was given: a later chunk of a straight region
    /// (one block, so they dominate it) reuses them; a loop plan lists them.
    pub fn take_uniforms(&mut self) -> BTreeMap<UniformRead, Value> {
        std::mem::take(&mut self.uniforms)
    }

    /// Starts the chunk with uniform values loaded where they dominate it.
    pub fn give_uniforms(&mut self, u: BTreeMap<UniformRead, Value>) {
        self.uniforms = u;
    }

    pub fn splat32(&mut self, x: Value) -> [Value; 2] {
        let v = self.b.ins().splat(I32X4, x);
        [v, v]
    }

    /// Records that every lane of `v` (an `I32X4`) has its top bit clear.
    pub fn mark_nonneg(&mut self, v: Value) {
        self.nonneg.insert(v);
    }

    /// Whether every lane of `v` is known to have its top bit clear.
    pub fn is_nonneg(&self, v: Value) -> bool {
        self.nonneg.contains(&v)
    }

    pub fn const32(&mut self, x: u32) -> [Value; 2] {
        let c = self.b.ins().iconst(I32, i64::from(x));
        self.splat32(c)
    }

    pub fn const16(&mut self, x: u16) -> Value {
        let c = self.b.ins().iconst(I16, i64::from(x));
        self.b.ins().splat(I16X8, c)
    }
}

/// The lane mask (I16X8, 0xffff where set) of eight exec bits.
fn mask_of_bits(b: &mut FunctionBuilder, bits: Value) -> Value {
    let lane_bits: Vec<u8> = (0..CHUNK_LANES as u16)
        .flat_map(|l| (1u16 << l).to_le_bytes())
        .collect();
    let k = b.func.dfg.constants.insert(ConstantData::from(lane_bits));
    let lane_bits = b.ins().vconst(I16X8, k);
    let x = b.ins().ireduce(I16, bits);
    let x = b.ins().splat(I16X8, x);
    let x = b.ins().band(x, lane_bits);
    let zero = b.ins().iconst(I16, 0);
    let zero = b.ins().splat(I16X8, zero);
    b.ins()
        .icmp(cranelift_codegen::ir::condcodes::IntCC::NotEqual, x, zero)
}

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

fn shuffle(b: &mut FunctionBuilder, x: Value, y: Value, idx: [u8; 16]) -> Value {
    let bx = b.ins().bitcast(I8X16, le(), x);
    let by = b.ins().bitcast(I8X16, le(), y);
    let imm = b.func.dfg.immediates.push(ConstantData::from(idx.to_vec()));
    b.ins().shuffle(bx, by, imm)
}

/// The lanes `idx` of `v` (I32X4), in that order.
pub fn lanes32(b: &mut FunctionBuilder, v: Value, idx: [u8; 4]) -> Value {
    let mut bytes = [0u8; 16];
    for (k, &l) in idx.iter().enumerate() {
        for j in 0..4 {
            bytes[4 * k + j as usize] = 4 * l + j;
        }
    }
    let r = shuffle(b, v, v, bytes);
    b.ins().bitcast(I32X4, le(), r)
}

/// Lanes 0 and 1 of `lo` then lanes 0 and 1 of `hi` (all I32X4).
pub fn lanes_of_two(b: &mut FunctionBuilder, lo: Value, hi: Value) -> Value {
    let idx: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
    let r = shuffle(b, lo, hi, idx);
    b.ins().bitcast(I32X4, le(), r)
}

/// Two rows (low and high halves, I16X8) as a 32-bit value in two I32X4.
pub fn join(b: &mut FunctionBuilder, lo: Value, hi: Value) -> [Value; 2] {
    let mut first = [0u8; 16];
    let mut second = [0u8; 16];
    for l in 0..4u8 {
        for (out, lane) in [(&mut first, l), (&mut second, l + 4)] {
            let i = 4 * l as usize;
            out[i] = 2 * lane;
            out[i + 1] = 2 * lane + 1;
            out[i + 2] = 16 + 2 * lane;
            out[i + 3] = 16 + 2 * lane + 1;
        }
    }
    let v0 = shuffle(b, lo, hi, first);
    let v1 = shuffle(b, lo, hi, second);
    [
        b.ins().bitcast(I32X4, le(), v0),
        b.ins().bitcast(I32X4, le(), v1),
    ]
}

/// A 32-bit value (two I32X4) as its low and high rows (I16X8).
pub fn split(b: &mut FunctionBuilder, w: [Value; 2]) -> (Value, Value) {
    let mut lo = [0u8; 16];
    let mut hi = [0u8; 16];
    for l in 0..8u8 {
        let base = 4 * (l % 4) + if l < 4 { 0 } else { 16 };
        lo[2 * l as usize] = base;
        lo[2 * l as usize + 1] = base + 1;
        hi[2 * l as usize] = base + 2;
        hi[2 * l as usize + 1] = base + 3;
    }
    let l = shuffle(b, w[0], w[1], lo);
    let h = shuffle(b, w[0], w[1], hi);
    (
        b.ins().bitcast(I16X8, le(), l),
        b.ins().bitcast(I16X8, le(), h),
    )
}
