//! What the ICD calls: compile a compute entry point against a pipeline layout.

use thiserror::Error;

/// Kind of descriptor a binding holds, as set memory lays it out (`abi::descriptor_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    StorageBuffer,
    UniformBuffer,
    /// A sampler entry (`abi::SAMPLER_ENTRY_SIZE`).
    Sampler,
    /// A texture descriptor.
    SampledImage,
    /// A texture descriptor, then a sampler entry at `abi::COMBINED_SAMPLER_OFFSET`.
    CombinedImageSampler,
    /// A texture descriptor, then a PBE descriptor at `abi::STORAGE_PBE_OFFSET`.
    StorageImage,
    /// A texture descriptor of a buffer view.
    UniformTexelBuffer,
    /// A texture and a PBE descriptor of a buffer view, as for storage images.
    StorageTexelBuffer,
}

/// One binding of a descriptor set layout, placed in set memory by the ICD.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BindingLayout {
    pub binding: u32,
    pub kind: DescriptorKind,
    /// Array size (descriptorCount).
    pub count: u32,
    /// Byte offset of element 0 in the set's memory; elements are
    /// `abi::descriptor_size(kind)` apart.
    pub offset: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SetLayout {
    pub bindings: Vec<BindingLayout>,
}

/// Whether buffer accesses through descriptors are bounds-checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum BufferRobustness {
    /// Each access is checked against its descriptor's range: loads outside it give zero,
    /// stores and atomics outside it do nothing (robustBufferAccess, robustBufferAccess2 and
    /// nullDescriptor all hold). The default, since it is always correct.
    #[default]
    Checked,
    /// Accesses go where the shader says. Vulkan leaves out-of-range accesses undefined
    /// unless the device enables robustness, and on AGX a stray one can fault the GPU.
    Unchecked,
}

/// The pipeline layout as the shader sees it, and how it may access the resources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ResourceLayout {
    /// Indexed by set number; `None` for a hole.
    pub sets: Vec<Option<SetLayout>>,
    pub push_constant_size: u32,
    pub buffer_robustness: BufferRobustness,
}

/// One specialization constant value: the constant ID and its bytes (1, 2, 4 or 8).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Specialization {
    pub id: u32,
    pub bytes: Vec<u8>,
}

/// Which machine code to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    G13,
}

impl Target {
    /// The back end for a GPU generation, if agx4 has one.
    pub fn for_generation(g: hw::Generation) -> Option<Target> {
        match g {
            hw::Generation::G13 | hw::Generation::G14 => Some(Target::G13),
            hw::Generation::G16 => None,
        }
    }
}

/// Everything needed to compile one compute shader.
#[derive(Debug, Clone, Copy)]
pub struct ComputeRequest<'a> {
    pub spirv: &'a [u32],
    pub entry_point: &'a str,
    pub specialization: &'a [Specialization],
    pub layout: &'a ResourceLayout,
    pub target: Target,
}

/// Everything needed to translate one shader of any stage (graphics stages so far stop at
/// the IR: see [`translate_graphics`]).
#[derive(Debug, Clone, Copy)]
pub struct ShaderRequest<'a> {
    pub spirv: &'a [u32],
    pub entry_point: &'a str,
    pub stage: crate::ir::Stage,
    pub specialization: &'a [Specialization],
    pub layout: &'a ResourceLayout,
    pub target: Target,
}

/// Statistics of one compiled shader (the shader-db line, and
/// VK_KHR_pipeline_executable_properties).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Stats {
    pub instructions: u32,
    pub code_bytes: u32,
    /// General-purpose registers used, in 16-bit halves.
    pub gpr_halves: u32,
    pub spills: u32,
    pub fills: u32,
    /// Instructions of the uniform preamble (0 without one), which runs once per launch.
    pub preamble_instructions: u32,
}

/// Where a binary's uniform preamble is (`passes::preamble`): the program a launch runs once
/// before its threads, which leaves values for the main shader in uniform registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PreambleCode {
    /// Byte offset of its code in the binary's `code`.
    pub offset: u32,
    /// Registers it uses, in 16-bit halves.
    pub gpr_halves: u32,
    /// The uniform halves it writes: `result_halves` from `first_half` on.
    pub first_half: u32,
    pub result_halves: u32,
}

impl PreambleCode {
    /// The uniform half after its results.
    pub fn results_end(&self) -> u32 {
        self.first_half + self.result_halves
    }
}

/// Uniform halves `[uniform_half, uniform_half + halves)` that a launch loads from memory
/// (USC Uniform words), at `byte_offset` into the memory `source` names. The hardware reads
/// the memory when the launch starts, so descriptors written after binding
/// (update-after-bind) are seen, as a load in the shader would see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniformPreload {
    pub uniform_half: u32,
    pub halves: u32,
    pub source: PreloadSource,
    pub byte_offset: u32,
}

/// Where a [`UniformPreload`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PreloadSource {
    /// A bound set's memory, at the 64-bit address stored at byte `root_offset` of the root
    /// table.
    Set { root_offset: u32 },
    /// The binary's own constant data ([`ComputeBinary::constants`]), which the program
    /// keeps in GPU memory beside its code.
    Constants,
}

impl ComputeBinary {
    /// Uniform halves a launch allocates: the root table's, every preload's and the
    /// preamble's results.
    pub fn uniform_halves_used(&self) -> u32 {
        let results = self.preamble.map_or(0, |p| p.results_end());
        self.preloads
            .iter()
            .map(|p| p.uniform_half + p.halves)
            .fold(self.uniform_halves.max(results), u32::max)
    }

    /// The main shader's code: all of `code` up to the preamble, which follows it.
    pub fn main_code(&self) -> &[u8] {
        let end = self.preamble.map_or(self.code.len(), |p| p.offset as usize);
        self.code.get(..end).unwrap_or(&self.code)
    }

    /// The preamble's code, if there is one.
    pub fn preamble_code(&self) -> Option<&[u8]> {
        self.preamble
            .and_then(|p| self.code.get(p.offset as usize..))
    }

    /// The uniform file a launch starts with, for harnesses that run the binary without the
    /// ICD: the root table's first `uniform_halves` halves, then each preload read from
    /// memory by `read(address, bytes)` (skipped when its set address is 0, as the ICD skips
    /// an unbound set's).
    pub fn launch_uniforms(&self, root: &[u8], read: &mut dyn FnMut(u64, &mut [u8])) -> Vec<u16> {
        let mut u = vec![0u16; self.uniform_halves_used() as usize];
        for (h, pair) in root
            .chunks_exact(2)
            .take(self.uniform_halves as usize)
            .enumerate()
        {
            u[h] = u16::from_le_bytes([pair[0], pair[1]]);
        }
        for p in &self.preloads {
            let mut bytes = vec![0u8; p.halves as usize * 2];
            match p.source {
                PreloadSource::Set { root_offset } => {
                    let at = root_offset as usize;
                    let Some(base) = root.get(at..at + 8) else {
                        continue;
                    };
                    let base = u64::from_le_bytes(base.try_into().unwrap_or_default());
                    if base == 0 {
                        continue;
                    }
                    read(base + u64::from(p.byte_offset), &mut bytes);
                }
                PreloadSource::Constants => {
                    let at = p.byte_offset as usize;
                    if let Some(c) = self.constants.get(at..at + bytes.len()) {
                        bytes.copy_from_slice(c);
                    }
                }
            }
            for (k, pair) in bytes.chunks_exact(2).enumerate() {
                u[p.uniform_half as usize + k] = u16::from_le_bytes([pair[0], pair[1]]);
            }
        }
        u
    }
}

/// A compiled compute shader and what its launch must provide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ComputeBinary {
    /// Machine code; it ends in `stop` and needs no relocation.
    pub code: Vec<u8>,
    /// Registers the launch must allocate, in 16-bit halves (a multiple of 16... the USC
    /// Registers word counts groups of 8 32-bit registers).
    pub gpr_halves: u32,
    /// Uniform halves the launch must preload from the root table (`abi`).
    pub uniform_halves: u32,
    /// More uniform ranges the launch loads from memory: descriptor words the shader would
    /// otherwise load itself, and constants (see [`UniformPreload`]).
    pub preloads: Vec<UniformPreload>,
    /// Constant data for [`PreloadSource::Constants`] preloads: 32-bit constants the shader
    /// reads as uniforms instead of moving them into registers.
    pub constants: Vec<u8>,
    /// The uniform preamble, if the shader has one; its code is inside `code`.
    pub preamble: Option<PreambleCode>,
    /// Per-invocation scratch bytes (stack), including spills.
    pub scratch_bytes: u32,
    /// Workgroup memory bytes.
    pub shared_bytes: u32,
    /// Workgroup size after specialization.
    pub local_size: [u32; 3],
    pub stats: Stats,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// The words are not a valid SPIR-V module, or break a rule the front end relies on.
    #[error("invalid SPIR-V: {0}")]
    InvalidSpirv(String),
    /// Valid SPIR-V that uses something agx4 does not implement (a capability, an
    /// instruction, a storage class).
    #[error("unsupported SPIR-V: {0}")]
    Unsupported(String),
    #[error("no entry point named {0:?} for the compute stage")]
    NoEntryPoint(String),
    /// A limit the hardware or agx4 imposes (registers, shared memory, code size).
    #[error("shader exceeds a limit: {0}")]
    Limit(String),
    /// A bug in the compiler, reported rather than panicking.
    #[error("internal compiler error: {0}")]
    Internal(String),
}

/// Checks that `words` is a SPIR-V module agx4 can read (header, instruction stream,
/// capabilities). `vkCreateShaderModule` calls this so bad input fails early.
pub fn check_module(words: &[u32]) -> Result<(), CompileError> {
    crate::frontend::check_module(words)
}

/// Compiles one compute entry point.
pub fn compile_compute(req: &ComputeRequest<'_>) -> Result<ComputeBinary, CompileError> {
    let mut shader = crate::frontend::translate(req)?;
    crate::passes::run_all(&mut shader, req.layout)?;
    let backend = req.target.backend();
    if let Some(b) = compile_split(backend, &shader, req.layout)? {
        return Ok(b);
    }
    backend.compile_with_preloads(&shader)
}

/// The shader as a uniform preamble and a main shader, when it has values worth moving
/// and the preamble fits its launch.
fn compile_split(
    backend: &dyn crate::backend::Backend,
    shader: &crate::ir::Shader,
    layout: &ResourceLayout,
) -> Result<Option<ComputeBinary>, CompileError> {
    let flags = crate::debug::flags();
    if flags.no_preamble {
        return Ok(None);
    }
    let area = backend.preamble_area();
    let Some((preamble, main)) = crate::passes::preamble::split(shader, layout, area)? else {
        return Ok(None);
    };
    for (name, s) in [("preamble", &preamble), ("main shader", &main)] {
        if flags.ir {
            eprintln!("agx4: IR of the {name}\n{}", crate::ir::print::print(s));
        }
        crate::ir::validate::validate(s)
            .and_then(|()| crate::ir::validate::backend_form(s))
            .map_err(|e| CompileError::Internal(format!("{name} after the split: {e}")))?;
    }
    backend.compile_with_preamble(&main, &preamble)
}

/// Translates a vertex or fragment entry point to IR and runs every generation-neutral pass
/// (`req.target` is not used yet: no back end takes graphics stages).
pub fn translate_graphics(
    req: &ShaderRequest<'_>,
) -> Result<crate::ir::GraphicsShader, CompileError> {
    let mut g = crate::frontend::translate_graphics(req)?;
    crate::passes::run_all(&mut g.shader, req.layout)?;
    Ok(g)
}
