//! Compute plumbing the loader tests share: set layouts, a one-set compute pipeline and a
//! descriptor pool with one set.

use ash::vk;

/// Binding `b` of one descriptor of type `ty`, seen by the compute stage.
pub fn binding(b: u32, ty: vk::DescriptorType) -> vk::DescriptorSetLayoutBinding<'static> {
    vk::DescriptorSetLayoutBinding::default()
        .binding(b)
        .descriptor_type(ty)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
}

/// A descriptor set layout of `bindings` with `flags`.
///
/// # Safety
/// `dev` is a live device.
pub unsafe fn set_layout(
    dev: &ash::Device,
    flags: vk::DescriptorSetLayoutCreateFlags,
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
) -> vk::DescriptorSetLayout {
    // SAFETY: valid device (the caller's contract) and create info.
    unsafe {
        dev.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default()
                .flags(flags)
                .bindings(bindings),
            None,
        )
    }
    .unwrap()
}

/// A compute pipeline with its layout (set 0 only, and a push constant range of `push_size`
/// bytes unless that is 0) and shader module.
pub struct Pipeline {
    pub layout: vk::PipelineLayout,
    pub module: vk::ShaderModule,
    pub pipeline: vk::Pipeline,
}

impl Pipeline {
    /// The pipeline of the compute shader `code` over `set_layout`.
    ///
    /// # Safety
    /// `set_layout` is a live layout of `dev` matching the shader's bindings.
    pub unsafe fn new(
        dev: &ash::Device,
        set_layout: vk::DescriptorSetLayout,
        push_size: u32,
        code: &[u32],
    ) -> Pipeline {
        let push = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: push_size,
        }];
        let push = if push_size == 0 { &[][..] } else { &push[..] };
        let set_layouts = [set_layout];
        // SAFETY: valid device and create infos (the caller's contract).
        unsafe {
            let layout = dev
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&set_layouts)
                        .push_constant_ranges(push),
                    None,
                )
                .unwrap();
            let module = dev
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                .expect("the front end reads the shader");
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)];
            let pipeline = dev
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, e)| e)
                .expect("the shader compiles")[0];
            Pipeline {
                layout,
                module,
                pipeline,
            }
        }
    }

    /// # Safety
    /// Nothing uses the pipeline any more.
    pub unsafe fn destroy(&self, dev: &ash::Device) {
        // SAFETY: the caller's contract.
        unsafe {
            dev.destroy_pipeline(self.pipeline, None);
            dev.destroy_shader_module(self.module, None);
            dev.destroy_pipeline_layout(self.layout, None);
        }
    }
}

/// The set layout of `bindings` (with `flags`) and the pipeline of
/// [`super::shaders::DISPATCH_SHADER`] over it, with its 4-byte push constant.
///
/// # Safety
/// `dev` is a live device; `bindings` are the shader's two.
pub unsafe fn dispatch_pipeline(
    dev: &ash::Device,
    flags: vk::DescriptorSetLayoutCreateFlags,
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
) -> (vk::DescriptorSetLayout, Pipeline) {
    // SAFETY: the caller's contract.
    unsafe {
        let set_layout = set_layout(dev, flags, bindings);
        let p = Pipeline::new(dev, set_layout, 4, &super::shaders::DISPATCH_SHADER);
        (set_layout, p)
    }
}

/// A descriptor pool of `sizes` (type, count) for `max_sets` sets, and one set of
/// `set_layout` from it.
///
/// # Safety
/// `set_layout` is a live layout of `dev`.
pub unsafe fn descriptor_set(
    dev: &ash::Device,
    set_layout: vk::DescriptorSetLayout,
    max_sets: u32,
    sizes: &[(vk::DescriptorType, u32)],
) -> (vk::DescriptorPool, vk::DescriptorSet) {
    let sizes: Vec<_> = sizes
        .iter()
        .map(|&(ty, descriptor_count)| vk::DescriptorPoolSize {
            ty,
            descriptor_count,
        })
        .collect();
    let set_layouts = [set_layout];
    // SAFETY: valid device and infos (the caller's contract).
    unsafe {
        let pool = dev
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(max_sets)
                    .pool_sizes(&sizes),
                None,
            )
            .unwrap();
        let set = dev
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&set_layouts),
            )
            .unwrap()[0];
        (pool, set)
    }
}

/// A barrier that makes the compute shader's writes visible to the host.
///
/// # Safety
/// `cb` is a command buffer of `dev` in the recording state.
pub unsafe fn shader_writes_to_host(dev: &ash::Device, cb: vk::CommandBuffer) {
    let barrier = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)];
    // SAFETY: the caller's contract.
    unsafe {
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &barrier,
            &[],
            &[],
        )
    };
}

/// Little-endian 32-bit words of `bytes`.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
