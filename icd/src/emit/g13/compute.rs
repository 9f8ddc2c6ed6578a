//! G13's compute control stream: USC words bind the shader, in the order Mesa writes them
//! (shared memory, uniforms, textures, samplers, shader, registers, preshader); a CDM launch
//! names them and carries the grid; CDM barrier, stream link and terminate blocks.

use super::super::{Compute, ComputeBinding, ComputeLaunch, Grid};
use super::G13;
use hw::g13::control::{
    pack_uniform_range, sampler_states, CdmBarrier, CdmLaunch, CdmMode, CdmStreamLink,
    CdmStreamTerminate, UscWord,
};

/// The CDM launch's "sampler states" value for `count` samplers: the compact forms, in
/// fours, cover up to 16.
fn sampler_states_for(count: u32) -> u32 {
    match count {
        0 => sampler_states::NONE,
        1..=4 => sampler_states::COMPACT_4,
        5..=8 => sampler_states::COMPACT_8,
        9..=12 => sampler_states::COMPACT_12,
        _ => sampler_states::COMPACT_16,
    }
}

impl Compute for G13 {
    fn binding_words(&self, b: &ComputeBinding) -> Vec<u8> {
        let mut w = Vec::new();
        UscWord::vertex_compute_shared(b.shared_bytes.div_ceil(256) * 256).pack(&mut w);
        for u in b.uniforms {
            pack_uniform_range(u.first_half, u.halves, u.va, &mut w);
        }
        if let Some(t) = b.textures {
            super::texture_word(0, t).pack(&mut w);
        }
        if let Some(s) = b.samplers {
            UscWord::Sampler {
                start: 0,
                count: s.count,
                buffer: s.va,
            }
            .pack(&mut w);
        }
        UscWord::Shader {
            code: b.code,
            loads_varyings: false,
        }
        .pack(&mut w);
        super::registers(b.gpr_halves, b.stack_bytes).pack(&mut w);
        match b.preamble {
            Some((code, _)) => UscWord::Preshader { code },
            None => UscWord::NoPreshader,
        }
        .pack(&mut w);
        w
    }

    fn launch(&self, l: &ComputeLaunch, out: &mut Vec<u8>) {
        let b = l.binding;
        let (mode, global_size, indirect) = match l.grid {
            Grid::Direct(size) => (CdmMode::Direct, size, 0),
            Grid::Indirect(va) => (CdmMode::IndirectGlobal, [0; 3], va),
        };
        CdmLaunch {
            uniform_halves: b.uniform_halves,
            texture_states: b.textures.map_or(0, |t| t.count),
            sampler_states: sampler_states_for(b.samplers.map_or(0, |s| s.count)),
            preshader_halves: b
                .preamble
                .map_or(0, |(_, gprs)| CdmLaunch::preshader_halves_for(gprs)),
            mode,
            pipeline: u64::from(l.words),
            global_size,
            indirect,
            local_size: l.local_size,
        }
        .pack(out);
    }

    fn barrier(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&CdmBarrier::compute_to_compute().pack());
    }

    fn link(&self, target: u64) -> Vec<u8> {
        CdmStreamLink {
            target,
            with_return: false,
        }
        .pack()
        .to_vec()
    }

    fn terminate(&self) -> Vec<u8> {
        CdmStreamTerminate.pack().to_vec()
    }

    fn link_bytes(&self) -> u64 {
        CdmStreamLink::SIZE as u64
    }

    fn terminate_bytes(&self) -> u64 {
        CdmStreamTerminate.pack().len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{StateTable, UniformRange};

    /// The words G13 emits read back as the binding and launch they were made from.
    #[test]
    fn binding_and_launch_read_back() {
        let uniforms = [
            UniformRange {
                first_half: 0,
                halves: 100,
                va: 0x1_0000_0000,
            },
            UniformRange {
                first_half: 240,
                halves: 40,
                va: 0x2_0000_0040,
            },
        ];
        let b = ComputeBinding {
            shared_bytes: 300,
            uniform_halves: 280,
            uniforms: &uniforms,
            textures: Some(StateTable {
                count: 2,
                va: 0x3000,
            }),
            samplers: Some(StateTable {
                count: 5,
                va: 0x4000,
            }),
            code: 0x1_0000,
            gpr_halves: 20,
            stack_bytes: 100,
            preamble: Some((0x1_0400, 10)),
        };
        let words = G13.binding_words(&b);
        let mut read = Vec::new();
        let mut at = 0;
        while at < words.len() {
            let (w, n) = UscWord::unpack(&words[at..]).unwrap();
            read.push(w);
            at += n;
        }
        let want = [
            UscWord::vertex_compute_shared(512),
            UscWord::Uniform {
                start_halves: 0,
                size_halves: 64,
                buffer: 0x1_0000_0000,
            },
            UscWord::Uniform {
                start_halves: 64,
                size_halves: 36,
                buffer: 0x1_0000_0080,
            },
            UscWord::Uniform {
                start_halves: 240,
                size_halves: 16,
                buffer: 0x2_0000_0040,
            },
            UscWord::UniformHigh {
                start_halves: 0,
                size_halves: 24,
                buffer: 0x2_0000_0060,
            },
            UscWord::Texture {
                start: 0,
                count: 2,
                buffer: 0x3000,
            },
            UscWord::Sampler {
                start: 0,
                count: 5,
                buffer: 0x4000,
            },
            UscWord::Shader {
                code: 0x1_0000,
                loads_varyings: false,
            },
            // 100 bytes of stack round up to the 128 of spill size 3.
            UscWord::registers(20, 3),
            UscWord::Preshader { code: 0x1_0400 },
        ];
        assert_eq!(read, want);

        for grid in [Grid::Direct([64, 2, 3]), Grid::Indirect(0x5000)] {
            let mut out = Vec::new();
            let l = ComputeLaunch {
                binding: &b,
                words: 0x2_0040,
                grid,
                local_size: [32, 2, 1],
            };
            G13.launch(&l, &mut out);
            let got = CdmLaunch::unpack(&out).unwrap();
            assert_eq!(got.pipeline, 0x2_0040);
            assert_eq!(got.local_size, [32, 2, 1]);
            assert_eq!(got.texture_states, 8, "two textures, stored in eights");
            assert_eq!(got.sampler_states, sampler_states::COMPACT_8);
            assert_eq!(got.preshader_halves, CdmLaunch::preshader_halves_for(10));
            match grid {
                Grid::Direct(size) => {
                    assert_eq!((got.mode, got.global_size), (CdmMode::Direct, size))
                }
                Grid::Indirect(va) => {
                    assert_eq!((got.mode, got.indirect), (CdmMode::IndirectGlobal, va))
                }
            }
        }
        assert_eq!(G13.link(0x7000).len() as u64, G13.link_bytes());
        assert_eq!(G13.terminate().len() as u64, G13.terminate_bytes());
        let link = CdmStreamLink::unpack(&G13.link(0x7000)).unwrap();
        assert_eq!(link.target, 0x7000);
    }
}
