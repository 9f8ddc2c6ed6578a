//! Integer sequence encoding: how ASTC packs runs of values whose range is 2^n, 3 * 2^n
//! (a trit and n bits per value) or 5 * 2^n (a quint and n bits), and the unquantisation of
//! weights (to 0..=64) and colour endpoint values (to 0..=255).

/// The range of the values of one sequence: `levels` = 2^bits, 3 * 2^bits or 5 * 2^bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub kind: Kind,
    /// The low bits m of each value.
    pub bits: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bits,
    Trit,
    Quint,
}

impl Range {
    /// The range of `levels` values, `None` for a count no encoding has.
    pub fn of_levels(levels: u32) -> Option<Range> {
        let (kind, base) = if levels.is_power_of_two() {
            (Kind::Bits, levels)
        } else if levels.is_multiple_of(3) && (levels / 3).is_power_of_two() {
            (Kind::Trit, levels / 3)
        } else if levels.is_multiple_of(5) && (levels / 5).is_power_of_two() {
            (Kind::Quint, levels / 5)
        } else {
            return None;
        };
        Some(Range {
            kind,
            bits: base.trailing_zeros(),
        })
    }

    /// Bits of a sequence of `count` values: a trit costs 8/5 of a bit and a quint 7/3, the
    /// last partial group only the bits its values reach.
    pub fn sequence_bits(self, count: u32) -> u32 {
        count * self.bits
            + match self.kind {
                Kind::Bits => 0,
                Kind::Trit => (8 * count).div_ceil(5),
                Kind::Quint => (7 * count).div_ceil(3),
            }
    }
}

/// Reads bits upward from `pos` of a 128-bit word; bits at or past `end` read as 0, which is
/// how the specification fills the unused high bits of a sequence's last group.
struct Reader {
    src: u128,
    pos: u32,
    end: u32,
}

impl Reader {
    fn take(&mut self, n: u32) -> u32 {
        let mut v = 0;
        for i in 0..n {
            let p = self.pos + i;
            if p < self.end && p < 128 {
                v |= (((self.src >> p) & 1) as u32) << i;
            }
        }
        self.pos += n;
        v
    }
}

/// The five trits packed in the 8 bits `t` (the specification's bit manipulation).
pub fn unpack_trits(t: u32) -> [u32; 5] {
    let bit = |v: u32, i: u32| (v >> i) & 1;
    let field = |v: u32, lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
    let (c, t3, t4);
    if field(t, 2, 3) == 0b111 {
        c = (field(t, 5, 3) << 2) | field(t, 0, 2);
        t3 = 2;
        t4 = 2;
    } else {
        c = field(t, 0, 5);
        if field(t, 5, 2) == 0b11 {
            t4 = 2;
            t3 = bit(t, 7);
        } else {
            t4 = bit(t, 7);
            t3 = field(t, 5, 2);
        }
    }
    let (t0, t1, t2);
    if field(c, 0, 2) == 0b11 {
        t2 = 2;
        t1 = bit(c, 4);
        t0 = (bit(c, 3) << 1) | (bit(c, 2) & !bit(c, 3) & 1);
    } else if field(c, 2, 2) == 0b11 {
        t2 = 2;
        t1 = 2;
        t0 = field(c, 0, 2);
    } else {
        t2 = bit(c, 4);
        t1 = field(c, 2, 2);
        t0 = (bit(c, 1) << 1) | (bit(c, 0) & !bit(c, 1) & 1);
    }
    [t0, t1, t2, t3, t4]
}

/// The three quints packed in the 7 bits `q`.
pub fn unpack_quints(q: u32) -> [u32; 3] {
    let bit = |v: u32, i: u32| (v >> i) & 1;
    let field = |v: u32, lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
    if field(q, 1, 2) == 0b11 && field(q, 5, 2) == 0 {
        let not0 = !bit(q, 0) & 1;
        let q2 = (bit(q, 0) << 2) | ((bit(q, 4) & not0) << 1) | (bit(q, 3) & not0);
        return [4, 4, q2];
    }
    let (q2, c);
    if field(q, 1, 2) == 0b11 {
        q2 = 4;
        c = (field(q, 3, 2) << 3) | ((!field(q, 5, 2) & 3) << 1) | bit(q, 0);
    } else {
        q2 = field(q, 5, 2);
        c = field(q, 0, 5);
    }
    let (q0, q1) = if field(c, 0, 3) == 0b101 {
        (field(c, 3, 2), 4)
    } else {
        (field(c, 0, 3), field(c, 3, 2))
    };
    [q0, q1, q2]
}

/// One decoded value: its trit or quint (0 for a plain-bit range) and low bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Value {
    pub high: u32,
    pub low: u32,
}

/// Decodes `out.len()` values of `range` from the sequence of `len` bits at `start` of `src`.
pub fn decode(src: u128, start: u32, len: u32, range: Range, out: &mut [Value]) {
    let mut r = Reader {
        src,
        pos: start,
        end: start.saturating_add(len),
    };
    let n = range.bits;
    match range.kind {
        Kind::Bits => {
            for v in out.iter_mut() {
                *v = Value {
                    high: 0,
                    low: r.take(n),
                };
            }
        }
        Kind::Trit => {
            // A group is m0 T1:0 m1 T3:2 m2 T4 m3 T6:5 m4 T7, low bits first.
            const T_BITS: [u32; 5] = [2, 2, 1, 2, 1];
            for group in out.chunks_mut(5) {
                let mut m = [0; 5];
                let mut t = 0;
                let mut shift = 0;
                for (i, &tb) in T_BITS.iter().enumerate() {
                    m[i] = r.take(n);
                    t |= r.take(tb) << shift;
                    shift += tb;
                }
                let trits = unpack_trits(t);
                for (i, v) in group.iter_mut().enumerate() {
                    *v = Value {
                        high: trits[i],
                        low: m[i],
                    };
                }
            }
        }
        Kind::Quint => {
            // A group is m0 Q2:0 m1 Q4:3 m2 Q6:5.
            const Q_BITS: [u32; 3] = [3, 2, 2];
            for group in out.chunks_mut(3) {
                let mut m = [0; 3];
                let mut q = 0;
                let mut shift = 0;
                for (i, &qb) in Q_BITS.iter().enumerate() {
                    m[i] = r.take(n);
                    q |= r.take(qb) << shift;
                    shift += qb;
                }
                let quints = unpack_quints(q);
                for (i, v) in group.iter_mut().enumerate() {
                    *v = Value {
                        high: quints[i],
                        low: m[i],
                    };
                }
            }
        }
    }
}

/// `v` (of `n` bits, n >= 1) scaled to `to` bits by repeating its bit pattern.
pub fn replicate(v: u32, n: u32, to: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut out = 0;
    let mut have = 0;
    while have < to {
        out = (out << n) | v;
        have += n;
    }
    out >> (have - to)
}

/// The B term of the trit/quint unquantisation: `pattern` lists the bits of B from the most
/// significant down, each a letter naming a low bit of the value ('b' bit 1, 'c' bit 2 ...)
/// or '0'.
fn spread(pattern: &str, low: u32) -> u32 {
    pattern.bytes().fold(0, |acc, ch| {
        let bit = match ch {
            b'b'..=b'f' => (low >> (ch - b'a')) & 1,
            _ => 0,
        };
        (acc << 1) | bit
    })
}

/// The specification's unquantisation of a trit or quint value to `width` bits (7 for
/// weights, 9 for colours, of which the top `width - 2` survive): A is bit 0 of the low bits
/// repeated, and T = ((D * C + B) ^ A) >> 2 with A's top bit kept.
fn unquantise_tq(v: Value, c: u32, pattern: &str, width: u32) -> u32 {
    let a = if v.low & 1 != 0 { (1 << width) - 1 } else { 0 };
    let b = spread(pattern, v.low);
    let top = 1 << (width - 2);
    (((v.high * c + b) ^ a) >> 2) | (a & top)
}

/// A weight value to 0..=64.
pub fn unquantise_weight(range: Range, v: Value) -> u32 {
    let w = match (range.kind, range.bits) {
        (Kind::Bits, n) => replicate(v.low, n, 6),
        (Kind::Trit, 0) => [0, 32, 63][v.high.min(2) as usize],
        (Kind::Quint, 0) => [0, 16, 32, 47, 63][v.high.min(4) as usize],
        (Kind::Trit, 1) => unquantise_tq(v, 50, "0000000", 7),
        (Kind::Quint, 1) => unquantise_tq(v, 28, "0000000", 7),
        (Kind::Trit, 2) => unquantise_tq(v, 23, "b000b0b", 7),
        (Kind::Quint, 2) => unquantise_tq(v, 13, "b0000b0", 7),
        (Kind::Trit, _) => unquantise_tq(v, 11, "cb000cb", 7),
        (Kind::Quint, _) => 0,
    };
    // 0..=63 stretched to 0..=64 so that the top value is exactly the second endpoint.
    if w > 32 {
        w + 1
    } else {
        w
    }
}

/// A colour endpoint value to 0..=255.
pub fn unquantise_colour(range: Range, v: Value) -> u32 {
    match (range.kind, range.bits) {
        (Kind::Bits, n) => replicate(v.low, n, 8),
        (Kind::Trit, 1) => unquantise_tq(v, 204, "000000000", 9),
        (Kind::Quint, 1) => unquantise_tq(v, 113, "000000000", 9),
        (Kind::Trit, 2) => unquantise_tq(v, 93, "b000b0bb0", 9),
        (Kind::Quint, 2) => unquantise_tq(v, 54, "b0000bb00", 9),
        (Kind::Trit, 3) => unquantise_tq(v, 44, "cb000cbcb", 9),
        (Kind::Quint, 3) => unquantise_tq(v, 26, "cb0000cbc", 9),
        (Kind::Trit, 4) => unquantise_tq(v, 22, "dcb000dcb", 9),
        (Kind::Quint, 4) => unquantise_tq(v, 13, "dcb0000dc", 9),
        (Kind::Trit, 5) => unquantise_tq(v, 11, "edcb000ed", 9),
        (Kind::Quint, 5) => unquantise_tq(v, 6, "edcb0000e", 9),
        (Kind::Trit, 6) => unquantise_tq(v, 5, "fedcb000f", 9),
        // Ranges below 0..5 are illegal for colours (the block is rejected before this).
        _ => 0,
    }
}
