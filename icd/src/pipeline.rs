//! Compute pipelines: compile the shader against the layout (through the pipeline cache),
//! and upload its code into the device's shader window.

use crate::bo::{Bo, Place};
use crate::device::Device;
use crate::entry::{guard, guard_or};
use crate::handle::{self, object, Object};
use crate::pipeline_cache::{self, PipelineCache};
use crate::pipeline_graphics::GraphicsPipeline;
use crate::pipeline_layout::PipelineLayout;
use crate::shader_module::ShaderModule;
use ash::vk;
use compiler::ComputeBinary;
use kmd_iface::Backend;
use std::ffi::CStr;

/// A compiled program resident in the shader window: an application pipeline or a meta shader.
pub struct Program {
    pub binary: ComputeBinary,
    _code: Bo,
    /// Offset of the code from the queue's `usc_exec_base`.
    pub code_offset: u32,
    /// GPU address of the binary's constant data (after the code, in the same object), which
    /// `PreloadSource::Constants` preloads read.
    pub constants_va: u64,
    /// Stack bytes per thread the launch gives (`stack_bytes`).
    pub stack_bytes: u32,
}

impl Program {
    pub fn new(dev: &Device, binary: ComputeBinary) -> Result<Program, vk::Result> {
        let stack_bytes = stack_bytes(dev, binary.scratch_bytes)?;
        let threads: u64 = binary.local_size.iter().map(|&n| u64::from(n)).product();
        if threads == 0 || threads > 1024 {
            eprintln!(
                "agx4: workgroup size {:?} is out of range",
                binary.local_size
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let constants_at = (binary.code.len() as u64).next_multiple_of(16);
        let size = constants_at + binary.constants.len() as u64;
        let code = Bo::new(dev, size, Place::Usc, false)?;
        code.write(0, &binary.code)?;
        code.write(constants_at, &binary.constants)?;
        let code_offset = u32::try_from(code.va - dev.usc_base)
            .map_err(|_| vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        Ok(Program {
            constants_va: code.va + constants_at,
            binary,
            _code: code,
            code_offset,
            stack_bytes,
        })
    }
}

/// The stack per thread a launch of a program that needs `scratch` bytes of it gives, once
/// the device is known to give that much.
pub(crate) fn stack_bytes(dev: &Device, scratch: u32) -> Result<u32, vk::Result> {
    if scratch == 0 {
        return Ok(0);
    }
    if dev.kmd.backend() != Backend::Sim {
        // The simulated USC gives each thread the stack the launch asks for; the real GPU
        // also needs the firmware's helper program and a scratch buffer, which agx4 does not
        // build yet.
        eprintln!("agx4: the shader needs {scratch} bytes of scratch per thread, which needs the firmware helper program agx4 does not set up yet");
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    // OUT_OF_DEVICE_MEMORY is among the errors vkCreate*Pipelines may return, and it is
    // what this is: no launch can give a thread that much stack.
    let most = dev.emitter()?.max_stack_bytes;
    if scratch > most {
        eprintln!("agx4: the shader needs {scratch} bytes of stack per thread, more than the {most} a launch can give");
        return Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
    }
    Ok(scratch)
}

/// The result for a shader the compiler refuses. vkCreate*Pipelines may fail only with the
/// out-of-memory codes (VK_ERROR_INVALID_SHADER_NV belongs to NVIDIA's extension), and
/// VK_ERROR_UNKNOWN means an application or implementation bug. A valid shader that exceeds
/// one of agx4's own fixed-size resources (value ids, branch or stack offset ranges, nesting
/// depth) is neither: it is the implementation running out of room, and the listed code for
/// that is VK_ERROR_OUT_OF_HOST_MEMORY (the compiler's tables live on the host; Mesa's
/// drivers report compile failures the same way). A compiler bug stays VK_ERROR_UNKNOWN, and
/// the message goes to stderr either way. (Unsupported SPIR-V keeps
/// VK_ERROR_FEATURE_NOT_PRESENT, as graphics pipelines have always reported it.)
pub(crate) fn compile_error_result(e: &compiler::CompileError) -> vk::Result {
    match e {
        compiler::CompileError::Limit(_) => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        compiler::CompileError::Unsupported(_) => vk::Result::ERROR_FEATURE_NOT_PRESENT,
        _ => vk::Result::ERROR_UNKNOWN,
    }
}

pub struct ComputePipeline {
    pub program: Program,
}

/// What a VkPipeline handle holds.
pub enum Pipeline {
    Compute(Box<ComputePipeline>),
    Graphics(Box<GraphicsPipeline>),
}
object!(Pipeline, vk::Pipeline);

impl Pipeline {
    /// The compute pipeline behind a handle; `None` for `VK_NULL_HANDLE` or a graphics
    /// pipeline.
    ///
    /// # Safety
    /// `handle` must be `VK_NULL_HANDLE` or a live pipeline made by this driver, and the
    /// pipeline must not be destroyed while the returned reference is in use. A command
    /// buffer's bound compute pipeline is such a handle while the command buffer records:
    /// destroying it would move the command buffer out of the recording state, which valid
    /// usage requires of every vkCmd* command.
    pub unsafe fn compute<'a>(handle: vk::Pipeline) -> Option<&'a ComputePipeline> {
        // SAFETY: guaranteed by the caller: `handle` is null or a live pipeline made by this
        // driver that outlives the returned reference.
        match unsafe { Pipeline::from_handle(handle) }? {
            Pipeline::Compute(p) => Some(p),
            Pipeline::Graphics(_) => None,
        }
    }

    /// The graphics pipeline behind a handle; `None` for `VK_NULL_HANDLE` or a compute
    /// pipeline.
    ///
    /// # Safety
    /// `handle` must be `VK_NULL_HANDLE` or a live pipeline made by this driver, and the
    /// pipeline must not be destroyed while the returned reference is in use. The pipeline
    /// vkCmdBindPipeline is given is such a handle (Vulkan valid usage), and so is a command
    /// buffer's bound graphics pipeline while the command buffer records: destroying it would
    /// move the command buffer out of the recording state, which valid usage requires of every
    /// vkCmd* command.
    pub unsafe fn graphics<'a>(handle: vk::Pipeline) -> Option<&'a GraphicsPipeline> {
        // SAFETY: guaranteed by the caller: `handle` is null or a live pipeline made by this
        // driver that outlives the returned reference.
        match unsafe { Pipeline::from_handle(handle) }? {
            Pipeline::Graphics(p) => Some(p),
            Pipeline::Compute(_) => None,
        }
    }
}

/// The meta shader `kind`, compiled and uploaded on first use.
pub fn meta(
    dev: &Device,
    kind: compiler::meta::Meta,
) -> Result<std::sync::Arc<Program>, vk::Result> {
    let mut cache = dev.meta.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = cache.get(&kind) {
        return Ok(p.clone());
    }
    let target = dev.target.ok_or(vk::Result::ERROR_FEATURE_NOT_PRESENT)?;
    let binary = compiler::meta::compile(kind, target).map_err(|e| {
        eprintln!("agx4: meta shader {kind:?}: {e}");
        vk::Result::ERROR_UNKNOWN
    })?;
    let program = std::sync::Arc::new(Program::new(dev, binary)?);
    cache.insert(kind, program.clone());
    Ok(program)
}

/// Compiles one VkComputePipelineCreateInfo.
///
/// # Safety
/// `info` must be valid, with a valid specialization info if any, and live shader module and
/// pipeline layout handles made by this driver.
unsafe fn create_one(
    dev: &Device,
    cache: Option<&PipelineCache>,
    info: &vk::ComputePipelineCreateInfo<'_>,
) -> Result<(ComputePipeline, bool), vk::Result> {
    let stage = &info.stage;
    if stage.stage != vk::ShaderStageFlags::COMPUTE {
        return Err(vk::Result::ERROR_UNKNOWN);
    }
    // SAFETY: guaranteed by the caller: `stage.module` is a live shader module made by this
    // driver.
    let module =
        unsafe { ShaderModule::from_handle(stage.module) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: guaranteed by the caller: `info.layout` is a live pipeline layout made by this
    // driver.
    let layout =
        unsafe { PipelineLayout::from_handle(info.layout) }.ok_or(vk::Result::ERROR_UNKNOWN)?;
    // SAFETY: valid usage: pName is a NUL-terminated string.
    let entry = unsafe { CStr::from_ptr(stage.p_name) }
        .to_str()
        .map_err(|_| vk::Result::ERROR_UNKNOWN)?;
    let mut specialization = Vec::new();
    // SAFETY: guaranteed by the caller.
    if let Some(spec) = unsafe { stage.p_specialization_info.as_ref() } {
        // SAFETY: valid usage: the map entries and data are as long as their counts say.
        let (entries, data) = unsafe {
            (
                handle::slice(spec.p_map_entries, spec.map_entry_count),
                handle::slice(spec.p_data as *const u8, spec.data_size as u32),
            )
        };
        for e in entries {
            let bytes = data
                .get(e.offset as usize..e.offset as usize + e.size)
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
            specialization.push(compiler::Specialization {
                id: e.constant_id,
                bytes: bytes.to_vec(),
            });
        }
    }
    let target = dev.target.ok_or_else(|| {
        eprintln!("agx4: no shader compiler for this GPU generation");
        vk::Result::ERROR_UNKNOWN
    })?;
    let req = compiler::ComputeRequest {
        spirv: &module.words,
        entry_point: entry,
        specialization: &specialization,
        layout: &layout.resources,
        target,
    };
    let key = pipeline_cache::key(&req);
    let hit = cache.and_then(|c| c.lookup(key));
    let from_cache = hit.is_some();
    let binary = match hit {
        Some(b) => b,
        None if info
            .flags
            .contains(vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED) =>
        {
            return Err(vk::Result::PIPELINE_COMPILE_REQUIRED);
        }
        None => {
            let b = compiler::compile_compute(&req).map_err(|e| {
                eprintln!("agx4: vkCreateComputePipelines: {e}");
                compile_error_result(&e)
            })?;
            if let Some(c) = cache {
                c.insert(key, b.clone());
            }
            b
        }
    };
    let pipeline = ComputePipeline {
        program: Program::new(dev, binary)?,
    };
    Ok((pipeline, from_cache))
}

pub unsafe extern "system" fn create_compute_pipelines(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    count: u32,
    p_infos: *const vk::ComputePipelineCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    guard("vkCreateComputePipelines", || {
        // SAFETY: `device` is vkCreateComputePipelines's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfos holds `count` structures, pPipelines has room.
        let (infos, out) = unsafe {
            (
                handle::slice(p_infos, count),
                std::slice::from_raw_parts_mut(p_pipelines, count as usize),
            )
        };
        // SAFETY: Vulkan valid usage: `pipelineCache` is VK_NULL_HANDLE or a live pipeline cache
        // made by this driver.
        let cache = unsafe { PipelineCache::from_handle(pipeline_cache) };
        let flags: Vec<_> = infos.iter().map(|i| i.flags).collect();
        let chains: Vec<_> = infos.iter().map(|i| i.p_next).collect();
        create_each(&flags, &chains, out, |i| {
            // SAFETY: valid usage: each create info is valid, with a valid specialization info if
            // any, and its stage's `module` and its `layout` are a live shader module and a live
            // pipeline layout made by this driver.
            let (p, hit) = unsafe { create_one(dev, cache, &infos[i]) }?;
            // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
            let handle = unsafe {
                Pipeline::Compute(Box::new(p))
                    .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
            }?;
            Ok((handle, hit))
        })
    })
}

/// Creates the pipelines of one vkCreate*Pipelines call in order, writing each handle or
/// VK_NULL_HANDLE for one that failed. The result is the last error, else
/// VK_PIPELINE_COMPILE_REQUIRED if a pipeline asked not to be compiled and needed to be
/// (VK_EXT_pipeline_creation_cache_control), else success. A failed pipeline with
/// EARLY_RETURN_ON_FAILURE ends the call: the pipelines after it are VK_NULL_HANDLE.
/// `chains` are the create infos' pNext chains, for the creation feedback.
fn create_each(
    flags: &[vk::PipelineCreateFlags],
    chains: &[*const std::ffi::c_void],
    out: &mut [vk::Pipeline],
    mut create: impl FnMut(usize) -> Result<(vk::Pipeline, bool), vk::Result>,
) -> Result<(), vk::Result> {
    out.fill(vk::Pipeline::null());
    let mut result = Ok(());
    for (i, f) in flags.iter().enumerate() {
        let started = std::time::Instant::now();
        let created = create(i);
        // SAFETY: valid usage: each create info has a valid pNext chain.
        let outcome = created.as_ref().ok().map(|(_, hit)| *hit);
        // SAFETY: valid usage: each create info has a valid pNext chain.
        unsafe { write_feedback(chains[i], started, outcome) };
        match created {
            Ok((p, _)) => out[i] = p,
            Err(e) => {
                if e != vk::Result::PIPELINE_COMPILE_REQUIRED || result.is_ok() {
                    result = Err(e);
                }
                if f.contains(vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE) {
                    break;
                }
            }
        }
    }
    result
}

/// VK_EXT_pipeline_creation_feedback (core in 1.3): how long a pipeline took to create, and
/// whether the pipeline cache held it (`outcome`: None for a failed creation). There are no
/// per-stage figures (the stages compile together), so the stage entries say so.
///
/// # Safety
/// `p_next` is a valid pNext chain of a pipeline create info.
unsafe fn write_feedback(
    p_next: *const std::ffi::c_void,
    started: std::time::Instant,
    outcome: Option<bool>,
) {
    // SAFETY: guaranteed by the caller.
    let Some(info) =
        (unsafe { handle::find_in_chain::<vk::PipelineCreationFeedbackCreateInfo<'_>>(p_next) })
    else {
        return;
    };
    let whole = vk::PipelineCreationFeedback {
        flags: match outcome {
            Some(true) => {
                vk::PipelineCreationFeedbackFlags::VALID
                    | vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT
            }
            Some(false) => vk::PipelineCreationFeedbackFlags::VALID,
            None => vk::PipelineCreationFeedbackFlags::empty(),
        },
        duration: started.elapsed().as_nanos().try_into().unwrap_or(u64::MAX),
    };
    // SAFETY: valid usage: pPipelineCreationFeedback is writable, and
    // pPipelineStageCreationFeedbacks holds pipelineStageCreationFeedbackCount structures.
    unsafe {
        *info.p_pipeline_creation_feedback = whole;
        for i in 0..info.pipeline_stage_creation_feedback_count as usize {
            *info.p_pipeline_stage_creation_feedbacks.add(i) =
                vk::PipelineCreationFeedback::default();
        }
    }
}

pub unsafe extern "system" fn create_graphics_pipelines(
    device: vk::Device,
    _pipeline_cache: vk::PipelineCache,
    count: u32,
    p_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    guard("vkCreateGraphicsPipelines", || {
        // SAFETY: `device` is vkCreateGraphicsPipelines's device parameter, which valid usage
        // requires to be a live device made by this driver.
        let dev = unsafe { Device::get(device) }?;
        // SAFETY: valid usage: pCreateInfos holds `count` structures, pPipelines has room.
        let (infos, out) = unsafe {
            (
                handle::slice(p_infos, count),
                std::slice::from_raw_parts_mut(p_pipelines, count as usize),
            )
        };
        let flags: Vec<_> = infos.iter().map(|i| i.flags).collect();
        let chains: Vec<_> = infos.iter().map(|i| i.p_next).collect();
        create_each(&flags, &chains, out, |i| {
            // Graphics pipelines are not kept in pipeline caches, so every one is compiled.
            if flags[i].contains(vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED) {
                return Err(vk::Result::PIPELINE_COMPILE_REQUIRED);
            }
            // SAFETY: each structure is valid, per valid usage.
            let p = unsafe { crate::pipeline_graphics::create_one(dev, &infos[i]) }?;
            // SAFETY: valid usage: pAllocator is null or valid allocation callbacks.
            let handle = unsafe {
                Pipeline::Graphics(Box::new(p))
                    .into_handle_in(p_allocator, vk::SystemAllocationScope::OBJECT)
            }?;
            Ok((handle, false))
        })
    })
}

pub unsafe extern "system" fn destroy_pipeline(
    _device: vk::Device,
    pipeline: vk::Pipeline,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard_or("vkDestroyPipeline", (), || {
        // SAFETY: Vulkan valid usage: `pipeline` is VK_NULL_HANDLE or a live pipeline made by
        // this driver, and this destroy command is its last use.
        drop(unsafe { Pipeline::take(pipeline) })
    })
}

// VK_KHR_pipeline_executable_properties: one executable per shader (the compute shader; or
// the vertex shader and, if any, the fragment shader), with the compiler's statistics.

/// One executable's name, description, stage and statistics.
struct Executable {
    name: &'static str,
    description: &'static str,
    stage: vk::ShaderStageFlags,
    stats: Vec<(&'static str, &'static str, u64)>,
}

fn common_stats(
    s: &compiler::Stats,
    gpr_halves: u32,
    uniform_halves: u32,
) -> Vec<(&'static str, &'static str, u64)> {
    vec![
        (
            "Instructions",
            "Machine instructions in the shader",
            u64::from(s.instructions),
        ),
        (
            "Code size",
            "Bytes of machine code",
            u64::from(s.code_bytes),
        ),
        (
            "GPRs",
            "General-purpose registers allocated, in 16-bit halves",
            u64::from(gpr_halves),
        ),
        (
            "Uniforms",
            "Uniform registers preloaded, in 16-bit halves",
            u64::from(uniform_halves),
        ),
        (
            "Spills",
            "Registers spilled to scratch",
            u64::from(s.spills),
        ),
        (
            "Fills",
            "Registers reloaded from scratch",
            u64::from(s.fills),
        ),
        (
            "Preamble instructions",
            "Machine instructions of the uniform preamble, which runs once per launch",
            u64::from(s.preamble_instructions),
        ),
    ]
}

/// The executables of `pipeline`, with their statistics.
///
/// # Safety
/// `pipeline` must be `VK_NULL_HANDLE` or a live pipeline made by this driver, not destroyed
/// during the call. The pipeline of a vkGetPipelineExecutable*KHR command's info is such a
/// handle (Vulkan valid usage).
unsafe fn executables(pipeline: vk::Pipeline) -> Result<Vec<Executable>, vk::Result> {
    Ok(
        // SAFETY: guaranteed by the caller: `pipeline` is null or a live pipeline made by this
        // driver that outlives the call.
        match unsafe { Pipeline::from_handle(pipeline) }.ok_or(vk::Result::ERROR_UNKNOWN)? {
            Pipeline::Compute(c) => {
                let b = &c.program.binary;
                let mut stats = common_stats(&b.stats, b.gpr_halves, b.uniform_halves);
                stats.push((
                    "Shared memory",
                    "Bytes of workgroup memory",
                    u64::from(b.shared_bytes),
                ));
                vec![Executable {
                    name: "Compute shader",
                    description: "The pipeline's compute shader",
                    stage: vk::ShaderStageFlags::COMPUTE,
                    stats,
                }]
            }
            Pipeline::Graphics(g) => {
                let b = &g.binary;
                // A dynamic vertex input layout compiles a program per layout at draw time:
                // the pipeline itself has no vertex code to describe.
                let (mut vs, description) = match g.vertex.fixed() {
                    Some(v) => (
                        common_stats(&v.binary.stats, v.binary.gpr_halves, v.binary.uniform_halves),
                        "The pipeline's vertex shader",
                    ),
                    None => (
                        Vec::new(),
                        "The pipeline's vertex shader, compiled for each vertex input layout at draw time",
                    ),
                };
                vs.push((
                    "Varyings",
                    "32-bit words of each vertex's output record",
                    u64::from(b.uvs_words),
                ));
                let mut list = vec![Executable {
                    name: "Vertex shader",
                    description,
                    stage: vk::ShaderStageFlags::VERTEX,
                    stats: vs,
                }];
                if let Some(f) = &b.fragment {
                    let mut fs = common_stats(&f.stats, f.gpr_halves, f.uniform_halves);
                    fs.push((
                        "Coefficient registers",
                        "Interpolation coefficient registers the launch fills",
                        u64::from(b.cf_registers),
                    ));
                    list.push(Executable {
                        name: "Fragment shader",
                        description: "The pipeline's fragment shader",
                        stage: vk::ShaderStageFlags::FRAGMENT,
                        stats: fs,
                    });
                }
                list
            }
        },
    )
}

pub unsafe extern "system" fn get_pipeline_executable_properties(
    _device: vk::Device,
    p_info: *const vk::PipelineInfoKHR<'_>,
    p_count: *mut u32,
    p_properties: *mut vk::PipelineExecutablePropertiesKHR<'_>,
) -> vk::Result {
    guard("vkGetPipelineExecutablePropertiesKHR", || {
        // SAFETY: valid usage: pPipelineInfo is valid, and its pipeline is a live pipeline made by
        // this driver; pExecutableCount is writable and pProperties, if not null, holds
        // *pExecutableCount structures.
        unsafe {
            let list = executables((*p_info).pipeline)?;
            if p_properties.is_null() {
                *p_count = list.len() as u32;
                return Ok(());
            }
            let n = (*p_count as usize).min(list.len());
            for (i, e) in list.iter().take(n).enumerate() {
                let p = &mut *p_properties.add(i);
                p.stages = e.stage;
                handle::write_name(&mut p.name, e.name);
                handle::write_name(&mut p.description, e.description);
                p.subgroup_size = 32;
            }
            *p_count = n as u32;
            if n < list.len() {
                return Err(vk::Result::INCOMPLETE);
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn get_pipeline_executable_statistics(
    _device: vk::Device,
    p_info: *const vk::PipelineExecutableInfoKHR<'_>,
    p_count: *mut u32,
    p_statistics: *mut vk::PipelineExecutableStatisticKHR<'_>,
) -> vk::Result {
    guard("vkGetPipelineExecutableStatisticsKHR", || {
        // SAFETY: valid usage: pExecutableInfo is valid, and its pipeline is a live pipeline made
        // by this driver; pStatisticCount is writable and pStatistics, if not null, holds
        // *pStatisticCount structures.
        unsafe {
            let info = &*p_info;
            let list = executables(info.pipeline)?;
            let stats = &list
                .get(info.executable_index as usize)
                .ok_or(vk::Result::ERROR_UNKNOWN)?
                .stats;
            if p_statistics.is_null() {
                *p_count = stats.len() as u32;
                return Ok(());
            }
            let n = (*p_count as usize).min(stats.len());
            for (i, (name, description, value)) in stats.iter().take(n).enumerate() {
                let s = &mut *p_statistics.add(i);
                handle::write_name(&mut s.name, name);
                handle::write_name(&mut s.description, description);
                s.format = vk::PipelineExecutableStatisticFormatKHR::UINT64;
                s.value = vk::PipelineExecutableStatisticValueKHR { u64: *value };
            }
            *p_count = n as u32;
            if n < stats.len() {
                return Err(vk::Result::INCOMPLETE);
            }
        }
        Ok(())
    })
}

pub unsafe extern "system" fn get_pipeline_executable_internal_representations(
    _device: vk::Device,
    p_info: *const vk::PipelineExecutableInfoKHR<'_>,
    p_count: *mut u32,
    _p_representations: *mut vk::PipelineExecutableInternalRepresentationKHR<'_>,
) -> vk::Result {
    guard("vkGetPipelineExecutableInternalRepresentationsKHR", || {
        // SAFETY: valid usage: pExecutableInfo is valid, and its pipeline is a live pipeline made
        // by this driver; pInternalRepresentationCount is writable.
        unsafe {
            let info = &*p_info;
            if info.executable_index as usize >= executables(info.pipeline)?.len() {
                return Err(vk::Result::ERROR_UNKNOWN);
            }
            // No textual representations are offered.
            *p_count = 0;
        }
        Ok(())
    })
}
