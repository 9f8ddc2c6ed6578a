//! The G16 forms agx4 can encode and decode field by field: each run on an M4 by the public
//! sources (niklassheth/mesa's Apple9 packer and the agx-re experiments it cites). An
//! instruction is one little-endian bit string; a decode re-encodes its fields and refuses
//! anything that does not come back bit for bit, so no bit the sources leave unexplained is
//! carried along silently.

use super::length;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FormError {
    #[error("register r{reg} is out of this form's reach (r0 to r{max})")]
    Reach { reg: u8, max: u8 },
    #[error("value {value} does not fit the field `{field}`")]
    Field { field: &'static str, value: u32 },
    #[error("the bytes are not this form")]
    NotThisForm,
    #[error("bits {bits:#x} of this form have no published meaning")]
    Unexplained { bits: u128 },
}

/// A little-endian bit string of up to 16 bytes.
#[derive(Clone, Copy, Default)]
struct Bits(u128);

impl Bits {
    fn of(bytes: &[u8]) -> Bits {
        let mut v = 0u128;
        for (i, &b) in bytes.iter().enumerate().take(16) {
            v |= u128::from(b) << (8 * i);
        }
        Bits(v)
    }
    fn get(self, lo: u32, n: u32) -> u32 {
        ((self.0 >> lo) & ((1u128 << n) - 1)) as u32
    }
    fn put(&mut self, lo: u32, n: u32, v: u32) {
        self.0 |= (u128::from(v) & ((1u128 << n) - 1)) << lo;
    }
    fn bytes(self, len: usize) -> Vec<u8> {
        (0..len).map(|i| (self.0 >> (8 * i)) as u8).collect()
    }
}

fn reach(reg: u8, max: u8) -> Result<u8, FormError> {
    if reg > max {
        return Err(FormError::Reach { reg, max });
    }
    Ok(reg)
}

/// A decode that re-encodes to exactly `bytes`, or the bits that differ.
fn exact(bytes: &[u8], again: &[u8]) -> Result<(), FormError> {
    if bytes == again {
        return Ok(());
    }
    let (a, b) = (Bits::of(bytes), Bits::of(again));
    Err(FormError::Unexplained { bits: a.0 ^ b.0 })
}

/// A register source of the compact forms: its number, whether all 32 bits are read, and
/// whether it stays live after the instruction (otherwise the hardware may discard it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub reg: u8,
    pub wide: bool,
    pub keep: bool,
}

/// mov_imm: a 7-bit immediate into r0 to r15.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MovImm {
    pub dst: u8,
    pub value: u8,
}

impl MovImm {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let dst = reach(self.dst, 15)?;
        if self.value > 0x7f {
            return Err(FormError::Field {
                field: "imm7",
                value: self.value.into(),
            });
        }
        Ok(vec![dst << 4 | 0x0c, self.value])
    }

    pub fn decode(b: &[u8]) -> Result<MovImm, FormError> {
        match *b {
            [b0, b1, ..] if b0 & 0x0f == 0x0c && b1 < 0x80 => Ok(MovImm {
                dst: b0 >> 4,
                value: b1,
            }),
            _ => Err(FormError::NotThisForm),
        }
    }
}

/// The 32-bit immediate move ("mode 2"): any value into r0 to r63, its bits scattered over
/// the instruction (EXP-M4-37, all 32 payload bits in four banks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MovImm32 {
    pub dst: u8,
    pub value: u32,
}

impl MovImm32 {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let (d, v) = (reach(self.dst, 63)?, self.value);
        Ok(vec![
            (d & 0xf) << 4 | 0x0c,
            0x80 | (v & 0x7f) as u8,
            (d >> 4) << 6 | 0x02,
            (v >> 24) as u8 & 0xfe,
            (v >> 6) as u8 & 0x1e,
            (v >> 9) as u8 & 0x0c,
            (v >> 13) as u8,
            (v >> 21) as u8 & 0x0f,
        ])
    }

    pub fn decode(b: &[u8]) -> Result<MovImm32, FormError> {
        let b: [u8; 8] = b
            .get(..8)
            .and_then(|s| s.try_into().ok())
            .ok_or(FormError::NotThisForm)?;
        if b[0] & 0x0f != 0x0c || b[1] & 0x80 == 0 || b[2] & 0x1f != 0x02 {
            return Err(FormError::NotThisForm);
        }
        let v = u32::from(b[1] & 0x7f)
            | u32::from(b[3] & 0xfe) << 24
            | u32::from(b[4] & 0x1e) << 6
            | u32::from(b[5] & 0x0c) << 9
            | u32::from(b[6]) << 13
            | u32::from(b[7] & 0x0f) << 21;
        let m = MovImm32 {
            dst: b[0] >> 4 | (b[2] >> 6) << 4,
            value: v,
        };
        exact(&b, &m.encode()?)?;
        Ok(m)
    }
}

/// A special register read into r0 to r15 (selector byte; `0xa0` is the thread's position
/// in the grid, x).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetSr {
    pub dst: u8,
    pub selector: u8,
}

impl GetSr {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        Ok(vec![
            reach(self.dst, 15)? << 4 | 0x0c,
            self.selector,
            0x10,
            0x06,
        ])
    }

    pub fn decode(b: &[u8]) -> Result<GetSr, FormError> {
        match *b {
            [b0, sel, 0x10, 0x06, ..] if b0 & 0x0f == 0x0c && sel >= 0x80 => Ok(GetSr {
                dst: b0 >> 4,
                selector: sel,
            }),
            _ => Err(FormError::NotThisForm),
        }
    }
}

/// The two-source compact ALU forms of 6 bytes: float add and multiply (group 9) and
/// min/max (group 2), with the register map of EXP-M4-38 (every role reaches r0 to r95).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compact2 {
    pub op: Compact2Op,
    pub dst: u8,
    pub a: Source,
    pub b: Source,
    /// The scoreboard slot (1 to 6) whose pending result the sources wait for; 0 for none.
    pub slot: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compact2Op {
    FAdd,
    FMul,
    /// b is negated: a - b.
    FSub,
    Min(MinMax),
    Max(MinMax),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinMax {
    Float,
    Unsigned,
    Signed,
}

/// Where compact forms keep each 7-bit register: (bits of its low part, bit 6's position).
const DST_MAP: [(u32, u32); 2] = [(4, 4), (22, 2)];

impl Compact2 {
    fn group_op(&self) -> (u32, u32, u32, bool) {
        // (byte 0 group, op select, byte 4 select, negate b)
        let sel = |m: MinMax, max: bool| match (m, max) {
            (MinMax::Float, true) => 0,
            (MinMax::Float, false) => 1,
            (MinMax::Unsigned, true) => 4,
            (MinMax::Unsigned, false) => 5,
            (MinMax::Signed, true) => 6,
            (MinMax::Signed, false) => 7,
        };
        match self.op {
            Compact2Op::FAdd => (0x9, 4, 0, false),
            Compact2Op::FMul => (0x9, 5, 0, false),
            Compact2Op::FSub => (0x9, 4, 0, true),
            Compact2Op::Min(m) => (0x2, 6, sel(m, false), false),
            Compact2Op::Max(m) => (0x2, 6, sel(m, true), false),
        }
    }

    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let (group, opsel, select, negate) = self.group_op();
        let d = u32::from(reach(self.dst, 95)?);
        let (a, b) = (self.a, self.b);
        reach(a.reg, 95)?;
        reach(b.reg, 95)?;
        if self.slot > 6 {
            return Err(FormError::Field {
                field: "slot",
                value: self.slot.into(),
            });
        }
        let mut x = Bits::default();
        x.put(0, 4, group);
        x.put(DST_MAP[0].0, DST_MAP[0].1, d);
        x.put(DST_MAP[1].0, DST_MAP[1].1, d >> 4);
        x.put(44, 1, d >> 6);
        x.put(8, 1, a.wide.into());
        x.put(9, 6, a.reg.into());
        x.put(40, 1, u32::from(a.reg) >> 6);
        x.put(15, 1, a.keep.into());
        x.put(19, 1, (!a.keep).into());
        x.put(24, 1, b.wide.into());
        x.put(25, 6, b.reg.into());
        x.put(42, 1, u32::from(b.reg) >> 6);
        x.put(31, 1, b.keep.into());
        x.put(20, 1, (!b.keep).into());
        x.put(16, 3, opsel);
        x.put(21, 1, 1); // the destination is published
        x.put(32, 3, select);
        x.put(43, 1, negate.into());
        x.put(45, 3, self.slot.into());
        Ok(x.bytes(6))
    }

    pub fn decode(bytes: &[u8]) -> Result<Compact2, FormError> {
        let b = bytes.get(..6).ok_or(FormError::NotThisForm)?;
        if length::length(b) != Ok(6) {
            return Err(FormError::NotThisForm);
        }
        let x = Bits::of(b);
        let (group, opsel, select, negate) =
            (x.get(0, 4), x.get(16, 3), x.get(32, 3), x.get(43, 1));
        let mm = |s: u32| match s >> 1 {
            0 => Some(MinMax::Float),
            2 => Some(MinMax::Unsigned),
            3 => Some(MinMax::Signed),
            _ => None,
        };
        let op = match (group, opsel, negate) {
            (0x9, 4, 0) => Compact2Op::FAdd,
            (0x9, 4, 1) => Compact2Op::FSub,
            (0x9, 5, 0) => Compact2Op::FMul,
            (0x2, 6, 0) => {
                let m = mm(select).ok_or(FormError::NotThisForm)?;
                if select & 1 == 0 {
                    Compact2Op::Max(m)
                } else {
                    Compact2Op::Min(m)
                }
            }
            _ => return Err(FormError::NotThisForm),
        };
        let c = Compact2 {
            op,
            dst: (x.get(4, 4) | x.get(22, 2) << 4 | x.get(44, 1) << 6) as u8,
            a: Source {
                reg: (x.get(9, 6) | x.get(40, 1) << 6) as u8,
                wide: x.get(8, 1) != 0,
                keep: x.get(15, 1) != 0,
            },
            b: Source {
                reg: (x.get(25, 6) | x.get(42, 1) << 6) as u8,
                wide: x.get(24, 1) != 0,
                keep: x.get(31, 1) != 0,
            },
            slot: x.get(45, 3) as u8,
        };
        exact(b, &c.encode()?)?;
        Ok(c)
    }
}

/// Fused multiply-add, 8 bytes: dst = a * b + c, every role r0 to r95 (EXP-M4-16, EXP-M4-38).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fma {
    pub dst: u8,
    pub a: Source,
    pub b: Source,
    /// The addend; the sources read it at 32 bits.
    pub c: Source,
    pub slot: u8,
}

impl Fma {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let d = u32::from(reach(self.dst, 95)?);
        for s in [self.a, self.b, self.c] {
            reach(s.reg, 95)?;
        }
        if self.slot > 6 {
            return Err(FormError::Field {
                field: "slot",
                value: self.slot.into(),
            });
        }
        let (a, b, c) = (self.a, self.b, self.c);
        let mut x = Bits::default();
        x.put(0, 4, 0x9);
        x.put(4, 4, d);
        x.put(22, 2, d >> 4);
        x.put(60, 1, d >> 6);
        x.put(8, 1, a.wide.into());
        x.put(9, 6, a.reg.into());
        x.put(56, 1, u32::from(a.reg) >> 6);
        x.put(15, 1, a.keep.into());
        x.put(19, 1, (!a.keep).into());
        x.put(24, 1, b.wide.into());
        x.put(25, 6, b.reg.into());
        x.put(58, 1, u32::from(b.reg) >> 6);
        x.put(31, 1, b.keep.into());
        x.put(20, 1, (!b.keep).into());
        x.put(41, 6, c.reg.into());
        x.put(38, 1, u32::from(c.reg) >> 6);
        x.put(47, 1, c.keep.into());
        x.put(39, 1, (!c.keep).into());
        x.put(16, 3, 6); // the fma operation
        x.put(21, 1, 1); // the destination is published
        x.put(32, 2, 1); // the 8-byte length
        x.put(49, 1, 1); // set in every published fma
        x.put(61, 3, self.slot.into());
        Ok(x.bytes(8))
    }

    pub fn decode(bytes: &[u8]) -> Result<Fma, FormError> {
        let b = bytes.get(..8).ok_or(FormError::NotThisForm)?;
        let x = Bits::of(b);
        if x.get(0, 4) != 0x9 || x.get(16, 3) != 6 || x.get(32, 2) != 1 {
            return Err(FormError::NotThisForm);
        }
        let f = Fma {
            dst: (x.get(4, 4) | x.get(22, 2) << 4 | x.get(60, 1) << 6) as u8,
            a: Source {
                reg: (x.get(9, 6) | x.get(56, 1) << 6) as u8,
                wide: x.get(8, 1) != 0,
                keep: x.get(15, 1) != 0,
            },
            b: Source {
                reg: (x.get(25, 6) | x.get(58, 1) << 6) as u8,
                wide: x.get(24, 1) != 0,
                keep: x.get(31, 1) != 0,
            },
            c: Source {
                reg: (x.get(41, 6) | x.get(38, 1) << 6) as u8,
                wide: true,
                keep: x.get(47, 1) != 0,
            },
            slot: x.get(61, 3) as u8,
        };
        exact(b, &f.encode()?)?;
        Ok(f)
    }
}

/// A compare of two 32-bit registers (r0 to r63) into predicate bank p0 to p5, 6 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredicateCompare {
    pub bank: u8,
    pub cond: PredicateCond,
    /// Write the comparison's negation.
    pub invert: bool,
    pub a: Source,
    pub b: Source,
}

/// The short compare's conditions (byte 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredicateCond {
    FGt = 2,
    FLt = 3,
    UGt = 4,
    ULt = 5,
    SGt = 6,
    SLt = 7,
}

impl PredicateCompare {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        if self.bank > 5 {
            return Err(FormError::Field {
                field: "predicate bank",
                value: self.bank.into(),
            });
        }
        let (a, b) = (reach(self.a.reg, 63)?, reach(self.b.reg, 63)?);
        let control = 0x22 | u8::from(!self.a.keep) << 3 | u8::from(!self.b.keep) << 4;
        Ok(vec![
            0x0a | self.bank << 5 | u8::from(self.invert) << 4,
            a << 1 | 1,
            control,
            b << 1 | 1,
            self.cond as u8,
            0xc0,
        ])
    }

    pub fn decode(bytes: &[u8]) -> Result<PredicateCompare, FormError> {
        let b = bytes.get(..6).ok_or(FormError::NotThisForm)?;
        if b[0] & 0x0f != 0x0a || b[2] & 0xe7 != 0x22 || b[5] != 0xc0 {
            return Err(FormError::NotThisForm);
        }
        let cond = match b[4] {
            2 => PredicateCond::FGt,
            3 => PredicateCond::FLt,
            4 => PredicateCond::UGt,
            5 => PredicateCond::ULt,
            6 => PredicateCond::SGt,
            7 => PredicateCond::SLt,
            _ => return Err(FormError::NotThisForm),
        };
        let p = PredicateCompare {
            bank: b[0] >> 5,
            cond,
            invert: b[0] & 0x10 != 0,
            a: Source {
                reg: b[1] >> 1,
                wide: true,
                keep: b[2] & 0x08 == 0,
            },
            b: Source {
                reg: b[3] >> 1,
                wide: true,
                keep: b[2] & 0x10 == 0,
            },
        };
        exact(b, &p.encode()?)?;
        Ok(p)
    }
}

/// Structured control flow on the execution mask (EXP-M4-46/53). Pushes and updates read a
/// predicate bank (0 to 5), or 6 for "true" and 7 for "false".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecControl {
    /// Enter an `if`: lanes whose predicate (or its negation) holds stay active.
    Push {
        src: u8,
        invert: bool,
    },
    Else,
    /// Leave an `if` scope.
    Pop,
    /// Enter a loop scope.
    LoopPush,
    /// The loop's latch: lanes whose predicate holds go round again.
    LoopUpdate {
        bank: u8,
        invert: bool,
    },
    /// Leave a loop scope.
    LoopPop,
    /// Unwind to loop depth `depth` from scope depth `scope`.
    Break {
        scope: u8,
        depth: u8,
    },
    /// Branch by `offset` bytes from this instruction's start when any lane (or no lane)
    /// is active.
    Jump {
        if_none: bool,
        offset: i64,
    },
}

impl ExecControl {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let field = |field, value: u8, max| {
            if value > max {
                Err(FormError::Field {
                    field,
                    value: value.into(),
                })
            } else {
                Ok(value)
            }
        };
        Ok(match *self {
            ExecControl::Push { src, invert } => {
                let src = field("predicate", src, 7)?;
                vec![0x0f, 0x05, 0x54, 0x01 | src << 2 | u8::from(invert) << 5]
            }
            ExecControl::Else => vec![0x0f, 0x04, 0x04, 0x19],
            ExecControl::Pop => vec![0x0f, 0x06, 0x04, 0x01, 0x00, 0x00],
            ExecControl::LoopPush => vec![0x0f, 0x05, 0x54, 0x1a],
            ExecControl::LoopUpdate { bank, invert } => {
                let bank = field("predicate bank", bank, 5)?;
                vec![0x8f, 0x04, 0x54, 0x02 | bank << 2 | u8::from(invert) << 5]
            }
            ExecControl::LoopPop => vec![0x0f, 0x06, 0x04, 0x02, 0x00, 0x00],
            ExecControl::Break { scope, depth } => vec![0x8f, 0x05, 0x54, scope, 0x00, depth],
            ExecControl::Jump { if_none, offset } => {
                if !(-(1i64 << 47)..1i64 << 47).contains(&offset) {
                    return Err(FormError::Field {
                        field: "jump offset",
                        value: offset as u32,
                    });
                }
                let mut v = vec![0x0f, u8::from(if_none), 0x54];
                v.extend_from_slice(&offset.to_le_bytes()[..6]);
                v.push(0x00);
                v
            }
        })
    }

    pub fn decode(b: &[u8]) -> Result<ExecControl, FormError> {
        let n = length::length(b).map_err(|_| FormError::NotThisForm)?;
        let b = b.get(..n).ok_or(FormError::NotThisForm)?;
        let c = match *b {
            [0x0f, 0x05, 0x54, 0x1a] => ExecControl::LoopPush,
            [0x0f, 0x05, 0x54, x] if x & 0x03 == 0x01 => ExecControl::Push {
                src: x >> 2 & 7,
                invert: x & 0x20 != 0,
            },
            [0x0f, 0x04, 0x04, 0x19] => ExecControl::Else,
            [0x0f, 0x06, 0x04, 0x01, 0, 0] => ExecControl::Pop,
            [0x0f, 0x06, 0x04, 0x02, 0, 0] => ExecControl::LoopPop,
            [0x8f, 0x04, 0x54, x] if x & 0x03 == 0x02 => ExecControl::LoopUpdate {
                bank: x >> 2 & 7,
                invert: x & 0x20 != 0,
            },
            [0x8f, 0x05, 0x54, scope, 0x00, depth] => ExecControl::Break { scope, depth },
            [0x0f, k @ (0x00 | 0x01), 0x54, o0, o1, o2, o3, o4, o5, 0x00] => {
                let raw = i64::from_le_bytes([o0, o1, o2, o3, o4, o5, 0, 0]);
                ExecControl::Jump {
                    if_none: k == 1,
                    offset: raw << 16 >> 16,
                }
            }
            _ => return Err(FormError::NotThisForm),
        };
        exact(b, &c.encode()?)?;
        Ok(c)
    }
}

/// Integer to float and float to integer, 32-bit (i2f/u2f 8 bytes, f2i/f2u 10 bytes);
/// registers r0 to r63. Float to integer truncates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Convert {
    pub to_float: bool,
    pub signed: bool,
    pub dst: u8,
    pub src: Source,
}

impl Convert {
    pub fn encode(&self) -> Result<Vec<u8>, FormError> {
        let (d, s) = (reach(self.dst, 63)?, reach(self.src.reg, 63)?);
        Ok(match self.to_float {
            true => vec![
                0xa7,
                0x07,
                0x54,
                d << 1,
                0x03,
                s << 2,
                if self.src.keep { 0x8c } else { 0xac },
                if self.signed { 0x60 } else { 0x20 },
            ],
            false => vec![
                0x27,
                0x07,
                0x54,
                d << 1,
                0x03,
                s << 2,
                0xb4,
                if self.signed { 0x48 } else { 0x08 },
                0x03,
                0x00,
            ],
        })
    }

    pub fn decode(b: &[u8]) -> Result<Convert, FormError> {
        let to_float = match b {
            [0xa7, 0x07, 0x54, ..] => true,
            [0x27, 0x07, 0x54, ..] => false,
            _ => return Err(FormError::NotThisForm),
        };
        let n = if to_float { 8 } else { 10 };
        let b = b.get(..n).ok_or(FormError::NotThisForm)?;
        let c = Convert {
            to_float,
            signed: b[7] & 0x40 != 0,
            dst: b[3] >> 1,
            src: Source {
                reg: b[5] >> 2,
                wide: true,
                // Float to integer has no published keep bit; its sources are read as kept.
                keep: !to_float || b[6] == 0x8c,
            },
        };
        exact(b, &c.encode()?)?;
        Ok(c)
    }
}
