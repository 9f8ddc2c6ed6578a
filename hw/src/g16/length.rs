//! G16's length rules: how long the instruction at the start of some bytes is.
//!
//! G16 instructions are whole 2-byte parcels, but unlike G13's their first parcel has no
//! length bit: the length follows from byte 0 (the group is mostly its low nibble; the high
//! nibble is often a register) and, per group, bits of later bytes, as far as byte 6. The rules
//! below are the ones niklassheth/agx-re publishes (its length table and the corrections L1 to
//! L4), checked against every byte string the sources publish with a length (`tests.rs`).
//! Where the sources give no rule, or contradict each other, the instruction is refused with
//! the reason instead of guessed at. Framing must start at a program's first instruction: a
//! rule says how long an instruction is, never whether one starts at a given byte.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LengthError {
    #[error("the instruction's length depends on byte {needs}, past the end of the code")]
    Truncated { needs: usize },
    #[error("no published length rule for an instruction starting {leading:02x?}: {why}")]
    Unknown { leading: Vec<u8>, why: &'static str },
}

/// Length in bytes of the instruction `code` starts with.
pub fn length(code: &[u8]) -> Result<usize, LengthError> {
    let byte = |i: usize| {
        code.get(i)
            .copied()
            .ok_or(LengthError::Truncated { needs: i })
    };
    let unknown = |why| LengthError::Unknown {
        leading: code.iter().take(4).copied().collect(),
        why,
    };
    let b0 = byte(0)?;
    // Leaders with a byte 0 of their own.
    match b0 {
        0x0e => return Ok(4), // stop
        0x43 => return Ok(4), // call-site marker
        // The frame marker (measured 4 in straight-line compute, EXP-0199); other 0x60
        // instructions are fp16 operations writing r6.
        0x60 if byte(1)? == 0x00 && byte(2)? == 0xe7 => return Ok(4),
        0x6f => return Ok(6),  // non-leaf prologue
        0x97 => return Ok(10), // pack_convert / frag_color_pack
        0xcf => return Ok(12), // matrix multiply-accumulate
        0xdf => return Ok(14), // ray data load
        0x67 | 0xe7 => {
            // Device and threadgroup memory: tile and imageblock accesses are shorter.
            let b1 = byte(1)?;
            return Ok(match b1 {
                0x06 | 0x0e | 0x16 => 12,
                0x03 if b0 == 0x67 => 12, // threadgroup atomic
                _ => 14,
            });
        }
        0xd7 => return Ok(if byte(1)? & 0x06 == 0x04 { 6 } else { 16 }),
        0x57 => return Ok(if byte(1)? & 0x02 != 0 { 8 } else { 6 }),
        0x07 => {
            let (b1, b2) = (byte(1)?, byte(2)?);
            return match b2 {
                0x54 if b1 == 0x00 => Ok(8), // link save / restore
                0x54 => Ok(6),               // barrier, pixel order, fences
                0x00 | 0x02 => Ok(4),        // scoreboard fence
                _ => Err(unknown("0x07 with this byte 2")),
            };
        }
        0x87 => {
            let (b1, b2, b3) = (byte(1)?, byte(2)?, byte(3)?);
            return match (b1, b2, b3) {
                (_, 0x54, _) => Ok(6),
                (0x02, 0x00, 0x00) | (0x00, 0x80, 0x04) => Ok(4),
                _ => Err(unknown("0x87 outside its published forms")),
            };
        }
        0x80 => {
            return match [byte(1)?, byte(2)?, byte(3)?] {
                [0x02, 0x00, 0x00] => Ok(4),
                _ => Err(unknown("0x80 outside its published fence form")),
            };
        }
        0x0f => {
            return match byte(1)? {
                0x00 | 0x01 => Ok(10), // branches on the execution mask
                // A mask push, or the start of a direct call (the push then `8f`).
                0x05 => Ok(if code.get(4) == Some(&0x8f) { 14 } else { 4 }),
                0x04 => Ok(4), // else
                0x06 => Ok(6), // pop / reconverge
                0x80 => Ok(6), // indirect call
                _ => Err(unknown("0x0f with this byte 1")),
            };
        }
        0x8f => {
            let (b1, b2) = (byte(1)?, byte(2)?);
            return Ok(if b1 == 0x05 && b2 == 0x54 { 6 } else { 4 });
        }
        0x9f | 0x1f => return Ok(if byte(1)? & 1 != 0 { 10 } else { 12 }), // iadd / imad
        0xa7 => {
            let b1 = byte(1)?;
            return Ok(match b1 & 0x0f {
                0x7 | 0x4 | 0x5 => 8, // int to float, bit reverse, find MSB
                _ if b1 & 1 != 0 => 10,
                _ => 12,
            });
        }
        0x27 => {
            return Ok(match byte(1)? & 0x0f {
                0x7 => 10,       // float to int
                0x0..=0x2 => 12, // bitfield insert, rotate, matrix load
                _ => 8,          // bit count and other unary forms
            });
        }
        0x17 => {
            return match byte(1)? & 0x0f {
                0x7 => Ok(10), // ballot
                _ => Err(unknown(
                    "0x17: the sources give 8 and 10 for unpack_convert",
                )),
            };
        }
        0x37 => {
            let b2 = byte(2)?;
            return Ok(if b2 == 0x56 || b2 == 0x80 { 8 } else { 10 });
        }
        0xbf | 0x3f | 0xb7 => {
            return match byte(2)? {
                0x54 | 0x56 => Ok(8),
                _ => Err(unknown("SIMD reduce outside its published forms")),
            };
        }
        0x47 | 0xc7 => return Ok(if byte(1)? == 0x06 { 12 } else { 10 }),
        0x5f => {
            return match byte(1)? {
                0x02 => Ok(14),
                0x10 => Ok(12),
                0x11 => Ok(6),
                _ => Err(unknown("ray memory outside its published forms")),
            };
        }
        0x2f | 0xaf => return Ok(if byte(6)? == 0x0a { 8 } else { 10 }), // iter_at / SFU, iter
        0x11 => {
            let (b1, b2) = (byte(1)?, byte(2)?);
            return match b1 {
                0x03 => Ok(6),
                0x02 | 0x04 => Ok(if b2 & 2 != 0 { 10 } else { 8 }),
                _ => Err(unknown("0x11 with this byte 1")),
            };
        }
        0x2e | 0x3e if byte(2)? == 0x23 => return Ok(10), // coordinate multiply-add
        _ => {}
    }
    // Groups named by the low nibble (the high nibble is mostly a register).
    match b0 & 0x0f {
        0x4 | 0xc => {
            let b1 = byte(1)?;
            if b0 & 0x0f == 0xc {
                if b1 < 0x80 {
                    return Ok(2); // mov_imm
                }
                let (b2, b3) = (byte(2)?, byte(3)?);
                if b1 == 0x80 && b2 & 0x3f == 0x09 && b3 == 0xa7 {
                    return Ok(8); // atomic result record
                }
                if b2 & 0x1f == 0x02 {
                    return Ok(8); // 32-bit immediate move
                }
            } else if b1 == 0xea {
                return Ok(8); // ray intersection
            } else if b0 == 0x04 && b1 == 0x00 {
                return Ok(2); // mesh output source
            }
            if byte(3)? & 0x0f == 0x6 {
                return Ok(4); // special register read
            }
            Err(unknown(
                "0x?4/0x?c outside its published forms (op04: measured 12 bytes, described as 8)",
            ))
        }
        0x9 => {
            let b2 = byte(2)?;
            match b2 & 7 {
                0 | 1 => Ok(4), // compact accumulate / move (L1)
                7 => Ok(8),     // multiply by a coefficient (float2_project)
                _ => Ok(6 + 2 * usize::from(byte(4)? & 3)),
            }
        }
        0x0 => {
            // Native fp16 ALU: the operation and byte 4's low bits.
            let (o, m) = (byte(2)? & 7, usize::from(byte(4)? & 3));
            Ok(match o {
                4 => [6, 8, 10, 6][m],
                5 => [6, 8, 10, 8][m],
                6 => [6, 8, 10, 12][m],
                _ => [10, 10, 10, 8][m],
            })
        }
        0xb => {
            let (b2, b3) = (byte(2)?, byte(3)?);
            if matches!(b2, 0x27 | 0x2f | 0x0e | 0x1e | 0x1f)
                || (b2 & 0x06 == 0x06 && !matches!(b2, 0xd7 | 0xe7))
            {
                Ok(10) // integer logic, float unary, coordinate setup (L4)
            } else if (b2 == 0x01 && b3 == 0x08) || b2 == 0x80 || b2 == 0x81 || b2 >> 4 == 2 {
                Ok(4) // uniform move, ray move, call argument move
            } else {
                Err(unknown("0x?b outside its published forms"))
            }
        }
        0xa => {
            let b2 = byte(2)?;
            // The extended compare says so in byte 2 bit 0 and bytes 4 and 5.
            if b2 & 1 != 0 && byte(4)? == 0x06 && byte(5)? == 0x00 {
                Ok(10)
            } else {
                Ok(6)
            }
        }
        0x2 => {
            let (b2, b3) = (byte(2)?, byte(3)?);
            // Byte 2's top bits hold the destination's bits 4 and 5 in the compact forms.
            match b2 & 0x3f {
                0x1e | 0x2e | 0x3e | 0x26 | 0x36 | 0x35 | 0x3d | 0x23 => Ok(6),
                0x1d => Ok(14),
                0x2d => Ok(10),
                0x27 if b3 == 0x81 && byte(4)? == 0x22 => Ok(10),
                0x27 | 0x2f if b3 == 0x80 => Ok(if byte(4)? & 2 != 0 { 10 } else { 8 }),
                _ if b2 & 7 == 7 => Ok(10), // wide select
                _ => Err(unknown("0x?2 outside its published forms")),
            }
        }
        0x5 => {
            if byte(1)? & 0xf0 == 0x80 && byte(2)? == 0x0c {
                Ok(14) // texture bundle
            } else {
                Ok(4) // predicate select
            }
        }
        0x6 if b0 == 0x16 => Ok(4), // select
        0x8 => Ok(4),               // half pack
        0x3 => Ok(4),               // zero-extending and half moves
        _ => Err(unknown("no rule for this group")),
    }
}

/// The lengths of the instructions of `code`, from its first byte to its last.
pub fn frame(code: &[u8]) -> Result<Vec<usize>, (usize, LengthError)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let n = length(&code[at..]).map_err(|e| (at, e))?;
        if at + n > code.len() {
            return Err((at, LengthError::Truncated { needs: n - 1 }));
        }
        out.push(n);
        at += n;
    }
    Ok(out)
}
