//! SPIR-V -> agx4 IR.
//!
//! [`module`] parses (rspirv) and checks the module, [`constants`] evaluates constants and
//! specialization, [`translate`] inlines functions and rebuilds structured control flow,
//! [`inst`], [`glsl`] and [`access`] translate instructions, memory and builtins.

mod access;
mod constants;
mod dot_product;
mod fragment_ops;
mod geometry;
mod glsl;
mod glsl_bits;
mod glsl_matrix;
mod image;
mod image_atomic;
#[cfg(test)]
mod image_tests;
mod inst;
mod layout;
mod module;
mod physical;
mod rspirv_gaps;
mod shared_init;
mod small_types;
mod stage_io;
mod subgroup;
mod translate;
mod values;
mod xfb;

use std::collections::{HashMap, HashSet};

use rspirv::dr::Operand;
use spirv::{Decoration, Op, StorageClass, Word};

use self::constants::CVal;
use self::layout::Layouts;
use self::module::{id, invalid, result_id, unsupported, LocalSize, SpvType};
use crate::{
    ir, BindingLayout, CompileError, ComputeRequest, DescriptorKind, ResourceLayout, SetLayout,
    ShaderRequest,
};

/// Header, instruction stream and capability checks (what vkCreateShaderModule needs).
pub fn check_module(words: &[u32]) -> Result<(), CompileError> {
    let m = module::parse(words)?;
    let decos = module::collect_decorations(&m)?;
    // Constants are judged when a pipeline specialises them: a default value may not
    // evaluate (a division by a specialization constant that defaults to zero).
    let (_types, _consts) = module::collect_types(&m, &decos, &[])?;
    Ok(())
}

/// Translates one compute entry point, with calls inlined and specialization applied.
pub fn translate(req: &ComputeRequest<'_>) -> Result<ir::Shader, CompileError> {
    let (sh, _) = translate_stage(
        req.spirv,
        req.entry_point,
        req.specialization,
        ir::Stage::Compute,
    )?;
    Ok(sh)
}

/// Translates one vertex or fragment entry point.
pub fn translate_graphics(req: &ShaderRequest<'_>) -> Result<ir::GraphicsShader, CompileError> {
    if req.stage == ir::Stage::Compute {
        return Err(invalid("translate_graphics asked for a compute shader"));
    }
    let (shader, info) =
        translate_stage(req.spirv, req.entry_point, req.specialization, req.stage)?;
    Ok(ir::GraphicsShader {
        stage: req.stage,
        depth_replacing: info.depth_replacing,
        per_sample: info.per_sample,
        early_fragment_tests: info.early_fragment_tests,
        shader,
        xfb: info.xfb,
        geometry: info.geometry,
    })
}

/// What a graphics entry point adds to the shader body.
struct StageInfo {
    depth_replacing: bool,
    per_sample: bool,
    early_fragment_tests: bool,
    xfb: Option<ir::XfbInfo>,
    geometry: Option<ir::GeometryInfo>,
}

fn translate_stage(
    spirv: &[u32],
    entry_point: &str,
    specialization: &[crate::Specialization],
    stage: ir::Stage,
) -> Result<(ir::Shader, StageInfo), CompileError> {
    // The Geometry capability is accepted only here, for a geometry entry point: nothing
    // public offers geometry shaders yet (check_module refuses the capability).
    let m = module::parse(spirv)?;
    let decos = module::collect_decorations(&m)?;
    let (types, consts) = module::collect_types(&m, &decos, specialization)?;
    let consts = consts?;
    let model = match stage {
        ir::Stage::Compute => spirv::ExecutionModel::GLCompute,
        ir::Stage::Vertex => spirv::ExecutionModel::Vertex,
        ir::Stage::Geometry => spirv::ExecutionModel::Geometry,
        ir::Stage::Fragment => spirv::ExecutionModel::Fragment,
    };
    let ep = module::find_stage_entry_point(&m, entry_point, model)?;
    let has_mode = |em: spirv::ExecutionMode| ep.modes.contains(&em);
    if has_mode(spirv::ExecutionMode::OriginLowerLeft) {
        return Err(invalid("OriginLowerLeft (Vulkan requires OriginUpperLeft)"));
    }
    let info = StageInfo {
        depth_replacing: has_mode(spirv::ExecutionMode::DepthReplacing),
        per_sample: false,
        early_fragment_tests: has_mode(spirv::ExecutionMode::EarlyFragmentTests),
        xfb: None,
        geometry: match stage {
            ir::Stage::Geometry => Some(geometry::geometry_info(&ep.modes, &|m| {
                ep.literals.iter().find(|(k, _)| *k == m).map(|(_, v)| *v)
            })?),
            _ => None,
        },
    };

    let mut local_size = match ep.local_size {
        Some(LocalSize::Literal(s)) => s,
        Some(LocalSize::Ids(ids)) => {
            let mut s = [0; 3];
            for (o, i) in s.iter_mut().zip(ids) {
                *o = constants::as_u32(&consts, i)
                    .ok_or_else(|| invalid("LocalSizeId operand is not a constant"))?;
            }
            s
        }
        None => [0; 3],
    };
    // A constant decorated WorkgroupSize overrides the execution mode.
    for (cid, (_, c)) in &consts {
        if decos.get(*cid, Decoration::BuiltIn).and_then(|v| v.first())
            == Some(&(spirv::BuiltIn::WorkgroupSize as u32))
        {
            let CVal::Comp(parts) = c else {
                return Err(invalid("WorkgroupSize constant is not a vector"));
            };
            for (o, p) in local_size.iter_mut().zip(parts) {
                if let CVal::Scalar(v) = p {
                    *o = *v as u32;
                }
            }
        }
    }
    if stage != ir::Stage::Compute {
        local_size = [0; 3];
    } else if local_size.contains(&0) {
        return Err(invalid("compute entry point without a workgroup size"));
    }
    let invocations = local_size.iter().try_fold(1u32, |a, b| a.checked_mul(*b));
    if stage == ir::Stage::Compute && !matches!(invocations, Some(n) if n <= 1024) {
        return Err(CompileError::Limit(format!(
            "workgroup size {local_size:?} exceeds 1024 invocations"
        )));
    }

    let mut funcs = HashMap::new();
    for f in &m.functions {
        let fid = f
            .def
            .as_ref()
            .and_then(|d| d.result_id)
            .ok_or_else(|| invalid("function without an id"))?;
        funcs.insert(fid, f);
    }
    let entry_fn = *funcs
        .get(&ep.function)
        .ok_or_else(|| invalid("entry point names an undefined function"))?;

    let mut glsl_set = None;
    let mut ignored_sets = HashSet::new();
    for e in &m.ext_inst_imports {
        let name = match e.operands.first() {
            Some(Operand::LiteralString(s)) => s.as_str(),
            _ => return Err(invalid("OpExtInstImport without a name")),
        };
        if name == "GLSL.std.450" {
            glsl_set = Some(result_id(e)?);
        } else if name.starts_with("NonSemantic.") {
            ignored_sets.insert(result_id(e)?);
        } else {
            return Err(unsupported(format!("extended instruction set {name}")));
        }
    }

    let scratch_vars = dynamic_locals(&m, &types, &consts)?;
    let written_members = stage_io::referenced_members(&m, &consts)?;
    let l = Layouts {
        types: &types,
        decos: &decos,
        sizes: Default::default(),
        aligns: Default::default(),
    };
    let mut tr = translate::Tr {
        l,
        decos: &decos,
        consts: &consts,
        funcs,
        globals: HashMap::new(),
        glsl_set,
        ignored_sets,
        sh: ir::Shader {
            local_size,
            shared_size: 0,
            scratch_size: 0,
            value_types: Vec::new(),
            var_types: Vec::new(),
            body: Vec::new(),
            contract: !decos
                .ids
                .values()
                .any(|l| l.iter().any(|(d, _)| *d == Decoration::NoContraction)),
            offsets_in_range: false,
            read_only_buffers: Default::default(),
        },
        cur: Vec::new(),
        scratch_offsets: HashMap::new(),
        scratch_vars,
        opaque_vars: HashSet::new(),
        call_stack: Vec::new(),
        next_instance: 0,
        blocks_done: 0,
        insts: 0,
        depth: 0,
        stage,
        outputs: Vec::new(),
        written_members,
        // A fragment shader whose interface lists SampleId or SamplePosition runs per sample
        // even if it never reads them: the interface is its static use (Vulkan's sample
        // shading rule).
        per_sample: stage == ir::Stage::Fragment
            && ep.interface.iter().any(|&v| {
                decos.get(v, spirv::Decoration::BuiltIn).is_some_and(|b| {
                    [spirv::BuiltIn::SampleId, spirv::BuiltIn::SamplePosition]
                        .iter()
                        .any(|&s| b.first() == Some(&(s as u32)))
                })
            }),
        origin_upper_left: ep.modes.contains(&spirv::ExecutionMode::OriginUpperLeft),
        demote_allowed: m.capabilities.iter().any(|c| {
            c.operands.first()
                == Some(&Operand::Capability(
                    spirv::Capability::DemoteToHelperInvocation,
                ))
        }),
        input_slots: HashMap::new(),
        phys_ptrs: physical::pointer_ids(&m, &types),
        xfb_mode: matches!(stage, ir::Stage::Vertex | ir::Stage::Geometry)
            && has_mode(spirv::ExecutionMode::Xfb),
        xfb_leaves: Vec::new(),
        xfb_strides: [0; ir::XFB_BUFFERS],
        geometry: info.geometry,
    };
    for inst in &m.types_global_values {
        if inst.class.opcode != Op::Variable {
            continue;
        }
        let rid = result_id(inst)?;
        // Inputs and outputs of other entry points in the module are not this stage's.
        let io = matches!(
            inst.result_type.and_then(|t| types.get(&t)),
            Some(SpvType::Pointer {
                sc: StorageClass::Input | StorageClass::Output,
                ..
            })
        );
        if io && !ep.interface.contains(&rid) {
            continue;
        }
        // Images and samplers (other than subpass inputs) are refused where they are used,
        // so a shader that only declares one compiles.
        if opaque_pointee(&types, inst.result_type) {
            tr.opaque_vars.insert(rid);
            continue;
        }
        let e = tr.variable(inst)?;
        tr.globals.insert(rid, e);
    }
    let zeroed = tr.zeroed_workgroup_ranges(&m)?;
    tr.zero_workgroup_memory(&zeroed)?;
    tr.run_function(entry_fn, Vec::new(), None, true)?;
    let info = StageInfo {
        per_sample: tr.per_sample,
        xfb: tr.xfb_info()?,
        ..info
    };
    let mut sh = tr.sh;
    sh.body = tr.cur;
    // A physical pointer may reach any buffer's memory, so none is read-only.
    let physical = m.capabilities.iter().any(|c| {
        c.operands.first()
            == Some(&Operand::Capability(
                spirv::Capability::PhysicalStorageBufferAddresses,
            ))
    });
    if physical {
        sh.read_only_buffers.values_mut().for_each(|r| *r = false);
    }
    Ok((sh, info))
}

/// Whether a pointer type points at an image or sampler agx4 does not implement (or an array
/// of them).
fn opaque_pointee(types: &HashMap<Word, SpvType>, ptr: Option<Word>) -> bool {
    let Some(SpvType::Pointer { pointee, .. }) = ptr.and_then(|t| types.get(&t)) else {
        return false;
    };
    let mut t = *pointee;
    for _ in 0..8 {
        match types.get(&t) {
            Some(SpvType::Opaque) => return true,
            Some(SpvType::Array { elem, .. } | SpvType::RuntimeArray { elem }) => t = *elem,
            _ => return false,
        }
    }
    false
}

/// Function and Private variables indexed with a non-constant index somewhere, directly or
/// through the parameters of the functions they are passed to: they live in scratch memory
/// instead of Vars.
fn dynamic_locals(
    m: &rspirv::dr::Module,
    types: &HashMap<Word, SpvType>,
    consts: &HashMap<Word, (Word, CVal)>,
) -> Result<HashSet<Word>, CompileError> {
    // The variables each pointer id may point into.
    let mut roots: HashMap<Word, HashSet<Word>> = HashMap::new();
    let is_local = |ty: Option<Word>| {
        matches!(
            ty.and_then(|t| types.get(&t)),
            Some(SpvType::Pointer {
                sc: StorageClass::Function | StorageClass::Private,
                ..
            })
        )
    };
    let globals = m.types_global_values.iter();
    let locals = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.instructions.iter()));
    for inst in globals.chain(locals) {
        if inst.class.opcode == Op::Variable && is_local(inst.result_type) {
            let r = result_id(inst)?;
            roots.insert(r, HashSet::from([r]));
        }
    }
    let params: HashMap<Word, Vec<Word>> = m
        .functions
        .iter()
        .filter_map(|f| {
            let fid = f.def.as_ref()?.result_id?;
            Some((
                fid,
                f.parameters.iter().filter_map(|p| p.result_id).collect(),
            ))
        })
        .collect();
    let mut out = HashSet::new();
    // Pointers flow forward through access chains and into callees' parameters; a few passes
    // reach every chain of calls a shader has in practice (a fixed point ends it early).
    for _ in 0..8 {
        let mut changed = false;
        let mut flow = |from: Word, to: Word, roots: &mut HashMap<Word, HashSet<Word>>| {
            let Some(src) = roots.get(&from).cloned() else {
                return;
            };
            let dst = roots.entry(to).or_default();
            for r in src {
                changed |= dst.insert(r);
            }
        };
        for f in &m.functions {
            for b in &f.blocks {
                for inst in &b.instructions {
                    match inst.class.opcode {
                        Op::AccessChain | Op::InBoundsAccessChain => {
                            let base = id(inst, 0)?;
                            flow(base, result_id(inst)?, &mut roots);
                            let dynamic = (1..inst.operands.len()).any(|k| {
                                id(inst, k).is_ok_and(|i| {
                                    !matches!(consts.get(&i), Some((_, CVal::Scalar(_))))
                                })
                            });
                            if dynamic {
                                if let Some(rs) = roots.get(&base) {
                                    out.extend(rs.iter().copied());
                                }
                            }
                        }
                        Op::FunctionCall => {
                            let callee = id(inst, 0)?;
                            let Some(ps) = params.get(&callee) else {
                                continue;
                            };
                            for (k, p) in ps.iter().enumerate() {
                                if let Ok(a) = id(inst, k + 1) {
                                    flow(a, *p, &mut roots);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    Ok(out)
}

/// A layout with every binding the fuzzer's shaders may name.
fn fuzz_layout() -> ResourceLayout {
    let set = SetLayout {
        bindings: (0..16)
            .map(|b| BindingLayout {
                binding: b,
                kind: DescriptorKind::StorageBuffer,
                count: 4,
                offset: b * 64,
            })
            .collect(),
    };
    ResourceLayout {
        sets: vec![Some(set); 4],
        push_constant_size: crate::abi::MAX_PUSH_CONSTANTS_SIZE,
        ..Default::default()
    }
}

/// Runs module checks, translation, every pass and the G13 back end on arbitrary bytes.
/// Returns whether the bytes compiled to machine code; never panics (the fuzz target's entry).
pub fn fuzz_one(bytes: &[u8]) -> bool {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if check_module(&words).is_err() {
        return false;
    }
    let layout = fuzz_layout();
    let req = ComputeRequest {
        spirv: &words,
        entry_point: "main",
        specialization: &[],
        layout: &layout,
        target: crate::Target::G13,
    };
    let Ok(mut sh) = translate(&req) else {
        return false;
    };
    crate::passes::run_all(&mut sh, &layout).is_ok() && crate::g13::compile(&sh).is_ok()
}
