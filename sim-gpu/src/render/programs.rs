//! USC programs a render starts (vertex, fragment and tile programs), read once per render:
//! their USC words and decoded code, cached by the address of the words.
//!
//! A program whose words name a preshader has it run when the words are first loaded: once
//! per set of USC words per render (not once per SIMD group of vertices or pixels), before
//! any launch of the program, which then runs with the uniform file the preshader left. The
//! model runs it at that point of the render's walk (the tile programs' before the first
//! draw, a draw's shaders when the draw is reached), which matters only to a preshader that
//! reads memory the render itself writes.

use crate::usc::texture::SamplerHeap;
use crate::usc::{self, LaunchState, Program};
use crate::usc_words::{read_usc_words, UscState};
use crate::{Fault, GpuMemory};
use hw::isa::Codec;
use std::collections::HashMap;
use std::sync::Arc;

/// A program ready to launch.
#[derive(Debug)]
pub struct Loaded {
    /// The words as read, except that `words.uniforms` is the uniform file after the
    /// preshader when there is one (and it was run).
    pub words: UscState,
    pub program: Arc<Program>,
}

/// The programs one render has loaded.
pub struct Programs {
    codec: &'static dyn Codec,
    exec_base: u64,
    sampler_heap: SamplerHeap,
    /// Whether preshaders run (false when the render is only parsed: they are still loaded
    /// and checked).
    run_preshaders: bool,
    cache: HashMap<u32, Arc<Loaded>>,
}

impl Programs {
    /// Programs at `exec_base`, in `codec`'s machine code, every one of them given the
    /// render's sampler heap. With `run_preshaders` false, preshaders are loaded but not run.
    pub fn new(
        codec: &'static dyn Codec,
        exec_base: u64,
        sampler_heap: SamplerHeap,
        run_preshaders: bool,
    ) -> Programs {
        Programs {
            codec,
            exec_base,
            sampler_heap,
            run_preshaders,
            cache: HashMap::new(),
        }
    }

    /// The program whose USC words are at USC address `usc` (offset from the exec base).
    /// Runs its preshader, if any, the first time.
    pub fn load(&mut self, mem: &mut dyn GpuMemory, usc: u32) -> Result<Arc<Loaded>, Fault> {
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
        let program = usc::load_program(
            mem,
            self.codec,
            self.exec_base.wrapping_add(u64::from(code)),
        )?;
        if let Some(pre) = words.preshader {
            let pre =
                usc::load_program(mem, self.codec, self.exec_base.wrapping_add(u64::from(pre)))?;
            if self.run_preshaders {
                let mut launch = LaunchState::new([1, 1, 1], [1, 1, 1]);
                launch.uniforms = std::mem::take(&mut words.uniforms);
                launch.stack_bytes = words.stack_bytes;
                launch.textures = words.textures.clone();
                words.uniforms = usc::run_preshader(&pre, &launch, mem)?.0;
            }
        }
        let p = Arc::new(Loaded { words, program });
        self.cache.insert(usc, p.clone());
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usc::FlatMemory;
    use hw::g13::control::UscWord;
    use hw::isa::*;

    /// Every program a render loads (vertex, fragment, tile) carries the command's heap.
    #[test]
    fn loaded_programs_carry_the_sampler_heap() {
        const BASE: u64 = 0x1_0000_0000;
        let mut exec = vec![0u8; 0x200];
        let mut code = Vec::new();
        hw::g13::encode(&Instr::Stop, &mut code).expect("encodable");
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
        let p = Programs::new(&hw::g13::CODEC, BASE, heap, true)
            .load(&mut m, 0)
            .expect("loads");
        assert_eq!(p.words.textures.sampler_heap, heap);
    }

    const BASE: u64 = 0x1_0000_0000;
    const COUNTER: u64 = 0x8000;

    /// Words at 0 (uniform halves 0..4 = COUNTER) naming the shader at 0x100 and the
    /// preshader `pre` at 0x200.
    fn with_preshader(pre: &[Instr]) -> FlatMemory {
        let mut exec = vec![0u8; 0x400];
        let mut code = Vec::new();
        hw::g13::encode(&Instr::Stop, &mut code).expect("encodable");
        exec[0x100..0x100 + code.len()].copy_from_slice(&code);
        let mut code = Vec::new();
        for i in pre {
            hw::g13::encode(i, &mut code).expect("encodable");
        }
        exec[0x200..0x200 + code.len()].copy_from_slice(&code);
        let mut w = Vec::new();
        hw::g13::control::pack_uniform_range(0, 4, 0x5000, &mut w);
        UscWord::Shader {
            code: 0x100,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::Preshader { code: 0x200 }.pack(&mut w);
        exec[..w.len()].copy_from_slice(&w);
        let mut m = FlatMemory::new();
        m.map(BASE, exec);
        m.map(0x5000, COUNTER.to_le_bytes().to_vec());
        m.map(COUNTER, vec![0; 4]);
        m
    }

    /// Counts its runs at COUNTER and stores 0x4242 to uniform half 8.
    fn counting_preshader() -> Vec<Instr> {
        vec![
            Instr::MovImm(MovImm {
                dst: Reg::r32(1).into(),
                imm: 1,
            }),
            Instr::Atomic(Atomic {
                op: AtomicOp::Add,
                dst: None,
                src: Reg::r32(1),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Imm(0),
                wait_slot: 0,
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r16(4).into(),
                imm: 0x4242,
            }),
            Instr::UniformStore(UniformStore {
                reg: Reg::r16(4),
                index: Index::Imm(8),
                mask: 1,
            }),
            Instr::Stop,
        ]
    }

    /// A graphics program's preshader runs once per set of USC words in a render, and its
    /// launches see the uniform file it leaves.
    #[test]
    fn preshader_runs_once_per_words() {
        let mut m = with_preshader(&counting_preshader());
        let mut programs = Programs::new(&hw::g13::CODEC, BASE, SamplerHeap::default(), true);
        let p = programs.load(&mut m, 0).expect("loads");
        assert_eq!(p.words.uniforms[8], 0x4242);
        assert_eq!(p.words.preshader, Some(0x200));
        programs.load(&mut m, 0).expect("loads");
        assert_eq!(m.read_u32(COUNTER), Ok(1));
        // Parsing only: loaded, not run.
        let mut m = with_preshader(&counting_preshader());
        let p = Programs::new(&hw::g13::CODEC, BASE, SamplerHeap::default(), false)
            .load(&mut m, 0)
            .expect("loads");
        assert_eq!(p.words.uniforms[8], 0);
        assert_eq!(m.read_u32(COUNTER), Ok(0));
    }

    #[test]
    fn bad_graphics_preshaders_fault() {
        let past_end = [
            Instr::UniformStore(UniformStore {
                reg: Reg::r16(4),
                index: Index::Imm(512 - 3),
                mask: 0xf,
            }),
            Instr::Stop,
        ];
        let mut m = with_preshader(&past_end);
        let r = Programs::new(&hw::g13::CODEC, BASE, SamplerHeap::default(), true).load(&mut m, 0);
        assert!(matches!(r, Err(Fault::Shader { .. })), "{r:?}");
        // Undecodable: faults even when not run.
        let mut m = with_preshader(&[]);
        m.write(BASE + 0x200, &[0xff, 0xff]).expect("mapped");
        let r = Programs::new(&hw::g13::CODEC, BASE, SamplerHeap::default(), false).load(&mut m, 0);
        assert!(matches!(r, Err(Fault::Shader { .. })), "{r:?}");
    }
}
