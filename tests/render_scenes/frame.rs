//! The objects of one scene run: every buffer, image, pass and pipeline a scene makes is
//! recorded here and destroyed when the frame drops, so the validation layer sees no leaks.
//! Helpers keep the scenes short: vertices in pixel coordinates, a pipeline description with
//! defaults, one-shot command buffers and read-back.

use super::gpu::Gpu;
use super::image::Image;
use super::spirv;
use ash::vk;
use std::collections::HashMap;

pub type R<T> = Result<T, String>;

fn vkerr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e:?}")
}

/// The vertex most scenes draw: a clip-space position and a colour.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct V {
    pub pos: [f32; 4],
    pub col: [f32; 4],
}

/// An 8-bit colour as the float a shader outputs, so UNORM8 results are exact codes.
pub fn c8(r: u8, g: u8, b: u8, a: u8) -> [f32; 4] {
    [
        r as f32 / 255.0,
        g as f32 / 255.0,
        b as f32 / 255.0,
        a as f32 / 255.0,
    ]
}

/// The UNORM8 codes of a `c8` colour, as read back.
pub fn codes(c: [f32; 4]) -> [f64; 4] {
    c.map(|v| (v as f64 * 255.0).round())
}

pub fn bytes_of<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: T is plain data (#[repr(C)] vertices, integers, floats) without padding reads
    // that matter: the bytes go to a GPU buffer as they are.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
        .to_vec()
}

/// Everything a pipeline needs that scenes vary; `Pipe::default()` is an opaque triangle list
/// of `V` vertices into one colour attachment, viewport and scissor dynamic.
#[derive(Clone)]
pub struct Pipe {
    pub vs: &'static str,
    /// The fragment shader; "" for a pipeline without a fragment stage.
    pub fs: &'static str,
    /// (stride, input rate) per binding.
    pub bindings: Vec<(u32, vk::VertexInputRate)>,
    /// (location, binding, format, offset).
    pub attrs: Vec<(u32, u32, vk::Format, u32)>,
    pub topology: vk::PrimitiveTopology,
    pub restart: bool,
    pub polygon: vk::PolygonMode,
    pub cull: vk::CullModeFlags,
    pub front: vk::FrontFace,
    pub line_width: f32,
    /// (constant, clamp, slope).
    pub depth_bias: Option<(f32, f32, f32)>,
    pub samples: vk::SampleCountFlags,
    pub min_sample_shading: Option<f32>,
    /// `pSampleMask` (one word), as translation layers pass it.
    pub sample_mask: Option<u32>,
    /// `alphaToCoverageEnable`.
    pub alpha_to_coverage: bool,
    /// (test, write, compare).
    pub depth: Option<(bool, bool, vk::CompareOp)>,
    pub stencil: Option<(vk::StencilOpState, vk::StencilOpState)>,
    pub blends: Vec<vk::PipelineColorBlendAttachmentState>,
    pub logic_op: Option<vk::LogicOp>,
    pub blend_constants: [f32; 4],
    pub subpass: u32,
    pub layout: Option<vk::PipelineLayout>,
    /// Fragments' depth clamped to the viewport's range instead of primitives clipped by it.
    pub depth_clamp: bool,
    /// For dynamic rendering (no render pass): the attachment formats.
    pub rendering: Option<Rendering>,
}

/// The attachment formats of a pipeline used with vkCmdBeginRenderingKHR.
#[derive(Clone, Debug, Default)]
pub struct Rendering {
    pub colors: Vec<vk::Format>,
    /// UNDEFINED for none.
    pub depth: vk::Format,
    pub view_mask: u32,
}

pub fn opaque() -> vk::PipelineColorBlendAttachmentState {
    vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)
}

pub fn blend(
    src: vk::BlendFactor,
    dst: vk::BlendFactor,
    op: vk::BlendOp,
    src_a: vk::BlendFactor,
    dst_a: vk::BlendFactor,
    op_a: vk::BlendOp,
) -> vk::PipelineColorBlendAttachmentState {
    vk::PipelineColorBlendAttachmentState {
        blend_enable: vk::TRUE,
        src_color_blend_factor: src,
        dst_color_blend_factor: dst,
        color_blend_op: op,
        src_alpha_blend_factor: src_a,
        dst_alpha_blend_factor: dst_a,
        alpha_blend_op: op_a,
        color_write_mask: vk::ColorComponentFlags::RGBA,
    }
}

impl Default for Pipe {
    fn default() -> Pipe {
        Pipe {
            vs: "basic.vert",
            fs: "color.frag",
            bindings: vec![(32, vk::VertexInputRate::VERTEX)],
            attrs: vec![
                (0, 0, vk::Format::R32G32B32A32_SFLOAT, 0),
                (1, 0, vk::Format::R32G32B32A32_SFLOAT, 16),
            ],
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            restart: false,
            polygon: vk::PolygonMode::FILL,
            cull: vk::CullModeFlags::NONE,
            front: vk::FrontFace::COUNTER_CLOCKWISE,
            line_width: 1.0,
            depth_bias: None,
            samples: vk::SampleCountFlags::TYPE_1,
            min_sample_shading: None,
            sample_mask: None,
            alpha_to_coverage: false,
            depth: None,
            stencil: None,
            blends: vec![opaque()],
            logic_op: None,
            blend_constants: [0.0; 4],
            subpass: 0,
            layout: None,
            depth_clamp: false,
            rendering: None,
        }
    }
}

pub struct Frame<'g> {
    pub gpu: &'g Gpu,
    pub d: &'g ash::Device,
    /// Framebuffer size in pixels.
    pub w: u32,
    pub h: u32,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    images: Vec<(vk::Image, vk::DeviceMemory)>,
    views: Vec<vk::ImageView>,
    passes: Vec<vk::RenderPass>,
    framebuffers: Vec<vk::Framebuffer>,
    pipelines: Vec<vk::Pipeline>,
    layouts: Vec<vk::PipelineLayout>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    desc_pools: Vec<vk::DescriptorPool>,
    samplers: Vec<vk::Sampler>,
    modules: HashMap<&'static str, vk::ShaderModule>,
    empty_layout: Option<vk::PipelineLayout>,
    secondaries: Vec<vk::CommandBuffer>,
}

impl<'g> Frame<'g> {
    pub fn new(gpu: &'g Gpu, w: u32, h: u32) -> Frame<'g> {
        Frame {
            gpu,
            d: &gpu.device,
            w,
            h,
            buffers: vec![],
            images: vec![],
            views: vec![],
            passes: vec![],
            framebuffers: vec![],
            pipelines: vec![],
            layouts: vec![],
            set_layouts: vec![],
            desc_pools: vec![],
            samplers: vec![],
            modules: HashMap::new(),
            empty_layout: None,
            secondaries: vec![],
        }
    }

    /// Pixel coordinates (y down, origin top left) to clip space for the whole framebuffer.
    pub fn ndc(&self, x: f32, y: f32) -> [f32; 2] {
        [x / self.w as f32 * 2.0 - 1.0, y / self.h as f32 * 2.0 - 1.0]
    }

    pub fn v(&self, x: f32, y: f32, z: f32, col: [f32; 4]) -> V {
        let [nx, ny] = self.ndc(x, y);
        V {
            pos: [nx, ny, z, 1.0],
            col,
        }
    }

    /// Two triangles covering pixels x0..x1, y0..y1 (edges on pixel boundaries), counter-
    /// clockwise in framebuffer coordinates when `ccw` (front-facing with the default pipe).
    pub fn rect_w(&self, [x0, y0, x1, y1]: [f32; 4], z: f32, col: [f32; 4], ccw: bool) -> Vec<V> {
        let (a, b, c, d) = (
            self.v(x0, y0, z, col),
            self.v(x1, y0, z, col),
            self.v(x1, y1, z, col),
            self.v(x0, y1, z, col),
        );
        // a-d-c goes down then right: counter-clockwise on screen with y down means a positive
        // Vulkan area term (checked against the CPU reference in raster.rs).
        if ccw {
            vec![a, d, c, a, c, b]
        } else {
            vec![a, b, c, a, c, d]
        }
    }

    pub fn rect(&self, x0: f32, y0: f32, x1: f32, y1: f32, z: f32, col: [f32; 4]) -> Vec<V> {
        self.rect_w([x0, y0, x1, y1], z, col, true)
    }

    pub fn buffer(&mut self, usage: vk::BufferUsageFlags, data: &[u8]) -> R<vk::Buffer> {
        let size = data.len().max(4) as u64;
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        // SAFETY: valid device and create info.
        let buf = unsafe { self.d.create_buffer(&info, None) }.map_err(vkerr("vkCreateBuffer"))?;
        // SAFETY: valid buffer.
        let req = unsafe { self.d.get_buffer_memory_requirements(buf) };
        let mem = match self.alloc(
            req,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        ) {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused buffer.
                unsafe { self.d.destroy_buffer(buf, None) };
                return Err(e);
            }
        };
        self.buffers.push((buf, mem));
        // SAFETY: fresh, unbound buffer and host-visible memory of the required size.
        unsafe {
            self.d
                .bind_buffer_memory(buf, mem, 0)
                .map_err(vkerr("vkBindBufferMemory"))?;
            let p = self
                .d
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(data.as_ptr(), p as *mut u8, data.len());
            self.d.unmap_memory(mem);
        }
        Ok(buf)
    }

    fn alloc(
        &self,
        req: vk::MemoryRequirements,
        want: vk::MemoryPropertyFlags,
    ) -> R<vk::DeviceMemory> {
        let ty = self.gpu.memory_type(req.memory_type_bits, want)?;
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        // SAFETY: valid device and allocate info.
        unsafe { self.d.allocate_memory(&info, None) }.map_err(vkerr("vkAllocateMemory"))
    }

    /// Reads a buffer made by `buffer` (host-visible, coherent) after the GPU is done with it.
    pub fn read_buffer(&self, buf: vk::Buffer, len: usize) -> R<Vec<u8>> {
        let mem = self
            .buffers
            .iter()
            .find(|(b, _)| *b == buf)
            .ok_or("not a frame buffer")?
            .1;
        let mut out = vec![0u8; len];
        // SAFETY: the buffer's memory is host-visible and at least `len` bytes; the queue is idle.
        unsafe {
            let p = self
                .d
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(p as *const u8, out.as_mut_ptr(), len);
            self.d.unmap_memory(mem);
        }
        Ok(out)
    }

    pub fn image_full(
        &mut self,
        format: vk::Format,
        w: u32,
        h: u32,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
    ) -> R<vk::Image> {
        self.image_layers(
            format,
            w,
            h,
            1,
            usage,
            samples,
            vk::ImageCreateFlags::empty(),
        )
    }

    /// A 2D image of `levels` mip levels.
    pub fn image_mips(
        &mut self,
        format: vk::Format,
        (w, h): (u32, u32),
        levels: u32,
        usage: vk::ImageUsageFlags,
    ) -> R<vk::Image> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            })
            .mip_levels(levels)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        self.image_from(&info)
    }

    /// A 3D image of `levels` mip levels, created with `flags`.
    pub fn image_3d(
        &mut self,
        format: vk::Format,
        extent: vk::Extent3D,
        levels: u32,
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> R<vk::Image> {
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(vk::ImageType::TYPE_3D)
            .format(format)
            .extent(extent)
            .mip_levels(levels)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        self.image_from(&info)
    }

    /// A 2D image of `layers` array layers, created with `flags`.
    #[allow(clippy::too_many_arguments)]
    pub fn image_layers(
        &mut self,
        format: vk::Format,
        w: u32,
        h: u32,
        layers: u32,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
        flags: vk::ImageCreateFlags,
    ) -> R<vk::Image> {
        let info = vk::ImageCreateInfo::default()
            .flags(flags)
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        self.image_from(&info)
    }

    /// An image of `info`, bound to memory of its own.
    fn image_from(&mut self, info: &vk::ImageCreateInfo) -> R<vk::Image> {
        // SAFETY: valid device and create info.
        let img = unsafe { self.d.create_image(info, None) }.map_err(vkerr("vkCreateImage"))?;
        // SAFETY: valid image.
        let req = unsafe { self.d.get_image_memory_requirements(img) };
        let mem = match self.alloc(req, vk::MemoryPropertyFlags::empty()) {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused image.
                unsafe { self.d.destroy_image(img, None) };
                return Err(e);
            }
        };
        self.images.push((img, mem));
        // SAFETY: fresh image, memory of the required size and type.
        unsafe { self.d.bind_image_memory(img, mem, 0) }.map_err(vkerr("vkBindImageMemory"))?;
        Ok(img)
    }

    pub fn view(
        &mut self,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
    ) -> R<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(range(aspect));
        // SAFETY: valid image and create info.
        let v =
            unsafe { self.d.create_image_view(&info, None) }.map_err(vkerr("vkCreateImageView"))?;
        self.views.push(v);
        Ok(v)
    }

    /// A 2D view of mip level `level` of `image`.
    pub fn view_level(
        &mut self,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        level: u32,
    ) -> R<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                base_mip_level: level,
                ..range(aspect)
            });
        // SAFETY: valid image and create info.
        let v =
            unsafe { self.d.create_image_view(&info, None) }.map_err(vkerr("vkCreateImageView"))?;
        self.views.push(v);
        Ok(v)
    }

    /// A view from a whole create info.
    pub fn view_from(&mut self, info: &vk::ImageViewCreateInfo) -> R<vk::ImageView> {
        // SAFETY: valid device; the caller's create info names a live image.
        let v =
            unsafe { self.d.create_image_view(info, None) }.map_err(vkerr("vkCreateImageView"))?;
        self.views.push(v);
        Ok(v)
    }

    /// A view of layers `base..base + count` of `image`, of type `ty`.
    pub fn view_of(
        &mut self,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        ty: vk::ImageViewType,
        base: u32,
        count: u32,
    ) -> R<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(ty)
            .format(format)
            .subresource_range(layers(aspect, base, count));
        // SAFETY: valid image and create info.
        let v =
            unsafe { self.d.create_image_view(&info, None) }.map_err(vkerr("vkCreateImageView"))?;
        self.views.push(v);
        Ok(v)
    }

    /// A frame-sized colour target (attachment, copy source) and its view.
    pub fn target(
        &mut self,
        format: vk::Format,
        extra: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
    ) -> R<(vk::Image, vk::ImageView)> {
        let usage =
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC | extra;
        let img = self.image_full(format, self.w, self.h, usage, samples)?;
        Ok((img, self.view(img, format, vk::ImageAspectFlags::COLOR)?))
    }

    /// A frame-sized depth/stencil target (readable by copies) and its view of every aspect.
    pub fn depth_target(
        &mut self,
        format: vk::Format,
        samples: vk::SampleCountFlags,
    ) -> R<(vk::Image, vk::ImageView)> {
        let usage =
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
        let img = self.image_full(format, self.w, self.h, usage, samples)?;
        Ok((img, self.view(img, format, ds_aspects(format))?))
    }

    /// A render pass made by vkCreateRenderPass2KHR.
    pub fn render_pass2(&mut self, info: &vk::RenderPassCreateInfo2) -> R<vk::RenderPass> {
        let rp2 = self
            .gpu
            .rp2
            .as_ref()
            .ok_or("VK_KHR_create_renderpass2 is not enabled")?;
        // SAFETY: valid device with the extension enabled, and a valid create info.
        let rp = unsafe { rp2.create_render_pass2(info, None) }
            .map_err(vkerr("vkCreateRenderPass2KHR"))?;
        self.passes.push(rp);
        Ok(rp)
    }

    pub fn render_pass(&mut self, info: &vk::RenderPassCreateInfo) -> R<vk::RenderPass> {
        // SAFETY: valid device and create info.
        let rp = unsafe { self.d.create_render_pass(info, None) }
            .map_err(vkerr("vkCreateRenderPass"))?;
        self.passes.push(rp);
        Ok(rp)
    }

    /// One subpass writing `colors` (cleared, stored, left in TRANSFER_SRC_OPTIMAL) and an
    /// optional depth/stencil attachment (cleared, stored).
    pub fn simple_pass(
        &mut self,
        colors: &[vk::Format],
        depth: Option<vk::Format>,
        samples: vk::SampleCountFlags,
    ) -> R<vk::RenderPass> {
        let mut atts: Vec<vk::AttachmentDescription> = colors
            .iter()
            .map(|&f| {
                color_att(
                    f,
                    samples,
                    vk::AttachmentLoadOp::CLEAR,
                    vk::ImageLayout::UNDEFINED,
                )
            })
            .collect();
        let refs: Vec<vk::AttachmentReference> = (0..colors.len() as u32)
            .map(|i| vk::AttachmentReference {
                attachment: i,
                layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
            })
            .collect();
        let dref = vk::AttachmentReference {
            attachment: colors.len() as u32,
            layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        let mut sub = vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&refs);
        if let Some(df) = depth {
            atts.push(depth_att(df, samples, vk::AttachmentLoadOp::CLEAR));
            sub = sub.depth_stencil_attachment(&dref);
        }
        let subs = [sub];
        self.render_pass(
            &vk::RenderPassCreateInfo::default()
                .attachments(&atts)
                .subpasses(&subs),
        )
    }

    pub fn framebuffer(
        &mut self,
        rp: vk::RenderPass,
        views: &[vk::ImageView],
    ) -> R<vk::Framebuffer> {
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(rp)
            .attachments(views)
            .width(self.w)
            .height(self.h)
            .layers(1);
        // SAFETY: valid render pass, views and create info.
        let fb = unsafe { self.d.create_framebuffer(&info, None) }
            .map_err(vkerr("vkCreateFramebuffer"))?;
        self.framebuffers.push(fb);
        Ok(fb)
    }

    /// A framebuffer from a whole create info (layers, imageless attachments).
    pub fn framebuffer_info(&mut self, info: &vk::FramebufferCreateInfo) -> R<vk::Framebuffer> {
        // SAFETY: valid device; the caller's create info names live objects.
        let fb = unsafe { self.d.create_framebuffer(info, None) }
            .map_err(vkerr("vkCreateFramebuffer"))?;
        self.framebuffers.push(fb);
        Ok(fb)
    }

    pub fn shader(&mut self, name: &'static str) -> R<vk::ShaderModule> {
        if let Some(&m) = self.modules.get(name) {
            return Ok(m);
        }
        let words = spirv::compile(name)?;
        // SAFETY: valid SPIR-V from glslang.
        let m = unsafe {
            self.d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
        }
        .map_err(vkerr("vkCreateShaderModule"))?;
        self.modules.insert(name, m);
        Ok(m)
    }

    /// A pipeline layout with these set layouts and push-constant bytes (vertex + fragment).
    pub fn layout(
        &mut self,
        sets: &[vk::DescriptorSetLayout],
        push_bytes: u32,
    ) -> R<vk::PipelineLayout> {
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
            offset: 0,
            size: push_bytes,
        }];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(sets);
        if push_bytes > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: valid device and create info.
        let l = unsafe { self.d.create_pipeline_layout(&info, None) }
            .map_err(vkerr("vkCreatePipelineLayout"))?;
        self.layouts.push(l);
        Ok(l)
    }

    pub fn set_layout(
        &mut self,
        bindings: &[vk::DescriptorSetLayoutBinding],
    ) -> R<vk::DescriptorSetLayout> {
        // SAFETY: valid device and create info.
        let l = unsafe {
            self.d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings),
                None,
            )
        }
        .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
        self.set_layouts.push(l);
        Ok(l)
    }

    pub fn sampler(&mut self, info: &vk::SamplerCreateInfo) -> R<vk::Sampler> {
        // SAFETY: valid device and create info.
        let s = unsafe { self.d.create_sampler(info, None) }.map_err(vkerr("vkCreateSampler"))?;
        self.samplers.push(s);
        Ok(s)
    }

    /// One descriptor set of `layout` from a fresh pool sized by `sizes`.
    pub fn descriptor_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
        sizes: &[vk::DescriptorPoolSize],
    ) -> R<vk::DescriptorSet> {
        // SAFETY: valid device and create info.
        let pool = unsafe {
            self.d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(1)
                    .pool_sizes(sizes),
                None,
            )
        }
        .map_err(vkerr("vkCreateDescriptorPool"))?;
        self.desc_pools.push(pool);
        let layouts = [layout];
        // SAFETY: valid pool with room for the set.
        let sets = unsafe {
            self.d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(vkerr("vkAllocateDescriptorSets"))?;
        Ok(sets[0])
    }

    pub fn pipeline(&mut self, p: &Pipe, rp: vk::RenderPass) -> R<vk::Pipeline> {
        let layout = match p.layout {
            Some(l) => l,
            None => match self.empty_layout {
                Some(l) => l,
                None => {
                    let l = self.layout(&[], 0)?;
                    self.empty_layout = Some(l);
                    l
                }
            },
        };
        let vs = self.shader(p.vs)?;
        let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main")];
        if !p.fs.is_empty() {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(self.shader(p.fs)?)
                    .name(c"main"),
            );
        }
        let bindings: Vec<_> = p
            .bindings
            .iter()
            .enumerate()
            .map(|(i, &(stride, rate))| vk::VertexInputBindingDescription {
                binding: i as u32,
                stride,
                input_rate: rate,
            })
            .collect();
        let attrs: Vec<_> = p
            .attrs
            .iter()
            .map(
                |&(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                    location,
                    binding,
                    format,
                    offset,
                },
            )
            .collect();
        let vi = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attrs);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(p.topology)
            .primitive_restart_enable(p.restart);
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let (bias, bc, bclamp, bs) = p
            .depth_bias
            .map_or((false, 0.0, 0.0, 0.0), |(c, cl, s)| (true, c, cl, s));
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .depth_clamp_enable(p.depth_clamp)
            .polygon_mode(p.polygon)
            .cull_mode(p.cull)
            .front_face(p.front)
            .line_width(p.line_width)
            .depth_bias_enable(bias)
            .depth_bias_constant_factor(bc)
            .depth_bias_clamp(bclamp)
            .depth_bias_slope_factor(bs);
        let mut ms =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(p.samples);
        if let Some(m) = p.min_sample_shading {
            ms = ms.sample_shading_enable(true).min_sample_shading(m);
        }
        ms = ms.alpha_to_coverage_enable(p.alpha_to_coverage);
        let sample_mask = p.sample_mask.map(|m| [m]);
        if let Some(m) = &sample_mask {
            ms = ms.sample_mask(m);
        }
        let (dt, dw, dop) = p.depth.unwrap_or((false, false, vk::CompareOp::ALWAYS));
        let mut ds = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(dt)
            .depth_write_enable(dw)
            .depth_compare_op(dop);
        if let Some((front, back)) = p.stencil {
            ds = ds.stencil_test_enable(true).front(front).back(back);
        }
        let mut cb = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&p.blends)
            .blend_constants(p.blend_constants);
        if let Some(op) = p.logic_op {
            cb = cb.logic_op_enable(true).logic_op(op);
        }
        let dyns = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyns);
        let rendering_formats = p.rendering.clone().unwrap_or_default();
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&rendering_formats.colors)
            .depth_attachment_format(rendering_formats.depth)
            .view_mask(rendering_formats.view_mask);
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .depth_stencil_state(&ds)
            .color_blend_state(&cb)
            .dynamic_state(&dy)
            .layout(layout)
            .render_pass(rp)
            .subpass(p.subpass);
        if p.rendering.is_some() {
            info = info.push_next(&mut rendering);
        }
        // SAFETY: valid device, every referenced object alive.
        let pl = unsafe {
            self.d
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e:?}"))?[0];
        self.pipelines.push(pl);
        Ok(pl)
    }

    /// Records `record` into a fresh command buffer, submits it and waits for the queue.
    pub fn submit(&self, record: impl FnOnce(vk::CommandBuffer)) -> R<()> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.gpu.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        let cb = unsafe { self.d.allocate_command_buffers(&info) }
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        // SAFETY: a fresh primary command buffer, recorded and submitted once, waited for, then
        // freed.
        let result = unsafe { self.record_and_run(cb, record) };
        // SAFETY: the queue is idle (or the buffer never reached it).
        unsafe {
            let _ = self.d.queue_wait_idle(self.gpu.queue);
            self.d.free_command_buffers(self.gpu.pool, &[cb]);
        }
        result
    }

    unsafe fn record_and_run(
        &self,
        cb: vk::CommandBuffer,
        record: impl FnOnce(vk::CommandBuffer),
    ) -> R<()> {
        // SAFETY: see `submit`.
        unsafe {
            self.d
                .begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(vkerr("vkBeginCommandBuffer"))?;
            record(cb);
            self.d
                .end_command_buffer(cb)
                .map_err(vkerr("vkEndCommandBuffer"))?;
            let cbs = [cb];
            self.d
                .queue_submit(
                    self.gpu.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    vk::Fence::null(),
                )
                .map_err(vkerr("vkQueueSubmit"))?;
            self.d
                .queue_wait_idle(self.gpu.queue)
                .map_err(vkerr("vkQueueWaitIdle"))?;
        }
        Ok(())
    }

    /// Records a secondary command buffer that continues the render pass instance
    /// `inheritance` describes (RENDER_PASS_CONTINUE, and SIMULTANEOUS_USE so that it may be
    /// executed more than once); it lives as long as the frame.
    pub fn secondary(
        &mut self,
        inheritance: &vk::CommandBufferInheritanceInfo,
        record: impl FnOnce(&Frame, vk::CommandBuffer),
    ) -> R<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.gpu.pool)
            .level(vk::CommandBufferLevel::SECONDARY)
            .command_buffer_count(1);
        // SAFETY: valid pool.
        let cb = unsafe { self.d.allocate_command_buffers(&info) }
            .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
        self.secondaries.push(cb);
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(
                vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE
                    | vk::CommandBufferUsageFlags::SIMULTANEOUS_USE,
            )
            .inheritance_info(inheritance);
        // SAFETY: a fresh secondary command buffer; the inheritance names live objects.
        unsafe {
            self.d
                .begin_command_buffer(cb, &begin)
                .map_err(vkerr("vkBeginCommandBuffer"))?;
            record(self, cb);
            self.d
                .end_command_buffer(cb)
                .map_err(vkerr("vkEndCommandBuffer"))?;
        }
        Ok(cb)
    }

    /// Begins `rp` on `fb` over the whole frame with `clears`, and sets the full viewport and
    /// scissor.
    pub fn begin(
        &self,
        cb: vk::CommandBuffer,
        rp: vk::RenderPass,
        fb: vk::Framebuffer,
        clears: &[vk::ClearValue],
    ) {
        let info = vk::RenderPassBeginInfo::default()
            .render_pass(rp)
            .framebuffer(fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D {
                    width: self.w,
                    height: self.h,
                },
            })
            .clear_values(clears);
        // SAFETY: recording command buffer; objects alive.
        unsafe {
            self.d
                .cmd_begin_render_pass(cb, &info, vk::SubpassContents::INLINE)
        };
        self.full_viewport(cb);
    }

    pub fn full_viewport(&self, cb: vk::CommandBuffer) {
        self.viewport(cb, 0.0, 0.0, self.w as f32, self.h as f32);
        self.scissor(cb, 0, 0, self.w, self.h);
    }

    pub fn viewport(&self, cb: vk::CommandBuffer, x: f32, y: f32, w: f32, h: f32) {
        let vp = vk::Viewport {
            x,
            y,
            width: w,
            height: h,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        // SAFETY: recording command buffer.
        unsafe { self.d.cmd_set_viewport(cb, 0, &[vp]) };
    }

    pub fn scissor(&self, cb: vk::CommandBuffer, x: i32, y: i32, w: u32, h: u32) {
        let r = vk::Rect2D {
            offset: vk::Offset2D { x, y },
            extent: vk::Extent2D {
                width: w,
                height: h,
            },
        };
        // SAFETY: recording command buffer.
        unsafe { self.d.cmd_set_scissor(cb, 0, &[r]) };
    }

    /// Binds `pipe` and `vb` and draws every vertex of `vb` (of `count` vertices).
    pub fn draw(&self, cb: vk::CommandBuffer, pipe: vk::Pipeline, vb: vk::Buffer, count: u32) {
        // SAFETY: recording command buffer inside a render pass; objects alive.
        unsafe {
            self.d
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipe);
            self.d.cmd_bind_vertex_buffers(cb, 0, &[vb], &[0]);
            self.d.cmd_draw(cb, count, 1, 0, 0);
        }
    }

    /// Copies one aspect of a frame-sized single-sample image (currently in `layout`) to the
    /// host and decodes it as `format`.
    pub fn read(
        &mut self,
        label: &str,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        layout: vk::ImageLayout,
    ) -> R<Image> {
        let (w, h) = (self.w, self.h);
        self.read_sized(label, image, format, aspect, layout, w, h)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn read_sized(
        &mut self,
        label: &str,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        layout: vk::ImageLayout,
        w: u32,
        h: u32,
    ) -> R<Image> {
        let at = (0, 0, barrier_aspects(format, aspect), 0);
        self.read_region(label, image, format, aspect, layout, w, h, at)
    }

    /// Like `read`, of mip level `level` of an image of `image_format` whose level 0 is `w` x
    /// `h`, decoded as `format` (only that level changes layout).
    #[allow(clippy::too_many_arguments)]
    pub fn read_level(
        &mut self,
        label: &str,
        image: vk::Image,
        (image_format, format): (vk::Format, vk::Format),
        aspect: vk::ImageAspectFlags,
        layout: vk::ImageLayout,
        (w, h): (u32, u32),
        level: u32,
    ) -> R<Image> {
        let (lw, lh) = ((w >> level).max(1), (h >> level).max(1));
        // A transition names every aspect of the image.
        let barrier = match aspect {
            vk::ImageAspectFlags::COLOR => aspect,
            _ => ds_aspects(image_format),
        };
        let at = (0, level, barrier, 0);
        self.read_region(label, image, format, aspect, layout, lw, lh, at)
    }

    /// Like `read_level`, of depth slice `z` of a colour 3D image (the whole level changes
    /// layout, as a 3D image's barriers name all its slices).
    #[allow(clippy::too_many_arguments)]
    pub fn read_slice(
        &mut self,
        label: &str,
        image: vk::Image,
        format: vk::Format,
        layout: vk::ImageLayout,
        (w, h): (u32, u32),
        level: u32,
        z: u32,
    ) -> R<Image> {
        let (lw, lh) = ((w >> level).max(1), (h >> level).max(1));
        let at = (0, level, vk::ImageAspectFlags::COLOR, z);
        self.read_region(
            label,
            image,
            format,
            vk::ImageAspectFlags::COLOR,
            layout,
            lw,
            lh,
            at,
        )
    }

    /// Like `read`, of array layer `layer` (only that layer changes layout).
    pub fn read_layer(
        &mut self,
        label: &str,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        layout: vk::ImageLayout,
        layer: u32,
    ) -> R<Image> {
        let (w, h) = (self.w, self.h);
        let at = (layer, 0, barrier_aspects(format, aspect), 0);
        self.read_region(label, image, format, aspect, layout, w, h, at)
    }

    #[allow(clippy::too_many_arguments)]
    fn read_region(
        &mut self,
        label: &str,
        image: vk::Image,
        format: vk::Format,
        aspect: vk::ImageAspectFlags,
        layout: vk::ImageLayout,
        w: u32,
        h: u32,
        // Array layer, mip level, the aspects the layout transition names, and the depth slice
        // (of a 3D image).
        (layer, level, barrier_aspect, z): (u32, u32, vk::ImageAspectFlags, u32),
    ) -> R<Image> {
        let texel = super::image::fmt(format).bytes;
        let len = (w * h) as usize * texel;
        let buf = self.buffer(vk::BufferUsageFlags::TRANSFER_DST, &vec![0xa5u8; len])?;
        let barrier = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
            .old_layout(layout)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(vk::ImageSubresourceRange {
                base_mip_level: level,
                ..layers(barrier_aspect, layer, 1)
            });
        let to_host = vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(buf)
            .size(vk::WHOLE_SIZE);
        let region = vk::BufferImageCopy {
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: level,
                base_array_layer: layer,
                layer_count: 1,
            },
            image_offset: vk::Offset3D {
                x: 0,
                y: 0,
                z: z as i32,
            },
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
            ..Default::default()
        };
        let d = self.d;
        self.submit(|cb| {
            // SAFETY: recording command buffer; image and buffer alive and large enough.
            unsafe {
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[barrier],
                );
                d.cmd_copy_image_to_buffer(
                    cb,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buf,
                    &[region],
                );
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[to_host],
                    &[],
                );
            }
        })?;
        let bytes = self.read_buffer(buf, len)?;
        Ok(Image::from_bytes(label, w, h, format, &bytes))
    }
}

pub fn range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// Layers `base..base + count` of mip level 0.
pub fn layers(aspect: vk::ImageAspectFlags, base: u32, count: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        base_array_layer: base,
        layer_count: count,
        ..range(aspect)
    }
}

pub fn ds_aspects(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D32_SFLOAT | vk::Format::D16_UNORM | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::S8_UINT => vk::ImageAspectFlags::STENCIL,
        _ => vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL,
    }
}

/// The aspects a layout transition before reading `aspect` as `read_format` must name: a
/// transition covers every aspect of the image. Depth is read as D32_SFLOAT only from D32
/// images; stencil (S8_UINT) only from combined depth/stencil images.
fn barrier_aspects(read_format: vk::Format, aspect: vk::ImageAspectFlags) -> vk::ImageAspectFlags {
    if aspect == vk::ImageAspectFlags::COLOR || read_format == vk::Format::D32_SFLOAT {
        aspect
    } else {
        vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
    }
}

pub fn color_att(
    format: vk::Format,
    samples: vk::SampleCountFlags,
    load: vk::AttachmentLoadOp,
    initial: vk::ImageLayout,
) -> vk::AttachmentDescription {
    vk::AttachmentDescription {
        format,
        samples,
        load_op: load,
        store_op: vk::AttachmentStoreOp::STORE,
        stencil_load_op: vk::AttachmentLoadOp::DONT_CARE,
        stencil_store_op: vk::AttachmentStoreOp::DONT_CARE,
        initial_layout: initial,
        final_layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        ..Default::default()
    }
}

pub fn depth_att(
    format: vk::Format,
    samples: vk::SampleCountFlags,
    load: vk::AttachmentLoadOp,
) -> vk::AttachmentDescription {
    vk::AttachmentDescription {
        format,
        samples,
        load_op: load,
        store_op: vk::AttachmentStoreOp::STORE,
        stencil_load_op: load,
        stencil_store_op: vk::AttachmentStoreOp::STORE,
        initial_layout: vk::ImageLayout::UNDEFINED,
        final_layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        ..Default::default()
    }
}

pub fn clear_color(c: [f32; 4]) -> vk::ClearValue {
    vk::ClearValue {
        color: vk::ClearColorValue { float32: c },
    }
}

pub fn clear_depth(depth: f32, stencil: u32) -> vk::ClearValue {
    vk::ClearValue {
        depth_stencil: vk::ClearDepthStencilValue { depth, stencil },
    }
}

impl Drop for Frame<'_> {
    fn drop(&mut self) {
        // SAFETY: the queue is idle after every submit; each object is destroyed once, children
        // before what they were made from.
        unsafe {
            let _ = self.d.queue_wait_idle(self.gpu.queue);
            if !self.secondaries.is_empty() {
                self.d
                    .free_command_buffers(self.gpu.pool, &self.secondaries);
            }
            for &p in &self.pipelines {
                self.d.destroy_pipeline(p, None);
            }
            for &m in self.modules.values() {
                self.d.destroy_shader_module(m, None);
            }
            for &l in &self.layouts {
                self.d.destroy_pipeline_layout(l, None);
            }
            for &p in &self.desc_pools {
                self.d.destroy_descriptor_pool(p, None);
            }
            for &l in &self.set_layouts {
                self.d.destroy_descriptor_set_layout(l, None);
            }
            for &s in &self.samplers {
                self.d.destroy_sampler(s, None);
            }
            for &f in &self.framebuffers {
                self.d.destroy_framebuffer(f, None);
            }
            for &r in &self.passes {
                self.d.destroy_render_pass(r, None);
            }
            for &v in &self.views {
                self.d.destroy_image_view(v, None);
            }
            for &(i, m) in &self.images {
                self.d.destroy_image(i, None);
                self.d.free_memory(m, None);
            }
            for &(b, m) in &self.buffers {
                self.d.destroy_buffer(b, None);
                self.d.free_memory(m, None);
            }
        }
    }
}
