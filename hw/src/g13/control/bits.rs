//! The field-table mechanism: a control word is a list of [`Field`]s, each a bit range with an
//! optional modifier, and one pair of functions packs and unpacks any of them. Word layouts
//! elsewhere in this module are data (`const` tables), not hand-written shifts.

use crate::WordError;

/// How a field's value is stored in its bits (the genxml modifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Stored as is.
    None,
    /// Stored shifted right by n; the low n bits must be zero (addresses with an alignment).
    Shr(u32),
    /// Stored as a count of groups of n, rounded up; a count of `1 << width` is stored as 0,
    /// and 0 is not representable (it packs as one group, as Mesa's packer does).
    Groups(u32),
    /// Stored as log2 of the value (the value is a power of two; 0 packs as 0).
    Log2,
}

/// One field of a control word: `width` bits starting at bit `start` of the word's
/// little-endian byte string (bit 32 is bit 0 of the second 32-bit word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub start: u32,
    pub width: u32,
    pub modifier: Modifier,
}

impl Field {
    pub const fn new(name: &'static str, start: u32, width: u32) -> Field {
        Field {
            name,
            start,
            width,
            modifier: Modifier::None,
        }
    }

    pub const fn with(name: &'static str, start: u32, width: u32, modifier: Modifier) -> Field {
        Field {
            name,
            start,
            width,
            modifier,
        }
    }

    fn mask(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// The raw bits for `value`, after the modifier. Values that do not fit are truncated to
    /// the field; callers that need to refuse them check with [`Field::fits`].
    pub fn encode(&self, value: u64) -> u64 {
        let raw = match self.modifier {
            Modifier::None => value,
            Modifier::Shr(n) => value >> n,
            Modifier::Groups(n) => {
                let groups = value.div_ceil(u64::from(n)).max(1);
                if groups == 1u64 << self.width {
                    0
                } else {
                    groups
                }
            }
            Modifier::Log2 => {
                if value == 0 {
                    0
                } else {
                    u64::from(63 - value.leading_zeros())
                }
            }
        };
        raw & self.mask()
    }

    /// The value stored in `raw` bits.
    pub fn decode(&self, raw: u64) -> u64 {
        let raw = raw & self.mask();
        match self.modifier {
            Modifier::None => raw,
            Modifier::Shr(n) => raw << n,
            Modifier::Groups(n) => u64::from(n) * if raw == 0 { 1u64 << self.width } else { raw },
            Modifier::Log2 => 1u64 << raw,
        }
    }

    /// The value the hardware reads back for `value`: a count rounded up to the field's
    /// groups (at least one), an address with its low bits cleared.
    pub fn stored(&self, value: u64) -> u64 {
        self.decode(self.encode(value))
    }

    /// Whether `value` is represented exactly.
    pub fn fits(&self, value: u64) -> bool {
        self.decode(self.encode(value)) == value
    }

    /// The eight bytes of `bytes` from `first` that hold this field whole, with the field's
    /// shift in them: the window ends at the word's end when the field starts in the last
    /// eight bytes, so most fields of a control word take one 64-bit read-modify-write.
    #[inline(always)]
    fn window(&self, len: usize) -> Option<(usize, u32)> {
        let first = ((self.start / 8) as usize).min(len.checked_sub(8)?);
        let shift = self.start - 8 * first as u32;
        (shift + self.width <= 64).then_some((first, shift))
    }

    /// Store `value` into `bytes` (bits past the end of `bytes` are dropped). Control streams
    /// are packed on every draw, so this is on the driver's hot path.
    #[inline(always)]
    pub fn put(&self, bytes: &mut [u8], value: u64) {
        let raw = self.encode(value);
        if let Some((first, shift)) = self.window(bytes.len()) {
            if let Some(w) = bytes
                .get_mut(first..first + 8)
                .and_then(|w| <&mut [u8; 8]>::try_from(w).ok())
            {
                let m = self.mask() << shift;
                *w = ((u64::from_le_bytes(*w) & !m) | ((raw << shift) & m)).to_le_bytes();
                return;
            }
        }
        // A one-word (32-bit) control word.
        if let Ok(w) = <&mut [u8; 4]>::try_from(&mut *bytes) {
            if self.start + self.width <= 32 {
                let m = (self.mask() << self.start) as u32;
                let v = (raw << self.start) as u32 & m;
                *w = ((u32::from_le_bytes(*w) & !m) | v).to_le_bytes();
                return;
            }
        }
        self.put_bytes(bytes, raw);
    }

    /// `put` a byte at a time: short words, and fields wider than one window.
    #[cold]
    fn put_bytes(&self, bytes: &mut [u8], raw: u64) {
        let mut done = 0;
        while done < self.width {
            let bit = self.start + done;
            let (byte, shift) = ((bit / 8) as usize, bit % 8);
            let n = (8 - shift).min(self.width - done);
            let low = ((1u16 << n) - 1) as u8;
            let bits = (raw >> done) as u8 & low;
            if let Some(b) = bytes.get_mut(byte) {
                *b = (*b & !(low << shift)) | (bits << shift);
            }
            done += n;
        }
    }

    /// Read the value of this field from `bytes` (missing bytes read as zero).
    #[inline(always)]
    pub fn get(&self, bytes: &[u8]) -> u64 {
        if let Some((first, shift)) = self.window(bytes.len()) {
            if let Some(w) = bytes
                .get(first..first + 8)
                .and_then(|w| <[u8; 8]>::try_from(w).ok())
            {
                return self.decode(u64::from_le_bytes(w) >> shift);
            }
        }
        if let Ok(w) = <[u8; 4]>::try_from(bytes) {
            if self.start + self.width <= 32 {
                return self.decode(u64::from(u32::from_le_bytes(w)) >> self.start);
            }
        }
        self.get_bytes(bytes)
    }

    #[cold]
    fn get_bytes(&self, bytes: &[u8]) -> u64 {
        let mut raw = 0u64;
        let mut done = 0;
        while done < self.width {
            let bit = self.start + done;
            let (byte, shift) = ((bit / 8) as usize, bit % 8);
            let n = (8 - shift).min(self.width - done);
            let low = ((1u16 << n) - 1) as u8;
            let b = bytes.get(byte).copied().unwrap_or(0);
            raw |= u64::from((b >> shift) & low) << done;
            done += n;
        }
        self.decode(raw)
    }
}

/// A malformed word: `why` names the field or rule it broke. The address is filled in by the
/// reader that knows where the word came from.
pub fn bad(why: impl Into<String>) -> WordError {
    WordError::Malformed {
        va: 0,
        reason: why.into(),
    }
}

/// `bytes` must hold at least `n` bytes.
pub fn need(bytes: &[u8], n: usize, what: &str) -> Result<(), WordError> {
    if bytes.len() < n {
        Err(bad(format!(
            "{what}: {} bytes given, {n} needed",
            bytes.len()
        )))
    } else {
        Ok(())
    }
}

/// Re-address a fault raised while unpacking bytes read from `va`.
pub fn at(va: u64) -> impl Fn(WordError) -> WordError {
    move |f| match f {
        WordError::Malformed { reason, .. } => WordError::Malformed { va, reason },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_modifier_stores_all_as_zero_and_rounds_up() {
        let f = Field::with("n", 0, 3, Modifier::Groups(64));
        assert_eq!(f.encode(512), 0);
        assert_eq!(f.decode(0), 512);
        assert_eq!(f.encode(65), 2);
        assert_eq!(f.encode(0), 1);
    }

    #[test]
    fn fields_cross_byte_and_word_boundaries() {
        let f = Field::with("buf", 26, 38, Modifier::Shr(2));
        let mut b = [0u8; 8];
        f.put(&mut b, 0x12_3456_789c);
        assert_eq!(u64::from_le_bytes(b), (0x12_3456_789cu64 >> 2) << 26);
        assert_eq!(f.get(&b), 0x12_3456_789c);
    }

    /// Every start and width up to 64 bits, in words of 4, 8 and 12 bytes: the field's bits
    /// change and no other bit does, and `get` reads back what `put` wrote; a field past the
    /// end is cut.
    #[test]
    fn put_touches_exactly_the_fields_bits() {
        for len in [4, 8, 12] {
            put_touches_exactly_the_fields_bits_of(len);
        }
    }

    fn put_touches_exactly_the_fields_bits_of(len: usize) {
        let value = 0xf0e1_d2c3_b4a5_9687u64;
        let bits = 8 * len as u32;
        for start in 0..bits {
            for width in 1..=64 {
                let f = Field::new("f", start, width);
                for background in [0u8, 0xff] {
                    let mut b = vec![background; len];
                    f.put(&mut b, value);
                    for bit in 0..bits {
                        let got = (b[bit as usize / 8] >> (bit % 8)) & 1;
                        let want = if (start..start + width).contains(&bit) {
                            ((value >> (bit - start)) & 1) as u8
                        } else {
                            background & 1
                        };
                        assert_eq!(got, want, "start {start} width {width} bit {bit}");
                    }
                    let kept = if start + width <= bits {
                        f.encode(value)
                    } else {
                        f.encode(value) & ((1u64 << (bits - start)) - 1)
                    };
                    assert_eq!(f.get(&b), f.decode(kept), "start {start} width {width}");
                }
            }
        }
    }
}
