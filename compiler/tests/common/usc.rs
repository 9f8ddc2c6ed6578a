//! Runs a GLSL compute shader through the whole compiler on the simulated USC and on the IR
//! interpreter, checks that both agree, and returns the buffers.

use super::glslang;
use compiler::ir::interp::{self, Dispatch, Regions};
use compiler::{
    abi, BindingLayout, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout, Target,
};
use sim_gpu::usc::jit::Executor;
use sim_gpu::usc::{run_preshader, run_workgroups, FlatMemory, LaunchState, Program};
use sim_gpu::GpuMemory;

const BUF_BASE: u64 = 0x10_0000;
const SET_BASE: u64 = 0x1000;
const ROOT_BASE: u64 = 0x8000;

pub fn u32s(xs: &[u32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn as_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn layout(n: usize) -> ResourceLayout {
    layout_for(n)
}

/// The request for entry point `main` of `spirv` on G13 with `layout`.
fn request<'a>(spirv: &'a [u32], layout: &'a ResourceLayout) -> ComputeRequest<'a> {
    ComputeRequest {
        spirv,
        entry_point: "main",
        specialization: &[],
        layout,
        target: Target::G13,
    }
}

fn compile_with(spirv: &[u32], layout: &ResourceLayout) -> compiler::ComputeBinary {
    compiler::compile_compute(&request(spirv, layout)).unwrap_or_else(|e| panic!("compile: {e}"))
}

/// Compiles `spirv` for `buffers` storage buffers with `robustness`: the binary and its
/// instructions, decoded.
pub fn compile(
    spirv: &[u32],
    buffers: usize,
    robustness: compiler::BufferRobustness,
) -> (compiler::ComputeBinary, Vec<hw::isa::Instr>) {
    let mut layout = layout_for(buffers);
    layout.buffer_robustness = robustness;
    let bin = compile_with(spirv, &layout);
    let instrs = decode(bin.main_code())
        .into_iter()
        .map(|(_, i)| i)
        .collect();
    (bin, instrs)
}

/// The instructions of `code`, each with its byte offset.
pub fn decode(code: &[u8]) -> Vec<(u32, hw::isa::Instr)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let (i, len) = hw::g13::decode(&code[at..]).expect("decode");
        out.push((at as u32, i));
        at += len;
    }
    out
}

fn layout_for(n: usize) -> ResourceLayout {
    layout_of(&vec![DescriptorKind::StorageBuffer; n])
}

/// Set 0 with one buffer binding of each kind, bindings 0, 1, ...
fn layout_of(kinds: &[DescriptorKind]) -> ResourceLayout {
    let bindings = (0..kinds.len() as u32)
        .map(|b| BindingLayout {
            binding: b,
            kind: kinds[b as usize],
            count: 1,
            offset: b * abi::BUFFER_DESCRIPTOR_SIZE,
        })
        .collect();
    ResourceLayout {
        sets: vec![Some(SetLayout { bindings })],
        push_constant_size: abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

/// The root table and set 0's memory for buffers at `BUF_BASE + 0x1_0000 * k`.
fn root_and_set(bufs: &[Vec<u8>], groups: [u32; 3], push: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut set = vec![0u8; 1024];
    for (k, b) in bufs.iter().enumerate() {
        let addr = BUF_BASE + 0x1_0000 * k as u64;
        let d = &mut set[k * 16..];
        d[..8].copy_from_slice(&addr.to_le_bytes());
        d[8..12].copy_from_slice(&(b.len() as u32).to_le_bytes());
    }
    let mut root = vec![0u8; abi::ROOT_TABLE_SIZE as usize];
    root[..8].copy_from_slice(&SET_BASE.to_le_bytes());
    for i in 0..3 {
        let o = (abi::NUM_WORKGROUPS_OFFSET + 4 * i) as usize;
        root[o..o + 4].copy_from_slice(&groups[i as usize].to_le_bytes());
    }
    let p = abi::PUSH_CONSTANTS_OFFSET as usize;
    root[p..p + push.len()].copy_from_slice(push);
    // Dynamically indexed push constants are read through memory at the root table's own
    // address, as the ICD arranges.
    let o = abi::ROOT_ADDRESS_OFFSET as usize;
    root[o..o + 8].copy_from_slice(&ROOT_BASE.to_le_bytes());
    (root, set)
}

/// Compiles and runs `src` on the simulated USC and on the IR interpreter; checks both agree
/// and returns the buffers after the USC run.
pub fn run(src: &str, bufs: &[Vec<u8>], groups: [u32; 3], push: &[u8]) -> Option<Vec<Vec<u8>>> {
    let spirv = glslang(src)?;
    Some(run_spirv(&spirv, bufs, groups, push))
}

/// [`run`] on a SPIR-V module.
pub fn run_spirv(spirv: &[u32], bufs: &[Vec<u8>], groups: [u32; 3], push: &[u8]) -> Vec<Vec<u8>> {
    let kinds = vec![DescriptorKind::StorageBuffer; bufs.len()];
    let robustness = compiler::BufferRobustness::default();
    run_spirv_kinds(spirv, (&kinds, robustness), bufs, groups, push).0
}

/// [`run_spirv`] with buffer `k` bound as a descriptor of `kinds[k]`, accesses checked or
/// not as `robustness` says; also returns the binary.
pub fn run_spirv_kinds(
    spirv: &[u32],
    (kinds, robustness): (&[DescriptorKind], compiler::BufferRobustness),
    bufs: &[Vec<u8>],
    groups: [u32; 3],
    push: &[u8],
) -> (Vec<Vec<u8>>, compiler::ComputeBinary) {
    let mut layout = layout_of(kinds);
    layout.buffer_robustness = robustness;
    let bin = compile_with(spirv, &layout);
    assert_eq!(bin.main_code().len() as u32, bin.stats.code_bytes);

    // The USC.
    let prog = Program::new(0, decode(bin.main_code())).expect("program");
    let (root, set) = root_and_set(bufs, groups, push);
    let mut launch = LaunchState::new(
        bin.local_size,
        std::array::from_fn(|i| groups[i] * bin.local_size[i]),
    );
    launch.shared_bytes = bin.shared_bytes;
    launch.stack_bytes = bin.scratch_bytes;
    launch.max_lane_steps = 1 << 30;
    let mut mem = FlatMemory::new();
    mem.map(SET_BASE, set.clone());
    mem.map(ROOT_BASE, root.clone());
    for (k, b) in bufs.iter().enumerate() {
        mem.map(BUF_BASE + 0x1_0000 * k as u64, b.clone());
    }
    launch.uniforms = bin.launch_uniforms(&root, &mut |va, out| {
        mem.read(va, out).expect("preload from mapped memory")
    });
    if let Some(code) = bin.preamble_code() {
        let pre = Program::new(0, decode(code)).expect("preamble program");
        let (uniforms, _) = run_preshader(&pre, &launch, &mut mem)
            .unwrap_or_else(|f| panic!("USC fault in the preamble: {f:?}"));
        launch.uniforms = uniforms;
    }
    // The interpreter is the USC's reference executor: the translated code must leave the
    // same memory after the same number of instructions.
    let mut reference = mem.clone();
    launch.executor = Executor::Interpreter;
    let want = run_workgroups(&prog, &launch, &mut reference)
        .unwrap_or_else(|f| panic!("USC fault (interpreter): {f:?}"));
    launch.executor = Executor::JitEager;
    let got =
        run_workgroups(&prog, &launch, &mut mem).unwrap_or_else(|f| panic!("USC fault: {f:?}"));
    assert_eq!(
        got, want,
        "translated code and interpreter count differently"
    );
    for (k, b) in bufs.iter().enumerate() {
        let va = BUF_BASE + 0x1_0000 * k as u64;
        assert_eq!(
            mem.bytes(va, b.len()),
            reference.bytes(va, b.len()),
            "buffer {k}: translated code and interpreter disagree"
        );
    }
    let usc: Vec<Vec<u8>> = bufs
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let mut out = vec![0u8; b.len()];
            mem.read(BUF_BASE + 0x1_0000 * k as u64, &mut out)
                .expect("read back");
            out
        })
        .collect();

    // The IR interpreter on the same lowered IR.
    let mut shader = compiler::frontend::translate(&request(spirv, &layout)).expect("translate");
    compiler::passes::run_all(&mut shader, &layout).expect("passes");
    let mut imem = Regions::default();
    imem.add(SET_BASE, set);
    imem.add(ROOT_BASE, root.clone());
    for (k, b) in bufs.iter().enumerate() {
        imem.add(BUF_BASE + 0x1_0000 * k as u64, b.clone());
    }
    let d = Dispatch {
        workgroups: groups,
        root: &root,
        layout: &layout,
        step_limit: 100_000_000,
    };
    interp::run(&shader, &d, &mut imem).unwrap_or_else(|e| panic!("interp: {e}"));
    for (k, u) in usc.iter().enumerate() {
        let i = imem
            .bytes(BUF_BASE + 0x1_0000 * k as u64)
            .expect("interp buffer");
        assert_eq!(
            as_u32(u),
            as_u32(i),
            "buffer {k}: USC and IR interpreter disagree"
        );
    }
    (usc, bin)
}

/// `words` with every GLSL.std.450 instruction `ext` replaced by the core instruction `op`
/// on the same operands (how tests reach instructions GLSL cannot express).
pub fn replace_ext_inst(words: &[u32], ext: u32, op: rspirv::spirv::Op) -> Vec<u32> {
    use rspirv::binary::Assemble;
    use rspirv::dr::{Instruction, Operand};
    let mut m = rspirv::dr::load_words(words).expect("parse SPIR-V");
    for f in &mut m.functions {
        for b in &mut f.blocks {
            for inst in &mut b.instructions {
                if inst.class.opcode == rspirv::spirv::Op::ExtInst
                    && inst.operands.get(1) == Some(&Operand::LiteralExtInstInteger(ext))
                {
                    let args = inst.operands[2..].to_vec();
                    *inst = Instruction::new(op, inst.result_type, inst.result_id, args);
                }
            }
        }
    }
    m.assemble()
}
