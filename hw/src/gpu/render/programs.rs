//! USC programs a render starts (vertex, fragment and tile programs), read once per render:
//! their USC words and decoded code, cached by the address of the words.

use crate::gpu::usc::texture::SamplerHeap;
use crate::gpu::usc::{self, Program};
use crate::gpu::usc_words::{read_usc_words, UscState};
use crate::gpu::{Fault, GpuMemory};
use std::collections::HashMap;
use std::sync::Arc;

/// A program ready to launch.
#[derive(Debug)]
pub struct Loaded {
    pub words: UscState,
    pub program: Arc<Program>,
}

/// The programs one render has loaded.
pub struct Programs {
    exec_base: u64,
    sampler_heap: SamplerHeap,
    cache: HashMap<u32, Arc<Loaded>>,
}

impl Programs {
    /// Programs at `exec_base`, every one of them given the render's sampler heap.
    pub fn new(exec_base: u64, sampler_heap: SamplerHeap) -> Programs {
        Programs {
            exec_base,
            sampler_heap,
            cache: HashMap::new(),
        }
    }

    /// The program whose USC words are at USC address `usc` (offset from the exec base).
    pub fn load(&mut self, mem: &dyn GpuMemory, usc: u32) -> Result<Arc<Loaded>, Fault> {
        if let Some(p) = self.cache.get(&usc) {
            return Ok(p.clone());
        }
        let va = self.exec_base.wrapping_add(u64::from(usc));
        let mut words = read_usc_words(mem, va)?;
        // The heap is the command's, not the program's: every launch of the render (vertex,
        // fragment, and tile programs too, which only name state registers) reaches it.
        words.textures.sampler_heap = self.sampler_heap;
        let code = words.code.ok_or_else(|| Fault::BadControlWord {
            va,
            reason: "USC words name no shader".into(),
        })?;
        let program = usc::load_program(mem, self.exec_base.wrapping_add(u64::from(code)))?;
        let p = Arc::new(Loaded { words, program });
        self.cache.insert(usc, p.clone());
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::g13::control::UscWord;
    use crate::gpu::usc::FlatMemory;
    use crate::isa::Instr;

    /// Every program a render loads (vertex, fragment, tile) carries the command's heap.
    #[test]
    fn loaded_programs_carry_the_sampler_heap() {
        const BASE: u64 = 0x1_0000_0000;
        let mut exec = vec![0u8; 0x200];
        let mut code = Vec::new();
        crate::g13::encode(&Instr::Stop, &mut code).expect("encodable");
        exec[0x100..0x100 + code.len()].copy_from_slice(&code);
        let mut w = Vec::new();
        UscWord::Shader {
            code: 0x100,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::NoPreshader.pack(&mut w);
        exec[..w.len()].copy_from_slice(&w);
        let mut m = FlatMemory::new();
        m.map(BASE, exec);
        let heap = SamplerHeap {
            base: 0xdead_0000,
            count: 7,
        };
        let p = Programs::new(BASE, heap).load(&m, 0).expect("loads");
        assert_eq!(p.words.textures.sampler_heap, heap);
    }
}
