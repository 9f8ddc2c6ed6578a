//! The graphics half of the shader corpus: the vertex/fragment pairs the render scenes draw
//! (`benches/data/graphics-pipelines.tsv`), each made into a Vulkan graphics pipeline on agx4
//! through the loader, with the generic state Mesa's figures were taken with, and measured
//! with VK_KHR_pipeline_executable_properties. Mesa 25.0.7's figures
//! (`benches/data/mesa-25.0.7-graphics.tsv`) are printed beside them.
//!
//! Mesa links vertex fetch and colour output as separate prolog and epilog programs when a
//! draw is recorded; agx4's shaders include them. The comparison adds Mesa's part to its
//! main program, so both sides count the same work.

use super::{glslang_for, Result, VENDOR_APPLE};
use ash::vk;
use std::collections::HashMap;
use std::path::Path;

/// One row of `graphics-pipelines.tsv`.
struct PipelineDesc {
    pair: String,
    vertex: String,
    fragment: String,
    /// (set, binding, type)
    bindings: Vec<(u32, u32, vk::DescriptorType)>,
    push: u32,
    /// (location, format, bytes)
    attributes: Vec<(u32, vk::Format, u32)>,
    targets: Vec<vk::Format>,
    /// Input attachment formats.
    inputs: Vec<vk::Format>,
    samples: vk::SampleCountFlags,
    topology: vk::PrimitiveTopology,
    blend: bool,
    sample_shading: bool,
    multiview: bool,
}

/// Figures of one shader: instructions, registers (16-bit halves), spills.
#[derive(Clone, Copy, Default)]
struct Figures {
    instrs: u64,
    preamble: u64,
    gpr_halves: u64,
    spills: u64,
    /// Mesa's prolog (vertex) or epilog (fragment), and the sample loop its linker wraps
    /// around a sample-shaded fragment shader; 0 for agx4, whose shaders include them.
    linked: u64,
}

fn data(name: &str) -> Result<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("data")
        .join(name);
    std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// The rows of a tab-separated data file, past its comments and header.
fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').collect())
}

fn list(field: &str) -> impl Iterator<Item = &str> {
    field.split(',').filter(|s| *s != "-" && !s.is_empty())
}

fn descriptors() -> Result<Vec<PipelineDesc>> {
    let text = data("graphics-pipelines.tsv")?;
    let mut out = Vec::new();
    for f in rows(&text) {
        let bad = || format!("graphics-pipelines.tsv: bad line {f:?}");
        if f.len() != 11 {
            return Err(bad());
        }
        let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
        let mut bindings = Vec::new();
        for b in list(f[3]) {
            let p: Vec<&str> = b.split(':').collect();
            let ty = match p.get(2).copied() {
                Some("U") => vk::DescriptorType::UNIFORM_BUFFER,
                Some("S") => vk::DescriptorType::STORAGE_BUFFER,
                Some("CIS") => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                Some("IA") => vk::DescriptorType::INPUT_ATTACHMENT,
                _ => return Err(bad()),
            };
            bindings.push((num(p[0])?, num(p[1])?, ty));
        }
        let mut attributes = Vec::new();
        for a in list(f[5]) {
            let (location, format) = a.split_once(':').ok_or_else(bad)?;
            let (format, bytes) = match format {
                "f2" => (vk::Format::R32G32_SFLOAT, 8),
                "f4" => (vk::Format::R32G32B32A32_SFLOAT, 16),
                "u8x4" => (vk::Format::R8G8B8A8_UINT, 4),
                _ => return Err(bad()),
            };
            attributes.push((num(location)?, format, bytes));
        }
        let targets = list(f[6])
            .map(|t| match t {
                "unorm" => Ok(vk::Format::R8G8B8A8_UNORM),
                "uint" => Ok(vk::Format::R32G32B32A32_UINT),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>>>()?;
        let inputs = list(f[7])
            .map(|t| match t {
                "color" => Ok(vk::Format::R8G8B8A8_UNORM),
                "ds" => Ok(vk::Format::D32_SFLOAT_S8_UINT),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>>>()?;
        let flags: Vec<&str> = list(f[10]).collect();
        out.push(PipelineDesc {
            pair: f[0].to_string(),
            vertex: f[1].to_string(),
            fragment: f[2].to_string(),
            bindings,
            push: num(f[4])?,
            attributes,
            targets,
            inputs,
            samples: vk::SampleCountFlags::from_raw(num(f[8])?),
            topology: if f[9] == "point" {
                vk::PrimitiveTopology::POINT_LIST
            } else {
                vk::PrimitiveTopology::TRIANGLE_LIST
            },
            blend: flags.contains(&"blend"),
            sample_shading: flags.contains(&"sampleshading"),
            multiview: flags.contains(&"multiview"),
        });
    }
    Ok(out)
}

/// Mesa's figures by (pair, stage).
fn mesa_figures() -> Result<HashMap<(String, String), Figures>> {
    let text = data("mesa-25.0.7-graphics.tsv")?;
    let mut m = HashMap::new();
    for f in rows(&text) {
        let num = |i: usize| -> Result<u64> {
            f.get(i)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("mesa-25.0.7-graphics.tsv: bad line {f:?}"))
        };
        m.insert(
            (f[0].to_string(), f[1].to_string()),
            Figures {
                instrs: num(2)?,
                preamble: num(3)?,
                gpr_halves: num(4)?,
                spills: num(5)?,
                linked: num(7)? + num(8)?,
            },
        );
    }
    Ok(m)
}

/// A device on agx4 with the features Mesa's figures were taken with (no robustness, no
/// pipeline statistics) and executable properties.
struct Device {
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
}

impl Device {
    fn new(entry: &ash::Entry) -> Result<Device> {
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        // SAFETY: valid create info.
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .map_err(|e| format!("vkCreateInstance: {e}"))?;
        // SAFETY: valid instance.
        let pdev = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?
            .into_iter()
            .find(|&p| super::device_name(&instance, p).1 == VENDOR_APPLE)
            .ok_or("no agx4 device")?;
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .sample_rate_shading(true)
            .large_points(true);
        let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default().multiview(true);
        let mut draw_parameters =
            vk::PhysicalDeviceShaderDrawParametersFeatures::default().shader_draw_parameters(true);
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let queue = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&[1.0])];
        let extensions = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue)
            .enabled_features(&features)
            .enabled_extension_names(&extensions)
            .push_next(&mut multiview)
            .push_next(&mut draw_parameters)
            .push_next(&mut executable_info);
        // SAFETY: valid physical device and create info.
        let device = unsafe { instance.create_device(pdev, &info, None) }
            .map_err(|e| format!("vkCreateDevice: {e}"))?;
        let executables = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        Ok(Device {
            instance,
            device,
            executables,
        })
    }

    /// The pipeline `d` describes, made and measured: the figures of its vertex and fragment
    /// shaders.
    fn measure(&self, d: &PipelineDesc, vs: &[u32], fs: &[u32]) -> Result<(Figures, Figures)> {
        let dev = &self.device;
        let err = |what: &'static str| move |e: vk::Result| format!("{}: {what}: {e}", d.pair);
        let all = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let mut objects = Objects::default();
        let result = (|| {
            let sets = d.bindings.iter().map(|b| b.0 + 1).max().unwrap_or(0);
            for set in 0..sets {
                let bindings: Vec<_> = d
                    .bindings
                    .iter()
                    .filter(|b| b.0 == set)
                    .map(|&(_, binding, ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(binding)
                            .descriptor_type(ty)
                            .descriptor_count(1)
                            .stage_flags(if ty == vk::DescriptorType::INPUT_ATTACHMENT {
                                vk::ShaderStageFlags::FRAGMENT
                            } else {
                                all
                            })
                    })
                    .collect();
                // SAFETY: valid device and create info.
                objects.set_layouts.push(
                    unsafe {
                        dev.create_descriptor_set_layout(
                            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                            None,
                        )
                    }
                    .map_err(err("vkCreateDescriptorSetLayout"))?,
                );
            }
            let push = [vk::PushConstantRange::default()
                .stage_flags(all)
                .size(d.push)];
            let mut layout_info =
                vk::PipelineLayoutCreateInfo::default().set_layouts(&objects.set_layouts);
            if d.push > 0 {
                layout_info = layout_info.push_constant_ranges(&push);
            }
            // SAFETY: valid device and create info.
            objects.layout = unsafe { dev.create_pipeline_layout(&layout_info, None) }
                .map_err(err("vkCreatePipelineLayout"))?;

            let mut attachments = Vec::new();
            let mut colour_refs = Vec::new();
            for &format in &d.targets {
                colour_refs.push(vk::AttachmentReference {
                    attachment: attachments.len() as u32,
                    layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                });
                attachments.push(attachment(
                    format,
                    d.samples,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                ));
            }
            let mut input_refs = Vec::new();
            for &format in &d.inputs {
                let layout = if format == vk::Format::D32_SFLOAT_S8_UINT {
                    vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
                } else {
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                };
                input_refs.push(vk::AttachmentReference {
                    attachment: attachments.len() as u32,
                    layout,
                });
                attachments.push(attachment(format, d.samples, layout));
            }
            let subpass = [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                .color_attachments(&colour_refs)
                .input_attachments(&input_refs)];
            let view_masks = [0b11];
            let mut multiview =
                vk::RenderPassMultiviewCreateInfo::default().view_masks(&view_masks);
            let mut pass_info = vk::RenderPassCreateInfo::default()
                .attachments(&attachments)
                .subpasses(&subpass);
            if d.multiview {
                pass_info = pass_info.push_next(&mut multiview);
            }
            // SAFETY: valid device and create info.
            objects.pass = unsafe { dev.create_render_pass(&pass_info, None) }
                .map_err(err("vkCreateRenderPass"))?;

            for code in [vs, fs] {
                // SAFETY: valid device; the code is SPIR-V from glslangValidator.
                objects.modules.push(
                    unsafe {
                        dev.create_shader_module(
                            &vk::ShaderModuleCreateInfo::default().code(code),
                            None,
                        )
                    }
                    .map_err(err("vkCreateShaderModule"))?,
                );
            }
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(objects.modules[0])
                    .name(c"main"),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(objects.modules[1])
                    .name(c"main"),
            ];
            let mut offset = 0;
            let attributes: Vec<_> = d
                .attributes
                .iter()
                .map(|&(location, format, bytes)| {
                    offset += bytes;
                    vk::VertexInputAttributeDescription {
                        location,
                        binding: 0,
                        format,
                        offset: offset - bytes,
                    }
                })
                .collect();
            let vertex_bindings = [vk::VertexInputBindingDescription {
                binding: 0,
                stride: offset,
                input_rate: vk::VertexInputRate::VERTEX,
            }];
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(if attributes.is_empty() {
                    &[]
                } else {
                    &vertex_bindings
                })
                .vertex_attribute_descriptions(&attributes);
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(d.topology);
            let viewport = vk::PipelineViewportStateCreateInfo::default()
                .viewport_count(1)
                .scissor_count(1);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(d.samples)
                .sample_shading_enable(d.sample_shading)
                .min_sample_shading(1.0);
            let blends: Vec<_> = d
                .targets
                .iter()
                .map(|&format| vk::PipelineColorBlendAttachmentState {
                    blend_enable: (d.blend && format == vk::Format::R8G8B8A8_UNORM).into(),
                    src_color_blend_factor: vk::BlendFactor::SRC_ALPHA,
                    dst_color_blend_factor: vk::BlendFactor::ONE_MINUS_SRC_ALPHA,
                    color_blend_op: vk::BlendOp::ADD,
                    src_alpha_blend_factor: vk::BlendFactor::ONE,
                    dst_alpha_blend_factor: vk::BlendFactor::ZERO,
                    alpha_blend_op: vk::BlendOp::ADD,
                    color_write_mask: vk::ColorComponentFlags::RGBA,
                })
                .collect();
            let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);
            let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
            let dynamic =
                vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
            let info = vk::GraphicsPipelineCreateInfo::default()
                .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .dynamic_state(&dynamic)
                .layout(objects.layout)
                .render_pass(objects.pass);
            // SAFETY: valid device and create info.
            objects.pipeline =
                unsafe { dev.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                    .map_err(|(_, e)| err("vkCreateGraphicsPipelines")(e))?[0];
            Ok((
                self.stage_figures(objects.pipeline, vk::ShaderStageFlags::VERTEX)?,
                self.stage_figures(objects.pipeline, vk::ShaderStageFlags::FRAGMENT)?,
            ))
        })();
        objects.destroy(dev);
        result
    }

    /// The figures VK_KHR_pipeline_executable_properties reports for `stage` of `pipeline`.
    fn stage_figures(
        &self,
        pipeline: vk::Pipeline,
        stage: vk::ShaderStageFlags,
    ) -> Result<Figures> {
        let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: a pipeline of this device, made with CAPTURE_STATISTICS.
        let executables = unsafe { self.executables.get_pipeline_executable_properties(&info) }
            .map_err(|e| format!("vkGetPipelineExecutablePropertiesKHR: {e}"))?;
        let index = executables
            .iter()
            .position(|e| e.stages.contains(stage))
            .ok_or_else(|| format!("no executable for {stage:?}"))?;
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index as u32);
        // SAFETY: as above, with an executable index it reported.
        let stats = unsafe { self.executables.get_pipeline_executable_statistics(&info) }
            .map_err(|e| format!("vkGetPipelineExecutableStatisticsKHR: {e}"))?;
        let mut f = Figures::default();
        for s in &stats {
            // SAFETY: agx4 reports every statistic as UINT64.
            let value = unsafe { s.value.u64 };
            match s.name_as_c_str().map(|n| n.to_string_lossy()).as_deref() {
                Ok("Instructions") => f.instrs = value,
                Ok("Preamble instructions") => f.preamble = value,
                Ok("GPRs") => f.gpr_halves = value,
                Ok("Spills") => f.spills = value,
                _ => {}
            }
        }
        Ok(f)
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object of the device is destroyed; nothing else uses it.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn attachment(
    format: vk::Format,
    samples: vk::SampleCountFlags,
    layout: vk::ImageLayout,
) -> vk::AttachmentDescription {
    vk::AttachmentDescription {
        format,
        samples,
        load_op: vk::AttachmentLoadOp::LOAD,
        store_op: vk::AttachmentStoreOp::STORE,
        stencil_load_op: vk::AttachmentLoadOp::LOAD,
        stencil_store_op: vk::AttachmentStoreOp::STORE,
        initial_layout: layout,
        final_layout: layout,
        ..Default::default()
    }
}

/// The objects one measured pipeline needs, destroyed together.
#[derive(Default)]
struct Objects {
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pass: vk::RenderPass,
    modules: Vec<vk::ShaderModule>,
    pipeline: vk::Pipeline,
}

impl Objects {
    fn destroy(self, dev: &ash::Device) {
        // SAFETY: objects of `dev`, unused by any pending work (nothing was submitted); null
        // handles are ignored by the destroy commands.
        unsafe {
            dev.destroy_pipeline(self.pipeline, None);
            for m in self.modules {
                dev.destroy_shader_module(m, None);
            }
            dev.destroy_render_pass(self.pass, None);
            dev.destroy_pipeline_layout(self.layout, None);
            for l in self.set_layouts {
                dev.destroy_descriptor_set_layout(l, None);
            }
        }
    }
}

pub fn corpus(tmp: &Path) -> Result<()> {
    let pipelines = descriptors()?;
    let mesa = mesa_figures()?;
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("scenes");
    // SAFETY: loading the system's Vulkan loader.
    let entry =
        unsafe { ash::Entry::load() }.map_err(|e| format!("loading libvulkan.so.1: {e}"))?;
    let device = Device::new(&entry)?;

    println!(
        "== Graphics corpus: {} vertex/fragment pipelines of the render scenes ({}), agx4 through Vulkan ==",
        pipelines.len(),
        scenes.display()
    );
    println!("generic state per pipeline (benches/data/graphics-pipelines.tsv), no robustness, no pipeline statistics;");
    println!("figures from VK_KHR_pipeline_executable_properties; gprs in 16-bit halves; Mesa 25.0.7 (benches/data) beside.");
    println!("Mesa's vertex fetch (prolog) and colour output (epilog) are separate programs linked at draw time,");
    println!("so is the loop over the samples of a sample-shaded fragment shader. agx4's shaders include them,");
    println!("so Mesa's count is its main program plus that part (+linked).");
    println!();
    println!(
        "{:<30} {:<8} {:>7} {:>8} {:>5} {:>6} | {:>6} {:>7} {:>8} {:>5} {:>6} | {:>6}",
        "pipeline",
        "stage",
        "instrs",
        "preamble",
        "gprs",
        "spills",
        "mesa",
        "+linked",
        "preamble",
        "gprs",
        "spills",
        "ratio"
    );
    let mut totals: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut ratios: Vec<f64> = Vec::new();
    let mut failures = Vec::new();
    for d in &pipelines {
        // As Mesa's figures were taken: SPIR-V for Vulkan 1.1.
        let spv = |name: &str| {
            glslang_for(
                &scenes.join(name),
                &tmp.join(format!("{name}.spv")),
                "vulkan1.1",
            )
        };
        let measured = spv(&d.vertex)
            .and_then(|vs| spv(&d.fragment).map(|fs| (vs, fs)))
            .and_then(|(vs, fs)| device.measure(d, &vs, &fs));
        let (vertex, fragment) = match measured {
            Ok(f) => f,
            Err(e) => {
                println!("{:<30} {e}", d.pair);
                failures.push(d.pair.as_str());
                continue;
            }
        };
        for (stage, ours) in [("vertex", vertex), ("fragment", fragment)] {
            let theirs = mesa.get(&(d.pair.clone(), stage.to_string()));
            let beside = match theirs {
                Some(m) => {
                    let t = totals.entry(stage).or_default();
                    let whole = m.instrs + m.linked;
                    t.0 += ours.instrs;
                    t.1 += whole;
                    ratios.push(ours.instrs as f64 / whole.max(1) as f64);
                    format!(
                        "{:>6} {:>7} {:>8} {:>5} {:>6} | {:>6.2}",
                        m.instrs,
                        m.linked,
                        m.preamble,
                        m.gpr_halves,
                        m.spills,
                        ours.instrs as f64 / whole.max(1) as f64
                    )
                }
                None => format!(
                    "{:>6} {:>7} {:>8} {:>5} {:>6} | {:>6}",
                    "-", "-", "-", "-", "-", "-"
                ),
            };
            println!(
                "{:<30} {stage:<8} {:>7} {:>8} {:>5} {:>6} | {beside}",
                d.pair, ours.instrs, ours.preamble, ours.gpr_halves, ours.spills
            );
        }
    }
    println!();
    println!(
        "measured {} of {} pipelines{}",
        pipelines.len() - failures.len(),
        pipelines.len(),
        if failures.is_empty() {
            String::new()
        } else {
            format!("; failed: {}", failures.join(", "))
        }
    );
    for stage in ["vertex", "fragment"] {
        if let Some((ours, theirs)) = totals.get(stage) {
            println!(
                "against Mesa, {stage:<8} shaders: instructions agx4 {ours}, Mesa {theirs} (main programs and their linked part), ratio {:.2}",
                *ours as f64 / (*theirs).max(1) as f64
            );
        }
    }
    let max = ratios.iter().copied().fold(0.0, f64::max);
    // Counted exactly: 1.1x itself is not above it.
    let above = ratios.iter().filter(|&&r| r > 1.1 + 1e-9).count();
    println!(
        "against Mesa, per shader: max {max:.2}, {above} of {} above 1.1x",
        ratios.len()
    );
    println!();
    Ok(())
}
