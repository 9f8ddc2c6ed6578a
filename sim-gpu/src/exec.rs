//! Executing commands: compute through the CDM model, render through the VDM/tiler/ISP model
//! in [`super::render`].
//!
//! `AGX4_SIM_NOEXEC=1` (read once per process) makes [`execute_compute`] parse and validate
//! the control stream, USC words and shaders without running any shader, and
//! [`execute_render`] parse the VDM stream and tile programs without shading or rasterising,
//! to measure the driver's CPU cost apart from the simulated GPU's.

use super::cdm::{self, ComputeStats};
use super::render::{RenderStats, TvbBudget};
use super::{ComputeCommand, Fault, GpuMemory, RenderCommand};
use hw::isa::Codec;
use hw::{Generation, Identity};
use std::sync::OnceLock;

fn no_execute() -> bool {
    static NOEXEC: OnceLock<bool> = OnceLock::new();
    *NOEXEC.get_or_init(|| std::env::var("AGX4_SIM_NOEXEC").is_ok_and(|v| v == "1"))
}

/// Run a compute command to completion, or to the first fault.
pub fn execute_compute(
    gpu: &Identity,
    cmd: &ComputeCommand,
    mem: &mut dyn GpuMemory,
) -> Result<ComputeStats, Fault> {
    match gpu.generation {
        Generation::G13 => {}
        // Multi-cluster G14 parts (G14X) add a launch word the model does not read yet.
        Generation::G14 if gpu.num_clusters <= 1 => {}
        _ => {
            return Err(Fault::Unimplemented(
                "CDM control streams of this GPU generation",
            ))
        }
    }
    cdm::run_stream(cmd, codec(gpu)?, mem, !no_execute())
}

/// Run a render command to completion, or to the first fault, binning into `tvb`.
pub fn execute_render(
    gpu: &Identity,
    cmd: &RenderCommand,
    mem: &mut dyn GpuMemory,
    tvb: &mut dyn TvbBudget,
) -> Result<RenderStats, Fault> {
    if gpu.generation != Generation::G13 {
        return Err(Fault::Unimplemented(
            "VDM control streams of this GPU generation",
        ));
    }
    let codec = codec(gpu)?;
    if no_execute() {
        return super::render::walk_only(cmd, codec, mem);
    }
    super::render::execute(cmd, codec, mem, tvb)
}

/// How the GPU's machine code is encoded.
fn codec(gpu: &Identity) -> Result<&'static dyn Codec, Fault> {
    gpu.generation
        .codec()
        .ok_or(Fault::Unimplemented("machine code of this GPU generation"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usc::FlatMemory;
    use crate::Access;
    use hw::g13::control::{
        CdmBarrier, CdmBlock, CdmLaunch, CdmMode, CdmStreamLink, SharedLayout, UscWord,
    };
    use hw::isa::*;

    const EXEC_BASE: u64 = 0x1_0000_0000;
    const OUT: u64 = 0x10_0000;
    const OUT2: u64 = 0x20_0000;

    fn g13() -> &'static Identity {
        Identity::by_name("g13g").expect("known")
    }

    /// out[gid] = gid + (32-bit uniform u2); the output address is the 64-bit uniform u0.
    fn shader() -> Vec<u8> {
        let tid = Reg::r32(1);
        let code = [
            Instr::GetSr(GetSr {
                dst: tid.into(),
                sr: SpecialReg::THREAD_POSITION_IN_GRID_X,
            }),
            Instr::IAdd(IAdd {
                dst: Reg::r32(2).into(),
                a: ISrc::new(Operand::Reg(tid)),
                b: ISrc::new(Operand::Uniform(Reg::r32(2))),
                negate_b: false,
                shift: 0,
                saturate: false,
            }),
            Instr::DeviceMem(DeviceMem {
                store: true,
                reg: Reg::r32(2),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Reg(tid),
                index_unsigned: true,
                shift: 0,
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            }),
            Instr::Stop,
        ];
        let mut out = Vec::new();
        for i in &code {
            hw::g13::encode(i, &mut out).expect("encodable");
        }
        out
    }

    fn usc_words(uniform_buffer: u64) -> Vec<u8> {
        let mut w = Vec::new();
        hw::g13::control::pack_uniform_range(0, 6, uniform_buffer, &mut w);
        UscWord::Shared {
            uses_shared: false,
            layout: SharedLayout::VertexCompute,
            bytes_per_threadgroup: 65536,
            sample_count: 1,
            sample_stride_bytes: 0,
        }
        .pack(&mut w);
        UscWord::Shader {
            code: 0x100,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::Registers {
            count_halves: 8,
            spill_size: 0,
        }
        .pack(&mut w);
        UscWord::NoPreshader.pack(&mut w);
        w
    }

    /// USC words that preload `halves` uniforms from `buffer`, name the shader at 0x100
    /// with `registers` halves, and end with `end`.
    fn plain_words(halves: u32, buffer: u64, registers: u32, end: UscWord) -> Vec<u8> {
        let mut w = Vec::new();
        hw::g13::control::pack_uniform_range(0, halves, buffer, &mut w);
        UscWord::Shader {
            code: 0x100,
            loads_varyings: false,
        }
        .pack(&mut w);
        UscWord::Registers {
            count_halves: registers,
            spill_size: 0,
        }
        .pack(&mut w);
        end.pack(&mut w);
        w
    }

    fn uniforms(out: u64, add: u32) -> Vec<u8> {
        let mut u = out.to_le_bytes().to_vec();
        u.extend_from_slice(&add.to_le_bytes());
        u
    }

    fn launch(pipeline: u64, threads: u32) -> CdmBlock {
        CdmBlock::Launch(CdmLaunch {
            uniform_halves: 64,
            texture_states: 8,
            sampler_states: 0,
            preshader_halves: 16,
            mode: CdmMode::Direct,
            pipeline,
            global_size: [threads, 1, 1],
            indirect: 0,
            local_size: [32, 1, 1],
        })
    }

    /// Stream: launch A (96 threads), barrier, link-with-return to a segment holding launch B
    /// (8 threads) and a return, then terminate.
    fn memory() -> FlatMemory {
        let mut m = FlatMemory::new();
        let mut exec = vec![0u8; 0x3000];
        let code = shader();
        exec[0x100..0x100 + code.len()].copy_from_slice(&code);
        let a = usc_words(0x5000);
        exec[0x1000..0x1000 + a.len()].copy_from_slice(&a);
        let b = usc_words(0x5100);
        exec[0x2000..0x2000 + b.len()].copy_from_slice(&b);
        m.map(EXEC_BASE, exec);
        let mut u = uniforms(OUT, 1000);
        u.resize(0x100, 0);
        u.extend(uniforms(OUT2, 2000));
        m.map(0x5000, u);

        let mut s = Vec::new();
        launch(0x1000, 96).pack(&mut s);
        CdmBlock::Barrier(CdmBarrier::compute_to_compute()).pack(&mut s);
        CdmBlock::Link(CdmStreamLink {
            target: 0x7000,
            with_return: true,
        })
        .pack(&mut s);
        CdmBlock::Terminate.pack(&mut s);
        m.map(0x6000, s);
        let mut seg = Vec::new();
        launch(0x2000, 8).pack(&mut seg);
        CdmBlock::Return.pack(&mut seg);
        m.map(0x7000, seg);
        m.map(OUT, vec![0; 4 * 128]);
        m.map(OUT2, vec![0; 4 * 32]);
        m
    }

    fn command() -> ComputeCommand {
        ComputeCommand {
            usc_exec_base: EXEC_BASE,
            ctrl_stream_base: 0x6000,
            ..Default::default()
        }
    }

    fn words(m: &FlatMemory, va: u64, n: usize) -> Vec<u32> {
        m.bytes(va, 4 * n)
            .unwrap()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn linked_stream_runs_both_launches() {
        let mut m = memory();
        let stats = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true).expect("runs");
        assert_eq!(stats.launches, 2);
        assert_eq!(stats.usc.workgroups, 3 + 1);
        let a = words(&m, OUT, 128);
        let b = words(&m, OUT2, 32);
        for t in 0..128u32 {
            assert_eq!(a[t as usize], if t < 96 { t + 1000 } else { 0 });
        }
        for t in 0..32u32 {
            assert_eq!(b[t as usize], if t < 8 { t + 2000 } else { 0 });
        }
    }

    #[test]
    fn execute_compute_runs_the_stream_unless_told_not_to() {
        let mut m = memory();
        let r = execute_compute(g13(), &command(), &mut m).expect("runs");
        assert_eq!(r.launches, 2);
        let ran = words(&m, OUT, 1)[0] == 1000;
        assert_eq!(ran, !no_execute());
    }

    #[test]
    fn indirect_launch_reads_its_grid_from_memory() {
        let mut m = memory();
        let mut s = Vec::new();
        CdmBlock::Launch(CdmLaunch {
            mode: CdmMode::IndirectGlobal,
            indirect: 0x8000,
            global_size: [0; 3],
            ..launch_of(0x1000)
        })
        .pack(&mut s);
        CdmBlock::Terminate.pack(&mut s);
        m.map(0x9000, s);
        m.map(
            0x8000,
            [40u32, 1, 1].iter().flat_map(|v| v.to_le_bytes()).collect(),
        );
        let cmd = ComputeCommand {
            ctrl_stream_base: 0x9000,
            ..command()
        };
        let stats = cdm::run_stream(&cmd, &hw::g13::CODEC, &mut m, true).expect("runs");
        assert_eq!(stats.usc.workgroups, 2);
        let a = words(&m, OUT, 64);
        for t in 0..64u32 {
            assert_eq!(a[t as usize], if t < 40 { t + 1000 } else { 0 });
        }
    }

    fn launch_of(pipeline: u64) -> CdmLaunch {
        match launch(pipeline, 32) {
            CdmBlock::Launch(l) => l,
            _ => unreachable!(),
        }
    }

    #[test]
    fn validation_only_runs_no_shader() {
        let mut m = memory();
        let stats = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, false).expect("valid");
        assert_eq!(stats.launches, 2);
        assert_eq!(stats.usc.lane_instructions, 0);
        assert!(words(&m, OUT, 128).iter().all(|&w| w == 0));
    }

    #[test]
    fn looping_and_malformed_streams_fault() {
        let mut m = FlatMemory::new();
        let mut s = Vec::new();
        CdmBlock::Link(CdmStreamLink {
            target: 0x6000,
            with_return: false,
        })
        .pack(&mut s);
        m.map(0x6000, s);
        assert!(matches!(
            cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true),
            Err(Fault::BadControlWord { va: 0x6000, .. })
        ));
        let mut m = FlatMemory::with(0x6000, &[0, 0, 0, 0xe0]);
        assert!(matches!(
            cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true),
            Err(Fault::BadControlWord { .. })
        ));
        let mut m = FlatMemory::with(0x6000, &CdmBlock::Return.pack_vec());
        assert!(matches!(
            cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true),
            Err(Fault::BadControlWord { .. })
        ));
        let mut m = FlatMemory::new();
        assert_eq!(
            cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true),
            Err(Fault::Unmapped {
                va: 0x6000,
                access: Access::Read
            })
        );
    }

    /// A compute shader sampling a bindless texture through sampler heap entry 1: the
    /// command's `sampler_heap`/`sampler_count` must reach the launch.
    #[test]
    fn compute_command_sampler_heap_reaches_shaders() {
        use hw::g13::control::descriptors::TextureDimension;
        use hw::g13::image_desc::{
            pixel_format, sampler_descriptor, texture_descriptor, ImageDesc, SamplerDesc,
        };
        use hw::g13::layout::{Layout, Tiling};
        const SET: u64 = 0x8000;
        const IMG: u64 = 0x9000;
        const HEAP: u64 = 0xa000;
        let tid = Reg::r32(1);
        let code = [
            Instr::GetSr(GetSr {
                dst: tid.into(),
                sr: SpecialReg::THREAD_POSITION_IN_GRID_X,
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r32(4).into(),
                imm: 0.5f32.to_bits(),
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r32(5).into(),
                imm: 0.5f32.to_bits(),
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r16(32).into(),
                imm: 0,
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r16(34).into(),
                imm: 1,
            }),
            Instr::MovImm(MovImm {
                dst: Reg::r32(20).into(),
                imm: 0,
            }),
            Instr::Texture(Texture {
                load: false,
                dst: Reg::r32(10),
                coords: Reg::r32(4),
                lod_mode: LodMode::Min,
                lod: Operand::Reg(Reg::r16(32)),
                texture: TexIndex::Bindless {
                    base: 4,
                    index: Reg::r32(20),
                },
                sampler: Small::Reg(Reg::r16(34)),
                dim: TexDim::D2,
                mask: 1,
                shadow: false,
                offset: false,
                extra: None,
                gather: None,
                query_lod: false,
                wait_slot: 0,
            }),
            Instr::DeviceMem(DeviceMem {
                store: true,
                reg: Reg::r32(10),
                base: Operand::Uniform(Reg::r64(0)),
                index: Index::Reg(tid),
                index_unsigned: true,
                shift: 0,
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            }),
            Instr::Stop,
        ];
        let mut bin = Vec::new();
        for i in &code {
            hw::g13::encode(i, &mut bin).expect("encodable");
        }
        let mut m = FlatMemory::new();
        let mut exec = vec![0u8; 0x2000];
        exec[0x100..0x100 + bin.len()].copy_from_slice(&bin);
        let w = plain_words(8, 0x5000, 48, UscWord::NoPreshader);
        exec[0x1000..0x1000 + w.len()].copy_from_slice(&w);
        m.map(EXEC_BASE, exec);
        let mut u = OUT.to_le_bytes().to_vec();
        u.extend_from_slice(&SET.to_le_bytes());
        m.map(0x5000, u);
        let mut s = Vec::new();
        launch(0x1000, 1).pack(&mut s);
        CdmBlock::Terminate.pack(&mut s);
        m.map(0x6000, s);
        m.map(OUT, vec![0; 4]);
        let layout = Layout::new(1, 1, 1, 1, 4, Tiling::Twiddled, 1).unwrap();
        let img = ImageDesc {
            base: IMG,
            layout: &layout,
            format: pixel_format(98).unwrap(), // R32_UINT
            dimension: TextureDimension::D2,
        };
        m.map(SET, texture_descriptor(&img, 0, 1, 0, 1).unwrap().to_vec());
        m.map(IMG, 0x1234u32.to_le_bytes().to_vec());
        let mut heap = vec![0xffu8; 8];
        heap.extend(sampler_descriptor(&SamplerDesc::default()));
        m.map(HEAP, heap);
        let cmd = ComputeCommand {
            sampler_heap: HEAP,
            sampler_count: 2,
            ..command()
        };
        cdm::run_stream(&cmd, &hw::g13::CODEC, &mut m, true).expect("runs");
        assert_eq!(words(&m, OUT, 1), [0x1234]);
        // Without the heap the same shader faults.
        let r = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true);
        assert!(matches!(r, Err(Fault::Shader { .. })), "{r:?}");
    }

    fn encode_all(code: &[Instr]) -> Vec<u8> {
        let mut out = Vec::new();
        for i in code {
            hw::g13::encode(i, &mut out).expect("encodable");
        }
        out
    }

    const SRC: u64 = 0x8000;

    /// A launch of [`shader`] over 64 threads (two workgroups) whose USC words name a
    /// preshader at `preshader`: uniforms u0 = OUT, u2 = 1000, u4 = SRC.
    fn preshader_memory(preshader: &[u8]) -> FlatMemory {
        let mut m = FlatMemory::new();
        let mut exec = vec![0u8; 0x2000];
        let code = shader();
        exec[0x100..0x100 + code.len()].copy_from_slice(&code);
        exec[0x400..0x400 + preshader.len()].copy_from_slice(preshader);
        let w = plain_words(12, 0x5000, 8, UscWord::Preshader { code: 0x400 });
        exec[0x1000..0x1000 + w.len()].copy_from_slice(&w);
        m.map(EXEC_BASE, exec);
        let mut u = uniforms(OUT, 1000);
        u.extend_from_slice(&[0; 4]);
        u.extend_from_slice(&SRC.to_le_bytes());
        m.map(0x5000, u);
        m.map(SRC, 5000u32.to_le_bytes().to_vec());
        let mut s = Vec::new();
        launch(0x1000, 64).pack(&mut s);
        CdmBlock::Terminate.pack(&mut s);
        m.map(0x6000, s);
        m.map(OUT, vec![0; 4 * 64]);
        m
    }

    /// The preshader loads a word from device memory and stores it to u2: every thread of
    /// both workgroups adds the preshader's value, not the one the USC words preloaded.
    #[test]
    fn cdm_preshader_sets_the_uniforms_of_the_grid() {
        let pre = encode_all(&[
            Instr::DeviceMem(DeviceMem {
                store: false,
                reg: Reg::r32(1),
                base: Operand::Uniform(Reg::r64(4)),
                index: Index::Imm(0),
                index_unsigned: false,
                shift: 0,
                format: MemFormat::I32,
                mask: 1,
                wait_slot: 0,
            }),
            Instr::Wait(Wait { slot: 0 }),
            Instr::UniformStore(UniformStore {
                reg: Reg::r16(2),
                index: Index::Imm(4),
                mask: 0b11,
            }),
            Instr::Stop,
        ]);
        let mut m = preshader_memory(&pre);
        let stats = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true).expect("runs");
        assert_eq!(stats.launches, 1);
        assert_eq!(stats.usc.workgroups, 2);
        // Four preshader instructions on one lane, four main ones on 64.
        assert_eq!(stats.usc.lane_instructions, 4 + 4 * 64);
        let out = words(&m, OUT, 64);
        for t in 0..64u32 {
            assert_eq!(out[t as usize], t + 5000, "thread {t}");
        }
        // Validation runs no shader, preshader included.
        let mut m = preshader_memory(&pre);
        let stats = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, false).expect("valid");
        assert_eq!(stats.usc.lane_instructions, 0);
        assert!(words(&m, OUT, 64).iter().all(|&w| w == 0));
    }

    #[test]
    fn cdm_bad_preshaders_fault() {
        // Undecodable: faults in validation too.
        let mut m = preshader_memory(&[0xff, 0xff]);
        let r = cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, false);
        assert!(matches!(r, Err(Fault::Shader { .. })), "{r:?}");
        // A store past the uniform file faults at the preshader's pc, before any workgroup.
        // (The budget test of an endless preshader is in the USC tests: the CDM's default
        // budget takes minutes to run out.)
        let past = encode_all(&[
            Instr::UniformStore(UniformStore {
                reg: Reg::r16(2),
                index: Index::Imm(511),
                mask: 0b11,
            }),
            Instr::Stop,
        ]);
        let mut m = preshader_memory(&past);
        cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, false).expect("decodes");
        match cdm::run_stream(&command(), &hw::g13::CODEC, &mut m, true) {
            Err(Fault::Shader { pc, reason }) => {
                assert_eq!(pc, EXEC_BASE + 0x400);
                assert!(reason.contains("uniform file"), "{reason}");
            }
            other => panic!("expected a shader fault, got {other:?}"),
        }
        assert!(words(&m, OUT, 64).iter().all(|&w| w == 0));
    }

    #[test]
    fn render_without_a_framebuffer_faults() {
        let mut tvb = crate::render::UnlimitedTvb;
        let r = execute_render(
            g13(),
            &RenderCommand::default(),
            &mut FlatMemory::new(),
            &mut tvb,
        );
        assert!(matches!(r, Err(Fault::BadControlWord { .. })));
    }

    #[test]
    fn default_accessors_propagate_faults() {
        let mut m = FlatMemory::new();
        assert_eq!(
            m.read_u64(0x1000),
            Err(Fault::Unmapped {
                va: 0x1000,
                access: Access::Read
            })
        );
        assert!(m.write_u32(0x2000, 1).is_err());
    }
}
