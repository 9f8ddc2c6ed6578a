//! What the tests that run GLSL compute shaders on the simulated USC share: a set layout
//! from a table, set memory whose binding 0 is the output buffer, and "compile, launch one
//! workgroup with set 0 in the root table, read the output back".

use sim_gpu::usc::{run_workgroups, FlatMemory, LaunchState, Program};
use sim_gpu::GpuMemory;

use super::tests::{glslang, glslang_env};
use crate::ir;
use crate::{
    abi, BindingLayout, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout, Target,
};

/// Where set 0's memory lives.
pub const SET: u64 = 0x80_0000;
/// Where the output buffer (binding 0) lives.
pub const OUT: u64 = 0x10_0000;

/// Set 0 of `bindings` (binding, kind, count, byte offset in the set); no push constants.
pub fn set0(bindings: &[(u32, DescriptorKind, u32, u32)]) -> ResourceLayout {
    ResourceLayout {
        sets: vec![Some(SetLayout {
            bindings: bindings
                .iter()
                .map(|&(binding, kind, count, offset)| BindingLayout {
                    binding,
                    kind,
                    count,
                    offset,
                })
                .collect(),
        })],
        push_constant_size: 0,
        ..Default::default()
    }
}

/// Memory with `set_bytes` of zeroed set memory at [`SET`] and `out_bytes` of output
/// buffer at [`OUT`], whose storage buffer descriptor is at byte 0 of the set.
pub fn memory(set_bytes: usize, out_bytes: usize) -> FlatMemory {
    let mut mem = FlatMemory::new();
    mem.map(SET, vec![0; set_bytes]);
    mem.map(OUT, vec![0; out_bytes]);
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&OUT.to_le_bytes());
    d[8..12].copy_from_slice(&(out_bytes as u32).to_le_bytes());
    mem.write(SET, &d).unwrap();
    mem
}

/// The little-endian words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `n` words `f(0)..f(n - 1)` as little-endian bytes.
pub fn bytes_of(n: usize, f: impl Fn(usize) -> u32) -> Vec<u8> {
    (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
}

/// One launch of a test shader.
pub struct Launch<'a> {
    /// The GLSL source.
    pub src: &'a str,
    pub layout: &'a ResourceLayout,
    /// Invocations of the one workgroup (along x).
    pub invocations: u32,
    /// Bytes of the output buffer read back.
    pub out_bytes: usize,
}

impl Launch<'_> {
    /// Compiles the shader, runs it on `mem` and returns the output buffer as words.
    pub fn run(&self, mem: &mut FlatMemory) -> Vec<u32> {
        self.run_with(mem, &mut |_| {}, &|_| {})
    }

    /// As [`Launch::run`], with `edit` applied to the front end's IR before the passes and
    /// `setup` to the launch state before the run.
    pub fn run_with(
        &self,
        mem: &mut FlatMemory,
        edit: &mut dyn FnMut(&mut ir::Shader),
        setup: &dyn Fn(&mut LaunchState),
    ) -> Vec<u32> {
        let spirv = glslang(self.src).expect("glslang");
        self.run_spirv(&spirv, mem, edit, setup)
    }

    /// As [`Launch::run`], with the GLSL compiled for glslang's target environment `env`
    /// (`vulkan1.2` gives SPIR-V 1.5, which allows a broadcast from a non-constant id).
    pub fn run_env(&self, env: &str, mem: &mut FlatMemory) -> Vec<u32> {
        let spirv = glslang_env(self.src, "comp", env).expect("glslang");
        self.run_spirv(&spirv, mem, &mut |_| {}, &|_| {})
    }

    fn run_spirv(
        &self,
        spirv: &[u32],
        mem: &mut FlatMemory,
        edit: &mut dyn FnMut(&mut ir::Shader),
        setup: &dyn Fn(&mut LaunchState),
    ) -> Vec<u32> {
        let mut shader = crate::frontend::translate(&ComputeRequest {
            spirv,
            entry_point: "main",
            specialization: &[],
            layout: self.layout,
            target: Target::G13,
        })
        .expect("translate");
        edit(&mut shader);
        crate::passes::run_all(&mut shader, self.layout).expect("passes");
        let bin = super::compile(&shader).expect("compile");
        let mut at = 0;
        let mut code = Vec::new();
        while at < bin.code.len() {
            let (i, len) = hw::g13::decode(&bin.code[at..]).expect("decode");
            code.push((at as u32, i));
            at += len;
        }
        let prog = Program::new(0, code).expect("program");
        let n = self.invocations;
        let mut launch = LaunchState::new([n, 1, 1], [n, 1, 1]);
        let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
        let o = abi::set_address_offset(0) as usize;
        root[o..o + 8].copy_from_slice(&SET.to_le_bytes());
        for (h, c) in root.chunks(2).enumerate() {
            launch.uniforms[h] = u16::from_le_bytes([c[0], c[1]]);
        }
        launch.stack_bytes = bin.scratch_bytes;
        setup(&mut launch);
        run_workgroups(&prog, &launch, mem).expect("run");
        let mut out = vec![0u8; self.out_bytes];
        mem.read(OUT, &mut out).unwrap();
        words(&out)
    }
}
