//! Fetching a shader from GPU memory: decode once, then reuse.
//!
//! Code has no length field, so decoding walks forward from the entry point and ends at a
//! `stop` that no earlier forward branch jumps past. Decoded programs are cached by address
//! and verified against the current bytes on every lookup, so a re-dispatch of unchanged code
//! costs one memory read and compare, and rewritten code is decoded again.

use super::program::Program;
use crate::{Fault, GpuMemory};
use hw::isa::{Codec, Instr};
use hw::Generation;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Longest shader the loader accepts.
pub const MAX_CODE_BYTES: usize = 1 << 20;

/// Cached programs kept before the cache is emptied.
const CACHE_LIMIT: usize = 4096;

/// Programs by generation and address: the same bytes are different code on another one.
type Cache = HashMap<(Generation, u64), Vec<(Vec<u8>, Arc<Program>)>>;

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The program in `codec`'s machine code whose first instruction is at `va`.
pub fn load_program(
    mem: &dyn GpuMemory,
    codec: &dyn Codec,
    va: u64,
) -> Result<Arc<Program>, Fault> {
    let key = (codec.generation(), va);
    if let Ok(c) = cache().lock() {
        if let Some(entries) = c.get(&key) {
            for (bytes, prog) in entries {
                let mut now = vec![0u8; bytes.len()];
                if mem.read(va, &mut now).is_ok() && &now == bytes {
                    return Ok(prog.clone());
                }
            }
        }
    }
    let (bytes, prog) = decode_from(mem, codec, va)?;
    let prog = Arc::new(prog);
    if let Ok(mut c) = cache().lock() {
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.entry(key).or_default().push((bytes, prog.clone()));
    }
    Ok(prog)
}

/// Bytes of code read so far, extended on demand; reads stop quietly at the end of mapped
/// memory so the last instruction can be decoded from fewer than the longest encoding's bytes.
struct Window<'a> {
    mem: &'a dyn GpuMemory,
    va: u64,
    bytes: Vec<u8>,
    end_of_memory: bool,
}

impl Window<'_> {
    fn want(&mut self, len: usize) {
        while self.bytes.len() < len && !self.end_of_memory {
            let at = self.va.wrapping_add(self.bytes.len() as u64);
            let mut chunk = [0u8; 256];
            if self.mem.read(at, &mut chunk).is_ok() {
                self.bytes.extend_from_slice(&chunk);
                continue;
            }
            // Near the end of a mapping: take what is there, byte by byte.
            let mut b = [0u8; 1];
            for i in 0..chunk.len() as u64 {
                if self.mem.read(at.wrapping_add(i), &mut b).is_err() {
                    self.end_of_memory = true;
                    break;
                }
                self.bytes.push(b[0]);
            }
        }
    }
}

fn decode_from(
    mem: &dyn GpuMemory,
    codec: &dyn Codec,
    va: u64,
) -> Result<(Vec<u8>, Program), Fault> {
    let max_len = codec.max_instr_len();
    let mut w = Window {
        mem,
        va,
        bytes: Vec::new(),
        end_of_memory: false,
    };
    let mut code = Vec::new();
    let mut off = 0usize;
    let mut furthest_target = 0i64;
    loop {
        if off >= MAX_CODE_BYTES {
            return Err(Fault::Shader {
                pc: va,
                reason: format!("no end of shader within {MAX_CODE_BYTES} bytes"),
            });
        }
        w.want(off + max_len);
        if off >= w.bytes.len() {
            // The next instruction is not mapped: fetching it faults as on hardware.
            let mut probe = [0u8; 1];
            mem.read(va.wrapping_add(off as u64), &mut probe)?;
        }
        let end = w.bytes.len().min(off + max_len);
        let (instr, len) = codec
            .decode(&w.bytes[off..end])
            .map_err(|e| Fault::Shader {
                pc: va.wrapping_add(off as u64),
                reason: format!("undecodable instruction: {e}"),
            })?;
        if let Instr::Jump(j) = instr {
            furthest_target = furthest_target.max(off as i64 + i64::from(j.offset));
        }
        code.push((off as u32, instr));
        off += len;
        if instr == Instr::Stop && furthest_target < off as i64 {
            break;
        }
    }
    w.bytes.truncate(off);
    let prog = Program::new(va, code)?;
    Ok((w.bytes, prog))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usc::FlatMemory;
    use hw::isa::*;

    fn code(v: u32) -> Vec<u8> {
        let mut out = Vec::new();
        for i in [
            Instr::MovImm(MovImm {
                dst: Reg::r32(1).into(),
                imm: v,
            }),
            // A forward branch past the first stop keeps the walk going.
            Instr::Jump(Jump {
                cond: JumpCond::None,
                offset: 0,
            }),
            Instr::Stop,
            Instr::Stop,
        ] {
            hw::g13::encode(&i, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn decodes_to_the_last_reachable_stop_and_caches() {
        const VA: u64 = 0x7_0000_0000;
        let mut bytes = code(0x1234_5678);
        // Point the branch past the first stop, at the second.
        let jump_at = hw::g13::encoded_len(&Instr::MovImm(MovImm {
            dst: Reg::r32(1).into(),
            imm: 0x1234_5678,
        }))
        .unwrap();
        let jump = Instr::Jump(Jump {
            cond: JumpCond::None,
            offset: (bytes.len() - 2 - jump_at) as i32,
        });
        let mut j = Vec::new();
        hw::g13::encode(&jump, &mut j).unwrap();
        bytes[jump_at..jump_at + j.len()].copy_from_slice(&j);
        let stop_len = hw::g13::encoded_len(&Instr::Stop).unwrap();
        assert_eq!(
            stop_len, 2,
            "the test lays the second stop out 2 bytes before the end"
        );
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0xff; 64]); // undecodable bytes after the end
        let mut m = FlatMemory::with(VA, &padded);
        let a = load_program(&m, &hw::g13::CODEC, VA).unwrap();
        assert_eq!(a.len(), 4);
        let b = load_program(&m, &hw::g13::CODEC, VA).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "second load is served from the cache");
        let changed = code(7);
        crate::GpuMemory::write(&mut m, VA, &changed[..jump_at]).unwrap();
        let c = load_program(&m, &hw::g13::CODEC, VA).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(
            c.instrs[0],
            Instr::MovImm(MovImm {
                dst: Reg::r32(1).into(),
                imm: 7
            })
        );
    }
}
