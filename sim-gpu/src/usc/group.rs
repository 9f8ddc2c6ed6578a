//! One SIMD group: 32 lanes of 16-bit register halves, the exec mask with its nesting
//! counter in `r0l`, and the ALU and control-flow semantics (applegpu's pseudocode).

use super::float::{f16_to_f32, f64_to_f16, f64_to_f32, float_immediate, ftz, Rounding};
use super::jit::SR_SLOTS;
use super::lanes::{self, Lanes};
use super::program::{Program, NO_TARGET};
use crate::Fault;
use hw::isa::*;

const LANES: usize = SIMD_WIDTH;

/// Why a group stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupState {
    Running,
    /// Waiting at a `threadgroup_barrier`; `pc` is already past it.
    AtBarrier,
    Stopped,
}

/// Where the group's threads sit, for `get_sr`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Position {
    pub workgroup: [u32; 3],
    pub local_size: [u32; 3],
    pub simd_index: u32,
}

pub struct SimdGroup {
    /// `regs[half * 32 + lane]`. Written only through `set_reg`, `write_lanes` and the
    /// exec-mask instructions (row 0), which keep `dirty_rows` covering every written row.
    regs: Vec<u16>,
    /// Rows (halves) from 0 that may hold a nonzero value; the rest are zero. A reset clears
    /// only these: most launches touch a few rows of the 16 KiB file, and clearing all of it
    /// for every launch of 32 pixels was a visible share of a render.
    dirty_rows: usize,
    /// Lanes that exist (inside the workgroup and the grid); the rest never run.
    pub alive: u32,
    pub exec: u32,
    pub pc: usize,
    pub state: GroupState,
    pub pos: Position,
    /// Per-lane stack, `stack_bytes` each, allocated on first use.
    pub stack: Vec<u8>,
    /// Fragment launches: what the pixel special registers read.
    pub fragment: Option<FragmentSr>,
    /// The coefficient planes translated `iter`s read, as rows of quads
    /// (`FragmentContext::plane_rows`; the buffer is reused from region to region).
    plane_rows: Vec<f64>,
    /// The special registers translated `get_sr`s read, a row per `jit::SR_SLOTS` entry
    /// ([`SimdGroup::fill_specials`]; the buffer is reused from region to region).
    special_rows: Vec<[u32; LANES]>,
    /// Words of a translated region's uniform-address loads, four per load
    /// ([`Self::fill_preloads`]).
    preload_words: Vec<u32>,
}

/// The special registers of a fragment-stage group: the framebuffer pixel of each lane
/// (`THREAD_POSITION_IN_GRID_X/Y`), its rasterized coverage (`INPUT_SAMPLE_MASK`) and the
/// primitive's facing (`BACKFACING`).
#[derive(Debug, Clone, Copy)]
pub struct FragmentSr {
    pub pixels: [[u32; 2]; LANES],
    pub input_coverage: [u8; LANES],
    /// A bit per lane whose primitive is back-facing.
    pub backfacing: u32,
}

impl SimdGroup {
    pub fn new() -> SimdGroup {
        SimdGroup {
            regs: vec![0; usize::from(GPR_HALVES) * LANES],
            dirty_rows: 0,
            alive: 0,
            exec: 0,
            pc: 0,
            state: GroupState::Stopped,
            pos: Position::default(),
            stack: Vec::new(),
            fragment: None,
            plane_rows: Vec::new(),
            special_rows: Vec::new(),
            preload_words: Vec::new(),
        }
    }

    /// Start the group at the first instruction with fresh registers.
    pub fn reset(&mut self, alive: u32, pos: Position) {
        self.regs[..self.dirty_rows * LANES].fill(0);
        self.dirty_rows = 0;
        self.alive = alive;
        self.exec = alive;
        self.pc = 0;
        self.state = if alive == 0 {
            GroupState::Stopped
        } else {
            GroupState::Running
        };
        self.pos = pos;
        self.stack.fill(0);
    }

    /// The register file, `[half * 32 + lane]`.
    #[cfg(test)]
    pub fn regs(&self) -> &[u16] {
        &self.regs
    }

    #[inline]
    pub fn reg(&self, r: Reg, lane: usize) -> u64 {
        let h = usize::from(r.half);
        let at = |i: usize| u64::from(self.regs[(h + i) * LANES + lane]);
        match r.size {
            Size::S16 => at(0),
            Size::S32 => at(0) | at(1) << 16,
            Size::S64 => at(0) | at(1) << 16 | at(2) << 32 | at(3) << 48,
        }
    }

    /// Notes that the rows of `r` may have been written.
    #[inline]
    fn touch(&mut self, r: Reg) {
        self.dirty_rows = self
            .dirty_rows
            .max(usize::from(r.half) + usize::from(r.size.halves()));
    }

    /// An operand in every lane (zero-extended), with its width: for units that take a
    /// whole group's operands at once.
    #[inline]
    pub(super) fn lanes(&self, o: Operand, uniforms: &[u16]) -> (Lanes, u32) {
        lanes::read(&self.regs, o, uniforms)
    }

    /// The 32-bit register at `half` in every lane.
    #[inline]
    pub(super) fn row32(&self, half: u16) -> [u32; LANES] {
        lanes::read_row32(&self.regs, usize::from(half))
    }

    /// Writes `v` to register `r` in the lanes of `mask`.
    #[inline]
    pub(super) fn write_lanes(&mut self, r: Reg, v: &Lanes, mask: u32) {
        self.touch(r);
        lanes::write(&mut self.regs, r, v, mask);
    }

    #[inline]
    pub fn set_reg(&mut self, r: Reg, lane: usize, v: u64) {
        self.touch(r);
        let h = usize::from(r.half);
        for i in 0..usize::from(r.size.halves()) {
            self.regs[(h + i) * LANES + lane] = (v >> (16 * i)) as u16;
        }
    }

    /// Raw value and width of an operand.
    #[inline]
    pub fn operand(&self, o: Operand, lane: usize, uniforms: &[u16]) -> (u64, u32) {
        match o {
            Operand::Reg(r) => (self.reg(r, lane), r.size.bits()),
            Operand::Uniform(r) => (uniform(uniforms, r), r.size.bits()),
            Operand::Imm(v) => (u64::from(v), 32),
        }
    }

    /// A float operand as f32: immediates through the 8-bit table, halves exactly, singles
    /// flushed.
    #[inline]
    fn float_operand(&self, o: Operand, lane: usize, u: &[u16]) -> f32 {
        match o {
            Operand::Imm(v) => float_immediate(v as u8),
            _ => {
                let (v, bits) = self.operand(o, lane, u);
                bits_to_float(v, bits)
            }
        }
    }

    #[inline]
    fn fsrc(&self, s: &FSrc, lane: usize, u: &[u16]) -> f32 {
        let mut x = self.float_operand(s.op, lane, u);
        if s.abs {
            x = x.abs();
        }
        if s.neg {
            x = -x;
        }
        x
    }

    /// Runs a translated region from the current instruction, whose first pass `budget`
    /// already paid for; returns the lane-instructions and passes it issued.
    /// `fragment` is the launch's fragment state, which a region with `iter`s reads (the
    /// caller checked it holds [`Region::planes`](super::jit::Region::planes) coefficients)
    /// and a region with tile accesses reads and writes at `records` (the caller made them
    /// with [`tile_records`](super::graphics::tile_records)).
    pub fn run_region(
        &mut self,
        r: &super::jit::Region,
        u: &[u16],
        fragment: Option<&mut super::graphics::FragmentContext>,
        vertex: Option<&mut super::graphics::VertexContext>,
        records: Option<&[u32; LANES]>,
        budget: &mut u64,
    ) -> (u64, u64) {
        let centres: [f64; 2 * LANES];
        let mut planes = std::ptr::null();
        let mut centres_at = std::ptr::null();
        let (mut tile, mut records_at, mut coverage) =
            (std::ptr::null_mut(), std::ptr::null(), std::ptr::null());
        if let Some(f) = fragment {
            if r.planes > 0 {
                centres =
                    std::array::from_fn(|i| f64::from(f.lane_pixels[i % LANES][i / LANES]) + 0.5);
                f.plane_rows(r.planes as usize, &mut self.plane_rows);
                planes = self.plane_rows.as_ptr();
                centres_at = &raw const centres;
            }
            if let Some(rec) = records.filter(|_| r.tile_bytes > 0) {
                records_at = rec as *const [u32; LANES];
                coverage = &raw const f.coverage;
                tile = f.tilebuffer.as_mut_ptr();
            }
        }
        let mut ctx = super::jit::Ctx {
            regs: self.regs.as_mut_ptr(),
            uniforms: u.as_ptr(),
            alive16: std::array::from_fn(|l| u16::from(self.alive >> l & 1 != 0).wrapping_neg()),
            exec: self.exec,
            stopped: 0,
            lane_instructions: 0,
            budget: *budget,
            passes: 0,
            planes,
            centres: centres_at,
            tile,
            records: records_at,
            coverage,
            specials: if r.specials == 0 {
                std::ptr::null()
            } else {
                self.special_rows.as_ptr()
            },
            preloaded: if r.preloads.0 == r.preloads.1 {
                std::ptr::null()
            } else {
                self.preload_words.as_ptr()
            },
            uvs: std::ptr::null_mut(),
            uvs_slots: 0,
            finished: 0,
        };
        let mut vertex = vertex.filter(|_| r.vary_slots > 0);
        if let Some(v) = vertex.as_mut() {
            // Records of `slots` words for each of the 32 lanes (`VertexContext::new`).
            debug_assert!(v.uvs.len() >= LANES * v.slots as usize);
            ctx.uvs = v.uvs.as_mut_ptr();
            ctx.uvs_slots = v.slots;
        }
        // SAFETY: `regs` is the whole register file, which `Program::new` checked every
        // register of the program against, and `u` the whole uniform file (launches resize it
        // to `UNIFORM_HALVES`, the bound `Program::new` checks uniforms against). A region
        // with `iter`s reads the rows of `r.planes` slots in `plane_rows`, filled above from
        // planes the caller checked exist (`translated_planes`), and
        // `centres`, which lives until the call returns. A region with tile accesses touches
        // bytes below `r.tile_bytes` of the records `records` names, which `tile_records`
        // checked lie inside the tilebuffer, and reads the 32 lanes' coverage; the
        // tilebuffer is not otherwise borrowed while the call runs. A region with `get_sr`s
        // reads the rows its mask names, which the caller filled (`fill_specials`), and one
        // with uniform-address loads the words the caller read for them (`fill_preloads`).
        // A region with `st_vary`s writes slots below `r.vary_slots` of the 32 lanes'
        // records in `uvs`, which the caller checked the records have; the records are not
        // otherwise borrowed while the call runs.
        self.pc = unsafe { r.run(&mut ctx) } as usize;
        if let Some(v) = vertex {
            v.finished |= ctx.finished;
        }
        self.exec = ctx.exec;
        self.dirty_rows = self.dirty_rows.max(usize::from(r.rows));
        if ctx.stopped != 0 {
            self.state = GroupState::Stopped;
        }
        *budget = ctx.budget;
        (ctx.lane_instructions, ctx.passes)
    }

    /// Recompute the exec mask from the nesting counters.
    fn update_exec(&mut self) {
        let mut e = 0u32;
        for (lane, &r0l) in self.regs[..LANES].iter().enumerate() {
            e |= u32::from(r0l == 0) << lane;
        }
        self.exec = e & self.alive;
    }

    /// A condition in every lane at once: bit `l` of the result is lane `l`'s outcome.
    fn compare_lanes(&self, c: Cond, a: Operand, b: Operand, u: &[u16]) -> u32 {
        match c {
            Cond::Int(ic) => {
                let (av, ab) = lanes::read(&self.regs, a, u);
                let (bv, bb) = lanes::read(&self.regs, b, u);
                let signed = |v: Lanes, bits: u32| v.map(|x| sext(x, bits));
                match ic {
                    ICond::UEq | ICond::SEq => lane_mask(&av, &bv, |x, y| x == y),
                    ICond::ULt => lane_mask(&av, &bv, |x, y| x < y),
                    ICond::UGt => lane_mask(&av, &bv, |x, y| x > y),
                    ICond::SLt => lane_mask(&signed(av, ab), &signed(bv, bb), |x, y| x < y),
                    ICond::SGt => lane_mask(&signed(av, ab), &signed(bv, bb), |x, y| x > y),
                }
            }
            Cond::Float(fc) => {
                let xs = lanes::read_float_op(&self.regs, a, u);
                let ys = lanes::read_float_op(&self.regs, b, u);
                match fc {
                    FCond::Eq => lane_mask(&xs, &ys, |x, y| x == y),
                    FCond::Lt => lane_mask(&xs, &ys, |x, y| x < y),
                    FCond::Gt => lane_mask(&xs, &ys, |x, y| x > y),
                    FCond::Ge => lane_mask(&xs, &ys, |x, y| x >= y),
                    FCond::Le => lane_mask(&xs, &ys, |x, y| x <= y),
                    // NaN-ignoring forms (min/max selects): a NaN operand loses.
                    FCond::LtN => lane_mask(&xs, &ys, |x, y| !x.is_nan() && (y.is_nan() || x < y)),
                    FCond::GtN => lane_mask(&xs, &ys, |x, y| !x.is_nan() && (y.is_nan() || x > y)),
                }
            }
        }
    }

    /// Execute one non-memory instruction. Operands `a`, `b`, `c` are the machine fields A, B,
    /// C of applegpu (the G13 encoder writes them in that order), so the shift family follows
    /// applegpu's pseudocode on those fields: `bfi` inserts B at shift C into A, `bfeil`
    /// extracts B >> C into the low bits of A, `extr` shifts B:A right by C. Returns `Ok(true)` when it was handled here (memory
    /// instructions are left to the caller). Advances `pc`.
    pub fn step_alu(
        &mut self,
        prog: &Program,
        u: &[u16],
        local_ids: &[[u32; 3]; LANES],
    ) -> Result<bool, Fault> {
        let here = self.pc;
        let Some(instr) = prog.instrs.get(here) else {
            return Err(Fault::Shader {
                pc: prog.pc(here.saturating_sub(1)),
                reason: "ran past the end of the shader without stop".into(),
            });
        };
        self.pc = here + 1;
        let exec = self.exec;
        macro_rules! lanes {
            (|$l:ident| $body:expr) => {{
                let mut m = exec;
                while m != 0 {
                    let $l = m.trailing_zeros() as usize;
                    m &= m - 1;
                    $body;
                }
            }};
        }
        match instr {
            Instr::MovImm(x) => self.write_lanes(x.dst.reg, &[u64::from(x.imm); LANES], exec),
            // The live coverage is the fragment context's, which the graphics unit holds.
            Instr::GetSr(x)
                if self.fragment.is_some()
                    && matches!(
                        x.sr,
                        SpecialReg::COVERAGE_MASK | SpecialReg::IS_ACTIVE_THREAD
                    ) =>
            {
                self.pc = here;
                return Ok(false);
            }
            Instr::GetSr(x) => {
                if exec != 0 {
                    let row = self.special(x.sr, local_ids).ok_or_else(|| Fault::Shader {
                        pc: prog.pc(here),
                        reason: format!("special register {} is not modelled", x.sr.0),
                    })?;
                    lanes!(|l| self.set_reg(x.dst.reg, l, u64::from(row[l])))
                }
            }
            Instr::IAdd(x) => {
                let bits = x.dst.reg.size.bits();
                let sat = x.saturate && x.shift == 0 && bits <= 32;
                let signed = x.a.sign_extend || x.b.sign_extend;
                let a = lanes::read_int(&self.regs, &x.a, u);
                let mut r = lanes::read_int(&self.regs, &x.b, u);
                for b in &mut r {
                    *b = shl(*b, x.shift);
                }
                if sat {
                    lanes!(|l| {
                        let (a, b) = (wide(a[l], bits, signed), wide(r[l], bits, signed));
                        let s = if x.negate_b { a - b } else { a + b };
                        r[l] = saturate(s, bits, signed);
                    })
                } else if x.negate_b {
                    for (r, a) in r.iter_mut().zip(&a) {
                        *r = a.wrapping_sub(*r);
                    }
                } else {
                    for (r, a) in r.iter_mut().zip(&a) {
                        *r = a.wrapping_add(*r);
                    }
                }
                self.write_lanes(x.dst.reg, &r, exec);
            }
            Instr::IMAdd(x) => {
                let bits = x.dst.reg.size.bits();
                let sat = x.saturate && x.shift == 0 && bits <= 32;
                let signed = x.a.sign_extend || x.b.sign_extend || x.c.sign_extend;
                let a = lanes::read_int(&self.regs, &x.a, u);
                let b = lanes::read_int(&self.regs, &x.b, u);
                let mut r = lanes::read_int(&self.regs, &x.c, u);
                for c in &mut r {
                    *c = shl(*c, x.shift);
                }
                if sat {
                    lanes!(|l| {
                        let p = wide(a[l], bits, signed) * wide(b[l], bits, signed);
                        let c = wide(r[l], bits, signed);
                        r[l] = saturate(if x.negate_c { p - c } else { p + c }, bits, signed);
                    })
                } else if x.negate_c {
                    for ((r, a), b) in r.iter_mut().zip(&a).zip(&b) {
                        *r = a.wrapping_mul(*b).wrapping_sub(*r);
                    }
                } else {
                    for ((r, a), b) in r.iter_mut().zip(&a).zip(&b) {
                        *r = a.wrapping_mul(*b).wrapping_add(*r);
                    }
                }
                self.write_lanes(x.dst.reg, &r, exec);
            }
            Instr::Bitop(x) => {
                let t = u64::from(x.table);
                let bit = |i: u32| 0u64.wrapping_sub((t >> i) & 1);
                let (t0, t1, t2, t3) = (bit(0), bit(1), bit(2), bit(3));
                let a = lanes::read_int(&self.regs, &x.a, u);
                let mut r = lanes::read_int(&self.regs, &x.b, u);
                for (r, &a) in r.iter_mut().zip(&a) {
                    let b = *r;
                    *r = (!a & !b & t0) | (a & !b & t1) | (!a & b & t2) | (a & b & t3);
                }
                self.write_lanes(x.dst.reg, &r, exec);
            }
            Instr::Shift(x) => {
                let mask: u64 = if x.mask_bits == 0 || x.mask_bits >= 32 {
                    0xffff_ffff
                } else {
                    (1u64 << x.mask_bits) - 1
                };
                let av = lanes::read_int(&self.regs, &x.a, u);
                let bv = lanes::read_int(&self.regs, &x.b, u);
                let cv = lanes::read_int(&self.regs, &x.c, u);
                let (raw_a, a_bits) = if x.op == ShiftOp::Asr {
                    lanes::read(&self.regs, x.a.op, u)
                } else {
                    ([0; LANES], 64)
                };
                // Every form is pure and total, so all 32 lanes run one tight loop per form
                // and only the write honours the exec mask.
                let mut out: Lanes = [0; LANES];
                macro_rules! all {
                    (|$a:ident, $b:ident, $c:ident, $l:ident| $e:expr) => {
                        for $l in 0..LANES {
                            let ($a, $b, $c) = (av[$l], bv[$l], cv[$l]);
                            out[$l] = $e;
                        }
                    };
                }
                match x.op {
                    ShiftOp::Bfi => all!(|a, b, c, _l| {
                        let s = c & 0x7f;
                        (a & !shl64(mask, s)) | shl64(b & mask, s)
                    }),
                    ShiftOp::Bfeil => all!(|a, b, c, _l| (a & !mask) | (shr64(b, c & 0x7f) & mask)),
                    ShiftOp::Extr => all!(|a, b, c, _l| shr64(
                        ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff),
                        c & 0x7f
                    ) & mask),
                    ShiftOp::Shlhi => all!(|a, b, c, _l| {
                        let s = c & 0x7f;
                        let m = shl64(mask, s.saturating_sub(32));
                        ((shl128(b, s) >> 32) as u64 & m) | (a & !m)
                    }),
                    ShiftOp::Shrhi => all!(|a, b, c, _l| {
                        let s = c & 0x7f;
                        let m = shr64(mask << 32, s.min(32));
                        (shr64((b & 0xffff_ffff) << 32, s) & m) | (a & !m)
                    }),
                    ShiftOp::Asr => {
                        all!(|_a, b, _c, l| (sext(raw_a[l], a_bits) >> (b & 0x7f).min(63)) as u64)
                    }
                }
                self.write_lanes(x.dst.reg, &out, exec);
            }
            Instr::IUnary(x) => lanes!(|l| {
                let (v, bits) = self.operand(x.src.op, l, u);
                let v = v & mask_bits(bits);
                let r = match x.op {
                    IUnaryOp::BitReverse => v.reverse_bits() >> (64 - bits),
                    IUnaryOp::PopCount => u64::from(v.count_ones()),
                    IUnaryOp::FindFirstSet => {
                        if v == 0 {
                            u64::MAX
                        } else {
                            u64::from(63 - v.leading_zeros())
                        }
                    }
                };
                self.set_reg(x.dst.reg, l, r);
            }),
            Instr::Convert(x) => {
                let round = match x.round {
                    Round::NearestEven => Rounding::NearestEven,
                    Round::TowardZero => Rounding::TowardZero,
                };
                let (mut v, bits) = lanes::read(&self.regs, x.src.op, u);
                let dst = x.dst.reg.size;
                if exec == u32::MAX {
                    for v in &mut v {
                        *v = convert(x.op, *v, bits, round, dst);
                    }
                } else {
                    lanes!(|l| v[l] = convert(x.op, v[l], bits, round, dst));
                }
                self.write_lanes(x.dst.reg, &v, exec);
            }
            Instr::FArith(x) => {
                let half = x.dst.reg.size == Size::S16;
                let a = lanes::read_float(&self.regs, &x.a, u);
                let b = lanes::read_float(&self.regs, &x.b, u);
                let c = if x.op == FOp::MAdd {
                    lanes::read_float(&self.regs, &x.c, u)
                } else {
                    [0.0; LANES]
                };
                let mut out: Lanes = [0; LANES];
                if half {
                    lanes!(|l| {
                        let (a, b) = (f64::from(a[l]), f64::from(b[l]));
                        let r = match x.op {
                            FOp::Add => a + b,
                            FOp::Mul => a * b,
                            FOp::MAdd => a.mul_add(b, f64::from(c[l])),
                        };
                        out[l] = u64::from(f64_to_f16(sat64(r, x.saturate), Rounding::NearestEven));
                    })
                } else {
                    match x.op {
                        FOp::Add => {
                            for l in 0..LANES {
                                out[l] = f32_out(a[l] + b[l], x.saturate);
                            }
                        }
                        FOp::Mul => {
                            for l in 0..LANES {
                                out[l] = f32_out(a[l] * b[l], x.saturate);
                            }
                        }
                        FOp::MAdd => {
                            lanes!(|l| out[l] = f32_out(a[l].mul_add(b[l], c[l]), x.saturate))
                        }
                    }
                }
                self.write_lanes(x.dst.reg, &out, exec);
            }
            Instr::FUnary(x) if matches!(x.op, FUnaryOp::Dfdx | FUnaryOp::Dfdy) => {
                // The neighbours' sources are read in every lane, active or not: the
                // difference is over the whole quad.
                let a: [f32; LANES] = std::array::from_fn(|l| self.fsrc(&x.src, l, u));
                // The lane-index bit that steps to the horizontal / vertical neighbour.
                let axis = if x.op == FUnaryOp::Dfdx {
                    quad_lane(1, 0)
                } else {
                    quad_lane(0, 1)
                };
                let half = x.dst.reg.size == Size::S16;
                let mut out: Lanes = [0; LANES];
                lanes!(|l| {
                    let (lo, hi) = (l & !axis, l | axis);
                    let d = a[hi] - a[lo];
                    out[l] = if half {
                        let r = sat32(d, x.saturate);
                        u64::from(f64_to_f16(f64::from(r), Rounding::NearestEven))
                    } else {
                        f32_out(d, x.saturate)
                    };
                });
                self.write_lanes(x.dst.reg, &out, exec);
            }
            Instr::FUnary(x) => {
                let half = x.dst.reg.size == Size::S16;
                lanes!(|l| {
                    let a = self.fsrc(&x.src, l, u);
                    let r = match x.op {
                        FUnaryOp::Floor => a.floor(),
                        FUnaryOp::Ceil => a.ceil(),
                        FUnaryOp::Trunc => a.trunc(),
                        FUnaryOp::Rint => a.round_ties_even(),
                        FUnaryOp::Rcp => 1.0 / a,
                        FUnaryOp::Rsqrt => 1.0 / a.sqrt(),
                        // The hardware splits sine in two factors whose product is the sine of
                        // the angle in quarter turns; the model puts all of it in the first.
                        FUnaryOp::SinPt1 => {
                            (f64::from(a) * std::f64::consts::FRAC_PI_2).sin() as f32
                        }
                        FUnaryOp::SinPt2 => 1.0,
                        FUnaryOp::Log2 => a.log2(),
                        FUnaryOp::Exp2 => a.exp2(),
                        // Cross-lane: the arm above runs them.
                        FUnaryOp::Dfdx | FUnaryOp::Dfdy => f32::NAN,
                    };
                    let r = sat32(r, x.saturate);
                    let r = if half {
                        u64::from(f64_to_f16(f64::from(r), Rounding::NearestEven))
                    } else {
                        u64::from(ftz(r).to_bits())
                    };
                    self.set_reg(x.dst.reg, l, r);
                })
            }
            Instr::CmpSel(x) => {
                let take_x = self.compare_lanes(x.cond, x.a, x.b, u);
                let (mut v, _) = lanes::read(&self.regs, x.y, u);
                let (xv, _) = lanes::read(&self.regs, x.x, u);
                for (l, (v, &xv)) in v.iter_mut().zip(&xv).enumerate() {
                    if take_x >> l & 1 != 0 {
                        *v = xv;
                    }
                }
                self.write_lanes(x.dst.reg, &v, exec);
            }
            Instr::Ballot(x) => {
                let holds =
                    self.compare_lanes(x.cond, x.a, x.b, u) ^ if x.invert { u32::MAX } else { 0 };
                self.write_lanes(x.dst.reg, &[u64::from(holds & exec); LANES], exec);
            }
            Instr::SimdReduce(x) => {
                let (a, _) = lanes::read(&self.regs, x.a, u);
                let bits = x.dst.reg.size.bits();
                let out = super::reduce::reduce(x.op, x.kind, &a, bits, exec);
                self.write_lanes(x.dst.reg, &out, exec);
            }
            Instr::Shuffle(x) => {
                // Every lane's source is read, active or not (see `isa::Shuffle`).
                let (a, _) = lanes::read(&self.regs, x.a, u);
                let (idx, _) = lanes::read(&self.regs, x.index, u);
                let mut out: Lanes = [0; LANES];
                lanes!(|l| {
                    let q = l & !(QUAD_LANES - 1);
                    let i = idx[l] as usize;
                    // The low bits of the index are the quad's, combined over its four lanes.
                    let low = idx[q..q + QUAD_LANES]
                        .iter()
                        .fold(0, |m, &v| m | v as usize)
                        & (QUAD_LANES - 1);
                    let src = match (x.mode, x.quad) {
                        (ShuffleMode::Index, false) => (i & (LANES - 1) & !(QUAD_LANES - 1)) | low,
                        (ShuffleMode::Index, true) => q | low,
                        (ShuffleMode::Xor, false) => {
                            l ^ ((i & (LANES - 1) & !(QUAD_LANES - 1)) | low)
                        }
                        (ShuffleMode::Xor, true) => l ^ low,
                    };
                    out[l] = a[src];
                });
                self.write_lanes(x.dst.reg, &out, exec);
            }
            Instr::ExecCmp(x) => {
                let n = u16::from(x.n);
                let holds =
                    self.compare_lanes(x.cond, x.a, x.b, u) ^ if x.invert { u32::MAX } else { 0 };
                let alive = self.alive;
                self.dirty_rows = self.dirty_rows.max(1);
                let r0l = &mut self.regs[..LANES];
                match x.op {
                    ExecOp::If => nest(r0l, alive, holds, |v, cond| {
                        if v != 0 {
                            v.wrapping_add(n)
                        } else {
                            u16::from(!cond)
                        }
                    }),
                    ExecOp::Else => nest(r0l, alive, holds, |v, cond| match v {
                        0 => n,
                        1 => u16::from(!cond),
                        _ => v,
                    }),
                    ExecOp::While => nest(r0l, alive, holds, |v, cond| {
                        if v >= n {
                            v
                        } else if cond {
                            0
                        } else {
                            n
                        }
                    }),
                }
                self.update_exec();
            }
            Instr::PopExec(p) => {
                self.dirty_rows = self.dirty_rows.max(1);
                for l in 0..LANES {
                    if self.alive & (1 << l) != 0 {
                        self.regs[l] = self.regs[l].saturating_sub(u16::from(p.n));
                    }
                }
                self.update_exec();
            }
            Instr::Jump(j) => {
                let taken = match j.cond {
                    JumpCond::Any => exec != 0,
                    JumpCond::None => exec == 0,
                };
                if taken {
                    let t = prog.targets[here];
                    if t == NO_TARGET {
                        return Err(Fault::Shader {
                            pc: prog.pc(here),
                            reason: format!(
                                "jump by {} lands outside the shader's instructions",
                                j.offset
                            ),
                        });
                    }
                    self.pc = t as usize;
                }
            }
            Instr::Wait(_) | Instr::MemoryBarrier => {}
            Instr::ThreadgroupBarrier => self.state = GroupState::AtBarrier,
            Instr::Stop => self.state = GroupState::Stopped,
            Instr::DeviceMem(_)
            | Instr::ThreadgroupMem(_)
            | Instr::StackMem(_)
            | Instr::Atomic(_)
            | Instr::ThreadgroupAtomic(_)
            | Instr::UniformStore(_)
            | Instr::Iter(_)
            | Instr::LdCf(_)
            | Instr::StVary(_)
            | Instr::TileMem(_)
            | Instr::SampleMask(_)
            | Instr::ZsEmit(_)
            | Instr::Texture(_)
            | Instr::ImageWrite(_)
            | Instr::BlockImageStore(_) => {
                self.pc = here;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Fills the rows of `SR_SLOTS` that bit k of `mask` names for a translated region;
    /// false if the launch does not model one of them.
    pub fn fill_specials(&mut self, mask: u32, local: &[[u32; 3]; LANES]) -> bool {
        self.special_rows.resize(SR_SLOTS.len(), [0; LANES]);
        for (k, &sr) in SR_SLOTS.iter().enumerate() {
            if mask & (1 << k) != 0 {
                match self.special(sr, local) {
                    Some(row) => self.special_rows[k] = row,
                    None => return false,
                }
            }
        }
        true
    }

    /// Reads the words of the uniform-address loads at instructions `loads` of `prog` (see
    /// `jit::Region::preloads`), four per load; false if one of them faults.
    pub fn fill_preloads(
        &mut self,
        prog: &Program,
        loads: &[u32],
        uniforms: &[u16],
        device: &dyn crate::GpuMemory,
    ) -> bool {
        self.preload_words.resize(4 * loads.len(), 0);
        for (k, &at) in loads.iter().enumerate() {
            let Some(x) = super::memops::uniform_load(&prog.instrs[at as usize]) else {
                return false;
            };
            // Uniform and immediate operands read the same in every lane.
            let (base, _) = self.operand(x.base, 0, uniforms);
            let index = match x.index {
                Index::Imm(v) => i64::from(v) as u64,
                Index::Reg(_) => return false,
            };
            let address = super::memops::run_address(x, base, index);
            let mut bytes = [0u8; 16];
            let n = x.mask.count_ones() as usize;
            if device.read(address, &mut bytes[..4 * n]).is_err() {
                return false;
            }
            for (e, w) in bytes[..4 * n].chunks_exact(4).enumerate() {
                self.preload_words[4 * k + e] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            }
        }
        true
    }

    /// Special register `sr` of every lane; `None` where the launch does not model it.
    fn special(&self, sr: SpecialReg, local: &[[u32; 3]; LANES]) -> Option<[u32; LANES]> {
        use std::array::from_fn;
        let p = &self.pos;
        type S = SpecialReg;
        // Component `i` of the three-register group starting at `first`.
        let axis = |first: S| (sr.0.wrapping_sub(first.0) < 3).then(|| usize::from(sr.0 - first.0));
        if let Some(f) = &self.fragment {
            match sr {
                S::BACKFACING => return Some(from_fn(|l| f.backfacing >> l & 1)),
                S::THREAD_POSITION_IN_GRID_X | S::THREAD_POSITION_IN_GRID_Y => {
                    let i = usize::from(sr.0 - S::THREAD_POSITION_IN_GRID_X.0);
                    return Some(from_fn(|l| f.pixels[l][i]));
                }
                S::INPUT_SAMPLE_MASK => return Some(from_fn(|l| u32::from(f.input_coverage[l]))),
                // Single-layer renders: the layer is 0.
                S::THREAD_POSITION_IN_GRID_Z => return Some([0; LANES]),
                _ => {}
            }
        }
        if let Some(i) = axis(S::THREADGROUP_POSITION_IN_GRID_X) {
            return Some([p.workgroup[i]; LANES]);
        }
        if let Some(i) = axis(S::THREADS_PER_THREADGROUP_X) {
            return Some([p.local_size[i]; LANES]);
        }
        if let Some(i) = axis(S::THREAD_POSITION_IN_THREADGROUP_X) {
            return Some(from_fn(|l| local[l][i]));
        }
        if let Some(i) = axis(S::THREAD_POSITION_IN_GRID_X) {
            let base = p.workgroup[i].wrapping_mul(p.local_size[i]);
            return Some(from_fn(|l| base.wrapping_add(local[l][i])));
        }
        Some(match sr {
            S::THREAD_INDEX_IN_THREADGROUP => from_fn(|l| p.simd_index * LANES as u32 + l as u32),
            S::THREAD_INDEX_IN_SIMDGROUP => from_fn(|l| l as u32),
            S::SIMDGROUP_INDEX_IN_THREADGROUP => [p.simd_index; LANES],
            _ => return None,
        })
    }
}

/// Apply an exec-mask step `f(old r0l, condition)` to the nesting counters of the lanes in
/// `alive`; the others keep theirs.
#[inline(always)]
fn nest(r0l: &mut [u16], alive: u32, holds: u32, f: impl Fn(u16, bool) -> u16) {
    for (l, v) in r0l.iter_mut().enumerate() {
        let nv = f(*v, holds >> l & 1 != 0);
        if alive >> l & 1 != 0 {
            *v = nv;
        }
    }
}

/// Bit `l` set where `f` holds for lane `l`'s pair.
#[inline(always)]
fn lane_mask<T: Copy>(a: &[T; LANES], b: &[T; LANES], f: impl Fn(T, T) -> bool) -> u32 {
    let mut m = 0u32;
    for l in 0..LANES {
        m |= u32::from(f(a[l], b[l])) << l;
    }
    m
}

pub fn uniform(u: &[u16], r: Reg) -> u64 {
    let h = usize::from(r.half);
    let at = |i: usize| u64::from(u[h + i]);
    match r.size {
        Size::S16 => at(0),
        Size::S32 => at(0) | at(1) << 16,
        Size::S64 => at(0) | at(1) << 16 | at(2) << 32 | at(3) << 48,
    }
}

pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn mask_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn wide(v: u64, bits: u32, signed: bool) -> i128 {
    let v = v & mask_bits(bits);
    if signed {
        i128::from(sext(v, bits))
    } else {
        i128::from(v)
    }
}

fn saturate(r: i128, bits: u32, signed: bool) -> u64 {
    let (lo, hi) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    r.clamp(lo, hi) as u64
}

/// applegpu: shifts of 5 or more give 0.
fn shl(v: u64, s: u8) -> u64 {
    if s < 5 {
        v << s
    } else {
        0
    }
}

fn shl64(v: u64, s: u64) -> u64 {
    if s >= 64 {
        0
    } else {
        v << s
    }
}

fn shr64(v: u64, s: u64) -> u64 {
    if s >= 64 {
        0
    } else {
        v >> s
    }
}

fn shl128(v: u64, s: u64) -> u128 {
    if s >= 128 {
        0
    } else {
        u128::from(v) << s
    }
}

/// A 32-bit arithmetic result as register bits: saturated when asked, the default NaN for
/// any NaN, flushed.
#[inline]
fn f32_out(r: f32, saturate: bool) -> u64 {
    let r = sat32(r, saturate);
    if r.is_nan() {
        return u64::from(hw::g13::float_mode::F32_DEFAULT_NAN);
    }
    u64::from(ftz(r).to_bits())
}

fn sat32(x: f32, on: bool) -> f32 {
    if !on {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn sat64(x: f64, on: bool) -> f64 {
    if !on {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// A float register value of `bits` width as f32.
pub fn bits_to_float(v: u64, bits: u32) -> f32 {
    if bits == 16 {
        f16_to_f32(v as u16)
    } else {
        ftz(f32::from_bits(v as u32))
    }
}

fn float_out(x: f64, r: Rounding, dst: Size) -> u64 {
    match dst {
        Size::S16 => u64::from(f64_to_f16(x, r)),
        _ => u64::from(ftz(f64_to_f32(x, r)).to_bits()),
    }
}

fn float_to_int(x: f32, r: Rounding, lo: f64, hi: f64) -> i64 {
    let x = f64::from(x);
    if x.is_nan() {
        return 0;
    }
    let x = match r {
        Rounding::NearestEven => x.round_ties_even(),
        Rounding::TowardZero => x.trunc(),
    };
    x.clamp(lo, hi) as i64
}

#[inline(always)]
fn convert(op: ConvertOp, v: u64, bits: u32, r: Rounding, dst: Size) -> u64 {
    let int = |x: i64| float_out(x as f64, r, dst);
    let f = || bits_to_float(v, bits);
    match op {
        ConvertOp::U32ToF => int((v & 0xffff_ffff) as i64),
        ConvertOp::S32ToF => int(sext(v & 0xffff_ffff, 32)),
        ConvertOp::U16ToF => int((v & 0xffff) as i64),
        ConvertOp::S16ToF => int(sext(v & 0xffff, 16)),
        ConvertOp::U8ToF => int((v & 0xff) as i64),
        ConvertOp::S8ToF => int(sext(v & 0xff, 8)),
        ConvertOp::FToU32 => float_to_int(f(), r, 0.0, 4_294_967_295.0) as u64,
        ConvertOp::FToS32 => float_to_int(f(), r, -2_147_483_648.0, 2_147_483_647.0) as u64,
        ConvertOp::FToU16 => float_to_int(f(), r, 0.0, 65535.0) as u64,
        ConvertOp::FToS16 => float_to_int(f(), r, -32768.0, 32767.0) as u64,
    }
}
